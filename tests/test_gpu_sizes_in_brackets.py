"""GPU names with their memory size in brackets or glued on as people write them (issue 11: names as people write
them): "4090 (48G)", "RTX 4090 48G", "A100(80GB)", "2x A6000 [48GB]", "4090（48G）". Each resolves to its row with
the stated size: the row's own variant where the catalog has one, else the stated memory (rules.subject); totals,
host RAM and rates in the same places are not a board's memory. Real titles are cited; the rest are paraphrases on
other boards."""

import pytest

from diagnose.artifacts.issue_md import gpu_key
from diagnose.bundle import read_bundle
from rules import catalog
from rules.engine import evaluate


def _gpu(tmp_path, said: str):
    # (a sentence of its own, so that a bare inventory line is read as a pasted issue's)
    (tmp_path / "issue.md").write_text(f"# slow decode\n\nDecode is slower than I expected.\n\n{said}\n",
                                       encoding="utf-8")
    facts = read_bundle(tmp_path)
    evaluate(facts)
    return facts.subject.gpu


@pytest.mark.parametrize("said, key, memory", [
    # https://github.com/vllm-project/vllm/issues/16300 (title, and "gpu: 8*A100(80GB)" in its body)
    ("[Performance]: Performance degradation with tp=8 compared to tp=4 on 8xA100(80G)", "a100-80gb-sxm", 80),
    ("gpu: 8*A100(80GB), model: QwQ-32B, tp=8", "a100-80gb-sxm", 80),
    # https://github.com/sgl-project/sglang/issues/7568 ("my setup with 2x4090 (48Gb each)")
    ("A drop in generation speed on my setup with 2x4090 (48Gb each): 20 tok/s.", "rtx-4090", 48),
    # https://github.com/vllm-project/vllm/issues/22331 (title: "... (4090 48gb)")
    ("AssertionError: Sinks are only supported in FlashAttention 3 (4090 48gb)", "rtx-4090", 48),
    # paraphrases: brackets, glued, spaced, full-width, other boards
    ("I run Qwen2.5-72B on 2x 4090 (48G) with TP=2 and get 20 tok/s.", "rtx-4090", 48),
    ("Decode is slow on an RTX 4090 48G.", "rtx-4090", 48),
    ("两张 4090（48G），TP=2，速度只有 20 tok/s。", "rtx-4090", 48),
    ("We have 2x A6000 [48GB] with TP=2 and get 15 tok/s.", "rtx-a6000", 48),
    ("GPU: A100 (40GB), TP=1, 30 tok/s.", "a100-40gb-sxm", 40),
    ("two A100 [80GB] on NVLink, TP=2, 40 tok/s", "a100-80gb-sxm", 80),
    ("4x RTX 2080 Ti (22G), tp 4, 12 tok/s", "rtx-2080-ti", 22),
    ("H100(80G) x4, tp=4, 60 tok/s", "h100-sxm", 80),
    # the row's own size in brackets: the row, no note
    ("one RTX 4090 (24GB) gives 30 tok/s", "rtx-4090", 24),
    ("4x RTX 3090 (24 GB each), tp=4, 25 tok/s", "rtx-3090", 24),
    # a total, host RAM, a remark, a rate: the catalog's size holds
    ("2x RTX 4090 (48GB total), TP 2, 20 tok/s", "rtx-4090", 24),
    ("2x RTX 4090 48GB total, TP 2, 20 tok/s", "rtx-4090", 24),
    ("2x RTX 3090 (48GB combined) with TP=2 get 20 tok/s", "rtx-3090", 24),
    ("1x RTX 3090 (48GB RAM) gets 20 tok/s", "rtx-3090", 24),
    ("1x RTX 4090 (a stock one, not the 48GB version) gets 20 tok/s", "rtx-4090", 24),
])
def test_a_size_in_brackets_or_glued_is_the_boards(tmp_path, said, key, memory):
    gpu = _gpu(tmp_path, said)
    assert (gpu.key, gpu.memory_gb) == (key, memory)
    row = catalog.gpus()[key]
    assert bool(gpu.memory_said) == (memory != row.memory_gb)


def test_a_rate_after_the_name_is_no_size():
    # the NIC rate beside a GPU ("H100 400Gb/s") is no memory size; the name stays the GPU's
    assert gpu_key("H100") == "H100"
    from diagnose.artifacts.issue_md import GPU_NAME

    assert [m.group(1) for m in GPU_NAME.finditer("8x H100 400Gb/s IB per node")] == ["H100"]


@pytest.mark.parametrize("written", ["4090 (48G)", "RTX 4090 48G", "4090（48G）", "4090 [48GB]", "4090 (48Gb each)"])
def test_the_size_is_no_part_of_the_products_key(written):
    # one product however its size is written: a title's "4090" and a body's "4090 (48G)" are the same GPU
    assert gpu_key(written) == "4090"
    assert catalog.resolve_gpu(written).key == "rtx-4090"
