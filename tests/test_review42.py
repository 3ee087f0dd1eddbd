"""Precision review of mend41's and mend43's readings (issue 11, review42), each tried on real lines of threads none
of them was written from (tests/data/review42/<reading>.toml, URLs in SOURCES.md): near-misses that look alike but
must not be read that way, and positives not used before. `xfail`: why a case still fails (strict).

- nodes_product: mend41's floor of rules.common.gpus_per_node at the launch's TP x PP ranks over its nodes;
- across_pods: mend41's claim "across_pods" and ticket.hang_on_pcie stepping aside for it;
- spread_wins: mend41's claims.spread_wins (the pipelined / multi-node side said faster);
- tp_one: mend41's claims.tp_degree (a TP of 1 asks no split: gpus_in_use.sharding_asked);
- several_gpus: mend43's count + board + singular GPU form of claims.several_gpus;
- nccl_devices: mend43's NCCL "devices" event and topology._nccl_several (read by topology._multi_gpu)."""

from pathlib import Path

import pytest
import tomllib
from conftest import case_facts, case_report, finding, reading_gaps, threads_reused, toml_cases

from diagnose.artifacts import nccl_log
from diagnose.evidence import Facts, NcclEvent
from rules import claims, topology
from rules.common import gpus_per_node, node_count
from rules.gpus_in_use import sharding_asked

DATA = Path(__file__).parent / "data" / "review42"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}



@pytest.mark.parametrize("case", toml_cases(DATA, "across_pods"))
def test_pods_read_only_where_the_job_spans_them(case, tmp_path):
    assert any(not c.guess for c in claims.find(case_facts(case), "across_pods")) is case["pods"]
    if "p2p_hang" in case:
        assert (finding(case_report(case, tmp_path), "ticket.hang_on_pcie") is not None) is case["p2p_hang"]


@pytest.mark.parametrize("case", toml_cases(DATA, "nodes_product"))
def test_gpus_per_node_floor_only_raises_a_count_below_the_ranks(case):
    facts = case_facts(case)
    assert gpus_per_node(facts) == case["per_node"]
    if "nodes" in case:
        assert node_count(facts)[0] == case["nodes"]


@pytest.mark.parametrize("case", toml_cases(DATA, "spread_wins"))
def test_spread_win_only_where_measured_faster(case):
    assert (claims.spread_wins(case_facts(case)) is not None) is case["wins"]


@pytest.mark.parametrize("case", toml_cases(DATA, "tp_one"))
def test_tp_of_one_asks_no_split_only_alone(case):
    assert sharding_asked(case_facts(case)) is case["sharded"]


@pytest.mark.parametrize("case", toml_cases(DATA, "several_gpus"))
def test_several_boards_only_where_in_use(case):
    assert claims.several_gpus(case_facts(case)) is case["several"]


NEAR = {"across_pods": lambda c: not c["pods"], "spread_wins": lambda c: not c["wins"],
        "tp_one": lambda c: c["sharded"], "several_gpus": lambda c: not c["several"],
        "nccl_devices": lambda c: not c["several"], "nodes_product": lambda c: c.get("near", False)}
# Readings for which this review kept no untaken real positive (SOURCES.md says why).
LEFT = {"spread_wins", "several_gpus"}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    assert reading_gaps(DATA, FAMILIES, NEAR, LEFT) == []


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (mend41, mend43)."""
    assert threads_reused(FAMILIES, ("mend41", "mend43")) == []


def _nccl(text: str) -> Facts:
    facts = Facts()
    facts.add(*nccl_log.parse(text, "nccl.log"))
    return facts


@pytest.mark.parametrize("case", toml_cases(DATA, "nccl_devices"))
def test_nccl_devices_counted_only_over_several_ranks(case):
    facts = _nccl(case["text"])
    counted = [e.data["devices"] for e in facts.of(NcclEvent) if e.kind == "devices"]
    assert counted == ([case["devices"]] if case["devices"] else [])
    assert topology._nccl_several(facts) is case["several"]
