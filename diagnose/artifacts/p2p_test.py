"""CUDA sample `p2pBandwidthLatencyTest`: P2P access per pair and the bandwidth/latency matrices.

Each matrix is titled, e.g. `Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)` or
`P2P=Disabled Latency Matrix (us)`, followed by `D\\D 0 1 ...` (or `GPU 0 1 ...`) and one row
per source device. Off-diagonal cells become PairBandwidth records (the diagonal is a GPU's
copy to itself, not a link); the CPU-side latency block is skipped. A cut-off cell ends its
row. Also read: `Device: 0, NVIDIA H100 ..., pciBusID: 18, ...` (GpuFact),
`Device=0 CAN Access Peer Device=1` and the `P2P Connectivity Matrix` (P2PStatus), and
health-check lines `P2P test on GPU 1 to GPU 0 failed. Bandwidth 256.63 ...` (PairBandwidth).
The CUDA sample `simpleP2P` prints one access line per ordered pair (`> Peer access from NVIDIA L4 (GPU0) -> NVIDIA L4
(GPU1) : Yes`, P2PStatus) and, once peer access is enabled, the rate of its ping-pong copy between the first two
(`cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 19.87GB/s`, one direction at a time: PairBandwidth, uni, P2P on;
https://github.com/NVIDIA/cuda-samples/blob/master/Samples/0_Introduction/simpleP2P/simpleP2P.cu), then copies a buffer
through both GPUs, reads it back and ends `Test passed` or, after `Verification error @ element ...` lines, `Test
failed!` (P2PStatus "transfer" for the pair it enabled: `Enabling peer access between GPU0 and GPU1...`).
nvbandwidth's GPU-to-GPU matrices (`memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)`, numbered
columns, `N/A` on the diagonal) are read the same way.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import clean_lines
from diagnose.artifacts.text import number
from diagnose.evidence import GpuFact, P2PStatus, PairBandwidth, where

KIND = "p2p_test"

_TITLE = re.compile(
    r"(?:(Unidirectional|Bidirectional)\s+)?P2P\s*=\s*(Enabled|Disabled)\s+(Bandwidth|Latency)\b.*?Matrix\s*\((GB/s|us)\)",
    re.I,
)
# nvbandwidth's copy matrices: "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)", columns numbered only.
_NVB_TITLE = re.compile(r"memcpy\s+(?:CE|SM)\s+GPU\(row\)\s*(->|<-|<->)\s*GPU\(column\)\s+"
                        r"(bandwidth|latency)\s*\((GB/s|us)\)", re.I)
_NUMBERED = re.compile(r"^\s*((?:\d+\s+)*\d+)\s*$")
_CONNECTIVITY = re.compile(r"P2P Connectivity Matrix", re.I)
_COLUMNS = re.compile(r"^\s*(D\\D|GPU|CPU)((?:\s+\d+)+)\s*$")
_ROW = re.compile(r"^\s*(\d+)\s+(.*)$")
_DEVICE = re.compile(r"Device:\s*(\d+),\s*(.+?),\s*pciBusID:\s*([0-9a-fA-F]+),\s*pciDeviceID:\s*([0-9a-fA-F]+),"
                     r"\s*pciDomainID:\s*([0-9a-fA-F]+)")
_ACCESS = re.compile(r"Device=(\d+)\s+(CAN|CANNOT)\s+Access Peer Device=(\d+)", re.I)
_SIMPLE_ACCESS = re.compile(r"Peer access from\s+(.*?)\s*\(GPU(\d+)\)\s*->\s*(.*?)\s*\(GPU(\d+)\)\s*:\s*(Yes|No)\b",
                            re.I)
_SIMPLE_COPY = re.compile(r"cudaMemcpyPeer\s*/\s*cudaMemcpy between GPU(\d+) and GPU(\d+)\s*:\s*(\d+(?:\.\d+)?)\s*GB/s",
                          re.I)
_SIMPLE_ENABLE = re.compile(r"Enabling peer access between GPU(\d+) and GPU(\d+)", re.I)
_SIMPLE_RESULT = re.compile(r"^\W*(Test passed|Test failed!?)\s*$", re.I)
# simpleP2P's kernel step names the pair it copies through ("Run kernel on GPU1, taking source data from GPU0 and
# writing to GPU1..."), and the check of the buffer read back prints one line per wrong element ("Verification error @
# element 0: val = nan, ref = 0.000000") before `Test failed!` (simpleP2P.cu): a paste cut before its last line
# still shows the copy failing.
_SIMPLE_KERNEL = re.compile(r"Run kernel on GPU(\d+), taking source data from GPU(\d+)", re.I)
_SIMPLE_VERIFY = re.compile(r"^\W*Verification error @ element \d+", re.I)
_NHC = re.compile(r"P2P test on GPU\s+(\d+)\s+to GPU\s+(\d+)\b.*?Bandwidth\s+(\d+(?:\.\d+)?)", re.I)


def detect(text: str) -> float:
    head = text[:400_000]
    if _TITLE.search(head) or _NVB_TITLE.search(head):
        return 0.95
    if "P2P (Peer-to-Peer) GPU Bandwidth Latency Test" in head:
        return 0.9
    if (_ACCESS.search(head) or _NHC.search(head) or _SIMPLE_ACCESS.search(head) or _SIMPLE_COPY.search(head)
            or _SIMPLE_KERNEL.search(head)):
        return 0.7
    return 0.2 if "p2pBandwidthLatencyTest" in head else 0.0  # named in prose, no output


def parse(text: str, name: str) -> list:
    records: list = []
    access: dict[tuple[int, int], P2PStatus] = {}
    matrix = None  # (kind, direction, enabled, unit) while reading a titled matrix
    columns: list[int] = []
    enabled_pair = None  # simpleP2P's pair, once it enabled peer access between them
    for i, line in enumerate(clean_lines(text)):
        src = where(name, i + 1)
        enabling = _SIMPLE_ENABLE.search(line)
        if enabling:
            enabled_pair = (int(enabling.group(1)), int(enabling.group(2)))
        kernel = _SIMPLE_KERNEL.search(line)
        if kernel and not enabled_pair:  # the enabling line cut off: the kernel step names the pair
            enabled_pair = (int(kernel.group(2)), int(kernel.group(1)))
        result = _SIMPLE_RESULT.match(line) or _SIMPLE_VERIFY.match(line) if enabled_pair else None
        if result:  # simpleP2P verified (or not) the buffer it copied peer-to-peer
            said = result.group(0).strip() if result.re is _SIMPLE_VERIFY else result.group(1)
            records.append(P2PStatus(src, *enabled_pair, "transfer", said, said.lower() == "test passed"))
            enabled_pair = None  # one record per run: the later error lines and `Test failed!` say the same
            continue
        if "GPU Bandwidth Latency Test" in line:
            access = {}  # a second run (another node) reports its own pairs
        title = _TITLE.search(line)
        if title:
            direction = "bi" if (title.group(1) or "").lower().startswith("bi") else "uni"
            matrix, columns = ("value", direction, title.group(2).lower() == "enabled", title.group(4)), []
            continue
        nvb = _NVB_TITLE.search(line)
        if nvb:
            matrix, columns = ("value", "bi" if nvb.group(1) == "<->" else "uni", None, nvb.group(3)), []
            continue
        if _CONNECTIVITY.search(line):
            matrix, columns = ("access", None, None, None), []
            continue
        header = _COLUMNS.match(line)
        if header and matrix:
            columns = [int(c) for c in header.group(2).split()] if header.group(1) != "CPU" else []
            continue
        numbered = _NUMBERED.match(line)
        if numbered and matrix and not columns:  # nvbandwidth numbers its columns without a label
            columns = [int(c) for c in numbered.group(1).split()]
            continue
        row = _ROW.match(line)
        if row and matrix and columns:
            _row(records, access, matrix, columns, int(row.group(1)), row.group(2), src)
            continue
        if line.strip() and not row:
            matrix, columns = None, []
        _other_line(records, access, line, src)
    return records


def _row(records, access, matrix, columns, a, cells, src) -> None:
    kind, direction, enabled, unit = matrix
    for b, cell in zip(columns, cells.split()):
        if cell.upper() == "N/A":
            continue  # nvbandwidth's diagonal
        value = number(cell)
        if value is None:
            return  # cut off ('41...') or garbled: the rest of the row is not there
        if a == b:
            continue
        if kind == "access":
            _status(records, access, src, a, b, value == 1, cell)
        else:
            records.append(PairBandwidth(src, a, b, value, "GB/s" if unit.lower() == "gb/s" else "us",
                                         direction, enabled))


def _other_line(records, access, line, src) -> None:
    device = _DEVICE.search(line)
    if device:
        domain, bus, dev = (int(device.group(k), 16) for k in (5, 3, 4))
        model = device.group(2).strip()
        records.append(GpuFact(src, index=int(device.group(1)), name=model,
                               bus_id=f"{domain:04x}:{bus:02x}:{dev:02x}.0"))
    for m in _ACCESS.finditer(line):
        a, b = int(m.group(1)), int(m.group(3))
        _status(records, access, src, a, b, m.group(2).upper() == "CAN", m.group(2).upper())
    for m in _SIMPLE_ACCESS.finditer(line):
        a, b = int(m.group(2)), int(m.group(4))
        for index, model in ((a, m.group(1)), (b, m.group(3))):  # the sample names each GPU in its access lines
            if model and not any(isinstance(r, GpuFact) and r.index == index for r in records):
                records.append(GpuFact(src, index=index, name=model.strip()))
        _status(records, access, src, a, b, m.group(5).lower() == "yes", m.group(5))
    copy = _SIMPLE_COPY.search(line)
    if copy:  # simpleP2P copies only after cudaDeviceEnablePeerAccess succeeded
        records.append(PairBandwidth(src, int(copy.group(1)), int(copy.group(2)), float(copy.group(3)), "GB/s", "uni",
                                     True))
    nhc = _NHC.search(line)
    if nhc:
        records.append(PairBandwidth(src, int(nhc.group(1)), int(nhc.group(2)), float(nhc.group(3)), "GB/s", "uni"))


def _status(records, access, src, a, b, ok, printed) -> None:
    """One P2PStatus per pair: the access lines and the connectivity matrix say the same."""
    if (a, b) not in access:
        access[(a, b)] = P2PStatus(src, a, b, "access", printed, ok)
        records.append(access[(a, b)])
