"""Blind batch b52a (tests/data/b52a/SOURCES.md): several processes, threads or instances sharing one GPU, each slower.

The mechanism recurs in four threads: Paddle#74043 and PaddleX#4668 (physics41, said in Chinese and read since then),
SYSTRAN/faster-whisper#599 and #723 (this batch, said in English and not read: "Two threads processing two files takes
twice as long as one thread processing one file"). Work from several processes on one GPU is time-sliced (CUDA's MPS
overview) and one model called from several threads runs one call at a time, so each job takes longer while the total
stays: the maintainers' answer in all four. claims.batch_tradeoff now reads the English form; several GPUs or the CPU's
threads named beside it are not this.
"""

import pytest
from conftest import REPO, issue_bundle, judged_issue, judged_kept_paste

from rules import claims


@pytest.mark.parametrize("rel", [
    "b52a/fasterwhisper723.md",   # two threads on one GPU take twice as long (healthy before: no reason given)
    "physics41/paddle74043.md",   # the Chinese form, read since physics41: unchanged
    "physics41/paddlex4668.md",
])
def test_jobs_sharing_one_gpu_are_the_gpus_trade(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "expected_physics"
    assert found["ticket.serving_tradeoff"].category == "expected_physics"


def test_the_english_form_names_the_shared_gpu(tmp_path):
    _, found = judged_kept_paste(tmp_path, "b52a/fasterwhisper723.md")
    assert "sharing one GPU" in found["ticket.serving_tradeoff"].title


def test_threads_slower_are_read_where_a_failure_word_keeps_the_verdict():
    """faster-whisper#599: the sentence is read, but "it did not worked in parallel" is read as a failure, so the
    serving trade stays silent (a candidate of its own, SOURCES.md)."""
    facts = issue_bundle((REPO / "tests/data/b52a/fasterwhisper599.md").read_text())
    found = claims.batch_tradeoff(facts)
    assert found and all(c.data.get("shared_gpu") for c in found)


def _read(text: str):
    return claims.batch_tradeoff(issue_bundle(text))


@pytest.mark.parametrize("text", [
    "# Slow with threads\n\nTwo threads processing two files takes twice as long as one thread processing one file.",
    "# Slower with instances\n\nWith 4 instances of the model on one RTX 4090, each request is much slower.",
    "# processes\n\nWhen I start 3 processes that share the GPU, every one of them runs slower.",
])
def test_several_jobs_on_one_gpu_slower_are_read(text):
    assert [c for c in _read(text) if c.data.get("shared_gpu")]


@pytest.mark.parametrize("text", [
    # a real sentence the reading was not written from (a llama.cpp benchmark note, find_string id 70978666434):
    # the CPU's threads, named in the sentence before
    "# CPU run\n\nThe CPU runs on all cores (`n_threads = os.cpu_count()`); libllama's default\nof 4 threads takes "
    "twice as long.",
    # real, with no slowdown said (vLLM's docs, find_string id 11312346860)
    "# Packing\n\nDecrease to pack multiple instances on the same GPU (for small models like 7B/8B), keeping KV-cache "
    "viable.",
    # several GPUs: scaling, not sharing
    "# Slow\n\nWith 4 processes on 4 GPUs the job is slower than with one.",
    "# Slow\n\nRunning 2 workers, one per GPU, is slower than a single worker.",
    # ruled out
    "# Fine\n\nTwo threads are not slower than one thread here.",
    # a data loader's workers
    "# Training\n\nWith 8 dataloader workers the epoch is slower.",
    # one of them
    "# Slow\n\nOne thread takes 10 seconds and it is slower than I hoped.",
])
def test_near_misses_are_not_read(text):
    assert not [c for c in _read(text) if c.data.get("shared_gpu")]


_THREADS = ("# Parallel transcription\n\nTwo threads processing two files takes twice as long as one thread "
            "processing one file. {}How to make the execution truly parallel?")


def test_threads_without_a_gpu_are_not_the_gpus_trade():
    """With no GPU anywhere in the ticket the threads may be a CPU run's: the shared-GPU answer needs the GPU said."""
    _, with_gpu = judged_issue(_THREADS.format("I only have one GPU. "))
    _, without = judged_issue(_THREADS.format(""))
    assert "ticket.serving_tradeoff" in with_gpu
    assert "ticket.serving_tradeoff" not in without
