"""Session s42, final read (fr42), fixer A: misfires a read-only reviewer proved with probes.

- claims._HANG_KO_JA: a Korean or Japanese timeout denied in the short or progressive form ("타임아웃이 안 났습니다",
  "NCCLのタイムアウトは発生していません", "タイムアウトせずに完了"), or asked whether it will happen ("타임아웃이
  발생하나요?", claims._ko_ja_asked), read as a hang;
- claims.MORE_WORDS_L42 no_p2p: "P2P를 지원하지 않는 경우 ..." (a general condition) and "지원하지 않는다면" (if it
  does not) read as the machine's P2P refused;
- claims._NOT_IF (gpu_idle_words): "if your GPU usage is mostly 0%, ..." (a guide's condition) read as the GPU idle.
Each probe (marked probe) is the reviewer's; the near-misses keep the old reading.
"""

import pytest
from conftest import read_paste, said

from rules import claims

TITLE = "# 학습 문제\n\n"


def hang(text: str) -> bool:
    return claims.symptom(said(TITLE + text)) == "hang"


def no_p2p_any(text: str) -> bool:
    """A no_p2p claim of any kind (a guess included: the question probe gave one)."""
    return any(c.kind == "no_p2p" for c in claims.claims(said(TITLE + text)))


# ----------------------------------------------------------------------------------------- 1. the KO/JA timeout
@pytest.mark.parametrize("text", [
    # probes
    "8x A100, NCCL_TIMEOUT을 7200으로 늘린 뒤로는 타임아웃이 안 났습니다. 다만 학습 속도가 20% 느립니다.",
    "8x A100でDDP学習。NCCLのタイムアウトは発生していません。ただしステップ時間が想定の2倍です。",
    "8x A100 DDP. NCCL_TIMEOUT을 늘린 뒤로 타임아웃은 더 이상 안 납니다. 다만 학습 속도가 느립니다.",
    "8x A100でDDP学習。タイムアウトエラーは出ていませんが、ステップ時間が想定の2倍です。",
    "8x A100 DDP 학습 속도가 느립니다. 노드를 늘리면 NCCL 타임아웃이 발생하나요?",
    "8x A100でDDP。学習はタイムアウトせずに完了しますが、遅いです。",
    # the same forms with other verbs and words between
    "8x A100 DDP. 타임아웃 에러는 전혀 안 생깁니다. 속도만 느립니다.",
    "8x A100 DDP. NCCL 타임아웃은 발생하고 있지 않습니다.",
    "8x A100でDDP。タイムアウトは一度も起きていない。",
    "8x A100でDDP。タイムアウトは出なかったが遅い。",
    "8x A100でDDP。ノードを増やすとタイムアウトは発生しますか？",
    "8x A100 DDP. 노드를 늘리면 타임아웃이 날까요?",
])
def test_timeout_denied_or_asked_is_no_hang(text):
    assert not hang(text)


@pytest.mark.parametrize("text", [
    # the real sentences _HANG_KO_JA was written for (cited in claims)
    "항상 일정 시간이 지나면 NCCL ALLREDUCE 타임아웃이 발생하면서 학습이 죽어버리는 문제가 있었다.",
    "NCCL watchdogタイムアウト（rank0が10分停止）が1回発生 → dmesg Xidなし",
    # a question why it does: the timeout is seen
    "8x A100 DDP. 왜 NCCL 타임아웃이 발생하나요?",
    "8x A100でDDP。なぜタイムアウトが発生するのでしょうか。",
    # stated, with the words the new refusals also use
    "8x A100 DDP. NCCL 타임아웃이 또 났습니다.",
    "8x A100 DDP. 타임아웃이 발생하는데 해결 방법이 있나요?",
    "8x A100でDDP。タイムアウトエラーが出ています。",
    "8x A100でDDP。タイムアウトが出てしまう。",
])
def test_timeout_seen_stays_a_hang(text):
    assert hang(text)


# ----------------------------------------------------------------------------------------- 2. no_p2p in Korean
@pytest.mark.parametrize("text", [
    # probes
    "8x A100 서버, PyTorch DDP 학습입니다. 참고로 GPU가 P2P를 지원하지 않는 경우 NCCL은 SHM으로 폴백합니다. "
    "학습이 느립니다.",
    "8x RTX 4090 서버입니다. GPU가 P2P를 지원하지 않는다면 NCCL이 SHM으로 폴백하나요? allreduce 대역폭이 5 GB/s입니다.",
    # the same conditions in the other stated forms
    "P2P가 지원되지 않는 경우에는 NCCL이 SHM을 씁니다.",
    "P2P 지원이 안 되는 경우 느려집니다.",
    "P2P를 지원하지 않았다면 더 느렸을 것입니다.",
])
def test_p2p_refusal_as_a_condition_does_not_read(text):
    assert not no_p2p_any(text)


@pytest.mark.parametrize("text", [
    # the real sentence of 9566.tistory.com/567 (tests/data/lang42)
    "즉, 두 GPU가 서로 직접 접근(P2P, peer-to-peer)을 지원하지 않는 구조였다.",
    "이 서버의 GPU 두 장은 P2P를 지원하지 않습니다.",
    "RTX 4090은 P2P를 지원하지 않아서 느립니다.",
    "P2P를 지원하지 않는 GPU입니다.",
    "P2P가 지원되지 않는 보드라서 느립니다.",
    "확인해 보니 P2P를 지원하지 않았습니다.",
])
def test_p2p_refusal_stated_still_reads(text):
    assert no_p2p_any(text)


# ----------------------------------------------------------------------------------------- 3. gpu_idle_words
def _idle(tmp_path, text: str) -> bool:
    facts = read_paste(tmp_path, text)
    return any(c.kind == "gpu_idle_words" and not c.negated and not c.guess for c in claims.claims(facts))


@pytest.mark.parametrize("text", [
    # probe
    "# slow training\n\nFollowing the tuning guide: if your GPU usage is mostly 0%, the dataloader is the bottleneck. "
    "In my case GPU usage is 95% and it is still slow on 8x A100.",
    "# slow training\n\nPer the docs, if my GPU usage is mostly 0%, the loader is too slow. Mine is 97%. "
    "Still slow on 8 GPUs.",
    "# slow training\n\nUnless GPU usage is mostly 0%, the input pipeline is fine. Mine is 97%. Still slow on 8 GPUs.",
    "# slow training\n\nI cannot tell whether GPU usage is 0% most of the time. It is slow on 8 GPUs.",
])
def test_idle_share_under_a_condition_is_not_read(tmp_path, text):
    assert not _idle(tmp_path, text)


@pytest.mark.parametrize("text", [
    "# 4 GPUs\n\nTraining on 4 GPUs, GPU usage is mostly 0% and the epoch takes as long as on one GPU. Is this normal?",
    "# 4 GPUs\n\nTraining on 4 GPUs, GPU util is 0% most of the time. Why?",
    "# 4 GPUs\n\nThe guide did not help: your advice aside, GPU usage is mostly 0% on all 4 GPUs.",
])
def test_idle_share_stated_still_reads(tmp_path, text):
    assert _idle(tmp_path, text)
