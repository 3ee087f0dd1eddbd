"""The results store: every run's report in one SQLite file (sqlite-utils), for history,
compare and fleet.

One table, `runs`: the columns people filter on (kind, host, time, GPU model, driver and NCCL
versions, verdict) plus the whole report JSON, so nothing is lost and old reports stay readable.

Many nodes may write to one database at once (a fleet sweep writing to a shared file): the
database runs in WAL mode, each writer waits on a busy timeout, and a write that still finds
the database locked is retried with backoff, so no run is lost.
"""

from __future__ import annotations

import json
import os
import random
import re
import socket
import sqlite3
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from diagnose.errors import InputError

TABLE = "runs"
# How long a writer keeps trying before it gives up. SQLite's own busy handler sleeps up to
# 100 ms between tries, which leaves the lock idle under contention; it gets a short first wait
# and `_retry` polls after it with short random sleeps instead.
BUSY_TIMEOUT_MS = 20
WAIT_SECONDS = 60.0
# A reader (history, compare, fleet) waits less: a writer holds the lock for milliseconds, so a
# lock held this long is another program's (a `sqlite3` shell with an open transaction).
READ_WAIT_SECONDS = 10.0
DAMAGED = ("malformed", "corrupt")  # SQLite's words for a damaged file (SQLITE_CORRUPT)
# Derived reports are built from stored runs; storing them again would only add noise.
NOT_STORED = ("compare", "fleet")

COLUMNS = {
    "id": int,
    "time": str,  # ISO 8601 UTC, seconds
    "kind": str,
    "host": str,
    "gpu_model": str,
    "gpu_count": int,
    "gpu_uuids": str,  # JSON list
    "driver_version": str,
    "cuda_version": str,
    "nccl_version": str,
    "tool_version": str,
    "verdict": str,
    "confidence": float,
    "worst_severity": str,
    "findings": int,
    "inputs": str,  # JSON
    "report": str,  # JSON, the whole report (schema diagnose.report/1)
}


def default_path() -> Path:
    """$DIAGNOSE_DB, else $XDG_DATA_HOME/diagnose/runs.db (~/.local/share/diagnose/runs.db)."""
    if os.environ.get("DIAGNOSE_DB"):
        return Path(os.environ["DIAGNOSE_DB"]).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "diagnose" / "runs.db"


def open_db(path: str | os.PathLike | None = None, create: bool = True):
    """The store at `path` (default: `default_path()`), in WAL mode with a busy timeout; with
    `create=False` an existing store, opened read-only."""
    import sqlite_utils

    from diagnose.inputs import check_path

    path = Path(path).expanduser() if path else default_path()
    if not create and not path.exists():
        raise InputError(f"no results database at {path} (save runs with --save or set $DIAGNOSE_DB)")
    if path.is_dir():
        raise InputError(f"{path} is a directory; the results database is a file (e.g. runs.db)")
    if path.exists() or path.is_symlink():
        check_path(path, "database")  # a FIFO, device or dangling link: refused before SQLite opens it
        _check_is_store(path, empty_ok=create, before_writing=create)
    try:
        if not create:  # history, compare, fleet only read: the file stays byte for byte
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                   isolation_level=None)
            return sqlite_utils.Database(conn)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit: each save opens its own BEGIN IMMEDIATE transaction (see `save`).
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # With WAL, NORMAL keeps the database consistent through crashes and skips an fsync per run.
        conn.execute("PRAGMA synchronous=NORMAL")
        db = sqlite_utils.Database(conn)
        _retry(lambda: _prepare(db), path)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"cannot open results database {path}: {exc}") from None
    except OSError as exc:
        raise InputError(f"cannot open results database {path}: {exc.strerror or exc}") from None
    return db


def _check_is_store(path: Path, empty_ok: bool, before_writing: bool = False) -> None:
    """Refuse, without writing a byte, a file that is not a results database: an nsys capture
    or any other SQLite file handed to --db would otherwise get the runs table and WAL mode.
    A database with no tables at all (a 0-byte file) is a store only when about to save.
    SQLite's own integrity check must pass before reading or writing: a damaged (bit-flipped)
    store is named and left alone, by every command alike (history listing the rows it can still
    reach while compare and fleet refuse would be two verdicts on one file)."""
    what = f"{path} is not a diagnose results database"
    untouched = "; nothing was written to it" if before_writing else ""
    damaged = None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            tables = {r[0] for r in _retry(
                lambda: conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall(),
                path, READ_WAIT_SECONDS)}
            columns = {r[1] for r in conn.execute(f"PRAGMA table_info({TABLE})")} if TABLE in tables else set()
            if tables:
                problems = [r[0] for r in _retry(lambda: conn.execute("PRAGMA quick_check(3)").fetchall(), path)]
                damaged = None if problems == ["ok"] else "; ".join(problems)
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if any(word in str(exc).lower() for word in DAMAGED):
            raise InputError(f"{path}: the results database is damaged ({exc}){untouched}") from None
        if "not a database" in str(exc) or "file is encrypted" in str(exc):
            raise InputError(f"{what} ({exc})") from None
        raise InputError(f"{path}: cannot open the results database ({exc})") from None  # e.g. a read-only folder
    if damaged:
        raise InputError(f"{path}: the results database is damaged (integrity check: {damaged[:200]}){untouched}")
    if TABLE not in tables:
        if tables or not empty_ok:
            held = (f"its tables: {', '.join(sorted(tables)[:5])}{', ...' if len(tables) > 5 else ''}" if tables
                    else "it is empty")
            raise InputError(f"{what} (no {TABLE} table; {held})")
        return
    lacking = [c for c in COLUMNS if c not in columns]
    if lacking:
        raise InputError(f"{what} (its {TABLE} table lacks {', '.join(lacking)})")


