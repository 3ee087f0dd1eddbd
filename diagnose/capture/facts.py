"""Capture analysis -> facts records (the typed records rules read).

`analyse(paths)` opens each capture, runs the summaries and the timeline analysis, and returns a
`CaptureAnalysis` with the records; rules in rules/capture_rules.py read only the records.
Record types that only captures produce live here, as evidence.py allows.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from diagnose.capture import classify as C
from diagnose.capture import forked, multirank, nvtx, summaries
from diagnose.capture import kernels as K
from diagnose.capture import steps as S
from diagnose.capture import timeline as T
from diagnose.capture.kernels import kernel_groups
from diagnose.capture.reader import (
    GRID_COLUMNS,
    KERNEL,
    NVTX,
    RUNTIME,
    Capture,
    one_line,
    open_capture,
    read_error,
)
from diagnose.errors import InputError
from diagnose.evidence import (
    CaptureInfo,
    CollectiveSkew,
    Facts,
    GpuFact,
    GpuTimeline,
    GridUse,
    HostFact,
    LaunchStats,
    Measurement,
    NcclCalls,
    Note,
    StepComm,
    StepStats,
    Straggler,
)

GIVEN = "command line"  # the source of what the user stated (--model, --tp, --gpu, ...)
SUMMARY_ROWS = 50  # rows each nsys-stats summary keeps without --stats (the rest: a count and a total)
TOP_KERNELS = 15  # kernel names in "Top kernels"


@dataclass
class CaptureAnalysis:
    facts: Facts
    summaries: dict[str, dict[str, list]] = field(default_factory=dict)  # file -> key -> rows
    steps: dict[str, S.Steps] = field(default_factory=dict)  # file -> step durations
    paths: dict[str, str] = field(default_factory=dict)  # file -> path it was read from
    comm_names: dict[str, dict[int, str]] = field(default_factory=dict)  # file -> comm kernel name id -> op
    comm_chunks: dict[str, list] = field(default_factory=dict)  # file -> kernels.KernelGroups.comm_chunks
    top_kernels: dict[str, tuple] = field(default_factory=dict)  # file -> summaries.top_kernel_names
    nvtx_gpu: dict[str, list] = field(default_factory=dict)  # file -> summaries.nvtx_gpu_summary (--nvtx-gpu)


def ns_to_ms(ns) -> float:
    """Capture times are integer nanoseconds; reports and findings show milliseconds."""
    return round((ns or 0) / 1e6, 3)


def _gpu_names(cap: Capture) -> dict[tuple[int, int], str]:
    gpus = cap.gpus()
    mapping = cap.device_map()
    out = {}
    for pid, dev in cap.used_devices():
        gid = mapping.get((pid, dev))
        for g in gpus:
            if (gid is not None and g.id == gid) or (gid is None and g.cu_device == dev):
                out[(pid, dev)] = g.name
    return out


def info(cap: Capture) -> CaptureInfo:
    gpus = cap.gpus()
    env = cap.system_env()
    partial = "; ".join(f"{k}={v}" for k, v in cap.meta.items()
                        if k in ("EXPORT_PARAM_TABLES_TO_EXPORT", "EXPORT_PARAM_TIMES_TO_EXPORT") and v)
    used = cap.used_devices()
    return CaptureInfo(
        source=cap.source, file=cap.name, product_version=cap.product_version, schema_version=cap.schema_version,
        session_start_utc_ns=cap.session_start_utc_ns(), missing_tables=cap.missing(),
        gpus_listed=[f"GPU {g.id}: {g.name}" for g in gpus], gpus_used=[f"GPU {g.id}: {g.name}" for g in gpus if g.used]
        or [f"pid {p} cuda:{d}" for p, d in used],
        processes_with_gpu_work=len({p for p, _ in used}), kernel_rows=cap.count(KERNEL),
        runtime_rows=cap.count(RUNTIME), partial_export=partial or None,
        host=env.get("Hostname") or cap.meta.get("EXPORT_HOST"),
    )


def grid_use(cap: Capture) -> GridUse | None:
    """Kernel time by grid size against the SM count of the GPUs used (TARGET_INFO_GPU.smCount;
    the smallest when several kinds ran). From the kernel read's per-(name, grid, block) groups.
    Communication kernels are left out: their block count is NCCL's channel count, sized for the
    links, not for the SMs."""
    if cap.lacks_columns(KERNEL, GRID_COLUMNS):  # no grid sizes is not 1-block grids (Captures' "missing" says)
        return None
    sms = [(g.sm_count, g.name) for g in cap.gpus() if g.used and g.sm_count]
    groups = kernel_groups(cap).by_name
    if not sms or not len(groups):
        return None
    sm, name = min(sms)
    out = GridUse(cap.source, int(sm), f"{cap.source} TARGET_INFO_GPU.smCount ({name})")
    nid, g1, g2, n, total, _low, _high = groups.arrays()
    out.kernel_ns = int(total.sum())
    blocks = np.maximum(1, (g1 & 0xFFFFFFFF) * (g1 >> 32) * (g2 & 0xFFFF))
    small = (blocks < sm) & (kernel_groups(cap).class_of(nid) != K.CLASS_CODES[C.COMM])
    out.small_grid_ns = int(total[small].sum())
    out.small_grid_kernels = int(n[small].sum())
    out.idle_sm_ns = float((total[small] * (1 - blocks[small] / sm)).sum())
    out.single_block_ns = int(total[small & (blocks == 1)].sum())
    worst = np.flatnonzero(small)[np.argsort(-total[small], kind="stable")[:5]]
    names = K.strings_of(cap, nid[worst].tolist())
    out.worst = [(names.get(int(nid[i]), ""), int(blocks[i]), int(total[i])) for i in worst.tolist()]
    return out


def nccl_calls(cap: Capture) -> NcclCalls | None:
    """From the NVTX groups the summary and the steps already read (no extra scan of NVTX)."""
    import re

    out = NcclCalls(cap.source)
    for name, _style, n, _ended, total, _low, _high in summaries.nvtx_groups(cap):
        call = re.sub(r"^NCCL:", "", name or "")
        if re.match(r"nccl[A-Z]\w*$", call):
            c = out.calls.setdefault(call, [0, 0])
            c[0] += int(n)
            c[1] += int(total or 0)
    if not out.calls:
        return None
    t = "NVTX_PAYLOAD_SCHEMA_ENTRIES"
    if cap.has(t) and cap.has_column(t, "name"):
        out.payload_fields = sorted({str(n) for (n,) in cap.query(f"SELECT DISTINCT name FROM {t}") if n})
    return out


def per_gpu_comm(cap: Capture) -> dict[tuple[int, int], list[tuple[int, int, int]]]:
    """(pid, device) -> [(name id, count, total ns)] of communication kernels only."""
    return kernel_groups(cap).comm_rows()


def timelines(cap: Capture, acts: list[T.GpuActivity]) -> list[GpuTimeline]:
    names = _gpu_names(cap)
    comm = per_gpu_comm(cap)
    labels = T.gap_bucket_labels()
    out = []
    for a in acts:
        g = GpuTimeline(
            source=cap.source, gpu=f"pid {a.pid} cuda:{a.device}", pid=a.pid, device=a.device,
            gpu_name=names.get((a.pid, a.device)), span_ns=a.all.span, busy_ns=a.busy_ns, idle_ns=a.idle_ns,
            kernels=a.kernels.count, kernel_ns=sum(a.class_ns.values()),
            class_ns=dict(a.class_ns), class_count=dict(a.class_count),
            comm_union_ns=a.comm.union, compute_union_ns=a.compute.union,
            exposed_comm_ns=a.exposed_comm_ns, overlapped_comm_ns=a.overlapped_comm_ns,
            gap_histogram={lab: [c, n] for lab, c, n in zip(labels, a.gap_hist_count, a.gap_hist_ns)},
            small_gaps=a.kernel_gap_count, small_gap_ns=a.kernel_gap_ns, short_kernels=a.short_kernels,
            graph_kernels=a.graph_kernels, copy_ns=a.copy_ns, duration_hist=list(a.duration_hist),
        )
        if g.gpu_name:
            g.gpu = f"{g.gpu} ({g.gpu_name})"
        big = [i for i, e in enumerate((0,) + T.GAP_EDGES_US) if e * 1000 >= T.LARGE_GAP_NS]
        g.large_gaps = sum(a.gap_hist_count[i] for i in big)
        g.large_gap_ns = sum(a.gap_hist_ns[i] for i in big)
        for nid, n, tot in comm.get((a.pid, a.device), []):
            name = cap.string(nid) or ""
            op = C.collective_op(name) or "other"
            g.comm_ops[op] = g.comm_ops.get(op, 0) + n
            g.comm_ops_ns[op] = g.comm_ops_ns.get(op, 0) + tot
            lib = C.comm_library(name) or "other"
            g.comm_libraries[lib] = g.comm_libraries.get(lib, 0) + n
        out.append(g)
    return out


GAP_CAUSE_SHARE = 0.15  # idle share of the span from which the largest gaps' CPU side is looked up


def add_host_stall(cap: Capture, tls: list[GpuTimeline], acts: list[T.GpuActivity]) -> list[T.IdleGapCause]:
    """Only GPUs with real idle time pay for the API merge (their large gaps the walk listed);
    those idle for a sixth of their span or more also get the CPU work behind their largest gaps."""
    gaps, causes = {}, []
    listed = {(a.pid, a.device): a.large_gaps for a in acts}
    for g in tls:
        if g.span_ns and g.large_gap_ns > 0.05 * g.span_ns:
            gaps[(g.pid, g.device)] = listed.get((g.pid, g.device), [])
            g.host_stall_gaps, g.host_stall_ns = T.host_stall(cap, g.pid, gaps[(g.pid, g.device)])
            if g.large_gap_ns >= GAP_CAUSE_SHARE * g.span_ns:
                causes += T.gap_causes(cap, g.pid, g.device, gaps[(g.pid, g.device)])
    _turn_taking(tls, gaps)
    return causes


def _turn_taking(tls: list[GpuTimeline], gaps: dict) -> None:
    """For GPUs that exchange send/recv only: how much of each one's idle gaps the others spent
    busy. Pipeline stages take turns (one idles while another computes); ranks of sequence- or
    context-parallel attention, which also use send/recv, idle together."""
    peers = [g for g in tls if g.comm_ops.get("send_recv") and not g.comm_ops.get("all_reduce")]
    if len(peers) < 2 or not all((g.pid, g.device) in gaps for g in peers):
        return
    idle = {(g.pid, g.device): _intervals(gaps[(g.pid, g.device)]) for g in peers}
    for g in peers:
        together = None  # the times every other peer was idle too
        for o in peers:
            if o is not g:
                mine = idle[(o.pid, o.device)]
                together = mine if together is None else _intersect(together, mine)
        own = idle[(g.pid, g.device)]
        g.idle_while_peer_busy_ns = _length(own) - _length(_intersect(own, together))


def _intervals(pairs: list) -> np.ndarray:
    """(start, end) pairs as an (n, 2) int64 array."""
    return np.fromiter(itertools.chain.from_iterable(pairs), dtype=np.int64, count=2 * len(pairs)).reshape(-1, 2)


def _length(intervals: np.ndarray) -> int:
    return int((intervals[:, 1] - intervals[:, 0]).sum())


def _intersect(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection of two sorted (n, 2) arrays of disjoint [start, end) intervals: the stretches
    between consecutive boundaries of either that both cover (one sort of the boundaries, where a
    two-pointer walk in Python took 0.05 s for two GPUs' 22 k and 27 k gaps)."""
    if not len(a) or not len(b):
        return np.empty((0, 2), dtype=np.int64)
    at = np.concatenate((a[:, 0], a[:, 1], b[:, 0], b[:, 1]))
    step = np.repeat(np.array([1, -1, 1, -1], dtype=np.int64), [len(a), len(a), len(b), len(b)])
    order = np.argsort(at, kind="stable")
    at, step = at[order], step[order]
    last = np.append(at[1:] != at[:-1], True)  # each boundary once, its coverage after every step there
    where, cover = at[last], np.cumsum(step)[last]
    both = np.flatnonzero(cover[:-1] == 2)
    return np.stack((where[both], where[both + 1]), axis=1)


