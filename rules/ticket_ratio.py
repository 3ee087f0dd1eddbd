"""Two boards' measured rates set against the ratio the predictor gives for them (issue 11 m).

"My 3090 does 40 tok/s, the 4090 only 45": an expert does not compare the two figures with the datasheets' ratio
(1008 against 936 GB/s) but with the ratio of what the same model, batch and layout should give on each board, where
the per-step costs both boards share (kernel launches, the engine's host time) shrink the gap. The measured ratio is
normal physics inside the ratio of the two calibrated bands (each board healthy at its band's edges); outside it, one
side delivers less than the other says it should, and the finding names which.
"""

from __future__ import annotations

from diagnose.evidence import Facts, Measurement, Note
from rules import claims
from rules.common import ev, make
from rules.engine import rule
from rules.expectations import lowest_normal
from rules.ticket_figures import ONE_STREAM_MARGIN as ONE_STREAM
from rules.ticket_figures import assumed_tp, defaults_assumed

# A predicted step's terms, grouped by what sets them on a board (rules.roofline.predict expected_terms).
_TERMS = {
    "memory": ("weights_ms", "kv_ms", "activation_ms"),
    "compute": ("compute_ms",),
    "communication": ("allreduce_ms", "wait_ms", "pp_bubble_ms"),
    "launch and host": ("overhead_ms", "launch_ms", "host_ms"),
}


def rated_boards(facts: Facts):
    """[(board, its fastest one-stream decode rate)] for exactly two catalog boards the ticket's figures name, or
    None: a rate naming no board, or a third board (a results table: ticket.comparison_set), leaves no pair."""
    from rules import catalog

    best: dict[str, tuple] = {}
    for m in facts.of(Measurement):
        if m.metric != "decode_tok_s" or m.unit != "tok/s" or not m.gpu_name:
            continue
        board = catalog.resolve_gpu(m.gpu_name)
        if board is None:
            return None
        if board.key not in best or m.value > best[board.key][1].value:
            best[board.key] = (board, m)
    return list(best.values()) if len(best) == 2 else None


def limiting_term(p) -> str:
    """The group of a prediction's step terms that takes the most time."""
    return max(_TERMS, key=lambda k: sum(p.expected_terms.get(t, 0.0) for t in _TERMS[k]))


def _datasheet(term: str, board) -> tuple[float, str] | None:
    """The datasheet figure behind a term (rules/catalog/gpus.toml, with its sources), or None for terms the
    boards share."""
    if term == "memory":
        return board.hbm_gbs, "GB/s"
    if term == "compute":
        return board.fp16_tflops or board.bf16_tflops, "TFLOPS"
    return None


def ratio_judged(facts: Facts):
    """(faster board's [board, measurement, prediction], slower's, the measured ratio, the ratio's band) where the
    ticket's model and two boards' rates at one batch are known and the predictor runs both; None otherwise. The
    faster board is the one the predictor expects faster."""
    from rules.workload import predict_layout

    pair = rated_boards(facts) if facts.subject.model is not None else None
    if pair is None or any(n.kind == "results_table" for n in facts.of(Note)):
        return None
    sides = []
    for board, m in pair:
        tp, how = assumed_tp(facts, m)
        p = predict_layout(facts, tp, m.batch or 1, dtype=m.dtype, gpu=board)
        if p is None or not (p.valid and p.fits and p.decode_tok_s_expected) or m.value > ONE_STREAM * p.decode_tok_s:
            return None  # not predicted, or above one stream's bound: a batch's total at a load nobody stated
        p.assumptions["assumed"] = defaults_assumed(facts, m, how, p)
        sides.append((board, m, p))
    if sides[0][1].batch != sides[1][1].batch:
        return None  # rates at two loads: their ratio is the batch's as much as the boards'
    fast, slow = sorted(sides, key=lambda s: -s[2].decode_tok_s_expected)
    expected = fast[2].decode_tok_s_expected / slow[2].decode_tok_s_expected
    # each healthy rate lies in expected / band_high .. expected / band_low (rules.expectations)
    low = expected * slow[2].band_low / fast[2].band_high
    high = expected * slow[2].band_high / fast[2].band_low
    return fast, slow, fast[1].value / slow[1].value, (low, high)


def _below_own_band(side) -> bool:
    """Is a board's rate below its own calibrated band, less the slack of a figure written in prose?"""
    _, m, p = side
    return m.value < lowest_normal(p.decode_tok_s_expected / p.band_high, m)


