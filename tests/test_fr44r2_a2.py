"""Fixes of the misfires reviewer A2 proved on the first fixers' changes (s44 fr44r2, fixer A2). Each item: the probe,
then the near-misses that keep the old reading."""

import pytest

from diagnose.artifacts.text import cjk_spaced
from rules import claims, failure_words

_SYMPTOMS = dict(claims.SYMPTOMS)


def _said(kind: str, text: str) -> list[str]:
    return [m.group(0) for m in claims._said(kind, _SYMPTOMS[kind], cjk_spaced(text))]


def _set_aside(sentence: str) -> list[bool]:
    return [failure_words._set_aside(sentence, m) for m in failure_words._FAILED.finditer(sentence)]


# ----------------------------------------------------------------------------- 1-4. 停滞 / 挂起 seen now


@pytest.mark.parametrize("text", [
    "在 loss.backward() 之前进程挂起。",  # probe (12): "before X", not the past
    "把模型加载到 GPU 后进程挂起。",  # probe (13): 把 of another object
    "GPU 利用率 100% 但训练停滞。",  # probe (14): a rate, then another subject
    "计算 loss 时训练停滞，没有任何报错。",  # probe (20)
    "用 nccl-tests 测带宽时停滞。",  # probe (21)
    "多机训练时进程挂起，重启后暂时解决了，但几个小时后又会复现。",  # probe (28): a fix only for a while
    "多机训练时进程挂起，py-spy 显示在 all_reduce，请问这个问题要怎么才能彻底解决了？",  # probe (29): asked for
    "原来的配置下进程挂起。",  # "former", not the past
    "过去 2 小时进程挂起，没有任何输出。",  # a span
])
def test_probe_a_hang_seen_now(text):
    assert _said("hang", text)


@pytest.mark.parametrize("text", [
    "用 vLLM 跑 Qwen2-72B，从 4 卡加到 8 卡后吞吐量停滞，几乎没有提升。",
    "4 卡时速度在每秒 3000 tokens，加到 8 卡后速度就停滞了，GPU 大部分时间处于空闲状态。",
    "用 4 卡训练 Llama，loss 停滞在 2.3 附近不再下降，GPU 利用率只有 30%。",
    "用 Ctrl+Z 把进程挂起后再 fg 恢复，发现 TP=2 的吞吐比单卡还低。",
    "我们之前遇到过 NCCL 初始化停滞，已经通过设置 NCCL_P2P_DISABLE=1 解决了。",
    "以前也出现过进程挂起。",
    "多机训练时进程挂起，已经通过设置 NCCL_P2P_DISABLE=1 解决了。",
    "我们升级到 vLLM 0.6.3 后已经解决了挂起问题，现在的问题是 TP=4 时吞吐只有单卡的两倍。",
])
def test_a_plateau_a_suspend_a_past_or_fixed_hang_stays_none(text):
    assert not _said("hang", text)


# ----------------------------------------------------------------------------- 5. freezing parameters


@pytest.mark.parametrize("text", [
    "I freeze part of the backbone and fine-tune the rest with LoRA.",  # probe (22)
    "We freeze over 20 layers of the vision encoder during fine-tuning.",  # probe (23)
    "인코더는 프리징하고 디코더만 학습합니다.",  # probe (25)
    "エンコーダーはフリーズし、デコーダーのみ学習します。",  # probe (26)
    "We freeze half of the layers.",
])
def test_probe_frozen_parameters_are_no_hang(text):
    assert not _said("hang", text)


@pytest.mark.parametrize("text", [
    "With 8 GPUs and DeepSpeed ZeRO-3, training freezes halfway through the layers of the first forward pass.",
    "Training freezes part way through the layers of the first forward pass.",
    "On 8 x A100 with FSDP the job sometimes freezes: 2 out of 5 runs never get past step 1.",
    "vLLM で TP=2 にすると、ローカルLLMもフリーズします。",
    "After ten minutes Ollama froze my LLM server and nothing answers anymore.",
    "エンコーダーはフリーズしました。",  # no training after it
    "서버는 프리징되었습니다.",
])
def test_a_run_that_freezes_is_still_a_hang(text):
    assert _said("hang", text)


# ----------------------------------------------------------------------------- 6, 8. Korean and Japanese errors


@pytest.mark.parametrize("text", [
    "RuntimeError 오류가 발생했다고 뜨고 프로세스가 종료됩니다.",  # probe (8): shown on screen
    "오류가 발생하는 지점은 model.forward 입니다.",  # probe (9): 지점, "the point"
    "エラーが出力されて処理が止まります。",  # probe (10): put out
])
def test_probe_an_error_seen(text):
    assert _said("error", text)


@pytest.mark.parametrize("text", [
    "에러가 발생했다고 하던데 저는 못 봤습니다.",
    "오류가 나는지 확인해 주세요.",
    "標準エラー出力を確認しました。",
])
def test_an_error_heard_asked_or_the_stream_stays_none(text):
    assert not _said("error", text)


# ----------------------------------------------------------------------------- 7. "otherwise" after advice


@pytest.mark.parametrize("sentence", [
    "Make sure to pass --trust-remote-code otherwise it will produce garbage output.",  # probe (17)
    "You must set --dtype float16 - otherwise it will return gibberish.",  # probe (18)
    "- Otherwise it will return gibberish.",  # probe (30)
    "Set --dtype float16, otherwise it will return gibberish.",
])
def test_probe_advice_otherwise_is_supposed(sentence):
    assert all(_set_aside(sentence))


@pytest.mark.parametrize("sentence", [
    "The server runs fine otherwise, it will produce garbage output after 100 tokens though.",
    "With TP=2 the model produces garbage output after 100 tokens.",
])
def test_bad_output_seen_is_kept(sentence):
    assert not any(_set_aside(sentence))
