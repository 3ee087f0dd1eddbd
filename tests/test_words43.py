"""Issue 11 (session s43, pass words43): readings of reporters' words (tests/data/words43/SOURCES.md).

1. A "why" before "do I need to set X=1" makes it a question about a setting in use whatever the spacing or an adverb
   between ("Why  do I ...", "Why exactly do I ..."): launch.off_before / WHY_ASKING; the writer asking whether to set
   it stays a setting not in use.
2. The time of a documented slow phase is the one in the phase's own clause (and the clauses that go on about it), not
   one of another run or phase the sentence names: phase_times.minutes(sentence, span).
3. Japanese and Korean hang words beside the timeout (フリーズ, ハング, デッドロック, 데드락, 행 걸림) and the GPU said
   busy a small share (GPU使用率が低い, GPU 사용률이 낮음), read as the English and Chinese ones are.

Sentences quoted with their source are real (public text found with find_string, cited by its id there or by its
address); the rest are probes (short sentences testing a reading, with negations, conditions, advice and near-misses
that must not fire).
"""

import pytest

from diagnose.artifacts import issue_md
from diagnose.artifacts.launch import off_before, setting_off
from diagnose.evidence import Facts
from rules import claims
from rules.phase_times import minutes


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(f"# t\n\n{text}\n", "issue.md"))
    return facts


def _off(sentence: str) -> bool:
    start = sentence.index("NCCL_P2P_DISABLE")
    return setting_off(sentence, start, sentence.index("=1", start) + 2)


# ----------------------------------------------------------------------------- 1. why do I need to set

@pytest.mark.parametrize("sentence", [
    "Why do I need to set NCCL_P2P_DISABLE=1?",  # probe (s42's reading, unchanged)
    "Why  do I need to set NCCL_P2P_DISABLE=1?",  # probe (the brief's: two spaces)
    "Why exactly do I need to set NCCL_P2P_DISABLE=1 for TP to work?",  # probe (the brief's)
    "why, then, must we set NCCL_P2P_DISABLE=1 on this box?",  # probe
    "Why really do we need to set NCCL_P2P_DISABLE=1 here?",  # probe
])
def test_why_asking_keeps_the_setting_in_use(sentence):
    assert not _off(sentence)


@pytest.mark.parametrize("sentence", [
    "Should I set NCCL_P2P_DISABLE=1?",  # probe: asking whether to
    "Do I need to set NCCL_P2P_DISABLE=1?",  # probe
    "No idea why it hangs, should I set NCCL_P2P_DISABLE=1?",  # probe: the why of another clause
    "Why do we not set NCCL_P2P_DISABLE=1 by default?",  # probe: denied
    "you can set NCCL_P2P_DISABLE=1 to avoid this",  # probe: advice
    "We never set NCCL_P2P_DISABLE=1.",  # probe: not in use
])
def test_other_asking_and_denials_stay_off(sentence):
    assert _off(sentence)


def test_claims_not_in_use_reads_the_same_why():
    text = "Why exactly do I need to set --ipc=host for it to work?"
    assert not claims._not_in_use(text, text.index("--ipc"), text)
    text = "Should I set --ipc=host?"
    assert claims._not_in_use(text, text.index("--ipc"), text)
    assert off_before("we do not set ")


# ----------------------------------------------------------------------------- 2. the phase's own time

def _span(sentence: str, word: str) -> tuple[int, int]:
    at = sentence.index(word)
    return at, at + len(word)


@pytest.mark.parametrize("sentence, word, expected", [
    # probes: another run or phase with a subject of its own
    ("Loading the model weights takes 2 minutes, and the whole benchmark run takes 3 hours.", "Loading", 2),
    ("The benchmark takes 3 hours, but loading the model takes 2 minutes.", "loading", 2),
    ("Loading the model takes 2 minutes; the benchmark takes 3 hours", "Loading", 2),
    ("loading the model takes 2 minutes while I run the benchmark for 3 hours", "loading", 2),
    # probes: the same phase goes on ("it", a preposition, a bare time)
    ("Loading the model takes 2 minutes on one GPU but 3 hours with TP=4.", "Loading", 180),
    ("Model loading is slow, and it took 3 hours.", "Model loading", 180),
    # real: vllm-project/vllm#2233 (phase_times' docstring), the time before the phase
    ("It took me over 120 minutes to load the 67B DeepSeek model.", "It took", 120),
])
def test_minutes_of_the_phase(sentence, word, expected):
    assert minutes(sentence, _span(sentence, word)) == expected
    assert minutes(sentence) == max(expected, minutes(sentence))  # the whole sentence: the longest, as before


def test_a_short_load_beside_a_long_benchmark_is_not_past_the_row():
    from rules.phase_times import phase_past_documented
    text = "Loading the model weights takes 2 minutes, and the whole benchmark run takes 3 hours. Is this normal?"
    assert phase_past_documented(_facts(text)) is None
    text = "Loading the model weights takes 3 hours. Is this normal?"  # probe: the phase itself past 90 minutes
    assert phase_past_documented(_facts(text)) is not None


