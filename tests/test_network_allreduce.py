"""An all-reduce across nodes (rules.collectives.network): NCCL's own tuner model (src/graph/tuning.cc @ 5067397 of
https://github.com/NVIDIA/nccl), checked by hand, against what NCCL's maintainers state, and against the published
multi-node nccl-tests tables in tests/data/collectives."""

from pathlib import Path

import pytest

from diagnose import published
from rules import catalog, collectives

COLLECTIVES = Path(__file__).parent / "data" / "collectives"
GIB = 1 << 30


def busbw(nranks: int, size: float, us: float) -> float:
    """nccl-tests' bus bandwidth (GB/s): algbw x 2(n-1)/n."""
    return size / us / 1e3 * 2 * (nranks - 1) / nranks


def test_a_ring_across_dgx_a100_nodes_moves_the_nodes_nics_line_rate():
    """'On an Nvidia DGX-A100 system we have 8x200Gbit/s IB cards and we measure 192GB/s AllReduce BusBW' (AddyLaddy,
    https://github.com/NVIDIA/nccl/issues/812): a ring's busbw is the node's NICs together, whatever the node count,
    not one NIC's share of a hierarchical reduction (the old model's 357 GB/s at 2 nodes, 246 at 4)."""
    hdr = catalog.interconnect("ib-hdr")
    for nodes in (2, 4, 8):
        t = collectives.nccl(hdr, 8 * nodes, 8 * GIB, nodes=nodes, only="ring")
        assert busbw(8 * nodes, 8 * GIB, t.us) == pytest.approx(192, rel=0.03)
    # NDR doubles it: 46-48 GB/s per NIC (AddyLaddy, https://github.com/NVIDIA/nccl-tests/issues/290)
    t = collectives.nccl(catalog.interconnect("ib-ndr"), 32, 8 * GIB, nodes=4, only="ring")
    assert 8 * 46 <= busbw(32, 8 * GIB, t.us) <= 8 * 48


def test_two_nodes_run_the_tree_past_the_nics_and_more_nodes_do_not():
    """'On two nodes, NCCL uses the tree (or nvlstree) algorithm which can indeed go beyond the network bottleneck'
    (sjeaugey, https://github.com/NVIDIA/nccl-tests/issues/196); 'As you scale out beyond two nodes, the same effect
    will not be present' (AddyLaddy, nccl issue 812). tuning.cc takes bwIntra for a 2-node tree, which search.cc
    raises to twice bwInter; beyond two nodes a tree moves 0.92 x 0.5 of the NICs' rate and the ring wins."""
    hdr = catalog.interconnect("ib-hdr")
    two = collectives.nccl(hdr, 16, 8 * GIB, nodes=2)
    assert two.impl == "NCCL tree" and busbw(16, 8 * GIB, two.us) > 1.5 * 192
    four = collectives.nccl(hdr, 32, 8 * GIB, nodes=4)
    assert four.impl == "NCCL ring" and busbw(32, 8 * GIB, four.us) <= 192


def test_small_messages_take_the_tree_with_ll_as_the_tuner_does():
    """tuning.cc's latencies, by hand, for 4 nodes x 8 GPUs on an Intel host: the LL tree costs 6.8 + 2 x (7 x 0.6 +
    2 x 5.0) = 35.2 us; the LL ring 6.6 + 56 x max(0.6, 1.0 network overhead) + 6 x 2.7 = 78.8 us, and 2 us of
    overhead per step on an AMD host (getNetOverhead) makes it 134.8 us."""
    hdr = catalog.interconnect("ib-hdr")
    assert collectives.net_tuner_us(hdr, 32, 0, 4, "tree", "LL") == pytest.approx(35.2)
    assert collectives.net_tuner_us(hdr, 32, 0, 4, "ring", "LL") == pytest.approx(78.8)
    assert collectives.net_tuner_us(hdr, 32, 0, 4, "ring", "LL", cpu="amd") == pytest.approx(134.8)
    small = collectives.nccl(hdr, 32, 4096, nodes=4)
    assert (small.impl, small.protocol) == ("NCCL tree", "LL")
    assert collectives.nccl(hdr, 32, 4096, nodes=4, only="ring").impl == "NCCL ring"


def test_the_published_two_node_tables_by_size():
    """Lambda's 2 x 8 B200 table (dstack docs): 8 B-128 KB sit near the small-message latency, the largest sizes
    at the 2-node tree's bandwidth; the H20 2 x 8 table's 4-512 B rows at its latency. Within the all-reduce band."""
    lo, hi = catalog.calibration().allreduce_band
    for name in ("nccltests-b200-lambda-2x8-ib.csv", "nccltests-h20-2x8-nvlstree-issue1244-partial.csv"):
        for row in published.read_collectives(COLLECTIVES / name):
            if row.size_bytes <= 128 << 10 or row.size_bytes >= GIB:
                expected, roof = published.expect_collective(row)
                assert lo <= row.time_us / expected <= hi, row.source
                assert roof < row.time_us


def test_the_roofline_stays_below_every_multi_node_measurement():
    for path in sorted(COLLECTIVES.glob("*.csv")):
        for row in published.read_collectives(path):
            if row.nodes > 1:
                expected, roof = published.expect_collective(row)
                assert roof < min(expected, row.time_us), row.source
