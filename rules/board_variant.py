"""The variant of a GPU that the reporter names apart from the GPU's name.

"H100 used is of type PCI-e", "our H100s are PCIe cards, not SXM", "4x A100 (the 40GB version)", "A800 80G 版本": the
board is said in another clause or sentence than its name. The variants of one product differ by more than a label.
The H100 SXM5 streams 3,350 GB/s and joins its peers over NVLink through NVSwitch. The H100 PCIe streams 2,000 GB/s,
and its NVLink goes only to a bridged partner (https://www.nvidia.com/en-us/data-center/h100/, "Specifications").
The A100 40GB runs 1,555 GB/s against the 80GB's 2,039 GB/s (SXM)
(https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf).
A family word alone ("H100") resolves to the catalog's default row, the SXM board, so a healthy PCIe system looks
broken. rules.subject adds the variant read here to the name before the catalog resolves it.

A variant counts only where it is decided: one product is named (in the variant's sentence, else in the whole text)
and one form factor or one memory size is said for it. Two variants said ("SXM or PCIe?", "the 40GB and the 80GB
version") or two products named leave nothing decided, and the inline name or the links seen decide as before. A
form said of the link, not the board ("PCIe 4.0 x16 slot", "a PCIe switch", "the interconnect is PCIe"), is no
variant. So is one said of someone else's system ("compared with the SXM numbers in the blog"): no board noun follows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from diagnose.artifacts.issue_md import GPU_NAME
from diagnose.artifacts.text import sentences
from diagnose.evidence import Facts, Note
from rules import catalog, claims, hearsay

# The reporter's own text: the description and the free-text hardware fields, not pasted tool output (whose GPU names
# the parsers read exactly).
_TEXT_KINDS = ("description", "hardware", "comment")

_FORM = r"(SXM[2-6]?|PCI-?e|NVL)"
# The link, not the board: "PCIe 4.0", "PCIe Gen4", "PCIe x16 slot", "PCIe switch", "PCIe bus", "PCIe bandwidth".
_LINK_AFTER = (r"(?!\s*(?:\d|gen\b|gen\d|x\s?\d|×|slots?|switch\w*|lanes?|bus\b|links?\b|bridges?|risers?|bandwidth|"
               r"traffic|p2p|root|host|topolog\w*|connect\w*|speed|throughput|transfers?|interface))")
# A board's form said apart from its name: "H100 used is of type PCI-e", "our H100s are PCIe cards", "they are all
# SXM", "the PCIe version", "our SXM5 boards", and in Chinese "PCIe 版", "SXM 版本".
FORM_SAID = re.compile(
    r"\b(?:is|are|was|were)\s+(?:all\s+|both\s+)?(?:of\s+(?:the\s+)?type\s+|(?:the|an?)\s+)?" + _FORM + _LINK_AFTER
    + r"(?![\w-])|"
    r"\b(?:the|our|my|these|those)\s+" + _FORM + r"[\s-]+(?:versions?|variants?|editions?|form[\s-]factor|cards?|"
    r"boards?|GPUs?|ones?)\b|" + _FORM + r"\s*(?:版本?|款)|"
    # in brackets after the name, before a size or alone: "A100 (PCIe, 80GB)", "H100 (SXM)"
    r"(?<=[\w\s])\(\s*" + _FORM + r"(?=\s*[,;/)])|"
    # as a form's or a table's field: "Form factor: PCIe", "| form factor | SXM5 |"
    r"\bform[\s-]?factor\s{0,3}(?:[:=|]\s{0,3})?" + _FORM + r"\b",
    re.I)
# Any form word, to tell a sentence that sets two against each other ("SXM or PCIe?", "SXM vs PCIe").
_ANY_FORM = re.compile(r"\b" + _FORM + r"\b" + _LINK_AFTER, re.I)
# An NVLink bridge, there or not: only PCIe cards take one (the SXM boards' NVLink runs through the baseboard;
# https://www.nvidia.com/en-us/data-center/nvlink/ "NVLink Bridge" for PCIe GPUs), the reading rules.subject's
# _nvlink_hint gives bridged pairs seen in a topology. Weaker than a form said outright, so used only without one.
BRIDGE_SAID = re.compile(r"\bNVLink[\s-]*bridges?\b|\bNVLink\s*桥", re.I)
# A memory size said apart from the name: "the 40GB version", "our 80 GB ones", "80G 版本" (not "the 40GB model", a
# model's file size as often as a board's).
SIZE_SAID = re.compile(r"\b(?:the|our|my|these|those)\s+(\d{2,3})\s?G(?:i?B)?[\s-]+(?:versions?|variants?|editions?|"
                       r"ones)\b|(?<![\w.])(\d{2,3})\s?G(?:i?B)?\s*(?:的\s*)?(?:版本?|款)|"
                       r"\(\s*(?:SXM[2-6]?|PCI-?e|NVL)\s*,\s*(\d{2,3})\s?G(?:i?B)?\s*\)", re.I)
# The variant said as what the board is not: "not SXM", "isn't the PCIe version", "non-SXM".
_DENIED = re.compile(r"(?:\bnot|n't|\bno|\bnever|\bnon)[\s-]{1,3}(?:\w{1,20}\s{1,3}){0,2}$|"
                     r"(?:不是|并非|并不是|而非)\s*$", re.I)  # (review39c) "我们的 H100 不是 PCIe 版"
# A clause about the link between the GPUs: "the interconnect is PCIe" says how they talk, not which board they are.
_LINK_SUBJECT = re.compile(r"\b(?:interconnect\w*|links?|connection\w*|connected|bus|topology|traffic|communicat\w*|"
                           r"slots?|lanes?|riser\w*)\b", re.I)
# A variant only supposed: "if these were the PCIe version", "assuming the 40GB ones", "如果是 PCIe 版".
_SUPPOSED = re.compile(r"\b(?:if|unless|whether|suppos\w*|assum\w*|imagine)\b|如果|假如|要是|假设", re.I)
# Another person's board: "someone on the forum said their H100s are the PCIe version" (not "they": the reporter's
# own cards are "they" as often, "they are SXM").
_OTHERS = re.compile(r"\b(?:their|his|her|someone|somebody|another\s+(?:user|person|team)|"
                     r"other\s+(?:users|people|teams)|people)\b|别人|其他人|有人|他们的", re.I)
# (review39c) A board of another time, said in the variant's own clause: "The 40GB version of the same box we had last
# year", "We previously ran the 80GB version", "以前用的是 40G 版本"; not "Our H100s are the PCIe version (we bought
# them last year)", whose time is the purchase's, in a clause of its own.
_ANOTHER_TIME = re.compile(r"\b(?:last|previous|prior)\s+(?:year|month|week|time|gen\w*|cluster|box|server|machine|"
                           r"node|setup)s?\b|\b(?:previously|formerly|used\s+to|in\s+the\s+past|years?\s+ago|"
                           r"(?:our|my|the)\s+old(?:er)?\s+(?:\w+\s+)?(?:cluster|box|server|machine|node|setup|GPUs?|"
                           r"cards?)|(?:we|I)\s+(?:had|used\s+to\s+have))\b|去年|以前|之前|原来|上一代", re.I)
_CLAUSE_CUT = re.compile(r"[,;:()，；：（）]|\s(?:and|but|while|whereas)\s|现在|如今")


def product(spec: catalog.GpuSpec | None) -> str | None:
    """A catalog row's product without its memory size or form factor ("a100-80gb-sxm" -> "a100")."""
    return re.sub(r"-(?:\d+gb|sxm\d*|pcie|nvl)\b", "", spec.key) if spec else None


