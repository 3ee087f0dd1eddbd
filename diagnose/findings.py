"""The report contract: findings, verdict and report JSON (schema `diagnose.report/1`).

Users' scripts parse this JSON, so field names and category names are stable; add fields,
never rename or remove them without bumping SCHEMA.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from diagnose import __version__
from diagnose.evidence import jsonable as _jsonable

SCHEMA = "diagnose.report/1"

REPORT_KINDS = ("node", "capture", "ticket", "predict", "scaling", "plan", "compare", "fleet")

SEVERITIES = ("critical", "warning", "info", "ok")
SEVERITY_RANK = {name: rank for rank, name in enumerate(reversed(SEVERITIES))}  # ok=0 .. critical=3

# Root-cause categories, exactly as DESIGN.md names them. The verdict uses only these.
CATEGORIES = (
    "p2p_disabled",
    "pcie_fallback",
    "shm_fallback",
    "nvlink_down",
    "pcie_link_degraded",
    "numa_affinity",
    "shm_too_small",
    "socket_fallback",
    "gdr_disabled",
    "cross_node_tp",
    "virtualization_no_p2p",
    "eager_mode",
    "latency_bound_small_batch",
    "tp_not_dividing_heads",
    "nccl_regression",
    "throttling",
    "expected_physics",
    "comm_bound",
    "launch_bound",
    "straggler",
    "host_bound",
    "pp_bubble",
    "hardware_fault",
    "healthy",
    "insufficient_data",
    "other",
)


@dataclass
class Evidence:
    """One number (or quoted fact) a conclusion rests on, and where it came from.

    `source` is a file and line ("attachment2.log:14"), a probe ("probe:nvml"), a prediction
    ("prediction:roofline"), or what the reporter said ("ticket.toml").
    """

    source: str
    detail: str
    measured: Any = None
    expected: Any = None
    unit: str | None = None


@dataclass
class Finding:
    rule: str
    category: str
    severity: str
    confidence: float
    title: str
    summary: str
    evidence: list[Evidence] = field(default_factory=list)
    fix: str = ""
    references: list[str] = field(default_factory=list)
    ask: str = ""  # the artifact(s) to attach next, when the finding cannot judge without them

    def __post_init__(self):
        if self.category not in CATEGORIES:
            raise ValueError(f"finding {self.rule}: unknown category {self.category!r}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"finding {self.rule}: unknown severity {self.severity!r}")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"finding {self.rule}: confidence {self.confidence} outside 0..1")
        self.evidence = [e if isinstance(e, Evidence) else Evidence(**e) for e in self.evidence]

    @property
    def is_problem(self) -> bool:
        return self.severity in ("critical", "warning") and self.category not in (
            "healthy",
            "insufficient_data",
        )

    def sort_key(self):
        """Most important first: severity, then confidence, then problems over notes."""
        return (-SEVERITY_RANK[self.severity], -self.confidence, self.rule)


@dataclass
class Verdict:
    category: str
    confidence: float
    summary: str

    def __post_init__(self):
        if self.category not in CATEGORIES:
            raise ValueError(f"verdict: unknown category {self.category!r}")

    def names_the_cause(self) -> bool:
        """A confident verdict naming a problem: asking for more attachments under it is noise, so
        the text reports show no "attach next" (JSON keeps each finding's `ask` as data)."""
        return self.category not in ("insufficient_data", "healthy") and self.confidence >= CONFIDENT


# The confidence from which a verdict is stated as the cause rather than a lead to follow up.
CONFIDENT = 0.75


@dataclass
class Report:
    kind: str
    inputs: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    predictions: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    verdict: Verdict | None = None
    # Tables the renderers show before the findings: {title: {"columns": [...], "rows": [[...]]}}
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    tool_version: str = __version__
    schema: str = SCHEMA

    def __post_init__(self):
        if self.kind not in REPORT_KINDS:
            raise ValueError(f"unknown report kind {self.kind!r}")
        self.findings = sorted(self.findings, key=Finding.sort_key)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "kind": self.kind,
            "tool_version": self.tool_version,
            "inputs": _jsonable(self.inputs),
            "facts": _jsonable(self.facts),
            "predictions": _jsonable(self.predictions),
            "findings": [_jsonable(dataclasses.asdict(f)) for f in self.findings],
            "verdict": _jsonable(dataclasses.asdict(self.verdict)) if self.verdict else None,
            "tables": _jsonable(self.tables),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Report":
        """Read a report written by `to_dict` (ours or an older 1.x). A field of the wrong type
        (a hand-edited file, a damaged database row) is a ValueError naming the field."""
        _check_types(data)
        if not str(data.get("schema", "")).startswith("diagnose.report/1"):
            raise ValueError(f"not a diagnose report (schema {data.get('schema')!r})")
        verdict = data.get("verdict")
        return cls(
            kind=data["kind"],
            inputs=data.get("inputs") or {},
            facts=data.get("facts") or {},
            predictions=data.get("predictions") or {},
            findings=[Finding(**f) for f in data.get("findings") or []],
            verdict=Verdict(**verdict) if verdict else None,
            tables=data.get("tables") or {},
            tool_version=data.get("tool_version", "?"),
            schema=data["schema"],
        )

    def worst_severity(self) -> str:
        if not self.findings:
            return "ok"
        return max((f.severity for f in self.findings), key=SEVERITY_RANK.__getitem__)


_TOP_TYPES = {"schema": str, "kind": str, "tool_version": str, "inputs": dict, "facts": dict, "predictions": dict,
              "findings": list, "verdict": dict, "tables": dict}
_FINDING_TYPES = {"rule": str, "category": str, "severity": str, "confidence": (int, float), "title": str,
                  "summary": str, "evidence": list, "fix": str, "references": list}
_VERDICT_TYPES = {"category": str, "confidence": (int, float), "summary": str}
_EVIDENCE_TYPES = {"source": str, "detail": str, "unit": str}


def _check_types(data) -> None:
    """Every field the report's readers use has the type `to_dict` writes (None where optional)."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object (a report), got {_type_name(data)}")
    _fields(data, _TOP_TYPES, "")
    for i, f in enumerate(data.get("findings") or []):
        where = f"findings[{i}]"
        if not isinstance(f, dict):
            raise ValueError(f"field '{where}' must be an object, got {_type_name(f)}")
        _fields(f, _FINDING_TYPES, where + ".")
        for j, e in enumerate(f.get("evidence") or []):
            if not isinstance(e, dict):
                raise ValueError(f"field '{where}.evidence[{j}]' must be an object, got {_type_name(e)}")
            _fields(e, _EVIDENCE_TYPES, f"{where}.evidence[{j}].")
    if data.get("verdict") is not None:
        _fields(data["verdict"], _VERDICT_TYPES, "verdict.")
    _check_facts(data.get("facts") or {})


def _check_facts(facts: dict) -> None:
    """Each group of records the evidence classes define holds objects whose fields have the
    types those classes declare: the readers of a stored report (fleet, compare) use them as such."""
    kinds = _record_types()
    for kind, records in facts.items():
        if kind not in kinds:  # summaries a report adds (a scaling report's runs): read by no one as records
            continue
        if not isinstance(records, list):
            raise ValueError(f"field 'facts.{kind}' must be a list, got {_type_name(records)}")
        for i, record in enumerate(records):
            if not isinstance(record, dict):
                raise ValueError(f"field 'facts.{kind}[{i}]' must be an object, got {_type_name(record)}")
            _fields(record, kinds[kind], f"facts.{kind}[{i}].")


def _record_types() -> dict[str, dict]:
    """{record kind: {field: Python types}} for every registered fact type (evidence.FACT_TYPES),
    from their annotations ('int | None' -> int; Any and other classes unchecked)."""
    global _RECORD_TYPES
    if _RECORD_TYPES is None:
        import re

        from diagnose.evidence import FACT_TYPES

        simple = {"int": int, "float": (int, float), "str": str, "bool": bool, "list": list, "tuple": list,
                  "dict": dict}
        _RECORD_TYPES = {}
        for kind, cls in FACT_TYPES.items():
            types = {}
            for f in dataclasses.fields(cls):
                names = {re.split(r"\[", part.strip())[0] for part in str(f.type).split("|")} - {"None"}
                if len(names) == 1 and next(iter(names)) in simple:
                    types[f.name] = simple[next(iter(names))]
            _RECORD_TYPES[kind] = types
    return _RECORD_TYPES


_RECORD_TYPES: dict | None = None


def _fields(obj: dict, types: dict, prefix: str) -> None:
    import math

    for name, kind in types.items():
        value = obj.get(name)
        if value is None:
            continue
        if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
            raise ValueError(f"field '{prefix}{name}' must be {_type_name(kind)}, got {_type_name(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"field '{prefix}{name}' is {value}, not a finite number")


def _type_name(value) -> str:
    """'an object', 'a string', ... for a JSON value or for one of the types above."""
    names = {dict: "object", list: "list", str: "string", int: "integer", float: "number", bool: "boolean",
             type(None): "null"}
    if isinstance(value, tuple):
        return "a number"
    name = names[value] if isinstance(value, type) else names.get(type(value), type(value).__name__)
    return ("an " if name[0] in "aeiou" else "a ") + name
