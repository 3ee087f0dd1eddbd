"""Findings from roofline predictions: invalid and non-fitting layouts, where the all-reduce
flattens TP scaling, and which layout to pick for latency versus throughput.

These rules read a rules.predictions.PredictResult (what `diagnose predict` builds: one
PredictRow per layout x batch, a rules.roofline.Prediction with its `total_batch`). They fire on
nothing else, so other commands are unaffected.
"""

from __future__ import annotations

from collections import defaultdict

from diagnose.findings import Evidence, Finding
from rules.catalog import ModelSpec
from rules.engine import rule
from rules.expectations import band_text
from rules.predictions import PredictResult, PredictRow
from rules.roofline import cannot_run, smaller_dtype_hint
from rules.workload import heads_title

SOURCE = "prediction:roofline"
# A TP step-up that buys less than this share of the ideal speed-up is "flattening" ...
FLAT_SCALING = 0.90
# ... and it is blamed on the all-reduce only when that term is at least this share of the step
# (collectives-reference.md 3.4: ~5-14 % at TP4, ~15-32 % at TP8 for Llama-3-70B).
COMM_SHARE = 0.15


def _loadable(p: PredictRow) -> bool:
    """A layout that fits, whose heads split, and whose checkpoint blocks load at its TP: the only
    ones a recommendation or a scaling step may name."""
    return p.usable and not any(cannot_run(pr) for pr in p.problems)


def _fabric(p: PredictRow) -> str:
    """The fabric and, where it is not the fabric's own path, how the all-reduce crosses it (NCCL's
    SHM through host memory on a GPU without PCIe peer-to-peer), as the table's note says."""
    return p.interconnect + (f", {p.allreduce_impl}" if "SHM" in (p.allreduce_impl or "") else "")


def _where(p: PredictRow) -> str:
    return f"{SOURCE} ({p.model} on {p.gpu}, {p.label}, batch {p.total_batch})"


@rule("predict.invalid_layout", "tp_not_dividing_heads", "other", needs=PredictResult)
def invalid_layout(facts, predictions):
    """TP sizes the model's heads, KV heads, FFN or quantisation blocks cannot be split into: one
    finding per TP size, every reason in it, and the sizes that would work. A split the heads
    refuse, or one the checkpoint's quantisation blocks do not load at, cannot run at all, so it
    is critical here as in scaling and ticket (workload.tp_not_dividing_heads): a what-if names the
    same impossible layout, and no other finding recommends it (on a capture that ran, such a --tp
    is a warning that the command line is not the run). A TP size the default
    sweep chose by itself (no --tp) is only skipped, with a note: nobody asked for it."""
    by_tp: dict[int, tuple[PredictRow, list]] = {}
    for p in predictions.layouts:
        probs = refusals(p.problems)
        if probs:
            by_tp.setdefault(p.tp, (p, probs))
    for tp, (p, probs) in sorted(by_tp.items()):
        yield layout_refused("predict.invalid_layout", tp, probs, predictions.model, p.dtype, _where(p),
                             asked=predictions.tp_asked)


def refusals(problems) -> list:
    """The problems that keep a layout from running: heads, KV heads or widths that do not split,
    checkpoint blocks that do not load (rules.roofline.validity)."""
    return [pr for pr in problems if pr.category == "tp_not_dividing_heads" and pr.severity in ("error", "warning")]


