"""A `diagnose node --json` (or any diagnose.report/1) file attached to a ticket: its facts.

The report already holds typed facts, grouped by record type; they are rebuilt as the same
`diagnose.evidence` records, so the ticket's rules see a node probe's facts exactly as
`diagnose node` saw them. Each record keeps the source the probe gave it ("probe:nvml"),
prefixed with the file it came in ("node.json: probe:nvml"). The report's own findings are
not carried over: the ticket's rules decide again from the facts.
"""

from __future__ import annotations

import dataclasses
import json

from diagnose import evidence
from diagnose.evidence import Note, where

KIND = "diagnose_report"
EXCLUSIVE = True  # see artifacts.parse_text

# report key in Report.facts -> record class: the facts a node or ticket report carries (a capture
# report's timeline records describe its capture, not the node, and are not read back)
RECORD_TYPES = {key: cls for key, cls in evidence.FACT_TYPES.items()
                if cls not in evidence.CAPTURE_FACTS and cls is not evidence.ProbeFailure}


def detect(text: str) -> float:
    head = text[:2000]
    return 0.95 if head.lstrip().startswith("{") and '"diagnose.report/1' in head else 0.0


def parse(text: str, name: str) -> list:
    from diagnose.findings import Report

    try:
        report = Report.from_dict(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return [Note(where(name), "unreadable_file", f"{name}: not a readable diagnose report ({exc})")]
    out: list = [Note(where(name), "diagnose_report", f"diagnose {report.kind} report, tool {report.tool_version}",
                      {"kind": report.kind, "inputs": report.inputs})]
    return out + records(report.facts, name)


def records(facts, name: str) -> list:
    """A report's facts (its `facts` object) rebuilt as records, each source prefixed with `name`."""
    out: list = []
    facts = facts if isinstance(facts, dict) else {}
    for group, items in facts.items():
        cls = RECORD_TYPES.get(group)
        if cls is None or not isinstance(items, list):
            continue
        names = {f.name for f in dataclasses.fields(cls)}
        for item in items:
            if not isinstance(item, dict):
                continue
            fields = {k: v for k, v in item.items() if k in names}
            fields["source"] = f"{name}: {fields.get('source') or 'report'}"
            try:
                out.append(cls(**fields))
            except TypeError:  # a required field missing: an older or hand-edited report
                out.append(Note(where(name), "invalid_value", f"{group} record without its required fields",
                                {"record": item}))
    return out
