"""A question about what unlike GPUs do to each other's speed, asked before measuring (issue 11, batch u16b).

Tensor parallelism gives every GPU an equal shard and all-reduces at every layer, so a group runs at the pace of
its slowest GPU (vLLM's parallelism guide, https://docs.vllm.ai/en/latest/serving/parallelism_scaling/; llama.cpp's
--tensor-split exists to give a weaker card less work): asked before measuring, the answer is physics. The sentences
are written for this test in other reporters' words and other boards; the one corpus case used is a development
case (u16b06, https://discuss.vllm.ai/t/combining-2-different-gpus/1609). A pace verb must act on the speed or the
group ("limit the whole group", not "limit the context length": a card with less memory limits that whatever its
speed), and the lesser card may be named by its model where the paragraph names several GPUs.
"""

import shutil
from pathlib import Path

import pytest
import tomllib

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Measurement, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict

CORPUS = Path(__file__).parent / "data" / "tickets"
SPLIT = tomllib.loads((CORPUS / "SPLIT.toml").read_text())
SCORED_ONLY = set(SPLIT["holdout"]) | set(SPLIT.get("fresh", []))


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def verdict(facts: Facts):
    return ticket_verdict(facts, evaluate(facts))


ASKED = [
    "If I pair a 4090 with a 3060 for tensor parallelism, will the 3060 slow everything down?",
    "Would mixing an A100 and a V100 in one TP group hurt throughput?",
    "I have a 3090 and want to add my old 2080 Ti.\nWill the older card hold the 3090 back?",
    "We have two different cards in the box, a 4090 and a 3060. How much will the slower one cost us in tokens/s?",
    "# Two unlike GPUs with vLLM\n\nDoes the weakest GPU limit the whole tensor-parallel group?",
    # the lesser card named by its model where the paragraph names several
    "I run a 3090 and a P40 with llama.cpp. Does the P40 drag the speed down?",
    "My box has an A6000 and an A4000. Will the A4000 hold back the A6000 under TP=2?",
    "We paired an RTX 4090 with an RTX 3060 Ti. Would the 3060 Ti bottleneck my 4090?",
    "I have a 4090 and a 3090. Will the older GPU limit the overall speed?",
]


@pytest.mark.parametrize("text", ASKED)
def test_a_lesser_card_asked_about_is_read(text):
    assert claims.mixed_gpus_asked(said(text))


@pytest.mark.parametrize("text", [
    "Is the 3090 slower than the 4090?",  # two boards compared, not one job
    "I don't mind the weaker card slowing things down, how do I enable it?",  # the speed ruled out
    "The weaker card slows everything down.",  # seen, not asked: ticket.mixed_gpus reads observations
    "Will an older GPU slow down training?",  # one GPU, nothing about a group
    "I run a 4090 in one server and a 3090 in a separate one. Does each get its own speed?",  # apart
    # memory, not pace: a card with less VRAM limits the context or the model size whatever its speed
    "I have a 3090 and want to add my old 2080 Ti.\nWill the older card limit the context length I can use?",
    "There is a 3090 and a 1080 Ti in my rig. Would the 1080 Ti's memory limit the model size?",
    # the cards each on their own, or two boards compared, asked about a lesser card
    "I have a 4090 and a 3060 in one box. Will the weaker card's speed matter if I run them separately?",
    "I have a 4090 and a 3060. Would the weaker card reach a lower speed than the 4090 on its own benchmark?",
    # a model named without a pace verb acting on the speed or the group
    "I run a 3090 and a P40 with llama.cpp. Does the 3090 slow down when it gets hot?",
    "My box has an A6000 and an A4000. Does the A4000 support FP8?",
    "My box has an A6000 and an A4000. What speed should I expect from the A4000?",
])
def test_comparisons_observations_and_single_boards_are_not(text):
    assert claims.mixed_gpus_asked(said(text)) is None


@pytest.mark.parametrize("text", ASKED[:3])
def test_asked_before_measuring_the_answer_is_the_slower_cards_pace(text):
    answer = verdict(said(text))
    assert answer.category == "expected_physics"


def test_a_measured_figure_is_left_to_the_figure_checks():
    facts = said(ASKED[0])
    facts.add(Measurement("issue.md:1", "decode_tok_s", 9.0, tp=2))
    findings = evaluate(facts)
    assert not any(f.rule == "ticket.symptom_prior" and "slower card" in f.title for f in findings)


def test_development_case_u16b06(tmp_path):
    (src,) = [p for p in CORPUS.iterdir() if p.name.startswith("u16b06-")]
    assert src.name not in SCORED_ONLY
    shutil.copytree(src, tmp_path / "t", ignore=shutil.ignore_patterns("expected.toml"))
    facts = read_bundle([tmp_path / "t"])
    answer = verdict(facts)
    assert answer.category == "expected_physics"  # was p2p_disabled: the RTX 5090's refused P2P, not what was asked
