"""P2P refused or broken, as real reporters word it (session s29, pass ut29g, issue 11; tests/data/ut29g, SOURCES.md
gives each thread's address, the answer it settled and the verdict before and after). Three general defects, fixed
in general and tested on the pastes that showed them, on other threads' sentences, and on real near-misses:

- the peer path said to fail between named GPUs ("P2P fails between 5090s") was not read as P2P refused
  (claims "no_p2p");
- a GPU-to-GPU move that lands zeros, written with digits ("set the tensor to 0's on the destination GPU"), was not
  read as wrong results (claims._PEER_WRONG);
- NCCL_P2P_DISABLE=1 named in a ticket about a hang or an error, with no word on what it did, was the verdict
  "switches P2P off, roughly halves bandwidth" (p2p_disabled 0.75 on dmlc/xgboost#11242, whose hang a driver update
  fixed): P2P off is slower, never a hang, so such a setting is a weak lead, not the answer
  (rules.topology.p2p_forced_off).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims

DATA = Path(__file__).parent / "data" / "ut29g"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


# --------------------------------------------------------------------------- P2P said to fail between GPUs

def test_p2p_fails_between_gpus_is_p2p_refused():
    """aikitoria/open-gpu-kernel-modules#11: 'P2P fails between 5090s' when one drives a monitor (the patched
    driver's BAR1 path on a display GPU, fixed in that fork's PR #34)."""
    r = verdict("aikitoria11.md")
    assert r["verdict"]["category"] == "p2p_disabled"
    assert finding(r, "ticket.p2p_refused")


@pytest.mark.parametrize("sentence", [
    "When having a 5090 connected to a monitor/screen, P2P fails between 5090s.",  # aikitoria#11's title
])
def test_p2p_failing_sentences_are_read(sentence):
    assert claims.find(said(sentence), "no_p2p")


@pytest.mark.parametrize("sentence", [
    "P2P between 4090s, or between A6000 and A40 works correctly.",  # aikitoria#11, the pairs that work
    # local-inference-lab/rtx6kpro#15: the topo -p2p checks that pass
    "The following all report `OK` between GPU0 and GPU1:",
    # aikitoria/open-gpu-kernel-modules PR #34: the pairs that kept working beside the broken ones
    "P2P continued to work normally between the two headless GPUs, but communication between the display GPU",
])
def test_p2p_working_sentences_are_not_p2p_failing(sentence):
    assert not claims.find(said(sentence), "no_p2p")


# --------------------------------------------------------------------------- a peer move that lands zeros

def test_tensor_set_to_zeros_on_destination_gpu_is_p2p_corruption():
    """turboderp-org/exllamav2#85: dual 4090s split a model and produce gibberish; 'Pytorch falsely reports' peer
    access and a move between the GPUs 'will set the tensor to 0's on the destination GPU'."""
    r = verdict("exllamav2_85.md")
    assert r["verdict"]["category"] == "p2p_disabled"
    assert finding(r, "ticket.p2p_corrupts")


@pytest.mark.parametrize("sentence", [
    "When you attempt to move a tensor between two GPUs it will set the tensor to 0's on the destination GPU.",
    # pytorch/pytorch#13803's wording (read before this pass, kept)
    "any attempt to copy tensors between devices fails silently ... all of the values are set to zero",
])
def test_zeros_as_digits_are_wrong_results(sentence):
    assert claims.find(said(sentence), "wrong_results")


@pytest.mark.parametrize("sentence", [
    # a device index set to 0 is no zeros landed (the CUDA_VISIBLE_DEVICES idiom of many threads)
    "I set CUDA_VISIBLE_DEVICES to 0 and moved the model to another GPU",
    # noonghunna/club-3090#922: the transport measured healthy
    "Transport is healthy and measured: `cuDeviceCanAccessPeer` 1 in both directions, 6.60 GB/s peer",
])
def test_device_zero_is_no_wrong_results(sentence):
    assert not claims.find(said(sentence), "wrong_results")


# --------------------------------------------------------------------------- P2P off named beside a failure

def test_workaround_beside_a_driver_fix_is_no_p2p_verdict():
    """dmlc/xgboost#11242: 'Workaround: NCCL_P2P_DISABLE=1 ...  Actual fix: Update the GPU driver' (560 hangs, 570
    fixed): P2P off is not what the ticket is about; the setting stays a weak lead."""
    r = verdict("xgboost11242.md")
    assert r["verdict"]["category"] != "p2p_disabled"
    f = finding(r, "topology.p2p_forced_off")
    assert f and f["severity"] == "info" and f["confidence"] <= 0.3


def test_setting_said_to_work_around_a_hang_stays_the_answer():
    """NVIDIA/nccl#667's reporter: GPU pairs behind PXB/PIX hang, 'Setting NCCL_P2P_DISABLE=1 did workaround but got
    really low speed' (VT-d off cured it): the words say what the setting did, so the P2P path is the fault."""
    facts = said("all_reduce_perf works fine only with those linked through SYS. The rest will result in hanging. "
                 "Setting NCCL_P2P_DISABLE=1 did workaround but got really low speed.")
    setting = [c for c in claims.find(facts, "setting") if c.data["name"] == "NCCL_P2P_DISABLE"]
    assert setting and setting[0].data["effect"] == "fixes"


# --------------------------------------------------------------------------- answers kept

def test_vfio_passthrough_p2p_mirror_is_virtualization():
    """NVIDIA/nccl#2335: two 3090s passed through to a VM, the peer window a private mirror, NCCL hangs or
    corrupts: right before this pass, kept."""
    assert verdict("nccl2335.md")["verdict"]["category"] == "virtualization_no_p2p"
