"""Findings from a fleet's spread: they read the rules.predictions.FleetSpread that
diagnose.fleet.analyse builds from the nodes' reports, and nothing else."""

from __future__ import annotations

from diagnose.findings import Evidence, Finding
from diagnose.formatting import fmt_value
from rules.engine import rule
from rules.predictions import FleetSpread

# Fewest nodes of one GPU model that can name an outlier: with two, the median is their mean and
# both sit at the same distance from it, so nothing says which one is off; with three, two that
# agree outvote the third (a majority is what the median and MAD stand on).
MIN_NODES = 3
HARD = ("nvlink_down", "pcie_link_degraded", "hardware_fault")  # a count or fault, not a rate: critical


def _fmt(value) -> str:
    return fmt_value(float(value))


@rule("fleet.outlier", "other", "throttling", *HARD, needs=FleetSpread)
def outlier(facts, spread: FleetSpread):
    """A node whose metric sits beyond the robust z threshold of the other nodes of its GPU model,
    in the bad direction (median and MAD: one broken node cannot hide by dragging the mean)."""
    per_node: dict[str, list] = {}
    for metric in spread.metrics:
        for p in metric.points:
            if p.outlier:
                per_node.setdefault(p.node, []).append((metric, p))
    for node, hits in sorted(per_node.items()):
        hits.sort(key=lambda mp: -mp[1].z)
        metric, worst = hits[0]
        hard = metric.category in HARD
        yield Finding(
            rule="fleet.outlier",
            category=metric.category,
            severity="critical" if hard else "warning",
            confidence=0.8 if len(hits) > 1 or hard else 0.6,
            title=f"{node} is an outlier in {len(hits)} metric(s) among {metric.nodes} {metric.group} nodes (worst: {metric.name})",
            summary=(
                f"{node}'s {metric.name} is {_fmt(worst.value)} {metric.unit} against a fleet median of "
                f"{_fmt(metric.median)} {metric.unit} (robust z {worst.z:+.1f}, threshold {spread.z_threshold}). "
                "Healthy nodes of the same model sit close together; this one does not."
            ),
            evidence=[
                Evidence(
                    source=p.source,
                    detail=f"{m.name}{' (' + p.detail + ')' if p.detail else ''}: fleet median of {m.nodes} "
                           f"{m.group} nodes, MAD {_fmt(m.mad)}; robust z {p.z:+.1f}",
                    measured=p.value, expected=m.median, unit=m.unit or None,
                )
                for m, p in hits
            ],
            fix="Take the node out of rotation and run `diagnose node` on it: check NVLink and PCIe link state, "
                "clocks and throttle reasons, ECC/XID, and that its drivers and firmware match the fleet's.",
        )


@rule("fleet.too_few_nodes", "insufficient_data", needs=FleetSpread)
def too_few_nodes(facts, spread: FleetSpread):
    """A GPU model with fewer than three nodes (MIN_NODES): its nodes cannot be judged against each other."""
    small = [g for g, n in spread.groups.items() if n < MIN_NODES]
    if small:
        listed = ", ".join(f"{g} ({spread.groups[g]})" for g in small)
        yield Finding(
            rule="fleet.too_few_nodes", category="insufficient_data", severity="info", confidence=0.0,
            title=f"too few nodes of one GPU model to judge: {listed}",
            summary=f"A fleet comparison needs at least {MIN_NODES} nodes of the same GPU model measured the same "
                    "way: with two, nothing says which one is out of line; with three, the two that agree outvote "
                    "the third.",
            fix=f"collect node reports from at least {MIN_NODES} nodes of each GPU model",
            ask=f"`diagnose node --standard --json -o $(hostname).json` on at least {MIN_NODES} nodes of each "
                f"model ({', '.join(small)}), then `diagnose fleet` on the folder of reports",
        )


@rule("fleet.no_outlier", "healthy", needs=FleetSpread)
def no_outlier(facts, spread: FleetSpread):
    """Every node within its GPU model's spread on every metric compared."""
    if spread.metrics and not any(p.outlier for m in spread.metrics for p in m.points):
        # Name only what was compared: nodes of a model with too few peers, and metrics too few
        # nodes measured, were not judged and must not read as healthy.
        judged: dict[str, int] = {}
        for m in spread.metrics:
            judged[m.group] = max(judged.get(m.group, 0), len(m.points))
        groups = ", ".join(f"{n} {g}" for g, n in judged.items())
        names = ", ".join(dict.fromkeys(m.name for m in spread.metrics))
        skipped = "; ".join(f"{name} on {n} of {spread.groups[g]} {g} nodes" for g, name, n in spread.uncompared)
        yield Finding(
            rule="fleet.no_outlier", category="healthy", severity="ok", confidence=0.8,
            title=f"no outlier among the nodes compared ({groups})",
            summary=f"Each compared node is within its GPU model's spread (robust z ≤ {spread.z_threshold}) on "
                    f"{len(spread.metrics)} metric(s) measured on at least {MIN_NODES} of its nodes: {names}."
                    + (f" Not compared, measured (the same way) on too few nodes: {skipped}." if skipped else ""),
        )
