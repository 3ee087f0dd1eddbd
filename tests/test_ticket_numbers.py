"""Ratios and latencies a ticket states, against the predictor (rules/ticket_numbers.py), the claim types
that read them (rules/claims.py: speed-ups, scaling efficiencies, NCCL algorithms compared, the complaint
vocabulary) and the issue prose that carries them (diagnose/artifacts/issue_md.py: prompt length, the
serving benchmarks' "Mean TPOT (ms):" lines). The sentences are paraphrases written for these tests,
not the corpus tickets' wording; the corpus is scored by benchmarks/ticket_accuracy.py."""

from pathlib import Path

import pytest
from test_ticket_figures import _issue  # the issue's facts, findings and verdict, as `diagnose ticket` reads it

from diagnose.artifacts import parse_text
from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Measurement, Note, Workload
from diagnose.findings import Evidence
from rules import claims
from rules.engine import evaluate, fits_first, ticket_verdict

TICKETS = Path(__file__).parent / "data" / "tickets"


def _said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def _rule(findings, name):
    return [f for f in findings if f.rule == name]


# --------------------------------------------------------------------------- claims: speed-ups


@pytest.mark.parametrize("sentence,ratio,small,large", [
    ("TP4 is only 1.3x faster than TP1 for this model.", 1.3, 1, 4),
    ("With 8 GPUs we see a 2.1x speedup over a single GPU.", 2.1, 1, 8),
    ("Going from 2 GPUs to 4 GPUs gives 1.2x the throughput.", 1.2, 2, 4),
    ("speed-up of 1.7 times (2 -> 4 GPUs) in tok/s", 1.7, 2, 4),
    ("Moving from TP1 to TP4 yields just 1.6× more tokens/s.", 1.6, 1, 4),
    ("Decode on two cards is 1.5x slower than on one card.", 1 / 1.5, 1, 2),
    ("Our 8-way tensor parallel run is 3x faster.", 3.0, None, 8),
    # (issue 11, q11a) a speed-up named before its figure, "as fast as", and Chinese word order and counts
    ("TP4 decodes 2.1 times as fast as TP1.", 2.1, 1, 4),
    ("With 4 GPUs the speedup is only 1.4 over one GPU.", 1.4, 1, 4),
    ("4 张 L40S 上单请求的生成速度只比单卡快 20%。", 1.2, 1, 4),
    ("tp=4 相比单卡加速比只有 1.3。", 1.3, 1, 4),
    ("双卡比单卡慢了 10%。", 0.9, 1, 2),
    # (cr10 #9) the figure before a full stop ends the sentence, it is no decimal point
    ("Going from TP4 to TP8 the speedup is 1.3.", 1.3, 4, 8),
    ("On 2 GPUs we measured a speed-up of 2.", 2.0, None, 2),
    # (cr10 #2) a neutral verb after a speed noun: throughput, speed, performance
    ("从 1 卡到 2 卡，吞吐量提升了 30%。", 1.3, 1, 2),
    ("换成 4 张卡以后推理速度只提高了 15%。", 1.15, None, 4),
    ("两卡相比单卡，性能下降了 10%。", 0.9, 1, 2),
])
def test_a_speedup_is_read_with_the_layouts_it_compares(sentence, ratio, small, large):
    found = claims.speedups(_said(sentence))
    assert len(found) == 1
    assert found[0].data["ratio"] == pytest.approx(ratio)
    assert (found[0].data["small"], found[0].data["large"]) == (small, large)


@pytest.mark.parametrize("sentence", [
    "I expected a 4x speedup with four GPUs.",  # hoped for
    "It should be about 2x faster with two cards.",
    "It is not 2x faster with two cards.",  # ruled out: what it is not
    "We doubled to 2x the GPUs and got nothing faster.",  # a ratio of GPUs
    "We run 4x A100 and the speed is fine.",
    "It took 2 to 3 seconds per answer with 2 GPUs.",  # no ratio at all
    "双卡的首 token 延迟降低了 30%。",  # a time that went down, not the speed
    # (cr10 #2) what went up or down is no speed: power, utilisation, memory, temperature
    "Llama-2-13B 双卡 A100 PCIe，vLLM。功耗降低了 40%，速度慢了一点。",
    "从 4 卡到 8 卡，GPU 利用率下降了 30%，速度基本一样。",
    "用 2 张卡后每张卡的显存占用降低了 45%。",
    "从单卡换到双卡，GPU 温度提高了 10%，速度没变。",
    "The speedup should be 4 with four GPUs.",  # hoped for
])
def test_hoped_negated_and_gpu_ratios_are_no_measured_speedup(sentence):
    assert claims.speedups(_said(sentence)) == []


