"""Capture rules on real exports: each finding's numbers trace back to the capture's own tables."""

import csv

from conftest import shared_path

from diagnose.capture.facts import analyse
from rules.engine import evaluate


def _findings(name, *rules):
    result = analyse([str(shared_path("captures", name))])
    return [f for f in evaluate(result.facts, {}) if f.rule in rules]


def test_synchronous_copies_match_the_api_summary():
    """bitonic sort copies 512 MiB each way with cudaMemcpy: the host blocks for the whole transfer."""
    api = {r["Name"]: r for r in csv.DictReader(open(
        shared_path("captures", "nsys-stats-2022.4", "bitonic_gtx1050_2024_5_cudaapisum.csv"), newline=""))}
    (f,) = _findings("bitonic_gtx1050_2024_5.sqlite", "capture.sync_copies")
    assert f.category == "host_bound" and f.severity == "warning"
    calls = next(e for e in f.evidence if "API calls" in e.detail)
    spent = next(e for e in f.evidence if e.detail == "time inside them")
    assert calls.measured == int(api["cudaMemcpy"]["Num Calls"])
    assert spent.measured == round(int(api["cudaMemcpy"]["Total Time (ns)"]) / 1e6, 3)
    assert calls.source.startswith("capture:bitonic_gtx1050_2024_5.sqlite")


def test_pageable_copies_cited_from_memcpy_table():
    findings = _findings("sc23_t4_openmp_offload_2023_3.sqlite", "capture.copies")
    assert {f.severity for f in findings} == {"warning"} and len(findings) == 2
    assert all("CUPTI_ACTIVITY_KIND_MEMCPY" in f.evidence[0].source for f in findings)
    assert sorted(f.evidence[0].measured for f in findings) == [100, 100]


def test_host_stall_after_synchronisation():
    """DLProf's PyTorch loop synchronises after its kernels; the GPU then waits for Python."""
    (f,) = _findings("dlprof_rtx2070_pytorch_nvtx_2022_1.sqlite", "capture.host_bound")
    assert f.category == "host_bound" and "after synchronisation" in f.title


def test_idle_gpu_with_nothing_queued():
    """nvFuser spends the capture compiling: the GPU idles with no work queued."""
    (f,) = _findings("fuser_h100x8node_matmul_2024_6.sqlite", "capture.host_bound")
    assert f.severity == "warning" and f.confidence < 0.5 and "no work queued" in f.title


def test_no_comm_rules_without_communication_kernels():
    assert _findings("rodinia_gaussian_rtx3090_2022_4.sqlite", "capture.comm_bound", "capture.straggler",
                     "capture.allreduce_fabric", "capture.pp_bubble") == []
