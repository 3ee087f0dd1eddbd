"""Issue 11: an NCCL release older than the first built for the GPU's architecture (rules/catalog/nccl_support.toml,
from NCCL's release notes), or older than NCCL 2, explains a failing collective; NCCL's own "ncclMaxSharedMem ...
exceeds device/fn maxSharedMem" line says it directly. The old nccl-tests formats ("NCCL failure all_reduce.cu:95",
"# NCCL Tests compiled with NCCL 1.0", "Rank 0 on host device 0") are read."""


import pytest
from conftest import REPO
from test_ticket_public_issues import ticket

from diagnose.artifacts import nccl_log, nccl_tests
from rules.nccl import arch_floor

TICKETS = REPO / "tests" / "data" / "tickets"
ISSUES = REPO / "tests" / "data" / "issues"


def floor(report: dict) -> dict | None:
    found = [f for f in report["findings"] if f["rule"] == "nccl.version_floor"]
    return found[0] if found else None


def test_arch_rows_follow_cuda_minor_compatibility():
    assert arch_floor(8.9)["min_nccl"] == "2.7.3"  # Ada runs Ampere's sm_80 code
    assert arch_floor(9.0)["min_nccl"] == "2.15.1"
    assert arch_floor(12.0)["min_nccl"] == "2.26.2"
    assert arch_floor(7.0) is None and arch_floor(0.0) is None


def test_the_shared_memory_line_is_read_with_both_sizes():
    line = "GENOA:4766:4780 [0] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856"
    (event,) = [r for r in nccl_log.parse(line, "log") if r.kind == "shared_mem_exceeds"]
    assert event.data == {"needed_bytes": 82240, "device_bytes": 79856}


def test_old_nccl_tests_lines_are_read():
    text = ("# NCCL Tests compiled with NCCL 1.0\n# Using devices\n"
            "#   Rank  0 on     node03 device  0 [0x04] Tesla P100-PCIE-16GB\n"
            "#   Rank  1 on     node03 device  1 [0x06] Tesla P100-PCIE-16GB\n")
    records = nccl_tests.parse(text, "t")
    assert [r.version for r in records if type(r).__name__ == "NcclVersion"] == ["1.0"]
    assert [r.name for r in records if type(r).__name__ == "GpuFact"] == ["Tesla P100-PCIE-16GB"] * 2
    assert nccl_log.detect("NCCL failure all_reduce.cu:95 'unhandled cuda error'") >= 0.8


def test_u9a08_nccl_2251_on_rtx_5090_with_nccls_own_line(tmp_path):
    case = TICKETS / "u9a08-nccl-tests-2x5090-nccl-2251-all-reduce-errors"
    report = ticket(tmp_path, (case / "issue.md").read_text())
    f = floor(report)
    assert report["verdict"]["category"] == "nccl_regression" and f["confidence"] == 0.75
    assert f["evidence"][0]["measured"] == 82240 and f["evidence"][0]["expected"] == 79856
    assert any(e["measured"] == "2.25.1" and e["expected"] == ">= 2.26.2" for e in f["evidence"])


def test_u9a12_nccl_1_on_p100(tmp_path):
    case = TICKETS / "u9a12-nccl-tests-8xp100-nccl1-unhandled-cuda-error"
    report = ticket(tmp_path, (case / "issue.md").read_text())
    assert report["verdict"]["category"] == "nccl_regression" and floor(report)["confidence"] == 0.6


@pytest.mark.parametrize("text", [
    "# all_reduce_perf crashes on H100\n\nWe run NCCL 2.14.3 on 8x H100 SXM and all_reduce_perf fails with an "
    "unhandled cuda error.\n",
    "# NCCL error on RTX 5090\n\nTwo RTX 5090 cards, NCCL version 2.21.5, and every all_reduce fails at init.\n",
    "# Old cluster\n\nNCCL: 1.3\nWhen I run all_reduce_perf on 4 GPUs it hangs.\n",
])
def test_paraphrases_of_a_release_too_old(tmp_path, text):
    report = ticket(tmp_path, text)
    assert floor(report) is not None and report["verdict"]["category"] == "nccl_regression"
    assert report["verdict"]["confidence"] < 0.7  # a version and a symptom: no direct line from NCCL


@pytest.mark.parametrize("text", [
    # new enough for the GPU
    "# all_reduce_perf fails on H100\n\nNCCL 2.18.3 on 8x H100 SXM: all_reduce_perf fails with an unhandled cuda "
    "error.\n",
    # an old release on a GPU it supports
    "# NCCL error on A100\n\nNCCL 2.10.3 on 8x A100 SXM, all_reduce_perf fails with a system error.\n",
    # no failure: a slow run is another rule's question
    "# busbw question\n\nNCCL 2.14.3 on 8x H100 SXM gives 300 GB/s busbw in all_reduce_perf, is that normal?\n",
    # two releases compared: nccl.regression's question
    "# NCCL 2.14 vs 2.18 on H100\n\nWith NCCL 2.14.3 all_reduce_perf fails, with NCCL 2.18.3 it works.\n",
])
def test_negations_keep_the_floor_silent(tmp_path, text):
    assert floor(ticket(tmp_path, text)) is None


