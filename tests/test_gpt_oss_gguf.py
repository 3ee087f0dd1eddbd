"""gpt-oss as Ollama and llama.cpp serve it: MXFP4 is a GGUF type (ggml's block_mxfp4, 17 bytes per 32 weights), the
20B model is in the catalog (its Hugging Face config.json), and its Ollama tags take the llama.cpp profile and the
library's MXFP4 weights in predict and ticket alike (a user-tester's report: unknown type, unknown model, generic)."""

import json

import pytest
from click.testing import CliRunner

from diagnose.bundle import read_bundle
from diagnose.cli import cli
from rules import catalog
from rules.subject import Subject
from rules.workload import predict_layout


def _row(*args) -> dict:
    out = CliRunner().invoke(cli, ["predict", "--tp", "1", *args, "--json", "--fail-on", "never"])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)["predictions"]["layouts"][0]


def test_mxfp4_is_a_gguf_type_of_4_25_bits():
    t = catalog.gguf_type("MXFP4")
    assert t.bits == pytest.approx(4.25) and t.dtype == "mxfp4"
    assert _row("--model", "gpt-oss-20b", "--gpu", "rtx-4090", "--quant", "MXFP4")["engine"] == "llamacpp"


def test_gpt_oss_20b_is_the_published_size():
    m = catalog.model("openai/gpt-oss-20b")
    assert (m.layers, m.experts, m.experts_active, m.hidden) == (24, 32, 4, 2880)
    assert catalog.model("gpt-oss:20b").key == "gpt-oss-20b"


@pytest.mark.parametrize("tag,gpu,said,key", [("gpt-oss:20b", "rtx-4090", "RTX 4090", "gpt-oss-20b"),
                                              ("gpt-oss:120b", "h100-sxm", "H100 SXM", "gpt-oss-120b")])
def test_an_ollama_gpt_oss_tag_takes_the_llama_cpp_profile_and_mxfp4_in_predict_and_ticket(tmp_path, tag, gpu, said,
                                                                                           key):
    row = _row("--model", tag, "--gpu", gpu)
    assert (row["model"], row["engine"], row["dtype"]) == (key, "llamacpp", "mxfp4")
    (tmp_path / "issue.md").write_text(f"# speed\n\nRunning `ollama run {tag}` on one {said}. "
                                       "eval rate: 100 tokens/s. Is this normal?\n")
    facts = read_bundle([tmp_path])
    facts.subject = Subject.of(facts)
    assert predict_layout(facts, 1, 1).decode_tok_s_expected == row["decode_tok_s_expected"]


def test_a_gpt_oss_tag_naming_other_weights_keeps_them():
    assert catalog.tag_weights("gpt-oss:20b-fp16") == "fp16" and catalog.named_gguf("gpt-oss:20b-fp16") is None
    assert catalog.tag_weights("llama3.1:8b") == "int4"  # the library's 4-bit default elsewhere