# ----------------------------------------------------------------------------- 3. Japanese and Korean words

def _hang(text: str) -> bool:
    return bool(list(claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)))


@pytest.mark.parametrize("text", [
    "ここでフリーズしていることがあった",  # real (find_string id 1494524068, a code comment)
    "ダウンロード中にアプリをバックグラウンドにすると黒画面でフリーズ",  # real (id 55689483688)
    "講評途中の「もう一度」でフリーズ、",  # real (id 62947045753)
    "AbortSignal.timeout: 행 걸린 연결이 라우트를 붙잡지 않게",  # real (id 55930002036)
    "외부 fetch에 타임아웃 없음 | 행 걸린 요청이 worker 점유",  # real (id 60988208136)
    "STALLED   pid는 살아 있으나 심박 나이 > 임계 — 행 걸림(hang) 의심.",  # real (id 58165435400)
    "TP=2 で起動するとハングします。",  # probe
    "ワーカーがハングアップしました",  # probe
    "all_reduce でデッドロックが発生しました",  # probe
    "tp=4로 실행하면 데드락이 발생했습니다",  # probe
    "なぜフリーズするのでしょうか",  # probe: asked why, so seen
])
def test_japanese_and_korean_hang_words(text):
    assert _hang(text)


@pytest.mark.parametrize("text", [
    "大型モデルのロード時にOOMでフリーズするリスクがある。",  # real (id 54044298898): a risk
    "서비스 하나를 내려놓고 요청 시 error 이벤트 후 done 이벤트로 종료 (행 걸림 없음)",  # real (id 56290319105)
    "grid-row: span 3; /* 3 개 행 걸침 */",  # real (id 7544646320): rows spanned
    "넣을 행을 준비한다: 번호 칸 제거, 이미 있는 행 걸러내기.",  # real (id 71547091205): rows filtered
    "フリーズしない。",  # probe: denied
    "フリーズしていません。",  # probe
    "フリーズしたら再起動してください",  # probe: a condition
    "フリーズしますか？",  # probe: asked whether
    "デッドロックを防ぐ",  # probe: a remedy
    "데드락이 발생하지 않습니다",  # probe: denied
    "데드락이 발생할 수 있습니다",  # probe: a possibility
    "데드락 방지",  # probe: a remedy
    "ハングルで書いてください",  # probe: Hangul
    "3행 걸려",  # probe: a row number
])
def test_japanese_and_korean_hang_near_misses(text):
    assert not _hang(text)


def _idle(text: str) -> bool:
    c = claims._first("gpu_idle_words", claims.PATTERNS["gpu_idle_words"], text)
    return bool(c and not c.negated)


@pytest.mark.parametrize("text", [
    "**症状**: GPU使用率が低い（<50%）",  # real (find_string id 54056773274)
    "**症状**: GPU使用率が低い、トレーニングが進まない",  # real (id 67495833298)
    "### 문제 3: GPU 사용률이 낮음 (30-40%)",  # real (id 2410208377)
    "⚠️  GPU 사용률이 낮음: 12.0% (목표: >80%)",  # real (id 62601793570, its f-string filled)
    "GPU 사용률이 낮은데도 fps가 떨어진다면 CPU 업그레이드가 더 효과적일 수 있습니다.",  # real (id 55680593590)
    "TP=2 にしてもGPUの使用率がかなり低いです",  # probe
    "GPU 사용률이 너무 낮습니다",  # probe
])
def test_japanese_and_korean_gpu_usage_low(text):
    assert _idle(text)


@pytest.mark.parametrize("text", [
    "# GPU使用率が低い場合、CPUで動作している可能性",  # real (id 66302801705): a guide's case
    "### GPU使用率が低い場合\n- Batch Sizeを大きくする",  # real (id 3280117120)
    "   - GPU 사용률이 낮으면 `encoding_batch_size` 증가",  # real (id 59944465942): a condition
    # real (id 14469626125)
    "- **GPU 사용률이 낮은 경우**: 배치 크기 조정 또는 모델 병렬화 전략 검토가 필요할 수 있습니다.",
    "CPU에서 T5 준비 중에는 GPU 사용률이 낮을 수 있음.",  # real (id 71618519663): a possibility
    "GPU使用率は低くない。",  # probe: denied
    "GPU使用率が低いなら設定を見直す",  # probe: a condition
    "GPU 사용률이 낮지 않습니다",  # probe: denied
    "GPU 사용률이 낮을 때",  # probe: a condition
    "GPUメモリ使用率が低い",  # probe: memory, not GPU-Util
])
def test_japanese_and_korean_gpu_usage_near_misses(text):
    assert not _idle(text)
