"""Issue 11 (session s35, pass misfire35): rules that fired on the wrong evidence, found by bydesign35.

- "Sharing one GPU between pods" read as ranks isolated from each other's GPUs (claims isolated_ranks): several
  workloads on one GPU is the opposite setting (claims._GPU_SHARED).
- "PCIe Gen1 when the GPU is idle" read as a GPU that idles during the work (claims gpu_idle_words, then
  ticket.gpu_utilisation host_bound): the idle clause is when a power-managed reading was taken
  (claims._idle_as_setting).
- "Gen1 while under full load" not reaching pcie_link_degraded: ticket.pcie_words read "under load" in a quote cut 50
  characters after the figure; it reads the claim's whole sentence now (claims.sentence_of).
- "GPU-Util 100% with one request, what does GPU-Util mean?" answered expected_physics by ticket.busy_not_saturated over
  the documented meaning of the counter (by_design.toml gpu_utilization_is_time).
- "it is loading 27GB on each gpu" not read as memory per GPU (claims memory_per_gpu).
- "If /dev/shm is too small NCCL fails", quoted from the documentation, read as an observation (claims shm_error).

Each is tested on paraphrases, on the faults that must still be found (real isolated ranks, a shared-memory error
printed by NCCL, Gen1 read under load, a real host-bound ticket with low utilisation), and on the real first posts of
tests/data/misfire35 (SOURCES.md).
"""

import re
from pathlib import Path

import pytest
from test_bydesign31 import answer, documented, said

from benchmarks.regex_worst_case import runaway_repeats

DATA = Path(__file__).parent / "data"
MINE = DATA / "misfire35"


def rules_of(findings) -> set[str]:
    return {f.rule for f in findings}


def finding(findings, rule: str):
    return next((f for f in findings if f.rule == rule), None)


# --------------------------------------------------------------------------- a GPU shared among pods is no isolation

SHARED = [
    "# Sharing one GPU between pods in Kubernetes\n\nIs it expected that pods cannot share a GPU on our k8s cluster? "
    "Two small vLLM deployments each request nvidia.com/gpu: 1 and only one gets scheduled.",
    "# GPU sharing across containers\n\nWe want to share a single A100 across two docker containers on the same host, "
    "one running a small embedding model and one a reranker. Is that possible?",
    "# time-slicing\n\nWe enabled time-slicing so several pods on one node share the same GPU; how do we see which pod "
    "uses how much?",
]


@pytest.mark.parametrize("text", SHARED)
def test_a_gpu_shared_between_pods_is_not_isolated_ranks(tmp_path, text):
    verdict, findings = said(tmp_path, text)
    assert "ticket.isolated_ranks" not in rules_of(findings)
    assert verdict.category != "shm_fallback"


ISOLATED = [
    "# slow all-reduce\n\nWe run the two ranks in two containers on the same host and NCCL all_reduce is 5x slower "
    "than in one container.",
    "# NCCL slow under Slurm\n\nNCCL traffic between pods on one node is slow: each pod only sees its own GPU.",
    "# srun\n\nWith srun --gpus-per-task=1 our 8-GPU all_reduce_perf gets 10 GB/s busbw instead of 200.",
]


@pytest.mark.parametrize("text", ISOLATED)
def test_isolated_ranks_are_still_found(tmp_path, text):
    verdict, findings = said(tmp_path, text)
    assert "ticket.isolated_ranks" in rules_of(findings)
    assert verdict.category == "shm_fallback"


def test_real_isolated_ranks_post_still_found():
    verdict, findings = answer(DATA / "ut16" / "nccl1536.md")
    assert verdict.category == "shm_fallback" and "ticket.isolated_ranks" in rules_of(findings)


# ------------------------------------------------------------------------- idle as the time of a power-managed reading

IDLE_READINGS = [
    "# PCIe Gen1\n\nnvidia-smi shows PCIe Gen1 when the GPU is idle. Is that a problem?",
    "# RTX 4090 PCIe link at Gen 1\n\nMy RTX 4090 shows PCIe Gen 1 x16 in GPU-Z when the GPU is idle, not Gen 4.",
    "# clocks\n\nThe clocks drop to 210 MHz and P8 whenever the GPUs are idle on our 4x L40S server. Is this expected?",
    "# link speed\n\nlspci says LnkSta: Speed 2.5GT/s, Width x16 on my 3090 while idle. Is the card faulty?",
]