@dataclass(frozen=True)
class Variant:
    """The form factor ("pcie", "sxm", "nvl") and memory size (GB) said of one product apart from its name, each None
    where none or several were said, with the words that said them and where."""

    form: str | None
    memory_gb: float | None
    quote: str
    source: str

    def applied(self, name: str) -> str:
        """The GPU name with this variant's parts it does not state itself ("H100s" -> "H100 pcie")."""
        text = re.sub(r"(?<=\d)(?:['’]s|s)\b", "", name)  # a plural is no part of the name
        if self.memory_gb and not re.search(r"(?<![\w.])\d{2,3}\s?G", text, re.I):
            text += f" {self.memory_gb:g}GB"
        if self.form and not re.search(r"\b(?:sxm\d?|pci-?e|nvl)\b", text, re.I):
            text += f" {self.form}"
        return text


def _products(text: str) -> set[str]:
    """The catalog products the GPU names in `text` resolve to (names the catalog lacks left out)."""
    out = set()
    for m in GPU_NAME.finditer(text):
        p = product(catalog.resolve_gpu(m.group(1)))  # (resolve_gpu answers None for a name no row has)
        if p:
            out.add(p)
    return out


def _nvl_named(text: str) -> set[str]:
    """The products whose NVL board `text` names inline ("H100 NVL")."""
    out = set()
    for m in GPU_NAME.finditer(text):
        spec = catalog.resolve_gpu(m.group(1))
        if spec and spec.key.endswith("-nvl"):
            out.add(product(spec))
    return out


def _form(word: str) -> str:
    word = word.lower().replace("-", "")
    return "pcie" if word.startswith("pci") else "sxm" if word.startswith("sxm") else "nvl"


