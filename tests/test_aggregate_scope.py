"""Per-request vs aggregate throughput (s12-agg): each parser records beside a figure whether it counts every request
in flight ("aggregate") or one ("per_stream") and the concurrency its own line states; the rules judge an aggregate
figure against the expected aggregate at that load, and a log's periodic lines at their steady load, not the ramp.

Real inputs: tests/data/agg_lines/ (public threads' lines as posted, SOURCES.md). The prose paraphrases and negations
are written here, not taken from those threads.
"""

from pathlib import Path

import pytest

from diagnose.artifacts import issue_md, serving_bench
from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Measurement
from rules.common import steady_logs, steady_rates
from rules.engine import evaluate, ticket_verdict
from rules.subject import Subject

DATA = Path(__file__).parent / "data" / "agg_lines"


def _rates(name: str) -> list[Measurement]:
    text = (DATA / name).read_text()
    return [m for m in serving_bench.parse(text, name) if isinstance(m, Measurement) and m.metric == "decode_tok_s"]


@pytest.mark.parametrize("name, running", [
    ("sgl3909.log", {8}), ("sgl4407.log", {509, 454, 397, 346, 301, 235, 182}),  # SGLang "Decode batch."
    ("vllm19680.log", {10}), ("vllm43295.log", {18, 20, 21}),  # vLLM V1 "Engine 000: ..."
    ("vllm12314.log", {2}), ("vllm4760.log", {1}),  # vLLM V0
])
def test_engine_stats_lines_are_aggregate_at_their_running_count(name, running):
    rates = _rates(name)
    assert rates and all(m.scope == "aggregate" for m in rates)
    assert {m.concurrency for m in rates} == running and all(m.batch == m.concurrency for m in rates)


def test_benchmark_result_block_scopes():
    text = """============ Serving Benchmark Result ============
Successful requests:                     1000
Benchmark duration (s):                  117.68
Output token throughput (tok/s):         1519.34
Mean TPOT (ms):                          131.61
==================================================
"""
    got = {m.metric: m.scope for m in serving_bench.parse(text, "b.txt") if isinstance(m, Measurement)}
    assert got["output_tok_s"] == "aggregate" and got["tpot_ms"] == "per_stream"


@pytest.mark.parametrize("name, rates", [
    ("llamacpp2237.log", [4.43]), ("llamacpp9013.log", [12.64, 11.94]), ("ollama11676.log", [3.35])])
def test_local_engine_timings_are_one_stream(name, rates):
    text = "# slow\n\n```\n" + (DATA / name).read_text() + "```\n"
    got = [m for m in issue_md.parse(text, name) if isinstance(m, Measurement) and m.metric == "decode_tok_s"]
    assert [m.value for m in got] == rates and all(m.scope == "per_stream" for m in got)


def test_steady_load_not_the_ramp():
    assert [m.value for m in steady_rates(_rates("vllm43295.log"))] == [1055.3, 1226.3, 734.9]  # the three at 18
    assert steady_rates(_rates("sgl4407.log")) == []  # a queue draining: no two lines at one load, nothing steady
    assert len(steady_rates(_rates("sgl3909.log"))) == 9


def _facts(tmp_path, text: str, name: str = "t.md"):
    p = tmp_path / name
    p.write_text(text)
    facts = read_bundle([p])
    facts.subject = Subject.of(facts)
    return facts


def _judge(facts):
    findings = evaluate(facts, ticket_predictions(facts))
    return ticket_verdict(facts, findings), findings


HEAD = "# Is this normal? Llama 3.1 8B on one H200\n\n"


def test_one_representative_per_log_says_where_it_came_from(tmp_path):
    facts = _facts(tmp_path, HEAD + "```\n" + (DATA / "vllm43295.log").read_text() + "```\n")
    (m,) = steady_logs(facts)
    assert m.concurrency == 18 and m.value == 1055.3  # the median of the three lines at 18 running requests
    assert m.said == "1055.3 tok/s over 18 running requests, median of 3 lines at that load; 2 lines at other loads " \
                     "left out"


