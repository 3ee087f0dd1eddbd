"""Fixed-batch latency benchmarks: what one batch of prompts took from prompt to last token, as the tool printed it.

These tools run B prompts of I tokens to O output tokens together, with no server and no arrival process, and print
the batch's latency and the token rates derived from it:

- TensorRT-LLM's `benchmarks/python/benchmark.py` and `benchmarks/cpp/gptSessionBenchmark`: one line of `key value`
  pairs, `[BENCHMARK] [model_name M world_size N ...] batch_size B input_length I output_length O latency(ms) L
  [tokensPerSec T | tokens_per_sec T] [generation_time(ms) G generationTokensPerSec | generation_tokens_per_second]
  [percentile95(ms) percentile99(ms)] ...` (the field set grew by release: benchmarks/cpp/gptSessionBenchmark.cpp and
  benchmarks/python/benchmark.py of v0.5 to v0.11, https://github.com/NVIDIA/TensorRT-LLM/tree/v0.11.0/benchmarks).
  tokensPerSec = B * O / latency and generationTokensPerSec = B * O / generation time (the same source;
  NVIDIA/TensorRT-LLM#1410): every sequence of the batch together. bertBenchmark's line (no output_length) is an
  encoder's and not read.
- TensorRT-LLM's `gptManagerBenchmark`: one `[BENCHMARK] key value` per line (`total_latency(ms)`,
  `seq_throughput(seq/sec)`, `token_throughput(token/sec)` = every request's output tokens / total latency,
  `avg_sequence_latency(ms)`, and in later releases `pNN_sequence_latency(ms)`, `..._time_to_first_token(ms)`,
  `..._inter_token_latency(ms)`: benchmarks/cpp/gptManagerBenchmark.cpp, Recorder::report).
- SGLang's `bench_one_batch` (earlier `bench_latency`): `Prefill. latency: X s, throughput: Y token/s` (I * B / X),
  `Decode.  median latency: X s, median throughput: Y token/s` (B / X: one decode step makes one token of each of the
  B sequences), `Total. latency: X s, throughput: Y token/s` ((I + O) * B / X), with `Decode N. Batch size: B` step
  lines between them in later releases; the figures between `Warmup ...` and `Benchmark ...` are the warm-up's
  (python/sglang/bench_one_batch.py, latency_test_run_once, https://github.com/sgl-project/sglang).
- Hugging Face TGI's `text-generation-benchmark` result tables (benchmark/src/table.rs and generation.rs,
  https://github.com/huggingface/text-generation-inference/tree/main/benchmark/src): a latency table (`| Step | Batch
  Size | Average | Lowest | Highest | p50 | p90 | p99 |`, Markdown style, a cell equal to the one above left blank)
  with `Prefill` (the batch's prefill call: each sequence's first token), `Decode (token)` (the decode time over its
  steps: one token of each sequence per step) and `Decode (total)`, and a throughput table whose `Decode` rows are
  B * steps / decode time: every sequence's tokens together. Its `Prefill` throughput is B / prefill latency
  (prompts, not prompt tokens, per second) and is not read; nor are Lowest and Highest (one run each). The
  parameters table states the lengths (`Sequence Length`, `Decode Length`).
- vLLM's `benchmarks/benchmark_latency.py` / `vllm bench latency`: `Avg latency: X seconds` and `N% percentile
  latency: X seconds` over iterations, each the time of one `generate` call on the whole batch
  (https://github.com/vllm-project/vllm/blob/main/vllm/benchmarks/latency.py).

Each figure is a Measurement with its statistic and its batch where the output (or, for vLLM and SGLang, the
command line or argument echo `diagnose.artifacts.launch` reads in the same paste) states one, and its scope as
`serving_bench.SCOPES` defines the metric. The lengths and GPU count a TensorRT-LLM line states go on a Workload on
that line. The parser derives nothing.
"""

from __future__ import annotations

import dataclasses
import re

from diagnose.artifacts import launch
from diagnose.artifacts.serving_bench import SCOPES
from diagnose.artifacts.text import lines, number, to_int
from diagnose.evidence import Measurement, Workload, where

