"""Session s47, fixer a2 (the 41st session's final read A, items 5-7): rules/hearsay.denied_for_writer read a hang as
another's and denied for the writer where it was the writer's own. (5) A report about the writer's own system, or by
the writer's own team, that the engineer can't reproduce is the usual support-ticket shape, no hearsay. (6) Fine only
for a while, in an older release, with an exception, or over in the next sentence ("Since ... it does the same") is
no denial. (7) "For us it runs fine, but only with NCCL_P2P_DISABLE=1" (read across the comma), "works fine for about
two hours and then stops responding". Probes are labelled probe; the near-misses keep known47a's denial."""

import pytest

from rules import claims, hearsay


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


def _denied(text: str) -> bool:
    at = text.index("hang")
    return hearsay.denied_for_writer(text, at, at + 5)


# ------------------------------------------------------- 5. the writer's own system, reported to them: not hearsay

@pytest.mark.parametrize("text", [
    "Several users reported that our vLLM TP=4 endpoint on 4x A100 PCIe hangs at the first allreduce, but I can't "
    "reproduce it on my dev box.",  # probe 3 (before: insufficient_data 0.0)
    "My colleague reported that vLLM TP=4 hangs at the first allreduce on our 4x A100 PCIe server. It works fine for "
    "me on TP=2.",  # probe 4 (before: insufficient_data 0.0)
    "Some users reported that my deployment hangs at startup, but I can't reproduce it.",  # probe: "my" system
    "Our coworker reported that it hangs with TP=4, but it works fine for me.",  # probe: the writer's own team
    "Someone said it hangs, but it works fine for me on TP=2.",  # probe: fine on another layout
])
def test_a_hang_of_the_writers_own_system_reported_to_them_stays(text):
    assert not _denied(text)
    assert _hangs(text)


# ------------------------------------------ 6. fine only for a while, in an older release, with an exception: no denial

@pytest.mark.parametrize("text", [
    "People on GitHub say vLLM TP=4 hangs at the first allreduce on 4x A100 PCIe, but ours ran fine for a week. Since "
    "yesterday's reboot it does the same.",  # probe 7 (before: insufficient_data 0.0)
    "I read that vLLM TP=4 hangs at the first allreduce on 4x A100 PCIe, but mine worked in v0.5.3; since v0.6 it "
    "does the same.",  # probe 36 (before: insufficient_data 0.0)
    "Someone said vLLM TP=4 hangs at the first allreduce on 4x A100 PCIe, but ours works fine, except when the prompt "
    "is longer than 8k tokens.",  # probe 35 (before: insufficient_data 0.0)
    "Someone said it hangs, but ours worked fine before the driver update.",  # probe: fine before a change
    "Someone said it hangs. Ours ran fine for two days. Now it does too.",  # probe: over in the next sentence
])
def test_a_fine_run_that_is_over_or_conditioned_is_no_denial(text):
    assert not _denied(text)
    assert _hangs(text)


# ------------------------------------------------- 7. a comma before the condition; a failure said in other words

@pytest.mark.parametrize("text", [
    "I read in #123 that vLLM TP=4 hangs at the first allreduce on 4x A100 PCIe boxes. For us it runs fine, but only "
    "with NCCL_P2P_DISABLE=1 set.",  # probe 34 (before: denied; verdict unchanged, lead rule differed)
    "I read that vLLM TP=4 hangs on 4x A100 PCIe machines. Ours works fine for about two hours and then stops "
    "responding at an allreduce.",  # probe 6 (before: denied)
    "Someone on the forum said vLLM hangs at the first allreduce on PCIe boxes, but our NVLink nodes never hung. Our "
    "new 4x A100 PCIe box with TP=4 does exactly that.",  # probe 5 (before: denied)
])
def test_the_writers_own_failure_after_a_comma_or_in_other_words_is_no_denial(text):
    assert not _denied(text)


# ----------------------------------------------------------------- near-misses: another's hang, denied, stays denied

@pytest.mark.parametrize("text", [
    "Someone said the allreduce hangs on H100s too, but ours runs fine.",  # known47a's probe
    "I read that it hangs on 4x A100, but I can't reproduce it on my machine.",  # probe: the writer's own box
    "A friend said it hangs on his box, but mine works fine.",  # probe: a friend is not the writer's team
    "Someone said it hangs on H100s, but ours runs fine. We use TP=4 on 4x A100.",  # probe: the next sentence says
    # nothing of a change
    "Others reported it hangs. However, it works fine for me.",  # known47a's probe
    "People report hangs with this driver, but we have no such problems.",  # known47a's probe
    "In #123 they say it hangs. For us it runs fine.",  # known47a's probe
])
def test_another_hang_denied_for_the_writer_is_still_no_hang(text):
    assert _denied(text)
    assert not _hangs(text)
