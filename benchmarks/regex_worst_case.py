"""Worst-case time of every regex the ticket path runs, on long single lines (bad input must never hang the tool).

Regexes timed: each regex field of rules/catalog/*.toml (REGEX_FIELDS, lists of them too; compiled case-blind with
their `{name}` fragments written out, as rules/catalog.py does), and each module-level pattern of rules/*.py and
diagnose/artifacts/*.py: compiled patterns (lazy_re's too), alone or inside module-level lists, tuples and dicts, and
the string phrasings of rules.claims' PATTERNS and SYMPTOMS (matched case-blind there).
Regexes built inside functions are not seen.

Each one is run, at each --sizes length, on lines of:
  real line   the first kept-paste line (tests/data/**/*.md, not tickets/) the regex matches, repeated; the largest
              paste's longest line when it matches none
  paste       the largest kept paste with its newlines made spaces
  words       the kept pastes' distinct words in a fixed shuffled order
  digits      digits and dots ("3.14.159.2...")
  letter      'a' repeated; spaces, tabs: ' ' and '\t' repeated
  own words   the regex's own literal words joined by " , " and repeated, with no end mark (lazy runs that each stop
              at one of its words, one after the other, try every way to share such a line out)
twice: one .match at the start (as a caller that matches at one position) and finditer to the end (as a caller that
searches a whole text), and on the real paste the real line came from, for the ratio. Each run happens in a worker
process that is killed when the run passes --limit seconds (ten times that for the search of all pastes for the real
line); the regex is then reported as over the limit on that input and the scan goes on with the next one.
Prints the slowest --top; exits 1 when a run passed the limit.

    python benchmarks/regex_worst_case.py [--sizes 500,5000] [--limit SECONDS] [--top N] [--only LABEL_PART]
"""

from __future__ import annotations

import argparse
import bisect
import importlib
import itertools
import multiprocessing
import random
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from diagnose import lazy_re  # noqa: E402

try:
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # Python 3.10
    import sre_constants
    import sre_parse
from diagnose.inputs import tomllib  # noqa: E402

SKIP_PASTES = {"SOURCES.md", "AUDIT.md", "README.md", "NOTES.md"}


# The catalog fields that hold regexes (rules/catalog.py compiles them case-blind, `{name}` fragments written out):
# engine_errors/host_memory/engines/engine_notices `pattern`, `context`, `unless`; by_design `sees`, `unless`,
# `fault_in`, `explains_failure` and its list of `context` patterns; serving_tradeoffs `feature`, `cost`, `unless`.
REGEX_FIELDS = ("pattern", "context", "unless", "sees", "fault_in", "explains_failure", "feature", "cost")


def catalog_regexes() -> dict[str, tuple[str, int]]:
    """label -> (pattern, flags) of every regex field under rules/catalog/ (a string, or each string of a list)."""
    from rules.catalog import expand

    found = {}

    def walk(node, where):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in REGEX_FIELDS and isinstance(value, str):
                    found[f"{where}.{key}"] = (expand(value, where), re.I)
                elif key in REGEX_FIELDS and isinstance(value, list) and all(isinstance(v, str) for v in value):
                    found.update({f"{where}.{key}[{i}]": (expand(v, where), re.I) for i, v in enumerate(value)})
                else:
                    walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                name = value.get("id") or value.get("family") or value.get("key") if isinstance(value, dict) else None
                walk(value, f"{where}[{name or i}]")

    for path in sorted((REPO / "rules" / "catalog").glob("*.toml")):
        walk(tomllib.loads(path.read_text()), path.stem)
    return found


def module_regexes() -> dict[str, tuple[str, int]]:
    """label -> (pattern, flags) of the module-level patterns of rules/*.py and diagnose/artifacts/*.py."""
    found: dict[str, tuple[str, int]] = {}
    seen: set[tuple[str, int]] = set()

    def add(label, pattern, flags):
        if (pattern, flags) not in seen:
            seen.add((pattern, flags))
            found[label] = (pattern, flags)

    def walk(obj, label, depth):
        if isinstance(obj, (re.Pattern, lazy_re.LazyPattern)):
            flags = obj.flags if isinstance(obj, re.Pattern) else obj._flags
            add(label, obj.pattern, flags & ~re.UNICODE)
        elif depth < 3 and isinstance(obj, dict):
            for key, value in obj.items():
                walk(value, f"{label}[{key!r}]"[:90], depth + 1)
        elif depth < 3 and isinstance(obj, (list, tuple)):
            for i, value in enumerate(obj):
                walk(value, f"{label}[{i}]", depth + 1)

    paths = sorted((REPO / "rules").glob("*.py")) + sorted((REPO / "diagnose" / "artifacts").glob("*.py"))
    for path in paths:
        name = ".".join(path.relative_to(REPO).with_suffix("").parts)
        module = importlib.import_module(name.removesuffix(".__init__"))
        for attr, value in vars(module).items():
            if not attr.startswith("__"):
                walk(value, f"{name}.{attr}", 0)
    claims = importlib.import_module("rules.claims")
    for kind, patterns in claims.PATTERNS.items():
        for i, p in enumerate(patterns):
            add(f"rules.claims.PATTERNS[{kind!r}][{i}]", p, re.I)
    for kind, p in claims.SYMPTOMS:
        add(f"rules.claims.SYMPTOMS[{kind!r}]", p, re.I)
    return found


