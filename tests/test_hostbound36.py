"""Issue 11 (session s36, pass hostbound36): slowness from the host side, read the way people report it.

Two general readings, each tested on real first posts (tests/data/hostbound36, SOURCES.md), paraphrases and
near-misses:

- A release listed under another product's label is that product's (rules.claims._listed_as_other): the Hugging Face
  and vLLM issue templates and collect_env write "- PyTorch version (GPU?): 1.3.1", "CUDA Version : 12.1", so the label
  sits further back than the product name read right before a release; "transformers version: 4.1.1" beside it had
  become two engine releases compared (huggingface/transformers#9471, a confidently wrong `other`).
- A slowdown tied to constrained decoding (a grammar, JSON schema or mode, guided or structured output) is the host's
  (ticket.constrained_decoding): the engines build each step's token mask on the CPU while the GPU waits
  (LostRuins/koboldcpp#810: an RTX 3080 kept an RTX 3060's pace with a GBNF grammar).
- Two boards said to keep one pace, the one ahead on bandwidth by 1.3x or more, is no GPU limit
  (ticket.stronger_gpu_slower, as "slower" already was); boards closer than that decode at nearly one pace.
- llama.cpp's timing block with the sampler's time per token at or above the forward pass's (ticket.sampling_bound):
  the sampler runs on the CPU after each step (Maximilian-Winter/llama-cpp-agent#36: 78 against 23 ms a token), and a
  loss said of such a host stage ("my sample time ... is an order of magnitude slower") or of a constrained output is
  not a loss between GPU counts (claims._host_stage_loss).
- The GPU's idle time said in words: "the GPU is doing nothing most of the time", "more than 50% of the time the GPU is
  idle" (gpu_idle_words), and busy and idle in turn, "the GPU is either full or nothing" (util_swings): NVML's
  utilisation is the share of time a kernel runs, so a GPU doing nothing half the time waits on its host.
"""

from pathlib import Path

import pytest
from conftest import issue_bundle, judged_issue

from rules import claims

DATA = Path(__file__).parent / "data" / "hostbound36"


def _paste(name: str) -> str:
    return (DATA / name).read_text()


# ----------------------------------------------------------------------------- real first posts


@pytest.mark.parametrize("name, category", [
    ("aitextgen34.md", "host_bound"),
    ("koboldcpp810.md", "host_bound"),
    ("llamacpp3980.md", "host_bound"),
    ("llamacppagent36.md", "host_bound"),
    ("sentencetransformers609.md", "expected_physics"),
    ("llamacpp6742.md", "host_bound"),
    ("multimodalhugs28.md", "host_bound"),
])
def test_real_posts_answered(name, category):
    verdict, _ = judged_issue(_paste(name))
    assert verdict.category == category


def test_template_versions_are_no_release_ab():
    """transformers#9471: the template's transformers and PyTorch versions are no A/B; a single input on BART-base
    (settled latency_bound_small_batch) is answered as how such a run behaves, no longer as a release regression."""
    verdict, found = judged_issue(_paste("transformers9471.md"))
    assert "ticket.engine_versions" not in found
    assert verdict.category == "expected_physics"


def _missed(name: str, category: str, reason: str):
    return pytest.param(name, category, marks=pytest.mark.xfail(strict=True, reason=reason), id=name)


@pytest.mark.parametrize("name, category", [
    _missed("warpfusion100.md", "expected_physics", "an A6000 behind a 4090 is the boards' difference; the faster "
            "board the reporter compares with is not weighed, so the utilisation swing reads as a host wait"),
    _missed("ollama2270.md", "host_bound", "'the CPU is 100%' under Ollama is also the one core spinning beside a "
            "fully loaded GPU (ollama/ollama#7902); the words do not say which"),
    _missed("omnigen2_32.md", "host_bound", "the spill to system RAM is only in a screenshot"),
    _missed("sdnext3913.md", "host_bound", "nothing in the words says a CPU build of torch ran it"),
])
def test_real_posts_still_missed(name, category):
    verdict, _ = judged_issue(_paste(name))
    assert verdict.category == category


