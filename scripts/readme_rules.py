"""Rewrite the README's rule reference from the rule registry (`diagnose rules --format md`).

tests/test_rule_reference.py fails while the README is stale; run this to bring it up to date."""

import re
from pathlib import Path

from diagnose.commands.rule_list import markdown_table
from rules.engine import load_rules

README = Path(__file__).resolve().parent.parent / "README.md"

text = README.read_text()
table = markdown_table([r for _, r in sorted(load_rules().items())])
new, count = re.subn(r"(<!-- rules:start -->\n).*?(<!-- rules:end -->)", lambda m: m.group(1) + table + m.group(2),
                     text, flags=re.S)
if count != 1:
    raise SystemExit("README.md has no <!-- rules:start --> ... <!-- rules:end --> section")
README.write_text(new)
print(f"README rule reference: {len(load_rules())} rules")
