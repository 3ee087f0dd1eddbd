"""(physics42) How long a documented slow phase took, in the reporter's words, against the most its by_design.toml row
allows (longest_minutes): reading the weights, building an engine, compiling, starting up. Below the row's figure the
phase is the documented behaviour (rules.documented_behaviour answers it); past it, the row itself says the phase is
not the design ("90 minutes is a 100 GB checkpoint at under 20 MB/s, a broken or throttled disk"), so no rule may
call it normal ("It took me over 120 minutes to load the 67B DeepSeek model. Is this normal?", vllm-project/vllm#2233:
a failing drive, 2-3 minutes once replaced)."""

from __future__ import annotations

import re

from diagnose.evidence import Facts, GpuFact
from rules import catalog, claims

# A time in the reporter's words: "8 minutes", "~8 min", "1.5 hours", "880s", "half an hour", "an hour".
_TIME = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?)\b|"
                   r"\b(half an hour|an hour)\b", re.I)


# (words43) Where a clause of the sentence begins: a semicolon, or "and" after a comma, "but", "while", "whereas".
_CLAUSE = re.compile(r";|,\s*(?:and|but|while|whilst|whereas)\b|\s(?:but|while|whilst|whereas)\b", re.I)
# ... and a clause that opens on a subject of its own, another phase or run than the one described ("..., and the
# whole benchmark 40 minutes", "while my training job runs for 3 hours", "The benchmark takes 3 hours, but ..."); one
# that opens on "it", a preposition or a time ("but it took 3 hours", "but 3 hours with TP=4") goes on about the same,
# and so does one on the reporter waiting for it or timing it (fr43: "The torch.compile step is slow, and I waited 90
# minutes ..."; "... while I run the benchmark for 3 hours" is another run).
# (fr43 A2) ... but not the reporter waiting for another run: "and I waited 2 hours for the full benchmark to finish".
_OTHER_RUN = (r"(?![^,;.\n]{0,30}?\bfor\s+(?:the|a|an|my|our|their|this|that)\s+(?:[\w-]+\s+){0,2}?"
              r"(?:benchmark|job|run|training|test|eval\w*|suite|experiment|sweep|epoch|script|pipeline)s?\b)")
_OWN_SUBJECT = re.compile(r"\s{0,4}(?:the|a|an|my|our|their|his|her|this|that|these|those|each|every|whole|"
                          r"entire|total|overall|"
                          r"(?:I|we|you|they)\b(?!\s+(?:(?:had|have|has)\s+to\s+)?(?:wait|waited|waiting|measured|"
                          r"timed|clocked|sat)\b" + _OTHER_RUN + r"))\b", re.I)


def _longest(text: str) -> float:
    longest = 0.0
    for number, unit, words in _TIME.findall(text):
        if words:
            longest = max(longest, 30.0 if words.lower().startswith("half") else 60.0)
            continue
        unit = unit.lower()
        scale = 1 / 60 if unit.startswith("s") else 60 if unit.startswith("h") else 1
        longest = max(longest, float(number) * scale)
    return longest


def minutes(sentence: str, span: tuple[int, int] | None = None) -> float:
    """The longest time the sentence names, in minutes (0 when it names none); with the span of the words describing
    the phase, only the times of their clause and of the clauses that go on about it (not one opening on a subject
    of its own, _OWN_SUBJECT): "loading takes 2 minutes, and the whole benchmark 40 minutes" is 2."""
    if span is None:
        return _longest(sentence)
    cuts = [0] + [m.end() for m in _CLAUSE.finditer(sentence)] + [len(sentence) + 1]
    kept = [sentence[a:b] for a, b in zip(cuts, cuts[1:])
            if (a <= span[0] < b or span[0] <= a < span[1]) or not _OWN_SUBJECT.match(sentence, a)]
    return _longest(" ".join(kept))


def rows_said(facts: Facts):
    """(row, own, i, match) for each by_design.toml row that applies here (its `context` in the reporter's words, its
    `unless` not) and each of the reporter's sentences, own[i] = (source, sentence), that its `sees` matches: what
    rules.documented_behaviour and phase_past_documented both weigh."""
    own = claims.own_sentences(facts)
    words = " ".join(t for _, t in own)
    gpus = facts.of(GpuFact)
    for row in catalog.documented_behaviours():
        if not all(re.search(p, words, re.I) for p in row.get("context", [])) \
                or catalog.by_design_unless(row, words, gpus):
            continue  # (a GPU the ticket shows may have the setting whose absence the row explains: unless_gpu)
        for i, (_, sentence) in enumerate(own):
            if m := re.search(row["sees"], sentence, re.I):
                yield row, own, i, m


def phase_past_documented(facts: Facts) -> tuple[dict, str, str] | None:
    """(catalog row, source, quote) for the first sentence of the reporter's that describes a by_design.toml phase with
    a longest_minutes, in the row's setting and not turned into a fault by its `unless`, and names a time past that
    figure; None when none does."""
    for row, own, i, m in rows_said(facts):
        source, sentence = own[i]
        if "longest_minutes" in row and minutes(sentence, m.span()) > row["longest_minutes"] \
                and not claims.conditional(sentence[:m.start()], when=False):
            return row, source, claims._quote(sentence, m, 60)
    return None
