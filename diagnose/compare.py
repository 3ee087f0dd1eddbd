"""Diff two runs of the same kind and call out regressions beyond a threshold.

Each report is reduced to metrics keyed the same way on both sides (a collective at one message
size, one GPU pair's copy bandwidth, one NVLink, one kernel class's GPU time, the median step
time), each knowing which direction is better. A metric that moved the bad way by more than the
threshold is a regression; the command exits 1 on any, so it can gate CI or a driver rollout.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from pathlib import Path

from diagnose.errors import InputError
from diagnose.findings import Evidence, Finding, Report
from diagnose.inputs import SQLITE_MAX_INT

DEFAULT_THRESHOLD = 0.10
LATENCY_BOUND_BYTES = 1 << 20  # below 1 MiB a collective is judged on time, above on busbw
MIN_CLASS_SHARE = 0.01  # kernel classes under 1% of GPU time are noise for a diff


@dataclass
class Metric:
    group: str  # "all_reduce ×8", "P2P GB/s uni", "kernel class", "step time"
    key: str  # "64M", "GPU0→GPU1", "communication", "median"
    name: str  # "busbw", "time", "active"
    value: float
    unit: str
    better: str  # "higher" | "lower"
    source: str
    category: str = "other"  # root-cause category when this metric regresses
    share: float = 1.0  # of the run's total (kernel classes), to skip negligible ones
    size: int = 0  # message size in bytes (collectives)
    nranks: int = 0  # ranks of the collective


@dataclass
class Delta:
    a: Metric
    b: Metric

    @property
    def change(self) -> float | None:
        if self.a.value == 0:
            return None if self.b.value == 0 else float("inf") * (1 if self.b.value > 0 else -1)
        return (self.b.value - self.a.value) / abs(self.a.value)

    def worse_by(self) -> float:
        """How much worse B is than A (0 when equal or better)."""
        change = self.change
        if change is None:
            return 0.0
        return max(0.0, -change if self.a.better == "higher" else change)

    def better_by(self) -> float:
        change = self.change
        if change is None:
            return 0.0
        return max(0.0, change if self.a.better == "higher" else -change)


# --------------------------------------------------------------------------- metrics per kind


def size_label(size: int) -> str:
    from diagnose.formatting import fmt_bytes

    return fmt_bytes(size)


def collective_metrics(facts: dict) -> list[Metric]:
    """Per op, rank count and message size: busbw for large messages, time for small ones."""
    groups: dict[tuple, list[dict]] = {}
    rows = facts.get("collective_result") or []
    has_out_of_place = any(r.get("in_place") is False for r in rows)
    for r in rows:
        if has_out_of_place and r.get("in_place"):
            continue
        label = r["op"] + (f" ×{r['nranks']}" if r.get("nranks") else "")
        if r.get("group"):
            label += " GPUs " + ",".join(map(str, r["group"]))
        groups.setdefault((label, int(r["size_bytes"])), []).append(r)
    out = []
    for (label, size), rs in sorted(groups.items()):
        extra = dict(source=rs[0]["source"], size=size, nranks=rs[0].get("nranks") or 0)
        if size >= LATENCY_BOUND_BYTES:
            busbw = statistics.median(x["busbw_gbs"] for x in rs)
            out.append(Metric(label, size_label(size), "busbw", busbw, "GB/s", "higher", **extra))
        else:
            time_us = statistics.median(x["time_us"] for x in rs)
            out.append(Metric(label, size_label(size), "time", time_us, "us", "lower", **extra))
    return out


def link_metrics(facts: dict) -> list[Metric]:
    """Per GPU pair copy bandwidth/latency, per NVLink state and speed, per GPU PCIe link."""
    out = []
    best: dict[tuple, Metric] = {}
    for p in facts.get("pair_bandwidth") or []:
        if p["a"] == p["b"]:
            continue
        better = "lower" if p["unit"] == "us" else "higher"
        m = Metric(f"P2P {p['unit']} {p.get('direction', 'uni')}", f"GPU{p['a']}→GPU{p['b']}", "copy",
                   float(p["value"]), p["unit"], better, p["source"])
        # p2pBandwidthLatencyTest prints P2P off and on: the pair's metric is its best path.
        old = best.get((m.group, m.key))
        if old is None or (m.value > old.value if better == "higher" else m.value < old.value):
            best[(m.group, m.key)] = m
    out += best.values()
    for link in facts.get("nv_link_fact") or []:
        key = f"GPU{link.get('gpu')} link {link['link']}"
        out.append(Metric("NVLink", key, "active", 1.0 if link.get("active") else 0.0, "", "higher", link["source"],
                          "nvlink_down"))
        if link.get("speed_gbs"):
            out.append(Metric("NVLink", key, "speed", float(link["speed_gbs"]), "GB/s", "higher", link["source"],
                              "nvlink_down"))
    for g in facts.get("gpu_fact") or []:
        key = f"GPU{g.get('index')}"
        # nvidia-smi documents the current width, like the generation, as one that may be reduced when the GPU is not
        # in use (`nvidia-smi --help-query-gpu`): a reading known idle is no evidence, as `diagnose node` judges it
        if g.get("pcie_width_current") and g.get("pcie_read_under_load") is not False:
            out.append(Metric("PCIe", key, "width", float(g["pcie_width_current"]), "lanes", "higher", g["source"],
                              "pcie_link_degraded"))
        if g.get("pcie_gen_current") and g.get("pcie_read_under_load") is not False:
            # An idle GPU drops its PCIe gen to save power; only a reading under load counts.
            out.append(Metric("PCIe", key, "gen", float(g["pcie_gen_current"]), "", "higher", g["source"],
                              "pcie_link_degraded"))
    return out


LOWER_IS_BETTER = ("_ms", "_us", "latency", "ttft", "itl", "tpot")


def measurement_metrics(facts: dict) -> list[Metric]:
    """Measurements (HBM rate, GEMM TFLOPS, tok/s, step_ms...), per GPU/size/stat when given."""
    out: list[Metric] = []
    for m in facts.get("measurement") or []:
        key = ", ".join(
            f"{name}={m[name]}" for name in ("gpu", "tp", "batch", "stat", "dtype") if m.get(name) is not None
        )
        if m.get("size_bytes"):
            key = (key + ", " if key else "") + size_label(int(m["size_bytes"]))
        better = "lower" if any(s in m["metric"] for s in LOWER_IS_BETTER) else "higher"
        out.append(Metric("measurement", key or "—", m["metric"], float(m["value"]), m.get("unit") or "", better,
                          m["source"]))
    return _median_of_repeats(out)


def _median_of_repeats(metrics: list[Metric]) -> list[Metric]:
    """One metric per (group, key, name): the median where a run measured it more than once."""
    groups: dict[tuple, list[Metric]] = {}
    for m in metrics:
        groups.setdefault((m.group, m.key, m.name), []).append(m)
    out = []
    for ms in groups.values():
        first = ms[0]
        if len(ms) > 1:
            first = Metric(**{**first.__dict__, "value": statistics.median(m.value for m in ms),
                              "source": f"{first.source} (median of {len(ms)})"})
        out.append(first)
    return out


def step_metrics(facts: dict) -> list[Metric]:
    """Median and p95 of step durations: of every step where the capture report summarised them
    (`step_series`, since its `step_durations` keeps only some steps), else of the step records."""
    from diagnose.evidence import step_records

    series = [s for s in (facts.get("step_series") or {}).values() if isinstance(s, dict) and s.get("steps")]
    if series:  # one capture (per-rank exports: the first rank, as the step records' first source)
        first = next(iter(facts["step_series"]))
        s = facts["step_series"][first]
        source = f"{first} ({s['steps']} steps)"
        return [Metric("step time", key, "duration", s[f"{p}_ms"], "ms", "lower", source)
                for key, p in (("median", "p50"), ("p95", "p95")) if isinstance(s.get(f"{p}_ms"), (int, float))]
    out = []
    for name, records, key in step_records(facts):
        values = sorted(float(r[key]) for r in records if isinstance(r.get(key), (int, float)))
        if not values:
            continue
        unit = "us" if key.endswith("_us") else "ms"
        source = f"{records[0].get('source', name)} ({len(values)} steps)"
        out.append(Metric("step time", "median", "duration", statistics.median(values), unit, "lower", source))
        p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
        out.append(Metric("step time", "p95", "duration", p95, unit, "lower", source))
    return out


CLASS_COLUMNS = ("class", "kernel class", "category")
TIME_COLUMNS = ("total ms", "total_ms", "time ms", "gpu ms", "total (ms)", "time (ms)", "ms")


def kernel_class_metrics(report) -> list[Metric]:
    """Mean kernel time per kernel class, from the capture report's class table.

    Per kernel rather than total, so two captures of different lengths of the same workload
    compare (a slower all-reduce is slower per call however many steps were captured); the
    step-time metrics catch a change in how many kernels a step runs.
    """
    out = []
    for title, table in report.tables.items():
        cols = [str(c).lower() for c in table.get("columns", [])]
        if not cols or cols[0] not in CLASS_COLUMNS or "kernels" not in cols:
            continue
        t = next((cols.index(c) for c in TIME_COLUMNS if c in cols), None)
        n = cols.index("kernels")
        if t is None:
            continue
        rows = [r for r in table["rows"] if isinstance(r[t], (int, float)) and isinstance(r[n], int) and r[n] > 0]
        total = sum(r[t] for r in rows) or 1.0
        for r in rows:
            category = "comm_bound" if "comm" in str(r[0]).lower() else "other"
            out.append(Metric("kernel class", str(r[0]), "mean kernel time", 1000.0 * r[t] / r[n], "us", "lower",
                              f"{title} table: {r[t]} ms over {r[n]} kernels", category, share=r[t] / total))
    return out


def metrics(report) -> list[Metric]:
    facts = report.facts or {}
    out = collective_metrics(facts) + link_metrics(facts) + measurement_metrics(facts)
    if report.kind == "capture":
        steps = step_metrics(facts)
        if steps:  # the capture's step_ms measurement is the same median again
            out = [m for m in out if m.name != "step_ms"]
        out += kernel_class_metrics(report) + steps
    return out


# --------------------------------------------------------------------------- the diff


def _only_in_one(ma: dict, mb: dict, labels) -> list[str]:
    """Per group and metric, how many only one run has, beside how many were compared: "NVLink: 36 only
    in A" after 36 compared NVLink rows would read as a contradiction when A alone reports link speeds."""
    out = []
    for group, name in sorted({(k[0], k[2]) for k in ma.keys() ^ mb.keys()}):
        mine = [k for k in ma.keys() | mb.keys() if (k[0], k[2]) == (group, name)]
        both = sum(1 for k in mine if k in ma and k in mb)
        counts = [f"{sum(1 for k in mine if k in run and k not in other)} only in {label}"
                  for run, other, label in ((ma, mb, labels[0]), (mb, ma, labels[1]))
                  if any(k in run and k not in other for k in mine)]
        out.append(f"{group} {name}: " + (f"{both} compared above, " if both else "") + ", ".join(counts))
    return out


