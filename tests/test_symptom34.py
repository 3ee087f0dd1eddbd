"""Does the symptom classifier read the kind of question a real first post asks? (session s34, pass symptom34, issue 11)

tests/data/symptom34 keeps 60 first posts of public threads (title and first post; SOURCES.md gives each address) and
labels.toml their question kind, labelled by hand from the post before the tool was run, split once by a hash of the
file name into `study` and `check`. scripts/symptom_score.py measures the classifier on both. The families fixed here
were found on the study part and on the kept pastes of tests/data, each tested below on the real posts that showed it,
on paraphrases written for this file and on negations and near-misses that must not fire:

- a rate named before its fall ("throughput worse", "speed reduction"): _RATE_WORSENED;
- a rate that does not rise with the GPUs ("not increasing when scaling up from 1 GPU to 4 GPUs", "No throughput
  gain on increasing number of GPUs", "tokens/s does not increase"): _NO_GAIN;
- figures that fall short of expectations ("failed to meet expectations") are no failure of the software:
  _BELOW_EXPECTATIONS and the error class's guard;
- a wish for a named rate ("Any ideas to reach >1 token/s"): _RATE_WISHED;
- a question of how long something usually takes, and doubt whether the GPUs are used as they should be, ask for
  the normal figure: _USUAL_DURATION, _GPUS_USED_DOUBT;
- the placeholder sentences of GitHub's default issue template ("A clear and concise description of what you
  expected to happen.") are not the reporter's words: _TEMPLATE_PLACEHOLDER.

The `check` part is validation only: its posts are not asserted here.
"""

from pathlib import Path

import pytest
import tomllib

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules import claims

DATA = Path(__file__).parent / "data"
POSTS = DATA / "symptom34"
LABELS = tomllib.loads((POSTS / "labels.toml").read_text())


def kind_of(text: str) -> str:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return claims.symptom_quote(facts)[2]


def kind_of_post(path: Path) -> str:
    return claims.symptom_quote(read_bundle(path))[2]


# The study posts still read otherwise than labelled, and why; the label was written before the tool ran.
STILL_MISREAD = {
    "deepspeed_6818": "the title's slowness against a HuggingFace baseline is the question; a later sentence "
                      "(\"no matter tp_size set 2, 4, 6, inference time get the same\") is read first, as scaling "
                      "comes before slow in SYMPTOMS",
    "hunyuan_i2v_36": "a load time said as a duration (\"It takes 10-20 min to load ... when using 2 GPUs\") names "
                      "no speed word",
    "mlcllm_2562": "a how-to whose aside \"it will still error out if the model size is larger\" reads as an error",
    "ollama_9310": "a wish (\"need: multi same model server\") whose aside \"often killed by gpu vram\" reads as a "
                   "crash",
    "strixhalo_10": "the title's \"throughput only 8t/s\" is the question; the body's aside \"Also, vllm crashes quite "
                    "often\" is read first, as crash comes before slow (the title read first fixes it; measured in "
                    "title34 and not kept, see claims._reading_order)",
}


@pytest.mark.parametrize("name", [n for n, row in sorted(LABELS.items()) if row["split"] == "study"])
def test_study_post_read_as_labelled(name, request):
    if name in STILL_MISREAD:
        request.applymarker(pytest.mark.xfail(strict=True, reason=STILL_MISREAD[name]))
    assert kind_of_post(POSTS / f"{name}.md") == LABELS[name]["class"]


# --------------------------------------------------------------------------- a rate named before its fall

@pytest.mark.parametrize("path", ["symptom34/sglang_8092.md", "extract30/llamacpp6740.md"])
def test_rate_worsened_real(path):
    """"make the output token throughput worse" (sgl-project/sglang#8092); "speed is much lower" (llama.cpp#6740)."""
    assert kind_of_post(DATA / path) == "slow"


@pytest.mark.parametrize("text", [
    "After upgrading to 0.6 the generation throughput got worse on the same prompts.",
    "With prefix caching on, the speed became much slower for long chats.",
    "Since the driver update our decode throughput declined by about a third.",
    "The busbw fell to 40 GB/s after the firmware upgrade.",
])
def test_rate_worsened_paraphrases(text):
    assert kind_of(text) == "slow"


@pytest.mark.parametrize("text", [
    "The p50 latency is lower after the update, great work on this release.",  # a time that is lower is a gain
    "The throughput lower bound in the docs is 100 tok/s; where does that number come from?",  # a bound, no fall
    "Throughput is not worse than before after the refactor, I just want to know which flag to keep.",  # negated
])
def test_rate_worsened_near_misses(text):
    assert kind_of(text) != "slow"


