"""The capture reader on real exports of many nsys versions, and on bad input."""

import hashlib
import os
import shutil
import sqlite3

import pytest
from conftest import SHARED, shared_path

from diagnose.capture.reader import open_capture, pid_of, tid_of, vm_of
from diagnose.errors import InputError

CAPTURES = sorted(p.name for p in (SHARED / "captures").glob("*.sqlite")) or ["(shared captures absent)"]


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", CAPTURES)
def test_every_capture_opens_read_only_and_is_left_unchanged(name):
    """The shared folder is read-only: opening works there, and the bytes never change."""
    path = shared_path("captures", name)
    before = (_digest(path), path.stat().st_mtime_ns)
    from diagnose.capture.facts import analyse

    analyse([str(path)])
    assert (_digest(path), path.stat().st_mtime_ns) == before
    assert not any(p.name.startswith(name + "-") for p in path.parent.iterdir())  # no -journal / -wal


def test_schema_versions_and_metadata_tables():
    """EXPORT_META_DATA (<= 3.1.7), META_DATA_EXPORT (>= 3.4.0), none (2021)."""
    with open_capture(shared_path("captures", "dlprof_rtx2070_pytorch_nvtx_2022_1.sqlite")) as cap:
        assert cap.has("EXPORT_META_DATA") and cap.schema_version == "2.9.1"
    with open_capture(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")) as cap:
        assert cap.has("META_DATA_EXPORT") and cap.product_version.startswith("2026.2")
    with open_capture(shared_path("captures", "cardiac_rtx3060_2021_notables.sqlite")) as cap:
        assert cap.meta == {} and cap.schema_version is None
        missing = " ".join(cap.missing())
        assert "CUPTI_ACTIVITY_KIND_KERNEL" in missing and "CUPTI_ACTIVITY_KIND_RUNTIME" in missing


def test_non_utf8_text_is_read():
    """TARGET_INFO_SYSTEM_ENV of 2021/2022 exports holds bytes Python's default decoder rejects."""
    path = shared_path("captures", "rodinia_gaussian_rtx3090_2022_4.sqlite")
    raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError):
        raw.execute("SELECT value FROM TARGET_INFO_SYSTEM_ENV").fetchall()
    raw.close()
    with open_capture(path) as cap:
        env = cap.system_env()
    assert len(env) > 10 and any("\ufffd" in v for v in env.values())


def test_global_id_decoding():
    gpid = (1 << 48) + (111 << 24)
    assert (vm_of(gpid), pid_of(gpid), tid_of(gpid)) == (1, 111, 0)
    gtid = gpid + 4242
    assert (pid_of(gtid), tid_of(gtid)) == (111, 4242)


def test_target_info_gpu_lists_unused_gpus():
    """An 8-GPU node, all kernels on one device: 8 listed, 1 used."""
    with open_capture(shared_path("captures", "fuser_h100x8node_matmul_2024_6.sqlite")) as cap:
        gpus = cap.gpus()
        assert len(gpus) == 8
        assert [g.id for g in gpus if g.used] == [0]
        assert all("H100" in g.name for g in gpus)


def test_device_map_from_target_info_cuda_device():
    """2025.1+ maps (pid, CUDA ordinal) to TARGET_INFO_GPU.id; older exports have no such table."""
    with open_capture(shared_path("captures", "fuser_h200_crossentropy_2025_1.sqlite")) as cap:
        mapping = cap.device_map()
        used = cap.used_devices()
        assert mapping and all(key in mapping for key in used)
        assert cap.gpu_label(*used[0]).startswith("GPU 0 (NVIDIA H200")
    with open_capture(shared_path("captures", "rodinia_gaussian_rtx3090_2022_4.sqlite")) as cap:
        assert cap.device_map() == {}
        assert [g.cu_device for g in cap.gpus() if g.used] == [0]


