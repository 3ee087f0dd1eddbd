"""Precision review of the readings session 27 merged from ut27b and ut27d (issue 11, review31b), each tried on real
sentences of threads none of them was written from (tests/data/review31b/<reading>.toml, URLs in SOURCES.md):
positives it must read and near-misses that look alike but must not be read that way. `xfail`: why a case still
fails (strict); `mended`: what it read before this review.

- requests_queued: ut27b's requests served in waves (ticket_questions.served_in_waves, rule ticket.requests_queued);
- weights_gathered: ut27d's ZeRO-3 / FSDP beside a generation (claims.weights_gathered, ticket.symptom_prior);
- hang_on_one_gpu: ut27d's hang of a one-GPU run (claims.hang_on_one_gpu, silencing ticket.hang_on_pcie);
- untried: ut27b's question whether another's figure can be reproduced, nothing run yet (claims.untried);
- device_map: ut27d's accelerate device_map named in words as in use (claims "layer_split");
- container_image: ut27b's container image that is not the model (issue_md.HF_ID), on Docker Hub's images."""

from pathlib import Path

import pytest
import tomllib
from conftest import said, threads_reused, toml_cases

from diagnose.artifacts import issue_md
from diagnose.evidence import Workload
from rules import claims, ticket_questions

DATA = Path(__file__).parent / "data" / "review31b"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "requests_queued"))
def test_requests_served_in_waves(case):
    assert (ticket_questions.served_in_waves(said(case["text"])) is not None) is case["queued"]


@pytest.mark.parametrize("case", toml_cases(DATA, "weights_gathered"))
def test_zero3_or_fsdp_beside_a_generation(case):
    assert bool(claims.weights_gathered(said(case["text"]))) is case["read"]


@pytest.mark.parametrize("case", toml_cases(DATA, "hang_on_one_gpu"))
def test_a_hang_said_of_a_one_gpu_run(case):
    assert claims.hang_on_one_gpu(said(case["text"])) is case["one"]


@pytest.mark.parametrize("case", toml_cases(DATA, "untried"))
def test_a_figure_to_reproduce_with_nothing_run(case):
    assert (claims.untried(said(case["text"])) is not None) is case["untried"]


@pytest.mark.parametrize("case", toml_cases(DATA, "device_map"))
def test_a_device_map_named_as_in_use(case):
    assert bool(claims.find(said(case["text"]), "layer_split")) is case["split"]


@pytest.mark.parametrize("case", toml_cases(DATA, "container_image"))
def test_a_container_image_is_not_the_model(case):
    models = [r.model for r in issue_md.parse(case["text"], "issue.md") if isinstance(r, Workload) and r.model]
    assert case["image"] not in models
    assert (models[:1] == [case["model"]]) if case["model"] else not models


def test_the_wave_counts_are_the_first_wave():
    """The count read is the wave served, not the load: five forwarded at once, six run before the last two."""
    got = [ticket_questions.served_in_waves(said(c["text"])) for c in FAMILIES["requests_queued"]["case"]
           if c.get("mended")]
    assert [c.data["first"] for c in got] == [5, 6]


def test_every_case_names_its_thread_and_each_reading_has_near_misses_and_positives():
    sources = (DATA / "SOURCES.md").read_text()
    key = {"requests_queued": "queued", "weights_gathered": "read", "hang_on_one_gpu": "one", "untried": "untried",
           "device_map": "split"}
    for name, family in FAMILIES.items():
        assert family["family"] == name
        cases = family["case"]
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in cases), name
        if name == "container_image":  # each case is both: an image left unread, the model beside it read
            assert any(c["model"] for c in cases) and any(not c["model"] for c in cases)
            continue
        assert any(not c[key[name]] for c in cases), name
        assert any(c[key[name]] and not c.get("xfail") for c in cases), name


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (ut27b, ut27d)."""
    assert threads_reused(FAMILIES, ("ut27b", "ut27d")) == []
