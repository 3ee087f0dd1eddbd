"""scope25 (issue 11): a reference figure of another scope is no regression.

A rate set against a published figure that sums many streams or several GPUs (claims.reference_scope) is read as
such, converted where the count is said (ticket.reference_other_scope), and never read where the reference had the
measurement's scope: the near-misses of tests/data/scope25/cases.toml (sources in SOURCES.md).
"""

from pathlib import Path

import pytest
import tomllib

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate

CASES = tomllib.loads((Path(__file__).parent / "data" / "scope25" / "cases.toml").read_text())["case"]


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def scope_of(text: str):
    found = [c for c in claims.find(said(text), "reference_rate") if not c.guess]
    return found[0].data.get("scope") if found else None


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_reference_scope_is_read_only_where_said(case):
    scope = scope_of(case["text"])
    want = case.get("scope")
    if want is None:
        assert scope is None
    else:
        assert scope is not None and scope["what"] == want["what"] and scope["count"] == want.get("count")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_rule_answers_only_a_reference_of_another_scope(tmp_path, case):
    (tmp_path / "issue.md").write_text("# Slower than the published figure\n\n" + case["text"] + "\n")
    facts = read_bundle([tmp_path])
    found = [f for f in evaluate(facts, ticket_predictions(facts)) if f.rule == "ticket.reference_other_scope"]
    if "verdict" not in case:
        assert not found
        return
    assert [f.category for f in found] == [case["verdict"]]
    assert found[0].evidence and found[0].evidence[0].source  # every figure says where it came from


def test_a_converted_reference_says_its_division(tmp_path):
    """298.2 tok/s over 4 concurrent requests is 74.55 per stream: the evidence gives it as the expected value."""
    (tmp_path / "issue.md").write_text(CASES[0]["text"] + "\n")
    facts = read_bundle([tmp_path])
    found = [f for f in evaluate(facts, ticket_predictions(facts)) if f.rule == "ticket.reference_other_scope"]
    first = found[0].evidence[0]
    assert (first.measured, first.expected) == (74.7, 74.55) and "divided by 4" in first.detail


def test_the_rest_of_the_ticket_can_make_the_scopes_alike():
    """An eight-GPU reference is like for like when the ticket says elsewhere that it runs on eight GPUs."""
    text = ("We serve it with --tensor-parallel-size 8. We get 150 tok/s, not the 506 tok/s the blog reports across "
            "8 GPUs.")
    assert scope_of(text) is None
    assert scope_of(text.split(". ", 1)[1])["count"] == 8


@pytest.mark.parametrize("setup", ["We have 8 H100s.", "The box holds eight GPUs.", "Launched with TP=8."])
def test_the_reporters_own_gpu_count_said_elsewhere_is_read(setup):
    """The reporter's eight GPUs, said in any of the ways tickets say them, make an 8-GPU reference like for like."""
    sentence = "We get 150 tok/s, not the 506 tok/s the blog reports across 8 GPUs."
    assert scope_of(sentence)["count"] == 8
    assert scope_of(setup + " " + sentence) is None
