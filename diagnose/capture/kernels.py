"""One read of the kernel table for everything that needs every kernel row.

The timeline walk needs each kernel's GPU, start, end and class in start order; the kernel
summary needs count, total, min and max per (name, grid, block); the communication accounting
needs count and total per (GPU, name). A GROUP BY makes SQLite sort every row, once per
question. Instead one read in rowid order (`Capture.chunks`) hands chunks of rows to numpy,
which folds them into the aggregates and passes the timeline columns on. Memory: one chunk
plus one entry per distinct (name, grid, block).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from diagnose.capture import classify as C
from diagnose.capture import launches
from diagnose.capture.grouped import GroupedValues, distinct
from diagnose.capture.reader import KERNEL, Capture, pid_of
from diagnose.errors import InputError

CLASS_CODES = {C.COMM: 0, C.GEMM: 1, C.ATTENTION: 2, C.NORM: 3, C.OTHER: 4}
NO_DEVICE = 0xFFFFFF  # deviceId NULL: kept apart from every real ordinal
SEQUENCE_KEPT = 1_000_000  # kernels per GPU kept for the pattern steps and the straggler (memory: 25 bytes each)


def start_ordered(parts: list, limit: int = SEQUENCE_KEPT) -> tuple[np.ndarray, np.ndarray]:
    """(start, name id) of the first `limit` kernels of (start, name) chunks in rowid order, sorted by start
    (stable): the sequence the pattern steps read, whether kept by the kernel walk or read again."""
    if not parts:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    starts = np.concatenate([p[0] for p in parts])[:limit]
    names = np.concatenate([p[1] for p in parts])[:limit]
    order = np.argsort(starts, kind="stable")
    return starts[order], names[order]


def class_column(cap: Capture) -> str | None:
    """The kernel column classes are read from: the demangled name where it exists, as the kernel
    summary and "Top kernels" name kernels, so a kernel has one class in every table (a short name
    such as `Kernel` or `kernel2` hides the GEMM its demangled name shows)."""
    for col in ("demangledName", "shortName"):
        if cap.has_column(KERNEL, col):
            return col
    return None


def name_expr(cap: Capture, name_column: str = "demangledName") -> str:
    """The kernel summary's name: `name_column`, else the other name columns, else 0."""
    names = [c for c in (name_column, "demangledName", "shortName") if cap.has_column(KERNEL, c)]
    return f"coalesce({', '.join(dict.fromkeys(names))}, 0)" if names else "0"


def gpu_key(pid_bits, device):
    """One integer per (process, device): globalPid >> 24 in the high bits, the ordinal below."""
    return (pid_bits << 24) | (device & NO_DEVICE)


def gpu_of(key: int) -> tuple[int, int]:
    """gpu_key -> (pid, CUDA ordinal or -1)."""
    dev = key & NO_DEVICE
    return pid_of(key) or 0, -1 if dev == NO_DEVICE else dev


class NameTotals:
    """count, total, min and max per (name id, grid, block), held as numpy arrays: 56 bytes a group,
    so a capture with a million distinct kernel names costs tens of MB, not a dict of lists.
    Chunks' partial groups are kept apart and folded together when they outgrow the folded part
    (each row is re-folded O(log n) times)."""

    def __init__(self):
        self._parts: list[tuple] = []
        self._pending = 0
        self._folded: tuple | None = None

    def add(self, name, g1, g2, n, total, low, high) -> None:
        self._parts.append((name, g1, g2, n, total, low, high))
        self._pending += len(name)
        if self._pending > max(1 << 16, 2 * self.size):
            self._fold()

    @property
    def size(self) -> int:
        return len(self._folded[0]) if self._folded is not None else 0

    def _fold(self) -> None:
        if not self._parts:
            return  # already folded: arrays() is called per operation and rank, and a re-sort of 1 M groups is ~40 ms
        parts = self._parts + ([self._folded] if self._folded is not None else [])
        self._parts, self._pending = [], 0
        name, g1, g2, n, total, low, high = (np.concatenate(c) for c in zip(*parts))
        order = np.lexsort((g2, g1, name))
        name, g1, g2, n, total, low, high = (a[order] for a in (name, g1, g2, n, total, low, high))
        starts = np.concatenate(
            ([0], np.flatnonzero((np.diff(name) != 0) | (np.diff(g1) != 0) | (np.diff(g2) != 0)) + 1))
        self._folded = (name[starts], g1[starts], g2[starts],
                        np.add.reduceat(n, starts), np.add.reduceat(total, starts),
                        np.minimum.reduceat(low, starts), np.maximum.reduceat(high, starts))

    def arrays(self) -> tuple:
        """(name, grid1, grid2, count, total, min, max) arrays, one entry per group, in key order."""
        self._fold()
        if self._folded is None:
            return tuple(np.empty(0, np.int64) for _ in range(7))
        return self._folded

    def items(self):
        """((name id, grid1, grid2), (count, total, min, max)) per group, in key order."""
        name, g1, g2, n, total, low, high = (a.tolist() for a in self.arrays())
        return zip(zip(name, g1, g2), zip(n, total, low, high))

    def __len__(self) -> int:
        return len(self.arrays()[0])


