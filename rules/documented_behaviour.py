"""Behaviour the tools and engines document as how they work, described in the reporter's own words: PyTorch's
caching allocator holding freed memory, the CUDA context, nvidia-smi's N/A fields and totals, processes hidden by a
container's PID namespace, a memory-mapped model counted as file cache, Ollama's keep-alive and GPU placement, NCCL's
informational lines, idle clocks, CUDA's and nvidia-smi's GPU numbering, what nvidia-smi's utilisation counts, the
GPUs a container sees when it asks for none, Kubernetes giving each GPU to one container. The knowledge is data
(rules/catalog/by_design.toml, each row with its documentation); this rule reads it, and answers `healthy` only where
nothing in the ticket points at a fault."""

from __future__ import annotations

import re

from diagnose.evidence import Facts
from rules import claims
from rules.common import ev, make
from rules.engine import rule
from rules.failure_words import failure_said
from rules.phase_times import minutes as _minutes
from rules.phase_times import rows_said
from rules.ticket_questions import fault_context, figures

# What makes an observation a change rather than how the software works: it was otherwise before.
_WAS_OTHERWISE = re.compile(r"\b(?:(?:used to|no longer|(?:does|did)n['’]t any ?more)\s+"
                            r"(?:be|work|show|free|release|return|list|stay|run|unload|happen)\w*|"
                            r"since (?:the |an? |upgrad\w+|updat\w+)|after (?:the |an? )?(?:update|upgrad\w+)|"
                            r"previously|before the (?:update|upgrade))\b", re.I)


# (review35) The reporter sets the observation aside as not the trouble ("the device ids don't match nvidia-smi, but
# that is not the problem: ...", "GPU-Util is 100 %, which isn't the issue"): the ticket is about something else, which
# the row does not explain.
_SET_ASIDE = re.compile(r"\b(?:that|this|it|which)(?:(?:['’]s|\s+is|\s+was)\s+not|\s+(?:isn['’]t|wasn['’]t))\s+"
                        r"(?:the|my|our)\s+(?:real\s+|main\s+)?(?:issue|problem|question|concern)\b|"
                        r"\bnot\s+(?:what|why)\s+I(?:['’]m|\s+am)\s+asking\b", re.I)

# ... or says it knows the behaviour already ("I know pods can't share a GPU. Our single pod ... is pending"): what it
# asks is something else.
_KNOWN_ALREADY = re.compile(r"\b(?:I|we)\s+(?:already\s+|do\s+)?(?:know|understand|am\s+aware|are\s+aware|reali[sz]e)\b"
                            r"(?:\s+that)?[^.?!\n]{0,10}$", re.I)

# A memory amount in the reporter's words: "24GB", "22.5 GiB", "15360MiB" (GB and GiB taken alike: the row explains
# their difference).
_AMOUNT = re.compile(r"\b(\d+(?:\.\d+)?)\s*(GB|GiB|G|MiB|MB)\b(?!/s)", re.I)


def _amounts_apart(quote: str, within: float) -> bool:
    """Are the last two memory amounts the quote names (the sold and the seen, in either order; an earlier amount
    belongs to another card) further apart than `within` (the smaller below that share of the larger)?"""
    sizes = [float(n) / (1024 if unit.lower() in ("mib", "mb") else 1) for n, unit in _AMOUNT.findall(quote)][-2:]
    return len(sizes) == 2 and min(sizes) < within * max(sizes)


def documented_behaviour_seen(facts: Facts) -> tuple[dict, str, str] | None:
    """(catalog row, source, quote) for the first by_design.toml behaviour a sentence of the reporter's describes, in
    the setting the row names, and that the row's `unless` does not turn into a fault; None when none is."""
    for row, own, i, m in rows_said(facts):
        source, sentence = own[i]
        if "amounts_within" in row and _amounts_apart(m.group(0), row["amounts_within"]):
            continue  # "rated 24GB but only 12GB": more than the documented reserve is missing
        if "longest_minutes" in row and _minutes(sentence, m.span()) > row["longest_minutes"]:
            continue  # a time far past what the documented phase takes: the disk or the build is at fault
        if _SET_ASIDE.search(" ".join(s for _, s in own[i:i + 2])[m.start():]) \
                or _KNOWN_ALREADY.search(sentence[:m.start()]):
            continue  # the reporter says this is not the trouble, or knows it already
        if not claims.conditional(sentence[:m.start()], when=False):
            return row, source, claims._quote(sentence, m, 60)
    return None


@rule("ticket.documented_behaviour", "healthy")
def documented_behaviour(facts: Facts, predictions=None):
    """What the reporter describes is behaviour the tool or engine documents (rules/catalog/by_design.toml), and no
    fault is in sight: no error, hang, crash or out-of-memory, no measured rate to judge, nothing that used to be
    otherwise. Weak (0.6): any observed fault outweighs it."""
    found = documented_behaviour_seen(facts)
    if found is None:
        return
    row, source, quote = found
    # a row's `explains` names the claim families that are its own observation read as a fault ("NET/IB : No device
    # found" is the net_socket family; on one node it is the behaviour documented), so they do not stop it
    # (bydesign36) the reporter's own label ("bug", "issue", "error") is their guess about this very observation, not
    # a fault in sight: labels=False; an error line, a traceback, a hang, a crash or an OOM still shut the row
    excused = tuple(row.get("explains", ()))
    if claims.symptom(facts) in ("hang", "crash") or fault_context(facts, excused, labels=False) \
            or claims.out_of_memory(facts) or figures(facts) or claims.find(facts, "hang") \
            or failure_said(facts, row.get("explains_failure")):
        return
    if _WAS_OTHERWISE.search(" ".join(t for _, t in claims.own_sentences(facts))):
        return  # a change: by-design behaviour does not start with an update
    yield make("ticket.documented_behaviour", "healthy", "ok", 0.6, row["title"], row["why"],
               [ev(source, f'what the reporter sees: "{quote}"')], fix=row["fix"], refs=[row["url"]])
