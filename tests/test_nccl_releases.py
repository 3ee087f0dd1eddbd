"""NCCL's tuner constants per release (rules/catalog/nccl_tuning.toml, read by rules.collectives.tuning): each table is
priced with the constants of the NCCL release it states. Every expectation below is derived from the lines of
src/graph/tuning.cc and src/transport/nvls.cc at the cited tags of https://github.com/NVIDIA/nccl."""

import dataclasses
import re
import statistics
from pathlib import Path

import pytest

from diagnose import published
from diagnose.errors import InputError
from diagnose.inputs import load_toml
from rules import catalog, collectives

COLLECTIVES = Path(__file__).parent / "data" / "collectives"
GIB = 1 << 30
TAG = re.compile(r"^https://github\.com/NVIDIA/nccl/blob/v(\d+\.\d+\.\d+)-1/src/")


def test_every_row_cites_a_tag_inside_the_releases_it_covers():
    """A row holds from its `since` until the next row of its key; the tag it cites must lie in that range, so the
    cited file shows the value in force (read at every tag, release to release)."""
    rows = load_toml(catalog.CATALOG_DIR / "nccl_tuning.toml", "catalog")["row"]
    by_key: dict[str, list] = {}
    for row in rows:
        by_key.setdefault(row["key"], []).append(row)
    for key, kept in by_key.items():
        kept.sort(key=lambda r: catalog.nccl_release(r["since"]))
        for row, after in zip(kept, kept[1:] + [None]):
            m = TAG.match(row["source"])
            assert m, row["source"]
            tag = catalog.nccl_release(m[1])
            assert catalog.nccl_release(row["since"]) <= tag, (key, row["since"], tag)
            assert after is None or tag < catalog.nccl_release(after["since"]), (key, row["since"], tag)


def test_a_release_takes_the_last_row_at_or_before_it_and_none_takes_the_pinned_one():
    """v2.19.3-1 .. v2.28.7-1: NVLSTree 14 us a network step (tuning.cc hwLat NET, L77 at v2.19.3-1); v2.28.9-1 and
    the pinned master: 20.9 (L165); v2.18.x: 19, over 2 (nodes - 1) steps (v2.18.1-1 L79, L228)."""
    assert collectives.tuning("2.21.5")["nvlstree"]["net_us"] == 14.0
    assert collectives.tuning("2.28.7")["nvlstree"]["net_us"] == 14.0
    assert collectives.tuning("2.28.9")["nvlstree"]["net_us"] == 20.9
    assert collectives.tuning("2.18.3")["nvlstree"]["net_us"] == 19.0
    assert not collectives.tuning("2.18.3")["nvlstree"]["log_steps"]
    pinned = collectives.tuning()
    assert pinned["release"] == {"version": "2.30.7", "stated": False}
    assert pinned["nvlstree"]["net_us"] == 20.9
    assert collectives.tuning("2.26.2+cuda12.8")["release"] == {"version": "2.26.2", "stated": True}
    # older than the file's first row (2.7.3): priced with that row, and said so (Sheffield's V100 table ran 2.4.2)
    old = collectives.tuning("2.4.2")
    assert old["release"] == {"version": "2.7.3", "stated": True, "clamped_from": "2.4.2"}
    assert old["base_us"] == collectives.tuning("2.7.3")["base_us"]
    assert "clamped_from" not in collectives.tuning("2.8.3")["release"]  # a release the rows cover is its own
    assert "clamped_from" not in collectives.tuning("2.7.3")["release"]


