"""Defects a review of main found (issues 10/11, review 11e), each tested on input it was not written from.

6. One vocabulary for "one request at a time": the quantised-vs-16-bit rule reads the batch scale with the
   few_requests claim's wordings (rules.claims.states), so a wording either knows counts for both."""

import pytest
from test_ticket_numbers import _said

from rules import claims
from rules.quant_tradeoff import quantised_loses


@pytest.mark.parametrize("sentence", [
    # wordings the quant rule's own list lacked, which the few_requests claim has
    "With non-concurrent requests the AWQ checkpoint decodes slower than FP16.",
    "Our batch size is small and the GPTQ model is still slower than the bf16 one.",
    "Sending one prompt at a time, the int4 model is slower than the fp16 model.",
    "单并发下量化模型比FP16慢",  # (the quantised model slower than FP16 at a concurrency of one)
    # and the ones it had
    "For one request the AWQ model is slower than FP16.",
    "With a single user the GPTQ model is slower than fp16.",
])
def test_a_loss_at_one_request_is_small_in_every_wording_of_the_claim(sentence):
    (c,) = quantised_loses(_said(sentence))
    assert c.data["scale"] == "small"
    assert claims.states("few_requests", sentence)


@pytest.mark.parametrize("sentence", [
    "The AWQ model is slower than FP16 at 2 requests per second over 64 concurrent users.",
    "It is not a single-request test: the GPTQ model is slower than fp16 under load.",
])
def test_a_rate_or_a_ruled_out_single_request_is_not_small(sentence):
    (c,) = quantised_loses(_said(sentence))
    assert c.data["scale"] != "small"


@pytest.mark.parametrize("sentence", ["We get 3 requests per second.", "One request of the batch fails.",
                                      "We never run a single request at a time."])
def test_few_requests_is_not_read_from_rates_parts_or_negations(sentence):
    assert not claims.states("few_requests", sentence)
