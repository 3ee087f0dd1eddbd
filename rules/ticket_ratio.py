"""Two boards' measured rates and the ratio the predictor gives for them (issue 11 m; the rule that answers with
them is rules.ticket_questions.rate_ratio, beside the datasheet answer it replaces).

"My 3090 does 40 tok/s, the 4090 only 45": an expert does not compare the two figures with the datasheets' ratio
(1008 against 936 GB/s) but with the ratio of what the same model, batch and layout should give on each board, where
the per-step costs both boards share (kernel launches, the engine's host time) shrink the gap. The measured ratio is
normal physics inside the ratio of the two calibrated bands (each board healthy at its band's edges); outside it, one
side delivers less than the other says it should, and the finding names which.
"""

from __future__ import annotations

from diagnose.evidence import Facts, Measurement, Note
from rules.expectations import lowest_normal
from rules.ticket_figures import ONE_STREAM_MARGIN as ONE_STREAM
from rules.ticket_figures import assumed_tp, defaults_assumed

# A predicted step's terms, grouped by what sets them on a board (rules.roofline.predict expected_terms).
TERMS = {
    "memory": ("weights_ms", "kv_ms", "activation_ms"),
    "compute": ("compute_ms",),
    "communication": ("allreduce_ms", "wait_ms", "pp_bubble_ms"),
    "launch and host": ("overhead_ms", "launch_ms", "host_ms"),
}


def rated_boards(facts: Facts):
    """[(board, its fastest one-stream decode rate, the model that rate is of)] for exactly two catalog boards the
    ticket's figures name, or None: a rate naming no board, or a third board (a results table:
    ticket.comparison_set), leaves no pair. Each rate is of the model its own clause names ("13B on the 4090 does
    30"), else the ticket's; a rate whose model is ambiguous ("7B / 13B") or unknown leaves no pair: no guess."""

    best: dict[str, tuple] = {}
    for m in facts.of(Measurement):
        if m.metric != "decode_tok_s" or m.unit != "tok/s" or not m.gpu_name:
            continue
        board = facts.subject.board(m.gpu_name)  # with a variant said apart ("H100 used is of type PCI-e")
        model = facts.subject.model_of(m.model)
        if board is None or model is None:
            return None
        if board.key not in best or m.value > best[board.key][1].value:
            best[board.key] = (board, m, model)
    return list(best.values()) if len(best) == 2 else None


def term_ms(p, term: str) -> float:
    """The time (ms) a prediction's step spends on one group of TERMS."""
    return sum(p.expected_terms.get(t, 0.0) for t in TERMS[term])


def limiting_term(p) -> str:
    """The group of a prediction's step terms that takes the most time."""
    return max(TERMS, key=lambda k: term_ms(p, k))


def tensor_rate(board) -> float:
    """A board's dense 16-bit tensor rate (TFLOPS): fp16 where the catalog gives it (Turing GeForce runs no bf16),
    else bf16."""
    return board.fp16_tflops or board.bf16_tflops


def datasheet(term: str, board) -> tuple[float, str] | None:
    """The datasheet figure behind a term (rules/catalog/gpus.toml, with its sources), or None for terms the
    boards share."""
    if term == "memory":
        return board.hbm_gbs, "GB/s"
    if term == "compute":
        return tensor_rate(board), "TFLOPS"
    return None


def ratio_judged(facts: Facts):
    """(faster board's [board, measurement, prediction], slower's, the measured ratio, the expected ratio, the ratio's
    band) where the
    ticket's model and two boards' rates at one batch are known and the predictor runs both; None otherwise. The
    faster board is the one the predictor expects faster."""
    from rules.workload import predict_layout

    pair = rated_boards(facts)
    if pair is None or any(n.kind == "results_table" for n in facts.of(Note)):
        return None
    sides = []
    for board, m, model in pair:
        tp, how = assumed_tp(facts, m)
        p = predict_layout(facts, tp, m.batch or 1, dtype=m.dtype, gpu=board, model=model)
        if p is None or not (p.valid and p.fits and p.decode_tok_s_expected) or m.value > ONE_STREAM * p.decode_tok_s:
            return None  # not predicted, or above one stream's bound: a batch's total at a load nobody stated
        p.assumptions["assumed"] = defaults_assumed(facts, m, how, p)
        sides.append((board, m, p))
    if sides[0][1].batch != sides[1][1].batch:
        return None  # rates at two loads: their ratio is the batch's as much as the boards'
    fast, slow = sorted(sides, key=lambda s: -s[2].decode_tok_s_expected)
    expected = fast[2].decode_tok_s_expected / slow[2].decode_tok_s_expected
    # each healthy rate lies in expected / band_high .. expected / band_low (rules.expectations), with the calibrated
    # band (calibration.toml), not a band widened over the releases or builds an unstated engine may be: one release
    # ran on both boards, so that spread moves both rates and cancels in their ratio
    from rules import catalog

    band_low, band_high = catalog.calibration().band
    low = expected * band_low / band_high
    high = expected * band_high / band_low
    return fast, slow, fast[1].value / slow[1].value, expected, (low, high)


def below_own_band(side) -> bool:
    """Is a board's rate below its own calibrated band, less the slack of a figure written in prose?"""
    _, m, p = side
    return m.value < lowest_normal(p.decode_tok_s_expected / p.band_high, m)
