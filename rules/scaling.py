"""Measured TP scaling against the roofline model, term by term (`diagnose scaling`).

`analyse()` turns runs (diagnose.scaling_inputs.Run: what was measured at one layout and batch)
into rows: the measured decode step beside the roofline, the expected and the calibrated model,
and the measured step split into the predictor's terms:

    step = weights + KV streaming (at the achieved bandwidth)  + GEMM compute beyond streaming
         + all-reduces (count per step x time per call at the message size)
         + kernel launch gaps + pipeline bubble + unexplained rest

Calibration, best source first: the run's own capture (all-reduce kernel time per call), a
`diagnose node --json` report or nccl-tests output of the same machine (all-reduce time curve
by size and rank count; HBM and decode-GEMV bandwidth; GEMM rate), else the catalog figures at
the predictor's stated efficiencies (rules.roofline.EXPECTED).

Scaling is judged relative to the smallest layout measured (the base): whatever per-step
overhead the engine has there beyond the calibrated model (Python, sampling, MoE routing
kernels) is carried to the other layouts as a constant, and a layout is "broken" when its
measured step exceeds calibrated + that overhead by more than SCALING_TOLERANCE, or when its
measured all-reduce is COMM_RATIO times what the fabric should give.

The rules below read `predictions["scaling"]` (what analyse() returns) and nothing else.
"""

from __future__ import annotations

import bisect
import math
import statistics
from dataclasses import dataclass, field

from diagnose.findings import Evidence, Finding
from rules.capture_rules import LAUNCH_GAP_SHARE  # a capture's short-gap share that means launch-bound
from rules.engine import rule

# A layout tracks the model when measured <= (calibrated + base overhead) x this. Per-GPU
# kernel efficiency falls as TP shrinks each GPU's GEMMs (typical decode MBU spans 0.55-0.8,
# collectives-reference.md section 3.4: 0.75 / 0.55 = 1.36), so ~1.4 is within physics.
SCALING_TOLERANCE = 1.4
# A measured all-reduce this many times the fabric's expected time per call is a broken path
# (PCIe/SHM fallback, P2P off, a wrong NCCL setting), not latency physics.
COMM_RATIO = 3.0
# ... and it matters when the excess is at least this share of the measured step.
COMM_SHARE_MIN = 0.10
# ... and batch-small decode "cannot scale further" once the all-reduce is this share of the step
# (rules.predict_rules.COMM_SHARE, collectives-reference.md section 3.4).
COMM_SHARE_FLAT = 0.15
# Below this batch per replica the all-reduce is latency-bound (16-64 KiB messages).
SMALL_BATCH = 4
SOURCE = "prediction:roofline"
TERMS = ("weights_ms", "kv_ms", "compute_ms", "allreduce_ms", "launch_ms", "pp_bubble_ms", "unexplained_ms")
TERM_NAMES = {
    "weights_ms": "weight streaming", "kv_ms": "KV-cache and activation streaming", "compute_ms": "GEMM compute beyond streaming",
    "allreduce_ms": "all-reduce", "launch_ms": "kernel launch gaps", "pp_bubble_ms": "pipeline bubble + PP send/recv",
    "unexplained_ms": "unexplained rest",
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
        curve; below the smallest size the smallest size's time (the latency floor)."""
        curve = self.allreduce.get(nranks)
        if not curve:
            return None
        sizes = [s for s, _, _ in curve]
        i = bisect.bisect_left(sizes, size_bytes)
        if i == 0:
            return curve[0][1], curve[0][2]
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
            out.append(f"all-reduce on {n} GPUs: {len(curve)} sizes, {curve[0][0]} B in {curve[0][1]:.1f} us ({curve[0][2]})")
        return out


def calibration(facts) -> Calibration:
    """Calibration figures from a node report / nccl-tests output (Measurement and
    CollectiveResult facts). Decode streams weights like a GEMV, so the batch-1..8 GEMV
    bandwidth is preferred to the copy bandwidth when both were measured."""
    from diagnose.evidence import CollectiveResult, Measurement

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
    best: dict[tuple[int, int], tuple[float, str]] = {}
    for c in facts.of(CollectiveResult) if facts is not None else []:
        if c.op != "all_reduce" or not c.nranks or not c.size_bytes or not c.time_us or c.time_us <= 0:
            continue
        key = (c.nranks, c.size_bytes)
        if key not in best or c.time_us < best[key][0]:  # in-place vs out-of-place: the faster
            best[key] = (c.time_us, c.source)
    for (n, size), (t, src) in sorted(best.items()):
        cal.allreduce.setdefault(n, []).append((size, t, src))
    return cal


# --------------------------------------------------------------------------- measured step


STEP_NAMES = {"itl_ms": "ITL", "tpot_ms": "TPOT", "step_ms": "step"}


def measured_step(run) -> tuple[float, str, str] | None:
    """(decode step ms, how it was measured, source): the typical inter-token latency, else the
    capture's step, else batch / decode rate, else batch / output rate (an upper bound: it
    includes the prefills)."""
    for metric in ("itl_ms", "tpot_ms", "step_ms"):
        m = run.get(metric)
        if m:
            return m.value, f"{STEP_NAMES[metric]} {m.stat or 'reported'}", m.source
    batch = run.batch or 1
    m = run.get("decode_tok_s", stats=("median", "mean", None))
    if m:
        return 1e3 * batch / m.value, f"{batch} / decode tok/s", m.source
    m = run.get("output_tok_s", stats=("median", "mean", None))
    if m and run.batch:
        return 1e3 * batch / m.value, f"{batch} / output tok/s (upper bound)", m.source
    return None


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
            gpus_per_node=8, cal: Calibration | None = None, default_batch: int = 1) -> dict:
    """Rows (one per run), with prediction, calibration and decomposition; see the module doc."""
    from rules import catalog, roofline

    model, gpu = catalog.model(model), catalog.gpu(gpu)
    cal = cal or Calibration()
    rows = []
    for run in runs:
        layout = roofline.Layout(run.layout.tp, run.layout.pp, run.layout.dp)
        batch = run.batch or default_batch
        p = roofline.predict(model, gpu, layout, batch=batch, prompt=prompt, context=context, dtype=dtype,
                             kv_dtype=kv_dtype, interconnect=interconnect, gpus_per_node=gpus_per_node)
        rows.append(_row(run, p, gpu, cal, batch))
    _anchor(rows)
    alt = _dp_alternative(rows, model, gpu, cal, dict(dtype=dtype, kv_dtype=kv_dtype, prompt=prompt, context=context,
                                                         interconnect=interconnect, gpus_per_node=gpus_per_node))
    return {"dp_alternative": alt, "model": model.key, "gpu": gpu.key, "rows": rows, "calibration": cal.describe(),
            "tolerance": SCALING_TOLERANCE, "comm_ratio": COMM_RATIO}


