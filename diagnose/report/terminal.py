"""The terminal renderer (rich): colour on a TTY, plain and readable when piped.

Every string passes report.escape.terminal (no escape sequence from an input reaches the
terminal) and is handed to rich as Text, never as markup. Tables fit the width they get: below
STACK_BELOW columns each row is printed as stacked `column: value` lines; wider, columns keep
their longest word, a number keeps its unit, and names longer than LONG_NAME are shortened in
the middle, so nothing is broken across lines (unless that would print two distinct names of
one column alike: that column keeps its names whole, folded).
"""

from __future__ import annotations

import io
import os
import re

from diagnose.report.escape import terminal as esc
from diagnose.report.text import NORMAL, SEVERITY_MARK, confidence_note, fmt_value, needless_ask, next_steps, said_next

STYLE = {"critical": "bold red", "warning": "yellow", "info": "cyan", "ok": "green"}
DEFAULT_WIDTH = 120  # piped output without $COLUMNS
STACK_BELOW = 100
LONG_NAME = 40
SHORT_CELL = 20
PLAIN_ROWS = 200  # longer tables print as plain columns (see _plain_table)
GLUE = "\ue000"  # not whitespace to rich (a private-use character): holds a number to its unit; a space in the output

_UNIT = r"(?:us|ms|s|%|[kKMGT]i?B(?:/s)?|[kMG]b/s|GT/s|B|W|MHz|GHz|tok/s|x|C|bytes)(?![\w/])"
_NUMBER_UNIT = re.compile(r"(\d) (?=" + _UNIT + ")")
_RATIO = re.compile(r"(\d[x%]?) / (?=\d)")


def env_width() -> int | None:
    """$COLUMNS when it is a sensible width, honoured on a terminal and when piped."""
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return width if 20 <= width <= 1000 else None


def _text(value) -> str:
    """An input string as safe terminal text whose numbers stay beside their units."""
    text = esc(value)
    text = _NUMBER_UNIT.sub(r"\1" + GLUE, text)
    return _RATIO.sub(lambda m: f"{m[1]}{GLUE}/{GLUE}", text)


