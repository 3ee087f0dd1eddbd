"""The host-memory share that decode with part of a model on the CPU reached, from the `fit` rows of
tests/data/offload_rows.toml, printed as host_memory.toml [[achieved]] rows.

Each fit row's rate is a step time; the GPU's share of it is the all-in-VRAM prediction scaled to the bytes left on the
GPU (rules/offload.decode_pace), the rest is the CPU reading its bytes. Achieved GB/s = the CPU's GB per token / that
remaining time; its share of the host's peak is what rules/offload.achieved_share pools, per kind of read (whole dense
layers, or an MoE's routed experts). Validation rows and rows marked `anomalous` are never read here.

    python scripts/fit_offload.py            # the [[achieved]] rows to paste into rules/catalog/host_memory.toml
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.offload_accuracy import pace, rows  # noqa: E402


def machine(row: dict, peak_what: str) -> str:
    """One box measured under several models or socket counts is one machine."""
    return f"{row['cpu']}, {peak_what.split(': ', 1)[-1].split(' = ')[0]}"


def achieved(row: dict) -> dict | None:
    """The row's CPU read as an [[achieved]] entry, None where the GPU's share alone exceeds the measured step."""
    x = pace(row)
    step_s = 1 / row["tok_s"] - (x.gpu_ms + x.pcie_ms) / 1e3
    if step_s <= 0 or not x.placement.cpu_gb:
        return None
    peak = (x.host.low_gbs * x.host.high_gbs) ** 0.5
    return {"what": f"hybrid decode, {row['model']} {row['gguf']} on one {row['gpu']}, {x.placement.words}: "
                    f"{row['tok_s']:g} tok/s, {x.placement.cpu_gb:.2f} GB read by the CPU in the "
                    f"{step_s * 1e3:.1f} ms left after the GPU's predicted {x.gpu_ms:.1f} ms",
            "machine": machine(row, x.host.what), "reads": x.placement.reads, "peak_gbs": round(peak, 1),
            "achieved_gbs": round(x.placement.cpu_gb / step_s, 1), "source": row["source"]}


def main() -> int:
    for row in rows():
        if row["split"] != "fit":
            continue
        if row.get("anomalous"):  # a memory configuration the source leaves unstated: a known miss, never fitted
            print(f"# skipped (anomalous: {row['anomalous']}): {row['source']}", file=sys.stderr)
            continue
        a = achieved(row)
        if a is None:
            print(f"# skipped (the GPU's share alone is slower than measured): {row['source']}", file=sys.stderr)
            continue
        print("[[achieved]]")
        for k in ("what", "machine", "reads", "peak_gbs", "achieved_gbs", "source"):
            v = a[k]
            print(f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}")
        print(f"# share {a['achieved_gbs'] / a['peak_gbs']:.2f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
