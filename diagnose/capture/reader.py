"""Open an Nsight Systems SQLite export read-only and resolve its schema by name.

Exports differ by version (see ../shared/docs/nsys-sqlite-schema.md, section 13): tables exist
only when data of that kind was captured, columns were added over time, the metadata table
was renamed. Everything here asks the file what it has instead of assuming.
"""

from __future__ import annotations

import os
import sqlite3
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from diagnose.errors import InputError

# Compressed files by their format's magic bytes (RFC 1952 gzip, xz, zstd RFC 8878, bzip2, zip): an export
# shared compressed is said to be so, with the command that unpacks it.
COMPRESSED = ((b"\x1f\x8b", "gzip", "gunzip -k FILE"), (b"\xfd7zXZ\x00", "xz", "unxz -k FILE"),
              (b"\x28\xb5\x2f\xfd", "zstd", "unzstd FILE"), (b"BZh", "bzip2", "bunzip2 -k FILE"),
              (b"PK\x03\x04", "zip", "unzip FILE"))
SQLITE_MAGIC = b"SQLite format 3\x00"

KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET"
SYNC = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
NVTX = "NVTX_EVENTS"

# Tables whose presence says "this is an nsys export" (any one is enough, with StringIds).
NSYS_MARKERS = (
    "TARGET_INFO_SESSION_START_TIME",
    "META_DATA_EXPORT",
    "EXPORT_META_DATA",
    "TARGET_INFO_SYSTEM_ENV",
    KERNEL,
    RUNTIME,
)

# What a TP diagnosis wants, and what its absence means for the report.
EXPECTED_TABLES = {
    KERNEL: "GPU kernels (no CUDA kernel trace: capture with --trace=cuda)",
    RUNTIME: "CUDA API calls (no CUDA API trace: capture with --trace=cuda)",
    MEMCPY: "memory copies",
    NVTX: "NVTX ranges (no step markers: capture with --trace=cuda,nvtx)",
    "TARGET_INFO_GPU": "GPU inventory",
}
# Columns of those tables that every nsys export since 2021 has and a check cannot do without
# (the kernel's launch geometry: the small-grid check reads blocks per grid).
GRID_COLUMNS = ("gridX", "gridY", "gridZ")
EXPECTED_COLUMNS = [(KERNEL, GRID_COLUMNS, "kernel grid sizes (no small-grid check)")]

# ENUM_CUDA_MEMCPY_OPER, as the short labels nsys stats prints (ENUM tables exist only >= 3.0.0).
COPY_KINDS = {
    0: "Unknown", 1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA",
    8: "DtoD", 9: "HtoH", 10: "PtoP", 11: "Unified HtoD", 12: "Unified DtoH", 13: "Unified DtoD",
}
UVM_COPY_KINDS = (11, 12, 13)
# The operation names `nsys stats` prints (cuda_gpu_mem_time_sum): unified-memory migrations are
# "[CUDA Unified Memory memcpy HtoD]", not "[CUDA memcpy Unified HtoD]": the cuda_gpu_mem_time_sum
# report (https://docs.nvidia.com/nsight-systems/UserGuide/index.html, "Report Scripts") maps
# copyKind 11-13 so, and published `nsys stats` outputs of managed-memory programs print them.
COPY_OPERATION_NAMES = {k: (f"[CUDA Unified Memory memcpy {v.split()[1]}]" if k in UVM_COPY_KINDS
                            else f"[CUDA memcpy {v}]") for k, v in COPY_KINDS.items()}
# ENUM_CUDA_MEM_KIND
MEM_KINDS = {0: "Pageable", 1: "Pinned", 2: "Device", 3: "Array", 4: "Managed",
             5: "Device Static", 6: "Managed Static", 7: "Unknown"}
