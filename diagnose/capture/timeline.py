"""What each GPU was doing over time: busy/idle, gaps, kernel classes, overlap, copies, launches.

All per-GPU numbers come from one walk per capture over kernels, copies and memsets in start
order (nsys writes the tables that way: they are read in rowid order and merged; SQLite sorts
them only when one is not). numpy walks the rows in chunks, keeping running maxima of the end
time for four subsets (all activity, kernels, compute kernels, communication kernels). A row
that starts after the running maximum of its subset opens a gap; the union of a subset's
intervals is its span minus its gaps. Memory: one chunk of rows.

Exposed communication = |U(comm) minus U(compute)| = |U(all kernels)| - |U(compute)|.
"""

from __future__ import annotations

import itertools
import sqlite3
from dataclasses import dataclass, field

import numpy as np

from diagnose.capture import classify as C
from diagnose.capture import kernels as K
from diagnose.capture import launches
from diagnose.capture.grouped import GroupedValues, distinct
from diagnose.capture.reader import COPY_KINDS, KERNEL, MEMCPY, MEMSET, RUNTIME, UVM_COPY_KINDS, Capture, pid_of
from diagnose.capture.summaries import PAGEABLE_UNDECIDED, api_base_name, api_groups, copy_group_keys
from diagnose.evidence import DURATION_EDGES_NS, CopyStats, IdleGapCause

# Idle-gap histogram edges in microseconds (nsys analyze uses one 500 ms threshold; decode
# steps live at 10 us .. 10 ms).
GAP_EDGES_US = (1, 5, 10, 50, 100, 1000, 10_000)
LARGE_GAP_NS = 50_000  # a gap no launch latency explains: the host was doing something else
LARGE_GAPS_KEPT = 200_000  # large gaps listed per GPU (for the host-stall and turn-taking accounting)
SHORT_KERNEL_NS = 10_000

# One integer per (process, device): globalPid keeps its pid bits (24..47), the CUDA ordinal
# fills the low 24 bits (where globalPid has the thread id, always 0). Sorting one integer key
# is much cheaper than two.
GPU_KEY = "(((coalesce({p}globalPid, 0) >> 24) << 24) | (coalesce({p}deviceId, 16777215) & 16777215))"

CLASS_CODES = K.CLASS_CODES
COPY_CODE, MEMSET_CODE = 5, 6
GRAPH_TRACE = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"  # graph-level CUDA graph tracing (no per-kernel rows)

LAUNCH_APIS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel",
               "cudaLaunchCooperativeKernelMultiDevice", "cuLaunchKernel", "cuLaunchKernelEx",
               "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernelMultiDevice", "cudaLaunch"}
GRAPH_LAUNCH_APIS = {"cudaGraphLaunch", "cuGraphLaunch"}
SYNC_APIS = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
             "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"}
SYNC_COPY_APIS = {"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
                  "cudaMemcpyPeer", "cudaMemset", "cudaMemset2D", "cuMemcpy", "cuMemcpyHtoD", "cuMemcpyDtoH",
                  "cuMemcpyDtoD", "cuMemcpyPeer", "cuMemsetD8", "cuMemsetD32"}
BLOCKING = ("sync", "sync_copy")  # the API kinds (api_kind) in which the host waits for the GPU


def gap_bucket_labels() -> list[str]:
    edges = GAP_EDGES_US
    labels = [f"<{edges[0]}us"]
    labels += [f"{a}-{b}us" for a, b in zip(edges, edges[1:])]
    return labels + [f">={edges[-1]}us"]


@dataclass
class Interval:
    """Count, first start, last end and summed gaps of one subset of a GPU's activity."""

    count: int = 0
    first: int | None = None
    last: int | None = None
    gaps: int = 0

    @property
    def span(self) -> int:
        return (self.last - self.first) if self.count and self.first is not None and self.last is not None else 0

    @property
    def union(self) -> int:
        return max(0, self.span - self.gaps)


