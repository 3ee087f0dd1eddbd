"""Timeline analysis checked against a brute-force interval merge on real captures."""

import csv

import pytest
from conftest import shared_path

from diagnose.capture import classify as C
from diagnose.capture import multirank
from diagnose.capture import steps as S
from diagnose.capture import timeline as T
from diagnose.capture.reader import open_capture, pid_of
from diagnose.errors import InputError


def _gaps(intervals, min_ns):
    """(start, end) of the idle gaps of at least min_ns between (start, end) intervals, the obvious way."""
    out, reach = [], None
    for s, e in sorted(intervals):
        if reach is not None and s - reach >= min_ns:
            out.append((reach, s))
        reach = e if reach is None else max(reach, e)
    return out


def _union(intervals):
    """Total length of the union of (start, end) intervals, the obvious way."""
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + ((cur_e - cur_s) if cur_e is not None else 0)


def _rows(cap, table, with_name=False):
    name = ", (SELECT value FROM StringIds WHERE id = shortName)" if with_name else ""
    return cap.query(f'SELECT globalPid, deviceId, start, "end"{name} FROM {table}').fetchall()


@pytest.mark.parametrize("name", ["nsysai_h100x2_fastvideo_train_before", "rodinia_gaussian_rtx3090_2022_4",
                                  "dlprof_rtx2070_pytorch_nvtx_2022_1", "fuser_h200_crossentropy_2025_1"])
def test_busy_idle_and_overlap_match_brute_force(name):
    with open_capture(shared_path("captures", f"{name}.sqlite")) as cap:
        acts = {(a.pid, a.device): a for a in T.gpu_activity(cap)}
        kernels = _rows(cap, "CUPTI_ACTIVITY_KIND_KERNEL", with_name=True)
        others = [r for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET") if cap.has(t)
                  for r in _rows(cap, t)]
    assert acts
    for (pid, dev), a in acts.items():
        mine = [r for r in kernels if pid_of(r[0]) == pid and r[1] == dev]
        rest = [(s, e) for g, d, s, e in others if pid_of(g) == pid and d == dev]
        every = [(s, e) for _, _, s, e, _ in mine] + rest
        comm = [(s, e) for *_, s, e, n in mine if C.classify(n) == C.COMM]
        compute = [(s, e) for *_, s, e, n in mine if C.classify(n) != C.COMM]
        span = max(e for _, e in every) - min(s for s, _ in every)
        assert a.all.span == span
        assert a.busy_ns == _union(every)
        assert a.idle_ns == span - _union(every)
        assert a.comm.union == _union(comm)
        assert a.compute.union == _union(compute)
        assert a.exposed_comm_ns == _union(comm + compute) - _union(compute)
        assert sum(a.gap_hist_ns) == a.idle_ns
        assert a.kernels.count == len(mine)
        assert a.large_gaps == _gaps(every, T.LARGE_GAP_NS)[:T.LARGE_GAPS_KEPT]
    assert any(a.large_gaps for a in acts.values())


def test_idle_while_the_other_peer_was_busy_matches_brute_force():
    """Send/recv peers (a real 2-GPU export): the part of each GPU's large gaps in which the other
    GPU was not idle too, against a pairwise overlap sum of the two GPUs' gaps."""
    from diagnose.capture.facts import analyse
    from diagnose.evidence import GpuTimeline

    path = shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")
    with open_capture(path) as cap:
        gaps = {(a.pid, a.device): a.large_gaps for a in T.gpu_activity(cap)}
    tls = {(g.pid, g.device): g for g in analyse([str(path)], with_summaries=False).facts.of(GpuTimeline)}
    assert len(gaps) == 2
    for key, own in gaps.items():
        (other,) = [v for k, v in gaps.items() if k != key]
        both = sum(max(0, min(e, f) - max(s, t)) for s, e in own for t, f in other)
        assert tls[key].idle_while_peer_busy_ns == sum(e - s for s, e in own) - both > 0


