"""Fit rules/catalog/verdict_confidence.toml: per evidence class of a ticket verdict (rules.engine.verdict_class),
how many DEVELOPMENT verdicts (other than insufficient_data) fall in it and their share right, scored as
benchmarks/ticket_accuracy.py scores them. Only development cases are read (tests/data/tickets/SPLIT.toml): fresh
and holdout are checked through the benchmark's aggregates alone, never fitted on.

Prints what it fitted and from how many cases; --write rewrites the file, --check exits 1 when the file's rows
differ from a fresh fit (the fit is deterministic: the same rules and cases give the same file).

    python scripts/fit_verdict_confidence.py [--write | --check]
"""

import argparse
import collections
import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
spec = importlib.util.spec_from_file_location("ticket_accuracy", REPO / "benchmarks" / "ticket_accuracy.py")
ticket_accuracy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ticket_accuracy)

TARGET = REPO / "rules" / "catalog" / "verdict_confidence.toml"
# No fitted level reaches the benchmark's "confident" (0.7): development is in-sample (its rules were written from
# its cases), so its share right may lift a verdict up to just below confident, never make it confident.
LINE = round(ticket_accuracy.CONFIDENT - 0.01, 2)
# A class needs this many development verdicts to be fitted: at 20 and 90 % right a share's standard error is
# about 7 points (sqrt(0.9 * 0.1 / 20)); below it the rules' own levels stand.
MIN_N = 20
CLASSES = ("artifact", "words", "prior", "passes", "lead")  # rules.engine.verdict_class

HEADER = """\
# The confidence a ticket verdict states, per class of the evidence behind it (issue 11: a confidence that
# means what it says). rules.engine.ticket_verdict reads it. The rules' own levels (artifact 0.75, observed
# words 0.65, guess 0.4, leads 0.45 ...) rank the causes and pick the verdict; they did not say how often a
# verdict is right: on development every level from 0.4 to 0.65 was right 95-100 %, on fresh 76-79 % whatever
# the level (2026-12-03). So a verdict's confidence is at least its class's share right, below the line.
#
# WRITTEN BY `python scripts/fit_verdict_confidence.py --write` (do not edit by hand; `--check` re-fits and
# compares) from the DEVELOPMENT cases of tests/data/tickets (SPLIT.toml) alone: fresh, holdout and the shared
# tickets are never read by the fit. Per class, `n` development verdicts other than insufficient_data and `right`
# their share right (benchmarks/ticket_accuracy.py's top-1). A class with fewer than `min_n` verdicts is not
# fitted (its rules' levels stand). The map is monotone in the rules' level: confidence = max(the rule's level,
# min(right, line)); `line` keeps every fitted level below the 0.7 from which a wrong verdict counts as
# confidently wrong (benchmarks/ticket_accuracy.py CONFIDENT): development is in-sample (its rules were written
# from it), so it may lift a verdict up to the line, never past it. Above the line only a rule's own level from
# a parsed artifact stands; the reporter's prose or a base rate alone never passes it.
#
# Classes (rules.engine.verdict_class): `artifact` a cause with a parsed artifact or tool output behind it,
# `words` a cause whose every piece of evidence is the reporter's prose, `prior` only the symptom's base
# rate (rules.engine.PRIORS: no check of this system), `passes` healthy / expected_physics
# from checks that passed, `lead` a weak lead beside open gaps ("not enough evidence to be sure").
"""


def fit() -> tuple[int, dict[str, tuple[int, float]]]:
    """(development cases read, {class: (verdicts, share right)}). A verdict's class reads its category and how its
    summary opens, which the map never changes, so the fit does not depend on the file it writes."""
    from rules.engine import verdict_class

    counts = collections.defaultdict(lambda: [0, 0])
    read = 0
    for split, folder, key in ticket_accuracy.cases():
        if split != "development":  # never fresh, holdout or shared: they are scored, not fitted on
            continue
        read += 1
        facts, findings, v = ticket_accuracy.judge(folder)
        kind = verdict_class(facts, findings, v)
        if kind:
            counts[kind][0] += 1
            counts[kind][1] += v.category in ticket_accuracy.accepted(key)
    return read, {k: (n, round(right / n, 3)) for k, (n, right) in counts.items()}


def ordered(rows: dict) -> list[str]:
    """The fitted classes in CLASSES' order, any other after them by name."""
    return [k for k in CLASSES if k in rows] + sorted(set(rows) - set(CLASSES))


def render(read: int, rows: dict[str, tuple[int, float]]) -> str:
    decided = sum(n for n, _ in rows.values())
    body = [HEADER, f'fitted = "{read} development cases, {decided} verdicts other than insufficient_data"',
            f"line = {LINE}", f"min_n = {MIN_N}", ""]
    for kind in ordered(rows):
        n, right = rows[kind]
        note = "" if n >= MIN_N else "  # fewer than min_n: not fitted"
        body += [f"[{kind}]", f"n = {n}", f"right = {right}{note}", ""]
    return "\n".join(body)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"rewrite {TARGET.relative_to(REPO)}")
    ap.add_argument("--check", action="store_true", help="exit 1 when the file differs from a fresh fit")
    args = ap.parse_args()
    read, rows = fit()
    decided = sum(n for n, _ in rows.values())
    print(f"fitted on {read} development cases ({decided} verdicts other than insufficient_data; "
          f"fresh, holdout and shared not read); line {LINE}, min_n {MIN_N}")
    for kind in ordered(rows):
        n, right = rows[kind]
        level = f"level {min(right, LINE):.2f}" if n >= MIN_N else "not fitted (rules' levels stand)"
        print(f"  {kind:9s} n {n:4d}  right {right:.1%}  {level}")
    text = render(read, rows)
    if args.write:
        TARGET.write_text(text)
        print(f"written to {TARGET.relative_to(REPO)}")
    elif args.check:
        same = TARGET.is_file() and TARGET.read_text() == text
        print(f"{TARGET.relative_to(REPO)}: {'matches the fit' if same else 'DIFFERS from the fit'}")
        sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