# --------------------------------------------------------------------------- a rate that does not rise with the GPUs

@pytest.mark.parametrize("name", ["ft_backend_163", "triton_3446"])
def test_no_gain_real(name):
    """"not increasing when scaling up from 1 GPU to 4 GPUs"; "No throughput gain on increasing number of GPUs" (the
    latter also carried the template's "what you expected to happen", which now reads as nothing)."""
    assert kind_of_post(POSTS / f"{name}.md") == "scaling"


@pytest.mark.parametrize("text", [
    "Tokens/s does not increase when I go from 2 to 4 GPUs.",
    "No performance gain with 8 GPUs compared to 4, same model and batch.",
    "The QPS isn't improving with more GPUs at all.",
    "Serving throughput not increasing with tensor parallel 4 on A10s.",
])
def test_no_gain_paraphrases(text):
    assert kind_of(text) == "scaling"


@pytest.mark.parametrize("text", [
    "Throughput does increase with more GPUs, close to linear, thanks for the release.",
    "Memory usage per card is not increasing with more GPUs, which is what I hoped for.",
])
def test_no_gain_near_misses(text):
    assert kind_of(text) != "scaling"


# --------------------------------------------------------------------------- expectations not met, a rate wished for

def test_below_expectations_real():
    """"The network bandwidth in the alltoall_perf test failed to meet expectations" (NVIDIA/nccl-tests#209)."""
    assert kind_of_post(POSTS / "nccltests_209.md") == "slow"


@pytest.mark.parametrize("text", [
    "The allreduce busbw across the two nodes fails to meet expectations.",
    "Our TTFT and throughput do not meet our expectations on the new cluster.",
    "Decode speed is well below expectations with the fp8 checkpoint.",
])
def test_below_expectations_paraphrases(text):
    assert kind_of(text) == "slow"


def test_failure_to_start_stays_an_error():
    assert kind_of("The server failed to start after loading the weights.") == "error"


def test_rate_wished_real():
    """"Any ideas to reach >1 token/s on a 8vCPU machine ? now I am at roughly 30s per token"
    (karpathy/llama2.c#184)."""
    assert kind_of_post(POSTS / "llama2c_184.md") == "slow"


@pytest.mark.parametrize("text", [
    "How can I get more than 20 tokens/s out of Mixtral on this box?",
    "Any tips to reach 100 t/s on an H100 with the 8B model?",
])
def test_rate_wished_paraphrases(text):
    assert kind_of(text) == "slow"


@pytest.mark.parametrize("text", [
    "How to reach 4 GPUs with one model? I only see the first card in the list.",  # a count, not a rate
    "I managed to reach 40 tok/s after the fix, posting the flags here for others.",  # reached, not wished
])
def test_rate_wished_near_misses(text):
    assert kind_of(text) != "slow"


# --------------------------------------------------------------------------- the normal figure asked for

@pytest.mark.parametrize("path", ["symptom34/skyreels_23.md", "symptom34/vnext_26.md", "ut26a/sqlcoder37.md"])
def test_usual_figure_asked_real(path):
    """"loading 模型，一般是多久？" (SkyReels-V2#23); "I don't know if all gpus are correctly used" (VNext#26);
    "how long does it usually take for the model to answer one user query" (defog-ai/sqlcoder#37)."""
    assert kind_of_post(DATA / path) == "normal?"


@pytest.mark.parametrize("text", [
    "How long does loading a 70B model usually take on 8 GPUs?",
    "how long should a 405B checkpoint take to load from NVMe",
    "加载 72B 模型通常需要多久？我这边已经二十分钟了",
    "I'm not sure whether both GPUs are actually being utilized, nvidia-smi shows 30% on each.",
    "Wondering if the 4 cards are properly used during decode.",
])
def test_usual_figure_asked_paraphrases(text):
    assert kind_of(text) == "normal?"


@pytest.mark.parametrize("text", [
    "how long does vllm take to load your model, and which flags did you pass?",  # no typical figure asked
    "Not sure if it's caused by the driver or the container, both GPUs show up in nvidia-smi.",  # cause, not use
])
def test_usual_figure_near_misses(text):
    assert kind_of(text) != "normal?"


# --------------------------------------------------------------------------- the template's placeholders

def test_template_placeholder_is_not_the_reporter():
    text = ("Answers are cut short after 20 tokens on two GPUs\n**Expected behavior**\n"
            "A clear and concise description of what you expected to happen.\n")
    assert kind_of(text) != "normal?"


def test_reporters_own_expected_still_asks():
    assert kind_of("Is 30 tok/s expected for Llama 70B on one A100? A clear and concise description of the bug.") \
        == "normal?"
