"""`diagnose fleet`: which nodes are weaker than their peers."""

from __future__ import annotations

import click

from diagnose.commands.options import FiniteFloat, InputPath, output_options, since_option


def _report_files(paths) -> list:
    """The files fleet reads: each file given, and the *.json directly inside each folder given."""
    from pathlib import Path

    files = []
    for p in map(Path, paths):
        files += sorted(p.glob("*.json")) if p.is_dir() else [p]
    return files


@click.command("fleet")
@click.argument("reports", nargs=-1, type=InputPath("report", folder=None))
@click.option("--db", "db_path", type=InputPath("database", missing_ok=True),
              help="Read the latest node run of each host from this results database.")
@since_option("With --db: only runs since 7d, 12h, or an ISO date.")
@click.option("--z", "z_threshold", type=FiniteFloat(0, 1000, low_open=True), default=3.5, show_default=True,
              help="Robust z-score beyond which a node is an outlier.")
@output_options(reads=lambda params: {"reports": [str(f) for f in _report_files(params["reports"])]})
def fleet(reports, db_path, since, z_threshold):
    """Find outlier nodes among many `diagnose node` reports.

    REPORTS are node report JSON files or folders of them (collected from every node by your
    scheduler), or use --db to read the latest node run of each host from the results store.
    Nodes are grouped by GPU model; per metric (bus bandwidth per message size, small-message
    latency, HBM and GEMM rate, fewest active NVLinks on one GPU, PCIe width and gen) the fleet's median and MAD
    decide who is out of line.

    \b
    Examples:
      diagnose fleet samples/fleet/*.json
      diagnose fleet --db /shared/diagnose.db --since 1d \\
          --format html -o fleet.html
    """
    from diagnose.errors import InputError
    from diagnose.fleet import fleet_report, node_metrics

    if not reports and not db_path:
        raise InputError("give node report files or folders, or --db PATH")
    if since and not db_path:
        raise InputError(f"--since {since} filters the runs of --db; give --db PATH (report files carry no run time)")
    from_files, duplicates, skipped = _from_files(reports)
    loaded = from_files + (list(_from_db(db_path, since)) if db_path else [])
    if not loaded:
        where = [f"{p} ({'no node report among its *.json files' if skipped else 'no *.json files'})"
                 for p in reports] + skipped
        if db_path:
            where.append(f"{db_path} (no node runs{' since ' + since if since else ''})")
        raise InputError(f"no node reports found in {'; '.join(where)}")
    nodes = [node_metrics(r, source, name) for r, source, name in loaded]
    seen: dict[str, int] = {}
    for n in nodes:  # two reports from one host: keep both, named apart
        seen[n.node] = seen.get(n.node, 0) + 1
        if seen[n.node] > 1:
            n.node = f"{n.node}#{seen[n.node]}"
    report = fleet_report(nodes, z_threshold)
    if skipped:  # one crashed node's empty file, or a fleet report saved beside the node reports
        report.inputs["skipped"] = skipped
        _note_first(report, "file(s) in the folder(s) given are not node reports and were left out:", skipped, "; ")
    if duplicates:
        report.inputs["duplicates_dropped"] = len(duplicates)
        _note_first(report, "duplicate report(s) counted once:", duplicates, ", ")
    return report


def _note_first(report, what: str, files: list[str], sep: str) -> None:
    """Put 'N <what> <the first five files>.' before the fleet table's note."""
    table = report.tables["Fleet"]
    table["note"] = (f"{len(files)} {what} {sep.join(files[:5])}{sep + '...' if len(files) > 5 else ''}. "
                     + table["note"])


def _from_files(paths) -> tuple[list, list[str], list[str]]:
    """The node reports in the files and folders given, each counted once: a file named twice
    (or also found in a folder given), or a copy of a report that names its host, would be one
    node counted as several and could make up the fleet's minimum on its own.

    A file named on the command line that is not a node report is bad input (exit 2); one found
    inside a folder is listed as skipped, so one empty or foreign file does not lose the fleet."""
    import hashlib
    from pathlib import Path

    from diagnose.errors import InputError

    given = {Path(p) for p in paths if not Path(p).is_dir()}
    loaded, duplicates, skipped, seen = [], [], [], {}
    for f in _report_files(paths):
        try:
            text, report = _node_report(f)
        except InputError as exc:
            if f in given:
                raise
            skipped.append(str(exc))
            continue
        # Two nodes never write the same report to the last digit (a live one names its host, a
        # replay its recording): the same text is one report given twice, a copy; the first file
        # found stands for it.
        keys = [("path", f.resolve()), ("text", hashlib.sha256(text.encode()).hexdigest())]
        first = next((seen[k] for k in keys if k in seen), None)
        if first is not None:
            duplicates.append(f"{f} (= {first})" if f.resolve() != first.resolve() else str(f))
            continue
        seen.update((k, f) for k in keys)
        loaded.append((report, str(f), None))
    return loaded, duplicates, skipped


def _node_report(f):
    """The text and Report of one node report file; InputError naming the file otherwise."""
    from diagnose.errors import InputError
    from diagnose.findings import Report
    from diagnose.inputs import parse_json, read_text

    text = read_text(f, "report")  # kind and size checked first; not UTF-8 is bad input naming it
    try:
        report = Report.from_dict(parse_json(text, f))
    except InputError as exc:
        raise InputError(f"{f}: not a diagnose report JSON file ({str(exc).removeprefix(f'{f}: ')})") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{f}: not a diagnose report JSON file ({exc})") from None
    if report.kind != "node":
        raise InputError(f"{f}: a {report.kind} report; fleet compares node reports (diagnose node --json)")
    return text, report


def _from_db(db_path, since):
    from diagnose import store

    db = store.open_db(db_path, create=False)
    latest = {}
    for row in store.runs(db, kind="node", since=since, limit=None):
        latest.setdefault(row["host"], row["id"])  # newest first
    for host, run_id in sorted(latest.items()):
        yield store.load(db, run_id), f"run {run_id}", host
