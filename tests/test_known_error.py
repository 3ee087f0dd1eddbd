"""Error messages the CUDA stack and the engines print (rules/catalog/engine_errors.toml, each row citing the CUDA
runtime's cudaError documentation or the engine's source) name the failure: a ticket quoting one gets the row's
category with the message as evidence (ticket.known_error), not a transport or tensor-parallel cause read from the
failure. Checked on two threads not in the corpus (tests/data/ut14k/SOURCES.md) and on sentences written here for
other engines, negations and questions."""

from pathlib import Path

import pytest
from conftest import judged_file, judged_issue

from rules.catalog import engine_errors
from rules.engine import evaluate, ticket_verdict

DATA = Path(__file__).parent / "data" / "ut14k"




def test_every_row_cites_its_source_and_compiles():
    rows = engine_errors()
    assert len({r.id for r in rows}) == len(rows) >= 7
    assert all(r.sources and all(s.startswith("https://") for s in r.sources) for r in rows)


# (physdoc33) The KV cache too small for max_model_len is the engine's capacity arithmetic on that card (vLLM,
# "Conserving memory"): expected_physics since physdoc33, as threads settle it (tests/data/physdoc33/SOURCES.md).
@pytest.mark.parametrize("name, row, category", [("vllm629", "no_kernel_image", "other"),
                                                 ("apiforopenllm259", "kv_cache_too_small", "expected_physics")])
def test_public_threads(tmp_path, name, row, category):
    verdict, rules = judged_file(tmp_path, DATA, name)
    assert verdict.category == category and verdict.confidence < 0.7
    assert row.replace("_", " ") in rules["ticket.known_error"].title
    assert "ticket.software_error" not in rules  # one finding for one message


@pytest.mark.parametrize("text, row", [
    ("# SGLang TP=2 fails\n\n```\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 1 has "
     "a total capacity of 23.69 GiB of which 812.00 MiB is free.\n```\nTwo RTX 4090, --tp 2.", "out_of_memory"),
    ("# llama.cpp on two P40\n\nllama-server with -sm row prints `CUDA error: no kernel image is available for "
     "execution on the device` and exits.", "no_kernel_image"),
    ("# TensorRT-LLM on 4 GPUs\n\n```\n[TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc: CUDA driver version is "
     "insufficient for CUDA runtime version\n```", "driver_too_old"),
    ("# Ollama multi GPU\n\nThe runner stops with: Error: CUDA error: an illegal memory access was encountered, on 2x "
     "RTX 3090.", "illegal_address"),
    ("# vLLM on a shared node\n\n```\nRuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n```"
     "\ntensor_parallel_size=2 on two A100.", "devices_unavailable"),
    ("# vLLM v1 start fails with TP 2\n\n```\nValueError: To serve at least one request with the models's max seq len "
     "(131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (6.50 GiB).\n```",
     "kv_cache_too_small"),
])
def test_each_message_in_another_engine(text, row):
    verdict, rules = judged_issue(text)
    assert rules["ticket.known_error"].title.endswith(row.replace("_", " "))
    assert verdict.category == ("expected_physics" if row == "kv_cache_too_small" else "other")  # (physdoc33)


@pytest.mark.parametrize("text", [
    "# TP slow\n\nvLLM TP=2 on 2x A100 gives 30 tok/s. There is no CUDA out of memory error, memory is fine.",
    "# TP slow\n\nNot an illegal memory access or anything like that: TP=4 just decodes slowly.",
    "# Question\n\nCould it be that the CUDA driver version is insufficient for CUDA runtime version? TP=2 is slow.",
])
def test_a_message_ruled_out_or_asked_about_is_no_claim(text):
    _, rules = judged_issue(text)
    assert "ticket.known_error" not in rules


def test_a_second_cause_beside_a_confident_one_leaves_the_verdict_unsure():
    """Two explanations, each from its own pasted lines (NCCL on sockets with no IB device; PyTorch out of memory):
    the stronger leads, below 0.7 (rules.engine.contested), and the summary names the other. Lines in NCCL's and
    PyTorch's own formats."""
    text = ("# Job crashes\n\n```\nnode1:1234:1300 [0] NCCL INFO NET/IB : No device found.\n"
            "node1:1234:1300 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
            "node1:1234:1300 [0] NCCL INFO Using network Socket\n"
            "node1:1234:1300 [0] NCCL INFO comm 0x5 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 7000 commId 0x1 - "
            "Init COMPLETE\n"
            "node1:1234:1300 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total capacity of "
            "79.15 GiB of which 1.10 GiB is free.\n```\n")
    verdict, rules = judged_issue(text)
    assert rules["nccl.socket_fallback"].confidence >= 0.7 and "ticket.known_error" in rules
    assert verdict.category == "socket_fallback" and verdict.confidence < 0.7
    assert "out of memory" in verdict.summary
    # without the second cause the same lines stay confident
    alone, _ = judged_issue(text.replace(text[text.index("torch.OutOfMemoryError"):text.index("free.\n") + 6], ""))
    assert alone.category == "socket_fallback" and alone.confidence >= 0.7


def test_a_gpu_fault_explains_the_cuda_error_it_causes(tmp_path):
    """h006 (development): nccl-tests fails with 'CUDA-capable device(s) is/are busy or unavailable' on a GPU whose
    driver asks for a reset: the fault is the cause, the CUDA message its consequence, no rival to it."""
    from test_ticket_questions import development_case

    findings = evaluate(facts := development_case(tmp_path, "h006"))
    verdict = ticket_verdict(facts, findings)
    assert verdict.category == "hardware_fault" and verdict.confidence >= 0.7
    assert not any(f.rule == "ticket.known_error" for f in findings)