def launch_stats(cap: Capture) -> list[LaunchStats]:
    out = []
    for p in T.process_api(cap).values():
        out.append(LaunchStats(
            source=cap.source, pid=p.pid, kernel_launches=p.launches.calls, graph_launches=p.graph_launches.calls,
            launch_ns=p.launches.total_ns + p.graph_launches.total_ns,
            sync_calls=p.syncs.calls, sync_ns=p.syncs.total_ns,
            sync_copy_calls=p.sync_copies.calls, sync_copy_ns=p.sync_copies.total_ns,
            queue_mean_ns=p.queue_mean_ns, queue_p50_ns=p.queue_p50_ns,
            api_calls=p.all_calls.calls, api_ns=p.all_calls.total_ns))
    return out


def find_steps(cap: Capture, tls: list[GpuTimeline], step_name: str | None) -> S.Steps | None:
    """NVTX step ranges (named or auto-detected), else the repeating kernel pattern of the busiest GPU."""
    steps = cap.cache["nvtx_steps"] if "nvtx_steps" in cap.cache else S.nvtx_steps(cap, step_name)
    if steps is None and tls:
        busiest = max(tls, key=lambda g: (g.kernels, -g.pid))  # as _busiest
        gpu, read = cap.cache.get("pattern_steps", (None, None))  # the NVTX thread's (_nvtx_aggregates)
        steps = read if gpu == (busiest.pid, busiest.device) else S.pattern_steps(
            cap, busiest.pid, busiest.device, sequence=kernel_groups(cap).sequence(busiest.pid, busiest.device))
    return steps if steps is not None and steps.count else None


