"""A host profile where the serving stages take a share of the time (the README's host-bound claim family:
"a host profile where the tokenizer takes the time"), and the GPU idle between whole steps, as people write them.

User-tester ut6 item 7: "py-spy shows the tokenizer takes 40% of the time and the GPU sits idle between steps"
was not read (expected_physics 0.5, or healthy "No problem found"); only "most of the time is spent in the
detokenizer" was. Paraphrases must be read; negations and small shares must not.
"""

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict


def found(text: str) -> list:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return claims.find(facts, "cpu_ab")


READ = [
    # the tester's sentences (ut6 n/w variant, n/a18, n/b18)
    "py-spy shows the tokenizer takes 40% of the time and the GPU sits idle between steps.",
    "The problem is only that our tokenizer step takes 40% of the time.",
    # paraphrases
    "In the py-spy flame graph detokenization accounts for 35 % of the wall time.",
    "The scheduler eats most of the step time according to cProfile.",
    "nsys shows the GPUs sit idle between decode steps for about 8 ms.",
    "The GPU is idle between iterations while Python prepares the next batch.",
]
NOT_READ = [
    # negations, small shares, questions and other idleness
    "The tokenizer takes less than 1% of the time.",
    "The tokenizer does not take 40% of the time, we measured it.",
    "Does the tokenizer take 40% of the time?",
    "The GPUs sit idle between requests when nobody sends traffic.",
    "The GPU sits idle between pipeline stages (bubbles).",
]


@pytest.mark.parametrize("text", READ)
def test_host_share_is_read(text):
    assert [c for c in found(text) if not c.guess], text


@pytest.mark.parametrize("text", NOT_READ)
def test_negations_and_small_shares_are_not(text):
    assert not [c for c in found(text) if not c.guess], text


@pytest.mark.parametrize("text", [
    "# Tokenizer takes 40% of the time\n\nvLLM on 8x A100 SXM, Llama-3-70B TP=8. A py-spy profile shows the "
    "tokenizer takes 40% of the time and the GPU sits idle between steps. Is that expected?\n",
    "# vLLM slow\n\nvLLM 8x A100 TP=8, Llama-3-70B. py-spy shows the tokenizer takes 40% of the time and the GPU "
    "sits idle between steps. Decode is slow.\n",
])
def test_the_tickets_reach_host_bound(tmp_path, text):
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    v = ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))
    assert v.category == "host_bound", v
