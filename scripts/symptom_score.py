"""How often does the symptom classifier read the kind of question a real first post asks?

Reads a set's labels.toml (each post's hand label, written from the post before the tool ran, and its split), reads
each post as a ticket (diagnose.bundle.read_bundle) and classes it (rules.claims.symptom_quote). Prints per split the
accuracy and a confusion (label -> reading). The `check` split is for validation: study its misreadings only at the end.
symptom34 keeps its posts beside the labels; symptom36 names posts kept elsewhere under tests/data (`post = "..."`).

    python scripts/symptom_score.py                     # symptom34: accuracy and confusion per split
    python scripts/symptom_score.py --set symptom36     # the larger set
    python scripts/symptom_score.py --posts             # and each study post's label, reading and the deciding words
    python scripts/symptom_score.py --sample            # the paths symptom36 was drawn from, in drawing order
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections import Counter
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagnose.bundle import read_bundle  # noqa: E402
from rules.claims import symptom_quote  # noqa: E402

DATA = REPO / "tests" / "data"
KINDS = ("hang", "crash", "error", "scaling", "slow", "normal?", "other")
# A kept paste backed by a public thread: its folder's SOURCES.md row gives a GitHub issue, pull request or discussion,
# or a forum thread (not a documentation page, which marks a paste written around a documented line).
_THREAD = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/\d+|"
                     r"https?://(?:forums?\.|discuss\.|(?:www\.|old\.)?reddit\.com/|stackoverflow\.com/|"
                     r"[\w.]*stackexchange\.com/|huggingface\.co/[^ |)]*/discussions/)[^ |)>`]*")
_NOT_POSTS = {"SOURCES.md", "AUDIT.md", "README.md", "NOTES.md"}


def sample(size: int = 120, per_folder: int = 2) -> list[str]:
    """How symptom36 was drawn (fixed once): the thread-backed pastes under tests/data, not tickets/, published/,
    paraphrases*/ nor symptom34 (nor a thread it keeps), ordered by sha1 of the path, at most per_folder from one
    folder, the first `size`. Paths relative to tests/data."""
    taken = set(_THREAD.findall((DATA / "symptom34" / "SOURCES.md").read_text()))
    pool = []
    for p in sorted(DATA.rglob("*.md")):
        rel = p.relative_to(DATA)
        top = rel.parts[0]
        if p.name in _NOT_POSTS or top in ("tickets", "published", "symptom34") or top.startswith("paraphrases"):
            continue
        sources = p.parent / "SOURCES.md"
        rows = [line for line in sources.read_text().splitlines()
                if p.name in line and _THREAD.search(line)] if sources.exists() else []
        if rows and _THREAD.search(rows[0]).group(0) not in taken:
            pool.append(str(rel))
    chosen: list[str] = []
    per: Counter = Counter()
    for rel in sorted(pool, key=lambda r: hashlib.sha1(r.encode()).hexdigest()):
        folder = str(Path(rel).parent)
        if per[folder] < per_folder:
            chosen.append(rel)
            per[folder] += 1
    return chosen[:size]


def readings(name: str = "symptom34") -> list[tuple[str, str, str, str, str]]:
    """(name, split, label, reading, quote) of every labelled post of a set."""
    folder = DATA / name
    labels = tomllib.loads((folder / "labels.toml").read_text())
    out = []
    for key, row in sorted(labels.items()):
        post = DATA / row["post"] if "post" in row else folder / f"{key}.md"
        found = symptom_quote(read_bundle(post))
        reading, quote = (found[2], found[1]) if found else ("none", "")
        out.append((key, row["split"], row["class"], reading, quote))
    return out


def main(argv: list[str]) -> None:
    if "--sample" in argv:
        print("\n".join(sample()))
        return
    name = argv[argv.index("--set") + 1] if "--set" in argv else "symptom34"
    rows = readings(name)
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
                print(f"{mark} {name:32} {label:8} -> {reading:8} {quote[:90]!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
