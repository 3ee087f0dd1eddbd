"""Engine and CUDA refusals of how a multi-GPU job was started (issue 11, errors41; rows of
rules/catalog/engine_errors.toml written from the engines' source): CUDA's eight-peer limit (cudaErrorTooManyPeers),
Megatron-LM's and vLLM's parallel groups set up twice in one process, vLLM's offline LLM class refusing pipeline
parallelism, SGLang's tensor-parallel free-memory balance check. Each row on the line as the engine prints it (a
probe: the engine's own text in a short made-up setting), on a line quoted in another real thread than the pastes
(its address beside it), on a near-miss that shares words but names another failure, and on the line denied or only
heard of; then the real first posts of tests/data/errors41 (SOURCES.md), each kept before it was answered."""

from pathlib import Path

import pytest
from conftest import judged_issue
from test_errors33 import _paste, _row  # the row ticket.known_error names; a titled paste with one code block

DATA = Path(__file__).parent / "data" / "errors41"


# (row, a probe with the engine's line, a real line from another thread, a near-miss, the line denied or heard of)
ROWS = [
    ("cuda_too_many_peers",
     _paste("10 GPUs fail at start", "Probe: a process over 10x RTX 3090, tensor split over all of them:",
            "CUDA error: peer mapping resources exhausted\n  current device: 0, in function ggml_cuda_init\n"
            "  cudaDeviceEnablePeerAccess(id_other, 0)"),
     # https://github.com/NVIDIA/nccl-tests/issues/324 (first post, 10x L40S, -g 10 in one process)
     _paste("NCCL test exception with 10 GPU cards on a single machine",
            "NCCL_DEBUG=INFO NCCL_P2P_DISABLE=1 ./all_reduce_perf -b 8 -e 256M -f 2 -g 10",
            "ubuntu:33207:33207 [0] allocator.cc:79 NCCL WARN Cuda failure 711 'peer mapping resources exhausted'"),
     _paste("P2P fails", "Probe: 2x RTX 4090 under vLLM TP 2:",
            "CUDA error: peer access is not supported between these two devices"),
     "# TP 8 slow\n\nProbe: I read that 'peer mapping resources exhausted' comes with more than 8 GPUs; we use 8 and "
     "do not get it. TP 8 on 8x L40S is slow.\n"),
    ("parallel_group_already_initialized",
     _paste("second model fails", "Probe: two LLM objects in one script, TP 1 each on one A100:",
            "AssertionError: tensor model parallel group is already initialized"),
     # https://github.com/vllm-project/vllm/issues/565 (first post: two models in one service)
     "# How to initialize two LLMs in one service？\n\nWhen I initialize two models in one service,  it raised "
     "assertion error \"AssertionError: data parallel group is already initialized\".\n\nHow to solve this?\n",
     _paste("vLLM TP fails", "Probe: calling the model's layers outside the engine:",
            "AssertionError: tensor model parallel group is not initialized"),
     "# vLLM slow\n\nProbe: the 'tensor model parallel group is already initialized' error is gone since I "
     "destroy the groups between models; TP 2 on 2x A10 is slow.\n"),
    ("pipeline_parallel_needs_async_engine",
     _paste("PP fails offline", "Probe: LLM(model, pipeline_parallel_size=2) on 2x L4:",
            "[rank0]: NotImplementedError: Pipeline parallelism is only supported through AsyncLLMEngine as "
            "performance will be severely degraded otherwise."),
     # https://github.com/HabanaAI/vllm-fork/issues/205 (first post: api_server with --pipeline-parallel-size)
     _paste("support pipeline parallelism inference in vllm", "The traceback ends:",
            "  File \"/usr/local/lib/python3.10/dist-packages/vllm/config.py\", line 560, in _verify_args\n"
            "    raise NotImplementedError(\nNotImplementedError: Pipeline parallelism is not supported yet."),
     _paste("PP fails", "Probe: vllm serve with --pipeline-parallel-size 2 on a model without PP:",
            "NotImplementedError: Pipeline parallelism is not supported for this model. Supported models implement "
            "the `SupportsPP` interface."),
     "# PP slower than TP\n\nProbe: vllm serve with --pipeline-parallel-size 2 starts fine (no 'Pipeline "
     "parallelism is only supported through AsyncLLMEngine' since I left the LLM class); PP 2 gives half the "
     "tokens/s of TP 2 on 2x L40S.\n"),
    ("tp_memory_unbalanced",
     _paste("sglang tp 2 does not start", "Probe: SGLang --tp 2 on 2x RTX 4090:",
            "ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes."),
     # https://github.com/sgl-project/sglang/pull/5416 (first post: DeepSeek V3 with NextN, the draft worker)
     _paste("Fix broadcast use cuda device lead to memory capacity unbalanced", "When using NextN in DeepSeek V3/R1:",
            "ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
            "min_per_gpu_memory=8.8841552734375, local_gpu_memory=11.901611328125, "
            "local_gpu_memory * 0.9=10.7114501953125"),
     "# GPU memory usage is not balanced\n\nProbe: SGLang --tp 2 starts; GPU 0 uses 70 GB and GPU 1 uses 60 GB, "
     "the memory capacity is unbalanced between them. Is that normal?\n",
     "# sglang tp 4 slow\n\nProbe: the 'The memory capacity is unbalanced' error is gone since I stopped the old "
     "server; TP 4 on 4x L40S is slow.\n"),
]


