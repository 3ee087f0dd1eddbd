"""A figure outside the expected band never prints inside it (rules.expectations.band_text, one helper for every
band a finding prints), and a pipeline-parallel size the ticket states is part of the layout its expected figure
is predicted for. The issue texts are written for these tests (paraphrases of a user-tester's report)."""

import math
import random
import re

import pytest
from conftest import report_json

from diagnose.bundle import read_bundle
from diagnose.evidence import Workload
from rules.expectations import REPORTED_RATE_SLACK, band_text
from rules.subject import Subject
from rules.workload import predict_layout


def _edges(text: str) -> tuple[float, float]:
    low, high = text.split("-")
    return float(low), float(high)


def test_band_edges_keep_a_value_on_its_side():
    assert band_text(12.4, 18.5, 12) == "12.4-18.5"  # the tester's case: '12-18' read 12 as inside
    assert band_text(82.2, 122.4, 50) == "82-122"  # far outside: whole numbers
    assert band_text(12.4, 18.5) == "12-18"
    assert band_text(1.4549, 1.9, 1.45, digits=2) == "1.455-1.900"
    rng = random.Random(7)
    for _ in range(2000):
        low = rng.uniform(0.5, 300)
        high = low * rng.uniform(1.05, 1.6)
        value = round(rng.choice([low, high]) + rng.uniform(-0.6, 0.6), rng.choice([0, 1, 2]))
        lo, hi = _edges(band_text(low, high, value))
        assert (value < low) == (value < lo) and (value > high) == (value > hi), (low, high, value)
        assert lo < hi


def _issue(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    facts.subject = Subject.of(facts)  # as the engine resolves it before the rules run
    return facts


def _vs_expected(tmp_path) -> dict:
    found = {f["rule"]: f for f in report_json("ticket", tmp_path)["findings"]}
    return found["ticket.measured_vs_expected"]


EDGE = ["# slow\n\n{setup} gives {rate} tokens/s.\n",
        "# Is this normal?\n\nWe measure {rate} tok/s for one request: {setup}.\n",
        "# decode speed\n\n{setup}. Single-stream decode runs at {rate} tokens/s, below what we hoped.\n"]
SETUPS = ["Two servers with 4x L40S each, vLLM TP=4 PP=2 Llama-3-70B",
          "ollama run llama3.1:8b on one RTX 4090",
          "vLLM with Llama-2-13B, TP=2 on 2x A100 80GB SXM"]


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize("text", EDGE)
def test_a_figure_just_below_the_band_prints_below_it(tmp_path, text, setup):
    facts = _issue(tmp_path, text.format(setup=setup, rate=1))
    tp = next((w.tp for w in facts.of(Workload) if w.tp), 1)
    p = predict_layout(facts, tp, 1)
    low = p.decode_tok_s_expected / p.band_high
    below = math.floor(low) if low - math.floor(low) < 0.5 else round(low - 0.05, 1)  # rounds onto the edge
    _issue(tmp_path, text.format(setup=setup, rate=f"{below:g}"))
    f = _vs_expected(tmp_path)
    band = re.search(r"expected ([\d.]+-[\d.]+)", f["title"]).group(1)
    assert _edges(band)[0] > below, f["title"]
    # a rate written in prose gets the slack of a figure timed end to end (rules.expectations.lowest_normal):
    # just below the edge it reads as the band's low edge, and says so; below the slack it is the beyond-band lead
    # (rules.beyond_band: `other`, info, sized against the slowest healthy run)
    if below < low * REPORTED_RATE_SLACK:
        assert (f["category"], f["severity"]) == ("other", "info") and "slowest healthy run" in f["title"], f["title"]
    else:
        assert f["category"] == "expected_physics" and "below its low edge" in f["title"], f["title"]
    far = round(low * REPORTED_RATE_SLACK * 0.95, 1)  # beyond the slack: below the band, and printed below it
    _issue(tmp_path, text.format(setup=setup, rate=f"{far:g}"))
    f = _vs_expected(tmp_path)
    assert (f["category"], f["severity"]) == ("other", "info") and "slowest healthy run" in f["title"], f["title"]
    assert _edges(re.search(r"expected ([\d.]+-[\d.]+)", f["title"]).group(1))[0] > far
    inside = round(p.decode_tok_s_expected)  # the negation: a figure inside prints inside
    _issue(tmp_path, text.format(setup=setup, rate=inside))
    f = _vs_expected(tmp_path)
    lo, hi = _edges(re.search(r"expected ([\d.]+-[\d.]+)", f["title"]).group(1))
    assert f["category"] == "expected_physics" and lo <= inside <= hi, f["title"]


PP_STATED = ["Two servers with 4x L40S each. vLLM TP=4 PP=2 Llama-3-70B gives 12 tokens/s.",
             "2 nodes, 4x L40S per node: Llama-3-70B on vLLM with tensor parallel 4 and pipeline parallel size 2, "
             "12 tok/s.",
             "Llama-3-70B served by vLLM on two 4x L40S servers (--tensor-parallel-size 4 --pipeline-parallel-size 2) "
             "decodes 12 tokens/s."]


@pytest.mark.parametrize("text", PP_STATED)
def test_a_stated_pp_is_in_the_predicted_layout_and_the_evidence(tmp_path, text):
    facts = _issue(tmp_path, f"# slow\n\n{text}\n")
    assert [w.pp for w in facts.of(Workload) if w.pp] == [2]
    p = predict_layout(facts, 4, 1)
    assert (p.tp, p.pp) == (4, 2) and p.assumptions["pp_source"].startswith("issue.md")
    f = _vs_expected(tmp_path)
    stages = [e for e in f["evidence"] if e["detail"].startswith("pipeline-parallel stages in the prediction")]
    assert [e["measured"] for e in stages] == [2]
    (layout,) = report_json("predict", "--model", "llama-3-70b", "--gpu", "l40s", "--tp", "4", "--pp", "2",
                            "--gpus-per-node", "4", "--engine", "vllm")["predictions"]["layouts"]
    measured = next(e for e in f["evidence"] if e["unit"] == "tok/s" and e["measured"] is not None)
    assert measured["expected"] == pytest.approx(layout["decode_tok_s_expected"], abs=0.05)  # both at full context


@pytest.mark.parametrize("text", ["vLLM TP=8 Llama-3-70B on 8x L40S gives 12 tokens/s, no pipeline parallelism.",
                                  "vLLM with Llama-3-70B, tensor parallel 8 on one 8x L40S box: 12 tok/s (pp 2 was "
                                  "not tried).",
                                  "Llama-3-70B on 8x L40S, vLLM --tensor-parallel-size 8 --pipeline-parallel-size 1: "
                                  "12 tok/s."])
def test_without_a_pp_above_one_the_prediction_is_one_stage(tmp_path, text):
    facts = _issue(tmp_path, f"# slow\n\n{text}\n")
    assert all((w.pp or 1) == 1 for w in facts.of(Workload))
    p = predict_layout(facts, 8, 1)
    assert p.pp == 1 and "pp_source" not in p.assumptions
