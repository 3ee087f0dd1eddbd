"""Capture analysis -> Report(kind="capture"): the capture reader's facts, the roofline's
predictions for the workload given or recorded, then the shared pipeline (rules, verdict), plus
the capture's own tables (summaries, steps, efficiency)."""

from __future__ import annotations

from pathlib import Path

from diagnose.capture import classify as C
from diagnose.capture import timeline as T
from diagnose.capture.facts import (
    GIVEN,
    SUMMARY_ROWS,
    CaptureInfo,
    CollectiveSkew,
    GpuTimeline,
    LaunchStats,
    NcclCalls,
    StepStats,
    ns_to_ms,
    step_comm,
)
from diagnose.capture.reader import tid_of
from diagnose.capture.summaries import SUMMARIES, summary_table
from diagnose.evidence import Workload
from diagnose.findings import Report
from rules.predictions import CaptureExpectation, CapturePrediction

MAX_STEP_RECORDS = 20_000  # with --stats: every step, up to this many per capture
STEP_POINTS = 200  # without --stats: this many steps per capture, evenly chosen, plus percentiles of all


def build(files, model=None, tp=None, pp=None, gpu=None, batch=None, step_name=None, full_stats=False,
          stats_dir=None, nvtx_gpu=False, node=()) -> Report:
    from diagnose.pipeline import run_pipeline

    full_stats = full_stats or bool(stats_dir)
    from diagnose.capture import cache

    # a re-run on the same exports with other flags reads the analysis back (capture.cache)
    result = cache.analysed(list(files), step_name=step_name, medians=full_stats, nvtx_gpu=nvtx_gpu)
    facts = result.facts
    if any(v is not None for v in (model, tp, pp, gpu, batch)):
        # first, so that every rule reads the user's values (Facts.workload: first source wins);
        # capture.given_vs_recorded says where the capture recorded something else
        facts.records.insert(0, Workload(GIVEN, model=model, tp=tp, pp=pp, batch=batch, gpu=gpu))
    predictions = predict(facts, *_workload(facts, model, tp, pp, batch), gpu, topology=_machine(facts, node))
    pipeline = any(g.comm_ops.get("send_recv") for g in facts.of(GpuTimeline))
    if pipeline or (predictions.expected and predictions.expected.step_ms):
        facts.extend(step_comm(result))  # per-step counts: step_vs_prediction, pp_bubble's micro-batches
    inputs = {"files": [str(f) for f in files], "model": model, "tp": tp, "pp": pp, "gpu": gpu, "batch": batch,
              "step": step_name, **({"node": [str(f) for f in node]} if node else {})}
    # what an export lacks is asked for by capture.trace_present (a gap: the verdict and Next say it alike)
    from rules.engine import verdict

    # the user runs the tools again, nobody attaches anything: "collect", not a ticket's "attach"
    report = run_pipeline("capture", inputs, facts, predictions, tables=tables(result, full_stats),
                          decide=lambda _facts, found: verdict(found, [], verb="collect"))
    report.predictions.pop("layout")  # the inputs say it
    efficiency = step_efficiency(facts, predictions.expected)
    if efficiency:
        report.tables["Step efficiency"] = efficiency
    report.facts["summaries"] = {file: _summaries(per_file) for file, per_file in result.summaries.items()}
    for file, rows in result.nvtx_gpu.items():
        report.facts["summaries"][file]["nvtx_gpu"] = rows
    if stats_dir:
        report.inputs["stats_files"] = write_stats_csv(result, stats_dir)
    report.facts["step_durations"], report.facts["step_series"] = _step_records(result, full_stats)
    return report


def _summaries(per_file: dict) -> dict:
    """Every summary's rows as analysed: without --stats each kept its SUMMARY_ROWS rows with most
    time, and `left_out` says, per summary, how many rows and how much time were dropped (a
    training run naming a range per op, or a capture naming a million kernels, made hundreds of
    MB of JSON)."""
    out = {key: [_row_dict(r) for r in rows] for key, rows in per_file.items() if key != "left_out"}
    left = per_file.get("left_out") or {}
    if left:
        out["left_out"] = {key: {"rows": rest.rows, "total": rest.total, "time_pct": round(rest.time_pct, 1),
                                 "why": f"top {SUMMARY_ROWS} rows by total kept; --stats keeps all, "
                                        "--stats-dir writes them as CSV"}
                           for key, rest in left.items()}
    return out