def test_nvls_inside_one_h100_node_from_2_17_on_with_each_releases_latency():
    """NVLS came in v2.17.1-1, on by default (nvls.cc L229 NCCL_NVLS_ENABLE 1; from v2.18.1-1 2, on wherever the GPU
    reports multicast, L230/L247): so a table stated as 2.18 on 8 H100 gets NVLS for large messages, as 2.17 does; 2.16
    has no NVLS algorithm at all (devcomm.h: 4 algorithms). The tuner's NVLS latency against the ring's LL start sets
    where it takes over: 2.17 NVLS 40 us against ring 3.6 + 14 x 0.47 (v2.17.1-1 L56, L65); 2.18-2.20 23 against
    6.6 + 14 x 0.6 (v2.18.1-1 L57-59, L69); 2.21 on 25 (v2.21.5-1 L69). A larger gap, a larger crossover."""
    h100, sw = catalog.gpu("h100-sxm"), catalog.interconnect("nvswitch3")

    def crossover(release):
        return next((k for k in range(10, 31)
                     if collectives.nccl_for(h100, sw, 8, 1 << k, release=release).impl == "NCCL NVLS"), None)
    assert crossover("2.16.5") is None
    assert crossover("2.17.1") > crossover("2.21.5") >= crossover("2.18.3")
    assert collectives.nccl_for(h100, sw, 8, 256 << 20, release="2.18.3").impl == "NCCL NVLS"
    with pytest.raises(InputError, match="nvls"):
        collectives.nccl_for(h100, sw, 8, 256 << 20, release="2.16.5", only="nvls")
    # the GPU count NCCL sets NVLS up from: 'gpuCount <= 2' returns from v2.18.1-1 (L239) to v2.28.3-1 (nvls.cc L160),
    # 'gpuCount < 2' from v2.28.7-1 (L161); v2.17.1-1 'localRanks <= 1' (L232)
    assert [collectives.tuning(r)["nvls"]["min_gpus"]
            for r in ("2.17.1", "2.18.1", "2.28.3", "2.28.7")] == [2, 3, 3, 2]


def test_nvlstree_across_h100_nodes_only_from_2_18():
    """NVLSTree is v2.18.1-1's (tuning.cc L250: disabled on one node; NCCL_NUM_ALGORITHMS 6): a 2.17 table over two
    nodes of 8 H100 is ring or tree at every size, and forcing NVLSTree there is refused; 2.18 on picks it for large
    messages."""
    h100, ndr = catalog.gpu("h100-sxm"), catalog.interconnect("ib-ndr")
    picks = {r: {collectives.nccl_for(h100, ndr, 16, 1 << k, nodes=2, release=r).impl for k in range(3, 31)}
             for r in ("2.17.1", "2.18.1", "2.26.2")}
    assert picks["2.17.1"] <= {"NCCL ring", "NCCL tree"}
    assert "NCCL NVLSTree" in picks["2.18.1"] and "NCCL NVLSTree" in picks["2.26.2"]
    with pytest.raises(InputError, match="nvlstree"):
        collectives.nccl_for(h100, ndr, 16, 1 << 20, nodes=2, release="2.17.1", only="nvlstree")
    # a release older than the tuner rows is refused as the oldest one they know, and the refusal says so
    with pytest.raises(InputError, match=r"NCCL 2\.4\.2, priced as 2\.7\.3"):
        collectives.nccl_for(h100, ndr, 16, 1 << 20, nodes=2, release="2.4.2", only="nvlstree")


def test_the_h20_nvlstree_table_is_priced_at_its_own_2_21_5():
    """nccltests-h20-2x8-nvlstree-issue1244-partial.csv states NCCL 2.21.5: NVLSTree at 4-512 B is all latency, 14 us a
    network step then (v2.21.5-1 L77), not the pinned 20.9 (v2.28.9-1 L165). At its own release the rows sit within
    20 % (+15 %); priced as the pinned release they are 40 % and more too slow (+55 %), the miss that release pinning
    closes."""
    rows = published.read_collectives(COLLECTIVES / "nccltests-h20-2x8-nvlstree-issue1244-partial.csv")
    assert {r.nccl for r in rows} == {"2.21.5"}

    def median_error(rows):
        return statistics.median(published.expect_collective(r)[0] / r.time_us - 1 for r in rows)
    assert abs(median_error(rows)) < 0.20
    assert median_error([dataclasses.replace(r, nccl="") for r in rows]) > 0.40


def test_pat_is_never_an_all_reduce():
    """PAT (v2.23.4-1) runs all-gather and reduce-scatter only ('if (coll == ncclFuncAllReduce && a ==
    NCCL_ALGO_PAT) continue', L174), with one GPU per node (ncclPatEnable: 'nNodes != nRanks' returns 0, L112): a 2.23+
    table's all-reduce never takes it, and forcing it on an all-reduce is refused."""
    new, old = collectives.tuning("2.23.4"), collectives.tuning("2.22.3")
    assert collectives.pat_runs(new, "allgather", 4, 4) and collectives.pat_runs(new, "reducescatter", 2, 2)
    assert not collectives.pat_runs(new, "allgather", 16, 2)  # 8 GPUs a node
    assert not collectives.pat_runs(old, "allgather", 4, 4)
    assert not any(collectives.pat_runs(collectives.tuning(r), "allreduce", 4, 4) for r in ("2.23.4", "2.27.3", None))
    l40s, ndr = catalog.gpu("l40s"), catalog.interconnect("ib-ndr")
    with pytest.raises(InputError, match="all-gather and reduce-scatter"):
        collectives.nccl_for(l40s, ndr, 4, 1 << 20, nodes=4, release="2.23.4", only="pat")


