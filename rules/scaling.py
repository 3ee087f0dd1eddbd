"""Measured TP scaling against the predictor, layout by layout (`diagnose scaling`).

analyse() turns runs (diagnose.scaling_inputs.Run: what was measured at one layout and batch,
and, where the input says so, the engine, model, GPU, dtype and lengths it ran) into rows: the
measured figure beside its roofline, its expected value and the expected band (rules.roofline,
rules.expectations), and for a decode step the step split into the predictor's terms:

    step = weights + KV and activation streaming + GEMM compute beyond streaming
         + every kernel's fixed cost + all-reduces (count per step x time per call)
         + the wait for the TP group's slowest GPU (none where the all-reduce was measured in the run:
           a rank's measured all-reduce time already holds it)
         + host time (launches the GPU waits for, scheduling, sampling) + PP bubble
         + unexplained rest

Calibration, best source first: the run's own capture (all-reduce kernel time per call, launch
gaps), a `diagnose node --json` report or nccl-tests output of the same machine (all-reduce time
curve by size and rank count; HBM and decode-GEMV bandwidth; GEMM rate), else the expected terms.

Judgement per layout, on the median of its rows' measured / expected (one figure among many
does not decide): inside the band (calibration.toml [band]) is what a healthy system running
this engine delivers; beyond it the layout is broken, and the finding says by how much, unless
the smallest layout measured is just as far beyond it (then the whole system runs slow: engine
version, clocks or host, a finding of its own, not a scaling fault). A measured all-reduce
COMM_RATIO times what the fabric should give is a broken communication path whatever else holds.

The scaling rules (rules.scaling_rules) read the rules.predictions.ScalingAnalysis analyse()
returns and nothing else.
"""

from __future__ import annotations

import bisect
import functools
import math
import statistics
from dataclasses import dataclass, field

from rules import beyond_roofline
from rules.capture_rules import LAUNCH_GAP_SHARE  # a capture's short-gap share that means launch-bound
from rules.expectations import slowest_normal
from rules.predict_rules import refusals
from rules.predictions import DpAlternative, Goodput, GoodputLayout, GoodputRun, ScalingAnalysis, ScalingRow, SloCheck

# A measured all-reduce this many times the fabric's expected time per call is a broken path
# (PCIe/SHM fallback, P2P off, a wrong NCCL setting), not latency physics: the expected figure's
# all-reduce band (calibration.toml [allreduce_band], 2.5th-97.5th percentile of the fit tables) tops out at x3.6
# (x3.8 on one node), so a ratio of 3 still calls the slowest few healthy sizes broken: a known gap (issue 10).
COMM_RATIO = 3.0
# ... and it matters when the excess is at least this share of the measured step.
COMM_SHARE_MIN = 0.10
# ... and batch-small decode "cannot scale further" once the all-reduce is this share of the step
# (rules.predict_rules.COMM_SHARE, collectives-reference.md section 3.4).
COMM_SHARE_FLAT = 0.15
# Below this batch per replica the all-reduce is latency-bound (16-64 KiB messages).
SMALL_BATCH = 4
SOURCE = "prediction:expected"  # the calibrated model; the roofline is named as such where it is quoted
TERMS = ("weights_ms", "kv_ms", "compute_ms", "overhead_ms", "allreduce_ms", "wait_ms", "launch_ms", "pp_bubble_ms",
         "unexplained_ms")
TERM_NAMES = {
    "weights_ms": "weight streaming", "kv_ms": "KV-cache and activation streaming",
    "compute_ms": "GEMM compute beyond streaming", "overhead_ms": "kernels' fixed costs", "allreduce_ms": "all-reduce",
    "wait_ms": "the wait for the TP group's slowest GPU",
    "launch_ms": "host time (launches, scheduling, worker hand-off)",
    "pp_bubble_ms": "pipeline bubble + PP send/recv", "unexplained_ms": "unexplained rest",
}


# --------------------------------------------------------------------------- calibration


