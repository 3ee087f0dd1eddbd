"""Serving engines' own log lines about KV cache room and the queue: how full the cache was, how many requests
waited, and how often the engine evicted running requests because the cache was full.

What each engine prints (the source of every pattern below):

- vLLM V0 scheduler (vllm/core/scheduler.py, Scheduler._preempt): "Sequence group %s is preempted by %s mode because
  there is not enough KV cache space. ... total_num_cumulative_preemption=%d", logged at the 1st, 51st, 101st ...
  preemption (`num_cumulative_preemption % 50 == 0`), so the stated counter, not the lines, is the count
  (https://github.com/vllm-project/vllm/blob/v0.6.3/vllm/core/scheduler.py). The warning came with vLLM PR #4647
  (May 2024: "Print warning when preemption first happens", then periodically); its first releases named the counter
  "total_cumulative_preemption_cnt=%d", as vLLM's docs still print it. The V1 engine logs no such warning; its
  stats line says "Preemptions: %d" (the logging interval's, summed over the stats lines) in its 2025-26 releases.
- vLLM stats line, V0 (vllm/engine/metrics.py LoggingStatLogger: "Running: %d reqs, Swapped: %d reqs, Pending: %d
  reqs, GPU KV cache usage: %.1f%%") and V1 (vllm/v1/metrics/loggers.py: "Running: %d reqs, Waiting: %d reqs, GPU KV
  cache usage: %.1f%%"; later releases add "Preemptions: %d" after the waiting requests when the interval had any,
  IterationStats.num_preempted_reqs summed since the last line).
- SGLang scheduler (python/sglang/srt/managers/scheduler.py, log_decode_stats / log_prefill_stats): "Decode batch.
  #running-req: %d, #token: %d, token usage: %.2f, ... #queue-req: %d" (a comma after "batch" since 2025, "full
  token usage" beside "swa token usage" for sliding-window models); update_running_batch, when the KV pool cannot hold
  the next decode step: "KV cache pool is full. Retract requests. #retracted_reqs: %d, #new_token_ratio: %.4f ->
  %.4f" (earlier "Decode out of memory happened. #retracted_reqs: ..."). Every TP rank prints its own copy, stamped
  when that rank printed it: the copies of one event carry the same message within about a second, and may straddle a
  second boundary. One rank prints one line per event.

A line is read only in these shapes: a setting's name ("--preemption-mode"), a Prometheus counter or the docs' prose
about them is not the engine reporting its run. The parser counts; rules/engine_pressure.py decides.
"""

from __future__ import annotations

import re
from datetime import date

from diagnose.evidence import EngineLoad, where

KIND = "engine_log"

VLLM_PREEMPT = re.compile(r"\bis preempted by (?:PreemptionMode\.)?(?:RECOMPUTE|SWAP)\b(?: mode)?")
VLLM_PREEMPT_COUNT = re.compile(r"\btotal_(?:num_)?cumulative_preemption(?:_cnt)?\s*=\s*(\d+)")
VLLM_KV = re.compile(r"\bGPU KV cache usage:\s*(\d+(?:\.\d+)?)\s*%")
VLLM_RUNNING = re.compile(r"\bRunning:\s*(\d+)\s*reqs\b")
VLLM_QUEUED = re.compile(r"\b(?:Pending|Waiting):\s*(\d+)\s*reqs\b")
VLLM_INTERVAL_PREEMPTIONS = re.compile(r"\bPreemptions:\s*(\d+)\b")  # V1 stats line, this interval's
SGLANG_BATCH = re.compile(r"\b(?:Decode|Prefill) batch[.,]")
# the full-attention pool's usage ("token usage", "full token usage"), not a sliding-window pool's ("swa token usage")
SGLANG_KV = re.compile(r"(?:^|[,.]\s*)(?:full )?token usage:\s*(\d+(?:\.\d+)?)")
SGLANG_RUNNING = re.compile(r"#running-req:\s*(\d+)")
SGLANG_QUEUED = re.compile(r"#queue-req:\s*(\d+)")
SGLANG_RETRACT = re.compile(r"(?:KV cache pool is full\. Retract requests\.|Decode out of memory happened[.,])\s*"
                            r"#retracted_reqs:\s*(\d+)", re.I)
# a line's time stamp (SGLang "[2025-03-07 21:49:33 TP13]", its late-2024 releases "[16:43:29 TP0]", vLLM "01-23
# 06:33:37"): the ranks' copies of one event share it
STAMP = re.compile(r"(?:(\d{4})-(\d\d)-(\d\d)[ T]|\b(\d\d)-(\d\d) )?(?<![\d:])(\d\d):(\d\d):(\d\d)(?![\d:])")
SGLANG_RANK = re.compile(r"\bTP(\d+)\]")
# the copies of one retraction: the ranks print it in the same scheduler step, stamped in whole seconds
COPY_WINDOW_S = 1.0
QUOTE = 240


