"""`diagnose rules`: every rule, the categories it can conclude, and what it checks.

The listing is the rule registry itself (ids, declared categories, docstrings), so it cannot
drift from the code; the README's rule reference is this command's Markdown output.
"""

from __future__ import annotations

import click


@click.command("rules")
@click.option("--format", "fmt", type=click.Choice(["terminal", "md", "json"]), default="terminal",
              show_default=True, help="terminal table, a Markdown table (the README's), or JSON.")
@click.argument("prefix", required=False)
def rule_list(fmt, prefix):
    """List every rule with the categories it can conclude and what it checks.

    PREFIX keeps the rules whose id starts with it (capture, node, ticket, topology, ...).

    \b
    Examples:
      diagnose rules
      diagnose rules ticket --format md
    """
    import json

    from diagnose.errors import InputError
    from rules.engine import load_rules

    rules = [r for rid, r in sorted(load_rules().items()) if not prefix or rid.startswith(prefix)]
    if not rules:
        raise InputError(f"no rule id starts with {prefix!r} (see 'diagnose rules')")
    if fmt == "json":
        listed = [{"id": r.id, "categories": list(r.categories), "needs": r.needs_name, "doc": r.doc} for r in rules]
        click.echo(json.dumps(listed, indent=2))
    elif fmt == "md":
        click.echo(markdown_table(rules), nl=False)
    else:
        _print_terminal(rules)


def markdown_table(rules) -> str:
    from rules.engine import summary

    lines = ["| rule | concludes | checks |", "|---|---|---|"]
    for r in rules:
        lines.append(f"| `{r.id}` | {' / '.join(r.categories)} | {_cell(summary(r))} |")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _print_terminal(rules) -> None:
    """The table laid out as every report's tables are (width, colour, escaping)."""
    import sys

    from diagnose.report.terminal import render_table
    from rules.engine import summary

    rows = [[r.id, ", ".join(r.categories), summary(r)] for r in rules]
    click.echo(render_table(["rule", "concludes", "checks"], rows, color=sys.stdout.isatty()), nl=False)
