"""`ticket.toml`: what the reporter said, as DESIGN.md defines it.

    description = "..."                                  -> Note(kind="description")
    [hardware] gpu, gpu_count, nodes, interconnect       -> Workload
    [software] driver, cuda, nccl, framework             -> Note(kind="software"), NcclVersion,
                                                            HostFact(driver_version), Workload.framework
    [workload] model, tp, pp, dp, batch, dtype           -> Workload
    [[measured]] {metric, value, tp?, pp?, batch?, gpus?, bytes?}  -> Measurement

Claims, not measurements of ours: rules weigh them below what the attachments show. Unknown
keys are kept as Note(kind="unknown_key"); a value of the wrong type is Note(kind="invalid_value");
malformed TOML is Note(kind="unreadable_file"). Nothing here raises on a user's file.
"""

from __future__ import annotations

import math
import re

from diagnose.artifacts.text import build_extra, stated_lengths
from diagnose.evidence import HostFact, Measurement, NcclVersion, Note, Workload, where
from diagnose.inputs import tomllib  # tomli on Python 3.10

KIND = "ticket_toml"
EXCLUSIVE = True  # see artifacts.parse_text

SECTIONS = {
    "hardware": {"gpu": str, "gpu_count": int, "nodes": int, "interconnect": str},
    "software": {"driver": str, "cuda": str, "nccl": str, "framework": str},
    "workload": {"model": str, "tp": int, "pp": int, "dp": int, "batch": int, "dtype": str},
}
METRICS = ("decode_tok_s", "output_tok_s", "itl_ms", "tpot_ms", "ttft_ms", "busbw_gbs", "algbw_gbs", "step_ms",
           "latency_us")
MEASURED_KEYS = {"metric": str, "value": float, "tp": int, "pp": int, "batch": int, "gpus": int, "bytes": int}
UNITS = {"decode_tok_s": "tok/s", "output_tok_s": "tok/s", "itl_ms": "ms", "tpot_ms": "ms", "ttft_ms": "ms",
         "busbw_gbs": "GB/s", "algbw_gbs": "GB/s", "step_ms": "ms", "latency_us": "us"}
SHAPE = re.compile(r"^[^\S\n]*(?:\[\[?\s*(?:hardware|software|workload|measured)\b|description\s*=)", re.M)
VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?")


def detect(text: str) -> float:
    if not SHAPE.search(text[:100_000]):
        return 0.0
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return 0.8  # looks like a ticket.toml; parse() reports it unreadable
    known = {"description", "measured", *SECTIONS}
    return 0.95 if known & set(doc) else 0.0


def parse(text: str, name: str) -> list:
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        return [Note(where(name), "unreadable_file", f"{name}: not valid TOML ({exc})")]
    lines = _Lines(text)
    out: list = []
    for key, value in doc.items():
        if key == "description":
            out.append(Note(where(name, lines.key(None, "description")), "description", str(value)))
            if extra := build_extra(str(value)):  # "a llama.cpp release from March 2024"
                out.append(Workload(where(name, lines.key(None, "description")), extra=extra))
            # "input length 2000, output length 200": the lengths a pasted issue's prose states, read the same way
            out += stated_lengths([(lines.key(None, "description"), str(value))], name)
        elif key in SECTIONS and isinstance(value, dict):
            out.extend(_section(key, value, name, lines))
        elif key == "measured" and isinstance(value, list):
            for i, entry in enumerate(value):
                out.extend(_measured(entry, where(name, lines.array_item("measured", i)), name))
        else:
            out.append(_unknown(f"{key}", value, where(name, lines.key(None, key))))
    return out


