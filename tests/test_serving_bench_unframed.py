"""Issue 11 (s18, the reviewer's point on the merged s17 work): a serving benchmark's result rows pasted without the
"==== Serving Benchmark Result ====" banner and its closing line are read as the framed block is
(diagnose.artifacts.serving_bench).

The rows are real outputs with only their banner lines left out, as a paste cut at the rows is:
SGLang bench_serving from https://github.com/sgl-project/sglang/issues/2805 and vLLM's benchmark_serving from
https://github.com/ovg-project/kvcached/issues/136. Negations: prose that names one label, a config listing of
"key: value" rows that are no result labels, and a run of fewer rows than a block.
"""

import pytest

from diagnose.artifacts import serving_bench
from diagnose.evidence import Measurement, Workload

# sgl-project/sglang#2805, the block less its "==== Serving Benchmark Result ====" line
SGLANG_2805 = """\
Backend:                                 sglang
Traffic request rate:                    inf
Max reqeuest concurrency:                not set
Successful requests:                     1648
Benchmark duration (s):                  170.41
Total input tokens:                      369103
Total generated tokens:                  326408
Total generated tokens (retokenized):    326356
Request throughput (req/s):              9.67
Input token throughput (tok/s):          2165.94
Output token throughput (tok/s):         1915.40
Total token throughput (tok/s):          4081.34
----------------End-to-End Latency----------------
Mean E2E Latency (ms):                   80126.93
Median E2E Latency (ms):                 81160.44
"""

# ovg-project/kvcached#136, the block less its banner, quoted in prose with "> "
KVCACHED_136 = """\
Our run on the H100:

> Successful requests:                     100
> Benchmark duration (s):                  26.67
> Total input tokens:                      349601
> Total generated tokens:                  150000
> Request throughput (req/s):              3.75
> Request goodput (req/s):                 3.75
> Output token throughput (tok/s):         5624.71
> Total Token throughput (tok/s):          18734.08
> ---------------Time to First Token----------------
> Mean TTFT (ms):                          154.82
> Median TTFT (ms):                        136.70
> P99 TTFT (ms):                           360.23

Is that what an H100 should do?
"""


def _figures(text: str) -> dict:
    return {(m.metric, m.stat): m.value for m in serving_bench.parse(text, "run.txt") if isinstance(m, Measurement)}


def test_sglang_rows_without_their_banner():
    assert serving_bench.detect(SGLANG_2805) >= 0.8
    got = _figures(SGLANG_2805)
    assert got[("completed_requests", None)] == 1648 and got[("output_tok_s", None)] == 1915.40
    assert got[("total_tok_s", None)] == 4081.34 and got[("e2e_latency_ms", "mean")] == 80126.93
    assert ("output_tokens_total", None) in got and got[("output_tokens_total", None)] == 326408  # not the retokenized
    (w,) = [r for r in serving_bench.parse(SGLANG_2805, "run.txt") if isinstance(r, Workload)]
    assert w.extra == {"result": True, "request_rate": "inf"}  # the block's own rate line, read as in the frame


def test_vllm_rows_quoted_in_prose_without_their_banner():
    assert serving_bench.detect(KVCACHED_136) >= 0.8
    got = _figures(KVCACHED_136)
    assert got[("output_tok_s", None)] == 5624.71 and got[("request_throughput", None)] == 3.75
    assert got[("ttft_ms", "mean")] == 154.82 and got[("ttft_ms", "p99")] == 360.23
    assert got[("duration_s", None)] == 26.67


@pytest.mark.parametrize("text", [
    "Successful requests: 100 but the speed is bad",
    "Output token throughput (tok/s): 1915.40",  # one row is no block
    "Successful requests: 10\nOutput token throughput (tok/s): 50.2\n",  # two rows
    "model: llama-3-8b\ntp: 2\ndtype: bfloat16\nmax_model_len: 8192\nkv_cache_dtype: fp8\n",  # rows, no result labels
])
def test_no_block_without_a_run_of_result_rows(text):
    assert serving_bench.detect(text) == 0
