"""Round eight of the paraphrase stress test (issue 11): readings made general from the `-g` misses, each tested on
sentences from other real threads (cited by URL) and on negations, never on the paraphrase's own words alone."""

import pytest
from test_u11o_peer_copy_and_fit import issue, judged

from diagnose.evidence import Measurement, Workload
from rules import claims
from rules.subject import Subject

# --------------------------------------------------------------------------- a library tag named before "Ollama"

@pytest.mark.parametrize("text,key", [
    # the model said to run "on"/"in"/"with" the engine, before its name: "Llama3 on Ollama" and "Mistral on Ollama"
    # are rows of a README's benchmark table, "Running Ollama with mixtral" the title of ollama/ollama#2324
    ("# Slow\n\nLlama3 on Ollama with nomic-embed-text takes 29 s on a 4090.", "llama-3-8b"),
    ("# Slow\n\nMistral on Ollama answers slowly on my 3060.", "mistral-7b"),
    ("# Slow\n\nRunning Ollama with mixtral on my 4090 is incredibly slow.", "mixtral-8x7b"),
    # an adjective after the engine's name is no tag; the name before it still is
    ("# Slow\n\nMixtral in Ollama barely uses my A4000.", "mixtral-8x7b"),
])
def test_a_library_tag_beside_the_engine_names_the_model(text, key):
    model = Subject.of(issue(text)).model
    assert model is not None and model.key == key


@pytest.mark.parametrize("text", [
    "# Slow\n\nEverything in Ollama barely uses my A4000.",  # no tag either side
    "# Slow\n\nMy GPU on Ollama is idle.",
    "# Slow\n\nOllama Windows uses the CPU.",
])
def test_words_beside_the_engine_that_are_no_library_tag_name_no_model(text):
    assert Subject.of(issue(text)).model is None


def test_the_words_beside_ollama_reach_the_over_vram_reading():
    # ollama/ollama#2362's facts in another order: the model before the engine, the card on its own line
    text = "# Mixtral in Ollama barely touches my A4000\n\n- Card: RTX A4000, 16 GB\n- GPU load: about 7 %"
    verdict, rules = judged(issue(text))
    assert "ticket.model_over_vram" in rules and verdict.category == "host_bound"


# --------------------------------------------------------------------------- a board's test outcome in its own clause

@pytest.mark.parametrize("text", [
    # pytorch/pytorch#87363's "With other GPU cards" list ("- With RTX3090, CUDA 11.4: OK"), said as one line with no
    # colon before each result, as TheLastBen/fast-stable-diffusion#927 says "T4 works, A100 is not" and
    # modal-labs/modal-examples#448 "T4 always works fine"
    "# Copy gives zeros\n\n- GPU: A100-PCIE-40GB X 4\n- a.to('cuda:1') gives zeros on it\n"
    "- not a problem on other boxes: RTX3090 with CUDA 11.4 OK, RTX2080Ti with CUDA 10.2 OK",
    "# Copy gives zeros\n\n- GPU: A100-PCIE-40GB X 4\n- a.to('cuda:1') gives zeros\n"
    "- elsewhere RTX3090 with CUDA 11.4 OK, RTX2080Ti with CUDA 10.2 OK",
    "# P2P copy wrong\n\n- GPUs: 4 x A100 PCIe\n- copies between GPUs come back as zeros\n"
    "- RTX 3090 on CUDA 11.4 works fine, RTX 2080 Ti on CUDA 10.2 works fine",
])
def test_a_board_whose_clause_ends_in_its_test_result_is_another_system_tried(text):
    _, rules = judged(issue(text))
    assert "ticket.mixed_gpus" not in rules


@pytest.mark.parametrize("text", [
    # (c50f) slow before it hangs: a hang alone is no pace question (tests/test_c50f.py)
    "# Hang\n\nOne box with an RTX 3090 and an RTX 4090; tensor parallel across both is slow and then hangs.",
    "# Slow TP\n\nI have an RTX 3090 and an RTX 4090 in the same PC and TP=2 across them is slow.",
    # boards named with no result of their own stay the job's
    "# P2P copy wrong\n\n- GPUs: 4 x A100 PCIe\n- copies between GPUs come back as zeros\n"
    "- also have RTX 3090 and RTX 2080 Ti",
])
def test_boards_of_one_job_with_no_result_of_their_own_are_still_mixed(text):
    _, rules = judged(issue(text))
    assert "ticket.mixed_gpus" in rules


