"""GPUs that take turns (issue 11 m): a model spread over GPUs by Hugging Face transformers (accelerate's
device_map, a layer split unless tensor parallelism is asked of it), one GPU busy while another idles, nvidia-smi's
utilisation as Chinese reporters write it, and Chinese questions that end on their particle. Every sentence is
written for this test (none copied from a corpus case), with paraphrases and negations; the real cases used are
development cases.
"""

import pytest
from test_ticket_isnormal_names import issue, verdict_of
from test_ticket_questions import development_case, said

from rules import claims
from rules.ticket_figures import layer_split_engine, layer_split_over_gpus
from rules.ticket_rules import taking_turns


def utilisations(text: str) -> list[float]:
    return [c.data["percent"] for c in claims.find(said(text), "gpu_util")]


# --------------------------------------------------------------------------- the figures as written


@pytest.mark.parametrize("text, shares", [
    ("推理时 GPU利用率只有 30%，速度很慢。", [30]),
    ("两张卡的使用率分别是 95% 和 8%。", [95]),
    ("一张卡利用率 100%，另外一张卡的利用率 2% 左右。", [100, 2]),
    ("nvidia-smi 里 GPU占用率 99%。", [99]),
])
def test_chinese_utilisation_figures_are_read(text, shares):
    assert utilisations(text) == shares


@pytest.mark.parametrize("text", [
    "显存占用 90%，模型已经加载。",  # memory, not busy time
    "显存利用率 80% 左右。",
    "加载完成，用了 24GB 显存。",
])
def test_chinese_memory_shares_are_not_utilisation(text):
    assert utilisations(text) == []


@pytest.mark.parametrize("sentence", ["这样的速度正常吗", "为什么第二张卡一直空闲呢", "是不是驱动版本的问题么。",
                                      "Is this expected?"])
def test_questions_ending_on_their_particle_are_questions(sentence):
    assert claims.asked(sentence)


@pytest.mark.parametrize("sentence", ["我们用了两张 4090 跑 13B 模型。", "速度是每秒 20 个 token", "呢喃的声音"])
def test_statements_are_not_questions(sentence):
    assert not claims.asked(sentence)


@pytest.mark.parametrize("text", [
    "# Multi-GPU run can't fully utilize the GPUs\nEach card stays at a low load during generation.",
    "We cannot utilize all the GPUs' bandwidth with this setup.",
    "The server is unable to fully use the cards' compute when serving one user.",
])
def test_not_using_the_gpus_fully_is_no_error(text):
    assert claims.symptom(said(text)) != "error"


@pytest.mark.parametrize("text", [
    "# Cannot allocate memory on GPU 1\nThe worker dies at start-up.",
    "The engine is unable to load the checkpoint on the second card.",
])
def test_a_failure_to_do_something_else_is_still_an_error(text):
    assert claims.symptom(said(text)) == "error"


# --------------------------------------------------------------------------- transformers spreads layers


@pytest.mark.parametrize("text", [
    "We run Llama-2-13B with Hugging Face transformers on 4 A100 GPUs and each answer takes 40 s. Is that normal?",
    "使用 transformers 在 8 张 A100 上推理 13B 模型，一个请求要 30 秒，正常吗？",
    "Serving with transformers model.generate() over 2 RTX 3090 GPUs is slower than one card. Why?",
])
def test_transformers_over_several_gpus_is_a_layer_split(text):
    facts = issue(text)
    assert layer_split_engine(facts) and layer_split_over_gpus(facts)
    answer, _ = verdict_of(facts)
    assert answer.category in ("expected_physics", "healthy", "pp_bubble")


@pytest.mark.parametrize("text", [
    "We run Llama-2-13B with transformers' tp_plan='auto' under torchrun on 4 A100 GPUs; each answer takes 40 s.",
    "Tensor parallel in transformers over 2 RTX 3090 GPUs is slower than one card.",
    "vLLM 0.6 with TP=2 on 2 A100 GPUs (transformers 4.45 installed) gives 30 tok/s.",
])
def test_tensor_parallelism_asked_of_transformers_is_no_layer_split(text):
    assert not layer_split_engine(issue(text))


# --------------------------------------------------------------------------- one busy, one idle


@pytest.mark.parametrize("text", [
    "Two RTX 4090 cards: while generating, GPU0 shows 99% utilization and GPU1 stays at 2% utilization. Is that right?",
    "With 2 GPUs one card runs at 100% GPU usage, the other sits at 5% GPU usage during inference. What is going on?",
    "两张 A6000 推理的时候，一张卡利用率 100%，另一张卡利用率只有 3%，这是什么情况呢",
])
def test_one_gpu_busy_while_another_idles_is_gpus_taking_turns(text):
    facts = issue(text)
    assert taking_turns(facts)
    answer, findings = verdict_of(facts)
    assert answer.category in ("expected_physics", "healthy")
    assert any(f.rule == "ticket.gpu_utilisation" and "layer split" in f.title for f in findings)


@pytest.mark.parametrize("text", [
    # tensor-parallel ranks spin in NCCL while they wait: uneven figures there are not turns
    "vLLM with --tensor-parallel-size 2: GPU0 shows 99% utilization and GPU1 stays at 2% utilization.",
    "Both GPUs sit at 55% GPU usage and 60% GPU usage while generating.",  # alike: no turn-taking
    "Training with DDP on 2 GPUs: GPU0 at 98% utilization, GPU1 at 4% utilization.",  # training, not a layer split
    "GPU0 never goes above 100% utilization and GPU1 is below 10% utilization.",  # bounds, not readings
])
def test_uneven_figures_that_are_not_turns(text):
    assert not taking_turns(issue(text))


def test_development_cases_read_as_turns(tmp_path):
    """u7a05 (two 4090s, one at a few %, one at 100 %, no engine named) and u7a03 (transformers over eight A100s)."""
    facts = development_case(tmp_path, "u7a05")
    assert taking_turns(facts)
    assert verdict_of(facts)[0].category in ("expected_physics", "healthy")
    facts = development_case(tmp_path / "b", "u7a03")
    assert layer_split_over_gpus(facts)
    assert verdict_of(facts)[0].category == "expected_physics"
