"""How close the predictor's expected figures come to published measurements.

For every row of tests/data/published (real engines on real GPUs: end-to-end latency, TTFT, ITL,
throughput at a fixed batch), the expected figure for the setup the row names is compared with
the measured value. Error = expected time / measured time - 1 (for a rate: measured / expected
- 1), so a negative error is a model faster than reality. Printed per source table and per TP
size, for the `fit` tables (the calibration saw them) and the `validation` tables (it did not),
against the targets of issue 10:

  median |error| <= 15 %, max |error| <= 35 %, |median error at TP8 - at TP1| <= 10 points,
  and no measurement faster than the roofline.

Rows the source marks unhealthy are reported apart: they should sit outside the band, slower.

    python benchmarks/predictor_accuracy.py [--rows]     # --rows: every row, worst first
"""

from __future__ import annotations

import argparse
import collections
import math
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagnose import published  # noqa: E402
from rules import catalog  # noqa: E402

PUBLISHED = REPO / "tests" / "data" / "published"
TARGETS = {"median": 0.15, "max": 0.35, "tp_trend": 0.10}


def evaluate(rows):
    out = []
    for r in rows:
        e = published.expect(r)
        err = 1.0 / e.ratio(r.value) - 1.0
        out.append({"row": r, "err": err, "inside": e.verdict(r.value) == "inside",
                    "beats_roofline": e.verdict(r.value) == "faster_than_roofline", "exp": e})
    return out


def summary(results) -> dict:
    errs = [x["err"] for x in results]
    by_tp = collections.defaultdict(list)
    for x in results:
        by_tp[x["row"].tp].append(x["err"])
    med_tp = {tp: statistics.median(v) for tp, v in sorted(by_tp.items())}
    trend = abs(med_tp[8] - med_tp[1]) if 1 in med_tp and 8 in med_tp else None
    return {"n": len(errs), "median_abs": statistics.median(abs(e) for e in errs), "max_abs": max(abs(e) for e in errs),
            "median": statistics.median(errs), "by_tp": med_tp, "tp_trend": trend,
            "inside_band": sum(x["inside"] for x in results) / len(results),
            "beats_roofline": sum(x["beats_roofline"] for x in results)}


def _pct(x: float) -> str:
    return f"{100 * x:+.0f}%"


def report(results, title: str) -> bool:
    print(f"\n== {title}: {len(results)} rows")
    print(f"{'source table':64s} {'rows':>4s} {'median':>7s} {'med|e|':>7s} {'max|e|':>7s}  by TP (median)")
    by_table = collections.defaultdict(list)
    for x in results:
        by_table[x["row"].table].append(x)
    for table, xs in sorted(by_table.items()):
        s = summary(xs)
        tps = " ".join(f"TP{tp}:{_pct(v)}" for tp, v in s["by_tp"].items())
        print(f"{table:64s} {s['n']:4d} {_pct(s['median']):>7s} {100 * s['median_abs']:6.0f}% "
              f"{100 * s['max_abs']:6.0f}%  {tps}")
    s = summary(results)
    print("by TP size: " + ", ".join(f"TP{tp} {_pct(v)} ({sum(1 for x in results if x['row'].tp == tp)} rows)"
                                     for tp, v in s["by_tp"].items()))
    ok = {"median": s["median_abs"] <= TARGETS["median"], "max": s["max_abs"] <= TARGETS["max"],
          "tp_trend": s["tp_trend"] is not None and s["tp_trend"] <= TARGETS["tp_trend"],
          "roofline": s["beats_roofline"] == 0}
    trend = f"{100 * s['tp_trend']:.0f} points" if s["tp_trend"] is not None else "n/a (no TP1 and TP8 rows)"
    print(f"median |error| {100 * s['median_abs']:.1f}% (target <= 15%: {'ok' if ok['median'] else 'MISSED'}); "
          f"max |error| {100 * s['max_abs']:.0f}% (target <= 35%: {'ok' if ok['max'] else 'MISSED'}); "
          f"TP8 - TP1 median error {trend} (target <= 10: {'ok' if ok['tp_trend'] else 'MISSED'}); "
          f"inside the band {100 * s['inside_band']:.0f}%; faster than the roofline: {s['beats_roofline']} rows")
    return all(ok.values())


def _kind(c: published.CollectiveRow) -> str:
    """pcie, nvlink (NVLink, NVSwitch, bridges) or network: the fabric the all-reduce ran on."""
    kind = "nvlink" if c.fabric == "nvlink-bridge" else catalog.interconnect(c.fabric).kind
    return "nvlink" if kind == "nvswitch" else kind


SIZE_BANDS = ((0, 128 << 10, "< 128 KB"), (128 << 10, (1 << 20) + 1, "128 KB - 1 MB"),
              ((1 << 20) + 1, math.inf, "> 1 MB"))


