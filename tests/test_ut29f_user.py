"""Defects found by answering real tickets where a TP width may not divide a model dimension, as a support engineer
(session s29, pass ut29f, issue 11; tests/data/ut29f, SOURCES.md gives each thread's address, the answer it
established and the verdict before and after), fixed in general and tested on the pastes that showed them and on
real near-misses:

- vLLM's Marlin refusal of one rank's shard ("Weight input_size_per_partition = 14784 is not divisible by
  min_thread_k = 128. Consider reducing tensor_parallel_size") was read as a generic engine error (`other`, "match
  the versions"): it is the TP width where the whole width (shard x TP) is a whole number of tiles, and the kernel's
  own limit where it is not, or where the model runs on one GPU (rules.claims tp_size_error, rules.ticket_rules
  _tp_error / _whole_at_tp1);
- TensorRT-LLM's "Size per head is not a multiple of X" (a head size its attention kernels lack) came back
  insufficient_data asking for topology: a refusal no TP size changes (engine_errors trtllm_head_size_unsupported).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims
from rules.ticket_rules import _tp_error, _whole_at_tp1

DATA = Path(__file__).parent / "data" / "ut29f"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def test_marlin_shard_at_tp2_is_the_layout():
    """vllm-project/vllm#13640: Qwen2.5-VL-72B-Instruct-AWQ at TP 2 on 2 x A800. 14784 x 2 = 29568 = 231 tiles of
    128, odd: only TP 1 splits it (vllm#21695's maintainer answer for the same 29568 width: 'TP is currently limited
    to 1'; Qwen later padded the checkpoint's intermediate_size for TP 2)."""
    r = verdict("vllm13640.md")
    assert r["verdict"]["category"] == "tp_not_dividing_heads"
    lead = finding(r, "ticket.tp_size_error")
    assert lead is not None and lead["category"] == "tp_not_dividing_heads"
    assert "use TP 1" in lead["fix"] and "29568" in lead["fix"]
    assert any(e["measured"] == 29568 for e in lead["evidence"])


def test_marlin_shard_on_one_gpu_is_not_the_layout():
    """Near-miss, vllm-project/vllm#9913: the same refusal for DeepSeek-Coder-V2-Lite-AWQ 'on one gpu' (10944 is
    85.5 tiles of 128): no TP size to reduce, the kernel's tile is the limit (the reporter's own change of
    GPTQ_MARLIN_MIN_THREAD_K made it load). No TP verdict, no TP fix."""
    r = verdict("vllm9913.md")
    assert r["verdict"]["category"] != "tp_not_dividing_heads"
    assert finding(r, "ticket.tp_size_error") is None


@pytest.mark.parametrize("shard, tile, sizes, layout", [
    (14784, 128, {2}, True),    # vllm#13640: 29568 at TP 1 is 231 tiles
    (7392, 128, {4}, True),     # vllm-project/llm-compressor#57: Qwen2-72B w8a16 at TP 4 (maintainer: TP 2 is the max)
    (10944, 128, set(), False),  # vllm#9913: one GPU, no TP size named
    (100, 128, {2}, False),     # a shard no TP makes whole: the kernel, not the layout
])
def test_tile_refusal_is_the_layouts_only_where_a_smaller_tp_loads(shard, tile, sizes, layout):
    c = claims.Claim("tp_size_error", "t", "x", {"groups": [str(shard), str(tile)]})
    assert _whole_at_tp1(c, sizes) is layout


@pytest.mark.parametrize("line, read", [
    # vllm-project/vllm#13640 (reporter's paste)
    ("ValueError: Weight input_size_per_partition = 14784 is not divisible by min_thread_k = 128. Consider reducing "
     "tensor_parallel_size or running with --quantization gptq.", True),
    # vllm-project/llm-compressor#57's title (hayleyhu)
    ("QWen2-72b error while starting vllm server, Weight input_size_per_partition = 7392 is not divisible by "
     "min_thread_k = 128", True),
    # zai-org/GLM-V#178's title: the Marlin kernel's tile assert on one rank's gate/up width at tp=4
    ("GLM-4.5V-FP8 + vllm + tp=4: RuntimeError: size_n = 5472 is not divisible by tile_n_size = 64", True),
    # near-misses: vllm-project/llm-compressor#54's title (a 2:4-sparse kernel's row tile on the whole output, not a
    # rank's shard) and rasbt/LLMs-from-scratch#444 (a model config error, no parallelism)
    ("RuntimeError: prob_m = 59136 is not divisible by thread_m = 512 when performing inference Qwen2-72B with "
     "marlin24", False),
    ("other models return the error from the __init__() method of the MultiHeadAttention Class: `d_out must be "
     "divisible by num_heads`.", False),
])
def test_tile_lines_read(line, read):
    found = [c for c in claims.find(said(line), "tp_size_error") if "min_thread" in c.quote or "tile_" in c.quote]
    assert bool(found) is read


def test_tile_line_without_a_tp_size_is_no_tp_error():
    """The title of llm-compressor#57 alone names no TP size: nothing says the shard is one of several."""
    assert _tp_error(said("QWen2-72b error while starting vllm server, Weight input_size_per_partition = 7392 is not "
                          "divisible by min_thread_k = 128")) is None


@pytest.mark.parametrize("name", ["neuronsp4.md", "qwen3_360.md", "vllm2699.md"])
def test_widths_that_do_not_divide_stay_read(name):
    """Dylanyunlon/Neuron_SP#4 (32 heads over 5 GPUs, PP=5 the workaround the reporter settled on), QwenLM/Qwen3#360
    (jklj077, maintainer: the 14B models' intermediate size; the official checkpoint was padded) and
    vllm-project/vllm#2699 (Qwen-14B-Chat-Int4 at TP 2; TP 1 loads, as the thread reports): right before, kept."""
    assert verdict(name)["verdict"]["category"] == "tp_not_dividing_heads"


def test_head_size_the_kernel_lacks_is_not_the_tp_width():
    """Near-miss, NVIDIA/TensorRT-LLM#679: 'Size per head is not a multiple of X' for open_llama_3b at TP=4; the
    maintainer: head size 100 is not supported by the attention kernels, whatever the TP (32 heads divide 4)."""
    r = verdict("trtllm679.md")
    assert r["verdict"]["category"] == "other"
    assert "head size" in r["verdict"]["summary"] or any("head size" in (f.get("fix") or "") for f in r["findings"])
    assert finding(r, "ticket.tp_size_error") is None
