"""`diagnose plan`: which TP/PP/DP layout to serve a model with, and the napkin math behind it.

Every layout that fits is worked out (memory first, then the expected speed), and the one that
best meets the stated objective is chosen from that same table:
1. Candidates: every TP size within a node that divides the GPUs and the model's heads, the
   other GPUs as data-parallel replicas (TP1 when the model fits one GPU: no communication at
   all). When no TP within a node fits, TP fills the node and PP spans nodes (the all-reduce
   stays on NVLink; one activation per micro-batch crosses the network per stage).
2. Memory decides how many sequences of `context` tokens each replica holds: the engine's share
   of the GPU memory, less the weights and what the engine keeps for activations, CUDA graphs
   and communication buffers (rules.roofline.reserved_gb), is KV cache.
3. Each replica takes its share of the concurrent users, up to what it holds. With an ITL SLO
   the batch per replica is capped where the expected ITL meets it.
4. Objective: with an SLO, the most goodput (output tok/s of the users served within the SLO);
   without, the most output tok/s at the requested concurrency. Ties go to more users served,
   then the lower ITL.
5. MoE models: experts spread over the GPUs of a replica (EP), attention by TP.
A plan that serves fewer users than asked, or where no layout meets the SLO, says so as a
warning finding. Impossible requests (the model does not fit on all the GPUs given, no layout
divides the GPUs) raise InputError: the CLI prints one line and exits 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from diagnose.errors import InputError
from rules.predictions import Option, Plan

TP_SIZES = (1, 2, 4, 8, 16, 32, 64)
SOURCE = "prediction:planner"


@dataclass(frozen=True)
class Request:
    """What the user asked for, shared by every option."""

    model: object
    gpu: object
    gpus: int
    context: int
    concurrency: int
    prompt: int
    dtype: str
    kv_dtype: str | None
    gpus_per_node: int
    engine: object
    itl_slo_ms: float | None = None
    ttft_slo_ms: float | None = None
    quant: str | None = None  # a GGUF type (rules/catalog/gguf_types.toml)
    itl_slo_share: float = 0.5  # where in the reply the ITL SLO's statistic falls (roofline.slo_share: p95 -> 0.95)
    # the facts that state the machine (--node: a topology matrix, a node report): each TP size's all-reduce takes the
    # ring route they show (rules.topology.ring_route, as ticket, scaling and capture take it); None: not known
    topology: object = field(default=None, compare=False, repr=False)
    # one plan asks for the same layout and batch several times (the option, the SLO search, the plan's steps)
    _predicted: dict = field(default_factory=dict, compare=False, repr=False)

    def predict(self, tp: int, pp: int, dp: int, batch: int, itl_share: float = 0.5):
        """The prediction at this layout and batch, worked out once per request (the caller only reads it)."""
        from rules import roofline
        from rules.topology import ring_route

        key = (tp, pp, dp, batch, itl_share)
        if key not in self._predicted:
            self._predicted[key] = roofline.predict(
                self.model, self.gpu, roofline.Layout(tp, pp, dp), batch=batch, prompt=self.prompt,
                context=self.context, dtype=self.dtype, kv_dtype=self.kv_dtype, gpus_per_node=self.gpus_per_node,
                engine=self.engine, quant_group=self.quant, itl_share=itl_share, **ring_route(self.topology, tp))
        return self._predicted[key]


def option(req: Request, tp: int, pp: int) -> Option | None:
    """Napkin math for TP x PP with DP filling the GPUs; None when one sequence does not fit."""
    from rules import roofline

    dp = req.gpus // (tp * pp)
    probe = req.predict(tp, pp, dp, 1)
    one = req.predict(tp, pp, dp, 1, req.itl_slo_share) if req.itl_slo_ms else probe  # at the SLO's statistic
    slots = probe.max_concurrent_seqs
    if slots < 1:
        return None
    batch = max(1, min(slots, math.ceil(req.concurrency / dp)))
    notes = []
    meets = None
    if req.itl_slo_ms or req.ttft_slo_ms:
        capped = _batch_within_slo(req, tp, pp, dp, batch)
        meets = capped is not None
        if capped is not None and capped < batch:
            notes.append(f"batch per replica capped at {capped} (from {batch}) to meet the SLO")
        batch = capped or batch
    p = req.predict(tp, pp, dp, batch)
    served = min(req.concurrency, batch * dp)
    total = round(p.itl_tok_s_expected * served, 1)
    at_slo = req.predict(tp, pp, dp, batch, req.itl_slo_share) if req.itl_slo_ms else None
    # the memory figures unrounded, as the prediction computes them
    usable = roofline.usable_gb(req.gpu, req.engine)
    weights = roofline.weights_bytes_per_gpu(req.model, roofline.Layout(tp, pp, dp), p.dtype, req.quant) / 1e9
    reserved = roofline.reserved_gb(req.model, tp, req.engine, tp * pp)
    kv_token = roofline.kv_bytes_per_token_per_gpu(req.model, tp, pp, p.kv_dtype, req.context)
    budget = usable - weights - reserved
    return Option(
        tp=tp, pp=pp, dp=dp, gpus_used=tp * pp * dp, usable_gb=round(usable, 3),
        weights_gb_per_gpu=round(weights, 3), reserved_gb_per_gpu=round(reserved, 3),
        kv_budget_gb_per_gpu=round(budget, 3), kv_bytes_per_token_per_gpu=kv_token,
        kv_tokens_per_replica=int(budget * 1e9 // kv_token),
        slots_per_replica=slots, total_slots=slots * dp, batch_per_replica=batch, served=served,
        # ITL as predict gives it (roofline.itl_context: the reply's middle context), tok/s per user at the same one
        itl_ms=p.itl_ms_expected, itl_ms_roofline=p.itl_ms, tok_s_per_user=p.itl_tok_s_expected,
        tok_s_total=total, ttft_ms=p.ttft_ms_expected, allreduce_share=p.allreduce_share_expected,
        meets_slo=meets, goodput=total if meets in (None, True) else 0.0,
        ep=tp * dp if req.model.is_moe else 1,
        experts_per_gpu=round(req.model.experts / (tp * dp), 2) if req.model.is_moe else 0.0,
        itl_ms_one=one.itl_ms_expected, ttft_ms_one=probe.ttft_ms_expected, notes=notes,
        itl_context=p.itl_context,
        slo_itl_ms=at_slo.itl_ms_expected if at_slo else None, slo_itl_context=at_slo.itl_context if at_slo else 0,
    )


def _batch_within_slo(req: Request, tp: int, pp: int, dp: int, batch: int) -> int | None:
    """The largest batch per replica (<= batch) whose expected ITL and TTFT meet the SLO; None
    when even one sequence per replica misses it (binary search: ITL grows with the batch)."""

    def ok(b: int) -> bool:
        p = req.predict(tp, pp, dp, b, req.itl_slo_share)  # the ITL at the SLO's statistic (p95: 95 % into the reply)
        return ((not req.itl_slo_ms or p.itl_ms_expected <= req.itl_slo_ms)
                and (not req.ttft_slo_ms or p.ttft_ms_expected <= req.ttft_slo_ms))

    if not ok(1):
        return None
    lo, hi = 1, batch
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    return lo


def best(options: list[Option], slo: bool) -> Option:
    """The option the objective picks: goodput within the SLO, else throughput at the asked
    concurrency; then more users served, then the lower ITL. Without any option meeting the SLO,
    the one closest to it (lowest ITL at one sequence per replica)."""
    if slo and not any(o.meets_slo for o in options):
        return min(options, key=lambda o: (o.itl_ms_one, o.ttft_ms_one, -o.served))
    return max(options, key=lambda o: (o.goodput if slo else o.tok_s_total, o.served, -o.itl_ms))


def _simplicity(o: Option) -> tuple:
    """Fewer GPUs per replica first (less to communicate, fail and launch), a layer split before TP."""
    return o.tp * o.pp, o.tp, -o.served, o.itl_ms


def ties(options: list[Option], top: Option, slo: bool) -> list[Option]:
    """The options the predictor cannot tell from the top one: serving as many users, with an objective inside each
    other's calibrated band (a rate at least band_low of the top's: the top is then inside its band too). Empty when
    only the top qualifies."""
    from rules import catalog

    low = catalog.calibration().band[0]
    key = (lambda o: o.goodput) if slo else (lambda o: o.tok_s_total)
    found = [o for o in options if o.served >= top.served and key(o) >= key(top) * low and key(top) > 0]
    return found if len(found) > 1 else []


def plan(model, gpu, gpus: int, context: int, concurrency: int, *, engine, prompt: int | None = None,
         dtype: str | None = None, kv_dtype: str | None = None, gpus_per_node: int = 8, itl_slo_ms: float | None = None,
         ttft_slo_ms: float | None = None, quant: str | None = None, itl_slo_share: float = 0.5,
         topology=None) -> Plan:
    """Work out every layout and pick by the objective (module docstring); what the plan rules read.
    model, gpu, engine: the catalog rows (rules.catalog.model/gpu/engine), resolved by the command; topology: the
    facts of the machine's own files (Request.topology)."""
    from rules import roofline

    dtype = dtype or model.checkpoint_dtype
    prompt = min(prompt or 1024, context)
    if gpus < 1 or context < 1 or concurrency < 1:
        raise InputError("--gpus, --context and --concurrency must be positive")
    if model.max_context and context > model.max_context:
        raise InputError(f"--context {context} is longer than {model.name}'s {model.max_context}-token window")
    req = Request(model, gpu, gpus, context, concurrency, prompt, dtype, kv_dtype, gpus_per_node, engine, itl_slo_ms,
                  ttft_slo_ms, quant, itl_slo_share, topology)
    node = min(gpus, gpus_per_node)
    # an engine that splits by layers only (llama.cpp, Ollama: engines.toml parallel) is offered no TP above 1
    tps = [t for t in TP_SIZES if t <= node and gpus % t == 0 and (t == 1 or "tp" in engine.parallel)
           and not any(roofline.cannot_run(pr) for pr in roofline.validity(model, t, 1, dtype))]
    if not tps:
        raise InputError(f"no tensor-parallel size divides {gpus} GPU(s) and {model.name}'s {model.heads} heads / "
                         f"{model.kv_heads} KV heads")
    steps: list[str] = []
    options = [o for o in (option(req, t, 1) for t in tps) if o]
    one = req.predict(1, 1, 1, 1)
    usable = roofline.usable_gb(gpu, engine)
    if options and options[0].tp == 1:
        steps.append(f"Fits on one GPU: {one.weights_gb_per_gpu:.1f} GB of weights + {one.reserved_gb:.1f} GB for "
                     f"activations, graphs and buffers + {one.kv_gb_per_seq_per_gpu:.2f} GB of KV per {context}-token "
                     f"sequence <= {usable:.1f} GB usable, so TP1 x DP{gpus} (no communication) is a candidate.")
    elif options:
        steps.append(f"Does not fit on one GPU ({one.weights_gb_per_gpu:.1f} GB of weights; {usable:.1f} GB usable): "
                     f"the smallest TP within a node that leaves a KV budget is TP{options[0].tp}.")
    else:
        options = _pipeline_options(req, node, tps, one, steps)
    slo = bool(itl_slo_ms or ttft_slo_ms)
    chosen = best(options, slo)
    steps.append(_why(chosen, options, req, slo))
    if req.itl_slo_ms and chosen.meets_slo:
        steps.append(_slo_headroom(chosen, req.itl_slo_ms))
    shm = req.predict(chosen.tp, chosen.pp, chosen.dp, chosen.batch_per_replica) if chosen.tp > 1 else None
    if shm is not None and "SHM" in shm.allreduce_impl:  # rules.collectives.nccl: no PCIe P2P on this GPU
        steps.append(f"Without PCIe peer-to-peer on the {gpu.name}, NCCL stages each of {chosen.label}'s all-reduces "
                     f"through host memory (SHM): {shm.allreduce_us_expected:g} us per call expected at this batch, "
                     f"{chosen.allreduce_share:.0%} of the step; the figures above include it.")
    route = (req.predict(chosen.tp, chosen.pp, chosen.dp, chosen.batch_per_replica).assumptions.get("ring_route")
             if chosen.tp > 1 else None)
    if route:  # what --node showed of this TP ring (rules.topology.ring_route)
        from rules.topology import route_said

        steps.append(f"{chosen.label}'s all-reduce ring (GPUs 0-{chosen.tp - 1}) takes PCIe path {route_said(route)} "
                     "(--node); NCCL's protocol there prices each call.")
    if (note := roofline.fp8_upcast(gpu, dtype)):
        steps.append(note + "; the figures above assume it.")
    if model.is_moe:
        steps.append(f"MoE: spread the {model.experts} experts over the {chosen.ep} GPUs of the TP x DP group (expert "
                     f"parallel, {chosen.experts_per_gpu:g} experts per GPU), attention by TP{chosen.tp}.")
    fallback = stricter_fallback(options, chosen)
    return Plan(
        model=model.key, model_name=model.name, gpu=gpu.key, gpu_name=gpu.name, gpus=gpus,
        engine=engine.key, engine_name=engine.name, launch=engine.launch, launch_flags=engine.launch_flags,
        context=context, prompt=prompt, concurrency=concurrency, dtype=dtype,
        kv_dtype=one.kv_dtype, gpus_per_node=gpus_per_node, objective="goodput within the SLO" if slo else
        f"output tok/s at {concurrency} concurrent users",
        itl_slo_ms=itl_slo_ms, ttft_slo_ms=ttft_slo_ms, itl_slo_share=itl_slo_share, steps=steps,
        slo_met=chosen.meets_slo,
        options=options, chosen=chosen, fallback=fallback, is_moe=model.is_moe,
    )


