"""The results store: save/load round trip, filters, and many writer processes losing nothing."""

import json
import multiprocessing
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose import store
from diagnose.cli import cli
from diagnose.findings import Evidence, Finding, Report, Verdict


def node_report(host="node-a", uuid="GPU-0b8c6b2c-1d1e-4c43-9a27-1f5f1c7f0c01", nccl="2.21.5", driver="550.54.15"):
    """A small node report with the facts the store indexes (hostname, GPU UUID, driver, NCCL)."""
    return Report(
        kind="node",
        inputs={"quick": True},
        facts={
            "gpu_fact": [{"source": "probe:nvml", "index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": uuid}],
            "host_fact": [
                {"source": "probe:host", "name": "hostname", "value": host},
                {"source": "probe:nvml", "name": "driver_version", "value": driver},
            ],
            "nccl_version": [{"source": "probe:nccl", "version": nccl, "cuda": None}],
        },
        findings=[Finding("nvlink.all_up", "healthy", "ok", 0.9, "all NVLinks up", "18 of 18 links active.",
                          [Evidence("probe:nvml", "active links", 18, 18)])],
        verdict=Verdict("healthy", 0.9, "No problem found."),
    )


def test_save_and_load_round_trip(tmp_path):
    db = store.open_db(tmp_path / "runs.db")
    report = node_report()
    run_id = store.save(report, db=db)
    row = store.runs(db)[0]
    assert row["id"] == run_id
    assert (row["kind"], row["host"], row["driver_version"], row["nccl_version"]) == ("node", "node-a", "550.54.15",
                                                                                      "2.21.5")
    assert json.loads(row["gpu_uuids"]) == ["GPU-0b8c6b2c-1d1e-4c43-9a27-1f5f1c7f0c01"]
    assert row["gpu_model"] == "NVIDIA H100 80GB HBM3" and row["verdict"] == "healthy"
    assert store.load(db, run_id).to_dict() == report.to_dict()
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_filters(tmp_path):
    db = store.open_db(tmp_path / "runs.db")
    for host in ("a1", "a2", "b1"):
        store.save(node_report(host=host), db=db)
    store.save(Report(kind="predict", inputs={"model": "llama-3-70b"}), db=db)
    assert len(store.runs(db, kind="node")) == 3
    assert [r["host"] for r in store.runs(db, host="a%")] == ["a2", "a1"]  # newest first
    assert len(store.runs(db, limit=2)) == 2
    assert store.runs(db, since="1h") and not store.runs(db, since="2999-01-01")


def _writer(path, n, worker):
    db = store.open_db(path)
    for i in range(n):
        store.save(node_report(host=f"w{worker}", uuid=f"GPU-{worker}-{i}"), db=db)


@pytest.mark.slow
def test_parallel_writers_lose_nothing(tmp_path):
    """Several processes write 1,200 runs into one database at once; every one arrives."""
    path = tmp_path / "fleet.db"
    workers, per_worker = 6, 200
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, per_worker, w)) for w in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == workers * per_worker
    per_host = dict(conn.execute("SELECT host, count(DISTINCT gpu_uuids) FROM runs GROUP BY host"))
    assert per_host == {f"w{w}": per_worker for w in range(workers)}


