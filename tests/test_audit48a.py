"""Audit of the `insufficient_data` answers (pass audit48a, issue 11): the kept pastes main answers insufficient_data
in the folders of tests/data before "r", each read beside its thread's settled answer (tests/data/audit48a/AUDIT.md).

What the audit found, kept here as behaviour on the real pastes:

- No gap hides an answer: in every audited paste the tool abstains because no reading favours a category, never
  because a gap (workload.evidence_coverage, ticket.figure_unjudged, nccl.gdr, ...) outranks one. With every
  insufficient_data finding taken away the verdict is the same.
- The answerable pastes each miss a different reading (none recurs in three threads), so nothing was mended; the
  groupings that do reach three threads ("only one GPU is used", a GPU idle beside a busy CPU, "X not working" of a
  speed feature) were settled three different ways, and there abstaining is right.
"""

import shutil
from pathlib import Path

import pytest
from conftest import REPO

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules.engine import evaluate, ticket_verdict

DATA = REPO / "tests" / "data"
AUDIT = DATA / "audit48a" / "AUDIT.md"


def _audited() -> list[str]:
    """The pastes of AUDIT.md's table (its first column), as paths under tests/data."""
    rows = [line.split("|")[1].strip() for line in AUDIT.read_text().splitlines()
            if line.startswith("| ") and line.count("|") >= 6 and not line.startswith("| paste")]
    return [f"{row}.md" for row in rows if not set(row) <= {"-"}]


def _judged(tmp_path: Path, rel: str):
    """(verdict, findings) of `diagnose ticket` on the kept paste tests/data/<rel>, copied alone as issue.md."""
    folder = tmp_path / Path(rel).stem
    folder.mkdir()
    shutil.copy(DATA / rel, folder / "issue.md")
    facts = read_bundle([folder])
    findings = evaluate(facts, ticket_predictions(facts))
    return facts, findings, ticket_verdict(facts, findings)


def test_the_table_lists_real_pastes():
    rels = _audited()
    assert len(rels) >= 50
    assert all((DATA / rel).is_file() for rel in rels)
    assert not any(rel.startswith(("tickets/", "paraphrases/", "para3")) for rel in rels)


@pytest.mark.parametrize("rel", _audited())
def test_no_gap_hides_an_answer(tmp_path, rel):
    """Where the tool abstains on an audited paste, taking every gap away leaves it abstaining: the abstention is a
    reading that is missing (the audit's last column), never a gap standing over a cause the paste gives."""
    facts, findings, verdict = _judged(tmp_path, rel)
    if verdict.category != "insufficient_data":
        return  # answered since the audit: nothing is hidden
    without_gaps = ticket_verdict(facts, [f for f in findings if f.category != "insufficient_data"])
    assert without_gaps.category == "insufficient_data", without_gaps.summary


@pytest.mark.parametrize("rel,why", [
    ("extract35b/dspy1052.md", "no fault: the time tracked one long completion in a small set, seen only with more "
                               "samples"),
    ("extract35b/ollama9772.md", "'Parallel Requests not working': no outcome kept"),
    ("extract35b/tabbyapi210.md", "'Batch not working, all requests sequential?': no outcome kept"),
    ("normal_questions/lightllm20.md", "866.94 s against a claimed 188.85 s: the thread settled nothing"),
    ("normal_questions/mii323.md", "a fault fixed in MII main; the post names no model"),
    ("normal_questions/tp117.md", "12 s on TP2 against 5 s on one A6000: the thread settled nothing"),
    ("normal_questions/wc73.md", "Qwen3.6-27B FP8 does not fit 2x 11 GB: the run's quantisation is not said"),
])
def test_right_abstentions_stay_abstentions(tmp_path, rel, why):
    """Pastes that do not decide a cause (AUDIT.md: right): an answer here would be a guess."""
    assert _judged(tmp_path, rel)[2].category == "insufficient_data", why
