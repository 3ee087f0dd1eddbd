"""Files given together are read as the ranks of one run (diagnose.capture.multirank): the checks
that refuse exports of different runs, whose collectives paired in issue order would invent waits.
"""

from __future__ import annotations

import re

from diagnose.capture.reader import Capture
from diagnose.errors import InputError


def _launch(cap: Capture) -> str | None:
    """The recorded launch line without what differs between the ranks of one run (the GPU each
    sees, a rank number passed as an argument)."""
    text = cap.launch_text()
    if text is None:
        return None
    text = re.sub(r"\bCUDA_VISIBLE_DEVICES=\S*\s*", "", text)
    return re.sub(r"(rank\S*?[=\s]['\"]?)\d+", r"\1#", text, flags=re.IGNORECASE)


def refuse_other_runs(caps: list[Capture], starts: list[int | None], activities: dict[str, list]) -> None:
    """Files given together are read as the ranks of one run; exports of different runs would pair
    unrelated collectives and invent waits. Refused (exit 2): GPU activity that does not overlap in
    time on the files' UTC session starts, or launch lines that differ. Hosts may differ (ranks on
    several nodes), and an export that lacks a start or a launch line is not refused for it. Every file
    with GPU activity counts, collectives or not: two unrelated single-GPU exports are no more one run
    than two unrelated NCCL ones, and their GPUs would be compared as ranks."""
    ranked = [(cap, start) for cap, start in zip(caps, starts)
              if any(a.all.count for a in activities.get(cap.name, []))]
    if len(ranked) < 2:
        return
    spans = []
    for cap, start in ranked:
        acts = [a.all for a in activities[cap.name] if a.all.count and a.all.first is not None]
        if start is not None and acts:
            spans.append((start + min(a.first for a in acts), start + max(a.last for a in acts), cap.name))
    if len(spans) == len(ranked):
        late, early = max(spans), min(spans, key=lambda x: x[1])
        if late[0] > early[1]:
            raise InputError(f"{early[2]}, {late[2]}: not ranks of one run: their GPU activity does not overlap in "
                             f"time ({early[2]} ends {(late[0] - early[1]) / 1e9:,.3f} s before {late[2]} begins, "
                             "on their UTC session starts); analyse each file alone")
    lines = [(_launch(cap), cap.name) for cap, _ in ranked]
    lines = [x for x in lines if x[0] is not None]
    other = next((x for x in lines if x[0] != lines[0][0]), None)
    if other:
        raise InputError(f"{lines[0][1]}, {other[1]}: not ranks of one run: their recorded launch lines differ "
                         f"({lines[0][0]!r} vs {other[0]!r}); analyse each file alone")
