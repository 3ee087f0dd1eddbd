"""Time to first token from a serving benchmark that sends every request at once: the queue, not the prefill.

vLLM's benchmark_serving.py / `vllm bench serve` and SGLang's bench_serving send requests at the rate given
(`--request-rate`, default inf: all at t = 0) and, without `--max-concurrency`, all of them at once. The engine
decodes at most its batch cap together; the rest wait, and a request's TTFT counts that wait
(https://docs.vllm.ai/en/latest/contributing/benchmarks.html; vLLM's benchmark help: "If this is inf, then all
the requests are sent at time 0"). A mean TTFT of seconds then measures the backlog the benchmark built, and
is no prefill to judge against the model and GPU.
"""

from __future__ import annotations

from diagnose import lazy_re as re
from diagnose.evidence import Facts, Workload
from rules import claims
from rules.common import ev, make, measurements
from rules.engine import rule
from rules.ticket_figures import asks_about_figures

VLLM_BENCHMARKS = "https://docs.vllm.ai/en/latest/contributing/benchmarks.html"
# The reporter asks about the first token's wait (or latency in general), not only about throughput.
_ABOUT_LATENCY = re.compile(r"\b(?:TTFT|time[- ]to[- ]first[- ]token|first[- ]token|latency|latencies)\b|首字|首token",
                            re.I)
# A backlog shows once TTFT is seconds: a prefill is about 2 FLOPs per parameter per prompt token, so even a 70B
# model's 2000-token prompt (2.8e14 FLOPs) takes about 0.3-0.5 s on one H100 (989 dense BF16 TFLOPS at 60-90 %).
BACKLOG_MS = 2000.0


def _burst(facts: Facts) -> Workload | None:
    """The benchmark run that sent every request at once: request rate inf and no concurrency limit."""
    for w in facts.of(Workload):
        rate = str(w.extra.get("request_rate", "")).strip().lower()
        if rate in ("inf", "infinity") and not w.concurrency:
            return w
    return None


@rule("ticket.ttft_queueing", "expected_physics")
def ttft_queueing(facts: Facts, predictions=None):
    """A benchmark's mean (or median) time to first token of seconds, measured with every request sent at once
    and no concurrency limit, asked about: the wait in the engine's queue is in it, so it measures the backlog,
    not the prefill."""
    if not asks_about_figures(facts):
        return
    burst = _burst(facts)
    if burst is None or not any(_ABOUT_LATENCY.search(text) for _, text in claims.texts(facts)):
        return
    ttfts = [m for m in measurements(facts, "ttft_ms") if m.stat in ("mean", "median") and not m.concurrency
             and m.value >= BACKLOG_MS]
    if not ttfts:
        return
    m = max(ttfts, key=lambda x: x.value)
    done = next(iter(measurements(facts, "completed_requests")), None)
    evidence = [ev(m, f"{m.stat} TTFT of the run", m.value, unit="ms"),
                ev(burst.source, "request rate of the run (every request sent at t = 0), no max concurrency", "inf")]
    if done is not None:
        evidence.append(ev(done, "requests sent at once", int(done.value)))
    yield make("ticket.ttft_queueing", "expected_physics", "info", 0.5,
               f"A {m.stat} TTFT of {m.value / 1e3:.1f} s with every request sent at once is the queue, not the "
               "prefill",
               "The benchmark sent all its requests at time 0 with no concurrency limit; the engine decodes at most "
               "its batch cap together and the rest wait, and each request's TTFT counts that wait. The figure grows "
               "with the number of requests sent, whatever the GPU.",
               evidence, fix="Measure TTFT at the load you serve: --max-concurrency N (or a --request-rate the server "
               "sustains); compare the median TTFT at concurrency 1 with `diagnose predict --prompt N`.",
               refs=[VLLM_BENCHMARKS])
