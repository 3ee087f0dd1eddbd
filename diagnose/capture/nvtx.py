"""NVTX ranges grouped as `nsys stats` nvtx_sum groups them, in one chunked read of NVTX_EVENTS.

nvtx_sum groups by the range's text ('Domain:text' when its domain is named), a string: a
GROUP BY sorts every row on it (5 s for 4.8 M rows, most of the time of a training export).
Here SQLite hands each chunk of rows over as two group_concat strings: the durations, and one
key per row that says everything its group depends on (event type, text; domain, process and
text id only where the row has a domain or a text id, which most rows have not). A dict over the
keys gives each row its group code (one C-level lookup a row, no other Python work a row), and
numpy folds the chunk into per-group count, total, min and max (and, for the medians, keeps
code << 40 | duration). Names are resolved per distinct key at the end. The key costs SQLite
40 % less than separate integer columns (each is an expression evaluated and printed for every
row: 0.73 -> 0.44 s of CPU for 1.5 M rows, best of three). Large tables are read as rowid
ranges on threads of their own, each with its own read-only connection (the sqlite3 module
releases the GIL while SQLite reads), merged by key. Memory: one chunk per thread, plus 8 bytes
a range when medians are asked for.

nsys semantics kept: text is StringIds(textId), else `text`; a domain's name comes from its
eventType 75 row in the same process (the first one); an unended range lasts until the last
timestamp of the table.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from diagnose.capture.forked import cores
from diagnose.capture.grouped import GroupedValues, Totals
from diagnose.capture.kernels import strings_of
from diagnose.capture.reader import NVTX, Capture, _ints, pid_of

STYLES = {59: "PushPop", 60: "StartEnd", 70: "PushPop", 71: "StartEnd"}  # ENUM_NSYS_EVENT_TYPE
DOMAIN_CREATE = 75
RANGE = "eventType IN (59, 60, 70, 71)"  # the range event types, as SQL
SEP, NO_TEXT = "\x1e", "\x1f"  # row separator of the key column; a NULL text
FIELD, TEXT = "\x1c", "\x1d"  # between a key's fields; before its text
CHUNK = 1 << 16  # rowids per chunk
PART_CHUNKS = 8  # chunks a thread reads at least (smaller tables are read on one thread)
OTHER, RANGE_KIND, CREATE_KIND = 0, 1, 2  # what a key's rows are


@dataclass
class NvtxGroups:
    """Per (name, style): count, count with an end, total, min, max (and medians when read)."""

    rows: list[tuple] = field(default_factory=list)  # (name, style, count, ended, total, min, max)
    stats: list[tuple] | None = None  # (name, style, total, count, avg, med, min, max, stddev)
    raw: dict = field(default_factory=dict)  # row key (see _key) -> (name, style), ranges only
    full: bool = False  # keys carry domain and process on every row (see _Reader.read)


def groups(cap: Capture, values: bool = False) -> NvtxGroups:
    """The capture's NVTX groups (cached; read again only when medians are asked for later)."""
    got = cap.cache.get("nvtx")
    if got is None or (values and got.stats is None):
        got = cap.cache["nvtx"] = _Reader(cap, values).read() if cap.has(NVTX) else NvtxGroups()
    return got


def key_sql(cap: Capture, full: bool) -> tuple[str, str]:
    """(value, separator) of one row's group key for group_concat(value, separator), which puts
    each row's separator before its value: the separator is char(30) and the row's eventType as
    one character, the value the row's text alone for a row with no domain and no text id whose
    text starts at or above char(29) (most rows), else char(28) domain char(28) pid char(28)
    textId char(29) text (`full`: always). Reading the text column as it is, and the event type
    through one function call, costs SQLite a quarter less than building a string per row; the
    separators of the range and domain event types as literals, a quarter less again (1.4-1.6 s
    -> 1.0-1.2 s of CPU for 4.8 M rows)."""
    t = NVTX
    text_id, text, domain = cap.col(t, "textId", "NULL"), cap.col(t, "text", "NULL"), cap.col(t, "domainId", "0")
    long = (f"char(28) || coalesce({domain}, 0) || char(28) || ((coalesce(globalTid, 0) >> 24) & 16777215) || "
            f"char(28) || coalesce({text_id}, '') || char(29) || coalesce({text}, char(31))")
    short = f"{text_id} IS NULL AND {domain} IS 0 AND {text} >= char(29)"
    value = long if full else f"CASE WHEN {short} THEN {text} ELSE {long} END"
    # char(30, eventType) allocates its result on every row (a malloc and a free under SQLite's
    # global memory mutex, which the NVTX threads then contend for); a literal allocates nothing
    known = " ".join(f"WHEN {t} THEN '{SEP}{chr(t)}'" for t in (*STYLES, DOMAIN_CREATE))
    return value, f"CASE eventType {known} ELSE char(30, eventType) END"


