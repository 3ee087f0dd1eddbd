"""NCCL's topology dump (NCCL_TOPO_DUMP_FILE): the PCI tree, NVLinks and NICs as NCCL saw them.

`<system><cpu numaid=..><pci busid=.. link_width=..><gpu dev=.. rank=.. gdr=..><nvlink
target=.. count=../></gpu></pci>...<nic><net name=.. speed=.. gdr=../></nic></cpu></system>`.
Read with a tag scanner rather than an XML parser, because pasted dumps are often cut off.

Yields GpuFact (index, bus id, PCI device id, NUMA node), TopologyPath "NV#" for each
`<nvlink>` (to the peer GPU, or to "NVSwitch"), and one NcclEvent(kind="topology") that
summarises what a rule needs: GPU count, NVLinks seen, PCI link widths (0 = not reported, as
in emulated PCI of a virtual machine), NUMA ids (-1 = unknown), `flat` (every GPU directly
under a CPU, no PCIe switch or bridge) and NICs with their GDR flag.
"""

from __future__ import annotations

import re

from diagnose.artifacts.nccl_tests import bus_id as normal_bus_id
from diagnose.evidence import GpuFact, NcclEvent, TopologyPath, where

KIND = "nccl_topo"

TAG = re.compile(r"<(?P<close>/)?(?P<tag>\w+)(?P<attrs>[^<>]*?)(?P<selfclose>/)?>")
ATTR = re.compile(r"(\w+)=\"([^\"]*)\"")
NVSWITCH_CLASS = "0x068000"


def detect(text: str) -> float:
    head = text[:200_000]
    if re.search(r"<system\s+version=", head) and re.search(r"<(?:gpu\s+dev=|pci\s+busid=)", head):
        return 0.95
    return 0.6 if re.search(r"<gpu\s+dev=\"\d+\"[^>]*\brank=", head) else 0.0


def parse(text: str, name: str) -> list:
    out: list = []
    stack: list[tuple[str, dict]] = []
    gpus: dict[str, int] = {}  # bus id -> dev
    nvlinks: list[tuple[int, str, int, str, int]] = []  # (dev, target, count, tclass, line)
    link_widths: list[int] = []
    numa_ids: list[int] = []
    gpu_parents: list[str] = []  # the tag above each GPU's own <pci>: "cpu" when no switch or bridge
    nets: list[dict] = []
    first_line = None
    line, counted_to = 1, 0
    for m in TAG.finditer(text):
        line += text.count("\n", counted_to, m.start())
        counted_to = m.start()
        first_line = first_line or line
        tag, attrs = m.group("tag"), dict(ATTR.findall(m.group("attrs")))
        if m.group("close"):
            while stack and stack.pop()[0] != tag:
                pass
            continue
        if tag == "cpu" and _int(attrs.get("numaid")) is not None:
            numa_ids.append(_int(attrs["numaid"]))
        if tag == "pci" and attrs.get("link_width") is not None and _parent_is_gpu_pci(attrs):
            link_widths.append(_int(attrs["link_width"]) or 0)
        if tag == "gpu":
            pci = next((a for t, a in reversed(stack) if t == "pci"), {})
            cpu = next((a for t, a in reversed(stack) if t == "cpu"), {})
            bus = normal_bus_id(pci.get("busid", "")) if pci.get("busid") else None
            dev = _int(attrs.get("dev"))
            if bus:
                gpus[bus] = dev
            pcis = [i for i, (t, _) in enumerate(stack) if t == "pci"]
            gpu_parents.append(stack[pcis[-1] - 1][0] if pcis and pcis[-1] > 0 else "")
            numa = _int(cpu.get("numaid"))
            out.append(GpuFact(where(name, line), index=dev, bus_id=bus, pci_device_id=pci.get("device"),
                               numa_node=numa if numa is not None and numa >= 0 else None))
        if tag == "nvlink":
            gpu = next((a for t, a in reversed(stack) if t == "gpu"), {})
            nvlinks.append((_int(gpu.get("dev")), attrs.get("target", ""), _int(attrs.get("count")) or 1,
                            attrs.get("tclass", ""), line))
        if tag == "net":
            nets.append({"name": attrs.get("name"), "speed_mbps": _int(attrs.get("speed")),
                         "gdr": attrs.get("gdr") == "1"})
        if not m.group("selfclose"):
            stack.append((tag, attrs))
    for dev, target, count, tclass, line in nvlinks:
        peer_bus = normal_bus_id(target) if target else None
        peer = f"GPU{gpus[peer_bus]}" if peer_bus in gpus else ("NVSwitch" if tclass == NVSWITCH_CLASS else target)
        out.append(TopologyPath(where(name, line), f"GPU{dev}", peer, f"NV{count}", count))
    if out or nets:
        out.append(NcclEvent(where(name, first_line), "topology", "NCCL topology dump", {
            "gpus": len(gpus) or sum(isinstance(r, GpuFact) for r in out),
            "nvlinks": sum(c for _, _, c, _, _ in nvlinks),
            "gpu_link_widths": link_widths,
            "numa_ids": numa_ids,
            "numaid": numa_ids[0] if numa_ids else None,
            # Every GPU hangs straight off a CPU, no PCIe switch or bridge: what a VM's emulated PCI looks like.
            "flat": bool(gpu_parents) and all(p == "cpu" for p in gpu_parents),
            "nets": nets,
        }))
    return out


def _parent_is_gpu_pci(attrs: dict) -> bool:
    """A <pci> whose class is a 3D/VGA controller: the GPU's own link."""
    return attrs.get("class", "").startswith("0x03")


def _int(value) -> int | None:
    try:
        return int(str(value), 0)
    except (TypeError, ValueError):
        return None
