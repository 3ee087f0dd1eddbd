"""Is a thread already a ticket case? Prints 'USED' or 'new' for each URL given, comparing it with the
source URL of every case (tests/data/tickets and ../shared/tickets) and printing nothing else, so it
can be run before collecting a case without reading the holdout's contents.

A thread is its repository name and number (owners are renamed: ggerganov -> ggml-org,
pytorch-labs -> meta-pytorch; so are some repositories, which REPO_RENAMED maps to their current name), or the
whole address for other pages.

    python scripts/case_url_used.py URL [URL ...]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FOLDERS = (REPO / "tests" / "data" / "tickets", REPO.parent / "shared" / "tickets")
# Repositories renamed on GitHub (old addresses redirect): oobabooga/text-generation-webui is oobabooga/textgen.
REPO_RENAMED = {"text-generation-webui": "textgen"}
_THREAD = re.compile(r"github\.com/[^/]+/([^/]+)/(?:issues|pull|discussions)/(\d+)", re.I)


def key(url: str) -> str:
    m = _THREAD.search(url)
    if m:
        repo = m.group(1).lower()
        return f"{REPO_RENAMED.get(repo, repo)}#{m.group(2)}"
    return re.sub(r"^https?://(?:www\.)?", "", url.strip().lower().split("#")[0]).rstrip("/")


def used() -> set[str]:
    out = set()
    for base in FOLDERS:
        for f in base.glob("*/expected.toml"):
            out.update(key(u) for u in re.findall(r"https?://[^\s\"'<>]+", f.read_text()))
    return out


if __name__ == "__main__":
    known = used()
    for url in sys.argv[1:]:
        print(f"{'USED' if key(url) in known else 'new '} {url}")
