"""Error messages the engines' and CUDA's own documentation explains (issue 11, errors33; the rows of
rules/catalog/engine_errors.toml after trtllm_head_size_unsupported): TensorRT plans loaded by another TensorRT
release or on another GPU, TGI's warm-up prefill budget, CUDA failing to initialise (999), no GPU visible to the
process, spawn without the __main__ guard, vLLM's Ray driver without a GPU, calls CUDA graph capture forbids, SGLang's
capture failure, kernel launches out of resources, cuBLAS failures. Each row on the documented line inside a short
paste, on the reporter's own words where the row can read them, on a near-miss and on a denial; then the real first
posts of tests/data/errors33 (SOURCES.md), each kept before it was answered and checked against its thread's settled
answer."""

from pathlib import Path

import pytest
from conftest import judged_issue

DATA = Path(__file__).parent / "data" / "errors33"


def _row(text: str) -> str | None:
    """The catalog row ticket.known_error names for the text, or None."""
    _, rules = judged_issue(text)
    f = rules.get("ticket.known_error")
    return f.evidence[0].detail.split("(", 1)[1].split(",", 1)[0] if f else None


def _paste(title: str, setting: str, line: str) -> str:
    return f"# {title}\n\n{setting}\n\n```\n{line}\n```\n"


# (row, the documented line pasted in one setting, the same cause in another stack's or the reporter's words,
#  a near-miss that shares words but names another failure, the line denied)
ROWS = [
    ("trt_engine_version_mismatch",
     _paste("trtllm engine will not load", "TensorRT-LLM 0.9 engine, TP 2 on 2x L40S, served by Triton 24.04:",
            "[TensorRT-LLM][ERROR] 1: [stdArchiveReader.cpp::stdArchiveReaderInitCommon::47] Error Code 1: "
            "Serialization (Serialization assertion stdVersionRead == kSERIALIZATION_VERSION failed.Version tag does "
            "not match. Note: Current Version: 237, Serialized Engine Version: 238)"),
     _paste("triton fails to load the engine", "Engines built in the TensorRT-LLM container, run in tritonserver:",
            "[TRT] [E] 6: The engine plan file is not compatible with this version of TensorRT, expecting library "
            "version 9.3.0.1 got 9.2.0.5, please rebuild."),
     _paste("engine load fails", "TensorRT 10 on 2x A100, my own engine file:",
            "[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::32] Error Code 1: Serialization (Serialization "
            "assertion magicTagRead == kMAGIC_TAG failed.Magic tag does not match)"),
     "# TRT-LLM TP 2 slow\n\nThe engine loads fine now, there is no 'Version tag does not match' error any more; "
     "but TP 2 on 2x L40S is slower than TP 1.\n"),
    ("trt_engine_other_gpu",
     _paste("engine built on the A100 fails on the L40S", "TensorRT-LLM, TP 2, engine copied from another server:",
            "[TRT] [E] 6: The engine plan file is generated on an incompatible device, expecting compute 8.0 got "
            "compute 8.9, please rebuild."),
     _paste("jetson engine", "TensorRT 8.5 on an Orin:",
            "INVALID_CONFIG: The engine plan file is generated on an incompatible device, expecting compute 7.2 got "
            "compute 8.7, please rebuild."),
     _paste("engine fails", "TensorRT-LLM TP 4 on 4x H100:",
            "[TRT] [E] 3: [runtime.cpp::deserializeCudaEngine::65] Error Code 3: API Usage Error (Parameter check "
            "failed at: runtime.cpp::deserializeCudaEngine::65, condition: (blob) != nullptr)"),
     "# TRT-LLM slow\n\nI rebuilt the engine on this GPU, so it is not 'generated on an incompatible device' any "
     "more; TP 4 is still slow on 4x H100.\n"),
    ("tgi_prefill_budget",
     _paste("TGI num-shard 2 dies at warmup", "TGI 2.0.4 with --num-shard 2 on 2x A10G, Llama-2-13B:",
            "Error: Warmup(Generation(\"Not enough memory to handle 8192 prefill tokens. You need to decrease "
            "`--max-batch-prefill-tokens`\"))"),
     _paste("LoRAX fails at warm up", "LoRAX with --num-shard 4:",
            "Server error: Not enough memory to handle 4096 total tokens with 1024 prefill tokens. You need to "
            "decrease `--max-batch-total-tokens` or `--max-batch-prefill-tokens`"),
     _paste("TGI question", "TGI 2.0 with --num-shard 2:",
            "INFO text_generation_launcher: Setting max batch total tokens to 96000\nWARN text_generation_router: "
            "Model supports up to 8192 but tgi will now set its default to 4096 instead."),
     "# TGI shards slow\n\nWarm-up passes, no 'Not enough memory to handle 4096 prefill tokens' message; 2 shards on "
     "2x L4 are slow.\n"),
    ("cuda_init_unknown_error",
     _paste("ollama falls back to CPU on my 2x 3090", "Ollama 0.5 on Ubuntu, after the box woke up:",
            "level=WARN source=gpu.go:623 msg=\"unknown error initializing cuda driver library "
            "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07: cuda driver library init failure: 999\""),
     _paste("llama-server uses no GPU", "llama.cpp with -ngl 99 -sm row on 2x 4090:",
            "ggml_cuda_init: failed to initialize CUDA: unknown error"),
     _paste("ollama uses no GPU", "Ollama 0.3 in docker:",
            "cudaSetDevice err: 100\nlevel=DEBUG source=gpu.go:533 msg=\"Unable to load cudart\" error=\"cudart init "
            "failure: 100\""),
     "# ollama slow on 2x 3090\n\nNo 'cuda driver library init failure: 999' in the log any more after the reboot, "
     "but tokens are slow.\n"),
    ("no_gpus_visible",
     _paste("vLLM TP 2 inside a Ray actor", "vLLM 0.7.3 LLM(tensor_parallel_size=2) created in my Ray actor:",
            "RuntimeError: No CUDA GPUs are available"),
     "# Ray Serve deployment fails\n\nWith vLLM TP 4 under Ray Serve the replica dies saying \"No CUDA GPUs are "
     "available\" although the node has 8x A100.\n",
     _paste("vLLM fails", "vLLM on 2x L4:", "RuntimeError: CUDA error: no CUDA-capable device is detected"),
     "# vLLM TP 2 slow\n\nSince I set num_gpus=2 on the actor I no longer get 'No CUDA GPUs are available'; TP 2 is "
     "slow on 2x L4.\n"),
    ("spawn_without_main_guard",
     _paste("tensor_parallel_size=2 crashes my script", "vLLM 0.5.0, LLM(model, tensor_parallel_size=2) at the top of "
            "run.py:",
            "RuntimeError:\n        An attempt has been made to start a new process before the\n        current "
            "process has finished its bootstrapping phase."),
     _paste("TP 4 fails from a script", "vLLM 0.6.3 on 4x A10G:",
            "RuntimeError: An attempt has been made to start a new process before the current process has finished "
            "its bootstrapping phase."),
     _paste("TP 4 fails", "vLLM 0.6.3 on 4x A10G:",
            "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must "
            "use the 'spawn' start method"),
     "# TP 2 slow\n\nI put LLM() under if __name__ == '__main__' so there is no 'An attempt has been made to start a "
     "new process before the current process has finished its bootstrapping phase' now; TP 2 is slow.\n"),
    ("ray_driver_without_gpu",
     _paste("vllm serve on the Ray head fails", "Two nodes of 8x H100, vLLM 0.7.2, --tensor-parallel-size 16:",
            "ValueError: Ray does not allocate any GPUs on the driver node. Consider adjusting the Ray placement group "
            "or running the driver on a GPU node."),
     _paste("lm_eval with vllm and ray", "vLLM data_parallel with Ray on one node of 4x A100:",
            "ValueError: Current node has no GPU available. current_node_resource={'CPU': 92.0}. vLLM engine cannot "
            "start without GPU."),
     _paste("vllm waits", "vLLM TP 8 over two nodes:",
            "Waiting for creating a placement group of specs for 10 seconds. specs=[{'GPU': 1.0, 'node:10.0.0.1': "
            "0.001}, {'GPU': 1.0}]"),
     "# two node TP slow\n\nThe head node has its GPUs now, no 'Ray does not allocate any GPUs on the driver node' "
     "error; but TP 16 over two nodes is slow.\n"),
    ("cuda_graph_capture_forbidden",
     _paste("Llama 3.2 vision TP 4 fails at start", "vLLM 0.6.4, --tensor-parallel-size 4 on 4x H100:",
            "RuntimeError: CUDA error: operation not permitted when stream is capturing"),
     _paste("sglang fails to capture", "SGLang 0.4.6 --tp 8 on 8x H200:",
            "Exception: Capture cuda graph failed: RuntimeError: Cannot call CUDAGeneratorImpl::current_seed during "
            "CUDA graph capture."),
     _paste("vLLM fails", "vLLM TP 2 on 2x A100:",
            "RuntimeError: CUDA error: operation not permitted"),
     "# TP 2 slow\n\nWith --enforce-eager there is no 'operation not permitted when stream is capturing' error, but "
     "TP 2 on 2x A100 is slower.\n"),
    ("sglang_graph_capture_failed",
     _paste("sglang tp 2 dp 2 fails at start", "SGLang --tp 2 --dp 2 on 4x A100:",
            "Exception: Capture cuda graph failed: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection "
            "closed by peer [10.0.0.2]:12345\nPossible solutions:\n1. set --mem-fraction-static to a smaller value "
            "(e.g., 0.8 or 0.7)"),
     "# sglang won't start\n\nSGLang --tp 8 on 8x H20 stops with \"Capture cuda graph failed\" and its list of "
     "possible solutions.\n",
     _paste("sglang slow start", "SGLang --tp 4 on 4x L40S:",
            "[2025-01-01 10:00:00 TP0] Capture cuda graph begin. This can take up to several minutes.\n"
            "[2025-01-01 10:02:00 TP0] Capture cuda graph end. Time elapsed: 120.1 s"),
     "# sglang slow\n\nNo 'Capture cuda graph failed' any more, it starts; decode on 4x L40S is slow.\n"),
    ("launch_out_of_resources",
     _paste("TP 2 crash on V100", "vLLM 0.4.2 on 2x V100, a GPTQ model:",
            "RuntimeError: CUDA error: too many resources requested for launch"),
     _paste("TRT-LLM crash", "TensorRT-LLM on 2x T4:",
            "[TensorRT-LLM][ERROR] CUDA runtime error in cudaLaunchKernel: too many resources requested for launch"),
     _paste("vLLM crash", "vLLM TP 2 on 2x V100:",
            "RuntimeError: CUDA error: the launch timed out and was terminated"),
     "# TP 2 slow\n\nAfter the upgrade there is no 'too many resources requested for launch' any more; TP 2 on 2x V100 "
     "is slow.\n"),
    ("cublas_failure",
     _paste("TP 2 crash", "vLLM 0.5 on 2x T4, dtype bfloat16:",
            "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedExFix(handle, "
            "opa, opb, m, n, k, (void*)(&falpha), a, CUDA_R_16BF, lda, stridea, b, CUDA_R_16BF, ldb, strideb, "
            "(void*)(&fbeta), c, CUDA_R_16BF, ldc, stridec, num_batches, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`"),
     _paste("DeepSpeed crash", "DeepSpeed-Inference mp_size 2 on 2x A10:",
            "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, "
            "m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, "
            "CUBLAS_GEMM_DFALT_TENSOR_OP)`"),
     _paste("TP 2 crash", "vLLM on 2x A10:",
            "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"),
     "# TP 2 slow\n\nSince the driver update there is no CUBLAS_STATUS_EXECUTION_FAILED; TP 2 on 2x A10 is slow.\n"),
]


