"""Session s43, fixer A: misfires the 37th session's final read proved (probes /tmp/fr43/<n>.md), each with the
near-misses that must keep the old reading."""

import pytest

from diagnose.artifacts import launch
from diagnose.bundle import read_bundle
from rules import claims, phase_times
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


# ------------------------------------------- 5. phase_times.minutes: a clause on the reporter goes on about the phase

@pytest.mark.parametrize("sentence, phrase, want", [
    # probe (22.md)
    ("The torch.compile step is slow, and I waited 90 minutes before the server was ready.", "torch.compile", 90),
    ("Loading is slow, but we measured 40 minutes for it.", "Loading", 40),
    # a subject of its own still keeps its time out (words43)
    ("loading takes 2 minutes, and the whole benchmark 40 minutes", "loading", 2),
    ("Compiling takes 5 minutes, while my training job runs for 3 hours", "Compiling", 5),
    ("loading the model takes 2 minutes while I run the benchmark for 3 hours", "loading", 2),
])
def test_minutes_keeps_the_reporters_own_clause(sentence, phrase, want):
    at = sentence.index(phrase)
    assert phase_times.minutes(sentence, (at, at + len(phrase))) == want


def test_probe_22_reads_the_phase_past_its_figure(tmp_path):
    issue = tmp_path / "issue.md"
    issue.write_text("# Slow first start\n\nWe serve Llama 70B with vLLM on 8x H100. The torch.compile step is "
                     "slow, and I waited 90 minutes before the server was ready.\n")
    facts = read_bundle([issue])
    row = phase_times.phase_past_documented(facts)
    assert row and row[0]["key"] == "compile_warmup_time"


# ------------------------------------------- 6. launch.WHY_ASKING: "why exactly," closes its clause

@pytest.mark.parametrize("before", ["why ", "Why exactly ", "why, then, ", "why, then ", "why on earth "])
def test_why_asking_still_reads(before):
    # matched against the text before the asking words ("do I need to set", "must we set")
    assert launch.WHY_ASKING.search(before)


@pytest.mark.parametrize("before", ["I do not know why exactly, ", "I don't know why it hangs, ", "why again, "])
def test_a_why_clause_closed_by_a_comma_does_not(before):
    assert not launch.WHY_ASKING.search(before)


def test_probe_70_asks_and_does_not_set():
    _, rules = judged_issue("# vLLM hangs at NCCL init\n\nvLLM with TP=4 on 4x A100 hangs at NCCL init and I do not "
                            "know why exactly, should we set NCCL_P2P_DISABLE=1?\n")
    assert "topology.p2p_forced_off" not in rules
    _, rules = judged_issue("# vLLM needs P2P off\n\nvLLM with TP=4 on 4x A100 hangs at NCCL init. Why exactly do we "
                            "need to set NCCL_P2P_DISABLE=1 for it to work?\n")
    assert "topology.p2p_forced_off" in rules
