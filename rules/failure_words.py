"""A failure said in the reporter's own words, with no error line pasted: the gate that keeps the answers resting on
nothing seen broken (rules.documented_behaviour's rows, ticket.nothing_broken, the physics priors) off a ticket that
reports one. It reads sentences only, so the rules of every layer above the claims can ask it."""

from __future__ import annotations

import re

from diagnose.evidence import Facts
from rules import claims, hearsay

# (review36b) A failure in the reporter's words with no error line pasted: since bydesign36 the "bug" label alone no
# longer shuts a by-design row, so these shut documented_behaviour and nothing_broken ("after a while the server
# crashes", "the server doesn't start at all", "the pod gets OOMKilled", "it segfaults", "dmesg shows Xid 13"): a
# row explains the observation it matched, not a failure beside it. Ruled out ("nothing crashes") it does not count.
# (risks37) Failures said without those words count too, each a family the engines and their clients report: output
# that is wrong or empty (the failure the engines' issue templates ask "incorrect / garbled output" about), an HTTP 5xx
# status (RFC 9110 section 15.6: the server failed to fulfil a valid request), an exception raised or an assertion
# failed (Python's and ggml's own words), a loss or output gone NaN/inf, a request that never gets an answer. A label
# alone ("is this a bug?") still does not count (bydesign36).
# ("empty" and "blank" only of what a model returns: "set the value to empty string" in a prompt is no failure)
# (p2p43) ... and said with the verb that hands the output back, the bad output its object: "began returning nonsense
# when using anything other than -sm none" (ggml-org/llama.cpp#21855), "row split mode outputs gibberish"
# (ggml-org/llama.cpp#16680), "Several models producing gibberish" (#12012), "-sm row produces gibberish" (#12340),
# "it produces only garbage on my newly built box" (#3772), "outputs nonsense random ASCII"
# (ikawrakow/ik_llama.cpp#1489). "incomprehensible" / "unintelligible" are the same complaint in other words ("all
# return incomprehensible text", llama.cpp#21855). Garbage collection is no output; a guess ("it might return
# garbage") no failure seen.
_BAD_OUTPUT_WORD = (r"(?:nonsense|nonsensical|gibberish|garbage(?!\s+collect)|garbled|incomprehensible|"
                    r"unintelligible)\b")
_WRONG_OUTPUT = (r"\b(?:wrong|incorrect|garbled|gibberish|nonsense|nonsensical|garbage|corrupt\w*|meaningless|"
                 r"incomprehensible|unintelligible)\s+"
                 r"(?:\w+\s+)?(?:answers?|outputs?|responses?|replies|completions?|generations?|tokens|text|strings?)\b|"
                 # (a guess, "it might return garbage", is not the reporter's failure)
                 r"(?<!might )(?<!may )(?<!could )(?<!would )"
                 r"\b(?:return(?:s|ed|ing)?|output(?:s|ted|ting)?|produc(?:e|es|ed|ing)|generat(?:e|es|ed|ing)|"
                 r"spit(?:s|ting)?\s+out)\s+(?:only\s+|just\s+|pure\s+|complete\s+|total\s+|random\s+)?"
                 + _BAD_OUTPUT_WORD + r"|"
                 r"\b(?:empty|blank)\s+(?:\w+\s+)?(?:answers?|outputs?|responses?|replies|completions?|generations?)\b|"
                 r"\b(?:answers?|outputs?|responses?|replies|completions?|generations?)\s+(?:are|is|was|were|come\s+"
                 r"back|comes\s+back|came\s+back|look|looks|become|becomes)\s+(?:as\s+|all\s+|just\s+|completely\s+|"
                 r"often\s+|sometimes\s+|always\s+)?(?:an?\s+)?(?:wrong|incorrect|garbled|gibberish|nonsense|"
                 r"garbage|corrupt\w*|meaningless|blank|empty)\b|"
                 r"\brepeat(?:s|ing|ed)?\s+the\s+same\s+(?:word|token|phrase|sentence|character|line)s?\b")
