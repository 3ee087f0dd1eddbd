"""Precision review of p2p_disabled, straggler and nccl_regression on real threads whose cause was something else
(issue 11, review50): first posts run as pasted (tests/data/review50/<file>.md, pastes.toml), and the readings this
review changed, each tried on real lines of other threads (URLs in SOURCES.md). `xfail`: why a case still fails
(strict).

- pastes: the blind first posts keep the verdict they now get and never one of the families issue 11 saw given wrongly;
- link_unknown: ticket.hang_on_pcie is a warning only where the GPUs are known to reach each other over PCIe, else an
  info lead that asks for the topology (ticket_rules._pcie_link, P2P_LINK_UNKNOWN);
- late_hang: a hang at a training run's evaluation, or after an out-of-memory error, is read as a late hang (claims
  "late_hang"), not one at the first collective;
- nothing_broken: a reporter who asks how to solve what they see gets no 'healthy' (ticket_questions._asks_cure);
- straggler_word: the word 'straggler' counts said of a rank or node, not as a flag's, detector's or report's name
  (claims "one_slow"), and a question about one is no straggler verdict (ticket.one_slow)."""

from pathlib import Path

import pytest
import tomllib
from conftest import case_facts, case_report, finding, reading_gaps, report_json, threads_reused, toml_cases

from rules import claims

DATA = Path(__file__).parent / "data" / "review50"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "pastes"))
def test_a_first_post_gets_its_verdict_and_none_of_the_wrong_families(case):
    verdict = report_json("ticket", str(DATA / case["file"]))["verdict"]["category"]
    assert verdict == case["verdict"]
    assert verdict not in case["not"]


@pytest.mark.parametrize("case", toml_cases(DATA, "link_unknown"))
def test_a_hang_is_a_p2p_warning_only_between_gpus_known_to_be_on_pcie(case, tmp_path):
    assert finding(case_report(case, tmp_path), "ticket.hang_on_pcie")["severity"] == case["p2p_lead"]


@pytest.mark.parametrize("case", toml_cases(DATA, "late_hang"))
def test_a_hang_at_evaluation_or_after_an_oom_is_a_late_hang(case, tmp_path):
    assert bool([c for c in claims.find(case_facts(case), "late_hang") if not c.guess]) is case["late"]
    if "p2p_lead" in case:
        assert finding(case_report(case, tmp_path), "ticket.hang_on_pcie")["severity"] == case["p2p_lead"]


@pytest.mark.parametrize("case", toml_cases(DATA, "nothing_broken"))
def test_a_problem_the_reporter_asks_to_solve_is_not_called_normal(case, tmp_path):
    verdict = case_report(case, tmp_path)["verdict"]["category"]
    assert verdict == case.get("verdict", verdict) and verdict not in case.get("not", [])


@pytest.mark.parametrize("case", toml_cases(DATA, "straggler_word"))
def test_the_word_straggler_counts_said_of_a_rank_not_as_a_tools_name(case):
    assert bool([c for c in claims.find(case_facts(case), "one_slow") if not c.guess]) is case["read"]


NEAR = {"pastes": lambda c: c["before"] != c["verdict"], "link_unknown": lambda c: c.get("near", False),
        "late_hang": lambda c: c.get("near", False), "nothing_broken": lambda c: c.get("near", False),
        "straggler_word": lambda c: c.get("near", False)}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    assert reading_gaps(DATA, FAMILIES, NEAR) == []


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of mend44's (the last pass on hang_on_pcie) nor of review48's."""
    assert threads_reused(FAMILIES, ("mend44", "review48"), ("test_mend44.py", "test_review48.py")) == []