@dataclass
class GpuActivity:
    """One (process, device) of one capture."""

    pid: int
    device: int
    all: Interval
    kernels: Interval
    compute: Interval
    comm: Interval
    class_ns: dict[str, int] = field(default_factory=dict)
    class_count: dict[str, int] = field(default_factory=dict)
    gap_hist_count: list[int] = field(default_factory=list)
    gap_hist_ns: list[int] = field(default_factory=list)
    kernel_gap_count: int = 0  # gaps between consecutive kernels shorter than LARGE_GAP_NS
    kernel_gap_ns: int = 0
    short_kernels: int = 0
    graph_kernels: int = 0
    copy_ns: int = 0
    memset_ns: int = 0
    duration_hist: list[int] = field(default_factory=lambda: [0] * (len(DURATION_EDGES_NS) + 1))
    # (start, end) of the first LARGE_GAPS_KEPT idle gaps >= LARGE_GAP_NS, in time order
    large_gaps: list[tuple[int, int]] = field(default_factory=list)

    @property
    def busy_ns(self) -> int:
        return self.all.union

    @property
    def idle_ns(self) -> int:
        return self.all.gaps

    @property
    def exposed_comm_ns(self) -> int:
        return max(0, self.kernels.union - self.compute.union)

    @property
    def overlapped_comm_ns(self) -> int:
        return max(0, self.comm.union - self.exposed_comm_ns)


def ensure_class_table(cap: Capture) -> str:
    """A TEMP table nameId -> class code for SQL that joins kernels to their class.

    Filled from the classes the kernel read found (kernels.kernel_groups). Returns the kernel
    column it keys on (shortName, or demangledName where shortName is absent). The temp table
    lives in the connection's temp database, never in the user's file.
    """
    if cap._class_col:
        return cap._class_col
    col = K.class_column(cap) or "shortName"
    cap.query("CREATE TEMP TABLE IF NOT EXISTS dx_kclass (nameId INTEGER PRIMARY KEY, cls INTEGER)")
    rows = [(i, code) for i, code in K.kernel_groups(cap).classes.items() if i >= 0]
    cap.conn.executemany("INSERT OR REPLACE INTO dx_kclass VALUES (?, ?)", rows)
    cap._class_col = col
    return col


class _Unordered(Exception):
    """A table is not in start order by rowid: the walk needs SQLite to sort it."""


def gpu_activity(cap: Capture, values: bool = False) -> list[GpuActivity]:
    """Per (process, device) activity from one walk over kernels, copies and memsets in start
    order: numpy keeps running maxima of `end` per subset (all activity, kernels, compute,
    communication); a row that starts after its subset's running maximum opens a gap, and a
    subset's union is its span minus its gaps. Memory: one chunk.

    nsys writes these tables in start order, so they are read in rowid order and merged by
    start, and the same read of the kernel table fills the kernel aggregates
    (kernels.kernel_groups; with `values`, every duration too, for the medians). A table found out
    of order is sorted by SQLite instead.
    """
    groups = K.KernelGroups(values=GroupedValues(cap.rowid_span(KERNEL)) if values else None)
    try:
        walker = _walk(_merge(_sources(cap, groups)))
    except _Unordered:
        cap.cache.pop("kernel_groups", None)
        groups = K.kernel_groups(cap, values)
        walker = _walk(_sorted_by_sqlite(cap))
    cap.cache["kernel_groups"] = groups
    return walker.result()


def _walk(blocks) -> "_Walker":
    walker = _Walker()
    for gpu, s, e, tag in blocks:
        if gpu[0] != gpu[-1] or not (gpu == gpu[0]).all():
            order = np.argsort(gpu, kind="stable")  # per GPU, still in start order
            gpu, s, e, tag = gpu[order], s[order], e[order], tag[order]
        cuts = np.flatnonzero(np.diff(gpu)) + 1
        for lo, hi in zip(np.concatenate(([0], cuts)).tolist(), np.concatenate((cuts, [len(gpu)])).tolist()):
            walker.feed(int(gpu[lo]), s[lo:hi], e[lo:hi], tag[lo:hi])
    return walker


