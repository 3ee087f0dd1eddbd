"""GPU, interconnect and model catalogs: TOML data files under rules/catalog/, plus the user's.

Extra files come from `--catalog FILE` (repeatable) or $DIAGNOSE_CATALOG (paths separated by
os.pathsep). Their entries add to or replace the bundled ones by key.
"""

from __future__ import annotations

import os

_EXTRA_FILES: tuple[str, ...] = ()


def configure(extra_files=()) -> None:
    """Set the user's extra catalog files for this run (the CLI calls this once)."""
    global _EXTRA_FILES
    env = [p for p in os.environ.get("DIAGNOSE_CATALOG", "").split(os.pathsep) if p]
    _EXTRA_FILES = tuple(env) + tuple(extra_files)


def extra_files() -> tuple[str, ...]:
    return _EXTRA_FILES
