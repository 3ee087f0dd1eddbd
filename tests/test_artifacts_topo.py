"""nvidia-smi topo -m / topo -p2p parser on the real ticket attachments and pasted variants.

STAND-IN: tests/data/hardware/topo_p2p_and_nvlink_e.txt was written by hand after real output.
Real public `topo -p2p rw` and `topo -m` pastes are tested in test_artifacts_real_public.py.
"""

from pathlib import Path

from conftest import shared_path

from diagnose.artifacts import topo
from diagnose.evidence import GpuFact, Note, P2PStatus, TopologyPath

DATA = Path(__file__).parent / "data" / "hardware"


def _ticket(folder, name="attachment1.txt"):
    return shared_path("tickets", folder, name).read_text()


def _paths(records):
    return {frozenset((r.a, r.b)): r for r in records if isinstance(r, TopologyPath)}


def _gpus(records):
    return {r.index: r for r in records if isinstance(r, GpuFact)}


def test_dgx_a100_with_mlx_columns():
    text = _ticket("032-nccl-tests-152-a100-nv-peer-mem-not-loaded")
    assert topo.detect(text) > 0.9
    records = topo.parse(text, "a1.txt")
    paths = _paths(records)
    assert paths[frozenset(("GPU3", "GPU5"))].path == "NV12"
    assert paths[frozenset(("GPU3", "GPU5"))].nvlinks == 12
    assert paths[frozenset(("GPU0", "mlx5_1"))].path == "PXB"
    assert paths[frozenset(("GPU2", "mlx5_3"))].path == "PXB"
    assert paths[frozenset(("GPU4", "mlx5_0"))].path == "SYS"
    assert paths[frozenset(("GPU0", "mlx5_0"))].source == "a1.txt:2"
    # The paste stops at GPU5: GPU6/GPU7 pairs come only from the columns of rows 0-5.
    assert frozenset(("GPU6", "mlx5_0")) not in paths
    assert paths[frozenset(("GPU5", "GPU7"))].path == "NV12"
    gpus = _gpus(records)
    assert sorted(gpus) == [0, 1, 2, 3, 4, 5]
    assert (gpus[2].cpu_affinity, gpus[2].numa_node) == ("8-15", 1)
    assert (gpus[4].cpu_affinity, gpus[4].numa_node, gpus[4].source) == ("56-63", 7, "a1.txt:6")


def test_dgx1_v100_hybrid_cube_mesh_and_cut_affinity():
    records = topo.parse(_ticket("033-nccl-tests-29-dgx1-v100-gdr-enabled-doubled"), "t")
    paths = _paths(records)
    assert paths[frozenset(("GPU0", "GPU3"))].path == "NV1"
    assert paths[frozenset(("GPU0", "GPU1"))].path == "NV2"
    assert paths[frozenset(("GPU0", "GPU5"))].path == "SYS"
    assert paths[frozenset(("GPU2", "mlx5_0"))].path == "PIX"
    assert paths[frozenset(("GPU0", "mlx5_0"))].path == "NODE"
    gpus = _gpus(records)
    assert gpus[4].cpu_affinity == "24-47,72-95"
    assert gpus[7].cpu_affinity is None  # '24-47,...' was cut: not invented


def test_dgx_h100_nic_columns_fused_cells_and_prompt():
    text = _ticket("080-vllm-13855-dgx-h100-pin-vllm-to-numa-region")
    records = topo.parse(text, "t")
    paths = _paths(records)
    assert paths[frozenset(("GPU0", "GPU7"))].path == "NV18"
    # header 'NIC8NIC9' and cells 'NODEPXB' were fused by lost tabs
    assert paths[frozenset(("GPU5", "NIC9"))].path == "PXB"
    assert paths[frozenset(("GPU5", "NIC8"))].path == "NODE"
    assert paths[frozenset(("GPU6", "NIC10"))].path == "PXB"
    assert paths[frozenset(("GPU7", "NIC11"))].path == "PXB"
    assert paths[frozenset(("GPU0", "NIC0"))].path == "PXB"
    gpus = _gpus(records)
    assert (gpus[0].cpu_affinity, gpus[0].numa_node) == ("0-55,112-167", 0)
    assert (gpus[5].cpu_affinity, gpus[5].numa_node) == ("56-111,168-223", 1)


def test_two_gpu_bridge_without_leading_tab():
    records = topo.parse(_ticket("013-nccl-557-2gpu-nvlink-bridge-hang-slow-nvml"), "t")
    paths = _paths(records)
    assert list(paths) == [frozenset(("GPU0", "GPU1"))]
    assert paths[frozenset(("GPU0", "GPU1"))].nvlinks == 3
    gpus = _gpus(records)
    assert gpus[0].cpu_affinity == "0-47" and gpus[0].numa_node is None  # NUMA Affinity N/A


def test_hand_grouped_header_expands_to_gpus():
    records = topo.parse(_ticket("044-nccl-371-v100-ib-278-slower-than-256-gdr-read"), "t")
    paths = _paths(records)
    assert paths[frozenset(("GPU1", "GPU6"))].path == "PHB"
    assert paths[frozenset(("GPU3", "mlx5_0"))].path == "PIX"
    assert paths[frozenset(("GPU5", "mlx5_0"))].path == "PHB"
    assert frozenset(("GPU0", "GPU1")) not in paths  # inside a group: not shown, not invented


