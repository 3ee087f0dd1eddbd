"""extract31 (issue 11): a validation set for fact extraction. 24 real "is this speed normal / why is multi-GPU not
faster" first posts the reader was never fitted to, annotated by hand before the tool read them
(tests/data/extract31/facts.toml, SOURCES.md), scored by scripts/extract30_score.py --folder tests/data/extract31.

As for extract30: the annotation parses, every paste is annotated and every annotation has its paste, and the scorer
runs on the folder. No per-fact result is asserted here: a reading change is judged by the score table, not fitted to
these pastes (SOURCES.md holds the table on main)."""

from __future__ import annotations

import pytest
from extract_set_checks import check_set, score


def test_the_set_is_well_formed(capsys):
    """Each annotation parses, pastes and annotations are the same set, keys name catalog rows, the scorer runs."""
    check_set("tests/data/extract31", capsys)


@pytest.mark.parametrize("fig,got,held", [
    ({"value": 267.98, "unit": "s"}, 267980.0, True),        # "costs 267.98s" held in ms
    ({"value": 267.98, "unit": "s"}, 267.98, True),          # or as written
    ({"value": 2, "unit": "hr"}, 7.2e6, True),               # "> 2 hr"
    ({"range": [10, 15], "unit": "seconds"}, 12500.0, True),  # "10-15 seconds" held as its middle in ms
    ({"value": 30, "unit": "ms"}, 30000.0, False),           # a figure in ms is not scaled
    ({"value": 7, "unit": "s"}, 7.2, False),
])
def test_time_units(fig, got, held):
    """A latency annotated in seconds, minutes or hours is found where the reader holds it in ms."""
    assert score._holds(fig, got) == held