@dataclass
class Calibration:
    """Figures measured on the user's own machine, each with its source."""

    hbm_gbs: float | None = None
    hbm_source: str = ""
    gemm_tflops: dict[str, float] = field(default_factory=dict)
    gemm_source: str = ""
    allreduce: dict[int, list[tuple[int, float, str]]] = field(default_factory=dict)  # nranks -> [(bytes, us, src)]

    def allreduce_us(self, nranks: int, size_bytes: float) -> tuple[float, str] | None:
        """All-reduce time at `size_bytes` on `nranks` GPUs, log-log interpolated on the measured
        curve. Below the smallest size measured: None (the catalog's figure). A curve that starts at
        `-b 8M` holds no latency floor: its first row is still climbing to the link's bandwidth, and
        taking it for a 16 KB message makes each all-reduce several times too slow."""
        curve = self.allreduce.get(nranks)
        if not curve:
            return None
        sizes = [s for s, _, _ in curve]
        i = bisect.bisect_left(sizes, size_bytes)
        if i == 0:
            return (curve[0][1], curve[0][2]) if sizes[0] == size_bytes else None
        if i == len(curve):
            s, t, src = curve[-1]
            return t * size_bytes / s, src  # beyond the curve: bandwidth-bound, time grows with size
        (s0, t0, _), (s1, t1, src) = curve[i - 1], curve[i]
        f = (math.log(size_bytes) - math.log(s0)) / (math.log(s1) - math.log(s0))
        return math.exp(math.log(t0) + f * (math.log(t1) - math.log(t0))), src

    @property
    def empty(self) -> bool:
        return self.hbm_gbs is None and not self.gemm_tflops and not self.allreduce

    def describe(self) -> list[str]:
        out = []
        if self.hbm_gbs:
            out.append(f"decode streaming at {self.hbm_gbs:.0f} GB/s ({self.hbm_source})")
        for dtype, v in self.gemm_tflops.items():
            out.append(f"{dtype} GEMM at {v:.0f} TFLOP/s ({self.gemm_source})")
        for n, curve in sorted(self.allreduce.items()):
            out.append(f"all-reduce on {n} GPUs: {len(curve)} sizes, {curve[0][0]} B in {curve[0][1]:.1f} us "
                       f"({curve[0][2]})")
        return out


def calibration(facts) -> Calibration:
    """Calibration figures from a node report / nccl-tests output (Measurement and
    CollectiveResult facts). Decode streams weights like a GEMV, so the batch-1..8 GEMV
    bandwidth is preferred to the copy bandwidth when both were measured. An nccl-tests run whose one thread
    launched every GPU's call (-g N, no graph) times that thread at small sizes, not the kernel an engine (a process
    per GPU) runs: those rows are left out (rules.collectives.thread_paced), and the curve's source says so."""
    from diagnose.evidence import CollectiveResult, Measurement
    from rules.collectives import THREAD_PACE_SPREAD, thread_pace_us, thread_paced

    cal = Calibration()
    ms = facts.of(Measurement) if facts is not None else []
    gemv = [m for m in ms if m.metric == "gemv_gbs" and (m.batch or 1) <= 8]
    hbm = gemv or [m for m in ms if m.metric == "hbm_gbs"]
    if hbm:
        cal.hbm_gbs = statistics.median(m.value for m in hbm)
        cal.hbm_source = f"{hbm[0].source}, median of {len(hbm)}"
    gemm: dict[str, list[float]] = {}
    for m in ms:
        if m.metric == "gemm_tflops":
            gemm.setdefault(m.dtype or "bf16", []).append(m.value)
            cal.gemm_source = cal.gemm_source or m.source
    cal.gemm_tflops = {k: statistics.median(v) for k, v in gemm.items()}
    best: dict[tuple[int, int], CollectiveResult] = {}
    for c in facts.of(CollectiveResult) if facts is not None else []:
        if c.op != "all_reduce" or not c.nranks or not c.size_bytes or not c.time_us or c.time_us <= 0:
            continue
        key = (c.nranks, c.size_bytes)
        if key not in best or c.time_us < best[key].time_us:  # in-place vs out-of-place: the faster
            best[key] = c
    paced: dict[int, tuple[int, int]] = {}  # nranks -> (sizes left out at the thread's pace, GPUs per thread)
    for (n, size), c in sorted(best.items()):
        t, src = c.time_us, c.source
        if thread_paced(t, c.thread_gpus, c.graph):
            paced[n] = (paced.get(n, (0, 0))[0] + 1, c.thread_gpus)
            continue
        if n in paced:
            left, gpus = paced[n]
            src = (f"{src}; one thread launched each call on {gpus} GPUs (nccl-tests -g {gpus}, no graph): its {left} "
                   f"sizes at that thread's pace (<= {THREAD_PACE_SPREAD:g} x {thread_pace_us(gpus):.1f} us, "
                   "rules.collectives.thread_bound) left out, the kernel time above it kept; an engine runs a process "
                   "per GPU")
        cal.allreduce.setdefault(n, []).append((size, t, src))
    return cal


# --------------------------------------------------------------------------- measured figure


STEP_NAMES = {"itl_ms": "ITL", "tpot_ms": "TPOT", "step_ms": "step"}
BATCH_UNKNOWN = "batch unknown"  # the status of a benchmark result whose batch cannot be derived
NOT_MODELLED = "not modelled"  # a run launched with an option the predictor does not model (Setup.unmodelled)
UPPER_BOUND = "upper bound"  # a step read from an output rate that holds the prefills: it cannot be called slow


