"""The standard `re`, except that compile() defers the compilation to the pattern's first use.

A module that builds many patterns at import time (rules.claims: the phrasings of a ticket's
text) would otherwise make every command pay for them (about 15 ms), although only a command
that reads text ever matches one. Import it as `from diagnose import lazy_re as re`.

Patterns given as strings to search, match, fullmatch, findall and finditer are compiled (once for
the process, _from_string) only when the text can hold a match: a text shorter than the pattern's shortest
match answers "no match" from the parsed pattern, about a fifth of compiling it. A capture's
launch line gives the claims one short text (its framework, "vLLM"), which ~400 ticket phrasings
would otherwise all be compiled for.
"""

from __future__ import annotations

import functools
import re as _re
from re import *  # noqa: F403 - the whole of re: its functions, flags, Match, Pattern, error

try:
    from re import _parser  # Python 3.11+
except ImportError:  # Python 3.10
    import sre_parse as _parser

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


SHORT_TEXT = 32  # texts shorter than this are first measured against the pattern's shortest match
# The most string patterns kept per process: the static ones number about 500 (the claims' phrasings, 24 shared
# tickets read in one process), but patterns built from a ticket's own quotes (rules.claims: where a quote was said)
# are new with every ticket, so a long run would otherwise grow without bound.
CACHED = 4096
_used: set = set()  # (pattern, flags) of string patterns handed to re (compiled, or in re's cache); at most CACHED


def _cannot_match(pattern, string, flags) -> bool:
    """Is `string` too short for any match of the string `pattern`? Asked only of a short text
    and a pattern not compiled yet (a compiled one answers as fast itself)."""
    if not isinstance(pattern, str) or not isinstance(string, str):
        return False
    key = (pattern, flags)
    if key in _used:
        return False
    if len(string) < SHORT_TEXT and len(string) < _shortest(pattern, flags):
        return True
    if len(_used) >= CACHED:  # only a short cut: forgetting it costs a parse, never a wrong answer
        _used.clear()
    _used.add(key)
    return False


@functools.lru_cache(maxsize=CACHED)
def _shortest(pattern: str, flags) -> int:
    """The length of the shortest text the pattern matches (re's parser; no compilation)."""
    return _parser.parse(pattern, flags).getwidth()[0]


@functools.lru_cache(maxsize=CACHED)
def _from_string(pattern: str, flags) -> _re.Pattern:
    """A string pattern compiled once for the process: re's own cache holds 512 patterns, fewer than the ticket
    phrasings given as strings, and past it each ticket would compile them all again."""
    return _re.compile(pattern, flags)


def _matching(function, nothing):
    """re's search-type function, answering `nothing()` without compiling where the text is too
    short for the pattern (_cannot_match)."""
    lazy = _taking_lazy(function)

    @functools.wraps(function)
    def call(pattern, string, flags=0):
        if _cannot_match(pattern, string, flags):
            return nothing()
        if isinstance(pattern, str):
            return function(_from_string(pattern, flags), string)
        return lazy(pattern, string, flags)

    return call


search, match = _matching(_re.search, lambda: None), _matching(_re.match, lambda: None)
fullmatch = _matching(_re.fullmatch, lambda: None)
findall, finditer = _matching(_re.findall, list), _matching(_re.finditer, lambda: iter(()))
sub, subn, split = _taking_lazy(_re.sub), _taking_lazy(_re.subn), _taking_lazy(_re.split)


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
