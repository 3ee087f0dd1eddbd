"""`--format html`: one self-contained page (inline CSS and SVG, no scripts, no network).

Order: the verdict first, then the plots that explain it, the report's tables, the findings
with their evidence, and what facts were collected. Plots are chosen from what the report
holds, whatever the command: collective sweeps (bus bandwidth and latency against message
size, with the catalog's ceilings), GPU-pair heatmaps, a capture's per-GPU time breakdown
and step-time distribution, a scaling chart, a fleet's outliers.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict

from diagnose.errors import InputError, strict
from diagnose.evidence import step_records
from diagnose.formatting import fmt_bytes
from diagnose.report import plots
from diagnose.report.plots import esc
from diagnose.report.text import NORMAL, SEVERITY_MARK, confidence_note, fmt_value, local_name, needless_ask, next_steps

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0 auto;max-width:1100px;
padding:16px 24px;color:#1a1a1a;background:#fafafa}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
.verdict{padding:12px 16px;border-radius:6px;margin:12px 0;border-left:6px solid #888;background:#fff}
.verdict.healthy{border-color:#009E73}.verdict.problem{border-color:#D55E00}
.verdict.insufficient_data{border-color:#56B4E9}
.verdict .cat{font-size:1.25em;font-weight:600}
table{border-collapse:collapse;margin:6px 0 12px;background:#fff;font-size:.9em}
.wide{overflow-x:auto;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f0f0f0}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.finding{background:#fff;border:1px solid #ddd;border-left:6px solid #999;border-radius:4px;padding:8px 12px;
margin:10px 0}
.finding.critical{border-left-color:#D55E00}.finding.warning{border-left-color:#E69F00}
.finding.info{border-left-color:#56B4E9}.finding.ok{border-left-color:#009E73}
.sev{font-weight:700;text-transform:uppercase;font-size:.8em;margin-right:6px}
.rule{font-family:ui-monospace,monospace;font-size:.9em}.muted{color:#666;font-size:.9em}
figure{display:inline-block;margin:8px 12px 8px 0;background:#fff;border:1px solid #ddd;padding:4px}
figcaption{font-size:.85em;color:#444;max-width:640px;padding:2px 4px}
svg.plot text{font-family:system-ui,Helvetica,Arial,sans-serif;font-size:11px;fill:#222}
svg.plot .plot-title{font-size:13px;font-weight:600}svg.plot .label{font-size:11px;fill:#444}
svg.plot .grid{stroke:#e6e6e6;stroke-width:1}svg.plot .axis{stroke:#333;stroke-width:1}
svg.plot text.cell{font-size:10px}
"""

# Topology path kinds, best first, and their colours.
PATH_COLOURS = {"NV": "#08519c", "PIX": "#3182bd", "PXB": "#6baed6", "PHB": "#fdae6b", "NODE": "#fd8d3c",
                "SYS": "#e6550d", "SOC": "#e6550d", "X": "#ffffff"}


def render_html(report) -> str:
    title = f"diagnose {report.kind} report"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # No scripts, no remote fetches: the page must open from an attachment, offline.
        "<meta http-equiv=\"Content-Security-Policy\" "
        "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        _verdict(report),
        _inputs(report),
    ]
    figures = figures_for(report)
    if figures:
        parts.append("<h2>Plots</h2>")
        parts += [f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>" for caption, svg in figures]
    for name, table in report.tables.items():
        parts.append(f"<h2>{esc(name)}</h2>")
        parts.append(_table(table.get("columns", []), table.get("rows", [])))
        if table.get("note"):
            parts.append(f'<p class="muted">{esc(table["note"])}</p>')
    parts.append(f"<h2>Findings ({len(report.findings)})</h2>")
    parts += [_finding(i, f, report.verdict) for i, f in enumerate(report.findings, 1)] or ["<p>No findings.</p>"]
    steps = next_steps(report)
    if steps:
        parts.append("<h2>Next</h2><ul>" + "".join(
            f'<li>{_prose(ask)} <span class="rule">{esc(rule)}</span></li>' for rule, ask in steps) + "</ul>")
    parts.append(_facts_summary(report))
    parts.append(f'<p class="muted">diagnose {esc(report.tool_version)}, {esc(report.schema)}</p>')
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p) + "\n"


