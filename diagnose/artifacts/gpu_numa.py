"""GPU -> NUMA node listings, one GpuFact (index or bus id, numa_node) per GPU.

Three shapes people paste: the kernel's per-device file (`/sys/bus/pci/devices/<bus id>/numa_node`, as
`grep . .../numa_node` or a loop printing `<bus id> <node>`; -1 = the firmware gave none,
https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-bus-pci), `rocm-smi --showtoponuma`
(`GPU[0] : (Topology) Numa Node: 0`), and a hand-written `GPU0 -> NUMA 1` / `GPU 3: NUMA node 1`.
The CPU/NUMA Affinity columns of `nvidia-smi topo -m` are the topo parser's. A listing alone is
inventory: which node a rank's memory or threads should be on is for the rules.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import bus_id, clean_lines
from diagnose.evidence import GpuFact, where

KIND = "gpu_numa"

_BUS = r"(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
# "/sys/bus/pci/devices/0000:17:00.0/numa_node:0" (grep .), "0000:9f:00.0 0", "0000:9f:00.0: 1"
_SYSFS = re.compile(rf"^\s*(?:\S*/)?({_BUS})(/numa_node)?\s*[:=]?\s*(-?\d+)\s*$")
# "GPU[0] : (Topology) Numa Node: 0", "GPU0 -> NUMA 1", "GPU 3: NUMA node 1", "gpu 2 => numa_node=0"
_BY_INDEX = re.compile(r"^\s*GPU\s*\[?(\d+)\]?\s*(?::|->|=>|→)\s*(?:\(Topology\)\s*)?"
                       r"NUMA[ _]?(?:node)?\s*[:=]?\s*(-?\d+)\s*$", re.I)


def _hits(text: str) -> tuple[list, list]:
    lines = clean_lines(text[:2_000_000])
    sysfs = [(i, m) for i, line in enumerate(lines) if (m := _SYSFS.match(line))]
    by_index = [(i, m) for i, line in enumerate(lines) if (m := _BY_INDEX.match(line))]
    return sysfs, by_index


def detect(text: str) -> float:
    sysfs, by_index = _hits(text)
    # a lone "<bus id> <number>" line may be anything; the file's name, or two lines of them, say what it is
    named = any(m.group(2) for _, m in sysfs)
    return 0.9 if len(sysfs) >= 2 or named or by_index else 0.0


def parse(text: str, name: str) -> list:
    sysfs, by_index = _hits(text)
    records: list[GpuFact] = []
    for i, m in sysfs:
        records.append(GpuFact(where(name, i + 1), bus_id=bus_id(m.group(1)), numa_node=int(m.group(3))))
    seen: set[int] = set()
    for i, m in by_index:
        index = int(m.group(1))
        if index in seen:  # rocm-smi prints Numa Node and Numa Affinity, the same node twice
            continue
        seen.add(index)
        records.append(GpuFact(where(name, i + 1), index=index, numa_node=int(m.group(2))))
    return records