def _short(text: str) -> str:
    """Tokens longer than LONG_NAME shortened in the middle: the start and the end identify a
    kernel or a file better than a fold across three lines."""
    def cut(m):
        word = m[0]  # one its producer already shortened ("…") keeps what that producer chose to show
        if len(word) <= LONG_NAME or "…" in word:
            return word
        return word[: LONG_NAME // 2 - 1] + "…" + word[-(LONG_NAME // 2):]
    return re.sub(r"\S+", cut, text)


def _console(buf, color: bool, width: int | None):
    from rich.console import Console

    return Console(file=buf, force_terminal=color, no_color=not color, width=width or env_width() or DEFAULT_WIDTH,
                   highlight=False, emoji=False, markup=False)


def render_table(headers: list[str], rows: list[list], color: bool = False, width: int | None = None) -> str:
    """One table laid out as the reports lay out theirs (`diagnose history` prints runs this way)."""
    buf = io.StringIO()
    _table(_console(buf, color, width), headers, rows)
    text = buf.getvalue().replace(GLUE, " ")
    return text if color else "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def render_terminal(report, color: bool = False, width: int | None = None) -> str:
    from rich.text import Text

    buf = io.StringIO()
    console = _console(buf, color, width)
    v = report.verdict
    if v:
        style = "green" if v.category in NORMAL else ("cyan" if v.category == "insufficient_data" else "bold red")
        console.print(Text(f"Verdict: {v.category}", style=style) + Text(confidence_note(v)))
        _paragraph(console, v.summary)
        console.print()
    for title, table in report.tables.items():
        if not table["rows"]:  # a header over nothing reads like a rendering fault
            _paragraph(console, f"{title}: none")
            if table.get("note"):
                _paragraph(console, table["note"])
            console.print()
            continue
        _paragraph(console, title, style="bold" if color else "")
        _table(console, [str(c) for c in table["columns"]], [[fmt_value(c) for c in row] for row in table["rows"]])
        if table.get("note"):
            _paragraph(console, table["note"])
        console.print()
    problems = [f for f in report.findings if f.severity != "ok"]
    references: list[str] = []
    steps = next_steps(report)
    for i, f in enumerate(problems, 1):
        console.print(Text(f"{i}. {SEVERITY_MARK[f.severity]}", style=STYLE[f.severity]) + Text(" ")
                      + Text(f.rule, style="bold") + Text(f" ({f.category}, {f.confidence:.2f})"))
        _indented(console, f.title)
        _indented(console, f.summary)
        if f.evidence:
            rows = [[e.source, e.detail, fmt_value(e.measured, e.unit) if e.measured is not None else "—",
                     fmt_value(e.expected, e.unit) if e.expected is not None else "—"] for e in f.evidence]
            _print_table(console, ["source", "detail", "measured", "expected"], rows, head=False)
        if f.fix and not needless_ask(f, v) and not said_next(f, steps):
            _indented(console, f"Fix: {f.fix}")
        references += [r for r in f.references if r not in references]
        console.print()
    if steps:
        _paragraph(console, "Next:", style="bold" if color else "")
        for rule, ask in steps:
            _paragraph(console, f"- {ask} ({rule})", indent=2, hang=2)
        console.print()
    passed = [f for f in report.findings if f.severity == "ok"]
    if passed:
        _paragraph(console, "Checks that passed: " + ", ".join(dict.fromkeys(f.rule for f in passed)),
                   style="green" if color else "")
    if references:
        _paragraph(console, "References: " + " ".join(references))
    if not report.findings:
        console.print("No findings.")
    text = buf.getvalue().replace(GLUE, " ")
    # piped: no padding to the console width, so the text pastes and diffs cleanly
    return text if color else "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def _indented(console, text: str) -> None:
    """A finding's paragraph, wrapped under its number rather than at the left margin."""
    _paragraph(console, text, indent=3)


def _paragraph(console, text: str, indent: int = 0, style: str = "", hang: int = 0) -> None:
    """Prose wrapped between words only: a word longer than the line (a URL, a kernel name)
    runs past the margin whole rather than being cut (rich folds it, and crops padded text)."""
    _emit(console, [(line, style) for line in _lines(console, text, indent, hang)])


def _lines(console, text: str, indent: int = 0, hang: int = 0) -> list[str]:
    import textwrap

    return [" " * indent + line for line in textwrap.wrap(_text(text), width=max(20, console.width - indent),
                                                          break_long_words=False, break_on_hyphens=False,
                                                          subsequent_indent=" " * hang) or [""]]


def _emit(console, lines: list[tuple[str, str]]) -> None:
    """(line, style) pairs as one print: a long stacked table is one call, not one per line."""
    from rich.text import Text

    out = Text()
    for k, (line, style) in enumerate(lines):
        if k:
            out.append("\n")
        out.append(line, style=style or None)
    console.print(out, no_wrap=True, overflow="ignore", crop=False)


def _print_table(console, headers: list[str], rows: list[list[str]], head: bool) -> None:
    """A table for the console's width: a rich table when it fits or the console is wide; below
    STACK_BELOW columns a table that would wrap is stacked instead."""
    # a short cell with a figure ("16 / decode tok/s", "1.00x / 1x") is one value: never wrapped
    # inside; short words ("better, other layout") may wrap between them
    cells = [[_short(_text(c)).replace(" ", GLUE) if len(str(c)) <= SHORT_CELL and re.search(r"\d", str(c))
              else _short(_text(c)) for c in row] for row in rows]
    for i in range(len(headers)):  # a column whose distinct names shortening would merge keeps them whole
        if len({row[i] for row in cells}) < len({str(row[i]) for row in rows}):
            for row, raw in zip(cells, rows):
                row[i] = _text(raw[i])
    headers = [_text(h) for h in headers]
    natural = sum(max(len(c) for c in [h] + [row[i] for row in cells]) + 2 for i, h in enumerate(headers))
    too_wide = natural > console.width
    if not head and too_wide and (console.width < STACK_BELOW or not _fits_whole([headers] + cells, console.width)):
        # an evidence row is one statement (source, detail, measured, expected): split into parts it
        # would leave an orphan table of values with no detail beside them
        _stacked_evidence(console, cells)
    elif console.width < STACK_BELOW and natural > console.width:
        _stacked(console, headers, cells, indent=2)
    else:
        if not head:  # evidence rows from one source: the source once
            cells = [[c if i or n == 0 or c != cells[n - 1][0] else "" for i, c in enumerate(row)]
                     for n, row in enumerate(cells)]
        _columns(console, headers, cells, head)


_NUMBER = re.compile(r"-?[\d,]*\.?\d+")


def _units_inline(headers: list[str], rows: list[list]) -> tuple[list[str], list[list]]:
    """A "unit" column belongs to the numeric columns just before it: print each of their numbers
    with its unit and drop the column, so a table split into parts never shows a number in one
    part and its unit in the next. The cells stay raw: the table that prints them escapes each once."""
    if "unit" not in headers:
        return headers, rows
    u = headers.index("unit")
    cells = [[str(c) for c in row] for row in rows]
    first = u
    while first > 1 and all(_NUMBER.fullmatch(r[first - 1]) or r[first - 1] in ("", "—") for r in cells):
        first -= 1
    out = []
    for row in cells:
        unit = row[u] if row[u] not in ("", "—") else ""
        row = [f"{c} {unit}" if unit and first <= i < u and _NUMBER.fullmatch(c) else c for i, c in enumerate(row)]
        out.append(row[:u] + row[u + 1:])
    return headers[:u] + headers[u + 1:], out


def _table(console, headers: list[str], rows: list[list]) -> None:
    """A titled table of a report: laid out for the width below PLAIN_ROWS rows, plain above."""
    headers, rows = _units_inline(headers, rows)
    if len(rows) > PLAIN_ROWS:
        text = _plain_table([_text(h) for h in headers], [[_text(c) for c in row] for row in rows])
        console.print(text, no_wrap=True, overflow="ignore", crop=False, highlight=False)
    else:
        _print_table(console, headers, rows, head=True)


def _plain_table(headers: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, the last one (a name) left whole, as `nsys stats`
    prints: linear in the rows (laying out a rich table of 16 k NVTX ranges took 15 s), and a
    name is never split from its figures into a second part."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers[:-1])]
    line = "  ".join("{:>%d}" % w for w in widths) + "  {}"
    out = [line.format(*headers), line.format(*("-" * w for w in widths), "-" * len(headers[-1]))]
    out += [line.format(*r) for r in rows]
    return "\n".join(out)


def _stacked(console, headers: list[str], rows: list[list[str]], indent: int = 2) -> None:
    """Each row as its first cell, then `column: value` lines under it (skipping empty values); a
    first cell equal to the previous row's is not repeated."""
    out, previous = [], None
    bold = "bold" if console.is_terminal else ""
    for row in rows:
        if row[0] != previous:
            out += [(line, bold) for line in _lines(console, row[0], indent)]
        previous = row[0]
        for header, cell in zip(headers[1:], row[1:]):
            if cell not in ("", "-", "—"):
                out += [(line, "") for line in _lines(console, f"{header}: {cell}", indent + 2)]
    _emit(console, out)


def _stacked_evidence(console, rows: list[list[str]]) -> None:
    """Evidence rows (source, detail, measured, expected) as '- detail: measured (expected X)'
    under their source, each source once."""
    out, previous = [], None
    for source, detail, measured, expected in rows:
        if source != previous:
            out += [(line, "") for line in _lines(console, source, 3)]
        previous = source
        value = measured if measured not in ("", "—") else ""
        if expected not in ("", "—"):
            value = f"{value} (expected {expected})" if value else f"expected {expected}"
        out += [(line, "") for line in _lines(console, f"- {detail}: {value}" if value else f"- {detail}", 5, hang=2)]
    _emit(console, out)


def _columns(console, headers: list[str], rows: list[list[str]], head: bool) -> None:
    """A table that fits the console without breaking a word or a short value.

    Left alone, rich squeezes the widest columns first and cuts words anywhere ("prefil l").
    Here every column keeps at least its longest word (header or cell); names were already
    shortened to LONG_NAME. A table too wide even so is printed in parts, each repeating the
    first column, rather than cut into slivers.
    """
    from rich import box
    from rich.table import Table
    from rich.text import Text

    def new_table(part):
        if head:
            return Table(title=None if part == 0 else "(continued)", box=box.SIMPLE_HEAD, title_justify="left")
        return Table(box=box.SIMPLE, show_header=True, padding=(0, 1), pad_edge=False)

    columns = [[header] + [row[i] for row in rows] for i, header in enumerate(headers)]
    keep = _keep(columns)
    for part, group in enumerate(_column_groups(keep, console.width, new_table(0))):
        table = new_table(part)
        widths = _widths([columns[i] for i in group], [keep[i] for i in group],
                         console.width - _overhead(table, len(group)))
        for i, width in zip(group, widths):
            table.add_column(Text(headers[i]), overflow="fold", width=width)
        for row in rows:
            table.add_row(*(Text(row[i]) for i in group))
        console.print(table)


def _keep(columns: list[list[str]]) -> list[int]:
    """Each column's unbreakable width: its longest word (GLUE holds a number to its unit); the
    first column (what each row is, repeated in every part) its whole names."""
    keep = [max([len(w) for text in col for w in re.split(r"[ \n]+", text)] + [1]) for col in columns]
    keep[0] = max(keep[0], _whole(columns[0]))
    return keep


def _fits_whole(rows: list[list[str]], width: int) -> bool:
    """Evidence columns (header row first) fit side by side at their unbreakable widths (else they
    print stacked)."""
    from rich import box
    from rich.table import Table

    keep = _keep([list(col) for col in zip(*rows)])
    return sum(keep) + _overhead(Table(box=box.SIMPLE, padding=(0, 1), pad_edge=False), len(keep)) <= width


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
    """Natural widths when they fit; else fold the longest tokens first (never below `keep`), widen
    the columns whose names (up to LONG_NAME) then fit whole, and give what is left to the columns
    whose text wraps the most."""
    longest = [max(len(line) for text in col for line in (text.splitlines() or [""])) for col in columns]
    if sum(longest) <= available:
        return [None] * len(columns)
    widths = list(keep)
    spare = available - sum(widths)
    for i in sorted(range(len(widths)), key=lambda k: _whole(columns[k]) - widths[k]):  # names whole, shortest first
        grow = _whole(columns[i]) - widths[i]
        if 0 < grow <= spare:
            widths[i] += grow
            spare -= grow
    while spare > 0:
        i = max(range(len(widths)), key=lambda k: (longest[k] - widths[k]) / longest[k])
        if widths[i] >= longest[i]:
            break
        widths[i] += 1
        spare -= 1
    return widths


def _whole(column: list[str]) -> int:
    """Width that keeps every body cell of the column (a GPU, file or host name) on one line, for
    cells up to LONG_NAME (longer ones were shortened to it); the header may still wrap."""
    return max([len(line) for text in column[1:] for line in text.splitlines() if len(line) <= LONG_NAME] + [0])


def _overhead(table, n: int) -> int:
    """Cells the borders and padding of `table` take around n columns."""
    left, right = table.padding[3], table.padding[1]
    edges = 2 if table.show_edge and table.box else 0
    inner = (n - 1) if table.box else 0
    pad = n * (left + right) - (0 if table.pad_edge else left + right)
    return pad + inner + edges