@rule("ticket.rate_ratio", "expected_physics", "other")
def rate_ratio(facts: Facts, predictions=None):
    """Two boards' measured decode rates (the ticket's model, one batch): their ratio against the ratio of the
    predictor's expected rates on each, within both boards' calibrated bands at their edges. Inside and neither board
    below its own band: the boards' physics, naming the step's limiting term and both expected figures. Outside (or
    one board alone below its band): that board delivers less than the other says it should. Silent on totals above
    one stream's bound, rates at two loads, results tables, or a third board."""
    from rules.ticket_questions import fault_context

    found = ratio_judged(facts)
    if found is None or claims.symptom(facts) in ("hang", "crash", "error"):
        return
    fast, slow, measured, (low, high) = found
    (fb, fm, fp), (sb, sm, sp) = fast, slow
    expected = fp.decode_tok_s_expected / sp.decode_tok_s_expected
    term = limiting_term(fp)
    evidence = [ev(fm, f"decode rate on the {fb.name}", fm.value, round(fp.decode_tok_s_expected, 1), "tok/s"),
                ev(sm, f"decode rate on the {sb.name}", sm.value, round(sp.decode_tok_s_expected, 1), "tok/s"),
                ev("prediction:expected", f"{fb.name} / {sb.name} decode rate ratio (expected: {fp.engine} profile, "
                   f"TP={fp.tp} and TP={sp.tp}, batch {fm.batch or 1}; band from each board's calibrated band)",
                   round(measured, 2), f"{low:.2f}-{high:.2f}", "x")]
    sheet = [_datasheet(term, b) for b in (fb, sb)]
    share = {b.name: sum(p.expected_terms.get(t, 0.0) for t in _TERMS[term]) / p.decode_step_ms_expected
             for b, p in ((fb, fp), (sb, sp))}
    evidence.append(ev("prediction:expected_terms", f"limiting term: {term}, its share of the expected step "
                       f"({fb.name} vs {sb.name})", round(share[fb.name], 2), round(share[sb.name], 2)))
    if sheet[0] is not None:
        evidence.append(ev("catalog:gpus.toml", f"{term} datasheet figure, {fb.name} vs {sb.name}", sheet[0][0],
                           sheet[1][0], sheet[0][1]))
    assumed = sorted({a for p in (fp, sp) for a in p.assumptions["assumed"]})
    if assumed:
        evidence.append(ev("prediction:assumptions", "assumed for both boards alike: " + "; ".join(assumed)))
    said = (f"{fb.name} {fm.value:g} tok/s against {sb.name} {sm.value:g} tok/s: x{measured:.2f}, expected "
            f"x{expected:.2f} ({low:.2f}-{high:.2f})")
    short = [s for s in (fast, slow) if _below_own_band(s)]
    if low <= measured <= high and not short:
        if fault_context(facts):
            return  # a fault in sight: the ratio does not clear it
        yield make("ticket.rate_ratio", "expected_physics", "info", 0.55, f"{said}: the boards' physics",
                   f"Both figures are this model's decode on these boards: a step is limited by {term} "
                   f"({share[fb.name]:.0%} of the {fb.name}'s expected step, {share[sb.name]:.0%} of the "
                   f"{sb.name}'s), and what both boards pay alike (launches, the engine's host time) draws the "
                   "ratio toward 1 from the datasheets'; the band is each board's calibrated band at its edges.",
                   evidence, fix="Nothing is broken; the faster board's lead on this model is what its "
                   f"{term} allows (`diagnose predict --gpu` for each board gives both expected figures).")
        return
    if low <= measured <= high and len(short) == 2:
        return  # both boards short of their own bands alike: a cause they share, which the ratio cannot name
    short = fast if measured < low else slow if measured > high else short[0]
    other = slow if short is fast else fast
    yield make("ticket.rate_ratio", "other", "warning", 0.45,
               f"{said}: the {short[0].name} delivers less than the {other[0].name} says it should",
               f"Against the same model, batch and layout, the {short[0].name}'s rate ({short[1].value:g} tok/s, "
               f"expected {short[2].decode_tok_s_expected:.0f}) falls behind what the {other[0].name}'s "
               f"({other[1].value:g}, expected {other[2].decode_tok_s_expected:.0f}) implies: something beyond "
               "physics costs the slower side time (clocks or power cap, host, engine build or settings).",
               evidence, fix=f"On the {short[0].name}: check clocks and power (`nvidia-smi -q -d CLOCK,POWER`), the "
               "engine version and flags against the other machine's, and time one request the same way on both.")
