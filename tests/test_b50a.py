"""Pass b50a (session s50): a blind batch of nine Hugging Face stack threads (tests/data/b50a/SOURCES.md).

One mechanism recurred in three threads: one GPU said as where the work succeeds, in a ticket about a run on
several GPUs, is read as the job's GPU count (1) and TP (1): "(One GPU is Correct)" under garbled output from 8
A100s (meta-pytorch/gpt-fast#64), "The code can run normally on a single GPU" under a DDP hang on 8 A40s
(pytorch/pytorch#73206),
"with one gpu works ok" under "NCCL error with multi gpu" (PlayVoice/whisper-vits-svc#97). The pass's reading of it was
taken out after review r50a: its test for "a run on several GPUs" took a question, a denial and a memory size ("24GB
GPUs") as one, turning right offload verdicts into insufficient_data, and it changed no kept verdict. What stays: the
verdicts right by their threads, and one-GPU jobs keeping their count.
"""

import pytest
from conftest import REPO, issue_bundle, judged_kept_paste

DATA = REPO / "tests" / "data"


def _workload(text: str):
    return issue_bundle(text).workload()


@pytest.mark.parametrize("rel, category", [
    ("fault39/pytorch73206.md", "p2p_disabled"),  # settled: NCCL_P2P_LEVEL=NVL (the hang on the PCIe peers)
    ("ut28g/whispervits97.md", "other"),          # settled: NCCL not built in on Windows, gloo works
    ("b50a/tgi663.md", "other"),                  # settled: the flash/vLLM kernels missing from a source install
    ("b50a/tgi897.md", "other"),                  # settled: TGI shards Llama only with flash attention (V100)
])
def test_verdicts_right_by_their_threads_stay(tmp_path, rel, category):
    assert judged_kept_paste(tmp_path, rel)[0].category == category


@pytest.mark.parametrize("rel", [
    # real tickets whose job runs on the one GPU they name (no run on several): the count stays 1
    "p48c/llmzoo19.md",       # "running model:chimera-inst-chat-13b in 8-bit on a A100"
    "ut27e/ollama3818.md",    # "everything is working but a bit on the slow side with an Nvidia GeForce RTX 4090"
    "ut29f/vllm9913.md",      # "When I run the command on one gpu:" (the Marlin refusal on one GPU)
])
def test_one_gpu_jobs_keep_their_count(rel):
    assert _workload((DATA / rel).read_text()).gpu_count == 1


@pytest.mark.parametrize("text", [
    # no run on several GPUs named: the one GPU that works is the job's
    "# Llama 2 7B is slow\n\nIt works fine on a single RTX 4090, but generation is slow.\n",
    "# Llama 2 7B on a single GPU works fine\n\nIs 20 tokens/s normal?\n",
    # a run on several named, but the one GPU fails too: no baseline that works
    "# Multi-GPU output is garbled\n\nOne GPU is not correct either.\n",
    "# Multi GPU hangs\n\nI run Llama 2 7B on a single A100 and it hangs.\n",
])
def test_near_misses_keep_the_one_gpu_count(text):
    assert _workload(text).gpu_count == 1
