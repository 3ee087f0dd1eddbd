"""Precision review of the broad readings session 27 merged from ut27e and ut27f (issue 11, review32), each tried on
real sentences and pastes of threads none of them was written from (tests/data/review32/<reading>.toml, URLs in
SOURCES.md): positives it must read and near-misses that look alike but must not be read that way. `xfail`: why a
case still fails (strict).

- bare_figure: ut27f's issue_md.BARE_FIGURE, a number joined to a word by - / _ is no bare busbw figure;
- profiler_hang: ut27f's claims.profiler_hang (a collective hanging under Nsight Compute);
- plain_slow: ut27e's _about_performance, a bare "slow" with nothing measured is no performance figure;
- plain_slow_answer: ut27e's ticket_questions._plain_slow, the "Called slow with no figure" answer;
- column_label: ut27e's issue_md._column_label, a Markdown table header labelling its cells."""

from pathlib import Path

import pytest
import tomllib
from conftest import said, threads_reused, toml_cases

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement
from rules import claims
from rules.ticket_questions import _plain_slow
from rules.ticket_rules import _about_performance

DATA = Path(__file__).parent / "data" / "review32"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "bare_figure"))
def test_a_bare_figure_beside_a_collective_benchmark(case):
    prose = list(enumerate(case["text"].split("\n"), 1))
    assert [m.value for m in issue_md._bandwidths(prose, "issue.md")] == case["busbw"]


@pytest.mark.parametrize("case", toml_cases(DATA, "profiler_hang"))
def test_a_hang_under_nsight_compute_and_its_look_alikes(case):
    read = any(not c.guess and not c.negated for c in claims.find(said(case["text"]), "profiler_hang"))
    assert read == case["read"]


@pytest.mark.parametrize("case", toml_cases(DATA, "plain_slow"))
def test_a_plain_slow_is_no_performance_figure(case):
    assert _about_performance(said(case["text"])) == case["about_performance"]


@pytest.mark.parametrize("case", toml_cases(DATA, "plain_slow_answer"))
def test_the_called_slow_answer_needs_no_figure_at_all(case):
    facts = said(case["text"])
    complaint = claims.complaint(facts)
    assert complaint is not None
    assert _plain_slow(facts, complaint) == case["plain"]


@pytest.mark.parametrize("case", toml_cases(DATA, "column_label"))
def test_a_tables_column_header_labels_its_rates(case):
    read = [m.value for m in issue_md.parse(case["text"], "issue.md")
            if isinstance(m, Measurement) and m.metric == "decode_tok_s"]
    assert read == case["decode"]


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    sources = (DATA / "SOURCES.md").read_text()
    near = {"bare_figure": lambda c: not c["busbw"], "profiler_hang": lambda c: not c["read"],
            "plain_slow": lambda c: c["about_performance"], "plain_slow_answer": lambda c: not c["plain"],
            "column_label": lambda c: False}
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        assert any(near[name](c) for c in family["case"]) or name in LEFT, name


# Readings for which this review found no untaken real near-miss (SOURCES.md says which side is left).
LEFT = {"column_label"}


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (ut27e, ut27f)."""
    assert threads_reused(FAMILIES, ("ut27e", "ut27f")) == []
