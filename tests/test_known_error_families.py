"""(issue 11, s15) The error catalog widened from NCCL's, CUDA's and the engines' own sources
(rules/catalog/engine_errors.toml: NCCL's result strings and WARN lines, the driver/library mismatch, a device index not
visible, a dtype or kernel the GPU is too old for, memory another process holds, the engines' custom all-reduce), each
family checked on lines pasted in
public threads not in the corpus (tests/data/ut15e/SOURCES.md), on sentences written here for other engines and
wordings, and on negations and questions; and the release A/B read in prose with one release named ("after upgrading to
vLLM 0.6.4 ..."), with "broken", and with the releases said to behave the same."""

from pathlib import Path

import pytest
from conftest import judged_file, judged_issue

from rules import claims
from rules.catalog import engine_errors

DATA = Path(__file__).parent / "data" / "ut15e"


def test_every_row_names_where_its_text_comes_from():
    rows = {r.id: r for r in engine_errors()}
    for new in ("nccl_unknown_result", "nccl_symbol_missing", "nccl_duplicate_gpu", "nccl_invalid_usage",
                "driver_library_mismatch", "invalid_device_ordinal", "unsupported_on_this_gpu",
                "memory_held_elsewhere", "custom_allreduce_error", "device_assert", "launch_timeout"):
        assert rows[new].sources and all(s.startswith("https://") for s in rows[new].sources)


@pytest.mark.parametrize("name, row, category", [
    ("verl161", "nccl_duplicate_gpu", "other"),  # PyTorch's NCCL error, then NCCL's own "Last error"
    ("horovod3929", "nccl_duplicate_gpu", "other"),  # NCCL_DEBUG WARN lines under mpirun's prefixes
    ("mozillatranslations1167", "driver_library_mismatch", "other"),
    ("vllm730", "unsupported_on_this_gpu", "other"),  # bf16 on a V100
    ("vllm4202", "unsupported_on_this_gpu", "other"),  # AWQ below its minimum capability
    ("pytorch175666", "memory_held_elsewhere", "other"),
    ("koboldcpp1609", "out_of_memory", "other"),  # llama.cpp's cudaMalloc failure in koboldcpp
    ("vllm45604", "custom_allreduce_error", "other"),
])
def test_public_threads(tmp_path, name, row, category):
    verdict, rules = judged_file(tmp_path, DATA, name)
    assert rules["ticket.known_error"].title.endswith(row.replace("_", " "))
    assert verdict.category == category and verdict.confidence < 0.7
    assert "ticket.software_error" not in rules  # one finding for one message


def test_a_one_line_thread_quoting_a_missing_nccl_symbol():
    """nccl#1180, title and body one line each (too short for the bundle reader to take as an issue): an NCCL symbol
    libtorch cannot find is an NCCL release mismatch."""
    verdict, rules = judged_issue((DATA / "nccl1180.md").read_text())
    assert rules["ticket.known_error"].title.endswith("nccl symbol missing")
    assert verdict.category == "nccl_regression"


def test_sglang_quotes_two_memory_messages_both_other(tmp_path):
    """sglang#4330: CUDA out of memory at 0.85 and SGLang's 'Not enough memory' at 0.84, both memory, both other."""
    verdict, rules = judged_file(tmp_path, DATA, "sglang4330")
    assert verdict.category == "other"
    assert "kv cache too small" in rules["ticket.known_error"].summary  # the second message named beside the first


def test_an_error_after_an_engine_upgrade(tmp_path):
    """vllm#26525: 'invalid device ordinal after the update to v0.11.0': the message and the release change both say
    the engine, not the GPUs."""
    verdict, rules = judged_file(tmp_path, DATA, "vllm26525")
    assert {"ticket.known_error", "ticket.engine_versions"} <= set(rules)
    assert verdict.category == "other"


