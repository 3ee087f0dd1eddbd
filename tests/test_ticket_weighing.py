"""The ticket's weighing (rules.engine.fits_first) reaches the report: a words-only cause that a fitting figure
outranks is reported at the severity the verdict gave it, so the findings, the verdict and the exit code say
the same thing. The issue text is a paraphrase written for this test, not a corpus ticket's wording."""

import json

from conftest import diagnose

from diagnose.bundle import read_bundle
from rules.engine import evaluate, fits_first, ticket_verdict

ISSUE = """# Is 38 tok/s normal for Llama-2-13B on two RTX 3090?

We serve Llama-2-13B with vLLM on 2x RTX 3090, tensor parallel 2, one request at a time. Decode runs at
38 tokens/s. Is this normal? The second card sits in a PCIe x4 slot.
"""


def _bundle(tmp_path):
    (tmp_path / "issue.md").write_text(ISSUE)
    return tmp_path


def test_the_weighing_changes_a_words_only_warning_that_a_fitting_figure_outranks(tmp_path):
    facts = read_bundle([_bundle(tmp_path)])
    raw = {f.rule: f for f in evaluate(facts)}
    assert raw["ticket.pcie_words"].severity == "warning"  # the slot, in the reporter's words only
    assert raw["ticket.measured_vs_expected"].category == "expected_physics"  # 38 tok/s fits the band
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


# A paraphrased issue: GeForce cards (no PCIe P2P from the stock driver, so the symptom prior warns) and an
# all_reduce_perf table whose busbw is what PCIe Gen4 gives: the passed busbw check outweighs the prior.
MEASURED_ISSUE = """# Tensor parallel on two RTX 4090 is slow

We serve Llama-2-7B with vLLM on 2x RTX 4090 with tensor parallel 2 and it feels slow. all_reduce_perf between
the two cards:

```
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   134217728      33554432     float     sum      -1     6100   %(bw)s   %(bw)s      0     6090   %(bw)s   %(bw)s      0
   268435456      67108864     float     sum      -1    12200   %(bw)s   %(bw)s      0    12190   %(bw)s   %(bw)s      0
# Avg bus bandwidth    : %(bw)s
```
"""


def _measured(tmp_path, bw):
    (tmp_path / "issue.md").write_text(MEASURED_ISSUE % {"bw": bw})
    result = diagnose("ticket", tmp_path, "--json", "--fail-on", "warning")
    report = json.loads(result.output)
    return report, {f["rule"]: f for f in report["findings"]}, result.exit_code


def test_a_prior_that_a_passed_check_outweighs_is_reported_as_a_lead_and_does_not_fail(tmp_path):
    report, found, code = _measured(tmp_path, "22.00")
    assert report["verdict"]["category"] == "expected_physics"  # the busbw check answers the complaint
    assert found["nccl.busbw"]["severity"] == "ok"
    prior = found["ticket.symptom_prior"]
    assert prior["category"] == "p2p_disabled" and prior["severity"] == "info"  # set aside, kept as a lead
    assert prior["confidence"] < found["nccl.busbw"]["confidence"]
    assert code == 0  # the verdict is healthy physics: --fail-on warning does not fire


def test_a_prior_no_check_outweighs_keeps_its_warning_and_its_exit_code(tmp_path):
    report, found, code = _measured(tmp_path, "10.00")  # 41 % of the link: the busbw check does not pass
    assert report["verdict"]["category"] == "p2p_disabled"
    assert found["ticket.symptom_prior"]["severity"] == "warning"
    assert code == 1
