"""Issue 11 (session s39, pass fault39): real threads whose settled answer is a fault, measured blind.

Five real first posts (tests/data/fault39, SOURCES.md: settled answers, blind verdicts on main 70162d56 and after) and
the one general reading they showed missing: a process that even SIGKILL does not end is a hang (it waits inside a
kernel call, the GPU driver's: ps(1)'s state D, "uninterruptible sleep"; signal(7): no signal is delivered until that
call returns). Said that way in pytorch/pytorch#24081 ("not killable"), OpenNMT/CTranslate2#665 ("could not be
killed"), pytorch/pytorch#1656 (tests/data/ut25: "could not `sudo kill`") and alibaba/cascade-stereo#7 ("the GPU
process can not be killed"; no settled answer, so not kept). Before, "could not be killed" read as a crash ruled out
("not ... killed"), and OpenNMT/CTranslate2#665 came back healthy.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims

DATA = Path(__file__).parent / "data" / "fault39"


def _paste(name: str) -> str:
    return (DATA / name).read_text()


def _symptom(text: str) -> str | None:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    said = claims.symptom_quote(facts)
    return said[2] if said else None


# ----------------------------------------------------------------------------- real first posts


@pytest.mark.parametrize("name", [
    "pytorch73206.md",   # DDP stuck on 8x A40 (the same hang solved with NCCL_P2P_LEVEL=NVL: DDP-practice#1)
    "ddppractice1.md",   # DDP stuck on 5x RTX 4090, solved with NCCL_P2P_LEVEL=NVL
    "pytorch24081.md",   # DataParallel on 4x P40 freezes, not killable; ACS left on behind the PLX switches
    "dsgn2_20.md",       # training freezes at 100 % on 4x RTX 3090; NCCL_P2P_DISABLE=1 ends it
])
def test_real_hangs_on_pcie_read_as_p2p(name):
    verdict, _ = judged_issue(_paste(name))
    assert verdict.category == "p2p_disabled"


def test_unkillable_process_is_no_healthy_run():
    # OpenNMT/CTranslate2#665: two GPUs, "the suspended process could not be killed by ctrl-c" -- blind: healthy 0.69
    # (ticket.nothing_broken); a hang now, which asks for what would place it
    assert _symptom(_paste("ctranslate665.md")) == "hang"
    verdict, found = judged_issue(_paste("ctranslate665.md"))
    assert "ticket.nothing_broken" not in found
    assert verdict.category not in ("healthy", "expected_physics")


@pytest.mark.xfail(strict=True, reason="OpenNMT/CTranslate2#665 (settled: a regression of CTranslate2 2.10.0, the "
                   "change #657, fixed in 2.10.1): the post names no version, so nothing points at a release; the hang "
                   "across two GPUs is answered insufficient_data, asking for the peer-path evidence")
def test_unkillable_process_after_a_release():
    verdict, _ = judged_issue(_paste("ctranslate665.md"))
    assert verdict.category == "nccl_regression"


# ----------------------------------------------------------------------------- the same, reworded, and near-misses


@pytest.mark.parametrize("text", [
    "# DDP on two RTX 3090s\n\nThe job never prints the first step and the GPU process can not be killed. Any idea?",
    "# TP=2 worker\n\nAfter starting vLLM with --tensor-parallel-size 2 the worker on GPU 1 cannot be killed, even "
    "sudo kill -9 does nothing.",
    "# Two A6000\n\nThe training processes are unkillable once I use both cards; with one card everything is fine.",
    "# Multi-GPU run\n\nI couldn't kill the python process after it reached the first all-reduce on 4 GPUs.",
])
def test_unkillable_said_is_a_hang(text):
    assert _symptom(text) == "hang"


@pytest.mark.parametrize("text", [
    # killed by something else: the process ended (a crash or out-of-memory kill, not a wait)
    "# OOM\n\nThe container gets OOM killed when loading Llama-3-8B on two A10G.",
    # killed on purpose, nothing stuck
    "# Restart\n\nI killed the server and started it again with TP=2; decode is 20 tok/s on two A100s, is that normal?",
    # can be killed: said so
    "# Slow TP\n\nThe process can be killed with Ctrl-C as usual; the problem is only that decode is 20 tok/s on two "
    "A100s with TP=2.",
])
def test_killing_said_otherwise_is_no_hang(text):
    assert _symptom(text) != "hang"
