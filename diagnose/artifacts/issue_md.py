"""A pasted GitHub issue (Markdown): the reporter's words, and the outputs they pasted.

    # <title>                       -> Note(kind="description"): title and prose together
    prose paragraphs                 -> the same description; the model, GPUs, layout, engine
                                        and measured figures they name -> Workload, Measurement
    ``` code blocks ``` / <details>  -> every other artifact parser, as if each block were its own
                                        attachment (sources keep the issue's line numbers)

A file named as prose (issue.md, notes.txt) whose lines are mostly sentences is such an issue without a
title (detect_named); a log pasted alone under that name keeps its own kind.

The prose is what the reporter *says* (rules weigh it below a parsed artifact); the code blocks
are tool output (rules weigh it as such). Names are kept as written ("8x A100 80GB",
"meta-llama/Llama-3.1-70B-Instruct"): the rules resolve them through the catalog.
"""

from __future__ import annotations

import dataclasses
import re

from diagnose.artifacts import container_tag, engine_signs, figures, prose_times, serving_bench, torch_release
from diagnose.artifacts.figures import Figure
from diagnose.artifacts.launch import advised_lines, nccl_tests_ranks, share_fact
from diagnose.artifacts.text import (
    CJK_LETTERS,
    LLAMACPP_FORK,
    NOT_ENDING,
    PROMPT_LEN,
    QUANT_DTYPES,
    RATE_UNIT,
    TIME_UNIT,
    cjk_spaced,
    dtype_columns,
    engine_named,
    engine_release,
    engines_named,
    is_bits,
    llamacpp_builds,
    number,
    quant_dtype,
    sentence_before,
    sentence_end,
    sentence_start,
    sentences,
    split_gpus_used,
    stated_lengths,
    table_cells,
    to_gbs,
    to_ms,
    weight_dtype_named,
)
from diagnose.evidence import (
    CollectiveResult,
    Measurement,
    NcclSetting,
    NcclTransport,
    Note,
    NvLinkFact,
    P2PStatus,
    PcieLinkFact,
    TopologyPath,
    Workload,
    where,
)

KIND = "issue_md"
# Records only a tool's own output lines give (a setting or a GPU named in a sentence is the reporter's prose)
TOOL_LINE_RECORDS = (NvLinkFact, TopologyPath, PcieLinkFact, P2PStatus, NcclTransport, CollectiveResult)
EMBEDDED = "embedded_kinds"
EXCLUSIVE = True  # see artifacts.parse_text: this parser hands the code blocks to the others itself

FENCE = re.compile(r"^\s*(```+|~~~+)")
FENCE_ANYWHERE = re.compile(r"^[^\S\n]*(```+|~~~+)", re.M)
# An opening fence's info string names a language ("```shell", "```python title"); a log line pasted onto the fence
# itself ("```time=2024-08-12T20:24:12 level=INFO ...", ollama/ollama#6348) is output: key=value pairs or a long run of
# words. CommonMark hides it, but the reporter pasted it, and readers quote it.
_PASTED_ON_FENCE = re.compile(r"^\S+=\S+\s+\S+=|^(?=.{40})\S+(?:\s+\S+){5}")


def _inline_span(line: str, m: re.Match) -> bool:
    """Is a line that starts with a backtick fence a code span on one line ("```--model-id X --num-shard 2```")? A
    backtick fence's info string "may not contain any backtick characters" (CommonMark 0.31, 4.5 Fenced code blocks):
    such a line opens no block, and the prose after it stays prose."""
    return m.group(1).startswith("`") and "`" in line[m.end():]
PLAIN_WORD = re.compile(r"^[a-z]{2,}[,.;:!?]?$")
TITLE = re.compile(r"^#\s+\S")
ISSUE_HEADINGS = re.compile(
    r"^(?:#{2,4}\s*|\*\*)(?:your current environment|describe the bug|bug description|system info|environment|"
    r"reproduction|to reproduce|steps to reproduce|expected behavio(?:u)?r|🐛 describe the bug|information|"
    r"motivation|what happened|issue description|details|question|"
    # (para37b) NVIDIA/nccl's issue form (.github/ISSUE_TEMPLATE), as its kept issues show it
    r"how is this issue impacting you|share your debug logs|nccl version|your platform details|"
    r"error message (?:&|and) behavio(?:u)?r|minimal reproduction)\b", re.I | re.M)
# nccl-tests' own comment lines: its output starts with "#" too, but is no issue title
NCCL_TESTS_HEAD = re.compile(r"^#\s*(?:nThread|Using devices|Rank\b|out-of-place|size\s+count|Avg bus|Out of bounds|"
                             r"Collective test|Check|$)", re.M | re.I)
WORD = re.compile(r"[A-Za-z]{2,}")
NAME_TOKEN = re.compile(r"(?<![\w.+-])[A-Za-z0-9][\w.+-]*[A-Za-z][\w.+-]*|(?<![\w.+-])[A-Za-z][\w.+-]*|"
                        r"(?<![\w.+-])\d{3,5}(?![\w.+-])")
# One field of an issue form, written as "Name: value" on its own line ("GPU:  Tesla T4", "concurrency: 1").
# At the margin: tool output indents its fields ("\tLnkSta: ..."), and a command line is no title.
FORM_FIELD = re.compile(r"^[A-Za-z][\w ./()-]{0,30}:[ \t]+\S", re.M)
COMMAND_TITLE = re.compile(r"\s-{1,2}[A-Za-z]")
CJK = re.compile(f"[{CJK_LETTERS}]")  # a letter of a CJK word (full-width punctuation is none)


def detect(text: str) -> float:
    head = text[:20_000]
    lines = [ln for ln in head.splitlines() if ln.strip()]
    if not lines or _is_ticket_toml(text):
        return 0.0
    first = lines[0]
    title_words = len(WORD.findall(first)) + len(CJK.findall(first)) // 2
    prose_lines = _prose_lines(head.splitlines())  # read once: every test below looks at the same lines
    body = [ln for ln in prose_lines[1:] if not ln.lstrip().startswith("#")]  # below the title, no headings
    prose = [ln for ln in prose_lines if not ln.lstrip().startswith("#") and _wordy(ln, 5)]
    # a short issue: a title over one plain sentence ("Is 45 tokens/s reasonable for Llama-2-7B on one RTX 3090?"),
    # its names and figures being the words that are not plain
    said = any(_wordy(ln, 3) and re.search(r"[.?!。？]\s*$", ln) for ln in body)
    # a one-word title (often a tool's name: "# p2pBandwidthLatencyTest") when a full sentence follows, or a title of
    # names ("# nvlink p2p a100", "# H2D bandwidth") over a short one
    terms = len(NAME_TOKEN.findall(first)) + (len(CJK.findall(first)) + 1) // 2  # names, numbers and CJK words
    titled = bool(TITLE.match(first)) and not NCCL_TESTS_HEAD.match(first) and (
        title_words >= 2 or (title_words == 1 and any(_wordy(ln, 8) for ln in prose)) or (said and terms >= 2))
    asked = re.search(r"[?？]\s*$", first) and title_words >= 3  # a title that asks ("Would more GPUs be faster?")
    # (para38b) or the title alone, an issue filed with an empty body ("# [Bug]: ncclAllReduce deadlock, 2x RTX 5880
    # Ada, PCIe PHB, no NVLink"): nothing else in the paste, several words, no command line
    alone = len(lines) == 1 and title_words >= 3 and not COMMAND_TITLE.search(first)
    if titled and (prose or said or asked or alone or _wordy(first, 4) or FENCE_ANYWHERE.search(head)):
        return 0.95
    if TITLE.match(first) and not NCCL_TESTS_HEAD.match(first) and any(_names_a_figure(ln) for ln in body):
        return 0.95  # "# slow" over "Llama-3-70B on 8x H100 SXM ... gets 12 tokens/s. Is this normal?"
    if ISSUE_HEADINGS.search(head) and prose:
        return 0.9
    if TITLE.match(first) and not NCCL_TESTS_HEAD.match(first) and len(ISSUE_HEADINGS.findall(head)) >= 2:
        return 0.9  # (para37b) an issue form's title over two of its sections, filled in tersely (no long sentence)
    if (titled and title_words >= 2 and not COMMAND_TITLE.search(first)
            and len(FORM_FIELD.findall("\n".join(prose_lines))) >= 2):
        return 0.9  # a title over an issue form's "GPU: Tesla T4" / "Inference time: 250ms" lines
    return 0.0


# Files people write their own words in: an issue.md, notes.txt, a description.md.
PROSE_NAME = re.compile(r"\.(?:md|markdown|txt)$", re.I)
# A line a program printed, though it may read like a sentence: a timestamp or log level first, NCCL's and the
# engines' prefixes (host:pid:tid [rank], file.py:123]), a Python traceback, a TOML or JSON key.
PRINTED = re.compile(r"^\s*(?:\[?\d{1,4}[-/:.]\d|\[?(?:INFO|WARN\w*|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\b|NCCL\b|"
                     r"\S+:\d+:\d+\s+\[\d+\]|\S+\.(?:py|cc|cpp|cu|c|h|rs|go)[:\s]\d+|\([^)\n]*\bpid=|\[rank\s*\d+\]|"
                     r"Traceback\b|File \"|[A-Z][A-Z0-9_]{2,}:\s|\w+(?:Error|Exception|Warning):|"
                     r"[\w.-]+\s*=|\"[^\"]+\"\s*:|[{}\[\]])")
SENTENCE_END = re.compile(r"[.?!。？！][\"')\]]?\s*$")


def detect_named(text: str, name: str) -> float:
    """A file named as prose (issue.md, notes.txt) holding ordinary sentences is the reporter's words, title or
    none: at least a third of its lines outside code blocks (list items and an issue form's scaffolding aside) are
    sentences, not printed lines.
    A log or table pasted alone has none and keeps its own kind."""
    if not PROSE_NAME.search(name) or _is_ticket_toml(text):
        return 0.0
    # (log lines pasted without a fence are no one's sentences, and no lines against them either: "The log says:"
    # over NCCL's INFO lines over "Decode is slow." is prose around a paste)
    # A paragraph hard-wrapped at a fixed width ("... the result is wrong tokens rather than an" / "error. Every model
    # returns ...") is sentences across its lines: a wordy line of a paragraph that ends as a sentence counts as one,
    # the last line being the sentence's tail however short ("configurations.": _ends_wrapped).
    # A cut mark on its own ("...", "…") is no one's line.
    lines: list[str] = []
    wrapped: set[int] = set()
    paragraph: list[int] = []
    for ln in _prose_lines(text[:20_000].splitlines()) + [""]:
        if not ln.strip() or CUT_MARK.match(ln) or re.match(r"\s*(?:[-*+]|\d+[.)])\s", ln) or PRINTED.match(ln) \
                or (FORM_SCAFFOLD.match(ln) and len(CJK.findall(ln)) < 8) \
                or (len(ln.split()) < 3 and WORD.search(ln) and not CJK.search(ln)):
            # (a line of under three words is an issue form's short answer, "Linux", counted neither way; a rule of
            # dashes, a tool's banner, has no word and stays a line against) a short line closing a paragraph is
            # its sentence's tail ("machines."), not a line of its own
            tail = paragraph and len(ln.split()) < 3 and SENTENCE_END.search(ln) and _wordy(ln, 1)
            if (len(paragraph) > 1 and _ends_wrapped(lines[paragraph[-1]])) or tail:
                wrapped.update(i for i in paragraph if _wordy(lines[i], 4))
            paragraph = []
            continue
        paragraph.append(len(lines))
        lines.append(ln)
    stopped = sum(1 for i, ln in enumerate(lines) if i in wrapped or _sentence(ln))
    said = stopped + sum(1 for i, ln in enumerate(lines) if i not in wrapped and not _sentence(ln) and _unstopped(ln))
    if stopped and 3 * said >= len(lines):
        return 0.9
    # (s49) a title copied from the issue page without its '#' ("llama.cpp with mistral-7b ... performance comparison
    # between Intel CPU, nVIDIA GPU and Apple M1/M2") over figure lines, logs or an issue form's short answers: in a
    # file the user named issue.md, a first line that reads as a title with a sentence of the reporter's, an issue
    # form's heading or a fenced block (Markdown someone wrote) below it. 558 of 1,856 real kept pastes, their '#'
    # dropped, were read by no parser before, 100 after; a log or table under that name, its header line no title,
    # keeps its own kind.
    first = next((ln for ln in text[:2_000].splitlines() if ln.strip()), "")
    return 0.9 if ISSUE_NAME.search(name) and _bare_title(first) \
        and (stopped or ISSUE_HEADINGS.search(text[:20_000]) or FENCE_ANYWHERE.search(text[:20_000])) else 0.0


ISSUE_NAME = re.compile(r"(?:^|[/\\])issue[^/\\]*$", re.I)


def _bare_title(line: str) -> bool:
    """Is a file's first line an issue title written without its '#': three words or more (a tag such as "[Bug]:"
    aside), not a heading, a quote, a table row, a log line, a command or a lead-in to what follows ("Here's the
    output:")? An error message is a title as often as not ("RuntimeError: NCCL error in: ... unhandled error")."""
    if "\t" in line or "  " in line.strip():
        return False  # columns: a table's or a log's header line ("GPU0\tGPU1\tCPU Affinity")
    first = TITLE_TAG.sub("", line.strip())
    words = len(WORD.findall(first)) + len(CJK.findall(first)) // 2
    return words >= 3 and not first.startswith(("#", ">", "|", "-", "*", "`")) and not LOG_LINE.match(first) \
        and not COMMAND_TITLE.search(first) and not first.endswith(":")


# An issue form's tag before its title ("[Bug]: ", "[Performance] ", "💡 [REQUEST] - ").
TITLE_TAG = re.compile(r"^(?:[^\w\s\[]{1,3}\s*)?\[[^\]\n]{1,30}\]\s*[:-]?\s*")
# A line a program printed, as PRINTED but not a title's own words: a timestamp, a log level, NCCL's host:pid:tid
# prefix or "NCCL INFO", a traceback, a key = value or JSON line, a program's own field ("llama_print_timings: eval
# time = 5920.00 ms"), a syslog line's time of day, a shell prompt ("user@host:~/dir$ ./p2pBandwidthLatencyTest").
LOG_LINE = re.compile(r"\[?\d{1,4}[-/:.]\d|\[?(?:INFO|WARN\w*|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\b|"
                      r"\S+:\d+:\d+\s+\[\d+\]|NCCL (?:INFO|WARN)\b|Traceback\b|File \"|[\w.-]+\s*=|\"[^\"]+\"\s*:|"
                      r"[{}\[\]]|\w+_\w+:\s|"
                      r"[^\n]*?(?:\s=\s*-?\d|\b\d{1,2}:\d{2}:\d{2}\b|[$#]\s+\S)|\S+@\S+")


CUT_MARK = re.compile(r"^\s*(?:\.{3,}|…+)\s*$")
# (b49c) An issue form's scaffolding, neither the reporter's sentences nor printed lines, is left out of the count:
# its section headings ("### What is the issue?", "### OS": ollama's bug-report form; "### How to reproduce"), a
# screenshot's Markdown or HTML, and (above) the form's one- or two-word values ("Linux", "Nvidia", "0.2.1"; a CJK
# line has no spaces between its words and stays counted, as does a heading holding a CJK sentence: "### Q4:
# 训练速度没有提升"). A title pasted without its "# " is a line like any other.
FORM_SCAFFOLD = re.compile(r"^\s*(?:#{1,6}\s|!\[[^\]]*\]\(|<img\b)", re.I)


def _unstopped(line: str) -> bool:
    """A reporter's sentence typed without its full stop, as short posts are: a run of eight plain words ("Till we get
    some flags to control the loading to a discrete GPU", ollama/ollama#961; "Then I want to use llama 30b 4bit with
    it which uses 20gb gpu memory, so this should work with --auto-devices", oobabooga/text-generation-webui#1244).
    Printed lines never reach it (PRINTED), and a tool's line seldom holds eight lower-case words. It adds to a file's
    sentences, never stands for them: a fragment ending no sentence is no one's post (test_wrapped_prose_18d)."""
    return _wordy(line, 8)


def _ends_wrapped(line: str) -> bool:
    """Does the last line of a hard-wrapped paragraph end its sentence? Wrapping leaves the tail of a sentence
    there, often a word or two ("configurations.", "switch, K3s Kubernetes, SR-IOV enabled)."): a sentence end
    after one plain word is enough, the lines above carrying the rest."""
    return _sentence(line) or (bool(SENTENCE_END.search(line)) and _wordy(line, 1))


def _sentence(line: str) -> bool:
    """A line ending as a sentence does, with four plain words, or a short one of three words or more, two of them
    plain ("Is that normal?", "Ollama with llama3.1:8b on one H100 SXM."): short tickets are written so. A line of
    eight or more Chinese, Japanese or Korean characters is a sentence with or without its full stop, which such
    posts often leave off ("在跑vllm ,tp≥2的时候碰到进程hang住的问题")."""
    if len(CJK.findall(line)) >= 8:
        return True
    if _wordy(line, 8) and INNER_SENTENCE_END.search(line):
        return True  # (s27, ut27d) several sentences on one line, the last without its full stop: "... much worse
        # than only using 1 GPU. I see different models are mapped ... I am using 8 AMD MI300x GPUs"
        # (huggingface/diffusers#9127)
    return bool(SENTENCE_END.search(line)) and (_wordy(line, 4) or (_wordy(line, 2) and len(line.split()) >= 3))


# A sentence ending inside a line and the next one starting: ". I see", "? ideally" (a version or a path has no space
# after its dot).
INNER_SENTENCE_END = re.compile(r"\w[.?!。？！][\"')\]]?\s+[A-Za-z\u4e00-\u9fff]")


# A figure as a reporter states one: a rate, a latency, a bandwidth, a speed-up.
FIGURE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s*(?:[x×](?![\w])|" + RATE_UNIT + "|" + TIME_UNIT
                    + r"|(?:tokens?|toks?|t)\s*/\s*s(?:ec)?\b|tok/s|tps\b)", re.I)


def _names_a_figure(line: str) -> bool:
    """Does the line name a model or a GPU and a figure? Such a sentence is a report whatever the title says."""
    return bool((GPU_NAME.search(line) or MODEL_NAME.search(line) or HF_ID.search(line)) and FIGURE.search(line))


def _is_ticket_toml(text: str) -> bool:
    """A ticket.toml whose first line is a TOML comment ("# ...") reads like a Markdown title: it is
    valid TOML with the ticket's own keys, which no pasted issue is."""
    from diagnose.artifacts import ticket_toml

    return ticket_toml.detect(text) >= 0.95


def _wordy(line: str, k: int) -> bool:
    """At least k plain lower-case words (or 2k CJK characters): a sentence, not a log line or a
    table row."""
    return sum(1 for w in line.split() if PLAIN_WORD.match(w)) >= k or len(CJK.findall(line)) >= 2 * k


def _prose_lines(lines: list[str]) -> list[str]:
    out, fenced = [], False
    for ln in lines:
        if (m := FENCE.match(ln)) and (fenced or not _inline_span(ln, m)):
            fenced = not fenced
            continue
        if not fenced:
            out.append(ln)
    return out


def blocks(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(prose lines, code blocks) with their 1-based line numbers. A <details> body and an
    indented (4-space) run of lines count as code too: people paste logs there."""
    prose: list[tuple[int, str]] = []
    code: list[tuple[int, str]] = []
    current: list[str] | None = None
    start = 0
    fence = ""
    for i, ln in enumerate(text.splitlines(), start=1):
        m = FENCE.match(ln)
        if current is None and m and not _inline_span(ln, m):
            current, start, fence = [], i + 1, m.group(1)[:3]
            info = ln[m.end():].strip()
            if _PASTED_ON_FENCE.search(info):  # "```time=... msg=...": output typed onto the fence, not a language
                current, start = [info], i
            continue
        if current is not None and m and m.group(1).startswith(fence):
            code.append((start, "\n".join(current)))
            current = None
            continue
        if current is not None:
            current.append(ln)
        else:
            prose.append((i, ln))
    if current is not None:  # an unclosed fence: the rest is the block
        code.append((start, "\n".join(current)))
    return prose, code


# Unicode's hyphen and non-breaking hyphen (U+2010, U+2011), which editors and blogs put inside names
# ("Qwen2.5‑7B‑Instruct"): the same hyphen-minus the names are read with. (Not the en dash, which writes ranges.)
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-"})


def parse(text: str, name: str) -> list:
    from diagnose.artifacts import parse_text

    written = text.translate(_HYPHENS)
    text = DECIMAL_COMMA_RATE.sub(r"\1.\2", written)
    prose, code = blocks(text)
    words = "\n".join(ln for _, ln in prose)
    # the lines the reporter wrote (not pasted): facts read from them are the reporter's words
    lead = next((k for k, (_, ln) in enumerate(prose) if _plain(ln)), len(prose))  # the text starts there
    out: list = [Note(where(name, 1), "description", _plain(words),
                      {"prose_sources": [where(name, i) for i, _ in prose[lead:]], "cited": _cited(words)})]
    code_lines = [(start + k, ln) for start, body in code for k, ln in enumerate(body.splitlines())]
    labels = _block_labels(prose, code)
    out.extend(container_tag.tags(sorted(prose + code_lines), name))  # what an NGC tag ships: diagnose/pipeline.py
    out.extend(torch_release.releases(sorted(prose + code_lines), name))  # its NCCL: rules/containers.py
    # (a table quoted from a README or a benchmark page holds no figure, and names no GPU, of the reporter's)
    quoted = _quoted_tables(prose)
    noted = _fenced_notes(code)
    words_said = sorted([(i, ln) for i, ln in prose if i not in quoted] + noted)
    out.extend(_mentions(words_said, name, code_lines, labels))
    out.extend(_looped_requests(code, name))  # a script that sends its prompts one at a time
    if not any(isinstance(f, Workload) and f.extra.get("num_prompts") for f in out):
        out.extend(_prompts_in_one_call(code, name))  # a script that hands one call N prompts
        out.extend(_one_prompt_call(code, name))  # ... or one prompt string (a program of one sequence)
    for i, (gpu, first, last) in labels.items():  # "H100 PCIe" over one block, "A100 SXM4" over another
        out.append(Note(where(name, i), "system_label", gpu, {"gpu": gpu, "first": first, "last": last}))
    # each pasted block as its own attachment; the prose too (logs pasted without a fence)
    for start, body in code:  # what tools printed, for the claims that read output (rules/claims.py)
        if body.strip():
            out.append(Note(where(name, start), "pasted_output", body[:20_000]))
    kinds: list[str] = []
    for start, body in [*code, (1, "\n".join("" if i in quoted else ln for i, ln in prose))]:
        records, read = parse_text(body, name, skip=(KIND, "ticket_toml"), first_line=start)  # the issue's lines
        kinds.extend(k for k in read.kinds if k not in kinds)
        out.extend(r for r in records if not (isinstance(r, Note) and r.kind == "unrecognised_file"))
    if not any(isinstance(r, Workload) and r.dtype for r in out):  # no model name, flag or table gives the weights
        out.extend(_weights_said(words_said, code_lines, name))
    # (left27) exports handed to the reader by the line above their block ("..., you may:"), read over the whole
    # issue as each block alone cannot see that line: advice, not the writer's environment (launch.ADVICE_ABOVE)
    advised = {where(name, n) for n in advised_lines(text)}
    out = [r for r in out if not (isinstance(r, NcclSetting) and r.source in advised)]
    # (fig30) a serving benchmark's result row quoted alone in prose ("Output token throughput (tok/s): 471.2") means
    # what its label says in that benchmark (every stream's output together, a request rate), not a decode rate: the
    # prose readers' other reading of its line gives way to it. A row the parser already read inside its block, or
    # that the prose readers read as its label says ("Mean TPOT (ms): 18.5"), is not read again.
    read_at = {r.source for r in out if isinstance(r, Measurement) and r.stat != "reported"}
    rows = {row.source: dataclasses.replace(row, stat="reported") for i, ln in prose
            if i not in quoted and where(name, i) not in read_at
            and (row := serving_bench.result_row(ln, where(name, i))) is not None}
    out = [r for r in out if not (isinstance(r, Measurement) and r.stat == "reported" and r.source in rows
                                  and r.metric != rows[r.source].metric)]
    out.extend(row for src, row in rows.items()
               if not any(isinstance(r, Measurement) and r.source == src and r.metric == row.metric for r in out))
    # a rate a parser read from the same line (a vLLM log line quoted in prose) is not said twice
    parsed = {(r.source, r.value) for r in out if isinstance(r, Measurement) and r.stat != "reported"}
    out = [r for r in out
           if not (isinstance(r, Measurement) and r.stat == "reported" and (r.source, r.value) in parsed)]
    # (issue 11 k) a line a tool printed and a parser read (an NVLink state, a topology row, an lspci link) is output
    # pasted without a fence: its figures are the tool's fields, not rates the reporter measured, and it is not
    # the reporter's prose. It stays in the description and its sources (claims pair the two line by line) and is
    # listed apart, for engine.words_only to take away.
    tool_lines = {r.source for r in out if isinstance(r, TOOL_LINE_RECORDS)}
    out = [r for r in out if not (isinstance(r, Measurement) and r.stat == "reported" and r.source in tool_lines)]
    # the same figure said again (the title's "only 5 tok/s", the text's "I get 5 tok/s") is one figure, judged once
    said: set[tuple] = set()
    out = [r for r in out if not (isinstance(r, Measurement) and r.stat == "reported" and (
        _said_again(r) in said or said.add(_said_again(r))))]
    out[0].data["output_lines"] = [s for s in out[0].data["prose_sources"] if s in tool_lines]
    if kinds:  # artifacts.parse_text lists them beside "issue_md" in what was read from the file
        out.append(Note(where(name), EMBEDDED, ", ".join(kinds)))
    return _as_written(out, text, written, name) if written != text else out


def _as_written(out: list, text: str, written: str, name: str) -> list:
    """(known47b) A figure's quote (Measurement.said) in the reporter's own characters where the rewrite of
    DECIMAL_COMMA_RATE ("22,9 tokens/second" read as 22.9; the value stays 22.9) changed its line: the rewrite keeps
    every offset (one character for one), so the quote found in its rewritten line is the written line's same span.
    (fr47b2) Only that: a quote not found in its line and the description keep the spelling read (the values are
    right either way). (known48) The description holds the figures rewritten (data "decimal_commas", per file) that
    the ticket's evidence is given back with (diagnose.commands.ticket, given_back)."""
    read, said = text.splitlines(), written.splitlines()
    if out and isinstance(out[0], Note) and out[0].kind == "description" and (commas := decimal_commas(written)):
        out[0].data["decimal_commas"] = commas
    for k, r in enumerate(out):
        if not (isinstance(r, Measurement) and r.said and r.source.startswith(f"{name}:")):
            continue
        n = int(r.source.rsplit(":", 1)[1]) - 1
        if not (0 <= n < len(read) and read[n] != said[n]):
            continue
        if (at := read[n].find(r.said)) >= 0:
            out[k] = dataclasses.replace(r, said=said[n][at:at + len(r.said)])
    return out


def decimal_commas(written: str) -> list[tuple[str, str]]:
    """(as read, as written) of each figure DECIMAL_COMMA_RATE rewrites in `written` ("22.9", "22,9"), once each;
    not one the reporter also writes with a point elsewhere (its quote could be either)."""
    pairs = {(f"{m.group(1)}.{m.group(2)}", m.group(0)) for m in DECIMAL_COMMA_RATE.finditer(written)}
    return sorted(p for p in pairs if not re.search(rf"(?<![\d.,]){re.escape(p[0])}(?!\d)", written))


def given_back(quoted: str, commas: list[tuple[str, str]]) -> str:
    """`quoted` (the evidence of one file) with each figure of `commas` (decimal_commas) spelled as the reporter wrote
    it: only where the rate unit the rewrite read follows it, as DECIMAL_COMMA_RATE found it ("22.9 tok/s" in a quote;
    not a version "0.22.9", nor "22.9 GB")."""
    if not commas:
        return quoted
    back = dict(commas)
    figure = re.compile(r"(?<![\d.,])(" + "|".join(map(re.escape, back)) + r")(?![\d])" + RATE_AFTER_COMMA, re.I)
    return figure.sub(lambda m: back[m.group(1)], quoted)


# A line a tool or a shell printed, not one a person typed: a prompt or a flag, an assignment, a log's brackets or
# "key: value" fields, a path.
_TOOLISH = re.compile(r"^\s*(?:[$#>]|\.?/|python|pip|docker|export|sudo)|--|=|\[|\]|\w:\s|[/\\]\w+[/\\]", re.I)


def _fenced_notes(code: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The lines of a fenced block that holds only a short note the reporter typed (issue templates put an
    "Environment" or "System Info" answer in a code box: "A100 llama2-13B"): one or two short lines, none
    shaped like a command, a log line or a key-value field. They name the reporter's setup as prose does."""
    out = []
    for start, body in code:
        lines = [(start + k, ln) for k, ln in enumerate(body.splitlines()) if ln.strip()]
        if 0 < len(lines) <= 2 and all(len(ln) <= 60 and len(ln.split()) <= 8 and not _TOOLISH.search(ln)
                                       for _, ln in lines):
            out.extend(lines)
    return out


def _said_again(m: Measurement) -> tuple:
    """A figure's every field but where it was said."""
    return dataclasses.astuple(dataclasses.replace(m, source=""))


# A link to a pull request or a commit keeps its address beside its text: "following this [PR](https://github.com/
# sgl-project/sglang/pull/4390)" (sgl-project/sglang#5527) names the change only there.
CHANGE_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(\s*https?://(github\.com/[\w.-]+/[\w.-]+/(?:pull/\d+|commit/[0-9a-f]{7,40}))"
                         r"[^)\s]*\s*\)")


# An HTML tag as GitHub renders it: a bare name ("<br>", "</details>"), a comment, a known element with attributes
# ("<img width=...>", "<details open>"), or any name followed by an attribute with a value. Words in angle brackets
# with spaces and no attribute are prose (para37c): an issue template's filled-in placeholder ("[REQUEST] - <one
# machine, 2 GPUs: inference got slower>"), "<see below>", "<Kimi K2.6-NVFP4>" in kept pastes under tests/data.
_HTML_ELEMENTS = ("a|b|i|p|br|hr|img|div|span|sub|sup|kbd|pre|code|details|summary|table|thead|tbody|tr|td|th|ul|ol|li|"
                  "em|strong|h[1-6]|blockquote|video|picture|source|center|font|u|s|del|ins|small|big|tt|dl|dt|dd")
HTML_TAG = re.compile(r"<!--[^<>\n]{0,200}?-->|</?(?!inactive>)[A-Za-z][\w:-]*/?>|"
                      r"</?(?:" + _HTML_ELEMENTS + r")\b[^<>\n]{0,200}>|"
                      r"</?[A-Za-z][\w:-]*\s[^<>\n]{0,200}?=[^<>\n]{0,200}>|<![^<>\n]{0,200}>", re.I)


def _plain(text: str) -> str:
    """Markdown markup off the prose: images, link targets (but a pull request's or commit's), HTML tags, emphasis."""
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)
    text = CHANGE_LINK.sub(lambda m: m.group(1) if m.group(2) in m.group(1) else f"{m.group(1)} ({m.group(2)})", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    # a tag starts with a name: "<3B ... >7B" is prose; nvidia-smi's "<inactive>" (nvlink -s) is no tag
    text = HTML_TAG.sub(" ", text)
    text = re.sub(r"(\*\*|__|`)", "", text)
    return re.sub(r"[ \t]+", " ", text).strip()


# A link's text that leads to a web page is that page's title, cited: "From the articles I've read ([Serving LLMs on AMD
# MI300X: Best Practices](https://blog.vllm.ai/...))" (vllm-project/vllm#16011) names the blog's hardware, not the
# reporter's. (Not an image's alt text, and not a bare address written as its own text.)
CITED_LINK = re.compile(r"(?<!!)\[([^\]\n]*[A-Za-z][^\]\n]*)\]\(\s*https?://[^)\s]+\s*\)")


def _cited(words: str) -> list[str]:
    """The titles of the web pages the prose links to (CITED_LINK), as the description's plain text writes them."""
    return [_plain(m.group(1)) for m in CITED_LINK.finditer(words) if not m.group(1).strip().startswith("http")]


# --------------------------------------------------------------------------- what the prose names

# A card's memory size after its name: "48GB", "48G", "48Gb", "94 GiB"; not a rate ("400Gb/s"), a size the host's
# RAM is ("RTX 3090 48GB RAM", "128GB of system memory"), nor the cards' sum ("2x RTX 4090 48GB total"). In brackets
# the words that say it is each card's may follow ("2x4090 (48Gb each)", "4090 (48GB VRAM)").
_NOT_HOST_SIZE = r"(?!\s*(?:of\s+)?(?:system\s+|host\s+|cpu\s+)?(?:ram|ddr\d?|memory)\b)"
_CARD_SIZE = (r"\d{2,3}\s*G(?:i?B)?(?![\w/])" + _NOT_HOST_SIZE +
              r"(?!\s*(?:in\s+)?(?:total|combined|altogether|overall|aggregate|together)\b)")
_EACH = r"(?:\s*(?:VRAM|each|per\s+(?:card|GPU)|显存))*"
# A count of one or two digits run into a datacenter board's name: "two nodes of 8H100" (vllm-project/vllm#11539),
# "单机8H800", "4L40S". Only these names, each a capital letter and digits: not a workstation card ("3A6000" is
# Loongson's CPU), not a lower-case letter ("8h20" is a time of day), and not digits glued to a word, a version,
# a larger number or an encoded blob ("GH200", "gx3d-160x1792x8h100", "2.8H100", "128H100", "#8A100B").
_LONE = r"(?<![-.,/+#A-Za-z0-9_])"  # (ASCII only: "机8H800" is CJK before the count)
_GLUED_NAME = r"(?-i:(?:[AH]100|[AH]800|H200|H20|A10G?|A30|A40|L40S?|L20|L4|B[23]00|V100|P100|T4)(?![\dA-Z]))"
_AFTER_GLUED_COUNT = rf"(?<={_LONE}[1-9])|(?<={_LONE}[1-9]\d)"
# ... the count itself, for the readers of counts ("8H100": 8), its one group
GLUED_COUNT = rf"{_LONE}([1-9]\d?)(?={_GLUED_NAME})"
# GPU product names as people write them: "8x A100 80GB", "2 x RTX 4090", "H100 SXM", "A6000".
_GPU_NAME = re.compile(
    # (or after a memory size dashed before it, "8 32GB-V100": GPU_COUNT's size)
    rf"(?:(?<![-\w])|(?<=\dG-)|(?<=\dGB-)|(?<=\dGiB-)|(?:{_AFTER_GLUED_COUNT})(?={_GLUED_NAME}))"
    r"(?:(?:NVIDIA|Nvidia|nvidia)\s+)?(?:(?:GeForce|Tesla)\s+)?"
    # "Quadro" stays in the name: "Quadro RTX 6000" is the Turing card, a bare "RTX 6000" the Ada one
    r"((?:Quadro\s+)?(?:A100|H100|H200|H20|H800|A800|L40S|L40|L20|L4|A10G|A10|A30|A40|A16|V100S|V100|T4|P100|P40|P4|M40|K80|B200|B300|GB200|GH200|GB10|GX10|DGX[\s-]*Spark|"
    # "V100s", "L40s" go to the resolver as written: whether the lower-case s is a plural ("8 V100s") or the product's
    # own S ("4 L40s" are L40S cards) is how people write each product, the catalog's call (catalog.gpu_name)
    # Jetson modules: "Jetson AGX Orin", "Orin NX 16GB"
    r"(?:Jetson[\s-]*)?(?:[AI]GX[\s-]*)?Orin(?:[\s-]*(?:NX|Nano))?|"
    r"RTX\s*PRO\s*[2-6]000(?:\s*Blackwell)?|"  # "RTX PRO 6000 Blackwell", before the Ada "RTX 6000"
    # ... and with "Pro" after the number, as owners write it ("two rtx 6000 pro blackwell", vllm#22479)
    r"RTX\s*[2-6]000\s*PRO(?:\s*Blackwell)?|"
    # the A2 only after the vendor's name: a bare "A2" is a section, a paper or Google Cloud's A2 (A100) machines
    r"(?<=nvidia\s)A2|(?<=tesla\s)A2|"
    # (the A4500 / A5500 Ampere cards; the "SFF" RTX 4000 Ada, "RTX 4000 SFF Ada" or "RTX 4000 SFF")
    r"(?:RTX\s*)?A[2-6][05]00(?:\s*Ada)?|(?:RTX\s*)?(?:[2-6]000|[345]500|5880)(?:\s*SFF)?\s*Ada|RTX\s*4000\s*SFF|"
    r"RTX\s*(?:[2-6]000|8000|[345]500|5880)|P6000|"
    # a letter suffix glued to or spaced from the number names its own card ("3090Ti", "4090 D", "4080 SUPER")
    r"(?:(?:RTX|GTX)\s*)?(?:[2-5]0[5-9]0|1[06][5-8]0|20[6-8]0|TITAN\s*(?:RTX|Xp|V|X))(?:\s*(?:Ti|SUPER|D)){0,2}"
    r"(?:\s*(?:Laptop|Mobile)(?:\s*GPU)?)?)"  # (the laptop part: its own memory and clocks, "RTX 4090 Laptop GPU")
    # its form factor, and its memory size as people write it: spaced or dashed ("A100 80GB", "RTX 4090 48G",
    # "A100-40G"), or in brackets ("4090 (48G)", "A100(80GB)", "A6000 [48GB]", "4090（48G）"), or after the word GPU
    # ("4 A100 GPU 40Gb VRAM"), or after an at sign, the card's whatever word follows ("2xA100 @40GB memory",
    # huggingface/text-generation-inference#1779)
    rf"(?:[\s-]*(?:SXM\d?|PCIe|NVL|HBM3e?)|[\s_-]+(?:GPUs?\s+)?{_CARD_SIZE}|\s*@\s*\d{{2,3}}\s*G(?:i?B)?(?![\w/])|[\s_-]*[(\[（【]\s*{_CARD_SIZE}{_EACH}\s*[)\]）】])*)"
    # "two 3090s", "A100's"; a closing bracket ends the name itself ("4090（48G）两张": Chinese needs no space)
    r"(?:(?<=[)\]）】])|(?:s|'s)?(?![\w]))(?!\s*MHz\b)",
    re.I)
# Not a clock: nvidia-smi's and nvtop's clock labels hold numbers that read as model numbers, at any spacing or
# column alignment ("Gfx 3090   SM  3090   Mem 14001", "Graphics : 3090 MHz";
# https://docs.nvidia.com/deploy/nvidia-smi/ 'Clocks', 'Max Clocks'). Checked after the match: a variable-width
# lookbehind is not Python's, and dozens of fixed-width ones made every search several times slower.
_CLOCK_LABEL = re.compile(r"\b(?:SM|Gfx|Mem|Vid|Graphics)\s*:?\s*$", re.I)


# (s27, ut27c) AWS names its GPU instance families p3, p4 (p4d, p4de), p5, g4dn, g5, g6: a bare "p4" in a text that
# names AWS or another of those families is the P4 instance family (A100s), not NVIDIA's Tesla P4 card ("fails on
# aws p5 nodes but works fine on p4 and p4de", aws/aws-ofi-nccl#476). The card keeps its reading with its vendor's
# name ("Tesla P4", "NVIDIA P4"), called a GPU or a card ("a P4 GPU"), or where nothing names an AWS instance; "p4
# instances" is the family wherever it is written.
_AWS_FAMILY = re.compile(r"(?<![\w.-])(?:aws|ec2|p3(?:dn)?|p4de?|p5(?:en|e)?|g4dn|g5g?|g6e?|p6-b200)"
                         r"(?:\.\d*x?large)?(?![\w-])", re.I)


def _aws_p4(text: str, m: re.Match) -> bool:
    """Is the GPU name `m` a bare "p4" in a text that names AWS or another of its GPU instance families?"""
    if m.group(1).lower() != "p4" or re.search(r"tesla|nvidia", m.group(0), re.I) or \
            re.match(r"s?\s*(?:GPUs?|cards?|graphics)\b", m.string[m.end():], re.I):
        return False  # the card by its vendor's name, or called a GPU or a card
    if re.match(r"\s*instances?\b", m.string[m.end():], re.I):
        return True  # "two p4 instances" (aws/aws-ofi-nccl#64): a cloud instance family, whatever else is named
    return any(f.group(0).lower() != "p4" for f in _AWS_FAMILY.finditer(text))


# A web address: a GPU name inside one ("https://example.com/a100-setup", a blog's or a bucket's path) is the page's
# word, not the reporter's board.
_ADDRESS = re.compile(r"\bhttps?://[^\s)\]>\"']{1,500}")


# (physics43) A bare model number that is one side of a picture's size: "1920 x 1080", "1080 x 1920", "1920*1080" are
# a frame's width and height (1080p is 1920 x 1080 pixels), not a GTX 1080. Only a number written alone (no RTX, GTX or
# vendor before it) with three or four digits across the x, so a count times a card ("8 x 1080 Ti", "2 x 3090") keeps
# its reading (Uni3C#12: "cannot generate 1920 x 1080 or 1280 X 720 resolutions videos" on A100s). (s43review) A
# memory size after the card is no picture's side: "4 x 4090 x 128GB" is four 4090s on a host of 128 GB.
_DIMENSION_BEFORE = re.compile(r"(?<![\d.])\d{3,4}\s*[x×*]\s*$", re.I)
_DIMENSION_AFTER = re.compile(r"\s*[x×*]\s*\d{3,4}(?![\d.]|\s?[KMGT]i?B\b)", re.I)


def _picture_size(text: str, m: re.Match) -> bool:
    """Is the GPU name `m` a bare number that is a width or height ("1920 x 1080")?"""
    if not m.group(1).strip().isdigit():
        return False
    return bool(_DIMENSION_BEFORE.search(text[max(0, m.start() - 12):m.start()])
                or _DIMENSION_AFTER.match(text, m.end()))


class _GpuNames:
    """GPU_NAME's matches, less those that are a clock's figure (_CLOCK_LABEL just before, on the same line), AWS's
    P4 instance family (_aws_p4), a picture's width or height (_picture_size) or inside a web address (_ADDRESS)."""

    def finditer(self, text: str):
        addresses = [a.span() for a in _ADDRESS.finditer(text)] if "://" in text else []
        for m in _GPU_NAME.finditer(text):
            before = text[max(0, m.start() - 24):m.start()].rsplit("\n", 1)[-1]
            if not _CLOCK_LABEL.search(before) and not _aws_p4(text, m) and not _picture_size(text, m) \
                    and not any(a <= m.start() < b for a, b in addresses):
                yield m

    def search(self, text: str):
        return next(self.finditer(text), None)

    def match(self, text: str, pos: int = 0):
        """A GPU name starting at `pos`, as re's match; none that is a clock's figure."""
        m = _GPU_NAME.match(text, pos)
        before = text[max(0, pos - 24):pos].rsplit("\n", 1)[-1]
        return m if m and not _CLOCK_LABEL.search(before) and not _aws_p4(text, m) \
            and not _picture_size(text, m) else None


GPU_NAME = _GpuNames()


# A laptop word beside a card's name: the laptop part, with its own memory and clocks ("my laptop RTX 4090" is the
# "GeForce RTX 4090 Laptop GPU", 576 GB/s against the desktop card's 1,008; NVIDIA names the mobile parts "... Laptop
# GPU", https://www.nvidia.com/en-us/geforce/laptops/compare/). Before it ("laptop RTX 4090", "notebook with an RTX
# 4060") or right after it and its size ("RTX 5090 24GB laptop"); not "laptop" further away.
_LAPTOP_BEFORE = re.compile(r"\b(?:laptop|notebook|mobile)\s+(?:(?:with|has|having|an?|my|the)\s+){0,2}"
                            r"(?:(?:NVIDIA|GeForce)\s+){0,2}$", re.I)
_LAPTOP_AFTER = re.compile(r"^\s*(?:laptop|notebook|mobile)\b", re.I)


def gpu_as_written(text: str, m: re.Match) -> str:
    """The GPU name `m` (a GPU_NAME match in `text`) as the ticket's GPU: its product words, with "Laptop" where a
    laptop word stands beside it and the name does not already say so."""
    name = m.group(1).strip()
    if re.search(r"laptop|mobile|max-?q", name, re.I):
        return name
    before, after = text[max(0, m.start() - 40):m.start()], text[m.end():m.end() + 20]
    return f"{name} Laptop" if _LAPTOP_BEFORE.search(before) or _LAPTOP_AFTER.match(after) else name
# A count said in English words: the cardinals one to twelve, sixteen, and the words that name a count ("a single",
# "a pair of", "dual", "quad", "a dozen"). Zero is no GPU count, and is left out.
ENGLISH_COUNT_WORDS = {"single": 1, "one": 1, "two": 2, "a pair of": 2, "dual": 2, "three": 3, "four": 4, "quad": 4,
                       "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
                       "a dozen": 12, "sixteen": 16}
COUNT_WORDS = {**ENGLISH_COUNT_WORDS,
               "一": 1, "单": 1, "两": 2, "二": 2, "双": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
               "九": 9}


def words_pattern(words) -> str:
    """An alternation of count words, the longest first ("sixteen" before "six"), any run of spaces inside one
    ("a  pair of")."""
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


# A count in Chinese: a numeral and the measure word for cards ("两张 A100", "8 卡 4090", "四块 3090").
# A numeral of 十 read whole ("十六卡" 16, "十二张" 12, "二十张" 20), not its last digit; none after 第 (an ordinal,
# "第四卡" the fourth card), 每 ("每卡", per card), 十/百 (inside a longer numeral) or a digit.
_CJK_N = r"(?<![第每十百\d])([一二两三四五六七八九]?十[一二三四五六七八九]?|[一单两二双三四五六七八九]"
# Each card's memory may stand between the count and the name, as owners write it: "4 张 24G 显存的 3090"
# (InternLM/lmdeploy#2145), "两张24G的4090", "8卡80G A100" (the English form is GPU_COUNT's _SIZE_BEFORE_NAME).
CJK_GPU_COUNT = re.compile(_CJK_N + r"|\d{1,4})\s*(?:张|块|个|片|卡)\s*(?:\d{1,3}\s*G(?:i?B)?\s*(?:显存)?\s*的?\s*)?"
                           r"(?:(?:NVIDIA|Nvidia|nvidia)\s+)?$")
# A count after 前 / 后 ("the first / last N") names part of the GPUs, not how many the job has: "前两张卡跑满，后两张卡
# 几乎无占用" (the first two cards full, the last two idle, of four: modelscope/ms-swift#1376). Not 目前 / 之前 / 以前 /
# 当前 / 然后 / 随后 / 之后 ("currently", "before", "then", "after"), which only sit before a count.
CJK_PART_BEFORE = re.compile(r"(?:^|[^目之以当然随])(?:前|后|後)\s*$")
# ... or a numeral glued to 卡 ("四卡推理", "双卡", "8卡"): the cards a run used. Not 单卡 / 一卡 ("a single card"), the
# baseline of a comparison, as "one GPU" is not a count in English (GPUS_COUNTED counts plurals).
# (review35) each card's memory may stand before the noun too: "我有8张10G显存的显卡" (mymusise/ChatGLM-Tuning#235),
# "我4张40g的卡" (zai-org/GLM-4#321), as CJK_GPU_COUNT takes it before a name.
CJK_GPUS_COUNTED = re.compile(_CJK_N + r"|\d{1,2})\s*(?:张|块)\s*(?:\d{1,3}\s*[Gg](?:i?B)?\s*(?:显存)?\s*的?\s*)?"
                              r"(?:显卡|卡|GPU)|"
                              r"(?<![第每十百\d])(\d{1,2}|[一二两三四五六七八九]?十[一二三四五六七八九]?|[两二双三四六八])"
                              r"\s*卡(?!\s*[A-Za-z0-9])")
# ... and in the other languages these threads are written in, a counter or a GPU noun beside the number ("GPUは2枚",
# "2枚のGPU", "GPU가 두 개", "zwei Karten", "две видеокарты", "dos tarjetas"; "画像を2枚" counts images, not GPUs).
WORLD_COUNT_WORDS = {"zwei": 2, "drei": 3, "vier": 4, "acht": 8, "dos": 2, "tres": 3, "cuatro": 4, "ocho": 8,
                     "два": 2, "две": 2, "двух": 2, "три": 3, "трёх": 3, "трех": 3, "четыре": 4, "четырёх": 4,
                     "четырех": 4, "восемь": 8, "한": 1, "두": 2, "세": 3, "네": 4, "여덟": 8}
_JA_GPU = r"(?:GPU|グラボ|グラフィックボード|ビデオカード)"
_KO_GPU = r"(?:GPU|그래픽\s*카드|카드)"
_KO_N = r"(\d{1,2}|한|두|세|네|여덟)"
_EU_WORDS = "|".join(w for w in WORLD_COUNT_WORDS if w.isascii() or "\u0400" <= w[0] <= "\u04ff")
WORLD_GPUS_COUNTED = re.compile(
    _JA_GPU + r"\s*(?:は|が|を|も)?\s*(\d{1,2}|[一二三四八])\s*枚|(\d{1,2}|[一二三四八])\s*枚\s*の?\s*" + _JA_GPU + "|"
    + _KO_GPU + r"\s*(?:가|이|를|을|는|은)?\s*" + _KO_N + r"\s*(?:개|장)|"
    + _KO_N + r"\s*(?:개|장)\s*의?\s*" + _KO_GPU + "|"
    r"\b(" + _EU_WORDS + r")\s+(?:\w+\s+)?(?:GPUs?|Karten|Grafikkarten|tarjetas|видеокарт\w*)(?!\w)|"
    r"\b(\d{1,2})\s+(?:\w+\s+)?(?:Karten|Grafikkarten|tarjetas|видеокарт\w*)(?!\w)", re.I)
_COUNT = r"(\d{1,4}|" + words_pattern(COUNT_WORDS) + r")"
# A GPU's row of the `nvidia-smi` table pasted as prose ("|   1  NVIDIA GeForce RTX 4090   Off | 00000000:03:00.0
# Off |"): the number before the name is the GPU's index, not a count (https://docs.nvidia.com/deploy/nvidia-smi/, the
# default output's 'GPU  Name  Persistence-M' column); also pasted without its pipes, the bus id after the
# persistence mode ("7  NVIDIA H100 80GB HBM3   On  00000000:03:00.0 Off").
SMI_GPU_ROW = re.compile(r"^\s*(?:\|\s*)?\d{1,2}\s+\S.*\b(?:On|Off)\s*(?:\||\s[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:)")
# (not a number glued to the word before it: "Qwen1.5 RTX 5880", "Llama-3 4090" name a model's version, not a count)
# Between the count and the name, each card's memory as owners write it before the name: "8 32GB-V100"
# (deepspeedai/DeepSpeed#2892), "4x 80GB A100", "2x24GB 3090s", "a single 40GB A100" (group 2; the name the
# Workload records then carries it, "V100 32GB", and rules.subject judges whether it is the board's size). Not a size
# the host's RAM is ("64GB RAM 2 RTX 3090" counts 2), nor a count that is a size itself ("8 GB" is no count).
_SIZE_BEFORE_NAME = r"(\d{1,3})\s*G(?:i?B)?(?![\w/])" + _NOT_HOST_SIZE
_NOT_A_SIZE = r"(?![\d.])(?!\s*G(?:i?B)?\b)"  # the count is the whole number, and no size itself
# (left28b) 双 / 两 glued to the board after a Chinese word: "一台双3090的服务器" (a server with two 3090s,
# OpenMOSS/MOSS#151), "部署双4090环境" (zai-org/GLM-4#469). Chinese writes no space, so the character before the count
# is a word's last, not part of a number or name ("Qwen2-7B 3090"). 双路 (two CPU sockets, "双路9654+双路3090",
# kvcache-ai/ktransformers#828) stays unread: the count must touch the board.
GPU_COUNT = re.compile(r"(?:(?<![\w.-])|(?<=[\u4e00-\u9fff])(?=[双两]))" + _COUNT + _NOT_A_SIZE
                       + r"\s*(?:x|×|\*)?\s*(?:" + _SIZE_BEFORE_NAME
                       + r"[\s-]*)?(?:(?:NVIDIA|Nvidia|nvidia)\s+)?$", re.I)
# "Two nodes, 8x A100 each", "8 GPUs per server": a count per node, not the job's total.
PER_NODE = re.compile(r"^[^.\n;]{0,30}?\b(?:each|per (?:node|server|host|machine)|"
                      r"in each (?:node|server|host|machine))\b", re.I)
NODES_NAMED = re.compile(r"\b" + _COUNT + r"\s+(?:GPU\s+)?(?:nodes|servers|hosts|machines)\b", re.I)
_NODE_NOUN = r"(?:nodes?|servers?|hosts?|machines?|boxes)"
# Another count of GPUs later on the line ("..., with 2 GPUs per node", "..., 8 per node", "(2 on each)", "..., 8
# GPUs total"): what follows it qualifies that count, not the one before it (_per_node).
OTHER_COUNT_AFTER = re.compile(r"\b\d{1,4}\s*(?:x\s*)?(?:GPUs|cards|GPUs?\s+(?:per|each)|"
                               r"per\s+(?:node|server|host|machine)\b|(?:each|in each|on each)\b|total\b|in total\b)",
                               re.I)
# ... or said before the count: "Two nodes, each with 8x H100", "2 nodes x 8 H100", "two nodes of 8x H100",
# "each node has 8 A100", "per server: 4 L40S"
NODES_THEN_COUNT = re.compile(r"\b" + _COUNT + r"\s+(?:GPU\s+)?" + _NODE_NOUN + r"\s*,?\s*(?:(?:each\s+)?"
                              r"(?:with|of|having|has|holding|containing)|x|×|\*)\s*$", re.I)
EACH_THEN_COUNT = re.compile(r"\b(?:each|every|per)(?:\s+" + _NODE_NOUN + r"(?:\s+(?:on|in|of)\s+(?:my|our|the|this|"
                             r"that)\s+(?:system|cluster|setup))?)?\s*(?:with|has|having|holds|contains|:)?\s*$",
                             re.I)  # (not "each of 8 H100": every one of them; "Each node on my system has 8 GPUs",
# NVIDIA/TensorRT-LLM#1035: the node's own size, whatever the place named between)
# ... in Chinese, 每 "each" with a machine's counter (台) or noun before the count: "在每台机器为8卡A800显卡下"
# (modelscope/ms-swift#1825), "每个节点8张A100", "每台服务器上有8张"; not 每张卡 / 每卡 ("each card": a figure per GPU)
# (the verb that may stand between "each machine" and the count: 每台机器有 8 卡, 每个节点配置了 8 张)
_CJK_HAS_THEN_END = r"(?:有|为|是|配|装|配置|配备|插|用|使用)?\s*了?\s*$"
# (healthy42) ... or 各 "each" right after the machines counted: "双机各2卡" (two machines, 2 cards each:
# aliyun/aicb#8), "双机各8卡，共16卡", "两机各8卡使用 NNODES=2 GPUS_PER_NODE=8", "双机各 16 卡的场景" (launch notes
# in public repositories)
_CJK_MACHINES_EACH = r"(?:机器?|服务器|主机|节点|機器?|伺服器|節點)\s*各\s*" + _CJK_HAS_THEN_END
CJK_EACH_THEN_COUNT = re.compile(r"每\s*(?:一\s*)?(?:台\s*(?:机器|服务器|主机|节点|機器|伺服器)?|"
                                 r"个\s*(?:机器|服务器|主机|节点)|(?:机器|服务器|主机|节点|節點))\s*(?:上|里|中)?\s*"
                                 r"(?:都|各)?\s*" + _CJK_HAS_THEN_END + "|" + _CJK_MACHINES_EACH)
# ... and the machines counted just before that 各 are the nodes: 双机 / 两机 / 两台机器 / 2台服务器 各 N 卡
# (s42review) the count is a whole number: not a model's digits ("H800 服务器各 8 卡" is no 800 machines); a Chinese
# numeral is read whole, as a card count is (_CJK_N: "十二台服务器各 8 卡" is twelve machines, not two)
CJK_NODES_EACH = re.compile(_CJK_N + r"|(?<![A-Za-z0-9_.])\d{1,4})\s*(?:台|个)?\s*" + _CJK_MACHINES_EACH)
# (review27b) ... or "each of them" back to nodes named just before: "I have 2 nodes and each of them has 2 v100"
# (vllm-project/vllm#7837), "on two nodes, both of which have 8 A100 80GB gpus" (NVIDIA/nccl-tests#150); "them"
# after GPUs named ("4 A100s and each of them has 80GB") is no node.
EACH_OF_NODES = re.compile(r"\b" + _NODE_NOUN + r"\b[^.\n]{0,20}?\b(?:each|both|all)\s+of\s+(?:them|these|those|which)"
                           r"\s*(?:with|has|have|having|holds|contains|:)?\s*$", re.I)
# ... or the count describes the nodes the job counts: "Two 8x H100 nodes", "2x 8-GPU servers"
NODE_COUNT_BEFORE = re.compile(r"\b" + _COUNT + r"\s*(?:x|×|\*)?\s*$", re.I)
NODE_AFTER = re.compile(r"^\s*(?:GPUs?\s+|cards?\s+)?" + _NODE_NOUN + r"\b", re.I)
# ... and a plain count before the GPU's name with plural machines after it counts the machines, not their GPUs:
# "two A100 machines", "6 A100 (80G) machines", "4 H100 servers" (a count with a multiplier, "8x H100 nodes", or a
# single node, "an 8 A100 node", is the GPUs of each)
NODES_OF_GPU = re.compile(r"^\s*(?:(?:\(\s*)?\d{2,3}\s*G(?:B|iB)?(?:\s*\)\s+|\s+))?"
                          r"(?:nodes|servers|hosts|machines|boxes)\b", re.I)
# ... or as a product, nodes times GPUs per node: "2*8*H100", "2 x 8 x H100 80GB" (the count read is the second
# factor; this is the first, just before it); and the nodes after the GPUs: "8xH100 x 2 nodes"
NODE_FACTOR_BEFORE = re.compile(r"\b(\d{1,4})\s*[x×*]\s*$", re.I)
NODES_TIMES_AFTER = re.compile(r"^\s*(?:[x×*]|times)\s*" + _COUNT + r"\s+(?:GPU\s+)?(?:nodes|servers|hosts|machines|"
                               r"instances|boxes)\b", re.I)
# ... and a GPU named by its memory alone in such a product, as hardware lines write a node layout: "2 x 8 x 80G",
# "4*8*40GB" (nodes x GPUs x memory per GPU). Not a line about host memory ("2 x 8 x 32G DDR4 DIMMs").
GPU_MEMORY_PRODUCT = re.compile(r"\b\d{1,4}\s*[x×*]\s*(\d{1,2})\s*[x×*]\s*\d{2,3}\s*G(?:B|iB)?\b"
                                r"(?!\s*(?:/s|ps|bits?)\b)", re.I)
STATED_SIZE_IN = re.compile(r"\d\s*G(?:i?B)?\b", re.I)  # a name that already states its size ("A100 80GB")
HOST_MEMORY = re.compile(r"\b(?:RAM|DRAM|DDR\d?|DIMMs?|memory sticks?|system memory|host memory|swap|disks?|SSDs?|"
                         r"NVMe|HDDs?)\b", re.I)
# "16 A100 in total", "a total of 16 GPUs", "16 H100 across two nodes": the job's count, whatever names the nodes
TOTAL_BEFORE = re.compile(r"\b(?:total of|in total|altogether|overall)\s*$", re.I)
TOTAL_AFTER = re.compile(r"^[^.;\n]{0,24}?\b(?:in total|total|altogether|overall|combined|in all|across|"
                         r"spread over|split over|over (?:the|both|two|\d+) (?:nodes|servers|hosts|machines))\b", re.I)
# ... and a total said after a count per node: "8 GPUs per node, 32 GPUs in total", "8x H100 GPUs per node (16 GPUs
# total)", "4 GPUs per node (16 GPUs total)" (_per_node: the total over the GPUs of each node is the nodes)
TOTAL_COUNT_AFTER = re.compile(r"^(\d{1,4})\s*(?:x\s*)?(?:GPUs?|cards?)?\s*(?:in\s+total|total|altogether|overall|"
                               r"combined|in\s+all)\b", re.I)
# A count glued after a board's name by an x ("A100x8", "H100x4", "L20x8": an uppercase letter, its digits, x, one or
# two digits, nothing after), spaced so GPU_COUNT_AFTER reads it
# A count glued to a board with a capital X, as titles write it ("2X3090", "8X A100", "4X RTX 4090"): the same "x" (not
# after a letter or digit, so no hex "0X1F" and no "RTX"; a count of 1 to 99).
UPPER_TIMES = re.compile(r"(?<![\w.])([1-9]\d?)X(?=\s?(?:[A-Z]{1,4}\s?\d|\d{4}\b))")
GLUED_COUNT_AFTER = re.compile(r"(?<![\w.-])([A-Z]\d{2,4})[x×]([1-9]\d?)\b(?![.,]\d)")
GPU_COUNT_AFTER = re.compile(r"^\s*(?:(?:GPUs?|cards?)\s*)?(?:x|×|\*)\s*(\d{1,4})\b|"
                             # ... or a counter after the board, with at most a particle between, as Japanese, Chinese
                             # and Korean count cards: "4090を8枚", "4090 八张", "4090 두 장" (not "4090で画像を2枚",
                             # nor 개월/개년, months and years: "4090을 3개월")
                             r"^\s*(?:(?:を|が|は|も)\s*)?(\d{1,2}|[一二两三四八])\s*(?:枚|张|块)|"
                             r"^\s*(?:(?:를|을|가|이)\s*)?(\d{1,2}|두|세|네|여덟)\s*(?:장|개)(?!월|년)", re.I)
# (a size may come between: "2 * 40GB GPUs", vllm-project/vllm#4825; "two 24 GB GPUs"; the plural also written with an
# apostrophe or apart, "3 gpu's" (dphnAI/sonar#426), "2 gpu s": _counted_gpus leaves "one GPU's memory", a possessive)
GPUS_COUNTED = re.compile(r"\b" + _COUNT.replace("4}", "2}") + _NOT_A_SIZE + r"(?:\s*[x×*]\s*(?=\d{1,3}\s*G)|\s+)"
                          r"(?:\d{1,3}\s*G(?:i?B)?\s+)?(?:\w+\s+)?(?:GPUs|GPU['’]s|GPU\s+s|cards|card['’]s|"
                          r"graphics cards)\b|"
                          r"\b(\d{1,2})-GPU(?=\s+" + _NODE_NOUN + r"\b)|"  # "8-GPU servers"
                          # "2-GPU inference", "a 4-GPU setup", "the 8-GPU run": the count the work ran on
                          r"\b(\d{1,2})-GPU(?=\s+(?:inference|serving|decod\w*|generation|setups?|runs?|rigs?|"
                          r"systems?|configs?|configurations?|deployments?)\b)|"
                          # "one GPU per node": one rank a node, so a multi-node run uses one NIC port of each
                          r"\b(one|1|a single)\s+GPU(?=\s+(?:per|on each|in each)\s+" + _NODE_NOUN + r"\b)|"
                          # (paraphrase audit, s24) a card added to the one there was: "adding second GPU barely
                          # improves token generation speed", "I added a third card": the GPUs are then that many
                          r"\b(?:add|adds|added|adding|with|plus|bought|buying|installed|installing)\s+"
                          r"(?:a\s+|the\s+|my\s+|another\s+)?(second|third|fourth)\s+(?:\w+\s+)?"
                          r"(?:GPU|card|graphics card)\b", re.I)
# The ordinal of the card added ("adding a second GPU"), as GPUS_COUNTED's last form captures it: the GPUs then in use.
ORDINAL_GPUS = {"second": 2, "third": 3, "fourth": 4}
SUPPOSED_CARD = re.compile(r"\b(?:if|whether|unless|should|would)\b[^.!?]*$", re.I)
# "when" supposes only with a modal after the card ("when adding a second GPU, it will not ..."); with none it dates
# what was seen ("Slowdown by factor 100 when adding second GPU", keras-team/keras#10832: two GPUs in use)
WHEN_CARD = re.compile(r"\bwhen(?:ever)?\b[^.!?]*$", re.I)
MODAL_AFTER = re.compile(r"^[^.!?]*?\b(?:will|would|won't|wouldn't|should|may|might|can|could)\b", re.I)
# A count that ends a list of counts or alternatives is none of them: "in order to use 3, 5, 7 gpus" (dphnAI/sonar#426),
# "2 or 4 GPUs", "4/8 GPUs" (not "CUDA 12.1, 8 GPUs": a version's digits are no count).
COUNTS_LISTED = re.compile(r"(?<![\w.])\d{1,2}\s*(?:,\s*(?:(?:or|and)\s+)?|/\s*|\s+or\s+)$", re.I)
_APOSTROPHE_PLURAL = re.compile(r"['’]s$|\ss$", re.I)


def _counted_gpus(ln: str):
    """The first GPUs-counted match of a line (GPUS_COUNTED, then the Chinese and other languages' forms), leaving a
    count that ends a list of counts and a possessive of one GPU ("one GPU's memory")."""
    for pattern in (GPUS_COUNTED, CJK_GPUS_COUNTED, WORLD_GPUS_COUNTED):
        for m in pattern.finditer(ln):
            if COUNTS_LISTED.search(ln[:m.start()]):
                continue
            if pattern is CJK_GPUS_COUNTED and CJK_PART_BEFORE.search(ln[:m.start()]):
                continue  # "前两张卡": some of the GPUs
            if pattern is GPUS_COUNTED and _APOSTROPHE_PLURAL.search(m.group(0)) and \
                    _count(next(g for g in m.groups() if g)) < 2:
                continue
            if next(g for g in m.groups() if g).lower() in ORDINAL_GPUS and (
                    SUPPOSED_CARD.search(ln[:m.start()])
                    or WHEN_CARD.search(ln[:m.start()]) and MODAL_AFTER.search(ln[m.end():])):
                continue  # "If your model fits on one GPU, adding a second GPU will not ...": advice, no card added
            return m
    return None


# The GPUs the job runs on, said apart from those the machine has: "on one GPU of a g6.48xlarge", "with a single
# GPU of the 8", "on just one of the 4 GPUs", "pinned to only GPU 0", "on GPU 0 only"; Docker's `--gpus 1` /
# `--gpus device=0`
# (https://docs.docker.com/engine/containers/resource_constraints/#gpu: a count, or "device=" and the GPUs' ids).
# Not a count the sentence denies or measures against ("does not fit on a single GPU of the node", "more than one GPU
# of"), nor one GPU of several that a fault or a reading singles out ("one GPU of the 8 failed", "one GPU is at 100 %"),
# nor what the software is seen to do ("it seems to only use one GPU out of four": the complaint, not the setup).
_ONE = r"(?:one|a single|1|single|a lone)"
JOB_ON_ONE = re.compile(
    r"\b(?:on|with|onto|to)\s+(?:only\s+|just\s+)?" + _ONE + r"\s+(?:GPU|card)\s+(?:of|out of|from)\b|"
    r"\b(?:on|onto|to)\s+(?:only|just)\s+(?:one|1|a single)\s+of\s+(?:the|its|my|our|his|their|them|those|these)\b|"
    r"\b(?:on|to)\s+(?:only|just)\s+GPU\s*#?\s*\d{1,2}\b(?!\s*(?:,|and|&)\s*\d)|"
    r"\b(?:on|to)\s+GPU\s*#?\s*\d{1,2}\s+only\b", re.I)
JOB_NOT = re.compile(r"\b(?:not|n't|never|cannot|can't|won't|more than|too\s+\w+\s+for|instead of|rather than|than)"
                     r"\s+(?:\w+\s+){0,3}$", re.I)
JOB_FAULT_AFTER = re.compile(r"^[^.;\n]{0,40}?\b(?:fail\w*|dead|died|broken|faulty|missing|fell off|XID|errors?|"
                             r"slower|faster|hotter|throttl\w*|idle|at 100|busy|stuck|working|active|used|"
                             r"utili[sz]\w*|loaded)\b", re.I)
DOCKER_GPUS = re.compile(r"--gpus[= ]+[\"']*(?:(device=)([\w,-]+)|(\d{1,3})\b)", re.I)
# ... and the NVIDIA Container Toolkit's own variable, which picks the GPUs a container gets: "0,1", GPU UUIDs, or
# "all" / "none" / "void", which count none here (https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/
# latest/docker-specialized.html, GPU enumeration)
CONTAINER_GPUS = re.compile(r"\bNVIDIA_VISIBLE_DEVICES\s*[=:]\s*[\"']?"
                            r"((?:\d{1,2}|GPU-[\w-]+)(?:\s*,\s*(?:\d{1,2}|GPU-[\w-]+))*)(?![\w-])")


# One GPU said as the setup, the count people leave off when it is one: "single gpu" (vllm-project/vllm#5316), "on a
# single GPU", "with one GPU", "using 1 GPU", "a single-GPU setup". Not one GPU the sentence sizes something against
# ("does not fit on a single GPU", "more than one GPU", "than a single GPU": JOB_NOT, SINGLE_GPU_FIT), supposes or asks
# about ("if one GPU is enough": SUPPOSED_CARD), singles out of several ("only one GPU is used", "one GPU is at 100 %":
# JOB_FAULT_AFTER; "one GPU of the 8", "one GPU per node"), nor a line that compares counts ("single GPU vs 2 GPUs") or
# weighs another card ("I just got a 3090 and considering to get another one").
SINGLE_GPU = re.compile(r"(?<![\w-])(?:a\s+single|single|one|1)[- ](?:GPU|card)\b(?!['’-])"
                        r"(?!\s*(?:of|out\s+of|from|per|each|at\s+a\s+time)\b)", re.I)
SINGLE_GPU_FIT = re.compile(r"\b(?:fit|fits|fitting|fitted|load\w*|limited|restricted|vs\.?|versus|compared?)\b"
                            r"[^.!?;]*$", re.I)
SINGLE_GPU_VS = re.compile(r"\b(?:vs\.?|versus|compared\s+(?:to|with))\s|\b\d{1,2}\s*(?:GPUs|cards)\b|"
                           r"\b(?:[2-9]|1\d)[- ](?:GPUs?|cards?)\b|"  # "tensor-parallel on 2-gpus and 4-gpus" (t008)
                           r"\b(?:dual|two|multi|multiple|several|more|second)[- ]?(?:GPUs?|cards?)\b|"
                           r"\btensor[- _]?parallel|\bTP\s*[=:]?\s*[2-9]|"
                           r"\banother\b", re.I)


# Boards counted above one, "7 * 4090", "2 x A100" (as _mentions spaces them), or in Chinese with the measure word
# for cards ("2张A100", "两张", "双卡"; not 单卡, one card): a second GPU in the text.
MORE_COUNTED = re.compile(r"\b(?:[2-9]|[1-9]\d{1,2})\s*[x×*]\s*(?:[A-Z]|\d{4})"
                          r"|(?<![第每十百\d])(?:[2-9]|[1-9]\d{1,2}|[两二双三四五六七八九十])\s*(?:张|块|卡)")


def _counted_as(spaced: dict[int, str], n: int) -> tuple[int, int, int] | None:
    """(line, start, end) of the first board count of `n` (MORE_COUNTED's digits: "4 x A100" as _mentions spaces
    it), or None."""
    return next(((i, m.start(), m.end()) for i, ln in spaced.items() for m in MORE_COUNTED.finditer(ln)
                 if m.group(0)[:1].isdigit() and int(re.match(r"\d+", m.group(0)).group()) == n), None)


# ... or one board with an article, after a verb or preposition of having or running it: "On a 3090 on windows"
# (oobabooga/textgen#2410), "on an A100 80G GPU" (vllm-project/vllm#8669), "I have a 4090". Not "a H100 node" or
# "an A100 server" (a machine of several), and only where the text names no other board.
BOARD_WITH_ARTICLE = re.compile(r"\b(?:on|with|using|use|uses|have|has|had|got|own|bought|running|run|runs)\s+an?\s+"
                                r"(?:(?:NVIDIA|GeForce|Tesla)\s+)*$", re.I)
MACHINE_AFTER_BOARD = re.compile(r"^\s*(?:GPUs?\s+)?(?:nodes?|servers?|machines?|hosts?|instances?|clusters?|box|boxes|"
                                 r"systems?|rigs?|pods?|VMs?|workstations?)\b", re.I)


def _board_core(name: str) -> str:
    """A board's name without vendor words, memory or form factor ("RTX 3090 24GB" -> "3090"): one board or two."""
    found = re.findall(r"[a-z]*\d{2,4}", re.sub(r"\b(?:rtx|gtx|geforce|nvidia|tesla)\b|\d+\s*gi?b?\b", " ",
                                               name.lower()))
    return found[0] if found else name.lower()


def _one_gpu_said(lines) -> tuple[int, int, int] | None:
    """(line, start, end) of the first place the prose says the work runs on one GPU (SINGLE_GPU, or one board named
    with an article: BOARD_WITH_ARTICLE), else None."""
    lines = list(lines)
    boards = {_board_core(m.group(1)) for _, ln in lines for m in GPU_NAME.finditer(ln)}
    for i, ln in lines:
        if SINGLE_GPU_VS.search(ln):
            continue
        one = list(SINGLE_GPU.finditer(ln))
        if len(boards) == 1:
            one += [m for m in GPU_NAME.finditer(ln) if BOARD_WITH_ARTICLE.search(ln[max(0, m.start() - 40):m.start()])
                    and not MACHINE_AFTER_BOARD.match(ln[m.end():])]
        for m in sorted(one, key=lambda x: x.start()):
            lead = re.split(r"[.!?;]\s", ln[:m.start()])[-1]
            if JOB_NOT.search(lead[-40:]) or SINGLE_GPU_FIT.search(lead) or SUPPOSED_CARD.search(lead) \
                    or JOB_FAULT_AFTER.match(ln[m.end():]) or ln[m.end():].lstrip().startswith("?"):
                continue
            return i, m.start(), m.end()
    return None


# The weights' width set in pasted code: transformers' from_pretrained(torch_dtype=torch.float16) (or dtype=, its newer
# name), a model cast with .half() / .bfloat16(), and bitsandbytes' load_in_8bit / load_in_4bit
# (https://huggingface.co/docs/transformers/main/en/main_classes/model#model-instantiation-dtype,
# https://huggingface.co/docs/transformers/main/en/quantization/bitsandbytes). With bitsandbytes, torch_dtype is the
# compute type: the quantised width wins.
CODE_FLOAT = re.compile(r"\b(?:torch_dtype|dtype)\s*=\s*[\"']?(?:torch\.)?(float16|half|bfloat16|float32)\b|"
                        r"\.(half|bfloat16)\(\)")
CODE_QUANT = re.compile(r"\bload_in_(8|4)bit\s*[=:]\s*True\b")
# ... and said in the prose, where the ticket names one weight format and no other: a GGUF type ("IQ4_XS"), a
# method ("AWQ", "GPTQ"), an EXL2 bit rate ("4.0 bpw"), "8-bit", or a 16-bit float by its name ("bfloat16", "FP16";
# not "half", which prose uses for other things). FP8 is left to model names and flags: prose names it as often for
# the KV cache or a GPU's throughput; a KV cache's type ("fp8 kv cache", "--kv-cache-dtype fp8") is no weight format.
PROSE_SIXTEEN = re.compile(r"(?<![a-z0-9])(?:(fp16|f16|float16)|(bf16|bfloat16))(?![a-z0-9])", re.I)
KV_TYPE = re.compile(r"\bkv[-_ ]?cache[-_ ]?(?:dtype)?\s*[=:]?\s*\w+|\b\w+\s+kv[-_ ]?cache\b", re.I)
COMPARING = re.compile(r"\b(?:than|vs\.?|versus|compar\w*)(?!\w)", re.I)
SPEED_FIGURE = re.compile(r"\d(?:[\d.,]*\d)?\s*(?:tok\w*|t/s|tps|it/s|ms\b)", re.I)  # two in one sentence: compared
NOT_RUN = re.compile(r"\?|\b(?:if|whether|should|would|could|try|trying|plan\w*|want\w*|recommend\w*|suggest\w*)\b",
                     re.I)


def _weights_said(prose, code_lines, name: str) -> list:
    """The weights' width the pasted code sets (CODE_FLOAT, CODE_QUANT), else the one weight format the prose names
    (PROSE_SIXTEEN, text.QUANT_DTYPES): a Workload holding it, or none where two disagree or none is named."""
    quant = {"int8" if m.group(1) == "8" else "int4": i for i, ln in code_lines for m in CODE_QUANT.finditer(ln)}
    floats = {"bf16" if (m.group(1) or m.group(2)) == "bfloat16" else
              "fp32" if m.group(1) == "float32" else "fp16": i for i, ln in code_lines for m in CODE_FLOAT.finditer(ln)}
    said = quant or floats
    if not said:
        for i, ln in prose:
            for sentence in sentences(ln):
                if ln.lstrip().startswith(">") or NOT_RUN.search(sentence):
                    continue  # a quote, a question, a plan or advice: no format of the run
                sentence = KV_TYPE.sub(" ", sentence)
                named = [dtype for dtype, pattern in QUANT_DTYPES if dtype != "fp8"
                         for _ in pattern.finditer(sentence)]
                named += ["fp16" if m.group(1) else "bf16" for m in PROSE_SIXTEEN.finditer(sentence)]
                if len(named) == 1 and (COMPARING.search(sentence) or len(SPEED_FIGURE.findall(sentence)) >= 2):
                    continue  # "13B-4bits is much slower than 13B", "38 token/s for 13B and 18 for 13B-4bits"
                said.update({dtype: i for dtype in named})
    return [Workload(where(name, i), dtype=dtype) for dtype, i in said.items()] if len(said) == 1 else []


# TensorRT-LLM named by its package, CLIs or repository (tensorrt_llm, trtllm-build, NVIDIA/TensorRT-LLM), its run.py's
# --engine_dir (engine_signs) or its benchmarks' "[BENCHMARK] model_name ..." result lines (batch_bench)
TRTLLM_NAMED = re.compile(r"tensorrt[-_ ]?llm|\btrt[-_ ]?llm|\btrtllm|--engine_dir\b|"
                          r"\\?\[BENCHMARK\\?\]\s*model_name\b", re.I)
# TensorRT-LLM starts one MPI rank per GPU of the engine: "mpirun -n 4 python3 run.py --engine_dir ..." runs the
# world the engine was built for, tp_size x pp_size ranks (TensorRT-LLM's examples/llama README runs its 2-way TP engine
# with "mpirun -n 2 ... ../run.py"; https://nvidia.github.io/TensorRT-LLM/architecture/core-concepts.html); the
# launcher's own -n / -np before the program (not the program's flags after it), the program a Python script or a C++
# benchmark.
MPI_RANKS = re.compile(r"(?:^|[\s/`])(?:mpirun|mpiexec)\b(?P<launcher>[^`|;&]*?)\s(?:\S*/)?(?:python[\d.]*|"
                       r"gptManagerBenchmark|gptSessionBenchmark|trtllm-\w+)\b")
# (a pipeline stage said anywhere, "--pp_size 2", "pipeline_parallel_size: 2", leaves the world's split unknown)
PIPELINE_SAID = re.compile(r"\b(?:pp[-_]?size|pipeline[-_ ]parallel\w*)\W{0,3}(?!1\b)\d", re.I)
MPI_NP = re.compile(r"(?:^|\s)--?np?[=\s]+(\d{1,3})\b")
# ... and names its engine and checkpoint folders by the GPUs they were built for: "trt_engines/fp16/1-gpu/",
# "tllm_checkpoint_1gpu_bf16", "fp16/4-gpu-tp" (the examples' convention, TensorRT-LLM examples/llama README:
# "--output_dir ./tllm_checkpoint_2gpu_tp2", "./tmp/llama/7B/trt_engines/fp16/2-gpu/")
ENGINE_DIR_GPUS = re.compile(r"(?<=[/_])(\d{1,2})-?gpus?(?=[/_\-\s`\\]|$)", re.I)


def _trtllm_world(lines) -> tuple[int, int] | None:
    """(line, ranks) of the one world size a TensorRT-LLM ticket's mpirun lines start, or None (none, or several)."""
    if not any(TRTLLM_NAMED.search(ln) for _, ln in lines) or any(PIPELINE_SAID.search(ln) for _, ln in lines):
        return None
    found = {(i, int(n.group(1))) for i, ln in lines for m in MPI_RANKS.finditer(ln)
             if (n := MPI_NP.search(m.group("launcher")))}
    return min(found) if len({n for _, n in found}) == 1 else None


def _engine_dir_gpus(lines) -> tuple[int, int] | None:
    """(line, GPUs) of the one GPU count a TensorRT-LLM ticket's engine or checkpoint folders are named for, or None."""
    if not any(TRTLLM_NAMED.search(ln) for _, ln in lines):
        return None
    found = {(i, int(m.group(1))) for i, ln in lines for m in ENGINE_DIR_GPUS.finditer(ln)}
    return min(found) if len({n for _, n in found}) == 1 else None


# (scaling44) FastChat's own workers take the GPU count as --num-gpus ("python3 -m fastchat.serve.cli --model-path
# lmsys/vicuna-7b-v1.5 --num-gpus 2", its README's "Multiple GPUs"); their --gpus is a list of GPU numbers ("A single
# GPU like 1 or multiple GPUs like 0,2", fastchat/serve/model_worker.py), not a count, so the count is read first.
FASTCHAT_NUM_GPUS = re.compile(r"-m\s+fastchat\.serve\.\w+\b[^\n]*?\s--num[-_]gpus[= ]+(\d{1,2})\b")


def _job_gpus(lines) -> tuple[int, int] | None:
    """(line, GPUs the job runs on) where the ticket says the job uses fewer than the machine it names, else None."""
    # (fr44) every FastChat line's count: "--num-gpus 1  # works" beside "--num-gpus 2  # hangs" runs the job on the
    # larger, the run asked about
    # (fr44r2) ... that runs: not one asked about or advised ("Should I use `... --num-gpus 4` instead?")
    fastchat = [(int(m.group(1)), i) for i, ln in lines if (m := FASTCHAT_NUM_GPUS.search(ln))
                and not engine_signs.NOT_RUN_BEFORE.search(sentence_before(ln, m.start(), semicolon=True))]
    if fastchat:
        n, i = max(fastchat, key=lambda x: (x[0], -x[1]))
        return i, n
    for i, ln in lines:
        if (m := DOCKER_GPUS.search(ln)):
            return i, (len([x for x in m.group(2).split(",") if x]) if m.group(1) else int(m.group(3)))
        if (m := CONTAINER_GPUS.search(ln)):
            return i, len({x.strip() for x in m.group(1).split(",")})
        for m in JOB_ON_ONE.finditer(ln):
            if not JOB_NOT.search(ln[max(0, m.start() - 40):m.start()]) and not JOB_FAULT_AFTER.match(ln[m.end():]):
                return i, 1
    if (none := _none_split(lines)) is not None:
        return none, 1  # (past45) llama.cpp's split mode none: one GPU, whatever the machine holds
    for i, ln in lines:  # (extract35) the GPUs a TP occupies, counted beside it: "Dual-card (2× RTX 3090, TP=2)"
        for sentence in sentences(ln, semicolon=True):
            if (n := _layout_counted(sentence)):
                return i, n
    return _machine_holds_job(lines)


# (extract35b) A GPU count said as the machine's, "an 8-GPU node", "a server with 8 GPUs", "our box has 4x A100": the
# inventory of what the job runs on, not the job. Where one TP below that count is said in another sentence ("We run
# vLLM with TP 2"), the job holds the TP's GPUs, as a server's launch line says (rules.common._server_ranks). Not
# where the TP is said in the same sentence as a count ("8 GPUs with TP=4" may be two replicas: tests/test_count32),
# nor where the ticket speaks of replicas, data or pipeline parallelism, or states several TPs.
MACHINE_GPUS = re.compile(r"\b(\d{1,2})[- ]?(?:x\s*)?(?:GPU|card)s?[- ](?:node|server|machine|box|host|instance|rig|"
                          r"workstation)\b|\b(?:node|server|machine|box|host|instance|rig|workstation)\s+(?:with|that\s+"
                          r"has|has|holding)\s+(\d{1,2})\s*(?:x\s*)?(?:GPUs|cards|(?:NVIDIA\s+)?(?:RTX\s*)?[ABHLV]\d{2,3}"
                          r"[A-Z]?s?)\b", re.I)
_OTHER_LAYOUT = re.compile(r"\b(?:replicas?|instances|copies|data[- ]parallel\w*|pipeline[- ]parallel\w*|"
                           r"dp\s*[=:]?\s*\d|pp\s*[=:]?\s*\d|--(?:data|pipeline)[-_]parallel[-_]size|"
                           r"--dp|--pp)\b", re.I)


def _machine_holds_job(lines) -> tuple[int, int] | None:
    """(line, TP) where one machine count (MACHINE_GPUS) and one TP below it, said apart from any count, are
    stated and nothing says replicas or another layout; else None."""
    if any(_OTHER_LAYOUT.search(ln) for _, ln in lines):
        return None
    said = [(i, s) for i, ln in lines for s in sentences(ln, semicolon=True)]
    machines = {int(next(g for g in m.groups() if g)) for _, s in said for m in MACHINE_GPUS.finditer(s)}
    tps = {(i, _tp_size(m)) for i, s in said if not MACHINE_GPUS.search(s) and not _counted_gpus(s)
           and not CLAUSE_GPUS.search(s) for m in TP.finditer(s)}
    if len(machines) != 1 or len({t for _, t in tps}) != 1:
        return None
    line, tp = min(tps)
    return (line, tp) if 1 <= tp < next(iter(machines)) else None


# (extract35) A GPU count and a TP size of the same value said in one sentence, "Dual-card (2× RTX 3090, TP=2)",
# "4 GPUs with tensor_parallel_size=4": the job holds exactly those GPUs, whatever larger inventory the ticket lists
# elsewhere (a rig of three, an 8-GPU node). Not a count and a TP that differ ("8 GPUs with TP=4" may be two
# replicas), not a sentence that speaks of nodes (a TP per node of a multi-node job), not one that compares layouts.
_NODE_WORDS = re.compile(r"\b(?:nodes?|servers?|machines?|hosts?|per[- ]node|each|vs\.?|versus|compared?)\b", re.I)


def _layout_counted(ln: str) -> int | None:
    """The GPU count a sentence states together with an equal TP size, or None."""
    # (the GPUs counted in words, "4 GPUs", or as boards, "2× RTX 3090", "2x A100")
    counted = _counted_gpus(ln) or CLAUSE_GPUS.search(ln.replace("×", "x"))
    tps = {_tp_size(m) for m in TP.finditer(ln)}
    if counted is None or len(tps) != 1 or _NODE_WORDS.search(ln):
        return None
    n = _count(next(g for g in counted.groups() if g))
    return n if n >= 2 and tps == {n} else None


# (not a figure the sentence goes on to give after the words: "via vLLM tensor parallel: 18 tokens per second",
# "tp: 2.5 ms", "tensor parallel 30% faster" are a rate, a time and a change, not a TP size)
# (nor a count of the load the words go on to name: "with tensor-parallel: 1 client. 30tps -> 46tps")
NOT_A_SIZE = (r"(?![.,]\d)(?!\s*(?:tok|tk/|t/s|tps|tokens?\b|it/s|req|ms\b|s\b|sec|seconds?\b|min|[KMGT]i?B|%|times\b|"
               r"clients?\b|users?\b|sessions?\b))")
# (the size said with a verb, "tensor-parallelism was set to 4", or over the GPUs it splits, "tensor-parallelism
# across 4 GPUs": each is the TP size, as "TP=4")
# (and as a quoted key of a dict, JSON or YAML pasted in prose: "'tensor_parallel_size':4",
# "\"tensor_parallel_size\": 4", the engine arguments a script hands vLLM's LLM / AsyncEngineArgs,
# https://docs.vllm.ai/en/stable/configuration/engine_args.html)
TP = re.compile(
    r"(?:\btensor[-_ ]?parallel(?:ism|[-_ ]size)?|\btp(?:[-_ ]?size)?)[\"'`]?\s*"
    r"(?:=|:|is|of|to|=\s*|(?:is|was|were)\s+set\s+to|across(?=\s*\d{1,3}\s*(?:GPUs?|cards?|devices?)\b))?\s*(\d{1,3})\b"
    + NOT_A_SIZE + r"|"
    r"\bTP(\d{1,3})\b|\b(?:-tp|--tp|--tensor-parallel-size|--tp-size)[ =](\d{1,3})\b|"
    # TGI's shards are its TP ranks (https://huggingface.co/docs/text-generation-inference/reference/launcher)
    r"(?<![\w-])--num[-_]shard[ =](\d{1,3})\b|"
    # (mend25) glued to the other degrees, as run names and table cells write a layout: "tp4dp2", "pp2tp4", "dp2tp4"
    # (a script's name glues it after "_": "deploy_llama_70b_baseline_tp4dp2.sh")
    r"(?:(?<![A-Za-z0-9-])|(?<=[dpe]p\d)|(?<=[dpe]p\d[-_]))TP(\d{1,2})(?=[-_]?(?:DP|PP|EP)\d)|"
    r"(?<=[dpe]p\d)TP(\d{1,2})\b|"
    # "8-way tensor parallelism", "4-way TP", "2-way tensor model parallel": Megatron's and DeepSpeed's way of saying
    # the degree (https://docs.nvidia.com/megatron-core/developer-guide/latest/user-guide/index.html, "N-way" tensor
    # model parallelism; https://www.deepspeed.ai/tutorials/automatic-tensor-parallelism/)
    r"\b(\d{1,2})[- ]way\s+(?:tensor[-_ ]?(?:model[-_ ]?)?parallel\w*|TP)\b",
    re.I)

def _sizes_compared(line: str) -> bool:
    """Does the prose line name two or more TP sizes ("I also tried `tp=4` and `tp=2`", vllm-project/vllm#14022)? It
    compares layouts beside the run, so a TP set in the pasted code or launch is the run's (issue_md.parse)."""
    return len({_tp_size(m) for m in TP.finditer(line)}) >= 2


# The pipeline-parallel size as prose and launch lines write it: "PP=2", "PP2", "pp: 2", "pipeline parallel size 2",
# "--pipeline-parallel-size 2", "--pp 2" (a bare "pp 2" is too often something else).
PP = re.compile(r"\b(?:pipeline[-_ ]?parallel(?:ism|[-_ ]size)?\s*(?:=|:|is|of|to)?|pp(?:[-_ ]?size)?\s*[=:])"
                r"\s*(\d{1,3})\b|"
                r"(?<![\w-])(?:--pipeline-parallel-size|--pp|--pp-size)[ =](\d{1,3})\b", re.I)
# ... and glued, "PP2", "TP4PP2": upper-case, at most two digits, not a table cell. llama-bench names its tests by the
# tokens they process, "pp512", "pp64", "tg128", "pp512+tg128" in the `test` column
# (https://github.com/ggml-org/llama.cpp/blob/master/tools/llama-bench/README.md): prompt lengths and not stages, so
# not read at all where the text names llama-bench.
PP_GLUED = re.compile(r"(?:(?<![\w-])|(?<=TP\d)|(?<=TP\d\d))PP(\d{1,2})\b(?!\s*\+\s*tg)(?!\s*\|)|"
                      # (mend25) in any case when glued to another degree: "pp2tp4", "tp4pp2", "TP4-PP2", "dp2pp4"
                      r"(?i:(?:(?<=[tde]p\d)|(?<=[tde]p\d[-_])|(?<=[tde]p\d\d))pp(\d{1,2})(?:\b|(?=[-_]?(?:tp|dp)\d))|"
                      r"(?<![A-Za-z0-9-])pp(\d{1,2})(?=[-_]?(?:tp|dp)\d))")
# The data-parallel degree (replicas of the whole model) as launch lines and run names write it: "dp=4", "DP: 2",
# "data parallel size 2", "--data-parallel-size 2", "--dp 2" (vLLM, SGLang), and glued to the other degrees as in
# "tp4dp2", "TP4-DP2", "dp2tp4"; "dp8" standing alone in a run name or cell
DP = re.compile(r"\b(?:data[-_ ]?parallel(?:ism|[-_ ]size)?\s*(?:=|:|is|of|to)?|dp(?:[-_ ]?size)?\s*[=:])"
                r"\s*(\d{1,3})\b|"
                r"(?<![\w-])(?:--data-parallel-size|--dp|--dp-size)[ =](\d{1,3})\b|"
                r"(?:(?<![A-Za-z0-9-])|(?<=[tpe]p\d)|(?<=[tpe]p\d[-_])|(?<=[tpe]p\d\d))DP(\d{1,3})\b|"
                r"(?<![A-Za-z0-9-])DP(\d{1,2})(?=[-_]?(?:TP|PP|EP)\d)", re.I)
# (review25) SGLang's DP attention splits the attention of one TP group into `dp` groups over the same GPUs ("Enable
# data parallelism for attention and tensor parallelism for FFN. The dp size should be equal to the tp size", SGLang's
# server arguments, --enable-dp-attention): its --dp-size counts no replicas of the model (sgl-project/sglang#8657:
# "TP=16 DP=16", --tp 16 --dp 16 on 2 x 8 H20)
DP_ATTENTION = re.compile(r"enable[-_ ]dp[-_ ]attention|\bdp[-_ ]attention\b|\battention[-_ ]dp\b", re.I)
LLAMA_BENCH = re.compile(r"\bllama[-_]bench\b", re.I)
# (also as an exec-form list, a Dockerfile CMD or a compose `command: [...]`: "--tensor-parallel-size", "2"
# https://docs.docker.com/reference/dockerfile/#cmd)
# The keys as each engine's config takes them: vLLM's YAML config file takes the CLI's names, dashed
# ("tensor-parallel-size: 4", https://docs.vllm.ai/en/stable/configuration/serve_args.html); DeepSpeed's inference
# config a quoted key in a dict (`tensor_parallel={"tp_size": 2}`, https://www.deepspeed.ai/tutorials/inference-tutorial/)
# and DeepSpeed-MII a keyword (`mii.pipeline(model, tensor_parallel=2)`, https://github.com/deepspeedai/DeepSpeed-MII);
# MLC LLM `tensor_parallel_shards=2` (https://llm.mlc.ai/docs/deploy/mlc_chat_config.html).
CODE_TP = re.compile(r"\b(?:tensor[_-]parallel[_-]size|tp_size|tp|mp_size|tensor_parallel_shards|tensor_parallel)"
                     r"[\"']?\s*[=:]\s*(\d{1,3})\b|"
                     r"(?:--tensor[-_]parallel[-_]size|--tp-size|--tp|-tp|--num-shard)(?:[ =]|[\"']\s*,\s*[\"'])"
                     r"(\d{1,3})\b")
# (not a code repository's path: "github.com/ggerganov/llama.cpp" names an engine's source, and a name ending in a
# source or script file's extension, ".cpp", ".py", ".git", is code, never weights; Hugging Face ids are
# "org/name" on huggingface.co: https://huggingface.co/docs/hub/repositories)
# (nor a path's inner folders, "./build/bin/llama-cli": after a "/", only a name with a size or a version in it)
# (nor a container image's repository on its registry, "ghcr.io/miaai-lab/glm-5.3-flash-2x-dgx-sparks:exl3" (MiaAI-Lab/
# GLM-5.3-Flash-EXL3-2x-DGX-Sparks#142): an image is pulled as REGISTRY/NAMESPACE/REPOSITORY[:TAG], https://docs.docker.com/
# reference/cli/docker/image/pull/, from GitHub's ghcr.io, NGC's nvcr.io, quay.io, Docker Hub, Google's gcr.io and
# pkg.dev, AWS's ecr.aws, Azure's azurecr.io; a NIM image names its model one folder on, "nvcr.io/nim/meta/
# llama-3.1-8b-instruct", and that name is still read)
# (review31b) nor Ollama's own Docker Hub image, "ollama/ollama" (https://hub.docker.com/r/ollama/ollama): "llama"
# inside "ollama" is the tool's name, not the Llama family (ollama/ollama#12084's model is gpt-oss:20b)
HF_ID = re.compile(r"(?<![\w.-])(?<!github\.com/)(?<!gitlab\.com/)"
                   r"(?<!ghcr\.io/)(?<!nvcr\.io/)(?<!quay\.io/)(?<!docker\.io/)(?<!gcr\.io/)(?<!ecr\.aws/)"
                   r"(?<!azurecr\.io/)(?<!pkg\.dev/)(?:(?<!/)|(?=[\w-]{1,40}/[\w.-]*\d))"
                   r"([A-Za-z0-9][\w-]{1,40}/"
                   r"(?=[\w.-]*?(?:(?<![Oo])[Ll]lama|[Qq]wen|[Mm]istral|[Mm]ixtral|[Dd]eep[Ss]eek|"
                   r"[Gg]emma|[Pp]hi|[Ff]alcon|gpt|GPT|[Yy]i|[Bb]loom|[Oo][Pp][Tt]|[Cc]ode|[Vv]icuna|[Ii]nternLM|dbrx|DBRX|"
                   r"GLM|glm|[Kk]imi|c4ai|[Cc]ommand|[Ss]tar[Cc]oder|[Bb]aichuan|[Mm]inistral|[Mm]agistral|[Dd]evstral|"
                   # (lines the catalog added in s25: "MiniMaxAI/MiniMax-M2", "mosaicml/mpt-7b", "allenai/OLMoE-1B-7B")
                   r"[Mm]ini[Mm]ax|[Mm][Pp][Tt]-\d|OLMo)"
                   r")[A-Za-z0-9][\w.-]*(?<!\.cpp)(?<!\.py)(?<!\.git)(?<!\.sh)"
                   # (nor a data or deployment file, "data/ShareGPT_V3_unfiltered_cleaned_split.json", vLLM's
                   # benchmark dataset, "deploy/qwen2_5_omni.yaml": weights are a folder or a .gguf/.safetensors file;
                   # a model's own config file, "config/llama_13b_config.json", still names its architecture)
                   r"(?:(?<!\.json)|(?<=config\.json))(?<!\.jsonl)(?<!\.csv)(?<!\.parquet)(?<!\.txt)(?<!\.yaml)"
                   r"(?<!\.yml)(?<!\.log))"
                   # a GitHub page's path is an owner/repository, no model ("github.com/ollama/ollama/assets/...",
                   # ".../issues/7648"): GitHub's own URL segments follow it
                   r"(?![\w.-])(?!/(?:assets|issues|pull|blob|tree|releases|commit|files|discussions|wiki|actions|raw)\b)")
MODEL_NAME = re.compile(
    # (a colon as Ollama's tags write it: "llama3.1:70b", "qwen2.5:7b", "gemma2:9b", "mixtral:8x7b")
    # (Qwen3-Next's line name between its version and size: "Qwen3-Next-80B-A3B", https://huggingface.co/Qwen)
    # (a release's dot written as a hyphen, as Kubernetes object names must: RFC 1123 labels allow only letters, digits
    # and "-", https://kubernetes.io/docs/concepts/overview/working-with-objects/names/: "llama-3-1-8b-instruct-svc",
    # "qwen2-5-72b-deploy")
    # (DeepSeek R1 in any case, with what follows it after "-", " ", ":" or "_": a size (not a bit width, "R1 8bit"), a
    # distill's student, the R1-0528 Qwen3 distill: "DEEPSEEK R1 32B", "DeepSeek-R1:32B", "DeepSeek-R1-0528-Qwen3-8B";
    # the catalog's aliases say which model each is, and a size DeepSeek did not publish is none)
    r"\b((?:Meta-)?(?:Llama|LLaMA|llama)[-\s]?(?:\d(?:[.-]\d)?)?[-\s:]?\d{1,3}[bB]|"
    r"L[23](?:\.\d)?-\d{1,3}[bB]|"  # the community's shorthand for Llama 2 / 3: "L3-70B", "L3.1-8B"
    r"(?:Qwen|QwQ|qwen|qwq)(?:\d-\d(?=-\d)|[\d.]*)(?:-[Nn]ext)?[-\s:]?(?:0\.5|1\.5|\d{1,3})[bB](?:-A\d+B)?|(?:Mixtral|mixtral)[-\s:]?\d+x\d+[bB]|"
    # (extract30) the experts' count last, "Mixtral 7bx8" (vllm-project/vllm#2048): rules.subject reads it as 8x7B
    r"(?:Mixtral|mixtral)[-\s:]?\d+[bB]\s?x\s?\d+(?![\w.])|"
    r"(?:Mistral|mistral)[-\s:]?(?:Small[-\s](?:\d(?:\.\d)?[-\s])?)?\d+[bB]|(?:Phi|phi)[-\s]?[34](?:\.5)?(?:[-\s](?:mini|small|medium|MoE|moe))?|"
    r"(?i:deepseek[-\s_]?r1(?:[-\s:_](?:0528[-\s_])?(?:distill[-\s_])?(?:qwen3?|llama)[-\s_]?\d{1,3}(?:\.\d)?b|"
    r"[-\s:_]\d{1,3}(?:\.\d)?b(?![a-z\d]))?)|[Dd]eep[Ss]eek[-\s]?[Vv][23]|(?:gemma|Gemma)[-\s]?\d[-\s:]?\d{1,3}[bB]|(?:Falcon|falcon)[-\s]?\d{1,3}[bB]|"
    r"gpt-oss-\d+b|(?:GPT|gpt)-?[Jj](?:-6[Bb])?(?![\w-])|(?:CodeLlama|codellama)[-\s]?\d{1,3}[bB]|(?:Yi|yi)-\d+[bB]|(?:dbrx|DBRX)|"
    # lines named without a size ("GLM-4.5-Air", "Kimi K2", "Command R+", "Llama 4 Scout"): one size per name
    r"(?:GLM|glm)-?4\.[56](?:-Air|-air)?|(?:Kimi|kimi)[-\s]K2|(?:Command|command)[-\s][Rr](?:[-\s][Pp]lus)?|"
    r"(?:Llama|llama)[-\s]?4[-\s](?:Scout|scout)|"
    r"(?:Vicuna|vicuna|Zephyr|zephyr)[-\s]?\d{1,3}[bB](?:[-\s]v\d(?:\.\d)?)?)\b")
# ... and Cohere's "Command R+", whose plus sign ends no word (so not inside MODEL_NAME's word boundaries)
PLUS_MODEL = re.compile(r"(?<![\w-])((?:Command|command)[-\s][Rr]\+)")
# Any other name that ends in its size ("Baichuan2-13B-Chat", "internlm2-chat-20b", "Qwen2.5-Coder-32B",
# "starcoder2-15b", Ollama's "mistral-small:24b", TensorRT-LLM's benchmark "llama_13b"), when nothing above names
# the model: rules.subject resolves it or takes a stand-in of that size. Not a mixture of experts' active size
# ("Llama-4-Scout-17B-16E").
# (a release number between words, as Hugging Face repository names put it: "Llama-3.1-Nemotron-70B"; a mixture's
# experts and their size last, "WizardLM2-8x22B", as Mixtral's own names write them: rules.subject resolves the shape)
OTHER_MODEL = re.compile(r"(?<![\w./-])([A-Za-z][A-Za-z0-9.]{2,}(?:-[A-Za-z0-9][A-Za-z0-9.]*)*?[-:_](?:\d{1,2}x)?"
                         r"\d{1,3}(?:\.\d)?[bB])(?![\w.]|-\d+E\b|-A\d)")
# A model named with its size first, then its line and release ("the 70B llama-2 q4 model", "an 8B Llama 3.1", "the 7B
# Mistral", "a 72B Qwen2.5"): the name a catalog row spells the other way round ("llama-2-70B"). Only a line written
# with its release where the line has several (Llama, Qwen, Gemma), and not a line's variant after it ("7B
# Qwen2.5-Coder" is no Qwen2.5), nor the engine's name ("13B on llama.cpp").
SIZE_FIRST = re.compile(r"(?<![\w.-])(\d{1,3}(?:\.\d)?)\s?[bB]\s+((?:Llama|LLaMA|llama)[-\s]?[1-4](?:\.\d)?|"
                        r"(?:Qwen|qwen)[-\s]?[1-3](?:\.\d)?|(?:Gemma|gemma)[-\s]?[1-3]|(?:Mistral|mistral)|"
                        r"(?:Falcon|falcon)|(?:CodeLlama|codellama)|(?:Yi|yi))(?![\w.-]|\s+[\d.]+\s?[bB]\b)")
# A model named by its size alone: "a 70B model", "the 7b", "our 13B (Q4_K_M)", "a 34B LLM".
BARE_SIZE = re.compile(r"\b(?:a|an|the|my|our|this|that|same)\s+(\d{1,3}(?:\.\d)?)\s?b\b(?![\w.-])|"
                       r"\b(\d{1,3}(?:\.\d)?)\s?b\s+(?:model|LLM|dense model)\b|"
                       # ... and in Chinese: "72B的AWQ模型", "跑 70B 模型"
                       r"(?<![\w.-])(\d{1,3}(?:\.\d)?)\s?b\s*的?\s*(?:[A-Za-z0-9_-]+\s*)?(?:模型|大模型)", re.I)
# An Ollama tag without a size, in Ollama's own command or listing ("ollama run llama3.3", "qwq:latest"): it pulls
# the library's `latest` tag, whose size rules.catalog.ollama_sized_tag knows.
# ... and in prose, a name right after the engine's ("Ollama Mixtral uses only 7% of the GPU", ollama/ollama#2362):
# recorded as a candidate only, which rules.subject keeps where rules/catalog/ollama_tags.toml knows the name.
OLLAMA_BARE = re.compile(r"\bollama\s+(?:run|pull)\s+([a-z][\w.-]*[a-z0-9])(?::latest)?(?![\w:.-])|"
                         r"\bOllama\s+(?:runs?\s+|running\s+|with\s+)?([A-Za-z][\w.-]*[A-Za-z0-9])(?![\w:.-])|"
                         r"(?<![\w./-])([a-z][\w.-]*[a-z0-9]):latest\b", re.I)
# ... or a name right before it, the model said to run "in", "on", "via" the engine ("Llama3 on Ollama", a benchmark
# table's rows "Mistral on Ollama" / "Llama3 on Ollama"; "Intall llama3 on ollama" in a README's setup steps): a
# candidate too. Every candidate of the prose is kept in order; the first the tag table knows names the model.
OLLAMA_BEFORE = re.compile(r"(?<![\w./-])([A-Za-z][\w.-]*[A-Za-z0-9])\s+(?:in|on|via|through|using|under)\s+Ollama\b",
                           re.I)
# The variant an Ollama tag names after its size ("llama3.1:8b-instruct-fp16", ":70b-instruct-q4_K_M"): it says
# which weights the tag pulls (rules.catalog.tag_weights).
OLLAMA_VARIANT = re.compile(r"-[A-Za-z0-9][\w.-]*(?<![.-])")
# A vision model's word after the language name it is built on ("Llama-3.2-11B-Vision", "Llama 3.2 11B Vision"): it
# goes with the name, which is then no language model's (rules.subject gives a vision model no stand-in of its size).
VISION_AFTER = re.compile(r"[-_ ](?:Vision|VL)\b", re.I)
# (a sentence ends a clause too: "The docs say 120 tok/s. Mine: 70 tok/s." are two)
# (a whitespace run is tried from its first character only, `(?<!\s)`: tried from each of its characters, a run of n
# spaces cost n squared steps, 13 s of a ticket on a 3 kB run; a match inside a run also starts at its first character)
CLAUSE = re.compile(r"[,;]\s+|(?<!\s)\s*[，；。！？、]\s*|[，；。！？、]\s*|(?<=[a-z)][.!?])\s+|"
                    r"(?<!\s)\s+(?:and|but|while|whereas|vs\.?|versus)\s+", re.I)
# Tokens per second as people write them ("1,234 tokens/s", "45 tok/sec", "12 t/s", "30 tps"). Not
# tqdm's "it/s": vLLM and HF progress bars count prompts or steps per second with it.
# (a figure starts at a number's start: "1e308 tok/s" is not 308 tok/s, "v2.50 t/s" not 50)
# (thousands written with k: "2.3k tokens/s", "1.2K tok/s")
RATE = re.compile(r"(?<![A-Za-z0-9_.,])(?<![eE][+-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:e[+-]?\d+)?)"
                  r"(?P<k>\s?[kK](?=\s*(?:tok|tk/|t/s|tps)))?\s*"
                  r"(?:(?:output|generated|generation|new|completion|decode|decoding)\s+)?"
                  r"(?:tok(?:en)?s?\s*/\s*s(?:ec(?:ond)?)?|tk/s|t/s|tokens?\s+(?:per|a|an|each|every)\s+sec(?:ond)?|tps)"
                  r"(?![A-Za-z])(?!\s*[:=]\s*\d)", re.I)
# (known46b) A token rate with a decimal comma, as French, German, Spanish, Portuguese and Italian write it and
# llama.cpp prints it under such a locale: "~16,5 tokens/s" (find_string id 53779478009), "génération ~16,5
# tokens/sec" (id 69534345615), "velocidades de decodificación medidas de 23,8 tok/s" (id 70977925308), "[ Prompt:
# 159,6 t/s | Generation: 51,5 t/s ]" (id 67140029482, llama-cli's own line). One or two digits after the comma (three
# are a thousands group, "1,500 tok/s"), and no group before it ("1 073,4 t/s" is 1073.4: left as written, unread):
# written with a point before the figures are read. (s46 final read) Not a value's list after "=" or ":": "tp=2,18
# tok/s" is tp 2 and 18 tok/s, not 2.18 tok/s (a figure after its key has a space before it, "Generation: 51,5").
RATE_AFTER_COMMA = r"(?=\s?(?:tok(?:en)?s?\s?/\s?s|tk/s|t/s|tps\b|tokens?\s(?:per|a)\ssec))"
DECIMAL_COMMA_RATE = re.compile(r"(?<![\d.,=:])(?<!\d[ \u00a0\u202f])(\d{1,4}),(\d{1,2})" + RATE_AFTER_COMMA, re.I)
# (a unit that is a key's label, its figure after ":" or "=", is no figure of the number before it: "Enc/Step 0 tokens /
# sec: 269.3" is 269.3 tok/s at step 0, not 0 tok/s; key/value rate lines are read on their own)
# A rate written as a count over a time ("512 tokens in 40 s", "5,400 tokens per minute", "2 seconds per 100 tokens",
# a job's length): diagnose.artifacts.figures reads them, in tok/s.
# ... and in Chinese: "生成 512 个 token 用了 40 秒", "输出1000个token耗时 2 分钟".
CJK_TOKENS_IN_TIME = re.compile(r"(?:生成|输出|推理)了?\s*(\d+)\s*个?\s*(?:tokens?|词元)\s*"
                                r"(?:用了|花了|耗时|需要|要|用时)\s*(?:约|大约|大概)?\s*"
                                r"(\d+(?:\.\d+)?)\s*(秒|s|分钟|min|毫秒|ms|小时|h)", re.I)
# ... and in Spanish, Portuguese, French and German: "500 tokens en 20 segundos", "500 Tokens in 20 Sekunden".
WORLD_TOKENS_IN_TIME = re.compile(r"(?<![\w.])(\d+)\s+tokens?\s+(?:en|em|in)\s+(?:unos\s+|environ\s+|etwa\s+)?"
                                  r"(\d+(?:\.\d+)?)\s*(segundos|secondes|sekunden|minutos|minutes|minuten)\b", re.I)
# ... and in Chinese: "每秒 45 个 token", "每秒约 30 tokens".
# Tokens per second as other languages and word orders write it (one number group, group 1):
# - Chinese "每秒生成 40 个 token", "40 tokens/秒", Japanese "40 トークン/秒";
# - German "Tokens pro Sekunde", Spanish/Portuguese "tokens por segundo", French "tokens par seconde", Russian
#   "токенов в секунду";
# - the unit before its figure, as tables and Chinese prose name a column: "tokens/s仅为40.24", "tok/s: 40",
#   "throughput (tok/s) is 40" (not a figure after another figure's unit: "30 tok/s is 40 % lower").
#   (fig30) ... and the unit in words, as timing scripts print it: "Tokens per second: 81.53" (NVlabs/Fast-dLLM#49).
CJK_RATE = re.compile(
    r"每秒\s*(?:[\u4e00-\u9fff]{1,4})?\s*(\d+(?:\.\d+)?)\s*个?\s*(?:tokens?|词元)|"
    # ... the per-second word after the unit, glued to a Han word before the figure ("速度为70tokens"), with 左右/上下
    # ("about") before or after it: "70 token/s", "70tokens左右每秒", "70 个 token 每秒左右", "20トークン/秒"
    r"(?<![A-Za-z0-9_.,])(\d+(?:\.\d+)?)\s*(?:个\s*)?(?:tokens?|词元|トークン|토큰)\s*(?:左右|上下)?\s*"
    r"(?:/\s*(?:秒|초)|/?\s*(?:每秒|毎秒))|"
    # ... Japanese "1秒あたり約10トークン", "毎秒10トークン", "秒間10トークン" and Korean "초당 17토큰",
    # "초당 약 17개 토큰" (the per-second word first, as 每秒 is in Chinese)
    r"(?:(?:1\s*)?秒(?:あたり|当たり|間)|毎秒)\s*(?:約|およそ|大体|だいたい)?\s*(\d+(?:\.\d+)?)\s*(?:トークン|tokens?)|"
    r"초당\s*(?:약|대략|평균)?\s*(\d+(?:\.\d+)?)\s*(?:개\s*)?(?:토큰|tokens?)|"
    r"(?<![\w.,])(\d+(?:\.\d+)?)\s*(?:tokens?|Token|токен\w*)\s+(?:pro\s+Sekunde|por\s+segundo|par\s+seconde|"
    r"в\s+секунду)|"
    r"(?<![\d.]\s)(?<![\d.])\b(?:tok(?:en)?s?\s*/\s*s(?:ec)?|t/s|tps|(?P<words>tokens?\s+per\s+sec(?:ond)?))\)?\s*"
    r"(?:[:=：]|is|was|of|仅为|只有|为|是|约|达到|才)\s*"
    r"(?:only\s+|about\s+|around\s+|~)?(\d+(?:\.\d+)?)(?![\d.]|\s*(?:%|[KMGT]i?B|ms|s\b|GB/s))"
    # (fig30) not the low end of a range after the unit ("Tokens per second: 20-30" is no 20)
    r"(?!\s*(?:-|–|—|~|～|to)\s*\d)", re.I)
# (fig30) A key that names a throughput before "tokens per second" ("Throughput - Tokens per second: 25325", a
# reranker's input tokens: openvinotoolkit/model_server demos/rerank) says no decode rate.
_THROUGHPUT_KEY = re.compile(r"\bthroughput\b[^:=\d]*$", re.I)
# Per-token latency and time to first token in prose: "ITL 28 ms", "TPOT of 45ms", "time per output
# token: 35 ms", "108 ms per token", "TTFT 1.2 s" (vLLM's and SGLang's benchmark names, llama.cpp's timings).
# A figure glued to a letter is part of a name, not a time: "L40S", "A40s", "H20s" are GPUs.
# (not a fraction's denominator: "1/96 sec/tok" is a 96th of a second, gpt-fast#225)
_FIGURE = r"(?<![A-Za-z0-9_.,])(?<![eE][+-])(?<!\d/)(\d[\d,]*(?:\.\d+)?)"
# ("second / 2nd / next token latency": Intel's and Habana's name for the per-token latency after the first;
# "time_per_token": TGI's, in its request log line 'time_per_token="52.4ms"' and its x-time-per-token header,
# https://huggingface.co/docs/text-generation-inference/reference/metrics; the phase it was timed in may follow the
# name: "time_per_token during inference of around 190 ms")
# (extract30: and the phase or "one" in the name, "per-token decode latency: `~8ms`" (TGI#1779), "one token latency =
# 137 ms")
LATENCY = re.compile(r"\b(ITL|TPOT|inter[- ]token latency|time[ _]per[ _](?:output[ _])?token|"
                     r"(?:per|one)[- ]token(?:[- ](?:decode|decoding|generation))?[- ]latency|"
                     r"(?:second|2nd|next)[- ]token latency|TTFT|"
                     r"time to first token|first[- ]token latency)\b"
                     r"[`'\"]?(?:\s+(?:during|in)\s+(?:the\s+)?(?:inference|decod\w*|generation))?[^.\n\d]{0,25}?"
                     + _FIGURE + r"\s*(" + TIME_UNIT + ")|"
                     # ... and in Chinese: "首 token 延迟 800ms", "首字延迟 1.2 s"
                     r"(首\s*(?:token|字|词)\s*(?:延迟|时延|时间|耗时))[^。，,\n\d]{0,10}?"
                     + _FIGURE + r"\s*(" + TIME_UNIT + ")", re.I)
# Two times written as one change ("goes from 80 ms to 900 ms", "between 0.2 and 3 s"): neither end is a measurement.
# (prose31: "about" may stand before either end, as it may before any figure: "TTFT from about 2 s to 0.11 s"; a change
# of a named time is read by prose_times.time_changes, the later figure measured, the earlier its reference)
TIME_RANGE = re.compile(r"\b(?:from|between)\s+" + figures._APPROX + r"\d[\d,]*(?:\.\d+)?\s*(?:" + TIME_UNIT
                        + r")?\s*(?:to|and|->|→|-)\s*" + figures._APPROX + r"\d[\d,]*(?:\.\d+)?\s*" + TIME_UNIT, re.I)
# The serving benchmarks' own lines quoted in prose, the unit before the figure: "Mean TPOT (ms): 18.5",
# "Median TTFT (ms):  212.4" (vLLM benchmark_serving, SGLang bench_serving).
LATENCY_UNIT_FIRST = re.compile(r"\b(?:(mean|median|p\d{2}|avg)\s+)?(ITL|TPOT|TTFT)\s*\((ms|s)\)\s*:\s*(\d+(?:\.\d+)?)",
                                re.I)
# The requests an offline benchmark sends ("number of prompt 3,000", "--num-prompts 1000", "num_prompts=500"): with
# no request rate they are all sent at once (trtllm-bench throughput; vLLM's benchmarks default to rate inf).
NUM_PROMPTS = re.compile(r"\b(?:number\s+of\s+prompts?|num[-_ ]prompts?)\s*(?:[=:]|of|is)?\s*"
                         r"(\d{1,3}(?:,\d{3})+|\d{1,7})\b", re.I)
# The request rate a serving benchmark offers ("--request-rate 2", "request_rate=10", "request rate: inf"): with a
# finite rate the prompts arrive over time, not all at once (vLLM benchmark_serving's --request-rate).
REQUEST_RATE = re.compile(r"(?:--|\b)request[-_ ]rate\s*(?:[=:]|of|is)?\s*(inf(?:inity)?|\d+(?:\.\d+)?)\b", re.I)
PER_GPU = re.compile(r"(?:\bper|/|\beach)\s*(?:GPU|card|device|rank)\b", re.I)
# (minutes too: "8 minutes per token" on a 24 GB card is a model read from swap, randaller/llama-chat#16; the figure
# and its unit joined as one word, "30-minute/token", cocktailpeanut/dalai#250)
MS_PER_TOKEN = re.compile(_FIGURE + r"(?:\s*|-)(ms|msecs?|us|µs|μs|usecs?|s|secs?|seconds?|mins?|minutes?)\s*"
                          r"(?:/|per)\s*(?:output\s+)?tok(?:en)?\b", re.I)
# ... and as other languages write it: Chinese "每个 token 耗时 25 毫秒", "每token 25ms"; Spanish, French, German and
# Russian "25 ms por / par / pro / на token".
WORLD_MS_PER_TOKEN = re.compile(r"每\s*(?:个|一个)?\s*token\s*的?\s*(?:平均)?\s*(?:耗时|延迟|时延|时间|用时)?\s*"
                                r"(?:约|大约|为|是|要|需要)?\s*" + _FIGURE + r"\s*(ms|毫秒|s|秒)(?![A-Za-z])|"
                                + _FIGURE + r"\s*(ms|s)\s+(?:por|par|pro|на)\s+(?:token|токен)", re.I)
PERCENTILE = re.compile(r"\b(p50|p90|p95|p99|median|mean|avg|average)\b", re.I)
# (fr45) A figure right after a verb, as its object: "got 900 tok/s", "get about 60 tokens/s", "hit over 1k" (or the
# text's end, where a reader passes the words before a figure: "others get " before "3x the throughput").
_FIGURE_OBJECT = (r"(?:\s+(?:about|around|over|roughly|nearly|almost|approximately|only|just|like|up\s+to|close\s+to|"
                  r"more\s+than|well\s+over|as\s+(?:much|high)\s+as))*\s*[~≈>]?\s*\d")
# (fr45r2) ... or after a short object of the verb, a few words with no new subject or clause in them: "Other users
# see speeds of 900 tok/s", "People get throughput of 900", "Someone got the same model running at 900", "Others get
# something like 900"; not "people hit the endpoint at the same time we only get 150" (a new subject, the reporter's)
# nor a count of GPUs ("others see the same on 2 GPUs")
_OBJECT_STOP = r"(?:I|we|you|they|he|she|my|our|us|me|when|and|but|so|then|while|if|because|whereas|than|though)\b"
_SHORT_OBJECT = (r"(?=[^.,;:!?\d\n]{1,45}\d)(?:\s+(?!" + _OBJECT_STOP + r")[^\W\d][\w'’-]{0,20}){1,6}?"
                 + _FIGURE_OBJECT + r"(?![\d.]*\s*(?:x\s*)?(?:GPUs?|cards?|nodes?|devices?|boards?)\b)")
# Someone else's figure: a published table, a datasheet, a promise ("should reach", "according to").
# Hearsay is someone else's figure too: "someone on Discord said", "a friend told me", "I heard", "people claim",
# and what a board "should give" is an expectation, not a run.
REFERENCE_FIGURE = re.compile(r"\b(?:official\w*|published|advertis\w*|datasheet|according to|"
                              # (a benchmark, table, chart or card is someone else's only with a determiner that is
                              # not the reporter's: "our benchmark showed 70 tok/s" is their own run)
                              r"(?:(?:page|blog|paper|readme|docs?|documents?|documentation|website|site)|"
                              # (one or several: "your benchmarks indicate ~5 output tokens/s")
                              r"(?:the|their|your|official|[A-Z]\w*'s)\s+(?:\w+\s+)?(?:benchmark|table|chart|card)s?)\s+"
                              r"(?:says?|said|shows?|showed|reports?|lists?|gives?|states?|claim\w*|mention\w*|quot\w*|"
                              r"promis\w*|indicat\w*)|"
                              r"(?:someone|somebody|people|others|a (?:friend|colleague|user))\b[^.?!\d]{0,30}?"
                              # (figures45) or saw: "where a user observed 270 tok/s on their system"
                              # (AlexsJones/llmfit#137)
                              r"\b(?:said|says|say|told|tells|claim\w*|report(?:s|ed)|observed)|"
                              # (figures45) with the contraction too: "I've heard others using this repo achieving
                              # around 12t/s" (oobabooga/textgen#1513), "I’ve heard ..."
                              r"\bI(?:\s+have\s+|\s*['’]ve\s+|\s+had\s+|\s+)heard\b|"
                              # (figures45) what someone else reached, said with the verb of reaching rather than of
                              # speech: "I noticed someone was able to achieve over 900 tokens/s throughput using vLLM
                              # 0.8.5 on 8×A800" (vllm-project/vllm#20890), "how others (deepseek-chat for example)
                              # are able to achieve such high throughput (i measured it at over 60 output tokens/sec)
                              # on their hosted versions" (vllm-project/vllm#11539, in tests/data/paraphrases_22): the
                              # subject right before its verb, so "we serve 100 people and get 20 tok/s", "the others
                              # get 5" and "a user gets 40 tok/s at 16 concurrent" (the reporter's own users) stay the
                              # reporter's. (fr45) Not people counted ("When 20 people hit the endpoint at the same
                              # time we only get 150 tokens/s": the reporter's load), and "get", "hit" and "see" only
                              # with the figure their object ("people get 900 tok/s"), not an endpoint or a server
                              r"(?:\b(?<!\d\s)(?<!\d)(?:someone|somebody|people|other\s+(?:people|users|folks))|"
                              r"(?<!the\s)\bothers|"
                              r"\ba\s+(?:friend|colleague))(?:\s+(?:else|online|here))?(?:\s+\([^()]{0,40}\))?"
                              r"\s+(?:(?:was|were|is|are|has|have|had)\s+)?(?:been\s+)?(?:able\s+to\s+|manag\w*\s+to\s+)?"
                              r"(?:(?:achiev\w*|reach(?:es|ed|ing)?|observ\w*)\b|"
                              r"(?:get(?:s|ting)?|got|hit(?:s|ting)?|see(?:s|ing)?|saw)\b"
                              r"(?=" + _FIGURE_OBJECT + r"|" + _SHORT_OBJECT + r"|\s*$))|"
                              r"should (?:give|get|reach|deliver|do|hit|run at|be able to)|"
                              # (extract30) a source named by where the figure is, not by a verb: "while in your test
                              # it is 602 t/s" (turboderp-org/exllamav2#806), "2298.89 tokens/s reported in your blog"
                              # (QwenLM/Qwen3#244), "what is reported in the blog post above" (vllm#8244), "your
                              # paper is 114.1" (NVlabs/Fast-dLLM#49); never the reporter's own ("in my test", "in our
                              # benchmark")
                              r"(?:in|on|from)\s+(?:your|their)\s+(?:\w+\s+)?(?:tests?|benchmarks?|blog|paper|readme|"
                              r"docs?|documentation|results?|tables?|charts?|website|page|post|report)|"
                              r"(?:reported|published|claimed|shown|listed|stated|quoted|mentioned)\s+(?:in|on|by)\s+"
                              r"(?:the|your|their|official|[A-Z]\w*'s)\s+(?:\w+\s+){0,2}?(?:blog|paper|readme|docs?|"
                              r"documentation|website|page|post|report|table|chart)s?|"
                              r"your\s+(?:\w+\s+)?(?:paper|blog|readme|docs?|documentation|tests?|benchmarks?|results?)\s+"
                              r"(?:is|are|was|were|gives?|gave|shows?|reports?|says?|lists?))\b"
                              # the same in Chinese and Japanese: 官方/官网 (official), 文档 (docs), 论文 (paper),
                              # 宣称/声称 (claims), 标称 (rated), 据说 (reportedly), 公式 (official), 公称 (nominal)
                              # (文档 with what it says: "按照文档部署后实测" follows the docs and measures)
                              r"|官方|官网|文档\s*(?:中|里|上)?\s*(?:写|说|给出|标|称|显示|提到)|論文|论文|宣称|声称|標称|标称|"
                              r"据说|公式|公称", re.I)
# The reporter speaking of their own run: a clause in the first person ("but I get 60", "我只有", "у меня").
OWN_WORDS = re.compile(r"\b(?:I|I'm|I've|we|we're|we've|my|our|me|us|mine|ich|wir|mein\w*|yo|mi|mis|obtengo|"
                       r"nosotros|je|nous|mon|ma|mes)\b|"
                       r"(?<![^\W\d_])(?:я|мы|у меня|у нас|мой|моя|мои|наш\w*|получаю)(?![^\W\d_])|"
                       r"我|私|僕|俺|저는|제가|내|나는|우리", re.I)
# A clause turning from a quoted figure to the reporter's ("here it is 70 tok/s", "实际只有 70", "но у меня 60").
TURN_WORDS = re.compile(r"\b(?:but|however|yet|only|just|actually|here|in practice|in reality|really|measured|now|"
                        r"today|aber|nur|pero|solo|sólo)\b|(?<![^\W\d_])(?:но|только)(?![^\W\d_])|"
                        r"但|可是|却|实际|实测|只有|仅|しかし|でも|実際|하지만|실제", re.I)
# Where published figures live: a clause naming one, not in the first person, quotes it ("The README benchmark is
# 197 t/s on A100"); "following the README I get 60 t/s" is the reporter's.
SOURCE_WORDS = re.compile(r"\b(?:readme|docs|documentation|model card|front ?page|home ?page|datasheet|spec sheet)\b",
                          re.I)


# A relative clause setting the reporter's figure beside a reference ("I got 6,051 tok/s which is aligned with NV
# published data", "we see 40 tok/s that matches the official table"): the reference is a clause of its own, so
# the figure before it stays the reporter's.
BESIDE_REFERENCE = re.compile(r"(?<!\s)\s+(?=(?:which|that)\s+(?:(?:is|was|are|were|seems?|looks?)\s+(?:\w+\s+)?"
                              r"(?:aligned|in line|consistent|on par|comparable|close|similar|near)|"
                              r"match(?:es|ed)?|agrees?|corresponds?)\b)", re.I)


# A Markdown blockquote line written as prose: GitHub's quote syntax ("> " before the text,
# https://docs.github.com/en/get-started/writing-on-github/getting-started-with-writing-and-formatting-on-github/basic-writing-and-formatting-syntax#quoting-text)
# sets off words taken from elsewhere, a paper, a README, another comment: "> On a single node with 8 H800 GPUs,
# DeepSeek-V2 achieves a generation throughput exceeding 50K tokens per second" (deepseek-ai/DeepSeek-V2#21). Not a
# tool's line quoted the same way, which is output ("> Output token throughput: 766.64 tokens/s", vllm#3297;
# "> llama_print_timings: eval time = ..."): a "label: value" field, a log's bracket or a shell command.
BLOCKQUOTE = re.compile(r"^\s{0,3}>\s?")
_QUOTED_OUTPUT = re.compile(r"\w\s*[:=]\s|\[|\]|^\s{0,3}>\s*(?:\$|#|python|pip|docker|sudo|export|\.?/)", re.I)


def _quoted_prose(line: str) -> bool:
    """A blockquote line of prose, not in the reporter's own voice: words quoted from elsewhere, whose figures are
    the source's (a published or claimed figure), not the reporter's measurement. Prose has words: a quoted line
    without two plain ones is a program's or the reporter's own ("> Starting OpenPose demo...", "> 2101 44099 627";
    CMU-Perceptual-Computing-Lab/openpose#1454, gurnec/btcrecover#129; review33)."""
    return (bool(BLOCKQUOTE.match(line)) and _wordy(line, 2) and not _QUOTED_OUTPUT.search(line)
            and not OWN_WORDS.search(line))


def _clauses(line: str, apart: bool = False) -> list[tuple[str, bool]]:
    """The line's clauses, each with whether it quotes a reference figure: a clause naming a source ("the README
    says 164 t/s on a 4090") and those after it in its sentence that do not speak of the reporter's own run
    ("... and 197 t/s on an A100"), until one does ("but I only get 60"); with `apart` (the text names someone else's
    GPU beside the reporter's, _sets_apart) a clause speaking of the other's GPU only. Every clause of a blockquote
    line of prose in another's voice quotes (_quoted_prose)."""
    if _quoted_prose(line):
        return [(clause, True) for sentence in sentences(line)
                for c in CLAUSE.split(sentence) for clause in BESIDE_REFERENCE.split(c)]
    out = []
    for sentence in sentences(line):
        quoting = False
        for clause in (part for c in CLAUSE.split(sentence) for part in BESIDE_REFERENCE.split(c)):
            own = OWN_WORDS.search(clause) or TURN_WORDS.search(clause)
            quoting = bool(REFERENCE_FIGURE.search(clause)) or (
                (quoting or bool(SOURCE_WORDS.search(clause))) and not own) or (apart and _others_clause(clause, line))
            out.append((clause, quoting))
    return out


def _quoted_tables(prose: list[tuple[int, str]]) -> set[int]:
    """The rows of a table set under a line that announces a reference and states no figure of its own ("According
    to the benchmark info on the project frontpage:", "The README lists these figures:"): published figures, and
    the GPUs of their columns, not the reporter's."""
    out: set[int] = set()
    announced = False
    for i, ln in prose:
        if "|" in ln:
            if announced:
                out.add(i)
        elif ln.strip():
            announced = bool(REFERENCE_FIGURE.search(ln)) and not RATE.search(ln)
    return out


# A figure wished for, not measured: "I hope to get like 5-6 t/s", "we aim for 50 tok/s", "I expect 100 tokens/s";
# and in the languages CJK_RATE reads rates in, the same verbs and nouns (goal, target, hope, want, expect):
# Spanish/Portuguese "mi objetivo es 80 tokens por segundo", "quiero/espero/gostaria", French "objectif, je veux,
# j'espère, voudrais", German "Ziel, möchte, will, erwarte, hoffe", Russian "цель, хочу, ожидаю", Chinese
# "目标/希望/期望/想要/预期 每秒 40 个 token".
_NOT_FIGURE_WORD = r"(?:which|that|and|but|so|it|this|what|we|I|they|when|if)\b"
HOPED_FIGURE = re.compile(r"\b(?:hop(?:e|ed|ing)|wish\w*|want\w*|aim\w*|target\w*|would like|expect\w*|plan\w*|"
                          r"objetivo|quiero|quisiera|esper\w*|gustar\w*|quero|gostari\w*|objectif|veux|voudrais|"
                          r"souhait\w*|ziel\w*|möchte|erwarte\w*|hoffe\w*|цел\w*|хочу|хотел\w*|ожида\w*)\b"
                          r"(?:\s+\w+){0,4}?\s*[:=]?\s*(?:~|about|around|like|at least|unos|environ|etwa|около)?\s*\d|"
                          r"(?:目标|希望|期望|想要|预期|期待|应该|应当)[^\d。，,；;\n]{0,10}\d|"
                          # what a figure should be, the speaker's expectation ("this model should run around 400
                          # tokens / sec", "正常后应该在200 tokens/s"), not what ran
                          r"\bshould\s+(?:be|run|get|reach|give|do|hit|achieve|see|generate|produce|output)"
                          r"(?:\s+(?:at|around|about|roughly|close\s+to|near|over|above))?\s*~?\s*\d|"
                          # (extract30) a figure to reproduce is someone else's, the target of the run: "How to
                          # reproduce the "2298.89 tokens/s" result?" (QwenLM/Qwen3#244); not what was reproduced
                          r"\b(?:reproduc(?:e|ing)|replicat(?:e|ing))\s+(?:the\s+|that\s+|this\s+|their\s+|your\s+)?"
                          r"[\"“'`]?\s*~?\d|"
                          # a figure reasoned, not run: "the theoretical max is 150 tok/s", "in theory it can do 150",
                          # "ideally ~100 tok/s", "let's say it needs about 20 ms per token" (an estimate)
                          r"\b(?:theoretical\w*|in\s+theory|ideally|let'?s\s+say|let\s+us\s+say)\b"
                          r"(?:\s+[^\s\d]+){0,5}?\s*[:=]?\s*(?:~|about|around|roughly)?\s*\d|"
                          # (known46b) a figure supposed, not run: its own verb a modal of the unreal with one of
                          # reaching, needing or possibility, "6.55T/s would have been achieved if ...", "roughly 25,000
                          # tokens/s would be needed to saturate a single PCIe 1.0 lane" (find_string id 59191184141),
                          # "even 5.0 Mbit/s would be possible" (id 19767311029), "40 t/s would have required the whole
                          # kernel inside 84 us" (id 71586547990); not a figure run and weighed ("a 122B model running
                          # locally at 57 tok/s would have been a cloud-only proposition", id 55889521132; "3.4 tok/s
                          # would have looked like the hardware limit", id 71600216942)
                          # (the words between are the figure's unit, not a clause of its own: "5 tok/s, which would
                          # need to be 10x faster" is run)
                          # (s46 final read) "could" is also past ability ("60 tok/s could be reached easily" on the
                          # old release was run): only "could have" supposes. And a need only passive or perfect
                          # ("would be needed", "would have required"): "the current 20 tok/s decode rate would need
                          # to triple" is a rate run, the need is for more.
                          r"(?<![\d.,])\d+(?:[.,]\d+)?\s*(?!" + _NOT_FIGURE_WORD + r")[^\W\d][\w/]{0,15}"
                          r"(?:\s+(?!" + _NOT_FIGURE_WORD + r")[^\W\d][\w/]{0,15}){0,3}?\s+"
                          r"(?:(?:would|might|should)\s+(?:have\s+)?(?:been\s+|be\s+)?(?:achiev|reach|attain|obtain|"
                          r"possible|feasible|expect)|(?:would|might|should)\s+(?:have\s+(?:been\s+)?|be\s+)(?:need|"
                          r"requir)|could\s+have\s+(?:been\s+)?(?:achiev|reach|attain|obtain|possible|feasible|need|"
                          r"requir|expect))\w*", re.I)
# (a batch counted in tokens is a token budget or a streamed chunk, not requests decoded together: "token batch of
# 10 tokens" (TensorRT-LLM's streaming), "a batch of 2048 tokens" (--max-num-batched-tokens))
_NOT_TOKENS = r"(?!\s*(?:tokens?|toks?)\b)"
# (words41) nor a count of cards: a number with the measure word of cards or a GPU noun after it is how many GPUs ran,
# as Chinese and English owners write a GPU count ("8卡A800", zai-org/CogVLM#183; "16张V100显卡",
# IDEA-Research/GroundingDINO#198; "用的8张24G的3090", ibid.; "4卡batchsize 为2", LiheYoung/UniMatch#81; "with 8 GPUs"):
# "我的batch是8张卡" names eight cards, not a batch of eight. Images stay a batch ("8张图" is eight images).
# (A GPU name counts only after a measure word, "8张3090"; a plural noun in English: "batch 8 GPU memory" is no count.)
# (s41 final read) Not 卡 as "stuck" (卡住, 卡死, 卡在, 卡着, 卡顿: "batch_size=16卡死" is a batch that hangs), and a
# four-digit GeForce number only (1050-5090), not an image size or a length ("4张1024x1024的图片", "8个1024长度的序列");
# without a measure word only 卡 itself ("8卡"), not 显卡 ("bs=32 显卡占用 20G" is a batch and the card's memory).
# (words42) A board's name of one to four digits after its letter: "4张T4", "2张L4", "4张A10", "8张H20", "2张A6000",
# "4张P40", "8张K80", as NVIDIA names its data-centre boards, not only the two- and three-digit ones.
# (fr42) Of one digit only the boards NVIDIA made (A2, T4, L4, P4, P6, K1, K2, K8): "8张A4 扫描图" is eight sheets of A4
# paper, a batch of images.
_NOT_STUCK = r"(?![住死在着顿])"
_ONE_DIGIT_BOARD = r"(?:A2|T4|L4|P4|P6|K1|K2|K8)"
_NOT_CARDS = (r"(?!\s?卡" + _NOT_STUCK + r"|\s{0,2}(?:张|块|个|片|台)\s{0,2}(?:(?:卡|显卡)" + _NOT_STUCK +
              r"|GPU|(?:NVIDIA\s)?(?:[AHVLTPK]\d{2,4}|" + _ONE_DIGIT_BOARD + r"|RTX|[1-5]0[5-9]0)(?![\d×xX*]))|"
              r"\s{0,2}(?:GPUs|gpus|cards|devices)\b)")
# (nor a limit whose name ends in "bs": SGLang's --cuda-graph-max-bs and --torch-compile-max-bs are the largest batch
# it captures or compiles, https://docs.sglang.ai/advanced_features/server_arguments.html)
_BS = r"(?<![A-Za-z0-9][-_])bs"
# (physics40) Chinese writes the batch with a copula or a full-width colon and no space from the words around it:
# "batch size 为8" (Liuziyu77/Visual-RFT#175), "batch_size为1024" (deepseek-ai/DeepSeek-V2#35), "对应的batch_size是64"
# (weiaicunzai/pytorch-cifar100#14), "单卡batchsize为8" (modelscope/ms-swift#1825): a Han character is a word character
# to \b, so the edges are ASCII ones here ("minibatch 8", "8x" and "8k" stay unread).
_CJK_EDGE = r"(?<![A-Za-z0-9_])"
# (extract35: nor the limit flag that ends in "batch-size", TGI's and LMDeploy's --max-batch-size, as BATCH_ONLY)
# (tidy41) The blanks after the separator belong to it, (?:(?:=|:)\s*)?: two \s* on either side of an optional one
# split a run of blanks every way before failing, quadratic on a long run (0.23 s on 5,000); same matches. (So in
# ONE_AT_A_TIME's "requests sent sequentially" and its "bs=1".)
BATCH = re.compile(_CJK_EDGE + r"(?:(?<!max[-_])batch[-_ ]?size|" + _BS + r"|(?<!max[-_])batch|--batch-size|"
                   r"--max-num-seqs|concurrency)\s*(?:(?:=|:|：|of|为|是)\s*)?"
                   r"(\d{1,4})(?![A-Za-z0-9_])" + _NOT_TOKENS + _NOT_CARDS, re.I)
# The decode batch named as such (not a concurrency or a scheduler limit): the workload's batch when it is the only one.
# (extract35) not a limit's flag, TGI's and LMDeploy's --max-batch-size 32 (the largest batch, not the one decoded:
# https://huggingface.co/docs/text-generation-inference/reference/launcher)
BATCH_ONLY = re.compile(_CJK_EDGE + r"(?<!max[-_])(?:batch[-_ ]?size|batch|" + _BS + r")\s*(?:(?:=|:|：|of|为|是)\s*)?"
                        r"(\d{1,4})(?![A-Za-z0-9_])" + _NOT_TOKENS + _NOT_CARDS, re.I)
# Requests in flight as people say it ("with 64 concurrent requests", "32 parallel users"): the load a
# serving benchmark's --max-concurrency sets, so the decode batch at most.
# (extract35b) The English forms take the count as a word too ("with two concurrency", "eight parallel requests", "four
# requests at once"), two and up: one request alone is ONE_AT_A_TIME's.
_LOAD_COUNT = r"(\d{1,4}|" + words_pattern({w: n for w, n in ENGLISH_COUNT_WORDS.items()
                                            if n >= 2 and w not in ("dual", "quad")}) + r")"
CONCURRENT = re.compile(r"\b" + _LOAD_COUNT + r"\s+(?:concurrent|parallel|simultaneous)\s+"
                        r"(?:requests?|users?|clients?|streams?|sequences?|prompts?)\b|"
                        # "at 64 concurrency", "with 16 users", "at 8 clients" (a count of requests sent in all,
                        # "for 1000 requests", is not a load)
                        r"\b(?:at|with)\s+" + _LOAD_COUNT + r"\s+(?:concurrency|users|clients|concurrent\b)|"
                        # "the throughput of 100 concurrency", "concurrency = 10", "`concurrency` = 10", "concurrency
                        # of 8" (vLLM's bench prints "Maximum request concurrency: 10"; not vLLM's KV-cache line
                        # "Maximum concurrency for 4096 tokens per request: 5.2x", a capacity)
                        r"\b" + _LOAD_COUNT + r"\s+concurrency\b|"
                        r"\bconcurrency`?\s*(?:=|:|of|is|was|set\s+to)\s*`?(\d{1,4})(?![.\d])|"
                        # "28 requests in flight", "16 in-flight requests" (the term the engines' docs use for the
                        # requests being served at once)
                        r"\b(\d{1,4})\s+(?:(?:requests?|sequences?|users?)\s+in[- ]flight\b|in[- ]flight\s+"
                        r"(?:requests?|sequences?))|"
                        # "each of the 28 users", "every one of the 16 requests": as many served together
                        r"\b(?:each|every\s+one)\s+of\s+the\s+(\d{1,4})\s+(?:users|requests|clients|streams)\b|"
                        # a load generator's threads, each sending one request at a time (JMeter's thread group,
                        # locust's users, a script's worker threads): "the 8 request threads", "16 client threads",
                        # "32 threads sending requests" (not a CPU's threads, "--threads 8", "32 CPU threads")
                        r"\b" + _LOAD_COUNT + r"\s+(?:request|client|sender|load)\s+threads\b|"
                        r"\b(\d{1,4})\s+threads\s+(?:sending|issuing|making|firing)\s+requests\b|"
                        # ... each thread a request of its own: "I use 5 threads, each with 80000 tokens"
                        r"\b(\d{1,4})\s+threads,?\s+each\s+(?:with|sending|issuing|making|running)\b|"
                        # ... the adverb after the noun: "32 requests at the same time", "8 prompts simultaneously",
                        # "16 users concurrently", "4 requests in parallel" (not "1000 requests in total")
                        r"\b" + _LOAD_COUNT + r"\s+(?:requests?|users?|clients?|streams?|sequences?|prompts?)\s+"
                        r"(?:at\s+once|"
                        r"at\s+the\s+same\s+time|simultaneously|concurrently|in\s+parallel)\b|"
                        # ... and in Chinese: "100 并发", "100 个并发请求", "并发 100", "并发数为 100"
                        r"(?<![\d.])(\d{1,4})\s*个?\s*并发|并发数?\s*(?:为|=|:|：)?\s*(\d{1,4})(?![\d.])|"
                        # ... in German, the adjective before the noun ("64 gleichzeitige Anfragen", "100 parallele
                        # Nutzer"), and in French, Spanish, Portuguese and Italian after it ("32 requêtes simultanées",
                        # "16 solicitudes concurrentes", "8 requisições simultâneas", "10 richieste in parallelo")
                        r"\b(\d{1,4})\s+(?:gleichzeitige[nr]?|parallele[nr]?|simultane[nr]?)\s+"
                        r"(?:Anfragen|Requests|Nutzer[n]?|Benutzer[n]?|Anwender[n]?|Clients|Streams)\b|"
                        r"\b(\d{1,4})\s+(?:requêtes|requetes|demandes|utilisateurs|clients|solicitudes|peticiones|"
                        r"usuarios|usuários|clientes|requisições|requisicoes|solicitações|solicitacoes|richieste|"
                        r"utenti)\s+(?:simultan[ée]e?s|simult[áa]ne[ao]s|simultâne[ao]s|simultane[ei]|concurrente?s|"
                        r"concorrente?s|concorrenti|parall[èe]les|en\s+parall[èe]le|en\s+paralelo|em\s+paralelo|"
                        r"in\s+parallelo)(?![^\W\d_])|"
                        # ... and in Japanese and Korean: "64件の同時リクエスト", "同時接続数 32", "64개의 동시 요청",
                        # "동시 요청 64개"
                        r"(?<![\d.])(\d{1,4})\s*(?:件|個|人)?\s*の?\s*同時(?:リクエスト|接続|アクセス)|"
                        r"同時(?:リクエスト|接続|アクセス)数?\s*(?:は|=|:|：)?\s*(\d{1,4})(?![\d.])|"
                        r"(?<![\d.])(\d{1,4})\s*개의?\s*동시\s*(?:요청|접속|사용자)|"
                        r"동시\s*(?:요청|접속|사용자)\s*(?:수\s*)?(\d{1,4})(?![\d.])", re.I)

# The serving benchmarks' cap on requests in flight, said in prose as a launch line sets it (vLLM's `vllm bench serve`
# / benchmark_serving.py and SGLang's bench_serving `--max-concurrency N`,
# https://docs.vllm.ai/en/stable/cli/bench/serve.html; a command in a code block is the launch parser's): the load
# the ticket's mean TPOT / ITL was measured at.
# genai-perf's and trtllm-bench's `--concurrency N` is the same load (https://docs.nvidia.com/deeplearning/triton-inference-
# server/user-guide/docs/perf_analyzer/genai-perf/README.html).
MAX_CONCURRENCY = re.compile(r"(?<![\w-])--(?:max-)?concurrency[ =](\d{1,4})\b")

# A GPU count in a figure's clause: "1 GPU: 150 tok/s", "with 4 cards 205 tok/s", "on 2 A100 (80GB) ~700 tok/sec",
# "2x H100s" (not "per GPU"); a GeForce board by its number alone, "1 nvidia 4090", "two 3090s" (the GeForce numbers
# run 1050-5090: https://www.nvidia.com/en-us/geforce/graphics-cards/compare/).
CLAUSE_GPUS = re.compile(r"\b(\d{1,2}|" + words_pattern(ENGLISH_COUNT_WORDS) + r")\s*(?:x\s*)?"
                         r"(?:NVIDIA\s+|GeForce\s+)*"
                         r"(?:GPUs?|cards?|(?:RTX\s*)?[ABHLTV]\d{2,3}[A-Z]?s?|RTX\s*\d{4}s?|"
                         r"(?:GTX\s*)?[1-5]0[5-9]0(?:\s?Ti)?s?)\b", re.I)
# What may stand between a figure and the GPUs its clause names after it: a few words, then the preposition that
# sets the layout ("20 tok/s on 2 GPUs", "~70-75t/s during inference (using just 1x 4090)", "0.15 ms/token for single
# GPU"); not a comparison ("slower than on 1 GPU") nor a clause's end.
AFTER_FIGURE = re.compile(r"(?:(?!\b(?:than|vs|versus|compared|against|like)\b)[^.;:!?\d]){0,30}?"
                          r"\b(?:on|with|using|across|over|for)\s+(?:just\s+|only\s+)?", re.I)
# A clause that sets a layout as the condition of what follows, not a machine's inventory: opening on its
# preposition or conjunction ("with a single GPU, I achieve 29 tokens/s", "when using TP=2, ...") or, in Chinese,
# 当/使用/用/在 before it ("但是当使用了TP=2, 会导致..."); "I have 4 GPUs and get 30 tok/s" names the machine, not
# the figure's layout.
LAYOUT_CONDITION = re.compile(r"^\W*(?:(?:and|but|so|then)\s+)?(?:with|on|using|across|over|at|under|when|whenever|"
                              r"while|once|if|after)\b|当|使用|用了|在", re.I)
# One GPU named in Chinese or Japanese: "单卡", "单张卡", "一张卡", "单块 GPU", "单GPU", "1枚".
ONE_CARD = re.compile(r"单\s*(?:张|块|个)?\s*(?:卡|GPU|显卡)|一\s*(?:张|块)\s*(?:卡|GPU|显卡)|(?:GPU|グラボ)?\s*1\s*枚",
                      re.I)
# A rate given per stream ("25 tok/s per user", "30 tokens/s for each request"): one stream's, whatever the load.
_STREAM_NOUN = r"(?:user|request|stream|sequence|client)"
PER_STREAM = re.compile(r"\s*(?:per|/|for each|each)\s*(?:" + _STREAM_NOUN + r"|req)\b", re.I)
# A rate the reporter calls the whole output of many streams ("total throughput is 2500 tok/s", "aggregate 2500 tok/s",
# "2500 tok/s in total"), not one stream's.
# (the word describes the rate itself: "on this system I get 5 tok/s" is no total)
TOTAL_RATE = re.compile(r"\b(?:total|aggregate|combined)\s+(?:(?:output|generation|decode|token)\s+)?"
                        r"(?:throughput|rate|speed|output)\b[^,;:.]{0,25}?$|"
                        r"\b(?:total|aggregate|combined)\s*(?:(?:of|is|was|comes to|reaches)\s+)?(?:only\s+|just\s+)?"
                        r"(?:about\s+|around\s+|~)?$", re.I)
# A clause about one request alone: "single request", "one user", "单请求", "单个请求", "单并发".
ONE_STREAM = re.compile(r"\b(?:single|one|a lone)\s+(?:request|user|stream|client|sequence)\b|"
                        r"单个?(?:请求|用户|并发)", re.I)
# One request at a time, said as the circumstance a figure was measured in (vLLM's and SGLang's serving benchmarks
# call it concurrency 1; https://docs.vllm.ai/en/stable/cli/bench/serve.html): "with a single request", "one request
# at a time", "for one user", "no concurrent requests", "sequentially", "batch size 1". A request or user that is the
# subject of a clause ("a single request failed", "one user reported") is no load, so the noun must follow a
# preposition or carry "at a time"; "not a single request" denies it.
ONE_AT_A_TIME = re.compile(r"(?<!\bnot )\b(?:(?:with|at|for|using|on|in|under|by|even with)\s+(?:only\s+|just\s+)?"
                           r"(?:a\s+)?(?:single|one|1)[- ](?:request|user|stream|client|sequence|prompt|query|question|"
                           r"sample)s?\b|"
                           # (extract35) the load named by the benchmarks' own word, "single concurrency", "one
                           # concurrency" (genai-perf / trtllm-bench --concurrency 1, vLLM's --max-concurrency 1)
                           r"\b(?:single|one|1)[- ]concurrency\b|"
                           # ... one request each time: "each time only send a request", "one request per time"
                           r"\b(?:each|every)\s+time\s+(?:I\s+|we\s+)?(?:(?:only|just)\s+send\w*\s+(?:a|one|1|a\s+single)|"
                           r"send\w*\s+(?:only\s+|just\s+)?(?:one|1|a\s+single))\s+(?:request|prompt|query)\b|\b(?:one|a\s+single|1)\s+(?:request|prompt|query)\s+(?:each|every|per)"
                           r"\s+time\b|"
                           # ... a figure said of one request: "a single request has throughput around 80 tokens per
                           # second", "single-request latency is 2 s", "one user gets 30 tok/s"
                           r"\b(?:single|one)[- ](?:request|user|stream)\s+(?:has|gets|achieves|reaches|runs\s+at|sees|"
                           r"yields|gives|throughput|latency|speed|performance|decode|generation)\b|"
                           # ... the object of the work timed: "to handle one prompt", "test a single sentence
                           # inference", "processing a single query"
                           r"\b(?:handl|process|answer|infer|run|generat|send|test)\w*\s+(?:only\s+|just\s+)?"
                           r"(?:a\s+single|one|1)\s+(?:prompt|query|question|request|sample|sentence)\b|"
                           r"(?:one|a single|1)\s+(?:request|prompt|sequence)\s+at\s+a\s+time\b|"
                           r"\bno\s+(?:other\s+)?(?:concurrent|parallel|simultaneous)\s+(?:requests?|users?|load)\b|"
                           # requests, not layers or GPUs, one after another
                           r"\b(?:requests?|prompts?)\s+(?:(?:were|are|was|is)\s+)?(?:(?:sent|run|issued|processed)\s*)?"
                           r"(?:sequentially|one\s+after\s+(?:another|the\s+other))\b|"
                           r"\b(?:sent|ran|sending|running|issued|processed)\s+(?:the\s+|my\s+|all\s+)?"
                           r"(?:requests|prompts)\s+(?:sequentially|one\s+after\s+(?:another|the\s+other))\b|"
                           r"\b(?:batch[-_ ]?size|bs)\s*(?:(?:=|:|of)\s*)?(?:1|one)\b(?!\.?\d))", re.I)
# ... and in Chinese before the figure: "总共每秒 700 token", "合计", "总计", "一共", "总吞吐".
CJK_TOTAL = re.compile(r"(?:总共|总计|合计|一共|总吞吐量?)[^，,；;。]{0,10}$")
# ... and the same said after the figure in German, French, Spanish, Portuguese, Italian and Japanese ("3.100 tok/s
# insgesamt", "au total", "en total", "no total", "ao todo", "in totale", "合計")
TOTAL_RATE_AFTER = re.compile(r"\s*(?:(?:in total|total|aggregate|overall|combined|all together|across all|"
                              r"insgesamt|au total|en tout|en total|no total|ao todo|in totale)\b|合計|全体で)", re.I)
# The same said before the figure: "each user gets 25 tok/s", "every request sees ~30 tokens/s", "per-user speed is 25".
# ("each of the 28 users gets 5 tok/s", "every one of the 16 requests sees 20": one of that many)
STREAM_BEFORE = re.compile(r"(?:\b(?:each|every)\s+(?:(?:one\s+)?of\s+the\s+\d{1,4}\s+" + _STREAM_NOUN + r"s|one|"
                           + _STREAM_NOUN + r")?\s*"
                           r"(?:gets?|sees?|receives?|runs?\s+at|is\s+at|at|only\s+gets?)?|"
                           r"\bper[- ]" + _STREAM_NOUN + r"\b[^,;:]{0,25}?)"
                           r"\s*(?:only\s+)?(?:about|around|~)?\s*$", re.I)


def _block_labels(prose: list[tuple[int, str]], code: list[tuple[int, str]]) -> dict[int, tuple[str, int, int]]:
    """{prose line: (GPU, first, last line of the block)} for a short line that names one GPU right above a
    pasted block ("H100 PCIe", "On the A100 SXM4:"): that block holds the named system's output. Two blocks
    labelled with different GPUs are two systems compared, not one job on mixed GPUs."""
    text = dict(prose)
    out = {}
    for start, body in code:
        above = next((i for i in range(start - 2, max(0, start - 5), -1) if text.get(i, "").strip()), None)
        if above is None:
            continue
        line = _plain(text[above])
        names = {m.group(1) for m in GPU_NAME.finditer(line)}
        if len(names) == 1 and len(line.split()) <= 6:
            out[above] = (names.pop(), start, start + len(body.splitlines()) - 1)
    return out


# The container images the engines publish, as a pasted compose file, Dockerfile or `docker run` names them:
# https://hub.docker.com/r/vllm/vllm-openai, https://hub.docker.com/r/lmsysorg/sglang,
# https://github.com/huggingface/text-generation-inference/pkgs/container/text-generation-inference,
# https://hub.docker.com/r/openmmlab/lmdeploy, https://hub.docker.com/r/ollama/ollama; the tag a release where it is one
# ("vllm/vllm-openai:v0.6.3.post1"; "latest" and "nightly" name none); Docker Hub's full name "docker.io/vllm/..." is
# the same image. Where the prose names the engine but no release, the tag of its image gives the release.
ENGINE_IMAGES = {"vllm/vllm-openai": "vllm", "lmsysorg/sglang": "sglang", "openmmlab/lmdeploy": "lmdeploy",
                 "ghcr.io/huggingface/text-generation-inference": "tgi", "ollama/ollama": "ollama"}
ENGINE_IMAGE = re.compile(r"(?<![\w./-])(?:docker\.io/)?(?P<image>" + "|".join(map(re.escape, ENGINE_IMAGES)) + r")"
                          r"(?::(?P<tag>[\w.-]+))?(?![\w/-])", re.I)


def _image_release(m: re.Match) -> str | None:
    """The engine release an ENGINE_IMAGE match's tag writes ("v0.6.3", "0.5.3.post1"; not "latest", "-cu124")."""
    tag = re.match(r"v?\d+\.\d+(?:\.\d+)?(?:\.?post\d+|rc\d+)?", m.group("tag") or "")
    return tag.group(0) if tag else None


def _code_model(code_lines) -> tuple[int, str] | None:
    """(line, name) of the one model pasted code names where the prose names none: a compose service or container
    name ("vllm-qwen36-27b:"), a weights folder ("/models/Llama-3.1-8B-Instruct"), a script's Hugging Face id. Two
    different names (a list of downloads, a comparison) name no one model; a release's dot dropped or hyphenated
    ("qwen36-27b", "llama-3-1-8b") is the same name. Not a table row's: a llama-bench row's model cell ("llama 7B",
    which Llama 2 7B and Mistral 7B both print) is read with its params column by _timing_lines."""
    found = [(i, m.group(1)) for i, ln in code_lines if "|" not in ln  # (a results table's rows: its own readers')
             for m in (list(HF_ID.finditer(ln)) or list(MODEL_NAME.finditer(ln))) if not _names_data(ln, m)]
    names = {re.sub(r"[^a-z0-9]", "", n.rsplit("/", 1)[-1].lower()) for _, n in found}
    return found[0] if len(names) == 1 else None


# A model named as not the one the ticket's figures were measured with, by the words of its own clause:
# - before it: a past or abandoned run ("previously", "used to run", "switched from", "moved from"), a wish or plan
#   ("I'd like to run", "want to try", "planning to deploy"), an example ("e.g.", "such as", "for instance"), a
#   negation ("not the", "instead of", "rather than": NOT_THIS_MODEL), a speculative-decoding draft ("draft model",
#   "speculator", "assistant model": vLLM's and SGLang's docs call the small model that proposes tokens the draft,
#   https://docs.vllm.ai/en/latest/features/spec_decode.html; transformers calls it the assistant model,
#   https://huggingface.co/docs/transformers/generation_strategies#speculative-decoding);
# - after it: "before", "previously", "earlier", "in the past", or "as (the) draft".
# Where the ticket names another model without such words, that one is the run's (rules.subject prices its weights).
NOT_RUN_BEFORE = re.compile(
    r"(?:之前|以前|原先|曾经)[^，,；;]{0,20}$|"  # ... and in Chinese: "以前用 X", "之前跑的 X" (earlier, formerly)
    r"\b(?:previously|formerly|earlier|in\s+the\s+past|used\s+to|(?:switch|mov|migrat|upgrad|chang)\w*\s+from|"
    r"(?:would|'d|’d)\s+(?:like|love)\s+to|wants?\s+to|wanted\s+to|wanna|plan(?:s|ned|ning)?\s+to|"
    r"hop(?:e|es|ing)\s+to|intend\w*\s+to|e\.g\.|for\s+example|for\s+instance|such\s+as)(?![a-z])[^,;]{0,40}$|"
    r"\b(?:draft|speculator|assistant)(?:\s+model)?\s*(?:[:=]|is)?\s*(?:the\s+|a\s+)?$|"
    r"\b(?:not|instead\s+of|rather\s+than)\s+(?:the\s+|a\s+)?$", re.I)
# ("wants to run X" only: "I want to know why X is slow" asks about the run; the verbs a wish runs a model with)
WISH_VERB = re.compile(r"\b(?:(?:would|'d|’d)\s+(?:like|love)\s+to|wants?\s+to|wanted\s+to|wanna|plan\w*\s+to|"
                       r"hop\w*\s+to|intend\w*\s+to)\s+(?!(?:\w+\s+){0,2}?(?:run|serve|deploy|use|try|test|load|"
                       r"host|fine-?tune|switch|move|upgrade|go)\b)", re.I)
NOT_RUN_AFTER = re.compile(r"^[\w.:/-]*\s*\(?(?:before|previously|earlier|in\s+the\s+past|"
                           r"(?:as|for)\s+(?:the\s+|a\s+|its\s+)?(?:draft|speculator|assistant)|draft)\b", re.I)


def _not_run(line: str, m: re.Match) -> bool:
    """Is the model `m` names said, in its own clause of `line`, as not the run measured (NOT_RUN_BEFORE/AFTER)?"""
    # (the words since the clause began or since the model named before it: "switched from X to Y" says it of X only)
    # (an abbreviation's full stop ends no clause: "e.g. X", "i.e. X")
    names = [o.span() for rx in (HF_ID, PLUS_MODEL, MODEL_NAME) for o in rx.finditer(line)]
    starts = [c.end() for c in CLAUSE.finditer(line, 0, m.start())
              if not re.search(r"\b(?:e\.g|i\.e|cf|vs)\.$", line[:c.start()], re.I)]
    before = line[max([*starts, *(e for _, e in names if e <= m.start())], default=0):m.start()]
    ends = [c.start() for c in CLAUSE.finditer(line, m.end())] + [b for b, _ in names if b >= m.end()]
    end = min(ends, default=len(line))
    said = NOT_RUN_BEFORE.search(before)
    if said and WISH_VERB.search(said.group(0)):
        return False  # "I want to know why X is slow": a wish word, not a wish to run X
    return bool(said or NOT_RUN_AFTER.search(line[m.end():end]))


# A Hugging Face id given as a dataset: after a dataset flag or word ("--dataset-path anon8231489123/
# ShareGPT_Vicuna_unfiltered", vLLM's benchmark docs; "dataset: ..."; datasets and models share the org/name form,
# https://huggingface.co/docs/hub/datasets-overview) or before one ("the ... dataset").
DATASET_BEFORE = re.compile(r"\bdatasets?(?:[-_](?:name|path|id))?\s*[:=]?\s*[\"']?$", re.I)
DATASET_AFTER = re.compile(r"^[\"'`]?\s+dataset\b", re.I)


def _names_data(line: str, m: re.Match) -> bool:
    """Does the id `m` matched name a dataset, by the word or flag beside it (DATASET_BEFORE/AFTER)?"""
    return bool(DATASET_BEFORE.search(line[:m.start()]) or DATASET_AFTER.match(line[m.end():]))


def _run_model(line: str, at: int, passed_over: list) -> re.Match | None:
    """The first model name line `at` gives as run (an HF id, then Cohere's "Command R+", then a known family with its
    size), passing over those said as not run (_not_run), which go to `passed_over` as (line number, match)."""
    for rx in (HF_ID, PLUS_MODEL, MODEL_NAME):
        for m in rx.finditer(line):
            if _names_data(line, m):
                continue
            if not _not_run(line, m):
                return m
            passed_over.append((at, m))
    return None


def _first_run(lines: dict, rx: re.Pattern, passed_over: list) -> tuple[int, str, re.Match] | None:
    """(line, name, match) of the first name `rx` finds in the prose lines that is neither a dataset nor said as not
    the run; those said so go to `passed_over`."""
    for i, ln in lines.items():
        for m in rx.finditer(ln):
            if _names_data(ln, m):
                continue
            if not _not_run(ln, m):
                return i, m.group(1), m
            passed_over.append((i, m))
    return None


def _code_names_model(code_lines) -> bool:
    """Does pasted code or output name a model (a launch's --model, a weights folder, an HF id)? Then the run's model
    is there, not a name the prose gives as tried before or wished for."""
    return any(not _names_data(ln, m) for _, ln in code_lines for rx in (HF_ID, MODEL_NAME) for m in rx.finditer(ln))


def _unversioned(name: str) -> bool:
    """'Qwen 72B', 'Llama 70B': a family and a size, no version ('Qwen2-72B', 'Llama 3 70B' have one)."""
    return bool(re.fullmatch(r"[A-Za-z]+[\s_-]*\d+(?:\.\d)?\s*[bB]", name.strip()))


def _refines(first: str, later: str) -> bool:
    """A later name of the same family and size that says which version ('Qwen 72B' in a title, then
    'Qwen2-72B-Instruct-GPTQ-Int4' in the text): the text names the model the title shortened."""
    family = re.match(r"[A-Za-z]+", first).group(0).lower()
    size = re.search(r"(\d+(?:\.\d)?)\s*[bB]", first).group(1)
    return (later.lower().startswith(family) and len(later) > len(first)
            and re.search(rf"(?<![\d.]){re.escape(size)}\s*[bB]\b", later) is not None)


# A GPU that belongs to someone else, by the grammar of possession: a possessor that is not the reporter before the
# name in its clause ("my friend's 4090", "a colleague's A100", "his 3090", "your H100", "someone else's card") or a
# person holding it ("a friend with a 4090", "people on 4090s", "someone who has an A100", "my brother has two 3090s").
# The reporter's own ("my", "our", "mine", "I have") is not matched. Where the text also names a GPU of the
# reporter's, such a GPU is never the ticket's and its figures are not the reporter's; where it names only others'
# (a support engineer writing about a colleague's node) that GPU is the one the ticket is about.
_PERSON = (r"(?:friends?|colleagues?|co-?workers?|brother|sister|cousin|dad|father|son|buddy|mate|boss|neighbou?r|"
           r"room-?mate|teammates?|someone(?:\s+else)?|somebody(?:\s+else)?|anyone|everyone|others|other\s+(?:users?|"
           r"people|folks)|another\s+(?:user|person|guy)|people|folks|he|she)")
# ("your" only where the writer speaks of their own in the first person singular in the same line, "your A100 gives
# 90 tok/s, my H100 60": a support engineer's "your node ... our reference box" is the ticket's machine)
_YOURS = re.compile(r"\byour\s+(?:(?:a|an|the|two|three|four|eight|\d+\s*(?:x|×)?|new|old|own)\s+)*"
                    r"(?:(?:NVIDIA|Nvidia|nvidia|GeForce|Tesla|Quadro)\s+)*$", re.I)
_WRITER_ALONE = re.compile(r"\b(?:my|mine|I)\b")
_MACHINE = r"(?:workstation|machine|box|PC|rig|server|node|laptop|computer|desktop|setup|system|cluster)"
OTHERS_GPU = re.compile(
    r"(?:\b(?:his|her)\s+|\b" + _PERSON + r"(?:'s|’s|s'|’)\s+|"
    r"\b" + _PERSON + r"\s+(?:(?:with|using|on|running|who\s+(?:has|have|had|uses?|used|runs?|ran|owns?|bought)|"
    r"that\s+(?:has|have|uses?|runs?))|(?:has|have|had|uses?|used|owns?|bought|got|runs?|ran)(?:\s+got)?)\s+|"
    # what others report on a GPU: "other users on the forum report 40 tok/s on an RTX 4090"
    r"\b" + _PERSON + r"\b[^,;.]{0,40}?\b(?:report\w*|get|gets|got|see|sees|saw|say|says|said|claim\w*|achiev\w*|"
    r"reach\w*|measur\w*)\b[^,;.]{0,40}?\b(?:on|with|using)\s+)"
    # their machine holding it: "a coworker's workstation (RTX 4090)", "a friend's box with a 4090"
    r"(?:" + _MACHINE + r"\s*(?:\(\s*|(?:with|has|had)\s+))?"
    r"(?:(?:a|an|the|two|three|four|eight|dual|quad|\d+\s*(?:x|×)?|new|old|brand-new|same)\s+)*"
    r"(?:(?:NVIDIA|Nvidia|nvidia|GeForce|Tesla|Quadro)\s+)*$", re.I)
# the holder after the name: "the 4090 my friend owns", "an A100 that a colleague has"
_HELD_AFTER = re.compile(r"^[\w -]{0,20}?\s(?:that\s+|which\s+)?(?:my\s+|our\s+|a\s+|his\s+|her\s+|the\s+)?"
                         + _PERSON + r"\s+(?:owns?|has|had|uses?|used|bought|runs?|ran)\b", re.I)
# the reporter using it: "I'm now using my friend's RTX 4090", "we borrowed a colleague's A100"
_REPORTER_USES = re.compile(r"\b(?:I|we)(?:'m|'re|'ve| am| are| have| had)?\s+(?:\w+\s+){0,2}?(?:using|use|used|"
                            r"borrow(?:ed|ing)?|bought|buy|got|inherited|running|run|testing|tested|tried|trying)\s+"
                            r"(?:on\s+|with\s+)?(?:my\s+|our\s+|a\s+|the\s+)?$", re.I)


# (s20) A GPU the reporter had and replaced: the first of two names joined, after a change verb, by an arrow ("I've
# changed GPUs (2080 tis → 3070 tis)", forum.level1techs.com/t/gpu-gpu-expected-bandwidth/185531) or by "to", "with",
# "for" or "by" ("upgraded from a 3090 to a 4090", "replaced my 2080 Ti with a 3070 Ti", "swapped the 4070 for
# a 4090"): the second is the one in the machine now, the first is no more the reporter's than someone else's.
_REPLACED_BY = re.compile(r"\s*(?:→|->|=>|⇒|to|with|for|by)\s+"
                          r"(?:(?:an?|the|my|our|new|two|\d+\s*[x×])\s+)*", re.I)
# The change verb must come first, arrow or not: an arrow alone sets figures or a fallback order side by side
# ("Generation tok/s (3090 → 4090)", "a priority-ordered fallback list (A5000 → A4000 → 3090 → 4090)").
_CHANGE_VERB = re.compile(r"\b(?:from|replac\w*|swapp?\w*|upgrad\w*|switch\w*|chang\w*|went|mov(?:ed|ing))\b"
                          r"[^,;.]{0,30}$", re.I)


def _replaced(line: str, start: int) -> bool:
    """Is the GPU named at `start` one the reporter replaced by the GPU named right after it (_REPLACED_BY)?"""
    m = GPU_NAME.match(line, start)
    b = _REPLACED_BY.match(line, m.end()) if m else None
    return bool(b and GPU_NAME.match(line, b.end()) and _CHANGE_VERB.search(line[max(0, start - 60):start]))


def _others_gpu(line: str, start: int, context: str | None = None) -> bool:
    """Is the GPU named at `start` someone else's (OTHERS_GPU before it, or its holder after it, within its clause),
    or one the reporter replaced (_replaced), and not one the reporter uses? `context`: the line a clause comes from
    (where the writer may say "my")."""
    if _replaced(line, start):
        return True
    before = re.split(r"[,;:.!?]\s|\s(?:but|while|whereas|and)\s", line[max(0, start - 80):start])[-1]
    if _YOURS.search(before) and _WRITER_ALONE.search(context or line):
        return True
    m = OTHERS_GPU.search(before)
    if m:
        return not _REPORTER_USES.search(before[:m.start()])
    return bool(_HELD_AFTER.match(line[start:start + 60]))


def _others_clause(clause: str, line: str) -> bool:
    """Does the clause speak of someone else's GPU only ("my friend's 4090 does 40 tok/s")? Its figures are theirs."""
    found = [_others_gpu(clause, m.start(), line) for m in GPU_NAME.finditer(clause)]
    return bool(found) and all(found)


# A GPU the writer says they lack: "we don't have an H100", "I have no access to A100s", "我们没有h100的机器"; not one
# more of a GPU they have ("I don't have a second A100").
_LACKED = re.compile(r"(?:\b(?:I|we)\s+(?:do\s+not|don[’']?t|did\s+not|didn[’']?t)\s+(?:have|own)\s+"
                     r"(?:access\s+to\s+)?|"
                     r"\b(?:I|we)\s+(?:have|had)\s+no\s+(?:access\s+to\s+)?|没有|沒有)\s*(?:an?\s+|any\s+)?"
                     r"(?:(?:NVIDIA|Nvidia|nvidia|GeForce)\s+)?$", re.I)


# GPUs the writer meant, means or thinks to buy, in the clause before the name: "The plan was originally to buy four RTX
# 3090s", "I'm thinking of adding a third 3090", "we are considering getting 8x H100": a purchase, not the machine that
# ran. (What they bought or added, "I bought two 3090s", "I added a 4090", ran.)
_PLANNED = re.compile(r"\b(?:plan(?:s|ned|ning)?|(?:was|were|am|is|are)\s+going\s+to|intend\w*|thinking\s+(?:of|about)|"
                      # (extract35) a buying question: "Should I buy 4 RTX 4090 or 2 A6000?", "is it worth getting 2"
                      r"should\s+(?:I|we)|worth|"
                      r"consider\w*|want(?:s|ed)?\s+to|would\s+like\s+to|(?:I|we)['’]d\s+like\s+to|hop(?:e|es|ed|ing)\s+to|"
                      r"about\s+to)\b[^.!?;]{0,30}?\b(?:buy\w*|purchas\w*|get(?:ting)?|order\w*|add(?:ing)?|"
                      r"pick(?:ing)?\s+up)\b[^.!?;]{0,24}$", re.I)


# (xfail46) GPUs weighed in a question are hardware considered, not the machine that ran: offered as alternatives in a
# question ("what will be better, 1x2080ti or 2x1080ti?", "- 2x Nvidia 3090 cards (total 48Gb) or 1x Nvidia 4090
# (24Gb)?", "3090或4090 单卡可以...吗？"), asked to be enough ("比如两张A100/A800 80G足够吗？"), or wondered about in a
# would-clause ("I wonder how 4xRTX A6000 ... would compare to 2xA100"), or their count asked ("how many h100's are
# needed to run grok?", "How much H100 GPUs are required ...?", "全量训练大概有多少张A800呢？"). A sentence that owns
# its GPU ("I have 2x 3090, is it enough?", "my 4090 or the driver?", "I am using 8 RTX 4090 GPUs ... can I ...?")
# keeps it.
_SENTENCE_END = re.compile(r"[?？!！。；;]|\.(?=\s|$)")
# (fr46b) an alternative is weighed only where the GPU itself stands beside the or/vs/还是, with another GPU (or a count
# of cards) on its other side, a few words each way and no comma between: "1x2080ti or 2x1080ti?", "2x Nvidia 3090
# cards (total 48Gb) or 1x Nvidia 4090 (24Gb)?"; not "hangs on 2x L40S, should I set NCCL_P2P_DISABLE=1 or switch to
# A100?", "hangs on 4x A100 after step 1, is this a driver issue or should we upgrade to H100?"
_OR_AFTER = re.compile(r"^[^,;:，；、]{0,40}?(?:\s(?:or|vs\.?|versus)\s|或|还是)\s*", re.I)
_WORD = re.compile(r"[^\s,;:，；?？]+\s+")
_OR_BEFORE = re.compile(r"(?:\s(?:or|vs\.?|versus)\s|或|还是)\s*(?:[^\s,;:，；]+\s+){0,3}$", re.I)
_CARDS = re.compile(r"\d+\s*[x×]\s*\w", re.I)
# (asked of the GPU itself, "Would 2x A100 80GB be enough ...?", "dose 8 A100 80g enough ...?": an asking verb right
# before it; not "The H100 80GB should be more than enough ..., right?", "I'm on 2x RTX 4090 - is that enough ...?")
_ASKED_OF = re.compile(r"\b(?:is|are|would|will|does|dose|do|can|could|might)\s+"
                       r"(?:(?:a|an|one|two|three|four|eight|single|\d+\s*[x×]?)\s*)?$", re.I)
_ENOUGH = re.compile(r"\b(?:enough|sufficient)\b", re.I)
_ENOUGH_ZH = re.compile(r"(?<!不)(?:足够|够用|够吗)|够不够")
# (any negation in the GPU's clause: "Is 2x A100 not enough ...?", "Why doesn't the A100 80GB have enough memory ...?")
_NEGATED = re.compile(r"\b(?:not|never|no)\b|n['’]t\b|不够(?!不)|不足", re.I)
_WONDER = re.compile(r"\bwonder(?:ing)?\s+(?:how|if|whether)\b", re.I)
_WOULD = re.compile(r"\b(?:would|could)\b", re.I)
# (a definite article or demonstrative points at a GPU already in the story: "Wondering if the 8x H100 node would hang
# the same way ...")
_DEFINITE = re.compile(r"\b(?:the|this|that|these|those)\s+(?:\d+\s*[x×]?\s*)?$", re.I)
_COUNT_ASKED = re.compile(r"(?:\bhow\s+(?:many|much)\s+(?:NVIDIA\s+|Nvidia\s+)?|(?:多少|几)\s?[张块个台片]?\s?)$", re.I)
_OWNED = re.compile(r"\b(?:I|we)\s+(?:have|had|got|own|use|used|run|ran|bought|"
                    r"(?:am|are|was|were)\s+(?:using|running|on))\b|"
                    r"\b(?:I|we)['’](?:ve|m|re)\s+(?:got|using|running|on)\b|\b(?:my|our)\b|"
                    r"我有|我们有|我的|我们的|(?:我|我们|目前|现在|正在)\s*(?:使)?用", re.I)
# (the machine the trouble happened on, in the lead: "The server hangs at NCCL init on 2x L40S, ...", "Training hangs
# on 4x A100 80GB ...", "running on 2 A100s"): never weighed
_RAN_ON = re.compile(r"\b(?:hang\w*|hung|stuck|freez\w*|froze\w*|crash\w*|fail\w*|deadlock\w*|run|runs|ran|running|"
                     r"work\w*|train\w*|load\w*|serv\w*|deploy\w*|OOMs?)\b[^,;:]{0,60}?\b(?:on|with|using)\s+"
                     r"(?:(?:a|an|one|two|three|four|eight|single|\d+\s*[x×]?)\s*)?(?:(?:NVIDIA|GeForce)\s+)*$", re.I)


def _weighed(line: str, start: int) -> bool:
    """Is the GPU (or count) at `start` hardware weighed in a question, not the machine's (see _OR_AFTER, _ASKED_OF,
    _WONDER, _COUNT_ASKED above)? When in doubt it is the machine's: a GPU the reporter owns or ran on is never weighed.
    (The sentence is capped 200 characters each side of the GPU.)"""
    lead = re.split(r"[.!?;]\s|[。！？；]", line[max(0, start - 200):start])[-1]
    end = _SENTENCE_END.search(line, start, start + 200)
    tail = line[start:end.start() if end else min(len(line), start + 200)]
    sentence = lead + tail
    if _OWNED.search(sentence) or _RAN_ON.search(lead[-90:]):
        return False
    if (wonder := _WONDER.search(lead)) and not _DEFINITE.search(lead) and _WOULD.search(sentence, wonder.end()):
        return True
    if end is None or end.group() not in "?？":
        return False
    clause = re.split(r"[,，;；]", lead)[-1] + re.split(r"[,，;；]", tail)[0]
    own = re.split(r"[,，;；]", tail)[0]
    if not _NEGATED.search(clause) and (_ENOUGH_ZH.search(own) or _ENOUGH.search(own) and _ASKED_OF.search(lead)):
        return True
    if _COUNT_ASKED.search(lead):
        return True
    # (a 'than' sets a run against others, "why is A100 slower than H100 or L40S?": no alternatives weighed)
    if re.search(r"\bthan\b", sentence, re.I):
        return False
    if after := _OR_AFTER.match(tail):
        at = after.end()
        for _ in range(4):  # the GPU on the or's other side, within three words of it
            if GPU_NAME.match(tail, at) or _CARDS.match(tail, at):
                return True
            if not (word := _WORD.match(tail, at)):
                break
            at = word.end()
    before = _OR_BEFORE.search(lead[-60:])
    return bool(before) and bool(GPU_NAME.search(lead[-60:][:before.start()][-40:]) or
                                 _CARDS.search(lead[-60:][:before.start()][-40:]))


def _planned(line: str, start: int) -> bool:
    """Is the GPU (or count) at `start` one the writer plans or plans to buy (_PLANNED), within its sentence, or one
    weighed in a question (_weighed)?"""
    lead = line[max(0, start - 70):start]
    return bool(_PLANNED.search(re.split(r"[.!?;]\s", lead)[-1])) or _weighed(line, start)


def _own_gpu(line: str, apart: bool = True) -> re.Match | None:
    """The first GPU name in `line` that is not someone else's (`apart`), else the first; never one the writer says
    they lack (_LACKED) or only plan to buy (_PLANNED)."""
    named = [m for m in GPU_NAME.finditer(line) if not _LACKED.search(line[max(0, m.start() - 40):m.start()])
             and not _planned(line, m.start())]
    return next((m for m in named if not (apart and _others_gpu(line, m.start()))), None)


def _sets_apart(lines) -> bool:
    """Does the text name a GPU of someone else's beside one of the reporter's? Only then is the other set apart."""
    said = [_others_gpu(ln, m.start()) for _, ln in lines for m in GPU_NAME.finditer(ln)]
    return any(said) and not all(said)


def _gpu_refines(first: str, later: str) -> bool:
    """A later GPU name that says more of the same product ('A100' in a title, then 'A100 PCIe 80GB' or
    'A100-SXM4-80GB' in the text): the text names the board the title shortened."""
    a, b = (re.sub(r"[\s_-]+", " ", x.lower()).strip() for x in (first, later))
    return len(b) > len(a) and b.startswith(a + " ")


# A count of GPUs said as a possibility, in the clause before it: "it is also possible to use 6 GPUs with 32 GB", "one
# could use 4 GPUs", "it would need 8 GPUs": a layout that would do, not the one that ran.
# ("I was able to run it on 2 GPUs", "I could run it on 2 GPUs" say what ran: not these)
POSSIBLE_COUNT = re.compile(r"(?:\bpossible\s+to\s+(?:use|run\s+(?:it\s+)?on|split\s+(?:it\s+)?(?:over|across))|"
                            r"\b(?:could|would|might)\s+(?:also\s+)?(?:use|need|require|take))[^.,;!?]{0,20}$", re.I)


# A TP or PP size asked about or advised, not run: a sentence asking whether it would do ("Would TP4 be faster?", "Will
# tp=2 help?") or which of several to choose ("Which kind of hyper parameters is better tp=2,pp=2 or tp=1,pp=4?"),
# or advice before the size in its sentence ("Maybe have a try on using 2x tp4 instances", "try tp=2", "I'd suggest
# TP 4", "you could use --tp 2", "how about TP=2?"); "I try" / "we try" is the reporter's own attempt, which ran
# ("when I try to run vLLM with tensor parallelism of 2, it raises an error"), not advice. A why-question ("Why is
# TP=2 slower?") and a yes/no question on what ran ("Is it normal that TP=4 gives 20 tok/s?") keep the size: they ask
# about the run.
ASKED_SIZE = re.compile(r"^\W*(?:would|will|which)\b.*\?\s*$", re.I)
ADVISED_SIZE = re.compile(r"\b(?:maybe|perhaps|have a try|(?<!\bI )(?<!\bwe )try|suggest\w*|recommend\w*|how about|"
                          r"what about|you (?:could|should|can|may|might)(?: also| just)?)\b", re.I)


# A size the sentence says was not used: "I did not use --tensor-parallel-size 4", "without setting tp=2", "we never
# pass --tp 8"; "--tp 4 is not set", "TP=2 was not used". Not a negation of something else on the line ("I can't get
# good speed with tp=2": the size ran).
UNUSED_BEFORE = re.compile(r"(?:\b(?:not|never|no longer|without)|n['’]?t)\s+(?:\w+\s+){0,2}?(?:us(?:e|ed|ing)|"
                           r"set(?:ting)?|pass(?:ed|ing)?|enabl(?:e|ed|ing)|specif(?:y|ied|ying)|add(?:ed|ing)?)\s+"
                           r"(?:the\s+)?(?:flag\s+|option\s+)?[`'\"]?-{0,2}$", re.I)
UNUSED_AFTER = re.compile(r"^[`'\"]?\s*(?:(?:is|was|were|are)(?:\s+not|n['’]?t)\s+(?:\w+\s+)?"
                          r"(?:set|used|passed|enabled|given|specified)\b)", re.I)


def _run_sizes(line: str, pattern: re.Pattern = TP) -> list[re.Match]:
    """The sizes `pattern` finds in the line that no question, advice or denial of their sentence governs
    (ASKED_SIZE, ADVISED_SIZE, UNUSED_BEFORE / UNUSED_AFTER)."""
    out = []
    for m in pattern.finditer(line):
        start, end = sentence_start(line, m.start()), sentence_end(line, m.end())
        if not (ASKED_SIZE.match(line[start:end]) or ADVISED_SIZE.search(line[start:m.start()])
                or UNUSED_BEFORE.search(line[start:m.start()]) or UNUSED_AFTER.match(line[m.end():end])):
            out.append(m)
    return out


# Scripts whose every rank holds one tensor-parallel shard, so torchrun's process count is the TP size: a model loaded
# with Transformers' `tp_plan="auto"` ("torchrun --nproc-per-node 4 demo.py" runs TP 4,
# https://huggingface.co/docs/transformers/perf_infer_gpu_multi), and Meta's reference llama scripts, whose
# --nproc_per_node must equal the checkpoint's model-parallel (MP) shards (https://github.com/meta-llama/llama,
# README "Inference": "--nproc_per_node should be set to the MP value for the model"; example_*_completion.py
# --ckpt_dir). Any other torchrun script may be data parallel: its ranks count GPUs (launch.py), not a TP size.
TP_PLAN_AUTO = re.compile(r"\btp_plan\s*=\s*[\"']auto[\"']")
TORCHRUN_RANKS = re.compile(r"\btorchrun\b.*?--nproc[-_]per[-_]node[= ](\d{1,2})\b")
META_LLAMA_SCRIPT = re.compile(r"\bexample_\w*completion\.py\b.*--ckpt_dir\b")


def _ranks_as_tp(lines: list[tuple[int, str]]) -> list[tuple[int, int]]:
    """(line, TP size) of each torchrun line whose ranks are one TP group (TP_PLAN_AUTO, META_LLAMA_SCRIPT)."""
    tp_plan = any(TP_PLAN_AUTO.search(ln) for _, ln in lines)
    return [(i, int(m.group(1))) for i, ln in lines if (m := TORCHRUN_RANKS.search(ln))
            and (tp_plan or META_LLAMA_SCRIPT.search(ln, m.end()))]


# ExLlama's split of the weights over GPUs, one figure of GB per GPU: exllamav2's `model.load(gpu_split=[20, 24])` and
# its scripts' `-gs 20,24` / `--gpu_split` ("Comma-separated list of VRAM (in GB) to use per GPU device for model
# layers", https://github.com/turboderp-org/exllamav2, examples and model_init.py), text-generation-webui's
# `--gpu-split 20,7,7` for its ExLlama loaders (https://github.com/oobabooga/text-generation-webui/wiki, command-line
# flags). A zero leaves that GPU out; "auto" counts none.
# llama.cpp's -ts / --tensor-split, one proportion a GPU ("fraction of the model to offload to each GPU,
# comma-separated list of proportions, e.g. 3,1": tools/server/README.md; `--tensor-split 1,1` on two RTX 3060s,
# `-ts 11,9` on a 3060 Ti + 3080 Ti) counts them the same way, in prose as in a launch line (launch._split_gpus).
GPU_SPLIT = re.compile(r"\bgpu[-_]split\s*=\s*[\[(\"']?\s*(\d+(?:\.\d+)?(?:\s*,\s*\d+(?:\.\d+)?)+)|"
                       r"(?<![\w-])(?:-gs|--gpu[-_]split|-ts|--tensor[-_]split)[ =][\"']?"
                       r"(\d+(?:\.\d+)?(?:[,/]\d+(?:\.\d+)?)+)")
# llama.cpp's split modes that cut every layer's matrices over the GPUs, tensor parallelism (-sm / --split-mode row,
# "tensor" in recent builds and LM Studio's "split mode tensor", ik_llama.cpp's "graph"; layer, the default, gives each
# GPU whole layers: tools/server/README.md): over the GPUs counted, the TP size is their count.
ROW_SPLIT = re.compile(r"(?:--split[-_]mode|\bsplit[-_ ]mode|(?<![\w-])-sm)\b\W{0,4}(?:row|tensor|graph)\b", re.I)
# ... not where the layer split is named too ("-sm row is slower than -sm layer": which one ran is not said) nor where
# the row split is denied or set aside ("without -sm row", "instead of --split-mode row", "didn't use -sm row",
# "unlike -sm row"; the negated auxiliary as text.NOT_ENDING spells it, "n't" glued to its verb)
LAYER_SPLIT = re.compile(r"(?:--split[-_]mode|\bsplit[-_ ]mode|(?<![\w-])-sm)\b\W{0,4}layer\b|"
                         r"\blayer[-_ ]split\b|\bsplit\s+by\s+layers?\b", re.I)  # (README: "split by layer")
# (past45) ... and split mode none, one GPU only ("none: use one GPU only", tools/server/README.md; llama.h's
# LLAMA_SPLIT_MODE_NONE, "single GPU"), as people run it: "Confirm GPU mode `single` emits `--split-mode none`"
# (find_string id 60903277009), "--device CUDA0 + --split-mode none（单卡）" (id 62069331275), "# Single GPU + CPU MoE
# offload / -sm none -dev CUDA1" (id 59999015803): the job runs on one GPU, whatever GPUs the machine has.
NONE_SPLIT = re.compile(r"(?:--split[-_]mode|\bsplit[-_ ]mode|(?<![\w-])-sm)\b\W{0,4}none\b|"
                        r"\bLLAMA_SPLIT_MODE_NONE\b", re.I)
# (known46b) ... nor where llama-bench sweeps split modes: it runs one test per value given, comma-separated or the flag
# repeated ("-sm, --split-mode <none|layer|row>", "Multiple values can be given for each parameter by separating them
# with ',' or by specifying the parameter multiple times": tools/llama-bench/README.md), and prints each test's mode in
# its `sm` column. "-sm none,layer,row" (find_string ids 52325272125, 51777843449: two R9700s, every mode timed), "-sm
# none,layer" (id 53164192311: its table's sm column none, then layer), "-sm layer,row" (id 55349273043): several
# layouts, none of them the run's.
_SPLIT_FLAG = r"(?:--split[-_]mode|(?<![\w-])-sm)(?:=|\s+)[\"'`]?"
_SPLIT_MODE = r"(?:none|layer|row|tensor|graph)\b"
# (s46 final read) The list has no spaces (llama-bench splits its argument at ","): "-sm row, layer was slower in my
# earlier tests" is a run in row mode and a sentence on.
SPLIT_SWEEP = re.compile(_SPLIT_FLAG + _SPLIT_MODE + r"," + _SPLIT_MODE, re.I)
SPLIT_FLAG_MODE = re.compile(_SPLIT_FLAG + r"(" + _SPLIT_MODE + r")", re.I)


def _one_split(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The lines less those where llama-bench sweeps split modes (SPLIT_SWEEP; or its line gives the flag two modes)."""
    return [(i, ln) for i, ln in lines if not SPLIT_SWEEP.search(ln) and not (
        LLAMA_BENCH.search(ln) and len({m.group(1).lower() for m in SPLIT_FLAG_MODE.finditer(ln)}) > 1)]


SPLIT_DENIED = re.compile(r"(?:\b(?:not|without|instead\s+of|never|unlike)\b|" + NOT_ENDING + r")[^.;:!?]{0,30}$",
                          re.I)


def _row_split(lines: list[tuple[int, str]]) -> int | None:
    """The line where the run's split mode is stated as a row / tensor split (ROW_SPLIT), or None."""
    lines = _one_split(lines)
    if any(LAYER_SPLIT.search(ln) for _, ln in lines):
        return None
    return next((i for i, ln in lines for m in ROW_SPLIT.finditer(ln) if not SPLIT_DENIED.search(ln[:m.start()])),
                None)


def _layer_split(lines: list[tuple[int, str]]) -> int | None:
    """The line where the run's split mode is stated as llama.cpp's layer split (LAYER_SPLIT; -sm layer, its default,
    "gives each GPU whole layers": tools/server/README.md), or None where a row / tensor split is named too or the
    layer split is denied ("instead of -sm layer")."""
    lines = _one_split(lines)
    if any(ROW_SPLIT.search(ln) for _, ln in lines):
        return None
    return next((i for i, ln in lines for m in LAYER_SPLIT.finditer(ln) if not SPLIT_DENIED.search(ln[:m.start()])),
                None)


# (fr45) ... and not where the none split is only asked about, advised or supposed ("Would `--split-mode none` be
# faster?", "you could try -sm none", "if I use -sm none", "Is -sm none better?"): engine_signs.NOT_RUN_BEFORE's
# words before it in its sentence, an "if", or a question that weighs it ("faster", "better", "help", "instead"; not
# "Is this normal with -sm none?", a question about the run); nor where it is the run that works set against one over
# the GPUs ("with --split-mode none on one card it works; over both cards it's garbage"): the failing run is the other
# one.
# (fr45r2) "if" only as the reporter's or the reader's trying of it ("if I use -sm none", "if you switch to -sm none"),
# not a condition on something else ("Even if the prompt is short, with -sm none generation is only 8 tok/s")
NONE_ASKED_BEFORE = re.compile(r"\bif\s+(?:I|we|you|one)\s+(?:\w+\s+)?(?:use|set|try|run|switch|enable|pass|add|go)"
                               r"\w*\b[^.;:!?]{0,60}$", re.I)
NONE_ASKED_AFTER = re.compile(r"\b(?:faster|better|help\w*|improve\w*|worth|instead)\b", re.I)
# (fr45r2) Read within the none mention's sentence (semicolons kept in it), clause by clause: the head clause (up to the
# first comma, semicolon, "but", "while", "whereas") says it works, the rest names more GPUs. Plain searches over
# bounded pieces: three lazy runs in one pattern took cubic time on a long line with no full stop.
NONE_CLAUSE_BREAK = re.compile(r"[;,]|\b(?:but|while|whereas)\b", re.I)
NONE_WORKS = re.compile(r"\b(?:works?|worked|working|fine|ok(?:ay)?)\b", re.I)
# (fr45r2) ... the head clause naming one card ("on one card it works"), the rest a run over more GPUs ("over both
# cards it's garbage"), not the none run's own GPUs counted ("it works, but only 1 of my 2 GPUs is used": the none
# run, as the reporter runs it)
NONE_ONE_CARD = re.compile(r"\b(?:one|single|1|a\s+single)[\s-](?:\w+\s+)?(?:GPU|card|device|board)\b", re.I)
NONE_MORE_GPUS = re.compile(r"\b(?:over|on|across|with|using|onto|to)\s+(?:both|all|two|multiple|several|\d+)\s+"
                            r"(?:\w+\s+)?(?:GPUs?|cards?|devices?|boards?)\b", re.I)
# ... and not where a llama.cpp launch line spreads the model over two GPUs or more (-ts 1,1) without the none split on
# it: the command run wins over prose that names the none split
LLAMACPP_LAUNCH = re.compile(r"(?<![\w-])(?:-ngl|--n-gpu-layers|--gpu-layers|-m|--model)[ =]\S")


def _none_asked(ln: str, m: re.Match) -> bool:
    """Is the none split matched at `m` only asked about, advised, supposed or set against a failing run over more
    GPUs?"""
    before = sentence_before(ln, m.start(), semicolon=True)
    end = sentence_end(ln, m.end())
    return bool(engine_signs.NOT_RUN_BEFORE.search(before) or NONE_ASKED_BEFORE.search(before)
                or (ln[:end].rstrip().endswith(("?", "？")) and NONE_ASKED_AFTER.search(ln[m.end():end]))
                or _none_works_vs_more(ln[m.end():sentence_end(ln, m.end(), 400)]))


def _none_works_vs_more(rest: str) -> bool:
    """Is the none split's run (the words after it in its sentence) the one that works, set against one over more
    GPUs?"""
    brk = NONE_CLAUSE_BREAK.search(rest)
    return bool(brk and NONE_WORKS.search(rest, 0, brk.start()) and NONE_ONE_CARD.search(rest, 0, brk.start())
                and NONE_MORE_GPUS.search(rest, brk.end()))


def _none_split(lines: list[tuple[int, str]]) -> int | None:
    """(past45) The line where the run's split mode is stated as none, one GPU (NONE_SPLIT), or None where another
    split mode is named too ("-sm none is faster than -sm layer": which one ran is not said), it is denied, asked about
    or advised, or a launch line spreads the model over two GPUs or more without it (fr45)."""
    lines = _one_split(lines)
    if any(ROW_SPLIT.search(ln) or LAYER_SPLIT.search(ln) for _, ln in lines):
        return None
    if any(LLAMACPP_LAUNCH.search(ln) and not NONE_SPLIT.search(ln) and
           any(split_gpus_used(m.group(1) or m.group(2)) >= 2 for m in GPU_SPLIT.finditer(ln)) for _, ln in lines):
        return None
    return next((i for i, ln in lines for m in NONE_SPLIT.finditer(ln)
                 if not SPLIT_DENIED.search(ln[:m.start()]) and not _none_asked(ln, m)), None)


def _gpu_split(lines: list[tuple[int, str]]) -> tuple[int, int] | None:
    """(line, GPUs) of the first ExLlama memory split or llama.cpp tensor split (GPU_SPLIT) over two GPUs or more."""
    for i, ln in lines:
        for m in GPU_SPLIT.finditer(ln):
            used = split_gpus_used(m.group(1) or m.group(2))
            if used >= 2:
                return i, used
    return None


def _mentions(prose: list[tuple[int, str]], name: str, code_lines: list[tuple[int, str]] = (),
              labels: dict | None = None) -> list:
    """Workload and Measurement facts from what the reporter names in the prose."""
    out: list = []
    gpu_line = model_line = tp_line = pp_line = dp_line = None
    row_split = False
    split_mode = None  # (a stated layer split: the Workload's split_mode, as launch._split_gpus writes it)
    code_tp = [(i, int(m.group(1) or m.group(2))) for i, ln in code_lines for m in CODE_TP.finditer(ln)]
    code_tp += _ranks_as_tp([*prose, *code_lines])
    ollama_named: list[tuple[int, str]] = []
    passed_over: list[tuple[int, re.Match]] = []  # models named as not the one run (_not_run), in order
    count_line = None
    llama_bench = any(LLAMA_BENCH.search(ln) for _, ln in [*prose, *code_lines])
    dp_attention = any(DP_ATTENTION.search(ln) for _, ln in [*prose, *code_lines])
    # "8xH100" -> "8 x H100"; "4x3090ti" -> "4 x 3090ti" (NVIDIA's GeForce names end in "Ti" or "SUPER":
    # https://www.nvidia.com/en-us/geforce/graphics-cards/compare/)
    # "2x8xH100" -> "2 x 8 x H100" (nodes times GPUs per node, NODE_FACTOR_BEFORE)
    # "A100x8" -> "A100 x 8", "L20x8" (a count after a board's name, as cloud shapes and listings write it:
    # GPU_COUNT_AFTER reads it)
    spaced = {i: cjk_spaced(GLUED_COUNT_AFTER.sub(r"\1 x \2", re.sub(r"(\d)\s*[x×]\s*(?=[A-Z]|\d{1,2}\s*[x×]\s*[A-Z]|"
                                   r"\d{4}(?:\s?(?:[Tt][Ii]|[Ss][Uu][Pp][Ee][Rr]))?\b)",
                                   r"\1 x ", node_product(label_unit(UPPER_TIMES.sub(r"\1x", ln))))))
              for i, ln in prose}
    apart = _sets_apart(spaced.items())
    for i, ln in spaced.items():
        # (a GPU said as someone else's, "my friend's 4090", beside one of the reporter's is not theirs: _own_gpu)
        own = _own_gpu(ln, apart)
        if gpu_line is not None and (m := own) and _gpu_refines(gpu_line[1], m.group(1)):
            gpu_line = (i, m.group(1).strip(), gpu_line[2], gpu_line[3])  # "A100" in the title, "A100 PCIe 80GB" below
        if (gpu_line is None or gpu_line[2] is None) and (m := own):
            before, after = ln[:m.start()], ln[m.end():]
            count = None if SMI_GPU_ROW.match(ln) else (GPU_COUNT.search(before[-24:])
                                                        or CJK_GPU_COUNT.search(before[-24:]))
            if count is not None and count.re is CJK_GPU_COUNT and \
                    CJK_PART_BEFORE.search(before[:len(before) - len(before[-24:]) + count.start()]):
                count = None  # "后两张 4090": some of the GPUs
            n = _count(count.group(1)) if count else None
            counted = (i, m.start() - len(before[-24:]) + count.start(), m.end()) if n else None
            size = count.group(2) if n and count.re is GPU_COUNT else None  # "4x 80GB A100": the board's, said first
            if n is None and (count := GPU_COUNT_AFTER.match(after)):
                n = _count(next(g for g in count.groups() if g))
                counted = (i, m.start(), m.end() + count.end())
            named = re.sub(r"\s*@\s*", " ", gpu_as_written(ln, m)) + (
                f" {size}GB" if size and not STATED_SIZE_IN.search(m.group(1)) else "")  # "A100 @40GB": "A100 40GB"
            if gpu_line is None:
                gpu_line = (i, named, n if n and n <= 4096 else None, counted)
            elif n and n <= 4096:  # the title names the GPU, a later line counts them ("on 8xM40")
                gpu_line = (gpu_line[0], named if size else gpu_line[1], n, counted)
        if count_line is None and (m := _counted_gpus(ln)) and not POSSIBLE_COUNT.search(ln[:m.start()]) \
                and not _planned(ln, m.start()):
            count_line = (i, _count(next(g for g in m.groups() if g)), (i, m.start(), m.end()))
        elif count_line is None and (m := GPU_MEMORY_PRODUCT.search(ln)) and not HOST_MEMORY.search(ln):
            count_line = (i, int(m.group(1)), (i, m.start(1), m.end()))  # _per_node reads the nodes before it
        # a sizeless tag ("ollama pull nomic-embed-text") gives way to a model named with its size on a later line
        bare = model_line is not None and model_line[1].endswith(":latest")
        if (model_line is None or bare or _unversioned(model_line[1])) and (m := _run_model(ln, i, passed_over)):
            tag = OLLAMA_VARIANT.match(ln, m.end()) if ":" in m.group(1) else VISION_AFTER.match(ln, m.end())
            named = m.group(1) + (tag.group(0) if tag else "")  # "llama3.1:8b-instruct-fp16" whole
            if model_line is None or bare or _refines(model_line[1], named):
                model_line = (i, named)
        found = list(OLLAMA_BARE.finditer(ln)) if model_line is None else []
        tag = next((m.group(1) or m.group(3) for m in found if m.group(1) or m.group(3)), None)
        if tag:  # "ollama run llama3.3": the `latest` tag
            model_line = (i, f"{tag}:latest")
        elif model_line is None:
            beside = [(m.start(2), m.group(2)) for m in found if m.group(2)] + \
                [(m.start(1), m.group(1)) for m in OLLAMA_BEFORE.finditer(ln)]
            ollama_named += [(i, word.lower()) for _, word in sorted(beside)]
        if tp_line is None and (run := _run_sizes(ln)) and not (code_tp and _sizes_compared(ln)):
            m = run[0]
            tp_line = (i, _tp_size(m))
        if pp_line is None and (run := _run_sizes(ln, PP) or ([] if llama_bench else _run_sizes(ln, PP_GLUED))):
            pp_line = (i, _tp_size(run[0]))
        # (not on a line that holds layouts against each other, "DP8 vs TP8", "tp8 slower while tp4dp2 faster": the
        # replicas there are one side's, not the run's; "dcp8" is decode context parallelism, no replica)
        if dp_line is None and not dp_attention and not COMPARED.search(ln) and (run := _run_sizes(ln, DP)):
            dp_line = (i, _tp_size(run[0]))
    if count_line is None and not (gpu_line and gpu_line[2]) and not (tp_line and tp_line[1] > 1) \
            and not any(n > 1 for _, n in code_tp) and (one := _one_gpu_said(spaced.items())):
        count_line = (one[0], 1, one)  # "single gpu": the count left off when it is one
        tp_line = tp_line or (one[0], 1)  # and one GPU splits nothing: TP 1
    # where the count was said (line, its start, the end of the GPUs it counts): said per node, it is multiplied
    counted = gpu_line[3] if gpu_line and gpu_line[2] else count_line[2] if count_line else None
    per_node, nodes = _per_node(spaced, *counted) if counted else (False, None)
    n = (gpu_line[2] if gpu_line else None) or (count_line[1] if count_line else None)
    if counted and (machines := _machines_counted(spaced, *counted)):  # the GPUs are those each machine holds, if said
        each = count_line[1] if count_line and count_line[2] != counted else None
        per_node, nodes, n = True, machines if machines >= 2 else None, each
    # (extract35b) one GPU counted beside a TP above one and a count of that many boards ("testing it both on a single
    # A100 and on a setup with 4xA100 (where I used tensor_parallel_size=4)"): the one GPU is another setup's, the
    # TP's count is the job's (a TP of t runs on t GPUs)
    said_tp = tp_line[1] if tp_line else max((t for _, t in code_tp), default=None)
    if n == 1 and not nodes and said_tp and said_tp > 1 and (more := _counted_as(spaced, said_tp)):
        n, counted = said_tp, more
    # a count per node with the nodes uncounted ("multi-node, 8x H100 per node") is still the node's size
    extra = {"gpus_per_node": n} if per_node and n and not nodes else {}
    if not n and (split := _gpu_split([*prose, *code_lines])):  # counted by the memory split the loader was given
        count_line, n = (split[0], split[1], None), split[1]
    if n and n >= 2 and not nodes and tp_line is None and not code_tp and \
            (row := _row_split([*prose, *code_lines])) is not None:
        tp_line = (row, n)  # llama.cpp's row / tensor split over the GPUs counted: each holds a slice of every layer
        row_split = True
    elif n and n >= 2 and not nodes and tp_line is None and not code_tp and \
            (layer := _layer_split([*prose, *code_lines])) is not None:
        tp_line = (layer, 1)  # (extract35b) llama.cpp's layer split: each GPU holds whole layers, no tensor cut, TP 1
        split_mode = "layer"
    elif tp_line is None and not code_tp and (none := _none_split([*prose, *code_lines])) is not None:
        tp_line = (none, 1)  # (past45) llama.cpp's split mode none: one GPU, no split, TP 1
        split_mode = "none"
    # "1x RTX 4090", "single A100": one GPU splits nothing, TP 1 (as "single gpu" above); not where the text counts
    # more GPUs too ("a single 4090 ... whereas 7 * 4090": two setups, neither the layout)
    if n == 1 and not nodes and tp_line is None and not code_tp and \
            not any(SINGLE_GPU_VS.search(ln) or MORE_COUNTED.search(ln) for ln in spaced.values()):
        tp_line = (gpu_line or count_line)[0], 1
    if gpu_line:
        out.append(Workload(where(name, gpu_line[0]), gpu=gpu_line[1], gpu_count=n * nodes if n and nodes else n,
                            nodes=nodes, extra=extra))
    elif n:
        out.append(Workload(where(name, count_line[0]), gpu_count=n * nodes if nodes else n, nodes=nodes, extra=extra))
    if model_line is None:  # a name the patterns above do not know, ending in its size
        model_line = (run := _first_run(spaced, OTHER_MODEL, passed_over)) and run[:2]
    if model_line is None:  # its size first ("the 70B llama-2 q4 model"): the line and release, then the size
        run = _first_run(spaced, SIZE_FIRST, [])
        model_line = run and (run[0], f"{run[2].group(2)}-{run[2].group(1)}B")
    pasted = None
    if model_line is None:  # named only in what was pasted: a service, container or folder name, a script's id
        model_line = pasted = _code_model(code_lines)
    if model_line is None and passed_over and not _code_names_model(code_lines):
        # the only models named are said as tried before, wished or a draft, and nothing pasted names the run's: the
        # first stays the ticket's (a planning question's model, a run's earlier model)
        at, m = passed_over[0]
        model_line = (at, m.group(1))
    if model_line is None:  # a model named by its size alone ("a 70B model (Q4_K_M)", "the 7B"): its size is known
        model_line = next(((i, f"{m.group(1) or m.group(2) or m.group(3)}B") for i, ln in spaced.items()
                           if (m := BARE_SIZE.search(ln))), None)
    if model_line:  # with the weights' quantisation its line names ("Llama 2 70B Q4_K_M", "the AWQ version")
        line = next(ln for i, ln in [*prose, *code_lines] if i == model_line[0])
        # ... else one another line gives where it names a model again (a title names it, the body its format:
        # "meta-llama/Llama-2-13b-chat-hf in 8-bit (bitsandbytes)")
        again = {dtype for i, ln in prose if i != model_line[0] and (MODEL_NAME.search(ln) or HF_ID.search(ln))
                 for dtype, named in QUANT_DTYPES if named.search(ln)}
        # (a 16-bit float the model's own line names, "### phi3 fp16", is its weights: no other line's quantised run)
        sixteen = {"fp16" if m.group(1) else "bf16" for m in PROSE_SIXTEEN.finditer(line)}
        dtype = quant_dtype(line) or (sixteen.pop() if len(sixteen) == 1 else None) or (
            again.pop() if len(again) == 1 else None)
        named_at = Workload(where(name, model_line[0]), model=model_line[1], dtype=dtype)
        if pasted is None:
            out.append(named_at)
    else:  # words beside "Ollama" that may be library tags, in order: rules.subject asks the tag table
        out += [Workload(where(name, i), extra={"ollama_named": word})
                for k, (i, word) in enumerate(ollama_named) if (i, word) not in ollama_named[:k]]
    out.extend(_dtype_table_rates(prose, name, model_line[1] if model_line else None))
    out.extend(_header_rate_rows(prose, name, {m.source for m in out if isinstance(m, Measurement)}))
    if tp_line is None:  # a layout set in pasted code: LLM(tensor_parallel_size=2), --tp 4; the largest is the question
        tp_line = max(code_tp, key=lambda x: x[1]) if code_tp else None
    if tp_line is None and pp_line is None and (world := _trtllm_world([*prose, *code_lines])):
        tp_line = world  # no pipeline stage said: the TensorRT-LLM world is its TP (trtllm-build's --pp_size is 1)
    job = _job_gpus([*prose, *code_lines])
    built = None if job else _engine_dir_gpus([*prose, *code_lines])
    if built and (tp_line is None or tp_line[1] <= built[1]):  # (not a folder name the stated layout contradicts)
        job = built
    if job and job[1] >= 1:
        out.append(Workload(where(name, job[0]), extra={"job_gpus": job[1]}))
    if tp_line and 1 <= tp_line[1] <= 1024:  # (a llama.cpp split says so: its rows go by proportion, no heads rule)
        mode = "row" if row_split else split_mode
        out.append(Workload(where(name, tp_line[0]), tp=tp_line[1], extra={"split_mode": mode} if mode else {}))
    if pp_line and 1 <= pp_line[1] <= 1024:
        out.append(Workload(where(name, pp_line[0]), pp=pp_line[1]))
    if dp_line and 1 <= dp_line[1] <= 1024:
        out.append(Workload(where(name, dp_line[0]), dp=dp_line[1]))
    batch = _one_stated(prose, BATCH_ONLY) or _one_stated(code_lines, CODE_EVAL_BATCH)
    if batch:  # one batch for the whole ticket ("at batch 1"): the layout's
        out.append(Workload(where(name, batch[0]), batch=batch[1]))
    slots = _one_stated([(i, ln) for i, ln in prose if not BUILD_LINE.search(ln)], PROSE_SLOTS)
    if slots:  # llama-server's slots said in prose ("Both arms `--parallel 1`"): the launch parser's extra
        out.append(Workload(where(name, slots[0]), extra={"parallel": slots[1], "parallel_flag": "--parallel"}))
    alone = _one_at_a_time(prose)
    if alone:  # one request at a time, in the reporter's words: the batch a figure with none of its own ran at
        out.append(Workload(where(name, alone[0]), extra={"load_stated": alone[1]}))
    load = _one_stated(prose, CONCURRENT, MAX_CONCURRENCY) or _code_pool([*prose, *code_lines])  # (--max-concurrency: a
    # command's launch; a pasted client's semaphore or pool, fenced or not, where the prose states no load)
    if load:  # one load for the whole ticket: what its benchmark figures were run at
        out.append(Workload(where(name, load[0]), concurrency=load[1]))
    out += stated_lengths(prose, name)
    cap = _one_stated(code_lines, CODE_BATCH_CAP)
    if cap:  # a batch cap set in pasted code or config (the launch parser reads the flags): rules.stated_load's cap
        out.append(Workload(where(name, cap[0]), extra={"max_batch_size": str(cap[1]),
                                                        "max_batch_size_flag": "max_batch_size"}))
    share = next((f for i, ln in sorted([*prose, *code_lines]) if (f := share_fact(ln, where(name, i)))), None)
    if share:  # the memory share the engine was told to fill: the first stated
        out.append(share)
    sent = next(((i, int(m.group(1).replace(",", ""))) for i, ln in prose if (m := NUM_PROMPTS.search(ln))), None)
    if sent:
        out.append(Workload(where(name, sent[0]), extra={"num_prompts": str(sent[1])}))
    rate = next(((i, m.group(1).lower()) for i, ln in prose if (m := REQUEST_RATE.search(ln))), None)
    if rate:
        out.append(Workload(where(name, rate[0]), extra={"request_rate": rate[1]}))
    # with CJK text spaced from Latin words ("在llama.cpp上推理": no word edge around the name otherwise)
    lines = list(spaced.values())  # the prose lines in order (one per line number)
    # the engine a pasted command, import, log line or output shows running, over the one prose names (engine_signs)
    framework = engine_signs.engine_ran("\n".join(ln for _, ln in sorted([*prose, *code_lines])),
                                        engine_named(" ".join(lines[:40])), engines_named(" ".join(lines[:40])))
    if framework:  # with the release the prose writes after its name ("vLLM 0.21.0"): engine profiles differ by it
        # or, failing that, the tag of the engine's own image it runs ("vllm/vllm-openai:v0.6.3")
        release = engine_release(" ".join(lines), framework) or next(
            (r for _, ln in sorted([*prose, *code_lines]) if (m := ENGINE_IMAGE.search(ln))
             and ENGINE_IMAGES[m.group("image").lower()] == framework.lower() and (r := _image_release(m))), None)
        framework = f"{framework} {release}" if release else framework
        out.append(Workload(where(name, prose[0][0] if prose else 1), framework=framework))
    elif (image := next(((i, m) for i, ln in code_lines if (m := ENGINE_IMAGE.search(ln))), None)):
        # the prose names none, the pasted compose file, Dockerfile or `docker run` the engine's own image
        i, m = image
        release = _image_release(m)
        engine = ENGINE_IMAGES[m.group("image").lower()]
        out.append(Workload(where(name, i), framework=f"{engine} {release}" if release else engine))
    # the llama.cpp build a log line prints ("build: 8fcb5636 (4887)") or the prose states ("b3447", "a release from
    # March 2024"), where it is first said
    stated = [(i, b) for i, ln in sorted([*prose, *code_lines]) for b in llamacpp_builds(ln)]
    fork = next((m.group(0) for _, ln in prose for m in [LLAMACPP_FORK.search(ln)] if m), None)
    if fork:  # a fork numbers its own builds: they are not llama.cpp's (rules.common.engine_builds)
        out.append(Workload(where(name, prose[0][0]), extra={"engine_fork": fork}))
    if stated:
        builds = list(dict.fromkeys(b for _, b in stated))
        out.append(Workload(where(name, stated[0][0]), extra={"engine_builds": builds}))
    # figures read with a space where CJK meets Latin ("测出来busbw 只有160GB/s"): the words' edges are then seen
    # (llama.cpp's timing lines quoted or pasted bare: only the eval line is a decode rate, LLAMA_TIMING)
    timed = [(i, ln) for i, ln in prose if PROMPT_TIMING.search(ln)]
    seamed = [(i, spaced[i]) for i, _ in prose
              if not (LLAMA_TIMING.search(spaced[i]) and not DECODE_TIMING.search(spaced[i]))]
    dot = figures.comma_decimals(" ".join(ln for _, ln in seamed))  # "3.100 tok/s" is 3100 in a German ticket
    relative, compared = _relative_rates(seamed, name, dot)
    out.extend(relative)
    out.extend(_rates(seamed, name, n if n and n >= 2 else 2, apart, dot, compared))  # the lines _sets_apart read
    worded = [(i, figures.spelled_durations(ln)) for i, ln in seamed]  # "takes over an hour", "需要一个多小时"
    out.extend(_tokens_over_time(worded, name, dot))
    out.extend(_batch_throughputs(worded, name, dot))
    # (llama-bench prints a Markdown table, often pasted bare: its rows are prose lines)
    out.extend(_timing_lines(code_lines + timed + [(i, ln) for i, ln in prose if ln.lstrip().startswith("|")], name))
    out.extend(_programs(code_lines + list(prose), name))
    out.extend(_latencies(worded, name, apart))
    out.extend(_bandwidths(seamed, name, code_lines))
    out.extend(_results_tables(prose + _aligned_tables(list(prose) + list(code_lines)), name))
    named = _gpus_named(list(prose) + list(code_lines), set(labels or ()))
    if len({n for _, n, _, _ in named}) >= 2:
        out.append(Note(where(name, named[0][0]), "gpus_named", "; ".join(dict.fromkeys(n for _, n, _, _ in named)),
                        data={"gpus": [{"line": i, "name": n, "compared": c, "listed": li} for i, n, c, li in named]}))
    if pasted is not None:  # last: a tool's own output read above (a llama-bench row and its params) names it better
        out.append(named_at)
    if LLAMACPP_NAMED.search(" ".join(ln for _, ln in [*prose, *code_lines])):
        out = [r for r in map(_no_token_chunk, out) if r is not None]
    return out


def _machines_counted(spaced: dict[int, str], i: int, start: int, end: int) -> int | None:
    """The machines a GPU count at line i, [start, end), counts instead of GPUs ("two A100 machines", NODES_OF_GPU),
    or None. A count joined to its noun by a hyphen ("2x 8-GPU servers", "4-card machines") is each machine's size, an
    adjective, not the machines' number."""
    line = spaced[i]
    count = re.match(_COUNT + r"(?![\w.])", line[start:end], re.I)  # (not a count after the GPU: "A100 * 8")
    if not count or not NODES_OF_GPU.match(line[end:]) or re.match(_COUNT + r"\s*(?:x|×|\*|-)", line[start:end], re.I):
        return None
    return _count(count.group(1))


def _per_node(spaced: dict[int, str], i: int, start: int, end: int) -> tuple[bool, int | None]:
    """(said per node, the nodes counted) of the GPU count at line i, [start, end) (the count to the GPUs it
    counts): "Two nodes, 8x A100 each", "Two nodes, each with 8x H100", "2 nodes x 8 H100", "Two 8x H100 nodes",
    "2x 8-GPU servers", "2*8*H100", "8xH100 x 2 nodes". The nodes are counted on the same line, else once in the
    prose; None when they are not (or are one). (False, None) when the count is the job's total."""
    line = spaced[i]
    before, after = line[:start], line[end:]
    # the words after a count qualify it up to the next count of GPUs only: in "4 GPUs on two nodes, with 2 GPUs per
    # node" (NVIDIA/nccl#1516) "per node" is the second count's, and the first is the job's total
    rest = ""
    if nxt := OTHER_COUNT_AFTER.search(after):
        after, rest = after[:nxt.start()], after[nxt.start():]
    if TOTAL_AFTER.match(after) or TOTAL_BEFORE.search(before):
        return False, None
    if (m := NODE_FACTOR_BEFORE.search(before)) or (m := NODES_TIMES_AFTER.match(after)) or (
            m := NODES_THEN_COUNT.search(before)) or (
            NODE_AFTER.match(after) and (m := NODE_COUNT_BEFORE.search(before))):
        n = _count(m.group(1))
    elif m := CJK_NODES_EACH.search(before):
        n = _count(m.group(1))
    elif PER_NODE.match(after) or EACH_THEN_COUNT.search(before) or CJK_EACH_THEN_COUNT.search(before) or \
            EACH_OF_NODES.search(before):
        named = {_count(m.group(1)) for m in NODES_NAMED.finditer(line)}
        if not named and re.search(r"\b" + _NODE_NOUN, after, re.I) and (total := TOTAL_COUNT_AFTER.match(rest)) and (
                each := re.search(r"(?<![\w.])" + _COUNT + r"(?![\w.])", line[start:end], re.I)):
            # "8 GPUs per node, 32 GPUs in total": the job's total over the GPUs of each node counts the nodes
            whole, one = int(total.group(1)), _count(each.group(1))
            named = {whole // one} if one and whole % one == 0 else set()
        if not named:  # "8x H100 per node" in a list, "we use two nodes" in a sentence of its own
            named = {_count(m.group(1)) for ln in spaced.values() for m in NODES_NAMED.finditer(ln)}
        n = named.pop() if len(named) == 1 else None
    else:
        return False, None
    return True, n if n and 2 <= n <= 4096 else None


# "algbw is about 250GB/s", "all_reduce busWidth is 180GB/s", "busbw 180 Gb/s": the capital "B"
# decides bytes from bits, whatever the case of the rest (text.RATE_UNIT, text.to_gbs).
# nccl-tests' column names as people retype them: "busbw", "bus bw", "BusBW", "bwbus", "algbw".
# A named figure may come in any rate unit ("busbw 180 Gb/s", "algbw 900 MB/s"): text.to_gbs converts it.
BANDWIDTH = re.compile(r"\b(algbw|algo[ _]?bw|algorithm bandwidth|busbw|bus[ _]?bw|bw ?bus|bus ?bandwidth|bus ?width)\b"
                       r"[^.\n]{0,30}?(\d[\d,]*(?:\.\d+)?)\s*(" + RATE_UNIT + ")", re.I)
# ... and the figure first: "230 GB/s busbw", "40 GB/s of algorithm bandwidth".
BANDWIDTH_AFTER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(" + RATE_UNIT + r")\s+(?:of\s+)?(?:the\s+)?"
                             r"(algbw|algo[ _]?bw|algorithm bandwidth|busbw|bus[ _]?bw|bus ?bandwidth)\b", re.I)
# A network link named beside a figure in bits: the figure is that link's rate.
NETWORK_LINK = re.compile(r"\b(?:InfiniBand|IB|[HNEX]DR|RoCE|NICs?|Ethernet|HCAs?|ConnectX\w*|port|link rate)\b", re.I)
# "8 GPU max performance: busbw 28GB/s", "with 4 GPUs ... busbw": the GPU count a figure ran on.
LINE_GPUS = re.compile(r"\b(\d{1,4})\s*(?:x\s*)?(?:GPUs?|cards?|ranks?)\b", re.I)
# A collective benchmark named in a sentence: its bare figures ("should it reach 900+? Ours is 830+")
# are that benchmark's GB/s.
COLLECTIVE_BENCH = re.compile(r"\b(?:all_?reduce_perf|all_?gather_perf|reduce_scatter_perf|nccl-tests|"
                              r"busbw|bus ?bw|algbw)\b", re.I)
# (a number joined to a word by - / _ is part of a name or a path: "nsight-compute-2021.2/ncu", NVIDIA/nccl-tests#101)
BARE_FIGURE = re.compile(r"(?<![\w.])(?<![A-Za-z][-/_])(\d{2,4}(?:\.\d+)?)(?![\d.])\+?(?![A-Za-z])"
                         r"(?!\s*(?:%|x\b|GPUs?\b|cards?\b|nodes?\b|ranks?\b|[KMGT]i?(?:[Bb](?:its?|ytes?)?)(?:/s|ps|/sec)?\b|[KMGT]\b|MHz\b|W\b))")
COMPARED = re.compile(r"\b(?:vs\.?|versus|than|compared|comparison|against|instead of|faster|slower)\b"
                      # Chinese and Japanese comparisons: "A 比 B 快了5倍", "A 相比 B", "A 对比 B", "A より B が速い";
                      # 比 but not 比如 ("for example") or 比例 ("ratio")
                      r"|比(?![如例特率重])|より|不如|[快慢]了?\s*\d+(?:\.\d+)?\s*倍"
                      # ... German, Spanish, French, Korean and Russian ones: "4090 schneller als 3090", "más lenta
                      # que", "plus rapide que", "3090보다", "3090 медленнее 4090"
                      r"|\b(?:schneller|langsamer|gegenüber|verglichen|im Vergleich|más rápid\w*|más lent\w*|"
                      r"comparad\w*|frente a|plus rapide|plus lente?|par rapport)\b|보다|비해|대비"
                      r"|(?<![^\W\d_])(?:быстрее|медленнее|по сравнению)(?![^\W\d_])", re.I)
# GPUs said to sit in different machines ("two different machines", "zwei verschiedene Rechner", "两台不同的机器"):
# each is its own system, compared, never one job's mixed GPUs.
SEPARATE_MACHINES = re.compile(
    r"\b(?:different|separate|two distinct)\s+(?:machines|computers|boxes|servers|hosts|PCs|systems|nodes)\b|"
    r"\bverschiedenen?\s+(?:Rechner\w*|Maschinen|Computer\w*|Server\w*|PCs)\b|"
    r"\b(?:máquinas|equipos|ordenadores|servidores)\s+(?:distint|diferent)\w*|\bdistint\w*\s+(?:máquinas|equipos)\b|"
    r"\bmachines\s+différentes\b|"
    r"(?<![^\W\d_])разных\s+(?:компьютер|машин|сервер)\w*|"
    r"不同的?(?:机器|电脑|服务器|主机)|別々の(?:マシン|PC|サーバ)|다른\s*(?:서버|머신|컴퓨터|PC)|"
    # (hostbound37) a line that says it happens on every one of several machines: each is its own machine, not one
    # job's cards (a list of setups under "Reproducible on:" is SETUPS_LISTED's)
    r"\bon\s+(?:both|all|each|every)\s+(?:of\s+(?:my|the|these|our)\s+)?(?:\w+\s+)?"
    r"(?:machines|computers|boxes|servers|hosts|PCs|systems|setups|rigs)\b", re.I)
# (hostbound37) A line that introduces a list of the setups a problem was seen on ("Reproducible on:" / "Tested on:"
# and a list below it, oobabooga/textgen#4990: "* Ubuntu A100 80GB remote", "* Fedora 3060 12GB local"). (review37)
# Only two items or more are machines apart: one item ("* my workstation with an RTX 3090 and an RTX 3060") is one
# box, whose cards may be one job's (_setups_listed).
SETUPS_LISTED = re.compile(r"\b(?:reproduc\w+|tested|tried|happens|occurs|seen|observed|confirmed)\s+(?:it\s+|this\s+)?"
                           r"on\s*(?::\s*)?$", re.I)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+\S")


def _setups_listed(prose: list[tuple[int, str]]) -> bool:
    """Does a line introduce a list of setups (SETUPS_LISTED) with two items or more under it?"""
    lines = [ln for _, ln in prose if ln.strip()]
    for k, ln in enumerate(lines):
        if SETUPS_LISTED.search(ln):
            items = 0
            for after in lines[k + 1:]:
                if not _LIST_ITEM.match(after):
                    break
                items += 1
            if items >= 2:
                return True
    return False


# (setting30, issue 11) Two rigs of one board each, set against each other: "Dual 5090 vs Dual 3090"
# (noonghunna/club-3090#833, another user's dual 3090 beside the reporter's dual 5090), "2x 4090 vs 2x 3090". Each side
# names its own count of one board, so each is its own homogeneous machine: the ticket's GPUs are compared, never one
# job's mixed GPUs.
RIG_COUNT = re.compile(r"(?:\b(?:dual|twin|two|three|four|quad|eight)|\b[2-9]\s*[x×*]|\b[2-9])\s*"
                       r"(?:(?:nvidia|geforce|rtx|tesla)\s+)*$", re.I)


def _rigs_compared(ln: str) -> bool:
    """Does the line set two boards against each other ("vs", "versus", "against", "compared to" between them, no
    "+", "and", "plus", "with" joining them: "2x 3090 + 2x 4090" is one mixed rig), each with its own count of two or
    more (RIG_COUNT before it), and no third board counted?"""
    ln = _plain(ln)
    counted = [(m.start(), m.end(), gpu_key(m.group(1))) for m in GPU_NAME.finditer(ln)
               if RIG_COUNT.search(ln[max(0, m.start() - 24):m.start()])]
    if len({key for _, _, key in counted}) != 2:  # "2x 3090 and 2x 4090 vs 4x A100": a mixed rig on one side
        return False
    for (_, end, a), (start, _, b) in zip(counted, counted[1:]):
        between = ln[end:start]
        if a != b and RIGS_VS.search(between) and not RIGS_JOINED.search(between):
            return True
    return False


RIGS_VS = re.compile(r"\b(?:vs\.?|versus|against|compared\s+(?:to|with))(?!\w)", re.I)
RIGS_JOINED = re.compile(r"\+|&|\b(?:and|plus|with)\b", re.I)


# A line that gives the outcome of the same test on one system ("- With RTX3090, CUDA 11.4: OK", "On the A6000: works",
# "2080 Ti -> fine", "RTX 4090: same error"): each such line is another machine tried, so the GPU it names is
# compared, not one more board of the reporter's job (pytorch/pytorch#87363 lists "With other GPU cards" this way).
_OUTCOME = (r"(?:ok(?:ay)?|works?|working|worked|fine|pass(?:es|ed)?|good|bad|no (?:issues?|problems?|errors?)|fails?|"
            r"failed|failing|broken|hangs?|crash(?:es|ed)?|same(?: (?:issue|problem|error|result|bug))?|reproduces?|"
            r"reproduced|not reproduced|does(?: not|n't) reproduce)")
OUTCOME_LINE = re.compile(
    r"^\s*(?:(?:[-*+]|\d+[.)])\s*)?(?:(?:with|on|using|tested on|tried on|under)\s+)?[^:\n|]{1,60}?(?::|->|=>|→|—|–)\s*"
    + _OUTCOME + r"\b[\s.!)]*$", re.I)
# ... and one such outcome per clause, the board and its result with no mark between ("not a problem on other boxes:
# RTX3090 with CUDA 11.4 OK, RTX2080Ti with CUDA 10.2 OK"; "T4 works, A100 is not", TheLastBen/fast-stable-diffusion
# #927; "T4 always works fine", modal-labs/modal-examples#448): the clause that names the GPU ends in the outcome.
OUTCOME_CLAUSE = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s*)?(?:(?:with|on|using|tested on|tried on|under)\s+)?"
                            r"[^\n|]{1,60}?"
                            r"\s(?:(?:is|was|are|always|still)\s+)*" + _OUTCOME + r"(?:\s+(?:fine|well|normally))?"
                            r"[\s.!)]*$", re.I)
CLAUSE_END = re.compile(r"[,;:]\s+|\s+(?:but|while|whereas)\s+", re.I)


def _outcome_clause(line: str, start: int) -> bool:
    """Does the clause holding the GPU named at `start` end in the outcome of a test on it ("RTX3090 with CUDA 11.4
    OK")? Then that board is one more system tried, not one more board of the reporter's job."""
    ends = list(CLAUSE_END.finditer(line))
    begin = max((m.end() for m in ends if m.end() <= start), default=0)
    end = min((m.start() for m in ends if m.start() >= start), default=len(line))
    return bool(OUTCOME_CLAUSE.match(line[begin:end]))


# A GPU's model number is no figure: "8*3090", "4×4090" (read as "4 x 4090"), "RTX 3090", "Tesla V100" (issue 11 k).
GPU_MODEL_BEFORE = re.compile(r"(?:[*×]\s?|\b\d+\s*x\s|\b(?:RTX|GTX|RX|Titan|Tesla|Quadro|GeForce)[ -]?)$", re.I)


# "I observed a wire bw of 480 GB/s", "we only get 35 GB/s bandwidth": a measured figure (not a spec)
# Bytes only ("GB/s", "MB/s", "GiB/s"): "only 200 Gb/s of bandwidth" is a link's bit rate.
# (healthy42) "see how" / "get how" is understanding, not observing: "I can see how this gives rise to 600 GB/s
# bandwidth between any given pair of GPU's" (forums.developer.nvidia.com/t/224173) works out a datasheet figure.
BYTE_RATE = r"((?-i:[KMGT]i?B)(?:/s|/S|ps|/sec)\b)"
# A bandwidth said of a GPU's own memory ("a memory bandwidth of 780 GB/s", "HBM bandwidth"): no link's or collective's.
MEMORY_BW = re.compile(r"\b(?:memory|HBM\w*|DRAM|VRAM|GDDR\w*)\s+(?:bandwidth|bw)\b", re.I)
MEASURED_BW = re.compile(r"\b(?:observ\w*|measur\w*|(?:get|got|gets|see|saw)\b(?!\s+how\b)|achiev\w*|reach\w*|only)\b"
                         r"[^.\n]{0,25}?"
                         r"(?:\b(?:bw|bandwidth)\b[^.\n\d]{0,12}?(\d+(?:\.\d+)?)\s*" + BYTE_RATE + "|"
                         r"(\d+(?:\.\d+)?)\s*" + BYTE_RATE + r"\s+(?:of\s+)?(?:bus\s+)?(?:bw|bandwidth)\b)", re.I)


# A collective's rate in the reporter's words with neither busbw nor algbw named, in any rate unit: "nccl all-reduce
# between two nodes only 86GB/s" (NVIDIA/nccl#1048), "Bandwidth can reach 600Gbps" under "I use nccl-tests on two A100
# machines" (NVIDIA/nccl#495). The figure's sentence, or the one just before it, names the collective or its test; the
# figure is then all-reduce's, algbw or busbw unknown (scope "algbw_or_busbw": the rule states both readings).
COLLECTIVE_SAID = re.compile(r"\b(?:all[_ -]?reduce(?:_perf)?|nccl[ -]tests?|nccl test)\b", re.I)
RATE_FIGURE = re.compile(r"(?<![\w.])~?(\d[\d,]*(?:\.\d+)?)\s*(" + RATE_UNIT + ")", re.I)
# ... but not a link's or NIC's rated speed ("8 * 100 Gbps network nic", "IB 200Gb/s HDR", "NVLink 900GB/s"): a link
# word beside the figure; nor a target, a specification or a limit ("should reach", "theoretical value(100 GB/s)",
# "expect 900GB/s", "up to 400Gb/s"), said before the figure in its clause.
LINK_BESIDE = re.compile(r"\b(?:network\s+)?(?:NICs?|HCAs?|cards?|adapters?|ports?|links?|[HNEX]DR|InfiniBand|IB|"
                         r"RoCE\w*|Ethernet|NVLink\w*|ConnectX\w*|CX-?\d|PCIe\w*|line rate)\b", re.I)
TARGET_WORDS = re.compile(r"\b(?:should|supposed|expect\w*|theoretic\w*|ideal\w*|spec\w*|rated|nominal|target\w*|"
                          r"up to|max(?:imum)?|peak|hope\w*|want\w*|would|could|claims?|datasheet|documented|"
                          r"capab\w*|line rate|has|have|had|provides?|offers?|supports?|total)\b", re.I)
# ... nor another system's or a publication's figure ("on our other cluster", "NVIDIA's published figure").
OTHER_SYSTEM = re.compile(r"\b(?:other|another|previous|old|published|reference|official|documentation|docs|paper|"
                          r"blog|slides?)\b", re.I)
# ... nor the rate of the network itself, named right after the figure: "8 V100s and 100Gbps network" (NVIDIA/nccl#398),
# "a 25G fabric", "200 Gb/s interconnect": a specification of the link the test runs on, not what the test measured.
# Public writing names rates this way for links ("BlueField-3 DPU | 400 Gb/s network bandwidth", "10 Gb/s network
# bandwidth" of a data facility); a measuring word in the figure's clause ("got 9.8 GB/s network throughput") keeps it
# measured.
NETWORK_AFTER = re.compile(r"\s*(?:-\s*)?(?:network|fabric|interconnect)\b", re.I)
MEASURING = re.compile(r"\b(?:only|gets?|got|getting|reach\w*|achiev\w*|measur\w*|observ\w*|see|saw|shows?|showed|"
                       r"gives?|gave)\b", re.I)


# A figure qualified as one part's share of a collective ("per rail ~27 GB/s", "per GPU<->GPU connection capped at ~13
# GB/s", NVIDIA/nccl#2409) is not the collective's busbw: it counts one NIC, link or connection of many.
PER_PART = re.compile(r"\bper[- ](?:GPU\s*<?->\s*GPU\s+|GPU[- ]to[- ]GPU\s+)?(?:rails?|NICs?|HCAs?|ports?|links?|"
                      r"connections?|peers?|channels?|QPs?)\b", re.I)
# A figure whose own sentence names another nccl-tests binary ("`sendrecv_perf`, 2 ranks, 1 rail | 13.1 GB/s") is that
# test's, not all-reduce's, whatever the line above names.
OTHER_BENCH = re.compile(r"\b(?:send_?recv|all_?gather|reduce_?scatter|all_?to_?all|broadcast|reduce|gather|scatter|"
                         r"hypercube)_perf\b", re.I)


def _unnamed_rates(i: int, ln: str, before: str, name: str, n: int | None) -> list:
    """all-reduce rates on line `ln` said without busbw or algbw (COLLECTIVE_SAID in it or in `before`, the prose line
    just above), each in GB/s with the reporter's words; none in a question."""
    out = []
    said = [s for s in sentences(ln) if s.strip()]
    last = ([s for s in sentences(before) if s.strip()] or [""])[-1]
    for k, s in enumerate(said):
        # the collective named in the figure's sentence or the one just before it (on this line or the line above)
        tied = " ".join([last, s] if k == 0 else said[k - 1:k + 1])
        if not COLLECTIVE_SAID.search(tied) or s.rstrip().endswith(("?", "？")):
            continue  # no collective said, or a figure asked about
        if OTHER_BENCH.search(s) and not re.search(r"\ball[_ -]?reduce", s, re.I):
            continue  # another test's figure
        for m in RATE_FIGURE.finditer(s):
            clause = re.split(r"[,;:(]|\b(?:but|while|whereas|and)\b", s[:m.start()])[-1]
            # (a figure in parentheses qualifies the words before them: "should be within a sane fraction of the spec
            # constants (~900 / ~50 GB/s)")
            outer = re.split(r"[,;:]|\b(?:but|while|whereas|and)\b", s[:m.start()])[-1]
            in_paren = outer.rfind("(") > outer.rfind(")")
            link_rate = NETWORK_AFTER.match(s, m.end()) and not MEASURING.search(clause)
            if PER_PART.search(clause):
                continue  # one rail's, link's or connection's share
            if LINK_BESIDE.search(s[max(0, m.start() - 12):m.start()]) or LINK_BESIDE.search(s[m.end():m.end() + 14]) \
                    or link_rate or TARGET_WORDS.search(clause) or REFERENCE_BW.search(clause) \
                    or OTHER_SYSTEM.search(s[:m.start()]) \
                    or (in_paren and REFERENCE_BW.search(outer[:outer.rfind("(")])):
                continue
            value = to_gbs(number(m.group(1)), m.group(2))
            out.append(Measurement(where(name, i), "busbw_gbs", round(value, 3), "GB/s", stat="reported", gpus=n,
                                   said=m.group(0).lstrip("~"), scope="algbw_or_busbw"))
    return out


# An nccl-tests binary and the options that set its ranks: -g GPUs per thread, -t threads per process.
POINTS_AHEAD = re.compile(r"\b(?:like this|like below|as below|below|following|as follows)\b|:\s*$", re.I)


def _run_ranks(line: str) -> int | None:
    """Ranks of an nccl-tests run on this line (launch.nccl_tests_ranks), when it spans GPUs."""
    ranks = nccl_tests_ranks(line)
    return ranks if ranks and ranks >= 2 else None


def _ranks_of_figure(i: int, line: str, runs: list[tuple[int, int]]) -> int | None:
    """The ranks of the nccl-tests run a figure's sentence points at: the command that follows within a few
    lines when the sentence says "like this" or "below" (or ends with a colon), else the one just before.
    `runs`: (line, ranks) of every nccl-tests command in the code blocks, read once per issue."""
    after = [r for j, r in runs if i < j <= i + 4]
    before = [r for j, r in runs if i - 6 <= j < i]
    if POINTS_AHEAD.search(line) and after:
        return after[0]
    return before[-1] if before else (after[0] if after else None)


# (from the path's first character, `(?<![\w/.-])`: tried from each of its characters, a long token of digits and dots
# cost n squared steps)
SOURCE_LINE = re.compile(r"(?<![\w/.-])[\w/.-]+\.(?:cu|cuh|cc|cpp|cxx|c|h|hpp|py)(?::\d+)+\b")


def _bandwidths(prose: list[tuple[int, str]], name: str, code_lines: list[tuple[int, str]] = ()) -> list:
    out = []
    runs = [(j, r) for j, ln in code_lines if (r := _run_ranks(ln))]
    # image and link targets, and bare addresses ("nccl-tests/issues/287"), hold digits that are no figures; nor
    # does a source file's line in an error ("NCCL failure all_reduce.cu:95", "ProcessGroupNCCL.cpp:290")
    plain = {i: SOURCE_LINE.sub(" ", re.sub(r"\bhttps?://\S+", " ", _plain(ln))) for i, ln in prose}
    named_values = set()
    for i, ln in plain.items():
        gpus = [int(g.group(1)) for g in LINE_GPUS.finditer(ln) if 2 <= int(g.group(1)) <= 4096]
        # the figure's GPU count, when the line names one, else the run its sentence points at
        n = gpus[0] if len(set(gpus)) == 1 else None
        n = n or _ranks_of_figure(i, ln, runs)
        # a figure followed by its own word ("270 GB/s algbw") is that word's, whatever word precedes it
        after = [(m.group(3), m.group(1), m.group(2), m.start(1)) for m in BANDWIDTH_AFTER.finditer(ln)]
        starts = {a[3] for a in after}
        named = [(m.group(1), m.group(2), m.group(3), m.start(2)) for m in BANDWIDTH.finditer(ln)
                 if m.start(2) not in starts] + after
        if not named:
            for m in MEASURED_BW.finditer(ln):
                if MEMORY_BW.search(m.group(0)):
                    continue  # (healthy36) "a memory bandwidth of 780 GB/s": one GPU's own memory, no collective
                value = to_gbs(number(m.group(1) or m.group(3)), m.group(2) or m.group(4))
                out.append(Measurement(where(name, i), "busbw_gbs", round(value, 3), "GB/s", stat="reported", gpus=n))
            if not MEASURED_BW.search(ln) and re.search(RATE_UNIT, ln, re.I):
                out.extend(_unnamed_rates(i, ln, plain.get(i - 1, ""), name, n))
            if not MEASURED_BW.search(ln) and COLLECTIVE_BENCH.search(ln) and not re.search(RATE_UNIT, ln, re.I):
                # a figure asked about ("reach 900+?") is not measured
                out.extend(Measurement(where(name, i), "busbw_gbs", float(m.group(1)), "GB/s", stat="reported", gpus=n)
                           for s in sentences(_after_bench(ln))
                           if not s.rstrip().endswith(("?", "？"))
                           for m in BARE_FIGURE.finditer(s) if not GPU_MODEL_BEFORE.search(s[:m.start()])
                           # (not a reference: "busbw is 50，theoretical busbw should be 200")
                           and not REFERENCE_BW.search(FIGURE_CLAUSE_BREAK.split(s[:m.start()])[-1]))
        for word, figure, unit, at in named:
            metric = "algbw_gbs" if word.lower().startswith("alg") else "busbw_gbs"
            if is_bits(unit) and NETWORK_LINK.search(ln):
                continue  # "200Gb/s HDR ... bus bandwidth is 200Gb/s": the network link's rate, not a measurement
            if _wished(ln, at) or _reference_bw(ln, at, ln.find(unit, at) + len(unit)):
                continue
            if PER_PART.search(ln[max(0, at - 24):at]):
                continue  # "(per rail ~27 GB/s)": one rail's share, not the collective's
            value = to_gbs(number(figure), unit)
            out.append(Measurement(where(name, i), metric, round(value, 3), "GB/s", stat="reported", gpus=n))
            named_values.add(round(value, 3))
    # a figure said again without its name ("the algbw is about 250GB/S" ... "all_reduce_perf in H100, about 250GB/S",
    # e021) keeps the name it was given
    out = [m for m in out if not (m.scope == "algbw_or_busbw" and m.value in named_values)]
    return [_with_collective(m, plain) for m in out]


# The nccl-tests collectives other than all-reduce, by their binaries and NCCL's names for them (CollectiveResult.op
# spelling). broadcast and reduce only as binaries: the bare words are common English and NCCL's all-reduce.
OTHER_COLLECTIVES = (
    ("all_gather", re.compile(r"\ball[_ -]?gather(?:_perf)?\b|\ballgather\b", re.I)),
    ("reduce_scatter", re.compile(r"\breduce[_ -]?scatter(?:_perf)?\b|\breducescatter\b", re.I)),
    ("alltoall", re.compile(r"\ball[_ -]?to[_ -]?all(?:_perf)?\b|\ball2all\b|\balltoall\b", re.I)),
    ("sendrecv", re.compile(r"\bsend_?recv(?:_perf)?\b", re.I)),
    ("broadcast", re.compile(r"\bbroadcast_perf\b", re.I)),
    ("reduce", re.compile(r"(?<![\w-])reduce_perf\b", re.I)),
)
# all-reduce said anywhere on the line, in nccl-tests' and users' spellings ("nccl-tests AR busbw 100 GB/s")
ALL_REDUCE_SAID = re.compile(r"\ball[_ -]?reduce|\ballreduce|(?-i:\bAR\b)", re.I)
# what parts a collective from the figure it would own: a clause break, a contrast, or a second sentence break
COLLECTIVE_CUT = re.compile(r"[;:]|\b(?:but|while|whereas|although|though)\b", re.I)
COLLECTIVE_CUT_AFTER = re.compile(r"[;:.!?,]|\b(?:but|while|whereas|although|though|and)\b", re.I)
SENTENCE_BREAK = re.compile(r"[.!?。](?:\s|$)")
# a collective of another thread or issue ("Similar to the alltoall issue in #1234")
ANOTHER_THREADS = re.compile(r"\b(?:similar\s+to|same\s+as|as\s+in|like\s+in|like\s+the)\b|#\d+", re.I)


def _figure_at(line: str, value: float) -> int | None:
    """Where on its line a bandwidth figure of `value` GB/s is written; None when no figure reads so."""
    for f in RATE_FIGURE.finditer(line):
        if round(to_gbs(number(f.group(1)), f.group(2)), 3) == value:
            return f.start()
    return None


def _owns_figure(line: str, said: re.Match, at: int) -> bool:
    """Whether the collective `said` is the subject of the figure at `at`: in the figure's clause (or the statement
    just before its sentence: "using sendrecv_perf ... on an A100 system. ... we only observe ~71–73 GB/s",
    nccl-tests#331), neither negated ("We don't use alltoall at all; ..."), asked about ("would alltoall be affected
    too?") nor another thread's ("Similar to the alltoall issue in #1234")."""
    if said.start() < at:
        between = line[said.end():at]
        if COLLECTIVE_CUT.search(between) or len(SENTENCE_BREAK.findall(between)) > 1:
            return False
    elif COLLECTIVE_CUT_AFTER.search(line[at:said.start()]):
        return False
    own_end = SENTENCE_BREAK.search(line, said.end())
    if own_end and own_end.group(0).startswith("?") or not own_end and line.rstrip().endswith("?"):
        return False
    lead = re.split(r"[;:.!?,。]\s", line[:said.start()])[-1]
    return not _NEGATED.search(lead) and not ANOTHER_THREADS.search(lead + line[said.start():said.end() + 40])


def _with_collective(m, plain: dict):
    """A bandwidth figure with the one collective other than all-reduce that its own line names as the figure's
    subject (nccl-tests#331: "benchmarking ... using sendrecv_perf ... ~71–73 GB/s"); unchanged (all-reduce's, as
    before) where the line names all-reduce, none or several, or the collective is not the figure's own."""
    line = plain.get(int(m.source.rpartition(":")[2]), "") if m.source.rpartition(":")[2].isdigit() else ""
    named = [(op, said) for op, said in OTHER_COLLECTIVES if said.search(line)]
    if len(named) != 1 or ALL_REDUCE_SAID.search(line):
        return m
    at = _figure_at(line, m.value)
    op, said = named[0]
    if at is None or not all(_owns_figure(line, c, at) for c in said.finditer(line)):
        return m
    return dataclasses.replace(m, op=op)


# A figure asked for, not measured: "is there a way to still get bus_bw close to 200 GBps?"
TARGET_BEFORE = re.compile(r"\b(?:close to|near|up to|at least|over|above|more than)\s*~?$", re.I)


# Where one clause of a sentence ends and another begins: a hope, a reference or a measurement holds in its own clause
# ("busbw only 20 GB/s although it should be 200 GB/s": 20 is measured, 200 hoped for).
FIGURE_CLAUSE_BREAK = re.compile(r"[;,(]\s|[，；、]|\s(?:but|although|though|whereas|while|vs\.?|versus|yet)\s", re.I)
# A bandwidth said as a reference, not measured: a theoretical, advertised, rated or documented figure, or one someone
# else gives ("theoretical busbw should be 200", "the network is advertised to be only 100 Gbps", "According to GTC talk
# ..., bus bandwidth is 480GB/s", "370GB/s, which is the real target for NCCL BusBW").
REFERENCE_BW = re.compile(r"\b(?:theoretic\w*|advertis\w*|according to|spec(?:s|ified|ification)?|datasheet|rated|"
                          r"nominal|target\w*|expect\w*|supposed|ideal\w*|should|would|claim\w*|promis\w*|"
                          r"official\w*|published|documented)\b", re.I)
CONTRAST_BREAK = re.compile(r";\s|\s(?:but|although|though|whereas|while|yet)\s", re.I)
SOURCE_FIRST = re.compile(r"\b(?:according to(?!\s+(?:my|our|the)\s+(?:own\s+)?(?:tests?|measurements?|runs?|"
                          r"results?|logs?|nccl-tests?))|as per|per the (?:docs?|documentation|datasheet|spec\w*))\b",
                          re.I)
# ("370GB/s, which is the real target": the figure is the target; not "215 GB/s, which is bigger than unidirectional
# peak BW 200GB/s", a measurement compared with one)
REFERENCE_AFTER = re.compile(r"\W{0,3}(?:which|that)\s+(?:is|was|'s)(?:\s+(?:the|a|an|our|its|real|actual|"
                             r"true|official|quoted|stated))*\s+(?:theoretic\w*|target\w*|expect\w*|spec\w*|advertis\w*|rated|nominal|"
                             r"ideal\w*|peak|max(?:imum)?)\b", re.I)


def _figure_clause(line: str, at: int) -> tuple[int, int]:
    """[start, end) of the clause of its sentence that holds the figure at `at`."""
    start = max(line.rfind(". ", 0, at), line.rfind("? ", 0, at)) + 1
    start = max([start] + [m.end() for m in FIGURE_CLAUSE_BREAK.finditer(line, start, at)])
    ends = [k for k in (line.find(". ", at), line.find("?", at)) if k >= 0]
    stop = FIGURE_CLAUSE_BREAK.search(line, at)
    return start, min(ends + ([stop.start()] if stop else []), default=len(line))


def _wished(line: str, at: int) -> bool:
    """Is the figure at `at` one the reporter hopes for: wished for in its clause, or a target in a question?"""
    start = max(line.rfind(". ", 0, at), line.rfind("? ", 0, at)) + 1
    end = min((k for k in (line.find(". ", at), line.find("?", at)) if k >= 0), default=len(line))
    sentence = line[start:end + 1]
    c_start, c_end = _figure_clause(line, at)
    if HOPED_FIGURE.search(line[c_start:c_end + 1]):
        return True
    return sentence.rstrip().endswith("?") and bool(TARGET_BEFORE.search(line[start:at].rstrip()))


def _reference_bw(line: str, at: int, end: int) -> bool:
    """Is the bandwidth at [at, end) a reference (theoretical, advertised, documented, a target), not a measurement?
    Judged on its own clause before it and a "which is the target" just after it."""
    start, _ = _figure_clause(line, at)
    # ("According to GTC talk ..., bus bandwidth is 480GB/s": a source named up front holds until a contrast)
    lead = line[max(line.rfind(". ", 0, at), line.rfind("? ", 0, at)) + 1:at]
    lead = CONTRAST_BREAK.split(lead)[-1]
    return bool(REFERENCE_BW.search(line[start:at]) or SOURCE_FIRST.search(lead) or REFERENCE_AFTER.match(line, end))


def _after_bench(line: str) -> str:
    """The part of a line after the benchmark's name (its command-line options are not figures)."""
    m = COLLECTIVE_BENCH.search(line)
    rest = line[m.end():] if m else line
    return re.sub(r"(?:^|\s)-{1,2}\w[\w-]*(?:[ =]\S+)?", " ", rest)


# A results table's columns: how many GPUs (or the TP size) a row ran on, and what it measured.
# A bare "GPU" column numbers the GPUs (0, 1, 2 ...), it does not count them: not a layout column.
GPUS_HEADER = re.compile(r"^(?:#\s*GPUs?|num[_ -]?gpus?|gpus|gpu[_ ]?count|n[_ ]?gpus?|tp|tp[_ ]?size|"
                         r"tensor[_ -]?parallel(?:[_ -]?size|\w*)|num[_ -]?shards?|shards?|world[_ ]?size|cards|"
                         r"#\s*cards?)$", re.I)
# How many copies of the model a row serves (vLLM/SGLang "data parallel", separate instances, replicas): each
# copy has the TP column's GPUs, so the row uses replicas x TP of them.
REPLICA_HEADER = re.compile(r"^(?:#\s*)?(?:instances?|replicas?|copies|dp|dp[_ ]?size|data[_ ]?parallel\w*|"
                            r"num[_ -]?(?:instances|replicas))$", re.I)
# The other layout columns of a results table ("| TP | PP | EP | tok/s |", TensorRT-LLM's tp_size/pp_size/ep_size,
# vLLM's --pipeline-parallel-size): a pipeline stage holds its own GPUs (the row's GPUs are TP x PP); experts are spread
# over the GPUs the TP (and DP) group already has (vLLM --enable-expert-parallel, SGLang --ep-size <= --tp-size,
# TensorRT-LLM moe_expert_parallel_size x moe_tensor_parallel_size = tp_size), so EP adds none. Either is a layout,
# never a figure.
PP_HEADER = re.compile(r"^(?:pp|pp[_ ]?size|pipeline[_ -]?parallel\w*)$", re.I)
EP_HEADER = re.compile(r"^(?:ep|ep[_ ]?size|expert[_ -]?parallel\w*|moe[_ ]?ep(?:[_ ]?size)?)$", re.I)
RATE_WORDS = re.compile(r"\b(?:tok(?:en)?s?\s*/\s*s(?:ec)?|t/s|tps|throughput)\b", re.I)
# A figure given relative to a baseline row ("x", "2x", "1.5x (apparently)"): a bare x is the baseline itself.
RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)?\s*[x×](?:\s*\(.*\))?$", re.I)
LATENCY_WORDS = re.compile(r"\b(?:ms|milliseconds?|latency|itl|tpot)\b", re.I)
NUMBER = re.compile(r"[-+~]?\d[\d,]*(?:\.\d+)?")


def _dtype_table_rates(prose: list[tuple[int, str]], name: str, model: str | None) -> list:
    """Decode rates from a table of weight formats side by side (text.dtype_columns), each with its dtype: the
    rows of the model the ticket names ("Qwen3-4B-VL" for Qwen3-4B), or the one row of a one-row table; a row of
    another model is not this model's figure."""
    rows = dtype_columns([(i, _plain(ln)) for i, ln in prose])
    key = re.sub(r"[^a-z0-9]", "", (model or "").lower())
    keep = [r for r in rows if key and key in re.sub(r"[^a-z0-9]", "", r[1].lower())]
    if not keep and len({r[1] for r in rows}) == 1:
        keep = rows
    return [Measurement(where(name, i), "decode_tok_s", value, "tok/s", stat="reported", dtype=dtype)
            for i, _, dtype, value in keep]


# (fig30) A table of the reporter's runs whose column header names a decode rate, the rows naming runs ("| LLaMA-13B |
# best(t/s) | worse(t/s) |" over "| Exllama | 47.13 | 41.86 |", mit-han-lab/llm-awq#52; "| command | tokens/second |"
# over "| -t 7 -ngl 2000000 | 8.5 |", ggml-org/llama.cpp#1665): each bare number in that column is the decode rate of
# its row's run, with the GPU its row names. Not a column of prompt-processing, input, total, peak or per-GPU rates,
# a throughput (every stream together) or a batch's; not a table that sets GPU counts or layouts side by side (the
# results-table readers take those), nor a table of several models' rows (ollama/ollama#9406 sets five models side by
# side: which one the ticket is about is unsaid), nor a row already read.
RATE_HEADER = re.compile(r"(?:^|[\s(\[])(?:tok(?:en)?s?\s*/\s*s(?:ec(?:ond)?)?|t/s|tokens?\s+per\s+sec(?:ond)?|tps)"
                         r"\s*[)\]]?\s*$", re.I)
BATCH_HEADER = re.compile(r"^(?:batch(?:[_ -]?size)?|bs)$", re.I)
OTHER_RATE_HEADER = re.compile(r"\b(?:prompt|prefill|input|pp|total|throughput|aggregate|overall|peak|gpus?|batch\w*|"
                               r"concurren\w*|users?|requests?)\b", re.I)


def _header_rate_rows(prose: list[tuple[int, str]], name: str, read: set[str]) -> list:
    """Decode rates from the rows of tables whose rate is named in a column header (RATE_HEADER)."""
    out, lines, k = [], [(i, _plain(ln)) for i, ln in prose], 0
    while k < len(lines):
        head = lines[k][1]
        k += 1
        cells = table_cells(head) if "|" in head else []
        # ("S_PP t/s" is llama-sweep-bench's prompt-processing speed: its underscore parts are words)
        cols = [j for j, c in enumerate(cells)
                if RATE_HEADER.search(c) and not OTHER_RATE_HEADER.search(c.replace("_", " "))]
        # (a header is a table's first row, over its delimiter row "|---|---|", as GitHub Markdown writes tables)
        ruled = k < len(lines) and set("".join(table_cells(lines[k][1]))) <= set("-: ") and "-" in lines[k][1]
        first = k < 2 or "|" not in lines[k - 2][1]
        # (llama.cpp's batched/sweep bench tables, BENCH_HEADER, have their own reader: "S t/s" there is prompt and
        # generation together, every sequence of the batch)
        if len(cells) < 2 or not cols or not (ruled and first) or BENCH_HEADER.match(head) or any(
                GPUS_HEADER.match(c) or LAYOUT_HEADER.match(c) for c in cells):
            continue
        body = _table_body(lines, k, len(cells))
        while k < len(lines) and "|" in lines[k][1]:
            k += 1
        # (rows of several models side by side survey models: which one the ticket asks about is unsaid)
        models = {clause_model(v, v) for _, vals in body for v in vals} - {None}
        if _count_column(body) is not None or len(models) >= 2:
            continue
        # (a batch-size column: the row's rate is its batch's, every sequence together, as AutoAWQ's benchmark prints)
        bcol = next((j for j, c in enumerate(cells) if BATCH_HEADER.match(c)), None)
        for r, vals in body:
            if where(name, r) in read:
                continue
            label = next((v for j, v in enumerate(vals) if j not in cols and not NUMBER.fullmatch(v.strip("_* "))), "")
            batch = int(vals[bcol]) if bcol is not None and vals[bcol].strip().isdigit() else None
            for j in cols:
                cell = vals[j].strip("_* ").replace(",", "")
                if re.fullmatch(r"~?\d+(?:\.\d+)?", cell):
                    out.append(Measurement(where(name, r), "decode_tok_s", float(cell.lstrip("~")), "tok/s",
                                           stat="reported", batch=batch, model=clause_model(label, label),
                                           gpu_name=clause_gpu(label, label)))
    return out


def _aligned_tables(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """A results table typed or pasted as aligned text ("GPUs   tok/s" over "1      60"), its columns apart by two
    spaces or a tab, written as Markdown rows for _results_tables: a header naming a GPU count or layouts, then
    rows of as many cells. Lines already in Markdown are left to it."""
    out: list[tuple[int, str]] = []
    rows = [(i, re.split(r"\s{2,}|\t", ln.strip())) for i, ln in sorted(lines) if "|" not in ln]
    k = 0
    while k < len(rows):
        i, head = rows[k]
        k += 1
        if len(head) < 2 or not any(GPUS_HEADER.match(c) or LAYOUT_HEADER.match(c) for c in head):
            continue
        body = []
        while k < len(rows) and rows[k][0] == (body[-1][0] if body else i) + 1 and len(rows[k][1]) == len(head):
            body.append(rows[k])
            k += 1
        if len(body) >= 2:
            out.extend((j, "| " + " | ".join(cells) + " |") for j, cells in [(i, head), *body])
    return out


# A two-cell table row whose figure's unit is written in its label, as results tables often put it: "| Narrative decode
# TPS | 73.41 |", "| Output throughput (tok/s) | 1234 |", "| TTFT (ms) | 139 |". The unit is moved beside the figure,
# where the prose readers look for it. TPS is tokens per second (the label vLLM's, SGLang's and llama.cpp's benchmark
# scripts and their users write).
# (a bare "(s)" is seconds only set apart from its word: "Latency (s)"; glued on, "GPU(s)", "Node(s)", it is a plural)
_LABEL_UNIT = re.compile(r"^\s*(?:\|\s*)?(?:(?P<label>[^|\s](?:[^|]*?[^|\s])??)\s*)??"
                         r"(?:\((?P<paren>tok(?:ens)?/s(?:ec)?|t/s|tps|ms|sec|seconds|"
                         r"GB/s)\)|(?<=\s)\((?P<paren_s>s)\)|"
                         r"\b(?P<word>TPS|tok(?:ens)?/s(?:ec)?|t/s))\s*\|\s*(?P<n>\d+(?:\.\d+)?)\s*(?:\|\s*)?$", re.I)


# (left29) A node layout written as a product of two small counts: "2x8 H100" (nodes x GPUs per node, before the
# board's name, as vllm-project/recipes#394 writes "2x8 H100 TP+PP" for "2 nodes x 8 NVIDIA H100"), and the product
# labelled by its factors, "2x8 (nodes x gpus)" (vllm-project/vllm#28873). Spelled out as the words the node readers
# know ("2 x 8 H100", "2 nodes x 8 GPUs"). Not a factor glued to a word or a version ("PCIe 4.0 x8", "TP2xPP8"), nor
# a size ("2x 8GB"), nor one count before the board ("2x4090", "8x A100"): the second factor must stand alone before a
# capitalised name.
_NODE_PRODUCT = re.compile(r"(?<![\w.])(\d{1,2})\s*[x×*]\s*(\d{1,2})\s+(?=(?:NVIDIA\s+|Nvidia\s+)?[A-Z]+\d)")
# (review47) Groups inside one box: "2×4 A100/A800, where GPU0-3 and GPU4-7 are each PIX-connected" (vllm-project/vllm
# #50941: two PCIe islands of one 8-GPU server, bridged by the CPU interconnect). A line that names the groups as
# islands, sockets, NUMA nodes or halves, or the PCIe switch level (PIX, PXB), speaks of one machine: the product
# is its GPUs (8), no node count.
_GROUPS_IN_ONE_BOX = re.compile(r"\b(?:islands?|sockets?|NUMA|halves|PIX|PXB)\b", re.I)
_NODE_PRODUCT_LABELLED = re.compile(r"(?<![\w.])(\d{1,3})\s*[x×*]\s*(\d{1,2})\s*\(\s*nodes?\s*[x×*]\s*"
                                    r"(?:gpus?|cards?)(?:\s+(?:per|each)\s+node)?\s*\)", re.I)


def node_product(line: str) -> str:
    """The line with a node layout's product spelled as counts the node readers read (_NODE_PRODUCT)."""
    line = _NODE_PRODUCT_LABELLED.sub(r"\1 nodes x \2 GPUs", line)
    if _GROUPS_IN_ONE_BOX.search(line):  # groups of one machine: their product is the machine's GPUs
        return _NODE_PRODUCT.sub(lambda m: f"{int(m.group(1)) * int(m.group(2))} ", line)
    return _NODE_PRODUCT.sub(r"\1 x \2 ", line)


def label_unit(line: str) -> str:
    """The row with its label's unit written after its figure; any other line as it is."""
    m = _LABEL_UNIT.match(line)
    if not m:
        return line
    unit = m.group("paren") or m.group("paren_s") or m.group("word")
    unit = "tok/s" if re.fullmatch(r"tps|t/s|tok(?:ens)?/s(?:ec)?", unit, re.I) else unit
    unit = "s" if re.fullmatch(r"sec|seconds", unit, re.I) else unit
    label = (m.group("label") or "") + (f" {m.group('word')}" if m.group("word") else "")
    return f"| {label.strip()} | {m.group('n')} {unit} |"


def _results_tables(prose: list[tuple[int, str]], name: str) -> list:
    """Rows of a results table that sets GPU counts (or TP sizes) side by side, long ("| A100 | 2 | 29.39 |",
    a GPU-count column) or wide ("| batch | tp=2 | tp=4 |", one column per layout). One Note per table,
    each row with its label, GPU count and figure; what the figure is (a rate, or a latency in ms)
    comes from the cell's unit, its header, or the sentence above the table."""
    out = []
    lines = [(i, _plain(ln)) for i, ln in prose]
    k = 0
    while k < len(lines):
        i, head = lines[k]
        cells = table_cells(head)
        start = k
        k += 1
        wide = {j: int(m.group(1) or m.group(2)) for j, c in enumerate(cells) if (m := LAYOUT_HEADER.match(c))}
        wide_layouts = {}
        # columns headed "1× 3090" / "your 2× 3090, TP=2": GPU counts side by side, when all name one product
        counted = {j: found for j, c in enumerate(cells) if (found := count_cell(c))}
        if len(counted) >= 2 and len({key for _, key, _ in counted.values()}) == 1:
            wide.update({j: n for j, (n, _, _) in counted.items()})
            wide_layouts = {j: layout for j, (_, _, layout) in counted.items() if layout}
        body = _table_body(lines, k, len(cells)) if "|" in head and len(cells) >= 2 else []
        # (two columns do: "| GPUs | tok/s |", a count and its figure; so does a column of "2x RTX 3090" cells)
        if "|" not in head or len(cells) < 2 or not (any(GPUS_HEADER.match(c) for c in cells) or len(wide) >= 2
                                                     or _count_column(body) is not None):
            turned = _transposed(lines, k - 1)
            if turned:
                k, cells, body = turned
                rows = _long_rows(cells, body, None, outputs_first=True)
                if len({row["gpus"] for row in rows}) >= 2:
                    out.append(Note(where(name, i), "results_table", f"{len(rows)} rows", data={"rows": rows}))
            continue
        while k < len(lines) and "|" in lines[k][1]:
            k += 1
        above = " ".join(ln for _, ln in lines[max(0, start - 5):start])
        default = "rate" if RATE_WORDS.search(above) and not LATENCY_WORDS.search(above) else \
            "ms" if LATENCY_WORDS.search(above) else None
        rows = _long_rows(cells, body, default) or _wide_rows(cells, body, wide, default, wide_layouts)
        # GPU counts side by side, or the same GPUs laid out differently (replicas of TP2 against one TP8)
        if len({row["gpus"] for row in rows}) >= 2 or len({(row.get("tp"), row.get("replicas"), row.get("pp"),
                                                              row.get("ep")) for row in rows}) >= 2:
            out.append(Note(where(name, i), "results_table", f"{len(rows)} rows", data={"rows": rows}))
    return out


# A wide table's layout columns: "tp=4", "TP 8", "4 GPUs", "2x GPU".
LAYOUT_HEADER = re.compile(r"^(?:tp|tensor[_ -]?parallel(?:[_ -]?size)?)\s*[=:]?\s*(\d+)$|"
                           r"^(\d+)\s*(?:x\s*)?(?:GPUs?|cards?)$", re.I)
CELL_RATE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:tok(?:en)?s?\s*/\s*s(?:ec)?|t/s)\b", re.I)
CELL_MS = re.compile(r"(\d+(?:\.\d+)?)\s*ms\b", re.I)


# (issue 11 s) A table laid out the other way round: one row per quantity, one column per run ("| Tensor Parallel
# Size | 1 | 2 | 1 |" over "| Output (tokens/s) | 3344.91 | 1516.37 | 4623.98 |"), as benchmark blogs and
# spreadsheets print them. Turned so each run is a row, it reads as a long table.
def _transposed(lines: list[tuple[int, str]], k: int) -> tuple[int, list[str], list] | None:
    """(index after the table, the first column as headers, one body row per run) when the table starting at
    lines[k] has a row whose first cell names the GPUs or the TP size and whose other cells are counts; else None."""
    rows, end = [], k
    while end < len(lines) and "|" in lines[end][1]:
        vals = table_cells(lines[end][1])
        if not set("".join(vals)) <= set("-: "):
            rows.append(vals)
        end += 1
    width = len(rows[0]) if rows else 0
    if width < 3 or any(len(r) != width for r in rows) or not any(
            GPUS_HEADER.match(r[0]) and all(v.isdigit() and int(v) >= 1 for v in r[1:]) for r in rows):
        return None
    line = lines[k][0]
    return end, [r[0] for r in rows], [(line, [r[j] for r in rows]) for j in range(1, width)]


# Which figure of a turned table's run is its main one: a rate, the output (decode) rate before the input's.
_INPUT_RATE = re.compile(r"\b(?:input|prompt|prefill)\b", re.I)
_OUTPUT_RATE = re.compile(r"\b(?:output|generat\w*|decode)\b", re.I)


def _long_rows(cells: list[str], body: list, default: str | None, outputs_first: bool = False) -> list[dict]:
    # the GPU-count column: a header naming it whose cells are whole numbers
    gcol = next((j for j, c in enumerate(cells) if GPUS_HEADER.match(c) and body
                 and all(v[j].isdigit() and int(v[j]) >= 1 for _, v in body)), None)
    if gcol is None:
        return _counted_rows(cells, body)
    # a replica column beside a TP column: the row's GPUs are replicas x TP
    rcol = next((j for j, c in enumerate(cells) if j != gcol and REPLICA_HEADER.match(c)
                 and all(v[j].isdigit() and int(v[j]) >= 1 for _, v in body)), None)
    per_copy = rcol is not None and bool(re.match(r"(?i)tp|tensor", cells[gcol]))
    # pipeline and expert degrees beside a TP column: the row's layout ("None", "-" or "off" is no such split)
    layout = {key: j for key, pattern in (("pp", PP_HEADER), ("ep", EP_HEADER)) for j, c in enumerate(cells)
              if j not in (gcol, rcol) and pattern.match(c)} if re.match(r"(?i)tp|tensor", cells[gcol]) else {}
    columns = [(j, c, "rate" if RATE_WORDS.search(c) else "ms" if LATENCY_WORDS.search(c) else default)
               for j, c in enumerate(cells) if j not in (gcol, rcol, *layout.values())]
    if outputs_first:  # a turned table lists every quantity: its main figure is the output rate
        columns = [c for c in columns if c[2] == "rate"]
        columns.sort(key=lambda c: (bool(_INPUT_RATE.search(c[1])), not _OUTPUT_RATE.search(c[1])))
    rows = []
    for r, vals in body:
        label = next((v for j, v in enumerate(vals) if j not in (gcol, rcol, *layout.values())
                      and not NUMBER.fullmatch(v) and not RELATIVE.match(v.strip("_* "))), "")
        copies = int(vals[rcol]) if per_copy else 1
        degrees = {key: int(vals[j]) if vals[j].isdigit() and int(vals[j]) >= 1 else 1 for key, j in layout.items()}
        for j, header, kind in columns:
            cell = vals[j].strip("_* ")
            relative = RELATIVE.match(cell) if kind == "rate" else None
            unit = (CELL_RATE if kind == "rate" else CELL_MS).fullmatch(cell.replace(",", "")) if kind else None
            if kind and (NUMBER.fullmatch(cell) or relative or unit):  # "4100", "2x", "4100 tok/s", "35 ms"
                value = float(relative.group(1) or 1) if relative else float(unit.group(1)) if unit else \
                    float(cell.replace(",", "").lstrip("~+"))
                row = {"line": r, "label": label, "gpus": int(vals[gcol]) * copies * degrees.get("pp", 1),
                       "column": header, "kind": kind, "value": value}
                if per_copy:
                    row.update(tp=int(vals[gcol]), replicas=copies)
                if layout:
                    row.update(tp=int(vals[gcol]), **degrees)
                if relative:
                    row["relative"] = True  # a multiple of the baseline row, not an absolute rate
                rows.append(row)
                break  # the first figure column: the average or the main figure
    return rows


def _table_body(lines: list[tuple[int, str]], k: int, width: int) -> list[tuple[int, list[str]]]:
    """The rows of the Markdown table whose body starts at lines[k] that have the header's width, less its rule."""
    body = []
    while k < len(lines) and "|" in lines[k][1]:
        vals = table_cells(lines[k][1])
        if len(vals) == width and not set("".join(vals)) <= set("-: "):
            body.append((lines[k][0], vals))
        k += 1
    return body


# (issue 11, mend2_s24) A header or cell that names its GPUs by count and product, as benchmark replies and blogs set
# runs side by side: "1× 3090", "your 2× 3090, TP=2" (syv-ai/qwen38-27b-rtx3090#135), "2x RTX 3090 NVLink (TP=2)"
# (#164), "4x RTX 5090". The count is the run's GPUs; a TP size beside it is its layout. Not a product alone
# ("3090 @ 250 W", "5070 Ti"), a sum of products or of a card and host RAM ("5090+3090", "1× RTX 4090 + RAM
# offload"), nor arithmetic on a spec ("4× 936 = 3,744 GB/s": no product follows the count).
_COUNT_CELL = re.compile(r"^(?:(?:your|my|our|the|their)\s+)?([1-9]\d?)\s*[x×]\s*", re.I)
_CELL_TP = re.compile(r"\b(?:tp|tensor[_ -]?parallel(?:[_ -]?size)?)\s*[=:]?\s*(\d{1,2})\b", re.I)
# ... or the layout in words: "4x RTX 4090 (data parallel)" against "4x RTX 4090 (tensor parallel)" (a copy per GPU
# against one model over all of them; vLLM's data-parallel and tensor-parallel deployment docs)
_CELL_SPLIT = re.compile(r"\((?:(?P<dp>data[ -]parallel|replicas?|dp)|(?P<tp>tensor[ -]parallel|tp))\)", re.I)
# (an alternative is no run: "1x RTX 4090 or L40S", "2x A100/H100")
_CELL_ALTERNATIVE = re.compile(r"\bor\b|^/", re.I)


def count_cell(cell: str) -> tuple[int, str, dict[str, int]] | None:
    """(GPU count, product key, layout: tp and replicas where the cell says them) of a cell "N× <GPU>", else None."""
    text = _plain(cell).strip("_* ")
    m = _COUNT_CELL.match(text)
    g = GPU_NAME.match(text, m.end()) if m else None
    rest = text[g.end():] if g else ""
    if g is None or "+" in rest or _CELL_ALTERNATIVE.search(rest.strip()) or re.search(r"\s=\s", text):
        return None
    count = int(m.group(1))
    tp, split = _CELL_TP.search(rest), _CELL_SPLIT.search(rest)
    layout = {"tp": int(tp.group(1))} if tp else {}
    if split:
        layout = {"tp": 1, "replicas": count} if split.group("dp") else {"tp": count, "replicas": 1}
    return count, gpu_key(g.group(1)), layout


def _count_column(body: list) -> int | None:
    """The column whose every cell is "N× <GPU>", in a body of two rows or more."""
    width = len(body[0][1]) if len(body) >= 2 else 0
    return next((j for j in range(width) if all(count_cell(v[j]) for _, v in body)), None)


def _counted_rows(cells: list[str], body: list) -> list[dict]:
    """A long table whose runs are named "2x RTX 3090 NVLink (TP=2)": one row per run, labelled by its product (so
    runs on different GPUs are never one series), with its first figure: a cell that writes its unit ("~1,035
    tok/s", "35 ms") or a bare number under a header that names one (a bare number under "Context" or "Power" is
    no figure, whatever the sentence above says)."""
    col = _count_column(body)
    if col is None:
        return []
    rows = []
    for r, vals in body:
        count, key, layout = count_cell(vals[col])
        for j, header in enumerate(cells):
            cell = vals[j].strip("_* ").replace(",", "").lstrip("~")
            kind = "rate" if RATE_WORDS.search(header) else "ms" if LATENCY_WORDS.search(header) else None
            unit = CELL_RATE.fullmatch(cell) or CELL_MS.fullmatch(cell)
            if j == col or not (unit or (kind and NUMBER.fullmatch(cell))):
                continue
            kind = ("rate" if CELL_RATE.fullmatch(cell) else "ms") if unit else kind
            rows.append({"line": r, "label": key, "gpus": count, "column": header, "kind": kind,
                         "value": float(unit.group(1) if unit else cell), **layout})
            break
    return rows


def _wide_rows(cells: list[str], body: list, wide: dict[int, int], default: str | None,
               layouts: dict[int, dict] | None = None) -> list[dict]:
    """One row per (table row, layout column): the cell's rate ("36.2tok/s"), else its latency in ms,
    else a bare number read as the table's default kind; with the layout a column's header names (`layouts`)."""
    rows = []
    for r, vals in body:
        label = " ".join(v for j, v in enumerate(vals) if j not in wide and v)
        for j, gpus in wide.items():
            rate, ms = CELL_RATE.search(vals[j]), CELL_MS.search(vals[j])
            if rate or ms or (default and NUMBER.fullmatch(vals[j])):
                kind, value = ("rate", rate.group(1)) if rate else ("ms", ms.group(1)) if ms else (default, vals[j])
                rows.append({"line": r, "label": label, "gpus": gpus, "column": cells[j], "kind": kind,
                             "value": float(value.replace(",", "").lstrip("~+")), **(layouts or {}).get(j, {})})
    return rows


# What follows a GPU's name without naming another product: its form factor, memory type or memory size.
# A size is split from the name by a space or dash ("A100 80GB", "RTX 3090 24GB", "A100-40G") or set in brackets
# ("4090 (48G)"): glued, its digits would run into the model number ("A10080GB" is not "A10" with "080GB").
GPU_SUFFIX = re.compile(r"(?:[\s_-]*(?:SXM\d?|PCIe|NVL|HBM3e?)|[\s_-]+\d{2,3}\s*G(?:i?B)?|"
                        rf"[\s_-]*[(\[（【]\s*\d{{2,3}}\s*G(?:i?B)?{_EACH}\s*[)\]）】])+$", re.I)


def gpu_key(name: str) -> str:
    """One product's key however it is written: "RTX 3090 24GB", "3090" -> "3090"; "A100 80GB SXM" -> "A100". A
    lower-case s glued to the number stays lower case ("V100s"): a plural or the product's own S is the catalog's call
    (rules.catalog.gpu_name), and upper-casing it would turn "two V100s" into the V100S."""
    key = re.sub(r"\s+|-", "", GPU_SUFFIX.sub("", name.strip()))
    plural = re.search(r"(?<=\d)s$", key) is not None
    key = key.upper().replace("RTX", "").replace("GTX", "")
    return key[:-1] + "s" if plural else key


def _gpus_named(prose: list[tuple[int, str]], labels: set[int] = frozenset()) -> list[tuple[int, str, bool, bool]]:
    """(line, GPU name, named in a comparison, named in an inventory line) for every GPU product
    named. An inventory line is short (a list item, "GPU: ...", a table row), not a sentence; a line
    labelling a pasted block (`labels`) names the system that block was measured on: compared; so does every line
    of a ticket that says its GPUs sit in different machines (SEPARATE_MACHINES), compares two rigs of one board
    each (_rigs_compared) or heads each board's own figures (_result_headings)."""
    out = []
    headed = _result_headings(prose)  # results set out per board: the boards are compared throughout, as apart
    apart = bool(headed) or _setups_listed(prose) or any(SEPARATE_MACHINES.search(ln) or _rigs_compared(ln)
                                                         for _, ln in prose)
    for i, ln in prose:
        ln = _plain(ln)
        for m in GPU_NAME.finditer(ln):
            key = gpu_key(m.group(1))
            if i in labels:
                out.append((i, key, True, False))
                continue
            # (a CJK sentence has no spaces to count: its characters make it one, as in _wordy)
            listed = (len(ln.split()) <= 8 and len(CJK.findall(ln)) < 10) or "|" in ln or bool(
                re.match(r"\s*(?:[-*]|\d+[.)]|GPU\s*\d*\s*:)", ln))
            out.append((i, key, apart or bool(COMPARED.search(ln)) or _result_row(ln) or _others_gpu(ln, m.start())
                        or bool(OUTCOME_LINE.match(ln)) or _outcome_clause(ln, m.start()), listed))
    return out



# (hostbound37) A figure with its unit or its name before it: "First packet latency: 117 ms", "RTF: 0.44", "35 tok/s".
_FIGURE_LINE = re.compile(r"\d[\d.,]*\s*(?:ms|s|sec|seconds|tok(?:ens)?/s|t/s|it/s|fps|%)(?!\w)|"
                          r"\b(?:RTF|latency|throughput|speed|time)\b[^:=\n]{0,20}[:=]\s*~?\d", re.I)


def _result_headings(prose: list[tuple[int, str]]) -> set[int]:
    """Lines that are only a GPU's name with the next line a measured figure: each heads its own results ("Nvidia
    4090" above "First packet latency: 117 ms", "Nvida 5090" above its own, herimor/voxtream#4), so the boards are
    compared, not one job's cards."""
    lines = [(i, _plain(ln).strip()) for i, ln in prose if ln.strip()]
    out = set()
    for (i, ln), (_, after) in zip(lines, lines[1:]):
        m = GPU_NAME.search(ln)
        if m and len(ln.split()) <= 4 and not _FIGURE_LINE.search(ln) and _FIGURE_LINE.search(after):
            out.add(i)
    return out if len(out) >= 2 else set()


RESULT_CELL = re.compile(r"[-+~]?\d[\d.,]*\s*(?:%|x|ms|s|tok/s|GB/s)?|OOM|N/?A|:?-{2,}:?", re.I)


def clause_gpu(clause: str, line: str) -> str | None:
    """The GPU product a figure's own clause names ("On A100 80GB I get 95 tok/s" -> "A100"), else the one an earlier
    clause of its sentence says the run happened on ("On H200, I got 6,051 tok/s"); where neither does but its line
    names two or more ("A100 vs H100 for Llama-8B: 95 tok/s"), all of them, joined by " / ": the
    figure could be either's. None where nothing says, so the ticket's GPU holds."""
    names = list(dict.fromkeys(gpu_key(m.group(1)) for m in GPU_NAME.finditer(_plain(clause))))
    if not names and (ran := _ran_on(clause, line)):
        return ran
    if not names:
        names = list(dict.fromkeys(gpu_key(m.group(1)) for m in GPU_NAME.finditer(_plain(line))))
        if len(names) < 2:
            return None
    return " / ".join(names)


# A model named by its size alone inside a figure's clause ("13B on the 4090 does 30 tok/s", "the 7b gets 48"): the
# size is the model's name there, not a unit (a byte size carries its G/M/K before the B).
CLAUSE_SIZE = re.compile(r"(?<![\w.:/-])(\d{1,3}(?:\.\d)?)[bB](?![\w-]|\.\w)")


# A model named only to say it was not the one run: "not the 13B", "instead of Llama-2-13B", "rather than 13B".
NOT_THIS_MODEL = re.compile(r"\b(?:not|instead\s+of|rather\s+than)\s+(?:the\s+|a\s+)?$", re.I)


def _models_in(text: str) -> list[str]:
    """The models a piece of text names as run, in order, once each: full names (an HF id, a known family with its
    size, any name ending in its size); where none, sizes alone ("7B"). A name negated ("not the 13B") is not run."""
    text = _plain(text)
    found = sorted((m.start(), m.group(1)) for rx in (HF_ID, MODEL_NAME, PLUS_MODEL, OTHER_MODEL)
                   for m in rx.finditer(text))
    found = found or [(m.start(), f"{m.group(1)}B") for m in CLAUSE_SIZE.finditer(text)]
    names = [n for at, n in found if not NOT_THIS_MODEL.search(text[max(0, at - 20):at])]
    # a full name matched twice (an HF id and the family name inside it) is one model: the longest spelling holds
    names = [n for n in names if not any(n != o and n.lower() in o.lower() for o in names)]
    return list(dict.fromkeys(names))


# A model named as the other side of a comparison: "unlike X", "compared with X", "than X", "X's figure vs mine".
CONTRASTED = re.compile(r"\b(?:unlike|compared\s+(?:to|with)|than|vs\.?|versus|relative\s+to|instead\s+of|"
                        r"rather\s+than|other\s+than|like)\s+(?:\w+\s+){0,2}$", re.I)


def clause_model(clause: str, line: str) -> str | None:
    """The model a figure's own clause names ("13B on the 4090 does 30 tok/s" -> "13B"); where its clause names none
    but its line names two or more ("Llama-2-7B and Llama-2-13B: 48 tok/s"), all of them, joined by " / ": the figure
    could be either's; where its clause names none, the one model an earlier clause of its sentence names. None where
    nothing says, so the ticket's model holds (as clause_gpu for the GPU)."""
    names, said = _models_in(clause), clause
    if not names:
        # the one model an earlier clause of the figure's own sentence names ("qwen3-32b using W4A16 dp gave 77 tok/s
        # whereas tp yielded 125 tok/s"): the sentence speaks of one run's model throughout
        # (not one set against another's: "unlike Llama-2-13B, which gives 30 tok/s, I get 12")
        sentence = next((s for s in sentences(line) if clause in s), "")
        before = sentence[:sentence.find(clause)] if sentence else ""
        named, plain = _models_in(before), _plain(before)
        if len(named) == 1 and not CONTRASTED.search(plain[:plain.find(named[0])]):
            return named[0]
        names, said = _models_in(line), line
        if len(names) < 2:
            return None
    if len(names) == 2 and (base := _base_of(names, said)):
        return base
    return " / ".join(names)


# "X, a fine-tuned variant of Y", "X (based on Y)", "X, derived from Y": a fine-tune keeps its base model's
# architecture (https://huggingface.co/docs/transformers/training: fine-tuning trains a pretrained model's weights,
# its shape unchanged), so both names are one model whose shape the base names.
FINETUNE_OF = re.compile(r"\b(?:fine[- ]?tun\w*|finetun\w*|variant|derivative|version)\s+(?:of|from)\b|"
                         r"\b(?:based|built)\s+on\b|\bderived\s+from\b", re.I)


def _base_of(names: list[str], line: str) -> str | None:
    """The base model where the line says the first name is a fine-tune of the second; else None."""
    text = _plain(line)
    first, second = (text.find(n) for n in names)
    between = text[first:second] if 0 <= first < second else ""
    m = FINETUNE_OF.search(between)
    if m and not re.search(r"\b(?:not|isn't|is\s+no|never)\b", between[:m.start()], re.I):
        return names[1]
    return None


# "I ran the same on H200 and got 6,051 tok/s": the board the run happened on, in an earlier clause of its sentence
RAN_ON = re.compile(r"\b(?:on|with|using)\s+(?:an?\s+|the\s+|my\s+|our\s+)?(?:\d+\s*[x×]\s*)?$", re.I)


def _ran_on(clause: str, line: str) -> str | None:
    """The GPU an earlier clause of the figure's sentence says the run happened on ("on H200", "using an A100"),
    where that part of the sentence names no other; else None."""
    for sentence in sentences(line):
        at = sentence.find(clause)
        if at > 0:
            before = _plain(sentence[:at])
            found = list(GPU_NAME.finditer(before))
            names = {gpu_key(m.group(1)) for m in found}
            ran = len(names) == 1 and any(RAN_ON.search(before[:m.start()]) for m in found)
            return names.pop() if ran else None
    return None


def _result_row(line: str) -> bool:
    """A row of a results table ("| A100-80G | 2 | 29.39 | 28.71 |", "3090 24GB * 2 | 17.95 | OOM"):
    each row is another configuration measured, so the GPUs its rows name are compared, not one
    machine's inventory (an nvidia-smi box row holds one number-like cell at most)."""
    cells = table_cells(line)
    return len(cells) >= 3 and sum(bool(RESULT_CELL.fullmatch(c)) for c in cells) >= 2


def _tp_size(m: re.Match) -> int:
    """The size a TP (or PP) match names, whichever of its spellings matched ("TP=4", "TP4", "--tp 4")."""
    return int(next(g for g in m.groups() if g))


def _count(token: str) -> int | None:
    token = " ".join(token.lower().split())
    if "十" in token:
        return figures.cjk_number(token)
    return COUNT_WORDS.get(token) or WORLD_COUNT_WORDS.get(token) or ORDINAL_GPUS.get(token) or \
        (int(token) if token.isdigit() else None)


# Prompts counted ("64 prompts", "--num-prompts 1000", "1,000 sampled prompts"): requests sent, whatever the phase.
PROMPT_COUNT = re.compile(r"\b\d[\d,]*\s+(?:[a-z-]+\s+)?prompts\b|\bnum[-_ ]prompts?\b\s*=?\s*\d+", re.I)
# The label of a prompt-processing (prefill) rate: said in words, or as llama.cpp writes it, "PP" for prompt processing
# beside "TG" for text generation (llama-bench's pp512/tg128 tests; "| PP | 310.1 tok/s |", "pp 27K/18.8s 1417t/s").
# Not the pipeline-parallel size, written with its degree ("PP=2", "pp 2", "pp2tp4", "TP4-PP2"): a prompt's size
# after "pp" is three digits or more, or carries its "K".
# The label of a rate over prompt and generated tokens together: vLLM's benchmark_serving prints "Total Token
# throughput" as (input + output tokens) / duration (vllm/benchmarks/serve.py), LMDeploy's profile_restful_api "token
# throughput (prompt + completion token)" (https://lmdeploy.readthedocs.io/en/latest/benchmark/profile_api_server.html).
# A generation total is not it: "total output throughput", "total throughput" (TOTAL_RATE).
PROMPT_AND_OUTPUT = re.compile(r"\btotal\s+tokens?\s+(?:throughput|rate|speed|per\s+sec)|"
                               r"\b(?:prompt|input)\s*\+\s*(?:completion|output|generat\w*)", re.I)
PROMPT_RATE_LABEL = re.compile(r"prompt|prefill|input|"
                               r"(?<![\w-])pp(?:\d{3,5})?(?![\w=-])(?!\s*[=:]?\s*\d{1,2}(?![\d.kK]))", re.I)
# ... and of a generation rate, llama.cpp's "TG" (tg128) and "out" among them: the later of the two is the figure's
OUTPUT_RATE_LABEL = re.compile(r"generat|decod|output|\bout\b|(?<![\w-])tg(?:\d{1,5})?\b", re.I)


# The weight format a figure names as its own, right after it ("40.96 t/s in float16 and 166.02 t/s with int4") or as
# its label right before it ("int4: 166 t/s", "with AWQ we get 60 tok/s"): each rate of a sentence that sets formats
# side by side ran with its own weights, not with the one format the ticket names elsewhere.
# A format followed by "KV" or "cache" is the KV cache's ("4510 tok/s with FP8 KV"), not the weights'.
_DTYPE_AFTER = re.compile(r"\s*(?:\([^)]{0,12}\)\s*)?(?:in|with|using|on|for|at)\s+([\w.-]{2,12})\b"
                          r"(?!\s*(?:KV|K/V|kv[_-]?cache|cache)\b)", re.I)
_DTYPE_BEFORE = re.compile(r"(?:^|[\s(])([\w.-]{2,12})\s*(?::|=|,?\s*(?:we|I)\s+(?:get|got|see|saw|reach\w*)|"
                           r"gives|gave|reaches|reached|runs?\s+at|does|did)\s*(?:about\s+|~\s*)?$", re.I)


def _figure_dtype(clause: str, m: Figure) -> str | None:
    """The weight format the rate at `m` states as its own (_DTYPE_AFTER, _DTYPE_BEFORE), or None."""
    after = _DTYPE_AFTER.match(clause, m.end)
    before = _DTYPE_BEFORE.search(clause[max(0, m.start - 40):m.start])
    for found in (after, before):
        dtype = weight_dtype_named(found.group(1)) if found else None
        if dtype:
            return dtype
    return None


def _clause_rates(ln: str, clause: str, dot: bool, compared: set[int], at: int | None = None) -> list[Figure]:
    """The decode rates a clause states, in tok/s, each with the words it was read from where they are more than a
    figure and its unit (figures): not the comparator of a ratio (`compared`: where such figures start in the line),
    the start of a change ("from 50 tok/s to 25"), a negated or retracted figure (the figure a "but" gives instead
    is read in its place); a range stands for its middle. `at`: where the clause starts in the line (else its first
    copy there)."""
    out, at = [], ln.find(clause) if at is None else at
    for m in [*RATE.finditer(clause), *CJK_RATE.finditer(clause)]:
        if at + m.start() in compared or figures.change_start(ln, at + m.start(), at + m.end()):
            continue
        if m.re is CJK_RATE and m.group("words") and _THROUGHPUT_KEY.search(clause[:m.start()]):
            continue
        if figures.negated(clause, m.start()) or figures.RETRACTED.search(clause):
            alt = figures.instead(ln, at + m.end(), dot)
            if alt:  # "not 50 tok/s like the blog says but 20": 20 tok/s, said in the negated figure's clause
                out.append(Figure(m.start(), m.end(), alt.value, ln[at + m.start():alt.end]))
            continue
        value, said = rate_value(m, dot), None
        scale = 1000 if "k" in m.re.groupindex and m.group("k") else 1
        middle = figures.range_middle(ln, at + m.start(), value, dot, scale)  # (the line's: "and" ends a clause)
        mean = figures.spread_mean(ln, at + m.start(), dot, scale)
        if mean is not None:  # "40.96 ± 0.37 t/s": 40.96 t/s, the 0.37 its spread
            value, said = mean, ln[figures.SPREAD_START.search(ln[max(0, at + m.start() - 30):at + m.start()]).start()
                                   + max(0, at + m.start() - 30):at + m.end()].strip()
        elif middle is not None:
            value, said = middle, ln[figures.RANGE_START.search(ln[:at + m.start()]).start():at + m.end()].strip()
        elif value != rate_value(m):
            said = m.group(0)
        # (the end of a stated change: "from 50 tok/s to 25 tok/s" measures 25 now, 50 the figure it is set against)
        out.append(Figure(m.start(), m.end(), value, said, figures.change_from(ln, at + m.start(), dot)))
    return out + figures.token_rates(clause, dot)


# A figure whose unit a comparison leaves out because the clause before gave it, each clause naming its layout ("with 1
# GPU I get 97 tok/s, with 2 GPUs 200", "TP1: 97 t/s, TP2: 200", "at TP=1 it does 97 tok/s, at TP=2 about 120."): the
# bare number that ends the later clause, outside its layout's own count (not a date, a version or a place in a list:
# "with 2 GPUs since 2023", "on build 4012", "in step 3").
_ELIDED = re.compile(r"(?<![\w.,=:/#-])(\d+(?:\.\d+)?)(\s*[.!?)]*\s*)$")
_NO_FIGURE_AFTER = re.compile(r"\b(?:since|in|from|on|of|until|by|build|version|release|step|rank|gpu|cuda|device)\s*$",
                              re.I)


def _layout_named(clause: str) -> list[tuple[int, int]]:
    """Where a clause names a layout (a TP size, a GPU count): the spans, empty when it names none."""
    return [m.span() for m in [*TP.finditer(clause), *CLAUSE_GPUS.finditer(clause)]]


def elided_units(line: str, apart: bool = False) -> str:
    """The line with an elided rate unit written back after the bare figure that ends a later clause, when an earlier
    clause gave a rate with its unit and both name their layout; any other line as it is (a count, a size or a time
    ends a clause with its own unit, and no unit given before means none to carry)."""
    unit = None
    for clause, _ in _clauses(line, apart):
        layout = _layout_named(clause)
        rate = RATE.search(clause)
        if rate and layout:
            unit = unit or clause[rate.start():rate.end()][len(rate.group(1)):]
            continue
        m = _ELIDED.search(clause) if unit and layout else None
        if m and not any(a <= m.start(1) < b for a, b in layout) and not _NO_FIGURE_AFTER.search(clause[:m.start(1)]):
            at = line.find(clause) + m.end(1)
            line = line[:at] + unit + line[at:]
    return line


# (extract30) The phase named right after a rate: "around 95t/s prompt processing and 14t/s generation"
# (ggml-org/llama.cpp#6740), "1,400 tok/s prefill": a prompt-processing rate, not a decode rate.
PROMPT_PHASE_AFTER = re.compile(r"\s*\(?\s*(?:for\s+|in\s+|of\s+|during\s+)?(?:the\s+)?"
                                r"(?:prompt[- ](?:processing|eval\w*|ingestion|reading)|prefill\w*|pp)\b", re.I)


def _prompt_rate(label: str) -> bool:
    """Is the figure after `label` a prompt-processing rate? Its label's last word for a phase names the prompt
    ("prompt: 900 tok/s, generation: 40 tok/s" gives the generation its own; "pp 27K/18.8s 1417t/s · out ... 81t/s")."""
    prompt = [m.start() for m in PROMPT_RATE_LABEL.finditer(label)]
    output = [m.start() for m in OUTPUT_RATE_LABEL.finditer(label)]
    return bool(prompt) and (not output or prompt[-1] > output[-1])


def _column_label(lines: dict[int, str], i: int, ln: str, at: int) -> str:
    """The header of the Markdown table column a figure at `at` of row `ln` (line i) sits in, '' outside a table:
    "| Koboldcpp | 34 tokens/s | 5 tokens/s |" under "| | Prompt processing | Generation |" (LostRuins/koboldcpp#1780)
    gives 34 the label 'Prompt processing'. The header is the row just above the table's |---| line."""
    if not ln.lstrip().startswith("|"):
        return ""
    k = i - 1
    while k in lines and lines[k].lstrip().startswith("|") and not re.fullmatch(r"\s*\|[\s:|-]+\|?\s*", lines[k]):
        k -= 1
    if k not in lines or k - 1 not in lines or not re.fullmatch(r"\s*\|[\s:|-]+\|?\s*", lines[k]):
        return ""
    header = lines[k - 1].strip().strip("|").split("|")
    column = ln[:at].count("|") - (1 if ln.lstrip().startswith("|") else 0)
    return header[column] if 0 <= column < len(header) else ""


def _rates(prose: list[tuple[int, str]], name: str, with_tp: int = 2, apart: bool | None = None,
           dot: bool = False, compared: dict[int, set[int]] | None = None) -> list:
    """'TP=1: 90 tok/s', 'with tensor parallel 2 I get 40 tokens/s, with TP=4 35': a rate with the
    TP (and batch) named in its own clause, else on its line, else in a heading line above it."""
    out = []
    apart = _sets_apart(prose) if apart is None else apart
    compared = compared or {}
    heading: tuple[int, str] | None = None  # "With TP:" above a block of result lines
    lines = dict(prose)
    derived: set[float] = set()  # rates the prose computes
    for i, ln in prose:
        if ln.strip().endswith(":") and len(ln.split()) <= 8:
            heading = (i, ln)
        ln = elided_units(ln, apart)
        line_tps = {_tp_size(t) for t in _run_sizes(ln)}  # (not a size asked about or advised)
        line_batch = _line_batch(ln, RATE, CJK_RATE)
        layout_before = None  # (TP, GPUs) a clause of the sentence names with no figure of its own
        pos = 0  # (s46 final read) each clause at its own offset: two table cells may hold the same words
        for clause, quoted in _clauses(ln, apart):
            at = ln.find(clause, pos)
            at = ln.find(clause) if at < 0 else at
            pos = at + len(clause)
            context = clause if heading is None or i - heading[0] > 6 else f"{heading[1]} {clause}"
            if quoted or HOPED_FIGURE.search(clause):
                # a published, promised or hoped-for figure ("the official table reports 12000 tokens/s"),
                # not measured
                layout_before = None
                continue
            rates = _clause_rates(ln, clause, dot, compared.get(i, set()), at)
            for m in rates:
                # "8 GPUs * 40 tok/s = 320 tok/s": the reporter's arithmetic, not a measured rate, nor its result
                # restated further on
                if figures.computed(clause, m.start) or m.value in derived:
                    derived.add(m.value)
                    continue
                # (a count of prompts is the requests sent, "a batch of 64 prompts: 500 tok/s", not prompt processing)
                # (nor is a prompt's length, "input length 4096: we get 12 tok/s", a prompt-processing rate's label)
                label = PROMPT_COUNT.sub(" ", PROMPT_LEN.sub(" ", clause[:m.start])[-40:].lower())
                # (an aside closed before the figure's own words, "(... even for a prompt like Hi) at a throughput
                # of 0.2 tok/s", is not its label; "throughput (prompt): 500" keeps its own)
                if len(label.rsplit(")", 1)[-1].split()) >= 2:
                    label = label.rsplit(")", 1)[-1]
                if _prompt_rate(label) or _prompt_rate(_column_label(lines, i, ln, at + m.start)) or \
                        PROMPT_PHASE_AFTER.match(clause, m.end):
                    continue  # prompt-processing rate (by its words, or its table column's header): not a decode rate
                tps = [_tp_size(t) for t in _run_sizes(clause)]
                # (known46b) else the layout its table column's header names, one size: "| concurrency | TP=1 | TP=2 |"
                # over "| 1 | 55.4 tok/s | 67.8 tok/s |" (find_string id 68486858239), "| | TP=1 | TP=2 | **TP=4** |"
                # over "| Decode median | 137 tok/s | 186 tok/s | **221 tok/s** |" (id 70078482003), "| 지표 | TP=1 |
                # TP=2 |" over "| Throughput | 562 tok/s | 714 tok/s |" (id 58934885856)
                if not tps and (header := _column_label(lines, i, ln, at + m.start)):
                    tps = list({_tp_size(t) for t in _run_sizes(header)})
                    tps = tps if len(tps) == 1 else []
                # (a clause of the sentence naming a layout and no figure, just before: "with a single GPU, I achieve
                # 29 tokens/s"; it is nearer the figure than a size elsewhere on the line)
                before = None if tps or CLAUSE_GPUS.search(clause) else layout_before
                tp = tps[0] if tps else before[0] if before and before[0] else \
                    (next(iter(line_tps)) if len(line_tps) == 1 else None)
                if tp is None and re.search(r"\b(?:single|one)\s+(?:gpu|card)\b|"
                                            r"\bwithout\s+(?:tensor[- ]parallel\w*|TP)\b", context, re.I):
                    tp = 1
                elif tp is None and re.search(r"\b(?:with|using|employing|enabling)\s+(?:tensor[- ]parallel\w*|TP)\b",
                                              context, re.I):
                    tp = with_tp  # "with TP", its size unsaid: the GPUs the prose names, else 2
                # the GPUs the figure's own clause names before it ("1 GPU: 150 tok/s", "with 2 GPUs 190 tok/s"), else
                # right after it with their preposition ("20 tok/s on 2 GPUs", "~70-75t/s during inference (using just
                # 1x 4090)"), not across a comparison ("20 tok/s, slower than on 1 GPU")
                # (else a heading line above the block: "With 2x RTX 4090:" over a tool's timing line)
                # (not after a share per GPU: "1,200 tok/s per GPU on 8 GPUs" counts what the share is of)
                after = None if PER_GPU.search(clause[m.start:m.end + 20]) else CLAUSE_GPUS.search(clause, m.end)
                own = CLAUSE_GPUS.search(clause[:m.start]) or (
                    after if after and AFTER_FIGURE.fullmatch(clause[m.end:after.start()]) else None)
                n = own or (CLAUSE_GPUS.search(context[:-len(clause)]) if context != clause else None)
                gpus = _count(n.group(1)) if n else before[1] if before else None
                gpus = gpus if gpus and gpus <= 64 else None
                # one GPU said in the figure's own clause ("单卡 48 tokens/s, tp=2 时 70") is its layout, not the line's
                if not tps and ((own and _count(own.group(1)) == 1) or ONE_CARD.search(clause[:m.start])):
                    tp = 1
                tp = 1 if tp is None and gpus == 1 else tp
                b = BATCH.search(clause)
                # (the line's load is not that of a clause about one request: "单请求每秒 9 token，100 并发下 ...")
                c = CONCURRENT.search(clause) or (None if ONE_STREAM.search(clause) else CONCURRENT.search(ln))
                # "1,200 tok/s per GPU", "tokens/s/gpu": a share of the total, not one stream's rate
                per_gpu = PER_GPU.search(clause[m.start:m.end + 20])
                load = _count(next(g for g in c.groups() if g)) if c else None
                batch = int(b.group(1)) if b else line_batch
                one_stream = PER_STREAM.match(clause, m.end) or STREAM_BEFORE.search(clause[:m.start])
                if batch is None and load and one_stream:
                    batch = load  # "25 tok/s per user at 16 users": one stream's rate in a decode batch of 16
                # "total throughput at batch 64 is 2500 tok/s", "2500 tok/s aggregate": every stream's output together
                total = (TOTAL_RATE.search(clause[:m.start]) or TOTAL_RATE_AFTER.match(clause, m.end)
                         or CJK_TOTAL.search(clause[:m.start]))
                metric = "output_tok_s_per_gpu" if per_gpu else "output_tok_s" if total else "decode_tok_s"
                # a rate of prompt and generated tokens together, "total token throughput: 194.85 tokens/s"
                # (lmdeploy#1449), "token throughput (prompt + completion token)": no decode rate
                if not per_gpu and PROMPT_AND_OUTPUT.search(label):
                    metric, total = "total_tok_s", True
                scope = "aggregate" if total else "per_stream" if one_stream else None  # as the reporter says it
                out.append(Measurement(where(name, i), metric, m.value, "tok/s", stat="reported", tp=tp,
                                       batch=batch, concurrency=load, gpus=gpus, gpu_name=clause_gpu(clause, ln),
                                       model=clause_model(clause, ln), said=m.said, scope=scope,
                                       dtype=_figure_dtype(clause, m), reference=m.reference))
            sizes, counted = _run_sizes(clause), CLAUSE_GPUS.search(clause)
            layout_before = None if rates or SENTENCE_END.search(clause) else (
                (_tp_size(sizes[0]) if sizes else None, _count(counted.group(1)) if counted else None)
                if (sizes or counted) and LAYOUT_CONDITION.search(clause) else layout_before)
    return out


def _relative_rates(prose: list[tuple[int, str]], name: str, dot: bool = False) -> tuple[list, dict[int, set[int]]]:
    """Rates said relative to another ("3x slower than a colleague's box, which does 90 tok/s", "30 % slower than the
    100 tok/s of last month", "only 1.3x faster than one GPU" after "one GPU gives 50 tok/s"): the reference times
    the factor (figures.relative), with the layout, GPU and model the phrase's own clause names. The reference is the
    first rate after the phrase in its sentence, else the last before it, else the last of the sentence before; one
    after the phrase is a comparator, not measured here ({line: where it starts}), unless its words name a layout."""
    out, compared, last = [], {}, None
    for i, ln in prose:
        at = 0
        for sentence in sentences(ln):
            at = ln.find(sentence, at)
            rates, c_at = [], at  # (each clause at its own offset)
            for c, _ in _clauses(sentence):
                c_at = max(ln.find(c, c_at), 0)
                rates += [(c_at + r.start, c_at + r.end, r.value, r.said, r.reference)
                          for r in _clause_rates(ln, c, dot, set(), c_at)]
                c_at += len(c)
            for m, factor in figures.relative(sentence):
                lead = re.split(r"[,;:]\s", sentence[:m.start()])[-1]
                if HOPED_FIGURE.search(lead + m.group(0)) or REFERENCE_FIGURE.search(lead) or figures.negated(
                        sentence, m.start()):
                    continue
                after = [r for r in rates if r[0] >= at + m.end()]
                before = [r for r in rates if r[1] <= at + m.start()]
                ref = after[0] if after else before[-1] if before else last
                # (the size of a change the sentence states in full is no new figure: "40% slower (from 38.1 tok/s to
                # 22.9 tok/s)", "dropped from 50 to 25 tok/s, 2x slower")
                if ref is not last and ref is not None and ref[4] is not None:
                    continue
                # (a sentence stating the measured figure itself only compares two stated figures: "4 times slower:
                # 52 ms per token where the page shows 47 tok/s")
                if ref is None or len(rates) > 1 or any(p.search(sentence) for p in (MS_PER_TOKEN, LATENCY)) \
                        or figures.token_times(sentence):
                    continue
                if after and not TP.search(ln[at + m.end():ref[1]]):
                    compared.setdefault(i, set()).add(ref[0])
                tps = [_tp_size(t) for t in TP.finditer(lead)]
                # (the words from the phrase to its reference where it follows, else the phrase and the reference)
                said = ln[at + m.start():ref[1]] if after else f"{m.group(0)} {ref[3] or ln[ref[0]:ref[1]]}"
                # (a share per GPU compared stays one: "+35% higher throughput/GPU ... (145.1 vs 107.4 tok/s/GPU)")
                per_gpu = PER_GPU.search(lead + m.group(0)) or PER_GPU.search(ln[ref[1]:ref[1] + 20])
                out.append(Measurement(where(name, i), "output_tok_s_per_gpu" if per_gpu else "decode_tok_s",
                                       round(ref[2] * factor, 3), "tok/s",
                                       stat="reported", tp=tps[0] if tps else None, gpu_name=clause_gpu(lead, ln),
                                       model=clause_model(lead, ln), said=said))
            last = rates[-1] if rates else last
            at += len(sentence)
    return out, compared


# Decode rates as local engines print them, one stream each (prompt processing lines are not decode; llama-server
# prints its timings per slot, one request each: scope "per_stream"):
# - `ollama run --verbose`: "eval rate:            8.69 tokens/s" (after "prompt eval rate: ...");
# - llama.cpp's timings: "eval time = 58900.00 ms / 511 runs ( 115.26 ms per token, 8.68 tokens per second)";
# - llama-bench's table: "| llama 8B Q4_K - Medium | ... | tg128 | 126.44 ± 0.38 |" (pp512 rows are prompt).
# https://github.com/ollama/ollama/blob/main/docs/cli.md, https://github.com/ggml-org/llama.cpp/tree/master/tools/llama-bench
LLAMA_BENCH_TG = re.compile(r"\|\s*tg\d+\s*\|\s*(\d+(?:\.\d+)?)\s*(?:±|\+/-)", re.I)
TIMING_LINES = (
    re.compile(r"^\s*eval rate:\s*(\d+(?:\.\d+)?)\s*tokens?/s", re.I),
    re.compile(r"\beval time\s*=.*?\(\s*[\d.]+\s*ms per token,\s*"
               r"(\d+(?:\.\d+)?)\s*tokens? per second", re.I),
    LLAMA_BENCH_TG,
)
# llama-server prints the same lines per request, under a header naming its slot and task ("slot print_timing: id  0
# | task 12 |" on the line before since 2024; older builds "print_timings] prompt eval time = ... id_slot=0 id_task=3",
# https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-context.cpp, server_slot::print_timings): one
# request's rates while the server's other slots may be decoding. How many slots it runs is what its launch says
# ("-np 4", "--parallel 4") or its log ("initializing slots, n_slots = 4"); else the load is unknown, never 1.
SLOT_TIMING = re.compile(r"\bslot\s+print_timing:\s*id\s+\d+\s*\|\s*task\s+-?\d+|"
                         r"\bprint_timings\b.*\bid_slot\W{0,2}\d", re.I)
# ... and, while a request decodes, every ~3 s its running count and mean ("slot print_timing: id  3 | task 0 |
# n_decoded =   1081, tg =  12.93 t/s", later "n_gen =" and a last-3-s rate ", tg_3s = 12.57 t/s" after it;
# https://github.com/ggml-org/llama.cpp/issues/25121). `tg` is the request's mean since its first token, so its last
# line is that request's decode rate so far; tg_3s swings (a window of a few tokens) and is not read.
SLOT_PROGRESS = re.compile(r"\bslot\s+print_timing:\s*id\s+(\d+)\s*\|\s*task\s+(-?\d+)\s*\|\s*"
                           r"n_(?:decoded|gen)\s*=\s*(\d+),\s*tg\s*=\s*(\d+(?:\.\d+)?)\s*t/s", re.I)
SLOT_TASK = re.compile(r"\bslot\s+print_timing:\s*id\s+(\d+)\s*\|\s*task\s+(-?\d+)|"
                       r"\bid_slot\W{0,2}(\d+)\W+id_task\W{0,2}(-?\d+)")
# ... said in prose, the long flag only (mpirun's -np is a process count); not CMake's `cmake --build . --parallel 8`,
# the build's jobs, nor make's.
PROSE_SLOTS = re.compile(r"(?<![\w-])--parallel[ =](\d{1,4})\b")
BUILD_LINE = re.compile(r"\b(?:c?make|ninja|mpirun|mpiexec|pip|uv)\b|--build\b", re.I)
SLOT_COUNT = re.compile(r"(?<![\w-])(?:-np|--parallel)(?:\s+|=)(\d{1,4})\b|\bn_slots\s*[=:]\s*(\d{1,4})\b")
SERVER_LAUNCH = re.compile(r"\bllama[-_]server\b|(?:^|[\s/])server(?:\.exe)?\s+-", re.I)
# llama.cpp's timing block prints one line per phase ("llama_print_timings: load time = ...", "sample time = ... ( 0.03
# ms per token, 31565.97 tokens per second)", "prompt eval time", "eval time", "total time"; since 2024
# "llama_perf_sampler_print: sampling time = ...", https://github.com/ggml-org/llama.cpp/blob/master/src/llama-context.cpp
# llama_perf_context_print): output wherever it is pasted, a quote or bare prose too, and only its eval line is decode.
# The prose reader keeps that line (with the GPUs a line above names, "With 2x RTX 4090:"); the others are no rate
# of the reporter's, and a prompt eval line is the prompt's (_timing_lines reads it as a block's).
LLAMA_TIMING = re.compile(r"\b(?:load|sampl(?:e|ing)|prompt eval|eval|total) time\s*=\s*[\d.]+\s*ms\b", re.I)
DECODE_TIMING = re.compile(r"(?<!prompt )\beval time\s*=", re.I)
# (hostbound36) ... and the sampler's line: "sample time = 11775.43 ms / 151 runs ( 77.98 ms per token, ...)", since
# 2024 "llama_perf_sampler_print: sampling time = ..." (the time per token the sampler chain took on the CPU)
SAMPLE_TIMING = re.compile(r"\bsampl(?:e|ing) time\s*=\s*[\d.]+\s*ms\s*/\s*(\d+)\s*(?:runs?|tokens?)\s*\(\s*"
                           r"(\d+(?:\.\d+)?)\s*ms per token", re.I)
PROMPT_TIMING = re.compile(r"\bprompt eval time\s*=.*?\(\s*[\d.]+\s*ms per token,\s*"
                           r"(\d+(?:\.\d+)?)\s*tokens? per second", re.I)
# ... and end to end, the prompt's processing in it: ExLlamaV2's examples print "Response generated in 8.56 seconds,
# 1024 tokens, 119.64 tokens/second" (https://github.com/turboderp/exllamav2/tree/master/examples), a rate read with
# a prose figure's slack.
END_TO_END_LINES = (
    re.compile(r"\bResponse generated in\s*[\d.]+\s*seconds?,\s*\d+\s*tokens?,\s*(\d+(?:\.\d+)?)\s*tokens?/s", re.I),
)


# ExLlamaV2's test_inference.py -s ("-- Measuring token speed..."): one sequence decoding a token at a time from
# position p, "** Position     1 + 127 tokens:    1.1905 t/s"; the first line of a run is the shortest context
# (https://github.com/turboderp/exllamav2, test_inference.py, args.speed). ExLlama's test_benchmark_inference.py prints
# "** Speed: N tokens/second" under the pass it timed: "-- Generating 128 tokens, 1920 token prompt..." is decode,
# "-- Inference, first pass." is the whole prompt in one forward pass, a prefill rate (https://github.com/turboderp/
# exllama, test_benchmark_inference.py; pasted in turboderp/exllama#29, #275).
EXL2_POSITION = re.compile(r"\*\*\s*Position\s+\d+\s*\+\s*\d+\s*tokens?:\s*(\d+(?:\.\d+)?)\s*t/s", re.I)
EXLLAMA_SPEED = re.compile(r"\*\*\s*Speed:\s*(\d+(?:\.\d+)?)\s*tokens?/s(?:ec(?:ond)?)?\b", re.I)
EXLLAMA_PASS = re.compile(r"^\s*--\s*(?P<decode>Generating\s+\d+\s+tokens?)|^\s*--\s*(?P<prompt>Inference,?\s+first "
                          r"pass)|^\s*--\s", re.I)
# llama.cpp's llama-batched-bench prints its units only in the header ("| PP | TG | B | N_KV | T_PP s | S_PP t/s |
# T_TG s | S_TG t/s | T s | S t/s |"): S_TG is every sequence's generated tokens over the generation time, so at B
# sequences it is the total of B streams; at B = 1 it is one stream's decode rate. llama-sweep-bench (ik_llama.cpp)
# prints the same columns without B, one sequence at a growing context N_KV, its first row the shortest
# (https://github.com/ggml-org/llama.cpp/tree/master/tools/batched-bench, README; llama.cpp#3545).
BENCH_HEADER = re.compile(r"^\s*\|.*\bS_TG\s+t/s\s*\|", re.I)


def _exllama_lines(code_lines: list[tuple[int, str]], name: str) -> list:
    """The rates ExLlamaV2's speed test and ExLlama's benchmark print (EXL2_POSITION, EXLLAMA_SPEED), each with the
    scope its pass gives: one stream's decode, or the prompt's prefill; a speed under no named pass is not read."""
    out, run, phase = [], False, None
    for i, ln in sorted(code_lines):
        if (m := EXL2_POSITION.search(ln)) is not None:
            if not run:  # a run's first line: the shortest context
                out.append(Measurement(where(name, i), "decode_tok_s", float(m.group(1)), "tok/s", stat="mean",
                                       scope="per_stream", batch=1, concurrency=1))
            run = True
            continue
        run = False
        if (p := EXLLAMA_PASS.search(ln)) is not None:
            phase = "decode" if p.group("decode") else "prompt" if p.group("prompt") else None
        elif (m := EXLLAMA_SPEED.search(ln)) is not None and phase:
            metric = "decode_tok_s" if phase == "decode" else "prefill_tok_s"
            out.append(Measurement(where(name, i), metric, float(m.group(1)), "tok/s", stat="mean", scope="per_stream",
                                   batch=1, concurrency=1))
    return out


def _batched_bench(lines: list[tuple[int, str]], name: str) -> list:
    """The generation rates of llama-batched-bench's and llama-sweep-bench's tables (BENCH_HEADER), the unit and scope
    from the header: per batch B its first row, B = 1 one stream's decode rate, B > 1 the total of B streams; without
    a B column the first row, one stream's. The prompt's S_PP is read where one sequence ran."""
    out, cols, seen, last = [], None, set(), None
    for i, ln in sorted(dict(lines).items()):
        if BENCH_HEADER.match(ln):
            cols, seen, last = [c.strip().upper() for c in ln.strip().strip("|").split("|")], set(), i
            continue
        if cols is None or i != last + 1 or not ln.lstrip().startswith("|"):
            cols = None
            continue
        last = i
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if len(cells) != len(cols) or not all(re.fullmatch(r"\d+(?:\.\d+)?", c) for c in cells):
            continue  # the rule under the header, or a row of another shape
        row = dict(zip(cols, cells))
        b = int(row["B"]) if "B" in row else 1
        if b in seen or "S_TG T/S" not in row:
            continue
        seen.add(b)
        src = where(name, i)
        if b == 1:
            out.append(Measurement(src, "decode_tok_s", float(row["S_TG T/S"]), "tok/s", stat="mean",
                                   scope="per_stream", batch=1, concurrency=1))
            if "S_PP T/S" in row:
                out.append(Measurement(src, "prefill_tok_s", float(row["S_PP T/S"]), "tok/s", stat="mean",
                                       scope="per_stream", batch=1, concurrency=1))
        else:
            out.append(Measurement(src, "output_tok_s", float(row["S_TG T/S"]), "tok/s", stat="mean",
                                   scope="aggregate", batch=b, concurrency=b))
    return out


# The weights' type llama.cpp prints for the file it loaded ("model ftype = Q4_0", "file type = Q4_K - Medium"), and
# llama-bench's model column ("llama 8B Q4_K - Medium"): the quantisation the rates above ran with.
GGUF_TYPE = re.compile(r"\b(?:model\s+ftype|file\s+type|ftype)\s*=\s*([A-Za-z0-9_]+)|"
                       r"^\s*\|\s*[\w.-]+\s+[\d.]+[BbMm](?:\.A[\d.]+B)?\s+((?:I?Q\d\w*|F16|BF16|F32)\b)")


# llama-bench's model cell is llama.cpp's model description, "<architecture> <size> <weight type>" ("llama 13B Q4_K -
# Medium", "qwen3moe 30B.A3B Q4_K - Medium": a mixture's total and active sizes), and its params column the exact
# parameter count ("13.02 B"): https://github.com/ggml-org/llama.cpp/blob/master/src/llama-model.cpp (llama_model_desc).
BENCH_MODEL = re.compile(r"^\s*\|\s*([a-z][\w-]*?)\s+(\d+(?:\.\d+)?)B(?:\.A(\d+(?:\.\d+)?)B)?\s+"
                         r"(?:I?Q\d\w*|F16|BF16|F32|MXFP4)\b[^|]*\|"
                         r"(?:\s*[\d.]+\s*[GM]iB\s*\|\s*(\d+(?:\.\d+)?)\s*B\s*\|)?", re.I)


def _bench_model(line: str) -> str | None:
    """The model a llama-bench row ran, as a name the catalog can place: a mixture by its architecture and both sizes
    ("qwen3-30B-A3B"); a dense model by its architecture and its parameter count to a tenth ("llama 13.0B", which
    tells Llama 2 7B's 6.74 B from Mistral 7B's 7.24 B that both print as "llama 7B")."""
    m = BENCH_MODEL.match(line)
    if not m:
        return None
    arch, size, active, params = m.groups()
    if active:
        return f"{re.sub(r'moe$', '', arch, flags=re.I)}-{size}B-A{active}B"
    return f"{arch} {float(params):.1f}B" if params else f"{arch} {size}B"


# A pasted script that sends its prompts one at a time: a `for` statement over the items whose body passes the loop's
# item (or a name made from it in the body) to a generation call, each call waiting for its answer before the next
# ("for data in my_dataset: llm.generate(data, ...)", vllm-project/vllm#216; "for prompt in prompts: r =
# requests.post(url, json={'prompt': prompt})"). The engine then decodes one sequence at a time whatever batch it
# could hold: continuous batching, the point of a serving engine, never starts (vLLM's docs: pass all prompts to one
# generate() call; the offline LLM class batches them itself). Not a loop over batches ("for batch in ...", "for chunk
# in batched(...)", a DataLoader, a range stepping by a batch size), a loop whose item the call never gets ("for _ in
# range(10): model.generate(inputs)", repeated calls of one input: a warm-up or a timing loop), nor requests built in a
# comprehension and awaited together (asyncio.gather), which reach the server at once.
_FOR_ITEM = re.compile(r"^(\s*)for\s+([A-Za-z_]\w*)\s+in\s+(.+?):\s*(?:#.*)?$")
_BATCHED_LOOP = re.compile(r"batch|chunk|shard|group|loader|\brange\s*\(\s*\w+\s*,\s*[^,)]+,\s*[^)]+\)", re.I)
_GENERATION_CALL = re.compile(r"(?:\.(?:generate|chat|completion|(?:chat\.)?completions\.create|messages\.create|"
                              r"invoke|predict|infer)|\brequests\.post|\bclient\.post|\bcurl)\s*\(")
_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)(.*)$")
# A call handed to a task, a thread or a pool inside the loop runs beside the others (asyncio.create_task, submit):
# the loop only starts them.
_CONCURRENT_WRAP = re.compile(r"\b(?:create_task|ensure_future|submit|apply_async|Thread|Process|gather)\s*\(|"
                              r"\.append\s*\(", re.I)


# The arguments of a generation call that carry its prompt: the first positional one (llm.generate(data, ...),
# model.generate(input_ids, ...), model.generate(**inputs, ...)) or a keyword naming the input (prompt=, messages=,
# input_ids=, json= of an HTTP post). A loop's item that reaches only a sampling parameter (SamplingParams(logits_k=k),
# max_tokens=n) or a slice bound (prompts[:n]) sweeps a setting over the same prompts: no one-request-per-item loop.
_PROMPT_KEYWORD = re.compile(r"^(?:prompts?|messages|inputs?|input_ids|text|texts|json|data|content|contents|"
                             r"query|question|inputs_embeds)\s*=(?!=)", re.I)
_SLICE = re.compile(r"\[[^\[\]]*:[^\[\]]*\]")


def _prompt_args(args: str) -> str:
    """The text of the prompt-carrying arguments of a call whose argument list starts `args` (up to its closing
    parenthesis on the line), slices removed."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(args[start:i])
            start = i + 1
    else:
        i = len(args)
    parts.append(args[start:i])
    keep = [p for k, p in enumerate(parts) if (k == 0 and not re.match(r"\s*\w+\s*=(?!=)", p))
            or _PROMPT_KEYWORD.match(p.strip())]
    return _SLICE.sub("[]", " ".join(keep))


def _looped_requests(code: list[tuple[int, str]], name: str) -> list:
    """A Workload of batch 1 where a pasted block sends one item per generation call in a loop, with the loop line
    and the call as its words (extra["one_call_per_item"]); [] where none does."""
    for start, body in code:
        lines = body.splitlines()
        for k, line in enumerate(lines):
            m = _FOR_ITEM.match(line)
            if not m or _BATCHED_LOOP.search(m.group(2) + " " + m.group(3)):
                continue
            indent, names = len(m.group(1)), {m.group(2)}
            for inner in lines[k + 1:]:
                if inner.strip() and len(inner) - len(inner.lstrip()) <= indent:
                    break  # the loop's body ends where the indentation returns
                code_part = inner.split("#", 1)[0]
                made = _ASSIGNED.match(code_part)
                if made and any(re.search(rf"\b{re.escape(n)}\b", made.group(2)) for n in names):
                    names.add(made.group(1))  # input_ids = tokenizer(data)["input_ids"]
                call = _GENERATION_CALL.search(code_part)
                if call and _CONCURRENT_WRAP.search(code_part[:call.start()]):
                    continue  # tasks.append(asyncio.create_task(client.completions.create(...))): sent together
                if call and any(re.search(rf"\b{re.escape(n)}\b", _prompt_args(code_part[call.end():]))
                                for n in names):
                    return [Workload(where(name, start + k), batch=1,
                                     extra={"one_call_per_item": f"{line.strip()} {inner.strip()}"})]
    return []


# A pasted script that hands one offline generation call one prompt string: one sequence. A string tokenized alone is
# a batch of one row, and generate decodes one sequence per row (https://huggingface.co/docs/transformers/llm_tutorial:
# `model_inputs = tokenizer(["A list of colors: red, blue"], return_tensors="pt")`, a list of one); vLLM's
# LLM.generate takes "a single prompt" or a list (https://docs.vllm.ai/en/latest/api/vllm/entrypoints/llm.html). Not
# where the tokens are repeated into more rows (.repeat, .expand), nor with sampled or beam-searched siblings
# (num_return_sequences, num_beams, n=), which decode several sequences together.
# (extract35) also the one conversation a chat template renders (`text = tokenizer.apply_chat_template(messages, ...)`:
# one prompt, a string with tokenize=False, https://huggingface.co/docs/transformers/main/en/chat_templating), and a
# list of that one prompt handed to the call, `llm.generate([text], ...)`
_STRING_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(?:[fFrRbB]?(?:\"|')|"
                              r"(?:[\w.]+\.)?apply_chat_template\s*\(\s*(?:$|(?:conversation\s*=\s*)?[A-Za-z_]\w*\s*(?:,|\)|$)))")
_TOKENIZED = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(?:[\w.]+\.)?(?:tokenizer|tok|processor)(?:\.encode)?\s*\(\s*"
                        r"(?:text\s*=\s*)?([A-Za-z_]\w*|[fFrR]?[\"']|\[\s*[fFrR]?(?P<q>[\"'])[^\"']*(?P=q)\s*\])")
_FIRST_ARG = re.compile(r"\s*(?:\*\*)?(?:\w+\s*=\s*)?(?:\[\s*(?=[A-Za-z_]\w*\s*\](?!\s*\*)))?"
                        r"([A-Za-z_]\w*|[fFrR]?[\"'])")
_MORE_ROWS = re.compile(r"\.(?:repeat|expand|repeat_interleave)\s*\(|\bnum_return_sequences\s*=\s*(?!1\b)\d|"
                        r"\bnum_beams\s*=\s*(?!1\b)\d|\bn\s*=\s*(?!1\b)\d|\bbest_of\s*=")


def _one_prompt_call(code: list[tuple[int, str]], name: str) -> list:
    """A Workload with extra["program"] "one prompt string" where a pasted block hands one generation call
    (_OFFLINE_CALL) one prompt string or its tokens (_STRING_ASSIGNED, _TOKENIZED); [] where none does, or where the
    block makes more rows of it (_MORE_ROWS)."""
    for start, body in code:
        if _MORE_ROWS.search(body):
            continue
        strings: set[str] = set()
        for k, line in enumerate(body.splitlines()):
            code_part = line.split("#", 1)[0]
            if (m := _STRING_ASSIGNED.match(code_part)):
                strings.add(m.group(1))
                continue
            if (m := _TOKENIZED.match(code_part)):
                if m.group(2) in strings or m.group(2)[-1] in "\"']":  # a name, a literal, a list of one literal
                    strings.add(m.group(1))
                continue
            call = _OFFLINE_CALL.search(code_part)
            if call is None or _CONCURRENT_WRAP.search(code_part[:call.start()]):
                continue
            head = _FIRST_ARG.match(_prompt_args(code_part[call.end():]))
            if head and (head.group(1) in strings or head.group(1)[-1] in "\"'"):
                return [Workload(where(name, start + k), extra={"program": "one prompt string"})]
    return []


# A pasted script that hands one generation call a list of N prompts: the offline engines batch them themselves (vLLM's
# LLM.generate and SGLang's Engine.generate take a list and schedule it with continuous batching, as many at once as
# the KV cache and --max-num-seqs allow, https://docs.vllm.ai/en/latest/serving/offline_inference.html; Hugging Face
# generate pads a tokenized list into one batch), so the rate the script prints is N prompts' total, not one stream's
# (QwenLM/Qwen3#244: `query_list = ["1" * 1000] * 100` then llm.generate(query_list, ...)). The list's size is read
# where it is written: a literal repeated (`[p] * 100`, `prompts * 100`), or a comprehension over range(100); a name
# made from it (inputs = tokenizer(prompts, ...)) carries the size, an element of it (prompts[0]) or a slice does not.
# Not a list that never reaches a generation call (a training batch, `[0] * 100`), nor one sent item by item in a loop
# (_looped_requests). Where the paste ends before any call, a list named for prompts in a block that makes an offline
# engine (LLM(...)) is the one it was made for.
_REPEATED = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(\[.*\]|[A-Za-z_]\w*)\s*\*\s*(\d{1,6})\s*(?:#.*)?$")
_RANGED = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*\[.+\bfor\s+\w+\s+in\s+range\s*\(\s*(\d{1,6})\s*\)\s*\]\s*(?:#.*)?$")
_INLINE = re.compile(r"(?:^|[(\s,=])(\[.*\]|[A-Za-z_]\w*)\s*\*\s*(\d{1,6})\b")
_OFFLINE_CALL = re.compile(r"\.(?:async_)?(?:generate|chat)\s*\(")
# (a list literal written over several lines: `prompts = [` ... `] * 1000`, sgl-project/sglang#4076)
_LIST_OPENS = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*\[\s*$")
_LIST_REPEATED = re.compile(r"^\s*\]\s*\*\s*(\d{1,6})\s*$")
# (where the paste ends before the call: a list named for prompts, beside vLLM's LLM(...) or SGLang's Engine(...))
_PROMPT_LIST = re.compile(r"prompt|quer|question|input|text|message", re.I)
_OFFLINE_ENGINE = re.compile(r"(?<![\w.])(?:LLM|sgl\.Engine|Engine)\s*\(")


def _prompts_in_one_call(code: list[tuple[int, str]], name: str) -> list:
    """A Workload with extra["num_prompts"] (and the call as extra["prompts_in_call"]) where a pasted block passes a
    list of at least two prompts to one generation call; [] where none does."""
    for start, body in code:
        sizes: dict[str, int] = {}
        opened = None  # the name a list literal left open on an earlier line is assigned to
        for k, line in enumerate(body.splitlines()):
            code_part = line.split("#", 1)[0]
            if (m := _LIST_OPENS.match(code_part)):
                opened = m.group(1)
                continue
            if opened and (m := _LIST_REPEATED.match(code_part)):
                sizes[opened], opened = int(m.group(1)), None
                continue
            if code_part.strip() == "]":  # (the list closed unrepeated: its size is not written)
                opened = None
            if (m := _REPEATED.match(code_part)):
                base = sizes.get(m.group(2), 1 if m.group(2).startswith("[") else 0)
                if base:  # (a list literal counts its one element; a name repeated only if its size is known)
                    sizes[m.group(1)] = base * int(m.group(3))
                continue
            if (m := _RANGED.match(code_part)):
                sizes[m.group(1)] = int(m.group(2))
                continue
            call = _OFFLINE_CALL.search(code_part)
            if call is None:
                made = _ASSIGNED.match(code_part)
                if made and not _SLICE.search(made.group(2)) and not re.search(r"\w\s*\[", made.group(2)):
                    known = [n for n in sizes if re.search(rf"\b{re.escape(n)}\b", made.group(2))]
                    if len(known) == 1:  # inputs = tokenizer(prompts, padding=True, return_tensors="pt")
                        sizes[made.group(1)] = sizes[known[0]]
                continue
            args = _prompt_args(code_part[call.end():])
            inline = _INLINE.search(args)
            n = 0
            if inline and (inline.group(1).startswith("[") or inline.group(1) in sizes):
                n = sizes.get(inline.group(1), 1) * int(inline.group(2))
            else:
                head = re.match(r"\s*(?:\*\*)?(?:\w+\s*=\s*)?([A-Za-z_]\w*)\s*$", args.split(",")[0])
                n = sizes.get(head.group(1), 0) if head else 0
            if n >= 2:
                return [Workload(where(name, start + k), extra={"num_prompts": str(n),
                                                                "prompts_in_call": line.strip()})]
        # the paste cut off before its call: a prompt list built in a block that makes an offline engine
        made = [(n, size) for n, size in sizes.items() if _PROMPT_LIST.search(n) and size >= 2]
        if len(made) == 1 and _OFFLINE_ENGINE.search(body) and not _OFFLINE_CALL.search(body):
            k = next(k for k, ln in enumerate(body.splitlines()) if re.match(rf"\s*{made[0][0]}\s*=", ln))
            return [Workload(where(name, start + k), extra={"num_prompts": str(made[0][1]),
                                                            "prompts_in_call": body.splitlines()[k].strip()})]
    return []


# The programs that run one sequence per request or test, by their documentation; the load is the rules' reading
# (rules.stated_load.program_load), recorded here as the program pasted (extra["program"]):
# - llama.cpp's llama-bench: its pp/tg tests decode one sequence, -b / -ub chunk the prompt (the multi-sequence tool is
#   llama-batched-bench), https://github.com/ggml-org/llama.cpp/tree/master/tools/llama-bench; its command or its
#   table header ("| model | size | params | backend | ... | test | t/s |");
# - llama.cpp's llama-cli (earlier `main`): one prompt, one sequence, https://github.com/ggml-org/llama.cpp/tree/master/
#   tools/main;
# - `ollama run`: the CLI's one chat, one request at a time, `--verbose` printing that request's "prompt eval rate" and
#   "eval rate", https://github.com/ollama/ollama/blob/main/docs/cli.md;
# - text-generation-webui's "Output generated in S seconds (R tokens/s, N tokens, context C, seed X)": one request's
#   end-to-end rate (modules/text_generation.py, https://github.com/oobabooga/text-generation-webui).
# - gpt-fast's generate.py (`python generate.py --checkpoint_path .../model.pth --prompt ...`) and torchchat's
#   `torchchat.py generate`, its descendant: one prompt, --batch_size sequences, 1 by default (gpt-fast generate.py's
#   argparse: `--batch_size ... default=1`, https://github.com/meta-pytorch/gpt-fast/blob/main/generate.py; "the
#   benchmarks here are all run with BS=1", its maintainer in meta-pytorch/gpt-fast#27), printing "Time for
#   inference N: S sec total, [T tokens, ]R tokens/sec" per sample (pytorch/torchchat#721, #783, #852). Not where a
#   batch above one is set or printed (`--batch_size 128`, "Batch Size: 4": pytorch/ao#2273's fork): PROGRAM_UNLESS.
# A server (llama-server, `ollama serve`, vLLM) is none of these: its load is whatever its clients send.
_PROGRAM_START = r"(?:^|[\s/\\$>`\"'(])"  # a program's name starts a line, a path, a prompt, a quote or a code span
PROGRAMS = (
    ("llama-bench", re.compile(_PROGRAM_START + r"llama-bench(?:\.exe)?\s+-|"
                               r"^\s*\|\s*model\s*\|\s*size\s*\|\s*params\s*\|\s*backend\s*\|.*\|\s*test\s*\|\s*t/s\s*\|")),
    ("llama-cli", re.compile(_PROGRAM_START + r"(?:llama-cli|(?<=[/\\])main)(?:\.exe)?\s+(?!--version|--help|-h\b)-")),
    ("ollama run", re.compile(_PROGRAM_START + r"ollama\s+run\s+[\w.:/-]+|^\s*eval rate:\s*[\d.]+\s*tokens?/s", re.I)),
    ("text-generation-webui", re.compile(r"\bOutput generated in \d+(?:\.\d+)? seconds \(\d+(?:\.\d+)? tokens/s, "
                                         r"\d+ tokens\b")),
    ("gpt-fast generate.py", re.compile(_PROGRAM_START + r"(?:generate\.py\s[^\n]*?--checkpoint_path\b|"
                                        r"torchchat\.py\s+generate\b)|"
                                        r"^\s*Time for inference \d+: \d+(?:\.\d+)? sec total, (?:\d+ tokens, )?"
                                        r"\d+(?:\.\d+)? tokens/sec\b")),
)
# A batch above one set or printed beside a program that otherwise runs one sequence: not one sequence.
PROGRAM_UNLESS = {"gpt-fast generate.py": re.compile(r"--batch[_-]size[= ]\s{0,3}(?!1\b)\d|"
                                                     r"\bBatch Size:\s{0,3}(?!1\b)\d", re.I)}


# A program named after a denial on its line ("I don't use ollama run", "instead of llama-cli -m ...") did not run.
PROGRAM_DENIED = re.compile(r"\b(?:not|never|without|instead\s+of|rather\s+than)\b|n't\b", re.I)


def _programs(lines: list[tuple[int, str]], name: str) -> list:
    """One Workload per documented one-sequence program (PROGRAMS) whose command or own output is pasted or written,
    at its first line, with the program in extra["program"]: which program ran, not yet a batch."""
    out = []
    for program, pattern in PROGRAMS:
        unless = PROGRAM_UNLESS.get(program)
        if unless is not None and any(unless.search(ln) for _, ln in lines):
            continue
        first = next((i for i, ln in lines if (m := pattern.search(ln)) and not PROGRAM_DENIED.search(ln[:m.start()])),
                     None)
        if first is not None:
            out.append(Workload(where(name, first), extra={"program": program}))
    return out


def _timing_lines(code_lines: list[tuple[int, str]], name: str) -> list:
    """The decode rate each pasted engine timing line states (TIMING_LINES; prompt eval lines skipped): measured by
    the tool, so judged as is;
    and the GGUF weight type the same output names (GGUF_TYPE), which the rate ran with."""
    out = []
    dtypes = [(i, m.group(1) or m.group(2)) for i, ln in code_lines if (m := GGUF_TYPE.search(ln))]
    if dtypes:
        i, kind = dtypes[0]
        dtype = quant_dtype(kind) or ("fp16" if kind.upper() in ("F16", "BF16") else None)
        if dtype:
            out.append(Workload(where(name, i), dtype=dtype))
    models = [(i, model) for i, ln in code_lines if (model := _bench_model(ln))]
    if models:
        out.append(Workload(where(name, models[0][0]), model=models[0][1]))
    slots = _slot_count(code_lines)
    in_slot = False  # under a llama-server slot header: the timing lines that follow are that slot's
    task, closed = None, set()  # the slot and task of that header; the tasks whose final timings are pasted
    for i, ln in code_lines:
        in_slot = bool(SLOT_TIMING.search(ln)) or (in_slot and bool(re.search(r"\b(?:eval|total) time\s*=", ln)))
        if (h := SLOT_TASK.search(ln)) is not None:
            task = (h.group(1) or h.group(3), h.group(2) or h.group(4))
        load = slots if in_slot else None
        if in_slot and task and DECODE_TIMING.search(ln):
            closed.add(task)
        if (m := PROMPT_TIMING.search(ln)) is not None:  # the prompt's processing: one request's prefill rate
            out.append(Measurement(where(name, i), "prefill_tok_s", float(m.group(1)), "tok/s", stat="mean",
                                   scope="per_stream", concurrency=load))
            continue
        if re.search(r"\bprompt[ _]eval\b", ln, re.I):
            continue
        if (m := SAMPLE_TIMING.search(ln)) is not None:  # the sampler's time per token, on the CPU after each pass
            out.append(Measurement(where(name, i), "sample_ms", float(m.group(2)), "ms", stat="mean",
                                   scope="per_stream", concurrency=load, count=int(m.group(1))))
            continue
        for pattern in TIMING_LINES + END_TO_END_LINES:
            m = pattern.search(ln)
            if m:
                # the tool timed decode alone (no prompt, no HTTP turn): a mean, judged without a prose figure's slack;
                # a llama-bench tg row is one sequence's (PROGRAMS)
                one = 1 if pattern is LLAMA_BENCH_TG else None
                out.append(Measurement(where(name, i), "decode_tok_s", float(m.group(1)), "tok/s",
                                       stat="reported" if pattern in END_TO_END_LINES else "mean", scope="per_stream",
                                       batch=one, concurrency=load or one))
                break
    return (out + _slot_progress(code_lines, name, slots, closed) + _exllama_lines(code_lines, name)
            + _batched_bench(code_lines, name))


def _slot_progress(code_lines: list[tuple[int, str]], name: str, slots: int | None, closed: set) -> list:
    """One decode rate per llama-server request whose progress lines (SLOT_PROGRESS) are pasted without its final
    timings: the last line's running mean, one stream's, at the slots the server runs (else at a load unknown)."""
    last: dict[tuple, tuple[int, float]] = {}
    for i, ln in code_lines:
        if (m := SLOT_PROGRESS.search(ln)) is not None:
            last[(m.group(1), m.group(2))] = (i, float(m.group(4)))
    return [Measurement(where(name, i), "decode_tok_s", rate, "tok/s", stat="mean", scope="per_stream",
                        concurrency=slots)
            for key, (i, rate) in last.items() if key not in closed]  # (a closed one: its "eval time" is read)


def _slot_count(code_lines: list[tuple[int, str]]) -> int | None:
    """The slots llama-server runs, where its log ("initializing slots, n_slots = 4") or else its launch
    ("llama-server ... -np 4", "--parallel 4") says; one count, else None (mpirun's -np is not a server's)."""
    found = {(bool(m.group(2)), int(m.group(1) or m.group(2))) for _, ln in code_lines
             for m in SLOT_COUNT.finditer(ln) if m.group(2) or SERVER_LAUNCH.search(ln)}
    # the count the server printed is what ran: builds of late 2025 opened 4 slots for "-np 1"
    # (https://github.com/ggml-org/llama.cpp/issues/17300), and with no -np recent builds pick 4 themselves
    counts = {n for logged, n in found if logged} or {n for _, n in found}
    return counts.pop() if len(counts) == 1 else None


def _tokens_over_time(prose: list[tuple[int, str]], name: str, dot: bool = False) -> list:
    """'512 tokens in 40 s', '1,000,000 output tokens took 4 hours', '生成 512 个 token 用了 40 秒': the count over the
    time as a rate, where the line states no rate _rates reads (a textgen line states both) and the count is an
    output, not a prompt length. Read per line: a job's count and time are often clauses apart."""
    out = []
    for i, ln in prose:
        if RATE.search(ln) or any(figures.token_rates(c, dot) for c, _ in _clauses(ln)):
            continue
        found = figures.counted_rates(ln, dot)
        for m in [*CJK_TOKENS_IN_TIME.finditer(ln), *WORLD_TOKENS_IN_TIME.finditer(ln)]:
            time = figures.seconds(float(m.group(2)), figures.latin_unit(m.group(3)))
            if time > 0 and not re.search(r"prompt|input|context|prefill", ln[max(0, m.start() - 30):m.start()], re.I):
                found.append(Figure(m.start(), m.end(), round(number(m.group(1)) / time, 3), m.group(0)))
        out += [Measurement(where(name, i), "decode_tok_s", f.value, "tok/s", stat="reported", said=f.said)
                for f in found]
    return out


def _batch_throughputs(prose: list[tuple[int, str]], name: str, dot: bool = False) -> list:
    """'100 generated samples take about 15 hours', 'it took 3 hours to process 10k prompts': a batch of N timed as a
    whole, its requests per second with the count (prose_times.batch_throughputs); not in a clause quoting another's
    figure."""
    return [Measurement(where(name, i), "request_throughput", rps, "req/s", stat="reported", count=count,
                        said=m.group(0).strip())
            for i, ln in prose for clause, quoted in _clauses(ln) if not quoted
            for m, rps, count in prose_times.batch_throughputs(clause, dot)]


def _line_batch(line: str, *figures: re.Pattern) -> int | None:
    """The batch a line states once in a clause of its own ("on one A100, batch 1, I get 200 tokens/s"): it holds
    for every figure of the line whose own clause names none. A batch beside a figure belongs to that figure."""
    found = {int(b.group(1)) for clause in CLAUSE.split(line) if not any(f.search(clause) for f in figures)
             for b in BATCH.finditer(clause)}
    return found.pop() if len(found) == 1 else None


def rate_value(m: re.Match, dot: bool = False) -> float | None:
    """The figure a RATE (or CJK_RATE) match states, its thousands suffix applied ("2.3k tok/s": 2300; "3.100 tok/s"
    is 3100 where the text writes decimals with a comma, `dot`)."""
    value = figures.value_of(next((g for g in m.groups() if g is not None and g[:1].isdigit()), None) or "", dot)
    return value * 1000 if value is not None and "k" in m.re.groupindex and m.group("k") else value


def _reciprocal_of_a_rate(line: str, per_s: float) -> bool:
    """Does the line state this many tokens per second (within rounding)? llama.cpp's timings print each phase
    both ways; judging both against two bands could call one run normal and slow at once."""
    return any(abs(rate_value(r) - per_s) <= 0.01 * per_s for r in RATE.finditer(line))


def _only_load(prose: list[tuple[int, str]]) -> int | None:
    """The one batch or concurrency the prose states ("--max-concurrency 64", "64 concurrent requests"), or None
    when it states none or several: a per-token latency with no load of its own was measured at it."""
    one = _one_stated(prose, BATCH, CONCURRENT)
    return one[1] if one else None


# The largest batch a pasted script or config lets the engine form, as a keyword, variable or YAML key: Meta's
# Llama.build(..., max_batch_size=...) (https://github.com/meta-llama/llama, example_chat_completion.py), TensorRT-LLM's
# LLM(..., max_batch_size=...) and its YAML options (https://nvidia.github.io/TensorRT-LLM/llm-api/reference.html), a
# Triton model config's `max_batch_size: 8`. A limit, not the load: more requests only queue (rules.stated_load); the
# command-line flag, --max_batch_size, is the launch parser's.
CODE_BATCH_CAP = re.compile(r"(?<![\w.-])max_batch_size[\"']?\s*[=:]\s*(\d{1,5})\b")

# (extract35b) Requests a pasted client script keeps in flight: the bound of the semaphore or pool its requests run
# under: asyncio.Semaphore(n) (https://docs.python.org/3/library/asyncio-sync.html),
# concurrent.futures.ThreadPoolExecutor(max_workers=n) (https://docs.python.org/3/library/concurrent.futures.html) or
# multiprocessing's Pool(n), given as a number or a name assigned one (`parallel_num = 4` ...
# `Semaphore(parallel_num)`). Read only where the code sends requests (_GENERATION_CALL); a count of requests in all
# (`total_requests = 20`) is none.
CODE_POOL = re.compile(r"\b(?:Bounded)?(?:Semaphore|ThreadPoolExecutor|ProcessPoolExecutor|ThreadPool|Pool)\s*\(\s*"
                       r"(?:max_workers\s*=\s*|processes\s*=\s*|value\s*=\s*)?([A-Za-z_]\w{0,40}|\d{1,4})\s*[,)]")
_INT_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w{0,40})\s*=\s*(\d{1,4})\s*(?:#.*)?$")


def _code_pool(code_lines: list[tuple[int, str]]) -> tuple[int, int] | None:
    """(line, n) of the one semaphore or pool bound (CODE_POOL) of pasted code that sends requests, a name resolved to
    the number assigned it; None where there is none, several, or no request is sent."""
    if not any(_GENERATION_CALL.search(ln) for _, ln in code_lines):
        return None
    assigned: dict[str, set[int]] = {}
    for _, ln in code_lines:
        if (a := _INT_ASSIGNED.match(ln)) is not None:
            assigned.setdefault(a.group(1), set()).add(int(a.group(2)))
    found = set()
    for i, ln in code_lines:
        for m in CODE_POOL.finditer(ln.split("#")[0]):
            word = m.group(1)
            values = {int(word)} if word.isdigit() else assigned.get(word, set())
            found |= {(i, v) for v in values if v >= 1}
    return min(found) if len({v for _, v in found}) == 1 else None


# (extract35b) The batch Hugging Face's Trainer evaluates and predicts at, per GPU: TrainingArguments'
# per_device_eval_batch_size ("The batch size per device accelerator core/CPU for evaluation",
# https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments), set as a flag of a
# launch (`--per_device_eval_batch_size 8`, LLaMA-Factory's `llamafactory-cli train ... --do_predict`), a keyword or a
# YAML key: the load a pasted evaluation ran at, where the prose states no one batch (it may compare several).
# (Not the training batch, per_device_train_batch_size: no inference.)
CODE_EVAL_BATCH = re.compile(r"(?<![\w.])(?:--)?per_device_eval_batch_size[\"']?\s*[=: ]\s*(\d{1,4})\b")


# llama.cpp's "batch size" is a count of prompt tokens, not of requests: -b / --batch-size is the logical and -ub /
# --ubatch-size the physical chunk of prompt processing, 2048 and 512 by default
# (https://github.com/ggml-org/llama.cpp/tree/master/tools/server, README; tools/llama-bench README: n_batch, n_ubatch);
# its server decodes requests together only up to its slots (-np). In a ticket that names llama.cpp, its server, a GGUF
# file, -ngl, KoboldCpp or Ollama (num_batch, the same chunk), a "batch size" of 128 and up is that chunk: no decode
# batch. (llama-batched-bench's rows state their sequences as a concurrency too and keep them.)
LLAMACPP_NAMED = re.compile(r"\bllama[-_.]?(?:cpp|server|cli|bench)\b|\.gguf\b|(?<![\w-])-ngl\b|--n-gpu-layers\b|"
                            r"\bkoboldcpp\b|\bollama\b", re.I)
TOKEN_CHUNK_LEAST = 128


def _no_token_chunk(record):
    """The record without a batch that is llama.cpp's token chunk (TOKEN_CHUNK_LEAST and up, no concurrency beside
    it); None for a Workload that said nothing else."""
    if isinstance(record, (Workload, Measurement)) and (record.batch or 0) >= TOKEN_CHUNK_LEAST \
            and not record.concurrency:
        record = dataclasses.replace(record, batch=None)
        if isinstance(record, Workload) and not any(v not in (None, {}) for k, v in vars(record).items()
                                                    if k != "source"):
            return None
    return record


# (extract35) A load above one said with a count word: "with two concurrency", "several concurrent requests", "multiple
# parallel users": the figures are not all one request's
LOAD_WORDS = re.compile(r"\b(?:two|three|four|five|six|seven|eight|nine|ten|dozens?|hundreds?|several|many|multiple)\s+"
                        r"(?:concurrency|concurrent|parallel\s+(?:requests?|users?|clients?)|simultaneous)\b", re.I)


def _one_at_a_time(prose: list[tuple[int, str]]) -> tuple[int, str] | None:
    """(line, words) where the prose says its figures ran one request at a time and states no other load, or None
    (a comparison, "batch size 8 ... than with batch size 1", states two)."""
    if _only_load(prose) not in (None, 1) or any(CONCURRENT.search(ln) or LOAD_WORDS.search(ln) for _, ln in prose):
        return None
    if any(int(next(g for g in m.groups() if g)) != 1 for _, ln in prose for m in BATCH.finditer(ln)):
        return None
    return next(((i, m.group(0).strip()) for i, ln in prose if (m := ONE_AT_A_TIME.search(ln))), None)


# (review34) A value stated as the engine's default or as a load planned, not the one the run used: "concurrency is 8 by
# default", "--parallel 1 is the default", "we expect 1000 concurrency in production but test with 16". ("I used the
# default batch size of 8" is the run's: the default before the value is read.)
_DEFAULT_AFTER = re.compile(r"^\W{0,3}(?:by default|is (?:the|its) default|(?:is|are) expected in production|"
                            r"in production)\b", re.I)
_PLANNED_BEFORE = re.compile(r"\b(?:expect(?:s|ed|ing)?|plan(?:s|ned|ning)?(?: for| on)?|aim(?:s|ing)? (?:for|at))\s+"
                             r"(?:\w+\s+){0,2}$", re.I)


def _run_value(ln: str, m: re.Match) -> bool:
    """Is the value `m` reads stated of the run, not as a default or a plan (_DEFAULT_AFTER, _PLANNED_BEFORE)?"""
    return not _DEFAULT_AFTER.search(ln[m.end():]) and not _PLANNED_BEFORE.search(ln[max(0, m.start() - 40):m.start()])


def _one_stated(prose: list[tuple[int, str]], *patterns: re.Pattern) -> tuple[int, int] | None:
    """(first line, value) where the prose states one value (each match's filled group) however often, or None where
    it states none or several: a ticket-wide batch or load is only read where nothing contradicts it."""
    found = {(i, _count(next(g for g in m.groups() if g))) for i, ln in prose for p in patterns for m in p.finditer(ln)
             if _run_value(ln, m)}
    return min(found) if len({n for _, n in found}) == 1 else None


def _latencies(prose: list[tuple[int, str]], name: str, apart: bool | None = None) -> list:
    """Per-token latencies (itl_ms, tpot_ms) and times to first token (ttft_ms) the prose states, in
    ms, with the TP and batch their clause names; a percentile other than the mean is kept as its stat."""
    out = []
    only_load = _only_load(prose)
    apart = _sets_apart(prose) if apart is None else apart
    derived: set[float] = set()  # times (ms) the prose computes
    for i, ln in prose:
        for clause, quoted in [] if prose_times.TIME_CHANGE.search(ln) is None else _clauses(ln, apart):
            for m, metric, now, before in [] if quoted else prose_times.time_changes(clause):
                tps = [_tp_size(t) for t in TP.finditer(clause)]
                out.append(Measurement(where(name, i), metric, now, "ms", stat="reported", tp=tps[0] if tps else None,
                                       gpu_name=clause_gpu(clause, ln), model=clause_model(clause, ln),
                                       said=m.group(0), reference=before))
        ln = figures.time_span_middles(ln)  # "68~70 ms", "taking between 2-4 seconds": its middle
        ln = TIME_RANGE.sub(" ", ln)  # "from 80 ms to 900 ms": which end a prompt length or a TP belongs to is unsaid
        line_batch = _line_batch(ln, LATENCY, MS_PER_TOKEN, WORLD_MS_PER_TOKEN, LATENCY_UNIT_FIRST)
        for clause, quoted in _clauses(ln, apart):
            if quoted or HOPED_FIGURE.search(clause):
                continue  # a published, promised or hoped-for time ("I expected about 20 ms per token"), as _rates
            tps = [_tp_size(t) for t in TP.finditer(clause)]
            b = BATCH.search(clause)
            found = [(m, "ttft", number(m.group(5)), m.group(6).lower()) if m.group(4) else
                     (m, m.group(1).lower(), number(m.group(2)), m.group(3).lower()) for m in LATENCY.finditer(clause)]
            found += [(m, "ms per token", number(m.group(1)), m.group(2).lower())
                      for m in MS_PER_TOKEN.finditer(clause)]
            found += [(m, "ms per token", number(m.group(1) or m.group(3)),
                       figures.latin_unit(m.group(2) or m.group(4)))
                      for m in WORLD_MS_PER_TOKEN.finditer(clause)]
            found += [(m, m.group(2).lower(), float(m.group(4)), m.group(3).lower())
                      for m in LATENCY_UNIT_FIRST.finditer(clause)]
            found += [(m, "ms per token", value, unit) for m, value, unit in figures.token_times(clause)]
            found += [(m, "ttft", value, unit) for m, value, unit in figures.first_token_times(clause)]
            # a whole request's time, the wait for the answer and one token's time said in words (prose_times)
            found += [(m, {"e2e_latency_ms": "e2e", "ttft_ms": "ttft", "itl_ms": "ms per token"}[metric], ms, "ms")
                      for m, metric, ms in prose_times.request_times(clause)
                      if not any(m.start() < o.end() and o.start() < m.end() for o, *_ in found)]
            for m, what, value, unit in found:
                ms = to_ms(value, unit)
                # "1/96 sec/tok = 10.4 msec/tok": the reporter's arithmetic, not a measured time; nor is the result
                # restated further on ("i.e., 23 msec/tok > 10.4 msec/tok")
                if figures.computed(clause, m.start()) or round(ms, 6) in derived:
                    derived.add(round(ms, 6))
                    continue
                if ms > 0 and _reciprocal_of_a_rate(ln, 1000 / ms):
                    continue  # "18.44 ms per token, 54.22 tokens per second": one measurement, judged as the rate
                metric = ("ttft_ms" if what.startswith(("ttft", "time to first", "first")) else
                          "e2e_latency_ms" if what == "e2e" else
                          "tpot_ms" if what.startswith(("tpot", "time per output")) else "itl_ms")
                pct = PERCENTILE.search(clause[max(0, m.start() - 30):m.end() + 10])
                stat = (pct.group(1).lower() if pct and pct.group(1).lower() not in ("mean", "avg", "average")
                        else "reported")
                batch = int(b.group(1)) if b else line_batch
                if batch is None and metric != "ttft_ms":
                    batch = only_load  # one stream's step time at the load the ticket runs, wherever it says it
                # (healthy36) a first token's wait with the requests its own clause says were in flight ("with 32
                # concurrent users the median TTFT is 2.1 s"): the prefills it waited behind
                load = None
                if metric == "ttft_ms" and (c := CONCURRENT.search(clause)):
                    load = _count(next(g for g in c.groups() if g))
                out.append(Measurement(where(name, i), metric, ms, "ms", stat=stat, tp=tps[0] if tps else None,
                                       batch=batch, concurrency=load, gpu_name=clause_gpu(clause, ln),
                                       model=clause_model(clause, ln)))
    return out
