"""Find the weak nodes in a fleet from their `diagnose node` reports.

Each node report becomes a few comparable numbers (bus bandwidth per collective and message
size, small-message latency, HBM rate, GEMM rate, fewest active NVLinks on one GPU, PCIe width
and gen). Nodes are grouped by GPU model, and within a group each metric's spread is measured
robustly: the median and the median absolute deviation (MAD), so one broken node cannot hide
itself by dragging the mean. Which z makes an outlier is the rules' decision
(rules/fleet_rules.py: score, is_outlier); this module only gathers the values.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from diagnose.findings import Report
from rules.fleet_rules import MIN_NODES, Z_THRESHOLD, gpu_model, is_outlier, score
from rules.predictions import FleetMetric, FleetPoint, FleetSpread, NodeVerdict

SMALL_MESSAGE_BYTES = 64 << 10  # "small-message latency": the largest size at or below 64 KiB


@dataclass
class NodeMetrics:
    node: str
    group: str  # GPU model
    source: str  # report file or run id
    values: dict[str, "Value"] = field(default_factory=dict)
    verdict: NodeVerdict | None = None  # the node's own, from its facts through today's rules


@dataclass
class Value:
    value: float  # counts (links, lanes, gen) stay int: "18 links", never "18.0"
    unit: str
    better: str  # "higher" | "lower"
    category: str  # root-cause category of a node that is out of line on this metric
    discrete: bool = False  # counts (links, lanes, PCIe gen): any deficit of one matters
    detail: str = ""  # which GPU or link, for the evidence


def node_metrics(report: Report, source: str, name: str | None = None) -> NodeMetrics:
    """The fleet-comparable numbers of one node report; the node is called `name`, else its
    hostname fact, else the report file's name."""
    from diagnose.compare import collective_metrics, link_metrics

    facts = report.facts or {}
    hosts = {h.get("name"): h.get("value") for h in facts.get("host_fact") or []}
    gpus = facts.get("gpu_fact") or []
    node = NodeMetrics(
        node=str(name or hosts.get("hostname") or report.inputs.get("host") or Path(source).stem),
        group=gpu_model(gpus),
        source=source,
    )
    node.verdict = node_verdict(facts, source, node.node)
    values = node.values
    collectives = collective_metrics(facts)
    for m in collectives:
        if m.name == "busbw":
            values[f"{m.group} busbw {m.key}"] = Value(m.value, "GB/s", "higher", "other")
    small = _small_message_latency(collectives)
    if small:
        values[f"{small.group} latency {small.key}"] = Value(small.value, "us", "lower", "other")
    for metric, label, unit in (("hbm_gbs", "HBM rate (slowest GPU)", "GB/s"),
                                ("gemm_tflops", "GEMM rate (slowest GPU)", "TFLOPS")):
        rates = [float(m["value"]) for m in facts.get("measurement") or [] if m.get("metric") == metric]
        if rates:
            category = "throttling" if metric == "gemm_tflops" else "hardware_fault"
            values[label] = Value(min(rates), unit, "higher", category)
    # Best path per pair, per direction: a bidirectional copy moves twice the bytes of a
    # unidirectional one, so the two are different metrics and never compared with each other.
    by_direction: dict[str, list[float]] = {}
    for m in link_metrics(facts):
        if m.group.startswith("P2P GB/s "):
            by_direction.setdefault(m.group.removeprefix("P2P GB/s "), []).append(m.value)
    for direction, pairs in sorted(by_direction.items()):
        values[f"P2P copy GB/s {direction} (slowest pair)"] = Value(min(pairs), "GB/s", "higher", "other")
        values[f"P2P copy GB/s {direction} (median pair)"] = Value(statistics.median(pairs), "GB/s", "higher", "other")
    links = facts.get("nv_link_fact") or []
    if links:
        # Per GPU, not per node: a node total also counts how many GPUs its report shows, so a
        # report that reads 2 of 8 GPUs would look like 108 links down.
        active: dict = {}
        for link in links:
            active[link.get("gpu")] = active.get(link.get("gpu"), 0) + bool(link.get("active"))
        down = [f"GPU{link.get('gpu')} link {link['link']}" for link in links if not link.get("active")]
        values["active NVLinks (fewest on one GPU)"] = Value(
            min(active.values()), "links", "higher", "nvlink_down", True,
            f"inactive: {', '.join(down[:8])}" if down else "")
    # the current width, like the generation, "may be reduced when the GPU is not in use" (nvidia-smi
    # --help-query-gpu): a reading known idle is not compared, as `diagnose node` does not judge it
    read = [g for g in gpus if g.get("pcie_width_current") and g.get("pcie_read_under_load") is not False]
    widths = [g["pcie_width_current"] for g in read]
    if widths:
        narrow = [f"GPU{g.get('index')} x{g['pcie_width_current']}" for g in read
                  if g.get("pcie_width_current") == min(widths)]
        values["PCIe width (narrowest GPU)"] = Value(min(widths), "lanes", "higher", "pcie_link_degraded", True,
                                                     ", ".join(narrow[:8]))
    # an idle GPU drops its PCIe gen to save power: only a reading under load counts
    gens = [g["pcie_gen_current"] for g in gpus
            if g.get("pcie_gen_current") and g.get("pcie_read_under_load") is not False]
    if gens:
        values["PCIe gen under load (lowest GPU)"] = Value(min(gens), "", "higher", "pcie_link_degraded", True)
    return node