@pytest.mark.parametrize("sentence,percent,small,large", [
    ("The scaling efficiency from 1 to 8 GPUs is only 60%.", 60.0, 1, 8),
    ("We get 70% scaling efficiency on 4 GPUs.", 70.0, None, 4),
    ("Throughput scales only 55% when going to 8 cards.", 55.0, None, 8),
    ("parallel efficiency with TP=2 is about 85 %", 85.0, None, 2),
])
def test_a_scaling_efficiency_is_read(sentence, percent, small, large):
    found = claims.scaling_efficiencies(_said(sentence))
    assert [(c.data["percent"], c.data["small"], c.data["large"]) for c in found] == [(percent, small, large)]


@pytest.mark.parametrize("sentence", [
    "I hoped for 90% scaling efficiency on 8 GPUs.",
    "GPU utilization is 60% on 8 GPUs.",
    "Memory usage is 80% on each GPU.",
])
def test_hopes_and_other_percentages_are_no_scaling_efficiency(sentence):
    assert claims.scaling_efficiencies(_said(sentence)) == []


def test_a_scaling_efficiency_is_not_read_as_gpu_utilisation():
    facts = _said("With 8 GPUs the scaling efficiency is only 60%, and the GPUs is only 60% efficient.")
    assert claims.find(facts, "gpu_util") == []
    assert [c.data["percent"] for c in claims.find(_said("The GPUs are only at 60% utilization."), "gpu_util")] == [60]


@pytest.mark.parametrize("sentence,complains", [
    ("Why do I get very little or no boost on these GPUs?", True),
    ("There is hardly any speed-up from the second card.", True),
    ("Four GPUs are only 1.3x faster than one.", True),
    ("A marginal gain at best with TP=2.", True),
    ("Four GPUs are 3.5x faster than one, nice.", False),
    ("How much boost should I expect from vLLM?", False),
])
def test_a_small_gain_is_a_complaint(sentence, complains):
    assert bool(claims.complaint(_said(sentence))) is complains


# --------------------------------------------------------------------------- claims: NCCL algorithms compared


@pytest.mark.parametrize("sentence,algorithms", [
    ("With all_reduce_perf, Tree has better bandwidth than Ring on 2 nodes.", ["tree", "ring"]),
    ("Why use NVLS + Tree in NCCL instead of plain Tree?", ["nvlstree", "tree"]),
    ("NCCL_ALGO=Ring gives 180 GB/s busbw and NCCL_ALGO=Tree gives 90 GB/s.", ["ring", "tree"]),
    ("Is CollNet faster than NVLS for our NCCL allreduce?", ["collnet", "nvls"]),
])
def test_two_nccl_algorithms_set_side_by_side_are_read(sentence, algorithms):
    found = claims.algorithms_compared(_said(sentence))
    assert [c.data["algorithms"] for c in found] == [algorithms]


@pytest.mark.parametrize("sentence", [
    "The ring of GPUs is faster than the tree of servers.",  # no NCCL in sight
    "NCCL uses the Ring algorithm here.",  # one algorithm, nothing compared
])
def test_rings_and_trees_of_other_kinds_or_alone_are_not_compared(sentence):
    assert claims.algorithms_compared(_said(sentence)) == []


# --------------------------------------------------------------------------- issue prose


