"""Score the GPU-name resolvers on the labelled mentions of tests/data/gpuname35/names.toml: each mention is read the
way a ticket's words are (issue_md's GPU_NAME over the words around it, issue_md.gpu_as_written), then resolved as
the ticket's own GPU is (rules.subject: the exact name first, then catalog.resolve_gpu). Prints right / wrong / none
per split; --names lists the study split's misses."""

import argparse
import sys
from pathlib import Path

import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from diagnose.artifacts import issue_md  # noqa: E402
from rules import catalog  # noqa: E402

NAMES = Path(__file__).resolve().parents[1] / "tests/data/gpuname35/names.toml"


def read_mention(text: str, words: str) -> str | None:
    """The GPU name the ticket reader takes from `words` at the mention `text` (None: it reads none there)."""
    at = words.find(text)
    for m in issue_md.GPU_NAME.finditer(words):
        if at < 0 or m.start() < at + len(text) and m.end() > at:
            return issue_md.gpu_as_written(words, m)
    return None


def resolve(name: str | None) -> str:
    """The catalog key a ticket's GPU name resolves to, as rules.subject resolves it ("none": no row)."""
    if not name:
        return "none"
    spec = catalog.find_gpu(name=catalog.gpu_name(name)) or catalog.resolve_gpu(name)
    return spec.key if spec else "none"


def score(rows) -> dict[str, list]:
    """{split: [(row, got)]}"""
    out: dict[str, list] = {}
    for row in rows:
        out.setdefault(row["split"], []).append((row, resolve(read_mention(row["text"], row["words"]))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--names", action="store_true", help="list the study split's misses")
    args = ap.parse_args()
    rows = tomllib.loads(NAMES.read_text())["mention"]
    for split, got in sorted(score(rows).items()):
        right = sum(r["label"] == g for r, g in got)
        none = sum(r["label"] != g and g == "none" for r, g in got)
        wrong = len(got) - right - none
        print(f"{split}: {right}/{len(got)} right ({100 * right / len(got):.0f}%), {wrong} wrong, {none} none")
        if args.names and split == "study":
            for r, g in got:
                if r["label"] != g:
                    print(f"  {r['text']!r}: {g} (label {r['label']})")


if __name__ == "__main__":
    main()
