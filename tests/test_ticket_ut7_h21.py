"""Ticket figures and GPU names the user tester found misread after the ut7 run (fix h21): how a figure and
a GPU name are read and tied to each other. Each is tried on the tester's ticket, paraphrases written here
and a negation."""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts, Note
from rules.engine import evaluate


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
