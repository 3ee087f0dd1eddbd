"""`diagnose ticket PATH...`: read a support ticket's attachments, evaluate the rules, and write
the answer to paste back: verdict, ranked findings with quoted evidence, fix, what to attach next."""

from __future__ import annotations

import click

from diagnose.commands.options import InputPath, output_options


@click.command("ticket")
@click.argument("paths", nargs=-1, required=True, type=InputPath("attachment", folder=None))
@output_options(default_format="md")
def ticket(paths):
    """Diagnose a support ticket from its attachments (a folder or files).

    Each file's kind is detected from its content (topo -m, nvidia-smi -q, nccl-tests, NCCL_DEBUG
    logs, lspci, serving benchmarks, launch lines, ticket.toml, ...). The default output is
    Markdown ready to paste into the ticket; --json and --format terminal as everywhere.

    \b
    Examples:
      diagnose ticket samples/tickets/p2p-level-loc/
      diagnose ticket samples/tickets/p2p-level-loc/attachment2.log --json
    """
    from diagnose.bundle import read_bundle
    from diagnose.pipeline import run_pipeline
    from rules.engine import ticket_findings, ticket_verdict

    facts = read_bundle(list(paths))
    _check_stated_figures(facts)
    return run_pipeline("ticket", {"paths": list(paths)}, facts, ticket_predictions(facts),
                        weigh=lambda facts, found: _as_written(facts, ticket_findings(facts, found)),
                        decide=ticket_verdict, tables=_tables)


def _as_written(facts, findings):
    """(known48) The reporter's figures quoted in the evidence as the reporter wrote them: one the issue's reader
    rewrote to be read ("22,9 tokens/second" read as 22.9, issue_md.DECIMAL_COMMA_RATE) is given back its comma in
    the evidence of its own file (source and detail), as its Measurement.said keeps it; the values, and the JSON's
    numbers, stay numbers. Done once the verdict is weighed (the rules match quotes as they read them)."""
    from diagnose.artifacts.issue_md import given_back
    from diagnose.evidence import Note

    commas = {n.source.partition(":")[0]: n.data["decimal_commas"] for n in facts.of(Note)
              if n.kind == "description" and n.data.get("decimal_commas")}
    if commas:
        for e in (e for f in findings for e in f.evidence):
            if pairs := commas.get(e.source.partition(":")[0]):
                e.source, e.detail = given_back(e.source, pairs), given_back(e.detail, pairs)
    return findings


def _check_stated_figures(facts) -> None:
    """A figure a ticket.toml states as measured is typed by the user, not parsed from a tool's output:
    one no hardware can produce (1e308 tok/s, a negative rate, a zero ITL) is bad input naming it, as
    `diagnose scaling` refuses the same file, never a verdict."""
    from diagnose.evidence import Measurement
    from diagnose.scaling_inputs import check_measurement

    stated = {read.name for read in facts.files if "ticket_toml" in read.kinds}
    for m in facts.of(Measurement):
        if m.source.rpartition(":")[0] in stated:
            check_measurement(m)


def ticket_predictions(facts):
    """Captures in the ticket are judged against the expectation `diagnose capture` uses."""
    from diagnose.evidence import CaptureInfo

    if not facts.of(CaptureInfo):
        return None
    from diagnose.capture_report import recorded_predictions

    return recorded_predictions(facts)


def _tables(facts, findings, answer) -> dict:
    """What was read from each attachment, and what to ask the reporter for next."""
    tables = {}
    files = getattr(facts, "files", None) or []
    if files:
        from diagnose.evidence import Note

        # a recognised file whose parser gave up (a ticket.toml that is not TOML) must not read as fine
        failed = {n.source: n.text.removeprefix(f"{n.source}: ") for n in facts.of(Note)
                  if n.kind in ("unreadable_file", "parser_error")}
        tables["Attachments read"] = {
            "columns": ["file", "recognised as", "records"],
            "rows": [[f.name, _recognised(f, failed.get(f.name)), f.records] for f in files],
        }
    if answer.names_the_cause():  # a confident verdict: asking for more is noise (findings keep `ask`)
        return tables
    from rules.engine import LEAD_SAYS, fallback_ask, is_cause, symptom_ask, without_repeats

    asks = [(f.rule, f.ask or f.fix) for f in findings if f.category == "insufficient_data" and (f.ask or f.fix)]
    asks += [("bundle", m) for m in facts.missing]
    if not asks and answer.category == "insufficient_data":
        asks = [("bundle", ask.removeprefix("attach "))] if (ask := fallback_ask("ticket", facts)) else []
    # a lead's own ask (what would show the cause it points at) first, else what settles the ticket's kind of question
    undecided = answer.category == "insufficient_data" or answer.summary.startswith(LEAD_SAYS)
    leads = [(f.rule, f.ask) for f in findings if f.ask and f.severity == "info" and is_cause(f)]
    first = leads or ([("ticket.symptom", said)] if undecided and (said := symptom_ask(facts)) else [])
    asks = first + asks
    rule_of = {}  # each artifact once, under the first check that asks for it
    for rule, artifact in asks:
        rule_of.setdefault(artifact, rule)
    rows = [[rule_of[artifact], artifact] for artifact in without_repeats(list(rule_of))]
    if rows:
        tables["What to attach next"] = {"columns": ["check", "artifact"], "rows": rows}
    return tables


def _recognised(f, failure: str | None) -> str:
    kinds = ", ".join(f.kinds)
    if kinds and failure:
        return f"{kinds}, unreadable: {failure}"
    if failure and f.problem == "unrecognised":  # detected, but its parser failed
        return f"unrecognised ({failure})"
    return kinds or f.problem or "nothing"