@pytest.mark.parametrize("sentence,tokens", [
    ("The TTFT for a 2000-token prompt is high.", 2000),
    ("We use an input length of 1024 for all runs.", 1024),
    ("ISL 2k and OSL 128 in the benchmark.", 2000),
    ("Each request has 512 prompt tokens.", 512),
    ("Run with --input-len 4096 against the server.", 4096),
])
def test_the_prompt_length_the_prose_states_is_a_workload_fact(sentence, tokens):
    records, _ = parse_text(f"# Latency question\n\nWe see this on our vLLM server today. {sentence}\n", "issue.md")
    assert [w.prompt_len for w in records if isinstance(w, Workload) and w.prompt_len] == [tokens]


def test_a_serving_benchmark_line_quoted_in_prose_is_a_measurement():
    text = ("# Benchmark result question\n\nWe serve the model with vLLM TP=4 and ran the serving benchmark with one "
            "request at a time.\nMean TPOT (ms): 18.5\nMedian TTFT (ms): 212.4\nIs this reasonable for this setup?\n")
    records, _ = parse_text(text, "issue.md")
    got = {(m.metric, m.value, m.stat) for m in records if isinstance(m, Measurement)}
    assert {("tpot_ms", 18.5, "reported"), ("ttft_ms", 212.4, "median")} <= got


# --------------------------------------------------------------------------- rules: speed-ups against the predictor


def test_a_speedup_near_the_predicted_one_is_physics_and_names_the_fixed_costs():
    _, findings, v = _issue("# TP2 speedup question\n\nWe serve Llama-2-13B with vLLM on 2x A100 80GB SXM. One "
                            "request decodes 1.5x faster with TP=2 than with TP=1. Is that what we should see?\n")
    (f,) = _rule(findings, "ticket.speedup_vs_expected")
    assert f.category == "expected_physics" and "all-reduce" in f.summary
    measured = next(e for e in f.evidence if e.measured is not None)
    assert measured.measured == 1.5 and 1.2 < measured.expected < 2.0  # the predictor's figure, said beside it
    assert v.category == "expected_physics"


def test_a_speedup_far_below_the_predicted_one_is_not_physics():
    _, findings, v = _issue("# TP2 speedup question\n\nWe serve Llama-2-13B with vLLM on 2x A100 80GB SXM. One "
                            "request decodes only 1.05x faster with TP=2 than with TP=1. Is that what we should see?\n")
    (f,) = _rule(findings, "ticket.speedup_vs_expected")
    assert f.category == "other" and v.category != "expected_physics"


def test_a_scaling_efficiency_is_judged_as_the_speedup_it_implies():
    _, findings, _ = _issue("# Scaling question\n\nLlama-3-8B with vLLM on 8x H100 SXM: the scaling efficiency "
                            "from 1 to 8 GPUs is only 40%. Is this expected?\n")
    (f,) = _rule(findings, "ticket.speedup_vs_expected")
    measured = next(e for e in f.evidence if e.measured is not None)
    assert measured.measured == pytest.approx(3.2)  # 40 % of the 8x ideal


def test_a_layer_split_gives_no_speedup_whatever_the_model():
    _, findings, v = _issue("# No speedup with a second GPU\n\nRunning a 13B GGUF model with llama.cpp on 2x RTX "
                            "3090. With both GPUs generation is only 1.05x faster than with one GPU. Is this normal?\n")
    (f,) = _rule(findings, "ticket.speedup_vs_expected")
    assert f.category == "expected_physics" and "layer split" in f.title
    assert v.category == "expected_physics"


def test_a_speedup_in_a_hang_report_is_not_judged():
    _, findings, _ = _issue("# NCCL hangs at TP=4\n\nLlama-3-8B with vLLM on 4x L40S hangs at startup with TP=4; "
                            "before the upgrade TP4 was 1.3x faster than TP1.\n")
    assert _rule(findings, "ticket.speedup_vs_expected") == []


# --------------------------------------------------------------------------- rules: TTFT and copy rates


