"""Memory left on the GPU while the engine computes on the CPU: llama.cpp and Ollama place whole layers by an
estimate of what fits, so the layers that did not fit run from system memory on the CPU although nvidia-smi still
shows free VRAM (Ollama's FAQ, "How can I tell if my model was loaded onto the GPU?",
https://github.com/ollama/ollama/blob/main/docs/faq.md). The reporter says it from the GPU's side ("VRAM still free,
but it runs on the CPU"): partial_offload's words.

Each sentence is written the way Chinese and English threads word it; none is copied from a corpus case (the README's
own example, "still 6 GB of VRAM free but it runs on the CPU", is the README's wording). The plain "runs on the CPU" and
an object before it ("is running it on the CPU") must be read, as Ollama's maintainers word the split ("the CPU is used
for inference on that part of the model", https://github.com/ollama/ollama/issues/7801; "23 of the layers run in system
RAM where the CPU does the inference", https://github.com/ollama/ollama/issues/8850); negations, a CPU load figure or
word after the CPU ("at 100 %", "usage", "占用"), host work every engine does (vLLM's --swap-space for preempted
requests, https://docs.vllm.ai/en/latest/configuration/engine_args.html; sampling) and free VRAM without the CPU doing
the work must not. Under an engine that keeps every weight in VRAM (vLLM, SGLang, TensorRT-LLM) the words place no
layers unless the ticket states an offload (--cpu-offload-gb).
"""

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def read(text: str) -> list[claims.Claim]:
    return [c for c in claims.partial_offload(said(text)) if c.data["form"] == "words" and not c.guess]


@pytest.mark.parametrize("text", [
    "显存还剩6G，可是模型还是跑在CPU上，速度只有3 tokens/s。",
    "GPU内存没用完，但却用CPU计算，生成很慢。",
    "明明还有4G空闲的显存，ollama仍然切换到CPU运行。",
    "There's still 8 GB of VRAM free but Ollama runs part of the model on the CPU.",
    "Plenty of GPU memory left, yet llama.cpp falls back to the CPU for some layers.",
    "I have 5 GB of VRAM available but it still uses the CPU and generation crawls.",
    "There's still 6 GB of VRAM free but it runs on the CPU.",
    "I have still 6 GB of VRAM free but the model runs on the CPU.",
    "There is 8 GB of VRAM free but Ollama is running it on the CPU.",
    "There is 6GB VRAM free, but it runs on CPU.",
    "显存没用满，但是还是用CPU推理",
    "显存还有空闲，但是在CPU上推理，每秒只有2个token。",
    "nvidia-smi shows 9 GB of VRAM free yet LM Studio offloads 10 layers to the CPU.",
    "There are still 5 GB of GPU memory unused, but koboldcpp keeps putting 12 layers onto the CPU.",
    "We have 3 GB of VRAM to spare, however the layers are processed by the CPU.",
    "A few gigs of VRAM left but it went to the CPU anyway.",
])
def test_free_vram_with_the_cpu_doing_the_work_is_read(text):
    found = read(text)
    assert found and not found[0].negated


@pytest.mark.parametrize("text", [
    "显存还有剩余，但没有用CPU推理，速度正常。",
    "There is still 10 GB of VRAM free but it does not use the CPU at all.",
])
def test_a_negated_cpu_is_read_as_ruled_out(text):
    found = read(text)
    assert found and found[0].negated


@pytest.mark.parametrize("text", [
    "显存还有剩余，速度很快。",
    "There is still 6 GB of VRAM free, but CPU usage sits at 100 % during generation.",
    "The CPU runs the tokenizer while 20 GB of VRAM is still free.",
    # a load figure or word after the CPU, and host work that is no layer
    "There is still 8 GB of VRAM free but it uses the CPU at 100 % during generation.",
    "Still 20 GB VRAM free but vLLM uses the CPU swap space for preempted requests.",
    "显存还有很多，但是在CPU上的占用很高",
    "显存还剩8G，但是用CPU的利用率一直是100%",
    "There is still 12 GB of VRAM free but llama-server uses the CPU for sampling.",
    "There are 4 GB of VRAM left but it runs slowly and the CPU is busy.",
    "With 10 GB of VRAM free, the model still runs at 100% CPU.",
    "There is still 8 GB VRAM free but the CPU runs at 100%.",
])
def test_free_vram_without_the_cpu_computing_is_no_offload(text):
    assert not read(text)


@pytest.mark.parametrize("text", [
    "There is still 20 GB of VRAM free but vLLM runs part of the model on the CPU.",
    "SGLang leaves 16 GB of VRAM free but still runs on the CPU, I think.",
    "显存还剩十几G，但是TensorRT-LLM还是用CPU推理",
])
def test_an_engine_that_keeps_every_weight_in_vram_places_no_layers_there(text):
    assert not read(text)


@pytest.mark.parametrize("text", [
    "We start vLLM with --cpu-offload-gb 8. There is still 20 GB of VRAM free but it runs part of the model on "
    "the CPU.",
    "vLLM was fine; with Ollama there is still 6 GB of VRAM free but it runs on the CPU.",
])
def test_a_stated_offload_or_a_layer_placing_engine_is_read(text):
    assert read(text)


def ticket(tmp_path, text: str):
    """The facts and findings `diagnose ticket` gives a folder holding only this issue.md."""
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    return facts, evaluate(facts, ticket_predictions(facts))


def test_the_free_vram_report_gives_the_host_bound_verdict(tmp_path):
    facts, findings = ticket(tmp_path, "# Slow generation\n\nThere's still 7 GB of VRAM free on my 4090, but "
                                       "Ollama runs part of the model on the CPU and I get 4 tokens/s.\n")
    assert ticket_verdict(facts, findings).category == "host_bound"


@pytest.mark.parametrize("text", [
    "# vLLM is slow\n\nThere is still 20 GB of VRAM free on each H100, but vLLM uses the CPU swap space for preempted "
    "requests and throughput drops to 300 tokens/s.\n",
    "# Slow generation with Ollama\n\nThere is still 8 GB of VRAM free but it uses the CPU at 100 % while I get "
    "5 tokens/s.\n",
])
def test_a_cpu_named_as_load_or_host_work_gives_no_partial_offload_finding(tmp_path, text):
    _, findings = ticket(tmp_path, text)
    assert not any(f.rule == "ticket.partial_offload" for f in findings)
