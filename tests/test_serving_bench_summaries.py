"""The other serving benchmarks' summaries (diagnose/artifacts/serving_bench.py): each read into the figures it
states, with the concurrency it ran at where it prints one. The outputs are copied from public threads where
users pasted them (cited per test)."""

from diagnose.artifacts import serving_bench


def _figures(text: str) -> dict:
    return {(m.metric, m.stat): m for m in serving_bench.parse(text, "bench.txt")}


# trtllm-bench throughput, pasted in https://github.com/NVIDIA/TensorRT-LLM/issues/6294 (1x H100 PCIe)
TRTLLM_OVERVIEW = """\
===========================================================
= PERFORMANCE OVERVIEW
===========================================================
Request Throughput (req/sec):                     248.4751
Total Output Throughput (tokens/sec):             6957.3030
Total Token Throughput (tokens/sec):              38762.1169
Total Latency (ms):                               120736.4401
Average request latency (ms):                     53522.9014
Per User Output Throughput [w/ ctx] (tps/user):   0.5350
Per GPU Output Throughput (tps/gpu):              6957.3030

-- Request Latency Breakdown (ms) -----------------------

[Latency] P50    : 54486.1063
"""

# trtllm-bench's request details, pasted in https://github.com/NVIDIA/TensorRT-LLM/issues/11080
TRTLLM_DETAILS = """\
===========================================================
= REQUEST DETAILS
===========================================================
Number of requests:             20
Number of concurrent requests:  1.0000
Average Input Length (tokens):  15000.0000
Average Output Length (tokens): 1.0000
"""


def test_trtllm_bench_overview_is_read_with_its_concurrency():
    assert serving_bench.detect(TRTLLM_OVERVIEW) > 0
    f = _figures(TRTLLM_DETAILS + TRTLLM_OVERVIEW)
    assert f[("output_tok_s", None)].value == 6957.303 and f[("output_tok_s", None)].concurrency == 1
    assert f[("request_throughput", None)].value == 248.4751
    assert f[("total_tok_s", None)].value == 38762.1169
    assert f[("request_tok_s", None)].value == 0.535  # one user's output rate
    assert f[("output_tok_s_per_gpu", None)].value == 6957.303
    assert f[("e2e_latency_ms", "mean")].value == 53522.9014
    assert ("total_latency", None) not in f  # the run's wall time is no request's latency


# vLLM's first benchmark_serving.py, pasted in https://github.com/vllm-project/vllm/issues/359
OLD_VLLM = """\
Total time: 166.88 s
Throughput: 5.99 requests/s
Average latency: 67.59 s
Average latency per token: 0.21 s
Average latency per output token: 1.10 s
"""


def test_the_first_vllm_serving_summary_gives_the_request_rate_and_the_mean_latency():
    assert serving_bench.detect(OLD_VLLM) > 0
    f = _figures(OLD_VLLM)
    assert f[("request_throughput", None)].value == 5.99
    assert f[("e2e_latency_ms", "mean")].value == 67590.0
    assert len(f) == 2  # the per-token averages divide a queued request's time: no TPOT


def test_benchmark_throughput_line_gives_three_rates():
    # vLLM benchmarks/benchmark_throughput.py, as quoted in https://github.com/vllm-project/vllm/issues/12315
    f = _figures("Throughput: 3.28 requests/s, 1414.42 total tokens/s, 714.48 output tokens/s\n")
    assert (f[("request_throughput", None)].value, f[("total_tok_s", None)].value, f[("output_tok_s", None)].value) \
        == (3.28, 1414.42, 714.48)


# LMDeploy's profile_restful_api.py, pasted in https://github.com/InternLM/lmdeploy/issues/1459
LMDEPLOY = """\
--------------------------------------------------
concurrency: 128
elapsed_time: 59.242s

number of prompt tokens: 216922
number of completion tokens: 208662
token throughput (completion token): 3522.187 token/s
token throughput (prompt + completion token): 7183.802 token/s
RPS (request per second): 16.880 req/s
RPM (request per minute): 1012.792 req/min
--------------------------------------------------
"""


def test_lmdeploy_profile_summary_is_read_at_its_concurrency():
    assert serving_bench.detect(LMDEPLOY) > 0
    f = _figures(LMDEPLOY)
    assert f[("output_tok_s", None)].value == 3522.187 and f[("output_tok_s", None)].concurrency == 128
    assert f[("total_tok_s", None)].value == 7183.802
    assert f[("request_throughput", None)].value == 16.88


def test_lmdeploy_first_token_latency_takes_the_average():
    # LMDeploy's profile_throughput.py, pasted in https://github.com/InternLM/lmdeploy/pull/946
    f = _figures("concurrency: 256\nelapsed_time: 295.300s\n\nfirst token latency(s)(min, max, ave): 0.623, 12.899, "
                 "4.401\n")
    assert f[("ttft_ms", "mean")].value == 4401.0 and f[("ttft_ms", "mean")].concurrency == 256


def test_vllm_offline_progress_bar_gives_the_output_rate():
    # vLLM LLM.generate, pasted in https://github.com/vllm-project/vllm/issues/8244 (one terminal line)
    line = ("Processed prompts: 100%|██████████| 32/32 [00:48<00:00,  1.53s/it, est. speed input: 28.13 toks/s, "
            "output: 335.00 toks/s]\n")
    assert serving_bench.detect(line) > 0
    assert _figures(line)[("output_tok_s", None)].value == 335.0


def test_perf_analyzer_summary_gives_rate_and_latency_per_concurrency():
    # Triton perf_analyzer, quoted in https://github.com/triton-inference-server/tutorials/pull/49
    text = ("Concurrency: 1, throughput: 23.2174 infer/sec, latency 43041 usec\n"
            "Concurrency: 2, throughput: 23.3284 infer/sec, latency 85590 usec\n")
    ms = serving_bench.parse(text, "pa.txt")
    rates = [(m.concurrency, m.value) for m in ms if m.metric == "request_throughput"]
    assert rates == [(1, 23.2174), (2, 23.3284)]
    assert [round(m.value, 3) for m in ms if m.metric == "e2e_latency_ms"] == [43.041, 85.59]


def test_prose_about_throughput_is_no_benchmark():
    assert serving_bench.detect("The throughput was fine yesterday; concurrency is not the question.\n") == 0.0


def test_a_pasted_benchmark_without_model_or_gpu_asks_for_both():
    from test_ticket_figures import _issue

    _, findings, v = _issue("# slow\n\nOur in-house model on our GPUs. Is this normal?\n\n```\n" + LMDEPLOY + "```\n")
    (f,) = [f for f in findings if f.rule == "ticket.figure_unjudged"]
    assert v.category == "insufficient_data" and "nvidia-smi -L" in f.fix and "config.json" in f.fix
    assert f.evidence[0].measured == 3522.187  # the benchmark's output rate, quoted as given
