"""The terminal renderer (rich): colour on a TTY, plain and readable when piped."""

from __future__ import annotations

import io

from diagnose.report.text import SEVERITY_MARK, fmt_value

STYLE = {"critical": "bold red", "warning": "yellow", "info": "cyan", "ok": "green"}


def render_terminal(report, color: bool = False, width: int | None = None) -> str:
    from rich.console import Console
    from rich.table import Table
    from rich import box

    buf = io.StringIO()
    console = Console(
        file=buf,
        force_terminal=color,
        no_color=not color,
        width=width or (None if color else 120),
        highlight=False,
        emoji=False,
    )
    v = report.verdict
    if v:
        style = "green" if v.category == "healthy" else ("cyan" if v.category == "insufficient_data" else "bold red")
        console.print(f"[{style}]Verdict: {v.category}[/] (confidence {v.confidence:.2f})")
        console.print(v.summary, markup=False)
        console.print()
    for title, table in report.tables.items():
        t = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
        for col in table["columns"]:
            t.add_column(str(col), overflow="fold")
        for row in table["rows"]:
            t.add_row(*(fmt_value(c) for c in row))
        console.print(t)
        if table.get("note"):
            console.print(table["note"], markup=False)
        console.print()
    for i, f in enumerate(report.findings, 1):
        mark = SEVERITY_MARK[f.severity]
        console.print(f"[{STYLE[f.severity]}]{i}. {mark}[/] [bold]{f.rule}[/] ({f.category}, {f.confidence:.2f})")
        console.print(f"   {f.title}", markup=False)
        console.print(f"   {f.summary}", markup=False)
        if f.evidence:
            t = Table(box=box.SIMPLE, show_header=True, padding=(0, 1), pad_edge=False)
            for col in ("source", "detail", "measured", "expected"):
                t.add_column(col, overflow="fold")
            for e in f.evidence:
                t.add_row(e.source, e.detail, fmt_value(e.measured, e.unit), fmt_value(e.expected, e.unit))
            console.print(t)
        if f.fix:
            console.print(f"   Fix: {f.fix}", markup=False)
        console.print()
    if not report.findings:
        console.print("No findings.")
    return buf.getvalue()
