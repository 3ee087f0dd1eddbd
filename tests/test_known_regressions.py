"""(issue 11) Known NCCL regressions recognised by their symptom (rules/known_regressions.py, the rows of
rules/catalog/nccl_regressions.toml with `shows` and `at`): proposed only where the NCCL release in use lies inside
the row's range AND the ticket describes the row's symptom where it shows; a release in range with another symptom is
context (an info finding of category other, never the verdict). The texts below are paraphrases written from other
threads than the ones each row rests on, negations of them, and real logs from tests/data."""

from pathlib import Path

import pytest
from conftest import judged_issue

from rules.claims import version_key
from rules.nccl import _in_range, regressions

DATA = Path(__file__).parent / "data"
RULE = "nccl.known_regression"


def symptom_rows() -> list[dict]:
    return [r for r in regressions() if r.get("shows")]


def known(text: str):
    verdict, findings = judged_issue(text)
    return verdict, findings.get(RULE)


def test_every_symptom_row_is_complete_and_sourced():
    rows = symptom_rows()
    assert len(rows) >= 5
    for r in rows:
        assert set(r["shows"]) <= {"hang", "memory", "slow"} and r["at"], r["id"]
        # (quality33) `named`, where given, is words like `at`'s: a list of non-empty strings
        assert all(isinstance(w, str) and w for w in r.get("named", [])) and isinstance(r.get("named", []), list), \
            r["id"]
        assert not _in_range(r["fixed"], r["bad"]) and not _in_range(r["good"], r["bad"]), r["id"]
        assert version_key(r["fixed"]) > version_key(r["good"]), r["id"]
        assert r["url"] in r["sources"] and all(u.startswith("https://") for u in r["sources"]), r["id"]
        assert any(u.startswith("https://docs.nvidia.com/deeplearning/nccl/release-notes/") or
                   "github.com/NVIDIA/nccl/releases" in u for u in r["sources"]), r["id"]


# cuMem all-to-all connection hang, NCCL 2.19.x (rows from NVIDIA/nccl#1116 and #1134): paraphrases of other all-to-all
# and send/recv hang reports (NVIDIA/nccl#695, #783, #1835 worded with a 2.19 release), a log header and prose.
@pytest.mark.parametrize("text, outside", [
    ("# MoE training freezes in the expert all-to-all\n\nWe moved from NCCL 2.18.5 to NCCL 2.19.3 and now the "
     "expert all-to-all gets stuck on the first step across 12 nodes. With NCCL 2.18.5 it works fine.\n", "2.18.5"),
    ("# alltoall_perf never returns on 32 nodes\n\n```\n"
     "node01:4411:4411 [0] NCCL INFO Bootstrap : Using ib0:10.1.0.1<0>\n"
     "node01:4411:4411 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n```\n\nOn 32 nodes alltoall_perf hangs right "
     "after init; all_reduce_perf on the same nodes completes.\n", None),
    # an A/B in "after upgrading" / "downgrading fixes it" words
    ("# alltoall hang after NCCL upgrade\n\nSince upgrading to NCCL 2.19.3 our alltoall hangs at init on 24 nodes; "
     "downgrading to 2.18.6 fixes it.\n", "2.18.6"),
    ("# ncclSend/ncclRecv pipeline deadlocks\n\nOur pipeline stages exchange activations with ncclSend/ncclRecv. "
     "On NCCL 2.19.4 the send/recv deadlocks while connecting the peers on 16 nodes.\n", None),
])
def test_cumem_alltoall_hang_is_proposed(text, outside):
    verdict, f = known(text)
    assert f is not None and f.category == "nccl_regression" and "cumem-alltoall-connect-hang" in f.title
    assert "NCCL_CUMEM_ENABLE=0" in f.fix and "2.20.3" in f.fix
    assert f.confidence == (0.75 if outside else 0.65)
    assert verdict.category == "nccl_regression"
    assert [e.measured for e in f.evidence if "A/B" in e.detail] == ([outside] if outside else [])


