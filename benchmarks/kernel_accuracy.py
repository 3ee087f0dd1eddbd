"""How close rules/step_model.py's cost of one weight GEMM comes to the same GEMM timed on a real GPU.

The expected figures cost a step kernel by kernel: a fixed time per kernel (calibration.toml kernel_overhead_us, or the
engine's own), its bytes at the achieved stream bandwidth and its FLOPs at the achieved tensor rate for its shape and
dtype, overlapped (step_model.overlapped). Those constants were fitted to published end-to-end figures; this script
holds the per-kernel cost against the kernels themselves, timed by scripts/kernel_sweep.py (CUDA-graphed, weights
from HBM) and kept in tests/data/hardware/kernels/ with their source.

Error = expected / measured - 1 (negative: the model is faster than the GPU). Printed per dtype and regime (decode
GEMV: <= 16 tokens; near the ridge: 64-256; prefill: >= 1024), with the run-to-run spread of the repeated sweep, and
the constants the kernels imply: a least-squares line through the one-token GEMVs (fixed microseconds and bandwidth)
and the tensor rate of the 4096-token GEMMs over 4096 wide.

    python benchmarks/kernel_accuracy.py [--engine generic] [--rows]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rules import catalog, step_model  # noqa: E402

KERNELS = REPO / "tests" / "data" / "hardware" / "kernels"
REGIMES = (("decode GEMV (m <= 16)", 1, 16), ("near the ridge (m 64-256)", 64, 256),
           ("prefill (m >= 1024)", 1024, 1 << 30))
BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0}


def load(path: Path) -> list[dict]:
    """The rows of one sweep (its first line is a comment naming the GPU, torch and CUDA)."""
    with path.open() as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def sweeps() -> list[Path]:
    return sorted(p for p in KERNELS.glob("*-sweep.csv"))


def expected_us(row: dict, engine: catalog.EngineSpec) -> float:
    """The GEMM as pass_terms costs it: the kernel's fixed time plus its stream and math overlapped."""
    gpu = catalog.find_gpu(row["gpu_name"])
    model = catalog.model(row["model"])
    m, n, k, dtype = int(row["m"]), int(row["n"]), int(row["k"]), row["dtype"]
    cal = catalog.calibration()
    s = step_model.Setting(model, gpu, engine, cal, int(row["tp"]), dtype, "bf16", catalog.interconnects()["nvlink4"])
    stream = (n * k * BYTES[dtype] + m * (k + n) * 2.0) / s.stream_bw()
    math_us = 2.0 * m * n * k / s.gemm_rate(m, n, k)
    return (engine.kernel_overhead_us or cal.kernel_overhead_us) + step_model.overlapped(stream, math_us, cal.overlap_p)


def spread(a: list[dict], b: list[dict]) -> list[float]:
    """|a/b - 1| of every GEMM timed in both sweeps."""
    key = lambda r: (r["dtype"], r["m"], r["n"], r["k"])  # noqa: E731
    other = {key(r): float(r["us"]) for r in b}
    return [abs(float(r["us"]) / other[key(r)] - 1) for r in a if key(r) in other]


def fixed_and_bandwidth(rows: list[dict]) -> tuple[float, float]:
    """Least-squares line time = fixed + bytes / bandwidth through one-token GEMVs: (us, GB/s)."""
    xs = [float(r["weight_bytes"]) for r in rows]
    ys = [float(r["us"]) for r in rows]
    slope, intercept = statistics.linear_regression(xs, ys)
    return intercept, 1e-3 / slope


def summary(errors: list[float]) -> str:
    if not errors:
        return "no rows"
    within = sum(abs(e) <= 0.25 for e in errors) / len(errors)
    return (f"n {len(errors):3d}  median {statistics.median(errors):+5.0%}  median |err| "
            f"{statistics.median(abs(e) for e in errors):4.0%}  max |err| {max(abs(e) for e in errors):4.0%}  "
            f"within 25% {within:4.0%}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="generic", help="engine profile whose kernel overhead is used")
    ap.add_argument("--rows", action="store_true", help="every GEMM, worst first")
    args = ap.parse_args(argv)
    engine = catalog.engine(args.engine)
    for path in sweeps():
        rows = load(path)
        gpu = catalog.find_gpu(rows[0]["gpu_name"])
        print(f"== {path.name}: {len(rows)} GEMMs on {rows[0]['gpu_name']} ({gpu.name}), engine {engine.name}")
        expected = [expected_us(r, engine) for r in rows]
        errors = [(e / float(r["us"]) - 1, r) for e, r in zip(expected, rows)]
        for dtype in sorted({r["dtype"] for r in rows}):
            for label, lo, hi in REGIMES:
                sel = [e for e, r in errors if r["dtype"] == dtype and lo <= int(r["m"]) <= hi]
                print(f"   {dtype:5s} {label:26s} {summary(sel)}")
        print(f"   all                              {summary([e for e, _ in errors])}")
        repeat = path.with_name(path.stem + "-repeat.csv")
        if repeat.exists():
            d = sorted(spread(rows, load(repeat)))
            print(f"   run to run ({repeat.name}): median {statistics.median(d):.1%}, "
                  f"95th {d[int(0.95 * (len(d) - 1))]:.1%}, max {d[-1]:.1%}")
        cal = catalog.calibration()
        for dtype in sorted({r["dtype"] for r in rows}):
            gemv = [r for r in rows if r["dtype"] == dtype and r["m"] == "1"]
            fixed, gbs = fixed_and_bandwidth(gemv)
            over = engine.kernel_overhead_us or cal.kernel_overhead_us
            print(f"   {dtype} one-token GEMVs: fixed {fixed:.1f} us (model {over:.2f}),"
                  f" {gbs:.0f} GB/s = {gbs / gpu.hbm_gbs:.3f} of the datasheet (model {cal.stream_efficiency:.3f})")
            big = [r for r in rows if r["dtype"] == dtype and r["m"] == "4096" and int(r["n"]) >= 4096
                   and int(r["k"]) >= 4096]
            if big:
                rate = statistics.median(2 * 4096 * int(r["n"]) * int(r["k"]) / float(r["us"]) / 1e6 for r in big)
                peak = gpu.tflops(dtype)
                model_share = cal.gemm(dtype, gpu)
                print(f"   {dtype} 4096-token GEMMs (n, k >= 4096, {len(big)}): median {rate:.0f} TFLOP/s = "
                      f"{rate / peak:.3f} of the datasheet (model {model_share:.3f} before shape losses)")
        if args.rows:
            for (e, r), x in sorted(zip(errors, expected), key=lambda p: -abs(p[0][0])):
                print(f"   {e:+6.0%}  {r['dtype']} {r['model']} tp{r['tp']} {r['matrix']:8s} m {r['m']:>5s} "
                      f"n {r['n']:>6s} k {r['k']:>5s}  measured {float(r['us']):8.1f} us  "
                      f"expected {x:8.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
