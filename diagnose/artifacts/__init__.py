"""Ticket artifacts: detect each file's kind from its content and turn it into facts.

File names in a ticket are free, so every parser module here says how much a text looks like
its kind (`detect(text) -> 0..1`, cheap) and turns it into `diagnose.evidence` records
(`parse(text, name) -> list`, each record's `source` = `where(name, line)`). One file may hold
several outputs (a launch line, the NCCL log, the nccl-tests table): every parser whose score
reaches THRESHOLD reads it and ignores the lines that are not its own.

`read_bundle(paths)` reads a ticket folder or a list of files and returns `BundleFacts`: the
facts plus, per file, the kinds found in it ("attachment1.txt (nccl_log, nccl_tests)").
It never reads `expected.toml` (a ticket's answer key) nor hidden files.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from diagnose.errors import InputError, strict
from diagnose.evidence import Facts, Note, where

# Parser modules under diagnose/artifacts/, tried on every text file, in this order. Each has
# KIND, detect(text) -> 0..1 and parse(text, name) -> records; EXCLUSIVE = True on a
# structured document's parser means nothing else reads a file it recognises.
PARSER_MODULES = (
    "ticket_toml",
    "issue_md",
    "nccl_tests",
    "nccl_log",
    "nccl_topo",
    "ib_status",
    "serving_bench",
    "launch",
    "node_report",
    "collect_env",
    "topo",
    "smi_query",
    "smi_table",
    "smi_csv",
    "nvlink",
    "lspci",
    "p2p_test",
    "dmesg",
    "nvtop",
)
THRESHOLD = 0.5
SQLITE_MAGIC = b"SQLite format 3\x00"
NEVER_READ = {"expected.toml"}
MAX_BYTES = 64 * 1024 * 1024  # a pasted artifact is small; larger text files are read in part


@dataclass
class FileRead:
    """What the bundle reader made of one file."""

    name: str
    kinds: list[str] = field(default_factory=list)
    records: int = 0
    problem: str | None = None  # "unrecognised", "unreadable: ...", "binary"

    def label(self) -> str:
        return f"{self.name} ({', '.join(self.kinds) if self.kinds else self.problem or 'nothing'})"


@dataclass
class BundleFacts(Facts):
    """Facts from a ticket bundle, plus what was read from each file."""

    files: list[FileRead] = field(default_factory=list)


def parsers() -> list:
    """The parser modules, in PARSER_MODULES order."""
    return [importlib.import_module(f"{__name__}.{name}") for name in PARSER_MODULES]


def detect(text: str, skip: tuple[str, ...] = ()) -> list[tuple[str, float]]:
    """(kind, score) of every parser that recognises `text`, best first (kinds in `skip` not tried)."""
    scores = []
    for module in parsers():
        if module.KIND in skip:
            continue
        try:
            value = float(module.detect(text))
        except Exception:  # noqa: BLE001 - a detector must never break the bundle
            if strict():
                raise
            value = 0.0
        if value >= THRESHOLD:
            scores.append((module.KIND, value))
    return sorted(scores, key=lambda kv: -kv[1])


def parse_text(text: str, name: str, skip: tuple[str, ...] = ()) -> tuple[list, FileRead]:
    """Run every recognising parser over one file's text. `skip`: kinds not to try (a pasted
    issue hands its code blocks back here, and must not read them as issues again)."""
    read = FileRead(name)
    records: list = []
    by_kind = {m.KIND: m for m in parsers()}
    detected = detect(text, skip)
    # A structured document (ticket.toml, a diagnose report) is read by its own parser only:
    # the prose in a ticket's description must not pass for a log line.
    exclusive = [(k, v) for k, v in detected if v >= 0.9 and getattr(by_kind[k], "EXCLUSIVE", False)]
    for kind, _score in exclusive[:1] or detected:
        try:
            found = list(by_kind[kind].parse(text, name) or [])
        except Exception as exc:  # noqa: BLE001 - garbage in must not crash a ticket
            if strict():
                raise
            records.append(Note(where(name), "parser_error", f"{kind} parser failed: {type(exc).__name__}: {exc}"))
            continue
        if found:
            read.kinds.append(kind)
            # a pasted issue reports the kinds of the outputs pasted inside it
            nested = [r for r in found if isinstance(r, Note) and r.kind == "embedded_kinds"]
            read.kinds.extend(k for n in nested for k in n.text.split(", ") if k not in read.kinds)
            records.extend(r for r in found if r not in nested)
    if not read.kinds:
        read.problem = "unrecognised"
        records.append(Note(where(name), "unrecognised_file", f"{name}: no parser recognised this file"))
    read.records = len(records)
    return records, read


def read_file(path: Path, name: str) -> tuple[list, FileRead]:
    """One file of a bundle: SQLite captures go to the capture reader, text to the parsers."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES)
    except OSError as exc:
        read = FileRead(name, problem=f"unreadable: {exc.strerror or exc}")
        return [Note(where(name), "unreadable_file", f"{name}: {read.problem}")], read
    if not data:
        read = FileRead(name, problem="empty (0 bytes)")
        return [Note(where(name), "unrecognised_file", f"{name}: empty file (0 bytes)")], read
    if data.startswith(SQLITE_MAGIC):
        return _read_capture(path, name)
    if b"\x00" in data[:8192] and not _is_utf16(data):
        read = FileRead(name, problem="binary")
        return [Note(where(name), "unrecognised_file", f"{name}: binary file, not an nsys SQLite export")], read
    text = data.decode("utf-16", errors="replace") if _is_utf16(data) else data.decode("utf-8", errors="replace")
    records, read = parse_text(text.lstrip("\ufeff"), name)
    if len(data) == MAX_BYTES and path.stat().st_size > MAX_BYTES:
        records.append(Note(where(name), "truncated_file", f"{name}: only the first {MAX_BYTES >> 20} MiB were read"))
    return records, read