@pytest.mark.parametrize("text", [
    # the same words ruled out: no hang, a slowdown
    "# alltoall is slow on NCCL 2.19.3\n\nalltoall_perf does not hang on NCCL 2.19.3, it only reaches 9 GB/s on 14 "
    "nodes.\n",
    # a release inside the range said to work, the older one failing
    "# alltoall hang\n\nWith NCCL 2.19.3 alltoall works fine. NCCL 2.18.1 hangs in alltoall on 8 nodes.\n",
    # the workaround already set (NVIDIA/nccl#1721 worded with 2.19.3)
    "# send/recv hang\n\nNCCL_VERSION 2.19.3. We export NCCL_CUMEM_ENABLE=0, run torchrun on 2 nodes and "
    "send/recv hangs forever when two ranks send to rank 4 twice.\n",
    # only asked about
    "# question\n\nDoes NCCL 2.19.3 hang in alltoall on large clusters? We plan to upgrade next month.\n",
])
def test_cumem_alltoall_hang_not_proposed(text):
    _, f = known(text)
    assert f is None or f.category != "nccl_regression"


@pytest.mark.parametrize("text", [
    # https://github.com/NVIDIA/nccl/issues/1721: a send/recv hang on NCCL 2.26.2, outside the 2.19 range
    "# send/recv hang when `NCCL_CUMEM_ENABLE=0`\n\n`NCCL_VERSION`: 2.26.2\n\nMulti-node via `torchrun` (>=2 nodes); "
    "we send from rank 0 & 2 to rank 4 TWICE. NCCL will hang forever.\n",
    # https://github.com/NVIDIA/nccl/issues/1835: alltoall_v stuck on 2.27.7
    "# alltoall_v hang when use NCCL_NCHANNELS_PER_NET_PEER=4\n\nthe alltoall_v gets stuck when "
    "NCCL_NCHANNELS_PER_NET_PEER=4, and this currently only occurs with 64 cards.\n\n### NCCL Version\n\n2.27.7\n",
])
def test_hangs_outside_the_hang_range_are_no_known_regression(text):
    _, f = known(text)  # (2.26.2 lies in the graph-capture row's range: context at most)
    assert f is None or (f.category == "other" and "cumem-alltoall" not in f.title)


# cuMem + CUDA graph memory, NCCL 2.19 to 2.21 (rows from NVIDIA/nccl#1234, vllm#5091/#24141): paraphrases of vLLM's
# and SGLang's capture-time OOM reports, and negations.
@pytest.mark.parametrize("text", [
    "# OOM while capturing CUDA graphs after upgrading torch\n\nvLLM with TP=2 on two L4. After upgrading torch to 2.2 "
    "(it ships NCCL 2.19.3) the engine runs out of memory while capturing CUDA graphs. NCCL 2.18.1 was fine.\n",
    "# cudagraph memory grows with NCCL 2.21.5\n\nOn 4x A10G with NCCL 2.21.5, GPU memory grows by several GiB during "
    "cudagraph capture, about 3 GiB more per GPU than before.\n",
])
def test_cudagraph_memory_is_proposed(text):
    verdict, f = known(text)
    assert f is not None and f.category == "nccl_regression" and "cumem-cudagraph-memory" in f.title
    assert "NCCL_CUMEM_ENABLE=0" in f.fix
    assert verdict.category == "nccl_regression"


@pytest.mark.parametrize("text, context", [
    # memory, but not at graph capture: loading weights (context: the release is in range)
    ("# OOM\n\nWith NCCL 2.21.5 the server runs out of memory while loading the model weights on 2x L4.\n", True),
    # https://github.com/pytorch/pytorch/issues/157461 worded: NCCL 2.27.3, outside the range (inside 2.26.2's
    # graph-capture overhead row: context)
    ("# vLLM tests failing in torch 2.8rc\n\nWith NCCL 2.27.3 the lora test still OOMs; the OOM is not related to cuda "
     "graph capture.\n", True),
    # graph capture said to work on a release in range: that release is not the failing one
    ("# capture\n\nOn NCCL 2.20.5 capturing CUDA graphs works; decode is 20 % slower than expected.\n", False),
])
def test_cudagraph_memory_not_proposed(text, context):
    _, f = known(text)
    assert f is None or f.category != "nccl_regression"
    assert (f is not None) == context
    if f is not None:
        assert f.severity == "info" and f.category == "other"


