"""Session s44, fixer B2: misfires the 38th session's second final read (reviewer B2) proved against the first
fixers' changes, each probe (/tmp/fr44d/<n>.md, labelled probe) with the near-misses that must keep the old reading."""

import pytest
from conftest import judged_issue

from diagnose.artifacts import engine_signs, issue_md, launch
from rules import claims
from rules.gpus_in_use import _IN_TURN


def _rules(text: str) -> dict:
    return judged_issue(text)[1]


def _layer_split(found: dict) -> bool:
    return "ticket.layer_split_rate" in found


# ------------------------------------------- 1. engine_signs: a FastChat vllm_worker named only in prose runs nothing

NOT_USED = ("# vLLM worker slow\n\nWe do not use `python3 -m fastchat.serve.vllm_worker`; we run `python3 -m "
            "fastchat.serve.model_worker --model-path lmsys/vicuna-13b-v1.5 --num-gpus 2` on 2x A100 80GB. "
            "Generation is 15 tokens/s, no faster than one GPU. Is this expected?\n")
ASKED = ("# FastChat slow on 2 GPUs\n\nWe run `python3 -m fastchat.serve.model_worker --model-path "
         "lmsys/vicuna-13b-v1.5 --num-gpus 2` on 2x A100 80GB. Generation is 15 tokens/s, no faster than one GPU. "
         "Is this expected? Should we switch to `python3 -m fastchat.serve.vllm_worker`?\n")


@pytest.mark.parametrize("text", [NOT_USED, ASKED])  # probe (15.md, 16.md)
def test_probe_15_16_vllm_worker_not_run_keeps_the_layer_split(text):
    assert engine_signs.shown(text) == ["transformers"]
    assert _layer_split(_rules(text))


@pytest.mark.parametrize("text, engines", [
    # near-misses: the worker that runs now, after the plain one said of the past (fr44b probe 3), and one asked about
    # with a "why" (it runs)
    ("before, the plain model_worker; now python3 -m fastchat.serve.vllm_worker --num-gpus 2", ["vLLM"]),
    ("python3 -m fastchat.serve.model_worker --num-gpus 2\nWhy is python3 -m fastchat.serve.sglang_worker slow?",
     ["transformers", "SGLang"]),
    ("`python3 -m fastchat.serve.vllm_worker --model-path x` gives 40 tokens/s.", ["vLLM"]),
])
def test_vllm_worker_that_runs_is_shown(text, engines):
    assert engine_signs.shown(text) == engines


# ------------------------------------------- 2. _IN_TURN: "at any time when generating" still takes turns

@pytest.mark.parametrize("sentence, turns", [
    ("Only one GPU is busy at any given time when generating, the other sits at 0%.", True),  # probe (3.md)
    ("Only one GPU is active at any given moment when I run generate(), the other sits idle.", True),  # probe (19.md)
    ("only one GPU is busy at any time whenever the model decodes", True),
    # near-misses: when the writer looks (fr44b probe 6, test_fr44_b), with a comma before the pronoun too
    ("the other GPU stays idle, at any time I check nvidia-smi", False),
    ("only one GPU is busy at any given moment when we look", False),
    ("only one GPU is busy at any time, I see it in nvidia-smi", False),
    ("only one GPU is busy at any time that I check", False),
])
def test_turn_taking_with_when(sentence, turns):
    assert bool(_IN_TURN.search(sentence)) is turns


def test_probe_3_layer_split_when_generating():
    text = ("# device_map auto on two A100s is not faster\n\nI load Llama-2-70b with transformers and "
            "device_map=\"auto\" on 2x A100 80GB. Only one GPU is busy at any given time when generating, the other "
            "sits at 0%. Generation is 3 tokens/s, no faster than one GPU. Is this expected?\n")
    assert _layer_split(_rules(text))


# ------------------------------------------- 3. issue_md._job_gpus: a FastChat --num-gpus asked about runs nothing

def _job(text: str):
    return issue_md._job_gpus(list(enumerate(text.splitlines())))


def test_probe_9_num_gpus_asked_about_is_not_the_job():
    text = ("I run `python3 -m fastchat.serve.model_worker --model-path lmsys/vicuna-7b-v1.5 --num-gpus 1` on a "
            "machine with 4x A100 80GB. Generation is 20 tokens/s, which feels slow.\n\nShould I use `python3 -m "
            "fastchat.serve.model_worker --model-path lmsys/vicuna-7b-v1.5 --num-gpus 4` instead?")
    assert _job(text) == (0, 1)  # probe (9.md)


