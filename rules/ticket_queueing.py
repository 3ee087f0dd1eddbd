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
from rules.common import ev, make, measurements, wfield
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
    sent at t = 0: ticket.ttft_queueing's), against the prefill of N prompts: the first tokens come one prompt's
    prefill after another, so the mean waits about half the batch's prefill and the slowest all of it. A TTFT that
    grows with the load up to that is the prefill shared, not a fault."""
    from rules.expectations import band_text, expectation
    from rules.ticket_figures import assumed_layout, layout_words, unmodelled_layout
    from rules.workload import predict_layout

    if not asks_about_figures(facts) or unmodelled_layout(facts) or _burst(facts) is not None:
        return
    model, gpu = facts.subject.model, facts.subject.gpu
    prompt, prompt_src = wfield(facts, "prompt_len")
    if model is None or gpu is None or not prompt:
        return
    ttfts = measurements(facts, "ttft_ms")
    for m in sorted(ttfts, key=lambda x: -x.value):
        n = max(m.batch or 1, m.concurrency or 1)
        if n < 2 or m.stat not in ("reported", "mean", "median", "p99", "max"):
            continue
        tp, pp, how = assumed_layout(facts, m, n, prompt)
        p = predict_layout(facts, tp, n, prompt, pp=pp)
        if p is None or not (p.valid and p.fits):
            continue
        e = expectation("ttft_ms", p)
        share = 1.0 if m.stat in ("p99", "max") else staggered_share(n)
        low, high = e.low * share, e.high
        if not low <= m.value <= high:
            return  # past the batch's prefill (requests beyond the batch cap, preemption) or faster: not this rule's
        single = next((o for o in ttfts if max(o.batch or 1, o.concurrency or 1) == 1 and o.value < m.value), None)
        evidence = [ev(m, f"{m.stat} TTFT with {n} requests at once", m.value, round(e.expected * share), "ms"),
                    ev(prompt_src, "prompt length stated", prompt, unit="tokens"),
                    ev(f"prediction:{model.key}@{gpu.key}", f"prefill of {n} prompts at {layout_words(p)} ({how}), "
                       f"the last request's first token", expected=round(e.expected), unit="ms"),
                    ev(f"prediction:{model.key}@{gpu.key}",
                       f"first come first served: the {m.stat} waits {share:.2f} of it" if share < 1 else
                       "the slowest request waits all of it", expected=round(e.expected * share), unit="ms")]
        if single is not None:
            evidence.append(ev(single, "TTFT of one request alone", single.value, unit="ms"))
        yield make("ticket.ttft_under_load", "expected_physics", "info", 0.5,
                   f"{m.value:g} ms to the first token with {n} requests at once is {n} prompts' prefill shared "
                   f"(expected {band_text(low, high, m.value)} ms)",
                   f"Prompts that arrive together are prefilled one after another within the engine's per-step "
                   f"token budget: about two FLOPs per parameter per prompt token, {n} x {prompt} tokens here. The "
                   "first request's token comes after one prompt's prefill and the last one's after all of them, so "
                   "the TTFT grows with the load while the GPU works at full speed.",
                   evidence, fix="Nothing is broken; a lower concurrency, shorter prompts, prefix caching or more "
                   "replicas shorten the wait (`diagnose predict --batch N --prompt P` gives it).",
                   refs=[VLLM_BENCHMARKS])
        return
