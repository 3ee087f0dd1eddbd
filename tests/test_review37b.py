"""Precision review of the readings and gates para37 and risks37 widened (pass review37b, issue 11): each widened
reading probed with texts written as reporters write them, near-misses that must not fire, negations, questions and
conditionals (tests/data/review37b/NOTES.md lists every probe with its result before and after). Real kept pastes
first in each section where one exists."""

from pathlib import Path

import pytest
from conftest import judged_issue
from test_ticket_numbers import _said

from rules import claims, cpu_only, software_pairs
from rules.failure_words import failure_said

DATA = Path(__file__).parent / "data"


def _kind(text: str, kind: str):
    return [c for c in claims.claims(_said(text)) if c.kind == kind and not c.negated and not c.guess]


# =========================================================================== multi-node with no count (para37)

def test_a_cuda_peer_access_error_between_nodes_0_and_1_is_no_multi_node_job():
    """Real paste (para37/u7c03, TensorRT-LLM on 2x A10): "Can't enable access between nodes 0 and 1" is CUDA peer
    access between two GPUs of one box; para37's count-less reading took it for a multi-node job."""
    from diagnose.bundle import read_bundle
    facts = read_bundle([DATA / "para37/u7c03-trtllm-080-2xa10-phb-cannot-enable-access-between-nodes/b.md"])
    assert not [c for c in claims.claims(facts) if c.kind == "multi_node" and not c.negated]


@pytest.mark.parametrize("text", [
    "We put nginx as a load balancer across servers, each server runs its own vLLM instance with TP=2 on 2x A100.",
    "I tried it across machines, each on its own: on every machine the single 4090 gives 40 tok/s.",
    "We run many independent replicas across our servers, no communication between them.",
    "The results were consistent across machines: tp=2 is slower than tp=1 on every box.",
    "I compared the throughput between servers: the H100 box gives 3000 tok/s, the A100 box 1800 tok/s.",
    "Latency differs between machines even though they have the same GPUs.",
    "Requests are distributed among servers by Kubernetes; each pod has one GPU.",
    "The speed varies across machines in our cluster.",
])
def test_machines_compared_or_apart_are_no_multi_node_job(text):
    assert not _kind(text, "multi_node")


@pytest.mark.parametrize("text", [
    "We run pipeline parallel across nodes with Ray and it is very slow.",
    "The NCCL all-reduce between nodes only reaches 2 GB/s.",
    "There is 400 Gb/sec of bandwidth available between the machines.",
    "A job across machines gets stuck where NCCL starts.",
    "When I go across servers (GDR is on), the bus bandwidth gets lower.",
])
def test_one_job_over_machines_is_still_multi_node(text):
    assert _kind(text, "multi_node")


# =========================================================================== utilisation contrast (para37)

@pytest.mark.parametrize("text", [
    "The GPU utilization is 99% on both cards, yet the KV cache usage only 30%.",
    "GPU utilization is 97%, but MFU only 25%.",
    "GPU utilization: 100%, but SM occupancy only 35%.",
    "GPU utilization reaches 100%, but GPU memory only 40%.",
    "GPU utilization is 100%, but the power draw is only 30% of the TDP.",
])
def test_another_share_after_the_contrast_is_no_gpu_utilisation(text):
    assert len(_kind(text, "gpu_util")) == 1  # the GPU's own figure only


@pytest.mark.parametrize("text,low", [
    ("GPU utilization is 90% with the offline LLM class, but the API server just 45%.", 45),
    ("With vllm the GPU util is 95%; sglang only 60%.", 60),
])
def test_the_other_side_of_a_utilisation_contrast_is_still_read(text, low):
    assert low in [c.data["percent"] for c in _kind(text, "gpu_util")]


# =========================================================================== SW Power Cap draw (para37)

@pytest.mark.parametrize("text,draw", [
    ("My RTX 4090 shows SW Power Cap at about 240W under full load.", 240),
    ("On my other machine, an RTX 3060, SW Power Cap appears at 170W, but this 4090 shows SW Power Cap : Active.",
     None),
    ("SW Power Cap : Active. In a forum thread someone said SW Power Cap hits at 200 W on their 3080.", None),
    ("Does SW Power Cap kick in at 300 W on a 4090?", None),
])
def test_the_cap_draw_is_the_reporters_own_board(text, draw):
    assert claims.cap_draw(text) == draw


# =========================================================================== failure words (risks37)

