"""Plots as inline SVG strings, drawn in plain Python.

The HTML report must open from a ticket attachment with no network, so there is no charting
library and no JavaScript: each function returns one `<svg>` element with its own axes, labels
and legend. Every piece of text that reaches the SVG goes through `esc`.
"""

from __future__ import annotations

import math
from html import escape

# Colour-blind-safe palette (Okabe-Ito), then greys.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000", "#999999")
BAD = "#D55E00"
GOOD = "#009E73"

WIDTH, HEIGHT = 640, 320
MARGIN = {"left": 64, "right": 175, "top": 34, "bottom": 44}


def esc(text) -> str:
    return escape(str(text), quote=True)


def fmt_num(value: float) -> str:
    """Short tick label: 3 significant figures, k/M for large values."""
    if value == 0:
        return "0"
    a = abs(value)
    if a >= 1e6:
        return f"{value / 1e6:.3g}M"
    if a >= 1e4:
        return f"{value / 1e3:.3g}k"
    if a >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


# --------------------------------------------------------------------------- scales


class Scale:
    """Maps data values onto pixels, linear or log."""

    def __init__(self, lo: float, hi: float, px_lo: float, px_hi: float, log: bool = False, integer: bool = False):
        self.integer = integer  # counts (step numbers): no tick between two whole numbers
        if log:
            lo, hi = max(lo, 1e-12), max(hi, 1e-12)
        if hi <= lo:
            hi = lo * 2 if log else lo + 1
        self.lo, self.hi, self.px_lo, self.px_hi, self.log = lo, hi, px_lo, px_hi, log

    def __call__(self, value: float) -> float:
        t = self._t(value)
        return self.px_lo + t * (self.px_hi - self.px_lo)

    def _t(self, value: float) -> float:
        if self.log:
            value = max(value, self.lo)
            return (math.log(value) - math.log(self.lo)) / (math.log(self.hi) - math.log(self.lo))
        return (value - self.lo) / (self.hi - self.lo)

    def ticks(self, base: int = 10, count: int = 6) -> list[float]:
        if self.log:
            first = math.floor(math.log(self.lo, base) + 1e-9)
            last = math.ceil(math.log(self.hi, base) - 1e-9)
            powers = list(range(first, last + 1))
            step = max(1, math.ceil(len(powers) / 8))
            ticks = [base**p for p in powers[::step] if self.lo <= base**p <= self.hi * 1.0001]
            if len(ticks) < 3:  # a range inside one or two decades: 1-2-5 (base 10) or 1-1.5 (base 2) steps
                mantissas = (1, 2, 5) if base == 10 else (1, 1.5)
                ticks = [m * base**p for p in range(first - 1, last + 1) for m in mantissas
                         if self.lo <= m * base**p <= self.hi * 1.0001]
            return ticks
        raw = (self.hi - self.lo) / max(count - 1, 1)
        mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
        step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=raw)
        if self.integer:
            step = max(1, round(step))
        start = math.ceil(self.lo / step) * step
        return [start + i * step for i in range(int((self.hi - start) / step + 1e-9) + 1)]


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(value))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * mag >= value:
            return m * mag
    return value


def _svg_open(width: int, height: int, title: str, cls: str) -> list[str]:
    return [
        f'<svg class="plot {esc(cls)}" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        # the page's CSS styles the text; these defaults keep an SVG shown alone at the size its
        # label margins were measured for
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(title)}" '
        'font-family="system-ui,Helvetica,Arial,sans-serif" font-size="11">',
        f"<title>{esc(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{width / 2:.0f}" y="18" text-anchor="middle" class="plot-title">{esc(title)}</text>',
    ]


def _legend(items: list[tuple[str, str, str]], x: float, y: float) -> list[str]:
    """items: (label, colour, 'line'|'dash'|'box')."""
    out = []
    for i, (label, colour, kind) in enumerate(items):
        yy = y + i * 16
        if kind == "box":
            out.append(f'<rect x="{x:.1f}" y="{yy - 8:.1f}" width="12" height="10" fill="{colour}"/>')
        else:
            pattern = kind.split(":", 1)[1] if kind.startswith("dash:") else "5,3" if kind == "dash" else ""
            dash = f' stroke-dasharray="{pattern}"' if pattern else ""
            out.append(f'<line x1="{x:.1f}" y1="{yy - 3:.1f}" x2="{x + 14:.1f}" y2="{yy - 3:.1f}" '
                       f'stroke="{colour}" stroke-width="2"{dash}/>')
        shown = label if len(label) <= 26 else label[:25] + "…"
        out.append(f'<text x="{x + 18:.1f}" y="{yy:.1f}" class="legend">{esc(shown)}<title>{esc(label)}</title></text>')
    return out