# ----------------------------------------------------------------------------- another product's listed release


@pytest.mark.parametrize("text", [
    "- transformers version: 4.1.1\n- Python version: 3.6\n- PyTorch version (GPU?): 1.3.1",
    "vLLM Version: 0.5.3\nCUDA Version : 12.1.105",
    "PyTorch version: 2.3.0+cu121",
    "Ubuntu version: 22.04.1",
])
def test_release_under_another_products_label(text):
    assert claims._listed_as_other(text, text.rfind(" ") + 1)


@pytest.mark.parametrize("text", [
    "vllm 0.6.1 is slower than vllm 0.5.4",
    "vLLM version: 0.6.3",
    "transformers version: 4.44.2",
    "I moved from 0.5.4 to 0.6.0 and it got slower",
])
def test_engine_release_not_taken_for_another(text):
    assert not claims._listed_as_other(text, text.rfind(" ") + 1)


def test_real_release_ab_still_read():
    """A slowdown between two releases of the engine, with an environment listing beside it, is still an A/B."""
    text = ("vLLM 0.6.3 is 30% slower than vLLM 0.5.4 on the same 2x A100 with TP=2.\n\n"
            "- PyTorch version: 2.4.0\n- CUDA Version : 12.1")
    found = claims.find(issue_bundle(text), "engine_versions_compared")
    assert found and set(found[0].data["versions"][:2]) == {"0.6.3", "0.5.4"}


# ----------------------------------------------------------------------------- idle time said in words


@pytest.mark.parametrize("text", [
    "Training is slow on my A100: the GPU is doing nothing most of the time.",
    "Inference is slow. More than 50% of the time the GPU is idle.",
    "Generation is slow; half of the time the GPU sits idle.",
    "Why is it so slow? The GPUs are basically doing nothing.",
])
def test_gpu_idle_share_in_words(text):
    assert claims.find(issue_bundle(text), "gpu_idle_words")
    verdict, _ = judged_issue(text)
    assert verdict.category == "host_bound"


@pytest.mark.parametrize("text", [
    "Training is slow: the GPU is either full or nothing.",
    "Why is it slow? GPU usage is either maxed out or idle.",
    "Decode is slow and the GPU is either at 100% or 0%.",
])
def test_busy_and_idle_in_turn(text):
    assert claims.find(issue_bundle(text), "util_swings")


@pytest.mark.parametrize("text", [
    "The GPU is doing nothing when no requests come in, which is fine.",
    "Inference is slow. The GPU is not idle, it is at 100%.",
    "Training is slow: GPU memory is either full or empty.",
    "Is it normal that the GPU is doing nothing while the server waits for requests?",
])
def test_idle_words_near_misses(text):
    facts = issue_bundle(text)
    assert not claims.find(facts, "gpu_idle_words")
    assert not claims.find(facts, "util_swings")


# ----------------------------------------------------------------------------- constrained decoding


def test_grammar_post_names_the_host():
    _, found = judged_issue(_paste("koboldcpp810.md"))
    assert "ticket.constrained_decoding" in found
    assert found["ticket.stronger_gpu_slower"].category == "host_bound"


@pytest.mark.parametrize("text", [
    # vllm-project/vllm#3567's figures, as a sentence
    "Guided_json gives ~70 generation tokens per second on the H100, much slower than non-guided_json at 800.",
    "Generation is 10x slower when using a JSON schema with vLLM on an A100.",
    # (the loss is the schema's, not one between one GPU and two: claims._host_stage_loss)
    "Generation is 10x slower when using a JSON schema with vLLM on 2x A100.",
    "With guided decoding enabled our TTFT and throughput are much worse; the throughput drops from 900 to 150 tok/s.",
    "Structured outputs slow down our SGLang server a lot on the H100.",
    "Switching the response format to JSON makes Ollama slower by tenfold on my 4090.",
])
def test_constrained_decoding_paraphrases(text):
    verdict, found = judged_issue(text)
    assert "ticket.constrained_decoding" in found
    assert verdict.category == "host_bound"


