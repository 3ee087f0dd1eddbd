"""Undo what pasting does to tool output, so each parser sees plain lines.

People paste through terminals, chat tools and job launchers: ANSI colours, CRLF, MPI rank
prefixes (`[1,0]<stdout>:`), `srun -l` labels (`3: `), Ray worker prefixes. Parsers call
`lines(text)` and get (1-based line number, cleaned line) pairs; the numbers still point at
the original file, so evidence quotes the right line.
"""

from __future__ import annotations

import bisect
import functools
import re

from diagnose.evidence import Workload, where

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")
LAUNCHER_PREFIX = re.compile(
    r"^\s*(?:"
    r"\[\d+,\d+\]<(?:stdout|stderr)>:\s?"  # Open MPI --tag-output
    r"|\[1,\d+\]:\s?"  # mpirun -tag-output variants
    r"|\((?:RayWorkerWrapper|RayWorker|pid)[^)]*\)\s*"  # Ray worker output
    r"|\d{1,4}:\s(?=\S)"  # srun -l / torchrun --tee labels
    r")"
)


# A bare rank tag, "[0] ", as MPICH/Hydra's -prepend-rank and mpirun --tag-output variants write it. Taken
# off only where it cannot be content: when the same tag recurs in the line (each write the program made
# tagged again: "[0]  1048576 ... -1[0]  1626.5 ...") or a comment follows it ("[0] # nThread 1 ...");
# a lone "[0] NVIDIA ..." (gpustat's GPU index) stays.
RANK_TAG = re.compile(r"^\s*(\[\d{1,5}\])")


def clean(line: str) -> str:
    """One line without colour codes, carriage returns and launcher prefixes."""
    line = ANSI.sub("", line).replace("\r", "").replace("\x00", "")
    previous = None
    while previous != line:  # prefixes can stack: "[1,0]<stdout>:0: ..."
        previous = line
        line = LAUNCHER_PREFIX.sub("", line, count=1)
    tag = RANK_TAG.match(line)
    if tag and (line.count(tag[1]) > 1 or line[tag.end():].lstrip().startswith("#")):
        line = line[tag.end():].replace(tag[1], " ")
    return line


# Sentence bounds: one reading of where a sentence of prose ends, for every reader of prose (the parsers here and the
# claims in rules/). A sentence ends at ". " "! " "? " (or the mark at the text's end, or right before a Chinese,
# Japanese or Korean character, which such posts write with no space: "卡住了?然后"), at a CJK full stop, exclamation
# or question mark (。！？, which take no space after them), and at a line's end (callers that split per line never
# see one). Not at a dot with no space after it: a version (0.6.3, v2.18.1), a decimal (1.5x, 3.2 GB/s), a file name
# (config.json, libnccl.so.2), a URL. Not after an abbreviation that leads into more of its sentence (e.g., i.e.,
# vs., cf.); "etc." ends one unless its sentence goes on, a joining word, a verb or a mark after it ("IB etc. are
# off", "any tricks etc. do increase the speed", "P2P, IB etc., and", "(IB etc.)"): not before "upgrading ...". A
# mark inside closing quotes or brackets ends it after them ('... set X=1." We run'). A mark with no space after it
# ends one where a lowercase word ends before it and a word that only opens a sentence follows ("fixes it.But with
# X"): a module path (torch.Tensor, nn.Module) has a class name there, never one of these words. With `semicolon`,
# "; " ends one too (readers that take a clause after ";" as a sentence of its own).
_CJK_CHAR = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_ETC_GOES_ON = (r"(?!\s*[,;:)\]]|\s+(?:and|or|nor|but|in|on|with|for|to|as|at|of|from|that|which|all|are|is|were|was"
                r"|be|been|have|has|had|do|does|did|don't|doesn't|didn't|can|could|will|would|should|may|might|must"
                r"|won't|can't|cannot|help|helps|helped|make|makes|made|seem|seems|work|works|worked)\b)")
_CLOSERS = r"[\"'\u201d\u2019)\]]*"
_OPENER = (r"(?:But|And|Then|So|However|Also|Now|Still|Even|When|After|If|With|Without|The|This|That|It|We|I|My|Our"
           r"|They|Any|Is|Does|Do|Can|Could|Has|Have|Why|How|What|Here|There|Please|Thanks|Setting|Using)\b")
_EN_MARK = (r"(?:(?:(?<!\b[eE]\.[gG])(?<!\b[iI]\.[eE])(?<!\b[vV][sS])(?<!\b[cC][fF])(?<!\b[eE][tT][cC])[.!?]|"
            r"(?<=\b[eE][tT][cC])\." + _ETC_GOES_ON + r")" + _CLOSERS + r"(?P<e>)"
            + r"(?=\s|$|[" + _CJK_CHAR + r"])"
            + r"|(?<=[a-z]{2})[.!?](?P<f>)(?=" + _OPENER + r"))")
# (semicolon, questions) -> the pattern; with `questions` False a question mark (? or ？) ends no sentence, for
# readers that take a question and the answer after it as one ("Does X=1 help? No, it still hangs.": claims'
# settings and remedies).
_SENTENCE_ENDS = {(semicolon, questions): re.compile(
    r"(?:" + (_EN_MARK if questions else _EN_MARK.replace("[.!?]", "[.!]"))
    + (r"|;(?=\s|$)" if semicolon else "") + (r"|[。！？]" if questions else r"|[。！]") + r"|\n)\s*")
    for semicolon in (False, True) for questions in (False, True)}
SENTENCE_END = _SENTENCE_ENDS[False, True]
# A clause's bound inside a sentence, where a reading needs clauses (the Chinese ones): a comma, semicolon or colon,
# full width or not.
CLAUSE_MARK = re.compile(r"[，,；;：:]")


