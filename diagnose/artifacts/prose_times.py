"""Times written in prose together with what they time (issue 11, pass prose31): a whole request ("each query took
over 30 seconds", "50 s per question", "it takes 244 s to respond"), the wait for the first token ("waiting over 60
seconds for it to begin to respond"), one token ("taking 200 ms to receive a token"), a batch of N ("100 samples take
about 15 hours") and a change of one of these ("TTFT from 2 s to 0.11 s", "response time decreased to 6 seconds").

A duration becomes a measurement only where its own words say what it times: the vocabulary is that of the serving
benchmarks' metrics (vLLM's and SGLang's benchmark_serving print "E2E Latency", "TTFT", "ITL"; TGI names
"request latency"; https://docs.vllm.ai/en/latest/contributing/benchmarks.html), of the engines' request logs and of
how people ask ("per query", "per sample", "to respond"). A duration of something else (a model load, a download, a
build, training, a timeout setting, a gap between requests) and a plan, target or hypothetical ("should take under
1 s", "reduce the response time to 3 s", "if two requests each take 10 s") are no measurement.

Each reader returns (match, what, value, unit[, extra]); issue_md turns them into Measurements (parsers decide
nothing).
"""

from __future__ import annotations

import re

from diagnose.artifacts.figures import _APPROX, DURATION_UNIT, NUM, seconds, value_of

# a lower or upper bound read as the figure, the words kept: "takes over a minute", "in excess of 60 seconds", "up to
# 10 minutes" (a slow run's bound can only understate or state its worst)
_ABOUT = (r"(?:(?:about|around|roughly|approximately|approx\.?|nearly|almost|some|only|just|over|more\s+than|"
          r"at\s+least|in\s+excess\s+of|up\s+to|between)\s+|[~≈]\s*)*")  # ("between 3 s": a range's middle)
_TIME = _ABOUT + NUM + r"\s*" + DURATION_UNIT
_UNITS = DURATION_UNIT[1:-3]  # the units' alternation, no group
# ... and not a share of a smaller unit of work after it ("the generation time is 30 ms per token / per step")
_NOT_PER_PART = (r"(?!\s*(?:/\s*|per\s+|each\s+|an?\s+|every\s+)(?:output\s+|decode\s+)?"
                 r"(?:tok|step|iter|layer|forward|batch|epoch|image|frame))")
# what one request is called, singular or plural
_REQUEST = (r"(?:quer(?:y|ies)|requests?|prompts?|questions?|responses?|answers?|repl(?:y|ies)|completions?|calls?|"
            r"samples?|inferences?|chats?|messages?)")
_REQUEST_ONE = r"(?:query|request|prompt|question|response|answer|reply|completion|call|sample|inference|message)"
# the name of a whole request's time: "response time", "inference time", "request latency", "end-to-end latency";
# not a token's ("token generation time" is per token), and not "total time" (a whole job's as often as a request's)
_REQUEST_TIME = (r"(?<!token\s)(?<!first\s)\b(?:(?:response|request|inference|generation|completion|answer|query|"
                 r"end[- ]to[- ]end|e2e|total)\s+(?:time|latency|duration)|e2e\s*latency)\b")
# verbs and links between a request and its time
_TAKES = (r"(?:takes?|took|taking|needs?|needed|lasts?|lasted|is|was|are|were|of|averages?|averaged|"
          r"(?:decreased|dropped|fell|went\s+(?:up|down)|increased|rose|grew|climbed|jumped|goes|went|came\s+down|"
          r"got|gets)\s+to)")

# "each query took over 30 seconds", "a response with no tool call is taking 1 minute", "the inference time per
# query is also around 50s", "the response time from the Ollama system is around 12.5 seconds"
REQUEST_TAKES = re.compile(
    r"(?:\b(?:each|every|a|one|per|the|my|our|this|that|single)\s+(?:[\w-]+\s+){0,2}?" + _REQUEST + r"|"
    + _REQUEST_TIME + r")\b[^.;!?\d]{0,40}?\b" + _TAKES + r"\s+(?:(?:also|still|now|currently|usually|typically|"
    r"always|consistently|often|sometimes|already)\s+)*" + _TIME + _NOT_PER_PART, re.I)
# "50s per question", "≈400s per sample", "1.9 seconds per query on average"
TIME_PER_REQUEST = re.compile(r"(?<![\w.,])" + _TIME + r"\s+(?:per|for\s+(?:each|every|one|a))\s+" + _REQUEST_ONE
                              + r"\b", re.I)
# "it takes 244.15s to response", "takes 45 seconds to run inference", "taking 1 minute to respond", "it's taking 3
# seconds when I repeat the request", "get a response in 8 seconds"
TAKES_TO_RESPOND = re.compile(
    r"\b(?:takes?|took|taking|needs?|needed)\s+" + _TIME + r"\s+(?:"
    r"to\s+(?:get\s+(?:a|the)\s+)?(?:respond|response|reply|answer|complete\s+(?:a|the|each)\s+" + _REQUEST_ONE
    + r"|run\s+(?:the\s+)?inference|infer|return\s+(?:a|the)\s+(?:response|answer|result))\b|"
    r"(?:when(?:ever)?|each\s+time|every\s+time)\s+I\s+(?:send|repeat|make|submit|run)\s+(?:the|a|each|every|my)\s+"
    + _REQUEST_ONE + r"\b)|"
    r"\b(?:get|gets|got|receives?|received)\s+(?:a|the)\s+(?:response|answer|reply)\s+(?:in|after)\s+" + _TIME, re.I)