def _row(run, p, gpu, cal: Calibration, batch: int) -> dict:
    step = measured_step(run)
    ar_ref, ar_ref_src = _allreduce_reference(p, cal)
    cap = run.capture
    ar_meas = cap.per_call_us if cap else None
    ar_meas_src = cap.source if cap and cap.per_call_us is not None else None
    m = run.get("allreduce_us", stats=("median", "mean", None))
    if ar_meas is None and m:
        ar_meas, ar_meas_src = m.value, m.source
    launch = cap.gap_ms_per_step if cap and cap.gap_ms_per_step is not None else None
    terms, how = _calibrated_terms(p, gpu, cal, ar_meas if ar_meas is not None else ar_ref, launch)
    calibrated = sum(terms.values())
    row = {
        "label": run.layout.label(), "tp": p.tp, "pp": p.pp, "dp": p.dp, "gpus": p.gpus, "batch": batch,
        "batch_stated": run.batch is not None, "sources": run.sources,
        "step_ms": round(step[0], 4) if step else None, "step_how": step[1] if step else None,
        "step_source": step[2] if step else None,
        "roofline_ms": p.decode_step_ms, "expected_ms": p.decode_step_ms_expected, "calibrated_ms": round(calibrated, 4),
        "terms": {k: round(v, 4) for k, v in terms.items()}, "calibrated_with": how,
        "allreduce_count": p.allreduce_count_per_step, "allreduce_bytes": p.allreduce_bytes,
        "allreduce_ref_us": round(ar_ref, 2), "allreduce_ref_source": ar_ref_src,
        "allreduce_measured_us": ar_meas, "allreduce_measured_source": ar_meas_src, "interconnect": p.interconnect,
        "fits": p.fits, "valid": p.valid, "model": p.model, "gpu": p.gpu, "dtype": p.dtype,
        "prefill_tok_s": _value(run, "prefill_tok_s"), "output_tok_s": _value(run, "output_tok_s"),
        "itl_p95_ms": _pvalue(run, "itl_ms", "p95"), "ttft_p95_ms": _pvalue(run, "ttft_ms", "p95"),
        "ttft_roofline_ms": p.ttft_ms, "launch_expected_ms": p.launch_ms_expected, "prefill_tok_s_expected": p.prefill_tok_s_expected,
        "capture_calls": cap.calls if cap else None, "capture_source": cap.source if cap else None,
        "launch_gap_share": cap.gap_share if cap else None,
    }
    if step:
        row["terms"]["unexplained_ms"] = round(step[0] - calibrated, 4)
    return row


