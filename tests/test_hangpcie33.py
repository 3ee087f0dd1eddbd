"""Issue 11 (hangpcie33): a hang on GPUs joined only by PCIe that came with a release change of NCCL, PyTorch or the
serving engine, the old release working on the same box, is that release's, not a blocked peer-to-peer path's. NCCL's
troubleshooting guide places ACS and the IOMMU in the platform
(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html), so a blocked path hangs every release
alike; ticket.hang_on_pcie then keeps P2P as a lead below insufficient_data and the release rules (nccl.regression,
ticket.nccl_upgrade, ticket.engine_versions) answer. A GPU driver change is not such a release (the driver grants or
refuses peer access itself), nor a release that works on another machine, nor two releases that both hang."""

from pathlib import Path

import pytest
from test_hang_timing import checked_p2p_lead
from test_ticket_public_issues import ticket

DATA = Path(__file__).parent / "data"
TICKETS = DATA / "tickets"

SETUP = "Setup: two RTX 4090 (PCIe, no NVLink) in one workstation, vLLM with --tensor-parallel-size 2.\n\n"

RELEASE_AB = [  # the old release works on the same box
    "After upgrading NCCL from 2.18.3 to 2.19.3 the server hangs at the first all-reduce. With NCCL 2.18.3 on the same "
    "machine it works fine.",
    "Since upgrading vLLM from 0.6.3 to 0.6.4 the server hangs during startup. Downgrading to vLLM 0.6.3 on the same "
    "box fixes it.",
    "TP=2 gets stuck after NCCL init with vLLM 0.8.5, but works fine with vLLM 0.8.4.",
    "The all-reduce hangs since we moved from NCCL 2.21.5 to 2.23.4; rolling back to NCCL 2.21.5 makes it run again.",
]


@pytest.mark.parametrize("words", RELEASE_AB)
def test_a_release_change_with_the_old_one_working_lowers_the_p2p_lead(tmp_path, words):
    checked_p2p_lead(tmp_path, "# TP2 hangs\n\n" + SETUP + words + "\n", lowered=True)


STAYS = [  # nothing ties the hang to a release on this box: P2P stays the first suspect
    "The server hangs at the first all-reduce. It hangs with NCCL 2.18.3 and with NCCL 2.19.3 alike.",
    "The server hangs at the first all-reduce after NCCL init. NCCL 2.19.3, PyTorch 2.2.1, vLLM 0.4.0.",
    "After updating the driver from 535 to 545 the server hangs at the first all-reduce; with driver 535 it worked.",
    "The server hangs at the first all-reduce. It works fine with NCCL 2.18.3 on another machine, but hangs here with "
    "NCCL 2.19.3.",
    "The server hangs at the first all-reduce after NCCL init. Setting NCCL_P2P_DISABLE=1 fixes it.",
]


@pytest.mark.parametrize("words", STAYS)
def test_no_release_change_on_this_box_keeps_p2p_first(tmp_path, words):
    checked_p2p_lead(tmp_path, "# TP2 hangs\n\n" + SETUP + words + "\n", lowered=False)


# Reporters' own sentences tying a hang to NCCL releases (tests/data/paraphrases_23/ab_pairs.toml).
REAL_RELEASE_WORDS = [
    "It will hang when NCCL version >= 2.5.6.",  # https://github.com/NVIDIA/nccl/issues/423
    "I face an issue with NCCL releases newer than v2.11.4. I could reproduce the problem with v2.12.7, v2.15.5, and "
    "v2.16.5.",  # https://github.com/NVIDIA/nccl/issues/788
]


@pytest.mark.parametrize("words", REAL_RELEASE_WORDS)
def test_real_release_sentences_under_a_pcie_hang_lower_the_p2p_lead(tmp_path, words):
    text = "# all_reduce hangs\n\n" + SETUP + "Our all-reduce test hangs at the first collective. " + words + "\n"
    checked_p2p_lead(tmp_path, text, lowered=True)


def test_real_u10a14_hami_release_ab_lowers_the_lead_for_the_release(tmp_path):
    """Development case u10a14 (https://github.com/Project-HAMi/HAMi-core/issues/261): TP=2 hangs with the newer vLLM
    and starts with vLLM 0.24.0 on the same pod; settled: the vGPU layer's handling of the newer release (other)."""
    report = ticket(tmp_path, (TICKETS / "u10a14-hami-vllm-025-tp2-hangs-tp1-works" / "issue.md").read_text())
    assert report["verdict"]["category"] == "other"
    (lead,) = [f for f in report["findings"] if f["rule"] == "ticket.hang_on_pcie"]
    assert lead["confidence"] < 0.4 and "build" in lead["title"]


RANK_ERRORS = [  # a rank stopped on an error with another cause; the others wait in the collective
    "The server hangs. In the log, rank 1 fails first with torch.OutOfMemoryError: CUDA out of memory, and rank 0 then "
    "waits forever.",
    "Inference hangs after GPU OOM on the second worker.",
]


@pytest.mark.parametrize("words", RANK_ERRORS)
def test_an_error_a_rank_raised_lowers_the_p2p_lead(tmp_path, words):
    lead = checked_p2p_lead(tmp_path, "# TP2 hangs\n\n" + SETUP + words + "\n", lowered=True)
    assert "error a rank raised" in lead["title"]


NO_RANK_ERROR = [  # no error of this job, or the error ruled out
    "The server hangs at the first all-reduce after NCCL init. There are no errors in the log, no out of memory.",
    "The server hangs at the first all-reduce after NCCL init, GPU utilisation at 100 % on both cards.",
]


@pytest.mark.parametrize("words", NO_RANK_ERROR)
def test_no_error_of_a_rank_keeps_p2p_first(tmp_path, words):
    checked_p2p_lead(tmp_path, "# TP2 hangs\n\n" + SETUP + words + "\n", lowered=False)


def test_real_bloom32_oom_hang_is_the_oom(tmp_path):
    """https://github.com/huggingface/transformers-bloom-inference/issues/32 (tests/data/review50/bloom32.md): a rank
    died at the OOM and the others wait; settled other. The P2P lead names the error, below insufficient_data."""
    report = ticket(tmp_path, (DATA / "review50" / "bloom32.md").read_text())
    assert report["verdict"]["category"] == "other"
    (lead,) = [f for f in report["findings"] if f["rule"] == "ticket.hang_on_pcie"]
    assert lead["confidence"] < 0.4 and "error a rank raised" in lead["title"]
