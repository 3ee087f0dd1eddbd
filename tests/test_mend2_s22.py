"""Mends of the ticket's readings of the reporter's words (issue 11, session 22, second pass), each tested on real
sentences kept with their threads in tests/data/mend2_s22/*.toml (`adapted` says where the words were put in another
form) and on near-misses that must keep their reading:

1. P2P switched off by the reporter ("with P2P disabled", NCCL_P2P_DISABLE=1) is a setting, not the system refusing
   peer access: ticket.p2p_refused says so, the figures being SHM's, and keeps "refused" for CUDA's and NCCL's words;
2. a GPU count with its plural written informally ("3 gpu's", "2 gpu s") is read, and a count ending a list of counts
   ("in order to use 3, 5, 7 gpus", "2 or 4 GPUs") is none of them;
3. a failure that stopped after a move to a newer release of the engine ("upgraded vLLM from 0.5.4 to 0.6.0 and it no
   longer hangs") makes the newer release the good one, the cure, not a regression of it.
"""

from pathlib import Path

import pytest
from conftest import judged_issue, said, toml_cases, unsourced_cases

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims
from rules.common import gpu_count

DATA = Path(__file__).parent / "data" / "mend2_s22"
UT22A = Path(__file__).parent / "data" / "ut22a"


def _cases(name: str):
    return toml_cases(DATA, name)


def test_every_sentence_names_its_source():
    assert unsourced_cases(DATA) == []


# --------------------------------------------------------------------------- 1. "with P2P disabled"

@pytest.mark.parametrize("case", _cases("p2p_off_by_setting"))
def test_p2p_off_by_the_reporters_setting(case):
    facts = said(case["sentence"])
    found = [c for c in claims.claims(facts) if c.kind == "no_p2p"]
    assert found, case["sentence"]
    assert claims.p2p_off_by_setting(facts, found[0]) is case["setting"], case["sentence"]


def test_nccl1130_is_judged_as_the_reporters_setting():
    # NVIDIA/nccl#1130: all_reduce_perf run with P2P disabled, 35 GB/s across NUMA nodes vs 24 GB/s within one
    verdict, found = judged_issue((UT22A / "nccl1130.md").read_text())
    f = found["ticket.p2p_refused"]
    assert verdict.category == f.category == "p2p_disabled"
    assert "refused" not in f.title and "reporter" in f.title, f.title
    assert "SHM" in f.summary and "compare" in f.fix.lower(), (f.summary, f.fix)
    assert any("P2P off by setting" in e.detail for e in f.evidence)


HANG = """# NCCL hangs with 4 GPUs

The all-reduce hangs when using 4 RTX A6000 GPUs. {said}
"""


def test_a_refusal_keeps_its_reading_and_a_workaround_names_the_hangs_cause():
    # the system's refusal (CUDA's p2pBandwidthLatencyTest words, NVIDIA/nccl#257) stays "refused"
    _, found = judged_issue(HANG.format(said="Device=0 CANNOT Access Peer Device=2"))
    assert "refused" in found["ticket.p2p_refused"].title
    # P2P switched off to get past the hang (NVIDIA/nccl#631): the setting, and the hang's usual cause
    _, found = judged_issue(HANG.format(said="With P2P disabled it works, but the all-reduce is slower."))
    f = found["ticket.p2p_refused"]
    assert "refused" not in f.title and "ACS" in f.fix, (f.title, f.fix)


# --------------------------------------------------------------------------- 2. "3 gpu's", "3, 5, 7 gpus"

def _parsed(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


@pytest.mark.parametrize("case", _cases("gpu_count_informal"))
def test_an_informal_gpu_count_and_a_list_of_counts(case):
    assert gpu_count(_parsed(case["sentence"])) == case.get("gpus"), case["sentence"]


@pytest.mark.parametrize("text, gpus", [
    ("We tried 2 or 4 GPUs and both are slow.", None),
    ("Benchmarked on 4/8 GPUs.", None),
    ("CUDA 12.1, 8 GPUs", 8),            # a version's digits before the count are no list
    ("the 2 GPU's memory is full", 2),
    ("2 GPU support is missing", None),  # "GPU s" only as a word of its own
])
def test_counts_written_here(text, gpus):
    assert gpu_count(_parsed(text)) == gpus, text


def test_sonar426_reads_three_gpus():
    # dphnAI/sonar#426: "put a model on 3 gpu's" then "in order to use 3, 5, 7 gpus": three GPUs, not seven
    facts = _parsed((Path(__file__).parent / "data" / "ut22c" / "sonar426.md").read_text())
    assert gpu_count(facts) == 3


# --------------------------------------------------------------------------- 3. "... and it no longer hangs"

@pytest.mark.parametrize("case", _cases("release_cure"))
def test_the_release_a_failure_stopped_on_is_the_good_one(case):
    found = [c for c in claims.claims(said(case["sentence"])) if c.kind == "engine_versions_compared"]
    assert [c.data["good"] for c in found] == [case["good"]], case["sentence"]


def test_a_cure_by_upgrade_is_no_regression_of_the_newer_release():
    text = "# vLLM start-up\n\nI upgraded vLLM from 0.5.4 to 0.6.0 and it no longer hangs at start-up.\n"
    _, found = judged_issue(text)
    f = found["ticket.engine_versions"]
    assert "0.6.0 works where 0.5.4 did not" in f.title and "cure" in f.title, f.title
    assert "Stay on 0.6.0" in f.fix
    # the failure came with the move: the release left is the good one, the newer is what changed
    _, found = judged_issue(text.replace("no longer hangs", "hangs"))
    assert "cure" not in found["ticket.engine_versions"].title