def _value(run, metric):
    m = run.get(metric, stats=("median", "mean", None))
    return m.value if m else None


def _pvalue(run, metric, stat):
    m = _percentile(run, metric, stat)
    return m.value if m else None


def _allreduce_reference(p, cal: Calibration) -> tuple[float, str]:
    """What one all-reduce of this step's message should take on this machine: the node's
    measured curve at the same rank count, else the predictor's expected alpha-beta model."""
    from rules import roofline

    if p.tp <= 1:
        return 0.0, "no all-reduce at TP=1"
    got = cal.allreduce_us(p.tp, p.allreduce_bytes)
    if got:
        return got[0], f"measured curve, {got[1]}"
    nodes = math.ceil(p.tp / p.assumptions.get("gpus_per_node", 8))
    return (roofline.allreduce_time_us(p.interconnect, p.tp, p.allreduce_bytes, nodes=nodes),
            f"{SOURCE} (NCCL ring latency on {p.interconnect})")


def _calibrated_terms(p, gpu, cal: Calibration, ar_us: float, launch_ms: float | None = None) -> tuple[dict, list[str]]:
    """The predictor's decode terms with measured rates where the calibration has them (and the
    launch gaps a capture measured, when given)."""
    how = []
    if cal.hbm_gbs:
        bw_scale = gpu.hbm_gbs / cal.hbm_gbs
        how.append(f"streaming at the measured {cal.hbm_gbs:.0f} GB/s")
    else:
        bw_scale = 1.0 / p.mbu
        how.append(f"streaming at MBU {p.mbu:.2f} of {gpu.hbm_gbs:g} GB/s (catalog)")
    compute_dtype = "fp8" if p.dtype == "fp8" and gpu.fp8_tflops else ("fp16" if p.dtype == "fp16" else "bf16")
    rate = cal.gemm_tflops.get(compute_dtype) or cal.gemm_tflops.get("bf16")
    if rate:
        compute = p.compute_ms * gpu.tflops(compute_dtype) / rate
        how.append(f"GEMM at the measured {rate:.0f} TFLOP/s")
    else:
        compute = p.compute_ms_expected
    weights = p.weights_ms * bw_scale
    kv = (p.kv_ms + p.activation_ms) * bw_scale
    busy = max(weights + kv, compute)
    allreduce = p.allreduce_count_per_step * ar_us / 1e3
    if launch_ms is None:
        launch = p.launch_ms_expected
    else:
        launch = launch_ms
        how.append("launch gaps measured in the capture")
    f = p.pp_bubble_fraction
    bubble = (busy + allreduce + launch) * f / (1 - f) + p.pp_sendrecv_ms if p.pp > 1 else 0.0
    return {"weights_ms": weights, "kv_ms": kv, "compute_ms": max(0.0, compute - weights - kv),
            "allreduce_ms": allreduce, "launch_ms": launch, "pp_bubble_ms": bubble}, how


