"""How many of the facts a person reads in a real paste does the ticket reader extract? Compares the hand
annotation in tests/data/extract30/facts.toml with what read_bundle makes of each paste there (the model and GPU
rows the rules would use, the GPU count, TP size, engine, weight precision, batch or concurrency, and each measured
figure with its meaning), and prints per fact type how many were right, missed or wrong.

    python scripts/extract30_score.py            # the table
    python scripts/extract30_score.py --pastes   # and each paste's reading
    python scripts/extract30_score.py --folder tests/data/extract31   # another annotated folder of pastes

A figure is right when a Measurement holds its value (within 1 %, or its reciprocal per 1000 where ms per token
was turned into tokens/s) under one of the annotated metrics; wrong when the value is held under another metric, or
a figure the paste quotes from elsewhere (README, paper) is held as a measurement; missed otherwise. A figure
annotated in seconds, minutes or hours ("267.98s", "> 2 hr") is compared in ms as well, the unit of the latency metrics.
A Measurement that matches nothing annotated counts as a wrong value ("spurious").
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
FOLDER = REPO / "tests" / "data" / "extract30"
# ms in one unit of time as an annotation writes it: a latency written in seconds is held in ms
MS_PER = {"s": 1e3, "sec": 1e3, "secs": 1e3, "second": 1e3, "seconds": 1e3, "min": 6e4, "minutes": 6e4,
          "hr": 3.6e6, "hour": 3.6e6, "hours": 3.6e6}
KINDS = ("model", "gpu", "gpus", "tp", "engine", "dtype", "batch", "figures")


@dataclass
class Reading:
    """What the tool read from one paste, as the rules would see it."""

    model: str | None
    gpu: str | None
    gpus: int | None
    tp: int | None
    engine: str | None
    dtype: str | None
    batch: int | None
    measurements: list = field(default_factory=list)  # (metric, value, names another model or GPU)


def read(path: Path) -> Reading:
    from diagnose.bundle import read_bundle
    from diagnose.evidence import Measurement, Workload
    from rules.common import engine_of, gpu_count
    from rules.stated_load import load_for, program_load, sent_at_once
    from rules.subject import Subject

    facts = read_bundle(path)
    subject = Subject.of(facts)
    w = facts.workload()
    ms = facts.of(Measurement)
    tp = w.tp or next((m.tp for m in ms if m.tp), None)
    if tp is None and gpu_count(facts) == 1:  # one GPU splits nothing: the TP 1 the rules price it at
        tp = 1  # (rules.common.one_gpu_job, rules.ticket_figures.assumed_tp)
    batch = w.batch or w.concurrency or next((m.batch or m.concurrency for m in ms if m.batch or m.concurrency), None)
    if batch is None:  # prompts sent at once (a benchmark's count, a script's one call with N prompts): the rules' load
        batch = (sent_at_once(facts, least=2) or (None,))[0]
    if batch is None and any(x.extra.get("load_stated") for x in facts.of(Workload)):
        batch = 1  # "one request at a time" in the reporter's words: the rules' "batch 1 (stated)" (stated_load)
    if batch is None:  # a program that runs one sequence by its documentation (llama-bench, ollama run): the rules'
        batch = (program_load(facts) or (None,))[0]  # default where nothing else states a load (stated_load.load_for)
    if batch is None:  # an engine capped at one sequence ("--parallel 1", "--max-num-seqs 1"): the batch at full load
        full = load_for(facts, full_load=True)  # that capture and scaling read (stated_load.load_for), one
        batch = 1 if full is not None and full.cap and full.cap[0] == 1 else None
    # a size stand-in ("llama-2-13b (stand-in for a 13B model)") is read as the row it stands in with
    model = subject.model.key.split(" (")[0] if subject.model else None
    gpu = subject.gpu.key if subject.gpu else None
    held = [(m.metric, m.value, bool(m.model or m.gpu_name)) for m in ms]
    return Reading(model, gpu, gpu_count(facts), tp, engine_of(facts), w.dtype, batch, held)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 0.01 * max(abs(b), 1e-9)


def _holds(fig: dict | float, got: float) -> bool:
    """Does `got` hold the annotated figure: its value (or a value inside its written range), directly or as the
    reciprocal per 1000 (ms per token turned into tokens/s), in the unit written or, for a time, in ms?"""
    scale = MS_PER.get(fig.get("unit", "").strip().lower(), 1.0) if isinstance(fig, dict) else 1.0
    for k in {1.0, scale}:
        if isinstance(fig, dict) and "range" in fig:
            low, high = (v * k for v in fig["range"])
            if low * 0.99 <= got <= high * 1.01 or (got > 0 and low * 0.99 <= 1000.0 / got <= high * 1.01):
                return True
        else:
            value = (fig["value"] if isinstance(fig, dict) else fig) * k
            if _close(got, value) or (got > 0 and _close(1000.0 / got, value)):
                return True
    return False


def score(truth: dict, got: Reading) -> dict[str, list[str]]:
    """Per fact type, one 'right' / 'missed' / 'wrong' per annotated fact (figures: one per figure, plus one
    'wrong' per spurious or reference-as-measured figure); n/a facts are left out."""
    out: dict[str, list[str]] = {k: [] for k in KINDS}

    def keyed(kind, expected, value):
        if not expected:
            out[kind].append("right" if value is None else "wrong")
        else:
            out[kind].append("missed" if value is None else "right" if value in expected else "wrong")

    keyed("model", truth["model"], got.model)
    keyed("gpu", truth["gpu"], got.gpu)
    for kind in ("gpus", "tp", "batch"):
        if truth[kind]:
            value = getattr(got, kind)
            out[kind].append("missed" if value is None else "right" if value == truth[kind] else "wrong")
    engine = None if got.engine in (None, "generic") else got.engine
    fams = truth["engine"]
    if not fams:
        out["engine"].append("right" if engine is None else "wrong")
    else:
        out["engine"].append("missed" if engine is None else
                             "right" if any(engine == f or engine.startswith(f + "-") for f in fams) else "wrong")
    if truth["dtype"]:
        out["dtype"].append("missed" if not got.dtype else "right" if got.dtype in truth["dtype"] else "wrong")
    used = set()
    for fig in truth["figures"]:
        hits = [i for i, (_, v, _) in enumerate(got.measurements) if _holds(fig, v)]
        good = [i for i in hits if got.measurements[i][0] in fig["metrics"]]
        used.update(hits)
        out["figures"].append("right" if good else "wrong" if hits else "missed")
    for i, (_, v, elsewhere) in enumerate(got.measurements):
        if i in used or any(_close(v, u) for u in truth.get("unscored", [])):
            continue
        if any(_holds(o, v) for o in truth.get("others", [])) and elsewhere:
            continue  # another model's or GPU's figure, held as such
        # a reference figure held as measured, another model's figure held as this one's, or a value the paste
        # does not state
        out["figures"].append("wrong")
    return out


def table(rows: dict[str, dict[str, list[str]]]) -> str:
    """Per fact type: facts scored, right, missed, wrong (figures: a wrong meaning, or a figure held that is not
    the system's own), recall (right / scored) and the wrong share of everything the tool held or missed."""
    lines = ["| fact | scored | right | missed | wrong | recall | wrong share |", "|---|---:|---:|---:|---:|---:|---:|"]
    for kind in KINDS:
        marks = [m for r in rows.values() for m in r[kind]]
        right, missed, wrong = (marks.count(x) for x in ("right", "missed", "wrong"))
        lines.append(f"| {kind} | {len(marks)} | {right} | {missed} | {wrong} | {right / max(len(marks), 1):.0%} | "
                     f"{wrong / max(len(marks), 1):.0%} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    folder = REPO / argv[argv.index("--folder") + 1] if "--folder" in argv else FOLDER
    truth = tomllib.loads((folder / "facts.toml").read_text())["paste"]
    rows = {}
    for name, t in truth.items():
        got = read(folder / f"{name}.md")
        rows[name] = score(t, got)
        if "--pastes" in argv:
            print(f"{name}: model={got.model} gpu={got.gpu} gpus={got.gpus} tp={got.tp} engine={got.engine} "
                  f"dtype={got.dtype} batch={got.batch} figures={[(m, v) for m, v, _ in got.measurements]}")
            print("   ", {k: v for k, v in rows[name].items() if v})
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
