"""`diagnose fleet`: which nodes are weaker than their peers."""

from __future__ import annotations

import click

from diagnose.cli import output_options


@click.command("fleet")
@click.argument("reports", nargs=-1, type=click.Path(exists=True, dir_okay=True))
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Read the latest node run of each host from this results database.")
@click.option("--since", help="With --db: only runs since 7d, 12h, or an ISO date.")
@click.option("--z", "z_threshold", type=float, default=3.5, show_default=True, help="Robust z-score beyond which a node is an outlier.")
@output_options
def fleet(reports, db_path, since, z_threshold):
    """Find outlier nodes among many `diagnose node` reports.

    REPORTS are node report JSON files or folders of them (collected from every node by your
    scheduler), or use --db to read the latest node run of each host from the results store.
    Nodes are grouped by GPU model; per metric (bus bandwidth per message size, small-message
    latency, HBM and GEMM rate, active NVLinks, PCIe width and gen) the fleet's median and MAD
    decide who is out of line.

    \b
    Examples:
      diagnose fleet reports/*.json
      diagnose fleet --db /shared/diagnose.db --since 1d --format html -o fleet.html
    """
    from diagnose.errors import InputError
    from diagnose.fleet import fleet_report, node_metrics

    if not reports and not db_path:
        raise InputError("give node report files or folders, or --db PATH")
    loaded = list(_from_files(reports)) + (list(_from_db(db_path, since)) if db_path else [])
    if not loaded:
        raise InputError("no node reports found in the given files, folders or database")
    nodes = [node_metrics(r, source, name) for r, source, name in loaded]
    seen: dict[str, int] = {}
    for n in nodes:  # two reports from one host: keep both, named apart
        seen[n.node] = seen.get(n.node, 0) + 1
        if seen[n.node] > 1:
            n.node = f"{n.node}#{seen[n.node]}"
    return fleet_report(nodes, z_threshold)


def _from_files(paths):
    import json
    from pathlib import Path

    from diagnose.errors import InputError
    from diagnose.findings import Report

    files = []
    for p in map(Path, paths):
        files += sorted(p.glob("*.json")) if p.is_dir() else [p]
    for f in files:
        try:
            report = Report.from_dict(json.loads(f.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{f}: not a diagnose report JSON file ({exc})") from None
        if report.kind != "node":
            raise InputError(f"{f}: a {report.kind} report; fleet compares node reports (diagnose node --json)")
        yield report, str(f), None


def _from_db(db_path, since):
    from diagnose import store

    db = store.open_db(db_path, create=False)
    latest = {}
    for row in store.runs(db, kind="node", since=since, limit=None):
        latest.setdefault(row["host"], row["id"])  # newest first
    for host, run_id in sorted(latest.items()):
        yield store.load(db, run_id), f"run {run_id}", host
