"""batch43 (issue 11): batch 1 implied, not stated, by what ran. gpt-fast's generate.py and torchchat's generate (its
descendant) decode one prompt at --batch_size 1 by default (gpt-fast generate.py's argparse; "the benchmarks here are
all run with BS=1", its maintainer in meta-pytorch/gpt-fast#27): their command or their own output line is read as the
program that ran (diagnose.artifacts.issue_md PROGRAMS), and rules.stated_load prices its figures at batch 1 with
words that say the batch was implied. A batch above one set or printed beside it, a stated load, a serving benchmark's
prompt count or rate, hearsay with no command: no implied batch 1. Real pastes in tests/data/batch43 (SOURCES.md);
the short texts below marked "probe" are this pass's own."""

from pathlib import Path

import pytest
from test_batch32 import _code, _read  # the same paste wrapper: a title, the body, "Is this speed normal?"

from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement
from rules.stated_load import batch_words, load_for, program_load

DATA = Path(__file__).parent / "data" / "batch43"


@pytest.mark.parametrize("paste", ["torchchat653.md", "torchchat721.md", "torchchat852.md"])
def test_gpt_fast_and_torchchat_runs_imply_batch_1(paste):
    load = program_load(read_bundle(DATA / paste))
    assert load is not None and load[0] == 1 and "gpt-fast" in load[1]


def test_the_evidence_says_implied_not_stated():
    facts = read_bundle(DATA / "torchchat653.md")
    words, assumed = batch_words(facts, facts.of(Measurement)[0])
    assert words.startswith("batch 1 (gpt-fast's generate.py") and "implied, not stated" in words and not assumed


def test_a_batch_above_one_printed_beside_it_implies_nothing():
    # pytorch/ao#2273: torchao's gpt-fast fork run at --batch_size 1 and --batch_size 128 in one paste
    assert program_load(read_bundle(DATA / "ao2273.md")) is None


@pytest.mark.parametrize("body", [
    # probes: the command (fenced or in prose) and gpt-fast's own output line
    _code("python generate.py --compile --checkpoint_path checkpoints/meta-llama/Llama-2-7b-chat-hf/model.pth "
          "--prompt \"Hello, my name is\""),
    "I ran `python generate.py --checkpoint_path checkpoints/mistralai/Mistral-7B-v0.1/model_int8.pth --compile`.",
    _code("Time for inference 3: 1.52 sec total, 131.24 tokens/sec\nBandwidth achieved: 1734.01 GB/s"),
    _code("python generate.py --checkpoint_path checkpoints/x/model.pth --batch_size 1 --compile"),
])
def test_probes_imply_batch_1(tmp_path, body):
    load = program_load(_read(tmp_path, body))
    assert load is not None and load[0] == 1


@pytest.mark.parametrize("body", [
    # probes: a batch above one set or printed
    _code("python generate.py --checkpoint_path checkpoints/x/model.pth --batch_size 8 --compile"),
    _code("Time for inference 1: 2.10 sec total, 95.20 tokens/sec\n==========\nBatch Size: 4\nPrompt Length: 6"),
    # probes: hearsay and a guess name the program, not a run of it
    "I read that gpt-fast's generate.py runs at batch size 1 and reaches 190 tokens/s.",
    "Maybe the generate.py script of gpt-fast would be faster here.",
    # probes: another repository's generate.py (a hyphenated flag, no --checkpoint_path), and no program at all
    _code("python tools/llama/generate.py --text \"hello\" --checkpoint-path checkpoints/fish-speech-1.5"),
    _code("vllm bench serve --model meta-llama/Llama-3.1-8B --num-prompts 100 --request-rate 4"),
    "We serve many users with vLLM and each one sees about 20 tok/s.",
    # a program denied
    "I did not use generate.py --checkpoint_path checkpoints/x/model.pth, I use vLLM with 16 clients.",
])
def test_probes_imply_nothing(tmp_path, body):
    assert program_load(_read(tmp_path, body)) is None


@pytest.mark.xfail(strict=True, reason="advice ('try ...') naming a one-sequence program's command reads as the run, "
                                       "as it does for llama-cli and ollama run: PROGRAM_DENIED covers denials only")
def test_advice_implies_nothing(tmp_path):
    body = "You could try `python generate.py --checkpoint_path checkpoints/x/model.pth --compile` instead."
    assert program_load(_read(tmp_path, body)) is None


def test_a_stated_load_comes_before_the_program(tmp_path):
    # probe: the reporter's concurrency wins over the program's one-prompt default
    facts = _read(tmp_path, _code("python generate.py --checkpoint_path checkpoints/x/model.pth --compile")
                  + "\nI get 60 tokens/s. With 8 concurrent requests the rate drops to 20 tokens/s each.")
    m = next(m for m in facts.of(Measurement) if m.metric == "decode_tok_s")
    assert load_for(facts, m).n == 8
