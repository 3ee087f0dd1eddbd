"""Review of batch u17a (issue 11): only published DeepSeek R1 checkpoints resolve.

The distills (Qwen 1.5B/7B/14B/32B, Llama 8B/70B), R1 itself (671B; Hugging Face's count with the MTP module, 685B) and
DeepSeek-R1-0528-Qwen3-8B, which Ollama's deepseek-r1:8b pulls since May 2025 (the Llama 8B distill is
8b-llama-distill): https://ollama.com/library/deepseek-r1/tags, https://huggingface.co/deepseek-ai/DeepSeek-R1. A size
DeepSeek never published names no model. Tested on real text from public threads other than the one the reading was
written from (ollama/ollama#8655, corpus case u17a04), each quoted with its address, and on negations.
"""

from __future__ import annotations

import pytest
from test_u17a_r1_sizes_cpu_over_gpu import issue

from rules import catalog
from rules.subject import Subject


@pytest.mark.parametrize("text, key", [
    # https://github.com/ollama/ollama/issues/15063
    ("With some previous ollama releases I could run deepseek-r1:70b (42GB) fast with GPU support.", "llama-3-70b"),
    # https://github.com/ollama/ollama/issues/9005
    ("When I tested with the OpenAI interface of deepseek-r1-70b, I found that the model's response speed was "
     "acceptable, and it occupied GPU resources", "llama-3-70b"),
    # https://github.com/browser-use/web-ui/issues/195
    ("Im using ollama and local model of deepseek-r1:14b, it works for default prompt.", "qwen2.5-14b"),
    # https://github.com/deepseek-ai/DeepSeek-R1/issues/582 (its title)
    ("本地使用Ollama部署的 deepseek-r1:32b，调用接口http://IP:11434/api/generate 时，如何关闭深度思考？",
     "qwen2.5-32b"),
    # https://github.com/kvcache-ai/ktransformers/issues/319 (its title): R1 itself
    ("成功部署DeepSeek-R1-671B-4bit 性能问题\n\nGPU:  1*RTX 4090 24G", "deepseek-v3"),
    # https://github.com/intel/ipex-llm/issues/13273: the R1-0528 Qwen3 distill and the Llama distill by their tags
    ("G:\\ollama-ipex-llm-2.3.0b20250725-win>ollama run deepseek-r1:8b-0528-qwen3-fp16", "qwen3-8b"),
    ("deepseek-r1:8b-llama-distill-fp16 can run on earlier versions. Such as 20250220", "llama-3-8b"),
    ("We quantised DeepSeek R1 8bit on 8x H100.", "deepseek-v3"),  # a bit width is no size (a paraphrase)
])
def test_a_published_deepseek_r1_size_names_its_checkpoint(text, key):
    assert Subject.of(issue(f"# slow\n\n{text}")).model.key == key


@pytest.mark.parametrize("text", [
    # https://github.com/huggingface/open-r1/issues/113 with the size changed to ones DeepSeek never published
    "I ran the Deepseek R1 20B model with Ollama on an old PC with an RTX 3050 8GB graphics card.",
    "I ran the DeepSeek R1 37B model with Ollama on an old PC with an RTX 3050 8GB graphics card.",
])
def test_an_unpublished_deepseek_r1_size_names_no_model(text):
    assert Subject.of(issue(f"# slow\n\n{text}")).model is None


def test_r1_by_its_published_sizes_and_its_ollama_tags():
    assert catalog.find_model("deepseek-r1:671b").key == catalog.find_model("DeepSeek R1 685B").key == "deepseek-v3"
    assert catalog.find_model("deepseek-r1:8b").key == "qwen3-8b"  # since R1-0528
    assert catalog.find_model("deepseek-r1:8b-llama-distill-q4_K_M").key == "llama-3-8b"
    assert catalog.find_model("deepseek-r1:1.5b").key == "qwen2.5-1.5b"
    assert catalog.find_model("deepseek-r1:20b") is None
