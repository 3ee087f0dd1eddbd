"""xfail46 (issue 11): GPUs weighed in a question are hardware considered, not the machine that ran
(issue_md._weighed): offered as alternatives in a question, asked to be enough, or wondered about in a would-clause.
The four strict xfails this flips live in tests/data/review27a/planned.toml and tests/data/review29/planned.toml;
here are real sentences the reading was not written from (tests/data/xfail46/SOURCES.md) and probes (labelled) with
ownership, negations, statements and near-misses that must keep the machine's GPU."""

from __future__ import annotations

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Workload


def _gpus(text: str) -> list[tuple[str, int]]:
    return [(w.gpu or "", w.gpu_count or 0) for w in issue_md.parse(text, "post.md")
            if isinstance(w, Workload) and (w.gpu or w.gpu_count)]


WEIGHED = [
    # https://github.com/epfLLM/Megatron-LLM/issues/52 (its title; the answer: 32 x A100 80GB is the minimum)
    "dose 8 A100 80g enough to finetune 70b llama2 ?",
    # https://github.com/ymcui/Chinese-LLaMA-Alpaca/issues/81 (its title: can a single 3090 or 4090 run it?)
    "3090或4090 单卡可以在本地推理 llama13B + 中文lora 的 4-bit量化模型吗？",
    # probes
    "probe: Would 2x A100 80GB be enough for Llama-2-70B in fp16?",
    "probe: Which is faster for 70B, 4x RTX 3090 or 2x A6000?",
    "probe: I am wondering whether 2x L40S could match one H100 on this model.",
]

OWNED = [
    # https://github.com/haotian-liu/LLaVA/issues/909 (its title: the machine's GPUs, then a question)
    ("I am using 8 RTX 4090 GPUs, 24GB each card, can I train and inference？", [("RTX 4090", 8)]),
    # https://github.com/OpenGVLab/OmniQuant/issues/106 (its title: a question about the card that ran out of memory)
    ("A single A100-80G can't run Llama-2-70b model?", [("A100-80G", 1)]),
    # probes: the GPU owned in the question's own sentence
    ("probe: I have 2x 3090, is it enough for 70B?", [("3090", 2)]),
    ("probe: Is my 4090 or the driver the problem?", [("4090", 0)]),
    ("probe: I wonder if my 2 3090s would be faster with NVLink?", [("3090", 2)]),
    # probes: a question about the run with no alternatives, sufficiency or would-clause
    ("probe: I wonder why 2x A100 is slower than one A100?", [("A100", 2)]),
    ("probe: Should we expect 2x A100 to be faster than 1x H100 or not?", [("A100", 2)]),
    # probes: alternatives in a statement, not a question
    ("probe: We run 2x A100 or 4x A100 depending on the day, and both are slow.", [("A100", 2)]),
    ("probe: 2x A100 is not enough for this model, it runs out of memory.", [("A100", 2)]),
]


@pytest.mark.parametrize("text", WEIGHED)
def test_hardware_weighed_in_a_question_is_not_the_machine(text):
    assert _gpus(text) == []


@pytest.mark.parametrize(("text", "gpus"), OWNED)
def test_the_machines_gpus_stay_read(text, gpus):
    assert _gpus(text) == gpus
