"""scope26 (issue 11): a figure that sums many streams is no reference for one stream.

Every text of tests/data/scope26/cases.toml is verbatim from a public thread (SOURCES.md): claims.reference_rate must
read the larger figure's scope where the words say it (a sentence or a paragraph), ticket.reference_other_scope must
convert it where the count is said, and neither may read a scope where the larger figure is one stream's or both
figures share one (the near-misses, several of them real faults).
"""

from pathlib import Path

import pytest
import tomllib
from conftest import report_json

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules import claims
from rules.engine import evaluate

DATA = Path(__file__).parent / "data"
CASES = tomllib.loads((DATA / "scope26" / "cases.toml").read_text())["case"]
U7D02 = DATA / "tickets" / "u7d02-sglang-single-request-70-tokps-two-requests-140"


def findings(tmp_path, text):
    """The rule's findings on a ticket whose issue.md is the verbatim text alone."""
    (tmp_path / "issue.md").write_text(text + "\n")
    facts = read_bundle([tmp_path])
    return [f for f in evaluate(facts, ticket_predictions(facts)) if f.rule == "ticket.reference_other_scope"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_scope_is_read_only_where_the_words_say_it(case):
    ref = claims.reference_rate(case["text"])
    scope = ref.data.get("scope") if ref else None
    want = case.get("scope")
    if want is None:
        assert scope is None
    else:
        assert scope is not None and (scope["what"], scope["count"]) == (want["what"], want.get("count"))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_rule_answers_only_a_sum_over_streams(tmp_path, case):
    found = findings(tmp_path, case["text"])
    assert [f.category for f in found] == ([case["verdict"]] if "verdict" in case else [])
    for f in found:  # every figure says where it came from
        assert f.evidence and all(e.source.startswith("issue.md:") for e in f.evidence)


@pytest.mark.parametrize("case", [c for c in CASES if c.get("pair")], ids=lambda c: c["name"])
def test_near_misses_reach_the_scope_reading_and_are_refused(case):
    """These near-misses state two figures of one unit and name a scope: they are refused by the reading, not by the
    rate parser."""
    assert len([m for m in claims._AB_RATE.finditer(case["text"])]) == 2
    ref = claims.reference_rate(case["text"])
    assert ref is None or "scope" not in ref.data


@pytest.mark.parametrize("name, expected, count", [("infercom-each-of-100-users", 30.0, 100),
                                                   ("mtplx-200-per-thread-vs-total", 37.82, 11)])
def test_a_converted_sum_is_the_expected_value(tmp_path, name, expected, count):
    """3,000 tok/s over 100 users is 30 per user; ~416 tok/s over ~11 threads is 37.8 per thread."""
    case = next(c for c in CASES if c["name"] == name)
    first = findings(tmp_path, case["text"])[0].evidence[0]
    assert first.expected == expected and f"divided by {count}" in first.detail


def test_the_development_ticket_leads_with_the_converted_sum():
    """sgl-project/sglang#4516 (u7d02): 140 tokens/s at two requests is 70 per stream, the measured 70. The converted
    finding leads; the unconverted 'one request against a batched figure' stands down for it."""
    report = report_json("ticket", U7D02)
    assert report["verdict"]["category"] == "expected_physics"
    assert report["findings"][0]["rule"] == "ticket.reference_other_scope"
    assert report["findings"][0]["evidence"][0]["expected"] == 70.0
    assert "ticket.one_stream_vs_reference" not in [f["rule"] for f in report["findings"]]