# --------------------------------------------------------------------------- the processor's cores, the cards' load

def kinds(text: str, kind: str):
    return [c for c in claims.claims(issue(text)) if c.kind == kind and not c.negated]


@pytest.mark.parametrize("text", [
    # haotian-liu/LLaVA#1222: "my CPU utilization is at 100% (used only one core on a 5900x)", told as the processor's
    "# Slow\n\nOne of the processor cores is always at 100% and the answers are slow.",
    "# Slow\n\nA single processor core is pegged while the model answers.",
    "# Slow\n\nTwo of my CPU cores are fully busy during generation.",
])
def test_a_processor_core_at_its_limit_is_a_cpu_lead(text):
    assert kinds(text, "cpu_ab")


@pytest.mark.parametrize("text", [
    "# Slow\n\nNone of the processor cores is at 100%, the GPU is busy.",
    "# Slow\n\nThe processor fans are loud and the GPU is at 100%.",
])
def test_no_processor_core_at_its_limit_is_no_cpu_lead(text):
    assert not kinds(text, "cpu_ab")


@pytest.mark.parametrize("text,pct", [
    # tensorflow/models#3136 "at ~40% GPU"; NVIDIA/tacotron2#153 "it is around 30%"; said of the cards with "stay",
    # "remain" or "sit" and a bound
    ("# Slow\n\nThe graphics cards mostly stay under 20% while it answers.", 20.0),
    ("# Slow\n\nBoth cards remain below 30% during decoding.", 30.0),
    ("# Slow\n\nThe GPU stays at 45% the whole time.", 45.0),
])
def test_cards_said_to_stay_under_a_share_give_a_utilisation(text, pct):
    assert [c.data["percent"] for c in kinds(text, "gpu_util")] == [pct]


@pytest.mark.parametrize("text", [
    "# Slow\n\nThe cards stay under 20% fan speed.",
    "# Slow\n\nThe cards remain at 60% of their memory.",
    # a comparison, not a level (sentences written for the review of round eight: no real thread found saying it)
    "# Slow\n\nWith TP=2 the GPU remains 30% slower than a single card.",
    "# Slow\n\nThe cards stay 20% faster on the old driver.",
])
def test_a_cards_fan_or_memory_share_is_no_utilisation(text):
    assert not kinds(text, "gpu_util")


# -------------------------------------------------------------------- "slower without NVLink?" in other languages

@pytest.mark.parametrize("text", [
    # huggingface/accelerate's thread (the development case u12a10) asks it in English; the same question as
    # reporters write it in other languages
    "# NVLink\n\n두 GPU가 NVLink 없이 PCIe로만 연결되어 있는데 학습 속도가 많이 느려지나요?",
    "# NVLink\n\nNVLinkなしの2枚のGPUで学習すると、速度はどのくらい遅くなりますか？",
    "# NVLink\n\nWird das Training mit zwei GPUs ohne NVLink deutlich langsamer?",
    "# NVLink\n\n¿El entrenamiento con dos GPUs sin NVLink es mucho más lento?",
    "# NVLink\n\nБудет ли обучение на двух GPU без NVLink заметно медленнее?",
])
def test_asking_whether_gpus_without_nvlink_are_slower_in_other_languages(text):
    _, rules = judged(issue(text))
    assert "ticket.nvlink_question" in rules


@pytest.mark.parametrize("text", [
    "# NVLink\n\nOhne NVLink läuft das Training mit zwei GPUs gut.",  # said, not asked
    "# NVLink\n\n두 GPU는 NVLink로 연결되어 있고 속도도 괜찮습니다.",  # linked, and fine
    "# NVLink\n\nNVLinkで接続された2枚のGPUで、速度はどのくらいですか？",  # linked: no absence asked about
])
def test_no_nvlink_question_when_nothing_is_asked_or_the_link_is_there(text):
    _, rules = judged(issue(text))
    assert "ticket.nvlink_question" not in rules


# ------------------------------------------------- Japanese and Korean rates, counters after a board, Korean particles

def rates(text: str) -> list[float]:
    return [m.value for m in issue(text).of(Measurement) if m.metric == "decode_tok_s"]


