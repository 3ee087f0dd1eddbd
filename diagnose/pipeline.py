"""One pipeline for every command: facts (and predictions) -> rules -> findings -> verdict -> Report.

Parsers and probes only state what they read; here, at the boundary, each GPU is named by its
catalog row once, the rules run over the facts, and the verdict and report are made the same way
whatever command gathered the evidence, so the same evidence gives the same verdict everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from diagnose.evidence import Facts, GpuFact
from diagnose.findings import Finding, Report, Verdict

if TYPE_CHECKING:
    from rules.predictions import Predictions


def run_pipeline(kind: str, inputs: dict[str, Any], facts: Facts, predictions: Predictions | None = None, *,
                 only: list[str] | None = None,
                 keep: Callable[[Finding], bool] | None = None,
                 missing: list[str] | None = None,
                 weigh: Callable[[Facts, list[Finding]], list[Finding]] | None = None,
                 decide: Callable[[Facts, list[Finding]], Verdict] | None = None,
                 facts_json: dict[str, Any] | None = None,
                 tables: Callable[[Facts, list[Finding], Verdict], dict] | dict | None = None) -> Report:
    """The report of `kind` on `facts`.

    predictions: the command's rules.predictions object (the rules whose `needs=` names its type
    read it; the report shows its report_json()), or None. only: rule id prefixes to run
    (predict/plan/scaling run their own family); keep: which of their findings the report keeps;
    missing: what the evidence lacks, when the command knows better than the facts; decide: the verdict
    for the kind (a ticket weighs the reporter's claims), from the findings as the rules gave them, else the
    ranked causes; weigh: the same weighing applied to the findings reported (a ticket's
    rules.engine.ticket_findings), so their severities and the exit code say what the verdict says;
    facts_json: what the report shows of the facts when not all
    of them (scaling)."""
    from rules.engine import evaluate, verdict

    name_catalog_rows(facts)
    findings = evaluate(facts, predictions, only=only)
    if keep:
        findings = [f for f in findings if keep(f)]
    answer = decide(facts, findings) if decide else None
    if weigh:
        findings = weigh(facts, findings)
    answer = answer or verdict(findings, facts.missing if missing is None else missing)
    return Report(kind=kind, inputs=inputs, facts=facts.to_dict() if facts_json is None else facts_json,
                  predictions=shown(predictions), findings=findings, verdict=answer,
                  tables=tables(facts, findings, answer) if callable(tables) else dict(tables or {}))


def shown(predictions: Predictions | None) -> dict[str, Any]:
    """What the report shows of the predictions (schema diagnose.report/1)."""
    return predictions.report_json() if predictions is not None else {}


def name_catalog_rows(facts: Facts) -> None:
    """Fill each GPU's `catalog_key` (its row in rules/catalog/gpus.toml) where the catalog knows it."""
    from rules.catalog import find_gpu

    for gpu in facts.of(GpuFact):
        if gpu.catalog_key is None and (gpu.name or gpu.pci_device_id):
            spec = find_gpu(name=gpu.name, pci_device_id=gpu.pci_device_id)
            gpu.catalog_key = spec.key if spec else None
