"""A large NVTX table is read on a forked process (capture.forked): the same numbers as the read on
threads, its errors as the one line, and Ctrl-C stops both processes without a traceback.

Real exports here are small, so the tests lower forked.MIN_ROWS to make their NVTX read fork."""

import glob
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import warnings
from dataclasses import asdict

import pytest
from conftest import shared_path

from diagnose.capture import facts, forked
from diagnose.errors import InputError

# the shared exports with an NVTX table
NVTX_CAPTURES = ["dlprof_rtx2070_pytorch_nvtx_2022_1", "fuser_h100x8node_matmul_2024_6",
                 "fuser_h200_crossentropy_2025_1", "memfusion_rtx3090x4_trt_2023_1",
                 "nsysai_h100x2_fastvideo_train_before"]
SMALL = "fuser_h200_crossentropy_2025_1"


def _analysed(path, monkeypatch, min_rows):
    monkeypatch.setattr(forked, "MIN_ROWS", min_rows)
    made = []
    real = forked.Forked

    def counted(*args):
        made.append(args[0].__name__)
        return real(*args)

    monkeypatch.setattr(forked, "Forked", counted)
    result = facts.analyse([str(path)], medians=True)
    return made, result.summaries, sorted(repr(asdict(r)) for r in result.facts.records)


@pytest.mark.parametrize("stem", NVTX_CAPTURES)
def test_the_forked_nvtx_read_gives_what_the_threads_give(stem, monkeypatch):
    path = shared_path("captures", f"{stem}.sqlite")
    made, summaries, records = _analysed(path, monkeypatch, 1)
    assert made == ["_nvtx_read"]  # forked: one process, for the NVTX read
    plain, summaries_t, records_t = _analysed(path, monkeypatch, 1 << 62)
    assert plain == []
    assert summaries[path.name]["nvtx"]  # NVTX rows were summarised, with medians
    assert summaries == summaries_t and records == records_t


def test_an_error_in_the_forked_read_is_the_one_line_input_error(monkeypatch):
    path = shared_path("captures", f"{SMALL}.sqlite")
    monkeypatch.setattr(forked, "MIN_ROWS", 1)

    def damaged(cap, values):  # raised in the child, as SQLite raises it on a damaged page
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(facts, "_nvtx_read", damaged)
    with pytest.raises(InputError, match=f"{SMALL}.sqlite.*malformed"):
        facts.analyse([str(path)], medians=True)


# the command, its NVTX read forked; in the child it is held up argv[3] seconds, then returns 8 MB
# (more than a pipe buffer holds, as a large --stats read pickles), or "kill": the child dies of
# SIGKILL, as the OOM killer ends it. The file argv[2] appears once the parent's own reads have
# started (after the fork). SIGINT is set to Python's own handler first, as in a terminal: a test
# run started in the background of a shell without job control inherits SIGINT ignored, and
# Python then installs no handler, so the command would never see the Ctrl-C this file sends
HELD_CHILD = textwrap.dedent("""
    import os, pathlib, signal, sys, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from diagnose.capture import facts, forked
    from diagnose.cli import cli
    forked.MIN_ROWS = 1
    api = facts._api_aggregates
    def held(cap, values):
        if sys.argv[3] == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(float(sys.argv[3]))
        return b"x" * (8 << 20)
    def started(*args):
        pathlib.Path(sys.argv[2]).touch()
        return api(*args)
    facts._nvtx_read, facts._api_aggregates = held, started
    cli(["capture", sys.argv[1], "--stats", "--json", "--fail-on", "never"], prog_name="diagnose")
""")
NEEDS_PROC = pytest.mark.skipif(not glob.glob("/proc/self/task/*/children"),
                                reason="needs Linux /proc/<pid>/task/*/children")


def _children(pid: int) -> list[int]:
    """The main thread's children (the fork is made there, forked.usable): its task is always
    there, where another thread's could end between listing and reading."""
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(c) for c in f.read().split()]


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "zombie" in f.read().lower()
    except FileNotFoundError:
        return True


def _command(tmp_path, held: str) -> subprocess.Popen:
    path = shared_path("captures", f"{SMALL}.sqlite")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    return subprocess.Popen([sys.executable, "-c", HELD_CHILD, str(path), str(tmp_path / "started"), held],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)


def _forked_command(tmp_path, held: str) -> tuple[subprocess.Popen, list[int]]:
    """The command started, its NVTX read forked and held in the child; the child's pid."""
    proc = _command(tmp_path, held)
    started = tmp_path / "started"
    deadline = time.monotonic() + 60
    while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    child = _children(proc.pid)
    assert child and proc.poll() is None, "the NVTX read never forked"
    return proc, child


@NEEDS_PROC
@pytest.mark.parametrize("whom", ["the command only", "its process group (a terminal's Ctrl-C)"])
def test_ctrl_c_stops_the_reading_process_too(whom, tmp_path):
    proc, child = _forked_command(tmp_path, "60")
    if whom == "the command only":
        proc.send_signal(signal.SIGINT)
    else:
        os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=20)  # well before the child's 60 s sleep ends
    assert proc.returncode == 130 and err.split() == ["diagnose:", "aborted"], err  # the CLI's line, no traceback
    assert not out
    assert all(map(_gone, child))  # reaped, not left running


@NEEDS_PROC
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_command_leaves_no_reading_process(sig, tmp_path):
    """kill, timeout or the OOM killer end the command alone: its child must not read on, nor block
    for ever writing a result nobody reads (an orphan)."""
    proc, child = _forked_command(tmp_path, "2")
    proc.send_signal(sig)
    proc.communicate(timeout=20)
    assert proc.returncode == -sig  # 143 for SIGTERM in a shell, as README says
    deadline = time.monotonic() + 10  # the child's 2 s hold and an 8 MB write, with room on a loaded machine
    while not all(map(_gone, child)) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [pid for pid in child if not _gone(pid)]
    for pid in alive:  # end it here, so a failure leaves nothing behind
        os.kill(pid, signal.SIGKILL)
    assert not alive, "the NVTX reading process outlived the command"


@NEEDS_PROC
def test_a_reading_process_killed_by_a_signal_is_a_failed_probe_not_our_bug(tmp_path):
    proc = _command(tmp_path, "kill")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3 and not out, err
    assert len(err.splitlines()) == 1 and "internal error" not in err, err
    assert "killed by signal 9" in err and "SIGKILL" in err, err


def test_no_fork_below_the_size_or_beside_other_threads():
    assert not forked.usable(forked.MIN_ROWS - 1)
    assert not forked.usable(None)
    assert forked.usable(forked.MIN_ROWS) == (forked.cores() > 1)
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not forked.usable(forked.MIN_ROWS)  # a fork now could copy a lock another thread holds
    finally:
        stop.set()
        other.join()



def test_no_fork_off_linux(monkeypatch):
    # os.fork exists on macOS, but CPython spawns there: its frameworks are not fork-safe
    monkeypatch.setattr(sys, "platform", "darwin")
    assert not forked.usable(forked.MIN_ROWS)


def test_the_fork_warns_of_nothing():
    """numpy's OpenBLAS pool is native threads (Python 3.12+ warns on fork beside any thread); it
    joins its pool before a fork, so the fork is safe and says nothing. Fails before on 3.12+."""
    import numpy  # noqa: F401 - its thread pool, as the analysis has it

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert forked.Forked(len, [1, 2]).result() == 2