# Dashed series told apart by pattern as well as colour: dashes, dots, dash-dot.
DASHES = ("7,4", "2,3", "10,3,2,3")


def _distinct(fmt, ticks: list[float]):
    """`fmt`, or fixed decimals enough to tell neighbouring ticks apart (a narrow range)."""
    labels = [fmt(t) for t in ticks]
    if len(set(labels)) == len(labels) or len(ticks) < 2:
        return fmt
    step = min(abs(b - a) for a, b in zip(ticks, ticks[1:])) or 1.0
    decimals = max(0, -math.floor(math.log10(step)))
    return lambda t: f"{t:.{decimals}f}"


def _axes(xs: Scale, ys: Scale, x_label: str, y_label: str, x_fmt, y_fmt, x_base: int, y_base: int,
          height: int) -> list[str]:
    out = []
    if not xs.log:
        x_fmt = _distinct(x_fmt, xs.ticks(x_base))
    if not ys.log:
        y_fmt = _distinct(y_fmt, ys.ticks(y_base))
    left, right = xs.px_lo, xs.px_hi
    top, bottom = ys.px_hi, ys.px_lo
    for t in ys.ticks(y_base):
        py = ys(t)
        out.append(f'<line x1="{left:.1f}" y1="{py:.1f}" x2="{right:.1f}" y2="{py:.1f}" class="grid"/>')
        out.append(f'<text x="{left - 6:.1f}" y="{py + 4:.1f}" text-anchor="end" class="tick">{esc(y_fmt(t))}</text>')
    for t in xs.ticks(x_base):
        px = xs(t)
        out.append(f'<line x1="{px:.1f}" y1="{bottom:.1f}" x2="{px:.1f}" y2="{bottom + 4:.1f}" class="axis"/>')
        out.append(f'<text x="{px:.1f}" y="{bottom + 16:.1f}" text-anchor="middle" class="tick">{esc(x_fmt(t))}</text>')
    out.append(f'<line x1="{left:.1f}" y1="{bottom:.1f}" x2="{right:.1f}" y2="{bottom:.1f}" class="axis"/>')
    out.append(f'<line x1="{left:.1f}" y1="{top:.1f}" x2="{left:.1f}" y2="{bottom:.1f}" class="axis"/>')
    out.append(f'<text x="{(left + right) / 2:.1f}" y="{height - 6}" text-anchor="middle" class="label">'
               f'{esc(x_label)}</text>')
    out.append(
        f'<text x="14" y="{(top + bottom) / 2:.1f}" text-anchor="middle" class="label" '
        f'transform="rotate(-90 14 {(top + bottom) / 2:.1f})">{esc(y_label)}</text>'
    )
    return out


# --------------------------------------------------------------------------- charts


