"""The engines' notices about their own speed (warnings33; rules/catalog/engine_notices.toml, rules/engine_notices.py).

Each notice as the engine prints it (its format string with values filled), inside a longer pasted start-up log,
quoted in the reporter's prose, and near-misses that must not fire: the option's name in a command line or in the
docs' prose, the notice saying the fast path is on, the notice denied. Then the real first posts of
tests/data/warnings33 (SOURCES.md), each run before its thread's answer was read."""

import re
from pathlib import Path

import pytest
from conftest import judged_issue

from rules.catalog import engine_notices

DATA = Path(__file__).parent / "data" / "warnings33"
CAUSE, CONTEXT, HARMLESS = "ticket.engine_notice", "ticket.engine_notice_context", "ticket.engine_notice_harmless"


def _notice(text: str, rule: str = CAUSE) -> str | None:
    """The catalog row `rule` quotes for the text, or None."""
    _, rules = judged_issue(text)
    f = rules.get(rule)
    m = re.search(r"notice \((\w+), ", f.evidence[0].detail) if f else None
    return m.group(1) if m else None


def _log(title: str, lines: str) -> str:
    """A ticket that pastes a start-up log around the notice, as reporters do."""
    return f"# {title}\n\nThe server is slower than I expected. Start-up log:\n\n```\n{lines}\n```\n"


VLLM_HEAD = ("INFO 05-13 14:43:01 [api_server.py:1043] vLLM API server version 0.8.5\n"
             "INFO 05-13 14:43:05 [config.py:717] This model supports multiple tasks: {'generate'}. "
             "Defaulting to 'generate'.\n")
VLLM_TAIL = ("INFO 05-13 14:43:40 [gpu_model_runner.py:1347] Model loading took 8.4 GiB and 30.1 seconds\n"
             "INFO 05-13 14:44:02 [loggers.py:111] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
             "throughput: 31.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.4%")

# (row, the line as printed, the reporter's sentence quoting it, near-misses that must not name the row)
CAUSES = [
    ("vllm_fp8_weight_only_marlin",
     "WARNING 05-13 14:43:17 [marlin_utils_fp8.py:167] Your GPU does not have native support for FP8 computation but "
     "FP8 quantization is being used. Weight-only FP8 compression will be used leveraging the Marlin kernel. This may "
     "degrade performance for compute-heavy workloads.",
     "On 2x A100 the FP8 checkpoint is slow and vLLM says \"Your GPU does not have native support for FP8 computation "
     "but FP8 quantization is being used. Weight-only FP8 compression will be used leveraging the Marlin kernel\".",
     ["vllm serve RedHatAI/Llama-3.1-8B-Instruct-FP8 --quantization fp8 --tensor-parallel-size 2",
      "INFO 05-13 14:43:17 [fp8.py:71] Using CutlassScaledMMLinearKernel for Fp8LinearMethod"]),
    ("vllm_eager_no_async_output",
     "WARNING 11-08 09:12:44 config.py:503] To see benefits of async output processing, enable CUDA graph. Since, "
     "enforce-eager is enabled, async output processor cannot be used",
     "The log says 'Since, enforce-eager is enabled, async output processor cannot be used' and TP 2 decodes at 20 "
     "tok/s.",
     ["INFO 11-08 09:12:50 model_runner.py:1060] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are "
      "running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode.",
      "--enforce-eager: Always use eager-mode PyTorch. If False, will use eager mode and CUDA graph in hybrid."]),
    ("vllm_v1_skip_graph_capture",
     "(VllmWorker rank=0 pid=4410) WARNING 06-02 10:01:12 [gpu_model_runner.py:1721] Skipping CUDA graph capture. "
     "To turn on CUDA graph capture, ensure `cudagraph_mode` was not manually set to `NONE`",
     "vLLM printed Skipping CUDA graph capture. To turn on CUDA graph capture, ensure cudagraph_mode was not set to "
     "NONE, and the decode is slow.",
     ["(VllmWorker rank=0 pid=4410) INFO 06-02 10:01:40 [gpu_model_runner.py:1790] Graph capturing finished in 12 "
      "secs, took 0.45 GiB"]),
    ("sglang_cuda_graph_disabled",
     "[2025-03-07 21:49:33] WARNING server_args.py:612: Cuda graph is disabled because of using torch native "
     "attention backend",
     "SGLang warns that Cuda graph is disabled because of using torch native attention backend, and TP 2 is slow.",
     ["[2025-03-07 21:49:40 TP0] Capture cuda graph begin. This can take up to several minutes.",
      # a PD prefill server never decodes, so SGLang drops its decode graphs by design (sgl-project/sglang#25795)
      "[2026-05-20 10:00:00] WARNING server_args.py:3702: Cuda graph is disabled for prefill server when piecewise "
      "cuda graph is not enabled.",
      "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 2 --disable-cuda-graph-padding"]),
    ("tgi_no_flash_models",
     "2023-07-05T19:53:48.448329Z  WARN shard-manager: text_generation_launcher: Could not import Flash Attention "
     "enabled models: CUDA is not available",
     "TGI logs 'Could not import Flash Attention enabled models' at start and generation is very slow.",
     ["2023-07-05T19:53:48.448329Z  INFO text_generation_launcher: Using Flash Attention v2 for the model"]),
    ("bnb_linear4bit_float32_compute",
     "/usr/lib/python3/dist-packages/bitsandbytes/nn/modules.py:226: UserWarning: Input type into Linear4bit is "
     "torch.float16, but bnb_4bit_compute_dtype=torch.float32 (default). This will lead to slow inference or "
     "training speed.",
     "bitsandbytes warns: Input type into Linear4bit is torch.float16, but bnb_4bit_compute_dtype=torch.float32 "
     "(default). This will lead to slow inference or training speed.",
     ["bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16)"]),
    # (hostbound37) Ollama on a CPU without AVX (or a guest whose hypervisor hides it): no GPU discovery at all
    ("ollama_no_avx_gpu_disabled",
     "time=2024-09-16T10:21:07.811+02:00 level=WARN source=gpu.go:222 msg=\"CPU does not have minimum vector "
     "extensions, GPU inference disabled\" required=avx detected=\"no vector extensions\"",
     "Ollama prints \"CPU does not have AVX or AVX2, disabling GPU support.\" and every answer takes minutes on my "
     "RTX 3070.",
     ["time=2024-12-28T15:18:14.093-05:00 level=INFO source=common.go:131 msg=\"GPU runner incompatible with host "
      "system, CPU does not have AVX\" runner=cuda_v12_avx",
      "cmake -B build -DGGML_CUDA=ON -DGGML_AVX=off -DGGML_AVX2=off"]),
]