def test_cli_save_and_history(tmp_path, monkeypatch):
    """--save through a real command's output options, then `diagnose history` lists it."""
    path = tmp_path / "runs.db"
    db = store.open_db(path)
    store.save(node_report(host="gpu-node-17"), db=db)
    store.save(node_report(host="gpu-node-18"), db=db)
    runner = CliRunner()
    result = runner.invoke(cli, ["history", "--db", str(path), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["host"] for r in rows] == ["gpu-node-18", "gpu-node-17"]
    result = runner.invoke(cli, ["history", "--db", str(path), "--host", "gpu-node-17"])
    assert result.exit_code == 0 and "gpu-node-17" in result.output and "gpu-node-18" not in result.output
    result = runner.invoke(cli, ["history", "--db", str(tmp_path / "absent.db")])
    assert result.exit_code == 2


def test_not_a_results_database(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE runs (x)")
    conn.commit()
    with pytest.raises(store.InputError):
        store.open_db(path)


RECORDINGS = Path(__file__).parent / "recordings"


def test_save_option_and_env_on_real_commands(tmp_path, monkeypatch):
    """`--save` on a node replay and $DIAGNOSE_DB on a capture store runs with their metadata."""
    path = tmp_path / "runs.db"
    runner = CliRunner()
    monkeypatch.delenv("DIAGNOSE_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    result = runner.invoke(cli, ["node", "--replay", str(RECORDINGS / "hgx-h100-smi-p2p-bidirectional.json"),
                                 "--save", "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    assert "saved as run 1" in result.stderr
    default_db = tmp_path / "xdg" / "diagnose" / "runs.db"
    row = store.runs(store.open_db(default_db))[0]
    assert (row["kind"], row["host"], row["driver_version"]) == ("node", "replay:hgx-h100-smi-p2p-bidirectional",
                                                                 "550.54.15")
    assert row["gpu_count"] == 8 and row["gpu_model"]

    gen = pytest.importorskip("samples.generate_capture", reason="the capture generator (samples/) is not installed")
    capture = gen.generate("tp4_nvlink_healthy", tmp_path / "run.sqlite", kernels=1000)[0]
    monkeypatch.setenv("DIAGNOSE_DB", str(path))
    result = runner.invoke(cli, ["capture", str(capture), "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    row = store.runs(store.open_db(path), kind="capture")[0]
    assert row["host"] == "gpu-node-07" and row["gpu_model"] == "NVIDIA H100 80GB HBM3" and row["verdict"]
    assert len(json.loads(row["gpu_uuids"])) == 1  # the capture's TARGET_INFO_GPU uuid of the traced GPU
    assert store.load(store.open_db(path), row["id"]).kind == "capture"
    result = runner.invoke(cli, ["history", "--kind", "capture"])  # $DIAGNOSE_DB is the default
    assert result.exit_code == 0 and "gpu-node-07" in result.output


CAPTURE = Path(__file__).parent.parent / "samples" / "captures" / "tp4_nvlink_healthy.sqlite"


@pytest.mark.parametrize("create", [False, True])
def test_a_capture_is_refused_and_left_byte_for_byte(tmp_path, create):
    """An nsys export handed to --db (history) or $DIAGNOSE_DB (--save) is not a store: it is
    refused by name and never written (no runs table, no WAL switch, no -wal file)."""
    copy = tmp_path / "capture.sqlite"
    copy.write_bytes(CAPTURE.read_bytes())
    before = copy.read_bytes()
    with pytest.raises(store.InputError,
                       match=r"capture\.sqlite is not a diagnose results database \(no runs table; its tables: "):
        store.open_db(copy, create=create)
    assert copy.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["capture.sqlite"]


def test_an_empty_file_is_a_store_only_when_saving(tmp_path):
    """`history --db empty.sqlite` must not answer 'No runs match.' for a file that holds no store."""
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    result = CliRunner().invoke(cli, ["history", "--db", str(empty)])
    assert result.exit_code == 2 and result.stdout == ""
    assert "empty.sqlite is not a diagnose results database (no runs table; it is empty)" in result.stderr
    assert empty.stat().st_size == 0
    store.save(node_report(), db=store.open_db(empty))  # saving starts a new store in it
    assert store.count(store.open_db(empty, create=False)) == 1


def test_junk_and_an_old_layout_are_refused(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite at all\n" * 100)
    with pytest.raises(store.InputError, match="junk.db is not a diagnose results database"):
        store.open_db(junk, create=False)
    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    conn.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, kind TEXT, report TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(store.InputError, match="its runs table lacks time, host"):
        store.open_db(old, create=False)


def test_history_table_keeps_words_and_values_whole(tmp_path):
    """`history` lays its table out as the reports do: no value split from its unit or cut mid-word."""
    from conftest import diagnose

    db = tmp_path / "runs.db"
    assert diagnose("predict", "--model", "llama-3-8b", "--gpu", "h100-sxm",
                    env={"DIAGNOSE_DB": str(db)}).exit_code == 0
    for width in ("80", "120"):
        out = diagnose("history", "--db", db, env={"COLUMNS": width}).stdout
        assert "\ue000" not in out and "expected_physics" in out and "predict" in out, out
        assert max(len(line) for line in out.splitlines()) <= int(width)


def _damaged_store(tmp_path) -> Path:
    """Five real node reports saved, then pages 3-5 overwritten (ut9b's damage)."""
    path = tmp_path / "runs.db"
    db = store.open_db(path)
    samples = sorted((Path(__file__).parent.parent / "samples" / "fleet").glob("*.json"))[:5]
    for sample in samples:  # real node reports: the rows span many pages, the damage hits some of them
        store.save(Report.from_dict(json.loads(sample.read_text())), db=db)
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.conn.close()
    with open(path, "r+b") as f:
        f.seek(8192)
        f.write(b"\x07" * 12288)
    return path


@pytest.mark.parametrize("args", [
    ["node", "--replay", "tests/recordings/dgx-h100-topo-numa.json", "--json"],
    ["capture", "samples/captures/tp4_nvlink_healthy.sqlite", "--json"],
])
def test_a_damaged_store_costs_the_save_not_the_report(tmp_path, monkeypatch, args):
    """ut10b #2: with $DIAGNOSE_DB on a damaged store, `node` and `capture` printed nothing and
    wrote no -o (exit 2), so one bad store silenced a fleet's node runs. The report is written
    first; then one stderr line says the save failed, exit 3; the store is left as it was."""
    from conftest import REPO, diagnose

    path = _damaged_store(tmp_path)
    before = path.read_bytes()
    out = tmp_path / "n.json"
    result = diagnose(*[str(REPO / a) if a.startswith(("tests/", "samples/")) else a for a in args], "-o", out,
                      env={"DIAGNOSE_DB": str(path)})
    assert result.exit_code == 3, (result.exit_code, result.stderr)
    assert json.loads(out.read_text())["schema"] == "diagnose.report/1" and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"diagnose: the report was written to {out} but not saved: ") and "damaged" in line
    assert path.read_bytes() == before


def test_a_damaged_store_gets_one_verdict_from_every_reader(tmp_path):
    """ut9b: five runs, pages 3-5 overwritten. `history` listed what it could still reach (exit 0) while
    compare and fleet refused (exit 2, saying 'nothing was written' though they only read): every reader
    now refuses with the same line, and none claims a write it never attempted."""
    path = _damaged_store(tmp_path)
    before = path.read_bytes()
    lines = set()
    for args in (["history"], ["history", "--json"], ["fleet"], ["compare", "1", "2"]):
        result = CliRunner().invoke(cli, [*args, "--db", str(path)])
        assert result.exit_code == 2, (args, result.output)
        (line,) = result.stderr.strip().splitlines()
        assert "the results database is damaged" in line and "nothing was written" not in line
        lines.add(line)
    assert len(lines) == 1 and path.read_bytes() == before