@pytest.mark.parametrize("sentence", [
    "I read in #1234 that someone got wrong answers with this model, but my outputs are fine, it is only slow.",
    "The client times out after 60 s and returns an empty response, because generation takes so long.",
    "The log shows HTTP 503 Service Unavailable once at startup while the model loads, then everything works.",
    "Unlike issue #500 where the model produced garbled output, my problem is only the speed.",
    "If the output is wrong, I would expect an error, but here it is correct, only slow.",
    "The health check returns 503 until the model has loaded, which takes 10 minutes.",
    "Earlier versions had a bug where the outputs were garbage; that was fixed in 0.5 and now it is just slow.",
    "With a timeout of 30 s some clients never get a response because the queue is so long.",
    "Does the loss become NaN with bf16 on V100?",
    "Should I worry that the answers are empty when max_tokens=0?",
])
def test_a_failure_not_the_reporters_now_is_set_aside(sentence):
    assert failure_said(_said(sentence)) is None


@pytest.mark.parametrize("sentence", [
    "When trying to serve it throws an internal error.",  # ut16/nccl1591's words: "when" dates an observation
    "I waited ten minutes and never got a response.",
    "After the upgrade the model returns wrong answers for every prompt.",
])
def test_the_reporters_own_failure_still_counts(sentence):
    assert failure_said(_said(sentence)) is not None


# =========================================================================== software pair (risks37)

@pytest.mark.parametrize("text", [
    "vLLM gives 80 tok/s and llama.cpp gives 30 tok/s on the same RTX 4090 with the same Llama 3 8B in fp16. "
    "Neither uses speculative decoding.",
    "vLLM gives 80 tok/s and Ollama gives 30 tok/s on my RTX 4090 with Llama 3 8B. No CPU offload on either side.",
    "vLLM 80 tok/s vs TGI 30 tok/s on the same A100. I have not tried speculative decoding yet.",
    "vLLM 80 tok/s vs sglang 30 tok/s on one H100, output len 256 for both, input len 512 for both.",
    "vLLM 80 tok/s vs sglang 30 tok/s on one H100. Should I try a draft model?",
])
def test_a_second_difference_only_mentioned_is_none(text):
    assert software_pairs._other_difference(_said(text), "software") is None


@pytest.mark.parametrize("text,what", [
    ("vLLM 80 tok/s with speculative decoding, TGI 30 tok/s without.", "speculative decoding"),
    ("llama.cpp offloads the rest to the CPU, vLLM fits it all: 30 vs 80 tok/s.", "part of the model on the CPU"),
    ("bench: --random-input-len 1024 on vLLM, --random-input-len 128 on sglang", "request length"),
])
def test_a_second_difference_said_of_one_run_counts(text, what):
    assert software_pairs._other_difference(_said(text), "software").startswith(what)


# =========================================================================== CPU-only run (risks37)

@pytest.mark.parametrize("text", [
    "Slow llama.cpp on CPU\n\nI run llama.cpp CPU only on a Xeon server with no GPU. I offload nothing since there is "
    "no card. 7B Q4 gives 3 tok/s. Is this normal?",
    "CPU only is slow\n\nI run llama.cpp CPU-only on purpose on an EPYC box without a GPU, 4 tok/s for a 13B Q4. In "
    "another thread someone said it falls back to CPU when the drivers are missing, but mine is meant to run on the "
    "CPU anyway. Is this normal?",
])
def test_offload_ruled_out_or_a_fallback_someone_else_saw_keeps_the_cpu_answer(text):
    verdict, _ = judged_issue(text)
    assert verdict.category == "expected_physics"


def test_a_fallback_in_the_reporters_log_is_still_no_cpu_setup():
    text = "Ollama runs in CPU mode on my PC, 2 tok/s with llama3 8b. The log says it falls back to CPU. Is it normal?"
    assert cpu_only.cpu_only_said(_said(text)) is None


# =========================================================================== smaller readings (para37)

@pytest.mark.parametrize("text,symptom", [
    ("With CUDA_VISIBLE_DEVICES=0 set on purpose, only one GPU ran, as intended. How do I check the other GPU?",
     "other"),
    ("vLLM with tp=4 on 4x A100. nvidia-smi shows only 1-2 GPUs run at a time, the rest are idle.", "slow"),
    ("双卡推理时CPU占用提升不明显。", "other"),
    ("用了4张卡，加速不明显。", "scaling"),
])
def test_symptom_readings(text, symptom):
    assert claims.symptom(_said(text)) == symptom


@pytest.mark.parametrize("text,read", [
    ("The tokenizer is fast and not the bottleneck; the model runs on the GPU.", False),
    ("Tokenization takes 2 ms, so it doesn't matter that it happens on cpu.", False),
    ("The tokenizer isn't the bottleneck.", False),
    ("The tokenizer is slow because it's only running on cpu.", True),
    # para37/u414 b's words: a negation elsewhere in the clause does not rule the CPU out
    ("the tokenization doesn't seem to touch the gpu, it's only running on cpu.", True),
])
def test_a_host_part_ruled_out_is_not_read(text, read):
    assert bool(_kind(text, "cpu_ab")) == read
