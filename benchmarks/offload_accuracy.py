"""How close rules/offload.py's expected decode rate comes to published rates of models run partly from host memory.

Every row of tests/data/offload_rows.toml (a source's CPU, memory, GPU, model, GGUF type and placement, and the rate it
states) is priced the way `diagnose predict` and `diagnose ticket` price it. Error = expected / measured - 1, so a
negative error is a model slower than reality. Printed for the `fit` rows and the `validation` rows apart: median and
max |error|, and how many measured rates sit inside the band, over the rows whose memory configuration is known; a
row marked `anomalous` (its source leaves the memory unstated) is printed apart as a known miss, with the reason. The
[[pair]] prompts (mmap on and off, the same box) check the pageable copy rate: the mmap-on rate priced from the pinned.

    python benchmarks/offload_accuracy.py [--rows]     # --rows: every row, worst first
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rules import catalog, offload, roofline  # noqa: E402

ROWS = REPO / "tests" / "data" / "offload_rows.toml"


def rows() -> list[dict]:
    return tomllib.loads(ROWS.read_text())["row"]


def pairs() -> list[dict]:
    """The prompts timed with mmap on and off ([[pair]]): what pageable copies cost against pinned ones."""
    return tomllib.loads(ROWS.read_text())["pair"]


def pageable_expected(pair: dict) -> float:
    """The mmap-on prompt rate rules/offload prices from the pinned one: a copy-bound prompt (op offload copies the
    host-resident weights for every micro-batch) slows by the pinned to pageable copy rate."""
    return pair["pinned_tok_s"] * offload.copy_gbs(1.0, pinned=False) / offload.copy_gbs(1.0, pinned=True)


def prediction(model: str, gpu: str, gguf: str):
    """The all-in-VRAM llama.cpp prediction for one stream on one GPU (what the offload model scales)."""
    t = catalog.gguf_type(gguf)
    return roofline.predict_any_build(catalog.models()[model], catalog.resolve_gpu(gpu), roofline.Layout(tp=1, pp=1),
                                      batch=1, prompt=512, output=None, engine=catalog.engine("llamacpp"),
                                      dtype=t.dtype, quant_group=gguf, gpus_per_node=8, build_stated=False,
                                      releases=(), release_note="")


def pace(row: dict) -> offload.OffloadPace:
    """The row's placement priced on its host, over the GPU's own PCIe link as interconnects.toml measures it."""
    gpu = catalog.resolve_gpu(row["gpu"])
    p = prediction(row["model"], row["gpu"], row["gguf"])
    model = catalog.models()[row["model"]]
    if row["placement"] == "experts":
        placed = offload.experts_on_cpu(p, row.get("moe_layers_on_cpu"))
    else:
        placed = offload.layers_on_cpu(p, row["on_gpu"], model.layers)
    host = offload.host_memory(row["cpu"], row.get("mts"), row.get("channels"), row.get("sockets"),
                               row.get("ddr"))
    return offload.decode_pace(p, placed, host, catalog.interconnect(gpu.pcie_interconnect).achieved_gbs)


def bound(row: dict, x: offload.OffloadPace) -> tuple[float, str]:
    """(tok/s, how) the fastest the row's placement can decode one stream: the GPU's share of the bytes at the
    predictor's roofline (the board's full memory bandwidth) and the CPU's at 100 % of the fastest memory its host can
    hold: the DIMM speed the source states, else the fastest JEDEC grade of the CPU family's DDR generation
    (host_memory.toml [ddr]), on every channel; PCIe copies at no cost. CPU decode reaches 26-74 % of peak in the
    measurements cited there, so a rate above this bound cannot come from the placement as recorded."""
    p = prediction(row["model"], row["gpu"], row["gguf"])
    total = p.streamed_gb_per_step
    gpu_ms = p.decode_step_ms * (total - x.placement.cpu_gb) / total
    if not x.placement.cpu_gb:
        return 1e3 / gpu_ms, f"{gpu_ms:.1f} ms on the GPU at its full bandwidth"
    family = offload.cpu_family(row["cpu"])
    kind = row.get("ddr") or (family[0].get("ddr") if family else None)
    fastest = row.get("mts") or (max(offload._table()["ddr"][kind]) if kind else None)
    host = offload.host_memory(row["cpu"], fastest, row.get("channels"), row.get("sockets"), kind)
    cpu_ms = x.placement.cpu_gb / host.high_gbs * 1e3
    return 1e3 / (gpu_ms + cpu_ms), (f"{gpu_ms:.1f} ms on the GPU at its full bandwidth + {x.placement.cpu_gb:.2f} GB "
                                     f"at 100 % of {host.what}: {cpu_ms:.1f} ms")


def evaluate(selected: list[dict]) -> list[dict]:
    out = []
    for row in selected:
        x = pace(row)
        out.append({"row": row, "err": x.expected / row["tok_s"] - 1, "inside": x.low <= row["tok_s"] <= x.high,
                    "pace": x, "bound": bound(row, x)})
    return out


def summary(results: list[dict]) -> dict:
    errs = [abs(x["err"]) for x in results]
    return {"n": len(errs), "median_abs": statistics.median(errs), "max_abs": max(errs),
            "inside": sum(x["inside"] for x in results)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", action="store_true", help="print every row, worst first")
    args = ap.parse_args(argv)
    results = evaluate(rows())
    for split in ("fit", "validation"):
        part = [x for x in results if x["row"]["split"] == split and not x["row"].get("anomalous")]
        s = summary(part)
        print(f"{split:<10} {s['n']:>3} rows  median |error| {s['median_abs']:.0%}  max {s['max_abs']:.0%}  "
              f"inside band {s['inside']}/{s['n']}")
    for split in ("fit", "validation"):
        errs = [(pageable_expected(x) / x["pageable_tok_s"] - 1, x) for x in pairs() if x["split"] == split]
        print(f"{split:<10} {len(errs):>3} prompt pairs (mmap on, from the pinned rate)  median |error| "
              f"{statistics.median(abs(e) for e, _ in errs):.0%}  max {max(abs(e) for e, _ in errs):.0%}")
    over = [x for x in results if x["row"]["tok_s"] > x["bound"][0]]
    print(f"faster than the placement's bound (the recorded setting cannot give the rate): {len(over)} of "
          f"{len(results)} rows" + "".join(f"; {x['row']['tok_s']:g} tok/s against {x['bound'][0]:.2f} "
                                           f"({x['bound'][1]}), {x['row']['source']}" for x in over))
    for x in results:
        if x["row"].get("anomalous"):
            print(f"known miss {x['err']:+.0%} ({x['row']['split']}, not in the figures above): {x['row']['cpu']}, "
                  f"{x['row']['tok_s']:g} tok/s measured, {x['pace'].expected:.2f} expected; {x['row']['anomalous']} "
                  f"({x['row']['source']})")
    if args.rows:
        for x in sorted(results, key=lambda x: -abs(x["err"])):
            r, p = x["row"], x["pace"]
            print(f"{x['err']:+7.0%}  {r['split'][:3]}  measured {r['tok_s']:>6.2f}  expected {p.expected:>6.2f} "
                  f"(band {p.low:.1f}-{p.high:.1f})  {r['model']} {r['gguf']} on {r['gpu']}, {r['cpu']}: "
                  f"{p.placement.words}")
        for x in pairs():
            e = pageable_expected(x)
            print(f"{e / x['pageable_tok_s'] - 1:+7.0%}  {x['split'][:3]}  mmap on: measured {x['pageable_tok_s']:g} "
                  f"expected {e:.0f} tok/s, pinned {x['pinned_tok_s']:g}  {x['source']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
