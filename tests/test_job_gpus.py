"""The GPUs a job runs on, read apart from the GPUs its machine or cloud instance has: "on one GPU of a
g6.48xlarge" is a one-GPU layout, not the instance's eight. Paraphrases, Docker's flags, CUDA_VISIBLE_DEVICES, and
the forms that are no job count (a model that does not fit, a GPU that failed, a reading per GPU)."""

import pytest

from diagnose.artifacts import parse_text
from diagnose.evidence import Facts, Workload
from rules.common import gpu_count, job_gpus
from rules.engine import evaluate, ticket_verdict


def _facts(text: str) -> Facts:
    records, _ = parse_text(text, "issue.md")
    facts = Facts()
    facts.add(*records)
    return facts


def _job(text: str):
    found = job_gpus(_facts("# Slow decode on our server\n\n" + text))
    return found[0] if found else None


@pytest.mark.parametrize("text,n", [
    ("I serve Qwen2.5-7B with SGLang on one GPU of a p4d.24xlarge and get 40 tok/s.", 1),
    ("Running Mistral-7B on a single GPU of the 8 in our DGX A100, decode is 60 tok/s.", 1),
    ("We benchmarked with 1 GPU out of the four H100s in the box.", 1),
    ("The server has 4x A10G; vLLM is pinned to only GPU 2.", 1),
    ("The model is loaded onto just one of the eight L4 cards.", 1),
    ("TGI runs on GPU 0 only, on a g5.12xlarge.", 1),
    ("We start it with\n```\ndocker run --gpus 1 vllm/vllm-openai --model meta-llama/Llama-3.1-8B\n```", 1),
    ("We start it with\n```\ndocker run --gpus '\"device=0,1\"' vllm/vllm-openai --model Qwen/Qwen2.5-7B\n```", 2),
    ("We start it with\n```\ndocker run --gpus device=3 ghcr.io/huggingface/text-generation-inference\n```", 1),
    ("```\nCUDA_VISIBLE_DEVICES=0 vllm serve meta-llama/Llama-3.1-8B\n```\nOn an 8x H100 node.", 1),
    ("```\nCUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve meta-llama/Llama-3.1-70B\n```\nOn an 8x H100 node.", 4),
])
def test_the_gpus_a_job_runs_on_are_read_apart_from_the_machines(text, n):
    assert _job(text) == n


@pytest.mark.parametrize("text", [
    "Llama-3.1-70B does not fit on a single GPU of the node, so we use all 8.",
    "The 70B model needs more than one GPU of this size.",
    "One GPU is at 100 % while the others idle, on our 8x A100.",
    "One GPU of the 8 failed last night with an XID 79.",
    "We see 40 GB used per GPU on the p4d.24xlarge.",
    "One GPU is slower than the others on the g6.48xlarge.",
    "It seems the server only uses one GPU out of four.",
    "The job runs on one GPU of the 8, which is failing with ECC errors.",
    "Why is the model not running on one GPU of the 8 instead of all of them? It is on a g6.48xlarge.",
    "We start it with\n```\ndocker run --gpus all vllm/vllm-openai --model meta-llama/Llama-3.1-8B\n```",
    "```\nCUDA_VISIBLE_DEVICES=0 python a.py\nCUDA_VISIBLE_DEVICES=1 python b.py\n```",
])
def test_forms_that_are_no_job_count_leave_the_machines(text):
    assert _job(text) is None


def test_a_job_on_one_gpu_of_an_instance_is_priced_on_one_gpu():
    """The instance's eight GPUs are the machine's; the figure is judged at TP=1, and no topology is asked for."""
    text = ("# Slow decode\n\nI run Llama-3.1-8B with vLLM on one GPU of a g6.48xlarge; a single request decodes "
            "at 9 tok/s.\n")
    facts = _facts(text)
    assert gpu_count(facts) == 1
    findings = evaluate(facts)
    rows = [e for f in findings if f.rule == "ticket.measured_vs_expected" for e in f.evidence]
    assert any("TP=1" in e.detail and "one GPU" in e.detail for e in rows), [e.detail for e in rows]
    assert not any(f.rule == "workload.evidence_coverage" for f in findings)
    ticket_verdict(facts, findings)
    # the same sentence without the job's GPUs: the instance's eight, split by the engine (assumed)
    whole = _facts(text.replace(" on one GPU of a g6.48xlarge", " on a g6.48xlarge"))
    assert job_gpus(whole) is None and gpu_count(whole) == 8


def test_a_stated_tp_still_wins_over_the_words():
    facts = _facts("I run vLLM with --tensor-parallel-size 2 on one GPU of a g6.48xlarge (really two of them).")
    assert facts.workload().tp == 2
    assert any(isinstance(r, Workload) and r.extra.get("job_gpus") == 1 for r in facts.records)


def _layout_rows(text: str) -> list[str]:
    facts = _facts("# Slow decode\n\n" + text)
    return [e.detail for f in evaluate(facts) if f.rule == "ticket.measured_vs_expected" for e in f.evidence
            if e.detail.startswith("decode rate at")]


@pytest.mark.parametrize("engine", ["vLLM", "SGLang"])
def test_an_engine_that_runs_one_gpu_unless_told_is_assumed_on_one(engine):
    """vLLM's --tensor-parallel-size and SGLang's --tp-size default to 1: one stream's figure, no layout stated, a
    model that fits one L4, is priced at TP=1 and says it assumed the engine's default."""
    rows = _layout_rows(f"I run Llama-3.1-8B with {engine} on a g6.48xlarge; a single request decodes at 9 tok/s.")
    assert rows and "TP=1" in rows[0] and "default layout, one GPU" in rows[0] and "assumed" in rows[0], rows


@pytest.mark.parametrize("text", [
    # TGI shards over every GPU it sees unless told (text-generation-launcher --sharded)
    "I run Llama-3.1-8B with TGI (text-generation-inference) on a g6.48xlarge; a single request decodes at 9 tok/s.",
    # a model that does not fit one L4 was split by the reporter, whatever the default
    "I run Llama-3.1-70B with vLLM on a g6.48xlarge; a single request decodes at 9 tok/s.",
    # faster than one L4's roofline for the model: more GPUs made it
    "I run Llama-3.1-8B with vLLM on a g6.48xlarge; a single request decodes at 40 tok/s.",
])
def test_the_default_is_not_assumed_where_the_engine_or_the_figure_rules_it_out(text):
    rows = _layout_rows(text)
    assert rows and all("TP=8" in r and "splits the model over the 8 GPUs" in r for r in rows), rows
