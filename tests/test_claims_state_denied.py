"""A state word denied by its own verb ("the links are not down", "nvidia_peermem isn't missing") is no claim of that
state; a state that carries its own "not" ("NVLink is not active", "the bridge is not detected") still is.

The issues corpus (searched for "NVLink is not down", "links are not inactive", "link is not down") holds no thread
that denies a link state in words, so the denials here are written the way tickets word other denials; the
affirmations are quoted from real threads, with their URLs.
"""

import pytest

from diagnose.evidence import Facts, Note
from rules import claims


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def affirmed(text: str, kind: str) -> bool:
    return bool(claims.find(said(text), kind))


@pytest.mark.parametrize("text", [
    "The NVLink links are not down.",
    "NVLink is not down, nvidia-smi nvlink -s shows 25 GB/s per link.",
    "NVLinks aren't inactive, all 12 report 25 GB/s.",
    "The NVLinks were never down during the run.",
    "NVLink doesn't show as inactive on any GPU.",
    "No NVLink link is down.",
])
def test_a_link_state_denied_by_its_verb_is_no_link_down(text):
    assert not affirmed(text, "link_down")
    assert claims.find(said(text), "link_down", negated=True)


@pytest.mark.parametrize("text", [
    # https://github.com/NVIDIA/DCGM/issues/198
    "I have a machine where all nvlinks are down:",
    # https://github.com/NVIDIA/DCGM/issues/49 (dcgmi diag's warning, quoted)
    "GPU 0's NvLink link 0 is currently down",
    # a state word that carries its own "not"
    "NVLink is not active on GPU 2 after the reboot.",
    "The NVLink bridge is not detected after moving the cards.",
    # the denial belongs to another clause
    "NVLink is not the problem, link 2 is down.",
    "It is not a driver issue: the NVLinks are down.",
])
def test_a_link_state_affirmed_is_still_read(text):
    assert affirmed(text, "link_down")


@pytest.mark.parametrize("text", [
    "nvidia_peermem is not missing, lsmod lists it.",
    "The nv_peer_mem module isn't absent on the compute nodes.",
])
def test_a_module_state_denied_by_its_verb_is_no_missing_module(text):
    assert not affirmed(text, "module_missing")


@pytest.mark.parametrize("text", [
    "lsmod shows that nvidia_peermem is not loaded.",
    "The nv_peer_mem module is missing on the compute nodes.",
])
def test_a_module_state_affirmed_is_still_read(text):
    assert affirmed(text, "module_missing")
