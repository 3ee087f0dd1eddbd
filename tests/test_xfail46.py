"""xfail46 (issue 11): GPUs weighed in a question are hardware considered, not the machine that ran
(issue_md._weighed): offered as alternatives in a question, asked to be enough, wondered about in a would-clause, or
their count asked ("how many H100s ...?").
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
    # https://github.com/weizhepei/InstructRAG/issues/6 (the asker looks for a VM to rent; the answer: 2x H100 suffice)
    "I want to test out the results by myself and wanted to set this up, what sort of config should i look for , for "
    "my VM. Would 2H100 in a cluster be enough ?  if yes, what would be good testes service to rent these from ?",
    # https://github.com/xai-org/grok-1/issues/110 (its title), https://github.com/aigc-apps/VideoX-Fun/issues/397
    # (its title), https://github.com/TigerResearch/TigerBot/issues/5 (its title: about how many A800s for full
    # training?): the count asked
    "how many h100's are needed to run grok?",
    "How much H100 GPUs are required to train Z-Image-Fun_Controlnet?",
    "全量训练大概有多少张A800呢？",
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
    # https://github.com/zju-jiyicheng/SpecVLM/issues/3 (its body: the count of A100s asked, then the machine's own
    # three A800s, which must be what is read)
    ("When using a 7B model with 128 frames, how many A100 GPUs are required—40 GB or 80 GB?\n"
     "When I run the model on three A800-80G cards, it still runs out of memory.", [("A800-80G", 3)]),
    # https://github.com/OpenBMB/CPM-Bee/issues/92 (a kept paste, tests/data/symptom34/cpmbee_92.md): the machine's
    # 4090 listed, then 'is it because the memory is not enough?' in a later clause
    ("ubuntu，显卡4090，显存24G，加载模型：cpm-bee-10b，执行“python text_generation_hf.py”时，"
     "程序在加载模型中被kill了，没有其他提示信息，是因为显存不够吗？torch版本：1.13.1+cu117", [("4090", 0)]),
    # probes: the GPU owned in the question's own sentence
    ("probe: I have 2x 3090, is it enough for 70B?", [("3090", 2)]),
    ("probe: Is my 4090 or the driver the problem?", [("4090", 0)]),
    ("probe: I wonder if my 2 3090s would be faster with NVLink?", [("3090", 2)]),
    # probes: a question about the run with no alternatives, sufficiency or would-clause
    ("probe: I wonder why 2x A100 is slower than one A100?", [("A100", 2)]),
    ("probe: Should we expect 2x A100 to be faster than 1x H100 or not?", [("A100", 2)]),
    # probes: alternatives in a statement, not a question
    ("probe: We run 2x A100 or 4x A100 depending on the day, and both are slow.", [("A100", 2)]),
    # probe: alternatives after 'than' are the runs set against the reporter's, not hardware weighed
    ("probe: Why is A100 slower than H100 or L40S on the same model?", [("A100", 0)]),
    ("probe: 2x A100 is not enough for this model, it runs out of memory.", [("A100", 2)]),
    ("probe: Is 2x A100 not enough for a 70B model?", [("A100", 2)]),
    # probes: hearsay and advice said as statements: the weighed reading stays out (what they weigh is another
    # reading's matter)
    ("probe: I read that 2x 3090 is enough for 70B.", [("3090", 2)]),
    ("probe: Try 2x A100 or 4x A100 and compare.", [("A100", 2)]),
    # probes: 'how many' asks of something else than the GPUs, or is no question
    ("probe: How many tokens per second should 2x A100 give for Llama-2-70B?", [("A100", 2)]),
    ("probe: I know how many A100s we have: 4.", [("A100", 0)]),
]


@pytest.mark.parametrize("text", WEIGHED)
def test_hardware_weighed_in_a_question_is_not_the_machine(text):
    assert _gpus(text) == []


@pytest.mark.parametrize(("text", "gpus"), OWNED)
def test_the_machines_gpus_stay_read(text, gpus):
    assert _gpus(text) == gpus
