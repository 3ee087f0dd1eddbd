"""Issue 11 (session s36, pass review36): misfires of this session's merged rules, found with probe texts
(tests/data/review36/NOTES.md), each fixed in the module that owns it.

- ticket.gpus_compared: a factor the ticket states ("5 times slower") past what the datasheets explain is no physics.
- ticket.stronger_gpu_slower: "three times as fast as" states a factor, not one pace (_SAME_PACE).
- ticket.cpu_only_run: an offload option (n_gpu_layers, -ngl) names a GPU; a GPU not detected or not used is a fault.
- ticket.constrained_decoding: a slowdown "with or without" the constraint is not tied to it.
- ticket.device_memory_figure: a copy at 45 % of the datasheet rate is not the memory working as built.
"""

from pathlib import Path

import pytest
from conftest import read_paste

from diagnose.commands.ticket import ticket_predictions
from rules.engine import evaluate, ticket_verdict


def _judged(tmp_path: Path, text: str):
    """(verdict, {rule id: finding}) as `diagnose ticket` gives them for `text` pasted as one ticket.md."""
    facts = read_paste(tmp_path, text)
    findings = evaluate(facts, ticket_predictions(facts))
    return ticket_verdict(facts, findings), {f.rule: f for f in findings}


# ----------------------------------------------------------------------------- gpus_compared: a stated factor

@pytest.mark.parametrize("text", [
    "# RTX 4080 much slower than RTX 3090 at token generation\n\nSame model (Llama 3 8B Q4_K_M) in llama.cpp. My RTX "
    "4080 is 5 times slower than my RTX 3090 at token generation. Why?",
    "# 3090 vs 4080\n\nIn llama.cpp token generation the RTX 3090 is 3x faster than my RTX 4080. Why is the 4080 "
    "slower than the 3090?",
    "# T4 slower than A100\n\nWhy is the T4 slower than the A100 at token generation with vLLM? The T4 is 40 times "
    "slower.",
])
def test_a_factor_past_the_datasheets_is_no_physics(tmp_path, text):
    _, found = _judged(tmp_path, text)
    assert "ticket.gpus_compared" not in found


def test_a_factor_the_bandwidth_explains_keeps_the_physics(tmp_path):
    text = ("# RTX 4080 slower than RTX 3090 at token generation\n\nSame model in llama.cpp. My RTX 4080 is slower "
            "than my RTX 3090 at token generation, about 20% fewer tok/s. Why?")
    verdict, found = _judged(tmp_path, text)
    assert found["ticket.gpus_compared"].category == "expected_physics"
    assert verdict.category == "expected_physics"


# ----------------------------------------------------------------------------- _SAME_PACE: "N times as fast as"

@pytest.mark.parametrize("text", [
    "# A100 vs A6000\n\nOur A100 is three times as fast as the RTX A6000 for Llama-2-13B decoding.",
    "# A100 vs A6000\n\nThe A100 is 3x as fast as the RTX A6000 with vLLM.",
])
def test_a_multiple_as_fast_is_no_same_pace(tmp_path, text):
    _, found = _judged(tmp_path, text)
    assert "ticket.stronger_gpu_slower" not in found


def test_same_pace_still_read(tmp_path):
    text = "# 3080 same speed as 3060\n\nThe RTX 3080 generates tokens at the same speed as the RTX 3060 in vLLM."
    _, found = _judged(tmp_path, text)
    assert found["ticket.stronger_gpu_slower"].category == "host_bound"


# ----------------------------------------------------------------------------- cpu_only_run: a GPU the run misses

@pytest.mark.parametrize("text", [
    "# llama.cpp slow\n\nCPU inference is slow even though I set n_gpu_layers=35 with llama-cpp-python, about 3 tok/s "
    "for Mistral 7B.",
    "# slow\n\nCPU only inference with llama-server -ngl 99 is slow, 4 tok/s for Qwen2.5 7B.",
    "# slow\n\nNo GPU is used, the model runs on CPU instead of my card, very slow at 3 tok/s.",
    "# slow\n\nOllama says no NVIDIA GPU detected and runs CPU only, 2 tok/s with llama3 8b. Very slow.",
])
def test_a_gpu_the_run_misses_is_no_cpu_only_setup(tmp_path, text):
    verdict, found = _judged(tmp_path, text)
    assert "ticket.cpu_only_run" not in found
    assert verdict.category != "expected_physics"


@pytest.mark.parametrize("text", [
    "# CPU only inference speed\n\nI run Llama 3 8B in fp32 CPU only on my laptop with transformers and get 2 tokens "
    "per second. Is this speed normal?",
    "# slow\n\nI don't have a GPU, so I run llama.cpp on my Ryzen 7 with 32 GB RAM. Llama 3 8B Q4 gives 6 tok/s. Is "
    "this speed normal?",
])
def test_a_cpu_only_setup_keeps_its_answer(tmp_path, text):
    verdict, found = _judged(tmp_path, text)
    assert found["ticket.cpu_only_run"].category == "expected_physics"
    assert verdict.category == "expected_physics"


# ----------------------------------------------------------------------------- constrained_decoding: not tied

