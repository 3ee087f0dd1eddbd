"""Session s48, pass known48: misreadings the last session's reviewers proved with probes and left unmended. Each
probe is labelled probe (with what main read before), beside near-misses that must keep the old reading."""

import pytest

from rules import claims, hearsay


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


def _denied(text: str) -> bool:
    at = text.index("hang")
    return hearsay.denied_for_writer(text, at, at + 5)


# ------------------------- 1. a note on the writer's setup after a comma keeps the denial; a restriction cancels it

@pytest.mark.parametrize("text", [
    "Someone said the all-reduce hangs on H100s, but ours runs fine, on driver 550.",  # probe (the brief's)
    "Someone said the all-reduce hangs on H100s, but ours runs fine, with driver 550 and CUDA 12.4.",  # probe (before:
    # a hang, 'with' past the comma)
    "Someone said the all-reduce hangs on H100s, but ours runs fine, even with TP=8.",  # probe (before: a hang)
    "I read that vLLM hangs with TP=4, but mine works fine, on 4 GPUs with driver 550.",  # probe (before: a hang)
    "Someone said it hangs, but ours runs fine, with TP=4 on 4x A100 and vLLM 0.6.3.",  # probe (before: a hang)
])
def test_a_setup_note_after_a_comma_keeps_the_denial(text):
    assert _denied(text)
    assert not _hangs(text)


@pytest.mark.parametrize("text", [
    "Someone said the all-reduce hangs on H100s, but ours runs fine, except when TP=8.",  # probe (the brief's)
    "Someone said the all-reduce hangs on H100s, but ours runs fine, only on TP=2 though.",  # probe
    "Someone said it hangs, but ours runs fine, unless the batch is larger than 64.",  # probe
    "Someone said it hangs, but ours runs fine, as long as NCCL_P2P_DISABLE=1 is set.",  # probe
    "Someone said it hangs, but ours runs fine, on driver 550 if we set NCCL_P2P_DISABLE=1.",  # probe: the note, then
    # the restriction
    "Someone said it hangs, but ours runs fine, after setting NCCL_P2P_DISABLE=1.",  # probe: fine after a workaround
    "Someone said it hangs, but ours runs fine with driver 550.",  # probe: the clause's own 'with' (as before)
    "Someone said it hangs, but ours works fine for me on TP=2.",  # fr47a2's: another layout in the clause
])
def test_a_restriction_after_a_comma_or_in_the_clause_cancels_the_denial(text):
    assert not _denied(text)
    assert _hangs(text)


# -------------------- 3. "it works fine for me too": the denial's own "too" (lost at af57da3a, fr47a2's _OVER_AFTER)

@pytest.mark.parametrize("text", [
    "Someone said it hangs, but it works fine for me too.",  # probe (before: a hang)
    "Someone said it hangs. It works fine for me too.",  # probe (before: a hang)
    # a thread's answer to another's infinite loop: "It works fine for me too... Which version of the compiler do you
    # use?" (find_string id 56905373546); to another's "does not work for me": "It works fine for me too...." (id
    # 56737160302); the frame around it is a probe
    "Others reported the server hangs. It works fine for me too... Which version of vLLM do you use?",
    "Someone said it hangs, but mine works fine too.",  # probe
    "Someone said it hangs, but ours runs fine as well.",  # probe
])
def test_a_denial_with_its_own_too_is_still_a_denial(text):
    assert _denied(text)
    assert not _hangs(text)


@pytest.mark.parametrize("text", [
    # "Actually, it works fine for me too, _if_ I use DOS 5 as the boot image, but I changed to DOS 6.22, and its has
    # oops'd every time" (id 28473317549): fine only under a condition, then the writer's own failure
    "Someone said it hangs. Actually, it works fine for me too, if I use TP=2, but with TP=4 it hangs every time.",
    "Someone said it hangs, but ours ran fine, and now ours does that too.",  # probe: the writer's system does the same
    "Someone said it hangs, but it works fine for us, and we see it too.",  # probe: the writer sees it as well
    "Someone said it hangs. Ours ran fine for two days. Now it does too.",  # fr47a2's: over in the next sentence
])
def test_a_too_that_says_the_writer_has_it_cancels_the_denial(text):
    assert not _denied(text)
    assert _hangs(text)
