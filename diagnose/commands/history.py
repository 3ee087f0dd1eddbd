"""`diagnose history`: list the runs in the results database."""

from __future__ import annotations

import sys

import click

from diagnose.commands.options import SQLITE_MAX_INT, InputPath, since_option


@click.command("history")
@click.option("--db", "db_path", type=InputPath("database", missing_ok=True),
              help="Results database (default $DIAGNOSE_DB, else ~/.local/share/diagnose/runs.db).")
@click.option("--kind", type=click.Choice(["node", "capture", "ticket", "predict", "scaling", "plan"]),
              help="Only runs of this kind.")
@click.option("--host", help="Only runs from this host (SQL LIKE pattern when it holds %).")
@since_option("Only runs since: 7d, 12h, 30m, or an ISO date/time (UTC).")
@click.option("--limit", type=click.IntRange(min=1, max=SQLITE_MAX_INT), default=50, show_default=True,
              help="At most this many runs, newest first.")
@click.option("--json", "as_json", is_flag=True, help="Print the runs as a JSON list.")
def history(db_path, kind, host, since, limit, as_json):
    """List stored runs, newest first: id, time, kind, host, GPUs, versions and verdict.

    Runs are stored with --save on any report command (or always when $DIAGNOSE_DB is set);
    pass two run ids to `diagnose compare`.

    \b
    Examples:
      diagnose history --kind node --since 7d
      diagnose history --host 'gpu-node-%' --json
    """
    import json

    from diagnose import store

    db = store.open_db(db_path, create=False)
    rows = store.runs(db, kind=kind, host=host, since=since, limit=limit)
    if as_json:
        for r in rows:
            r["gpu_uuids"] = store.json_column(db, r, "gpu_uuids", [])
            r["inputs"] = store.json_column(db, r, "inputs", {})
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("No runs match.")
        return
    headers = ["id", "time", "kind", "host", "GPUs", "driver", "NCCL", "verdict", "worst"]
    cells = [
        [str(r["id"]), r["time"], r["kind"], r["host"] or "—",
         f"{r['gpu_count'] or 0}× {r['gpu_model']}" if r["gpu_model"] else "—",
         r["driver_version"] or "—", r["nccl_version"] or "—",
         f"{r['verdict']} ({r['confidence']:.2f})" if r["verdict"] else "—", r["worst_severity"] or "—"]
        for r in rows
    ]
    from diagnose.report.terminal import render_table

    click.echo(render_table(headers, cells, color=sys.stdout.isatty()), nl=False)
