"""Precision review of the readings session 28 merged from left28 and ut28a (issue 11, review34), each tried on real
lines of threads none of them was written from (tests/data/review34/<reading>.toml, URLs in SOURCES.md): near-misses
that look alike but must not be read that way, beside positives. `xfail`: why a case still fails (strict); `mended`:
what it read before this review.

- flash_gain: ut28a's ticket.flash_attention_gain, "flash attention gives no / little speedup" as decode physics;
- minutes: ut28a's time per token in minutes (issue_md.MS_PER_TOKEN, text.to_ms);
- batched_bench: left28's issue_md._batched_bench (llama-batched-bench / llama-sweep-bench tables);
- exllama_lines: left28's issue_md._exllama_lines (ExLlama's "** Speed:", ExLlamaV2's "** Position");
- half_math: left28's ticket_rules.half_math_unpriced with claims.engines_named (ExLlama on compute capability 6.1)."""

from pathlib import Path

import pytest
import tomllib
from conftest import issue_bundle, judged_issue, reading_gaps, said, threads_reused, toml_cases

from diagnose.artifacts import issue_md
from rules import attention_gain, ticket_rules
from rules.subject import Subject

DATA = Path(__file__).parent / "data" / "review34"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _lines(text: str) -> list[tuple[int, str]]:
    return list(enumerate(text.splitlines(), 1))


@pytest.mark.parametrize("case", toml_cases(DATA, "flash_gain"))
def test_flash_attention_no_gain_is_read_only_for_short_text_generation(case):
    if case["kind"] == "sentence":
        assert (attention_gain.flash_no_gain(said(case["text"])) is not None) is case["read"]
    else:
        _, rules = judged_issue(case["text"])
        assert ("ticket.flash_attention_gain" in rules) is case["read"]


@pytest.mark.parametrize("case", toml_cases(DATA, "minutes"))
def test_minutes_are_a_time_per_token_only_when_said_per_token(case):
    got = [m.value for m in issue_md._latencies([(0, case["text"])], "t") if m.metric == "itl_ms"]
    assert got == case["ms"]


@pytest.mark.parametrize("case", toml_cases(DATA, "batched_bench"))
def test_only_an_s_tg_table_gives_bench_rates(case):
    read = issue_md._batched_bench(_lines(case["text"]), "issue.md")
    assert [m.value for m in read if m.metric == "decode_tok_s"] == case["decode"]
    assert [m.value for m in read if m.metric == "prefill_tok_s"] == case["prefill"]
    assert [[m.concurrency, m.value] for m in read if m.metric == "output_tok_s"] == case["totals"]
    assert all(m.scope == "per_stream" and m.batch == 1 for m in read if m.metric == "decode_tok_s")


@pytest.mark.parametrize("case", toml_cases(DATA, "exllama_lines"))
def test_other_programs_speed_lines_are_not_exllamas(case):
    read = issue_md._exllama_lines(_lines(case["text"]), "issue.md")
    assert [m.value for m in read if m.metric == "decode_tok_s"] == case["decode"]
    assert [m.value for m in read if m.metric == "prefill_tok_s"] == case["prefill"]


@pytest.mark.parametrize("case", toml_cases(DATA, "half_math"))
def test_the_fp16_guard_holds_only_exllama_on_compute_capability_61(case):
    facts = issue_bundle(case["text"])
    facts.subject = Subject.of(facts)
    assert facts.subject.gpu is not None and facts.subject.gpu.compute_capability == 6.1
    assert ticket_rules.half_math_unpriced(facts, facts.subject.gpu) is case["unpriced"]


# Readings for which this review found no untaken real positive (SOURCES.md says so).
LEFT = {"exllama_lines", "half_math"}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    near = {"flash_gain": lambda c: not c["read"], "minutes": lambda c: not c["ms"],
            "batched_bench": lambda c: not c["decode"], "exllama_lines": lambda c: not c["decode"] + c["prefill"],
            "half_math": lambda c: not c["unpriced"]}
    assert reading_gaps(DATA, FAMILIES, near, LEFT) == []


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (left28, ut28a, ut27e) nor of the review before (review33)."""
    assert threads_reused(FAMILIES, ("left28", "ut28a", "ut27e", "review33")) == []
