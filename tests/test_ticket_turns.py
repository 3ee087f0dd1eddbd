"""GPUs that take turns (issue 11 m): a model spread over GPUs by Hugging Face transformers (accelerate's
device_map, a layer split unless tensor parallelism is asked of it), one GPU busy while another idles, nvidia-smi's
utilisation as Chinese reporters write it, and Chinese questions that end on their particle. Every sentence is
written for this test (none copied from a corpus case), with paraphrases and negations; the real cases used are
development cases.
"""

import pytest
from test_ticket_isnormal_names import issue, verdict_of
from test_ticket_questions import development_case, said

from diagnose.evidence import Measurement
from rules import claims
from rules.gpus_in_use import layer_split_engine, layer_split_over_gpus
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


# --------------------------------------------------------------------------- figures as people write them


def decode_rates(text: str) -> list[tuple[float, int | None]]:
    return [(m.value, m.batch) for m in issue(text).of(Measurement) if m.metric == "decode_tok_s"]


@pytest.mark.parametrize("text, rate", [
    ("llama-bench on one RTX 4090:\n| model | size | params | backend | ngl | test | t/s |\n"
     "| --- | ---: | ---: | --- | --: | ---: | ---: |\n"
     "| llama 8B Q4_0 | 4.33 GiB | 8.03 B | CUDA | 99 | pp512 | 9000.10 ± 20.50 |\n"
     "| llama 8B Q4_0 | 4.33 GiB | 8.03 B | CUDA | 99 | tg128 | 150.20 ± 0.40 |", 150.2),
    ("Our bench table:\n| model | test | t/s |\n|---|---|---|\n| qwen2 7B Q8_0 | tg256 | 88.10 ± 1.20 |", 88.1),
])
def test_a_bare_llama_bench_table_gives_its_generation_rate(text, rate):
    assert rate in [r for r, _ in decode_rates(text)]


def test_a_prompt_row_alone_is_no_decode_rate():
    text = "| model | test | t/s |\n|---|---|---|\n| llama 8B Q4_0 | pp512 | 9000.10 ± 20.50 |"
    assert 9000.1 not in [r for r, _ in decode_rates(text)]


@pytest.mark.parametrize("name", ["llama-bench", "llama-server", "llama_cli"])
def test_llama_cpp_programs_are_kept_as_written_and_split_by_layers(name):
    from diagnose.artifacts.text import engine_named

    text = f"I ran {name} with -ngl 99 on two GPUs."
    assert engine_named(text) == name
    assert layer_split_engine(issue(text))


@pytest.mark.parametrize("text", [
    "With 16 concurrent requests each user gets 20 tok/s on the L40S.",
    "At 16 concurrent users every request sees about 20 tokens/s.",
    "With 16 parallel requests the per-user speed is 20 tok/s.",
])
def test_a_rate_each_user_gets_is_one_stream_in_the_batch(text):
    assert (20.0, 16) in decode_rates(text)


def test_a_total_is_not_read_per_user():
    facts = issue("With 16 concurrent requests the total throughput is 320 tok/s.")
    assert [(m.metric, m.value) for m in facts.of(Measurement)] == [("output_tok_s", 320.0)]


def test_a_single_rate_is_not_read_per_user():
    rates = decode_rates("Each answer is about 300 tokens; we get 20 tok/s with one request.")  # no load stated
    assert rates and all(batch != 16 for _, batch in rates)


@pytest.mark.parametrize("sentence, ratio", [
    ("1 GPU is 2x faster than TP=2 on these cards.", 0.5),
    ("A single GPU runs 3x faster than 4 GPUs with this model.", 1 / 3),
    ("One card is 1.5x slower than two cards.", 1.5),
    ("TP4 is only 1.3x faster than TP1 on our box.", 1.3),  # the larger layout named first: as said
    ("With 2 GPUs it is 1.5x slower than with 1 GPU.", 1 / 1.5),
])
def test_a_speed_up_reads_which_layout_is_faster(sentence, ratio):
    (c,) = claims.speedups(said(sentence))
    assert c.data["ratio"] == pytest.approx(ratio)


