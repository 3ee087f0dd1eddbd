"""The `nsys stats` summaries (2022.4 semantics), from chunked reads grouped in numpy.

Kernels come from the timeline's one read of the kernel table (capture.kernels), NVTX ranges
from one chunked read of NVTX_EVENTS (capture.nvtx), API calls and memory operations from
one chunked read per table; medians and deviations from every value kept as 8 bytes under its
group code and sorted once by numpy (capture.grouped). SQLite never sorts the rows. The numbers
match `nsys stats --format csv` on the same file: same names, counts, totals,
avg/median/min/max and sample standard deviation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from diagnose.capture import launches
from diagnose.capture.grouped import GroupedValues, Totals, chunk_groups
from diagnose.capture.kernels import kernel_groups, name_expr, strings_of
from diagnose.capture.reader import COPY_OPERATION_NAMES, KERNEL, MEMCPY, MEMSET, NVTX, RUNTIME, Capture

STAT_COLUMNS = ["time_pct", "total_ns", "count", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns"]


@dataclass
class SummaryRow:
    name: str
    total: int
    count: int
    avg: float
    med: float | None  # None when computed without medians (see all_summaries)
    min: int
    max: int
    stddev: float | None
    time_pct: float = 0.0
    extra: dict = field(default_factory=dict)


def round1(x: float | None) -> float | None:
    """One decimal, halves away from zero, as SQLite's round() in the nsys stats scripts."""
    import math

    if x is None:
        return None
    return math.floor(abs(x) * 10 + 0.5) / 10 * (1 if x >= 0 else -1)


def round1_all(values: list) -> list:
    """round1 of each value, in numpy where none is None (the same IEEE steps: a --stats table of
    18.5 k NVTX rows rounds 74 k values, 0.02 s one call at a time)."""
    if None in values:
        return [round1(x) for x in values]
    x = np.array(values, dtype=np.float64)
    return (np.floor(np.abs(x) * 10 + 0.5) / 10 * np.where(x >= 0, 1, -1)).tolist()


def chunked_stats(cap: Capture, parts: list[tuple[str, list[str], list[str]]], seen=None,
                  rekey=None) -> list[list[tuple]]:
    """Per value expression, (key, total, count, avg, median, min, max, stddev) per distinct key
    over one or more tables: `parts` holds (table, [key expressions], [value expressions]) (the
    same number of values in each); a key is a tuple of the table and the key values. One read
    per table in rowid chunks (Capture.chunks) whatever the number of values, grouped in numpy
    (capture.grouped): no sort in SQLite, no Python object per row. `seen(named keys, inverse,
    columns)` sees each chunk; `rekey(key)`, when given, merges the keys read into coarser ones
    before the statistics (so another caller's finer grouping costs no read of its own)."""
    span = sum(cap.rowid_span(table) or 0 for table, _, _ in parts)
    values = [GroupedValues(span) for _ in parts[0][2]]
    for table, keys, exprs in parts:
        for cols in cap.chunks(table, [*keys, *exprs], where='"end" IS NOT NULL'):
            uniq, inverse = chunk_groups(*cols[:len(keys)])
            named = [(table, *k) if isinstance(k, tuple) else (table, k) for k in uniq]
            if seen:
                seen(named, inverse, cols[len(keys):])
            for grouped, v in zip(values, cols[len(keys):]):
                grouped.add(named, inverse, v)
    if rekey:
        for grouped in values:
            grouped.merge_keys(rekey)
    return [grouped.stats() for grouped in values]


def _finish(rows: list[SummaryRow], grand_total: int | None = None) -> list[SummaryRow]:
    total = (sum(r.total for r in rows) if grand_total is None else grand_total) or 1
    for r in rows:
        r.time_pct = r.total * 100.0 / total
    rows.sort(key=lambda r: (-r.total, r.name))
    return rows


@dataclass
class LeftOut:
    """The rows a bounded summary dropped: how many, and their summed total (and share of it)."""

    rows: int
    total: int
    time_pct: float


