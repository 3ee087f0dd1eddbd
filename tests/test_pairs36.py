"""Comparison sets the reporter gives (issue 11 point 1, pass pairs36): one tensor-parallel model against copies of it
(rules/claims.py sharding_beats_replicas, replicas_beat_sharding; ticket.scaling_question), and two rates of the same
hardware that differ in one piece of software (rules/software_pairs.py, ticket.software_pair). The real pastes are
the kept first posts of tests/data (audit36 group P); the sentences are paraphrases written for these tests."""

from pathlib import Path

import pytest
from conftest import judged_issue
from test_ticket_numbers import _said

from rules import claims, software_pairs

DATA = Path(__file__).parent / "data"


# --------------------------------------------------------------------------- real pastes

def test_tp2_beating_two_solo_engines_is_physics():
    """forums.developer.nvidia.com t/364926: "Why does Cluster TP=2 beat 2x Solo + LiteLLM proxy at low/mid
    concurrency?"; settled: one request on TP=2 gets both nodes' bandwidth, the copies win only at c64."""
    verdict, found = judged_issue(folder=None, text=(DATA / "ut26c/spark_tp2_vs_2solo.md").read_text())
    assert verdict.category == "expected_physics"
    assert "copies" in found["ticket.scaling_question"].title
    # --enforce-eager is in every arm's recipe and costs the TP side most: a lead below the line, not the verdict
    assert found["ticket.eager_flag"].severity == "info" and found["ticket.eager_flag"].confidence < 0.4


def test_own_script_against_the_official_benchmark_is_the_client():
    """sgl-project/sglang#4076: 6.79 req/s from the reporter's script against 15.75 from the official benchmark on one
    L4; settled: the script's own way of sending the prompts (other)."""
    verdict, found = judged_issue(text=(DATA / "load30/sglang4076.md").read_text())
    assert verdict.category == "other"
    f = found["ticket.software_pair"]
    assert "two clients" in f.title and "x2.32" in f.title
    ratio = next(e for e in f.evidence if e.unit == "x")
    assert (ratio.measured, ratio.expected) == (2.32, 1.0)


@pytest.mark.xfail(strict=True, reason="vllm-project/vllm#21029: V0 2209.84 against V1 1104.71 tok/s is read as a "
                   "pair (ticket.software_pair, other), but the settled cause is that vLLM's V1 ran Mamba2 layers "
                   "eager until PR 21194 (eager_mode); that release-bounded fact is not in the catalog")
def test_v0_against_v1_on_mamba2_is_eager_mode():
    verdict, _ = judged_issue(text=(DATA / "physics31/vllm21029.md").read_text())
    assert verdict.category == "eager_mode"


def test_v0_and_v1_blocks_are_read_as_one_pair():
    facts = _said((DATA / "physics31/vllm21029.md").read_text())
    pair = software_pairs.software_pair(facts)
    assert pair["factor"] == "engine mode"
    assert [(m[0], m[1]) for m in pair["members"]] == [("V0", 2209.84), ("V1", 1104.71)]


# --------------------------------------------------------------------------- one TP model against copies

@pytest.mark.parametrize("sentence", [
    "Why does TP=2 beat 2x solo instances at low concurrency?",
    "Tensor parallelism is faster than data parallelism here.",
    "One TP=4 instance outperforms four separate instances for a single user.",
    "Two independent vLLM engines are slower than one TP=2 engine at c1.",
    "DP=2 gives lower throughput than TP=2 with only a few requests.",
    "With SGLang, --tp 2 is faster than --dp 2 for a single request.",
])
def test_the_sharded_model_winning_is_read(sentence):
    assert [c.kind for c in claims.sharding_beats_replicas(_said(sentence))] == ["sharding_beats_replicas"]
    assert claims.replicas_beat_sharding(_said(sentence)) == []


