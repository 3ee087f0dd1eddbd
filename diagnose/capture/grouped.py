"""Per-group count, total, min, max, median and deviation of values read in chunks.

The summaries need medians, which a GROUP BY cannot give without a second, sorted read of
every value. Here each chunk's rows arrive as numpy arrays; each row's group becomes a small
integer code (a dict over the chunk's distinct keys, not over its rows), and code << 40 |
value goes into one int64 array per chunk. At the end one numpy sort puts every group's values
in order: a group is then a run of equal codes, and its statistics are vectorised reductions
over the runs. Memory: 8 bytes a row; Python work: per distinct key of a chunk, never per row.
"""

from __future__ import annotations

import numpy as np

VALUE_BITS = 40  # durations and sizes in 0..2^40 (18 min, 1 TB) pack under a group code in one int64
_MASK = (1 << VALUE_BITS) - 1
_SLICE = 1 << 20  # rows per slice of the passes over all values (bounded temporaries)
_RESERVE_MAX = 1 << 28  # rows reserved up front at most (2 GiB of address space; sparse rowids)


def distinct(values: np.ndarray) -> np.ndarray:
    """np.unique(values) for a 1-d array, by one sort: np.unique without return_inverse or
    return_counts imports numpy.ma on first use (10 ms of every small run's start-up)."""
    s = np.sort(values)
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if len(s) else s


def chunk_groups(*columns: np.ndarray) -> tuple[list, np.ndarray]:
    """(distinct keys of the rows, each row's index into them): a key is a column's value, or a
    tuple of the columns' values when there are several."""
    if len(columns) == 1:
        uniq, inverse = np.unique(columns[0], return_inverse=True)
        return uniq.tolist(), inverse
    order = np.lexsort(columns[::-1])
    ordered = [c[order] for c in columns]
    new = np.zeros(len(order), dtype=bool)
    new[0:1] = True
    for c in ordered:
        new[1:] |= c[1:] != c[:-1]
    starts = np.flatnonzero(new)
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return list(zip(*(c[starts].tolist() for c in ordered))), inverse