def test_intersection_of_idle_gaps_counted_point_by_point():
    """facts._intersect on random sorted disjoint intervals (touching ones too), chained over three
    GPUs as for three peers: its length equals the time points covered by all three."""
    import random

    from diagnose.capture import facts as F

    def intervals(rng):
        t, out = 0, []
        for _ in range(rng.randint(0, 12)):
            t += rng.choice([0, rng.randint(1, 9)])
            out.append((t, t + rng.randint(1, 9)))
            t = out[-1][1]
        return out

    rng = random.Random(13)
    for _ in range(500):
        lists = [intervals(rng) for _ in range(3)]
        covered = [{x for s, e in one for x in range(s, e)} for one in lists]
        got = F._intersect(F._intersect(*(F._intervals(x) for x in lists[:2])), F._intervals(lists[2]))
        assert F._length(got) == len(covered[0] & covered[1] & covered[2])


def test_launch_and_sync_accounting_matches_nsys_stats():
    """Kernel launches and synchronisation calls agree with the cuda_api_sum CSV."""
    path = shared_path("captures", "nsys-stats-2022.4", "gameoflife_a100_2022_1_cudaapisum.csv")
    api = {r["Name"]: r for r in csv.DictReader(open(path, newline=""))}
    with open_capture(shared_path("captures", "gameoflife_a100_2022_1.sqlite")) as cap:
        (proc,) = [p for p in T.process_api(cap).values() if p.launches.calls]
    assert proc.launches.calls == int(api["cudaLaunchKernel"]["Num Calls"]) == 100
    assert proc.launches.total_ns == int(api["cudaLaunchKernel"]["Total Time (ns)"])
    assert proc.syncs.total_ns == int(api["cudaDeviceSynchronize"]["Total Time (ns)"])
    assert proc.sync_copies.calls == int(api["cudaMemcpy"]["Num Calls"])
    assert proc.graph_launches.calls == 0
    assert proc.queue_p50_ns and proc.queue_p50_ns > 0


def test_copies_by_kind_and_pageable():
    with open_capture(shared_path("captures", "bitonic_gtx1050_2024_5.sqlite")) as cap:
        copies = {c.kind: c for c in T.copies(cap)}
    assert set(copies) == {"HtoD", "DtoH"}
    assert copies["HtoD"].bytes == copies["DtoH"].bytes == 536870912
    assert copies["DtoH"].total_ns == 309709719 and copies["HtoD"].pageable == 1 and not copies["HtoD"].uvm


@pytest.mark.parametrize("name, expected", [
    # NCCL <= 2.7, 2.8-2.18, >= 2.19, >= 2.22 signature, 2.27 symmetric, 2.28 symmetric
    ("ncclAllReduceRingLLKernel_sum_f16", ("all_reduce", "nccl")),
    ("ncclKernel_AllReduce_RING_LL_Sum_half", ("all_reduce", "nccl")),
    ("void ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", ("all_gather", "nccl")),
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", ("all_reduce", "nccl")),
    ("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
     ("reduce_scatter", "nccl")),
    ("ncclDevKernel_SendRecv", ("send_recv", "nccl")),
    ("ncclDevKernel_Broadcast_RING_LL", ("broadcast", "nccl")),
    ("ncclSymDevKernel_AllReduce_RSxLD_AGxST_sum_bf16", ("all_reduce", "nccl_symmetric")),
    ("ncclSymkDevKernel_AllGather_LLMC", ("all_gather", "nccl_symmetric")),
    # inference engines' own all-reduce
    ("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 4>(vllm::RankData*, vllm::RankSignals, int)",
     ("all_reduce", "custom_allreduce")),
    ("vllm::cross_device_reduce_2stage<half, 8>", ("all_reduce", "custom_allreduce")),
    ("void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16, 8>",
     ("all_reduce", "trtllm_allreduce")),
    ("c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>", ("all_reduce", "symmetric_memory")),
    ("void c10d::symmetric_memory::multimem_all_reduce_kernel<bf16>", ("all_reduce", "symmetric_memory")),
    ("void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)", ("all_to_all", "deepep")),
    ("deep_ep::internode_ll::combine<false>", ("all_to_all", "deepep")),
])
def test_communication_kernels_of_every_generation(name, expected):
    assert C.classify(name) == C.COMM
    assert (C.collective_op(name), C.comm_library(name)) == expected