def _shown(m: Metric):
    """A link state reads as up/down, not as the 1.0/0.0 it is compared by."""
    return ("up" if m.value else "down") if m.name == "active" else m.value


MAX_ROWS_SHOWN = 40  # beyond this many metrics the diff table shows only those beyond the threshold


def compare(a: Report, b: Report, threshold: float = DEFAULT_THRESHOLD, labels=("A", "B")) -> Report:
    """Report (kind 'compare') of B against A: a table of deltas, one finding per regressed group.

    Not through diagnose.pipeline.run_pipeline, because its findings are not rules: their ids and
    categories come from the data (`compare.regression.<group>` per regressed metric group,
    `compare.new_finding.<rule>` with the category of B's finding), which the rule registry (one
    fixed id per rule, categories declared and checked) cannot hold without changing the ids the
    report JSON carries; and its evidence is two reports, not Facts. The verdict is the pipeline's
    (rules.engine.verdict), so the same findings give the same verdict as in every command."""
    from rules.engine import verdict

    if a.kind != b.kind:
        raise InputError(f"cannot compare a {a.kind} report with a {b.kind} report: compare two runs of the same kind")
    if threshold <= 0:
        raise InputError(f"--threshold must be positive, got {threshold}")
    ma = {(m.group, m.key, m.name): m for m in metrics(a)}
    mb = {(m.group, m.key, m.name): m for m in metrics(b)}
    deltas = [Delta(ma[k], mb[k]) for k in ma if k in mb]
    deltas = [d for d in deltas if max(d.a.share, d.b.share) >= MIN_CLASS_SHARE]
    moved = [d for d in deltas if d.worse_by() > threshold]
    unrelated = _workload_findings(a, b, labels, moved) + _machine_findings(a, b, labels, moved)
    layouts = _layout_findings(a, b, labels, moved, threshold) + unrelated
    regressions = [] if layouts else moved  # another layout's (or program's) kernels differ by design, not by fault
    findings = _regression_findings(regressions, a, b, threshold, labels)
    # B's own problems are "new" only against a run of the same program on the same GPUs
    findings += [] if unrelated else _new_problem_findings(a, b, labels)
    findings += layouts
    only = _only_in_one(ma, mb, labels)
    if not deltas and not any(f.is_problem for f in findings):
        findings.append(Finding(
            "compare.nothing_in_common", "insufficient_data", "info", 0.0,
            "the two runs share no measured metric",
            f"{labels[0]} and {labels[1]} have no metric in common (message sizes, GPU pairs, kernel classes, steps), "
            "so nothing could be compared.",
            fix="compare runs made with the same sweep (same ops and sizes) or captures of the same workload",
            ask="two runs of the same sweep (`diagnose node --standard --json` on each node) or two captures of the "
                "same workload",
        ))
    elif not layouts and not any(f.is_problem for f in findings):  # unlike runs: nothing was judged, nothing passed
        findings.append(Finding(
            "compare.no_regression", "healthy", "ok", 0.9,
            f"no metric regressed by more than {threshold:.0%}",
            f"{len(deltas)} metrics compared between {labels[0]} and {labels[1]}; none got worse beyond the threshold.",
            evidence=[_evidence(d, labels) for d in sorted(deltas, key=Delta.worse_by, reverse=True)[:3]],
        ))
    unlike = ("other layout" if any(f.rule == "compare.layout_differs" for f in layouts) else
              "other GPUs" if any(f.rule == "compare.machine_differs" for f in layouts) else "other workload")
    rows = [
        [d.a.group, d.a.key, d.a.name, _shown(d.a), _shown(d.b), d.a.unit,
         None if d.change is None else round(100 * d.change, 1),
         "REGRESSION" if d in regressions else f"worse, {unlike}" if d in moved else (
             (f"better, {unlike}" if layouts else "better") if d.better_by() > threshold else "")]
        for d in deltas
    ]
    within = [r for r in rows if not r[-1]]
    hidden = len(within) if len(rows) > MAX_ROWS_SHOWN else 0  # 8 GPUs' P2P pairs: 200 rows, 198 unchanged
    tables = {
        f"{labels[0]} → {labels[1]}": {
            # A and B, not the file names: two long names as headers split the table in two at 100 columns
            "columns": ["group", "key", "metric", "A", "B", "unit", "change %", f"beyond {threshold:.0%}"],
            "rows": [r for r in rows if r[-1]] if hidden else rows,
            "note": f"A: {labels[0]}; B: {labels[1]}."
                    + (f" {hidden} of {len(rows)} metrics within {threshold:.0%} not shown (facts.metric_delta in "
                       "--json has every one)." if hidden else "")
                    + (" Only in one run (not compared): " + "; ".join(only) + "." if only else ""),
        }
    }
    findings_sorted = sorted(findings, key=Finding.sort_key)
    return Report(
        kind="compare",
        inputs={"a": labels[0], "b": labels[1], "kind": a.kind, "threshold_pct": round(100 * threshold, 3)},
        facts={"metric_delta": [
            {"source": d.b.source, "group": d.a.group, "key": d.a.key, "metric": d.a.name, "unit": d.a.unit,
             "a": d.a.value, "b": d.b.value, "worse_pct": round(100 * (d.worse_by() or -d.better_by()), 2),
             "regression": d in regressions}
            for d in deltas
        ]},
        findings=findings_sorted,
        verdict=verdict(findings_sorted),
        tables=tables,
    )


