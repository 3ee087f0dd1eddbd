"""A ticket folder (or a list of files) read into facts: each file's kind found from its content.

`read_bundle(paths)` returns `BundleFacts`: the facts plus, per file, the kinds found in it
("attachment1.txt (nccl_log, nccl_tests)"). SQLite files go to the capture reader, the per-rank
exports of one run (names that differ only in the rank number) together, as `diagnose capture`
reads them (cross-rank skew, straggler); text goes to the parsers in `diagnose.artifacts`. It
never reads `expected.toml` (a ticket's answer key, under any name or link) nor hidden files.
A folder is read inside its own boundary: a link that resolves
outside it is listed as skipped, by name, and its content is never read. Every file goes through
the input door (diagnose/inputs.py): a FIFO, device, /proc file or link loop is bad input, never
a hang.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from diagnose.artifacts import FileRead, parse_text
from diagnose.errors import InputError
from diagnose.evidence import Facts, Note, where
from diagnose.inputs import check_path

SQLITE_MAGIC = b"SQLite format 3\x00"
CAPTURE_SUFFIXES = (".sqlite", ".sqlite3", ".nsys-rep", ".qdrep")  # names that say "an nsys capture"
NEVER_READ = {"expected.toml"}
# An answer key under another name: TOML whose first lines give the label and what is acceptable.
ANSWER_KEY = re.compile(rb"(?m)^(?:acceptable|diagnosable)\s*=")
MAX_BYTES = 64 * 1024 * 1024  # a pasted artifact is small; larger text files are read in part


@dataclass
class BundleFacts(Facts):
    """Facts from a ticket bundle, plus what was read from each file."""

    files: list[FileRead] = field(default_factory=list)


def read_file(path: Path, name: str, captures: list | None = None,
              material: list | None = None) -> tuple[list, FileRead]:
    """One file of a bundle: SQLite captures go to the capture reader (or, given `captures`, are
    appended there to be read together with the bundle's other exports), text to the parsers (and, given
    `material`, appended there as (name, text): Facts.material)."""
    check_path(path, "attachment")  # a FIFO or device would block the read below for ever
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
        if captures is None:
            return _read_captures([(path, name)])[0]
        read = FileRead(name)
        captures.append((path, name, read))
        return [], read
    if ANSWER_KEY.search(data[:4096]) and b"label" in data[:4096]:
        return _skipped(name, "a ticket's answer key (expected.toml content), never read")
    if b"\x00" in data[:8192] and not _is_utf16(data):
        read = FileRead(name, problem="binary")
        return [Note(where(name), "unrecognised_file", f"{name}: binary file, not an nsys SQLite export")], read
    text = data.decode("utf-16", errors="replace") if _is_utf16(data) else data.decode("utf-8", errors="replace")
    if material is not None:
        material.append((name, text))
    try:
        records, read = parse_text(text.lstrip("\ufeff"), name)
    except RecursionError:  # a JSON or TOML parser met absurd nesting: no real attachment has it
        raise InputError(f"{path}: nested too deeply to be a real attachment (a hostile or broken file)") from None
    if len(data) == MAX_BYTES and path.stat().st_size > MAX_BYTES:
        records.append(Note(where(name), "truncated_file", f"{name}: only the first {MAX_BYTES >> 20} MiB were read"))
    return records, read


def read_bundle(paths) -> BundleFacts:
    """Facts from a ticket: directories (recursively) and/or files, each file's kind detected."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    files = _bundle_files(paths)
    if not files:
        raise InputError(f"no readable files in {', '.join(str(p) for p in paths) or 'the bundle'}")
    facts = BundleFacts()
    captures: list[tuple[Path, str, FileRead]] = []
    for path, name, skipped in files:
        records, read = _skipped(name, skipped) if skipped else read_file(path, name, captures, facts.material)
        facts.extend(records)
        facts.files.append(read)
    from diagnose.capture.multirank import run_of

    runs: dict[str, list[tuple[Path, str, FileRead]]] = {}
    for found in captures:  # per-rank exports of one run (name_rank0, name_rank1, ...) are read together
        runs.setdefault(run_of(str(found[1])), []).append(found)
    for run in runs.values():
        records, reads = _read_captures([(path, name) for path, name, _ in run])
        facts.extend(records)
        for (_, _, read), got in zip(run, reads):
            read.kinds, read.records, read.problem = got.kinds, got.records, got.problem
    _refuse_named_unreadable(facts, {name: path for path, name, _ in files if path in paths})
    return facts