@functools.lru_cache(maxsize=256)
def _ends(text: str, semicolon: bool, questions: bool = True) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(where each sentence end's mark is, where the next sentence starts: past the mark and the space after it), per
    text, kept (a string: never stale); readers ask for many positions of one text."""
    found = list(_SENTENCE_ENDS[semicolon, questions].finditer(text))
    return tuple(_mark(m) for m in found), tuple(m.end() for m in found)


def _mark(m: re.Match) -> int:
    """Where an end's last mark character is: the closing quote or bracket after the mark where there is one."""
    for group in ("e", "f"):
        if m.start(group) >= 0:
            return m.start(group) - 1
    return m.start()


def sentence_start(text: str, pos: int, span: int | None = None, *, semicolon: bool = False,
                   questions: bool = True) -> int:
    """Where the sentence holding `pos` starts: past the last sentence end before `pos` and its space, read back at most
    `span` characters where given (the start is then `pos - span` where no end is nearer)."""
    lo = 0 if span is None else max(0, pos - span)
    marks, starts = _ends(text, semicolon, questions)
    i = bisect.bisect_left(marks, pos) - 1
    return lo if i < 0 or marks[i] < lo else min(starts[i], pos)


def sentence_end(text: str, pos: int, span: int | None = None, *, semicolon: bool = False,
                 questions: bool = True) -> int:
    """Where the sentence holding `pos` ends: right after its end mark at or after `pos`; the text's end (or
    `pos + span` where given) where none is nearer."""
    hi = len(text) if span is None else min(len(text), pos + span)
    marks, _ = _ends(text, semicolon, questions)
    j = bisect.bisect_left(marks, pos)
    return marks[j] + 1 if j < len(marks) and marks[j] < hi else hi


_CLOSER_CHARS = "\"'\u201d\u2019)]"


def next_sentence(text: str, pos: int, span: int | None = None, *, marks: str = ".!?。！？") -> int | None:
    """Where the sentence after `pos`'s starts (past its end and the space after it), where `pos`'s sentence ends at one
    of `marks` within `span` characters; None where it ends otherwise (a line's end, another mark) or runs on past
    `span` (launch._adopted: the sentence after a setting's, where the setting's ends with "." or "!")."""
    hi = len(text) if span is None else min(len(text), pos + span)
    ends, starts = _ends(text, False, True)
    j = bisect.bisect_left(ends, pos)
    if j == len(ends):
        return None
    k = ends[j]
    while text[k] in _CLOSER_CHARS:  # the mark itself, before the closing quotes or brackets after it
        k -= 1
    return starts[j] if k < hi and text[k] in marks else None


def sentence_before(text: str, pos: int, span: int | None = None, *, semicolon: bool = False) -> str:
    """The words of `pos`'s sentence before it."""
    return text[sentence_start(text, pos, span, semicolon=semicolon):pos]


def sentences(text: str, *, semicolon: bool = False) -> list[str]:
    """The sentences of `text`, each with its end mark (not a line's end) and without the space after it; none
    empty."""
    out, at = [], 0
    for mark, start in zip(*_ends(text, semicolon, True)):
        piece = text[at:mark + (text[mark] != "\n")]
        if piece:
            out.append(piece)
        at = start
    if at < len(text):
        out.append(text[at:])
    return out


def clause_before(text: str, pos: int, span: int | None = None) -> str:
    """The words of `pos`'s clause before it: back to the sentence's start or the last clause mark (CLAUSE_MARK)."""
    return CLAUSE_MARK.split(sentence_before(text, pos, span))[-1]


# An English clause's bound inside a sentence, where a word must govern the claim beside it rather than the next
# thing the sentence goes on to: ", so", ", and", ", but", "; ", " but ", "and the/then/it/we ...", "so the ...", "and"
# before a subject of its own and its verb ("and idle GPUs are fine") ("P2P
# is off because the GPUs sit on two sockets, so the bandwidth test cannot ...": "cannot" is the test's).
CLAUSE_BREAK = re.compile(r",\s+(?:so|and|but|which|while|then|though|although)\b|;\s|\s+but\s|"
                          r"\s+(?:and|so)\s+(?:the|then|it|we|they|our|my|its|this|that|also)\b|"
                          r"\s+and\s+(?=(?:[a-z]\w*\s+){1,2}(?:is|are|was|were)\b)", re.I)


def clause_around(sentence: str, start: int, end: int | None = None) -> str:
    """The clause of `sentence` holding `start`..`end` (one position where `end` is not given): back to the last
    CLAUSE_BREAK before `start` and on to the first one after `end`, or the sentence's bounds."""
    end = start if end is None else end
    lo, hi = 0, len(sentence)
    for m in CLAUSE_BREAK.finditer(sentence):
        if m.end() <= start:
            lo = m.end()
        elif m.start() >= end:
            hi = m.start()
            break
    return sentence[lo:hi]


def lines(text: str) -> list[tuple[int, str]]:
    """(line number, cleaned line) for every line of `text`."""
    return [(n, clean(line)) for n, line in enumerate(text.splitlines(), start=1)]


def number(token: str) -> float | None:
    """A float from a printed cell ('43.04', '1e-07', '1,234.5'), or None ('N/A', '-nan')."""
    try:
        value = float(token.replace(",", ""))
    except (ValueError, AttributeError):
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return value


def integer(token: str) -> int | None:
    value = number(token)
    return int(value) if value is not None and value == int(value) else None


def to_int(value) -> int | None:
    """An integer from a flag value or JSON field ('8', 8), or None; '8.0' and 'auto' are None."""
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def split_gpus_used(proportions: str) -> int:
    """The GPUs a memory or tensor split ("3,1", "11/9", "0,1,1") puts weights on: its proportions above zero (ExLlama's
    gpu_split, llama.cpp's --tensor-split). A part that is no number raises ValueError."""
    return sum(1 for part in re.split(r"[,/]", proportions) if float(part) > 0)


# A negated auxiliary's ending as people type it: "n't", the typographic "n’t", and in hurried writing the apostrophe
# left out after the auxiliary ("didnt", "doesnt", "isnt", "wont", "cant"): "both didnt work" denies as "didn't" does.
# (the stems are named, so a word that merely ends in "nt", "sent", "went", "different", is no negation; after a
# word that ends the auxiliary, as launch.OFF_AFTER's "did", the ending alone is "n['’]?t")
NOT_ENDING = r"(?:n['’]t|\b(?:do|does|did|is|was|are|were|has|have|had|could|would|should|ca|wo)nt)\b"

# A change said to have done nothing, as people write it: "it had no effect", "made no difference", "they make no
# difference for performance" (NVIDIA/nccl#499), "it take **no effects**" (NVIDIA/nccl#378, the verb's tense and the
# Markdown emphasis as typed), "showed no improvement", "has no impact". The verb is named, so "no effect on
# correctness" alone, or "the effect was large", is not it. (launch.OFF_AFTER: the setting is not what runs;
# claims._effect: the setting did not help)
NO_EFFECT = (r"\b(?:ha(?:s|d|ve)|ma(?:de|kes?)|t(?:ake|akes|ook|aken)|show(?:s|ed)?|g(?:ive|ives|ave)|"
             r"br(?:ing|ings|ought))\s+[*_]{0,2}(?:absolutely\s+)?no\s+(?:real\s+|visible\s+|noticeable\s+|"
             r"obvious\s+|significant\s+|measurable\s+)?(?:effects?|difference|change|impact|improvement|gain)\b")


# The name's end: a word edge, or a release glued to it ("vLLM0.11.0", vllm-project/vllm#27400).
_NAME_END = r"(?:\b|(?=v?\d+\.\d))"
# Serving engines and inference frameworks as people name them in prose ("on vLLM 0.6.3",
# "sglang", "TensorRT-LLM", "TGI"). The name is kept as written; the rules resolve it.
ENGINE_WORD = re.compile(
    r"\b(vllm|sglang|tensorrt[-_ ]?llm|trt[-_ ]?llm|text[-_ ]generation[-_ ]inference|TGI|lmdeploy|"
    r"deepspeed(?:[-_ ]mii)?|fastertransformer|llama\.cpp|llama[-_](?:bench|server|cli|cpp[-_]python)|"
    r"exllama(?:v2)?|ollama|gpt-fast|"
    r"megatron(?:-lm)?|"
    r"text[-_ ]generation[-_ ]webui|oobabooga|koboldcpp|lm[-_ ]?studio|"
    # (`accelerate launch|config|env|test` is Accelerate's launcher and set-up CLI, which starts any script, not a model
    # runner: https://huggingface.co/docs/accelerate/package_reference/cli)
    r"transformers|accelerate(?!\s+(?:launch|config|env|test|estimate-memory)\b))" + _NAME_END,
    re.I,
)


# A form's field answered no ("是否启用VLLM：否", "use vLLM: no", "vllm = false"): the engine named is not in use.
# The answer ends its field, at a stop, a space (the form's lines come joined) or where the next field starts (a short
# label and its colon, "Use vLLM: No OS: Ubuntu 22.04"): "ollama: no compatible GPUs were discovered", "vLLM: No NCCL
# errors in the log" and "vLLM：没有报错" (no error) say something of the engine in use, not that it is not.
_FIELD_END = (r"(?:\s*(?:$|[,.;|)，。；、])|"
              r"\s+(?-i:[A-Z\u4e00-\u9fff])[^\s:：=]{0,24}(?:\s+[^\s:：=]{1,24}){0,2}\s*[:：=])")
ANSWERED_NO = re.compile(r"\s*[:：=]\s*(?:(?:否|不是|没有)(?:\s|" + _FIELD_END + r")|(?:no|none|false|off|n/a)"
                         + _FIELD_END + ")", re.I)


# An engine named by its own environment settings, written as the engine documents them: Ollama's OLLAMA_* (docs/faq.md;
# envconfig/config.go: OLLAMA_SCHED_SPREAD, OLLAMA_NUM_PARALLEL, OLLAMA_KEEP_ALIVE), vLLM's VLLM_* (vllm/envs.py:
# VLLM_ATTENTION_BACKEND, VLLM_USE_V1), SGLang's SGLANG_* (python/sglang/srt/environ.py). Upper case and at a word's
# start: "USE_VLLM_CUSTOM_ALLREDUCE" is SGLang's setting about a vLLM kernel, not vLLM running.
ENGINE_SETTING = re.compile(r"\b(OLLAMA|VLLM|SGLANG)_[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\b")


# An engine only compared with: the object of a comparison ("faster than TGI", "vs. SGLang", "compared to vLLM",
# "unlike Ollama", "instead of vLLM", "rather than TGI"), which the writer measured against or did not use. The
# comparison's subject ("vLLM is faster than TGI") is not taken away.
COMPARED_BEFORE = re.compile(r"(?:\bthan|\bvs\.?|\bversus|\bcompared\s+(?:to|with)|\bunlike|\binstead\s+of|"
                             r"\bswitch(?:ed|ing)?\s+from|\bmigrat(?:ed|ing)\s+from)\s+(?:(?:the|a|an|with|on|in|using)\s+)?$",
                             re.I)


def _in_link(text: str, m: re.Match) -> bool:
    """Is the name inside a web address ("https://github.com/vllm-project/vllm/issues/1", "docs.vllm.ai/...")?"""
    start = max(text.rfind(" ", 0, m.start()), text.rfind("(", 0, m.start()), text.rfind("<", 0, m.start())) + 1
    token = text[start:m.end()]
    return "://" in token or re.match(r"(?:www\.|github\.com/|huggingface\.co/|docs\.)", token) is not None or \
        bool(re.match(r"\.[a-z]{2,4}/", text[m.end():m.end() + 5]))


# (normal35) "accelerate" as the English verb, not Hugging Face Accelerate: after "to", a modal or a subject pronoun
# ("can accelerate inference", "how to accelerate", "when I accelerate inference": imoneoi/openchat#114, a vLLM-based
# server), or before the work it would speed or an object ("accelerate inference", "accelerate the generation",
# "accelerate it") where no preposition names the library ("with accelerate the layers run one after another", "using
# accelerate, the model ..."). The library is a noun: "accelerate 0.30", "accelerate's device_map", "import
# accelerate", "for accelerate to take".
# (normal45) The work it speeds may be training ("In what cases will tp_comm_overlap accelerate training",
# NVIDIA/Megatron-LM#2662, read as Accelerate's layer split of a Megatron TP8 job; "Large batch sizes can accelerate
# training", "Pretrained features accelerate training", "helpful to accelerate training" in public docs), but not the
# library's own training script, mode or job ("Running accelerate training script...", "Using accelerate training
# mode...", "SageMaker Accelerate Training Script").
# (fr45) ... and before training only with a subject to do it: an auxiliary a word or two back ("will tp_comm_overlap
# accelerate training", "Does NVLink accelerate training", "doesn't TP=4 accelerate"), a name in code (an underscore:
# "tp_comm_overlap accelerate training") or a plural noun ("Pretrained features accelerate training"). After a
# possessive, a determiner or an adjective (even after an auxiliary: "Why does our accelerate training hang?") the
# word is the library's name modifying the training: "Our accelerate
# training on 8x H100 hangs", "HF accelerate training with device_map=auto is slow", "Slow accelerate fine-tuning with
# FSDP".
_TRAINING = (r"(?:training|fine-?tuning)(?!\s+(?:scripts?|mode|loop|jobs?|runs?|config\w*|launcher|commands?)\b)")
# (fr45r2) ... but not an adjective or possessive after the auxiliary ("Why does multi-node accelerate training
# hang?", "does distributed accelerate training ..."), nor a plural noun in a phrase of place or time ("On 2 nodes
# accelerate training hangs", "Across 8 GPUs accelerate fine-tuning takes 3x longer", "In my tests accelerate training
# was slower"): the library's name modifying the training there.
_NOT_SUBJECT = (r"(?:multi|single|cross|distributed|parallel|our|my|your|their|his|her|its|the|this|that|these|those|"
                r"HF|hugging|local|remote|native|plain|full|mixed|default|whole|entire)\b")
_TRAINING_SUBJECT = re.compile(r"(?:\b(?:does|do|did|will|would|can|could|should|may|might|must)(?:n['’]?t)?\s+"
                               r"(?!" + _NOT_SUBJECT + r")\S+(?:\s+(?!" + _NOT_SUBJECT + r")\S+)?|\bit|"
                               r"\b\w*[A-Za-z0-9]_\w+|(?P<plural>\b(?!(?:this|thus|plus|was|has|does|is|its|his|"
                               r"ours|yours|theirs|less|various)\s)[A-Za-z][\w-]+[^s\W]s))\s+$", re.I)
_PLACE_BEFORE = re.compile(r"\b(?:on|across|in|with|since|for|at|over|under|from|by|during|after|before|within|"
                           r"between|among|per|via|using|through|throughout)\s+(?:[\w-]+\s+){0,2}$", re.I)
_DETERMINER_BEFORE = re.compile(r"\b(?:the|a|an|our|my|your|their|his|her|its|this|that|these|those|HF|hugging\s*face)"
                                r"\s+$", re.I)
_VERB_BEFORE = re.compile(r"(?:\bto|\bcan|\bcould|\bwill|\bwould|\bshould|\bmay|\bmight|\bmust|\bI|\bwe|\byou|\bthey|"
                          r"\bnot|n['’]t|\bhelps?|\bhelped)\s+$", re.I)
_VERB_OBJECT = re.compile(r"\s+(?:inference|generation|decoding|prefill|throughput|the|this|that|these|those|it|its|my|"
                          r"our|your|their|(" + _TRAINING + r"))\b", re.I)
_LIBRARY_BEFORE = re.compile(r"(?:\bwith|\busing|\buse|\bvia|\bby|\bfrom|\bimport|\bin|\band|\bor|[+,`(/])\s*$", re.I)


def _accelerate_verb(text: str, m: re.Match) -> bool:
    """Is this "accelerate" the verb (speed up), not the Hugging Face library?"""
    if m.group(1).lower() != "accelerate":
        return False
    before = text[max(0, m.start() - 40):m.start()]
    if _VERB_BEFORE.search(before[-20:]):
        return True
    obj = _VERB_OBJECT.match(text, m.end())
    if not obj or _LIBRARY_BEFORE.search(before[-20:]):
        return False
    if obj.group(1) is None:
        return True
    subject = _TRAINING_SUBJECT.search(before)
    return bool(subject) and not _DETERMINER_BEFORE.search(before) and \
        not (subject.group("plural") and _PLACE_BEFORE.search(before, 0, subject.start("plural")))


def _said(text: str) -> list[re.Match]:
    """The engines `text` names, as ENGINE_WORD matches, but those answered no or only compared with, and the verb
    "accelerate"."""
    return [m for m in ENGINE_WORD.finditer(text) if not ANSWERED_NO.match(text, m.end())
            and not COMPARED_BEFORE.search(text[max(0, m.start() - 40):m.start()]) and not _accelerate_verb(text, m)]


def engines_named(text: str) -> list[str]:
    """Every engine name `text` says (engine_named's reading, links included), as written, first said first."""
    return list(dict.fromkeys(m.group(1) for m in _said(text or "")))


def engine_named(text: str) -> str | None:
    """The first serving engine or framework named in `text` (and not answered no, nor only compared with:
    COMPARED_BEFORE), as written, or by its own environment setting ("OLLAMA_SCHED_SPREAD=1" names Ollama); None when
    none is. A name inside a web address counts only where no plain mention does: a link to an engine's own
    repository is mostly the issue template or discussion of the repository the ticket was filed in ("raise a
    discussion at https://github.com/sgl-project/sglang/discussions", "Discussed in https://github.com/vllm-project/
    vllm/discussions/..."; six development cases carry their engine only so), but an engine the writer names in words
    is the one they speak of ("I followed the vLLM docs at https://docs.vllm.ai/..., on TGI")."""
    text = text or ""
    said = _said(text)
    # (review34) an engine the text compares with anywhere ("poor performance compared to vllm" in the title) is the
    # reference arm where it is named again alone (a "vllm" header over its figures): another serving engine named
    # goes first. Not a release compared with ("compared to vLLM 0.5.3": the same engine's older release), and not
    # the libraries every engine lists among its dependencies ("transformers 4.44" in the environment).
    compared = {m.group(1).lower() for m in ENGINE_WORD.finditer(text)
                if COMPARED_BEFORE.search(text[max(0, m.start() - 40):m.start()])
                and not re.match(r"\s*v?\d+\.\d", text[m.end():])}
    plain = [m for m in said if not _in_link(text, m)]
    named = next((m for m in plain if m.group(1).lower() not in compared
                  and not (compared and m.group(1).lower() in ("transformers", "accelerate"))),
                 plain[0] if plain else said[0] if said else None)
    setting = ENGINE_SETTING.search(text)
    first = min((m for m in (named, setting) if m), key=lambda m: m.start(), default=None)
    return first.group(1) if first else None


# A release written right after an engine's name, as pip, `vllm --version` and people write it: "vLLM 0.21.0",
# "vllm==0.21.0", "vllm == 0.6.3", "vLLM version: 0.21.0", "version : 0.6.3", "SGLang v0.4.1", "vllm-0.14.0",
# "vLLM - 0.6.3", an image tag "text-generation-inference:2.0.4", "vllm：0.3.3" (the full-width colon a Chinese
# keyboard types, which text.cjk_spaced sets apart: "vllm ： 0.3.3").
# (a figure with its unit is no release: "vLLM 12.5 tok/s", "vLLM 1.5 s", "running vLLM 2.5 hours"; nor is a pip
# bound: "vllm>=0.5.0" and "vllm<0.7" name a range of releases)
_UNIT_AFTER = (r"\s*(?:[%x×]|[a-z]+/s\b|m?s\b|sec|[MGT]i?B|tokens?|t/s|tps\b|h\b|hrs?\b|hours?\b|min(?:s|utes?)?\b|"
               r"days?\b|weeks?\b|times\b)")
# separators: "==" and "version" say release with or without spaces; a colon, dash or "@" says it unspaced (a pip
# file name, an image tag: "vllm-0.14.0", "tgi:2.0"), and spaced it labels a figure as often ("vllm : 35.2"); CJK text
# puts a full-width comma or an ideographic comma between the name and its release ("sglang，0.4.0.post2",
# sgl-project/sglang#2805), read as a spaced separator is (\s covers the ideographic space)
_RELEASE_AFTER = re.compile(r"(\s*==?\s*|\s+version\s*[:=：]?\s*|[-@:：]|\s*[-–@:：，、]\s*|\s+)?\(?"
                            r"(v?\d+\.\d+(?:\.\d+)?(?:\.?post\d+|rc\d+)?)\b(?!" + _UNIT_AFTER + ")", re.I)
# ... nor is one figure of a list that shares the unit written after the last: "vLLM 12.3, SGLang 15.1 tok/s",
# "vLLM 41.2 and TGI 38.9 tokens/s" (CJK lists: full-width comma and semicolon, ideographic comma)
_LIST_OF_FIGURES = re.compile(r"\s*(?:[,;/，；、]|\band\b|\bvs\.?|\bversus\b|\bor\b)\s*"
                              r"(?:[A-Za-z][\w.+-]*\s*){0,3}[:=]?\s*~?\d+(?:\.\d+)?" + _UNIT_AFTER, re.I)
# ... nor the first of a range or a list of releases ("vLLM 0.5.4 - 0.6.3", "vllm 0.6.x through 0.7.2", "vLLM 0.5.4,
# 0.6.0 and 0.6.3 all hang"): which of them runs is not said there (CJK lists and ranges: full-width comma, ideographic
# comma, full-width tilde and wave dash)
_MORE_RELEASES = re.compile(r"(?:\.x)?\s*(?:[-–~/,，、～〜]|\.\.|\bthrough\b|\bthru\b)\s*v?\d+\.(?:\d+|x)", re.I)
# The majors each engine has released (PyPI / GitHub release histories): a bare "X.Y" with neither "v", "==" nor
# "version" before it is read as a release only inside them; "v", "==", "version" or a third part say so anyway.
# https://pypi.org/project/vllm/#history, https://pypi.org/project/sglang/#history,
# https://github.com/huggingface/text-generation-inference/releases, https://pypi.org/project/tensorrt-llm/#history,
# https://pypi.org/project/lmdeploy/#history, https://pypi.org/project/deepspeed/#history,
# https://github.com/ollama/ollama/releases, https://pypi.org/project/transformers/#history,
# https://pypi.org/project/accelerate/#history, https://pypi.org/project/exllamav2/#history,
# https://github.com/LostRuins/koboldcpp/releases, https://github.com/oobabooga/text-generation-webui/releases
RELEASE_MAJORS = {"vllm": (0,), "sglang": (0,), "tgi": (0, 1, 2, 3), "textgenerationinference": (0, 1, 2, 3),
                  "tensorrtllm": (0, 1), "trtllm": (0, 1), "lmdeploy": (0,), "deepspeed": (0,), "deepspeedmii": (0,),
                  "ollama": (0,), "transformers": (2, 3, 4, 5), "accelerate": (0, 1), "exllamav2": (0,),
                  "koboldcpp": (1,), "textgenerationwebui": (1, 2, 3), "megatron": (0,), "megatronlm": (0,)}


# A release written without the zero major of an engine whose releases are all 0.x: "vllm version 10", "vllm v10"
# (0.10; vllm-project/vllm#22479, linagora/openrag#55). "v" or "version" must say it (a bare "vllm 10" is a count:
# "run vllm 10 times"), and the minor is 2 or more: vLLM's engine generations are "V0" and "V1"
# (https://docs.vllm.ai/en/latest/usage/v1_guide.html), never releases; not "version 10 of" something else.
_MINOR_ONLY = re.compile(r"\s*(?:\s+version\s*[:=]?\s*|v)([2-9]|[1-4]\d)\b(?![.,]\d)(?!\s+of\b)", re.I)


def engine_release(text: str, name: str) -> str | None:
    """The release written right after the first mention of engine `name` that has one ("vLLM 0.21.0"); None when
    no mention has. A bare two-part number (or one after a spaced colon or dash) is a release only in the engine's own
    range and not as one figure of a list that shares a rate unit; the first of a range or list of releases is none."""
    majors = RELEASE_MAJORS.get(re.sub(r"[-_ ]", "", name.lower()), ())
    for m in re.finditer(r"\b" + re.escape(name) + _NAME_END, text or "", re.I):
        v = _RELEASE_AFTER.match(text, m.end())
        if v is None and majors == (0,) and (minor := _MINOR_ONLY.match(text, m.end())):
            return f"0.{minor.group(1)}"  # "vllm v10", "vllm version 10": 0.10 of an engine whose releases are 0.x
        if v is None or _MORE_RELEASES.match(text, v.end()):
            continue
        release, sep = v.group(2), (v.group(1) or "").lower()
        if release.count(".") >= 2 or release[:1] in "vV" or "=" in sep or "version" in sep or sep in ("-", "@", ":",
                                                                                                        "："):
            return release
        if int(release.split(".")[0]) in majors and not _LIST_OF_FIGURES.match(text, v.end()):
            return release
    return None


# Weight quantisation as model names and engines spell it, as the weight dtype the predictor knows:
# AWQ / GPTQ / bitsandbytes 4-bit / GGUF Q2-Q5 / EXL2 store about 4 bits a weight (int4), GGUF Q6-Q8
# / W8A8 / 8-bit about 8 (int8). NVFP4 (and a bare FP4) stores 4-bit floats with an FP8 scale per 16
# values, about 4.5 bits a weight, every linear layer included: int4 to the predictor (MXFP4 stays the
# GPT-OSS experts-only format the catalog knows).
# https://huggingface.co/docs/transformers/main/en/quantization/overview,
# https://github.com/ggml-org/llama.cpp/blob/master/tools/quantize/README.md,
# https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-precision-inference/
# The checkpoints' own naming conventions, each read here:
# - AWQ: '-AWQ' (https://qwen.readthedocs.io/en/latest/quantization/awq.html: Qwen2.5-7B-Instruct-AWQ, 4-bit);
# - GPTQ: '-GPTQ-Int4' / '-GPTQ-Int8' (https://qwen.readthedocs.io/en/latest/quantization/gptq.html), or the bits
#   in a branch name ('gptq-8bit-128g-actorder_True', https://huggingface.co/TheBloke/Llama-2-70B-GPTQ); a bare
#   '-GPTQ' is the 4-bit default;
# - FP8: '-FP8', '-FP8-Dynamic' (https://docs.vllm.ai/projects/llm-compressor/en/stable/examples/quantization_w8a8_fp8/);
# - llm-compressor schemes: 'quantized.w4a16', 'quantized.w8a8' (INT8 weights), 'W8A8-FP8'
#   (https://github.com/vllm-project/llm-compressor/tree/main/examples/quantization_w4a16, .../quantization_w8a8_int8;
#   https://huggingface.co/neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w8a8);
# - bitsandbytes: '-bnb-4bit', '-unsloth-bnb-4bit' (https://huggingface.co/unsloth/Meta-Llama-3.1-8B-Instruct-bnb-4bit);
# - EXL2: '-exl2' with its average bits per weight, '4.65bpw', '8.0bpw-h8' (https://github.com/turboderp/exllamav2:
#   2 to 8 bits a weight); a stated bit count goes to the nearer of 4 and 8 bits in ratio (their geometric middle is
#   5.66: below 6 bits int4, from 6 int8), and the bits, where stated, decide over the format's 4-bit default;
# - GGUF types: Q2_K..Q5_K_M, IQ*, Q6_K, Q8_0 (llama.cpp's quantize README above).
# MLX checkpoints ('mlx-community/...-4bit') run on Apple silicon, not on NVIDIA GPUs: no convention of theirs is
# read here (their '4bit' reads as any bit count does).
_BITS = r"(?<![a-z0-9.])(?:{})(?:\.\d+)?[-_ ]?(?:bits?|bpw)(?![a-z0-9])"
QUANT_DTYPES = (
    ("fp8", re.compile(r"(?<![a-z0-9])fp8(?![a-z0-9])", re.I)),
    ("int8", re.compile(_BITS.format("[6-8]") + r"|(?<![a-z0-9])(?:int8|w8a8|w8a16|q[68](?:_k)?(?:_[a-z0-9]+)?)"
                        r"(?![a-z0-9])", re.I)),
    ("int4", re.compile(_BITS.format("[2-5]") + r"|(?<![a-z0-9])(?:awq|gptq|int4|w4a16|w4a8\w*|w4a4|nvfp4|fp4|nf4|"
                        r"q[2-5](?:_k)?(?:_[a-z0-9]+)?|iq[1-4]\w*|exl2)(?![a-z0-9])", re.I)),
)


def quant_dtype(text: str | None) -> str | None:
    """'int4', 'int8' or 'fp8' when `text` (a model name, a launch option) names a weight
    quantisation; None when it names none."""
    for dtype, pattern in QUANT_DTYPES:
        if text and pattern.search(text):
            return dtype
    return None


# 16-bit weights as a results table names its column ("W16A16 (TPS)", "FP16", "bf16 tok/s", "half").
SIXTEEN_BIT = re.compile(r"(?<![a-z0-9])(?:(fp16|f16|float16|half|w16a16|16[-_ ]?bit)|(bf16|bfloat16))(?![a-z0-9])",
                         re.I)


def weight_dtype_named(text: str | None) -> str | None:
    """The weight format a table header names: quant_dtype's 'int4' / 'int8' / 'fp8', else 'fp16' or 'bf16'."""
    if found := quant_dtype(text):
        return found
    m = SIXTEEN_BIT.search(text or "")
    return None if m is None else "fp16" if m.group(1) else "bf16"


# A tokens-per-second unit in a header ("W4A16 (TPS)", "tok/s", "t/s", "tokens per second").
HEADER_RATE = re.compile(r"(?<![a-z])(?:tps|tok(?:en)?s?\s*/\s*s(?:ec)?|t/s|tokens?\s+per\s+second)(?![a-z])", re.I)
# One figure in a cell, approximate or not, with the unit or without: "~52.2", "≈ 45", "71.8 tok/s".
CELL_FIGURE = re.compile(r"[~≈]?\s*(\d+(?:\.\d+)?)\s*(?:tok(?:en)?s?\s*/\s*s|t/s|tps)?", re.I)


def table_cells(line: str) -> list[str]:
    """The cells of a Markdown table row, stripped ("| a | b |" -> ["a", "b"]): one splitter for every table reader."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


# A size in a header ("fp16 (GB)", "VRAM"): the column's figures are memory, not rates.
MEMORY_UNIT = re.compile(r"(?<![a-z])(?:[KMGT]i?B|VRAM|memory|size)(?![a-z/])", re.I)


def dtype_columns(lines: list[tuple[int, str]]) -> list[tuple[int, str, str, float]]:
    """(line, row label, weight dtype, figure) for each cell of a Markdown table that sets weight formats side by
    side, one column each ("| Model | W16A16 (TPS) | W8A16 (TPS) | W4A16 (TPS) |", "| model | fp16 | int4 |"), where
    the header or the caption line just above it says the figures are tokens per second (a rate said elsewhere in
    the ticket does not make a table of sizes rates). The row label is the first cell that is no figure."""
    out = []
    k = 0
    while k < len(lines):
        head = table_cells(lines[k][1])
        k += 1
        dtypes = {j: d for j, c in enumerate(head) if (d := weight_dtype_named(c))}
        if len(set(dtypes.values())) < 2:
            continue
        # (looked up only for a header that sets formats side by side: a look-back from every line cost n squared
        # steps over a run of blank lines)
        caption = next((ln for _, ln in reversed(lines[:k - 1]) if ln.strip()), "")
        caption = "" if "|" in caption else caption
        said = [*head, caption]
        if not any(HEADER_RATE.search(c) for c in said) \
                or any(MEMORY_UNIT.search(c) for c in head):  # (a caption may name the board's memory)
            continue
        while k < len(lines) and "|" in lines[k][1]:
            i, row = lines[k]
            k += 1
            cells = table_cells(row)
            if len(cells) != len(head):
                continue
            label = next((c for j, c in enumerate(cells) if j not in dtypes and c and not CELL_FIGURE.fullmatch(c)), "")
            out.extend((i, label, dtypes[j], float(m.group(1))) for j in dtypes
                       if (m := CELL_FIGURE.fullmatch(cells[j])))
    return out


# A data rate as people write it: bytes with a capital B ("GB/s", "GBps", "GiB/s", "MB/s", "GBytes/s") or
# spelled out ("Gbyte/s"), bits with a small b ("Gb/s", "Gbps", "Gbit/s"); the capital decides, whatever the
# case of the rest.
RATE_UNIT = (r"(?-i:[KMGT])(?:(?-i:i?B)(?:ytes?)?|(?-i:b)(?:its?)?|i?(?i:bytes?|bits?))"
             r"(?:/s|/S|ps|/sec|/second)\b")
_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def to_gbs(value: float, unit: str) -> float:
    """A rate in `unit` (RATE_UNIT) in GB/s, 1e9 bytes per second as nccl-tests prints it: bits are an
    eighth of a byte, and a binary prefix (GiB = 2^30 B) is 7.4 % more than the decimal one."""
    prefix, binary = unit[0].upper(), unit[1:2] == "i"
    scale = 2 ** (10 * "KMGT".index(prefix) + 10) if binary else _PREFIX[prefix]
    return value * scale / (8 if is_bits(unit) else 1) / 1e9


def is_bits(unit: str) -> bool:
    """Is the rate unit (RATE_UNIT) in bits ("Gbit/s", "Gb/s", "Gbps"), not bytes ("GB/s", "Gbyte/s")?"""
    rest = unit[1 + (unit[1:2] == "i"):]
    return rest[:1] == "b" and not rest.lower().startswith("byte")


# A time as people write it, to milliseconds: "45 ms", "0.045 s", "45000 us", "45000 µs", "45,000 usec".
TIME_UNIT = r"(?:ms|msecs?|milliseconds?|us|µs|μs|usecs?|microseconds?|s|secs?|seconds?)\b"


def to_ms(value: float, unit: str) -> float:
    """A time in `unit` (TIME_UNIT) in milliseconds."""
    unit = unit.lower()
    if unit.startswith(("us", "µ", "μ", "micro")):
        return value / 1000
    if unit.startswith(("ms", "milli")):
        return value
    if unit.startswith("min"):  # "8 minutes per token": a model read from swap or host memory (issue_md.MS_PER_TOKEN)
        return value * 60_000
    return value * 1000


# Chinese and Japanese text runs words together with the Latin ones ("用两张A100跑Qwen2-72B"), and a CJK character
# counts as a word character, so "\bA100" would not match there. A space at each such seam lets the names (GPUs,
# models, engines, figures) be read inside any language; rules.claims reads the reporter's words through it too.
# Korean spaces its words but glues its particles to them, Latin names included ("chatglm2-6B는", "A100에서", "4090을"):
# a Hangul syllable is such a seam too, and so is a full-width form ("ＧＰＵ", "，").
CJK_LETTERS = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"  # kana, CJK ideographs, Hangul syllables
_CJK_CHARS = CJK_LETTERS + r"\uff00-\uffef"
CJK_SEAM = re.compile(r"(?<=[" + _CJK_CHARS + r"])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9%])(?=[" + _CJK_CHARS + r"])")


def cjk_spaced(text: str) -> str:
    """The text with a space where CJK and Latin letters or digits meet."""
    return CJK_SEAM.sub(" ", text)


# A llama.cpp build as its programs print it and people state it: the build number is the commit count of master
# (scripts/build-info.sh: `git rev-list --count HEAD`) and names its release tag ('b3447',
# https://github.com/ggml-org/llama.cpp/releases); llama-bench ends with "build: <hash> (<number>)", the other
# programs log "build: <number> (<hash>)" or "build = <number> (<hash>)", and --version prints
# "version: <number> (<hash>)". A date said of the build ("a llama.cpp release from March 2024", "built 2024-03-15")
# dates it instead. Read here, judged by the rules (rules.catalog.build_side).
_HASH = r"[0-9a-f]{7,10}"
BUILD_LINE = re.compile(r"\bbuild\s*[:=]\s*(\d{3,5})(?!\d|\.\d)(?:\s*\(" + _HASH + r"\))?|"
                        r"\bversion\s*[:=]\s*(\d{3,5})\s*\(" + _HASH + r"\)|"  # ("Driver Version: 550" is no build)
                        r"\bbuild\s*[:=]\s*" + _HASH + r"\s*\((\d{3,5})\)|"
                        r"(?<![\w.-])b(\d{4,5})(?![\w-]|\.\w)|"
                        r"\bbuild(?:\s+(?:number|no\.?))?\s*#?\s*(\d{3,5})(?!\d|\.\d)", re.I)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# the date said of the build itself: after a build word or the program's name, within a few words; "X was released
# in 2020" says when X (a GPU, a model) came out, not the build
_PASSIVE = r"(?<!\bwas )(?<!\bwere )(?<!\bis )(?<!\bare )(?<!\bbeen )"
BUILD_DATE = re.compile(r"\b(?:build|built|releases?|" + _PASSIVE + r"released|version|commit|compiled|cloned|pulled|"
                        r"checkout|checked out|llama\.?cpp|llama-(?:server|cli|bench))\b"
                        r"(?:(?!\b(?:was|were|is|are|been)\s+released\b)[^.\n;]){0,30}?\b(?:from|of|dated|on|in|at)\s+"
                        r"(?:early\s+|mid\s+|late\s+|the\s+)?(?P<date>(?P<y>20\d\d)(?:-(?P<m>[01]\d)(?:-(?P<d>[0-3]\d))?)?"
                        r"(?![\d-]|\.\d)|" + _MONTH + r"\s+(?:[0-3]?\d(?:st|nd|rd|th)?,?\s+)?(?P<y2>20\d\d)\b)", re.I)
# a build said as the one left behind or not used: "upgraded from b2000", "not b2000", "instead of the March build"
_LEFT_BEHIND = re.compile(r"(?:\b(?:not|no longer|instead of|rather than)|n't|\b(?:upgrad|updat|mov|switch|migrat)\w*"
                          r"\s+(?:\w+\s+){0,3}?from)\s+(?:the\s+|a\s+|an\s+)?"
                          r"(?:(?!(?:to|but|and|now|then)\b)[\w.-]+\s+){0,2}?$", re.I)


def left_behind(text: str, start: int) -> bool:
    """Is what starts at text[start] said as left behind ("upgraded from b2000", "not vllm==0.6.3"): not what ran?"""
    return bool(_LEFT_BEHIND.search(text[max(0, start - 60):start]))


# llama.cpp's first commit ("Initial release") is of 2023-03-10 (https://github.com/ggml-org/llama.cpp/commits): an
# earlier year, a later one than today or a figure with its unit ("2048 context", "2080 Ti") dates no build.
_FIRST_BUILD = "2023-03"
_FIGURE_AFTER = re.compile(r"\s*(?:ctx|context|tokens?|tok|Ti|Super|GB|MB|k|x|W|MHz|series)\b", re.I)
# A fork prints its own commit count the same way ("ik_llama.cpp ... version: 3719 (hash)"): a build it states is
# not llama.cpp's (ik_llama.cpp ships CUDA graphs off, https://github.com/ikawrakow/ik_llama.cpp/issues/479).
LLAMACPP_FORK = re.compile(r"\b[a-z0-9]+[_-]llama\.?cpp\b|\bllama\.?cpp\s+fork\b|\bfork\s+of\s+llama\.?cpp\b", re.I)


def _dates_a_build(date: str) -> bool:
    """Is an ISO date one a llama.cpp build can have: from its first month to today?"""
    import datetime

    return _FIRST_BUILD <= date[:7] and date[:4] <= str(datetime.date.today().year) and \
        (len(date) == 4 or date[:7] <= datetime.date.today().isoformat()[:7])


def build_extra(text: str | None) -> dict:
    """A Workload's extra for the builds `text` states ("engine_builds") and the llama.cpp fork it names
    ("engine_fork"); empty when it states neither."""
    fork = LLAMACPP_FORK.search(str(text or ""))
    builds = llamacpp_builds(text)
    return {**({"engine_builds": builds} if builds else {}), **({"engine_fork": fork.group(0)} if fork else {})}


def llamacpp_builds(text: str | None) -> list[str]:
    """The llama.cpp builds `text` states, in order and once each: 'b<number>' for a build number or tag, an ISO
    date ('2024', '2024-03', '2024-03-15') for a dated one; builds said as left behind ('upgraded from b2000') are
    not the one that ran and are skipped."""
    text = str(text or "")
    found: list[tuple[int, str]] = []
    for m in BUILD_LINE.finditer(text):
        if not left_behind(text, m.start()):
            found.append((m.start(), f"b{int(next(g for g in m.groups() if g))}"))
    for m in BUILD_DATE.finditer(text):
        start = m.start("date")
        if left_behind(text, start) or _FIGURE_AFTER.match(text, m.end("date")):
            continue
        if m.group("y2"):
            month = next(k for k, n in enumerate(_MONTHS, 1) if n.startswith(m.group(5).lower()[:3]))
            date = f"{m.group('y2')}-{month:02d}"
        else:
            date = "-".join(x for x in (m.group("y"), m.group("m"), m.group("d")) if x)
        if _dates_a_build(date):
            found.append((start, date))
    return list(dict.fromkeys(b for _, b in sorted(found)))


# The prompt length a figure was measured at: "a 2000-token prompt", "input length 1024", "1k input tokens",
# "ISL 2048", "--input-len 512" (benchmarks name it input length or ISL; people say prompt).
PROMPT_LEN = re.compile(r"\b(\d{2,6}|\d{1,3}[kK])[- ](?:token|tok)s?\s+(?:long\s+)?(?:prompts?|inputs?|context)\b|"
                        r"\b(?:prompt|input)[- _](?:length|len|tokens?|size)\s*(?:=|:|of|is|was)?\s*~?"
                        r"(\d{2,6}|\d{1,3}[kK])\b|"
                        r"\b(\d{2,6}|\d{1,3}[kK])\s+(?:prompt|input)\s+tokens\b|"
                        r"\bISL\s*[=:]?\s*(\d{2,6}|\d{1,3}[kK])\b|--(?:random-)?input-len\s+(\d{2,6})\b|"
                        # "an input of 35 tokens" (TRT-LLM#2648)
                        r"\b(?:prompt|input)\s+of\s+(\d{1,6}|\d{1,3}[kK])\s+tokens?\b", re.I)
# The reply's length as benchmarks state it ("OSL 2048", "an output of 250 tokens", "output length: 128",
# "256 output tokens", "--random-output-len 128"): the decode steps a throughput figure was averaged over.
OUTPUT_LEN = re.compile(r"\bOSL\s*[=:]?\s*(\d{1,6}|\d{1,3}[kK])\b|--(?:random-)?output-len\s+(\d{1,6})\b|"
                        r"\b(?:output|generation|completion)[- _](?:length|len|size)\s*(?:=|:|of|is|was)?\s*~?"
                        r"(\d{1,6}|\d{1,3}[kK])\b|"
                        r"\b(\d{1,6}|\d{1,3}[kK])\s+(?:output|generated)\s+tokens\b|"
                        r"\b(?:output|generation)\s+of\s+(\d{1,6}|\d{1,3}[kK])\s+tokens?\b", re.I)


# A run's count, not one prompt's length: a label that sums over the run's requests, written before the figure
# ("Total input tokens: 25900" and "Total num prompt tokens:" of vLLM's benchmarks, "#Input tokens: 10354" and
# "Total input tokens:" of SGLang's bench_serving, "Sum of input tokens", "cumulative", "aggregate"), or a whole
# label of its own ("total: 25900 input tokens", a table's "| Total | ..." or "| All | ..." row); not when the
# figure is said to be each request's ("... 512 per request", "each").
_RUN_TOTAL = re.compile(r"\b(?:total|sum|cumulative|aggregate)\b|#\s*(?:of)?\s*$|^\W*(?:all|overall)\W*$", re.I)
_PER_ONE = re.compile(r"\s*(?:tokens?\s*)?(?:per\s+(?:request|prompt|query|sequence|sample)|each|/\s*req\w*)\b", re.I)


def _run_total(ln: str, m: re.Match) -> bool:
    """Is the figure `m` reads from line `ln` labelled as the run's sum? The label is the text since the separator
    before it, a colon or a cell border right before the figure left out (its own label's: "total: 25900 ...")."""
    head = ln[:m.start()].rstrip(" \t:=|：*_`>-–")
    label = re.split(r"[,;|:=：\n]|\s[-–]\s|[.!?]\s", head)[-1]
    return bool(_RUN_TOTAL.search(label)) and not _PER_ONE.match(ln, m.end())


def stated_lengths(prose: list[tuple[int, str]], name: str) -> list:
    """Workloads of the prompt and reply lengths the reporter's words state ("input length 2000, output length 200"):
    read alike from a pasted issue's prose and a ticket.toml's description, so the same words price the same step."""
    prompt, reply = prompt_len(prose), prompt_len(prose, OUTPUT_LEN, low=1)
    return ([Workload(where(name, prompt[0]), prompt_len=prompt[1])] if prompt else []) + (
        [Workload(where(name, reply[0]), output_len=reply[1])] if reply else [])


def prompt_len(prose: list[tuple[int, str]], pattern: re.Pattern = PROMPT_LEN, low: int = 8) -> tuple[int, int] | None:
    """(line, tokens) of the first prompt length (or, given OUTPUT_LEN, reply length) the prose states ("2k" is
    2000), or None."""
    for i, ln in prose:
        # a serving benchmark's "Total input tokens: 25900" (vLLM, SGLang) or "#Input tokens: 10354" sums every
        # request's prompt: a count of the run, not one prompt's length
        found = [m for m in pattern.finditer(ln) if not _run_total(ln, m)]
        if (m := found[0] if found else None):
            token = next(g for g in m.groups() if g)
            n = int(token[:-1]) * 1000 if token[-1] in "kK" else int(token)
            if low <= n <= 1_000_000:
                return i, n
    return None