def _moved_evidence(moved: list[Delta], labels) -> tuple[list[Delta], str, list[Evidence]]:
    """What moved beyond the threshold between runs that are not like for like, worst first: the deltas, a sentence
    counting them (empty when none) and the evidence of the worst four."""
    worst = sorted(moved, key=Delta.worse_by, reverse=True)
    said = f" {len(worst)} metric(s) differ beyond the threshold." if worst else ""
    return worst, said, [_evidence(d, labels) for d in worst[:4]]


def _evidence(d: Delta, labels) -> Evidence:
    change = d.change
    pct = "n/a" if change is None else f"{100 * change:+.1f}%"
    return Evidence(
        source=f"{labels[1]}: {d.b.source}",
        detail=f"{d.a.group} {d.a.key} {d.a.name} ({pct}; expected = {labels[0]}: {d.a.source})",
        measured=d.b.value,
        expected=d.a.value,
        unit=d.a.unit or None,
    )


def _regression_findings(regressions: list[Delta], a: Report, b: Report, threshold: float, labels) -> list[Finding]:
    by_group: dict[str, list[Delta]] = {}
    for d in regressions:
        by_group.setdefault(d.a.group, []).append(d)
    nccl_a, nccl_b = _nccl(a), _nccl(b)
    late = _new_straggler(a, b)
    out = []
    for group, ds in by_group.items():
        ds.sort(key=Delta.worse_by, reverse=True)
        worst = ds[0]
        category = worst.a.category
        if category == "other" and _is_collective(group) and nccl_a and nccl_b and nccl_a != nccl_b:
            category = "nccl_regression"
        elif category == "other" and _is_collective(group):
            category = "comm_bound"
        waiting = ""
        if category == "comm_bound" and late:  # collectives take longer because the others wait in them
            category = "straggler"
            waiting = (f" The extra communication time is ranks waiting in their collectives for a late rank: "
                       f"{late.title}.")
        names = ", ".join(f"{d.a.key} {d.a.name}" for d in ds[:4]) + (f" and {len(ds) - 4} more" if len(ds) > 4 else "")
        version_note = f" NCCL changed from {nccl_a} to {nccl_b}." if nccl_a and nccl_b and nccl_a != nccl_b else ""
        out.append(Finding(
            rule=f"compare.regression.{_slug(group)}",
            category=category,
            severity="critical",
            confidence=0.9,
            title=f"{late.title}: {group} {worst.a.key} {worst.a.name} {worst.worse_by():.0%} longer, ranks waiting "
                  "for it" if waiting else f"{group}: {len(ds)} metric(s) worse by more than {threshold:.0%} "
                  f"(worst {worst.worse_by():.0%} at {worst.a.key})",
            summary=f"Between {labels[0]} and {labels[1]}, {names} got worse beyond the {threshold:.0%} "
                    f"threshold.{version_note}{waiting}",
            evidence=[_evidence(d, labels) for d in ds[:12]] + (late.evidence[:2] if waiting else []),
            fix="Find what changed between the two runs (driver, NCCL, firmware, BIOS, cabling, topology, "
                "software version); rerun both on the same node to rule out noise.",
        ))
    return out