def measured_step(run) -> tuple[float, str, str] | None:
    """(decode step ms, how it was measured, source): the typical inter-token latency, else the
    capture's step, else batch / decode rate, else batch / output rate (an upper bound: it
    includes the prefills). None when the run has no decode figure.

    A run whose batch was derived by Little's law (rules.littles_law.derived_batch: request rate x
    mean decode time per request) is measured by the step derived with it (that decode time over the
    tokens decoded: each step once), so batch / step is the benchmark's own output rate; where that is
    missing, by the mean TPOT. A median ITL would leave out the steps that carry prefill chunks and
    overstate the rate (rate inf in samples/bench: median ITL 37.3 ms, mean TPOT 61.8 ms). A run whose batch
    could not be derived has no step: batch 1 would judge figures of an unknown batch."""
    if run.tag and run.batch is None:
        return None
    if run.batch_how and run.derived_step:
        return run.derived_step
    if run.batch_how:
        m = run.get("tpot_ms", stats=("mean",)) or run.get("itl_ms", stats=("mean",))
        return (m.value, f"{STEP_NAMES[m.metric]} mean", m.source) if m else None
    for metric in ("itl_ms", "tpot_ms", "step_ms"):
        m = run.get(metric)
        if m:
            return m.value, f"{STEP_NAMES[metric]} {m.stat or 'reported'}", m.source
    batch = run.batch or 1
    m = run.get("decode_tok_s", stats=("median", "mean", None))
    if m:
        return 1e3 * batch / m.value, f"{batch} / decode tok/s", m.source
    m = run.get("output_tok_s", stats=("median", "mean", None))
    if m and run.batch and not run.setup.output:
        return 1e3 * batch / m.value, f"{batch} / output tok/s ({UPPER_BOUND})", m.source
    return None


# Figures of a run with known lengths, in the order one is picked to judge it (rules.expectations).
WHOLE_METRICS = (("e2e_latency_ms", "e2e_latency_ms"), ("output_tok_s", "output_tok_s_total"),
                 ("output_tok_s_per_gpu", "output_tok_s_per_gpu"), ("ttft_ms", "ttft_ms"))


def _percentile(run, metric: str, stat: str):
    """The asked percentile, else the next higher one (conservative for an SLO)."""
    order = ["p50", "median", "p90", "p95", "p99", "max"]
    start = order.index(stat) if stat in order else 0
    for s in order[start:]:
        m = run.get(metric, stats=(s,))
        if m:
            return m
    return None


# --------------------------------------------------------------------------- analysis


def analyse(runs, model, gpu, *, dtype=None, kv_dtype=None, prompt=1024, context=None, interconnect=None,
            gpus_per_node=8, cal: Calibration | None = None, default_batch: int = 1, engine=None,
            override: frozenset = frozenset(), named: dict | None = None, quant: str | None = None,
            builds=(), topology=None) -> ScalingAnalysis:
    """Rows (one per run), each with its prediction, calibration and judgement; see the module doc.

    model, gpu (catalog rows), engine, dtype: for runs whose input does not name its own (a published
    row or a ticket does); the fields named in `override` (given on the command line) win over the inputs.
    named: the catalog rows of the model and GPU names the runs carry, by (kind, name), as the command
    resolved them (diagnose.commands.scaling._resolve_named); rules never look a name up.
    quant: the GGUF type (--quant, an Ollama tag) whose bytes the weights stream; it states the dtype (override).
    builds: the llama.cpp build the runs ran (--build), as a ticket states one: its side's profile, its own band.
    topology: the facts that state the machine (the inputs' topology matrix, a --node report): each layout's all-reduce
    takes the ring route they show (rules.topology.ring_route, as ticket, plan and capture take it).
    """
    from rules import catalog
    from rules.topology import ring_route
    from rules.workload import fits_only_quantised

    cal = cal or Calibration()
    rows = []
    named = named or {}
    specs: dict[tuple[str, str], object] = {}  # the rows used, by (kind, key), for the DP alternative and the tables

    def pick(name, given, named):
        return given if name in override or not named else named

    def spec(kind, given, name):
        return given if kind in override or not name else named[(kind, name)]

    for run in runs:
        s = run.setup
        m = spec("model", model, s.model)
        g = spec("gpu", gpu, s.gpu)
        engine_name, gguf = pick("engine", engine, s.engine), pick("dtype", quant, s.quant)
        # the builds --build states, else those the run's own input states (a published table's '# Build:' line)
        run_builds = builds or s.builds
        e = catalog.run_engine(engine_name, g, gguf, run_builds, s.fa, s.fa_server)  # (first: a bad name is bad input)
        # an engine named without its release: the newest's figure, every release's band (roofline.predict_any_build)
        releases = () if s.engine_stated and s.engine and "engine" not in override else catalog.release_candidates(
            engine_name)
        # ... but for those the file's own material rules out (rules.common.engine_releases)
        note = s.release_note if releases and "engine" not in override else ""
        releases = tuple(catalog.engine(k) for k in s.releases) if note and s.releases else releases
        e = releases[-1] if releases else e
        # a stated build decides between the named engine and its twin; with none stated there is nothing to weigh
        stated = bool(run_builds) and catalog.build_decides(catalog.run_engine(engine_name, g, gguf), run_builds)
        specs[("model", m.key)], specs[("gpu", g.key)], specs[("engine", e.key)] = m, g, e
        priced = functools.partial(_predict, run, m, g, kv_dtype=kv_dtype, prompt=s.prompt or prompt,
                                   context=None if s.output else context, output=s.output, interconnect=interconnect,
                                   gpus_per_node=s.gpus_per_node or gpus_per_node, engine=e, network=s.network,
                                   batch=run.batch or default_batch, quant_group=gguf, build_stated=stated,
                                   releases=releases, release_note=note, eager=s.eager,
                                   **ring_route(topology, run.layout.tp))
        p = priced(dtype=pick("dtype", dtype, s.dtype))
        if s.may_run_quantised and "dtype" not in override:  # as `ticket` prices it (rules.workload.predict_layout)
            p = fits_only_quantised(p, priced, g, engine_name or e.key)
        rows.append(_row(run, p, g, cal, run.batch or default_batch))
    _judge(rows)
    quants = [pick("dtype", quant, r.setup.quant) for r in runs]  # the runs' weights, as each was predicted
    alt = _dp_alternative(rows, cal, specs, dict(kv_dtype=kv_dtype, interconnect=interconnect,
                                                 quant_group=next((q for q in quants if q), None)), topology)
    # the band the rows were judged against: the calibrated one, wider where a row's engine is named without its
    # release or build (roofline.predict_any_build covers every profile it may have run)
    band = [min(r.band_low for r in rows), max(r.band_high for r in rows)] if rows else catalog.calibration().band
    return ScalingAnalysis(dp_alternative=alt, model=rows[0].model if rows else None, gpu=rows[0].gpu if rows else None,
                           rows=rows, calibration=cal.describe(), band=list(band), comm_ratio=COMM_RATIO, specs=specs)


