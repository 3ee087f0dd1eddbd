"""Issue 11 (session s43, the lead): three readings the s42 note left known wrong.

- A multiple of the speed said with "as fast" is a gain (claims._IMPROVED): "twice as fast, but still slow" after a
  remedy helped in part, as "faster, though still slow" does; it is not "no help".
- "Slow" in Japanese and Korean is the slow symptom, as 慢 is in Chinese (claims.SYMPTOMS): 遅い / 遅くなった,
  느립니다 / 느림 / 느려요 / 느린; not their negations (遅くない, 느리지 않) nor 遅延 (latency).
- The machines counted before 各 are read whole, as card counts are (issue_md.CJK_NODES_EACH over _CJK_N):
  "十二台服务器各 8 卡" is twelve machines; a GPU model's digits are still no count.
Real sentences (cited) and probes (marked), negations and near-misses included.
"""

import pytest
from conftest import said

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts, Workload
from rules import claims

TITLE = "# 멀티 GPU 추론\n\n"


# ------------------------------------------------------------------------------------------- "twice as fast"
@pytest.mark.parametrize("sentence, effect", [
    ("It is twice as fast with NCCL_P2P_LEVEL=NVL but still slow.", None),  # probe: helped in part
    ("After the upgrade it became 2x as fast, but it is still slower than TP=1.", None),  # probe
    ("It got three times as fast, though TP=4 is still slow.", None),  # probe
    ("It is still slow, not twice as fast.", "no_help"),  # probe: the gain denied
    ("It is half as fast and still slow.", "no_help"),  # probe: a fraction is no gain
    ("It is still slow, I expected it to be twice as fast.", "no_help"),  # probe: a gain only hoped for
    ("still slow", "no_help"),  # probe: unchanged reading
])
def test_a_multiple_as_fast_is_a_gain(sentence, effect):
    assert claims._effect(sentence) == effect


# ------------------------------------------------------------------------------------ slow in Japanese and Korean
def _slow(text: str) -> bool:
    return claims.symptom(said(TITLE + text)) == "slow"


@pytest.mark.parametrize("text", [
    # real sentences (public GitHub files in the search index; none from a ticket this reading was written from)
    "대규모 언어 모델(LLM)의 자기회귀(autoregressive) 생성은 토큰을 하나씩 순차적으로 생성하기 때문에 "
    "추론 속도가 느립니다.",
    "3비트 모델의 경우 추론 속도가 느립니다 (gemlite 커널 없음)",
    "lora adapter 변화랑 model parameter에 병합 - merge_and_unload() 안해도 되지만, 그러면 추론 속도가 느림",
    "GPUのエンコード、めっちゃ遅いですね。処理中です。",
    "`ema.device=cpu` は VRAM を節約できますが推論が遅くなります。",
    # probes
    "TP=2 로 실행하면 추론이 느려요.",
    "バージョンを上げたら推論が遅くなった。",
])
def test_slow_in_japanese_and_korean(text):
    assert _slow(text)


@pytest.mark.parametrize("text", [
    "TP=2 로 실행해도 추론이 느리지 않습니다.",  # probe: denied
    "TP=2 로 바꿔도 느려지지 않았다.",  # probe: denied
    "4枚のGPUでも推論は遅くない。",  # probe: denied
    "4枚のGPUでも遅くなかった。",  # probe: denied
    "通信の遅延は10ms程度です。",  # probe: 遅延 is latency, a figure's name
])
def test_denied_or_latency_is_not_slow(text):
    assert not _slow(text)


# -------------------------------------------------------------------------------------- machines counted before 各
def _nodes(text: str):
    facts = Facts()
    facts.add(*issue_md.parse(f"# 问题\n\n{text}\n", "issue.md"))
    return next((w.nodes for w in facts.of(Workload) if w.nodes), None)


@pytest.mark.parametrize("text, nodes", [
    ("环境：十二台服务器各 8 卡，TP=16。", 12),  # probe: twelve, read whole
    ("五台机器各8卡，跑 nccl-tests。", 5),  # probe: 五 counted
    ("双机各 8 卡，TP=16。", 2),  # probe: unchanged
    ("环境：A100 机器各 8 卡，TP=8。", None),  # probe: a model's digits are no count
    ("第二台服务器各 8 卡", None),  # probe: an ordinal is no count
])
def test_machines_before_each_read_whole(text, nodes):
    assert _nodes(text) == nodes


# ------------------------------------------------------------------- a sparse peak, for a run that is itself sparse
def _sparse(text: str):
    from rules import ticket_questions
    from rules.subject import Subject

    facts = Facts()
    facts.add(*issue_md.parse(f"# MFU\n\n{text}\n", "issue.md"))
    facts.subject = Subject.of(facts)
    return ticket_questions.sparse_peak_quoted(facts)


@pytest.mark.parametrize("text", [
    # probes: the run multiplies 2:4-sparse weights, whose GEMMs do peak at the sparse figure
    "On one H100 SXM we convert the linear weights with to_sparse_semi_structured and reach 800/1979 TFLOPS.",
    "H100 SXM, a 2:4 sparse model pruned with SparseGPT: the util is 700/1979, is that normal?",
    "我们在 H100 SXM 上用 2:4 稀疏化 的权重，利用率 800/1979。",
])
def test_sparse_run_keeps_the_sparse_peak(text):
    assert _sparse(text) is None


@pytest.mark.parametrize("text", [
    "H100 SXM, we do not use 2:4 sparsity: the util is 400/1979, is that normal?",  # probe: sparsity denied
    "H100 SXM: the util is 400/1979; I read that sparse kernels reach more.",  # probe: hearsay of sparsity
    "Training on 8x H100 SXM, our MFU is 400/1979, only 20%, is that normal?",  # probe: unchanged, dense run
])
def test_dense_run_still_reads_the_sparse_peak(text):
    assert _sparse(text) is not None
