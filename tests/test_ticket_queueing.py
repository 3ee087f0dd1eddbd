"""TTFT from a serving benchmark that sent every request at once (rules/ticket_queueing.py): the queue, not the
prefill. The result blocks follow vLLM's benchmark_serving.py layout; the prose is written for these tests."""

import pytest
from test_ticket_figures import _issue
from test_ticket_numbers import _rule

BLOCK = """```
{rate}============ Serving Benchmark Result ============
Successful requests:                     1000
Benchmark duration (s):                  117.68
Request throughput (req/s):              8.50
Output token throughput (tok/s):         1519.34
---------------Time to First Token----------------
Mean TTFT (ms):                          {ttft}
Median TTFT (ms):                        {ttft}
P99 TTFT (ms):                           85898.43
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          131.61
==================================================
```
"""


def _text(question: str, rate: str = "Traffic request rate: inf\n", ttft: str = "31077.94", launch: str = "") -> str:
    return (f"# question\n\nLlama 3.1 70B on 8x H100 with vLLM. {question}\n\n{launch}"
            + BLOCK.format(rate=rate, ttft=ttft))


@pytest.mark.parametrize("question", [
    "The time to first token is huge, why?",
    "Why does the first token take 30 seconds?",
    "TTFT is far above what the blog shows. Is this normal?",
    "Latency is terrible under this benchmark.",
])
def test_a_burst_benchmarks_ttft_is_read_as_the_queue(question):
    _, findings, v = _issue(_text(question))
    (f,) = _rule(findings, "ticket.ttft_queueing")
    assert f.category == v.category == "expected_physics"
    assert any(e.measured == "inf" for e in f.evidence) and any(e.measured == 1000 for e in f.evidence)


def test_the_burst_is_read_from_the_benchmark_command_too():
    launch = "```\nvllm bench serve --model meta-llama/Llama-3.1-70B --num-prompts 1000 --request-rate inf\n```\n\n"
    _, findings, _ = _issue(_text("Why is the time to first token so high?", rate="", launch=launch))
    assert _rule(findings, "ticket.ttft_queueing")


@pytest.mark.parametrize("kwargs", [
    {"question": "Is the output throughput normal?"},  # no question about latency
    {"question": "The time to first token is huge, why?",
     "rate": "Traffic request rate: inf\nMaximum request concurrency: 32\n"},  # a concurrency limit: no burst
    {"question": "The time to first token is huge, why?", "rate": "Traffic request rate: 4.0\n"},  # a paced rate
    {"question": "The time to first token is huge, why?", "ttft": "420.5"},  # under a second: no backlog shows
])
def test_no_queue_reading_without_a_burst_and_a_latency_question(kwargs):
    _, findings, _ = _issue(_text(**kwargs))
    assert not _rule(findings, "ticket.ttft_queueing")


def test_a_crash_under_the_burst_is_no_queue():
    _, findings, _ = _issue(_text("The server crashes with CUDA error: illegal memory access and the time to first "
                                  "token is huge before it dies."))
    assert not _rule(findings, "ticket.ttft_queueing")
