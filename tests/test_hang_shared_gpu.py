"""Issue 11: a hang the reporter ties to ANOTHER PROCESS ON THE SAME GPU speaks against a blocked peer-to-peer path.
A path that never delivers (ACS, the IOMMU, a hypervisor) hangs the first collective whoever else uses the GPU;
collective kernels that spin-wait for their peers (NCCL's, or an engine's custom all-reduce) instead stall when
another process's kernels keep one rank's from running. The claim (rules.claims "shared_gpu_hang") lowers the P2P
lead below insufficient_data; a process ruled out, or one on other GPUs, leaves the lead as it was."""

import pytest
from test_hang_timing import checked_p2p_lead, p2p_lead
from test_ticket_public_issues import ticket

from rules.claims import PATTERNS, states


def test_public_horovod_335_multiple_processes_on_same_gpus_hang(tmp_path):
    """https://github.com/horovod/horovod/issues/335 (the reporter's title and first post): several Horovod ranks
    bound to the same GPUs hang with NCCL on an M40, and the reporter names the cause, kernels of several processes
    not running concurrently on one GPU."""
    text = ("# Multiple hvd process on same GPUs hang with NCCL enabled\n\n"
            "Actually the hang is as expected as by default we can't make the multiple kernels to run concurrently on "
            "the same GPU device thus it hangs. I just want to know is it possible to still use NCCL in this "
            "situation？Thanks.\n\nTested on 2x Tesla M40 (PCIe).\n")
    report = ticket(tmp_path, text)
    lead = p2p_lead(report)
    assert lead is not None and lead["confidence"] < 0.4 and "another process" in lead["title"]
    assert report["verdict"]["category"] != "p2p_disabled"


def test_public_nccl_39_hang_with_two_workers_per_gpu():
    """https://github.com/NVIDIA/nccl/issues/39 (first post, 2 x GTX 970M in a laptop): 'The script hangs during the
    "reduce-out-of-place" test when running 2 workers per GPU.' Two ranks on each GPU: the claim reads it."""
    said = 'The script hangs during the "reduce-out-of-place" test when running 2 workers per GPU.'
    assert states("shared_gpu_hang", said)
    # the same test with one worker per GPU, and a pool of workers spread over GPUs, are no such claim
    assert not states("shared_gpu_hang", 'The script hangs during the "reduce-out-of-place" test with one worker '
                                         'per GPU.')
    assert not states("shared_gpu_hang", "The script hangs when running 2 workers on 2 GPUs.")


SETUP = "2x L40S PCIe (no NVLink), one node, TensorRT-LLM with tp_size 2, Llama-3-8B.\n\n"


SHARED = [  # the hang comes with another process on the same GPU(s)
    "The engine hangs whenever a second model runs on those GPUs.",
    "Inference freezes as soon as another inference job starts on the same GPU.",
    "When another process uses the same card for embeddings, the all-reduce gets stuck.",
    "It deadlocks if a different application is using one of the GPUs.",
    "Generation hangs with three ranks sharing one GPU.",
    "如果另一个进程使用同一张GPU，推理就会卡住。",
]
ALONE = [  # no process shares the GPU, or one runs on other GPUs: the P2P lead stands
    "It hangs at the first all-reduce. No other processes are running on either card.",
    "It hangs even if no other process uses the same GPU.",
    "It hangs when another process runs on a different GPU, and without it too.",
    "The server hangs with one process per GPU, right at startup.",
    "It hangs forever during NCCL init; nothing else runs on the GPUs.",
]


@pytest.mark.parametrize("words,shared", [(w, True) for w in SHARED] + [(w, False) for w in ALONE])
def test_the_p2p_lead_drops_only_when_another_process_shares_the_gpu(tmp_path, words, shared):
    checked_p2p_lead(tmp_path, "# TP hang\n\n" + SETUP + words + "\n", lowered=shared)


def test_the_claim_is_written_in_the_claim_table():
    assert "shared_gpu_hang" in PATTERNS
