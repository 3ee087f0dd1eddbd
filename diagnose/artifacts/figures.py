"""Speeds as reporters write them, in the units the rules judge (tok/s): one place for units, ratios and the
figures that are no measurement.

People state one decode speed many ways: per minute or hour ("5,400 tokens per minute"), as a time per count ("2
seconds per 100 tokens", "every 100 tokens take ~6 s"), as a job's length ("1,000,000 output tokens took 4 hours"),
as a loop's "it/s" when each iteration yields one token, as a range ("20-25 tok/s": its middle), relative to another
figure ("3x slower than ... 90 tok/s", "30 % slower than the 100 tok/s", "about half the speed of TP8"), and with
thousands written the European way where the text's language writes decimals with a comma ("3.100 tok/s": CLDR's
number symbols, https://cldr.unicode.org/translation/number-currency-formats/number-symbols). The figure a change
starts from ("from 50 tok/s to 25"), the comparator of a ratio, a negated figure ("not 50 tok/s ... but 20") and a
retracted one ("the 20 tok/s was wrong") are not the measurement.

Each reader returns Figure(start, end, value, said): the span in the text, the value in tok/s and the words it was
read from, which the finding quotes. Parsers call these; nothing here judges a figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from diagnose.artifacts.text import number


@dataclass(frozen=True)
class Figure:
    start: int
    end: int
    value: float
    said: str
    reference: float | None = None  # the value a stated change starts from ("from 50 tok/s to 25": 50)


# ------------------------------------------------------------------------------------------------ units
NUM = r"(\d{1,3}(?:[,.]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_NEAR = r"about|around|roughly|approximately|approx\.?|nearly|almost|some|only|just"
_APPROX = r"(?:(?:" + _NEAR + r")\s+|[~≈]\s*)?"
# ... and, before a duration only, its lower bound ("takes over an hour", "more than 100 ms"): read as the figure, the
# words kept in Figure.said. A lower bound on the time is an upper bound on the rate, so it can only read a slow run
# as faster than it was; ranges, changes and negations keep _APPROX ("not more than 20 tok/s" bounds, not denies).
_ABOUT = r"(?:(?:" + _NEAR + r"|over|more\s+than|at\s+least)\s+|[~≈]\s*)?"
_TOKENS = r"(?:(?:output|generated|new|completion|decode[d]?)\s+)?(?:tokens?|toks?)"
DURATION_UNIT = r"(ms|msecs?|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?)\b"
_SECONDS = (("ms", 1e-3), ("milli", 1e-3), ("h", 3600.0), ("m", 60.0), ("s", 1.0), ("d", 86400.0))


def seconds(value: float, unit: str) -> float:
    """A duration in `unit` (DURATION_UNIT, or days: a job's length, rules.reference_scaling) in seconds."""
    unit = unit.lower()
    return value * next(scale for prefix, scale in _SECONDS if unit.startswith(prefix))


# Function words of languages whose locale writes the decimal mark as a comma and groups thousands with a dot or a
# space (CLDR: de, fr, es, it, pt, nl, ru), and of English, which writes them the other way round.
_COMMA_LOCALE_WORDS = re.compile(
    r"(?<![^\W\d_])(?:und|mit|auf|wir|nicht|ist|eine?|der|die|das|avec|nous|est|les|des|une|pas|con|los|las|una|por|"
    r"que|com|não|uma|sono|della|il|non|met|het|een|niet|и|с|на|не|мы)(?![^\W\d_])", re.I)
_ENGLISH_WORDS = re.compile(r"\b(?:the|and|with|is|we|not|of|to|on|it|this|that|are|for)\b", re.I)


def comma_decimals(text: str) -> bool:
    """Does the text read as a language that writes decimals with a comma (so "3.100" is three thousand one
    hundred)?"""
    return len(_COMMA_LOCALE_WORDS.findall(text)) > len(_ENGLISH_WORDS.findall(text))


def value_of(token: str, dot_thousands: bool = False) -> float | None:
    """A number as written: "1,200" is 1200; "1.200.000" is 1.2 million, and "3.100" three thousand one hundred in
    a text that writes decimals with a comma (dot_thousands)."""
    if re.fullmatch(r"\d{1,3}(?:\.\d{3}){2,}", token) or (dot_thousands and re.fullmatch(r"\d{1,3}\.\d{3}", token)):
        return float(token.replace(".", ""))
    return number(token)


# ------------------------------------------------------------------------------------------------ rates
# "5,400 tokens per minute", "900 tokens a minute", "6k tok/min", "40,000 tokens/hour"
PER_TIME = re.compile(r"(?<![\w.,])" + NUM + r"\s*([kK])?\s*" + _TOKENS
                      + r"\s*(?:/\s*|per\s+|an?\s+|each\s+|every\s+)(min(?:ute)?|h(?:ou)?r|h)\b", re.I)
# "2 seconds per 100 tokens", "6 s for every 100 tokens", "1.5 s each 50 tokens"
TIME_PER_COUNT = re.compile(r"(?<![\w.,])" + NUM + r"\s*" + DURATION_UNIT + r"\s+(?:per|for|for\s+every|every|each)\s+"
                            + NUM + r"\s+" + _TOKENS + r"\b", re.I)
# "every 100 tokens of output cost me ~6 seconds", "each 50 tokens take 2 s", "100 tokens every 2 seconds"
COUNT_COSTS_TIME = re.compile(r"\b(?:every|each|per)\s+" + NUM + r"\s+" + _TOKENS + r"\b[^.;\d]{0,25}?\s"
                              r"(?:takes?|took|costs?|needs?|lasts?)\s+(?:me\s+|us\s+)?" + _ABOUT + NUM + r"\s*"
                              + DURATION_UNIT + "|"
                              r"(?<![\w.,])" + NUM + r"\s+" + _TOKENS + r"\s+(?:every|each)\s+" + _ABOUT + NUM
                              + r"\s*" + DURATION_UNIT, re.I)
# A count over the time it took, a job's length included: "512 tokens in 40 s", "1,000,000 output tokens took 4
# hours", "250,000 output tokens, one request after the other, takes about 90 minutes", "took 40 s for 512 tokens".
# Output tokens over the whole request (prompt processing included): the decode rate the reporter experiences.
TOKENS_IN_TIME = re.compile(
    r"(?<![\w.,])" + NUM + r"(?:\s+|-)" + _TOKENS + r"(?:[^.;\d]{0,60}?\s|\s+)"
    r"(?:in|within|took|takes|taking|needed|needs?|required|requires|lasted|lasts)\s+" + _ABOUT + NUM + r"\s*"
    + DURATION_UNIT + "|"
    r"\b(?:takes?|took|taking|needs?|needed|spent|spends)\s+" + _ABOUT + NUM + r"\s*" + DURATION_UNIT
    + r"\s+(?:for|to\s+(?:generate|produce|output|decode|write))\s+(?:the\s+)?" + NUM + r"\s+" + _TOKENS + r"\b", re.I)
# ... and the time named first, the output it gave after it in the sentence: "~44 seconds inference time ... with
# output of 104 tokens", "30 s generation time for an output of 500 tokens" (QwenLM/Qwen2-VL#8 wrote the first).
TIME_THEN_OUTPUT = re.compile(
    r"(?<![\w.,])" + _ABOUT + NUM + r"\s*" + DURATION_UNIT + r"\s+(?:of\s+)?(?:inference|generation|response|total)\s+"
    r"time\b[^.;]{0,120}?\b(?:with|for|and)\s+(?:an?\s+|the\s+)?(?:output|generation)\s+of\s+" + _ABOUT + NUM
    + r"\s+" + _TOKENS + r"\b", re.I)
# A progress bar's "47 it/s" where the text says each iteration yields one token (tqdm counts iterations; vLLM's and
# HF's bars count prompts or steps, which are no tokens unless so said).
IT_PER_S = re.compile(r"(?<![\w.,])" + NUM + r"\s*it/s\b", re.I)
ONE_TOKEN_PER_ITERATION = re.compile(
    r"\b(?:one|a single|1)\s+token\s+(?:per|each|every|an?)\s+(?:iteration|step|it)\b|"
    r"\b(?:each|every|per)\s+(?:iteration|step)\s+(?:yields?|produces?|generates?|emits?|is)\s+(?:one|a single|1)\s+"
    r"token\b", re.I)


# A duration spelled in words, written as figures before the readers above see it: "an hour", "half an hour",
# "a minute", "a second" where no word follows it ("a second run", "a second GPU", "one second later" are an ordinal
# or a moment, no time taken), never after a count of tokens ("900 tokens an hour" is a rate: PER_TIME); in Chinese a
# numeral of 一..九, 十, 百 and 两 before 小时/分钟/秒 ("两分钟", "二十分钟", "三十秒", "一个半小时"), 半 as a half
# ("半小时"), and 多/几 after it as the lower bound ("一个多小时": one; "十几分钟": ten). 几 alone ("几分钟", a few
# minutes) and an ordinal ("第二秒") or "every" ("每一秒") stay unread.
_NOT_A_RATE = r"(?<!tokens\s)(?<!token\s)(?<!toks\s)(?<!tok\s)"
_CJK_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CJK_NUMERAL = "一二两三四五六七八九十百"


def cjk_number(numeral: str) -> int:
    """A Chinese numeral of digits, 十 and 百 ("二十" 20, "十五" 15, "一百二十" 120)."""
    total = digit = 0
    for ch in numeral:
        if ch in "十百":
            total, digit = total + (digit or 1) * (10 if ch == "十" else 100), 0
        else:
            digit = _CJK_DIGITS[ch]
    return total + digit


def _cjk_duration(m: re.Match) -> str:
    value = cjk_number(m.group(1)) + (0.5 if m.group(2) else 0)
    return f"{value:g}{m.group(3)}"


_SPELLED = ((re.compile(r"\bhalf\s+an\s+hour\b", re.I), "30 minutes"),
            (re.compile(_NOT_A_RATE + r"\b(?:an|one)\s+(hour|minute)\b", re.I), r"1 \1"),
            (re.compile(_NOT_A_RATE + r"\ba\s+minute\b", re.I), "1 minute"),
            (re.compile(_NOT_A_RATE + r"\b(?:a|one)\s+second\b(?!\s*[^\W\d_])", re.I), "1 second"),
            (re.compile(r"(?<![\d" + _CJK_NUMERAL + r"第每])([" + _CJK_NUMERAL + r"]+)几?个?(半)?多?个?(小时|分钟|秒)"),
             _cjk_duration),
            (re.compile(r"(?<![\d" + _CJK_NUMERAL + r"半第每])半个?(小时|分钟)"),
             lambda m: "30分钟" if m.group(1) == "小时" else "30秒"))


# (prose31) A duration written in two units, "1 minute 30 seconds", "2 hours and 15 minutes", "1m30s": one figure in the
# smaller unit, so that the readers after this see one time ("takes about 1 minute 30 seconds to generate 200 tokens"
# is 200 tokens in 90 s, not in 30).
_COMPOUND = (
    (re.compile(r"(?<![\w.,])(\d+)\s*(?:minutes?|mins?|m)\s*,?\s*(?:and\s+)?(\d+(?:\.\d+)?)\s*(?:seconds?|secs?|s)\b",
                re.I),
     lambda m: f"{int(m.group(1)) * 60 + float(m.group(2)):g} seconds"),
    (re.compile(r"(?<![\w.,])(\d+)\s*(?:hours?|hrs?|h)\s*,?\s*(?:and\s+)?(\d+(?:\.\d+)?)\s*(?:minutes?|mins?|m)\b(?!/)",
                re.I),
     lambda m: f"{int(m.group(1)) * 60 + float(m.group(2)):g} minutes"))


def spelled_durations(text: str) -> str:
    """The text with durations spelled in words written as figures (see _SPELLED)."""
    for rx, figure in (*_SPELLED, *_COMPOUND):
        text = rx.sub(figure, text)
    return text


# Chinese time units as the Latin units seconds() and the latency readers take.
CJK_UNITS = {"毫秒": "ms", "秒": "s", "分钟": "min", "小时": "h"}


def latin_unit(unit: str) -> str:
    """A time unit as DURATION_UNIT writes it ("秒" is "s"), lower case."""
    return CJK_UNITS.get(unit, unit.lower())


def _count_over_time(m: re.Match, count: str, value: str, unit: str, dot: bool) -> Figure | None:
    tokens, time = value_of(count, dot), value_of(value, dot)
    if not tokens or not time or tokens < 16:  # (a handful of tokens is a step, not a rate)
        return None
    return Figure(m.start(), m.end(), round(tokens / seconds(time, unit), 3), m.group(0).strip())


def _one_each(found: list) -> list[Figure]:
    seen: list[Figure] = []
    for f in sorted((f for f in found if f), key=lambda f: (f.start, -f.end)):
        if not any(f.start < s.end and s.start < f.end for s in seen):  # one reading per span of words
            seen.append(f)
    return seen


def token_rates(clause: str, dot_thousands: bool = False) -> list[Figure]:
    """Decode rates a clause states per minute or hour, or as a time per count of tokens, in tok/s (not the "N tok/s"
    form: issue_md.RATE reads that)."""
    out = []
    for m in PER_TIME.finditer(clause):
        base = value_of(m.group(1), dot_thousands)
        if base:
            per = 60.0 if m.group(3).lower().startswith("m") else 3600.0
            out.append(Figure(m.start(), m.end(), round(base * (1000 if m.group(2) else 1) / per, 3),
                              m.group(0).strip()))
    out += [_count_over_time(m, m.group(3), m.group(1), m.group(2), dot_thousands)
            for m in TIME_PER_COUNT.finditer(clause)]
    out += [_count_over_time(m, *((m.group(1), m.group(2), m.group(3)) if m.group(1) else m.groups()[3:6]),
                             dot_thousands) for m in COUNT_COSTS_TIME.finditer(clause)]
    return _one_each(out)


def counted_rates(line: str, dot_thousands: bool = False) -> list[Figure]:
    """Rates a line states as a count over the time it took (a job's count and time are often clauses apart), and a
    loop's it/s where the line says each iteration yields one token, in tok/s."""
    out = []
    for m in TOKENS_IN_TIME.finditer(line):
        count, value, unit = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(6), m.group(4),
                                                                                      m.group(5))
        # (a prompt's or a context's length is no output, and a load or warm-up time no generation)
        around = line[max(0, m.start() - 30):m.end()].lower()
        if not re.search(r"prompt|input|context|prefill|load|warm|download|compil", around):
            out.append(_count_over_time(m, count, value, unit, dot_thousands))
    out += [_count_over_time(m, m.group(3), m.group(1), m.group(2), dot_thousands)
            for m in TIME_THEN_OUTPUT.finditer(line)]
    if ONE_TOKEN_PER_ITERATION.search(line):
        out += [Figure(m.start(), m.end(), v, m.group(0)) for m in IT_PER_S.finditer(line)
                if (v := value_of(m.group(1), dot_thousands))]
    return _one_each(out)