def bounded(rows: list[SummaryRow], limit: int | None) -> tuple[list[SummaryRow], LeftOut | None]:
    """The first `limit` rows (rows come sorted by total), and what the rest add up to."""
    if limit is None or len(rows) <= limit:
        return rows, None
    rest = rows[limit:]
    return rows[:limit], LeftOut(len(rest), sum(r.total for r in rest), sum(r.time_pct for r in rest))


def kernel_summary(cap: Capture, medians: bool = True, limit: int | None = None) -> list[SummaryRow]:
    """cuda_gpu_kern_sum: per kernel name and grid/block shape (as the 2022.4 report groups).

    From the aggregates of the timeline's read of the kernel table (kernels.kernel_groups), and
    with medians from the durations that read kept. With `limit` (no medians) only the rows with
    most time become SummaryRows (and only their names are read), so a capture naming a million
    kernels costs a few arrays; `kernel_left_out` says what was dropped."""
    if not cap.has(KERNEL) or name_expr(cap) == "0":
        return []  # no kernel table, or no name column at all
    grand = None
    if medians:
        groups = [(*key, *stats) for key, *stats in kernel_groups(cap, values=True).values.stats()]
    else:
        name, g1, g2, n, total, low, high = kernel_groups(cap).by_name.arrays()
        grand = int(total.sum())
        keep = np.arange(len(total))
        if limit is not None and len(total) > limit:
            keep = np.argpartition(-total, limit - 1)[:limit]
            cap.cache["kernel_left_out"] = LeftOut(len(total) - limit, grand - int(total[keep].sum()),
                                                   100.0 * (grand - int(total[keep].sum())) / (grand or 1))
        groups = [(k, a, b, t, c, t / c, None, lo, hi, None) for k, a, b, c, t, lo, hi in zip(
            *(x[keep].tolist() for x in (name, g1, g2, n, total, low, high)))]
    names = strings_of(cap, [g[0] for g in groups])
    rows = []
    for name_id, g1, g2, *stats in groups:
        m = 0xFFFF
        r = SummaryRow(names.get(name_id, ""), *stats)
        r.extra = {"grid": _dims(g1 & 0xFFFFFFFF, g1 >> 32, g2 & m),
                   "block": _dims((g2 >> 16) & m, (g2 >> 32) & m, g2 >> 48), "name_id": name_id}
        rows.append(r)
    return _finish(rows, grand)


def top_kernel_names(cap: Capture, limit: int) -> tuple[list[tuple[str, int, int]], int, int]:
    """([(demangled name, total ns, count)] of the `limit` names with most time, grid/block shapes
    merged; number of other names; total ns of all kernels): from the kernel read's aggregates."""
    name, _g1, _g2, n, total, _low, _high = kernel_groups(cap).by_name.arrays()
    if not len(name):
        return [], 0, 0
    ids, inverse = np.unique(name, return_inverse=True)
    totals = np.bincount(inverse, weights=total, minlength=len(ids))
    counts = np.bincount(inverse, weights=n, minlength=len(ids))
    keep = np.argsort(-totals, kind="stable")[:limit]
    names = strings_of(cap, ids[keep].tolist())
    top = [(names.get(int(ids[i]), ""), int(totals[i]), int(counts[i])) for i in keep.tolist()]
    return top, max(0, len(ids) - limit), int(total.sum())


def _dims(x, y, z) -> str:
    """printf('%4d %4d %4d') as the nsys report prints grid and block sizes."""
    return "%4d %4d %4d" % (x or 0, y or 0, z or 0)


