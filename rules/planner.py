"""`diagnose plan`: which TP/PP/DP layout to serve a model with, and the napkin math behind it.

The serving decision tree, in order:
1. Does the model (weights + one sequence of KV at the context) fit on one GPU? Then TP=1 and
   every GPU is a data-parallel replica: no communication at all.
2. Else the smallest TP (a power of two within one node, valid for the model's heads) that
   leaves a KV budget for at least one sequence.
3. Either way, while the replicas together hold fewer concurrent sequences than asked, take the
   next TP: fewer weight copies leave more memory to the KV cache.
4. If no TP within a node fits, TP = the node and PP across nodes (the all-reduce stays on
   NVLink; only one activation per micro-batch crosses the network per stage).
5. MoE models: experts spread over the GPUs of a replica (EP), attention by TP.
6. With an ITL SLO, the batch per replica is capped where the predicted ITL meets it; if it
   cannot, the next larger TP is tried. The fallback is the next larger TP (lower ITL, fewer
   users): the layout to move to for a stricter SLO.

Impossible requests (a model that does not fit on all the GPUs given, a GPU count no layout
divides) raise InputError: the CLI prints one line and exits 2. A plan that serves fewer users
than asked, or misses the SLO, is a finding.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from diagnose.errors import InputError
from diagnose.findings import Evidence, Finding
from rules.engine import rule

TP_SIZES = (1, 2, 4, 8, 16, 32, 64)
SOURCE = "prediction:planner"


@dataclass
class Option:
    """One layout's napkin math (all memory in GB = 1e9 B, per GPU unless named per replica)."""

    tp: int
    pp: int
    dp: int
    gpus_used: int
    usable_gb: float
    weights_gb_per_gpu: float
    kv_budget_gb_per_gpu: float
    kv_bytes_per_token_per_gpu: float
    kv_tokens_per_replica: int
    slots_per_replica: int
    total_slots: int
    batch_per_replica: int
    itl_ms: float
    itl_ms_roofline: float
    tok_s_per_user: float
    tok_s_total: float
    ttft_ms: float
    allreduce_share: float
    ep: int = 1
    experts_per_gpu: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"TP{self.tp}" + (f" PP{self.pp}" if self.pp > 1 else "") + f" x DP{self.dp}"

    def to_dict(self) -> dict:
        return {**asdict(self), "label": self.label}


