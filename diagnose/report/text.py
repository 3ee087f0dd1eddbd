"""Small formatting helpers shared by the text renderers."""

from __future__ import annotations

from diagnose.formatting import fmt_value  # noqa: F401 - the renderers' formatter

SEVERITY_MARK = {"critical": "CRITICAL", "warning": "WARNING", "info": "info", "ok": "ok"}


# Verdicts that say the system is as it should be: shown as good news, never in alarm colours.
NORMAL = ("healthy", "expected_physics")


def needless_ask(finding, verdict) -> bool:
    """A finding's "attach X" fix under a verdict that already names the cause (Verdict.names_the_cause)."""
    return finding.category == "insufficient_data" and verdict is not None and verdict.names_the_cause()


def confidence_note(verdict) -> str:
    """' (confidence 0.80)'; nothing for insufficient_data, whose verdict is a question, not a
    conclusion (a 0.00 beside its finding's 0.95 reads as a contradiction)."""
    return "" if verdict.category == "insufficient_data" else f" (confidence {verdict.confidence:.2f})"
