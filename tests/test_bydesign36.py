"""Issue 11 (session s36, pass bydesign36): documented behaviour taken for a fault, audit36's group B.

Two changes, tested here on the real first posts kept in tests/data/bydesign36 (threads and settled answers in its
SOURCES.md), on the kept pastes audit36 named, on paraphrases and on near-misses:
- the fault gate of ticket.documented_behaviour no longer counts the reporter's own label ("bug", "issue", "error",
  a template's "new bug" checkbox) as a fault; an error line, a traceback, a hang, a crash, an out-of-memory, growing
  memory or a figure that used to be better still shut it;
- two rows: Ollama serving a model from one loaded copy (concurrent requests share it or queue), and DCGM's profiling
  metrics existing only on Volta and newer GPUs.
"""

from pathlib import Path

import pytest
from test_bydesign31 import answer, documented, said  # the same readers of a paste and of a sentence

from diagnose.bundle import read_bundle
from rules.ticket_questions import fault_context

DATA = Path(__file__).parent / "data"


# (every row's documentation, `unless` and pattern speed: tests/test_bydesign31.py)


# Real first posts settled as this behaviour (the key: the row that answers; None: answered `healthy` by
# ticket.nothing_broken, as before this pass).
REAL = {
    "extract35/ollama9054.md": "ollama_one_copy",
    "bydesign36/ollama1400.md": "ollama_one_copy",
    "bydesign36/ollama11942.md": "ollama_one_copy",
    "bydesign36/ollama9787.md": None,
    "bydesign35/dcgmexp395.md": "dcgm_profiling_by_architecture",
    "bydesign36/dcgm47.md": "dcgm_profiling_by_architecture",
    # rows that existed, shut before by the reporter's label: the template's "new bug" checkbox, "i keep getting error"
    "bydesign33/llamacpp4289.md": "llama_server_slots",
    "bydesign33/nccl162.md": "nccl_net_plugin_info",
}


@pytest.mark.parametrize("rel,key", REAL.items())
def test_real_posts_answered_healthy(rel, key):
    verdict, findings = answer(DATA / rel)
    assert verdict.category == "healthy"
    assert documented(findings) == key


def test_the_exporter_that_exits_is_no_documented_behaviour():
    """NVIDIA/gpu-monitoring-tools#119: the Quadro P5000 has no profiling metrics, but dcgm-exporter stops at
    level=fatal and the container does not start: a failure the exporter's configuration must fix (later exporters skip
    the fields), not behaviour to call normal."""
    verdict, findings = answer(DATA / "bydesign36" / "gpumon119.md")
    assert documented(findings) is None and verdict.category != "healthy"


def test_a_feature_request_naming_no_gpu_is_not_answered_by_the_row():
    """NVIDIA/gpu-monitoring-tools#140 asks for a switch to enable DCP metrics and names no GPU: the row needs an older
    board in sight."""
    _, findings = answer(DATA / "bydesign36" / "gpumon140.md")
    assert documented(findings) is None


@pytest.mark.xfail(strict=True, reason="settled by design (ollama/ollama#11196, rick-github: Ollama never loads the "
                   "same model twice; OLLAMA_NUM_PARALLEL serves parallel queries), and ollama_one_gpu sees 'the other "
                   "GPU is empty and idle', but 'they all get stuck on one GPU in a queue' is read as a hang "
                   "(claims' hang family), which shuts every documented behaviour")
def test_requests_stuck_in_a_queue():
    verdict, _ = answer(DATA / "bydesign36" / "ollama11196.md")
    assert verdict.category == "healthy"


PARAPHRASES = [
    ("ollama_one_copy",
     "# Second copy of the model\n\nWe run Ollama on a server with four A10 GPUs. With ten users hitting qwen2.5:14b, "
     "Ollama never starts a second copy of the same model on the free GPUs. Why not?"),
    ("ollama_one_copy",
     "# Concurrent requests wait\n\nOur Ollama server has plenty of free VRAM, yet when three scripts call the same "
     "model at once the requests are answered one after another. Is that expected?"),
    ("ollama_one_copy",
     "# Only one request at a time\n\nOllama 0.5 on an RTX 4090 processes only one request at a time for llama3.1:8b "
     "even though several clients call it."),
    ("dcgm_profiling_by_architecture",
     "# No DCP metrics on K80 nodes\n\nOn our Tesla K80 nodes dcgm-exporter shows DCGM_FI_DEV_GPU_UTIL, but "
     "DCGM_FI_PROF_SM_ACTIVE is missing. The V100 nodes report it. Why?"),
    ("dcgm_profiling_by_architecture",
     "# dcgmi dmon -e 1001\n\nOn a P40 server dcgmi dmon with field 1001 does not work, the other fields are fine. "
     "Is profiling supported on Pascal?"),
    # rows that were there before, with the reporter's own label beside them
    ("caching_allocator",
     "# [Bug] memory is not freed\n\nI use PyTorch 2.1. After I del the model and call torch.cuda.empty_cache(), "
     "nvidia-smi still shows 10GB used. Is this a bug?"),
    ("nccl_net_plugin_info",
     "# Error: Unable to load libnccl-net.so\n\nI have an issue with NCCL 2.18 on one node: every run prints "
     "\"NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v6 symbol\" and \"Unable to load libnccl-net.so\". "
     "The training runs normally. How do I fix this error?"),
]


