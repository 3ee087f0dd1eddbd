"""NVTX ranges grouped as `nsys stats` nvtx_sum groups them, in one chunked read of NVTX_EVENTS.

nvtx_sum groups by the range's text ('Domain:text' when its domain is named), a string: a
GROUP BY sorts every row on it (5 s for 4.8 M rows, most of the time of a training export).
Here SQLite hands each chunk of rows over as a few group_concat strings (no Python object per
row); a dict over the chunk's distinct texts gives each row an integer code, and numpy folds
the chunk into per-group count, total, min and max (and, for the medians, keeps code << 40 |
duration). Names are resolved per distinct (text, domain, process, style) at the end.
Memory: one chunk, plus 8 bytes a range when medians are asked for.

nsys semantics kept: text is StringIds(textId), else `text`; a domain's name comes from its
eventType 75 row in the same process (the first one); an unended range lasts until the last
timestamp of the table.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from diagnose.capture.grouped import GroupedValues, IntCodes, distinct
from diagnose.capture.kernels import strings_of
from diagnose.capture.reader import NVTX, Capture, _ints, pid_of

STYLES = {59: "PushPop", 60: "StartEnd", 70: "PushPop", 71: "StartEnd"}  # ENUM_NSYS_EVENT_TYPE
DOMAIN_CREATE = 75
RANGE = "eventType IN (59, 60, 70, 71)"  # the range event types, as SQL
SEP, NO_TEXT = "\x1e", "\x1f"  # row separator of the text column; a NULL text
CHUNK = 1 << 16  # rowids per chunk
LOW = 0xFFFFFFFF  # eventType << 24 | pid, below the domain id in a row's context integer


@dataclass
class NvtxGroups:
    """Per (name, style): count, count with an end, total, min, max (and medians when read)."""

    rows: list[tuple] = field(default_factory=list)  # (name, style, count, ended, total, min, max)
    stats: list[tuple] | None = None  # (name, style, total, count, avg, med, min, max, stddev)
    raw: dict = field(default_factory=dict)  # (name key, low, domain id) -> (name, style)
    texts: list[str] = field(default_factory=list)  # text code -> text
    id_names: dict[int, str | None] = field(default_factory=dict)  # textId -> StringIds text


def groups(cap: Capture, values: bool = False) -> NvtxGroups:
    """The capture's NVTX groups (cached; read again only when medians are asked for later)."""
    got = cap.cache.get("nvtx")
    if got is None or (values and got.stats is None):
        got = cap.cache["nvtx"] = _Reader(cap, values).read() if cap.has(NVTX) else NvtxGroups()
    return got


