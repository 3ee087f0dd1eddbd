"""Session s43, fixer A: misfires the 37th session's final read proved (probes /tmp/fr43/<n>.md), each with the
near-misses that must keep the old reading."""

import pytest

from rules import claims
from tests.conftest import judged_issue

OOM = "CUDA error: out of memory"


def _rules(text: str) -> dict:
    return judged_issue(text)[1]


# ----------------------------------------------------------------------- 1. _SAID_BEFORE's "fails/crashes ... with"

@pytest.mark.parametrize("text", [
    # probe (20.md)
    f"# vLLM fails to start after upgrade\n\nWe run vLLM on 4x A100 with TP=4. Before the upgrade it worked, now it "
    f"fails with `{OOM}` during profiling.\n",
    # probe (21.md)
    f"# vLLM fails to start\n\nWe run vLLM on 4x A100 with TP=4. The server does not start and fails with \"{OOM}\" "
    f"during profiling.\n",
    # other past-marks that do not reach the verb
    f"# vLLM fails\n\nvLLM on 4x A100 with TP=4 did not load and crashed with '{OOM}' during profiling.\n",
])
def test_a_failure_now_keeps_its_known_error(text):
    assert "ticket.known_error" in _rules(text)


@pytest.mark.parametrize("before", [
    "TestCafe no longer fails with the `",
    "the kernel used to crash with '",
    "It previously failed with `",
    # the other verbs keep their prefixes
    "Before the upgrade the log said '",
    "the log doesn't show '",
    "it used to print '",
])
def test_a_past_failure_is_still_said_before(before):
    assert claims._SAID_BEFORE.search(before)


@pytest.mark.parametrize("before", [
    "Before the upgrade it worked, now it fails with `",
    "The server does not start and fails with \"",
    "Before the upgrade it worked, now it shows '",
    "It did not load but printed '",
])
def test_a_verb_of_now_is_not_said_before(before):
    assert not claims._SAID_BEFORE.search(before)


# ---------------------------------------------------- 2. _RESOLVED_AFTER's "not shown anymore" of another message

@pytest.mark.parametrize("text", [
    # probe (40.md)
    f"# vLLM OOM at startup\n\nvLLM 0.6.3 on 4x A100 fails with \"{OOM}\" during profiling; the NCCL warning from "
    f"before is not shown anymore.\n",
    # probe (41.md)
    f"# vLLM OOM at startup\n\nvLLM 0.6.3 on 4x A100 fails with \"{OOM}\" during profiling, the flash-attn warning "
    f"does not appear anymore since I upgraded.\n",
])
def test_another_message_gone_keeps_the_error(text):
    assert "ticket.known_error" in _rules(text)


@pytest.mark.parametrize("after", [
    # the message itself, as before
    " doesn't appear anymore after restarting monerod.",
    " is not raised anymore, but ValueError is raised instead",
    ", the error is not shown anymore since I upgraded.",
    " during profiling is not shown anymore",
])
def test_the_message_itself_gone_is_still_resolved(after):
    assert claims._RESOLVED_AFTER.search(after)


@pytest.mark.parametrize("after", [
    " during profiling; the NCCL warning from before is not shown anymore.",
    " during profiling, the flash-attn warning does not appear anymore since I upgraded.",
    " during profiling, a deprecation notice no longer shows up.",
])
def test_another_subject_gone_is_not_resolved(after):
    assert not claims._RESOLVED_AFTER.search(after)
