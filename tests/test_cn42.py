"""Issue 11 (session s42, pass cn42): real threads from Chinese-language repositories earlier passes searched little
(yuanzhoulvpi2017/zero_nlp, hiyouga/LlamaFactory, LianjiaTech/BELLE, QwenLM/Qwen3-VL, CodeGoat24/Pref-GRPO,
Tencent-Hunyuan/HunyuanDiT): multi-GPU training or inference that is slow, fails in NCCL, cannot split, or uses one
GPU, each settled in its thread and run blind (tests/data/cn42/SOURCES.md has each thread, its settled answer and
the verdicts before and after).

Three readings, each the Chinese form of one the English readings already have:

1. one_slow: a count that is a place or a means ("只能在第一个GPU...很慢", "压在一张卡上算得太慢", "用一张卡跑很慢")
   is the layout, not one GPU behind the others, as "on one GPU it is slower" is left alone in English; nor one denied
   to exist ("没有一张卡很慢").
2. the scaling symptom: "X 没有 Y 快" (X is not as fast as Y) with more cards or machines against one, as "X 不如 Y 快"
   already is ("使用多机训的速度没有单机快", "在多卡中开启图模式没有单卡推理速度快").
3. tp_size_error: a quantised width divided by its group first, the groups left that the TP sizes cannot share
   ("intermediate_size为29568，除以groupsize(128)后剩下的231无法被2或4或8整除"), as "无法整除4*128" already is.

The other misses stay strict xfails with their reasons.
"""

import re
from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts.text import cjk_spaced
from rules import claims

DATA = Path(__file__).parent / "data" / "cn42"


def _judged(name: str):
    return judged_issue((DATA / name).read_text(encoding="utf-8"))


def _post(title: str, body: str) -> str:
    return f"# {title}\n\n{body}\n"


_ONE_SLOW = [re.compile(p) for p in claims.PATTERNS["one_slow"] if "拖后腿" in p]
_SCALING = re.compile(claims._CJK_SCALING, re.I)
_TP = [re.compile(p, re.I) for p in claims.PATTERNS["tp_size_error"] if "除以" in p]


def _one_slow(text: str) -> bool:
    return any(p.search(cjk_spaced(text)) for p in _ONE_SLOW)


# ----------------------------------------------------------------------------- 1. one GPU as a place, not a straggler


@pytest.mark.parametrize("text", [
    "怎么在多个GPU上运行，没找到参数，只能在第一个GPU图像生成很慢",  # Tencent-Hunyuan/HunyuanDiT#36 (title)
    # a Chinese SGLang dp-attention/DCP explainer (find_string id 71462705024): one request crammed onto one card
    "或者一个请求的 attention 压在一张卡上算得太慢。",
    "Probe: 用一张卡跑很慢，换两张卡也一样。",
    "Probe: 模型放到一张卡上推理很慢。",
    "Probe: 没有一张卡很慢，几张卡利用率都差不多。",
])
def test_a_count_that_is_a_place_or_denied_is_no_straggler(text):
    assert not _one_slow(text)


@pytest.mark.parametrize("text", [
    "其中一张卡明显比其他卡慢",  # the reading's own example (issue 11 n)
    "总有一个进程比其他的慢",  # (para37b)
    "Probe: 第一张卡比其他卡慢很多，每次都要等它。",
    "Probe: 有一张卡特别慢。",
])
def test_one_card_behind_the_others_still_reads(text):
    assert _one_slow(text)


def test_only_on_the_first_gpu_is_no_longer_a_straggler_verdict():
    """Tencent-Hunyuan/HunyuanDiT#36: blind 'straggler' 0.69 from "第一个GPU...很慢" (one image, one GPU)."""
    verdict, findings = _judged("hunyuandit36.md")
    assert "ticket.one_slow" not in findings
    assert verdict.category != "straggler"


@pytest.mark.xfail(strict=True, reason="settled 'other' (the app does not split one image over GPUs, a feature): "
                   "nothing in the post says so; the engines' default placement reading needs a model and engine")
