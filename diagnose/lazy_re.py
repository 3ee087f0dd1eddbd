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


def _matching(function, method, nothing):
    """re's search-type function, answering `nothing()` without compiling where the text is too
    short for the pattern (_cannot_match). A string pattern's compiled Pattern is asked directly
    (`method`, re.Pattern's own): re's function would look the compiled pattern up again in its cache."""
    lazy = _taking_lazy(function)

    @functools.wraps(function)
    def call(pattern, string, flags=0):
        if _cannot_match(pattern, string, flags):
            return nothing()
        if isinstance(pattern, str):
            return method(_from_string(pattern, flags), string)
        return lazy(pattern, string, flags)

    return call


search = _matching(_re.search, _re.Pattern.search, lambda: None)
match = _matching(_re.match, _re.Pattern.match, lambda: None)
fullmatch = _matching(_re.fullmatch, _re.Pattern.fullmatch, lambda: None)
findall = _matching(_re.findall, _re.Pattern.findall, list)
finditer = _matching(_re.finditer, _re.Pattern.finditer, lambda: iter(()))
sub, subn, split = _taking_lazy(_re.sub), _taking_lazy(_re.subn), _taking_lazy(_re.split)


# What the parser of a pattern yields that may match in a piece of a text and not at the same place in the whole:
# an anchor other than a word boundary (^, $, \A, \Z, \B: where the piece starts or ends), a negative lookaround
# (the piece's edge hides the characters it forbids) and an atomic group or possessive repeat (in the whole it may
# take characters past the piece's end and fail where in the piece it stopped).
_CONTEXT = {_parser.AT, _parser.ASSERT_NOT, getattr(_parser, "ATOMIC_GROUP", None),
            getattr(_parser, "POSSESSIVE_REPEAT", None)} - {None}


@functools.lru_cache(maxsize=CACHED)
def _context_free(pattern: str, flags) -> bool:
    """Does every match of the pattern in a piece of a text cut at non-word characters match there in the whole
    text too (no _CONTEXT item but a word boundary, which such a cut leaves as it was)?"""
    def free(items) -> bool:
        for op, arg in items:
            if op in _CONTEXT and not (op is _parser.AT and arg is _parser.AT_BOUNDARY):
                return False
            if not all(free(sub) for sub in _subpatterns(arg)):
                return False
        return True

    return free(_parser.parse(pattern, flags))


def _subpatterns(arg):
    """The parsed subpatterns inside one parsed item's argument (groups, branches, repeats, lookarounds)."""
    if isinstance(arg, _parser.SubPattern):
        yield arg
    elif isinstance(arg, (list, tuple)):
        for a in arg:
            yield from _subpatterns(a)


def absent(pattern, text: str, flags=0) -> bool:
    """Is there surely no match of the pattern in any piece of `text` cut at its non-word characters (its sentences,
    its lines)? True where the whole text holds none and the pattern is _context_free: then one search of the whole
    answers for all the pieces, where a rule would otherwise search each (a ticket's ~600 phrasings over ~50
    sentences). False says only that a piece may hold one."""
    if isinstance(pattern, (LazyPattern, _re.Pattern)):
        flags = pattern._flags if isinstance(pattern, LazyPattern) else pattern.flags
        source = pattern.pattern
    else:
        source = pattern
    return _context_free(source, flags) and search(pattern if isinstance(pattern, str) else _compiled(pattern),
                                                   text, flags if isinstance(pattern, str) else 0) is None


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
