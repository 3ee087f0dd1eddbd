"""Integrator's mends after the last review (review of fix-h25 and issue-11u): an engine that splits by layers only
(llama.cpp, Ollama: engines.toml parallel) is predicted as its layer split whatever the flags ask, as `scaling`
reads a row of it; an issue of one bare question has nothing to call normal; a GGUF file name as the ticket's model
is read as predict reads it."""
import json

import pytest
from click.testing import CliRunner

from diagnose.cli import cli


def _layouts(*args):
    out = CliRunner().invoke(cli, ["predict", *args, "--json"])
    assert out.exit_code in (0, 1), out.output
    return [(x["tp"], x["pp"], x["dp"]) for x in json.loads(out.output)["predictions"]["layouts"]]


@pytest.mark.parametrize("engine", ["llamacpp", "ollama"])
@pytest.mark.parametrize("tp", ["2", "4"])
def test_a_tp_size_asked_of_a_layer_split_engine_is_its_layer_split(engine, tp):
    layouts = _layouts("--model", "llama-3-70b", "--gpu", "rtx-3090", "--quant", "Q4_K_M", "--tp", tp,
                       "--engine", engine)
    assert layouts == [(1, int(tp), 1)]


def test_a_gpu_count_sweep_of_a_layer_split_engine_tries_every_split_that_divides_it():
    layouts = _layouts("--model", "llama-3-70b", "--gpu", "rtx-4090", "--gpus", "3", "--engine", "ollama",
                       "--quant", "Q4_K_M")
    assert (1, 3, 1) in layouts and all(tp == 1 for tp, _, _ in layouts)
    assert {pp * dp for _, pp, dp in layouts} == {3}


def test_a_tensor_parallel_engine_keeps_its_tp_sizes():
    layouts = _layouts("--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "4", "--engine", "vllm")
    assert layouts == [(4, 1, 1)]


def _verdict(tmp_path, text):
    (tmp_path / "issue.md").write_text(text)
    out = CliRunner().invoke(cli, ["ticket", str(tmp_path), "--json"])
    assert out.exit_code in (0, 1), out.output
    return json.loads(out.output)["verdict"]["category"]


@pytest.mark.parametrize("text", ["Is that normal?\n", "Is this expected?\n", "正常吗？\n"])
def test_a_bare_question_has_nothing_to_call_normal(tmp_path, text):
    assert _verdict(tmp_path, text) == "insufficient_data"


def test_a_question_about_a_described_behaviour_is_still_answered(tmp_path):
    text = "nvidia-smi shows my RTX 3090 idling at P2 with 38W / 350W while vLLM waits for requests. Is that normal?\n"
    assert _verdict(tmp_path, text) == "healthy"


@pytest.mark.parametrize("name", ["Meta-Llama-3-8B-Instruct-Q4_K_M.gguf", "Meta-Llama-3-8B-Instruct.Q5_K_M.gguf"])
def test_a_gguf_file_name_as_the_tickets_model_is_read(tmp_path, name):
    (tmp_path / "ticket.toml").write_text(
        '[hardware]\ngpu = "NVIDIA GeForce RTX 4090"\ngpu_count = 1\n[software]\nframework = "llama.cpp"\n'
        f'[workload]\nmodel = "{name}"\n[[measured]]\nmetric = "decode_tok_s"\nvalue = 120\nbatch = 1\n')
    out = CliRunner().invoke(cli, ["ticket", str(tmp_path), "--json"])
    report = json.loads(out.output)
    assert report["verdict"]["category"] == "expected_physics"
    assert any(f["rule"] == "ticket.measured_vs_expected" for f in report["findings"])
