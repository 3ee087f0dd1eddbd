"""How `diagnose ticket` judges the figures a user-tester's tickets state (/tmp/ut7 report, items 2, 5-12, 16):
each test runs the tester's own ticket (tests/data/ut7, copied from the tickets they wrote from public
threads) and paraphrases written here, with a negation that must keep its old answer."""

from pathlib import Path

import pytest
from test_ticket_figures import _issue

DATA = Path(__file__).parent / "data" / "ut7"


def _rule(findings, name):
    return [f for f in findings if f.rule == name]


def _ticket(name: str):
    return _issue((DATA / name).read_text())


# --------------------------------------------------------------------------- item 2: a total above any batch's ceiling
@pytest.mark.parametrize("text", [
    (DATA / "huge3.md").read_text(),
    "# t\n\nWith Mistral-7B on two L40S under vLLM TP2 we get 900000 tok/s overall.\n",
    "# t\n\nOur Llama-3-8B vLLM server on one A100 80GB reaches 2000000 tokens/s in total.\n",
    "# t\n\nLlama-2-7B on one RTX 4090 with vLLM serves 450000 tokens/s in total.\n",
])
def test_a_total_no_batch_can_reach_is_the_beyond_roofline_warning(text):
    _, findings, verdict = _issue(text)
    (f,) = _rule(findings, "ticket.batched_rate")
    assert (f.category, f.severity) == ("other", "warning") and "beats the roofline" in f.title
    assert verdict.category == "other"


def test_a_total_above_the_band_but_under_the_ceiling_beats_the_band_and_never_sits_inside_it():
    _, findings, _ = _issue("# t\n\nLlama-2-7B on one H100 gives 30000 tok/s.\n")
    (f,) = _rule(findings, "ticket.batched_rate")
    assert f.category == "expected_physics" and "beats the calibrated" in f.title
    assert "inside" not in f.summary


def test_a_plausible_total_is_still_judged_against_the_batch_band():
    _, findings, _ = _issue("# t\n\nOur Llama-3-8B vLLM server on one A100 80GB gives 1500 tok/s in total "
                            "under load.\n")
    (f,) = _rule(findings, "ticket.batched_rate")
    assert f.category == "latency_bound_small_batch" and "roofline" not in f.title