@pytest.mark.parametrize("text", IDLE_READINGS)
def test_a_reading_taken_at_idle_is_no_starved_gpu(tmp_path, text):
    verdict, findings = said(tmp_path, text)
    assert "ticket.gpu_utilisation" not in rules_of(findings)
    assert verdict.category not in ("host_bound", "pcie_link_degraded", "throttling")


def test_an_idle_gpu_beside_a_busy_cpu_is_still_host_bound(tmp_path):
    """'while the GPU is idle' with no power-managed reading in the sentence stays the observation it was."""
    verdict, findings = said(tmp_path, "# slow generation\n\nGeneration with Llama-3-8B on one RTX 4090 is slow: one "
                                       "CPU core sits at 100% while the GPU is idle most of the time.")
    assert "ticket.gpu_utilisation" in rules_of(findings) and verdict.category == "host_bound"
    verdict, findings = said(tmp_path, "# slow\n\nGeneration on my RTX 4090 is slow: the CPU is at 100% while the GPU "
                                       "is idle, drawing only 30 W.")  # a power draw is no lowered-state reading
    assert "ticket.gpu_utilisation" in rules_of(findings) and verdict.category == "host_bound"


def test_real_low_utilisation_post_still_host_bound():
    verdict, _ = answer(DATA / "healthy31" / "ollama11769.md")  # gpt-oss-20b: 1 of 25 layers on the GPU
    assert verdict.category == "host_bound"


# --------------------------------------------------------------------------- Gen1 read under load, in words

UNDER_LOAD = [
    "# PCIe Gen1 under load\n\nnvidia-smi -q shows PCIe Generation Max 4, Current 1 on GPU 2 while our vLLM "
    "tensor-parallel server is under full load, and the link stays at Gen1 during inference.",
    "# slow TP\n\nlspci shows LnkSta: Speed 2.5GT/s, Width x16 on GPU 1 while training, and our 2x A6000 "
    "tensor-parallel run is slow.",
    "# one card slow\n\nGPU 3 keeps running at Gen1 under load while the other three run at Gen4, and our TP=4 "
    "all-reduce is slow.",
]


@pytest.mark.parametrize("text", UNDER_LOAD)
def test_gen1_under_load_is_a_degraded_link_with_modest_confidence(tmp_path, text):
    verdict, findings = said(tmp_path, text)
    f = finding(findings, "ticket.pcie_words")
    assert verdict.category == "pcie_link_degraded" and f is not None
    assert f.confidence <= 0.65  # the reporter's reading, below a parsed nvidia-smi -q (topology.pcie_link)


def test_the_same_reading_at_idle_is_power_saving(tmp_path):
    verdict, findings = said(tmp_path, "# PCIe Gen1\n\nnvidia-smi -q shows PCIe Generation Max 4, Current 1 on GPU 2 "
                                       "while the server is idle, with no requests, and the link stays at Gen1.")
    assert verdict.category == "healthy"
    assert "pcie_link_degraded" not in {f.category for f in findings if f.is_problem}


# --------------------------------------------------------------------------- the utilisation counter asked about

def test_utilisation_question_with_one_request_is_the_documented_counter(tmp_path):
    verdict, findings = said(tmp_path, "# GPU-Util 100% with one request\n\nnvidia-smi shows GPU-Util 100% even with "
                                       "one request on our vLLM server with 2x A100. What does GPU-Util mean?")
    assert verdict.category == "healthy" and documented(findings) == "gpu_utilization_is_time"
    assert "ticket.busy_not_saturated" not in rules_of(findings)


def test_busy_but_slow_keeps_the_memory_bound_explanation(tmp_path):
    verdict, findings = said(tmp_path, "# 100% but slow\n\nnvidia-smi shows 100% GPU utilization on both A100 but "
                                       "decode is slow, about 5 tok/s for Llama-70B with vLLM TP=2.")
    assert documented(findings) is None and verdict.category != "healthy"


# --------------------------------------------------------------------------- memory per GPU said with "loading"

@pytest.mark.parametrize("text", [
    "# TP=2 memory\n\nWith vllm serve --tensor-parallel-size 2 on two L40S, the 8B model is loading 40GB on each GPU "
    "instead of 8GB. Why is it not split?",
    "# memory\n\nvLLM loads 70 GB per GPU for a 13B model with tensor parallel size 4 on 4x A100 80GB.",
])
def test_memory_loaded_on_each_gpu_is_the_engines_reservation(tmp_path, text):
    verdict, findings = said(tmp_path, text)
    assert verdict.category == "healthy", [(f.rule, f.category) for f in findings]


