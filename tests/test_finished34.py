"""Issue 11 (session s34, pass finished34): a slow start or first call that finishes is documented behaviour.

Reading the weights (bound by the disk or the download), compiling and warming up (torch.compile, CUDA-graph capture,
JIT kernels), building a TensorRT engine, and the start-up named as a whole take minutes by design and are paid once
per start or per cache (rules/catalog/by_design.toml rows weights_load_time, compile_warmup_time, engine_build_time,
startup_time, each citing its documentation): ticket.documented_behaviour answers them `healthy`, naming the phase.
A start that never ends, is still running, stopped or failed, or a time far past the phase's documented figures is not
this. Tested on the real first posts of tests/data/finished34 (SOURCES.md), paraphrases, negations and near-misses.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from rules import catalog

DATA = Path(__file__).parent / "data" / "finished34"


def _behaviour(text: str) -> str | None:
    """The by_design.toml row ticket.documented_behaviour answers the text with, or None."""
    _, found = judged_issue(text)
    f = found.get("ticket.documented_behaviour")
    return next((r["key"] for r in catalog.documented_behaviours() if f is not None and r["title"] == f.title), None)


# The real first posts whose threads settled on a slow phase that finishes (SOURCES.md), with the row that names it.
REAL = {
    "llama199.md": "weights_load_time",          # 252.89 s and 880 s to load llama-13b/-30b: store weights on NVMe
    "stablefast98.md": "compile_warmup_time",    # the first warm-up after compiling: the troubleshooting doc
    "tensorrtx690.md": "engine_build_time",      # "This is normal" (the maintainer)
    "turboocr17.md": "engine_build_time",        # "that's expected depending on the GPU", lower TRT_OPT_LEVEL
    "vllm43189.md": "startup_time",              # 8 min start: skip the DeepGEMM warm-up, FlashInfer autotune
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_posts_of_a_slow_phase_that_finishes_name_the_phase(name):
    text = (DATA / name).read_text()
    assert _behaviour(text) == REAL[name]
    assert judged_issue(text)[0].category == "healthy"


@pytest.mark.parametrize("name", ["clipasservice539.md", "fluxfp8api24.md", "tensorrt1841.md"])
def test_real_posts_already_answered_healthy_stay_healthy(name):
    """Slow first calls (ticket.explained) and a build-time question (ticket.nothing_broken) were healthy before."""
    assert judged_issue((DATA / name).read_text())[0].category == "healthy"


PARAPHRASES = [
    ("# vllm slow to come up\n\nvLLM with TP 4 on 4x A100: loading the model weights takes about 10 minutes from our "
     "NFS share, then it serves fine. Is that normal?\n", "weights_load_time"),
    ("# Qwen 72B\n\nIt takes 6 minutes to load the model with SGLang on 2x H100, after that generation is fast.\n",
     "weights_load_time"),
    ("# model loading is very slow\n\nOllama on an RTX 4090: model loading is very slow the first time after a reboot, "
     "later it is quick.\n", "weights_load_time"),
    ("# first start\n\nvLLM 0.9 on 8x H100: torch.compile takes 3 minutes on the first start, later starts reuse the "
     "cache.\n", "compile_warmup_time"),
    ("# warmup\n\nThe warm-up of my compiled model takes 2 minutes on an L40S before inference is quick.\n",
     "compile_warmup_time"),
    ("# trtllm\n\nBuilding the TensorRT-LLM engine for Llama 3 8B took 25 minutes on one A10G; it works now.\n",
     "engine_build_time"),
    ("# startup\n\nOur vLLM server startup takes about 5 minutes on 2x L40S. How can we reduce it?\n", "startup_time"),
    ("# slow start\n\nSGLang on 4x H100 with DeepSeek V3: after 20 min it starts and serves fine.\n", "startup_time"),
    ("# slow\n\nIs it normal that loading takes so long? vLLM with Mixtral on 2x A100, the model then answers fine.\n",
     "weights_load_time"),
    ("# load\n\nOllama: loading takes forever but then works, the model is llama3 70b.\n", "weights_load_time"),
    # a negation of another fault beside the slow load does not rule it out
    ("# slow load\n\nvLLM TP 2 on 2x RTX 4090 takes 10 minutes to load the model. P2P is not the problem.\n",
     "weights_load_time"),
]


@pytest.mark.parametrize("text,row", PARAPHRASES)
def test_paraphrases_of_a_slow_phase_that_finishes(text, row):
    assert _behaviour(text) == row
    assert judged_issue(text)[0].category == "healthy"


NOT_FINISHED = [
    # it never finishes
    "# vllm load never finishes\n\nvLLM TP 2 on 2x RTX 4090: loading the model takes forever and never finishes.\n",
    # still running after a time far past any documented figure
    "# still loading\n\nAfter 2 hours SGLang on 4x A100 is still loading the model weights.\n",
    # finished, but after a time past what reading weights takes (a broken or throttled disk)
    "# slow\n\nLoading the model took 5 hours on 8x H100 with vLLM.\n",
    # stuck, then killed
    "# torch.compile\n\nvLLM on 4x L40S is stuck at torch.compile; the warm-up takes forever and I killed it.\n",
    # a start that failed
    "# trt build\n\nBuilding the TensorRT engine takes 20 minutes and then fails with an out of memory error.\n",
]


@pytest.mark.parametrize("text", NOT_FINISHED)
def test_a_start_that_never_finishes_or_fails_is_not_by_design(text):
    assert _behaviour(text) is None
    assert judged_issue(text)[0].category != "healthy"


NEAR_MISSES = [
    # a regression after an upgrade: it used to be fast
    "# slower start since 0.8\n\nSince the upgrade to vLLM 0.8 the model loading takes 10 minutes on 4x A100; it "
    "used to take 1 minute.\n",
    # slow generation, not a start-up phase
    "# slow decode\n\nvLLM TP 2 on 2x A100 generates 8 tokens/s for Llama 70B; loading was fine.\n",
    # a serving job that stops after hours: no start-up phase
    "# vllm stops\n\nvLLM TP 4 on 4x A100 served fine; after 3 hours it stops responding.\n",
    # a start-up time beside a slow generation rate: the rate is what is asked about
    "# slow tokens\n\nStartup takes 2 minutes, but then generation runs at 5 tokens/s on 2x RTX 3090, which is too "
    "slow.\n",
    # a hang at the first collective after loading
    "# hang\n\nvLLM TP 2 on 2x RTX 4090 loads the model in 2 minutes and then hangs at the first all_reduce.\n",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_are_not_a_documented_slow_phase(text):
    assert _behaviour(text) is None


def test_no_errors_said_does_not_rule_the_slow_load_out():
    text = ("# slow load\n\nSGLang on 2x H100 takes 8 minutes to load the model weights from our network disk, no "
            "errors, then it serves normally.\n")
    assert _behaviour(text) == "weights_load_time"


# Real first posts still answered otherwise than their thread settled (SOURCES.md): kept, not bent to.
@pytest.mark.xfail(strict=True, reason="the thread settled on a slow file system (Docker Desktop / WSL mounts); the "
                   "post also says 'sometimes it never starts the model', which keeps a start that never ends out of "
                   "the documented rows")
def test_ollama1769_slow_load_from_a_wsl_mount():
    assert judged_issue((DATA / "ollama1769.md").read_text())[0].category == "healthy"