def for_storage(report: Report) -> Report:
    """The report as the results database keeps it: summaries cut to SUMMARY_ROWS rows each and
    the full nsys-stats tables left out (--stats output is for the terminal or a file, not for a
    row in the history)."""
    import copy

    stored = copy.copy(report)
    stored.facts = dict(report.facts)
    stored.facts["summaries"] = {file: {key: rows[:SUMMARY_ROWS] if isinstance(rows, list) else rows
                                        for key, rows in per_file.items()}
                                 for file, per_file in (report.facts.get("summaries") or {}).items()}
    stored.tables = {k: v for k, v in (report.tables or {}).items() if not v.get("stats")}
    series = report.facts.get("step_series") or {}
    if any(s.get("shown", 0) > STEP_POINTS for s in series.values()):  # a --stats run: the bounded series
        stored.facts["step_series"] = series = {source: dict(summary) for source, summary in series.items()}
        stored.facts["step_durations"] = _stored_steps(report.facts.get("step_durations") or [], series)
    return stored


def _stored_steps(records: list[dict], series: dict) -> list[dict]:
    """STEP_POINTS of each capture's steps, evenly chosen as without --stats; updates `series`' notes."""
    out = []
    for source, summary in series.items():
        mine = [r for r in records if r.get("source") == source]
        kept = [mine[i] for i in _evenly_chosen([r["duration_ms"] for r in mine], STEP_POINTS)]
        summary.update(shown=len(kept), why=f"step_durations holds {len(kept)} of {summary['steps']:,} steps, "
                                             "evenly chosen plus the fastest and slowest")
        out += kept
    return out


def write_stats_csv(result, folder: str) -> list[str]:
    """Each summary of each capture as `<capture>.<summary>.csv` in `folder` (the columns nsys
    stats prints); returns the paths written."""
    import csv
    import os

    from diagnose.errors import InputError

    written = []
    try:  # the folder was checked at parse time; this catches what changed since (a full disk)
        os.makedirs(folder, exist_ok=True)
        for file, per_file in result.summaries.items():
            for key in SUMMARIES:
                table = summary_table(key, per_file.get(key) or [])
                path = os.path.join(folder, f"{Path(file).stem}.{key}.csv")
                with open(path, "w", newline="", encoding="utf-8") as fh:
                    w = csv.writer(fh)
                    w.writerow(table["columns"])
                    w.writerows(table["rows"])
                written.append(path)
    except OSError as exc:
        raise InputError(f"--stats-dir {folder}: cannot write ({exc.strerror or exc})") from None
    return written


def _row_dict(r) -> dict:
    d = {"name": r.name, "time_pct": round(r.time_pct, 1), "total": r.total, "count": r.count, "avg": r.avg,
         "med": r.med, "min": r.min, "max": r.max, "stddev": r.stddev}
    d.update({k: v for k, v in r.extra.items() if k != "name_id"})
    return d


def _step_records(result, full: bool = False) -> tuple[list[dict], dict]:
    """Each capture's step durations in the order they ran, each with its 1-based step number,
    and per capture the percentiles of every step. Without --stats at most STEP_POINTS steps per
    capture, evenly chosen plus the fastest and slowest, so a capture of 4,000 steps does not
    make the JSON, the plot and the stored run grow with it (the summary says what was left out)."""
    records, series = [], {}
    for file, steps in result.steps.items():
        values = steps.durations_ns
        limit = MAX_STEP_RECORDS if full else STEP_POINTS
        kept = _evenly_chosen(values, limit)
        records += [{"source": f"capture:{file}", "method": steps.method, "step": i + 1, "duration_ms": values[i] / 1e6}
                    for i in kept]
        series[f"capture:{file}"] = _step_percentiles(values, len(kept), full)
    return records, series


def _evenly_chosen(values, limit: int) -> list[int]:
    """Indexes of at most `limit` (+2) values: evenly spaced from first to last, plus the extremes."""
    n = len(values)
    if n <= limit:
        return list(range(n))
    picked = {round(i * (n - 1) / (limit - 1)) for i in range(limit)}
    picked |= {max(range(n), key=values.__getitem__), min(range(n), key=values.__getitem__)}
    return sorted(picked)


