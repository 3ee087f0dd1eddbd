"""Issue 11 (session s35, pass normal35): "is this normal?", "doesn't scale" and "slow" tickets a human would answer.

Two general readings, each tested on real first posts (tests/data/normal35, SOURCES.md), written paraphrases and
near-misses:

- "accelerate" the English verb is not Hugging Face Accelerate (diagnose.artifacts.text._accelerate_verb): "can
  accelerate inference" in a vLLM-based server's ticket (imoneoi/openchat#114) had made it a layer split by
  accelerate's device_map, so the answer explained the layers' turn-taking instead of tensor parallelism's all-reduces.
  The library named as a noun ("accelerate 0.30", "import accelerate", "with accelerate the layers ...") still is.
- A comparison of speed said with another word ("does not accelerate", "no speedup", "doesn't scale", "quicker") is a
  question about performance (rules.ticket_rules._about_performance), so the normal? prior answers it instead of
  ticket.nothing_broken's healthy.
"""

from pathlib import Path

import pytest
from conftest import issue_bundle, judged_issue

from diagnose.artifacts.text import engines_named

DATA = Path(__file__).parent / "data" / "normal35"
LAYER_SPLIT_TITLE = "A layer split adds GPUs for memory, not for speed"


def _paste(name: str) -> str:
    return (DATA / name).read_text()


# ----------------------------------------------------------------------------- the verb is not the library


@pytest.mark.parametrize("text", [
    "Reducing max-num-seqs on the 2-GPUs system can accelerate inference, but the 8-GPU one stays slower.",
    "How to accelerate the Qwen-14B model on two GPUs?",
    "Is there a better way to accelerate?",
    "It is slower when I accelerate inference with TP=4.",
    "We can't accelerate it any further with more cards.",
    "Does NVLink accelerate the all-reduce?",
    "Will two GPUs accelerate inference?",
    "NVLink SHARP helps to accelerate AllReduce.",
])
def test_accelerate_the_verb_names_no_engine(text):
    assert "accelerate" not in [e.lower() for e in engines_named(text)]


@pytest.mark.parametrize("text", [
    "Accelerate version: 0.21.0",
    "import accelerate",
    "vllm 0.5, accelerate 0.30",
    "Hugging Face accelerate's default device map puts the layers on both cards.",
    "Is there a way for accelerate to take a target batch size?",
    "With accelerate the layers run one after another on my two GPUs.",
    "Using accelerate, the model is split over the cards.",
    "transformers + accelerate (AutoModelForCausalLM, device_map='auto')",
])
def test_accelerate_the_library_is_still_named(text):
    assert "accelerate" in [e.lower() for e in engines_named(text)]


def test_openchat114_is_answered_with_tensor_parallelism_not_a_layer_split():
    """imoneoi/openchat#114: the maintainer: tensor parallel over 8 GPUs adds communication; run one instance per GPU
    behind a load balancer (expected_physics). 'can accelerate inference' had named Accelerate's layer split."""
    facts = issue_bundle(_paste("openchat114.md"))
    assert not [w for w in facts.records if getattr(w, "framework", None) == "accelerate"]
    verdict, found = judged_issue(_paste("openchat114.md"))
    assert verdict.category == "expected_physics"
    prior = found["ticket.symptom_prior"]
    assert prior.title != LAYER_SPLIT_TITLE and "Tensor parallelism" in prior.title


def test_a_layer_split_by_accelerate_keeps_its_answer():
    """Near-miss: the library named as the loader over two cards is still the layers' turn-taking."""
    text = ("# slower on two GPUs\nI load Llama-2-13B with accelerate device_map=\"auto\" over two RTX 3090 and "
            "generation is slower than on one GPU. Is this normal?")
    verdict, found = judged_issue(text)
    assert verdict.category == "expected_physics" and found["ticket.symptom_prior"].title == LAYER_SPLIT_TITLE


# ----------------------------------------------------------------------------- a comparison said another way


@pytest.mark.parametrize("text", [
    "We run vLLM with tensor-parallel-size 4 on 4x A10G; it does not accelerate inference for a single request "
    "compared to one A10G. Is that normal?",
    "TP=2 on two L40S gives no speedup over one L40S when I chat with Llama-3-8B. Is this normal?",
    "vLLM with TP=4 on 4x A100 does not scale over TP=2 for our 13B model at batch 1, is this expected?",
])
def test_a_speed_comparison_in_other_words_gets_the_physics_prior(text):
    verdict, found = judged_issue(text)
    assert verdict.category == "expected_physics"
    assert found["ticket.symptom_prior"].category == "expected_physics"
    assert found["ticket.symptom_prior"].confidence < 0.6  # the hardware class and the question only: a lead


@pytest.mark.parametrize("text", [
    # a failure, not a speed: the error decides
    "With tensor-parallel-size 2 on two 4090s vLLM crashes with NCCL error: unhandled system error. Is this normal?",
    # a hang, not a speed
    "TP=2 on two RTX 3090 hangs forever at startup with vLLM, it does not scale at all. Is this normal?",
    # 'accelerator' is a device, not a comparison of speed
    "We have 4 NVIDIA accelerators in the box. Is this normal?",
    # a feature's name and an adjective, not a comparison of speed
    "vLLM on 2x L40S shows GPU acceleration enabled in the log. Is this normal?",
    "We plan a large-scale deployment of vLLM on 2x L40S and nvidia-smi shows 90% memory used. Is this normal?",
])
def test_near_misses_are_not_answered_with_physics(text):
    verdict, found = judged_issue(text)
    assert verdict.category != "expected_physics"
    assert "ticket.symptom_prior" not in found or found["ticket.symptom_prior"].category != "expected_physics"


# ----------------------------------------------------------------------------- the real pastes still answered wrong


def test_voxcpm282_software_not_the_board():
    """OpenBMB/VoxCPM#282: the maintainer: this repository's inference is not optimised; use vllm-omni or
    nanovllm-voxcpm (other). Right before and after this pass."""
    verdict, _ = judged_issue(_paste("voxcpm282.md"))
    assert verdict.category == "other"


@pytest.mark.xfail(strict=True, reason="lmstudio-ai/lmstudio-bug-tracker#88 settled host_bound: the GPU offload had "
                   "reset to 28/32 layers (the reporter); the post says the model fits on the GPU, so nothing in it "
                   "points at the CPU share")
def test_lmstudio88_partial_offload():
    verdict, _ = judged_issue(_paste("lmstudio88.md"))
    assert verdict.category == "host_bound"


# collabora/WhisperLive#493 settled other: the default requirements lack Blackwell (sm_120) support (CTranslate2#1933,
# the reporter); since newarch35 the newer architecture behind leads to its build (ticket.newer_arch_behind)
def test_whisperlive493_newer_architecture_unsupported():
    verdict, findings = judged_issue(_paste("whisperlive493.md"))
    assert verdict.category == "other" and "ticket.newer_arch_behind" in findings


@pytest.mark.xfail(strict=True, reason="Ksuriuri/index-tts-vllm#204 settled other: v2 runs the DiT and vLLM stages "
                   "one after another by design (the maintainer), so concurrency cannot overlap them; a three-line "
                   "post in Chinese with no engine, model or figure gives nothing to read that from")
def test_indextts204_serial_pipeline():
    verdict, _ = judged_issue(_paste("indextts204.md"))
    assert verdict.category == "other"
