"""Issue 13: the conclusions drawn from real exports, each figure checked against a plain SQL query."""

import sqlite3

import pytest
from conftest import REPO, report_json, shared_path

from diagnose.capture import classify as C
from diagnose.capture.facts import analyse
from diagnose.capture_report import build
from diagnose.evidence import GpuTimeline
from rules.engine import evaluate
from samples import generate_capture as gen


def _sql(name, query):
    db = sqlite3.connect(f"file:{shared_path('captures', name)}?immutable=1", uri=True)
    try:
        return db.execute(query).fetchall()
    finally:
        db.close()


def _findings(path, *rules, predictions=None):
    result = analyse([str(path)])
    return [f for f in evaluate(result.facts, predictions or {}) if f.rule in rules]


def _evidence(finding, detail_part):
    return next(e for e in finding.evidence if detail_part in e.detail)


def _capture(path, rows, table="CUPTI_ACTIVITY_KIND_MEMCPY"):
    """An export with the real nsys 2025.1 DDL (samples/schema) and the given MEMCPY rows."""
    db = sqlite3.connect(path)
    db.executescript((REPO / "samples" / "schema" / "nsys-2025.1.1.sql").read_text())
    cols = "start, end, deviceId, contextId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind"
    db.executemany(f"INSERT INTO {table} ({cols}) VALUES ({','.join('?' * 11)})", rows)
    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1, 'x', 'y')")
    db.commit()
    db.close()
    return path


GPID = (1 << 48) + (4242 << 24)


def test_pageable_rule_counts_only_the_pageable_copies(tmp_path):
    """223 pinned weight copies and 2 tiny pageable ones in the same direction: the pageable
    finding reports the 2 copies' own time, not the pinned copies' (and so stays informational)."""
    rows = [(i * 5_000_000, i * 5_000_000 + 4_000_000, 0, 1, 7, i + 1, GPID, 64 << 20, 1, 1, 2) for i in range(223)]
    rows += [(2_000_000_000 + i * 10_000, 2_000_000_000 + i * 10_000 + 800, 0, 1, 7, 900 + i, GPID, 8, 1, 0, 2)
             for i in range(2)]
    (f,) = _findings(_capture(tmp_path / "weights.sqlite", rows), "capture.copies")
    assert f.title == "2 HtoD copies use pageable host memory (0.002 ms)"
    assert _evidence(f, "time of those pageable").measured == round(1600 / 1e6, 3)
    assert f.severity == "info" and f.category == "other"


def test_pageable_time_matches_sql_on_a_real_export():
    (f,) = [f for f in _findings(shared_path("captures", "bitonic_gtx1050_2024_5.sqlite"), "capture.copies")
            if "DtoH" in f.title]
    ((ns,),) = _sql("bitonic_gtx1050_2024_5.sqlite", 'SELECT sum("end" - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY '
                                                     "WHERE copyKind = 2 AND (srcKind = 0 OR dstKind = 0)")
    assert _evidence(f, "time of those pageable").measured == round(ns / 1e6, 3)


