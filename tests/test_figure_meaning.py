"""A question about what a benchmark figure counts ("does tokens_per_sec mean total tok/s or tok/s/GPU?") is answered
from the figure's definition (the scope its parser records), not judged against physics and not sent to ask for the
model's config (ticket.figure_meaning, claims.meaning_asked). Real outputs kept in tests/data (bench31, ut9a)."""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules import claims
from rules.engine import evaluate, ticket_verdict

DATA = Path(__file__).parent / "data"
GPTSESSION = (DATA / "bench31" / "trtllm_gptsession_1871.txt").read_text()  # NVIDIA/TensorRT-LLM#1871's own run
SERVING = "\n".join((DATA / "ut9a" / "sgl1362.md").read_text().splitlines()[9:31])  # sglang#1362's result block


def _ticket(tmp_path, title: str, words: str, output: str):
    paste = tmp_path / "issue.md"
    paste.write_text(f"# {title}\n\n{words}\n\n```\n{output}\n```\n")
    return _judged(read_bundle(paste))


def _judged(facts):
    """(facts, findings, verdict) as `diagnose ticket` judges them."""
    findings = evaluate(facts, ticket_predictions(facts))
    return facts, findings, ticket_verdict(facts, findings)


def test_the_real_question_is_answered_healthy():
    # NVIDIA/TensorRT-LLM#1450: the maintainer's answer, "It equals to Tok/s" (the whole batch's, not per GPU)
    _, findings, verdict = _judged(read_bundle(DATA / "bench31" / "trtllm_1450_tok_s_information.md"))
    meaning = [f for f in findings if f.rule == "ticket.figure_meaning"]
    assert verdict.category == "healthy"
    assert meaning and "not per GPU" in meaning[0].summary
    assert not [f for f in findings if f.rule == "ticket.figure_unjudged"]


@pytest.mark.parametrize("title, words, output", [
    ("Meaning of tokensPerSec", "I ran the session benchmark on one GPU. What does tokensPerSec mean here?",
     GPTSESSION),
    ("Throughput question", "Is the output token throughput per GPU or the total over the 8 GPUs?", SERVING),
    ("bench_serving numbers", "We are trying to understand the report. Is the output token throughput total or per "
                              "request?", SERVING),
])
def test_paraphrases_with_a_defined_figure(tmp_path, title, words, output):
    facts, findings, verdict = _ticket(tmp_path, title, words, output)
    assert claims.meaning_asked(facts) is not None
    assert "ticket.figure_meaning" in {f.rule for f in findings}
    assert verdict.category == "healthy"


@pytest.mark.parametrize("title, words, output", [
    # a complaint: the figure is to be judged, whatever else is asked
    ("Throughput too low", "The output token throughput is far too low for 8 H100s. Is it per GPU or total?", SERVING),
    # a judgement asked beside the meaning
    ("Is this good?", "Is 1283 tok/s per GPU or total good enough for this model?", SERVING),
    # a question of another kind
    ("What does this error mean?", "What does this error mean? The benchmark printed this and then crashed.",
     SERVING),
])
def test_near_misses_are_not_meaning_questions(tmp_path, title, words, output):
    facts, findings, verdict = _ticket(tmp_path, title, words, output)
    assert "ticket.figure_meaning" not in {f.rule for f in findings}


def test_no_defined_scope_no_answer(tmp_path):
    # the question put of a figure typed in prose: nothing defines what it counts
    facts, findings, verdict = _ticket(tmp_path, "Throughput", "Is the throughput per GPU or the total?",
                                       "throughput: 1200 tok/s")
    assert "ticket.figure_meaning" not in {f.rule for f in findings}
