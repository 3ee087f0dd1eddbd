"""`--format md`: a report to paste into a ticket. Plain GitHub-flavoured Markdown.

Paste-ready: every string is escaped (report.escape.markdown) so an attachment's text stays
text, local folders are not shown, passing checks are one line, references are listed once.
"""

from __future__ import annotations

from diagnose.report.escape import markdown as esc
from diagnose.report.text import (
    SEVERITY_MARK,
    confidence_note,
    fmt_value,
    local_name,
    needless_ask,
    next_steps,
    said_next,
)


def _cell(value) -> str:
    return esc(fmt_value(value), line_start=False)


def _prose(text, line_start: bool = True) -> str:
    """Text outside a table: a '|' in a code span needs no escape there (it would print as `\\|`)."""
    return esc(text, line_start=line_start, in_table=False)


def _table(columns, rows) -> list[str]:
    out = ["| " + " | ".join(_cell(c) for c in columns) + " |"]
    out.append("|" + "---|" * len(columns))
    for row in rows:
        out.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return out


def render_markdown(report) -> str:
    lines = [f"## diagnose {esc(report.kind)} report", ""]
    v = report.verdict
    if v:
        lines += [f"**Verdict: `{v.category}`**{confidence_note(v)}", "", _prose(v.summary), ""]
    shown = {k: val for k, val in report.inputs.items() if val not in (None, [], (), "", False)}
    if shown:
        given = ", ".join(f"{esc(k)}={esc(fmt_value(local_name(val)))}" for k, val in shown.items())
        lines.append("**Inputs:** " + given)
        lines.append("")
    for title, table in report.tables.items():
        lines += [f"### {esc(title)}", ""]
        lines += _table(table["columns"], table["rows"])
        if table.get("note"):
            lines += ["", _prose(table["note"])]
        lines.append("")
    problems = [f for f in report.findings if f.severity != "ok"]
    passed = [f for f in report.findings if f.severity == "ok"]
    if problems:
        lines += ["### Findings", ""]
    references: list[str] = []
    steps = next_steps(report)
    for i, f in enumerate(problems, 1):
        lines.append(
            f"{i}. **{SEVERITY_MARK[f.severity]}** `{f.rule}` ({f.category}, confidence {f.confidence:.2f}): "
            f"{_prose(f.title)}"
        )
        lines.append("")
        lines.append(f"   {_prose(f.summary)}")
        lines.append("")
        if f.evidence:
            lines += ["   " + row for row in _evidence_table(f.evidence)]
            lines.append("")
        if f.fix and not needless_ask(f, v) and not said_next(f, steps):
            lines += [f"   **Fix:** {_prose(f.fix)}", ""]
        references += [r for r in f.references if r not in references]
    if steps:
        lines += ["### Next", ""] + [f"- {_prose(ask, line_start=False)} (`{rule}`)" for rule, ask in steps] + [""]
    if passed:
        checks = "; ".join(f"`{rule}` ({_prose(title)})" for rule, title in _once(passed))
        lines += ["**Checks that passed:** " + checks, ""]
    if references:
        lines += ["**References:** " + ", ".join(_link(r) for r in references), ""]
    lines.append(f"<sub>diagnose {esc(report.tool_version, line_start=False)}, {esc(report.schema)}</sub>")
    return "\n".join(lines) + "\n"


def _once(passed) -> list[tuple[str, str]]:
    """Each passed rule once (a rule checked per rank or per GPU passes once per rank)."""
    return list({f.rule: f.title for f in reversed(passed)}.items())[::-1]


def _evidence_table(evidence) -> list[str]:
    rows = [[local_name(e.source), local_name(e.detail),
             fmt_value(e.measured, e.unit) if e.measured is not None else None,
             fmt_value(e.expected, e.unit) if e.expected is not None else None] for e in evidence]
    return _table(["source", "detail", "measured", "expected"], rows)


def _link(url: str) -> str:
    """Our own reference URLs as links; anything else as text."""
    if url.startswith("https://") and " " not in url and not any(c in url for c in "<>[]()`"):
        return f"<{url}>"
    return esc(url)
