"""`diagnose compare`: real before/after data, regressions gate with exit 1, identical runs pass."""

import json

import pytest
from click.testing import CliRunner
from conftest import REPO, diagnose, shared_path

from diagnose import store
from diagnose.cli import cli
from diagnose.compare import compare
from diagnose.findings import Report


def p2p_node_report(enabled: bool) -> Report:
    """A node report holding one of ticket 022's real p2pBandwidthLatencyTest matrices (8x A40):
    P2P enabled is 'before', P2P disabled (as after a driver or BIOS change) is 'after'."""
    from diagnose.bundle import read_bundle

    facts = read_bundle([next(shared_path("tickets").glob("022-*"))]).to_dict()
    pairs = [p for p in facts["pair_bandwidth"] if p["p2p_enabled"] is enabled]
    assert len(pairs) >= 25
    return Report(kind="node", inputs={"p2p": enabled}, facts={"pair_bandwidth": pairs, "gpu_fact": facts["gpu_fact"]})


def write(tmp_path, name, report):
    path = tmp_path / name
    path.write_text(json.dumps(report.to_dict()))
    return str(path)


def run(*args):
    return diagnose("compare", *args)


def test_p2p_disabled_is_a_per_link_regression(tmp_path):
    before = write(tmp_path, "before.json", p2p_node_report(True))
    after = write(tmp_path, "after.json", p2p_node_report(False))
    result = run(before, after, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    problem = report["findings"][0]
    assert problem["rule"] == "compare.regression.p2p_gb_s_bi" and problem["severity"] == "critical"
    worst = problem["evidence"][0]
    # GPU0->GPU1 went from 101.60 to 19.13 GB/s in the real matrices: -81%.
    assert (worst["expected"], worst["measured"]) == (101.6, 19.13)
    assert "GPU0→GPU1" in worst["detail"] and "-81.2%" in worst["detail"]
    assert worst["source"].startswith("after.json: attachment2.txt:")
    rows = report["tables"]["before.json → after.json"]["rows"]
    assert sum(r[-1] == "REGRESSION" for r in rows) == len(rows) >= 25


def test_the_other_way_is_an_improvement(tmp_path):
    before = write(tmp_path, "before.json", p2p_node_report(False))
    after = write(tmp_path, "after.json", p2p_node_report(True))
    result = run(before, after, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["verdict"]["category"] == "healthy"
    assert all(r[-1] == "better" for r in report["tables"]["before.json → after.json"]["rows"])


def test_identical_inputs_exit_0(tmp_path):
    path = write(tmp_path, "a.json", p2p_node_report(True))
    result = run(path, path, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["verdict"]["category"] == "healthy"
    assert all(r[6] == 0.0 for r in report["tables"]["A (a.json) → B (a.json)"]["rows"])


def test_threshold_decides(tmp_path):
    before = write(tmp_path, "before.json", p2p_node_report(True))
    after = write(tmp_path, "after.json", p2p_node_report(False))
    assert run(before, after, "--threshold", "85").exit_code == 0  # the worst drop is 81%
    assert run(before, after, "--threshold", "80").exit_code == 1


def test_run_ids_from_the_store(tmp_path):
    db_path = tmp_path / "runs.db"
    db = store.open_db(db_path)
    a = store.save(p2p_node_report(True), db=db)
    b = store.save(p2p_node_report(False), db=db)
    result = run(a, b, "--db", db_path, "--format", "md")
    assert result.exit_code == 1 and f"run {a} → run {b}" in result.output
    assert run(b, b, "--db", db_path).exit_code == 0
    assert run(a, 999, "--db", db_path).exit_code == 2


def test_bad_inputs_exit_2(tmp_path):
    node = write(tmp_path, "node.json", p2p_node_report(True))
    ticket = write(tmp_path, "ticket.json", Report(kind="ticket"))
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    cases = [((node, ticket), "cannot compare a node report with a ticket report"),
             ((node, junk), "junk.json: not a diagnose report JSON file"),
             ((node, tmp_path / "absent.json"), "absent.json: no such file"),
             ((node, node, "--threshold", "0"), "--threshold must be positive")]
    for args, needle in cases:
        result = CliRunner().invoke(cli, ["compare", *map(str, args)])
        assert result.exit_code == 2, (args, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("diagnose: ") and needle in lines[0], result.stderr
        assert result.stdout == ""


def test_new_problem_findings_count_as_regressions():
    """Any kind (here tickets): a problem B reports that A did not is a regression."""
    from diagnose.findings import Finding

    a = Report(kind="ticket")
    b = Report(kind="ticket", findings=[Finding("topology.p2p_disabled", "p2p_disabled", "critical", 0.9,
                                                "P2P is disabled", "...")])
    report = compare(a, b)
    assert report.verdict.category == "p2p_disabled"
    assert report.findings[0].rule == "compare.new_finding.topology.p2p_disabled"
    assert compare(b, b).verdict.category == "insufficient_data"  # nothing measured in common, no new problem


# --------------------------------------------------------------------------- captures


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    """Generated nsys exports of the same TP=4 decode: healthy, and with rank 2 30% slow."""
    gen = pytest.importorskip("samples.generate_capture", reason="the capture generator (samples/) is not installed")
    out = tmp_path_factory.mktemp("captures")
    healthy = gen.generate("tp4_nvlink_healthy", out / "healthy.sqlite", kernels=3000)[0]
    straggler = gen.generate("straggler", out / "after.sqlite", kernels=3000)
    return healthy, straggler  # one export per rank


def test_captures_regression_found_and_exit_1(captures):
    healthy, ranks = captures
    after = ranks[0]  # rank 0: a fast rank that now waits for rank 2 in every all-reduce
    result = run(healthy, after, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    rows = {(r[0], r[1]): r for r in report["tables"]["healthy.sqlite → after_rank0.sqlite"]["rows"]}
    comm = rows[("kernel class", "communication")]
    assert comm[-1] == "REGRESSION" and comm[6] > 100  # each all-reduce now includes the wait
    assert rows[("kernel class", "gemm")][6] == 0.0  # rank 0's own compute did not change
    assert rows[("step time", "median")][-1] == "REGRESSION"
    top = report["findings"][0]
    assert top["rule"] == "compare.regression.kernel_class" and top["category"] == "comm_bound"
    assert report["verdict"]["category"] == "comm_bound"


def test_identical_captures_exit_0(captures):
    healthy, ranks = captures
    result = run(healthy, healthy, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["verdict"]["category"] == "healthy"
    all_ranks = ",".join(map(str, ranks))  # one run captured as one export per rank
    assert run(all_ranks, all_ranks).exit_code == 0
    report = json.loads(run(healthy, all_ranks, "--json").output)
    # B's longer communication is the other ranks waiting for rank 2: the straggler leads, not comm_bound
    assert report["verdict"]["category"] == "straggler"
    assert any(f["rule"] == "compare.new_finding.capture.straggler" for f in report["findings"])


def test_per_size_collective_deltas_on_published_sweeps(tmp_path):
    """Two real 8-GPU all_reduce sweeps [R14]: DGX H100 as A, DGX A100 as B. Large messages are
    judged on busbw (64 MiB: 362 -> 181 GB/s, -50%), small ones on time (16 KiB: 29 -> 26 us)."""
    from test_html import published_sweep

    h100 = Report(kind="node", facts={"collective_result": published_sweep()})
    a100 = Report(kind="node",
                  facts={"collective_result": published_sweep("| 8× A100 (DGX), 8 GPUs | NCCL via PyTorch (vidur")})
    result = run(write(tmp_path, "h100.json", h100), write(tmp_path, "a100.json", a100), "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    rows = {r[1]: r for r in report["tables"]["h100.json → a100.json"]["rows"]}
    assert set(rows) == {"16K", "256K", "1M", "4M", "16M", "64M"}
    assert rows["64M"][2] == "busbw" and round(rows["64M"][3]) == 362 and round(rows["64M"][4]) == 181
    assert rows["64M"][-1] == "REGRESSION"
    assert rows["16K"][2] == "time" and (rows["16K"][3], rows["16K"][4]) == (29.0, 26.0) and rows["16K"][-1] == "better"
    assert report["findings"][0]["rule"] == "compare.regression.all_reduce_8"


def test_nvlink_down_between_two_replays(tmp_path):
    """The same DGX H100 recording before and after GPU3 link 5 went down: a per-link regression."""
    from test_fleet import DGX_H100, recording_with_link_down, replay

    before = replay(DGX_H100, tmp_path / "before.json")
    after = replay(recording_with_link_down(tmp_path), tmp_path / "after.json")
    result = run(before, after, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    link = next(f for f in report["findings"] if f["rule"] == "compare.regression.nvlink")
    assert link["category"] == "nvlink_down" and "GPU3 link 5" in link["title"]
    assert (link["evidence"][0]["expected"], link["evidence"][0]["measured"]) == (1.0, 0.0)


SAMPLES = REPO / "samples" / "captures"


def test_communication_that_grew_by_waiting_for_a_late_rank_leads_with_the_straggler():
    """The bundled healthy TP=4 export against the four per-rank exports of the straggler run: their
    communication kernels are 55 % longer because ranks 0, 1 and 3 wait inside every all-reduce for rank 2,
    as `capture` on the four files says. The comparison leads with that straggler, not with comm_bound."""
    ranks = ",".join(str(SAMPLES / f"straggler_rank{i}.sqlite") for i in range(4))
    result = run(SAMPLES / "tp4_nvlink_healthy.sqlite", ranks, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    alone = json.loads(run(ranks, ranks, "--json").output)  # no regression against itself
    assert alone["verdict"]["category"] == "healthy"
    capture = json.loads(diagnose("capture", *ranks.split(","), "--json").stdout)
    assert report["verdict"]["category"] == capture["verdict"]["category"] == "straggler"
    top = report["findings"][0]
    assert top["rule"] == "compare.regression.kernel_class" and top["category"] == "straggler"
    assert top["title"].startswith(capture["findings"][0]["title"]) and "communication" in top["title"]
    assert not any(f["category"] == "comm_bound" for f in report["findings"])


def test_captures_of_different_tp_are_not_like_for_like():
    """The bundled TP=4 NVLink and TP=8 PCIe exports record their layouts (META_DATA_CAPTURE):
    the diff says the runs are not like for like, naming both sizes and where they were read."""
    a, b = SAMPLES / "tp4_nvlink_healthy.sqlite", SAMPLES / "tp8_pcie_fallback.sqlite"
    report = json.loads(run(a, b, "--json", "--fail-on", "never").output)
    (f,) = [f for f in report["findings"] if f["rule"] == "compare.layout_differs"]
    assert f["severity"] == "warning" and f["title"] == (
        "the runs are not like for like: TP 4 in tp4_nvlink_healthy.sqlite and 8 in tp8_pcie_fallback.sqlite")
    e, *moved = f["evidence"]
    assert (e["measured"], e["expected"]) == (8, 4)
    assert e["source"] == "tp8_pcie_fallback.sqlite: capture:tp8_pcie_fallback.sqlite META_DATA_CAPTURE:1"
    # what moved is listed as what differs, never called a regression (TP 8 runs other kernels and steps)
    assert not [x for x in report["findings"] if x["rule"].startswith("compare.regression.")]
    assert not [d for d in report["facts"]["metric_delta"] if d["regression"]]
    worse = {d["key"] for d in report["facts"]["metric_delta"] if d["worse_pct"] > 10}
    assert {"communication", "median"} <= worse and {m["detail"].split(" (")[0] for m in moved} == {
        f"{d['group']} {d['key']} {d['metric']}" for d in report["facts"]["metric_delta"] if d["worse_pct"] > 10}
    assert "not a regression" in f["summary"] and "communication mean kernel time, 394%" in f["summary"]
    # and nothing is plainly "better" either: every change beyond the threshold is marked as the other layout's
    (table,) = [t for title, t in report["tables"].items() if "→" in title]
    marks = {row[-1] for row in table["rows"]} - {""}
    assert marks and marks <= {"worse, other layout", "better, other layout"}, marks
    same = json.loads(run(a, a, "--json").output)
    assert not [f for f in same["findings"] if f["rule"] == "compare.layout_differs"]


def test_captures_of_unrelated_programs_are_not_a_regression():
    """ut9b: cupy's reconstruction (cupy_* kernels, 4x A100) against Game of Life (compute_kernel):
    no kernel name in common, so the 'other' class's +84 % mean is two programs, not a critical regression."""
    a = shared_path("captures", "recon_a100x4_cupy_2023_1.sqlite")
    b = shared_path("captures", "gameoflife_a100_2022_1.sqlite")
    result = run(a, b, "--json")
    report = json.loads(result.output)
    (f,) = [f for f in report["findings"] if f["rule"] == "compare.workload_differs"]
    assert f["severity"] == "warning" and "no kernel name in common" in f["title"]
    assert "compare.regression.kernel_class" not in {x["rule"] for x in report["findings"]}
    assert not [x for x in report["findings"] if x["severity"] == "critical"] and result.exit_code == 0
    (table,) = [t for title, t in report["tables"].items() if "→" in title]
    assert {row[-1] for row in table["rows"]} - {""} == {"worse, other workload"}
    # ut10b #10: nothing was judged, so no check passed and no "new in B" problem leads (was other 0.60, small grids)
    assert report["verdict"]["category"] == "insufficient_data", report["verdict"]
    assert not [x for x in report["findings"] if x["rule"].startswith(("compare.new_finding", "compare.no_regression"))]
    # the same program twice, or the two ranks' exports of one run, keep their names in common
    same = json.loads(run(b, b, "--json").output)
    assert not [x for x in same["findings"] if x["rule"] == "compare.workload_differs"]
    assert not [x for x in json.loads(run(SAMPLES / "tp4_nvlink_healthy.sqlite", SAMPLES / "tp8_pcie_fallback.sqlite",
                                          "--json", "--fail-on", "never").output)["findings"]
                if x["rule"] == "compare.workload_differs"]


@pytest.mark.parametrize("summaries", [[1, 2], {"x.sqlite": {"kernels": [{"name": "k", "total": "12"}]}},
                                       {"x.sqlite": ["kernels"]}, {"x.sqlite": {"nvtx": "step"}}])
def test_capture_reports_with_odd_summaries_compare_without_an_internal_error(tmp_path, summaries):
    """r12 review: the workload check read facts.summaries as the capture command writes it, so a report
    edited or made by another tool (summaries a list, a total as text) was exit 3, 'internal error:
    TypeError', where compare had said exit 0 before. What cannot be read is not compared, as elsewhere."""
    a, b = (json.loads(diagnose("capture", shared_path("captures", f"{name}.sqlite"), "--json", "--fail-on",
                                "never").output) for name in ("gameoflife_a100_2022_1", "recon_a100x4_cupy_2023_1"))
    a["facts"]["summaries"] = summaries
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    result = run(str(pa), str(pb), "--json", "--fail-on", "never")
    assert result.exit_code == 0 and "internal error" not in result.stderr, result.stderr
    assert json.loads(result.output)["kind"] == "compare"


def test_a_large_diff_table_shows_what_moved(tmp_path):
    """ut9b: two 8-GPU node reports printed 198 unchanged P2P rows before the findings. Beyond
    MAX_ROWS_SHOWN metrics the table keeps those beyond the threshold and says how many it left out;
    facts.metric_delta keeps every one."""
    from diagnose.compare import MAX_ROWS_SHOWN

    a = REPO / "samples" / "fleet" / "hgx-h100-smi-p2p-bidirectional.json"
    report = json.loads(a.read_text())
    for link in [x for x in report["facts"]["nv_link_fact"] if x["gpu"] == 0][:2]:
        link["active"] = False
    b = tmp_path / "b.json"
    b.write_text(json.dumps(report))
    out = json.loads(run(a, b, "--json").output)
    (table,) = [t for title, t in out["tables"].items() if "→" in title]
    assert len(out["facts"]["metric_delta"]) > MAX_ROWS_SHOWN
    assert [r[1] for r in table["rows"]] == ["GPU0 link 0", "GPU0 link 1"]
    assert f"{len(out['facts']['metric_delta']) - 2} of {len(out['facts']['metric_delta'])} metrics within 10% " \
           "not shown" in table["note"]


def test_given_layouts_that_differ_are_named():
    """Reports of captures without metadata, analysed with --tp 4 and --tp 8 (and PP 2 only on one side)."""
    report = compare(Report(kind="capture", inputs={"tp": 4, "pp": 2}), Report(kind="capture", inputs={"tp": 8}))
    (f,) = [f for f in report.findings if f.rule == "compare.layout_differs"]
    assert f.title == "the runs are not like for like: TP 4 in A and 8 in B"  # PP known on one side only
    assert f.evidence[0].source == "B: given --tp"
    assert report.verdict.category == "insufficient_data"


def test_a_folder_or_a_missing_rank_is_named(tmp_path):
    healthy = str(SAMPLES / "tp4_nvlink_healthy.sqlite")
    result = run(tmp_path, healthy)
    assert result.exit_code == 2
    assert f"{tmp_path}: is a directory; expected a run id" in result.stderr
    missing = tmp_path / "rank1.sqlite"
    result = run(f"{SAMPLES / 'straggler_rank0.sqlite'},{missing}", healthy)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"diagnose: {missing} (one of the per-rank exports in ")
    assert "no such file; expected an nsys SQLite export" in result.stderr
    result = run(f"{healthy},{healthy}", healthy)
    assert result.exit_code == 2 and f"{healthy}: named twice in " in result.stderr


def test_node_reports_of_different_gpu_models_are_not_like_for_like():
    """ut10b #10: the HGX H100 and the HGX A100 node reports compared as 12 'NVLink up/up' rows, link
    speeds -5.9 %, and the A100's own NCCL_P2P_LEVEL=LOC as 'new in B' (critical, exit 1), with no word
    that the GPUs differ. Each side's GPU model (resolved by the catalog) now says so; nothing is judged.
    Two H100 SXM nodes (the README's example, one naming no GPU) are still compared as before."""
    h100, a100 = (REPO / "samples" / "fleet" / f"{n}.json" for n in ("hgx-h100-nvlink-status-mig-disabled",
                                                                     "hgx-a100-nvlink-p2p-level-loc"))
    result = run(h100, a100, "--json")
    report = json.loads(result.output)
    (f,) = [f for f in report["findings"] if f["rule"] == "compare.machine_differs"]
    assert "h100-sxm in" in f["title"] and "a100-80gb-sxm in" in f["title"] and f["severity"] == "warning"
    assert report["verdict"]["category"] == "insufficient_data" and result.exit_code == 0
    assert not [x for x in report["findings"] if x["rule"].startswith("compare.new_finding")]
    same = json.loads(run(h100, h100, "--json").output)
    assert not [x for x in same["findings"] if x["rule"] == "compare.machine_differs"]
    assert same["verdict"]["category"] == "healthy"


def test_readme_fleet_compare_example_compares_something():
    """The README's fleet-operator example diffs two real H100 node reports that share metrics
    (every NVLink of GPUs 0 and 1), not two reports with nothing in common."""
    import re

    readme = (REPO / "README.md").read_text()
    (a, b), = {m.groups()
               for m in re.finditer(r"diagnose compare (samples/fleet/\S+\.json) (samples/fleet/\S+\.json)", readme)}
    report = json.loads(run(REPO / a, REPO / b, "--json", "--fail-on", "never").output)
    assert not [f for f in report["findings"] if f["rule"] == "compare.nothing_in_common"]
    deltas = report["facts"]["metric_delta"]
    assert len(deltas) == 36 and {d["group"] for d in deltas} == {"NVLink"}


def _nccl_only_capture(tmp_path, name: str, nccl: str, nvtx: bool) -> str:
    """tp4_nvlink_healthy generated with NCCL `nccl`'s kernel names (samples/generate_capture.nccl_kernel, from NCCL's
    sources) and only its NCCL kernels kept: a program whose every kernel is a library's, as nccl-tests is."""
    import sqlite3

    from samples import generate_capture as gen

    base = gen.scenario

    def with_release(scenario_name, schema=None):
        s = base(scenario_name, schema)
        s.cfg["nccl"] = nccl
        return s

    gen.scenario = with_release
    try:
        (path,) = gen.generate("tp4_nvlink_healthy", tmp_path / name)
    finally:
        gen.scenario = base
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE shortName NOT IN "
                   "(SELECT id FROM StringIds WHERE value LIKE 'nccl%')")
        if not nvtx:
            db.execute("DELETE FROM NVTX_EVENTS")
    return str(path)


def test_an_nccl_upgrade_renames_kernels_but_is_the_same_workload(tmp_path):
    """cr10 #10: NCCL 2.18 names its all-reduce ncclKernel_AllReduce_RING_LL_Sum___nv_bfloat16, 2.19 and later
    ncclDevKernel_AllReduce_Sum_bf16_RING_LL: no kernel name in common, yet one program when its NVTX ranges are
    the same. The collectives alone (no NVTX) only hint at it: a weak lead, not 0.9."""
    old = _nccl_only_capture(tmp_path, "old.sqlite", "2.18.3", nvtx=True)
    new = _nccl_only_capture(tmp_path, "new.sqlite", "2.21.5", nvtx=True)
    bare = _nccl_only_capture(tmp_path, "bare.sqlite", "2.21.5", nvtx=False)
    from diagnose.compare import kernel_names, load_run
    names = [set(kernel_names(load_run(p)[0])) for p in (old, new)]
    assert not names[0] & names[1]
    assert any(n.startswith("ncclKernel_AllReduce") for n in names[0])
    assert any(n.startswith("ncclDevKernel_AllReduce") for n in names[1])
    same = json.loads(run(old, new, "--json", "--fail-on", "never").output)
    assert not [f for f in same["findings"] if f["rule"] == "compare.workload_differs"]
    (hint,) = [f for f in json.loads(run(old, bare, "--json", "--fail-on", "never").output)["findings"]
               if f["rule"] == "compare.workload_differs"]
    assert hint["confidence"] == 0.5 and "NCCL AllReduce" in hint["summary"]
