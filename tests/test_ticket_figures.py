"""The figures a ticket quotes, against the catalog and the predictor (rules/ticket_figures.py and
the figure claims of rules/claims.py). The texts are paraphrases written for these tests, not the
corpus tickets' sentences; the corpus cases the rules answer are scored by
benchmarks/ticket_accuracy.py."""

import re

import pytest

from diagnose.artifacts import parse_text
from diagnose.evidence import Facts, Measurement, Note, Workload
from rules import beyond_band, claims
from rules.engine import evaluate, ticket_verdict
from rules.gpus_in_use import layer_split_engine


def _issue(text: str):
    """Facts, findings and verdict of an issue's Markdown, read as `diagnose ticket` reads it."""
    records, _ = parse_text(text, "issue.md")
    facts = Facts()
    facts.add(*records)
    findings = evaluate(facts)
    return facts, findings, ticket_verdict(facts, findings)


def _described(text: str, *records) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text), *records)
    return facts


def _figures(text: str, metric: str = "decode_tok_s") -> list[float]:
    """The values of one metric an issue's prose gives, read as `diagnose ticket` reads it."""
    records, _ = parse_text(text, "issue.md")
    return [m.value for m in records if isinstance(m, Measurement) and m.metric == metric]


def _rules(findings, name):
    return [f for f in findings if f.rule == name]


# --------------------------------------------------------------------------- claims


@pytest.mark.parametrize("sentence,value,spec,question", [
    ("We only get 341.5 GB/s between the GPUs.", 341.5, False, False),
    ("The datasheet says NVLink is 900GB/s.", 900.0, True, False),
    ("Our copies reach 1,450 GBps on this node.", 1450.0, False, False),
    ("Should the link bandwidth not be 25GB per direction?", 25.0, True, True),
    ("Each link moves 20 GB/s in our test", 20.0, False, False),
    ("Each link moves 20 GiB/s in our test", 21.475, False, False),  # binary gigabytes: 2^30 B
])
def test_bandwidth_figures_are_read_with_how_they_were_said(sentence, value, spec, question):
    (c,) = claims.bandwidth_figures(_described(sentence))
    assert (c.data["value"], c.data["spec"], c.data["question"]) == (value, spec, question)


def test_a_bidirectional_measurement_stays_a_measurement_with_its_direction():
    (c,) = claims.bandwidth_figures(_described("Our bidirectional p2p copy between the two cards measured 47 GB/s."))
    assert (c.data["value"], c.data["spec"], c.data["direction"]) == (47.0, False, "bi")
    (d,) = claims.bandwidth_figures(_described("The datasheet's bidirectional NVLink figure is 600 GB/s."))
    assert d.data["spec"] and d.data["direction"] == "bi"


@pytest.mark.parametrize("sentence", [
    "Our A100 80GB nodes show poor NVLink bandwidth in the copy test.",  # the board's memory, not a rate
    "Link throughput between the RTX 6000 48GB cards is low.",
    "The model takes 25GB of memory on each GPU.",  # a size, not a rate
    "The NIC runs at 200 Gb/s.",  # bits per second: a link's rate, read elsewhere
    "We have 80GB cards.",
])
def test_sizes_and_bit_rates_are_not_bandwidth_figures(sentence):
    assert claims.bandwidth_figures(_described(sentence)) == []


@pytest.mark.parametrize("sentence,nbytes,seconds", [
    ("An 8 MB all_gather takes 2 ms on our cluster.", 8e6, 2e-3),
    ("It takes 350 us to allreduce 1 MiB here.", 1 << 20, 350e-6),
    ("A broadcast of 4,000,000 bytes finishes in 0.8 milliseconds.", 4e6, 0.8e-3),
])
def test_a_collective_timed_in_words_gives_its_size_and_time(sentence, nbytes, seconds):
    (c,) = claims.collective_timings(_described(sentence))
    assert c.data["bytes"] == pytest.approx(nbytes) and c.data["seconds"] == pytest.approx(seconds)


@pytest.mark.parametrize("sentence", [
    "On our L40 48GB cards every allreduce takes 4 ms.",  # the GPU's memory
    "Serving Mixtral 47B over four GPUs, an all-gather takes 90 us.",  # the model's parameter count
])
def test_a_gpus_memory_or_a_models_size_is_not_a_collectives_size(sentence):
    assert claims.collective_timings(_described(sentence)) == []


def test_a_hang_report_is_not_judged_for_its_timings():
    text = ("# all_gather hangs after the first step\n\nTwo nodes of H100; a 64 MB all_gather took 1 us "
            "the first time and then the job hangs.")
    facts = _described(text)
    assert claims.collective_timings(facts) and claims.symptom(facts) == "hang"
    assert not _rules(evaluate(facts), "ticket.faster_than_physics")


def test_sizes_and_times_without_a_collective_are_not_timings():
    assert claims.collective_timings(_described("Loading the 16 GB checkpoint takes 40 s.")) == []


