"""diagnose.lazy_re: patterns compiled on first use behave as re's, and a capture compiles none of
the ticket-text patterns (the start-up cost they saved)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import shared_path

from diagnose import lazy_re

REPO = Path(__file__).resolve().parent.parent


def test_a_lazy_pattern_matches_as_re_does():
    text = "NCCL all_reduce at 12.5 GB/s, then ncclKernel_AllGather_RING_LL: 3 GB/s"
    for pattern, flags in ((r"(\d+(?:\.\d+)?)\s*GB/s", 0), (r"all_?(reduce|gather)", re.I), (r"^nccl", re.M)):
        lazy, real = lazy_re.compile(pattern, flags), re.compile(pattern, flags)
        assert lazy._compiled is None and lazy.pattern == pattern  # nothing compiled yet
        assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
        assert lazy.sub("#", text) == real.sub("#", text) and lazy.flags == real.flags
        assert lazy._compiled is not None
    assert lazy_re.I is re.I and lazy_re.Match is re.Match and lazy_re.escape is re.escape


def test_the_module_functions_take_a_lazy_pattern_as_re_takes_a_compiled_one():
    """lazy_re.search(lazy_re.compile("a"), "a") raised TypeError (re's own search got an object it
    does not know): every module function that takes a pattern unwraps a LazyPattern."""
    text = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*), 3 x all_reduce, all-gather"
    pattern, flags = r"all[_-]?(reduce|gather)", re.I
    lazy, real = lazy_re.compile(pattern, flags), re.compile(pattern, flags)
    assert lazy_re.search(lazy, text).span() == re.search(real, text).span() == (14, 23)
    assert lazy_re.match(lazy_re.compile("nccl"), text).group(0) == "nccl"
    assert lazy_re.match(lazy, text) is None
    assert lazy_re.fullmatch(lazy, "ALL_REDUCE").group(1) == "REDUCE"
    assert lazy_re.findall(lazy, text) == re.findall(real, text) == ["Reduce", "reduce", "gather"]
    assert [m.group(0) for m in lazy_re.finditer(lazy, text)] == ["AllReduce", "all_reduce", "all-gather"]
    assert lazy_re.sub(lazy, "AR", text) == re.sub(real, "AR", text)
    assert lazy_re.sub(lazy, "AR", text, count=1) == re.sub(real, "AR", text, count=1)
    assert lazy_re.subn(lazy, "AR", text) == re.subn(real, "AR", text) and lazy_re.subn(lazy, "AR", text)[1] == 3
    assert lazy_re.split(lazy_re.compile(r",\s*"), text, maxsplit=1) == re.split(r",\s*", text, maxsplit=1)
    # plain string patterns and flags still go to re as they are
    assert lazy_re.search(pattern, text, flags).span() == (14, 23) and lazy_re.search(pattern, text) is not None
    assert lazy_re.findall(r"\d+", "8 GPUs, 160 calls") == ["8", "160"]
    # re refuses flags with a compiled pattern; so with a lazy one
    for given in (lazy, real):
        with pytest.raises(ValueError, match="flags"):
            lazy_re.search(given, text, re.M)


def test_a_pattern_built_from_another_leaves_it_uncompiled():
    word = lazy_re.compile(r"all_?reduce", re.I)
    tied = lazy_re.compile(r"of\s+" + word.pattern, re.I)
    assert tied.search("a buffer of ALLREDUCE").group(0) == "of ALLREDUCE"
    assert word._compiled is None


def test_a_capture_compiles_none_of_the_ticket_text_patterns():
    """Every command imports rules.claims (through rules.common); a capture reads no ticket text, so
    none of its patterns, nor the ticket rules', may be compiled by the run."""
    script = (
        "import sys\n"
        "from diagnose.commands.capture import analyse\n"
        f"analyse([{str(shared_path('captures', 'gameoflife_a100_2022_1.sqlite'))!r}])\n"
        "from diagnose.lazy_re import LazyPattern\n"
        "mods = [sys.modules[m] for m in ('rules.claims', 'rules.ticket_rules', 'rules.ticket_figures')]\n"
        "lazy = [v for m in mods for v in vars(m).values() if isinstance(v, LazyPattern)]\n"
        "print(len(lazy), sum(p._compiled is not None for p in lazy))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True).stdout
    patterns, compiled = map(int, out.split())
    assert patterns >= 30 and compiled == 0


def test_a_text_shorter_than_the_shortest_match_compiles_nothing():
    """A short text (a capture's framework name) is answered from the parsed pattern's shortest
    match, without compiling it; anything it could match is searched by re as before."""
    pattern = r"\bNCCL_P2P_DISABLE\s*=\s*1\b"  # shortest match: 19 characters
    re.purge()
    assert lazy_re.search(pattern, "vLLM", re.I) is None
    assert list(lazy_re.finditer(pattern, "vLLM", re.I)) == [] and lazy_re.findall(pattern, "vLLM") == []
    assert lazy_re.match(pattern, "PyTorch") is None and lazy_re.fullmatch(pattern, "x") is None
    assert not any(key[1] == pattern for key in re._cache)  # re compiled nothing for them
    said, exact = "nccl_p2p_disable=1", r"NCCL_P2P_DISABLE\s*=\s*\d"  # both 18 characters at least: from re
    assert lazy_re.search(exact, said, re.I).group(0) == re.search(exact, said, re.I).group(0) == said
    assert lazy_re.search(r"a?", "").span() == (0, 0)  # a pattern that matches the empty text still does
    assert lazy_re.findall(r"\d+", "8 GPUs") == ["8"] and lazy_re.search(pattern, "NCCL_P2P_DISABLE = 1", re.I)


def test_patterns_built_from_quotes_do_not_grow_the_cache_without_bound():
    # rules.claims locates a quote by a pattern built from its words: a new pattern for every ticket's quotes
    from rules.claims import ProseSource

    src = ProseSource("issue.md")
    src.text = "a long reporter's text, long enough to be searched without the short-text check " * 3
    src.lines = ("issue.md:1",)
    for i in range(lazy_re.CACHED * 2):
        assert src.line_of(f"quote number {i} of a ticket") == "issue.md"
    assert lazy_re._from_string.cache_info().currsize <= lazy_re.CACHED
    assert len(lazy_re._used) <= lazy_re.CACHED
    # a static pattern still answers after the quotes pushed it out
    assert lazy_re.search(r"long\s+enough", src.text) is not None


@pytest.mark.parametrize("pattern, free", [
    (r"\bNCCL\b[^.\n]{0,40}\bhang", True),  # word boundaries: a cut at a non-word character leaves them as they were
    (r"(?<=\s)P2P", True), (r"(?=GB/s)GB", True), (r"(a)\1", True),  # positive lookarounds see more in the whole
    (r"^Traceback", False), (r"hang$", False), (r"\Bcuda", False),  # anchors at a piece's edge
    (r"(?<![\w.])\d+ GB/s", False), (r"x(?:a|(?!b)c)", False),  # a negative lookaround, also nested
    (r"(?>a+)b", False), (r"a++b", False),  # an atomic group and a possessive repeat
])
def test_only_a_pattern_without_edge_context_is_answered_from_the_whole_text(pattern, free):
    assert lazy_re._context_free(pattern, re.I) is free
    assert lazy_re.absent(pattern, "nothing of it here") is free


def test_absent_never_hides_a_match_in_a_sentence_or_line_of_real_pastes():
    """For every phrasing of the claims and every catalog error row, over real pasted issues: where `absent` says no
    piece holds a match, none of their sentences (rules.claims.sentences) nor lines does; and it is answered from
    the whole text for most of them, the point of it."""
    from rules import claims
    from rules.catalog import engine_errors

    pastes = sorted((REPO / "tests" / "data" / "errors31").glob("*.md"))[:6] + \
        [shared_path("tickets", "013-nccl-557-2gpu-nvlink-bridge-hang-slow-nvml", "ticket.toml")]
    patterns = [(p, re.I) for ps in claims.PATTERNS.values() for p in ps] + \
        [(row.pattern.pattern, row.pattern.flags) for row in engine_errors()]
    answered = 0
    for path in pastes:
        text = path.read_text()
        pieces = claims.sentences(text) + text.splitlines(keepends=True)
        for pattern, flags in patterns:
            if lazy_re.absent(pattern, text, flags):
                answered += 1
                assert not any(re.search(pattern, piece, flags) for piece in pieces), (path.name, pattern)
    assert answered > 0.5 * len(pastes) * len(patterns)
