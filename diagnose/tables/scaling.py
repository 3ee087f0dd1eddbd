"""The tables of a scaling report: each run beside its prediction, the decode step split into the
model's terms, and with an SLO the goodput per layout."""

from __future__ import annotations

from diagnose.formatting import fmt_value
from rules.predictions import Goodput, GoodputRun, ScalingAnalysis, ScalingRow
from rules.scaling import NOT_MODELLED, UPPER_BOUND


def tables(analysis: ScalingAnalysis, layout: dict | None = None) -> dict[str, dict]:
    out = {f"Scaling: {_names(analysis)}": scaling_table(analysis),
           "Decode step decomposition (ms per step)": decomposition_table(analysis)}
    if analysis.goodput:
        out["Goodput within the SLO"] = goodput_table(analysis.goodput)
    if layout:  # (last: readers take the first table as the scaling table)
        out["Layout: stated, given or assumed"] = layout
    return out


def layout_table(facts: list[tuple[str, str, str, str]]) -> dict:
    """Each fact of the layout the prediction ran with (GPU, GPUs, engine, weights, ...): stated by the inputs, given
    on the command line, or assumed (a default), with where it comes from."""
    return {"columns": ["fact", "value", "how", "source"], "rows": [list(f) for f in facts],
            "note": "assumed: neither the inputs nor the command line state it; the prediction takes the value shown "
                    "(give it with the option named to change it)."}


def _names(analysis: ScalingAnalysis) -> str:
    """'Llama-2-70B on A100 SXM4 80GB' (several when the inputs name several)."""
    specs = analysis.specs
    pairs = sorted({(r.model, r.gpu) for r in analysis.rows})
    return "; ".join(f"{specs[('model', m)].name} on {specs[('gpu', g)].name}" for m, g in pairs[:3]) + \
        (f" (+{len(pairs) - 3} more)" if len(pairs) > 3 else "")


SCALING_COLUMNS = ["layout", "model", "GPU", "run", "GPUs", "batch", "in/out", "measured", "as", "tok/s/user",
                   "decode tok/s", "speed-up / ideal", "roofline", "expected", "band", "measured / expected",
                   "layout median", "status", "roofline ms", "expected ms"]


