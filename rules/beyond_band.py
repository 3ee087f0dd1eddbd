"""One figure slower than the band's slow edge, and nothing else to place the gap: the one lead `ticket` and
`scaling` give it, so the same figure gets the same verdict, severity and exit code in both.

The band (rules/catalog/calibration.toml [band]) holds 95 % of healthy published runs: its slow edge is the slowest
healthy run we know, and 2.5 % of healthy runs still fall past it. The expected figure has blind spots of its own as
well (an engine option it does not model, prefills mixed into decode steps): healthy published tables sit beyond the
edge (tests/test_same_table_verdict.py: llama.cpp on A100 PCIe, TGI 1.0 at TP8; tests/test_bench_samples.py: an
SGLang run its maintainer calls healthy at x2.5). So one figure past the edge says how much slower than the slowest
healthy run the system is, not why, nor that it is broken: a lead (`info`), with the checks that would tell. The
verdict is that weak lead (`other` at rules.engine.WEAK_LEAD, 0.45: "Weak lead: ... Not enough evidence to be sure",
with what to attach next), as an info lead beside open gaps is on a ticket; a passed check or a "nothing broken" prior
never answers it away. On the ticket corpus (README "scaling and ticket") it keeps fresh 71 % and holdout 59 %, where
insufficient_data with the lead gave fresh 70 % and lost a development case; the category of the step's limiting term
scored as `other` does and names where a healthy step spends its time, not what costs the excess.
A second layout, a capture or a cause found beside it decides (rules.engine.explain_gaps weighs the gap it measures).
"""

from __future__ import annotations

from diagnose.findings import Evidence, Finding
from rules.expectations import REPORTED_RATE_SLACK, slowest_normal

CATEGORY, SEVERITY, CONFIDENCE = "other", "info", 0.45
# The evidence row that marks the lead (rules.engine.is_gap reads it): the figure set against the band's slow edge.
SOURCE = "calibration:band"
CHECKS = ("the engine version and that it runs with CUDA graphs (no --enforce-eager); clocks and power limits "
          "(`nvidia-smi -q -d PERFORMANCE,CLOCK`); the same benchmark at a second layout (TP/2 or 2x TP: a cost every "
          "layout carries is the system's, one that grows with TP is the scaling's); a capture of one decode step "
          "(`nsys`, then `diagnose capture`)")


def past_edge(measured: float, edge: float, is_time: bool) -> float:
    """How many times the slowest healthy run's time the figure takes (> 1 beyond the band)."""
    return measured / edge if is_time else edge / measured


def size_words(measured: float, edge: float, is_time: bool) -> str:
    """'38 % slower than the slowest healthy run we know', from twice its time 'x24 the time of ...' (a rate is read
    as time per token, as a time is)."""
    k = past_edge(measured, edge, is_time)
    share = f"{k - 1:.{0 if k >= 1.01 else 1}%}"  # (a figure just past the edge never reads "0% slower")
    return (f"{share} slower than" if k < 2 else f"x{k:.3g} the time of") + " the slowest healthy run we know"


def edge_evidence(measured: float, edge: float, used: float, unit: str) -> Evidence:
    """The figure against the edge it was judged by: the band's slow edge, or that edge widened by the slack of a
    figure written in prose (`used`), which the detail then names with the band's own edge."""
    band = "the band's slow edge (97.5 % of healthy published runs are faster; rules/catalog/calibration.toml [band])"
    detail = f"the slowest healthy run we know: {band}" if used == edge else (
        f"the slowest healthy run we know as a figure written in prose reads: {band}, {edge_text(edge, unit)}, widened "
        f"by the {1 - REPORTED_RATE_SLACK:.0%} such a figure reads slow (rules.expectations.slowest_normal)")
    return Evidence(source=SOURCE, detail=detail, measured=measured, expected=round(used, 4), unit=unit)


def edge_text(edge: float, unit: str) -> str:
    """'65.8 tok/s', or 'x2.25' for a factor of the expected time."""
    return f"x{edge:.2f}" if unit.startswith("x ") else f"{edge:.{1 if edge < 100 else 0}f} {unit}"


def is_lead(f: Finding) -> bool:
    """A finding this module made (or one carrying its mark): a gap measured, not placed."""
    return f.category == CATEGORY and any(e.source == SOURCE for e in f.evidence)


def size(f: Finding) -> float | None:
    """How many times the edge's time a lead's figure takes (None for another finding): the gap it measures, against
    the edge it was judged by (a lead is made only past that edge, so the larger ratio is the time's)."""
    e = next((e for e in f.evidence if e.source == SOURCE and e.measured and e.expected), None) \
        if is_lead(f) else None
    return max(e.measured / e.expected, e.expected / e.measured) if e else None


def finding(rule: str, what: str, measured: float, edge: float, unit: str, is_time: bool, expected: str,
            evidence: list[Evidence], attach: str = "", reported: bool = False) -> Finding:
    """The lead for `what` ('17 tok/s', 'TP8') measured past the band's slow edge `edge` (in `unit`), widened by the
    prose slack where the figure is `reported` (rules.expectations.slowest_normal); `expected`: the band as the title
    prints it ('21-30 tok/s'); `attach`: what the input lacks that would decide."""
    used = slowest_normal(edge, is_time, reported)
    prose = "" if used == edge else f", {'up' if is_time else 'down'} to {edge_text(used, unit)} written in prose"
    return Finding(
        rule=rule, category=CATEGORY, severity=SEVERITY, confidence=CONFIDENCE,
        title=f"{what} is {size_words(measured, used, is_time)} (expected {expected}{prose})",
        summary="The band holds 95 % of healthy published runs with this engine; this figure is past its slow edge"
        + (" by more than a figure written in prose reads slow" if prose else "") + ". "
        "One figure does not say why: a cost every layout carries (host, engine version, clocks, eager mode), an "
        "option or workload the expected figure does not model, or a healthy run in the band's last 2.5 %. A lead "
        "to check, not a verdict.",
        evidence=[*evidence, edge_evidence(measured, edge, used, unit)],
        fix=(f"{attach[:1].upper()}{attach[1:].rstrip(';. ')}. " if attach.strip() else "")
        + f"To tell, check {CHECKS}.")
