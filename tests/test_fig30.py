"""fig30 (issue 11): measured figures in layouts the ticket reader used to miss (a key before the figure, "Tokens
per second: 81.53"; serving-benchmark rows set in bold, as bullets or commented out; ranges written with a tilde; a
per-token latency written as a range; a decode rate named in a table's column header, "| Decode tokens/s |"), on
real lines from public pages (tests/data/fig30/cases.toml, SOURCES.md), with the real near-misses beside them: a
prefill or reranker throughput, an it/s range, a range too wide to stand for one figure, a table's prefill column."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from diagnose.artifacts import figures, issue_md, serving_bench
from diagnose.evidence import Measurement

DATA = Path(__file__).parent / "data" / "fig30"
CASES = tomllib.loads((DATA / "cases.toml").read_text())["case"]


def _read(text: str) -> list[Measurement]:
    # (a line naming the GPU first, as a ticket would; the lines are read as the ticket's prose)
    records = issue_md.parse("I run it on an RTX 3090.\n\n" + text + "\n", "ticket.md")
    return [r for r in records if isinstance(r, Measurement)]


def _holds(ms: list[Measurement], metric: str, value: float) -> bool:
    return any(m.metric == metric and abs(m.value - value) <= 0.005 * abs(value) for m in ms)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["what"][:50])
def test_case(case):
    got = _read(case["text"])
    shown = [(m.metric, m.value) for m in got]
    for metric, value in case.get("held", []):
        assert _holds(got, metric, value), (case["source"], shown)
    kind = case.get("dropped_as", "decode_tok_s")
    for value in case.get("dropped", []):
        assert not any(abs(m.value - value) <= 0.005 * value and (kind == "any" or m.metric == kind) for m in got), \
            (case["source"], shown)
    if case.get("none"):
        assert not got, (case["source"], shown)
    if "held_batch" in case:  # a table's batch-size column is its rows' batch
        assert all(m.batch == case["held_batch"] for m in got if m.metric == "decode_tok_s"), (case["source"], shown)


def test_benchmark_row_scope():
    """A quoted result row carries the scope its benchmark defines: an output rate counts every stream together."""
    row = serving_bench.result_row("**Output token throughput (tok/s):              471.20**", "t.md:3")
    assert (row.metric, row.value, row.scope) == ("output_tok_s", 471.2, "aggregate")
    assert serving_bench.result_row("Throughput - Tokens per second: 25325.17", "t.md:3") is None


@pytest.mark.parametrize("line,want", [
    ("one token latency about 68~70 ms", "one token latency about 69 ms"),  # facebookresearch/llama#471
    ("60~703ms", " "),  # the same post's typo: no middle stands for it, and neither end is read
])
def test_time_span_middles(line, want):
    assert figures.time_span_middles(line) == want


@pytest.mark.parametrize(("line", "absent", "present"), [
    # a benchmark log's key whose label holds a number (public code index file 45665312624, an OpenNMT/eole
    # benchmark log comparing it with CTranslate2 and vLLM; the index names no repository): "Enc/Step 0" is the step,
    # not a rate of 0 tok/s
    ("[2026-01-16 13:51:08,668 INFO] Enc/Step 0 tokens / sec: 269.3", 0.0, None),
    # near-misses: a rate with a colon after it and words, not a figure, stays read
    ("Decode runs at 45 tok/s: far below what I expected.", None, 45.0),
    ("I get 12 tokens/s: is that normal?", None, 12.0),
])
def test_a_units_key_label_is_no_rate_of_the_number_before_it(line, absent, present):
    rates = [m.value for m in _read(line) if m.metric == "decode_tok_s"]
    if absent is not None:
        assert absent not in rates, rates
    if present is not None:
        assert present in rates, rates
