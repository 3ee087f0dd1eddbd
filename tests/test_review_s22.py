"""Review of the ticket readings' scope (issue 11, session 22): the readings that still took the whole sentence as a
guess's or a question's scope. Session 21 made a guess word govern its own clause (claims.guess_scope); here the
several-GPUs reading, the count scope, the CPU binding, partial offload's prose readings and the one-sentence readings
of rules.ticket_questions take the same scope through claims.guessed (a position given) and claims.offered (that and
the question's own clause, claims.stated_before_question). Two mends of the helper come with them: a joint right after
the guess word ("probably because ...") is what it guesses, not the end of its clause; and a condition before the
guess's clause ("if the model is split between two cards, ... might ...") is part of what it guesses.

tests/data/review_s22/*.toml keep the sentences with their threads; `adapted` says where the words were put in the
review's form rather than copied."""

from pathlib import Path

import pytest
from conftest import said, toml_cases, unsourced_cases

from rules import claims, ticket_questions

DATA = Path(__file__).parent / "data" / "review_s22"


def _cases(name: str):
    return toml_cases(DATA, name)


def test_every_sentence_names_its_thread():
    assert unsourced_cases(DATA) == []


@pytest.mark.parametrize("case", _cases("several_gpus"))
def test_several_gpus_take_the_guess_words_clause(case):
    assert claims.several_gpus(said(case["sentence"])) is case["several"]


@pytest.mark.parametrize("case", _cases("count_scope"))
def test_count_scope_takes_the_guess_words_clause(case):
    found = claims.count_scope(said(case["sentence"]))
    assert found and all(c.guess is case["guess"] for c in found), [(c.data, c.guess) for c in found]


@pytest.mark.parametrize("case", _cases("cpu_binding"))
def test_cpu_binding_takes_the_guess_words_clause(case):
    found = claims.cpu_binding(said(case["sentence"]))
    assert found and all(c.guess is case["guess"] for c in found), [(c.data, c.guess) for c in found]


@pytest.mark.parametrize("case", _cases("offload_words"))
def test_offload_prose_takes_the_guess_words_clause(case):
    found = [c for c in claims.partial_offload(said(case["sentence"])) if c.data["form"] == case["form"]]
    assert found and all(c.guess is case["guess"] for c in found), [(c.data, c.guess) for c in found]


@pytest.mark.parametrize("case", _cases("ticket_questions"))
def test_one_sentence_readings_take_the_guess_words_clause(case):
    reading = getattr(ticket_questions, case["reading"])
    assert (reading(said(case["sentence"])) is not None) is case["found"]


# The scope's two mends, written for them (the threads' own sentences are in tests/data/review_s22/).
@pytest.mark.parametrize("sentence, position, guessed", [
    # a joint right after the guess word opens what it guesses; the clause before stays observed
    ("Only 30 of 81 layers are offloaded, I think because the context is too large.", "30 of", False),
    ("Only 30 of 81 layers are offloaded, I think because the context is too large.", "context", True),
    ("The links are down, I think.", "links", True),  # nothing after the guess word: said of the sentence before
    # a condition before the guess's clause is supposed with it, over clauses that hang on it
    ("If I use two GPUs, maybe it hangs.", "two", True),
    ("If I use two GPUs, while the first one loads, it might hang.", "two", True),
    ("It hangs with two GPUs, maybe NCCL.", "two", False),
    ("When I use two GPUs, maybe it hangs.", "two", False),  # "when" reports what happened
    ("NCCL_P2P_DISABLE=1 fixed it; if it hangs, you could try X.", "NCCL", False),  # a semicolon ends the walk
])
def test_the_guess_scope_mends(sentence, position, guessed):
    assert claims.guessed(sentence, sentence.index(position)) is guessed


def test_a_question_reports_the_clause_before_it():
    sentence = "Only one GPU is used, is this expected?"
    assert not claims.offered(sentence, sentence.index("one GPU"))
    assert claims.offered("Is only one GPU used?", 8)
