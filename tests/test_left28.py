"""Readings the last session left open (issue 11, session 28, left28), each tried on real sentences and pastes from
public threads (tests/data/left28/*.toml, each with its URL in SOURCES.md), real near-misses beside them.

2. Benchmark output whose scope sits in a header or in the pass named above it: llama-batched-bench's and
   llama-sweep-bench's tables ("S_TG t/s" only in the header; B = 1 one stream's decode, B > 1 the total of B
   streams), ExLlama's "** Speed:" under "-- Inference, first pass." (the prompt) or "-- Generating ..." (decode), and
   ExLlamaV2's "** Position 1 + 127 tokens: ... t/s" (tests/test_ut27e_user.py). ExLlama's FP16 math on a compute
   capability 6.1 GPU (P40) is not judged against the catalog's FP32-path band (ticket_rules.half_math_unpriced).
4. Advice the reporter followed ("With your recommended NCCL_P2P_DISABLE=1 ... tok/s is ~2x") stays in force; advice
   quoted and not followed is left (no untaken real thread, SOURCES.md).
5. A queue told without a count of requests served together is not read as a capacity queue: every untaken real
   sentence of that form is a stall or a hang (queue_no_count.toml)."""

from pathlib import Path

import pytest

from diagnose.evidence import Measurement
from tests.conftest import issue_bundle, toml_cases, unlisted_cases

DATA = Path(__file__).parent / "data" / "left28"


def _cases(name: str) -> list:
    return toml_cases(DATA, name)


def _read(text: str) -> dict[str, list[Measurement]]:
    out: dict[str, list[Measurement]] = {}
    for m in issue_bundle(text).of(Measurement):
        out.setdefault(m.metric, []).append(m)
    return out


def test_every_case_names_its_source():
    assert not unlisted_cases(DATA)


@pytest.mark.parametrize("case", _cases("batched_bench.toml"))
def test_a_batched_bench_table_is_read_with_its_headers_scope(case):
    read = _read(case["text"])
    totals = [[m.concurrency, m.value] for m in read.get("output_tok_s", []) if m.scope == "aggregate"]
    assert totals == case["totals"]
    decode = [m.value for m in read.get("decode_tok_s", [])]
    if case.get("near_miss"):
        assert not set(decode) & set(case["not_decode"]), decode
        return
    assert decode == case["decode"]
    assert all(m.scope == "per_stream" and m.batch == 1 for m in read["decode_tok_s"])
    assert [m.value for m in read.get("prefill_tok_s", [])] == case["prefill"]


@pytest.mark.parametrize("case", _cases("exllama_speed.toml"))
def test_exllamas_speed_lines_take_the_scope_of_their_pass(case):
    read = _read(case["text"])
    assert [m.value for m in read.get("decode_tok_s", [])] == case["decode"]
    assert [m.value for m in read.get("prefill_tok_s", [])] == case["prefill"]
    assert all(m.scope == "per_stream" for ms in read.values() for m in ms)


def test_exllama_on_a_p40_is_not_judged_against_the_fp32_path():
    """turboderp/exllamav2#40 (tests/data/ut27e): the "** Position 1 + 127 tokens: 1.1905 t/s" line is now read, but
    ExLlama's FP16 math on compute capability 6.1 runs at 1/64 of the FP32 rate the catalog prices the P40 at, so the
    figure gets no band and no fault is blamed. (audit30b) The same knowledge now answers it: ticket.half_math_gpu,
    expected_physics, the thread's own answer (was insufficient_data)."""
    from tests.conftest import judged_issue

    text = (Path(__file__).parent / "data" / "ut27e" / "exllamav2_40.md").read_text()
    found, rules = judged_issue(text)
    assert "ticket.measured_vs_expected" not in rules
    assert "ticket.half_math_gpu" in rules and found.category == "expected_physics"


@pytest.mark.parametrize("case", _cases("queue_no_count.toml"))
def test_a_queue_without_a_count_is_not_read_as_capacity(case):
    from rules.ticket_questions import served_in_waves
    from tests.conftest import judged_issue, said

    assert (served_in_waves(said(case["text"])) is not None) == case["queued"]
    _, rules = judged_issue(case["text"])
    assert ("ticket.requests_queued" in rules) == case["queued"]


@pytest.mark.parametrize("case", _cases("advice_followed.toml"))
def test_advice_the_reporter_followed_is_in_force(case):
    from rules.common import settings

    assert bool(settings(issue_bundle(case["text"]), "NCCL_P2P_DISABLE")) == case["in_force"]


def test_exllama_on_an_ampere_card_is_still_judged():
    """Near-miss of the guard above: turboderp/exllama#6 (RTX 3060, compute capability 8.6, LLaMA-13B 4-bit) has full
    FP16 rate, so its "Generating 128 tokens" decode rate is judged against the band, and sits inside it."""
    from tests.conftest import judged_issue

    case = next(c for c in _cases("exllama_speed.toml") if c.values[0]["url"].endswith("exllama/issues/6"))
    found, rules = judged_issue(case.values[0]["text"])
    assert found.category == "expected_physics"
    assert rules["ticket.measured_vs_expected"].title.startswith("28.56 tok/s is what this model")
