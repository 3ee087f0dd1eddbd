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

from diagnose.artifacts.text import sentence_before, sentence_end, sentence_start

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


# (fx48q) Another person's run named by its owner, with no word told: "A colleague's job timed out while rank 0 was
# saving", "someone else's cluster hangs". Not the writer's own team ("my colleague's job on our cluster" is the
# writer's system, as _OWN_TEAM reads a teller), nor "the others'" (the other ranks or GPUs just named).
_THEIR_RUN = re.compile(r"\b(?:(?:someone|somebody)(?:\s+else)?['’]s|(?:a|another)\s+(?:colleague|friend|coworker|"
                        r"user|team)['’]s|other\s+(?:people|users|teams)['’])\s+(?:[\w-]+\s+)?(?:job|run|training|"
                        r"cluster|setup|machine|server|node|model|code|script)s?\b", re.I)


def theirs(before: str) -> bool:
    """Do the words `before` a failure name it as another person's run or system (_THEIR_RUN)?"""
    return bool(_THEIR_RUN.search(before))


def someone_elses(before: str) -> bool:
    """Do the words `before` a failure make it not the writer's own: told of or read about (elsewhere), or another
    person's run or system named (theirs)?"""
    return elsewhere(before) or theirs(before)


# (known47a) Another's failure, then denied for the writer's own system: "Someone said the allreduce hangs on H100s too,
# but ours runs fine", "I read that vLLM hangs with TP=4, but mine works", "In #123 they say it hangs. For us it runs
# fine." The failure is only reported of others (their word opens its clause: _TOLD_OF), and the writer's contrary
# experience follows in a contrast or the next sentence (_DENIED): a run of theirs that works, no failure of their own.
# The writer's "works fine for me" as the answer to another's trouble is how threads deny it: "I can't repeat it. It
# works fine for me." (a forum thread, find_string id 67559353340), "That's weird, it works all okay for me." (id
# 56780492405), "Strangely, everything works fine for me" after another's "still mangled" (a mailing-list thread, id
# 401029160), "Someone said it might also hang with mixed cards, but mine never hangs" (tests/data/review37/NOTES.md);
# and the user "reported it hangs, then clarified the effect appeared to work" (id 66742857374). Not a confirmation
# ("someone said it hangs, and ours hangs too", "same here: it hangs"), nor a fine run under a condition, which is the
# writer's workaround ("but ours works with NCCL_P2P_DISABLE=1", "but mine runs fine until it hangs").
_THEY = r"(?:they|people|(?:some|many|several|other)\s+users|someone|somebody|others)"
_TOLD_OF = re.compile(r"\b" + OTHERS + PLACE + r"\s+(?:" + TOLD + r"|" + HAD + r")\b|" + READ + r"|"
                      r"\b(?:some|many|several)\s+users\s+(?:" + TOLD + r"|" + HAD + r")\b|"
                      r"(?:#\d+|\bissue\s+\d+|\b(?:another|other)\s+(?:thread|issue|post)s?\b)[^.\n]{0,40}?\b" + _THEY
                      + r"\s+" + TOLD + r"\b", re.I)
# (what ends the clause of their word before the failure: a contrast, or the writer's own subject after "and")
_CLAUSE_TURNS = re.compile(r";|\b(?:but|however|whereas|although|though|yet)\b|\band\s+(?:ours|mine|we|I|our|my)\b",
                           re.I)
_CONTRAST = re.compile(r"\b(?:but|however|whereas|though|although|yet)\b\s*,?\s*", re.I)
_OWN_SUBJECT = r"(?:ours|mine|we|I|(?:our|my)\s+(?:[\w.-]+\s+){0,2}?[\w.-]+)"
_FOR_US = (r"(?:for\s+(?:us|me)|here|on\s+(?:our|my)\s+(?:[\w-]+\s+){0,2}?(?:side|end|machines?|cluster|nodes?|setup|"
           r"servers?|systems?|box(?:es)?|hardware))")
