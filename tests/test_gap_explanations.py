"""A finding that only measures a gap (a rate below its band, busbw below the fabric) is a symptom; a mechanism
that predicts a slowdown of that size (an NCCL release change, eager mode) explains it and decides the verdict,
and a mechanism too small for the gap does not (rules.engine.explain_gaps, rules/catalog/gap_costs.toml).
Every issue here is a paraphrase written for this test, not a corpus ticket's wording."""

import json

import pytest
from conftest import diagnose

from diagnose.bundle import read_bundle
from diagnose.findings import SEVERITY_RANK, Evidence, Finding
from rules.catalog import gap_costs
from rules.engine import evaluate, shortfall

# --------------------------------------------------------------------------- busbw after an NCCL release change

BUSBW = "# all_reduce_perf got slower\n\n{gpus} with NVSwitch, one node. {what}\n"
A100 = "8x A100 SXM4 80GB"
RELEASE_CHANGES = [  # three wordings of "the bus bandwidth fell with an NCCL upgrade", versions named or not
    "busbw dropped from 180 to 90 GB/s after upgrading NCCL. Same machine, same all_reduce_perf command.",
    "Since we moved NCCL from 2.18.3 to 2.19.3 the all_reduce_perf busbw is 90 GB/s; it was 180 GB/s before.",
    "After we updated NCCL the all-reduce bus bandwidth went down to 90 GB/s from about 180 GB/s, nothing else "
    "changed on the node.",
]


def _ticket(tmp_path, text, *args):
    folder = tmp_path / "ticket"  # (beside _band_low's probe, whose figure is no part of this ticket)
    folder.mkdir()
    (folder / "issue.md").write_text(text)
    result = diagnose("ticket", folder, "--json", *args)
    report = json.loads(result.output)
    return report, {f["rule"]: f for f in report["findings"]}, result.exit_code


@pytest.mark.parametrize("what", RELEASE_CHANGES)
def test_a_release_change_explains_the_busbw_drop_it_measures(tmp_path, what):
    report, found, _ = _ticket(tmp_path, BUSBW.format(gpus=A100, what=what))
    assert report["verdict"]["category"] == "nccl_regression"
    assert found["nccl.busbw"]["severity"] == "info"  # the measured gap is its evidence, not a rival verdict
    lead = report["findings"][0]
    assert lead["category"] == "nccl_regression" and "accounts for the measured gap" in lead["summary"]
    assert any(e["measured"] == 90 for e in lead["evidence"])  # the gap's figure is carried with its expectation


def test_without_the_release_change_the_busbw_gap_stays_unplaced(tmp_path):
    what = "busbw dropped from 180 to 90 GB/s after we moved the server to another rack. Same all_reduce_perf command."
    report, found, _ = _ticket(tmp_path, BUSBW.format(gpus=A100, what=what))
    assert report["verdict"]["category"] == "other"
    assert found["nccl.busbw"]["severity"] in ("warning", "critical")


def test_an_upgrade_that_fixed_it_is_not_the_explanation(tmp_path):
    what = "busbw was 90 GB/s; upgrading NCCL did not help, it is still 90 GB/s."
    report, _, _ = _ticket(tmp_path, BUSBW.format(gpus=A100, what=what))
    assert report["verdict"]["category"] != "nccl_regression"


def test_releases_within_noise_do_not_explain_a_two_fold_gap(tmp_path):
    what = "NCCL 2.18.3 gives 95 GB/s busbw and 2.19.3 gives 90 GB/s busbw on the same all_reduce_perf run."
    report, _, _ = _ticket(tmp_path, BUSBW.format(gpus=A100, what=what))
    assert report["verdict"]["category"] != "nccl_regression"


# --------------------------------------------------------------------------- eager mode beside a decode rate

DECODE = """# Decode on four A100 is slow

We serve Llama-2-13b-chat-hf with vLLM on 4x A100 80GB SXM, tensor parallel size 4{flag}. A single request decodes
at {rate} tokens/s{more}.
"""
EAGER_WORDINGS = [
    (", launched with --enforce-eager", ""),
    (", and we pass --enforce-eager because graph capture ran out of memory", ", far below what others report"),
    ("; the server runs with enforce_eager=True", ". Why so slow?"),
]


def _band_low(tmp_path) -> float:
    """The low edge of the band the predictor expects for DECODE (read from a first reading), so the rates
    below are set against it whatever a refit of the calibration moves it to."""
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "issue.md").write_text(DECODE.format(flag="", rate=1, more=""))
    found = {f.rule: f for f in evaluate(read_bundle([probe]))}
    band = next(e.expected for e in found["ticket.measured_vs_expected"].evidence
                if isinstance(e.expected, str) and "-" in e.expected)
    return float(band.split("-")[0])


@pytest.mark.parametrize("flag,more", EAGER_WORDINGS)
def test_eager_mode_explains_a_decode_rate_a_few_times_below_its_band(tmp_path, flag, more):
    rate = round(_band_low(tmp_path) / 2)  # 2x below the band: within what CUDA graphs are worth
    report, found, _ = _ticket(tmp_path, DECODE.format(flag=flag, rate=rate, more=more))
    assert report["verdict"]["category"] == "eager_mode"
    assert found["ticket.measured_vs_expected"]["severity"] == "info"