def line_chart(
    series: list[tuple[str, list[tuple[float, float]]]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    log_x: bool = False,
    log_y: bool = False,
    ceilings: list[tuple[str, float]] = (),
    x_fmt=fmt_num,
    x_base: int = 10,
    dashed: tuple[str, ...] = (),
    width: int = WIDTH,
    height: int = HEIGHT,
    integer_x: bool = False,
) -> str:
    """Lines with markers; `ceilings` are horizontal dashed lines (what the hardware should reach);
    series named in `dashed` are drawn dashed (ideal or predicted curves)."""
    series = [(name, [(x, y) for x, y in pts if x is not None and y is not None]) for name, pts in series]
    series = [(name, sorted(pts)) for name, pts in series if pts]
    if not series:
        return ""
    xs_all = [x for _, pts in series for x, _ in pts]
    ys_all = [y for _, pts in series for _, y in pts] + [c for _, c in ceilings if c]
    plot_left, plot_right = MARGIN["left"], width - MARGIN["right"]
    plot_top, plot_bottom = MARGIN["top"], height - MARGIN["bottom"]
    xs = Scale(min(xs_all), max(xs_all), plot_left, plot_right, log=log_x, integer=integer_x)
    if log_y:
        positive = [y for y in ys_all if y > 0] or [1.0]
        ys = Scale(min(positive) / 1.5, max(positive) * 1.5, plot_bottom, plot_top, log=True)
    else:
        ys = Scale(0, _nice_max(max(ys_all) * 1.05), plot_bottom, plot_top)
    out = _svg_open(width, height, title, "line-chart")
    out += _axes(xs, ys, x_label, y_label, x_fmt, fmt_num, x_base, 10, height)
    legend = []
    for i, (name, pts) in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        pattern = DASHES[dashed.index(name) % len(DASHES)] if name in dashed else ""
        dash = f' stroke-dasharray="{pattern}"' if pattern else ""
        path = " ".join(f"{xs(x):.1f},{ys(y):.1f}" for x, y in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}>'
                   f'<title>{esc(name)}</title></polyline>')
        for x, y in pts:
            out.append(
                f'<circle cx="{xs(x):.1f}" cy="{ys(y):.1f}" r="2.5" fill="{colour}">'
                f"<title>{esc(name)}: {esc(x_fmt(x))} → {esc(fmt_num(y))}</title></circle>"
            )
        legend.append((name, colour, f"dash:{pattern}" if pattern else "line"))
    for j, (label, value) in enumerate(ceilings):
        if not value or (log_y and value <= 0):
            continue
        colour = PALETTE[(len(series) + j) % len(PALETTE)] if j else BAD
        py = ys(value)
        out.append(
            f'<line x1="{plot_left}" y1="{py:.1f}" x2="{plot_right}" y2="{py:.1f}" stroke="{colour}" '
            f'stroke-width="1.5" stroke-dasharray="5,3" class="ceiling">'
            f'<title>{esc(label)}: {esc(fmt_num(value))}</title></line>'
        )
        legend.append((f"{label} ({fmt_num(value)})", colour, "dash"))
    out += _legend(legend, plot_right + 10, plot_top + 8)
    out.append("</svg>")
    return "\n".join(out)


def heatmap(
    matrix: list[list[float | str | None]],
    labels: list[str],
    *,
    title: str,
    unit: str = "",
    categories: dict[str, str] | None = None,
    cell: int = 44,
    col_labels: list[str] | None = None,
    axes: tuple[str, str] | None = None,
) -> str:
    """A matrix of GPU pairs (rows and columns `labels`), or a grid (rows `labels`, columns
    `col_labels`, e.g. GPU x NVLink). Numbers shade from light to dark blue on a scale from zero
    (a spread of a few percent looks like one); with `categories` (value -> colour, e.g. topology
    path kinds) cells take the category's colour. A pair not measured reads "n/a" (a GPU with
    itself: "—"). `axes`: (rows, columns) names, e.g. source and destination GPU."""
    cols = col_labels or labels
    if not labels or not cols:
        return ""
    pair = col_labels is None
    left, top = (80, 60) if axes else (64, 34)
    unreported = any(v is None and not (pair and labels[i] == cols[j])
                     for i, row in enumerate(matrix) for j, v in enumerate(row))  # said in the legend
    legend_h = 20 * ((len(categories) if categories else 2) + unreported)
    width = max(left + len(cols) * cell + 24, 320)
    height = top + len(labels) * cell + 16 + legend_h + 8
    numbers = [v for row in matrix for v in row if isinstance(v, (int, float)) and not isinstance(v, bool)]
    lo, hi = (min(0.0, min(numbers)), max(numbers)) if numbers else (0.0, 1.0)
    out = _svg_open(width, height, title, "heatmap")
    if axes:
        mid_y = top + len(labels) * cell / 2
        out.append(f'<text x="14" y="{mid_y:.1f}" text-anchor="middle" class="label" '
                   f'transform="rotate(-90 14 {mid_y:.1f})">{esc(axes[0])}</text>')
        out.append(f'<text x="{left + len(cols) * cell / 2:.1f}" y="{top - 22}" text-anchor="middle" class="label">'
                   f'{esc(axes[1])}</text>')
    for i, name in enumerate(labels):
        out.append(f'<text x="{left - 6}" y="{top + i * cell + cell / 2 + 4:.1f}" text-anchor="end" class="tick">'
                   f'{esc(name)}</text>')
    for j, name in enumerate(cols):
        out.append(f'<text x="{left + j * cell + cell / 2:.1f}" y="{top - 4}" text-anchor="middle" class="tick">'
                   f'{esc(name)}</text>')
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            x, y = left + j * cell, top + i * cell
            if value is None:
                fill, ink = "#f2f2f2", "#777"
                text = "—" if pair and labels[i] == cols[j] else "n/a"
            elif categories is not None:
                fill, text = categories.get(str(value), "#cccccc"), str(value)
                ink = "#fff" if _dark(fill) else "#000"
            else:
                t = 0.0 if hi == lo else (value - lo) / (hi - lo)
                fill = _blue(t)
                text, ink = fmt_num(value), "#fff" if t > 0.55 else "#000"
            where = f"{labels[i]} ↔ {cols[j]}" if pair else f"{labels[i]} {cols[j]}"
            out.append(
                f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="{fill}">'
                f"<title>{esc(where)}: {esc(text)} {esc(unit)}</title></rect>"
            )
            if text and cell >= 30:
                out.append(f'<text x="{x + cell / 2 - 1:.1f}" y="{y + cell / 2 + 3:.1f}" text-anchor="middle" '
                           f'class="cell" style="fill:{ink}">{esc(text)}</text>')
    ly = top + len(labels) * cell + 20
    if categories is not None:
        entries = [(k, c, "box") for k, c in categories.items()]
    else:
        entries = [(f"{fmt_num(lo)} {unit}", _blue(0), "box"), (f"{fmt_num(hi)} {unit}", _blue(1), "box")]
    out += _legend(entries + ([("not reported", "#f2f2f2", "box")] if unreported else []), left, ly)
    out.append("</svg>")
    return "\n".join(out)


