"""Issue 11 (session s37, pass ep37): threads settled as "the hardware explains it".

Two changes, tested on the real first posts kept in tests/data/ep37 (threads, settled answers and the study/check split
in its SOURCES.md), on paraphrases and on near-misses:
- a comparison of prompt processing between a GeForce board and a data-centre one is judged on the tensor rate the
  engine's GEMMs run at: llama.cpp and the programs that embed it accumulate 16-bit GEMMs in FP16 (engines.toml
  gemm_accumulate), which GeForce boards run at twice their FP32-accumulate rate (gpus.toml fp16_acc16_tflops), so an
  RTX 4090 ahead of an A100 there is its datasheet (ticket.gpus_compared), not a host holding the A100 back
  (ticket.stronger_gpu_slower stays silent); an engine that accumulates in FP32 (vLLM ...) keeps the old reading;
- the offload placements (rules/offload.py) look a model up by its catalog row, so a size stand-in ("llama-65b": the
  dense catalog row of that size, rules/subject.py) no longer crashes ticket.offload_rate.
"""

from pathlib import Path

import pytest
from test_bydesign31 import answer, said

from rules import catalog

DATA = Path(__file__).parent / "data" / "ep37"


def rules_of(findings, category=None) -> set[str]:
    return {f.rule for f in findings if category is None or f.category == category}


# ----------------------------------------------------------------------------------------------- real first posts
def test_4090_ahead_of_a100_at_prompt_processing_is_the_datasheet():
    """XiongjieDai/GPU-Benchmarks-on-LLM-Inference#23 (llama.cpp benchmarks): "Why 4090 24GB Prompt Processing faster
    than A100 PCIe 80 GB?"; the maintainer: the 4090's clocks and newer architecture. Before: host_bound 0.4."""
    verdict, findings = answer(DATA / "gpubench23.md")
    assert verdict.category == "expected_physics"
    assert "ticket.gpus_compared" in rules_of(findings, "expected_physics")
    assert "ticket.stronger_gpu_slower" not in rules_of(findings)


def test_a_65b_stand_in_on_one_small_gpu_runs_every_rule():
    """bigscience-workshop/petals#414 names enoch/llama-65b-hf (no catalog row: a 65B stand-in) on an RTX 3080; under
    DIAGNOSE_STRICT (tests/conftest.py) ticket.offload_rate raised KeyError on the stand-in's key before this pass."""
    verdict, findings = answer(DATA / "petals414.md")
    assert verdict.category == "expected_physics"
    assert not any("failed" in f.title for f in findings)


# Settled as expected_physics, still answered otherwise: the reason each stays wrong.
MISSED = {
    "ktransformers538.md": "host memory bandwidth sets KTransformers' decode ('normal, the official setup has 600 "
                           "GB/s'), but the words name no engine, model or figure: the engine is only the "
                           "repository's, and the figures are in a screenshot",
    "unsloth1068.md": "the maintainer: '4bit will be slower since there are dequantization steps'; "
                      "ticket.bitsandbytes_path files the same slowdown as `other`, a slower path to replace, a "
                      "category choice this pass leaves alone",
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=r))
                                  for n, r in MISSED.items()])
def test_settled_as_physics_still_missed(name):
    verdict, _ = answer(DATA / name)
    assert verdict.category == "expected_physics"


# ---------------------------------------------------------------------------------------------------- paraphrases
PROMPT_EVEN = [
    "# RTX 4090 beats A100 80GB PCIe in prompt processing?\n\nWith llama.cpp (llama-bench), pp512 on my RTX 4090 is "
    "higher than on an A100 PCIe 80GB. Why is the A100 slower at prompt processing?\n",
    "# Ollama prompt eval\n\nWith Ollama the RTX 4090 evaluates the prompt faster than the A100 PCIe 80GB. Why is "
    "the A100 slower?\n",
    "# RTX 5090 vs A100 prompt processing\n\nIn koboldcpp the RTX 5090 processes the prompt faster than the A100 PCIe "
    "80GB. Why is the A100 slower?\n",
]


@pytest.mark.parametrize("text", PROMPT_EVEN)
def test_prompt_processing_on_the_half_accumulate_path(tmp_path, text):
    verdict, findings = said(tmp_path, text)
    assert "ticket.gpus_compared" in rules_of(findings, "expected_physics")
    assert "ticket.stronger_gpu_slower" not in rules_of(findings)
    found = next(f for f in findings if f.rule == "ticket.gpus_compared")
    assert found.confidence == 0.5  # the engine named takes FP16 accumulation
    assert any("FP16 accumulate" in e.detail for e in found.evidence)


