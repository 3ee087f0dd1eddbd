"""Issue 11 (session s34, pass startup34): a start-up that only looks hung, and the one that is hung for good.

PyTorch's JIT extension build (torch.utils.cpp_extension.load, called at start by DeepSpeed's op builder, nvdiffrast,
ColBERT and many more) waits on a lock file in the extension's build directory; a build killed part-way leaves the
file behind and every later start waits on it for ever (engine_errors.toml, jit_build_stale_lock: `other`, delete the
lock). The same lock named by a job that runs is information (by_design.toml, jit_build_lock_notice: `healthy`). Each
is tested on the real first posts of tests/data/startup34 (SOURCES.md), on paraphrases, and on near-misses that must
not be read as either: a start with no lock named, a hang in the middle of serving, a capture that hangs with P2P off.
FlashInfer's JIT wait is asked about (a cold compile or a stale cache lock), and a stop at a start-up step that
compiles, builds or loads (claims "startup_step_hang") keeps the peer path a lead only, since no collective ran yet.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

DATA = Path(__file__).parent / "data" / "startup34"


def _row(text: str) -> str | None:
    """The catalog row ticket.known_error names for the text, or None."""
    _, rules = judged_issue(text)
    f = rules.get("ticket.known_error")
    return f.evidence[0].detail.split("(", 1)[1].split(",", 1)[0] if f else None


def _asked(text: str) -> str | None:
    """The catalog row ticket.ambiguous_error asks about for the text, or None."""
    _, rules = judged_issue(text)
    f = rules.get("ticket.ambiguous_error")
    return f.title.rsplit(": ", 1)[1].replace(" ", "_") if f else None


def _documented(text: str) -> bool:
    _, rules = judged_issue(text)
    return "ticket.documented_behaviour" in rules


# The real first posts whose threads settled on a stale lock of the extension build (SOURCES.md).
STALE_LOCK = ["foundationpose284.md", "pytorch59146.md", "ragatouille245.md", "nvdiffrec39.md"]


@pytest.mark.parametrize("name", STALE_LOCK)
def test_real_posts_stuck_on_the_extension_lock_name_the_stale_lock(name):
    text = (DATA / name).read_text()
    assert _row(text) == "jit_build_stale_lock"
    assert judged_issue(text)[0].category == "other"


def test_the_lock_message_of_a_job_that_runs_is_information():
    """NVlabs/nvdiffrast#67: the reporter's code "seems to run without problems"; the maintainer: expected behaviour."""
    text = (DATA / "nvdiffrast67.md").read_text()
    assert _row(text) is None
    assert _documented(text)
    assert judged_issue(text)[0].category == "healthy"


PARAPHRASES = [
    # DeepSpeed's op builder in a py-spy dump, the reporter's words around it
    "# deepspeed training never starts\n\nTwo A100s, ZeRO-2. The job is stuck before the first step; py-spy dump of "
    "rank 0:\n\n```\nThread 1201 (idle): \"MainThread\"\n    wait (torch/utils/file_baton.py:42)\n    _jit_compile "
    "(torch/utils/cpp_extension.py:1522)\n    jit_load (deepspeed/ops/op_builder/builder.py:480)\n```\n",
    # the lock's path in the reporter's sentence, Ctrl+C in the traceback
    "# fused_adam build hangs forever\n\nAfter I killed a run while it was compiling, every new run hangs at "
    "'Building extension module fused_adam...'. Interrupting shows it waiting on "
    "/home/me/.cache/torch_extensions/py310_cu121/fused_adam/lock.\n",
]


@pytest.mark.parametrize("text", PARAPHRASES)
def test_paraphrases_of_a_start_waiting_on_the_lock(text):
    assert _row(text) == "jit_build_stale_lock"
    assert judged_issue(text)[0].category == "other"


def test_the_lock_named_where_the_job_goes_on_is_no_stale_lock():
    text = ("# warning at start with 4 processes\n\nEach of my 4 processes prints Lock file exists in build directory: "
            "'/root/.cache/torch_extensions/py311_cu121/renderutils_plugin/lock' and then training goes on normally.\n")
    assert _row(text) is None
    assert judged_issue(text)[0].category != "other"