class GroupedValues:
    """Values per group key, added a chunk at a time; `stats()` once at the end.

    `rows`, an upper bound of the rows to come (a table's rowid span), lets the chunks be packed
    into one array reserved up front: pages never written cost no memory, and the sort needs no
    second copy (separate chunk arrays, once freed, stay in the process's heap beside it)."""

    def __init__(self, rows: int | None = None):
        self.codes: dict = {}  # key -> code, first seen first
        self._packed: list[np.ndarray] = []  # code << VALUE_BITS | value, per chunk (views of _buf)
        self._loose: list[tuple[np.ndarray, np.ndarray]] = []  # (codes, values) that do not pack
        self._stats: list[tuple] | None = None
        self._buf = None
        if rows and rows <= _RESERVE_MAX:
            try:
                self._buf = np.empty(rows, dtype=np.int64)
            except MemoryError:  # the system refuses the reservation: separate arrays then
                pass
        self._used = 0  # rows of _buf filled; all of _packed lies there while _buf is not None
        self._offset = 0  # where _buf starts in the buffer it is a region of (region, join)

    def code_of(self, keys: list) -> np.ndarray:
        """Codes of keys (new keys get the next codes)."""
        codes = self.codes
        return np.fromiter((codes.setdefault(k, len(codes)) for k in keys), dtype=np.int64, count=len(keys))

    def add(self, keys: list, inverse: np.ndarray, values: np.ndarray) -> None:
        """Rows of one chunk: their distinct keys, each row's index into them, their values."""
        if not len(values):
            return
        self.add_codes(self.code_of(keys)[inverse], values)

    def add_codes(self, codes: np.ndarray, values: np.ndarray) -> None:
        if not len(values):
            return
        if values.min() >= 0 and values.max() <= _MASK:
            packed = (codes << VALUE_BITS) | values
            if self._buf is not None and self._used + len(packed) <= len(self._buf):
                self._buf[self._used:self._used + len(packed)] = packed
                packed = self._buf[self._used:self._used + len(packed)]
                self._used += len(packed)
            elif self._buf is not None:  # more rows than announced: separate arrays from here on
                self._packed, self._buf = [p.copy() for p in self._packed], None
            self._packed.append(packed)
        else:  # a negative (damaged) or days-long value: kept apart, sorted by lexsort at the end
            self._loose.append((codes, values))

    def absorb(self, other: GroupedValues, lut: np.ndarray) -> None:
        """Take over the values `other` was given by add_codes, its code c becoming lut[c]: one
        table read in parts on several threads becomes one. `other` is left empty."""
        for p in other._packed:  # in place, one chunk at a time (views of other's buffer)
            p[:] = (lut[p >> VALUE_BITS] << VALUE_BITS) | (p & _MASK)
        self._packed += other._packed
        self._loose += [(lut[c], v) for c, v in other._loose]
        self._buf = None  # the values now lie in several buffers: _sorted copies them into one
        other._packed, other._loose, other._buf = [], [], None

    def region(self, start: int, end: int) -> GroupedValues:
        """Values that fill rows [start, end) of this one's buffer: one per part of a table read
        on several threads, gathered by `join` (values of their own where there is no buffer)."""
        if self._buf is None:
            return GroupedValues(end - start)
        part = GroupedValues()
        part._buf, part._offset = self._buf[start:end], start
        return part

    def join(self, parts: list[GroupedValues], luts: list[np.ndarray]) -> None:
        """Take over the values of `region` parts, part i's code c becoming luts[i][c]: each part's
        rows move down the shared buffer behind the previous part's, so a table read on several
        threads is held once, as if one thread had read it (absorb where a part outgrew its region)."""
        if self._buf is None or any(p._buf is None or p._buf.base is not self._buf for p in parts):
            for p, lut in zip(parts, luts):
                self.absorb(p, lut)
            return
        at = 0
        for p, lut in zip(parts, luts):
            for i in range(0, p._used, _SLICE):  # renumbered in slices: bounded temporaries
                src = self._buf[p._offset + i:p._offset + min(p._used, i + _SLICE)]
                self._buf[at + i:at + i + len(src)] = (lut[src >> VALUE_BITS] << VALUE_BITS) | (src & _MASK)
            at += p._used
            self._loose += [(lut[c], v) for c, v in p._loose]
            p._packed, p._loose, p._buf = [], [], None
        self._used = at
        self._packed = [self._buf[i:min(at, i + _SLICE)] for i in range(0, at, _SLICE)]

    def merge_keys(self, new_key) -> None:
        """Re-key every group by new_key(old key); groups that get the same key become one."""
        old = list(self.codes)
        merged: dict = {}
        lut = np.fromiter((merged.setdefault(new_key(k), len(merged)) for k in old), dtype=np.int64, count=len(old))
        self.codes = merged
        for p in self._packed:  # in place: one chunk's temporaries at a time
            p[:] = (lut[p >> VALUE_BITS] << VALUE_BITS) | (p & _MASK)
        self._loose = [(lut[c], v) for c, v in self._loose]

    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows per group code, values ordered by code and then value). Memory: the values once
        (no array of codes)."""
        ncodes = len(self.codes)
        if not self._loose:
            if self._buf is not None:
                values, self._buf, self._packed = self._buf[:self._used], None, []
            else:
                values = np.empty(sum(len(p) for p in self._packed), dtype=np.int64)
                at = 0
                while self._packed:
                    part = self._packed.pop(0)
                    values[at:at + len(part)] = part
                    at += len(part)
            values.sort()
            counts = np.zeros(ncodes, dtype=np.int64)
            for lo in range(0, len(values), _SLICE):
                counts += np.bincount(values[lo:lo + _SLICE] >> VALUE_BITS, minlength=ncodes)
                values[lo:lo + _SLICE] &= _MASK
            return counts, values
        parts = [(p >> VALUE_BITS, p & _MASK) for p in self._packed] + self._loose
        self._packed, self._loose, self._buf = [], [], None
        codes = np.concatenate([c for c, _ in parts])
        values = np.concatenate([v for _, v in parts])
        order = np.lexsort((values, codes))
        return np.bincount(codes, minlength=ncodes), values[order]

    def stats(self) -> list[tuple]:
        """(key, total, count, mean, median, min, max, sample stddev) per group, in code order
        (computed once: the values are given up to the sort).

        Median: the mean of the two middle values for an even count, as nsys's median() does.
        Deviation: two-pass (around the mean; no cancellation), 0 for a group of one."""
        if self._stats is None:
            self._stats = list(self._compute()) if self._packed or self._loose else []
        return self._stats

    def _compute(self):
        counts, values = self._sorted()
        ids = np.flatnonzero(counts).tolist()  # groups in code order (codes sorted), none empty
        counts = counts[ids]
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        totals = np.add.reduceat(values, starts)
        means = totals / counts
        ends = starts + counts
        dev = np.zeros(len(starts))
        for lo in range(0, len(values), _SLICE):  # squared deviations in slices: bounded temporaries
            hi = min(len(values), lo + _SLICE)
            first = int(np.searchsorted(starts, lo, side="right")) - 1
            last = int(np.searchsorted(starts, hi - 1, side="right"))
            part = np.minimum(ends[first:last], hi) - np.maximum(starts[first:last], lo)  # rows of each group here
            x = values[lo:hi] - np.repeat(means[first:last], part)
            dev[first:last] += np.add.reduceat(x * x, np.concatenate(([0], np.cumsum(part)[:-1])))
        low, high = values[starts].tolist(), values[ends - 1].tolist()
        med = ((values[starts + (counts - 1) // 2] + values[starts + counts // 2]) / 2).tolist()
        std = np.where(counts > 1, np.sqrt(dev / np.maximum(counts - 1, 1)), 0.0).tolist()
        keys = list(self.codes)
        for code, total, n, mean, m, lo_, hi_, sd in zip(ids, totals.tolist(), counts.tolist(), means.tolist(), med,
                                                      low, high, std):
            yield keys[code], total, n, mean, m, lo_, hi_, sd


class Totals:
    """Count, total, min and max per group code, numpy arrays grown as codes appear."""

    def __init__(self):
        self.count = np.zeros(0, dtype=np.int64)
        self.total = np.zeros(0, dtype=np.int64)
        self.low = np.zeros(0, dtype=np.int64)
        self.high = np.zeros(0, dtype=np.int64)

    def grow(self, size: int) -> None:
        have = len(self.count)
        if size > have:
            extra = size - have
            self.count = np.concatenate((self.count, np.zeros(extra, dtype=np.int64)))
            self.total = np.concatenate((self.total, np.zeros(extra, dtype=np.int64)))
            self.low = np.concatenate((self.low, np.full(extra, np.iinfo(np.int64).max)))
            self.high = np.concatenate((self.high, np.full(extra, np.iinfo(np.int64).min)))

    def add(self, codes: np.ndarray, values: np.ndarray) -> None:
        if not len(codes):
            return
        self.grow(int(codes.max()) + 1)
        size = len(self.count)
        self.count += np.bincount(codes, minlength=size)
        self.total += np.bincount(codes, weights=values, minlength=size).astype(np.int64)
        np.minimum.at(self.low, codes, values)
        np.maximum.at(self.high, codes, values)

    def absorb(self, other: Totals, lut: np.ndarray) -> None:
        """Add `other`'s groups, its code c being lut[c] here (lut: one distinct code per group)."""
        if not len(lut):
            return
        self.grow(int(lut.max()) + 1)
        size = len(lut)
        other.grow(size)
        self.count[lut] += other.count[:size]
        self.total[lut] += other.total[:size]
        self.low[lut] = np.minimum(self.low[lut], other.low[:size])
        self.high[lut] = np.maximum(self.high[lut], other.high[:size])
