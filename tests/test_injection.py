"""Hostile names stay text in every output format (issue 16: one escaping function per output kind).

A capture whose file name and kernel names, a ticket whose attachment name and lines, and a node
recording whose GPU name carry terminal escape sequences, Markdown links and images and HTML
elements. Each command renders them in every format:
- terminal (piped): no ESC byte, no other control character, the visible text still there;
- Markdown, rendered with markdown-it (CommonMark + GFM tables): no link or image but our own
  reference URLs, no HTML element but our <sub> footer;
- HTML, loaded in headless Chromium: no element the page itself does not make (no script, img,
  a, iframe), no script ran, and the hostile text is visible as text.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner
from conftest import REPO
from test_html import CHROMIUM, browser  # noqa: F401 - the shared headless Chromium fixture

from diagnose.cli import cli

# What reaches the reader must be inert: a window-title change, clear screen, colours (7- and
# 8-bit), a Markdown image and link, raw HTML with a script and an event handler.
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\x9b1m"
MARKUP = ("![img](http://evil.example/x.png) [click me](http://evil.example/c) <http://evil.example/a> "
          "www.evil.example <script>alert(1)</script><img src=x onerror=alert(2)><b>bold</b>")
HOSTILE = ESCAPES + MARKUP + "\x1b[0m"
# a file name cannot hold '/'
FILE_HOSTILE = ESCAPES + "![img](x.png)[click me](javascript:alert(1))<img src=x onerror=alert(2)>"
VISIBLE = "click me"  # text that must survive, inert, in every format


def _capture(tmp_path):
    path = tmp_path / f"{FILE_HOSTILE}.sqlite"
    shutil.copy(REPO / "samples" / "captures" / "tp8_pcie_fallback.sqlite", path)
    with sqlite3.connect(path) as db:  # the top kernels' names end in the hostile text
        db.execute("UPDATE StringIds SET value = value || ? WHERE value LIKE '%gemm%' OR value LIKE 'vllm::%'",
                   (HOSTILE,))
    return path


def _ticket(tmp_path):
    folder = tmp_path / "ticket"
    folder.mkdir()
    (folder / "ticket.toml").write_text(
        'title = "slow all-reduce"\n'
        f'description = {json.dumps("all_reduce_perf is slow on 8x A100 with NVLink " + MARKUP)}\n'
        '[hardware]\ngpu = "NVIDIA A100-SXM4-80GB"\ngpu_count = 8\n', encoding="utf-8")
    (folder / f"{FILE_HOSTILE}.log").write_text(
        f"node1:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC {HOSTILE}\n"
        f"node1:1:1 [0] NCCL INFO {HOSTILE}\n", encoding="utf-8")
    return folder


def _recording(tmp_path):
    data = json.loads((REPO / "tests" / "recordings" / "hgx-h100-smi-p2p-bidirectional.json").read_text())
    for answer in data["answers"]:
        if answer["call"] == "nvmlDeviceGetName":
            answer["value"] = "NVIDIA H100 80GB HBM3 " + HOSTILE
    path = tmp_path / f"{FILE_HOSTILE}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


CASES = {
    "capture": lambda tmp: ["capture", str(_capture(tmp))],
    "ticket": lambda tmp: ["ticket", str(_ticket(tmp))],
    "node": lambda tmp: ["node", "--replay", str(_recording(tmp))],
}


def _render(tmp_path, case, fmt):
    args = CASES[case](tmp_path) + ["--format", fmt, "--fail-on", "never"]
    result = CliRunner().invoke(cli, args, prog_name="diagnose")
    assert result.exit_code == 0, (case, fmt, result.exit_code, result.stderr[-500:])
    return result.stdout


@pytest.mark.parametrize("case", CASES)
def test_terminal_output_has_no_control_characters(tmp_path, case, monkeypatch):
    for width in ("80", "120"):
        (tmp_path / width).mkdir()
        monkeypatch.setenv("COLUMNS", width)
        text = _render(tmp_path / width, case, "terminal")
        bad = sorted({hex(ord(c)) for c in text if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F})
        assert not bad, (case, width, bad)
        assert VISIBLE in " ".join(text.split()), (case, width)  # escaped, not dropped (maybe wrapped)


class _Elements(HTMLParser):
    """Every element and attribute in an HTML fragment."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


