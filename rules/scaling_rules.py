"""Findings from a scaling analysis: they read the rules.predictions.ScalingAnalysis that
rules.scaling.analyse returns, and nothing else.
"""

from __future__ import annotations

from diagnose.findings import Evidence, Finding
from rules import beyond_band, beyond_roofline
from rules.engine import rule
from rules.predict_rules import layout_refused, refusals
from rules.predictions import Goodput, ScalingAnalysis, ScalingRow
from rules.scaling import (
    COMM_RATIO,
    COMM_SHARE_FLAT,
    SMALL_BATCH,
    SOURCE,
    TERM_NAMES,
    TERMS,
    beyond_title,
    comm_broken,
    same_system,
)

# Layout statuses of a system that is not broken: inside the band, faster than it (yet above the
# roofline), or as far from it as the smallest layout (scaling does not change that distance).
HEALTHY_STATUSES = {"tracks", "faster_than_band", "slow_everywhere"}
# (a layout the heads refuse, "invalid_layout", is neither: scaling.invalid_layout says it cannot run)
# What to attach when an SLO names percentiles the benchmark outputs lack (vLLM benchmark_serving's options).
PERCENTILE_RUNS = "benchmark outputs run with --percentile-metrics ttft,tpot,itl --metric-percentiles 95,99"


def _roofline_rows(s: ScalingAnalysis) -> list[ScalingRow]:
    return [r for r in s.rows if r.position == "faster_than_roofline"]


def _ms(x) -> str:
    """As the tables print it (diagnose.tables.scaling rounds to 3 decimals, the renderer to 3
    significant figures): one figure in the text and the table, never 7.86 beside 7.87."""
    from diagnose.formatting import fmt_value

    return fmt_value(round(float(x), 3), "ms")


def _what(r: ScalingRow) -> str:
    """'TP4 batch 8' (+ the lengths when the row has them; a derived batch says so)."""
    lengths = f", {r.prompt} in / {r.output} out" if r.output else ""
    if r.batch_how:
        return f"{r.label} at {r.run}, batch {r.batch} per replica (derived){lengths}"
    return f"{r.label} batch {r.batch}{lengths}"


def _unit(r: ScalingRow) -> str:
    return "ms" if r.time_metric else "tok/s"


def _step_ev(r: ScalingRow) -> Evidence:
    lo, hi = (r.expected * r.band_low, r.expected * r.band_high) if r.time_metric else \
        (r.expected / r.band_high, r.expected / r.band_low)
    derived = f"; batch {r.batch_how}" if r.batch_how else ""
    return Evidence(source=r.measured_source, detail=f"{_what(r)}: measured {r.measured_how} vs the expected figure "
                    f"(band {lo:.4g}-{hi:.4g}){derived}", measured=r.measured, expected=r.expected, unit=_unit(r))


def _model_ev(r: ScalingRow) -> Evidence:
    return Evidence(source=f"{SOURCE} ({r.model} {r.dtype} on {r.gpu}, {r.engine}, {_what(r)})",
                    detail=f"expected {r.metric} ({'; '.join(r.calibrated_with)}); the roofline (nothing real is "
                    f"faster) is {r.roofline:.4g} {_unit(r)}" + (f"; {r.weights_assumed}" if r.weights_assumed else ""),
                    expected=r.expected, unit=_unit(r))


def _layouts(predictions: ScalingAnalysis) -> dict[str, list[ScalingRow]]:
    """Rows by layout ('TP4'; 'TP4 (llama-2-70b on h100-sxm)' where a table holds several systems)."""
    rows = predictions.judged
    several = len({same_system(r) for r in rows}) > 1
    out: dict[str, list[ScalingRow]] = {}
    for r in rows:
        key = f"{r.label} ({r.model} {r.dtype} on {r.gpu}, {r.engine})" if several else r.label
        out.setdefault(key, []).append(r)
    return out