_FINE = (r"(?:(?:still|always|just|actually|so\s+far)\s+)?"
         r"(?:(?:runs?|ran|works?|worked|is|are|was|were|has\s+been|have\s+been|(?:seems?|appears?)\s+to\s+(?:run|work|be))"
         r"\s+(?:[\w-]+\s+)?(?:fine|ok|okay|well|smoothly|perfectly|normally|stable)\b|"
         r"(?:runs?|ran|works?|worked)\s+(?:without|with\s+no)\s+(?:any\s+)?(?:issues?|problems?|hangs?|errors?|trouble)\b|"
         r"never\s+(?:hangs?|hung|times?\s+out|timed\s+out|froze|freezes|stalls?|stalled)\b|"
         r"(?:do|does|did|have|has)\s*(?:n['’]t|\s+not)\s+(?:ever\s+|yet\s+)?(?:see|get|hit|had|have|experience|notice|"
         r"reproduce|hang|stall|freeze|time\s+out)\w*|"
         r"(?:can['’]?t|cannot|could\s*n['’]t|could\s+not|(?:am|was|were)\s+unable\s+to)\s+reproduce\b|"
         r"(?:have|has|had)\s+(?:had\s+)?no\s+(?:such\s+)?(?:issues?|problems?|hangs?|trouble)\b|"
         r"(?:works?|worked)\b(?=[.,;:!)]|$|\s+(?:for|here|on|in|too)\b))")
# (not fine only under a condition in the rest of its sentence: the writer's workaround of a failure of their own, "but
# ours works fine with NCCL_P2P_DISABLE=1", "but mine runs fine until it hangs", "... but only on TP=2", "For us it runs
# fine, but only with NCCL_P2P_DISABLE=1" (fr47a2: read across a comma or a semicolon); fine only for a while, in an
# older release, before a change or with an exception: "ours ran fine for a week", "mine worked in v0.5.3; since v0.6
# ...", "ours works fine, except when the prompt is longer than 8k tokens"; fine on another box or layout: "It works
# fine for me on TP=2", "I can't reproduce it on my dev box")
_CONDITIONED = re.compile(r"[^.:!?\n]*?\b(?:with|after|when|whenever|if|once|only|unless|since|until|till|"
                          r"as\s+long\s+as|but|either|except|before|in\s+v?\d|for\s+(?:(?:a|an|the|about|around|over|almost|nearly|"
                          r"first|few|several|some|couple|of|\d+)\s+){1,3}(?:minutes?|hours?|days?|weeks?|months?|years?|"
                          r"runs?|requests?)|on\s+(?:tp|pp|ep)\b|on\s+(?:a\s+|an\s+|my\s+|our\s+|the\s+)?(?:other|another|"
                          r"different|dev|local|test|smaller|single|one|two|\d+)\b)", re.I)
# (fr47a2) The fine run over in the next sentence: "ours ran fine for a week. Since yesterday's reboot it does the
# same.", "Our new PCIe box does exactly that.": the writer's own failure after all, whatever word names it.
_SAME_AS_THEIRS = (r"(?:does|did|do)\s+(?:exactly\s+|just\s+)?(?:the\s+same|that|this|so|too|as\s+well)|"
                   r"same\s+(?:thing|here|issue|problem|behaviou?r)")
# (fx48d) A past state of a run that no longer holds: "ours was fine, at first.", "mine worked fine initially", "it
# ran fine for a while" ("worked fine at first, but ... the sound stopped working", "worked fine for a while but then
# suddenly started having a 4 minute login delay", "works fine initially but degrades over hours" in real posts); not
# "at first glance" nor "for a while now" (still fine)
_PAST_STATE = (r"at\s+first(?!\s+(?:glance|sight))|initially|in\s+the\s+beginning|for\s+a\s+while(?!\s+now)|"
               r"until\s+recently")
_OVER_AFTER = re.compile(r"\b(?:since|now|anymore|no\s+longer|again|too|as\s+well|also|lately|recently|"
                         + _PAST_STATE + "|" + _SAME_AS_THEIRS + r")\b", re.I)
# (the sentence after the denial cancels it only by saying the writer's system does the same, or by naming a failure:
# "Since yesterday's reboot it does the same." — not by a bare "also"/"now"/"too" of another matter: "I also tried
# TP=1 for comparison", "I tested TP=8 as well", "Now the throughput is my only problem" (second read, fr47c))
_SAME_NEXT = re.compile(r"\b(?:" + _SAME_AS_THEIRS + r")\b", re.I)
# (an aside may open it: "That's weird, it works all okay for me.", "Strangely, everything works fine for me")
_ASIDE = (r"(?:(?:that['’]?s\s+(?:weird|odd|strange|interesting)|strangely|oddly|weirdly|interestingly|honestly|"
          r"personally|actually|hmm+)\s*,\s*)?")