KIND = "batch_bench"

# "[BENCHMARK]" (escaped "\[BENCHMARK\]" where a Markdown editor added the backslashes), then key value pairs
TRT_LINE = re.compile(r"\\?\[BENCHMARK\\?\]\s+(?P<pairs>\S.*)$")
# key -> (metric, unit, stat, scale to the unit)
TRT_KEYS = {
    "latency(ms)": ("e2e_latency_ms", "ms", "mean", 1.0),  # the mean over the benchmark's iterations
    "percentile95(ms)": ("e2e_latency_ms", "ms", "p95", 1.0),
    "percentile99(ms)": ("e2e_latency_ms", "ms", "p99", 1.0),
    "tokensPerSec": ("output_tok_s", "tok/s", None, 1.0),
    "tokens_per_sec": ("output_tok_s", "tok/s", None, 1.0),
    "generationTokensPerSec": ("decode_tok_s", "tok/s", None, 1.0),
    "generation_tokens_per_second": ("decode_tok_s", "tok/s", None, 1.0),
    "total_latency(ms)": ("duration_s", "s", None, 1e-3),
    "seq_throughput(seq/sec)": ("request_throughput", "req/s", None, 1.0),
    "token_throughput(token/sec)": ("output_tok_s", "tok/s", None, 1.0),
}
# gptManagerBenchmark's per-request statistics: avg / p50 / p90 / p99 (max and min are single requests, not read)
TRT_STAT_KEY = re.compile(r"^(?P<stat>avg|p\d+)_(?P<what>sequence_latency|time_to_first_token|inter_token_latency)"
                          r"\(ms\)$")
TRT_STAT_METRICS = {"sequence_latency": "e2e_latency_ms", "time_to_first_token": "ttft_ms",
                    "inter_token_latency": "itl_ms"}

_SECONDS = {"s": 1e3, "ms": 1.0}
SGLANG_PREFILL = re.compile(r"^\s*Prefill\.\s+latency:\s*(?P<lat>\d+(?:\.\d+)?)\s*(?P<unit>m?s),\s*"
                            r"throughput:\s*(?P<tok>\d+(?:\.\d+)?)\s*token/s")
SGLANG_DECODE = re.compile(r"^\s*Decode\.\s+median latency:\s*(?P<lat>\d+(?:\.\d+)?)\s*(?P<unit>m?s),\s*"
                           r"median throughput:\s*(?P<tok>\d+(?:\.\d+)?)\s*token/s")
SGLANG_TOTAL = re.compile(r"^\s*Total\.\s+latency:\s*(?P<lat>\d+(?:\.\d+)?)\s*(?P<unit>m?s),\s*"
                          r"throughput:\s*(?P<tok>\d+(?:\.\d+)?)\s*token/s")
SGLANG_STEP = re.compile(r"^\s*Decode\s+\d+\.\s+Batch size:\s*(?P<b>\d+),")
SGLANG_WARMUP = re.compile(r"^\s*Warmup\s*\.\.\.\s*$")
SGLANG_BENCHMARK = re.compile(r"^\s*Benchmark\s*\.\.\.\s*$")

TGI_HEAD = re.compile(r"^\s*\|\s*Step\s*\|\s*Batch Size\s*\|\s*Average\s*\|", re.I)
TGI_PARAMETERS = re.compile(r"^\s*\|\s*Parameter\s*\|\s*Value\s*\|", re.I)
TGI_LENGTH = re.compile(r"^\s*\|\s*(?P<what>Sequence|Decode) Length\s*\|\s*(?P<n>\d+)\s*\|", re.I)
# step -> the metric its latency row is; the throughput table's Decode row is decode_tok_s
TGI_LATENCY_STEPS = {"prefill": "ttft_ms", "decode (token)": "itl_ms"}
TGI_STATS = {"average": "mean", "p50": "median", "p90": "p90", "p99": "p99"}
TGI_CELL = re.compile(r"(?P<v>\d+(?:\.\d+)?)\s*(?P<unit>ms|tokens/secs)")

