"""A reviewer's offload findings (issue 10): llama.cpp's prompt physics only under llama.cpp, an offload row whose
memory the source leaves unstated kept out of the fit, the data file's comment saying what its rows give, the host's
bandwidth only where the CPU reads, and an --n-cpu-moe that moves nothing refused."""

import re

import pytest
from test_offload_11w import ROWS, _offload_finding, _predict

from benchmarks import offload_accuracy
from rules import offload

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


# ------------------------------------------------------------- the anomalous row: a known miss, not a band edge


def test_an_anomalous_row_sets_no_share_and_is_reported_as_a_known_miss(capsys):
    """ktransformers#319's 2 x EPYC 7C13 with 8 DIMMs in all: the thread cannot say how the channels are populated.
    Its share (about 15 %) no longer sets the low edge of the experts' band, and the benchmark names it apart."""
    from scripts.fit_offload import achieved
    from scripts.fit_offload import main as fit_main

    odd = [r for r in ROWS if r.get("anomalous") and r["split"] == "fit"]  # a validation row never sets a share
    assert odd
    for row in odd:
        a = achieved(row)
        lo, _, _ = offload.achieved_share(a["reads"])
        assert a["achieved_gbs"] / a["peak_gbs"] < lo
        assert not [r for r in offload._table()["achieved"] if r["source"] == row["source"]
                    and r.get("machine") == a["machine"]]
    fit_main()
    out = capsys.readouterr()
    assert "7C13" not in out.out and "anomalous" in out.err
    offload_accuracy.main([])
    printed = capsys.readouterr().out
    (miss,) = [line for line in printed.splitlines() if line.startswith("known miss") and "7C13" in line]
    assert "EPYC 7C13" in miss and "8 DIMMs" in miss and odd[0]["source"] in miss
    assert sum(line.startswith("known miss") for line in printed.splitlines()) == sum(bool(r.get("anomalous"))
                                                                                      for r in ROWS)
    fit_line = next(line for line in printed.splitlines() if line.startswith("fit"))
    assert f"{sum(r['split'] == 'fit' and not r.get('anomalous') for r in ROWS)} rows" in fit_line


def test_a_rate_above_its_placements_bound_is_named_and_the_rest_sit_below_it():
    """benchmarks/offload_accuracy.bound(): the GPU's bytes at its full bandwidth, the CPU's at 100 % of the fastest
    memory its host holds. llama.cpp#12237's 17.66 tok/s (Mistral Small 24B Q4_K_M, -ngl 30 on an RTX 3060, ten
    layers and the output layer from a Ryzen 9 7900's two DDR5 channels) is above it, so the row is a known miss; the
    same model with 24 of 40 layers on an i9-10900X (llmfit#774, 5.22 tok/s) and every other published row sit below
    their bounds, most far below (CPU decode reaches 41-74 % of peak)."""
    results = offload_accuracy.evaluate(ROWS)
    over = [x for x in results if x["row"]["tok_s"] > x["bound"][0]]
    assert [x["row"]["source"] for x in over] == ["https://github.com/ggml-org/llama.cpp/issues/12237"]
    assert over[0]["row"].get("anomalous") and 15.5 < over[0]["bound"][0] < 17.0
    assert "DDR5-6400" in over[0]["bound"][1]
    (near,) = [x for x in results if x["row"]["model"] == "mistral-small-24b" and x["row"]["gpu"] == "RTX 2080"]
    assert near["row"]["tok_s"] < 0.6 * near["bound"][0] and not near["row"].get("anomalous")


def test_the_data_files_comment_states_the_shares_its_rows_give():
    """host_memory.toml's comment quotes each kind's range and centre: they are achieved_share()'s, rounded."""
    from rules.catalog import CATALOG_DIR

    text = " ".join(line.lstrip("# ") for line in (CATALOG_DIR / "host_memory.toml").read_text().splitlines()
                    if line.startswith("#"))
    for kind, words in (("dense", r"dense layers read at"), ("experts", r"routed experts at")):
        m = re.search(words + r" (\d+)-(\d+) % (?:of peak )?\(median (?:over machines )?(\d+) %\)", text)
        assert m, kind
        lo, mid, hi = offload.achieved_share(kind)
        assert tuple(map(int, m.groups())) == (round(lo * 100), round(hi * 100), round(mid * 100))


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