def _anchor(rows: list[dict]) -> None:
    """Per batch and PP: the smallest layout's overhead beyond the model, carried to the others."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["step_ms"] is not None:
            groups.setdefault((r["batch"], r["pp"]), []).append(r)
    for group in groups.values():
        group.sort(key=lambda r: (r["tp"], r["dp"]))
        base = group[0]
        overhead = max(0.0, base["step_ms"] - base["calibrated_ms"])
        for r in group:
            r["base"] = base["label"]
            r["base_overhead_ms"] = round(overhead, 4)
            r["anchored_ms"] = round(r["calibrated_ms"] + overhead, 4)
            r["ratio"] = round(r["step_ms"] / r["anchored_ms"], 3)
            r["speedup"] = round(base["step_ms"] / r["step_ms"], 3)
            r["ideal_speedup"] = r["tp"] / base["tp"]
            gap = r["step_ms"] - r["roofline_ms"]
            r["explained_share"] = round(min(1.0, (r["anchored_ms"] - r["roofline_ms"]) / gap), 3) if gap > 0 else None
            r["status"] = _status(r)


def _dp_alternative(rows, model, gpu, cal, kwargs) -> dict | None:
    """The largest-TP row against TP/2 x DP2 on the same GPUs at the same batch per replica:
    measured when that layout was measured, else the calibrated model plus the base overhead."""
    from rules import roofline

    top = max((r for r in rows if r.get("status") == "tracks" and r["pp"] == 1 and r["dp"] == 1 and r["tp"] >= 2),
              key=lambda r: (r["tp"], -r["batch"]), default=None)
    if top is None:
        return None
    half = top["tp"] // 2
    twin = next((r for r in rows if r["tp"] == half and r["pp"] == 1 and r["batch"] == top["batch"] and r.get("step_ms")), None)
    if twin:
        alt_ms, how, src = twin["step_ms"], "measured", twin["step_source"]
    else:
        p = roofline.predict(model, gpu, roofline.Layout(half, 1, 2), batch=top["batch"], **kwargs)
        if not (p.valid and p.fits):
            return None
        ar_ref, _ = _allreduce_reference(p, cal)
        terms, _ = _calibrated_terms(p, gpu, cal, ar_ref)
        alt_ms, how, src = sum(terms.values()) + top["base_overhead_ms"], "calibrated model + base overhead", SOURCE
    ratio = top["step_ms"] / alt_ms
    return {"label": top["label"], "alt_label": f"TP{half} DP2", "gpus": top["gpus"], "step_ms": top["step_ms"],
            "source": top["step_source"], "alt_step_ms": round(alt_ms, 4), "alt_source": src, "alt_how": how,
            "tok_s_user": 1e3 / top["step_ms"], "alt_tok_s_user": 1e3 / alt_ms, "per_user_ratio": round(ratio, 3),
            "total_ratio": round(2 * ratio, 3)}


def _status(r: dict) -> str:
    if r["step_ms"] < r["roofline_ms"]:
        return "faster_than_roofline"
    if _comm_broken(r):
        return "comm_broken"
    if (r.get("launch_gap_share") or 0) >= LAUNCH_GAP_SHARE:
        return "launch_gaps"
    return "tracks" if r["ratio"] <= SCALING_TOLERANCE else "beyond_model"


def _comm_broken(r: dict) -> bool:
    meas, ref = r.get("allreduce_measured_us"), r.get("allreduce_ref_us")
    if not meas or not ref or r["tp"] <= 1:
        return False
    excess_ms = r["allreduce_count"] * (meas - ref) / 1e3
    return meas >= COMM_RATIO * ref and excess_ms >= COMM_SHARE_MIN * r["step_ms"]


# --------------------------------------------------------------------------- goodput


def parse_slo(text: str | None) -> dict[str, tuple[str, str, float]]:
    """'itl_p95=150ms,ttft_p95=2s' -> {'itl_p95': ('itl_ms', 'p95', 150.0), 'ttft_p95': ('ttft_ms', 'p95', 2000.0)}."""
    import re

    from diagnose.errors import InputError

    out = {}
    for part in (text or "").replace(" ", "").split(","):
        if not part:
            continue
        m = re.fullmatch(r"(itl|tpot|ttft|e2el)_(p\d+(?:\.\d+)?|median|mean)=(\d+(?:\.\d+)?)(ms|s|us)?", part, re.I)
        if not m:
            raise InputError(f"--slo {part!r}: expected e.g. itl_p95=150ms or ttft_p95=2s (itl, tpot, ttft, e2el)")
        scale = {"s": 1e3, "us": 1e-3}.get((m.group(4) or "ms").lower(), 1.0)
        what = m.group(1).lower()
        metric = "e2e_latency_ms" if what == "e2el" else f"{what}_ms"
        out[part.split("=")[0].lower()] = (metric, m.group(2).lower(), float(m.group(3)) * scale)
    return out


def goodput(runs, slo: dict, gpus: int) -> dict:
    """Tokens/s within the SLO per layout (a run counts when every SLO percentile is met), and
    how many replicas of each layout `gpus` GPUs hold."""
    by_layout: dict = {}
    for run in runs:
        tok = _value(run, "output_tok_s") or _value(run, "decode_tok_s")
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
                checks.append({"slo": name, "limit": limit, "measured": round(value, 3), "stat": got, "source": source,
                               "met": value <= limit})
        met = not unknown and all(c["met"] for c in checks)
        entry = by_layout.setdefault(run.layout.label(), {"label": run.layout.label(), "gpus": run.layout.gpus,
                                                          "runs": [], "goodput": 0.0})
        entry["runs"].append({"batch": run.batch, "tok_s": tok, "met": met, "checks": checks, "unknown": unknown})
        if met:
            entry["goodput"] = max(entry["goodput"], tok)
    rows = []
    for entry in by_layout.values():
        entry["replicas"] = gpus // entry["gpus"] if entry["gpus"] <= gpus else 0
        entry["fleet_goodput"] = round(entry["goodput"] * entry["replicas"], 2)
        rows.append(entry)
    best = max(rows, key=lambda e: e["fleet_goodput"], default=None)
    return {"slo": {k: v[2] for k, v in slo.items()}, "gpus": gpus, "layouts": rows,
            "best": best["label"] if best and best["fleet_goodput"] > 0 else None}


# --------------------------------------------------------------------------- rules


def _data(predictions) -> dict:
    return predictions.get("scaling") or {} if isinstance(predictions, dict) else {}


def _rows(predictions) -> list[dict]:
    return [r for r in _data(predictions).get("rows") or [] if r.get("step_ms") is not None]


def _ms(x) -> str:
    return f"{x:.2f} ms" if x < 100 else f"{x:.0f} ms"


def _step_ev(r: dict) -> Evidence:
    return Evidence(source=r["step_source"], detail=f"{r['label']} batch {r['batch']}: measured decode step ({r['step_how']}) "
                    f"vs the calibrated model plus the {r['base']} overhead", measured=r["step_ms"], expected=r["anchored_ms"], unit="ms")


def _model_ev(r: dict) -> Evidence:
    return Evidence(source=f"{SOURCE} ({r['model']} {r['dtype']} on {r['gpu']}, {r['label']}, batch {r['batch']})",
                    detail=f"roofline / expected / calibrated decode step ({'; '.join(r['calibrated_with'])})",
                    measured=r["calibrated_ms"], expected=r["roofline_ms"], unit="ms")


@rule("scaling.faster_than_roofline", "other")
def faster_than_roofline(facts, predictions):
    """A measured step below the 100 %-efficiency roofline means the inputs (model, dtype, GPU,
    layout, batch) do not describe the run, or the model is wrong: nothing real beats it."""
    for r in _rows(predictions):
        if r["status"] != "faster_than_roofline":
            continue
        yield Finding(
            rule="scaling.faster_than_roofline", category="other", severity="warning", confidence=0.8,
            title=f"{r['label']}: measured {_ms(r['step_ms'])} per step is faster than the roofline ({_ms(r['roofline_ms'])})",
            summary="No run can beat datasheet bandwidth and FLOPs, so the model, dtype, GPU, layout or batch given does "
            "not match what was measured (a quantised checkpoint run as bf16, a smaller model, speculative decoding).",
            evidence=[_step_ev(r), _model_ev(r)],
            fix="Check --model, --dtype, --gpu and each input's TP and batch; rerun.",
        )


@rule("scaling.broken_layout", "comm_bound", "other")
def broken_layout(facts, predictions):
    """A layout far slower than the calibrated model explains: a measured all-reduce far above
    what the fabric should give is comm_bound; a gap the model cannot place is `other`, with
    what to check next."""
    for r in _rows(predictions):
        if r["status"] == "comm_broken":
            yield _comm_finding(r)
        elif r["status"] == "beyond_model":
            yield _beyond_finding(r)


def _comm_finding(r: dict) -> Finding:
    meas, ref, n = r["allreduce_measured_us"], r["allreduce_ref_us"], r["allreduce_count"]
    total = n * meas / 1e3
    return Finding(
        rule="scaling.broken_layout", category="comm_bound", severity="warning", confidence=0.85,
        title=f"{r['label']}: each all-reduce takes {meas:.0f} us, {meas / ref:.0f}x what this fabric should give ({ref:.1f} us)",
        summary=f"At {r['label']} the {n} all-reduces per step cost {_ms(total)} of the measured {_ms(r['step_ms'])} step "
        f"({total / r['step_ms']:.0%}); at {ref:.1f} us each they would cost {_ms(n * ref / 1e3)}. The communication "
        "path is broken, not the physics: the all-reduce is not running over the GPU fabric at its normal latency.",
        evidence=[
            Evidence(source=r["allreduce_measured_source"], detail=f"measured all-reduce kernel time per call ({r['allreduce_bytes']} B)",
                     measured=meas, expected=round(ref, 2), unit="us"),
            Evidence(source=r["allreduce_ref_source"], detail="expected time per call at this message size and rank count",
                     measured=round(ref, 2), unit="us"),
            _step_ev(r),
        ],
        fix="Check the NCCL transport of this run (NCCL_DEBUG=INFO: P2P/IPC or NVLS expected, not SHM or NET), "
        "NCCL_P2P_DISABLE / NCCL_P2P_LEVEL, ACS/IOMMU, and that CUDA graphs and the engine's custom all-reduce are on; "
        "`diagnose ticket` on the NCCL log names the cause.",
        references=["../shared/docs/collectives-reference.md section 3.3"],
    )


def _beyond_finding(r: dict) -> Finding:
    rest = r["step_ms"] - r["anchored_ms"]
    return Finding(
        rule="scaling.broken_layout", category="other", severity="warning", confidence=0.6,
        title=f"{r['label']}: {_ms(r['step_ms'])} per step, {r['ratio']:.1f}x what the calibrated model and the "
        f"{r['base']} overhead explain",
        summary=f"The model (streaming, GEMMs, {r['allreduce_count']} all-reduces, launch gaps) plus the {_ms(r['base_overhead_ms'])} "
        f"the engine spends beyond it at {r['base']} account for {_ms(r['anchored_ms'])}; {_ms(rest)} per step is not "
        "explained. Something grows at this layout that physics does not: a slow path, a throttled or straggling GPU, "
        "or host overhead per rank.",
        evidence=[_step_ev(r), _model_ev(r)],
        fix="Capture one step per layout with nsys and run `diagnose capture` (exposed communication, launch gaps, "
        "straggler rank); check clocks and throttle reasons (`nvidia-smi -q -d PERFORMANCE`) and the NCCL transport.",
    )


@rule("scaling.launch_gaps", "launch_bound")
def launch_gaps(facts, predictions):
    """A capture whose GPU idles between short kernels for a large share of its time: each kernel
    waits for its launch (no CUDA graphs, host-bound Python), a per-step cost TP does not shrink.
    Threshold: rules.capture_rules.LAUNCH_GAP_SHARE."""
    for r in _rows(predictions):
        if r["status"] != "launch_gaps":
            continue
        share = r["launch_gap_share"]
        gap = r["terms"]["launch_ms"]
        yield Finding(
            rule="scaling.launch_gaps", category="launch_bound", severity="warning", confidence=0.75,
            title=f"{r['label']}: the GPU waits {_ms(gap)} per step between kernels ({gap / r['step_ms']:.0%} of the step)",
            summary=f"The capture shows {share:.0%} of the GPU's active time in short gaps between kernels; with CUDA "
            f"graphs a decode step of this model loses about {_ms(r['launch_expected_ms'])}. This cost is per step and "
            "per layer, so more TP does not shrink it: the step cannot fall below it.",
            evidence=[Evidence(source=r["capture_source"], detail="kernel-to-kernel gaps under 50 us per step",
                               measured=gap, expected=r["launch_expected_ms"], unit="ms"), _step_ev(r)],
            fix="Serve with CUDA graphs (drop --enforce-eager / --disable-cuda-graph); `diagnose capture` on the file "
            "shows where the host time goes.",
            references=["https://docs.vllm.ai/en/latest/configuration/optimization.html"],
        )


@rule("scaling.tracks_prediction", "expected_physics")
def tracks_prediction(facts, predictions):
    """Every layout's measured step within SCALING_TOLERANCE of the calibrated model (plus the
    base layout's overhead): the scaling seen is what the hardware delivers."""
    rows = _rows(predictions)
    judged = [r for r in rows if r["label"] != r["base"]]  # a base layout tracks itself by construction
    if not judged:
        for r in rows:
            yield from _single_layout(r)
        return
    if any(r["status"] != "tracks" for r in rows):
        return
    worst = max(judged, key=lambda r: r["ratio"])
    yield Finding(
        rule="scaling.tracks_prediction", category="expected_physics", severity="info", confidence=0.7,
        title=f"All {len({r['label'] for r in rows})} measured layouts track the calibrated model "
        f"(worst {worst['label']} at batch {worst['batch']}: {worst['ratio']:.2f}x)",
        summary="Each layout's decode step is within "
        f"{SCALING_TOLERANCE:.1f}x of the calibrated prediction plus the engine's overhead at the base layout. "
        "The scaling measured is the scaling this hardware gives; nothing here points to a broken system.",
        evidence=[_step_ev(r) for r in rows[:8]],
        fix="Nothing to fix; choose the layout by latency and throughput goals (see the goodput and DP findings).",
    )