VLLM_AVG = re.compile(r"^\s*Avg latency:\s*(?P<v>\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*seconds\s*$", re.I)
VLLM_PERCENTILE = re.compile(r"^\s*(?P<p>\d{1,2})% percentile latency:\s*(?P<v>\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*"
                             r"seconds\s*$", re.I)


def detect(text: str) -> float:
    head = text[:300_000].splitlines()[:6000]
    for line in head:
        m = TRT_LINE.search(line)
        if m is not None and _trt_figures(_pairs(m.group("pairs")), "", None):
            return 0.8
        if SGLANG_PREFILL.search(line) or SGLANG_DECODE.search(line) or SGLANG_TOTAL.search(line) or \
                VLLM_AVG.search(line) or TGI_HEAD.search(line):
            return 0.8
    return 0.0


def parse(text: str, name: str) -> list:
    """The figures the text states, each with its scope (serving_bench.SCOPES)."""
    out = _parse(text, name)
    return [dataclasses.replace(m, scope=SCOPES.get(m.metric)) if isinstance(m, Measurement) else m for m in out]


def _parse(text: str, name: str) -> list:
    out: list = []
    stated = _stated_batches(text, name)
    warmup = False
    run: list[Measurement] = []  # an SGLang run's figures, waiting for the batch its step lines state
    step_batch: int | None = None
    vllm_open = False
    table: dict = {}  # the TGI table being read: its columns, and the step and batch of the row above
    for n, line in lines(text):
        src = where(name, n)
        if not line.lstrip().startswith("|"):
            table = {}
        elif TGI_HEAD.match(line) or TGI_PARAMETERS.match(line):
            table = {"columns": [c.lower() for c in _cells(line)]}
            continue
        elif table:
            out.extend(_tgi_row(line, src, table))
            continue
        if (m := TRT_LINE.search(line)) is not None:
            pairs = _pairs(m.group("pairs"))
            figures = _trt_figures(pairs, src, to_int(pairs.get("batch_size")))
            out.extend(figures)
            if figures and "output_length" in pairs:
                out.append(Workload(src, prompt_len=to_int(pairs.get("input_length")),
                                    output_len=to_int(pairs.get("output_length")),
                                    gpu_count=to_int(pairs.get("world_size"))))
            continue
        if SGLANG_WARMUP.match(line):
            warmup = True
        elif SGLANG_BENCHMARK.match(line):
            warmup = False
        if (m := SGLANG_STEP.match(line)) is not None:
            step_batch = int(m.group("b"))
        for pattern, rate, latency in ((SGLANG_PREFILL, "prefill_tok_s", None),
                                       (SGLANG_DECODE, "decode_tok_s", "itl_ms"),
                                       (SGLANG_TOTAL, "total_tok_s", "e2e_latency_ms")):
            if (m := pattern.match(line)) is None:
                continue
            if pattern is SGLANG_PREFILL:  # a run's first line: the run before it ended without its Total. line
                out.extend(_with_batch(run, step_batch or _before(stated, n)))
                run, step_batch = [], None
            stat = "median" if pattern is SGLANG_DECODE else None
            figures = [Measurement(src, rate, float(m.group("tok")), "tok/s", stat=stat)]
            if latency:
                ms = float(m.group("lat")) * _SECONDS[m.group("unit")]
                figures.append(Measurement(src, latency, round(ms, 6), "ms", stat=stat))
            if not warmup:
                run.extend(figures)
            if pattern is SGLANG_TOTAL:
                out.extend(_with_batch(run, step_batch or _before(stated, n)))
                run = []
        if (m := VLLM_AVG.match(line)) is not None:
            vllm_open = True
            out.append(Measurement(src, "e2e_latency_ms", round(float(m.group("v")) * 1e3, 6), "ms", stat="mean",
                                   batch=_before(stated, n)))
        elif vllm_open and (m := VLLM_PERCENTILE.match(line)) is not None:
            p = int(m.group("p"))
            out.append(Measurement(src, "e2e_latency_ms", round(float(m.group("v")) * 1e3, 6), "ms",
                                   stat="median" if p == 50 else f"p{p}", batch=_before(stated, n)))
        elif line.strip():
            vllm_open = False
    out.extend(_with_batch(run, step_batch or _before(stated, len(text.splitlines()) + 1)))  # a run cut off
    return out


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _tgi_row(line: str, src: str, table: dict) -> list:
    """The figures of one row of a TGI benchmark table (TGI_HEAD) or the lengths of its parameters table; a blank
    Step or Batch Size cell is the row above's (the tool merges equal cells)."""
    if (m := TGI_LENGTH.match(line)) is not None and table["columns"][:1] == ["parameter"]:
        n = int(m.group("n"))
        return [Workload(src, prompt_len=n) if m.group("what").lower() == "sequence" else Workload(src, output_len=n)]
    cells = _cells(line)
    # (a row cut off where a paste ends keeps its whole cells: TGI_CELL reads no figure without its unit)
    if len(cells) > len(table["columns"]) or all(re.fullmatch(r":?-+:?", c) for c in cells):
        return []
    step = cells[0].lower() or table.get("step")
    batch = to_int(cells[1]) or table.get("batch")
    table.update(step=step, batch=batch)
    out = []
    for column, cell in zip(table["columns"], cells):
        if column not in TGI_STATS or (m := TGI_CELL.fullmatch(cell)) is None:
            continue
        v = float(m.group("v"))
        if m.group("unit") == "ms" and step in TGI_LATENCY_STEPS:
            out.append(Measurement(src, TGI_LATENCY_STEPS[step], v, "ms", stat=TGI_STATS[column], batch=batch))
        elif m.group("unit") == "tokens/secs" and step == "decode" and column == "average":
            out.append(Measurement(src, "decode_tok_s", v, "tok/s", batch=batch))
    return out


