"""Mends of the ticket's readings of the reporter's words (issue 11, session 22), each tested on real sentences kept
with their threads in tests/data/mend_s22/*.toml (`adapted` says where the words were put in another form) and on
near-misses that must keep their reading:

1. a GPU count with each card's memory between the count and the name ("8 32GB-V100", "2 * 40GB GPUs（NVIDIA L40S）",
   "4x 80GB A100"): issue_md.GPU_COUNT and GPUS_COUNTED read it, the size going with the board's name;
2. DeepSpeed ZeRO-Inference's parameter offload (the example scripts' --cpu_offload / --cpu-offload / --disk-offload
   under DeepSpeed, a ZeRO config's "offload_param" device) is weights streamed from the host each step
   (claims.partial_offload form "zero", ticket_offload.placements); vLLM's --cpu-offload-gb and llama.cpp's -ngl were
   read already (forms "pcie", "ngl");
3. a "when/if N GPUs" condition followed by an observed outcome ("it always hangs") is the failure's scope, observed
   (claims.count_scope);
4. an idle reading asked ("Persistence mode will switch to p8 when idle ?") is no reading
   (ticket_questions.idle_reading);
5. accelerate's offload warning read from its own words, not from prose that says "offloaded to the CPU".
"""

from pathlib import Path

import pytest
from conftest import judged_issue, said, toml_cases, unsourced_cases

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims, ticket_questions
from rules.common import gpu_count

DATA = Path(__file__).parent / "data" / "mend_s22"


def _cases(name: str):
    return toml_cases(DATA, name)


def _parsed(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def test_every_sentence_names_its_source():
    assert unsourced_cases(DATA) == []


# --------------------------------------------------------------------------- 1. "8 32GB-V100"

@pytest.mark.parametrize("case", _cases("gpu_count_sized"))
def test_a_count_with_the_cards_memory_before_the_name(case):
    facts = _parsed(case["sentence"])
    assert gpu_count(facts) == case.get("gpus"), case["sentence"]
    if "gpu" in case:
        assert facts.workload().gpu == case["gpu"]


@pytest.mark.parametrize("text, gpus", [
    ("Running on 2x 16GB RTX 4060 Ti.", 2),
    ("We have 4 x 48GB A6000 in one box.", 4),
    ("One node with 8x 141GB H200.", 8),
    ("two 24 GB GPUs", 2),
    ("I have 32 GB GPUs", None),        # a size, not a count
    ("I have 128GB RAM and a 4090", 1),  # the host's memory is no count; the one board is one GPU (count32)
    ("64GB RAM, 2 RTX 3090", 2),
])
def test_sized_counts_written_here(text, gpus):
    assert gpu_count(_parsed(text)) == gpus, text


@pytest.mark.parametrize("text, memory", [
    ("My machine have 500GB CPU memory and have 8 32GB-V100.", 32),  # the 32 GB V100, not the 16 GB a bare name gives
    ("Running on 2x 48GB RTX 4090 (modded).", 48),   # a size the catalog knows only as refitted: the reporter's
    ("We run 4x 512GB A100.", 80),                    # over twice any A100: no board's size, the catalog's row stands
])
def test_the_size_said_first_is_judged_against_the_board(text, memory):
    from rules.subject import Subject

    assert Subject.of(_parsed(text)).gpu.memory_gb == memory, text


# --------------------------------------------------------------------------- 3. "when ... more than 4, it always hangs"

@pytest.mark.parametrize("case", _cases("count_scope_observed"))
def test_a_condition_with_an_observed_outcome_is_the_scope(case):
    found = claims.count_scope(said(case["sentence"]))
    assert found and all(c.guess is case["guess"] for c in found), [(c.data, c.guess) for c in found]


# --------------------------------------------------------------------------- 4. "... when idle ?"

@pytest.mark.parametrize("case", _cases("idle_question"))
def test_an_idle_reading_asked_is_no_reading(case):
    assert (ticket_questions.idle_reading(said(case["sentence"])) is not None) is case["found"]


# --------------------------------------------------------------------------- 5. accelerate's warning

@pytest.mark.parametrize("case", _cases("accelerate_warning"))
def test_accelerate_warning_read_from_its_own_words(case):
    found = [c.data["to"] for c in claims.partial_offload(said(case["sentence"])) if c.data["form"] == "accelerate"]
    assert found == ([case["to"]] if "to" in case else []), case["sentence"]


# --------------------------------------------------------------------------- 2. DeepSpeed's parameter offload

@pytest.mark.parametrize("case", _cases("zero_offload"))
def test_zero_inference_offload_read_from_its_flags_and_config(case):
    found = [c.data["to"] for c in claims.partial_offload(said(case["sentence"])) if c.data["form"] == "zero"]
    assert found == ([case["to"]] if "to" in case else []), case["sentence"]


DS_2892 = """# [BUG] run zero inference too slow

My machine have 500GB CPU memory and have 8 32GB-V100. Generation runs at {rate} tokens/s.
The below is the command to run this script
```
deepspeed --num_gpus 8 bloom-inference-scripts/bloom-ds-zero-inference.py --name bigscience/bloom --batch_size 1 {flag}
```
"""


def test_zero_offload_is_judged_as_weights_streamed_from_the_host():
    # deepspeedai/DeepSpeed#2892 (its rate put as a figure: 2000 s for 50 tokens): BLOOM-176B's 352 GB over 8 GPUs,
    # each copying its 44 GB share from the host every step
    verdict, found = judged_issue(DS_2892.format(rate="0.03", flag="--cpu_offload --benchmark"))
    f = found["ticket.offload_rate"]
    assert f.category == "host_bound" and "44.1 GB" in f.title
    assert any("ZeRO-Inference parameter offload to cpu" in e.detail for e in f.evidence)
    # without the flag nothing says the weights are on the host
    _, found = judged_issue(DS_2892.format(rate="0.03", flag="--benchmark"))
    assert "ticket.offload_rate" not in found
