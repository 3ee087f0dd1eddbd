"""GPUs of different memory sizes in one tensor-parallel job run out of memory on the smaller one (pass p49h).

Tensor parallelism gives every rank an equal shard of the weights and of the KV cache (vLLM: `dim // tp_size`,
"vLLM generally assumes that all the devices available are the same", vllm-project/vllm#9157; #10204: "3080 and 3090
have different VRAM, so using tensor parallel will cause OOM on 3080 ... try pipeline parallel"), so the group holds
no more than its smallest GPU times its size. Three separate threads (tests/data/b49d and p49h SOURCES.md):
sglang227 (24 GB + 8 GB, --tp 2, the debug log's out-of-memory on the small GPU), vllm2317 (3090 + 3070, OOM on the
smaller one), vllm4998 (3090s beside a 3080, OOM). Before: straggler from ticket.mixed_gpus (a pace the reporters
never asked about) or insufficient_data (a hang lead); after: ticket.unequal_memory_oom with the layer-split fix.
After review (r49c) the rule needs one tensor-parallel job of a stated size (not replicas, separate servers or a
split whose shares the reporter set) and an out-of-memory that still happens (not feared, past or gone): vllm4998
states no layout, so it is left to the pace reading again.
"""

import pytest
from conftest import judged_issue, judged_kept_paste


@pytest.mark.parametrize("rel", [
    "b49d/sglang227.md", "p49h/vllm2317.md",
    pytest.param("p49h/vllm4998.md", marks=pytest.mark.xfail(
        strict=True, reason="8 GPUs over two nodes with no TP size stated: since r49c the rule needs a stated "
                            "tensor-parallel job; since c50f no pace reading answers an out-of-memory alone either "
                            "(insufficient_data)")),
])
def test_smaller_gpu_out_of_memory_is_the_answer(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "other"
    assert verdict.summary.startswith(found["ticket.unequal_memory_oom"].title)
    assert "pipeline-parallel" in found["ticket.unequal_memory_oom"].fix
    assert "ticket.mixed_gpus" not in found  # no pace where the smaller card's memory failed


def _fires(text: str) -> bool:
    return "ticket.unequal_memory_oom" in judged_issue(text)[1]


@pytest.mark.parametrize("text", [
    # sizes from the catalog: a 24 GB 3090 beside a 10 GB 3080
    "# OOM with tp 2\n\nI combine an RTX 3090 and an RTX 3080 with vllm serve --tensor-parallel-size 2. "
    "It fails with CUDA out of memory during the KV cache allocation.",
    # sizes in words, the error hyphenated
    "# Two cards\n\nMy server has GPUs of different VRAM sizes and sglang --tp 2 dies with an out-of-memory error.",
])
def test_reads_unequal_memory_with_an_out_of_memory(text):
    assert _fires(text)


@pytest.mark.parametrize("text", [
    # negation: the sizes are said equal
    "# OOM with tp 2\n\nThese are not GPUs of different sizes, both have 24 GB. vllm with --tensor-parallel-size 2 "
    "fails with CUDA out of memory.",
    # a question: the out-of-memory is asked about, not seen
    "# Planning\n\nI have GPUs of different VRAM sizes. Would the smaller one run out of memory with tp 2?",
    # the same words about a different thing: memory use that differs, not boards of different sizes
    "# Imbalance\n\nThe two GPUs show different memory usage with tp 2 and then CUDA out of memory.",
    # one board: no unequal sizes, the out-of-memory is the generic error's
    "# OOM\n\nTwo RTX 3090 with --tensor-parallel-size 2 give CUDA out of memory.",
    # two cuts of one board, within the margin (80 GB and 94 GB H100)
    "# OOM\n\nAn H100 SXM and an H100 NVL with --tensor-parallel-size 2 give CUDA out of memory.",
    # another person's system
    "# OOM\n\nSomeone else's server has GPUs of different VRAM sizes. Mine are two 3090s and vllm with tp 2 gives "
    "CUDA out of memory.",
    # a past state
    "# Slow now\n\nI used to have GPUs of different sizes and hit CUDA out of memory with tp 2; now both are 3090s "
    "and it runs, but slowly at 10 tok/s.",
    # unequal boards, but nothing ran out of memory: the pace question stays ticket.mixed_gpus'
    "# Slow\n\nI combine an RTX 3090 and an RTX 3070 with vllm --tensor-parallel-size 2 and get only 20 tok/s, "
    "too slow.",
])
def test_does_not_fire_on_near_misses(text):
    assert not _fires(text)


def test_unequal_boards_without_memory_failure_keep_the_pace_reading():
    _, found = judged_issue("# Slow\n\nI combine an RTX 3090 and an RTX 3070 with vllm --tensor-parallel-size 2 "
                            "and get only 20 tok/s, too slow.")
    assert "ticket.mixed_gpus" in found


_PAIR = "- GPU 0: NVIDIA GeForce RTX 3090\n- GPU 1: NVIDIA GeForce RTX 3070\n\n"


@pytest.mark.parametrize("text", [
    # (r49c) an out-of-memory gone, of the past, or feared before a run
    _PAIR + "With vllm --tensor-parallel-size 2 the out of memory error is gone after lowering max-model-len. Now it "
    "runs but only 12 tok/s, which is too slow.",
    _PAIR + "Last week I got CUDA out of memory with vllm --tensor-parallel-size 2; I fixed it. Now generation is "
    "slow.",
    _PAIR + "I have not run it yet, but I am worried about out of memory on the 3070 with vllm "
    "--tensor-parallel-size 2.",
    # not one TP job: replicas, separate servers, shares the reporter set
    "- GPU 0: NVIDIA A100-SXM4-80GB\n- GPU 1: NVIDIA A10\n\nsglang --dp-size 2, one full replica per GPU. The "
    "replica on the A10 dies with torch.OutOfMemoryError: CUDA out of memory.",
    _PAIR + "I run two separate ollama servers, one pinned to each GPU with CUDA_VISIBLE_DEVICES. The one on GPU 1 "
    "fails with CUDA out of memory when loading llama3 8B fp16.",
    _PAIR + "llama.cpp with --tensor-split 24,8 gives CUDA out of memory on GPU 0 when I set -c 32768.",
    # what differs in memory is no GPU
    "# OOM\n\nThe two models need different amounts of memory, and vllm --tensor-parallel-size 2 on my GPUs fails "
    "with CUDA out of memory.",
    "# OOM\n\nOur two hosts have different amounts of memory (64 GB and 256 GB RAM); vllm --tensor-parallel-size 2 "
    "on the GPUs fails with CUDA out of memory.",
])
def test_no_unequal_memory_oom_where_it_is_not_one_tp_job_failing_now(text):
    assert not _fires(text)


@pytest.mark.parametrize("text", [
    # (r49d) the pace complained of, the out-of-memory a setting already worked around
    "I run vLLM with --tensor-parallel-size 2 on an RTX 3090 and an RTX 3070. Generation is slow, only 12 tokens/s, "
    "much slower than expected. With --max-model-len 32768 it runs out of memory, so I use 8192.",
    # what differs is the memory's speed or another process's allocation, not its size
    "I run vLLM with --tensor-parallel-size 2 on two GPUs. The GPUs have different memory speeds (GDDR6 vs GDDR6X), "
    "both 24 GB. It fails with CUDA out of memory.",
    "I run vLLM with --tensor-parallel-size 2 on two GPUs with different memory allocated by another process. It "
    "fails with CUDA out of memory.",
])
def test_no_unequal_memory_oom_for_a_pace_or_a_memory_that_is_no_size(text):
    assert not _fires("# TP=2\n\n" + text)
