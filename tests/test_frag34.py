"""Issue 11 (session s34, pass frag34): the start-up rows of rules/catalog/by_design.toml share one time phrase
({took_how_long}) and one set of stop and failure words ({went_wrong}) from rules/catalog.py FRAGMENTS.

The rows' patterns match what they matched before on every kept paste, development and shared ticket (sees
identical; unless widened to the union, which engine_build_time's copy lacked: deadlock, timeout, "Segmentation"),
and no verdict changed. A TensorRT build that finishes is by design; one that ends in a segfault, deadlock or
timeout is not (other claims already said so on main; the row's own words now say it too).
"""

import re

import pytest
from conftest import judged_issue

from rules import catalog

ROWS = ("weights_load_time", "engine_build_time", "compile_warmup_time", "startup_time")


def _behaviour(text: str) -> str | None:
    """The by_design.toml row ticket.documented_behaviour answers the text with, or None."""
    _, found = judged_issue(text)
    f = found.get("ticket.documented_behaviour")
    return next((r["key"] for r in catalog.documented_behaviours() if f is not None and r["title"] == f.title), None)


def test_the_four_rows_read_the_shared_fragments():
    rows = {r["key"]: r for r in catalog.documented_behaviours()}
    took = "(?:" + catalog.FRAGMENTS["took_how_long"] + ")"
    wrong = "(?:" + catalog.FRAGMENTS["went_wrong"] + ")"
    for key in ROWS:
        assert took in rows[key]["sees"] and rows[key]["unless"].startswith(wrong), key


BUILD = ("# TensorRT engine build\n\nOn an RTX 4090, building the TensorRT engine for Llama 2 7B takes 25 minutes "
         "with trtllm-build. {end}\n")


def test_a_build_that_finishes_is_by_design():
    assert _behaviour(BUILD.format(end="Then the engine runs fine.")) == "engine_build_time"


@pytest.mark.parametrize("end", ["Then it dies with Segmentation fault (core dumped).",
                                 "Then the job ends in a deadlock.",
                                 "Then the container's health check timed out."])
def test_a_build_that_went_wrong_is_not_by_design(end):
    assert _behaviour(BUILD.format(end=end)) is None


@pytest.mark.parametrize("phrase", ["took a bit too long", "takes about 5-8 minutes", "took a while",
                                    "takes a lot of time", "took half an hour", "takes incredibly long"])
def test_each_row_reads_the_same_time_phrases(phrase):
    pattern = re.compile(catalog.FRAGMENTS["took_how_long"], re.I)
    assert pattern.search(f"it {phrase}")


@pytest.mark.parametrize("phrase", ["takes several hours", "took 3 tries", "takes the GPU", "takes no time"])
def test_near_misses_are_no_time_phrase(phrase):
    assert not re.search(catalog.FRAGMENTS["took_how_long"], f"it {phrase}", re.I)