@rule("scaling.does_not_fit", "other", needs=ScalingAnalysis)
def does_not_fit(facts, predictions):
    """A layout whose GPUs cannot even hold the model's weights as described: the run measured
    something else (a quantised checkpoint, offloading, a smaller model), so no verdict on its
    speed can stand. (Weights only: the KV-cache and engine reserve estimates are too rough to
    overrule a real measurement.)"""
    for label, rs in _layouts(predictions).items():
        r = rs[0]
        if r.status != "does_not_fit":
            continue
        yield Finding(
            rule="scaling.does_not_fit", category="other", severity="warning", confidence=0.8,
            title=f"{label}: the weights of {r.model} ({r.dtype}) do not fit on {r.gpus} {r.gpu} GPU(s): "
                  f"{r.weights_gb_per_gpu:.1f} GB per GPU, {r.gpu_memory_gb:.1f} GB on the GPU",
            summary=f"The weights alone take {r.weights_gb_per_gpu:.1f} GB per GPU at {label}, more than the GPU's "
            f"{r.gpu_memory_gb:.1f} GB, so the measurement describes another setup (a quantised checkpoint, CPU "
            "offload, a smaller model). It is not judged.",
            evidence=[_step_ev(x) for x in rs[:2] if x.measured is not None] + [_model_ev(r)],
            fix="Check --model, --dtype (a quantised checkpoint), --gpu and the layout of this input; rerun.",
        )


@rule("scaling.invalid_layout", "tp_not_dividing_heads", needs=ScalingAnalysis)
def invalid_layout(facts, predictions):
    """A measured layout whose TP the model's heads, KV heads, FFN or checkpoint blocks cannot be
    split into: engines refuse to start with it, so the figure measured something else. The same
    finding `predict` gives for that TP (rules.predict_rules.layout_refused), never judged."""
    from rules.roofline import validity

    seen = set()
    for r in predictions.rows:
        model = predictions.specs.get(("model", r.model))
        if r.status != "invalid_layout" or model is None or (r.label, r.model, r.dtype) in seen:
            continue
        seen.add((r.label, r.model, r.dtype))
        probs = refusals(validity(model, r.tp, r.pp, r.dtype))
        if probs:
            yield layout_refused("scaling.invalid_layout", r.tp, probs, model, r.dtype,
                                 f"{r.measured_source}: {r.label} ({r.model} {r.dtype})")


@rule("scaling.faster_than_roofline", "other", needs=ScalingAnalysis)
def faster_than_roofline(facts, predictions):
    """A measurement better than the roofline means the inputs (model, dtype, GPU, layout,
    batch, lengths) do not describe the run, or the model is wrong: nothing real beats it
    (rules.beyond_roofline, the same finding capture and ticket give)."""
    for r in _roofline_rows(predictions):
        yield beyond_roofline.finding("scaling.faster_than_roofline", _what(r), r.measured, r.roofline, _unit(r),
                                      [_step_ev(r), _model_ev(r)], fix="Check --model, --dtype, --gpu and each input's "
                                      "TP, batch and lengths; rerun.")


@rule("scaling.broken_layout", "comm_bound", "other", needs=ScalingAnalysis)
def broken_layout(facts, predictions):
    """A layout slower than the band of a healthy system (and than its smallest layout's distance
    from the band explains): a measured all-reduce far above what the fabric should give is
    comm_bound; a gap the model cannot place is `other`, with what to check next."""
    for _label, rs in _layouts(predictions).items():
        status = rs[0].status
        if status == "comm_broken":
            yield _comm_finding(next(r for r in rs if comm_broken(r)))
        elif status == "beyond_band":
            yield _beyond_finding(rs)


