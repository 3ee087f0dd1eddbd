"""Findings from a plan: they read a rules.predictions.Plan (what rules.planner.plan returns).
"""

from __future__ import annotations

from diagnose.findings import Evidence, Finding
from rules.engine import rule
from rules.planner import SOURCE
from rules.predictions import Option, Plan


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _where(p: Plan, o: Option) -> str:
    return f"{SOURCE} ({p.model} {p.dtype} on {p.gpus} x {p.gpu}, {o.label}, {p.context}-token context)"


# the settings a plan fixes, in launch-line order, as engine-neutral words where the engine has no flag
_NEUTRAL = {"tp": "tensor parallel {value}", "pp": "pipeline parallel {value}",
            "ep": "expert parallel over {value} GPUs", "context": "{value}-token context",
            "batch": "at most {value} sequences per replica", "kv_fp8": "an FP8 KV cache"}


def _launch(p: Plan, o: Option) -> str:
    """The chosen layout as the engine's own launch line (engines.toml launch_flags); settings the
    engine has no flag for, or every setting when no engine is known, named engine-neutrally."""
    settings = {"tp": o.tp, "pp": o.pp if o.pp > 1 else None, "ep": o.ep if p.is_moe and o.ep > 1 else None,
                "context": p.context, "batch": o.batch_per_replica,
                # the plan's capacity assumes this KV cache: engines keep the model's dtype unless told
                "kv_fp8": True if p.kv_dtype == "fp8" else None}
    flags = dict(f.split("=", 1) for f in p.launch_flags)
    given = {k: v for k, v in settings.items() if v is not None}
    line = " ".join(flags[k].replace("{value}", str(v)) for k, v in given.items() if k in flags)
    neutral = ", ".join(_NEUTRAL[k].replace("{value}", str(v)) for k, v in given.items() if k not in flags)
    if not p.launch:
        return f"Run {_count(o.dp, 'replica')} with {neutral} (no launch flags known for {p.engine_name})."
    return (f"Launch {_count(o.dp, 'replica')} of {p.launch} {line}" + (f", and set {neutral}" if neutral else "")
            + f" ({p.engine_name}'s own flags).")


@rule("plan.recommendation", "expected_physics", needs=Plan)
def recommendation(facts, p: Plan):
    """The layout the objective picks from the table, with its napkin math (the same numbers as
    its row of the table)."""
    o = p.chosen
    yield Finding(
        rule="plan.recommendation", category="expected_physics", severity="info", confidence=0.7,
        title=f"Serve {p.model_name} as {o.label}: {o.served} of {p.concurrency} users at once "
        f"(holds {o.total_slots} {p.context}-token sequences), ~{o.tok_s_per_user:.0f} tok/s per user, "
        f"~{o.tok_s_total:.0f} tok/s in total",
        summary=" ".join(p.steps) + f" Per GPU: {o.weights_gb_per_gpu:.1f} GB of weights, "
        f"{o.reserved_gb_per_gpu:.1f} GB kept by the engine, {o.kv_budget_gb_per_gpu:.1f} GB left for KV = "
        f"{o.kv_tokens_per_replica:,} tokens per replica = {o.slots_per_replica} sequences; "
        f"{_count(o.dp, 'replica')}. At "
        f"{_count(o.batch_per_replica, 'sequence')} per replica the expected ITL is {o.itl_ms:.1f} ms "
        f"(roofline {o.itl_ms_roofline:.1f} ms), TTFT {o.ttft_ms:.0f} ms for a {p.prompt}-token prompt.",
        evidence=[
            Evidence(_where(p, o), "weights per GPU vs usable memory", o.weights_gb_per_gpu, o.usable_gb, "GB"),
            Evidence(_where(p, o), "KV tokens per replica (KV budget / KV bytes per token per GPU)",
                     o.kv_tokens_per_replica, unit="tokens"),
            Evidence(_where(p, o), "users served at once vs asked", o.served, p.concurrency, "sequences"),
            # predicted figures go in the expected column (nothing here is measured); the SLO is named in the detail
            Evidence(_where(p, o), (f"expected inter-token latency at {o.slo_itl_context:,} tokens (the SLO's "
                                    f"statistic, {p.itl_slo_share:.0%} into the reply; SLO {p.itl_slo_ms:g} ms)"
                                    if o.slo_itl_ms is not None else "expected inter-token latency"),
                     expected=o.slo_itl_ms if o.slo_itl_ms is not None else o.itl_ms, unit="ms"),
            Evidence(_where(p, o), f"expected output tok/s ({p.objective})", expected=o.goodput if p.itl_slo_ms or
                     p.ttft_slo_ms else o.tok_s_total, unit="tok/s"),
        ],
        fix=_launch(p, o),
    )