# --------------------------------------------------------------------------- page parts


def _verdict(report) -> str:
    v = report.verdict
    if v is None:
        return '<div class="verdict"><span class="cat">No verdict</span></div>'
    cls = "healthy" if v.category in NORMAL else "insufficient_data" if v.category == "insufficient_data" else "problem"
    conf = confidence_note(v).strip(" ()")
    return (
        f'<div class="verdict {cls}"><div><span class="cat">Verdict: {esc(v.category)}</span> '
        f'<span class="muted">({conf + "; " if conf else ""}worst finding: {esc(report.worst_severity())})</span></div>'
        f"<p>{_prose(v.summary)}</p></div>"
    )


def _inputs(report) -> str:
    """One line: what the run was given (unset options left out)."""
    given = [(k, v) for k, v in report.inputs.items() if v not in (None, "", [], {})]
    if not given:
        return ""
    items = "; ".join(f"<b>{esc(k)}</b> {esc(_clip(fmt_value(local_name(v))))}" for k, v in given)
    return f'<p class="muted">Inputs: {items}</p>'


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cell(value) -> str:
    cls = ' class="num"' if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
    if isinstance(value, dict):
        value = ", ".join(f"{k}={fmt_value(v)}" for k, v in value.items())
    return f"<td{cls}>{esc(fmt_value(value))}</td>"


def _table(columns, rows) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    # a table wider than the page scrolls inside its box instead of running past the margin
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _prose(text) -> str:
    """Escaped text whose `code spans` show as code (the escaping runs first: nothing inside a
    span can become markup)."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", esc(text))


def _reference(ref: str) -> str:
    """A rule's reference: a link when it is a plain https URL, else text."""
    if re.fullmatch(r"https://[^\s\"'<>`]+", ref):
        return f'<a href="{esc(ref)}" rel="noreferrer">{esc(ref)}</a>'
    return esc(ref)


def _finding(i: int, f, verdict=None) -> str:
    out = [
        f'<div class="finding {esc(f.severity)}">',
        f'<div><span class="sev">{esc(SEVERITY_MARK[f.severity])}</span>{i}. <b>{_prose(f.title)}</b></div>',
        f'<div class="muted"><span class="rule">{esc(f.rule)}</span> · {esc(f.category)} · '
        f'confidence {f.confidence:.2f}</div>',
        f"<p>{_prose(f.summary)}</p>",
    ]
    if f.evidence:
        out.append(_evidence_table(f.evidence))
    if f.fix and not needless_ask(f, verdict):
        out.append(f"<p><b>Fix:</b> {_prose(f.fix)}</p>")
    if f.references:
        out.append('<p class="muted">References: ' + ", ".join(_reference(r) for r in f.references) + "</p>")
    out.append("</div>")
    return "\n".join(out)


def _evidence_table(evidence) -> str:
    """A finding's evidence; a source shared by consecutive rows is one cell spanning them (a
    planner's five figures need not repeat its long prediction label five times)."""
    head = "".join(f"<th>{c}</th>" for c in ("source", "detail", "measured", "expected"))
    rows, sources = [], [local_name(e.source) for e in evidence]
    for i, e in enumerate(evidence):
        span = 1
        while i + span < len(sources) and sources[i + span] == sources[i]:
            span += 1
        first = i == 0 or sources[i - 1] != sources[i]
        cells = (f'<td rowspan="{span}">{esc(sources[i])}</td>' if span > 1 else _cell(sources[i])) if first else ""
        figures = (local_name(e.detail), fmt_value(e.measured, e.unit), fmt_value(e.expected, e.unit))
        cells += "".join(_cell(v) for v in figures)
        rows.append(f"<tr>{cells}</tr>")
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _facts_summary(report) -> str:
    facts = report.facts or {}
    counts = [[name, len(v)] for name, v in facts.items() if isinstance(v, list) and name != "missing"]
    out = []
    if counts:
        out.append("<h2>Facts collected</h2>" + _table(["record type", "count"], counts))
    missing = facts.get("missing") or []
    if missing:
        out.append("<p><b>Missing:</b> " + "; ".join(esc(m) for m in missing) + "</p>")
    return "\n".join(out)


