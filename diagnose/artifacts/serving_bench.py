"""Serving benchmarks and throughput logs: what the user measured, with its statistic.

Reads the result block of vLLM `benchmark_serving.py` / `vllm bench serve` and SGLang
`bench_serving` (text, and the JSON / JSON-lines they save), the other serving benchmarks' summaries
(TensorRT-LLM `trtllm-bench` PERFORMANCE OVERVIEW, LMDeploy `profile_restful_api` / `profile_throughput`,
the older vLLM and LightLLM `Throughput: 5.99 requests/s` block and `benchmark_throughput.py` line, the frameless
result of early-2024 benchmark_serving.py (`Successful requests: 100` ... `Mean TPOT: 49.34 ms`), the
result block's rows pasted without its banner (UNFRAMED_RUN rows in a run, section rulers between), vLLM's
offline `Processed prompts: ... est. speed ... output: N toks/s` bar, Triton `perf_analyzer`'s
`Concurrency: 1, throughput: 23.2 infer/sec, latency 43041 usec`), the engines' periodic throughput
lines (vLLM/Aphrodite `Avg generation throughput: 45.2 tokens/s, Running: 1 reqs`, SGLang
`Decode batch. #running-req: 8, ... gen throughput (token/s): 310.5` and its prefill line's `input throughput
(token/s)`), speculative decoding's tokens per
verify step (vLLM `Mean acceptance length: 3.41`, SGLang `accept len: 3.17`: `accept_len`), `batch 8, input 128,
output 256: 206.32 token/s` summaries, and training step lines (`9134.5 examples/sec;
0.014 sec/batch`). Each figure is a Measurement with its stat (mean/median/p95/p99) and the
concurrency or batch where the output states it. A result also states its completed requests,
output tokens and duration (Measurements), and a Workload on its line (a JSON result's; a text
block's header) marked `result`, with the offered `request_rate` (a number, or "inf") where the output
states one (benchmark_serving.py prints `Traffic request rate` before its progress bar, so a pasted
result block often lacks it); the parser derives nothing from them.

Periodic generation throughput is `decode_tok_s` with `batch` and `concurrency` = the running requests the line
states: it is the decode rate of all running sequences together (SGLang's scheduler divides the tokens every running
request decoded by the interval; vLLM's stats logger likewise counts every running request's tokens:
https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/scheduler.py,
https://github.com/vllm-project/vllm/blob/main/vllm/engine/metrics.py). Each figure's `scope` says whether it counts
every sequence in flight ("aggregate") or one request ("per_stream"), as the format defines it (SCOPES).
"""

from __future__ import annotations

import dataclasses
import json
import re

from diagnose.artifacts.text import lines, number, to_int
from diagnose.evidence import Measurement, Workload, where

KIND = "serving_bench"
MAX_PERIODIC = 400  # per metric and file; a day of logs is thinned evenly, first and last kept

RESULT_HEADER = re.compile(r"=+\s*Serving Benchmark Result\s*=+")
ROW = re.compile(r"^\s*(?P<label>[A-Za-z][^:]*?)\s*:\s+(?P<value>\S+)\s*$")
STAT_ROW = re.compile(r"^(?P<stat>Mean|Median|P\d+(?:\.\d+)?|Std|Max|Min)\s+"
                      r"(?P<what>TTFT|TPOT|ITL|E2E ?Latency|E2EL)\s*\((?P<unit>ms|s)\)", re.I)
TEXT_METRICS = {
    "request throughput": ("request_throughput", "req/s"),
    "output token throughput": ("output_tok_s", "tok/s"),
    "total token throughput": ("total_tok_s", "tok/s"),
    "input token throughput": ("input_tok_s", "tok/s"),
    "peak output token throughput": ("peak_output_tok_s", "tok/s"),
    "benchmark duration": ("duration_s", "s"),
    "successful requests": ("completed_requests", "requests"),
    "total generated tokens": ("output_tokens_total", "tokens"),
}
LATENCY = {"ttft": "ttft_ms", "tpot": "tpot_ms", "itl": "itl_ms", "e2e latency": "e2e_latency_ms",
           "e2elatency": "e2e_latency_ms", "e2el": "e2e_latency_ms"}
