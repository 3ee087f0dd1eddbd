"""Record every raw NVML answer and host reading, and replay them through the same code.

The probes never call pynvml, open a file under /sys or run a command themselves: they ask a
`Session` (`session.nvml("nvmlDeviceGetName", 0)`, `session.read("/proc/modules")`, ...).
A live session answers from the machine and remembers each answer; a replay session answers
from a recording. Everything above the session - decoding, topology, facts, rules - is the
same code on both paths, so a replay is the real analysis on recorded answers, not a fake.

Recording format (JSON, `diagnose.node-recording/1`):

    {"format": "diagnose.node-recording/1",
     "meta": {"recorded_by" | "transcribed_from": ..., "notes": [...], "absent": [...]},
     "results": [{"type": "CollectiveResult", ...}, ...],   # measurements, read back on replay
     "answers": [{"call": "nvmlDeviceGetName", "args": [0], "value": "NVIDIA H100 80GB HBM3"},
                 {"call": "nvmlDeviceGetEccMode", "args": [0], "error": "NotSupported"},
                 {"call": "read", "args": ["/proc/modules"], "value": "..."}, ...]}

A call the recording does not hold answers `NotRecorded`: the probes treat it like
`NotSupported` (the field stays unknown), so a transcription holds only what its source showed.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

from diagnose.errors import InputError

FORMAT = "diagnose.node-recording/1"

# pynvml error classes -> the short names recordings use (nvitop style: these are answers).
NVML_ERRORS = {
    "NVML_ERROR_NOT_SUPPORTED": "NotSupported",
    "NVML_ERROR_NO_PERMISSION": "NoPermission",
    "NVML_ERROR_NOT_FOUND": "NotFound",
    "NVML_ERROR_GPU_IS_LOST": "GpuIsLost",
    "NVML_ERROR_FUNCTION_NOT_FOUND": "FunctionNotFound",
    "NVML_ERROR_LIBRARY_NOT_FOUND": "LibraryNotFound",
    "NVML_ERROR_DRIVER_NOT_LOADED": "DriverNotLoaded",
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH": "LibRmVersionMismatch",
    "NVML_ERROR_INVALID_ARGUMENT": "InvalidArgument",
    "NVML_ERROR_UNINITIALIZED": "Uninitialized",
    "NVML_ERROR_TIMEOUT": "Timeout",
    "NVML_ERROR_RESET_REQUIRED": "ResetRequired",
    "NVML_ERROR_INSUFFICIENT_SIZE": "InsufficientSize",
    "NVML_ERROR_NO_DATA": "NoData",
    "NVML_ERROR_UNKNOWN": "Unknown",
}


# Environment variables a recording keeps (everything else may hold credentials).
ENV_KEPT = ("NCCL_", "CUDA_", "TORCH_NCCL_", "NVIDIA_", "KUBERNETES_SERVICE_HOST")


class Unanswered(Exception):
    """A call got no value: NotSupported, NoPermission, NotRecorded, FileNotFound, ..."""

    def __init__(self, call: str, args: list, reason: str):
        super().__init__(f"{call}{tuple(args)}: {reason}")
        self.call, self.args, self.reason = call, args, reason


class Session:
    """The one door the probes use to the machine. Subclasses answer live or from a file."""

    live = False

    def __init__(self):
        self.answers: list[dict[str, Any]] = []
        self.meta: dict[str, Any] = {}
        self.results: list[dict[str, Any]] = []  # measured records (runner.dump_results)

    # -- the calls the probes make ---------------------------------------------------------
    def nvml(self, call: str, *args, tag: str | None = None):
        """An NVML function by its C name; device arguments are GPU indices (JSON-able).

        `tag` tells apart two readings of the same call, e.g. the PCIe link read under load.
        """
        return self._answer(call, list(args), tag)

    def read(self, path: str) -> str:
        """A text file (sysfs, procfs); raises Unanswered when it does not exist."""
        return self._answer("read", [str(path)])

    def listdir(self, path: str) -> list[str]:
        return self._answer("listdir", [str(path)])

    def realpath(self, path: str) -> str:
        return self._answer("realpath", [str(path)])

    def run(self, *argv: str) -> str:
        """A command's stdout; Unanswered when it is absent or fails."""
        return self._answer("run", list(argv))

    def run_grep(self, pattern: str, *argv: str) -> str:
        """The lines of a command's output that match `pattern` (a regex): how a recording keeps
        only what matters from a big output such as the kernel log."""
        return self._answer("run_grep", [pattern, *argv])

    def env(self) -> dict[str, str]:
        return self._answer("env", [])

    def clock(self, label: str) -> float:
        """The wall clock (seconds since the epoch) at a named point of the run: what turns two readings of a
        counter into a rate, on a replay too."""
        return self._answer("clock", [label])

    def disk(self, path: str) -> dict[str, int]:
        """{"total": bytes, "free": bytes} of the file system holding `path`."""
        return self._answer("disk", [str(path)])

    def get(self, kind: str, *args, default=None, **kwargs):
        """Like the calls above but returns `default` instead of raising Unanswered."""
        try:
            return getattr(self, kind)(*args, **kwargs)
        except Unanswered:
            return default

    # -- plumbing -----------------------------------------------------------------------------
    def _answer(self, call: str, args: list, tag: str | None = None):  # pragma: no cover - overridden
        raise NotImplementedError

    def unanswered(self) -> list[dict[str, Any]]:
        return [a for a in self.answers if "error" in a]

    def save(self, path: str | Path) -> None:
        data = {"format": FORMAT, "meta": self.meta, "answers": self.answers, "results": self.results}
        Path(path).write_text(json.dumps(data, indent=1, default=str) + "\n")


