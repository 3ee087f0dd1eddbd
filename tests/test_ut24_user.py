"""Defects found by answering real public threads as a support engineer (session s24, helper h2, tests/data/ut24;
SOURCES.md gives each thread's address, the answer it established and the verdict before and after), fixed in general
and tested on the paste that showed them, on real lines from other threads, and on real near-misses:

- a CUDA IPC call failing was read by the CUDA error it returned: TensorRT-LLM's custom all-reduce on 8 PCIe-only RTX
  5090 ("crash at engine init with cudaErrorInvalidDevice: 101 from cudaIpcOpenMemHandle", NVIDIA/TensorRT-LLM#16899)
  became "a GPU index the process cannot see" (too many ranks for the visible GPUs), where the maintainers' fix
  (NVIDIA/TensorRT-LLM#17034) says the IPC mapping itself is unusable there and falls back to NCCL. A catalog row
  cuda_ipc_failed now names it, and one line is one message: the row listed first names it, and a second row matching
  the same line is not "also quoted";
- a reboot named as the reporter's remedy ("Only rebooting the system helps to restart the training",
  AlexeyAB/darknet#2807) was read as the machine losing power under load (ticket.power_loss, hardware_fault).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims

DATA = Path(__file__).parent / "data" / "ut24"


def rows(text: str) -> list[str]:
    return [c.data["error"].id for c in claims.known_errors(said(text))]


# --------------------------------------------------------------------------- a CUDA IPC call failing

def test_ipc_failure_in_the_paste():
    r = report_json("ticket", str(DATA / "trtllm16899.md"))
    assert r["verdict"]["category"] == "other"
    f = finding(r, "ticket.known_error")
    assert "cuda ipc failed" in f["title"]
    assert "Also quoted" not in f["summary"]  # one line, one message
    assert "cudaIpcOpenMemHandle" in f["evidence"][0]["detail"]


@pytest.mark.parametrize("text", [
    # NVIDIA/TensorRT-LLM#17034, the maintainers' root-cause trace of #16899
    "```\n    → IpcMemory.open_ipc_memory\n          → cudaIpcOpenMemHandle  ← cudaErrorInvalidDevice (101)\n"
    "RuntimeError: CUDA Runtime API error: <cudaError_t.cudaErrorInvalidDevice: 101>\n```",
    # horovod/horovod#610, NCCL's P2P transport between two ranks
    "```\nlocalhost:95772:95782 [0] transport/p2p.cu:526 WARN failed to open CUDA IPC handle : 11 invalid argument\n"
    "localhost:95772:95782 [0] INFO init.cu:475 -> 1\n```",
    # OPM/LBPM#34, Open MPI's CUDA-aware transport calling the driver API's cuIpcGetMemHandle
    "```\n[gpu03:11920] 104 more processes have sent help message help-mpi-common-cuda.txt / "
    "cuIpcGetMemHandle failed\n```",
])
def test_ipc_failures_of_other_threads(text):
    assert rows(text)[0] == "cuda_ipc_failed"


@pytest.mark.parametrize("text,row", [
    # horovod/horovod#785: the GPUs refuse peer access, read as P2P refused, not as this row
    ("```\nHOSTNAME:2753:2762 [0] transport/p2p.cu:548 NCCL WARN failed to open CUDA IPC handle : 64 peer access is "
     "not supported between these two devices\n```", None),
    # sgl-project/sglang#552: PyTorch's warning on CUDA tensors shared between processes names no failed IPC call
    ("```\n[rank1]:[W CudaIPCTypes.cpp:16] Producer process has been terminated before all shared CUDA tensors "
     "released. See Note [Sharing CUDA tensors]\n```", None),
    # hpcaitech/Open-Sora#40: torch.cuda.set_device on a rank with no GPU of that index keeps its own row
    ("```\n    torch._C._cuda_setDevice(device)\nRuntimeError: CUDA error: invalid device ordinal\n```",
     "invalid_device_ordinal"),
])
def test_ipc_near_misses(text, row):
    found = rows(text)
    assert "cuda_ipc_failed" not in found
    assert (found[:1] or [None])[0] == row


@pytest.mark.parametrize("name", ["vllm9774.md", "vllm42609.md"])
def test_engine_ipc_all_reduce_keeps_its_row(name):
    """Held-out checks of the IPC family: vLLM's custom all-reduce failing on its IPC buffers is named by its own
    row (the engine's message, pasted), with the fix of turning it off."""
    r = report_json("ticket", str(DATA / name))
    assert r["verdict"]["category"] == "other"
    f = finding(r, "ticket.known_error")
    assert "custom allreduce error" in f["title"]
    assert "disable-custom-all-reduce" in f["fix"]


# --------------------------------------------------------------------------- a reboot as the remedy

def test_reboot_as_the_remedy_in_the_paste():
    r = report_json("ticket", str(DATA / "darknet2807.md"))
    assert r["verdict"]["category"] != "hardware_fault"
    assert not finding(r, "ticket.power_loss")


@pytest.mark.parametrize("text,lost", [
    ("Only rebooting the system helps to restart the training and the same problem occurs over and over again.",
     False),  # AlexeyAB/darknet#2807
    ("Only reboots help.", False),  # illinois-scicomp/machine-shop-maintenance#76, a Titan V that keeps disappearing
    ("I solved this problem by rebooting the server.", False),  # facebookresearch/maskrcnn-benchmark#238
    # the machine losing power, kept (tests/test_claims_power_loss.py holds more)
    ("I experienced hard crashes that would immediately reboot my PC.", True),  # kijai/ComfyUI-FluxTrainer#208
    ("With 4 Mi50s (32GB), if I use tensor parallelism of 4 on any model, the computer restarts.",
     True),  # nlzy/vllm-gfx906#65
])
def test_reboot_sentences(text, lost):
    assert bool([c for c in claims.find(said(text), "power_loss") if not c.guess]) is lost


# --------------------------------------------------------------------------- verdicts unchanged, right

@pytest.mark.parametrize("name,ask", [
    ("besthub_nvlink.md", "nvidia-smi topo -m"),  # the two hosts differ in their GPU link (an NVLink bridge)
    ("llamacpp3772.md", "nvidia-smi topo -m"),
    ("miaai22.md", "all_reduce_perf"),  # the reporter's own next step found it: a 2-node all-reduce latency test
])
def test_asks_what_tells_the_hosts_apart(name, ask):
    r = report_json("ticket", str(DATA / name))
    assert r["verdict"]["category"] == "insufficient_data"
    assert ask in r["verdict"]["summary"]
