"""`diagnose scaling` shows the layout it predicted with: each fact stated by the inputs, given on the command line,
or assumed (a default), with its source, in the text and the JSON."""

import json

from conftest import REPO, diagnose

RUNS = "layout,batch,metric,value\nTP1,1,decode_tok_s,30\nTP2,1,decode_tok_s,50\n"


def _layout(result) -> dict[str, list[str]]:
    tables = json.loads(result.stdout)["tables"]
    (table,) = [t for name, t in tables.items() if name.startswith("Layout")]
    assert table["columns"] == ["fact", "value", "how", "source"]
    return {row[0]: row[1:] for row in table["rows"]}


def test_a_table_without_the_layout_shows_every_assumed_fact(tmp_path):
    csv = tmp_path / "runs.csv"
    csv.write_text(RUNS)
    result = diagnose("scaling", str(csv), "--model", "llama-3-8b", "--gpu", "h100-sxm", "--json")
    assert result.exit_code in (0, 1), result.output + result.stderr
    facts = _layout(result)
    assert facts["GPU"] == ["h100-sxm", "given", "--gpu"]
    assert facts["GPUs per layout"][:2] == ["TP1: 1, TP2: 2", "stated"]
    assert facts["GPUs per node"][:2] == ["8", "assumed"] and "default" in facts["GPUs per node"][2]
    assert facts["engine"][:2] == ["generic", "assumed"] and "engines.toml" in facts["engine"][2]
    assert facts["weights"][:2] == ["bf16", "assumed"] and "models.toml" in facts["weights"][2]
    assert facts["KV cache"][:2] == ["bf16", "assumed"]
    assert facts["interconnect"][1] == "assumed" and "gpus.toml" in facts["interconnect"][2]
    text = diagnose("scaling", str(csv), "--model", "llama-3-8b", "--gpu", "h100-sxm")
    assert "Layout: stated, given or assumed" in text.stdout
    assert [ln for ln in text.stdout.splitlines() if ln.strip().startswith("engine")][0].split()[:3] == \
        ["engine", "generic", "assumed"]


def test_options_given_are_not_assumed(tmp_path):
    csv = tmp_path / "runs.csv"
    csv.write_text(RUNS.replace("TP1,1,", "TP1,,").replace("TP2,1,", "TP2,,"))  # no batch stated
    result = diagnose("scaling", str(csv), "--model", "llama-3-8b", "--gpu", "h100-sxm", "--engine", "vllm",
                      "--dtype", "fp8", "--gpus-per-node", "4", "--kv-dtype", "fp8", "--batch", "4", "--json")
    assert result.exit_code in (0, 1), result.output + result.stderr
    facts = _layout(result)
    assert facts["GPUs per node"] == ["4", "given", "--gpus-per-node"]
    assert facts["engine"][1:] == ["given", "--engine; its release not stated: the newest release's profile, judged "
                                            "against every release's band"]
    assert facts["weights"] == ["fp8", "given", "--dtype"] and facts["KV cache"] == ["fp8", "given", "--kv-dtype"]
    assert facts["batch"][:2] == ["4", "given"]


def test_an_ollama_tag_states_its_weights(tmp_path):
    csv = tmp_path / "runs.csv"
    csv.write_text(RUNS)
    result = diagnose("scaling", str(csv), "--model", "llama3.1:8b-instruct-q8_0", "--gpu", "l40s", "--json")
    assert result.exit_code in (0, 1), result.output + result.stderr
    assert _layout(result)["weights"] == ["int8", "stated", "the model name 'llama3.1:8b-instruct-q8_0' (its "
                                          "quantisation, rules.catalog.named_weights)"]


def test_what_a_ticket_states_is_stated():
    result = diagnose("scaling", str(REPO / "samples" / "tickets" / "gptoss-tp2-slower"), "--json")
    assert result.exit_code in (0, 1), result.output + result.stderr
    facts = _layout(result)
    assert facts["GPU"][:2] == ["a100-80gb-sxm", "stated"] and "ticket.toml" in facts["GPU"][2]
    assert facts["engine"][1] == "stated" and facts["GPUs per node"][1] == "assumed"
