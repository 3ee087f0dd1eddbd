"""Issue 11 (session s32, pass healthy32): kept pastes settled `healthy` or `host_bound` that came back otherwise.

Two general readings, each written from documentation and tested on kept first posts of different threads:

- llama.cpp run without its layer option keeps every layer on the CPU (tools/main README: -ngl "allows offloading some
  layers to the GPU"; llama-cpp-python's Llama() defaults to n_gpu_layers=0), read where the build predates the
  offload-by-default change or is the old `main` binary (rules.claims._layer_option_left_out, form 'no_ngl'):
  ticket.partial_offload, host_bound. Near-misses: a recent build (version 8743), PowerInfer's --vram-budget, any
  layer option given, a `main` binary of another ggml tool.
- rules/catalog/by_design.toml: each PyTorch process opens a CUDA context on GPU 0 until it sets its device
  (context_on_device_0), and the container row also reads a tool that "doesn't show" the processes. Near-misses: the
  same observation with an out-of-memory error or a hang, a single process, DataParallel's GPU 0, the processes shown.
"""

from pathlib import Path

import pytest
from conftest import issue_bundle, judged_issue

from rules import catalog, claims

DATA = Path(__file__).parent / "data"


def _paste(rel: str) -> str:
    return (DATA / rel).read_text()


def _no_ngl(text: str) -> list:
    return [c for c in claims.partial_offload(issue_bundle(text)) if c.data["form"] == "no_ngl"]


def _behaviour(text: str) -> str | None:
    """The by_design.toml row ticket.documented_behaviour answers the text with (its own vetoes applied), or None."""
    _, found = judged_issue(text)
    f = found.get("ticket.documented_behaviour")
    return next((r["key"] for r in catalog.documented_behaviours() if f is not None and r["title"] == f.title), None)


# ----------------------------------------------------------------------------- no layer option: host_bound

@pytest.mark.parametrize("rel", ["review49/llamacpppy576.md", "normal_questions/llamacpp9881.md",
                                 "ut28a/llamacpp2641.md"])
def test_run_without_layer_option_is_host_bound(rel):
    verdict, found = judged_issue(_paste(rel))
    assert verdict.category == "host_bound"
    f = found["ticket.partial_offload"]
    assert f.title.startswith("No layer on the GPU") and "-ngl 999" in f.fix
    assert any("run without a layer option" in e.detail for e in f.evidence)  # the launch line it was read from


def test_recent_build_without_ngl_is_no_zero_default():
    # llama-cli of build 8743 (2026) offloads by default: the missing -ngl says nothing (ggml-org/llama.cpp#21719)
    assert _no_ngl(_paste("ut21b/llamacpp21719.md")) == []


def test_powerinfer_vram_budget_places_weights():
    assert _no_ngl(_paste("ut28f/powerinfer150.md")) == []


@pytest.mark.parametrize("text", [
    "llama.cpp is slow on my 3090.\n```\n./main -m models/7B/ggml-model-q4_0.bin -n 128 -ngl 35\n```\n",
    "llama.cpp slow.\n```\nfrom llama_cpp import Llama\nllm = Llama(model_path='./m.gguf', n_gpu_layers=-1)\n```\n",
    "whisper.cpp is slow on my GPU:\n```\n./main -m models/ggml-base.en.bin -f samples/jfk.wav\n```\n",
    "llama.cpp slow.\n```\n./llama-cli -m model.gguf -p hi\n```\nversion: 7100 (abc1234)\n",
])
def test_layer_option_given_or_not_llamacpp_or_new_build(text):
    assert _no_ngl(text) == []


def test_old_main_binary_without_ngl_is_read():
    text = "llama.cpp on an RTX 4090 is slow.\n```\n./main -m models/7B/ggml-model-q4_0.bin -n 128\n```\n"
    (c,) = _no_ngl(text)
    assert c.data["on_gpu"] == 0 and "./main -m" in c.quote and c.data["build"] is None


# ----------------------------------------------------------------------------- by design: contexts on GPU 0

@pytest.mark.parametrize("rel", ["review50/pytorch135279.md", "review50/examples969.md", "healthy32/pigan22.md"])
def test_contexts_on_gpu0_are_by_design(rel):
    verdict, found = judged_issue(_paste(rel))
    assert verdict.category == "healthy"
    f = found["ticket.documented_behaviour"]
    assert "set_device" in f.fix and f.references == ["https://pytorch.org/docs/stable/distributed.html"]


@pytest.mark.parametrize("text", [
    "Launched with torchrun on 4 GPUs: each rank takes about 800 MiB of memory on GPU 0. Is that expected?",
    "Why do the other processes create CUDA contexts on device 0 when I use torch.distributed?",
])
def test_contexts_on_gpu0_paraphrases(text):
    assert _behaviour(text) == "context_on_device_0"


@pytest.mark.parametrize("text", [
    # a fault in sight: out of memory, a hang
    "DDP training: every process allocates memory on GPU 0 and then GPU 0 runs out of memory.",
    "With DistributedDataParallel each rank creates a context on GPU 0, and the job hangs at the first all_reduce.",
    # one process, no ranks: not this behaviour
    "My script allocates all its memory on GPU 0 instead of GPU 1.",
    # DataParallel's GPU 0 holds the gathered outputs (another behaviour), no ranks named
    "With nn.DataParallel GPU 0 uses twice the memory of the other GPUs.",
])
def test_contexts_on_gpu0_near_misses(text):
    assert _behaviour(text) != "context_on_device_0"


# ----------------------------------------------------------------------------- by design: container PIDs

def test_tool_that_does_not_show_processes_in_container():
    verdict, found = judged_issue(_paste("healthy31/gpustat117.md"))
    assert verdict.category == "healthy" and "ticket.documented_behaviour" in found


@pytest.mark.parametrize("text", [
    "Inside the docker container nvidia-smi shows the processes correctly, but training is slow.",
    "In the container nvidia-smi doesn't show the processes and the job hangs forever.",
    "nvidia-smi doesn't show the processes inside the container because the model is on the CPU.",
])
def test_container_processes_near_misses(text):
    assert _behaviour(text) != "container_pids"