# A per-token time in words: "each token takes ~12 ms", "every token needs 40 ms", "a token every 80 ms".
TIME_PER_TOKEN = re.compile(r"\b(?:each|every|a|one|per)\s+(?:output\s+|new\s+|generated\s+)?token\s+"
                            r"(?:takes?|took|needs?|costs?|comes?(?:\s+out)?\s+(?:in|after|every)|arrives?\s+every|"
                            r"every)\s+" + _ABOUT + NUM
                            + r"\s*(ms|msecs?|milliseconds?|s|secs?|seconds?|mins?|minutes?)\b", re.I)


# ... and as a decode step's time: "each decoding step takes 10 s", "every generation step needs ~120 ms" (a decode
# step gives each sequence one token, so its time is the time per token). Not a training step, nor a bare "step".
DECODE_STEP_TIME = re.compile(r"\b(?:each|every|one|a|per|the)\s+(?:decod(?:e|ing)|generation|inference)\s+"
                              r"(?:step|iteration)\s+(?:takes?|took|needs?|costs?|lasts?|is|was)\s+" + _ABOUT + NUM
                              + r"\s*\+?\s*(ms|msecs?|milliseconds?|s|secs?|seconds?|mins?|minutes?)\b", re.I)


# The time to the first token in words: "the 1k prompt takes 3 s before the first token", "waits ~2 s for the first
# token", "takes 55 seconds before producing the first token" (the verbs an engine's output is said with), "the first
# token appears after 800 ms", "第一个 token 要等 3 秒" (issue_md.LATENCY reads "TTFT 3 s").
FIRST_TOKEN_TIME = re.compile(
    r"\b(?:takes?|took|needs?|waits?|waited|waiting)\s+" + _ABOUT + NUM + r"\s*(ms|msecs?|milliseconds?|s|secs?|"
    r"seconds?)\s+(?:(?:before|until|till)(?:\s+(?:getting|seeing|producing|returning|generating|emitting|receiving))?|"
    r"for|to\s+(?:get|see|produce|return|generate|emit|receive))\s+the\s+first\s+(?:output\s+)?token\b|"
    r"\bfirst\s+(?:output\s+)?token\s+(?:only\s+)?(?:arrives?|appears?|comes?(?:\s+out)?|shows?\s+up|takes?|took|"
    r"needs?)\s+(?:after\s+|in\s+)?" + _ABOUT + NUM + r"\s*(ms|msecs?|milliseconds?|s|secs?|seconds?)\b|"
    r"(?:第一个|首个)\s*token\s*(?:就|都)?\s*(?:要等|需要等?|要|用了|耗时|等了)\s*(?:约|大约)?\s*" + NUM
    + r"\s*(ms|毫秒|s|秒)", re.I)