def said(facts: Facts) -> dict[str, Variant]:
    """{product: Variant} for each product whose form factor or memory size the reporter decides apart from its name;
    a product with two forms and two sizes said, or a variant whose product is not one, is left out."""
    forms: dict[str, dict[str, tuple[str, str]]] = {}
    sizes: dict[str, dict[float, tuple[str, str]]] = {}
    bridged: dict[str, dict[str, tuple[str, str]]] = {}
    nvl_named: set[str] = set()
    for n in facts.of(Note):
        if n.kind not in _TEXT_KINDS or not n.text or not any(p.search(n.text) for p in (FORM_SAID, SIZE_SAID,
                                                                                              BRIDGE_SAID)):
            continue  # (most tickets say no variant: the GPU names are then not looked up here at all)
        whole = _products(n.text)
        nvl_named |= _nvl_named(n.text)
        lines = n.data.get("prose_sources") or ()
        at = 0
        for sentence in sentences(n.text):  # (text.py's one splitter; a line's end ends one too)
            at = n.text.find(sentence, at)
            k = n.text.count("\n", 0, at)
            where = lines[k] if k < len(lines) else n.source  # the line of the issue it was said on
            quote = sentence.strip()
            stated = {_form(f.group(1)) for f in _ANY_FORM.finditer(sentence)
                      if not _denied(sentence, f) and not claims.asked_at(sentence, f.start())}
            for m in FORM_SAID.finditer(sentence):
                if claims.asked_at(sentence, m.start()):
                    continue  # asked, not stated: "is it the SXM or the PCIe version?" (review39c: the question's
                    # own clause only: "我们的 H100 是 PCIe 版，..., 正常吗？" states the board before it asks)
                owned = _owner(sentence, m, whole)
                if owned and len(stated) == 1 and not _denied(sentence, m) and not _about_link(sentence, m) \
                        and not _supposed(sentence, m):
                    value = _form(next(g for g in m.groups() if g))
                    forms.setdefault(owned, {}).setdefault(value, (quote, where))
            for m in SIZE_SAID.finditer(sentence):
                if claims.asked_at(sentence, m.start()):
                    continue
                if (owned := _owner(sentence, m, whole)) and not _denied(sentence, m) and not _supposed(sentence, m):
                    sizes.setdefault(owned, {}).setdefault(float(next(g for g in m.groups() if g)), (quote, where))
            for m in BRIDGE_SAID.finditer(sentence):
                if owned := _owner(sentence, m, whole):
                    bridged.setdefault(owned, {}).setdefault("pcie", (quote, where))
    out = {}
    for p in set(forms) | set(sizes) | set(bridged):
        form = forms.get(p) or bridged.get(p, {})
        if p in nvl_named:
            # the H100 NVL is a PCIe card its bridge joins to its partner (https://www.nvidia.com/en-us/data-center/h100/,
            # "H100 NVL": PCIe Gen5, "NVIDIA NVLink: 600GB/s" over 2- or 4-way bridges): "PCIe" or a bridge said in a
            # text that names it is that board, not the H100 PCIe
            form = {("nvl" if f == "pcie" else f): q for f, q in form.items()}
        size = sizes.get(p, {})
        one_form = next(iter(form)) if len(form) == 1 else None
        one_size = next(iter(size)) if len(size) == 1 else None
        if one_form is None and one_size is None:
            continue
        quotes = list(dict.fromkeys(([form[one_form]] if one_form else []) + ([size[one_size]] if one_size else [])))
        out[p] = Variant(one_form, one_size, " / ".join(q for q, _ in quotes), quotes[0][1])
    return out


def _owner(sentence: str, m: re.Match, whole: set[str]) -> str | None:
    """The product the variant `m` is said of: the one its own clause names before it ("H100 used is of type PCI-e",
    "the H100 is SXM and the A100 is PCIe"), else the one its sentence names, else the one the whole text names; None
    where that place names two or none: not decided."""
    clause = re.split(r"[,;:()]|\s(?:and|but|while|whereas)\s", sentence[:m.start()])[-1]
    for named in (_products(clause), _products(sentence), whole):
        if named:
            return next(iter(named)) if len(named) == 1 else None
    return None


def _denied(sentence: str, m: re.Match) -> bool:
    """Is the variant `m` said as what the board is not ("not SXM", "isn't the PCIe version", "non-SXM")?"""
    return bool(_DENIED.search(sentence[max(0, m.start() - 20):m.start()]))


def _supposed(sentence: str, m: re.Match) -> bool:
    """Is the variant `m` only supposed in its clause ("if these were the PCIe version"), another person's board
    in its sentence ("someone said their H100s are the PCIe version", "in #1234 ..."), or a board of another time
    in its clause (_ANOTHER_TIME)?"""
    before = sentence[:m.start()]
    cuts = [c.start() for c in _CLAUSE_CUT.finditer(sentence)]
    clause = sentence[max([c for c in cuts if c < m.start()], default=0):
                      min([c for c in cuts if c >= m.end()], default=len(sentence))]
    return bool(_SUPPOSED.search(re.split(r"[,;:，；]", before)[-1]) or _OTHERS.search(before)
                or _ANOTHER_TIME.search(clause) or hearsay.elsewhere(before))


def _about_link(sentence: str, m: re.Match) -> bool:
    """Is the form `m` said of the link between the GPUs ("the interconnect is PCIe"), not of the board?"""
    return bool(_LINK_SUBJECT.search(re.split(r"[,;:()]", sentence[:m.start()])[-1]))
