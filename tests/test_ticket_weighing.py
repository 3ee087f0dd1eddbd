"""The ticket's weighing (rules.engine.fits_first) reaches the report: a words-only cause that a fitting figure
outranks is reported at the severity the verdict gave it, so the findings, the verdict and the exit code say
the same thing. The issue text is a paraphrase written for this test, not a corpus ticket's wording."""

import json

from conftest import diagnose

from diagnose.bundle import read_bundle
from rules.engine import evaluate, fits_first, ticket_verdict

ISSUE = """# Is 30 tok/s normal for Llama-2-13B on two RTX 3090?

We serve Llama-2-13B with vLLM on 2x RTX 3090, tensor parallel 2, one request at a time. Decode runs at
30 tokens/s. Is this normal? The second card sits in a PCIe x4 slot.
"""


def _bundle(tmp_path):
    (tmp_path / "issue.md").write_text(ISSUE)
    return tmp_path


def test_the_weighing_changes_a_words_only_warning_that_a_fitting_figure_outranks(tmp_path):
    facts = read_bundle([_bundle(tmp_path)])
    raw = {f.rule: f for f in evaluate(facts)}
    assert raw["ticket.pcie_words"].severity == "warning"  # the slot, in the reporter's words only
    assert raw["ticket.measured_vs_expected"].category == "expected_physics"  # 30 tok/s fits the band
    weighed = {f.rule: f for f in fits_first(facts, list(raw.values()))}
    assert weighed["ticket.pcie_words"].severity == "info"
    assert ticket_verdict(facts, list(raw.values())).category == "expected_physics"


def test_the_report_the_verdict_and_the_exit_code_agree(tmp_path):
    bundle = _bundle(tmp_path)
    result = diagnose("ticket", bundle, "--json", "--fail-on", "warning")
    report = json.loads(result.output)
    assert report["verdict"]["category"] == "expected_physics"
    severities = {f["rule"]: f["severity"] for f in report["findings"]}
    assert severities["ticket.pcie_words"] == "info"  # as the verdict weighed it, not the rule's raw warning
    assert report["findings"][0]["rule"] == "ticket.measured_vs_expected"  # the verdict's finding leads
    assert result.exit_code == 0  # nothing at warning or above once weighed
    assert diagnose("ticket", bundle, "--json", "--fail-on", "info").exit_code == 1  # the info lead still counts
