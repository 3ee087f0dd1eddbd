"""Issue 11 (h7): general gaps in ticket reasoning, each from documentation and physics.

Every sentence is a paraphrase written here, the way such situations are worded across threads and in the
tools' own output (NVML's utilisation, Ollama's `ollama ps`, llama.cpp's `-ngl`); none is copied from a
corpus case. Paraphrases must be read; negations, questions and suggestions must not.
"""

import pytest

from diagnose.evidence import Facts, Note
from rules import ticket_rules


def said(text: str, kind: str = "description") -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", kind, text))
    return facts


# 4. A GPU utilisation figure means the GPU runs: "no GPU goes above 40%" is no CPU-only engine.
@pytest.mark.parametrize("sentence", [
    "Upgrading the CPU made it faster; no GPU goes above 40% utilisation.",
    "The CPU is the bottleneck: one core at 100% and no GPU exceeds 35 %.",
    "One core is pegged and none of the GPUs gets past 30% util, the GPUs wait on the CPU.",
    "The CPU is the bottleneck, with no GPU ever reaching 50% while a core sits at 100%.",
])
def test_a_gpu_utilisation_figure_is_no_cpu_only_engine(sentence):
    facts = said(sentence)
    assert not ticket_rules._cpu_only(facts)
    assert [f.category for f in ticket_rules.cpu_bound(facts)] == ["host_bound"]


@pytest.mark.parametrize("sentence", [
    "There is no GPU in this box, the CPU is the bottleneck at 100%.",
    "Running without a GPU, the CPU is the bottleneck.",
    "It runs in CPU-only mode and the CPU is the bottleneck.",
])
def test_an_engine_without_a_gpu_stays_cpu_only(sentence):
    facts = said(sentence)
    assert ticket_rules._cpu_only(facts)
    assert not list(ticket_rules.cpu_bound(facts))