def _comm_finding(r: ScalingRow) -> Finding:
    meas, n = r.allreduce_measured_us, r.allreduce_count
    ref = r.allreduce_healthy_max_us or r.allreduce_ref_us
    total = n * meas / 1e3
    return Finding(
        rule="scaling.broken_layout", category="comm_bound", severity="critical", confidence=0.85,
        title=f"{r.label}: each all-reduce takes {meas:.0f} us, {meas / ref:.1f}x the slowest healthy path on this "
              f"fabric ({ref:.1f} us)",
        summary=f"At {r.label} the {n} all-reduces per step cost {_ms(total)} of the measured {_ms(r.step_ms)} step "
        f"({total / r.step_ms:.0%}); at {ref:.1f} us each they would cost {_ms(n * ref / 1e3)}. The communication "
        "path is broken, not the physics: the all-reduce is not running over the GPU fabric at its normal latency.",
        evidence=[
            Evidence(source=r.allreduce_measured_source,
                     detail=f"measured all-reduce kernel time per call ({r.allreduce_bytes} B)",
                     measured=meas, expected=round(ref, 2), unit="us"),
            Evidence(source=r.allreduce_ref_source, detail="expected time per call at this message size and rank count "
                     "(the engine's all-reduce)", measured=r.allreduce_ref_us, unit="us"),
            Evidence(source=f"{SOURCE} (NCCL on {r.interconnect})",
                     detail="the slowest healthy path: NCCL when the engine's custom kernel is off; broken beyond "
                     f"x{COMM_RATIO:g}", measured=round(ref, 2), unit="us"),
            _step_ev(r),
        ],
        fix="Check the NCCL transport of this run (NCCL_DEBUG=INFO: P2P/IPC or NVLS expected, not SHM or NET), "
        "NCCL_P2P_DISABLE / NCCL_P2P_LEVEL, ACS/IOMMU, and that CUDA graphs and the engine's custom all-reduce are on; "
        "`diagnose ticket` on the NCCL log names the cause.",
        references=["https://github.com/NVIDIA/nccl/blob/master/src/graph/tuning.cc",
                    "https://github.com/sgl-project/sglang/pull/2904"],
    )


def _beyond_finding(rs: list[ScalingRow]) -> Finding:
    r = max(rs, key=lambda x: x.ratio)
    ratio, hi, base = r.layout_ratio, r.band_high, r.base
    return Finding(
        rule="scaling.broken_layout", category="other", severity="warning", confidence=0.6,
        title=beyond_title(r.label, ratio, hi),
        summary=f"Over its {len(rs)} figure(s), {r.label} is x{ratio:.2f} slower than a healthy system with the "
        f"{r.engine} profile{' (assumed: no engine named)' if r.engine == 'generic' else ''} gives for this model, "
        f"GPU and lengths (median), while {base} is x{r.base_ratio:.2f}: something grows at "
        "this layout that the physics does not (a slow path, a throttled or straggling GPU, or host work per rank).",
        evidence=[_step_ev(x) for x in sorted(rs, key=lambda x: -x.ratio)[:4]] + [_model_ev(r)],
        fix="Capture one step per layout with nsys and run `diagnose capture` (exposed communication, launch gaps, "
        "straggler rank); check clocks and throttle reasons (`nvidia-smi -q -d PERFORMANCE`) and the NCCL transport.",
    )


@rule("scaling.launch_gaps", "launch_bound", needs=ScalingAnalysis)
def launch_gaps(facts, predictions):
    """A capture whose GPU idles between short kernels for a large share of its time: each kernel
    waits for its launch (no CUDA graphs, host-bound Python), a per-step cost TP does not shrink.
    Threshold: rules.capture_rules.LAUNCH_GAP_SHARE."""
    for r in predictions.judged:
        if r.status != "launch_gaps":
            continue
        share = r.launch_gap_share
        gap = r.terms["launch_ms"]
        yield Finding(
            rule="scaling.launch_gaps", category="launch_bound", severity="warning", confidence=0.75,
            title=f"{r.label}: the GPU waits {_ms(gap)} per step between kernels ({gap / r.step_ms:.0%} of the step)",
            summary=f"The capture shows {share:.0%} of the GPU's active time in short gaps between kernels; with CUDA "
            f"graphs a decode step of this model loses about {_ms(r.launch_expected_ms)}. This cost is per step and "
            "per layer, so more TP does not shrink it: the step cannot fall below it.",
            evidence=[Evidence(source=r.capture_source, detail="kernel-to-kernel gaps under 50 us per step",
                               measured=gap, expected=r.launch_expected_ms, unit="ms"), _step_ev(r)],
            fix="Serve with CUDA graphs (drop --enforce-eager / --disable-cuda-graph); `diagnose capture` on the file "
            "shows where the host time goes.",
            references=["https://docs.vllm.ai/en/latest/configuration/optimization.html"],
        )