def test_a_ttft_inside_the_prefill_band_is_physics_and_needs_the_prompt_length():
    text = ("# Time to first token\n\nWe serve Llama-3-8B on one A100 80GB with vLLM, and a single request{} has "
            "a TTFT of 90 ms. Is that expected?\n")
    _, findings, _ = _issue(text.format(" with a 1000-token prompt"))
    (f,) = _rule(findings, "ticket.ttft_vs_expected")
    assert f.category == "expected_physics" and any(e.measured == 1000 for e in f.evidence)
    _, findings, _ = _issue(text.format(""))
    assert _rule(findings, "ticket.ttft_vs_expected") == []  # no prompt length: no prefill to price


def test_a_ttft_many_times_the_prefill_is_not_physics():
    _, findings, _ = _issue("# Time to first token seems high\n\nWe serve Llama-3-8B on one A100 80GB with vLLM and "
                            "measure a TTFT of 3000 ms for a 1000-token prompt with a single request. Is that "
                            "expected?\n")
    (f,) = _rule(findings, "ticket.ttft_vs_expected")
    assert f.category == "other"


def test_an_nvlink_copy_rate_near_the_payload_rate_is_physics():
    _, findings, v = _issue("# nvbandwidth result on our node\n\nWe ran nvbandwidth on an 8x H100 SXM server and "
                            "device_to_device_memcpy_read_ce gives about 380 GB/s between GPU pairs. Is that the "
                            "right number for this system?\n")
    (f,) = _rule(findings, "ticket.copy_figure")
    assert f.category == "expected_physics" and v.category == "expected_physics"


def test_a_copy_rate_on_pcie_boards_is_not_this_rules():
    _, findings, _ = _issue("# p2p bandwidth\n\nThe p2pBandwidthLatencyTest between our two RTX 4090 cards shows "
                            "25 GB/s peer to peer. Is that the right number for this system?\n")
    assert _rule(findings, "ticket.copy_figure") == []


def test_a_copy_rate_far_below_nvlink_is_judged_as_a_pasted_matrix_would_be():
    _, findings, v = _issue("# nvbandwidth\n\nWe ran nvbandwidth on an 8x H100 SXM server and the memcpy between GPU "
                            "pairs gives about 40 GB/s. Is that the right number for this system?\n")
    (f,) = _rule(findings, "ticket.copy_figure")
    assert (f.category, f.severity) == ("pcie_fallback", "warning")  # what PCIe Gen5 carries, not NVLink


# --------------------------------------------------------------------------- rules: algorithms compared


def test_two_algorithms_compared_without_a_fault_are_physics():
    _, findings, v = _issue("# Tree faster than Ring?\n\nOn two nodes all_reduce_perf shows that NCCL's Tree has "
                            "better bus bandwidth than Ring. Why is that?\n")
    (f,) = _rule(findings, "ticket.algorithms_compared")
    assert f.category == "expected_physics" and v.category == "expected_physics"


def test_two_algorithms_compared_in_a_failure_report_are_not_answered_as_physics():
    _, findings, _ = _issue("# NCCL hangs with Tree\n\nall_reduce_perf hangs with NCCL_ALGO=Tree on two nodes, "
                            "while Ring works fine and is faster.\n")
    assert _rule(findings, "ticket.algorithms_compared") == []


def test_the_real_nvls_tree_question_is_answered_as_designed():
    facts = read_bundle([TICKETS / "u216-nccl-nvlstree-vs-tree-busbw-question"])
    findings = evaluate(facts)
    assert _rule(findings, "ticket.algorithms_compared")
    assert ticket_verdict(facts, findings).category == "expected_physics"


# --------------------------------------------------------------------------- the weighing: a fit outranks words


def test_a_figure_that_fits_outranks_a_cause_resting_only_on_the_reporters_words():
    from rules.common import make

    facts = _said("Is 45 tok/s normal? Maybe it is the PCIe link.")
    fit = make("ticket.measured_vs_expected", "expected_physics", "info", 0.6, "fits", "", [])
    words = make("ticket.some_guess", "pcie_link_degraded", "warning", 0.55, "guess", "",
                 [Evidence(source="issue.md:1", detail="the reporter's words")])
    out = {f.rule: f for f in fits_first(facts, [words, fit])}
    assert out["ticket.some_guess"].severity == "info" and out["ticket.some_guess"].confidence < 0.6
    tool = make("ticket.some_guess", "pcie_link_degraded", "warning", 0.55, "seen", "",
                [Evidence(source="lspci.txt:12", detail="LnkSta x4")])
    assert fits_first(facts, [tool, fit])[0].severity == "warning"  # a parsed artifact keeps its lead
    assert fits_first(facts, [words]) == [words]  # no fit, nothing changes


