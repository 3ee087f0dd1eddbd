"""Defects found by answering real tickets about quantised and MoE models on one or more GPUs as a support engineer
(session s27, pass ut27a, issue 11; tests/data/ut27a, SOURCES.md gives each thread's address, the answer it
established and the verdict before and after), fixed in general and tested on the paste that showed them, on real
sentences of other threads, and on real near-misses:

- an engine's quantisation flag never set the weights' width (vLLM/SGLang --quantization awq, TGI --quantize), and
  TGI's launcher flags (--model-id, --num-shard) were not read (diagnose.artifacts.launch);
- TGI's per-token time by its own name, "time_per_token", was no latency (diagnose.artifacts.issue_md.LATENCY);
- a run through bitsandbytes, which TGI's launcher documents as "much slower to run than the native f16", was judged
  only as a figure past its band (rules.quant_tradeoff.bitsandbytes_path);
- a quantised checkpoint set against its original by name or in Chinese ("X-GPTQ-Int8 比 X 推理慢", "比原版慢") was
  not read, and an 8-bit checkpoint's trade was worded as 4-bit (rules.quant_tradeoff);
- a time named before the output it gave ("~44 seconds inference time ... with output of 104 tokens") was no rate,
  so an "is that expected?" about 2.4 tok/s came back healthy (diagnose.artifacts.figures.TIME_THEN_OUTPUT);
- a release the catalog lists by its instruct checkpoint only did not resolve from its base name ('Qwen2-VL-7B',
  rules.subject._model_names);
- a figure judged on one GPU asked for `nvidia-smi topo -m` and NCCL logs (rules.common.one_gpu_job).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from diagnose.artifacts import figures, issue_md, launch
from diagnose.bundle import read_bundle
from rules import catalog, quant_tradeoff, subject

DATA = Path(__file__).parent / "data" / "ut27a"
TICKETS = Path(__file__).parent / "data" / "tickets"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


# --------------------------------------------------------------------------- the pastes, as answered

@pytest.mark.parametrize("name", ["tgi452.md", "tgi1501.md"])
def test_a_run_through_bitsandbytes_is_slow_by_its_quantisation_path(name):
    """huggingface/text-generation-inference#452 and #1501: Narsil (maintainer) answered both that bitsandbytes is
    a slow path ("multiple times slower"; "BNB-nf4 adds up some overhead by itself") and pointed to GPTQ/AWQ."""
    r = verdict(name)
    assert r["verdict"]["category"] == "other"
    lead = finding(r, "ticket.bitsandbytes_path")
    assert lead and lead["severity"] == "warning"
    assert "GPTQ or AWQ" in lead["fix"]
    assert any("bitsandbytes" in str(e["detail"]) or "nf4" in str(e["detail"]) for e in lead["evidence"])


def test_tgi_452_reads_the_launch_line_and_the_latency_it_gives():
    """The docker line names the model, 4 shards and bitsandbytes; 'time_per_token ... 190 ms' is set against the
    expected figure for 8-bit weights at TP=4 on T4, and the launch line the paste holds is not asked for again."""
    r = verdict("tgi452.md")
    gap = finding(r, "ticket.latency_vs_expected")
    assert gap is not None
    rows = {e["detail"]: e for e in gap["evidence"]}
    measured = next(e for d, e in rows.items() if d.startswith("ITL at TP=4"))
    assert measured["measured"] == 190
    assert "launch line" not in r["verdict"]["summary"]


def test_qwen_731_reads_the_chinese_comparison_with_the_original():
    """QwenLM/Qwen2#731 (now Qwen3#731): jklj077 (maintainer) answered that GPTQ's dequantisation makes an 8-bit,
    1.5B model no faster or slower than the original: the format's trade, not a fault."""
    r = verdict("qwen731.md")
    assert r["verdict"]["category"] == "expected_physics"
    lead = finding(r, "ticket.quantised_vs_full")
    assert lead["title"].startswith("An 8-bit weight-only model")  # GPTQ-Int8, not a 4-bit checkpoint
    assert "8-bit weights" in lead["fix"]


