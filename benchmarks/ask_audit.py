"""Would the artifact an undecided ticket asks for settle it? (ask25, issue 11)

For each development case in tests/data/ask25/cases.toml (those whose verdict was insufficient_data or a weak lead),
the rows of the ticket's "What to attach next" table are set against the artifact family that settled the thread
(`settled_by`, read from the case's decisive_evidence). Each case is one of:
  first    the first row asks for a deciding artifact
  later    a later row does
  missed   no row does
  nothing  the table is empty
Cases settled by nothing a reporter could attach (`none`) are counted apart. Development cases only: never run it on
the fresh or holdout split.

    python benchmarks/ask_audit.py [--cases]
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "data" / "ask25" / "cases.toml"
# What an ask must name to request each family of artifact (the wording rules and SYMPTOM_ASKS use).
NAMES = {
    "versions": r"collect_env|version",
    "launch": r"launch line|benchmark command|flags",
    "stacks": r"py-spy",
    "xid": r"dmesg|\bxid\b",
    "topo": r"topo -m|topo -p2p",
    "numa": r"topo -m|numactl|lscpu",
    "smi_q": r"nvidia-smi -q\b",
    "nccl_log": r"NCCL_DEBUG=INFO",
    "cpu": r"py-spy|CPU profile",
    "config": r"config\.json",
    "lspci": r"lspci|\bACS\b|IOMMU",
    "errorlog": r"error output|engine's log|server log",
}


def asks_of(case: str) -> list[tuple[str, str]]:
    """The "What to attach next" rows `diagnose ticket` gives the case folder (without its answer key)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import ticket_accuracy

    from diagnose.commands.ticket import _tables
    from rules.engine import ticket_findings

    facts, findings, v = ticket_accuracy.judge(ticket_accuracy.CORPUS / case)
    table = _tables(facts, ticket_findings(facts, findings), v).get("What to attach next", {"rows": []})
    return [tuple(r) for r in table["rows"]]


def classify(settled_by: list[str], rows: list[tuple[str, str]]) -> str:
    if "none" in settled_by:
        return "unsettleable"
    if not rows:
        return "nothing"
    hits = [any(re.search(NAMES[f], text, re.I) for f in settled_by) for _, text in rows]
    return "first" if hits[0] else "later" if any(hits) else "missed"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", action="store_true", help="one line per case")
    args = parser.parse_args()
    counts, misses = collections.Counter(), collections.Counter()
    for case in tomllib.loads(CASES.read_text())["case"]:
        rows = asks_of(case["id"])
        got = classify(case["settled_by"], rows)
        counts[got] += 1
        if got in ("later", "missed", "nothing"):
            misses[(" or ".join(case["settled_by"]), rows[0][0] if rows else "-")] += 1
        if args.cases:
            print(f"{got:12} {case['id'][:60]:60} {'/'.join(case['settled_by']):18} "
                  f"{rows[0][0] if rows else '-'}: {rows[0][1][:70] if rows else ''}")
    print(" ".join(f"{k}={counts[k]}" for k in ("first", "later", "missed", "nothing", "unsettleable")))
    print("families of misses (settled by, first row's check):")
    for (settled, first), n in misses.most_common():
        print(f"  {n:3}  {settled:22} asked first: {first}")


if __name__ == "__main__":
    main()
