"""The display tables of each report kind, built in one place per kind (one module each) from
what its command computed: {title: {"columns", "rows", "note"}}. The renderers show them before
the findings; nothing here decides anything."""

from diagnose.tables import fleet, plan, predict, scaling

__all__ = ["fleet", "plan", "predict", "scaling"]