# --------------------------------------------------------------------------- mixed boards, by how far apart they run


def mixed(text: str):
    return [f for f in verdict_of(issue(text))[1] if f.rule == "ticket.mixed_gpus"]


@pytest.mark.parametrize("text", [
    "Our server mixes cards:\n- GPU 0: NVIDIA RTX 3090\n- GPU 1: NVIDIA RTX 4060 Ti\nInference with both is slow.",
    "Our server mixes cards:\n- GPU 0: NVIDIA L40S\n- GPU 1: NVIDIA L40\nInference with both is slow.",  # 2x compute
])
def test_boards_far_apart_are_a_straggler_lead(text):
    (f,) = mixed(text)
    assert f.category == "straggler" and f.confidence == pytest.approx(0.65) and "x the slowest" in f.summary


def test_boards_alike_in_speed_are_no_straggler():
    # RTX 3090 against 3090 Ti: 1.08x bandwidth, 1.13x compute (rules/catalog)
    assert mixed("Our server mixes cards:\n- GPU 0: NVIDIA GeForce RTX 3090\n- GPU 1: NVIDIA GeForce RTX 3090 Ti\n"
                 "Inference with both is slow.") == []


def test_boards_of_unknown_speed_are_a_weak_lead():
    (f,) = mixed("Our server mixes cards:\n- GPU 0: NVIDIA TITAN Xp\n- GPU 1: NVIDIA TITAN X\n"
                 "Inference with both is slow.")
    assert f.confidence < 0.55 and "not in the catalog" in f.summary


# --------------------------------------------------------------------------- a range of times is no single figure


@pytest.mark.parametrize("text", [
    "Why does TTFT go from 80 ms to 900 ms when I send a 16k-token prompt instead of 1k with Llama-3.1-8B on an "
    "H100 in vLLM?",
    "With Llama-3.1-8B on one H100 (vLLM) the TTFT rises from 0.08 s to 0.9 s for a 16k-token prompt vs a short one.",
    "TTFT is between 80 and 900 ms for 16k-token prompts on Llama-3.1-8B, one H100, vLLM. Is that normal?",
])
def test_one_end_of_a_time_range_is_not_judged_against_the_prompt_length(text):
    answer, findings = verdict_of(issue(text))
    assert not [f for f in findings if f.rule == "ticket.ttft_vs_expected"]
    assert not (answer.category == "other" and answer.confidence >= 0.7)


def test_a_single_ttft_at_its_prompt_length_is_still_judged():
    text = "Llama-3.1-8B on one H100 with vLLM: TTFT is 900 ms for a 16k-token prompt. Is that normal?"
    assert [f for f in verdict_of(issue(text))[1] if f.rule == "ticket.ttft_vs_expected"]


# --------------------------------------------------------------------------- a total is every stream's output


def rates(text: str) -> list[tuple[str, float]]:
    return [(m.metric, m.value) for m in issue(text).of(Measurement)]


@pytest.mark.parametrize("text", [
    "Our total throughput at batch 64 is 2500 tok/s.",
    "We reach 2500 tok/s in total with 64 concurrent requests.",
    "Aggregate generation speed is 2500 tokens/s across the batch.",
    "The combined output of all requests is 2500 tok/s.",
])
def test_a_total_rate_is_the_output_of_all_streams(text):
    assert ("output_tok_s", 2500.0) in rates(text)


@pytest.mark.parametrize("text", [
    "A single request only gets 40 tok/s.",
    "Overall, I get 40 tok/s with one user.",  # 'overall' as 'in general'
    "The total time is long: 40 tok/s for one request.",  # a total of something else, in another clause
])
def test_one_streams_rate_stays_a_decode_rate(text):
    assert ("decode_tok_s", 40.0) in rates(text)


