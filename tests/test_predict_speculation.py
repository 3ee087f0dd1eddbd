"""`diagnose predict --spec-method M --spec-tokens K` (issue 10/11): one stream's expected decode under speculative
decoding, from the published acceptance range for the method (rules/catalog/speculative.toml), capped at 1 + the
draft tokens, times the plain prediction's band; the same arithmetic and evidence as the ticket path's judgement of
a stated one (rules.speculation.speculated / evidence)."""

import pytest
from conftest import diagnose, report_json

from rules.catalog import acceptance

BASE = ("predict", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tp", "1,2", "--engine", "vllm")


def _spec(report):
    (f,) = [f for f in report["findings"] if f["rule"] == "predict.speculative_decode"]
    return f


def _plain(report, label):
    """(expected tok/s, band low factor, band high factor, roofline tok/s) of a batch-1 layout in the same report."""
    row = next(r for r in report["predictions"]["layouts"] if r["tp"] == int(label[2:]) and r["total_batch"] == 1)
    return row["decode_tok_s_expected"], row["band_low"], row["band_high"], row["decode_tok_s"]


def _edges(text):
    low, high = text.split("-")
    return float(low), float(high)


def test_eagle3_with_four_draft_tokens_is_the_plain_band_times_its_capped_range():
    report = report_json(*BASE, "--spec-method", "eagle3", "--spec-tokens", "4")
    f = _spec(report)
    a = acceptance()["eagle3"]
    hi = min(a.high, 1 + 4)  # a step keeps at most the 4 drafts and the bonus token
    assert hi == 5.0 and a.low == 2.0
    label = f["title"].split(" at ")[1].split(" ")[0]  # the layout the title names
    expected, band_low, band_high, roofline = _plain(report, label)
    low, high = _edges(next(e["expected"] for e in f["evidence"] if e["source"] == "prediction:expected"))
    assert low == pytest.approx(expected / band_high * a.low, abs=0.6)
    assert high == pytest.approx(expected / band_low * hi, abs=0.6)
    roof = next(e["expected"] for e in f["evidence"] if e["source"] == "prediction:roofline")
    assert roof == pytest.approx(roofline * hi, abs=0.1)
    # the acceptance range says where it comes from
    src = next(e for e in f["evidence"] if e["unit"] == "tok/step")
    assert src["measured"] == "2-5" and "arxiv.org/abs/2503.01840" in src["source"]
    assert f["category"] == "expected_physics" and "4 draft tokens a step" in f["title"]
    assert report["predictions"]["speculation"] == {"method": "eagle3", "draft_tokens": 4}
    assert report["inputs"]["spec_method"] == "eagle3" and report["inputs"]["spec_tokens"] == 4


@pytest.mark.parametrize("written, method", [("EAGLE-3", "eagle3"), ("nextn", "mtp"), ("MTP", "mtp"),
                                             ("prompt-lookup", "ngram"), ("draft_model", "draft_model"),
                                             ("medusa", "medusa")])
def test_methods_as_engines_spell_them(written, method):
    report = report_json(*BASE, "--spec-method", written)
    assert report["predictions"]["speculation"]["method"] == method
    a = acceptance()[method]
    src = next(e for e in _spec(report)["evidence"] if e["unit"] == "tok/step")
    assert src["measured"] == f"{a.low:g}-{a.high:g}"  # no draft count: the method's whole published range


def test_draft_tokens_alone_take_the_range_over_every_method_capped():
    f = _spec(report_json(*BASE, "--spec-tokens", "2"))
    src = next(e for e in f["evidence"] if e["unit"] == "tok/step")
    assert src["measured"] == "1-3"  # unnamed: 1.0-6.5, at most 1 + 2 tokens a step
    assert "speculative decoding, 2 draft tokens a step" in f["title"]


def test_without_the_options_nothing_changes():
    report = report_json(*BASE)
    assert not [f for f in report["findings"] if f["rule"] == "predict.speculative_decode"]
    assert "speculation" not in report["predictions"]


@pytest.mark.parametrize("args, needle", [
    (("--spec-method", "Lookahead"), None),  # lookahead decoding drafts n-grams: accepted
    (("--spec-method", "turbo"), "--spec-method 'turbo': no speculative-decoding method"),
    (("--spec-tokens", "0"), "--spec-tokens"),
    (("--spec-method", "eagle", "--batch", "8"), "include --batch 1"),
])
def test_bad_speculation_options_exit_2_with_one_line(args, needle):
    result = diagnose(*BASE, *args, "--json")
    if needle is None:
        assert result.exit_code == 0
        return
    assert result.exit_code == 2 and needle in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_the_same_stated_method_gives_the_ticket_the_same_band(tmp_path):
    # a paraphrased ticket: EAGLE-3 said to run, no draft count, one request on one H100 with vLLM
    (tmp_path / "issue.md").write_text(
        "# EAGLE-3 on one H100\n\nI serve Llama-3.1-8B-Instruct with vLLM on one H100 SXM with EAGLE-3 enabled, and "
        "a single request decodes at 250 tok/s. Is that normal?\n")
    ticket = report_json("ticket", tmp_path)
    judged = next(f for f in ticket["findings"] if f["rule"] == "ticket.measured_vs_expected")
    predicted = _spec(report_json("predict", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tp", "1", "--engine",
                                  "vllm", "--spec-method", "EAGLE-3"))

    def band(f):
        return next(e["expected"] for e in f["evidence"] if e["source"] == "prediction:expected")

    assert band(judged) == band(predicted)
