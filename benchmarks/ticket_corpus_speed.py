"""How long `diagnose ticket` takes on each real paste kept under tests/data: the slowest and the median.

ticket_speed.py grows a few inputs to find reading that is not linear in the paste's size. This script looks for the
other kind of slowness: a short ticket whose wording sends a rule through the whole catalog (a ticket naming the
engine but neither the model nor the board once priced 32,564 layouts, about 30 s of CPU). Each kept paste (an issue's
Markdown; SOURCES, NOTES and README files are not pastes, nor the scored cases under tests/data/tickets) is judged in
this one process, as `diagnose ticket` judges it, after one untimed warm-up read. Prints the median and the 95th
percentile seconds, the slowest pastes with their time, and the ratio of the slowest to the median: measured in one
run on this machine, so a ratio, never a timed test.

    python benchmarks/ticket_corpus_speed.py [--top 10] [--only FOLDER_PART]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
NOT_PASTES = {"SOURCES.md", "NOTES.md", "README.md", "AUDIT.md"}


def pastes(only: str | None) -> list[Path]:
    """Every kept paste under tests/data, outside the scored cases."""
    found = (p for p in (REPO / "tests" / "data").rglob("*.md") if p.name not in NOT_PASTES)
    return sorted(p for p in found if "tickets" not in p.relative_to(REPO / "tests" / "data").parts
                  and (only is None or only in str(p.parent.name)))


def judge_seconds(path: Path, into: Path) -> float:
    """Seconds to read and judge one paste as `diagnose ticket issue.md` does (reading, rules, verdict)."""
    from diagnose.bundle import read_bundle
    from diagnose.commands.ticket import ticket_predictions
    from rules.engine import evaluate, ticket_verdict

    copy = into / "issue.md"
    shutil.copy(path, copy)
    start = time.perf_counter()
    facts = read_bundle([copy])
    ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=10, help="how many of the slowest pastes to print")
    parser.add_argument("--only", help="only folders whose name holds this")
    args = parser.parse_args()
    found = pastes(args.only)
    if not found:
        sys.exit("ticket_corpus_speed: no paste matches")
    with tempfile.TemporaryDirectory() as tmp:
        judge_seconds(found[0], Path(tmp))  # warm-up: imports, catalogs, compiled patterns
        times = [(judge_seconds(p, Path(tmp)), p) for p in found]
    seconds = sorted(t for t, _ in times)
    median = statistics.median(seconds)
    p95 = seconds[int(0.95 * (len(seconds) - 1))]
    print(f"{len(seconds)} pastes: median {median:.3f} s, 95th percentile {p95:.3f} s, total {sum(seconds):.0f} s")
    for t, p in sorted(times, key=lambda x: -x[0])[:args.top]:
        print(f"  {t:8.3f} s  {t / median:7.1f} x median  {p.relative_to(REPO)}")
    print(f"slowest / median: {seconds[-1] / median:.1f}")


if __name__ == "__main__":
    main()
