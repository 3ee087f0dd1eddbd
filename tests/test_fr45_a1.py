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
