"""The fast read paths of the capture analysis give the same numbers as the obvious ones.

The default report reads the kernel table once in rowid order (group_concat chunks), merges the
activity tables by start, and aggregates CUDA API calls by upsert; `--stats` and the checks here
use plain GROUP BYs and SQLite's sort. Real captures, and copies of them rewritten out of start
order, with sparse rowids, or with odd values, must agree.
"""

import csv
import re
import shutil
import sqlite3
from dataclasses import asdict

import pytest
from conftest import SHARED, shared_path

from diagnose.capture import kernels as K
from diagnose.capture import summaries as S
from diagnose.capture import timeline as T
from diagnose.capture.facts import analyse
from diagnose.capture.reader import KERNEL, MEMCPY, MEMSET, open_capture
from diagnose.errors import InputError

CAPTURES = sorted(p.stem for p in (SHARED / "captures").glob("*.sqlite")) or ["(shared captures absent)"]
REPORTS = {"gpukernsum": ("kernels", "Instances", "Name"), "cudaapisum": ("cuda_api", "Num Calls", "Name"),
           "nvtxsum": ("nvtx", "Instances", "Range")}
BUSY = "nsysai_h100x2_fastvideo_train_before"  # 2 GPUs, 4010 kernels, 1020 copies, 269 memsets


def _key(key, row):
    if key == "kernels":
        return (row.name, row.extra["grid"], row.extra["block"])
    return (row.name, row.extra.get("style"))