JSON_METRICS = {
    "request_throughput": ("request_throughput", "req/s"),
    "output_throughput": ("output_tok_s", "tok/s"),
    "total_token_throughput": ("total_tok_s", "tok/s"),
    "input_throughput": ("input_tok_s", "tok/s"),
}
# Counts a saved result states beside its rates (vLLM benchmark_serving.py's `result` dict): what a
# request's mean output length and the requests in flight are derived from (diagnose.scaling_inputs).
JSON_COUNTS = {
    "completed": ("completed_requests", "requests"),
    "total_output_tokens": ("output_tokens_total", "tokens"),
    "duration": ("duration_s", "s"),
}
JSON_LATENCY = re.compile(r"^(?P<stat>mean|median|std|p\d+(?:\.\d+)?)_(?P<what>ttft|tpot|itl|e2el|e2e_latency)_ms$")
VLLM_PERIODIC = re.compile(
    r"Avg prompt throughput:\s*(?P<prompt>\d+(?:\.\d+)?)\s*tokens/s,\s*"
    r"Avg generation throughput:\s*(?P<gen>\d+(?:\.\d+)?)\s*tokens/s"
    r"(?:,\s*Running:\s*(?P<running>\d+)\s*reqs)?"
)
# Speculative decoding's tokens per verify step, the bonus token included: vLLM's "SpecDecoding metrics: Mean
# acceptance length: 3.41", SGLang's "accept len: 3.17" on its decode line, llama-server's "mean acceptance length =
# 2.92" / "#mean acc len = 2.92". The definition (1 + accepted draft tokens / verify steps):
# https://docs.nvidia.com/aiperf/v0.14.0/reference/per-request-speculative-decoding-acceptance
SPEC_ACCEPT = re.compile(r"(?<![\w-])(?:Mean acceptance length|#?mean acc len|accept len(?:gth)?)\s*[:=]\s*"
                         r"(?P<v>\d+(?:\.\d+)?)", re.I)
# (releases before 2025 end "Decode batch" / "Prefill batch" with a period, later ones with a comma)
SGLANG_PERIODIC = re.compile(r"Decode batch[.,].*?#running-req:\s*(?P<running>\d+).*?"
                             r"gen throughput \(token/s\):\s*(?P<gen>\d+(?:\.\d+)?)")
# SGLang's prefill line: the prompts it admits now (#new-seq), the requests already running, and where the release
# prints it the prompt tokens it prefilled since the last such line over the time between them ("input throughput
# (token/s)", scheduler.log_prefill_stats / scheduler_metrics_mixin.py,
# https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/scheduler.py): every request's, so
# aggregate, at the new and running requests together.
SGLANG_PREFILL = re.compile(r"Prefill batch[.,]\s*#new-seq:\s*(?P<new>\d+).*?#running-req:\s*(?P<running>\d+).*?"
                            r"input throughput \(token/s\):\s*(?P<tok>\d+(?:\.\d+)?)")
BATCH_SUMMARY = re.compile(
    r"batch(?: size)?\s*(?P<batch>\d+),\s*input(?: len)?\s*(?P<input>\d+),\s*output(?: len)?\s*(?P<output>\d+)"
    r"\s*:\s*\**\s*"
    r"(?P<value>\d+(?:\.\d+)?)\s*(?:token|tok)s?/s", re.I
)
STEP = re.compile(r"(?P<rate>\d+(?:\.\d+)?)\s*(?:examples|samples|images)/sec"
                  r"(?:;\s*(?P<sec>\d+(?:\.\d+)?)\s*sec/batch)?")
CONCURRENCY = re.compile(r"^\s*Max(?:imum)? re\w+ concurrency:\s*(?P<v>\S+)", re.I)
RATE = re.compile(r"^\s*Traffic request rate:\s*(?P<v>\S+)", re.I)  # before the result block (vLLM) or in it (SGLang)
# TensorRT-LLM's trtllm-bench (https://nvidia.github.io/TensorRT-LLM/performance/perf-benchmarking.html): a
# "PERFORMANCE OVERVIEW" block of "Label (unit):   value" rows, the concurrency in its REQUEST DETAILS above it.
TRTLLM_HEADER = re.compile(r"^=*\s*PERFORMANCE OVERVIEW\s*$", re.I)
TRTLLM_CONCURRENCY = re.compile(r"^\s*Number of concurrent requests:\s*(?P<v>\d+(?:\.\d+)?)", re.I)
TRTLLM_ROWS = {
    "request throughput": ("request_throughput", "req/s", None, 1.0),
    "total output throughput": ("output_tok_s", "tok/s", None, 1.0),
    "total token throughput": ("total_tok_s", "tok/s", None, 1.0),
    "per user output throughput": ("request_tok_s", "tok/s", None, 1.0),  # one request's output rate
    "per gpu output throughput": ("output_tok_s_per_gpu", "tok/s", None, 1.0),
    "average request latency": ("e2e_latency_ms", "ms", "mean", 1.0),
    "average time-to-first-token": ("ttft_ms", "ms", "mean", 1.0),
    "average time-per-output-token": ("tpot_ms", "ms", "mean", 1.0),
}
# The first serving benchmarks' summary (vLLM's benchmark_serving.py before its result block, LightLLM's copy):
# "Throughput: 5.99 requests/s" then "Average latency: 67.59 s"; vLLM's benchmark_throughput.py prints
# "Throughput: 3.28 requests/s, 1414.42 total tokens/s, 714.48 output tokens/s" on one line.
OLD_THROUGHPUT = re.compile(r"^\s*Throughput:\s*(?P<req>\d+(?:\.\d+)?)\s*requests?/s"
                            r"(?:,\s*(?P<total>\d+(?:\.\d+)?)\s*(?:total\s+)?tokens?/s)?"
                            r"(?:,\s*(?P<out>\d+(?:\.\d+)?)\s*output\s+tokens?/s)?", re.I)
