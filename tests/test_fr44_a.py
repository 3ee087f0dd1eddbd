"""Fixes of the misfires reviewer A proved on this session's int (s44 fr44a, fixer A). Each item: the probe, then the
near-misses that keep the old reading."""

import pytest

from diagnose.artifacts.text import cjk_spaced, sentence_start
from rules import claims, hearsay

_SYMPTOMS = dict(claims.SYMPTOMS)


def _said(kind: str, text: str) -> list[str]:
    return [m.group(0) for m in claims._said(kind, _SYMPTOMS[kind], cjk_spaced(text))]


# ----------------------------------------------------------------------------- 1-2. 停滞 / 挂起 only as a hang seen


@pytest.mark.parametrize("text", [
    "vLLM TP=4，GPU 大部分时间空闲，吞吐只有单卡的 1.5 倍，加到 8 卡后吞吐量停滞。",  # probe (36): a plateau
    "用 vLLM 跑 Qwen2-72B，从 4 卡加到 8 卡后吞吐量停滞，几乎没有提升。",  # probe (1)
    "4 卡时速度在每秒 3000 tokens，加到 8 卡后速度就停滞了，GPU 大部分时间处于空闲状态。",  # probe (2)
    "用 4 卡训练 Llama，loss 停滞在 2.3 附近不再下降，GPU 利用率只有 30%。",  # probe (3)
    "吞吐只有单卡的 1.5 倍。为了防止出现NCCL挂起问题，我们设置了 NCCL_P2P_DISABLE=1。",  # probe (29): a precaution
    "我们升级到 vLLM 0.6.3 后已经解决了挂起问题，现在的问题是 TP=4 时吞吐只有单卡的两倍。",  # probe (5): fixed
    "按照文档加了 --disable-custom-all-reduce 以免进程挂起，现在 TP=4 时吞吐只有单卡的两倍。",  # probe (6)
    "Pod 一直是 Pending，任务挂起（Pending）状态持续半小时，调度器说没有足够的 GPU。",  # probe (4): a state
    "用 Ctrl+Z 把进程挂起后再 fg 恢复，发现 TP=2 的吞吐比单卡还低。",  # probe (7): a suspend on purpose
    "我们之前遇到过 NCCL 初始化停滞，已经通过设置 NCCL_P2P_DISABLE=1 解决了。",  # probe (8): past and fixed
    "任务挂起状态下不占用 GPU",
])
def test_a_plateau_a_precaution_a_fix_or_a_suspend_is_no_hang(text):
    assert not _said("hang", text)


@pytest.mark.parametrize("text", [
    "当尝试使用两个GPU加载模型时,vLLM进程会在初始化阶段停滞,而单GPU推理则能正常工作。",  # blog.gitcode.com/26959e5b
    "进程成功检测到NCCL 2.21.5版本后停滞",
    "当尝试在多个计算节点上启动VLLM服务时,系统会出现挂起现象,无法正常完成初始化过程。",  # blog.gitcode.com/ecc57c12
    "Probe: tp=2 启动后服务挂起，没有任何输出。",
    "Probe: 单卡速度还可以，但 8 卡时进程会在初始化阶段停滞。",  # a rate in another clause
    "Probe: 吞吐只有单卡的一半。今天 8 卡启动时进程挂起，没有任何输出。",  # a rate in another sentence
    "Probe: 服务挂起后无法响应任何请求。",  # 挂起后, no 把: a hang
])
def test_a_stall_seen_is_still_a_hang(text):
    assert _said("hang", text)


# ----------------------------------------------------------------------------- 3. bad output supposed, not the month


def _set_aside(sentence: str) -> list[bool]:
    from rules import failure_words
    return [failure_words._set_aside(sentence, m) for m in failure_words._FAILED.finditer(sentence)]


@pytest.mark.parametrize("sentence", [
    "Since May 3 the model produces gibberish on every request.",  # probe (23): the month, not the modal
    "The server runs fine otherwise, it will produce garbage output after 100 tokens though.",  # probe (39)
])
def test_bad_output_seen_is_kept(sentence):
    assert _set_aside(sentence) == [False]


@pytest.mark.parametrize("sentence", [
    "it might also return garbage",  # words44's own
    "Make sure the template matches, otherwise it will produce garbage output.",
    "Otherwise it will produce garbage.",  # find_string id 32997890298
    "Set the flag or else it will produce garbage output.",
])
def test_bad_output_supposed_is_still_set_aside(sentence):
    assert _set_aside(sentence) == [True]


# ----------------------------------------------------------------------------- 4-5. Japanese and Korean errors seen


@pytest.mark.parametrize("text", [
    "エラーが出ることはありません。",  # probe (32)
    "vLLM を TP=4 で動かしています。エラーが出ることはありませんが、スループットが低い。",  # probe (16)
    "ログは標準エラー出力に書き出しています。",  # probe (13): stderr
    "エラーが出ても処理は続きます。",  # probe (17): a concession
    "エラーが発生したことはない。",
    "vLLM 을 TP=4 로 실행하면 오류 발생 없이 정상 동작하지만, 처리량이 낮습니다.",  # probe (14)
    "에러가 발생하는 경우 로그를 첨부하겠습니다.",  # probe (15): a case
    "에러 발생 여부는 아직 확인하지 못했습니다.",  # probe (28): whether
    "동료는 에러가 발생했다고 하던데 저는 로그를 못 봤습니다.",  # probe (27): another's word
])
def test_an_error_denied_supposed_or_heard_is_none(text):
    assert not _said("error", text)


