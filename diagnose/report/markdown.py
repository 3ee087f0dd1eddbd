"""`--format md`: a report to paste into a ticket. Plain GitHub-flavoured Markdown."""

from __future__ import annotations

from diagnose.report.text import SEVERITY_MARK, fmt_value


def _cell(value) -> str:
    return fmt_value(value).replace("|", "\\|").replace("\n", " ")


def _table(columns, rows) -> list[str]:
    out = ["| " + " | ".join(_cell(c) for c in columns) + " |"]
    out.append("|" + "---|" * len(columns))
    for row in rows:
        out.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return out


def render_markdown(report) -> str:
    lines = [f"## diagnose {report.kind} report", ""]
    v = report.verdict
    if v:
        lines += [f"**Verdict: `{v.category}`** (confidence {v.confidence:.2f})", "", v.summary, ""]
    if report.inputs:
        lines.append("**Inputs:** " + ", ".join(f"{k}={fmt_value(val)}" for k, val in report.inputs.items()))
        lines.append("")
    for title, table in report.tables.items():
        lines += [f"### {title}", ""]
        lines += _table(table["columns"], table["rows"])
        if table.get("note"):
            lines += ["", table["note"]]
        lines.append("")
    if report.findings:
        lines += ["### Findings", ""]
    for i, f in enumerate(report.findings, 1):
        lines.append(
            f"{i}. **{SEVERITY_MARK[f.severity]}** `{f.rule}` ({f.category}, confidence {f.confidence:.2f}): {f.title}"
        )
        lines.append("")
        lines.append(f"   {f.summary}")
        lines.append("")
        if f.evidence:
            lines += ["   " + row for row in _table(
                ["source", "detail", "measured", "expected", "unit"],
                [[e.source, e.detail, e.measured, e.expected, e.unit or ""] for e in f.evidence],
            )]
            lines.append("")
        if f.fix:
            lines += [f"   **Fix:** {f.fix}", ""]
        if f.references:
            lines += ["   References: " + ", ".join(f.references), ""]
    lines.append(f"<sub>diagnose {report.tool_version}, {report.schema}</sub>")
    return "\n".join(lines) + "\n"