def first_token_times(text: str) -> list[tuple[re.Match, float, str]]:
    """(match, value, unit) of each time to the first token said in words (FIRST_TOKEN_TIME)."""
    out = []
    for m in FIRST_TOKEN_TIME.finditer(text):
        i = next(k for k in (1, 3, 5) if m.group(k))
        unit = latin_unit(m.group(i + 1))
        if number(m.group(i)):
            out.append((m, number(m.group(i)), unit))
    return out


def token_times(text: str) -> list[tuple[re.Match, float, str]]:
    """(match, value, unit) of each per-token time said in words (issue_md.MS_PER_TOKEN reads "45 ms/token")."""
    return [(m, number(m.group(1)), m.group(2)) for rx in (TIME_PER_TOKEN, DECODE_STEP_TIME)
            for m in rx.finditer(text) if number(m.group(1))]


# ------------------------------------------------------------------------------------------------ ranges, changes
# "20-25 tok/s", "20 to 25 tok/s", "between 20 and 25 tok/s": the figure that ends it stands for the middle. (fig30) A
# tilde between two figures is a range too ("20~25 tok/s", "20～25": as Chinese and Japanese text, and many English
# posts, write one; llama/llama#471 "68~70 ms"), a tilde before one figure stays "about" (_APPROX).
RANGE_START = re.compile(r"(?:\bbetween\s+" + _APPROX + NUM + r"\s+and|" + _APPROX + NUM + r"\s*(?:-|–|—|~|～|to))\s*"
                         + _APPROX + r"$", re.I)