@pytest.mark.parametrize("title,kind", [
    ("# Why is the copy rate 180 GB/s and not 450 GB/s?", "normal?"),
    ("# Question on busbw between our nodes", "normal?"),
    ("# Confused by the bandwidth numbers nccl-tests prints", "normal?"),
    ("# Why does all_reduce hang after the first step?", "hang"),  # a failure stays a failure
    ("# vLLM crashes when loading the model", "crash"),
])
def test_a_question_about_a_figure_is_an_is_this_normal_ticket(title, kind):
    assert claims.symptom(_described(title + "\n\nDetails below.")) == kind


# --------------------------------------------------------------------------- what the issue text gives

_ISSUE = ("# Numbers from our new server\n\nWe ran the usual tests on the new machine and want to "
          "know if these are fine.\n\n")


def test_busbw_as_people_retype_it_carries_the_gpu_count_of_its_line():
    records, _ = parse_text(_ISSUE + "On 8 GPUs the bus bw is 28GB/s.\nWith 4 GPUs BusBW 35 GB/s.\n", "issue.md")
    got = sorted((m.value, m.gpus) for m in records if isinstance(m, Measurement) and m.metric == "busbw_gbs")
    assert got == [(28.0, 8), (35.0, 4)]


def test_bare_figures_of_a_collective_benchmark_count_unless_they_are_asked_about():
    text = _ISSUE + "Should all_reduce_perf on 8 GPUs give 700? We measure 612 with -b 1G -e 8G.\n"
    records, _ = parse_text(text, "issue.md")
    assert [m.value for m in records if isinstance(m, Measurement) and m.metric == "busbw_gbs"] == [612.0]


def test_a_gpu_count_written_against_the_model_number_is_read():
    records, _ = parse_text(_ISSUE + "I run 2x4090 with llama.cpp and get 20 t/s.\n", "issue.md")
    (w,) = [r for r in records if isinstance(r, Workload) and r.gpu]
    assert (re.sub(r"\s", "", w.gpu), w.gpu_count) == ("4090", 2)


# --------------------------------------------------------------------------- the rules


def test_a_measured_nvlink_figure_against_the_datasheet_total_is_physics():
    text = ("# Is our NVLink slow?\n\nOur server has 8x H100 SXM. NVIDIA advertises 900 GB/s NVLink, "
            "but all_reduce_perf shows a bus bandwidth of 360 GB/s. Is this expected?\n")
    _, findings, v = _issue(text)
    (f,) = _rules(findings, "ticket.link_figure")
    assert v.category == f.category == "expected_physics"
    assert 360.0 in {e.measured for e in f.evidence} and 900.0 in {e.expected for e in f.evidence}


def test_a_figure_far_below_the_links_is_not_explained_by_the_datasheet():
    text = ("# Is our NVLink slow?\n\nOur server has 8x H100 SXM. NVIDIA advertises 900 GB/s NVLink, "
            "but all_reduce_perf shows a bus bandwidth of 40 GB/s. Is this expected?\n")
    _, findings, _ = _issue(text)
    assert not _rules(findings, "ticket.link_figure")


def test_a_hang_is_not_answered_with_link_arithmetic():
    text = ("# all_reduce hangs\n\n8x H100 SXM with 900 GB/s NVLink: all_reduce_perf hangs at 128 MB, "
            "busbw 360 GB/s before that.\n")
    _, findings, _ = _issue(text)
    assert not _rules(findings, "ticket.link_figure")


def test_busbw_on_boards_without_peer_to_peer_is_bounded_by_host_memory():
    text = ("# Slow all-reduce on 4x RTX 4090\n\n4x RTX 4090 in one server, "
            "all_reduce_perf busbw 18 GB/s. Why so slow?\n")
    _, findings, v = _issue(text)
    (f,) = _rules(findings, "nccl.busbw")
    assert f.category == v.category == "expected_physics"
    # far below what host staging gives (the band starts at half the predictor's SHM figure, 2.59 GB/s over Gen4,
    # the 4x RTX 4090 kalavai table's plateau being 2.58): not physics
    text = text.replace("18 GB/s", "0.8 GB/s")
    _, findings, _ = _issue(text)
    assert [f.category for f in _rules(findings, "nccl.busbw")] != ["expected_physics"]


def test_a_batch_total_below_large_batch_throughput_is_the_batch():
    text = ("# Throughput lower than the published table\n\nLlama 3 8B on one H100 gives 3000 tokens/s in total, the "
            "official benchmark table reports 12000 tokens/s for the same model.\n")
    _, findings, v = _issue(text)
    (f,) = _rules(findings, "ticket.batched_rate")
    assert v.category == f.category == "latency_bound_small_batch"
    # a single stream's rate is judged against the per-stream expectation instead
    _, findings, _ = _issue(text.replace("3000 tokens/s in total", "60 tokens/s"))
    assert not _rules(findings, "ticket.batched_rate")


