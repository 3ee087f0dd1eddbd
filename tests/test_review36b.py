"""Precision review of pairs36 and bydesign36 (pass review36b): probes written as reporters write them, each a misfire
found before this pass (tests/data/review36b/NOTES.md lists every probe and its verdict before and after), and the
real first posts the fixes must keep answering as their threads settled."""

import re
from pathlib import Path

import pytest
from conftest import judged_issue
from test_ticket_numbers import _said

from benchmarks.regex_worst_case import runaway_repeats
from rules import catalog, claims, failure_words, software_pairs, ticket_questions

DATA = Path(__file__).parent / "data"


def _rules(text):
    verdict, found = judged_issue(text=text)
    return verdict, found


# --------------------------------------------------------------------------- software_pair: more than the software

@pytest.mark.parametrize("text", [
    # a different quantisation on each side
    "vllm slower than sglang?\n\n2x A100 80GB, Llama 3 70B. vllm got 900 tok/s but sglang got 1500 tok/s. The vllm "
    "run uses the bf16 weights and the sglang run uses FP8 quantization. Why is vllm slower?",
    # a different tensor-parallel size
    "Two engines, big gap\n\nLlama-3-8B on H100s. vllm got 2000 tok/s while sglang got 4100 tok/s. vllm with TP=1, "
    "sglang with --tp 2. Is vllm broken?",
    # a different GPU on each side
    "ollama slower than vllm\n\nollama got 30 tok/s but vllm got 90 tok/s. Ollama runs on my RTX 3060 at home, vllm "
    "on the A100 at work. Why?",
    # a different context length
    "ollama slower than llama.cpp\n\nSame GPU. ollama gets 20 t/s but llama.cpp gets 45 t/s. In ollama I set "
    "num_ctx 131072, llama.cpp is at the default 4096. What's wrong?",
    # a different model
    "ollama slower than llama.cpp\n\nollama gets 30 t/s but llama.cpp gets 80 t/s. Ollama runs llama3:70b, "
    "llama.cpp runs the 8B model. Same 4090. Why?",
])
def test_software_pair_steps_back_when_the_runs_differ_in_more(text):
    assert software_pairs.software_pair(_said(text)) is not None  # the pair is still read ...
    verdict, found = _rules(text)
    assert "ticket.software_pair" not in found  # ... but the gap is not the software's alone
    assert verdict.category != "other"


def test_software_pair_steps_back_beside_a_fault():
    """An Xid beside the pair: the fault answers, the pair does not add a software lead."""
    verdict, found = _rules("vllm much slower than sglang\n\n4x A100, Llama 70B, tp 4. vllm got 400 tok/s but sglang "
                            "got 1200 tok/s. dmesg shows Xid 79 GPU has fallen off the bus during the vllm run. Why?")
    assert verdict.category == "hardware_fault" and "ticket.software_pair" not in found


def test_a_clients_own_load_is_still_the_client():
    """Two clients: how each sends its requests is the client's own doing (sgl-project/sglang#4076), so a batch of 1
    against 256 concurrent does not make the runs differ in more than the client."""
    verdict, found = _rules("my custom script slow\n\nOn 4x L40S with Qwen 14B, my custom script got 5 req/s but "
                            "official benchmark got 16 req/s. My script uses batch size 1 and the official one sends "
                            "256 concurrent requests. Why?")
    assert "ticket.software_pair" in found and verdict.category == "other"
    verdict, found = judged_issue(text=(DATA / "load30/sglang4076.md").read_text())
    assert "ticket.software_pair" in found and verdict.category == "other"


# --------------------------------------------------------------------------- TP beating copies at high load

@pytest.mark.parametrize("text", [
    "TP faster than DP at high load\n\n2x A100 80GB, Qwen2.5-7B. With 256 concurrent requests, TP=2 is faster than 2 "
    "replicas behind nginx. Why is TP faster than data parallel even at high concurrency?",
    "Why does one TP=4 engine beat 4 separate instances?\n\nOn 4x L40S with Llama-3.1-8B, a single TP=4 server beats 4 "
    "independent vllm engines in total throughput when I send 512 concurrent requests. Why?",
])
def test_tp_beating_copies_at_high_load_is_no_physics(text):
    """Copies each fill a batch at high load and should win throughput: the sharded model winning there is neither
    the low-load physics nor 'normal'."""
    assert any(c.data["high_load"] for c in claims.sharding_beats_replicas(_said(text)))
    verdict, found = _rules(text)
    assert "ticket.scaling_question" not in found
    assert verdict.category not in ("expected_physics", "healthy")