def _predict(run, model, gpu, *, batch, build_stated: bool = False, **kwargs):
    from rules import roofline

    # a run's setup names its engine, never its build: llama.cpp's is judged against both builds' band unless --build
    # states which side of the boundary it is on
    layout = run.layout
    engine = kwargs.get("engine")
    if engine is not None and "tp" not in engine.parallel and layout.tp > 1:
        # an engine that splits by layers only (llama.cpp, Ollama: engines.toml parallel) runs "TP4" as its split
        # over the 4 GPUs (-sm row is not modelled; a ticket reads it as a layer split too)
        layout = roofline.Layout(1, layout.tp * layout.pp, layout.dp)
    return roofline.predict_any_build(model, gpu, layout, batch=batch, build_stated=build_stated, **kwargs)


def _row(run, p, gpu, cal: Calibration, batch: int) -> ScalingRow:
    from rules.expectations import expectation
    from rules.workload import assumed_weights

    step = measured_step(run)
    ar_ref, ar_ref_src = _allreduce_reference(p, cal)
    cap = run.capture
    ar_meas = cap.per_call_us if cap else None
    ar_meas_src = cap.source if cap and cap.per_call_us is not None else None
    m = run.get("allreduce_us", stats=("median", "mean", None))
    if ar_meas is None and m:
        ar_meas, ar_meas_src = m.value, m.source
    launch = cap.gap_ms_per_step if cap and cap.gap_ms_per_step is not None else None
    # expected: the healthy model, calibrated only with the machine's own benchmarks (node report,
    # nccl-tests); the run's measured all-reduce and launch gaps are what is judged against it, so
    # they split the measured step below and never enter the expectation (a broken all-reduce
    # would otherwise raise the figure it is compared with)
    healthy, how = _calibrated_terms(p, gpu, cal, ar_ref)
    expected = sum(healthy.values())
    # a rank's measured all-reduce time holds its wait for the slowest peer: no wait on top of it
    measured_ar = ar_meas is not None and p.tp > 1
    terms, split_how = _calibrated_terms(p, gpu, cal, ar_meas if measured_ar else ar_ref, launch,
                                         wait=not measured_ar)
    if measured_ar:
        split_how.append("all-reduce measured in the run (its wait for the slowest GPU included)")
    calibrated = sum(terms.values())
    row = ScalingRow(
        label=run.layout.label(), tp=p.tp, pp=p.pp, dp=p.dp, gpus=p.gpus, batch=batch,
        batch_stated=run.batch is not None and not run.batch_how, batch_how=run.batch_how, run=run.tag,
        sources=run.sources, engine=p.engine, prompt=p.prompt,
        output=p.output if run.setup.output else None,
        step_ms=round(step[0], 4) if step else None, step_how=step[1] if step else None,
        step_source=step[2] if step else None,
        roofline_ms=p.decode_step_ms, expected_ms=p.decode_step_ms_expected, calibrated_ms=round(expected, 4),
        terms={k: round(v, 4) for k, v in terms.items()}, calibrated_with=how, split_with=split_how,
        expected_terms={k: round(v, 4) for k, v in healthy.items()},
        allreduce_count=p.allreduce_count_per_step, allreduce_bytes=p.allreduce_bytes,
        allreduce_ref_us=round(ar_ref, 2), allreduce_ref_source=ar_ref_src,
        allreduce_healthy_max_us=round(_healthy_slowest_us(p, gpu, ar_ref), 2),
        allreduce_measured_us=ar_meas, allreduce_measured_source=ar_meas_src, interconnect=p.interconnect,
        fits=p.fits, weights_gb_per_gpu=p.weights_gb_per_gpu, gpu_memory_gb=round(gpu.memory_bytes / 1e9, 1),
        valid=p.valid and not refusals(p.problems), model=p.model, gpu=p.gpu, dtype=p.dtype,
        prefill_tok_s=_value(run, "prefill_tok_s"), output_tok_s=_value(run, "output_tok_s"),
        itl_p95_ms=_pvalue(run, "itl_ms", "p95"), ttft_p95_ms=_pvalue(run, "ttft_ms", "p95"),
        ttft_roofline_ms=p.ttft_ms, launch_expected_ms=p.launch_ms_expected,
        prefill_tok_s_expected=p.prefill_tok_s_expected,
        capture_calls=cap.calls if cap else None, capture_source=cap.source if cap else None,
        launch_gap_share=cap.gap_share if cap else None, band_low=p.band_low, band_high=p.band_high,
        weights_assumed=assumed_weights(p),
    )
    if step:
        row.terms["unexplained_ms"] = round(step[0] - calibrated, 4)
        gap = step[0] - p.decode_step_ms
        row.explained_share = round(min(1.0, (calibrated - p.decode_step_ms) / gap), 3) if gap > 0 else None
        row.metric, row.measured, row.measured_how, row.measured_source = "step_ms", row.step_ms, step[1], step[2]
        row.roofline, row.expected, row.time_metric = p.decode_step_ms, round(expected, 4), True
        if run.setup.output and step[1].startswith(("ITL", "TPOT")):  # the mean over the output: the average context
            row.roofline, row.expected = p.itl_ms, p.itl_ms_expected
    elif run.tag and run.batch is None:
        # a benchmark result whose batch cannot be derived: its mean TPOT is shown, never judged
        # (against batch 1 it read x2.06 slower than expected); BATCH_UNKNOWN says why
        m = run.get("tpot_ms", stats=("mean",)) or run.get("itl_ms", stats=("mean",))
        if m:
            row.measured, row.measured_how, row.measured_source = m.value, f"{STEP_NAMES[m.metric]} mean", m.source
        row.status = BATCH_UNKNOWN
        return row
    else:
        whole = next(((metric, m) for metric, m in ((mm, run.get(key, stats=("median", "mean", None)))
                                                    for key, mm in WHOLE_METRICS) if m), None)
        if whole is None or not run.setup.output:
            return row  # no figure the predictor can judge
        metric, meas = whole
        e = expectation(metric, p)
        row.metric, row.measured, row.measured_how, row.measured_source = metric, meas.value, metric, meas.source
        row.roofline, row.expected, row.time_metric = round(e.roofline, 4), round(e.expected, 4), e.is_time
    if run.setup.unmodelled:
        # as ticket.unmodelled_figures: the step is not the TP layout's step, so no expected figure or gap is shown
        row.expected = row.explained_share = None
        row.terms.pop("unexplained_ms", None)
        row.status, row.unmodelled = NOT_MODELLED, run.setup.unmodelled
        return row
    meas, exp, roof = row.measured, row.expected, row.roofline
    ratio = meas / exp if row.time_metric else exp / meas
    faster = beyond_roofline.beats(meas, roof, row.time_metric)
    row.ratio = round(ratio, 3)
    row.reported = any(m.stat == "reported" and m.source == row.measured_source for m in run.measurements)
    if row.reported:
        # a figure written in prose reads slow by up to the slack `ticket` allows it (rules.expectations)
        row.band_edge, row.band_high = p.band_high, round(slowest_normal(p.band_high, True, True), 4)
    row.position = ("faster_than_roofline" if faster else "slower" if ratio > row.band_high else
                    "faster" if ratio < p.band_low else "inside")
    if UPPER_BOUND in (row.measured_how or "") and not faster:
        # batch / output rate holds the prefills too: it can beat the roofline, it cannot be called slow
        row.ratio, row.position, row.status = None, UPPER_BOUND, UPPER_BOUND
    return row


