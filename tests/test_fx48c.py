"""Fixer fx48c: the misfires a review proved in pass audit48c's claims._one_gpu_named.

The pass made a sentence that names one GPU and no second layout a slow complaint, not a scaling one (llama#506,
SGLATrack#4, PowerInfer#16, sglang#7568; tests/test_audit48c.py). It missed second layouts said in other words: one GPU
as the object of a comparison with words between ("lower than with 1 GPU", "slower than it was on a single GPU",
"compared to using a single GPU"), several GPUs named as "both cards", "all GPUs", "dual 4090 GPUs", "a pair of 4090
GPUs", and a layout named in the sentence before ("I just added another RTX 3090.", "We moved ... to tensor
parallelism."). Those are scaling complaints again, in the symptom and in claims.more_gpus_no_gain alike.
"""

import shutil
from pathlib import Path

import pytest
from conftest import REPO, issue_bundle, judged_issue

from rules import claims

DATA = REPO / "tests" / "data"
TITLE = "# Llama-2-13B inference\n\n"


def _symptom(text: str) -> str:
    return claims.symptom_quote(issue_bundle(text))[2]


@pytest.mark.parametrize("body", [
    # one GPU the object of the comparison, words between (the review's probes)
    "We run Llama-2-13B with vLLM on 2 A100.\n\nThe speed with both cards is lower than with 1 GPU.",
    "We run Llama-2-13B with vLLM on our workstation.\n\nWith both GPUs, generation is slower than on a single GPU.",
    "We run Llama-2-13B with vLLM on our server.\n\nInference with all GPUs is slower compared to using a single GPU.",
    "I just added another RTX 3090.\n\nIt is now slower than it was on a single GPU.",
    "We moved Llama-2-13B on vLLM to tensor parallelism on our server.\n\nIt is now much slower than it was on 1 GPU.",
    "Dual 4090 GPUs are no faster than a single 4090.",
    "A pair of 4090 GPUs gives no speedup over one 4090 GPU.",
    # near wordings of the same
    "Running on our server.\n\nThe throughput is lower than what we got with a single GPU.",
    "We split the model across both of our RTX 3090 cards, and it is slower than on one card.",
    "Our 2x A100 box is slower than 1x A100.",
    "We enabled pipeline parallelism.\n\nDecoding is now slower relative to a single GPU.",
])
def test_a_second_layout_said_in_other_words_is_a_scaling_complaint(body):
    assert _symptom(TITLE + body) == "scaling"
    assert claims.more_gpus_no_gain(issue_bundle(TITLE + body))


@pytest.mark.parametrize("body", [
    # a word of content between the comparison and the one GPU: the one GPU is the run itself
    "The speed on my single 3090 GPU is lower than the paper's result.",
    # "all" with the singular is no count of GPUs
    "On a single RTX 3090 GPU it uses all GPU memory and the speed is lower than the paper's result.",
    # a layout the sentence before asks about, or rules out
    "Would two GPUs be faster?\n\nOn my single 3090 GPU the speed is lower than the paper's result.",
    "We do not use tensor parallelism.\n\nOn a single 3090 GPU the speed is lower than the paper's result.",
    # "another" of something other than a GPU; a count of one written "1x"
    "I tried another model on a single GPU and it is slower than the paper's result.",
    "We run 1x A100 GPU.\n\nIt is slower than the A100 in your README on a single GPU.",
    # one GPU named in the sentence before, none grown
    "I only have 1 GPU.\n\nOn a single 3090 GPU generation is slower than the paper's result.",
])
def test_one_gpu_with_no_second_layout_stays_no_scaling_complaint(body):
    assert _symptom(TITLE + body) != "scaling"
    assert not claims.more_gpus_no_gain(issue_bundle(TITLE + body))


def test_a_layout_in_the_sentence_before_keeps_the_real_scaling_statement():
    """2x Vega II Duo split by tensors ("Tensor Parallelism (experimental): True" the line before), then "it works
    (but is not any faster that a single GPU)": a scaling statement (engeldlgado/toshllm#69, symptom34/toshllm_69.md),
    as on main; the pass's sentence-only look had dropped it."""
    facts = issue_bundle((DATA / "symptom34/toshllm_69.md").read_text())
    assert any("faster that a single GPU" in c.quote for c in claims.more_gpus_no_gain(facts))


@pytest.mark.parametrize("rel, category", [
    ("extract32/llama506.md", "insufficient_data"),    # "as I only have 1 GPU" (meta-llama/llama#506)
    ("hostbound37/sglatrack4.md", "insufficient_data"),  # "an single 3090 GPU" (GXNU-ZhongLab/SGLATrack#4)
    ("variant39/powerinfer16.md", "host_bound"),       # "a single NVIDIA RTX 4090 GPU" (Tiiny-AI/PowerInfer#16)
    ("ut14/sglang7568.md", "other"),                   # "4090 GPUs slower on v0.4.8" (sgl-project/sglang#7568)
])
def test_the_pass_threads_keep_their_reading(tmp_path, rel, category):
    text = (DATA / rel).read_text()
    assert _symptom(text) == "slow"
    folder = tmp_path / Path(rel).stem
    folder.mkdir()
    shutil.copy(DATA / rel, folder / "issue.md")
    assert judged_issue(folder=folder)[0].category == category


@pytest.mark.parametrize("rel, said", [
    # one GPU as the other side of a real comparison, little words between (the threads were read as scaling for their
    # other layout in the sentence; the wording alone now says it too)
    ("ut12x/cosmos20.md", "inference with 8 GPUs is slower than with a single GPU"),  # nvidia-cosmos/cosmos-predict2#20
    ("review50/simpletransformers1027.md", "lower than using single GPU"),  # ThilinaRajapakse/simpletransformers#1027
    ("physics40/paddle1846.md", "slower on 2 GPUs than on 1 GPU"),  # PaddlePaddle/Paddle#1846
])
def test_one_gpu_after_a_comparison_and_little_words_is_the_compared_side(rel, said):
    text = (DATA / rel).read_text()
    assert said in text
    one = claims._ONE_GPU.search(said)
    assert claims._AGAINST_ONE.search(said[:one.start()])
    assert claims._one_gpu_named(said[said.rindex("than"):], claims._MORE_GPUS) is False  # "than with a single GPU"