def _step_percentiles(values, shown: int, full: bool) -> dict:
    """count, min, p50, p90, p95, p99, max and mean (ms) of every step, and what `step_durations` holds."""
    import statistics

    ms = sorted(v / 1e6 for v in values)
    if not ms:
        return {"steps": 0, "shown": 0}

    from diagnose.capture.steps import nearest_rank

    out = {"steps": len(ms), "shown": shown, "min_ms": ms[0],
           "p50_ms": nearest_rank(ms, 50), "p90_ms": nearest_rank(ms, 90),
           "p95_ms": nearest_rank(ms, 95), "p99_ms": nearest_rank(ms, 99),
           "max_ms": ms[-1], "mean_ms": statistics.fmean(ms)}
    if shown < len(ms):
        out["why"] = (f"step_durations holds {shown} of {len(ms):,} steps, evenly chosen plus the fastest and slowest; "
                      + ("more than --stats keeps" if full else "--stats keeps every step"))
    return out


def recorded_predictions(facts) -> CapturePrediction:
    """The predictions `build` makes for the workload a capture records when nothing is given
    (a ticket's captures are judged against the same expectation as `diagnose capture`'s)."""
    return predict(facts, *_workload(facts, None, None, None, None), None)


def _workload(facts, model, tp, pp, batch):
    """Command-line values first, then what the capture's recorded launch line says.

    The batch is the one a ticket prices its figures at (rules.stated_load.load_for): the stated batch,
    else the concurrency, at most the engine's batch cap, and a serving engine's --max-num-seqs (the
    decode batch at full load) when nothing is stated.
    """
    from rules.stated_load import load_for

    w = facts.workload()
    load = load_for(facts, full_load=True)
    return model or w.model, tp or w.tp, pp or w.pp, batch or (load.n if load else None)


def _machine(facts, node):
    """What states the machine the capture ran on: the --node files (a topology matrix, a node report), then the
    capture's own facts (its CPU), for the TP ring's route (diagnose.evidence.with_machine)."""
    from diagnose.bundle import read_bundle
    from diagnose.evidence import with_machine

    return with_machine(facts, read_bundle(list(node)) if node else None)