def stricter_fallback(options: list[Option], chosen: Option) -> Option | None:
    """For a stricter latency SLO: the layout reaching the lowest ITL at one sequence per replica,
    where that is below the chosen layout's own (lower at the 0.1 ms the plan prints). Above the
    chosen layout's one-sequence ITL it meets a stricter target by capping its own batch."""
    floor = round(chosen.itl_ms_one, 1)
    return min((o for o in options if o is not chosen and round(o.itl_ms_one, 1) < floor),
               key=lambda o: o.itl_ms_one, default=None)


def _why(chosen: Option, options: list[Option], req: Request, slo: bool) -> str:
    """One sentence on why the objective lands on `chosen`, naming the runner-up."""
    key = (lambda o: o.goodput) if slo else (lambda o: o.tok_s_total)
    others = sorted((o for o in options if o is not chosen), key=key, reverse=True)
    if slo and not chosen.meets_slo:
        return (f"No layout meets the SLO even at one sequence per replica; {chosen.label} comes closest "
                f"(ITL {chosen.itl_ms_one:.1f} ms, TTFT {chosen.ttft_ms_one:.0f} ms at one sequence per replica).")
    what = "goodput within the SLO" if slo else f"output tok/s with {req.concurrency} concurrent users"
    text = f"{chosen.label} gives the most {what}: {key(chosen):.0f} tok/s serving {chosen.served} sequences"
    tied = ties(options, chosen, slo)
    if tied:  # the pick stays the table's top (what every figure above says); the tie and its simpler side are said
        from rules import catalog

        lo, hi = catalog.calibration().band
        simple = min(tied, key=_simplicity)
        names = ", ".join(f"{o.label} {key(o):.0f} tok/s" for o in tied if o is not chosen)
        text += (f"; it ties with {names}: inside each other's band (x{lo:g}-x{hi:g}) the predictor cannot tell "
                 f"them apart")
        # one recommendation: the pick (headline, table, Fix line); the simpler twin is what to measure it against
        return text + (f". The plan keeps {chosen.label}, the higher expected figure; {simple.label} is the simpler "
                       "layout (fewer GPUs per replica, less to communicate) and the one to measure it against: "
                       f"switch to it if {chosen.label} shows no measured gain." if simple is not chosen else
                       f", and {chosen.label} is also the simpler layout.")
    if others:
        text += f" ({others[0].label}: {key(others[0]):.0f} tok/s, {others[0].served} sequences)"
    return text + "."