def test_several_processes_in_one_file():
    with open_capture(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")) as cap:
        used = cap.used_devices()
        assert len({pid for pid, _ in used}) == 2 and sorted(d for _, d in used) == [0, 1]
        assert cap.gpus() == []  # trimmed fixture: no TARGET_INFO_GPU
        assert any("TARGET_INFO_GPU" in m for m in cap.missing())


# ----------------------------------------------------------------------------- bad input


def _error(path):
    with pytest.raises(InputError) as info:
        open_capture(path)
    text = str(info.value)
    assert "\n" not in text
    return text


def test_missing_and_directory(tmp_path):
    assert "no such file" in _error(tmp_path / "nope.sqlite")
    assert "directory" in _error(tmp_path)


def test_zero_byte_file(tmp_path):
    p = tmp_path / "empty.sqlite"
    p.write_bytes(b"")
    assert "empty" in _error(p)


def test_not_sqlite(tmp_path):
    p = tmp_path / "report.nsys-rep"
    p.write_bytes(b"\x00QDSTRM" + os.urandom(200))
    assert "not an SQLite file" in _error(p) and "nsys export" in _error(p)


def test_truncated_capture(tmp_path):
    src = shared_path("captures", "gameoflife_a100_2022_1.sqlite")
    p = tmp_path / "cut.sqlite"
    p.write_bytes(src.read_bytes()[: src.stat().st_size // 3])
    assert "truncated" in _error(p)
    q = tmp_path / "tiny.sqlite"
    q.write_bytes(src.read_bytes()[:40])
    assert "truncated" in _error(q)


def test_sqlite_that_is_not_an_nsys_export(tmp_path):
    p = tmp_path / "other.sqlite"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE results (name TEXT, value REAL)")
    con.commit()
    con.close()
    assert "not an Nsight Systems export" in _error(p)


def test_locked_capture(tmp_path):
    """Another process holds an exclusive lock (nsys still writing): one line, no hang."""
    p = tmp_path / "locked.sqlite"
    shutil.copy(shared_path("captures", "gameoflife_a100_2022_1.sqlite"), p)
    holder = sqlite3.connect(p, isolation_level=None)
    holder.execute("PRAGMA journal_mode = DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert "locked" in _error(p)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_capture(tmp_path):
    p = tmp_path / "secret.sqlite"
    shutil.copy(shared_path("captures", "gameoflife_a100_2022_1.sqlite"), p)
    p.chmod(0)
    assert "permission denied" in _error(p)


def test_launch_line_and_nccl_environment_from_capture_metadata():
    """META_DATA_CAPTURE records the profiled command and its environment (2023.3+)."""
    from conftest import REPO

    from diagnose.capture.facts import launch_records
    from diagnose.evidence import NcclSetting, Workload

    with open_capture(REPO / "samples" / "captures" / "tp8_pcie_fallback.sqlite") as cap:
        records = launch_records(cap)
    (w,) = [r for r in records if isinstance(r, Workload)]
    assert (w.tp, w.framework, w.model) == (8, "vLLM", "meta-llama/Meta-Llama-3-70B-Instruct")
    assert ("NCCL_P2P_DISABLE", "1") in [(s.name, s.value) for s in records if isinstance(s, NcclSetting)]
    assert w.source.startswith("capture:tp8_pcie_fallback.sqlite META_DATA_CAPTURE")


def test_launch_text_keeps_no_other_environment():
    """Real captures hold the whole environment (tokens, keys): only NCCL/CUDA device names pass."""
    with open_capture(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite")) as cap:
        env_rows = cap.query("SELECT count(*) FROM META_DATA_CAPTURE WHERE name LIKE '%ENVIRONMENT%'").fetchone()[0]
        text = cap.launch_text()
    assert env_rows > 10 and text.startswith("NCCL_VERSION=")
    assignments = [t for t in text.split() if "=" in t and t.split("=")[0].isupper()]
    assert assignments and all(t.startswith(("NCCL_", "TORCH_NCCL_", "CUDA_VISIBLE_DEVICES=", "VLLM_"))
                               for t in assignments)


def test_columns_missing_in_other_versions_are_tolerated(tmp_path):
    """Columns are resolved by name: a copy without some of them (as other nsys versions write)
    still analyses, with the missing facts left empty."""
    import json

    from click.testing import CliRunner

    from diagnose.cli import cli

    path = tmp_path / "trimmed.sqlite"
    shutil.copy(shared_path("captures", "dlprof_rtx2070_pytorch_nvtx_2022_1.sqlite"), path)
    db = sqlite3.connect(path)
    for table, column in (("NVTX_EVENTS", "textId"), ("NVTX_EVENTS", "domainId"),
                          ("CUPTI_ACTIVITY_KIND_KERNEL", "graphNodeId"), ("CUPTI_ACTIVITY_KIND_KERNEL", "shortName"),
                          ("CUPTI_ACTIVITY_KIND_MEMCPY", "srcKind"), ("TARGET_INFO_GPU", "cuDevice")):
        db.execute(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
    db.commit()
    db.close()
    result = CliRunner().invoke(cli, ["capture", str(path), "--json", "--stats", "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    summaries = report["facts"]["summaries"]["trimmed.sqlite"]
    assert sum(k["count"] for k in summaries["kernels"]) == 46
    assert sum(r["count"] for r in summaries["nvtx"]) > 0
    (gpu,) = report["facts"]["gpu_timeline"]
    assert gpu["kernels"] == 46 and gpu["graph_kernels"] == 0