def test_ll128_reaches_more_gpus_release_by_release():
    """LL128's default GPUs (tuning.cc): compute capability 7.0 and 8.0 exactly (v2.7.3-1 L177), 9.0 from v2.15.1-1
    (L231), 10.0 from v2.25.1-1 (L435), every one from 7.0 from v2.27.3-1 ('minCompCap < 70' disables, L463). So an
    L40S (8.9) pair of nodes gets LL128 among its protocols at 2.27.3, never at 2.26.2."""
    assert not collectives.ll128_runs(collectives.tuning("2.14.3"), 9.0)
    assert collectives.ll128_runs(collectives.tuning("2.15.1"), 9.0)
    assert not collectives.ll128_runs(collectives.tuning("2.26.2"), 8.9)
    assert collectives.ll128_runs(collectives.tuning("2.27.3"), 8.9)
    l40s, ndr = catalog.gpu("l40s"), catalog.interconnect("ib-ndr")
    protocols = {r: {collectives.nccl_for(l40s, ndr, 2, 1 << k, nodes=2, release=r).protocol for k in range(3, 31)}
                 for r in ("2.26.2", "2.27.3")}
    assert "LL128" not in protocols["2.26.2"] and "LL128" in protocols["2.27.3"]


def test_the_ring_simple_network_step_of_2_12_and_2_18():
    """hwLat NET ring Simple: 28 us in v2.12.7-1 .. v2.13.4-1 (L69), 14 from v2.18.1-1 (L77); two network steps on two
    nodes, the same 8.4 us base and the same NVLink steps (3.4 us beats 2.18's 3 x 1 us Intel proxy overhead): the
    tuner's all-reduce of nothing differs by 2 x (28 - 14) us."""
    ndr = catalog.interconnect("ib-ndr")
    old = collectives.net_tuner_us(ndr, 16, 0, 2, "ring", "Simple", release="2.12.12")
    new = collectives.net_tuner_us(ndr, 16, 0, 2, "ring", "Simple", release="2.18.3")
    assert old - new == pytest.approx(28.0)


def test_a_table_states_its_release_in_one_header_line(tmp_path):
    """`# NCCL: 2.26.2 - where the source says so`; a table without the line is priced with the pinned release; a line
    that names no release is bad input."""
    rows = published.read_collectives(COLLECTIVES / "nccltests-h100-hgx-2x8-ndr-issue309.csv")
    assert {r.nccl for r in rows} == {"2.26.2"}
    assert {r.nccl for r in published.read_collectives(COLLECTIVES / "vidur-h100-dgx-all-reduce.csv")} == {""}
    bad = tmp_path / "t.csv"
    bad.write_text("# NCCL: recent\nimplementation,gpu,fabric,gpus,nodes,size_bytes,time_us,busbw_gbs,graph\n"
                   "nccl,h100-sxm,nvswitch3,8,1,1024,20.0,0.1,no\n")
    with pytest.raises(InputError, match="NCCL release"):
        published.read_collectives(bad)


def test_a_ticket_prices_the_all_reduce_with_the_nccl_its_log_printed():
    """A log's 'NCCL version 2.21.5' (../shared/tickets/027-torchtitan-853-ci-container-shm-16mb-h100, from
    https://github.com/pytorch/torchtitan/issues/853) is the release every command prices NCCL with: the route the
    ticket, scaling, plan and capture share carries it into the prediction. An 8 K-token prefill's all-reduce on
    8 H100 (128 MB) runs NVLS from 2.17.1 on and the ring before, so the same prefill is slower at a stated 2.16.5."""
    from conftest import shared_path

    from diagnose.bundle import read_bundle
    from rules import roofline
    from rules.topology import ring_route

    facts = read_bundle([shared_path("tickets", "027-torchtitan-853-ci-container-shm-16mb-h100", "attachment1.log")])
    route = ring_route(facts, 8)
    assert route["nccl_release"] == "2.21.5"
    model, gpu, engine = catalog.model("llama-3-70b"), catalog.gpu("h100-sxm"), catalog.engine("vllm")

    def ttft(**route):
        p = roofline.predict(model, gpu, roofline.Layout(tp=8), prompt=8192, engine=engine, **route)
        return p.ttft_ms_expected, p.assumptions.get("nccl_release")
    stated, old, pinned = ttft(**route), ttft(nccl_release="2.16.5"), ttft()
    assert stated[1] == "2.21.5" and pinned[1] is None
    assert old[0] > stated[0] == pytest.approx(pinned[0])


