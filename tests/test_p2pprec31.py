"""Issue 11 (p2pprec31): a p2p_disabled verdict needs an observation of the path between the GPUs.

ticket.symptom_prior named p2p_disabled, at warning and so as the verdict, from the board's class alone: a GeForce
board (catalog pcie_p2p = false) under tensor parallelism with a speed complaint. That is configuration, not an
observation of this host ("configuration facts move priors; they are not verdicts"), and on held-out tickets it was
the settled answer less often than not. Without a topology, a P2P status or an NCCL transport line it is now a weak
lead beside the ask for the path; with one it stays the finding; where the host shows P2P working (a patched driver)
it is not said at all. A P2P-specific symptom (a hang between PCIe GPUs, a refusal) keeps its own rules.
tests/data/p2pprec31/SOURCES.md lists the pastes (the paraphrases written for this pass, the kept real ones)."""

from pathlib import Path

import pytest
from conftest import report_json

DATA = Path(__file__).parent / "data" / "p2pprec31"
WEAK_LEAD = 0.45


def _ticket(path: Path) -> dict:
    report = report_json("ticket", str(path))
    prior = [f for f in report["findings"] if f["rule"] == "ticket.symptom_prior" and f["category"] == "p2p_disabled"]
    return {"verdict": report["verdict"], "prior": prior[0] if prior else None}


def test_the_board_alone_is_a_lead_beside_the_ask_for_the_path():
    """A 4090 pair under TP 2, a slow decode, nothing about the path: the prior is info, never the verdict above a
    weak lead, and asks for the P2P status and NCCL's transport (before: p2p_disabled warning 0.55)."""
    got = _ticket(DATA / "a_lead.md")
    assert got["prior"]["severity"] == "info" and got["prior"]["confidence"] <= WEAK_LEAD
    assert "topo -p2p" in got["prior"]["ask"]
    assert not (got["verdict"]["category"] == "p2p_disabled" and got["verdict"]["confidence"] > WEAK_LEAD)


@pytest.mark.parametrize("paste,verdict", [("b_topo.md", "expected_physics"), ("f_shm.md", "p2p_disabled")])
def test_the_path_seen_keeps_the_host_staged_finding(paste, verdict):
    """The same complaint with `nvidia-smi topo -m` (PHB) or NCCL's 'via SHM' lines: the path is observed, so the prior
    is a finding again. Where the reporter's figure fits the band (which already stages the all-reduce through host
    memory), the fit still answers (rules.engine.fits_first)."""
    got = _ticket(DATA / paste)
    assert "path seen on this host" in got["prior"]["summary"]
    assert got["verdict"]["category"] == verdict


def test_p2p_seen_working_silences_the_board_prior():
    """Near-miss: NCCL connects the two 4090s 'via P2P/IPC' (a patched driver): the board's refusal does not hold."""
    got = _ticket(DATA / "c_p2p_ok.md")
    assert got["prior"] is None
    assert got["verdict"]["category"] != "p2p_disabled"


def test_a_hang_between_consumer_boards_stays_p2p():
    """Near-miss the other way: a hang at the first all-reduce on two 4090s is P2P-specific (ticket.hang_on_pcie)."""
    assert _ticket(DATA / "d_hang.md")["verdict"]["category"] == "p2p_disabled"


def test_a_second_3090_that_does_not_scale_is_no_p2p_verdict_on_the_board_alone():
    got = _ticket(DATA / "e_3090_scaling.md")
    assert got["prior"]["severity"] == "info"
    assert not (got["verdict"]["category"] == "p2p_disabled" and got["verdict"]["confidence"] > WEAK_LEAD)


@pytest.mark.parametrize("paste", ["tests/data/ut16/trtllm2785.md"])
def test_kept_real_paste_on_the_board_alone_is_a_weak_lead(paste):
    """NVIDIA/TensorRT-LLM#2785 (2x RTX 4090, trtllm-bench 'very poor', no path shown; no settled answer in the
    thread): before, p2p_disabled 0.69 from the board's prior; now at most a weak lead asking for the path."""
    got = _ticket(Path(__file__).parent.parent / paste)
    assert got["verdict"]["confidence"] <= WEAK_LEAD or got["verdict"]["category"] != "p2p_disabled"
