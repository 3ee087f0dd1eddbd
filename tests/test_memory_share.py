"""The share of GPU memory an engine was told to fill, read where the material states it (s12-memfrac).

Each engine's flag and what its fraction is of come from its documentation (diagnose.artifacts.memory_share); the
memory-fit checks (the predictor's KV budget, the quantised-fit assumption) then use the stated share in place of the
profile's default and say which one they used. Sentences are written for this test; qwen3_12 is a real thread
(https://github.com/QwenLM/Qwen3/issues/12): Qwen1.5-14B on one 32 GB V100 with --gpu-memory-utilization 0.95.
"""

from pathlib import Path

import pytest
from conftest import REPO

from diagnose.artifacts.memory_share import stated
from diagnose.bundle import read_bundle
from rules.subject import Subject
from rules.workload import predict_layout

THREAD = REPO / "tests" / "data" / "memory_share" / "qwen3_12"


@pytest.mark.parametrize("line, flag, value", [
    ("vllm serve meta-llama/Llama-3.1-8B --gpu-memory-utilization 0.95", "gpu-memory-utilization", 0.95),
    ("python -m vllm.entrypoints.openai.api_server --gpu_memory_utilization=0.85 --tp 2", "gpu-memory-utilization",
     0.85),
    ("llm = LLM(model='x', tensor_parallel_size=2, gpu_memory_utilization=0.7)", "gpu-memory-utilization", 0.7),
    ("  gpu_memory_utilization: 0.8", "gpu-memory-utilization", 0.8),
    ('{"model": "x", "gpu_memory_utilization": 0.93}', "gpu-memory-utilization", 0.93),
    ("INFO worker.py:267] the current vLLM instance can use total_gpu_memory (8.00GiB) x gpu_memory_utilization "
     "(0.70) = 5.60GiB", "gpu-memory-utilization", 0.7),
    ("python -m sglang.launch_server --model-path x --tp 4 --mem-fraction-static 0.83", "mem-fraction-static", 0.83),
    ("trtllm-serve x --kv_cache_free_gpu_memory_fraction 0.6", "kv-cache-free-gpu-memory-fraction", 0.6),
    ("kv_cache_config = KvCacheConfig(free_gpu_memory_fraction=0.5)", "free-gpu-memory-fraction", 0.5),
    ("lmdeploy serve api_server x --tp 2 --cache-max-entry-count 0.4", "cache-max-entry-count", 0.4),
    ("text-generation-launcher --model-id x --cuda-memory-fraction 0.75", "cuda-memory-fraction", 0.75),
    # prose: a setting word before it, as a fraction or a percentage
    ("We run it with 95 % GPU memory utilisation and still get OOM", "memory utilisation (prose)", 0.95),
    ("I set the gpu memory utilization to 0.92, no change", "memory utilisation (prose)", 0.92),
    ("after lowering the mem fraction to 0.7 it starts", "memory utilisation (prose)", 0.7),
    ("we set gpu memory utilization to 95% and it OOMs", "memory utilisation (prose)", 0.95),
    ("Using a memory utilization of 0.9.", "memory utilisation (prose)", 0.9),
])
def test_each_form_is_read(line, flag, value):
    found = stated(line)
    assert found is not None and found[0] == flag and found[1] == pytest.approx(value)


@pytest.mark.parametrize("line", [
    "GPU utilization 95 % during decode",  # nvidia-smi's busy share, not the engine's memory share
    "nvidia-smi shows 95% memory utilization on every card",  # a reading, not a setting
    "memory utilization was 95% while serving",
    "|  0  NVIDIA A100-SXM4-80GB  | 78000MiB / 81920MiB |  95%  Default |",
    "--gpu-memory-utilization 95",  # vLLM takes a fraction: nonsense, left unread
    "--gpu-memory-utilization 0",
    "--mem-fraction-static=1.5",
    "we did not set gpu_memory_utilization=0.95 this time",  # negated
    "without --gpu-memory-utilization 0.98 it will not start",
    "I didn't pass --gpu-memory-utilization 0.95 in the end",
])
def test_what_is_not_the_setting(line):
    assert stated(line) is None


def _predicted(folder: Path, text: str | None = None, tp: int = 2):
    if text is not None:
        (folder / "issue.md").write_text(text)
    facts = read_bundle([folder])
    facts.subject = Subject.of(facts)
    return predict_layout(facts, tp, 1)


MIXTRAL = ("Running Mixtral-8x7B-Instruct with vLLM on 2x RTX A6000 (48GB each), tensor_parallel_size=2{}. A single "
           "user gets 30 tok/s. Is this reasonable?")


def test_stated_share_decides_the_quantised_fit(tmp_path):
    """Mixtral's 16-bit weights (46.7 GB a GPU at TP 2) with vLLM's reserve leave no KV cache in 90 % of an A6000 but
    do in 98 %: told 0.98, the run is priced as the checkpoint's own weights, not assumed quantised."""
    default = _predicted(tmp_path, MIXTRAL.format(""))
    assert default.dtype == "int4" and "assumed: quantised weights" in default.assumptions["weights"]
    assert "engine default 90%" in default.assumptions["weights"]
    told = _predicted(tmp_path, MIXTRAL.format(", gpu_memory_utilization=0.98"))
    assert told.dtype == "bf16" and told.kv_budget_gb > 0 and "weights" not in told.assumptions
    assert told.assumptions["memory_share"].startswith("stated: gpu-memory-utilization 0.98 (issue.md:1)")
    # the same ticket told 0.92: still too little, still assumed quantised, and the evidence names the stated share
    less = _predicted(tmp_path, MIXTRAL.format(", gpu_memory_utilization=0.92"))
    assert less.dtype == "int4" and "stated: gpu-memory-utilization 0.92" in less.assumptions["weights"]


def test_a_share_of_free_memory_is_priced_after_the_weights(tmp_path):
    """TensorRT-LLM's free_gpu_memory_fraction is of the memory left once the model is loaded: 0.5 of it still
    holds every weight, where 0.5 of the whole GPU would not."""
    p = _predicted(tmp_path, "Llama-2-13b on 1x A100 80GB with TensorRT-LLM, KvCacheConfig(free_gpu_memory_fraction="
                             "0.5). Decode runs at 40 tok/s for one user. Expected?", tp=1)
    held = p.weights_gb_per_gpu + p.reserved_gb
    assert p.kv_budget_gb == pytest.approx(0.5 * (85.899 - held), abs=0.05)
    assert "of the memory left after weights" in p.assumptions["memory_share"]


def test_real_thread_states_its_share():
    """QwenLM/Qwen3#12: the launch line's 0.95 of the V100's 32 GiB (34.4 GB) is what the fit check prices."""
    p = _predicted(THREAD, tp=1)
    usable = p.weights_gb_per_gpu + p.reserved_gb + p.kv_budget_gb
    assert usable == pytest.approx(0.95 * 34.36, abs=0.05)
    assert p.assumptions["memory_share"].startswith("stated: gpu-memory-utilization 0.95")
    assert p.assumptions["memory_utilization"] == pytest.approx(0.95)