def test_a_ring_all_reduce_takes_a_quarter_of_its_bus_under_ll_before_2_21():
    """A ring all-reduce's LL bandwidth is 'busBw * 1.0/4.0' up to v2.20.5-1 (L181; v2.7.3-1 L113, v2.18.1-1 L169) and
    'busBw * .5' from v2.21.5-1 (L180). Over PCIe, 4 RTX 4090 (Gen4 x16: NCCL's 12 x 31.5 / 15.75 = 24 GB/s a channel,
    algbw 24 x 4/6 = 16 GB/s): LL costs 6.6 + 6 x 1.0 us + bytes / (16 GB/s x share), Simple 8.4 + 6 x 5.7 us +
    bytes / 16 GB/s, so Simple is faster from 160 000 B at 2.20.5 (share 1/4) and from 480 000 B at 2.21.5 (1/2):
    LL gives way to Simple at a third of the size under the older release."""
    gpu = catalog.gpu("rtx-4090")
    ic = collectives.node_pcie(gpu, 4)

    def proto(size, release):
        return collectives.pcie_protocol(ic, 4, size, cc=gpu.compute_capability, release=release)
    assert [proto(s, "2.20.5") for s in (150_000, 170_000)] == ["LL", "Simple"]
    assert [proto(s, "2.21.5") for s in (170_000, 470_000, 490_000)] == ["LL", "LL", "Simple"]
    assert [collectives.tuning(r)["ll_share"]["share"] for r in ("2.7.3", "2.20.5", "2.21.5", None)] == [
        0.25, 0.25, 0.5, 0.5]


def test_the_ring_plateau_by_release():
    """'Plateau effect of ring' on a Simple ring all-reduce across nodes: from nBytes >= nRanks/16.0*65536 at x1.9
    on every GPU (v2.7.3-1 L262, v2.12.12-1 L282); the same threshold with 'minCompCap < 90 ? 1.9 : 1.5' (v2.17.1-1
    L343-L344); from v2.18.1-1 past 64 B per rank and channel, 'minCompCap < 80 ? 1.9 : 1.4' (L380-L382). 2 x 8 H100
    on NDR (16 channels): the old threshold is 16/16 x 64 KiB = 64 KiB, the new one 64 x 16 x 16 = 16 KiB."""
    ndr = catalog.interconnect("ib-ndr")

    def plateau(size, release, cc=9.0):
        return collectives.ring_plateau(ndr, 16, size, 2, "ring", "Simple", cc=cc, release=release)
    assert [plateau(s, "2.16.5") for s in (16 << 10, 65535, 65536)] == [1.0, 1.0, 1.9]
    assert [plateau(s, "2.17.1") for s in (16 << 10, 65535, 65536)] == [1.0, 1.0, 1.5]
    assert [plateau(s, "2.18.1") for s in (16383, 16 << 10)] == [1.0, 1.4]
    assert [plateau(GIB, r, cc=8.0) for r in ("2.16.5", "2.17.1", "2.18.1", None)] == [1.9, 1.9, 1.4, 1.4]
    assert plateau(GIB, "2.17.1", cc=7.0) == plateau(GIB, None, cc=7.0) == 1.9
    # the tuner's ring time carries it: 2.16.5's Simple ring at 64 KiB is 1.9 x its latency plus the bytes
    zero = collectives.net_tuner_us(ndr, 16, 0, 2, "ring", "Simple", cc=9.0, release="2.16.5")
    assert collectives.net_tuner_us(ndr, 16, 65536, 2, "ring", "Simple", cc=9.0, release="2.16.5") == pytest.approx(
        1.9 * zero, abs=1.0)


