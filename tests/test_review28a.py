"""Precision review of session 26's readings no review had tried (issue 11, review28a): ut26d's NCCL switches read as
the reporter's setting (NCCL_IB_CUDA_SUPPORT, NCCL_NET_GDR_READ beside the older ones), ut26e's new engine-error
rows, ut26b's RoCE GID table and its "GDR not used" demoted beside a failed RDMA transfer. Each is tried on real
sentences and pastes of threads none of them was written from (tests/data/review28a/<reading>.toml, URLs in
SOURCES.md): positives it must read and near-misses that look alike but must not be read that way. `xfail`: why a
case still fails (strict); `mended`: what it read before this review."""

from pathlib import Path

import pytest
import tomllib
from conftest import judged_issue, said, threads_reused, toml_cases

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims
from rules.catalog import engine_errors
from rules.ticket_questions import fault_context

DATA = Path(__file__).parent / "data" / "review28a"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}
# The rows ut26e added (s26): only these are under review here.
NEW_ROWS = {"torch_without_nccl", "world_smaller_than_layout", "turbomind_windows_single_gpu", "tp_not_power_of_two",
            "trtllm_gpus_per_node"}


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


@pytest.mark.parametrize("case", toml_cases(DATA, "transport_setting"))
def test_a_transport_switch_as_the_reporters_setting(case):
    found = fault_context(_facts(case["text"]))
    read = found.quote if found and found.kind == "setting" else ""
    assert read == case["setting"], found


@pytest.mark.parametrize("case", toml_cases(DATA, "engine_errors"))
def test_the_new_engine_error_rows(case):
    assert [r.id for r in engine_errors() if r.id in NEW_ROWS and r.pattern.search(case["text"])] == case["rows"]


@pytest.mark.parametrize("case", toml_cases(DATA, "gid_table"))
def test_a_roce_gid_table(case):
    rows = claims.gid_table(said("```\n" + case["text"] + "```\n"))
    assert [[r["index"], r["version"], r["ipv4"] or "", r["link_local"]] for r in rows] == case["rows"]


@pytest.mark.parametrize("case", toml_cases(DATA, "gdr"))
def test_gdr_not_used_beside_a_failed_transfer(case):
    _, findings = judged_issue(case["text"])
    gdr = findings.get("nccl.gdr")
    assert (gdr.severity if gdr else "none") == case["gdr"]
    if case["gdr"] == "info":
        assert gdr.confidence <= 0.3


def test_every_case_names_its_thread_and_each_reading_has_near_misses_and_positives():
    sources = (DATA / "SOURCES.md").read_text()
    near = {"transport_setting": lambda c: not c["setting"], "engine_errors": lambda c: not c["rows"],
            "gid_table": lambda c: not c["rows"], "gdr": lambda c: c["gdr"] != "info"}
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        held = [c for c in family["case"] if not c.get("xfail")]
        assert sum(map(near[name], held)) >= 2, name
        assert sum(not near[name](c) for c in family["case"]) >= (1 if name == "gdr" else 2), name


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (ut26b, ut26d, ut26e)."""
    assert threads_reused(FAMILIES, ("ut26b", "ut26d", "ut26e")) == []
