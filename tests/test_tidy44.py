"""(tidy44) One reading where the code held several: second-person advice (launch.YOU_MODAL, YOU_ADVISE), the past
said in so many words (claims._PAST_ADVERB, _A_CHANGE, _BEFORE_A_CHANGE), the reporter's own sentences
(claims.own_sentences) and the "width / TP x group" split (ticket_rules._group_split). The sentences are probes (short
sentences written to test a reading), not tickets: each pins a spelling the shared piece now reads everywhere."""

from __future__ import annotations

import pytest

from diagnose.artifacts import launch
from diagnose.evidence import Facts, Note
from rules import claims, ticket_rules


def test_one_advice_reading_serves_the_parser_and_the_claims():
    for pattern in (claims._GUESS.pattern, claims._ADVISED.pattern):
        assert launch.YOU_ADVISE in pattern
    for pattern in (launch.ADVISING, claims._YOU_CAN.pattern):  # (fr44r2) ADVISING with "enable" again
        assert launch.YOU_MODAL in pattern


@pytest.mark.parametrize("before, off", [
    ("you could enable ", True),  # probe: (fr44r2) "enable" advises again; advice taken up runs (launch.ADOPTED_AFTER)
    ("you can set ", True),
    ("you  should also  try ", True),  # probe: any whitespace
    ("as you can see, we set ", False),  # probe: "you can" without the switch it advises
    ("I enable ", False),  # probe: the writer's own setting
])
def test_advice_before_a_setting(before, off):
    assert launch.off_before(before) is off


@pytest.mark.parametrize("sentence, guess", [
    ("You might set NCCL_P2P_DISABLE=1 to get past the hang.", True),  # probe
    ("You could\nset NCCL_IB_DISABLE=1 to use sockets.", True),  # probe: a wrapped line
    ("NCCL_P2P_DISABLE=1 fixed it.", False),  # probe
])
def test_advice_is_a_guess(sentence, guess):
    assert bool(claims._GUESS.search(sentence)) is guess


@pytest.mark.parametrize("before, past", [
    ("Before patching, ", False),  # probe: (fr44) a placement's past names the change with its determiner
    ("Before the patch, ", True),  # probe
    ("Before an update ", True),  # probe
    ("Previously ", True),
    ("I used  to see that ", True),  # probe: any whitespace
    ("Before the update it was fine, after the patch ", False),  # probe: turns to now
    ("Now ", False),  # probe
])
def test_a_placement_said_of_the_past(before, past):
    assert claims._past_state(before) is past


@pytest.mark.parametrize("before, gone", [
    ("Before an upgrade the log said ", True),  # probe: a/an, as _PAST_STATE read it
    ("It previously said ", True),
    ("It now says ", False),  # probe
])
def test_a_line_said_before(before, gone):
    assert bool(claims._SAID_BEFORE.search(before)) is gone


def test_group_split_carries_the_tp_factor():
    claim = claims.Claim("tp_size_error", "issue.md", "27392 ... 4*128", {"groups": ["27392", "4", "128"]})
    split = ticket_rules._group_split(claim)
    assert split == (27392, 128, 214, [1, 2], 4) and split.into == 4 and split.fit == [1, 2]
    assert ticket_rules._group_split(claims.Claim("tp_size_error", "issue.md", "25 / 4", {"groups": ["25", "4"]})) \
        is None


def test_own_sentences_are_the_own_texts_split():
    facts = Facts()
    facts.add(Note("issue.md:1", "description", "TP=2 is slow. Is that expected?"))
    facts.add(Note("issue.md:9", "framework", "vLLM. SGLang."))  # a parser's field (its kind in parentheses)
    own = claims.own_sentences(facts)
    assert own == [(s, x) for s, t in claims.own_texts(facts) for x in claims.sentences(t)]
    assert [x.strip() for _, x in own] == ["TP=2 is slow.", "Is that expected?"]
