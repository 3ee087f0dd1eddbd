"""nvtop's device line: `Device 1 [GeForce GTX 1080 Ti] PCIe GEN 1@16x ...`, one GpuFact.

nvtop shows the current PCIe generation and width only. Whether the GPU was busy is shown
on the `GPU[|||  45%]` bar when the paste includes it; without it pcie_read_under_load stays
None, because an idle GPU at Gen1 is normal power saving.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import clean_lines, idle_or_loaded
from diagnose.evidence import GpuFact, where

KIND = "nvtop"

_DEVICE = re.compile(r"Device\s+(\d+)\s*\[([^\]]+)\]\s*PCIe\s+GEN\s*(\d+)\s*@\s*(\d+)\s*x", re.I)
_UTIL = re.compile(r"\bGPU\s*\[[|\s]*(\d+)%\]")


def detect(text: str) -> float:
    return 0.9 if _DEVICE.search(text[:200_000]) else 0.0


def parse(text: str, name: str) -> list:
    records: list[GpuFact] = []
    current = None
    for i, line in enumerate(clean_lines(text)):
        m = _DEVICE.search(line)
        if m:
            model = m.group(2).strip()
            current = GpuFact(where(name, i + 1), index=int(m.group(1)), name=model,
                              pcie_gen_current=int(m.group(3)), pcie_width_current=int(m.group(4)))
            records.append(current)
            continue
        util = _UTIL.search(line)
        if util and current is not None and current.utilization_pct is None:
            current.utilization_pct = float(util.group(1))
            current.pcie_read_under_load = idle_or_loaded(current.utilization_pct, None, [])
    return records