class _Reader:
    def __init__(self, cap: Capture, values: bool):
        self.cap, t = cap, NVTX
        self.values = GroupedValues(cap.rowid_span(NVTX)) if values else None
        self.out = NvtxGroups()
        self.text_codes: dict[str, int] = {}
        self.text_id = cap.col(t, "textId", "-1")
        self.text = cap.col(t, "text", "NULL")
        self.domain = cap.col(t, "domainId", "0")
        self.domains: dict[tuple[int, int], tuple[int, str | None]] = {}  # (domain, pid) -> (start, name)
        self.contexts: dict[tuple[int, int], int] = {}  # (eventType << 24 | pid, domain id) -> code
        self.keys = IntCodes()  # context code << 40 | name key -> group code
        # per group code: count, ended, total, min, max (grown as codes appear)
        self.tot = np.zeros((5, 0), dtype=np.int64)
        self.open: list[tuple[np.ndarray, np.ndarray]] = []  # unended ranges: (codes, starts)

    def read(self) -> NvtxGroups:
        """Every row of the table in rowid chunks (no WHERE: filtering rows in SQLite costs more
        than reading the few that are not ranges); rows that are not ranges are dropped in numpy."""
        cap, t = self.cap, NVTX
        ctx = f"(coalesce({self.domain}, 0) << 32) | (eventType << 24) | ((coalesce(globalTid, 0) >> 24) & 16777215)"
        sql = (f'SELECT count(*), group_concat(coalesce("end" - start, -1 - start)), '
               f"group_concat(coalesce({self.text_id}, -1)), group_concat({ctx}), "
               f"group_concat(coalesce({self.text}, char(31)), char(30)), min({self.domain}), max({self.domain}) "
               f"FROM {t} WHERE rowid >= ? AND rowid < ?")
        lo, hi = cap.query(f"SELECT min(rowid), max(rowid) FROM {t}").fetchone()
        while lo is not None and lo <= hi:
            n, d, tid, ctx, text, dmin, dmax = cap.query(sql, (lo, lo + CHUNK)).fetchone()
            if n:
                try:
                    d, tid = _ints(d, n), _ints(tid, n)
                    ctx = _ints(ctx, n) if 0 <= (dmin or 0) and (dmax or 0) <= 0x7FFFFFFF else None
                except ValueError as exc:
                    raise _corrupt(exc) from None
                texts, far = text.split(SEP), None
                if len(texts) != n or ctx is None:  # a separator inside a text, or a huge domain id
                    texts, ctx, far = self._slow_columns(lo)
                if (((ctx >> 24) & 0xFF) == DOMAIN_CREATE).any():
                    self._domains(lo)
                self._chunk(d, tid, ctx, texts, far)
            lo += CHUNK
        return self._finish()

    def _slow_columns(self, lo: int):
        """The chunk's texts and contexts by a row cursor (texts holding the separator; domain ids
        that do not fit 31 bits): each domain id gets a small code, returned with its value."""
        rows = self.cap.query(
            f"SELECT coalesce({self.text}, char(31)), coalesce({self.domain}, 0), "
            f"(eventType << 24) | ((coalesce(globalTid, 0) >> 24) & 16777215) FROM {NVTX} "
            f"WHERE rowid >= ? AND rowid < ? ORDER BY rowid", (lo, lo + CHUNK)).fetchall()
        far: dict = {}
        ctx = np.fromiter(((far.setdefault(dom, len(far)) << 32) | low for _, dom, low in rows), np.int64, len(rows))
        return [str(r[0]) for r in rows], ctx, {code: dom for dom, code in far.items()}

    def _domains(self, lo: int) -> None:
        for dom, gtid, name, start in self.cap.query(
                f"SELECT coalesce({self.domain}, 0), globalTid, {self.text}, start FROM {NVTX} "
                f"WHERE rowid >= ? AND rowid < ? AND eventType = {DOMAIN_CREATE}", (lo, lo + CHUNK)):
            key = (dom, pid_of(gtid) or 0)
            if key not in self.domains or start < self.domains[key][0]:
                self.domains[key] = (start, name)

    def _chunk(self, d, tid, ctx, texts, far: dict | None) -> None:
        etype = (ctx >> 24) & 0xFF
        ranges = (etype == 59) | (etype == 60) | (etype == 70) | (etype == 71)
        if not ranges.all():
            d, tid, ctx = d[ranges], tid[ranges], ctx[ranges]
            texts = list(itertools.compress(texts, ranges.tolist()))
            if not len(d):
                return
        codes = self.text_codes
        try:  # texts seen before (most, after the first chunks): one C-level lookup per row
            name = np.fromiter(map(codes.__getitem__, texts), dtype=np.int64, count=len(texts)) << 1
        except KeyError:
            for s in dict.fromkeys(texts):
                codes.setdefault(s, len(codes))
            name = np.fromiter(map(codes.__getitem__, texts), dtype=np.int64, count=len(texts)) << 1
        with_id = tid >= 0
        if with_id.any():  # StringIds text where the id resolves, else the row's own text
            ids = distinct(tid[with_id]).tolist()
            new = [i for i in ids if i not in self.out.id_names]
            if new:
                found = strings_of(self.cap, new)
                self.out.id_names.update((i, found.get(i)) for i in new)
            ok = np.array([i for i in ids if self.out.id_names[i] is not None], dtype=np.int64)
            use = with_id & np.isin(tid, ok)
            name[use] = (tid[use] << 1) | 1
        if name.max() >= 1 << 40:
            raise _corrupt(ValueError("a text id beyond 2^39"))
        uniq, inverse = np.unique(ctx, return_inverse=True)
        ctx_codes = np.array([self.contexts.setdefault((c & LOW, far[c >> 32] if far is not None else c >> 32),
                                                       len(self.contexts)) for c in uniq.tolist()], dtype=np.int64)
        row = self.keys.codes_of((ctx_codes[inverse] << 40) | name)
        if self.keys.size > self.tot.shape[1]:
            grown = np.zeros((5, max(self.keys.size, 2 * self.tot.shape[1])), dtype=np.int64)
            grown[3] = np.iinfo(np.int64).max
            grown[4] = np.iinfo(np.int64).min
            grown[:, :self.tot.shape[1]] = self.tot
            self.tot = grown
        ended = d >= 0
        if not ended.all():
            self.open.append((row[~ended], -d[~ended] - 1))
            row, d = row[ended], d[ended]
        self._add(row, d, ended=True)

    def _add(self, row, d, ended: bool) -> None:
        t, size = self.tot, self.tot.shape[1]
        n = np.bincount(row, minlength=size)
        t[0] += n
        if ended:
            t[1] += n
        t[2] += np.bincount(row, weights=d, minlength=size).astype(np.int64)
        np.minimum.at(t[3], row, d)
        np.maximum.at(t[4], row, d)
        if self.values is not None:
            self.values.add_codes(row, d)

    def _finish(self) -> NvtxGroups:
        if self.open:  # unended ranges last until the table's last timestamp (nsys's maxts)
            last = self.cap.query(f'SELECT max(max(start), max(coalesce("end", 0))) FROM {NVTX}').fetchone()[0]
            for row, start in self.open:
                self._add(row, last - start, ended=False)
        out, texts = self.out, list(self.text_codes)
        out.texts = texts
        contexts = list(self.contexts)
        names = []  # per group code: (name, style)
        for key in self.keys.keys().tolist():
            low, domain = contexts[key >> 40]
            raw = (key & ((1 << 40) - 1), low, domain)
            out.raw[raw] = (self._name(raw, texts), STYLES.get((low >> 24) & 0xFF, "Unknown"))
            names.append(out.raw[raw])
        merged: dict[tuple, list] = {}
        for name, (n, ended, total, low, high) in zip(names, self.tot[:, :len(names)].T.tolist()):
            m = merged.get(name)
            if m is None:
                merged[name] = [n, ended, total, low, high]
            else:
                m[0] += n
                m[1] += ended
                m[2] += total
                m[3], m[4] = min(m[3], low), max(m[4], high)
        out.rows = sorted(((*k, *v) for k, v in merged.items()), key=lambda r: (r[0] or "", r[1]))
        if self.values is not None:
            self.values.codes = {i: i for i in range(len(names))}
            self.values.merge_keys(names.__getitem__)
            out.stats = [(*k, *s) for k, *s in self.values.stats()]
        return out

    def _name(self, key: tuple, texts: list[str]) -> str | None:
        """nsys's tag: 'domain:text' when the domain is named, the text alone otherwise (NULL text: NULL)."""
        name_key, low, domain = key
        base = self.out.id_names.get(name_key >> 1) if name_key & 1 else texts[name_key >> 1]
        if base == NO_TEXT:
            return None
        dom = self.domains.get((domain, low & 0xFFFFFF), (0, None))[1]
        return base if dom is None or base is None else f"{dom}:{base}"