def _pairs(body: str) -> dict[str, str]:
    """The `key value` pairs of a TensorRT-LLM [BENCHMARK] line, in order; the Markdown a reporter adds to point at
    a pair (`**latency(ms) 8252.869**`, a line wrapped in backticks) is no part of a key or a value."""
    tokens = re.sub(r"\*\*|__|`", " ", body).split()
    return {tokens[i]: tokens[i + 1] for i in range(0, len(tokens) - 1, 2)}


def _trt_figures(pairs: dict[str, str], src: str, batch: int | None) -> list:
    """The figures of one [BENCHMARK] line (TRT_KEYS, TRT_STAT_KEY); none for bertBenchmark's encoder line (a
    batch_size with no output_length) or a line naming no figure."""
    if "batch_size" in pairs and "output_length" not in pairs:
        return []
    gpus = to_int(pairs.get("world_size"))
    out = []
    for key, value in pairs.items():
        v = number(value)
        if v is None:
            continue
        if key in TRT_KEYS:
            metric, unit, stat, scale = TRT_KEYS[key]
        elif (m := TRT_STAT_KEY.match(key)) is not None:
            metric, unit, scale = TRT_STAT_METRICS[m.group("what")], "ms", 1.0
            stat = {"avg": "mean", "p50": "median"}.get(m.group("stat"), m.group("stat"))
        else:
            continue
        out.append(Measurement(src, metric, round(v * scale, 6), unit, stat=stat, batch=batch, gpus=gpus))
    return out


def _stated_batches(text: str, name: str) -> list[tuple[int, int]]:
    """(line, batch) of each command line or argument echo in the text that states a batch size (launch reads
    them: `--batch-size 8`, `Namespace(batch_size=8, ...)`)."""
    found = []
    for w in launch.parse(text, name):
        line = to_int(str(w.source).rpartition(":")[2])
        if isinstance(w, Workload) and w.batch and line is not None:
            found.append((line, w.batch))
    return found


def _before(stated: list[tuple[int, int]], line: int) -> int | None:
    """The batch the last command or echo above `line` states."""
    above = [b for n, b in stated if n <= line]
    return above[-1] if above else None


def _with_batch(run: list[Measurement], batch: int | None) -> list[Measurement]:
    return [dataclasses.replace(m, batch=batch) for m in run]
