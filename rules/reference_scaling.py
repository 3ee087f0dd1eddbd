"""A job's time quoted from a reference run on N GPUs, against the reporter's own time on fewer GPUs of the same kind.

The same job (model, data, steps) on fewer GPUs of one kind gives each GPU N_ref / N_mine times the reference GPU's
share of the work and no more communication per GPU than the reference had (a ring all-reduce moves 2(n-1)/n of the
data per GPU, which shrinks with n), so the reporter's time should be at most the reference time scaled by
N_ref / N_mine (PyTorch DDP and the Hugging Face Trainer split each step's samples over the GPUs). It is a bound for
data-parallel jobs of the same model: a served model sharded over fewer GPUs also loses KV-cache room to its weights,
so its batch shrinks and its time may grow faster than N_ref / N_mine; a measured serving figure gives no bound. A
reference naming another model size is another job. A time well past that bound is not the physics of using fewer
GPUs: the run is slower than the reference's hardware delivered, and "multi-GPU figures like these are physics"
must not answer it. More GPUs than the reference, or another kind of GPU, give no such bound.
"""

from __future__ import annotations

from diagnose import lazy_re as re
from diagnose.artifacts.figures import seconds
from diagnose.evidence import Facts, Measurement
from rules import claims
from rules.catalog import UNLIKE, pace_gap, resolve_gpu
from rules.common import ev, make
from rules.engine import rule
from rules.ticket_figures import SERVING_METRICS

# A job's duration: hours, minutes or days ("24H ETA", "3 hours", "6hours", "40 minutes", "2 days"); seconds and
# milliseconds are per-step or per-token times, not a job's.
_DURATION = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(hours?|hrs?|h|minutes?|mins?|days?)\b", re.I)
# A GPU count with the board it counts: "4xA100-SXM4-80GB", "8 80GB A100s", "2 x RTX 3090", "16 H100s", "8 A100 GPUs".
# The count is set off by a separator or a space, as catalog.gpu_name reads one ("240s" is no "2 x 40s").
_COUNTED = re.compile(r"(?<![\w.])(\d{1,3})(?:\s*[x×*]\s*|\s+)"
                      r"((?:\d+\s*GB\s+)?(?:NVIDIA\s+)?(?:(?:GeForce\s+)?(?:RTX|GTX|Tesla|Quadro)\s*)?"
                      r"[A-Z]{0,3}\d{2,4}[A-Za-z]*(?:-[A-Za-z0-9]+)*)", re.I)
# A model's parameter count as names write it ("LLaMA-7B", "the 65B model", "13b", "1.5B"): two runs of models of
# different sizes are not the same job, whatever their GPUs.
_PARAMS = re.compile(r"(?<![\w.])(\d{1,4}(?:\.\d+)?)\s?[bB](?![\w/])|(?<=-)(\d{1,4}(?:\.\d+)?)[bB](?![\w/])")
# How far apart (characters) a duration and the GPU count it belongs to may sit in a sentence.
_NEAR = 60
# A time hoped for or supposed, not measured ("should my 4 A100s take 24 hours", "I expected 6 hours"): the words
# before it in its clause.
_HEDGED = re.compile(r"\b(?:should(?:n't)?|expect\w*|would|hop(?:e|ed|ing)|supposed|wish|want\w*|aim\w*)\b[^.;,]*$",
                     re.I)


def _runs(sentence: str) -> list[tuple[float, int, object, int, bool]]:
    """(hours, GPUs, board, position, hedged) of each duration said with a GPU count beside it; a duration negated
    ("I do not get 24 hours any more") is no run, one hoped for or supposed is marked hedged."""
    counts = [(m, resolve_gpu(m.group(2))) for m in _COUNTED.finditer(sentence)]  # (the one reading)
    runs = []
    for d in _DURATION.finditer(sentence):
        if claims.negated_words(sentence, d):
            continue
        near = [(m, board) for m, board in counts if board is not None and int(m.group(1)) >= 1
                and min(abs(m.start() - d.end()), abs(d.start() - m.end())) <= _NEAR
                and not (m.start() <= d.start() < m.end())]
        if near:
            m, board = min(near, key=lambda mb: min(abs(mb[0].start() - d.end()), abs(d.start() - mb[0].end())))
            runs.append((seconds(float(d.group(1)), d.group(2)) / 3600, int(m.group(1)), board, d.start(),
                         bool(_HEDGED.search(sentence[:min(d.start(), m.start())]))))
    return runs