def _prepare(db) -> None:
    if db.conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        db.conn.execute("PRAGMA journal_mode=wal")
    if TABLE not in db.table_names():
        db[TABLE].create(COLUMNS, pk="id", if_not_exists=True)
        db.conn.execute(f"CREATE INDEX IF NOT EXISTS idx_runs_kind_time ON {TABLE}(kind, time)")
        db.conn.execute(f"CREATE INDEX IF NOT EXISTS idx_runs_host ON {TABLE}(host)")


def _retry(action, path, wait: float = WAIT_SECONDS):
    """Run `action`; while the database is locked or busy, sleep a few ms (jittered, so the
    writers do not retry in step) and try again, for up to `wait` seconds; then say it was
    locked (bad input, exit 2), never that it is not a results database."""
    deadline = time.monotonic() + wait
    delay = 0.001
    while True:
        try:
            return action()
        except sqlite3.DatabaseError as exc:
            message = str(exc).lower()
            if any(word in message for word in DAMAGED):  # found only when a query reaches the bad page
                raise InputError(f"{path}: the results database is damaged ({exc})") from None
            if not isinstance(exc, sqlite3.OperationalError) or ("locked" not in message and "busy" not in message):
                raise
            if time.monotonic() > deadline:
                raise InputError(f"{path}: the results database stayed locked by another program for {wait:g} s "
                                 "(a long transaction?); try again when it is done") from None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 1.5, 0.02)


# --------------------------------------------------------------------------- what a run is


def row_for(report, when: datetime | None = None) -> dict:
    """The indexed columns of a report, read from its facts."""
    if report.kind == "capture":  # the report, not its full nsys-stats summaries (issue 17)
        from diagnose.capture_report import for_storage

        report = for_storage(report)
    facts = report.facts or {}
    gpus = facts.get("gpu_fact") or []
    host_facts = {h.get("name"): h.get("value") for h in facts.get("host_fact") or [] if isinstance(h, dict)}
    nccl = [n.get("version") for n in facts.get("nccl_version") or [] if n.get("version")]
    models = [g.get("name") or g.get("catalog_key") for g in gpus if g.get("name") or g.get("catalog_key")]
    when = when or datetime.now(timezone.utc)
    v = report.verdict
    whole = report.to_dict()
    return {
        "time": when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kind": report.kind,
        "host": _host(report, host_facts),
        "gpu_model": max(set(models), key=models.count) if models else None,
        "gpu_count": len({g.get("uuid") or g.get("bus_id") or g.get("index") for g in gpus}) or None,
        "gpu_uuids": json.dumps(sorted({g["uuid"] for g in gpus if g.get("uuid")})),
        "driver_version": _str(host_facts.get("driver_version")),
        "cuda_version": _str(host_facts.get("cuda_driver_version")),
        "nccl_version": nccl[0] if nccl else None,
        "tool_version": report.tool_version,
        "verdict": v.category if v else None,
        "confidence": v.confidence if v else None,
        "worst_severity": report.worst_severity(),
        "findings": len(report.findings),
        "inputs": json.dumps(whole["inputs"], sort_keys=True),
        "report": json.dumps(whole),
    }


def _host(report, host_facts: dict) -> str | None:
    """The machine the facts describe: its hostname fact (or the host a capture names), else
    the recording a replay read; a live node run is this machine; otherwise unknown."""
    if host_facts.get("hostname"):
        return str(host_facts["hostname"])
    for info in (report.facts or {}).get("capture_info") or []:
        if isinstance(info, dict) and info.get("host"):
            return str(info["host"])
    if report.inputs.get("host"):
        return str(report.inputs["host"])
    if report.inputs.get("replay"):
        return f"replay:{Path(str(report.inputs['replay'])).stem}"
    if report.kind == "node":
        return socket.gethostname()
    return None


def _str(value):
    return None if value is None else str(value)