@pytest.mark.parametrize("text", [
    "# slow\n\nGeneration is slow with or without guided decoding: vLLM on two L40S with TP=2 gives 12 tok/s for "
    "Llama-3-70B AWQ, TP=1 on one gives 20.",
    "# slow\n\nEven without the grammar it is slow: llama.cpp on an RTX 3090 gives 5 tok/s for Llama 3 8B Q4.",
    "# slow\n\nRegardless of JSON mode the throughput drops when we go from TP=2 to TP=4 on H100s.",
])
def test_a_slowdown_either_way_is_not_the_constraint(tmp_path, text):
    _, found = _judged(tmp_path, text)
    assert "ticket.constrained_decoding" not in found


def test_a_slowdown_with_the_grammar_stays_host_bound(tmp_path):
    text = ("# grammar slow\n\nUsing a GBNF grammar in llama.cpp makes generation much slower on my RTX 3090: 90 tok/s "
            "without it, 15 tok/s with it.")
    verdict, found = _judged(tmp_path, text)
    assert found["ticket.constrained_decoding"].category == "host_bound"
    assert verdict.category == "host_bound"


# ----------------------------------------------------------------------------- device_memory_figure: the floor

@pytest.mark.parametrize("text", [
    "# memory bandwidth low on H100\n\nWe measured a memory bandwidth of 1500 GB/s on our H100 SXM with a copy "
    "kernel. Is this too low?",
    "# memory bandwidth\n\nOur A100 80GB SXM copy kernel only reaches 900 GB/s memory bandwidth. The spec says 2039 "
    "GB/s. Why so low?",
])
def test_a_copy_at_45_percent_is_not_physics(tmp_path, text):
    verdict, found = _judged(tmp_path, text)
    f = found.get("ticket.device_memory_figure")
    assert f is None or f.category not in ("expected_physics", "healthy")
    assert verdict.category not in ("expected_physics", "healthy")


def test_a_copy_at_80_percent_still_fits(tmp_path):
    text = ("# memory bandwidth\n\nOur A100 80GB SXM copy kernel reaches 1650 GB/s memory bandwidth. The spec says "
            "2039 GB/s. Why not more?")
    _, found = _judged(tmp_path, text)
    assert found["ticket.device_memory_figure"].category in ("expected_physics", "healthy")


def test_a_bandwidth_test_five_times_low_is_a_fault(tmp_path):
    text = ("# bandwidthTest low\n\nbandwidthTest on our H100 SXM:\n```\n Device to Device Bandwidth, 1 Device(s)\n"
            " PINNED Memory Transfers\n   Transfer Size (Bytes)\tBandwidth(GB/s)\n   32000000\t\t\t650.2\n```\n"
            "Why is it so low?")
    verdict, found = _judged(tmp_path, text)
    assert found["ticket.device_memory_figure"].category == "other"
    assert verdict.category == "other"


@pytest.mark.parametrize("text", [
    "# slow\n\nI fixed the grammar of my prompt and generation is still slow at 8 tok/s on an A100 with Llama-2-70B "
    "TP=4.",
    "# slow\n\nPoor grammar in the output and the generation is slow, 8 tok/s on an A100 with Llama-2-70B TP=4.",
])
def test_a_texts_grammar_is_no_constraint(tmp_path, text):
    _, found = _judged(tmp_path, text)
    assert "ticket.constrained_decoding" not in found


def test_a_grammar_in_the_request_is_still_one(tmp_path):
    text = ("# slow\n\nThe grammar in the request slows generation down a lot in llama.cpp on my RTX 3090, from 80 to "
            "20 tok/s.")
    _, found = _judged(tmp_path, text)
    assert found["ticket.constrained_decoding"].category == "host_bound"


def test_a_failure_beside_the_constraint_is_not_answered_host_bound(tmp_path):
    text = ("# TP slow with JSON\n\nUsing JSON schema with vLLM TP=2 on two A100 is slower, and we get NCCL error: "
            "unhandled system error after a few minutes.")
    verdict, found = _judged(tmp_path, text)
    assert "ticket.constrained_decoding" not in found
    assert verdict.category != "host_bound"


# ----------------------------------------------------------------------------- p2p_refused: a reason heard, not seen

def test_a_cross_socket_reason_someone_else_gave_does_not_excuse_ns(tmp_path):
    text = ("# P2P\n\nSomeone on the forum said P2P is disabled when GPUs are on different sockets. On our box both "
            "A100 PCIe are under one CPU and nvidia-smi topo -p2p r shows NS. TP=2 slow.")
    verdict, found = _judged(tmp_path, text)
    assert found["ticket.p2p_refused"].category == "p2p_disabled"
    assert verdict.category == "p2p_disabled"


def test_the_reporters_own_cross_socket_path_stays_a_physics_lead(tmp_path):
    text = ("# slow TP\n\nP2P is disabled because the two RTX A6000 are on different NUMA nodes (SYS path). TP=2 with "
            "vLLM is slower than I expected.")
    _, found = _judged(tmp_path, text)
    assert found["ticket.p2p_refused"].category == "expected_physics"