@pytest.mark.parametrize("name, cls", [
    ("nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN", C.GEMM),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1", C.GEMM),
    ("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_tn", C.GEMM),
    ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(T1::Params)", C.GEMM),
    ("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(flash::Flash_fwd_params)", C.ATTENTION),
    ("void vllm::paged_attention_v2_kernel<__nv_bfloat16, 128>", C.ATTENTION),
    ("void flashinfer::BatchDecodeWithPagedKVCacheKernel<true>", C.ATTENTION),
    ("void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, const c10::BFloat16*, float, int, int)", C.NORM),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, T2, T3)", C.NORM),
    ("void at::native::reduce_kernel<512, 1>(T3)", C.NORM),
    ("compute_kernel(int *, int *, int)", C.OTHER),
])
def test_compute_kernel_classes(name, cls):
    assert C.classify(name) == cls
    assert C.collective_op(name) is None


def test_tensorrt_pooling_kernels_are_not_gemms():
    """TensorRT names its pooling kernels from the same xmma library as its convolutions
    (memfusion: `sm50_xmma_pooling_...`): a pooling window is a memory-bound reduction, not a GEMM;
    the implicit-GEMM convolutions beside them stay GEMMs."""
    import sqlite3

    db = sqlite3.connect(shared_path("captures", "memfusion_rtx3090x4_trt_2023_1.sqlite"))
    names = [n for (n,) in db.execute("SELECT DISTINCT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                      "JOIN StringIds s ON s.id = k.shortName")]
    pooling = [n for n in names if "_pooling_" in n]
    convs = [n for n in names if "implicit_gemm" in n]
    assert len(pooling) == 2 and convs
    assert {C.classify(n) for n in pooling} == {C.NORM}
    assert {C.classify(n) for n in convs} == {C.GEMM}


def test_steps_from_the_repeating_kernel_pattern():
    """Gaussian elimination launches Fan1 then Fan2 once per row: Fan1 marks the iteration."""
    with open_capture(shared_path("captures", "rodinia_gaussian_rtx3090_2022_4.sqlite")) as cap:
        (a,) = T.gpu_activity(cap)
        steps = S.pattern_steps(cap, a.pid, a.device)
        starts = [s for (s,) in cap.query(
            "SELECT k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
            "WHERE s.value = 'Fan1' ORDER BY k.start")]
    assert steps.method == "pattern:Fan1" and steps.count == 4094
    intervals = sorted(b - a for a, b in zip(starts, starts[1:]))
    assert (steps.percentile(50) == intervals[len(intervals) // 2 - 1]
            or steps.percentile(50) == intervals[len(intervals) // 2])
    assert steps.percentile(50) <= steps.percentile(95) <= steps.percentile(99) <= intervals[-1]


def test_steps_from_named_nvtx_range_and_typos():
    path = shared_path("captures", "fuser_h200_crossentropy_2025_1.sqlite")
    with open_capture(path) as cap:
        steps = S.nvtx_steps(cap, "FusionKernelRuntime::compileKernel")
        assert steps.method == "nvtx:FusionKernelRuntime::compileKernel" and 1 <= steps.count <= 8
        assert S.nvtx_steps(cap) is None  # no common step name in a compiler trace
        with pytest.raises(InputError, match="closest: FusionKernelRuntime::compileKernel"):
            S.nvtx_steps(cap, "FusionKernelRuntime::compileKernal")


def test_step_name_normalisation():
    assert S.normalise("ProfilerStep#12") == "profilerstep"
    assert S.normalise("vllm:execute_model") == "execute_model"
    assert S.normalise("decode 3") == "decode"
    assert S.normalise("aten::copy_, op_id = 9") == "aten::copy_, op_id ="  # no domain to strip


def test_collectives_matched_across_two_ranks_in_one_file():
    """Two torchrun ranks in one export: each SendRecv pair matched in order; skew = start spread."""
    with open_capture(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")) as cap:
        acts = T.gpu_activity(cap)
        ranks = multirank.ranks_of([cap], {cap.name: acts})
        result = multirank.analyse(ranks)
        per_rank = []
        for r in ranks:
            per_rank.append([s for (s,) in cap.query(
                "SELECT k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
                "WHERE s.value LIKE 'ncclDevKernel_SendRecv%' AND k.deviceId = ? "
                "AND ((k.globalPid >> 24) & 16777215) = ? ORDER BY k.start", (r.device, r.pid))])
    assert len(ranks) == 2
    (op,) = result.ops
    spreads = [abs(a - b) for a, b in zip(*per_rank)]
    assert op.op == "send_recv" and op.instances == len(spreads) == 33
    assert op.max_ns == max(spreads) and op.mean_ns == pytest.approx(sum(spreads) / len(spreads))
    late = result.straggler()
    later = [i for i, (a, b) in enumerate(zip(*per_rank)) if b > a]
    assert late.label.startswith("rank 1") and late.last_count == len(later)
    # what rank 1 ran while rank 0 waited (from rank 0's arrival to its own), kernel by kernel
    waits = [(per_rank[0][i], per_rank[1][i]) for i in later]
    doing = {}
    with open_capture(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")) as cap:
        for s, e, name in cap.query(
                'SELECT k.start, k."end", s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s '
                "ON s.id = k.demangledName WHERE k.deviceId = ? AND ((k.globalPid >> 24) & 16777215) = ?",
                (ranks[1].device, ranks[1].pid)):
            inside = sum(max(0, min(e, hi) - max(s, lo)) for lo, hi in waits)
            if inside:
                doing[C.classify(name)] = doing.get(C.classify(name), 0) + inside
    assert late.doing_ns == doing and sum(doing.values()) > 0
    assert late.idle_ns == sum(hi - lo for lo, hi in waits) - sum(doing.values())


def test_what_the_straggler_did_from_the_kept_kernels_equals_a_read_of_its_own(monkeypatch):
    """The straggler's kernels come from the chunks the kernel read kept of its GPU; where it kept
    too few (more kernels than SEQUENCE_KEPT), from a read of their own: the same sums either way."""
    from diagnose.capture import kernels as K

    def straggler():
        with open_capture(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")) as cap:
            ranks = multirank.ranks_of([cap], {cap.name: T.gpu_activity(cap)})
            late = multirank.analyse(ranks).straggler()
            rank = next(r for r in ranks if r.label == late.label)
            return late, K.kernel_groups(cap).kept(rank.pid, rank.device)

    kept_late, kept = straggler()
    monkeypatch.setattr(K, "SEQUENCE_KEPT", 100)  # the kernel read keeps too few: a read of its own
    read_late, none = straggler()
    assert kept is not None and sum(len(part[0]) for part in kept) > 100 and none is None
    assert kept_late.doing_ns == read_late.doing_ns and sum(kept_late.doing_ns.values()) > 0
    assert list(kept_late.doing_ns) == list(read_late.doing_ns)  # the same order (the report's JSON)
    assert kept_late.idle_ns == read_late.idle_ns


def test_collectives_of_each_rank_from_the_kernel_read_equal_a_sorted_query():
    """The ranks' collectives come from the communication kernels the kernel read kept (no sorted
    scan per rank and kind): the same (start, end) rows, in the same order, as a plain query."""
    from diagnose.capture.kernels import kernel_groups

    with open_capture(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")) as cap:
        ranks = multirank.ranks_of([cap], {cap.name: T.gpu_activity(cap)})
        ops = multirank._op_names(cap)
        assert ops and len(ranks) == 2
        for r in ranks:
            for ids in ops.values():
                start, end, ended = multirank._comm_kernels(r, ids, {})
                rows = cap.query(
                    'SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = ? '
                    f"AND ((globalPid >> 24) & 16777215) = ? AND demangledName IN ({','.join('?' * len(ids))}) "
                    "ORDER BY start, rowid", (r.device, r.pid, *ids)).fetchall()
                assert list(zip(start.tolist(), end.tolist())) == rows and ended.all() and len(rows) == 33
        assert sum(len(c[0]) for c in kernel_groups(cap).comm_kernels) == 66


def test_pattern_steps_read_beside_the_nvtx_read_equal_a_read_of_their_own():
    """Without NVTX steps, the NVTX reading thread reads the busiest GPU's kernel pattern once the
    kernel walk names that GPU; the steps equal those pattern_steps reads alone for that GPU."""
    from diagnose.capture import facts as F

    path = shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")
    steps = F.analyse([str(path)]).steps[path.name]
    with open_capture(path) as cap:
        acts = T.gpu_activity(cap)
        assert S.nvtx_steps(cap) is None
        busiest = max(acts, key=lambda a: (a.kernels.count, -a.pid))
        own = S.pattern_steps(cap, busiest.pid, busiest.device)
    assert steps.method.startswith("pattern:") and steps.count >= 3
    assert steps == own and (steps.pid, steps.device) == (busiest.pid, busiest.device)


def test_uvm_migrations_kept_apart_from_copies(tmp_path):
    """Unified-memory page migrations are MEMCPY rows (copyKind 11-13, memory kind 7): they are
    reported as UVM, never as pageable copies. Built with the real 2025.1 DDL (samples/schema)."""
    import sqlite3

    from conftest import REPO

    from diagnose.capture import summaries

    path = tmp_path / "uvm.sqlite"
    db = sqlite3.connect(path)
    db.executescript((REPO / "samples" / "schema" / "nsys-2025.1.1.sql").read_text())
    gpid = (1 << 48) + (4242 << 24)
    cols = "start, end, deviceId, contextId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind"
    rows = [(0, 1000, 0, 1, 7, 1, gpid, 4096, 1, 0, 2),      # explicit HtoD from pageable memory
            (2000, 2600, 0, 1, 7, 0, gpid, 65536, 11, 7, 7),  # UVM migrations, no API call behind them
            (3000, 3500, 0, 1, 7, 0, gpid, 65536, 11, 7, 7),
            (4000, 4100, 0, 1, 7, 0, gpid, 4096, 12, 7, 7)]
    db.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY ({cols}) VALUES ({','.join('?' * 11)})", rows)
    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1, 'x', 'y')")
    db.commit()
    db.close()
    with open_capture(path) as cap:
        copies = {c.kind: c for c in T.copies(cap)}
        names = {r.name: r for r in summaries.memop_time_summary(cap)}
        (act,) = T.gpu_activity(cap)
    assert (copies["HtoD"].uvm, copies["HtoD"].pageable) == (False, 1)
    assert (copies["Unified HtoD"].uvm, copies["Unified HtoD"].count, copies["Unified HtoD"].pageable) == (True, 2, 0)
    assert copies["Unified DtoH"].uvm and copies["Unified DtoH"].bytes == 4096
    assert names["[CUDA Unified Memory memcpy HtoD]"].total == 1100
    assert (act.pid, act.busy_ns, act.idle_ns) == (4242, 1000 + 600 + 500 + 100, 4100 - 2200)


def test_graph_level_trace_rows_count_as_gpu_busy(tmp_path):
    """With --cuda-graph-trace=graph each replay is one CUPTI_ACTIVITY_KIND_GRAPH_TRACE row (columns
    as the 3.28.1 schema reference lists them) and no kernel rows: the GPU is still busy then."""
    import sqlite3

    from conftest import REPO

    path = tmp_path / "graphs.sqlite"
    db = sqlite3.connect(path)
    db.executescript((REPO / "samples" / "schema" / "nsys-2025.1.1.sql").read_text())
    db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL, "
               "deviceId INTEGER NOT NULL, contextId INTEGER, greenContextId INTEGER, streamId INTEGER, "
               "correlationId INTEGER, globalPid INTEGER, graphId INTEGER, graphExecId INTEGER)")
    gpid = (1 << 48) + (77 << 24)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start, end, deviceId, globalPid, graphId) "
                   "VALUES (?, ?, 0, ?, 1)", [(0, 10_000, gpid), (12_000, 22_000, gpid)])
    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1, 'x', 'y')")
    db.commit()
    db.close()
    with open_capture(path) as cap:
        (a,) = T.gpu_activity(cap)
    assert (a.pid, a.device, a.busy_ns, a.idle_ns, a.graph_kernels) == (77, 0, 20_000, 2_000, 2)
