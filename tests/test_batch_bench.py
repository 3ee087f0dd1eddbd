"""diagnose.artifacts.batch_bench on real fixed-batch benchmark outputs pasted in public threads
(tests/data/bench31/SOURCES.md): each figure read with its metric, statistic, batch and scope, the near-misses left
alone, and the figures reaching a ticket's facts through a pasted issue."""

from pathlib import Path

import pytest

from diagnose.artifacts import batch_bench, detect
from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement, Workload

DATA = Path(__file__).parent / "data" / "bench31"


def read(name: str) -> list:
    return batch_bench.parse((DATA / name).read_text(), name)


def figures(records: list) -> list[tuple]:
    return [(m.metric, m.value, m.stat, m.batch, m.scope) for m in records if isinstance(m, Measurement)]


def test_gptsession_line_with_every_field_of_its_release():
    # NVIDIA/TensorRT-LLM#1450: benchmark.py's line at world_size 4, batch 8, 512 in / 4 out
    records = read("trtllm_gptsession_1450.txt")
    assert sorted(figures(records)) == sorted([
        ("output_tok_s", 75.11, None, 8, "aggregate"),
        ("e2e_latency_ms", 434.269, "p95", 8, "per_stream"),
        ("e2e_latency_ms", 437.178, "p99", 8, "per_stream"),
        ("e2e_latency_ms", 426.058, "mean", 8, "per_stream"),
        ("decode_tok_s", 405.25, None, 8, "aggregate"),
    ])
    assert all(m.gpus == 4 for m in records if isinstance(m, Measurement))
    (w,) = [r for r in records if isinstance(r, Workload)]
    assert (w.prompt_len, w.output_len, w.gpu_count) == (512, 4, 4)


def test_gptsession_line_of_the_first_release():
    # NVIDIA/TensorRT-LLM#264: latency only
    records = read("trtllm_gptsession_264.txt")
    assert figures(records) == [("e2e_latency_ms", 432.51, "mean", 1, "per_stream")]
    (w,) = [r for r in records if isinstance(r, Workload)]
    assert (w.prompt_len, w.output_len, w.gpu_count) == (20, 20, None)


def test_gptsession_line_of_the_cpp_benchmark_with_generation_rates():
    # NVIDIA/TensorRT-LLM#1871: gptSessionBenchmark v0.10, batch 1, 1024 in / 128 out
    records = read("trtllm_gptsession_1871.txt")
    assert figures(records) == [("e2e_latency_ms", 2561.35, "mean", 1, "per_stream"),
                                ("output_tok_s", 49.97, None, 1, "aggregate"),
                                ("decode_tok_s", 51.36, None, 1, "aggregate")]


def test_markdown_emphasis_in_a_pasted_line_is_no_part_of_a_pair():
    # the #1450 line as a reporter might point at two of its pairs, the line in backticks
    line = (DATA / "trtllm_gptsession_1450.txt").read_text().strip()
    line = "`" + line.replace("latency(ms) 426.058", "**latency(ms) 426.058**") + "`"
    assert sorted(figures(batch_bench.parse(line, "t"))) == sorted(figures(read("trtllm_gptsession_1450.txt")))


def test_gptmanager_report_lines():
    records = read("trtllm_gptmanager_notes.txt")
    assert sorted(figures(records)) == sorted([
        ("duration_s", 81.97045, None, None, None),
        ("request_throughput", 30.5, None, None, "aggregate"),
        ("output_tok_s", 15672.87, None, None, "aggregate"),
        ("e2e_latency_ms", 34195.29, "mean", None, "per_stream"),
        ("e2e_latency_ms", 66332.86, "p99", None, "per_stream"),
        ("e2e_latency_ms", 60695.08, "p90", None, "per_stream"),
        ("e2e_latency_ms", 34129.66, "median", None, "per_stream"),
    ])  # num_samples, acceptance rate, max and min are not read


def test_sglang_bench_one_batch_reads_the_benchmark_run_not_the_warmup():
    # sgl-project/sglang#30147: the step lines state batch 1
    assert figures(read("sglang_bench_one_batch_30147.txt")) == [
        ("prefill_tok_s", 5916.43, None, 1, "aggregate"),
        ("decode_tok_s", 174.85, "median", 1, "aggregate"),
        ("itl_ms", 5.72, "median", 1, "per_stream"),
        ("total_tok_s", 1122.76, None, 1, "aggregate"),
        ("e2e_latency_ms", 62.0, None, 1, "per_stream"),
    ]


def test_sglang_bench_latency_first_release_prefill_lines_only():
    # sgl-project/sglang#564: per-step decode lines with no median are not summarised by the parser
    assert figures(read("sglang_bench_latency_564.txt")) == [
        ("prefill_tok_s", 203.93, None, None, "aggregate"),
        ("prefill_tok_s", 52553.25, None, None, "aggregate"),
    ]


@pytest.mark.parametrize("name, expected", [
    # vllm-project/vllm#17: the batch from the Namespace echo above the result
    ("vllm_benchmark_latency_17.txt", [("e2e_latency_ms", 5184.098244, "mean", 8, "per_stream")]),
    # ROCm/vllm#469: two runs under one command line with --batch-size 32
    ("vllm_benchmark_latency_rocm469.txt", [("e2e_latency_ms", 283.740332, "mean", 32, "per_stream"),
                                            ("e2e_latency_ms", 312.952454, "mean", 32, "per_stream")]),
    ("vllm_bench_latency_notes.txt", [("e2e_latency_ms", 1475.279241, "mean", 8, "per_stream"),
                                      ("e2e_latency_ms", 1470.414439, "p10", 8, "per_stream"),
                                      ("e2e_latency_ms", 1471.16704, "p25", 8, "per_stream"),
                                      ("e2e_latency_ms", 1472.659783, "median", 8, "per_stream"),
                                      ("e2e_latency_ms", 1475.5478, "p75", 8, "per_stream"),
                                      ("e2e_latency_ms", 1480.512661, "p90", 8, "per_stream"),
                                      ("e2e_latency_ms", 1506.295495, "p99", 8, "per_stream")]),
])
def test_vllm_benchmark_latency(name, expected):
    assert figures(read(name)) == expected


