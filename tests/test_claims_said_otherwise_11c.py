"""Issue 11, second pass: the check set's four misses read in general terms, each tested on wordings it was not
written from and on the fact ruled out or said of something else.

None of these sentences comes from a corpus case or a paraphrase folder: a NIC port's rate written "200G" (with a
port count in words), "multi node" in two words, one stream's time per token as its rate, and "single node" as a
layout rather than one slow node.
"""

import pytest

from diagnose.evidence import Facts, Note
from rules import claims, common
from rules.ticket_questions import concurrency_rates


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


@pytest.mark.parametrize("text, gbs", [
    ("Each box has two 200G ports to the leaf switch.", 50.0),
    ("There is a single 100G NIC per server.", 12.5),
    ("8x 400G RoCE per node, rail-optimised.", 400.0),
    ("four 100G links per host", 50.0),
    ("400G CX7 adapters", 50.0),
    ("each machine has 8 *100 Gbps network nic", 100.0),
    ("2 HDR NICs each via passthrough", 50.0),
    ("2x HDR 200Gb/s InfiniBand per node", 50.0),     # (the written forms kept)
    ("25 GbE between the hosts", 3.125),
])
def test_a_nic_rate_as_people_write_it(text, gbs):
    assert common._rate_from_text(text) == gbs


@pytest.mark.parametrize("text", [
    "a 24G card is too small for this model",   # memory, not a port
    "two 24G cards in one box",
    "our 80G A100s",
    "4090 24G, driver 550",
    "we measured 200GB/s on NVLink",            # gigabytes, a measured figure
])
def test_a_g_that_is_no_network_rate(text):
    assert common._rate_from_text(text) is None


@pytest.mark.parametrize("text, multi", [
    ("The multi node run inside containers is very slow.", True),
    ("Training on multi nodes hangs after the first step.", True),
    ("Inter node bandwidth is low.", True),
    ("Multi-node all_reduce is fine.", True),
    ("It runs on one node with four GPUs.", False),
])
def test_multi_node_in_two_words(text, multi):
    assert bool(claims.find(said(text), "multi_node")) is multi


def test_multi_node_ruled_out():
    facts = said("This is not a multi node setup, everything is in one server.")
    assert not claims.find(facts, "multi_node")


@pytest.mark.parametrize("text, one_slow", [
    ("Single node, 4 GPUs: training got slower than with 2.", False),
    ("single GPU inference takes longer than I hoped", False),
    ("A single node is always slower than the other three.", True),
    ("One node lags behind in every all-reduce.", True),
])
def test_single_node_names_a_layout_a_single_node_a_straggler(text, one_slow):
    assert bool(claims.find(said(text), "one_slow")) is one_slow


@pytest.mark.parametrize("text, one", [
    ("With one user the log shows 12.5 ms per token; with four users the total is 240 tok/s.", 80.0),
    ("A single request: 20 ms/token. Two requests together: 90 tokens/s.", 50.0),
    ("One stream decodes at 25 ms per output token, and 3 streams give 100 tok/s.", 40.0),
])
def test_one_stream_s_time_per_token_is_its_rate(text, one):
    c = concurrency_rates(said(text))
    assert c is not None and c.data["one"] == one


@pytest.mark.parametrize("text", [
    # several streams' time per token is each stream's: no total to compare
    "With one request 70 tok/s; with two requests 15 ms per token.",
    # one stream's time per token that is no slower than the batch total: nothing to explain
    "A single request: 10 ms per token. Two requests together: 105 tokens/s.",
])
def test_a_time_per_token_that_is_no_single_stream_rate_or_no_gain(text):
    assert concurrency_rates(said(text)) is None


@pytest.mark.parametrize("text, kind", [
    # a no-gain after upgrading something other than the GPU count is that upgrade's A/B
    ("We serve on 2 GPUs. We moved the cluster from Ethernet to InfiniBand and the step time did not change.", "other"),
    ("TP=4 on four cards. After we upgraded the NICs to 200 Gb/s the training saw no gain at all.", "other"),
    ("Two A100 nodes here. Updating the driver brought no improvement.", "other"),
    # ... but where the GPUs grew in that sentence, it stays a scaling complaint
    ("After upgrading the driver we went from 2 GPUs to 4 GPUs and saw no speed-up.", "scaling"),
    ("We doubled the cards from 2 to 4 GPUs and throughput did not change.", "scaling"),
    ("With 4 GPUs it is no faster than with 1 GPU.", "scaling"),
])
def test_a_no_gain_after_another_upgrade_is_no_scaling_complaint(text, kind):
    assert claims.symptom(said(text)) == kind


@pytest.mark.parametrize("text, several", [
    # "all my GPUs" and "the other GPUs" say there are several, as the count's words do
    ("How do I make the server use all my GPUs? Only one GPU is used.", True),
    ("Ollama runs on one card and the other GPUs stay idle.", True),
    ("Can it use all of the GPUs? Only the first GPU is busy.", True),
    # one GPU named, nothing else: no second GPU to leave idle
    ("Only one GPU is used.", False),
    ("It uses all of the GPU memory and only one GPU is used.", False),
])
def test_all_or_the_other_gpus_are_several(text, several):
    from rules.ticket_questions import _several_gpus

    assert _several_gpus(said(text)) is several


@pytest.mark.parametrize("text, shares", [
    # a card, or "the other one", named as the GPU whose utilisation it is
    ("One card sits at 5% while the other card is at 100%.", [5.0, 100.0]),
    ("GPU0 shows 2% utilization and the other one is at 97%.", [2.0, 97.0]),
    ("My second card runs at 30% most of the time.", [30.0]),
    # a card's memory, a network card, an SD card: no GPU utilisation
    ("The other card's memory is at 90%.", []),
    ("The network card is at 100% during the all-reduce.", []),
])
def test_a_card_or_the_other_one_is_at_a_share(text, shares):
    assert sorted(c.data["percent"] for c in claims.find(said(text), "gpu_util")) == shares