def _dark(colour: str) -> bool:
    """Is '#rrggbb' dark enough to need white text?"""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b < 140


def _blue(t: float) -> str:
    """Light (t=0) to dark blue (t=1)."""
    t = min(max(t, 0.0), 1.0)
    lo, hi = (222, 235, 247), (8, 48, 107)
    r, g, b = (round(a + (bb - a) * t) for a, bb in zip(lo, hi))
    return f"#{r:02x}{g:02x}{b:02x}"


def stacked_bars(
    labels: list[str],
    segments: dict[str, list[float]],
    *,
    title: str,
    unit: str = "",
    width: int = WIDTH,
) -> str:
    """One horizontal bar per label (GPU or rank), split into segments (compute, exposed comm,
    idle, copies)."""
    if not labels or not segments:
        return ""
    bar, gap = 18, 6
    labels = [short_label(name) for name in labels]
    left, right = min(max(len(name) for name in labels) * 6.5 + 14, 240), 150
    height = MARGIN["top"] + len(labels) * (bar + gap) + 40
    totals = [sum(seg[i] or 0 for seg in segments.values()) for i in range(len(labels))]
    xs = Scale(0, _nice_max(max(totals) or 1), left, width - right)
    out = _svg_open(width, height, title, "stacked-bars")
    bottom = MARGIN["top"] + len(labels) * (bar + gap)
    for t in xs.ticks():
        px = xs(t)
        out.append(f'<line x1="{px:.1f}" y1="{MARGIN["top"]}" x2="{px:.1f}" y2="{bottom}" class="grid"/>')
        out.append(f'<text x="{px:.1f}" y="{bottom + 14}" text-anchor="middle" class="tick">{esc(fmt_num(t))}</text>')
    out.append(f'<text x="{(left + width - right) / 2:.1f}" y="{height - 6}" text-anchor="middle" class="label">'
               f'{esc(unit)}</text>')
    for i, name in enumerate(labels):
        y = MARGIN["top"] + i * (bar + gap)
        out.append(f'<text x="{left - 6}" y="{y + bar / 2 + 4:.1f}" text-anchor="end" class="tick">{esc(name)}</text>')
        x = 0.0
        for k, (seg, values) in enumerate(segments.items()):
            v = values[i] or 0
            if v <= 0:
                continue
            x0, x1 = xs(x), xs(x + v)
            out.append(
                f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 0.5):.1f}" height="{bar}" '
                f'fill="{PALETTE[k % len(PALETTE)]}">'
                f"<title>{esc(name)} {esc(seg)}: {esc(fmt_num(v))} {esc(unit)}</title></rect>"
            )
            x += v
    out += _legend([(seg, PALETTE[k % len(PALETTE)], "box") for k, seg in enumerate(segments)],
                   width - right + 10, MARGIN["top"] + 8)
    out.append("</svg>")
    return "\n".join(out)