@pytest.mark.parametrize("lines, job", [
    # near-misses (fr44b probes 10, 11): both counts run, the larger is the run asked about
    (["python3 -m fastchat.serve.model_worker --num-gpus 1   # works",
      "python3 -m fastchat.serve.model_worker --num-gpus 2   # hangs"], (1, 2)),
    (["python3 -m fastchat.serve.model_worker --num-gpus 2   # hangs",
      "python3 -m fastchat.serve.model_worker --num-gpus 1   # works"], (0, 2)),
    (["You could try `python3 -m fastchat.serve.model_worker --num-gpus 4`.",
      "We run python3 -m fastchat.serve.model_worker --num-gpus 2"], (1, 2)),
])
def test_fastchat_counts_that_run(lines, job):
    assert issue_md._job_gpus(list(enumerate(lines))) == job


# ------------------------------------------- 4, 5. a placement's past: a bare change turns to now after, is past before

@pytest.mark.parametrize("before, past, is_past", [
    ("Previously everything ran on the GPU, after patching the Modelfile ", False, False),  # probe (20.md)
    ("It used to run fully on the GPU, after update 0.3.1 ", False, False),  # probe (22.md)
    ("Before patching the Modelfile ", True, True),  # probe (23.md)
    # near-misses: a present placement after a bare "before patching" (fr44b probe 7), a concessive "even after"
    # in a clause of the past (fr44b probe 13), the determiner before a present placement
    ("Before patching the Modelfile myself I checked the server log, and ", False, False),
    ("Previously, even after patching the Modelfile, ", True, True),
    ("Before the upgrade ", False, True),
    ("I used to get 40 tokens/s, but now ", False, False),
])
def test_past_state(before, past, is_past):
    assert claims._past_state(before, past=past) is is_past


@pytest.mark.parametrize("text, partial", [
    ("# Ollama slow\n\nPreviously everything ran on the GPU, after patching the Modelfile only 27 layers are offloaded "
     "to GPU. It is slow on my RTX 4090, 20 tokens/s.\n", True),  # probe (20.md)
    ("# Ollama slow\n\nBefore patching the Modelfile only 27 layers were offloaded to GPU. It is still slow on my RTX "
     "4090, 20 tokens/s.\n", False),  # probe (23.md)
])
def test_probe_20_23_partial_offload(text, partial):
    assert ("ticket.partial_offload" in _rules(text)) is partial


# ------------------------------------------- 6. launch.ADVISING: "you could enable X=1" advises, unless taken up

@pytest.mark.parametrize("line, off", [
    ("A forum post says you could enable NCCL_P2P_DISABLE=1 on these cards to avoid the hang.", True),  # probe (17.md)
    ("you should enable NCCL_P2P_DISABLE=1", True),
    # near-misses: advice taken up (fr44b probe 8), the writer's own setting
    ("The accelerate docs say you can enable NCCL_P2P_DISABLE=1 on these cards, so we run with it now.", False),
    ("We enable NCCL_P2P_DISABLE=1 on these cards.", False),
])
def test_advice_to_enable(line, off):
    start = line.index("NCCL_P2P_DISABLE")
    assert launch.setting_off(line, start, start + len("NCCL_P2P_DISABLE=1")) is off


def test_probe_17_forum_advice_is_not_p2p_forced_off():
    text = ("# vLLM tp=2 slow on 2x RTX 4090\n\n`vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2` "
            "on 2x RTX 4090 gives 40 tokens/s, slower than one GPU (70 tokens/s). A forum post says you could enable "
            "NCCL_P2P_DISABLE=1 on these cards to avoid the hang. Why is tp=2 slower?\n")
    assert "topology.p2p_forced_off" not in _rules(text)


# ------------------------------------------- 8. the change's -ing forms: "before updating", "after upgrading"

@pytest.mark.parametrize("before, past, is_past", [
    ("Before updating Ollama ", True, True),  # probe (7.md)
    ("Previously everything ran on the GPU, after upgrading ", False, False),  # probe (5.md)
    # near-misses: a present placement after a bare -ing change (as "before patching ... myself", fr44b probe 7)
    ("Before upgrading I checked the log, and ", False, False),
    ("Previously, even after upgrading, ", True, True),
])
def test_past_state_ing_forms(before, past, is_past):
    assert claims._past_state(before, past=past) is is_past
