"""'Is it working / is this fine?' threads whose answer was yes (issue 11, session s16, tests/data/ut16h; SOURCES.md
gives each thread's address, the answer that settled it and the verdict before and after). Defects they showed, each
fixed in general and tested here on the paste and on text written here (paraphrases, negations) or other real output:

- where the GPUs sit ("GPU0 and GPU1 belong to different NUMA nodes") is inventory, not ranks' CPU work on the far
  socket (NVIDIA/cuda-samples#284 read it as numa_affinity at 0.65);
- a setting that only costs bandwidth (NCCL_MAX_NCHANNELS=1) answers no question about how NCCL behaves when the
  ticket holds no speed and no figure (NVIDIA/nccl#1703: comm_bound at 0.7, confidently wrong);
- the CUDA sample simpleP2P's output ("> Peer access from ... : Yes", "cudaMemcpyPeer / cudaMemcpy between GPU0 and
  GPU1: 19.87GB/s") was read by no detector;
- "the link drops to Gen1 while idle" is said of a PCIe link as "dropped to" is (a comment on
  NVIDIA/open-gpu-kernel-modules#1010): read at idle, it is power saving.
"""

from pathlib import Path

import pytest
from conftest import report_json

from diagnose.artifacts import issue_md, p2p_test
from diagnose.evidence import Facts, GpuFact, P2PStatus, PairBandwidth
from rules import claims

DATA = Path(__file__).parent / "data" / "ut16h"


def report(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse("# Question\n\n" + text + "\n", "issue.md"))
    return facts


def numa_claimed(text: str) -> bool:
    return any(c.kind == "numa_words" and not c.negated for c in claims.claims(said(text)))


# --------------------------------------------------------------------------- GPUs on two NUMA nodes

def test_gpus_on_two_numa_nodes_is_no_affinity_fault():
    r = report("cudasamples284.md")
    assert "ticket.numa_words" not in {f["rule"] for f in r["findings"]}
    assert r["verdict"]["category"] != "numa_affinity"
    # the placement itself stays in the report, as context from the topology matrix
    assert any(f["rule"] == "node.numa_placement" and f["severity"] == "info" for f in r["findings"])


@pytest.mark.parametrize("text, claimed", [
    ("GPU0 and GPU1 are on different NUMA nodes, is that a problem?", False),
    ("My two cards sit on different sockets.", False),
    ("The GPUs are located in different NUMA nodes on this dual-EPYC box.", False),
    ("GPUs 0-3 on different NUMA nodes from GPUs 4-7.", False),
    # the ranks' CPU work on the far socket, or the placement said to cost speed, stays a claim
    ("The worker for GPU 5 runs on the other socket.", True),
    ("Our dataloader threads were scheduled on the other socket.", True),
    ("The process runs on the wrong NUMA node.", True),
    ("GPUs on different NUMA nodes make the all-reduce much slower.", True),
    ("the rank that drives GPU 2 is pinned to the other socket", True),
])
def test_numa_words_tell_placement_from_affinity(text, claimed):
    assert numa_claimed(text) is claimed


# --------------------------------------------------------------------------- a slow setting nobody asks about

def test_slow_setting_is_context_when_no_speed_is_asked():
    r = report("nccl1703.md")
    settings = [f for f in r["findings"] if f["rule"] == "nccl.slow_settings"]
    assert settings and all(f["severity"] == "info" and f["category"] == "other" for f in settings)
    assert r["verdict"]["category"] != "comm_bound"
    assert r["verdict"]["confidence"] < 0.7


@pytest.mark.parametrize("text", [
    # a speed asked about, or a figure given: the setting is the answer
    "all_reduce_perf gives only 20 GB/s busbw on 8 A100s, is that normal?",
    "Training is slow on 8 H100s with this job script.",
])
def test_slow_setting_still_answers_a_speed(text, tmp_path):
    (tmp_path / "issue.md").write_text(f"# Question\n\n{text}\n\n```\nexport NCCL_MAX_NCHANNELS=1\n```\n")
    r = report_json("ticket", str(tmp_path / "issue.md"))
    found = [f for f in r["findings"] if f["rule"] == "nccl.slow_settings"]
    assert found and found[0]["category"] == "comm_bound" and found[0]["severity"] == "warning"


# --------------------------------------------------------------------------- simpleP2P output