def node_verdict(report_facts: dict, source: str, node: str) -> NodeVerdict:
    """The node's verdict as `diagnose node` gives it on the same facts: a node whose own checks find it
    broken stays broken in the fleet, even when every node is broken the same way and none is an outlier.
    Decided again from the facts, not copied from the report, so an older report meets today's rules."""
    from diagnose.artifacts.node_report import records
    from diagnose.evidence import Facts
    from diagnose.pipeline import name_catalog_rows
    from rules.engine import evaluate
    from rules.engine import node_verdict as decide

    facts = Facts()
    facts.extend(records(report_facts, Path(source).name))
    name_catalog_rows(facts)
    findings = evaluate(facts)
    answer = decide(facts, findings)
    top = next((f for f in findings if f.category == answer.category and f.is_problem), None)
    return NodeVerdict(node, source, answer.category, answer.confidence, top.severity if top else "ok",
                       top.rule if top else "", top.title if top else answer.summary,
                       list(top.evidence[:2]) if top else [])


def _small_message_latency(collectives):
    """Time of the largest message at or below 64 KiB, of all_reduce on the most ranks when
    measured (the decode all-reduce of a TP group), else of any collective."""
    small = [m for m in collectives if m.name == "time" and m.size <= SMALL_MESSAGE_BYTES]
    if not small:
        return None
    return max(small, key=lambda m: (m.group.startswith("all_reduce"), m.nranks, m.size))


def analyse(nodes: list[NodeMetrics], z_threshold: float = Z_THRESHOLD) -> FleetSpread:
    """Per GPU model and metric: median, MAD and the points, outliers marked."""
    metrics, uncompared = [], []
    groups: dict[str, list[NodeMetrics]] = {}
    for n in nodes:
        groups.setdefault(n.group, []).append(n)
    for group, members in sorted(groups.items()):
        names = list(dict.fromkeys(name for n in members for name in n.values))  # sizes stay in order
        for name in names:
            have = [n for n in members if name in n.values]
            if len(have) < MIN_NODES:
                if len(members) >= MIN_NODES:
                    uncompared.append((group, name, len(have)))
                continue
            first = have[0].values[name]
            values = [n.values[name].value for n in have]
            median, mad, zs = score(values, first.better, first.discrete)
            points = [
                FleetPoint(n.node, v, (v / median) if median else None, round(z, 2), is_outlier(z, z_threshold),
                           n.source, n.values[name].detail)
                for n, v, z in zip(have, values, zs)
            ]
            metrics.append(FleetMetric(name, group, first.unit, first.better, first.category, median, mad, len(have),
                                       points))
    return FleetSpread(z_threshold, metrics, {g: len(m) for g, m in groups.items()}, uncompared,
                       {g: sorted(n.node for n in m) for g, m in groups.items()},
                       [n.verdict for n in nodes if n.verdict is not None])


def fleet_report(nodes: list[NodeMetrics], z_threshold: float = Z_THRESHOLD) -> Report:
    """The fleet Report: the spread per GPU model and metric, then the fleet rules
    (rules/fleet_rules.py) through the shared pipeline."""
    from diagnose import tables
    from diagnose.evidence import Facts
    from diagnose.pipeline import run_pipeline

    spread = analyse(nodes, z_threshold)
    from rules.engine import verdict

    return run_pipeline("fleet", {"nodes": len(nodes), "z_threshold": z_threshold}, Facts(), spread, only=["fleet."],
                        decide=lambda _facts, found: verdict(found, verb="run"),
                        facts_json={"fleet_metric": spread.fact_json()}, tables=tables.fleet.tables(nodes, spread))
