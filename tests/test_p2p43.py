"""Issue 11 (p2p43): threads whose settled cause was the GPUs' peer path, and the one reading that missed one.

- rules.failure_words reads bad output said with the verb that hands it back ("began returning nonsense when using
  anything other than -sm none", ggml-org/llama.cpp#21855; "row split mode outputs gibberish", #16680; "producing
  gibberish", #12012; "-sm row produces gibberish", #12340; "produces only garbage", #3772; "outputs nonsense random
  ASCII", ikawrakow/ik_llama.cpp#1489) and "incomprehensible" / "unintelligible" output. Before, #21855's first post
  was answered healthy 0.69 (ticket.nothing_broken): the reporter's own failure was not seen.

Real first posts under tests/data/p2p43 (URLs, settled answers and blind verdicts in its SOURCES.md); the sentences
below marked "probe" are my own, testing the reading with negations, conditions, questions, hearsay, guesses and near
misses.
"""

from pathlib import Path

import pytest
from conftest import judged_issue
from test_ticket_numbers import _said

from rules import failure_words, ticket_questions

DATA = Path(__file__).parent / "data" / "p2p43"


def _verdict(name: str):
    verdict, _ = judged_issue((DATA / name).read_text())
    return verdict


# =========================================================================== the real first posts

@pytest.mark.parametrize("name", [
    "nccl182.md",       # all_reduce_perf stuck on a Ryzen host; "Turning off SVM (VT) finally solved the problem"
    "dasharo436.md",    # K80s: a tensor copied to the second GPU reads back zeros unless iommu=soft/off
    "iklamma1489.md",   # 2x 3090 under the P2P driver: nonsense output, fine on the stock driver
])
def test_peer_path_threads_are_answered_p2p(name):
    assert _verdict(name).category == "p2p_disabled"


def test_output_gone_to_nonsense_on_two_gpus_is_not_healthy():
    """llama.cpp#21855: two P40s, every multi-GPU split mode returns nonsense since one build, "-sm none" works. The
    reporter's failure shuts ticket.nothing_broken (it was answered healthy 0.69 before this pass)."""
    assert _verdict("llamacpp21855.md").category != "healthy"


@pytest.mark.xfail(strict=True, reason=(
    "llama.cpp#21855's first post names no peer path: the cause (CUDA peer access enabled by default, crashes or "
    "corrupted outputs on some boards and BIOS settings) was only named by the maintainers' PR #21910 the next day; "
    "the post shows a regression between two builds on two P40s, which insufficient_data answers"))
def test_output_gone_to_nonsense_on_two_gpus_is_p2p():
    assert _verdict("llamacpp21855.md").category == "p2p_disabled"


# =========================================================================== the reading

@pytest.mark.parametrize("sentence", [
    "In release b8738 llama-server began returning nonsense when using two GPUs.",  # probe
    "With -sm row the model outputs gibberish.",  # probe
    "Both GPUs together produce only garbage.",  # probe
    "Several models producing gibberish on the second card.",  # probe
    "It spits out garbage after the first token.",  # probe
    "In b8738, -sm row, -sm layer, and -sm tensor all return incomprehensible text.",  # llama.cpp#21855
    "any model I try, either with -sm graph or -sm layer, outputs nonsense random ASCII.",  # ik_llama.cpp#1489
])
def test_bad_output_said_with_its_verb_is_a_failure(sentence):
    assert ticket_questions.failure_said(_said(sentence)) is not None


@pytest.mark.parametrize("sentence", [
    "It does not return gibberish anymore.",  # probe: negated
    "It never produces nonsense with one GPU.",  # probe: negated
    "If it returns gibberish, try -sm none.",  # probe: a condition
    "Try -sm none if it outputs gibberish.",  # probe: advice
    "Does it produce gibberish on your side?",  # probe: a question
    "I read in #1234 that someone got it to output gibberish.",  # probe: hearsay
    "Earlier versions produced garbage; that was fixed in 0.5.",  # probe: fixed since
    "I guess it might return garbage with row split.",  # probe: a guess
    "The python garbage collector returns garbage collection stats.",  # probe: garbage collection
    "The function returns a list of tokens.",  # probe: no bad output
])
def test_bad_output_near_misses(sentence):
    assert ticket_questions.failure_said(_said(sentence)) is None


def test_the_widened_pattern_is_bounded():
    from benchmarks.regex_worst_case import runaway_repeats
    assert runaway_repeats(failure_words._FAILED.pattern, failure_words._FAILED.flags) == []