@pytest.mark.parametrize("row,first,second,near,denied", ROWS, ids=[r[0] for r in ROWS])
def test_each_row_reads_its_lines_not_the_near_miss_nor_the_denial(row, first, second, near, denied):
    assert (_row(first), _row(second)) == (row, row)
    assert {judged_issue(text)[0].category for text in (first, second)} == {"other"}
    assert row not in (_row(near), _row(denied))


@pytest.mark.parametrize("text", [
    # probes: advice and a question about the message, not the message met
    "# vLLM TP 2 slow\n\nProbe: someone advised to call destroy_model_parallel() to avoid 'tensor model parallel "
    "group is already initialized'; would that help speed? TP 2 on 2x A10 is slow.\n",
    "# 10 GPUs\n\nProbe: will I hit 'peer mapping resources exhausted' if I give llama.cpp 10 GPUs?\n",
])
def test_advice_and_questions_about_a_message_are_no_finding(text):
    assert _row(text) is None


def test_a_message_no_longer_raised_is_no_finding():
    """(xfail43a) rules.claims._RESOLVED_AFTER reads a message no longer raised or shown, as it reads one gone."""
    assert _row("# vLLM slow\n\nProbe: I destroy the groups between models, so 'tensor model parallel group is "
                "already initialized' is not raised any more; TP 2 on 2x A10 is slow.\n") is None


def test_the_balance_warning_of_later_releases_is_no_finding():
    """Later SGLang logs the imbalance as a warning and goes on (SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK unset): the
    start did not fail on it, so only the raised error is the row's."""
    text = _paste("sglang tp 2 slow", "Probe: SGLang --tp 2 on 2x L40S starts, log:",
                  "[2025-06-01 10:00:00 TP1] WARNING model_runner.py: The memory capacity is unbalanced. Some GPUs "
                  "may be occupied by other processes. min_per_gpu_memory=40.1, local_gpu_memory=44.9")
    assert _row(text) is None


# The real first posts (SOURCES.md): the row each is answered by.
REAL = [
    ("sglang1533.md", "tp_memory_unbalanced"), ("sglang4233.md", "tp_memory_unbalanced"),
    ("vllm1759.md", "parallel_group_already_initialized"), ("vllm2007.md", "parallel_group_already_initialized"),
    ("vllm7413.md", "pipeline_parallel_needs_async_engine"), ("vllm7367.md", "pipeline_parallel_needs_async_engine"),
    ("nccl51.md", "cuda_too_many_peers"), ("tabby1162.md", "cuda_too_many_peers"),
    ("llamacpp21883.md", "cuda_too_many_peers"),
]


@pytest.mark.parametrize("name,row", REAL)
def test_real_first_posts_are_answered_by_their_documented_row(name, row):
    text = (DATA / name).read_text()
    assert _row(text) == row
    assert judged_issue(text)[0].category == "other"
