"""extract30 (issue 11): what the ticket reader extracts from 23 real "is this normal? / doesn't scale" pastes,
compared with a hand annotation (tests/data/extract30/facts.toml, scored by scripts/extract30_score.py), and the four
parser readings this pass added, on real sentences from other threads (tests/data/extract30/sentences.toml)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import tomllib

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement
from rules.subject import model_named

DATA = Path(__file__).parent / "data" / "extract30"
_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "extract30_score.py"
_spec = importlib.util.spec_from_file_location("extract30_score", _SCRIPT)
score = importlib.util.module_from_spec(_spec)
sys.modules["extract30_score"] = score  # (its dataclass looks its module up while it is built)
_spec.loader.exec_module(score)

TRUTH = tomllib.loads((DATA / "facts.toml").read_text())["paste"]
SENTENCES = tomllib.loads((DATA / "sentences.toml").read_text())

_ONE_GPU = "one GPU is implied (a single card named, no count), not said as a count"
_TP_UNSAID = "the TP size is implied by the GPUs named (\"L20x8\", \"8X A100\", one card), never written"
# Facts the reader still misses or reads wrong: each a strict xfail, so a fix shows up as an XPASS to move here.
# (count32 moved out the GPU counts of one board named alone, rules.common._one_board; of a launch with no TP flag,
# the server's documented TP 1; of a TP size, rules.common.layout_gpus; and of one server's launch inside a larger
# inventory, rules.common.job_gpus; count34 the TP 1 of a job counted on one GPU, which the rules price at TP 1,
# rules.ticket_figures.assumed_tp)
KNOWN_GAPS = {
    ("lmdeploy137", "figures"): "profile_generation's 'throughput' at --concurrency 8 is every stream's together; "
                                "held as one stream's decode rate (the concurrency is on the command line)",
    ("exllamav2_806", "gpus"): _ONE_GPU,
    ("exllamav2_806", "tp"): _TP_UNSAID,
    ("llama471", "tp"): _TP_UNSAID,
    ("llama471", "figures"): "'one token latency about 68~70 ms' is read as its middle (fig30); '60~703ms', a typo "
                             "whose ends are over 10x apart, has no middle and is left unread",
    ("vllm18725", "gpu"): "the title names B200 and H200; the measured block is the H200's, the reader takes B200",
    ("qwen244", "figures"): "an offline throughput over 100 prompts is every stream's together; held as one stream's",
    ("lmdeploy619", "batch"): "--instance_num 32 (lmdeploy's concurrency) is not read as the load",
    ("lmdeploy619", "figures"): "'the rps(request/s) is about 7' is not read as a request rate",
    ("megatronllama24", "figures"): "Megatron's training iteration lines: the tokens/s per GPU and iteration times are "
                                    "not read, and 'average overall token/sec' is held as a decode rate",
    ("llmawq62", "engine"): "a plain transformers generate() loop is not named as HF eager",
    ("llmawq62", "batch"): "batch 1 is implied by the loop, not written: the loop is pseudocode between lone backticks "
                           "(no fence) calling model.generate() with no arguments, and the one-prompt reading "
                           "(issue_md._one_prompt_call) reads fenced blocks (batch43)",
    ("vllm5316", "model"): "'phi3' with no size (phi-3-mini's 4k variant) is not resolved",
    ("autoawq76", "batch"): "batch 1 is implied, not written: no command, code or words in the paste say one request "
                            "(a table of AutoAWQ and ExLlamaV2 rates); the rules assume it (batch43)",
    ("autoawq76", "figures"): "a fenced, space-aligned table whose header names 'tokens/s' is not read",
    ("llmawq52", "batch"): "batch 1 is implied, not written: nothing in the paste (a table of rates) says one request; "
                           "the rules assume it (batch43)",
    ("tgi1452", "figures"): "text-generation-benchmark's latency and throughput tables are not read",
    ("nccl1218", "figures"): "'340GB' (all_reduce, no '/s') is not read as a bandwidth",
    ("textgen2410", "dtype"): "'bf16 and or 8bit or 4 bit' names three formats; none is taken",
    ("textgen2410", "figures"): "the MPT models' '15-18 tokens/ second' is held as the llama models' rate",
    ("vllm2048", "tp"): "'on eight T4 GPUs' does not say TP 8",
    ("vllm2048", "engine"): "the paste names vLLM only by its repository",
    ("llamacpp6740", "gpu"): "'4 A10s' on a g5.12xlarge: the word A10 wins over the instance's A10G",
    ("llamacpp6740", "engine"): "llama.cpp is named only by the repository",
    ("llamacpp6740", "batch"): "one request is implied, not written: no llama-cli / main command or output is pasted "
                               "(batch43)",
    ("llamacpp6740", "figures"): "the prompt-processing rate is now dropped as a decode rate, not yet kept as "
                                 "prefill_tok_s",
    ("gptfast225", "model"): "'Mixtral' with no size in prose is not resolved",
    ("gptfast225", "engine"): "gpt-fast is named only as 'the mixtral-moe README'",
    ("gptfast225", "batch"): "batch 1 is implied, not written: the figure is gpt-fast's README one, but no generate.py "
                             "command or output is pasted, so no program implies it (batch43 reads those)",
    ("gptfast225", "figures"): "'23 msec/tok > 10.4 msec/tok' restates an estimate ('let's say ... requires 23 msec', "
                               "not read) and is held as a measured per-token latency",
    ("vllm5658", "dtype"): "'VLLM 16bf' is not read as bf16",
    ("vllm4852", "tp"): _TP_UNSAID,
    ("vllm4852", "figures"): "'TPOT slower than v0.4.0.post, 48ms vs 39ms' in the title is not read",
}

CASES = [(name, kind) for name, t in TRUTH.items() for kind in score.KINDS]


@pytest.fixture(scope="module")
def readings():
    return {name: score.score(t, score.read(DATA / f"{name}.md")) for name, t in TRUTH.items()}


def _case(name: str, kind: str):
    gap = KNOWN_GAPS.get((name, kind))
    return pytest.param(name, kind, marks=pytest.mark.xfail(strict=True, reason=gap)) if gap else (name, kind)


@pytest.mark.parametrize("name,kind", [_case(n, k) for n, k in CASES])
def test_annotated_fact_is_read(readings, name, kind):
    """Every annotated fact of this type in this paste is read right (n/a facts score nothing and pass)."""
    marks = readings[name][kind]
    assert all(m == "right" for m in marks), f"{name} {kind}: {marks}"


def test_known_gaps_name_real_facts():
    """Each known gap names a paste and fact type of the annotation (no stale entry)."""
    assert set(KNOWN_GAPS) <= set(CASES)


def _rates(text: str) -> list[float]:
    # (a line naming the GPU first, as a paste would: the sentence is read as one line of a ticket's prose)
    records = issue_md.parse("I run it on an RTX 3090.\n\n" + text, "sentence.md")
    return [m.value for m in records if isinstance(m, Measurement) and m.metric == "decode_tok_s"]


@pytest.mark.parametrize("s", SENTENCES["sentence"], ids=lambda s: s["what"][:40])
def test_sentence_rates(s):
    """A published figure or a prompt-processing rate is not a decode rate; the reporter's own figures stay."""
    got = _rates(s["text"])
    for value in s["held"]:
        assert value in got, (s["source"], got)
    for value in s["dropped"]:
        assert value not in got, (s["source"], got)


@pytest.mark.parametrize("c", SENTENCES["clause"], ids=lambda c: c["what"][:40])
def test_reference_clause(c):
    assert bool(issue_md.REFERENCE_FIGURE.search(c["text"])) == c["reference"], c["source"]


@pytest.mark.parametrize("m", SENTENCES["model"], ids=lambda m: m["name"])
def test_experts_count_last(m):
    """'Mixtral 7bx8' is the catalog's Mixtral-8x7B, as its own text says; the prose reader keeps the name."""
    assert m["name"] in issue_md._models_in(m["text"])
    assert model_named(m["name"]).key == m["key"]


@pytest.mark.parametrize("s", SENTENCES["latency"], ids=lambda s: s["source"][:40])
def test_per_token_latency_names(s):
    """'one token latency = 137 ms' is a per-token latency; the name with no figure after it is none."""
    records = issue_md.parse("I run it on an RTX 3090.\n\n" + s["text"], "sentence.md")
    assert [m.value for m in records if isinstance(m, Measurement) and m.metric == "itl_ms"] == s["itl_ms"]