# A chain: two unbounded repeats that can both match whitespace with only optional items between (`\s*\s*`,
# `\s+(?:is)?\s*`). On a run of n spaces a match tries every split of the run between them, n squared steps at one
# position, and a search that starts at each of the n positions makes it n cubed. The same holds for any character a
# run is made of (letters: `\w*[a-z]*`; newlines: a `\s*` that crosses blank lines).
_CATEGORIES = {sre_constants.CATEGORY_SPACE: r"\s", sre_constants.CATEGORY_NOT_SPACE: r"\S",
               sre_constants.CATEGORY_DIGIT: r"\d", sre_constants.CATEGORY_NOT_DIGIT: r"\D",
               sre_constants.CATEGORY_WORD: r"\w", sre_constants.CATEGORY_NOT_WORD: r"\W"}


def _takes(body, char: str, flags: int) -> bool:
    """Does a one-character body (a literal, a class, '.') accept `char`?"""
    if len(body) != 1:
        return False
    op, av = body[0]
    code = ord(char)
    same = (lambda a: a == code or chr(a).lower() == char.lower()) if flags & re.I else (lambda a: a == code)
    if op is sre_constants.ANY:
        return char != "\n" or bool(flags & re.S)
    if op in (sre_constants.LITERAL, sre_constants.NOT_LITERAL):
        return same(av) == (op is sre_constants.LITERAL)
    if op is not sre_constants.IN:
        return False
    negate = any(o is sre_constants.NEGATE for o, _ in av)
    hit = any(o is sre_constants.LITERAL and same(a) or o is sre_constants.RANGE and a[0] <= code <= a[1]
              or o is sre_constants.CATEGORY and a in _CATEGORIES and re.match(_CATEGORIES[a], char) for o, a in av)
    return hit != negate


def _unbounded(item, char: str, flags: int) -> bool:
    op, av = item
    return op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and av[1] == sre_constants.MAXREPEAT \
        and _takes(av[2], char, flags)


def _nullable(item, state) -> bool:
    return sre_parse.SubPattern(state, [item]).getwidth()[0] == 0


def _ends_open(items, state, char: str = " ", flags: int = 0) -> bool:
    """Can this sequence end in an unbounded repeat of `char` with only optional items after it?"""
    for op, av in reversed(list(items)):
        if _unbounded((op, av), char, flags):
            return True
        if op is sre_constants.SUBPATTERN and _ends_open(av[-1], state, char, flags) \
                or op is sre_constants.BRANCH and any(_ends_open(b, state, char, flags) for b in av[1]) \
                or op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) \
                and _ends_open(av[2], state, char, flags):
            return True
        if not _nullable((op, av), state):
            return False
    return False


def _made_of(item, char: str, flags: int, state) -> bool:
    """Can this item match a run of `char` alone (or nothing)? Anchors and lookarounds count as yes (the cautious
    answer)."""
    op, av = item
    if _nullable(item, state) or _takes([item], char, flags):
        return True
    if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
        return all(_made_of(i, char, flags, state) for i in av[2])
    if op is sre_constants.SUBPATTERN:
        return all(_made_of(i, char, flags, state) for i in av[-1])
    if op is sre_constants.BRANCH:
        return any(all(_made_of(i, char, flags, state) for i in b) for b in av[1])
    return False


def _chains(source: str, flags: int, char: str, from_run: bool) -> list[str]:
    """Each unbounded repeat of `char` that follows another with only optional items between; with `from_run`, only
    those a run of `char` alone reaches from where the match starts (none after a required word: `Ctrl\\s*\\+?\\s*`)."""
    parsed = sre_parse.parse(source, flags)
    state = parsed.state
    found = []

    def walk(items, open_: bool, reach: bool) -> None:
        for item in items:
            op, av = item
            if _unbounded(item, char, flags) and open_ and (reach or not from_run):
                found.append(str(item)[:60])
            if op is sre_constants.SUBPATTERN:
                walk(av[-1], open_, reach)
            elif op is sre_constants.BRANCH:
                for branch in av[1]:
                    walk(branch, open_, reach)
            elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and not _unbounded(item, char, flags):
                walk(av[2], open_, reach)
            elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
                walk(av[1], False, reach)
            if _unbounded(item, char, flags) or _ends_open([item], state, char, flags):
                open_ = True
            elif not _nullable(item, state):
                open_ = False
            reach = reach and _made_of(item, char, flags, state)

    walk(parsed, False, True)
    return found