def _sources(cap: Capture, groups: K.KernelGroups) -> list:
    """One (GPU key, start, end, tag) chunk iterator per activity table, each in rowid order."""
    out = []
    if cap.has(KERNEL):
        out.append(K.KernelReader(cap, groups).chunks())
    gpu = ["start", '"end"', "coalesce(globalPid, 0) >> 24", f"coalesce(deviceId, {K.NO_DEVICE})"]
    if cap.has(GRAPH_TRACE) and all(cap.has_column(GRAPH_TRACE, c) for c in ("deviceId", "globalPid")):
        # --cuda-graph-trace=graph: a whole replay is one row; it counts as one graph-launched kernel
        out.append(_plain(cap, GRAPH_TRACE, gpu, CLASS_CODES[C.OTHER] | (1 << 3)))
    for table, code in ((MEMCPY, COPY_CODE), (MEMSET, MEMSET_CODE)):
        if cap.has(table):
            out.append(_plain(cap, table, gpu, code))
    return out


def _plain(cap: Capture, table: str, exprs: list[str], tag: int):
    for start, end, pid_bits, dev in cap.chunks(table, exprs, where='"end" IS NOT NULL'):
        yield K.gpu_key(pid_bits, dev), start, end, np.full(len(start), tag, dtype=np.int64)


def _merge(sources: list):
    """Blocks of (GPU key, start, end, tag) in start order, merged from iterators that are each
    in start order (checked: _Unordered otherwise). A block holds every buffered row that starts
    no later than the earliest last-buffered start of the iterators not yet exhausted."""
    bufs: list = [None] * len(sources)
    done = [False] * len(sources)
    last = [None] * len(sources)
    while True:
        for i, src in enumerate(sources):
            if not done[i] and (bufs[i] is None or not len(bufs[i][1])):
                bufs[i] = next(src, None)
                if bufs[i] is None:
                    done[i] = True
                    continue
                s = bufs[i][1]
                if (last[i] is not None and s[0] < last[i]) or (len(s) > 1 and (s[1:] < s[:-1]).any()):
                    raise _Unordered
                last[i] = s[-1]
        live = [i for i in range(len(sources)) if bufs[i] is not None and len(bufs[i][1])]
        if not live:
            return
        open_ends = [bufs[i][1][-1] for i in live if not done[i]]
        horizon = min(open_ends) if open_ends else None
        parts = []
        for i in live:
            cut = len(bufs[i][1]) if horizon is None else int(np.searchsorted(bufs[i][1], horizon, side="right"))
            if cut:
                parts.append(tuple(a[:cut] for a in bufs[i]))
                bufs[i] = tuple(a[cut:] for a in bufs[i])
        if len(parts) == 1:
            yield parts[0]
        else:
            cols = [np.concatenate(c) for c in zip(*parts)]
            order = np.argsort(cols[1], kind="stable")
            yield tuple(c[order] for c in cols)


def _sorted_by_sqlite(cap: Capture):
    """The same blocks when a table is out of start order: SQLite sorts (on disk if it must)."""
    parts = []
    if cap.has(KERNEL):
        col = ensure_class_table(cap)
        graph = "k.graphNodeId IS NOT NULL" if cap.has_column(KERNEL, "graphNodeId") else "0"
        parts.append(
            f"SELECT {GPU_KEY.format(p='k.')} AS gpu, k.start AS s, k.\"end\" AS e, "
            f"coalesce(c.cls, 4) | (({graph}) << 3) AS tag FROM {KERNEL} AS k "
            f"LEFT JOIN temp.dx_kclass AS c ON c.nameId = k.{col} WHERE k.\"end\" IS NOT NULL"
        )
    if cap.has(GRAPH_TRACE) and all(cap.has_column(GRAPH_TRACE, c) for c in ("deviceId", "globalPid")):
        parts.append(f"SELECT {GPU_KEY.format(p='')}, start, \"end\", {CLASS_CODES[C.OTHER]} | (1 << 3) "
                     f"FROM {GRAPH_TRACE} WHERE \"end\" IS NOT NULL")
    for table, code in ((MEMCPY, COPY_CODE), (MEMSET, MEMSET_CODE)):
        if cap.has(table):
            parts.append(f"SELECT {GPU_KEY.format(p='')}, start, \"end\", {code} FROM {table} "
                         "WHERE \"end\" IS NOT NULL")
    if not parts:
        return
    cur = cap.query(f"SELECT gpu, s, e, tag FROM ({' UNION ALL '.join(parts)}) ORDER BY gpu, s")
    while True:
        rows = cur.fetchmany(1 << 16)
        if not rows:
            break
        try:
            flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64, count=4 * len(rows)).reshape(-1, 4)
        except (TypeError, ValueError) as exc:  # text or NULL where the schema has an integer
            raise sqlite3.DatabaseError(f"corrupt value in an activity table ({exc})") from None
        yield flat[:, 0], flat[:, 1], flat[:, 2], flat[:, 3]