def test_variants_prompt_rank_prefix_spaces_crlf_ansi():
    text = _ticket("032-nccl-tests-152-a100-nv-peer-mem-not-loaded")
    base = _paths(topo.parse(text, "t"))
    lines = text.splitlines()
    variants = {
        "prompt": "root@gpu32:~# nvidia-smi topo -m\n" + text,
        "ranks": "\n".join(f"[1,0]<stdout>:{line}" for line in lines),
        "spaces": text.replace("\t", "    "),
        "crlf": text.replace("\n", "\r\n"),
        "ansi": "\x1b[1m" + text.replace("NV12", "\x1b[32mNV12\x1b[0m"),
        "fused": text.replace("\tNV12\tNV12", "\tNV12NV12").replace("SYS\t24-31", "SYS24-31"),
    }
    for label, variant in variants.items():
        records = topo.parse(variant, "t")
        got = {k: v.path for k, v in _paths(records).items()}
        assert got == {k: v.path for k, v in base.items()}, label
        assert _gpus(records)[0].cpu_affinity == "24-31", label


def test_cut_table_parses_what_is_there():
    text = _ticket("033-nccl-tests-29-dgx1-v100-gdr-enabled-doubled")
    lines = text.splitlines()
    cut_rows = "\n".join(lines[:3])  # header + GPU0 + GPU1
    paths = _paths(topo.parse(cut_rows, "t"))
    assert paths[frozenset(("GPU1", "GPU5"))].path == "NV1"
    assert frozenset(("GPU2", "GPU6")) not in paths
    cut_columns = "\n".join(line[:40] for line in lines)  # right-hand columns lost
    paths = _paths(topo.parse(cut_columns, "t"))
    assert paths[frozenset(("GPU0", "GPU3"))].path == "NV1"
    assert not any("mlx5_0" in k for k in paths)


def test_topo_p2p_matrix_with_capability_from_command():
    records = topo.parse((DATA / "topo_p2p_and_nvlink_e.txt").read_text(), "p2p.txt")
    status = {(r.a, r.b): r for r in records if isinstance(r, P2PStatus)}
    assert status[(0, 1)].ok and status[(0, 1)].capability == "read"
    assert status[(0, 3)].status == "CNS" and not status[(0, 3)].ok
    assert status[(2, 3)].source == "p2p.txt:5"
    assert not any(isinstance(r, TopologyPath) for r in records)


def test_nic_legend_names_the_nics():
    text = (
        "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
        "GPU0\t X \tNV18\tPIX\tSYS\t0-47\t0\t\tN/A\n"
        "GPU1\tNV18\t X \tSYS\tPIX\t48-95\t1\t\tN/A\n"
        "NIC0\tPIX\tSYS\t X \tSYS\n"
        "NIC1\tSYS\tPIX\tSYS\t X \n\n"
        "Legend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n\n"
        "NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_bond_1\n"
    )
    records = topo.parse(text, "t")
    paths = _paths(records)
    assert paths[frozenset(("GPU1", "mlx5_bond_1"))].path == "PIX"
    assert paths[frozenset(("mlx5_0", "mlx5_bond_1"))].path == "SYS"
    legend = [r for r in records if isinstance(r, Note)][0]
    assert legend.data == {"NIC0": "mlx5_0", "NIC1": "mlx5_bond_1"} and legend.source == "t:14"
    assert _gpus(records)[1].numa_node == 1


def test_unrelated_text_is_not_a_topology():
    assert topo.detect(_ticket("022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower", "attachment2.txt")) == 0
    assert topo.parse("GPU0 GPU1\nhello world\n", "t") == []


def test_nic_rows_alone_still_put_the_gpu_first():
    lines = _ticket("080-vllm-13855-dgx-h100-pin-vllm-to-numa-region").splitlines()
    header, nic0 = lines[2], lines[11]
    assert nic0.startswith("NIC0")
    paths = [r for r in topo.parse(header + "\n" + nic0, "t") if isinstance(r, TopologyPath)]
    by_pair = {(p.a, p.b): p.path for p in paths}
    assert by_pair[("GPU0", "NIC0")] == "PXB" and by_pair[("GPU4", "NIC0")] == "SYS"
    assert by_pair[("NIC0", "NIC1")] == "NODE"


def test_mangled_cells_and_labels_give_no_record_rather_than_a_crash():
    """Found by the fuzz test: a doubled 'NVNV12' cell or a 'GPUNV12' label once raised ValueError."""
    text = "\tGPU0\tGPU1\nGPU0\t X \tNVNV12\nGPU1\tNV12\t X \n"
    paths = _paths(topo.parse(text, "m.txt"))
    assert all(r.path != "NVNV12" for r in paths.values())
    sane = _paths(topo.parse(text.replace("NVNV12", "NV12"), "m.txt"))
    assert sane[frozenset(("GPU0", "GPU1"))].nvlinks == 12
    p2p = "$ nvidia-smi topo -p2p r\n\tGPU0\tGPUNV12\nGPU0\tX\tOK\nGPUNV12\tOK\tX\n"
    assert not [r for r in topo.parse(p2p, "p.txt") if isinstance(r, P2PStatus)]
