"""Capture rules on real exports: each finding's numbers trace back to the capture's own tables."""

import csv

from conftest import shared_path

from diagnose.capture.facts import analyse
from rules.engine import evaluate


def _findings(name, *rules):
    result = analyse([str(shared_path("captures", name))])
    return [f for f in evaluate(result.facts, {}) if f.rule in rules]


def test_synchronous_copies_match_the_api_summary():
    """bitonic sort copies 512 MiB each way with cudaMemcpy, and the blocking calls take the whole span
    because each also waits for the sort kernels queued before it: the GPU is busy all along, so the host
    waits on the GPU, not the other way round. A note (info, `other`), never host_bound."""
    api = {r["Name"]: r for r in csv.DictReader(open(
        shared_path("captures", "nsys-stats-2022.4", "bitonic_gtx1050_2024_5_cudaapisum.csv"), newline=""))}
    (f,) = _findings("bitonic_gtx1050_2024_5.sqlite", "capture.sync_copies")
    assert f.category == "other" and f.severity == "info" and "the host waits on the GPU" in f.title
    idle = next(e for e in f.evidence if e.detail.startswith("GPU idle"))
    assert idle.measured < 5  # the GPU idled under the 5 % a blocked host would have to cost it
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


def test_a_slow_copy_in_a_sliver_of_the_span_is_a_note_not_the_verdict():
    """Liger's H200 cross-entropy benchmark: one pageable HtoD copy of 1 MiB or more runs at 29 % of the
    PCIe Gen5 link, but in 0.7 % of the GPU's span, under capture.copies' own 5 %: an info note that
    cannot lead the verdict (it led it as a host_bound warning)."""
    result = analyse([str(shared_path("captures", "fuser_h200_crossentropy_2025_1.sqlite"))])
    findings = evaluate(result.facts, {})
    (f,) = [f for f in findings if f.rule == "capture.copy_bandwidth"]
    assert (f.severity, f.category) == ("info", "other")
    share = next(e for e in f.evidence if e.detail.startswith("their time, share of the GPU's active span"))
    assert share.measured < 5 and "0.7% of the span" in f.title
    from rules.engine import verdict

    assert verdict(findings).category == "host_bound"  # from the GPU idle 98 % with nothing queued, not the copy
    assert next(x for x in sorted(findings, key=lambda x: x.sort_key())).rule == "capture.host_bound"


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
