"""`diagnose rules` is the registry itself, and the README's rule reference is its output."""

import json
import re

from click.testing import CliRunner
from conftest import REPO

from diagnose.cli import cli
from diagnose.commands.rule_list import markdown_table
from diagnose.findings import CATEGORIES
from rules.engine import load_rules


def test_every_rule_is_documented_and_declares_known_categories():
    rules = load_rules()
    assert len(rules) > 50
    for rid, r in rules.items():
        assert r.doc, f"{rid} has no docstring"
        assert r.categories, f"{rid} declares no category"
        unknown = set(r.categories) - set(CATEGORIES)
        assert not unknown, f"{rid} declares unknown categories {unknown}"


def test_readme_rule_reference_is_the_commands_output():
    readme = (REPO / "README.md").read_text()
    section = re.search(r"<!-- rules:start -->\n(.*?)<!-- rules:end -->", readme, re.S)
    assert section, "README has no generated rule reference"
    expected = markdown_table([r for _, r in sorted(load_rules().items())])
    assert section.group(1) == expected, ("README rule reference is stale: regenerate it with "
                                          "`python scripts/readme_rules.py`")


def test_cli_lists_filters_and_refuses_an_unknown_prefix():
    runner = CliRunner()
    r = runner.invoke(cli, ["rules", "--format", "json"])
    assert r.exit_code == 0
    rows = json.loads(r.output)
    assert [row["id"] for row in rows] == sorted(load_rules())
    # a rule that reads a command's predictions names their type; the others run on facts alone
    needs = {prefix: {row["needs"] for row in rows if row["id"].startswith(prefix)}
             for prefix in ("predict.", "plan.", "scaling.")}
    assert needs == {"predict.": {"PredictResult"}, "plan.": {"Plan"}, "scaling.": {"ScalingAnalysis"}}
    assert {row["needs"] for row in rows if row["id"].startswith(("node.", "ticket.", "capture."))} == {None}
    r = runner.invoke(cli, ["rules", "ticket.", "--format", "json"])
    assert {row["id"].split(".")[0] for row in json.loads(r.output)} == {"ticket"}
    r = runner.invoke(cli, ["rules", "no-such-family"])
    assert r.exit_code == 2
    r = runner.invoke(cli, ["rules", "topology.p2p_status"])
    assert r.exit_code == 0 and "p2p_disabled" in r.output
