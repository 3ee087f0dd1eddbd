"""Issue 11: a job said to span GPUs without a count (claims.several_gpus): a tensor-parallel degree bounded below
at two ("tensor-parallel-size > 1", "tp≥2") and the Chinese words for several cards (多卡, 双卡, 两张卡). With a hang
on GPUs of one node and no NVLink known, ticket.hang_on_pcie then keeps peer-to-peer as a lead; with no GPU named it
cannot know the GPUs are on PCIe, so the lead asks for the topology (review50, tests/test_review50.py link_unknown).

The statements are the reporters' own words from public threads (each with its URL), none of them a corpus case.
"""

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict


def diagnosed(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    findings = evaluate(facts, ticket_predictions(facts))
    return findings, ticket_verdict(facts, findings)


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


SEVERAL = [
    # https://github.com/vllm-project/vllm/issues/8087 (title)
    "[Bug]: when tensor-parallel-size>1，Stuck",
    # https://github.com/genlm/genlm-backend/issues/10 (title)
    "Hangs indefinitely when `tensor_parallel_size` > 1",
    # https://github.com/vllm-project/vllm/issues/13814
    "However, as long as I set tensor-parallel-size > 1, it will get stuck when loading the model.",
    "Everything works with TP=1 but with tp >= 2 the server never becomes ready.",
    # https://github.com/opendatalab/DocLayout-YOLO/issues/172 (title)
    "训练代码，单卡可以，多卡就卡住了，请问大佬咋解决啊",
    # https://github.com/Tencent-Hunyuan/SRPO/issues/19 (title)
    "在使用单机双卡训练时总是卡住，请问有解决方案吗",
    # https://github.com/baichuan-inc/Baichuan2/issues/86
    "我试了一下，可以加载到两张卡上。但是，推理的速度非常慢",
]


@pytest.mark.parametrize("text", SEVERAL)
def test_several_gpus_said(text):
    assert claims.several_gpus(said(text)), text


ONE_OR_NONE = [
    "With tensor-parallel-size 1 everything is fine.",
    "tp=1 works, I have not tried more.",
    "单卡推理的速度很慢",  # one card
    "GPU: NVIDIA RTX 4090, TP 1 -> fine",
    "tensor_parallel_size > 0 is required by the config schema.",
    "I have not tried multiple GPUs yet.",
]


@pytest.mark.parametrize("text", ONE_OR_NONE)
def test_one_gpu_or_no_bound_is_not_several(text):
    assert not claims.several_gpus(said(text)), text


@pytest.mark.parametrize("text", [
    # https://github.com/vllm-project/vllm/issues/13814
    "# vLLM serve Deepseek-R1-14B tensor parallelism failed\n\nIf I disable tensor parallelism, everything works "
    "fine. However, as long as I set tensor-parallel-size > 1, it will get stuck when loading the model.\n",
    # https://github.com/PaddlePaddle/PaddleDetection/issues/6857
    "# 多卡训练卡住\n\n多卡训练会卡住，一上来就训练不了，单卡的话训练就没有问题\n",
])
def test_a_hang_on_several_unnamed_gpus_is_a_p2p_lead_that_asks_for_the_topology(tmp_path, text):
    findings, verdict = diagnosed(tmp_path, text)
    lead = next(f for f in findings if f.rule == "ticket.hang_on_pcie")
    assert lead.category == "p2p_disabled" and "topo -m" in lead.ask
    assert verdict.category == "insufficient_data"


def test_a_hang_on_one_card_is_no_p2p_lead(tmp_path):
    findings, _ = diagnosed(tmp_path, "# 单卡推理卡住\n\n单卡推理的时候会卡住，没有报错。\n")
    assert not any(f.rule == "ticket.hang_on_pcie" and f.is_problem for f in findings)
