"""One piece of a capture's analysis on a forked process of its own, its result pickled back.

Why a process: the analysis reads on threads, and the sqlite3 module releases the GIL only while
SQLite itself runs; the Python and numpy work on every chunk (splitting, dict look-ups, folds) is
serialised by the GIL across all threads. A forked child has a GIL of its own, so that work runs
on another core. Fork only on Linux (macOS frameworks are not fork-safe, which is why CPython spawns
there) and only while the process runs no other Python thread (`usable`): a thread inside SQLite or
Python at the moment of the fork could leave a lock held in the child forever. The native threads
of numpy's OpenBLAS pool do not count: OpenBLAS joins its pool before any fork (pthread_atfork,
openblas_fork_handler in https://github.com/OpenMathLib/OpenBLAS/blob/develop/driver/others/memory.c),
so Python 3.12+'s DeprecationWarning on forking a multi-threaded process is silenced for this fork.

The child ignores nothing and prints nothing: Ctrl-C in a terminal reaches it too, and it dies of
the signal without a traceback (SIGINT's default action); the parent stops it on any error of its
own (`stop`), and multiprocessing ends daemonic children when the interpreter exits. A parent that
dies of a signal (kill, timeout, the OOM killer) runs none of that: on Linux the kernel sends the
child SIGTERM then (PR_SET_PDEATHSIG), and the child holds no reader of the pipe, so a result no
one reads fails to send (EPIPE) instead of blocking for ever on a full pipe.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings

from diagnose.errors import ProbeError

# rows of a table from which its read goes to a process: where the NVTX read already splits across
# threads (nvtx.PART_CHUNKS chunks a part). A fork and an empty result cost 3 ms (15 ms the first
# time, importing multiprocessing; measured with the analysis imported), against 0.2 s of CPU for
# the NVTX read of this many rows: the small exports, whose start-up counts, never fork
MIN_ROWS = 1 << 19


def cores() -> int:
    """CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def usable(rows: int | None) -> bool:
    """A fork for a read of `rows` rows: large enough, more than one core, Linux, no other thread running."""
    return bool(rows and rows >= MIN_ROWS and cores() > 1 and threading.active_count() == 1
                and sys.platform == "linux")


class Forked:
    """work(*args) on a forked child; `result()` gives its return value or raises its error."""

    def __init__(self, work, *args):
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self._recv, send = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(self._recv, send, os.getpid(), work, args), daemon=True)
        with warnings.catch_warnings():  # safe: no other thread runs (usable) to race on the filters
            warnings.filterwarnings("ignore", "This process .* is multi-threaded, use of fork", DeprecationWarning)
            self._proc.start()
        send.close()  # the child holds the only writer: its exit ends the pipe

    def result(self):
        """Blocks until the child is done (the pipe read releases the GIL)."""
        try:
            kind, value = self._recv.recv()
        except EOFError:
            self._proc.join()
            raise _no_result(self._proc.exitcode) from None
        finally:
            self._recv.close()
        self._proc.join()
        if kind == "error":
            raise value
        return value

    def stop(self) -> None:
        """End the child now if it still runs (an error or Ctrl-C in the parent)."""
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()


def _no_result(code: int) -> Exception:
    """A child that ended without a result: killed by a signal (the OOM killer's SIGKILL, a user's
    kill) is a failed probe of this machine, not a bug of ours; any other exit is one."""
    if code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown"
        oom = "; out of memory?" if -code == signal.SIGKILL else ""
        return ProbeError(f"the NVTX reading process was killed by signal {-code} ({name}{oom})")
    return RuntimeError(f"the capture's reading process ended without a result (exit code {code})")


def _child(recv, send, parent: int, work, args) -> None:
    import signal

    recv.close()  # the parent's end: should the parent die, a send fails instead of filling the pipe
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child quietly; the parent reports it
    _end_with_parent(parent)
    try:
        out = ("ok", work(*args))
    except Exception as exc:  # noqa: BLE001 - raised in the parent, where the analysis turns it into one line
        out = ("error", exc)
    try:
        send.send(out)
    except OSError:  # the parent is gone (EPIPE): no one to tell
        return
    except Exception as exc:  # noqa: BLE001 - an unpicklable result or error: its text still reaches the parent
        send.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))


def _end_with_parent(parent: int) -> None:
    """Linux: SIGTERM to this process when its parent dies (prctl PR_SET_PDEATHSIG), so a killed
    command leaves no reader behind; a parent already gone before the call ends it here."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no prctl: the closed reader above still ends a blocked send
        return
    if os.getppid() != parent:
        os._exit(0)