# Where the rules' reference links point (rules/common.py DOCS and the rules' own citations).
OUR_LINKS = ("https://docs.nvidia.com/", "https://docs.vllm.ai/", "https://github.com/")
MARKDOWN_TAGS = {"h2", "h3", "p", "strong", "em", "code", "ol", "ul", "li", "table", "thead", "tbody", "tr", "th", "td",
                 "sub", "a"}


@pytest.mark.parametrize("case", CASES)
def test_markdown_renders_no_link_image_or_html(tmp_path, case):
    from markdown_it import MarkdownIt

    md = _render(tmp_path, case, "md")
    html = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").render(md)
    parser = _Elements()
    parser.feed(html)
    tags = {tag for tag, _ in parser.tags}
    assert tags <= MARKDOWN_TAGS, (case, tags - MARKDOWN_TAGS)
    links = [attrs.get("href", "") for tag, attrs in parser.tags if tag == "a"]
    assert all(h.startswith(OUR_LINKS) for h in links), links
    assert not any("onerror" in v or "javascript" in v for _, attrs in parser.tags for v in attrs.values() if v)
    # GitHub also links bare URLs and www. names; they must not survive as such
    assert not re.search(r"https?://evil|www\.evil", md), case
    assert VISIBLE in html and "\x1b" not in md, case


# --------------------------------------------------------------------------- HTML, in a browser

ELEMENTS_JS = """JSON.stringify({
  tags: [...new Set([...document.querySelectorAll('body *')].map(e => e.tagName.toLowerCase()))],
  handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name))
            .filter(n => n.startsWith('on')),
  hrefs: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')),
  text: document.body.innerText,
  injectedBold: [...document.querySelectorAll('b')].some(e => e.textContent === 'bold'),
  alerted: typeof window.__alerted !== 'undefined'
})"""


@pytest.mark.parametrize("case", CASES)
def test_html_in_chromium_has_no_injected_element(tmp_path, case, request):
    if CHROMIUM is None:
        pytest.skip("headless Chromium is not installed (Debian: `apt-get install -y chromium`)")
    html = _render(tmp_path, case, "html")
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    page = request.getfixturevalue("browser").load(path, ELEMENTS_JS)
    assert page.problems() == [], page.problems()
    found = page.measure
    assert not {"script", "img", "iframe", "object", "embed"} & set(found["tags"]), (case, found["tags"])
    assert all(h.startswith(OUR_LINKS) for h in found["hrefs"]), (case, found["hrefs"])  # rules' references only
    assert not found["injectedBold"], case  # the page makes <b> itself; the input's <b>bold</b> must stay text
    assert found["handlers"] == [], case
    assert VISIBLE in found["text"] and "<img src=x onerror=alert(2)>" in found["text"], case



def test_escape_functions_on_each_sequence_kind():
    from diagnose.report.escape import markdown, terminal

    # OSC ended by BEL and by ST, CSI 7- and 8-bit, a DCS string, a two-byte escape, C0/C1, bidi override
    raw = "a\x1b]0;title\x07b\x1b]8;;http://x\x1b\\c\x1b[1;31md\x9b2Je\x1bPq#0\x1b\\f\x1bcg\x00\x08\x85h\u202ei\tj"
    assert terminal(raw) == "abcdefghi j"
    assert terminal("GPU 0: NVIDIA H100 80GB HBM3") == "GPU 0: NVIDIA H100 80GB HBM3"  # plain text untouched
    assert markdown("![x](http://e/i.png)") == "\\!\\[x\\](http\\://e/i.png)"
    assert markdown("<img src=x onerror=alert(1)>") == "\\<img src=x onerror=alert(1)\\>"
    assert markdown("run `nvidia-smi topo -m` | x") == "run `nvidia-smi topo -m` \\| x"  # code spans kept
    assert markdown("- a list?") == "\\- a list?" and markdown("- cell", line_start=False) == "- cell"
    assert markdown("NCCL_P2P_DISABLE=1 _em_") == "NCCL_P2P_DISABLE=1 \\_em\\_"