@rule("plan.capacity_short", "other", needs=Plan)
def capacity_short(facts, p: Plan):
    """The chosen layout serves fewer users at once than asked: the rest queue."""
    if p.chosen.served >= p.concurrency:
        return
    o = p.chosen
    capped = o.batch_per_replica * o.dp < o.total_slots
    why = (f"the SLO caps each replica at {o.batch_per_replica} sequences" if capped else
           f"the KV cache holds {o.kv_tokens_per_replica:,} tokens per replica x {o.dp} replicas")
    most = max(p.options, key=lambda x: x.total_slots)
    yield Finding(
        rule="plan.capacity_short", category="other", severity="warning", confidence=0.8,
        title=f"{o.label} serves only {o.served} of {p.concurrency} users at once within the SLO (it holds "
              f"{o.total_slots} {p.context}-token sequences)" if capped else
              f"{o.label} serves only {o.served} of {p.concurrency} users at once ({p.context}-token sequences "
              f"on {p.gpus} GPUs)",
        summary=f"Because {why}, the other requests wait in the queue and their TTFT grows."
        + (f" The layout holding the most is {most.label} with {most.total_slots}." if most.label != o.label else ""),
        evidence=[Evidence(_where(p, o), "users served at once", o.served, p.concurrency, "sequences"),
                  Evidence(_where(p, most), "the most sequences any layout holds", most.total_slots, p.concurrency,
                           "sequences")],
        fix="Add GPUs, use an FP8 KV cache (--kv-dtype fp8), FP8/INT4 weights, a shorter context, or relax the SLO.",
    )


@rule("plan.slo", "latency_bound_small_batch", "expected_physics", "other", needs=Plan)
def slo(facts, p: Plan):
    """The ITL/TTFT SLO against the chosen layout's prediction, and the fallback for a stricter one."""
    o, fb = p.chosen, p.fallback
    misses = []
    # what says no layout meets it: the lowest latency the closest layout gives, at one sequence per replica
    if p.itl_slo_ms and o.itl_ms_one > p.itl_slo_ms:
        misses.append(("ITL", o.itl_ms_one, p.itl_slo_ms))
    if p.ttft_slo_ms and o.ttft_ms_one > p.ttft_slo_ms:
        misses.append(("TTFT", o.ttft_ms_one, p.ttft_slo_ms))
    if misses:
        yield Finding(
            rule="plan.slo", category="latency_bound_small_batch" if misses[0][0] == "ITL" else "other",
            severity="warning", confidence=0.7, title=f"No layout meets the SLO; the closest, {o.label}, misses it: "
            + ", ".join(f"{k} {v:.1f} ms > {t:g} ms" for k, v, t in misses) + " at one sequence per replica",
            summary="Even at one sequence per replica no TP size on these GPUs brings the expected latency under the "
            "SLO at this context: the per-token time is set by weight streaming, the kernels' fixed costs and the "
            "all-reduce latency.",
            evidence=[Evidence(_where(p, o), f"expected {k} at one sequence per replica (SLO {t:g} ms)", expected=v,
                               unit="ms") for k, v, t in misses],
            fix="Use faster GPUs, FP8/INT4 weights (less to stream per token), speculative decoding, or relax the SLO.",
        )
    if fb:
        yield Finding(
            rule="plan.slo", category="expected_physics", severity="info", confidence=0.6,
            title=f"For a stricter latency SLO: {fb.label} (ITL {fb.itl_ms_one:.1f} ms vs {o.itl_ms_one:.1f} ms at "
            f"one sequence per replica, {fb.total_slots} sequences)",
            summary=f"{o.label} cannot go below {o.itl_ms_one:.1f} ms per token even at one sequence per replica; "
            f"{fb.label} goes down to {fb.itl_ms_one:.1f} ms. "
            f"At {fb.batch_per_replica} sequence(s) per replica {fb.label} decodes in {fb.itl_ms:.1f} ms "
            f"per token (streaming {fb.weights_gb_per_gpu:.1f} GB of weights per GPU, {fb.allreduce_share:.0%} of "
            f"the step in all-reduces) and serves {fb.served} users at once, "
            f"for ~{fb.tok_s_total:.0f} tok/s in total instead of "
            f"~{o.tok_s_total:.0f}"
            + (f"; it holds {fb.total_slots} concurrent sequences instead of {o.total_slots}."
               if fb.total_slots < o.total_slots
               else f"; with fewer weight copies it holds {fb.total_slots} concurrent sequences instead of "
                    f"{o.total_slots}."),
            evidence=[Evidence(_where(p, fb), f"expected ITL at one sequence per replica ({o.label}: "
                               f"{o.itl_ms_one:.1f} ms)", expected=fb.itl_ms_one, unit="ms")],
            fix=f"Move to {fb.label} if the ITL target drops below {o.itl_ms_one:.1f} ms.",
        )