def test_tgi_tables_at_one_batch_with_merged_cells():
    # a TGI run at TP 4 (tests/data/bench31/SOURCES.md): the Decode rows' blank Batch Size is the Prefill row's 16
    records = read("tgi_benchmark_mt0_tp4.txt")
    assert figures(records) == [
        ("ttft_ms", 958.8, "mean", 16, "per_stream"), ("ttft_ms", 970.9, "median", 16, "per_stream"),
        ("ttft_ms", 970.9, "p90", 16, "per_stream"), ("ttft_ms", 970.9, "p99", 16, "per_stream"),
        ("itl_ms", 121.88, "mean", 16, "per_stream"), ("itl_ms", 121.88, "median", 16, "per_stream"),
        ("itl_ms", 121.88, "p90", 16, "per_stream"), ("itl_ms", 121.88, "p99", 16, "per_stream"),
        ("decode_tok_s", 131.28, None, 16, "aggregate"),
    ]  # Decode (total), Lowest / Highest and the Prefill throughput (prompts per second) are not read
    lengths = [(w.prompt_len, w.output_len) for w in records if isinstance(w, Workload)]
    assert lengths == [(500, None), (None, 1000)]


def test_tgi_tables_of_a_batch_sweep():
    # Narsil/tmp_bench (linked from huggingface/text-generation-inference#617): batches 1 to 32
    got = figures(read("tgi_benchmark_tmp_bench.txt"))
    decode = [(v, b) for metric, v, stat, b, _ in got if metric == "decode_tok_s"]
    assert decode == [(32.84, 1), (65.4, 2), (129.29, 4), (254.75, 8), (486.49, 16), (848.02, 32)]
    assert ("itl_ms", 37.73, "mean", 32, "per_stream") in got
    assert ("ttft_ms", 101.3, "median", 32, "per_stream") in got
    assert len(got) == 6 * 4 + 6 * 4 + 6


def test_tgi_latency_table_pasted_alone():
    # huggingface/text-generation-inference#604: the Decode (token) rows only, batch 1 to 32
    got = figures(read("tgi_benchmark_604.txt"))
    assert got[:4] == [("itl_ms", 18.83, "mean", 1, "per_stream"), ("itl_ms", 18.8, "median", 1, "per_stream"),
                       ("itl_ms", 19.49, "p90", 1, "per_stream"), ("itl_ms", 18.77, "p99", 1, "per_stream")]
    assert [b for _, _, stat, b, _ in got if stat == "mean"] == [1, 2, 4, 8, 16, 32]


def test_tgi_row_cut_off_where_the_paste_ends_keeps_its_whole_cells():
    # huggingface/text-generation-inference#1452 (tests/data/extract30): the throughput table's last row ends
    # "| 281.43 tokens/secs | 275.82 tokens/se"
    text = (Path(__file__).parent / "data" / "extract30" / "tgi1452.md").read_text()
    got = figures(batch_bench.parse(text, "tgi1452.md"))
    assert ("decode_tok_s", 281.43, None, 4, "aggregate") in got
    assert not any(v == 275.82 for _, v, *_ in got)
    assert ("itl_ms", 14.22, "mean", 4, "per_stream") in got and ("ttft_ms", 1205.76, "mean", 4, "per_stream") in got


@pytest.mark.parametrize("text", [
    "| Sequence Length | 500 |\n| Decode Length | 1000 |\n",  # lengths outside TGI's parameters table
    "| Step | Batch Size | Notes |\n|---|---|---|\n| Prefill | 16 | slow, 958 ms |\n",  # another table's columns
    "[BENCHMARK] Loading engine from /workspace/engines/llama\n",  # a log line with no figure
    "[BENCHMARK] batch_size 1 input_length 128 latency(ms) 2.14\n",  # bertBenchmark: an encoder's batch, no output
    "Total: 34       Inflight: 10    Done: 34        Success Rate: 100.00%   Avg Latency: 0.2584 sec\n",  # knative
    "Avg latency: 0.63 ms\n",  # another tool's average, not benchmark_latency's seconds
    "10% percentile latency: 1.47 seconds\n50% percentile latency: 1.48 seconds\n",  # percentiles with no Avg line
    "[2025-02-27 04:37:29 TP0] Prefill batch. #new-seq: 1, #new-token: 128, #cached-token: 1, token usage: 0.00, "
    "#running-req: 0, #queue-req: 0, \n",  # SGLang's scheduler line, serving_bench's
    "The prefill latency was 0.5 s and the decode throughput about 170 token/s.\n",
])
def test_near_misses_are_not_read(text):
    assert batch_bench.detect(text) == 0.0 or not figures(batch_bench.parse(text, "t"))
    assert not figures(batch_bench.parse(text, "t"))


def test_every_kept_output_is_detected():
    for path in sorted(DATA.glob("*.txt")):
        assert "batch_bench" in dict(detect(path.read_text())), path.name


@pytest.mark.parametrize("name, metric, value", [
    ("trtllm_1450_tok_s_information.md", "decode_tok_s", 405.25),
    ("vllm_rocm469_v1_rocm_support.md", "e2e_latency_ms", 283.740332),
])
def test_a_pasted_issue_carries_the_figure(name, metric, value):
    facts = read_bundle(DATA / name)
    assert any(m.metric == metric and m.value == value for m in facts.of(Measurement))