@pytest.mark.parametrize("key,text", PARAPHRASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(PARAPHRASES)])
def test_paraphrases_are_answered_from_the_documentation(tmp_path, key, text):
    verdict, findings = said(tmp_path, text)
    assert verdict.category == "healthy", text
    assert documented(findings) == key, text


# The same observations with a fault beside them, or out of the row's setting: the row stays silent and nothing calls
# the ticket normal. The reporter's label with a real fault line stays shut.
NEAR_MISSES = [
    # (s36 merge) requests said to error or fail: the queue is by design, a request that errors is not
    ("ollama_one_copy",
     "# Ollama only answers one request at a time, I get an error on the others\n\nI run ollama on an RTX 4090 and "
     "send 4 requests from my app at once. Only one gets answered at a time and the other requests get an error "
     "after a while. Is this a bug?"),
    ("ollama_one_copy",
     "# Error with concurrent requests on Ollama\n\nHaving an error when multiple users hit ollama at once. Requests "
     "are queued and the later ones fail. GPU is an A100 80GB."),
    ("ollama_one_copy",
     "# Requests queued then fail\n\nWith Ollama on two A100s the concurrent requests are queued and after 5 minutes "
     "they fail with a timeout from the client."),
    ("ollama_one_copy",
     "# Queue and OOM\n\nOllama queues the requests for llama3:70b and then the runner crashes with CUDA out of memory "
     "on the second GPU."),
    ("ollama_one_copy",
     "# Requests never answered\n\nWith OLLAMA_NUM_PARALLEL=4 the requests are queued and never answered; the server "
     "hangs until I restart it."),
    ("dcgm_profiling_by_architecture",
     "# DCP metrics missing on H100\n\ndcgm-exporter 3.3.5 on our H100 nodes: DCGM_FI_PROF_GR_ENGINE_ACTIVE is "
     "missing and the log says Not collecting DCP metrics."),
    ("dcgm_profiling_by_architecture",
     "# exporter exits on P100\n\nOn our Tesla P100 nodes dcgm-exporter fails to start: profiling metrics are not "
     "supported and the pod goes into CrashLoopBackOff."),
    ("caching_allocator",
     "# [Bug] memory is not freed after del\n\nI use PyTorch 2.1. After I del the model and call "
     "torch.cuda.empty_cache(), nvidia-smi still shows 10GB used. Then the next step fails:\n\n"
     "Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n"
     "    x = torch.zeros(1000, 1000, 1000, device=\"cuda\")\n"
     "RuntimeError: CUDA error: an illegal memory access was encountered\n"),
    ("caching_allocator",
     "# Issue: memory is not freed after del\n\nI use PyTorch. After I del the tensors and call empty_cache, "
     "nvidia-smi still shows 10GB used, and memory keeps growing every iteration until CUDA out of memory."),
    ("nccl_net_plugin_info",
     "# Unable to load libnccl-net.so error\n\nI run NCCL all_reduce on one node and get the error \"NCCL INFO "
     "NET/Plugin : Plugin load returned 2 : libnccl-net.so: cannot open shared object file\". Then the job hangs "
     "forever at the first allreduce."),
    ("nccl_net_plugin_info",
     "# Bug: NCCL error Unable to load libnccl-net.so\n\nI run NCCL on one node and see \"NCCL INFO NET/Plugin : "
     "Plugin load returned 2 : libnccl-net.so: cannot open shared object file\". Then:\n\n"
     "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled system error, "
     "NCCL version 2.14.3\n"),
]


@pytest.mark.parametrize("key,text", NEAR_MISSES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(NEAR_MISSES)])
def test_near_misses_do_not_fire(tmp_path, key, text):
    verdict, findings = said(tmp_path, text)
    assert documented(findings) != key
    assert verdict.category != "healthy"


def test_the_label_still_counts_for_the_other_rules(tmp_path):
    """Only the documented behaviour, which has matched the observation itself, sets the label aside: for the rules
    that answer 'nothing is broken' from an absence of evidence, "I met a problem" still points at a fault."""
    (tmp_path / "issue.md").write_text("# Question\n\nI met a problem when running vLLM with TP=2 on two A100s. "
                                       "Is this normal?")
    facts = read_bundle([tmp_path / "issue.md"])
    assert fault_context(facts) is not None
    assert fault_context(facts, labels=False) is None


def test_the_reporters_own_client_one_at_a_time_is_not_the_server_queueing(tmp_path):
    """(vllm-project/vllm#2308's wording) the reporter's own code sending one prompt at a time beside Ollama is how they
    measured, not Ollama serving requests one after another: ollama_one_copy stays silent."""
    _, findings = said(tmp_path, "# vLLM vs Ollama\n\nOn a 4090 vLLM gives the same speed as Ollama. I tested offline "
                       "inference doing only a single prompt at a time; my code sends one request at a time.")
    assert documented(findings) != "ollama_one_copy"
