"""Issue 11 (session s34, pass review34b): where startup34's and title34's readings fired wrongly, and their fixes.

startup34: a stop at a start-up step that compiles, builds or loads (claims "startup_step_hang") keeps the peer path a
lead only; it no longer holds where the step finished, came before the stop, was turned off or is set against it (the
first collective, after the step, is then what stopped). The JIT lock rows read their stop words from one catalog
fragment ({stopped}, rules/catalog.py FRAGMENTS), which "no hang" does not satisfy, and a ticket whose start went past
the build ({went_on}) is not stopped at the build's lock.
title34: a log level, glog's letter and PyTorch's "[E ...]" count as pasted output only in a log line's shape; "rate
only N" reads slow only where N is the rate complained of (not a difference, a need, or the rate before a change).
Probes and results: tests/data/review34b/NOTES.md.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.errors import InputError
from diagnose.evidence import Facts, Note
from rules import catalog, claims

DATA = Path(__file__).parent / "data"


def _startup_claim(text: str) -> bool:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return any(not c.negated and not c.guess for c in claims.find(facts, "startup_step_hang"))


def _kind(text: str) -> str:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return claims.symptom_quote(facts)[2]


# --------------------------------------------------------------------------- startup_step_hang

@pytest.mark.parametrize("text", [
    # the step finished: vLLM prints "Loading model weights took 13.5 GB" once the weights are in
    "TP=2 on two A6000, the server is stuck at \"Loading model weights took 13 GB\" for an hour.",
    "Loading safetensors checkpoint shards: 100% Completed and then it hangs forever, tp 2 on 2x L40S.",
    "Loading model weights finished in 20 s, then the first all_reduce hangs on 2x RTX 4090 with tp 2.",
    # the step came before the stop
    "After loading the model weights it hangs at the first all-reduce, NCCL never finishes.",
    "torch.compile took 30 minutes and then the server hangs with tp=2 on 2 L40S.",
    # the step turned off, or another subject set against the stop
    "With torch.compile disabled (--enforce-eager) it still hangs at the first request.",
    "I disabled the JIT and it still hangs on 4x A6000 with tensor parallel 4.",
    "The server hangs when I disable torch.compile, on tp=2 2x L40S.",
    "ninja is installed, but the all-reduce hangs with tp=2 on two 3090s.",
])
def test_a_step_behind_the_stop_is_not_where_it_stopped(text):
    assert not _startup_claim(text)


@pytest.mark.parametrize("text", [
    # vLLM's progress bar at 0 of 4: the load itself stopped
    "Loading safetensors checkpoint shards: 0% Completed | 0/4 and it is stuck there for 30 minutes.",
    "Training with deepspeed on 2x A6000 is stuck at \"Building extension module fused_adam...\" for an hour.",
    "vLLM 0.6 with tp 2 on 2x RTX 4090 hangs at Compiling a graph for dynamic shape, nothing after it.",
    "It gets stuck on Loading extension module cpu_adam with 4 GPUs.",
    "The server hangs while downloading the model weights from the hub, tensor parallel 2 on 2x L4.",
    "trtllm-build hangs at building the TensorRT engines with tp_size 2 on 2x L40S.",
    "The process freezes during Inductor compilation on 2x RTX 3090, tp 2.",
    "TP=4 on 4x L40S: stuck while loading the model weights from NFS, no error.",
])
def test_a_stop_at_the_step_stays_one(text):
    assert _startup_claim(text)


def test_the_real_flashinfer_jit_hang_keeps_the_claim():
    """sgl-project/sglang#3578 (startup34's kept post): "it hangs when flashinfer loading jit ops"."""
    facts = Facts()
    facts.add(Note("issue.md:1", "description", (DATA / "startup34" / "sglang3578.md").read_text()))
    assert claims.find(facts, "startup_step_hang")


@pytest.mark.parametrize("text", [
    "# vLLM TP=2 hangs\nvllm serve with tp 4 on 4x RTX 3090. It is stuck at 'Loading model weights took 13 GB' and "
    "nothing happens.",
    "# Hang\nTP=2 on two RTX 4090. After loading the model weights it hangs at the first all-reduce.",
])
def test_a_hang_after_the_load_is_read_as_the_first_collectives(text):
    """Without the step's claim the verdict is the one the same ticket gets with no step named (the peer path)."""
    plain = "# Hang\nTP=2 on two RTX 4090: the server hangs at the first all-reduce."
    assert judged_issue(text)[0].category == judged_issue(plain)[0].category == "p2p_disabled"