# --------------------------------------------------------------------------- figures


def figures_for(report) -> list[tuple[str, str]]:
    """(caption, svg) for every plot the report's contents support."""
    facts = report.facts or {}
    out: list[tuple[str, str]] = []
    for build in (_collective_figures, _pair_figures, _breakdown_figures, _step_figures, _scaling_figures,
                  _fleet_figures, _compare_figures):
        try:
            out += [(c, s or "") for c, s in build(report, facts) if s or s is None]  # None: a sentence, no plot
        except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
            # A plot is a view of data already in the tables; a report with an odd shape (an
            # older or hand-edited JSON) still renders, with the reason in place of the plot.
            # The tests (DIAGNOSE_STRICT=1) want the bug instead.
            if strict():
                raise
            out.append((f"plot skipped: {type(exc).__name__}: {exc}", '<svg class="plot" width="1" height="1"></svg>'))
    return out


def _ceilings(facts) -> tuple[list[tuple[str, float]], float | None, str]:
    """Expected bus bandwidth lines and latency floor from the catalog's interconnect: the one
    the workload names, else the GPU's default intra-node fabric when the run stayed on one node."""
    from rules import catalog

    workloads = facts.get("workload") or []
    rows = facts.get("collective_result") or []
    multinode = any((w.get("nodes") or 1) > 1 for w in workloads) or any((r.get("nodes") or 1) > 1 for r in rows)
    ic = None
    for w in workloads:
        if w.get("interconnect") and ic is None:
            try:
                ic = catalog.interconnect(w["interconnect"])
            except InputError:  # free text such as "2x HDR 200Gb/s InfiniBand": not a catalog key
                ic = None
    if ic is None and not multinode:
        names = [(g.get("name") or g.get("catalog_key"), g.get("pci_device_id")) for g in facts.get("gpu_fact") or []]
        names += [(w.get("gpu"), None) for w in workloads if w.get("gpu")]
        for name, device_id in names:
            spec = catalog.find_gpu(name=name, pci_device_id=device_id)
            if spec and spec.interconnect:
                ic = catalog.interconnect(spec.interconnect)
                break
    if ic is None:
        return [], None, "multi-node run" if multinode else ""
    # Short legend labels; the caption names the interconnect.
    lines = [("line rate", float(ic.bandwidth_gbs))] if ic.bandwidth_gbs else []
    if ic.achieved_gbs:
        lines.append(("typical achieved", float(ic.achieved_gbs)))
    return lines, (float(ic.latency_us) if ic.latency_us else None), ic.name


def _collective_figures(report, facts):
    """Bus bandwidth per op and all_reduce latency against message size, one line per rank
    count (the median of its GPU groups, and the slowest group when it lags)."""
    curves = _collective_curves(facts.get("collective_result") or [])
    if not curves:
        return []
    lines, floor, ic_name = _ceilings(facts)
    if lines:
        note = f" Dashed lines: the catalog's {ic_name} figures."
    elif ic_name == "multi-node run":
        note = " Multi-node run and no catalog interconnect named: no ceiling drawn."
    else:
        note = " No catalog interconnect known for this GPU: no ceiling drawn."
    out = []
    for op, series in curves.items():
        busbw = [(label, [(size, v["busbw"]) for size, v in sorted(points.items())]) for label, points in series]
        out.append((f"{op} bus bandwidth vs message size (nccl-tests busbw semantics).{note}",
                    plots.line_chart(busbw, title=f"Bus bandwidth: {op}", x_label="message size",
                                     y_label="busbw (GB/s)", log_x=True, x_fmt=fmt_bytes, x_base=4, ceilings=lines)))
    op = "all_reduce" if "all_reduce" in curves else next(iter(curves))
    latency = [(label, [(size, v["time"]) for size, v in sorted(points.items())]) for label, points in curves[op]]
    floor_note = f" Dashed: the catalog's {ic_name} base latency." if floor else ""
    out.append((f"{op} time vs message size; small messages show the latency floor.{floor_note}",
                plots.line_chart(latency, title=f"Latency: {op}", x_label="message size", y_label="time (µs)",
                                 log_x=True, log_y=True, x_fmt=fmt_bytes, x_base=4,
                                 ceilings=[("base latency", floor)] if floor else [])))
    return out


