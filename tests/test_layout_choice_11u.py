"""Issue 11 (s12-11u): "replicas or tensor parallelism, which is better?" asked with nothing broken.

The documented answer (vLLM's parallelism guide: a model that fits one GPU needs no distributed inference; tensor
parallelism is for a model too large for one GPU) is expected physics: shard only as far as the model needs, serve
the rest as replicas. Before, a question naming both layouts without saying which won ended `healthy` ("nothing
broken") or `insufficient_data`. Tested on two real threads (tests/data/layout_choice/SOURCES.md), on a
development case, and on paraphrases and negations written here.
"""

from pathlib import Path

import pytest
from conftest import REPO

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules import claims
from rules.engine import evaluate, ticket_verdict

DATA = REPO / "tests" / "data" / "layout_choice"
ANSWER = "Replicas or one tensor-parallel model"


def _facts_of(tmp_path: Path, text: str):
    (tmp_path / "issue.md").write_text(text)
    return read_bundle([tmp_path / "issue.md"])


def _judged(facts):
    findings = evaluate(facts, ticket_predictions(facts))
    return ticket_verdict(facts, findings), findings


def _answered_as_physics(facts) -> bool:
    verdict, findings = _judged(facts)
    return verdict.category == "expected_physics" and any(f.title.startswith(ANSWER) for f in findings)


def test_real_thread_ddp_or_tp_when_the_model_fits():
    facts = read_bundle([DATA / "vllm293.md"])
    found = claims.layout_choice_asked(facts)
    assert found and "DDP" in found[0].quote and found[0].source.startswith("vllm293.md")
    verdict, findings = _judged(facts)
    assert verdict.category == "expected_physics"
    answer = next(f for f in findings if f.rule == "ticket.scaling_question")
    assert answer.title.startswith(ANSWER)
    assert any("DDP" in e.detail for e in answer.evidence)  # the question it answers, quoted with its line


def test_real_thread_one_instance_or_several_on_eight_gpus():
    facts = read_bundle([DATA / "vllm13442.md"])
    found = claims.layout_choice_asked(facts)
    assert found and not found[0].data["tp_named"]  # "a single vLLM instance" stands for the sharded layout
    assert _judged(facts)[0].category == "expected_physics"


def test_development_case_two_services_or_tp2():
    case = next(p for p in (REPO / "tests" / "data" / "tickets").glob("u12b08-*"))
    assert _answered_as_physics(read_bundle([case / "issue.md"]))


@pytest.mark.parametrize("text", [
    "We have 4 L40S. Should we run four SGLang servers, one per GPU, or a single server with --tp 4?",
    "Is data parallelism or tensor parallelism better for throughput with an 8B model on 2 H100s?",
    "For Llama-3-8B on 8x A100, what are the pros and cons of 8 replicas vs TP=8?",
    "Two separate TGI deployments or one sharded deployment across both A10G cards, which would you recommend?",
    "# Multi-instance vs tensor parallel\n\nOur 7B model fits one RTX 4090. With 2 cards, is it better to start "
    "one vLLM instance on each GPU, or to set tensor_parallel_size=2?",
])
def test_paraphrases_are_answered_as_physics(tmp_path, text):
    facts = _facts_of(tmp_path, text)
    assert claims.layout_choice_asked(facts)
    assert _answered_as_physics(facts)


@pytest.mark.parametrize("text", [
    # what someone runs, no question asked
    "We run two instances, one per GPU, for the 8B model and TP=2 for the 70B model on our H100 node.",
    # the copies ruled out, the question about something else
    "I am not asking about replicas. Why does TP=2 print NCCL WARN Cuda failure 'peer access is not supported'?",
    "Without replicas or data parallelism, just TP=4 on 4 A100s: is 30 tok/s for one request normal?",
])
def test_statements_and_ruled_out_layouts_are_no_choice_question(tmp_path, text):
    assert not claims.layout_choice_asked(_facts_of(tmp_path, text))


def test_one_gpu_instances_are_not_the_sharding_choice(tmp_path):
    """Several instances against one on a single GPU is no tensor-parallel question: the claim says the sharded
    layout was not named, and the rule (which needs two GPUs then) gives no layout answer."""
    facts = _facts_of(tmp_path, "Should I run a single instance or multiple instances of Qwen2.5-7B on my one "
                                "RTX 4090, which gives more throughput?")
    assert all(not c.data["tp_named"] for c in claims.layout_choice_asked(facts))
    assert not any(f.title.startswith(ANSWER) for f in _judged(facts)[1])


def test_a_failure_is_not_answered_with_the_layout_choice(tmp_path):
    """A crash under either layout is a fault to find, not a layout to choose (scaling_asked's fault context)."""
    facts = _facts_of(tmp_path, "Two instances, one per GPU, work fine, but TP=2 hangs at NCCL init with "
                                "'unhandled system error'. Which layout should I use, or how do I fix TP?")
    verdict, findings = _judged(facts)
    assert not any(f.title.startswith(ANSWER) for f in findings)
    assert verdict.category != "expected_physics"