def read_bundle(paths) -> BundleFacts:
    """Facts from a ticket: directories (recursively) and/or files, each file's kind detected."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = _bundle_files([Path(p) for p in paths])
    if not files:
        raise InputError(f"no readable files in {', '.join(str(p) for p in paths) or 'the bundle'}")
    facts = BundleFacts()
    for path, name in files:
        records, read = read_file(path, name)
        facts.extend(records)
        facts.files.append(read)
    return facts


def _bundle_files(paths: list[Path]) -> list[tuple[Path, str]]:
    """(path, display name) for every file to read; display names are relative to the folder."""
    found: list[tuple[Path, str]] = []
    for root in paths:
        if not root.exists():
            raise InputError(f"{root}: no such file or directory")
        if root.is_file():
            if root.name not in NEVER_READ:
                found.append((root, root.name))
            continue
        if not root.is_dir():
            raise InputError(f"{root}: not a file or directory")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for fname in sorted(filenames):
                if fname.startswith(".") or fname in NEVER_READ:
                    continue
                path = Path(dirpath) / fname
                found.append((path, str(path.relative_to(root))))
    # a file named twice (or also inside a folder given) is read once: its facts would count twice
    seen: set[Path] = set()
    unique = []
    for path, name in found:
        if path.resolve() not in seen:
            seen.add(path.resolve())
            unique.append((path, name))
    return unique


def _read_capture(path: Path, name: str) -> tuple[list, FileRead]:
    """An nsys SQLite export, through the capture reader (diagnose/capture/)."""
    from diagnose.capture import capture_facts

    read = FileRead(name)
    try:
        records = list(capture_facts(str(path), name=name))
    except InputError as exc:
        read.problem = f"unreadable: {exc}"
        return [Note(where(name), "unreadable_file", f"{name}: {exc}")], read
    read.kinds.append("nsys_sqlite")
    read.records = len(records)
    return records, read


def _is_utf16(data: bytes) -> bool:
    """PowerShell redirection writes UTF-16 with a byte-order mark."""
    return data[:2] in (b"\xff\xfe", b"\xfe\xff")