def _new_straggler(a: Report, b: Report) -> Finding | None:
    """B's straggler when A had none: a rank arriving late at the collectives makes the others wait
    inside them, so B's communication kernels run longer without the fabric being any slower."""
    before = {f.rule for f in a.findings if f.is_problem}
    return next((f for f in b.findings if f.is_problem and f.category == "straggler" and f.rule not in before), None)


def _new_problem_findings(a: Report, b: Report, labels) -> list[Finding]:
    """Problems B reports that A did not (a ticket's or node's verdict turning bad)."""
    before = {f.rule for f in a.findings if f.is_problem}
    new = [f for f in b.findings if f.is_problem and f.rule not in before]
    return [
        Finding(
            rule=f"compare.new_finding.{f.rule}",
            category=f.category,
            severity=f.severity,
            confidence=f.confidence,
            title=f"new in {labels[1]}: {f.title}",
            summary=f"{labels[1]} reports {f.rule} ({f.category}), which {labels[0]} did not. {f.summary}",
            evidence=f.evidence,
            fix=f.fix,
            references=f.references,
        )
        for f in new
    ]


LAYOUT = (("tp", "TP"), ("pp", "PP"), ("dp", "DP"))


def layout(report) -> dict[str, tuple[int, str]]:
    """The parallel layout a run was made with, each size with where it came from: what the
    run recorded (a capture's metadata, a ticket), else what was given (--tp), else what the
    prediction assumed."""
    facts = report.facts or {}
    prediction = (report.predictions or {}).get("roofline")
    out = {}
    for key, _ in LAYOUT:
        recorded = next((w for w in facts.get("workload") or [] if isinstance(w, dict) and w.get(key)), None)
        if recorded:
            out[key] = (int(recorded[key]), recorded.get("source") or "workload")
        elif (report.inputs or {}).get(key):
            out[key] = (int(report.inputs[key]), f"given --{key}")
        elif isinstance(prediction, dict) and prediction.get(key):
            out[key] = (int(prediction[key]), "prediction:roofline")
    return out


