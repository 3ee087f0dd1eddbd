"""Adjustments made when this session's passes met on main (s38)."""

from __future__ import annotations

import pytest

from rules import claims


@pytest.mark.parametrize("sentence,word,guessed", [
    # another's word closing a noun phrase names where the reference figure comes from: the slowdown is observed
    ("Each image takes 3 minutes, much slower than the 20 seconds others report.", "slower", False),
    ("Decode is much slower than the 40 tok/s others reported.", "slower", False),
    ("It runs 3x slower than the docs say.", "slower", False),
    # set off by a comma, or with more of the clause after it, the whole statement is theirs
    ("The NVLink links are down, others say.", "down", True),
    ("Someone on reddit said frequency_penalty makes vLLM slower.", "slower", True),
    ("People report that TP=2 is slower than one GPU on this board.", "slower", True),
])
def test_hearsay_closing_a_noun_phrase_governs_only_that_phrase(sentence, word, guessed):
    assert claims._guessed(sentence, sentence.index(word)) is guessed