def test_qwenvl_8_two_tokens_a_second_is_no_healthy_answer():
    """QwenLM/Qwen2-VL#8: kq-chen (maintainer) answered that 2 tok/s is far below the ~30 tok/s of their benchmark
    and the environment is misconfigured (autoawq-kernel). The rate is read and judged far below the band; on one
    GPU nothing asks for links or NCCL logs."""
    r = verdict("qwenvl8.md")
    assert r["verdict"]["category"] not in ("healthy", "expected_physics")
    gap = finding(r, "ticket.measured_vs_expected")
    rate = next(e for e in gap["evidence"] if e["detail"].startswith("decode rate"))
    assert rate["measured"] == pytest.approx(104 / 43.64, rel=0.02)  # 104 tokens over ~44 s, as the paste says
    assert any(e["detail"] == "model" and e["measured"] == "qwen2.5-7b" for e in gap["evidence"])
    everything = r["verdict"]["summary"] + gap["fix"]
    assert "topo -m" not in everything and "NCCL_DEBUG" not in everything


# --------------------------------------------------------------------------- launch flags

def test_vllm_quantization_flag_sets_the_weights():
    line = ("python3 -m vllm.entrypoints.openai.api_server   --model /output/yi_awq_4_dataset_16/   --engine-use-ray   "
            "--host 0.0.0.0   --port 8080   --worker-use-ray   --max-num-seqs 16   --tensor-parallel-size 4  "
            "--max-model-len 32768 --quantization awq")  # vllm-project/vllm#2980
    (w,) = [x for x in launch.parse(line, "t") if hasattr(x, "tp")]
    assert (w.tp, w.dtype) == (4, "int4")


def test_tgi_launcher_flags():
    line = ('docker run --gpus all --shm-size 4g -p 8080:80 --name "falcon40b" --log-driver=local --log-opt '
            'max-size=10m --log-opt max-file=3 -v $volume:/data ghcr.io/huggingface/text-generation-inference:0.8 '
            '--model-id tiiuae/falcon-40b-instruct --num-shard 4 --quantize "bitsandbytes"')  # TGI#452
    (w,) = [x for x in launch.parse(line, "t") if hasattr(x, "tp")]
    assert (w.model, w.tp, w.dtype) == ("tiiuae/falcon-40b-instruct", 4, "int8")  # TGI's bitsandbytes: 8-bit


def test_vllm_in_flight_bitsandbytes_is_4_bit():
    """vLLM's in-flight bitsandbytes quantisation loads 4-bit weights (its bitsandbytes page's own example line,
    https://docs.vllm.ai/en/latest/features/quantization/bnb.html)."""
    line = "vllm serve huggyllama/llama-7b --quantization bitsandbytes"
    (w,) = [x for x in launch.parse(line, "t") if hasattr(x, "tp")]
    assert w.dtype == "int4"


def test_an_engine_echo_without_quantisation_sets_no_weights():
    """Near-miss: vLLM's echo 'quantization=None' names no quantisation."""
    line = ("INFO 06-27 21:53:52 llm_engine.py:164] Initializing an LLM engine (v0.5.0.post1) with config: "
            "model='deepseek-ai/DeepSeek-V2-Lite', tensor_parallel_size=1, disable_custom_all_reduce=False, "
            "quantization=None, enforce_eager=False, kv_cache_dtype=auto")  # vllm-project/vllm#4650
    ws = [x for x in launch.parse(line, "t") if hasattr(x, "dtype")]
    assert ws and all(w.dtype is None for w in ws)


# --------------------------------------------------------------------------- figures in words

def test_tgi_time_per_token_is_a_latency():
    m = issue_md.LATENCY.search("I am getting `time_per_token` during inference of around 190 ms.")  # TGI#452
    assert m and m.group(2) == "190"