@rule("scaling.tracks_prediction", "expected_physics", "insufficient_data", needs=ScalingAnalysis)
def tracks_prediction(facts, predictions):
    """Every layout's figures inside the band of the expected figures (or as far outside it as the
    smallest layout's, which scaling does not change): the scaling measured is what the hardware
    and the engine deliver."""
    layouts = _layouts(predictions)
    if not layouts:
        return
    if len(layouts) == 1:
        (rs,) = layouts.values()
        yield from _single_layout(rs)
        return
    statuses = {rs[0].status for rs in layouts.values()}
    if not statuses <= HEALTHY_STATUSES:
        return
    doubted = [r for rs in layouts.values() for r in rs if _faster_than_calibration_only(r)]
    if doubted:
        yield _calibration_doubted(doubted)
        return
    worst = max((r for rs in layouts.values() for r in rs), key=lambda r: r.layout_ratio)
    worst_label = next(k for k, rs in layouts.items() if worst in rs)  # with its system, where there are several
    n = sum(len(rs) for rs in layouts.values())
    if statuses == {"faster_than_band"} or statuses == {"faster_than_band", "tracks"}:
        title = (f"All {len(layouts)} measured layouts are inside the expected band or faster (worst {worst_label}: "
                 f"x{worst.layout_ratio:.2f} the expected time, band x{worst.band_low:.2f}-x{worst.band_high:.2f})")
        where = (f"sit, by their median, inside the band of what a healthy {worst.engine} system delivers or above "
                 "it in speed (still below the roofline)")
    elif statuses == {"tracks"} and worst.layout_ratio <= worst.band_high:
        title = (f"All {len(layouts)} measured layouts are inside the expected band (worst {worst_label}: "
                 f"x{worst.layout_ratio:.2f} the expected time, band x{worst.band_low:.2f}-x{worst.band_high:.2f})")
        where = f"sit, by their median, inside the band of what a healthy {worst.engine} system delivers"
    else:
        title = (f"All {len(layouts)} measured layouts scale as expected: each is within the band of the smallest "
                 f"layout's x{worst.base_ratio:.2f} (worst {worst_label}: x{worst.layout_ratio:.2f})")
        where = (f"are as far from what a healthy {worst.engine} system delivers as the smallest layout's, which "
                 "scaling does not change (see the base-efficiency finding)")
    inferred = any(r.weights_assumed for rs in layouts.values() for r in rs)  # priced at weights the input never named
    yield Finding(
        rule="scaling.tracks_prediction", category="expected_physics", severity="info",
        confidence=0.6 if inferred else 0.7, title=title,
        summary=f"Each layout's {n} figure(s) {where}, for this model and GPU. The scaling measured is the scaling "
        "this hardware and engine give; nothing here points to a broken layout.",
        evidence=[_step_ev(r) for rs in layouts.values() for r in rs[:2]][:8]
        + [_model_ev(r) for r in [worst] if r.weights_assumed],
        fix="Nothing to fix; choose the layout by latency and throughput goals (see the goodput and DP findings).",
    )


def _faster_than_calibration_only(r: ScalingRow) -> bool:
    """A measured step faster than the band of its --node-calibrated expectation, yet inside or above
    the band of the healthy catalog figure: the node's figures (another machine, a table that does
    not fit the run) make the expectation too slow, not the run fast."""
    return (r.status == "faster_than_band" and r.time_metric and r.step_ms is not None and r.measured == r.step_ms
            and r.ratio is not None and r.ratio < r.band_low and r.step_ms / r.expected_ms >= r.band_low)


