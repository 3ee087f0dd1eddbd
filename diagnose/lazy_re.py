"""The standard `re`, except that compile() defers the compilation to the pattern's first use.

A module that builds many patterns at import time (rules.claims: the phrasings of a ticket's
text) would otherwise make every command pay for them (about 15 ms), although only a command
that reads text ever matches one. Import it as `from diagnose import lazy_re as re`.
"""

from __future__ import annotations

import functools
import re as _re
from re import *  # noqa: F403 - the whole of re: its functions, flags, Match, Pattern, error

__all__ = list(_re.__all__)


def compile(pattern, flags=0) -> LazyPattern:
    return LazyPattern(pattern, flags)


def _compiled(pattern):
    """The re.Pattern behind a LazyPattern (compiled now if need be); any other pattern as it is."""
    if isinstance(pattern, LazyPattern):
        if pattern._compiled is None:
            pattern._compiled = _re.compile(pattern.pattern, pattern._flags)
        return pattern._compiled
    return pattern


def _taking_lazy(function):
    """re's module function that also takes a LazyPattern, as it takes a compiled pattern (so
    flags given with one are refused as re refuses them with a compiled pattern)."""

    @functools.wraps(function)
    def call(pattern, *args, **kwargs):
        return function(_compiled(pattern), *args, **kwargs)

    return call


search, match, fullmatch = _taking_lazy(_re.search), _taking_lazy(_re.match), _taking_lazy(_re.fullmatch)
sub, subn, split = _taking_lazy(_re.sub), _taking_lazy(_re.subn), _taking_lazy(_re.split)
findall, finditer = _taking_lazy(_re.findall), _taking_lazy(_re.finditer)


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
        value = getattr(_compiled(self), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self._flags!r})"