# --------------------------------------------------------------------------- the question and the engine, as written


@pytest.mark.parametrize("title,kind", [
    ("# Is this fine or should it be faster?", "normal?"),
    ("# Are these numbers good for two 3090s?", "normal?"),
    ("# Should it run faster with TP=2?", "normal?"),
    ("# It is fine, TP=2 works", "other"),  # a statement, not a question about a figure
])
def test_asking_whether_a_figure_is_fine_is_an_is_this_normal_ticket(title, kind):
    records, _ = parse_text(f"{title}\n\nWe run a 13B model on our two GPUs and measured the speed today.\n",
                            "issue.md")
    facts = Facts()
    facts.add(*records)
    assert claims.symptom(facts) == kind


@pytest.mark.parametrize("sentence,engine", [
    ("Loaded with text-generation-webui on both cards.", "text-generation-webui"),
    ("I use oobabooga with the gpu-split option.", "oobabooga"),
    ("KoboldCpp splits the layers over the GPUs.", "KoboldCpp"),
])
def test_layer_splitting_front_ends_are_named_engines(sentence, engine):
    from diagnose.artifacts.text import engine_named

    assert engine_named(sentence) == engine


def test_a_text_generation_webui_rate_on_two_gpus_is_judged_as_a_layer_split():
    _, findings, v = _issue("# speed on two 3060\n\nLlama-2-13B on 2x RTX 3060 12GB with text-generation-webui "
                            "gives: Output generated in 25.3 seconds (12.5 tokens/s, 316 tokens, context 50). Is "
                            "this fine or should it be faster?\n")
    assert _rule(findings, "ticket.layer_split_rate") and v.category == "expected_physics"


@pytest.mark.parametrize("sentence,kind", [
    ("The GPU clocks drop to 210 MHz and the GPUs sit in P8 when nothing is running.", "idle_state"),
    ("At idle the SM clocks are reduced to 210 MHz.", "idle_state"),
    ("The SM clock drops to 1100 MHz under load and the power cap is active.", "clock_power"),
    ("During inference the clocks are throttled to 900 MHz.", "clock_power"),
])
def test_low_clocks_of_an_idle_gpu_are_power_saving_not_a_throttle(sentence, kind):
    kinds = {c.kind for c in claims.claims(_said(sentence))} & {"idle_state", "clock_power"}
    assert kinds == {kind}


# --------------------------------------------------------------------------- copies between host and GPU


@pytest.mark.parametrize("text,value", [
    ("# H2D speed\n\nbandwidthTest reports 12.2 GB/s host to device on a Tesla V100 PCIe 32GB. Is that right?\n", 12.2),
    ("# nvbandwidth on H100 PCIe\n\nhost_to_device_memcpy_ce gives 54 GB/s on our H100 PCIe. Expected?\n", 54),
    ("# D2H copy rate\n\nDevice to host copies from pinned memory run at 26 GB/s on an A100 PCIe 80GB. Normal?\n", 26),
])
def test_a_host_copy_rate_that_fits_the_pcie_link_is_physics(text, value):
    _, findings, v = _issue(text)
    (f,) = _rule(findings, "ticket.host_copy_figure")
    assert f.evidence[1].measured == value and v.category == "expected_physics"


@pytest.mark.parametrize("text", [
    "# P2P\n\nCopies between the two A100 PCIe GPUs run at 25 GB/s. Is that right?\n",  # GPU to GPU, not host
    "# crash\n\nbandwidthTest crashes with an error after printing 25 GB/s host to device on an A100 PCIe.\n",
])
def test_no_host_copy_fit_for_a_peer_copy_or_a_failure(text):
    _, findings, _ = _issue(text)
    assert not _rule(findings, "ticket.host_copy_figure")


