"""Our nsys-stats summaries against `nsys stats` 2022.4 output on every real capture."""

import csv
import shutil
import sqlite3

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


@pytest.mark.parametrize("stem", CAPTURES)
def test_memop_summaries_by_time_and_size_equal_plain_sql(stem):
    """Both memory-operation summaries come from one pass per table; each equals a plain SQL read
    of that value (count, total, min, max, and the median of the sorted values), with and
    without medians."""
    from diagnose.capture.reader import COPY_OPERATION_NAMES

    path = shared_path("captures", f"{stem}.sqlite")
    with open_capture(path) as cap:
        tables = [t for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET") if cap.has(t)]
        want = {}
        for t in tables:
            kind = "copyKind" if t.endswith("MEMCPY") else "-1"
            for k, d, b in cap.query(f'SELECT {kind}, "end" - start, bytes FROM {t} WHERE "end" IS NOT NULL'):
                name = "[CUDA memset]" if k == -1 else COPY_OPERATION_NAMES.get(k, "[CUDA memcpy Unknown]")
                pair = want.setdefault(name, ([], []))
                pair[0].append(d)
                pair[1].append(b)
        for medians in (True, False):
            by_value = (S.memop_time_summary(cap, medians=medians), S.memop_size_summary(cap, medians=medians))
            for i, rows in enumerate(by_value):
                assert {r.name for r in rows} == set(want)
                for r in rows:
                    values = sorted(want[r.name][i])
                    n = len(values)
                    assert (r.count, r.total, r.min, r.max) == (n, sum(values), values[0], values[-1]), (r.name, i)
                    assert r.med == ((values[(n - 1) // 2] + values[n // 2]) / 2 if medians else None), (r.name, i)


def test_api_display_name_follows_nsys_2022_4():
    assert S.api_display_name("cudaLaunchKernel_v7000") == "cudaLaunchKernel"
    assert S.api_display_name("cudaStreamIsCapturing_v10000") == "cudaStreamIsCapturing_v10000"
    assert S.api_base_name("cudaGetDeviceProperties_v2_v12000") == "cudaGetDeviceProperties"


def _nvtx_by_sql(path, text_factory=str):
    """nvtx_sum's groups by plain SQL, nsys's own way (a join to the domain rows and StringIds, then
    GROUP BY the name), and each group's durations, for the medians."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.text_factory = text_factory
    rows = db.execute("""
        WITH dom AS (SELECT domainId AS id, (globalTid >> 24) & 16777215 AS pid, text AS name, min(start)
                     FROM NVTX_EVENTS WHERE eventType = 75 GROUP BY 1, 2),
             m AS (SELECT max(max(start), max(coalesce("end", 0))) AS t FROM NVTX_EVENTS)
        SELECT CASE WHEN dom.name IS NOT NULL THEN dom.name || ':' || coalesce(s.value, n.text)
                    ELSE coalesce(s.value, n.text) END,
               CASE WHEN n.eventType IN (59, 70) THEN 'PushPop' ELSE 'StartEnd' END,
               coalesce(n."end", (SELECT t FROM m)) - n.start
        FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
        LEFT JOIN dom ON dom.id = n.domainId AND dom.pid = (n.globalTid >> 24) & 16777215
        WHERE n.eventType IN (59, 60, 70, 71)""").fetchall()
    db.close()
    groups = {}
    for name, style, d in rows:
        groups.setdefault((name or "", style), []).append(d)
    return groups


def _check_nvtx(path):
    want = _nvtx_by_sql(path)
    with open_capture(path) as cap:
        got = {(r.name, r.extra["style"]): r for r in S.nvtx_summary(cap)}
    assert set(got) == set(want)
    for key, values in want.items():
        values.sort()
        r, n = got[key], len(values)
        assert (r.count, r.total, r.min, r.max) == (n, sum(values), values[0], values[-1]), key
        assert r.med == (values[(n - 1) // 2] + values[n // 2]) / 2, key


def test_nvtx_groups_equal_plain_sql_across_chunks_and_threads(monkeypatch):
    """The chunked NVTX read gives nsys's groups whatever the chunk size and however many threads
    read the table's rowid ranges (ranges of one name in many chunks and parts; domain names, text
    ids and an unended range in the 2023 TensorRT export)."""
    from diagnose.capture import nvtx

    threads = []
    real = nvtx._threads
    monkeypatch.setattr(nvtx, "_threads", lambda cap, bounds, *a: threads.append(len(bounds)) or real(cap, bounds, *a))
    for name in ("nsysai_h100x2_fastvideo_train_before", "memfusion_rtx3090x4_trt_2023_1"):
        _check_nvtx(shared_path("captures", f"{name}.sqlite"))
        for cpus in (1, 2, 7):
            monkeypatch.setattr(nvtx, "CHUNK", 97)
            monkeypatch.setattr(nvtx, "cores", lambda cpus=cpus: cpus)
            _check_nvtx(shared_path("captures", f"{name}.sqlite"))
    assert 7 in threads and 2 in threads  # both exports were read in parts on threads


def test_nvtx_odd_texts_and_ids_read_as_plain_sql_says(tmp_path, monkeypatch):
    """Texts holding the chunk's separator are read row by row for their chunk; texts that start
    below char(29) (which a row's key could confuse with a domain's) take the long key; domain
    ids beyond 31 bits and a domain created with id 0 (its ranges then need their process, so the
    table is read again with long keys) name their ranges as plain SQL does."""
    from diagnose.capture import nvtx

    slow, full = [], []  # chunks read row by row; the keys of each read (False: short)
    real, read = nvtx._Part._slow_keys, nvtx._Reader.read
    monkeypatch.setattr(nvtx._Part, "_slow_keys", lambda self, lo, hi: slow.append(lo) or real(self, lo, hi))
    monkeypatch.setattr(nvtx._Reader, "read", lambda self, full=False, seen=full: seen.append(full) or read(self, full))
    path, db = _texts_set(tmp_path, "memfusion_rtx3090x4_trt_2023_1", {"'a\x1eb'": "LIMIT 3",
                                                                       "'\x1c1\x1c2\x1c\x1dx'": "DESC LIMIT 2"})
    db.execute("UPDATE NVTX_EVENTS SET domainId = 0 WHERE text = '\x1c1\x1c2\x1c\x1dx'")
    db.execute("UPDATE NVTX_EVENTS SET domainId = 1 << 40 WHERE domainId IS NOT NULL AND domainId != 0")
    db.commit()
    _check_nvtx(path)
    with open_capture(path) as cap:
        names = {r.name for r in S.nvtx_summary(cap)}
    assert "TensorRT:a\x1eb" in names and "\x1c1\x1c2\x1c\x1dx" in names and slow and full == [False, False]
    db.execute("UPDATE NVTX_EVENTS SET domainId = 0 WHERE domainId = 1 << 40")
    db.commit()
    db.close()
    _check_nvtx(path)
    assert full[-2:] == [False, True]


def _texts_set(tmp_path, name: str, texts: dict):
    """A writable copy of a shared export whose first or last push/pop ranges get other texts
    ({SQL text: 'LIMIT n' from the first, 'DESC LIMIT n' from the last}), and its connection."""
    path = tmp_path / f"{name}.sqlite"
    shutil.copy(shared_path("captures", f"{name}.sqlite"), path)
    path.chmod(0o644)
    db = sqlite3.connect(path)
    for text, which in texts.items():
        db.execute(f"UPDATE NVTX_EVENTS SET text = {text}, textId = NULL WHERE rowid IN (SELECT rowid FROM "
                   f"NVTX_EVENTS WHERE eventType = 59 ORDER BY rowid {which})")
    db.commit()
    return path, db


def test_nvtx_texts_beyond_ascii_and_invalid_utf8_read_as_plain_sql_says(tmp_path):
    """Keys are read as bytes and each distinct key decoded once: multi-byte UTF-8 texts keep their
    characters, and bytes that are not UTF-8 become U+FFFD as the reader decodes every text column,
    grouped as plain SQL groups the raw texts."""
    path, db = _texts_set(tmp_path, "nsysai_h100x2_fastvideo_train_before", {
        "'Aufmerksamkeit \u6ce8\u610f\u529b'": "LIMIT 5", "CAST(x'636166e9' AS TEXT)": "DESC LIMIT 4"})
    db.close()
    want = _nvtx_by_sql(path, text_factory=lambda b: b.decode("utf-8", "replace"))
    with open_capture(path) as cap:
        got = {(r.name, r.extra["style"]): (r.count, r.total) for r in S.nvtx_summary(cap)}
    assert got == {k: (len(v), sum(v)) for k, v in want.items()}
    assert got[("Aufmerksamkeit \u6ce8\u610f\u529b", "PushPop")][0] == 5 and got[("caf\ufffd", "PushPop")][0] == 4


def test_grouped_values_with_values_that_do_not_pack():
    """Negative (damaged) and days-long values are kept apart and sorted with the rest: the same
    statistics as computed the obvious way."""
    import statistics

    import numpy as np

    from diagnose.capture.grouped import GroupedValues, chunk_groups

    rows = [("a", 5), ("b", -3), ("a", 1 << 45), ("a", 7), ("b", 2), ("c", 4)]
    fits = [("a", 5), ("a", 7), ("b", 2), ("c", 4), ("b", 9)]

    def stats(rows, reserved):  # `reserved`: the rows announced (fewer: the chunks spill over)
        g = GroupedValues(reserved)
        for part in (rows[:3], rows[3:]):  # two chunks
            keys, inverse = chunk_groups(np.array([ord(k) for k, _ in part]))
            g.add([chr(k) for k in keys], inverse, np.array([v for _, v in part], dtype=np.int64))
        return {key: rest for key, *rest in g.stats()}

    assert stats(fits, None) == stats(fits, 2) == stats(fits, 100)
    got = stats(rows, None)
    for key in "abc":
        v = sorted(x for k, x in rows if k == key)
        sd = statistics.stdev(v) if len(v) > 1 else 0.0
        total, n, mean, med, low, high, std = got[key]
        assert (total, n, low, high, med) == (sum(v), len(v), v[0], v[-1], statistics.median(v)), key
        assert mean == pytest.approx(sum(v) / len(v)) and std == pytest.approx(sd), key


def test_grouped_values_joined_from_regions_equal_one_reader():
    """Parts of a table read on several threads fill regions of one buffer (or, past their region,
    arrays of their own) and are joined under the merged codes: the same statistics as one reader."""
    import numpy as np

    from diagnose.capture.grouped import GroupedValues

    rows = [("a", 5), ("b", 2), ("a", 7), ("c", 4), ("b", 9), ("a", 1), ("c", 3), ("b", 2)]
    one = GroupedValues(len(rows))
    one.codes = {k: i for i, k in enumerate("abc")}
    one.add_codes(np.array(["abc".index(k) for k, _ in rows]), np.array([v for _, v in rows]))
    want = one.stats()
    for cut, room in ((3, 5), (3, 3), (6, 2)):  # room < rows of the first part: it outgrows its region
        shared = GroupedValues(12)
        parts, luts = [shared.region(0, room), shared.region(room, 12)], []
        for part, chunk in zip(parts, (rows[:cut], rows[cut:])):
            local = list(dict.fromkeys(k for k, _ in chunk))  # each part numbers the keys it meets
            part.add_codes(np.array([local.index(k) for k, _ in chunk]), np.array([v for _, v in chunk]))
            luts.append(np.array(["abc".index(k) for k in local]))
        shared.join(parts, luts)
        assert (shared._buf is not None) == (room >= cut), "one buffer unless a part outgrew its region"
        shared.codes = {k: i for i, k in enumerate("abc")}
        assert shared.stats() == want, (cut, room)


def test_a_table_rounds_its_columns_as_round1_rounds_each_value():
    """summary_table rounds whole columns in numpy: the same floats as round1 one value at a time,
    on halves (away from zero), negatives, large values and a column holding a None."""
    import random

    rng = random.Random(13)
    values = [rng.choice([rng.uniform(-1e6, 1e6), rng.randint(-10**6, 10**6) / 20, rng.uniform(0, 1e15),
                          rng.randint(0, 10**15) + 0.05, 0.0, -0.0]) for _ in range(20_000)]
    assert S.round1_all(values) == [S.round1(x) for x in values]
    assert [str(x) for x in S.round1_all(values)] == [str(S.round1(x)) for x in values]  # -0.0 too
    assert S.round1_all([1.25, None, -1.25]) == [1.3, None, -1.3]
