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
    raises to twice bwInter (A100: 2 x 25 GB/s, held at its intra-node search's 40): 0.92 x 8 x 40 = 294.4 GB/s of
    tree busBw, algbw half that, 276 GB/s as nccl-tests counts busbw on 16 ranks; beyond two nodes a tree moves
    0.92 x 0.5 of the NICs' rate and the ring wins."""
    hdr = catalog.interconnect("ib-hdr")
    assert collectives._tree_bus_gbs(hdr, 8, 2, 8.0) == pytest.approx(294.4)
    two = collectives.nccl(hdr, 16, 8 * GIB, nodes=2, cc=8.0)
    assert two.impl == "NCCL tree" and busbw(16, 8 * GIB, two.us) > 1.3 * 192
    four = collectives.nccl(hdr, 32, 8 * GIB, nodes=4, cc=8.0)
    assert four.impl == "NCCL ring" and busbw(32, 8 * GIB, four.us) <= 192


def test_hopper_nodes_on_nvswitch_take_nvlstree_at_its_per_channel_cap():
    """'You should see NVLS being used with single-node runs, NVLSTree with multi-node' (kiskra-nvidia,
    https://github.com/NVIDIA/nccl-tests/issues/309). Its busBw is one channel per NIC at perChMaxNVLSTreeBws
    (Hopper: 57.7 GB/s on two nodes, 45.5 on more): 8 x 57.7 = 461.6 GB/s, where the thread's 2-node HGX H100 run
    plateaus at 469 (within 2 %); on four nodes NVLSTree's 364 GB/s loses to the ring at the NICs' 376, and the
    4-node run plateaus at 366. An A100 (no NVLS: nvlsEfficiency 0 for Ampere) never takes it."""
    ndr = catalog.interconnect("ib-ndr")
    h100, a100 = catalog.gpu("h100-sxm"), catalog.gpu("a100-80gb-sxm")
    assert collectives.nvls_capable(h100) and not collectives.nvls_capable(a100)
    for name, ranks, nodes, impl in (("nccltests-h100-hgx-2x8-ndr-issue309.csv", 16, 2, "NCCL NVLSTree"),
                                     ("nccltests-h100-vm-4x8-ndr-issue309.csv", 32, 4, "NCCL ring")):
        largest = max(published.read_collectives(COLLECTIVES / name), key=lambda r: r.size_bytes)
        t = collectives.nccl(ndr, ranks, largest.size_bytes, nodes=nodes, graphs=False, cc=9.0, nvls=True)
        assert t.impl == impl
        assert t.us == pytest.approx(largest.time_us, rel=0.05)
    assert collectives.nccl(ndr, 16, 8 * GIB, nodes=2, cc=9.0, nvls=False).impl != "NCCL NVLSTree"


def test_small_messages_take_the_tree_with_ll_as_the_tuner_does():
    """tuning.cc's latencies, by hand, for 4 nodes x 8 GPUs on an Intel host: the LL tree costs 6.8 + 2 x (7 x 0.6 +
    2 x 5.0) = 35.2 us; the LL ring 6.6 + 56 x max(0.6, 1.0 network overhead) + 6 x 2.7 = 78.8 us, and 2 us of
    overhead per step on an AMD host (getNetOverhead) makes it 134.8 us."""
    hdr = catalog.interconnect("ib-hdr")
    assert collectives.net_tuner_us(hdr, 32, 0, 4, "tree", "LL") == pytest.approx(35.2)
    assert collectives.net_tuner_us(hdr, 32, 0, 4, "ring", "LL") == pytest.approx(78.8)
    assert collectives.net_tuner_us(hdr, 32, 0, 4, "ring", "LL", cpu="amd") == pytest.approx(134.8)
    small = collectives.nccl(hdr, 32, 4096, nodes=4, cc=8.0)
    assert (small.impl, small.protocol) == ("NCCL tree", "LL")
    assert collectives.nccl(hdr, 32, 4096, nodes=4, only="ring").impl == "NCCL ring"


def test_the_tree_takes_nccls_medium_size_correction():
    """'Trees are not perfectly sticking to the model for medium sizes' (tuning.cc treeCorrectionFactor, one row per
    protocol, 64 B x 2^i): at 128 KB (i = 11) the LL tree gets half its bandwidth, LL128 0.6, Simple 0.5; from 128 MB
    (LL128) or 512 MB (Simple, past the table) all of it; a ring none of it. By hand, 4 nodes x 8 A100 on HDR: the
    LL tree's busBw is min(0.92 x 8 x 25, 16 channels x 17.8) / 3.8 = 48.4, held at llMaxBw 20.4 on an Intel host;
    its algbw half that, 10.2 GB/s, then x 0.5 at 128 KB."""
    assert [collectives.tree_correction("tree", p, 128 << 10) for p in ("LL", "LL128", "Simple")] == [.5, .6, .5]
    assert collectives.tree_correction("tree", "LL128", 128 << 20) == 1.0
    assert collectives.tree_correction("tree", "Simple", 512 << 20) == 1.0
    assert collectives.tree_correction("ring", "LL", 128 << 10) == 1.0
    hdr = catalog.interconnect("ib-hdr")
    assert collectives.net_tuner_us(hdr, 32, 128 << 10, 4, "tree", "LL", cc=8.0) == pytest.approx(
        35.2 + (128 << 10) / (0.5 * 20.4 / 2 * 1e3))


def test_the_simple_ring_across_nodes_takes_nccls_plateau_factor():
    """'Plateau effect of ring' (tuning.cc ncclTopoGetAlgoTime; in this form, x1.4 on Ampere and later, x1.9 before,
    from v2.18.1-1 L380-L382; earlier releases in tests/test_nccl_releases.py): a Simple ring across nodes is priced
    at 1.4 x its latency once bytes / (channels x ranks) reaches 64. By hand, 2 nodes x 8 H100 on NDR, Intel host:
    8.4 + 28 x max(3.4 NVLink, 3 x 1.0 network overhead) + 2 x 14.0 = 131.6 us; 16 channels (one per NIC, duplicated
    at 50 GB/s), so the factor starts at 64 x 16 x 16 = 16 KiB. LL, LL128 and the tree never take it, nor a ring on
    one node; a V100 takes 1.9."""
    ndr = catalog.interconnect("ib-ndr")
    assert collectives.net_tuner_us(ndr, 16, 0, 2, "ring", "Simple", cc=9.0) == pytest.approx(131.6)
    assert collectives.ring_plateau(ndr, 16, 16383, 2, "ring", "Simple", cc=9.0) == 1.0
    assert collectives.ring_plateau(ndr, 16, 16384, 2, "ring", "Simple", cc=9.0) == 1.4
    assert collectives.net_tuner_us(ndr, 16, 16 << 10, 2, "ring", "Simple", cc=9.0) == pytest.approx(
        1.4 * 131.6, abs=0.5)  # the bytes' own share, 16 KiB at ~230 GB/s, is under 0.1 us
    assert [collectives.ring_plateau(ndr, 16, GIB, 2, a, p, cc=9.0)
            for a, p in (("ring", "LL"), ("ring", "LL128"), ("tree", "Simple"))] == [1.0, 1.0, 1.0]
    assert collectives.ring_plateau(ndr, 8, GIB, 1, "ring", "Simple", cc=9.0) == 1.0
    assert collectives.ring_plateau(ndr, 16, GIB, 2, "ring", "Simple", cc=7.0) == 1.9


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


# NCCL's numbers behind NVLSTree's chunk, each as its source states it (the tests below derive their sizes from these)
NVLS_CHUNKSIZE = 128 * 1024  # NCCL_NVLS_CHUNKSIZE's default, https://github.com/NVIDIA/nccl/blob/v2.26.2-1/src/transport/nvls.cc#L149
SIMPLE_STEP = (1 << 22) // 8  # 2.18-2.20's first chunk: DEFAULT_BUFFSIZE 4 MiB (v2.19.3-1 src/init.cc) / NCCL_STEPS 8
MANY_NODES_CHUNK = 65536  # 'comm->nNodes >= 4 ? 65536', https://github.com/NVIDIA/nccl/blob/v2.26.2-1/src/enqueue.cc#L1895
# calcCollChunking's NVLS_TREE cuts (multiple of ops x chunk, the chunk below it), enqueue.cc v2.26.2-1 L1897-L1900
CUTS = ((32, 262144), (16, 131072), (4, 65536), (1, 32768))


def test_nvlstree_chunk_rows_hold_nccls_numbers():
    """nccl_tuning.toml's nvlstree_chunks rows and collectives.NVLSTREE_CHUNK_CUTS against the source's numbers above:
    the Simple step before 2.21.5, NCCL_NVLS_CHUNKSIZE from it; the 4-node chunk from 2.19.3 (none in 2.18.1)."""
    assert collectives.NVLSTREE_CHUNK_CUTS == CUTS
    for release, first, many in (("2.18.1", SIMPLE_STEP, 0), ("2.19.3", SIMPLE_STEP, MANY_NODES_CHUNK),
                                 ("2.21.5", NVLS_CHUNKSIZE, MANY_NODES_CHUNK),
                                 ("2.26.2", NVLS_CHUNKSIZE, MANY_NODES_CHUNK),
                                 ("2.30.7", NVLS_CHUNKSIZE, MANY_NODES_CHUNK)):
        rule = collectives.tuning(release)["nvlstree_chunks"]
        assert (rule["first_bytes"], rule["many_nodes_bytes"]) == (first, many), release


def test_nvlstree_cuts_its_chunk_as_enqueue_cc_does():
    """calcCollChunking's NVLS_TREE branch (https://github.com/NVIDIA/nccl/blob/v2.26.2-1/src/enqueue.cc#L1886-L1901),
    at its boundaries for 2 nodes x 8 H100 (16 NVLS channels x 8 heads, one per NIC: 128 operations at once) at 2.26.2:
    the first chunk, NCCL_NVLS_CHUNKSIZE, is kept from 4 x ops x it (64 MiB) up and cut to 64 KiB one byte below, kept
    down to ops x 64 KiB (8 MiB), 32 KiB below; 64 KiB at any size from 4 nodes. 2.19.3-2.20 start at the Simple step
    (https://github.com/NVIDIA/nccl/blob/v2.19.3-1/src/enqueue.cc#L1369-L1377): cut to 256 KiB below 32 x ops x it
    (2 GiB), kept from there; 2.18.1 had no 4-node rule. Blackwell runs 32 channels from 2.25.1 (nvls.cc
    NVLS_NCHANNELS_SM100), so twice the operations keep 64 KiB up to 4 x 256 x 128 KiB = 128 MiB."""
    t = collectives.tuning("2.26.2")
    ops = 16 * 8
    keep = 4 * ops * NVLS_CHUNKSIZE
    assert keep == 64 << 20
    assert [collectives.nvlstree_chunk(t, s, ops, 2) for s in (GIB, keep, keep - 1, ops * 65536, ops * 65536 - 1)] \
        == [NVLS_CHUNKSIZE, NVLS_CHUNKSIZE, 65536, 65536, 32768]
    assert collectives.nvlstree_chunk(t, GIB, ops, 4) == MANY_NODES_CHUNK
    old = collectives.tuning("2.19.3")
    big = 32 * ops * SIMPLE_STEP
    assert big == 2 * GIB
    assert [collectives.nvlstree_chunk(old, s, ops, 2) for s in (big - 1, big)] == [262144, SIMPLE_STEP]
    assert collectives.nvlstree_chunk(collectives.tuning("2.18.1"), GIB, ops, 4) == 262144
    b200 = catalog.by_compute_capability(t["nvlstree_chunks"]["channels"], 10.0) * 8
    assert b200 == 2 * ops
    assert [collectives.nvlstree_chunk(t, s, b200, 2) for s in (128 << 20, (128 << 20) - 1)] == [NVLS_CHUNKSIZE, 65536]


def test_nvlstree_mid_sizes_wait_for_its_pipeline_to_fill():
    """Two nodes of H100 reach NVLSTree's large-message rate only from ~64 MB (issue 309: 270 GB/s busbw at 64 MB,
    469 at 16 GB); timed at that rate alone the model was 20-34 % fast at 8-128 MB. Each chunk passes the kernel's
    stages one after another (https://github.com/NVIDIA/nccl/blob/v2.26.2-1/src/device/all_reduce.h#L521-L626), so
    the last leaves after its bytes; the model approximates that fill as the tuner's network step count (2 on two
    nodes) of extra chunk-times of every operation at the bottleneck rate, a multiplier checked over 0.5-3x on the
    fit tables, not derived from the stages. On the three 2-node tables that run NVLSTree (two H100 runs and Lambda's
    B200, 32 channels), every 8-256 MB point comes within 20 %, the median within 10 %; at 1 GiB the fill is under
    5 % of the time."""
    ndr = catalog.interconnect("ib-ndr")
    errors = []
    for name in ("nccltests-h100-hgx-2x8-ndr-issue309.csv", "nccltests-h100-2x8-ndr-issue309-gjaion.csv",
                 "nccltests-b200-lambda-2x8-ib.csv"):
        for row in published.read_collectives(COLLECTIVES / name):
            if 8 << 20 <= row.size_bytes <= 256 << 20:
                err = published.expect_collective(row)[0] / row.time_us - 1
                assert abs(err) <= 0.20, (row.source, row.size_bytes, err)
                errors.append(abs(err))
    assert sorted(errors)[len(errors) // 2] <= 0.10
    whole = collectives.nccl(ndr, 16, GIB, nodes=2, cc=9.0, nvls=True, release="2.26.2")
    achieved = collectives._net_model(ndr, 16, 2, "nvlstree", "Simple", "", 9.0)[1] * 1e3
    fill = collectives.nvlstree_fill_us(collectives.tuning("2.26.2"), GIB, 8, 2, 9.0, achieved)
    assert whole.impl == "NCCL NVLSTree" and 0 < fill < 0.05 * whole.us


def test_nvlstree_fill_runs_the_releases_channels_times_the_gpus_heads():
    """The fill's operations are the release's NVLS channels (nvls.cc: NVLS_NCHANNELS 16 from
    https://github.com/NVIDIA/nccl/blob/v2.18.1-1/src/transport/nvls.cc, SM100 32 from
    https://github.com/NVIDIA/nccl/blob/v2.25.1-1/src/transport/nvls.cc#L144-L149) x the heads, one per GPU of the node
    (one NIC per GPU assumed). The op count comes from the catalog, so a release row that changes the channels moves
    the fill: a B200 pair's fill doubles from 2.24.3 to 2.25.1 at 1 GiB (the same 128 KiB chunk, 2x the operations)."""
    gpus, achieved = 8, 400e3
    for release, cc, channels in (("2.18.1", 9.0, 16), ("2.21.5", 9.0, 16), ("2.26.2", 9.0, 16), ("2.30.7", 9.0, 16),
                                  ("2.24.3", 10.0, 16), ("2.25.1", 10.0, 32)):
        t = collectives.tuning(release)
        ops = catalog.by_compute_capability(t["nvlstree_chunks"]["channels"], cc) * gpus
        assert ops == channels * gpus, (release, cc)
        chunk = collectives.nvlstree_chunk(t, GIB, ops, 2)
        fill = collectives.nvlstree_fill_us(t, GIB, gpus, 2, cc, achieved)
        assert fill == pytest.approx(2 * chunk * ops / achieved), (release, cc)
    b200 = [collectives.nvlstree_fill_us(collectives.tuning(r), GIB, gpus, 2, 10.0, achieved)
            for r in ("2.24.3", "2.25.1")]
    assert b200[1] == pytest.approx(2 * b200[0])


def test_nvls_heads_are_the_nodes_nics_capped_at_its_gpus():
    """NVLSTree's heads (channel.nvls.nHeads) are the NVLS graph's channels: one per NIC the search pairs with a GPU no
    other head has (https://github.com/NVIDIA/nccl/blob/v2.26.2-1/src/graph/search.cc#L625-L641), at most the node's
    GPUs and NCCL_MAX_NVLS_ARITY, 32 (search.cc#L975, src/include/device.h#L181). The issue-309 HGX nodes run 8
    ConnectX-7, one per GPU (NCCL_IB_HCA=mlx5_0..7): 8 heads, the model's default of one NIC per GPU. Four NICs on
    eight GPUs make four heads, and the heads set both NVLSTree's tuner bandwidth (tuning.cc: nChannels x bw) and the
    operations its pipeline fills, so both halve."""
    assert [collectives.nvls_heads(8), collectives.nvls_heads(8, nics=8)] == [8, 8]
    assert collectives.nvls_heads(8, nics=4) == 4
    assert collectives.nvls_heads(8, nics=10) == 8  # more NICs than GPUs: still one head per GPU at most
    assert collectives.nvls_heads(72, nics=72) == collectives.NCCL_MAX_NVLS_ARITY == 32
    assert collectives.nvls_heads(1) == 1
    t, ndr = collectives.tuning("2.26.2"), catalog.interconnect("ib-ndr")
    achieved = collectives.nvlstree_model(t, ndr, 16, 2, 9.0)[1] * 1e3
    eight, four = (collectives.nvlstree_fill_us(t, GIB, h, 2, 9.0, achieved) for h in (8, 4))
    assert four == pytest.approx(eight / 2)  # the same 128 KiB chunk at 1 GiB, half the operations
    per_head = ndr.achieved_gbs * t["nvlstree"]["inter_scale"][0]
    assert t["nvlstree"]["ratio"] == "five-sixths"  # 2.26.2's tuning.cc: NVLS and NVLSTree busBw to algbw x 5/6
    assert collectives.nvlstree_model(t, ndr, 16, 2, 9.0)[1] == pytest.approx(8 * per_head * 5 / 6)


def test_nvlstree_fill_counts_the_releases_network_steps():
    """NCCL 2.18's tuner counts 2 (nodes - 1) NVLSTree network steps
    (https://github.com/NVIDIA/nccl/blob/v2.18.1-1/src/graph/tuning.cc), 2.19.3 on 2 log2(nodes): on 4 nodes 6 and 4
    (the same two on 2 nodes). The fill uses the same count as the latency it was borrowed from."""
    achieved = 400e3
    for release, steps in (("2.18.1", 6), ("2.26.2", 4)):
        t = collectives.tuning(release)
        ops = 16 * 8
        chunk = min(collectives.nvlstree_chunk(t, GIB, ops, 4), GIB / ops)
        assert collectives.nvlstree_steps(t, 4) == steps
        fill = collectives.nvlstree_fill_us(t, GIB, 8, 4, 9.0, achieved)
        assert fill == pytest.approx(steps * chunk * ops / achieved)
    assert collectives.nvlstree_steps(collectives.tuning("2.18.1"), 2) == 2


def test_the_roofline_stays_below_every_multi_node_measurement():
    for path in sorted(COLLECTIVES.glob("*.csv")):
        for row in published.read_collectives(path):
            if row.nodes > 1:
                expected, roof = published.expect_collective(row)
                assert roof < min(expected, row.time_us), row.source


def test_roce_tables_resolve_their_fabric_and_run_the_two_node_tree():
    """RoCE is RDMA over Ethernet, which NCCL drives through its IB transport (src/transport/net_ib names the link layer
    'RoCE'), so a table's 'roce' (an alias) reads as the catalog's RoCE row, not as an unknown fabric. The OCI OKE
    sample (2 x 8 A100, 1.6 Tb/s of RoCE per node: roce-200 per GPU) plateaus at 237.9 GB/s busbw at 8 GiB, past
    the NICs' 200, as a 2-node tree does (sjeaugey, https://github.com/NVIDIA/nccl-tests/issues/196)."""
    l40s = published.read_collectives(COLLECTIVES / "nccltests-l40s-2node-2gpu-roce-ring.csv")
    assert l40s and {r.fabric for r in l40s} == {"roce-400"}
    oke = published.read_collectives(COLLECTIVES / "nccltests-a100-40gb-oci-2x8-roce.csv")
    largest = max(oke, key=lambda r: r.size_bytes)
    assert (largest.fabric, largest.size_bytes) == ("roce-200", 8 * GIB)
    t = collectives.nccl(catalog.interconnect(largest.fabric), 16, largest.size_bytes, nodes=2, graphs=False, cc=8.0)
    assert t.impl == "NCCL tree" and busbw(16, 8 * GIB, t.us) > 200
    assert t.us == pytest.approx(largest.time_us, rel=0.05)
