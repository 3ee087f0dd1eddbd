"""Ticket artifacts: the text parsers, and the registry that finds which ones read a text.

File names in a ticket are free, so every parser module here says how much a text looks like
its kind (`detect(text) -> 0..1`, cheap) and turns it into `diagnose.evidence` records
(`parse(text, name) -> list`, each record's `source` = `where(name, line)`). One file may hold
several outputs (a launch line, the NCCL log, the nccl-tests table): every parser whose score
reaches THRESHOLD reads it and ignores the lines that are not its own. Reading a ticket folder
(which files, which boundary, captures vs text) is `diagnose.bundle`'s job.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass, field

from diagnose.errors import strict
from diagnose.evidence import Note, where

# Every module of this package with KIND, detect(text) -> 0..1 and parse(text, name) -> records
# is a parser: adding one is adding a module (an optional detect_named(text, name) also judges by the
# file's name). EXCLUSIVE = True on a structured document's parser means nothing else reads a file it
# recognises.
THRESHOLD = 0.5


@dataclass
class FileRead:
    """What the bundle reader made of one file."""

    name: str
    kinds: list[str] = field(default_factory=list)
    records: int = 0
    problem: str | None = None  # "unrecognised", "unreadable: ...", "binary"

    def label(self) -> str:
        return f"{self.name} ({', '.join(self.kinds) if self.kinds else self.problem or 'nothing'})"


@functools.cache
def parsers() -> tuple:
    """The parser modules of this package, by name (the order ties between equal scores keep)."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if all(hasattr(module, attr) for attr in ("KIND", "detect", "parse")):
            found.append(module)
    return tuple(found)


def detect(text: str, skip: tuple[str, ...] = (), name: str = "") -> list[tuple[str, float]]:
    """(kind, score) of every parser that recognises `text`, best first (kinds in `skip` not tried). A parser
    may also judge by the file's `name` (detect_named: a file named issue.md holding sentences is prose)."""
    scores = []
    for module in parsers():
        if module.KIND in skip:
            continue
        try:
            value = float(module.detect(text))
            if name and hasattr(module, "detect_named"):
                value = max(value, float(module.detect_named(text, name)))
        except RecursionError:  # absurd nesting: bad input, see read_file
            raise
        except Exception:  # noqa: BLE001 - a detector must never break the bundle
            if strict():
                raise
            value = 0.0
        if value >= THRESHOLD:
            scores.append((module.KIND, value))
    return sorted(scores, key=lambda kv: -kv[1])


def parse_text(text: str, name: str, skip: tuple[str, ...] = (), first_line: int = 1) -> tuple[list, FileRead]:
    """Run every recognising parser over one file's text. `skip`: kinds not to try (a pasted
    issue hands its code blocks back here, and must not read them as issues again). `first_line`: the line of the
    file the text starts at (a block of a pasted issue): the records' sources count from there."""
    if first_line > 1:
        records, read = parse_text(text, name, skip)
        return [moved(r, name, first_line - 1) for r in records], read
    read = FileRead(name)
    records: list = []
    by_kind = {m.KIND: m for m in parsers()}
    detected = detect(text, skip, name)
    # A structured document (ticket.toml, a diagnose report) is read by its own parser only:
    # the prose in a ticket's description must not pass for a log line.
    exclusive = [(k, v) for k, v in detected if v >= 0.9 and getattr(by_kind[k], "EXCLUSIVE", False)]
    for kind, _score in exclusive[:1] or detected:
        try:
            found = list(by_kind[kind].parse(text, name) or [])
        except RecursionError:
            raise
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


def moved(record, name: str, lines: int):
    """`record` with its source `where(name, n)` moved down `lines` lines (a text read alone that starts further down
    its file); a source with no line (the whole file) stays. Records keep their place in a file only there.
    (A block of a pasted issue was read after as many blank lines as the issue has above it, to keep its line numbers:
    every parser looped over them, for each block, so a long paste took time in the square of its length.)"""
    source = getattr(record, "source", None) or ""
    line = source[len(name) + 1:] if source.startswith(f"{name}:") else ""
    if line.isascii() and line.isdigit():
        record.source = where(name, int(line) + lines)
    return record