def step_stats(cap: Capture, steps: S.Steps) -> StepStats:
    return StepStats(cap.source, steps.method, steps.count, steps.percentile(50), steps.percentile(95),
                     steps.percentile(99), steps.mean_ns, steps.pid, steps.device, steps.kernels_per_step)


def analyse(paths: list[str], step_name: str | None = None, names: list[str] | None = None,
            with_summaries: bool = True, deadline_s: float | None = None, medians: bool = True,
            nvtx_gpu: bool = False) -> CaptureAnalysis:
    """Open every capture, analyse it, and return the facts (InputError on unreadable input).
    `nvtx_gpu`: also GPU kernel time per NVTX range (a join of ranges, launches and kernels)."""
    _refuse_repeats(paths)
    facts = Facts()
    result = CaptureAnalysis(facts)
    caps: list[Capture] = []
    pending: list[_Rest] = []  # each file's second half (after its NVTX read), see _analyse_one
    try:
        for i, path in enumerate(paths):
            cap = open_capture(path, deadline_s=deadline_s)
            if names and i < len(names):
                cap.path = type(cap.path)(names[i])
            caps.append(cap)
        _refuse_same_session(caps)
        activities: dict[str, list] = {}
        for cap in caps:
            rest = _guarded(cap, _analyse_one, cap, result, activities, step_name, with_summaries, medians, nvtx_gpu)
            pending.append(rest)
            if cap is not caps[-1]:
                _guarded(cap, rest, facts)
        # the last file's NVTX thread is still reading: the ranks are matched meanwhile
        ranks = multirank.ranks_of(caps, activities)
        try:
            mr = multirank.analyse(ranks)
        except sqlite3.Error as exc:
            raise read_error(", ".join(c.name for c in caps), exc) from None
        _guarded(caps[-1], pending[-1], facts)
        if mr:
            _multirank_facts(caps, mr, facts)
    finally:
        for rest in pending:
            rest.wait()
        for cap in caps:
            cap.close()
    return result