@dataclass
class KernelGroups:
    """Aggregates of every kernel row with an end time (the kernel summary's rows)."""

    # (name id, grid x|y<<32, grid z|block x<<16|y<<32|z<<48) -> count, total ns, min ns, max ns
    by_name: NameTotals = field(default_factory=NameTotals)
    # (pid, device) -> {class-column id -> [count, total ns]}, communication kernels only
    comm: dict[tuple[int, int], dict[int, list[int]]] = field(default_factory=dict)
    # class-column id -> class code (-1: never seen), indexed by id; ids outside 0..2^24 in `far`
    lut: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    far: dict[int, int] = field(default_factory=dict)
    # per chunk with communication kernels: (first rowid, end rowid, earliest and latest start of
    # its comm kernels, [(GPU key, class-column id, count, total ns)]); lets a time window's
    # counts re-read only the chunks that straddle its edges (facts.step_comm)
    comm_chunks: list[tuple[int, int, int, int, list]] = field(default_factory=list)
    # every duration under its (name id, grid, block) group, when the medians are asked for (--stats)
    values: GroupedValues | None = None
    # every communication kernel, per chunk: (GPU key, class-column id, start, end) arrays in rowid
    # order, so matching collectives across ranks (multirank) needs no sorted scan of the table
    comm_kernels: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    # the kernels of the launch-latency sample (launches.kernel_side), None without correlationIds
    launch_sample: launches.Sample | None = None
    # (pid, device) -> [rows kept, [(start, name id, end, class code) per chunk]]: each GPU's first
    # SEQUENCE_KEPT kernels in rowid order, named as pattern steps name them (steps.pattern_steps
    # reads no kernel again) and classed as the walk classes them (multirank reads no kernel again
    # for what the straggler did); empty when the table has no name column
    sequences: dict[tuple[int, int], list] = field(default_factory=dict)

    @property
    def classes(self) -> dict[int, int]:
        """class-column id -> class code of every kernel name seen."""
        out = {int(i): int(c) for i, c in zip(np.flatnonzero(self.lut >= 0).tolist(), self.lut[self.lut >= 0].tolist())}
        out.update(self.far)
        return out

    def class_of(self, ids) -> np.ndarray:
        """Class codes of class-column ids (OTHER for ids never seen)."""
        ids = np.asarray(ids, dtype=np.int64)
        inside = (ids >= 0) & (ids < len(self.lut))
        out = np.full(len(ids), CLASS_CODES[C.OTHER], dtype=np.int64)
        out[inside] = np.maximum(self.lut[ids[inside]], 0) if len(self.lut) else out[inside]
        for i in np.flatnonzero(~inside).tolist():
            out[i] = self.far.get(int(ids[i]), CLASS_CODES[C.OTHER])
        return out

    def sequence(self, pid: int, device: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(start, name id) of the GPU's first SEQUENCE_KEPT kernels in rowid order, sorted by
        start (stable), as pattern steps read them; None when no name column was read."""
        if not self.sequences:
            return None
        _, parts = self.sequences.get((pid, device), (0, []))
        return start_ordered(parts)

    def kept(self, pid: int, device: int) -> list | None:
        """The GPU's kernels as the read kept them, one (start, name id, end, class code) part per
        chunk of rowids in rowid order, when it kept all of them (fewer than SEQUENCE_KEPT); else None."""
        rows, parts = self.sequences.get((pid, device), (None, None))
        return parts if rows is not None and rows < SEQUENCE_KEPT else None

    def comm_rows(self) -> dict[tuple[int, int], list[tuple[int, int, int]]]:
        """(pid, device) -> [(name id, count, total ns)] in name-id order."""
        return {k: [(nid, n, t) for nid, (n, t) in sorted(v.items())] for k, v in self.comm.items()}


class KernelReader:
    """Reads the kernel table in rowid order, folds every chunk into `groups`, and yields the
    columns the timeline walk needs: (GPU key, start, end, tag = class | graph-launched << 3)."""

    CHUNK = 1 << 16  # rowids per chunk

    def __init__(self, cap: Capture, groups: KernelGroups | None = None):
        self.cap = cap
        self.groups = groups if groups is not None else KernelGroups()
        t = KERNEL
        # the summary's name is the first of these that is not NULL (name_expr), the class's the
        # first column (class_column), the pattern steps' the last: two columns give all three
        self.names = [c for c in ("demangledName", "shortName") if cap.has_column(t, c)]
        dims = [cap.col(t, c, "0") for c in ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ")]
        self.exprs = [
            "start", '"end"',
            "coalesce(globalPid, 0) >> 24", f"coalesce(deviceId, {NO_DEVICE})",
            "graphNodeId IS NOT NULL" if cap.has_column(t, "graphNodeId") else "0",
            f"coalesce({self.names[0]}, -1)" if self.names else "-1",
            f"coalesce({self.names[-1]}, -1)" if self.names else "-1",
            # grid and block packed into two integers (CUDA limits: grid y/z and block sizes < 2^16)
            f"({dims[0]}) | (({dims[1]}) << 32)",
            f"({dims[2]}) | (({dims[3]}) << 16) | (({dims[4]}) << 32) | (({dims[5]}) << 48)",
        ]

    def chunks(self):
        rowids: list[tuple[int, int]] = []
        side = launches.kernel_side(self.cap)
        self.groups.launch_sample, spec = side if side else (None, None)
        for start, end, pid_bits, dev, graph, short, last, g1, g2, *sampled in self.cap.chunks(
                KERNEL, self.exprs, where='"end" IS NOT NULL', size=self.CHUNK, rowids=rowids,
                samples=[spec] if spec else []):
            if sampled:
                self.groups.launch_sample.add(len(start), *sampled)
            name = np.where(short != -1, short, np.where(last != -1, last, 0))  # name_expr's coalesce
            cls = self._classes(short)
            if self.names:
                self._keep_sequence(pid_bits, dev, start, last, end, cls)
            gpu = gpu_key(pid_bits, dev)
            dur = end - start
            if len(dur) and dur.min() < 0:  # a kernel cannot end before it starts: damaged rows, not data
                bad = dur < 0
                raise InputError(f"{self.cap.path}: damaged export: {int(bad.sum())} {KERNEL} row(s) end before "
                                 f"they start (first: start {int(start[bad][0])}, end {int(end[bad][0])})")
            self._fold_names(name, g1, g2, dur)
            self._fold_comm(gpu, short, cls, dur, start, rowids[-1])
            yield gpu, start, end, cls | (graph << 3)

    def read_all(self) -> KernelGroups:
        """Only the aggregates (when the timeline does not need the rows)."""
        for _ in self.chunks():
            pass
        return self.groups

    def _keep_sequence(self, pid_bits, dev, start, name, end, cls):
        """Each GPU's kernels (start, pattern name, end, class) in rowid order, up to SEQUENCE_KEPT."""
        gpu = gpu_key(pid_bits & NO_DEVICE, dev)  # per (pid, device), as the walk and pattern steps group
        single = gpu[0] == gpu[-1] and (gpu == gpu[0]).all()
        cols = (start, name, end, cls.astype(np.int8))
        for key in ([int(gpu[0])] if single else distinct(gpu).tolist()):
            kept = self.groups.sequences.setdefault(gpu_of(key), [0, []])
            room = SEQUENCE_KEPT - kept[0]
            if room > 0:
                mine = slice(None) if single else gpu == key
                kept[1].append(tuple(c[mine][:room] for c in cols))
                kept[0] += len(kept[1][-1][0])

    def _classes(self, short):
        """Class code per row, from a lookup array indexed by name id (StringIds ids are small);
        names first seen in this chunk are read from StringIds in one query and classified."""
        g = self.groups
        if len(short) and 0 <= short.min() and short.max() < 1 << 24:
            if short.max() >= len(g.lut):
                g.lut = np.concatenate((g.lut, np.full(int(short.max()) + 1 - len(g.lut), -1, np.int64)))
            codes = g.lut[short]
            if (codes < 0).any():
                new = distinct(short[codes < 0]).tolist()
                for i, code in zip(new, self._classify(new)):
                    g.lut[i] = code
                codes = g.lut[short]
            return codes
        ids, inverse = np.unique(short, return_inverse=True)
        new = [i for i in ids.tolist() if i not in g.far]
        g.far.update(zip(new, self._classify(new)))
        return np.array([g.far[i] for i in ids.tolist()], dtype=np.int64)[inverse]

    def _classify(self, ids: list[int]) -> list[int]:
        """Class codes of name ids, their texts read in bulk (not kept: a capture may name a
        million kernels)."""
        texts = strings_of(self.cap, ids)
        return [CLASS_CODES[C.classify(texts.get(i, ""))] if i >= 0 else CLASS_CODES[C.OTHER] for i in ids]

    def _fold_names(self, name, g1, g2, dur):
        order = np.lexsort((g2, g1, name))
        name, g1, g2, dur = name[order], g1[order], g2[order], dur[order]
        new = np.flatnonzero((np.diff(name) != 0) | (np.diff(g1) != 0) | (np.diff(g2) != 0)) + 1
        starts = np.concatenate(([0], new))
        counts = np.diff(np.concatenate((starts, [len(dur)])))
        totals = np.add.reduceat(dur, starts)
        lows = np.minimum.reduceat(dur, starts)
        highs = np.maximum.reduceat(dur, starts)
        self.groups.by_name.add(name[starts], g1[starts], g2[starts], counts, totals, lows, highs)
        values = self.groups.values
        if values is not None:
            keys = list(zip(name[starts].tolist(), g1[starts].tolist(), g2[starts].tolist()))
            values.add_codes(np.repeat(values.code_of(keys), counts), dur)

    def _fold_comm(self, gpu, short, cls, dur, start, rowids):
        comm = cls == CLASS_CODES[C.COMM]
        if not comm.any():
            return
        gpu, short, dur, start = gpu[comm], short[comm], dur[comm], start[comm]
        self.groups.comm_kernels.append((gpu, short, start, start + dur))
        groups: list = []
        self.groups.comm_chunks.append((*rowids, int(start.min()), int(start.max()), groups))
        order = np.lexsort((short, gpu))
        gpu, short, dur = gpu[order], short[order], dur[order]
        starts = np.concatenate(([0], np.flatnonzero((np.diff(gpu) != 0) | (np.diff(short) != 0)) + 1))
        counts = np.diff(np.concatenate((starts, [len(dur)])))
        totals = np.add.reduceat(dur, starts)
        for g, nid, n, total in zip(gpu[starts].tolist(), short[starts].tolist(), counts.tolist(), totals.tolist()):
            groups.append((g, nid, n, total))
            m = self.groups.comm.setdefault(gpu_of(g), {}).setdefault(nid, [0, 0])
            m[0] += n
            m[1] += total


def strings_of(cap: Capture, ids) -> dict[int, str]:
    """StringIds texts of many ids in few queries, without filling the capture's string cache."""
    out: dict[int, str] = {}
    ids = sorted(set(int(i) for i in ids if i is not None and i >= 0))
    if not ids or not cap.has("StringIds"):
        return out
    for lo in range(0, len(ids), 500):
        part = ids[lo:lo + 500]
        out.update(cap.query(f"SELECT id, value FROM StringIds WHERE id IN ({','.join(map(str, part))})").fetchall())
    return out


def kernel_groups(cap: Capture, values: bool = False) -> KernelGroups:
    """The aggregates, from the timeline's read when it ran, else from a read of their own (again
    when `values`, every duration for the medians, is asked for and that read kept none)."""
    got = cap.cache.get("kernel_groups")
    if got is None or (values and got.values is None):
        got = KernelGroups(values=GroupedValues(cap.rowid_span(KERNEL)) if values else None)
        if cap.has(KERNEL):
            KernelReader(cap, got).read_all()
        cap.cache["kernel_groups"] = got
    return got