def _seconds(stamp: re.Match) -> float:
    """A stamp as seconds, comparable within one log (a date without a year is placed in one leap year)."""
    year, month, day, month2, day2, hh, mm, ss = stamp.groups()
    clock = int(hh) * 3600 + int(mm) * 60 + int(ss)
    if year or month2:
        return date(int(year or 2000), int(month or month2), int(day or day2)).toordinal() * 86400.0 + clock
    return float(clock)


def detect(text: str) -> float:
    head = text[:300_000]
    if VLLM_PREEMPT.search(head) or SGLANG_RETRACT.search(head):
        return 0.8
    if (VLLM_KV.search(head) and VLLM_RUNNING.search(head)) or (SGLANG_BATCH.search(head) and SGLANG_KV.search(head)):
        return 0.8
    return 0.0


class _Engine:
    """One engine's figures over a file, as the lines come."""

    def __init__(self, name: str, engine: str):
        self.name, self.engine = name, engine
        self.lines, self.kv, self.kv_at, self.queued, self.running = 0, None, None, None, None
        self.count, self.warnings, self.interval_sum, self.events, self.first = 0, 0, 0, [], None
        self.last_t = None

    def stats(self, i: int, line: str, kv: float, running: re.Match | None, queued: re.Match | None):
        self.lines += 1
        if self.kv is None or kv > self.kv:
            self.kv, self.kv_at = kv, (i, line)
        if running:
            self.running = max(self.running or 0, int(running.group(1)))
        if queued:
            self.queued = max(self.queued or 0, int(queued.group(1)))

    def eviction(self, i: int, line: str):
        self.first = self.first or (i, line)

    def retraction(self, i: int, line: str, m: re.Match):
        """One rank's line of a retraction: a copy of an event another rank printed the same message for within the
        copy window, else an event of its own. Time-only stamps that go back cross midnight."""
        self.eviction(i, line)
        stamp, rank = STAMP.search(line[:m.start()]), SGLANG_RANK.search(line[:m.start()])
        t = _seconds(stamp) if stamp else None
        while t is not None and self.last_t is not None and t < self.last_t - 43200.0:
            t += 86400.0  # a clock that went back half a day or more: the next day's time-only stamp
        self.last_t = t if t is not None else self.last_t
        message, who = line[m.start():].strip(), rank.group(1) if rank else None
        for event in reversed(self.events):
            close = t is None or event["t"] is None or abs(t - event["t"]) <= COPY_WINDOW_S
            if event["message"] == message and close and (who is None or who not in event["ranks"]):
                event["ranks"].add(who)
                return
        self.events.append({"t": t, "message": message, "ranks": {who}})

    def span(self) -> float | None:
        """Seconds from the first retraction event's stamp to the last's; None where a line carries none."""
        times = [e["t"] for e in self.events]
        return None if not times or None in times else max(times) - min(times)

    def record(self) -> EngineLoad | None:
        if not self.lines and self.first is None:
            return None
        i, line = self.first or self.kv_at
        return EngineLoad(where(self.name, i), self.engine, line.strip()[:QUOTE], self.lines,
                          None if self.kv is None else round(self.kv, 1), self.queued, self.running,
                          max(self.count, self.warnings, self.interval_sum), len(self.events), self.span())


def parse(text: str, name: str) -> list:
    """One EngineLoad per engine whose lines the text holds."""
    vllm, sglang = _Engine(name, "vllm"), _Engine(name, "sglang")
    for i, line in enumerate(text.splitlines(), 1):
        if VLLM_PREEMPT.search(line):
            vllm.eviction(i, line)
            vllm.warnings += 1
            if (c := VLLM_PREEMPT_COUNT.search(line)) is not None:
                vllm.count = max(vllm.count, int(c.group(1)))
        elif (m := VLLM_KV.search(line)) is not None and (r := VLLM_RUNNING.search(line)) is not None:
            vllm.stats(i, line, float(m.group(1)), r, VLLM_QUEUED.search(line))
            if (p := VLLM_INTERVAL_PREEMPTIONS.search(line)) is not None and int(p.group(1)):
                vllm.eviction(i, line)
                vllm.interval_sum += int(p.group(1))
        elif (m := SGLANG_RETRACT.search(line)) is not None:
            sglang.retraction(i, line, m)
        elif SGLANG_BATCH.search(line) and (m := SGLANG_KV.search(line)) is not None:
            sglang.stats(i, line, 100.0 * float(m.group(1)), SGLANG_RUNNING.search(line), SGLANG_QUEUED.search(line))
    return [r for r in (vllm.record(), sglang.record()) if r is not None]
