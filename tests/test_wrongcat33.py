"""Verdicts that named the wrong cause on the kept real pastes (session s33, pass wrongcat33, issue 11).

ticket.mixed_gpus read an inventory of unlike boards as a straggler verdict (0.69) on tickets that ask about something
else: how much memory each card holds (ollama/ollama#9472), a merged benchmark row reporting a gain
(sudoingX/qwen38-mtp#78), a table of cards compared across machines (syv-ai/qwen38-27b-rtx3090#32, a spec-table page).
A slower card explains a pace or the failure of a job both cards share; with no complaint, no measured figure and no
fault named, the rule now steps back (rules.ticket_rules.pace_in_question). The pastes whose thread settled on the
slower card (the AIfred tensor-split page) and the complaints of a slow or failing mixed job keep it. (c50f: a failure
alone, with no figure and no slowness complaint, no longer counts: tests/test_c50f.py.)
"""

from pathlib import Path

import pytest
from conftest import finding, report_json

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules.engine import evaluate

DATA = Path(__file__).parent / "data"


def verdict(path: str) -> dict:
    return report_json("ticket", str(DATA / path))


def fired(text: str) -> set[str]:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return {f.rule for f in evaluate(facts) if f.confidence > 0}


@pytest.mark.parametrize("path", [
    "smi30/ollama9472.md",  # a memory question on a 3060 + A2000 box
    "extract32/qwen38mtp78.md",  # a merged benchmark row: 3060 + P100 with a draft model, a gain reported
    "mend2_s24/near_syv32.md",  # "your 3090" / "our 4090": columns of two machines
    "mend2_s24/near_thinksmart.md",  # a spec table of rigs, no measured figure
])
def test_an_inventory_of_unlike_boards_is_no_straggler_without_a_pace_question(path):
    r = verdict(path)
    assert finding(r, "ticket.mixed_gpus") is None
    assert r["verdict"]["category"] != "straggler"


def test_the_slower_card_the_thread_settled_on_stays_the_verdict():
    """AIfred's page: a balanced split 'forces every token through the slower GPU' (straggler, settled)."""
    r = verdict("ut26c/aifred_rtx8000_p40.md")
    assert r["verdict"]["category"] == "straggler"
    assert finding(r, "ticket.mixed_gpus") is not None


@pytest.mark.parametrize("path", [
    "ut28b/x1riser65.md",  # a tensor split's figures over a riser: a pace
    "engine31/llamacpp15125.md",  # named slow by the symptom reading: still read (see the report: left)
])
def test_a_ticket_about_pace_keeps_the_check(path):
    assert finding(verdict(path), "ticket.mixed_gpus") is not None


@pytest.mark.parametrize("text", [
    "# Memory split\n\nI run an RTX 3090 and an RTX 4060 Ti in one box with llama.cpp. How much of the model sits on "
    "each card?",
    # a negated complaint is no complaint
    "# VRAM per card\n\nThe speed is not a problem. With an RTX 3090 and an RTX 4090 together, which card gets the "
    "KV cache?",
    # (c50f) a failure alone: a slower card slows every step, it hangs no job (tests/test_c50f.py)
    "# Hang\n\nOne box with an RTX 3090 and an RTX 4090; tensor parallel across both hangs.",
])
def test_paraphrases_that_ask_no_pace_leave_the_inventory_alone(text):
    assert "ticket.mixed_gpus" not in fired(text)


@pytest.mark.parametrize("text", [
    "# Slow split\n\nI run an RTX 3090 and an RTX 4060 Ti in one box with llama.cpp and generation is slow.",
    "# question\n\n- GPU 0: RTX 3090\n- GPU 1: RTX 4060 Ti\n\nBoth cards in one machine, layer split, 3 tok/s on a "
    "70B Q4. "
    "How much of the model sits on each?",
    "# Hang\n\nOne box with an RTX 3090 and an RTX 4090; tensor parallel across both hangs and it is very slow "
    "before it does.",
])
def test_a_complaint_a_figure_or_a_failure_keeps_the_check(text):
    assert "ticket.mixed_gpus" in fired(text)


@pytest.mark.xfail(strict=True, reason="left: a constant of the machine set against a change between two runs on it. "
                   "textgen5383 lists two separate RunPod servers (A100 SXM, H100 SXM) that both slowed after an "
                   "ExLlamaV2 update ('ever since the commit ... that upgraded Exllamav2'), which no release reading "
                   "takes; qwen38mtp37 is a merged benchmark row whose only 'slower' is one arm of a flag A/B on the "
                   "same 3060 Ti + 3080 Ti. Neither difference can come from boards that did not change.")
@pytest.mark.parametrize("path", ["extract32/textgen5383.md", "extract32/qwen38mtp37.md"])
def test_a_change_between_two_runs_on_the_same_boards_is_no_straggler(path):
    assert verdict(path)["verdict"]["category"] != "straggler"
