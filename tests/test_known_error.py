"""Error messages the CUDA stack and the engines print (rules/catalog/engine_errors.toml, each row citing the CUDA
runtime's cudaError documentation or the engine's source) name the failure: a ticket quoting one gets the row's
category with the message as evidence (ticket.known_error), not a transport or tensor-parallel cause read from the
failure. Checked on two threads not in the corpus (tests/data/ut14k/SOURCES.md) and on sentences written here for
other engines, negations and questions."""

from pathlib import Path

import pytest
from conftest import judged_file, judged_issue

from rules.catalog import engine_errors

DATA = Path(__file__).parent / "data" / "ut14k"




def test_every_row_cites_its_source_and_compiles():
    rows = engine_errors()
    assert len({r.id for r in rows}) == len(rows) >= 7
    assert all(r.sources and all(s.startswith("https://") for s in r.sources) for r in rows)


@pytest.mark.parametrize("name, row", [("vllm629", "no_kernel_image"), ("apiforopenllm259", "kv_cache_too_small")])
def test_public_threads(tmp_path, name, row):
    verdict, rules = judged_file(tmp_path, DATA, name)
    assert verdict.category == "other" and verdict.confidence < 0.7
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
    assert verdict.category == "other"


@pytest.mark.parametrize("text", [
    "# TP slow\n\nvLLM TP=2 on 2x A100 gives 30 tok/s. There is no CUDA out of memory error, memory is fine.",
    "# TP slow\n\nNot an illegal memory access or anything like that: TP=4 just decodes slowly.",
    "# Question\n\nCould it be that the CUDA driver version is insufficient for CUDA runtime version? TP=2 is slow.",
])
def test_a_message_ruled_out_or_asked_about_is_no_claim(text):
    _, rules = judged_issue(text)
    assert "ticket.known_error" not in rules
