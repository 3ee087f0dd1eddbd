"""NCCL's SHM transport (no PCIe peer-to-peer) priced from the host: a share of what the host moves from one GPU to
another through its memory (rules.collectives.shm_busbw_gbs), the host's own copy figure where a source states it,
else estimated from the PCIe generation of each GPU's link to host memory (the lower of the GPU's and the host CPU's,
rules/catalog/host_memory.toml pcie_gen; Gen3 where the CPU is not named)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from diagnose import published
from diagnose.errors import InputError
from rules import catalog, collectives

COLLECTIVES = Path(__file__).parent / "data" / "collectives"


def _rows(name: str) -> list[published.CollectiveRow]:
    return published.read_collectives(COLLECTIVES / name)


def _busbw(row: published.CollectiveRow, time_us: float) -> float:
    return collectives.ring_bus_factor(row.gpus) * row.size_bytes / time_us / 1e3


def test_shm_is_the_same_share_of_the_hosts_copy_on_a_gen3_host_and_on_genoa():
    """Two hosts whose sources state both figures: the AutoDL RTX 2080 Ti pair (PCIe Gen3, fit;
    https://github.com/Anthony-Hoo/Anthony-Hoo.github.io/blob/37e805e8e56f839f6557756d76503d45af6ab47e/posts/AutoDL_Multi-GPU_Interconnection_Test.md:
    p2pBandwidthLatencyTest 5.7 GB/s without peer access, all_reduce 4.00 GB/s busbw) and four RTX 5090 on an EPYC
    Genoa host (validation; https://github.com/NVIDIA/nccl-tests/issues/287: 38.24 / 38.92 GB/s, 27.26 GB/s busbw).
    The share was taken from the fit host alone (4.00 / 5.7); the Genoa host, at 6.8x the copy rate, lands within 2 %
    of its own plateau, where the one host constant before was 10x too slow."""
    gen3 = max(_rows("nccltests-rtx2080ti-2gpu-autodl-nop2p.csv"), key=lambda r: r.size_bytes)
    genoa = max(_rows("nccltests-rtx5090-4gpu-genoa-nop2p-issue287.csv"), key=lambda r: r.size_bytes)
    assert (gen3.host_copy_gbs, genoa.host_copy_gbs, genoa.host_cpu) == (5.7, 38.6, "EPYC Genoa")
    assert _busbw(gen3, gen3.time_us) / gen3.host_copy_gbs == pytest.approx(
        _busbw(genoa, genoa.time_us) / genoa.host_copy_gbs, abs=0.01)
    for row in (gen3, genoa):
        assert published.expect_collective(row)[0] == pytest.approx(row.time_us, rel=0.02)


def test_the_hosts_pcie_generation_sets_the_figure_where_it_states_no_copy():
    """Four A100 of a DGX A100 with NCCL_P2P_DISABLE=1 (validation; two EPYC 7742, PCIe Gen4:
    https://github.com/eugenesiow/LLM-Insights/blob/9fd76e3c199b180118f43a125d5d73b87ec79bcc/infrastructure/hardware/README.md)
    move 5.20 GB/s busbw: the Gen4 host's estimate (twice a Gen3 host's) is within 2 % of it, and the same table with
    its host left unnamed is priced at a Gen3 host's figure, half of it."""
    row = max(_rows("nccltests-a100-dgx-4gpu-nop2p-llminsights.csv"), key=lambda r: r.size_bytes)
    assert (row.host_cpu, row.host_copy_gbs) == ("AMD EPYC 7742", 0.0)
    expected = published.expect_collective(row)[0]
    assert expected == pytest.approx(row.time_us, rel=0.02)
    unnamed = published.expect_collective(dataclasses.replace(row, host_cpu=""))[0]
    assert unnamed / expected == pytest.approx(2.0, rel=0.01)


def test_the_slower_of_the_gpus_link_and_the_hosts_bounds_it():
    """A Gen3 GPU on a Gen5 host moves no more than a Gen3 host gives it; a copy figure above the link's achieved
    rate is capped at that rate; half the lanes (x8) half the bytes."""
    gen3, gen5 = catalog.interconnect("pcie3"), catalog.interconnect("pcie5")
    assert collectives.shm_busbw_gbs(gen3, host_cpu="AMD EPYC 9654") == collectives.shm_busbw_gbs(gen3)
    assert collectives.shm_busbw_gbs(gen5, host_cpu="AMD EPYC 9654") == pytest.approx(
        4 * collectives.shm_busbw_gbs(gen5))
    assert collectives.shm_busbw_gbs(gen3, copy_gbs=100.0) == gen3.achieved_gbs
    x8 = catalog.interconnect("pcie3-x8")
    assert collectives.shm_busbw_gbs(x8) == pytest.approx(collectives.shm_busbw_gbs(gen3) / 2)


def test_a_link_keeps_its_width_at_the_hosts_generation():
    """A link trains at the highest generation both ends support and keeps its lanes: a Gen4 x8 card (RTX 4060 Ti) on
    a Gen3 host runs Gen3 x8 (7.9 GB/s a direction), half a Gen3 x16, not the Gen3 x16 rate its own 15.75 GB/s
    equals; on a Gen4 host (EPYC 7742) Gen4 x8. A Gen5 x8 card (RTX 5060 Ti) on a Gen4 host: Gen4 x8."""
    gen4_x8, gen5_x8 = catalog.interconnect("pcie4-x8"), catalog.interconnect("pcie5-x8")
    assert collectives.link_to_host_gbs(gen4_x8) == pytest.approx(7.875)
    assert collectives.link_to_host_gbs(gen4_x8, "AMD EPYC 7742") == pytest.approx(15.75)
    assert collectives.link_to_host_gbs(gen5_x8, "AMD EPYC 7742") == pytest.approx(15.75)
    assert collectives.link_to_host_gbs(gen5_x8, "EPYC 9654") == pytest.approx(31.5)
    gen3_x8 = catalog.interconnect("pcie3-x8")
    assert collectives.shm_busbw_gbs(gen4_x8) == pytest.approx(collectives.shm_busbw_gbs(gen3_x8))
    # the width NVML reads on a slot (rules.nccl's ring fabric: the card's generation at its lanes/16 of the rate)
    x4 = dataclasses.replace(catalog.interconnect("pcie4"), bandwidth_gbs=31.5 / 4, achieved_gbs=24.5 / 4)
    assert collectives.link_to_host_gbs(x4) == pytest.approx(15.75 / 4)


@pytest.mark.parametrize("cpu, gbs", [
    ("AMD EPYC 7742", 31.5),            # Rome: PCIe 4.0
    ("EPYC 7763", 31.5),                # Milan
    ("AMD EPYC Genoa", 63.0),           # a reporter naming the family, not the model
    ("EPYC 9654", 63.0),
    ("Intel Xeon Gold 6248", 15.75),    # Cascade Lake-SP: PCIe 3.0
    ("Xeon Platinum 8480+", 63.0),      # Sapphire Rapids: PCIe 5.0
    ("Xeon Gold 6338", 31.5),           # Ice Lake-SP: PCIe 4.0
    ("Threadripper PRO 5975WX", 31.5),
    # not known: Gen3
    ("", 15.75),
    ("Genoa", 15.75),                   # a codename alone names no EPYC
    ("AMD Ryzen 9 5950X", 15.75),       # AM4: Gen3 or Gen4 by model, the family row states none
    ("a dual-socket server", 15.75),
])
def test_host_link_by_cpu_family(cpu, gbs):
    assert collectives.host_link_gbs(cpu) == gbs


def test_a_host_copy_line_states_a_rate(tmp_path):
    header = "implementation,gpu,fabric,gpus,nodes,size_bytes,time_us,busbw_gbs,graph,p2p\n"
    row = "nccl,rtx-4090,pcie4,2,1,1073741824,400000,2.68,no,no\n"
    good = tmp_path / "good.csv"
    good.write_text("# Host: Xeon Gold 6248 - the source's lscpu\n# Host-copy: 6.1 GB/s - p2pBandwidthLatencyTest\n"
                    + header + row)
    assert [(r.host_cpu, r.host_copy_gbs) for r in published.read_collectives(good)] == [("Xeon Gold 6248", 6.1)]
    bad = tmp_path / "bad.csv"
    bad.write_text("# Host-copy: fast - the source's words\n" + header + row)
    with pytest.raises(InputError, match="Host-copy"):
        published.read_collectives(bad)


def test_every_shm_table_stays_above_its_floor():
    """The roofline (line rate, one hop) stays below every measured all-reduce that ran over SHM."""
    names = [p.name for p in COLLECTIVES.glob("*nop2p*.csv")] + [p.name for p in COLLECTIVES.glob("*kalavai*.csv")]
    assert len(names) == 9
    for name in names:
        for row in _rows(name):
            assert published.expect_collective(row)[1] < row.time_us, row.source