LOG_28 = ("```\n"
          "[2025-01-27 11:13:30 TP0] Decode batch. #running-req: 28, #token: 40000, token usage: 0.05, "
          "gen throughput (token/s): {v}, #queue-req: 0\n"
          "[2025-01-27 11:13:40 TP0] Decode batch. #running-req: 28, #token: 41000, token usage: 0.05, "
          "gen throughput (token/s): {v}, #queue-req: 0\n```\n")


def test_aggregate_log_rate_is_judged_at_its_running_count(tmp_path):
    """140 tok/s over 28 running requests is 5 tok/s each: far below what 28 streams of an 8B model give on an H200,
    not a fast single stream (it was judged one stream's rate, 'beats the band', before)."""
    v, findings = _judge(_facts(tmp_path, HEAD + LOG_28.format(v=140.2)))
    assert v.category == "other"
    top = next(f for f in findings if f.rule == "ticket.batched_rate")
    first = top.evidence[0]
    # the line and the log's own words: where the number came from
    assert first.source == 't.md:4 "140.2 tok/s over 28 running requests, median of 2 lines at that load"'
    assert "5.01 tok/s per request over 28" in first.detail and first.measured == 140.2
    assert any("28 running requests" in e.detail and e.source == "prediction:expected" for e in top.evidence)
    assert all(f.rule != "ticket.measured_vs_expected" for f in findings)  # not also judged as one stream


def test_healthy_aggregate_log_rate_is_physics(tmp_path):
    v, findings = _judge(_facts(tmp_path, HEAD + LOG_28.format(v=3200.0)))
    assert v.category == "expected_physics"
    assert next(f for f in findings if f.rule == "ticket.batched_rate").severity == "info"


@pytest.mark.parametrize("said, category", [
    ("We get 140 tok/s total with 28 users.", "other"),
    ("Aggregate throughput is 140 tokens/s across 28 concurrent requests.", "other"),
    ("28 requests in flight, 140 tok/s combined.", "other"),
    ("With 16 in-flight requests, 1900 tokens/s in total.", "expected_physics"),
])
def test_prose_totals_are_judged_at_the_load_said(tmp_path, said, category):
    facts = _facts(tmp_path, HEAD + "Serving it with vLLM. " + said + " Is this normal?\n")
    rate = next(m for m in facts.of(Measurement) if m.metric == "output_tok_s")
    assert rate.scope == "aggregate" and rate.concurrency in (28, 16)
    v, findings = _judge(facts)
    assert v.category == category and findings[0].rule == "ticket.batched_rate"


def test_each_user_rate_is_per_stream_at_that_load(tmp_path):
    facts = _facts(tmp_path, HEAD + "Serving it with vLLM. With 28 concurrent users each user sees 5 tok/s.\n")
    (rate,) = [m for m in facts.of(Measurement) if m.metric == "decode_tok_s"]
    assert rate.scope == "per_stream" and rate.batch == 28
    assert _judge(facts)[0].category == "other"


@pytest.mark.parametrize("said", [
    "We get 140 tok/s; the requests were not in flight at once.",  # 'in flight' negated: no load of 140's
    "It runs at 140 tok/s for one user, not 140 tok/s in total.",
])
def test_negations_leave_a_single_stream(tmp_path, said):
    facts = _facts(tmp_path, HEAD + "Serving it with vLLM. " + said + "\n")
    assert not any(m.concurrency for m in facts.of(Measurement))
    assert not any(m.scope == "aggregate" for m in facts.of(Measurement) if m.metric == "decode_tok_s")


@pytest.mark.parametrize("said, load", [
    ("Each of the 28 users gets about 5 tokens per second.", 28),
    ("Every one of the 16 requests sees 20 tok/s.", 16),
    ("Each of the 8 clients gets 95 tok/s.", 8),
])
def test_each_of_n_users_is_one_stream_of_n(tmp_path, said, load):
    facts = _facts(tmp_path, HEAD + "Serving it with vLLM. " + said + "\n")
    (rate,) = [m for m in facts.of(Measurement) if m.metric == "decode_tok_s"]
    assert rate.scope == "per_stream" and rate.batch == load == rate.concurrency


def test_each_of_n_other_things_is_no_load(tmp_path):
    facts = _facts(tmp_path, HEAD + "We tested each of the 3 models; the fastest does 90 tok/s.\n")
    assert all(m.batch is None and m.concurrency is None and m.scope is None for m in facts.of(Measurement))
