"""nccl.busbw_collapse: busbw that falls to under half of a smaller size's within one sweep and never
recovers (ut10b #7: nccl#1453's 29.5 GB/s at 32 MB, ~5 GB/s from 64 MB to 512 MB, was 'insufficient
data, attach topo -m'). The real healthy sweeps of tests/data/collectives, written out as nccl-tests
rows, are the negations: none may fire; nor may a one-size dip that recovers, or two runs pasted
one after the other."""

import csv
from pathlib import Path

import pytest
from conftest import report_json

DATA = Path(__file__).parent / "data"
TAGGED = DATA / "issues" / "nccl-1453-mpirun-rank-tagged-rows.txt"


def _collapse(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    report = report_json("ticket", tmp_path / name)
    return [f for f in report["findings"] if f["rule"] == "nccl.busbw_collapse"], report


def _row(size, time_us, busbw, algbw=None):
    """One all_reduce_perf float row, out-of-place and in-place alike (algbw = size / time)."""
    algbw = algbw if algbw is not None else size / time_us / 1e3
    half = f"{time_us:10.1f} {algbw:7.2f} {busbw:7.2f}      0"
    return f"{size:14d} {size // 4:13d}     float     sum      -1 {half} {half}"


@pytest.mark.parametrize("name, text", [
    ("tagged.txt", TAGGED.read_text()),  # as posted in the thread, launcher tags and all
    ("plain.txt", TAGGED.read_text().replace("[0]", " ")),  # the same rows without them
])
def test_the_nccl_1453_sweep_is_a_collapse(tmp_path, name, text):
    (f,), report = _collapse(tmp_path, name, text)
    assert f["severity"] == "warning" and report["verdict"]["category"] != "insufficient_data"
    assert f["title"] == "all_reduce busbw falls 5.6x from 32 MiB to 64 MiB and stays down"
    assert [e["measured"] for e in f["evidence"]] == [29.5, 5.27] and "(4 sizes)" in f["summary"]


def _healthy_sweeps():
    for path in sorted((DATA / "collectives").glob("nccltests-*.csv")):
        rows = [r for r in csv.reader(line for line in path.open() if not line.startswith("#"))][1:]
        rows = [(int(r[5]), float(r[6]), float(r[7])) for r in rows if len(r) >= 8 and r[6] and r[7]]
        if len(rows) >= 8:
            yield path.name, rows


@pytest.mark.parametrize("name, rows", list(_healthy_sweeps()), ids=lambda x: x if isinstance(x, str) else "")
def test_no_real_healthy_sweep_is_called_a_collapse(tmp_path, name, rows):
    text = "\n".join(_row(size, t, bw) for size, t, bw in sorted(rows))
    found, report = _collapse(tmp_path, "sweep.txt", text)
    assert len(report["facts"]["collective_result"]) == 2 * len(rows)  # every row read, both columns
    assert found == [], name


def test_a_dip_that_recovers_and_two_runs_pasted_in_a_row_are_no_collapse(tmp_path):
    sizes = [1 << k for k in range(20, 30)]
    dip = [_row(s, 100.0, 5.0 if s == 1 << 26 else 20.0 + k) for k, s in enumerate(sizes)]
    assert _collapse(tmp_path, "dip.txt", "\n".join(dip))[0] == []
    stays = [_row(s, 100.0, 5.0 if s >= 1 << 26 else 20.0 + k) for k, s in enumerate(sizes)]
    assert len(_collapse(tmp_path, "stays.txt", "\n".join(stays))[0]) == 1  # the same dip, never recovering
    fast = [_row(s, 100.0, 20.0 + k) for k, s in enumerate(sizes)]
    slow = [_row(s, 100.0, 4.0 + k / 10) for k, s in enumerate(sizes)]  # a second, slower run after the first
    assert _collapse(tmp_path, "two.txt", "\n".join(fast + slow))[0] == []