def whitespace_chains(source: str, flags: int = 0) -> list[str]:
    """Each unbounded whitespace repeat that follows another with only optional items between (inside a group or
    branch too: `\\s*(?:,?\\s*where)`); [] when the regex has none."""
    return _chains(source, flags, " ", from_run=False)


def _nested_unbounded(source: str, flags: int) -> list[str]:
    """Each unbounded repeat inside another (`(?:\\w+\\s*)*`): the ways to split a run between them grow
    exponentially."""
    found = []

    def walk(items, inside: bool) -> None:
        for op, av in items:
            if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
                unbounded = av[1] == sre_constants.MAXREPEAT
                if unbounded and inside:
                    found.append(str((op, av))[:60])
                walk(av[2], inside or unbounded)
            elif op is sre_constants.SUBPATTERN:
                walk(av[-1], inside)
            elif op is sre_constants.BRANCH:
                for branch in av[1]:
                    walk(branch, inside)
            elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
                walk(av[1], inside)

    walk(sre_parse.parse(source, flags), False)
    return found


RUNS = " \t\na1"  # the characters a long bad line is a run of: blanks, newlines (blank lines), letters, digits


def runaway_repeats(source: str, flags: int = 0, runs: str = RUNS, nested: bool = True) -> list[str]:
    """What lets a regex take time growing faster than the line on a long run of one character of `runs` (blanks,
    blank lines, one letter, one digit) or of words repeated: a chain of unbounded repeats of that character that the
    run alone reaches, or (with `nested`) an unbounded repeat nested in another; [] when none. A deterministic
    stand-in for timing the regex on such lines; a chain behind a required word costs only where the word is, and the
    timed scan below reports it."""
    return [f"{c!r}: {chain}" for c in runs for chain in _chains(source, flags, c, from_run=True)] \
        + (_nested_unbounded(source, flags) if nested else [])


