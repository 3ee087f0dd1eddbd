"""Qwen (1.0) and Qwen1.5 as tickets and commands name them (rules/catalog/models.toml, each row from its
config.json). The names are real repositories and Ollama tags, most not written as aliases: they reach their row
through the naming conventions (an org, a '-Chat' or quantisation suffix, Ollama's 'family:size')."""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import catalog
from rules.subject import Subject, model_named


@pytest.mark.parametrize("name, key", [
    ("Qwen1.5-72B-Chat", "qwen1.5-72b"),
    ("Qwen/Qwen1.5-72B-Chat-AWQ", "qwen1.5-72b"),  # https://huggingface.co/Qwen/Qwen1.5-72B-Chat-AWQ
    ("qwen1.5:14b", "qwen1.5-14b"),
    ("qwen:14b-chat-v1.5-fp16", "qwen1.5-14b"),  # https://ollama.com/library/qwen/tags
    ("Qwen-7B-Chat", "qwen1.5-7b"),  # Qwen 1.0's 7B: Qwen1.5-7B's shapes
    ("Qwen/Qwen-14B-Chat-Int4", "qwen1.5-14b"),  # https://huggingface.co/Qwen/Qwen-14B-Chat-Int4
    ("Qwen/Qwen1.5-0.5B-Chat-GGUF", "qwen1.5-0.5b"),  # https://huggingface.co/Qwen/Qwen1.5-0.5B-Chat-GGUF
    ("Qwen/Qwen1.5-32B-Chat-GPTQ-Int4", "qwen1.5-32b"),
    ("qwen1.5-110b-chat", "qwen1.5-110b"),
    ("Qwen/Qwen1.5-MoE-A2.7B-Chat", "qwen1.5-moe-a2.7b"),
    ("qwen:4b", "qwen1.5-4b"),
])
def test_qwen1_and_qwen1_5_names_resolve(name, key):
    assert model_named(name).key == key


@pytest.mark.parametrize("name, key", [
    ("Qwen2.5-7B", "qwen2.5-7b"), ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"), ("qwen2.5:14b", "qwen2.5-14b"),
    ("Qwen2-72B-Instruct", "qwen2.5-72b"), ("qwen2:57b", "qwen2-57b-a14b"),
])
def test_later_lines_keep_their_rows(name, key):
    assert model_named(name).key == key


@pytest.mark.parametrize("name", ["Qwen1.5-3B", "qwen:3b", "Qwen/CodeQwen1.5-7B", "Qwen1.5-MoE-A14B"])
def test_sizes_the_line_never_had_stay_unknown(name):
    with pytest.raises(catalog.UnknownName):
        model_named(name)


def test_the_shapes_differ_from_qwen2_5_where_config_json_does():
    """Qwen1.5 below 32B has no grouped-query attention (KV heads = heads): its KV cache per token is many times
    Qwen2.5's, which is what the predictor must not borrow."""
    old, new = catalog.model("qwen1.5-7b"), catalog.model("qwen2.5-7b")
    assert old.kv_heads == old.heads == 32 and new.kv_heads == 4
    assert old.kv_bytes_per_token() > 3 * new.kv_bytes_per_token()


@pytest.mark.parametrize("text, key", [
    ("# slow decode\n\nQwen1.5-72B-Chat on 4x A100 80GB with vLLM, TP 4: 11 tok/s at batch 1.", "qwen1.5-72b"),
    ("# slow decode\n\nollama run qwen:14b on an RTX 4090 gives 30 tok/s.", "qwen1.5-14b"),
    ("# slow\n\nWe serve Qwen-7B-Chat with transformers on one A10G: 20 tok/s.", "qwen1.5-7b"),
    ("# slow\n\nQwen2.5-7B-Instruct on one L4 with vLLM: 25 tok/s, not the old Qwen1.5.", "qwen2.5-7b"),
])
def test_a_ticket_reads_the_model(text, key):
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    assert Subject.of(facts).model.key == key
