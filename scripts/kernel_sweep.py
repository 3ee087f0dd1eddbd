"""Time every weight GEMM of a model's TP shards on this GPU, as a CUDA-graphed step runs it.

    python scripts/kernel_sweep.py OUT.csv [--models llama-3-8b,llama-3-70b] [--tp 1,2,4,8]
                                           [--tokens 1,4,16,64,256,1024,4096] [--dtypes bf16,fp8]
                                           [--budget-s 150]

The shapes are the ones the expected figures cost (rules.shapes.layer_matrices, plus the LM
head), so benchmarks/kernel_accuracy.py can hold rules.step_model's per-kernel time against a
real GPU. Rows are written as they are measured; past the budget the sweep stops and keeps what
it has. Needs torch with CUDA.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import catalog, shapes  # noqa: E402

FIELDS = ["gpu_name", "model", "tp", "matrix", "m", "n", "k", "dtype", "us", "weight_bytes"]


def sweep_shapes(models: list[str], tps: list[int]) -> list[tuple[str, int, str, int, int]]:
    """(model, tp, matrix, n, k) of every dense decoder GEMM and the LM head on one rank; a
    shape two (model, tp) pairs share is listed once, under the first."""
    out, seen = [], set()
    for name in models:
        model = catalog.model(name)
        for tp in tps:
            mats = [(m.name, m.n, m.k) for m in shapes.layer_matrices(model, tp, False)]
            mats.append(("lm_head", model.vocab / tp, model.hidden))
            for matrix, n, k in mats:
                if n != int(n) or k != int(k) or (int(n), int(k)) in seen:
                    continue
                seen.add((int(n), int(k)))
                out.append((name, tp, matrix, int(n), int(k)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--models", default="llama-3-8b,llama-3-70b")
    ap.add_argument("--tp", default="1,2,4,8")
    ap.add_argument("--tokens", default="1,4,16,64,256,1024,4096")
    ap.add_argument("--dtypes", default="bf16,fp8")
    ap.add_argument("--budget-s", type=float, default=150.0)
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("kernel_sweep: torch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("kernel_sweep: torch sees no CUDA GPU", file=sys.stderr)
        return 2
    from probes.kernels import weight_gemm_us

    plan = [(dtype, m, shape) for dtype in args.dtypes.split(",")
            for shape in sweep_shapes(args.models.split(","), [int(t) for t in args.tp.split(",")])
            for m in (int(t) for t in args.tokens.split(","))]
    gpu_name = torch.cuda.get_device_name(0)
    start, done = time.monotonic(), 0
    with open(args.out, "w", newline="") as f:
        f.write(f"# {gpu_name}; torch {torch.__version__}; CUDA {torch.version.cuda}; "
                f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%MZ}\n")
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        for dtype, m, (model, tp, matrix, n, k) in plan:
            if time.monotonic() - start > args.budget_s:
                print(f"kernel_sweep: budget of {args.budget_s:.0f} s spent after {done} of {len(plan)} GEMMs",
                      file=sys.stderr)
                break
            try:
                us = weight_gemm_us(m, n, k, dtype)
            except RuntimeError as exc:  # a shape this torch's kernels refuse (fp8 row counts)
                print(f"kernel_sweep: {dtype} {m}x{n}x{k}: {str(exc).splitlines()[0]}", file=sys.stderr)
                us = None
            done += 1
            if us is None:
                continue
            writer.writerow({"gpu_name": gpu_name, "model": model, "tp": tp, "matrix": matrix, "m": m, "n": n,
                             "k": k, "dtype": dtype, "us": f"{us:.2f}",
                             "weight_bytes": n * k * (1 if dtype == "fp8" else 2)})
            f.flush()
            if done % 25 == 0:
                print(f"kernel_sweep: {done}/{len(plan)} in {time.monotonic() - start:.0f} s", file=sys.stderr)
    print(f"kernel_sweep: {done} of {len(plan)} GEMMs timed in {time.monotonic() - start:.0f} s -> {args.out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
