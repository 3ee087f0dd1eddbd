"""Issue 11 (p2ptest34): a P2P check that passed is evidence against p2p_disabled, one that failed is evidence for it.

rules.topology.p2p_seen_working reads the host's own check: the driver's grant (p2pBandwidthLatencyTest 'CAN Access
Peer', simpleP2P 'Peer access ... : Yes', `topo -p2p r` OK, NCCL 'via P2P', torch.cuda.can_device_access_peer True
said in words) and a delivery (simpleP2P's verified copy 'Test passed', P2P=Enabled copies above the host-staged
P2P=Disabled ones, "the p2p test passes"). The board prior (ticket.symptom_prior), ticket.pcie_figure,
ticket.p2p_refused and ticket.p2p_level_inert weigh a grant; ticket.hang_on_pcie only a delivery, since ACS or the
IOMMU leave the grant yes and drop the writes. Real outputs (URLs in tests/data/p2ptest34/SOURCES.md) and paraphrases.
"""

from pathlib import Path

import pytest
from conftest import report_json

from diagnose.artifacts import p2p_test
from diagnose.bundle import read_bundle
from diagnose.evidence import P2PStatus
from rules.topology import p2p_seen_working

DATA = Path(__file__).parent / "data" / "p2ptest34"
PREC = Path(__file__).parent / "data" / "p2pprec31"
WEAK_LEAD = 0.45