def save(report, path: str | os.PathLike | None = None, db=None) -> int:
    """Store one report; returns its run id."""
    if report.kind in NOT_STORED:
        raise InputError(f"{report.kind} reports are derived from stored runs and are not stored")
    db = db or open_db(path)
    row = row_for(report)
    sql = f"INSERT INTO {TABLE} ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})"

    def insert():
        # BEGIN IMMEDIATE takes the write lock up front, so a busy database makes this wait in
        # the busy handler instead of failing half-way when a read would upgrade to a write.
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            run_id = db.conn.execute(sql, list(row.values())).lastrowid
            db.conn.execute("COMMIT")
        except BaseException:
            db.conn.execute("ROLLBACK")
            raise
        return run_id

    try:
        return int(_retry(insert, _name(db)))
    except sqlite3.OperationalError as exc:  # read-only file, full disk: the store's fault, not a probe's (exit 3)
        raise InputError(f"{_name(db)}: could not save the run to the results database: {exc}") from None


# --------------------------------------------------------------------------- reading


# Runs are stored with their UTC time; no run predates the tool, and 100 years back covers any
# store. Bounding the span keeps '99999999999d' a clear error instead of an overflow.
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
MAX_SPAN = timedelta(days=36525)


def parse_since(text: str | None) -> str | None:
    """'7d', '12h', '30m' or an ISO date/time -> ISO UTC string to compare with `time`."""
    if not text:
        return None
    text = text.strip()
    seconds = {"m": 60, "h": 3600, "d": 86400, "w": 604800}
    amount = re.fullmatch(r"([0-9]+)([mhdwMHDW])", text)  # ASCII digits only: '²d' is no number
    if amount:
        span = int(amount.group(1)) * seconds[amount.group(2).lower()]
        if span > MAX_SPAN.total_seconds():
            raise InputError(f"--since: {text} reaches back more than 100 years; give a shorter span or a date")
        when = datetime.now(timezone.utc) - timedelta(seconds=span)
    else:
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
            if when.tzinfo is None:
                when = when.replace(tzinfo=timezone.utc)
            when = when.astimezone(timezone.utc)
        except (ValueError, OverflowError):
            raise InputError(f"--since: expected e.g. 7d, 12h or 2026-01-31[T12:00] (UTC unless it says), "
                             f"got {text!r}") from None
        if when < EARLIEST:
            raise InputError(f"--since: {text} is before 1970; no run is that old")
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def runs(db, kind=None, host=None, since=None, limit: int | None = 50, with_report=False) -> list[dict]:
    """Stored runs, newest first, filtered by kind, host (exact or SQL LIKE with %) and time."""
    where, params = [], {}
    if kind:
        where.append("kind = :kind")
        params["kind"] = kind
    if host:
        where.append("host LIKE :host" if "%" in host else "host = :host")
        params["host"] = host
    if since:
        where.append("time >= :since")
        params["since"] = parse_since(since)
    columns = [c for c in COLUMNS if with_report or c != "report"]
    rows = _retry(lambda: list(db[TABLE].rows_where(
        " AND ".join(where) or None,
        params,
        select=", ".join(columns),
        order_by="time DESC, id DESC",
        limit=limit,
    )), _name(db), READ_WAIT_SECONDS)
    return [_typed(db, row) for row in rows]


def _typed(db, row: dict) -> dict:
    """A stored row with every column of the type COLUMNS gives it (SQLite stores any type in
    any column): a damaged or hand-edited row is bad input naming the run and the column."""
    import math

    for name, value in row.items():
        kind = COLUMNS[name]
        ok = value is None or (isinstance(value, kind) if kind is not float else isinstance(value, (int, float)))
        if ok and kind is float and value is not None and not math.isfinite(value):
            ok = False
        if not ok:
            raise InputError(f"{_name(db)}: run {row.get('id')}: column '{name}' holds {type(value).__name__} "
                             f"{str(value)[:40]!r}, not {kind.__name__}; the row is damaged")
    return row


def json_column(db, row: dict, name: str, default):
    """A JSON column of a stored row, decoded; bad JSON is bad input naming the run and column."""
    from diagnose.inputs import parse_json

    text = row.get(name)
    if text is None:
        return default
    return parse_json(text, f"{_name(db)}: run {row.get('id')}: column '{name}'")


def load(db, run_id: int):
    """The Report stored as run `run_id`."""
    from diagnose.findings import Report

    rows = _retry(lambda: list(db[TABLE].rows_where("id = ?", [int(run_id)], select="id, report")), _name(db),
                  READ_WAIT_SECONDS)
    if not rows:
        raise InputError(f"no run {run_id} in the results database {_name(db)}")
    data = json_column(db, _typed(db, rows[0]), "report", None)
    try:
        return Report.from_dict(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{_name(db)}: run {run_id}: the stored report is not readable ({exc})") from None


def _name(db) -> str:
    """The file behind an open store, for messages."""
    return db.conn.execute("PRAGMA database_list").fetchone()[2]


def count(db) -> int:
    return db[TABLE].count
