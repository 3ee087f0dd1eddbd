"""ask25 (issue 11): an undecided ticket's first ask names the artifact that settles its kind of question.

Real development tickets (tests/data/tickets, listed with the family that settled each thread in
tests/data/ask25/cases.toml, sources in tests/data/ask25/SOURCES.md): a hang asks for the stuck ranks' stacks and
the kernel's Xid lines, an error for its whole output and the versions, a speed question for the exact launch and
benchmark; a confident verdict asks for nothing."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import ask_audit  # noqa: E402

SETTLED = {c["id"]: c["settled_by"] for c in tomllib.loads(ask_audit.CASES.read_text())["case"]}


def case(prefix: str) -> str:
    return next(c for c in SETTLED if c.split("-")[0] == prefix)


@pytest.mark.parametrize("prefix", [
    "u9a10",   # vLLM hang, failing HBM: dmesg's Xid lines
    "u19c01",  # kvcached TP startup hang: the stuck processes' stacks
    "u11a06",  # NCCL 2.19 all-to-all deadlock: the versions
    "u18c07",  # nvidia-nccl-cu12 2.21.5 deadlock: the versions
    "u20a03",  # TGI sharded launch failing on Ubuntu 20.04 / CUDA 12.2: the versions
    "u19a07",  # Ray's hard-coded NCCL_SOCKET_IFNAME: the NCCL_DEBUG=INFO output of the failing run
    "u12a14",  # Ollama after hibernation: its log said it could not load the model on the GPU
    "u5b04",   # V100 CUDA graphs captured only for batch 1-2: the launch and the concurrency
    "u8a07",   # LightLLM slow tokenizer mode: the launch line
    "u6b10",   # SGLang LoRA without CUDA graphs: the launch line
    "u220",    # A100 slower than 4090 in a spec-decoding bench: CUDA and PyTorch versions
    "u12a08",  # ZeRO-3 vs ZeRO-2: the launch configuration
])
def test_the_first_ask_names_what_settled_the_thread(prefix):
    rows = ask_audit.asks_of(case(prefix))
    assert ask_audit.classify(SETTLED[case(prefix)], rows) == "first", rows[:2]


def test_a_hang_asks_for_stacks_and_xid_not_a_benchmark():
    """u11a06 (nccl#1102-style all-to-all hang on 14 A800 nodes): the first row is what places a hang."""
    first = ask_audit.asks_of(case("u11a06"))[0][1]
    assert "py-spy" in first and "xid" in first.lower()
    assert "benchmark" not in first


def test_a_speed_question_asks_for_the_launch_not_stacks():
    """u5b04 (one request fast, 3-6 concurrent at 1 tok/s): a speed, not a hang; no py-spy, no dmesg."""
    first = ask_audit.asks_of(case("u5b04"))[0][1]
    assert "launch line" in first and "py-spy" not in first and "dmesg" not in first


def test_an_error_asks_for_its_output_and_versions_not_topology_first():
    """u20a03 (TGI num-shard 2 on two A2 fails): the error output and collect_env come before any topology."""
    rows = ask_audit.asks_of(case("u20a03"))
    assert "collect_env" in rows[0][1] and "topo -m" not in rows[0][1]
    assert any("topo -m" in r[1] for r in rows[1:])  # the general asks follow


def test_a_confident_verdict_asks_for_nothing():
    """Near-miss: h006 (sichek: GPU1 needs a reset) is answered hardware_fault at 0.75: no table of asks."""
    assert ask_audit.asks_of("h006-sichek-nccltest-gpu1-reset-required") == []


def test_a_decided_verdict_gets_no_symptom_ask():
    """Near-miss: e001 (vLLM, 52 heads at TP3) is answered tp_not_dividing_heads at 0.69, below the confident line:
    its table keeps the checks' own gaps, but no general ask for its kind of question."""
    assert "ticket.symptom" not in [r[0] for r in ask_audit.asks_of("e001-vllm-52heads-tp3")]


def test_a_leads_own_ask_stands_in_for_the_symptom_ask():
    """u19c01: the hang lead's own ask (py-spy of each stuck process) comes first in the verdict's Next and the table,
    and the hang's general ask (which repeats py-spy) is not asked again beside it."""
    import ticket_accuracy

    _, _, v = ticket_accuracy.judge(ticket_accuracy.CORPUS / case("u19c01"))
    assert v.category == "insufficient_data"
    nxt = v.summary.split("Next: ", 1)[1]
    assert re.match(r"attach a `py-spy dump` of each stuck process;", nxt)
    assert nxt.count("py-spy") == 1
    assert "ticket.symptom" not in [r[0] for r in ask_audit.asks_of(case("u19c01"))]


def test_a_bandwidth_question_asks_for_the_path_not_an_engine_launch():
    """Near-miss: u7d04 (12 A800 nodes, one HDR NIC, 15 GB/s busbw, 'is this OK?') is a speed question, but a
    collective's bandwidth is decided by its path: the NCCL log and topology come first, no engine launch line."""
    rows = ask_audit.asks_of(case("u7d04"))
    assert "ticket.symptom" not in [r[0] for r in rows]
    assert "NCCL_DEBUG=INFO" in rows[0][1]
