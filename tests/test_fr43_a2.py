"""Session s43, fixer A2: misfires the 37th session's second final read proved (probes /tmp/fr43b/<n>.md), each with
the near-misses that must keep the old reading."""

import pytest

from rules import claims, phase_times
from tests.conftest import judged_issue

ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered"


def _rules(text: str) -> dict:
    return judged_issue(text)[1]


# ------------------------------------------- 1. _SAID_BEFORE: a failure said of the past, with a lead or a gap

def test_probe_2_a_crash_before_the_upgrade_is_no_current_error():
    # probe (2.md)
    text = (f"# vLLM server hangs at startup after upgrade\n\nBefore the upgrade, vLLM crashed with \"{ILLEGAL}\". "
            "After upgrading it no longer crashes, but the server now hangs forever at \"Loading model weights\" on "
            "2x A100 with --tensor-parallel-size 2.\n")
    assert "ticket.known_error" not in _rules(text)


@pytest.mark.parametrize("before", [
    "Before the upgrade, vLLM crashed with \"",
    "Before the fix vLLM failed with `",
    "before our update, the server died with '",
    "It used to sometimes fail with \"",
    "In 0.5.4 it previously always failed with `",
])
def test_a_past_failure_across_a_gap_is_said_before(before):
    assert claims._SAID_BEFORE.search(before)


@pytest.mark.parametrize("before", [
    # fr43 probes 20/21 and their kin: failing now
    "Before the upgrade it worked, now it fails with `",
    "Before the upgrade it worked and it fails with `",
    "Before the upgrade it worked but crashes with `",
    "The server does not start and fails with \"",
    "It did not load and crashed with '",
    "I used to run it and now it fails with `",
])
def test_a_failure_now_is_not_said_before(before):
    assert not claims._SAID_BEFORE.search(before)


# ------------------------------------------- 2. _RESOLVED_AFTER: the message cured after ";" or named by its kind

@pytest.mark.parametrize("text", [
    # probe (3.md)
    f"# Training hangs\n\nOur DDP job on 2 nodes fails with \"{ILLEGAL}\"; after setting NCCL_P2P_DISABLE=1 it does "
    "not appear anymore, but the job now hangs at the first all_reduce.\n",
    # probe (4.md)
    f"# Training hangs\n\nOur DDP job on 2 nodes failed with \"{ILLEGAL}\", the NCCL crash does not happen anymore "
    "since we upgraded the driver, but now the job hangs at the first all_reduce.\n",
])
def test_probes_3_4_a_cured_error_is_no_current_error(text):
    assert "ticket.known_error" not in _rules(text)


@pytest.mark.parametrize("after", [
    "\"; after setting NCCL_P2P_DISABLE=1 it does not appear anymore, but the job now hangs",
    "\", the NCCL crash does not happen anymore since we upgraded the driver",
    "; the error is not shown anymore",
    "; it no longer shows up",
])
def test_the_message_cured_is_resolved(after):
    assert claims._RESOLVED_AFTER.search(after)


@pytest.mark.parametrize("after", [
    # fr43 probes 40/41: a warning is another message than the error quoted
    " during profiling; the NCCL warning from before is not shown anymore.",
    " during profiling, the flash-attn warning does not appear anymore since I upgraded.",
    ", the warning does not appear anymore",
    # another clause after ";"
    "; the job does not show up anymore in nvidia-smi",
    "; I restarted and the dashboard no longer shows up",
])
def test_another_message_or_clause_is_not_resolved(after):
    assert not claims._RESOLVED_AFTER.search(after)


def test_a_quoted_warning_is_cured_by_the_warning_gone():
    assert claims.resolved_after(", the warning does not appear anymore", "UserWarning: TypedStorage is deprecated")
    assert not claims.resolved_after(", the warning does not appear anymore", "CUDA error: out of memory")
    assert not claims.resolved_after("; I restarted and the dashboard no longer shows up", "UserWarning: x")


# ------------------------------------------- 3. _PAST_STATE: the past said before a turn to now

@pytest.mark.parametrize("text", [
    # probe (6.md)
    "# Ollama slow after update\n\nI used to get 40 tokens/s, but now only 20 layers are offloaded to GPU and "
    "generation is very slow on my RTX 4090 with llama3 70b q4.\n",
    # probe (5.md)
    "# Ollama slow after update\n\nBefore the update everything ran on the GPU, but now only 20 layers are offloaded "
    "to GPU and generation is very slow on my RTX 4090 with llama3 70b q4.\n",
    "# Ollama slow after update\n\nIt used to be fast; only 20 layers are offloaded to GPU and generation is very slow "
    "on my RTX 4090 with llama3 70b q4.\n",
])
def test_probes_5_6_a_present_placement_after_a_past_clause(text):
    assert "ticket.partial_offload" in _rules(text)


@pytest.mark.parametrize("before", [
    # fr43 probe 25 and its kin: the placement itself said of the past
    "Before the upgrade only ",
    "Before the upgrade, ",
    "With the old version ",
    "It previously had ",
    "Now it is fast, but before the update ",
])
def test_a_past_placement_is_still_past(before):
    assert claims._past_state(before)


@pytest.mark.parametrize("before", ["I used to get 40 tokens/s, but now ", "It used to be fast; ",
                                    "Previously it was fine, currently "])
def test_a_turn_to_now_ends_the_past(before):
    assert not claims._past_state(before)


# ------------------------------------------- 4. phase_times._OWN_SUBJECT: the reporter waiting for another run

@pytest.mark.parametrize("sentence, phrase, want", [
    # probe (8.md)
    ("Loading the model weights takes about 2 minutes, and I waited 2 hours for the full benchmark to finish "
     "afterwards.", "Loading", 2),
    ("Loading takes 2 minutes, but we waited 3 hours for our training job.", "Loading", 2),
    # waiting on the phase itself still goes on about it (fr43 probe 22)
    ("The torch.compile step is slow, and I waited 90 minutes before the server was ready.", "torch.compile", 90),
    ("Loading is slow, and I waited 40 minutes for the model to load.", "Loading", 40),
    ("Loading is slow, and we waited 40 minutes for it.", "Loading", 40),
])
def test_minutes_leaves_out_a_wait_for_another_run(sentence, phrase, want):
    at = sentence.index(phrase)
    assert phase_times.minutes(sentence, (at, at + len(phrase))) == want


def test_probe_8_reads_the_load_time_as_documented():
    text = ("# vLLM start is slow\n\nLoading the model weights takes about 2 minutes, and I waited 2 hours for the "
            "full benchmark to finish afterwards. Is this normal for Llama-3-70B on 4x A100 with vLLM?\n")
    assert "ticket.documented_behaviour" in _rules(text)
