"""Precision review of `healthy` / `expected_physics` answers (issue 11, review49): first posts of untaken threads
whose settled answer is a fault or a setting, beside near-misses settled as physics or by design, run blind
(tests/data/review49, URLs and answers in SOURCES.md).

- cases: every paste's verdict as recorded after this pass; no fault answered healthy or expected_physics (nccl44 is a
  strict xfail: a card swap on the same system is read by no claim);
- twin: ticket.measured_vs_expected does not call a rate physics where the reporter timed the same layout at least
  RUNS_DIFFER faster (ggml-org/llama.cpp#12838, 55 against 65 tok/s with CUDA_VISIBLE_DEVICES=0), unless the figures
  belong to the layouts a scaling complaint compares (vllm-project/vllm#6955) or differ by noise (dev ticket u6a09);
- mixed GPUs: ticket.mixed_gpus is silent where the reporter says only one card does the work."""

from pathlib import Path

import pytest
from conftest import judged_issue, toml_cases

DATA = Path(__file__).parent / "data" / "review49"
TICKETS = Path(__file__).parent / "data" / "tickets"
PHYSICS_OR_FINE = ("healthy", "expected_physics")


def _judged(name: str, folder: Path = DATA):
    return judged_issue((folder / name).read_text())


@pytest.mark.parametrize("case", toml_cases(DATA, "cases"))
def test_blind_case_verdicts(case):
    verdict, _ = _judged(case["file"])
    if case["kind"] == "fault":
        assert verdict.category not in PHYSICS_OR_FINE
    else:  # a near-miss keeps an answer that blames nothing
        assert verdict.category in (*PHYSICS_OR_FINE, "insufficient_data")
    assert verdict.category == case["after"]


def test_faster_twin_is_a_lead_not_physics():
    verdict, found = _judged("llamacpp12838.md")
    f = found["ticket.measured_vs_expected"]
    assert f.category == "other" and f.severity == "info"
    assert "same layout ran 65 tok/s" in f.title
    assert "ticket.mixed_gpus" not in found  # "only one card is used": the 3090 and 4090 do not work together
    assert verdict.category == "insufficient_data"


def test_scaling_figures_are_no_twins():
    # "30tps -> 46tps" at TP2 -> TP4 (vllm-project/vllm#6955): a layout comparison, still physics
    verdict, found = judged_issue((DATA.parent / "normal_questions" / "vllm6955.md").read_text())
    assert verdict.category == "expected_physics"
    assert "same layout ran" not in getattr(found.get("ticket.measured_vs_expected"), "title", "")


def test_twins_within_noise_stay_physics():
    # 4.0 and 4.1 tok/s of one layout (development ticket u6a09): one run timed twice, not two runs apart
    folder = TICKETS / "u6a09-dgx-spark-llama33-70b-nvfp4-4-tokps"
    if not folder.is_dir():
        pytest.skip("development ticket u6a09 not present")
    _, found = judged_issue(folder=folder)
    assert "same layout ran" not in getattr(found.get("ticket.measured_vs_expected"), "title", "")


def test_mixed_gpus_still_flagged_where_both_work():
    # RTX 2070 + RTX 5060 Ti in one job (sudoingX/qwen38-mtp#65, tests/data/ut28b): the slower card sets the pace.
    # (setting30: noonghunna/club-3090#833, used here before, sets another user's dual 3090 against the reporter's dual
    # 5090, two rigs, not one mixed job: tests/test_setting30.py)
    _, found = judged_issue((DATA.parent / "ut28b" / "x1riser65.md").read_text())
    assert "ticket.mixed_gpus" in found


def test_table_rows_are_no_twins():
    # "| Narrative wall TPS | 72.67 |" and "| Code wall TPS | 93.39 |" (noonghunna/club-3090#698, tests/data/ut15):
    # a results table's rows are workloads, not one run timed twice; the 72.67 stays physics
    _, found = judged_issue(folder=DATA.parent / "ut15" / "club3090_698")
    f = found["ticket.measured_vs_expected"]
    assert f.category == "expected_physics" and "same layout ran" not in f.title


def test_rates_of_named_workloads_are_no_runs():
    # one line naming the context each rate ran at (penta2himajin/qwisp#168): decode slows as the KV cache grows
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Facts, Measurement
    from rules.ticket_rules import _not_a_run

    line = ("Measured 2026-08-01 (resident tier, AC, `jacquard measure`, same binary): decode **96.4 tok/s at "
            "52-token context -> 36.1 ± 1.2 tok/s at 35,890**.")
    facts = Facts()
    facts.add(*issue_md.parse(f"# kv: 8-bit KV cache\n\n{line}\n", "issue.md"))
    rates = [m for m in facts.of(Measurement) if m.metric == "decode_tok_s"]
    assert [m.value for m in rates] == [96.4, 36.1] and all(_not_a_run(facts, m) for m in rates)
    # the A/B of ggml-org/llama.cpp#12838 names no workload: two runs
    facts = Facts()
    facts.add(*issue_md.parse((DATA / "llamacpp12838.md").read_text(), "issue.md"))
    assert not any(_not_a_run(facts, m) for m in facts.of(Measurement))
