"""Issue 11 (session s44, pass words44): readings of reporters' words (tests/data/words44/SOURCES.md).

1. Bad output only supposed ("it might also return garbage", "otherwise it will produce gibberish", "may produce
   garbage on older consoles") is no failure seen: failure_words._SUPPOSED_OUTPUT in _set_aside.
2. "Freeze" in training's sense (the backbone, layers, weights frozen; フリーズ/프리징 with such an object) and pip's
   "pip freeze" are no hang: claims._frozen_parameters.
3. Japanese and Korean error reports (エラーが出ます, エラーが発生しました, 에러가 발생합니다, 오류가 났습니다) are the
   "error" symptom, not when denied, supposed, heard or asked: claims._JA_ERROR_WORDS / _KO_ERROR_WORDS.
4. The Japanese and Korean denials the slow and GPU-usage readings share are one piece (claims._JA_DENIED,
   claims._KO_DENIED), the patterns unchanged.

Sentences marked real are public text found with find_string, cited by its id there (no repository is named by that
tool); the rest are probes (short sentences testing a reading, with negations, hearsay, questions, advice and
near-misses that must not fire).
"""

import re

import pytest
from test_ticket_numbers import _said as _notes

from rules import claims, failure_words

# ----------------------------------------------------------------------------- 1. bad output supposed


def _failure(sentence: str) -> bool:
    return failure_words.failure_said(_notes(sentence)) is not None


@pytest.mark.parametrize("sentence", [
    # real (id 25227108333): a README's requirement
    "For using the plotting feature you need to install python 2 with matplotlib 2.0.0 (exact version), otherwise it "
    "will produce garbage plots.",
    # real (id 41925780359): a code comment
    "Make your own dumps to let this function correctly, otherwise it will produce garbage output.",
    # real (id 32997890298)
    "We assume that the input is transitively closed, reflexive, and sorted. Otherwise it will produce garbage.",
    # real (id 2096443730)
    "If just AES-CBC, it might just produce garbage.",
    # real (id 60726850227)
    "Both Linux and Windows CLIs share these — they work on Windows 10+ with VT100 support enabled, but may produce "
    "garbage on older Windows consoles.",
    "Set NCCL_P2P_DISABLE=1, otherwise it will produce gibberish.",  # probe (the brief's)
    "If P2P is broken it might also return garbage.",  # probe (the brief's)
    "Without the flag it may produce garbage output.",  # probe: the bad-output noun form
    "Otherwise, the model will output nonsense.",  # probe
    "The model could possibly output nonsense if the cache is stale.",  # probe
])
def test_bad_output_supposed_is_no_failure(sentence):
    assert not _failure(sentence)


@pytest.mark.parametrize("sentence", [
    "It returns garbage.",  # probe (the brief's keep)
    "It outputs gibberish after 10 tokens.",  # probe (the brief's keep)
    "row split mode outputs gibberish",  # real (ggml-org/llama.cpp#16680, cited in p2p43)
    "it produces only garbage on my newly built box",  # real (ggml-org/llama.cpp#3772, cited in p2p43)
    "The model produces gibberish and it might be the NCCL version.",  # probe: the guess is about the cause
    "I may be wrong, but it returns garbage with -sm row.",  # probe: the modal in another clause
    "When I use tp=2, it will output gibberish.",  # probe: "will" of a run seen, no "otherwise"
    "Otherwise it works, but with tp=2 it outputs garbage.",  # probe: "otherwise" in another clause
])
def test_bad_output_seen_stays_a_failure(sentence):
    assert _failure(sentence)


# ----------------------------------------------------------------------------- 2. freezing parameters


def _symptom(kind: str, text: str) -> bool:
    return bool(list(claims._said(kind, dict(claims.SYMPTOMS)[kind], text)))


@pytest.mark.parametrize("text", [
    # real (id 56074484420)
    "We freeze the backbone and build lightweight scoring on top, making the system fast, reproducible, and "
    "deployable on free-tier hardware.",
    "For pretrained-transfer, freeze the backbone for this many initial epochs.",  # real (id 51920190530)
    "Inject LoRA adapters into selected linear layers and freeze the backbone.",  # real (id 58365933605)
    "Stage 1 — freeze=10: freeze the backbone, adapt only neck + head",  # real (id 61397678015)
    "always freeze these layers。常にこれらのレイヤーをフリーズ",  # real (id 4960559202)
    "対象外の層の重みをフリーズ。",  # real (id 53668722867)
    "마지막레이어를 제외한 모든 레이어를 프리징 후 훈련",  # real (id 3693901214)
    "모델의 헤드만 프리징하여 훈련",  # real (id 3693901214)
    "모든 레이어를 프리징합니다.",  # real (id 39873315267)
    "전체 동결 (백본 프리징)",  # real (id 62568854660)
    "We freeze the backbone and train only the head.",  # probe (the brief's)
    "freezing layers 0-10 helps memory",  # probe
    "we froze the vision encoder and the LLM",  # probe
    "I set freeze_backbone=True in the config",  # probe: a flag
    "--freeze-layers 12",  # probe
    "backbone freezing is on",  # probe: the noun before
    "the layers were freezed",  # probe: passive
    "バックボーンをフリーズして学習します",  # probe (the brief's)
    "重みをフリーズしています",  # probe
    "重みを凍結しました",  # probe: 凍結, never a hang word
    "백본을 프리징하고 학습",  # probe
    "백본을 동결했습니다",  # probe
    "pip freeze output below",  # probe: pip's command
    "python -m pip freeze | grep torch",  # probe
])
def test_frozen_parameters_are_no_hang(text):
    assert not _symptom("hang", text)


