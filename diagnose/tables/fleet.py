"""The table of a fleet report: one row per node, outliers marked."""

from __future__ import annotations

from diagnose.formatting import fmt_value
from rules.predictions import FleetSpread


def tables(nodes: list, spread: FleetSpread) -> dict[str, dict]:
    """nodes: the diagnose.fleet.NodeMetrics of each node."""
    return {"Fleet": fleet_table(nodes, spread)}


def fleet_table(nodes: list, spread: FleetSpread) -> dict:
    """One row per node: its group and the headline metrics, outliers marked with '!'."""
    outliers = {(p.node, m.name) for m in spread.metrics for p in m.points if p.outlier}
    # Columns: every metric, but of a bus bandwidth sweep only its largest size (sizes come in order).
    headline: dict[str, str] = {}
    for m in spread.metrics:
        prefix = m.name.rsplit(" ", 1)[0] if " busbw " in m.name else m.name
        headline[prefix] = m.name
    headline = list(headline.values())
    rows = []
    for n in sorted(nodes, key=lambda n: (n.group, n.node)):
        cells = []
        for name in headline:
            v = n.values.get(name)
            flagged = (n.node, name) in outliers
            cells.append(None if v is None else f"{fmt_value(v.value)} !" if flagged else v.value)  # a count stays int
        own = n.verdict.category if n.verdict is not None else None
        rows.append([n.node, n.group, own, sum(1 for o in outliers if o[0] == n.node)] + cells)
    return {
        "columns": ["node", "GPU", "own verdict", "outliers"] + headline,
        "rows": rows,
        "note": "'!' marks a value outside the fleet's spread for the same GPU model (median ± robust z).",
    }


