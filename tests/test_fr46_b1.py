"""fr46b items 1, 2, 7 and the timing item (issue_md._weighed, pass xfail46): a GPU is weighed only when the question
asks about the GPU itself (it stands beside the or/vs/还是 with another GPU on the other side; 'is/are/would <GPU> be
enough?' asked of it, not negated; wondered about without a definite article); the reporter's own machine named in the
same sentence ('hangs on', "I'm on", 我用, 目前用) is never dropped. Probes (labelled) from the reviewer's
t1-t5, g4, g7, g14, g15; the near-misses that keep the pass's weighed reading are in tests/test_xfail46.py (all
still pass)."""

from __future__ import annotations

import time

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Workload


def _gpus(text: str) -> list[tuple[str, int]]:
    return [(w.gpu or "", w.gpu_count or 0) for w in issue_md.parse(text, "post.md")
            if isinstance(w, Workload) and (w.gpu or w.gpu_count)]


KEPT = [
    # item 1 probes (t1, t2): an alternative later in the question does not weigh the GPU the run hung on
    ("# vLLM hangs at startup with TP=2\n\nWe serve Llama-3-8B with vLLM 0.6.3 and --tensor-parallel-size 2.\n"
     "The server hangs at NCCL init on 2x L40S, should I set NCCL_P2P_DISABLE=1 or switch to A100?\n", [("L40S", 2)]),
    ("# Fine-tuning hangs after first step\n\nTraining Llama-2-13B with DeepSpeed ZeRO-3 and torchrun "
     "--nproc_per_node 4.\nTraining hangs on 4x A100 80GB after step 1, is this a driver issue or should we upgrade to "
     "H100?\n", [("A100 80GB", 4), ("", 4)]),  # (fr46c) and the launch's 4 processes: "--nproc_per_node 4." is read
    # now that a prose command's full stop is no part of its value (tests/test_fr46_c.py)
    # item 1 near-misses (not the probe's words): the machine it ran on, then an alternative a clause away
    ("probe: It crashes with 8x H100, is it the kernel or should I try the L40S?", [("H100", 8)]),
    ("probe: Is it the NCCL version or the driver on our 2x A100?", [("A100", 2)]),
    # item 2 probes (t5, t4, g15): own cards asked whether they are enough
    ("# NCCL hang with TP=2\n\nvLLM 0.6.3 with --tensor-parallel-size 2 hangs at NCCL init.\n"
     "I'm on 2x RTX 4090 - is that enough for Llama-3-70B in AWQ, or is the hang caused by something else?\n",
     [("RTX 4090", 2)]),
    ("# 显存不足\n\n使用 vLLM 0.6.3 部署 Qwen2-72B-Instruct，--tensor-parallel-size 2，启动时报 CUDA out of memory。\n"
     "目前用两张A100部署72B模型显存够不够？\n", [("A100", 2)]),
    ("我用两张4090跑Qwen-72B-AWQ够吗？", [("4090", 2)]),
    # item 2 near-misses
    ("probe: We're on 4x L4 - would that be enough for a 34B model?", [("L4", 4)]),
    ("probe: We are running on 2x A10G; is that sufficient for Mixtral?", [("A10G", 2)]),
    ("probe: 我们用4张3090跑70B够不够？", [("3090", 4)]),
    # item 7 probes (t3, g4, g14, g7): negated or rhetorical 'enough', and one's own card wondered about
    ("# CUDA out of memory loading Llama-2-13B\n\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate "
     "2.00 GiB\n\nLoading Llama-2-13B in fp16 with vLLM 0.6.3 fails with the error above. Why doesn't the A100 80GB "
     "have enough memory for a 13B model?\n", [("A100 80GB", 0)]),
    ("The H100 80GB should be more than enough for a 7B model, right?", [("H100 80GB", 0)]),
    ("Wondering if the 8x H100 node would hang the same way with NCCL 2.21.", [("H100", 8)]),
    ("Wondering whether the A100 would behave differently with NCCL_P2P_DISABLE=1.", [("A100", 0)]),
    # item 7 near-misses
    ("probe: Isn't 2x A100 enough for a 70B model?", [("A100", 2)]),
    ("probe: Shouldn't the L40S have enough memory for this?", [("L40S", 0)]),
    ("probe: I wonder whether this 4x A6000 box would do better with P2P off.", [("A6000", 4)]),
]

WEIGHED = [
    # near-misses that keep the pass's weighed reading, worded apart from tests/test_xfail46.py
    "probe: Are 4x L40S enough for Llama-3-70B in fp8?",
    "probe: Would 8 A100 be sufficient to fine-tune a 70B model?",
    "probe: For 70B inference, 2x H100 vs 4x A100?",
    "probe: Is one H100 or two A6000 the better buy for serving?",
    "probe: 两张4090还是一张A6000更适合跑34B？",
    "probe: Wondering how 2x L40S would compare to one H100 for serving.",
]


@pytest.mark.parametrize(("text", "gpus"), KEPT)
def test_the_reporters_gpus_are_never_dropped(text, gpus):
    assert _gpus(text) == gpus


@pytest.mark.parametrize("text", WEIGHED)
def test_gpus_weighed_in_the_question_itself_stay_out(text):
    assert _gpus(text) == []


@pytest.mark.parametrize("line", ["A100 or " * 624 + "?", "how many A100 " * 357 + "?",
                                  "hangs on 2x A100 with " * 300 + "?", "is 2x A100 enough " * 300 + "?"])
def test_weighed_is_linear_on_a_long_line(line):
    # probe (timing): rev2 took 2.17 s on the first of these (main 0.019 s); the sentence is now capped at 200
    # characters each side of the GPU, so the cost grows with the line, not with its square
    t = time.perf_counter()
    issue_md._own_gpu(line)
    assert time.perf_counter() - t < 1.0