_FAILED = re.compile(r"\b(?:crash(?:es|ed|ing)?|segfault\w*|segmentation fault|core dumped|OOM-?Killed|"
                     r"CrashLoopBackOff|keeps?\s+restarting|Xid\s*:?\s*\d+|"
                     r"(?:gets?|got|was|were|is|being)\s+killed|"
                     r"(?:does\s*n['’]?t|doesn['’]t|did\s*n['’]?t|won['’]?t|will\s+not|can(?:no|['’])?t|"
                     r"fail(?:s|ed)?\s+to|unable\s+to)\s+(?:even\s+)?(?:start|launch|boot|come\s+up))\b|"
                     + _WRONG_OUTPUT + r"|\b(?:HTTP|status(?:\s+code)?|error(?:\s+code)?)\s*:?\s*5\d\d\b|"
                     r"\b5\d\d\s+(?:Internal\s+Server\s+Error|Bad\s+Gateway|Service\s+Unavailable)\b|\bInternal\s+Server\s+Error\b|"
                     # (said of a run, "throws an exception", not code's own "raise Exception()")
                     r"\b(?:throws|threw|thrown|raises|raised)\s+(?:an?\s+)?(?:\w+\s+)?(?:exception|error)\b|"
                     r"\bGGML_ASSERT\b|\bassert(?:ion)?\s+failed\b|\bAssertionError\b|"
                     r"\b(?:loss|logits|outputs?|gradients?|values?)\s+(?:is|are|becomes?|became|turns?\s+(?:in)?to|"
                     r"goes\s+to|went\s+to)\s+(?:NaN|inf)\b|"
                     r"\bnever\s+(?:receive|get|gets|got)\s+(?:a|any|an|the)\s+(?:reply|response|answer)\b", re.I)

# (words44) Bad output only supposed, with a modal before its verb and words between ("it might also return garbage",
# "it might just produce garbage", id 2096443730; "may produce garbage on older Windows consoles", id 60726850227;
# "web parts may produce garbage even from AX tree parsing", id 66788615186), or what follows when a requirement is
# not met, "otherwise ... will" ("otherwise it will produce garbage plots", id 25227108333; "otherwise it will
# produce garbage output", id 41925780359; "Otherwise it will produce garbage.", id 32997890298: find_string ids):
# a warning of what could happen, not output seen. "would" with "always"/"still" after it is the reporter's habit of
# the run ("it would always return garbage"), seen. The clause up to the bad-output words only.
# (fr44) The modal is the lowercase "may", not the month ("Since May 3 the model produces gibberish"), and "otherwise"
# opens its clause (at the start, after a comma or "and"/"or"/"but"/"so"): "The server runs fine otherwise, it will
# produce garbage output after 100 tokens" says the garbage is seen. (fr44r2) A dash or a bullet opens a clause too
# ("You must set --dtype float16 - otherwise it will return gibberish", "- Otherwise it will return gibberish"), and so
# does an instruction before it ("Make sure to pass --trust-remote-code otherwise it will produce garbage output").
# (past45) "can" right before the verb (an adverb or two between at most) says what may happen, as a capability or a
# warning: "the silent out-of-bounds read that can produce garbage seed positions" (find_string id 59312280457),
# "params can produce garbage outputs even when it succeeds" (id 4600761426), "the summarizer can produce garbage
# summaries" (id 49228696026), "out of bounds accesses can produce garbage results or segfaults" (id 17464846266),
# "the scalers can output gibberish data" (id 8257491458), "GetUpdatedEntityID which can return garbage"
# (id 39114741530). Not "can only produce garbage" (all it does now), nor "I can confirm it produces garbage" (the
# verb after "can" is the writer's, the output's verb its own). (fr45) Nor where a frequency or "also" / "then" stands
# between: "the model can sometimes produce garbage output after ~2k tokens", "can randomly output gibberish, about 1 in
# 20 requests", "can also return gibberish when batch > 32" report what the reporter's run does now and then.
_SUPPOSED_OUTPUT = re.compile(r"\b(?:might|(?-i:may)(?!\s+\d)|could|would(?!\s+(?:always|still|consistently|often|"
                              r"sometimes|keep|then|again|just\s+keep)\b))\s+"
                              r"(?:(?!(?:and|but|or|so|because|when|while|if)\b)[\w'-]+\s+){0,3}$|"
                              r"\bcan\s+(?:(?:easily|even|potentially|silently)\s+){0,2}$|"
                              r"(?:^|(?<=[,;:(])|(?<=\band)|(?<=\bor)|(?<=\bbut)|(?<=\bso)|(?<=\s[-–—])|(?<=^[-*•–—])|"
                              r"(?<=\n[-*•–—])|"
                              r"(?:\b(?:must|need\s+to|needs\s+to|make\s+sure|be\s+sure|ensure|should|have\s+to|"
                              r"has\s+to|remember\s+to|don'?t\s+forget)\b|^\s*(?:please\s+)?(?:set|pass|use|add|enable|"
                              r"disable|run|install)\b)[^.!?\n]*?\s)\s*"
                              r"(?:otherwise|else)\b,?\s+(?:\w+\s+){0,3}?will\s+(?:\w+\s+){0,3}$", re.I)