# the wait before the answer begins: "waiting in excess of 60 seconds for it to begin to respond", "takes 20 s before
# it starts generating" (issue_md.LATENCY and figures.FIRST_TOKEN_TIME read "TTFT 3 s", "... before the first token")
FIRST_RESPONSE = re.compile(
    r"\b(?:wait\w*|takes?|took|taking)\s+" + _TIME + r"\s+(?:for\s+(?:it|the\s+\w+)\s+to\s+|before\s+(?:it\s+)?|"
    r"until\s+(?:it\s+)?|till\s+(?:it\s+)?)(?:begins?|starts?)\s+(?:to\s+)?(?:respond\w*|answer\w*|generat\w*|stream\w*|"
    r"output\w*|repl\w*|typ\w*)", re.I)
# one token's time in words: "taking 200ms to receive a token", "takes 50 ms to generate each token"
TOKEN_TIME = re.compile(r"\b(?:takes?|took|taking|needs?)\s+" + _TIME + r"\s+(?:to|for)\s+(?:receive|get|generate|"
                        r"produce|emit|output|decode)\s+(?:a|one|each|every|a\s+single)\s+(?:new\s+|output\s+)?token\b",
                        re.I)
# in Chinese, the first token's time with 的 and 在 between: "首个token的耗时在160ms左右"
CJK_FIRST_TOKEN = re.compile(r"(?:第一个|首个)\s*token\s*的\s*(?:耗时|延迟|时延|时间)\s*(?:在|为|是|约|大约)?\s*"
                             r"(?:约|大约)?\s*" + NUM + r"\s*(ms|毫秒|s|秒)")

# A batch of N timed as a whole: "100 generated samples take about 15 hours", "10k prompts took 3 hours", "it took 3
# hours to process 10,000 prompts", "3 hours for 10k prompts": a throughput (requests per second) with its count.
_ITEMS = r"(?:prompts|requests|samples|queries|questions|documents|examples|items|completions|inputs|records|rows)"
BATCH_TIME = re.compile(
    r"(?<![\w.,])(?P<n>" + NUM[1:-1] + r")\s*(?P<k>[kK])?\s+(?:(?:generated|processed|test|eval\w*|input)\s+)?"
    + _ITEMS + r"\b[^.;\d]{0,30}?\s(?:take|took|takes|taking|in|needed|need|required|require|lasted)\s+" + _ABOUT
    + r"(?P<t>" + NUM[1:-1] + r")\s*(?P<u>" + _UNITS + r")\b|"
    r"\b(?:takes?|took|taking|needs?|needed|spent)\s+" + _ABOUT + r"(?P<t2>" + NUM[1:-1] + r")\s*(?P<u2>"
    + _UNITS + r")\s+(?:to\s+(?:process|run|generate|complete|finish|answer|evaluate)|for)\s+(?:the\s+|all\s+)?"
    r"(?P<n2>" + NUM[1:-1] + r")\s*(?P<k2>[kK])?\s+" + _ITEMS + r"\b|"
    r"(?<![\w.,])" + _ABOUT + r"(?P<t3>" + NUM[1:-1] + r")\s*(?P<u3>" + _UNITS + r")\s+for\s+(?:the\s+|all\s+)?"
    r"(?P<n3>" + NUM[1:-1] + r")\s*(?P<k3>[kK])?\s+" + _ITEMS + r"\b", re.I)

# A change of one named time: "TTFT from about 2 s to 0.11 s", "latency went from 42 seconds to 6 seconds".
_NAMED_TIME = (r"(?P<ttft>\bTTFT\b|\btime[ -]to[ -]first[ -]token\b|\bfirst[ -]token[ -]latency\b)|"
               r"(?P<itl>\bITL\b|\bTPOT\b|\binter[- ]token[ -]latency\b|\bper[- ]token[ -]latency\b|"
               r"\btime[ _]per[ _](?:output[ _])?token\b)|(?P<e2e>" + _REQUEST_TIME + r")")
TIME_CHANGE = re.compile(r"(?:" + _NAMED_TIME + r")[^.;!?\d]{0,40}?\bfrom\s+" + _APPROX + r"(?P<a>" + NUM[1:-1]
                         + r")\s*(?:(?P<ua>" + _UNITS + r")\b)?\s*(?:to|->|→|down\s+to|up\s+to)\s+" + _APPROX
                         + r"(?P<b>" + NUM[1:-1] + r")\s*(?P<ub>" + _UNITS + r")\b", re.I)