# (known48: its own "too" or "as well", "it works fine for me too", "mine runs fine as well": fine like the runs of
# others who have no trouble, no sign that the writer's system does the same as the failing one (_OVER_AFTER))
_DENIED = re.compile(r"(?:" + _ASIDE + r"(?:" + _FOR_US + r"\s*,?\s*)?(?:" + _OWN_SUBJECT + r"\s+" + _FINE + r"|"
                     r"(?:it|everything|this|that)\s+" + _FINE + r"(?:\s+[\w-]+){0,3}?\s+for\s+(?:me|us)\b)|"
                     + _ASIDE + _FOR_US + r"\s*,?\s*(?:it|everything|this|that)\s+" + _FINE
                     + r")(?:\s+(?:too|as\s+well)\b)?", re.I)
# (a failure of the writer's own said after the denial: "but ours works fine until it hangs", "mine runs well, then
# freezes"; "never hangs" is the denial itself)
_FAILS_AFTER = re.compile(r"(?<!never\s)(?<!n't\s)(?<!not\s)\b(?:hang\w*|hung|freez\w*|froze|stall\w*|stuck|"
                          r"deadlock\w*|time[sd]?\s?out\w*|tim(?:es|ing)\s+out|crash\w*|"
                          r"(?:stops?|stopped|stopping)\s+respond\w*|unresponsive)\b", re.I)
# (fr47a2) The told clause names the writer's own system ("Several users reported that our endpoint hangs") or the
# teller is the writer's own team ("My colleague reported that it hangs on our server"): the writer's failure, reported
# to them; "I can't reproduce it" is the usual answer of whoever files the ticket, no denial.
_OWN_SYSTEM = re.compile(r"\b(?:our|my)\b", re.I)
_OWN_TEAM = re.compile(r"\b(?:our|my)\s+(?:colleague|coworker|team)", re.I)


def denied_for_writer(text: str, start: int, end: int) -> bool:
    """Is the failure at text[start:end] only another's word (_TOLD_OF opens its clause) that the writer then denies
    for their own system (_DENIED after a contrast in its sentence, or opening the next sentence)?"""
    sentence_from = sentence_start(text, start, SENTENCE_SPAN)
    told = next(reversed(list(_TOLD_OF.finditer(text, sentence_from, start))), None)  # the last word of theirs
    if told is None or _CLAUSE_TURNS.search(text, told.end(), start):
        return False
    if _OWN_TEAM.match(told.group()) or _OWN_SYSTEM.search(text, told.end(), start):
        return False
    stop = sentence_end(text, end, SENTENCE_SPAN)
    for turn in _CONTRAST.finditer(text, end, stop):
        if denial := _DENIED.match(text, turn.end(), stop):
            return _denial_stands(text, denial.end(), stop)
    at = _next_sentence_start(text, stop, _OPENING_CONTRAST)
    if at is None:
        return False
    after = sentence_end(text, at, SENTENCE_SPAN)
    denial = _DENIED.match(text, at, after)
    return bool(denial) and _denial_stands(text, denial.end(), after)


_OPENING_CONTRAST = re.compile(r"\s*(?:(?:but|however|though)\b\s*,?\s*)?", re.I)
_SPACE = re.compile(r"\s*")


def _next_sentence_start(text: str, stop: int, opener: re.Pattern) -> int | None:
    """Where the sentence after the one ending at `stop` starts, past the space (and the words `opener` allows) within
    20 characters; None at a blank line or the text's end."""
    at = stop + opener.match(text[stop:stop + 20]).end()
    return None if "\n\n" in text[stop:at] or at >= len(text) else at


def _denial_stands(text: str, at: int, stop: int) -> bool:
    """Does the denial ending at `at` stand: not fine only under a condition (_CONDITIONED), nor followed by a failure
    of the writer's own (_FAILS_AFTER) or its run over (_over_after), up to `stop`?"""
    return not (_CONDITIONED.match(text, at, stop) or _FAILS_AFTER.search(text, at, stop)
                or _over_after(text, at, stop))


def _over_after(text: str, at: int, stop: int) -> bool:
    """Does the rest of the denial's sentence (from `at` to `stop`) or the sentence after it say the fine run is over
    or the writer's system does the same (_OVER_AFTER; in the next sentence only _SAME_NEXT, _FAILS_AFTER)?"""
    if _OVER_AFTER.search(text, at, stop):
        return True
    begin = _next_sentence_start(text, stop, _SPACE)
    if begin is None:
        return False
    after = sentence_end(text, begin, SENTENCE_SPAN)
    return bool(_SAME_NEXT.search(text, begin, after) or _FAILS_AFTER.search(text, begin, after))