def test_a_total_beside_a_single_stream_is_not_judged_as_one_stream():
    text = ("Our total throughput at batch 64 is 2500 tok/s but a single request only gets 40 tok/s on vLLM with "
            "Llama-3.1-70B TP=4 on 4x A100 80GB. Is something wrong?")
    answer, findings = verdict_of(issue(text))
    # the total is judged, if at all, as the batch's total at the batch stated (ticket.batched_rate) or as a sum over
    # streams set beside one stream (ticket.reference_other_scope, scope26), never as one stream's rate beating its
    # roofline
    judged = [f for f in findings if "2500" in f.title]
    assert all((f.rule == "ticket.batched_rate" and "batch 64 (stated)" in f.title)
               or (f.rule == "ticket.reference_other_scope" and "sum over streams" in f.title) for f in judged), judged
    assert not (answer.category == "other" and answer.confidence >= 0.7)


# --------------------------------------------------------------------------- "does this look right?"


@pytest.mark.parametrize("question", [
    "Does this look right?", "Do these numbers seem reasonable?", "Am I doing something wrong?", "What am I missing?",
    "Does that make sense?", "Is that about right?", "Is this as good as it gets?",
])
def test_asking_whether_a_figure_is_right_is_an_is_this_normal_question(question):
    text = f"# Throughput on an A10G\nWe get 30 tok/s on one A10G with TGI. {question}"
    assert claims.symptom(said(text)) == "normal?"


@pytest.mark.parametrize("statement", ["It looks right to me.", "I am doing something else now.",
                                       "That made sense after the upgrade."])
def test_saying_it_is_right_is_no_question(statement):
    assert claims.symptom(said(f"# Throughput on an A10G\nWe get 30 tok/s on one A10G with TGI. {statement}")) \
        != "normal?"


# --------------------------------------------------------------------------- a longer prompt takes longer


@pytest.mark.parametrize("text", [
    "Time to first token grows almost linearly with the prompt length on our A100 (vLLM). Is that expected?",
    "With longer inputs the latency of the first token increases a lot in SGLang. Is something wrong?",
    "Why is generation slower as the conversation gets longer? It starts at 60 tok/s in llama.cpp.",
    "The TTFT goes from 0.1 s to 1.2 s when we send 16k-token prompts to TGI. Normal?",
    "输入越长，首字延迟越长，这正常吗？",
])
def test_a_longer_prompt_taking_longer_is_the_serving_trade(text):
    assert claims.length_tradeoff(said(text))
    answer, findings = verdict_of(issue(text))
    assert any(f.rule == "ticket.serving_tradeoff" for f in findings)
    assert answer.category == "expected_physics"


@pytest.mark.parametrize("text", [
    "TTFT does not increase with longer prompts on our H100, which is great.",  # ruled out
    "We use long prompts for RAG and the latency is fine.",  # nothing slower
    "The prompt is 2k tokens; decode runs at 90 tok/s.",  # a length, no trade
])
def test_no_trade_without_a_longer_input_taking_longer(text):
    assert not claims.length_tradeoff(said(text))


@pytest.mark.parametrize("sentence, ratio", [
    ("With 2 GPUs it is only 30% faster than with 1 GPU.", 1.3),
    ("TP=4 is 20% slower than TP=2.", 0.8),
    ("Two cards only improve the speed by 10% over one card.", 1.1),
    ("1 GPU is 25% faster than 2 GPUs.", 1 / 1.25),
    ("Going to TP=2 only gives a x1.3 speed-up on our GPUs.", 1.3),
])
def test_speed_ups_written_as_percentages_or_x_first(sentence, ratio):
    (c,) = claims.speedups(said(sentence))
    assert c.data["ratio"] == pytest.approx(ratio)


@pytest.mark.parametrize("sentence", [
    "GPU util is 30% on 2 GPUs, faster would be nice.",  # a utilisation, not a speed-up
    "We have 4x A100 and it is faster than before.",  # a count of GPUs
    "It should be 30% faster with 2 GPUs.",  # hoped for
    "It is not 30% faster with 2 GPUs.",  # ruled out
])
def test_percentages_that_are_no_measured_speed_up(sentence):
    assert claims.speedups(said(sentence)) == []
