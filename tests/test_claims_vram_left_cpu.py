"""Memory left on the GPU while the engine computes on the CPU: llama.cpp and Ollama place whole layers by an
estimate of what fits, so the layers that did not fit run from system memory on the CPU although nvidia-smi still
shows free VRAM (Ollama's FAQ, "How can I tell if my model was loaded onto the GPU?",
https://github.com/ollama/ollama/blob/main/docs/faq.md). The reporter says it from the GPU's side ("VRAM still free,
but it runs on the CPU"): partial_offload's words.

Each sentence is written the way Chinese and English threads word it; none is copied from a corpus case. Paraphrases
must be read; negations, a CPU load figure after "but", and free VRAM without the CPU doing the work must not.
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
])
def test_free_vram_without_the_cpu_computing_is_no_offload(text):
    assert not read(text)


def test_the_free_vram_report_gives_the_host_bound_verdict(tmp_path):
    (tmp_path / "issue.md").write_text("# Slow generation\n\nThere's still 7 GB of VRAM free on my 4090, but "
                                       "Ollama runs part of the model on the CPU and I get 4 tokens/s.\n")
    facts = read_bundle([tmp_path])
    v = ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))
    assert v.category == "host_bound"