def _calibration_doubted(rs: list[ScalingRow]) -> Finding:
    labels = ", ".join(dict.fromkeys(r.label for r in rs))
    r = rs[0]
    return Finding(
        rule="scaling.tracks_prediction", category="insufficient_data", severity="warning", confidence=0.5,
        title=f"{labels} runs faster than the --node calibration allows ({r.label}: x{r.ratio:.2f} the calibrated "
        f"{r.expected:.4g} ms, x{r.step_ms / r.expected_ms:.2f} the healthy {r.expected_ms:.4g} ms; band "
        f"x{r.band_low:.2f}-x{r.band_high:.2f})",
        summary="Measured against the healthy figure the step is in or above the band; only the node's own figures ("
        f"{'; '.join(r.calibrated_with[1:]) or 'measured rates'}) make it look faster than a healthy system. Those "
        "figures do not describe this run (another machine, other GPUs, or a table that misses the run's message "
        "size), so the scaling is not judged against them.",
        evidence=[_step_ev(x) for x in rs[:4]] + [Evidence(
            source=f"{SOURCE} ({r.model} {r.dtype} on {r.gpu}, {r.engine})",
            detail="the healthy expected step, before the --node calibration", measured=r.step_ms,
            expected=r.expected_ms, unit="ms")],
        fix="Give --node the nccl-tests table / node report of the machine that ran these measurements (all-reduce "
        "sizes down to the run's message size), or drop --node to judge against the healthy figures.",
    )


def _single_layout(rs: list[ScalingRow]):
    """One layout: no scaling to judge, but its figures against the expected band still say something."""
    r = rs[0]
    if r.status not in ("tracks", "faster_than_band"):
        return
    if _faster_than_calibration_only(r):
        yield _calibration_doubted(rs)
        return
    yield Finding(
        rule="scaling.tracks_prediction", category="expected_physics", severity="info", confidence=0.5,
        title=f"{r.label} runs as a healthy system does (x{r.layout_ratio:.2f} the expected time, band "
        f"x{r.band_low:.2f}-x{r.band_high:.2f})",
        summary="Only one layout was measured, so scaling cannot be judged, but its figures are what its streaming, "
        "GEMMs, kernels, all-reduces and host time explain.",
        evidence=[_step_ev(r), _model_ev(r)],
        fix="Measure a second layout (TP/2 or 2x TP) with the same benchmark to see how it scales.",
        ask=f"the same benchmark at {_other_layouts(r)} to judge the scaling",
    )


def _other_layouts(r: ScalingRow) -> str:
    """The layouts beside a single measured one: twice its TP, and half of it when it has any."""
    tp = r.tp or 1
    return f"TP{tp * 2}" + (f" or TP{tp // 2}" if tp > 1 else "")


