"""Session s43, fixer A: misfires the 37th session's final read proved (probes /tmp/fr43/<n>.md), each with the
near-misses that must keep the old reading."""

import pytest

from rules import claims
from tests.conftest import judged_issue

OOM = "CUDA error: out of memory"


def _rules(text: str) -> dict:
    return judged_issue(text)[1]


# ----------------------------------------------------------------------- 1. _SAID_BEFORE's "fails/crashes ... with"

@pytest.mark.parametrize("text", [
    # probe (20.md)
    f"# vLLM fails to start after upgrade\n\nWe run vLLM on 4x A100 with TP=4. Before the upgrade it worked, now it "
    f"fails with `{OOM}` during profiling.\n",
    # probe (21.md)
    f"# vLLM fails to start\n\nWe run vLLM on 4x A100 with TP=4. The server does not start and fails with \"{OOM}\" "
    f"during profiling.\n",
    # other past-marks that do not reach the verb
    f"# vLLM fails\n\nvLLM on 4x A100 with TP=4 did not load and crashed with '{OOM}' during profiling.\n",
])
def test_a_failure_now_keeps_its_known_error(text):
    assert "ticket.known_error" in _rules(text)


@pytest.mark.parametrize("before", [
    "TestCafe no longer fails with the `",
    "the kernel used to crash with '",
    "It previously failed with `",
    # the other verbs keep their prefixes
    "Before the upgrade the log said '",
    "the log doesn't show '",
    "it used to print '",
])
def test_a_past_failure_is_still_said_before(before):
    assert claims._SAID_BEFORE.search(before)


@pytest.mark.parametrize("before", [
    "Before the upgrade it worked, now it fails with `",
    "The server does not start and fails with \"",
    "Before the upgrade it worked, now it shows '",
    "It did not load but printed '",
])
def test_a_verb_of_now_is_not_said_before(before):
    assert not claims._SAID_BEFORE.search(before)


# ---------------------------------------------------- 2. _RESOLVED_AFTER's "not shown anymore" of another message

@pytest.mark.parametrize("text", [
    # probe (40.md)
    f"# vLLM OOM at startup\n\nvLLM 0.6.3 on 4x A100 fails with \"{OOM}\" during profiling; the NCCL warning from "
    f"before is not shown anymore.\n",
    # probe (41.md)
    f"# vLLM OOM at startup\n\nvLLM 0.6.3 on 4x A100 fails with \"{OOM}\" during profiling, the flash-attn warning "
    f"does not appear anymore since I upgraded.\n",
])
def test_another_message_gone_keeps_the_error(text):
    assert "ticket.known_error" in _rules(text)


@pytest.mark.parametrize("after", [
    # the message itself, as before
    " doesn't appear anymore after restarting monerod.",
    " is not raised anymore, but ValueError is raised instead",
    ", the error is not shown anymore since I upgraded.",
    " during profiling is not shown anymore",
])
def test_the_message_itself_gone_is_still_resolved(after):
    assert claims._RESOLVED_AFTER.search(after)


@pytest.mark.parametrize("after", [
    " during profiling; the NCCL warning from before is not shown anymore.",
    " during profiling, the flash-attn warning does not appear anymore since I upgraded.",
    " during profiling, a deprecation notice no longer shows up.",
])
def test_another_subject_gone_is_not_resolved(after):
    assert not claims._RESOLVED_AFTER.search(after)


# ------------------------------------------- 3. _OFFLOAD_COUNT_WORDS: a model's depth, a denial after a comma

def _count_words(sentence: str) -> bool:
    return bool(claims._OFFLOAD_COUNT_WORDS.search(sentence))


@pytest.mark.parametrize("text", [
    # probe (24.md)
    "# PyTorch LSTM crash\n\nMy 2 layer LSTM runs on CPU fine, but on the A100 it crashes with CUDA error: an illegal "
    "memory access was encountered.\n",
    # probe (26.md)
    "# llama.cpp slow\n\nllama.cpp on RTX 4090: 33 layers on GPU, none are on CPU. Still only 20 tokens/s for a 7B "
    "model.\n",
    "# llama.cpp slow\n\nllama.cpp on RTX 4090: 33 layers on GPU and none are on CPU. Still only 20 tokens/s for a 7B "
    "model.\n",
])
def test_no_layers_on_the_cpu_is_no_partial_offload(text):
    assert "ticket.partial_offload" not in _rules(text)


@pytest.mark.parametrize("sentence", [
    # ollama/ollama#11162's wording, kept
    "one layer always gets offloaded to CPU despite VRAM still available",
    "8 layers are offloaded to CPU",
    "the last 3 layers run on the CPU",
])
def test_a_count_on_the_cpu_still_reads(sentence):
    assert _count_words(sentence)


@pytest.mark.parametrize("sentence", ["My 2 layer LSTM runs on CPU fine", "a 3 layer MLP is on CPU",
                                      "33 layers on GPU, none are on CPU"])
def test_a_depth_or_a_comma_clause_does_not_read(sentence):
    assert not _count_words(sentence)


# ---------------------------------------------------- 4. _ONLY_LAYERS_ON_GPU: a past state, fixed since

@pytest.mark.parametrize("text", [
    # probe (25.md)
    "# Ollama slow\n\nAfter upgrading Ollama all 43 layers are offloaded to GPU. Before the upgrade only 27 layers "
    "were offloaded to GPU. It is still slow on my RTX 4090, 20 tokens/s.\n",
    "# Ollama slow\n\nWith the old version only 27 layers were offloaded to GPU; now all fit. It is still slow on my "
    "RTX 4090, 20 tokens/s.\n",
])
def test_a_past_placement_is_no_partial_offload(text):
    assert "ticket.partial_offload" not in _rules(text)


@pytest.mark.parametrize("text", [
    # ollama/ollama#5843's wording, kept
    "# Ollama slow\n\nBy default only 27 layers are offloaded on GPU, but I want to offload all 43 layers to GPU. It "
    "is slow on my RTX 4090, 20 tokens/s.\n",
    "# Ollama slow\n\nAfter the upgrade only 27 layers are offloaded to GPU. It is slow on my RTX 4090, 20 tokens/s.\n",
])
def test_a_present_placement_keeps_partial_offload(text):
    assert "ticket.partial_offload" in _rules(text)