def test_cudagraph_oom_from_an_engine_log_and_a_stated_environment():
    text = ("# vLLM OOM during cuda graph capture with TP 4\n\n```\n"
            "INFO 05-20 10:01:02 model_runner.py:1015] Capturing the model for CUDA graphs.\n"
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.\n```\n\n"
            "Environment: torch 2.2.1, NCCL 2.19.3, 4x A10G.\n")
    verdict, f = known(text)
    assert f.category == "nccl_regression" and "cumem-cudagraph-memory" in f.title
    _, f = known(text.replace("NCCL 2.19.3", "NCCL 2.18.1"))  # before cuMem became the default
    assert f is None or (f.category == "other" and "cumem" not in f.title)  # (2.18.1: other rows' range, context)


def test_nvls_out_of_memory_in_nccls_own_log_is_memory_not_the_fabric():
    # NCCL's WARN format (transport/nvls.cc, "Cuda failure 'out of memory'") with a 2.19.3 header
    text = ("# NVLS OOM at init\n\n```\nh100-01:1234:1290 [3] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
            "h100-01:1234:1290 [3] transport/nvls.cc:158 NCCL WARN Cuda failure 'out of memory'\n"
            "h100-01:1234:1290 [3] NCCL INFO init.cc:1100 -> 1\n```\nRunning Llama 70B with TP 8 on a DGX H100.\n")
    verdict, findings = judged_issue(text)
    f = findings[RULE]
    assert f.category == "nccl_regression" and "nvls-init-memory" in f.title and f.confidence == 0.7
    assert "ticket.fabric_setup" not in findings and verdict.category == "nccl_regression"
    # the same line failing otherwise is still the fabric's (fabric manager not ready)
    failing = text.replace("Cuda failure 'out of memory'", "Cuda failure 'system not yet initialized'")
    _, findings = judged_issue(failing)
    assert "ticket.fabric_setup" in findings


# NVLS buffers at init (JAX-Toolbox#383, NeMo launcher #127, SGLang #631): only on NVLS-capable boards.
def test_nvls_init_memory_on_hgx_h100_not_on_a100():
    text = ("# OOM at init\n\n8x H100 SXM (HGX), NCCL 2.18.5. The job runs out of memory during communicator init "
            "before the first step; free memory drops by several GB per GPU at ncclCommInitRank.\n")
    verdict, f = known(text)
    assert f is not None and "nvls-init-memory" in f.title and "NCCL_NVLS_ENABLE=0" in f.fix
    _, f = known(text.replace("H100 SXM (HGX)", "A100 PCIe"))
    assert f is None or "nvls" not in f.title


# NCCL_CROSS_NIC=1 with alternating rings, 2.20 to 2.25 (2.26.2's release notes): needs the setting.
def test_cross_nic_rings_need_the_setting():
    text = ("# busbw drop after NCCL upgrade\n\nTwo nodes of 8x H100, NCCL 2.21.5, NCCL_CROSS_NIC=1 in our env. The "
            "inter-node all_reduce busbw dropped from 180 to 120 GB/s compared with NCCL 2.19.4.\n")
    _, f = known(text)
    assert f is not None and "cross-nic-alternating-rings" in f.title
    _, f = known(text.replace("NCCL_CROSS_NIC=1 in our env", "default settings"))
    assert f is None or "cross-nic" not in f.title


# Real logs whose NCCL release lies in a range, with another symptom: context only, never the verdict.
@pytest.mark.parametrize("path", [
    "ut14/vllm6370_quoted_nccl_log.md",  # https://github.com/vllm-project/vllm/issues/6370 (TP 2 hang, NCCL 2.20.5)
    "ut15e/nccl2076.md",  # https://github.com/NVIDIA/nccl/issues/2076 (network error, NCCL 2.21.5)
    "ut15e/verl161.md",  # https://github.com/verl-project/verl/issues/161 (duplicate GPU, NCCL 2.20.5)
    "issues/tinygrad-ogkm-45-4090-nccl2265-hang.md",  # tinygrad/open-gpu-kernel-modules#45 (all_reduce hang, 2.26.5)
])
def test_real_logs_in_range_with_other_symptoms_are_context(path):
    verdict, f = known((DATA / path).read_text())
    assert f is not None and f.severity == "info" and f.category == "other"
    assert verdict.category != "nccl_regression"
