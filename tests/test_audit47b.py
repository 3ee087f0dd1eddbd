"""audit47b (session s47, issue 11): an audit of three confident verdict families on the kept real pastes
(tests/data/audit47b/AUDIT.md has the table, paste by paste, with what each thread settled):

1. p2p_disabled from ticket.hang_on_pcie;
2. straggler from ticket.one_slow, ticket.mixed_gpus and ticket.small_collective_slow;
3. host_bound from ticket.gpu_utilisation.

One change, in (1): an NCCL or PyTorch release moved to that ended the hang ("Upgrading NCCL to 2.21.5 fixed the
hang") now counts against the blocked peer path, as a release compared or rolled back already did
(rules.ticket_rules._software_release_change). ACS and the IOMMU belong to the platform and hang every release
alike (NCCL troubleshooting guide); a release that ends the hang says the release held it (NCCL's release notes list
hangs fixed release by release). The GPU driver stays out: it grants or refuses peer access itself (a driver update
that ends a P2P hang, dmlc/xgboost#11242, is the peer path's own fault).

Nothing else changed: no mechanism behind the wrong verdicts of (2) and (3) recurs in three kept threads (AUDIT.md).
The real pastes below keep their verdicts; the sentences marked "probe" are written for this test, not real tickets.
"""

import json
from pathlib import Path

import pytest
from conftest import report_json

DATA = Path(__file__).parent / "data"


def verdict(rel: str) -> dict:
    return report_json("ticket", str(DATA / rel))["verdict"]


def probe(tmp_path, text: str) -> dict:
    (tmp_path / "issue.md").write_text("# TP 2 hangs\n\n" + text + "\n")
    return report_json("ticket", str(tmp_path))


HANG = ("vLLM with --tensor-parallel-size 2 on two RTX 4090 hangs at the first all-reduce, GPUs at 100%. ")  # probe


# ------------------------------------------------------------------ (1) real pastes that keep p2p_disabled

@pytest.mark.parametrize("rel", [
    "decided31/nccl120.md",       # NVIDIA/nccl#120: iommu=soft cured it
    "p2p43/nccl182.md",           # NVIDIA/nccl#182: SVM (VT) off cured it
    "ut25/mleng1.md",             # stas00/ml-engineering#1: the IOMMU off cured it
    "ut26f/paddle44777.md",       # PaddlePaddle/Paddle#44777: NCCL_P2P_DISABLE=1 cured it
    "fault39/pytorch24081.md",    # pytorch/pytorch#24081: ACS off behind the PLX switches
    "ut25/pytorch1637.md",        # pytorch/pytorch#1637: iommu=soft
    "lang42/k8s_ddp_allreduce_ko.md",  # 9566.tistory.com/568: NCCL_P2P_DISABLE cured it
])
def test_settled_p2p_hangs_keep_their_verdict(rel):
    v = verdict(rel)
    assert v["category"] == "p2p_disabled" and v["confidence"] >= 0.6


# ------------------------------------------------------------------ (1) the release that ended the hang

@pytest.mark.parametrize("sentence", [
    "Upgrading NCCL to 2.21.5 fixed the hang.",          # probe
    "Updating PyTorch to 2.4 fixed it.",                 # probe
])
def test_a_release_moved_to_that_ended_the_hang_is_no_blocked_peer_path(tmp_path, sentence):
    report = probe(tmp_path, HANG + sentence)
    assert report["verdict"]["category"] != "p2p_disabled"
    (f,) = [f for f in report["findings"] if f["rule"] == "ticket.hang_on_pcie"]
    assert f["confidence"] < 0.5 and "build" in f["title"]


@pytest.mark.parametrize("sentence", [
    "",                                                             # probe: the hang alone
    "Upgrading the driver to 550 fixed the hang.",                  # probe: the driver is the peer path's own
    "Maybe upgrading NCCL would help?",                             # probe: a guess, nothing moved
    "Someone told me to try upgrading NCCL.",                       # probe: advice not answered
    "I read that upgrading NCCL fixed this for other people.",      # probe: hearsay
    "Upgrading NCCL to 2.21.5 did not help, it still hangs.",       # probe: the move changed nothing
    "Setting NCCL_P2P_DISABLE=1 fixed it.",                         # probe: the peer path's own test
])
def test_near_misses_keep_the_peer_path_suspect(tmp_path, sentence):
    report = probe(tmp_path, HANG + sentence)
    assert report["verdict"]["category"] == "p2p_disabled", json.dumps(report["verdict"])


def test_a_release_rolled_back_that_ended_the_hang_stays_the_regression(tmp_path):
    # probe: the path that was read before this pass, unchanged
    assert probe(tmp_path, HANG + "Downgrading NCCL to 2.18.1 fixed it.")["verdict"]["category"] == "nccl_regression"


# ------------------------------------------------------------------ (2) straggler: right ones kept

@pytest.mark.parametrize("rel", [
    "ut15/club3090_766/issue.md",       # noonghunna/club-3090#766: 5090 + 3090 Ti at the slower card's pace
    "ut26c/aifred_rtx8000_p40.md",      # AIfred tensor-split benchmark: the P40 sets the pace
])
def test_mixed_boards_that_set_the_pace_keep_straggler(rel):
    assert verdict(rel)["category"] == "straggler"


# ------------------------------------------------------------------ (3) host_bound: right ones kept

@pytest.mark.parametrize("rel", [
    "decided31/gector66.md",            # grammarly/gector#66: CPU tokenization starves the GPU
    "hostbound37/fastpitch1179.md",     # NVIDIA/DeepLearningExamples#1179: OMP_NUM_THREADS=1 cured it
    "hostbound37/farm752.md",           # deepset-ai/FARM#752: CPU-GPU traffic is the bottleneck
    "hostbound37/fairseq1851.md",       # facebookresearch/fairseq#1851: small copies in beam search
    "pair43/xberg1711.md",              # xberg-io/xberg#1713: per-scalar device copies, not batch 1
    "ut29e/triton269.md",               # triton-inference-server/server#269: one server process feeds the GPUs
])
def test_starved_gpus_keep_host_bound(rel):
    assert verdict(rel)["category"] == "host_bound"