# "from 50 tok/s to 25", "went from 50 to 25 tok/s": the change's start is no longer the speed. In Chinese 从 ... 至/到,
# with or without the verb of the change between ("速度从70token/s降低至30token/s", "从 50 提升到 80").
CHANGE_START = re.compile(r"(?:\bfrom\s+|从\s*)" + _APPROX + r"$", re.I)
CHANGE_END = re.compile(r"\s*(?:\([^()]{0,40}\)\s*)?(?:(?:to|->|→|down to|up to)\s+|"
                        r"(?:(?:降低|下降|减少|降|提升|提高|增加|增长|升)\s*)?(?:至|到)\s*)" + _APPROX + r"\d", re.I)


def range_middle(text: str, start: int, end_value: float, dot_thousands: bool = False,
                 scale: float = 1) -> float | None:
    """The middle of a range whose last figure starts at `start`, or None where none ends there (a change "from 50
    to 25 tok/s" is no range). `scale`: the multiplier the last figure carries ("0.55–0.85k tok/s": 1000), which a
    range's bare first figure shares as it shares the unit."""
    m = RANGE_START.search(text[:start])
    if not m or start - m.start() > 40 or CHANGE_START.search(text[:m.start()]):
        return None
    low = value_of(m.group(1) or m.group(2), dot_thousands)
    low = low * scale if low is not None else None
    return round((low + end_value) / 2, 3) if low is not None and low < end_value else None


# A figure written with its spread, "40.96 ± 0.37 t/s" (llama-bench, premAI's benchmarks, hyperfine, pytest-benchmark
# print a mean and its standard deviation so): the unit after the spread is the mean's; the spread is no measurement.
SPREAD_START = re.compile(NUM + r"\s*(?:±|\+/-|\+-)\s*$")


