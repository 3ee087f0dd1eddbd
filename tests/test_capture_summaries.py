"""Our nsys-stats summaries against `nsys stats` 2022.4 output on every real capture."""

import csv

import pytest
from conftest import SHARED, shared_path

from diagnose.capture import summaries as S
from diagnose.capture.reader import open_capture

REPORTS = {  # csv suffix -> (summary key, count column, name column)
    "gpukernsum": ("kernels", "Instances", "Name"),
    "cudaapisum": ("cuda_api", "Num Calls", "Name"),
    "gpumemtimesum": ("memops_time", "Count", "Operation"),
    "nvtxsum": ("nvtx", "Instances", "Range"),
}
CAPTURES = sorted(p.stem for p in (SHARED / "captures").glob("*.sqlite")) or ["(shared captures absent)"]


def _key(key, name, extra):
    if key == "kernels":
        return (name, extra.get("grid"), extra.get("block"))
    if key == "nvtx":
        return (name, extra.get("style"))
    return (name,)


def _expected(stem, suffix):
    path = shared_path("captures", "nsys-stats-2022.4", f"{stem}_{suffix}.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("stem", CAPTURES)
@pytest.mark.parametrize("suffix", sorted(REPORTS))
def test_summary_matches_nsys_stats(stem, suffix):
    key, count_col, name_col = REPORTS[suffix]
    expected = _expected(stem, suffix)
    with open_capture(shared_path("captures", f"{stem}.sqlite")) as cap:
        rows = S.SUMMARIES[key][1](cap)
    got = {_key(key, r.name, r.extra): r for r in rows}
    want = {}
    for e in expected:
        extra = {"grid": e.get("GridXYZ"), "block": e.get("BlockXYZ"), "style": e.get("Style")}
        want[_key(key, e[name_col], extra)] = e
    assert set(got) == set(want), f"names differ: only ours {set(got) - set(want)}, only nsys {set(want) - set(got)}"
    for k, e in want.items():
        r = got[k]
        assert r.count == int(e[count_col]), k
        assert r.total == int(e["Total Time (ns)"]), k
        assert r.min == int(e["Min (ns)"]) and r.max == int(e["Max (ns)"]), k
        assert S.round1(r.avg) == pytest.approx(float(e["Avg (ns)"]), abs=1e-6), k
        assert S.round1(r.med) == pytest.approx(float(e["Med (ns)"]), abs=1e-6), k
        assert S.round1(r.time_pct) == pytest.approx(float(e["Time (%)"]), abs=1e-6), k
        # nsys computes the deviation in one pass, we in two: the last printed digit may differ
        assert r.stddev == pytest.approx(float(e["StdDev (ns)"]), abs=0.11, rel=1e-9), k


def test_every_capture_has_reference_csvs():
    captures = shared_path("captures")
    for path in captures.glob("*.sqlite"):
        for suffix in REPORTS:
            assert (captures / "nsys-stats-2022.4" / f"{path.stem}_{suffix}.csv").exists()


def test_memop_size_summary_counts_bytes():
    """By-size summary: totals are bytes, counts agree with the by-time summary."""
    with open_capture(shared_path("captures", "sc23_t4_openmp_offload_2023_3.sqlite")) as cap:
        by_size = {r.name: r for r in S.memop_size_summary(cap)}
        by_time = {r.name: r for r in S.memop_time_summary(cap)}
        total = cap.query("SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1").fetchone()[0]
    assert set(by_size) == set(by_time) == {"[CUDA memcpy HtoD]", "[CUDA memcpy DtoH]"}
    assert by_size["[CUDA memcpy HtoD]"].total == total == 51_200_000_000
    assert by_size["[CUDA memcpy HtoD]"].count == by_time["[CUDA memcpy HtoD]"].count == 100


def test_api_display_name_follows_nsys_2022_4():
    assert S.api_display_name("cudaLaunchKernel_v7000") == "cudaLaunchKernel"
    assert S.api_display_name("cudaStreamIsCapturing_v10000") == "cudaStreamIsCapturing_v10000"
    assert S.api_base_name("cudaGetDeviceProperties_v2_v12000") == "cudaGetDeviceProperties"