@pytest.mark.parametrize("ratio,category", [("2.0", "expected_physics"), ("1.1", "other")])
def test_a_speedup_said_in_chinese_is_judged_against_the_predictors_band(ratio, category):
    # x1.93 expected from TP1 to TP4 for Llama-2-13B on NVLink A100s (vLLM profile): 2.0 is inside, 1.1 far below
    _, findings, v = _issue("# 加速比\n\nLlama-2-13B fp16，A100 80G SXM（NVLink），vLLM，单请求："
                            f"tp=4 相比单卡加速比 {ratio}，正常吗？\n")
    (f,) = _rule(findings, "ticket.speedup_vs_expected")
    assert f.category == v.category == category and v.confidence < 0.7


@pytest.mark.parametrize("text,explained", [
    ("vLLM serving Llama-2-7B on one A100 80GB takes 72 GB of GPU memory although the model is only 13 GB. "
     "Is this normal?", True),
    ("SGLang uses 90% of the VRAM on my L40S for a 7B model. Why?", True),
    ("用 vLLM 部署 Qwen2.5-7B-Instruct，单张 A100 80G，显存占用 70 多 G，模型才 15G，这正常吗？", True),
    ("vLLM serving Llama-2-7B on one A100 80GB: the model is 13 GB and generation is slow. Is this normal?", False),
    # (cr10 #8) other readings and verbs of the same situation, written for these tests
    ("With SGLang on one H100, the memory readout says 71 GB in use, whereas the weights only need 16 GB. Why?", True),
    ("TensorRT-LLM on an L4 holds 21 GiB of VRAM but the model should be about 8 GB. Is this a leak?", True),
    ("LMDeploy on a 4090: VRAM is nearly full (23 of 24 GB) for a 3B model. Expected?", True),
    # ... and a crash or running out of memory in the same ticket: a failure, not a reservation to explain
    ("vLLM on an A100 40GB takes 38 GB of GPU memory although the model is only 26 GB, then the server crashes "
     "when a second request arrives.", False),
    ("SGLang holds 75 GB of VRAM but the model is 16 GB, and the next request fails with CUDA out of memory.", False),
    # a bandwidth is no memory held
    ("vLLM on one H100 reads memory at 2000 GB/s for the 8B model. Is this normal?", False),
    # (r11a) a card's size named with the card is no memory held: "using 2x RTX 4090 (24 GB) for the model"
    ("We used 4x A100 80GB for the Llama-2-70B model with vLLM and tensor parallel 4. Is this setup right?", False),
    ("I am using 2x RTX 4090 (24 GB) for the Qwen2-72B AWQ model with vLLM. What TP should I pick?", False),
    ("Using two L40S 48GB with SGLang, but the 70B model needs a third card. Expected?", False),
    # ... while a verb with its figure still is, "up" or not
    ("vLLM on one A100 80GB takes up 72 GB even though the model is only 15 GB. Why?", True),
])
def test_an_engines_memory_reservation_on_one_gpu_is_explained(text, explained):
    _, findings, _ = _issue(f"# memory\n\n{text}\n")
    said = [f for f in findings if f.rule == "ticket.explained" and "memory" in f.title]
    assert bool(said) is explained


@pytest.mark.parametrize("text,cited", [
    ("Inference takes 450 ms per image on my T4. The official benchmark lists 300 ms for this card. Is that normal?",
     True),
    ("我在 Orin 上测的是 450ms 一帧。官方文档写的是 300ms。这正常吗？", True),
    ("One step takes 2.4 s here. The paper reports 1.1 s on the same GPU. Is that expected?", True),
    # one time and no published one: the question alone is still asked about a behaviour
    ("Inference takes 450 ms per image on my T4 with TensorRT. Is this normal?", False),
])
def test_a_time_set_against_a_published_one_in_another_sentence_is_not_called_normal(text, cited):
    _, findings, v = _issue(f"# latency question\n\n{text}\n")
    normal = [f for f in findings
              if f.rule == "ticket.nothing_broken" and f.category in ("healthy", "expected_physics")]
    assert (not normal) is cited
    if cited:
        assert v.category != "healthy"
