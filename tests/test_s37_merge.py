"""Adjustments made while merging the thirty-seventh session's passes (issue 11).

A failure someone else warns of ("someone said it might also hang with mixed cards") is not this run's symptom: review37
found it read as a hang, which ticket.hang_on_pcie then answered p2p_disabled at 0.72 on a 3090 + 3060 box whose
complaint is speed. The reporter's own hang, said beside such a warning or after advice followed, stays a hang."""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims
from tests.conftest import judged_issue

SLOW_MIXED = ("# TP=2 slow on 3090 + 3060\n\nI run vLLM with tensor-parallel-size 2 on an RTX 3090 and an RTX 3060. "
              "Generation is slow, about 9 tokens/s for Llama-2-13B.\n")


@pytest.mark.parametrize("warning", [
    "Someone said it might also hang with mixed cards, but mine never hangs.",
    "People on reddit claim it can hang with mismatched GPUs.",
    "The docs say it may crash on older drivers; I have not seen that.",
])
def test_a_failure_warned_of_second_hand_is_no_symptom(warning):
    verdict, findings = judged_issue(SLOW_MIXED + warning)
    assert verdict.category != "p2p_disabled"
    assert "ticket.hang_on_pcie" not in findings


@pytest.mark.parametrize("text", [
    # the reporter's own hang beside another's warning
    "The docs say it can hang, and mine hangs every time after 5 minutes.",
    # advice followed, then the hang
    "Someone suggested setting NCCL_P2P_DISABLE=0 and now it hangs at the first request.",
    # the reporter's own modal: an intermittent hang seen
    "It may hang after a few hours of serving, then nothing responds.",
])
def test_the_reporters_own_hang_stays_a_hang(text):
    quote = claims.symptom_quote(claims_facts(SLOW_MIXED.replace("Generation is slow, about 9 tokens/s", "It runs")
                                              + text))
    assert quote is not None and quote[2] == "hang"


def claims_facts(text):
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts
