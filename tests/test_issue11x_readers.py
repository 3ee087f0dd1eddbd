"""Issue 11 (session s12-11x), two reasoning defects:

- ticket.p2p_corrupts read "wrong results" as a broken peer path only with two or more GPUs counted: its test of a job
  across nodes compared a list with None and never held, so wrong results from a multi-node job (which has peers by
  definition) were not weighed;
- the words for a multiple of a speed ("half", "a third", "twice", "three times") live in one table,
  figures.FACTOR_WORDS, read both by figures.relative (a figure relative to another) and by claims' worded speed-ups
  (a ratio between two layouts): the same words give the same factor in both.
"""

import pytest

from diagnose.artifacts import figures, issue_md
from diagnose.evidence import Facts
from rules import claims
from rules.engine import evaluate, ticket_verdict


def judged(text: str):
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), {f.rule for f in findings}


# --------------------------------------------------------------------------- wrong results in a job with peers

@pytest.mark.parametrize("text", [
    "# Training\n\nOn two nodes the all-reduce results are wrong; the gradients are garbage.",
    "# Multi-node\n\nTraining across 2 servers: the reduced values are incorrect.",
    "# Inter-node run\n\nWith the job spread over multiple hosts the outputs are corrupted after the first step.",
])
def test_wrong_results_in_a_job_across_nodes_point_to_the_peer_path(text):
    verdict, rules = judged(text)
    assert "ticket.p2p_corrupts" in rules
    assert verdict.category == "p2p_disabled"


@pytest.mark.parametrize("text", [
    "# Single GPU\n\nOn one GPU the outputs are garbage.",
    "# Outputs\n\nThe results are wrong.",  # no second GPU, no second node: nothing to peer with
    "# Not multi-node\n\nThis is not a multi-node job; on a single GPU the outputs are garbage.",
    "# Two nodes\n\nAcross two nodes the results are correct, only slow.",
])
def test_wrong_results_without_peers_or_right_results_across_nodes_are_no_broken_peer_path(text):
    _, rules = judged(text)
    assert "ticket.p2p_corrupts" not in rules


# --------------------------------------------------------------------------- one table of factor words

_WORDS = {"half": 0.5, "one half": 0.5, "a third": 1 / 3, "one-third": 1 / 3, "a quarter": 0.25, "twice": 2.0,
          "two times": 2.0, "double": 2.0, "triple": 3.0, "three times": 3.0}


@pytest.mark.parametrize("word, factor", _WORDS.items())
def test_a_factor_word_gives_one_factor_to_both_readers(word, factor):
    (relative,) = figures.relative(f"we get {word} the speed of the 40 tok/s we had")
    layouts = claims.worded_speedup(f"TP=2 gives {word} the throughput of one GPU.")
    as_fast = claims.worded_speedup(f"With TP=4 it is {word} as fast as with one GPU.")
    assert relative[1] == pytest.approx(factor)
    assert layouts.data["ratio"] == pytest.approx(factor) and as_fast.data["ratio"] == pytest.approx(factor)


@pytest.mark.parametrize("word, factor", [("twice", 2.0), ("three times", 3.0)])
def test_as_slow_inverts_the_factor(word, factor):
    c = claims.worded_speedup(f"TP=2 is {word} as slow as one GPU.")
    assert c.data["ratio"] == pytest.approx(1 / factor)


@pytest.mark.parametrize("text", [
    "TP=2 is not half the speed of one GPU.",  # ruled out
    "TP=2 should be twice as fast as one GPU.",  # hoped for
    "Half the GPUs of the node are idle.",  # a share of GPUs, not a speed
])
def test_factor_words_that_state_no_measured_ratio(text):
    assert claims.worded_speedup(text) is None


def test_factor_words_beside_no_speed_are_no_relative_figure():
    assert figures.relative("half the memory of the 80 GB card") == []
