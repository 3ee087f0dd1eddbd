"""Issue 11, three reading gaps (s25 mend25): a total said after a count per node ("8 GPUs per node, 16 GPUs total")
counts the nodes (issue_md._per_node); a comparison asked with its other side left unsaid ("Is V1 expected to
consume more memory?") is a complaint, not "no problem found" (claims.asked_contrast); and a layout written as
glued degrees ("tp4dp2", "PP2TP4", "TP4-DP2", "dp=2, tp=4") is read (issue_md.TP, PP_GLUED, DP). Real inputs in
tests/data/mend25 (SOURCES.md), with real near-misses beside them."""

from pathlib import Path

import pytest
import tomllib
from test_ticket_figures import _issue  # facts, findings and verdict of an issue's Markdown
from test_w3a_s24 import _workload  # (GPU count, nodes) of one line

from diagnose.artifacts import parse_text
from diagnose.evidence import Workload
from rules import claims

DATA = Path(__file__).parent / "data" / "mend25"
COUNTS = tomllib.loads((DATA / "counts.toml").read_text())["line"]
QUESTIONS = tomllib.loads((DATA / "questions.toml").read_text())["case"]


@pytest.mark.parametrize("case", COUNTS, ids=[c["src"].rsplit("/", 1)[-1] for c in COUNTS])
def test_a_total_after_the_gpus_of_each_node_counts_the_nodes(case):
    assert _workload(case["text"]) == (case["gpus"], case["nodes"] or None)


def test_the_total_alone_gives_the_nodes_when_the_line_names_none():
    """The first four lines name no node count: before the change they read as one node's 8 (or 4) GPUs."""
    for case in COUNTS[:4]:
        gpus, nodes = _workload(case["text"])
        assert nodes is not None and gpus == case["gpus"] > 8 // 2


def test_workers_are_not_nodes():
    """'4 workers x 2 GPUs each (8 GPUs total)': 'each' names no node, so no node count is made from the total."""
    assert _workload("For example, if you have 4 workers × 2 GPUs each (8 GPUs total).")[1] is None


def test_a_total_that_is_no_multiple_of_the_node_makes_no_nodes():
    assert _workload("We have 8 GPUs per node, 12 GPUs in total.")[1] is None


@pytest.mark.parametrize("case", QUESTIONS, ids=lambda c: c["url"].split("github.com/")[1])
def test_a_comparison_asked_with_one_side_named(case):
    facts, findings, verdict = _issue(case["text"])
    contrast = claims.asked_contrast(facts)
    if case["expect"] == "asked":
        assert contrast is not None
        assert verdict.category != "healthy"
        assert not [f for f in findings if f.rule == "ticket.nothing_broken" and f.severity == "ok"]
    else:
        assert contrast is None


def test_v1_memory_question_was_no_problem_found_and_now_asks_for_both_sides():
    """vllm-project/vllm#12529 read 'healthy' (ticket.nothing_broken passed) before the change."""
    facts, findings, verdict = _issue(next(c["text"] for c in QUESTIONS if c["url"].endswith("vllm/issues/12529")))
    (f,) = [f for f in findings if f.rule == "ticket.nothing_broken"]
    assert (f.category, verdict.category) == ("insufficient_data", "insufficient_data")
    assert "both setups" in f.ask


@pytest.mark.parametrize("sentence, asked", [
    # a gain asked as "is it normal?" is no complaint; more memory is a cost, so it is one
    ("Is it normal that TP=2 is faster?", False),
    ("Is it normal that the new version uses more memory?", True),
    # a statement, not a question; a question that compares nothing
    ("The new version uses more memory.", False),
    ("Is there more documentation about tensor parallelism?", False),
    ("Is there a better way to use multiple GPUs?", False),
    ("Which is faster for 2 GPUs, TP or PP?", False),
])
def test_the_question_and_the_loss_decide(sentence, asked):
    facts, _, _ = _issue("# question\n\n" + sentence + "\n")
    assert (claims.asked_contrast(facts) is not None) is asked


LAYOUTS = tomllib.loads((DATA / "layouts.toml").read_text())["line"]


def _layout(text: str) -> tuple[int, int, int]:
    """(TP, PP, DP) the line reads as (0: not read), in a ticket that names a model and a rate beside it."""
    records, _ = parse_text("# multi-GPU run slow\n\n" + text + "\nLlama-3-70B decodes at 30 tokens/s.\n", "issue.md")
    found = [r for r in records if isinstance(r, Workload)]
    return tuple(next((getattr(w, k) for w in found if getattr(w, k)), None) or 0 for k in ("tp", "pp", "dp"))


@pytest.mark.parametrize("case", LAYOUTS, ids=[c["src"].rsplit("/", 1)[-1] for c in LAYOUTS])
def test_tp_pp_dp_degrees_glued_or_apart(case):
    assert _layout(case["text"]) == (case["tp"], case["pp"], case["dp"])


@pytest.mark.parametrize("text, expected", [
    ("Running Llama-3-70B on 8x H100 with TP4-DP2.", (4, 0, 2)),
    ("Running Llama-3-70B on 8x H100 with tp=2,dp=4.", (2, 0, 4)),
    ("Running Llama-3-70B on 16x H100 with pp2tp4 dp2.", (4, 2, 2)),
    # llama-bench names its tests by prompt tokens ("pp512"): no stage count
    ("llama-bench pp512 gives 1500 t/s", (0, 0, 0)),
])
def test_the_brief_forms(text, expected):
    assert _layout(text) == expected


RELEASES = tomllib.loads((DATA / "releases.toml").read_text())["case"]


def _releases(text: str) -> list[str]:
    facts, _, _ = _issue(text)
    found = [c for c in claims.claims(facts) if c.kind == "engine_versions_compared"]
    return found[0].data["versions"] if found else []


@pytest.mark.parametrize("case", RELEASES, ids=[c["src"].rsplit("/", 1)[-1] for c in RELEASES])
def test_releases_compared_loosely(case):
    assert _releases(case["text"]) == case["versions"]


def test_no_engine_named_leaves_the_engine_open():
    """bupstash#44 names no engine: the releases are compared, the engine is left None (was no claim at all)."""
    facts, _, _ = _issue(RELEASES[0]["text"])
    (c,) = [c for c in claims.claims(facts) if c.kind == "engine_versions_compared"]
    assert c.data["engine"] is None


@pytest.mark.parametrize("sentence, versions", [
    # the brief's wording: an equality denied holds the releases against each other as "worse than" does
    ("vllm 0.6.3 throughput with Llama-3-8B on A100 TP=2 is not as good as 0.5.4.", ["0.6.3", "0.5.4"]),
    ("vllm 0.6.3 throughput with Llama-3-8B on A100 TP=2 is as good as 0.5.4.", []),
])
def test_an_equality_denied(sentence, versions):
    assert _releases("# regress\n\n" + sentence + "\n") == versions


@pytest.mark.parametrize("text", [
    # a model's versions are no engine's releases (the brief's "model v0.2"), said before the comparative
    "With the model v0.2.0 decoding is slower than with the model v0.1.0 on vLLM 2x A100.",
    "Our fine-tune: Qwen v2.5.1 is slower than v1.5.0 in tokens/s.",
])
def test_model_versions_are_no_releases(text):
    assert _releases("# question\n\n" + text + "\n") == []
