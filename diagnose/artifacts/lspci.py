"""`lspci -vvv`: each device's PCIe link (LnkCap vs LnkSta) and its ACS control, one PcieLinkFact.

A device starts at its `17:00.0 3D controller: NVIDIA ...` line, or at a pasted
`lspci -vvv -s 17:00.0` command line. People often paste only a `grep LnkSta` or
`grep ACSCtl`; lines without a device header still count, grouped until a field repeats, with
bus_id "unknown". Where ACSCtl is shown, a HostFact `acs_enabled_bridges` lists
the devices with ACS redirect on, as the node probe reports it. LnkSta below LnkCap is what a GPU at idle shows as well
(it drops to 2.5GT/s to save power): lspci does not say whether the GPU was busy, and this
parser does not guess.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import bus_id, clean_lines
from diagnose.evidence import HostFact, PcieLinkFact, where

KIND = "lspci"

# `lspci -vvv -s 0000:00:03.2 | grep Lnk` pasted with its command line: the lines after it are that device's.
_SELECTED = re.compile(r"\blspci\b.*?\s-[a-zA-Z]*s\s*"
                       r"((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)(?![\w:.])")
_DEVICE = re.compile(r"^\s*((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([^:]+?):\s*(.*)$")
_LINK = re.compile(r"^\s*(LnkCap|LnkSta):\s*(.*)$")
_SPEED = re.compile(r"Speed\s+(\d+(?:\.\d+)?)\s*GT/s", re.I)
_WIDTH = re.compile(r"Width\s+x(\d+)", re.I)
_ACS = re.compile(r"^\s*ACSCtl:\s*(.*)$")
_REDIRECT_FLAGS = ("SrcValid", "ReqRedir", "CmpltRedir")
_BRIDGE = re.compile(r"bridge|Root Port|Downstream Port|Upstream Port", re.I)


def detect(text: str) -> float:
    head = text[:400_000]
    hits = len(re.findall(r"\b(?:LnkCap|LnkSta|ACSCtl):", head))
    if not hits:
        return 0.0
    return 0.95 if re.search(r"\bLnkSta:\s*Speed|\bACSCtl:\s*\w+[+-]", head) else 0.5


def parse(text: str, name: str) -> list:
    records: list = []
    current: dict | None = None
    for i, line in enumerate(clean_lines(text)):
        if not line.strip() and current is not None and current["bus"] is not None:
            _finish(current, records)  # lspci ends each device with a blank line
            current = None
            continue
        selected = _SELECTED.search(line)
        if selected:
            _finish(current, records)
            current = {"bus": bus_id(selected.group(1)), "device": None, "bridge": False, "lines": {}, "values": {}}
            continue
        device = _DEVICE.match(line)
        if device and not _LINK.search(line) and not _ACS.search(line):
            _finish(current, records)
            current = {"bus": bus_id(device.group(1)), "device": f"{device.group(2)}: {device.group(3)}".strip(),
                       "bridge": bool(_BRIDGE.search(device.group(2))), "lines": {}, "values": {}}
            continue
        if re.search(r"Capabilities:.*Express.*(Root Port|Downstream Port|Upstream Port)", line) and current:
            current["bridge"] = True
        link = _LINK.search(line)
        acs = _ACS.search(line)
        field = link.group(1) if link else ("ACSCtl" if acs else None)
        if not field:
            continue
        if current is None or field in current["values"]:  # one LnkCap/LnkSta/ACSCtl per device
            _finish(current, records)
            current = {"bus": None, "device": None, "bridge": False, "lines": {}, "values": {}}
        current["values"][field] = link.group(2) if link else acs.group(1)
        current["lines"][field] = where(name, i + 1)
    _finish(current, records)
    acs = [r for r in records if r.acs_redirect_enabled is not None]
    if acs:  # the same host fact the node probe reports, so the same rules read it
        records.append(HostFact(acs[0].source, "acs_enabled_bridges",
                                [r.bus_id for r in acs if r.acs_redirect_enabled]))
    return records


def _finish(current: dict | None, records: list) -> None:
    if not current or not current["values"]:
        return
    values, lines = current["values"], current["lines"]
    src = lines.get("LnkSta") or lines.get("ACSCtl") or lines.get("LnkCap")
    fact = PcieLinkFact(src, current["bus"] or "unknown", device=current["device"], is_bridge=current["bridge"])
    if "LnkCap" in values:
        fact.cap_speed_gts, fact.cap_width = _speed_width(values["LnkCap"])
    if "LnkSta" in values:
        fact.sta_speed_gts, fact.sta_width = _speed_width(values["LnkSta"])
    if "ACSCtl" in values:
        flags = dict(re.findall(r"(\w+)([+-])", values["ACSCtl"]))
        shown = [flags[f] for f in _REDIRECT_FLAGS if f in flags]
        fact.acs_redirect_enabled = ("+" in shown) if shown else None
    records.append(fact)


def _speed_width(value: str) -> tuple[float | None, int | None]:
    speed, width = _SPEED.search(value), _WIDTH.search(value)
    return (float(speed.group(1)) if speed else None, int(width.group(1)) if width else None)