def _single_layout(r: dict):
    """One layout: no scaling to judge, but its step against the calibrated model still says something."""
    ratio = r["step_ms"] / r["calibrated_ms"]
    if r["status"] != "tracks" or ratio > SCALING_TOLERANCE:
        return
    yield Finding(
        rule="scaling.tracks_prediction", category="expected_physics", severity="info", confidence=0.5,
        title=f"{r['label']} at batch {r['batch']} runs as the calibrated model predicts ({_ms(r['step_ms'])} per step, "
        f"{ratio:.2f}x the model)",
        summary="Only one layout was measured, so scaling cannot be judged, but this layout's decode step is what its "
        "streaming, GEMMs, all-reduces and launch gaps explain.",
        evidence=[_step_ev(r), _model_ev(r)],
        fix="Measure a second layout (TP/2 or 2x TP) with the same benchmark to see how it scales.",
    )


@rule("scaling.term_grows_with_tp", "expected_physics")
def term_grows_with_tp(facts, predictions):
    """Name the modelled term that grows as TP grows (usually the all-reduce: its count per step
    is fixed and its latency rises with the rank count, while weight streaming shrinks 1/TP)."""
    groups: dict[tuple, list[dict]] = {}
    for r in _rows(predictions):
        groups.setdefault((r["batch"], r["pp"], r["dp"]), []).append(r)
    for (batch, _pp, _dp), rows in sorted(groups.items()):
        rows = sorted({r["tp"]: r for r in rows}.values(), key=lambda r: r["tp"])
        if len(rows) < 2:
            continue
        a, b = rows[0], rows[-1]
        growth = {k: b["terms"][k] - a["terms"][k] for k in TERMS if k != "unexplained_ms"}
        term = max(growth, key=growth.get)
        if growth[term] <= 0:
            continue
        broken = any(r["status"] != "tracks" for r in rows)
        share = b["terms"][term] / b["step_ms"]
        speedup, ideal = a["step_ms"] / b["step_ms"], b["tp"] / a["tp"]
        small = batch <= SMALL_BATCH and term == "allreduce_ms"
        extra = b["terms"]["unexplained_ms"] - a["terms"]["unexplained_ms"]
        title = (f"At {b['label']} the {b['allreduce_count']} all-reduces per step cost about {_ms(b['terms'][term])}, "
                 f"{share:.0%} of the step" if term == "allreduce_ms" else
                 f"At {b['label']} {TERM_NAMES[term]} costs about {_ms(b['terms'][term])}, {share:.0%} of the step")
        title += f"; {a['label']} -> {b['label']} gives {speedup:.2f}x of an ideal {ideal:g}x"
        summary = (f"From {a['label']} to {b['label']} at batch {batch}, {TERM_NAMES[term]} grows from {_ms(a['terms'][term])} "
                   f"to {_ms(b['terms'][term])} while weight streaming shrinks from {_ms(a['terms']['weights_ms'])} to "
                   f"{_ms(b['terms']['weights_ms'])}. ")
        if small and share >= COMM_SHARE_FLAT:
            summary += ("At this batch every all-reduce is a small, latency-bound message: batch-"
                        f"{batch} decode cannot scale much further on this interconnect. ")
        if abs(extra) >= 0.1 * b["step_ms"]:
            summary += (f"The unexplained rest also changes by {extra:+.2f} ms (smaller per-GPU GEMMs run less efficiently; "
                        "host work per step does not shrink with TP).")
        yield Finding(
            rule="scaling.term_grows_with_tp",
            category="expected_physics",
            severity="info", confidence=0.5 if broken else 0.8, title=title, summary=summary.strip(),
            evidence=[
                Evidence(source=f"{SOURCE} + calibration", detail=f"{TERM_NAMES[term]} per step at {r['label']}",
                         measured=r["terms"][term], unit="ms") for r in rows
            ] + [_step_ev(r) for r in rows],
            fix="For lower latency at small batch: CUDA graphs and a one-shot/custom all-reduce (fewer, cheaper "
            "collectives); for more users: add DP replicas of a smaller TP rather than a larger TP.",
            references=["../shared/docs/collectives-reference.md section 3.4"],
        )


