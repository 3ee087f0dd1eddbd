"""Small formatting helpers shared by the text renderers."""

from __future__ import annotations

SEVERITY_MARK = {"critical": "CRITICAL", "warning": "WARNING", "info": "info", "ok": "ok"}


def fmt_value(value, unit: str | None = None) -> str:
    """A number as a person reads it: 3 significant figures, thousands separated."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value == 0:
            text = "0"
        elif abs(value) >= 1000:
            text = f"{value:,.0f}"
        elif abs(value) >= 100:
            text = f"{value:.0f}"
        elif abs(value) >= 10:
            text = f"{value:.1f}"
        elif abs(value) >= 0.01:
            text = f"{value:.2f}"
        else:
            text = f"{value:.2g}"
    elif isinstance(value, int):
        text = f"{value:,}"
    elif isinstance(value, (list, tuple)):
        text = ", ".join(fmt_value(v) for v in value)
    else:
        text = str(value)
    return f"{text} {unit}" if unit else text


def verdict_line(report) -> str:
    v = report.verdict
    if v is None:
        return "Verdict: none"
    return f"Verdict: {v.category} (confidence {v.confidence:.2f}) — {v.summary}"
