"""A ticket verdict's confidence per evidence class (issue 11: a confidence that means what it says): at least the
development share right of its class (rules/catalog/verdict_confidence.toml, written by
scripts/fit_verdict_confidence.py), never past the confident line on the reporter's prose or a prior, at most
CONTESTED beside a rival cause; a rule's own level from a parsed artifact above the line stands. Checked on the 24
shared tickets (../shared/tickets: each a public thread, its URL in the folder's README/expected.toml), read the way
`diagnose ticket` and benchmarks/ticket_accuracy.py read them, and on findings built level by level."""

import importlib.util

import pytest
import tomllib
from conftest import REPO, shared_path

from diagnose.evidence import Facts, Note
from diagnose.findings import Evidence
from rules import catalog
from rules.common import make
from rules.engine import CONTESTED, contested, fits_first, one_reading, ticket_verdict, verdict_class

spec = importlib.util.spec_from_file_location("ticket_accuracy", REPO / "benchmarks" / "ticket_accuracy.py")
ticket_accuracy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ticket_accuracy)
CONFIDENT = ticket_accuracy.CONFIDENT  # a wrong verdict from here up is "confidently wrong"


def test_the_file_says_how_it_was_made_and_only_well_sampled_classes_are_fitted():
    data = tomllib.loads((catalog.CATALOG_DIR / "verdict_confidence.toml").read_text())
    line, levels = catalog.verdict_levels()
    assert "development cases" in data["fitted"] and "fit_verdict_confidence.py --write" in \
        (catalog.CATALOG_DIR / "verdict_confidence.toml").read_text()
    assert line < CONFIDENT
    rows = {k: v for k, v in data.items() if isinstance(v, dict)}
    assert set(levels) == {k for k, v in rows.items() if v["n"] >= data["min_n"]}  # too few verdicts: not fitted
    assert all(levels[k] == min(rows[k]["right"], line) for k in levels)  # a share right, never past the line


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


FACTS = said("We run the job inside a virtual machine and the all-reduce is slow.")
WORDS = [Evidence("issue.md:1", 'the reporter: "inside a virtual machine"')]
PARSED = [Evidence("issue.md:1", "the reporter"), Evidence("nvidia-smi-q.txt:12", "Virtualization Mode: Pass-Through")]


def _vm(level: float, evidence) -> float:
    f = make("topology.virtualization_no_p2p", "virtualization_no_p2p", "warning", level, "In a VM", "", evidence)
    return ticket_verdict(FACTS, [f]).confidence


@pytest.mark.parametrize("evidence, kind", [(WORDS, "words"), (PARSED, "artifact")])
def test_the_map_is_monotone_and_never_lowers_a_rule_below_its_class(evidence, kind):
    line, levels = catalog.verdict_levels()
    rule_levels = [0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.85, 0.95]
    stated = [_vm(level, evidence) for level in rule_levels]
    assert stated == sorted(stated)  # a stronger rule never states less
    if kind in levels:
        assert min(stated) >= levels[kind]  # at least its class's development share right
    if kind == "words":  # the reporter's prose alone is never a confident answer
        assert max(stated) <= line < CONFIDENT
    else:  # a parsed artifact above the line keeps its rule's own level
        assert [s for s, level in zip(stated, rule_levels) if level > line] == [r for r in rule_levels if r > line]


def test_a_rival_cause_holds_a_prose_verdict_at_contested_and_names_it():
    words = make("topology.virtualization_no_p2p", "virtualization_no_p2p", "warning", 0.75, "In a VM", "", WORDS)
    rival = make("nccl.socket_fallback", "socket_fallback", "warning", 0.6, "NCCL runs over sockets", "",
                 [Evidence("nccl.log:7", "NET/Socket : Using [0]eth0")])
    v = ticket_verdict(FACTS, [words, rival])
    assert v.category == "virtualization_no_p2p"
    assert v.confidence == CONTESTED and "Not sure: NCCL runs over sockets" in v.summary


def _judged():
    for folder in sorted(shared_path("tickets").iterdir()):
        if not (folder / "expected.toml").is_file():
            continue
        facts, findings, v = ticket_accuracy.judge(folder)
        yield folder.name, v, verdict_class(facts, findings, v), contested(fits_first(facts, one_reading(findings)),
                                                                         v.category)


def test_each_shared_verdict_states_its_class_level():
    line, levels = catalog.verdict_levels()
    seen = {}
    for name, v, kind, rival in _judged():
        seen[name] = kind
        if kind is None:
            assert v.category == "insufficient_data" and v.confidence == 0
            continue
        if rival and v.confidence >= CONTESTED:  # a rival cause: the margin is too small to claim more
            assert v.confidence == CONTESTED, name
            continue
        if kind in levels:
            assert v.confidence >= levels[kind], (name, kind, v.confidence)
        if kind in ("words", "prior"):  # prose or a base rate alone is never a confident answer
            assert v.confidence <= line, (name, kind, v.confidence)
        if v.confidence > line:  # past the line only on a rule's own level from what a tool printed or measured
            assert kind in ("artifact", "passes"), (name, kind, v.confidence)
        if kind == "lead":  # a weak lead (too few on development to fit) keeps its rule's level
            assert v.confidence < 0.5, name
    # the shared set holds a verdict of every class the file fits, so each fitted level is exercised here
    assert set(levels) <= set(seen.values()), seen
