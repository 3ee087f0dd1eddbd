"""Session s44, fixer B: misfires the 38th session's final read (reviewer B) proved against main, each probe
(/tmp/fr44b/<n>.md, labelled probe) with the near-misses that must keep the old reading."""

import pytest
from conftest import issue_bundle as _facts
from conftest import judged_issue

from diagnose.artifacts import issue_md, launch
from rules import claims
from rules.common import engine_of
from rules.gpus_in_use import _IN_TURN


def _rules(text: str) -> dict:
    return judged_issue(text)[1]


# ------------------------------------------- 1. engine_signs: FastChat's vllm_worker runs vLLM, not transformers

VLLM_WORKER = ("# vLLM worker: 2 GPUs no faster than 1\n\nBefore, I ran the plain worker (`python3 -m "
               "fastchat.serve.model_worker --model-path lmsys/vicuna-13b-v1.5`).\nNow I run vLLM through FastChat: "
               "`python3 -m fastchat.serve.vllm_worker --model-path lmsys/vicuna-13b-v1.5 --num-gpus 2`\non 2x A100 "
               "80GB. Decode speed is 40 tokens/s, the same as on one GPU. Is this normal?\n")


def test_probe_3_vllm_worker_after_the_model_worker_is_vllm():
    # probe (3.md): the model_worker said of the past, the vllm_worker run now
    assert engine_of(_facts(VLLM_WORKER)) == "vllm"
    found = _rules(VLLM_WORKER)
    assert not any("layer split" in f.title for f in found.values())


@pytest.mark.parametrize("module, engine", [
    ("vllm_worker", "vllm"),  # probe: the worker alone
    ("model_worker", "hf-eager"),  # near-miss: FastChat's transformers worker (tests/test_scaling44.py)
    ("cli", "hf-eager"),  # near-miss
])
def test_fastchat_worker_names_its_engine(module, engine):
    text = (f"# slow\n\n`python3 -m fastchat.serve.{module} --model-path lmsys/vicuna-13b-v1.5 --num-gpus 2` on 2x "
            "A100 80GB gives 40 tokens/s. Is this normal?\n")
    assert engine_of(_facts(text)) == engine


# ------------------------------------------- 2. symptom_prior: one GPU busy is a layer split's turn outside FastChat

@pytest.mark.parametrize("text", [
    # probe (5.md): llama.cpp spreads the layers over every GPU it sees
    "# llama.cpp: adding a second GPU does not make it faster\n\nI run "
    "`./llama-cli -m ./models/my-finetune-q4_k_m.gguf -ngl 99` on 2x RTX 3090.\nUsing 2 GPUs is not faster than "
    "using 1 GPU. In nvidia-smi only one GPU is busy while it generates.\nIs this expected?\n",
    # probe (12.md): a device_map said spreads them too
    "# Two A100s are not faster than one with device_map=\"auto\"\n\nI load meta-llama/Llama-2-7b-hf with "
    "`AutoModelForCausalLM.from_pretrained(..., device_map=\"auto\")` on 2x A100 80GB\nand call `model.generate(...)`. "
    "Using 2 GPUs is not faster than using 1 GPU. In nvidia-smi only one GPU is busy\nwhile it generates. Is this "
    "expected?\n",
])
def test_probes_5_12_one_gpu_busy_in_a_layer_split_is_its_turn(text):
    assert "layer split" in _rules(text)["ticket.symptom_prior"].title


# near-miss: FastChat's --num-gpus with a model that may fit one GPU (lm-sys/FastChat#1760) keeps
# ticket.one_gpu_by_design and no turn-taking prior (tests/test_scaling44.py, test_one_gpu_used_under_num_gpus_...)


# ------------------------------------------- 3. launch.ADVISING: "you can enable X=1, so we run with it" runs with it

def test_probe_8_enable_said_by_the_docs_and_adopted_is_in_use():
    # probe (8.md)
    text = ("# all_reduce_perf slow on 2x RTX 4090\n\nTwo RTX 4090 in one box, NCCL 2.18, driver 535.\nThe accelerate "
            "docs say you can enable NCCL_P2P_DISABLE=1 on these cards, so we run with it now.\nall_reduce_perf -b 8 "
            "-e 1G -f 2 -g 2 shows only 3 GB/s bus bandwidth at 1 GB. Is that expected?\n")
    assert "topology.p2p_forced_off" in _rules(text)


