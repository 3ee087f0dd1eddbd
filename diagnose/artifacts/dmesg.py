"""Kernel log (`dmesg`, `journalctl -k`, syslog): NVIDIA Xid errors, one XidEvent per line.

`NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.` names the GPU by bus id
and the error by number; what the number means (79 fallen off the bus, 48 double-bit ECC,
74 NVLink, ...) is for the rules, not the parser.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import bus_id, clean_lines
from diagnose.evidence import XidEvent, where

KIND = "dmesg_xid"

_XID = re.compile(r"NVRM:\s*Xid\s*\((?:PCI:)?([0-9a-fA-F:.]+)\)\s*:?\s*(\d+)\s*,?\s*(.*)$")


def detect(text: str) -> float:
    return 0.95 if _XID.search(text[:2_000_000]) else 0.0


def parse(text: str, name: str) -> list:
    records = []
    for i, line in enumerate(clean_lines(text)):
        m = _XID.search(line)
        if m:
            records.append(XidEvent(where(name, i + 1), int(m.group(2)), bus_id(m.group(1)), m.group(3).strip()))
    return records
