"""Issue 11, two precision defects (s24 w3a): a complaint asked as a question ("why is X slower than Y?") is not
answered "no problem found" (ticket.nothing_broken, claims.asked_contrast), and a GPU count stated beside a per-node
count on the same line is the job's total (issue_md._per_node). Real inputs in tests/data/w3a_s24 (SOURCES.md)."""

from pathlib import Path

import pytest
import tomllib
from test_ticket_figures import _issue  # facts, findings and verdict of an issue's Markdown

from diagnose.artifacts import parse_text
from diagnose.evidence import Workload
from rules import claims

DATA = Path(__file__).parent / "data" / "w3a_s24"
QUESTIONS = tomllib.loads((DATA / "questions.toml").read_text())["case"]
COUNTS = tomllib.loads((DATA / "counts.toml").read_text())["line"]


def _workload(text: str) -> tuple[int | None, int | None]:
    """(GPU count, nodes) the line reads as, in a ticket that says nothing else about GPUs."""
    records, _ = parse_text("# multi-node job slow\n\n" + text + " Llama-3-70B decodes at 30 tokens/s.\n", "issue.md")
    (w,) = [r for r in records if isinstance(r, Workload) and (r.gpu or r.gpu_count)]
    return w.gpu_count, w.nodes


@pytest.mark.parametrize("case", COUNTS, ids=[c["url"].rsplit("/", 3)[-3] + c["url"].rsplit("/", 1)[-1]
                                              for c in COUNTS])
def test_gpu_and_node_counts_said_in_any_order(case):
    assert _workload(case["text"]) == (case["gpus"], case["nodes"] or None)


def test_a_per_node_count_after_the_total_does_not_multiply_it():
    """NVIDIA/nccl#1516: 'per node' qualifies the second count; read alone, the first would be per node (4 x 2)."""
    line = next(c["text"] for c in COUNTS if c["url"].endswith("nccl/issues/1516"))
    assert _workload(line) == (4, None)


def _case(url_tail: str) -> dict:
    return next(c for c in QUESTIONS if c["url"].endswith(url_tail))


@pytest.mark.parametrize("case", [c for c in QUESTIONS if c["expect"] == "not_healthy"],
                         ids=lambda c: c["url"].split("github.com/")[1])
def test_a_difference_asked_as_a_question_is_never_no_problem_found(case):
    _, findings, verdict = _issue(case["text"])
    assert verdict.category != "healthy"
    assert not [f for f in findings if f.rule == "ticket.nothing_broken" and f.severity == "ok"]


@pytest.mark.parametrize("url_tail", ["sglang/issues/4245", "vllm/issues/21027", "sglang/issues/2559"])
def test_the_asked_difference_becomes_insufficient_data_with_an_ask_for_both_sides(url_tail):
    """These three were 'healthy' (ticket.nothing_broken passed) before the change."""
    facts, findings, verdict = _issue(_case(url_tail)["text"])
    (f,) = [f for f in findings if f.rule == "ticket.nothing_broken"]
    assert (f.category, verdict.category) == ("insufficient_data", "insufficient_data")
    assert "both setups" in f.ask
    assert claims.asked_contrast(facts) is not None


def test_a_difference_stated_then_asked_in_a_short_question_is_asked():
    """vllm-project/vllm#21027: '... higher than that of v0.9.1. Why is this?' (the question a sentence of its own)."""
    facts, _, _ = _issue(_case("vllm/issues/21027")["text"])
    assert "higher than" in claims.asked_contrast(facts).quote


@pytest.mark.parametrize("case", [c for c in QUESTIONS if c["expect"] == "healthy"],
                         ids=lambda c: c["url"].split("github.com/")[1])
def test_is_this_normal_without_a_difference_is_unchanged(case):
    """Near-misses: real 'is this normal?' questions the maintainers answered as expected behaviour."""
    facts, findings, verdict = _issue(case["text"])
    assert claims.asked_contrast(facts) is None
    assert not [f for f in findings if f.rule == "ticket.nothing_broken" and f.category == "insufficient_data"]


def test_the_healthy_answers_stay_healthy():
    for tail in ("vllm/issues/4253", "vllm/issues/15204", "vllm/issues/4723"):
        assert _issue(_case(tail)["text"])[2].category == "healthy", tail


@pytest.mark.parametrize("sentence,contrast", [
    # NVIDIA/nccl#1060: a gap said as a factor, "worse by 6-7x"
    ("I see that for the same amount of data communicated, the ring allreduce is performing worse by 6-7x in "
     "latency.", True),
    # NVIDIA/TensorRT-LLM#1873's title, "then" for "than" as it was typed
    ("tensorrt-llm llama3 slower then vllm(4bit quant)?", True),
    # vllm-project/vllm#12529: a bound in units is a figure for the figure checks, not a second setup
    ("now with 0.7.0 + VLLM_USE_V1=1 I cannot push the context length higher than 3K or encountering a CUDA OOM "
     "error.", False),
])
def test_what_counts_as_a_contrast_of_two_setups(sentence, contrast):
    assert bool(claims._ASKED_CONTRAST.search(sentence)) is contrast
