"""Issue 11 u: on a ticket, insufficient_data only when nothing favours a category. An info-level lead beside open
gaps is the verdict at a low confidence (below 0.5, never confidently wrong) with what to attach next kept beside
it; other commands keep such a lead behind the gap."""

import json

from conftest import REPO, diagnose

from diagnose.findings import Evidence, Finding
from rules.engine import LEAD_FLOOR, WEAK_LEAD, verdict

T019 = REPO / "tests" / "data" / "tickets" / "t019-sglang-multi-machine-decode-24tps"


def _f(rule, category, severity, confidence, fix=""):
    return Finding(rule=rule, category=category, severity=severity, confidence=confidence, title=f"{rule} title",
                   summary="s", fix=fix, evidence=[Evidence("issue.md:1", "what the reporter wrote")])


GAP = _f("workload.evidence_coverage", "insufficient_data", "info", 0.0, fix="attach `nvidia-smi topo -m`")
LEAD = _f("ticket.symptom_prior", "cross_node_tp", "info", 0.45)


def test_a_weak_lead_is_the_ticket_verdict_at_low_confidence_with_the_ask_beside_it():
    v = verdict([LEAD, GAP], symptom="scaling", weak_lead=WEAK_LEAD)
    assert v.category == "cross_node_tp" and v.confidence == 0.45 < 0.5
    assert v.summary.startswith("Weak lead: ticket.symptom_prior title.") and "`nvidia-smi topo -m`" in v.summary
    # a lead its rule rates higher is still capped below 0.5: the gap is open
    strong = _f("ticket.symptom_prior", "cross_node_tp", "info", 0.8)
    assert verdict([strong, GAP], symptom="scaling", weak_lead=WEAK_LEAD).confidence == WEAK_LEAD
    assert not verdict([strong, GAP], symptom="scaling", weak_lead=WEAK_LEAD).names_the_cause()


def test_nothing_favoured_stays_insufficient_data():
    assert verdict([GAP], symptom="slow", weak_lead=WEAK_LEAD).category == "insufficient_data"
    zero = _f("ticket.symptom_prior", "cross_node_tp", "info", 0.0)
    assert verdict([zero, GAP], symptom="scaling", weak_lead=WEAK_LEAD).category == "insufficient_data"
    # a lead its rule rates below LEAD_FLOOR is evidence against it ("P2P switched off, still hangs")
    against = _f("ticket.hang_on_pcie", "p2p_disabled", "info", LEAD_FLOOR - 0.15)
    v = verdict([against, GAP], symptom="hang", weak_lead=WEAK_LEAD)
    assert v.category == "insufficient_data" and "Weak lead so far" in v.summary
    # ... with no gap open too: it leans against its category, so it is never the verdict (issue 11)
    v = verdict([against], symptom="hang", weak_lead=WEAK_LEAD)
    assert v.category == "insufficient_data" and "Weak lead so far" in v.summary
    assert verdict([_f("ticket.hang_on_pcie", "p2p_disabled", "info", LEAD_FLOOR)], symptom="hang",
                   weak_lead=WEAK_LEAD).category == "p2p_disabled"  # at the floor, no gap: a lead that stands
    # an info note of category other is no cause at all
    note = _f("ticket.note", "other", "info", 0.4)
    assert verdict([note, GAP], symptom="slow", weak_lead=WEAK_LEAD).category == "insufficient_data"


def test_other_commands_keep_the_lead_behind_the_gap():
    v = verdict([LEAD, GAP])  # capture, node, nccl: no weak_lead
    assert v.category == "insufficient_data" and "Weak lead so far" in v.summary and "cross_node_tp" in v.summary


def test_a_measured_pass_that_answers_the_complaint_outranks_a_lead():
    lead = _f("ticket.vm_pcie_slow", "virtualization_no_p2p", "info", 0.4)
    busbw = _f("nccl.busbw", "healthy", "ok", 0.7)
    v = verdict([lead, busbw, GAP], symptom="slow", weak_lead=WEAK_LEAD)
    assert v.category == "expected_physics", v


def test_a_real_ticket_with_a_lead_and_gaps_names_it_and_asks_for_the_rest():
    """t019 (sglang#1338): one request decoding at 24 tok/s on SGLang across machines, no launch flags or NCCL log.
    The only thing the ticket favours is the cross-node TP prior: it is the verdict, weakly, and the report still
    says what to attach."""
    result = diagnose("ticket", T019, "--json", "--fail-on", "never")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    v = report["verdict"]
    assert v["category"] == "cross_node_tp" and 0 < v["confidence"] < 0.5, v
    assert v["summary"].startswith("Weak lead:") and "What to attach next" in v["summary"]
    rows = report["tables"]["What to attach next"]["rows"]
    assert any("NCCL_DEBUG=INFO" in r[1] for r in rows), rows
    # the findings keep the lead at info: the exit code says what it said before (no warning to fail on)
    assert diagnose("ticket", T019).exit_code == 0