def _layout_findings(a: Report, b: Report, labels, moved: list[Delta] = (), threshold: float = DEFAULT_THRESHOLD
                     ) -> list[Finding]:
    """Two runs made with different TP (or PP, DP) are not like for like: a kernel's time, the
    step time and the all-reduce size all change with the layout, so their diff is not a regression;
    the metrics that moved beyond the threshold are listed here as what differs, not judged."""
    la, lb = layout(a), layout(b)
    differ = [(key, name) for key, name in LAYOUT if key in la and key in lb and la[key][0] != lb[key][0]]
    if not differ:
        return []
    what = ", ".join(f"{name} {la[key][0]} in {labels[0]} and {lb[key][0]} in {labels[1]}" for key, name in differ)
    worst, _, moved_evidence = _moved_evidence(moved, labels)
    differs = (f" {len(worst)} metric(s) are worse by more than {threshold:.0%} in {labels[1]} "
               f"(most: {worst[0].a.group} {worst[0].a.key} {worst[0].a.name}, {worst[0].worse_by():.0%}); "
               "with another layout that is what "
               "differs, not a regression." if worst else "")
    return [Finding(
        "compare.layout_differs", "insufficient_data", "warning", 0.9,
        f"the runs are not like for like: {what}",
        f"{labels[0]} and {labels[1]} ran with different parallel layouts ({what}). Kernel times, step times and "
        "collective sizes change with the layout, so a difference between them is not by itself a regression or "
        "an improvement." + differs,
        evidence=[Evidence(f"{labels[1]}: {lb[key][1]}", f"{name} size (expected = {labels[0]}: {la[key][1]})",
                           lb[key][0], la[key][0]) for key, name in differ] + moved_evidence,
        fix="compare two runs of the same layout (same --tp/--pp), or judge each run against its own prediction "
            "with `diagnose capture --model ... --tp ...`",
        ask=f"a run of {labels[1]} at {labels[0]}'s layout "
            f"({', '.join(f'{name} {la[key][0]}' for key, name in differ)}) to compare with it, "
            "or `diagnose capture --model ... --tp ...` on each run alone",
    )]


