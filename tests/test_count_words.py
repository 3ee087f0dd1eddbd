"""GPU counts said in English words are read as counts wherever a count is read: the trouble's threshold
(claims.count_scope), a figure's own clause (issue_md.CLAUSE_GPUS) and the count before a GPU name. One table
(issue_md.ENGLISH_COUNT_WORDS) serves them all; the pattern of claims used to name five and seven while the reader
returned nothing for them, so "slows down beyond five GPUs" was dropped. Sentences written for this test."""

import pytest

from diagnose.evidence import Facts, Measurement, Note
from rules import claims

WORDS = {"one": 1, "single": 1, "two": 2, "a pair of": 2, "dual": 2, "three": 3, "four": 4, "quad": 4, "five": 5,
         "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a dozen": 12,
         "sixteen": 16}


def _scope(text: str):
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return [c.data for c in claims.count_scope(facts)]


@pytest.mark.parametrize("word", WORDS)
def test_trouble_beyond_a_count_in_words(word):
    n = WORDS[word]
    (said,) = _scope(f"Token throughput drops once we go beyond {word} GPUs.")
    assert (said["fine_upto"], said["bad_from"]) == (n, n + 1)
    (said,) = _scope(f"Everything works fine up to {word} GPUs, then it hangs with more.")
    assert said["fine_upto"] == n and said["fails"]


@pytest.mark.parametrize("word", WORDS)
def test_a_negated_threshold_in_words_is_no_threshold(word):
    assert _scope(f"Token throughput does not drop beyond {word} GPUs.") == []
    assert _scope(f"It is not slower with more than {word} cards; that was ruled out.") == []


@pytest.mark.parametrize("word", ["five", "seven", "nine", "ten", "eleven", "twelve", "a dozen", "a pair of"])
def test_a_figures_clause_and_a_boards_count_in_words(tmp_path, word):
    from diagnose.bundle import read_bundle
    from rules.common import gpu_count

    (tmp_path / "issue.md").write_text(f"# Scaling\n\nWith {word} GPUs we get 310 tokens/s on Llama 3 8B.\n"
                                       f"The server holds {word} A100 80GB cards.\n")
    facts = read_bundle([tmp_path])
    assert [m.gpus for m in facts.of(Measurement) if m.value == 310] == [WORDS[word]]
    assert gpu_count(facts) == WORDS[word]


def test_zero_is_no_gpu_count():
    from diagnose.artifacts.issue_md import _count

    assert _count("zero") is None and _count("a  Dozen") == 12