def spread_mean(text: str, start: int, dot_thousands: bool = False, scale: float = 1) -> float | None:
    """The mean of a "mean ± spread unit" figure whose spread starts at `start`, or None where no "±" precedes it."""
    m = SPREAD_START.search(text[max(0, start - 30):start])
    value = value_of(m.group(1), dot_thousands) if m else None
    return round(value * scale, 3) if value is not None else None


# (prose31) ... and the figure it ends at, with where it started: "dropped from 50 tok/s (on v0.3.6) to 20 tok/s", "TTFT
# from about 2 s to 0.11 s": the later figure is the measurement now, the earlier the reference it is set against.
CHANGE_FROM = re.compile(r"(?:\bfrom\s+|从\s*)" + _APPROX + NUM + r"\s*(?:[^\d\s(),;.]{1,15}\s*)?"
                         r"(?:\([^()]{0,40}\)\s*)?"
                         r"(?:(?:to|->|→|down\s+to|up\s+to)\s+|(?:降低|下降|减少|降|提升|提高|增加|增长|升)?\s*(?:至|到)\s*)"
                         + _APPROX + "$", re.I)


def change_from(text: str, start: int, dot_thousands: bool = False) -> float | None:
    """The value a stated change starts from where the figure at `start` is where it ends ("from 50 to 25 tok/s": 50
    for the 25), in the unit written with it, else None."""
    m = CHANGE_FROM.search(text[max(0, start - 90):start])
    return value_of(m.group(1), dot_thousands) if m else None


def change_start(text: str, start: int, end: int) -> bool:
    """Is the figure at [start, end) where a stated change begins ("from 50 tok/s to 25 tok/s")?"""
    return bool(CHANGE_START.search(text[max(0, start - 30):start]) and CHANGE_END.match(text, end))


# ------------------------------------------------------------------------------------------------ not measured
# "not 50 tok/s (like in the blog) but 20", "it isn't 50 tok/s": the figure negated directly (not "not even 20 tok/s"
# or "not more than 20 tok/s": those bound the measurement).
NEGATED = re.compile(r"(?:\bnot|n't|\bnever)\s+(?:(?:the|a|an|at|like|really)\s+)?" + _APPROX + r"$", re.I)
BUT_FIGURE = re.compile(r"[^.;!?]*?\bbut\s+(?:rather\s+)?(?:it\s+is\s+|it's\s+|we\s+get\s+|I\s+get\s+)?" + _APPROX
                        + NUM + r"(?!\d|[.,]\d|\s*(?:%|x\b|×|[A-Za-z]))", re.I)
# "the earlier report of 20 tok/s was wrong", "the 15 tok/s I posted before was a typo": a figure taken back. A typo, or
# "wrong" said of an earlier statement; "20 tok/s is wrong for this GPU" complains about the measurement and keeps it.
RETRACTED = re.compile(r"\b(?:was|were|is|are)\s+(?:\w+\s+)?(?:a\s+)?typo\b|"
                       r"\b(?:earlier|before|previous\w*|first|last|posted|reported|said|quoted|above)\b[^.;]*?"
                       r"\b(?:was|were)\s+(?:\w+\s+)?(?:wrong|incorrect|mistaken|a\s+mistake|bogus|invalid)\b", re.I)


# "1/96 sec/tok = 0.0104 sec/tok = 10.4 msec/tok", "94/2000 = 0.047 sec = 47 msec", "47B * 2 bytes = 94 GB": the
# result of the reporter's arithmetic (often on a published figure), not a time or rate that was measured. A division
# or product of two numbers (each with its unit: "4 streams * 35 tok/s"), then one or more "=" up to the figure.
# ("2x A100 = 30 tok/s", "latency = 52 ms" have no arithmetic before their "=" and stay measured.)
COMPUTED = re.compile(r"\d[^=\d\n]{0,15}?(?:[/*×÷]|\s[xX]\s)\s*\(?\s*\d[^=\n]{0,40}(?:=[^=\n]{0,40})*[=≈]\s*[*_`]*\s*"
                      + _APPROX + r"$")


# (review33) One product or quotient "a op b = c" is arithmetic only where c is a op b, give or take the unit steps the
# pastes take on the way (bits to bytes, k/M/m prefixes, KiB, percent, minutes): "2 x 4090 = 30 tok/s" is a count of
# GPUs and a model number beside a measured rate (8180 is no step from 30). Longer expressions are left as arithmetic.
_OPERATION = re.compile(r"(\d[\d,]*(?:\.\d+)?)[^=\d\n]{0,15}?([/*×÷]|\s[xX]\s)\s*\(?\s*(\d[\d,]*(?:\.\d+)?)"
                        r"[^=\d\n/*×÷^()]{0,40}?[=≈]\s*[*_`]*\s*(?:~\s*)?(\d[\d,]*(?:\.\d+)?)")
_UNIT_STEPS = (1, 8, 1 / 8, 1000, 1 / 1000, 1024, 1 / 1024, 100, 1 / 100, 60, 1 / 60)


