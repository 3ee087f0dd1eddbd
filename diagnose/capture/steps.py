"""Steps (decode iterations, training steps): from NVTX ranges, else from the repeating kernel pattern.

NVTX: a range whose name (trailing numbers dropped) is a common step marker, or the one the user
names with `--step`. Pattern: on the busiest GPU, the period of the whole kernel sequence (see
pattern_steps), never the first kernel that recurs (that finds layers, or single GEMMs). When
neither exists, no steps are reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from diagnose.capture.grouped import distinct
from diagnose.capture.kernels import SEQUENCE_KEPT, start_ordered
from diagnose.capture.nvtx import ranges_named
from diagnose.capture.reader import KERNEL, NVTX, Capture, pid_of
from diagnose.capture.summaries import nvtx_groups
from diagnose.errors import InputError, closest_names

# Normalised names that usually mark one step, most specific first.
STEP_NAMES = (
    "profilerstep", "decode_step", "decode", "execute_model", "model_step", "engine_step", "step",
    "train_step", "training_step", "iteration", "iter", "generate_step", "forward_step", "model_forward",
    "forward",
)
MAX_STEPS = 1_000_000


def normalise(name: str) -> str:
    """'ProfilerStep#12' -> 'profilerstep'; 'decode 3' -> 'decode'; 'Domain:step_7' -> 'step'."""
    text = re.sub(r"^[A-Za-z0-9_ .-]+:(?!:)", "", name or "")
    text = re.sub(r"[\s#_\-\[\(]*\d+[\]\)]?$", "", text.strip())
    return text.strip().lower()


@dataclass
class Steps:
    method: str  # "nvtx:<name>" or "pattern:<kernel>"
    durations_ns: list[int]
    pid: int | None = None
    device: int | None = None
    first_ns: int | None = None
    last_ns: int | None = None
    # (start, end) in ns holding exactly `count` steps: NVTX, first range start to last range end
    # (CPU time); pattern, first to last occurrence of the marker kernel (GPU time)
    window: tuple[int, int] | None = None
    kernels_per_step: int | None = None  # pattern steps: the period of the kernel sequence

    @property
    def count(self) -> int:
        return len(self.durations_ns)

    def percentile(self, q: float) -> float | None:
        """Nearest-rank percentile (q in 0..100)."""
        if not self.durations_ns:
            return None
        return float(nearest_rank(sorted(self.durations_ns), q))

    @property
    def mean_ns(self) -> float | None:
        return sum(self.durations_ns) / len(self.durations_ns) if self.durations_ns else None


def nvtx_steps(cap: Capture, wanted: str | None = None) -> Steps | None:
    """Step ranges from NVTX, per the busiest process that has them.

    `wanted` (from --step) must exist: a typo is an InputError listing the closest range names.
    """
    if not cap.has(NVTX):
        if wanted:
            raise InputError(f"{cap.name}: --step {wanted!r}: this capture has no NVTX ranges")
        return None
    counts: dict[str, int] = {}
    raw_names: dict[str, set] = {}
    for name, _style, _n, n, *_ in nvtx_groups(cap):
        if not n:
            continue  # ranges of this name never end: they mark no step
        key = normalise(name or "")
        counts[key] = counts.get(key, 0) + n
        raw_names.setdefault(key, set()).add(name)
    chosen = None
    if wanted:
        key = normalise(wanted)
        if key in counts:
            chosen = key
        else:
            exact = [k for k, names in raw_names.items() if wanted in names]
            if not exact:
                near = closest_names(wanted, sorted({n for names in raw_names.values() for n in names if n})[:5000])
                hint = f"; closest: {', '.join(near)}" if near else ""
                raise InputError(f"{cap.name}: no NVTX range named {wanted!r}{hint}")
            chosen = exact[0]
    else:
        for candidate in STEP_NAMES:
            if counts.get(candidate, 0) >= 2:
                chosen = candidate
                break
    if chosen is None:
        return None
    names = sorted(raw_names[chosen])
    rows = ranges_named(cap, names, MAX_STEPS)
    by_pid: dict[int, list] = {}
    for gtid, s, e in rows:
        by_pid.setdefault(pid_of(gtid) or 0, []).append((s, e))
    # The process whose ranges last longest waits for the step's result (in PP: the last stage);
    # the others' ranges may end as soon as their work is queued.
    pid, ranges = max(by_pid.items(), key=lambda kv: (sum(e - s for s, e in _outermost(kv[1])), -kv[0]))
    ranges = _outermost(ranges)
    label = names[0] if len(names) == 1 else chosen
    return Steps(f"nvtx:{label}", [e - s for s, e in ranges], pid=pid,
                 first_ns=ranges[0][0], last_ns=ranges[-1][1], window=(ranges[0][0], ranges[-1][1]))


def _outermost(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Nested ranges of the same name (recursion, re-entry) count once."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(ranges):
        if out and s >= out[-1][0] and e <= out[-1][1]:
            continue
        out.append((s, e))
    return out


def pattern_steps(cap: Capture, pid: int, device: int, min_count: int = 3,
                  sequence: tuple[np.ndarray, np.ndarray] | None = None) -> Steps | None:
    """Steps as the period of the GPU's whole kernel sequence; None when it has none.

    A decode or training step launches the same kernel sequence every time, so the sequence of
    kernel names repeats with the step's length P. A transformer block repeats too, L times per
    step, but kernels that run once per step (embedding, final norm, LM head, sampling, the
    optimizer) break that shorter period. So: every kernel name that recurs at a regular index
    interval (the same interval for >= 80 % of its repeats) gives its interval; P is the longest
    such interval at which the whole sequence matches itself shifted by P (>= 90 % of positions,
    allowing warm-up and the odd extra kernel). A period of one kernel name (one kernel launched
    over and over) is no step. The step times are the intervals between runs of a kernel that
    occurs once per period. A capture holding only repeated blocks of one step (no kernel outside
    the block) cannot tell the block from a step; `kernels_per_step` gives the period.
    `sequence`: the GPU's (start, name id) as the kernel read kept them (KernelGroups.sequence),
    else they are read here.
    """
    if not cap.has(KERNEL):
        return None
    if sequence is None:
        col = "shortName" if cap.has_column(KERNEL, "shortName") else "demangledName"
        where = (f'"end" IS NOT NULL AND coalesce(deviceId, -1) = {int(device)} '
                 f"AND ((coalesce(globalPid, 0) >> 24) & 16777215) = {int(pid)}")
        sequence = _sequence(cap, col, where)
    starts, names = sequence
    n = len(names)
    if n < 2 * min_count:
        return None
    found = _period(names, min_count)
    if found is None:
        return None
    period, anchor = found
    at = starts[names == anchor]
    first, last = int(starts[0]), int(starts[-1])
    if at[-1] - at[0] < 0.5 * (last - first):
        return None  # the repeating part is a small piece of the capture
    durations = np.diff(at).tolist()[:MAX_STEPS]
    window = (int(at[0]), int(at[len(durations)])) if durations else None
    return Steps(f"pattern:{cap.string(anchor)}", durations, pid=pid, device=device, first_ns=first,
                 last_ns=last, window=window, kernels_per_step=period)


MAX_SEQUENCE = SEQUENCE_KEPT  # kernels of one GPU read for the period (memory: 16 bytes each)


def _sequence(cap: Capture, col: str, where: str):
    """(start, name id) of the GPU's kernels in start order, the first MAX_SEQUENCE of them."""
    parts, have = [], 0
    for start, name in cap.chunks(KERNEL, ["start", f"coalesce({col}, -1)"], where=where):
        parts.append((start, name))
        have += len(start)
        if have >= MAX_SEQUENCE:
            break
    return start_ordered(parts, MAX_SEQUENCE)


