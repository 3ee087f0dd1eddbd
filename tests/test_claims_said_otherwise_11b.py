"""Issue 11 (paraphrase stress test): the same fact in other people's words, and the fact ruled out.

Written while checking tests/data/paraphrases' working set; none of these sentences comes from a corpus case. Each
family is read in several wordings (a duration in words, a hedged gain, a figure against a published one, a
question whether figures match) and not read where the words say something else (a count that is a place, a
ratio that is a setting's A/B, a throttle, P2P or NVLink ruled out).
"""

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def verdict(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))


@pytest.mark.parametrize("text, seconds", [
    ("nvidia-smi topo -m needs almost two minutes to return.", 120),
    ("Running nvidia-smi takes ~30seconds every time.", 30),
    ("nvidia-smi -q took over a minute on that node.", 60),
    ("nvidia-smi takes 1.5 min to print anything.", 90),
])
def test_a_slow_nvidia_smi_in_figures_or_words(text, seconds):
    found = claims.find(said(text), "nvidia_smi_slow")
    assert [c.data["seconds"] for c in found] == [seconds]


@pytest.mark.parametrize("text", ["nvidia-smi no longer takes 2 minutes after enabling persistence mode.",
                                  "nvidia-smi doesn't take 30 seconds on the other node."])
def test_a_slow_nvidia_smi_ruled_out_is_none(text):
    assert not claims.find(said(text), "nvidia_smi_slow")


@pytest.mark.parametrize("text, kind", [
    ("Two GPUs barely faster than one.", "scaling"),
    ("With 2 cards it is only slightly faster than 1 card.", "scaling"),
    ("p2pBandwidthLatencyTest reaches ~749 GB/s bidirectional vs the 900 GB/s advertised.", "slow"),
    ("We get 380 GB/s out of the marketed 450 GB/s.", "slow"),
    ("Does this match what the hardware should give?", "normal?"),
    ("Are these numbers in line with the spec?", "normal?"),
    ("We compared fp16 vs the official AWQ build.", "other"),
    ("It is faster than one GPU, as advertised.", "other"),
])
def test_the_symptom_in_other_words(text, kind):
    assert claims.symptom(said(text)) == kind


@pytest.mark.parametrize("text, one_slow", [
    ("When I run inference on two cards in the same machine it is slower than on one card.", False),
    ("With one GPU it is slower, with two it is faster.", False),
    ("One GPU is always slower than the others.", True),
    ("The same GPU lags behind every step.", True),
])
def test_a_count_that_is_a_place_or_a_layout_is_no_straggler(text, one_slow):
    assert bool(claims.find(said(text), "one_slow")) is one_slow


@pytest.mark.parametrize("text, ratio", [
    ("DDP on 2 GPUs isn't faster than 1 GPU, and with NCCL_P2P_DISABLE=1 it's ~30% slower again.", None),
    ("Adding --enforce-eager on 2 GPUs made it 2x slower.", None),
    ("With 2 GPUs it is 30% slower than with 1 GPU.", 0.7),
    ("TP=2 is 1.6x faster than 1 GPU.", 1.6),
])
def test_a_setting_s_a_b_is_no_speedup_between_layouts(text, ratio):
    found = claims.speedups(said(text))
    assert [round(c.data["ratio"], 2) for c in found] == ([ratio] if ratio else [])


@pytest.mark.parametrize("text", ["The workers start with no CPU or memory binding.",
                                  "Processes run without any NUMA pinning."])
def test_no_binding_in_other_words(text):
    assert [c for c in claims.find(said(text), "no_cpu_binding") if not c.negated]


# --------------------------------------------------------------------------- negations (issue 11, item 4)

BASES = {
    "p2p_disabled": "# allreduce slow\n\nAllreduce on our 8x A100 SXM node is slow, about 60 GB/s busbw. ",
    "throttling": "# slower over time\n\nTraining step time on one A100 SXM got 20% slower after an hour. ",
    "socket_fallback": "# inter-node allreduce slow\n\nAllreduce between our 2 nodes (8x A100 each, HDR IB) is slow. ",
}
RULED_OUT = [
    ("p2p_disabled", "P2P is NOT disabled."),
    ("p2p_disabled", "P2P isn't the problem, it is enabled."),
    ("p2p_disabled", "We checked that peer access is not disabled."),
    ("throttling", "No throttling seen in nvidia-smi -q."),
    ("throttling", "No throttling seen in nvidia-smi -q, clocks stay at 1410 MHz."),
    ("throttling", "Throttling was ruled out."),
    ("throttling", "We ruled out throttling."),
    ("throttling", "The GPU is not thermal throttling."),
    ("throttling", "nvidia-smi -q shows no throttle reasons active."),
    ("socket_fallback", "NCCL is not falling back to sockets."),
    ("socket_fallback", "It does not use NET/Socket, the log shows NET/IB."),
]
SAID = [
    ("p2p_disabled", "P2P is disabled on this box."),
    ("throttling", "nvidia-smi -q shows thermal throttling, clocks drop to 900 MHz."),
    ("throttling", "The GPU is throttling."),
    ("socket_fallback", "NCCL falls back to sockets, the log shows NET/Socket."),
]


@pytest.mark.parametrize("cause, sentence", RULED_OUT)
def test_a_cause_ruled_out_is_not_the_verdict(tmp_path, cause, sentence):
    assert verdict(tmp_path, BASES[cause] + sentence + "\n").category != cause


@pytest.mark.parametrize("cause, sentence", SAID)
def test_the_same_cause_said_is_the_verdict(tmp_path, cause, sentence):
    assert verdict(tmp_path, BASES[cause] + sentence + "\n").category == cause


@pytest.mark.parametrize("text", ["We ruled out NVLink.", "NVLink has been ruled out.",
                                  "The NVLink bridge is not the issue.",
                                  "NVLink was excluded, nvidia-smi nvlink -s shows all links up."])
def test_nvlink_ruled_out_is_no_link_down_claim(text):
    assert not [c for c in claims.find(said(text), "link_down") if not c.negated]


def test_a_throttle_ruled_out_beside_a_figure_with_no_top_clock_stays_ruled_out():
    found = claims.find(said("On the Tesla M60 there is no throttling, the clocks stay at 1100 MHz."), "clock_power")
    assert all(c.negated for c in found)
