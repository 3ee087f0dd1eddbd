"""Issue 11 (session s35, pass newarch35): a newer GPU slower than an older one, or a build without the GPU's
architecture (rules/build_arch.py, rules/catalog/gpu_archs.toml, ticket_questions.newer_arch_behind).

Tested on the real first posts kept in tests/data/newarch35 (SOURCES.md gives each thread and its settled answer), on
paraphrases of the messages and comparisons, and on near-misses: a newer card that is the smaller one, a warning about
a GPU the job does not use, a build said or named to support the architecture, an old card on a new build, the host
shown at its limit, a GPU too old for a data type (not a build).
"""

import re
from pathlib import Path

import pytest
from conftest import judged_issue

from benchmarks.regex_worst_case import runaway_repeats
from rules import build_arch, catalog

DATA = Path(__file__).parent / "data" / "newarch35"


def _paste(name: str) -> str:
    return (DATA / name).read_text()


def _said(text: str):
    return judged_issue("# question\n\n" + text + "\n")


# ----------------------------------------------------------------------------- the catalog


def test_every_architecture_row_has_its_first_cuda_and_matches_the_gpu_catalog():
    archs = catalog.gpu_archs()
    assert archs[12.0]["min_cuda"] == "12.8" and archs[8.9]["min_cuda"] == "11.8" and archs[7.0]["last_cuda"] == "12.9"
    for key in ("rtx-5090", "rtx-pro-6000-blackwell", "rtx-4090", "h100-sxm", "a100-80gb-sxm", "v100-sxm2-16gb"):
        assert round(catalog.resolve_gpu(key).compute_capability, 1) in archs


# ----------------------------------------------------------------------------- the real first posts


@pytest.mark.parametrize("name, rule", [
    ("pytorch153944.md", "build.arch_missing"),   # torch 2.7.0+cu118 on an RTX 5080: PyTorch's sm_120 warning
    ("leggedlab26.md", "build.arch_missing"),     # RTX 5090, the warning pasted in prose (Chinese post)
    ("duix467.md", "build.arch_missing"),
    ("kokoro365.md", "build.arch_missing"),       # RTX PRO 6000 Blackwell inside a container
    ("iopaint154.md", "build.cuda_before_arch"),  # an RTX 4090 at half speed on a CUDA 11.3 build
])
def test_real_posts_of_a_build_without_the_architecture(name, rule):
    verdict, findings = judged_issue(_paste(name))
    assert verdict.category == "other" and rule in findings


def test_the_old_build_names_its_cuda_against_the_architectures_first():
    _, findings = judged_issue(_paste("iopaint154.md"))
    f = findings["build.cuda_before_arch"]
    (e,) = [e for e in f.evidence if e.source == "catalog:gpu_archs.toml"]
    assert (e.measured, e.expected) == (11.3, 11.8) and "sm_89" in f.title and "cu118" in f.fix


# Comfy-Org/ComfyUI#9929 (Pascal on a 2.8.0+cu129 wheel without it) is answered since newarch35b:
# tests/test_newarch35b.py::test_comfyui9929_pascal_on_a_wheel_without_it


# (insuff38) answered since rules.build_arch.support_question: support said lacking for a GPU whose architecture
# PyTorch's CUDA wheel lines differ on is a lead to the build. comfyui7159's bare "Does it support 5070ti graphics
# card?" is left alone: tests/test_insuff38.py keeps it as a strict xfail, with the near-misses.
@pytest.mark.parametrize("name", ["comfyui7816.md", "textgen6828.md", "whisperwebui614.md"])
def test_support_questions_without_a_message(name):
    verdict, findings = judged_issue(_paste(name))
    assert verdict.category == "other" and "build.support_asked" in findings


# ----------------------------------------------------------------------------- the messages, paraphrased


@pytest.mark.parametrize("text", [
    "PyTorch warns that my NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current "
    "PyTorch installation, and generation then fails.",
    "```\nUserWarning:\nNVIDIA RTX PRO 6000 Blackwell Workstation Edition with CUDA capability sm_120 is not "
    "compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 "
    "sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n```",
    "Building flash-attn for the 5090 stops at: nvcc fatal : Unsupported gpu architecture 'compute_120'",
    "Triton prints 'sm_120' is not a recognized processor for this target (ignoring processor) on my RTX 5080.",
    "UserWarning: Found GPU0 NVIDIA GeForce RTX 5060 Ti which is of compute capability (CC) 12.0. Your installed "
    "torch==2.13.0+cu126 does not include kernels for this GPU.",
])
def test_a_build_message_names_the_build(text):
    verdict, findings = _said(text)
    assert verdict.category == "other" and "build.arch_missing" in findings
    assert "sm_120" in findings["build.arch_missing"].title and "12.8" in findings["build.arch_missing"].fix


# PyTorch's sentence after every CUDA error ("CUDA kernel errors might be asynchronously reported ... might be
# incorrect") is the framework's hedge about its stack trace, not the reporter's guess (claims._error_said)
@pytest.mark.parametrize("text, quoted", [
    (_paste("comfyui8708.md"), True),
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device\nCUDA kernel errors might be "
     "asynchronously reported at some other API call, so the stacktrace below might be incorrect.", True),
    ("Maybe it is CUDA error: no kernel image is available for execution on the device? CUDA kernel errors might be "
     "asynchronously reported at some other API call, so the stacktrace below might be incorrect.", False),
])
def test_the_frameworks_hedge_is_not_the_reporters(text, quoted):
    verdict, findings = judged_issue(text if text.startswith("#") else "# error\n\n" + text + "\n")
    assert ("ticket.known_error" in findings) is quoted and (verdict.category == "other") is quoted