def _other_model(a: str, b: str) -> bool:
    """Do both sentences name a model size, and different ones ("3 hours for the 7B" against "24 hours for the 65B")?"""
    sizes = [{float(x) for m in _PARAMS.finditer(s) for x in m.groups() if x} for s in (a, b)]
    return all(sizes) and sizes[0] != sizes[1]


def reference_shortfall(facts: Facts) -> dict | None:
    """The reporter's run against a reference run on at least as many GPUs of the same kind, when the reporter's time
    is at least claims.REFERENCE_GAP times the reference time scaled to the reporter's GPU count; None otherwise.
    Data {mine_h, mine_gpus, ref_h, ref_gpus, bound_h, board, source, quote}. Many questions ask it of one ticket:
    the answer is kept for the facts it was read from (as claims.claims does)."""
    key = (id(facts), len(facts.records))
    cached = _CACHE.get(key)
    if cached is None or cached[0] is not facts:
        cached = (facts, _shortfall(facts))
        _CACHE.clear()
        _CACHE[key] = cached
    return cached[1]


_CACHE: dict = {}


def _shortfall(facts: Facts) -> dict | None:
    if any(m.metric in SERVING_METRICS for m in facts.of(Measurement)):
        return None  # (the cheap check first: serving figures are another question)
    reference, mine = None, None
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            runs = _runs(sentence)
            mark = claims.reference_mark(sentence)
            if mark and runs and reference is None:  # (a reference may be quoted inside a question)
                ref = min(runs, key=lambda r: abs(r[3] - mark.start()))
                reference = (ref, source, sentence)
                runs = [r for r in runs if r is not ref]
            measured = [r for r in runs if not r[4]]  # ("should my 4 A100s take 24 hours?": no run of theirs)
            if measured and mine is None:
                mine = (measured[0], source, sentence)
            if reference and mine:
                break
        if reference and mine:
            break
    if not reference or not mine:
        return None
    (ref_h, ref_n, ref_board, *_), _, ref_sentence = reference
    (mine_h, mine_n, mine_board, *_), source, mine_sentence = mine
    if mine_n > ref_n or pace_gap((ref_board, mine_board)) >= UNLIKE or ref_h <= 0 or \
            _other_model(ref_sentence, mine_sentence):
        return None
    bound = ref_h * ref_n / mine_n
    if mine_h < claims.REFERENCE_GAP * bound:
        return None
    return {"mine_h": mine_h, "mine_gpus": mine_n, "ref_h": ref_h, "ref_gpus": ref_n, "bound_h": bound,
            "board": mine_board.name, "source": source, "quote": (mine_sentence.strip(), ref_sentence.strip())}


@rule("ticket.reference_scaled", "insufficient_data")
def reference_scaled(facts: Facts, predictions=None):
    """The reporter's job time on N GPUs set against a reference time on as many or more GPUs of the same kind: a
    time past the reference scaled to the reporter's GPU count is no physics of fewer GPUs; which part is slow is
    not in the ticket yet."""
    found = reference_shortfall(facts)
    if not found:
        return
    mine, ref = found["quote"]
    yield make("ticket.reference_scaled", "insufficient_data", "info", 0.0,
               f"{found['mine_h']:g} h on {found['mine_gpus']} GPUs against a reference of {found['ref_h']:g} h on "
               f"{found['ref_gpus']}: slower than fewer GPUs explain",
               f"The same job on {found['mine_gpus']} {found['board']} GPUs should take at most the reference time "
               f"scaled by {found['ref_gpus']}/{found['mine_gpus']}, {found['bound_h']:g} h: each GPU does that much "
               "more of the work and no more communication. The reporter's time is past that, so something in this "
               "run (links, placement, clocks, the host) is slower than the reference's hardware; the ticket does not "
               "yet show which.",
               [ev(found["source"], f'the reporter\'s run (expected: the reference scaled to its GPUs): "{mine[:160]}"',
                   found["mine_h"], round(found["bound_h"], 2), "h"),
                ev(found["source"], f'the reference run: "{ref[:160]}"', found["ref_h"], None, "h")],
               fix="Compare with the reference run's setup: check how the GPUs are connected (`nvidia-smi topo -m`: "
               "NV# between SXM boards, not PHB/SYS), their clocks and power (`nvidia-smi -q -d CLOCK,POWER`) and "
               "the per-GPU batch the reference used",
               ask="`nvidia-smi topo -m` and `nvidia-smi -q` of the machine, and the reference run's per-GPU batch")