NEAR_MISSES = [
    # a start that stops at the build with no lock named: a first build can take minutes, nothing says it is stale
    "# stuck at Building extension module\n\nDeepSpeed stops at 'Building extension module cpu_adam...' and "
    "'Allowing ninja to set a default number of workers' for 5 minutes on the first run.\n",
    # a hang in the middle of serving: work was done, no start-up step
    "# vLLM hangs after 2 hours\n\nvLLM TP 4 on 4x A100 served requests fine for two hours, then every request hangs "
    "and the GPUs sit at 100 % utilisation.\n",
    # stuck at the capture for hours with peer access broken: a hang to diagnose, not a slow step
    "# vLLM stuck at Capturing CUDA graph\n\nvLLM TP 2 on 2x RTX 4090 has been stuck at 'Capturing CUDA graph shapes' "
    "for 3 hours. p2pBandwidthLatencyTest shows the peer copies fail, and with NCCL_P2P_DISABLE=1 it starts.\n",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_are_neither_the_stale_lock_nor_healthy(text):
    assert _row(text) is None
    assert not _documented(text)
    assert judged_issue(text)[0].category != "healthy"


DENIALS = [
    # the lock deleted already: what still hangs is something else
    "# DeepSpeed hangs at NCCL init\n\nI already deleted ~/.cache/torch_extensions/py310_cu121/fused_adam/lock and it "
    "still hangs at the first all_reduce on 8x A100.\n",
    # the start named slow, the hang denied
    "# slow start\n\nsglang takes 3 minutes to start; it waits on /root/.cache/torch_extensions/py310/x/lock but there "
    "is no hang.\n",
]


@pytest.mark.parametrize("text", DENIALS)
def test_a_lock_deleted_or_a_hang_denied_is_no_stale_lock(text):
    assert _row(text) is None


# FlashInfer's just-in-time kernels: a start stopped there is a cold compile (minutes, then it goes on) or a stale
# lock of its cache (for ever); the message does not tell which, so the answer asks (engine_errors.toml,
# flashinfer_jit_wait).
FLASHINFER = [
    (DATA / "sglang3578.md").read_text(),
    "# vllm serve frozen on first start\n\nFresh H100 pod, vLLM TP 4. The log's last line is\n\n```\n"
    "INFO 2025-06-25 20:11:01 flashinfer.jit: Loading JIT ops: batch_prefill_with_kv_cache_dtype_q_bf16\n```\n\n"
    "and it has been stuck there for 10 minutes.\n",
    "# startup stalls\n\nSGLang --tp 2 stalls while JIT compiling flashinfer kernels on 2x L40S.\n",
]


@pytest.mark.parametrize("text", FLASHINFER)
def test_a_start_stopped_at_flashinfers_jit_asks_what_tells_its_causes_apart(text):
    assert _asked(text) == "flashinfer_jit_wait"
    assert judged_issue(text)[0].category == "insufficient_data"


@pytest.mark.parametrize("text", [
    # the JIT line that finished, in a log of a server that runs
    "# TRT-LLM DeepSeek throughput\n\nTP 8 on 8x B200 serves 40 tok/s per user.\n\n```\n"
    "2025-10-11 10:24:21,540 - INFO - flashinfer.jit: Finished loading JIT ops: norm\n```\n",
    # FlashInfer named in a hang during decoding, not at its build
    "# sglang hangs with flashinfer mla\n\nSGLang TP 8 on 8x H20 with --enable-flashinfer-mla hangs after 200 "
    "requests in decode.\n",
])
def test_flashinfer_named_elsewhere_is_not_its_jit_wait(text):
    assert _asked(text) is None


# Real first posts still answered otherwise than their thread settled (SOURCES.md): kept, not bent to.
def test_sglang509_boot_time_is_the_weight_loading():
    """(finished34) The start-up time asked about is answered by by_design.toml's startup_time row."""
    text = (DATA / "sglang509.md").read_text()
    assert judged_issue(text)[0].category == "healthy"
    assert "ticket.documented_behaviour" in judged_issue(text)[1]


@pytest.mark.xfail(strict=True, reason="the server had started: the log line was its last before serving (the "
                   "thread's answer); nothing reads 'stuck on the last start-up line' as a start that finished")
def test_oobabooga4392_had_started():
    assert judged_issue((DATA / "oobabooga4392.md").read_text())[0].category == "healthy"


@pytest.mark.xfail(strict=True, reason="the extension build waited because its build directory did not exist (the "
                   "thread's fix: create it); answered healthy by ticket.nothing_broken, which reads no stop in "
                   "'it stops at compiling'")
def test_frtmvos9_missing_build_directory_is_a_setup_fault():
    assert judged_issue((DATA / "frtmvos9.md").read_text())[0].category == "other"


# A stop at a start-up step that compiles, builds or loads (claims "startup_step_hang") comes before any collective:
# ticket.hang_on_pcie keeps the peer path as a lead only (info, 0.25) and asks how long and where it waits.
STARTUP_STEP_STOPS = [
    "# vllm hangs at torch.compile\n\nvLLM TP 4 on 4x L40S hangs at 'Compiling a graph for dynamic shape' for 2 "
    "minutes on the first start.\n",
    "# deepspeed stuck\n\nDeepSpeed ZeRO-2 on 2x RTX 3090 is stuck at 'Building extension module fused_adam...' for "
    "10 minutes.\n",
    "# trtllm-build never ends\n\nBuilding the TensorRT engine for Llama 3 70B with tp_size 4 on 4x L40S: the "
    "trtllm-build step hangs for an hour.\n",
    "# sglang stuck loading\n\nSGLang --tp 2 on 2x A6000 gets stuck at Loading safetensors checkpoint shards: 40% "
    "for 15 minutes; the weights are on an NFS mount.\n",
]


@pytest.mark.parametrize("text", STARTUP_STEP_STOPS)
def test_a_stop_at_a_compile_build_or_load_step_is_no_peer_path_verdict(text):
    verdict, rules = judged_issue(text)
    assert rules["ticket.hang_on_pcie"].confidence <= 0.25
    assert verdict.category not in ("p2p_disabled", "virtualization_no_p2p")


@pytest.mark.parametrize("text", [
    # the step finished; what stopped is what follows it, the first all-reduce
    "# vLLM TP 2 hangs\n\nvLLM TP 2 on 2x RTX 4090 hangs right after loading the model weights; the GPUs sit at "
    "100 % utilisation.\n",
    # the capture runs the model's collectives: stuck there for hours stays the peer path's lead
    "# vLLM stuck at Capturing CUDA graph\n\nvLLM TP 2 on 2x RTX 4090 has been stuck at 'Capturing CUDA graph "
    "shapes' for 3 hours.\n",
    # a compile named but the stop denied; the hang is at the first all-reduce
    "# TP hang\n\ntorch.compile is not stuck, it finishes in 40 s; then vLLM TP 2 on 2x L40S hangs at the first "
    "all_reduce.\n",
])
def test_a_stop_after_the_step_or_at_the_capture_stays_the_peer_paths_lead(text):
    verdict, rules = judged_issue(text)
    assert rules["ticket.hang_on_pcie"].confidence >= 0.5
    assert verdict.category == "p2p_disabled"