def layout_refused(rule: str, tp: int, probs: list, model: ModelSpec, dtype: str, where: str,
                   asked: bool = True) -> Finding:
    """The one finding for a TP size that cannot run, in predict and scaling: critical where the user
    asked for (or measured) the layout, an info note where a default sweep chose it."""
    hard = any(pr.severity == "error" for pr in probs)
    valid = _valid_tps(model, dtype)
    sizes = f" Valid TP sizes up to 64: {', '.join(map(str, valid))}." if valid else ""
    evidence = [Evidence(source=where, detail=pr.message, measured=tp,
                         expected=f"TP in {{{', '.join(map(str, valid))}}}", unit=None) for pr in probs]
    if not asked:
        return Finding(
            rule=rule, category="other", severity="info", confidence=0.5,
            title=f"TP={tp} skipped: not a valid split for {model.key}",
            summary="; ".join(pr.message for pr in probs) + ". The default sweep chose this size by itself; it "
            "cannot run, so its row is no recommendation." + sizes,
            evidence=evidence, fix="Name the TP sizes to compare with --tp.")
    # a checkpoint that cannot load is as unable to run as heads that cannot split: critical both
    return Finding(
        rule=rule,
        category="tp_not_dividing_heads",
        severity="critical",
        confidence=0.95 if hard else 0.9,
        title=heads_title(tp, model.heads) if model.heads % tp
        else f"TP={tp} is not a valid split for {model.key}" if hard
        else f"TP={tp}: {dtype} checkpoint blocks do not divide",
        summary="; ".join(pr.message for pr in probs) + ". " + (
            "Serving engines refuse to start with this tensor-parallel size."
            if hard else "Block-quantised checkpoints fail to load at this TP; an unquantised or per-channel "
                         "checkpoint would load."
        ) + sizes,
        evidence=evidence,
        fix="Pick a TP size that divides the attention heads, the KV heads (or is a multiple of them) and the FFN "
        "width; use PP or DP for the remaining GPUs.",
        references=["https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/layers/linear.py "
                    "(QKVParallelLinear)"],
    )


def _valid_tps(model: ModelSpec, dtype: str) -> list[int]:
    """The TP sizes up to 64 this model (and checkpoint dtype) can be split into and loaded at."""
    from rules import roofline

    return [t for t in range(1, 65) if not any(cannot_run(pr) for pr in roofline.validity(model, t, 1, dtype))]


LAYOUT_ADVICE = {
    "tp_spans_nodes": "Keep TP inside one NVLink domain (TP <= GPUs per node) and span nodes with PP or DP, "
    "whose traffic is one send/recv per stage boundary instead of two all-reduces per layer.",
    "pp_uneven": "Choose a PP size that divides the layer count, or give the first and last stages fewer layers "
    "(they also hold the embedding and the LM head).",
}


@rule("predict.layout_warning", "cross_node_tp", "pp_bubble", needs=PredictResult)
def layout_warning(facts, predictions):
    """Layouts that run but waste the hardware: TP across nodes, PP stages of unequal size."""
    seen: dict[tuple, dict] = {}
    for p in predictions.layouts:
        for pr in p.problems:
            if pr.code in LAYOUT_ADVICE:
                seen.setdefault((pr.code, p.label), {"p": p, "problem": pr})
    for (code, name), hit in sorted(seen.items()):
        p, pr = hit["p"], hit["problem"]
        share = (f" The all-reduces take {p.allreduce_share_expected:.0%} of the expected decode step."
                 if code == "tp_spans_nodes" else "")
        yield Finding(
            rule="predict.layout_warning",
            category=pr.category,
            severity="warning" if pr.severity in ("warning", "error") else "info",
            confidence=0.8,
            title=f"{name}: {pr.message.split(':')[0].split(';')[0]}",
            summary=pr.message + "." + share,
            evidence=_layout_evidence(code, name, p, predictions.model),
            fix=LAYOUT_ADVICE[code],
        )