def scaling_table(analysis: ScalingAnalysis) -> dict:
    rows = []
    # which model and GPU a row measured, where the inputs hold several (a TP2 row of each model reads alike otherwise)
    models, gpus = ({getattr(r, k) for r in analysis.rows} for k in ("model", "gpu"))
    for r in analysis.rows:
        step = r.step_ms
        has = r.ratio is not None
        same = step and r.metric == "step_ms"  # roofline/expected would repeat roofline ms/expected ms
        if has and r.time_metric:
            band = f"{r.expected * r.band_low:.4g}-{r.expected * r.band_high:.4g}"
        elif has:
            band = f"{r.expected / r.band_high:.4g}-{r.expected / r.band_low:.4g}"
        else:
            band = "-"
        rows.append([
            # the batch stays a number: the HTML scaling chart computes throughput from it
            r.label, r.model if len(models) > 1 else "-", r.gpu if len(gpus) > 1 else "-", r.run or "-", r.gpus,
            _batch(r, step),
            f"{r.prompt}/{r.output}" if r.output else "-",
            _n(r.measured, 4) if r.measured is not None else "-", r.measured_how or "-",
            _n(1e3 / step if step else None, 1), _n(_total_tok_s(r), 0),
            f"{r.speedup:.2f}x / {r.ideal_speedup:g}x" if r.speedup else "-",
            # the row's own figure's model, where it is not the decode step the last two columns show
            *(("-", "-") if same else (_n(r.roofline, 4), _n(r.expected, 4))), band,
            f"{r.ratio:.2f}" if has else "-", f"{r.layout_ratio:.2f}" if r.layout_ratio else "-",
            r.status,
            # the decode step of the model, where a decode step was measured (the HTML scaling chart draws them)
            _n(r.roofline_ms, 3) if step else "-", _n(r.calibrated_ms, 3) if step and r.status != NOT_MODELLED else "-",
        ])
    cal = analysis.calibration
    lo, hi = analysis.band
    note = ("roofline: datasheet bandwidth and FLOPs with ideal collectives (nothing real is faster); expected: what a "
            "healthy system running the engine delivers (rules.step_model, calibrated on published measurements)"
            + (", with this machine's own figures: " + "; ".join(cal) if cal else "")
            + f"; band: x{lo:.3g}-x{hi:.3g} of the expected time" + _band_note(analysis)
            + ". measured / expected is in time (above 1 is slower). A layout is judged on the median of its rows: "
            "inside the band tracks; below it is faster_than_band (quicker than the model expects, not "
            "a fault); beyond it is broken unless the smallest layout is as far beyond (slow_everywhere); a TP "
            "size the model's heads or checkpoint blocks do not split is invalid_layout, not judged. roofline ms "
            "/ expected ms: the decode step of each, where a step was measured; roofline / expected: the figure a row "
            "measures other than the step (TTFT, throughput), in its unit."
            + (" run: a benchmark result that states no concurrency, named by its request rate (rate unstated: "
               "the output holds none); its batch per replica "
               "is derived, the mean sequences decoding by Little's law (the findings' evidence shows the figures), "
               "and its step the decode time it was derived with over the tokens a request decodes (each step "
               "once: the time-weighted TPOT), so decode tok/s is the benchmark's own output rate; ?: not derivable "
               "(the result lacks request_throughput or mean TPOT), so the run is not "
               "judged (status "
               "batch unknown; its mean TPOT is shown, measured at that unknown batch)."
               if any(r.run for r in analysis.rows) else "")
            + (f" {UPPER_BOUND}: a step read as batch / output rate, which holds the prefills too, so it is not "
               "judged slow." if any(r.status == UPPER_BOUND for r in analysis.rows) else "")
            + (f" {NOT_MODELLED}: launched with {_options(analysis)}, which the predictor does not model (the step "
               "is not the tensor-parallel layout's step), so the figure is shown, never judged, as in `diagnose "
               "ticket`." if any(r.status == NOT_MODELLED for r in analysis.rows) else ""))
    keep = [i for i, c in enumerate(SCALING_COLUMNS) if any(row[i] != "-" for row in rows) or c == "measured"]
    return {"columns": [SCALING_COLUMNS[i] for i in keep], "rows": [[row[i] for i in keep] for row in rows],
            "note": note}


def _band_note(analysis: ScalingAnalysis) -> str:
    """Why the rows' bands differ, where they do: each row is judged against its own band column."""
    if len({(r.band_low, r.band_high) for r in analysis.rows}) < 2:
        return ""
    return (" (each row against its own, its band column: an engine named without its release or build covers "
            "every profile it may have run)")


def _options(analysis: ScalingAnalysis) -> str:
    """The unmodelled launch options of the runs, as flags ('--enable-dp-attention')."""
    return ", ".join(dict.fromkeys("--" + r.unmodelled.replace("_", "-") for r in analysis.rows if r.unmodelled))


def _batch(r: ScalingRow, step) -> int | str:
    """The batch per replica; "?" for a benchmark result whose batch could not be derived (not judged)."""
    if r.run and not r.batch_how:
        return "?"
    return r.batch if r.batch_stated or r.batch_how or step else "-"


