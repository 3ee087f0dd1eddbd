"""The synthetic nsys exports of samples/generate_capture.py: schema identical to real exports of
the same version, ids and strings consistent, and each scenario's structure as described."""

import shutil
import sqlite3
import statistics
import subprocess
from pathlib import Path

import pytest
from conftest import shared_path

from samples import capture_files
from samples import generate_capture as gen

# The real export each generated version imitates.
REAL = {"recent": "fuser_h200_crossentropy_2025_1.sqlite", "old": "dlprof_rtx2070_pytorch_nvtx_2022_1.sqlite"}
LAUNCH_APIS = {"cudaLaunchKernel_v7000", "cuLaunchKernelEx", "cudaGraphLaunch_v10000"}


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Every scenario generated once, in both export versions: {(scenario, version): [paths]}."""
    root = tmp_path_factory.mktemp("captures")
    out = {}
    for name in gen.scenario_names():
        for version in gen.VERSIONS:
            out[name, version] = gen.generate(name, root / version / f"{name}.sqlite", schema=version)
    return out


def connect(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def columns(db, table):
    """(name, declared type, NOT NULL, primary key) of each column, in order."""
    return [(r[1], r[2], r[3], r[5]) for r in db.execute(f"PRAGMA table_info({table})")]


def names(db, table, column):
    return [r[0] for r in db.execute(
        f"SELECT s.value FROM {table} t JOIN StringIds s ON s.id = t.{column}")]


@pytest.mark.parametrize("version", sorted(gen.VERSIONS))
def test_tables_and_columns_are_those_of_the_real_export(made, version):
    real = connect(shared_path("captures", REAL[version]))
    real_tables = tables(real)
    for name in gen.scenario_names():
        for path in made[name, version]:
            db = connect(path)
            mine = tables(db)
            # Graph-creation tables are the only ones the sample export lacks (it traced none).
            assert mine - real_tables <= {"CUDA_GRAPH_NODE_EVENTS", "CUDA_GRAPH_EVENTS"}, path
            for table in mine & real_tables:
                assert columns(db, table) == columns(real, table), (path.name, table)
                sql = "SELECT sql FROM sqlite_master WHERE name=?"
                assert db.execute(sql, (table,)).fetchone() == real.execute(sql, (table,)).fetchone()
            for table in (t for t in mine if t.startswith("ENUM_")):
                assert (db.execute(f"SELECT * FROM {table}").fetchall()
                        == real.execute(f"SELECT * FROM {table}").fetchall())


def test_version_markers(made):
    recent = connect(made["eager_no_graphs", "recent"][0])
    old = connect(made["eager_no_graphs", "old"][0])
    meta = dict(recent.execute("SELECT name, value FROM META_DATA_EXPORT"))
    assert meta["EXPORT_SCHEMA_VERSION"] == "3.17.1" and meta["EXPORT_PRODUCT_VERSION"].startswith("2025.1")
    assert "META_DATA_CAPTURE" in tables(recent) and "TARGET_INFO_CUDA_DEVICE" in tables(recent)
    meta = dict(old.execute("SELECT name, value FROM EXPORT_META_DATA"))
    assert meta["EXPORT_SCHEMA_VERSION"] == "2.9.1" and "EXPORT_OUTUPT_FILE" in meta
    assert not any(t.startswith(("ENUM_", "META_DATA")) for t in tables(old))
    assert "TARGET_INFO_CUDA_DEVICE" not in tables(old) and "TARGET_INFO_CUDA_NULL_STREAM" in tables(old)
    # Lazy tables: nothing wrote memsets, so there is no memset table (as in real exports).
    assert "CUPTI_ACTIVITY_KIND_MEMSET" not in tables(recent)


@pytest.mark.parametrize("scenario", gen.scenario_names())
def test_ids_strings_and_correlation_are_consistent(made, scenario):
    for path in made[scenario, "recent"] + made[scenario, "old"]:
        db = connect(path)
        string_ids = {r[0] for r in db.execute("SELECT id FROM StringIds")}
        for col in ("shortName", "demangledName"):
            ids = {r[0] for r in db.execute(f"SELECT {col} FROM CUPTI_ACTIVITY_KIND_KERNEL")}
            assert ids <= string_ids, (path, col)
        assert {r[0] for r in db.execute("SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME")} <= string_ids
        # Every kernel has a launch API row in its own process, issued before the kernel started.
        orphans = db.execute("""
            SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE NOT EXISTS (
              SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId
              WHERE r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24)
                AND r.start <= k.start AND s.value IN ('cudaLaunchKernel_v7000', 'cuLaunchKernelEx',
                                                       'cudaGraphLaunch_v10000'))""").fetchone()[0]
        assert orphans == 0, path
        # globalPid = VM 1 | pid << 24; the thread ids of a process carry its pid.
        pids = dict(db.execute("SELECT globalPid, pid FROM PROCESSES"))
        for gpid, in db.execute("SELECT DISTINCT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL"):
            assert gpid >> 48 == 1 and (gpid >> 24) & 0xFFFFFF == pids[gpid]
        for gtid, in db.execute("SELECT DISTINCT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
            assert (gtid & ~0xFFFFFF) in pids
        # Kernels of one process never overlap on its single stream; each has positive duration.
        rows = db.execute("SELECT globalPid, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL "
                          "ORDER BY globalPid, start").fetchall()
        for (p1, s1, e1), (p2, s2, _e2) in zip(rows, rows[1:]):
            assert e1 > s1 and (p1 != p2 or s2 >= e1), path


@pytest.mark.parametrize("scenario", gen.scenario_names())
def test_graph_launches_only_in_graph_scenarios(made, scenario):
    graphs = gen.scenario(scenario).cfg["graphs"]
    db = connect(made[scenario, "recent"][0])
    api = names(db, "CUPTI_ACTIVITY_KIND_RUNTIME", "nameId")
    graph_kernels = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                               "WHERE graphNodeId IS NOT NULL").fetchone()[0]
    kernels = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    if graphs:
        assert api.count("cudaGraphLaunch_v10000") >= 3 and graph_kernels > kernels / 2
        # A replayed kernel carries the correlation id of its cudaGraphLaunch.
        bad = db.execute("""SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
                            ON r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24)
                            JOIN StringIds s ON s.id = r.nameId
                            WHERE k.graphNodeId IS NOT NULL AND s.value != 'cudaGraphLaunch_v10000'""").fetchone()[0]
        assert bad == 0
    else:
        assert "cudaGraphLaunch_v10000" not in api and graph_kernels == 0
        launches = sum(api.count(a) for a in LAUNCH_APIS)
        assert launches == kernels                     # one launch call per kernel


def test_graph_creation_rows_link_cloned_nodes_to_captured_ones(made):
    db = connect(made["tp4_nvlink_healthy", "recent"][0])
    nodes = dict(db.execute("SELECT graphNodeId, originalGraphNodeId FROM CUDA_GRAPH_NODE_EVENTS"))
    used = {r[0] for r in db.execute("SELECT DISTINCT graphNodeId FROM CUPTI_ACTIVITY_KIND_KERNEL "
                                     "WHERE graphNodeId IS NOT NULL")}
    assert used and used <= set(nodes)
    assert all(nodes[n] in nodes and nodes[nodes[n]] is None for n in used)
    assert db.execute("SELECT count(*) FROM CUDA_GRAPH_EVENTS WHERE graphExecId IS NOT NULL").fetchone()[0] == 1


def test_nccl_kernel_names_follow_the_nccl_version(made):
    recent = set(names(connect(made["tp4_nvlink_healthy", "recent"][0]), "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName"))
    assert "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm *, unsigned long, ncclWork *)" in recent
    newest = set(names(connect(made["straggler", "recent"][0]), "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName"))
    assert "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)" in newest
    old = set(names(connect(made["eager_no_graphs", "old"][0]), "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName"))
    assert "ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm *, unsigned long, ncclWork *)" in old
    assert gen.nccl_kernel("allreduce", "2.23.4", "bf16").demangled == \
        "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"
    assert (gen.nccl_kernel("send", "2.11.4", "f16").demangled
            == "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)")


@pytest.mark.skipif(not shutil.which("c++filt"), reason="c++filt (binutils) not installed")
def test_mangled_names_demangle_to_the_same_function(made):
    db = connect(made["tp4_nvlink_healthy", "recent"][0])
    rows = set(db.execute(
        """SELECT s.value, m.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName
                             JOIN StringIds m ON m.id = k.mangledName WHERE m.value LIKE '\\_Z%' ESCAPE '\\'"""))
    assert len(rows) >= 8
    for short, mangled in rows:
        plain = subprocess.run(["c++filt", mangled], capture_output=True, text=True).stdout.strip()
        assert plain != mangled and (f"{short}<" in plain or f"{short}(" in plain), (short, plain)


def _median_allreduce(path):
    db = connect(path)
    return statistics.median(r[0] for r in db.execute(
        """SELECT k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName
           WHERE s.value LIKE 'ncclDevKernel_AllReduce%'"""))


def test_scenario_physics(made):
    """The figures each scenario is built to show, measured straight from the files."""
    healthy = _median_allreduce(made["tp4_nvlink_healthy", "recent"][0])
    pcie = _median_allreduce(made["tp8_pcie_fallback", "recent"][0])
    assert pcie > 5 * healthy
    # Straggler: the slow rank never waits inside the all-reduce; the others do.
    per_rank = {int(p.stem.rsplit("rank", 1)[1]): _median_allreduce(p) for p in made["straggler", "recent"]}
    assert len(per_rank) == 4 and min(per_rank, key=per_rank.get) == 2
    assert all(per_rank[r] > 2 * per_rank[2] for r in (0, 1, 3))
    # PP: two processes in one file, SendRecv kernels, each GPU idle a large part of the time.
    db = connect(made["pp2_bubble", "recent"][0])
    procs = db.execute("SELECT globalPid, min(start), max(end), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                       "GROUP BY 1").fetchall()
    assert len(procs) == 2 and all(busy / (end - start) < 0.7 for _, start, end, busy in procs)
    assert "ncclDevKernel_SendRecv" in names(db, "CUPTI_ACTIVITY_KIND_KERNEL", "shortName")


def test_nvtx_steps_only_where_the_scenario_has_them(made):
    for name in gen.scenario_names():
        step = gen.scenario(name).cfg.get("nvtx", "")
        db = connect(made[name, "recent"][0])
        texts = [r[0] for r in db.execute("SELECT text FROM NVTX_EVENTS WHERE eventType = 59")] \
            if "NVTX_EVENTS" in tables(db) else []
        processes = db.execute("SELECT count(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
        expected = len(gen.scenario(name).cfg["phases"]) * processes     # one range per step and process
        assert (texts.count(step) == expected) if step else not texts, name


def test_per_rank_files_align_by_utc_session_start(made):
    paths = made["straggler", "recent"]
    starts = {}
    for path in paths:
        db = connect(path)
        utc = db.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0]
        first = db.execute("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
        starts[path.name] = (utc, utc + first)
    assert len({utc for utc, _ in starts.values()}) == 4          # sessions started at different times
    absolute = [a for _, a in starts.values()]
    assert max(absolute) - min(absolute) < 200_000                # ... but the first kernels line up


def test_generation_is_deterministic_and_the_committed_samples_are_current(made, tmp_path):
    for name in gen.scenario_names():
        committed = capture_files(name)
        assert committed, f"no committed sample for {name}: run python -m samples.generate_capture --all"
        fresh = gen.generate(name, tmp_path / f"{name}.sqlite")
        assert [p.name for p in fresh] == [p.name for p in committed]
        for new, old in zip(fresh, committed):
            q = "SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid"
            assert connect(new).execute(q).fetchall() == connect(old).execute(q).fetchall(), \
                f"{old} is stale: run python -m samples.generate_capture --all"
            assert old.stat().st_size < 1_000_000


def test_large_capture_streams_and_matches_runtime_rows(tmp_path):
    path, = gen.generate("eager_no_graphs", tmp_path / "big.sqlite", kernels=60_000)
    db = connect(path)
    kernels = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    launches = db.execute("""SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId
                             WHERE s.value = 'cudaLaunchKernel_v7000'""").fetchone()[0]
    assert 60_000 <= kernels < 60_000 + 500 and launches == kernels


def test_cli_writes_the_scenario_and_rejects_unknown_ones(tmp_path, capsys):
    assert gen.main(["--scenario", "pp2_bubble", "-o", str(tmp_path / "x.sqlite"), "--schema", "old"]) == 0
    db = connect(tmp_path / "x.sqlite")
    assert "EXPORT_META_DATA" in tables(db)
    with pytest.raises(SystemExit) as exc:
        gen.main(["--scenario", "nope", "-o", str(tmp_path / "y.sqlite")])
    assert exc.value.code == 2 and "invalid choice" in capsys.readouterr().err
    assert not Path(tmp_path / "y.sqlite").exists()
