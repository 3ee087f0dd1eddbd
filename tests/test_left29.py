"""Five readings the last session left open (issue 11, left29), each tried on real lines of public threads
(tests/data/left29/<reading>.toml, URLs in SOURCES.md), positives beside near-misses. `xfail`: why a case still
fails (strict).

- nodes_product: "2x8 H100", "2x8 (nodes x gpus)" read as nodes times GPUs per node (issue_md.node_product);
- sentences: a full-width ！ glued to more text ends a sentence (claims.sentences); a glued ？ still does not;
- http_4xx: the server's 4xx as its own answer (catalog rows request_too_long, http_client_error);
- across_pods: mend41's claim on new threads (pods holding a whole replica, or one pod holding the job);
- wsl_topo: under WSL 2 the topology ask is NCCL's INFO lines, not `nvidia-smi topo -m`."""

import json
from pathlib import Path

import pytest
import tomllib
from conftest import case_facts, case_report, reading_gaps, threads_reused, toml_cases

from rules import claims
from rules.common import gpus_per_node, node_count

DATA = Path(__file__).parent / "data" / "left29"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}
# review47's cases for the same readings (threads none of them was written from) run through the same checks
REVIEWED = (DATA, DATA.parent / "review47")


def cases(family: str) -> list:
    """The family's cases of this pass and of its review, each id naming its folder."""
    return [pytest.param(*p.values, id=f"{d.name}-{p.id}", marks=p.marks)
            for d in REVIEWED if (d / f"{family}.toml").exists() for p in toml_cases(d, family)]


@pytest.mark.parametrize("case", cases("nodes_product"))
def test_a_product_of_nodes_and_gpus_counts_both(case):
    facts = case_facts(case)
    assert facts.workload().gpu_count == case["count"]
    assert gpus_per_node(facts) == case["per_node"]
    assert node_count(facts)[0] == case.get("nodes")


@pytest.mark.parametrize("case", cases("sentences"))
def test_full_width_exclamation_ends_a_sentence(case):
    assert claims.sentences(case["text"]) == case["sentences"]


@pytest.mark.parametrize("case", cases("http_4xx"))
def test_a_client_error_names_the_request(case, tmp_path):
    assert [c.data["error"].id for c in claims.known_errors(case_facts(case))] == case["rows"]
    if "verdict" in case:
        report = case_report(case, tmp_path)
        assert report["verdict"]["category"] == case["verdict"]
        assert report["findings"][0]["rule"] == "ticket.known_error"


@pytest.mark.parametrize("case", cases("across_pods"))
def test_pods_read_only_where_the_job_spans_them(case):
    assert any(not c.guess for c in claims.find(case_facts(case), "across_pods")) is case["pods"]


@pytest.mark.parametrize("case", cases("wsl_topo"))
def test_no_topology_matrix_asked_under_wsl(case, tmp_path):
    report = case_report(case, tmp_path)
    asked = json.dumps(report["verdict"]) + json.dumps([f.get("ask") for f in report["findings"]])
    assert ("topo -m" in asked) is case["topo_asked"]
    if not case["topo_asked"]:
        assert "NCCL_DEBUG=INFO" in asked


NEAR = {"nodes_product": lambda c: c.get("near", False), "sentences": lambda c: c.get("near", False),
        "http_4xx": lambda c: not c["rows"], "across_pods": lambda c: not c["pods"],
        "wsl_topo": lambda c: c["topo_asked"]}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    assert reading_gaps(DATA, FAMILIES, NEAR) == []


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the earlier state's sources (review42, mend41, left28b)."""
    assert threads_reused(FAMILIES, ("review42", "mend41", "left28b")) == []