OLD_LATENCY = re.compile(r"^\s*Average latency:\s*(?P<v>\d+(?:\.\d+)?)\s*s\s*$", re.I)
# vLLM's benchmark_serving.py of early 2024 (v0.3.x, and the forks that copied it) printed its result without the
# "Serving Benchmark Result" frame, each unit after its figure: "Successful requests: 100", "Benchmark duration:
# 29.52 s", "Request throughput: 3.39 requests/s", "Mean TTFT: 119.86 ms" ... "P99 TPOT: 98.98 ms"
# (https://github.com/vllm-project/vllm/blob/v0.3.3/benchmarks/benchmark_serving.py, benchmark()); pasted in an
# issue's prose it may carry a Markdown quote mark ("> ").
OLD_RESULT_START = re.compile(r"^\s*(?:>\s*)?Successful requests:\s*\d+\s*$", re.I)
OLD_RESULT_ROW = re.compile(r"^\s*(?:>\s*)?(?P<label>[A-Za-z][A-Za-z0-9 ]*?):\s*(?P<v>\d+(?:\.\d+)?)\s*"
                            r"(?P<unit>ms|s|requests?/s|tokens?/s)?\s*$", re.I)
OLD_RESULT_LATENCY = re.compile(r"^[^\S\n]*(?:>\s*)?(?:Mean|Median|P\d+)\s+(?:TTFT|TPOT|ITL):\s*\d", re.I | re.M)
# The same rows pasted without the "==== Serving Benchmark Result ====" banner and its closing line (a paste cut at the
# rows, quoted with "> " in an issue's prose): UNFRAMED_RUN rows the block names (_result_row reads them) in a run of
# lines, blank lines and its own section rulers ("-----Time to First Token-----") between them, start a block.
SECTION_RULE = re.compile(r"^\s*-{3,}.*?-{3,}\s*$|^\s*$")
UNFRAMED_RUN = 3


# A row the reporter set in bold to point at it, or listed as a Markdown bullet: "**Request throughput (req/s):
# 8.41**" (vllm-project/vllm#5316), "- **Output token throughput (tok/s):** 253.06", or commented out in a script
# ("# Mean TPOT (ms):   70.14"). The emphasis, the bullet and the comment mark are no part of the row's label or
# figure.
_BULLET = re.compile(r"^\s*(?:[-*+]|#+)\s+(?=\S)")
_EMPHASIS = re.compile(r"\*\*|__")


def _unquoted(line: str) -> str:
    """The row without a block quote's '> ', a list bullet or comment mark, or Markdown bold."""
    return _EMPHASIS.sub("", _BULLET.sub("", re.sub(r"^\s*>\s?", "", line)))


def result_row(line: str, src: str) -> Measurement | None:
    """The figure of one result-block row quoted on its own ("Output token throughput (tok/s): 471.2", "Mean TPOT
    (ms): 12.5"), with the metric its label names and its scope (SCOPES); None for any other line."""
    m = ROW.match(_unquoted(line))
    row = _result_row(m.group("label"), m.group("value"), src, None) if m else None
    return dataclasses.replace(row, scope=SCOPES.get(row.metric)) if row else None


def _result_label(line: str) -> bool:
    """Is the line a row of the serving benchmarks' result block that _result_row reads?"""
    m = ROW.match(_unquoted(line))
    return m is not None and _result_row(m.group("label"), m.group("value"), "", None) is not None


def _unframed_starts(text: str) -> set[int]:
    """Line numbers where a result block printed without its frame starts: the first of UNFRAMED_RUN or more rows
    _result_row reads, with only other rows, blank lines and section rulers between them, outside any frame."""
    starts: set[int] = set()
    run: list[int] = []
    framed = False
    for n, line in lines(text):
        if RESULT_HEADER.search(line):
            framed = True
        elif framed and re.fullmatch(r"\s*=+\s*", line):
            framed = False
            continue
        if framed:
            continue
        if _result_label(line):
            run.append(n)
        elif not (SECTION_RULE.match(_unquoted(line)) or ROW.match(_unquoted(line))):
            if len(run) >= UNFRAMED_RUN:
                starts.add(run[0])
            run = []
    if len(run) >= UNFRAMED_RUN:
        starts.add(run[0])
    return starts