def api_summary(cap: Capture, medians: bool = True) -> list[SummaryRow]:
    """cuda_api_sum: CUDA runtime and driver calls by name (4-digit _vNNNN suffix dropped, as 2022.4 does)."""
    if not cap.has(RUNTIME):
        return []
    if medians:
        rows = [SummaryRow(api_display_name(cap.string(nid if nid >= 0 else None) or ""), *rest)
                for (_, nid), *rest in api_stats(cap)]
    else:  # from the per-process groups the launch accounting reads anyway: one pass over the table
        per_name: dict[int, list] = {}
        for _pid, nid, n, total, low, high in api_groups(cap):
            m = per_name.setdefault(nid, [0, 0, low, high])
            m[0] += n
            m[1] += total
            m[2], m[3] = min(m[2], low), max(m[3], high)
        rows = [SummaryRow(api_display_name(cap.string(nid) or ""), total, n, total / n, None, low, high, None)
                for nid, (n, total, low, high) in per_name.items()]
    return _finish(_merge_same_names(rows))


# the group key of an API call: the pid (24 bits) above the name id (a StringIds id, < 2^32; NULL: all ones)
API_KEY = "(((coalesce(globalTid, 0) >> 24) & 16777215) << 32) | coalesce(nameId & 4294967295, 4294967295)"
_NO_NAME = 0xFFFFFFFF


def api_stats(cap: Capture, calls: tuple[str, list[str]] | None = None) -> list[tuple]:
    """((table, nameId or -1), total, count, avg, med, min, max, stddev) of CUDA API calls: one
    chunked read of every call's duration by (pid, nameId), which gives api_groups too, so --stats
    reads the table once (cached per capture; the API thread reads it). `calls`, a sample spec
    (Capture.chunks), is taken by the same read: its arrays become cache entry "api_calls"."""
    if "api_stats" not in cap.cache:
        values, tot = GroupedValues(cap.rowid_span(RUNTIME)), Totals()
        sample, taken = None, []
        if cap.has(RUNTIME):
            side = launches.call_side(cap)  # the launch-latency sample's calls, taken by the same read
            sample, spec = side if side else (None, None)
            specs = [x for x in (spec, calls) if x]
            for key, d, *sampled in cap.chunks(RUNTIME, [API_KEY, '"end" - start'], where='"end" IS NOT NULL',
                                               samples=specs):
                if spec:
                    sample.add(len(key), *sampled[:len(spec[1])])
                if calls:
                    taken.append(sampled[-len(calls[1]):])
                uniq, inverse = chunk_groups(key)
                codes = values.code_of(uniq)[inverse]
                values.add_codes(codes, d)
                tot.add(codes, d)
        keys = list(values.codes)
        cap.cache["api_groups"] = [_api_group(k, *rest) for k, *rest in sorted(zip(
            keys, *(a.tolist() for a in (tot.count, tot.total, tot.low, tot.high))))]
        values.merge_keys(lambda k: (RUNTIME, -1 if k & _NO_NAME == _NO_NAME else k & _NO_NAME))
        cap.cache["api_stats"] = values.stats()
        cap.cache["launch_sample_calls"] = sample
        if calls:
            cap.cache["api_calls"] = [np.concatenate(c) for c in zip(*taken)] if taken else [
                np.empty(0, np.int64) for _ in calls[1]]
    return cap.cache["api_stats"]


def api_groups(cap: Capture) -> list[tuple]:
    """(pid, nameId, count, total ns, min, max) of CUDA API calls, in (pid, nameId) order: one
    hash aggregate over the table (Capture.aggregate), cached per capture (api_stats fills it too)."""
    if "api_groups" not in cap.cache:
        rows = cap.aggregate(RUNTIME, API_KEY, [], '"end" - start', '"end" IS NOT NULL') if cap.has(RUNTIME) else []
        cap.cache["api_groups"] = [_api_group(*row) for row in rows]
    return cap.cache["api_groups"]


def _api_group(key: int, n: int, total: int, low: int, high: int) -> tuple:
    return key >> 32, None if key & _NO_NAME == _NO_NAME else key & _NO_NAME, n, total, low, high