class LiveSession(Session):
    """Answers from this machine (pynvml, the file system, commands) and records each answer."""

    live = True

    def __init__(self, command_timeout: float = 10.0):
        super().__init__()
        self.command_timeout = command_timeout
        self._handles: dict[int, Any] = {}
        self._seen: dict[str, dict] = {}
        self.meta = {
            "recorded_by": "diagnose node --record",
            "hostname": platform.node(),
            "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }

    def _answer(self, call: str, args: list, tag: str | None = None):
        key = _key(call, args, tag)
        if key in self._seen:  # one reading per question: asked twice, the recording holds it once
            entry = self._seen[key]
            if "error" in entry:
                raise Unanswered(call, args, entry["error"])
            return entry["value"]
        start = time.monotonic()
        entry: dict[str, Any] = {"call": call, "args": args}
        if tag:
            entry["tag"] = tag
        try:
            entry["value"] = self._live(call, args)
        except Unanswered as exc:
            entry["error"] = exc.reason
        entry["seconds"] = round(time.monotonic() - start, 4)
        self.answers.append(entry)
        self._seen[key] = entry
        if "error" in entry:
            raise Unanswered(call, args, entry["error"])
        return entry["value"]

    def _live(self, call: str, args: list):
        if call == "read":
            try:
                return Path(args[0]).read_text(errors="replace")
            except OSError as exc:
                raise Unanswered(call, args, type(exc).__name__) from None
        if call == "listdir":
            try:
                return sorted(os.listdir(args[0]))
            except OSError as exc:
                raise Unanswered(call, args, type(exc).__name__) from None
        if call == "realpath":
            if not os.path.exists(args[0]):
                raise Unanswered(call, args, "FileNotFoundError")
            return os.path.realpath(args[0])
        if call == "clock":
            return round(time.time(), 3)
        if call == "env":  # only what the checks read: a recording must not carry secrets
            return {k: v for k, v in os.environ.items() if k.startswith(ENV_KEPT)}
        if call == "disk":
            try:
                st = os.statvfs(args[0])
            except OSError as exc:
                raise Unanswered(call, args, type(exc).__name__) from None
            return {"total": st.f_blocks * st.f_frsize, "free": st.f_bavail * st.f_frsize}
        if call == "run_grep":
            import re

            text = self._live("run", args[1:])
            return "".join(line for line in text.splitlines(keepends=True) if re.search(args[0], line))
        if call == "run":
            try:
                out = subprocess.run(args, capture_output=True, text=True, timeout=self.command_timeout)
            except FileNotFoundError:
                raise Unanswered(call, args, "CommandNotFound") from None
            except subprocess.TimeoutExpired:
                raise Unanswered(call, args, "Timeout") from None
            if out.returncode != 0 and not out.stdout:
                raise Unanswered(call, args, f"ExitCode{out.returncode}")
            return out.stdout
        return self._nvml(call, args)

    def _nvml(self, call: str, args: list):
        import pynvml

        try:
            if call == "nvmlInit":
                pynvml.nvmlInit()
                return True
            if call == "nvmlShutdown":
                pynvml.nvmlShutdown()
                return True
            func = getattr(pynvml, call, None)
            if func is None:
                raise Unanswered(call, args, "FunctionNotFound")
            return _to_json(call, _call_nvml(pynvml, func, call, args, self._handle))
        except pynvml.NVMLError as exc:
            raise Unanswered(call, args, _nvml_error_name(pynvml, exc)) from None

    def _handle(self, index: int):
        import pynvml

        if index not in self._handles:
            self._handles[index] = pynvml.nvmlDeviceGetHandleByIndex(index)
        return self._handles[index]


class ReplaySession(Session):
    """Answers from a recording, in any order; what it lacks answers NotRecorded."""

    def __init__(self, path: str | Path):
        from diagnose.inputs import load_json
        from probes.recording_check import check_answer, check_result
        from probes.results import MEASURED

        super().__init__()
        data = load_json(path, "recording")
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError(f"{path} is not a diagnose node recording (format {FORMAT} expected)")
        meta, results, answers = data.get("meta") or {}, data.get("results") or [], data.get("answers") or []
        for name, value, kind in (("meta", meta, dict), ("results", results, list), ("answers", answers, list)):
            if not isinstance(value, kind):
                raise InputError(f"{path}: '{name}' must be a JSON {'object' if kind is dict else 'list'}, "
                                 f"got {type(value).__name__}")
        types = {cls.__name__: cls for cls in MEASURED}
        for n, row in enumerate(results):
            check_result(row, types, f"{path}: results[{n}]")
        self.path = str(path)
        self.meta = meta
        self.results = results
        self._table: dict[str, dict] = {}
        for n, entry in enumerate(answers):
            check_answer(entry, f"{path}: answers[{n}]")
            self._table[_key(entry["call"], entry.get("args") or [], entry.get("tag"))] = entry

    def _answer(self, call: str, args: list, tag: str | None = None):
        entry = self._table.get(_key(call, args, tag))
        if entry is None:
            self.answers.append({"call": call, "args": args, "tag": tag, "error": "NotRecorded"})
            raise Unanswered(call, args, "NotRecorded")
        self.answers.append(entry)
        if "error" in entry:
            raise Unanswered(call, args, entry["error"])
        return entry.get("value")


def _key(call: str, args: list, tag: str | None = None) -> str:
    return call + json.dumps(list(args)) + (f"#{tag}" if tag else "")


def _nvml_error_name(pynvml, exc) -> str:
    for const, short in NVML_ERRORS.items():
        if getattr(pynvml, const, None) == getattr(exc, "value", None):
            return short
    return f"NVMLError{getattr(exc, 'value', '')}"


# Calls whose first N arguments are GPU indices (turned into handles on the live path).
_TWO_DEVICES = {"nvmlDeviceGetTopologyCommonAncestor", "nvmlDeviceGetP2PStatus"}


def _call_nvml(pynvml, func, call: str, args: list, handle):
    if not call.startswith("nvmlDevice") or call == "nvmlDeviceGetCount":
        return func(*args)
    devices = 2 if call in _TWO_DEVICES else 1
    real = [handle(a) for a in args[:devices]] + list(args[devices:])
    if call == "nvmlDeviceGetCpuAffinity":
        return func(real[0], 16)  # 16 x 64 bits = 1024 CPUs
    if call == "nvmlDeviceGetMemoryAffinity":  # the CPU NUMA nodes nearest the GPU (topo -m's NUMA Affinity)
        return func(real[0], 1, pynvml.NVML_AFFINITY_SCOPE_NODE)  # 64 nodes
    if call == "nvmlDeviceGetGpuFabricInfo":
        # NVML fills the struct through a pointer; pynvml forwards the argument as given, so a
        # struct passed by value would be copied onto the stack and the reading lost (or worse).
        import ctypes

        info = _fabric_info_struct()()
        func(real[0], ctypes.byref(info))
        return info
    if call == "nvmlDeviceGetFieldValues":  # args: gpu, field id, scope id (e.g. the link)
        field = func(real[0], [(int(real[1]), int(real[2]))])[0]
        if field.nvmlReturn != 0:
            raise pynvml.NVMLError(field.nvmlReturn)
        member = ("dVal", "uiVal", "ulVal", "ullVal", "sllVal", "siVal", "usVal")[field.valueType]
        return getattr(field.value, member)
    return func(*real)


def _fabric_info_struct():
    """nvml.h's nvmlGpuFabricInfo_t, laid out here rather than taken from pynvml: the nvidia-ml-py on a lent H200
    sized clusterUuid 80 bytes, not NVML_GPU_FABRIC_UUID_LEN (16), so it read status and state from past what NVML
    wrote (a stand-in library's "Completed" came back as 0, "not supported")."""
    import ctypes

    class GpuFabricInfo(ctypes.Structure):
        _fields_ = [("clusterUuid", ctypes.c_ubyte * 16), ("status", ctypes.c_uint), ("cliqueId", ctypes.c_uint),
                    ("state", ctypes.c_ubyte)]  # nvmlGpuFabricState_t is an unsigned char

    return GpuFabricInfo


def _to_json(call: str, value):
    """NVML answers as plain JSON: structs to dicts, bytes to str, CPU masks to a CPU list."""
    if call in ("nvmlDeviceGetCpuAffinity", "nvmlDeviceGetMemoryAffinity"):
        return _cpu_list(value)
    if call in ("nvmlDeviceGetPciInfo", "nvmlDeviceGetNvLinkRemotePciInfo"):
        return {"busId": _text(value.busId), "pciDeviceId": int(value.pciDeviceId)}
    if call == "nvmlDeviceGetMemoryInfo":
        return {"total": int(value.total), "used": int(value.used), "free": int(value.free)}
    if call == "nvmlDeviceGetGpuFabricInfo":
        return {"state": int(value.state), "status": int(value.status)}
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, (list, tuple)):
        return [_to_json("", v) for v in value]
    if hasattr(value, "_fields_"):
        return {name: _to_json("", getattr(value, name)) for name, *_ in value._fields_}
    return value