# LMDeploy's benchmark/profile_restful_api.py and profile_throughput.py summary
# (https://lmdeploy.readthedocs.io/en/latest/benchmark/profile_api_server.html).
LMDEPLOY_CONCURRENCY = re.compile(r"^\s*concurrency:\s*(?P<v>\d+)\b", re.I)
LMDEPLOY_ROWS = re.compile(
    r"^\s*(?:(?P<out>token throughput \(completion token\))|(?P<total>token throughput \(prompt \+ completion token\))|"
    r"(?P<rps>RPS \(request per second\))):\s*(?P<v>\d+(?:\.\d+)?)", re.I)
LMDEPLOY_TTFT = re.compile(r"^\s*first[ _]token latency(?:\(s\))?\s*\(min, max, ave\):\s*[\d.]+s?,\s*[\d.]+s?,\s*"
                           r"(?P<v>\d+(?:\.\d+)?)s?", re.I)
# ... and the table its --csv option writes, pasted as CSV or as a markdown table (InternLM/lmdeploy#815's):
# "batch,num_prompts,RPS,RPM,FTL(ave)(s),FTL(min)(s),FTL(max)(s)[,50%(s),...],throughput(out tok/s),throughput(total
# tok/s)", one row per run. `batch` is the run's --concurrency (the requests kept in flight, at most num_prompts), so
# the throughputs are every request's together. profile_generation.py's table (no RPS column) counts one session's
# rate and is not read.
LMDEPLOY_TABLE_HEAD = re.compile(r"^\s*(?:\|\s*)?(?:\w+\s*[,|]\s*)?batch\s*[,|].*\bRPS\b.*"
                                 r"throughput\s*\(\s*out tok/s\s*\)", re.I)
LMDEPLOY_COLUMNS = {"batch": None, "rps": ("request_throughput", "req/s", 1.0),
                    "throughput(outtok/s)": ("output_tok_s", "tok/s", 1.0),
                    "throughput(totaltok/s)": ("total_tok_s", "tok/s", 1.0), "ftl(ave)(s)": ("ttft_ms", "ms", 1e3)}
# vLLM's offline LLM.generate progress bar: the run's input and output token rates over every prompt.
VLLM_OFFLINE = re.compile(r"Processed prompts:\s*100%.*?est\. speed input:\s*(?P<inp>\d+(?:\.\d+)?)\s*toks/s,\s*"
                          r"output:\s*(?P<out>\d+(?:\.\d+)?)\s*toks/s")
# Triton's perf_analyzer summary (https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/
# perf_analyzer/README.html): one line per concurrency.
PERF_ANALYZER = re.compile(r"^\s*Concurrency:\s*(?P<c>\d+),\s*throughput:\s*(?P<t>\d+(?:\.\d+)?)\s*infer/sec,\s*"
                           r"latency\s*(?P<l>\d+(?:\.\d+)?)\s*usec", re.I)

# genai-perf's and AIPerf's console table ("LLM Metrics"): a header row of statistics ("┃ Statistic ┃ avg ┃ min ┃ ...",
# AIPerf: "┃ Metric ┃ avg ┃ ...") and one row per metric ("│ Inter token latency (ms) │ 1.85 │ ..."), the unit in the
# label, a long label wrapped onto the next row ("Output Token Throughput Per User" / "(tokens/sec/user)"), counts
# with thousands separators. Metric names and units: https://docs.nvidia.com/aiperf/reference/ai-perf-metrics-reference
# and genai-perf's README (https://github.com/triton-inference-server/perf_analyzer/tree/main/genai-perf).
GENAI_ROW = re.compile(r"^\s*[│┃|]\s*(?P<label>[^│┃|]*?)\s*[│┃|](?P<cells>(?:[^│┃|]*[│┃|])+)\s*$")
GENAI_STATS = {"avg": "mean", "mean": "mean", "p50": "median", "median": "median", "p90": "p90", "p95": "p95",
               "p99": "p99"}
# label (lower case, unit dropped) -> metric, and whether it is a latency (its unit in the label) or a rate
GENAI_METRICS = {
    "time to first token": ("ttft_ms", "latency"),
    "inter token latency": ("itl_ms", "latency"),
    "request latency": ("e2e_latency_ms", "latency"),
    "output token throughput": ("output_tok_s", "tok/s"),
    "output token throughput per user": ("request_tok_s", "tok/s"),  # one request's output rate (AIPerf)
    "output token throughput per request": ("request_tok_s", "tok/s"),  # the same (genai-perf)
    "request throughput": ("request_throughput", "req/s"),
}
_TO_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "sec": 1e3}


