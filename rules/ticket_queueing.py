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


# The share of the whole batch's prefill a request waits on average when N prompts that arrive together are prefilled
# first come, first served within the engine's per-step token budget (vLLM's max_num_batched_tokens, SGLang's
# chunked_prefill_size): the i-th prompt's first token comes after i/N of the batch's prefill, so the mean is
# (N + 1) / 2N of it and the last request waits all of it.
def staggered_share(n: int) -> float:
    return (n + 1) / (2 * n)


@rule("ticket.ttft_under_load", "expected_physics")
def ttft_under_load(facts: Facts, predictions=None):
    """A time to first token measured with N requests at once (a batch or a concurrency of N, not every request
    sent at t = 0: ticket.ttft_queueing's), against the prefill it can wait behind: at least its own prompt's, at most
    all N prompts' when they arrive together (first come, first served, so the mean of such a burst waits about half
    of it). A TTFT that grows with the load within that is the prefill shared, not a fault."""
    from rules.expectations import band_text, expectation
    from rules.ticket_figures import assumed_layout, layout_words, ttft_inputs
    from rules.workload import predict_layout

    if not (got := ttft_inputs(facts)) or _burst(facts) is not None:
        return
    model, gpu, prompt, prompt_src, ttfts = got
    for m in sorted(ttfts, key=lambda x: -x.value):
        n = max(m.batch or 1, m.concurrency or 1)
        if n < 2 or m.stat not in ("reported", "mean", "median", "p99", "max"):
            continue
        tp, pp, how = assumed_layout(facts, m, n, prompt)
        one, every = predict_layout(facts, tp, 1, prompt, pp=pp), predict_layout(facts, tp, n, prompt, pp=pp)
        if one is None or every is None or not (one.valid and one.fits and every.valid and every.fits):
            continue
        e1, en = expectation("ttft_ms", one), expectation("ttft_ms", every)
        if not e1.low <= m.value <= en.high:
            return  # past every prompt's prefill (requests beyond the batch, preemption) or faster than one prefill
        where = f"prediction:{model.key}@{gpu.key}"
        evidence = [ev(m, f"{m.stat} TTFT with {n} requests at once", m.value, unit="ms"),
                    ev(prompt_src, "prompt length stated", prompt, unit="tokens"),
                    ev(where, f"one prompt's prefill at {layout_words(one)} ({how}): the least a request waits",
                       expected=round(e1.expected), unit="ms"),
                    ev(where, f"{n} prompts' prefill: the most, when all {n} arrive together",
                       expected=round(en.expected), unit="ms"),
                    ev(where, f"all {n} at once, first come first served: the mean waits {staggered_share(n):.2f} "
                       "of it", expected=round(en.expected * staggered_share(n)), unit="ms")]
        single = next((o for o in ttfts if max(o.batch or 1, o.concurrency or 1) == 1 and o.value < m.value), None)
        if single is not None:
            evidence.append(ev(single, "TTFT of one request alone", single.value, unit="ms"))
        yield make("ticket.ttft_under_load", "expected_physics", "info", 0.5,
                   f"{m.value:g} ms to the first token with {n} requests at once is the prefill they share "
                   f"(expected {band_text(e1.low, en.high, m.value)} ms)",
                   f"A request's first token waits for its own prompt's prefill and for the prompts the engine "
                   f"prefills with or before it, within its per-step token budget: about two FLOPs per parameter "
                   f"per prompt token, up to {n} x {prompt} tokens here. The TTFT grows with the load while the GPU "
                   "works at full speed.",
                   evidence, fix="Nothing is broken; a lower concurrency, shorter prompts, prefix caching or more "
                   "replicas shorten the wait (`diagnose predict --batch N --prompt P` gives it).",
                   refs=[VLLM_BENCHMARKS])
        return