def _period(names, min_count: int) -> tuple[int, int] | None:
    """(P, anchor name id) of the whole sequence's period, or None (see pattern_steps)."""
    n = len(names)
    order = np.argsort(names, kind="stable")  # positions grouped by name, ascending within a name
    ids, first, counts = np.unique(names[order], return_index=True, return_counts=True)
    regular: dict[int, tuple[int, int]] = {}  # name -> (its index interval, count)
    for nid, lo, c in zip(ids.tolist(), first.tolist(), counts.tolist()):
        if c < min_count:
            continue
        gaps = np.diff(order[lo:lo + c])
        values, times = np.unique(gaps, return_counts=True)
        best = int(np.argmax(times))
        if times[best] >= 0.8 * len(gaps):
            regular[nid] = (int(values[best]), c)
    for period in sorted({g for g, _ in regular.values()}, reverse=True):
        if period < 2 or n // period < min_count:
            continue
        if (names[:-period] == names[period:]).mean() < 0.9:
            continue
        if len(distinct(names[:period])) < 2:
            return None  # one kernel over and over: no step structure
        anchors = [(c, nid) for nid, (g, c) in regular.items() if g == period]
        return period, min(anchors)[1]
    return None


def nearest_rank(ordered, q: float):
    """The nearest-rank percentile (q in 0..100) of sorted values: a value that occurred, never an
    interpolated one. One definition for every step percentile a report shows."""
    rank = max(1, min(len(ordered), int(round(q / 100.0 * len(ordered) + 0.4999))))
    return ordered[rank - 1]
