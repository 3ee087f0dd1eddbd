"""Type and range checks for a node recording before a replay trusts any of it.

A recording is user input: every answer must have the shape its NVML call or host reading
has on a real machine, and every count must be one physics allows, so a value of the wrong
type or an absurd count (10**9 GPUs) is bad input naming the field (exit 2), never a
traceback, a hang or a memory blow-up in the probes that loop over it.

Bounds, with where they come from:
- GPUs per node (NVML device count, GPU indices): 64. The largest single-OS nodes have 16
  GPUs (DGX-2/HGX-2); NVML numbers devices with an unsigned int, but no shipped board holds
  more than 16, so 64 leaves room without letting a loop run away.
- NVLinks per GPU: 18, NVML_NVLINK_MAX_LINKS in nvml.h (H100 has 18,
  https://docs.nvidia.com/deploy/nvml-api/group__NvLink.html).
- MIG instances per GPU: 7 (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/).
- PCIe: generation 1..7, width 0..32 lanes (PCI Express base specification link widths).
- Ranks of a collective: 2**20 (beyond the largest published training clusters).
- Bytes of one message or buffer: 2**44 (16 TiB, beyond any GPU memory).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from diagnose.errors import InputError

MAX_GPUS = 64
MAX_NVLINKS = 18
MAX_MIG = 7
MAX_RANKS = 1 << 20
MAX_BYTES = 1 << 44
MAX_U64 = (1 << 64) - 1
MAX_TEXT = 16 << 20  # one host reading (a file or a command's output)
MAX_LIST = 1 << 16

# NVML calls whose value is an integer, with the range a real GPU answers in.
INT_VALUES: dict[str, tuple[int, int]] = {
    "nvmlDeviceGetCount": (0, MAX_GPUS),
    "nvmlSystemGetCudaDriverVersion": (0, 10**6),
    "nvmlDeviceGetNvLinkState": (0, 1),
    "nvmlDeviceGetNvLinkRemoteDeviceType": (0, 255),
    "nvmlDeviceGetNvLinkVersion": (0, 64),
    "nvmlDeviceGetNvLinkErrorCounter": (0, MAX_U64),
    "nvmlDeviceGetCurrPcieLinkGeneration": (0, 7),
    "nvmlDeviceGetMaxPcieLinkGeneration": (0, 7),
    "nvmlDeviceGetCurrPcieLinkWidth": (0, 32),
    "nvmlDeviceGetMaxPcieLinkWidth": (0, 32),
    "nvmlDeviceGetPcieReplayCounter": (0, MAX_U64),
    "nvmlDeviceGetTemperature": (-273, 1000),
    "nvmlDeviceGetTemperatureThreshold": (-273, 1000),
    "nvmlDeviceGetPowerUsage": (0, 10**8),  # mW
    "nvmlDeviceGetEnforcedPowerLimit": (0, 10**8),
    "nvmlDeviceGetClockInfo": (0, 10**5),  # MHz
    "nvmlDeviceGetMaxClockInfo": (0, 10**5),
    "nvmlDeviceGetCurrentClocksEventReasons": (0, MAX_U64),
    "nvmlDeviceGetCurrentClocksThrottleReasons": (0, MAX_U64),
    "nvmlDeviceGetTotalEccErrors": (0, MAX_U64),
    "nvmlDeviceGetRetiredPagesPendingStatus": (0, 1),
    "nvmlDeviceGetPersistenceMode": (0, 1),
    "nvmlDeviceGetComputeMode": (0, 16),
    "nvmlDeviceGetVirtualizationMode": (0, 16),
    "nvmlDeviceGetP2PStatus": (0, 16),
    "nvmlDeviceGetTopologyCommonAncestor": (0, 50),
    "nvmlDeviceGetNumaNodeId": (-1, 4095),
    "nvmlDeviceGetMaxMigDeviceCount": (0, MAX_MIG),
    "nvmlDeviceGetFieldValues": (0, MAX_U64),
}
TEXT_VALUES = {"nvmlDeviceGetName", "nvmlDeviceGetUUID", "nvmlSystemGetDriverVersion", "nvmlDeviceGetCpuAffinity",
               "nvmlDeviceGetMemoryAffinity",
               "read", "realpath", "run", "run_grep"}
# dict-valued answers: field -> (low, high) for numbers, or str
DICT_VALUES: dict[str, dict[str, Any]] = {
    "nvmlDeviceGetPciInfo": {"busId": str, "pciDeviceId": (0, MAX_U64)},
    "nvmlDeviceGetNvLinkRemotePciInfo": {"busId": str, "pciDeviceId": (0, MAX_U64)},
    "nvmlDeviceGetMemoryInfo": {"total": (0, MAX_BYTES), "used": (0, MAX_BYTES), "free": (0, MAX_BYTES)},
    "nvmlDeviceGetUtilizationRates": {"gpu": (0, 100), "memory": (0, 100)},
    "nvmlDeviceGetGpuFabricInfo": {"state": (0, 16), "status": (0, 1 << 32)},
    "disk": {"total": (0, 1 << 60), "free": (0, 1 << 60)},
}
# list-valued answers of small integers: (length, low, high)
LIST_VALUES = {
    "nvmlDeviceGetMigMode": (2, 0, 1),
    "nvmlDeviceGetEccMode": (2, 0, 1),
    "nvmlDeviceGetRemappedRows": (4, 0, MAX_U64),
}
TWO_DEVICES = {"nvmlDeviceGetTopologyCommonAncestor", "nvmlDeviceGetP2PStatus"}

# Recorded measurement fields by name: (low, high). Integers outside these are not physical.
RESULT_BOUNDS = {
    "a": (0, MAX_GPUS - 1), "b": (0, MAX_GPUS - 1), "gpu": (0, MAX_GPUS - 1),
    "nranks": (1, MAX_RANKS), "nodes": (1, MAX_RANKS), "gpus": (1, MAX_RANKS),
    "tp": (1, MAX_RANKS), "pp": (1, MAX_RANKS), "dp": (1, MAX_RANKS),
    "size_bytes": (0, MAX_BYTES), "count": (0, MAX_BYTES), "errors": (0, MAX_BYTES),
    "batch": (0, MAX_RANKS), "concurrency": (0, MAX_RANKS),
}


def check_answer(entry: Any, where: str) -> None:
    """One answer of a recording: {"call", "args", "value" | "error", "tag"?, "seconds"?}."""
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object, got {type(entry).__name__}")
    call = entry.get("call")
    if not isinstance(call, str) or not call or len(call) > 200:
        raise InputError(f"{where}.call: expected the name of a call, got {_show(call)}")
    where = f"{where} ({call})"
    args = entry.get("args", [])
    if not isinstance(args, list) or len(args) > 8:
        raise InputError(f"{where}.args: expected a short list, got {_show(args)}")
    for n, arg in enumerate(args):
        _scalar_arg(arg, f"{where}.args[{n}]")
    if call.startswith("nvmlDevice") and call != "nvmlDeviceGetCount":
        for n in range(min(len(args), 2 if call in TWO_DEVICES else 1)):
            _int(args[n], f"{where}.args[{n}] (GPU index)", 0, MAX_GPUS - 1)
        if "NvLink" in call and len(args) > 1:
            _int(args[1], f"{where}.args[1] (NVLink)", 0, MAX_NVLINKS - 1)
    for key in ("tag", "error"):
        if key in entry and entry[key] is not None and not isinstance(entry[key], str):
            raise InputError(f"{where}.{key}: expected text, got {_show(entry[key])}")
    if "seconds" in entry:
        _number(entry["seconds"], f"{where}.seconds", 0, 86400)
    if "error" not in entry:
        check_value(call, entry.get("value"), f"{where}.value")


def check_value(call: str, value: Any, where: str) -> None:
    if call in INT_VALUES:
        low, high = INT_VALUES[call]
        if call == "nvmlDeviceGetFieldValues":
            _number(value, where, low, high)
        else:
            _int(value, where, low, high)
    elif call in TEXT_VALUES:
        _text(value, where)
    elif call in DICT_VALUES:
        if not isinstance(value, dict):
            raise InputError(f"{where}: expected an object, got {_show(value)}")
        for key, kind in DICT_VALUES[call].items():
            if value.get(key) is None:
                continue
            if kind is str:
                _text(value[key], f"{where}.{key}")
            else:
                _int(value[key], f"{where}.{key}", *kind)
    elif call in LIST_VALUES:
        length, low, high = LIST_VALUES[call]
        if not isinstance(value, list) or len(value) < length:
            raise InputError(f"{where}: expected a list of {length} integers, got {_show(value)}")
        for n, v in enumerate(value):
            _int(v, f"{where}[{n}]", low, high)
    elif call == "listdir":
        if not isinstance(value, list) or len(value) > MAX_LIST:
            raise InputError(f"{where}: expected a list of names, got {_show(value)}")
        for n, v in enumerate(value):
            _text(v, f"{where}[{n}]")
    elif call == "env":
        if not isinstance(value, dict) or len(value) > MAX_LIST:
            raise InputError(f"{where}: expected an object of variables, got {_show(value)}")
        for k, v in value.items():
            _text(v, f"{where}.{k}")
    elif call in ("nvmlInit", "nvmlShutdown"):
        if not isinstance(value, bool):
            raise InputError(f"{where}: expected true or false, got {_show(value)}")
    else:  # a call this reader has no schema for: plain JSON scalars only
        if value is not None and not isinstance(value, (bool, str)):
            _number(value, where, -MAX_U64, MAX_U64)


def check_result(row: Any, types: dict[str, type], where: str) -> None:
    """One recorded measurement, typed by its dataclass and bounded by RESULT_BOUNDS."""
    if not isinstance(row, dict):
        raise InputError(f"{where}: expected an object, got {type(row).__name__}")
    cls = types.get(row.get("type"))
    if cls is None:
        return  # an unknown record type is skipped on replay
    where = f"{where} ({cls.__name__})"
    for f in dataclasses.fields(cls):
        if f.name not in row:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"{where}.{f.name}: missing")
            continue
        value, kind, name = row[f.name], str(f.type), f"{where}.{f.name}"
        if value is None and "None" in kind:
            continue
        if kind.startswith("int"):
            _int(value, name, *RESULT_BOUNDS.get(f.name, (-MAX_U64, MAX_U64)))
        elif kind.startswith("float"):
            _number(value, name, 0, 1e15)
        elif kind.startswith("bool"):
            if not isinstance(value, bool):
                raise InputError(f"{name}: expected true or false, got {_show(value)}")
        elif kind.startswith("str"):
            _text(value, name)
        elif kind.startswith("list[int]"):
            if not isinstance(value, list) or len(value) > MAX_GPUS:
                raise InputError(f"{name}: expected a list of at most {MAX_GPUS} GPU indices, got {_show(value)}")
            for n, v in enumerate(value):
                _int(v, f"{name}[{n}]", 0, MAX_GPUS - 1)
        elif kind == "dict":
            if not isinstance(value, dict):
                raise InputError(f"{name}: expected an object, got {_show(value)}")


def _scalar_arg(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InputError(f"{where}: expected an integer or text, got {_show(value)}")
    if isinstance(value, int) and abs(value) > MAX_U64:
        raise InputError(f"{where}: {_show(value)} is beyond any NVML argument")
    if isinstance(value, str) and len(value) > 4096:
        raise InputError(f"{where}: text of {len(value)} characters is not an argument")


def _int(value, where, low, high) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: expected an integer, got {_show(value)}")
    if not low <= value <= high:
        raise InputError(f"{where}: {_show(value)} is outside {low}..{high}, beyond what real hardware reports")
    return value


def _number(value, where, low, high) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: expected a number, got {_show(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}: {value} is not a finite number")
    if not low <= value <= high:
        raise InputError(f"{where}: {_show(value)} is outside {low:g}..{high:g}, beyond what real hardware reports")
    return value


def _text(value, where) -> str:
    if not isinstance(value, str):
        raise InputError(f"{where}: expected text, got {_show(value)}")
    if len(value) > MAX_TEXT:
        raise InputError(f"{where}: {len(value)} characters is larger than any real reading")
    return value


def _show(value) -> str:
    """A short, safe rendering of a bad value (a 10**30 or a huge list is not printed whole)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**12:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"