class _Walker:
    """Running state of the ordered walk, one GpuActivity per GPU key."""

    NONE = np.iinfo(np.int64).min

    def __init__(self):
        self.acts: dict[tuple, GpuActivity] = {}
        self.reach: dict[int, list[int]] = {}
        self.edges = np.array([e * 1000 for e in GAP_EDGES_US], dtype=np.int64)
        self.dur_edges = np.array(DURATION_EDGES_NS, dtype=np.int64)

    def feed(self, gpu: int, s, e, tag) -> None:
        dev = gpu & 0xFFFFFF
        key = (pid_of(gpu) or 0, -1 if dev == 0xFFFFFF else dev)
        a = self.acts.get(key)
        nb = len(self.edges) + 1
        if a is None:
            a = self.acts[key] = GpuActivity(key[0], key[1], Interval(), Interval(), Interval(), Interval(),
                                            {c: 0 for c in CLASS_CODES}, {c: 0 for c in CLASS_CODES},
                                            [0] * nb, [0] * nb)
            self.reach[gpu] = [self.NONE] * 4
        cls, graph = tag & 7, tag >> 3
        kern = cls < 5
        masks = (np.ones(len(s), dtype=bool), kern, kern & (cls > 0), cls == 0)
        ivs = (a.all, a.kernels, a.compute, a.comm)
        gaps = []
        for i, (mask, iv) in enumerate(zip(masks, ivs)):
            carry = self.reach[gpu][i]
            em = np.where(mask, e, self.NONE)
            acc = np.maximum.accumulate(em)
            prev = np.maximum(np.concatenate(([carry], acc[:-1])), carry)
            gap = np.where(mask & (prev != self.NONE) & (s > prev), s - prev, 0)
            gaps.append(gap)
            self.reach[gpu][i] = max(carry, int(acc[-1]))
            n = int(mask.sum())
            if n:
                iv.count += n
                first, last = int(s[mask][0]), int(e[mask].max())
                iv.first = first if iv.first is None else min(iv.first, first)
                iv.last = last if iv.last is None else max(iv.last, last)
                iv.gaps += int(gap.sum())
        dur = e - s
        names = {code: name for name, code in CLASS_CODES.items()}
        for code in distinct(cls):
            m = cls == code
            if code < 5:
                a.class_ns[names[int(code)]] += int(dur[m].sum())
                a.class_count[names[int(code)]] += int(m.sum())
            elif code == COPY_CODE:
                a.copy_ns += int(dur[m].sum())
            else:
                a.memset_ns += int(dur[m].sum())
        g_all, g_k = gaps[0], gaps[1]
        big = np.flatnonzero(g_all >= LARGE_GAP_NS)[:max(0, LARGE_GAPS_KEPT - len(a.large_gaps))]
        if len(big):
            a.large_gaps += zip((s[big] - g_all[big]).tolist(), s[big].tolist())
        small = (g_k > 0) & (g_k < LARGE_GAP_NS)
        a.kernel_gap_count += int(small.sum())
        a.kernel_gap_ns += int(g_k[small].sum())
        a.short_kernels += int((kern & (dur < SHORT_KERNEL_NS)).sum())
        hist = np.bincount(np.searchsorted(self.dur_edges, dur[kern], side="right"), minlength=len(self.dur_edges) + 1)
        a.duration_hist = [x + int(y) for x, y in zip(a.duration_hist, hist)]
        a.graph_kernels += int(graph[kern].sum())
        opened = g_all > 0
        bucket = np.searchsorted(self.edges, g_all[opened], side="right")
        counts = np.bincount(bucket, minlength=nb)
        for b in np.flatnonzero(counts):
            a.gap_hist_count[b] += int(counts[b])
            a.gap_hist_ns[b] += int(g_all[opened][bucket == b].sum())

    def result(self) -> list[GpuActivity]:
        return [self.acts[k] for k in sorted(self.acts)]