def test_time_named_before_its_output_is_a_rate():
    line = ("I get ~44 seconds inference time using demo code on Qwen2-VL-7B-Instruct-AWQ with 774x772 image input, "
            "using flash_attn2, bfloat16, with output of 104 tokens:")  # QwenLM/Qwen2-VL#8
    (f,) = figures.counted_rates(line)
    assert f.value == pytest.approx(104 / 44, rel=0.01)


def test_lengths_without_a_time_are_no_rate():
    """Near-miss: prompt and decode lengths listed with no time taken (mit-han-lab/llm-awq#79)."""
    line = ("INT4 quantization only delievers **20%~35%** faster inference performance than FP16 for the LLaMA-13b on "
            "A100 80GB PCIe with batch size 1, 2, 4, 8, 16 for prefill_length, decode length 32, 64, 128, 256, 512.")
    assert figures.counted_rates(line) == []


# --------------------------------------------------------------------------- bitsandbytes stated, or not

def test_bitsandbytes_said_in_prose():
    text = ("On a single a6000 using bitsandbytes nf4 quantization I'm seeing 17ms per token with Mistral-7b and 80ms "
            "per token with Mixtral.")  # huggingface/text-generation-inference#1501
    assert quant_tradeoff.bitsandbytes_stated(said(text))


def test_bitsandbytes_put_aside_is_not_stated():
    """Near-miss: the reporter's next step replaces bitsandbytes (TGI#452, vempaliakhil96's reply)."""
    text = ('@Narsil once the GPTQ change gets merged I am assuming I only need to replace `--quantize "gptq"` '
            'instead of `--quantize "bitsandbytes"`.')
    assert quant_tradeoff.bitsandbytes_stated(said(text)) is None


def test_a_utilisation_question_beside_bitsandbytes_is_not_blamed_on_it():
    """Near-miss (bitsandbytes-foundation/bitsandbytes#441, a development ticket): GPU at 10 % with one core busy,
    answered as single-stream decode leaving the GPU idle; no speed shortfall is blamed on bitsandbytes."""
    facts = read_bundle([str(p) for p in (TICKETS / "u111-bnb-chatglm6b-4090-gpu-10pct-one-core").iterdir()
                         if p.name != "expected.toml"])
    assert list(quant_tradeoff.bitsandbytes_path(facts)) == []


# --------------------------------------------------------------------------- the quantised side against its original

def test_a_quantised_checkpoint_against_its_named_original():
    text = "同样的环境下，Qwen2-1.5B-Instruct-GPTQ-Int8 比 Qwen2-1.5B-Instruct 推理慢是什么原因呢？"  # QwenLM/Qwen2#731
    assert quant_tradeoff.quantised_loses(said(text))


def test_two_quantisations_against_each_other_are_no_trade_with_16_bit():
    """Near-miss: GPTQ against bitsandbytes, both 4-bit (QwenLM/Qwen#300): not the quantised-vs-original trade."""
    text = "GPTQint4版本运行速度比BitsAndBytes，int4  慢了有10多倍，1080ti环境运行"
    assert quant_tradeoff.quantised_loses(said(text)) == []


# --------------------------------------------------------------------------- names as people write them

@pytest.mark.parametrize("name,key", [("Qwen2-VL-7B-Instruct-AWQ", "qwen2.5-7b"), ("Qwen2.5-VL-72B", "qwen2.5-72b")])
def test_a_base_name_of_an_instruct_only_release_resolves(name, key):
    hit = next((m for n in subject._model_names(name) if (m := catalog.find_model(n))), None)
    assert hit is not None and hit.key == key


def test_qwen2_vl_2b_does_not_resolve_to_another_size():
    """Near-miss: Qwen2-VL-2B's decoder is Qwen2-1.5B's, a size the catalog's VL aliases do not claim."""
    assert not any(catalog.find_model(n) for n in subject._model_names("Qwen2-VL-2B-Instruct"))


