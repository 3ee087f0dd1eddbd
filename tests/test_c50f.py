"""A failure alone on unlike GPUs is no pace question (pass c50f).

ticket.mixed_gpus reads a job on unlike GPUs as running at the slowest one's pace (straggler). It answered tickets
with no pace in question: a hang on an RTX 4090 and an RTX 4080 traced to a motherboard (b50d/deepspeed5766,
https://github.com/deepspeedai/DeepSpeed/issues/5766), an out-of-memory on 3090s beside a 3080
(p49h/vllm4998, https://github.com/vllm-project/vllm/issues/4998) and an out-of-memory on a GTX 1080 beside a P100
that ollama 0.1.30 brought and reverting to 0.1.29 cured (c50f/ollama3460,
https://github.com/ollama/ollama/issues/3460). A slower card slows every step; it does not hang a collective, crash
a runner or fill a GPU's memory. rules/ticket_rules.pace_in_question now counts a hang, crash or error only beside a
measured figure, a slowness complaint or a pace claim (claims.PACE_FAMILIES).
"""

import pytest
from conftest import judged_issue, judged_kept_paste


@pytest.mark.parametrize("rel, category", [
    ("b50d/deepspeed5766.md", "insufficient_data"),  # the hang's cause (a motherboard) is not in the post: ask
    ("p49h/vllm4998.md", "insufficient_data"),
    ("c50f/ollama3460.md", "other"),  # the out-of-memory the ticket quotes (ticket.known_error)
])
def test_a_failure_alone_on_unlike_gpus_gets_no_straggler(tmp_path, rel, category):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert "ticket.mixed_gpus" not in found
    assert verdict.category == category


@pytest.mark.parametrize("rel", [
    "b49c/ollama1656.md",            # 3090 alone 81 t/s, with a 2060 31.5 t/s
    "ut15/club3090_766/issue.md",    # 5090 + 3090 Ti at TP=2, 88.6 TPS against 150.9 on two 3090s
    "ut26c/aifred_rtx8000_p40.md",   # a balanced split forces every token through the slower P40
    "symptom34/textgen_5009.md",     # "Performance Degradation in tensor_split with Multiple GPUs"
    "para38/h007-textgen-tp-3090-4060ti-4x-slower/a.md",
    "para37c/h008-nitro-3gpu-mixed-4070ti-1660ti-slow/a.md",  # slow and a load error: the pace is asked
])
def test_a_pace_on_unlike_gpus_keeps_the_straggler(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "straggler"
    assert verdict.summary.startswith(found["ticket.mixed_gpus"].title)


INVENTORY = "\n\nGPUs:\n- GPU 0: NVIDIA GeForce RTX 3090\n- GPU 1: NVIDIA GeForce RTX 3060\n"


def _mixed(text: str) -> bool:
    return "ticket.mixed_gpus" in judged_issue(text + INVENTORY)[1]


@pytest.mark.parametrize("text", [
    "# Hang at startup\n\nI run vllm serve with --tensor-parallel-size 2 on my two GPUs. It hangs at NCCL init.",
    "# OOM\n\nllama-server crashes with CUDA error: out of memory when the model loads on both GPUs.",
    "# Crash\n\nWith both GPUs enabled the llama runner process has terminated: CUDA error.",
    # negation: the pace is denied
    "# Hang\n\nI run vllm serve with --tensor-parallel-size 2 on my two GPUs. It is not slow; it hangs at NCCL init.",
])
def test_no_pace_reading_for_a_failure_alone(text):
    assert not _mixed(text)


@pytest.mark.parametrize("text", [
    # a failure beside a slowness complaint
    "# Hang\n\nI run vllm serve with --tensor-parallel-size 2 on my two GPUs. Generation is very slow and sometimes "
    "it hangs.",
    # a failure beside a measured figure
    "# Crash\n\nI run vllm serve with --tensor-parallel-size 2 on my two GPUs. Decode runs at 12 tokens/s and then it "
    "crashes with an error.",
    # the pace asked as a question beside the failure
    "# Question\n\nWill the 3060 slow down the 3090 if I use both with --tensor-parallel-size 2? Right now it crashes "
    "with an error at load.",
    # (r50d) a rate asked beside a crash that keeps the reporter from measuring it
    "# P40 + 3090\n\nHow many tokens/s should I expect from the 3090 and the P40 together with llama.cpp? Right now it "
    "crashes at load, so I cannot measure.\n\nGPUs:\n- GPU 0: NVIDIA GeForce RTX 3090\n- GPU 1: NVIDIA Tesla P40\n",
    # no failure: the pace alone
    "# Slow\n\nI run vllm serve with --tensor-parallel-size 2 on my two GPUs. Generation is much slower than on the "
    "3090 alone.",
])
def test_the_pace_reading_stays_where_a_pace_is_in_question(text):
    assert _mixed(text)