# (fr45r2) ... but a "can" with a frequency or "also" is still a warning where the sentence frames it as one: a note,
# a known limitation, "without" the fix, or a reason for what the reporter turned off before it ("We disabled cuda
# graphs because they can randomly output garbage", "Note that a temperature above 1.5 can also produce gibberish",
# "Known limitation: speculative decoding can sometimes return garbage"), or the reporter's setting kept clear of it
# after it ("...; we have it disabled and the output is fine", "..., so we keep fp16", "...; ours is 0.7"). Not "the
# model can sometimes produce garbage output after ~2k tokens" (the reporter's run, fr45).
_CAN_BEFORE = re.compile(r"\bcan\s+(?:\w+\s+){0,2}$", re.I)
_WARNING_BEFORE = re.compile(r"\b(?:note|known\s+(?:limitation|issue|bug|problem)s?|limitation|caveat|warning|beware|"
                             r"careful|without)\b|"
                             r"\b(?:disabl\w*|turn\w*\s+off|switch\w*\s+off|avoid\w*|(?:don['’]?t|do\s+not|never)\s+use|"
                             r"stay\w*\s+(?:on|with)|stick\w*\s+(?:to|with)|kept|keep)\b[^.!?\n]{0,80}?"
                             r"\b(?:because|since|as)\b", re.I)
_KEPT_CLEAR_AFTER = re.compile(r"\b(?:we|I)\s+(?:have|had|keep|kept|leave|left)\s+(?:it|them|this|that)\s+"
                               r"(?:disabled|off|turned\s+off|switched\s+off)\b|"
                               r"\bso\s+(?:we|I)\s+(?:\w+\s+)?(?:keep|kept|use|used|stay\w*|stick\w*|disabled?|"
                               r"turn\w*\s+off|avoid\w*|don['’]?t|do\s+not|never)\b|"
                               r"\b(?:ours|mine)\s+(?:is|are|was)\b|\b(?:our|my)\s+output\s+is\s+fine\b|"
                               r"\bthe\s+output\s+is\s+fine\b|\b(?:we|I)\s+(?:don['’]?t|do\s+not|never)\s+use\b", re.I)
_WRONG_OUTPUT_RE = re.compile(_WRONG_OUTPUT, re.I)
_NOT_FAILED = re.compile(r"\b(?:no|nothing|never|not|without|none|nor)\b|n['’]t\s+(?:\w+\s+)?$", re.I)
# (review37b) A failure that is not the reporter's now: someone else's, another thread's or an old release's ("I read
# in #1234 that someone got wrong answers", "unlike issue #500 where the output was garbled", "earlier versions had
# garbage outputs; that was fixed in 0.5"): rules/hearsay.py reads it.
_FIXED_SINCE = re.compile(r"\b(?:was|were|has\s+been|have\s+been|got|is)\s+(?:since\s+)?fixed\b", re.I)
# An empty reply or none at all where the sentence says the client gave up waiting ("the client times out and returns
# an empty response", "some clients never get a response because the queue is so long"): that is the slowness itself,
# the time-out a client sets (OpenAI's client, curl --max-time), not a failure beside it.
_NO_REPLY = re.compile(r"\b(?:empty|blank|never)\b", re.I)
_WAITED_OUT = re.compile(r"\btime[ds]?[- ]?outs?\b|\btim(?:es|ed|ing)\s+out\b|\btoo\s+long\b|\bso\s+long\b|"
                         r"\bqueue[ds]?\b", re.I)
