"""Defects found by answering real public threads as a support engineer (session s22, helper b, tests/data/ut22b;
SOURCES.md gives each thread's address, the answer it established and the verdict before and after), each fixed in
general and tested here on the paste that showed it, on a real sentence from another thread, and on negations:

- what a release stopped doing, said between two releases ("Moving from 0.3.6 to 0.3.7-rc5, Ollama no longer uses
  both GPUs for a single model", ollama/ollama#6479; "since then, there is no 2nd GPU anymore possible to select",
  after an upgrade from v0.3.65 to 0.3.73, pollockjj/ComfyUI-MultiGPU#144) was no change between releases, so the
  CPU share the newer release left (ollama ps: 29%/71% CPU/GPU) was the verdict (`host_bound`) instead of the release
  (`other`); the CPU share is now a lead under the release the reporter ties it to;
- an NCCL release named as the cure ("Libraries: 2.25.1 / Fixed with: 2.26.2", NVIDIA/TensorRT-LLM#4238; "will hangs
  in pytorch1.1, which uses NCCL 2.4.2. The problem got fixed in NCCL 2.4.6", pytorch/pytorch#20630 as a public
  launcher's comment quotes it) was not an A/B between NCCL releases: `insufficient_data` instead of `nccl_regression`;
- two GPUs of a direct-connect NVLink board (no NVSwitch) were judged against every NVLink of the GPU: sendrecv_perf
  between two of the four A100-SXM-64GB of a Leonardo node at 72-73 GB/s ("NVLink 3.0 (theoretically capable of
  100 GB/s unidirectional)", NVIDIA/nccl-tests#331) read as 35 % of 208 GB/s (`other`), where a pair of that board has
  NV4, 4 of the GPU's 12 links, and 73 GB/s is what they give;
- a model instance placed on a GPU count its heads do not divide, with no TP written ("specify 3 GPUs" for
  Qwen2.5-14B, 40 heads; "stuck in the analyzing state when the number of attention heads is not divisible by gpu
  count", gpustack/gpustack#907; "when `num_attention_heads` is not divisible by `GPUs per Replica`(tp)",
  gpustack/gpustack#3251) was a PCIe hang (`p2p_disabled`); the GPU count the words tie to the heads is the TP, and
  "stuck in the analyzing state" (as "stuck in Scheduled state", gpustack/gpustack#871, "the pod is stuck in pending
  state", kai-scheduler/KAI-Scheduler#993) is a scheduler's state before any GPU work, no collective hang;
- an engine refusing a model architecture by its class name ("Tensor-parallel is not supported for Gemma2ForCausalLM",
  theroyallab/tabbyAPI#188; "Tensor-parallel is not supported for Gemma3ForConditionalGeneration", #363;
  "Glm4vMoeModel'> does not support tensor parallel yet!", vllm-project/vllm#22126) was no error when no exception
  name came with it: `insufficient_data` instead of `other`.
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims, roofline
from rules.catalog import gpus, interconnect

DATA = Path(__file__).parent / "data" / "ut22b"


def report(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def verdict(name: str) -> str:
    return report(name)["verdict"]["category"]


# --------------------------------------------------------------------------- what a release stopped doing

def test_release_that_stopped_using_a_gpu_is_the_cause():
    r = report("ollama6479.md")
    assert r["verdict"]["category"] == "other"
    f = finding(r, "ticket.engine_versions")
    assert f and "0.3.7" in f["title"] and "0.3.6" in f["title"]
    offload = finding(r, "ticket.partial_offload")  # the 29 % on the CPU stays, as the release's symptom
    assert offload and offload["severity"] == "info" and offload["category"] == "host_bound"


def test_release_that_stopped_in_another_thread():
    # pollockjj/ComfyUI-MultiGPU#144, the reporter's own words
    text = ("i just upgraded ComfyUI, yesterday to 0.3.73, web frontend 1.30.6 incl. since then, there is no 2nd GPU "
            "anymore possible to select. i was on ComfyUI Version: v0.3.65-26-ga4787ac83 before, with MultiGPU "
            "Version 2.5.10 all perfect")
    assert claims.behaviour_lost(text)
    (c,) = claims.find(said(text), "engine_versions_compared")
    assert {"0.3.73", "0.3.65"} <= set(c.data["versions"])


@pytest.mark.parametrize("text", [
    "Moving from 0.3.6 to 0.3.7, Ollama still uses both GPUs for a single model.",
    "Does Ollama 0.3.7-rc5 no longer use both GPUs, compared with 0.3.6?",
    "If Ollama 0.3.7 no longer uses both GPUs, I will stay on 0.3.6.",
    "Ollama no longer uses both GPUs for a model that fits on one card.",  # no release moved between
])
def test_release_that_stopped_negations(text):
    assert claims.find(said(text), "engine_versions_compared") == []


def test_what_stopped_was_the_failure():
    # a cure, not a loss (the releases are still compared through the hang named: main reads that already)
    assert not claims.behaviour_lost("I upgraded vLLM from 0.5.4 to 0.6.0 and it no longer hangs at start-up.")


# --------------------------------------------------------------------------- an NCCL release named as the cure

def test_nccl_release_named_as_the_fix_is_a_regression():
    r = report("trtllm4238.md")
    assert r["verdict"]["category"] == "nccl_regression"
    f = finding(r, "nccl.regression")
    assert f and "2.25.1" in f["title"] and "2.26.2" in f["title"]


def test_nccl_release_named_as_the_fix_in_another_thread():
    # pytorch/pytorch#20630, as a public job launcher's comment quotes the thread
    text = ("without the following flag, the multi-node distributed training will hangs in pytorch1.1, which uses "
            "NCCL 2.4.2. The problem got fixed in NCCL 2.4.6.")
    assert claims.failure_ab(text)


@pytest.mark.parametrize("text", [
    "It was not fixed with NCCL 2.26.2: the job fails on NCCL 2.25.1 and on NCCL 2.26.2.",
    "Is the hang fixed in NCCL 2.26.2? We run NCCL 2.25.1.",
    "We use NCCL 2.25.1; NCCL 2.26.2 is out. It fails.",
    "Libraries: NCCL 2.25.1. Fixed with: NCCL 2.26.2.",  # no failure named: nothing to cure
])
def test_nccl_release_named_as_the_fix_negations(text):
    assert not claims.failure_ab(text)


# --------------------------------------------------------------------------- two GPUs of a direct-connect board

def test_a_pairs_sendrecv_figure_is_not_judged_as_an_all_reduce():
    """nccl-tests#331's 73 GB/s is sendrecv_perf's (p48a): under the NV4 pair's 100 GB/s line rate, and send/receive
    has no typical figure to miss ("individual send/recv might not achieve peak bandwidth", NVIDIA/nccl#464), so
    nccl.busbw says nothing; the pair's own links are test_direct_share_physics's."""
    r = report("nccltests331.md")
    assert r["verdict"]["category"] in ("healthy", "expected_physics")
    assert not [f for f in r["findings"] if f["rule"] == "nccl.busbw"]


def test_direct_share_physics():
    leonardo, ic = gpus()["a100-sxm-64gb"], interconnect("nvlink3")  # 4 GPUs, 12 links each: NV4 per pair
    assert roofline.direct_share(leonardo, ic, 2).bandwidth_gbs == pytest.approx(100)  # 4 links x 25 GB/s
    assert roofline.direct_share(leonardo, ic, 3).bandwidth_gbs == pytest.approx(200)  # two pairs' links
    assert roofline.direct_share(leonardo, ic, 4) is ic  # rings over all four GPUs use every link


@pytest.mark.parametrize("key, fabric", [
    ("v100-sxm2-32gb", "nvlink2"),  # DGX-1's hybrid cube mesh: pairs of 1 or 2 links, not an even split
    ("a100-80gb-sxm", "nvswitch2"),  # an NVSwitch board: every GPU reaches the switch on all its links
])
def test_direct_share_negations(key, fabric):
    ic = interconnect(fabric)
    assert roofline.direct_share(gpus()[key], ic, 2) is ic


# --------------------------------------------------------------------------- the heads against the GPU count

def test_gpu_count_tied_to_the_heads_is_the_tp():
    r = report("gpustack907.md")
    assert r["verdict"]["category"] == "tp_not_dividing_heads"
    f = finding(r, "workload.tp_not_dividing_heads")
    assert f["title"].startswith("TP=3 does not divide the model's 40 attention heads")


def test_heads_tied_to_the_gpus_in_another_thread():
    # gpustack/gpustack#3251, its title
    text = "The compatibility check is incorrect when `num_attention_heads` is not divisible by `GPUs per Replica`(tp)."
    (c,) = claims.find(said(text), "tp_size_error")
    from rules.workload import _HEADS_BY_GPUS

    assert _HEADS_BY_GPUS.search(c.quote)


def _paste(tmp_path, old: str, new: str) -> dict:
    text = (DATA / "gpustack907.md").read_text()
    assert old in text
    (tmp_path / "issue.md").write_text(text.replace(old, new))
    return report_json("ticket", str(tmp_path))


def test_gpu_count_tied_to_the_heads_negations(tmp_path):
    # four GPUs divide Qwen2.5-14B's 40 heads: nothing to say about the layout
    assert finding(_paste(tmp_path, "specify 3 GPUs", "specify 4 GPUs"), "workload.tp_not_dividing_heads") is None
    # the heads not tied to the GPU count: three GPUs may be a layer split, which heads do not constrain
    r = _paste(tmp_path, "when the number of attention heads is not divisible by gpu count", "after deployment")
    assert finding(r, "workload.tp_not_dividing_heads") is None


# --------------------------------------------------------------------------- stuck in a scheduler's state

def test_stuck_in_a_scheduler_state_is_no_collective_hang():
    r = report("gpustack907.md")
    assert finding(r, "ticket.hang_on_pcie") is None
    assert r["verdict"]["confidence"] >= 0.9  # nothing left that explains the ticket another way


@pytest.mark.parametrize("text", [
    "The model instance is stuck in the Analyzing state.",  # gpustack/gpustack#1650
    "The model instance has been stuck in Scheduled state",  # gpustack/gpustack#871
    "the cpu/gpu example is not working and the pod is stuck in pending state.",  # kai-scheduler/KAI-Scheduler#993
])
def test_stuck_in_a_scheduler_state_in_other_threads(text):
    assert claims.symptom_quote(said(text))[2] != "hang"


@pytest.mark.parametrize("text", [
    "The all-reduce is stuck and never returns.",
    "vLLM is stuck in the Loading state after NCCL init.",  # loading runs on the GPUs: a hang there is one
    "The process is stuck in D state inside ncclCommInitRank.",  # uninterruptible sleep in the driver
])
def test_stuck_in_a_scheduler_state_negations(text):
    assert claims.symptom_quote(said(text))[2] == "hang"


# --------------------------------------------------------------------------- an architecture the engine refuses

@pytest.mark.parametrize("name", ["tabbyapi188.md", "tabbyapi363.md"])
def test_architecture_refused_is_a_software_error(name):
    r = report(name)
    assert r["verdict"]["category"] == "other"
    assert finding(r, "ticket.software_error")


@pytest.mark.parametrize("text", [
    # vllm-project/vllm#22126 (the reporter, then a later poster's error line)
    "I get this error when trying to load GLM-4.5-Air-FP8 with vLLM on two 6000 blackwell gpus: "
    "\"transformers.models.glm4_moe.modeling_glm4_moe.Glm4MoeModel'> does not support tensor parallel yet!\"",
    # hpcaitech/ColossalAI#6120
    "[rank0]: Auto policy for Gemma2ForCausalLM (transformers.models.gemma2.modeling_gemma2.Gemma2ForCausalLM) "
    "is not implemented",
])
def test_architecture_refused_in_other_threads(text):
    assert claims.find(said(text), "exception")


@pytest.mark.parametrize("text", [
    "Tensor-parallel is supported for Gemma2ForCausalLM since exllamav2 0.2.1.",
    "LlamaForCausalLM runs with tensor parallel on both GPUs.",
    "The Gemma2ForCausalLM architecture is not supported on my old laptop GPU, so I use the 3090.",
])
def test_architecture_refused_negations(text):
    assert claims.find(said(text), "exception") == []


# ------------------------------------------- a release that spreads a model over fewer GPUs (session 22, merge review)

@pytest.mark.parametrize("text, lost", [
    # ollama/ollama#5455 as paraphrase s018-d puts it (label healthy: Ollama 0.1.48 keeps a model that fits on one GPU
    # by design, the maintainer's answer; its FAQ "How does Ollama load models on multiple GPUs?")
    ("ollama stopped using all GPUs after upgrade, and with SCHED_SPREAD they are not full. With ollama:0.1.38 it used "
     "all four GPU cards. After I upgrade to ollama:0.1.48 inference goes only on 1 gpu", False),
    ("After upgrading from 0.1.38 to 0.1.48 ollama no longer uses all 4 GPUs.", False),
    # the model does not fit where it now sits: a loss (ollama/ollama#6479, its words)
    ("Moving from 0.3.6 to 0.3.7-rc5, Ollama no longer uses both GPUs for a single model when the model will not fit "
     "on one card.", True),
    ("After upgrading from 0.1.38 to 0.1.48 ollama no longer uses all 4 GPUs and part of the model is offloaded to the "
     "CPU.", True),
    # what was lost is no placement: a loss as before
    ("After upgrading from 0.5.4 to 0.6.0, vLLM no longer uses CUDA graphs.", True),
])
def test_fewer_gpus_for_a_model_that_fits_is_the_engines_placement(text, lost):
    assert claims.behaviour_lost(text) is lost


def test_the_paraphrase_of_a_healthy_placement_keeps_its_verdict():
    r = report_json("ticket", Path(__file__).parent / "data" / "paraphrases" /
                    "s018-ollama-4gpu-sched-spread-util-below-100-d")
    assert r["verdict"]["category"] == "healthy" and not finding(r, "ticket.engine_versions")
