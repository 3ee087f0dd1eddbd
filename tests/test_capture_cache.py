"""The capture analysis cache (diagnose.capture.cache): a re-run with other flags reads the
analysis back and reports exactly what a fresh run reports; any change to the file reads it
again; nothing is written beside the capture; a planted or damaged entry is never trusted."""

import json
import os
import pickle
import shutil

import pytest
from conftest import diagnose, shared_path

from diagnose.capture import facts

SMALL = "gameoflife_a100_2022_1.sqlite"
NVTX = "nsysai_h100x2_fastvideo_train_before.sqlite"


@pytest.fixture
def cached(tmp_path, monkeypatch):
    """The cache on, in a folder of its own; `calls` counts the analyses really run."""
    monkeypatch.setenv("DIAGNOSE_CACHE", "on")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = []
    real = facts.analyse

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(facts, "analyse", counted)
    return calls


def copy_of(name, tmp_path):
    folder = tmp_path / "captures"
    folder.mkdir(exist_ok=True)
    return shutil.copy(shared_path("captures", name), folder / name)


def report(*args) -> dict:
    result = diagnose("capture", *args, "--json", "--fail-on", "never")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def fresh(*args, monkeypatch) -> dict:
    with monkeypatch.context() as m:
        m.setenv("DIAGNOSE_CACHE", "off")
        return report(*args)


@pytest.mark.parametrize("name, flags", [(SMALL, []), (NVTX, ["--stats"])])
def test_a_rerun_with_other_flags_reads_the_analysis_back(name, flags, cached, tmp_path, monkeypatch):
    path = copy_of(name, tmp_path)
    first = report(path, *flags)
    again = report(path, *flags, "--tp", "2", "--batch", "4")
    assert len(cached) == 1  # the second run analysed nothing
    assert first == fresh(path, *flags, monkeypatch=monkeypatch)
    assert again == fresh(path, *flags, "--tp", "2", "--batch", "4", monkeypatch=monkeypatch)
    assert os.listdir(path.parent) == [name]  # nothing beside the capture
    assert len(list((tmp_path / "cache" / "diagnose").glob("*.pickle"))) == 1


def test_what_the_analysis_is_asked_for_is_part_of_the_key(cached, tmp_path):
    path = copy_of(SMALL, tmp_path)
    plain = report(path)
    with_stats = report(path, "--stats")
    assert len(cached) == 2  # medians are another analysis
    assert plain["facts"]["summaries"][SMALL]["kernels"][0]["med"] is None
    assert with_stats["facts"]["summaries"][SMALL]["kernels"][0]["med"] is not None


def test_a_changed_file_is_read_again(cached, tmp_path):
    path = copy_of(SMALL, tmp_path)
    report(path)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    report(path)
    assert len(cached) == 2


def test_a_planted_entry_runs_nothing_and_is_replaced(cached, tmp_path):
    """An entry holding a pickle that would call a function is refused: the file is analysed
    and the entry rewritten; the planted call never ran."""
    path = copy_of(SMALL, tmp_path)
    report(path)
    (entry,) = (tmp_path / "cache" / "diagnose").glob("*.pickle")
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    entry.write_bytes(pickle.dumps(Planted()))
    again = report(path)
    assert not marker.exists() and len(cached) == 2
    assert again["facts"]["capture_info"][0]["file"] == SMALL
    report(path)
    assert len(cached) == 2  # the rewritten entry serves the next run


def test_a_damaged_entry_or_an_unwritable_folder_costs_only_time(cached, tmp_path, monkeypatch):
    path = copy_of(SMALL, tmp_path)
    report(path)
    (entry,) = (tmp_path / "cache" / "diagnose").glob("*.pickle")
    entry.write_bytes(entry.read_bytes()[:100])
    assert report(path)["facts"]["capture_info"][0]["file"] == SMALL
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert report(path)["facts"]["capture_info"][0]["file"] == SMALL
    assert len(cached) == 3


def test_off_writes_nothing(cached, tmp_path, monkeypatch):
    monkeypatch.setenv("DIAGNOSE_CACHE", "off")
    path = copy_of(SMALL, tmp_path)
    report(path)
    report(path)
    assert len(cached) == 2 and not (tmp_path / "cache").exists()