# ----------------------------------------------------------------------------------------- near-misses and negations
NOT_EVEN = {
    # vLLM accumulates in FP32: 165 against 312 TFLOPS, the A100 should lead; behind, the host stays the lead
    "vllm": "# A100 slower than RTX 4090 at prefill with vLLM\n\nUsing vLLM, prefill on the A100 PCIe 80GB is slower "
            "than on my RTX 4090. Why is the A100 slower?\n",
    # token generation follows memory bandwidth, where the A100 leads 1935 against 1008 GB/s
    "generation": "# A100 slower than RTX 4090 for token generation\n\nWith llama.cpp the A100 PCIe 80GB generates "
                  "tokens slower than my RTX 4090 (tg128). Why is the A100 slower?\n",
    # training runs in PyTorch with FP32 accumulation
    "training": "# A100 slower than RTX 4090 when training\n\nFine-tuning on the A100 PCIe 80GB is slower than on my "
                "RTX 4090. Why is the A100 slower at training?\n",
    # an H100 leads the 4090's FP16-accumulate rate too (989 against 330 TFLOPS)
    "h100": "# H100 slower than RTX 4090 at prompt processing in llama.cpp\n\nllama-bench pp512 is lower on the H100 "
            "SXM than on my RTX 4090. Why is the H100 slower?\n",
    # an RTX 3090 runs FP16 accumulation at 142 TFLOPS, behind an A100's 312: not even on this path either
    "3090": "# 3090 processes prompts faster than the A100 40GB?\n\nIn LM Studio the RTX 3090 processes the prompt "
            "faster than the A100 40GB PCIe. Why is the A100 slower?\n",
    # a factor far past the boards' 1.06 on this path is no datasheet difference
    "factor": "# A100 5 times slower than a 4090 at prompt processing\n\nWith llama.cpp, prompt processing on the A100 "
              "PCIe 80GB is 5 times slower than on my RTX 4090.\n",
}


@pytest.mark.parametrize("key", NOT_EVEN)
def test_no_half_accumulate_answer_where_the_path_or_the_work_differs(tmp_path, key):
    _, findings = said(tmp_path, NOT_EVEN[key])
    assert not any(f.rule == "ticket.gpus_compared" and "prompt processing" in f.title for f in findings)


def test_the_fp32_engine_keeps_the_host_lead(tmp_path):
    _, findings = said(tmp_path, NOT_EVEN["vllm"])
    assert "ticket.stronger_gpu_slower" in rules_of(findings)


def test_no_engine_named_is_a_weaker_answer(tmp_path):
    """No engine named: llama.cpp's path may have run, or vLLM's; the answer says both and stays a lead (0.4)."""
    _, findings = said(tmp_path, "# Why is the RTX 4090 faster than the A100 PCIe 80GB at prompt processing?\n\n"
                                 "Our benchmark shows it.\n")
    found = next(f for f in findings if f.rule == "ticket.gpus_compared")
    assert found.category == "expected_physics" and found.confidence == 0.4
    assert "vLLM" in found.summary


# ------------------------------------------------------------------------------------------------ size stand-ins
def test_base_key_undoes_a_stand_in_key_only():
    row = catalog.models()["deepseek-llm-67b"]
    assert catalog.base_key(f"{row.key}{catalog.STAND_IN}65B model)") == row.key
    assert catalog.base_key(row.key) == row.key


def test_layers_on_cpu_of_a_stand_in(tmp_path):
    """A 65B model named by its size on one RTX 3080 10GB, most layers on the CPU: the placement is computed from the
    stand-in's base row (95 layers of DeepSeek-LLM-67B), not looked up by the stand-in's own key."""
    verdict, findings = said(tmp_path, "# llama-65b very slow\n\nI run llama-65b on one RTX 3080 10GB with llama.cpp "
                                       "and get 1.5 tokens/s. Is that normal?\n")
    assert not any("failed" in f.title for f in findings)
    offloaded = [f for f in findings if f.rule == "ticket.offload_rate"]
    assert offloaded and offloaded[0].category == "expected_physics"