def test_tp_beating_copies_at_low_load_is_still_physics():
    text = ("TP vs replicas\n\n2x H100 with Llama 8B. With 1-4 concurrent users, TP=2 is faster than two replicas. "
            "Why does TP win?")
    assert not claims.sharding_beats_replicas(_said(text))[0].data["high_load"]
    verdict, found = _rules(text)
    assert verdict.category == "expected_physics" and "copies" in found["ticket.scaling_question"].title


def test_the_real_tp2_against_two_solo_engines_stays_physics():
    """forums.developer.nvidia.com t/364926 names c64, where the copies pulled ahead, but TP=2 won at low/mid load."""
    verdict, found = judged_issue(text=(DATA / "ut26c/spark_tp2_vs_2solo.md").read_text())
    assert verdict.category == "expected_physics" and "ticket.scaling_question" in found


# --------------------------------------------------------------------------- by-design rows beside a failure in words

@pytest.mark.parametrize("text", [
    "Ollama with OLLAMA_NUM_PARALLEL\n\nOllama processes one request at a time. When I set OLLAMA_NUM_PARALLEL=4 the "
    "server doesn't start at all. Bug?",
    "DCGM profiling metrics missing on P100\n\ndcgm-exporter on Tesla P100: DCGM_FI_PROF_GR_ENGINE_ACTIVE not being "
    "exported. Also the exporter pod keeps restarting and gets OOMKilled. Bug?",
    "ollama queues\n\nOllama queues the other requests; when the second one starts it segfaults. Issue?",
    "Ollama serves one request at a time\n\nOllama handles one request at a time on my A100 and dmesg shows Xid 13 "
    "errors. Bug?",
])
def test_no_healthy_beside_a_failure_in_words(text):
    verdict, found = _rules(text)
    assert "ticket.documented_behaviour" not in found and verdict.category != "healthy"


def test_missing_profiling_fields_on_a_newer_board_are_no_row():
    """The fields said missing on an A100 (a P100 named elsewhere): a fault on that board, not the architecture row."""
    verdict, found = _rules("DCGM profiling metrics missing\n\nOn A100 with dcgm-exporter, "
                            "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE not being exported. We also have a P100 in another "
                            "cluster. Bug?")
    assert "ticket.documented_behaviour" not in found


@pytest.mark.parametrize("text,key", [
    ("Ollama only runs one copy\n\nI want multiple instances of the same model with Ollama on 2 GPUs, but it only "
     "loads it once and the other requests are queued. Is this a bug?", "ollama_one_copy"),
    ("profiling metrics missing on P100\n\nDCGM_FI_PROF_SM_ACTIVE not exported on our Tesla P100 nodes with "
     "dcgm-exporter. Device metrics are fine. Is this a bug?", "dcgm_profiling_by_architecture"),
])
def test_the_rows_still_answer_without_a_failure(text, key):
    verdict, found = _rules(text)
    row = next(r for r in catalog.documented_behaviours() if r["key"] == key)
    assert verdict.category == "healthy" and found["ticket.documented_behaviour"].title == row["title"]


@pytest.mark.parametrize("rel", ["bydesign35/dcgmexp395.md", "bydesign35/k8sdp51.md"])
def test_real_posts_keep_their_row(rel):
    """NVIDIA/dcgm-exporter#395 (a T4 said to emit the fields is no newer board missing them) and the Kubernetes post
    whose second pod "fails to start" (the row's own observation: explains_failure)."""
    verdict, found = judged_issue(text=(DATA / rel).read_text())
    assert verdict.category == "healthy" and "ticket.documented_behaviour" in found


def test_failure_words_ruled_out_do_not_count():
    assert ticket_questions.failure_said(_said("Ollama queues the requests. Nothing crashes, it is just slow.")) is None
    assert ticket_questions.failure_said(_said("After a while the server crashes.")) is not None


def test_new_patterns_are_bounded():
    patterns = [failure_words._FAILED, claims._HIGH_LOAD, software_pairs._TP_VALUE, software_pairs._LOAD_VALUE,
                software_pairs._CONTEXT_VALUE, software_pairs._MODEL_SIZE, software_pairs._PRECISION]
    row = next(r for r in catalog.documented_behaviours() if r["key"] == "dcgm_profiling_by_architecture")
    patterns += [re.compile(row["unless"], re.I), re.compile(row["fault_in"], re.I)]  # (risks37: the board clause)
    for p in patterns:
        assert runaway_repeats(p.pattern, p.flags) == [], p.pattern[:30]
