"""Batch u17a's development misses (issue 11), fixed in general terms and tested on wordings they were not written from.

- A DeepSeek R1 size written in prose ("DeepSeek R1 14B", "deepseek-r1-70b") names one of the distills Ollama's
  deepseek-r1 tags pull (https://ollama.com/library/deepseek-r1; R1 itself is 671B only,
  https://huggingface.co/deepseek-ai/DeepSeek-R1 "Distilled Models"), not the 671B model.
- Under an engine that runs the layers which do not fit in VRAM on the CPU (llama.cpp, Ollama, LM Studio), the CPU said
  to do more of the work than the GPU is that split (Ollama FAQ, https://github.com/ollama/ollama/blob/main/docs/faq.md:
  `ollama ps` shows "48%/52% CPU/GPU"); under a GPU-resident engine, or with the GPU at 0 % (not used at all), it is
  not.
"""

from __future__ import annotations

import pytest
from test_ticket_questions import answer, development_case, said

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims
from rules.engine import evaluate, ticket_verdict
from rules.subject import Subject


def issue(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    facts.subject = Subject.of(facts)
    return facts


@pytest.mark.parametrize("text, key", [
    ("# slow\n\nRunning DeepSeek R1 14B on a RTX 4070 with Ollama.", "qwen2.5-14b"),
    ("# slow\n\nI use deepseek-r1 70B in LM Studio on two 3090s.", "llama-3-70b"),
    # (Ollama's 8b tag pulls DeepSeek-R1-0528-Qwen3-8B since May 2025: https://ollama.com/library/deepseek-r1/tags)
    ("# slow\n\nDeepseek-R1-8B on my laptop GPU gives 20 tok/s.", "qwen3-8b"),
    ("# slow\n\nTried deepseek r1 1.5b on a GTX 1650.", "qwen2.5-1.5b"),
    ("# slow\n\nDeepSeek R1 671B on 8x H200 with SGLang.", "deepseek-v3"),  # R1 itself
    ("# slow\n\nWe serve DeepSeek R1 on 8x H200 with SGLang.", "deepseek-v3"),  # no size: R1 itself
    ("# slow\n\nWe serve DeepSeek-R1-0528 on 8x H200 with SGLang.", "deepseek-v3"),  # a date, not a size
])
def test_a_deepseek_r1_size_in_prose_names_the_distill_of_that_size(text, key):
    assert Subject.of(issue(text)).model.key == key


def test_a_distill_too_large_for_the_card_is_the_split():
    # the shape of ollama/ollama#8655 in other words: a 70B distill on one 24 GB card
    facts = issue("# Why so slow?\n\nI'm running DeepSeek R1 70B on Ollama with an RTX 4090 24GB and it crawls.")
    v = ticket_verdict(facts, evaluate(facts))
    assert v.category == "host_bound"


def test_a_distill_that_fits_is_not_called_too_large():
    facts = issue("# Why so slow?\n\nI'm running DeepSeek R1 7B on Ollama with an RTX 4090 24GB and it crawls.")
    assert not any(f.rule == "ticket.model_over_vram" for f in evaluate(facts))


@pytest.mark.parametrize("text", [
    "Ollama: the CPU is working much harder than the GPU, why?",
    "With llama.cpp my CPU usage is higher than the GPU usage during generation.",
    "LM Studio uses the CPU far more than the GPU when it answers.",
    "Under Ollama the GPU usage is way lower than the CPU's.",
    "Ollama: the CPU is doing most of the work while the model answers.",
    "Ollama on Windows: CPU at 85% while the GPU sits at 10% the whole time.",
    "llama.cpp server: GPU 4%, CPU 60% during decode.",
    "用ollama跑模型的时候，CPU的占用比GPU高很多。",
    "ollama运行时GPU的利用率比CPU还低，怎么回事？",
])
def test_the_cpu_doing_more_than_the_gpu_under_a_layer_engine_is_the_split(text):
    found = [c for c in claims.partial_offload(said(text)) if c.data["form"] == "words"]
    assert found and not found[0].negated and not found[0].guess
    v, _ = answer(text)
    assert v.category == "host_bound"


@pytest.mark.parametrize("text", [
    "Ollama: the CPU is not busier than the GPU, both sit around 30%.",  # denied
    "用ollama跑的时候CPU并不比GPU高。",  # denied
    "Ollama: the GPU works harder than the CPU, as it should.",  # the other way round
    "Ollama: GPU at 95% while the CPU at 12%.",  # the GPU's figure the higher
    "Ollama shows GPU 0% and CPU 100%: it does not use the GPU at all.",  # no GPU in use: another cause
    "Ollama: GPU memory 90%, CPU 40%.",  # a share of memory, not the GPU's load
    "With vLLM the CPU usage is higher than the GPU usage.",  # vLLM keeps every layer in VRAM
    "Is the CPU doing more work than the GPU under Ollama?",  # asked, not seen
])
def test_no_split_is_read_where_the_words_deny_reverse_or_do_not_apply(text):
    assert not any(c.data["form"] == "words" and not c.negated and not c.guess
                   for c in claims.partial_offload(said(text)))


def test_the_development_cases_read_the_split(tmp_path):
    # ollama/ollama#8655 (deepseek r1 32b on a 12 GB RTX 3060) and ollama/ollama#7700 (the CPU working harder than
    # the GPU), both answered by an Ollama collaborator: the model does not fit 100 % in VRAM
    for prefix in ("u17a04", "u17a06"):
        facts = development_case(tmp_path / prefix, prefix)
        assert ticket_verdict(facts, evaluate(facts)).category == "host_bound", prefix
