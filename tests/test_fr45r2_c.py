"""Session s45, fixer C of the second read (fr45r2): misfires a reviewer proved with probes (/tmp/fr45c) in the first
fixers' changes, each fixed in its general mechanism. Probes are the reviewer's sentences, labelled probe; near-misses
keep the old reading."""

import time

import pytest
from conftest import issue_bundle as _facts

from diagnose.artifacts import issue_md

TWO_BOARDS = "# llama-server slow on 2x RTX 3090\n\nI have 2x RTX 3090. "


# ------------------------------------------ 1. the none split's works-vs-more reading takes time linear in the line

@pytest.mark.parametrize("tail", ["works , ", "works, but , ", "fine ; while ", "ok , both , "])
def test_none_split_long_line_without_full_stop_is_fast(tail):
    line = "I run llama-server with -sm none and it " + tail * (5000 // len(tail))  # probe: 23 s before
    start = time.perf_counter()
    issue_md._none_split([(1, line)])
    assert time.perf_counter() - start < 0.5


def test_redos_ticket_is_fast():
    text = TWO_BOARDS + "I use -sm none and it " + "works , " * 620 + "\n"  # probe (/tmp/fr45c/redos.md): 32 s
    start = time.perf_counter()
    _facts(text)
    assert time.perf_counter() - start < 10


def test_none_split_works_vs_more_still_read():
    # near-misses from fr45 A2 keep their reading: the none run is the working one, set against one over both GPUs
    assert issue_md._none_split([(1, "With --split-mode none on one card it works; over both cards it is garbage.")]) \
        is None
    assert issue_md._none_split([(1, "With -sm none on one card it works fine, but over both GPUs it is slow.")]) \
        is None
    assert issue_md._none_split([(1, "We run -sm none on one card and it works fine.")]) == 1