def _layout_evidence(code: str, name: str, p: PredictRow, model: ModelSpec) -> list[Evidence]:
    """The numbers the layout problem rests on: the all-reduce time across nodes, or the layers
    of the largest PP stage against an even split."""
    if code == "pp_uneven":
        layers = model.layers
        return [Evidence(source=f"catalog model {p.model}", detail=f"{name}: layers in the largest of {p.pp} stages "
                         f"({layers} layers)", measured=-(-layers // p.pp), expected=round(layers / p.pp, 2),
                         unit="layers")]
    return [Evidence(source=_where(p), detail=f"{name}: expected all-reduce time per decode step ({_fabric(p)})",
                     expected=p.allreduce_ms_per_step_expected, unit="ms")]


@rule("predict.does_not_fit", "other", needs=PredictResult)
def does_not_fit(facts, predictions):
    """Layouts whose weights (+ KV cache for the batch) exceed the usable GPU memory."""
    bad = [p for p in predictions.layouts if p.valid and not p.fits]
    if not bad:
        return
    worst = max(bad, key=lambda p: p.memory_shortfall_gb)
    names = ", ".join(dict.fromkeys(f"{p.label} @ batch {p.total_batch}" for p in bad))
    usable = _usable_gb(predictions)
    yield Finding(
        rule="predict.does_not_fit",
        category="other",
        severity="warning",
        confidence=0.9,
        title=f"{len(bad)} layout(s) do not fit in GPU memory",
        summary=f"Does not fit: {names}. The worst, {worst.label}, is {shortfall_words(worst, usable)}.",
        evidence=[shortfall_evidence(p, usable, _where(p), p.label) for p in bad[:6]],
        fix=f"Use more GPUs per replica (TP or PP), {smaller_dtype_hint(worst.dtype)}an FP8 KV cache, "
        "or fewer concurrent sequences / shorter context.",
    )


@rule("predict.allreduce_flattens_scaling", "comm_bound", "latency_bound_small_batch", needs=PredictResult)
def allreduce_flattens_scaling(facts, predictions):
    """Where doubling TP stops halving the decode step because the all-reduce term does not shrink."""
    groups = defaultdict(list)
    for p in predictions.layouts:
        if _loadable(p) and p.pp == 1:
            groups[p.total_batch].append(p)
    for batch, rows in sorted(groups.items()):
        rows = sorted({p.tp: p for p in rows}.values(), key=lambda p: p.tp)
        for a, b in zip(rows, rows[1:]):
            ideal = b.tp / a.tp
            speedup = a.decode_step_ms_expected / b.decode_step_ms_expected
            if speedup >= FLAT_SCALING * ideal or b.allreduce_share_expected < COMM_SHARE:
                continue
            small = b.batch <= 4
            yield Finding(
                rule="predict.allreduce_flattens_scaling",
                category="latency_bound_small_batch" if small else "comm_bound",
                severity="info",
                confidence=0.7,
                title=f"TP{a.tp} -> TP{b.tp} speeds decode up only {speedup:.2f}x (ideal {ideal:.0f}x) "
                      f"at batch {batch}",
                summary=(
                    f"The weight-streaming term shrinks with TP but the {b.allreduce_count_per_step} all-reduces per "
                    f"step ({b.allreduce_bytes} B each) do not: they take {b.allreduce_ms_per_step_expected:.2f} ms "
                    f"of a {b.decode_step_ms_expected:.2f} ms step at TP{b.tp} ({b.allreduce_share_expected:.0%}). "
                    + ("At this batch every all-reduce is latency-bound, so a faster link does not help; fewer or "
                       "cheaper collectives do." if small
                       else "The messages are large enough that bus bandwidth matters.")
                ),
                evidence=[
                    Evidence(source=_where(a), detail=f"expected decode step at TP{a.tp}",
                             expected=a.decode_step_ms_expected, unit="ms"),
                    Evidence(source=_where(b), detail=f"expected decode step at TP{b.tp} (ideal scaling from "
                             f"TP{a.tp}: {a.decode_step_ms_expected / ideal:.3g} ms)",
                             expected=b.decode_step_ms_expected, unit="ms"),
                    Evidence(source=_where(b), detail=f"expected all-reduce time per step at TP{b.tp} ({_fabric(b)})",
                             expected=b.allreduce_ms_per_step_expected, unit="ms"),
                ],
                fix="Keep TP at the smallest size that meets the latency target and scale out with DP; use CUDA graphs "
                "and a custom/one-shot all-reduce (vLLM, TRT-LLM) for small messages; larger batches amortise the "
                "per-call latency.",
                references=["https://github.com/NVIDIA/nccl/blob/master/src/graph/tuning.cc"],
            )
            break  # the first doubling that flattens is the finding


@rule("predict.best_layout", "expected_physics", needs=PredictResult)
def best_layout(facts, predictions):
    """Which layout serves best for a latency goal (ITL) and for a throughput goal (tok/s per GPU)."""
    groups = defaultdict(list)
    for p in predictions.layouts:
        if _loadable(p):
            groups[p.total_batch].append(p)
    for batch, every in sorted(groups.items()):
        # TP across nodes is never picked while a layout inside a node remains (as `plan` picks): its
        # expected all-reduce rests on the catalog's network figure, not on a measured cross-node cost,
        # and predict.layout_warning flags it
        rows = [p for p in every if not _spans_nodes(p)] or every
        left_out = [p for p in every if p not in rows]
        if len(rows) == 1 and not left_out:
            yield _single_layout(batch, rows[0])
            continue
        fastest = min(rows, key=lambda p: (p.decode_step_ms_expected, p.gpus))
        per_gpu = max(rows, key=lambda p: (_total(p) / p.gpus, -p.gpus))
        same = fastest is per_gpu
        skipped = ("" if not left_out else
                   f" Not picked: {', '.join(dict.fromkeys(p.label for p in left_out))}, whose TP spans nodes "
                   f"(predict.layout_warning): {_expected_across_nodes(left_out, fastest)}")
        yield Finding(
            rule="predict.best_layout",
            category="expected_physics",
            severity="info",
            confidence=0.6,
            title=(f"At batch {batch}: {fastest.label} on {fastest.gpus} GPUs is best for both latency and throughput "
                   "per GPU" if same else
                   f"At batch {batch}: {fastest.label} for latency, {per_gpu.label} for throughput per GPU"),
            summary=(
                f"Lowest inter-token latency: {fastest.label} ({fastest.decode_step_ms_expected:.2f} ms, "
                f"{fastest.decode_tok_s_expected:.0f} tok/s per sequence). Most decode tokens per GPU: {per_gpu.label} "
                f"({_total(per_gpu) / per_gpu.gpus:.0f} tok/s per GPU, {_total(per_gpu):.0f} tok/s in total). "
                "TP cuts latency until the all-reduce dominates; DP replicas add throughput without any communication."
                + skipped + _notes(fastest)
            ),
            evidence=[
                Evidence(source=_where(p),
                         detail=f"{p.label}: expected ITL ({_total(p) / p.gpus:.1f} decode tok/s per GPU)"
                         + (", TP across nodes: not picked" if p in left_out else ""),
                         expected=p.decode_step_ms_expected, unit="ms")
                for p in sorted(every, key=lambda p: (p.gpus, p.tp))[:8]
            ],
            fix=f"Latency goal: serve with {fastest.label}. Throughput goal: {per_gpu.label}"
            + ("" if same else "; measure both with your request mix before choosing."),
        )


@rule("predict.speculative_decode", "expected_physics", needs=PredictResult)
def speculative_decode(facts, predictions):
    """One stream's decode under the speculative decoding asked for (--spec-method, --spec-tokens): each verify step
    streams the weights once and keeps the tokens a step published for the method (rules/catalog/speculative.toml,
    at most 1 + the draft tokens), so the expected rate is the plain band times that range and the roofline times
    its top, as the ticket path judges a stated one. Batch 1 only: a batch's verify steps grow compute-bound."""
    from rules import speculation

    spec = predictions.speculation
    rows = [p for p in predictions.layouts if spec and _loadable(p) and p.total_batch == 1]
    if not rows:
        return
    banded = [(p, speculation.speculated(spec, p.decode_tok_s_expected, p.band_low, p.band_high, p.decode_tok_s))
              for p in rows]
    p, s = max(banded, key=lambda ps: ps[1].high)
    lo, hi = s.per_step
    band = band_text(s.low, s.high)
    evidence = speculation.evidence(spec, s, p, predictions.gpu, band)
    evidence += [Evidence(source=_where(q), detail=f"{q.label}: one stream with {spec.label}{spec.drafts} (plain "
                          f"{band_text(t.plain_low, t.plain_high)} tok/s)", expected=band_text(t.low, t.high),
                          unit="tok/s") for q, t in banded[:8] if q is not p]
    yield Finding(
        rule="predict.speculative_decode", category="expected_physics", severity="info", confidence=0.5,
        title=f"With {spec.label}{spec.drafts}, one stream at {p.label} is expected at {band} tok/s "
              f"(plain {band_text(s.plain_low, s.plain_high)})",
        summary=(f"Each verify step streams the weights once and keeps {lo:g}-{hi:g} tokens by the figures published "
                 f"for {spec.label}, so one stream decodes {lo:g}-{hi:g}x the plain rate; the roofline at {hi:g} "
                 f"tokens a step is {s.roofline:.0f} tok/s. The acceptance length depends on the prompts and the "
                 "draft: the range is the published one, not this model's."),
        evidence=evidence,
        fix="Measure the acceptance length on your prompts (vLLM's 'SpecDecoding metrics' line, SGLang's 'accept len') "
            "and take the plain rate times it; at larger batches the gain shrinks as verify steps grow compute-bound.",
        references=[part.split(" ")[0] for part in s.acceptance.source.split("; ") if part.startswith("http")],
    )


def _spans_nodes(p: PredictRow) -> bool:
    return any(pr.code == "tp_spans_nodes" for pr in p.problems)


def _expected_across_nodes(left_out: list[PredictRow], fastest: PredictRow) -> str:
    """Why a cross-node layout is not picked even where its expected ITL is lower: that figure's
    all-reduce term is the catalog's network model, which no measurement here has checked."""
    best = min(left_out, key=lambda p: p.decode_step_ms_expected)
    if best.decode_step_ms_expected >= fastest.decode_step_ms_expected:
        return f"{best.label} is expected no faster ({best.decode_step_ms_expected:.2f} ms ITL)."
    return (f"{best.label}'s expected {best.decode_step_ms_expected:.2f} ms ITL beats {fastest.label}'s "
            f"{fastest.decode_step_ms_expected:.2f} ms only on the catalog's {_fabric(best)} all-reduce model "
            f"({best.allreduce_ms_per_step_expected:.2f} ms per step), not a measured cross-node cost: measure it "
            "(nccl-tests across the nodes) before choosing it.")


def _notes(p: PredictRow) -> str:
    """The layout's info-level notes that change what its figures mean (FP8 weights upcast on a GPU without FP8
    tensor cores), said in the text every format shows, not only in the JSON's layouts[].problems."""
    return "".join(f" {pr.message}." for pr in p.problems if pr.code == "no_fp8")


def _single_layout(batch, p: PredictRow) -> Finding:
    """Only one layout to judge: say what it should deliver and what bounds it."""
    return Finding(
        rule="predict.best_layout",
        category="expected_physics",
        severity="info",
        confidence=0.6,
        title=f"At batch {batch}: {p.label} should decode at {p.itl_tok_s_expected:.0f} tok/s per sequence "
        f"({p.itl_ms_expected:.2f} ms ITL at {p.itl_context:,} tokens, the reply's middle)",
        summary=f"The decode step is {p.bound}-bound: roofline {p.decode_step_ms:.2f} ms, expected "
        f"{p.decode_step_ms_expected:.2f} ms with {p.allreduce_share_expected:.0%} in all-reduces. TTFT for a "
        f"{p.prompt}-token prompt: {p.ttft_ms_expected:.0f} ms. Up to {p.max_concurrent_seqs} sequences of "
        f"{p.context} tokens fit per replica." + _notes(p),
        evidence=[
            # predicted, not measured: the expected figure and the roofline, each in the expected column
            Evidence(source=_where(p).replace(SOURCE, "prediction:expected"), detail=f"{p.label}: expected decode step",
                     expected=p.decode_step_ms_expected, unit="ms"),
            Evidence(source=_where(p),
                     detail=f"{p.label}: roofline decode step (datasheet bandwidth and FLOPs, ideal collectives)",
                     expected=p.decode_step_ms, unit="ms"),
        ],
        fix="Compare with a measured ITL (diagnose capture / ticket); pass several --tp values to compare layouts.",
    )


def shortfall_words(p, usable: float) -> str:
    """How far one layout is from fitting: the words and figures every memory-fit finding prints
    (predict's, and capture's for the layout it was given)."""
    return (f"short by {p.memory_shortfall_gb:.1f} GB per GPU ({p.weights_gb_per_gpu:.1f} GB of weights + "
            f"{p.reserved_gb:.1f} GB kept by the engine, {usable:.1f} GB usable)")


def shortfall_evidence(p, usable: float, source: str, label: str) -> Evidence:
    return Evidence(source=source, detail=f"{label}: weights per GPU + kept by the engine + KV for the batch vs "
                    "usable memory", measured=round(usable + p.memory_shortfall_gb, 2), expected=round(usable, 2),
                    unit="GB")


def _usable_gb(predictions: PredictResult) -> float:
    """GPU memory a serving engine may fill: the one figure `plan` shows too (rules.roofline.usable_gb),
    for the GPU and engine the command resolved (PredictResult.gpu, .engine), never looked up again."""
    from rules import roofline

    return roofline.usable_gb(predictions.gpu, predictions.engine)


def _total(p: PredictRow) -> float:
    """Decode tokens per second over the whole request batch (every sequence at the per-sequence rate)."""
    return p.total_batch * p.decode_tok_s_expected
