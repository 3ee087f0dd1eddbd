"""A percentage beside the GPUs that is no busy time: a share of memory after the figure, or a low figure said of
an idle GPU (between requests, with no load). Paraphrases written for these tests, not corpus wording."""

import pytest
from test_ticket_numbers import _said

from rules import claims


def _readings(text: str) -> list[float]:
    return [c.data["percent"] for c in claims.find(_said(text), "gpu_util")]


@pytest.mark.parametrize("sentence", [
    "With TP=2 each GPU still uses 90% of its memory.",
    "The GPU is at 60 % of the VRAM after loading.",
    "GPU utilization falls to 0% between requests.",
    "GPU usage is 2% when there are no requests.",
])
def test_memory_shares_and_idle_figures_are_no_utilisation_reading(sentence):
    assert _readings(sentence) == []


@pytest.mark.parametrize("sentence,percent", [
    ("GPU utilization is only 30% while generating.", 30),
    ("The GPU uses 40% during decoding and 80% of its memory.", 40),
    ("GPU-Util stays at 95% between requests as well.", 95),  # high while nothing should run: a reading
])
def test_a_busy_share_is_still_read(sentence, percent):
    assert percent in _readings(sentence)