@pytest.mark.parametrize("row,first,second,near,denied", ROWS, ids=[r[0] for r in ROWS])
def test_each_row_on_two_pastes_a_near_miss_and_a_denial(row, first, second, near, denied):
    for text in (first, second):
        assert _row(text) == row
        assert judged_issue(text)[0].category == "other"
    assert _row(near) != row
    assert _row(denied) != row


@pytest.mark.parametrize("text", [
    # (review38b reads a denial after the message: "... is gone", "已经解决了")
    "# vLLM TP 2 slow\n\nThe old 'No CUDA GPUs are available' error is gone since I set num_gpus=2 on the actor; TP 2 "
    "is slow on 2x L4.\n",
    # (xfail43a: _SAID_BEFORE reads the run that stopped on the message, "no longer fails with")
    "# TP 2 slow\n\nThe kernel no longer fails with 'too many resources requested for launch'; TP 2 on 2x V100 is "
    "slow.\n",
])
def test_a_message_denied_in_other_words_is_no_finding(text):
    assert _row(text) is None


@pytest.mark.parametrize("text,row", [
    (_paste("sglang fails", "SGLang --tp 2:", "Exception: Capture cuda graph failed: CUDA error: out of memory"),
     "out_of_memory"),
    (_paste("sglang fails", "SGLang --tp 2:",
            "Exception: Capture cuda graph failed: CUDA error: an illegal memory access was encountered"),
     "illegal_address"),
    (_paste("sglang fails", "SGLang --tp 2:",
            "Exception: Capture cuda graph failed: CUDA error: operation not permitted when stream is capturing"),
     "cuda_graph_capture_forbidden"),
])
def test_sglangs_wrapper_leaves_the_wrapped_error_its_own_row(text, row):
    """SGLang wraps any capture failure; the error it wraps names the cause where a row reads it (rows' order)."""
    assert _row(text) == row


# The real first posts (SOURCES.md): the row each is answered by, its thread's settled cause being the row's.
REAL = [
    ("trt564.md", "trt_engine_other_gpu"), ("trt2176.md", "trt_engine_other_gpu"),
    ("trt2195.md", "trt_engine_version_mismatch"), ("trtllmb190.md", "trt_engine_version_mismatch"),
    ("trtllm660.md", "trt_engine_version_mismatch"), ("fastmot127.md", "trt_engine_version_mismatch"),
    ("tgi710.md", "tgi_prefill_budget"), ("vllm11587.md", "cuda_graph_capture_forbidden"),
    ("sglang6033.md", "cuda_graph_capture_forbidden"), ("swift1867.md", "launch_out_of_resources"),
]


@pytest.mark.parametrize("name,row", REAL)
def test_real_first_posts_are_answered_by_their_documented_row(name, row):
    text = (DATA / name).read_text()
    assert _row(text) == row
    assert judged_issue(text)[0].category == "other"