def _value(run, metric):
    m = run.get(metric, stats=("median", "mean", None))
    return m.value if m else None


def _pvalue(run, metric, stat):
    m = _percentile(run, metric, stat)
    return m.value if m else None


def _allreduce_reference(p, cal: Calibration) -> tuple[float, str]:
    """What one all-reduce of this step's message should take on this machine: the node's
    measured curve at the same rank count, else the predictor's expected time for the engine."""
    if p.tp <= 1:
        return 0.0, "no all-reduce at TP=1"
    got = cal.allreduce_us(p.tp, p.allreduce_bytes)
    if got:
        return got[0], f"measured curve, {got[1]}"
    from rules.topology import route_said

    route = p.assumptions.get("ring_route")
    via = f", ring path {route_said(route)}" if route else ""
    return p.allreduce_us_expected, f"{SOURCE} ({p.allreduce_impl} on {p.interconnect}{via}, {p.engine})"


def _healthy_slowest_us(p, gpu, ref: float) -> float:
    """The slowest time a healthy path gives for this all-reduce on `gpu` (the prediction's catalog
    row): the engine's own kernel, or NCCL on the same fabric (an engine run without its custom
    kernel is not broken)."""
    from rules import collectives

    if p.tp <= 1:
        return ref
    nccl = collectives.prediction_nccl(p, gpu)
    return max(ref, nccl.us)


