"""`predict --model <file>.gguf` reads the file name as `ticket` does: the base model and the GGUF type it names
(a user-tester's report: Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf was an unknown model, exit 2)."""

import json

import pytest
from click.testing import CliRunner

from diagnose.bundle import read_bundle
from diagnose.cli import cli
from rules.subject import Subject
from rules.workload import predict_layout


@pytest.mark.parametrize("name,key,quant", [("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama-3-8b", "Q4_K_M"),
                                            ("llama-2-7b.Q5_K_M.gguf", "llama-2-7b", "Q5_K_M"),
                                            ("mistral-7b-instruct-v0.2.Q4_0.gguf", "mistral-7b", "Q4_0")])
def test_predict_and_ticket_read_a_gguf_file_name_alike(tmp_path, name, key, quant):
    out = CliRunner().invoke(cli, ["predict", "--model", name, "--gpu", "rtx-4090", "--tp", "1", "--json"])
    assert out.exit_code in (0, 1), out.output
    report = json.loads(out.stdout)
    row = report["predictions"]["layouts"][0]
    assert (row["model"], row["engine"], report["inputs"]["quant"]) == (key, "llamacpp", quant)
    (tmp_path / "issue.md").write_text(f"# speed\n\nllama-server with {name} fully offloaded on one RTX 4090: "
                                       "60 tokens/s at batch 1. Is this normal?\n")
    facts = read_bundle([tmp_path])
    facts.subject = Subject.of(facts)
    assert predict_layout(facts, 1, 1).decode_tok_s_expected == row["decode_tok_s_expected"]


def test_an_unknown_gguf_file_is_still_bad_input():
    out = CliRunner().invoke(cli, ["predict", "--model", "nonsense-13q.gguf", "--gpu", "rtx-4090"])
    assert out.exit_code == 2 and "unknown model 'nonsense-13q.gguf'" in out.output