def grown(text: str, size: int) -> str:
    return (text * (size // max(len(text), 1) + 1))[:size]


def timed(pattern: re.Pattern, text: str) -> float:
    start = time.perf_counter()
    for _ in pattern.finditer(text):
        pass
    return time.perf_counter() - start


def inputs(pastes: dict[Path, str], size: int) -> dict[str, str]:
    """The shared long lines of `size` bytes (the real line, which depends on the regex, is added per regex)."""
    largest = max(pastes, key=lambda p: len(pastes[p]))
    words = sorted({w for text in pastes.values() for w in text.split()})
    random.Random(34).shuffle(words)
    rng = random.Random(34)
    return {
        "paste": grown(pastes[largest].replace("\n", " "), size),
        "words": grown(" ".join(words), size),
        "digits": "".join(rng.choice("0123456789.") for _ in range(size)),
        "letter": "a" * size,
        "spaces": " " * size,
        "tabs": "\t" * size,
    }


def own_words(source: str, flags: int) -> list[str]:
    """The words (two letters or more) the regex spells out literally, in order, each once."""
    words: list[str] = []

    def walk(items) -> None:
        run = ""
        for op, av in list(items) + [(None, None)]:
            if op is sre_constants.LITERAL and chr(av).isalpha():
                run += chr(av)
                continue
            if len(run) > 1 and run not in words:
                words.append(run)
            run = ""
            if op is sre_constants.SUBPATTERN:
                walk(av[-1])
            elif op is sre_constants.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
                walk(av[2])

    walk(sre_parse.parse(source, flags))
    return words[:40]


def worker(conn, regexes, first, pastes, shared, sizes, default_line) -> None:
    """Time regexes[first:] one after the other, saying before each run what it is about to run, so that the parent
    can kill this process when one run passes the time limit and know which one it was."""
    names = list(pastes)
    corpus = "\n".join(pastes.values())
    starts = list(itertools.accumulate(len(t) + 1 for t in pastes.values()))
    for i in range(first, len(regexes)):
        label, source, flags = regexes[i]
        pattern = re.compile(source, flags)
        conn.send((i, "finding its real line", 0))
        home, line = max(names, key=lambda p: len(pastes[p])), default_line
        if m := pattern.search(corpus):  # the first paste and line holding a match
            home = names[bisect.bisect_left(starts, m.start() + 1)]
            line = corpus[corpus.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0]
        conn.send((i, "real paste", 0))
        times = {"real paste": timed(pattern, pastes[home])}
        own = " , ".join(own_words(source, flags))
        for size in sizes:
            mine = {"own words": grown(own + " , ", size)} if own else {}
            for kind, text in {"real line": grown(line + " ", size), **mine, **shared[size]}.items():
                conn.send((i, f"{kind} {size} B match", 0))  # one .match at the start, as a caller at a position
                start = time.perf_counter()
                pattern.match(text)
                times[f"{kind} {size} B match"] = time.perf_counter() - start
                conn.send((i, f"{kind} {size} B", 0))  # finditer to the end, as a caller searching a text
                times[f"{kind} {size} B"] = timed(pattern, text)
        conn.send((i, None, (times, str(home.relative_to(REPO)))))
    conn.send((len(regexes), None, None))


def scan(regexes, pastes, sizes, limit) -> list[tuple]:
    """Rows (seconds, over_limit, input, label, real seconds, real paste): each regex's slowest input."""
    shared = {size: inputs(pastes, size) for size in sizes}
    largest = max(pastes, key=lambda p: len(pastes[p]))
    default_line = max(pastes[largest].splitlines(), key=len)
    context = multiprocessing.get_context("fork")
    rows, first = [], 0
    while first < len(regexes):
        parent, child = context.Pipe()
        proc = context.Process(target=worker, args=(child, regexes, first, pastes, shared, sizes, default_line),
                               daemon=True)
        proc.start()
        current = (first, "starting")
        while True:
            # the run under way passed the limit (ten times it for the search of all pastes): kill it, go on with
            # the next regex
            if not parent.poll(limit * 10 if current[1].startswith("finding") else limit):
                proc.kill()
                proc.join()
                i, kind = current
                rows.append((limit, True, kind, regexes[i][0], 0.0, ""))
                first = i + 1
                break
            i, kind, result = parent.recv()
            if i == len(regexes):
                proc.join()
                first = i
                break
            if kind is not None:
                current = (i, kind)
                continue
            times, home = result
            real = times.pop("real paste")
            kind, took = max(times.items(), key=lambda kv: kv[1])
            rows.append((took, False, kind, regexes[i][0], real, home))
            if i % 200 == 0:
                print(f"{i}/{len(regexes)}", file=sys.stderr, flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,5000", help="bytes of each long line, comma-separated "
                                                            "(default 500,5000)")
    parser.add_argument("--limit", type=float, default=1.0, help="seconds one run may take before it is killed "
                                                                 "(default 1)")
    parser.add_argument("--top", type=int, default=20, help="how many of the slowest to print (default 20)")
    parser.add_argument("--only", default="", help="time only the regexes whose label holds this text")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    pastes = {p: p.read_text(errors="replace") for p in sorted((REPO / "tests" / "data").rglob("*.md"))
              if p.name not in SKIP_PASTES and "tickets" not in p.relative_to(REPO).parts}
    found = {**catalog_regexes(), **module_regexes()}
    regexes = [(label, source, flags) for label, (source, flags) in found.items() if args.only in label]
    started = time.perf_counter()
    rows = scan(regexes, pastes, sizes, args.limit)
    rows.sort(key=lambda r: (r[1], r[0]), reverse=True)
    print(f"{len(regexes)} regexes, {len(pastes)} kept pastes, lines of {args.sizes} bytes, {args.limit:g} s limit a "
          f"run, {time.perf_counter() - started:.0f} s; slowest {args.top}:")
    print(f"{'seconds':>9} {'x real':>8}  {'input':<20} regex (real paste, its time)")
    for took, over, kind, label, real, home in rows[: args.top]:
        shown = f">{took:7.2f}" if over else f"{took:9.3f}"
        ratio = "-" if over else f"{took / max(real, 1e-6):.0f}"
        where = f" ({home}, {real * 1000:.2f} ms)" if home else ""
        print(f"{shown} {ratio:>8}  {kind:<20} {label}{where}")
    slow = [r for r in rows if r[1] or r[0] > args.limit]
    chained = [label for label, source, flags in regexes if whitespace_chains(source, flags)]
    runaway = [label for label, source, flags in regexes if runaway_repeats(source, flags)]
    print(f"regexes with a chain of unbounded whitespace repeats: {len(chained)}; with one a run of one character "
          f"alone reaches, or an unbounded repeat nested in another (runaway_repeats): {len(runaway)}")
    one_match = [r for r in slow if r[2].endswith("match")]
    print(f"over the {args.limit:g} s limit: {len(slow)}, {len(one_match)} of them on one .match (slow wherever "
          f"they are used), the others on finditer (slow only where a caller searches a long text)")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