# What each figure these formats print counts, by their own definitions: token and request throughputs are over
# every request in flight (vLLM's benchmark_serving divides all output tokens by the run's duration; trtllm-bench's
# "Total Output Throughput"; the "batch 8, input 128, output 256: N token/s" summaries of vLLM's and TensorRT-LLM's
# throughput benchmarks), the per-token latencies and TTFT are one request's (averaged over requests), as is
# trtllm-bench's "Per User Output Throughput".
SCOPES = {
    "decode_tok_s": "aggregate", "output_tok_s": "aggregate", "total_tok_s": "aggregate", "input_tok_s": "aggregate",
    "peak_output_tok_s": "aggregate", "prefill_tok_s": "aggregate", "request_throughput": "aggregate",
    "output_tok_s_per_gpu": "aggregate",
    "tpot_ms": "per_stream", "itl_ms": "per_stream", "ttft_ms": "per_stream", "e2e_latency_ms": "per_stream",
    "request_tok_s": "per_stream",
}


def detect(text: str) -> float:
    head = text[:300_000]
    if RESULT_HEADER.search(head) or any(p.search(head) for p in (VLLM_PERIODIC, SGLANG_PERIODIC, SGLANG_PREFILL)):
        return 0.9
    if _json_results(head[:100_000]):
        return 0.9
    if any(p.search(line) for line in head.splitlines()[:4000]
           for p in (TRTLLM_HEADER, OLD_THROUGHPUT, LMDEPLOY_ROWS, LMDEPLOY_TABLE_HEAD, VLLM_OFFLINE,
                     PERF_ANALYZER)):
        return 0.8
    if any(OLD_RESULT_START.match(line) for line in head.splitlines()[:4000]) and OLD_RESULT_LATENCY.search(head):
        return 0.8
    if _genai_table(head) or _unframed_starts(head[:100_000]):
        return 0.8
    if BATCH_SUMMARY.search(head) or len(STEP.findall(head, 0, 20_000)) >= 2 or SPEC_ACCEPT.search(head):
        return 0.7
    return 0.0


def _genai_table(text: str) -> bool:
    """A genai-perf / AIPerf table: its statistics header and a metric row it names."""
    state: dict = {}
    rows = (_genai_row(line, "", state) for line in text.splitlines()[:4000] if "│" in line or "┃" in line)
    return any(rows) or bool(_genai_flush(state))


def parse(text: str, name: str) -> list:
    """The figures the text states, each with its scope (SCOPES) where the format defines it."""
    return [dataclasses.replace(m, scope=SCOPES.get(m.metric)) if isinstance(m, Measurement) else m
            for m in _parse(text, name)]


def _parse(text: str, name: str) -> list:
    results = _json_results(text)
    if results:
        return _from_json(results, text, name)
    out: list = []
    in_result = False
    concurrency: int | None = None
    rate: float | str | None = None
    header = 0  # the line of the result block being read
    periodic: dict[str, list] = {}
    state: dict = {}  # the other summaries' context: their concurrency, whether a trtllm-bench block is open
    unframed = _unframed_starts(text)
    for n, line in lines(text):
        src = where(name, n)
        if n in unframed and not in_result:  # a block pasted without its banner: read as the framed one
            in_result, header, state["unframed"] = True, n, True
        if state.get("unframed") and in_result and not (ROW.match(_unquoted(line)) or
                                                         SECTION_RULE.match(_unquoted(line))):
            in_result = state["unframed"] = False  # its end: the first line that is neither a row nor a ruler
            out.extend(_result_workload(name, header, rate, concurrency))
            concurrency = rate = None
        if GENAI_ROW.match(line) is None:  # a genai-perf table's end: its last row is complete
            out.extend(_genai_flush(state))
        if (m := CONCURRENCY.search(line)) is not None:
            concurrency = to_int(m.group("v"))
        if (m := RATE.search(line)) is not None:
            rate = _request_rate(m.group("v"))
        if RESULT_HEADER.search(line):
            in_result, header = True, n
            continue
        if in_result and re.fullmatch(r"\s*=+\s*", line):
            in_result = False
            out.extend(_result_workload(name, header, rate, concurrency))
            concurrency = rate = None  # each run prints its own: a later block without them must not inherit them
            continue
        if in_result and (m := ROW.match(_unquoted(line))) is not None:
            record = _result_row(m.group("label"), m.group("value"), src, concurrency)
            if record is not None:
                out.append(record)
            continue
        if not in_result and OLD_RESULT_START.match(line):
            state["old_result"] = True
            out.extend(_result_workload(name, n, rate, concurrency))
            concurrency = rate = None
        if state.get("old_result"):
            if (m := OLD_RESULT_ROW.match(line)) is not None:
                record = _old_result_row(m, src)
                if record is not None:
                    out.append(record)
                continue
            state["old_result"] = bool(not line.strip() or re.fullmatch(r"\s*>\s*", line))  # a blank line inside
        other = _summary_line(line, src, state)
        if other is not None:
            out.extend(other)
            continue
        if (m := SPEC_ACCEPT.search(line)) is not None:
            periodic.setdefault("accept", []).append(Measurement(src, "accept_len", float(m.group("v")), "tok/step"))
        if (m := VLLM_PERIODIC.search(line)) is not None:
            running = to_int(m.group("running"))
            periodic.setdefault("decode", []).append(
                Measurement(src, "decode_tok_s", float(m.group("gen")), "tok/s", batch=running, concurrency=running))
            if float(m.group("prompt")) > 0:
                periodic.setdefault("prefill", []).append(
                    Measurement(src, "prefill_tok_s", float(m.group("prompt")), "tok/s"))
            continue
        if (m := SGLANG_PERIODIC.search(line)) is not None:
            periodic.setdefault("decode", []).append(
                Measurement(src, "decode_tok_s", float(m.group("gen")), "tok/s", batch=int(m.group("running")),
                            concurrency=int(m.group("running"))))
            continue
        if (m := SGLANG_PREFILL.search(line)) is not None:
            load = int(m.group("new")) + int(m.group("running"))
            periodic.setdefault("prefill", []).append(
                Measurement(src, "prefill_tok_s", float(m.group("tok")), "tok/s", concurrency=load))
            continue
        if (m := BATCH_SUMMARY.search(line)) is not None:
            # One run of several: the batch goes on the figure, not on the ticket's Workload.
            out.append(Measurement(src, "output_tok_s", float(m.group("value")), "tok/s", batch=int(m.group("batch"))))
            continue
        if (m := STEP.search(line)) is not None:
            periodic.setdefault("samples", []).append(
                Measurement(src, "samples_s", float(m.group("rate")), "samples/s"))
            if m.group("sec"):
                periodic.setdefault("step", []).append(Measurement(src, "step_ms", float(m.group("sec")) * 1e3, "ms"))
    if in_result:  # a block cut off before its closing line
        out.extend(_result_workload(name, header, rate, concurrency))
    out.extend(_genai_flush(state))
    for series in periodic.values():
        out.extend(_thin(series))
    return out


