"""GGUF weights (llama.cpp, Ollama) are predicted with the bytes their blocks hold."""

import pytest

from diagnose.evidence import Facts, Workload
from rules import shapes
from rules.subject import Subject
from rules.workload import GGUF_GROUP, predict_layout, quant_group


def facts_of(**fields) -> Facts:
    facts = Facts()
    facts.add(Workload("issue.md:3", **fields))
    facts.subject = Subject.of(facts)  # as the engine resolves it before the rules run
    return facts


def test_gguf_blocks_hold_four_and_a_half_and_eight_and_a_half_bits_a_weight():
    """ggml's block_q4_0 holds 32 weights in 18 bytes (an fp16 scale and 16 bytes of nibbles), block_q4_K 256 in
    144, block_q8_0 32 in 34: as an fp16 scale and zero per group, a group of 64."""
    assert shapes.bytes_per_param("int4", GGUF_GROUP) * 32 == pytest.approx(18)
    assert shapes.bytes_per_param("int4", GGUF_GROUP) * 256 == pytest.approx(144)
    assert shapes.bytes_per_param("int8", GGUF_GROUP) * 32 == pytest.approx(34)


def test_a_gguf_model_or_engine_gets_the_gguf_group_and_others_keep_the_default():
    assert quant_group(facts_of(model="llama-2-70b.Q4_K_M.gguf", gpu="RTX 3090")) == GGUF_GROUP
    assert quant_group(facts_of(model="Llama 2 70B Q4", gpu="RTX 3090", framework="llama.cpp")) == GGUF_GROUP
    assert quant_group(facts_of(model="mistral-7b.Q8_0.gguf", gpu="RTX 4090")) == GGUF_GROUP
    assert quant_group(facts_of(model="Llama-2-70B-AWQ", gpu="A100", framework="vLLM")) is None
    assert quant_group(facts_of(model="Llama 2 70B", gpu="RTX 3090", framework="llama.cpp")) is None  # 16-bit


def test_gguf_weights_stream_their_block_scales():
    """70B at 4.5 bits a weight streams 6 % more than at AWQ's 4.25 (group 128): on an RTX 3090, whose FP32 rate
    converts the weights faster than they stream, the expected decode is slower by that."""
    gguf = predict_layout(facts_of(model="Llama-2-70B Q4_K_M", gpu="RTX 3090"), 1, 1)
    awq = predict_layout(facts_of(model="Llama-2-70B-AWQ", gpu="RTX 3090"), 1, 1)
    assert gguf.assumptions["quant_group"] == GGUF_GROUP and awq.assumptions["quant_group"] == 128
    ratio = shapes.bytes_per_param("int4", GGUF_GROUP) / shapes.bytes_per_param("int4", 128)
    assert gguf.weights_gb_per_gpu / awq.weights_gb_per_gpu == pytest.approx(ratio, rel=0.02)
    assert gguf.expected_terms["weights_ms"] / awq.expected_terms["weights_ms"] == pytest.approx(ratio, rel=0.02)
    assert gguf.decode_tok_s_expected < awq.decode_tok_s_expected
