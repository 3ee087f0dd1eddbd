"""The review of issue 11m: each defect on the reviewer's sentence, paraphrases of it and a negation (a sentence
the fix must keep reading as before). Every sentence is written for this test, none copied from a corpus case."""

import pytest
from test_ticket_isnormal_names import issue
from test_ticket_questions import said

from diagnose.evidence import Measurement
from rules import claims
from rules.gpus_in_use import layer_split_engine
from rules.ticket_rules import taking_turns


def figures(text: str, metric: str) -> list[float]:
    return [m.value for m in issue(text).of(Measurement) if m.metric == metric]


def ratios(sentence: str) -> list[float]:
    return [round(c.data["ratio"], 2) for c in claims.speedups(said(sentence))]


# --------------------------------------------------------------------------- 1: a range of times is no measurement


@pytest.mark.parametrize("text", [
    "# TTFT with long prompts\n\nLlama-3.1-8B on one H100: TTFT goes from 80 ms to 900 ms as the prompt grows to 16k.",
    "# slow first token\n\nOn one A100 the TTFT went from 0.08 s to 0.9 s with 16k-token prompts.",
    "# question\n\nWith vLLM on an L40S, time to first token is between 80 and 900 ms for 8k prompts.",
])
def test_one_end_of_a_range_of_times_is_not_read_as_a_ttft(text):
    assert figures(text, "ttft_ms") == []


def test_a_single_ttft_is_still_read():
    assert figures("# q\n\nOn one H100 the TTFT is 80 ms for 2k prompts.", "ttft_ms") == [80.0]


# --------------------------------------------------------------------------- 2: 'system' is no total


@pytest.mark.parametrize("text", [
    "Llama-3.1-8B on one A100 80GB with vLLM: on this system I get 5 tok/s with one request. Is that normal?",
    "On our system we only see 5 tok/s with a single request.",
    "In total honesty I get 5 tok/s with one request on this box.",
])
def test_a_word_near_the_rate_that_does_not_describe_it_is_no_total(text):
    assert figures("# q\n\n" + text, "decode_tok_s") == [5.0]


@pytest.mark.parametrize("text", [
    "With 16 concurrent requests the total throughput is 320 tok/s.",
    "With 16 concurrent requests we see an aggregate 320 tok/s.",
])
def test_a_rate_called_the_total_is_still_the_total(text):
    assert figures("# q\n\n" + text, "output_tok_s") == [320.0]


# --------------------------------------------------------------------------- 3: x16 lanes and x86 hosts


@pytest.mark.parametrize("sentence", [
    "Our PCIe 4.0 x16 slots should be enough, but throughput with TP=2 is lower than with 1 GPU.",
    "On an x86 host the throughput with 2 GPUs is no better than 1 GPU.",
    "Both cards sit in x8 slots and the speed with 2 GPUs is worse than with 1 GPU.",
])
def test_lane_widths_and_cpu_names_are_no_speed_up(sentence):
    assert ratios(sentence) == []


def test_a_ratio_written_x_first_before_a_speed_word_is_read():
    assert ratios("Going from 1 to 2 GPUs gives a x1.3 speedup.") == [1.3]


# --------------------------------------------------------------------------- 4: a comparison keeps the ratio's side


@pytest.mark.parametrize("sentence", [
    "Compared with 1 GPU, it is 1.8x faster on 4 GPUs.",
    "Relative to 1 GPU it runs 1.8x faster with 4 GPUs.",
    "Versus 1 GPU, we get 1.8x faster decode on 4 GPUs.",
])
def test_a_comparison_before_the_ratio_keeps_the_larger_layout_faster(sentence):
    assert ratios(sentence) == [1.8]


def test_the_smaller_layout_named_as_the_subject_still_flips():
    assert ratios("1 GPU is 2x faster than TP=2 on these cards.") == [0.5]


# --------------------------------------------------------------------------- 5: what went up by N %


@pytest.mark.parametrize("sentence", [
    "Latency increased by 30% when going from 1 GPU to 2 GPUs.",
    "Memory use increased by 50% with 2 GPUs and the speed is the same as 1 GPU.",
    "Our TTFT increased by about 40% from 1 GPU to 2 GPUs, the throughput is flat.",
])
def test_a_time_or_memory_going_up_is_no_speed_up(sentence):
    assert ratios(sentence) == []


def test_a_speed_going_up_by_a_percentage_is_still_a_speed_up():
    assert ratios("Throughput increased by 30% when going from 1 GPU to 2 GPUs.") == [1.3]


# ------------------------------------------------------------------ 6: CPU, RAM and bandwidth shares in Chinese


@pytest.mark.parametrize("text", [
    "推理时 CPU利用率 100%",
    "内存使用率 95%",
    "NVLink 带宽利用率 60%",
    "CPU 使用率一直是 100%。",
])
def test_chinese_shares_of_other_things_are_not_gpu_utilisation(text):
    assert [c.data["percent"] for c in claims.find(said(text), "gpu_util")] == []


@pytest.mark.parametrize("text", ["单卡显存占用很低。", "每张卡内存占用很低。"])
def test_chinese_low_memory_is_not_an_idle_gpu(text):
    assert claims.find(said(text), "gpu_idle_words") == []