def option(model, gpu, tp: int, pp: int, gpus: int, context: int, concurrency: int, prompt: int, dtype: str,
           kv_dtype: str | None, gpus_per_node: int, itl_slo_ms: float | None = None) -> Option | None:
    """Napkin math for TP x PP with DP filling `gpus`; None when it does not fit one sequence."""
    from rules import roofline

    dp = gpus // (tp * pp)
    probe = roofline.predict(model, gpu, roofline.Layout(tp, pp, dp), batch=1, prompt=prompt, context=context,
                             dtype=dtype, kv_dtype=kv_dtype, gpus_per_node=gpus_per_node)
    if probe.max_concurrent_seqs < 1:
        return None
    slots = probe.max_concurrent_seqs
    batch = max(1, min(slots, math.ceil(concurrency / dp)))
    p = roofline.predict(model, gpu, roofline.Layout(tp, pp, dp), batch=batch, prompt=prompt, context=context,
                         dtype=dtype, kv_dtype=kv_dtype, gpus_per_node=gpus_per_node)
    notes = []
    if itl_slo_ms and p.decode_step_ms_expected > itl_slo_ms:
        capped = _batch_for_itl(model, gpu, tp, pp, dp, batch, prompt, context, dtype, kv_dtype, gpus_per_node, itl_slo_ms)
        if capped:
            notes.append(f"batch per replica capped at {capped} (from {batch}) to meet ITL <= {itl_slo_ms:g} ms")
            batch = capped
            p = roofline.predict(model, gpu, roofline.Layout(tp, pp, dp), batch=batch, prompt=prompt, context=context,
                                 dtype=dtype, kv_dtype=kv_dtype, gpus_per_node=gpus_per_node)
    kv_tok = roofline.kv_bytes_per_token_per_gpu(model, tp, pp, p.kv_dtype, context)
    usable = roofline.usable_gb(gpu)
    weights = roofline.weights_bytes_per_gpu(model, roofline.Layout(tp, pp, dp), p.dtype) / 1e9
    budget = usable - weights
    ep = tp * dp if model.is_moe else 1
    return Option(
        tp=tp, pp=pp, dp=dp, gpus_used=tp * pp * dp, usable_gb=round(usable, 3), weights_gb_per_gpu=round(weights, 3),
        kv_budget_gb_per_gpu=round(budget, 3), kv_bytes_per_token_per_gpu=kv_tok,
        kv_tokens_per_replica=int(budget * 1e9 // kv_tok), slots_per_replica=slots, total_slots=slots * dp,
        batch_per_replica=batch, itl_ms=p.decode_step_ms_expected, itl_ms_roofline=p.decode_step_ms,
        tok_s_per_user=p.decode_tok_s_expected, tok_s_total=round(p.decode_tok_s_expected * batch * dp, 1),
        ttft_ms=p.ttft_ms_expected, allreduce_share=p.allreduce_share_expected, ep=ep,
        experts_per_gpu=round(model.experts / ep, 2) if model.is_moe else 0.0, notes=notes,
    )


def _batch_for_itl(model, gpu, tp, pp, dp, batch, prompt, context, dtype, kv_dtype, gpus_per_node, slo) -> int | None:
    """The largest batch per replica (<= batch) whose expected ITL meets the SLO (binary search)."""
    from rules import roofline

    def itl(b):
        return roofline.predict(model, gpu, roofline.Layout(tp, pp, dp), batch=b, prompt=prompt, context=context,
                                dtype=dtype, kv_dtype=kv_dtype, gpus_per_node=gpus_per_node).decode_step_ms_expected

    if itl(1) > slo:
        return None
    lo, hi = 1, batch
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if itl(mid) <= slo else (lo, mid - 1)
    return lo


def plan(model, gpu, gpus: int, context: int, concurrency: int, *, prompt: int | None = None, dtype: str | None = None,
         kv_dtype: str | None = None, gpus_per_node: int = 8, itl_slo_ms: float | None = None,
         ttft_slo_ms: float | None = None) -> dict:
    """Walk the decision tree (module docstring); the result is what the plan rules read."""
    from rules import catalog, roofline

    model, gpu = catalog.model(model), catalog.gpu(gpu)
    dtype = dtype or model.checkpoint_dtype
    prompt = min(prompt or 1024, context)
    if gpus < 1 or context < 1 or concurrency < 1:
        raise InputError("--gpus, --context and --concurrency must be positive")
    if model.max_context and context > model.max_context:
        raise InputError(f"--context {context} is longer than {model.name}'s {model.max_context}-token window")
    node = min(gpus, gpus_per_node)
    tps = [t for t in TP_SIZES if t <= node and gpus % t == 0
           and not any(pr.severity == "error" for pr in roofline.validity(model, t, 1, dtype))]
    if not tps:
        raise InputError(f"no tensor-parallel size divides {gpus} GPU(s) and {model.name}'s {model.heads} heads / "
                         f"{model.kv_heads} KV heads")
    args = dict(context=context, concurrency=concurrency, prompt=prompt, dtype=dtype, kv_dtype=kv_dtype,
                gpus_per_node=gpus_per_node, itl_slo_ms=itl_slo_ms)
    steps: list[str] = []
    options = [o for o in (option(model, gpu, t, 1, gpus, **args) for t in tps) if o]
    one = roofline.predict(model, gpu, roofline.Layout(1, 1, 1), batch=1, prompt=prompt, context=context, dtype=dtype,
                           kv_dtype=kv_dtype, gpus_per_node=gpus_per_node)
    if options and options[0].tp == 1:
        steps.append(f"Fits on one GPU: {one.weights_gb_per_gpu:.1f} GB of weights + {one.kv_gb_per_seq_per_gpu:.2f} GB "
                     f"of KV per {context}-token sequence <= {roofline.usable_gb(gpu):.1f} GB "
                     f"usable, so start with TP1 x DP{gpus} (no communication).")
    elif options:
        steps.append(f"Does not fit on one GPU ({one.weights_gb_per_gpu:.1f} GB of weights; "
                     f"{roofline.usable_gb(gpu):.1f} GB usable): the smallest TP within a node "
                     f"that leaves a KV budget is TP{options[0].tp}.")
    else:
        options = _pipeline_options(model, gpu, gpus, node, tps, args, one, steps)
    chosen = next((o for o in options if o.total_slots >= concurrency), None)
    if chosen is None:
        chosen = max(options, key=lambda o: (o.total_slots, -o.tp))
        steps.append(f"No layout holds {concurrency} concurrent {context}-token sequences; the most is {chosen.total_slots} "
                     f"({chosen.label}).")
    elif chosen is not options[0]:
        steps.append(f"{options[0].label} holds only {options[0].total_slots} concurrent sequences (< {concurrency}); "
                     f"{chosen.label} holds {chosen.total_slots}: fewer weight copies leave more memory for KV.")
    if itl_slo_ms and chosen.itl_ms > itl_slo_ms:
        better = next((o for o in options if o.tp > chosen.tp and o.itl_ms <= itl_slo_ms), None)
        if better:
            steps.append(f"{chosen.label} misses ITL <= {itl_slo_ms:g} ms ({chosen.itl_ms:.1f} ms); {better.label} meets it.")
            chosen = better
    if model.is_moe:
        steps.append(f"MoE: spread the {model.experts} experts over the {chosen.ep} GPUs of the TP x DP group (expert "
                     f"parallel, {chosen.experts_per_gpu:g} experts per GPU), attention by TP{chosen.tp}.")
    fallback = next((o for o in options if o.tp * o.pp > chosen.tp * chosen.pp and o.itl_ms < chosen.itl_ms), None)
    return {
        "model": model.key, "model_name": model.name, "gpu": gpu.key, "gpu_name": gpu.name, "gpus": gpus,
        "context": context, "prompt": prompt, "concurrency": concurrency, "dtype": dtype,
        "kv_dtype": kv_dtype or ("fp16" if dtype == "fp16" else "bf16"), "gpus_per_node": gpus_per_node,
        "itl_slo_ms": itl_slo_ms, "ttft_slo_ms": ttft_slo_ms, "steps": steps,
        "options": [o.to_dict() for o in options], "chosen": chosen.to_dict(),
        "fallback": fallback.to_dict() if fallback else None, "is_moe": model.is_moe,
    }


def _pipeline_options(model, gpu, gpus, node, tps, args, one, steps) -> list[Option]:
    """TP fills a node, PP stages across nodes: the fewest stages that fit."""
    from rules import roofline

    tp = max(tps)
    for pp in range(2, gpus // tp + 1):
        if gpus % (tp * pp):
            continue
        o = option(model, gpu, tp, pp, gpus, **args)
        if o:
            if tp * pp > node:
                steps.append(f"Does not fit in one node even at TP{tp}; TP{tp} within each node and PP{pp} across nodes "
                             f"({math.ceil(tp * pp / node)} nodes per replica).")
            else:
                steps.append(f"TP{tp}, the largest TP that divides {gpus} GPU(s), {model.heads} heads and {model.kv_heads} KV "
                             f"heads, does not fit; "
                             f"PP{pp} splits the {model.layers} layers over {tp * pp} GPUs instead"
                             + (" (no TP all-reduce)." if tp == 1 else "."))
            return [o] + [x for x in (option(model, gpu, tp, q, gpus, **args) for q in range(pp + 1, gpus // tp + 1)
                                      if gpus % (tp * q) == 0) if x]
    need = one.weights_gb_per_gpu
    usable = roofline.usable_gb(gpu)
    raise InputError(f"{model.name} ({need:.0f} GB of {args['dtype']} weights + KV for one {args['context']}-token "
                     f"sequence) does not fit on {gpus} x {gpu.name} ({gpus * usable:.0f} GB usable in total); "
                     f"use more GPUs, {roofline.smaller_dtype_hint(args['dtype'])}or a shorter --context")


# --------------------------------------------------------------------------- rules


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _plan(predictions) -> dict:
    return predictions.get("plan") or {} if isinstance(predictions, dict) else {}


def _where(p: dict, o: dict) -> str:
    return f"{SOURCE} ({p['model']} {p['dtype']} on {p['gpus']} x {p['gpu']}, {o['label']}, {p['context']}-token context)"


@rule("plan.recommendation", "expected_physics")
def recommendation(facts, predictions):
    """The layout the decision tree lands on, with its napkin math."""
    p = _plan(predictions)
    if not p:
        return
    o = p["chosen"]
    yield Finding(
        rule="plan.recommendation", category="expected_physics", severity="info", confidence=0.7,
        title=f"Serve {p['model_name']} as {o['label']}: {o['total_slots']} concurrent {p['context']}-token sequences, "
        f"~{o['tok_s_per_user']:.0f} tok/s per user, ~{o['tok_s_total']:.0f} tok/s in total",
        summary=" ".join(p["steps"]) + f" Per GPU: {o['weights_gb_per_gpu']:.1f} GB of weights, {o['kv_budget_gb_per_gpu']:.1f} GB "
        f"left for KV = {o['kv_tokens_per_replica']:,} tokens per replica = {o['slots_per_replica']} sequences; "
        f"{_count(o['dp'], 'replica')}. At {_count(o['batch_per_replica'], 'sequence')} per replica the expected ITL is {o['itl_ms']:.1f} ms "
        f"(roofline {o['itl_ms_roofline']:.1f} ms), TTFT {o['ttft_ms']:.0f} ms for a {p['prompt']}-token prompt.",
        evidence=[
            Evidence(_where(p, o), "weights per GPU vs usable memory", o["weights_gb_per_gpu"], o["usable_gb"], "GB"),
            Evidence(_where(p, o), "KV tokens per replica (KV budget / KV bytes per token per GPU)", o["kv_tokens_per_replica"],
                     unit="tokens"),
            Evidence(_where(p, o), "concurrent sequences, all replicas", o["total_slots"], p["concurrency"], "sequences"),
            Evidence(_where(p, o), "expected inter-token latency", o["itl_ms"], p.get("itl_slo_ms"), "ms"),
        ],
        fix=f"Launch {o['dp']} replica(s) with --tensor-parallel-size {o['tp']}"
        + (f" --pipeline-parallel-size {o['pp']}" if o["pp"] > 1 else "")
        + (" --enable-expert-parallel" if p["is_moe"] and o["ep"] > 1 else "") + f" --max-model-len {p['context']}.",
    )


@rule("plan.capacity_short", "other")
def capacity_short(facts, predictions):
    """Fewer concurrent sequences fit than were asked for: the rest queue."""
    p = _plan(predictions)
    if not p or p["chosen"]["total_slots"] >= p["concurrency"]:
        return
    o = p["chosen"]
    yield Finding(
        rule="plan.capacity_short", category="other", severity="warning", confidence=0.8,
        title=f"Only {o['total_slots']} of {p['concurrency']} concurrent {p['context']}-token sequences fit on {p['gpus']} GPUs",
        summary=f"The KV cache holds {o['kv_tokens_per_replica']:,} tokens per replica x {o['dp']} replicas; the other "
        "requests wait in the queue, so their TTFT grows.",
        evidence=[Evidence(_where(p, o), "concurrent sequences that fit", o["total_slots"], p["concurrency"], "sequences")],
        fix="Add GPUs, use an FP8 KV cache (--kv-dtype fp8), FP8/INT4 weights, or a shorter context.",
    )


@rule("plan.slo", "latency_bound_small_batch", "other")
def slo(facts, predictions):
    """The ITL/TTFT SLO against the chosen layout's prediction, and the fallback for a stricter one."""
    p = _plan(predictions)
    if not p:
        return
    o, fb = p["chosen"], p.get("fallback")
    misses = []
    if p.get("itl_slo_ms") and o["itl_ms"] > p["itl_slo_ms"]:
        misses.append(("ITL", o["itl_ms"], p["itl_slo_ms"]))
    if p.get("ttft_slo_ms") and o["ttft_ms"] > p["ttft_slo_ms"]:
        misses.append(("TTFT", o["ttft_ms"], p["ttft_slo_ms"]))
    if misses:
        yield Finding(
            rule="plan.slo", category="latency_bound_small_batch" if misses[0][0] == "ITL" else "other", severity="warning",
            confidence=0.7, title=f"{o['label']} misses the SLO: " + ", ".join(f"{k} {v:.1f} ms > {t:g} ms" for k, v, t in misses),
            summary="No TP size on these GPUs brings the predicted latency under the SLO at this context and batch 1 "
            "per replica: the per-token time is set by weight streaming and the all-reduce latency.",
            evidence=[Evidence(_where(p, o), f"expected {k}", v, t, "ms") for k, v, t in misses],
            fix="Use faster GPUs, FP8/INT4 weights (less to stream per token), or speculative decoding.",
        )
    if fb:
        yield Finding(
            rule="plan.slo", category="expected_physics", severity="info", confidence=0.6,
            title=f"For a stricter latency SLO: {fb['label']} (ITL {fb['itl_ms']:.1f} ms vs {o['itl_ms']:.1f} ms, "
            f"{fb['total_slots']} sequences)",
            summary=f"{fb['label']} streams {fb['weights_gb_per_gpu']:.1f} GB per GPU per token instead of "
            f"{o['weights_gb_per_gpu']:.1f} GB, at the cost of {fb['allreduce_share']:.0%} of the step in all-reduces"
            + (f" and {fb['total_slots']} instead of {o['total_slots']} concurrent sequences." if fb["total_slots"] < o["total_slots"]
               else f"; with fewer weight copies it holds {fb['total_slots']} concurrent sequences instead of {o['total_slots']}."),
            evidence=[Evidence(_where(p, fb), "expected ITL of the fallback layout", fb["itl_ms"], o["itl_ms"], "ms")],
            fix=f"Move to {fb['label']} if the ITL target drops below {o['itl_ms']:.1f} ms.",
        )
