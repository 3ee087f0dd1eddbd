"""xfail43b: partial offload said in words, not as a log line or an 'n/m layers' figure.

llama.cpp and Ollama put on the GPU the layers that fit in VRAM and run the rest from system memory (Ollama's FAQ and
llama.cpp's -ngl; ticket.partial_offload already answers it host_bound). Three separate real threads say that split in
words the claim reader did not take: a count with "only" and the model's total later in the sentence
(ollama/ollama#5843), halves ("half layers to gpu, half to cpu", ollama/ollama#9181) and a count on the CPU ("one layer
always gets offloaded to CPU", ollama/ollama#11162, the sentence the readings were not written from). Guides say the
same split as advice, which stays a guess. See tests/data/xfail43b/NOTES.md for the grouping of the strict xfails.
"""

from pathlib import Path

import pytest
from conftest import judged_issue, said

from rules import claims

DATA = Path(__file__).parent / "data"


def _offload(sentence: str):
    return [c for c in claims.partial_offload(said(f"# t\n\n{sentence}\n")) if c.data["form"] in ("words", "offloaded")]


def _affirmed(sentence: str):
    return [c for c in _offload(sentence) if not c.negated and not c.guess]


@pytest.mark.parametrize("name", ["ollama5843.md", "ollama9181.md"])
def test_the_kept_pastes_are_partial_offload(name):
    """The two first posts once kept as strict xfails in tests/test_warnings33.py (their threads settled host_bound)."""
    verdict, found = judged_issue((DATA / "warnings33" / name).read_text())
    assert verdict.category == "host_bound"
    assert "ticket.partial_offload" in found


def test_the_count_and_the_total_are_read():
    # ollama/ollama#5843 (the paste's own sentence): 27 of 43 on the GPU, a "when" of observation, not a condition
    found = _affirmed("Currently when I am running gemma2 (using Ollama serve) on my device by default only 27 layers "
                      "are offloaded on GPU, but I want to offload all 43 layers to GPU")
    assert [(c.data.get("on_gpu"), c.data.get("layers")) for c in found] == [(27, 43)]


@pytest.mark.parametrize("sentence", [
    "Ollama offloads only half layers to gpu, half to cpu on 4x L4 (4x 24GB) !",  # ollama/ollama#9181 (written from)
    # ollama/ollama#11162, the first post (its log: layers.model=63 layers.offload=62); not written from
    "Hi, when running gemma3:27b-it-fp16 on a dual 5090 setup, one layer always gets offloaded to CPU despite VRAM "
    "still available.",
    "probe: only 30 layers are offloaded to the GPU.",
    "probe: why are only 30 layers offloaded to the GPU?",  # a why-question's premise is observed
    "probe: two layers stay on the CPU.",
    "probe: half of the layers went to the GPU and the rest to system RAM.",
])
def test_a_split_said_in_words_is_read(sentence):
    assert _affirmed(sentence)


@pytest.mark.parametrize("sentence", [
    # a public guide (index id 56944834324): advice, not this machine
    "If a 70B Q4 model needs 40 GB but you only have a 24 GB GPU, you can load some layers to GPU and the rest to "
    "CPU RAM.",
    # a public explainer (index id 52249680380): a condition
    "If your GPU has 6GB VRAM and the model needs 8GB, you offload 20 layers to GPU and the rest to CPU.",
    "probe: I read that only 30 layers are offloaded to the GPU on 8 GB cards.",  # hearsay
    "probe: I think only 30 layers are offloaded to the GPU.",  # a guess
    "probe: if two layers stay on the CPU it is slow.",  # a condition
    "probe: try putting half the layers on the GPU and half on the CPU.",  # advice
    "probe: does half the model go to the GPU and half to the CPU?",  # a yes/no question
    "probe: two layers do not stay on the CPU.",  # negated
    "probe: one layer never gets offloaded to the CPU.",  # negated
    "probe: no layers are offloaded to CPU, all 43 layers are on GPU.",  # ruled out
    "probe: only 43 layers are offloaded to the GPU, all 43 layers of it.",  # the whole model
    "probe: 0 layers offloaded to CPU.",  # none
    "probe: only 30 layers fit in the attention block.",  # near-miss: no placement
    "probe: the model has 32 layers and runs on the GPU.",  # near-miss: the whole model on the GPU
])
def test_no_split_where_none_is_observed(sentence):
    assert not _affirmed(sentence)