@dataclass
class ApiGroup:
    calls: int = 0
    total_ns: int = 0

    def add(self, calls, total):
        self.calls += int(calls or 0)
        self.total_ns += int(total or 0)


@dataclass
class ProcessApi:
    """CPU-side CUDA API accounting of one process."""

    pid: int
    launches: ApiGroup = field(default_factory=ApiGroup)
    graph_launches: ApiGroup = field(default_factory=ApiGroup)
    syncs: ApiGroup = field(default_factory=ApiGroup)
    sync_copies: ApiGroup = field(default_factory=ApiGroup)
    all_calls: ApiGroup = field(default_factory=ApiGroup)
    queue_mean_ns: float | None = None  # launch API end -> kernel start, positive values only
    queue_p50_ns: float | None = None
    queue_samples: int = 0


def api_kind(raw_name: str) -> str | None:
    base = api_base_name(raw_name)
    if base in LAUNCH_APIS:
        return "launch"
    if base in GRAPH_LAUNCH_APIS:
        return "graph_launch"
    if base in SYNC_APIS:
        return "sync"
    if base in SYNC_COPY_APIS:
        return "sync_copy"
    return None


def process_api(cap: Capture) -> dict[int, ProcessApi]:
    """Launch, graph-launch, synchronisation and synchronous-copy API time per process."""
    out: dict[int, ProcessApi] = {}
    if not cap.has(RUNTIME):
        return out
    for pid, name_id, calls, total, _low, _high in api_groups(cap):
        p = out.setdefault(int(pid or 0), ProcessApi(int(pid or 0)))
        p.all_calls.add(calls, total)
        kind = api_kind(cap.string(name_id) or "")
        if kind:
            getattr(p, {"launch": "launches", "graph_launch": "graph_launches", "sync": "syncs",
                        "sync_copy": "sync_copies"}[kind]).add(calls, total)
    _queue_delay(cap, out)
    return out


