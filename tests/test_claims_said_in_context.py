"""What the reporter's words mean in their context (rules/claims.py): a percentage beside the GPUs that is no busy
time (a share of memory after the figure, a low figure said of an idle GPU); a process held at one core; asking how
to make something faster, which says it is slow. Paraphrases written for these tests, not corpus wording."""

import pytest
from test_ticket_numbers import _said

from rules import claims


def _readings(text: str) -> list[float]:
    return [c.data["percent"] for c in claims.find(_said(text), "gpu_util")]


@pytest.mark.parametrize("sentence", [
    "With TP=2 each GPU still uses 90% of its memory.",
    "The GPU is at 60 % of the VRAM after loading.",
    "GPU utilization falls to 0% between requests.",
    "GPU usage is 2% when there are no requests.",
])
def test_memory_shares_and_idle_figures_are_no_utilisation_reading(sentence):
    assert _readings(sentence) == []


@pytest.mark.parametrize("sentence,percent", [
    ("GPU utilization is only 30% while generating.", 30),
    ("The GPU uses 40% during decoding and 80% of its memory.", 40),
    ("GPU-Util stays at 95% between requests as well.", 95),  # high while nothing should run: a reading
])
def test_a_busy_share_is_still_read(sentence, percent):
    assert percent in _readings(sentence)


# --------------------------------------------------------------------------- a process held at one core


@pytest.mark.parametrize("sentence", [
    "The server process never goes above 100% CPU in top, even on a 64-core machine.",
    "It only uses one core while serving requests.",
    "CPU usage is capped at 100% for the engine process.",
    "服务进程的CPU占用不会超过100%",
])
def test_a_process_held_at_one_core_is_read(sentence):
    assert [c.kind for c in claims.cpu_ceiling(_said(sentence))] == ["cpu_ceiling"]


@pytest.mark.parametrize("sentence", [
    "GPU utilization never goes above 100%.",  # the GPU, not a CPU
    "The CPU goes above 100% when tokenizing.",  # several cores: no ceiling
    "We use 16 CPU cores for the dataloader.",
])
def test_no_cpu_ceiling_where_none_is_said(sentence):
    assert claims.cpu_ceiling(_said(sentence)) == []


def test_a_question_about_one_core_is_answered_by_design_and_a_slow_job_is_not():
    from test_ticket_figures import _issue

    _, findings, v = _issue("# CPU limit?\n\nOur vLLM server process never goes above 100% CPU on a 32-core box. Is "
                            "it limited to a single core?\n")
    assert [f.rule for f in findings if f.rule == "ticket.cpu_one_core"] and v.category == "expected_physics"
    _, findings, _ = _issue("# slow serving\n\nThroughput is very low and the vLLM process never goes above 100% CPU. "
                            "Why is it so slow?\n")
    assert not [f for f in findings if f.rule == "ticket.cpu_one_core"]  # a complaint: ticket.cpu_bound's to judge


# --------------------------------------------------------------------------- asking how to make it faster


@pytest.mark.parametrize("sentence", [
    "How can I speed up the tokenization step?",
    "How do we make generation faster on these cards?",
    "有什么方法可以加速这个步骤吗？",
    "Tokenization步骤提速",
])
def test_asking_how_to_make_it_faster_is_a_complaint(sentence):
    assert claims.complaint(_said(sentence)) is not None


@pytest.mark.parametrize("sentence", [
    "We sped it up with CUDA graphs and it is fine now.",
    "How do I enable NCCL debug logs?",
    "I don't need it any faster, I only want to know how it works.",
])
def test_no_complaint_without_asking_for_speed(sentence):
    assert claims.complaint(_said(sentence)) is None
