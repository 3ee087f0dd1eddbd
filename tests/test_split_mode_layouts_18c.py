"""llama.cpp's split modes as the two layouts they are (issue 11, batch u18c): `row` / `tensor` split every weight
matrix over the GPUs (tensor parallelism), `layer`, the default, hands each GPU a run of whole layers (a pipeline;
ggml-org/llama.cpp docs/multi-gpu.md). A layer split measured slower than a row or tensor split of the same GPUs is
the pipeline's turn-taking seen (ticket.pp_bubble).

Real sentences from other threads, each with its source; the one development case is the thread the wording was
met in (ollama/ollama#2191); written sentences give the forms the llama.cpp docs and Ollama's options use.
"""

import pytest
from test_ticket_numbers import _rule, _said
from test_ticket_questions import development_case

from rules import claims
from rules.engine import evaluate, ticket_verdict


@pytest.mark.parametrize("sentence,pp_wins", [
    # the flag, the setting and the words, each direction
    ("With -sm row I get 21 t/s, which is faster than -sm layer at 14 t/s on my two 3090s.", False),
    ("--split-mode layer is slower than --split-mode row here: 9 tok/s against 15.", False),
    ('split_mode: "row" gives lower throughput than split_mode: "layer" on these P40s.', True),
    ("A row split ran worse than a layer split on the PCIe cards.", True),
    ("Splitting by rows is faster than splitting by layers for one request.", False),
])
def test_split_modes_are_read_as_tensor_against_pipeline(sentence, pp_wins):
    (c,) = claims.tp_pp_compared(_said(sentence))
    assert c.data["pp_wins"] is pp_wins


@pytest.mark.parametrize("sentence", [
    # ggml-org/llama.cpp#6476 (8XXD8, 2024-04-04): the two modes equal, a regression report, no winner
    "Since `b2475` row split and layer split has the same performance.",
    # ggml-org/llama.cpp#16767 (jeffbolznv, 2025-10-25): one mode only
    "Split row isn't supported yet for vulkan. Split layer should work, but won't be faster unless the model doesn't "
    "fit in one GPU.",
    # LostRuins/koboldcpp#642 (Nexesenex, 2024-02-11)
    "Rows split mode is slower on Ampere.",
    # oobabooga/textgen#5435 (oobabooga, 2024-02-04): a question about one mode
    "Is there a reason to not have split by rows by default if it leads to better performance?",
    # --tensor-split is llama.cpp's per-GPU proportion for either mode, not a split mode
    "I set --tensor-split 3,1 and -sm layer; it is slower than before.",
])
def test_no_split_mode_comparison_where_none_is_made(sentence):
    assert claims.tp_pp_compared(_said(sentence)) == []


def test_a_neutral_ab_of_the_modes_is_no_pipeline_loss():
    """anthony-chaudhary/fak#3075 (2026-07-10): the A/B named, its result in a table the sentence does not carry: no
    winner read as the pipeline's loss, so no bubble from it."""
    facts = _said("the acceptance bar asked for a *recorded* single-stream decode A/B (`-sm row` vs `-sm layer`) on "
                  "the same weights, with the mid-decode per-GPU nvidia-smi snapshot.")
    (c,) = claims.tp_pp_compared(facts)
    assert c.data["pp_wins"] is True
    assert not _rule(evaluate(facts), "ticket.pp_bubble")


def test_a_layer_split_measured_slower_than_row_split_is_the_pipeline_bubble(tmp_path):
    """ollama/ollama#2191 (development case u18c01): two RTX A6000 with an NVLink bridge, split_mode layer at ~60 % of
    the tokens/s of split_mode row. The pipeline split's turn-taking is the cause; the fix names the row or tensor
    split."""
    facts = development_case(tmp_path, "u18c01")
    findings = evaluate(facts)
    (f,) = _rule(findings, "ticket.pp_bubble")
    assert any("layer) split measured slower" in e.detail for e in f.evidence)
    assert "--split-mode row or tensor" in f.fix
    assert ticket_verdict(facts, findings).category == "pp_bubble"


def test_a_layer_split_named_alone_is_no_bubble():
    """A layer split with nothing set against it (the layout most multi-GPU llama.cpp users run) says nothing about a
    faster layout: no pipeline bubble is read from the words alone."""
    facts = _said("I run llama.cpp with -sm layer on two 3090s and get 18 tok/s on a 70B Q4. Is that normal?")
    assert not _rule(evaluate(facts), "ticket.pp_bubble")


@pytest.mark.parametrize("sentence", [
    # anthony-chaudhary/fak#3075 (2026-07-10) with the two modes in the other order: a neutral A/B names no winner
    # whichever mode comes first (the thread's table has -sm layer 3.28x FASTER than -sm row)
    "the acceptance bar asked for a *recorded* single-stream decode A/B (`-sm layer` vs `-sm row`) on the same "
    "weights, with the mid-decode per-GPU nvidia-smi snapshot.",
    "Comparing a layer split vs a row split on two L40S with the same model and prompts.",
    # ollama/ollama#2191 (jukofyork, 2024-01-25) said as a comparison: memory, not speed
    'Using `split_mode = "layer"` seems to allocate the VRAM much more evenly than `split_mode = "row"`.',
    "A layer split needs less memory on GPU 0 than a row split.",
    # a speed comparison denied
    "On my P40s --split-mode layer is not slower than --split-mode row.",
    "-sm layer isn't worse than -sm row for me.",
])
def test_no_pipeline_loss_without_a_speed_said_against_it(sentence):
    """pp_bubble reads a comparison as the pipeline's loss only when it says which layout is faster or slower: a bare
    'vs', a 'than' about memory, or a denied 'slower' names no loser, even in a ticket that complains of speed."""
    facts = _said("Generation is slow, 14 tok/s on two GPUs. " + sentence)
    assert all(not c.data["directed"] for c in claims.tp_pp_compared(facts))
    assert not _rule(evaluate(facts), "ticket.pp_bubble")