def api_display_name(raw: str) -> str:
    """'cudaLaunchKernel_v7000' -> 'cudaLaunchKernel'; '..._v10000' stays (nsys stats 2022.4)."""
    if len(raw) > 6 and raw[-6:-4] == "_v" and raw[-4:].isdigit():
        return raw[:-6]
    return raw


def api_base_name(raw: str) -> str:
    """Any '_vNNNN' version suffix removed, for matching API families."""
    import re

    return re.sub(r"(_v\d+)+$", "", raw or "")


def _merge_same_names(rows: list[SummaryRow]) -> list[SummaryRow]:
    """Two string ids with the same display name (rare) would be one row in nsys stats."""
    names = [r.name for r in rows]
    if len(set(names)) == len(names):
        return rows
    merged: dict[str, list[SummaryRow]] = {}
    for r in rows:
        merged.setdefault(r.name, []).append(r)
    out = []
    for name, group in merged.items():
        if len(group) == 1:
            out.append(group[0])
            continue
        total = sum(r.total for r in group)
        count = sum(r.count for r in group)
        out.append(SummaryRow(name, total, count, total / count, group[0].med, min(r.min for r in group),
                              max(r.max for r in group), None))
    return out


MEMOP_VALUES = ('"end" - start', "bytes")  # cuda_gpu_mem_time_sum's value, cuda_gpu_mem_size_sum's


def memop_summaries(cap: Capture, medians: bool = True) -> tuple[list[SummaryRow], list[SummaryRow]]:
    """(by time, by size) of copies by kind and memsets: one pass over each table gives both
    (cached per capture and per `medians`)."""
    key = f"memops:{medians}"
    if key not in cap.cache:
        cap.cache[key] = _memop_rows(cap, medians)
    return cap.cache[key]


def _memop_rows(cap: Capture, medians: bool) -> tuple[list[SummaryRow], list[SummaryRow]]:
    if medians:
        copies = _CopyGroups(cap) if cap.has(MEMCPY) and cap.has_column(MEMCPY, "copyKind") else None
        parts = [(MEMCPY, copies.keys if copies else ["0"], list(MEMOP_VALUES))] if cap.has(MEMCPY) else []
        parts += [(MEMSET, ["0"], list(MEMOP_VALUES))] if cap.has(MEMSET) else []
        if not parts:
            return [], []
        per_values = chunked_stats(cap, parts, copies.add if copies else None, copies.operation if copies else None)
        if copies:
            cap.cache["copy_groups"] = copies.rows()
        return tuple(_finish([SummaryRow(COPY_OPERATION_NAMES[k] if table == MEMCPY else "[CUDA memset]", *stats)
                              for (table, k), *stats in per_value]) for per_value in per_values)
    inner = _memop_inner(cap)
    if not inner:
        return [], []
    time_rows, size_rows = [], []
    for name, n, d, d_lo, d_hi, b, b_lo, b_hi in cap.query(
            f"SELECT name, count(*), sum(d), min(d), max(d), sum(b), min(b), max(b) FROM ({inner}) GROUP BY name"):
        time_rows.append(SummaryRow(name, d, n, d / n, None, d_lo, d_hi, None))
        size_rows.append(SummaryRow(name, b, n, b / n, None, b_lo, b_hi, None))
    return _finish(time_rows), _finish(size_rows)


BANDWIDTH_MIN_BYTES = 1 << 20  # 1 MiB: a PCIe copy this size spends < 5 % of its time in latency
PAGEABLE_UNDECIDED = 2  # the pageable flag where SQL leaves it NULL (a NULL srcKind or dstKind)


def copy_group_keys(cap: Capture) -> list[str]:
    """The copies' group keys as SQL (process, device, kind, pageable, large), none NULL: the
    GROUP BY of timeline.copies and the memory-operation read of --stats, which reads them as keys."""
    src = cap.col(MEMCPY, "srcKind", "-1")
    dst = cap.col(MEMCPY, "dstKind", "-1")
    return ["coalesce(globalPid, 0)", "coalesce(deviceId, -1)", "copyKind",
            f"coalesce(copyKind IN (1, 2, 9) AND ({src} = 0 OR {dst} = 0), {PAGEABLE_UNDECIDED})",
            f"coalesce(bytes, 0) >= {BANDWIDTH_MIN_BYTES}"]