def workload(text: str) -> list[tuple]:
    return [(w.gpu, w.gpu_count) for w in issue(text).of(Workload) if w.gpu]


@pytest.mark.parametrize("text,value", [
    # the per-second word first, as Google's Japanese Gemini docs write a token rate ("音声は 1 秒あたり 32 トークン",
    # ai.google.dev/gemini-api/docs/tokens?hl=ja) and Korean writes "초당 토큰 수" (tokens per second)
    ("# 遅い\n\nA100でllama-2-7bを動かすと、1秒あたり約25トークンしか出ません。", 25.0),
    ("# 遅い\n\nRTX 4090でqwen-7bを使うと毎秒12トークン程度です。", 12.0),
    ("# 느림\n\nA10에서 qwen-7b를 돌리면 초당 약 17토큰밖에 안 나옵니다.", 17.0),
    ("# 느림\n\nA10에서 qwen-7b 속도는 17 토큰/초 정도입니다.", 17.0),
])
def test_a_rate_said_per_second_first_in_japanese_or_korean_is_read(text, value):
    assert rates(text) == [value]


@pytest.mark.parametrize("text", [
    "# 遅い\n\nA100で1秒あたり約2枚の画像しか生成できません。",  # images, not tokens
    "# 느림\n\nA10에서 초당 3장의 이미지를 만듭니다.",
])
def test_a_per_second_figure_of_something_else_is_no_token_rate(text):
    assert rates(text) == []


@pytest.mark.parametrize("text,count", [
    ("# 同時アクセス\n\n現在、4090を8枚使ってqwen-72Bを動かしています。", 8),  # the development case u14a10's facts
    ("# 并发\n\n目前用 4090 八张跑 qwen-72B。", 8),
    ("# 동시 사용\n\n4090 두 장으로 qwen-72B를 돌리고 있습니다.", 2),
])
def test_a_counter_after_the_board_counts_the_gpus(text, count):
    assert workload(text) == [("4090", count)]


@pytest.mark.parametrize("text", [
    "# 画像\n\n4090で画像を2枚生成するのに10秒かかります。",
    # 개월 / 개년 count months and years, not cards ("I have used the 4090 for 3 months")
    "# 사용기\n\n4090을 3개월 동안 사용했습니다.",
])
def test_a_counter_of_something_else_after_the_board_is_no_gpu_count(text):
    assert workload(text) == [("4090", None)]


def test_a_model_name_glued_to_a_korean_particle_is_read_in_its_clause():
    # Korean glues its particles to Latin names ("chatglm2-6B는"): each clause's rate keeps its own model
    text = ("# 속도 비교\n\nA10에서 chatglm2-6B는 초당 약 32토큰, baichuan-7B는 초당 25토큰이 나오는데, qwen7B는 "
            "초당 17토큰밖에 안 나옵니다.")
    said = {m.value: m.model for m in issue(text).of(Measurement) if m.metric == "decode_tok_s"}
    assert said == {32.0: "chatglm2-6B", 25.0: "baichuan-7B", 17.0: "qwen7B"}


# --------------------------------------------------------------------------- a process held at one core, in Japanese
# and Korean (vllm-project/vllm's development case u404 asks it in Chinese: "进程CPU使用无法超过100%")

@pytest.mark.parametrize("text", [
    "# CPU\n\nvLLMのプロセスのCPU使用率が100%を超えることがありません。制限があるのですか？",
    "# CPU\n\nvLLMはCPUを1コアしか使わないのでしょうか？",
    "# CPU\n\nvLLM 프로세스의 CPU 사용률이 100%를 넘지 않습니다. 제한이 있나요?",
    "# CPU\n\nvLLM이 코어 하나만 사용하는 것 같습니다.",
])
def test_a_process_held_at_one_core_in_japanese_or_korean(text):
    assert claims.cpu_ceiling(issue(text))


@pytest.mark.parametrize("text", [
    "# CPU\n\nvLLMのプロセスのCPU使用率は100%を超えて、800%になります。",  # it does exceed it
    "# CPU\n\nvLLM 프로세스의 CPU 사용률이 800%까지 올라갑니다.",
])
def test_a_process_above_one_core_is_no_ceiling(text):
    assert not claims.cpu_ceiling(issue(text))