def test_a_collective_faster_than_any_link_is_a_measurement_error():
    _, findings, v = _issue("# NCCL latency question\n\nWhy does an all_reduce of 1 GB take only 0.1 ms on 2 GPUs?\n")
    assert _rules(findings, "ticket.faster_than_physics") and v.category == "other"
    _, findings, _ = _issue("# NCCL latency question\n\nWhy does an all_reduce of 1 GB take 10 ms on 2 GPUs?\n")
    assert not _rules(findings, "ticket.faster_than_physics")


def test_per_token_latencies_in_prose_are_read_in_ms_with_their_percentile():
    text = _ISSUE + ("With TP=2 the ITL is 28 ms and TTFT 1.2 s, p99 TPOT 60ms. llama.cpp reports 108.32 ms per token. "
                     "We get 1,234 tokens/s in total and 9.5it/s.\n")
    records, _ = parse_text(text, "issue.md")
    got = [(m.metric, m.value, m.stat, m.tp) for m in records if isinstance(m, Measurement)]
    # no "9.5 it/s": prompts, not tokens; "1,234 tokens/s in total" is every stream's output, not one stream's
    assert got == [("output_tok_s", 1234.0, "reported", 2), ("itl_ms", 28.0, "reported", 2),
                   ("ttft_ms", 1200.0, "reported", None), ("tpot_ms", 60.0, "p99", None),
                   ("itl_ms", 108.32, "reported", None)]


def test_a_published_figure_is_not_the_reporters_measurement():
    records, _ = parse_text(_ISSUE + "The official table reports 12000 tokens/s; we get 3000 tokens/s.\n", "issue.md")
    assert [m.value for m in records if isinstance(m, Measurement)] == [3000.0]