@rule("scaling.term_grows_with_tp", "expected_physics", needs=ScalingAnalysis)
def term_grows_with_tp(facts, predictions):
    """Name the modelled term that grows as TP grows (usually the all-reduce: its count per step
    is fixed and its latency rises with the rank count, while weight streaming shrinks 1/TP). The
    terms are the healthy model's, adding up to each layout's one expected step; a layout whose
    all-reduce was measured broken is left out (scaling.broken_layout names it): a broken term is
    no physics."""
    groups: dict[tuple, list[ScalingRow]] = {}
    for r in predictions.judged:
        if r.step_ms and r.status != "comm_broken":
            groups.setdefault((r.batch, r.pp, r.dp, r.prompt, r.output, *same_system(r)), []).append(r)
    for (batch, *_), measured in sorted(groups.items(), key=lambda kv: str(kv[0])):
        rows = _median_per_tp(measured)
        if len(rows) < 2 or any(_faster_than_calibration_only(r) for r in measured):
            continue  # one layout or none to compare, or terms from --node figures the run contradicts
        a, b = rows[0], rows[-1]
        growth = {k: b.expected_terms[k] - a.expected_terms[k] for k in TERMS if k != "unexplained_ms"}
        term = max(growth, key=growth.get)
        if growth[term] <= 0:
            continue
        broken = any(r.status not in HEALTHY_STATUSES for r in rows)
        # the term's share of the step the model expects (its terms' sum, the table's expected step), not
        # of the measured step: where the model over-predicts, a share of the measured step overstates it
        modelled = sum(b.expected_terms.values())
        share = b.expected_terms[term] / modelled
        of_step = f"{share:.0%} of the expected {_ms(modelled)} step"
        speedup, ideal = a.step_ms / b.step_ms, b.tp / a.tp
        small = batch <= SMALL_BATCH and term == "allreduce_ms"
        # the unexplained rest counts as none where the model is over the measured step
        extra = max(b.terms["unexplained_ms"], 0.0) - max(a.terms["unexplained_ms"], 0.0)
        ta, tb = a.expected_terms, b.expected_terms
        title = (f"At {b.label} the {b.allreduce_count} all-reduces per step cost about {_ms(tb[term])}, "
                 f"{of_step}" if term == "allreduce_ms" else
                 f"At {b.label} {TERM_NAMES[term]} costs about {_ms(tb[term])}, {of_step}")
        title += f"; {a.label} -> {b.label} gives {speedup:.2f}x of an ideal {ideal:g}x"
        rest = b.terms["unexplained_ms"]
        if rest > tb[term] and rest >= 0.25 * b.step_ms:  # the model cannot name the main cost
            title = (f"At {b.label} {rest / b.step_ms:.0%} of the {_ms(b.step_ms)} step is not explained by the "
                     f"model; the largest modelled growth, {TERM_NAMES[term]}, is {of_step}; {a.label} -> "
                     f"{b.label} gives {speedup:.2f}x of an ideal {ideal:g}x")
            broken = True
        elif rest > 0 and extra > growth[term]:  # what the model cannot name grows more than any term it can
            title = (f"From {a.label} to {b.label} the unexplained rest grows by {_ms(extra)}, more than any "
                     f"modelled term ({TERM_NAMES[term]} grows {_ms(growth[term])}): at {b.label} it is "
                     f"{_ms(rest)}, {rest / b.step_ms:.0%} of the step; {a.label} -> {b.label} gives "
                     f"{speedup:.2f}x of an ideal {ideal:g}x")
            broken = True
        summary = (f"From {a.label} to {b.label} at batch {batch}, {TERM_NAMES[term]} grows from {_ms(ta[term])} "
                   f"to {_ms(tb[term])} while weight streaming shrinks from {_ms(ta['weights_ms'])} to "
                   f"{_ms(tb['weights_ms'])}. ")
        if small and share >= COMM_SHARE_FLAT:
            summary += ("At this batch every all-reduce is a small, latency-bound message: batch-"
                        f"{batch} decode cannot scale much further on this interconnect. ")
        summary += _rest_change(a, b)
        yield Finding(
            rule="scaling.term_grows_with_tp",
            category="expected_physics",
            severity="info", confidence=0.5 if broken else 0.8, title=title, summary=summary.strip(),
            evidence=[
                Evidence(source=f"{SOURCE} + calibration",
                         detail=f"{TERM_NAMES[term]} per step at {r.label} (modelled)",
                         expected=r.expected_terms[term], unit="ms") for r in rows
            ] + [_step_ev(r) for r in sorted(measured, key=lambda r: (r.tp, r.step_ms))],
            fix="For lower latency at small batch: CUDA graphs and a one-shot/custom all-reduce (fewer, cheaper "
            "collectives); for more users: add DP replicas of a smaller TP rather than a larger TP.",
            references=["https://github.com/NVIDIA/nccl/blob/master/src/graph/tuning.cc"],
        )