def _refuse_named_unreadable(facts: BundleFacts, named: dict[str, Path]) -> None:
    """A file the user named on the command line that cannot be read (a damaged export, a TOML
    error, no permission, binary bytes) is bad input, as `diagnose capture` treats it: exit 2 with one
    line. Inside a folder the same file is one attachment among others, listed as unreadable in the answer."""
    for read in facts.files:
        if read.problem == "binary" and read.name in named:
            raise InputError(f"{named[read.name]}: binary file, neither text nor an nsys SQLite export")
        if read.name in named and named[read.name].suffix.lower() in CAPTURE_SUFFIXES and not read.kinds:
            # named as a capture (empty, or text under a capture's name): what `diagnose capture` refuses too
            raise InputError(f"{named[read.name]}: not an nsys SQLite export ({read.problem or 'unrecognised'})")
    for n in facts.of(Note):
        if n.kind == "unreadable_file" and n.source in named:
            problem = n.text.removeprefix(f"{n.source}: ").removeprefix(f"{named[n.source]}: ")
            raise InputError(f"{named[n.source]}: {problem.removeprefix('unreadable: ')}")
    if named and all(read.name in named and read.problem == "empty (0 bytes)" for read in facts.files):
        # nothing given but empty files, each named: nothing to diagnose (one beside others is listed as empty)
        raise InputError(f"{', '.join(str(p) for p in named.values())}: empty file (0 bytes), nothing to read")


def _bundle_files(paths: list[Path]) -> list[tuple[Path, str, str | None]]:
    """(path, display name, reason to skip or None) for every file; display names are relative
    to the folder. Links leaving a folder, links to folders and the answer key are skipped."""
    found: list[tuple[Path, str, str | None]] = []
    for root in paths:
        if not os.path.lexists(root):
            raise InputError(f"{root}: no such file or directory")
        check_path(root, "attachment", folder=root.is_dir())  # a loop, FIFO, device or /proc file
        if not root.is_dir():
            if root.name not in NEVER_READ and Path(os.path.realpath(root)).name not in NEVER_READ:
                found.append((root, root.name, None))
            continue
        inside = os.path.realpath(root)
        for dirpath, dirnames, filenames in os.walk(root):
            links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in links)
            for fname in sorted(filenames + links):
                path = Path(dirpath) / fname
                if fname.startswith(".") or fname in NEVER_READ:
                    continue
                found.append((path, str(path.relative_to(root)), _leaves(path, inside)))
    # a file named twice (or also inside a folder given) is read once: its facts would count twice
    seen: set[str] = set()
    unique = []
    for path, name, skipped in found:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            unique.append((path, name, skipped))
    return unique


def _leaves(path: Path, inside: str) -> str | None:
    """Why a file found in a folder is not read: a link out of the folder, a link to a folder, or
    a link to the answer key; None for a file to read."""
    if not path.is_symlink():
        return None
    if not os.path.lexists(os.path.realpath(path)):  # a loop raises in check_path instead: ELOOP, not ENOENT
        return "a link to a file that does not exist"
    real = os.path.realpath(path)
    if not (real == inside or real.startswith(inside.rstrip(os.sep) + os.sep)):
        return "a link that leads outside the ticket folder, not followed"
    if os.path.isdir(real):
        return "a link to a folder, not followed"
    if Path(real).name in NEVER_READ:
        return "a link to the ticket's answer key (expected.toml), never read"
    return None


def _skipped(name: str, reason: str) -> tuple[list, FileRead]:
    read = FileRead(name, problem=f"skipped: {reason}")
    return [Note(where(name), "skipped_file", f"{name}: skipped, {reason}")], read


def _read_captures(found: list[tuple[Path, str]]) -> tuple[list, list[FileRead]]:
    """nsys SQLite exports through the capture reader (diagnose/capture/), all in one analysis as
    `diagnose capture` does, so that one run's per-rank exports are compared with each other.
    When that fails, each is read alone: the unreadable one is named and the others still count."""
    from diagnose.capture import capture_facts

    try:
        records = capture_facts([str(p) for p, _ in found], names=[n for _, n in found])
    except InputError as exc:
        if len(found) == 1:
            name = found[0][1]
            read = FileRead(name, problem=f"unreadable: {exc}")
            return [Note(where(name), "unreadable_file", f"{name}: {exc}")], [read]
        records, reads = [], []
        for one in found:
            got, (read,) = _read_captures([one])
            records += got
            reads.append(read)
        return records, reads
    reads = []
    for _, name in found:
        read = FileRead(name, kinds=["nsys_sqlite"])
        read.records = sum(1 for r in records if name in str(getattr(r, "source", "")))
        reads.append(read)
    return records, reads


def _is_utf16(data: bytes) -> bool:
    """PowerShell redirection writes UTF-16 with a byte-order mark."""
    return data[:2] in (b"\xff\xfe", b"\xfe\xff")

