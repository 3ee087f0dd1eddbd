"""How often does the symptom classifier read the kind of question a real first post asks?

Reads tests/data/symptom34/labels.toml (each post's hand label, written from the post before the tool ran, and its
split), reads each post as a ticket (diagnose.bundle.read_bundle) and classes it (rules.claims.symptom_quote). Prints
per split the accuracy and a confusion (label -> reading). The `check` split is for validation: study its misreadings
only at the end.

    python scripts/symptom_score.py            # accuracy and confusion per split
    python scripts/symptom_score.py --posts    # and each study post's label, reading and the words that decided it
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagnose.bundle import read_bundle  # noqa: E402
from rules.claims import symptom_quote  # noqa: E402

FOLDER = REPO / "tests" / "data" / "symptom34"
KINDS = ("hang", "crash", "error", "scaling", "slow", "normal?", "other")


def readings() -> list[tuple[str, str, str, str, str]]:
    """(name, split, label, reading, quote) of every labelled post."""
    labels = tomllib.loads((FOLDER / "labels.toml").read_text())
    out = []
    for name, row in sorted(labels.items()):
        found = symptom_quote(read_bundle(FOLDER / f"{name}.md"))
        reading, quote = (found[2], found[1]) if found else ("none", "")
        out.append((name, row["split"], row["class"], reading, quote))
    return out


def main(argv: list[str]) -> None:
    rows = readings()
    for split in ("study", "check"):
        part = [r for r in rows if r[1] == split]
        right = sum(r[2] == r[3] for r in part)
        print(f"{split}: {right}/{len(part)} read as labelled")
        pairs = Counter((r[2], r[3]) for r in part if r[2] != r[3])
        for (label, reading), n in sorted(pairs.items()):
            print(f"  {label:8} read as {reading:8} x{n}")
    if "--posts" in argv:
        for name, split, label, reading, quote in rows:
            if split == "study":
                mark = "ok " if label == reading else "BAD"
                print(f"{mark} {name:22} {label:8} -> {reading:8} {quote[:90]!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