def _does_the_arithmetic(written: str) -> bool:
    """Does "a op b = c" at the start of `written` hold (c is a op b up to a unit step)? True where it is no such
    single operation (nothing to check). A quotient by zero holds for no c; a product of zero only for c = 0."""
    m = _OPERATION.match(written)
    if m is None:
        return True
    a, b, c = (float(g.replace(",", "")) for g in (m.group(1), m.group(3), m.group(4)))
    divides = m.group(2).strip() in ("/", "÷")
    if divides and b == 0:
        return False
    value = a / b if divides else a * b
    if value == 0:
        return c == 0
    return any(abs(c - value * step) <= 0.03 * value * step for step in _UNIT_STEPS)


def computed(text: str, start: int) -> bool:
    """Is the figure starting at `start` the result of arithmetic written before it?"""
    window = text[max(0, start - 120):start]
    m = COMPUTED.search(window)
    if m is None:
        return False
    first = m.start()
    while first > 0 and (window[first - 1].isdigit() or window[first - 1] in ".,"):
        first -= 1  # the whole first operand, not its last digit
    return _does_the_arithmetic(window[first:] + text[start:start + 20])


def negated(text: str, start: int) -> bool:
    """Is the figure starting at `start` denied where it is said?"""
    return bool(NEGATED.search(text[max(0, start - 24):start]))


def instead(text: str, end: int, dot_thousands: bool = False) -> Figure | None:
    """The figure a "but" puts in place of the negated one that ends at `end` ("not 50 tok/s ... but 20": 20, in the
    negated figure's unit)."""
    m = BUT_FIGURE.match(text, end)
    value = value_of(m.group(1), dot_thousands) if m else None
    return Figure(m.start(1), m.end(1), value, text[m.start(1):m.end(1)]) if value else None


# ------------------------------------------------------------------------------------------------ ratios
# Words for a multiple of a speed, one table for every reader of ratios: (factor, the words' pattern). Read here as a
# figure relative to another ("about half the speed of TP8", "twice the throughput of") and in rules.claims as a
# speed-up between two layouts ("TP=2 gives half the speed of one GPU", "twice as fast on 2 GPUs").
FACTOR_WORDS = (
    (0.5, r"(?:a |one )?half"),
    (1 / 3, r"(?:a|one)[- ]third"),
    (0.25, r"(?:a|one)[- ]quarter"),
    (2.0, r"twice|two times|double"),
    (3.0, r"triple|three times"),
)
FACTOR_WORD = "|".join(words for _, words in FACTOR_WORDS)


def factor_of(words: str) -> float:
    """The factor FACTOR_WORDS gives the words ("one third": 1/3)."""
    return next(factor for factor, pattern in FACTOR_WORDS if re.fullmatch(pattern, words, re.I))


# A figure said relative to another: "3x slower than", "2.5 times faster than", "30 % slower than", "40% lower than",
# "about half the speed of", "twice the throughput of".
RELATIVE = re.compile(
    r"(?<![\w.])" + NUM + r"\s*(?:x|×|times)\s+(slower|faster|quicker|lower|higher|less|more)\b(?:\s+than)?|"
    r"(?<![\w.])" + NUM + r"\s*%\s+(slower|faster|quicker|lower|higher|less|more|below|above)\b(?:\s+than)?|"
    r"\b(" + FACTOR_WORD + r")\s+(?:of\s+)?(?:the\s+)?"
    r"(?:speed|throughput|rate|performance|tok/s|tokens per second)\s+(?:of|as)\b", re.I)
_SLOW_SIDE = ("slower", "lower", "less", "below")
# "lower", "higher", "less", "more" say a speed only beside a word for one ("throughput is 30 % lower than ...")
_LEVEL = ("lower", "higher", "less", "more", "below", "above")
SPEED = re.compile(r"\b(?:speed|throughput|rate|tok(?:en)?s?\b|tok/s|t/s|tps|decode|decoding|generation|performance|"
                   r"perf|fast|slow)", re.I)


def relative(text: str) -> list[tuple[re.Match, float]]:
    """(match, factor) of each relative figure: the measured figure is the reference's value times the factor."""
    out = []
    for m in RELATIVE.finditer(text):
        word = (m.group(2) or m.group(4) or "").lower()
        said = re.split(r"[,;:]\s", text[:m.start()])[-1] + re.split(r"[,;:]\s|\s(?:and|but)\s", text[m.start():])[0]
        if word in _LEVEL and not SPEED.search(said):
            continue  # "memory use is 30 % lower than with fp16": not a speed
        if m.group(1):
            n = number(m.group(1))
            factor = (1 / n if m.group(2).lower() in _SLOW_SIDE else n) if n and n >= 1 else None
        elif m.group(3):
            n = number(m.group(3))
            factor = (1 - n / 100 if m.group(4).lower() in _SLOW_SIDE else 1 + n / 100) if n is not None and n < 100 \
                else None
        else:
            factor = factor_of(m.group(5))
        if factor:
            out.append((m, factor))
    return out


# ------------------------------------------------------------------------------------------------ losses
# How many times slower a run is than another, as people say it: "50x slower", "fifty times slower", "4-5x slower" (at
# its low end, the least the reporter claims), "an order of magnitude slower", a rate that fell ("from 40 tok/s to 1
# tok/s"), a time that grew ("takes 10 minutes instead of 10 seconds", "from 2 s to 90 s"). The English numerals are
# read as written, up to a thousand.
_ONES = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
         "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
         "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_BIG = {"hundred": 100, "thousand": 1000}