class _CopyGroups:
    """The copies' groups (timeline.copies: process, device, kind, pageable, large) taken from
    the memory-operation read, which reads them as its keys and merges them into kinds after:
    the copies then need no GROUP BY of their own (0.23 s of CPU on 254,365 copies)."""

    def __init__(self, cap: Capture):
        self.keys = copy_group_keys(cap)
        self.sums: dict[tuple, list[int]] = {}

    def add(self, named: list, inverse: np.ndarray, values: list[np.ndarray]) -> None:
        if not named or named[0][0] != MEMCPY:
            return
        size = len(named)
        n = np.bincount(inverse, minlength=size).tolist()
        sums = [np.zeros(size, dtype=np.int64) for _ in values]
        for total, v in zip(sums, values):
            np.add.at(total, inverse, v)
        for key, count, d, b in zip(named, n, sums[0].tolist(), sums[1].tolist()):
            group = self.sums.setdefault(key[1:], [0, 0, 0])
            group[0], group[1], group[2] = group[0] + count, group[1] + d, group[2] + b

    @staticmethod
    def operation(key: tuple) -> tuple:
        """(table, copy operation as cuda_gpu_mem_*_sum groups it) of a copy group's key: kinds
        without a name of their own are one "Unknown" group, as nsys's CASE makes them."""
        if key[0] != MEMCPY:
            return key
        kind = key[3]
        return MEMCPY, kind if 1 <= kind <= max(COPY_OPERATION_NAMES) else 0

    def rows(self) -> list[tuple]:
        """(process, device, kind, pageable, large, count, ns, bytes), ordered as timeline's GROUP BY."""
        return [(*key, *sums) for key, sums in sorted(self.sums.items(), key=lambda kv: kv[0][:3])]


def _memop_inner(cap: Capture) -> str:
    """Copies (named as nsys names their kind) and memsets, each with its duration d and bytes b."""
    parts = []
    d, b = MEMOP_VALUES
    if cap.has(MEMCPY):
        labels = " ".join(f"WHEN {k} THEN '{v}'" for k, v in COPY_OPERATION_NAMES.items())
        parts.append(
            f"SELECT (CASE copyKind {labels} ELSE '[CUDA memcpy Unknown]' END) AS name, "
            f"{d} AS d, {b} AS b FROM {MEMCPY} WHERE \"end\" IS NOT NULL"
        )
    if cap.has(MEMSET):
        parts.append(f"SELECT '[CUDA memset]' AS name, {d} AS d, {b} AS b FROM {MEMSET} WHERE \"end\" IS NOT NULL")
    return " UNION ALL ".join(parts)


def memop_time_summary(cap: Capture, medians: bool = True) -> list[SummaryRow]:
    """cuda_gpu_mem_time_sum: copies by kind and memsets, by duration (ns)."""
    return memop_summaries(cap, medians)[0]


def memop_size_summary(cap: Capture, medians: bool = True) -> list[SummaryRow]:
    """cuda_gpu_mem_size_sum: the same operations by bytes moved (total, count, avg, ...)."""
    return memop_summaries(cap, medians)[1]


def nvtx_summary(cap: Capture, medians: bool = True) -> list[SummaryRow]:
    """nvtx_sum: push/pop and start/end ranges by name and style, 'Domain:name' when the domain is named."""
    from diagnose.capture import nvtx

    if not cap.has(NVTX):
        return []
    if medians:
        groups = nvtx.groups(cap, values=True).stats
    else:
        groups = [(name, style, total, n, total / n, None, low, high, None)
                  for name, style, n, _ended, total, low, high in nvtx_groups(cap)]
    rows = []
    for name, style, *stats in groups:
        r = SummaryRow(name or "", *stats)
        r.extra = {"style": style}
        rows.append(r)
    return _finish(rows)