def test_a_bandwidth_on_each_gpu_is_no_memory(tmp_path):
    verdict, findings = said(tmp_path, "# loading speed\n\nvLLM TP=2 on 2x A100 is loading 2 GB/s on each GPU from "
                                       "the NFS share and startup takes 10 minutes.")
    assert verdict.category != "healthy" or documented(findings) is None
    assert "Each GPU's memory is filled by design" not in {f.title for f in findings}


# --------------------------------------------------------------------------- /dev/shm rules quoted, not observed

QUOTED_RULES = [
    "# vLLM TP=2 hangs in docker\n\nOur vllm serve with --tensor-parallel-size 2 in docker hangs at startup. The NCCL "
    "docs say that if /dev/shm is too small NCCL fails, but we run with --ipc=host.",
    "# slow allreduce\n\nThe NCCL troubleshooting guide says: If /dev/shm is too small, NCCL fails with a bus error. "
    "Our all_reduce_perf on 8x A100 gets 60 GB/s busbw.",
    "# question\n\nAccording to the docs, NCCL may fail when the shared memory segment is too small. Does it apply to "
    "vLLM with TP=4 on 4x L40S?",
]


@pytest.mark.parametrize("text", QUOTED_RULES)
def test_a_quoted_rule_about_shm_is_no_shm_error(tmp_path, text):
    verdict, findings = said(tmp_path, text)
    assert "ticket.shm_error" not in rules_of(findings)
    assert verdict.category != "shm_too_small"


@pytest.mark.parametrize("text", [
    "# crash\n\nvLLM with TP=2 in docker crashes: NCCL WARN Error while creating shared memory segment "
    "/dev/shm/nccl-abc (size 9637888), No space left on device.",
    "# crash\n\nWhen I start TP=4 in the container, NCCL fails: /dev/shm is full and posix_fallocate failed.",
])
def test_a_shm_failure_that_happened_is_still_found(tmp_path, text):
    verdict, _ = said(tmp_path, text)
    assert verdict.category == "shm_too_small"


# --------------------------------------------------------------------------- the new patterns stay bounded

def test_new_patterns_stay_bounded_on_long_lines():
    """No chain of unbounded repeats a long run of one character alone can take, nor one nested in another."""
    from rules import claims
    for pattern in (claims._GPU_SHARED, claims._IDLE_LOWERED_READING, claims._ACCORDING_TO_DOCS, claims._IDLE_WHEN):
        assert runaway_repeats(pattern.pattern, pattern.flags) == [], pattern.pattern[:40]


# --------------------------------------------------------------------------- the real first posts (SOURCES.md)

REAL = {
    "k8sdp134.md": "healthy",      # klueska: sharing one GPU goes against Kubernetes' device allocation model
    "sglang4259.md": "shm_too_small",  # the quoted NCCL error: /dev/shm too small for TP (docs added)
}
STILL_WRONG = {
    "dlis7.md": ("healthy", "a container is not limited to one GPU and one GPU serves several models (deadeyegoodwin: "
                 "one instance of each model per GPU by default); 'one GPU can only be used by one docker' names no "
                 "setting any rule or documented row reads"),
    "prodstack44.md": ("shm_too_small", "the reporter had to enlarge /dev/shm to launch (docs added by PR #105); said "
                       "as a remedy already applied ('had to manually increase the Docker /dev/shm ... to avoid NCCL "
                       "shared memory allocation issues'), which no claim reads as the cause"),
}


@pytest.mark.parametrize("name,category", REAL.items())
def test_real_posts(name, category):
    verdict, _ = answer(MINE / name)
    assert verdict.category == category


@pytest.mark.parametrize("name", STILL_WRONG)
def test_real_posts_still_answered_otherwise(name, request):
    category, reason = STILL_WRONG[name]
    request.node.add_marker(pytest.mark.xfail(strict=True, reason=reason))
    verdict, _ = answer(MINE / name)
    assert verdict.category == category


def test_sources_lists_every_kept_post():
    listed = set(re.findall(r"^\| (\w+\.md) \|", (MINE / "SOURCES.md").read_text(), re.M))
    assert listed == {p.name for p in MINE.glob("*.md") if p.name != "SOURCES.md"}
