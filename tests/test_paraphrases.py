"""The same facts told in other words give the same verdict (issue 11, paraphrase stress test).

tests/data/paraphrases/<case>-a|b/ are written paraphrases of real cases (tests/data/tickets/<case> or
../shared/tickets/<case>): the reporter's prose reworded the way other reporters write (terse, non-native,
a long story, other units), the attached logs and tables unchanged. `-a` was the working set the claim reading
was fixed against; `-b` was written at the same time and only checked. Each gets the verdict its original gets
today, both read by the path `diagnose ticket` and benchmarks/ticket_accuracy.py take, without answer keys.
"""

import functools
import shutil
import tempfile
from pathlib import Path

import pytest
from conftest import REPO, SHARED

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules.engine import evaluate, ticket_verdict

PARAPHRASES = REPO / "tests" / "data" / "paraphrases"
BUNDLES = sorted(p for p in PARAPHRASES.iterdir() if p.is_dir())

# Paraphrases whose verdict still differs from the original's, and why (strict: a fix makes them pass loudly).
KNOWN = {}


def original(bundle: Path) -> Path | None:
    case = bundle.name[:-2]
    for base in (REPO / "tests" / "data" / "tickets", SHARED / "tickets"):
        if (base / case).is_dir():
            return base / case
    return None


@functools.cache
def verdict(folder: Path) -> str:
    """The verdict category of a copy of the folder without its answer key."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "ticket"
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("expected.toml"))
        facts = read_bundle([copy])
        return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts))).category


def test_every_case_has_both_paraphrases_and_its_original_is_here():
    cases = {p.name[:-2] for p in BUNDLES}
    assert len(cases) >= 44
    for case in cases:
        assert (PARAPHRASES / f"{case}-a").is_dir() and (PARAPHRASES / f"{case}-b").is_dir(), case


@pytest.mark.parametrize("bundle", [pytest.param(b, id=b.name, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[b.name])]
                                                 if b.name in KNOWN else []) for b in BUNDLES])
def test_a_paraphrase_gets_the_verdict_of_its_original(bundle):
    source = original(bundle)
    if source is None:
        pytest.skip("the original case is not here (../shared is not checked out)")
    assert verdict(bundle) == verdict(source)
