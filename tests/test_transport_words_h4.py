"""Transport and NCCL ticket words the user tester found misread (issue 11, fix h4): load words said in the
negative, a setting tried only for comparison, release comparisons without a slowdown, figures with a unit read
as versions, "from X to Y", one threshold for a P2P copy figure in prose and in a pasted matrix, the slowest pair
named, GPUDirect RDMA through DMA-BUF, and tool words in a sentence that says the opposite. Each is tried on
paraphrases written here and on their negations."""

import pytest
from test_ticket_failure_rules import fired, ticket
from test_transport_words import QUERY, issue_verdict

from rules import claims

# --------------------------------------------------------------------------- 1. load words said in the negative


@pytest.mark.parametrize("words", [
    "This was captured with no load on the GPUs, not while running vLLM.",
    "Read after the server had stopped (not under load).",
    "I took it when nothing was running, never during inference.",
    "Captured without any load, and not during the benchmark.",
])
def test_load_words_said_in_the_negative_leave_the_link_idle(tmp_path, words):
    assert claims.said_busy(words) is None
    answer, findings = issue_verdict(tmp_path, words + "\n\n" + QUERY + "Decode with TP=2 is slow.\n")
    assert [f.severity for f in findings if f.rule == "topology.pcie_link" and f.category != "insufficient_data"] \
        == ["ok"]
    assert answer.category != "pcie_link_degraded"


@pytest.mark.parametrize("words", [
    "This was captured while running vLLM, not at idle.",
    "Read under load (the server was serving requests).",
    "Captured during inference; nothing else was changed.",
])
def test_load_words_said_plainly_still_read_a_busy_link(tmp_path, words):
    assert claims.said_busy(words)
    _, findings = issue_verdict(tmp_path, words + "\n\n" + QUERY + "Decode with TP=2 is slow.\n")
    assert [f.severity for f in findings if f.rule == "topology.pcie_link"] == ["critical"]
