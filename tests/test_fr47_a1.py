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


# -------------------------- 8. a shortfall denied, or "not as much as I expected" with no rate: no shortfall read

_BASE = ("We serve Llama-2-7B with vLLM on two A100 80GB with TP=2. {} nvidia-smi shows about 72 GB used on each GPU "
         "right after startup, before any request. Is this normal?")


@pytest.mark.parametrize("said", [
    # probe 23 (before: insufficient_data 0.0; main: healthy 0.5)
    "Our fine-tuning run does not differ significantly from the results reported in the paper, so that part is fine.",
    # probe 26 (before: insufficient_data 0.0; main: healthy 0.5)
    "Going from one GPU to TP=2 lowered the memory used on each GPU, but not as much as I expected the first time I "
    "tried it.",
])
def test_probes_no_shortfall_keeps_the_healthy_reading(said):
    verdict, _ = judged_issue(_BASE.format(said))
    assert verdict.category == "healthy"


@pytest.mark.parametrize("text", [
    "Our fine-tuning run does not differ significantly from the results reported in the paper.",  # probe
    "It doesn't differ much from the results reported in the paper.",  # probe
    "Our numbers no longer differ significantly from the results reported in the paper.",  # probe
    "The throughput never differed much from the numbers reported in the README.",  # probe
    "Memory went down, but not as much as I expected the first time I tried it.",  # probe: "time" is no rate
    "It improved, but not as much as I expected at the time.",  # probe
])
def test_a_denied_difference_or_no_rate_is_no_shortfall(text):
    assert _missed(text) is None


@pytest.mark.parametrize("text", [
    # near-misses: the audit47a pass's readings stay
    "Inference time is better than my MacBook Air M1 with 8GB of RAM, but not as much as I would have expected.",
    "The time needed for training is estimated to be 80-90hours, which differs significantly with the result "
    "reported by you.",  # artidoro/qlora#77
    "Our fine-tuning takes 40 hours, which differs greatly from the results reported in the paper.",
    "Training time went down with TP=2, but not as much as I expected.",
    "The step time dropped, but not as much as we expected.",
    "Time per token went down, but not as much as I expected.",
    "Speed increase was significant, but not as much as I expected.",
    "Our results differ significantly from the results reported in the paper, they do not match.",
])
def test_the_shortfall_is_still_read(text):
    assert _missed(text) is not None
