"""Several ranks: collectives matched across ranks, arrival skew, the straggler and what it did.

Ranks are (file, process, device) triples: one file per rank (aligned on each file's UTC session
start), or one file holding several ranks. Without NCCL payloads the communicator is not
recorded, so collectives are matched per collective kind (all_reduce, all_gather, ...) in issue
order: the k-th all-reduce of every rank is one collective. Every rank's kernels are read
through an ordered cursor, so memory does not grow with the number of collectives.

A collective cannot finish before its last rank arrives: the rank whose kernel starts last is
the one the others waited for, and the arrival skew is how long they waited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from diagnose.capture import classify as C
from diagnose.capture import kernels as K
from diagnose.capture import one_run
from diagnose.capture.grouped import distinct
from diagnose.capture.reader import KERNEL, Capture
from diagnose.capture.timeline import CLASS_CODES, ensure_class_table
from diagnose.errors import InputError

MAX_WINDOWS = 200_000


@dataclass
class Rank:
    cap: Capture
    pid: int
    device: int
    offset_ns: int = 0  # add to this rank's timestamps to get the common time base
    label: str = ""


@dataclass
class OpSkew:
    op: str
    instances: int
    skews: list[int] = field(default_factory=list)  # bounded sample
    mean_ns: float = 0.0
    max_ns: int = 0
    mismatched: bool = False  # ranks issued different numbers of this collective

    def percentile(self, q: float) -> float | None:
        if not self.skews:
            return None
        values = sorted(self.skews)
        return float(values[min(len(values) - 1, int(q / 100.0 * len(values)))])


@dataclass
class RankWait:
    label: str
    last_count: int = 0  # collectives where this rank arrived last
    lateness_ns: int = 0  # sum over those of (its arrival - first arrival)
    doing_ns: dict[str, int] = field(default_factory=dict)  # class -> ns while the others waited
    idle_ns: int = 0


@dataclass
class MultiRank:
    ranks: list[str]
    ops: list[OpSkew]
    waits: list[RankWait]
    collectives: int = 0

    def straggler(self) -> RankWait | None:
        if not self.waits or not self.collectives:
            return None
        return max(self.waits, key=lambda w: (w.lateness_ns, w.last_count))


RANK_IN_NAME = re.compile(r"(?:rank|_r|gpu|device|dev)[_\-.]?(\d+)", re.IGNORECASE)


def rank_number(path_name: str) -> int | None:
    """The rank a per-rank file name carries: 'rank3.sqlite', 'prof_r3', 'gpu_3', 'rank-03'."""
    m = RANK_IN_NAME.search(path_name)
    return int(m.group(1)) if m else None


def run_of(path_name: str) -> str:
    """The run a per-rank file belongs to: its name without the rank number ('straggler_rank2.sqlite'
    -> 'straggler_rank#.sqlite'); a file without one is a run of its own (its own name)."""
    m = RANK_IN_NAME.search(path_name)
    return path_name if m is None else path_name[:m.start(1)] + "#" + path_name[m.end(1):]


def ranks_of(caps: list[Capture], activities: dict[str, list]) -> list[Rank]:
    """Every (file, process, device) that ran communication kernels, in rank order.

    Files are aligned on TARGET_INFO_SESSION_START_TIME.utcEpochNs; a rank number in the file
    name orders the files, else the order given.
    """
    starts = [c.session_start_utc_ns() for c in caps]
    one_run.refuse_other_runs(caps, starts, activities)
    base = min((s for s in starts if s is not None), default=None)
    order = sorted(range(len(caps)),
                   key=lambda i: (rank_number(caps[i].name) is None, rank_number(caps[i].name) or 0, i))
    ranks: list[Rank] = []
    for i in order:
        cap = caps[i]
        offset = (starts[i] - base) if (base is not None and starts[i] is not None) else 0
        acts = [a for a in activities.get(cap.name, []) if a.comm.count]
        for a in acts:
            label = f"{cap.name} pid {a.pid} cuda:{a.device}" if len(caps) > 1 else f"pid {a.pid} cuda:{a.device}"
            ranks.append(Rank(cap, a.pid, a.device, offset, label))
    for n, r in zip(_rank_numbers(ranks), ranks):
        r.label = f"rank {n} ({r.label})"
    return ranks


def _rank_numbers(ranks: list[Rank]) -> list[int]:
    """Each rank's number as the run knew it, not its place among the files given (rank0 and rank2
    of four are ranks 0 and 2): the number in its file's name when each file holds one rank, else
    its device (one process per GPU on a node), else its place when neither tells them apart."""
    per_file: dict[str, int] = {}
    for r in ranks:
        per_file[r.cap.name] = per_file.get(r.cap.name, 0) + 1
    for number in (lambda r: rank_number(r.cap.name) if per_file[r.cap.name] == 1 else None, lambda r: r.device):
        got = [number(r) for r in ranks]
        if None not in got and len(set(got)) == len(got):
            return got
    return list(range(len(ranks)))


def _comm_cursor(rank: Rank, name_ids: list[int], col: str):
    marks = ",".join("?" * len(name_ids))
    return rank.cap.query(
        f"SELECT start, \"end\" FROM {KERNEL} WHERE deviceId = ? AND ((coalesce(globalPid, 0) >> 24) & 16777215) = ? "
        f"AND {col} IN ({marks}) ORDER BY start",
        (rank.device, rank.pid, *name_ids))


def _comm_kernels(rank: Rank, ids: list[int], cache: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, end, has an end) of the rank's kernels with these class-column ids, by start: from
    the communication kernels the kernel read kept (kernels.KernelGroups.comm_kernels) when it saw
    every kernel row (none without an end) and the rank has a device, else by a sorted query."""
    cap = rank.cap
    groups = K.kernel_groups(cap)
    if rank.device >= 0 and cap.count(KERNEL) == int(groups.by_name.arrays()[3].sum()):
        key = (id(cap), rank.pid, rank.device)  # the rank's own kernels, masked once for all its operations
        if key not in cache:
            if id(cap) not in cache:
                parts = groups.comm_kernels or [(np.zeros(0, dtype=np.int64),) * 4]
                cache[id(cap)] = tuple(np.concatenate(c) for c in zip(*parts))
            gpu, name, start, end = cache[id(cap)]
            own = ((gpu >> 24) & 0xFFFFFF == rank.pid) & (gpu & K.NO_DEVICE == rank.device)
            cache[key] = name[own], start[own], end[own]
        name, start, end = cache[key]
        mine = np.isin(name, ids)
        start, end = start[mine], end[mine]
        order = np.argsort(start, kind="stable")  # rowid order within equal starts, as SQLite's sort keeps
        return start[order], end[order], np.ones(len(order), dtype=bool)
    rows = _comm_cursor(rank, ids, cap._class_col).fetchall()
    return (np.array([s for s, _ in rows], dtype=np.int64), np.array([e or 0 for _, e in rows], dtype=np.int64),
            np.array([e is not None for _, e in rows], dtype=bool))


