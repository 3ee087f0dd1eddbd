"""`diagnose plan`: the serving decision tree and its napkin math, checked against arithmetic done by hand.

Model constants are Llama-3-70B's (model-configs.md; collectives-reference.md section 3.1):
80 layers, hidden 8192, 64 query / 8 KV heads x 128, FFN 28672, vocab 128256.
- decoder-layer parameters: 68,452,352,000, of which RMSNorm weights 80 x 2 x 8192 = 1,310,720
  (replicated on every TP rank, not split);
- input embedding = LM head = 128256 x 8192 = 1,050,673,152 parameters each, kept in 16-bit
  even in an FP8 checkpoint, split over TP ranks;
- KV cache per token, bf16: 2 (K and V) x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B.
H100 SXM: 80 GB, 90 % usable (vLLM's gpu_memory_utilization default) = 72.0 GB.
"""

import json
import math

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.errors import InputError
from rules import planner

DECODER = 68_452_352_000
NORMS = 80 * 2 * 8192
EDGE = 128_256 * 8192  # embedding, and the LM head
KV_TOKEN = 2 * 80 * 8 * 128 * 2  # bytes, bf16
USABLE = 80 * 2**30 * 0.90 / 1e9  # GB: an "80GB" H100 holds 80 GiB (CUDA reports 84.9e9 B), 90% usable = 77.309


def run(*args):
    return CliRunner().invoke(cli, ["plan", *map(str, args)])


def plan_json(*args):
    result = run(*args, "--json", "--fail-on", "never")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def weights_gb(tp: int) -> float:
    """FP8 decoder weights split over TP (norms replicated) + 16-bit embedding and LM head split over TP."""
    return ((DECODER - NORMS) / tp + NORMS + 2 * EDGE * 2 / tp) / 1e9


