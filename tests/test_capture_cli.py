"""`diagnose capture` end to end (click CliRunner) on real captures and bad input."""

import json
import shutil
import sqlite3

import pytest
from conftest import REPO, SHARED, diagnose, shared_path

CAPTURES = sorted(p.name for p in (SHARED / "captures").glob("*.sqlite")) or ["(shared captures absent)"]


def run(*args):
    return diagnose("capture", *args)


@pytest.mark.parametrize("name", CAPTURES)
def test_every_capture_gives_a_report(name):
    result = run(shared_path("captures", name), "--json", "--fail-on", "never")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["schema"] == "diagnose.report/1" and report["kind"] == "capture"
    assert report["verdict"]["category"]
    (info,) = report["facts"]["capture_info"]
    assert info["file"] == name
    if info["kernel_rows"]:
        assert report["facts"]["gpu_timeline"] and report["facts"]["summaries"][name]["kernels"]
        assert "Per-GPU breakdown" in report["tables"]


def test_missing_tables_are_reported_not_fatal():
    """A 2021 export with 6 tables: the report says what is missing and what to capture."""
    result = run(shared_path("captures", "cardiac_rtx3060_2021_notables.sqlite"), "--json")
    assert result.exit_code == 0
    report = json.loads(result.output)
    assert report["verdict"]["category"] == "insufficient_data"
    assert "--trace=cuda" in report["verdict"]["summary"]
    assert any("CUPTI_ACTIVITY_KIND_KERNEL" in m for m in report["facts"]["missing"])
    (finding,) = [f for f in report["findings"] if f["rule"] == "capture.trace_present"]
    assert finding["evidence"][0]["source"] == "capture:cardiac_rtx3060_2021_notables.sqlite"


def test_json_summaries_match_the_stats_tables():
    """Default: counts and totals; --stats adds median and deviation (extra sorted reads)."""
    name = "gameoflife_a100_2022_1.sqlite"
    quick = json.loads(run(shared_path("captures", name), "--json").output)["facts"]["summaries"][name]
    full = json.loads(run(shared_path("captures", name), "--json", "--stats").output)["facts"]["summaries"][name]
    (kernel,) = full["kernels"]
    assert (kernel["name"], kernel["count"], kernel["total"], kernel["med"]) == (
        "compute_kernel(int *, int *, int)", 100, 460636, 4576.0)
    assert kernel["stddev"] == pytest.approx(74.2, abs=0.05)
    assert [(k["name"], k["count"], k["total"], k["min"], k["max"], k["med"]) for k in quick["kernels"]] == [
        (kernel["name"], 100, 460636, kernel["min"], kernel["max"], None)]
    for summaries in (quick, full):
        api = {r["name"]: r for r in summaries["cuda_api"]}
        assert (api["cudaDeviceSynchronize"]["count"], api["cudaDeviceSynchronize"]["total"]) == (100, 966563)


def test_stats_flag_prints_nsys_tables():
    result = run(shared_path("captures", "recon_a100x4_cupy_2023_1.sqlite"), "--stats", "--format", "md")
    assert result.exit_code == 0
    for title in ("cuda_gpu_kern_sum", "cuda_api_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum", "nvtx_sum"):
        assert title in result.output
    assert "cupy_scan_naive" in result.output and "cuLibraryLoadData" in result.output


def test_findings_cite_the_capture():
    result = run(shared_path("captures", "sc23_t4_openmp_offload_2023_3.sqlite"), "--json")
    report = json.loads(result.output)
    copies = [f for f in report["findings"] if f["rule"] == "capture.copies"]
    assert copies and all(e["source"].startswith("capture:sc23_t4_openmp_offload_2023_3.sqlite")
                          for f in copies for e in f["evidence"])
    assert any("CUPTI_ACTIVITY_KIND_MEMCPY" in e["source"] for f in copies for e in f["evidence"])


def _one_line_exit_2(result):
    assert result.exit_code == 2, result.output
    lines = [l for l in result.output.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("diagnose:"), result.output
    assert "Traceback" not in result.output


def test_bad_inputs_exit_2_with_one_line(tmp_path):
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    text = tmp_path / "notes.txt"
    text.write_text("not a capture\n")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    for path in (tmp_path / "missing.sqlite", empty, text, other, tmp_path):
        _one_line_exit_2(run(path))


def test_unknown_step_name_exits_2():
    result = run(shared_path("captures", "dlprof_rtx2070_pytorch_nvtx_2022_1.sqlite"), "--step", "no_such_range")
    _one_line_exit_2(result)
    assert "no NVTX range named 'no_such_range'" in result.output


def test_read_only_directory_copy_and_second_file(tmp_path):
    """Two ranks of one run (the straggler sample's per-rank files) at once from a read-only folder.
    (Two unrelated exports are refused: tests/test_capture_samples.py.)"""
    folder = tmp_path / "ro"
    folder.mkdir()
    names = ("straggler_rank0.sqlite", "straggler_rank1.sqlite")
    for name in names:
        shutil.copy(REPO / "samples" / "captures" / name, folder / name)
        (folder / name).chmod(0o444)
    folder.chmod(0o555)
    try:
        result = run(*(folder / name for name in names), "--json")
    finally:
        folder.chmod(0o755)
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.output)
    assert [i["file"] for i in report["facts"]["capture_info"]] == list(names)
    assert sorted(p.name for p in folder.iterdir()) == list(names)


def test_help_does_not_import_heavy_modules():
    import subprocess
    import sys

    code = ("import sys; from diagnose.cli import cli; from click.testing import CliRunner; "
            "CliRunner().invoke(cli, ['capture', '--help']); "
            "print(any(m in sys.modules for m in ('pandas', 'torch', 'diagnose.capture.facts')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
