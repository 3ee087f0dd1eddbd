"""Precision of the decided fault verdicts on real first posts (issue 11, decided31): the blind pastes kept in
tests/data/decided31 (pastes.toml, threads and answers in SOURCES.md), and the two readings this pass changed, each on
real sentences of other threads (readings.toml).

- pastes: each first post keeps the verdict it now gets and never the verdict its thread refuted; `xfail` says why a
  paste is still answered wrongly (strict);
- node count: a count of one host is one host whatever the plural ("a distributed training task with 1 nodes"),
  while a bound above one ("more than 1 nodes") stays a multi-node job (claims._COUNT_OF_ONE, _MORE_THAN), so
  nccl.socket_fallback no longer calls NCCL's per-init NET/Socket line a fallback on one node;
- sysfs path: NCCL's "Could not find real path of /sys/class/pci_bus/..." names the failure only where the ticket
  shows NCCL's system error after it (engine_errors row nccl_sysfs_pci_path_missing, its `context`)."""

from pathlib import Path

import pytest
import tomllib
from conftest import case_facts, case_report, finding, judged_issue, report_json, toml_cases

from rules.common import node_count

DATA = Path(__file__).parent / "data" / "decided31"
ROW = "nccl sysfs pci path missing"


@pytest.mark.parametrize("case", toml_cases(DATA, "pastes"))
def test_a_first_post_gets_its_verdict_and_not_the_refuted_one(case):
    verdict = report_json("ticket", str(DATA / case["file"]))["verdict"]["category"]
    assert verdict not in case["not"]
    assert verdict == case["verdict"]


@pytest.mark.parametrize("case", [c for c in toml_cases(DATA, "readings") if "nodes" in c.values[0]])
def test_a_count_of_one_host_is_one_host_and_more_than_one_stays_many(case):
    assert node_count(case_facts(case))[0] == case["nodes"]


def test_a_one_node_job_gets_no_socket_fallback_from_nccls_init_lines():
    """pytorch/pytorch#40273 pasted whole: NCCL_IB_DISABLE=1 and 'NET/Socket : Using' on a job of one node."""
    report = report_json("ticket", str(DATA / "pytorch40273.md"))
    assert finding(report, "nccl.socket_fallback") is None
    assert ROW in finding(report, "ticket.known_error")["title"]


@pytest.mark.parametrize("case", [c for c in toml_cases(DATA, "readings") if "known" in c.values[0]])
def test_nccls_sysfs_path_message_with_its_system_error_is_named(case, tmp_path):
    known = finding(case_report(case, tmp_path), "ticket.known_error")
    assert (known is not None and ROW in known["title"]) is case["known"]


def test_the_same_warning_where_nccl_goes_on_is_not_named():
    """A sandbox's notes on NCCL guessing its topology after the same WARN for an NVLink peer, with no system error
    (public repository text, search-index file 71160587898, quoted as stored)."""
    text = ("# NCCL topology in a sandbox\n\n### 17. NCCL silently guesses topology when introspection fails \n"
            "Could not find real path of /sys/class/pci_bus/fffffff/../../fffffff:ff:f\n"
            "Could not get device class for NVLink target fffffff:ff:ff.0, assuming NVSwitch\n")
    _, rules = judged_issue(text)
    assert "ticket.known_error" not in rules or ROW not in rules["ticket.known_error"].title


def test_every_kept_case_names_its_thread_in_sources():
    sources = (DATA / "SOURCES.md").read_text()
    for name in ("pastes", "readings"):
        for case in tomllib.loads((DATA / f"{name}.toml").read_text())["case"]:
            assert case["url"] in sources, case["url"]