def test_three_net_tuner_rules_by_release():
    """tuning.cc across nodes: 'if (nNodes > 1 && p == NCCL_PROTO_LL) intraLat *= 1.8' up to v2.17.1-1 (L181; gone in
    v2.18.1-1); a ring's LL128 busBw x 'ppn < 2 ? 0.7 : 0.92' up to v2.22.3-1 (L179), 0.92 for every ppn from
    v2.23.4-1 (L188); 'interLat = ppn == 1 ? hwLat[NET][TREE][p]' only from v2.23.4-1 (L236). By hand, on NDR:
    2 x 8 H100 tree LL at 2.17.1: 4.4 + 2 (7 x 0.52 x 1.8 + 5.0) = 27.504 us; at 2.18.1: 6.8 + 2 (7 x 0.6 + 5.0) =
    25.2. 4 x 1 H100 ring LL128: min(50 x 0.7, ...) = 35 GB/s busBw (algbw x 4/6 = 23.3) at 2.22.3, 0.92 x 50 = 46
    (30.7) at 2.23.4. 2 x 1 H100 ring LL: 6.6 + 2 x 2.7 (the ring's network row) = 12.0 us at 2.22.3, 6.6 + 2 x 5.0
    (the tree's) = 16.6 at 2.23.4."""
    ndr = catalog.interconnect("ib-ndr")
    assert collectives.net_tuner_us(ndr, 16, 0, 2, "tree", "LL", cc=9.0, release="2.17.1") == pytest.approx(27.504)
    assert collectives.net_tuner_us(ndr, 16, 0, 2, "tree", "LL", cc=9.0, release="2.18.1") == pytest.approx(25.2)
    algbw = {r: collectives._net_model(ndr, 4, 4, "ring", "LL128", "", cc=9.0, release=r)[1]
             for r in ("2.22.3", "2.23.4")}
    assert algbw == pytest.approx({"2.22.3": 35 * 4 / 6, "2.23.4": 46 * 4 / 6})
    assert [collectives.net_tuner_us(ndr, 2, 0, 2, "ring", "LL", cc=9.0, release=r)
            for r in ("2.22.3", "2.23.4")] == pytest.approx([12.0, 16.6])
    # with 8 GPUs a node the ring keeps its own network row in every release
    assert collectives.net_tuner_us(ndr, 16, 0, 2, "ring", "LL", cc=9.0, release="2.23.4") == pytest.approx(
        collectives.net_tuner_us(ndr, 16, 0, 2, "ring", "LL", cc=9.0, release="2.22.3"))


def test_ll128_on_sm120_from_2_25():
    """v2.25.1-1 enables LL128 on 'case 120' as well as 70/80/90/100 (tuning.cc L431-L436): an RTX PRO 6000 /
    RTX 5090 (compute capability 12.0) gets LL128 from 2.25.1, not at 2.24.3; 8.9 still not before 2.27.3."""
    assert collectives.ll128_runs(collectives.tuning("2.25.1"), 12.0)
    assert not collectives.ll128_runs(collectives.tuning("2.24.3"), 12.0)
    assert not collectives.ll128_runs(collectives.tuning("2.25.1"), 8.9)


def test_tree_caps_go_by_exact_compute_capability_before_2_17():
    """Before 2.17.1 NCCL took Ampere's (or, from 2.15.1, Hopper's) tree caps only when minCompCap == maxCompCap ==
    80 (90): 'compCap80 = minCompCap == 80 && maxCompCap == 80' (v2.8.3-1 L93), 'compCapIndex = (minCompCap == 80 &&
    maxCompCap == 80) ? AMPERE : ((... == 90) ? HOPPER : VOLTA)' (v2.15.1-1 L111); from v2.17.1-1 by 'minCompCap >= 90
    ? HOPPER : minCompCap >= 80 ? AMPERE : VOLTA' (L115). Two nodes of 8 GPUs on HDR (25 GB/s a NIC): an L40S or A40
    (8.9, 8.6; 8 channels of 40 GB/s, not duplicated) is capped at 8 x Volta's 18.5 = 148 GB/s of tree up to 2.16.5,
    at 8 x Ampere's 23.6 = 188.8 from 2.17.1; an H100 (16 channels of 50) at 16 x 18.5 = 296 at 2.14.3, at its
    0.92 x 8 x 50 = 368 once Hopper has a row (2.15.1: Ampere's values, 16 x 23.6 = 377.6)."""
    hdr = catalog.interconnect("ib-hdr")

    def tree(cc, release):
        return collectives._tree_bus_gbs(hdr, 8, 2, cc, collectives.tuning(release))
    assert [tree(cc, "2.16.5") for cc in (8.6, 8.9)] == pytest.approx([148.0, 148.0])
    assert [tree(cc, "2.17.1") for cc in (8.6, 8.9)] == pytest.approx([188.8, 188.8])
    assert [tree(9.0, r) for r in ("2.14.3", "2.15.1")] == pytest.approx([296.0, 368.0])
    assert catalog.by_compute_capability({"0.0": 1, "8.0": 2}, 8.0, exact=True) == 2
    assert catalog.by_compute_capability({"0.0": 1, "8.0": 2}, 8.9, exact=True) == 1
    assert catalog.by_compute_capability({"0.0": 1, "8.0": 2}, 8.9) == 2


