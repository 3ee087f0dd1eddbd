"""List the model names real ticket texts use and how the catalog reads each (issue 11: tickets whose model does
not resolve lose every expected figure). Reads only texts we may study: ../shared/tickets, the development split of
tests/data/tickets, and the issue texts kept under tests/data (never the fresh or holdout folders).

    python scripts/model_names_scan.py            # name, count, resolution, first file
"""
from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rules import catalog, subject  # noqa: E402

# The model lines tickets name (families from rules/catalog/models.toml and the lines issue 11 lists as missing).
FAMILY = (r"(?:meta-)?llama|codellama|qwen|qwq|mistral|mixtral|ministral|magistral|devstral|codestral|gemma|phi|"
          r"deepseek|glm|chatglm|gpt-oss|gpt-j|gpt-neox|falcon|yi|command-r|c4ai|internlm|minimax|kimi|baichuan|"
          r"starcoder|opt|bloom|vicuna|zephyr|nemotron|granite|olmo|smollm|exaone|hermes|solar|dbrx|jamba|mpt|"
          r"aya|arctic|grok|ernie|hunyuan|seed|step|openchat|wizard\w*|tinyllama")
SIZE = r"\d+(?:\.\d+)?[bBmM]\b|\d+x\d+[bB]\b"
PATTERNS = (
    re.compile(rf"\b[\w.-]+/(?:{FAMILY})[\w.-]*", re.I),  # a Hugging Face id, 'org/Name'
    re.compile(rf"(?<![\w/.-])(?:{FAMILY})[\w.-]*:[\w.-]+", re.I),  # an Ollama tag, 'qwen2.5:7b'
    re.compile(r"(?<![\w/.-])[\w.-]+\.gguf\b", re.I),  # a GGUF file name
    re.compile(rf"(?<![\w/.-])(?:{FAMILY})(?:[ _-]?[\w.]+){{0,4}}?[ _-]?(?:{SIZE})(?:[-_][\w.]+)*", re.I),  # prose
)


def texts() -> list[Path]:
    split = tomllib.loads((ROOT / "tests/data/tickets/SPLIT.toml").read_text())
    dev = set(split.get("development", []))
    unseen = set(split.get("fresh", [])) | set(split.get("holdout", []))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from ticket_accuracy import in_holdout

    folders = [p for p in (ROOT.parent / "shared/tickets").iterdir() if p.is_dir()]
    for p in (ROOT / "tests/data/tickets").iterdir():
        if p.is_dir() and p.name not in unseen and (p.name in dev or not in_holdout(p.name)):
            folders.append(p)
    for p in (ROOT / "tests/data").iterdir():
        if p.is_dir() and re.match(r"(review_|ut\d|mend|phys25|fa24|issues|normal_questions|paraphrases)", p.name):
            folders.append(p)
    return sorted(f for d in folders for f in d.rglob("*") if f.is_file() and f.suffix in (".md", ".toml", ".txt",
                                                                                             ".log", ".json"))


def _shown(path: Path) -> str:
    """A path as the repository names it: its own files from its root, the shared tickets as ../shared/..."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else "../" + str(path.relative_to(ROOT.parent))


def resolve(name: str) -> str | None:
    """The catalog row a ticket reads the name as (rules.subject's reading: the name, its base, its sized run)."""
    return next((spec.key for n in subject._model_names(name) if (spec := catalog.find_model(n))), None)


def scan():
    seen: Counter = Counter()
    where: dict[str, str] = {}
    for path in texts():
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for pattern in PATTERNS:
            for hit in pattern.finditer(text):
                name = hit.group(0).strip("._-:")
                if not re.search(r"\d", name) or len(name) > 90:
                    continue
                seen[name] += 1
                where.setdefault(name, _shown(path))
    return seen, where


if __name__ == "__main__":
    seen, where = scan()
    rows = defaultdict(list)
    for name, n in seen.most_common():
        key = resolve(name)
        stand = None if key else subject._sized_stand_in(name)
        rows["resolved" if key else "stand-in" if stand else "unresolved"].append(
            (name, n, key or (stand.key if stand else ""), where[name]))
    for kind in ("unresolved", "stand-in", "resolved"):
        print(f"## {kind}: {len(rows[kind])} names, {sum(r[1] for r in rows[kind])} mentions")
        for name, n, key, path in rows[kind]:
            print(f"{n:4d}  {name:60s} {key:40s} {path}")