@pytest.mark.parametrize("text, row, category", [
    ("# TRT-LLM TP=2 fails\n\n```\n[TensorRT-LLM][ERROR] NCCL error /src/cpp/tensorrt_llm/plugins/ncclPlugin/"
     "allreducePlugin.cpp:200 'unknown result code'\n```", "nccl_unknown_result", "nccl_regression"),
    ("# vLLM import fails\n\nImporting vllm on our 4x A100 box gives `ImportError: /opt/venv/lib/python3.10/"
     "site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommWindowRegister`.", "nccl_symbol_missing",
     "nccl_regression"),
    ("# SGLang TP=4\n\n```\nnode01:2211:2290 [3] NCCL INFO init.cc:904 NCCL WARN Duplicate GPU detected : rank 3 and "
     "rank 1 both on CUDA device 41000\n```", "nccl_duplicate_gpu", "other"),
    ("# after a driver update\n\nSince the driver update last night vLLM will not start; nvidia-smi prints "
     "'Failed to initialize NVML: Driver / library version mismatch'.", "driver_library_mismatch", "other"),
    ("# container\n\n```\nRuntimeError: CUDA error: system has unsupported display driver / cuda driver "
     "combination\n```\nOllama in a cuda:12.8 image on two A10.", "driver_library_mismatch", "other"),
    ("# TP=8 on a 4-GPU box\n\n```\ntorch.AcceleratorError: CUDA error: invalid device ordinal\n```\nSGLang --tp 8.",
     "invalid_device_ordinal", "other"),
    ("# T4 pair\n\n```\nRuntimeError: FlashAttention only supports Ampere GPUs or newer.\n```\ntransformers with "
     "attn_implementation flash_attention_2 on 2x T4.", "unsupported_on_this_gpu", "other"),
    ("# TGI sharded\n\n```\nRuntimeError: CUDA error: device-side assert triggered\n```", "device_assert", "other"),
    ("# workstation\n\nllama.cpp -sm row stops with `CUDA error: the launch timed out and was terminated` on the "
     "card that drives the monitor.", "launch_timeout", "other"),
    ("# NCCL log\n\n```\nnode:1:1 [0] include/alloc.h:119 NCCL WARN Cuda failure 2 'out of memory'\n```",
     "out_of_memory", "other"),
    ("# TRT-LLM\n\n```\n[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out "
     "of memory (/src/cpp/tensorrt_llm/runtime/tllmBuffers.h:125)\n```", "out_of_memory", "other"),
    ("# old driver\n\n```\nRuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.\n```",
     "driver_too_old", "other"),
])
def test_each_family_in_another_engine_or_wording(text, row, category):
    verdict, rules = judged_issue(text)
    assert rules["ticket.known_error"].title.endswith(row.replace("_", " "))
    assert verdict.category == category


@pytest.mark.parametrize("text", [
    "# TP slow\n\nTP=2 on two A100 decodes at 30 tok/s. No Duplicate GPU detected or other NCCL warnings in the log.",
    "# Question\n\nCould an invalid device ordinal be why TP=4 does not start? We have 8 GPUs.",
    "# TP slow\n\nIt is not a Driver/library version mismatch, nvidia-smi works; TP=4 is just slow.",
    "# TP slow\n\nNo ncclRemoteError, no timeouts: the all-reduce is just slow across the two nodes.",
])
def test_a_message_ruled_out_or_asked_about_is_no_claim(text):
    _, rules = judged_issue(text)
    assert "ticket.known_error" not in rules


@pytest.mark.parametrize("name", ["stanfordalpaca207", "nccl2076"])
def test_a_failure_elsewhere_names_no_cause(tmp_path, name):
    """ncclRemoteError and the IB completion error are what the surviving ranks print when another rank dies or the
    fabric drops it (nccl#2076: IB faults on some nodes; any rank's crash reads the same): no catalog row reads them."""
    _, rules = judged_file(tmp_path, DATA, name)
    assert "ticket.known_error" not in rules


def test_an_error_pasted_as_prose_is_read_line_by_line():
    """nccl#2076's own paste, outside a code block, ends in PyTorch's 'A call failed possibly due to a network error':
    a line of the paste is no guess of the reporter's, so a catalog message on the line before it is still read."""
    text = (DATA / "nccl2076.md").read_text().replace(
        "Last error:", "Last error:\nRuntimeError: CUDA error: invalid device ordinal")
    _, rules = judged_issue(text)
    assert rules["ticket.known_error"].title.endswith("invalid device ordinal")


