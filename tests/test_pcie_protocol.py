"""NCCL's protocol over PCIe (rules.collectives.pcie_protocol): LL or Simple, as NCCL's own tuner picks them
(src/graph/tuning.cc: ring base latency LL 6.6 / Simple 8.4 us, PCI step LL 1.0 / Simple 5.7 us, LL at half the
bandwidth; LL128 needs NVLink), with the ring bandwidth NCCL's topology search settles on; and SHM's bandwidth,
which the host's memory path sets, not the link. Checked by hand and against the published all-reduce tables."""

from pathlib import Path

import pytest

from diagnose import published
from rules import catalog, collectives

COLLECTIVES = Path(__file__).parent / "data" / "collectives"


def test_the_switch_point_worked_by_hand():
    """8 ranks over PCIe Gen4, topology unknown: NCCL counts the link at 24 GB/s (topo.cc, 2 x PCI_BW), so its ring
    moves 24 x 8/14 = 13.71 GB/s of algorithm bandwidth. Simple costs 8.4 + 14 x 5.7 - (6.6 + 14 x 1.0) = 67.6 us
    more latency and LL twice the time per byte, so they tie where S / 13,714 B/us = 67.6 us: S = 927,086 bytes."""
    ic = catalog.interconnect("pcie4")
    assert collectives.nccl_ring_gbs(ic) == pytest.approx(24.0)
    assert collectives.pcie_protocol(ic, 8, 920_000) == "LL"
    assert collectives.pcie_protocol(ic, 8, 935_000) == "Simple"
    # two ranks: 1.8 + 2 x 4.7 = 11.2 us at 24 GB/s x 2/2: 268,800 bytes
    assert collectives.pcie_protocol(ic, 2, 265_000) == "LL" and collectives.pcie_protocol(ic, 2, 272_000) == "Simple"
    assert collectives.nccl(ic, 8, 16384).protocol == "LL" and collectives.nccl(ic, 8, 64 << 20).protocol == "Simple"


def test_a_blackwell_ring_across_amd_sockets_falls_back_where_the_measured_one_jumps():
    """8 RTX 5090 on two EPYC 9575F sockets (aikitoria's nccl-tests log): NCCL counts the socket link at AMD_BW = 16
    GB/s, below the slowest speed its search tries for compute capability 10.0 and up (18 GB/s, search.cc), so the
    ring falls back to 0.1 GB/s and the tuner takes Simple from 3,863 bytes (67.6 us x 100 B/us x 8/14). The
    measured time jumps by half between 2 KB and 4 KB, where the model switches; an Ada board (compute capability
    8.9, search floor 3 GB/s) on the same host keeps LL up to 618 KB (67.6 x 16,000 x 8/14)."""
    rows = {r.size_bytes: r for r in published.read_collectives(COLLECTIVES / "nccltests-rtx5090-8gpu-p2p-patched.csv")}
    ic = catalog.interconnect("pcie5")
    gpu = catalog.gpu("rtx-5090")
    assert (rows[2048].path, rows[2048].cpu, gpu.compute_capability) == ("sys", "amd", 12.0)
    assert rows[4096].time_us / rows[2048].time_us > 1.4
    assert collectives.nccl_ring_gbs(ic, path="sys", cpu="amd", cc=12.0) == pytest.approx(0.1)
    picked = [collectives.pcie_protocol(ic, 8, s, path="sys", cpu="amd", cc=12.0) for s in (2048, 4096)]
    assert picked == ["LL", "Simple"]
    assert collectives.nccl_ring_gbs(ic, path="sys", cpu="amd", cc=8.9) == pytest.approx(16.0)
    assert collectives.pcie_protocol(ic, 8, 600_000, path="sys", cpu="amd", cc=8.9) == "LL"
    assert collectives.pcie_protocol(ic, 8, 640_000, path="sys", cpu="amd", cc=8.9) == "Simple"
    # an Intel Sapphire Rapids host counts its UPI at 22 GB/s (topo.h SRP_QPI_BW): above Blackwell's floor, no fallback
    assert collectives.nccl_ring_gbs(ic, path="sys", cpu="intel-srp", cc=12.0) == pytest.approx(22.0)