@pytest.mark.parametrize("text", [
    "マイグレーションをデータベースに反映しようとすると、次のようなエラーが出ます。",  # find_string id 26406751963
    "（Consoleにエラーが出ます）",  # id 31293296383
    "C#環境の構築にて、友人のPCでエラーが発生したので",  # id 26406751963
    "Probe: エラーが出て止まります。",
    "SQL로 직접 정책을 생성하려고 하면 \"must be owner of table objects\" 에러가 발생합니다.",  # id 15079174906
    "뜬금없는 SQL syntax 에러가 납니다.",  # id 42579290777
    "Probe: 에러가 났는데 원인을 모르겠습니다.",
    "Probe: 에러 발생 후 프로세스가 종료됩니다.",
])
def test_an_error_seen_is_still_one(text):
    assert _said("error", text)


# ----------------------------------------------------------------------------- 6-7. a run that freezes, not parameters


@pytest.mark.parametrize("text", [
    "With 8 GPUs and DeepSpeed ZeRO-3, training freezes halfway through the layers of the first forward pass.",  # 18
    "On 8 x A100 with FSDP the job sometimes freezes: 2 out of 5 runs never get past step 1.",  # probe (19)
    "After ten minutes Ollama froze my LLM server and nothing answers anymore.",  # probe (40)
    "vLLM で TP=2 にすると、ローカルLLMもフリーズします。",  # probe (20)
    "Probe: the process freezes midway through the decoder layers.",
])
def test_a_run_that_freezes_is_a_hang(text):
    assert _said("hang", text)


@pytest.mark.parametrize("text", [
    "Stage 1 — freeze=10: freeze the backbone, adapt only neck + head",  # words44's real (id 61397678015)
    "freeze: [0, 1]",  # probe: a config line
    "--freeze: 3",  # probe
    "we froze the vision encoder and the LLM",  # words44's probe
    "LLMをフリーズして学習します",  # probe: the marked object
    "対象外の層の重みをフリーズ。",  # real (id 53668722867)
    "모델의 헤드만 프리징하여 훈련",  # real (id 3693901214)
])
def test_frozen_parameters_stay_no_hang(text):
    assert not _said("hang", text)


# ----------------------------------------------------------------------------- 9. the symptom scan stays linear


@pytest.mark.parametrize("word", ["停滞", "エラーが出ます", "에러가 납니다 ", "stuck "])
def test_a_failure_word_reads_its_sentence_back_a_bounded_span(word):
    """Probe: each failure word of an unpunctuated run read its sentence back to the text's start (hearsay.advised's
    sentence bounds from 0, _said's hearsay and Chinese checks), so the scan went quadratic (2500 x 停滞: 0.7 s). The
    sentence before a match is now read back at most hearsay.SENTENCE_SPAN characters; the speed itself is measured
    by benchmarks/ticket_speed.py (its runs of failure words), never timed here."""
    text = word * (4 * hearsay.SENTENCE_SPAN // len(word))
    pos = len(text) - len(word)
    assert sentence_start(text, pos, hearsay.SENTENCE_SPAN) == pos - hearsay.SENTENCE_SPAN
    # just after a nearer full stop (and its space: text.sentence_start, the one splitter since splitter45)
    assert sentence_start("It hangs. " + word, 10, hearsay.SENTENCE_SPAN) == 10


# ----------------------------------------------------------------------------- 8. idle GPUs beside a hang seen now


def test_idle_gpus_beside_a_fixed_hang_keep_gpu_utilisation():
    """Probe (items 1-2 widened it: 2.md, 8.md): a Chinese hang fixed before no longer silences the idle GPUs, as
    main reads it (claims.find has no Chinese hang)."""
    from conftest import judged_issue
    _, findings = judged_issue("# TP=4 慢\n\nvLLM TP=4，4 张 L40S，GPU 大部分时间空闲，吞吐只有单卡的 1.5 倍。"
                               "之前出现过卡住的问题，升级后已经解决了。\n")
    assert "ticket.gpu_utilisation" in findings
    _, findings = judged_issue("# TP=4 慢\n\nTP=4 吞吐只有单卡的两倍。GPU 大部分时间空闲。"
                               "我们之前遇到过 NCCL 初始化停滞，已经通过设置 NCCL_P2P_DISABLE=1 解决了。\n")  # (8)
    assert "ticket.gpu_utilisation" in findings


@pytest.mark.parametrize("text", [
    "Probe: 为了提高吞吐，加了 --enforce-eager 后进程挂起，GPU 大部分时间空闲。",  # the change brought the hang
    "Probe: 之前单卡速度还可以，现在 4 卡启动时卡住不动，GPU 大部分时间空闲。",  # 之前 in another clause
])
def test_a_hang_after_a_change_or_a_contrast_is_seen_now(text):
    assert _said("hang", text)
    m = next(claims._said("hang", _SYMPTOMS["hang"], cjk_spaced(text)))
    assert not claims.zh_hang_averted(cjk_spaced(text), m)
