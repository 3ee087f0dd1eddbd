"""ACS redirect, IOMMU translation and MIG act on the path the job's GPUs use (issue 11; pass acs31).

ACS redirect sends PCIe peer requests up to the root complex (NCCL troubleshooting, "PCI Access Control Services
(ACS)"); NVLink traffic crosses no PCIe switch. So the real `lspci -vvv` of an RTX 3090 box with ACS redirect on its
bridge (club-3090#1095) names p2p_disabled only beside GPUs that are PCIe peers and a complaint ACS causes; on an
NVLink matrix (DGX A100, dcgm#149), with a one-GPU job or with no complaint it is a note. A MIG GPU the job does not
use (CUDA_VISIBLE_DEVICES) is a note too."""

import shutil
from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.evidence import Workload
from probes import runner
from probes.recording import ReplaySession
from rules.engine import evaluate

DATA = Path(__file__).parent / "data"
LSPCI = DATA / "hardware" / "real" / "lspci_vvv_s_rtx3090_gpu_and_bridge_acs.txt"
PCIE_TOPO = DATA / "hardware" / "real" / "topo_m_2x_rtx5090_phb.txt"
NVLINK_TOPO = DATA / "ut14" / "dcgm149_dgx_a100_topo.txt"
RECORDINGS = Path(__file__).parent / "recordings"


def acs(tmp_path, description, topo=None, gpu=None):
    """The iommu_acs finding of a ticket: the real lspci paste, the reporter's words, a topology matrix, a board."""
    board = f'[hardware]\ngpu = "{gpu}"\ngpu_count = 2\n' if gpu else ""
    (tmp_path / "ticket.toml").write_text(f'description = """{description}"""\n{board}')
    shutil.copy(LSPCI, tmp_path / "lspci.txt")
    if topo:
        shutil.copy(topo, tmp_path / "topo.txt")
    (f,) = [f for f in evaluate(read_bundle([tmp_path])) if f.rule == "host.iommu_acs"]
    return f


@pytest.mark.parametrize("description", [
    "all_reduce_perf hangs at the first collective on our two GPUs and never prints a result row.",
    "Peer-to-peer copies between the two cards are slow, a fraction of the PCIe link rate.",
    pytest.param("Peer-to-peer copies between the two cards crawl at a fraction of the PCIe link rate.",
                 marks=pytest.mark.xfail(strict=True, reason="claims.symptom_quote does not read 'crawl' as slow")),
    "NCCL fails at init with an error as soon as P2P is used between the GPUs.",
])
def test_acs_with_pcie_peers_and_its_symptom_is_p2p_disabled(tmp_path, description):
    f = acs(tmp_path, description, PCIE_TOPO)
    assert (f.category, f.severity, f.confidence) == ("p2p_disabled", "warning", 0.7)


def test_acs_unknown_path_with_a_hang_is_a_note(tmp_path):
    """Neither a matrix nor a board says how the GPUs connect: the hang is not laid on ACS."""
    f = acs(tmp_path, "vLLM with tensor_parallel_size=2 gets stuck at startup and times out.")
    assert (f.category, f.severity) == ("other", "info") and "topo -m" in f.summary


def test_acs_on_a_board_without_nvlink_with_a_hang_is_p2p_disabled(tmp_path):
    """The RTX 4090 has no NVLink (catalog nvlink_gbs = 0): its peers can only be PCIe."""
    f = acs(tmp_path, "vLLM with tensor_parallel_size=2 gets stuck at startup and times out.",
            gpu="NVIDIA GeForce RTX 4090")
    assert (f.category, f.confidence) == ("p2p_disabled", 0.7)


def test_acs_on_an_nvlink_box_is_a_note(tmp_path):
    """Near-miss: the same ACS state beside an all-NV12 matrix; the hang is not ACS's."""
    f = acs(tmp_path, "all_reduce_perf hangs at the first collective on our 8 GPUs.", NVLINK_TOPO)
    assert (f.category, f.severity) == ("other", "info") and "PCIe peers" in f.summary


@pytest.mark.parametrize("description", [
    "The server runs a 7B model on one GPU; throughput is fine, I am only posting the inventory.",
    "No hang, no errors: the two GPUs reach their expected busbw, just sharing the lspci output for reference.",
])
def test_acs_without_its_symptom_is_context(tmp_path, description):
    f = acs(tmp_path, description, PCIE_TOPO)
    assert (f.category, f.severity) == ("other", "info")


def test_acs_alone_is_context():
    (f,) = [f for f in evaluate(read_bundle([LSPCI])) if f.rule == "host.iommu_acs"]
    assert (f.category, f.severity) == ("other", "info")


def test_mig_on_a_gpu_the_job_leaves_out_is_a_note():
    """The replay of a real 2x A100 SXM node with GPU1 in MIG mode: a TP job pinned to GPU0 alone leaves the MIG GPU
    out (a note); pinned to both, GPU1 cannot be its TP peer (the warning test_node_replays checks)."""
    for devices, note in (("0", True), ("0,1", False)):
        facts = runner.run(ReplaySession(RECORDINGS / "2x-a100-sxm-one-gpu-in-mig-mode.json"))
        facts.add(Workload("launch line", cuda_visible_devices=devices))
        (f,) = [f for f in evaluate(facts) if f.rule == "topology.mig_gpus"]
        assert ((f.category, f.severity) == ("other", "info")) == note, (devices, f.title)
