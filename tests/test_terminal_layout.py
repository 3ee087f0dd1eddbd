"""The terminal report at the width it gets: COLUMNS honoured (also piped), NO_COLOR honoured on a
terminal, and at 80, 100 and 120 columns no word, number or unit broken across lines.

Each command's report is rendered once at a width where nothing wraps; every word of that
rendering must appear whole in the narrow one, and no number may end a line whose next line
starts with its unit.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from conftest import REPO

from diagnose.cli import cli

SAMPLES = REPO / "samples" / "captures"
RECORDINGS = REPO / "tests" / "recordings"
SCALING = REPO / "tests" / "data" / "scaling"

REPORTS = {
    "capture": ["capture", SAMPLES / "tp8_pcie_fallback.sqlite"],
    "capture-ranks": ["capture", *sorted(SAMPLES.glob("straggler_rank*.sqlite"))],
    "ticket": ["ticket", SAMPLES / "tp8_pcie_fallback.sqlite", "--format", "terminal"],
    "node": ["node", "--replay", RECORDINGS / "8x-a40-nvlink-pairs-two-sockets.json"],
    "predict": ["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "1,2,4,8"],
    "plan": ["plan", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", "8", "--context", "8192",
             "--concurrency", "64"],
    "scaling": ["scaling", SCALING / "vllm-16300-qwq-32b-a100-tp.csv", "--model", "qwen2.5-32b", "--gpu",
                "a100-80gb-sxm", "--prompt", "1", "--context", "200"],
    # a saved benchmark JSON, and reports whose Next list says what to run
    "scaling-bench": ["scaling", REPO / "samples/bench/llmd-llama-3.2-3b-l40s-tp1-dp4.json", "--model",
                      REPO / "samples/bench/llama-3.2-3b-config.json", "--gpu", "l40s"],
    "fleet": ["fleet", REPO / "samples/fleet"],
    "compare": ["compare", REPO / "samples/fleet/hgx-h100-nvlink-status-mig-disabled.json",
                REPO / "samples/fleet/dgx-h100-topo-numa.json"],
}
UNITS = r"(?:us|ms|s|%|GB/s|GiB|MiB|GB|tok/s|W|MHz)"


def _render(args, columns: int, **env) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args] + ["--fail-on", "never"], prog_name="diagnose",
                                env={"COLUMNS": str(columns), **env})
    assert result.exit_code == 0, (args, result.stderr)
    return result.stdout


@pytest.mark.parametrize("name", REPORTS)
def test_no_word_number_or_unit_is_broken(name):
    wide = _render(REPORTS[name], 1000)
    # layout, not content: table rules, empty-cell dashes, and column headers (the stacked layout
    # writes 'header: value' and drops the evidence table's header row)
    args = [a for a in REPORTS[name] if a not in ("--format", "terminal")]
    report = json.loads(_render(args + ["--json"], 1000))
    headers = {w for t in report["tables"].values() for c in t["columns"] for w in str(c).split()}
    headers |= {"source", "detail", "measured", "expected"}
    words = {w.strip(",;:()") for w in wide.split()} - headers - {"", "—", "-"}
    words = {w for w in words if set(w) - set("─━ ")}
    for width in (80, 100, 120):
        narrow = _render(REPORTS[name], width)
        found = {w.strip(",;:()") for w in narrow.split()}
        broken = sorted(w for w in words if w not in found and not any(w in f for f in found))
        assert not broken, (name, width, broken[:10])
        # (a stacked 'GB weights/GPU: 70.6' line starts with a unit word in its header: not a break)
        split_unit = re.search(r"\d\n(?![^\n]*: )\s*" + UNITS + r"\b", narrow)
        assert not split_unit, (name, width, narrow[max(0, split_unit.start() - 80):split_unit.end() + 20])
        long_lines = [line for line in narrow.splitlines() if len(line) > width and " " in line.strip()]
        assert not long_lines, (name, width, long_lines[:3])  # only a single unbreakable word may run past


def test_columns_is_honoured_when_piped():
    narrow = _render(REPORTS["capture"], 80)
    wide = _render(REPORTS["capture"], 160)
    assert max(len(line) for line in narrow.splitlines() if " " in line.strip()) <= 80
    assert max(len(line) for line in wide.splitlines()) > 120  # the width given, not the old fixed 120


def test_narrow_layout_stacks_fields():
    narrow = _render(REPORTS["capture"], 80)
    assert "    exposed comm ms: 67.0" in narrow  # 'column: value' under the GPU, not a squeezed table
    assert "exposed comm ms: " not in _render(REPORTS["capture"], 120)


def test_no_color_is_honoured_on_a_terminal(monkeypatch):
    """On a TTY the report is coloured, unless NO_COLOR is set (https://no-color.org)."""
    import io
    import sys

    from diagnose.findings import Finding, Report, Verdict
    from diagnose.report import write

    class Tty(io.StringIO):
        def isatty(self):
            return True

    report = Report(kind="capture", findings=[Finding("x.y", "comm_bound", "critical", 0.9, "title", "summary")],
                    verdict=Verdict("comm_bound", 0.9, "summary"))
    for no_color, coloured in (("", True), ("1", False)):
        out = Tty()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setenv("NO_COLOR", no_color)
        write(report, "terminal")
        assert ("\x1b[" in out.getvalue()) is coloured, no_color


@pytest.mark.parametrize("width", [80, 120])
def test_long_tables_print_one_line_per_row_whatever_the_width(width):
    """Tables over PLAIN_ROWS rows (18,000 NVTX ranges took rich 20 s) print as nsys stats prints:
    one line per row, figures right-aligned, the last column (a name) whole, nothing split into parts."""
    from diagnose.findings import Report
    from diagnose.report import terminal

    rows = [[i * 1000, 3.5, "PushPop", f"aten::op_{i}, op_id = {i * 7919} " + "word " * (i % 20)]
            for i in range(terminal.PLAIN_ROWS + 60)]
    report = Report(kind="capture", tables={"NVTX": {"columns": ["Total Time (ns)", "Avg", "Style", "Name"],
                                                     "rows": rows}})
    lines = terminal.render_terminal(report, width=width).splitlines()
    start = lines.index("NVTX")
    body = lines[start + 3:start + 3 + len(rows)]
    assert lines[start + 1].split() == ["Total", "Time", "(ns)", "Avg", "Style", "Name"]
    assert [line.split("  PushPop  ")[1] for line in body] == [r[3].rstrip() for r in rows]
    assert all(line.lstrip().startswith(f"{r[0]:,}") for line, r in zip(body, rows))


@pytest.mark.parametrize("rows", [2, 60])  # a rich table, and a plain one past PLAIN_ROWS
def test_a_unit_table_escapes_each_cell_once_and_keeps_numbers_with_their_units(monkeypatch, rows):
    """A unit column folds into the figures before it; every cell is still escaped once, by the table
    that prints it, and an escape sequence from an input never reaches the terminal."""
    from diagnose.findings import Report
    from diagnose.report import terminal

    seen = []
    real = terminal.esc
    monkeypatch.setattr(terminal, "esc", lambda value: seen.append(value) or real(value))
    body = [[f"gpu{i}\x1b[31m", "bf16_tflops", 600 + i, "TFLOP/s"] for i in range(rows)]
    report = Report(kind="node", tables={"Rates": {"columns": ["gpu", "metric", "value", "unit"], "rows": body}})
    out = terminal.render_terminal(report, width=120)
    cells = [c for c in seen if re.match(r"gpu\d|6\d\d ", str(c))]
    assert len(cells) == 2 * rows  # gpu and value cells, each once (the unit joined its value)
    assert "\x1b" not in out and "gpu1" in out and "601 TFLOP/s" in out


NAMED = {**REPORTS, "node-a100": ["node", "--replay", REPO / "samples" / "node" / "recording.json"]}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_names_are_never_wrapped_at_120_columns(name):
    """A name cell (a table's row label, or its `name` column: GPU, file, host) of at most
    LONG_NAME characters prints on one line at 120 columns: the tables split into parts rather
    than fold "pid 23009 cuda:0 (NVIDIA H100 80GB HBM3)" over five lines."""
    from diagnose.report.terminal import LONG_NAME, PLAIN_ROWS

    report = json.loads(CliRunner().invoke(cli,
                                           [str(a) for a in NAMED[name]] + ["--format", "json", "--fail-on", "never"],
                                           prog_name="diagnose").stdout)
    lines = _render(NAMED[name], 120).splitlines()
    names = {row[i] for table in (report.get("tables") or {}).values() if len(table.get("rows") or []) <= PLAIN_ROWS
             for i, column in enumerate(table.get("columns") or []) if i == 0 or str(column).lower() == "name"
             for row in table["rows"] if isinstance(row[i], str) and " " in row[i] and len(row[i]) <= LONG_NAME}
    shown = [n for n in names if any(n.split()[0] in line for line in lines)]
    assert shown or name not in ("capture", "capture-ranks", "node-a100"), names  # the reviewer's cases have names
    assert [n for n in shown if not any(n in line for line in lines)] == []

    def cut(n, line, below):  # a cell holding the name's first words only, and the next line its next word
        words = n.split()
        return n not in line and any(
            re.search(r"(^|\s\s)" + re.escape(" ".join(words[:k])) + r"(\s{2,}|$)", line)
            and below.strip().startswith(words[k]) for k in range(1, len(words)))
    assert [(n, line) for n in shown for line, below in zip(lines, lines[1:] + [""]) if cut(n, line, below)] == []


def test_per_rank_gpu_labels_say_the_shared_model_once():
    """Four rank files of one H100 run: each Per-GPU row is 'file pid N cuda:K' on one line at 120
    columns, and the GPU model they share is said once, in the table's note."""
    files = [REPO / "samples" / "captures" / f"straggler_rank{i}.sqlite" for i in range(4)]
    report = json.loads(CliRunner().invoke(cli, ["capture", *map(str, files), "--json", "--fail-on", "never"]).stdout)
    table = report["tables"]["Per-GPU breakdown"]
    labels = [row[0] for row in table["rows"]]
    assert labels == [f"straggler_rank{i}.sqlite pid {pid} cuda:{i}"
                      for i, pid in enumerate((23003, 23101, 23228, 23297))]
    assert "GPU model of every row: NVIDIA H100 80GB HBM3." in table["note"]
    text = _render(["capture", *files], 120)
    assert all(any(label in line for line in text.splitlines()) for label in labels)