def _text(value) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _cpu_list(words) -> str:
    """NVML's affinity bit mask (64-bit words) as a Linux CPU list: '0-55,112-167'."""
    cpus = [w * 64 + b for w, word in enumerate(words) for b in range(64) if int(word) >> b & 1]
    return format_cpu_list(cpus)


def format_cpu_list(cpus: list[int]) -> str:
    ranges: list[str] = []
    start = prev = None
    for cpu in sorted(cpus):
        if prev is not None and cpu == prev + 1:
            prev = cpu
            continue
        if start is not None:
            ranges.append(f"{start}-{prev}" if prev != start else str(start))
        start = prev = cpu
    if start is not None:
        ranges.append(f"{start}-{prev}" if prev != start else str(start))
    return ",".join(ranges)


def parse_cpu_list(text: str) -> list[int]:
    """'0-3,8' -> [0, 1, 2, 3, 8]; ignores what is not a range."""
    cpus: list[int] = []
    for part in str(text).strip().split(","):
        lo, _, hi = part.strip().partition("-")
        if lo.isdigit() and (not hi or hi.isdigit()) and int(lo) <= int(hi or lo) < MAX_CPUS:
            cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


MAX_CPUS = 8192  # Linux's largest NR_CPUS (x86_64 MAXSMP): a higher CPU number is not a real one