@pytest.mark.parametrize("stem", CAPTURES)
@pytest.mark.parametrize("suffix", sorted(REPORTS))
def test_quick_summaries_match_nsys_stats(stem, suffix):
    """Counts, totals, min and max without medians (the default report) equal nsys stats."""
    key, count_col, name_col = REPORTS[suffix]
    path = shared_path("captures", "nsys-stats-2022.4", f"{stem}_{suffix}.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        expected = list(csv.DictReader(fh))
    with open_capture(shared_path("captures", f"{stem}.sqlite")) as cap:
        got = {_key(key, r): r for r in S.SUMMARIES[key][1](cap, medians=False)}
    want = {}
    for e in expected:
        name = e[name_col]
        want[(name, e.get("GridXYZ"), e.get("BlockXYZ")) if key == "kernels" else (name, e.get("Style"))] = e
    assert set(got) == set(want)
    for k, e in want.items():
        r = got[k]
        assert (r.count, r.total, r.min, r.max) == (int(e[count_col]), int(e["Total Time (ns)"]),
                                                    int(e["Min (ns)"]), int(e["Max (ns)"])), k
        assert r.med is None and r.stddev is None


def _rewrite(src, dst, order_by="rowid", rowid="rowid"):
    """Copy `src` with the activity tables' rows re-inserted in another order / under other rowids."""
    shutil.copy(src, dst)
    dst.chmod(0o644)
    db = sqlite3.connect(dst)
    for table in (KERNEL, MEMCPY, MEMSET):
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
            continue
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
        names = ", ".join(f'"{c}"' for c in cols)
        db.execute(f"CREATE TEMP TABLE t AS SELECT {rowid} AS r, {names} FROM {table} ORDER BY {order_by}")
        db.execute(f"DELETE FROM {table}")
        db.execute(f"INSERT INTO {table} (rowid, {names}) SELECT r, {names} FROM temp.t ORDER BY r")
        db.execute("DROP TABLE temp.t")
    db.commit()
    db.close()
    return dst


def _everything(path):
    with open_capture(path) as cap:
        acts = [asdict(a) for a in T.gpu_activity(cap)]
        groups = K.kernel_groups(cap)
        kernels = [(r.name, r.extra["grid"], r.extra["block"], r.count, r.total, r.min, r.max)
                   for r in S.kernel_summary(cap, medians=False)]
        return acts, groups.comm_rows(), kernels


def test_out_of_order_tables_are_sorted_by_sqlite_with_the_same_result(tmp_path):
    src = shared_path("captures", f"{BUSY}.sqlite")
    shuffled = _rewrite(src, tmp_path / "reversed.sqlite", order_by="start DESC", rowid="-rowid")
    with open_capture(shuffled) as cap:
        with pytest.raises(T._Unordered):
            for _ in T._merge(T._sources(cap, K.KernelGroups())):
                pass
    assert _everything(shuffled) == _everything(src)
    acts, comm, kernels = _everything(src)
    assert len(acts) == 2 and comm and sum(k[3] for k in kernels) == 4010


def test_sparse_rowids_read_every_row(tmp_path):
    src = shared_path("captures", f"{BUSY}.sqlite")
    sparse = _rewrite(src, tmp_path / "sparse.sqlite", rowid="rowid * 1000003")
    with open_capture(sparse) as cap:
        assert sum(len(c[0]) for c in cap.chunks(KERNEL, ["start"])) == 4010
    assert _everything(sparse) == _everything(src)


def test_the_default_report_equals_the_sorted_reads_on_a_multi_gpu_capture():
    """Per-GPU numbers from the merged rowid-order read equal SQLite's sorted read."""
    with open_capture(shared_path("captures", f"{BUSY}.sqlite")) as cap:
        fast = [asdict(a) for a in T.gpu_activity(cap)]
        walker = T._walk(T._sorted_by_sqlite(cap))
        assert fast == [asdict(a) for a in walker.result()]
        quick = S.api_summary(cap, medians=False)
        full = S.api_summary(cap, medians=True)
        assert [(r.name, r.count, r.total, r.min, r.max) for r in quick] == [
            (r.name, r.count, r.total, r.min, r.max) for r in full]


def test_a_real_value_is_read_as_an_integer_and_text_is_a_damaged_file(tmp_path):
    src = shared_path("captures", "rodinia_gaussian_rtx3090_2022_4.sqlite")
    base = _everything(src)
    for label, value in (("real", "start + 0.5"), ("text", "'abc'")):
        path = tmp_path / f"{label}.sqlite"
        shutil.copy(src, path)
        path.chmod(0o644)
        with sqlite3.connect(path) as db:
            db.execute(f"UPDATE {KERNEL} SET start = {value} WHERE rowid = 10")
        if label == "real":
            assert _everything(path) == base  # that chunk is read again with CASTs: truncated, as a cursor would
        else:
            with pytest.raises(InputError, match="damaged SQLite file"):
                analyse([str(path)])


def _slow_base(name):
    """The parameter list cut at depth 0, character by character (classify._base before its fast path)."""
    text = (name or "").strip()
    text = text[5:] if text.startswith("void ") else text
    depth = 0
    for i, ch in enumerate(text):
        depth = depth + 1 if ch == "<" else max(0, depth - 1) if ch == ">" else depth
        if ch == "(" and depth == 0:
            return text[:i]
    return text


def test_lowered_patterns_classify_every_real_kernel_name_as_the_case_blind_ones():
    """classify searches lower-cased names with lower-cased patterns (4x faster); on every kernel
    name of every shared capture it must agree with the same patterns searched case-blind."""
    from diagnose.capture import classify as C

    blind = [(re.compile(p.pattern, re.IGNORECASE), cls) for p, cls in
             ((C._COMM, C.COMM), (C._ATTENTION, C.ATTENTION), (C._NOT_GEMM, C.NORM), (C._GEMM, C.GEMM),
              (C._NORM, C.NORM))]
    names = set()
    for path in sorted((SHARED / "captures").glob("*.sqlite")):
        db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        if db.execute(f"SELECT 1 FROM sqlite_master WHERE name = '{KERNEL}'").fetchone():
            for col in ("demangledName", "shortName"):
                names.update(v for (v,) in db.execute(
                    f"SELECT DISTINCT s.value FROM {KERNEL} k JOIN StringIds s ON s.id = k.{col}"))
        db.close()
    if not names:
        pytest.skip("shared captures absent")
    classes = set()
    for name in names:
        base = _slow_base(name)
        assert C._base(name) == base, name
        want = next((cls for p, cls in blind if p.search(base)), C.OTHER)
        assert C.classify(name) == want, name
        classes.add(want)
    assert {C.GEMM, C.COMM, C.NORM} <= classes  # the real names exercise the patterns


def _latency_both_ways(path):
    """queue_delays from the samples the kernel and API reads took, and from the SQL join."""
    with open_capture(path) as cap:
        T.gpu_activity(cap, values=True)
        S.api_stats(cap)
        sampled = T.queue_delays(cap)
        took = T.launches.from_reads(cap, cap.cache["kernel_groups"].launch_sample, cap.cache["launch_sample_calls"])
        for key in ("queue_delays", "kernel_groups", "launch_sample_calls"):
            cap.cache.pop(key)
        return sampled, took is not None, T.queue_delays(cap)


@pytest.mark.parametrize("stem", CAPTURES)
def test_launch_latency_sampled_by_the_reads_equals_the_join(stem):
    """The launch-latency sample the kernel and API reads take (--stats) matches the same
    (kernel, call) pairs as the join of the two tables in SQLite."""
    sampled, from_reads, joined = _latency_both_ways(shared_path("captures", f"{stem}.sqlite"))
    assert sampled == joined
    assert from_reads or not joined


def test_launch_latency_of_a_capture_with_many_kernels_and_sparse_rowids(tmp_path, monkeypatch):
    """A stride above 1 samples the same launches both ways; where the rowid span is not the
    kernel count (rows deleted or rewritten), the reads' stride is not the join's: the join runs."""
    src = shared_path("captures", f"{BUSY}.sqlite")
    monkeypatch.setattr(T.launches, "SAMPLE", 500)  # 4010 kernels: every 8th correlationId
    sampled, from_reads, joined = _latency_both_ways(src)
    assert from_reads and sampled == joined and 200 < sum(map(len, joined.values())) < 4010 // 8 * 2
    sparse = _rewrite(src, tmp_path / "sparse.sqlite", rowid="rowid * 3")
    sampled, from_reads, joined = _latency_both_ways(sparse)
    assert not from_reads and sampled == joined and joined


def _pattern_both_ways(path):
    """Each GPU's pattern steps from the kernels the walk kept, and from a read of their own."""
    from diagnose.capture import steps

    with open_capture(path) as cap:
        acts = T.gpu_activity(cap)
        groups = K.kernel_groups(cap)
        return [(steps.pattern_steps(cap, a.pid, a.device, sequence=groups.sequence(a.pid, a.device)),
                 steps.pattern_steps(cap, a.pid, a.device)) for a in acts]


@pytest.mark.parametrize("stem", CAPTURES)
def test_pattern_steps_from_the_kernels_the_walk_kept_equal_a_read_of_their_own(stem):
    for kept, read in _pattern_both_ways(shared_path("captures", f"{stem}.sqlite")):
        assert kept == read


def test_pattern_steps_kept_up_to_the_same_number_of_kernels_per_gpu(monkeypatch):
    """Cut at a few hundred kernels per GPU (a million in use), both ways keep the same first ones."""
    from diagnose.capture import steps

    monkeypatch.setattr(K, "SEQUENCE_KEPT", 700)
    monkeypatch.setattr(steps, "MAX_SEQUENCE", 700)
    pairs = _pattern_both_ways(shared_path("captures", f"{BUSY}.sqlite"))
    assert len(pairs) == 2 and all(kept == read for kept, read in pairs)
    assert any(kept is not None for kept, _ in pairs)


def _copies_both_ways(path):
    """The copies grouped by the memory-operation read of --stats, and by their own GROUP BY."""
    with open_capture(path) as cap:
        S.memop_summaries(cap, True)
        folded = T.copies(cap)
        cap.cache.pop("copies"), cap.cache.pop("copy_groups", None)
        return folded, T.copies(cap)


@pytest.mark.parametrize("stem", CAPTURES)
def test_copies_from_the_memory_operation_read_equal_their_group_by(stem):
    folded, grouped = _copies_both_ways(shared_path("captures", f"{stem}.sqlite"))
    assert [asdict(c) for c in folded] == [asdict(c) for c in grouped]


def test_copies_with_an_undecided_pageable_flag_group_the_same_both_ways(tmp_path):
    """A NULL srcKind leaves SQL's pageable flag NULL: counted in neither side, both ways."""
    dst = shutil.copy(shared_path("captures", f"{BUSY}.sqlite"), tmp_path / "null_src.sqlite")
    db = sqlite3.connect(dst)
    db.execute(f"UPDATE {MEMCPY} SET srcKind = NULL, dstKind = 1 WHERE rowid % 3 = 0")
    db.commit()
    db.close()
    folded, grouped = _copies_both_ways(dst)
    assert [asdict(c) for c in folded] == [asdict(c) for c in grouped]
    assert sum(c.count for c in folded) == 1020
    with open_capture(shared_path("captures", f"{BUSY}.sqlite")) as cap:
        untouched = T.copies(cap)
    # 34 pageable HtoD copies (srcKind 0); the undecided third of them counts as pageable neither way
    assert sum(c.pageable for c in untouched) == 34
    assert 0 < sum(c.pageable for c in folded) < 34


def _blocking_both_ways(path):
    """Each process's sync and synchronous-copy calls as the API read of --stats took them, and as
    their own scan of the API table finds them."""
    with open_capture(path) as cap:
        S.api_stats(cap, T.blocking_sample(cap))
        taken = "api_calls" in cap.cache
        sampled = T._blocking_calls(cap)
        cap.cache.pop("blocking_calls"), cap.cache.pop("api_calls", None)
        return sampled, taken, T._blocking_calls(cap)


@pytest.mark.parametrize("stem", CAPTURES)
def test_blocking_calls_taken_by_the_api_read_equal_their_own_scan(stem):
    """The host-stall check's blocking calls, taken by the one read of the API table that --stats
    makes (names from StringIds, '_vNNNN' suffixes dropped), equal a scan of the table for the
    names the API groups give, in the same (end, start) order."""
    sampled, taken, scanned = _blocking_both_ways(shared_path("captures", f"{stem}.sqlite"))
    assert sampled == scanned
    assert taken or not scanned
