"""`nvidia-smi --query-gpu=... --format=csv`: one GpuFact per row, fields named by the header.

The header names the fields (`index, name, pcie.link.gen.current, utilization.gpu [%]`); with
`--format=csv,noheader` the names come from the `--query-gpu=` list of a pasted command line,
and without either the rows are not read (guessing columns would invent facts).
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import bus_id, clean_lines, idle_or_loaded, to_float, to_int
from diagnose.evidence import GpuFact, HostFact, where

KIND = "smi_csv"

_QUERY = re.compile(r"--query-gpu[= ]([\w.,]+)")
_FIELD = re.compile(r"^(?:[a-z_]+(?:\.[a-z_]+)+|index|name|uuid|pstate|serial|count|timestamp|persistence_mode|"
                    r"driver_version|vbios_version)(?:\s*\[[^\]]*\])?$")
_REASONS = ("gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "hw_thermal_slowdown",
            "hw_power_brake_slowdown", "sync_boost", "sw_thermal_slowdown", "display_clocks_setting")

_FIELDS = {
    "index": ("index", to_int), "name": ("name", str), "uuid": ("uuid", str), "pci.bus_id": ("bus_id", bus_id),
    "pcie.link.gen.current": ("pcie_gen_current", to_int), "pcie.link.gen.gpucurrent": ("pcie_gen_current", to_int),
    "pcie.link.gen.max": ("pcie_gen_max", to_int), "pcie.link.gen.gpumax": ("pcie_gen_max", to_int),
    "pcie.link.width.current": ("pcie_width_current", to_int), "pcie.link.width.max": ("pcie_width_max", to_int),
    "utilization.gpu": ("utilization_pct", to_float), "temperature.gpu": ("temperature_c", to_float),
    "power.draw": ("power_draw_w", to_float), "power.draw.instant": ("power_draw_w", to_float),
    "power.limit": ("power_limit_w", to_float), "enforced.power.limit": ("power_limit_w", to_float),
    "memory.total": ("memory_total_mib", to_float), "clocks.sm": ("sm_clock_mhz", to_float),
    "clocks.current.sm": ("sm_clock_mhz", to_float), "clocks.max.sm": ("sm_clock_max_mhz", to_float),
    "ecc.errors.uncorrected.volatile.total": ("ecc_uncorrected_volatile", to_int),
    "ecc.errors.corrected.volatile.total": ("ecc_corrected_volatile", to_int),
    "compute_mode": ("compute_mode", str), "virtualization_mode": ("virtualization_mode", str),
}
_BOOL_FIELDS = {
    "persistence_mode": "persistence_mode", "ecc.mode.current": "ecc_mode", "mig.mode.current": "mig_mode",
    "retired_pages.pending": "retired_pages_pending", "remapped_rows.pending": "remapped_rows_pending",
    "remapped_rows.failure": "remapped_rows_failure",
}


def detect(text: str) -> float:
    for line in clean_lines(text[:200_000]):
        if _header(line):
            return 0.9
    return 0.8 if _QUERY.search(text[:200_000]) and "--format=csv" in text[:200_000] else 0.0


def parse(text: str, name: str) -> list:
    records: list = []
    columns: list[str] | None = None
    for i, line in enumerate(clean_lines(text)):
        query = _QUERY.search(line)
        if query and "noheader" in line:
            columns = query.group(1).split(",")
            continue
        header = _header(line)
        if header:
            columns = header
            continue
        cells = [c.strip() for c in line.split(",")]
        if columns and len(cells) == len(columns) and line.strip():
            records.extend(_row(where(name, i + 1), columns, cells))
        elif line.strip():
            columns = None  # something else: the table has ended
    return records


def _header(line: str) -> list[str] | None:
    names = [c.strip() for c in line.split(",")]
    if len(names) < 2 or not all(_FIELD.match(n) for n in names):
        return None
    names = [re.sub(r"\s*\[.*\]$", "", n) for n in names]
    known = [n for n in names if n in _FIELDS or n in _BOOL_FIELDS or n.startswith(("pci.", "pcie.", "clocks_"))]
    return names if known and any("." in n for n in names) else None


def _row(src, columns, cells) -> list:
    fact, pstate, out = GpuFact(src), None, []
    for column, value in zip(columns, cells):
        if value.startswith("[") or value.upper() in ("N/A", "[N/A]", ""):
            continue
        column = column.replace("clocks_throttle_reasons.", "clocks_event_reasons.")
        if column in _FIELDS:
            attr, convert = _FIELDS[column]
            setattr(fact, attr, convert(value))
        elif column in _BOOL_FIELDS and value.lower() in ("enabled", "disabled", "yes", "no"):
            setattr(fact, _BOOL_FIELDS[column], value.lower() in ("enabled", "yes"))
        elif column == "pci.device_id":
            m = re.match(r"(?:0x)?([0-9A-Fa-f]{4})10DE$", value, re.I)
            fact.pci_device_id = f"0x{m.group(1).lower()}" if m else None
        elif column == "pstate":
            pstate = value
        elif column.startswith("clocks_event_reasons.") and value.lower() == "active":
            reason = column.split(".", 1)[1]
            if reason in _REASONS:
                fact.clock_event_reasons.append("idle" if reason == "gpu_idle" else reason)
        elif column == "driver_version":
            out.append(HostFact(src, "driver_version", value))
    if fact.pcie_gen_current is not None or fact.pcie_width_current is not None:
        fact.pcie_read_under_load = idle_or_loaded(fact.utilization_pct, pstate, fact.clock_event_reasons)
    return [fact] + out
