"""One stream's idle compute asked about (rules.ticket_questions.memory_bound_decode): decode at batch 1 is
memory-bound, and the answer carries the predictor's memory and tensor-core times for the stated layout. The texts
are paraphrases written for these tests (other engines, GPUs, languages and word orders), with the negations and the
contrary layouts the rule must stay silent on."""

import pytest

from diagnose.artifacts import parse_text
from diagnose.evidence import Facts
from rules.engine import evaluate, ticket_verdict

RULE = "ticket.memory_bound_decode"


def _ticket(text: str):
    records, _ = parse_text(text, "issue.md")
    facts = Facts()
    facts.add(*records)
    findings = evaluate(facts)
    return [f for f in findings if f.rule == RULE], ticket_verdict(facts, findings)


@pytest.mark.parametrize("text", [
    "# GPU barely used at batch size 1\n\nLlama-2-13B fp16 on an A100 80GB with TensorRT-LLM. At batch size 1, nsys "
    "shows tensor cores mostly idle and compute throughput around 5%. Is this normal, or is something misconfigured?\n",
    "# Wasting the GPU?\n\nServing Qwen2.5-7B-Instruct to a single user on one L40S with SGLang, MFU is only 2%. "
    "Are we wasting the GPU?\n",
    "# 算力利用率低\n\n单请求推理 Llama-3-8B-Instruct，单张 H100，算力利用率很低，这正常吗？\n",
    "# idle compute\n\nLlama-2-13B fp16 on four A100 80GB with TensorRT-LLM at tp=4, one request at a time: compute "
    "utilization is low. Is this normal?\n",
    # one stream in the few_requests claim's words (one vocabulary): a benchmark's concurrency of one, 单用户
    "# MFU\n\nbenchmark_serving with --max-concurrency 1 against vLLM serving Llama-3-8B-Instruct on one H100 SXM: "
    "MFU is only 3%. Is that expected?\n",
    "# 张量核心闲置\n\n单用户使用 vLLM 推理 Qwen2.5-7B-Instruct，单张 L40S，张量核心大部分时间闲置，正常吗？\n",
])
def test_idle_compute_of_one_stream_is_memory_bound_physics_with_the_predicted_times(text):
    (f,), v = _ticket(text)
    assert f.category == v.category == "expected_physics" and v.confidence < 0.7
    memory = next(e.expected for e in f.evidence if e.detail.startswith("memory time per step"))
    compute = next(e.expected for e in f.evidence if e.detail.startswith("tensor-core time per step"))
    assert memory > 10 * compute  # the physics the answer rests on, from the predictor, not a constant


@pytest.mark.parametrize("text", [
    # ruled out: the compute is busy
    "# Tensor cores\n\nLlama-2-13B fp16 on an A100 80GB with TensorRT-LLM at batch size 1. The tensor cores are not "
    "idle, they are busy all the time. Is this normal?\n",
    # a large batch: decode there can be compute-bound, idle compute is not explained by batch-1 physics
    "# Tensor cores idle at large batch\n\nLlama-2-13B fp16 on an A100 80GB with TensorRT-LLM at batch size 256: the "
    "tensor cores are mostly idle. Is this normal?\n",
    # (cr10 #6) a stated batch above 1 beside words of one stream: the batch decides, not the text scan
    "# MFU\n\nQwen2.5-7B-Instruct on one L40S with SGLang, batch size 128; a single request's latency looks fine. "
    "MFU is only 4%. Is this expected?\n",
    "# idle\n\nLlama-2-13B fp16 on an A100 80GB with vLLM, --max-num-seqs 64 and batch=64, one user at a time "
    "would be faster. The tensor cores are mostly idle. Normal?\n",
    # several GPUs and no layout stated: the rule does not guess one
    "# idle compute\n\nLlama-2-13B fp16 on four A100 80GB with TensorRT-LLM, one request at a time: compute "
    "utilization is low. Is this normal?\n",
    # one stream ruled out in words, no batch stated
    "# MFU\n\nLlama-2-13B fp16 on one A100 80GB with vLLM, not one request at a time but 64 concurrent ones: MFU "
    "is only 4%. Is this expected?\n",
    # nvidia-smi's utilisation is another reading (time a kernel runs), not the tensor cores
    "# low util\n\nLlama-2-13B fp16 on one A100 80GB with vLLM, one request at a time: GPU-Util is only 40%. "
    "Is this normal?\n",
])
def test_idle_compute_is_not_called_physics_when_ruled_out_batched_or_unlaid(text):
    found, _ = _ticket(text)
    assert not found


# (review r13c) few requests ruled out inside its own words: "the batch size is definitely not small" matched the
# few_requests pattern "batch size ... small", so one stream's batch-1 figures answered a ticket of 64 users.
RULED_OUT_INSIDE = [
    "# MFU\n\nLlama-2-13B fp16 on one A100 80GB with vLLM serving 64 concurrent users; the batch size is definitely "
    "not small. MFU is only 4%. Is this expected?\n",
    "# tensor cores idle\n\nQwen2.5-7B-Instruct on one L40S with SGLang: our concurrency isn't low at all, yet the "
    "tensor cores sit mostly idle. Normal?\n",
    "# low MFU\n\nMistral-7B bf16 on one H100 SXM with TensorRT-LLM, and the number of requests is never small "
    "during the day; compute utilization is only 3%. Is something misconfigured?\n",
]


@pytest.mark.parametrize("text", RULED_OUT_INSIDE)
def test_few_requests_ruled_out_inside_its_words_is_not_one_stream(text):
    from rules import claims

    found, _ = _ticket(text)
    assert not found
    records, _ = parse_text(text, "issue.md")
    facts = Facts()
    facts.add(*records)
    assert not claims.find(facts, "few_requests") and claims.find(facts, "few_requests", negated=True)


@pytest.mark.parametrize("text", [t.replace("definitely not small", "small").replace("isn't low at all", "is low")
                                  .replace("is never small", "is small") for t in RULED_OUT_INSIDE[1:]])
def test_few_requests_affirmed_in_the_same_words_still_reads_as_one_stream(text):
    found, _ = _ticket(text)
    assert found and found[0].category == "expected_physics"