def _calibrated_terms(p, gpu, cal: Calibration, ar_us: float, launch_ms: float | None = None,
                      wait: bool = True) -> tuple[dict, list[str]]:
    """The predictor's expected decode terms, with the machine's measured rates where the
    calibration has them (and the launch gaps a capture measured, when given). wait=False where
    `ar_us` was measured in the run: one rank's all-reduce kernel time already holds its wait for
    the slowest peer, so adding the modelled wait would count it twice."""
    from rules import catalog, step_model

    e = p.expected_terms
    how = [f"{p.engine} profile"]
    weights, kv = e["weights_ms"], e["kv_ms"] + e["activation_ms"]
    if cal.hbm_gbs:
        scale = gpu.hbm_gbs / cal.hbm_gbs
        weights, kv = p.weights_ms * scale, (p.kv_ms + p.activation_ms) * scale
        how.append(f"streaming at the measured {cal.hbm_gbs:.0f} GB/s")
    compute_dtype = "fp8" if p.dtype == "fp8" and gpu.fp8_tflops else ("fp16" if p.dtype == "fp16" else "bf16")
    rate = cal.gemm_tflops.get(compute_dtype) or cal.gemm_tflops.get("bf16")
    compute = e["compute_ms"]
    if rate:  # the step's math at that rate, overlapped with its streaming as rules.step_model overlaps a kernel's
        stream = weights + kv
        math_ms = p.compute_ms * gpu.tflops(compute_dtype) / rate
        compute = step_model.overlapped(stream, math_ms, catalog.calibration().overlap_p) - stream
        how.append(f"GEMM at the measured {rate:.0f} TFLOP/s")
    allreduce = p.allreduce_count_per_step * ar_us / 1e3
    host = e["launch_ms"] + e["host_ms"]
    if launch_ms is not None:  # the GPU's idle gaps between kernels hold every host wait, launches and scheduling alike
        host = launch_ms
        how.append("launch gaps measured in the capture")
    # the group waits for its slowest GPU in proportion to its GPU work, at these rates too
    wait_ms = step_model.slowest_gpu_wait_ms(p.tp, weights + kv + compute + e["overhead_ms"],
                                             catalog.calibration().gpu_speed_cv) if wait else 0.0
    return {"weights_ms": weights, "kv_ms": kv, "compute_ms": compute, "overhead_ms": e["overhead_ms"],
            "allreduce_ms": allreduce, "wait_ms": wait_ms, "launch_ms": host, "pp_bubble_ms": e["pp_bubble_ms"]}, how


# --------------------------------------------------------------------------- judgement


def _judge(rows: list[ScalingRow]) -> None:
    """Each layout on the median of its rows' measured / expected, against the band and against
    the smallest layout measured of the same model, GPU, engine and dtype (a table may hold several
    systems); see the module doc. Sets each row's status and the speed-ups."""
    judged = [r for r in rows if r.ratio is not None]
    systems: dict[tuple, dict[str, list[ScalingRow]]] = {}
    for r in judged:
        systems.setdefault(same_system(r), {}).setdefault(r.label, []).append(r)
    for by_layout in systems.values():
        usable = {label: [x.ratio for x in rs if x.position != "faster_than_roofline"]
                  for label, rs in by_layout.items()}
        ratio = {label: statistics.median(v) if v else None for label, v in usable.items()}
        # the smallest layout that can run: one the heads refuse measured something else
        base = min(by_layout, key=lambda lb: (not by_layout[lb][0].valid, by_layout[lb][0].gpus, by_layout[lb][0].tp))
        base_ratio = ratio[base] or 1.0
        for label, rs in by_layout.items():
            # each layout against its own band: a band covering several releases (or builds) differs by layout
            status = _layout_status(rs, ratio[label], rs[0].band_high, base_ratio, label == base)
            for r in rs:
                r.status = status if status in UNJUDGED or r.position != "faster_than_roofline" else \
                    "faster_than_roofline"
                r.base = base
                r.layout_ratio = round(ratio[label], 3) if ratio[label] is not None else None
                r.base_ratio = round(base_ratio, 3)
                if status == "invalid_layout":
                    r.ratio = r.layout_ratio = None  # a layout that cannot run measured something else: not judged
    _speedups([r for r in judged if r.ratio is not None])