@pytest.mark.parametrize("flag,more", EAGER_WORDINGS[:2])
def test_eager_mode_cannot_explain_a_rate_twenty_times_below_its_band(tmp_path, flag, more):
    # the gap is one figure beyond the band, an info lead (rules.beyond_band): eager mode says it is only part of it
    # and keeps its own severity, so the worse figure never exits milder than a 2x one (issue 11 review)
    rate = round(_band_low(tmp_path) / 20, 1)
    report, found, code = _ticket(tmp_path, DECODE.format(flag=flag, rate=rate, more=more), "--fail-on", "warning")
    eager = next(f for f in report["findings"] if f["category"] == "eager_mode")
    assert eager["severity"] == "warning" and "costs at most 3x" in eager["summary"]
    assert "cannot account for the measured gap alone" in eager["summary"]
    assert report["verdict"]["category"] == "eager_mode" and code == 1
    assert found["ticket.measured_vs_expected"]["severity"] == "info"  # the gap stays, not explained away
    assert "Explained by" not in found["ticket.measured_vs_expected"]["summary"]


@pytest.mark.parametrize("factor,words", [(2, "accounts for the measured gap"),
                                          (20, "cannot account for the measured gap alone")])
def test_a_release_change_explains_a_decode_gap_only_of_a_size_a_release_regression_reaches(tmp_path, factor, words):
    # the largest catalogued release regression is 8x (rules/catalog/gap_costs.toml): 2x is explained, 20x only in
    # part, which the finding says; beside one figure beyond the band it stays the verdict either way
    rate = round(_band_low(tmp_path) / factor, 1)
    text = DECODE.format(flag="", rate=rate, more="").replace(
        "A single", "Since upgrading NCCL from 2.18.3 to 2.19.3 a single")
    report, found, _ = _ticket(tmp_path, text)
    assert report["verdict"]["category"] == "nccl_regression"
    assert words in found["nccl.regression"]["summary"]


@pytest.mark.parametrize("flag", ["", ", and we do not use --enforce-eager"])
def test_without_eager_mode_the_gap_stays_unplaced(tmp_path, flag):
    rate = round(_band_low(tmp_path) / 2)
    report, _, _ = _ticket(tmp_path, DECODE.format(flag=flag, rate=rate, more=""))
    assert report["verdict"]["category"] == "other"


def test_a_failure_beside_the_slow_rate_does_not_let_the_gap_outrank_eager_mode(tmp_path):
    rate = round(_band_low(tmp_path) / 2)
    text = DECODE.format(flag=", launched with --enforce-eager", rate=rate, more="") + (
        "At startup the log prints an error about the custom all-reduce.\n")
    report, _, _ = _ticket(tmp_path, text)
    assert report["verdict"]["category"] == "eager_mode"


# --------------------------------------------------------------------------- one verdict in every output


@pytest.mark.parametrize("text", [
    BUSBW.format(gpus=A100, what=RELEASE_CHANGES[1]),
    DECODE.format(flag=", launched with --enforce-eager", rate=1, more=""),
    DECODE.format(flag=", launched with --enforce-eager", rate=40, more=""),
    BUSBW.format(gpus=A100, what="busbw dropped from 180 to 90 GB/s after we moved the server to another rack."),
])
def test_the_verdict_the_findings_and_the_exit_code_agree(tmp_path, text):
    report, _, code = _ticket(tmp_path, text, "--fail-on", "warning")
    lead = report["findings"][0]
    assert lead["category"] == report["verdict"]["category"]  # the JSON list leads with the verdict's finding
    worst = max(SEVERITY_RANK[f["severity"]] for f in report["findings"] if f["severity"] != "ok")
    assert code == (1 if worst >= SEVERITY_RANK["warning"] else 0)
    assert SEVERITY_RANK[lead["severity"]] == worst  # the exit code follows the verdict's finding, not a rival
    # every command's findings come from rules.engine.evaluate: it already gives the weighed order
    raw = evaluate(read_bundle([tmp_path]))
    assert raw[0].category == report["verdict"]["category"] and raw[0].severity == lead["severity"]
    text_out = diagnose("ticket", tmp_path, "--fail-on", "warning")
    assert text_out.exit_code == code


# --------------------------------------------------------------------------- the gap's size, both directions


def test_shortfall_reads_rates_and_times_each_in_its_direction():
    def gap(measured, expected, unit, band=None):
        evidence = [Evidence("issue.md:3", "figure", measured, expected, unit)]
        if band:
            evidence.append(Evidence("prediction:expected", "band", expected=band, unit=unit))
        return Finding("t", "other", "warning", 0.45, "t", "t", evidence)

    assert shortfall(gap(30, 90, "tok/s")) == pytest.approx(3.0)
    assert shortfall(gap(30, 90, "tok/s", band="60-120")) == pytest.approx(2.0)  # beyond the band's lenient edge
    assert shortfall(gap(200, 50, "ms")) == pytest.approx(4.0)  # a time: longer is worse
    assert shortfall(gap(40, 50, "ms")) is None and shortfall(gap(120, 90, "tok/s")) is None  # no shortfall
    assert shortfall(Finding("t", "other", "warning", 0.5, "t", "t", [Evidence("x", "flag", True, False)])) is None


def test_every_cost_is_a_slowdown_of_a_known_category():
    from diagnose.findings import CATEGORIES

    costs = gap_costs()
    assert costs["eager_mode"] == 3.0 and costs["nccl_regression"] == 8.0
    assert all(c in CATEGORIES and factor > 1 for c, factor in costs.items())
