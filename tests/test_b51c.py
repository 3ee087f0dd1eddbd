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


@pytest.mark.parametrize("rel", [
    # b51c threads whose verdicts the reading must leave alone (right before, right after)
    "b51c/prodstack95.md", "b51c/skypilot2955.md", "b51c/tgi866.md",
])
def test_the_batchs_right_answers_stay(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category in ("shm_too_small", "other")
    assert "ticket.tp_setting_dropped" not in found or found["ticket.tp_setting_dropped"].confidence == 0
