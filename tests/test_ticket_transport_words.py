"""Transport and topology words an expert reads in a ticket (issue 11 o): NVLink said absent or only asked
about is no NVLink, a topology matrix outranks the prose, and the bare "N is not divisible by M" of
ensure_divisibility (vLLM, SGLang, Megatron-LM) is the TP error where M is the ticket's TP size. Paraphrases
and negations here are written for these tests, not taken from any case."""

import pytest

from diagnose.evidence import Facts, Note, TopologyPath
from rules.common import has_nvlink
from rules.engine import evaluate, ticket_verdict


def facts_of(text: str, *records) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    for r in records:
        facts.add(r)
    return facts


def verdict(text: str, *records):
    facts = facts_of(text, *records)
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


def fired(findings, rule_id):
    return [f for f in findings if f.rule == rule_id and f.severity != "ok"]


@pytest.mark.parametrize("text", [
    "Two RTX A6000 in one workstation. NVLink: None. PCIe Gen4 x16 each.",
    "Setup: 4x L40S, no NVLink between them, all on one socket.",
    "These are PCIe cards without an NVLink bridge.",
    "The server is a non-NVLink A100 PCIe box.",
    "Our chassis lacks NVLink, so everything goes over PCIe.",
    "Do I need NVLink for tensor parallel on two cards?",
    "NVLink bridge: N/A",
    "It is an NVLink-less PCIe build.",
])
def test_nvlink_said_absent_or_asked_is_no_nvlink(text):
    assert not has_nvlink(facts_of(text))


@pytest.mark.parametrize("text", [
    "Two RTX 3090s joined by an NVLink bridge, TP=2 is slow.",
    "The A100s talk over NVLink and the all-reduce still stalls.",
    "NVLink bridge: installed, nvidia-smi nvlink -s shows 4 links per GPU.",
])
def test_nvlink_said_present_is_nvlink(text):
    assert has_nvlink(facts_of(text))


def test_a_topology_matrix_without_nv_paths_outranks_the_prose():
    said = "We bought the NVLink bridge for these two cards."
    pcie = TopologyPath("topo.txt:3", "GPU0", "GPU1", "PHB")
    assert has_nvlink(facts_of(said))
    assert not has_nvlink(facts_of(said, pcie))
    assert has_nvlink(facts_of(said, TopologyPath("topo.txt:3", "GPU0", "GPU1", "NV4", nvlinks=4)))


def test_p2p_off_as_the_workaround_on_pcie_cards_is_p2p_disabled_not_shm_fallback():
    answer, findings = verdict(
        "vLLM TP=2 hangs on the first all_reduce with two RTX PRO 6000 cards and starts at once with "
        "NCCL_P2P_DISABLE=1.\n\n* NVLink: None\n* GPU topology: PHB\n")
    assert [f.category for f in fired(findings, "topology.p2p_forced_off")] == ["p2p_disabled"]
    assert answer.category == "p2p_disabled"


@pytest.mark.parametrize("text", [
    "Running with --tensor-parallel-size 4 stops at load: AssertionError: 25 is not divisible by 4",
    "With tp_size=8 the server exits: ValueError: 28 is not divisible by 8",
    "DeepSpeed inference with mp_size 4 crashes in the attention init with '2 is not divisible by 4'.",
    "sglang --tp 6 fails during model init:\n```\nAssertionError: 16 is not divisible by 6\n```",
])
def test_the_bare_divisibility_error_at_the_tp_size_is_the_tp_error(text):
    answer, findings = verdict(text)
    assert fired(findings, "ticket.tp_size_error")
    assert answer.category == "tp_not_dividing_heads"


@pytest.mark.parametrize("text", [
    # another divisor than the TP size: a batch or block size, not the split
    "With --tensor-parallel-size 2 the loader says AssertionError: 30 is not divisible by 4",
    # no TP size named at all
    "The script fails with AssertionError: 25 is not divisible by 4",
    # a question about it, not the error seen
    "Will I hit '40 is not divisible by 3' if I set --tensor-parallel-size 3?",
    # a figure after the divisor is another number ("by 4.5 GB")
    "At TP 4 the cache of 12 is not divisible by 4.5 GB chunks",
])
def test_the_bare_divisibility_error_elsewhere_is_no_tp_error(text):
    _, findings = verdict(text)
    assert not fired(findings, "ticket.tp_size_error")