# ENUM_CUPTI_SYNC_TYPE
SYNC_TYPES = {0: "Unknown", 1: "Event sync", 2: "Stream wait event", 3: "Stream sync", 4: "Context sync"}
# ENUM_NSYS_EVENT_TYPE values used for NVTX
NVTX_PUSHPOP, NVTX_STARTEND, NVTX_DOMAIN_CREATE = 59, 60, 75


def _ints(text: str | None, n: int | None) -> np.ndarray:
    """One group_concat'ed column ('12,7,-3') as n int64 values (None: as many as it holds);
    ValueError if it is not that."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy only warns when it stops at a non-integer
        try:
            values = np.fromstring(text or "", dtype=np.int64, sep=",")
        except (ValueError, DeprecationWarning):
            raise ValueError("not an integer where the schema has one") from None
    if n is not None and len(values) != n:
        raise ValueError(f"{len(values)} values where {n} rows were read")
    return values


def pid_of(global_id: int | None) -> int | None:
    """globalPid/globalTid -> pid (bits 24..47)."""
    return None if global_id is None else (int(global_id) >> 24) & 0xFFFFFF


def tid_of(global_tid: int | None) -> int | None:
    return None if global_tid is None else int(global_tid) & 0xFFFFFF


def vm_of(global_id: int | None) -> int | None:
    return None if global_id is None else (int(global_id) >> 48) & 0xFF


def _decode(raw: bytes) -> str:
    """Text columns may hold non-UTF-8 bytes (2021/2022 exports): never fail on them."""
    return raw.decode("utf-8", "replace")


@dataclass
class Gpu:
    """A GPU the capture knows about, and the CUDA ordinal processes saw it under."""

    id: int
    name: str | None = None
    bus: str | None = None
    uuid: str | None = None
    cu_device: int | None = None
    memory_bytes: int | None = None
    sm_count: int | None = None
    used: bool = False


@dataclass
class Capture:
    """One open export. Use `open_capture`; close with `close()` or a `with` block."""

    path: Path
    conn: sqlite3.Connection
    tables: set[str]
    meta: dict[str, str] = field(default_factory=dict)
    _columns: dict[str, list[str]] = field(default_factory=dict)
    _strings: dict[int, str] = field(default_factory=dict)
    _class_col: str | None = None  # set once the temp kernel-class table exists (timeline)
    _temp: int = 0  # temp tables made so far (aggregate)
    file: Path | None = None  # the file opened (`path` may be renamed for display)
    stop_at: float | None = None  # time.monotonic() after which queries are interrupted
    cache: dict[str, Any] = field(default_factory=dict)  # results two analyses share

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def source(self) -> str:
        return f"capture:{self.path.name}"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def another(self) -> Capture:
        """A second read-only connection to the same export (the same deadline and display name),
        for a thread of its own: the sqlite3 module releases the GIL while SQLite reads, so reads
        on separate connections run on separate cores. Close it when done."""
        stop = self.stop_at
        other = open_capture(self.file or self.path, deadline_s=max(1e-9, stop - time.monotonic()) if stop else None)
        other.path = self.path
        return other

    def close(self) -> None:
        try:
            self.conn.close()
        except sqlite3.Error:
            pass

    # ------------------------------------------------------------------ schema
    def has(self, table: str) -> bool:
        return table in self.tables

    def columns(self, table: str) -> list[str]:
        if table not in self._columns:
            if table not in self.tables:
                self._columns[table] = []
            else:
                rows = self.conn.execute(f'PRAGMA table_info("{table}")').fetchall()
                self._columns[table] = [r[1] for r in rows]
        return self._columns[table]

    def has_column(self, table: str, column: str) -> bool:
        return column in self.columns(table)

    def col(self, table: str, column: str, default: str = "NULL", prefix: str = "") -> str:
        """The column's name for a SELECT (`prefix` = a table alias such as "ne."), or a literal
        default when this version of the schema lacks the column."""
        return f'{prefix}"{column}"' if self.has_column(table, column) else default

    def count(self, table: str) -> int:
        if not self.has(table):
            return 0
        key = f"count:{table}"
        if key not in self.cache:
            self.cache[key] = self.conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
        return self.cache[key]

    def rowid_span(self, table: str) -> int | None:
        """max(rowid) - min(rowid) + 1: at least the table's row count, from two b-tree lookups."""
        if not self.has(table):
            return None
        lo, hi = self.rowid_bounds(table)
        return None if lo is None else hi - lo + 1

    def rowid_bounds(self, table: str) -> tuple[int | None, int | None]:
        """(min(rowid), max(rowid)), each its own subquery: SQLite answers a lone min() or max()
        of the rowid from one end of the b-tree, but both in one SELECT scan the whole table
        (0.28 s of CPU for 4.8 M NVTX rows, 0.06 s for 1 M kernels)."""
        return self.conn.execute(f'SELECT (SELECT min(rowid) FROM "{table}"), (SELECT max(rowid) FROM "{table}")'
                                 ).fetchone()

    def missing(self) -> list[str]:
        """Expected tables this export lacks, and expected columns of the tables it has, each with
        what that means (a trimmed export keeps a table but can drop a column a check reads)."""
        tables = [f"{t}: {why}" for t, why in EXPECTED_TABLES.items() if not self.has(t)]
        return tables + [f"{t}.{'/'.join(cols)}: {why}" for t, cols, why in EXPECTED_COLUMNS
                         if self.lacks_columns(t, cols)]

    def lacks_columns(self, table: str, columns: tuple[str, ...]) -> bool:
        """The table is there but not every one of `columns` is."""
        return self.has(table) and not all(self.has_column(table, c) for c in columns)

    # ------------------------------------------------------------------ queries
    def query(self, sql: str, params: tuple = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def chunks(self, table: str, exprs: list[str], where: str = "1", size: int = 1 << 16, rowids: list | None = None,
               samples: list[tuple[str, list[str]]] = ()):
        """Yield the integer values of `exprs` over `table` in rowid order: one list of int64
        arrays (one per expression, equal lengths) per chunk of `size` rowids.

        Why not a cursor: the sqlite3 module builds a Python tuple per row (~0.3 us, most of
        the time of a large read); group_concat hands one chunk of a column over as one string
        that numpy parses in C, three times faster. Expressions must be non-NULL (the caller
        coalesces). A chunk holding a REAL where an integer belongs is read again with CASTs
        (truncated, as a cursor read would); a NULL or text there is a damaged export
        (sqlite3.DatabaseError). Memory: one chunk. `rowids`, when given, gets the (first, end)
        rowid range of each chunk appended just before the chunk is yielded. Each of `samples`,
        (condition, expressions), adds one array per expression holding only the rows that meet
        the condition (and give no NULL): one more group_concat that skips the others, so a
        sample of a table costs no read of its own.
        """
        def select(cols, picked):
            extra = ""
            for condition, values in picked:
                joined = " || ',' || ".join(f"({e})" for e in values)
                extra += f", group_concat(CASE WHEN {condition} THEN {joined} END)"
            return (f"SELECT count(*), {', '.join(f'group_concat({e})' for e in cols)}{extra} FROM {table} "
                    f"WHERE rowid >= ? AND rowid < ? AND ({where})")

        def parsed(n, texts):
            values = [_ints(t, n) for t in texts[:len(exprs)]]
            for text, (_, picked) in zip(texts[len(exprs):], samples):
                values += list(_ints(text, None).reshape(-1, len(picked)).T)
            return values

        cast = [(condition, [f"CAST(({e}) AS INTEGER)" for e in values]) for condition, values in samples]
        sql = select(exprs, samples)
        lo, hi = self.rowid_bounds(table)
        while lo is not None and lo <= hi:
            n, *texts = self.conn.execute(sql, (lo, lo + size)).fetchone()
            if n:
                try:
                    values = parsed(n, texts)
                except ValueError:
                    n, *texts = self.conn.execute(select([f"CAST(({e}) AS INTEGER)" for e in exprs], cast),
                                                  (lo, lo + size)).fetchone()
                    try:
                        values = parsed(n, texts)
                    except ValueError as exc:
                        raise sqlite3.DatabaseError(f"corrupt value in {table} ({exc})") from None
                if rowids is not None:
                    rowids.append((lo, lo + size))
                yield values
                lo += size
            else:  # sparse rowids: jump to the next row instead of walking empty ranges
                lo = self.conn.execute(f"SELECT min(rowid) FROM {table} WHERE rowid >= ?", (lo + size,)).fetchone()[0]

    def aggregate(self, table: str, key: str, carry: list[str], value: str, where: str = "1") -> list[tuple]:
        """(key, *carry, count, sum, min, max) of `value` per distinct integer `key` over `table`.

        Why not GROUP BY: SQLite sorts every row first (on disk for a large table). Upserting
        each row into a temp table keyed by the group (adding to the row already there) costs
        one lookup in a small index per row instead, twice as fast on millions of rows, and
        memory is one row per group. `carry` columns are taken from the group's first row
        (they must be functions of the key). The temp table is dropped afterwards and never
        touches the user's file.
        """
        self._temp += 1
        tmp = f"temp.dx_agg{self._temp}"
        cols = "".join(f"c{i}, " for i in range(len(carry)))
        self.conn.execute(f"CREATE TEMP TABLE dx_agg{self._temp} (k INTEGER PRIMARY KEY, {cols}n, s, lo, hi)")
        try:
            self.conn.execute(
                f"INSERT INTO {tmp} SELECT {key}, {''.join(f'{c}, ' for c in carry)}1, {value}, {value}, {value} "
                f"FROM {table} WHERE {where} "
                f"ON CONFLICT (k) DO UPDATE SET n = n + 1, s = s + excluded.s, "
                f"lo = min(lo, excluded.lo), hi = max(hi, excluded.hi)")
            return self.conn.execute(f"SELECT k, {cols}n, s, lo, hi FROM {tmp} ORDER BY k").fetchall()
        finally:
            self.conn.execute(f"DROP TABLE {tmp}")

    def string(self, string_id: int | None) -> str | None:
        if string_id is None:
            return None
        if string_id not in self._strings:
            row = None
            if self.has("StringIds"):
                row = self.conn.execute("SELECT value FROM StringIds WHERE id = ?", (string_id,)).fetchone()
            self._strings[string_id] = row[0] if row else f"<string {string_id}>"
        return self._strings[string_id]

    # ------------------------------------------------------------------ metadata
    @property
    def product_version(self) -> str | None:
        return self.meta.get("EXPORT_PRODUCT_VERSION")

    @property
    def schema_version(self) -> str | None:
        return self.meta.get("EXPORT_SCHEMA_VERSION")

    def session_start_utc_ns(self) -> int | None:
        if not self.has("TARGET_INFO_SESSION_START_TIME"):
            return None
        if not self.has_column("TARGET_INFO_SESSION_START_TIME", "utcEpochNs"):
            return None
        row = self.query("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1").fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def system_env(self) -> dict[str, str]:
        if not self.has("TARGET_INFO_SYSTEM_ENV") or not self.has_column("TARGET_INFO_SYSTEM_ENV", "name"):
            return {}
        return {str(n): str(v) for n, v in self.query("SELECT name, value FROM TARGET_INFO_SYSTEM_ENV")}

    def capture_meta(self) -> dict[str, str]:
        """META_DATA_CAPTURE (2023.3+) minus environment variables, which may hold secrets."""
        if not self.has("META_DATA_CAPTURE"):
            return {}
        out = {}
        for name, value in self.query("SELECT name, value FROM META_DATA_CAPTURE"):
            if name and "ENVIRONMENT" not in str(name):
                out.setdefault(str(name), str(value))
        return out

    def launch_text(self) -> str | None:
        """The profiled command line (META_DATA_CAPTURE, 2023.3+) with its NCCL/CUDA environment
        assignments in front, as one shell line; None when the export does not record it.

        Only NCCL_*, TORCH_NCCL_*, CUDA_VISIBLE_DEVICES and similar variables are kept: the
        environment of a real capture holds tokens and keys.
        """
        import re
        import shlex

        if not self.has("META_DATA_CAPTURE"):
            return None
        command, args, env = None, {}, []
        keep = re.compile(r"^(NCCL_|TORCH_NCCL_|CUDA_VISIBLE_DEVICES=|CUDA_DEVICE_MAX_CONNECTIONS=|VLLM_|SGLANG_)")
        for name, value in self.query("SELECT name, value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_0:%'"):
            key = str(name).split(":", 1)[1]
            if key == "COMMAND":
                command = str(value)
            elif key.startswith("ARGUMENT_") and key[9:].isdigit():
                args[int(key[9:])] = str(value)
            elif key == "ENVIRONMENT_VARIABLE" and keep.match(str(value or "")):
                env.append(str(value))
        if not command:
            return None
        return " ".join([*env, shlex.join([command, *(args[i] for i in sorted(args))])])

    def process_names(self) -> dict[int, str]:
        """globalPid -> process name."""
        if not self.has("PROCESSES") or not self.has_column("PROCESSES", "globalPid"):
            return {}
        return {int(g): str(n) for g, n in self.query("SELECT globalPid, name FROM PROCESSES") if g is not None}

    def gpus(self) -> list[Gpu]:
        """TARGET_INFO_GPU rows (every GPU on the host), marked `used` when activity ran on them."""
        gpus: list[Gpu] = []
        t = "TARGET_INFO_GPU"
        if self.has(t):
            sql = (
                f"SELECT {self.col(t, 'id')}, {self.col(t, 'name')}, {self.col(t, 'busLocation')}, "
                f"{self.col(t, 'uuid')}, {self.col(t, 'cuDevice')}, {self.col(t, 'totalMemory')}, "
                f"{self.col(t, 'smCount')} FROM {t}"
            )
            for gid, name, bus, uuid, cu, mem, sms in self.query(sql):
                gpus.append(Gpu(int(gid) if gid is not None else len(gpus), name, bus, uuid,
                                None if cu is None else int(cu), mem, sms))
        used = self.used_devices()
        mapping = self.device_map()
        for pid, dev in used:
            gid = mapping.get((pid, dev))
            for g in gpus:
                if (gid is not None and g.id == gid) or (gid is None and g.cu_device == dev):
                    g.used = True
        return gpus

    def used_devices(self) -> list[tuple[int, int]]:
        """(pid, CUDA ordinal) pairs that ran kernels or copies (one scan per table, cached)."""
        if "used_devices" in self.cache:
            return self.cache["used_devices"]
        seen: set[tuple[int, int]] = set()
        for table in (KERNEL, MEMCPY, MEMSET):
            if self.has(table) and self.has_column(table, "deviceId") and self.has_column(table, "globalPid"):
                for gpid, dev in self.query(f"SELECT DISTINCT globalPid, deviceId FROM {table}"):
                    if dev is not None:
                        seen.add((pid_of(gpid) or 0, int(dev)))
        self.cache["used_devices"] = sorted(seen)
        return self.cache["used_devices"]

    def device_map(self) -> dict[tuple[int, int], int]:
        """(pid, CUDA ordinal) -> TARGET_INFO_GPU.id, from TARGET_INFO_CUDA_DEVICE (2025.1+).

        Older exports lack the table; callers then fall back to TARGET_INFO_GPU.cuDevice, which is
        right only when the process saw every GPU in the default order.
        """
        t = "TARGET_INFO_CUDA_DEVICE"
        if not self.has(t) or not all(self.has_column(t, c) for c in ("gpuId", "cudaId", "pid")):
            return {}
        return {(int(p), int(c)): int(g) for g, c, p in self.query(f"SELECT gpuId, cudaId, pid FROM {t}")
                if None not in (g, c, p)}

    def gpu_label(self, pid: int, dev: int, gpus: list[Gpu] | None = None) -> str:
        """A human name for (process, ordinal): 'GPU 3 (NVIDIA H100 80GB HBM3)'."""
        gpus = self.gpus() if gpus is None else gpus
        gid = self.device_map().get((pid, dev))
        for g in gpus:
            if (gid is not None and g.id == gid) or (gid is None and g.cu_device == dev):
                return f"GPU {g.id} ({g.name})" if g.name else f"GPU {g.id}"
        return f"cuda:{dev}"


def open_capture(path: str | os.PathLike, deadline_s: float | None = None) -> Capture:
    """Open an nsys SQLite export without ever writing to it or beside it (see _readonly_uri).

    Bad input (missing, unreadable, empty, truncated, not SQLite, not an nsys export, locked)
    raises InputError with one line saying which. `deadline_s` bounds the time any query may
    run on this connection (a damaged file must not hang the tool).
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    if p.is_dir():
        raise InputError(f"{p}: is a directory, expected an nsys SQLite export (.sqlite)")
    try:
        size = p.stat().st_size
        with open(p, "rb") as fh:
            head = fh.read(100)
    except PermissionError:
        raise InputError(f"{p}: permission denied (cannot read the file)") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror or exc})") from None
    if size == 0:
        raise InputError(f"{p}: empty file (0 bytes), not an nsys SQLite export")
    if not head.startswith(SQLITE_MAGIC):
        packed = next((f" ({kind}-compressed: run `{tool}` on it first)" for magic, kind, tool in COMPRESSED
                       if head.startswith(magic)), "")
        hint = " (a .nsys-rep/.qdrep report: run `nsys export --type sqlite` on it first)" if p.suffix in (
            ".nsys-rep", ".qdrep") else packed
        raise InputError(f"{p}: not an SQLite file{hint}")
    if len(head) < 100:
        raise InputError(f"{p}: truncated SQLite file ({size} bytes)")
    uri = _readonly_uri(p, head)
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=1.0, check_same_thread=False)
    except SQLITE_ERRORS as exc:
        raise InputError(f"{p}: cannot open as SQLite ({exc})") from None
    conn.text_factory = _decode
    stop_at = time.monotonic() + deadline_s if deadline_s else None
    if stop_at:
        conn.set_progress_handler(lambda: 1 if time.monotonic() > stop_at else 0, 100_000)
    try:
        conn.execute("PRAGMA cell_size_check = ON")
        conn.execute("PRAGMA temp_store = FILE")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        _check_size(p, size, head, conn)
    except SQLITE_ERRORS as exc:
        conn.close()
        raise InputError(f"{p}: {describe_sqlite_error(exc)}") from None
    if "StringIds" not in tables or not any(t in tables for t in NSYS_MARKERS):
        conn.close()
        raise InputError(f"{p}: an SQLite file, but not an Nsight Systems export (no StringIds/TARGET_INFO tables)")
    cap = Capture(path=p, conn=conn, tables=tables, file=p, stop_at=stop_at)
    try:
        cap.meta = _read_meta(cap)
    except SQLITE_ERRORS as exc:
        cap.close()
        raise InputError(f"{p}: {describe_sqlite_error(exc)}") from None
    return cap


def _check_size(p: Path, size: int, head: bytes, conn: sqlite3.Connection) -> None:
    """A file shorter than its header's page count was cut off (a partial copy). The header's own
    count (offset 28, valid when offset 24 equals offset 92) counts the database file only;
    `PRAGMA page_count` would add the pages a write-ahead log holds, so it is used only for a
    rollback-journal file whose header count is not valid (written before SQLite 3.7)."""
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    if head[24:28] != head[92:96]:
        if head[18] == 2:
            return
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    if page_size and pages and size < page_size * pages:
        raise InputError(f"{p}: truncated SQLite file ({size} bytes, header says {page_size * pages})")


WAL_BUSY_S = 2.0  # a write-ahead log touched this recently belongs to a writer still at work
_WAL_COPIES: dict[tuple, Path] = {}  # (dev, inode, size, mtime of file and log) -> private copy


def _readonly_uri(p: Path, head: bytes) -> str:
    """The URI that reads `p` without writing anything beside it.

    A rollback-journal file (header byte 18 = 1) opens `mode=ro`: SQLite then takes a shared lock
    and creates nothing. A WAL-mode file (byte 18 = 2) would get a `-shm` file created or rewritten
    by any connection that uses the log; so without a log (or an empty one) it opens `immutable=1`,
    which reads the file alone. With committed pages still in the log, the file and its log are
    copied to a private temporary folder (removed at exit) and read there, unless the log changed
    in the last WAL_BUSY_S seconds: then a writer is at work and the export is not finished.
    """
    base = p.resolve().as_uri()
    if head[18] != 2:
        return f"{base}?mode=ro"
    wal = Path(f"{p}-wal")
    try:
        wst = wal.stat()
    except OSError:
        wst = None
    if wst is None or wst.st_size == 0:
        return f"{base}?mode=ro&immutable=1"
    if time.time() - wst.st_mtime < WAL_BUSY_S:
        raise InputError(f"{p}: the export is still being written (its write-ahead log {wal.name} changed "
                         f"{time.time() - wst.st_mtime:.1f} s ago); wait for nsys to finish")
    st = p.stat()
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, wst.st_size, wst.st_mtime_ns)
    if key not in _WAL_COPIES:
        _WAL_COPIES[key] = _copy_with_log(p, wal)
    return f"{_WAL_COPIES[key].resolve().as_uri()}?mode=ro"


def _copy_with_log(p: Path, wal: Path) -> Path:
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="diagnose-wal-"))
    atexit.register(shutil.rmtree, folder, True)
    try:
        shutil.copyfile(p, folder / "capture.sqlite")
        shutil.copyfile(wal, folder / "capture.sqlite-wal")
    except OSError as exc:
        raise InputError(f"{p}: cannot copy the export and its write-ahead log to read them "
                         f"({exc.strerror or exc})") from None
    return folder / "capture.sqlite"


# errors reading a file as SQLite: sqlite's own, and a message of its quoting schema bytes that are not UTF-8 (a damaged
# sqlite_master), which the sqlite3 module fails to decode before it can raise the error
SQLITE_ERRORS = (sqlite3.Error, UnicodeDecodeError)


def describe_sqlite_error(exc: Exception) -> str:
    """One short line for an sqlite error (messages may quote multi-line schema text)."""
    if isinstance(exc, UnicodeDecodeError):
        return "damaged SQLite file (its schema holds bytes that are not UTF-8)"
    text = one_line(str(exc))
    if "locked" in text:
        return "the database is locked by another process (wait for nsys to finish, or copy the file)"
    if "interrupted" in text:
        return "reading took too long (damaged file?); gave up"
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return f"damaged SQLite file ({text})"
    if "no such column" in text or "no such table" in text:
        return f"an nsys export with an unexpected layout ({text}); please report the nsys version that wrote it"
    return f"cannot read as SQLite ({text})"


def one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _read_meta(cap: Capture) -> dict[str, str]:
    """EXPORT_META_DATA (<= schema 3.1.7) or META_DATA_EXPORT (>= 3.4.0); none in 2021 exports."""
    for table in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
        if cap.has(table) and cap.has_column(table, "name") and cap.has_column(table, "value"):
            meta: dict[str, str] = {}
            for name, value in cap.query(f"SELECT name, value FROM {table}"):
                if name is not None:
                    meta.setdefault(str(name), "" if value is None else str(value))
            return meta
    return {}


def read_error(path, exc: Exception) -> InputError:
    """Turn an sqlite error met while analysing `path` into the one-line InputError."""
    return InputError(f"{path}: {describe_sqlite_error(exc)}")


