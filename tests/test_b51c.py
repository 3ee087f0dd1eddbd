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


# (r51e) the second read-only review's probes, their exact text: each was read as a dropped setting before the reading
# dated "at first" anywhere in the sentence, read a cure by adding or setting it and in the next sentence, left out a
# part of the model the setting does not cover ("not applied to the draft model"), a guess, a setting ruled out, the
# reporter's own config ("in my docker run command", "not configured yet in our manifest") and a warning about it
@pytest.mark.parametrize("text", [
    # c_added: the reporter's own launch script, at first; cured by adding the flag
    '# vLLM TP=2 on 2x L40S barely faster\n\nThe --tensor-parallel-size flag was not passed in my launch script at '
    'first; after adding it vLLM uses both L40S GPUs, but decode is only 1.15x faster than one GPU (PCIe). Is that '
    'expected?\n',
    # c_nextsent_fixed: cured in the next sentence
    '# Throughput on 2x A100 PCIe with gpustack\n\nThe --tp flag was not respected by gpustack 0.4. Upgrading to 0.5 '
    'fixed it. Now SGLang runs on both A100s (PCIe, no NVLink), but throughput is only 1.3x of a single GPU. Is that '
    'expected?\n',
    # c_vision: a part of the model the setting does not cover
    '# Qwen2-VL-72B TP=4 on 4x H100\n\nThe tensor-parallel size is not applied to the vision encoder in vLLM: it is '
    'replicated on every GPU. Image prefill is the same at TP=4 as at TP=2 on H100 SXM, text decode scales 1.6x. Is '
    'that expected?\n',
    # c_draft: the speculative draft model runs at its own TP
    '# Speculative decoding on 4x A100\n\nIn vLLM the tensor parallel size is not applied to the draft model, which '
    'always runs with TP=1. The main model with TP=4 on 4x A100 SXM gives 40 tok/s with the draft, 30 without. Is '
    'that normal?\n',
    # c_suspect: a guess
    '# 2x L4 TP=2 barely faster\n\nI suspect the --tensor-parallel-size is not passed through by our Helm chart, but '
    'I cannot tell. TP=2 on 2x L4 decodes Llama-3-8B only 1.1x faster than TP=1 in vLLM, both GPUs busy.\n',
    # c_ruledout: the reporter rules it out
    '# SGLang TP=2 only 1.1x faster on 2x RTX 4090\n\nIt is not a case of the --tp-size not being applied: the SGLang '
    'log shows tp_size=2 and both RTX 4090s are at 100%. Still, TP=2 decodes Llama-3-8B at only 1.1x the speed of one '
    'GPU (PCIe, no NVLink). Is that expected?\n',
    # c_passive_own: the reporter's own docker run command
    '# vLLM uses only one GPU\n\nThe tensor parallel size is not configured in my docker run command, so vLLM starts '
    'on one of my 4 A10G GPUs. How do I make it use all four?\n',
    # c_codeblock_prose: vLLM's own warning about the draft model, told as prose
    '# vLLM 4x A100 70B decode\n\nvLLM prints at start-up: WARNING tensor_parallel_size is not applied to the '
    'speculative draft model; it runs with tp=1. INFO tensor_parallel_size=4 world_size=4. Llama-2-70B decode on 4x '
    'A100 SXM is 40 tok/s. Normal?\n',
    # c_deprec: a warning about the setting ignored
    '# SGLang TP=2 on 2x A100 PCIe 1.3x\n\nIgnoring the tp_size deprecation warning, SGLang with --tp 2 on 2x A100 '
    'PCIe (no NVLink) decodes Llama-3-8B 1.3x faster than one GPU. Is that expected?\n',
    # c_notyet: not yet done in the reporter's own manifest
    '# vLLM TP=4 on 4x A10G\n\nThe tensor-parallel-size is not configured yet in our Kubernetes manifest, we are '
    'testing with TP=1 first: Llama-3-8B on one A10G decodes 28 tok/s at batch 1. Is that normal?\n',
])
def test_the_second_reviews_probes_are_not_read_as_a_dropped_setting(text):
    assert _dropped(text) is None


@pytest.mark.parametrize("text", [
    # c_fn_fixedat1: a value "fixed at 1" in the chart is the fault, not its cure
    "# vLLM on our platform uses one GPU of 4\n\nThe --tensor-parallel-size is not passed on by the platform's chart: "
    "it is fixed at 1 in the template, so vLLM starts with world_size=1 on our 4x A10G and Llama-3-70B-AWQ runs out of "
    "memory.\n",
    # c_fn_wesee: the reporter saw it dropped, did not drop it
    '# gpustack SGLang on fewer cards\n\nWe see --tp is not respected by gpustack 2.2: SGLang starts on 1 of our 4 H20 '
    'cards whatever --tp says.\n',
])
def test_the_second_reviews_missed_drops_are_read(text):
    assert _dropped(text) is not None