def _alternation(words) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


NUMBER_WORD = (r"(?:(?:a|one)\s+)?(?:" + _alternation(_BIG) + r")|(?:" + _alternation(_TENS) + r")(?:[- ](?:"
               + _alternation(_ONES) + r"))?|" + _alternation(_ONES))


def number_word(words: str) -> float | None:
    """The value of an English numeral NUMBER_WORD reads ("fifty": 50, "twenty-five": 25, "a hundred": 100)."""
    total = 0
    for w in re.split(r"[\s-]+", words.lower()):
        total += _ONES.get(w, 0) + _TENS.get(w, 0) + _BIG.get(w, 0)
    return float(total) or None


_RATE = (r"(?:tok(?:en)?s?\s*/\s*s(?:ec)?|tok(?:en)?s?\s+(?:per|a)\s+sec(?:ond)?|t/s|tps|it/s|"
         r"(?:samples?|images?|items?|req(?:uest)?s?)\s*/\s*s)")
_TIME = DURATION_UNIT[1:-3].join(("(?:", ")"))  # the units, no group
# (s24) the noun as well: "a ~20x slowdown", "a twelvefold slowdown", "an eight-fold slowdown"; and the factor said
# after it: "slower by a factor of 3.75", "Slowdown by factor 100 when adding second GPU" (keras-team/keras#10832)
_SLOWER = r"(?:slower|longer|more\s+slowly|slow-?downs?)\b"
_BY_FACTOR = (r"\b(?:slower|slow-?down|slow(?:s|ed)?\s+down)\s+by\s+(?:a\s+)?factor\s+(?:of\s+)?" + _APPROX
              + r"(?:×\s*)?(?:(?P<f>" + NUM[1:-1] + r")(?![\d/])|(?P<fw>" + NUMBER_WORD + r")\b)")
LOSS = re.compile(
    r"(?<![\w.])(?:(?P<lo>" + NUM[1:-1] + r")\s*(?:x|×)?\s*(?:-|–|to)\s*)?"
    r"(?:(?P<n>" + NUM[1:-1] + r")|(?P<w>" + NUMBER_WORD + r"))\s*(?:x|×|times|-?fold)[\])]?\s+" + _SLOWER + "|"
    + _BY_FACTOR + "|"
    r"\b(?:an|one|(?P<k>" + NUMBER_WORD + r"|\d))\s+(?P<mag>orders?)\s+of\s+magnitude\s+" + _SLOWER + "|"
    r"\bfrom\s+" + _APPROX + r"(?P<r0>" + NUM[1:-1] + r")\s*(?:" + _RATE + r")?\s*(?:to|->|→|down\s+to)\s+" + _APPROX
    + r"(?P<r1>" + NUM[1:-1] + r")\s*" + _RATE + r"\b|"
    r"\bfrom\s+" + _APPROX + r"(?P<t0>" + NUM[1:-1] + r")\s*(?P<u0>" + _TIME + r")\b\s*(?:to|->|→|up\s+to)\s+" + _APPROX
    + r"(?P<t1>" + NUM[1:-1] + r")\s*(?P<u1>" + _TIME + r")\b|"
    r"(?<![\w.])(?P<a>" + NUM[1:-1] + r")\s*(?P<ua>" + _RATE + "|" + _TIME + r")\b\s+(?:instead\s+of|rather\s+than)\s+"
    r"(?:the\s+)?" + _APPROX + r"(?P<b>" + NUM[1:-1] + r")\s*(?P<ub>" + _RATE + "|" + _TIME + r")\b", re.I)


# (prose31) ... and as people also say it: a speed "2-3 times lower" (a speed word before it: "lower" alone could be a
# latency's, which is better), a time that "doubled" or a speed that "halved", "twice as slow", "three times as long",
# "half as fast", "half the speed" (FACTOR_WORDS' fractions: the slower run takes 1/fraction as long).
_MULTIPLIED = {"doubled": 2.0, "tripled": 3.0, "quadrupled": 4.0}
_FRACTION = "|".join(words for factor, words in FACTOR_WORDS if factor < 1)
MORE_LOSS = re.compile(
    r"(?<![\w.])(?:(?P<lo>" + NUM[1:-1] + r")\s*(?:x|×)?\s*(?:-|–|to)\s*)?(?:(?P<n>" + NUM[1:-1] + r")|(?P<w>"
    + NUMBER_WORD + r"))\s*(?:x|×|times)\s+(?P<lower>lower|less)\b|"
    r"\b(?:time|times|latency|latencies|duration|wait)\s+(?:has\s+|have\s+|had\s+|almost\s+|nearly\s+|roughly\s+|"
    r"more\s+than\s+|basically\s+|just\s+)*(?P<mult>doubled|tripled|quadrupled)\b|"
    r"\b(?:speed|throughput|rate|tok/s|tokens\s+per\s+second|performance|perf)\s+(?:has\s+|have\s+|was\s+|is\s+|got\s+|"
    r"almost\s+|nearly\s+|roughly\s+|basically\s+|just\s+)*(?P<halved>halved|cut\s+in\s+half|dropped\s+by\s+half)\b|"
    r"\b(?:(?P<tw>twice)|(?P<an>" + NUM[1:-1] + r")\s*(?:x|×|times)|(?P<aw>" + NUMBER_WORD + r")\s+times)\s+as\s+"
    r"(?:slow|long)\b|"
    r"\b(?P<half>" + _FRACTION + r")\s+(?:as\s+fast|(?:the|its)\s+(?:speed|throughput|tok/s|performance|rate))\b", re.I)


