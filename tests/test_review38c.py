"""Precision review of the readings merged late in session 38 (pass review38c).

Every probe is in tests/data/review38c/NOTES.md with its verdict before and after. Two misfires were fixed: a data
step that raised an error ("数据格式错误", a KeyError) read as the wrong values a broken peer copy gives, and a
fraction of the rate said with "only" ("只有单卡的一半速度") not read as a slowdown, so two 3090s at half the speed of
one were answered healthy.
"""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules import claims
from rules.engine import evaluate, ticket_verdict


def _facts(tmp_path: Path, body: str):
    path = tmp_path / "ticket.md"
    path.write_text("# 请教一个问题\n\n" + body + "\n")
    return read_bundle([path])


def _verdict(facts) -> str:
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts))).category


# --- wrong results in Chinese (para38b): the values wrong, not a step on the data that raised an error

@pytest.mark.parametrize("body,wrong", [
    ("数据格式错误导致训练脚本退出，报 KeyError: 'instruction'，我用的 8 卡 A100。", False),
    ("运行脚本报数据类型错误：RuntimeError: expected scalar type Half but found Float，4 张 A100 tp=4。", False),
    ("数据读取错误，json 文件格式不对，报 JSONDecodeError。", False),
    ("数据集路径错误导致报错，改好后 8 卡训练正常。", False),
    # still wrong values
    ("两张 4090 之间 cudaMemcpyPeer 拷过去的数据全都是错的，经过 CPU 中转就是对的。", True),
    ("tp=2 的推理结果错误，输出全是感叹号，两张 4090 没有 NVLink，tp=1 正常。", True),
    ("tp=2 时输出乱码，tp=1 正常，两张 4090 PCIe，没有 NVLink。", True),
])
def test_data_step_error_is_no_wrong_result(tmp_path, body, wrong):
    kinds = {c.kind for c in claims.claims(_facts(tmp_path, body))}
    assert ("wrong_results" in kinds) is wrong


def test_data_format_error_is_not_answered_as_p2p(tmp_path):
    facts = _facts(tmp_path, "数据格式错误导致训练脚本退出，报 KeyError: 'instruction'，我用的 8 卡 A100。")
    assert _verdict(facts) != "p2p_disabled"


# --- a fraction of the rate said with "only", as English "half the speed" (review38b's open gap)

@pytest.mark.parametrize("body,slow", [
    ("是不是 P2P 的问题？两张 3090 跑 tp=2 只有单卡的一半速度", True),
    ("四张 L20 tp=4 的吞吐不到单卡的三分之一，用的 vLLM 0.6。", True),
    ("两块 3090 用 tp=2 推理，性能也只有单卡的一半。", True),
    # a ratio stated plainly, and memory halved, are no slowdown
    ("单卡的速度是双卡的一半，tp=2 在两张 A100 NVLink 上加速正常，想确认一下这个比例对不对。", False),
    ("两张 A6000 tp=2 后每张卡的显存只有一半被占用，速度 30 tokens/s，正常吗？", False),
])
def test_fraction_of_the_rate_is_a_slowdown(tmp_path, body, slow):
    assert (claims.symptom(_facts(tmp_path, body)) == "slow") is slow


def test_two_3090s_at_half_speed_are_not_healthy(tmp_path):
    facts = _facts(tmp_path, "是不是 P2P 的问题？两张 3090 跑 tp=2 只有单卡的一半速度")
    assert _verdict(facts) not in ("healthy", "expected_physics")
