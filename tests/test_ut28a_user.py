"""Defects found by answering real tickets whose model, GPU and figure are stated only in prose, as a support engineer
(session s28, pass ut28a, issue 11; tests/data/ut28a, SOURCES.md gives each thread's address, the answer it
established and the verdict before and after), fixed in general and tested on the pastes that showed them, on real
sentences of other threads, and on real near-misses:

- a time per token in minutes ("8 minutes per token") was no figure, so "2 minutes per token on a 3090 with
  llama-2-7b, is that normal?" came back healthy (diagnose.artifacts.issue_md.MS_PER_TOKEN, figures.TIME_PER_TOKEN,
  text.to_ms);
- "flash attention gives no / only 5 % speedup" was answered healthy with no reason, or asked for topology and NCCL
  logs: at a short context and a small batch a decode step reads the weights, which the kernel does not touch
  (rules.attention_gain).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from diagnose.artifacts import figures, issue_md
from diagnose.artifacts.text import to_ms
from rules import attention_gain

DATA = Path(__file__).parent / "data" / "ut28a"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


# --------------------------------------------------------------------------- flash attention's gain in decode

@pytest.mark.parametrize("name", ["qwen49.md", "tgi517.md", "candle2069.md"])
def test_flash_attention_no_decode_gain_is_physics(name):
    """QwenLM/Qwen#49 (logicwong, maintainer: under 5 % at a short context, 20 %+ at ~5000 tokens),
    huggingface/text-generation-inference#517 (Narsil, maintainer: flash helps mostly at batch > 1) and
    huggingface/candle#2069 (LaurentMazare, maintainer: 68.5 against 74.4 tok/s once measured right, 'not a massive
    speedup')."""
    r = verdict(name)
    assert r["verdict"]["category"] == "expected_physics"
    lead = finding(r, "ticket.flash_attention_gain")
    assert lead is not None and lead["category"] == "expected_physics"
    assert "reading the weights" in lead["title"]
    assert "NCCL_DEBUG" not in r["verdict"]["summary"] and "topo -m" not in r["verdict"]["summary"]


@pytest.mark.parametrize("sentence", [
    # QwenLM/Qwen#49, jackaihfia2334 (another reporter in the thread, before the maintainer's answer)
    "我也是，还使用了最新的flash-attention-2，是因为flah-attn确实对推理加速不明显吗？",
    # QwenLM/Qwen3#136, Iheadx
    "那是不是意味着Qwen1.5不能使用flash-attn了？Qwen1.5不是必须要使用transfomers4.37.0以上吗？我昨天也尝试flash-attn，"
    "但是感觉没有区别，反倒是chatglm3-6b-32k提升明显",
    # turboderp-org/exllamav2#199 (turboderp: "for token-by-token inference at batch size 1, Flash Attention has never
    # offered a huge benefit")
    "I can't notice any difference between normal and flash attention  memory usage is exactly the same performance "
    "also looks the same.",
    "flash attention does nothing",
    # Dao-AILab/flash-attention#910's and huggingface/optimum#1341's titles
    "Flash attention not improves the inference speed for decoder models",
    "Inference speed does not improve after using flash attention sdpa operator",
])
def test_other_reporters_sentences_are_read(sentence):
    assert attention_gain.flash_no_gain(said(sentence)) is not None


@pytest.mark.parametrize("sentence", [
    # QwenLM/Qwen#474: flash attention made it slower, a loss, not a missing gain
    "开启flash_attn后推理速度不但没加快反而更慢了",
    # QwenLM/Qwen#49, 123yanchangwei: a 30 % slowdown ("负优化")
    "请问您是在什么环境下跑的，我在qwen2.5-1.5B,32B用flash attention都是30%左右的负优化",
    # QwenLM/Qwen#49, jeffchy: training, where the kernel's saving is the main cost
    "flash主要是训练降显存，提速度。推理一般都没太大用处。",
    # huggingface/transformers#26990's title and QwenLM/Qwen#872 ("推理时间反而变大了"): slower, not no faster
    "[Efficiency] The llama model with flash attention is slower than that without flash attention",
    "为什么使用了flash attentionv2后，推理时间反而变大了？",
    # yangjianxin1/Firefly#177: a failure to run, not a speed
    "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
])
def test_near_misses_are_not_read(sentence):
    assert attention_gain.flash_no_gain(said(sentence)) is None


# --------------------------------------------------------------------------- minutes per token

def test_minutes_per_token_is_a_latency():
    """randaller/llama-chat#16: the reporter's own question, on a 24 GB card with the model in 150 GB of swap."""
    (m,) = issue_md._latencies([(0, "Does 8 minutes per token seem correct? 3090 ti 24GB, 64 GB RAM + 150GB swap "
                                    "NVMe")], "t")
    assert (m.metric, m.value) == ("itl_ms", 480_000)
    assert to_ms(1.5, "min") == 90_000 and to_ms(2, "minutes") == 120_000
    assert to_ms(45, "ms") == 45 and to_ms(2, "s") == 2000  # the other units unchanged


def test_minutes_per_token_in_words():
    (t,) = figures.token_times("each token takes 2 minutes with the 65B model swapping")
    assert (t[1], t[2]) == (2, "minutes")


@pytest.mark.parametrize("line", [
    # databrickslabs/dolly#107: a whole reply's time, not a token's
    "This is my graphics card information, but it usually takes me 5-6 minutes to respond",
    # ggml-org/llama.cpp#1665's title: a rate, not a time per token
    "Token generation speed less than 1/minute on A6000 machine (48GB VRAM, 32GB RAM)",
])
def test_minutes_near_misses(line):
    assert issue_md._latencies([(0, line)], "t") == []


def test_llama_chat_16_reads_the_time_and_asks_for_the_model():
    """The paste names no model (the maintainer's answer calls it a 30B): the 480,000 ms per token is read, and what
    is asked for is the model, not `nvidia-smi -q`."""
    r = verdict("llamachat16.md")
    gap = finding(r, "ticket.figure_unjudged")
    assert gap is not None
    assert any(e["measured"] == 480_000 for e in gap["evidence"])
    assert "config.json" in r["verdict"]["summary"]


# --------------------------------------------------------------------------- what was right blind, kept

def test_partial_offload_in_prose_stays_host_bound():
    """getumbrel/llama-gpt#105: 10/51 layers on the GPU; the reporter's n_gpu_layers=51 made it 'super fast'."""
    r = verdict("llamagpt105.md")
    assert r["verdict"]["category"] == "host_bound"
    assert finding(r, "ticket.partial_offload") is not None


def test_a_small_batch_rate_against_a_high_load_claim():
    """CerebriumAI/examples#50: 200 tok/s on one A100 against a blog's ~4500 output tok/s (a high-concurrency
    figure); the maintainer: '200 definitely doesn't sound right'. Not called normal for the hardware."""
    r = verdict("cerebrium50.md")
    assert r["verdict"]["category"] == "latency_bound_small_batch"
    assert finding(r, "ticket.batched_rate") is not None


# --------------------------------------------------------------------------- left, as they stand

def test_llamacpp_2641_without_ngl_is_host_bound():
    # (healthy32) the old `main` binary (build 992) run without -ngl: its default keeps every layer on the CPU
    assert verdict("llamacpp2641.md")["verdict"]["category"] == "host_bound"


def test_llamacpp_2641_is_at_least_far_below_the_band():
    r = verdict("llamacpp2641.md")
    assert r["verdict"]["category"] not in ("healthy", "expected_physics")
    assert finding(r, "ticket.measured_vs_expected") is not None