def test_chinese_gpu_shares_are_still_read():
    text = "两张 A100，CPU利用率 100%，GPU利用率只有 5%，正常吗？"
    assert [c.data["percent"] for c in claims.find(said(text), "gpu_util")] == [5]
    assert claims.find(said("单卡利用率很低。"), "gpu_idle_words")


# --------------------------------------------------------------------------- 9: 'cannot use' is a failure


@pytest.mark.parametrize("text, failure", [
    ("vLLM cannot use the GPUs after the driver update", True),
    ("Ollama can't use my GPU", True),
    ("The container cannot use the second GPU.", True),
    ("The engine can't fully utilize the performance of GPU.", False),
    ("We cannot efficiently use both cards.", False),
    ("It cannot utilise all 4 GPUs.", False),
])
def test_cannot_use_names_a_failure_unless_it_is_about_how_well(text, failure):
    assert (claims.symptom(said(text)) == "error") is failure


# ------------------------------------------------------------------ smaller: 么 ends a question only as a particle


@pytest.mark.parametrize("text, question", [
    ("这也没什么。", False),
    ("速度就是这么。", False),
    ("怎么。", False),
    ("这样正常么", True),
    ("这正常吗", True),
])
def test_me_ends_a_question_only_as_its_particle(text, question):
    assert claims.asked(text) is question


# --------------------------------------------------------------------------- 7: one GPU at two moments takes no turns


@pytest.mark.parametrize("text", [
    "Two GPUs: during prefill GPU utilization is 100%, then it drops to 10% GPU utilization while decoding. Why?",
    "On 2 GPUs the GPU utilization is 95% with batch 32 but only 10% GPU utilization with batch 1.",
    "两张卡：预填充时 GPU利用率 100%，解码时 GPU利用率降到 10%。",
])
def test_one_gpu_busy_then_idle_is_not_two_gpus_taking_turns(text):
    assert not taking_turns(issue("# q\n\n" + text))


@pytest.mark.parametrize("text", [
    "With 2 GPUs one card runs at 100% GPU usage, the other sits at 5% GPU usage during inference.",
    "Two cards: GPU 0 at 98% utilization, GPU 1 at 3% utilization while generating.",
])
def test_two_gpus_told_apart_still_take_turns(text):
    assert taking_turns(issue("# q\n\n" + text))


# --------------------------------------------------------------------------- 8: a longer prompt taking longer, directed


@pytest.mark.parametrize("text", [
    "With prefix caching on, TTFT drops a lot for longer prompts in vLLM.",
    "With more prompts in flight the throughput increases on our H100.",
    "Our longer prompts are answered fine, but decode speed drops to 5 tok/s after the driver update.",
    "For longer contexts the decode speed goes up once the cache is warm.",
])
def test_a_length_without_a_cost_it_causes_is_no_trade(text):
    assert not claims.length_tradeoff(said(text))


@pytest.mark.parametrize("text", [
    "For longer prompts the TTFT rises to 2 s on one A100.",
    "When we send 32k-token prompts the decode speed drops to 20 tok/s.",
])
def test_a_length_tied_to_a_time_going_up_or_a_rate_going_down_is_the_trade(text):
    assert claims.length_tradeoff(said(text))


# --------------------------------------------------------------------------- 10: tensor parallelism ruled out or asked


@pytest.mark.parametrize("text", [
    "Transformers does not support tensor parallel for this model, so we use device_map='auto' on 4 A100 GPUs.",
    "We load Llama-2-70B with transformers and device_map='auto' on 4 A100 GPUs. Would tensor parallelism help?",
    "We run transformers with device_map='auto' over 4 A100 GPUs; we have not tried tensor parallel yet.",
])
def test_tensor_parallelism_ruled_out_or_asked_leaves_a_layer_split(text):
    assert layer_split_engine(issue("# q\n\n" + text))


def test_tensor_parallelism_used_is_no_layer_split():
    text = "We run Llama-2-70B with transformers and tp_plan='auto' under torchrun on 4 A100 GPUs."
    assert not layer_split_engine(issue("# q\n\n" + text))


# --------------------------------------------------------------------------- the fabric named by the GPU's own links


@pytest.mark.parametrize("gpu, words", [
    ("rtx-3090", ("GeForce RTX 3090", "4 links")),  # catalog rtx-3090: NVLink 3 bridge, 4 links, 56.25 GB/s a direction
    ("titan-rtx", ("TITAN RTX", "2 links")),
])
def test_a_bridged_pair_is_named_by_its_own_links_not_the_a100s(gpu, words):
    from rules import catalog, roofline

    ic = roofline.tp_fabric(catalog.gpu(gpu), 2, 2)[0]
    assert all(w in ic.name for w in words) and "A100" not in ic.name and "V100" not in ic.name


def test_a_board_with_the_full_link_set_keeps_the_fabrics_name():
    from rules import catalog, roofline

    a100 = catalog.gpu("a100-80gb-sxm")
    assert roofline.tp_fabric(a100, 8, 8)[0].name == catalog.interconnect(a100.interconnect).name