def _summary_rows(report, key: str):
    """The named rows of one nsys-stats summary ('kernels', 'nvtx') over a capture report's files,
    skipping what is not shaped as the capture command writes it (a report edited or written by
    another tool): as the other metrics here, a part that cannot be read is not compared."""
    summaries = (report.facts or {}).get("summaries")
    for per_file in summaries.values() if isinstance(summaries, dict) else ():
        rows = per_file.get(key) if isinstance(per_file, dict) else None
        for row in rows if isinstance(rows, list) else ():
            if isinstance(row, dict) and isinstance(row.get("name"), str) and row["name"]:
                yield row


def kernel_names(report) -> dict[str, float]:
    """Kernel name -> total ns over a capture report's files, from its kernel summaries (the rows
    with most time each file kept)."""
    out: dict[str, float] = {}
    for row in _summary_rows(report, "kernels"):
        total = row.get("total")
        out[row["name"]] = out.get(row["name"], 0) + (total if isinstance(total, (int, float)) else 0)
    return out


def _library_ops(names) -> set[str]:
    """The library operations kernel names run, whatever release named them ('NCCL AllReduce')."""
    from diagnose.capture.classify import nccl_collective

    return {f"NCCL {op}" for n in names if (op := nccl_collective(n))}


def nvtx_names(report) -> set[str]:
    """The NVTX range names a capture report's summaries hold: the program's own labels for its phases."""
    return {row["name"] for row in _summary_rows(report, "nvtx")}


