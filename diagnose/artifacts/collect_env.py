"""vLLM's / PyTorch's `collect_env` report: the GPUs, driver, CUDA and library versions a
reporter's environment has, as the issue templates ask for it.

    GPU models and configuration:        -> GpuFact per "GPU n: NAME" line
    Nvidia driver version: 535.104.05    -> HostFact driver_version
    Python platform: Linux-<release>-... -> HostFact kernel
    [pip3] nvidia-nccl-cu12==2.20.5      -> NcclVersion
    PyTorch version: 2.4.0+cu121         -> Note torch_release (diagnose/artifacts/torch_release.py)
    CUDA used to build PyTorch: 12.1     -> Note build_cuda (the CUDA the PyTorch build was made with)
    vLLM Version: 0.6.3 / [pip3] vllm==  -> Workload framework "vLLM 0.6.3"
The "GPU Topology:" matrix in the same report is read by the topo parser.
"""

from __future__ import annotations

import re

from diagnose.artifacts import torch_release
from diagnose.artifacts.text import lines
from diagnose.evidence import GpuFact, HostFact, NcclVersion, Note, Workload, where

KIND = "collect_env"

# (at a line's start, or after a blank where a report was pasted as one line)
MARKERS = re.compile(r"(?:^|(?<=\s))(?:Collecting environment information|PyTorch version:|Is debug build:|"
                     r"CUDA used to build PyTorch:|GPU models and configuration:|Nvidia driver version:|"
                     r"Versions of relevant libraries:|vLLM Version:)", re.M)
GPU_LINE = re.compile(r"^\s*GPU (?P<index>\d+): (?P<name>[^\n(]+?)\s*(?:\(UUID[^)]*\))?\s*$")
# One GPU is printed on the heading's own line as `nvidia-smi -L` gives it ("GPU models and configuration: GPU 0: NVIDIA
# GeForce RTX 4090") or as torch.cuda names it ("...: NVIDIA A100-SXM4-80GB"); a report pasted as one line lists
# every GPU there, up to the next key ("GPU 0: NVIDIA L4 GPU 1: NVIDIA L4 Nvidia driver version: 550.144.03").
HEADING = "GPU models and configuration:"
ON_HEADING = re.compile(r"\bGPU (?P<index>\d+):\s*(?P<name>[^:\n]+?)\s*(?:\(UUID[^)]*\))?"
                        r"(?=\s+GPU \d+:|\s+(?:Nvidia driver version|cuDNN version|HIP runtime version|"
                        r"MIOpen runtime version|Is XNNPACK available):|\s*$)")
SINGLE_GPU = re.compile(r"\s*(?P<name>(?:NVIDIA|Tesla|GeForce|Quadro)[^\n]+?)\s*$")
DRIVER = re.compile(r"^Nvidia driver version:\s*(?P<v>[\d.]+)")
BUILD_CUDA = re.compile(r"^CUDA used to build PyTorch:\s*(?P<v>\d{1,2}\.\d{1,2})\b")
# "Python platform: Linux-5.15.133.1-microsoft-standard-WSL2-x86_64-with-glibc2.35": platform.platform()'s kernel
PLATFORM = re.compile(r"^Python platform\s*:\s*Linux-(?P<k>\d[\w.+~-]*?)-(?:x86_64|aarch64|ppc64le|arm64)\b")
NCCL_PIP = re.compile(r"\bnvidia-nccl-cu\d+==(?P<v>\d+\.\d+\.\d+)|^\s*\[conda\]\s+nccl\s+(?P<c>\d+\.\d+\.\d+)")
ENGINE = re.compile(r"^(?:vLLM Version:\s*(?P<v1>[\w.+-]+)|"
                    r"\[pip\d?\]\s+(?P<name>vllm|sglang|tensorrt[-_]llm|lmdeploy)==(?P<v2>[\w.+-]+))", re.I)


def detect(text: str) -> float:
    found = len(set(m.group(0)[:12] for m in MARKERS.finditer(text[:200_000])))
    return 0.0 if found < 2 else min(1.0, 0.4 + 0.2 * found)


def parse(text: str, name: str) -> list:
    out: list = []
    in_gpus = False
    for n, line in lines(text):
        src = where(name, n)
        if (at := line.find(HEADING)) >= 0:
            in_gpus, at = True, at + len(HEADING)
            listed = list(ON_HEADING.finditer(line, at))
            out += [GpuFact(src, index=int(m.group("index")), name=m.group("name").removesuffix("...").strip())
                    for m in listed]
            if not listed and (m := SINGLE_GPU.match(line, at)) is not None:
                out.append(GpuFact(src, index=0, name=m.group("name").strip()))
            continue
        if in_gpus:
            if (m := GPU_LINE.match(line)) is not None:
                out.append(GpuFact(src, index=int(m.group("index")), name=m.group("name").strip()))
                continue
            if line.strip():
                in_gpus = False
        if (m := DRIVER.match(line)) is not None:
            out.append(HostFact(src, "driver_version", m.group("v")))
        if (m := BUILD_CUDA.match(line)) is not None:
            out.append(Note(src, "build_cuda", line.strip(), {"cuda": m.group("v")}))
        if (m := PLATFORM.match(line)) is not None:
            out.append(HostFact(src, "kernel", m.group("k")))
        if (m := NCCL_PIP.search(line)) is not None:
            out.append(NcclVersion(src, m.group("v") or m.group("c")))
        if (m := ENGINE.match(line.strip())) is not None:
            label = {"vllm": "vLLM", "sglang": "SGLang", "lmdeploy": "LMDeploy"}.get(
                (m.group("name") or "vllm").lower(), "TensorRT-LLM")
            out.append(Workload(src, framework=f"{label} {m.group('v1') or m.group('v2')}"))
    out += torch_release.releases(list(lines(text)), name)
    return out