@pytest.mark.parametrize("row,line,said,misses", CAUSES, ids=[c[0] for c in CAUSES])
def test_a_cause_notice_is_read_as_printed_in_a_log_and_in_prose(row, line, said, misses):
    category = next(r.category for r in engine_notices() if r.id == row)
    assert _notice(_log("slow", line)) == row
    assert _notice(_log("slow", VLLM_HEAD + line + "\n" + VLLM_TAIL)) == row  # inside a longer log
    assert _notice(f"# slow\n\n{said}\n") == row
    verdict, rules = judged_issue(_log("slow", VLLM_HEAD + line + "\n" + VLLM_TAIL))
    assert rules[CAUSE].category == category
    for miss in misses:
        assert _notice(_log("slow", VLLM_HEAD + miss + "\n" + VLLM_TAIL)) is None, miss


def test_a_notice_denied_or_asked_about_is_no_cause():
    assert _notice("# slow\n\nThere is no 'Could not import Flash Attention enabled models' warning any more, but "
                   "TGI is still slow.\n") is None
    assert _notice("# slow\n\nCould the log print 'Since, enforce-eager is enabled, async output processor cannot be "
                   "used'?\n") is None


def test_a_cause_notice_does_not_explain_a_hang():
    text = _log("hangs", "WARNING 11-08 09:12:44 config.py:503] To see benefits of async output processing, enable "
                         "CUDA graph. Since, enforce-eager is enabled, async output processor cannot be used\n"
                         "the server hangs forever at the first request and never answers")
    assert CAUSE not in judged_issue(text)[1]


CONTEXT_LINES = [
    ("vllm_custom_allreduce_pcie_only",
     "(VllmWorkerProcess pid=191) WARNING 02-22 22:09:01 custom_all_reduce.py:136] Custom allreduce is disabled "
     "because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify "
     "disable_custom_all_reduce=True explicitly."),
    ("vllm_custom_allreduce_no_p2p",
     "WARNING 05-25 00:00:25 custom_all_reduce.py:74] Custom allreduce is disabled because your platform lacks GPU "
     "P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly."),
    ("vllm_no_flash_attention_volta_turing",
     "INFO 03-19 11:53:56 [cuda.py:234] Cannot use FlashAttention-2 backend for Volta and Turing GPUs."),
    ("vllm_flash_attention_package_missing",
     "INFO 08-01 10:00:00 selector.py:150] Cannot use FlashAttention-2 backend because the vllm.vllm_flash_attn "
     "package is not found. Make sure that vllm_flash_attn was built and installed (on by default)."),
    ("vllm_max_concurrency",
     "INFO 01-23 06:33:37 [kv_cache_utils.py:634] Maximum concurrency for 32,768 tokens per request: 4.49x"),
]


@pytest.mark.parametrize("row,line", CONTEXT_LINES, ids=[c[0] for c in CONTEXT_LINES])
def test_a_context_notice_is_shown_and_never_the_verdict(row, line):
    text = _log("is this normal?", VLLM_HEAD + line + "\n" + VLLM_TAIL)
    verdict, rules = judged_issue(text)
    assert _notice(text, CONTEXT) == row
    assert rules[CONTEXT].severity == "info" and rules[CONTEXT].confidence == 0.0
    assert CAUSE not in rules
    # the same ticket without the line comes to the same verdict: the notice alone decides nothing
    assert judged_issue(_log("is this normal?", VLLM_HEAD + VLLM_TAIL))[0].category == verdict.category


