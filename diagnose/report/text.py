"""Small formatting helpers shared by the text renderers."""

from __future__ import annotations

import re
from pathlib import PurePath

from diagnose.formatting import fmt_value  # noqa: F401 - the renderers' formatter

SEVERITY_MARK = {"critical": "CRITICAL", "warning": "WARNING", "info": "info", "ok": "ok"}


# Verdicts that say the system is as it should be: shown as good news, never in alarm colours.
NORMAL = ("healthy", "expected_physics")


def needless_ask(finding, verdict) -> bool:
    """A finding's "attach X" fix under a verdict that already names the cause (Verdict.names_the_cause): a gap's,
    or a lead's whose fix is only to attach more (a figure below its band asks for the artifacts the ticket lacks)."""
    asks_only = finding.category == "insufficient_data" or (finding.fix or "").startswith("attach ")
    return asks_only and verdict is not None and verdict.names_the_cause()


# Reports whose asks stand beside a confident verdict: a fleet's verdict may be one node's own cause, which
# says nothing about the nodes that could not be compared.
ASKS_STAND = ("fleet",)


# The ticket command's own table of what to attach: a report that has it needs no Next list besides.
ATTACH_TABLE = "What to attach next"


def next_steps(report) -> list[tuple[str, str]]:
    """(rule, ask): what to run or attach next, from each finding's structured `ask`, once each.
    Nothing when the verdict already names the cause (more evidence would change nothing), and
    nothing where the report lists its asks in its own table (a ticket's ATTACH_TABLE)."""
    v = report.verdict
    if (v is not None and v.names_the_cause() and report.kind not in ASKS_STAND) or ATTACH_TABLE in report.tables:
        return []
    first: dict[str, str] = {}
    for f in report.findings:
        if f.ask:
            first.setdefault(f.ask, f.rule)
    return [(rule, ask) for ask, rule in first.items()]


def said_next(finding, steps) -> bool:
    """A fix that only says "attach <its ask>": the Next list says it, once."""
    return finding.fix == f"attach {finding.ask}" and any(ask == finding.ask for _rule, ask in steps)


def confidence_note(verdict) -> str:
    """' (confidence 0.80)'; nothing for insufficient_data, whose verdict is a question, not a
    conclusion (a 0.00 beside its finding's 0.95 reads as a contradiction)."""
    return "" if verdict.category == "insufficient_data" else f" (confidence {verdict.confidence:.2f})"


def local_name(value):
    """Paths as the reader of a pasted or attached report knows them: each file's name, not this
    machine's folders ("config:/home/me/x/config.json" -> "config:config.json")."""
    if isinstance(value, (list, tuple)):
        return [local_name(v) for v in value]
    if isinstance(value, str):
        return _LOCAL_PATH.sub(lambda m: PurePath(m[0]).name or m[0], value)
    return value


# an absolute, home or relative path at the start of the text or after a space, '(', ':' or '='
_LOCAL_PATH = re.compile(r"(?:(?<=^)|(?<=[\s(:=]))(?:/(?!/)|~/|\.\.?/)[^\s()\[\]<>`'\",;]*[^\s()\[\]<>`'\",;:./]")
