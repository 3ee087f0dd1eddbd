"""The TP size as prose writes it (pass tp32): the papers' "degree", "set to" without its verb, "over N GPUs", the
GPUs said before the tensor parallelism over them, "TP-2", Chinese 张量并行 with 为/设置为; read through the whole
ticket reader (read_bundle), with the near-misses that must not be read as the run's TP."""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.evidence import Workload


def _tp(tmp_path: Path, body: str) -> list[int]:
    paste = tmp_path / "issue.md"
    paste.write_text("# Throughput lower than expected\n\n" + body + "\n\nIs this speed normal?\n")
    return [w.tp for w in read_bundle(paste).of(Workload) if w.tp]


@pytest.mark.parametrize("body, tp", [
    ("We run Llama-3-70B with vLLM on H100 with tensor parallel degree 4 and get 30 tok/s.", 4),
    ("We run Llama-3-70B with vLLM on H100 with TP degree of 4 and get 30 tok/s.", 4),
    ("We serve Llama-3-70B with vLLM on H100 with tensor parallel degree=4, TPOT 40 ms.", 4),
    ("We run Llama-3-70B with vLLM on H100 with tensor parallelism set to 4 and get 30 tok/s.", 4),
    ("We serve Llama-3-70B with vLLM, tensor parallel over 2 H100 GPUs, and get 30 tok/s.", 2),
    ("We serve Llama-3-70B with vLLM sharded over 2 GPUs with tensor parallel on H100 and get 30 tok/s.", 2),
    ("Llama-3-70B on H100 with vLLM, TP-2, gives 30 tok/s.", 2),
    ("使用vllm部署Qwen2-72B，A100，张量并行 2，速度只有 10 tokens/s", 2),
    ("使用vllm部署Qwen2-72B，A100，张量并行设置为2，速度只有 10 tokens/s", 2),
    # a size after the words is the TP, not the GPUs before them
    ("We serve Llama-3-70B with vLLM on 4 GPUs with tensor parallel 2 on H100 and get 30 tok/s.", 2),
    # a comparison of layouts, then the run tied to one of them
    ("Llama-3-70B with vLLM on H100: TP8 vs TP4. At TP8 we get 30 tok/s.", 8),
    ("Llama-3-70B with vLLM on H100 at TP8 gives 30 tok/s. My colleague's setup with TP4 gives 40 tok/s.", 8),
])
def test_tp_in_prose(tmp_path, body, tp):
    assert _tp(tmp_path, body)[:1] == [tp]


@pytest.mark.parametrize("body", [
    "Llama-3-70B on H100 with vLLM, TPOT 40 ms, TPS 20.",
    "We serve Llama-3-70B with vLLM on H100 and get 30 tok/s. Would a tensor parallel degree of 4 help?",
    "We serve Llama-3-70B with vLLM on H100 and get 30 tok/s. Maybe try 2 GPUs with tensor parallelism?",
    "We serve Llama-3-70B with vLLM 0.4 on H100 and get 30 tok/s, TP-1.5 release.",
    "使用vllm部署Qwen2-72B，A100，速度只有 10 tokens/s，张量并行不生效",
    "We serve Llama-3-70B with vLLM on H100 and get 30 tok/s. We did not set tensor parallelism to 4.",
    "Llama-3-70B on H100 with vLLM gives 30 tok/s. Tensor parallelism doesn't help.",
    # two layouts set against each other: neither is the run's
    "Llama-3-70B with vLLM on 8 H100: TP8 vs TP4, which is faster? We see 30 tok/s.",
    "Llama-3-70B with vLLM on H100: TP8 is slower than TP4.",
])
def test_not_the_runs_tp(tmp_path, body):
    assert _tp(tmp_path, body) == []


def test_kept_paste_gpus_then_tensor_parallelism():
    """review49's FasterTransformer paste ("run with 4 GPUs in tensor parallelism") compares it with a TP 2 run said
    first: the first layout named stays the ticket's, the new reading does not displace it."""
    paste = Path(__file__).parent / "data" / "review49" / "ftbackend27.md"
    assert [w.tp for w in read_bundle(paste).of(Workload) if w.tp] == [2]


def test_kept_paste_gpus_named_then_tensor_parallelism():
    """vllm#45604 ("on 4x NVIDIA H200 GPUs using tensor parallelism and expert parallelism"; the thread's error is
    at TP=4, ut15e/SOURCES.md): the GPUs' maker and board between the count and the word still size the TP."""
    paste = Path(__file__).parent / "data" / "ut15e" / "vllm45604.md"
    assert [w.tp for w in read_bundle(paste).of(Workload) if w.tp] == [4]
