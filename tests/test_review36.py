"""Precision review of ut28b's readings (issue 11, review36), each tried on real lines of threads none of them was
written from (tests/data/review36/<reading>.toml, URLs and roles in SOURCES.md): near-misses that look alike but must
not be read that way, beside a few that must. `xfail`: why a case still fails (strict); `before`: what main read.

- tensor_split: claims.tensor_split_said, the words naming a tensor split (or tensor parallelism), which keeps
  ticket.pcie_words' link warning and the topology ask beside a layer-split engine;
- link_heavy: claims.link_heavy_phase, a complaint of loading, prompt processing or offload, which keeps the same;
- attachment: "TB3/TB4/TB5/USB4" (and "Thunderbolt") as how a GPU is attached (claims "pcie_slot"), not a cable
  between computers;
- topology_ask: workload.evidence_coverage no longer asking a layer split's decode question for `nvidia-smi topo -m`,
  still asking where the split outputs garbage."""

from pathlib import Path

import pytest
import tomllib
from conftest import issue_bundle, said, threads_reused, toml_cases

from rules import claims, workload
from rules.subject import Subject

DATA = Path(__file__).parent / "data" / "review36"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "tensor_split"))
def test_a_tensor_split_is_read_in_its_words_and_a_share_list_is_not_one(case):
    assert claims.tensor_split_said(said(case["text"])) is case["tensor"]


@pytest.mark.parametrize("case", toml_cases(DATA, "link_heavy"))
def test_loading_and_long_prompts_are_what_a_narrow_link_slows(case):
    assert claims.link_heavy_phase(case["text"]) is case["heavy"]


@pytest.mark.parametrize("case", toml_cases(DATA, "attachment"))
def test_a_thunderbolt_cable_between_computers_is_no_gpu_attachment(case):
    found = [c for c in claims.find(said(case["text"]), "pcie_slot") if not c.guess]
    assert bool(found) is case["attached"]


@pytest.mark.parametrize("case", toml_cases(DATA, "topology_ask"))
def test_a_layer_split_decode_question_is_not_asked_for_the_topology_but_garbage_is(case):
    facts = issue_bundle(case["text"])
    facts.subject = Subject.of(facts)
    asked = [f for f in workload.evidence_coverage(facts) if "connected" in f.title]
    assert bool(asked) is case["asks"]


def test_every_case_names_its_thread_and_each_reading_has_near_misses_and_positives():
    sources = (DATA / "SOURCES.md").read_text()
    key = {"tensor_split": "tensor", "link_heavy": "heavy", "attachment": "attached", "topology_ask": "asks"}
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        values = {c[key[name]] for c in family["case"]}
        assert values == {True, False}, name


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of ut28b's own sources (tests/data/ut28b, its SOURCES.md and commit messages name them)."""
    assert threads_reused(FAMILIES, ("ut28b",)) == []