def _guarded(cap: Capture, work, *args):
    """work(*args), with an sqlite error or a value of the wrong type (damaged pages) met while
    reading `cap` turned into the one-line InputError."""
    try:
        return work(*args)
    except sqlite3.Error as exc:
        raise read_error(cap.path, exc) from None
    except (TypeError, ValueError, ArithmeticError) as exc:
        # Values of the wrong type come from damaged pages; anything else is our bug.
        problem = damage(cap)
        if problem:
            raise InputError(f"{cap.path}: damaged SQLite file ({problem})") from None
        raise exc


def _refuse_repeats(paths: list[str]) -> None:
    """One export given twice (same path, another relative path, a link) is not two ranks."""
    seen: dict[tuple[int, int], str] = {}
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue  # open_capture says what is wrong with it
        key = (st.st_dev, st.st_ino)
        if key in seen:
            same = "" if str(seen[key]) == str(path) else f" (the same file as {seen[key]})"
            raise InputError(f"{path}: given twice{same}; give each rank's export once")
        seen[key] = path


def _refuse_same_session(caps: list[Capture]) -> None:
    """A copy of an export (or the same report exported twice) is not a second rank: two ranks'
    captures are two nsys sessions, so one session start on one host, with the same processes and
    GPUs and the same kernel rows, is one capture given twice."""
    sessions: dict[tuple, list[Capture]] = {}
    for cap in caps:
        start = cap.session_start_utc_ns()
        if start is not None:
            sessions.setdefault((start, cap.meta.get("EXPORT_HOST")), []).append(cap)
    for (start, _host), same_start in sessions.items():
        if len(same_start) < 2:
            continue  # kernel rows and GPUs are counted only where two captures share a session start and host
        seen: dict[tuple, Capture] = {}
        for cap in same_start:
            key = (cap.count(KERNEL), tuple(cap.used_devices()))
            if key in seen:
                raise InputError(f"{cap.path}: the same capture as {seen[key].path} (session start {start} ns, the "
                                 "same processes, GPUs and kernels); give each rank's export once")
            seen[key] = cap


