"""The reporter's words are read before the tool output pasted into them (session s34, pass title34, issue 11).

rules.claims._reading_order puts the lines a program printed (timestamps, log levels, NCCL's "host:pid:tid [0] NCCL
INFO", tracebacks) after the reporter's own lines, title included, and symptom_quote takes the first part that says a
kind. A WARN line or a watchdog's timeout in a log pasted as context does not outrank what the reporter says; a log
pasted alone is still read. Within each part SYMPTOMS' order holds, so an error title with a slow remark stays an error
and a hang said in the prose of a title that names no kind stays a hang.
"""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules import claims

DATA = Path(__file__).parent / "data"


def kind_of(text: str) -> str:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return claims.symptom_quote(facts)[2]


def kind_of_post(path: Path) -> str:
    return claims.symptom_quote(read_bundle(path))[2]


# --------------------------------------------------------------------------- real posts

@pytest.mark.parametrize("path, kind", [
    # "ERROR shard-manager: ..." over a log whose NCCL watchdog timed out (huggingface/text-generation-inference#1383):
    # the reporter's error, labelled so before the tool ran (symptom34/labels.toml)
    ("symptom34/tgi_1383.md", "error"),
    # "NET/IB : Got completion from peer ... with error 12" over the ProcessGroupNCCL lines "have failed or timed out"
    # (tatsu-lab/stanford_alpaca#207): a network error, no hang
    ("ut15e/stanfordalpaca207.md", "error"),
    # "Stuck after loading the model." over vLLM's WARN and INFO lines (symptom34/rlswarm_92): the title's hang
    ("symptom34/rlswarm_92.md", "hang"),
])
def test_reporter_before_pasted_log_real(path, kind):
    assert kind_of_post(DATA / path) == kind


def test_rate_said_with_only_real():
    """"the generation speed is only 6 tokens/s, while a 34B model achieves 14" (vllm-project/vllm#2048)."""
    assert kind_of_post(DATA / "extract30" / "vllm2048.md") == "slow"


# --------------------------------------------------------------------------- paraphrases

@pytest.mark.parametrize("text, kind", [
    ("# Throughput halves with TP=4\n\nDecode throughput falls from 40 to 20 tok/s when I go to four GPUs.\n"
     "WARNING 05-02 10:11:12 config.py:120] Possibly too large swap space.\n", "slow"),
    ("# Server fails to start on two nodes\n\nThe launcher exits with an error, log below.\n"
     "[rank0]:[E ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout\n", "error"),
    ("Generation is far slower than the blog's figures on our A100s.\n"
     "2024-05-02 10:11:12 ERROR worker.py:88 Failed to connect to the metrics endpoint\n", "slow"),
    # words that name no kind: the pasted output decides
    ("# Model on two nodes\n\nAfter loading, the requests just sit there.\n"
     "node1:1234:1300 [0] NCCL INFO NET/IB : No device found.\n"
     "Traceback (most recent call last):\n"
     "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191\n", "error"),
])
def test_reporter_before_pasted_log_paraphrases(text, kind):
    assert kind_of(text) == kind


@pytest.mark.parametrize("text, kind", [
    # a log pasted alone, with no words of the reporter's, is still read
    ("2024-05-02T10:11:12Z ERROR ProcessGroupNCCL.cpp:828 Watchdog caught collective operation timeout\n", "hang"),
    # an error title with a slow remark stays an error (SYMPTOMS' order within the reporter's words)
    ("# CUDA error: an illegal memory access was encountered\n\nAlso the first requests seemed slower than usual.\n",
     "crash"),
    # a hang said in the prose of a title that names no kind stays a hang, whatever the log says
    ("# [Bug] vLLM 0.6\n\nWith TP=2 the server hangs after loading the weights.\n"
     "ERROR 04-06 03:23:45 engine.py:120] Engine background task failed\n", "hang"),
    # "no errors" in the reporter's words, then a log's ERROR line: the prose's scaling loss decides
    ("# TP=8 slower than TP=4\n\nNo errors anywhere, just lower throughput with eight GPUs.\n"
     "ERROR 04-06 03:23:45 metrics.py:12] Prometheus exporter not reachable\n", "scaling"),
])
def test_order_kept_where_it_must(text, kind):
    assert kind_of(text) == kind


# --------------------------------------------------------------------------- which lines are output

@pytest.mark.parametrize("line", [
    "2023-12-28T13:17:07.318704498Z [E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught collective operation",
    "- WARN 04-06 03:23:45 interface.py:275] Using 'pin_memory=False' as WSL is detected.",
    "INFO 04-06 03:23:46 model_runner.py:1110] Starting to load model",
    "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out.",
    "E0104 12:00:01.123456 1234 socket.cpp:100] connect failed",
    "gpu-node-1:2961:3028 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC",
    "(RayWorkerWrapper pid=5123) WARNING 05-02 10:11:12 custom_all_reduce.py:120] Custom allreduce is disabled",
    "[rank1]: Traceback (most recent call last):",
    '  File "/usr/lib/python3.10/site-packages/vllm/worker.py", line 88, in init_device',
    "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191",
    "$ nvidia-smi topo -m",
    "============================================================",
])
def test_output_lines(line):
    assert claims._OUTPUT_LINE.match(line)


@pytest.mark.parametrize("line", [
    "Info: I run vLLM 0.6 on two A100s and the error appears at startup.",  # the reporter's words, in a capital
    "Error handling aside, the throughput is half what I expected.",
    "At 12:00 the job stopped responding.",
    "With 2XL40 I get shard-manager error for docker image text-generation-inference:1.0.2",
    "Warning: this is my first issue here, sorry if it is in the wrong place.",
])
def test_reporter_lines(line):
    assert not claims._OUTPUT_LINE.match(line)


def test_title_that_reads_like_a_log_is_the_title():
    """A title that starts with a log level ("# ERROR shard-manager: ...") is still the reporter's line."""
    text = "# ERROR shard-manager: Shard complete standard error output\n\n[E ProcessGroupNCCL.cpp:828] timed out\n"
    words, output = claims._reading_order(text)
    assert [text[a:b].strip() for a, b in words][0].startswith("# ERROR shard-manager")
    assert [text[a:b].strip() for a, b in output] == ["[E ProcessGroupNCCL.cpp:828] timed out"]


# --------------------------------------------------------------------------- a rate said with "only"

@pytest.mark.parametrize("text", [
    "Framework PC: gpt-oss throughput only 8t/s on the default configuration.",
    "The decode speed is only 5 tok/s on two RTX 4090s.",
    "all_reduce bandwidth only 12 GB/s between the two nodes.",
])
def test_rate_said_with_only_paraphrases(text):
    assert kind_of(text) == "slow"


@pytest.mark.parametrize("text", [
    "The rate limit is only 5 requests per minute on the free tier; how do I raise it for my team?",
    "Not only the speed, also the memory use matters to us: which quantization should we pick?",
])
def test_rate_said_with_only_near_misses(text):
    assert kind_of(text) != "slow"