def predict(facts, model, tp, pp, batch, gpu, topology=None) -> CapturePrediction:
    """Roofline figures the capture rules compare with (rules.predictions.CapturePrediction and
    its CaptureExpectation). Needs --model and a GPU (--gpu, or the capture's TARGET_INFO_GPU name
    when the catalog knows it). topology: the facts that state the machine (_machine), for the ring's route.
    """
    ranks = _ranks(facts)
    layout = {"tp": tp or (max(1, ranks // (pp or 1)) if ranks else 1), "pp": pp or 1}
    out = CapturePrediction(layout)
    if not model:
        return out
    from rules import catalog, collectives, roofline
    from rules.common import engine_of, engine_releases
    from rules.subject import model_named
    from rules.topology import ring_route
    from rules.workload import quant_group, weight_dtype

    spec = catalog.gpu(gpu) if gpu else _capture_gpu(facts, catalog)
    if spec is None:
        return out
    try:  # the name read as predict, plan, scaling and ticket read it ('Meta-Llama-3.1-70B-Instruct-AWQ')
        shape = model_named(model)
    except catalog.UnknownName:
        if _given(facts, model):
            raise  # the user's own --model: their error
        return out  # a model named only in the capture's launch line that the catalog lacks: no prediction
    lay = roofline.Layout(tp=layout["tp"], pp=layout["pp"], dp=1)
    route = ring_route(topology if topology is not None else facts, layout["tp"])
    engine = engine_of(facts)
    # an engine named without its release: the newest's figure, the band of every release the material leaves, as
    # ticket and scaling
    releases, release_note = engine_releases(facts)
    # the weights the --model name or launch line states ('-AWQ', --quantization fp8), as a ticket reads them
    pred = roofline.predict_any_build(shape, spec, lay, batch=batch or 1, engine=catalog.engine(engine),
                                      dtype=weight_dtype(facts), quant_group=quant_group(facts),
                                      build_stated=True, releases=releases, release_note=release_note,
                                      **route)
    out.roofline = pred
    expected = CaptureExpectation(
        step_ms=pred.decode_step_ms_expected,
        step_ms_roofline=pred.decode_step_ms,
        band=[pred.band_low, pred.band_high],
        engine=pred.engine,
        allreduce_per_step=pred.allreduce_count_per_step,
        allreduce_ms_per_step=pred.allreduce_ms_per_step_expected,
        allreduce_bytes=pred.allreduce_bytes,
        fabric=pred.interconnect,
        pp_bubble_fraction=pred.pp_bubble_fraction,
        source=f"prediction:expected ({pred.model}, {spec.key}, {pred.engine}, tp={layout['tp']}, pp={layout['pp']}, "
               f"batch={batch or 1})",
        # what one decode step must move and compute on each GPU (the roofline's own terms), and
        # the GPU's datasheet peaks: measured step -> achieved bandwidth and FLOP/s
        hbm_gbs=spec.hbm_gbs,
        peak_tflops=spec.tflops(pred.dtype),
        bytes_per_gpu_step=pred.memory_ms / 1e3 * spec.hbm_gbs * 1e9,
        flops_per_gpu_step=pred.compute_ms / 1e3 * spec.tflops(pred.dtype) * 1e12,
    )
    if layout["tp"] > 1 and pred.allreduce_bytes:
        expected.allreduce_us = pred.allreduce_us_expected
        # NCCL on the same fabric: the slowest healthy path (an engine run without its custom kernel is not broken),
        # priced as scaling and the step model price it (collectives.prediction_nccl: nodes, NVLS, peer-to-peer)
        expected.allreduce_us_nccl = collectives.prediction_nccl(pred, spec).us
        pcie = spec.pcie_interconnect
        if pcie != pred.interconnect and pcie in catalog.interconnects() and \
                catalog.interconnect(pred.interconnect).kind != "network":
            # the same call over PCIe inside the node, as NCCL runs it there (no custom kernel, SHM where P2P is off)
            expected.allreduce_us_pcie = collectives.nccl_for(spec, catalog.interconnect(pcie), layout["tp"],
                                                              pred.allreduce_bytes, path=route["ring_path"],
                                                              cpu=route["ring_cpu"],
                                                              release=route.get("nccl_release")).us
            expected.pcie_fabric = pcie
    out.expected = expected
    return out


def step_efficiency(facts, expected: CaptureExpectation | None) -> dict | None:
    """Achieved HBM bandwidth and FLOP/s per GPU in the measured steps (p50, p95, p99), against
    the datasheet: the bytes and FLOPs one decode step needs per GPU (roofline) / step time."""
    steps = facts.of(StepStats)
    if not steps or expected is None or not expected.bytes_per_gpu_step or not expected.hbm_gbs:
        return None
    need_b, need_f = expected.bytes_per_gpu_step, expected.flops_per_gpu_step
    rows = []
    for s in steps:
        for label, ns in (("p50", s.p50_ns), ("p95", s.p95_ns), ("p99", s.p99_ns)):
            if ns:
                gbs, tflops = need_b / ns, need_f / ns / 1e3
                rows.append([s.source, label, ns_to_ms(ns), round(gbs, 1), round(100 * gbs / expected.hbm_gbs, 1),
                             round(tflops, 1), round(100 * tflops / expected.peak_tflops, 1)])
    return {
        "columns": ["source", "step", "ms", "achieved GB/s per GPU", "% of HBM peak", "achieved TFLOP/s per GPU",
                    "% of peak FLOP/s"],
        "rows": rows,
        "note": f"Per GPU and step: {need_b / 1e9:.2f} GB moved and {need_f / 1e12:.2f} TFLOP computed "
                f"({expected.source}); peaks {expected.hbm_gbs:g} GB/s HBM and "
                f"{expected.peak_tflops:g} dense TFLOP/s (catalog).",
    }


def _given(facts, model) -> bool:
    """Did the user name this model on our command line (then an unknown name is their error)?"""
    return any(w.source == GIVEN and w.model == model for w in facts.of(Workload))


def _ranks(facts) -> int | None:
    gpus = [g for g in facts.of(GpuTimeline) if g.kernels]
    return len(gpus) if len(gpus) > 1 else None


def _capture_gpu(facts, catalog):
    from diagnose.evidence import GpuFact

    for g in facts.of(GpuFact):
        spec = catalog.find_gpu(name=g.name)
        if spec:
            return spec
    return None


def tables(result, full_stats: bool) -> dict:
    facts = result.facts
    out = {}
    infos = facts.of(CaptureInfo)
    out["Captures"] = {
        "columns": ["file", "nsys", "schema", "kernels", "GPUs used", "GPUs listed", "missing"],
        "rows": [[i.file, i.product_version or "?", i.schema_version or "?", i.kernel_rows,
                  ", ".join(i.gpus_used) or "-", len(i.gpus_listed),
                  "; ".join(i.missing_names()) or "-"] for i in infos],
        "note": "GPUs listed = TARGET_INFO_GPU (every GPU on the host); used = those with kernels or copies.",
    }
    gpus = [g for g in facts.of(GpuTimeline)]
    if gpus:
        model, label = _gpu_labels(gpus)
        out["Per-GPU breakdown"] = {
            "columns": ["GPU", "span ms", "compute ms", "exposed comm ms", "copies ms", "idle ms", "busy %",
                        "overlapped comm ms", "kernels", "short-gap ms", "graph kernels"],
            "rows": [[f"{Path(g.source.split(':', 1)[-1]).name} {label(g)}" if len(infos) > 1 else label(g),
                      ns_to_ms(g.span_ns), ns_to_ms(g.compute_union_ns), ns_to_ms(g.exposed_comm_ns),
                      ns_to_ms(max(0, g.busy_ns - g.compute_union_ns - g.exposed_comm_ns)), ns_to_ms(g.idle_ns),
                      round(g.busy_pct, 1), ns_to_ms(g.overlapped_comm_ns), g.kernels, ns_to_ms(g.small_gap_ns),
                      g.graph_kernels]
                     for g in gpus],
            "note": "compute + exposed comm + copies + idle = span (first to last GPU activity of that process)."
                    + (f" GPU model of every row: {model}." if model else ""),
        }
        totals = {c: 0 for c in C.CLASSES}
        counts = {c: 0 for c in C.CLASSES}
        for g in gpus:
            for c in C.CLASSES:
                totals[c] += g.class_ns.get(c, 0)
                counts[c] += g.class_count.get(c, 0)
        whole = sum(totals.values()) or 1
        out["Kernel classes"] = {
            "columns": ["class", "total ms", "% of kernel time", "kernels"],
            "rows": [[c, ns_to_ms(totals[c]), round(100.0 * totals[c] / whole, 1), counts[c]]
                     for c in C.CLASSES if counts[c]],
            "note": "Summed kernel durations over all GPUs (concurrent kernels both count).",
        }
        out["Idle gaps"] = {
            "columns": ["GPU"] + list(gpus[0].gap_histogram),
            "rows": [[label(g)] + [f"{c} / {ns_to_ms(n)} ms" for c, n in g.gap_histogram.values()] for g in gpus],
            "note": "count / total idle time of the gaps in each bucket (between any two GPU activities)."
                    + (f" GPU model of every row: {model}." if model else ""),
        }
    for n in facts.of(NcclCalls):
        out[f"NCCL calls (NCCL's NVTX ranges) [{n.source.split(':', 1)[-1]}]"] = {
            "columns": ["call", "count", "CPU ms", "avg us"],
            "rows": [[call, c, ns_to_ms(ns), round(ns / c / 1e3, 1)] for call, (c, ns) in
                     sorted(n.calls.items(), key=lambda kv: -kv[1][1])],
            "note": ("Payload fields NCCL declares for these ranges: " + ", ".join(n.payload_fields) +
                     " (values not decoded)." if n.payload_fields else ""),
        }
    causes = facts.of(T.IdleGapCause)
    if causes:
        out["Largest idle gaps: the CPU side"] = {
            "columns": ["GPU", "at ms", "gap ms", "CPU thread", "longest CUDA call in it", "its ms", "NVTX range",
                        "work launched by", "launched after ms"],
            "rows": [[f"pid {c.pid} cuda:{c.device}", ns_to_ms(c.start_ns), ns_to_ms(c.gap_ns),
                      # a thread id is an id, not a quantity: a string, printed without separators
                      str(tid_of(c.launch_tid)) if c.launch_tid is not None else None, c.cpu_call or "-",
                      ns_to_ms(c.cpu_call_ns), c.nvtx or "-", c.launch_call or "-",
                      ns_to_ms(c.launch_lead_ns) if c.launch_lead_ns is not None else None] for c in causes],
            "note": "The work that ended each gap leads to its launch call (correlationId) and thread; the CUDA call "
                    "and NVTX range are those of that thread between the gap's start and the launch. Time not in a "
                    "CUDA call was host code.",
        }
    launches = [l for l in facts.of(LaunchStats) if l.kernel_launches or l.graph_launches or l.sync_calls]
    if launches:
        out["Launches and synchronisation"] = {
            "columns": ["pid", "kernel launches", "graph launches", "launch CPU ms", "avg launch us",
                        "launch->start p50 us", "sync calls", "sync ms", "sync copies", "sync copy ms"],
            "rows": [[str(l.pid), l.kernel_launches, l.graph_launches, ns_to_ms(l.launch_ns),
                      round(l.launch_avg_ns / 1e3, 2) if l.launch_avg_ns else None,
                      round(l.queue_p50_ns / 1e3, 2) if l.queue_p50_ns else None,
                      l.sync_calls, ns_to_ms(l.sync_ns), l.sync_copy_calls, ns_to_ms(l.sync_copy_ns)]
                     for l in launches],
        }
    steps = facts.of(StepStats)
    if steps:
        out["Steps"] = {
            "columns": ["source", "method", "kernels/step", "steps", "p50 ms", "p95 ms", "p99 ms", "mean ms"],
            "rows": [[s.source, s.method, s.kernels_per_step, s.count, ns_to_ms(s.p50_ns), ns_to_ms(s.p95_ns),
                      ns_to_ms(s.p99_ns), ns_to_ms(s.mean_ns)] for s in steps],
            "note": "pattern: the period of the busiest GPU's kernel sequence (kernels/step). A capture that holds "
                    "only repeats of one block, with no kernel outside it, cannot tell a block from a step: name the "
                    "step's NVTX range with --step when there is one.",
        }
    skews = facts.of(CollectiveSkew)
    if skews:
        out["Collective arrival skew"] = {
            "columns": ["collective", "instances", "ranks", "mean us", "p50 us", "p95 us", "max us", "counts differ"],
            "rows": [[s.op, s.instances, s.ranks, round(s.mean_ns / 1e3, 1),
                      round((s.p50_ns or 0) / 1e3, 1), round((s.p95_ns or 0) / 1e3, 1), round(s.max_ns / 1e3, 1),
                      "yes" if s.mismatched else "no"] for s in skews],
            "note": "Matched across ranks in issue order per collective kind; skew = last arrival - first arrival.",
        }
    for file, per_file in result.summaries.items():
        top, others, whole = result.top_kernels.get(file) or ([], 0, 0)
        if top:
            out[f"Top kernels ({file})"] = top_kernels(top, others, whole)
        if full_stats:
            for key in SUMMARIES:
                table = summary_table(key, per_file.get(key) or [])
                if not table["rows"]:
                    table["note"] = "no rows (table absent or empty in this export)"
                table["stats"] = True
                out[f"{SUMMARIES[key][0]} [{file}]"] = table
        gpu = result.nvtx_gpu.get(file)
        if gpu:
            out[f"NVTX ranges -> GPU kernels [{file}]"] = {
                "columns": ["range", "ranges", "CPU ms", "kernels", "kernel ms", "GPU span ms"],
                "rows": [[r["name"], r["ranges"], ns_to_ms(r["cpu_ns"]), r["kernels"], ns_to_ms(r["kernel_ns"]),
                          ns_to_ms(r["gpu_span_ns"])] for r in gpu],
                "note": "Kernels whose launch call started inside a range on the same thread (correlationId); "
                        "a kernel counts for every range that encloses its launch.",
                "stats": True,  # every row, as the summaries: the stored run leaves it out
            }
    return out


def _gpu_labels(gpus):
    """(the GPU model every row shares or None, row label): a model all rows share is said once in
    the table's note instead of in every row label, which then fits on one line."""
    names = {g.gpu_name for g in gpus}
    model = next(iter(names)) if len(names) == 1 and None not in names else None
    return model, (lambda g: g.gpu.replace(f" ({model})", "") if model else g.gpu)



def top_kernels(top, others: int, whole: int) -> dict:
    """The kernels that took most GPU time, by name (grid/block shapes merged); each name without its
    parameter list, cut to 48 characters (the name column of a 120-column terminal) where that keeps
    distinct kernels distinct."""
    from diagnose.formatting import distinct_cuts

    whole = whole or 1
    labels = distinct_cuts([C._base(n) or n for n, _, _ in top], 48)
    return {
        "columns": ["kernel", "class", "total ms", "% of kernel time", "instances", "avg us"],
        "rows": [[label, C.classify(n), ns_to_ms(t), round(100.0 * t / whole, 1), c, round(t / c / 1e3, 2)]
                 for label, (n, t, c) in zip(labels, top)],
        "note": f"{others} more kernel names not shown" if others else "",
    }
