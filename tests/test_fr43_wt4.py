"""fr43 (fixer B): the final read's misfires in rules/claims.py. Every sentence is a probe (a short sentence testing
one reading, with the near-misses that must keep their reading); those marked real are quoted in
tests/test_words43.py / tests/test_s43review.py with their sources."""

import pytest
from conftest import said

from rules import claims


def _symptom(text: str) -> str | None:
    return claims.symptom(said("# 분산 학습\n\n" + text + "\n"))


# ------------------------------------------------ 1. Korean 행 걸림: not inside 실행/수행, not "time taken"
@pytest.mark.parametrize("text", [
    "A100 8장에서 학습 중입니다. 한 에폭 실행에 걸린 시간은 3분입니다. 이 정도면 정상인가요?",  # probe (10.md)
    "요청 하나 수행에 걸린 시간이 2초인데 더 줄일 수 있을까요?",  # probe (11.md)
    "행 걸린 시간이 10분입니다.",  # probe: time taken
])
def test_korean_execution_time_is_no_hang(text):
    assert _symptom(text) != "hang"


@pytest.mark.parametrize("text", [
    "pid는 살아 있으나 행 걸림(hang) 의심",  # real (tests/test_words43.py)
    "행 걸린 요청이 worker 점유",  # real
    "NCCL 초기화에서 행이 걸립니다.",  # probe
])
def test_korean_hang_still_read(text):
    assert _symptom(text) == "hang"


# ------------------------------------------------ 2. "not a freeze/deadlock" in Japanese and Korean
@pytest.mark.parametrize("text", [
    "A100 8枚でDDP学習中、フリーズではなく、すぐにクラッシュします。",  # probe (14.md)
    "A100 8枚でDDP学習中、フリーズじゃなくてクラッシュします。",  # probe
    "A100 8장에서 DDP 학습 중 데드락은 아니고, 바로 크래시가 납니다.",  # probe (15.md)
    "DDP 학습 중 데드락이 아닌 크래시입니다.",  # probe
])
def test_denied_hang_word_is_no_hang(text):
    assert _symptom(text) != "hang"


@pytest.mark.parametrize("text", [
    "A100 8枚でDDP学習中、学習がフリーズします。",  # probe
    "A100 8枚でDDP学習中、デッドロックで止まります。",  # probe: で, not では/でなく
    "DDP 학습 중 데드락이 발생합니다.",  # probe
])
def test_hang_word_still_read(text):
    assert _symptom(text) == "hang"


# ------------------------------------------------ 3. "GPU usage low" heard, denied or asked
def _idle(text: str) -> bool:
    c = claims._first("gpu_idle_words", claims.PATTERNS["gpu_idle_words"], text)
    return bool(c and not c.negated)


@pytest.mark.parametrize("text", [
    "커뮤니티에서는 GPU 사용률이 낮다고 하던데, 저희는 계속 95% 이상입니다.",  # probe (50.md): hearsay
    "GPU 사용률이 낮다는 말을 들었습니다.",  # probe
    "A100 8장으로 학습 중인데 GPU 사용률이 낮게 나오지는 않습니다.",  # probe (52.md): denied
    "GPU 사용률이 낮게 나오지 않습니다.",  # probe
    "GPU使用率が低いかどうかを確認する方法を教えてください。",  # probe (51.md): asked
])
def test_gpu_usage_low_not_claimed(text):
    assert not _idle(text)


@pytest.mark.parametrize("text", [
    "### 문제 3: GPU 사용률이 낮음 (30-40%)",  # real (tests/test_words43.py)
    "GPU 사용률이 낮은데도 fps가 떨어진다면 CPU 업그레이드가 더 효과적일 수 있습니다.",  # real
    "GPU 사용률이 너무 낮습니다",  # probe
    "GPU 사용률이 낮게 나옵니다.",  # probe: said low, not denied
    "**症状**: GPU使用率が低い（<50%）",  # real
    "TP=2 にしてもGPUの使用率がかなり低いです",  # probe
])
def test_gpu_usage_low_still_claimed(text):
    assert _idle(text)


# ------------------------------------------------ 4. 동안 ("during") is no 안 denial
@pytest.mark.parametrize("text, slow", [
    ("vLLM 서버가 몇 시간 동안 느려졌습니다.", True),  # probe
    ("vLLM 서버가 동안 느립니다.", True),  # probe: 동안 right before
    ("H100 8장으로 vLLM을 씁니다. 추론이 안 느려요.", False),  # probe (tests/test_s43review.py): the short denial
    ("안 느려요.", False),  # probe: at the text's start
])
def test_dongan_is_no_denial(text, slow):
    assert (claims.symptom(said("# 멀티 GPU 추론\n\n" + text)) == "slow") is slow


# ------------------------------------------------ 5. the check figures named as the output writes them
def _ticket(body: str) -> str:
    return f"# nccl-tests all_reduce_perf\n\n{body}\n"


@pytest.mark.parametrize("body", [
    'I ran all_reduce_perf on 8 A100. What does "Out of bounds" mean in the output?',  # probe
    "I ran all_reduce_perf on 8 A100. What do the #wrong numbers mean?",  # probe
    "I ran all_reduce_perf on 8 A100. How should I interpret the out-of-bounds check in the output?",  # probe
])
def test_check_figures_as_printed_asked(body):
    assert claims.check_column_asked(said(_ticket(body))) is not None


@pytest.mark.parametrize("body", [
    "I ran all_reduce_perf on 8 A100. Why do I get wrong values?",  # probe (tests/test_s43review.py)
    "I ran all_reduce_perf on 8 A100. Why are the wrong numbers so large on 2 nodes?",  # probe
    "Why do I get index out of bounds in alltoall_perf on 8 A100?",  # probe
    "I ran all_reduce_perf on 8 A100. What does error number 2 mean?",  # probe
])
def test_failures_still_no_check_question(body):
    assert claims.check_column_asked(said(_ticket(body))) is None


# ------------------------------------------------ 6. a word after the release without "of"
@pytest.mark.parametrize("text", [
    "vLLM 0.5.4 works fine on 8x H100. After upgrading to v0.6.3 torch.compile hangs at startup.",  # probe
    "vLLM 0.5.4 works fine on 8x H100, but with v0.6.3 Ray workers hang at startup.",  # probe
    "vLLM 0.5.4 works fine on 8x H100. With v0.6.3 kernels are much slower, 30 tokens/s instead of 60.",  # probe
])
def test_engine_release_before_a_part_of_it(text):
    assert claims.works_vs_failing(text, claims.release_works(text))[:2] == ("vLLM", ["0.6.3", "0.5.4"])


@pytest.mark.parametrize("text", [
    "vLLM 0.6.1 works fine on 8 H100. It crashes when using version 12.4 of CUDA.",  # probe (test_s43review.py)
    "vLLM 0.6.1 works fine on 8 H100, but crashes when using v2.5.1 torch.",  # probe
    "vLLM 0.6.1 works fine on 8 H100. It crashes with version 2.5.1 of torch.",  # probe
])
def test_other_products_release_still_not_the_engines(text):
    assert claims.works_vs_failing(text, claims.release_works(text)) is None
