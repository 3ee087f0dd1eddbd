"""The harness the written-rewording sets share (tests/data/para37, para37b, para37c, para37d): each folder there is
named after a development case under tests/data/tickets and holds two rewordings of its prose, a.md and b.md (or
a/ and b/ bundle folders), which must keep the original's verdict and every fenced block of it byte for byte."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from conftest import REPO

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules import claims
from rules.engine import evaluate, ticket_verdict

TICKETS = REPO / "tests" / "data" / "tickets"
FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```[^\n]*$", re.M | re.S)


def original(case: str) -> list[Path]:
    """The development case's input as `diagnose ticket` reads it: its issue.md, else the bundle folder."""
    src = TICKETS / case
    return [src / "issue.md"] if (src / "issue.md").exists() else [src]


def verdict(paths: list[Path]) -> str:
    facts = read_bundle(paths)
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts))).category


@functools.cache
def original_verdict(case: str) -> str:
    return verdict(original(case))


def text_of(path: Path) -> str:
    """A pasted issue's text, or a bundle folder's ticket.toml."""
    return (path if path.is_file() else path / "ticket.toml").read_text()


def fences_missing(original_text: str, reworded_text: str) -> list[str]:
    """The fenced blocks of the original that the rewording does not hold byte for byte (first 60 characters)."""
    return [block[:60] for block in FENCE.findall(original_text) if block not in reworded_text]


def fences_kept(case: Path) -> list[str]:
    """The rewordings of `case` (a.md, b.md) that lose a fenced block of the original, with what they lose."""
    text = original(case.name)[0].read_text()
    return [f"{n}: {missing}" for n in ("a", "b") if (missing := fences_missing(text, (case / f"{n}.md").read_text()))]


def issue_facts(tmp_path: Path, text: str):
    """One probe sentence read as a pasted issue under a neutral title."""
    path = tmp_path / "issue.md"
    path.write_text(f"# report\n\n{text}\n")
    return read_bundle([path])


def claim_state(tmp_path: Path, text: str, kind: str) -> str:
    """How a probe states a claim kind: "none", "negated" (every one found), or "said"."""
    found = [c for c in claims.claims(issue_facts(tmp_path, text)) if c.kind == kind]
    return "none" if not found else "negated" if all(c.negated for c in found) else "said"


def symptom_of(tmp_path: Path, text: str) -> str:
    return claims.symptom_quote(issue_facts(tmp_path, text))[2]