def _workload_findings(a: Report, b: Report, labels, moved: list[Delta] = ()) -> list[Finding]:
    """Two captures that ran not one kernel of the same name are of different programs: a kernel
    class's mean time then compares unrelated kernels, so no diff between them is a regression. Unless the
    library renamed them: the same NCCL collectives under another release's names, and the program's own NVTX
    ranges in common, are one program before and after an upgrade; the collectives alone only hint at it."""
    if a.kind != "capture":
        return []
    na, nb = kernel_names(a), kernel_names(b)
    if not na or not nb or na.keys() & nb.keys():
        return []
    ops, ranges = _library_ops(na) & _library_ops(nb), nvtx_names(a) & nvtx_names(b)
    if ops and ranges:
        return []  # one program, its library's kernels renamed: the diff is judged as usual
    top = [max(names, key=names.get) for names in (na, nb)]
    _, said, moved_evidence = _moved_evidence(moved, labels)
    renamed = (f" Both run {', '.join(sorted(ops))} under another release's kernel names, which an NCCL upgrade "
               "alone would explain; with no NVTX range in common nothing else shows it is one program." if ops
               else "")
    return [Finding(
        "compare.workload_differs", "insufficient_data", "warning", 0.5 if ops else 0.9,
        f"the runs are not of the same workload: no kernel name in common ({len(na)} in {labels[0]}, "
        f"{len(nb)} in {labels[1]})",
        f"{labels[0]} and {labels[1]} ran different kernels (most time: {top[0]} in {labels[0]}, {top[1]} in "
        f"{labels[1]}), so their kernel and step times are of different programs, not a regression or an "
        "improvement." + renamed + said,
        evidence=[Evidence(f"{labels[1]}: kernel summary", f"kernel names also in {labels[0]} (expected = "
                                                          f"{labels[1]}'s {len(nb)} names)", 0, len(nb))]
        + moved_evidence,
        fix="compare two captures of the same program (a baseline of the same workload and layout)",
        ask=f"a capture of the same workload as {labels[1]} to use as its baseline",
    )]