@pytest.mark.parametrize("name,key", [
    ("Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "qwen2.5-32b"),  # a distilled model is its student's architecture
    ("DeepSeek-R1-Distill-Llama-70B", "llama-3-70b"),
    ("Qwen2-72B-Instruct", "qwen2.5-72b"),  # Qwen2.5 kept Qwen2's shapes at this size
    ("Meta-Llama-3-70B-Instruct-GPTQ-INT4", "llama-3-70b"),
    ("Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b"),
])
def test_renamed_and_quantised_models_resolve_to_their_architecture(name, key):
    from rules.subject import Subject

    facts = Facts()
    facts.add(Workload("issue.md:3", model=name))
    assert Subject.of(facts).model.key == key


def test_a_per_token_latency_inside_the_band_is_physics_and_far_above_it_is_not():
    # vLLM named without its release: the newest profile's TP4 ITL for Llama 3 70B at batch 1 is 17.8 ms, and the band
    # spans every release's (15.2-31.5 ms with the x0.858-x1.354 calibration of session 16): 28 ms is inside
    text = ("# Is this ITL normal?\n\nWe serve Llama 3 70B with vLLM on 4x H100 SXM (TP=4). "
            "The ITL is 28 ms at batch 1. Is this expected for this setup?\n")
    _, findings, v = _issue(text)
    (f,) = _rules(findings, "ticket.latency_vs_expected")
    assert v.category == "expected_physics" and f.evidence[0].measured == 28.0 and f.evidence[0].expected
    _, findings, v = _issue(text.replace("28 ms", "120 ms"))
    (f,) = _rules(findings, "ticket.latency_vs_expected")
    # the numbers contradict a physics answer: the beyond-band lead (rules.beyond_band, info) is the verdict
    assert (v.category, f.severity) == ("other", "info") and "slowest healthy run" in f.title


def test_an_unstated_layout_is_assumed_from_the_engine_and_said():
    text = ("# Is this ITL normal?\n\nWe serve Llama 3 70B with vLLM on 4x H100 SXM. The ITL is 30 ms at batch 1. "
            "Is this expected for this setup?\n")
    _, findings, _ = _issue(text)
    (f,) = _rules(findings, "ticket.latency_vs_expected")
    assert "TP=4 (assumed: the vllm engine splits the model over the 4 GPUs named)" in f.evidence[0].detail


@pytest.mark.parametrize("name,dtype", [
    ("Llama-2-70B-GPTQ", "int4"), ("Qwen2.5-72B-Instruct-AWQ", "int4"), ("llama-2-70b.Q4_K_M.gguf", "int4"),
    ("Qwen-7B-Chat-GPTQ-Int8", "int8"), ("mistral-7b.Q8_0.gguf", "int8"), ("Llama-3.1-8B-Instruct-FP8", "fp8"),
    ("Llama 3 70B", None), ("gpt-4o", None),
])
def test_a_models_quantisation_is_read_from_its_name(name, dtype):
    from diagnose.artifacts.text import quant_dtype

    assert quant_dtype(name) == dtype


def test_a_quantised_model_is_predicted_with_its_weights_size():
    from rules.subject import Subject
    from rules.workload import predict_layout

    def rate(model):
        facts = Facts()
        facts.add(Workload("issue.md:3", model=model, gpu="RTX 3090"))
        facts.subject = Subject.of(facts)  # as the engine resolves it before the rules run
        return predict_layout(facts, 1, 1).decode_tok_s

    assert rate("Llama-2-13B-GPTQ") > 2.5 * rate("Llama-2-13B")  # about 4 bits a weight against 16


def test_a_layer_split_decodes_at_one_gpus_pace():
    text = ("# Is this speed normal with two cards?\n\nI run Llama 2 70B Q4 with llama.cpp on 2x RTX 3090 and "
            "get 14 tokens/s for one request. Is this the expected speed for this setup?\n")
    _, findings, v = _issue(text)
    (f,) = _rules(findings, "ticket.layer_split_rate")
    assert v.category == "expected_physics" and f.evidence[0].measured == 14.0
    _, findings, _ = _issue(text.replace("llama.cpp", "vLLM"))  # tensor parallelism: judged per layout instead
    assert not _rules(findings, "ticket.layer_split_rate")


def test_a_typed_busbw_weighs_as_an_observation_not_as_a_parsed_sweep():
    text = ("# all_reduce_perf result\n\nOn our 8x H100 SXM server all_reduce_perf gives a busbw of 370 GB/s. "
            "Is this expected?\n")
    _, findings, v = _issue(text)
    (f,) = _rules(findings, "nccl.busbw")
    assert f.severity == "ok" and v.confidence < 0.7


@pytest.mark.parametrize("title,kind", [
    ("# 2*4090: the GPU load can only reach 50%", "slow"),
    ("# We only get 35 GB/s between the cards", "slow"),
    ("# 4卡和8卡部署测试发现吞吐没有很大区别", "scaling"),  # 4 vs 8 cards, throughput without a big difference
    ("# Could you please provide reference results?", "normal?"),
    ("# Verifying NCCL is using NVLink", "normal?"),
])
def test_more_ways_of_asking_are_classed(title, kind):
    assert claims.symptom(_described(title + "\n\nDetails below.")) == kind


@pytest.mark.parametrize("gpus,rate,category", [
    ("4x L40S", "25.5 GB/s", "expected_physics"),  # ~80 % of PCIe Gen4 x16 per direction: the link at full width
    ("4x L40S", "6 GB/s", "other"),  # a quarter of it: the link's state or the P2P path, not physics
    ("4x RTX 3090", "6 GB/s", "p2p_disabled"),  # GeForce without a bridge: copies go through host memory
])
def test_a_copy_rate_between_pcie_gpus_is_read_against_the_link(gpus, rate, category):
    text = (f"# Is this P2P bandwidth normal?\n\nOn our server with {gpus}, p2pBandwidthLatencyTest shows {rate} "
            "between GPU0 and GPU1. Is this expected?\n")
    _, findings, v = _issue(text)
    (f,) = _rules(findings, "ticket.pcie_figure")
    assert f.category == category == v.category


def test_a_per_gpu_rate_is_not_taken_for_one_streams_rate():
    records, _ = parse_text(_ISSUE + "We get 1,200 tok/s per GPU at TP=4 and 45 tokens/s for a single request.\n",
                            "issue.md")
    got = [(m.metric, m.value) for m in records if isinstance(m, Measurement)]
    assert got == [("output_tok_s_per_gpu", 1200.0), ("decode_tok_s", 45.0)]


# --------------------------------------------------------------------------- one answer per ticket (review 1, item 3)


def _bundle(tmp_path, text: str):
    from diagnose.bundle import read_bundle

    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    return findings, ticket_verdict(facts, findings)


def test_a_rate_below_its_band_silences_the_physics_prior_and_leads_the_verdict(tmp_path):
    findings, v = _bundle(tmp_path, "# Per-token time on our H100 pair\n\nWe serve Llama-3-8B with vLLM, "
                                    "TP=2 on 2x H100 SXM, one request at a time (batch 1). ITL is 40 ms per token. "
                                    "Is that normal?\n")
    (slow,) = _rules(findings, "ticket.latency_vs_expected")
    assert slow.category == "other" and beyond_band.is_lead(slow)
    assert not [f for f in _rules(findings, "ticket.symptom_prior") if f.category == "expected_physics"]
    assert v.category == "other"


def test_a_decode_rate_below_its_band_weighs_as_a_latency_below_its_band(tmp_path):
    findings, v = _bundle(tmp_path, "# Is our single-stream speed normal?\n\nLlama-3-70B with SGLang on 8x H100 SXM, "
                                    "TP=8, batch 1: 9 tok/s decode. Is this normal for this hardware?\n")
    (slow,) = _rules(findings, "ticket.measured_vs_expected")
    assert (slow.category, slow.severity) == ("other", "info") and v.category == "other"
    assert not _rules(findings, "ticket.symptom_prior")
    assert "launch command" in slow.fix  # none was pasted


def test_a_pasted_launch_line_is_not_asked_for_again(tmp_path):
    findings, _ = _bundle(tmp_path, "# Is our single-stream speed normal?\n\nLlama-3-70B on 8x H100 SXM, "
                                    "batch 1: 9 tok/s decode. Is this normal for this hardware?\n\n"
                                    "```\npython3 -m sglang.launch_server --model meta-llama/Meta-Llama-3-70B "
                                    "--tp 8\n```\n")
    (slow,) = _rules(findings, "ticket.measured_vs_expected")
    assert "launch" not in slow.fix


def test_data_parallel_attention_is_not_judged_against_the_tp_band(tmp_path):
    findings, _ = _bundle(tmp_path, "# Is our single-stream speed normal?\n\nLlama-3-70B on 8x H100 SXM, "
                                    "batch 1: 9 tok/s decode. Is this normal for this hardware?\n\n"
                                    "```\npython3 -m sglang.launch_server --model meta-llama/Meta-Llama-3-70B --tp 8 "
                                    "--enable-dp-attention\n```\n")
    assert not _rules(findings, "ticket.measured_vs_expected")


def test_a_vm_lead_silences_the_physics_prior():
    _, findings, v = _issue("# Four A40 in a VM: TP=4 slower than TP=2\n\nvLLM runs inside a Proxmox guest with four "
                            "A40 passed through, no NVLink bridges. Llama-2-13B with TP=4 is slower than with TP=2.\n")
    assert _rules(findings, "ticket.vm_pcie_slow") and v.category == "virtualization_no_p2p"
    assert not [f for f in _rules(findings, "ticket.symptom_prior") if f.category == "expected_physics"]


def test_a_throughput_is_judged_at_the_concurrency_the_reporter_states():
    text = ("# Serving throughput question\n\nMistral-7B on one H100 SXM with vLLM. "
            "We get 1900 tokens/s output throughput with 32 concurrent requests. Is that normal?\n")
    facts, findings, _ = _issue(text)
    (m,) = [m for m in facts.of(Measurement) if m.metric == "decode_tok_s"]
    assert m.concurrency == 32
    (f,) = _rules(findings, "ticket.batched_rate")
    assert any("32 concurrent requests" in e.detail for e in f.evidence)
    assert not any("batch 256" in e.detail for e in f.evidence)
    assert f.fix  # an answer says what to do, also when nothing is broken


@pytest.mark.parametrize("launch,cap", [
    ("vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-num-seqs 8", 8),
    ("python -m vllm.entrypoints.openai.api_server --model meta-llama/Meta-Llama-3-8B-Instruct --max_num_seqs 16", 16),
    ("trtllm-serve meta-llama/Meta-Llama-3-8B-Instruct --max_batch_size 4", 4),
])
def test_the_engine_batch_cap_sets_the_full_load_batch(launch, cap):
    text = ("# Throughput lower than the published table\n\nLlama 3 8B on one H100 gives 700 tokens/s in total, "
            f"the official table reports 12000 tokens/s.\n\n```\n{launch}\n```\n")
    _, findings, _ = _issue(text)
    (f,) = _rules(findings, "ticket.batched_rate")
    assert any(f"batch {cap} (the engine" in e.detail for e in f.evidence)
    assert any(str(e.measured) == str(cap) and "sequences decoded together" in e.detail for e in f.evidence)
    assert not any("batch 256" in e.detail for e in f.evidence)


def test_a_concurrency_above_the_engine_cap_is_judged_at_the_cap():
    text = ("# Serving throughput question\n\nMistral-7B on one H100 SXM with vLLM. We get 700 tokens/s output "
            "throughput with 64 concurrent requests. Is that normal?\n\n```\nvllm serve "
            "mistralai/Mistral-7B-Instruct-v0.2 --max-num-seqs 8\n```\n")
    _, findings, _ = _issue(text)
    (f,) = _rules(findings, "ticket.batched_rate")
    assert any("caps the stated concurrency" in e.detail for e in f.evidence)


@pytest.mark.parametrize("framework,split", [("ExLlamaV2 0.2.7", False), ("exllama", True), ("llama.cpp b3561", True),
                                             ("vLLM 0.6.3", False)])
def test_a_layer_split_engine_is_named_by_its_whole_name(framework, split):
    facts = _described("Two GPUs decode one stream.", Workload("ticket.toml:1", framework=framework))
    assert layer_split_engine(facts) is split


def test_a_copy_rate_is_set_against_a_copy_not_against_nccl_busbw():
    text = ("# NVLink slower than advertised?\n\nOur DGX A100 shows 240 GB/s unidirectional in nvbandwidth between "
            "GPU 2 and GPU 5, while the datasheet promises 600 GB/s. Is something wrong?\n")
    _, findings, v = _issue(text)
    (f,) = _rules(findings, "ticket.link_figure")
    measured = [e for e in f.evidence if e.measured == 240.0]
    assert measured and "copy" in measured[0].detail and measured[0].expected == pytest.approx(0.8 * 300, rel=0.01)
    assert not any("busbw" in e.detail for e in f.evidence)
    (spec,) = [e for e in f.evidence if e.expected == 600.0]
    assert "both directions" in spec.detail  # the row's figure is the one its words name
    assert v.category == "expected_physics"


@pytest.mark.parametrize("line,count,nodes", [
    ("Three servers with 4x L40S each, RoCE between them.", 12, 3),
    ("Our two hosts hold 2x RTX 4090 per host.", 4, 2),
    ("Four A10G in one box.", 4, None),
])
def test_a_gpu_count_per_node_is_multiplied_by_the_nodes_named(line, count, nodes):
    records, _ = parse_text(_ISSUE + line + "\n", "issue.md")
    (w,) = [w for w in records if isinstance(w, Workload) and w.gpu]
    assert (w.gpu_count, w.nodes) == (count, nodes)


def test_gpus_per_node_follow_a_per_node_count():
    from rules.common import gpus_per_node

    facts, _, _ = _issue("# Multi-node job slow\n\nTwo machines, 8x A100 each, over HDR InfiniBand. busbw is 2 GB/s.\n")
    assert gpus_per_node(facts) == 8


def test_bridged_pair_copy_at_pcie_rate_is_judged():
    """Reviewer's A6000 case (re-review 3, D7): a bidirectional 51 GB/s copy over an NVLink bridge is 25.5 GB/s
    per direction, below PCIe Gen4 x16's 31.5 GB/s line rate and far below the bridge's 0.8 x 56.25 GB/s."""
    text = ("# NVLink P2P bandwidth low?\n\nTwo RTX A6000 GPUs with an NVLink bridge. p2pBandwidthLatencyTest shows "
            "bidirectional 51 GB/s between GPU0 and GPU1. Is this normal?")
    _, findings, v = _issue(text)
    (f,) = _rules(findings, "ticket.bridge_figure")
    assert (f.category, f.severity, v.category) == ("pcie_fallback", "warning", "pcie_fallback")
    per_direction = next(e for e in f.evidence if e.detail.startswith("per direction"))
    assert (per_direction.measured, per_direction.expected) == (25.5, 45.0)


def test_bridged_pair_copy_above_pcie_is_the_bridge():
    """The same pair copying 47 GB/s one way: more than PCIe Gen4 x16 can carry, so the bridge is in use."""
    text = ("# NVLink P2P bandwidth\n\nTwo RTX A6000 GPUs with an NVLink bridge. p2pBandwidthLatencyTest shows "
            "47 GB/s unidirectional between GPU0 and GPU1. Is this normal?")
    _, findings, _ = _issue(text)
    (f,) = _rules(findings, "ticket.bridge_figure")
    assert (f.category, f.severity) == ("expected_physics", "info")


@pytest.mark.parametrize("gpus,split", [("one RTX 3090", False), ("a single RTX 4090", False),
                                        ("two RTX 3090", True), ("2x RTX 4090", True)])
def test_a_layer_split_engine_splits_nothing_on_one_gpu(gpus, split):
    # paraphrases of user-tester reports ("Ollama on one RTX 3090"): the layer-split answer needs two GPUs or more
    _, findings, _ = _issue(f"# ollama\nI run llama3.1:8b with Ollama on {gpus} and get 95 tokens/s. "
                            "Is this normal?\n")
    said = [f for f in findings if f.rule in ("ticket.layer_split_rate", "ticket.symptom_prior")
            and "layer split" in f.title]
    assert bool(said) is split


# --------------------------------------------------------------------------- a rate at a stated batch (issue 11, q11a)
# Paraphrases written for these tests: other engines, units and word orders than any corpus ticket.

@pytest.mark.parametrize("text", [
    "Llama-2-7B fp16, one A100 80GB, vLLM. At batch size 64 I get 1900 tok/s. Reasonable?",
    "1,900 tokens per second is what we see for Llama 2 7B (float16) on an A100 80GB with bs=64 in vLLM. Normal?",
    "Llama-2-7B fp16 on a single A100 80GB, vLLM offline inference with batch size 64: total throughput 1900 "
    "tokens/s. Is that fine?",
])
def test_a_rate_at_a_stated_batch_above_one_streams_bound_is_the_batchs_total(text):
    _, findings, v = _issue("# throughput\n\n" + text + "\n")
    (f,) = _rules(findings, "ticket.batched_rate")
    assert f.category == v.category == "expected_physics"
    assert any("batch 64 (stated)" in str(e.expected) or "batch 64 (stated)" in e.detail for e in f.evidence)
    # not one stream beating its roofline at batch 64 (a confidently wrong measurement error before)
    assert not [g for g in _rules(findings, "ticket.measured_vs_expected") if g.category == "other"]
    assert v.confidence < 0.7


def test_a_batchs_total_far_below_the_band_is_not_physics():
    # the negation: the same layout, a third of the expected total
    _, findings, v = _issue("# throughput low\n\nLlama-2-7B fp16, one A100 80GB, vLLM offline batch of 64 prompts: "
                            "only 500 tokens/s in total. Is this normal?\n")
    (f,) = _rules(findings, "ticket.batched_rate")
    assert f.category == v.category == "other"
    assert "batch 64 (stated)" in f.title


def test_one_streams_rate_at_a_stated_batch_stays_one_streams():
    # "each sequence ... 30 tok/s" at batch 64 is below one stream's bound: judged per stream, not as a total
    facts, findings, _ = _issue("# throughput\n\nLlama-2-7B fp16, one A100 80GB, vLLM, batch size 64: each "
                                "sequence generates at 30 tok/s. Reasonable?\n")
    assert not _rules(findings, "ticket.batched_rate")
    (f,) = _rules(findings, "ticket.measured_vs_expected")
    assert f.category == "expected_physics"


@pytest.mark.parametrize("sentence,counted", [
    ("vLLM offline batch of 64 prompts: 500 tokens/s in total.", True),
    ("benchmark_serving.py --num-prompts 200 gives 1500 tok/s output throughput.", True),
    ("Prompt processing runs at 900 tokens/s.", False),  # a prompt phase's rate is still not a decode rate
])
def test_a_count_of_prompts_is_requests_not_prompt_processing(sentence, counted):
    text = f"# rates\n\nLlama-2-7B on one A100 80GB. {sentence}\n"
    assert bool(_figures(text) + _figures(text, "output_tok_s")) is counted


@pytest.mark.parametrize("said", [
    "Two A100 80GB PCIe cards (no NVLink bridge).",
    "Two RTX A6000 without NVLink, PCIe 4.0 only.",
    "Two RTX A6000 on PCIe 4.0. Would an NVLink bridge help?",  # asked about, not there
])
def test_a_copy_rate_on_boards_said_to_lack_their_bridge_is_read_against_pcie(said):
    _, findings, v = _issue(f"# P2P speed\n\n{said} p2pBandwidthLatencyTest shows 22 GB/s unidirectional between "
                            "GPU0 and GPU1. Is this normal?\n")
    assert not _rules(findings, "ticket.bridge_figure")
    (f,) = _rules(findings, "ticket.pcie_figure")
    assert f.category == v.category == "expected_physics"


# --------------------------------------------------------------------------- beyond the bound on defaults (q11a)

@pytest.mark.parametrize("text,assumed", [
    # no weights format named: the bound is the checkpoint's 16 bits, which a quantised run would beat
    ("gemma-2-9b-it on an L4 with vLLM, single request, ITL 60ms. Expected?", True),
    ("On one L4 at batch size 1, Gemma 2 9B answers at 17 tokens/s in SGLang. Is that right?", True),
    # the same figures with the weights stated: the bound is theirs, the input error confident
    ("gemma-2-9b-it in bf16 on an L4 with vLLM, single request, ITL 60ms. Expected?", False),
    ("On one L4 at batch size 1, Gemma 2 9B (fp16 weights) answers at 17 tokens/s in SGLang. Is that right?", False),
    # weights stated, the layout not: two GPUs named and no TP, the engine's split is assumed
    ("Llama-2-7B bf16 with vLLM on two A100 80GB at batch size 1: 400 tokens/s. Normal?", True),
])
def test_a_figure_beyond_a_bound_that_rests_on_defaults_is_a_lead_not_a_confident_error(text, assumed):
    _, findings, v = _issue("# speed\n\n" + text + "\n")
    (f,) = [f for f in findings if "beats the roofline" in f.title]
    assert f.category == v.category == "other"
    assert (f.confidence < 0.7) is assumed and (v.confidence < 0.7) is assumed
    assert ("rests on defaults" in f.summary) is assumed


@pytest.mark.parametrize("said,value", [("about 18 tokens a second", 18.0), ("18 tokens every second", 18.0),
                                        ("18 tokens each second", 18.0), ("1.8k tokens/s", 1800.0),
                                        ("1.8 K tok/s", 1800.0)])
def test_a_rate_in_words_per_second_or_in_thousands_is_a_rate(said, value):
    assert _figures(f"# speed\n\nLlama-2-7B on a V100 32GB generates {said} for one request.\n") == [value]


@pytest.mark.parametrize("said", ["with 4k tokens of context it runs at 30 tok/s",
                                  "on a 4K context window it gives 30 tok/s"])
def test_a_context_in_thousands_is_not_a_rate_in_thousands(said):
    assert _figures(f"# speed\n\nLlama-2-7B on a V100 32GB: {said} for one request.\n") == [30.0]


@pytest.mark.parametrize("said,value", [
    ("自回归的tokens/s仅为40.24，是否太慢了？", 40.24),  # the unit before its figure
    ("每秒生成 40 个 token，正常吗？", 40.0),
    ("吞吐 40 tokens/秒，正常吗？", 40.0),
    ("erreicht nur 40 Tokens pro Sekunde, ist das normal?", 40.0),
    ("genera 40 tokens por segundo, ¿es normal?", 40.0),
    ("génère 40 tokens par seconde, est-ce normal ?", 40.0),
    ("は 40 トークン/秒 です。普通ですか？", 40.0),
    ("its throughput (tok/s) is 40 for one request.", 40.0),
    ("tokens/s = 40 for one request.", 40.0),
    ("gives 30 tok/s, which is 40% lower than before.", 30.0),  # a share after a figure's unit is no second figure
    ("tok/s: 35 at TP=1 and the memory is 40 GB.", 35.0),
])
def test_a_rate_in_other_languages_and_orders_is_read(said, value):
    assert _figures(f"# speed\n\nOn one A100 80GB with vLLM, Llama-2-7B {said}\n") == [value]


@pytest.mark.parametrize("said", [
    "Mi objetivo es 80 tokens por segundo, todavía no lo he medido.",
    "quisiera llegar a 80 tokens por segundo.",
    "gostaria de chegar a 80 tokens por segundo.",
    "notre objectif : 80 tokens par seconde.",
    "ich möchte 80 Tokens pro Sekunde erreichen.",
    "希望能达到每秒 80 个 token。",
    "目标是 80 tokens/秒。",
])
def test_a_rate_hoped_for_in_other_languages_is_no_measurement(said):
    """cr10 #7: the languages CJK_RATE reads a rate in say a goal or a hope as English does ("I aim for 80 tok/s")."""
    assert _figures(f"# speed\n\nOn one A100 80GB with vLLM, Llama-2-13B: {said}\n") == []


@pytest.mark.parametrize("said,value", [
    ("每个 token 耗时 25 毫秒，正常吗？", 25.0),
    ("平均每 token 延迟 0.03 秒，正常吗？", 30.0),
    ("tarda 25 ms por token, ¿es normal?", 25.0),
    ("met 25 ms par token, est-ce normal ?", 25.0),
])
def test_a_time_per_token_in_other_languages_is_read(said, value):
    assert _figures(f"# speed\n\nOn one A100 80GB with vLLM, Llama-2-7B {said}\n", "itl_ms") == [value]


def test_a_first_token_time_in_chinese_is_no_time_per_token():
    records, _ = parse_text("# speed\n\nOn one A100 80GB with vLLM, Llama-2-7B 首 token 耗时 800 ms，正常吗？\n",
                            "issue.md")
    assert [m.metric for m in records if isinstance(m, Measurement)] == ["ttft_ms"]


@pytest.mark.parametrize("text", [
    "vLLM 部署 Llama-2-13B（fp16），A100 80G SXM，单请求：单卡 48 tokens/s，双卡 tp=2 时 70 tokens/s，"
    "这个加速比正常吗？",
    "Llama-2-13B fp16 with vLLM on A100 80GB SXM: with TP=2 I get 70 tok/s, a single GPU gives 48 tok/s. Normal?",
    "Llama-2-13B fp16 with vLLM on A100 80GB SXM, TP=2 70 tok/s; 一张卡 48 tok/s. Is this normal?",
])
def test_a_rate_whose_own_clause_names_one_gpu_is_the_one_gpu_layout_not_the_lines_tp(text):
    records, _ = parse_text(f"# speed-up question\n\n{text}\n", "issue.md")
    assert sorted((m.value, m.tp) for m in records if isinstance(m, Measurement)) == [(48.0, 1), (70.0, 2)]
    _, findings, v = _issue(f"# speed-up question\n\n{text}\n")
    assert v.category == "expected_physics"  # x1.46 from TP1 to TP2 on NVLink A100s: the predictor's band


@pytest.mark.parametrize("body,dtype", [
    ("Running meta-llama/Llama-2-13b-chat-hf in 8-bit (bitsandbytes) on a single A10: 4 tokens per second.", "int8"),
    ("I load TheBloke/Llama-2-13B-AWQ with vLLM on a single A10: 30 tokens per second.", "int4"),
    ("I tried Llama-2-13B in 8-bit and Llama-2-13B in 4-bit on a single A10: 4 tokens per second.", None),  # which?
    ("The A10 runs it at 4 tokens per second in 8-bit.", None),  # no model named again beside the format
])
def test_a_models_format_stated_where_the_body_names_it_again_is_its_weights(body, dtype):
    records, _ = parse_text(f"# Llama 2 13B on A10 very slow\n\n{body} Is something wrong?\n", "issue.md")
    assert [w.dtype for w in records if isinstance(w, Workload) and w.model] == [dtype]


@pytest.mark.parametrize("said", ["genera 500 tokens en 20 segundos", "erzeugt 500 Tokens in 20 Sekunden",
                                  "génère 500 tokens en 20 secondes", "gera 500 tokens em 20 segundos"])
def test_tokens_over_a_time_in_other_languages_are_a_rate(said):
    assert _figures(f"# speed\n\nOn one A100 80GB with vLLM, Llama-2-7B {said}. Is this normal?\n") == [25.0]