def _analyse_one(cap, result, activities, step_name, with_summaries, medians, nvtx_gpu=False) -> _Rest:
    """Everything that needs no NVTX, read while the NVTX thread (the longest) is still reading;
    returns the rest (_Rest: call it with the facts to finish this file)."""
    values = medians and with_summaries  # --stats: every duration too, for the medians
    # a large NVTX table is read on a process of its own, forked before this file's threads start
    child = forked.Forked(_nvtx_read, cap, values) if forked.usable(cap.rowid_span(NVTX)) else None
    api = _in_background(cap, _api_aggregates, values, medians if with_summaries else None)
    busiest: dict = {}  # the GPU the kernel pattern's steps are read from, once the walk knows it
    walked = threading.Event()
    ranges = _in_background(cap, _nvtx_aggregates, step_name, values, busiest, walked, child)
    try:
        try:
            acts = T.gpu_activity(cap, values=values)
            if acts:
                b = _busiest(acts)
                busiest["gpu"] = (b.pid, b.device)
                busiest["sequence"] = kernel_groups(cap).sequence(b.pid, b.device)
        finally:
            walked.set()
            _joined(cap, api)
        # the walk saw every (process, device) with kernels, copies or memsets: spare another scan
        cap.cache["used_devices"] = sorted((a.pid, a.device) for a in acts if a.device >= 0)
        ci = info(cap)
        gpus = [GpuFact(cap.source, index=g.id, name=g.name, uuid=g.uuid, bus_id=g.bus,
                        memory_total_mib=(g.memory_bytes / 2**20) if g.memory_bytes else None)
                for g in cap.gpus() if g.used]
        launch = launch_records(cap)
        if with_summaries:
            result.top_kernels[cap.name] = summaries.top_kernel_names(cap, TOP_KERNELS)
        groups = kernel_groups(cap)
        result.comm_names[cap.name] = {nid: C.collective_op(cap.string(nid) or "") or "other"
                                       for per_gpu in groups.comm.values() for nid in per_gpu}
        result.comm_chunks[cap.name] = groups.comm_chunks
        tls = timelines(cap, acts)
        causes = add_host_stall(cap, tls, acts)
        later = [*launch_stats(cap), *T.copies(cap), *filter(None, [grid_use(cap)])]
        if nvtx_gpu:  # --nvtx-gpu: GPU time per NVTX range (two temp tables keyed for the joins)
            result.nvtx_gpu[cap.name] = summaries.nvtx_gpu_summary(cap)
    except BaseException:
        if child:
            child.stop()
        ranges[0].join()
        raise
    activities[cap.name] = acts
    result.paths[cap.name] = os.path.abspath(cap.file or cap.path)  # a cached result is read from any folder

    def rest(facts: Facts) -> None:
        _joined(cap, ranges)
        facts.add(ci)
        facts.extend(gpus)
        cpu = cap.system_env().get("CpuDescription", "").strip()
        if cpu:  # the host's CPU as nsys recorded it: NCCL's link between its sockets (rules.topology.ring_route)
            facts.add(HostFact(f"{cap.source} TARGET_INFO_SYSTEM_ENV.CpuDescription", "cpu_model", cpu))
        for m in ci.missing_tables:
            facts.missing.append(f"{cap.name}: {m}")
        facts.extend(launch)
        if launch:
            facts.material.append((f"{cap.source} META_DATA_CAPTURE", cap.launch_text() or ""))
        if with_summaries:
            result.summaries[cap.name] = summaries.all_summaries(cap, medians=medians,
                                                                 limit=None if medians else SUMMARY_ROWS)
        facts.extend(tls)
        facts.extend(causes)
        facts.extend(later)
        nccl = nccl_calls(cap)
        if nccl:
            facts.add(nccl)
        steps = find_steps(cap, tls, step_name)
        if steps:
            result.steps[cap.name] = steps
            st = step_stats(cap, steps)
            facts.add(st)
            if st.p50_ns:
                facts.add(Measurement(cap.source, "step_ms", st.p50_ns / 1e6, "ms", stat="median"))

    return _Rest(rest, ranges[0], child)