# (review39c) Advice under a condition: a failure named only in the condition whose main clause tells the reader what
# to do. "If nvidia-smi ever says 'Unable to determine the device handle', reseat the card", "if it hangs, set
# NCCL_P2P_DISABLE=1", "Should the run stall, kill it and restart", "Reseat the card if nvidia-smi says ...",
# "如果出现卡住，就设置 NCCL_P2P_DISABLE=1", "万一出现 Xid 79，请重新插拔 GPU": a rule of thumb handed on (a README, a
# colleague, the reporter's own notes), no run seen to fail. "In case ..." is a precaution whatever follows. The
# reporter's own conditional keeps its failure in the main clause ("if I run TP=2 it hangs", "如果用 tp=2 就卡住") or
# has no order after it ("if the batch is larger than 8 it hangs, so please check ..."); "when" is left out: "when it
# hangs, run py-spy" is a reproduction step of a hang that happens.
_ORDER = (r"(?:(?:please|just|then|simply|first|immediately)\s+)*(?:set|unset|export|try|use|re-?seat|reboot|restart|"
          r"reset|kill|check|disable|enable|re-?run|retry|re-?try|add|remove|update|upgrade|downgrade|re-?install|"
          r"install|switch|replace|contact|make\s+sure|ensure|increase|decrease|lower|raise|reduce|terminate|drain|"
          r"swap|power[\s-]cycle|turn\s+(?:off|on))\b"
          # (not the noun or gerund a reporter's sentence goes on with: "reboot is the only way", "restart helped")
          r"(?!\s+(?:is|was|does|did|helps?|helped|works?|worked|fixe[sd]|doesn't|didn't|made|makes)\b)"
          # (review39d: nor a header, "Update: if I run with tp=2 it hangs")
          r"(?!\s*:)|"
          # (review39d: not "you have to": "If it hangs, you have to reboot the node to get the GPUs back" tells what
          # a hang costs the writer, not what the reader should do)
          r"you\s+(?:should|must|need\s+to|(?:may|might)\s+want\s+to)\b")
# (请 alone is an order, "请先 kill 掉进程"; not 请问, "may I ask"; nor what it takes to recover,
# "需要重启机器才能恢复", the cost of a hang the writer had: 才 "only then")
_ORDER_ZH = (r"(?:(?:就|则|那么|那就|那)\s*)?(?:(?:你们?|您)\s*)?(?:请(?!问)|(?:(?:可以|需要)\s*)?(?:先\s*)?"
             r"(?:设置|设|重启|重新|重装|插拔|检查|试试|尝试|改|换|更换|加上?|关闭|关掉|打开|禁用|启用|升级|降级|执行|使用|杀掉|联系|排查|export|kill|"
             r"reboot))(?![^，,。；;！!？?\n]{0,30}才)")
# (a clause runs to a comma or semicolon; a dot or colon inside it is a bus id's or a quote's: "0000:0B:00.0: ...")
_IN_CLAUSE = r"(?:[^,;.!?]|\.(?!\s))*$"
_CONDITION = re.compile(r"\b(?:if|in\s+case|unless)\b" + _IN_CLAUSE + r"|^[\s*>#-]*should\b" + _IN_CLAUSE, re.I)
# (review39d: not "Just in case:" opening a report, nor "in case of" as "in the case of" with the failure said of a
# subject after it, "In case of TP=2 the server hangs" (non-native English; NCCL's release notes write "in case of weak
# failure which was causing a hang"): there the failure is seen. "in case of a hang" names the failure itself.)
_IN_CASE = re.compile(r"\bin\s+case\b(?!\s*[:,\u2014-])" + _IN_CLAUSE, re.I)
_IN_CASE_OF_SUBJECT = re.compile(r"\bin\s+case\s+of\b(?:[^,;.!?]|\.(?!\s))*?\s(?:it|this|that|everything|the\s+[\w-]+)"
                                 r"(?:\s+(?:also|still|just|always|then))?\s+$", re.I)