def test_the_p2p_notice_on_a_pcie_box_is_no_p2p_fault():
    """vLLM's custom all-reduce off for want of P2P prints on every consumer-GPU box: alone it is no p2p_disabled
    finding. (Since symptom36 reads "slower than I expected" as a complaint, not a question, the board's class gives
    its weak p2p_disabled lead, ticket.symptom_prior, with the notice or without it: the notice adds nothing.)"""
    verdict, rules = judged_issue(_log("TP 2 on 2x RTX 4090", CONTEXT_LINES[1][1]))
    assert rules[CONTEXT].severity == "info" and rules[CONTEXT].confidence == 0.0
    assert not (verdict.category == "p2p_disabled" and verdict.confidence >= 0.5)
    without = judged_issue(_log("TP 2 on 2x RTX 4090", "INFO 05-25 00:00:25 llm_engine.py:100] Initializing an LLM "
                                                       "engine"))[0]
    assert (verdict.category, verdict.confidence) == (without.category, without.confidence)


HARMLESS_LINES = [
    ("inductor_not_enough_sms",
     "W0301 14:50:21.667000 3157 .venv/lib/python3.12/site-packages/torch/_inductor/utils.py:1137] [2/0] Not enough "
     "SMs to use max_autotune_gemm mode"),
    ("torch_sdpa_no_flash_kernel",
     "C:\\app\\modeling_llama.py:671: UserWarning: 1Torch was not compiled with flash attention. (Triggered "
     "internally at ..\\aten\\src\\ATen\\native\\transformers\\cuda\\sdp_utils.cpp:263.)"),
    ("vllm_reducing_torch_threads",
     "WARNING 02-22 22:08:56 multiproc_worker_utils.py:300] Reducing Torch parallelism from 16 threads to 1 to avoid "
     "unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed."),
    ("transformers_pad_token",
     "Setting `pad_token_id` to `eos_token_id`:2 for open-end generation."),
]


def test_every_row_of_the_catalog_is_tested_here():
    tested = {"cause": {row for row, *_ in CAUSES}, "context": {row for row, _ in CONTEXT_LINES},
              "harmless": {row for row, _ in HARMLESS_LINES}}
    for strength, rows in tested.items():
        assert {r.id for r in engine_notices() if r.strength == strength} == rows, strength


@pytest.mark.parametrize("row,line", HARMLESS_LINES, ids=[c[0] for c in HARMLESS_LINES])
def test_a_harmless_notice_asked_about_is_answered_as_harmless(row, line):
    asked = f"# warning\n\nI get this warning, does it slow things down? {line}\n"
    verdict, rules = judged_issue(asked)
    assert _notice(asked, HARMLESS) == row and rules[HARMLESS].severity == "ok"
    assert verdict.category == "healthy"
    # pasted in a log it is context, and a crash beside it is not answered away as harmless
    assert _notice(_log("slow", VLLM_HEAD + line + "\n" + VLLM_TAIL), CONTEXT) == row
    crash = f"# crash\n\nThe server crashes with a segmentation fault (core dumped) at start. {line}\n"
    assert HARMLESS not in judged_issue(crash)[1]


def test_a_harmless_notice_does_not_answer_a_measured_slowdown():
    text = ("# TP 2 slow\n\nLlama-2-13B on 2x A100 80GB with TP 2 decodes at 9 tok/s, TP 1 at 30 tok/s. I also get "
            "'Setting `pad_token_id` to `eos_token_id`:2 for open-end generation.'\n")
    assert judged_issue(text)[0].category != "healthy"


# The real first posts (SOURCES.md): the file and its thread's settled category.
REAL = [("mediaai7.md", "healthy"), ("cogvideox97.md", "healthy"), ("whisper462.md", "healthy")]


@pytest.mark.parametrize("name,category", REAL)
def test_real_first_posts_get_their_settled_answer(name, category):
    assert judged_issue((DATA / name).read_text())[0].category == category


# (xfail43b) once strict xfails here: partial offload said in words ("only 27 layers are offloaded on GPU, but I want
# to offload all 43", "offloads only half layers to gpu, half to cpu"), now read by claims._ONLY_LAYERS_ON_GPU and
# claims._OFFLOAD_COUNT_WORDS (tests/test_xfail43b.py)
OFFLOAD_IN_WORDS = [("ollama5843.md", "host_bound"), ("ollama9181.md", "host_bound")]


@pytest.mark.parametrize("name,category", OFFLOAD_IN_WORDS)
def test_real_first_posts_saying_the_offload_in_words(name, category):
    assert judged_issue((DATA / name).read_text())[0].category == category
