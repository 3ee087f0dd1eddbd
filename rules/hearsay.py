"""Another's word, not the reporter's observation: what someone else (a person, the docs) said, suggested or had
happen to them, what the reporter read or heard, and what another thread or an earlier release showed.

One reading for every rule that sets such words aside (review38): claims._GUESS takes a cause or a setting another
offered ("someone on reddit said frequency_penalty makes vLLM slower"), claims.symptom_quote drops a failure another
warned could happen ("the docs say it can crash on Pascal"), failure_words and cpu_only drop a failure or a fallback
that was someone else's ("in #1234 someone got wrong answers", "in another thread someone said it falls back to CPU").
Each reads the same words; they differ only in what must follow them (a guess word's clause, a modal, the failure).
"""

from __future__ import annotations

import re

# Who passes a word on: people other than the reporter, and the documents they write. "others" is a person only
# without an article: "the others" are the things just named ("GPU 0 hangs and the others report NCCL errors").
OTHERS = (r"(?:someone(?:\s+else)?|somebody(?:\s+else)?|people|(?<!the\s)others|other\s+(?:people|users)|"
          r"(?:a|my|our)\s+(?:colleague|friend|coworker)s?|(?:the\s+)?(?:docs?|documentation|maintainers?|readme))")
# Where they said it ("someone on reddit", "people in the forum").
PLACE = r"(?:\s+(?:on|in|from|at)\s+(?:the\s+)?[\w-]+)?"
# How they pass it on. "report" counts with no figure after it ("people report it may hang"; "others report 0 %" is a
# reading of the others).
TOLD = (r"(?:said|says|say|claim(?:s|ed)?|warn(?:s|ed)?|mention(?:s|ed)?|report(?:s|ed)?(?!\s+\d)|wrote|"
        r"suggest(?:s|ed)?|recommend(?:s|ed)?|advis(?:e|es|ed)|told\s+me)")
# What happened to them ("someone got wrong answers", "other users had the same crash").
HAD = r"(?:got|gets|had|has|have|saw|sees|experienced|ran\s+into|hit)"
# The reporter reading or hearing it.
READ = r"I(?:'ve| have)? (?:read|heard)|according to (?:the )?(?:docs|documentation|blog|article|paper)"
# Another thread, or another time (an earlier release, the past).
ELSEWHERE = (r"#\d+|\bissue\s+\d+|\b(?:another|other)\s+(?:thread|issue|post)s?\b|"
             r"\b(?:unlike|earlier\s+versions?|older\s+versions?|in\s+the\s+past)\b")

# Their word, said in so many words: the part of claims._GUESS that names the adviser. Not a reason given for a setting
# in use ("we set NCCL_P2P_DISABLE=1 as the docs recommend": the setting runs).
SAID_BY_OTHERS = READ + r"|(?<!\bas\s)(?<!\bas\sthe\s)" + OTHERS + PLACE + r"\s+" + TOLD

# (review37) A failure someone else warns of, under a modal, right before the failure word ("someone said it might also
# hang with mixed cards", "the docs say it can crash on Pascal"): a possibility reported second hand, not this run's
# symptom. The reporter's own "it may hang after a few hours" (no one else's word) stays a symptom.
POSSIBLE = re.compile(r"\b" + OTHERS + r"\b[^.\n]{0,40}?\b" + TOLD + r"\b[^.\n]{0,40}?"
                      r"\b(?:might|may|could|can|would|will)\s+(?:\w+\s+){0,2}$", re.I)

# (review37b) What the words before a failure say of whose it is: another's (a person or document that told of it or
# had it), the reporter's reading, another thread's or an earlier release's. A person alone is not enough: "when
# someone sends a long prompt the server crashes" and "some requests work, others return empty responses" are the
# reporter's own failures.
_NOT_OURS = re.compile(r"\b" + OTHERS + r"\b[^.\n]{0,40}?\b(?:" + TOLD + r"|" + HAD + r")\b|"
                       r"\b(?:someone|somebody)\s+else\b|\bother\s+(?:people|users)\b|" + READ + r"|" + ELSEWHERE,
                       re.I)


def elsewhere(before: str) -> bool:
    """Do the words `before` a failure or a fallback make it someone else's, read of, or another thread's or release's
    (_NOT_OURS), not the reporter's now?"""
    return bool(_NOT_OURS.search(before))