def change_bars(rows: list[tuple[str, float, bool]], *, title: str, threshold_pct: float, width: int = WIDTH) -> str:
    """One bar per metric: how much worse (right, %) or better (left) B is than A; regressions
    beyond the threshold in red, improvements in green, the threshold as dashed lines."""
    if not rows:
        return ""
    bar, gap = 14, 4
    labels = [short_label(name, 40) for name, _, _ in rows]
    left, right = min(max(len(x) for x in labels) * 6.2 + 14, 260), 30
    height = MARGIN["top"] + len(rows) * (bar + gap) + 40
    extent = max([abs(v) for _, v, _ in rows] + [threshold_pct * 1.5])
    xs = Scale(-extent, extent, left, width - right)
    bottom = MARGIN["top"] + len(rows) * (bar + gap)
    out = _svg_open(width, height, title, "change-bars")
    for t in xs.ticks():
        out.append(f'<line x1="{xs(t):.1f}" y1="{MARGIN["top"]}" x2="{xs(t):.1f}" y2="{bottom}" class="grid"/>')
        out.append(f'<text x="{xs(t):.1f}" y="{bottom + 14}" text-anchor="middle" class="tick">'
                   f'{esc(fmt_num(t))}</text>')
    for t in (-threshold_pct, threshold_pct):
        out.append(f'<line x1="{xs(t):.1f}" y1="{MARGIN["top"]}" x2="{xs(t):.1f}" y2="{bottom}" '
                   f'stroke="{BAD}" stroke-dasharray="4,3"/>')
    out.append(f'<line x1="{xs(0):.1f}" y1="{MARGIN["top"]}" x2="{xs(0):.1f}" y2="{bottom}" class="axis"/>')
    out.append(f'<text x="{(left + width - right) / 2:.1f}" y="{height - 6}" text-anchor="middle" class="label">'
               f'{esc("% worse (right) or better (left) than A")}</text>')
    for i, ((name, value, regression), label) in enumerate(zip(rows, labels)):
        y = MARGIN["top"] + i * (bar + gap)
        x0, x1 = sorted((xs(0), xs(value)))
        colour = BAD if regression else (GOOD if value < -threshold_pct else PALETTE[8])
        out.append(f'<text x="{left - 6}" y="{y + bar - 3}" text-anchor="end" class="tick">{esc(label)}</text>')
        out.append(f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 1):.1f}" height="{bar}" fill="{colour}">'
                   f"<title>{esc(name)}: {value:+.1f}%</title></rect>")
    out.append("</svg>")
    return "\n".join(out)


def short_label(text: str, limit: int = 34) -> str:
    """A row label that fits: drop a trailing '(...)', then keep the end (it differs most)."""
    text = str(text)
    if len(text) > limit and text.endswith(")") and " (" in text:
        text = text[: text.rindex(" (")]
    return text if len(text) <= limit else "…" + text[-(limit - 1):]