def test_hunyuandit36_settled():
    assert _judged("hunyuandit36.md")[0].category == "other"


# ----------------------------------------------------------------------------- 2. X 没有 Y 快


@pytest.mark.parametrize("text", [
    "使用多机训的速度没有单机快",  # CodeGoat24/Pref-GRPO#16 (title)
    "在多卡中开启图模式没有单卡推理速度快",  # DeepLink-org/dlinfer#109 (title)
    "Probe: 两台机器没有单机快",
    "Probe: 双卡速度没有单卡快吗？",
])
def test_more_cards_or_machines_not_as_fast_as_one_is_the_scaling_complaint(text):
    assert _SCALING.search(cjk_spaced(text))


@pytest.mark.parametrize("text", [
    # a README's note, no count of cards: FSDP may be slower than one card, which is normal (find_string id
    # 7297272145)
    "FSDP模式下可能还没有单卡快（单卡跑得起的时候），这是正常的",
    "Probe: 单卡没有双卡快",  # the fewer side first: the cards help
    "Probe: 四卡并不是没有单卡快",  # denied
    "Probe: 多卡没有问题，很快",  # no comparison
])
def test_the_comparison_needs_the_more_side_first_and_no_denial(text):
    assert not _SCALING.search(cjk_spaced(text))


def test_multi_node_not_as_fast_as_one_node_is_no_longer_healthy():
    """CodeGoat24/Pref-GRPO#16: blind 'healthy' (the question read as no complaint); now the multi-node ask."""
    verdict, findings = _judged("prefgrpo16.md")
    assert verdict.category != "healthy" and "ticket.nothing_broken" not in findings


@pytest.mark.xfail(strict=True, reason="settled expected_physics (FSDP full_shard over 32 GPUs, the maintainer): the "
                   "post shows only images; the English wording ends in the same multi-node ask (insufficient_data)")
def test_prefgrpo16_settled():
    assert _judged("prefgrpo16.md")[0].category == "expected_physics"


# ----------------------------------------------------------------------------- 3. width / group not divisible by TP


def test_the_width_over_its_group_left_unsplittable_is_the_tp_refusal():
    """QwenLM/Qwen3-VL#231: 29568 / 128 = 231 groups, which no TP over 1 shares; the fix names TP 1 (vllm#21695)."""
    verdict, findings = _judged("qwenvl231.md")
    assert verdict.category == "tp_not_dividing_heads"
    assert "231" in findings["ticket.tp_size_error"].fix and "TP 1" in findings["ticket.tp_size_error"].fix


@pytest.mark.parametrize("text", [
    # the same thread's next sentence asks for a width the groups CAN share
    "现在请求官方使用不同的groupsize进行量化以使得intermediate_size / groupsize可以被2，4，8整除",
    "Probe: intermediate_size为29696，除以128后是232，可以被2、4、8整除",
    "Probe: 29568除以128是231，无法被2整除",  # no width named
])
def test_divisible_or_unnamed_widths_are_no_refusal(text):
    assert not any(p.search(cjk_spaced(text)) for p in _TP)


# ----------------------------------------------------------------------------- real first posts


def test_four_3060s_training_slower_than_one_is_the_physics():
    """yuanzhoulvpi2017/zero_nlp#96: no NVLink between 3060s, the cards' traffic (the maintainer)."""
    assert _judged("zeronlp96.md")[0].category == "expected_physics"


@pytest.mark.xfail(strict=True, reason="settled expected_physics (ZeRO-3's parameter traffic, hiyouga): no reading "
                   "of ZeRO-3 against ZeRO-2 rests on three threads (ms-swift#1825's zero3 slowness was IB off)")
def test_lf3499_settled():
    assert _judged("lf3499.md")[0].category == "expected_physics"


@pytest.mark.xfail(strict=True, reason="settled shm_too_small (--ipc=host in docker, the reporter): the post names "
                   "no container; the ambiguous error asks for /dev/shm, which is as far as the post goes")
def test_belle136_settled():
    assert _judged("belle136.md")[0].category == "shm_too_small"
