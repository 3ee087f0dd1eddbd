"""The terminal renderer (rich): colour on a TTY, plain and readable when piped."""

from __future__ import annotations

import io

from diagnose.report.text import SEVERITY_MARK, fmt_value

STYLE = {"critical": "bold red", "warning": "yellow", "info": "cyan", "ok": "green"}


def render_terminal(report, color: bool = False, width: int | None = None) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

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
        if not table["rows"]:  # a header over nothing reads like a rendering fault
            console.print(f"{title}: none", markup=False)
            if table.get("note"):
                console.print(table["note"], markup=False)
            console.print()
            continue
        cells = [[fmt_value(c) for c in row] for row in table["rows"]]
        # the title on its own line: as a rich table title it wraps at the width of a narrow table
        console.print(Text(title, style="bold" if color else ""))
        if len(cells) > PLAIN_ROWS:
            console.print(_plain_table([str(c) for c in table["columns"]], cells), markup=False, highlight=False,
                          soft_wrap=True)
        else:
            _print_table(console, [str(c) for c in table["columns"]], cells,
                         lambda part: Table(title=None if part == 0 else "(continued)", box=box.SIMPLE_HEAD,
                                            title_justify="left"))
        if table.get("note"):
            console.print(table["note"], markup=False)
        console.print()
    for i, f in enumerate(report.findings, 1):
        mark = SEVERITY_MARK[f.severity]
        console.print(f"[{STYLE[f.severity]}]{i}. {mark}[/] [bold]{f.rule}[/] ({f.category}, {f.confidence:.2f})")
        _indented(console, f.title)
        _indented(console, f.summary)
        if f.evidence:
            cells = [[e.source, e.detail, fmt_value(e.measured, e.unit), fmt_value(e.expected, e.unit)] for e in f.evidence]
            _print_table(console, ["source", "detail", "measured", "expected"], cells,
                         lambda part: Table(box=box.SIMPLE, show_header=True, padding=(0, 1), pad_edge=False))
        if f.fix:
            _indented(console, f"Fix: {f.fix}")
        console.print()
    if not report.findings:
        console.print("No findings.")
    text = buf.getvalue()
    # piped: no padding to the console width, so the text pastes and diffs cleanly
    return text if color else "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def _indented(console, text: str) -> None:
    """A finding's paragraph, wrapped under its number rather than at the left margin."""
    from rich.padding import Padding
    from rich.text import Text

    console.print(Padding(Text(text), (0, 0, 0, 3)))


PLAIN_ROWS = 500  # longer tables (--stats of a capture naming thousands of ranges) print as plain columns


def _plain_table(headers: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, the last one (a name) left whole, as `nsys stats`
    prints: linear in the rows, where laying out a rich table of 16 k rows took 15 s."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers[:-1])]
    line = "  ".join("{:>%d}" % w for w in widths) + "  {}"
    out = [line.format(*headers), line.format(*("-" * w for w in widths), "-" * len(headers[-1]))]
    out += [line.format(*r) for r in rows]
    return "\n".join(out)


FOLDABLE = 16  # a token longer than this (a path, a long kernel name) may be folded; shorter ones never are


def _print_table(console, headers: list[str], rows: list[list[str]], new_table) -> None:
    """A table that fits the console without breaking a header word or a short value.

    Left alone, rich squeezes the widest columns first and cuts words anywhere ("prefil l").
    Here every column keeps at least its longest word (header or cell) of up to FOLDABLE
    characters; only longer tokens (paths, kernel names) fold. A table too wide even so is printed in parts, each
    repeating the first column, rather than cut into unreadable slivers. `new_table(part)` makes
    an empty rich Table for part 0, 1, ...
    """
    columns = [[header] + [str(row[i]) for row in rows] for i, header in enumerate(headers)]
    keep = [max([len(w) for text in col for w in text.split() if len(w) <= FOLDABLE] + [1]) for col in columns]
    for part, group in enumerate(_column_groups(keep, console.width, new_table(0))):
        table = new_table(part)
        widths = _widths([columns[i] for i in group], [keep[i] for i in group], console.width - _overhead(table, len(group)))
        for i, width in zip(group, widths):
            table.add_column(headers[i], overflow="fold", width=width)
        for row in rows:
            table.add_row(*(row[i] for i in group))
        console.print(table)


def _column_groups(keep: list[int], width: int, table) -> list[list[int]]:
    """Column indices per printed part: as many as fit at their unbreakable widths, the first
    column (what each row is) repeated in every part."""
    groups = [[0]]
    for i in range(1, len(keep)):
        group = groups[-1] + [i]
        if sum(keep[j] for j in group) + _overhead(table, len(group)) <= width or len(groups[-1]) == 1:
            groups[-1] = group
        else:
            groups.append([0, i])
    return groups


def _widths(columns: list[list[str]], keep: list[int], available: int) -> list[int | None]:
    """Natural widths when they fit; else fold the longest tokens first (never below `keep`) and
    give what is left to the columns whose text wraps the most."""
    longest = [max(len(line) for text in col for line in (text.splitlines() or [""])) for col in columns]
    if sum(longest) <= available:
        return [None] * len(columns)
    widths = [max([k] + [len(w) for text in col[1:] for w in text.split()]) for k, col in zip(keep, columns)]
    while sum(widths) > available:
        i = max(range(len(widths)), key=lambda k: widths[k] - keep[k])
        if widths[i] <= keep[i]:
            break
        widths[i] -= 1
    spare = available - sum(widths)
    while spare > 0:
        i = max(range(len(widths)), key=lambda k: (longest[k] - widths[k]) / longest[k])
        if widths[i] >= longest[i]:
            break
        widths[i] += 1
        spare -= 1
    return widths


def _overhead(table, n: int) -> int:
    """Cells the borders and padding of `table` take around n columns."""
    left, right = table.padding[3], table.padding[1]
    edges = 2 if table.show_edge and table.box else 0
    inner = (n - 1) if table.box else 0
    pad = n * (left + right) - (0 if table.pad_edge else left + right)
    return pad + inner + edges
