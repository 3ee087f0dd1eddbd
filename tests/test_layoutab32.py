"""Two layouts of one job told apart (pass layoutab32): llama.cpp's short split flag `-sm layer` read as a layer split
(its own README: "-sm, --split-mode {none,layer,row}"), and a layer-split engine run on GPUs said several without a
number read as a split over them. Real kept pastes, paraphrases, and near-misses that must not be read."""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.bundle import read_bundle
from rules import claims
from rules.gpus_in_use import layer_split_over_gpus

DATA = Path(__file__).parent / "data"


def _read(tmp_path: Path, body: str):
    paste = tmp_path / "issue.md"
    paste.write_text("# Generation speed question\n\n" + body + "\n")
    return read_bundle(paste)


def test_short_flag_in_a_real_paste_is_a_layer_split():
    """sudoingX/qwen38-mtp#24 writes the flag in backticks: "`-sm layer` splits layers"."""
    facts = read_bundle(DATA / "ut28b" / "layervstensor24.md")
    assert claims.find(facts, "layer_split")
    assert layer_split_over_gpus(facts)  # 2x RTX 5060 Ti


@pytest.mark.parametrize("body, split", [
    ("I start llama-server with `-sm layer` on my two RTX 3090s.", True),
    ("On two 3090s I run llama-cli --split-mode layer and get 20 tok/s.", True),
    ("Launched with -sm=layer over 2 GPUs.", True),
    # near-misses: the other split modes, and the letters inside another word
    ("On two 3090s I run llama-cli -sm row and get 20 tok/s.", False),
    ("I switched to --split-mode row on both of my two 3090s.", False),
    ("On two GPUs the my-sm layer of paint is dry.", False),
])
def test_split_flag_spellings(tmp_path, body, split):
    assert bool(claims.find(_read(tmp_path, body), "layer_split")) is split


def test_layer_split_engine_on_several_gpus_unnumbered_real_paste():
    """ollama/ollama#1288: "running ollama on a machine with multiple GPUs, inference will be slower than the same
    machine with one gpu" (settled: a layer split runs the GPUs in turn)."""
    facts = read_bundle(DATA / "ut21b" / "ollama1288.md")
    assert layer_split_over_gpus(facts)


@pytest.mark.parametrize("body, split", [
    ("I run ollama on a box with several RTX 3090 cards and one prompt is slower than on my laptop.", True),
    ("koboldcpp spreads the model over multiple GPUs in my rig; is that why it is slow?", True),
    # near-misses: the several GPUs ruled out, one GPU, and no layer-split engine
    ("I run ollama on one RTX 3090. I have not tried multiple GPUs yet.", False),
    ("ollama on my single 4090 gives 40 tok/s, is that normal?", False),
    ("vLLM on a machine with multiple GPUs is slower than I hoped.", False),
])
def test_layer_split_engine_on_gpus_said_several(tmp_path, body, split):
    assert layer_split_over_gpus(_read(tmp_path, body)) is split


def test_ollama_multi_gpu_slower_statement_is_physics():
    """The whole ticket path on ollama#1288: a layer split's turn-taking, not a fault."""
    verdict, found = judged_issue((DATA / "ut21b" / "ollama1288.md").read_text())
    assert verdict.category == "expected_physics"
    assert found["ticket.symptom_prior"].title == "A layer split adds GPUs for memory, not for speed"


# Settled expected_physics layout A/Bs still answered insufficient_data (grouped in the layoutab32 report): the
# thread's answer is known, no general rule reads it yet.
@pytest.mark.parametrize("rel", [
    # a 3090 alone against the 3090 with two 3060s ("If we disable them ... from 48 to 82"): the disabled cards are a
    # pronoun, no engine is named, and the riser said earlier reads as a slot fault that vetoes the scaling answer
    pytest.param("ut26c/ep3_3090_two_3060.md", marks=pytest.mark.xfail(
        strict=True, reason="fewer GPUs faster is not read from 'disable them'; the riser sentence vetoes")),
    # `-sm layer` 22.1 against `-sm tensor` 37.1 tok/s at batch 1: the split is read now, the two modes' rates are not
    pytest.param("ut28b/layervstensor24.md", marks=pytest.mark.xfail(
        strict=True, reason="no rule reads a split-mode table as an A/B of rates")),
    # a 4090 beside a 3090 in a layer split: "the 4090 had low utilization compared to the 3090", no question asked
    pytest.param("ut26c/asym_4090_3090_split.md", marks=pytest.mark.xfail(
        strict=True, reason="low utilisation said of a board by its name is not read (one thread has the wording)")),
])
def test_layout_ab_pastes_left(rel):
    verdict, _ = judged_issue((DATA / rel).read_text())
    assert verdict.category == "expected_physics"