@dataclass
class _Rest:
    """The second half of one file's analysis (what needs its NVTX read), that read's thread and
    the process it reads on (forked.Forked), if any."""

    finish: Any
    worker: threading.Thread
    child: forked.Forked | None

    def __call__(self, facts: Facts) -> None:
        self.finish(facts)

    def wait(self) -> None:
        """Let the NVTX thread end before the file's connections close (an error left it running);
        its process, should one still read (an error or Ctrl-C here), is stopped first."""
        if self.child:
            self.child.stop()
        self.worker.join()


def _joined(cap: Capture, side: tuple) -> None:
    """Wait for a background aggregate (_in_background); its results become cache entries of
    `cap`, or its error is raised here."""
    worker, into = side
    worker.join()
    if "error" in into:
        raise into["error"]
    cap.cache.update(into)


def step_comm(result: CaptureAnalysis) -> list[StepComm]:
    """Communication kernels inside each capture's measured steps, per GPU.

    Pattern steps are on the GPU already (first to last start of the marker kernel). NVTX ranges
    are CPU time; a step range that waits for its result (as engines' execute_model does) holds
    its kernels, so kernels that start between the first range's start and the last one's end
    count. The kernel read kept per-chunk counts (KernelGroups.comm_chunks): chunks wholly
    inside the window add those, and only chunks that straddle its edges are read again.
    """
    out = []
    names = {(g.source, g.pid, g.device): g.gpu for g in result.facts.of(GpuTimeline)}
    for file, steps in result.steps.items():
        ids = result.comm_names.get(file)
        if not steps.window or not ids:
            continue
        start, end = steps.window
        wanted = (steps.pid or 0, steps.device) if steps.device is not None else None  # pattern: its GPU only
        how = ("kernels starting between the first NVTX step's start and the last one's end"
               if steps.method.startswith("nvtx:") else "kernels starting from the first to the last marker kernel")
        counts: dict[tuple[int, int], dict[int, list[int]]] = {}

        def add(gpu, nid, n, ns, wanted=wanted, counts=counts):  # this file's window and tally
            if wanted is None or gpu == wanted:
                c = counts.setdefault(gpu, {}).setdefault(nid, [0, 0])
                c[0] += n
                c[1] += ns or 0

        straddling = []
        for lo, hi, first, last, groups in result.comm_chunks.get(file, []):
            if start <= first and last < end:
                for key, nid, n, ns in groups:
                    add(K.gpu_of(key), nid, n, ns)
            elif not (last < start or first >= end):
                straddling.append((lo, hi))
        if straddling:
            with open_capture(result.paths[file]) as cap:
                col = K.class_column(cap) or "NULL"
                for lo, hi in straddling:
                    for pid, dev, nid, n, ns in cap.query(
                            f"SELECT (coalesce(globalPid, 0) >> 24) & 16777215, coalesce(deviceId, -1), {col}, "
                            f"count(*), sum(\"end\" - start) FROM {KERNEL} "
                            "WHERE rowid >= ? AND rowid < ? AND \"end\" IS NOT NULL "
                            f"AND start >= ? AND start < ? AND {col} IN ({','.join(str(int(i)) for i in ids)}) "
                            "GROUP BY 1, 2, 3", (lo, hi, int(start), int(end))):
                        add((pid, dev), nid, n, ns)
        for (pid, dev), per_name in sorted(counts.items()):
            source = f"capture:{file}"
            sc = StepComm(source, names.get((source, pid, dev), f"pid {pid} cuda:{dev}"), pid, dev, steps.count,
                          int(start), int(end), how)
            for nid, (n, ns) in per_name.items():
                op = ids.get(nid, "other")
                sc.ops[op] = sc.ops.get(op, 0) + n
                sc.ops_ns[op] = sc.ops_ns.get(op, 0) + ns
            out.append(sc)
    return out