def report_collectives() -> None:
    """The expected all-reduce time against every table of tests/data/collectives (median per
    table x ranks x power-of-two size, as the fit weighs them; each table with how it was launched),
    then by size band and GPU count for the fit and the validation tables (each file's `# Split:`), a validation table
    measured on a fit table's node and harness (`# Same-setup-as:`) apart: it is not held-out evidence."""
    print(f"\n== all-reduce tables ({(REPO / 'tests' / 'data' / 'collectives').relative_to(REPO)}): "
          "expected time / measured - 1")
    groups = collections.defaultdict(list)
    for path in sorted((REPO / "tests" / "data" / "collectives").glob("*.csv")):
        for c in published.read_collectives(path):
            groups[(path.name, c.implementation, c.gpus, c.nodes, int(math.log2(max(c.size_bytes, 1))))].append(c)
    by_table, points = collections.defaultdict(list), []
    for (name, *_), cs in groups.items():
        cs.sort(key=lambda c: c.time_us)
        mid = cs[len(cs) // 2]
        err = published.expect_collective(mid)[0] / mid.time_us - 1
        by_table[(name, mid.split, mid.launch)].append(err)
        points.append((mid, err))
    for (name, split, launch), errs in sorted(by_table.items()):
        print(f"{name:64s} {split[:3]} {launch:10s} {len(errs):4d} median {_pct(statistics.median(errs)):>6s} "
              f"median |e| {100 * statistics.median(abs(e) for e in errs):4.0f}%")
    parts = [(split, False) for split in published.SPLITS] + [("validation", True)]
    for split, twinned in parts:
        print(f"{split} tables by fabric, size band and GPU count (median error / median |error| / points):"
              if not twinned else "validation tables set up as a fit table (`# Same-setup-as:`, not independent; "
              "left out above):")
        for kind in ("pcie", "nvlink", "network"):
            for lo, hi, band in SIZE_BANDS:
                cells = collections.defaultdict(list)
                for c, err in points:
                    if c.split == split and (split == "fit" or bool(c.same_setup_as) == twinned) \
                            and lo <= c.size_bytes < hi and _kind(c) == kind:
                        cells[c.gpus].append(err)
                if cells:
                    print(f"  {kind:7s} {band:14s} " + "  ".join(
                        f"{n} GPUs {_pct(statistics.median(v))}/{100 * statistics.median(abs(e) for e in v):.0f}%"
                        f"/{len(v)}" for n, v in sorted(cells.items())))
    report_releases(points)
    lo, hi = catalog.calibration().allreduce_band
    print(f"all-reduce band x{lo:g} .. x{hi:g} (vidur's single kernel-time samples without CUDA graphs are noisy)")


def report_releases(points) -> None:
    """The all-reduce points by the NCCL release each table states (`# NCCL:`; the tuner constants it is priced with,
    rules/catalog/nccl_tuning.toml), an assumed one ('# NCCL: 2.26.2 - assumed ...') and unstated ones (priced with the
    pinned release) apart, fit and validation apart."""
    pinned = catalog.nccl_tuning()["release"]["version"]
    print("all-reduce points by the NCCL release the table states (median error / median |error| / max |error| / "
          "points):")
    for split in published.SPLITS:
        cells = collections.defaultdict(list)
        for c, err in points:
            if c.split == split:
                cells[c.nccl or "", c.nccl_assumed].append(err)
        for release, assumed in sorted(cells, key=lambda r: (catalog.nccl_release(r[0]) or (99,), r[1])):
            errs = cells[release, assumed]
            name = (release + (" assumed" if assumed else "")) or f"unstated (priced as {pinned})"
            older = catalog.nccl_tuning(release)["release"] if release else {}
            name += f" (priced as {older['version']})" if older.get("clamped_from") else ""
            print(f"  {split:10s} {name:28s} {_pct(statistics.median(errs)):>6s} "
                  f"{100 * statistics.median(abs(e) for e in errs):4.0f}% {100 * max(abs(e) for e in errs):4.0f}% "
                  f"{len(errs):4d}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", action="store_true", help="print every row, worst first")
    args = ap.parse_args()
    catalog.configure([str(PUBLISHED / "models.toml")])
    rows = published.read_dir(PUBLISHED)
    healthy = [r for r in rows if r.healthy]
    results = evaluate(healthy)
    cal = catalog.calibration()
    print(f"Predictor accuracy against {len(healthy)} published rows in {len({r.table for r in healthy})} tables "
          f"({PUBLISHED.relative_to(REPO)}); band x{cal.band[0]:g} .. x{cal.band[1]:g} of the expected time")
    fit_ok = report([x for x in results if x["row"].split == "fit"], "fit tables (the calibration saw these)")
    val_ok = report([x for x in results if x["row"].split == "validation"], "validation tables (never used by the fit)")
    report_collectives()
    sick = [r for r in rows if not r.healthy]
    if sick:
        sick_results = evaluate(sick)
        slower = sum(1 for x in sick_results if x["exp"].verdict(x["row"].value) == "slower")
        print(f"\nunhealthy rows (the source found the system broken): {slower} of {len(sick)} slower than the band")
    if args.rows:
        print()
        for x in sorted(results, key=lambda x: -abs(x["err"])):
            r, e = x["row"], x["exp"]
            print(f"{_pct(x['err']):>6s} {r.split[:3]} {r.source:60s} {r.engine} {r.model} {r.gpu} {r.dtype} "
                  f"TP{r.tp} PP{r.pp} b{r.batch} {r.input_len}/{r.output_len} {r.metric} measured {r.value:g} "
                  f"expected {e.expected:.4g}")
    print(f"\ntargets met: fit {'yes' if fit_ok else 'no'}, validation {'yes' if val_ok else 'no'}")


if __name__ == "__main__":
    main()