SEP_BYTES = SEP.encode()


def _bytes(key: str) -> bytes:
    """A key as SQLite's UTF-8 text holds it (a lone surrogate as char() writes it)."""
    return key.encode("utf-8", "surrogatepass")


def _text(key: bytes) -> str:
    """A key read as bytes, decoded as the capture's text columns are (reader._decode)."""
    return key.decode("utf-8", "replace")


def _char(etype) -> str:
    """SQLite's char(eventType): one code point (U+FFFD when out of range)."""
    x = int(etype or 0)
    return chr(x) if 0 <= x <= 0x10FFFF else "\ufffd"


def _key(etype, domain, gtid, text_id, text, full: bool) -> str:
    """The key key_sql gives a row, for a row read by a cursor (the slow path, ranges_named)."""
    if not full and text_id is None and domain is not None and domain == 0 and text is not None and text >= TEXT:
        return _char(etype) + text
    text = NO_TEXT if text is None else str(text)
    pid = (int(gtid or 0) >> 24) & 0xFFFFFF
    return (f"{_char(etype)}{FIELD}{0 if domain is None else domain}{FIELD}{pid}{FIELD}"
            f"{'' if text_id is None else text_id}{TEXT}{text}")


def _parse(key: str) -> tuple:
    """(eventType, domain, pid, textId, text) of a key; pid None in the short form, text None for NULL."""
    etype, value = ord(key[0]) if key else None, key[1:]
    if not value.startswith(FIELD):
        return etype, 0, None, None, value
    head, _, text = value[1:].partition(TEXT)
    domain, pid, text_id = (_int(f) for f in (head.split(FIELD) + ["", ""])[:3])
    return etype, domain or 0, pid, text_id, None if text == NO_TEXT else text


def _int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


class _Part:
    """One rowid range of the table, read on one connection: per key, count, ended, total, min, max."""

    def __init__(self, cap: Capture, lo: int, hi: int, values: GroupedValues | None, full: bool):
        self.cap, self.lo, self.hi, self.full = cap, lo, hi, full
        self.keys: dict[bytes, int] = {}  # key (UTF-8, see _text) -> code, first seen first
        self.kinds = np.zeros(0, dtype=np.int8)  # per code: OTHER, RANGE_KIND or CREATE_KIND
        self.tot = Totals()  # per code, of the ended ranges
        self.open: list[tuple[np.ndarray, np.ndarray]] = []  # unended ranges: (codes, starts)
        self.values = values  # every duration (--stats): this part's region of the table's values
        self.domains: dict[tuple[int, int], tuple[int, str | None]] = {}  # (domain, pid) -> (start, name)

    def read(self) -> _Part:
        """Every row in rowid chunks (no WHERE: filtering rows in SQLite costs more than reading
        the few that are not ranges); rows that are not ranges are dropped in numpy."""
        value, sep = key_sql(self.cap, self.full)
        # the keys as bytes: a str would be decoded once whole and split into str objects; bytes are
        # split as they come, and only each distinct key is decoded (_text)
        sql = (f'SELECT count(*), group_concat(coalesce("end" - start, -1 - start)), '
               f"CAST(group_concat({value}, {sep}) AS BLOB) FROM {NVTX} WHERE rowid >= ? AND rowid < ?")
        first = f"SELECT eventType FROM {NVTX} WHERE rowid >= ? AND rowid < ? ORDER BY rowid LIMIT 1"
        for lo in range(self.lo, self.hi, CHUNK):
            hi = min(lo + CHUNK, self.hi)
            n, d, keys = self.cap.query(sql, (lo, hi)).fetchone()
            if n:
                try:
                    d = _ints(d, n)
                except ValueError as exc:
                    raise _corrupt(exc) from None
                keys = keys.split(SEP_BYTES) if keys is not None else []
                if len(keys) == n:  # the first row has no separator in front: its event type is read here
                    keys[0] = _bytes(_char(self.cap.query(first, (lo, hi)).fetchone()[0])) + keys[0]
                else:  # a separator inside a text, or an event type that is one
                    keys = self._slow_keys(lo, hi)
                self._chunk(lo, hi, d, keys)
        return self

    def _slow_keys(self, lo: int, hi: int) -> list[str]:
        """The chunk's keys by a row cursor (texts holding the separator)."""
        t = NVTX
        rows = self.cap.query(
            f"SELECT eventType, {self.cap.col(t, 'domainId', '0')}, globalTid, {self.cap.col(t, 'textId')}, "
            f"{self.cap.col(t, 'text')} FROM {t} WHERE rowid >= ? AND rowid < ? ORDER BY rowid", (lo, hi))
        return [_bytes(_key(*r, self.full)) for r in rows]

    def _chunk(self, lo: int, hi: int, d, keys: list[bytes]) -> None:
        codes = self.keys
        try:  # keys seen before (most, after the first chunks): one C-level lookup per row
            row = np.fromiter(map(codes.__getitem__, keys), dtype=np.int64, count=len(keys))
        except KeyError:
            new = [k for k in dict.fromkeys(keys) if k not in codes]
            for k in new:
                codes[k] = len(codes)
            etypes = [_parse(_text(k))[0] for k in new]
            self.kinds = np.concatenate((self.kinds, np.array(
                [RANGE_KIND if e in STYLES else CREATE_KIND if e == DOMAIN_CREATE else OTHER for e in etypes],
                dtype=np.int8)))
            row = np.fromiter(map(codes.__getitem__, keys), dtype=np.int64, count=len(keys))
        kind = self.kinds[row]
        if (kind == CREATE_KIND).any():
            self._domains(lo, hi)
        ranges = kind == RANGE_KIND
        if not ranges.all():
            row, d = row[ranges], d[ranges]
        ended = d >= 0
        if not ended.all():
            self.open.append((row[~ended], -d[~ended] - 1))
            row, d = row[ended], d[ended]
        self.tot.add(row, d)
        if self.values is not None:
            self.values.add_codes(row, d)

    def _domains(self, lo: int, hi: int) -> None:
        t = NVTX
        for dom, gtid, name, start in self.cap.query(
                f"SELECT coalesce({self.cap.col(t, 'domainId', '0')}, 0), globalTid, {self.cap.col(t, 'text')}, start "
                f"FROM {t} WHERE rowid >= ? AND rowid < ? AND eventType = {DOMAIN_CREATE}", (lo, hi)):
            _first_domain(self.domains, (dom, pid_of(gtid) or 0), start, name)


