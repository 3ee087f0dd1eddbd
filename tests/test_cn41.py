"""Issue 11 (session s41, pass cn41): real threads from Chinese-language LLM repositories earlier passes searched
little (PaddlePaddle, modelscope/ms-swift, xorbitsai/inference, QwenLM/Qwen3, InternLM/xtuner,
hiyouga/LlamaFactory), multi-GPU inference or training that is slow, fails to start or asks how to use the cards,
each settled in its thread and run blind (tests/data/cn41/SOURCES.md has each thread, its settled answer and the
verdicts before and after).

One catalog row is added (rules/catalog/engine_errors.toml, quantized_layers_offloaded): Transformers' bitsandbytes
quantizers refusing a device_map that put quantized layers on the CPU or the disk ("Some modules are dispatched on
the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model"), written from Transformers'
source and the documentation page the message names, and answered so in four threads (the GPUs given hold too little:
more GPUs, a larger one, or the GPUs named). The other misses stay strict xfails with their reasons.
"""

from pathlib import Path

import pytest
from conftest import judged_issue
from test_errors33 import _paste, _row  # the row ticket.known_error names; a titled paste with one code block

DATA = Path(__file__).parent / "data" / "cn41"
ROW = "quantized_layers_offloaded"


def _judged(name: str):
    return judged_issue((DATA / name).read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- the row


PROBE = _paste("4-bit 70B does not load", "Probe: Llama-2-70B in 4 bit, device_map='auto', two RTX 3090 visible:",
               "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to "
               "fit the quantized model. If you want to dispatch the model on the CPU or the disk while keeping these "
               "modules in 32-bit, you need to set `llm_int8_enable_fp32_cpu_offload=True` and pass a custom "
               "`device_map` to `from_pretrained`.")
# https://github.com/unslothai/unsloth/issues/1629 (first post; the maintainer: the model overflows GPU memory)
REAL = ("# ValueError: Some modules are dispatched on the CPU or the disk\n\nWhen I am trying to fine tune large "
        "models in Kaggle, which are most models over 8B parameters in 4-bit precision, I get the following "
        "error:\n```\n"
        "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the "
        "quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules in "
        "32-bit, you need to set `llm_int8_enable_fp32_cpu_offload=True` and pass a custom `device_map` to "
        "`from_pretrained`. Check https://huggingface.co/docs/transformers/main/en/main_classes/quantization"
        "#offload-between-cpu-and-gpu for more details. \n```\n")


def test_the_row_reads_the_engine_line_and_a_real_thread_as_a_placement_shortfall():
    assert (_row(PROBE), _row(REAL)) == (ROW, ROW)
    assert {judged_issue(text)[0].category for text in (PROBE, REAL)} == {"other"}


@pytest.mark.parametrize("text", [
    # near-miss: accelerate offloading as asked (a warning, the model loads), not the quantizer's refusal
    _paste("70B slow on 2x 3090", "Probe: fp16 Llama-2-70B, device_map='auto', loads and runs at 1 token/s:",
           "Some parameters are on the meta device because they were offloaded to the cpu."),
    # probes: the message heard of, denied, or gone since a change
    "# 4-bit 34B slow on 2x 3090\n\nProbe: I read that 'Some modules are dispatched on the CPU or the disk' means "
    "too little VRAM; we do not get it, the model loads on both cards and decodes at 9 tokens/s.\n",
    "# 双卡推理慢\n\nProbe: 之前报错 Some modules are dispatched on the CPU or the disk，设置 n-gpu 2 之后已经解决，"
    "现在双卡 4090 推理 Qwen-14B-Int4 速度很慢。\n",
])
def test_the_row_stays_quiet_on_a_near_miss_hearsay_and_a_solved_error(text):
    assert _row(text) != ROW


# ----------------------------------------------------------------------------- real first posts answered right


def test_quantized_layers_offloaded_over_the_wrappers_gpu_count_is_the_placement():
    """xorbitsai/inference#945: Qwen-72B Int4 on V100s with 'N-GPU: auto' refused so; loaded with N-GPU 4."""
    verdict, findings = _judged("xinference945.md")
    assert verdict.category == "other"
    assert _row((DATA / "xinference945.md").read_text(encoding="utf-8")) == ROW


@pytest.mark.parametrize("name,category", [
    ("lf7584.md", "expected_physics"),  # hiyouga/LlamaFactory#7584: ZeRO-3 over 2x A100 PCIe, the traffic it needs
    ("xtuner310.md", "expected_physics"),  # InternLM/xtuner#310: two 8x A100 nodes no faster, the link between them
    ("qwen3_344.md", "tp_not_dividing_heads"),  # QwenLM/Qwen3#344: TP 6 against 40 heads (jklj077)
    ("qwen3_63.md", "tp_not_dividing_heads"),  # QwenLM/Qwen3#63: TP must divide the GPTQ groups (hzhwcmhf)
    ("qwen3_67.md", "other"),  # QwenLM/Qwen3#67: out of memory on GPU 0, no tensor-parallel size given
])
def test_answered_right_blind(name, category):
    assert _judged(name)[0].category == category


# ----------------------------------------------------------------------------- misses kept as they are


def _missed(name: str, category: str, reason: str):
    return pytest.param(name, category, marks=pytest.mark.xfail(strict=True, reason=reason), id=name)


@pytest.mark.parametrize("name,category", [
    _missed("swift848.md", "healthy", "modelscope/ms-swift#848: 'vllm ... 不支持多卡加载' is the reporter's belief "
            "about the engine, not an observation of one GPU in use; the answer (set --tensor_parallel_size) is the "
            "engines' default placement, but the post names no model, GPU or run, and the English wording of it "
            "ends in insufficient_data too"),
    _missed("paddle14690.md", "other", "PaddlePaddle/Paddle#14690: 8 P40s slower than one under Paddle v2; the "
            "maintainer: v2 did not use NCCL 2 and its multi-GPU sync is slow, use Fluid. A fact of one old "
            "framework release the post cannot show; read as data-parallel scaling it stays expected_physics"),
    _missed("paddleocr1993.md", "other", "PaddlePaddle/PaddleOCR#1993: the title alone asks how to use several "
            "GPUs to speed predict_system.py up; the answer (not supported yet) is about the tool, and the same "
            "question in English is read as a scaling question (expected_physics) too"),
])
def test_misses(name, category):
    assert _judged(name)[0].category == category
