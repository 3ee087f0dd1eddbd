"""Serving benchmarks and throughput logs: real tickets, vLLM JSON, variants, fuzz."""

import json

from artifact_fuzz import assert_survives_fuzz
from conftest import shared_path

from diagnose.artifacts import serving_bench
from diagnose.evidence import Measurement, Workload

TICKETS = "tickets"


def ticket_text(folder, name="attachment1.txt"):
    return shared_path(TICKETS, folder, name).read_text()


def measured(records):
    return {(m.metric, m.stat, m.batch): (m.value, m.source) for m in records if isinstance(m, Measurement)}


def test_sglang_bench_serving_and_batch_lines_079():
    text = ticket_text("079-sglang-pr2643-deepseek-v3-h200-tp8-healthy-serving-baseline")
    assert serving_bench.detect(text) >= 0.9
    got = measured(serving_bench.parse(text, "a1"))
    assert got[("output_tok_s", None, 1)] == (30.29, "a1:3")
    assert got[("output_tok_s", None, 8)] == (206.32, "a1:4")
    assert got[("output_tok_s", None, 32)] == (760.52, "a1:5")
    assert got[("output_tok_s", None, None)] == (2673.55, "a1:23")
    assert got[("request_throughput", None, None)] == (13.66, "a1:21")
    assert got[("e2e_latency_ms", "mean", None)] == (196528.46, "a1:26")
    assert got[("e2e_latency_ms", "median", None)] == (193378.59, "a1:27")


def test_periodic_generation_throughput_058():
    records = serving_bench.parse(ticket_text("058-sonar-1114-aphrodite-enforce-eager-tp2-3060", "attachment1.log"),
                                  "a1")
    assert [(m.metric, m.value, m.batch, m.source) for m in records] == [
        ("decode_tok_s", 31.4, 1, "a1:4"), ("decode_tok_s", 57.8, 1, "a1:10")]


def test_training_step_log_075():
    records = serving_bench.parse(ticket_text("075-tensorflow-40042-gpu-overheat-progressive-slowdown",
                                              "attachment1.log"), "a1")
    samples = [m.value for m in records if m.metric == "samples_s"]
    assert samples == [9134.5, 9061.4, 9284.5, 9297.4]
    assert {m.value for m in records if m.metric == "step_ms"} == {14.0}


def test_vllm_text_result_with_percentiles_and_concurrency():
    """benchmark_serving's layout, with the numbers of the SGLang run above moved into it."""
    real = ticket_text("079-sglang-pr2643-deepseek-v3-h200-tp8-healthy-serving-baseline").splitlines()
    block = [line.replace("not set", "64") for line in real[11:25]]  # from the result header to Mean E2E
    text = "\n".join(block + [
        "---------------Time to First Token----------------",
        "Mean TTFT (ms):                          1234.56",
        "P99 TTFT (ms):                           5000.00",
        "-----Time per Output Token (excl. 1st token)------",
        "Median TPOT (ms):                        40.12",
        "---------------Inter-token Latency----------------",
        "P95 ITL (ms):                            55.5",
        "==================================================",
        "Mean TTFT (ms): 1.0",  # after the block: not part of the result
    ])
    got = measured(serving_bench.parse(text, "b"))
    assert got[("output_tok_s", None, None)][0] == 2673.55
    assert got[("ttft_ms", "mean", None)][0] == 1234.56 and got[("ttft_ms", "p99", None)][0] == 5000.0
    assert got[("tpot_ms", "median", None)][0] == 40.12 and got[("itl_ms", "p95", None)][0] == 55.5
    assert all(m.concurrency == 64 for m in serving_bench.parse(text, "b"))
    assert sum(1 for k in got if k[0] == "ttft_ms") == 2


def test_vllm_json_result():
    doc = {"date": "20250101-000000", "backend": "vllm", "model_id": "meta-llama/Llama-3.1-70B-Instruct",
           "max_concurrency": 8, "completed": 200, "request_throughput": 2.5, "output_throughput": 640.25,
           "total_token_throughput": 1900.0, "mean_ttft_ms": 85.5, "median_ttft_ms": 80.0, "p99_ttft_ms": 210.0,
           "mean_tpot_ms": 11.9, "p99_itl_ms": 25.0, "ttfts": [0.08, 0.09], "tensor_parallel_size": 4}
    text = json.dumps(doc, indent=2)
    records = serving_bench.parse(text, "result.json")
    got = measured(records)
    assert got[("output_tok_s", None, None)][0] == 640.25
    assert got[("ttft_ms", "p99", None)][0] == 210.0 and got[("tpot_ms", "mean", None)][0] == 11.9
    assert all(m.concurrency == 8 and m.tp == 4 for m in records if isinstance(m, Measurement))
    (w,) = [r for r in records if isinstance(r, Workload)]
    assert (w.model, w.framework, w.tp) == ("meta-llama/Llama-3.1-70B-Instruct", "vLLM", 4)
    line = text.splitlines().index('  "output_throughput": 640.25,') + 1
    assert got[("output_tok_s", None, None)][1] == f"result.json:{line}"


def test_fuzz_never_raises():
    seeds = [ticket_text("079-sglang-pr2643-deepseek-v3-h200-tp8-healthy-serving-baseline"),
             ticket_text("058-sonar-1114-aphrodite-enforce-eager-tp2-3060", "attachment1.log"),
             json.dumps({"output_throughput": 1.0, "mean_ttft_ms": 2.0, "max_concurrency": "x"})]
    assert_survives_fuzz(serving_bench, seeds, n=200)


def test_a_later_result_block_does_not_inherit_the_earlier_runs_concurrency_or_rate():
    """Two benchmark_serving.py results in one log: the first printed its rate and concurrency, the
    second (a run whose header was cut off) did not; its figures must not carry the first's."""
    real = ticket_text("079-sglang-pr2643-deepseek-v3-h200-tp8-healthy-serving-baseline").splitlines()
    first = [line.replace("not set", "64") for line in real[11:25]] + ["=" * 50]
    cut = [line for line in first if not line.startswith(("Traffic", "Max"))]
    text = "\n".join(first + cut)
    records = serving_bench.parse(text, "b")
    second = len(first) + 1  # the line of the second result header
    later = [m for m in records if isinstance(m, Measurement) and int(m.source.rsplit(":", 1)[1]) > second]
    earlier = [m for m in records if isinstance(m, Measurement) and int(m.source.rsplit(":", 1)[1]) < second]
    assert later and earlier
    assert all(m.concurrency == 64 for m in earlier) and all(m.concurrency is None for m in later)
