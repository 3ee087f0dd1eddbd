"""Session s47, pass known47a: English hang and timeout readings the last session's final read left wrong, each proved
with a probe first (the "before" noted beside it), then the general mechanism fixed: (1) a hang only reported of
others and then denied for the writer ("someone said it hangs, but ours runs fine", rules/hearsay.denied_for_writer);
(2) a question about the timeout setting ("what timeout should I set?", claims._timeout_setting_asked). Real sentences
are labelled with their source (a find_string id); probes are the writer's own short sentences, labelled probe, with
negations, hearsay, questions, advice and near-misses that must not fire."""

import pytest

from rules import claims, hearsay


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


# ------------------------------------------ 1. another's hang, then the writer's own contrary run: no hang of theirs

@pytest.mark.parametrize("text", [
    "Someone said the allreduce times out on H100s too, but ours runs fine.",  # probe (the brief's; before: a hang)
    "Someone said the allreduce hangs on H100s too, but ours runs fine.",  # probe (the brief's; before: a hang)
    "I read that vLLM hangs with TP=4 on H100, but ours works fine.",  # probe (before: a hang)
    "In issue #123 they say it hangs, but mine works.",  # probe (before: a hang)
    "In #123 they say it hangs. For us it runs fine.",  # probe: the denial in the next sentence
    "Someone on reddit said vLLM freezes with 4 cards. Our 4x A100 node runs fine.",  # probe
    "I read that it hangs, but I can't reproduce it.",  # probe
    "Others reported it hangs. However, it works fine for me.",  # probe
    "People report hangs with this driver, but we have no such problems.",  # probe
])
def test_a_hang_reported_of_others_then_denied_for_the_writer_is_no_hang(text):
    assert not _hangs(text)


@pytest.mark.parametrize("text", [
    "Someone said it hangs, and ours hangs too.",  # probe: confirmed (the brief's)
    "Same here: it hangs.",  # probe: the writer's own (the brief's)
    "Someone reported that it hangs. We see the same.",  # probe: confirmed in the next sentence
    "People report hangs with this driver; ours hangs as well.",  # probe
    "Someone said it hangs, but ours works fine until it hangs after an hour.",  # probe: the writer's own hang after
    "Someone said it hangs, but ours works fine with NCCL_P2P_DISABLE=1.",  # probe: fine only with a workaround
    "Someone said it hangs, but ours works with NCCL_P2P_DISABLE=1.",  # probe
    "Someone said it hangs, but mine works only on TP=2.",  # probe: fine only under a condition
    "Someone said to set NCCL_P2P_DISABLE=1, but ours still hangs.",  # probe: advice, the hang the writer's
    "Someone said TP=2 is slow, but ours hangs.",  # probe: the hang after the contrast is the writer's
    "Same as #123: it hangs, but if I use TP=2 it works fine.",  # probe: a reference, not their word; a workaround
    "Our server hangs at startup, but someone said theirs runs fine.",  # probe: the writer's hang, another's fine run
    "Someone said it hangs on H100, but ours works. It hangs on our A100 though.",  # probe: the writer's own, later
    "Someone said it hangs with mixed cards, but mine doesn't work fine either: it hangs too.",  # probe: negated fine
    "It hangs, but someone said it works fine for them.",  # probe: no word of another before the hang
])
def test_the_writers_own_hang_beside_hearsay_stays(text):
    assert _hangs(text)


def test_real_sentences_deny_anothers_trouble_for_the_writer():
    # The writer's contrary run in answer to another's report, as threads say it (the denial's own shape; these
    # threads are not about hangs): "I can't repeat it. It works fine for me." (find_string id 67559353340), "That's
    # weird, it works all okay for me." (id 56780492405), "Strangely, everything works fine for me" (id 401029160).
    for said in ("It works fine for me.", "That's weird, it works all okay for me.",
                 "Strangely, everything works fine for me."):
        text = "Someone said it hangs. " + said  # probe frame around the real sentence
        assert hearsay.denied_for_writer(text, text.index("hangs"), text.index("hangs") + 5), said
    # ... and another's hang confirmed stays: "The operator opened the same URL manually in Chrome and reported that it
    # hangs without loading." (id 71630883086; no denial after it)
    text = "The operator opened the same URL manually in Chrome and reported that it hangs without loading."
    assert not hearsay.denied_for_writer(text, text.index("hangs"), text.index("hangs") + 5)


def test_the_mixed_cards_warning_is_still_read_as_before():
    # tests/data/review37/NOTES.md: another's warning under a modal, then the writer's denial
    assert not _hangs("Someone said it might also hang with mixed cards, but mine never hangs")


# --------------------------------------------------------- 2. a question about the timeout setting: nothing timed out

@pytest.mark.parametrize("text", [
    "What timeout should I set?",  # probe (the brief's; before: a hang)
    "How do I raise the timeout?",  # probe (the brief's; before: a hang)
    "Which timeout value do you recommend?",  # probe (before: a hang)
    "How can I increase the NCCL timeout?",  # probe
    "Is there a way to increase the timeout?",  # probe
    "Where do I set the timeout for init_process_group?",  # probe
    "Should I increase the timeout?",  # probe
    "What is the default timeout?",  # probe
    "How long should the timeout be?",  # probe
    "What timeout should be used for network reachability checks?",  # find_string id 32080803056
    "What timeout should I use?",  # id 71595468744
    "How can I increase the timeout for each probe in the traceroute command?",  # id 10542950378
    "I run Kubuntu on my laptop and sometimes it never has a network connection, so how do I set the timeout for the "
    "network interface to 5-10 seconds?",  # a forum thread, id 56788839381
    "What timeout should v1 use for an OpenClaw agent turn: 5, 10, 15, or 20 minutes?",  # id 55067257871
])
def test_a_question_about_the_timeout_setting_is_no_hang(text):
    assert not _hangs(text)


@pytest.mark.parametrize("text", [
    "It times out, what timeout should I set?",  # probe: a timeout reported, then the question (the brief's)
    "The allreduce hangs, what timeout should I set?",  # probe
    "Watchdog caught collective operation timeout",  # probe: the watchdog's own line (the brief's)
    "[E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
    "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800520 milliseconds before timing out.",  # probe: its log line
    "Why do I get a timeout?",  # probe: a timeout met, asked why
    "What causes the NCCL timeout?",  # probe
    "How do I fix the timeout?",  # probe: fixing one that happens
    "Why is there a timeout after 30 minutes?",  # probe
    "The job hit the timeout, how do I raise it?",  # probe: met before the question
    "Did the timeout happen on rank 0?",  # probe: not a setting asked of
    "I increased the timeout to 3600 but it still hangs.",  # probe: no question
    "Getting connection timeout errors when connecting to Redis from FastAPI. How can I increase the timeout?",
    # (find_string id 57066226083: the timeout met is read in the sentence before the question)
])
def test_a_timeout_met_or_a_question_after_one_stays_a_hang(text):
    assert _hangs(text)


def test_a_question_about_a_timeout_that_a_sentence_before_reports():
    # "My action times out after 2 minutes. How can I increase the timeout value?" (id 924868036): the question is
    # a setting's; the action's timeout is read where it is said (a client's wait, known46a, is no collective's)
    text = "My action times out after 2 minutes. How can I increase the timeout value?"
    assert "timeout" not in _hangs(text)
    assert _hangs("The allreduce times out after 2 minutes. How can I increase the timeout value?") == ["times out"]