def _first_domain(domains: dict, key: tuple, start, name) -> None:
    if key not in domains or start < domains[key][0]:
        domains[key] = (start, name)


class _Reader:
    def __init__(self, cap: Capture, values: bool):
        self.cap, self.values = cap, values

    def read(self, full: bool = False) -> NvtxGroups:
        """The table in rowid ranges, one thread and connection each (one per core, each
        at least PART_CHUNKS chunks), merged by key. Short keys leave out the process of rows in
        domain 0; should the export name domain 0 (never seen), the table is read again with `full` keys."""
        cap = self.cap
        lo, hi = cap.rowid_bounds(NVTX)
        if lo is None:
            return NvtxGroups(stats=[] if self.values else None)
        n = max(1, min(cores(), (hi - lo + 1) // (PART_CHUNKS * CHUNK)))
        step = -(-(hi - lo + 1) // (n * CHUNK)) * CHUNK
        bounds = [(a, min(a + step, hi + 1)) for a in range(lo, hi + 1, step)]
        shared = GroupedValues(hi - lo + 1) if self.values else None
        regions = [shared.region(a - lo, b - lo) if shared else None for a, b in bounds]
        if len(bounds) == 1:
            parts = [_Part(cap, lo, hi + 1, regions[0], full).read()]
        else:
            parts = _threads(cap, bounds, regions, full)
        domains: dict = {}
        for p in parts:
            for key, (start, name) in p.domains.items():
                _first_domain(domains, key, start, name)
        if not full and any(dom == 0 for dom, _ in domains):
            return self.read(full=True)
        return _merge(cap, parts, domains, full, shared)


def _threads(cap: Capture, bounds: list[tuple[int, int]], regions: list, full: bool) -> list[_Part]:
    """Each rowid range on a thread of its own with a read-only connection of its own."""
    parts: list = [None] * len(bounds)

    def run(i, lo, hi):
        try:
            with cap.another() as other:
                parts[i] = _Part(other, lo, hi, regions[i], full).read()
        except Exception as exc:  # noqa: BLE001 - raised on the calling thread
            parts[i] = exc

    workers = [threading.Thread(target=run, args=(i, lo, hi), daemon=True) for i, (lo, hi) in enumerate(bounds)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for p in parts:
        if isinstance(p, Exception):
            raise p
    return parts


def _merge(cap: Capture, parts: list[_Part], domains: dict, full: bool, values: GroupedValues | None) -> NvtxGroups:
    """The parts' groups by key (in the order keys were first seen), named."""
    keys: dict[bytes, int] = {}
    luts = [np.array([keys.setdefault(k, len(keys)) for k in p.keys], dtype=np.int64) for p in parts]
    tot = Totals()
    kinds = np.zeros(len(keys), dtype=np.int8)
    for p, lut in zip(parts, luts):
        kinds[lut] = p.kinds[:len(lut)]
        tot.absorb(p.tot, lut)
    tot.grow(len(keys))
    ended = tot.count.copy()
    opened = [(lut[rows], starts) for p, lut in zip(parts, luts) for rows, starts in p.open]
    if opened:  # unended ranges last until the table's last timestamp (nsys's maxts)
        last = cap.query(f'SELECT max(max(start), max(coalesce("end", 0))) FROM {NVTX}').fetchone()[0]
        for rows, start in opened:
            tot.add(rows, last - start)
    out = NvtxGroups(full=full)
    texts = [_text(k) for k in keys]
    parsed = [_parse(k) for k in texts]
    ids = strings_of(cap, [tid for _, _, _, tid, _ in parsed if tid is not None])
    names = []  # per key code: (name, style)
    for key, (etype, domain, pid, text_id, text) in zip(texts, parsed):
        base = ids.get(text_id, text) if text_id is not None else text
        dom = domains.get((domain, pid), (0, None))[1] if pid is not None else None
        names.append((base if dom is None or base is None else f"{dom}:{base}", STYLES.get(etype, "Unknown")))
        if etype in STYLES:
            out.raw[key] = names[-1]
    merged: dict[tuple, list] = {}
    counts, totals, lows, highs, endeds = (a.tolist() for a in (tot.count, tot.total, tot.low, tot.high, ended))
    for code in np.flatnonzero(kinds == RANGE_KIND).tolist():
        n, total, low, high = counts[code], totals[code], lows[code], highs[code]
        m = merged.get(names[code])
        if m is None:
            merged[names[code]] = [n, endeds[code], total, low, high]
        else:
            m[0] += n
            m[1] += endeds[code]
            m[2] += total
            m[3], m[4] = min(m[3], low), max(m[4], high)
    out.rows = sorted(((*k, *v) for k, v in merged.items()), key=lambda r: (r[0] or "", r[1]))
    if values is not None:  # each part's codes become their (name, style)'s code in one pass over the values
        by_name: dict[tuple, int] = {}
        named = np.fromiter((by_name.setdefault(n, len(by_name)) for n in names), dtype=np.int64, count=len(names))
        values.join([p.values for p in parts], [named[lut] for lut in luts])
        values.codes = by_name
        for rows, start in opened:
            values.add_codes(named[rows], last - start)
        out.stats = [(*k, *s) for k, *s in values.stats()]
    return out


def _corrupt(exc: Exception):
    import sqlite3

    return sqlite3.DatabaseError(f"corrupt value in {NVTX} ({exc})")


def ranges_named(cap: Capture, names: list[str], limit: int) -> list[tuple[int, int, int]]:
    """(globalTid, start, end) of the ended ranges with these names, by start (at most `limit`):
    one scan that compares the raw text or text id, the key built as the groups built it."""
    g = groups(cap)
    named = set(names)
    wanted = {key for key, (name, _style) in g.raw.items() if name in named}
    if not wanted:
        return []
    parsed = [_parse(k) for k in wanted]
    ids = sorted({tid for _, _, _, tid, _ in parsed if tid is not None})
    texts = sorted({text for _, _, _, tid, text in parsed if tid is None and text is not None})
    t = NVTX
    text_id, text, domain = cap.col(t, "textId"), cap.col(t, "text"), cap.col(t, "domainId", "0")
    match = []
    if ids and text_id != "NULL":
        match.append(f"{text_id} IN ({','.join(map(str, ids))})")
    if texts and text != "NULL":
        match.append(f"{text} IN ({','.join('?' * len(texts))})")
    if not match:
        return []
    rows = cap.query(
        f"SELECT globalTid, start, \"end\", eventType, {domain}, {text_id}, {text} FROM {t} "
        f"WHERE \"end\" IS NOT NULL AND {RANGE} AND ({' OR '.join(match)}) "
        f"ORDER BY start", tuple(texts) if text != "NULL" else ()).fetchall()
    out = []
    for gtid, s, e, etype, dom, tid, txt in rows:
        if _key(etype, dom, gtid, tid, txt, g.full) in wanted:
            out.append((gtid, s, e))
            if len(out) >= limit:
                break
    return out