# An HTTP 5xx while the model loads ("503 until the model has loaded"): the server's readiness answer (vLLM's and
# TGI's health routes answer 503 before the engine is up), not a request failed.
_LOADING = re.compile(r"\b(?:while|until|during|before)\s+(?:the\s+)?(?:model|server|engine|weights)?\s*"
                      r"(?:is\s+|has\s+|was\s+)?(?:load\w*|start\w*|warm\w*|ready)\b|\bat\s+start-?up\b", re.I)


def _can_warned(sentence: str, m: re.Match) -> bool:
    """(fr45r2) Is the bad output `m`, after a "can", framed as a warning (_WARNING_BEFORE before the "can") or kept
    clear of by the reporter's setting (_KEPT_CLEAR_AFTER)?"""
    lo = max(0, m.start() - 80)
    can = _CAN_BEFORE.search(sentence, lo, m.start())
    return bool(can) and bool(_WARNING_BEFORE.search(sentence, 0, can.start())
                              or _KEPT_CLEAR_AFTER.search(sentence, m.end()))


def _set_aside(sentence: str, m: re.Match) -> bool:
    """(review37b) Is the failure `m` not one the reporter has now: asked about or supposed ("Does the loss become
    NaN?", "if the output is wrong ..."), someone else's or an old release's (hearsay.elsewhere, _FIXED_SINCE), no reply
    because the client gave up waiting (_WAITED_OUT), or a 5xx while the server loads (_LOADING)?"""
    before = sentence[:m.start()]
    return claims.asked_at(sentence, m.start()) or claims.conditional(before, when=False) \
        or bool(_WRONG_OUTPUT_RE.match(m.group(0)) and _SUPPOSED_OUTPUT.search(before[-80:])) \
        or bool(_WRONG_OUTPUT_RE.match(m.group(0)) and _can_warned(sentence, m)) \
        or hearsay.elsewhere(before) \
        or bool(_FIXED_SINCE.search(sentence, m.end())) \
        or bool(_NO_REPLY.search(m.group(0)) and _WAITED_OUT.search(sentence)) \
        or bool(re.search(r"5\d\d|Server\s+Error|Gateway|Unavailable", m.group(0)) and _LOADING.search(sentence))


def _said(facts: Facts, pattern: re.Pattern, besides: str | None = None):
    """(source, sentence) of the reporter's first sentence where `pattern` finds a failure not ruled out just before
    the word nor set aside (_set_aside), skipping sentences `besides` matches; None if there is none."""
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            if besides and re.search(besides, sentence, re.I):
                continue
            for m in pattern.finditer(sentence):
                if not _NOT_FAILED.search(sentence[max(0, m.start() - 30):m.start()]) and not _set_aside(sentence, m):
                    return source, sentence
    return None


def failure_said(facts: Facts, besides: str | None = None) -> str | None:
    """The reporter's own sentence that says something failed (_FAILED), unless ruled out just before the word,
    set aside (_set_aside) or matched by `besides` (a by-design row's explains_failure: that failure is the row's own
    observation)."""
    found = _said(facts, _FAILED, besides)
    return found[1] if found else None


def wrong_output_said(facts: Facts) -> claims.Claim | None:
    """The reporter's own words that the output comes back wrong (_WRONG_OUTPUT: garbled, gibberish, incorrect),
    under the same guards as failure_said: the one failure that may follow the software or the peer path."""
    found = _said(facts, _WRONG_OUTPUT_RE)
    return claims.Claim("wrong_output", found[0], claims.one_line(found[1])[:200]) if found else None
