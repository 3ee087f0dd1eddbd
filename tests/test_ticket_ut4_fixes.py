"""Defects a user-tester found running 'is this normal?' tickets (ut4): each on the tester's sentence,
paraphrases of our own and a negation. Sentences are written for this test; none is a holdout case.
"""

import json
import random

import pytest
from conftest import diagnose

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement


def measurements(text: str) -> list[tuple[str, float]]:
    return [(r.metric, r.value) for r in issue_md.parse(text, "issue.md") if isinstance(r, Measurement)]


# --------------------------------------------------------------- a GPU's name is not a figure (ut4 #1)


@pytest.mark.parametrize("text", [
    "# TTFT on L40S: is 875 ms normal?",
    "TTFT on an L40S card is what I want to know about.",
    "Our ITL on A40s is the question here, see below.",
    "The TTFT we see on H20s and T4s differs, but I have no figure yet.",
])
def test_a_gpu_name_gives_no_time(text):
    assert not [m for m in measurements(text) if m[0] in ("ttft_ms", "itl_ms", "tpot_ms")]


@pytest.mark.parametrize("text, value", [
    ("TTFT on L40S: Mean TTFT 875.9 ms.", 875.9),
    ("On the L40S the TTFT is 40 s with a long prompt.", 40000.0),   # a real 40 s still reads
    ("TTFT 40s on one L40S.", 40000.0),
])
def test_a_time_beside_a_gpu_name_is_still_read(text, value):
    assert ("ttft_ms", value) in measurements(text)


# ------------------------------------------ impossible or unreadable input is bad input (ut4 #11, #12)

TOML = ('[hardware]\ngpu = "H100 SXM"\n[workload]\nmodel = "llama-3-8b"\n'
        '[[measured]]\nmetric = "{metric}"\nvalue = {value}\ntp = 1\n')