def test_a_warning_about_a_gpu_the_job_does_not_use_is_not_the_cause():
    text = ("We serve Llama-3-8B with vLLM on the RTX 4090 and decode is slow. At start PyTorch prints: Found GPU1 "
            "NVIDIA GeForce GT 710 which is of cuda capability 3.5. PyTorch no longer supports this GPU because it is "
            "too old.")
    _, findings = _said(text)
    assert "build.arch_missing" not in findings


def test_a_gpu_too_old_for_a_data_type_is_no_build_message():
    _, findings = _said("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your "
                        "Tesla T4 GPU has compute capability 7.5.")
    assert "build.arch_missing" not in findings


# ----------------------------------------------------------------------------- a build tag older than the GPU


@pytest.mark.parametrize("text", [
    "The RTX 5090 is slower than the 4090 with torch 2.5.1+cu121.",
    "My RTX 4090 only gets 3 it/s with the cu113 wheel, it should be twice that.",
    "Inference on the H100 is slow, we install torch from https://download.pytorch.org/whl/cu117.",
])
def test_a_build_older_than_the_architecture_is_the_lead(text):
    verdict, findings = _said(text)
    assert verdict.category == "other" and "build.cuda_before_arch" in findings


@pytest.mark.parametrize("text, confidence", [
    ("The RTX 5090 is slow with torch 2.5.1+cu121.", 0.55),   # a new major (sm_120): no code it can run, PTX or nothing
    ("The RTX 4090 is slow with torch 1.13.1+cu117.", 0.45),  # sm_89 runs the build's sm_86 code, untuned
])
def test_a_new_major_architecture_weighs_more_than_a_new_minor(text, confidence):
    _, findings = _said(text)
    assert findings["build.cuda_before_arch"].confidence == confidence


@pytest.mark.parametrize("text", [
    "Our V100 runs slower with torch 2.7.1+cu128 than it did before.",           # an old card on a new build
    # a failure with no build message: the process killed while loading (host memory), not the build
    "On my RTX 4090 the program was Killed while loading the model, torch 1.13.1+cu117. Is the VRAM too small?",
    "The RTX 4090 is slow with the cu121 wheel.",                                # a build that compiles for Ada
    "The H100 is slow with cu118 and with cu124 alike.",
    "Is the RTX 5090 slow with cu118? We switched to cu128 and it is still slow.",  # a build that supports it named
])
def test_a_build_that_builds_for_the_gpu_is_no_lead(text):
    _, findings = _said(text)
    assert "build.cuda_before_arch" not in findings


# ----------------------------------------------------------------------------- a newer architecture behind


@pytest.mark.parametrize("text", [
    "Why is the RTX PRO 6000 Blackwell slower than our old V100 with the same code?",
    "The H100 should be faster than the A100, but our decode is slower on it.",
    "Our A100 is slower than the old V100 box at batch 1, same script.",
    "The RTX 5090 is slower than the RTX 4090; I suspect Blackwell isn't supported yet.",   # a guess, not support said
    "按理说 H100 应该比 A100 快，但实际测下来更慢。",
])
def test_a_newer_architecture_behind_leads_to_its_build(text):
    verdict, findings = _said(text)
    f = findings["ticket.newer_arch_behind"]
    assert verdict.category == "other" and f.confidence < 0.5
    # the words alone cannot tell the build from the host: the host stays the second lead, weaker
    assert findings["ticket.stronger_gpu_slower"].confidence < f.confidence
    (cc,) = [e for e in f.evidence if e.detail.startswith("compute capability")]
    assert cc.measured > cc.expected


@pytest.mark.parametrize("text, other", [
    ("The RTX 4060 is slower than my old RTX 3090.", "ticket.gpus_compared"),   # the newer card is the smaller one
    ("The H100 is slower than the A100; one CPU core is at 100% the whole time.", "ticket.stronger_gpu_slower"),
    ("The RTX 5090 is slower than the RTX 4090 although my PyTorch build supports sm_120.",
     "ticket.stronger_gpu_slower"),
    ("The RTX 5090 is slower than the 4090 with torch 2.7.1+cu128.", "ticket.stronger_gpu_slower"),
    ("The A100 should be better than the A6000, but our decode is slower on it.", "ticket.stronger_gpu_slower"),
])
def test_no_build_lead_where_the_gpu_the_host_or_the_build_explains_it(text, other):
    _, findings = _said(text)
    assert "ticket.newer_arch_behind" not in findings and other in findings


# ----------------------------------------------------------------------------- bounded patterns


def test_patterns_stay_bounded_on_long_blank_input():
    """No chain of unbounded repeats a long run of one character alone can take, nor one nested in another."""
    for name in dir(build_arch):
        pattern = getattr(build_arch, name)
        if isinstance(pattern, re.Pattern):
            assert runaway_repeats(pattern.pattern, pattern.flags) == [], name


def test_a_build_named_before_the_newer_architecture_leaves_the_host_lead_out():
    """A build tag older than the slower board's architecture (CUDA 12.1 before sm_120) is the evidence the words
    alone lack: the build leads alone (0.55), the host lead steps back."""
    verdict, findings = _said("The RTX 5090 is slower than the RTX 4090 with the same script on torch 2.5.1+cu121.")
    assert verdict.category == "other"
    assert "ticket.stronger_gpu_slower" not in findings
    assert any(f.confidence >= 0.55 for r, f in findings.items() if r in ("ticket.newer_arch_behind",
                                                                           "build.cuda_before_arch"))
