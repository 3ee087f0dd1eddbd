"""The tables of a predict report: one row per layout x batch."""

from __future__ import annotations

import re

from rules.predictions import PredictResult, PredictRow
from rules.roofline import ITL_AT


def tables(result: PredictResult) -> dict[str, dict]:
    return {f"Predicted scaling: {result.model.name} on {result.gpu.name}": scaling_table(result.layouts)}


COLUMNS = ["layout", "GPUs", "batch", "fits", "GB/GPU", "max seqs", "prefill tok/s", "TTFT ms",
           "ITL ms", "ITL band", "ITL roofline", "tok/s/seq", "tok/s total", "AR %", "MBU", "eff."]


def scaling_table(rows: list[PredictRow]) -> dict:
    """One row per layout x batch; efficiency = decode tok/s per GPU vs the smallest layout that fits."""
    base = {}
    for r in sorted(rows, key=lambda r: r.tp * r.pp):
        if r.usable:
            base.setdefault(r.total_batch, r)
    out = []
    for r in rows:
        b = base.get(r.total_batch)
        # rates round to 0 at a tiny --mbu
        eff = _per_replica_gpu(r) / _per_replica_gpu(b) if b and _per_replica_gpu(b) else None
        if not r.valid:
            fits = "invalid"
        else:
            fits = "yes" if r.fits else f"no (-{r.memory_shortfall_gb:.1f} GB)"
        numbers = r.valid
        itl = r.itl_ms_expected  # the JSON's ITL: a step at the reply's middle context (its mean)
        band = f"{itl * r.band_low:.2f}-{itl * r.band_high:.2f}" if numbers else "-"
        out.append([
            r.label, r.gpus, r.total_batch, fits,
            round(r.weights_gb_per_gpu, 1), r.max_concurrent_seqs,
            _n(r.prefill_tok_s_total_expected, numbers, 0), _n(r.ttft_ms_expected, numbers, 1),
            _n(itl, numbers, 2), band, _n(r.itl_ms, numbers, 2),
            # tok/s at the ITL's own context: 1000 / ITL per sequence, times every sequence (uneven replicas: each
            # at the fullest one's rate, as PredictRow's totals)
            _n(r.itl_tok_s_expected, numbers, 1), _n(r.itl_tok_s_expected * r.total_batch, numbers, 0),
            _n(100 * r.allreduce_share_expected, numbers, 0), _n(r.mbu_implied, numbers, 2),
            f"{eff:.0%}" if eff is not None and numbers and r.fits else "-",
        ])
    a = max(rows, key=lambda r: r.tp).assumptions if rows else {}
    note = (
        f"Expected figures: {_engine_name(a.get('engine'))} "
        f"({'CUDA graphs' if a.get('cuda_graphs') else 'no CUDA graphs'}, "
        f"{_allreduce(a.get('allreduce'))}{': ' + a['allreduce_shm'] if a.get('allreduce_shm') else ''}"
        f"{'; NVLink bridge ' + a['nvlink_bridge'] if a.get('nvlink_bridge') else ''}"
        f"), a fixed cost of {a.get('kernel_overhead_us', 0):.1f} us per kernel, "
        f"weights streamed at {a.get('stream_efficiency', 0):.0%} of datasheet bandwidth, GEMMs at "
        f"{a.get('gemm_efficiency', 0):.0%} of the tensor rate, "
        f"{a.get('host_ms_per_step', 0) + a.get('multiprocess_ms_per_step', 0):.3g} ms host time per step"
        + (f" ({a['multiprocess_ms_per_step']:g} ms of it handing the step to the other worker processes); "
           if a.get("multiprocess_ms_per_step") else "; ")
        + f"band x{a.get('band', [0, 0])[0]:g}-x{a.get('band', [0, 0])[1]:g} of the expected time "
        "(the calibration's 5th-95th percentiles). 'Roofline' is datasheet bandwidth and FLOPs with ideal "
        "collectives. "
        + (f"Weights: {a['weights']}. " if a.get("weights") else "")
        + "Memory: "
        f"{a.get('memory_utilization', 0):.0%} of the GPU usable, "
        f"{a.get('reserved_gb', 0):g} GB of it kept for activations, "
        "graphs and buffers. Batch = concurrent sequences in total, split over DP replicas. GB/GPU: weights per GPU. "
        f"ITL: {ITL_AT}, {_mid(rows)} tokens (the JSON's itl_ms); "
        "tok/s/seq: 1000 / ITL, at that same context. AR %: all-reduce share of the expected decode step. "
        "MBU: bytes streamed per step / (expected step x datasheet "
        "bandwidth). eff.: decode tok/s per GPU of one replica (TP x PP) vs the smallest replica that fits."
        + (f" Quantised prompt GEMMs: {a['prompt_gemm']}." if a.get("prompt_gemm") else "")
        + (f" Release: {a['release']}." if a.get("release") else "")
        if rows else ""
    )
    return {"columns": COLUMNS, "rows": out, "note": note}


def _mid(rows: list[PredictRow]) -> str:
    """The context (tokens) each row's ITL is priced at."""
    return " / ".join(f"{m:,}" for m in sorted({r.itl_context for r in rows}))


def _engine_name(name) -> str:
    """The engine's name without its own parenthesis ("a modern serving engine (CUDA graphs, NCCL)"):
    the note says in its own parenthesis what the engine runs."""
    return re.sub(r"\s*\([^()]*\)$", "", str(name))


def _allreduce(impl) -> str:
    if not impl or impl == "none":
        return "no all-reduce at TP1"
    if "SHM" in str(impl):  # rules.collectives.nccl: the GPU has no PCIe peer-to-peer (catalog pcie_p2p = false)
        return (f"{impl} all-reduce at the largest TP: no PCIe peer-to-peer on this GPU, so NCCL stages every "
                "all-reduce through host memory")
    return f"{impl} all-reduce at the largest TP"


def _per_replica_gpu(r) -> float:
    """Decode tok/s per GPU of one model replica: the usual TP scaling-efficiency measure."""
    return r.batch * r.decode_tok_s_expected / (r.tp * r.pp)


def _n(value, show: bool, digits: int):
    if not show or value is None:
        return "-"
    return round(value) if digits == 0 else round(value, digits)
