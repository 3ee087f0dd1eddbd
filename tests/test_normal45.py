"""Issue 11 (session s45, pass normal45): multi-GPU figures whose settled answer is expected_physics.

Real first posts (tests/data/normal45, SOURCES.md). Both were already judged expected_physics before this pass; one for
the wrong reason:

- NVIDIA/Megatron-LM#2662 asks "In what cases will tp_comm_overlap accelerate training" about a TP8 job on 8 x H20.
  The verb "accelerate" before "training" was read as Hugging Face Accelerate, so the job became a layer split by
  Accelerate's device_map and the answer explained the layers' turn-taking, not a tensor-parallel job's all-reduces.
  diagnose.artifacts.text._accelerate_verb now takes "training" / "fine-tuning" as the work the verb speeds (as it
  took "inference" since normal35), but not the library's own "training script", "training mode", "training job".
- predibase/lorax#116 (Mistral-7B sharded over 4 GPUs, 1.5 s -> 2.4 s) stays expected_physics: a regression guard.

Probes are labelled; the near-misses name the library and must keep naming it.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts.text import engines_named

DATA = Path(__file__).parent / "data" / "normal45"
LAYER_SPLIT_TITLE = "A layer split adds GPUs for memory, not for speed"


def _paste(name: str) -> str:
    return (DATA / name).read_text()


# ----------------------------------------------------------------------------- the real first posts

def test_megatron_tp_comm_overlap_is_physics_not_a_layer_split():
    verdict, found = judged_issue(_paste("megatron2662.md"))
    assert verdict.category == "expected_physics"
    assert all(f.title != LAYER_SPLIT_TITLE for f in found.values())


def test_megatron_names_no_accelerate():
    assert "accelerate" not in [e.lower() for e in engines_named(_paste("megatron2662.md"))]


def test_lorax_sharded_small_model_is_physics():
    verdict, _ = judged_issue(_paste("lorax116.md"))
    assert verdict.category == "expected_physics"


# ----------------------------------------------------------------------------- the reading (real sentences and probes)

@pytest.mark.parametrize("text", [
    # real sentences (public docs and code comments found by find_string "accelerate training", SOURCES.md)
    "Large batch sizes can accelerate training but may result in less stable gradients",
    "Pretrained features accelerate training",
    "Scaling is helpful to accelerate training (LeCun et al., 2012).",
    # probes
    "Does NVLink accelerate training on two GPUs?",
    "tp_comm_overlap does not accelerate fine-tuning here.",
    "Why doesn't TP=4 accelerate training compared to TP=2?",
])
def test_accelerate_training_the_verb(text):
    assert "accelerate" not in [e.lower() for e in engines_named(text)]


@pytest.mark.parametrize("text", [
    # real sentences: the library's own training script and mode (find_string "accelerate training script",
    # "using accelerate training")
    "Running accelerate training script...",
    "Using accelerate training mode...",
    "# SageMaker Accelerate Training Script",
    # probes: the library before the word, or its own runs and jobs
    "with accelerate training is slow on 2 GPUs",
    "accelerate training runs slow on 2 GPUs",
    "I use accelerate training with device_map auto",
    "Does accelerate support fine-tuning?",
])
def test_accelerate_training_the_library(text):
    assert "accelerate" in [e.lower() for e in engines_named(text)]
