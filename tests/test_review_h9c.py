"""Defects review cr9 found, each tested on wordings the fix was not written from.

1. A cause someone could not rule out is still open: "has not been ruled out", "could not rule out", "haven't yet
   ruled out" leave the claim standing; "was ruled out", "we ruled out", "were able to rule out" negate it."""

import pytest
from test_claims_said_otherwise_11b import said, verdict

from rules import claims

DROP = ("# Throughput drops over time\n\nvLLM, Llama-3-70B, TP=8 on 8x A100-SXM4-80GB. Throughput falls over time "
        "under a constant load: 900 tok/s at start, 500 tok/s after 20 minutes. ")


@pytest.mark.parametrize("sentence", [
    "Thermal throttling has not been ruled out yet.",
    "Throttling was not ruled out.",
    "We could not rule out thermal throttling.",
    "We can't rule out thermal throttling.",
    "We haven't yet ruled out thermal throttling.",
    "Throttling cannot be ruled out.",
    "We were not able to rule out thermal throttling.",
])
def test_a_throttle_not_ruled_out_stays_a_lead(tmp_path, sentence):
    assert claims.find(said(sentence), "clock_power") and not claims.find(said(sentence), "clock_power", negated=True)
    assert verdict(tmp_path, DROP + sentence + "\n").category == "throttling"


@pytest.mark.parametrize("sentence", [
    "Thermal throttling was ruled out.",
    "We ruled out thermal throttling.",
    "Thermal throttling has been ruled out.",
    "We were able to rule out thermal throttling.",
])
def test_a_throttle_ruled_out_is_negated(sentence):
    assert claims.find(said(sentence), "clock_power", negated=True)
    assert not claims.find(said(sentence), "clock_power")