def _op_names(cap: Capture) -> dict[str, list[int]]:
    """Collective kind -> the kernel name ids of that kind in this capture."""
    ensure_class_table(cap)
    out: dict[str, list[int]] = {}
    for (name_id,) in cap.query(f"SELECT nameId FROM temp.dx_kclass WHERE cls = {CLASS_CODES[C.COMM]}"):
        op = C.collective_op(cap.string(name_id) or "") or "other"
        out.setdefault(op, []).append(name_id)
    return out


def analyse(ranks: list[Rank], sample: int = 100_000) -> MultiRank | None:
    """Match collectives across ranks and measure who arrived last, and by how much."""
    if len(ranks) < 2:
        return None
    per_cap_ops = {id(r.cap): _op_names(r.cap) for r in ranks}
    all_ops = sorted({op for ops in per_cap_ops.values() for op in ops})
    waits = [RankWait(r.label) for r in ranks]
    windows: list[list[tuple[int, int]]] = [[] for _ in ranks]
    results, total, apart = [], 0, 0
    comm: dict = {}  # id(capture), and (id(capture), pid, device) per rank -> communication kernels (_comm_kernels)
    for op in all_ops:
        rows = []
        for r in ranks:
            ids = per_cap_ops[id(r.cap)].get(op)
            rows.append(_comm_kernels(r, ids, comm) if ids else None)
        if any(x is None for x in rows):
            continue
        # the n-th collective of a kind on one rank is matched with the n-th on every other
        n = min(len(s) for s, _, _ in rows)
        skew = OpSkew(op, n, mismatched=any(len(s) != n for s, _, _ in rows))
        if not n:
            continue
        arrivals = np.stack([s[:n] + r.offset_ns for (s, _, _), r in zip(rows, ranks)])
        first, last = arrivals.min(axis=0), arrivals.max(axis=0)
        late = arrivals.argmax(axis=0)  # the first rank to arrive last, as max() picks
        spread = last - first
        # a collective cannot end on one rank before another rank began it
        ends = np.stack([np.where(has[:n], e[:n] + r.offset_ns, np.iinfo(np.int64).max)
                         for (_, e, has), r in zip(rows, ranks)])
        apart += int((last > ends.min(axis=0)).sum())
        total_skew = int(spread.sum())
        skew.max_ns = int(spread.max())
        skew.skews = spread[:sample].tolist()
        for i, (w, r) in enumerate(zip(waits, ranks)):
            mine = np.flatnonzero((late == i) & (spread > 0))
            w.last_count += len(mine)
            w.lateness_ns += int(spread[mine].sum())
            kept = mine[:max(0, MAX_WINDOWS - len(windows[i]))]
            # the wait, in the late rank's own clock
            windows[i] += zip((first[kept] - r.offset_ns).tolist(), rows[i][0][kept].tolist())
        skew.mean_ns = total_skew / skew.instances
        results.append(skew)
        total += skew.instances
    if total and apart > total / 2:
        # most "matched" collectives never overlapped: these are not one run's ranks on one clock
        files = list(dict.fromkeys(r.cap.name for r in ranks))
        if len(files) == 1:
            return None  # processes of one file that share no collective: no cross-rank claim
        raise InputError(f"{', '.join(files)}: not ranks of one run: {apart:,} of {total:,} collectives matched in "
                         "issue order end on one rank before another begins them, which no collective can (other "
                         "runs, or host clocks further apart than a collective); analyse each file alone")
    out = MultiRank([r.label for r in ranks], results, waits, total)
    s = out.straggler()
    if s is not None and s.last_count:
        i = waits.index(s)
        _what_it_did(ranks[i], sorted(windows[i]), s)
    return out


def _what_it_did(rank: Rank, windows: list[tuple[int, int]], wait: RankWait) -> None:
    """Sum, per kernel class, the straggler's kernel time inside the windows the others waited.

    A kernel's time inside the windows is G(end) - G(start), where G(x) sums each window's part
    before x: with the windows' starts and ends each sorted and prefix-summed, G is two
    searchsorteds, so the straggler's kernels are summed in numpy a chunk at a time (no order, no
    Python per kernel): the chunks the kernel read kept of its GPU (kernels.KernelGroups.kept),
    else a read of its own."""
    if not windows:
        return
    base = windows[0][0]
    lo = np.sort(np.array([w[0] for w in windows], dtype=np.int64) - base)
    hi = np.sort(np.array([w[1] for w in windows], dtype=np.int64) - base)
    sum_lo, sum_hi = np.concatenate(([0], np.cumsum(lo))), np.concatenate(([0], np.cumsum(hi)))

    def before(x):  # G(x): the windows' time before x
        i, j = np.searchsorted(lo, x, side="right"), np.searchsorted(hi, x, side="right")
        return (i * x - sum_lo[i]) - (j * x - sum_hi[j])

    names = {code: name for name, code in CLASS_CODES.items()}
    busy = 0
    for start, end, cls in _straggler_kernels(rank, base):
        inside = before(np.maximum(end - base, 0)) - before(np.maximum(start - base, 0))
        for code in distinct(cls[inside > 0]).tolist():
            ns = int(inside[cls == code].sum())
            wait.doing_ns[names[code]] = wait.doing_ns.get(names[code], 0) + ns
            busy += ns
    span = sum(h - l for l, h in windows)
    wait.idle_ns = max(0, span - busy)


def _straggler_kernels(rank: Rank, base: int):
    """(start, end, class code) of the rank's kernels that end after `base`, per chunk of rowids:
    the kernel read's kept chunks when it kept every kernel of this GPU (a 1 M-kernel export: no
    second scan of the kernel table, 0.2 s of CPU), else a chunked read."""
    groups = K.kernel_groups(rank.cap)
    kept = groups.kept(rank.pid, rank.device) if rank.device >= 0 else None
    if kept is not None:
        for start, _name, end, cls in kept:
            after = end > base
            yield start[after], end[after], cls[after].astype(np.int64)
        return
    col = K.class_column(rank.cap)
    where = (f'"end" IS NOT NULL AND "end" > {int(base)} AND deviceId = {int(rank.device)} '
             f"AND ((coalesce(globalPid, 0) >> 24) & 16777215) = {int(rank.pid)}")
    for start, end, name in rank.cap.chunks(KERNEL, ["start", '"end"', f"coalesce({col}, -1)" if col else "-1"],
                                            where=where):
        yield start, end, groups.class_of(name)
