"""A measured figure better than the roofline: the one test and the one finding that `capture`,
`scaling` and `ticket` give for it, so the same figure gets the same verdict in each.

The roofline (rules.roofline) is datasheet HBM bandwidth and FLOPs with ideal collectives, its
latency floors included: no real run reaches it (HBM streams at 80-90 % of its datasheet rate). A
figure beyond it, more than 100 % of a physical peak, is not a fast system but a measurement or
an input error: another model, dtype, batch or layout than the one given, a batch's total read as
one stream's rate, speculative decoding, a unit slip, or tokens counted that were never generated (a benchmark that
counts the requested length, or the padding after an end-of-sequence token, as output: premAI-io/benchmarks#187).
"""

from __future__ import annotations

from diagnose.findings import Evidence, Finding

CATEGORY, SEVERITY, CONFIDENCE = "other", "warning", 0.8
# The same finding when the comparison rests on a default the input never stated (a ticket that names no weights
# format or no layout): the bound it beats is the default's, so the verdict is a lead, below the 0.7 that means
# confident.
ASSUMED_CONFIDENCE = 0.5
FIX = ("Check the model, dtype, GPU, layout, batch and lengths given against the run that was measured, and count "
       "only the tokens each request generated (up to its end-of-sequence token); rerun.")


def beats(measured: float, roofline: float, is_time: bool) -> bool:
    """Is the measurement better than the bound (a time shorter, a rate higher)?"""
    if not roofline or measured is None:
        return False
    return measured < roofline if is_time else measured > roofline


def finding(rule: str, what: str, measured: float, roofline: float, unit: str, evidence: list[Evidence],
            fix: str = FIX, assumed: list[str] | None = None) -> Finding:
    """The finding every command gives for a figure that beats the roofline (`what`: 'TP8 batch 1'); `assumed`:
    the defaults the bound rests on (weights, layout) where the input did not state them."""
    rests = f" The bound rests on defaults the input does not state: {'; '.join(assumed)}." if assumed else ""
    bound = f"{bound_word(unit)} {_num(roofline)} {unit}"
    # only a rate counted in tokens can count tokens that were never generated (a profiled step time counts none)
    counted = (", tokens counted that were never generated: the requested length, or padding after an "
               "end-of-sequence token") if "tok" in unit else ""
    return Finding(
        rule=rule, category=CATEGORY, severity=SEVERITY, confidence=ASSUMED_CONFIDENCE if assumed else CONFIDENCE,
        title=f"{what}: measured {_num(measured)} {unit} beats the roofline ({bound}: prediction:roofline)",
        summary=f"The roofline is a bound, not an estimate: {bound} here (datasheet bandwidth and FLOPs, ideal "
        "collectives; prediction:roofline). "
        "No run can beat datasheet bandwidth and FLOPs, so the figure is a measurement or input error: the "
        "model, dtype, GPU, layout, batch or lengths given do not match what was measured (a quantised checkpoint "
        f"taken for bf16, a smaller model, a batch's total read as one stream's rate, speculative decoding{counted}). "
        "It is not judged against the expected band." + rests,
        evidence=evidence, fix=fix,
    )


def bound_word(unit: str) -> str:
    """How a bound reads in a finding: a time is at least the bound ('at least 5.3 ms'), a rate or bandwidth at most
    it ('at most 230 tok/s')."""
    return "at least" if unit in ("ms", "us", "s") else "at most"


def _num(x: float) -> str:
    """4 significant figures, never an exponent: 41,810 ms, 5.292 ms."""
    return f"{x:,.0f}" if abs(x) >= 1e4 else f"{x:.4g}"


def compute_ceiling(model, gpu, gpus: int) -> float:
    """Tokens/s no batch can exceed: every token multiplies each active decoder weight once (2 FLOPs),
    at the GPUs' fastest tensor-core rate (fp8 where it has one); attention and the head only add work."""
    peak = max(gpu.tflops(d) for d in ("fp8", "fp16", "bf16")) * 1e12
    return gpus * peak / (2 * model.decoder_params(active=True))
