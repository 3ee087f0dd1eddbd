"""Session s47, fixer a1 of the 41st session's final read A: misfires proved by the reviewer's probes (/tmp/fr47a) in
two readings of this session's passes, each mended in its mechanism. (1) A timeout the question says acts ("Which
timeout kills our job?", "What timeout is firing here?") is one met, not a setting asked of
(claims._TIMEOUT_ACTS_AFTER). (2) A stall said without a hang word ("no progress at the first allreduce", "sits
there") in the question's sentence or the one before keeps the timeout asked of as a hang (claims._STALL_SAID).
(8) expectation_missed: "does not differ significantly from the results reported" is no shortfall
(claims._DIFFER_DENIED), and a bare "time" ("the first time I tried it") is no rate word (claims._RATE_IN_SENTENCE).
Probes are labelled probe (the reviewer's, with "before" and "main" noted); the rest are near-misses that must keep
the passes' intended readings."""

import pytest
from conftest import issue_bundle, judged_issue

from rules import claims


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


def _missed(text: str):
    return claims.expectation_missed(issue_bundle(text))


# ------------------------------------------------------------ 1. a timeout the question says acts is a timeout met

@pytest.mark.parametrize("text", [
    # probe 9 (before: healthy 0.69; main: p2p_disabled 0.69)
    "vLLM TP=4 on 4x A100 PCIe. Which timeout kills our job at the first allreduce after 30 minutes, NCCL's or "
    "torch's?",
    # probe 11 (before: insufficient_data 0.0; main: p2p_disabled 0.69)
    "Our vLLM TP=4 on 4x A100 PCIe is killed after 30 minutes at the first allreduce. What timeout is firing here?",
])
def test_probes_a_timeout_that_acts_reads_as_before(text):
    verdict, _ = judged_issue(text)
    assert verdict.category == "p2p_disabled"


@pytest.mark.parametrize("text", [
    "Which timeout kills our job?",  # probe
    "What timeout is firing here?",  # probe
    "Which timeout are we hitting?",  # probe
    "Which timeout expired, NCCL's or torch's?",  # probe
    "What timeout is being triggered at the first allreduce?",  # probe
    "Which timeout keeps aborting the job?",  # probe
    "What timeout happens at step 1?",  # probe
])
def test_a_timeout_the_question_says_acts_is_a_hang(text):
    assert _hangs(text) == ["timeout"]


@pytest.mark.parametrize("text", [
    # near-misses: the known47a pass's settings asked of stay no hang
    "What timeout should I set?",
    "Which timeout value do you recommend?",
    "What timeout should I use?",
    "What is the default timeout?",
    "What timeout is the default?",
    "Which timeout should I raise, NCCL's or torch's?",
    "What timeout should v1 use for an OpenClaw agent turn: 5, 10, 15, or 20 minutes?",
])
def test_a_timeout_setting_asked_of_stays_no_hang(text):
    assert not _hangs(text)


# ------------------------------------- 2. a stall said in other words, then a timeout asked of: the stall's hang

@pytest.mark.parametrize("text", [
    # probe 12 (before: healthy 0.69; main: p2p_disabled 0.69)
    "vLLM TP=4 on 4x A100 PCIe with no progress at the first allreduce - how do I raise the timeout?",
    # probe 10 (before: expected_physics 0.69; main: p2p_disabled 0.69)
    "Our vLLM TP=4 server on 4x A100 PCIe sits at 100% GPU util with no progress at the first allreduce for 30 "
    "minutes. What timeout should I set so it fails faster instead of sitting there?",
])
def test_probes_a_stall_then_a_timeout_question_reads_as_before(text):
    verdict, _ = judged_issue(text)
    assert verdict.category == "p2p_disabled"


@pytest.mark.parametrize("text", [
    "The allreduce makes no progress. How do I raise the timeout?",  # probe
    "Rank 2 never returns from the first allreduce. What timeout should I set?",  # probe
    "The job sits idle at the barrier, so what timeout should I use?",  # probe
    "It waits forever at init_process_group. How can I increase the timeout?",  # probe
])
def test_a_stall_said_in_other_words_keeps_the_timeout_a_hang(text):
    assert "timeout" in _hangs(text)


@pytest.mark.parametrize("text", [
    "The model sits at 40 GB per GPU. What timeout should I use?",  # a place, not a stall
    "It doesn't sit idle. What timeout should I use?",  # denied
    "Training makes good progress. How do I raise the timeout?",  # progress, not its absence
    "I run Kubuntu on my laptop and sometimes it never has a network connection, so how do I set the timeout for the "
    "network interface to 5-10 seconds?",  # the known47a pass's forum thread (find_string id 56788839381)
    "My action times out after 2 minutes. How can I increase the timeout value?",  # read where it is said
])
def test_no_stall_said_keeps_the_setting_question(text):
    assert "timeout" not in _hangs(text)
