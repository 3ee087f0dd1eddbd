"""llama.cpp and Ollama spread a model over GPUs by whole layers (and replicas), never by NCCL tensor parallelism
(engines.toml parallel): plan and predict's sweep offer only what the engine runs. Published figures:
XiongjieDai/GPU-Benchmarks-on-LLM-Inference (https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference), llama.cpp
tg, Llama-3 70B Q4_K_M: 4x RTX 3090 16.89 tok/s, 2x RTX 4090 19.06 tok/s."""

import json

import pytest
from click.testing import CliRunner

from diagnose.bundle import read_bundle
from diagnose.cli import cli
from rules import catalog
from rules.engine import evaluate


def _run(*args):
    out = CliRunner().invoke(cli, [*map(str, args), "--json", "--fail-on", "never"])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_the_llama_cpp_profiles_name_the_modes_they_run():
    for key in ("llamacpp", "llamacpp-eager", "ollama"):
        assert "tp" not in catalog.engine(key).parallel and "pp" in catalog.engine(key).parallel
    assert "tp" in catalog.engine("vllm").parallel


@pytest.mark.parametrize("gpu,gpus,published", [("rtx-3090", 4, 16.89), ("rtx-4090", 2, 19.06)])
def test_plan_for_ollama_splits_by_layers_and_matches_the_published_rate(gpu, gpus, published):
    plan = _run("plan", "--model", "llama3.1:70b", "--gpu", gpu, "--gpus", gpus, "--context", 4096,
                "--concurrency", 1)["predictions"]["plan"]
    assert plan["options"] and all(o["tp"] == 1 and o["pp"] >= 2 for o in plan["options"])
    assert abs(plan["chosen"]["tok_s_per_user"] / published - 1) < 0.15
    assert any("by whole layers" in s for s in plan["steps"])


def test_plan_for_a_model_one_gpu_holds_offers_replicas_not_tp():
    plan = _run("plan", "--model", "llama3.1:8b", "--gpu", "rtx-4090", "--gpus", 2, "--context", 4096,
                "--concurrency", 8)["predictions"]["plan"]
    assert [(o["tp"], o["dp"]) for o in plan["options"]] == [(1, 2)]


def test_plan_says_when_two_layouts_tie_inside_the_band():
    # vLLM runs TP: TP1 x DP2 and TP2 on two 4090s are within the band's low factor of each other; the plan says so
    plan = _run("plan", "--model", "llama3.1:8b", "--gpu", "rtx-4090", "--gpus", 2, "--context", 4096,
                "--concurrency", 8, "--engine", "vllm")["predictions"]["plan"]
    assert {o["tp"] for o in plan["options"]} == {1, 2}
    assert any("ties with" in s and "simpler layout" in s for s in plan["steps"])
    plan = _run("plan", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", 8, "--context", 8192,
                "--concurrency", 64)["predictions"]["plan"]
    # (ut9a item 8) one layout to deploy: the pick the headline and the Fix name, never "prefer" the other
    (tie,) = [s for s in plan["steps"] if "ties with" in s]
    chosen = f"TP{plan['chosen']['tp']} x DP{plan['chosen']['dp']}"
    assert f"The plan keeps {chosen}" in tie and "prefer" not in tie
    plan = _run("plan", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", 8, "--context", 8192,
                "--concurrency", 64, "--dtype", "fp8")["predictions"]["plan"]
    rates = sorted(o["tok_s_total"] for o in plan["options"])
    assert any("ties with" in s for s in plan["steps"]) == (rates[-2] >= rates[-1] * catalog.calibration().band[0])


@pytest.mark.parametrize("model,gpu,gpus", [("llama3.1:70b", "rtx-4090", 2), ("llama3.1:70b", "rtx-3090", 4),
                                            ("llama3.1:8b", "rtx-4090", None)])
def test_predict_sweeps_layer_splits_for_gguf_weights(model, gpu, gpus):
    args = ["predict", "--model", model, "--gpu", gpu] + (["--gpus", gpus] if gpus else [])
    rows = _run(*args)["predictions"]["layouts"]
    assert rows and all(r["tp"] == 1 for r in rows) and any(r["pp"] > 1 for r in rows)
    text = CliRunner().invoke(cli, args).output
    assert "NCCL" not in text
    # an engine that runs TP still sweeps TP
    rows = _run("predict", "--model", model, "--gpu", gpu, "--engine", "vllm", "--dtype", "fp16",
                *(["--gpus", gpus] if gpus else []))["predictions"]["layouts"]
    assert any(r["tp"] > 1 for r in rows)


def test_a_layer_split_finding_does_not_recommend_row_split(tmp_path):
    # a paraphrase of a user-tester's ticket: -sm row on 4x RTX 3090, at the published layer-split rate
    (tmp_path / "issue.md").write_text(
        "# llama.cpp row split on 4x RTX 3090 slow?\n\nI run llama-server with `-sm row -ngl 99` and "
        "Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf on four RTX 3090 (PCIe 4.0 x16, no NVLink).\n\n"
        "eval time = 5920.00 ms / 100 tokens ( 59.20 ms per token, 16.89 tokens per second)\n\n"
        "Is that expected with tensor split across 4 GPUs?\n")
    found = evaluate(read_bundle([tmp_path]))
    assert found and all("split-mode row" not in (f.fix or "") for f in found)


@pytest.mark.parametrize("rate,category", [(16.89, "expected_physics"), (15.5, "expected_physics")])
def test_scaling_reads_a_llama_cpp_multi_gpu_row_as_its_layer_split_as_ticket_does(tmp_path, rate, category):
    # the published 4x RTX 3090 rate, given as "TP4" with engine llamacpp: x2.64 the expected TP time before
    csv = tmp_path / "r.csv"
    csv.write_text(f"layout,batch,metric,value,stat,unit,engine\nTP4,1,decode_tok_s,{rate},mean,tok/s,llamacpp\n")
    out = _run("scaling", csv, "--model", "llama-3-70b", "--gpu", "rtx-3090", "--quant", "Q4_K_M")
    assert out["verdict"]["category"] == category
    (row,) = out["predictions"]["scaling"]["rows"]
    assert (row["tp"], row["pp"]) == (1, 4)
    vllm = tmp_path / "v.csv"
    vllm.write_text(csv.read_text().replace("llamacpp", "vllm"))
    out = _run("scaling", vllm, "--model", "llama-3-70b", "--gpu", "rtx-3090", "--dtype", "int4")
    (row,) = out["predictions"]["scaling"]["rows"]
    assert row["tp"] == 4  # an engine that runs TP keeps it
