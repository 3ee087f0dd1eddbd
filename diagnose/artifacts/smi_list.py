"""`nvidia-smi -L` / `--list-gpus`: one GpuFact per GPU line, the machine's inventory.

nvidia-smi prints one line per GPU, "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-9c7d...)", and under a GPU in MIG mode
one indented line per MIG device, "  MIG 3g.40gb     Device  0: (UUID: MIG-...)"
(https://docs.nvidia.com/deploy/nvidia-smi/index.html, -L; https://docs.nvidia.com/datacenter/tesla/mig-user-guide/).
A MIG device is a slice of its GPU, not another GPU, so only GPU lines are read. The list is every GPU the driver
sees on the host, not those a job runs on (rules.common.gpu_count keeps the two apart).
"""

from __future__ import annotations

import re

from diagnose.artifacts.text import lines
from diagnose.evidence import GpuFact, where

KIND = "smi_list"

# The UUID may be redacted in a paste ("GPU-xxxx", "GPU-..."): the line's form still says what it is.
GPU_LINE = re.compile(r"^\s*GPU\s+(\d{1,3}):\s+(\S.*?)\s+\(UUID:\s*(GPU-[^)\s]*)\s*\)\s*$")


# `nvidia-smi nvlink -s` heads each GPU's links with the same line: that output is nvlink.py's, which reads its GPUs.
# (also its line for a GPU without an active link: "NVML: Unable to retrieve NVLink information as all links are
# inActive")
NVLINK_LINE = re.compile(r"(?m)^[^\S\n]*Link\s+\d+\s*:|all links are in\s*active", re.I)


def detect(text: str) -> float:
    if NVLINK_LINE.search(text[:200_000]):
        return 0.0
    found = sum(1 for _, ln in lines(text[:200_000]) if GPU_LINE.match(ln))
    return 0.0 if not found else 0.9 if found >= 2 else 0.6


def parse(text: str, name: str) -> list:
    out = []
    for n, line in lines(text):
        if (m := GPU_LINE.match(line)) is not None:
            uuid = m.group(3) if re.fullmatch(r"GPU-[0-9a-fA-F-]{8,}", m.group(3)) else None
            out.append(GpuFact(where(name, n), index=int(m.group(1)), name=m.group(2), uuid=uuid))
    return out