def _queue_delay(cap: Capture, out: dict[int, ProcessApi]) -> None:
    for pid, values in queue_delays(cap).items():
        n = len(values)
        p = out.setdefault(pid, ProcessApi(pid))
        p.queue_samples, p.queue_mean_ns = n, sum(values) / n
        p.queue_p50_ns = (values[(n - 1) // 2] + values[n // 2]) / 2


def queue_delays(cap: Capture) -> dict[int, list[int]]:
    """pid -> sorted launch-to-start latencies (API end -> kernel start) of a bounded sample of
    launches (cached per capture; capture.launches).

    From the samples the kernel and API reads took when both did (--stats), else a join in
    SQLite: both sides are filtered on correlationId modulo the stride before the join, so SQLite
    joins two small materialised sets instead of indexing the whole runtime table.
    """
    if "queue_delays" in cap.cache:
        return cap.cache["queue_delays"]
    groups = cap.cache.get("kernel_groups")
    delays = launches.from_reads(cap, groups.launch_sample if groups else None, cap.cache.get("launch_sample_calls"))
    if delays is None:
        delays = {}
        if cap.has(KERNEL) and cap.has(RUNTIME) and cap.has_column(KERNEL, "correlationId"):
            step = launches.stride(cap.count(KERNEL))
            sql = f"""
            WITH kk AS MATERIALIZED (SELECT {launches.KERNEL_PID} AS pid, correlationId AS c, start
                                     FROM {KERNEL} WHERE correlationId % {step} = 0),
                 rr AS MATERIALIZED (SELECT {launches.CALL_PID} AS pid, correlationId AS c, "end"
                                     FROM {RUNTIME} WHERE correlationId % {step} = 0)
            SELECT kk.pid, kk.start - rr."end" FROM kk JOIN rr ON rr.c = kk.c AND rr.pid = kk.pid
            WHERE kk.start > rr."end"
            """
            for pid, d in cap.query(sql):
                delays.setdefault(int(pid or 0), []).append(d)
            for values in delays.values():
                values.sort()
    cap.cache["queue_delays"] = delays
    return delays


def copies(cap: Capture) -> list[CopyStats]:
    """Memory copies by (process, device, kind); UVM page migrations kept apart from real copies.
    One GROUP BY that also splits each group by pageable and by large (cached per capture)."""
    if "copies" not in cap.cache:
        cap.cache["copies"] = _copies(cap) if cap.has(MEMCPY) else []
    return cap.cache["copies"]


def _copies(cap: Capture) -> list[CopyStats]:
    """Grouped by (process, device, kind, pageable, large) and summed up here: a dozen sums of
    products of the pageable flag, each evaluating it again, cost SQLite 4x as much. With
    --stats the memory-operation read has grouped them already (summaries: copy_groups)."""
    rows = cap.cache.get("copy_groups")
    if rows is None:
        keys = ", ".join(copy_group_keys(cap))
        rows = cap.query(f"SELECT {keys}, count(*), sum(\"end\" - start), sum(coalesce(bytes, 0)) FROM {MEMCPY} "
                         f"WHERE \"end\" IS NOT NULL GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3")
    groups: dict[tuple, list] = {}
    for gp, dev, kind, pg, large, n, d, b in rows:
        pg = None if pg == PAGEABLE_UNDECIDED else pg
        g = groups.setdefault((gp, dev, kind), [0, 0, 0, 0, 0, 0, [0, 0, 0], [0, 0, 0]])
        d, b = int(d or 0), int(b or 0)
        g[0], g[1], g[2] = g[0] + n, g[1] + d, g[2] + b
        if pg == 1:
            g[3], g[4], g[5] = g[3] + n, g[4] + d, g[5] + b
        if large and pg is not None:  # an undecided (NULL) flag counts in neither, as SQL sums skip it
            side = g[7] if pg else g[6]
            side[0], side[1], side[2] = side[0] + n, side[1] + b, side[2] + d
    return [CopyStats(cap.source, pid_of(gp) or 0, int(dev if dev is not None else -1),
                      COPY_KINDS.get(kind, f"kind {kind}"), n, t, b, pg, kind in UVM_COPY_KINDS, pg_ns, pg_b,
                      pinned, pageable)
            for (gp, dev, kind), (n, t, b, pg, pg_ns, pg_b, pinned, pageable) in groups.items()]


def host_stall(cap: Capture, pid: int, gaps: list[tuple[int, int]]) -> tuple[int, int]:
    """How much of the large GPU gaps began while the host sat in a sync or synchronous copy.

    A gap is the host's fault when a blocking call (synchronize, synchronous/pageable memcpy)
    of the same process ended inside it or overlaps it: the GPU drained, the host waited for
    it, then spent the gap before issuing more work. Returns (gap count, gap ns) attributed.
    """
    if not gaps or not cap.has(RUNTIME):
        return 0, 0
    calls = iter(_blocking_calls(cap).get(pid, ()))
    count = total = 0
    api = next(calls, None)
    for g0, g1 in gaps:
        while api is not None and api[1] < g0:
            api = next(calls, None)
        if api is None:
            break
        if api[1] <= g1 or api[0] <= g1:
            count += 1
            total += g1 - g0
    return count, total




def _blocking_calls(cap: Capture) -> dict[int, list[tuple[int, int]]]:
    """pid -> (start, end) of its sync and synchronous-copy calls, ordered by end (then start): taken
    by the API read of --stats (blocking_sample), else one scan of the API table for every process
    (cached per capture; was one scan per GPU with gaps, 0.08 s of CPU each on 1.86 M calls)."""
    if "blocking_calls" not in cap.cache:
        calls: dict[int, list[tuple[int, int]]] = {}
        taken = cap.cache.get("api_calls")
        if taken is not None:
            pid, start, end = taken
            order = np.lexsort((start, end))
            for p, s, e in zip(pid[order].tolist(), start[order].tolist(), end[order].tolist()):
                calls.setdefault(p, []).append((s, e))
            cap.cache["blocking_calls"] = calls
            return calls
        names = sorted({nid for _pid, nid, *_ in api_groups(cap)
                        if api_kind(cap.string(nid) or "") in BLOCKING})
        if names:
            marks = ",".join("?" * len(names))
            for pid, start, end in cap.query(
                    f"SELECT {launches.CALL_PID}, start, \"end\" FROM {RUNTIME} WHERE nameId IN ({marks}) "
                    f"ORDER BY \"end\", start", names):
                calls.setdefault(pid, []).append((start, end))
        cap.cache["blocking_calls"] = calls
    return cap.cache["blocking_calls"]


def blocking_sample(cap: Capture) -> tuple[str, list[str]] | None:
    """The blocking calls (_blocking_calls) as a sample of the API read (Capture.chunks): calls whose
    name id is one StringIds gives a sync or synchronous-copy API (names starting 'cu', read
    once), with their pid, start and end. 0.04 s of CPU more for that read on 1.86 M calls,
    against 0.08 s for a scan of its own after the kernel walk. None without such a name."""
    if not cap.has(RUNTIME) or not cap.has("StringIds"):
        return None
    ids = [i for i, name in cap.query("SELECT id, value FROM StringIds WHERE value GLOB 'cu*'")
           if api_kind(name or "") in BLOCKING]
    if not ids:
        return None
    return f"nameId IN ({','.join(str(int(i)) for i in ids)})", [launches.CALL_PID, "start", '"end"']


def gap_causes(cap: Capture, pid: int, device: int, gaps: list[tuple[int, int]], k: int = 3) -> list[IdleGapCause]:
    """The `k` largest of `gaps` ((start, end) on one GPU) with the CPU work behind them. A few
    scans of the kernel, API and NVTX tables, each restricted to the gaps' own times."""
    from diagnose.capture.summaries import nvtx_ranges_sql

    if not cap.has(RUNTIME) or not cap.has_column(RUNTIME, "correlationId"):
        return []  # no CPU side to show: an empty row would read "no CUDA call: host code"
    top = sorted(gaps, key=lambda g: g[0] - g[1])[:k]
    out = [IdleGapCause(cap.source, pid, device, int(a), int(b - a)) for a, b in top]
    if not out:
        return out
    ends = {int(b): g for (a, b), g in zip(top, out)}
    corr: dict[int, IdleGapCause] = {}
    for table in (KERNEL, MEMCPY, MEMSET):
        if cap.has(table) and cap.has_column(table, "correlationId"):
            for start, c in cap.query(
                    f"SELECT start, correlationId FROM {table} WHERE start IN ({','.join(map(str, ends))}) "
                    f"AND coalesce(deviceId, -1) = ? AND ((coalesce(globalPid, 0) >> 24) & 16777215) = ?",
                    (device, pid)):
                if c is not None:
                    corr.setdefault(int(c), ends[int(start)])
    if not corr:
        return out
    for c, tid, start, name_id in cap.query(
            f"SELECT correlationId, globalTid, start, nameId FROM {RUNTIME} WHERE correlationId IN "
            f"({','.join(map(str, corr))}) AND ((globalTid >> 24) & 16777215) = ?", (pid,)):
        g = corr[int(c)]
        if g.launch_call is None:
            g.launch_call, g.launch_tid = api_base_name(cap.string(name_id) or ""), int(tid)
            g.launch_lead_ns = max(0, int(start) - g.start_ns)
    known = [g for g in out if g.launch_tid is not None]
    if not known:
        return out
    windows = " OR ".join(f"(globalTid = {g.launch_tid} AND start < {g.start_ns + g.launch_lead_ns} "
                          f"AND \"end\" > {g.start_ns})" for g in known)
    for tid, name_id, s, e in cap.query(f'SELECT globalTid, nameId, start, "end" FROM {RUNTIME} WHERE {windows}'):
        for g in known:
            lo, hi = g.start_ns, g.start_ns + g.launch_lead_ns
            inside = min(e, hi) - max(s, lo)
            if tid == g.launch_tid and inside > g.cpu_call_ns:
                g.cpu_call, g.cpu_call_ns = api_base_name(cap.string(name_id) or ""), int(inside)
    inner = nvtx_ranges_sql(cap)
    if inner:
        holds = " OR ".join(f"(globalTid = {g.launch_tid} AND start <= {g.start_ns} "
                            f"AND \"end\" >= {g.start_ns + g.launch_lead_ns})" for g in known)
        best: dict[int, int] = {}
        for name, tid, s, e in cap.query(f'SELECT name, globalTid, start, "end" FROM ({inner}) WHERE {holds}'):
            for i, g in enumerate(known):
                if tid == g.launch_tid and s <= g.start_ns and e >= g.start_ns + g.launch_lead_ns:
                    if i not in best or e - s < best[i]:
                        best[i], g.nvtx = e - s, name
    return out