def test_simple_p2p_output_is_read():
    records = p2p_test.parse((DATA / "cudasamples284.md").read_text(), "t.md")
    access = [r for r in records if isinstance(r, P2PStatus) and r.capability == "access"]
    assert [(r.a, r.b, r.ok) for r in access] == [(0, 1, True), (1, 0, True)]
    # (p2ptest34) the sample's own verification, 'Test passed', is a copy that arrived
    verified = [r for r in records if isinstance(r, P2PStatus) and r.capability == "transfer"]
    assert [(r.a, r.b, r.ok) for r in verified] == [(0, 1, True)]
    copies = [r for r in records if isinstance(r, PairBandwidth)]
    assert [(c.a, c.b, c.value, c.direction, c.p2p_enabled) for c in copies] == [(0, 1, 19.87, "uni", True)]
    assert {r.name for r in records if isinstance(r, GpuFact)} == {"NVIDIA L4"}


def test_simple_p2p_refusals_and_other_boards():
    # simpleP2P on 4 K80s, two pairs without peer access (tensorflow/tensorflow#2145, 2016-05-01)
    k80 = """[./simpleP2P] - Starting...
Checking for multiple GPUs...
CUDA-capable device count: 4
> GPU0 = "     Tesla K40m" IS  capable of Peer-to-Peer (P2P)

Checking GPU(s) for support of peer to peer memory access...
> Peer access from Tesla K40m (GPU0) -> Tesla K40m (GPU1) : Yes
> Peer access from Tesla K40m (GPU0) -> Tesla K40m (GPU2) : No
> Peer access from Tesla K40m (GPU0) -> Tesla K40m (GPU3) : No
"""
    assert p2p_test.detect(k80) >= 0.7
    records = p2p_test.parse(k80, "k80.txt")
    assert [(r.a, r.b, r.ok) for r in records if isinstance(r, P2PStatus)] == [(0, 1, True), (0, 2, False),
                                                                               (0, 3, False)]
    assert not [r for r in records if isinstance(r, PairBandwidth)]  # no copy line: nothing measured
    # simpleP2P on mixed GeForce boards, 4090 pair only (aikitoria/open-gpu-kernel-modules#5, Panchovix)
    mixed = ("> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 (GPU1) : Yes\n"
             "> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 5090 (GPU2) : No\n"
             "cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 6.13GB/s\n")
    records = p2p_test.parse(mixed, "mixed.txt")
    assert {(r.index, r.name) for r in records if isinstance(r, GpuFact)} == {
        (0, "NVIDIA GeForce RTX 4090"), (1, "NVIDIA GeForce RTX 4090"), (2, "NVIDIA GeForce RTX 5090")}
    assert [r.value for r in records if isinstance(r, PairBandwidth)] == [6.13]
    # prose that names the sample without its output is no artifact
    assert p2p_test.detect("I ran simpleP2P and it says peer access works.") < 0.5


# --------------------------------------------------------------------------- a PCIe link at Gen1 while idle

def test_link_dropping_to_gen1_at_idle_is_power_saving():
    r = report("ogkm1010.md")
    assert r["verdict"]["category"] == "healthy"
    assert any(f["rule"] == "ticket.pcie_words" and f["severity"] == "ok" for f in r["findings"])


@pytest.mark.parametrize("text, degraded, idle", [
    ("The PCIe link drops to Gen1 when idle and comes back to Gen4 under load.", True, True),
    ("nvidia-smi shows the link falls back to 2.5 GT/s while idle", True, True),
    ("Under load the link drops to Gen1 and tokens/s halve.", True, False),
    ("The PCIe link fell back to x8 after the BIOS update.", True, False),
])
def test_link_drop_wordings(text, degraded, idle):
    found = [c for c in claims.claims(said(text)) if c.kind == "pcie_degraded" and not c.negated]
    assert bool(found) is degraded
    if found:
        assert claims.said_idle(found[0].quote) is idle


def test_question_answers_stay():
    # the pastes already answered as their threads did, kept so
    assert report("ogkm731.md")["verdict"]["category"] == "healthy"
    assert report("nccl1362.md")["verdict"]["category"] == "expected_physics"
    assert report("nccl1225.md")["verdict"]["category"] == "healthy"
    assert report("nccl1429.md")["verdict"]["category"] == "healthy"
