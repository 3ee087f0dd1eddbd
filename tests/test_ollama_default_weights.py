"""Ollama's library tags ship 4-bit weights unless the tag names another quantisation: a ticket that names Ollama
and no quantisation is predicted at int4 and its finding says so. The issue texts are written for these tests."""

import pytest

from diagnose.bundle import read_bundle
from rules.engine import evaluate
from rules.workload import OLLAMA_WEIGHTS, weight_dtype


def _ticket(tmp_path, engine: str, model: str, rate: str = "16"):
    (tmp_path / "issue.md").write_text(f"# Is {rate} tokens/s normal for {model} on two RTX 3090?\n\nI run {model} "
                                       f"with {engine} on 2x RTX 3090. Generation runs at {rate} tokens/s. "
                                       "Is this normal?\n")
    facts = read_bundle([tmp_path])
    return facts, {f.rule: f for f in evaluate(facts)}


def test_ollama_without_a_quantisation_is_predicted_at_its_default_4_bit_and_says_so(tmp_path):
    facts, found = _ticket(tmp_path, "Ollama", "llama3.1:70b")
    assert weight_dtype(facts) == "int4"
    fit = found["ticket.layer_split_rate"]  # 16 tok/s is one 3090 streaming ~40 GB of 4-bit weights
    assert fit.category == "expected_physics"
    assert OLLAMA_WEIGHTS in [e.detail for e in fit.evidence]


def test_16_bit_weights_would_make_the_same_figure_faster_than_the_roofline(tmp_path):
    # llama.cpp with no quantisation named: the checkpoint's bf16 (140 GB) cannot stream at 16 tok/s on a 3090
    facts, found = _ticket(tmp_path, "llama.cpp", "Llama-3.1-70B")
    assert weight_dtype(facts) is None
    assert "ticket.layer_split_rate" not in found


def test_a_tag_that_names_its_quantisation_wins_over_the_default(tmp_path):
    facts, found = _ticket(tmp_path, "Ollama", "llama3.1:70b-instruct-q8_0", rate="9")
    assert weight_dtype(facts) == "int8"
    assert all(OLLAMA_WEIGHTS not in [e.detail for e in f.evidence] for f in found.values())


def test_a_tag_that_names_its_precision_wins_over_the_default(tmp_path):
    # a paraphrase of a user-tester's report: "llama3.1:8b-instruct-fp16" was predicted at 4-bit
    facts, found = _ticket(tmp_path, "Ollama", "llama3.1:8b-instruct-fp16", rate="50")
    assert facts.subject.model.key == "llama-3-8b" and weight_dtype(facts) == "fp16"
    assert all(OLLAMA_WEIGHTS not in [e.detail for e in f.evidence] for f in found.values())
    facts, _ = _ticket(tmp_path, "Ollama", "llama3.1:8b-instruct", rate="50")  # a variant naming no weights
    assert weight_dtype(facts) == "int4"


def test_predict_and_ticket_size_an_ollama_tag_alike():
    from rules import catalog

    assert catalog.model("llama3.1:70b").checkpoint_dtype == "int4"  # what `diagnose predict --model` sizes
    assert catalog.model("llama3.1:8b-instruct-fp16").checkpoint_dtype == "fp16"
    assert catalog.model("qwen2.5:7b-instruct-q8_0").checkpoint_dtype == "int8"
    assert catalog.model("Llama-3-8B").checkpoint_dtype == "bf16"  # no tag: the checkpoint's own


def _predicted(*args) -> dict:
    import json

    from click.testing import CliRunner

    from diagnose.cli import cli

    out = CliRunner().invoke(cli, ["predict", "--tp", "1", *args, "--json", "--fail-on", "never"])
    return json.loads(out.stdout)["predictions"]["layouts"][0]


@pytest.mark.parametrize("model,said,gpu", [("llama-3-8b", "RTX 4090", "rtx-4090"),
                                            ("Llama-3.1-8B", "A100 PCIe 80GB", "a100-80gb-pcie"),
                                            ("mistral-7b", "RTX 3090", "rtx-3090")])
def test_predict_with_engine_ollama_assumes_the_weights_a_ticket_naming_ollama_does(tmp_path, model, said, gpu):
    # a user-tester's report: predict --engine ollama assumed bf16 (49 tok/s), ticket the library's 4-bit (130)
    from rules.subject import Subject
    from rules.workload import predict_layout

    (tmp_path / "issue.md").write_text(f"# Ollama speed\n\n{model} with Ollama on one {said}. Is 50 tokens/s normal?\n")
    facts = read_bundle([tmp_path])
    facts.subject = Subject.of(facts)
    ticket = predict_layout(facts, 1, 1)
    row = _predicted("--engine", "ollama", "--model", model, "--gpu", gpu)
    assert row["dtype"] == "int4" and row["decode_tok_s_expected"] == ticket.decode_tok_s_expected
    assert _predicted("--engine", "llamacpp", "--model", model, "--gpu", gpu)["dtype"] != "int4"  # as named
