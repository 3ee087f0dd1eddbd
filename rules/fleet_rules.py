"""Findings from a fleet's spread: they read the rules.predictions.FleetSpread that
diagnose.fleet.analyse builds from the nodes' reports, and nothing else. What counts as an
outlier (the robust z, its floors, the threshold) is decided here."""

from __future__ import annotations

import statistics

from diagnose.findings import Evidence, Finding
from diagnose.formatting import fmt_value
from rules.engine import rule
from rules.predictions import FleetSpread

# Fewest nodes of one GPU model that can name an outlier: with two, the median is their mean and
# both sit at the same distance from it, so nothing says which one is off; with three, two that
# agree outvote the third (a majority is what the median and MAD stand on).
MIN_NODES = 3
HARD = ("nvlink_down", "pcie_link_degraded", "hardware_fault")  # a count or fault, not a rate: critical
Z_THRESHOLD = 3.5  # Iglewicz and Hoaglin's cut-off for the modified z-score
MIN_RELATIVE = 0.03  # a node within 3% of the median is never an outlier, however tight the fleet
UNNAMED_GPU = "GPU not named in the report"  # the group of nodes whose report names no GPU model


def score(values: list[float], better: str, discrete: bool = False) -> tuple[float, float, list[float]]:
    """Median, MAD and each value's robust z-score, signed so that positive is worse.

    MAD is scaled by 1.4826 to estimate the standard deviation. In a tight fleet MAD can be
    zero, so the scale has a floor: 3% of the median for measured rates (run-to-run noise),
    half a unit for counts (one missing link or lane is real)."""
    median = statistics.median(values)
    mad = statistics.median(abs(v - median) for v in values)
    floor = 0.5 if discrete else MIN_RELATIVE * abs(median)
    scale = max(1.4826 * mad, floor / Z_THRESHOLD, 1e-12)
    sign = -1.0 if better == "higher" else 1.0
    return median, mad, [sign * (v - median) / scale for v in values]


def is_outlier(z: float, z_threshold: float = Z_THRESHOLD) -> bool:
    """Beyond the threshold in the bad direction (z is signed so that positive is worse)."""
    return z > z_threshold


def _fmt(value) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else fmt_value(value)


def _spread(m, p) -> str:
    """How far the node sits from its peers: the robust z, or, when the other nodes agree exactly
    (MAD 0), the plain difference (a z against the floor of the scale means nothing to a reader)."""
    if m.mad:
        return f"MAD {_fmt(m.mad)}; robust z {p.z:+.1f}"
    diff = p.value - m.median
    share = f", {100 * diff / m.median:+.1f}%" if m.median else ""
    return (f"the others agree exactly (MAD 0); off by {'+' if diff > 0 else ''}{_fmt(diff)}"
            f"{' ' + m.unit if m.unit else ''}{share}")


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
            title=f"{node} is an outlier in {len(hits)} metric(s) among {metric.nodes} {metric.group} nodes "
                  f"(worst: {metric.name})",
            summary=(
                f"{node}'s {metric.name} is {_fmt(worst.value)} {metric.unit} against a fleet median of "
                f"{_fmt(metric.median)} {metric.unit} ({_spread(metric, worst)}; z threshold {spread.z_threshold}). "
                "Healthy nodes of the same model sit close together; this one does not."
            ),
            evidence=[
                Evidence(
                    source=p.source,
                    detail=f"{m.name}{' (' + p.detail + ')' if p.detail else ''}: fleet median of {m.nodes} "
                           f"{m.group} nodes, {_spread(m, p)}",
                    measured=p.value, expected=m.median, unit=m.unit or None,
                )
                for m, p in hits
            ],
            fix="Take the node out of rotation and run `diagnose node` on it: check NVLink and PCIe link state, "
                "clocks and throttle reasons, ECC/XID, and that its drivers and firmware match the fleet's.",
        )


@rule("fleet.node_verdict", "pcie_fallback", "shm_fallback", "numa_affinity", "p2p_disabled", "nvlink_down",
      "pcie_link_degraded", "hardware_fault", "throttling", "other", needs=FleetSpread)
def node_verdict(facts, spread: FleetSpread):
    """A node whose own checks find a problem (its `diagnose node` verdict on the same facts), at that
    finding's severity: a fleet whose nodes are all broken the same way has no outlier, and must not
    read as healthy."""
    for v in spread.verdicts:
        if v.severity not in ("warning", "critical"):
            continue
        yield Finding(
            rule="fleet.node_verdict", category=v.category, severity=v.severity, confidence=v.confidence,
            title=f"{v.node}: {v.title}",
            summary=f"{v.node}'s own checks give {v.category} ({v.rule}, {v.severity}), as `diagnose node` says of "
                    "the same facts, whatever the other nodes show.",
            evidence=[Evidence(source=v.source, detail=f"{v.node}'s verdict", measured=v.category)]
                     + [Evidence(v.source, e.detail, e.measured, e.expected, e.unit) for e in v.evidence],
            fix=f"Run `diagnose node` on {v.node} (or `diagnose ticket {v.source}`) for the finding and its fix.",
        )