@rule("scaling.dp_alternative", "expected_physics")
def dp_alternative(facts, predictions):
    """For the largest TP measured: what TP/2 x DP2 on the same GPUs gives per user and in total."""
    alt = _data(predictions).get("dp_alternative")
    if not alt:
        return
    yield Finding(
        rule="scaling.dp_alternative", category="expected_physics", severity="info", confidence=0.6,
        title=(f"{alt['alt_label']} serves twice the users at {alt['per_user_ratio']:.0%} of the per-user speed of {alt['label']}"
               if alt["per_user_ratio"] < 1 else
               f"{alt['alt_label']} serves twice the users and is {alt['per_user_ratio']:.2f}x faster per user than {alt['label']}"),
        summary=f"On the same {alt['gpus']} GPUs, {alt['label']} decodes at {alt['tok_s_user']:.1f} tok/s per user; "
        f"{alt['alt_label']} at {alt['alt_tok_s_user']:.1f} tok/s per user ({alt['alt_how']}) with two replicas, so "
        f"{alt['total_ratio']:.2f}x the total decode throughput at the same batch per replica.",
        evidence=[Evidence(source=alt["source"], detail=f"{alt['label']} decode step", measured=alt["step_ms"], unit="ms"),
                  Evidence(source=alt["alt_source"], detail=f"{alt['alt_label']} decode step ({alt['alt_how']})",
                           measured=alt["alt_step_ms"], unit="ms")],
        fix="Pick the larger TP only when the per-user latency target needs it.",
    )


