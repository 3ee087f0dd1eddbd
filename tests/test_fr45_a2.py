"""Session s45, fixer A2 of the final read (fr45): misfires a reviewer proved with probes (/tmp/fr45a), each fixed in
its general mechanism. Probes are the reviewer's or the writer's short sentences, labelled probe; near-misses keep the
old reading; real sentences are labelled with their source."""

import pytest
from conftest import issue_bundle as _facts
from conftest import judged_issue

from diagnose.artifacts import issue_md, launch
from diagnose.artifacts.text import engines_named
from diagnose.evidence import Facts, Measurement, Note, Workload
from rules import common, failure_words, gpus_in_use


def _failed(text: str) -> str | None:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return failure_words.failure_said(facts)


# ------------------------------------------- 3. "-sm none" asked about, advised or working is not the run's layout

TWO_BOARDS = "# llama-server slow on 2x RTX 3090\n\nI have 2x RTX 3090. "


@pytest.mark.parametrize("text", [
    # probe (/tmp/fr45a/10.md): the launch line spreads over both GPUs; -sm none only asked about
    "# llama.cpp slow on 2x RTX 3090\n\n```\nllama-server -m Llama-3-70B-Q4_K_M.gguf -ngl 99 -ts 1,1\n```\n\n"
    "I get 8 tok/s generation and each GPU sits at about 50% utilisation. Would `--split-mode none` be faster?\n",
    TWO_BOARDS + "I run the model on both. Would `--split-mode none` be faster?\n",  # probe: a question
    TWO_BOARDS + "I run the model on both. Is `-sm none` better here?\n",  # probe: a question weighing it
    TWO_BOARDS + "I run the model on both. Someone suggested -sm none.\n",  # probe: advice
    TWO_BOARDS + "I run the model on both. Should I try -sm none?\n",  # probe: advice asked
    TWO_BOARDS + "I run the model on both. If I use -sm none the model does not fit.\n",  # probe: a condition
    # probe (the reviewer's suspected case): the none run is the working one, set against the failing one
    TWO_BOARDS + "With --split-mode none on one card it works; over both cards the output is garbage.\n",
    TWO_BOARDS + "With -sm none on one card it works fine, but over both GPUs it is slow.\n",  # probe
    # probe: a launch line over both GPUs wins over prose that names the none split
    TWO_BOARDS + "\n```\n./llama-server -m model.gguf -ngl 99 -ts 1,1\n```\n\nI read about -sm none in the README.\n",
])
def test_split_mode_none_not_run_keeps_the_gpus(text):
    facts = _facts(text + "\nI get 8 tok/s.\n")
    assert common.gpu_count(facts) == 2
    assert not any(w.extra.get("split_mode") == "none" or w.extra.get("job_gpus") == 1 for w in facts.of(Workload))
    assert gpus_in_use.layer_split_over_gpus(facts)


@pytest.mark.parametrize("run", [
    "I run llama-server with --split-mode none.\n",  # near-miss: stated
    "I run llama-server with -sm none. Is this normal?\n",  # near-miss: a question about the run itself
    "Why is llama-server so slow with -sm none?\n",  # near-miss: a question about the run itself
    "I tried -sm none and it is still slow.\n",  # near-miss: tried, the run
    "I run:\n\n```\n./llama-server -m model.gguf -ngl 99 -sm none -ts 1,1\n```\n",  # near-miss: none on the launch line
])
def test_split_mode_none_run_is_one_gpu(run):
    facts = _facts(TWO_BOARDS + run + "\nI get 30 tok/s.\n")
    assert common.gpu_count(facts) == 1
    assert not gpus_in_use.layer_split_over_gpus(facts)


def test_none_split_lines():
    assert issue_md._none_split([(1, "Would `--split-mode none` be faster?")]) is None  # probe
    assert issue_md._none_split([(1, "You could try -sm none.")]) is None  # probe
    assert issue_md._none_split([(1, "We run -sm none on one card and it works fine.")]) == 1  # near-miss: no contrast
    assert issue_md._none_split([(1, "llama-server -m x.gguf -ngl 99 -ts 1,1"), (2, "I use -sm none.")]) is None
    assert issue_md._none_split([(1, "llama-server -m x.gguf -ngl 99 -ts 1,0"), (2, "I use -sm none.")]) == 2


# ------------------------------------------------- 4. "can sometimes produce garbage" is the reporter's output seen

@pytest.mark.parametrize("text", [
    "Also the model can sometimes produce garbage output after ~2k tokens.",  # probe (/tmp/fr45a/6.md)
    "The model can randomly output gibberish mid-answer, about 1 in 20 requests.",  # probe
    "The AWQ model can also return gibberish when batch > 32.",  # probe
    "It can occasionally return garbage after a long prompt.",  # probe
])
def test_bad_output_now_and_then_is_seen(text):
    assert _failed(text)


