"""Plain `nvidia-smi` (the box-drawn table): one GpuFact per GPU, plus driver and CUDA version.

The banner gives nvidia-smi's own version beside the driver's (they differ in a WSL 2 guest, whose driver is the
Windows host's; the 610 drivers print "KMD Version" and "CUDA UMD Version" for "Driver Version" and "CUDA
Version"). Each GPU takes two or three table rows: `| idx name persistence | bus-id disp | ecc |` then
`| fan temp perf power/cap | memory used/total | util compute-mode |` then the MIG row. Cells
are split on `|`, so column widths (which change between drivers) do not matter. The table
has no PCIe link data, so pcie_read_under_load stays None. The Processes section's rows
(`| GPU GI CI PID Type Process name Memory |` from driver 470 on, `| GPU PID Type Process name Memory |` before)
land on their GPU's record: who else holds memory on a GPU is read here, judged in rules.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import bus_id, clean_lines, to_float
from diagnose.evidence import GpuFact, HostFact, where

KIND = "smi_table"

_BANNER = re.compile(r"NVIDIA-SMI\s+([\d.]+)\s+(?:Driver|KMD) Version:\s*([\d.]+)"
                     r"(?:\s+CUDA (?:UMD )?Version:\s*([\d.]+|N/A))?")
_FIRST = re.compile(r"^\s*(\d+)\s+(.+?)\s+(On|Off|WDDM|TCC|N/A)\s*$")
# a Processes row: GPU, GI and CI (N/A without MIG; absent before driver 470), PID, type (C compute, G graphics,
# C+G, M / M+C under MPS), name (cut with "..." when long), memory ("N/A" where the driver cannot attribute it)
_PROCESS = re.compile(r"^\s*(?P<gpu>\d+)\s+(?:(?:N/A|\d+)\s+(?:N/A|\d+)\s+)?(?P<pid>\d+)\s+(?P<type>C\+G|M\+C|C|G|M)\s+"
                      r"(?P<name>\S.*?)\s+(?P<mem>\d+\s*MiB|N/A)\s*$")
_BUS = re.compile(r"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])")


def detect(text: str) -> float:
    head = text[:200_000]
    if _BANNER.search(head):
        return 0.95
    if "Persistence-M" in head and "Bus-Id" in head:
        return 0.9
    return 0.0


def parse(text: str, name: str) -> list:
    lines = clean_lines(text)
    records: list = []
    second_row_for = mig_row_for = None
    in_processes = False
    for i, line in enumerate(lines):
        banner = _BANNER.search(line)
        if banner:
            records.append(HostFact(where(name, i + 1), "driver_version", banner.group(2)))
            # nvidia-smi's own build: the same as the driver's on Linux and Windows, the Linux tool beside the
            # Windows host's driver (NVIDIA-SMI 550.54.10, Driver Version: 551.61) in a WSL 2 guest
            records.append(HostFact(where(name, i + 1), "nvidia_smi_version", banner.group(1)))
            if banner.group(3) and banner.group(3) != "N/A":
                records.append(HostFact(where(name, i + 1), "cuda_driver_version", banner.group(3)))
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0].startswith("Processes:"):
            in_processes = True
            continue
        if in_processes:
            process = _PROCESS.match(cells[0]) if len(cells) == 1 else None
            if process is None:
                continue
            gpu = next((r for r in records if isinstance(r, GpuFact) and r.index == int(process["gpu"])), None)
            if gpu is not None:
                mem = process["mem"]
                gpu.processes.append({"pid": int(process["pid"]), "type": process["type"], "name": process["name"],
                                      "memory_mib": None if mem == "N/A" else float(mem[:-3])})
            continue
        if len(cells) < 2:
            continue
        first = _FIRST.match(cells[0])
        bus = _BUS.search(cells[1])
        if first and bus:
            second_row_for = _first_row(where(name, i + 1), first, bus.group(1), cells)
            records.append(second_row_for)
            mig_row_for = None
            continue
        if second_row_for is not None and re.search(r"\d+\s*C\b|\bP\d+\b", cells[0]):
            _second_row(second_row_for, cells)
            second_row_for, mig_row_for = None, second_row_for
            continue
        if mig_row_for is not None and len(cells) > 2 and not cells[0] and cells[2] in ("Enabled", "Disabled"):
            mig_row_for.mig_mode = cells[2] == "Enabled"
        mig_row_for = None
    return records


def _first_row(src, first, bus, cells) -> GpuFact:
    name = first.group(2).strip()
    fact = GpuFact(src, index=int(first.group(1)), name=name, bus_id=bus_id(bus))
    persistence = first.group(3)
    if persistence in ("On", "Off"):
        fact.persistence_mode = persistence == "On"
    elif persistence in ("WDDM", "TCC"):  # Windows prints the driver model where Linux prints persistence
        fact.driver_model = persistence
    if len(cells) > 2 and re.fullmatch(r"\d+", cells[2]):
        fact.ecc_uncorrected_volatile = int(cells[2])
    return fact


def _second_row(fact: GpuFact, cells) -> None:
    """'N/A 28C P0 88W / 700W | 0MiB / 81559MiB | 0% Default'."""
    temp = re.search(r"(\d+)\s*C\b", cells[0])
    fact.temperature_c = float(temp.group(1)) if temp else None
    power = re.search(r"(\d+(?:\.\d+)?|N/A)\s*W?\s*/\s*(\d+(?:\.\d+)?|N/A)\s*W", cells[0])
    if power:
        fact.power_draw_w, fact.power_limit_w = to_float(power.group(1)), to_float(power.group(2))
    if len(cells) > 1:
        memory = re.search(r"(\d+)\s*MiB\s*/\s*(\d+)\s*MiB", cells[1])
        fact.memory_total_mib = float(memory.group(2)) if memory else None
        fact.memory_used_mib = float(memory.group(1)) if memory else None
    if len(cells) > 2:
        util = re.match(r"(\d+)\s*%\s*(.*)$", cells[2])
        if util:
            fact.utilization_pct = float(util.group(1))
            fact.compute_mode = util.group(2).strip() or None
