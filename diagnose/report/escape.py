"""One escaping function per output kind, applied by the renderers to every string they print.

Kernel names, NVTX ranges, file names and attachment lines come from the user's files; a hostile
or damaged one must reach the reader as inert text. Rules and parsers never escape: the renderer
boundary does, once, for everything. (HTML escapes with `html.escape` in report/html.py.)
"""

from __future__ import annotations

import re

# ECMA-48 sequences: CSI (ESC [ or 8-bit 0x9b ... final byte), OSC/DCS/SOS/PM/APC strings up to
# their terminator (BEL or ST), and two-byte escapes (ESC + one byte).
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)
# C0 and C1 controls except newline and tab, DEL, and the Unicode bidirectional overrides that
# reorder what a terminal shows.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal(text) -> str:
    """`text` without escape sequences or control characters (tabs become spaces)."""
    text = str(text)
    if text.isprintable():
        return text
    return _CONTROL.sub("", _SEQUENCE.sub("", text)).replace("\t", " ")


# Every character that starts Markdown or HTML structure: emphasis, code, links and images,
# HTML tags and entities, tables, headings, quotes, strikethrough, e-mail autolinks.
# An underscore inside a word never makes emphasis (CommonMark flanking rules), so kernel and
# variable names keep theirs unescaped.
_MD_SPECIAL = re.compile(r"([\\`*{}\[\]<>&#!|~@]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_MD_LINE_START = re.compile(r"^(\s*)([-+=]|\d+(?=[.)]))")
# GitHub turns bare URLs and www. names into links: an escaped ':' or '.' breaks the pattern.
_MD_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|file|mailto|javascript|data|vbscript)(:)|\b(www)(\.)")
_CODE_SPAN = re.compile(r"(`[^`\n]+`)")


def markdown(text, line_start: bool = True, in_table: bool = True) -> str:
    """`text` as inert GitHub-flavoured Markdown: every metacharacter backslash-escaped, one line.
    `line_start`: the text may begin a line, where '- ', '+ ' or '1. ' would start a list.
    `in_table`: the text may sit in a table cell (False: prose, where a code span shows a backslash literally).

    Code spans (`like this`) are kept: nothing inside one renders as a link, image or HTML.
    """
    parts = _CODE_SPAN.split(terminal(text).replace("\r", " ").replace("\n", " "))
    # a table cell ends at any '|', even inside a code span, unless escaped; in prose the escape would show
    bar = "\\|" if in_table else "|"
    text = "".join(part.replace("|", bar) if i % 2 else _md_plain(part) for i, part in enumerate(parts))
    if not line_start:
        return text
    return _MD_LINE_START.sub(lambda m: m[1] + (m[2] + "\\" if m[2][0].isdigit() else "\\" + m[2]), text, count=1)


def _md_plain(text: str) -> str:
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_AUTOLINK.sub(lambda m: f"{m[1]}\\:" if m[1] else f"{m[3]}\\.", text)
