"""A reviewer's offload findings (issue 10): llama.cpp's prompt physics only under llama.cpp, an offload row whose
memory the source leaves unstated kept out of the fit, the data file's comment saying what its rows give, the host's
bandwidth only where the CPU reads, and an --n-cpu-moe that moves nothing refused."""

import pytest
from test_offload_11w import _offload_finding, _predict

# ------------------------------------------------------------------------ the prompt: llama.cpp's op offload only


@pytest.mark.parametrize("args", [
    ("--model", "llama-3-8b", "--engine", "vllm", "--cpu-offload-gb", "4"),  # vLLM copies once per forward pass
    ("--model", "llama-3-70b", "--engine", "sglang", "--cpu-layers", "20"),  # another engine, dense CPU layers
    ("--model", "deepseek-v3", "--engine", "sglang", "--experts-on-cpu"),  # KTransformers-style: CPU prompt experts
])
def test_other_engines_get_no_llamacpp_prompt_line(args):
    f = _offload_finding("--gpu", "rtx-4090", *args)
    text = " ".join(e["detail"] for e in f["evidence"])
    assert "llama.cpp" not in text and "micro-batch" not in text


@pytest.mark.parametrize("args", [
    ("--model", "llama-3-8b", "--engine", "llamacpp", "--cpu-layers", "10"),
    ("--model", "qwen3-30b-a3b", "--quant", "Q4_K_M", "--experts-on-cpu"),  # GGUF weights: llama.cpp by default
])
def test_llamacpp_keeps_its_prompt_line(args):
    f = _offload_finding("--gpu", "rtx-4090", *args)
    (line,) = [e for e in f["evidence"] if "micro-batches" in e["detail"]]
    assert "--no-op-offload" in line["detail"] and line["expected"] > 0


# ------------------------------------------------------------------ the host's bandwidth only where the CPU reads


def test_a_pcie_only_offload_shows_no_host_memory_bandwidth():
    """vLLM --cpu-offload-gb copies its weights over PCIe; no memory channel is read by the CPU for it. 4 GiB is
    4.29 GB, printed to one decimal."""
    f = _offload_finding("--model", "llama-3-8b", "--gpu", "rtx-4090", "--engine", "vllm", "--cpu-offload-gb", "4")
    assert not [e for e in f["evidence"] if e["source"] == "rules/catalog/host_memory.toml"]
    text = f["title"] + " ".join(e["detail"] for e in f["evidence"])
    assert "4.3 GB of weights copied" in text and "4.29497" not in text and "read by the CPU" not in text
    cpu = _offload_finding("--model", "llama-3-8b", "--gpu", "rtx-4090", "--engine", "vllm", "--cpu-layers", "8")
    assert [e for e in cpu["evidence"] if e["source"] == "rules/catalog/host_memory.toml"]


# ---------------------------------------------------------------------- --n-cpu-moe within the leading dense layers


@pytest.mark.parametrize("model, n", [("deepseek-v3", 3), ("deepseek-v3", 1), ("glm-4.5", 2), ("kimi-k2", 1)])
def test_n_cpu_moe_over_dense_layers_only_is_refused(model, n):
    result = _predict("--model", model, "--gpu", "rtx-4090", "--quant", "Q4_K_M", "--n-cpu-moe", str(n))
    assert result.exit_code == 2 and "Traceback" not in result.output + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "hold no experts" in line and f"--n-cpu-moe {n}" in line


def test_n_cpu_moe_past_the_dense_layers_is_priced():
    f = _offload_finding("--model", "deepseek-v3", "--gpu", "rtx-4090", "--quant", "Q4_K_M", "--n-cpu-moe", "4")
    assert "in 1 of 58 MoE layers" in f["title"]