def _section(section: str, table: dict, name: str, lines: "_Lines") -> list:
    values, out = _checked(table, SECTIONS[section], section, lambda key: where(name, lines.key(section, key)))
    src = where(name, lines.section(section))
    if section == "hardware" and values:
        out.append(Workload(src, gpu=values.get("gpu"), gpu_count=values.get("gpu_count"), nodes=values.get("nodes"),
                            interconnect=values.get("interconnect")))
    elif section == "workload" and values:
        out.append(Workload(src, model=values.get("model"), tp=values.get("tp"), pp=values.get("pp"),
                            dp=values.get("dp"), batch=values.get("batch"), dtype=values.get("dtype")))
    elif section == "software" and values:
        out.append(Note(src, "software", ", ".join(f"{k} {v}" for k, v in values.items()), dict(values)))
        if "framework" in values:  # with the build it names ("llama.cpp build: 3015", "llama.cpp b2500")
            out.append(Workload(src, framework=values["framework"], extra=build_extra(values["framework"])))
        if "nccl" in values and (m := VERSION.search(values["nccl"])):
            # software.cuda is the system's CUDA, not the runtime NCCL was built for: only NCCL's own
            # "NCCL version 2.x.y+cudaXX.Y" line says that, so the version carries no CUDA here.
            out.append(NcclVersion(where(name, lines.key(section, "nccl")), m.group(0)))
        if "driver" in values:
            out.append(HostFact(where(name, lines.key(section, "driver")), "driver_version", values["driver"]))
    return out


def _measured(entry, src: str, name: str) -> list:
    if not isinstance(entry, dict):
        return [Note(src, "invalid_value", f"[[measured]] entry is not a table: {entry!r}")]
    fields, out = _checked(entry, MEASURED_KEYS, "measured", lambda key: src)
    metric, value = fields.get("metric"), fields.get("value")
    if metric is None or value is None:
        out.append(Note(src, "invalid_value", "[[measured]] entry needs both metric and value", {"entry": entry}))
        return out
    if metric not in METRICS:
        out.append(Note(src, "unknown_key", f"[[measured]] metric {metric!r} is not one of {', '.join(METRICS)}",
                        {"key": "measured.metric", "value": metric}))
    out.append(Measurement(src, metric, value, UNITS.get(metric), tp=fields.get("tp"), pp=fields.get("pp"),
                           batch=fields.get("batch"), gpus=fields.get("gpus"), size_bytes=fields.get("bytes")))
    return out


def _checked(table: dict, schema: dict, prefix: str, source_of) -> tuple[dict, list]:
    """The values of `table` that `schema` knows and that have its types; Notes for the rest."""
    values: dict = {}
    notes: list = []
    for key, value in table.items():
        expected = schema.get(key)
        if expected is None:
            notes.append(_unknown(f"{prefix}.{key}", value, source_of(key)))
            continue
        checked = _typed(value, expected)
        if checked is None:
            notes.append(Note(source_of(key), "invalid_value",
                              f"{prefix}.{key} = {value!r}: expected {expected.__name__}",
                              {"key": f"{prefix}.{key}", "value": value}))
            continue
        values[key] = checked
    return values, notes


def _typed(value, expected: type):
    """`value` as `expected` (an int written as 8.0 or "8" is fine), or None. A float that is nan or inf is kept:
    it is the figure the user typed, which the commands refuse as bad input naming it (scaling_inputs.
    check_measurement), not a value silently dropped; a count that is nan or inf is None."""
    if isinstance(value, bool):
        return None
    if expected is str:
        return str(value) if isinstance(value, (str, int, float)) else None
    if not isinstance(value, (str, int, float)):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if expected is float:
        return number
    if not math.isfinite(number):
        return None
    return int(number) if number == int(number) else None


def _unknown(key: str, value, src: str) -> Note:
    return Note(src, "unknown_key", f"{key} = {value!r} (not a ticket.toml key; kept as the reporter wrote it)",
                {"key": key, "value": value})


class _Lines:
    """Line numbers of sections and keys, so evidence points at the line the reporter wrote."""

    def __init__(self, text: str):
        self.rows = text.splitlines()

    def section(self, section: str) -> int | None:
        pattern = re.compile(rf"^\s*\[\s*{re.escape(section)}\s*\]")
        return next((i for i, row in enumerate(self.rows, 1) if pattern.match(row)), None)

    def key(self, section: str | None, key: str) -> int | None:
        start = self.section(section) if section else 0
        if start is None:
            return None
        pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
        for i, row in enumerate(self.rows[start:], start + 1):
            if section is None and re.match(r"^\s*\[", row):
                return None
            if pattern.match(row):
                return i
        return None

    def array_item(self, array: str, index: int) -> int | None:
        pattern = re.compile(rf"^\s*\[\[\s*{re.escape(array)}\s*\]\]")
        hits = [i for i, row in enumerate(self.rows, 1) if pattern.match(row)]
        return hits[index] if index < len(hits) else None
