"""Little's law over a serving benchmark's result that states no concurrency: the batch of its decode steps and
their time, derived from the figures the benchmark saves. One derivation, used by `diagnose scaling` (a result is a
run of its own) and `diagnose ticket` (a pasted block is judged at that batch), so both judge the same block alike."""

from __future__ import annotations

import bisect

# The most a real measurement can be, per unit: a million GPUs (inputs.MAX_GPUS) at 1e4 tok/s each
# is 1e10 tok/s; a step, ITL or TTFT beyond a day (8.64e7 ms) is not a serving measurement.
UNIT_LIMITS = {"tok/s": 1e10, "ms": 8.64e7, "us": 8.64e10, "req/s": 1e8}


def benchmark_results(workloads, measurements) -> dict[str, tuple[str, list]]:
    """{measurement source: (its result's source, every measurement of that result)}: a figure
    belongs to the last benchmark result (the Workload a serving benchmark states per result) at
    or above its line in the same file (the first result's, for a figure above every result)."""
    by_file: dict[str, list[tuple[int, object]]] = {}
    for w in workloads:
        if w.extra.get("result") or "request_rate" in w.extra:
            file, _, line = str(w.source).rpartition(":")
            if line.isdigit():
                by_file.setdefault(file, []).append((int(line), w))
    for found in by_file.values():
        found.sort(key=lambda x: x[0])
    starts = {file: [n for n, _ in found] for file, found in by_file.items()}
    groups: dict[str, list] = {}
    owner: dict[str, object] = {}
    for m in measurements:
        file, _, line = str(m.source).rpartition(":")
        found = by_file.get(file)
        if not found or not line.isdigit():
            continue
        w = found[max(bisect.bisect_right(starts[file], int(line)) - 1, 0)][1]
        owner[m.source] = w
        groups.setdefault(w.source, []).append(m)
    return {src: (w.source, [w, *groups[w.source]]) for src, w in owner.items()}


STEP_WEIGHTED = "time-weighted TPOT"  # how a derived batch's step is measured (derived_batch)


def derived_batch(result: list, replicas: int) -> tuple[int, str, tuple[float, str, str] | None] | None:
    """(batch per replica, how it was found, its decode step) of a benchmark result that states no
    concurrency (no max_concurrency: vLLM's benchmark_serving.py then sends requests at `request_rate`
    with no cap); None when a figure it needs is missing.

    The batch of a decode step is the sequences decoding, so Little's law is applied to the decode
    phase: sequences decoding = request_throughput x mean decode time per request, where decode
    time = latency - TTFT = TPOT x (output tokens - 1) per request (mean_e2el_ms - mean_ttft_ms
    where both are saved, else mean_tpot_ms x (total_output_tokens / completed - 1)). The
    benchmark's duration runs from the first request sent to the last answer, so the identity holds
    for the window. Requests waiting in TTFT (queued, prefilling) are in flight but not in the
    decode batch: at request rate inf they are many (the sample's first inf run: 649 in flight,
    512 decoding), so the text gives both.
    Source: https://github.com/vllm-project/vllm/blob/0049e29c41fd383bda519a3f250e3227713081ef/benchmarks/benchmark_serving.py
    (calculate_metrics, benchmark, main's result_json).

    The step of that batch is the mean decode time per request over the mean tokens it decodes (output
    tokens - 1, the first being TTFT's): each step counted once, as the batch's own output rate counts
    them (batch / step = the tokens decoded per second). mean_tpot_ms averages each request's own
    ratio instead, so short replies whose few steps carried prefills weigh as much as long ones
    (SGLang#1362: mean TPOT 276.9 ms, this step 190 ms, median TPOT 190.4 ms). Mean tokens per request:
    total_output_tokens / completed, else output throughput / request throughput. None (the mean TPOT
    stands in) where neither is given."""
    from diagnose.inputs import MAX_BATCH, finite_number

    def get(metric, stat=None):
        return next((m for m in result[1:] if m.metric == metric and m.stat == stat), None)

    rps, e2e, ttft = get("request_throughput"), get("e2e_latency_ms", "mean"), get("ttft_ms", "mean")
    tpot, done, tokens = get("tpot_ms", "mean"), get("completed_requests"), get("output_tokens_total")
    if rps is None or ((e2e is None or ttft is None) and None in (tpot, done, tokens)):
        return None
    for m in (rps, e2e, ttft, tpot, done, tokens):
        if m is not None:
            finite_number(m.value, f"{m.source}: {m.metric}", low=0, high=UNIT_LIMITS.get(m.unit or "", 1e12))
    if e2e is not None and ttft is not None:
        decode_ms = max(e2e.value - ttft.value, 0.0)
        how = f"mean_e2el_ms {e2e.value:.4g} - mean_ttft_ms {ttft.value:.4g}"
    else:
        per_request = tokens.value / done.value if done.value else 0.0
        decode_ms = tpot.value * max(per_request - 1, 0.0)
        how = f"mean_tpot_ms {tpot.value:.4g} x (total_output_tokens / completed {per_request:.4g} - 1)"
    decoding = rps.value * decode_ms / 1e3
    per_replica = decoding / replicas
    finite_number(per_replica, f"{rps.source}: sequences decoding derived from request_throughput", high=MAX_BATCH)
    text = (f"derived (no concurrency stated) by Little's law over the decode phase: request_throughput "
            f"{rps.value:.4g} req/s x {decode_ms / 1e3:.4g} s decoding per request ({how}) = {decoding:.4g} sequences "
            f"decoding" + (f" / {replicas} replicas = {per_replica:.3g}" if replicas > 1 else ""))
    if ttft is not None:
        text += (f"; with mean_ttft_ms {ttft.value:.4g} (queued, prefilling) "
                 f"{rps.value * (decode_ms + ttft.value) / 1e3:.4g} in flight")
    out_rate = get("output_tok_s")
    if done is not None and tokens is not None and done.value:
        per_request, said = tokens.value / done.value, "total_output_tokens / completed"
    elif out_rate is not None and rps.value:
        per_request, said = out_rate.value / rps.value, "output throughput / request throughput"
    else:
        per_request, said = 0.0, ""
    step = None
    if per_request > 1 and decode_ms > 0:
        step = (decode_ms / (per_request - 1), STEP_WEIGHTED, rps.source)
        text += (f"; its step (the {STEP_WEIGHTED}) {decode_ms / 1e3:.4g} s decoding / ({said} {per_request:.4g} - 1) "
                 f"= {step[0]:.4g} ms")
    return max(1, round(per_replica)), text, step