def _corrupt(exc: Exception):
    import sqlite3

    return sqlite3.DatabaseError(f"corrupt value in {NVTX} ({exc})")


def ranges_named(cap: Capture, names: list[str], limit: int) -> list[tuple[int, int, int]]:
    """(globalTid, start, end) of the ended ranges with these names, by start (at most `limit`):
    one scan that compares the raw text or text id, the domain resolved as the groups were."""
    g = groups(cap)
    named = set(names)
    wanted = {key for key, (name, _style) in g.raw.items() if name in named}
    if not wanted:
        return []
    ids = sorted({k >> 1 for k, _, _ in wanted if k & 1})
    texts = sorted({g.texts[k >> 1] for k, _, _ in wanted if not k & 1} - {NO_TEXT})
    t = NVTX
    text_id, text, domain = cap.col(t, "textId", "-1"), cap.col(t, "text", "NULL"), cap.col(t, "domainId", "0")
    match = []
    if ids and text_id != "-1":
        match.append(f"{text_id} IN ({','.join(map(str, ids))})")
    if texts and text != "NULL":
        match.append(f"{text} IN ({','.join('?' * len(texts))})")
    if not match:
        return []
    rows = cap.query(
        f"SELECT globalTid, start, \"end\", coalesce({text_id}, -1), coalesce({text}, char(31)), "
        f"coalesce({domain}, 0), eventType FROM {t} WHERE \"end\" IS NOT NULL AND {RANGE} AND ({' OR '.join(match)}) "
        f"ORDER BY start", tuple(texts) if text != "NULL" else ()).fetchall()
    codes = {s: i for i, s in enumerate(g.texts)}
    out = []
    for gtid, s, e, tid, txt, dom, etype in rows:
        resolved = tid >= 0 and g.id_names.get(tid) is not None
        name_key = (tid << 1) | 1 if resolved else codes.get(txt, -1) << 1
        if (name_key, (etype << 24) | (pid_of(gtid) or 0), dom) in wanted:
            out.append((gtid, s, e))
            if len(out) >= limit:
                break
    return out
