"""Precision review of the readings session 27 merged from left27 and ut27c (issue 11, review30), each tried on real
sentences and pastes of threads none of them was written from (tests/data/review30/<reading>.toml, URLs in
SOURCES.md): positives it must read and near-misses that look alike but must not be read that way. `xfail`: why a
case still fails (strict); `mended`: what it read before this review.

- aws_versions: EFA installer / Libfabric / aws-ofi-nccl releases are not NCCL's (claims.nccl_versions), as release
  notes, build variables and version tables write them;
- engine_rows: ut27c's catalog rows for EFA, injected XML files and fi_getinfo -61;
- nccl_tests_launch: left27's srun / -H / -np counts;
- form_symptom: left27's issue-form lines do not class a ticket;
- bandwidth_symptom: ut27c's "unable to use full ... bandwidth" is a speed complaint, not a failure;
- lmdeploy_table: left27's LMDeploy benchmark figures are every request's total at the run's concurrency;
- p2p_advice: left27's NCCL_P2P_DISABLE handed to the reader is not in force;
- tcp_only: ut27c's "connected over TCP/IP" reading;
- p4_family: ut27c's AWS "p4" instance family against NVIDIA's Tesla P4."""

from pathlib import Path

import pytest
import tomllib
from conftest import issue_bundle, said, threads_reused, toml_cases

from diagnose.artifacts import launch, serving_bench
from diagnose.artifacts.issue_md import GPU_NAME
from diagnose.evidence import Workload
from rules import claims
from rules.catalog import engine_errors
from rules.common import settings

DATA = Path(__file__).parent / "data" / "review30"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}
SPEED = ("slow", "scaling", "normal?")
# The rows ut27c added (s27): only these are under review here.
NEW_ROWS = {"efa_libfabric_nccl_mismatch", "ofi_gpu_memory_refused", "nccl_graph_file_mismatch",
            "nccl_topo_file_cpu_attributes", "efa_device_not_visible"}


@pytest.mark.parametrize("case", toml_cases(DATA, "aws_versions"))
def test_the_aws_network_stacks_releases_are_not_nccls(case):
    assert claims.nccl_versions(case["text"]) == case["versions"]


@pytest.mark.parametrize("case", toml_cases(DATA, "engine_rows"))
def test_the_new_engine_error_rows(case):
    assert [r.id for r in engine_errors() if r.id in NEW_ROWS and r.pattern.search(case["text"])] == case["rows"]


@pytest.mark.parametrize("case", toml_cases(DATA, "nccl_tests_launch"))
def test_an_nccl_tests_launch_gives_its_ranks_and_nodes(case):
    runs = [w for w in launch.parse(case["text"], "issue.md") if isinstance(w, Workload)]
    assert [w.framework for w in runs] == ["nccl-tests"]
    want = [None if case[k] == "none" else case[k] for k in ("ranks", "nodes")]
    assert [runs[0].gpu_count, runs[0].nodes] == want


@pytest.mark.parametrize("case", toml_cases(DATA, "form_symptom") + toml_cases(DATA, "bandwidth_symptom"))
def test_the_forms_lines_and_a_bandwidth_below_the_link_class_the_ticket_right(case):
    kind = claims.symptom(said(case["text"]))
    if case["speed"]:
        assert kind in SPEED, kind
    else:
        assert kind == case["symptom"]


@pytest.mark.parametrize("case", toml_cases(DATA, "lmdeploy_table"))
def test_lmdeploys_benchmark_is_read_as_each_runs_total(case):
    read = serving_bench.parse(case["text"], "issue.md")
    out = {m.concurrency: m for m in read if m.metric == "output_tok_s"}
    total = {m.concurrency: m.value for m in read if m.metric == "total_tok_s"}
    assert [[b, out[b].value, total[b]] for b in sorted(out)] == case["rows"]
    assert all(m.scope == "aggregate" for m in out.values())


@pytest.mark.parametrize("case", toml_cases(DATA, "p2p_advice"))
def test_p2p_disable_handed_to_the_reader_is_not_in_force(case):
    assert bool(settings(issue_bundle(case["text"]), "NCCL_P2P_DISABLE")) == case["in_force"]


@pytest.mark.parametrize("case", toml_cases(DATA, "tcp_only"))
def test_a_network_said_to_be_tcp_alone(case):
    assert bool(claims.find(said(case["text"]), "tcp_only")) is case["tcp"]


@pytest.mark.parametrize("case", toml_cases(DATA, "p4_family"))
def test_p4_is_the_tesla_card_only_outside_aws_instance_talk(case):
    assert [m.group(1) for m in GPU_NAME.finditer(case["text"])] == case["names"]


def test_every_case_names_its_thread_and_each_reading_has_near_misses_and_positives():
    sources = (DATA / "SOURCES.md").read_text()
    near = {"aws_versions": lambda c: not c["versions"],
            "engine_rows": lambda c: not c["rows"], "nccl_tests_launch": lambda c: c["ranks"] == "none",
            "form_symptom": lambda c: not c["speed"], "bandwidth_symptom": lambda c: not c["speed"],
            "p2p_advice": lambda c: c["in_force"], "lmdeploy_table": lambda c: not c["rows"],
            "tcp_only": lambda c: not c["tcp"], "p4_family": lambda c: bool(c["names"])}
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        assert any(near[name](c) for c in family["case"]) or name in LEFT, name
        assert any(not near[name](c) for c in family["case"]) or name in LEFT, name


# Readings for which this review found no untaken real thread on one side (SOURCES.md says which side).
LEFT = {"nccl_tests_launch"}


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (left27, ut27c)."""
    assert threads_reused(FAMILIES, ("left27", "ut27c")) == []
