"""Renderers: one module per format. `write` picks one and sends it to stdout or a file."""

from __future__ import annotations

import os
import shutil
import sys

FORMATS = ("terminal", "json", "md", "html")


def render(report, fmt: str, color: bool = False, width: int | None = None) -> str:
    """The report as text in `fmt`."""
    if fmt == "json":
        from diagnose.report.json_report import render_json

        return render_json(report)
    if fmt == "md":
        from diagnose.report.markdown import render_markdown

        return render_markdown(report)
    if fmt == "html":
        from diagnose.report.html import render_html

        return render_html(report)
    if fmt == "terminal":
        from diagnose.report.terminal import render_terminal

        return render_terminal(report, color=color, width=width)
    raise ValueError(f"unknown format {fmt!r}")


def write(report, fmt: str, output: str | None = None) -> None:
    """Print the report, or write it to `output` (never coloured)."""
    if output:
        from diagnose.errors import InputError
        from diagnose.outputs import write_atomic

        try:
            write_atomic(output, render(report, fmt))  # temp file + rename: never half a report
        except OSError as exc:
            raise InputError(f"cannot write {output}: {exc.strerror or exc}") from None
        return
    tty = sys.stdout.isatty()
    color = fmt == "terminal" and tty and not os.environ.get("NO_COLOR")  # https://no-color.org
    width = None
    if fmt == "terminal":
        from diagnose.report.terminal import DEFAULT_WIDTH, env_width

        width = env_width() or (shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns if tty else DEFAULT_WIDTH)
    text = render(report, fmt, color=color, width=width)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