def _machine_findings(a: Report, b: Report, labels, moved: list[Delta] = ()) -> list[Finding]:
    """Two runs on different GPU models (each resolved through the catalog, as fleet groups nodes):
    a link's speed, a busbw, a kernel's time differ by design between them, so no diff is a
    regression, and a problem B reports is B's own, not new since A. A run that names no GPU is
    not judged."""
    from rules.fleet_rules import UNNAMED_GPU, gpu_model

    gpus = [[g for g in (r.facts or {}).get("gpu_fact") or [] if isinstance(g, dict)] for r in (a, b)]
    models = [gpu_model(g) for g in gpus]
    if UNNAMED_GPU in models or models[0] == models[1]:
        return []
    _, said, moved_evidence = _moved_evidence(moved, labels)
    return [Finding(
        "compare.machine_differs", "insufficient_data", "warning", 0.9,
        f"the runs are of different GPUs: {models[0]} in {labels[0]}, {models[1]} in {labels[1]}",
        f"{labels[0]} ran on {models[0]} and {labels[1]} on {models[1]}: link speeds, bandwidths and kernel times "
        "differ between GPU models by design, so a difference between the runs is not a regression or an "
        "improvement, and a problem either reports is its own, not a change." + said,
        evidence=[Evidence(f"{labels[1]}: GPU facts", f"GPU model (expected = {labels[0]}'s)", models[1], models[0])]
        + moved_evidence,
        fix="compare two runs of the same machine (or of nodes with the same GPU model: `diagnose fleet`), and read "
            "each run's own findings with `diagnose node` / `diagnose capture` on it",
        ask=f"a run on {models[0]} (as {labels[0]}) to compare {labels[0]} with, or {labels[1]}'s own report",
    )]


def _nccl(report) -> str | None:
    versions = [n.get("version") for n in (report.facts or {}).get("nccl_version") or []]
    return versions[0] if versions else None


def _is_collective(group: str) -> bool:
    return group.split(" ")[0] in ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall",
                                   "sendrecv")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


# --------------------------------------------------------------------------- inputs


def load_run(spec: str, db_path=None, capture_options: dict | None = None) -> tuple[Report, str]:
    """A report from a run id in the store, a report JSON file, or an nsys SQLite export."""
    from diagnose import store
    from diagnose.inputs import parse_json, read_text

    if "," in spec:  # one capture per rank: a,b,c
        parts = [Path(p) for p in spec.split(",") if p]
        for part in parts:
            _check_file(part, f"{part} (one of the per-rank exports in {spec})", "an nsys SQLite export")
        twice = [p for p in parts if sum(q.resolve() == p.resolve() for q in parts) > 1]
        if twice:
            raise InputError(f"{twice[0]}: named twice in {spec}; give each rank's export once")
        return analyse_capture(parts, capture_options or {}), ",".join(p.name for p in parts)
    path = Path(spec)
    if re.fullmatch(r"[0-9]+", spec) and not path.exists():
        if int(spec) > SQLITE_MAX_INT:
            raise InputError(f"run id {spec} is beyond SQLite's integer range; see `diagnose history` for the ids")
        return store.load(store.open_db(db_path, create=False), int(spec)), f"run {spec}"
    _check_file(path, spec, "a run id (see `diagnose history`), a report JSON file or an nsys SQLite export")
    try:
        with open(path, "rb") as fh:
            magic = fh.read(16)
    except OSError as exc:
        raise InputError(f"{spec}: cannot read ({exc.strerror or exc})") from None
    if magic.startswith(b"SQLite format 3\x00"):
        return analyse_capture(path, capture_options or {}), path.name
    text = read_text(path, "report")  # size and encoding: said as they are
    try:
        return Report.from_dict(parse_json(text, spec)), path.name
    except InputError as exc:
        raise InputError(f"{spec}: not a diagnose report JSON file ({str(exc).removeprefix(spec + ': ')})") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{spec}: not a diagnose report JSON file ({exc})") from None


def _check_file(path: Path, name: str, expected: str) -> None:
    """A compare input must be a file: say which one is not, and what was expected instead."""
    from diagnose.inputs import check_path

    if path.is_dir():
        raise InputError(f"{name}: is a directory; expected {expected} (give the file, not its folder)")
    if not path.exists():
        raise InputError(f"{name}: no such file; expected {expected}")
    check_path(path, "capture")  # a FIFO or device is refused before the first byte is read


def analyse_capture(paths, options: dict) -> Report:
    """Run the capture command's analysis on an nsys export (or one per rank), as
    `diagnose capture` would."""
    from diagnose import capture_report

    paths = [str(p) for p in (paths if isinstance(paths, list) else [paths])]
    opts = dict(options)
    return capture_report.build(paths, full_stats=opts.pop("stats", False), **opts)
