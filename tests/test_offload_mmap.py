"""llama.cpp prompts with weights in host memory: pageable (mmap on, the default) vs pinned (--no-mmap) copies.

The pageable share of the link's rate (rules/offload.PAGEABLE_SHARE) comes from the fit [[pair]] rows of
tests/data/offload_rows.toml, each a published prompt timed with mmap on and off on one box; the validation pair was
set aside before it was fitted (https://github.com/ggml-org/llama.cpp/pull/20978).
"""

import json
import statistics

import pytest

from benchmarks import offload_accuracy
from rules import offload
from tests.test_offload_11w import _predict

PAIRS = offload_accuracy.pairs()


def test_the_pageable_share_is_the_median_of_the_fit_pairs():
    fit = [p["pageable_tok_s"] / p["pinned_tok_s"] for p in PAIRS if p["split"] == "fit"]
    assert offload.PAGEABLE_SHARE == pytest.approx(statistics.median(fit), abs=0.01)
    assert all(0 < r < 1 for r in fit)  # every source measured mmap on slower than pinned


def test_the_validation_pair_is_priced_within_fifteen_per_cent():
    (val,) = [p for p in PAIRS if p["split"] == "validation"]
    assert offload_accuracy.pageable_expected(val) / val["pageable_tok_s"] - 1 == pytest.approx(0, abs=0.15)
    assert all(p["source"].startswith("https://github.com/ggml-org/llama.cpp/pull/") for p in PAIRS)


def test_a_pageable_copy_takes_longer_and_the_gpu_share_does_not_change():
    p = offload_accuracy.prediction("llama-3-70b", "RTX 4090", "Q4_K_M")
    placed = offload.layers_on_cpu(p, 40, 80)
    mapped, pinned = (offload.prompt_pace(p, placed, 24.5, 2048, pinned=x) for x in (False, True))
    assert mapped.copy_ms == pytest.approx(pinned.copy_ms / offload.PAGEABLE_SHARE)
    assert mapped.gpu_ms == pinned.gpu_ms and mapped.tok_s < pinned.tok_s
    assert offload.copy_gbs(24.5, pinned=True) == 24.5


def _prompt_line(*extra) -> dict:
    result = _predict("--model", "llama-3-70b", "--gpu", "rtx-4090", "--quant", "Q4_K_M", "--cpu-layers", "40",
                      *extra, "--json")
    assert result.exit_code == 0, result.output + result.stderr
    (f,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "predict.offload"]
    (line,) = [e for e in f["evidence"] if "micro-batches" in e["detail"]]
    return line


def test_predict_prices_mmap_by_default_and_no_mmap_as_pinned():
    mapped, pinned = _prompt_line(), _prompt_line("--no-mmap")
    assert "pageable memory" in mapped["detail"] and "pinned memory (--no-mmap)" in pinned["detail"]
    assert mapped["expected"] < pinned["expected"]


@pytest.mark.parametrize("args", [
    ("--model", "llama-3-70b", "--gpu", "rtx-4090", "--no-mmap"),  # nothing kept in host memory
    ("--model", "llama-3-70b", "--gpu", "rtx-4090", "--cpu-offload-gb", "10", "--no-mmap"),  # vLLM has no mmap flag
])
def test_no_mmap_without_a_llamacpp_offload_exits_2_with_one_line(args):
    result = _predict(*args)
    assert result.exit_code == 2 and "Traceback" not in result.output + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "--no-mmap" in result.stderr