def test_custom_allreduce_refused_peer_access_is_the_p2p_refusal():
    """vLLM's custom all-reduce printing CUDA's 'peer access is not supported' is the GPUs refusing P2P (the no_p2p
    claims read it), not a failure of the custom kernel: the custom-all-reduce row leaves that message alone."""
    text = ("# TP=2 on two T4\n\n```\nFailed: Cuda error /workspace/csrc/custom_all_reduce.cuh:307 'peer access is not "
            "supported between these two devices'\n```")
    verdict, rules = judged_issue(text)
    assert "ticket.known_error" not in rules
    assert verdict.category == "p2p_disabled"


# ---------------------------------------------------------------------------------------------- releases in prose


@pytest.mark.parametrize("text, release", [
    ("After upgrading to vLLM 0.6.4 the output throughput on 4x A100 with TP4 dropped from 2000 tok/s to 1200 tok/s.",
     "0.6.4"),
    ("We upgraded vLLM to 0.6.4 and now it is 30% slower.", "0.6.4"),
    ("Since we moved to SGLang 0.4.3, decode is about 30% slower on 8x H100 with TP8.", "0.4.3"),
    ("After updating to ollama 0.5.7 the model hangs on two GPUs.", "0.5.7"),
    ("Downgrading SGLang to 0.4.1 fixed it.", "0.4.1"),  # the release gone back to is the good one
    ("With SGLang 0.4.3 the server crashes at startup on 2 GPUs. It worked fine in previous versions.", "0.4.3"),
    ("Ollama 0.5.4 hangs on two GPUs; this did not happen with older releases.", "0.5.4"),
])
def test_one_release_moved_to_is_an_engine_change(text, release):
    moved = claims.engine_moved_to(text)
    assert moved and moved[1] == [release]


@pytest.mark.parametrize("text", [
    "Upgrading vLLM to 0.6.4 fixed the hang.",  # the new release is the cure
    "We plan to upgrade vLLM to 0.6.4 next week; TP=2 is slow.",  # a plan
    "It is not the upgrade to vLLM 0.6.4 that made it slow.",  # ruled out
    "Should I downgrade vllm to 0.6.3 to fix it?",  # asked
    "I upgraded torch to 2.5.1 and vllm got slower.",  # another product's release
    "After upgrading to vLLM 0.6.4 everything works fine.",  # no failure
    "With SGLang 0.4.3 the server crashes at startup. It never worked in earlier versions either.",  # old too
    "With SGLang 0.4.3 the server crashes at startup on 2 GPUs. Did it work in previous versions?",
])
def test_no_release_change_read(text):
    assert claims.engine_moved_to(text) is None


@pytest.mark.parametrize("text", [
    "# TP hang\n\nTP=2 works in vllm 0.5.5, broken in 0.6.0: it hangs at startup on 2x L40S.",
    "# hang\n\nTensorRT-LLM 0.9.0 hangs at the first allreduce on 2x 4090 while 0.8.0 worked fine with the same "
    "engine build.",
    "# slow\n\nAfter upgrading to vLLM 0.6.4 the output throughput on 4x A100 with TP4 dropped from 2000 tok/s to "
    "1200 tok/s.",
])
def test_engine_release_ab_is_the_verdict(text):
    verdict, rules = judged_issue(text)
    assert "ticket.engine_versions" in rules and verdict.category == "other"


@pytest.mark.parametrize("text, compared", [
    ("# question\n\nWe see 350 GB/s busbw on 8x A100. It is the same on NCCL 2.18.3 and 2.19.3, so this is not a "
     "regression.", False),
    ("# question\n\nNo difference between NCCL 2.18.3 and 2.19.3 on our 8x A100: 350 GB/s either way.", False),
    ("# slower\n\nOn 8x A100 NCCL 2.19.3 is slower than 2.18.3: the busbw fell after the upgrade.", True),
])
def test_nccl_releases_said_alike_are_no_comparison(text, compared):
    _, rules = judged_issue(text)
    assert ("nccl.regression" in rules and rules["nccl.regression"].category == "nccl_regression") == compared