@pytest.mark.parametrize("before, off", [
    ("you can enable ", True),  # (fr44r2) "enable" advises; advice taken up runs (launch.ADOPTED_AFTER, probe 8 above)
    ("you can set ", True),  # near-miss: advice
    ("you could also disable ", True),  # near-miss
    ("please set ", True),  # near-miss
])
def test_advice_verbs(before, off):
    assert launch.off_before(before) is off


# ------------------------------------------- 4, 5. a placement said of the past: the change named with its determiner

OLLAMA = "# gemma2:27b on RTX 4090 with Ollama\n\nOllama 0.3.6 on a single RTX 4090 24GB, model gemma2:27b.\n"


def test_probe_7_before_patching_tells_when_the_writer_looked():
    # probe (7.md)
    text = OLLAMA + ("Before patching the Modelfile myself I checked the server log, and only 27 layers are offloaded "
                     "to GPU.\nGeneration runs at 4 tokens/s. Why so slow?\n")
    assert "ticket.partial_offload" in _rules(text)


def test_probe_13_even_after_a_patch_stays_in_the_past():
    # probe (13.md)
    text = OLLAMA + ("Previously, even after patching the Modelfile, only 27 layers were offloaded to GPU.\nWith 0.3.8 "
                     "it generates at 9 tokens/s. Is that the speed I should expect?\n")
    assert "ticket.partial_offload" not in _rules(text)


@pytest.mark.parametrize("before, past", [
    ("Before patching the Modelfile myself I checked the server log, and ", False),  # probe (7.md)
    ("Previously, even after patching the Modelfile, ", True),  # probe (13.md)
    ("Previously, even after the patch, ", True),  # probe
    ("Before the upgrade ", True),  # near-miss (fr43)
    ("Before an update, ", True),  # near-miss
    ("It used to be fine, but now ", False),  # near-miss: turns to now
    ("Previously it was fine; after the upgrade ", False),  # near-miss: turns to now
])
def test_a_placement_said_of_the_past(before, past):
    assert claims._past_state(before) is past


def test_a_line_said_before_keeps_its_optional_determiner():
    # near-miss: _SAID_BEFORE's own lead read "before fixing ..." before tidy44 and still does
    assert claims._SAID_BEFORE.search("Before patching it said ")


# ------------------------------------------- 6. _IN_TURN: "at any time" closes the busy clause

def test_probe_6_at_any_time_i_check_is_no_turn_taking():
    # probe (6.md)
    text = ("# Ollama uses only one of my two GPUs\n\nI have 2x RTX 4090 and run llama3:8b with Ollama 0.3.6.\nOllama "
            "only uses one GPU and the other GPU stays idle, at any time I check nvidia-smi.\nHow can I make it use "
            "both GPUs?\n")
    verdict, found = judged_issue(text)
    assert verdict.category == "healthy" and "ticket.one_gpu_by_design" in found


@pytest.mark.parametrize("sentence, turns", [
    ("the other GPU stays idle, at any time I check nvidia-smi", False),  # probe
    ("only one GPU is busy at any given moment when we look", False),  # probe
    ("only one GPU is busy at any time.", True),  # near-miss (scaling44)
    ("only one GPU is busy at any time while it generates", True),  # near-miss
    ("half the cards are at 0% at any moment, the rest at 100%", True),  # near-miss: a real sentence in tests/data
    ("only one GPU will be active at a given moment", True),  # near-miss: accelerate's docs
])
def test_turn_taking_words(sentence, turns):
    assert bool(_IN_TURN.search(sentence)) is turns


# ------------------------------------------- 7. issue_md._job_gpus: every FastChat --num-gpus, the largest

WORKER = "python3 -m fastchat.serve.model_worker --model-path lmsys/vicuna-13b-v1.5 --num-gpus {}   # {}"


@pytest.mark.parametrize("counts, job", [
    ((1, 2), 2),  # probe (10.md): "--num-gpus 1  # works" before "--num-gpus 2  # hangs"
    ((2, 1), 2),  # probe (11.md): the other order
    ((1,), 1),  # near-miss: one line
    ((2, 2), 2),  # near-miss
])
def test_fastchat_num_gpus_the_largest(counts, job):
    lines = [(i, WORKER.format(n, "works" if n == 1 else "hangs")) for i, n in enumerate(counts, 1)]
    assert issue_md._job_gpus(lines)[1] == job