# --------------------------------------------------------------------------- expert parallelism against pure TP

def test_sglang_23896_dp_attention_and_deepep_lose_to_tp4_at_moderate_load():
    """sgl-project/sglang#23896: Fridge003 (maintainer): "128 concurrency looks still at the sweet spot of low latency
    recipe"; the DP-attention + DeepEP recipe needs more running requests. Its `sglang serve` command is read."""
    r = verdict("ds4flash23896.md")
    assert r["verdict"]["category"] == "expected_physics"
    lead = finding(r, "ticket.symptom_prior")
    assert lead["title"].startswith("Expert parallelism and DP attention pay off at high load")
    assert any("--enable-dp-attention" in e["detail"] and "deepep" in e["detail"] for e in lead["evidence"])


def test_expert_parallel_named_in_words():
    text = ("With `--enable-expert-parallel True` I'm not getting any improvement from expert parallelism, due to "
            "context phase taking too long (high TTFT).")  # vllm-project/vllm#28887
    from rules.ticket_rules import expert_layout

    assert expert_layout(said(text)) is not None


def test_ep_one_is_no_expert_parallel_layout():
    """Near-miss: "TP=8, EP=1" runs the experts tensor-parallel (SemiAnalysisAI/InferenceX#870's config line)."""
    text = "**Config:** DeepSeek-R1-0528 | SGLang v0.5.7 | FP8 | TP=8, EP=1 | H200 | ISL=1024, OSL=1024"
    from rules.ticket_rules import expert_layout

    assert expert_layout(said(text)) is None


# --------------------------------------------------------------------------- one GPU, or several said in words

def test_one_gpu_said_by_nothing_else():
    text = ("I get ~44 seconds inference time using demo code on Qwen2-VL-7B-Instruct-AWQ with 774x772 image input, "
            "using flash_attn2, bfloat16, with output of 104 tokens: Is that expected performance?")  # Qwen2-VL#8
    from rules.common import one_gpu_job

    assert one_gpu_job(said(text))


def test_boards_in_the_plural_are_several_gpus():
    """Near-miss: no count, but the boards named in the plural (Bas Nijholt's post on serving Qwen on two 3090s, the
    text beside https://github.com/basnijholt/dotfiles/blob/e63a3f341ff36b7b57bf31361c2844e1d8b78e95/configs/nixos/
    hosts/pc/ai.nix)."""
    text = ("When my 3090s generate a token, they read all of the model's weights from memory to produce one token for "
            "one conversation.")
    from rules.common import one_gpu_job

    assert not one_gpu_job(said(text))


def test_sglang_2203_tp_faster_than_ep_for_one_request():
    """sgl-project/sglang#2203 (a comment on the PR that added --enable-ep-moe): one request on 2 x L40, TP faster
    than EP. xiaobochen123 (its author): the EP Triton kernels are not tuned, and "Expert Parallel might face load
    balancing issues when concurrency is low" (expected at that load)."""
    r = verdict("sglang2203.md")
    assert r["verdict"]["category"] == "expected_physics"
    lead = finding(r, "ticket.scaling_question")
    assert lead["title"].startswith("Expert parallelism and DP attention pay off at high load")
    assert not finding(r, "ticket.nothing_broken")  # no "the behaviour asked about is normal" without the reason


def test_tp_against_ep_in_words():
    from rules import claims

    text = "I found that the TP speed is faster than that of the EP."  # sgl-project/sglang#2203
    (c,) = claims.tp_ep_compared(said(text))
    assert c.data["ep_wins"] is False


def test_tp_against_pp_is_no_expert_parallel_comparison():
    """Near-miss: TP against a pipeline split (NVIDIA/Megatron-LM#258)."""
    from rules import claims

    text = ("I find that when the micro-batch-size and gradient accumulation steps are big enough, pure pipeline "
            "parallism runs faster than pure tensor parallelism, with over 30% speed up.")
    assert claims.tp_ep_compared(said(text)) == []
