"""Small helpers the nvidia-smi / PCIe / dmesg parsers share: bus ids, numbers, catalog names.

Pasting damage (colours, rank prefixes, CRLF) is undone by `diagnose.artifacts.text`.
"""

from __future__ import annotations

import re

from diagnose.artifacts.text import lines

_BUS_ID = re.compile(
    r"^(?:(?P<domain>[0-9a-fA-F]{1,8}):)?(?P<bus>[0-9a-fA-F]{1,2}):(?P<dev>[0-9a-fA-F]{1,2})(?:\.(?P<fn>[0-7]))?$"
)


def clean_lines(text: str) -> list[str]:
    """Cleaned lines of `text`; list index + 1 is the 1-based line number."""
    return [line for _, line in lines(text if isinstance(text, str) else "")]


def bus_id(raw: str | None) -> str | None:
    """'00000000:18:00.0', '18:00.0', '0000:3B:00' -> '0000:18:00.0' style, or None."""
    if not raw:
        return None
    m = _BUS_ID.match(raw.strip().removeprefix("PCI:"))
    if not m:
        return None
    domain = int(m["domain"] or "0", 16) & 0xFFFF
    return f"{domain:04x}:{int(m['bus'], 16):02x}:{int(m['dev'], 16):02x}.{m['fn'] or '0'}"


def to_int(raw: str | None) -> int | None:
    """The first integer in `raw` ('16x' -> 16, '0 %' -> 0), or None ('N/A')."""
    m = re.search(r"-?\d+", raw or "")
    return int(m.group()) if m else None


def to_float(raw: str | None) -> float | None:
    """The first number in `raw` ('70.48 W' -> 70.48), or None ('N/A', '[N/A]')."""
    m = re.search(r"-?\d+(?:\.\d+)?", raw or "")
    return float(m.group()) if m else None


def idle_or_loaded(utilization_pct: float | None, pstate: str | None, reasons: list[str]) -> bool | None:
    """Whether PCIe values in this output were read under load: False if idle, True if busy.

    An idle NVIDIA GPU drops its link to Gen1 to save power, so a low current generation
    only means something when the same output shows the GPU working.
    """
    if "idle" in reasons or (pstate or "").upper() in ("P8", "P12") or utilization_pct == 0:
        return False
    if utilization_pct is not None and utilization_pct > 0:
        return True
    return None