@pytest.mark.parametrize("text", [
    "Guided decoding is not slower for us; the problem is TP=2 being slower than TP=1 on two 3090s.",
    "Could the grammar be slowing it down? Decode on my 3090 is 20 tok/s.",
    "The structured output is invalid JSON on vLLM 0.6.3 with two A100s.",
    "Please fix the grammar mistakes in the docs; inference on the H100 is slow anyway.",
    "Using a grammar doesn't make it slower, but TP=2 is slower than TP=1.",
])
def test_constrained_decoding_near_misses(text):
    _, found = judged_issue(text)
    assert "ticket.constrained_decoding" not in found


# ----------------------------------------------------------------------------- two boards at one pace


@pytest.mark.parametrize("text", [
    "Decode on the A100 runs at the same speed as on the A6000, both about 30 tok/s with Llama-2-13B.",
    "My RTX 3080 is no faster than my RTX 3060 at generating tokens.",
])
def test_same_pace_far_apart_boards(text):
    _, found = judged_issue(text)
    assert found["ticket.stronger_gpu_slower"].category == "host_bound"


@pytest.mark.parametrize("text", [
    # bandwidth within 1.3x: one pace is physics (1008 against 936 GB/s)
    "My RTX 4090 generates at the same speed as my RTX 3090 with a 7B model.",
    # asked before measuring
    "Will the RTX 3080 run at the same speed as the RTX 3060?",
    # not as fast as: the slower reading, kept by the existing comparison
    "The RTX 3060 is not as fast as the RTX 3080.",
])
def test_same_pace_near_misses(text):
    _, found = judged_issue(text)
    assert "ticket.stronger_gpu_slower" not in found


# ----------------------------------------------------------------------------- the sampler's time per token


def test_sampler_post_names_the_host():
    _, found = judged_issue(_paste("llamacppagent36.md"))
    assert "ticket.sampling_bound" in found
    assert "ticket.loss_beyond_physics" not in found


TIMINGS = """Decode is slow on my RTX 4090 with llama.cpp.

```
llama_print_timings:        load time =     586.20 ms
llama_print_timings:      sample time =   {sample} ms /   512 runs   (   {per} ms per token, 75.42 tokens per second)
llama_print_timings: prompt eval time =      34.71 ms /    13 tokens (    2.67 ms per token,   374.58 tokens per second)
llama_print_timings:        eval time =    6059.14 ms /   511 runs   (   11.86 ms per token,    84.34 tokens per second)
llama_print_timings:       total time =   12891.72 ms /   524 tokens
```
"""


def test_sampler_slower_than_the_pass():
    """top-k 0 sorts the whole vocabulary each token (ggml-org/llama.cpp#8988's figures: 13.26 against 11.86 ms)."""
    _, found = judged_issue(TIMINGS.format(sample="6788.36", per="13.26"))
    assert found["ticket.sampling_bound"].category == "host_bound"


def test_sampler_small_beside_the_pass():
    """The usual sampler: 0.08 ms a token beside 11.86 ms of forward pass (the same issue's run without top-k 0)."""
    _, found = judged_issue(TIMINGS.format(sample="38.75", per="0.08"))
    assert "ticket.sampling_bound" not in found


def test_one_sampler_call_is_no_per_token_figure():
    """llama.cpp's speculative example prints its draft's "sample time = 524.95 ms / 1 runs" beside 216 eval runs
    (ggml-org/llama.cpp#3649, kept in faq31): one call's time, not a sampler slower than the pass."""
    _, found = judged_issue((Path(__file__).parent / "data" / "faq31" / "llamacpp3649.md").read_text())
    assert "ticket.sampling_bound" not in found


@pytest.mark.parametrize("text", [
    "With TP=2 on two A40s decode is an order of magnitude slower than on one A40.",
    "Decode is 10x slower on 4 GPUs than on 1 GPU with vLLM.",
])
def test_layout_losses_still_read(text):
    """A loss between GPU counts, with no host stage named, stays a layout loss."""
    assert claims.stated_losses(issue_bundle(text))