def same_system(r: ScalingRow) -> tuple:
    """What makes two rows the same system measured at different layouts."""
    return r.model, r.gpu, r.engine, r.dtype


# Statuses that say the row measured something other than the layout described: never judged against the band.
UNJUDGED = ("does_not_fit", "invalid_layout")


def _layout_status(rs: list[ScalingRow], ratio: float | None, hi: float, base_ratio: float, is_base: bool) -> str:
    if not all(r.valid for r in rs):
        return "invalid_layout"  # heads or checkpoint blocks that do not split: as predict, the layout cannot run
    if any(r.weights_gb_per_gpu > r.gpu_memory_gb for r in rs):
        return "does_not_fit"  # the weights alone exceed the GPU: a measurement of something else, never "tracks"
    if ratio is None:
        return "faster_than_roofline"
    if any(comm_broken(r) for r in rs):
        return "comm_broken"
    if any((r.launch_gap_share or 0) >= LAUNCH_GAP_SHARE for r in rs):
        return "launch_gaps"
    return series_status(ratio, rs[0].band_low, hi, base_ratio, is_base)


def series_status(ratio: float, lo: float, hi: float, base_ratio: float, is_base: bool) -> str:
    """One layout of a series (measured / expected time `ratio`) against the band (x`lo`-x`hi`) and the smallest
    layout measured (`base_ratio`): the one judgement `scaling` and `ticket` give a TP series, so the same figures
    get the same verdict in both. Faster than the band is not a fault; beyond it is broken unless the smallest
    layout is as far beyond (slow_everywhere)."""
    if ratio < lo:
        return "faster_than_band"  # above the roofline but quicker than the model expects: not a fault
    if ratio <= hi:
        return "tracks"
    if is_base or ratio <= base_ratio * hi:
        return "slow_everywhere" if base_ratio > hi else "tracks"
    return "beyond_band"


def beyond_title(label: str, ratio: float, hi: float) -> str:
    """The title of a layout judged beyond_band, in every command that judges a series."""
    return f"{label} runs x{ratio:.2f} the expected time, beyond the band's x{hi:.2f} (x{ratio / hi:.2f} past it)"


def _speedups(rows: list[ScalingRow]) -> None:
    """Speed-up of each layout over the smallest one measured at the same batch and lengths."""
    groups: dict[tuple, list[ScalingRow]] = {}
    for r in rows:
        groups.setdefault((*same_system(r), r.batch, r.pp, r.prompt, r.output, r.metric), []).append(r)
    for group in groups.values():
        group.sort(key=lambda r: (r.tp, r.dp))
        first = group[0]
        for r in group:
            faster = first.measured / r.measured if r.time_metric else r.measured / first.measured
            r.speedup = round(faster, 3)
            r.ideal_speedup = r.tp / first.tp
            r.speedup_base = first.label


def _dp_alternative(rows: list[ScalingRow], cal, specs: dict, kwargs, topology=None) -> DpAlternative | None:
    """The largest-TP decode row against TP/2 x DP2 on the same GPUs at the same batch per replica:
    measured when that layout was measured, else its expected step (of the model and GPU in `specs`,
    as analyse resolved them)."""
    top = max((r for r in rows if r.status in ("tracks", "faster_than_band") and r.pp == 1 and r.dp == 1 and r.tp >= 2
               and r.step_ms), key=lambda r: (r.tp, -r.batch), default=None)
    if top is None:
        return None
    half = top.tp // 2
    twin = next((r for r in rows if r.tp == half and r.pp == 1 and r.batch == top.batch and r.step_ms
                 and r.prompt == top.prompt), None)
    if twin:
        alt_ms, how, src = twin.step_ms, "measured", twin.step_source
    else:
        from rules import roofline
        from rules.topology import ring_route

        gpu = specs[("gpu", top.gpu)]
        p = roofline.predict(specs[("model", top.model)], gpu, roofline.Layout(half, 1, 2), batch=top.batch,
                             dtype=top.dtype, prompt=top.prompt, engine=specs[("engine", top.engine)], **kwargs,
                             **ring_route(topology, half))
        if not (p.valid and p.fits):
            return None
        ar_ref, _ = _allreduce_reference(p, cal)
        terms, _ = _calibrated_terms(p, gpu, cal, ar_ref)
        alt_ms, how, src = sum(terms.values()), "expected", SOURCE
    ratio = top.step_ms / alt_ms
    return DpAlternative(label=top.label, alt_label=f"TP{half} DP2", gpus=top.gpus, step_ms=top.step_ms,
                         source=top.step_source, alt_step_ms=round(alt_ms, 4), alt_source=src, alt_how=how,
                         tok_s_user=1e3 / top.step_ms, alt_tok_s_user=1e3 / alt_ms, per_user_ratio=round(ratio, 3),
                         total_ratio=round(2 * ratio, 3))