def nvtx_groups(cap: Capture) -> list[tuple]:
    """(name, style, count, count with an end, total, min, max) of NVTX ranges: one chunked read
    (capture.nvtx) that the NVTX summary, the NCCL calls and the step detection share."""
    from diagnose.capture import nvtx

    return nvtx.groups(cap).rows


def nvtx_ranges_sql(cap: Capture) -> str | None:
    """SELECT name, style, start, end, globalTid over NVTX ranges; None without NVTX_EVENTS.

    Range text is `text` or StringIds(textId); a domain name comes from the eventType 75 row of
    the same domain and process (absent in trimmed files: then the bare name).
    """
    if not cap.has(NVTX):
        return None
    t = NVTX
    text, ne_text = cap.col(t, "text"), cap.col(t, "text", prefix="ne.")
    ne_text_id = cap.col(t, "textId", prefix="ne.")
    domain, ne_domain = cap.col(t, "domainId", "0"), cap.col(t, "domainId", "0", prefix="ne.")
    return f"""
        SELECT CASE WHEN dom.name IS NOT NULL THEN dom.name || ':' || coalesce(sid.value, {ne_text})
                    ELSE coalesce(sid.value, {ne_text}) END AS name,
               CASE ne.eventType WHEN 59 THEN 'PushPop' WHEN 60 THEN 'StartEnd'
                    WHEN 70 THEN 'PushPop' WHEN 71 THEN 'StartEnd' ELSE 'Unknown' END AS style
               , ne.start AS start, ne."end" AS "end", ne.globalTid AS globalTid
        FROM {t} AS ne
        LEFT JOIN (SELECT {domain} AS id, {text} AS name, globalTid AS gtid FROM {t} WHERE eventType = 75) AS dom
            ON {ne_domain} = dom.id AND (ne.globalTid >> 24) = (dom.gtid >> 24)
        LEFT JOIN StringIds AS sid ON sid.id = {ne_text_id}
        WHERE ne.eventType IN (59, 60, 70, 71)
    """


SUMMARIES = {
    "kernels": ("CUDA GPU kernel summary (nsys stats cuda_gpu_kern_sum)", kernel_summary),
    "cuda_api": ("CUDA API summary (nsys stats cuda_api_sum)", api_summary),
    "memops_time": ("GPU memory operations by time (cuda_gpu_mem_time_sum)", memop_time_summary),
    "memops_size": ("GPU memory operations by size in bytes (cuda_gpu_mem_size_sum)", memop_size_summary),
    "nvtx": ("NVTX range summary (nvtx_sum)", nvtx_summary),
}


def all_summaries(cap: Capture, medians: bool = True, limit: int | None = None) -> dict[str, list]:
    """Every summary; without `medians` the median and deviation are left out (None), which
    spares a sorted read of every kernel and API row on large captures. With `limit` each keeps
    its `limit` rows with most time, and "left_out" maps a summary to the LeftOut of the rest."""
    out: dict[str, list] = {}
    left: dict[str, LeftOut] = {}
    for key, (_, func) in SUMMARIES.items():
        rows = func(cap, medians=medians, limit=limit) if key == "kernels" else func(cap, medians=medians)
        out[key], rest = bounded(rows, limit)
        rest = cap.cache.pop("kernel_left_out", None) if key == "kernels" else rest
        if rest:
            left[key] = rest
    out["left_out"] = left
    return out


