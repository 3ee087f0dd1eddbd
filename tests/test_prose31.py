"""Figures written in prose as times, changes and ratios (issue 11, pass prose31): real sentences from public threads
(tests/data/prose31/sentences.toml, annotated before the reader was run on them), each asserted field by field, then
paraphrases written apart from them and near-misses that must stay unread."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement
from rules import claims

DATA = Path(__file__).parent / "data" / "prose31" / "sentences.toml"
SENTENCES = tomllib.loads(DATA.read_text())["sentence"]
# the metrics a prose time or rate becomes (any other, a GPU count or a bandwidth, is not this pass's)
METRICS = {"e2e_latency_ms", "ttft_ms", "itl_ms", "tpot_ms", "decode_tok_s", "output_tok_s", "request_throughput"}


def read(tmp_path: Path, text: str, title: bool = False):
    """(the Measurements of METRICS, the loss factors) the ticket reader takes from `text` pasted as an issue."""
    path = tmp_path / "issue.md"
    path.write_text(f"# {text}\n\nSee above.\n" if title else f"# A ticket\n\n{text}\n")
    facts = read_bundle([path])
    return ([m for m in facts.of(Measurement) if m.metric in METRICS],
            [c.data["factor"] for c in claims.stated_losses(facts)])


def close(a: float | None, b: float) -> bool:
    return a is not None and abs(a - b) <= 0.01 * abs(b)


def held(got: list, want: dict) -> bool:
    """Is `want` (metric, value, and reference / count where annotated) one of the Measurements read?"""
    return any(m.metric == want["metric"] and close(m.value, want["value"])
               and ("reference" not in want or close(m.reference, want["reference"]))
               and ("count" not in want or m.count == want["count"]) for m in got)


def _case(s: dict):
    marks = [pytest.mark.xfail(strict=True, reason=s["xfail"])] if "xfail" in s else []
    return pytest.param(s, marks=marks, id=f'{s["source"].rsplit("/", 3)[-3]}-{s["source"].rsplit("/", 1)[-1]}')


@pytest.mark.parametrize("s", [_case(s) for s in SENTENCES])
def test_real_sentence(tmp_path, s):
    got, losses = read(tmp_path, s["text"], s.get("title", False))
    for want in s.get("expect", []):
        assert held(got, want), (want, [(m.metric, m.value, m.reference, m.count) for m in got])
    for factor in s.get("losses", []):
        assert any(close(f, factor) for f in losses), (factor, losses)
    if s.get("none"):
        assert not got and not losses, ([(m.metric, m.value) for m in got], losses)
    else:  # nothing read that the annotation does not hold
        assert all(any(close(m.value, w["value"]) for w in s.get("expect", [])) for m in got), \
            [(m.metric, m.value) for m in got]


def test_real_sentences_score():
    """The annotated set was collected so: at least 40 sentences from at least 20 threads."""
    assert len(SENTENCES) >= 40 and len({s["source"] for s in SENTENCES}) >= 20


# Paraphrases written for this pass, not taken from the sentences above: (text, metric, value in the metric's unit,
# reference or None)
PARAPHRASES = [
    ("Every request takes roughly 2 minutes on our 4x A100 box.", "e2e_latency_ms", 120000, None),
    ("The end-to-end latency is about 8 seconds for a short prompt.", "e2e_latency_ms", 8000, None),
    ("We measured 12 s per request with vLLM 0.6.", "e2e_latency_ms", 12000, None),
    ("Llama 70B takes 35 seconds to answer a simple question.", "e2e_latency_ms", 35000, None),
    ("The model needs about 40 seconds to respond.", "e2e_latency_ms", 40000, None),
    ("With TP=4 the response time went up to 9 seconds.", "e2e_latency_ms", 9000, None),
    ("I wait about 20 seconds before it starts generating.", "ttft_ms", 20000, None),
    ("The ITL went from 25 ms to 90 ms after the upgrade.", "itl_ms", 90, 25),
    ("Our response time went from 3 seconds to 20 seconds with TP=2.", "e2e_latency_ms", 20000, 3000),
    ("It takes 2 minutes 15 seconds to generate 500 tokens.", "decode_tok_s", 3.704, None),
    ("Throughput dropped from 40 tok/s to 12 tok/s after moving to two GPUs.", "decode_tok_s", 12, 40),
    ("It takes 90 ms to generate each token on the 3090.", "itl_ms", 90, None),
    ("Processing 10k prompts took 3 hours on 8 H100s.", "request_throughput", 0.926, None),
    ("It took 45 minutes to run all 2,000 questions through the model.", "request_throughput", 0.741, None),
]


@pytest.mark.parametrize("text,metric,value,reference", PARAPHRASES)
def test_paraphrase(tmp_path, text, metric, value, reference):
    got, _ = read(tmp_path, text)
    want = {"metric": metric, "value": value, **({"reference": reference} if reference is not None else {})}
    assert held(got, want), [(m.metric, m.value, m.reference) for m in got]


# Ratios in words: (text, the slowdown factor)
RATIOS = [
    ("With tensor parallelism generation is twice as slow as on one GPU.", 2),
    ("On two cards each answer takes three times as long.", 3),
    ("TP=2 runs at half the speed we get on a single 4090.", 2),
    ("After the driver update the latency doubled.", 2),
    ("The decode speed is 4 times lower than with version 0.5.", 4),
    ("Since v0.7 our throughput was halved.", 2),
]


@pytest.mark.parametrize("text,factor", RATIOS)
def test_ratio_words(tmp_path, text, factor):
    _, losses = read(tmp_path, text)
    assert any(close(f, factor) for f in losses), losses


# Near-misses: durations of something else, settings, plans, hypotheticals, other people's figures, negations
NEAR_MISSES = [
    "Loading the model takes about 3 minutes every time.",
    "We set timeout=600 so long requests are not cut off.",
    "Each request should take under 1 second on an H100.",
    "Our goal is a response time of 2 seconds.",
    "If each request took 5 seconds we would be fine.",
    "Downloading the weights took 40 minutes.",
    "The README says each request takes 2 seconds on an A100.",
    "Training took 12 hours on 8 GPUs.",
    "The request does not take 10 seconds, it hangs forever.",
    "The latency is 3x lower with TP=2, great.",
    "Memory use is 2 times lower in fp8.",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_miss(tmp_path, text):
    got, losses = read(tmp_path, text)
    assert not [m for m in got if m.metric in ("e2e_latency_ms", "ttft_ms", "itl_ms", "request_throughput")], \
        [(m.metric, m.value) for m in got]
    assert not losses, losses


@pytest.mark.parametrize("text", [
    "Time to first token goes from 0.3 s to 12 s once 32 users are connected.",
    "The response time went from 2 seconds to 30 seconds as the prompts got longer.",
])
def test_a_change_across_loads_is_no_measurement(tmp_path, text):
    """Its two ends belong to loads the sentence does not pair with them one by one (prose_times.ACROSS_LOADS; what
    test_review_11m holds for prompt lengths): no time of the run is read."""
    got, _ = read(tmp_path, text)
    assert not [m for m in got if m.metric in ("e2e_latency_ms", "ttft_ms", "itl_ms")], \
        [(m.metric, m.value) for m in got]


def test_change_start_is_no_measurement(tmp_path):
    """The figure a change starts from is its reference, never measured on its own."""
    got, _ = read(tmp_path, "On my M1U the speed dropped from 50 tok/s (on v0.3.6) to 20 tok/s (on v0.3.8rc1).")
    assert [(m.value, m.reference) for m in got if m.metric == "decode_tok_s"] == [(20, 50)]


@pytest.mark.parametrize("text", ["The generation time is 30 ms per token on one GPU.",
                                  "The inference time is 50 ms per step at batch 8."])
def test_share_of_a_smaller_unit_is_no_request_time(tmp_path, text):
    """A time per token or per step is no whole request's time (the per-token readers take the first)."""
    got, _ = read(tmp_path, text)
    assert not [m for m in got if m.metric == "e2e_latency_ms"], [(m.metric, m.value) for m in got]


def test_request_time_per_request_word_after_figure(tmp_path):
    """'took 3 s per request' (tests/test_issue_md.py keeps it no token rate) is a whole request's time."""
    got, _ = read(tmp_path, "Llama-2-7B on one RTX 3090: took 3 s per request. Is that normal?")
    assert [(m.metric, m.value) for m in got] == [("e2e_latency_ms", 3000)]