def test_the_same_fallback_explains_the_dual_turin_rtx_pro_6000_table():
    """The RTX PRO 6000 table (voipmonitor/rtx6kpro nccl-tuning.md) says NCCL's search gave 'Bandwidth estimate
    0.1 GB/s' and 'Small message protocol SIMPLE' on two Turin sockets: the model runs Simple there too, and its
    expected times sit within 10 % of the four measured ones (32-256 KB, 48-56 us)."""
    for row in published.read_collectives(COLLECTIVES / "nccl-rtxpro6000-8gpu-dual-turin-default-graph.csv"):
        gpu = catalog.gpu(row.gpu)
        t = collectives.nccl(catalog.interconnect(row.fabric), 8, row.size_bytes, graphs=False, path=row.path,
                             cpu=row.cpu, cc=gpu.compute_capability)
        assert t.protocol == "Simple"
        assert published.expect_collective(row)[0] == pytest.approx(row.time_us, rel=0.10)


def test_shm_moves_what_the_host_moves_not_what_the_link_does():
    """Without peer-to-peer NCCL stages every step through host memory: a PCIe Gen3 pair of RTX 2080 Ti plateaus at
    4.0 GB/s busbw and four RTX 4090 with Gen4 links at 2.57 GB/s, not at twice as much on the faster link. On a host
    that names no CPU both links are priced at a Gen3 host's root ports (collectives.host_link_gbs), so the model's SHM
    bandwidth is one figure for both (capped at the link's achieved rate), within x1.6 of both plateaus."""
    c = catalog.calibration().nccl
    gen3, gen4 = catalog.interconnect("pcie3"), catalog.interconnect("pcie4")
    simple3 = collectives._pcie_step(gen3, c, False, "Simple")[1]
    simple4 = collectives._pcie_step(gen4, c, False, "Simple")[1]
    shm = collectives.shm_busbw_gbs(gen3)
    assert simple3 == simple4 == shm * 1e3 and shm < gen3.achieved_gbs
    plateaus = []
    for name in ("nccltests-rtx2080ti-2gpu-autodl-nop2p.csv", "nccltests-rtx4090-4gpu-kalavai-docker.csv"):
        big = max(published.read_collectives(COLLECTIVES / name), key=lambda r: r.size_bytes)
        plateaus.append(big.size_bytes * collectives.ring_bus_factor(big.gpus) / big.time_us / 1e3)
    assert plateaus == pytest.approx([4.0, 2.57], abs=0.03)
    assert all(1 / 1.6 < shm / p < 1.6 for p in plateaus)


def test_every_third_new_table_is_kept_for_validation_and_never_fitted():
    """The s14 PCIe tables were numbered as they were collected, every third kept aside before any fit; the fit reads
    only the fit tables' points (scripts/fit_predictor.py collective_points)."""
    import importlib.util
    import sys

    numbered = {}
    for path in COLLECTIVES.glob("*.csv"):
        for line in path.read_text().splitlines():
            if line.startswith("# Collection: s14 PCIe set, new file "):
                numbered[int(line.split("new file ")[1].split()[0])] = path
    assert sorted(numbered) == list(range(1, len(numbered) + 1)) and len(numbered) >= 6
    for n, path in numbered.items():
        assert {r.split for r in published.read_collectives(path)} == {"validation" if n % 3 == 0 else "fit"}, path
    spec = importlib.util.spec_from_file_location("fit_predictor", Path(__file__).parent.parent / "scripts"
                                                  / "fit_predictor.py")
    fitter = importlib.util.module_from_spec(spec)
    sys.modules["fit_predictor"] = fitter
    try:
        spec.loader.exec_module(fitter)
        fitted = {p.source.split(":")[0] for p, _ in fitter.collective_points()}
    finally:
        sys.modules.pop("fit_predictor", None)
    assert fitted and not fitted & {p.name for n, p in numbered.items() if n % 3 == 0}
    assert {p.name for n, p in numbered.items() if n % 3} <= fitted