def _ticket(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "ticket.md"
    path.write_text(text)
    return report_json("ticket", str(path))


def _rule(report: dict, name: str) -> dict | None:
    return next((f for f in report["findings"] if f["rule"] == name), None)


def test_simplep2p_verified_copy_is_read_as_a_transfer():
    """simpleP2P on two RTX 4090s under a P2P driver (tinygrad/open-gpu-kernel-modules#44, a comment): the pair it
    enabled and its 'Test passed' become one P2PStatus 'transfer' OK beside the two access lines."""
    records = p2p_test.parse((DATA / "simplep2p_4090_pass.txt").read_text(), "simplep2p.txt")
    transfer = [r for r in records if isinstance(r, P2PStatus) and r.capability == "transfer"]
    assert [(t.a, t.b, t.status, t.ok) for t in transfer] == [(0, 1, "Test passed", True)]


def test_simplep2p_failed_verification_is_a_failed_transfer():
    text = (DATA / "simplep2p_4090_pass.txt").read_text().replace(
        "Disabling peer access...", "Verification error @ element 1: val = 0.000000, ref = 4.000000\n"
        "Disabling peer access...").replace("Test passed", "Test failed!")
    records = p2p_test.parse(text, "simplep2p.txt")
    assert [(r.capability, r.ok) for r in records if isinstance(r, P2PStatus) and r.capability == "transfer"] == [
        ("transfer", False)]


def test_test_passed_outside_simplep2p_is_no_transfer():
    """Near-miss: 'Test passed' from another program, no peer access enabled before it."""
    records = p2p_test.parse("Peer access from GPU0 to GPU1\nTest passed\n", "other.txt")
    assert not [r for r in records if isinstance(r, P2PStatus) and r.capability == "transfer"]


@pytest.mark.parametrize("paste,delivered", [("h100_p2p_above_staged.txt", True), ("simplep2p_4090_pass.txt", True),
                                             ("a6000_p2p_below_staged.txt", False)])
def test_real_outputs_delivered_or_not(paste, delivered):
    """NVIDIA/nccl#1264 (8x H100 SXM: P2P=Enabled 371-377 GB/s against 36-37 staged) and simpleP2P's verified copy
    delivered; stas00/ml-engineering#1 (3x RTX A6000: CAN Access Peer on every pair, P2P=Enabled writes 1.6-2.6 GB/s
    against 13-22 staged, a hang) did not, and the grant there is not counted either."""
    facts = read_bundle([DATA / paste])
    assert bool(p2p_seen_working(facts, delivered=True)) is delivered
    assert bool(p2p_seen_working(facts)) is delivered


A_LEAD = (PREC / "a_lead.md").read_text()
D_HANG = (PREC / "d_hang.md").read_text()


@pytest.mark.parametrize("said", [
    "The p2p test passes on this box.",
    "simpleP2P passed and `torch.cuda.can_device_access_peer(0, 1)` returns True.",
    "I use the patched P2P driver: nvidia-smi topo -p2p r shows OK for both pairs.",
    "Peer access is enabled between the two cards.",
    "P2P is not the issue, I checked.",
])
def test_the_board_prior_yields_to_a_p2p_check_that_passed(tmp_path, said):
    """A 4090 pair under TP 2, slow decode (p2pprec31 a_lead) plus the reporter's own P2P check passing: the board's
    refusal does not hold on this host, so the p2p_disabled prior is not said."""
    report = _ticket(tmp_path, A_LEAD + "\n" + said + "\n")
    prior = _rule(report, "ticket.symptom_prior")
    assert prior is None or prior["category"] != "p2p_disabled"


@pytest.mark.parametrize("said", [
    "The p2p test does not pass.",
    "Is P2P enabled on these cards?",
    "If peer access is enabled, NCCL should use it.",
])
def test_negated_or_asked_checks_leave_the_prior(tmp_path, said):
    """Negations and questions are no passing check: the board prior stays a lead asking for the path."""
    prior = _rule(_ticket(tmp_path, A_LEAD + "\n" + said + "\n"), "ticket.symptom_prior")
    assert prior is not None and prior["category"] == "p2p_disabled" and prior["confidence"] <= WEAK_LEAD


def test_a_hang_whose_transfer_check_passed_is_a_lead_against_p2p(tmp_path):
    """d_hang (two 4090s hang at the first all-reduce) with simpleP2P's verified copy pasted: the path delivered
    outside the job, so ticket.hang_on_pcie is an info lead and the verdict is not p2p_disabled above a weak lead."""
    text = D_HANG + "\n```\n" + (DATA / "simplep2p_4090_pass.txt").read_text() + "```\n"
    report = _ticket(tmp_path, text)
    hang = _rule(report, "ticket.hang_on_pcie")
    assert hang["severity"] == "info" and "P2P check passes" in hang["title"]
    assert not (report["verdict"]["category"] == "p2p_disabled" and report["verdict"]["confidence"] > WEAK_LEAD)


def test_a_grant_alone_does_not_clear_a_hang(tmp_path):
    """Near-miss: `topo -p2p r` OK is the driver's grant, which ACS or the IOMMU leave yes while dropping the writes
    (tests/data/ut29g nccl2335): the hang stays P2P's first suspect."""
    report = _ticket(tmp_path, D_HANG + "\nnvidia-smi topo -p2p r shows OK for the pair.\n")
    hang = _rule(report, "ticket.hang_on_pcie")
    assert hang["severity"] == "warning" and report["verdict"]["category"] == "p2p_disabled"


def test_the_samples_p2p_disabled_arm_is_no_refusal(tmp_path):
    """Reverse precision: the sample's P2P=Disabled figure quoted beside its P2P=Enabled one is the comparison arm,
    not a copy found staged (before: ticket.pcie_figure p2p_disabled 0.69 from the 12 GB/s)."""
    report = _ticket(tmp_path, "# Is this P2P bandwidth normal?\n\nOn my 2x RTX 3090 the Unidirectional P2P=Disabled "
                     "bandwidth is 12 GB/s and P2P=Enabled is 25 GB/s. Is this normal?\n")
    figure = _rule(report, "ticket.pcie_figure")
    assert figure is not None and figure["category"] == "expected_physics"


@pytest.mark.parametrize("said,refused", [
    ("The two 3090s are not able to p2p.", True),
    ("Only GPU0 and GPU1 can p2p, the others are not able to do P2P.", True),
    ("The cards are able to do P2P.", False),
])
def test_p2p_as_a_verb_after_not_able_to(tmp_path, said, refused):
    """'not able to p2p' (aikitoria/open-gpu-kernel-modules#13's wording) is a refusal; 'able to do P2P' is not."""
    head = "# P2P question\n\nI run vLLM with --tensor-parallel-size 2 on two GPUs.\n"
    report = _ticket(tmp_path, head + said + "\n")
    assert bool(_rule(report, "ticket.p2p_refused")) is refused


def test_kept_paste_mixed_boards_not_able_to_p2p():
    """aikitoria/open-gpu-kernel-modules#13 (5x 5060 Ti + 5070 Ti + 5090 on the P2P driver, "others ... not able to
    p2p"): before, healthy 0.69 (nothing read); now the refusal is read (ticket.p2p_refused), tied with the mixed-GPU
    finding that decides the verdict."""
    report = report_json("ticket", str(DATA / "aikitoria13.md"))
    assert report["verdict"]["category"] != "healthy"
    assert _rule(report, "ticket.p2p_refused")["category"] == "p2p_disabled"


@pytest.mark.xfail(strict=True, reason="has_nvlink (rules/common.py, not this pass's) reads 'could reach the speed of "
                   "first generation NVLinK' as NVLink present, so ticket.p2p_refused goes to its NVLink branch, which "
                   "needs active links; the settled answer is the driver refusing P2P on the 5090")
def test_kept_paste_5090_p2p_unsupported():
    """tinygrad/open-gpu-kernel-modules#29: 'Unable to support P2P on RTX 5090 at the moment' on the P2P driver."""
    assert report_json("ticket", str(DATA / "tinygrad29.md"))["verdict"]["category"] == "p2p_disabled"
