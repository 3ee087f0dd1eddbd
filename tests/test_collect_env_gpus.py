"""PyTorch's collect_env (vLLM's and SGLang's issue templates ask for it) prints a single GPU on the heading's own line
as `nvidia-smi -L` gives it ("GPU models and configuration: GPU 0: NVIDIA A100-SXM4-40GB"), and a report the issue
page flattened onto one line lists every GPU there up to the next key. Both were read as no GPU at all."""

import shutil

import pytest
from conftest import REPO

from diagnose.artifacts import collect_env
from diagnose.bundle import read_bundle
from diagnose.evidence import GpuFact

DATA = REPO / "tests" / "data"


def _gpus(text: str) -> list[tuple[int, str]]:
    return [(g.index, g.name) for g in collect_env.parse(text, "env.txt") if isinstance(g, GpuFact)]


@pytest.mark.parametrize("rel, gpus", [
    # vllm-project/vllm issue of tickets/u7b05 (development), and its rewording: one A100 on the heading's line
    ("tickets/u7b05-vllm-a100-40gb-uncorrectable-ecc-runtimeerror/issue.md", [(0, "NVIDIA A100-SXM4-40GB")]),
    ("para37/u7b05-vllm-a100-40gb-uncorrectable-ecc-runtimeerror/a.md", [(0, "NVIDIA A100-SXM4-40GB")]),
    # vllm-project/vllm#5658, the environment flattened onto one line: eight H100s, up to "Nvidia driver version:"
    ("extract30/vllm5658.md", [(i, "NVIDIA H100 80GB HBM3") for i in range(8)]),
])
def test_real_reports_name_their_gpus(tmp_path, rel, gpus):
    shutil.copy(DATA / rel, tmp_path / "issue.md")
    found = [(g.index, g.name) for g in read_bundle([tmp_path / "issue.md"]).of(GpuFact)]
    assert found == gpus


@pytest.mark.parametrize("line, gpus", [
    ("GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090", [(0, "NVIDIA GeForce RTX 4090")]),
    ("GPU models and configuration: GPU 0: NVIDIA A100 (UUID: GPU-5a1c)", [(0, "NVIDIA A100")]),
    ("GPU models and configuration: NVIDIA A100-SXM4-80GB", [(0, "NVIDIA A100-SXM4-80GB")]),  # torch.cuda's name
    ("GPU models and configuration: GPU 0: NVIDIA L4 GPU 1: NVIDIA L4 Nvidia driver version: 550.144.03",
     [(0, "NVIDIA L4"), (1, "NVIDIA L4")]),
    ("GPU models and configuration: GPU 0: NVIDIA RTX 4000 Ada Generation GPU 1: NVIDIA RTX 4000 Ada Gener...",
     [(0, "NVIDIA RTX 4000 Ada Generation"), (1, "NVIDIA RTX 4000 Ada Gener")]),  # the page's cut keeps the count
    ("GPU models and configuration: Could not collect", []),
    ("GPU models and configuration: ", []),
])
def test_gpus_on_the_heading_line(line, gpus):
    text = f"PyTorch version: 2.3.0+cu121\nIs debug build: False\n{line}\nNvidia driver version: 550.54\n"
    assert _gpus(text) == gpus


def test_the_gpu_list_under_the_heading_is_still_read():
    text = ("PyTorch version: 2.3.0\nGPU models and configuration:\nGPU 0: NVIDIA H100 80GB HBM3\n"
            "GPU 1: NVIDIA H100 80GB HBM3\n\nNvidia driver version: 550.54.15\n")
    assert _gpus(text) == [(0, "NVIDIA H100 80GB HBM3"), (1, "NVIDIA H100 80GB HBM3")]


def test_one_key_in_prose_is_no_report():
    assert collect_env.detect("Our PyTorch version: 2.3 and the GPU is an A100, decode is slow.") == 0.0
