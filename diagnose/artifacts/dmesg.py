"""Kernel log (`dmesg`, `journalctl -k`, syslog): NVIDIA Xid errors, one XidEvent per line.

`NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.` names the GPU by bus id
and the error by number; what the number means (79 fallen off the bus, 48 double-bit ECC,
74 NVLink, ...) is for the rules, not the parser. NVSwitch errors (`SXid`, numbered in their
own scheme) and a bare "GPU has fallen off the bus" message (one line, or the three-line
"The NVIDIA GPU ... has fallen off the bus" of newer drivers) become Notes, not Xids.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import bus_id, clean_lines
from diagnose.evidence import Note, XidEvent, where

KIND = "dmesg_xid"

# re.M: detect() searches the whole text, where `$` must end a line, not the text.
_XID = re.compile(r"NVRM:\s*Xid\s*\((?:PCI:)?([0-9a-fA-F:.]+)\)\s*:?\s*(\d+)\s*,?\s*(.*)$", re.M)
_SXID = re.compile(r"(nvidia-nvswitch\d*):\s*SXid\s*\((?:PCI:)?([0-9a-fA-F:.]+)\)\s*:?\s*(\d+)\s*,?\s*(.*)$", re.M)
_OFF_BUS = re.compile(r"NVRM:\s*GPU\s+(?:at\s+)?(?:PCI:)?([0-9a-fA-F:.]+):\s*GPU has fallen off the bus", re.I)
# Newer drivers print it over three lines and without an Xid:
#   NVRM: The NVIDIA GPU 0000:b3:00.0 / NVRM: (PCI ID: 10de:26b5) installed in this system has /
#   NVRM: fallen off the bus and is not responding to commands.
_OFF_BUS_FIRST = re.compile(r"NVRM:\s*The NVIDIA GPU\s+(?:PCI:)?([0-9a-fA-F:.]+)\s*$", re.M)
_OFF_BUS_SPLIT = re.compile(_OFF_BUS_FIRST.pattern + r"(?:\n[^\n]*){0,2}?fallen off the bus", re.M | re.I)


def detect(text: str) -> float:
    head = text[:2_000_000]
    found = _XID.search(head) or _SXID.search(head) or _OFF_BUS.search(head) or _OFF_BUS_SPLIT.search(head)
    return 0.95 if found else 0.0


def parse(text: str, name: str) -> list:
    records: list = []
    lines = clean_lines(text)
    for i, line in enumerate(lines):
        src = where(name, i + 1)
        m = _XID.search(line)
        if m:
            records.append(XidEvent(src, int(m.group(2)), bus_id(m.group(1)), m.group(3).strip()))
            continue
        m = _SXID.search(line)
        if m:
            data = {"switch": m.group(1), "bus_id": bus_id(m.group(2)), "sxid": int(m.group(3))}
            records.append(Note(src, "nvswitch_sxid", line.strip(), data))
            continue
        m = _OFF_BUS.search(line)
        if m:
            records.append(Note(src, "gpu_fallen_off_bus", line.strip(), {"bus_id": bus_id(m.group(1))}))
            continue
        m = _OFF_BUS_FIRST.search(line)
        if m and _OFF_BUS_SPLIT.search("\n".join(lines[i : i + 3])):
            quoted = " ".join(part.strip() for part in lines[i : i + 3])
            records.append(Note(src, "gpu_fallen_off_bus", quoted, {"bus_id": bus_id(m.group(1))}))
    return records