def comm_broken(r: ScalingRow) -> bool:
    """A measured all-reduce COMM_RATIO times the slowest healthy path, costing a share of the step."""
    meas, ref = r.allreduce_measured_us, r.allreduce_healthy_max_us or r.allreduce_ref_us
    if not meas or not ref or r.tp <= 1 or not r.step_ms:
        return False
    excess_ms = r.allreduce_count * (meas - ref) / 1e3
    return meas >= COMM_RATIO * ref and excess_ms >= COMM_SHARE_MIN * r.step_ms


# --------------------------------------------------------------------------- goodput


def parse_slo(text: str | None) -> dict[str, tuple[str, str, float]]:
    """'itl_p95=150ms,ttft_p95=2s' -> {'itl_p95': ('itl_ms', 'p95', 150.0), 'ttft_p95': ('ttft_ms', 'p95', 2000.0)}.
    A value needs its unit (a bare 2 is as likely 2 s as 2 ms), must be above 0 (no run meets a zero
    limit) and each name may come once (which of two limits would be meant is not known)."""
    import re

    from diagnose.errors import InputError

    out = {}
    for part in (text or "").replace(" ", "").split(","):
        if not part:
            continue
        m = re.fullmatch(r"(itl|tpot|ttft|e2el)_(p\d+(?:\.\d+)?|median|mean)=(\d+(?:\.\d+)?)(ms|s|us)?", part, re.I)
        if not m:
            raise InputError(f"--slo {part!r}: expected NAME_STAT=VALUE+UNIT, e.g. itl_p95=150ms or ttft_p95=2s "
                             "(NAME itl, tpot, ttft or e2el; STAT p50..p99, median or mean; UNIT us, ms or s)")
        if not m.group(4):
            raise InputError(f"--slo {part!r}: the value has no unit; write {part}ms or {part}s")
        if float(m.group(3)) <= 0:
            raise InputError(f"--slo {part!r}: the limit must be above 0")
        key = part.split("=")[0].lower()
        if key in out:
            raise InputError(f"--slo names {key} twice; give each limit once")
        scale = {"s": 1e3, "us": 1e-3}.get(m.group(4).lower(), 1.0)
        what = m.group(1).lower()
        metric = "e2e_latency_ms" if what == "e2el" else f"{what}_ms"
        out[key] = (metric, m.group(2).lower(), float(m.group(3)) * scale)
    return out


def goodput(runs, slo: dict, gpus: int) -> Goodput:
    """Tokens/s within the SLO per replica (a run counts when every SLO percentile is met), and
    how many replicas `gpus` GPUs hold. A replica is what the scaling table's "batch per replica"
    means: one TP x PP copy of the model; a measured TP1 DP4 rate is four replicas' output."""
    from rules.roofline import Layout

    by_layout: dict[str, GoodputLayout] = {}
    for run in runs:
        # a benchmark's output rate is all replicas'; an engine's decode rate (its log) is its own
        out = _value(run, "output_tok_s")
        tok = out / run.layout.dp if out else _value(run, "decode_tok_s")
        if tok is None:
            continue
        checks, unknown = [], []
        for name, (metric, stat, limit) in slo.items():
            m = _percentile(run, metric, stat)
            value, got, source = (m.value, m.stat, m.source) if m else (None, None, None)
            step = measured_step(run) if m is None and metric == "itl_ms" and stat in ("mean", "median") else None
            if step:  # batch / decode rate is the mean inter-token latency
                value, got, source = step[0], f"mean ({step[1]})", step[2]
            if value is None:
                unknown.append(name)
            else:
                checks.append(SloCheck(name, limit, round(value, 3), got, source, value <= limit))
        met = not unknown and all(c.met for c in checks)
        replica = Layout(run.layout.tp, run.layout.pp).label()
        entry = by_layout.setdefault(replica, GoodputLayout(replica, run.layout.tp * run.layout.pp, []))
        entry.runs.append(GoodputRun(run.batch, tok, met, checks, unknown, run=run.tag if run.batch_how else None))
        if met:
            entry.goodput = max(entry.goodput, tok)
    rows = list(by_layout.values())
    for entry in rows:
        entry.replicas = gpus // entry.gpus if entry.gpus <= gpus else 0
        entry.fleet_goodput = round(entry.goodput * entry.replicas, 2)
    best = max(rows, key=lambda e: e.fleet_goodput, default=None)
    return Goodput({k: v[2] for k, v in slo.items()}, gpus, rows,
                   best.label if best and best.fleet_goodput > 0 else None)