def _slo_headroom(o: Option, limit: float) -> str:
    """What 'met' rests on: the expected (typical) ITL, not a percentile. The calibrated band's slow edge is how slow
    a healthy system of this layout runs; past the limit, a tail target (p95, p99) has no headroom."""
    from rules import catalog

    itl, at = (o.slo_itl_ms, f" at {o.slo_itl_context:,} tokens") if o.slo_itl_ms is not None else (o.itl_ms, "")
    edge = itl * catalog.calibration().band[1]
    return (f"The ITL limit ({limit:g} ms) is checked against {o.label}'s expected ITL{at}, {itl:.1f} ms, a typical "
            f"figure, not a percentile: a healthy system runs up to x{catalog.calibration().band[1]:g} of it "
            f"({edge:.1f} ms), " + ("past the limit, so a p95 or p99 target may be missed; measure the tail before "
                                     "relying on it." if edge > limit else "still within the limit."))


def _pipeline_options(req: Request, node: int, tps: list[int], one, steps: list[str]) -> list[Option]:
    """TP fills a node, PP stages across nodes: the fewest stages that fit, and more."""
    from rules import roofline

    tp = max(tps)
    model, gpus = req.model, req.gpus
    for pp in range(2, gpus // tp + 1):
        if gpus % (tp * pp):
            continue
        o = option(req, tp, pp)
        if o:
            if "tp" not in req.engine.parallel:
                steps.append(f"Does not fit on one GPU; {req.engine.name.split(' (')[0]} splits a model by whole "
                             f"layers, not by tensor parallelism (engines.toml parallel): PP{pp} puts the "
                             f"{model.layers} layers on {pp} GPUs, the fewest that hold it (no all-reduce).")
            elif tp * pp > node:
                steps.append(f"Does not fit in one node even at TP{tp}; TP{tp} within each node and PP{pp} across "
                             f"nodes ({math.ceil(tp * pp / node)} nodes per replica).")
            else:
                steps.append(f"TP{tp}, the largest TP that divides {gpus} GPU(s), {model.heads} heads and "
                             f"{model.kv_heads} KV heads, does not fit; "
                             f"PP{pp} splits the {model.layers} layers over {tp * pp} GPUs instead"
                             + (" (no TP all-reduce)." if tp == 1 else "."))
            return [o] + [x for x in (option(req, tp, q) for q in range(pp + 1, gpus // tp + 1)
                                      if gpus % (tp * q) == 0) if x]
    # the most-split layout, with the figures predict's does_not_fit gives for it
    pp = gpus // tp
    most = req.predict(tp, pp, 1, 1)
    label = f"TP{tp}" + (f" x PP{pp}" if pp > 1 else "")
    raise InputError(f"{model.name} does not fit on {gpus} x {req.gpu.name} even as {label}: short by "
                     f"{most.memory_shortfall_gb:.1f} GB per GPU ({most.weights_gb_per_gpu:.1f} GB of weights + "
                     f"{most.reserved_gb:.1f} GB kept by the engine + KV for one {req.context}-token sequence, "
                     f"{roofline.usable_gb(req.gpu, req.engine):.1f} GB usable); use more GPUs, "
                     f"{roofline.smaller_dtype_hint(req.dtype)}or a shorter --context")
