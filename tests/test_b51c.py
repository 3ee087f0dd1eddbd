"""Blind batch b51c (cloud and managed multi-GPU LLM serving; tests/data/b51c/SOURCES.md). The one mechanism found in
three separate threads: the tensor-parallel size the reporter configured never reached the engine, because the layer
that deploys it dropped, ignored or misread the setting ("sglang offical --tp not effect in gpustack",
gpustack/gpustack#5966; "Docker Model Runner vLLM ignores tensor parallel config and starts with world_size=1",
vllm-project/vllm#36772; "the `--tensor-parallel-size` is not configured correctly", llmos-ai/llmos#40). It was read as
nothing (insufficient_data), as healthy (ticket.nothing_broken) or only through its out-of-memory consequence; it is
now read as itself (ticket.tp_setting_dropped, other).
"""

import pytest
from conftest import issue_bundle, judged_kept_paste

from rules import claims


@pytest.mark.parametrize("rel", [
    "b51c/llmos40.md",     # the platform does not pass --tensor-parallel-size (fixed in LLMOS v0.3.0)
    "b50c/gpustack5966.md",  # GPUStack read only --tp-size, not SGLang's --tp (fixed)
    "ut16/vllm36772.md",   # Docker Model Runner starts vLLM with world_size=1 whatever the config says
])
def test_a_tp_setting_that_did_not_take_is_the_deploy_layers_fault(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "other"
    assert found["ticket.tp_setting_dropped"].category == "other"
    assert "does not reach the engine" in found["ticket.tp_setting_dropped"].title


def _dropped(text: str):
    return claims.tp_setting_dropped(issue_bundle(text))


@pytest.mark.parametrize("text", [
    "# vLLM on the platform\n\nThe platform ignores the tensor parallel size and starts vLLM with world_size=1.\n",
    "# chart\n\nThe --tp-size value is not passed on by the operator, so SGLang comes up on one GPU.\n",
    "# chart\n\nThe tensor parallel size doesn't take effect: vLLM logs tensor_parallel_size=1.\n",
    # a past tense still wrong after the change ("even after", "still"): not cured
    "# chart\n\nThe --tp-size was not applied by the operator even after upgrading to 0.5.\n",
    "# chart\n\nThe tensor parallel size was not applied by the chart; after upgrading it is still ignored.\n",
])
def test_the_dropped_setting_is_read_in_other_words(text):
    assert _dropped(text) is not None


@pytest.mark.parametrize("text", [
    # the reporter's own omission: nothing was dropped
    "# vLLM on two GPUs\n\nI did not set the tensor parallel size, so vLLM uses one GPU.\n",
    # asked, not stated
    "# question\n\nIs the tensor-parallel-size not applied by the chart?\n",
    # a warning ignored, not a setting
    "# tp\n\nI ignored the tensor parallel warning and it runs fine.\n",
    # someone else's system
    "# tp\n\nSomeone on the forum said their --tp was not applied by the operator.\n",
    # a past state, fixed now
    "# tp\n\nBefore the upgrade the tensor-parallel-size was not configured, but now it works.\n",
    # a condition, not an observation
    "# tp\n\nIf the tensor-parallel-size is not passed, vLLM uses one GPU.\n",
])
def test_near_misses_are_not_read_as_a_dropped_setting(text):
    assert _dropped(text) is None


# (r51b) the read-only review's probes, their exact text: each was read as a dropped setting before the reading named
# the setting as the engines do (a flag, or the size/config of tensor parallelism), dropped "effective", and read a
# dropped setting dated to a day gone or cured later in the sentence as over
@pytest.mark.parametrize("text", [
    # tp_eff6: tensor parallelism that ran but did not speed up (performance, not a setting)
    '# Is TP=2 slower than one GPU expected on PCIe?\n\nTensor parallelism is not effective on our two '
    'RTX 4090 cards without NVLink. Is this expected?\n',
    # tp_eff8: TP not effective: the speed-up, with the size taken
    '# Tensor parallel not effective\n\nTP not effective. 2x A6000 with vLLM, tensor-parallel-size=2 '
    'gets 1.1x the throughput of one A6000.\n',
    # tp_eff5: the speed-up again, TP=2 and TP=1 measured
    '# 2x L4 TP=2 same speed as TP=1\n\nTensor parallel is not effective for decode on 2x L4 (PCIe). '
    'TP=2 and TP=1 both give 22 tok/s at batch 1 for Llama-3-8B in vLLM.\n',
    # tp_not_effective: the speed-up again, --tensor-parallel-size 4 measured
    '# Tensor parallelism is not effective on PCIe 4090s\n\nTensor parallelism is not effective on our '
    '4x RTX 4090 (PCIe, no NVLink): vLLM with --tensor-parallel-size 4 gives 1.2x the tokens/s of TP=1 '
    'for Llama-3-8B.\n',
    # tp_fixed2: dropped yesterday, fixed now
    '# nvidia-smi shows both GPUs fine\n\nYesterday the tensor parallel size was not applied by the '
    'Helm chart; I fixed the values.yaml and now vLLM starts with tensor_parallel_size=2 and both GPUs '
    'are used. Everything works now, thanks.\n',
    # tp_past_itwas: dropped last week, fixed; the question is PCIe scaling now
    '# TP slow on 2 GPUs\n\nLast week the tensor parallel size was not applied by our chart (fixed). '
    'Now vLLM runs TP=2 on 2x A10G and decode is 20 tok/s vs 25 tok/s at TP=1.\n',
    # tp_fixed_gone: dropped by an old release, gone after the upgrade
    '# Throughput low on 2x A100 with gpustack\n\nThe --tp flag was not respected by gpustack 0.4; '
    'after upgrading to 0.5 that is gone and SGLang uses both GPUs, but throughput is only 1.3x of a '
    'single GPU. The A100s are PCIe.\n',
    # tp_amp: the reporter's own mistake, resolved
    '# TP not in effect question\n\nTP was not in effect because I had used CUDA_VISIBLE_DEVICES=0 by '
    'mistake; after removing it vLLM uses both GPUs and runs fine.\n',
    # tp_not_configured: the reporter's own choice: one GPU
    '# Llama-3-8B slow on one A100\n\nTensor parallelism is not configured (single GPU); vLLM serves '
    'Llama-3-8B on one A100 80GB at 30 tok/s for batch 1. Is that expected?\n',
    # tp_ignoring: the reporter's own choice: tensor parallelism left aside
    '# Single GPU throughput question\n\nIgnoring tensor parallelism for now, vLLM on one H100 gives '
    '2,000 tokens/s for Llama-3-8B at batch 64. Is that expected?\n',
])
def test_the_reviews_probes_are_not_read_as_a_dropped_setting(text):
    assert _dropped(text) is None


@pytest.mark.parametrize("rel", [
    # b51c threads whose verdicts the reading must leave alone (right before, right after)
    "b51c/prodstack95.md", "b51c/skypilot2955.md", "b51c/tgi866.md",
])
def test_the_batchs_right_answers_stay(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category in ("shm_too_small", "other")
    assert "ticket.tp_setting_dropped" not in found or found["ticket.tp_setting_dropped"].confidence == 0