@pytest.mark.parametrize("text", [
    "The model can produce garbage.",  # near-miss: a capability (past45)
    "Memory is disabled by default because the summarizer can produce garbage summaries.",  # id 49228696026
    "Path 2 is the silent out-of-bounds read that can produce garbage seed positions without crashing.",
    # (find_string id 59312280457)
    "It could sometimes produce garbage.",  # near-miss: "could" supposes
    "It might also return gibberish.",  # near-miss (words44)
    "This can potentially return garbage.",  # near-miss: "potentially" keeps the capability
])
def test_bad_output_that_can_happen_stays_set_aside(text):
    assert _failed(text) is None


# ------------------------------------------------------------ 7. people counted are the reporter's load, not a source

@pytest.mark.parametrize("text", [
    "When 20 people hit the endpoint at the same time we only get 150 tokens/s in total with Llama-3.1-70B, TP=2.",
    # probe (/tmp/fr45a/7.md)
    "When many people hit the server we get 150 tokens/s in total.",  # probe: the verb's object is no figure
    "We serve 100 people and get 20 tok/s.",  # near-miss (figures45)
])
def test_own_users_are_no_reference(text):
    assert not issue_md.REFERENCE_FIGURE.search(text)


@pytest.mark.parametrize("text", [
    "I noticed someone was able to achieve over 900 tokens/s throughput using vLLM 0.8.5 on 8×A800",
    # (vllm-project/vllm#20890)
    "People get 900 tok/s on this setup.",  # near-miss: the figure is the object
    "Someone got about 60 tok/s with TP=2.",  # near-miss
    "Other users see ~40 tok/s.",  # near-miss
    "others get ",  # near-miss: the words before a relative figure ("others get 3x the throughput")
])
def test_others_figures_stay_references(text):
    assert issue_md.REFERENCE_FIGURE.search(text)


def test_own_users_figure_is_measured():
    facts = _facts("# vLLM throughput on 2x A100 80GB\n\nWhen 20 people hit the endpoint at the same time we only "
                   "get 150 tokens/s in total with Llama-3.1-70B, TP=2.\nThat seems very slow for two A100s.\n")
    assert [(m.metric, m.value) for m in facts.of(Measurement)] == [("output_tok_s", 150.0)]


# ----------------------------------------------- 8. "accelerate training" after a possessive or adjective: the library

@pytest.mark.parametrize("text", [
    "Our accelerate training on 8x H100 hangs after the first step.",  # probe
    "HF accelerate training with device_map=auto is slow",  # probe
    "Slow accelerate fine-tuning with FSDP",  # probe
    "Our accelerate training of a 7B model only reaches 1.2 it/s",  # probe (/tmp/fr45a/13.md)
    "Why does our accelerate training hang?",  # probe: an auxiliary, but the possessive right before
    "My multi-GPU accelerate training is slow",  # probe
    "accelerate training runs slow on 2 GPUs",  # near-miss (normal45)
])
def test_accelerate_training_modified_is_the_library(text):
    assert "accelerate" in [e.lower() for e in engines_named(text)]


@pytest.mark.parametrize("text", [
    "In what cases will tp_comm_overlap accelerate training",  # NVIDIA/Megatron-LM#2662 (normal45)
    "Pretrained features accelerate training",  # normal45
    "Large batch sizes can accelerate training but may result in less stable gradients",  # normal45
    "Does NVLink accelerate training on two GPUs?",  # normal45
    "Why doesn't TP=4 accelerate training compared to TP=2?",  # normal45
    "Does it accelerate training?",  # probe
    "tp_comm_overlap accelerate training here",  # probe: a name in code as the subject
])
def test_accelerate_training_with_a_subject_is_the_verb(text):
    assert "accelerate" not in [e.lower() for e in engines_named(text)]


# ------------------------------------------------- 9. "We use this:" introduces a command, not the setting advised

def _off(text: str) -> bool:
    at = text.index("NCCL_P2P_DISABLE=1")
    return launch.setting_off(text, at, at + len("NCCL_P2P_DISABLE=1"))


@pytest.mark.parametrize("text", [
    "The NCCL docs say you can set NCCL_P2P_DISABLE=1 on consumer cards. We use this:\n```",  # probe (11.md)
    "You can set NCCL_P2P_DISABLE=1. We use that: torchrun --nproc_per_node 4 train.py",  # probe
])
def test_this_before_a_colon_is_no_advice_taken(text):
    assert _off(text)


@pytest.mark.parametrize("text", [
    "You can set NCCL_P2P_DISABLE=1. We run with it as suggested.",  # near-miss (past45)
    "You can set NCCL_P2P_DISABLE=1. We use it: it helps.",  # near-miss: "it" before the colon points back
    "You can set NCCL_P2P_DISABLE=1. We use this, and it still hangs.",  # near-miss
])
def test_advice_taken_stays_in_use(text):
    assert not _off(text)


def test_hang_with_advice_only_has_no_p2p_forced_off():
    _, found = judged_issue("# DDP hangs at the first allreduce on 4x RTX 4090\n\nThe NCCL docs say you can set "
                   "NCCL_P2P_DISABLE=1 on consumer cards. We use this:\n\n```\ntorchrun --nproc_per_node 4 train.py\n"
                   "```\n\nIt hangs at the first allreduce every time. NCCL 2.21.5, driver 550.\n")
    assert "topology.p2p_forced_off" not in found
