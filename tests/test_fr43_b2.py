"""fr43 (fixer B2): the second final read's misfires of fixer B's changes in rules/claims.py. Every sentence is a
probe (a short sentence testing one reading) with the near-misses that must keep their reading; those marked real
are quoted in tests/test_fr43_wt4.py / tests/test_s43review.py / tests/test_words43.py."""

import pytest
from conftest import said

from rules import claims


# ------------------------------------------------ 1. a product named after a release without "of", a clause after it
@pytest.mark.parametrize("text", [
    "vLLM 0.6.3 works fine with v2.4.0 torch, but with v2.5.1 torch it crashes at startup on 2x A100.",  # probe (9.md)
    "vLLM 0.6.3 works fine on 8 H100, but with version 12.4 CUDA it crashes.",  # probe
    "vLLM 0.6.1 works fine on 8 H100, but crashes when using v2.5.1 torch.",  # probe (test_s43review.py)
    "vLLM 0.6.1 works fine on 8 H100. It crashes when using version 12.4 of CUDA.",  # probe (test_s43review.py)
])
def test_other_products_release_before_a_clause(text):
    assert claims.works_vs_failing(text, claims.release_works(text)) is None


@pytest.mark.parametrize("text", [
    "vLLM 0.5.4 works fine on 8x H100. After upgrading to v0.6.3 torch.compile hangs at startup.",  # probe (wt4)
    "vLLM 0.5.4 works fine on 8x H100, but with v0.6.3 Ray workers hang at startup.",  # probe (wt4)
    "vLLM 0.5.4 works fine on 8x H100. With v0.6.3 kernels are much slower, 30 tokens/s instead of 60.",  # probe
    "vLLM 0.5.4 works fine on 8x H100. With v0.6.3 CUDA graphs are much slower.",  # probe: a part of the engine
    "vLLM 0.5.4 works fine on 8x H100. With v0.6.3 it crashes at startup.",  # probe: no word after
])
def test_engine_release_still_read(text):
    assert claims.works_vs_failing(text, claims.release_works(text))[:2] == ("vLLM", ["0.6.3", "0.5.4"])


# ------------------------------------------------ 2. "isn't it a deadlock?" suspects a hang in Japanese and Korean
def _symptom(text: str) -> str | None:
    return claims.symptom(said("# 분산 학습\n\n" + text + "\n"))


@pytest.mark.parametrize("text", [
    "最初のall_reduceで処理が進まなくなります。NCCLのデッドロックではないかと思います。",  # probe (10.md)
    "NCCLのデッドロックではないでしょうか。",  # probe
    "これはハングではありませんか？",  # probe
    "フリーズじゃないかと思います。",  # probe
    "첫 all_reduce 이후 진행이 안 됩니다. NCCL 데드락이 아닌가 싶습니다.",  # probe (12.md)
    "NCCL 데드락이 아닌지 의심됩니다.",  # probe
    "이거 데드락 아니냐는 의견이 있습니다.",  # probe
])
def test_suspected_hang_word_read(text):
    assert _symptom(text) == "hang"


@pytest.mark.parametrize("text", [
    "A100 8枚でDDP学習中、フリーズではなく、すぐにクラッシュします。",  # probe (test_fr43_wt4.py)
    "A100 8枚でDDP学習中、フリーズじゃなくてクラッシュします。",  # probe (test_fr43_wt4.py)
    "A100 8枚でDDP学習中、デッドロックではないです。すぐにクラッシュします。",  # probe
    "A100 8枚でDDP学習中、デッドロックではありません。すぐにクラッシュします。",  # probe
    "A100 8장에서 DDP 학습 중 데드락은 아니고, 바로 크래시가 납니다.",  # probe (test_fr43_wt4.py)
    "DDP 학습 중 데드락이 아닌 크래시입니다.",  # probe (test_fr43_wt4.py)
])
def test_denied_hang_word_still_no_hang(text):
    assert _symptom(text) != "hang"


# ------------------------------------------------ 3. Korean "GPU usage low" observed, said with 다는/다고
def _idle(text: str) -> bool:
    c = claims._first("gpu_idle_words", claims.PATTERNS["gpu_idle_words"], text)
    return bool(c and not c.negated)


@pytest.mark.parametrize("text", [
    "A100 8장으로 DDP 학습을 하는데 nvidia-smi로 GPU 사용률이 낮다는 것을 확인했습니다 (20-30%).",  # probe (11.md)
    "모니터링 결과 GPU 사용률이 낮다고 판단됩니다.",  # probe
    "GPU 사용률이 낮음 (30-40%)",  # real (test_fr43_wt4.py)
])
def test_gpu_usage_low_observed(text):
    assert _idle(text)


@pytest.mark.parametrize("text", [
    "커뮤니티에서는 GPU 사용률이 낮다고 하던데, 저희는 계속 95% 이상입니다.",  # probe (test_fr43_wt4.py): hearsay
    "GPU 사용률이 낮다는 말을 들었습니다.",  # probe (test_fr43_wt4.py)
    "GPU 사용률이 낮다고 들었는데 저희는 90% 이상입니다.",  # probe
    "GPU 사용률이 낮다는 얘기가 있지만 저희는 95%입니다.",  # probe
    "다른 팀은 GPU 사용률이 낮다고 합니다.",  # probe
])
def test_gpu_usage_low_heard_not_claimed(text):
    assert not _idle(text)
