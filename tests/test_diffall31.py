"""diffall31: verdicts the session's merges changed on kept real first posts. ParlAI#4257 (BlenderBot2 on 4 GPUs,
'response time is 20 second', answered by the maintainer: model parallel slows generation) was expected_physics
until prose31 read its reply time; with no GPU named no figure check can place that time, so it must not stop
ticket.nothing_broken. A whole request's time on a named GPU, and a rate without one, stay figures."""
from pathlib import Path

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules.engine import evaluate, ticket_verdict
from rules.ticket_questions import figures

PARLAI = Path(__file__).parent / "data" / "ut26a" / "parlai4257.md"


def _judged(path: Path):
    facts = read_bundle([path])
    return facts, ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))


def _paraphrase(tmp_path, old: str, new: str) -> Path:
    text = PARLAI.read_text()
    assert old in text
    out = tmp_path / "ticket.md"
    out.write_text(text.replace(old, new))
    return out


def test_reply_time_without_gpu_is_answered_normal():
    facts, verdict = _judged(PARLAI)
    assert not figures(facts)
    assert verdict.category == "expected_physics"


def test_reply_time_on_a_named_gpu_stays_a_figure(tmp_path):
    facts, _ = _judged(_paraphrase(tmp_path, "with 4 gpu", "with 4 A100 80GB gpus"))
    assert figures(facts)


def test_rate_without_gpu_stays_a_figure(tmp_path):
    facts, _ = _judged(_paraphrase(tmp_path, "response time is 20 second", "it generates 3 tokens/s"))
    assert figures(facts)