def decomposition_table(analysis: ScalingAnalysis) -> dict:
    from rules import catalog
    from rules.scaling import TERMS

    columns = ["layout", "batch", "measured", "weights", "KV+act", "GEMM extra", "kernel fixed", "all-reduce",
               "AR calls x us", "slowest-GPU wait", "host", "PP bubble", "unexplained", "AR source"]
    rows = []
    for r in analysis.rows:
        if not r.step_ms or r.status == NOT_MODELLED:  # the terms are the TP layout's, not that run's
            continue
        t = r.terms
        ar_us = r.allreduce_measured_us if r.allreduce_measured_us is not None else r.allreduce_ref_us
        rest = t.get("unexplained_ms")
        rows.append([r.label, r.batch, _n(r.step_ms, 3)] + [_n(t.get(k), 3) for k in TERMS[:5]]
                    + [f"{r.allreduce_count} x {ar_us:.1f}", _wait(r)] + [_n(t.get(k), 3) for k in TERMS[6:-1]]
                    + [_n(rest, 3) if rest is None or rest >= 0 else f"none (model {fmt_value(round(-rest, 3))} over)"]
                    + ["measured" if r.allreduce_measured_us is not None else r.allreduce_ref_source.split(" (")[0]])
    cal, wait_col = catalog.calibration(), columns.index("slowest-GPU wait")
    return {"columns": columns, "rows": rows,
            "note": "Terms per GPU per decode step, each kernel's streaming and its compute beyond streaming, the "
                    "fixed cost of every kernel, the all-reduces, the TP group's wait at them for its slowest GPU "
                    "and the host time add up to the expected step. "
                    "unexplained = measured - the sum of the modelled terms; where the terms add up to more than was "
                    "measured, the model is over by that much and nothing is unexplained. "
                    f"slowest-GPU wait: gpu_speed_cv {cal.gpu_speed_cv:g} x E[max of TP normals] x the GPU work; "
                    f"gpu_speed_cv and overlap_p ({cal.overlap_p:g}) are fitted at the limit of their range "
                    "(calibration.toml), so the wait is the fit's catch-all for time that grows with TP (GPU-to-GPU "
                    "speed spread, launch skew between ranks), not a measured GPU variation."
                    + (" in AR: the all-reduce was measured in the run, and one rank's measured all-reduce time "
                       "already holds its wait for the slowest peer, so no wait is added to the split (the expected "
                       "step keeps it)." if any(row[wait_col] == "in AR" for row in rows) else "")}


def _wait(r: ScalingRow):
    """The wait term, or "in AR" where a measured all-reduce already holds it (rules.scaling._row)."""
    if r.allreduce_measured_us is not None and r.tp > 1:
        return "in AR"
    return _n(r.terms.get("wait_ms"), 3)


def goodput_table(g: Goodput) -> dict:
    judged = [any(not run.unknown for run in e.runs) for e in g.layouts]  # else goodput is unknown, not 0
    rows = [[e.label, e.gpus, ", ".join(f"{_concurrency(run)}:{_slo_mark(run)}" for run in e.runs),
             _n(e.goodput, 0) if ok else "-", e.replicas, _n(e.fleet_goodput, 0) if ok else "-",
             "best" if e.label == g.best else ""]
            for e, ok in zip(g.layouts, judged)]
    return {"columns": ["layout", "GPUs", "concurrency: SLO", "goodput tok/s", f"replicas on {g.gpus}", "total tok/s",
                        "pick"],
            "rows": rows, "note": "A run counts when every SLO percentile is met (a missing percentile is replaced "
                                  "by the next higher one reported); n/a: the run reports no figure for a percentile "
                                  "of the SLO, so it cannot be judged. ~N: a concurrency per replica derived from the "
                                  "benchmark's "
                                  "figures (it states none); ?: neither stated nor derivable. A replica is one TP x PP "
                                  "copy of the model, as in the scaling table: a benchmark's output rate over DPn is "
                                  "divided by n."}


def _concurrency(run: GoodputRun) -> str:
    return "?" if run.batch is None else f"~{run.batch}" if run.run else str(run.batch)


def _slo_mark(run: GoodputRun) -> str:
    """miss when a reported figure breaks the SLO; n/a when a figure it needs is not reported."""
    if any(not c.met for c in run.checks):
        return "miss"
    return "n/a" if run.unknown else "ok"


def _total_tok_s(r: ScalingRow) -> float | None:
    """Output tok/s of all the layout's sequences: batch x replicas / step, else the measured rate."""
    if r.step_ms:
        return r.batch * r.dp * 1e3 / r.step_ms
    if r.metric == "output_tok_s":
        return r.measured
    if r.metric == "output_tok_s_per_gpu":
        return r.measured * r.gpus
    return r.output_tok_s


def _n(value, digits: int):
    if value is None:
        return "-"
    return round(value) if digits == 0 else round(value, digits)