def test_a_release_only_the_thread_names_is_priced_and_marked_assumed():
    """gj-aion's three issue-309 tables (2025-06-18) print no NCCL release; the issue body (qoofyk, 2025-05, the same
    H100 NDR setting) prints 'NCCL 2.26.2+cuda12.8'. The tables say '# NCCL: 2.26.2 - assumed (...)': priced with
    2.26.2's tuner, and marked assumed so the accuracy report keeps them apart from the tables that print it."""
    for name in ("2x8", "4x8", "8x8"):
        rows = published.read_collectives(COLLECTIVES / f"nccltests-h100-{name}-ndr-issue309-gjaion.csv")
        assert {(r.nccl, r.nccl_assumed) for r in rows} == {("2.26.2", True)}
    stated = published.read_collectives(COLLECTIVES / "nccltests-h100-hgx-2x8-ndr-issue309.csv")
    assert {(r.nccl, r.nccl_assumed) for r in stated} == {("2.26.2", False)}


def test_a_table_of_a_fit_tables_node_and_harness_says_so_and_its_older_release_is_clamped(tmp_path):
    """Sheffield's V100 PCIe node ran all_reduce_perf under NCCL 2.8.3 (fit) and 2.4.2 (validation): the same node,
    GPUs and command (https://github.com/rcgsheffield/sheffield_hpc, bessemer cuda.rst), so the 2.4.2 table names its
    twin (`# Same-setup-as:`) and is not counted as held-out evidence; its release, older than nccl_tuning.toml's
    first row, is kept as stated and priced as 2.7.3. A twin that is not a file beside it is refused."""
    rows = published.read_collectives(COLLECTIVES / "nccltests-v100-pcie-4gpu-sheffield-nccl242.csv")
    assert {(r.split, r.nccl, r.same_setup_as) for r in rows} == {
        ("validation", "2.4.2", "nccltests-v100-pcie-4gpu-sheffield-nccl283.csv")}
    assert collectives.tuning(rows[0].nccl)["release"]["clamped_from"] == "2.4.2"
    twin = published.read_collectives(COLLECTIVES / "nccltests-v100-pcie-4gpu-sheffield-nccl283.csv")
    assert {r.same_setup_as for r in twin} == {""}
    text = (COLLECTIVES / "nccltests-v100-pcie-4gpu-sheffield-nccl242.csv").read_text()
    bad = tmp_path / "t.csv"
    bad.write_text(text)
    with pytest.raises(InputError, match="Same-setup-as"):
        published.read_collectives(bad)


def test_a_ticket_on_an_nccl_older_than_the_tuner_rows_is_priced_as_the_oldest_they_know():
    """NVIDIA/nccl issue 257 (tests/data/tickets/n012-nccl-allreduce-hang-1080ti-iommu, https://github.com/NVIDIA/nccl/issues/257)
    prints 'NCCL version 2.4.8+cuda10.0', older than nccl_tuning.toml's first row (2.7.3). The route carries the
    release as printed, and it is priced with 2.7.3's constants, not the pinned release's: on two GTX 1080 Ti over
    PCIe Gen3, LL gives way to Simple below 100 KB as under 2.7.3 (LL at a quarter of the bus), where the pinned
    release (LL at half) keeps LL."""
    from diagnose.bundle import read_bundle
    from rules.topology import ring_route

    facts = read_bundle([Path(__file__).parent / "data" / "tickets" / "n012-nccl-allreduce-hang-1080ti-iommu" /
                         "issue.md"])
    route = ring_route(facts, 2)
    assert route["nccl_release"] == "2.4.8"
    assert collectives.tuning(route["nccl_release"])["release"] == {
        "version": "2.7.3", "stated": True, "clamped_from": "2.4.8"}
    gpu = catalog.gpu("gtx-1080-ti")
    ic = collectives.node_pcie(gpu, 2)

    def proto(release):
        return collectives.pcie_protocol(ic, 2, 100_000, cc=gpu.compute_capability, release=release)
    assert proto(route["nccl_release"]) == proto("2.7.3") == "Simple"
    assert proto(None) == "LL"