@rule("scaling.goodput", "expected_physics")
def goodput_rule(facts, predictions):
    """Tokens/s within the SLO per layout, and the layout that maximises it for the GPU count."""
    g = _data(predictions).get("goodput")
    if not g or not g.get("slo"):
        return
    unknown = sorted({u for e in g["layouts"] for run in e["runs"] for u in run["unknown"]})
    slo = ", ".join(f"{k} <= {v:g} ms" for k, v in g["slo"].items())
    if g["best"] is None:
        if unknown:
            yield Finding(rule="scaling.goodput", category="insufficient_data", severity="info", confidence=0.0,
                          title=f"Goodput cannot be judged: the benchmarks do not report {', '.join(unknown)}",
                          summary=f"The SLO ({slo}) needs percentiles the outputs lack.",
                          fix="attach benchmark outputs run with --percentile-metrics ttft,tpot,itl --metric-percentiles 95,99")
            return
        yield Finding(rule="scaling.goodput", category="other", severity="warning", confidence=0.7,
                      title=f"No measured layout meets the SLO ({slo})",
                      summary="Every benchmark run at every layout exceeds at least one SLO percentile.",
                      evidence=_goodput_ev(g), fix="Lower the concurrency per replica, or use a larger TP for lower ITL.")
        return
    best = next(e for e in g["layouts"] if e["label"] == g["best"])
    yield Finding(
        rule="scaling.goodput", category="expected_physics", severity="info", confidence=0.7,
        title=f"Within the SLO ({slo}), {best['label']} x {best['replicas']} replicas gives the most goodput on {g['gpus']} GPUs: "
        f"{best['fleet_goodput']:.0f} tok/s",
        summary="; ".join(f"{e['label']}: {e['goodput']:.0f} tok/s per replica within the SLO x {e['replicas']} = "
                          f"{e['fleet_goodput']:.0f} tok/s" for e in g["layouts"]) + ".",
        evidence=_goodput_ev(g),
        fix=f"Serve with {best['label']} replicas; recheck the SLO at the concurrency you expect.",
    )


