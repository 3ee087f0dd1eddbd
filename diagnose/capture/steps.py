"""Steps (decode iterations, training steps): from NVTX ranges, else from the repeating kernel pattern.

NVTX: a range whose name (trailing numbers dropped) is a common step marker, or the one the user
names with `--step`. Pattern: on the busiest GPU, the least frequent kernel name that recurs at
a regular interval (coefficient of variation below 0.25) and whose occurrences cover most of the
active time marks one step per occurrence; the step time is the interval between occurrences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from diagnose.capture.reader import KERNEL, Capture, pid_of
from diagnose.capture.summaries import nvtx_groups, nvtx_ranges_sql
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

    @property
    def count(self) -> int:
        return len(self.durations_ns)

    def percentile(self, q: float) -> float | None:
        """Nearest-rank percentile (q in 0..100)."""
        if not self.durations_ns:
            return None
        values = sorted(self.durations_ns)
        rank = max(1, min(len(values), int(round(q / 100.0 * len(values) + 0.4999))))
        return float(values[rank - 1])

    @property
    def mean_ns(self) -> float | None:
        return sum(self.durations_ns) / len(self.durations_ns) if self.durations_ns else None


def nvtx_steps(cap: Capture, wanted: str | None = None) -> Steps | None:
    """Step ranges from NVTX, per the busiest process that has them.

    `wanted` (from --step) must exist: a typo is an InputError listing the closest range names.
    """
    inner = nvtx_ranges_sql(cap)
    if not inner:
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
    marks = ",".join("?" * len(names))
    rows = cap.query(
        f"SELECT globalTid, start, \"end\" FROM ({inner}) WHERE \"end\" IS NOT NULL AND name IN ({marks}) "
        f"ORDER BY start LIMIT {MAX_STEPS}", tuple(names)).fetchall()
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


def pattern_steps(cap: Capture, pid: int, device: int, min_count: int = 3) -> Steps | None:
    """Steps inferred from a kernel that runs once per step at a regular interval."""
    if not cap.has(KERNEL):
        return None
    col = "shortName" if cap.has_column(KERNEL, "shortName") else "demangledName"
    where = f"deviceId = {int(device)} AND ((coalesce(globalPid, 0) >> 24) & 16777215) = {int(pid)}"
    first, last, total = cap.query(f"SELECT min(start), max(\"end\"), count(*) FROM {KERNEL} WHERE {where}").fetchone()
    if not total or first is None:
        return None
    active = last - first
    candidates = cap.query(
        f"SELECT {col}, count(*) AS n FROM {KERNEL} WHERE {where} GROUP BY 1 HAVING n >= ? ORDER BY n, 1 LIMIT 40",
        (min_count,)).fetchall()
    for name_id, n in candidates:
        stats = cap.query(f"""
            WITH o AS (SELECT start - lag(start) OVER (ORDER BY start) AS d FROM {KERNEL} WHERE {where} AND {col} = ?)
            SELECT count(d), avg(d), avg(d * 1.0 * d), min(d) FROM o WHERE d IS NOT NULL""", (name_id,)).fetchone()
        count, mean, mean_sq, low = stats
        if not count or not mean or mean <= 0:
            continue
        var = max(0.0, mean_sq - mean * mean)
        cv = var ** 0.5 / mean
        if cv < 0.25 and count * mean >= 0.5 * active:
            durations = [d for (d,) in cap.query(f"""
                SELECT d FROM (SELECT start - lag(start) OVER (ORDER BY start) AS d FROM {KERNEL}
                               WHERE {where} AND {col} = ?) WHERE d IS NOT NULL LIMIT {MAX_STEPS}""", (name_id,))]
            marks = cap.query(f"SELECT min(start), max(start) FROM {KERNEL} WHERE {where} AND {col} = ?",
                              (name_id,)).fetchone()
            window = tuple(marks) if len(durations) == count else None  # cut at MAX_STEPS: no window
            return Steps(f"pattern:{cap.string(name_id)}", durations, pid=pid, device=device,
                         first_ns=first, last_ns=last, window=window)
    return None
