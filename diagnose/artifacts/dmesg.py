"""Kernel log (`dmesg`, `journalctl -k`, syslog): NVIDIA Xid errors, one XidEvent per line.

`NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.` names the GPU by bus id
and the error by number; what the number means (79 fallen off the bus, 48 double-bit ECC,
74 NVLink, ...) is for the rules, not the parser. NVSwitch errors (`SXid`, numbered in their
own scheme) and a bare "GPU has fallen off the bus" message (one line, or the three-line
"The NVIDIA GPU ... has fallen off the bus" of newer drivers) become Notes, not Xids.

PCIe Advanced Error Reporting (the kernel's drivers/pci/pcie/aer.c) becomes one `pcie_aer` Note per
report: "<driver> <BDF>: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" with the
error bits listed under it ("[ 0] RxErr", "[ 6] BadTLP", "[12] Timeout"; older kernels spell them
"Receiver Error", "Bad TLP", "Replay Timer Timeout"), and "pcieport <BDF>: AER: Corrected error
received: <BDF>" (newer: "Correctable error message received from <BDF>"). The Note keeps which driver
logged it and the bus ids; whose device that is (a GPU, a NIC, an NVMe drive) is for the rules.
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


# A PCI device as the kernel names it, domain optional: "0000:01:00.0", "01:00.0"
_BDF = r"(?:[0-9a-fA-F]{4,5}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
# "nvidia 0000:01:00.0: " / "pcieport 0000:00:01.1: ": the driver and the device that logged the line (optional: a
# line quoted without it still says what happened)
_DEVICE = (r"(?:(?<![\w-])(?P<driver>[A-Za-z][\w-]*)\s+(?P<bdf>" + _BDF + r")"
           r"\s*:\s*)?(?:AER:\s*)?")  # newer kernels put "AER:" before every line of a report
_BUS_ERROR = re.compile(_DEVICE + r"PCIe Bus Error:\s*se(?:r)?verity=(?P<severity>[^,]+),\s*type=(?P<layer>[^,]+)",
                        re.I)
_AER_RECEIVED = re.compile(_DEVICE + r"AER:\s*(?:Multiple\s+)?(?P<severity>Correct(?:ed|able)|Uncorrect(?:ed|able)\s*"
                           r"\((?:Non-)?Fatal\))\s+error(?:\s+message)?\s+received(?::|\s+from)\s*"
                           r"(?:id=(?P<id>[0-9a-fA-F]{4})\b|(?P<source>" + _BDF + r"))?",
                           re.I)
# a device's own line in the recovery that follows an uncorrected error: the kernel broadcasts it to every device
# below the port that reported ("nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)", "nvidia
# 0000:02:00.0: device has no AER-aware driver")
_AER_RECOVERY = re.compile(r"(?P<driver>[A-Za-z][\w-]*)\s+(?P<bdf>" + _BDF + r")"
                           r"\s*:\s*(?:AER:\s*(?:can't recover|(?:device )?recovery|.*\berror_detected\b)|"
                           r"device has no AER-aware driver)")
# an error bit under a report: "[ 0] RxErr   (First)", "[12] Replay Timer Timeout"
_ERROR_BIT = re.compile(r"^(?:.*?:\s+)?\[\s*(\d{1,2})\s*\]\s*([A-Za-z][\w -]*?)\s*(?:\(First\))?\s*$")


def detect(text: str) -> float:
    head = text[:2_000_000]
    found = _XID.search(head) or _SXID.search(head) or _OFF_BUS.search(head) or _OFF_BUS_SPLIT.search(head)
    found = found or _BUS_ERROR.search(head) or _AER_RECEIVED.search(head)
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
            continue
        aer = _aer(lines, i)
        if aer:
            records.append(Note(src, "pcie_aer", line.strip(), aer))
            continue
        m = _AER_RECOVERY.search(line)
        if m and m.group("driver").lower() != "pcieport":
            data = {"driver": m.group("driver").lower(), "bus_id": bus_id(m.group("bdf"))}
            records.append(Note(src, "pcie_aer_recovery", line.strip(), data))
    return records


def _aer(lines: list[str], i: int) -> dict | None:
    """One AER report at lines[i]: the driver and device that logged it, the device it names as the error's source
    (a root port's "received from"), the severity, the layer, and the error bits listed on the lines below it."""
    line = lines[i]
    m = _BUS_ERROR.search(line) or _AER_RECEIVED.search(line)
    if not m:
        return None
    groups = m.groupdict()
    errors = []
    if "layer" in groups:
        for below in lines[i + 1 : i + 8]:
            if _BUS_ERROR.search(below) or _AER_RECEIVED.search(below):
                break
            bit = _ERROR_BIT.match(below.strip())
            if bit:
                errors.append(bit.group(2).strip())
    return {"driver": (groups.get("driver") or "").lower() or None, "bus_id": bus_id(groups.get("bdf")),
            "source_bus_id": bus_id(groups.get("source")), "severity": groups["severity"].strip(),
            "layer": (groups.get("layer") or "").strip() or None, "errors": errors}
