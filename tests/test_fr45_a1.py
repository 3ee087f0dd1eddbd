"""Session s45, fixer A1: misfires of the past45 readings (a hang said only of the past, a timeout set as a guard)
that reviewer A proved with probes (/tmp/fr45a), each fixed in its general mechanism. Probes are the reviewer's or
the writer's own sentences, labelled probe; near-misses keep the past45 reading."""

import pytest

from rules import claims


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


# ------------------------------------------- 1. "earlier"/"previously" pointing back at the text or this run is now

@pytest.mark.parametrize("text", [
    "As I mentioned earlier the job hung at the first allreduce; the log I posted earlier shows where it hung.",
    # (probe, /tmp/fr45a/14.md)
    "Earlier in this run the job hung at step 400 and I had to kill it with kill -9.",  # probe, 5.md
    "As previously reported the process froze at step 0.",  # probe
    "Same as earlier: it stalled at iteration 12.",  # probe
    "The log from earlier shows where it hung.",  # probe
    "Previously mentioned: the job hung at init.",  # probe: a mention verb right after the marker
    "Earlier in the log the rank hung at the barrier.",  # probe
])
def test_a_marker_pointing_back_at_the_text_keeps_the_hang(text):
    assert _hangs(text)


@pytest.mark.parametrize("text", [
    "Previously the job hung at init.",  # near-miss: the past
    "Earlier we had hangs with NCCL 2.18.",  # near-miss
    "We previously had hangs when using TP=4.",  # near-miss
    "In the past we saw hangs on startup.",  # near-miss
    "Earlier in 2023 we had hangs with NCCL 2.18.",  # near-miss: "earlier in" a year is the past
    "As before, we previously had hangs with 2.18.",  # near-miss: the "as" is in another clause
])
def test_a_marker_of_the_past_still_drops_the_hang(text):
    assert _hangs(text) == []


# ----------------------------------------------- 2. a past hang said to go on (a remedy did not help, the same now)

@pytest.mark.parametrize("text", [
    "Earlier we had hangs at the first allreduce with NCCL 2.18 and upgrading to 2.21 did not help.",  # probe, 4.md
    "Previously the job hung at init. I upgraded NCCL to 2.21 but nothing changed.",  # probe: the next sentence
    "In older versions we got the same hang, and it is the same with 0.6.3.",  # probe
    "We used to get hangs with NCCL 2.18 and setting NCCL_P2P_DISABLE=1 didn't fix it.",  # probe
    "Previously the job hung at init. Upgrading the driver made no difference.",  # probe
    "We used to see hangs on 0.5.0. Same with 0.6.3.",  # probe
    "In the past we had hangs at startup with 0.5.0 and with 0.6.3 too.",  # probe
])
def test_a_past_hang_said_to_go_on_stays_one(text):
    assert _hangs(text)


@pytest.mark.parametrize("text", [
    "Previously the job hung at init. Now it runs fine.",  # near-miss: "now" in the next sentence is a contrast
    "Previously the job hung at init. We upgraded NCCL and it works.",  # near-miss
    "Previously two ranks hung at the same time.",  # near-miss: "same time" is no "the same"
    "We used to get hangs with NCCL 2.18.\n\nIt still uses the default NCCL_ALGO.",  # near-miss: another paragraph
    "Earlier we had hangs that took too long to debug.",  # near-miss: "too" before an adjective
])
def test_a_past_hang_not_carried_on_is_still_the_past(text):
    assert _hangs(text) == []


# --------------------------------------------- 5. "used to" as what a thing was used for is no past habit

@pytest.mark.parametrize("text", [
    "Here is the minimal script I used to hit the hang on 8 GPUs:",  # probe, /tmp/fr45a/1.md
    "These are the exact flags we used to get the deadlock.",  # probe
    "This is the command I used to trigger the hang:",  # probe
    "Here is the script which I used to get the stall.",  # probe: a relative with "which"
])
def test_used_to_as_what_it_was_used_for_keeps_the_hang(text):
    assert _hangs(text)


@pytest.mark.parametrize("text", [
    "The common failure, and the one that used to hang forever.",  # find_string id 62741282705 (test_past45)
    "The particles used to freeze mid-load.",  # id 59396526644 (test_past45)
    "We used to get hangs with NCCL 2.18.",  # near-miss: the habit
    "I know that we used to get hangs with 2.18.",  # near-miss: "that" after no noun
    "My colleagues and I used to get hangs.",  # near-miss: a subject joined with "and"
    "On the old cluster we used to see hangs.",  # near-miss: a phrase of place before the pronoun
    "In the past two years we used to get hangs.",  # near-miss: of time
])
def test_used_to_as_a_past_habit_still_drops_the_hang(text):
    assert _hangs(text) == []


# --------------------------------- 6. a purpose that belongs to another setting does not make a timeout met a guard

@pytest.mark.parametrize("text", [
    "Rank 3 reports a timeout after I added NCCL_IB_DISABLE=1 to avoid IB errors.",  # probe, /tmp/fr45a/3.md
    "I get a timeout after setting NCCL_IB_DISABLE=1 to avoid the IB errors.",  # probe
    "There is a timeout after I set NCCL_IB_DISABLE=1 to avoid IB errors.",  # probe: no verb of meeting it
    "There is a timeout when we use NCCL_P2P_DISABLE=1 to avoid the PCIe issue.",  # probe
    "The run ends with a timeout to our surprise.",  # probe
])
def test_a_timeout_met_with_another_settings_purpose_stays_a_hang(text):
    assert "timeout" in [h.lower() for h in _hangs(text)]


@pytest.mark.parametrize("text", [
    "Set a timeout of 30 s to avoid hangs.",  # near-miss: the timeout's own value
    "We set the timeout in the config to prevent hangs.",  # near-miss: its place
    "Set timeout=600 to avoid hangs.",  # near-miss
    "Set a timeout so it does not hang forever.",  # near-miss (test_past45)
    "We configured a 30 minute timeout to prevent NCCL hangs.",  # near-miss (test_past45)
    "The timeout is there to guard against hangs.",  # near-miss (test_past45)
])
def test_a_timeout_set_as_a_guard_is_still_no_hang(text):
    assert _hangs(text) == []
