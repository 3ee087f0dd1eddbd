"""Session s43, fixer A2: misfires the 37th session's second final read proved (probes /tmp/fr43b/<n>.md), each with
the near-misses that must keep the old reading."""

import pytest

from rules import claims
from tests.conftest import judged_issue

ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered"


def _rules(text: str) -> dict:
    return judged_issue(text)[1]


# ------------------------------------------- 1. _SAID_BEFORE: a failure said of the past, with a lead or a gap

def test_probe_2_a_crash_before_the_upgrade_is_no_current_error():
    # probe (2.md)
    text = (f"# vLLM server hangs at startup after upgrade\n\nBefore the upgrade, vLLM crashed with \"{ILLEGAL}\". "
            "After upgrading it no longer crashes, but the server now hangs forever at \"Loading model weights\" on "
            "2x A100 with --tensor-parallel-size 2.\n")
    assert "ticket.known_error" not in _rules(text)


@pytest.mark.parametrize("before", [
    "Before the upgrade, vLLM crashed with \"",
    "Before the fix vLLM failed with `",
    "before our update, the server died with '",
    "It used to sometimes fail with \"",
    "In 0.5.4 it previously always failed with `",
])
def test_a_past_failure_across_a_gap_is_said_before(before):
    assert claims._SAID_BEFORE.search(before)


@pytest.mark.parametrize("before", [
    # fr43 probes 20/21 and their kin: failing now
    "Before the upgrade it worked, now it fails with `",
    "Before the upgrade it worked and it fails with `",
    "Before the upgrade it worked but crashes with `",
    "The server does not start and fails with \"",
    "It did not load and crashed with '",
    "I used to run it and now it fails with `",
])
def test_a_failure_now_is_not_said_before(before):
    assert not claims._SAID_BEFORE.search(before)
