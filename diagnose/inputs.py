"""The one door every command uses to open what the user handed it.

Checks happen before any byte is read: the path must be a regular file (or a folder where a
folder is expected), never a FIFO, socket or device, never under /proc or /sys, and no larger
than its kind allows. JSON and TOML are parsed with their nesting bounded, so a hostile file is
bad input (exit 2) and never a RecursionError or a hang. Every refusal names the path.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path

from diagnose.errors import InputError

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

MiB = 1 << 20

# The largest file of each kind that a real one could be. A capture is only checked for kind:
# real exports reach tens of GB and are read through SQLite, never whole.
SIZE_LIMITS = {
    "capture": None,
    "database": None,
    "attachment": None,  # a ticket attachment is read only in part (artifacts.MAX_BYTES)
    "measurements": None,  # a scaling input may be a capture; each file is bounded by its kind when read
    "recording": 64 * MiB,
    "report": 64 * MiB,
    "catalog": 8 * MiB,
    "config": 8 * MiB,  # a Hugging Face config.json is a few kB
    "json": 64 * MiB,
    "toml": 8 * MiB,
    "csv": 256 * MiB,
    "text": 64 * MiB,
}

# Physical bounds on counts, so an absurd value is bad input rather than arithmetic that overflows
# or runs for ever. The largest GPU clusters hold about 200,000 GPUs (xAI Colossus,
# https://x.ai/colossus); a TP, PP or DP size or a GPU count beyond a million is a typo. No serving
# engine holds more than a million sequences in one step, nor attends over more than 2**27 tokens
# (the longest windows are 10M: Llama 4 Scout, https://ai.meta.com/blog/llama-4-multimodal-intelligence/).
MAX_GPUS = 1_000_000
MAX_BATCH = 1_000_000
MAX_TOKENS = 2**27

# SQLite's INTEGER range: a run id or LIMIT beyond it overflows.
SQLITE_MAX_INT = 2**63 - 1

# Deeper nesting than any real config, recording or report has; Python's own parsers recurse.
MAX_DEPTH = 64

_PSEUDO_ROOTS = ("/proc", "/sys", "/dev")


def check_path(path, kind: str, *, folder: bool = False) -> Path:
    """`path` as a Path once it is known to be a readable regular file (or folder) of sane size."""
    p = Path(path)
    try:
        st = os.stat(p)  # follows links; a loop raises ELOOP here
    except FileNotFoundError:
        raise InputError(f"{p}: no such {'folder' if folder else 'file'}") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot be opened ({exc.strerror or exc})") from None
    real = os.path.realpath(p)
    if any(real == root or real.startswith(root + "/") for root in _PSEUDO_ROOTS):
        raise InputError(f"{p}: is a system pseudo-file ({real}); give a regular {kind} file")
    mode = st.st_mode
    if folder:
        if not stat.S_ISDIR(mode):
            raise InputError(f"{p}: is not a folder")
        return p
    if stat.S_ISDIR(mode):
        raise InputError(f"{p}: is a folder, not a {kind} file")
    if not stat.S_ISREG(mode):
        raise InputError(f"{p}: is a {_kind_of_mode(mode)}, not a regular {kind} file")
    limit = SIZE_LIMITS.get(kind, SIZE_LIMITS["text"])
    if limit is not None and st.st_size > limit:
        raise InputError(f"{p}: {st.st_size / MiB:.0f} MiB is larger than any real {kind} file "
                         f"(limit {limit // MiB} MiB)")
    return p


def _kind_of_mode(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def read_bytes(path, kind: str) -> bytes:
    p = check_path(path, kind)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc})") from None


def read_head(path, kind: str, size: int = 8192) -> str:
    """The first `size` bytes as text (undecodable bytes replaced), to tell what a file is
    without reading a large one whole."""
    p = check_path(path, kind)
    try:
        with open(p, "rb") as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc})") from None


def read_text(path, kind: str, *, errors: str = "strict") -> str:
    """The file's text as UTF-8; with errors='strict' a file that is not UTF-8 is bad input."""
    data = read_bytes(path, kind)
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: is not UTF-8 text (byte {exc.start}); not a {kind} file") from None


def parse_json(text: str, source, *, allow_nan: bool = False) -> object:
    """JSON with bounded nesting. NaN and Infinity literals are refused unless `allow_nan`
    (Python's own json writer emits them; a hand-made input that has them is broken)."""
    _check_depth(text, source, "[{")
    try:
        if allow_nan:
            return json.loads(text)
        return json.loads(text, parse_constant=_refuse_constant(source))
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{source}: not valid JSON ({_short(exc)})") from None


def parse_toml(text: str, source) -> dict:
    _check_depth(text, source, "[{")
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise InputError(f"{source}: not valid TOML ({_short(exc)})") from None


def load_json(path, kind: str = "json", *, allow_nan: bool = False) -> object:
    return parse_json(read_text(path, kind), path, allow_nan=allow_nan)


def load_toml(path, kind: str = "toml") -> dict:
    return parse_toml(read_text(path, kind), path)


def _refuse_constant(source):
    def refuse(name):
        raise InputError(f"{source}: not valid JSON ({name} is not a number JSON allows)")
    return refuse


def _check_depth(text: str, source, openers: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH before a recursive parser sees it.

    Counts brackets outside strings; an over-count inside exotic strings only makes the
    bound stricter for text that is already absurd."""
    depth = 0
    in_string = False
    escaped = False
    closers = {"[": "]", "{": "}"}
    close_set = set(closers[o] for o in openers)
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in openers:
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(f"{source}: nested more than {MAX_DEPTH} levels deep; not a real input file")
        elif ch in close_set:
            depth = max(0, depth - 1)


def _short(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:160]


def finite_number(value, name: str, *, low: float | None = None, high: float | None = None,
                  positive: bool = False) -> float:
    """`value` as a float once it is a real, finite number within bounds, else bad input naming `name`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{name}: expected a number, got {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:
        raise InputError(f"{name}: {str(value)[:30]} is too large to be a real value") from None
    if not math.isfinite(number):
        raise InputError(f"{name}: {number} is not a finite number")
    if positive and number <= 0:
        raise InputError(f"{name}: {number:g} must be positive")
    if low is not None and number < low:
        raise InputError(f"{name}: {number:g} is below {low:g}")
    if high is not None and number > high:
        raise InputError(f"{name}: {number:g} is above {high:g}, beyond any real value")
    return number
