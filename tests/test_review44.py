"""Precision review of ut29d's readings (issue 11, review44), each tried on real lines of threads none of them was
written from (tests/data/review44/<reading>.toml, URLs in SOURCES.md): near-misses that look alike but must not be
read that way, and positives not used before. `xfail`: why a case still misses (strict).

- command: launch.COMMAND reading a launch run by an interpreter named by its path;
- rendezvous: launch.RENDEZVOUS and rules.workload.rendezvous_split (node ranks naming different rendezvous
  addresses), now compared within one job only (review44);
- hang_lead: the gate that makes workload.cross_node_tp an info lead when the job does not run (review44: a crash or
  error counts as a hang does), with "stucked" read as a hang."""

from pathlib import Path

import pytest
import tomllib
from conftest import case_facts, case_report, finding, issue_bundle, reading_gaps, threads_reused, toml_cases

from diagnose.artifacts import launch
from diagnose.evidence import Workload
from rules import workload

DATA = Path(__file__).parent / "data" / "review44"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "command"))
def test_only_launch_lines_are_read_as_launches(case):
    read = [w for w in launch.parse(case["text"], "issue.md") if isinstance(w, Workload) and w.framework]
    assert bool(read) is case["launch"]


@pytest.mark.parametrize("case", toml_cases(DATA, "rendezvous"))
def test_rendezvous_split_only_within_one_job(case):
    facts = issue_bundle(f"# {case['title']}\n\n{case['text']}\n")
    assert bool(list(workload.rendezvous_split(facts))) is case["split"]


@pytest.mark.parametrize("case", toml_cases(DATA, "hang_lead"))
def test_cross_node_tp_steps_aside_only_for_a_job_that_does_not_run(case, tmp_path):
    assert (workload._start_up_hang(case_facts(case)) is not None) is case["not_running"]
    if "lead" in case:
        lead = finding(case_report(case, tmp_path), "workload.cross_node_tp")
        assert lead is not None and lead["severity"] == case["lead"]


NEAR = {"command": lambda c: not c["launch"], "rendezvous": lambda c: not c["split"],
        "hang_lead": lambda c: not c["not_running"]}
# Readings for which this review kept no untaken real positive (SOURCES.md says why).
LEFT = {"command"}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    assert reading_gaps(DATA, FAMILIES, NEAR, LEFT) == []


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (ut29d)."""
    assert threads_reused(FAMILIES, ("ut29d",), ("test_ut29d_user.py",)) == []


# Addresses as the sources give them. One host two ways: a short name and its fully qualified form (pytorch/pytorch
# #108751: torchrun's c10d rendezvous publishes the elected master's FQDN by design), a name on one node and an IP on
# the other (pytorch/pytorch#73656's maintainer: node0.cluster and node0i.cluster name one host). Comparable: two IPs
# (sgl-project/sglang#3467's 10.68.27.12 and 10.0.1.104), a worker sent to its own loopback (pytorch/pytorch#76367).
@pytest.mark.parametrize("addrs, unsure", [
    ({"node0.cluster:29500", "node0i.cluster:29500"}, True),
    ({"node0:29500", "node0.cluster.local:29500"}, True),
    ({"node0.cluster:29500", "10.0.0.1:29500"}, True),
    ({"10.68.27.12:5000", "10.0.1.104:5000"}, False),
    ({"localhost:2222", "10.0.0.1:2222"}, False),
])
def test_rendezvous_split_keeps_quiet_where_two_names_may_be_one_host(addrs, unsure):
    assert workload._one_host_two_names(addrs) is unsure