# (variant39) A speed-up's verb just before "N x less/lower": the figure is how much faster the larger layout runs,
# set against another speed-up ("4 A100 GPUs accelerates 3.54x less than 3.8", Wan-Video/Wan2.1#433; "it only scales
# 2.1x, lower than the 3.6x in the paper"): a scaling figure (speed-up = the multi-GPU rate over the one-GPU rate,
# efficiency = speed-up / GPUs), not a loss.
SPEEDUP_VERB = re.compile(r"\b(?:accelerat(?:es|ed|ing|ion)|speed(?:s|ed)?[- ]?ups?|scal(?:es|ed|ing))"
                          r"(?:\s{1,3}(?:by|of|is|was|only|just|about|around|roughly)){0,3}\s*$", re.I)


def _more_losses(text: str) -> list[tuple[re.Match, float]]:
    """(match, factor) of each slowdown MORE_LOSS reads; "N times lower" only of a speed said before it."""
    out = []
    for m in MORE_LOSS.finditer(text):
        if m["lower"]:
            said = re.split(r"[,;:]\s|\s(?:and|but)\s", text[:m.start()])[-1]
            if not SPEED.search(said) or re.search(r"\b(?:latency|time|ms|seconds?)\b", said, re.I):
                continue  # "latency is 3x lower" is faster
            if SPEEDUP_VERB.search(said):
                continue  # "accelerates 3.54x less than 3.8": a speed-up's size, compared with another speed-up
            factor = number(m["lo"] or m["n"]) if m["lo"] or m["n"] else number_word(m["w"])
        elif m["mult"]:
            factor = _MULTIPLIED[m["mult"].lower()]
        elif m["halved"]:
            factor = 2.0
        elif m["tw"] or m["an"] or m["aw"]:
            factor = 2.0 if m["tw"] else number(m["an"]) if m["an"] else number_word(m["aw"])
        else:
            factor = 1 / factor_of(m["half"])
        if factor and factor > 1:
            out.append((m, factor))
    return out


def _rate(unit: str) -> bool:
    return bool(re.fullmatch(_RATE, unit, re.I))


def losses(text: str) -> list[tuple[re.Match, float]]:
    """(match, factor) of each slowdown the text states: the slower run takes `factor` times as long (a gain, "from
    1 to 40 tok/s", is none)."""
    out = []
    for m in LOSS.finditer(text):
        if m["n"] or m["w"]:  # "50x slower", "fifty times slower"; a range at its low end ("(30-60x) slower": 30)
            factor = number(m["lo"] or m["n"]) if m["lo"] or m["n"] else number_word(m["w"])
        elif m["f"] or m["fw"]:  # "slower by a factor of 3.75", "slowdown by factor 100"
            factor = number(m["f"]) if m["f"] else number_word(m["fw"])
        elif m["mag"]:  # "an order of magnitude slower", "two orders of magnitude slower"
            factor = 10 ** ((number_word(m["k"]) or number(m["k"])) if m["k"] else 1)
        elif m["r0"]:  # a rate that fell
            before, after = number(m["r0"]), number(m["r1"])
            factor = before / after if before and after else None
        elif m["t0"]:  # a time that grew
            before, after = seconds(number(m["t0"]) or 0, m["u0"]), seconds(number(m["t1"]) or 0, m["u1"])
            factor = after / before if before and after else None
        else:  # "1 tok/s instead of 40 tok/s", "10 minutes instead of 10 seconds"
            a, b = number(m["a"]), number(m["b"])
            if not a or not b or _rate(m["ua"]) != _rate(m["ub"]):
                continue  # a rate against a time: no ratio
            factor = b / a if _rate(m["ua"]) else seconds(a, m["ua"]) / seconds(b, m["ub"])
        if factor and factor > 1:
            out.append((m, factor))
    return out + [f for f in _more_losses(text) if not any(f[0].start() < m.end() and m.start() < f[0].end()
                                                           for m, _ in out)]


# (fig30) A time written as a range, "68~70 ms", "60-70 ms", "1.2–1.5 s": the per-token and first-token readers take
# one figure before its unit, so the range is written as its middle first, as a rate's range is (range_middle). A
# range whose high end is over twice its low ("60~703ms": a typo, or two figures) has no middle that stands for it:
# it is taken out, so that neither end is read as the time.
TIME_SPAN = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?)\s*(?:-|–|—|~|～)\s*" + _APPROX
                       + r"(\d+(?:\.\d+)?)\s*(ms|msecs?|milliseconds?|s|secs?|seconds?)\b", re.I)


def time_span_middles(line: str) -> str:
    """The line with each narrow time range (TIME_SPAN) written as its middle and unit, a wide one taken out."""
    def middle(m: re.Match) -> str:
        low, high = float(m.group(1)), float(m.group(2))
        return f"{round((low + high) / 2, 3):g} {m.group(3)}" if 0 < low < high <= 2 * low else " "
    return TIME_SPAN.sub(middle, line)