@pytest.mark.parametrize("text", [
    "training freezes at step 300",  # probe (the brief's keep)
    "the process freezes",  # probe (the brief's keep)
    "フリーズしました",  # probe (the brief's keep)
    "コンピュータをフリーズさせる",  # real (id 36533860917): the computer, no parameter
    "the process freezes while loading weights",  # probe: an -ing word ends the object
    "it freezes after loading the weights",  # probe: a preposition ends it
    "it freezes during the backward pass of the last layers",  # probe
    "NCCL freezes the whole node",  # probe: the node is no parameter
    "学習中にフリーズします",  # probe
    "학습 중 프리징이 발생합니다",  # probe
    "after pip install the process freezes",  # probe: pip, not its command freeze
])
def test_a_run_that_freezes_stays_a_hang(text):
    assert _symptom("hang", text)


# ----------------------------------------------------------------------------- 3. errors in Japanese and Korean


@pytest.mark.parametrize("text", [
    # real (id 26406751963)
    "すでに作成されてるマイグレーションをデータベースに反映しようとすると、次のようなエラーが出ます。",
    "（Consoleにエラーが出ます）",  # real (id 31293296383)
    "オブジェクトや関数を直接レンダリングしようとするとエラーになります。",  # real (id 21504032808)
    "`C#`環境の構築にて、友人のPCでエラーが発生したので",  # real (id 26406751963)
    "열심히 달려왔지만 속상하게도 위와 같이 수많은 에러가 발생합니다.",  # real (id 46305074641)
    'SQL로 직접 정책을 생성하려고 하면 "must be owner of table objects" 에러가 발생합니다.',  # real (id 15079174906)
    "뜬금없는 SQL syntax 에러가 납니다.",  # real (id 42579290777)
    "エラーが出ます", "エラーが発生しました", "エラーになります",  # probes (the brief's)
    "에러가 발생합니다", "오류가 발생했습니다", "에러가 납니다",  # probes (the brief's)
    "vllm serve を実行すると CUDA エラーが発生しています",  # probe: the clause before is when it was seen
    "tp=2 로 실행하면 NCCL 오류가 뜹니다",  # probe
    "なぜエラーが出るのでしょうか？",  # probe: asked why, so seen
    "왜 에러가 발생하나요?",  # probe
])
def test_japanese_and_korean_errors(text):
    assert _symptom("error", text)


@pytest.mark.parametrize("text", [
    "動かなくてもエラーは出ません。",  # real (id 66181978577): denied
    "特にカスタマイズをしていなければ、updateコマンドを実行してもエラーは出ません。",  # real (id 27490028357)
    "エラーは出ません", "에러가 발생하지 않습니다", "오류 없음", "エラーが出る場合",  # probes (the brief's)
    "エラーは一度も出ていません", "エラーにならない",  # probes: denied
    "エラーは発生しませんでした", "エラーも出ずに終了します",  # probes: denied
    "エラーが発生したら再起動してください",  # probe: advice under a condition
    "エラーになる可能性があります",  # probe: a possibility
    "エラーが出るらしい",  # probe: heard
    "エラーが出ますか？",  # probe: asked whether
    "에러가 안 납니다", "에러가 나지 않아요", "에러는 더 이상 발생하지 않습니다",  # probes: denied
    "에러가 발생하면 재시작하세요", "에러가 발생할 경우", "오류 발생 시 로그를 확인",  # probes: conditions
    "에러가 난다고 들었습니다",  # probe: heard
    "에러가 발생하나요?",  # probe: asked whether
    "エラーハンドリングを追加しました", "에러 메시지를 확인하세요", "오류율이 낮습니다",  # probes: no verb of it
])
def test_japanese_and_korean_error_near_misses(text):
    assert not _symptom("error", text)


# ----------------------------------------------------------------------------- 4. the shared denials


def test_shared_denials_are_the_old_alternatives():
    assert re.fullmatch(claims._JA_DENIED, "なかった") and re.fullmatch(claims._JA_DENIED, "ありません")
    for text in ("느리지 않", "느리지는 않", "느리진 않", "느리지도 않"):
        assert re.fullmatch("느리" + claims._KO_DENIED, text)


@pytest.mark.parametrize("text, slow", [
    ("推論が遅い", True), ("推論が遅くない", False), ("속도가 느립니다", True), ("속도가 느리지는 않습니다", False),
    ("느려지지 않았습니다", False),
])
def test_slow_readings_keep_their_denials(text, slow):  # probes
    assert _symptom("slow", text) is slow


def test_the_new_patterns_are_bounded():
    long = "エラー" + "が" * 2000 + "x" + "에러" + " " * 2000 + "freeze" + " the" * 500
    for pattern in (claims._JA_ERROR_WORDS, claims._KO_ERROR_WORDS, claims._FROZEN_OBJECT.pattern,
                    failure_words._SUPPOSED_OUTPUT.pattern):
        re.compile(pattern, re.I).search(long)
