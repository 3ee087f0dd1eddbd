"""Issue 11 (session 19, h9): "unable to reproduce the throughput", "can't match the reported numbers": a run short of
a published figure is a performance complaint (symptom "slow"), not a failure; "unable to load the model" stays an
error, and "I can reproduce the numbers" is no complaint. An offline throughput benchmark (trtllm-bench throughput,
vLLM's benchmark_throughput) queues every prompt at once: its total is a full load's, never "a small batch's
throughput".
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_ticket_isnormal_names import issue

from diagnose.artifacts import launch
from diagnose.evidence import Workload
from rules import claims

CASES = Path(__file__).parent / "data" / "tickets"

# --------------------------------------------------------------------------- A: a published figure not reached


@pytest.mark.parametrize("text", [
    # https://github.com/junkurihara/rust-rpxy/issues/551
    "I'm unable to reproduce the benchmark results described in this repo.",
    # https://github.com/vllm-project/vllm/issues/8244
    "Following the blog post [announcement](https://blog.vllm.ai/2024/07/23/llama31.html), I tried to replicate these "
    "numbers, but I got much lower throughput than what is reported.",
    # https://github.com/Sys-KU/DeepPlan/issues/6
    "The method described in the README of this repo for reproducing Figure 12 does not actually reproduce the "
    "throughput.",
    # https://github.com/dusty-nv/jetson-containers/issues/532 (development case u8a09's title)
    "Cannot Reproduce the Published Benchmarking Result on Jetson AI Lab Webpage",
    # https://github.com/NVIDIA/TensorRT-LLM/issues/6294 (development case u15a04's title)
    "[Performance issue] Unable to Reproduce the Throughput of Llama 3.1 8B FP8 on H100",
])
def test_a_published_figure_not_reached_is_a_performance_complaint(text):
    facts = issue(text)
    assert claims.symptom(facts) == "slow"


@pytest.mark.parametrize("text", [
    "I can reproduce the numbers from the blog post.",
    "I was able to match the published figures on our H100 node.",
])
def test_a_figure_reproduced_is_no_complaint(text):
    assert claims.symptom(issue(text)) not in ("slow", "error")


@pytest.mark.parametrize("text", [
    # https://github.com/vllm-project/vllm/issues/6407
    "when i set tensor_parallel_size>1(A100 * 4), it does not work",
    "unable to load the model",
    "I cannot reproduce the bug on main, but the server fails to start with TP=2.",
])
def test_a_failure_with_unable_to_stays_an_error(text):
    assert claims.symptom(issue(text)) == "error"


@pytest.mark.parametrize("command, offline", [
    ("trtllm-bench --model nvidia/Llama-3.1-8B-Instruct-FP8 throughput --dataset /workspace/128_128_30000.jsonl "
     "--backend pytorch", "trtllm-bench throughput"),
    ("python benchmarks/benchmark_throughput.py --model meta-llama/Llama-2-7b-hf --input-len 128 --output-len 128",
     "benchmark_throughput.py"),
    ("vllm bench throughput --model meta-llama/Llama-2-7b-hf --num-prompts 1000", "vllm bench throughput"),
    ("trtllm-bench --model meta-llama/Llama-3.1-8B latency --dataset data.jsonl", None),  # one request at a time
    ("vllm bench serve --model meta-llama/Llama-2-7b-hf --request-rate 4", None),  # an online server's load
])
def test_offline_throughput_benchmarks_are_read_from_their_launch_line(command, offline):
    said = [w.extra.get("offline_bench") for w in launch._command(command, "issue.md:3") if isinstance(w, Workload)]
    assert (offline in said) if offline else not any(said)


def test_an_offline_benchmarks_total_is_never_called_a_small_batch():
    """u15a04: 7,099 tok/s from trtllm-bench throughput on one H100 PCIe against the published 27,688 (an SXM figure).
    The run queued its whole dataset: the finding prices it at full load, not as a small batch's throughput."""
    from diagnose.bundle import read_bundle
    from diagnose.commands.ticket import ticket_predictions
    from rules.engine import evaluate, ticket_verdict

    folder = CASES / "u15a04-trtllm-llama31-8b-fp8-1x-h100-pcie-7099-vs-27688-published"
    copy = Path(__file__).parent / ".." / ".pytest_cache" / "h9-u15a04"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("expected.toml"))
    try:
        facts = read_bundle([copy])
        findings = evaluate(facts, ticket_predictions(facts))
        verdict = ticket_verdict(facts, findings)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    assert claims.symptom(facts) != "error"
    rates = [f for f in findings if f.rule == "ticket.batched_rate"]
    assert rates and all(f.category != "latency_bound_small_batch" for f in rates)
    assert "full load" in rates[0].title and "trtllm-bench throughput" in rates[0].title
    assert verdict.category != "latency_bound_small_batch"
