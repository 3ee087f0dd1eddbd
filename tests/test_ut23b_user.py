"""Defects found by answering real public threads as a support engineer (session s23, helper b, tests/data/ut23b;
SOURCES.md gives each thread's address, the answer it established and the verdict before and after), each fixed in
general and tested here on the paste that showed it, on a real sentence from another thread, and on negations:

- a release named as the cure in the passive with its verb's ending slipped after the auxiliary ("ncclCommAbort hangs
  when using NCCL 2.25.1-1 ... This is fixes with NCCL 2.26.2-1", pytorch/pytorch#149153) was no cure, so the hang
  on 2.25.1 had no good side and the verdict was `insufficient_data` instead of `nccl_regression`; the passive ("is",
  "was", "been", "got" before a cure verb, as "this bug has been fixed in 2.4.6", NVIDIA/nccl#238) is now read whatever
  the ending, and the noun ("there are fixes in 2.26.2") is not;
- ranks that enter one collective with different calls ("Ranks 0, 1, and 3 attempt to broadcast 64 floats. Rank 2
  attempts to broadcast 24,084,544 floats ... the tensor shapes do not match", modelscope/ms-swift#10183; NCCL's "Your
  program may be hanging, this may be caused by a collective mismatch around rank 1",
  Lightning-AI/pytorch-lightning#8214; Horovod's "different ranks are trying to submit different tensors",
  horovod/horovod#334) were no cause of their own: the program's divergence is now a catalog error
  (rules/catalog/engine_errors.toml collective_mismatch, `other`) instead of a PCIe hang or a starved GPU;
- GPUs called idle in a job that hangs, or beside a utilisation figure of 100 % ("an NCCL hang that caused the GPUs to
  remain idle ... GPU utilization stays at 100%", modelscope/ms-swift#10183) were read as a host that starves them
  (`host_bound`): a stalled collective spins in NCCL's kernel, which NVML counts busy; a low figure beside the hang
  ("nearly always hangs ... nvidia-smi shows one GPU has 0% utilization", InternLM/lmdeploy#2144) is still read.
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims
from rules.catalog import engine_errors

DATA = Path(__file__).parent / "data" / "ut23b"


def report(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def ticket(tmp_path, text: str) -> dict:
    (tmp_path / "issue.md").write_text(text)
    return report_json("ticket", str(tmp_path / "issue.md"))


# --------------------------------------------------------------------------- a release named as the cure, passive

def test_release_the_maintainer_names_as_the_fix_is_the_good_side():
    r = report("pytorch149153.md")
    assert r["verdict"]["category"] == "nccl_regression"
    f = finding(r, "nccl.regression")
    assert f and "2.25.1" in f["title"] and "2.26.2" in f["title"]


def test_the_passive_cure_in_another_thread():
    # NVIDIA/nccl#238 (wangsiyu): the same construction with its usual ending
    assert claims._CURED_WITH.search("But I think this bug has been fixed in 2.4.6 according to its release note.")
    good, bad = claims.release_sides("The job hangs with NCCL 2.25.1. This is fixes with NCCL 2.26.2.")
    assert good == {"2.26.2"} and bad == {"2.25.1"}


@pytest.mark.parametrize("text", [
    "The job hangs with NCCL 2.25.1. There are fixes in NCCL 2.26.2 for other things.",  # the noun
    "The job hangs with NCCL 2.25.1. This is not fixed in NCCL 2.26.2 either.",  # negated
    "The job hangs with NCCL 2.25.1. The job is currently in NCCL 2.26.2 testing.",  # "cur..." is no cure
])
def test_no_cure_is_read_where_none_is_said(text):
    assert not claims.failure_ab(text)


# --------------------------------------------------------------------------- ranks in one collective, different calls

def test_ranks_broadcasting_different_sizes_is_the_programs_divergence():
    r = report("msswift10183.md")
    assert r["verdict"]["category"] == "other"
    f = finding(r, "ticket.known_error")
    assert f and "collective mismatch" in f["title"]
    assert not finding(r, "ticket.gpu_utilisation")


def test_nccls_own_collective_mismatch_warning(tmp_path):
    # Lightning-AI/pytorch-lightning#8214, the reporter's paste (main said p2p_disabled: a hang on PCIe)
    r = ticket(tmp_path, "# init.cc:1256 NCCL WARN Your program may be hanging, after validation. how to fix it\n\n"
               "when i run my code in one gpu, it seems ok.\nwhen i run my code in multi gpus, it's training is ok but "
               "the nccl error occur after validation and saving model\n\n[0] init.cc:1256 NCCL WARN Your program may "
               "be hanging, this may be caused by a collective mismatch around rank 1. Please check your collective "
               "calls at and around this rank. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the "
               "collective logs\n")
    assert r["verdict"]["category"] == "other"
    assert finding(r, "ticket.known_error")


ROW = next(e for e in engine_errors() if e.id == "collective_mismatch")


@pytest.mark.parametrize("text", [
    # horovod/horovod#334, the stall inspector's warning (not a source of the row)
    "WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are "
    "waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to "
    "submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock.",
    "error msg: Culprit rank 22; Error type: SIZE_OR_SYNTAX_MISMATCH",
])
def test_the_collective_mismatch_in_other_wordings(text):
    assert ROW.pattern.search(text)


@pytest.mark.parametrize("text", [
    "the tensor shapes match on all ranks",
    "the model shapes do not match the checkpoint",  # a loading error, no collective
    "all ranks run the same collective with the same sizes",
])
def test_no_collective_mismatch_where_none_is_said(text):
    assert not ROW.pattern.search(text)


def test_a_collective_mismatch_ruled_out_is_not_read():
    facts = said("We checked with TORCH_DISTRIBUTED_DEBUG=DETAIL: it is not a collective mismatch.")
    assert not [c for c in claims.known_errors(facts) if c.data["error"].id == "collective_mismatch"]


# --------------------------------------------------------------------------- GPUs called idle in a hang

def test_gpus_called_idle_in_a_hang_are_not_a_starving_host(tmp_path):
    # modelscope/ms-swift#8307, the reporter's comment on another thread, cut before the ranks' sizes are given
    r = ticket(tmp_path, "Hello! While fine-tuning MiniCPM-o 4.5 for audio and video tasks, I encountered an NCCL hang "
               "that caused the GPUs to remain idle. The issue occurs randomly but is consistently reproducible.\n")
    assert not finding(r, "ticket.gpu_utilisation")
    assert r["verdict"]["category"] != "host_bound"


def test_a_low_figure_beside_a_hang_is_still_read(tmp_path):
    # InternLM/lmdeploy#2144: a figure, not words; the rule still reads it
    r = ticket(tmp_path, "# [Bug] Tensor parallel hangs with LlaVA 34B\n\nI am running the pipeline with tp=8 on "
               "8xV100 GPUs. It runs normally for some time, but nearly always hangs after certain number of batches "
               "(e.g., 1k~5k batches). nvidia-smi shows one GPU has 0% utilization.\n")
    assert finding(r, "ticket.gpu_utilisation")


def test_gpus_called_idle_with_no_hang_stay_host_bound(tmp_path):
    # the negation: idle words with no hang and no busy figure keep their reading (test_claims_issue11s's paste)
    r = ticket(tmp_path, "# Serving far below the offline benchmark\n\nWith 32 concurrent requests the API server "
               "process sits at 100% of one core and the GPU is idle most of the time.\n")
    assert r["verdict"]["category"] == "host_bound"