def _summary_line(line: str, src: str, state: dict) -> list | None:
    """The figures one line of the other benchmarks' summaries states (None: not such a line). `state` carries
    what an earlier line said: the concurrency a block runs at, and whether a trtllm-bench overview is open."""
    if (m := PERF_ANALYZER.search(line)) is not None:
        c = int(m.group("c"))
        return [Measurement(src, "request_throughput", float(m.group("t")), "req/s", concurrency=c),
                Measurement(src, "e2e_latency_ms", float(m.group("l")) / 1e3, "ms", stat="mean", concurrency=c)]
    if (m := TRTLLM_CONCURRENCY.search(line)) is not None:
        state["concurrency"] = int(float(m.group("v")))
        return []
    if (m := LMDEPLOY_CONCURRENCY.search(line)) is not None:
        state["concurrency"] = int(m.group("v"))
        return []
    if TRTLLM_HEADER.search(line):
        state["trtllm"] = True
        return []
    concurrency = state.get("concurrency")
    if state.get("trtllm") and (m := ROW.match(line)) is not None:
        key = re.sub(r"\s*[\[(].*$", "", m.group("label")).strip().lower()
        v = number(m.group("value"))
        if key in TRTLLM_ROWS and v is not None:
            metric, unit, stat, scale = TRTLLM_ROWS[key]
            return [Measurement(src, metric, v * scale, unit, stat=stat, concurrency=concurrency)]
        return None
    if (m := OLD_THROUGHPUT.search(line)) is not None:
        out = [Measurement(src, "request_throughput", float(m.group("req")), "req/s", concurrency=concurrency)]
        if m.group("total"):
            out.append(Measurement(src, "total_tok_s", float(m.group("total")), "tok/s", concurrency=concurrency))
        if m.group("out"):
            out.append(Measurement(src, "output_tok_s", float(m.group("out")), "tok/s", concurrency=concurrency))
        return out
    if (m := OLD_LATENCY.search(line)) is not None:
        return [Measurement(src, "e2e_latency_ms", float(m.group("v")) * 1e3, "ms", stat="mean")]
    if (m := LMDEPLOY_ROWS.search(line)) is not None:
        metric, unit = (("output_tok_s", "tok/s") if m.group("out") else ("total_tok_s", "tok/s") if m.group("total")
                        else ("request_throughput", "req/s"))
        return [Measurement(src, metric, float(m.group("v")), unit, concurrency=concurrency)]
    if LMDEPLOY_TABLE_HEAD.match(line):
        state["lmdeploy_table"] = _cells(line)
        return []
    if state.get("lmdeploy_table"):
        row = _lmdeploy_row(line, src, state["lmdeploy_table"])
        if row is not None:
            return row
        state["lmdeploy_table"] = None
    if (m := LMDEPLOY_TTFT.search(line)) is not None:
        return [Measurement(src, "ttft_ms", float(m.group("v")) * 1e3, "ms", stat="mean", concurrency=concurrency)]
    if (m := VLLM_OFFLINE.search(line)) is not None:
        return [Measurement(src, "output_tok_s", float(m.group("out")), "tok/s")]
    return _genai_row(line, src, state)


