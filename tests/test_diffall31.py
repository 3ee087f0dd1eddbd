"""diffall31: verdicts the session's merges changed on kept real first posts. ParlAI#4257 (BlenderBot2 on 4 GPUs,
'response time is 20 second', answered by the maintainer: model parallel slows generation) was expected_physics
until prose31 read its reply time; with no GPU named no figure check can place that time, so it must not stop
ticket.nothing_broken. A whole request's time with its GPU and output length, and a rate without a GPU, stay
figures."""
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


def test_reply_time_without_an_output_length_is_no_figure_on_a_named_gpu_either(tmp_path):
    facts, verdict = _judged(_paraphrase(tmp_path, "with 4 gpu", "with 4 A100 80GB gpus"))
    assert not figures(facts) and verdict.category == "expected_physics"


def test_reply_time_with_its_gpu_and_output_length_stays_a_figure(tmp_path):
    out = tmp_path / "ticket.md"
    out.write_text("# slow\n\nOn one A100 80GB I run\n\n```\npython benchmarks/benchmark_latency.py --model "
                   "meta-llama/Llama-2-7b-hf --input-len 128 --output-len 200 --batch-size 1\n```\n\n"
                   "The response time is 20 seconds. Is that normal?\n")
    facts, _ = _judged(out)
    assert figures(facts)


def test_rate_without_gpu_stays_a_figure(tmp_path):
    facts, _ = _judged(_paraphrase(tmp_path, "response time is 20 second", "it generates 3 tokens/s"))
    assert figures(facts)


LLAMACPP = Path(__file__).parent / "data" / "review49" / "llamacpp12838.md"


def test_one_card_said_used_is_not_a_layer_split():
    """llama.cpp#12838 (2 cards listed, '-ts 1,0', 'only one card is used', 55 vs 65 tok/s): engine31 made the engine
    llama.cpp, and ticket.layer_split_rate called each figure one GPU's pace; one card at work splits nothing, so the
    reporter's faster twin stays the lead (ticket.measured_vs_expected)."""
    facts, verdict = _judged(LLAMACPP)
    assert verdict.category == "insufficient_data"


def test_two_cards_without_one_said_used_stay_a_layer_split(tmp_path):
    text = LLAMACPP.read_text().replace("The log shows in BOTH cases that only one card is used:", "")
    out = tmp_path / "ticket.md"
    out.write_text(text)
    facts = read_bundle([out])
    found = evaluate(facts, ticket_predictions(facts))
    assert any(f.rule == "ticket.layer_split_rate" for f in found)
