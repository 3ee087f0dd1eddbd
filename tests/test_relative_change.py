"""A figure said relative to another ("40% slower", "2x slower") next to a change the same sentence states in full
("from 38.1 tok/s to 22.9 tok/s") is that change's size, not a third figure: the measured rate is the change's end.
Before, the factor was applied to the change's end ("40% slower (from 38.1 tok/s to 22.9 tok/s)" read 13.74 tok/s
and dropped 22.9). A relative phrase with a reference of its own, or one pointing back to an earlier sentence's
figure, still gives the reference times the factor."""

import pytest
from conftest import issue_bundle

from diagnose.evidence import Measurement


def _rates(sentence: str) -> list[float]:
    facts = issue_bundle(f"# decode is slow\n\n{sentence}\n")
    return sorted(m.value for m in facts.of(Measurement) if m.metric == "decode_tok_s")


@pytest.mark.parametrize("sentence, rates", [
    ("After the upgrade Llama-3-8B decoding became 40% slower (from 38.1 tok/s to 22.9 tok/s).", [22.9]),
    ("Decode dropped from 50 tok/s to 25 tok/s, 2x slower than before.", [25.0]),
    ("Generation got about 30 % slower, from 40 tok/s to 28 tok/s.", [28.0]),
])
def test_the_size_of_a_stated_change_is_no_new_figure(sentence, rates):
    assert _rates(sentence) == rates


@pytest.mark.parametrize("sentence, rates", [
    ("TP2 is 30% slower than TP1, which does 100 tok/s.", [70.0, 100.0]),
    ("TP1 went from 50 to 40 tok/s. TP2 is 2x slower than that.", [20.0, 40.0]),
    ("Now it is 3x slower than my colleague's box, which does 90 tok/s.", [30.0]),
])
def test_a_relative_figure_with_its_own_reference_is_still_read(sentence, rates):
    assert _rates(sentence) == rates