def bad_input(result, needle: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stdout[-300:], result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("metric, value", [
    ("decode_tok_s", "1e308"),       # the tester's file
    ("decode_tok_s", "-40.0"),       # a negative rate
    ("itl_ms", "0"),                 # would divide by zero
    ("ttft_ms", "1e12"),             # thirty years to the first token
])
@pytest.mark.parametrize("in_folder", [False, True])
def test_an_impossible_stated_figure_is_bad_input(tmp_path, metric, value, in_folder):
    path = tmp_path / "ticket.toml"
    path.write_text(TOML.format(metric=metric, value=value))
    bad_input(diagnose("ticket", tmp_path if in_folder else path, "--json"), "ticket.toml")


@pytest.mark.parametrize("metric, value", [("decode_tok_s", "40.0"), ("itl_ms", "25"), ("ttft_ms", "900")])
def test_a_real_stated_figure_is_judged(tmp_path, metric, value):
    (tmp_path / "ticket.toml").write_text(TOML.format(metric=metric, value=value))
    result = diagnose("ticket", tmp_path, "--json")
    assert result.exit_code in (0, 1), result.stderr
    assert any(m["metric"] == metric for m in json.loads(result.stdout)["facts"]["measurement"])


@pytest.mark.parametrize("name", ["bad2.md", "notes.txt", "junk.bin"])
def test_a_binary_file_named_on_the_command_line_is_bad_input(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(random.Random(1).randbytes(3072))
    bad_input(diagnose("ticket", path), name)


def test_a_binary_file_inside_a_folder_is_listed_not_fatal(tmp_path):
    (tmp_path / "bad2.md").write_bytes(random.Random(1).randbytes(3072))
    (tmp_path / "issue.md").write_text("Llama-3-8B on one H100 SXM with vLLM gives 40 tok/s at batch 1.\n")
    assert diagnose("ticket", tmp_path, "--json").exit_code in (0, 1)


# ------------------------------------------------ a slowness ruled out or said of one GPU (ut4 #6)

def symptom(text: str):
    from diagnose.evidence import Facts
    from rules import claims

    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return claims.symptom_quote(facts)[2]


HEAD = ("# 2x RTX 3090 TP=2 is 30% faster than 1 GPU, is this normal?\n\n"
        "vLLM 0.6.3, Llama-3.1-8B-Instruct bf16, two RTX 3090 on PCIe 4.0 x16 (no NVLink), batch 1.\n")


@pytest.mark.parametrize("line", [
    "TP=1: 47 tok/s. TP=2: 61 tok/s. That is not slow, I think it is fine.",        # the tester's
    "TP=1: 47 tok/s. TP=2: 61 tok/s. It isn't slow at all.",
    "TP=1: 47 tok/s. TP=2: 61 tok/s. Never slow for us.",
    "TP=1: 47 tok/s. 1 GPU is 23% slower than TP=2.",                                 # the tester's
    "TP=1: 47 tok/s. A single GPU is 23% slower than the two.",
    "TP=2: 61 tok/s. One card alone runs slower than TP=2.",
])
def test_a_slowness_ruled_out_or_of_one_gpu_is_no_scaling_complaint(line):
    assert symptom(HEAD + line + "\nIs this normal scaling for PCIe?\n") == "normal?"


@pytest.mark.parametrize("line", [
    "TP=1: 47 tok/s. TP=2: 46 tok/s. That is slow, TP=2 should be faster.",
    "TP=2 is slower than 1 GPU.",
    "Two GPUs are slower than TP=1 here.",
])
def test_a_slowness_of_more_gpus_stays_a_scaling_complaint(line):
    assert symptom(HEAD + line + "\nIs this normal scaling for PCIe?\n") == "scaling"


# ------------------------------------------------- a figure someone else claimed is not measured (ut4 #7)

@pytest.mark.parametrize("text", [
    "Someone on Discord said a RTX 3060 12GB should give about 24.61 tokens/s eval rate on mistral 7B q4_0 "
    "with ollama. Is that right? I have not tried yet.",                                  # the tester's
    "A friend told me his RTX 3060 does 24.61 tokens/s with mistral 7B in ollama. Is that right?",
    "People on reddit claim 24.61 tok/s for mistral 7B on an RTX 3060.",
    "I heard an RTX 3060 gets 24.61 tok/s on mistral 7B with ollama.",
    "An RTX 3060 should give about 24.61 tokens/s on mistral 7B. Is that right?",
])
def test_a_figure_someone_else_claimed_is_not_measured(text):
    assert not [m for m in measurements(text) if m[0].endswith("tok_s")]


@pytest.mark.parametrize("text", [
    "Someone on Discord said 40 tok/s, but I get 24.61 tokens/s on my RTX 3060 with mistral 7B.",
    "My RTX 3060 gives 24.61 tokens/s on mistral 7B with ollama. Is that right?",
])
def test_a_figure_the_reporter_measured_is_read_beside_hearsay(text):
    assert ("decode_tok_s", 24.61) in measurements(text)


# ------------------------------------- a total over many requests, said in Chinese (ut4 #9, t14's half)

def rates(text: str) -> list[tuple[str, float, int | None]]:
    return [(r.metric, r.value, r.concurrency) for r in issue_md.parse(text, "issue.md")
            if isinstance(r, Measurement) and r.metric.endswith("tok_s")]


@pytest.mark.parametrize("text", [
    "单请求每秒 9 token，100 并发下总共每秒 700 token。",                  # the tester's
    "单请求每秒 9 token，并发 100 时总计每秒 700 token。",
    "单请求每秒 9 token，100 个并发请求合计每秒 700 个 token。",
    "单请求每秒 9 token，100 并发时一共每秒 700 token。",
    "A single request gets 9 tokens/s, and 100 concurrent requests give 700 tokens/s in total.",
])
def test_a_chinese_total_at_a_concurrency_is_the_batch_output(text):
    assert ("decode_tok_s", 9.0, None) in rates(text)
    assert ("output_tok_s", 700.0, 100) in rates(text)


def test_a_chinese_rate_of_one_request_stays_a_stream_rate():
    assert rates("单请求每秒 9 token，正常吗？") == [("decode_tok_s", 9.0, None)]


# ------------------------------------ a rounded speed-up carries its rounding to the band (ut4 #5)

T15 = ("# Tensor Parallelism vs Data Parallelism\n\nvLLM with llama-7B on one A100 80GB. With tensor parallel on 2 "
       "GPUs there is no significant increase in token throughput. {said} Is the KV cache full, or is this normal?\n")


def speedup_findings(text: str):
    from diagnose.evidence import Facts
    from rules.engine import evaluate

    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return [f for f in evaluate(facts) if f.rule == "ticket.speedup_vs_expected"]


@pytest.mark.parametrize("said", [
    "With 2 GPUs there should be an acceleration of x1.5, but throughput stays basically the same (~1.0x).",  # tester's
    "2 GPUs give a 1.0x speed-up over 1 GPU.",
    "TP=2 is only 1.0x faster than 1 GPU.",
])
def test_a_speedup_written_to_one_decimal_is_judged_with_its_rounding(said):
    (f,) = speedup_findings(T15.format(said=said))
    assert f.category == "expected_physics" and f.severity == "info", f.title


def test_a_speedup_written_to_two_decimals_below_the_band_still_warns():
    (f,) = speedup_findings(T15.format(said="2 GPUs give a 0.80x speed-up over 1 GPU."))
    assert f.category == "other" and f.severity == "warning", f.title


# ------------------------------------------ a per-token latency at the ticket's stated load (ut4 #3)

def latencies(text: str) -> list[tuple[str, float, int | None]]:
    return [(r.metric, r.value, r.batch) for r in issue_md.parse(text, "issue.md")
            if isinstance(r, Measurement) and r.metric in ("itl_ms", "tpot_ms")]


@pytest.mark.parametrize("text", [
    "# vLLM 70B on 8x H100 at 64 concurrent requests\n\nvLLM 0.6, Llama-3-70B-Instruct, 8x H100 SXM TP=8, "
    "benchmark_serving --max-concurrency 64.\nMean ITL 26 ms. Is that normal?\n",                       # the tester's
    "Llama-3-70B on 8x H100 with TP=8, 64 concurrent requests.\nThe mean ITL is 26 ms.\n",
    "We load it with --max-concurrency 64 on 8x H100.\n\nITL: 26 ms mean. Expected?\n",
])
def test_a_latency_takes_the_only_load_the_ticket_states(text):
    assert latencies(text) == [("itl_ms", 26.0, 64)]


def test_a_latency_without_a_stated_load_has_none():
    assert latencies("Llama-3-70B on 8x H100 with TP=8.\nThe mean ITL is 26 ms.\n") == [("itl_ms", 26.0, None)]


def test_a_latency_does_not_take_another_line_s_load_when_two_are_stated():
    text = "Batch 1 gives 40 tok/s.\nAt 64 concurrent requests it is slower.\nThe mean ITL is 26 ms.\n"
    assert latencies(text) == [("itl_ms", 26.0, None)]


# ------------------------------------ a rate and its reciprocal on one line are one measurement (ut4 #2)

@pytest.mark.parametrize("line", [
    "print_timings:        eval time =    4020.70 ms /   218 runs   (   18.44 ms per token,    54.22 tokens per "
    "second)",
    "llama_print_timings: eval time = 4020.70 ms / 218 runs (18.44 ms per token, 54.22 tokens per second)",
    "Decode: 18.44 ms per token (54.22 tok/s).",
])
def test_a_latency_that_is_the_rate_s_reciprocal_is_not_judged_twice(line):
    got = measurements(line)
    assert ("decode_tok_s", 54.22) in got and not [m for m in got if m[0] in ("itl_ms", "tpot_ms")]


@pytest.mark.parametrize("line", [
    "Decode: 18.44 ms per token, and prefill runs at 540 tok/s.",   # another figure, not the reciprocal
    "ITL 26 ms at 64 concurrent requests, total 2100 tok/s.",
])
def test_a_latency_beside_another_rate_is_kept(line):
    assert [m for m in measurements(line) if m[0] in ("itl_ms", "tpot_ms")]


# ------------------------------------------ the model a launch line serves, spelled in lower case (ut4 #8)

def models(text: str) -> list[str]:
    from diagnose.evidence import Workload

    return [r.model for r in issue_md.parse(text, "issue.md") if isinstance(r, Workload) and r.model]


@pytest.mark.parametrize("text, model", [
    ("两台机器共16卡 H100 80GB，vllm serve deepseek-v3 --tensor-parallel-size 8 --pipeline-parallel-size 2。\n"
     "单个请求推理速度非常慢，比没有量化的 qwen72b 慢接近5倍。\n", "deepseek-v3"),                      # the tester's
    ("We run deepseek-v3 on 16x H100 with TP=8 and PP=2; it is 5x slower than qwen72b was.\n", "deepseek-v3"),
    ("We serve deepseek-r1 with vLLM on 8x H200, 3 tok/s.\n", "deepseek-r1"),
    ("DeepSeek-V3 on 16x H100, slower than Qwen2-72B.\n", "DeepSeek-V3"),
])
def test_the_served_model_is_read_whatever_its_case(text, model):
    assert models(text)[:1] == [model]


def test_a_distilled_deepseek_keeps_its_size():
    assert models("ollama run deepseek-r1:7b on one RTX 3060, 20 tok/s.\n")[:1] == ["deepseek-r1:7b"]


@pytest.mark.parametrize("text, model", [
    ("[BENCHMARK] model_name llama_13b world_size 2 num_layers 40 hidden_size 5120 tokens_per_sec 43.09\n",
     "llama_13b"),                                                                                          # tester's
    ("mpirun -n 2 python benchmark.py -m llama_7b --mode plugin --batch_size 1\n", "llama_7b"),
    ("We benchmark llama_70b on 8x A100.\n", "llama_70b"),
])
def test_a_model_named_with_an_underscore_is_read(text, model):
    assert models(text)[:1] == [model]


def test_an_underscore_name_without_a_size_is_no_model():
    assert models("[BENCHMARK] model_name llama_large world_size 2\n") == []


# -------------------------------- a serving benchmark's means are judged at its concurrency (ut4 #10)

BENCH = """# vLLM benchmark on 2x A100 80GB SXM TP=2, is this normal?

vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2
{command}

============ Serving Benchmark Result ============
Successful requests:                     500
Output token throughput (tok/s):         2091.50
---------------Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          {tpot}
Median TPOT (ms):                        {tpot}
---------------Inter-token Latency----------------
Mean ITL (ms):                           {tpot}
Median ITL (ms):                         {tpot}
==================================================
"""
COMMAND = ("python benchmarks/benchmark_serving.py --backend vllm --dataset-name random --random-input-len 1024 "
           "--random-output-len 256 --max-concurrency 32 --num-prompts 500")


def latency_findings(tmp_path, command: str, tpot: str):
    (tmp_path / "issue.md").write_text(BENCH.format(command=command, tpot=tpot))
    report = json.loads(diagnose("ticket", tmp_path, "--json", "--fail-on", "never").stdout)
    return [f for f in report["findings"] if f["rule"] == "ticket.latency_vs_expected"]


@pytest.mark.parametrize("tpot, category", [("14.60", "expected_physics"), ("60.00", "other")])
def test_a_benchmark_mean_latency_is_judged_at_its_concurrency(tmp_path, tpot, category):
    (f,) = latency_findings(tmp_path, COMMAND, tpot)
    assert f["category"] == category and "batch 32" in f["evidence"][0]["detail"], f


def test_a_benchmark_mean_at_an_unstated_load_is_not_judged_at_batch_1(tmp_path):
    assert latency_findings(tmp_path, "", "14.60") == []


# --------------------------------------- a figure's own GPU count, said with the GPU's name (ut4 #9, t09)

def rate_gpus(text: str) -> list[tuple[float, int | None]]:
    return [(r.value, r.gpus) for r in issue_md.parse(text, "issue.md")
            if isinstance(r, Measurement) and r.metric.endswith("tok_s")]


@pytest.mark.parametrize("text", [
    "With the same model on 2 A100 (80GB) I get ~700 tok/sec and much lower latency.",         # the tester's
    "On 2x A100 80GB we get about 700 tok/s.",
    "With 2 H100s the same model gives 700 tokens/s.",
])
def test_a_count_before_a_gpu_name_is_the_figure_s_gpus(text):
    assert [(v, g) for v, g in rate_gpus(text) if v == 700.0] == [(700.0, 2)]


@pytest.mark.parametrize("text", [
    "On an A100 80GB I get 700 tok/s.",
    "The A100 (80GB) gives 700 tok/s with 2 requests.",
])
def test_a_gpu_name_without_a_count_names_no_gpus(text):
    assert rate_gpus(text) == [(700.0, None)]
