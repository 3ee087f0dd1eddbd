"""What a healthy system should measure: a metric's roofline, expected value and band, read off
one Prediction (rules.roofline).

The metrics are those of published tables and serving benchmarks:
- e2e_latency_ms: one batch of requests end to end (prefill of every prompt, then output - 1
  decode steps, plus the engine's per-request host time);
- ttft_ms: the first token of every request in the batch (the batch's prefill);
- itl_ms / tpot_ms: the mean time between output tokens of one sequence;
- decode_tok_s: one sequence's decode rate, 1000 / ITL;
- output_tok_s_total / output_tok_s_per_gpu: every output token of the batch over the
  end-to-end time (static batching), in total or per GPU of the replica;
- step_ms: one decode step at the prediction's context.
Times are "slower is worse"; rates are "lower is worse": the band is turned around for rates.
"""

from __future__ import annotations

from dataclasses import dataclass

TIME_METRICS = ("e2e_latency_ms", "ttft_ms", "itl_ms", "tpot_ms", "step_ms")
RATE_METRICS = ("decode_tok_s", "output_tok_s_total", "output_tok_s_per_gpu")
METRICS = TIME_METRICS + RATE_METRICS


@dataclass(frozen=True)
class Expectation:
    metric: str
    roofline: float  # the physical bound: no healthy or broken system does better
    expected: float
    low: float  # the band: the worst and best a healthy system gives, in the metric's own unit
    high: float

    @property
    def is_time(self) -> bool:
        return self.metric in TIME_METRICS

    def ratio(self, measured: float) -> float:
        """How much slower than expected the measurement is (> 1: slower, < 1: faster)."""
        return measured / self.expected if self.is_time else self.expected / measured

    def verdict(self, measured: float) -> str:
        """'faster_than_roofline', 'faster' (than the band), 'inside', or 'slower' (than the band)."""
        better = measured < self.roofline if self.is_time else measured > self.roofline
        if better:
            return "faster_than_roofline"
        lo, hi = (self.low, self.high) if self.is_time else (self.high, self.low)
        slower = measured > hi if self.is_time else measured < hi
        faster = measured < lo if self.is_time else measured > lo
        return "slower" if slower else "faster" if faster else "inside"


def expectation(metric: str, p) -> Expectation:
    """The metric's figures from Prediction `p` (its batch, prompt and output)."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r} (known: {', '.join(METRICS)})")
    times = {
        "e2e_latency_ms": (p.e2e_latency_ms, p.e2e_latency_ms_expected),
        "ttft_ms": (p.ttft_batch_ms, p.ttft_batch_ms_expected),
        "itl_ms": (p.itl_ms, p.itl_ms_expected),
        "tpot_ms": (p.itl_ms, p.itl_ms_expected),
        "step_ms": (p.decode_step_ms, p.decode_step_ms_expected),
    }
    if metric in times:
        roof, exp = times[metric]
        return Expectation(metric, roof, exp, exp * p.band_low, exp * p.band_high)
    if metric == "decode_tok_s":
        roof, exp = 1e3 / p.itl_ms, 1e3 / p.itl_ms_expected
    else:
        tokens = p.batch * p.output * 1e3
        roof, exp = tokens / p.e2e_latency_ms, tokens / p.e2e_latency_ms_expected
        if metric == "output_tok_s_per_gpu":
            roof, exp = roof / (p.tp * p.pp), exp / (p.tp * p.pp)
    return Expectation(metric, roof, exp, exp / p.band_high, exp / p.band_low)


# A figure the reporter writes in prose ("about 22 tok/s", "TPOT is about 14 ms") is what they timed: a chat
# request's prompt processing, sampling and HTTP turn are in it, and it is rounded, so a rate reads a few to 15 % below
# the pure decode rate the band is for (serving benchmarks report TTFT apart from TPOT for this reason:
# https://docs.vllm.ai/en/latest/contributing/benchmarks.html), and a time per token, the same timing turned over,
# up to 1/0.85 above it. Such a figure is slower than the band only past its slow edge by this share; a tool's
# measured figure (a serving benchmark, ticket.toml) gets none.
REPORTED_RATE_SLACK = 0.85


def slowest_normal(edge: float, is_time: bool, reported: bool) -> float:
    """The slowest figure that still reads as the band: its slow edge `edge` (the longest time, or the lowest rate),
    widened by the slack of a figure written in prose (`reported`: Measurement.stat 'reported'). `ticket` and
    `scaling` both judge a figure against it, and rules.beyond_band sizes a lead from it."""
    if not reported:
        return edge
    return edge / REPORTED_RATE_SLACK if is_time else edge * REPORTED_RATE_SLACK


def is_reported(measured) -> bool:
    """A figure written in prose (Measurement.stat 'reported')."""
    return getattr(measured, "stat", None) == "reported"


def prose_words(measured: float, edge: float) -> str:
    """'; 8% above its slow edge, as a time written in prose reads': a time past the band within slowest_normal."""
    return f"; {measured / edge - 1:.0%} above its slow edge, as a time written in prose reads"


def lowest_normal(low: float, measured) -> float:
    """The lowest rate that still reads as the band (slowest_normal for a rate)."""
    return slowest_normal(low, False, is_reported(measured))


def band_text(low: float, high: float, *measured: float, digits: int = 0) -> str:
    """A band's edges as every finding prints them ('12.4-18.4'): the fewest decimals (from `digits`, up to 3)
    that keep each measured value on its own side of each edge, so 12 below a band from 12.4 never reads as
    inside '12-18', and the edges apart."""
    for d in range(digits, 4):
        lo, hi = round(low, d), round(high, d)
        if lo < hi and all((v < low) == (v < lo) and (v > high) == (v > hi) for v in measured):
            break
    return f"{lo:.{d}f}-{hi:.{d}f}"
