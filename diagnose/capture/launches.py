"""Launch latency: from the end of the CUDA API call that launched a kernel to the kernel's start
(matched on correlationId), over a bounded sample of launches: the kernels and calls whose
correlationId is a multiple of a stride (the kernel count / SAMPLE).

The sample is taken by the reads that already go through both tables (the kernel read; the
API read that keeps every duration for --stats) as one more group_concat holding only the
sampled rows (Capture.chunks' `sample`), and matched in numpy. A join of the two tables in
SQLite scans both again: 0.2 s of CPU on 1 M kernels and 1.9 M calls, against 0.05 s.
timeline.queue_delays falls back to that join where the reads' sample cannot stand for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from diagnose.capture.grouped import distinct
from diagnose.capture.reader import KERNEL, RUNTIME, Capture

SAMPLE = 50_000  # launches sampled, about (the join's sample: timeline.queue_delays)
KERNEL_PID = "(coalesce(globalPid, 0) >> 24) & 16777215"
CALL_PID = "(globalTid >> 24) & 16777215"


def stride(kernel_rows: int) -> int:
    return max(1, kernel_rows // SAMPLE)


@dataclass
class Sample:
    """The sampled rows of one read: (pid, correlationId, time) per chunk, and how many rows the
    read went through (a kernel read that skipped rows without an end stands for no join)."""

    stride: int
    rows: int = 0
    parts: list = field(default_factory=list)

    def add(self, rows: int, pid, corr, time) -> None:
        self.rows += rows
        if len(pid):
            self.parts.append((pid, corr, time))

    def arrays(self) -> tuple:
        if not self.parts:
            return tuple(np.empty(0, np.int64) for _ in range(3))
        return tuple(np.concatenate(c) for c in zip(*self.parts))


def kernel_side(cap: Capture) -> tuple[Sample, tuple[str, list[str]]] | None:
    """The kernel read's sample and its `chunks` spec: pid, correlationId, start. The stride is
    that of the rowid span, which is the kernel count in an export written in one go (checked
    when the sample is used)."""
    if not cap.has_column(KERNEL, "correlationId"):
        return None
    n = stride(cap.rowid_span(KERNEL) or 0)
    return Sample(n), (f"correlationId % {n} = 0", [KERNEL_PID, "correlationId", "start"])


def call_side(cap: Capture) -> tuple[Sample, tuple[str, list[str]]] | None:
    """The API read's sample and its spec: pid, correlationId, end (a call without a thread
    matches no kernel, as in the join)."""
    if not (cap.has_column(KERNEL, "correlationId") and cap.has_column(RUNTIME, "correlationId")):
        return None
    n = stride(cap.rowid_span(KERNEL) or 0)
    return Sample(n), (f"correlationId % {n} = 0 AND globalTid IS NOT NULL", [CALL_PID, "correlationId", '"end"'])


def from_reads(cap: Capture, kernels: Sample | None, calls: Sample | None) -> dict[int, list[int]] | None:
    """pid -> sorted latencies from the two reads' samples; None when they cannot stand for the
    join: one is missing, the stride differs from the kernel count's, or the kernel read left
    rows out (kernels without an end, which the join still matches)."""
    if kernels is None or calls is None:
        return None
    count = cap.count(KERNEL)
    if not (kernels.stride == calls.stride == stride(count) and kernels.rows == count):
        return None
    return matched(kernels.arrays(), calls.arrays())


def matched(kernels: tuple, calls: tuple) -> dict[int, list[int]]:
    """Every (kernel, call) pair of the same pid and correlationId where the kernel starts after
    the call ends (a graph launch starts many kernels): pid -> the sorted start - end values."""
    kpid, kcorr, start = kernels
    cpid, ccorr, end = calls
    if not len(kpid) or not len(cpid):
        return {}
    corr = np.unique(np.concatenate((kcorr, ccorr)), return_inverse=True)[1].reshape(-1)  # < 2^32 codes
    codes = (np.concatenate((kpid, cpid)) << 32) | corr  # pids are 24 bits
    kcode, ccode = codes[:len(kpid)], codes[len(kpid):]
    order = np.argsort(ccode, kind="stable")
    lo = np.searchsorted(ccode[order], kcode, side="left")
    n = np.searchsorted(ccode[order], kcode, side="right") - lo
    k = np.repeat(np.arange(len(kpid)), n)
    c = order[np.repeat(lo, n) + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)]
    delay = start[k] - end[c]
    keep = delay > 0
    pid, delay = kpid[k][keep], delay[keep]
    return {int(p): np.sort(delay[pid == p]).tolist() for p in distinct(pid).tolist()}