# (review39d) The writer as the condition's subject: "if I unset it the run hangs", "If we enable TP=2 it hangs at init,
# check the log below", "如果我用 tp=2 就会卡住": the writer's own trial and its result, whatever words follow (a
# repro); advice speaks of "it", "you", the job.
_WRITERS_CONDITION = re.compile(r"(?:\bif\s+(?:I|we)\b|如果我)(?:[^,;.!?]|\.(?!\s))*$", re.I)
# (review39d) A reproduction section: "Steps to reproduce: ... 2. if it hangs, check nvidia-smi" is the writer's
# failure, expected on every run, not a rule of thumb.
_REPRO_BEFORE = re.compile(r"\b(?:steps?\s+to\s+reproduce|to\s+reproduce|reproduc(?:e|tion)\s+steps?|repro\s*:)|"
                           r"复现步骤|复现方法|如何复现|重现步骤|复现[:：]", re.I)
REPRO_SPAN = 400  # a reproduction heading this many characters before the failure covers it
# (就, 则, 便 open the main clause: "如果用 tp=2 就卡住" has its failure there)
_CONDITION_ZH = re.compile(r"(?:如果|假如|假设|要是|若是?|万一|一旦)[^，,。；;！!？?\n就则便]*$")
_MAIN_AFTER = re.compile(r"(?:[^,;，；。.!?！？\n]|\.(?!\s))*?(?:,\s*|，\s*|\s+then\s+)", re.I)
# (review39d: in Chinese 就/则 opens the main clause with no comma, "如果卡住就设置 NCCL_P2P_DISABLE=1")
_MAIN_ZH_AFTER = re.compile(r"了?\s*(?=就|则|那就)")
# (review39d: the condition in the order's own clause; after a colon it opens what follows, "Please try TP=2 on 2
# cards: if it hangs, that is the bug" is a repro)
_ORDER_FIRST = re.compile(r"^[\s*>#-]*(?:" + _ORDER + r")(?:[^.!?。！？:;\n]|\.(?!\s))*?\b(?:if|in\s+case|unless)\b"
                          + _IN_CLAUSE, re.I)
# (fr44) The sentence before a failure word is read back this far at most: each failure word in a long unpunctuated
# run (a paste, "停滞" 2500 times) would otherwise read its whole text from the start, and the per-word checks of
# claims._said went quadratic (2500 matches, 0.7 s).
SENTENCE_SPAN = 500


def advised(text: str, start: int, end: int) -> bool:
    """Is the failure at text[start:end] named only in the condition of advice (see _ORDER): "if it hangs, set ...",
    "in case you see Xid 79, ...", "Reseat the card if ...", "如果出现卡住，就设置 ..."?"""
    before = sentence_before(text, start, SENTENCE_SPAN)  # (text.py's one reading of where a sentence starts)
    if _WRITERS_CONDITION.search(before) or _REPRO_BEFORE.search(text[max(0, start - REPRO_SPAN):start]):
        return False
    if _ORDER_FIRST.search(before) or (_IN_CASE.search(before) and not _IN_CASE_OF_SUBJECT.search(before)):
        return True
    english, chinese = _CONDITION.search(before), _CONDITION_ZH.search(before)
    if not (english or chinese):
        return False
    main = _MAIN_AFTER.match(text, end) or (chinese and _MAIN_ZH_AFTER.match(text, end))
    if not main:
        return False
    return bool(re.match(r"\s*(?:" + _ORDER + ")", text[main.end():], re.I) or
                (chinese and re.match(r"\s*" + _ORDER_ZH, text[main.end():], re.I)))


_CLAUSES = re.compile(r"[,;，；]\s*")


def ordered(sentence: str, at: int) -> bool:
    """Is the text at `at` part of the order that advice under a condition gives ("if it hangs, set
    NCCL_P2P_DISABLE=1", "Set NCCL_P2P_DISABLE=1 if it hangs", "如果出现卡住，就设置 NCCL_P2P_DISABLE=1"): a switch only
    recommended, not in use?"""
    cuts = [m for m in _CLAUSES.finditer(sentence, 0, at)]
    clause = sentence[cuts[-1].end() if cuts else 0:at]
    if not re.match(r"[\s*>#-]*(?:" + _ORDER + "|" + _ORDER_ZH + ")", clause, re.I):
        return False
    if cuts:  # the condition in the clause before the order
        before = sentence[cuts[-2].end() if len(cuts) > 1 else 0:cuts[-1].start()]
        return bool(_CONDITION.search(before) or _CONDITION_ZH.search(before)) and not cuts[-1].group().startswith(";")
    # the order first, its condition after it in the sentence: "Set NCCL_P2P_DISABLE=1 if it hangs"
    return bool(re.search(r"\b(?:if|in\s+case|unless)\b", sentence[at:], re.I))