@pytest.mark.parametrize("sentence", [
    "TP=2 is not faster than two separate instances.",  # ruled out
    "My expectation: 2x solo should always beat TP=2 on total throughput.",  # an expectation, not a result
    "I expected TP=2 to be faster than DP=2.",  # the same, the other way
    "Running two replicas gives higher throughput than one TP=2 instance.",  # the copies won
    "We run TP=2 and two solo instances on different days.",  # no comparison
    "Solo is faster than TP=2 for one request.",  # one engine alone, no copies of it
])
def test_no_sharded_win_where_none_is_measured(sentence):
    assert claims.sharding_beats_replicas(_said(sentence)) == []


def test_an_expected_replica_win_is_no_measured_one():
    assert claims.replicas_beat_sharding(_said("Two replicas should give higher throughput than TP=2.")) == []
    assert [c.kind for c in claims.replicas_beat_sharding(_said("Two replicas give higher throughput than TP=2."))] \
        == ["replicas_beat_sharding"]


# --------------------------------------------------------------------------- two rates, one software factor

@pytest.mark.parametrize("text,factor,ratio", [
    ("V0:\nOutput token throughput (tok/s): 900\n\nV1:\nOutput token throughput (tok/s): 600\n", "engine mode", 1.5),
    ("I get 80 t/s with ollama and 130 t/s with llama.cpp on the same card.", "wrapper or engine", 1.625),
    ("Our own script got 4.1 req/s while the official benchmark got 9.0 req/s.", "client", 2.195),
    ("**Ollama:**\n\neval rate: 42 tokens/s\n\n**llama.cpp:**\n\neval rate: 61 tokens/s\n", "wrapper or engine",
     1.452),
])
def test_a_software_pair_is_read(text, factor, ratio):
    pair = software_pairs.software_pair(_said(text))
    assert pair["factor"] == factor and pair["ratio"] == pytest.approx(ratio, abs=0.01)


@pytest.mark.parametrize("text", [
    "Prefill:\n2000 tok/s\n\nDecode:\n40 tok/s\n",  # two phases, not two setups
    "TP1:\n30 tok/s\n\nTP2:\n45 tok/s\n",  # two layouts: the scaling checks' pair
    "The README says llama.cpp does 130 t/s and I get 80 t/s with ollama.",  # someone else's figure
    "I get 80 t/s with ollama but I want 130 t/s with llama.cpp.",  # a figure and a target
    "vLLM on the A100:\n120 tok/s\n\nSGLang on the H100:\n200 tok/s\n",  # two factors at once
    "V0:\n2.1 req/s\n\nV1:\n900 tok/s\n",  # units that differ
    "My own script gets 40 tok/s but the official claims 80 tok/s.",  # a published figure, not a run of theirs
    "Our own script gets 40 tok/s while the official results page lists 80 tok/s.",  # the same, in other words
])
def test_no_software_pair_without_one_factor_and_one_unit(text):
    assert software_pairs.software_pair(_said(text)) is None


def test_a_small_gap_between_the_pair_is_no_finding():
    verdict, found = judged_issue(text="# Is ollama slower than llama.cpp?\n\nI get 100 t/s with ollama and 110 t/s "
                                       "with llama.cpp on my RTX 4090.")
    assert "ticket.software_pair" not in found  # x1.10, below MIN_GAP


def test_a_wide_software_gap_names_the_slower_side():
    _, found = judged_issue(text="# Ollama much slower than llama.cpp\n\nI get 60 t/s with ollama and 130 t/s with "
                                 "llama.cpp, same GGUF, same RTX 4090. Why?")
    f = found["ticket.software_pair"]
    assert f.category == "other" and f.title.startswith("with llama.cpp 130 against with ollama 60")


def test_a_proxy_in_front_of_the_engine_is_the_serving_layers_pair():
    _, found = judged_issue(text="# Slow through the proxy\n\nRequests through the LiteLLM proxy are much slower: "
                                 "calling vLLM directly gives 900 tok/s, through LiteLLM 300 tok/s. Why?")
    assert "ticket.software_pair" not in found and found["ticket.serving_layer"].category == "host_bound"
