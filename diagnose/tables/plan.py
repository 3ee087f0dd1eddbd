"""The table of a plan report: every layout that fits, the chosen one and the fallback marked."""

from __future__ import annotations

from rules.predictions import Plan
from rules.roofline import ITL_AT


def tables(result: Plan) -> dict[str, dict]:
    title = f"Plan: {result.model_name} on {result.gpus} x {result.gpu_name}, {result.context}-token context"
    return {title: plan_table(result)}


COLUMNS = ["layout", "GB weights/GPU", "GB kept/GPU", "GB KV/GPU", "KV tokens/replica", "seqs/replica", "replicas",
           "seqs held", "batch/replica", "users served", "ITL ms", "tok/s/user", "tok/s total", "TTFT ms", "AR %",
           "SLO", "pick"]


def plan_table(result: Plan) -> dict:
    rows = []
    for o in result.options:
        mark = "chosen" if o.label == result.chosen.label else (
            "fallback" if result.fallback and o.label == result.fallback.label else "")
        slo = "-" if o.meets_slo is None else ("met" if o.meets_slo else "missed")
        rows.append([o.label, round(o.weights_gb_per_gpu, 2), round(o.reserved_gb_per_gpu, 2),
                     round(o.kv_budget_gb_per_gpu, 2), o.kv_tokens_per_replica, o.slots_per_replica, o.dp,
                     o.total_slots, o.batch_per_replica, o.served, round(o.itl_ms, 2), round(o.tok_s_per_user, 1),
                     round(o.tok_s_total), round(o.ttft_ms), round(100 * o.allreduce_share), slo, mark])
    return {"columns": COLUMNS, "rows": rows,
            "note": f"{result.dtype} weights, {result.kv_dtype} KV cache, as {result.engine_name} runs them. "
                    "GB kept: activations, CUDA graphs and communication buffers the engine reserves. KV tokens per "
                    "replica = KV budget per GPU / KV bytes per token per GPU; seqs = KV tokens / context. Batch per "
                    "replica: the users over the replicas, at most the seqs it holds" + _capped(result) + ". Users "
                    "served = min(users, batch per replica x replicas); tok/s total = users served x tok/s per user. "
                    "ITL and tok/s are the predictor's expected figures at the batch shown: ITL is "
                    f"{ITL_AT}, {result.chosen.itl_context:,} tokens (as `predict` gives it); tok/s per user = "
                    "1000 / ITL at that same context. " + _slo_note(result) + "pick: the chosen layout, "
                    f"and the fallback for a stricter latency SLO. Chosen by: {result.objective}."}


def _capped(result: Plan) -> str:
    """Where the SLO capped a layout's batch below its share of the users (else the table cannot say why it serves
    fewer users than it holds)."""
    capped = [f"{o.label}: {n}" for o in result.options for n in o.notes if n.startswith("batch per replica capped")]
    return f" ({'; '.join(capped)})" if capped else ""


def _slo_note(result: Plan) -> str:
    """Where the ITL SLO was checked: its statistic's step in the reply."""
    o = result.chosen
    if o.slo_itl_ms is None:
        return ""
    return (f"SLO: the ITL limit's statistic is the step {result.itl_slo_share:.0%} into the reply, prompt + "
            f"{result.itl_slo_share:.0%} of the output = {o.slo_itl_context:,} tokens ({o.label}: "
            f"{o.slo_itl_ms:.1f} ms vs {result.itl_slo_ms:g} ms). ")
