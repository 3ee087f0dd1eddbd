"""Precision review of session 26's new readings, part B (issue 11, review27b): ut26b's fabric not ready (CUDA 802,
the fabric manager's state), ut26d's link spec ("400Gbps InfiniBand network" is no measurement), ut26e's node size,
GPU OOM in words and assertions as errors, left26's slowdown since an unnamed update and releases owned by the product
named. Each is tried on real sentences of threads none of them was written from (tests/data/review27b/<reading>.toml,
URLs in SOURCES.md): positives it must read and near-misses that look alike but must not be read that way. `xfail`:
why a case still fails (strict); `mended`: what it read before this review's mends."""

from pathlib import Path

import pytest
import tomllib
from conftest import said, threads_reused

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts, Measurement
from rules import claims
from rules.catalog import engine_errors
from rules.common import gpus_per_node
from rules.engine import UPDATE_ASK, symptom_ask

DATA = Path(__file__).parent / "data" / "review27b"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _cases(name: str) -> list:
    return [pytest.param(c, id=f"{name}-{i}", marks=[pytest.mark.xfail(reason=c["xfail"], strict=True)]
                         if c.get("xfail") else []) for i, c in enumerate(FAMILIES[name]["case"])]


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


@pytest.mark.parametrize("case", _cases("fabric"))
def test_fabric_not_ready(case):
    read = [c for c in claims.find(said(case["text"]), "fabric_setup") if not c.negated]
    assert bool(read) is case["fabric"], [c.quote for c in read]


@pytest.mark.parametrize("case", _cases("network_rate"))
def test_a_link_rate_is_no_measured_busbw(case):
    read = [m.value for m in issue_md.parse(case["text"], "issue.md") if isinstance(m, Measurement)
            and m.metric == "busbw_gbs"]
    assert read == case["busbw"]


@pytest.mark.parametrize("case", _cases("node_size"))
def test_the_node_size_in_words(case):
    expected = None if case["per_node"] == "none" else case["per_node"]
    assert gpus_per_node(_facts(case["text"])) == expected


@pytest.mark.parametrize("case", _cases("gpu_oom"))
def test_a_gpu_oom_in_words(case):
    row = next(r for r in engine_errors() if r.id == "out_of_memory")
    assert bool(row.pattern.search(case["text"])) is case["oom"]


@pytest.mark.parametrize("case", _cases("assertion"))
def test_an_assertion_as_an_error(case):
    assert bool(claims.find(_facts(case["text"]), "exception")) is case["exception"]


@pytest.mark.parametrize("case", _cases("update_slower"))
def test_slower_since_an_unnamed_update(case):
    facts = said(case["text"])
    assert bool(claims.update_without_release(facts)) is case["update"]
    assert (symptom_ask(facts) == UPDATE_ASK) is case["update"]


@pytest.mark.parametrize("case", _cases("engine_releases"))
def test_releases_owned_by_the_product_named(case):
    read = claims.claims(said(case["text"]))
    assert [v for c in read if c.kind == "engine_versions_compared" for v in c.data["versions"]] \
        == case["engine_versions"], [(c.kind, c.data) for c in read]


def test_every_case_names_its_thread_and_each_reading_has_near_misses_and_positives():
    sources = (DATA / "SOURCES.md").read_text()
    near = {"fabric": lambda c: not c["fabric"], "network_rate": lambda c: not c["busbw"],
            "node_size": lambda c: c["per_node"] == "none", "gpu_oom": lambda c: not c["oom"],
            "assertion": lambda c: not c["exception"], "update_slower": lambda c: not c["update"],
            "engine_releases": lambda c: not c["engine_versions"]}
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        held = [c for c in family["case"] if not c.get("xfail")]
        assert sum(map(near[name], held)) >= (1 if name == "node_size" else 3), name
        assert sum(not near[name](c) for c in family["case"]) >= 2, name


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (ut26b, ut26d, ut26e, left26)."""
    assert threads_reused(FAMILIES, ("ut26b", "ut26d", "ut26e", "left26")) == []