def test_one_class_per_kernel_in_every_table():
    """Kernel classes and Top kernels class a kernel from the same (demangled) name: the per-class
    totals of the summary rows, classed as Top kernels classes them, equal the Kernel classes table."""
    report = build([str(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite"))])
    rows = report.facts["summaries"]["nsysai_h100x2_fastvideo_train_before.sqlite"]["kernels"]
    per_class = {}
    for r in rows:
        per_class[C.classify(r["name"])] = per_class.get(C.classify(r["name"]), 0) + r["total"]
    table = {row[0]: row[1] for row in report.tables["Kernel classes"]["rows"]}
    assert table == {c: round(ns / 1e6, 3) for c, ns in per_class.items()}
    top = report.tables["Top kernels (nsysai_h100x2_fastvideo_train_before.sqlite)"]["rows"]
    assert all(row[1] in table for row in top)


@pytest.mark.parametrize("name", ["memfusion_rtx3090x4_trt_2023_1.sqlite",
                                  "nsysai_h100x2_fastvideo_train_before.sqlite"])
def test_distinct_top_kernels_read_distinct_at_120_columns(name):
    """ut10b #8 (s9 #12): TensorRT's sm80_xmma_fprop kernels (tile sizes past the cut) and PyTorch's
    elementwise_kernel templates (lambdas past the cut) printed 7 and 3 identical rows. Each name of the
    summary is one row; its label in the table and its cell on a 120-column terminal are distinct, on
    one line that fits."""
    from conftest import diagnose

    path = shared_path("captures", name)
    report = build([str(path)])
    labels = [row[0] for row in report.tables[f"Top kernels ({name})"]["rows"]]
    assert len(labels) >= 14 and len(set(labels)) == len(labels) and all(len(x) <= 48 for x in labels), labels
    out = diagnose("capture", path, "--fail-on", "never", env={"COLUMNS": "120"}).stdout
    after = out.split(f"Top kernels ({name})", 1)[1].splitlines()
    rule = next(i for i, line in enumerate(after) if line.strip().startswith("─"))
    lines = after[rule + 1:after.index("", rule)]
    assert len({line.split("   ")[0] for line in lines}) == len(lines) == len(labels), "\n".join(lines)
    assert max(len(line) for line in out.splitlines() if "URL" not in line and "http" not in line) <= 120


def test_distinct_cuts_leave_short_or_already_distinct_names_alone():
    from diagnose.formatting import distinct_cuts

    names = ["ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "a" * 60 + "x", "b" * 60 + "x"]
    assert distinct_cuts(names, 48) == [names[0], "a" * 47 + "…", "b" * 47 + "…"]
    same_start = ["k_" + "p" * 60 + "_tile128", "k_" + "p" * 60 + "_tile256"]
    cut = distinct_cuts(same_start, 48)
    assert len(set(cut)) == 2 and all(len(c) <= 48 for c in cut) and cut[0].endswith("tile128")


def test_host_bound_evidence_shows_the_number_it_fired_on():
    (f,) = _findings(shared_path("captures", "fuser_h100x8node_matmul_2024_6.sqlite"), "capture.host_bound")
    fired = _evidence(f, "nothing queued")
    assert f.title == f"GPU idle {fired.measured}% of the time with no work queued"
    assert fired.expected == "< 50" and fired.measured >= 50


def test_sequence_parallel_send_recv_is_not_a_pipeline():
    """FastVideo's 2-GPU training exchanges send/recv for sequence parallelism; its ranks idle
    together, so pp_bubble stays silent."""
    assert _findings(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite"), "capture.pp_bubble") == []


def test_pipeline_found_from_turn_taking_without_a_launch_line(tmp_path):
    """The PP=2 sample in the old export layout (no recorded launch line): the stages take turns,
    and every figure names the same number of stages."""
    old = next(v for v in gen.VERSIONS if v != gen.scenario("pp2_bubble").cfg.get("schema"))
    (path,) = gen.generate("pp2_bubble", tmp_path / "pp2.sqlite", schema=old)
    (f,) = _findings(path, "capture.pp_bubble")
    assert f.severity == "warning"
    stages = _evidence(f, "pipeline stages")
    assert stages.measured == 2 and "p=2 stages" in _evidence(f, "bubble").detail
    assert "p=1" not in " ".join(e.detail for e in f.evidence)


def test_small_grids_measured_as_sql_says():
    """Game of Life runs 5x5-block grids on a 108-SM A100."""
    (f,) = _findings(shared_path("captures", "gameoflife_a100_2022_1.sqlite"), "capture.small_grids")
    ((empty, total),) = _sql("gameoflife_a100_2022_1.sqlite", """
        SELECT sum(CASE WHEN gridX * gridY * gridZ < 108 THEN ("end" - start) * (1 - gridX * gridY * gridZ / 108.0)
                   ELSE 0 END), sum("end" - start) FROM CUPTI_ACTIVITY_KIND_KERNEL""")
    assert _evidence(f, "SM time those grids leave empty").measured == round(100 * empty / total, 1)
    assert _evidence(f, "SMs per GPU").measured == 108 and f.severity == "warning"


def test_small_grids_stay_quiet_when_kernels_barely_run():
    """The RTX 3080 mock runs kernels ~0% of its span: its single-block reductions cannot cost time,
    so the rule passes (its own row says below 10 % grid shapes cannot matter) instead of reporting."""
    (f,) = _findings(shared_path("captures", "nsysai_rtx3080_torch_mock.sqlite"), "capture.small_grids")
    assert _evidence(f, "SM time those grids leave empty").measured > 25  # the grids are small...
    assert _evidence(f, "kernel time, share of the GPUs' summed span").measured < 10  # ...but the GPU idles
    assert f.severity == "ok" and "cannot cost time" in f.title


def test_big_grids_pass():
    (f,) = _findings(shared_path("captures", "sc23_t4_openmp_offload_2023_3.sqlite"), "capture.small_grids")
    assert f.severity == "ok"


@pytest.mark.parametrize("name", ["dlprof_rtx2070_pytorch_nvtx_2022_1.sqlite",
                                  "rodinia_gaussian_rtx3090_2022_4.sqlite"])
def test_kernels_shorter_than_launch_counted_as_sql_says(name):
    (f,) = _findings(shared_path("captures", name), "capture.short_kernels")
    counted = _evidence(f, "kernels shorter than")
    edge_us = float(counted.detail.split("shorter than ")[1].split(" us")[0])
    ((n,),) = _sql(name, f'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE "end" - start < {edge_us * 1000}')
    assert counted.measured == n


def test_eager_sample_has_kernels_shorter_than_their_launch():
    (f,) = _findings(REPO / "samples" / "captures" / "eager_no_graphs.sqlite", "capture.short_kernels")
    assert f.category == "launch_bound" and f.severity == "warning"


def test_uvm_migration_storm(tmp_path):
    """A managed-memory program: 18,432 4 KiB migrations and no explicit copy (the count one real
    export shows, nsys-sqlite-schema.md 4.3)."""
    rows = [(i * 2_000, i * 2_000 + 1_500, 0, 1, 7, 0, GPID, 4096, 11 if i % 3 else 12, 7, 7) for i in range(18_432)]
    path = _capture(tmp_path / "uvm.sqlite", rows)
    (f,) = _findings(path, "capture.uvm_migrations")
    assert f.severity == "warning" and _evidence(f, "unified-memory migrations").measured == 18_432
    assert _evidence(f, "their time").measured == round(18_432 * 1500 / 1e6, 3)
    assert _findings(path, "capture.copies") == []


def test_no_uvm_rule_without_migrations():
    assert _findings(shared_path("captures", "sc23_t4_openmp_offload_2023_3.sqlite"), "capture.uvm_migrations") == []


def test_copy_bandwidth_against_the_link_as_sql_says():
    """The T4 OpenMP offload copies 512 MB blocks from pageable memory at a quarter of PCIe Gen3 x16."""
    name = "sc23_t4_openmp_offload_2023_3.sqlite"
    (f,) = [f for f in _findings(shared_path("captures", name), "capture.copy_bandwidth") if "HtoD" in f.title]
    ((b, ns),) = _sql(name, 'SELECT sum(bytes), sum("end" - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY '
                            "WHERE copyKind = 1 AND bytes >= 1048576 AND (srcKind = 0 OR dstKind = 0)")
    achieved = _evidence(f, "achieved bandwidth")
    assert achieved.measured == round(b / ns, 2) and achieved.expected == 15.75
    assert f.category == "host_bound" and "pageable" in f.title


def test_gpu_timeline_records_duration_histogram():
    result = analyse([str(shared_path("captures", "rodinia_gaussian_rtx3090_2022_4.sqlite"))])
    (g,) = [g for g in result.facts.of(GpuTimeline) if g.kernels]
    ((n,),) = _sql("rodinia_gaussian_rtx3090_2022_4.sqlite", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    assert sum(g.duration_hist) == g.kernels == n


# ---------------------------------------------------------------- steps


def test_period_is_the_whole_step_not_a_layer():
    """Embedding, 32 blocks of 5 kernels, final norm, LM head and sampling, 6 times: the period is
    the step (164 kernels), not the block (5) that repeats inside it."""
    import numpy as np

    from diagnose.capture.steps import _period

    step = [1] + [10, 11, 12, 11, 13] * 32 + [2, 3, 4]
    period, anchor = _period(np.array(step * 6), 3)
    assert period == len(step) == 164 and anchor in (1, 2, 3, 4)


def test_one_kernel_over_and_over_is_no_step():
    """Game of Life launches one kernel 100 times, the T4 offload one kernel 50 times."""
    for name in ("gameoflife_a100_2022_1.sqlite", "sc23_t4_openmp_offload_2023_3.sqlite"):
        assert analyse([str(shared_path("captures", name))]).steps == {}


def test_pattern_step_is_the_decode_step_of_the_sample():
    """tp8_pcie_fallback has no NVTX and 4 decode steps: one step is every kernel of one decode."""
    path = REPO / "samples" / "captures" / "tp8_pcie_fallback.sqlite"
    steps = analyse([str(path)]).steps["tp8_pcie_fallback.sqlite"]
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    ((n,),) = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = ? AND "
                         "((globalPid >> 24) & 16777215) = ?", (steps.device, steps.pid)).fetchall()
    db.close()
    assert steps.kernels_per_step == n / 4 and steps.count == 3


# ---------------------------------------------------------------- read-only, WAL mode (issue 17)


def _folder_bytes(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _wal_export(folder, keep_log):
    """A real export switched to WAL mode; with `keep_log`, the file and its log as a copy taken
    while the writer still had pages in the log (an export left in WAL mode)."""
    import shutil

    work = folder.parent / f"{folder.name}-writer"
    work.mkdir()
    src = work / "run.sqlite"
    shutil.copy(shared_path("captures", "gameoflife_a100_2022_1.sqlite"), src)
    db = sqlite3.connect(src, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    if keep_log:
        db.execute("CREATE TABLE late_rows (x)")
        db.executemany("INSERT INTO late_rows VALUES (?)", [(i,) for i in range(5000)])
        folder.mkdir()
        shutil.copy(src, folder / "run.sqlite")
        shutil.copy(f"{src}-wal", folder / "run.sqlite-wal")
        db.close()
    else:
        db.close()
        folder.mkdir()
        shutil.copy(src, folder / "run.sqlite")
    import os

    old = 1_700_000_000
    for p in folder.iterdir():
        os.utime(p, (old, old))  # written long ago: no writer at work
    return folder / "run.sqlite"


@pytest.mark.parametrize("keep_log", [False, True])
def test_wal_mode_export_is_analysed_and_its_folder_stays_byte_for_byte(tmp_path, keep_log):
    path = _wal_export(tmp_path / "export", keep_log)
    with open(path, "rb") as fh:
        assert fh.read(20)[18] == 2  # WAL mode in the header
    before = _folder_bytes(path.parent)
    report = build([str(path)])
    assert report.facts["summaries"]["run.sqlite"]["kernels"][0]["count"] == 100
    if keep_log:  # the pages still in the log were read too
        from diagnose.capture.reader import open_capture

        with open_capture(path) as cap:
            assert cap.has("late_rows") and cap.query("SELECT count(*) FROM late_rows").fetchone()[0] == 5000
    assert _folder_bytes(path.parent) == before


def test_wal_log_being_written_is_refused(tmp_path):
    import os

    from diagnose.capture.reader import open_capture
    from diagnose.errors import InputError

    path = _wal_export(tmp_path / "export", keep_log=True)
    os.utime(f"{path}-wal")  # the log just changed: a writer is at work
    with pytest.raises(InputError, match="still being written"):
        open_capture(path)


# ---------------------------------------------------------------- bounded output (issue 17)


def _run(*args):
    from click.testing import CliRunner

    from diagnose.cli import cli

    return CliRunner().invoke(cli, ["capture", *map(str, args), "--fail-on", "never"])


def test_every_summary_keeps_its_top_rows_and_counts_the_rest():
    import json

    path = shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")
    quick = json.loads(_run(path, "--json").output)["facts"]["summaries"][path.name]
    full = json.loads(_run(path, "--json", "--stats").output)["facts"]["summaries"][path.name]
    assert len(full["nvtx"]) > 50 and len(quick["nvtx"]) == 50
    assert [(r["name"], r["total"]) for r in quick["nvtx"]] == [(r["name"], r["total"]) for r in full["nvtx"][:50]]
    rest = quick["left_out"]["nvtx"]
    assert rest["rows"] == len(full["nvtx"]) - 50 and rest["total"] == sum(r["total"] for r in full["nvtx"][50:])
    for key in ("kernels", "cuda_api"):  # 48 and 22 rows: all kept, the same as with --stats
        assert key not in quick["left_out"]
        assert [(r["name"], r["total"]) for r in quick[key]] == [(r["name"], r["total"]) for r in full[key]]


def test_stats_dir_writes_every_row_as_csv(tmp_path):
    import csv
    import json

    path = shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")
    result = _run(path, "--json", "--stats-dir", tmp_path / "stats")
    full = json.loads(result.output)["facts"]["summaries"][path.name]
    with open(tmp_path / "stats" / f"{path.stem}.nvtx.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(full["nvtx"]) and rows[0]["Name"] == full["nvtx"][0]["name"]


def test_save_keeps_the_report_not_the_full_summaries():
    import json

    from diagnose import store

    report = build([str(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite"))], full_stats=True)
    stored = json.loads(store.row_for(report)["report"])
    per_file = stored["facts"]["summaries"]["nsysai_h100x2_fastvideo_train_before.sqlite"]
    assert len(per_file["nvtx"]) == 50 < len(
        report.facts["summaries"]["nsysai_h100x2_fastvideo_train_before.sqlite"]["nvtx"])
    assert not any("nsys stats" in name for name in stored["tables"])


def test_unknown_gpu_is_bad_input():
    result = _run(shared_path("captures", "gameoflife_a100_2022_1.sqlite"), "--gpu", "no-such-gpu")
    assert result.exit_code == 2 and "unknown GPU 'no-such-gpu'" in result.output


def test_many_distinct_kernel_names_stay_bounded(tmp_path):
    """20,000 kernels, each with its own name: 50 summary rows, the rest counted as SQL counts them."""
    import json

    from benchmarks.capture_bench import distinct_names

    path = tmp_path / "names.sqlite"
    distinct_names(shared_path("captures", "gameoflife_a100_2022_1.sqlite"), path, 20_000)
    result = _run(path, "--json")
    summaries = json.loads(result.output)["facts"]["summaries"]["names.sqlite"]
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    ((groups, total),) = db.execute(
        'SELECT count(*), sum(t) FROM (SELECT sum("end" - start) AS t FROM CUPTI_ACTIVITY_KIND_KERNEL '
        "GROUP BY demangledName, gridX, gridY, gridZ, blockX, blockY, blockZ)").fetchall()
    db.close()
    assert len(summaries["kernels"]) == 50 and summaries["left_out"]["kernels"]["rows"] == groups - 50
    assert summaries["left_out"]["kernels"]["total"] + sum(r["total"] for r in summaries["kernels"]) == total
    assert len(result.output) < 1_000_000


# ---------------------------------------------------------------- .nsys-rep input


def _report_file(tmp_path):
    import shutil

    rep = tmp_path / "run.nsys-rep"
    shutil.copy(shared_path("captures", "gameoflife_a100_2022_1.sqlite"), rep)  # content never read by us
    return rep


def test_nsys_rep_without_nsys_says_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = _run(_report_file(tmp_path), "--json")
    assert result.exit_code == 2
    assert "nsys export --type sqlite --output" in result.output and "run.sqlite" in result.output


def test_nsys_rep_is_exported_by_the_installed_nsys(tmp_path, monkeypatch):
    """`nsys` here is a stand-in script that writes a real export where `--output` says (the
    real nsys is not installed on this machine); the command must call it and analyse its output."""
    import json
    import os
    import sys

    tool = tmp_path / "bin" / "nsys"
    tool.parent.mkdir()
    src = shared_path("captures", "gameoflife_a100_2022_1.sqlite")
    tool.write_text(f"#!{sys.executable}\nimport shutil, sys\na = sys.argv[1:]\n"
                    "assert a[:3] == ['export', '--type', 'sqlite'], a\n"
                    f"shutil.copy({str(src)!r}, a[a.index('--output') + 1])\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}{os.pathsep}{os.environ['PATH']}")
    result = _run(_report_file(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    body = result.output[result.output.index("{"):]
    assert json.loads(body)["facts"]["summaries"]["run.sqlite"]["kernels"][0]["count"] == 100


def test_step_efficiency_from_the_measured_steps():
    """Achieved HBM bandwidth per GPU = the bytes one decode step moves per GPU (roofline) / the
    step time, the step times being the execute_model NVTX ranges as SQL reads them."""
    path = REPO / "samples" / "captures" / "tp4_nvlink_healthy.sqlite"
    report = build([str(path)], model="llama-3-70b", batch=8)
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    steps = sorted(d for (d,) in db.execute(
        'SELECT "end" - start FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId '
        "WHERE coalesce(n.text, s.value) = 'execute_model'"))
    db.close()
    expected = report.predictions["expected"]
    rows = {r[1]: r for r in report.tables["Step efficiency"]["rows"]}
    p50 = steps[(len(steps) + 1) // 2 - 1]  # nearest rank
    assert rows["p50"][3] == round(expected["bytes_per_gpu_step"] / p50, 1)
    assert rows["p50"][4] == round(100 * expected["bytes_per_gpu_step"] / p50 / expected["hbm_gbs"], 1)
    assert rows["p99"][2] == round(steps[-1] / 1e6, 3)
    (f,) = [f for f in report.findings if f.rule == "capture.step_vs_prediction"]
    bw = _evidence(f, "achieved HBM bandwidth")
    assert (bw.measured, bw.expected) == (rows["p50"][3], expected["hbm_gbs"])


def test_cpu_side_of_the_largest_idle_gap_as_sql_says():
    """nvFuser's cross-entropy run: the GPU's largest gap, the call that launched the work ending it
    (correlationId), and that thread's longest CUDA call during the gap, each by plain SQL."""
    from diagnose.evidence import IdleGapCause

    name = "fuser_h200_crossentropy_2025_1.sqlite"
    result = analyse([str(shared_path("captures", name))])
    biggest = max(result.facts.of(IdleGapCause), key=lambda c: c.gap_ns)
    acts = sorted(_sql(name, 'SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL '
                             'SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL '
                             'SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_MEMSET'))
    reach, gaps = acts[0][1], []
    for s, e in acts[1:]:
        if s > reach:
            gaps.append((s - reach, reach, s))
        reach = max(reach, e)
    length, start, end = max(gaps)
    assert (biggest.gap_ns, biggest.start_ns) == (length, start)
    ((launch, tid, launched),) = _sql(name, f"""
        SELECT s.value, r.globalTid, r.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId
        WHERE r.correlationId = (SELECT correlationId FROM (SELECT start, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL
              UNION ALL SELECT start, correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL
              SELECT start, correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET) WHERE start = {end})""")
    assert biggest.launch_call == launch.split("_v")[0] and biggest.launch_lead_ns == launched - start
    ((call, inside),) = _sql(name, f"""
        SELECT s.value, min(r."end", {launched}) - max(r.start, {start}) AS d FROM CUPTI_ACTIVITY_KIND_RUNTIME r
        JOIN StringIds s ON s.id = r.nameId WHERE r.globalTid = {tid} AND r.start < {launched} AND r."end" > {start}
        ORDER BY d DESC LIMIT 1""")
    assert (biggest.cpu_call, biggest.cpu_call_ns) == (call.split("_v")[0], inside)
    (f,) = [f for f in evaluate(result.facts, {}) if f.rule == "capture.host_bound"]
    assert _evidence(f, "largest idle gap").measured == round(length / 1e6, 3)


def test_nvtx_ranges_to_gpu_kernels_as_sql_says():
    """--nvtx-gpu: GPU time per NVTX range through correlation ids, against one plain join."""
    name = "fuser_h200_crossentropy_2025_1.sqlite"
    report = build([str(shared_path("captures", name))], nvtx_gpu=True)
    rows = {r["name"]: r for r in report.facts["summaries"][name]["nvtx_gpu"]}
    expected = _sql(name, """
        SELECT coalesce(s.value, n.text), count(DISTINCT n.rowid), count(*), sum(k."end" - k.start)
        FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
        JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.globalTid = n.globalTid AND r.start BETWEEN n.start AND n."end"
        JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId
        WHERE n.eventType IN (59, 60) GROUP BY 1""")
    assert expected and {n: (r, k, t) for n, r, k, t in expected} == {
        n: (v["ranges"], v["kernels"], v["kernel_ns"]) for n, v in rows.items()}
    assert any(t.startswith("NVTX ranges -> GPU kernels") for t in report.tables)
    # computed only when asked for: --stats alone does not pay for the join
    plain = build([str(shared_path("captures", name))], full_stats=True)
    assert "nvtx_gpu" not in plain.facts["summaries"][name]
    assert not any(t.startswith("NVTX ranges -> GPU kernels") for t in plain.tables)


def test_stats_terminal_prints_every_nvtx_range_in_plain_columns():
    path = shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")
    text = _run(path, "--stats", "--format", "terminal").output.splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith("NVTX range summary (nvtx_sum)"))
    ((ranges,),) = _sql(path.name, "SELECT count(*) FROM (SELECT DISTINCT coalesce(s.value, n.text), n.eventType "
                                   "FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId "
                                   "WHERE n.eventType IN (59, 60))")
    body = text[start + 3:start + 3 + ranges]
    assert text[start + 1].split()[:2] == ["Time", "(%)"] and len(body) == ranges
    assert all(line.split()[-1] for line in body) and text[start + 3 + ranges].strip() == ""


def test_nccl_calls_from_nccl_nvtx_ranges_as_sql_says():
    from diagnose.evidence import NcclCalls

    name = "nsysai_h100x2_fastvideo_train_before.sqlite"
    (calls,) = analyse([str(shared_path("captures", name))]).facts.of(NcclCalls)
    expected = _sql(name, """SELECT s.value, count(*), sum(n."end" - n.start) FROM NVTX_EVENTS n
                             JOIN StringIds s ON s.id = n.textId WHERE s.value LIKE 'nccl%' GROUP BY 1""")
    assert calls.calls == {call: [n, ns] for call, n, ns in expected}
    assert "Message size [bytes]" in calls.payload_fields and "NCCL communicator ID" in calls.payload_fields


def test_step_series_is_bounded_without_stats_and_whole_with_it(tmp_path):
    """A real capture of 4,094 steps: the JSON and the HTML step plot keep STEP_POINTS of them
    (evenly chosen, fastest and slowest included) plus percentiles of all; --stats keeps every step,
    and --save stores the bounded series either way (issue 17: output must not grow with the capture)."""
    import json
    import re

    from conftest import diagnose, report_json

    from diagnose.capture_report import STEP_POINTS, for_storage
    from diagnose.findings import Report

    path = shared_path("captures", "rodinia_gaussian_rtx3090_2022_4.sqlite")
    full = report_json("capture", path, "--stats")["facts"]
    every = [r["duration_ms"] for r in full["step_durations"]]
    assert len(every) == 4094 and [r["step"] for r in full["step_durations"]] == list(range(1, 4095))
    facts = report_json("capture", path)["facts"]
    steps, (summary,) = facts["step_durations"], facts["step_series"].values()
    assert STEP_POINTS <= len(steps) <= STEP_POINTS + 2 and summary["shown"] == len(steps)
    assert summary["steps"] == 4094 and "--stats keeps every step" in summary["why"]
    assert all(every[r["step"] - 1] == r["duration_ms"] for r in steps)  # each kept step is the step it says
    assert {steps[0]["step"], steps[-1]["step"]} == {1, 4094}
    assert {min(every), max(every)} <= {r["duration_ms"] for r in steps}
    assert summary["min_ms"] == min(every) and summary["max_ms"] == max(every)
    assert summary["p50_ms"] == sorted(every)[2046] and summary["min_ms"] <= summary["p90_ms"] <= summary["p99_ms"]
    assert len(json.dumps(facts)) < 150_000  # was 650 KB, 462 KB of it the step series
    out = tmp_path / "r.html"
    assert diagnose("capture", path, "--format", "html", "-o", out, "--fail-on", "never").exit_code == 0
    svg = re.search(r'<svg[^>]*>(?:(?!</svg>).)*Step times(?:(?!</svg>).)*</svg>', out.read_text(), re.S).group(0)
    assert svg.count("<circle") == len(steps) and "4,094 step times" in out.read_text()
    stored = for_storage(Report(kind="capture", facts=full))
    assert len(stored.facts["step_durations"]) <= STEP_POINTS + 2 and len(full["step_durations"]) == 4094


def test_per_gpu_findings_of_a_two_gpu_capture_say_which_gpu():
    """FastVideo's export has two GPUs: each per-GPU finding (pageable copies, launch and host checks)
    names its GPU, so no two findings of the report read the same; a one-GPU capture keeps 'GPU'."""
    path = shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")
    titles = [f["title"] for f in report_json("capture", path)["findings"]]
    assert len(titles) == len(set(titles)), titles
    assert {t for t in titles if "pageable" in t} == {
        "17 HtoD copies use pageable host memory (0.013 ms) on GPU pid 144 cuda:0",
        "17 HtoD copies use pageable host memory (0.013 ms) on GPU pid 145 cuda:1"}
    one = [f["title"]
           for f in report_json("capture", REPO / "samples" / "captures" / "tp8_pcie_fallback.sqlite")["findings"]]
    assert not [t for t in one if "cuda:" in t]