def _median_per_tp(rows: list[ScalingRow]) -> list[ScalingRow]:
    """One row per TP size, by TP: where several runs measured the same TP, batch and lengths
    (repeats, or runs at several request rates), the one with the median step (the lower of the
    two middle ones), not whichever came last; the evidence lists them all."""
    by_tp: dict[int, list[ScalingRow]] = {}
    for r in rows:
        by_tp.setdefault(r.tp, []).append(r)
    return [sorted(rs, key=lambda r: r.step_ms)[(len(rs) - 1) // 2] for _, rs in sorted(by_tp.items())]


def _rest_change(a: ScalingRow, b: ScalingRow) -> str:
    """How the part of the step the model does not explain changes from a to b, as the
    decomposition table shows it: the measured step minus the modelled terms where that is
    positive, else "none", the model being over by the difference. A change under a tenth of the
    step is not worth a sentence."""
    rest_a, rest_b = a.terms["unexplained_ms"], b.terms["unexplained_ms"]
    if rest_a < 0 and rest_b < 0:  # the model is over at both: nothing unexplained to grow or shrink
        if abs(rest_b - rest_a) < 0.1 * b.step_ms:
            return ""
        return (f"Nothing is unexplained at either layout: the modelled terms exceed the measured step by "
                f"{_ms(-rest_a)} at {a.label} and {_ms(-rest_b)} at {b.label} (the system is quicker than the model "
                f"holds, {'more' if rest_b < rest_a else 'less'} so at {b.label}).")
    extra = max(rest_b, 0.0) - max(rest_a, 0.0)
    if abs(extra) < 0.1 * b.step_ms:
        return ""
    if extra > 0:
        return (f"The unexplained rest grows from {_ms(max(rest_a, 0.0))} to {_ms(rest_b)} (smaller per-GPU GEMMs run "
                "less efficiently and host work per step does not shrink with TP).")
    return (f"The unexplained rest shrinks from {_ms(rest_a)} to {_ms(max(rest_b, 0.0))} (the engine's per-step "
            f"costs at {a.label} are larger than the model holds).")


@rule("scaling.dp_alternative", "expected_physics", needs=ScalingAnalysis)
def dp_alternative(facts, predictions):
    """For the largest TP measured: what TP/2 x DP2 on the same GPUs gives per user and in total."""
    alt = predictions.dp_alternative
    if not alt:
        return
    yield Finding(
        rule="scaling.dp_alternative", category="expected_physics", severity="info", confidence=0.6,
        title=(f"{alt.alt_label} serves twice the users at {alt.per_user_ratio:.0%} of the per-user speed of "
               f"{alt.label}" if alt.per_user_ratio < 1 else
               f"{alt.alt_label} serves twice the users and is {alt.per_user_ratio:.2f}x faster per user than "
               f"{alt.label}"),
        summary=f"On the same {alt.gpus} GPUs, {alt.label} decodes at {alt.tok_s_user:.1f} tok/s per user; "
        f"{alt.alt_label} at {alt.alt_tok_s_user:.1f} tok/s per user ({alt.alt_how}) with two replicas, so "
        f"{alt.total_ratio:.2f}x the total decode throughput at the same batch per replica.",
        evidence=[Evidence(source=alt.source, detail=f"{alt.label} decode step", measured=alt.step_ms, unit="ms"),
                  Evidence(source=alt.alt_source, detail=f"{alt.alt_label} decode step ({alt.alt_how})",
                           measured=alt.alt_step_ms, unit="ms")],
        fix="Pick the larger TP only when the per-user latency target needs it.",
    )


@rule("scaling.goodput", "expected_physics", needs=ScalingAnalysis)
def goodput_rule(facts, predictions):
    """Tokens/s within the SLO per layout, and the layout that maximises it for the GPU count."""
    g = predictions.goodput
    if not g or not g.slo:
        return
    unknown = sorted({u for e in g.layouts for run in e.runs for u in run.unknown})
    slo = ", ".join(f"{k} <= {v:g} ms" for k, v in g.slo.items())
    if g.best is None:
        if unknown:
            yield Finding(rule="scaling.goodput", category="insufficient_data", severity="info", confidence=0.0,
                          title=f"Goodput cannot be judged: the benchmarks do not report {', '.join(unknown)}",
                          summary=f"The SLO ({slo}) needs percentiles the outputs lack.",
                          fix=f"attach {PERCENTILE_RUNS}", ask=PERCENTILE_RUNS)
            return
        yield Finding(rule="scaling.goodput", category="other", severity="warning", confidence=0.7,
                      title=f"No measured layout meets the SLO ({slo})",
                      summary="Every benchmark run at every layout exceeds at least one SLO percentile.",
                      evidence=_goodput_ev(g),
                      fix="Lower the concurrency per replica, or use a larger TP for lower ITL.")
        return
    best = next(e for e in g.layouts if e.label == g.best)
    yield Finding(
        rule="scaling.goodput", category="expected_physics", severity="info", confidence=0.7,
        title=f"Within the SLO ({slo}), {best.label} x {best.replicas} replicas gives the most goodput on "
        f"{g.gpus} GPUs: {best.fleet_goodput:.0f} tok/s",
        summary="; ".join(f"{e.label}: {e.goodput:.0f} tok/s per replica within the SLO x {e.replicas} = "
                          f"{e.fleet_goodput:.0f} tok/s" for e in g.layouts) + ".",
        evidence=_goodput_ev(g),
        fix=f"Serve with {best.label} replicas; recheck the SLO at the concurrency you expect.",
    )


def _goodput_ev(g: Goodput) -> list[Evidence]:
    out = []
    for e in g.layouts:
        for run in e.runs:
            for c in run.checks:
                what = (f"at {run.run}, concurrency {run.batch} per replica (derived)" if run.run else
                        f"concurrency {run.batch if run.batch is not None else 'not stated'}")
                out.append(Evidence(source=c.source, detail=f"{e.label} {what}: {c.slo} ({c.stat})",
                                    measured=c.measured, expected=c.limit, unit="ms"))
    return out[:12]


@rule("scaling.base_efficiency", "other", needs=ScalingAnalysis)
def base_efficiency(facts, predictions):
    """The smallest layout measured is itself beyond the band of a healthy system: every layout
    carries it (engine version, Python, sampling, clocks, unfused or MoE-routing kernels). A lead
    about the system, not a verdict on the scaling: the expected figure's own blind spots (a new
    architecture's extra kernels) look the same, and the band holds 95 % of healthy runs, so healthy
    published tables have such a base. The only layout measured is one figure beyond the band: the one
    lead `ticket` gives it (rules.beyond_band), so both give the same verdict, severity and exit code."""
    layouts = _layouts(predictions)
    for label, rs in layouts.items():
        r = rs[0]
        if r.label != r.base or r.layout_ratio is None or r.layout_ratio <= r.band_high:
            continue
        evidence = [_step_ev(x) for x in rs[:4]] + [_model_ev(r)]
        if len(layouts) == 1:
            edge = r.band_edge or r.band_high  # (band_high holds a prose figure's slack: rules.expectations)
            yield beyond_band.finding("scaling.base_efficiency", f"{label} at x{r.layout_ratio:.2f} the expected time",
                                      r.layout_ratio, edge, "x expected time", True, f"up to x{edge:.2f}", evidence,
                                      reported=r.reported)
            continue
        yield Finding(
            rule="scaling.base_efficiency", category="other", severity="info", confidence=0.4,
            title=f"Even {label} runs x{r.layout_ratio:.2f} the expected time of a healthy {r.engine} system "
            f"(band up to x{r.band_high:.2f})",
            summary=f"At the smallest layout measured the figures are x{r.layout_ratio:.2f} what this model, GPU and "
            "engine deliver when healthy: the host (scheduling, sampling, an older engine version, eager mode), clocks "
            "or unfused kernels cost the same at every layout. The other layouts are judged against this factor.",
            evidence=evidence,
            fix="Check the engine version and that it runs with CUDA graphs (no --enforce-eager); compare clocks and "
            "power limits (`nvidia-smi -q -d PERFORMANCE,CLOCK`); capture a step with nsys and run `diagnose capture`.",
        )
