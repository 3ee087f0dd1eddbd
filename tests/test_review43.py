"""Precision review of ut29a's and ut29c's readings (issue 11, review43), each tried on real lines of threads none of
them was written from (tests/data/review43/<reading>.toml, URLs in SOURCES.md): near-misses that look alike but must
not be read that way, and positives not used before. `xfail`: why a case still fails (strict).

- reservation: ut29a's memory-reservation forms of claims "memory_per_gpu" answered `healthy` by ticket.explained,
  with its guards (16-bit weights, memory that keeps growing, OOM or failure, engines that do not reserve);
- graph_capture: ut29a's claims "graph_capture_time" (CUDA graph capture at start-up, a one-off cost);
- misplaced: ut29c's claims._MISPLACED (a model or process on a GPU other than the one asked: a failure);
- trtllm_instance_group: ut29c's claims.trtllm_instance_group / ticket.trtllm_instance_group."""

import re
from pathlib import Path

import pytest
import tomllib
from conftest import judged_issue, reading_gaps, said, threads_reused, toml_cases

from rules import claims

DATA = Path(__file__).parent / "data" / "review43"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _doc(case: dict) -> str:
    return f"# {case['title']}\n\n{case['text']}\n"


def _explained(case: dict) -> str | None:
    """The title of ticket.explained on the case pasted as an issue, or None."""
    _, found = judged_issue(_doc(case))
    f = found.get("ticket.explained")
    return f.title if f else None


@pytest.mark.parametrize("case", toml_cases(DATA, "reservation"))
def test_reservation_explains_only_memory_an_engine_reserves(case):
    title = _explained(case)
    assert (title == "Each GPU's memory is filled by design") is case["explained"]


@pytest.mark.parametrize("case", toml_cases(DATA, "graph_capture"))
def test_capture_time_explained_only_where_capture_completes(case):
    title = _explained(case)
    assert bool(title and title.startswith("Capturing CUDA graphs at start-up")) is case["explained"]


@pytest.mark.parametrize("case", toml_cases(DATA, "misplaced"))
def test_wrong_gpu_read_only_where_it_happened(case):
    text = _doc(case)
    assert bool(re.search(claims._MISPLACED, text, re.I)) is case["misplaced"]
    if case["misplaced"]:
        assert claims.symptom(said(text)) == "error"


@pytest.mark.parametrize("case", toml_cases(DATA, "trtllm_instance_group"))
def test_instance_group_read_only_for_a_tensorrt_llm_model(case):
    _, found = judged_issue(_doc(case))
    assert ("ticket.trtllm_instance_group" in found) is case["read"]


NEAR = {"reservation": lambda c: not c["explained"], "graph_capture": lambda c: not c["explained"],
        "misplaced": lambda c: not c["misplaced"], "trtllm_instance_group": lambda c: not c["read"]}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    assert reading_gaps(DATA, FAMILIES, NEAR) == []


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (ut29a, ut29c) nor of their tests."""
    assert threads_reused(FAMILIES, ("ut29a", "ut29c"), ("test_ut29a_user.py", "test_ut29c_user.py")) == []
