"""InfiniBand / RoCE port status: `ibstatus`, `ibstat` and `ibv_devinfo` output.

Tells a rule whether the host has an RDMA device whose port is up, at what rate and on which
link layer (InfiniBand, or Ethernet = RoCE), so "NCCL fell back to sockets" can be told apart
from "there is no RDMA network". Yields Note(kind="ib_port") per port, and HostFact
`ib_devices` (names) and `ib_active_ports` (how many ports are ACTIVE).
"""

from __future__ import annotations

import re

from diagnose.artifacts.text import lines
from diagnose.evidence import HostFact, Note, where

KIND = "ib_status"

DEVICE = re.compile(r"^\s*(?:Infiniband device '(?P<a>[\w.\-]+)' port (?P<port>\d+) status:|"
                    r"CA '(?P<b>[\w.\-]+)'|hca_id:\s*(?P<c>[\w.\-]+))")
PORT = re.compile(r"^\s*(?:Port (?P<a>\d+):|port:\s*(?P<b>\d+))\s*$")
FIELD = re.compile(r"^\s*(?P<key>state|phys(?:ical)? state|rate|active_speed|link[_ ]layer)\s*:\s*(?P<value>.+?)\s*$",
                   re.I)


def detect(text: str) -> float:
    head = text[:200_000]
    if DEVICE.search(head) is None and not re.search(r"^[^\S\n]*hca_id:", head, re.M):
        return 0.0
    return 0.9 if re.search(r"(?im)^\s*(?:state|link[_ ]layer)\s*:", head) else 0.5


def parse(text: str, name: str) -> list:
    ports: list[dict] = []
    device = None
    current: dict | None = None
    for n, line in lines(text):
        if (m := DEVICE.match(line)) is not None:
            device = m.group("a") or m.group("b") or m.group("c")
            current = None
            if m.group("port"):
                current = {"device": device, "port": int(m.group("port")), "line": n}
                ports.append(current)
            continue
        if (m := PORT.match(line)) is not None and device:
            current = {"device": device, "port": int(m.group("a") or m.group("b")), "line": n}
            ports.append(current)
            continue
        if current is not None and (m := FIELD.match(line)) is not None:
            key = m.group("key").lower().replace(" ", "_").replace("physical", "phys")
            current[key] = m.group("value")
    out: list = []
    for p in ports:
        state = _state(p.get("state", ""))
        rate = re.search(r"(\d+(?:\.\d+)?)", p.get("rate", ""))
        data = {"device": p["device"], "port": p["port"], "state": state, "phys_state": _state(p.get("phys_state", "")),
                "rate_gbps": float(rate.group(1)) if rate else None, "link_layer": p.get("link_layer")}
        text_ = (f"{p['device']} port {p['port']}: {state or '?'}, {p.get('rate', '?')}, "
                 f"link layer {p.get('link_layer', '?')}")
        out.append(Note(where(name, p["line"]), "ib_port", text_, data))
    if ports:
        src = where(name, ports[0]["line"])
        out.append(HostFact(src, "ib_devices", sorted({p["device"] for p in ports})))
        out.append(HostFact(src, "ib_active_ports", sum(_state(p.get("state", "")) == "ACTIVE" for p in ports)))
    return out


def _state(value: str) -> str | None:
    """'4: ACTIVE', 'Active', 'PORT_ACTIVE (4)', '5: LinkUp' -> 'ACTIVE', 'LINKUP'."""
    m = re.search(r"(?:PORT_)?([A-Za-z]+)", value.split(":")[-1])
    return m.group(1).upper() if m else None