def histogram(values: list[float], *, title: str, unit: str, bins: int = 24,
              marks: list[tuple[str, float]] = ()) -> str:
    """Distribution of values (step times); `marks` are vertical lines (median, p95)."""
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return ""
    lo, hi = min(values), max(values)
    if hi == lo:
        hi = lo + max(abs(lo) * 0.01, 1e-9)
    bins = max(1, min(bins, len(values)))
    width_bin = (hi - lo) / bins
    counts = [0] * bins
    for v in values:
        counts[min(int((v - lo) / width_bin), bins - 1)] += 1
    plot_left, plot_right = MARGIN["left"], WIDTH - MARGIN["right"]
    plot_top, plot_bottom = MARGIN["top"], HEIGHT - MARGIN["bottom"]
    xs = Scale(lo, hi, plot_left, plot_right)
    ys = Scale(0, _nice_max(max(counts)), plot_bottom, plot_top)
    out = _svg_open(WIDTH, HEIGHT, title, "histogram")
    out += _axes(xs, ys, unit, "count", fmt_num, fmt_num, 10, 10, HEIGHT)
    for i, c in enumerate(counts):
        if not c:
            continue
        x0, x1 = xs(lo + i * width_bin), xs(lo + (i + 1) * width_bin)
        out.append(
            f'<rect x="{x0:.1f}" y="{ys(c):.1f}" width="{max(x1 - x0 - 1, 0.5):.1f}" '
            f'height="{plot_bottom - ys(c):.1f}" fill="{PALETTE[0]}">'
            f"<title>{esc(fmt_num(lo + i * width_bin))}–{esc(fmt_num(lo + (i + 1) * width_bin))} "
            f"{esc(unit)}: {c}</title></rect>"
        )
    legend = []
    for j, (label, value) in enumerate(marks):
        colour = PALETTE[(j + 1) % len(PALETTE)]
        px = xs(value)
        out.append(f'<line x1="{px:.1f}" y1="{plot_top}" x2="{px:.1f}" y2="{plot_bottom}" stroke="{colour}" '
                   'stroke-width="1.5" stroke-dasharray="5,3"/>')
        legend.append((f"{label} {value:.4g}", colour, "dash"))
    out += _legend(legend, plot_right + 10, plot_top + 8)
    out.append("</svg>")
    return "\n".join(out)


def strip_plot(rows: list[tuple[str, list[tuple[str, float, bool]]]], *, title: str, x_label: str) -> str:
    """One row per metric; each point is a node's value relative to the fleet median (1.0),
    outliers drawn large and red, labelled with the node name."""
    rows = [(m, pts) for m, pts in rows if pts]
    if not rows:
        return ""
    labels = [short_label(m, 46) for m, _ in rows]
    row_h, right = 30, 40
    left = min(max(200, max(len(x) for x in labels) * 6.2 + 14), 300)  # as wide as the longest label
    height = MARGIN["top"] + len(rows) * row_h + 44
    values = [v for _, pts in rows for _, v, _ in pts]
    lo, hi = min(min(values), 0.8), max(max(values), 1.2)
    xs = Scale(lo, hi, left, WIDTH - right)
    bottom = MARGIN["top"] + len(rows) * row_h
    out = _svg_open(WIDTH, height, title, "strip-plot")
    for t in xs.ticks():
        px = xs(t)
        out.append(f'<line x1="{px:.1f}" y1="{MARGIN["top"]}" x2="{px:.1f}" y2="{bottom}" class="grid"/>')
        out.append(f'<text x="{px:.1f}" y="{bottom + 14}" text-anchor="middle" class="tick">{esc(fmt_num(t))}</text>')
    out.append(f'<line x1="{xs(1.0):.1f}" y1="{MARGIN["top"]}" x2="{xs(1.0):.1f}" y2="{bottom}" '
               f'stroke="{GOOD}" stroke-dasharray="4,3"/>')
    out.append(f'<text x="{(left + WIDTH - right) / 2:.1f}" y="{height - 6}" text-anchor="middle" class="label">'
               f'{esc(x_label)}</text>')
    for i, (metric, pts) in enumerate(rows):
        cy = MARGIN["top"] + i * row_h + row_h / 2
        out.append(f'<text x="{left - 8}" y="{cy + 4:.1f}" text-anchor="end" class="tick">{esc(labels[i])}'
                   f'<title>{esc(metric)}</title></text>')
        for name, v, outlier in pts:
            colour, r = (BAD, 5) if outlier else (PALETTE[0], 3)
            out.append(f'<circle cx="{xs(v):.1f}" cy="{cy:.1f}" r="{r}" fill="{colour}" fill-opacity="0.8">'
                       f'<title>{esc(name)}: {esc(fmt_num(v))}× median</title></circle>')
            if outlier:
                out.append(f'<text x="{xs(v) + 7:.1f}" y="{cy - 6:.1f}" class="tick" style="fill:{BAD}">'
                           f'{esc(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)
