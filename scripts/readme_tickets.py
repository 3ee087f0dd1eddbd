"""Rewrite the README's table of verdicts on ../shared/tickets from what `diagnose ticket` gives today.

Each bundle is copied without its answer key (expected.toml), as tests/test_tickets_real.py and
benchmarks/ticket_accuracy.py give it to the tool; the key's label fills the "expected" column.
tests/test_tickets_real.py fails while a row is stale; run this to bring it up to date."""

import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.inputs import tomllib

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
TICKETS = REPO.parent / "shared" / "tickets"


def row(bundle: Path) -> str:
    """The README row of one bundle: | name | expected label | verdict | confidence |."""
    label = tomllib.loads((bundle / "expected.toml").read_text())["label"]
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "bundle"
        shutil.copytree(bundle, copy, ignore=shutil.ignore_patterns("expected.toml"))
        result = CliRunner().invoke(cli, ["ticket", str(copy), "--json", "--fail-on", "never"])
    verdict = json.loads(result.stdout)["verdict"]
    return f"| {bundle.name} | {label} | {verdict['category']} | {verdict['confidence']:.2f} |"


def main() -> None:
    if not TICKETS.is_dir():
        sys.exit(f"{TICKETS} is absent: the shared reference folder must sit beside the checkout")
    bundles = sorted(p for p in TICKETS.iterdir() if (p / "expected.toml").is_file())
    table = "| ticket | expected | got | confidence |\n|---|---|---|---|\n" + "".join(row(b) + "\n" for b in bundles)
    text = README.read_text()
    new, count = re.subn(r"(<!-- tickets:start -->\n).*?(<!-- tickets:end -->)",
                         lambda m: m.group(1) + table + m.group(2), text, flags=re.S)
    if count != 1:
        sys.exit("README.md has no <!-- tickets:start --> ... <!-- tickets:end --> section")
    README.write_text(new)
    print(f"README ticket table: {len(bundles)} bundles")


if __name__ == "__main__":
    main()
