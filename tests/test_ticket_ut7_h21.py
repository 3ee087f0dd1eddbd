"""Ticket figures and GPU names the user tester found misread after the ut7 run (fix h21): how a figure and
a GPU name are read and tied to each other. Each is tried on the tester's ticket, paraphrases written here
and a negation."""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts, Measurement, Note, Workload
from rules.engine import evaluate
from rules.subject import Subject


def issue(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def fired(text: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in evaluate(issue(text)):
        if f.confidence > 0:
            out.setdefault(f.rule, []).append(f)
    return out


def gpus_named(text: str) -> set[str]:
    """The distinct GPU products the prose names (the note is written only when it names two or more)."""
    return {g["name"] for n in issue(text).of(Note) if n.kind == "gpus_named" for g in n.data["gpus"]}


# --------------------------------------------------------------------------- 1. "A100 80GB" is one GPU name

@pytest.mark.parametrize("text, gpu", [
    # the tester's vLLM template ticket
    ("### Your current environment\n\nGPU: A100 80GB\nvLLM: 0.6.3\n\n### Describe the bug\n\n"
     "On my A100 the server hangs at startup.", "A100"),
    ("# Slow on my 3090\n\nGPU: RTX 3090 24GB.\nIs 20 tok/s normal for Llama-2-13B on this 3090?", "3090"),
    ("# 4090 decode\n\n- GPU: RTX 4090 24GB\n\nThe 4090 gives 40 tok/s on Llama-2-7B.", "4090"),
    ("# hang\n\nHardware: one A100-40GB (the A100 is idle otherwise).", "A100"),
    ("# V100\n\nGPU: Tesla V100 32G\nThe V100 runs out of memory.", "V100"),
])
def test_a_gpu_name_with_its_memory_size_is_one_name(text, gpu):
    assert gpus_named(text) in (set(), {gpu})
    assert "ticket.mixed_gpus" not in fired(text)


def test_two_products_with_sizes_are_still_two():
    # negation: an A10 24GB and an A100 80GB in one box are different cards
    text = "# slow split\n\n- GPU 0: A10 24GB\n- GPU 1: A100 80GB\n\nThe layer split over both is slow."
    assert gpus_named(text) == {"A10", "A100"}
    assert "ticket.mixed_gpus" in fired(text)


# --------------------------------------------------------------------------- 13. figures read whole; llama-bench models

def rates(text: str) -> list[float]:
    return [m.value for m in issue(text).of(Measurement) if m.unit == "tok/s"]


def times(text: str) -> list[float]:
    return [m.value for m in issue(text).of(Measurement) if m.unit == "ms"]


@pytest.mark.parametrize("text", [
    "# huge\n\nLlama-2-7B on one H100 gives 1e308 tok/s. Is this normal?",  # the tester's bad/huge.md
    "# fast\n\nMy 4090 reports 2.5e3 tokens/s for Llama-2-7B at batch 1.",
    "# q\n\nvLLM prints 1E+05 tok/s on one A100, is that right?",
    "# itl\n\nTPOT is 1e308 ms on one H100.",
])
def test_a_figure_in_exponent_notation_is_not_read_as_its_exponent(text):
    assert rates(text) + times(text) == []  # not at all, rather than a part of it


@pytest.mark.parametrize("text, value", [
    # negation: plain figures, glued to CJK or after a colon, are still read
    ("# q\n\nLlama-2-7B on one H100 gives 308 tok/s. Is this normal?", 308.0),
    ("# q\n\n我用一张4090跑Llama-2-7B，单请求速度是500tokens/s。", 500.0),
    ("# q\n\nLlama-2-7B on two A100, with TP=2:45 tok/s.", 45.0),
])
def test_a_plain_figure_is_still_read(text, value):
    assert value in rates(text)


def bench(cell: str, params: str, rate: str = "33.10 ± 0.20") -> str:
    return ("# Is this normal?\n\n```\n| model | size | params | backend | ngl | test | t/s |\n"
            "| ------ | ---------: | ---------: | ---------- | --: | ------------: | -------------------: |\n"
            f"| {cell} | 7.33 GiB | {params} | CUDA | 99 | pp512 | 2890.12 ± 8.41 |\n"
            f"| {cell} | 7.33 GiB | {params} | CUDA | 99 | tg128 | {rate} |\n```\nGPU: RTX 3090 24GB.")


@pytest.mark.parametrize("cell, params, model", [
    ("llama 13B Q4_K - Medium", "13.02 B", "llama-2-13b"),  # the tester's x02/y04 table
    ("llama 8B Q4_0", "8.03 B", "llama-3-8b"),
    ("llama 7B Q4_0", "6.74 B", "llama-2-7b"),
    ("llama 7B Q8_0", "7.24 B", "mistral-7b"),  # Mistral 7B prints as "llama 7B": its params tell it apart
    ("qwen3moe 30B.A3B Q4_K - Medium", "30.53 B", "qwen3-30b-a3b"),  # the tester's t20 table
])
def test_a_llama_bench_model_cell_names_the_model(cell, params, model):
    facts = issue(bench(cell, params))
    assert 33.1 in [m.value for m in facts.of(Measurement)]
    assert Subject.of(facts).model.key.split(" ")[0] == model
    assert ("int4" if "Q4" in cell else "int8") in [w.dtype for w in facts.of(Workload)]  # the weights it ran


def test_a_llama_bench_model_the_catalog_lacks_is_no_guess():
    # negation: a mixture the catalog does not hold gets no dense stand-in
    facts = issue(bench("gpt-oss 120B MXFP4 MoE", "116.83 B"))
    assert Subject.of(facts).model is None


def test_the_prose_model_wins_over_the_table_cell():
    facts = issue(bench("llama 13B Q4_K - Medium", "13.02 B").replace("# Is this normal?",
                                                                        "# Llama-2-13B-chat: is this normal?"))
    assert Subject.of(facts).model.key == "llama-2-13b"
