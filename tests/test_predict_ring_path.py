"""predict prices a TP all-reduce over PCIe with what NCCL's tuner sees there: the GPU's compute capability (from its
catalog row) and, where the caller knows them, the ring's worst link and the CPUs' link across sockets
(rules.collectives.nccl_ring_gbs). Before, only the all-reduce tables' reader (diagnose.published) passed them, so
predict never met the sockets cap nor Blackwell's 0.1 GB/s fallback.

Sources: NVIDIA/nccl src/graph/topo.h (AMD_BW 16 GB/s between AMD sockets, Intel ERP 40), src/graph/search.cc
(sm100SpeedArrayIntra's slowest speed 18 GB/s for compute capability 10.0 and up; speedArrayIntra's 3 GB/s below;
no speed fits: bwIntra 0.1 GB/s), src/graph/tuning.cc (LL at half the bandwidth),
https://github.com/NVIDIA/nccl/tree/master/src/graph.
"""

import pytest

from rules import catalog, roofline


def decode_allreduce_us(gpu: str, path: str = "", cpu: str = "") -> float:
    p = roofline.predict(catalog.model("llama-3-8b"), catalog.gpu(gpu), roofline.Layout(tp=4), batch=1,
                         ring_path=path, ring_cpu=cpu)
    return p.allreduce_us_expected


def test_blackwell_ring_across_amd_sockets_takes_simple():
    """Worked example: 4x RTX PRO 6000 Blackwell (cc 12.0) on PCIe Gen5 (45 GB/s achieved), Llama 3 8B decoding one
    token: an 8,192-byte all-reduce from a CUDA graph. NCCL counts the link at 12 x 63 / 15.75 = 48 GB/s; across AMD
    sockets the ring is capped at 16 GB/s, under Blackwell's 18 GB/s search floor, so the search falls back to
    0.1 GB/s and the tuner takes Simple: 6.98 + 6 x 2.36 + 1.5 x 8192 / 45,000 = 21.41 us. In one socket (no path
    known) LL: 6.98 + 6 x 1.42 + 1.5 x 8192 / (45,000 x 0.719) = 15.88 us."""
    assert decode_allreduce_us("rtx-pro-6000-blackwell") == pytest.approx(15.88, abs=0.01)
    assert decode_allreduce_us("rtx-pro-6000-blackwell", "sys", "amd") == pytest.approx(21.41, abs=0.01)


@pytest.mark.parametrize("gpu, path, cpu", [
    ("rtx-pro-6000-blackwell", "sys", "intel-erp"),  # Emerald Rapids' 40 GB/s link clears the 18 GB/s floor
    ("rtx-pro-6000-blackwell", "pxb", "amd"),  # the ring stays behind one switch: the sockets' link is not crossed
    ("l40s", "sys", "amd"),  # Ada (cc 8.9): the search tries down to 3 GB/s, 16 GB/s fits
])
def test_no_fallback_where_the_ring_fits(gpu, path, cpu):
    assert decode_allreduce_us(gpu, path, cpu) == decode_allreduce_us(gpu)


TOPOLOGY = """$ nvidia-smi topo -m
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity
GPU0     X      NODE    SYS     SYS     0-63    0
GPU1    NODE     X      SYS     SYS     0-63    0
GPU2    SYS     SYS      X      NODE    64-127  1
GPU3    SYS     SYS     NODE     X      64-127  1
"""


def ticket_band(tmp_path, cpu: str, topology: bool = True) -> str:
    import re

    from conftest import diagnose

    (tmp_path / "issue.md").write_text(
        "# Slow decode with TP=4 on RTX PRO 6000\n\nRunning vLLM with Llama-3.1-8B-Instruct, tensor-parallel-size 4, "
        f"on 4x RTX PRO 6000 Blackwell in a server with two {cpu} CPUs. Decode at batch 1 gives 150 tok/s. "
        "Is this normal?\n")
    if topology:
        (tmp_path / "topo.txt").write_text(TOPOLOGY)
    result = diagnose("ticket", tmp_path, "--json")
    assert result.exit_code == 0
    return re.search(r"expected (\d+-\d+)\)", result.output).group(1)


def expected_band(path: str, cpu: str) -> str:
    """The tok/s band a ticket should print for this route: of the vLLM releases that run this Blackwell board
    (engines.toml max_cc), the slowest one's rate / calibration.toml [band] high to the fastest one's / [band] low."""
    low, high = catalog.calibration().band
    gpu = catalog.gpu("rtx-pro-6000-blackwell")
    steps = [roofline.predict(catalog.model("llama-3.1-8b"), gpu, roofline.Layout(tp=4), batch=1, engine=e,
                              ring_path=path, ring_cpu=cpu).decode_step_ms_expected
             for e in catalog.release_candidates("vLLM") if not e.max_cc or gpu.compute_capability <= e.max_cc]
    return f"{1000 / (max(steps) * high):.0f}-{1000 / (min(steps) * low):.0f}"


@pytest.mark.parametrize("cpu, topology, path, cpu_class", [
    ("AMD EPYC 9575F", True, "sys", "amd"),  # the ring crosses the sockets (SYS) over AMD's 16 GB/s: Simple, slower
    ("Intel Xeon Platinum 8592+", True, "sys", "intel-erp"),  # Emerald Rapids' 40 GB/s: LL as in one socket
    ("AMD EPYC 9575F", False, "", ""),  # no topology: the path is unknown, as before
])
def test_ticket_reads_the_ring_route_from_its_topology_and_cpu(tmp_path, cpu, topology, path, cpu_class):
    """The ticket's expected decode band takes the route its own evidence shows (rules.topology.ring_route): the
    topology matrix's worst path between GPUs 0-3 and the CPU the reporter names (host_memory.toml family ->
    collectives.cpu_class). The edges are derived from calibration.toml [band] (92 and 96 tok/s slow edges under
    x1.26, 86 and 90 under session 16's x1.354), so a band refit does not rewrite them; the route is what moves them."""
    assert ticket_band(tmp_path, cpu, topology) == expected_band(path, cpu_class)


def test_the_amd_socket_crossing_is_the_slower_route():
    (amd_slow, amd_fast), (one_slow, one_fast) = (map(int, expected_band(*r).split("-")) for r in (("sys", "amd"),
                                                                                                    ("", "")))
    assert amd_slow < one_slow and amd_fast < one_fast
    assert expected_band("sys", "intel-erp") == expected_band("", "")
