"""Errors and crashes (`other`) that ended in insufficient_data (issue 11, s25): real threads of multi-GPU errors run
through `diagnose ticket`, kept in tests/data/other25 with their URLs (SOURCES.md, cases.toml).

Two general gaps, each mended where the error is read, not per thread:
- the engines' own check that a job has as many processes or GPUs as its TP x PP layout (TensorRT-LLM's
  worldConfig.cpp, PyTorch's new_group, vLLM's executors) had no catalog row: rules/catalog/engine_errors.toml
  world_smaller_than_layout, with the launcher to use as its fix;
- a software error pasted as an IPython/Jupyter traceback ("AssertionError <pad> Traceback (most recent call last)")
  or as a CUDA check macro's "file.cu:LINE: <CUDA error string>" was not read as an exception at all (the old
  Traceback alternative could never match), so ticket.software_error stayed silent."""

import re
from pathlib import Path

import pytest
import tomllib
from conftest import judged_issue, said

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims
from rules.catalog import engine_errors

DATA = Path(__file__).parent / "data" / "other25"
CASES = tomllib.loads((DATA / "cases.toml").read_text())["case"]


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def _params():
    out = []
    for c in CASES:
        marks = [pytest.mark.xfail(reason=c["xfail"], strict=True)] if c.get("xfail") else []
        out.append(pytest.param(c, id=c["file"].removesuffix(".md"), marks=marks))
    return out


@pytest.mark.parametrize("case", _params())
def test_a_real_thread_gives_its_verdict_and_reads_its_error(case):
    text = (DATA / case["file"]).read_text()
    verdict, findings = judged_issue(text)
    facts = _facts(text)
    errors = [c.data["error"].id for c in claims.known_errors(facts)]
    if "verdict" in case:
        assert verdict.category == case["verdict"], (verdict, list(findings))
    for wrong in case.get("not", []):
        assert verdict.category != wrong, (verdict, list(findings))
    if case["error"]:
        assert errors[:1] == [case["error"]], errors
    else:
        assert errors == [], errors
    if "exception" in case:
        assert bool(claims.find(facts, "exception")) == case["exception"]


def test_an_other_verdict_from_the_row_names_the_error_and_the_launcher():
    """The finding says which check failed and what to run instead: not a generic 'software problem'."""
    _, findings = judged_issue((DATA / "trtllm_1992_mpi_size.md").read_text())
    f = findings["ticket.known_error"]
    assert "world smaller than layout" in f.title
    assert "MPI size 1 != TP size 2" in " ".join(e.detail for e in f.evidence)
    assert "mpirun -n" in f.fix and "torchrun" in f.fix and "CUDA_VISIBLE_DEVICES" in f.fix


@pytest.mark.parametrize("message", [
    # the messages as the code raises them (the row's sources), filled in as a run prints them
    "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp (worldConfig.cpp:90)",
    "Assertion failed: MPI size 1 != TP size 2 * PP size 1",
    "MPI size 2 != TP size 2 * PP size 2 * CP Size 1",
    "ValueError: the new group's world size should be less or equal to the world size set by init_process_group",
    "WARNING ray_utils.py:315] The number of required GPUs exceeds the total number of available GPUs in the "
    "placement group.",
    "AssertionError: please set tensor_parallel_size to less than max local gpu count",
    "RuntimeError: please set tensor_parallel_size (8) to less than max local gpu count (4)",
    "RuntimeError: please ensure that world_size (16) is less than than max local gpu count (8)",
    "AssertionError: local_world_size (16) must be less than or equal to the number of visible devices (8).",
])
def test_the_row_reads_each_engine_message_of_its_family(message):
    row = next(r for r in engine_errors() if r.id == "world_smaller_than_layout")
    assert row.pattern.search(message)
    assert [c.data["error"].id for c in claims.known_errors(said(message))] == ["world_smaller_than_layout"]


@pytest.mark.parametrize("line", [
    "[TensorRT-LLM][INFO] MPI size: 2, rank: 0",  # worldConfig.cpp's own INFO line: a report, no failure
    "[TensorRT-LLM][INFO] MPI size: 1, MPI local size: 1, rank: 0",
    "DEBUG parallel_state.py:845] world_size=2 rank=0 local_rank=0 backend=nccl",
    "ValueError: The new group's rank should be within the world_size set by init_process_group",  # another check
])
def test_lines_that_only_report_a_size_are_not_the_row(line):
    row = next(r for r in engine_errors() if r.id == "world_smaller_than_layout")
    assert not row.pattern.search(line)


@pytest.mark.parametrize("text, read", [
    ("AssertionError                            Traceback (most recent call last)\nFile <command-1>, line 10", True),
    ("Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>", True),
    ("ggml-cuda.cu:7068: invalid argument", True),
    ("Failed: /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:310 'invalid argument'", True),
    ("CUDA error 1 at D:\\a\\llama.cpp\\llama.cpp\\ggml-cuda.cu:8893: invalid argument", True),
    # near-misses: a build warning, a source line named in prose, the word traceback in a sentence
    ("kernel.cu(12): warning #177-D: variable \"x\" was declared but never referenced", False),
    ("kernel.cuh:40: note: candidate function not viable", False),
    ("the loop at ggml-cuda.cu:7068 for details on the split", False),
    ("the full traceback (most recent call last) is attached below as a file", False),
])
def test_a_traceback_header_or_a_cuda_check_line_is_a_software_error(text, read):
    assert bool(claims.find(said(text), "exception")) == read


def test_every_case_has_its_thread_in_sources_and_near_misses_are_kept():
    sources = (DATA / "SOURCES.md").read_text()
    for c in CASES:
        assert c["url"].startswith("https://github.com/") and c["url"] in sources, c["url"]
        assert (DATA / c["file"]).exists(), c["file"]
    assert sum(1 for c in CASES if "other" in c.get("not", []) and not c.get("xfail")) >= 3
    assert {p.name for p in DATA.glob("*.md")} - {"SOURCES.md"} == {c["file"] for c in CASES}
    assert all(re.match(r"# \S", (DATA / c["file"]).read_text()) for c in CASES)  # each starts with its title


@pytest.mark.parametrize("text, symptom", [
    # vllm-project/vllm#7107's title: the exception's class name is the only word for the failure
    ("[Bug]: ValueError: The number of required GPUs exceeds the total number of available GPUs in the cluster.",
     "error"),
    # vllm-project/vllm#10483, a maintainer: the class named in a statement about it, not an error raised here
    ("It is not a bug, the ValueError report is as expected.", None),
])
def test_an_exception_named_by_its_class_is_an_error_symptom(text, symptom):
    from diagnose.evidence import Note

    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    found = claims.symptom_quote(facts)[2]
    assert (found == "error") == (symptom == "error"), found