def _cells(line: str) -> list[str]:
    """The cells of a CSV or markdown table row, stripped (a markdown row's outer bars dropped)."""
    sep = "|" if "|" in line else ","
    return [c.strip() for c in line.strip().strip("|").split(sep)]


def _lmdeploy_row(line: str, src: str, head: list[str]) -> list | None:
    """One run of LMDeploy's table (LMDEPLOY_TABLE_HEAD): its figures at its batch; [] for a markdown ruler row,
    None for a line that is no row of the table (its end)."""
    cells = _cells(line)
    if len(cells) != len(head):
        return None
    if all(re.fullmatch(r":?-+:?", c) for c in cells):
        return []
    named = {h.lower().replace(" ", ""): c for h, c in zip(head, cells)}
    batch = to_int(named.get("batch", ""))
    if batch is None:
        return None
    sent = to_int(named.get("num_prompts", named.get("num_promts", "")))  # (the script's own header misspells it)
    batch = min(batch, sent) if sent else batch  # no more requests in flight than the run sends
    out = []
    for key, spec in LMDEPLOY_COLUMNS.items():
        v = number(named.get(key, ""))
        if spec is not None and v is not None:
            metric, unit, scale = spec
            out.append(Measurement(src, metric, v * scale, unit, stat="mean" if metric == "ttft_ms" else None,
                                   concurrency=batch))
    return out


def _genai_row(line: str, src: str, state: dict) -> list | None:
    """A genai-perf / AIPerf table row (GENAI_ROW): the header's statistics are kept in `state`. Rich wraps a long
    label over the rows below its figures ("Time to First Token" / "(ms)", "Output Token" / "Throughput" /
    "(tokens/sec)"), so a row with figures is held until the next one, or the table's end (_genai_flush), and read
    with its whole label; None for any other line."""
    m = GENAI_ROW.match(line)
    if m is None:
        return None
    label = m.group("label").strip()
    cells = [c.strip() for c in re.split(r"[│┃|]", m.group("cells"))[:-1]]
    if label.lower() in ("statistic", "metric") and cells and cells[0].lower() in GENAI_STATS:
        out = _genai_flush(state)
        state["genai"] = [GENAI_STATS.get(c.lower()) for c in cells]
        return out
    if not state.get("genai"):
        return None
    if not any(cells):  # the rest of a wrapped label
        if state.get("genai_row"):
            state["genai_row"][1].append(label)
        return []
    out = _genai_flush(state)
    state["genai_row"] = (src, [label], cells)
    return out


def _genai_flush(state: dict) -> list:
    """The figures of the held genai-perf row (_genai_row), read with its whole label: a latency without a unit
    is dropped (genai-perf prints ns, AIPerf ms: no unit can be assumed)."""
    held = state.pop("genai_row", None)
    if held is None:
        return []
    src, parts, cells = held
    label = " ".join(p for p in parts if p)
    unit = re.search(r"\(([^)]*)\)\s*$", label)
    name = re.sub(r"\s*\([^)]*\)\s*$", "", label).strip().lower()
    if name not in GENAI_METRICS:
        return []
    metric, kind = GENAI_METRICS[name]
    scale = 1.0
    if kind == "latency":
        scale = _TO_MS.get(unit.group(1).strip().lower()) if unit else None
        if scale is None:
            return []
    out = []
    for stat, cell in zip(state["genai"], cells):
        v = number(cell)
        # a rate's own figure is its average (the run's, or one request's mean); its percentiles over requests are
        # no rate the run held
        if stat is None or v is None or (kind != "latency" and stat != "mean"):
            continue
        out.append(Measurement(src, metric, round(v * scale, 6), "ms" if kind == "latency" else kind,
                               stat=stat if kind == "latency" else None))
    return out


def _result_workload(name: str, header: int, rate, concurrency: int | None) -> list:
    """A Workload on a text result's header line, stating its request rate and concurrency (where
    printed): diagnose.scaling_inputs groups the block's figures by it, as it does a JSON result's,
    whether or not the block printed its rate."""
    return [Workload(where(name, header), concurrency=concurrency, extra=_result_extra(rate))]


def _result_extra(rate) -> dict:
    """A benchmark result's Workload extras: `result` marks it as one run's block, `request_rate` is
    set only where the output states it (an unstated rate is not assumed)."""
    return {"result": True, **({"request_rate": rate} if rate is not None else {})}