def summary_table(key: str, rows: list[SummaryRow], limit: int | None = None) -> dict:
    """One summary as a report table (the columns nsys stats prints)."""
    title, _ = SUMMARIES[key]
    size = key == "memops_size"
    cols = ["Time (%)", "Total (B)" if size else "Total Time (ns)", "Count", "Avg", "Med", "Min", "Max", "StdDev"]
    if key == "kernels":
        cols += ["GridXYZ", "BlockXYZ"]
    elif key == "nvtx":
        cols += ["Style"]
    cols.append("Name")
    out = []
    shown = rows[:limit] if limit else rows
    columns = [round1_all([getattr(r, name) for r in shown]) for name in ("time_pct", "avg", "med", "stddev")]
    for r, pct, avg, med, dev in zip(shown, *columns):
        row = [pct, r.total, r.count, avg, med, r.min, r.max, dev]
        if key == "kernels":
            row += [r.extra.get("grid"), r.extra.get("block")]
        elif key == "nvtx":
            row += [r.extra.get("style")]
        out.append(row + [r.name])
    note = f"{len(rows) - limit} more rows not shown" if limit and len(rows) > limit else ""
    return {"columns": cols, "rows": out, "note": note}


def nvtx_gpu_summary(cap: Capture) -> list[dict]:
    """NVTX range -> GPU work, through correlation ids: for each range name, the kernels whose
    launch call (CUPTI_ACTIVITY_KIND_RUNTIME, same thread) started inside one of its ranges, by
    correlationId, as nsys's nvtx_kern_sum attributes them (a kernel counts for every range that
    encloses its launch). Per name: ranges, their CPU time, kernels, kernel time, and the GPU
    span (first kernel start to last kernel end, summed over the ranges). Two temp tables keyed
    for the joins (launch calls by thread and start, kernels by correlationId), in the
    connection's temp database: never in the user's file. Sorted by kernel time."""
    inner = nvtx_ranges_sql(cap)
    if not inner or not cap.has(KERNEL) or not cap.has(RUNTIME) or not cap.has_column(KERNEL, "correlationId"):
        return []
    cap.query("DROP TABLE IF EXISTS temp.dx_launch")
    cap.query("DROP TABLE IF EXISTS temp.dx_kern")
    cap.query(f"CREATE TEMP TABLE dx_launch AS SELECT globalTid AS tid, start AS s, correlationId AS c FROM {RUNTIME} "
              "WHERE correlationId IS NOT NULL AND correlationId != 0")
    cap.query("CREATE INDEX temp.dx_launch_ts ON dx_launch (tid, s)")
    cap.query(f'CREATE TEMP TABLE dx_kern AS SELECT correlationId AS c, (coalesce(globalPid, 0) >> 24) AS p, '
              f'start AS s, "end" AS e FROM {KERNEL} WHERE "end" IS NOT NULL AND correlationId IS NOT NULL')
    cap.query("CREATE INDEX temp.dx_kern_c ON dx_kern (c, p)")
    try:
        rows = cap.query(f"""
            WITH r AS MATERIALIZED (SELECT row_number() OVER () AS id, name, globalTid AS tid, start AS s, "end" AS e
                                    FROM ({inner}) WHERE "end" IS NOT NULL),
                 per AS (SELECT r.id, r.name, r.e - r.s AS cpu, count(k.c) AS n, coalesce(sum(k.e - k.s), 0) AS t,
                                coalesce(max(k.e) - min(k.s), 0) AS span
                         FROM r JOIN temp.dx_launch AS l ON l.tid = r.tid AND l.s >= r.s AND l.s <= r.e
                         JOIN temp.dx_kern AS k ON k.c = l.c AND k.p = (r.tid >> 24)
                         GROUP BY r.id)
            SELECT name, count(*), sum(cpu), sum(n), sum(t), sum(span) FROM per GROUP BY name
            ORDER BY sum(t) DESC, name""").fetchall()
    finally:
        cap.query("DROP TABLE IF EXISTS temp.dx_launch")
        cap.query("DROP TABLE IF EXISTS temp.dx_kern")
    return [{"name": name or "", "ranges": n, "cpu_ns": cpu, "kernels": k, "kernel_ns": t, "gpu_span_ns": span}
            for name, n, cpu, k, t, span in rows]
