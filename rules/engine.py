"""The rule registry, evaluation, and the verdict.

A rule is a function `(facts, predictions) -> iterable of Finding`. It never reads files or
calls NVML; it reads `diagnose.evidence.Facts`. Register it with `@rule(...)` in a module
listed in RULE_MODULES so every command sees every rule.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from diagnose.findings import Evidence, Finding, Verdict, SEVERITY_RANK

# Modules that define rules, imported on first evaluation. Add yours here.
RULE_MODULES: list[str] = ["rules.node_rules", "rules.capture_rules", "rules.topology", "rules.nccl", "rules.host", "rules.health", "rules.workload", "rules.predict_rules", "rules.scaling", "rules.planner"]


@dataclass
class Rule:
    id: str
    categories: tuple[str, ...]
    func: Callable[..., Iterable[Finding]]
    doc: str


REGISTRY: dict[str, Rule] = {}


def rule(rule_id: str, *categories: str):
    """Register a rule under a stable id; its docstring is its documentation."""

    def wrap(func):
        if rule_id in REGISTRY and REGISTRY[rule_id].func is not func:
            raise ValueError(f"rule id {rule_id} registered twice")
        REGISTRY[rule_id] = Rule(rule_id, tuple(categories), func, (func.__doc__ or "").strip())
        return func

    return wrap


def load_rules() -> dict[str, Rule]:
    for name in RULE_MODULES:
        importlib.import_module(name)
    return REGISTRY


def evaluate(facts, predictions: Any = None, only: Iterable[str] | None = None) -> list[Finding]:
    """Run every registered rule (or those whose id starts with one of `only`).

    A rule that crashes is a bug in the tool, not in the user's input: the rest of the report
    still arrives, and the crash becomes an `other` finding. DIAGNOSE_STRICT=1 (the tests)
    re-raises instead.
    """
    findings: list[Finding] = []
    prefixes = tuple(only) if only else None
    for rule_id, r in sorted(load_rules().items()):
        if prefixes and not rule_id.startswith(prefixes):
            continue
        try:
            findings.extend(r.func(facts, predictions) or [])
        except Exception as exc:  # noqa: BLE001 - see docstring
            if os.environ.get("DIAGNOSE_STRICT"):
                raise
            findings.append(
                Finding(
                    rule=rule_id,
                    category="other",
                    severity="info",
                    confidence=0.0,
                    title=f"rule {rule_id} failed: {type(exc).__name__}: {exc}",
                    summary="This is a bug in diagnose; the other findings are unaffected.",
                    evidence=[Evidence(source=f"rule:{rule_id}", detail=repr(exc))],
                    fix="Report it with the inputs that triggered it.",
                )
            )
    return sorted(findings, key=Finding.sort_key)


def is_cause(f: Finding) -> bool:
    """Can this finding be the verdict? Problems, and explanations such as expected_physics."""
    if f.severity == "ok" or f.category in ("healthy", "insufficient_data"):
        return False
    return not (f.severity == "info" and f.category == "other")


# Passes weaker than this (configuration checks only) do not make a bundle "healthy".
WEAK = 0.5
# Informational findings that are conclusions in their own right; other info-level causes are
# leads, and a check that could not run outranks them.
CONCLUSIONS = ("expected_physics",)


# What to ask for when nothing more specific is known.
DEFAULT_ASK = ("attach `nvidia-smi topo -m`, `nvidia-smi -q`, and the NCCL_DEBUG=INFO output of one "
               "all_reduce_perf run on the affected GPUs")


def verdict(findings: list[Finding], missing: Iterable[str] = ()) -> Verdict:
    """The single most likely root cause, or healthy, or insufficient_data with what to attach."""
    causes = sorted((f for f in findings if is_cause(f)), key=Finding.sort_key)
    gaps = [f for f in findings if f.category == "insufficient_data"]
    requests = [f.fix for f in gaps if f.fix]
    requests += [f"attach {m}" for m in missing if m]
    lead = ""
    if causes:
        top = causes[0]
        if not (gaps and top.severity == "info" and top.category not in CONCLUSIONS):
            others = [f.category for f in causes[1:] if f.category != top.category]
            also = f" Also seen: {', '.join(dict.fromkeys(others))}." if others else ""
            return Verdict(top.category, round(top.confidence, 2), f"{top.title}.{also}")
        lead = f" Weak lead so far: {top.title} ({top.category})."
    passed = [f for f in findings if f.severity == "ok"]
    best = max((f.confidence for f in passed), default=0.0)
    if passed and not gaps and best >= WEAK:
        checks = ", ".join(dict.fromkeys(f.rule for f in passed))
        return Verdict("healthy", round(best, 2), f"No problem found; checks that passed: {checks}.")
    if passed and not lead and best >= WEAK:
        blocking = next((g for g in gaps if g.severity == "critical"), None)
        if blocking:  # e.g. no GPU answered: host checks passing say nothing about the GPUs
            return Verdict("insufficient_data", 0.0, f"{blocking.title}: {blocking.summary} Next: {blocking.fix}")
        conf = min(0.6, max(f.confidence for f in passed))
        return Verdict(
            "healthy",
            round(conf, 2),
            "No problem found in what was given, but some checks could not run: "
            + "; ".join(dict.fromkeys(requests)),
        )
    ask = "; ".join(dict.fromkeys(requests)) or DEFAULT_ASK
    return Verdict("insufficient_data", 0.0, f"Not enough evidence to decide. Next: {ask}.{lead}")


def fails(findings: list[Finding], fail_on: str) -> bool:
    """Does any finding reach the --fail-on severity? ('never' never fails.)"""
    if fail_on == "never":
        return False
    threshold = SEVERITY_RANK[fail_on]
    return any(SEVERITY_RANK[f.severity] >= threshold and f.severity != "ok" for f in findings)