# Words that make a time no measurement of the run: a plan, target or hypothetical said before it in its sentence;
# a setting or a time of something else said before it in its clause.
NOT_MEASURED = re.compile(r"\b(?:if|should|would|could|expect\w*|hop(?:e|ed|ing)|want\w*|need\s+to|goal|target\w*|"
                          r"desired?|reduce|aim\w*|ideally|e\.g\.|for\s+example|suppose|imagine|let's\s+say)\b", re.I)
OTHER_TIME = re.compile(r"\b(?:time-?outs?|timed?\s+out|time\s+limit|within|load\w*|download\w*|build\w*|compil\w*|"
                        r"train\w*|fine-?tun\w*|install\w*|start-?up|boot\w*|warm\w*|cold\s+start|initiali[sz]\w*|"
                        r"gap|interval|sleep\w*|wait\s+between)\b", re.I)
_NEGATED = re.compile(r"\b(?:not|never)\b|n't")
_BOUND = re.compile(r"(?:\bnot|n't)\s+(?:\w+\s+)?(?:more\s+than|over|longer\s+than)\b", re.I)


def _measured(sentence: str, m: re.Match) -> bool:
    """Is the time `m` of `sentence` said as measured: no plan or hypothetical before it, no other time's words
    before it, not negated (a bound, "not more than 20 s", stays)?"""
    before = sentence[:m.start()]
    clause = re.split(r"[,;:(]\s*", before)[-1] + m.group(0)
    if NOT_MEASURED.search(before) or OTHER_TIME.search(clause):
        return False
    return not (_NEGATED.search(m.group(0)) and not _BOUND.search(m.group(0)))


def _ms(value: str, unit: str) -> float | None:
    v = value_of(value)
    return round(seconds(v, unit) * 1000, 3) if v else None


def request_times(sentence: str) -> list[tuple[re.Match, str, float]]:
    """(match, metric, ms) of each time the sentence states with what it times: e2e_latency_ms for a whole request,
    ttft_ms for the wait before the answer begins, itl_ms for one token."""
    out = []
    for metric, rx in (("e2e_latency_ms", REQUEST_TAKES), ("e2e_latency_ms", TIME_PER_REQUEST),
                       ("e2e_latency_ms", TAKES_TO_RESPOND), ("ttft_ms", FIRST_RESPONSE), ("itl_ms", TOKEN_TIME)):
        for m in rx.finditer(sentence):
            value, unit = next((m.group(k), m.group(k + 1)) for k in range(1, (m.re.groups or 0) + 1, 2)
                               if m.group(k) is not None)
            ms = _ms(value, unit)
            if ms and _measured(sentence, m) and not any(m.start() < o.end() and o.start() < m.end()
                                                         for o, _, _ in out):
                out.append((m, metric, ms))
    for m in CJK_FIRST_TOKEN.finditer(sentence):
        ms = _ms(m.group(1), {"毫秒": "ms", "秒": "s"}.get(m.group(2), m.group(2)))
        if ms:
            out.append((m, "ttft_ms", ms))
    return out


# A change said across workloads, not between two runs of one: "TTFT goes from 80 ms to 900 ms as the prompt grows
# to 16k", "went from 0.08 s to 0.9 s with 16k-token prompts". Its two ends belong to loads the sentence does not pair
# with them one by one: a trend (claims.length_tradeoff reads it), not a measurement of the run.
ACROSS_LOADS = re.compile(r"\b(?:as|when|while)\b[^.;!?]{0,40}?\b(?:grow\w*|increas\w*|ris\w*|gets?\s+(?:longer|larger|"
                          r"bigger))|\b(?:prompts?|context|input\s+length|sequence\s+length|concurrency|batch\s*size|"
                          r"users)\b", re.I)


def time_changes(sentence: str) -> list[tuple[re.Match, str, float, float]]:
    """(match, metric, ms now, ms before) of each named time the sentence says changed "from A to B" (B measured
    now, A the reference; A without a unit has B's); none where the change is across loads (ACROSS_LOADS)."""
    out = []
    if ACROSS_LOADS.search(sentence):
        return out
    for m in TIME_CHANGE.finditer(sentence):
        metric = "ttft_ms" if m["ttft"] else "itl_ms" if m["itl"] else "e2e_latency_ms"
        now, before = _ms(m["b"], m["ub"]), _ms(m["a"], m["ua"] or m["ub"])
        if now and before and not NOT_MEASURED.search(sentence[:m.start()]):
            out.append((m, metric, now, before))
    return out


def batch_throughputs(sentence: str, dot_thousands: bool = False) -> list[tuple[re.Match, float, int]]:
    """(match, requests per second, count) of each batch of N (N >= 2) the sentence times as a whole."""
    out = []
    for m in BATCH_TIME.finditer(sentence):
        k = next(i for i in ("", "2", "3") if m["t" + i] is not None)
        n = value_of(m["n" + k], dot_thousands)
        t = value_of(m["t" + k], dot_thousands)
        if not n or not t or not _measured(sentence, m):
            continue
        count = int(n * (1000 if m["k" + k] else 1))
        if count >= 2:
            out.append((m, round(count / seconds(t, m["u" + k]), 6), count))
    return out
