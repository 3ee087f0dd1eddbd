"""A capture's analysis kept in the user's cache folder, so that a re-run on the same export
(with other --model/--tp/--gpu/--batch/--format/-o flags) does not read its tables again.

An entry is keyed by each file's identity (resolved path, device, inode, size, modification
time; its write-ahead log's too), by what the analysis was asked for (step name, medians,
NVTX->GPU attribution, display names) and by the code that analysed it (diagnose's version and
the size and modification time of its modules): any change reads the file again. It lives in
$XDG_CACHE_HOME/diagnose (else ~/.cache/diagnose), never beside the capture; at most MAX_ENTRIES
entries and MAX_BYTES bytes are kept (the least recently used go: a hit refreshes its entry's
age), and an analysis whose entry would exceed MAX_ENTRY_BYTES is not stored (with --stats an
entry can outgrow the capture itself). DIAGNOSE_CACHE=off turns it off. The cache only ever saves
time: a folder that cannot be written, an analysis that cannot be pickled, or an entry that cannot
be read, means the file is analysed.

Entries are pickles read by an unpickler that builds only diagnose's own record classes,
builtin containers and numpy arrays (a planted file cannot run code through it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import pickle
from pathlib import Path

MAX_ENTRIES = 32
MAX_BYTES = 512 * 2**20  # the whole folder's entries
MAX_ENTRY_BYTES = 128 * 2**20  # one entry: a quarter of the folder, so a few large analyses fit
FORMAT = 1  # bump when the entry layout changes


def folder() -> Path | None:
    """The cache folder, or None when DIAGNOSE_CACHE turns the cache off."""
    if os.environ.get("DIAGNOSE_CACHE", "").lower() in ("0", "off", "no", "false"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "diagnose"


def analysed(files: list, **flags):
    """facts.analyse(files, **flags), from the cache when this analysis of these files is there."""
    from diagnose.capture.facts import analyse

    where = folder()
    key = _key(files, flags) if where is not None else None
    if key is None:
        return analyse(files, **flags)
    entry = where / f"{key}.pickle"
    result = _load(entry)
    if result is None:
        result = analyse(files, **flags)
        _store(entry, result)
    else:
        _touch(entry)  # a hit is recent use: a daily re-run keeps its entry
    return result


def _key(files: list, flags: dict) -> str | None:
    """The entry's name; None when a file cannot be identified (open_capture then says why) or
    is a temporary export of an .nsys-rep report (gone after this run)."""
    from diagnose import __version__
    from diagnose.capture import nsysrep

    parts = [f"format {FORMAT}", __version__, _code_identity(), repr(sorted(flags.items()))]
    for f in files:
        p = Path(f)
        if str(p) in nsysrep.EXPORTED:
            return None
        try:
            st = p.stat()
            wal = Path(f"{p}-wal")
            wst = wal.stat() if wal.exists() else None
        except OSError:
            return None
        parts.append(f"{p.resolve()} {st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns}")
        parts.append(f"wal {wst.st_size} {wst.st_mtime_ns}" if wst else "no wal")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def _code_identity() -> str:
    """Size and modification time of every module of the diagnose package (the analysis and the
    record classes it fills): an edited or upgraded copy never reads an older copy's entries."""
    root = Path(__file__).resolve().parent.parent
    stamps = []
    for p in sorted(root.rglob("*.py")):
        try:
            st = p.stat()
        except OSError:
            continue
        stamps.append(f"{p.relative_to(root)} {st.st_size} {st.st_mtime_ns}")
    return hashlib.sha256("\n".join(stamps).encode()).hexdigest()


def _load(entry: Path):
    try:
        with open(entry, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    try:
        result = _Unpickler(io.BytesIO(data)).load()
    except Exception:  # noqa: BLE001 - a damaged or foreign entry: analyse again, and drop it
        _remove(entry)
        return None
    from diagnose.capture.facts import CaptureAnalysis

    return result if isinstance(result, CaptureAnalysis) else None


def _store(entry: Path, result) -> None:
    """Write the entry (a temporary file renamed into place: a reader never sees half of one),
    unless it would exceed MAX_ENTRY_BYTES, then drop the least recently used entries beyond
    MAX_ENTRIES or MAX_BYTES."""
    tmp = entry.with_name(f".{entry.name}.{os.getpid()}")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            pickle.dump(result, _Capped(fh, MAX_ENTRY_BYTES), protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, entry)
        _evict(entry.parent)
    # a full or read-only folder, an entry too large, an analysis pickle cannot write (TypeError,
    # AttributeError or RecursionError from pickle.dump): the cache only ever costs the saving
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError, _TooLarge):
        _remove(tmp)


class _TooLarge(Exception):
    """An entry would exceed MAX_ENTRY_BYTES."""


class _Capped:
    """A file that refuses to grow beyond `limit` bytes (so a too large entry is never written whole)."""

    def __init__(self, fh, limit: int):
        self.fh, self.left = fh, limit

    def write(self, data) -> int:
        self.left -= len(data)
        if self.left < 0:
            raise _TooLarge
        return self.fh.write(data)


def _evict(where: Path) -> None:
    """Keep the most recently used entries within MAX_ENTRIES and MAX_BYTES; drop the rest."""
    stats = []
    for p in where.glob("*.pickle"):
        try:
            stats.append((p.stat(), p))
        except OSError:  # removed by another run meanwhile
            continue
    total = 0
    for n, (st, p) in enumerate(sorted(stats, key=lambda x: x[0].st_mtime_ns, reverse=True)):
        total += st.st_size
        if n >= MAX_ENTRIES or total > MAX_BYTES:
            _remove(p)


def _touch(entry: Path) -> None:
    try:
        os.utime(entry)
    except OSError:
        pass


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


_BUILTINS = {"dict", "list", "tuple", "set", "frozenset", "bytearray", "complex", "slice", "range"}
_NUMPY = {("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "_reconstruct"),
          ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "scalar"),
          ("numpy._core.multiarray", "scalar"), ("numpy._core.numeric", "_frombuffer"),
          ("numpy.core.numeric", "_frombuffer")}


class _Unpickler(pickle.Unpickler):
    """Builds diagnose's own record classes (dataclasses, never functions), builtin containers and
    numpy arrays and scalars; anything else in an entry is refused."""

    def find_class(self, module: str, name: str):
        if module == "builtins" and name in _BUILTINS:
            return super().find_class(module, name)
        if (module, name) in _NUMPY:
            return super().find_class(module, name)
        if module == "diagnose" or module.startswith("diagnose."):
            found = super().find_class(module, name)
            if dataclasses.is_dataclass(found) and isinstance(found, type):  # its __init__ only sets fields
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a capture cache entry")