def _result_row(label: str, value: str, src: str, concurrency: int | None) -> Measurement | None:
    v = number(value)
    if v is None:
        return None
    if (m := STAT_ROW.match(label.strip())) is not None:
        metric = LATENCY[m.group("what").lower()]
        stat = m.group("stat").lower()
        scale = 1e3 if m.group("unit").lower() == "s" else 1.0
        return Measurement(src, metric, v * scale, "ms", stat=stat, concurrency=concurrency)
    if "retokenized" in label.lower():  # SGLang's second count of the same tokens
        return None
    key = re.sub(r"\s*\(.*\)\s*$", "", label).strip().lower()
    if key in TEXT_METRICS:
        metric, unit = TEXT_METRICS[key]
        return Measurement(src, metric, v, unit, concurrency=concurrency)
    return None


def _old_result_row(m: re.Match, src: str) -> Measurement | None:
    """A row of the frameless early benchmark_serving.py result (OLD_RESULT_ROW), read as the framed block's row
    of the same name: its latencies' unit moved into the label ("Mean TTFT: 119.86 ms" is "Mean TTFT (ms)")."""
    label, unit = m.group("label").strip(), (m.group("unit") or "").lower()
    if STAT_ROW.match(f"{label} ({unit})"):
        return _result_row(f"{label} ({unit})", m.group("v"), src, None)
    return _result_row(label, m.group("v"), src, None)


def _json_results(text: str) -> list[tuple[dict, int | None]]:
    """Benchmark result objects with the line each stands on: one JSON document (None: each key
    is found on its own line), or JSON lines (vLLM --append-result and SGLang add one per run)."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return []
    docs: list = []
    try:
        doc = json.loads(stripped)
        docs = [(d, None) for d in (doc if isinstance(doc, list) else [doc])]
    except ValueError:
        for n, line in enumerate(text.splitlines(), start=1):
            try:
                docs.append((json.loads(line), n))
            except ValueError:
                continue
    return [(d, n) for d, n in docs if isinstance(d, dict) and _looks_like_result(d)]


def _looks_like_result(doc: dict) -> bool:
    return any(k in doc for k in JSON_METRICS) or any(JSON_LATENCY.match(str(k)) for k in doc)


def _from_json(results: list[tuple[dict, int | None]], text: str, name: str) -> list:
    out: list = []
    text_lines = text.splitlines()
    for doc, line in results:
        concurrency = to_int(doc.get("max_concurrency"))
        tp = to_int(doc.get("tensor_parallel_size") or doc.get("tp") or doc.get("tp_size"))
        for key, value in doc.items():
            v = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
            if v is None:
                continue
            src = where(name, line or _line_of(text_lines, key))
            if key in JSON_METRICS or key in JSON_COUNTS:
                metric, unit = JSON_METRICS.get(key) or JSON_COUNTS[key]
                out.append(Measurement(src, metric, float(v), unit, concurrency=concurrency, tp=tp))
            elif (m := JSON_LATENCY.match(key)) is not None:
                metric = LATENCY.get(m.group("what").replace("_", " "), f"{m.group('what')}_ms")
                out.append(Measurement(src, metric, float(v), "ms", stat=m.group("stat"), concurrency=concurrency,
                                       tp=tp))
        model = doc.get("model_id") or doc.get("model")
        rate = _request_rate(doc.get("request_rate"))
        # one per result, on the result's line: diagnose.scaling_inputs groups a result's figures by it
        out.append(Workload(where(name, line or _line_of(text_lines, "model_id") or 1),
                            model=model if isinstance(model, str) else None,
                            tp=tp, concurrency=concurrency, framework=_backend(doc.get("backend")),
                            extra=_result_extra(rate)))
    return out


def _request_rate(value) -> float | str | None:
    """The offered request rate (req/s) as saved: a number, or "inf" when every request was sent at
    once (benchmark_serving.py writes the string "inf" for float("inf"))."""
    if str(value).strip().lower() in ("inf", "infinity"):
        return "inf"
    v = number(str(value)) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else None
    return v if v is not None and v > 0 else None


def _backend(value) -> str | None:
    if not isinstance(value, str):
        return None
    return {"vllm": "vLLM", "sglang": "SGLang", "openai": None, "tgi": "TGI",
            "trt": "TensorRT-LLM"}.get(value.lower(), value)


def _line_of(text_lines: list[str], key: str) -> int | None:
    needle = f'"{key}"'
    for i, line in enumerate(text_lines, start=1):
        if needle in line:
            return i
    return None


def _thin(series: list) -> list:
    if len(series) <= MAX_PERIODIC:
        return series
    step = (len(series) - 1) / (MAX_PERIODIC - 1)
    return [series[round(i * step)] for i in range(MAX_PERIODIC)]