def _collective_curves(rows) -> dict[str, list[tuple[str, dict[int, dict]]]]:
    """op -> [(label, {size: {"busbw", "time"}})]: per rank count the median over its GPU
    groups, plus the slowest group where it is under 90% of that median at its largest size."""
    if any(r.get("in_place") is False for r in rows):
        rows = [r for r in rows if not r.get("in_place")]  # nccl-tests prints both; out-of-place is the reference
    per_group: dict[tuple, dict[int, list]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        group = tuple(r.get("group") or ())
        per_group[(r["op"], r.get("nranks") or 0, group)][int(r["size_bytes"])].append(r)
    medians = {key: {size: {"busbw": statistics.median(x["busbw_gbs"] for x in rs),
                            "time": statistics.median(x["time_us"] for x in rs)} for size, rs in sizes.items()}
               for key, sizes in per_group.items()}
    out: dict[str, list] = defaultdict(list)
    for op, nranks in sorted({(op, n) for op, n, _ in medians}, key=lambda k: (k[0], -k[1])):
        groups = {g: pts for (o, n, g), pts in medians.items() if (o, n) == (op, nranks)}
        name = f"×{nranks}" if nranks else op
        if len(groups) == 1:
            (group, points), = groups.items()
            out[op].append((name + (f" GPUs {','.join(map(str, group))}" if group and nranks < 8 else ""), points))
            continue
        sizes = sorted({s for pts in groups.values() for s in pts})
        typical = {s: {k: statistics.median(pts[s][k] for pts in groups.values() if s in pts)
                       for k in ("busbw", "time")}
                   for s in sizes}
        out[op].append((f"{name} (median of {len(groups)} groups)", typical))
        top = sizes[-1]
        slowest, points = min(groups.items(), key=lambda gp: gp[1].get(top, {"busbw": float("inf")})["busbw"])
        if top in points and points[top]["busbw"] < 0.9 * typical[top]["busbw"]:
            out[op].append((f"{name} slowest: GPUs {','.join(map(str, slowest))}", points))
    return out


def _gpu_labels(pairs) -> list[str]:
    ids = sorted({p for a, b in pairs for p in (a, b)}, key=lambda s: (len(str(s)), str(s)))
    return [str(i) for i in ids]


def _matrix(values: dict[tuple[str, str], object], labels: list[str], symmetric: bool):
    m = [[None] * len(labels) for _ in labels]
    index = {name: i for i, name in enumerate(labels)}
    for (a, b), v in values.items():
        m[index[a]][index[b]] = v
        if symmetric and m[index[b]][index[a]] is None:
            m[index[b]][index[a]] = v
    return m


def _path_colours(kinds: set[str]) -> dict[str, str]:
    """Legend for path kinds, best first; an NV# below the most links seen is drawn lighter."""
    def nv(kind):
        return int(kind[2:]) if kind.startswith("NV") and kind[2:].isdigit() else 0

    most = max((nv(k) for k in kinds), default=0)
    order = list(PATH_COLOURS)

    def rank(k):  # NVLink first (more links first), then PATH_COLOURS' order
        place = order.index("NV") if k.startswith("NV") else order.index(k) if k in order else 99
        return place, -nv(k)

    out = {}
    for kind in sorted(kinds, key=rank):
        colour = PATH_COLOURS.get("NV" if kind.startswith("NV") else kind, "#cccccc")
        out[kind] = "#6baed6" if kind.startswith("NV") and nv(kind) < most else colour
    return out


def _pair_figures(report, facts):
    out = []
    paths = {}
    for t in facts.get("topology_path") or []:
        a, b = str(t["a"]), str(t["b"])
        if a.upper().startswith("GPU") and b.upper().startswith("GPU"):
            kind = "X" if a == b else ("NV" if str(t["path"]).upper().startswith("NV") else str(t["path"]).upper())
            paths[(a, b)] = f"NV{t.get('nvlinks') or ''}" if kind == "NV" else kind
    if paths:
        labels = _gpu_labels(paths)
        categories = _path_colours(set(paths.values()))
        out.append((
            "GPU-pair topology (nvidia-smi topo -m): NV# is NVLink with # links; PIX/PXB one or more PCIe switches; "
            "PHB/NODE through the CPU; SYS across sockets.",
            plots.heatmap(_matrix(paths, labels, True), labels, title="GPU-pair topology", categories=categories),
        ))
    p2p = {}
    for s in facts.get("p2p_status") or []:
        if s.get("capability") in ("read", "access", "p2p"):
            p2p[(f"GPU{s['a']}", f"GPU{s['b']}")] = "OK" if s.get("ok") else str(s.get("status"))
    if p2p:
        labels = _gpu_labels(p2p)
        kinds = {v: ("#009E73" if v == "OK" else "#D55E00") for v in sorted(set(p2p.values()))}
        out.append(("Peer-to-peer read access between GPU pairs.",
                    plots.heatmap(_matrix(p2p, labels, False), labels, title="P2P status", categories=kinds,
                                  axes=("source GPU", "destination GPU"))))
    links = facts.get("nv_link_fact") or []
    if links:
        gpus = sorted({link.get("gpu") for link in links}, key=lambda g: (g is None, g if g is not None else 0))
        numbers = sorted({int(link["link"]) for link in links})
        state = {(link.get("gpu"), int(link["link"])): ("up" if link.get("active") else "down") for link in links}
        grid = [[state.get((g, n)) for n in numbers] for g in gpus]
        down = sum(1 for v in state.values() if v == "down")
        out.append((
            f"NVLink state per GPU and link: {len(state) - down} up, {down} down (nvidia-smi nvlink -s / NVML).",
            plots.heatmap(grid, [f"GPU{g}" if g is not None else "GPU?" for g in gpus],
                          col_labels=[str(n) for n in numbers], title="NVLink state",
                          categories={"up": "#009E73", "down": "#D55E00"}, cell=26),
        ))
    groups = defaultdict(dict)
    for p in facts.get("pair_bandwidth") or []:
        enabled = {True: ", P2P on", False: ", P2P off"}.get(p.get("p2p_enabled"), "")
        key = (p["unit"], p.get("direction", "uni"), enabled)
        groups[key][(f"GPU{p['a']}", f"GPU{p['b']}")] = float(p["value"])
    for (unit, direction, enabled), values in sorted(groups.items()):
        labels = _gpu_labels(values)
        what = "latency" if unit == "us" else "bandwidth"
        out.append((
            f"Measured GPU-to-GPU copy {what} ({direction}directional{enabled}), {unit}.",
            plots.heatmap(_matrix(values, labels, False), labels, title=f"P2P {what} ({direction}{enabled})", unit=unit,
                          axes=("source GPU", "destination GPU")),
        ))
    return out


BREAKDOWN_PARTS = ("compute", "exposed comm", "comm", "idle", "copies", "copy", "memcpy", "other")


def _breakdown_figures(report, facts):
    """A table of per-GPU or per-rank time split into parts becomes stacked bars."""
    out = []
    for name, table in report.tables.items():
        cols = [str(c) for c in table.get("columns", [])]
        lowered = [c.lower() for c in cols]
        picked = [i for i, c in enumerate(lowered) if any(c.startswith(p) for p in BREAKDOWN_PARTS) and "%" not in c]
        if len(picked) < 2 or not any("compute" in lowered[i] for i in picked):
            continue
        rows = [r for r in table.get("rows", []) if all(isinstance(r[i], (int, float)) or r[i] is None for i in picked)]
        if not rows:
            continue
        labels = [str(r[0]) for r in rows]
        segments = {cols[i]: [float(r[i] or 0) for r in rows] for i in picked}
        unit = ("ms" if any("ms" in lowered[i] for i in picked)
                else "µs" if any("us" in lowered[i] for i in picked) else "")
        out.append((f"{name}: time per GPU or rank, split into compute, exposed communication, idle and copies.",
                    plots.stacked_bars(labels, segments, title=name, unit=unit)))
    return out




def _step_figures(report, facts):
    """Each step's duration in the order the steps ran (one line per capture or rank) beside the
    expected step and the roofline step of the capture's prediction: drift, stalls and the gap
    to what the hardware should give show at once. Fewer than two steps: a sentence, no plot."""
    out = []
    expected = (report.predictions or {}).get("expected") or {}
    for name, records, key in step_records(facts):
        unit, scale = ("µs", 1000.0) if key.endswith("_us") else ("ms", 1.0)
        runs: dict[str, list[tuple[float, float]]] = {}
        for r in records:
            if isinstance(r.get(key), (int, float)):
                pts = runs.setdefault(str(r.get("source", name)), [])
                step = r.get("step")  # the step's own number when the series was thinned
                pts.append((step if isinstance(step, int) else len(pts) + 1, float(r[key])))
        longest = max((len(v) for v in runs.values()), default=0)
        if longest < 2:
            out.append((f"No step plot: the capture holds {longest} complete step(s); the Steps table has its time.",
                        None))
            continue
        series = [(src.removeprefix("capture:"), pts) for src, pts in runs.items()]
        lines = [(label, float(expected[k]) * scale) for label, k in (("expected step", "step_ms"),
                                                                      ("roofline step", "step_ms_roofline"))
                 if isinstance(expected.get(k), (int, float))]
        total = max((s.get("steps", 0) for s in (facts.get("step_series") or {}).values() if isinstance(s, dict)),
                    default=0)
        which = (f"{longest} of the {total:,} step times ({name}, evenly chosen plus the fastest and slowest; "
                 "--stats plots every step)" if total > longest else f"Each of the {longest:,} step times ({name})")
        out.append((f"{which} in the order the steps ran"
                    + (", against the expected step and the roofline step (nothing real is faster)." if lines else "."),
                    plots.line_chart(series, title="Step times", x_label="step", y_label=unit, ceilings=lines,
                                     integer_x=True)))
    return out


MODEL_STEP_COLUMNS = {"expected ms": "expected", "roofline ms": "roofline", "itl roofline": "roofline"}


def _scaling_figures(report, facts):
    """A table with a parallelism column (GPUs, TP) and throughput becomes a scaling chart:
    measured throughput (scaling) or predicted (predict), the model's throughput from its step
    times where the table has them, and ideal linear scaling from the smallest layout."""
    out = []
    for name, table in report.tables.items():
        cols = [str(c) for c in table.get("columns", [])]
        lowered = [c.lower() for c in cols]
        x = next((i for i, c in enumerate(lowered) if c in ("gpus", "tp", "ranks", "world size")), None)
        if x is None:
            continue
        rows = [r for r in table.get("rows", []) if isinstance(r[x], (int, float)) and not isinstance(r[x], bool)]
        fits = next((i for i, c in enumerate(lowered) if c == "fits"), None)
        if fits is not None:  # a layout that does not fit has no throughput to draw
            rows = [r for r in rows if not str(r[fits]).lower().startswith("no")]
        if len({r[x] for r in rows}) < 2:
            if report.kind == "scaling" and rows:  # say why, rather than leave the reader looking for a chart
                label = rows[0][lowered.index("layout")] if "layout" in lowered else f"{cols[x]} {rows[0][x]:g}"
                out.append((f"{name}: no scaling chart, every figure is from one layout ({label}); measure a second "
                            "layout to draw one", None))
            continue
        totals = [i for i, c in enumerate(lowered) if ("tok/s" in c or "throughput" in c)
                  and not any(w in c for w in ("/user", "/seq", "prefill"))]
        kind = "predicted" if report.kind == "predict" else "measured"
        series = [(f"{kind} {cols[i]}", _best_per_x(rows, x, lambda r, i=i: r[i])) for i in totals]
        batch = next((i for i, c in enumerate(lowered) if c == "batch"), None)
        for col, label in MODEL_STEP_COLUMNS.items():
            if col in lowered and batch is not None:
                i = lowered.index(col)
                series.append((label, _best_per_x(
                    rows, x, lambda r, i=i, batch=batch: 1000.0 * r[batch] / r[i] if r[i] else None)))
        series = [(label, pts) for label, pts in series if len(pts) >= 2]
        if not series:
            continue
        x0, y0 = series[0][1][0]
        ideal = (f"ideal: linear from {x0:g}", [(xx, y0 * xx / x0) for xx, _ in series[0][1]])
        series.append(ideal)
        dashed = tuple(label for label, _ in series if not label.startswith("measured"))
        out.append((f"{name}: throughput against {cols[x]}, both axes logarithmic (perfect linear scaling is a "
                    "straight line); dashed: the expected figure, the roofline and linear scaling from the smallest "
                    "layout, each its own pattern.",
                    plots.line_chart(series, title="Scaling", x_label=cols[x], y_label="tok/s", log_x=True,
                                     log_y=True, x_base=2, dashed=dashed)))
    return out


def _best_per_x(rows, x, value) -> list[tuple[float, float]]:
    """(x, y) points, the best y where several rows (batches) share an x."""
    best: dict[float, float] = {}
    for r in rows:
        y = value(r)
        if isinstance(y, (int, float)) and not isinstance(y, bool):
            best[float(r[x])] = max(best.get(float(r[x]), 0.0), float(y))
    return sorted(best.items())


def _fleet_figures(report, facts):
    metrics = facts.get("fleet_metric") or []
    # Of a bus bandwidth sweep, keep its largest size (sizes come in order) and any size with an outlier.
    last = {m["name"].rsplit(" ", 1)[0]: m["name"] for m in metrics if " busbw " in m["name"]}
    keep = [m for m in metrics if " busbw " not in m["name"] or m["name"] in last.values()
            or any(p.get("outlier") for p in m.get("points", []))]
    rows = []
    for metric in keep:
        pts = [(p["node"], p["ratio"], p["outlier"]) for p in metric.get("points", []) if p.get("ratio") is not None]
        rows.append((f"{metric['name']} [{metric['group']}]", pts))
    if not rows:
        return []
    return [("Each node's value relative to the fleet median for the same GPU model; red points are outliers "
             "(robust z-score beyond the threshold, in the bad direction).",
             plots.strip_plot(rows, title="Fleet outliers", x_label="value / fleet median"))]


def _compare_figures(report, facts):
    deltas = facts.get("metric_delta") or []
    if not deltas:
        return []
    threshold = float(report.inputs.get("threshold_pct") or 10.0)
    if all(abs(d["worse_pct"]) < 0.05 for d in deltas):  # a chart of zero-length bars says nothing
        return [(f"No chart of changes: all {len(deltas)} metrics compared are the same in A and B.", None)]
    shown = sorted(deltas, key=lambda d: -abs(d["worse_pct"]))[:25]
    rows = [(f"{d['group']} {d['key']} {d['metric']}", d["worse_pct"], d["regression"]) for d in shown]
    more = f" (the {len(shown)} largest changes of {len(deltas)})" if len(deltas) > len(shown) else ""
    return [(f"How much worse (right) or better (left) B is than A per metric{more}; red: beyond the "
             f"{threshold:g}% threshold.", plots.change_bars(rows, title="Changes", threshold_pct=threshold))]
