"""A clock figure is read as a throttle only below the GPU's own top clock (catalog max_clock_mhz, from CUDA's
clockRate in the real captures), or with throttle words. The issue texts are paraphrases written for these tests,
not a corpus ticket's wording."""

import sqlite3

import pytest
from conftest import shared_path

from diagnose.bundle import read_bundle
from rules import claims
from rules.catalog import gpu
from rules.engine import evaluate


def _clock(tmp_path, gpus: str, sentence: str):
    (tmp_path / "issue.md").write_text(f"# Decode is slow on {gpus}\n\nWe serve Llama-2-70B with vLLM, tensor "
                                       f"parallel 2, on {gpus}. {sentence} Why is it so slow?\n")
    facts = read_bundle([tmp_path])
    claims.claims(facts)  # read before the rules engine names the GPU: the GPU's row still decides afterwards
    rules = {f.rule: f for f in evaluate(facts)}
    found = [c for c in claims.claims(facts) if c.kind in ("clock_power", "clock_at_max")]
    return found[0] if found else None, rules.get("ticket.clock_power")


@pytest.mark.parametrize("gpus, sentence", [
    ("2x H100 SXM", "The clocks stay at 1980 MHz the whole time."),
    ("2x H100 SXM", "SM clock remains locked at 1965 MHz under load."),
    ("2x A100 SXM4 40GB", "GPU clocks are stuck at 1410 MHz while it generates."),
    ("2x RTX 3090", "Graphics clock stays at 1890 MHz, above the rated boost."),  # GeForce boosts past its rating
])
def test_a_clock_at_the_gpus_top_clock_is_no_throttle(tmp_path, gpus, sentence):
    c, finding = _clock(tmp_path, gpus, sentence)
    assert c.kind == "clock_at_max" and c.data["mhz"] >= claims.AT_MAX_CLOCK * c.data["max_clock_mhz"]
    assert finding is None


@pytest.mark.parametrize("gpus, sentence", [
    ("2x H100 SXM", "The clocks stay at 1200 MHz the whole time."),
    ("2x A100 SXM4 40GB", "GPU clocks are stuck at 1095 MHz while it generates."),
    ("2x T4", "The SM clock is capped at 585 MHz under load."),
])
def test_a_clock_well_below_the_top_clock_is_a_throttle(tmp_path, gpus, sentence):
    c, finding = _clock(tmp_path, gpus, sentence)
    assert c.kind == "clock_power" and c.data["mhz"] < claims.AT_MAX_CLOCK * c.data["max_clock_mhz"]
    assert finding is not None and finding.category == "throttling"


def test_throttle_words_count_whatever_the_figure(tmp_path):
    c, finding = _clock(tmp_path, "2x H100 SXM", "nvidia-smi shows it is throttling; the clocks drop to 1900 MHz.")
    assert c.kind == "clock_power" and finding.category == "throttling"


def test_a_ruled_out_throttle_beside_a_top_clock_makes_no_finding(tmp_path):
    c, finding = _clock(tmp_path, "2x H100 SXM", "There is no throttling, clocks stay at 1980 MHz.")
    assert finding is None


def test_without_a_top_clock_in_the_catalog_the_finding_says_so(tmp_path):
    c, finding = _clock(tmp_path, "2x Tesla M60", "The clocks stay at 1100 MHz the whole time.")
    assert c.kind == "clock_power" and c.data["max_clock_mhz"] is None
    assert "catalog has none" in finding.summary and "1100 MHz" in finding.summary


@pytest.mark.parametrize("capture, key", [("fuser_h100x8node_matmul_2024_6", "h100-sxm"),
                                          ("gameoflife_a100_2022_1", "a100-40gb-sxm"),
                                          ("memfusion_rtx3090x4_trt_2023_1", "rtx-3090"),
                                          ("sc23_t4_openmp_offload_2023_3", "t4")])
def test_the_top_clocks_are_the_captures_clock_rates(capture, key):
    """cudaDeviceProp.clockRate (Hz in TARGET_INFO_GPU) of the real captures is the catalog's top clock."""
    with sqlite3.connect(shared_path("captures", f"{capture}.sqlite")) as db:
        rates = {r[0] for r in db.execute("SELECT clockRate FROM TARGET_INFO_GPU")}
    assert rates == {gpu(key).max_clock_mhz * 1e6}


def _asked(tmp_path, said: str):
    (tmp_path / "issue.md").write_text(f"# Clocks during inference\n{said} Is the GPU throttling?\n")
    findings = [f for f in evaluate(read_bundle([tmp_path])) if f.rule == "ticket.clock_power"]
    return findings[0] if findings else None


def test_asked_whether_it_throttles_a_clock_at_the_top_is_the_answer_not_the_question(tmp_path):
    # a paraphrase of a user-tester's report: the word "throttling" is in the question only
    f = _asked(tmp_path, "Serving with vLLM, our A100 SXM4 40GB GPUs sit at 1410 MHz SM clock under load.")
    assert (f.category, f.severity) == ("expected_physics", "info")
    assert f.evidence[-1].measured == 1410 and f.evidence[-1].expected == gpu("a100-40gb-sxm").max_clock_mhz


def test_asked_whether_it_throttles_a_clock_well_below_the_top_is_a_throttle(tmp_path):
    f = _asked(tmp_path, "Serving with vLLM, our A100 SXM4 40GB GPUs sit at 1005 MHz SM clock under load.")
    assert f.category == "throttling"


def test_the_question_alone_is_no_evidence_of_a_throttle(tmp_path):
    assert _asked(tmp_path, "We serve Llama-3-70B with vLLM on 8x H100 SXM and decode feels slow.") is None
