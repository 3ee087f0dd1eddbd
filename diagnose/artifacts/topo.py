"""`nvidia-smi topo -m` and `nvidia-smi topo -p2p r|w|n|a|p` matrices.

topo -m yields one TopologyPath per device pair (NV#, PIX, PXB, PHB, NODE, SYS, SOC), with
NICs named as the NIC legend names them (old drivers print `mlx5_0` in the header, new ones
`NIC0` plus a legend; both come out as `mlx5_0`), and a GpuFact per GPU row with its CPU and
NUMA affinity. topo -p2p yields P2PStatus per GPU pair. Cells fused by lost tabs
(`NV12NV12`, `SYS0-63`, `NIC8NIC9`) are split by the fixed cell vocabulary.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import clean_lines
from diagnose.evidence import GpuFact, Note, P2PStatus, TopologyPath, where

KIND = "topo_matrix"

_AFFINITY = {"CPU_Affinity", "NUMA_Affinity", "GPU_NUMA_ID"}
_MULTIWORD = [
    (re.compile(r"CPU\s*Affinity", re.I), " CPU_Affinity "),
    (re.compile(r"NUMA\s*Affinity", re.I), " NUMA_Affinity "),
    (re.compile(r"GPU\s*NUMA\s*ID", re.I), " GPU_NUMA_ID "),
]
_HEADER_TOKEN = re.compile(
    r"CPU_Affinity|NUMA_Affinity|GPU_NUMA_ID|GPU\d+(?:-\d+)?|NIC\d+"
    r"|mlx\d+_(?:bond_)?\d+|[A-Za-z][A-Za-z0-9_.]*\d(?![A-Za-z0-9_.]*\d)|(?P<bad>\S+)"
)
_LABEL = re.compile(r"\s*(GPU\d+(?:-\d+)?|NIC\d+|mlx\d+_(?:bond_)?\d+|[A-Za-z][A-Za-z0-9_.]*\d)"
                    r"(?=\s|X|NV|PIX|PXB|PHB|NODE|SYS|SOC|OK|CNS|GNS|TNS|DR|NS)")
_PATH_CELL = re.compile(r"\s*(NV\d{1,2}|PIX|PXB|PHB|NODE|SYS|SOC|PSB|X)")
_P2P_CELL = re.compile(r"\s*(OK|CNS|GNS|TNS|DNS|DR|NS|U|X)(?![A-Za-z])")
_NIC_LEGEND = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")
_P2P_COMMAND = re.compile(r"topo\s+(?:-p2p|--p2p)\s*([rwnap])\b")
_P2P_CAPABILITY = {"r": "read", "w": "write", "n": "nvlink", "a": "atomics", "p": "prop"}
_GROUP = re.compile(r"^GPU(\d+)-(\d+)$")


def detect(text: str) -> float:
    """High when a GPU header is followed by a row of topology or P2P cells."""
    lines = clean_lines(text[:200_000])
    best = 0.0
    for i, line in enumerate(lines):
        if not _header(line):
            continue
        best = 0.3  # a header alone may be prose that names GPUs
        for row in lines[i + 1 : i + 4]:
            label, cells, _, _ = _row(row)
            if label and cells and "X" in cells:
                return 0.95
    return best


def parse(text: str, name: str) -> list:
    lines = clean_lines(text)
    legend = _nic_legend(lines)
    records: list = []
    if legend:
        first = min(legend.values(), key=lambda v: v[1])[1]
        mapping = {nic: dev for nic, (dev, _) in legend.items()}
        records.append(
            Note(where(name, first), "nic_legend", ", ".join(f"{k}: {v}" for k, v in mapping.items()), mapping)
        )
    capability = "unknown"
    i = 0
    while i < len(lines):
        command = _P2P_COMMAND.search(lines[i])
        if command:
            capability = _P2P_CAPABILITY[command.group(1)]
        header = _header(lines[i])
        if not header:
            i += 1
            continue
        i, section = _section(lines, i, header, name, {k: v[0] for k, v in legend.items()}, capability)
        records.extend(section)
    return records


def _header(line: str) -> list[str] | None:
    """The column names of a topo header line, or None if the line is not one."""
    if "GPU" not in line:
        return None
    for pattern, repl in _MULTIWORD:
        line = pattern.sub(repl, line)
    tokens = []
    for m in _HEADER_TOKEN.finditer(line):
        if m.group("bad"):
            return None
        tokens.append(m.group())
    if not any(t.startswith("GPU") and t != "GPU_NUMA_ID" for t in tokens):
        return None
    return tokens


def _row(line: str) -> tuple[str | None, list[str], str, bool]:
    """(label, cells, rest, is_p2p) of a matrix row; cells from one vocabulary (topo or P2P)."""
    m = _LABEL.match(line)
    if not m:
        return None, [], "", False
    for vocabulary in (_PATH_CELL, _P2P_CELL):
        cells, pos = [], m.end()
        while True:
            cell = vocabulary.match(line, pos)
            if not cell:
                break
            cells.append(cell.group(1))
            pos = cell.end()
        if len(cells) > 1 or (cells and cells != ["X"]):
            return m.group(1), cells, line[pos:], vocabulary is _P2P_CELL
    return None, [], "", False


def _section(lines, start, header, name, legend, capability):
    """Parse the rows under one header; returns (next line index, records)."""
    devices = [legend.get(t, t) for t in header if t not in _AFFINITY]
    affinity_cols = [t for t in header if t in _AFFINITY]
    records, seen = [], set()
    i = start + 1
    while i < len(lines):
        line = lines[i]
        label, cells, rest, is_p2p = _row(line)
        if not label:
            if line.strip() == "" and i == start + 1:
                i += 1
                continue
            break
        src = where(name, i + 1)
        label = legend.get(label, label)
        for column, cell in zip(devices, cells):
            if cell == "X":
                continue
            for a in _expand(label):
                for b in _expand(column):
                    key = frozenset((a, b))
                    if a == b or key in seen:
                        continue
                    seen.add(key)
                    records.append(_pair_record(src, a, b, cell, is_p2p, capability))
        if not is_p2p and re.fullmatch(r"GPU\d+", label):
            records.append(_gpu_affinity(src, int(label[3:]), affinity_cols, rest))
        i += 1
    return i, [r for r in records if r is not None]


def _pair_record(src, a, b, cell, is_p2p, capability):
    if is_p2p:
        ga, gb = re.fullmatch(r"GPU(\d+)", a), re.fullmatch(r"GPU(\d+)", b)
        if not (ga and gb):
            return None
        return P2PStatus(src, int(ga.group(1)), int(gb.group(1)), capability, cell, cell == "OK")
    if cell.startswith("NV"):
        m = re.fullmatch(r"NV(\d+)", cell)
        if not m:
            return None  # a mangled cell ("NVNV12"): no path rather than a wrong one
        nvlinks = int(m.group(1))
    else:
        nvlinks = 0
    if not a.startswith("GPU") and b.startswith("GPU"):
        a, b = b, a  # GPU first, whichever row the pair was read from
    return TopologyPath(src, a, b, cell, nvlinks)


def _expand(label: str) -> list[str]:
    """'GPU0-3' (a hand-grouped header) -> GPU0..GPU3; anything else as is."""
    m = _GROUP.match(label)
    if not m or int(m.group(2)) - int(m.group(1)) > 64:
        return [label]
    return [f"GPU{n}" for n in range(int(m.group(1)), int(m.group(2)) + 1)]


def _gpu_affinity(src, index, columns, rest) -> GpuFact:
    fact = GpuFact(src, index=index)
    for column, value in zip(columns, rest.split()):
        if value.endswith("...") or value.endswith(","):
            break  # cut off: the list is incomplete
        if column == "CPU_Affinity" and re.fullmatch(r"\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*", value):
            fact.cpu_affinity = value
        elif column == "NUMA_Affinity" and value.isdigit():
            fact.numa_node = int(value)
    return fact


def _nic_legend(lines) -> dict[str, tuple[str, int]]:
    """NIC0 -> (mlx5_0, line number) from the 'NIC Legend:' block."""
    legend: dict[str, tuple[str, int]] = {}
    in_legend = False
    for i, line in enumerate(lines):
        if re.match(r"\s*NIC Legend\s*:", line, re.I):
            in_legend = True
            continue
        if in_legend:
            m = _NIC_LEGEND.match(line)
            if m:
                legend.setdefault(m.group(1), (m.group(2), i + 1))
            elif line.strip():
                in_legend = False
    return legend