NODE_RUN = "`diagnose node --standard --json -o $(hostname).json`"


def _gap(rule_id: str, title: str, summary: str, fix: str, ask: str) -> Finding:
    """A fleet gap: what was not judged, and the node runs that would let it be."""
    return Finding(rule=rule_id, category="insufficient_data", severity="info", confidence=0.0, title=title,
                   summary=summary, fix=fix, ask=ask)


@rule("fleet.too_few_nodes", "insufficient_data", needs=FleetSpread)
def too_few_nodes(facts, spread: FleetSpread):
    """A GPU model with fewer than three nodes (MIN_NODES): its nodes cannot be judged against each other."""
    small = [g for g, n in spread.groups.items() if n < MIN_NODES and g != UNNAMED_GPU]
    if small:
        listed = ", ".join(f"{g} ({spread.groups[g]})" for g in small)
        yield _gap(
            "fleet.too_few_nodes", f"too few nodes of one GPU model to judge: {listed}",
            f"A fleet comparison needs at least {MIN_NODES} nodes of the same GPU model measured the same "
            "way: with two, nothing says which one is out of line; with three, the two that agree outvote "
            "the third.",
            f"collect node reports from at least {MIN_NODES} nodes of each GPU model",
            f"{NODE_RUN} on at least {MIN_NODES} nodes of each model ({', '.join(small)}), "
            "then `diagnose fleet` on the folder of reports",
        )


@rule("fleet.gpu_not_named", "insufficient_data", needs=FleetSpread)
def gpu_not_named(facts, spread: FleetSpread):
    """Too few nodes whose report names no GPU to compare them with each other: what they need is
    a report that names the GPU (then they join their model's nodes), not more nodes like them."""
    if 0 < spread.groups.get(UNNAMED_GPU, 0) < MIN_NODES:
        who = ", ".join(spread.members.get(UNNAMED_GPU) or [f"{spread.groups[UNNAMED_GPU]} node(s)"])
        yield _gap(
            "fleet.gpu_not_named", f"no GPU model named in the report of {who}",
            "A node is compared only with nodes of its own GPU model; a report that names no GPU has no "
            "peers to be judged against, however many such reports there are.",
            "collect a node report that names the GPUs",
            f"{NODE_RUN} on {who} (it reads the GPU names from NVML), or add `nvidia-smi -L` to the transcription",
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
        yield Finding(
            rule="fleet.no_outlier", category="healthy", severity="ok", confidence=0.8,
            title=f"no outlier among the nodes compared ({groups})",
            summary=f"Each compared node is within its GPU model's spread (robust z ≤ {spread.z_threshold}) on "
                    f"{len(spread.metrics)} metric(s) measured on at least {MIN_NODES} of its nodes: {names}.",
        )


@rule("fleet.not_compared", "insufficient_data", needs=FleetSpread)
def not_compared(facts, spread: FleetSpread):
    """A metric too few nodes of a model measured (the same way) is not judged: said as a gap of
    its own, so it shows in every format, not as the tail of a passed check."""
    if not spread.uncompared:
        return
    skipped = "; ".join(f"{name} on {n} of {spread.groups[g]} {g} nodes" for g, name, n in spread.uncompared)
    groups = ", ".join(dict.fromkeys(g for g, _name, _n in spread.uncompared))
    yield _gap(
        "fleet.not_compared", f"not compared, measured (the same way) on fewer than {MIN_NODES} nodes: {skipped}",
        "A metric is judged only across nodes that measured it the same way; these were measured on too "
        "few, so they are neither outliers nor healthy.",
        "collect the same `diagnose node` run on every node of the model",
        f"{NODE_RUN} on every {groups} node, then `diagnose fleet` on the folder of reports",
    )


def gpu_model(gpus: list[dict]) -> str:
    """The node's GPU model: the catalog row most of its GPUs resolve to (the pipeline fills
    `catalog_key` from the NVML name or the PCI device id, so "NVIDIA H100 80GB HBM3" and a GPU
    known only by PCI id 0x2330 are one model), else the most common raw name."""
    for field_name in ("catalog_key", "name"):
        models = [g.get(field_name) for g in gpus if g.get(field_name)]
        if models:
            return max(sorted(set(models)), key=models.count)
    return UNNAMED_GPU
