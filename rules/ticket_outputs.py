"""A serving benchmark whose requests produced far fewer tokens than the output length the ticket states.

A benchmark's output throughput is its generated tokens over its duration, and its request throughput its
completed requests over the same duration (trtllm-bench's PERFORMANCE OVERVIEW, vLLM's and SGLang's result
blocks), so their ratio is the mean tokens a request generated. The output length a benchmark is given is a
budget: a request stops at the model's end-of-sequence token unless the benchmark ignores it
(https://github.com/vllm-project/vllm/pull/28227: `vllm bench serve` now ignores EOS for its random dataset "so
generation runs to the requested length"; https://github.com/NVIDIA/TensorRT-LLM/pull/17249, a docs change: "The
requested output length in synthetic benchmarks is a maximum generation budget, not a guarantee"). Published tables
run every request to its full length, so a run whose requests stopped early has a lower output rate for a reason
that is no fault of the GPUs, and its figure cannot be set against them.
"""

from __future__ import annotations

from diagnose.evidence import Facts
from rules.common import ev, make, measurements, wfield
from rules.engine import rule

# Under half the stated length on average: most requests stopped early. A fixed-length dataset (trtllm-bench's
# token-norm-dist with stdev 0, NVIDIA's published runs) gives the stated length exactly, and vLLM's random
# dataset samples lengths around it with the stated length as their mean, so either reads near 1x.
SHORT_SHARE = 0.5


def _file(source: str) -> str:
    return str(source).rpartition(":")[0]


@rule("ticket.short_outputs", "other")
def short_outputs(facts: Facts, predictions=None):
    """A benchmark's output tok/s over its request throughput (the mean tokens a request generated) below half the
    output length the ticket states: the requests stopped at end-of-sequence, so its output rate measures shorter
    replies than the workload named, not a slow system, and no published or expected figure at that length applies."""
    osl, osl_src = wfield(facts, "output_len")
    if not osl or osl < 2:
        return
    rates = measurements(facts, "request_throughput")
    for out in measurements(facts, "output_tok_s"):
        if out.stat is not None:  # a benchmark's own figure: prose rates are not a duration's totals
            continue
        rps = next((m for m in rates
                    if m.stat is None and _file(m.source) == _file(out.source) and m.value > 0), None)
        if rps is None:
            continue
        per_request = out.value / rps.value
        if per_request >= SHORT_SHARE * osl:
            return
        yield make("ticket.short_outputs", "other", "warning", 0.6,
                   f"The requests generated {per_request:.0f} tokens each on average, not the {osl} stated: the "
                   f"output rate measures shorter replies, not a slower system",
                   f"{out.value:g} output tok/s over {rps.value:g} requests/s is {per_request:.1f} tokens per request "
                   f"(the two figures share the benchmark's duration), {per_request / osl:.0%} of the {osl}-token "
                   "output length: the requests stopped early (end-of-sequence or a stop condition). Published and "
                   "expected throughput run every request to its full length, so neither applies to this figure.",
                   [ev(out, "output throughput (the benchmark's)", out.value, unit="tok/s"),
                    ev(rps, "request throughput (the benchmark's)", rps.value, unit="req/s"),
                    ev(osl_src, "tokens per request (output / request throughput) vs the output length stated",
                       round(per_request, 1), osl, "tokens")],
                   fix="Rerun with end-of-sequence ignored, so every request generates its full output length (vLLM: "
                   "`--ignore-eos`), before comparing with published figures.")
        return