@pytest.mark.parametrize("name", ["nccl-tests-291-5090-nccl2251-alltoall.md",
                                  "nccl-tests-289-5090-nccl2251-hypercube.md"])
def test_public_5090_threads_on_nccl_2251(tmp_path, name):
    """https://github.com/NVIDIA/nccl-tests/issues/291 and /289: RTX 5090, NCCL 2.25.1, collectives fail; NVIDIA
    marked both fixed by NCCL 2.26 (the 2.26.2 notes list them)."""
    report = ticket(tmp_path, (ISSUES / name).read_text())
    assert report["verdict"]["category"] == "nccl_regression"
    assert floor(report)["confidence"] == 0.6
    assert not [f for f in report["findings"] if f["rule"] == "nccl.busbw"]  # "issues/287" in a URL is no busbw


def test_public_4090_on_nccl_2265_is_no_version_problem(tmp_path):
    """https://github.com/tinygrad/open-gpu-kernel-modules/issues/45: RTX 4090 (sm_89) on NCCL 2.26.5 hangs: the
    release supports the GPU, so whatever hangs, it is not the floor."""
    assert floor(ticket(tmp_path, (ISSUES / "tinygrad-ogkm-45-4090-nccl2265-hang.md").read_text())) is None


def test_public_rccl_7066_other_vendor_wording_of_the_shared_memory_line(tmp_path):
    """https://github.com/ROCm/rocm-systems/pull/7066: RCCL on MI300X prints the same check as a WARN with its arch
    first ("cudaArch 940 ncclMaxSharedMem 32832 exceeds device/fn maxSharedMem 32768"); the library's kernels did not
    fit the device, fixed in the library."""
    report = ticket(tmp_path, (ISSUES / "rccl-7066-mi300x-lds-overflow.md").read_text())
    f = floor(report)
    assert f["evidence"][0]["measured"] == 32832 and f["evidence"][0]["expected"] == 32768
    assert report["verdict"]["category"] == "nccl_regression"


@pytest.mark.parametrize("text", [
    "# NCCL error on H100\n\n8x H100 SXM. all_reduce_perf fails with 'unhandled cuda error'. The old NCCL 2.14.3 was "
    "ruled out already (the image ships a newer one).\n",
    "# NCCL error on H100\n\n8x H100 SXM, all_reduce_perf fails with an unhandled cuda error. We no longer use NCCL "
    "2.14.3.\n",
    "# NCCL error on H100\n\nall_reduce_perf on 8x H100 SXM fails with an unhandled cuda error; NCCL 2.14.3 is not the "
    "cause.\n",
])
def test_a_release_the_reporter_rules_out_is_not_in_use(tmp_path, text):
    """cr10 #3: a release named only to rule it out decides nothing."""
    assert floor(ticket(tmp_path, text)) is None


def test_of_two_releases_the_one_ruled_out_leaves_the_other_in_use(tmp_path):
    text = ("# NCCL error on H100\n\n8x H100 SXM, all_reduce_perf fails with an unhandled cuda error. It is not NCCL "
            "2.18.3 as the docs say: the container really ships NCCL 2.14.3.\n")
    f = floor(ticket(tmp_path, text))
    assert f is not None and any(e["measured"] == "2.14.3" for e in f["evidence"])


def test_below_an_architecture_floor_the_old_ptx_may_run_so_it_is_a_lead(tmp_path):
    """NCCL's default build embeds PTX for the newest architecture it knew (makefiles/common.mk of v2.14.3-1:
    compute_80), which the driver JIT-compiles on sm_90: 2.14.3 on H100 may run, untuned. Without NCCL's own
    shared-memory line the floor is a lead (below 0.5); where the notes record earlier builds failing (sm_120,
    fails_before) or the release predates NCCL 2 it stays at 0.6 (test_u9a12..., test_public_5090_threads...)."""
    report = ticket(tmp_path, "# all_reduce_perf crashes on H100\n\nWe run NCCL 2.14.3 on 8x H100 SXM and "
                    "all_reduce_perf fails with an unhandled cuda error.\n")
    f = floor(report)
    assert f["confidence"] == 0.45 and "JIT" in f["summary"]
    assert report["verdict"]["confidence"] < 0.7  # never confident (its class's level, verdict_confidence.toml)