def _goodput_ev(g) -> list[Evidence]:
    out = []
    for e in g["layouts"]:
        for run in e["runs"]:
            for c in run["checks"]:
                out.append(Evidence(source=c["source"], detail=f"{e['label']} concurrency {run['batch']}: {c['slo']} ({c['stat']})",
                                    measured=c["measured"], expected=c["limit"], unit="ms"))
    return out[:12]


@rule("scaling.base_efficiency", "other")
def base_efficiency(facts, predictions):
    """How far the smallest layout is from the calibrated model: an engine overhead every layout
    carries (Python, sampling, scheduling, unfused kernels), not a scaling problem."""
    rows = _rows(predictions)
    bases = {r["base"] for r in rows}
    for r in rows:
        if r["label"] not in bases or r["step_ms"] <= r["calibrated_ms"] * SCALING_TOLERANCE:
            continue
        bases.discard(r["label"])
        yield Finding(
            rule="scaling.base_efficiency", category="other", severity="info", confidence=0.4,
            title=f"Even {r['label']} runs at {r['calibrated_ms'] / r['step_ms']:.0%} of the calibrated model's speed "
            f"({_ms(r['step_ms'])} vs {_ms(r['calibrated_ms'])})",
            summary=f"{_ms(r['step_ms'] - r['calibrated_ms'])} per step at the smallest layout is engine time the model does "
            "not hold (host scheduling, sampling, unfused or MoE-routing kernels, eager mode). It is carried to the other "
            "layouts as a constant when judging their scaling.",
            evidence=[_step_ev(r), _model_ev(r)],
            fix="Check the engine runs with CUDA graphs (no --enforce-eager) and compare with its published single-GPU figures.",
        )