# --------------------------------------------------------------------------- the catalog's shared stop words

def test_the_three_lock_rows_share_one_stop_fragment():
    rows = {r.id: r for r in catalog.engine_errors()}
    stopped = catalog.expand("{stopped}", "test")
    for key in ("jit_build_stale_lock", "flashinfer_jit_wait"):
        assert rows[key].context.pattern == stopped
    notice = next(r for r in catalog.documented_behaviours() if r["key"] == "jit_build_lock_notice")
    assert notice["unless"].startswith(stopped)


def test_an_unknown_fragment_is_a_bad_catalog():
    with pytest.raises(InputError, match="no regex fragment"):
        catalog.expand(r"\bhang\b|{halted}", "engine_errors.toml: error #1")
    assert catalog.expand(r"x{2,3}", "test") == r"x{2,3}"  # a quantifier is no fragment


@pytest.mark.parametrize("text, stops", [
    ("the start is stuck for good", True), ("it hangs forever", True), ("never finishes", True),
    ("no hang", False), ("it is not stuck", False), ("doesn't hang", False),
])
def test_the_stop_fragment_reads_negations(text, stops):
    import re
    assert bool(re.search(catalog.expand("{stopped}", "test"), text, re.I)) is stops


def test_the_lock_notice_said_with_no_hang_is_information():
    text = ("# Lock file message\nMy code prints Lock file exists in build directory: "
            "'/home/u/.cache/torch_extensions/nvdiffrast_plugin/lock' but everything works, no hang.")
    verdict, rules = judged_issue(text)
    assert "ticket.documented_behaviour" in rules and verdict.category == "healthy"


@pytest.mark.parametrize("text", [
    "# NCCL hang at step 5000\nTraining on 2x RTX 3090 with deepspeed. At start it printed \"Lock file exists in build "
    "directory: '/root/.cache/torch_extensions/py310_cu121/fused_adam/lock'\" and then built fine and trained. After "
    "5000 steps the all-reduce hangs forever.",
    "# hang after build\nDeepSpeed 0.14 on 4x L40S: FileBaton.wait was in the traceback I got when I pressed Ctrl+C "
    "the first time, I removed the folder and the build finished. Now NCCL all-reduce hangs at step 10.",
])
def test_a_start_that_went_past_the_build_is_not_stopped_at_its_lock(text):
    _, rules = judged_issue(text)
    f = rules.get("ticket.known_error")
    assert not f or "jit_build_stale_lock" not in f.evidence[0].detail


# --------------------------------------------------------------------------- which lines are pasted output

@pytest.mark.parametrize("line", [
    "ERROR happens only with TP=4 on my two nodes.",
    "**ERROR**: the server hangs after 10 requests on 2x A100",
    "DEBUG mode makes it slow",
    "W7900 is much slower than the A6000 with TP=2",
    "[I tried NCCL_P2P_DISABLE=1 and it still hangs]",
])
def test_reporter_lines_that_start_like_a_log(line):
    assert not claims._OUTPUT_LINE.match(line)


@pytest.mark.parametrize("line", [
    "[INFO] Loading model",
    "ERROR:root:NCCL failed",
    "ERROR - NCCL failed",
    "[E1203 12:00:00.123456 1234 ProcessGroupNCCL.cpp:616] timeout",
    # pytorch/pytorch's Windows builds (kept post ut28g/torchgeo1198.md)
    r"[W C:\actions-runner\_work\pytorch\pytorch\builder\windows\pytorch\torch\csrc\distributed\c10d\socket.cpp:601] "
    "[c10d] The client socket has failed to connect",
])
def test_log_lines_stay_output(line):
    assert claims._OUTPUT_LINE.match(line)


# --------------------------------------------------------------------------- a rate said with "only"

@pytest.mark.parametrize("text", [
    "Throughput was only 20 tok/s before the upgrade; now it is 60 tok/s, thanks!",
    "Bandwidth only 12 GB/s is needed for this, so PCIe Gen3 should be enough?",
])
def test_a_rate_with_only_that_is_no_complaint(text):
    assert _kind(text) != "slow"


def test_a_rate_with_only_stays_slow():
    assert _kind("Throughput only 8 tok/s with tp=2 on 2x 3090.") == "slow"