def test_llama3_70b_fp8_on_8_h100_at_8k_by_hand():
    # TP1: 68.45 GB (fp8 decoder) + 2 x 2.10 GB (bf16 embedding + head) = 72.65 GB of 77.31 GB usable: 4.65 GB of KV
    # = 14,203 tokens at 327,680 B/token, one 8k sequence per GPU, 8 on the box: far below 64 users.
    assert weights_gb(1) == pytest.approx(72.655, abs=0.001)
    assert int((USABLE - weights_gb(1)) * 1e9 // KV_TOKEN) // 8192 == 1
    # TP2: (68,452,352,000 - 1,310,720) / 2 + 1,310,720 = 34,226,831,360 B of decoder weights
    #      + 2 x 1,050,673,152 x 2 B / 2 = 2,101,346,304 B of embedding + head = 36.328 GB per GPU.
    assert weights_gb(2) == pytest.approx(36.328, abs=0.001)
    # KV budget per GPU: 77.309 - 36.328 = 40.981 GB. Each GPU holds 4 of the 8 KV heads: 327,680 / 2 = 163,840 B/token.
    budget = USABLE - weights_gb(2)
    assert budget == pytest.approx(40.981, abs=0.001)
    tokens = int(budget * 1e9 // (KV_TOKEN / 2))  # 40.981e9 / 163,840 = 250,129 tokens per replica
    assert tokens == 250_129
    slots = math.floor(tokens / 8192)  # 250,129 / 8192 = 30.5 -> 30 sequences of 8k per replica
    assert slots == 30
    replicas = 8 // 2  # 4 replicas of TP2
    assert replicas * slots == 120  # concurrent 8k decode slots on the box

    rep = plan_json("--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", 8, "--context", 8192, "--concurrency", 64,
                    "--dtype", "fp8")
    o = rep["predictions"]["plan"]["chosen"]
    assert (o["tp"], o["pp"], o["dp"]) == (2, 1, replicas)
    assert o["weights_gb_per_gpu"] == pytest.approx(weights_gb(2), abs=0.001)
    assert o["kv_budget_gb_per_gpu"] == pytest.approx(budget, abs=0.001)
    assert o["kv_tokens_per_replica"] == tokens
    assert o["slots_per_replica"] == slots and o["total_slots"] == 120
    assert o["batch_per_replica"] == 16  # 64 users over 4 replicas
    assert rep["verdict"]["category"] == "expected_physics" and "TP2 x DP4" in rep["verdict"]["summary"]
    # Per-user speed and total throughput are the predictor's expected figures at 16 sequences per replica.
    from rules import roofline

    p = roofline.predict("llama-3-70b", "h100-sxm", roofline.Layout(2, 1, 4), batch=16, prompt=1024, context=8192, dtype="fp8")
    assert o["tok_s_per_user"] == p.decode_tok_s_expected
    assert o["tok_s_total"] == pytest.approx(p.decode_tok_s_expected * 16 * 4, abs=0.1)
    # The fallback for a stricter latency SLO is the next TP: half the weights to stream per GPU.
    fb = rep["predictions"]["plan"]["fallback"]
    assert fb["tp"] == 4 and fb["itl_ms"] < o["itl_ms"]
    assert fb["weights_gb_per_gpu"] == pytest.approx(weights_gb(4), abs=0.001)


def test_more_users_than_tp2_holds_moves_to_tp4():
    # TP4: weights 18.165 GB/GPU, budget 77.309 - 18.165 = 59.145 GB; 2 KV heads per GPU: 81,920 B/token
    # -> 721,980 tokens, / 8192 = 88 sequences x 2 replicas = 176 >= 150 (TP2 holds only 120).
    budget = USABLE - weights_gb(4)
    slots = int(budget / (8192 * KV_TOKEN / 4 / 1e9))
    assert slots == 88
    rep = plan_json("--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", 8, "--context", 8192, "--concurrency", 150,
                    "--dtype", "fp8")
    o = rep["predictions"]["plan"]["chosen"]
    assert (o["tp"], o["dp"], o["slots_per_replica"], o["total_slots"]) == (4, 2, slots, 176)
    tp2 = next(x for x in rep["predictions"]["plan"]["options"] if x["tp"] == 2)
    assert tp2["total_slots"] == 120  # < 150
    assert any("TP1 x DP8 holds only 8 " in s for s in rep["predictions"]["plan"]["steps"])


def test_a_model_that_fits_one_gpu_gets_data_parallel_replicas():
    # Llama-3-8B bf16: ~16 GB of weights on an 80 GB H100: TP1, every GPU a replica.
    rep = plan_json("--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", 8, "--context", 8192, "--concurrency", 32)
    o = rep["predictions"]["plan"]["chosen"]
    assert (o["tp"], o["dp"]) == (1, 8) and o["allreduce_share"] == 0
    assert rep["predictions"]["plan"]["steps"][0].startswith("Fits on one GPU")


def test_multi_node_uses_tp_in_the_node_and_pp_across():
    # Llama-3-405B bf16 ~ 812 GB: 8 x 72 GB = 576 GB is not enough; 16 GPUs -> TP8 x PP2.
    rep = plan_json("--model", "llama-3-405b", "--gpu", "h100-sxm", "--gpus", 16, "--context", 8192, "--concurrency", 8)
    o = rep["predictions"]["plan"]["chosen"]
    assert (o["tp"], o["pp"], o["dp"]) == (8, 2, 1)
    assert "--pipeline-parallel-size 2" in rep["findings"][0]["fix"]


def test_moe_spreads_experts():
    rep = plan_json("--model", "deepseek-v3", "--gpu", "h200-sxm", "--gpus", 8, "--context", 4096, "--concurrency", 16)
    p = rep["predictions"]["plan"]
    o = p["chosen"]
    assert o["tp"] == 8 and o["ep"] == 8 and o["experts_per_gpu"] == 256 / 8
    assert any(s.startswith("MoE:") for s in p["steps"])
    assert "--enable-expert-parallel" in rep["findings"][0]["fix"]


def test_itl_slo_caps_the_batch_or_moves_to_a_larger_tp():
    rep = plan_json("--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", 8, "--context", 8192, "--concurrency", 64,
                    "--dtype", "fp8", "--slo", "itl_p95=20ms")
    o = rep["predictions"]["plan"]["chosen"]
    assert o["itl_ms"] <= 20
    assert not [f for f in rep["findings"] if f["rule"] == "plan.slo" and f["severity"] == "warning"]


def test_unreachable_slo_is_a_warning_finding():
    result = run("--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", 8, "--context", 8192, "--dtype", "fp8",
                 "--slo", "itl_p95=1ms", "--fail-on", "warning", "--json")
    assert result.exit_code == 1
    slo = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "plan.slo" and f["severity"] == "warning"]
    assert slo and "misses the SLO" in slo[0]["title"]


def test_capacity_short_is_a_warning_finding():
    rep = plan_json("--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", 8, "--context", 131072, "--concurrency", 1000,
                    "--dtype", "fp8")
    (short,) = [f for f in rep["findings"] if f["rule"] == "plan.capacity_short"]
    assert short["severity"] == "warning"


@pytest.mark.parametrize("args,needle", [
    (["--model", "llama-3-405b", "--gpus", 8, "--context", 8192], "does not fit on 8 x"),
    (["--model", "llama-3-70b", "--gpus", 1, "--context", 8192], "does not fit on 1 x"),
    (["--model", "llama-3-70b", "--gpus", 8, "--context", 10**7], "longer than"),
    (["--model", "no-such-model", "--gpus", 8, "--context", 8192], "no-such-model"),
])
def test_impossible_requests_exit_2_with_one_line(args, needle):
    result = run("--gpu", "h100-sxm", *args)
    assert result.exit_code == 2 and needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_pipeline_when_no_tp_divides_the_heads():
    """Ticket 056's situation: Llama-2-13B (40 heads, 26 GB in bf16) on three 24 GB GPUs. TP1 does not
    fit and TP3 does not divide 40 heads, so the layers are split: PP3 (the answer in that thread)."""
    p = planner.plan("llama-2-13b", "rtx-4090", 3, 4096, 1)
    assert (p["chosen"]["tp"], p["chosen"]["pp"]) == (1, 3)
    assert any("PP3 splits the 40 layers" in s for s in p["steps"])


def test_no_layout_on_too_few_gpus_raises():
    with pytest.raises(InputError, match="does not fit"):
        planner.plan("llama-2-13b", "rtx-4090", 1, 4096, 1)
