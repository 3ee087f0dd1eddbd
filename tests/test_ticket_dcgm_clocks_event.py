"""DCGM's own words for a clocks event (dcgmlib/dcgm_errors.h): the health watch's and the diagnostic's messages,
their codes and the exporter's violation counters say the GPU is held down, whatever the reporter adds.

The sentences are DCGM's message formats filled in, DCGM 3's and 4's wordings, and people's ways of quoting them;
none is copied from a corpus case except the one development case that is checked as a whole."""

import shutil
from pathlib import Path

import tomllib

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict

CORPUS = Path(__file__).parent / "data" / "tickets"
SPLIT = tomllib.loads((CORPUS / "SPLIT.toml").read_text())
ISSUES = Path(__file__).parent / "data" / "issues"


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def verdict_of(facts: Facts):
    return ticket_verdict(facts, evaluate(facts)).category


def held_down(text: str) -> bool:
    return any(not c.negated for c in claims.find(said(text), "clock_power"))


def test_the_development_case_is_throttling(tmp_path):
    (src,) = [p for p in CORPUS.iterdir() if p.name.startswith("u11c08-")]
    assert src.name in SPLIT["development"]
    shutil.copytree(src, tmp_path / "t", ignore=shutil.ignore_patterns("expected.toml"))
    assert verdict_of(read_bundle([tmp_path / "t"])) == "throttling"


def test_dcgm_messages_in_both_wordings_and_both_reasons_are_a_clocks_event():
    for text in (
        "dcgmi health -c says: Detected clock throttling due to thermal violation in GPU 3.",
        "The health watch keeps logging 'Detected clocks event due to power violation in GPU 0.'",
        "Warning: There were thermal violations totaling 41.0 seconds for GPU 5",
        "Clocks are being throttled for GPU 1 because of clock throttling starting 12.0 seconds into the test.",
        "the diag returned DCGM_FR_CLOCKS_EVENT_THERMAL on two of the eight GPUs",
        'DCGM_FI_DEV_THERMAL_VIOLATION{gpu="2",UUID="GPU-1"} 8812345',
    ):
        assert held_down(text), text


def test_a_diag_table_from_a_public_page_is_throttling():
    """A `dcgmi diag -r 2` table from a faulty node (stas00/ml-engineering, debug.md), its warning wrapped across
    the table's cells."""
    facts = said((ISSUES / "ml-engineering-dcgmi-diag-r2-thermal-violations.md").read_text())
    assert held_down(facts.records[0].text)
    assert verdict_of(facts) == "throttling"


def test_negations_and_zero_counters_are_not_a_clocks_event():
    for text in (
        "There were no clocks event due to thermal violation in the health log.",
        "dcgmi health shows no clock throttling due to power violation, so it is not the clocks.",
        'DCGM_FI_DEV_THERMAL_VIOLATION{gpu="0",UUID="GPU-1"} 0',
        "# HELP DCGM_FI_DEV_POWER_VIOLATION Throttling duration due to power constraints (in us).",
        "Thermal violations: none reported by dcgmi diag.",
    ):
        assert not held_down(text), text
