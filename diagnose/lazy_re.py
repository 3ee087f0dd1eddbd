"""The standard `re`, except that compile() defers the compilation to the pattern's first use.

A module that builds many patterns at import time (rules.claims: the phrasings of a ticket's
text) would otherwise make every command pay for them (about 15 ms), although only a command
that reads text ever matches one. Import it as `from diagnose import lazy_re as re`.
"""

from __future__ import annotations

import re as _re
from re import *  # noqa: F403 - the whole of re: its functions, flags, Match, Pattern, error

__all__ = list(_re.__all__)


def compile(pattern, flags=0) -> LazyPattern:
    return LazyPattern(pattern, flags)


class LazyPattern:
    """A re.Pattern compiled on first use; `.pattern` (for building other patterns) needs no compilation."""

    def __init__(self, pattern, flags=0):
        self.pattern = pattern.pattern if isinstance(pattern, LazyPattern) else pattern
        self._flags = flags
        self._compiled = None

    def __getattr__(self, name):
        """search, match, sub, flags ...: the compiled pattern's, kept on the instance once looked up."""
        if name.startswith("_"):
            raise AttributeError(name)
        if self._compiled is None:
            self._compiled = _re.compile(self.pattern, self._flags)
        value = getattr(self._compiled, name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self._flags!r})"