def _in_background(cap: Capture, work, *args) -> tuple[threading.Thread, dict]:
    """Run work(other, *args) on a thread of its own with a second read-only connection `other`;
    its cache entries (or the error) land in the returned dict once the thread is joined.

    The work is mostly SQLite, and the sqlite3 module releases the GIL while a statement runs:
    the API and NVTX aggregates run on other cores while the calling thread reads the kernel
    table, instead of after it."""
    into: dict = {}

    def run():
        try:
            with cap.another() as other:
                work(other, *args)
                into.update(other.cache)
        except Exception as exc:  # noqa: BLE001 - handed to the calling thread, which raises it
            into["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return worker, into


def _api_aggregates(other: Capture, medians: bool, memops: bool | None) -> None:
    """The CUDA API groups (with every duration for --stats, the calls of the launch-latency
    sample, matched with the kernel read's once both are done: launch_stats, and the blocking
    calls the host-stall check reads: timeline.blocking_sample), else the latency sample's join;
    the copies, the row counts, and the memory-operation summaries (with medians or not; None: none)."""
    if medians:
        summaries.api_stats(other, T.blocking_sample(other))  # gives the groups and the blocking calls too
    else:
        T.queue_delays(other)
    summaries.api_groups(other)
    if memops is not None:
        summaries.memop_summaries(other, memops)  # cached for all_summaries; with medians, the copies' groups too
    T.copies(other)
    other.count(KERNEL), other.count(RUNTIME)


def _nvtx_aggregates(other: Capture, step_name: str | None, medians: bool, busiest: dict,
                     walked: threading.Event, child: forked.Forked | None) -> None:
    """The NVTX groups (with every duration for --stats; from `child` when they are read on a
    process of its own) and the NVTX steps; without NVTX steps, the kernel pattern's steps of the
    busiest GPU once the kernel walk names it (find_steps): read here, they overlap what the
    calling thread does after the walk instead of following it."""
    if child:
        other.cache["nvtx"] = child.result()
    nvtx.groups(other, values=medians)
    other.cache["nvtx_steps"] = S.nvtx_steps(other, step_name)
    if other.cache["nvtx_steps"] is None:
        walked.wait()
        if "gpu" in busiest:  # from the kernels the walk kept for it (KernelGroups.sequence)
            other.cache["pattern_steps"] = (busiest["gpu"], S.pattern_steps(other, *busiest["gpu"],
                                                                             sequence=busiest["sequence"]))


def _nvtx_read(cap: Capture, values: bool) -> nvtx.NvtxGroups:
    """The NVTX groups on a connection of the forked child's own (forked.Forked)."""
    with cap.another() as other:
        return nvtx.groups(other, values=values)


def _busiest(acts: list[T.GpuActivity]) -> T.GpuActivity:
    """The GPU with most kernels (the lowest pid among equals), as find_steps picks it."""
    return max(acts, key=lambda a: (a.kernels.count, -a.pid))


def launch_records(cap: Capture) -> list:
    """Workload and NCCL settings from the command line nsys recorded (the launch-line parser)."""
    text = cap.launch_text()
    if not text:
        return []
    from diagnose.artifacts import launch

    return [r for r in launch.parse(text, f"{cap.source} META_DATA_CAPTURE") if not isinstance(r, Note)]


def _multirank_facts(caps, mr: multirank.MultiRank, facts: Facts) -> None:
    source = caps[0].source if len(caps) == 1 else f"{caps[0].source} .. {caps[-1].name} ({len(caps)} files)"
    for op in mr.ops:
        facts.add(CollectiveSkew(source, op.op, op.instances, len(mr.ranks), op.mean_ns, op.percentile(50),
                                 op.percentile(95), op.max_ns, op.mismatched))
    s = mr.straggler()
    if s and s.last_count:
        others = sorted((w.lateness_ns for w in mr.waits if w is not s), reverse=True)
        late = next((c.source for c in caps if c.name in s.label), source)
        facts.add(Straggler(late, s.label, len(mr.ranks), mr.collectives, s.last_count, s.lateness_ns,
                            s.lateness_ns / max(1, s.last_count), dict(s.doing_ns), s.idle_ns,
                            others[0] if others else 0))


def damage(cap: Capture) -> str | None:
    """SQLite's own integrity check (first problem), or None when the file is sound."""
    try:
        rows = cap.query("PRAGMA quick_check(1)").fetchall()
    except sqlite3.Error as exc:
        return one_line(str(exc))
    return None if rows and rows[0][0] == "ok" else one_line(str(rows[0][0] if rows else "unreadable"))


def capture_facts(paths: list[str], names: list[str] | None = None) -> list:
    """The records of captures read together, as `diagnose capture` reads them (the ticket bundle
    reader hands its SQLite files here), with the communication inside the measured steps that
    step_vs_prediction and pp_bubble weigh."""
    result = analyse(list(paths), names=names, with_summaries=False, deadline_s=120)
    return list(result.facts.records) + step_comm(result) + [_missing_note(m) for m in result.facts.missing]


def _missing_note(text: str):
    from diagnose.evidence import Note

    file = text.split(":", 1)[0]
    return Note(f"capture:{file}", "missing_table", text)
