"""What the reporter's own words state, read from the description and hardware notes.

A support engineer reads the ticket text too: "inside a KVM guest", "it slows down steadily",
"2.5.6 was faster than 2.7.8". These are facts with the weakest provenance (the reporter said
so), so rules that use them quote them and keep their confidence moderate. The patterns are
families of phrasings for one physical situation, never one ticket's sentence.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from diagnose import lazy_re as re
from diagnose.artifacts import nccl_log
from diagnose.artifacts.figures import FACTOR_WORDS
from diagnose.artifacts.figures import losses as figure_losses
from diagnose.artifacts.issue_md import (
    ENGLISH_COUNT_WORDS,
    GLUED_COUNT,
    GPU_NAME,
    GPUS_HEADER,
    NOT_A_SIZE,  # a figure with its unit after TP words is no size
    words_pattern,
)
from diagnose.artifacts.issue_md import TP as TP_SIZE
from diagnose.artifacts.issue_md import _count as count_word  # one reading of a GPU count said in words
from diagnose.artifacts.launch import (
    ADOPTED_AFTER,
    ADOPTED_NEXT,
    YOU_ADVISE,
    YOU_MODAL,
    advised_lines,
    off_before,
    setting_off,
)
from diagnose.artifacts.text import (  # (sentence_start, sentence_end: one sentence splitter for every prose reader)
    ENGINE_WORD,
    NO_EFFECT,
    NOT_ENDING,
    RATE_UNIT,
    clause_around,
    clause_before,
    is_bits,
    next_sentence,
    sentence_end,
    sentence_start,
    to_gbs,
    to_ms,
)
from diagnose.artifacts.text import cjk_spaced as spaced  # CJK runs words together with Latin ones
from diagnose.artifacts.text import table_cells as md_cells  # one Markdown cell splitter for every table reader
from diagnose.evidence import CollectiveResult, Facts, NcclEvent, Note, Workload
from rules import hearsay
from rules.offload import GIB, engine_family, keeps_weights_on_gpu  # vLLM's --cpu-offload-gb counts GiB

# Which text a claim may come from: the reporter's description, and the free-text hardware /
# software fields a ticket.toml carries.
_TEXT_KINDS = ("description", "software", "hardware", "interconnect", "comment")
# Tool output pasted inside a ticket's text (an issue's code blocks): read for the families that
# name what a tool prints, weighed as output, not as the reporter's words.
OUTPUT_KIND = "pasted_output"
OUTPUT_FAMILIES = ("no_p2p", "link_down", "shm_error", "clock_power", "hardware_error", "fabric_setup", "tp_size_error",
                   "module_missing", "wrong_results", "iommu_fault", "exception", "eager_flag", "pipeline_parallel",
                   "gdr_off", "net_socket", "pcie_degraded", "pcie_errors", "nccl_system_error", "cpu_pegged_row",
                   "ib_transfer_error")


@dataclass
class Claim:
    """One statement of the reporter's: what (kind, data), where (source, quote), and how it was
    said: ruled out ("no Xid errors": negated) or offered as a guess ("maybe P2P?")."""

    kind: str
    source: str
    quote: str
    data: dict[str, Any] = field(default_factory=dict)
    negated: bool = False
    guess: bool = False

    @property
    def cited(self) -> str:
        """Where the quote was said: its own line of a text read from several lines, else the claim's source."""
        return self.source.line_of(self.quote) if isinstance(self.source, ProseSource) else self.source




class ProseSource(str):
    """The source of a text read from several lines of a file (an issue's prose, whose Note lists the line each of
    its lines came from): compared as the text's own source ("issue.md:1"), and `line_of` a quote of it is where
    that quote was said ("issue.md:8"), for the evidence to cite."""

    text = ""
    lines: tuple[str, ...] = ()

    def line_of(self, quote: str) -> str:
        """The line holding the middle of `quote` (a window around the words a claim matched; ellipses, Markdown
        marks and runs of whitespace differ from the text), else the text's own source."""
        words = re.findall(r"\w+", quote)
        m = re.search(r"\W*".join(map(re.escape, words)), self.text) if words else None
        k = self.text.count("\n", 0, (m.start() + m.end()) // 2) if m else len(self.lines)
        return self.lines[k] if k < len(self.lines) else str(self)


def texts(facts: Facts) -> list[tuple[str, str]]:
    """(source, text) of every free-text statement the reporter made (CJK seams spaced, see spaced())."""
    out = []
    for n in facts.of(Note):
        if n.kind in _TEXT_KINDS and n.text:
            src = n.source if n.kind == "description" or "(" in n.source else f"{n.source} ({n.kind})"
            if n.data.get("prose_sources"):
                src = ProseSource(src)
                src.text, src.lines = spaced(n.text), tuple(n.data["prose_sources"])
            out.append((src, src.text if isinstance(src, ProseSource) else spaced(n.text)))
    for w in facts.of(Workload):
        if w.interconnect:
            out.append((f"{w.source} (interconnect)", w.interconnect))
        if w.framework:
            out.append((f"{w.source} (framework)", w.framework))
    return out


def own_words(source: str) -> bool:
    """Is a texts() source the reporter's own prose (the description or an issue's text: "issue.md:1"), not a field
    read beside it? texts() names every field by the kind it appends in parentheses: a framework or interconnect a
    parser found ("issue.md:12 (framework)", often in a pasted tool output), a ticket.toml table's values
    ("ticket.toml:4 (software)"). Those are a tool's or a form's words, not a sentence the reporter wrote."""
    return "(" not in str(source)


def own_texts(facts: Facts) -> list[tuple[str, str]]:
    """texts() of the reporter's own prose only (own_words): the fields a parser or a form supplied left out."""
    return [(source, text) for source, text in texts(facts) if own_words(source)]


def own_sentences(facts: Facts) -> list[tuple[str, str]]:
    """(source, sentence) of the reporter's own words, text by text (own_texts split by sentences()): pasted outputs
    (sources with a kind in parentheses) left out."""
    return [(source, sentence) for source, text in own_texts(facts) for sentence in sentences(text)]


def nccl_ib_quoted(facts: Facts, opened: bool = False) -> bool:
    """Does the reporter quote NCCL's own lines showing InfiniBand in use (nccl_log.quotes_ib reads them; `opened`:
    the init line naming the HCAs it opened)?"""
    return any(nccl_log.quotes_ib(text, opened) for _, text in texts(facts))


def pasted_blocks(facts: Facts) -> list[tuple[str, str]]:
    """(source, text) of every block of tool output the reporter pasted (not their own words)."""
    return [(n.source, n.text) for n in facts.of(Note) if n.kind == OUTPUT_KIND and n.text]


def _quote(text: str, m: re.Match, pad: int = 50) -> str:
    a, b = max(0, m.start() - pad), min(len(text), m.end() + pad)
    return ("…" if a else "") + one_line(text[a:b]) + ("…" if b < len(text) else "")


def one_line(snippet: str) -> str:
    """A quote as it reads inside a sentence or a table cell: a Markdown heading becomes a sentence
    (its marks dropped) and every run of whitespace, newlines included, one space."""
    heading = re.compile(r"(?m)^\s*#{1,6}\s+(.*?)\s*$")
    snippet = heading.sub(lambda h: h.group(1) + ("" if h.group(1).endswith((".", "?", "!", ":")) else "."), snippet)
    return re.sub(r"\s+", " ", snippet).strip()


# Words an engine's log puts before a switch it recommends (not one that is set).
_ADVICE = r"(?<!use ')(?<!set ')(?<!use `)(?<!set `)(?<!by )(?<!try )"
# A tensor or buffer moved from one GPU to another ("moving a tensor from cuda:0 to cuda:1", "copying between GPUs",
# "cudaMemcpyPeer from GPU0 to GPU1"), and what such a copy can land: zeros, wrong or corrupted values.
# (s20) PyTorch's own move to a device, the call people paste: "`tensor.to('cuda:1')` returns an all-zero tensor"
# (turboderp-org/exllamav3#333), "`.to(different_cuda_device)` results in ... all of the values are set to zero"
# (pytorch/pytorch#13803); torch.Tensor.to / .cuda / .copy_ (https://docs.pytorch.org/docs/stable/generated/torch.Tensor.to.html).
# Not .to(dtype), nor the one device every model is moved to ("model.to(device)", and (session 21 review) `.to('cuda')`,
# `.cuda()`, `.to('cuda:0')`: the current device, torch.Tensor.cuda's default): the argument is another, numbered device
# ('cuda:1', f'cuda:{i}', 1), a device variable ending in its number ("gpu1", "device_1") or naming another device
# ("different_cuda_device", "dst_device"), or .cuda(n) with n from 1.
_TORCH_TO = (r"(?:\.(?:to|copy_)\(\s*(?:f?['\"]cuda:\s*(?:[1-9]\d*|\{[^}'\"\n]{1,20}\})['\"]|[1-9]\d*|"
             r"[\w.]*(?:cuda|device|gpu)[\w.]*(?<=\d)|"
             r"[\w.]*(?:other|different|another|second|peer|target|dst|dest|next)[\w.]*(?:cuda|device|gpu)[\w.]*)\s*[,)]|"
             r"\.cuda\(\s*[1-9]\d*\s*\))")
# ... while any move to a CUDA device is a move where the words around it name two GPUs ("x.to('cuda:0') from cuda:1")
_TORCH_MOVE = r"(?:\.(?:to|copy_)\(\s*f?['\"]cuda[^'\"\n]{0,8}['\"]\s*[,)]|\.cuda\(\s*\d*\s*\)|" + _TORCH_TO + ")"
_PEER_MOVE = (r"(?:\b(?:mov(?:e|es|ed|ing)|cop(?:y|ies|ied|ying)|transfer(?:s|red|ring)?|send(?:s|ing)?|sent|"
              r"cudaMemcpy(?:Peer)?(?:Async)?)\b|" + _TORCH_MOVE + ")")
GPU_TO_GPU = (r"(?:\b(?:between|across)\s+(?:the\s+|two\s+|my\s+|different\s+|\w+\s+)?"
               r"(?:GPUs|cards|(?:CUDA\s+)?devices)\b|"
               r"\bfrom\s+(?:one|a|the\s+first)\s+GPU\s+to\s+(?:another|a\s+second|the\s+other|a\s+different)\b|"
               r"\bto\s+(?:another|a\s+second|the\s+other|a\s+different)\s+(?:GPU|card|device)\b|"
               r"[`'\"]?cuda:\s*\d[`'\"]?[^.\n]{0,40}?[`'\"]?cuda:\s*\d\b|\bGPU\s*\d\b[^.\n]{0,40}?\bGPU\s*\d\b|"
               # (s20) the adjective: "Cross-GPU copies failing silently" (pytorch/pytorch#13803), "every cross-GPU
               # hidden-state hop" (turboderp-org/exllamav3#333)
               r"\bcross[- ]GPU\b)")
_PEER_WRONG = (r"(?:\b(?:all[- ])?zeros?\b(?:\s+tensor)?|\bzero (?:tensor|values?)\b|\bincorrect(?:ly)?\b|\bcorrupt\w*|"
               r"\b(?:set|reset|turned)\s+(?:in)?to\s+zeros?\b|"
               # (ut29g) the zeros written as digits, and the object between the verb and its zeros: "it will set the
               # tensor to 0's on the destination GPU" (turboderp-org/exllamav2#85), "the values are set to 0s"
               r"\b(?:set|reset|turned)\s+(?:(?:the|this|that|its|all|every|each|of|[\w-]+)\s+){0,3}?(?:in)?to\s+"
               r"(?:all\s+)?0['’]?s\b|"
               r"\bgarbage\b|\bfail(?:s|ed|ing)? silently\b|\bwrong (?:values?|data|results?|numbers?)\b|"
               r"\b(?:is|are|was|were)(?:n't| not) (?:right|correct)\b|"
               r"\bnot (?:cop(?:y|ied|ying)|mov(?:ed|ing)|transferr(?:ed|ing))\b[^.\n]{0,20}?\bcorrectly\b)")

# The first units of work of a run, as people count them: the collective calls, steps and requests of
# the engines' and NCCL's docs, and the items a benchmark loop processes (images, prompts, batches, epochs).
# (insuff32) Also counted as "the first and second picture", the item qualified ("the first test image", "the first
# input frame"), and a call's product ("the first return result is very slow"): wang-xinyu/tensorrtx#1407,
# vatsl/TrafficLight_Detection-TensorFlowAPI#1, deepjavalibrary/djl#1798 (each answered: warm-up / initialisation).
_FIRST_WORK = (r"\b(?:first|initial)\s+(?:few\s+|several\s+|couple of\s+|\d+\s+|one\s+|two\s+|three\s+|"
               r"(?:and|&|or)\s+second\s+)?(?:(?:test|input|real|actual|single)\s+)?"
               r"(?:(?:return(?:ed)?|inference|detection|prediction)\s+results?|"
               r"iterations?|calls?|steps?|runs?|requests?|batch(?:es)?|ncclSendRecv|send/?recv|"
               r"all[-_ ]?reduces?|collectives?|"
               r"allgathers?|images?|pictures?|photos?|inferences?|predictions?|detections?|queries|query|samples?|"
               r"frames?|prompts?|generations?|epochs?|"
               r"chats?|forward(?: pass(?:es)?)?|passes|invocations?|"
               # (s28, ut28f) a chat's units: "the first message takes a while to process, but subsequent messages
               # are fast" (MCPJam/inspector#155, an Ollama model loading on its first message)
               r"messages?|responses?|replies|reply)\b")

# --------------------------------------------------------------------------- failure families (issue 11 b)
# More families for failure categories, each from the vocabulary of the tool that reports the
# situation, part of PATTERNS like the rest.

# What follows a driver's release change in its sentence (a release's own dots, "532.03", do not end it): the failure or
# slowdown after the move, or the cure on moving back (driver_change).
_IN_SENTENCE = r"(?:[^.\n]|(?<=\d)\.(?=\d))"
_DRIVER_OUTCOME = (_IN_SENTENCE + r"{0,60}?\b(?:slow\w*|hang\w*|hung|regress\w*|drop\w*|fail\w*|crash\w*|worse|lower|"
                   r"went down|decreas\w*|fell|halved|freez\w*|stuck|deadlock\w*)\b")
_DRIVER_CURE = (_IN_SENTENCE + r"{0,60}?\b(?:fix\w*|solv\w*|resolv\w*|cur\w*|works?|worked|restor\w*|back to normal|"
                r"gone)\b")

FAILURE_PATTERNS: dict[str, list[str]] = {
    # NCCL on TCP sockets between nodes: its own INFO/WARN lines (net_socket.cc, net_ib.cc, ibvwrap.cc;
    # https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html) and the words for it.
    "net_socket": [
        r"\bUsing (?:network|internal Network) Socket\b", r"\bNET/IB\s*:\s*No device found\b",
        r"\b(?:ibv_open_device|ibv_get_device_list)\b[^\n]{0,30}?\bfail\w*", r"\bFailed to open libibverbs\b",
        r"\bNET/IB\s*:\s*Unable to open device\b", r"\bvia NET/Socket\b", r"\bNET/Socket\b",
        r"\b(?:fall(?:s|ing)?\s*back|fallback|fell back|revert(?:s|ed|ing)?)\s+"
        r"(?:to\s+)?(?:the\s+)?(?:plain\s+)?(?:TCP|sockets?|ethernet)\b",
        r"\b(?:TCP|sockets?|ethernet)\b[^.\n]{0,30}?\b(?:instead of|rather than)\b[^.\n]{0,20}?"
        r"\b(?:IB|InfiniBand|RDMA|RoCE|EFA)\b",
        r"\bNCCL\b[^.\n]{0,20}?\b(?:does not|doesn't|did not|didn't|never|won't|will not)\s+use\s+(?:the\s+)?"
        r"(?:IB|InfiniBand|RDMA|RoCE|EFA|HCA|mlx5\w*)\b",
        r"\b(?:IB|InfiniBand|RDMA|RoCE)\b(?: devices?| NICs?| HCAs?| cards?| network)?\s+(?:is |are |was |were )?"
        r"(?:not (?:being )?(?:used|detected|found|visible|available)|unavailable|unused|missing)\b",
        r"/dev/infiniband\b[^.\n]{0,40}?\b(?:not (?:mounted|passed|present|available|visible)|missing)\b",
        r"\bwithout\b[^.\n]{0,20}?(?:/dev/infiniband|--device[= ]/dev/infiniband)",
        r"(?:用的是|走的是|使用的?是)\s*(?:TCP\s*)?socket",
        # (issue 11 f) ibv_devinfo's own message; aws-ofi-nccl failing to find a provider (NCCL then uses sockets)
        r"\bNo IB devices found\b", r"\bibv_devinfo\b[^.\n]{0,40}?\bno (?:IB |RDMA )?devices?\b",
        r"\bNET/OFI\b[^\n]{0,80}?\b(?:couldn't find|could not find|unable to find|"
        r"no (?:eligible |optimal )?providers?)\b",
    ],
    # A PCIe link trained below what it can do: lspci's LnkSta "(downgraded)", nvidia-smi's
    # pcie.link.gen/width current below max, and the words for a slot or link running narrower or slower.
    "pcie_degraded": [
        r"\bLnkSta:?[^\n]{0,60}?\(downgraded\)",
        # (misfire35) lspci's LnkSta at Gen1/Gen2 speed (older lspci prints no "(downgraded)"): every GPU in the
        # catalog links at Gen3 or faster, so this is a lowered link, at idle power saving (ticket.pcie_words)
        r"\bLnkSta:?\s*Speed\s*(?:2\.5|5(?:\.0)?)\s?GT/s",
        # (issue 11 f) Linux's pcie_report_downtraining() at enumeration: "... available PCIe bandwidth, limited by
        # 2.5 GT/s PCIe x8 link at ... (capable of ... x16 link)"; GPU-Z's bus interface "PCIe x16 4.0 @ x4 4.0"
        r"\bavailable PCIe bandwidth, limited by\b[^\n]{0,120}",
        r"\bPCI-?E(?:xpress)?\s*x16\s+\d\.\d\s*@\s*x(?:1|2|4|8)\s+\d\.\d\b",
        r"(?<![\w.])(?:x[1248]|Gen\s?[1-4]|PCIe\s?[1-4](?:\.0)?|\d{1,2}(?:\.\d)?\s?GT/s)\b"
        r"[^.\n]{0,40}?\binstead of\b[^.\n]{0,25}?"
        r"(?<![\w.])(?:x16|x8|Gen\s?[2-6]|PCIe\s?[2-6](?:\.0)?|\d{1,2}(?:\.\d)?\s?GT/s)",
        r"\b(?:PCIe\s+)?link\b[^.\n]{0,30}?"
        r"\b(?:downgraded|degraded|trained (?:down|at)|drop(?:s|ped|ping)?(?: down)? to|f(?:alls?|ell|alling) back to|"
        r"negotiated (?:down|only))\b",
        r"\b(?:running|runs|stuck|linked|negotiat\w+|trained|operat\w+|only|stays?|stayed|remains?|remained)\s+"
        r"(?:at\s+)?(?:PCIe\s*(?:\d\.\d\s+)?)?"
        r"(?:Gen\s?[12]\b|2\.5\s?GT/s|5(?:\.0)?\s?GT/s|x1\b|x4\b)",
        r"\blink width\b[^.\n]{0,20}?\b(?:as |is |of |at )?x(?:1|2|4)\b(?!\d)",  # (issue 11 f)
        # nvidia-smi's own fields: pcie.link.width.current below pcie.link.width.max, "Link Width ... Current : 4x"
        r"\blink[ ._]width[ ._]current\b\W{0,6}(?:1|2|4|8)x?\b(?!\d)", r"\bCurrent\s*:\s*(?:1|2|4|8)x\b",
        # nvidia-smi -q's "PCIe Generation / Max : 4 / Current : 1" and the query fields, current below max, in words
        # (the -q block spans lines: "PCIe Generation\n    Max      : 4\n    Current  : 1")
        r"\bPCIe Generation\b\W{0,60}?\bMax\W{0,60}?([2-6])\W{0,60}?\bCurrent\W{0,60}?(?!\1)[1-5]\b",
        r"\bPCIe Generation\b\W{0,60}?\bCurrent\W{0,60}?([1-5])\W{0,60}?\bMax\W{0,60}?(?!\1)[2-6]\b",
        r"\bgen(?:eration)?[._ ]current\b\W{0,6}([1-5])\b[^.\n]{0,20}?\bmax\b\W{0,6}(?!\1)[2-6]\b",
        # the query fields in either order, then their values: "pcie.link.gen.max,pcie.link.gen.current ... 4, 1"
        r"\bpcie\.link\.gen\.max\s*,\s*pcie\.link\.gen\.(?:gpu)?current\b[\s\S]{0,60}?(?<![\d.])([2-6])\s*,\s*(?!\1)[1-5]\b",
        r"\bpcie\.link\.gen\.(?:gpu)?current\s*,\s*pcie\.link\.gen\.max\b[\s\S]{0,60}?(?<![\d.])([1-5])\s*,\s*(?!\1)[2-6]\b",
        # one GPU's link below its peers': "GPU2 shows gen 3 and width x8 while the others are gen4 x16"
        r"(?<![\w.])(?:gen(?:eration)?\s?[1-4]|x[148])\b[^.\n]{0,40}?\b(?:while|whereas|but)\s+(?:all\s+)?(?:the\s+)?"
        r"(?:others?|rest|other (?:GPUs|cards))\b[^.\n]{0,25}?(?<![\w.])(?:gen(?:eration)?\s?[2-6]|x16)\b",
    ],
    # Errors on a PCIe link (issue 11): the kernel's AER report (drivers/pci/pcie/aer.c: "PCIe Bus Error: severity=...",
    # "AER: Corrected error received", the error bits RxErr / BadTLP / BadDLLP / Replay Timer Timeout / REPLAY_NUM
    # Rollover), nvidia-smi -q's "Replays Since Reset" above a minute's allowance, and the words for them: AER or PCIe
    # bus errors, a replay counter climbing, a link stable only when forced to a lower generation (Gen5 signal
    # integrity).
    "pcie_errors": [
        r"\bPCIe Bus Error\b", r"\bAER:\s*(?:Multiple\s+)?(?:Correct|Uncorrect)\w*\b[^\n]{0,25}?\berror",
        r"\[\s*\d{1,2}\s*\]\s*(?:RxErr|BadTLP|BadDLLP|Receiver Error|Bad TLP|Bad DLLP|Replay Timer Timeout|"
        r"RE[PL]+AY_NUM Rollover)\b",
        r"\bAER\b[^.\n]{0,20}?\b(?:errors?|messages?|warnings?)\b",
        r"\bPCI-?e(?:xpress)?\s+(?:(?:bus|link|replay|AER)\s+)?errors?\b",
        # a rollover always; a count above one minute's allowance of DCGM's (ticket_rules.REPLAYS_PER_MINUTE)
        r"\bReplay Number Rollovers\b\W{0,10}[1-9]\d*\b",
        r"\b(?:Replays Since Reset|replay[ ._]?(?:count(?:er)?|errors?))\b\W{0,10}(?:9|[1-9]\d+)\b",
        r"\breplay(?:s|[ ._]?(?:count(?:er|s)?|errors?|number))?\b[^.\n]{0,30}?\b(?:climb\w*|increas\w*|ris(?:es|ing)|"
        r"rose|grow\w*|go(?:es|ing)? up|non-?zero|in the (?:thousands|hundreds))\b",
        r"\bsignal[- ]integrity\b",
        r"\bforc\w*\b[^.\n]{0,40}?\b(?:slots?|links?|PCIe|GPUs?|cards?)\b[^.\n]{0,25}?\b(?:to|at)\s+(?:PCIe\s*)?"
        r"(?:Gen\s?[1-4]|[1-4]\.0)\b",
        r"\b(?:errors?|crash\w*|freez\w*|unstable|hangs?)\b[^.\n]{0,20}?\bonly (?:at|on|with|in) (?:PCIe\s*)?"
        r"(?:Gen\s?5|5\.0)\b",
        # a kernel log said to hold none: its negation (_negated reads CLEAN_LOG)
        r"\b(?:dmesg|kernel log|journal(?:ctl)?|syslog)\b[^.\n]{0,20}?\b(?:is|was|looks?|are|were|came back|stays?)\s+"
        r"(?:completely\s+|totally\s+|all\s+)?clean\b",
        r"\bReplays Since Reset\b\W{0,10}0\b(?!\.\d)",
    ],
    # How a GPU is attached, as a configuration fact: risers, adapters, narrow slots. A prior for a
    # slow link, not a verdict by itself.
    "pcie_slot": [
        r"\b(?:risers?|extender|extension cables?|bifurcat\w*|M\.2[- ]to[- ]PCIe|OCuLink|Thunderbolt|eGPUs?|"
        r"mining (?:board|frame|rig))\b",
        # (ut28b) Thunderbolt and USB4 by their short names: "eGPUs using TB3", "over TB4", "a USB4 dock"
        r"\b(?:TB[345]|USB4)\b",
        r"(?<![\w.])x[148]\s+(?:slot|lanes?|link|electrical)\b",
        r"\b(?:slot|lanes?)\b[^.\n]{0,15}?(?<![\w.])x[148]\b(?!\d)",
        r"\b(?:PCIe\s*)?(?:3\.0|Gen\s?3)\s*x[48]\b(?!\d)",
    ],
    # A rank's CPU work on the other socket from its GPU: numactl / taskset / CPU-affinity words
    # (NCCL env docs NCCL_IGNORE_CPU_AFFINITY; vLLM/TRT-LLM NUMA-binding docs).
    "numa_words": [
        r"\b(?:cross|remote|wrong|other|opposite|different)[- ](?:NUMA|socket|CPU socket)\b",
        r"\bNUMA\b[^.\n]{0,40}?\b(?:mismatch\w*|wrong|remote|not (?:local|match\w*|aligned))\b",
        r"\b(?:numactl|taskset|--cpunodebind|--membind|CPU affinity|cpu[-_]affinity|NUMA binding|cpu[-_ ]bind\w*)\b"
        r"[^.\n]{0,60}?"
        r"\b(?:fast(?:er)?|fix(?:es|ed)?|helps?|helped|improv\w*|solv\w*|speeds? up|sped up|doubl\w*)\b",
        r"\b(?:faster|fix(?:es|ed)?|helps?|helped|improv\w*|solv\w*)\b[^.\n]{0,40}?"
        r"\b(?:numactl|taskset|CPU affinity|NUMA binding|--cpunodebind)\b",
        # GPUs taken from both sockets for one job, and it is slower: `topo -m`'s CPU/NUMA Affinity columns differ
        r"\b(?:different|other|separate|both|two|mixed)\W{0,2}\s*"
        r"(?:NUMA(?: nodes?| domains?| affinit\w*)?|CPU[ _]?affinit\w*|(?:CPU )?sockets)\b"
        r"[^.\n]{0,80}?\b(?:slow\w*|lower|worse|drops?|degrad\w*|latency)\b",
        r"(?:跨|不同(?:的)?)\s*(?:NUMA|CPU|socket|插槽)",
        # binding as the condition under which it is fine: "12 GB/s on GPU4-7 unless I run it with numactl"
        r"\b(?:unless|until|except (?:when|with)|only (?:with|when))\b[^.\n]{0,40}?"
        r"\b(?:numactl|taskset|--cpunodebind|cpu[-_ ]?affinity|NUMA binding)\b",
        # (issue 11 f) numastat / numa_maps showing a process's memory on the far node
        r"\b(?:numastat|numa_maps)\b[^.\n]{0,80}?\b(?:other|remote|wrong|far|different)\s+(?:NUMA\s+)?node\b",
        r"\bmemory\b[^.\n]{0,40}?\bon (?:the )?(?:other|remote|wrong|far) (?:NUMA )?(?:node|socket)\b",
        r"\bmemory\b[^.\n]{0,30}?\bon (?:NUMA )?node\s*(\d)\b[^.\n]{0,40}?\bGPU\b[^.\n]{0,30}?"
        r"\b(?:attached|connected|local|belongs)\s+to\s+(?:NUMA )?node\s*(?!\1)\d",
        r"\b(?:lower|slower|worse)\b[^.\n]{0,40}?\bthan with\b[^.\n]{0,20}?"
        r"(?:--bind-to[ =](?:numa|socket)|numactl|--cpunodebind|taskset)",
    ],
    # The NCCL release changed and the behaviour with it, said without two version numbers.
    "nccl_upgrade": [
        r"\b(?:after|since|when)\s+(?:I\s+|we\s+)?(?:upgrad\w*|updat\w*|switch\w*|bump\w*|mov\w*)\b[^.\n]{0,50}?\bNCCL\b",
        # "after the NCCL update", "since the NCCL upgrade", "with the new NCCL release": a change of NCCL
        # (a release or version is a change only when called new: "with the NCCL version that ships with PyTorch"
        # names the one in use)
        r"\b(?:after|since|with)\s+(?:the|an?|our|this|that)\s+(?:(?:(?:recent|latest|new(?:er)?)\s+)?NCCL\s+"
        r"(?:upgrade|update|bump)|(?:recent|latest|new(?:er)?)\s+NCCL\s+(?:release|version))\b"
        r"(?![^.\n]{0,40}?\b(?:same|unchanged)\b)",
        r"\bNCCL\b[^.\n]{0,40}?\b(?:upgrade|update|new(?:er)? (?:version|release))\b[^.\n]{0,60}?"
        r"\b(?:slow\w*|hang\w*|regress\w*|drop\w*|fail\w*|worse|lower|went down|decreas\w*|fell|halved)\b",
        # (the thing downgraded is NCCL, not a driver named first: "downgrading the driver fixed the NCCL hang")
        r"\bdowngrad\w*\b(?:(?!\bdrivers?\b)[^.\n]){0,40}?\bNCCL\b|\bNCCL\b[^.\n]{0,30}?\bdowngrad\w*",
        r"\b(?:roll\w* back|revert\w*|go\w* back)\b[^.\n]{0,20}?\bNCCL\b[^.\n]{0,20}?\b(?:to|v?\d)",  # (issue 11 f)
        r"\bNCCL\b[^.\n]{0,40}?\bregress\w*",
        # a failure said of every NCCL release from one on ("hangs when NCCL version >= 2.5.6", "an issue with NCCL
        # releases newer than v2.11.4", "hangs with NCCL 2.12 and newer"): the release that brought it, not a
        # requirement ("requires NCCL >= 2.18" names no failure)
        r"\b(?:hang\w*|fail\w*|slow\w*|crash\w*|deadlock\w*|broken|issue|problem|bug|error)\b[^.\n]{0,60}?"
        r"\bNCCL\s+(?:(?:versions?|releases?)\s*(?:>=?|≥|newer than|later than|after|since|above)\s*v?\d+\.\d+|"
        r"v?\d+\.\d+(?:\.\d+)?\s+and\s+(?:newer|later|above))",
        # the slowdown or failure put down to the NCCL release itself ("suboptimal performance on H100 multi-node due
        # to Incompatible NCCL", sgl-project/sglang#5980, whose image had NCCL upgraded to 2.26.2; "this is because of
        # the problems introduced by the NCCL version", NVIDIA/nccl#173, after a rollback restored the speed)
        r"\b(?:due to|caused by|because of|comes? from|results? from)\s+(?:an?\s+|the\s+)?"
        r"(?:(?:incompatible|mismatched|wrong|broken|buggy|new(?:er)?|upgraded|updated|bumped)\s+NCCL\b|"
        r"NCCL\s+(?:version\s+|release\s+)?(?:upgrade|update|bump|change)\b)",
        r"\b(?:introduced|brought in)\s+by\s+(?:the\s+|this\s+|that\s+)?(?:new(?:er)?\s+)?NCCL\s+"
        r"(?:version|release|upgrade|update)\b",
    ],
    # The GPU driver's release changed and the behaviour with it (vllm-project/vllm#2057 "after upgrade NVIDIA driver,
    # benchmarks drop down"; bmaltais/kohya_ss#884 "downgrade driver on 532.03 version - solve problem"): the failure
    # after the move, or the cure on moving back. A driver moved forward that cured it is no regression (the rule
    # drops fixed_by quotes that moved forward).
    "driver_change": [
        r"\b(?:after|since|when)\s+(?:I\s+|we\s+)?(?:the\s+)?(?:upgrad\w*|updat\w*|switch\w*|mov\w*|install\w*)\b"
        r"[^.\n]{0,30}?\bdrivers?\b" + _DRIVER_OUTCOME,
        r"\bdrivers?\s+(?:upgrade|update)s?\b" + _DRIVER_OUTCOME,
        r"\b(?:downgrad\w*|roll\w*\s*back|revert\w*|go\w* back)\b[^.\n]{0,30}?\bdrivers?\b" + _DRIVER_CURE,
        r"\bdrivers?\b[^.\n]{0,20}?\b(?:downgrad\w*|roll\w*\s*back|revert\w*)\b" + _DRIVER_CURE,
    ],
    # NCCL's generic failure of a system call (NCCL docs, troubleshooting: "unhandled system error"): most often,
    # inside a container, /dev/shm too small for its shared-memory segments; also sockets, memlock, IB devices.
    "nccl_system_error": [r"\bunhandled system error\b", r"\bncclSystemError\b", r"\bNCCL_ERROR_SYSTEM_ERROR\b"],
    # NCCL's RDMA transport reporting a failed transfer or a NIC event (nccl_log.IB_TRANSFER_ERROR, one reading)
    "ib_transfer_error": [nccl_log.IB_TRANSFER_ERROR.pattern],
    # A tensor-parallel size named in words, any language ("TP=6", "tensor parallel of 3", "张量并行使用3或者6").
    # (DeepSpeed's mp_size and Megatron's model-parallel size are the tensor-parallel degree)
    # A size form only for those two ("mp_size=4", "model_parallel_size: 4"): "model parallel on 2 nodes" counts nodes.
    # (not a word that only begins with the letters, "TPOT 48ms", "TPS", and not a figure the words go on to give with
    # its unit, "tensor parallel: 35 ms", "TP gives 40 tok/s": a time, a rate or a share is no size, as issue_md.TP;
    # a size is 1 or more)
    "tp_size_named": [r"(?:张量并行|\btensor[-_ ]?parallel\w*|\bTP(?![A-Za-z]))\D{0,10}?(?<![\d.])([1-9]\d?)(?![\d.])"
                      + NOT_A_SIZE,
                      r"\b(?:mp_size|model[-_ ]parallel[-_ ]size)\b\s*[=:]?\s*(\d{1,2})(?![\d.])"],
    # Step times that jump between two levels: a clock or power state switching (P-states, power brake,
    # thermal cycling) rather than a steady bottleneck (nvidia-smi clocks-event reasons, NVML docs).
    "bimodal": [
        r"\bbimodal\b",
        r"\b(?:alternat\w+|flip\w*|jump\w*|switch\w*|oscillat\w+|toggl\w+)\s+between\s+(?:two\s+)?[^.\n]{0,25}?"
        r"(?:speeds?|rates?|levels?|\d+(?:\.\d+)?\s*(?:ms|tok/s|tokens/s|it/s|s)\b)",
        r"\b(?:some|every other|every few|half (?:of )?the|random) (?:steps?|iterations?|runs?|batches|requests?)\b"
        r"[^.\n]{0,40}?"
        r"\b(?:\d+\s*x|twice|2x|much|far) (?:slower|longer)\b",
    ],
    # The slowdown reproduces on one GPU, without the engine or tensor parallelism: nothing between GPUs causes it.
    "single_gpu_repro": [
        r"\b(?:also|even|same|still)\b[^.\n]{0,40}?\b(?:on|with|using) (?:a |one |only one )?single GPU\b",
        r"\b(?:on|with) (?:a )?single GPU\b[^.\n]{0,40}?\b(?:also|too|as well|same|still)\b",
        r"\bwithout (?:vLLM|SGLang|the engine|tensor parallel\w*|TP|NCCL)\b[^.\n]{0,40}?\b(?:same|also|still|too)\b",
    ],
}


# --------------------------------------------------------------------------- failure families (issue 11 f)
# How reporters describe the host starving the GPU, a GPU's clock state changing with load or heat, and
# NCCL's IB transport switched off. Each family from its tool's vocabulary (NVML's utilisation sample, the
# PyTorch DataLoader and Lightning warnings, nvidia-smi's P-states and temperatures, NCCL's environment
# documentation) and from how many threads word the same situation, never from one case's sentence.
# What a gap "between" must separate to be idle time between units of work (not kernels or layouts).
_CALLS = (r"[^.\n]{0,25}?\b(?:calls?|requests?|inferences?|inference calls|runs?|iterations?|frames?|invocations?|"
          r"predictions?|queries|query|generations?|batches|evaluat\w+|run calls)\b")
# GPU utilisation read at its top ("GPU-Util 100%", "utilization is maxed", "100% GPU usage"; not the CPU's), and the
# board's power said low ("power is very low", "low power draw", "only 60W"; the watts a group)
_BUSY = (r"(?:(?:\bGPU[- ]?(?:util\w*|usage|load|occupancy)|(?<!CPU )(?<!cpu )\butili[sz]ation)\b[^.\n%]{0,20}?"
         r"(?:\b100\s*%|\bfull\b|\bmaxed(?: out)?\b|\bpegged\b|\bmax(?:imum)?\b)|"
         r"\b100\s*%\s+(?:GPU[- ]?)?(?:util\w*|usage|load|occupancy)\b|\bmax(?:imum|ed)? (?:GPU[- ]?)?util\w*)")
_LOW_POWER = (r"(?:\bpower(?: draw| usage| consumption)?\b(?! (?:cap|limit))[^.\n\d]{0,20}?"
              r"\b(?:(?:is|stays|remains|very|quite|really|extremely|so|super|pretty)\s+)*(?:low|tiny|minimal)\b|"
              r"\b(?:low|idle|minimal|tiny)\s+power\b|"
              r"\bonly\s+(?:draws?\s+|drawing\s+|using\s+|uses\s+|at\s+|about\s+|around\s+|~)?(\d{1,4})\s*(?:W|watts?)\b)")
FAILURE_PATTERNS_F: dict[str, list[str]] = {
    # The input pipeline holding the GPUs back: data loading, decoding, augmentation on the CPU
    # (https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html, "enable async data loading"), and
    # PyTorch Lightning's own warning "...does not have many workers which may be a bottleneck".
    "input_starved": [
        r"\b(?:data ?loader\w*|data[- ]loading|input pipeline|data pipeline|data feeding|pre-?processing|"
        r"augmentations?|image decoding|I/O)\b[^.\n]{0,50}?"
        r"\b(?:bottleneck\w*|can(?:not|'t)\s+keep up|(?:is|are|was|were) (?:too |very |extremely |really )?slow\b|"
        r"not fast enough|lag\w*|takes? (?:up )?(?:most|the bulk|[3-9]\d\s*%))",
        r"\bGPUs?\b[^.\n]{0,30}?\b(?:wait\w*|idl\w+|starv\w+)\b[^.\n]{0,20}?\b(?:for|on)\s+(?:the\s+)?"
        r"(?:data|input|inputs|batches|the next batch|(?:the )?data ?loader\w*|I/O|disk)\b"
        # (not data from a peer GPU or over a link: that wait is the collective's)
        r"(?!\s+(?:from|over|through|across|via)\s+(?:the\s+|a\s+|its\s+)?(?:other|another|peer|GPU|NVLink|PCIe|network|"
        r"rank|node))",
        r"\bdoes not have many workers which may be a bottleneck\b",
        r"\b(?:time|step time|most of (?:the|each) (?:time|step))\b[^.\n]{0,30}?\b(?:goes|is spent|spent)\b"
        r"[^.\n]{0,15}?\b(?:in|on|into)\s+(?:the\s+)?(?:data ?loader\w*|data loading|pre-?processing|I/O)\b",
        # a pause every N batches: N loader workers each finishing a batch at once, then all waiting
        r"\b(?:freez\w*|pause\w*|stall\w*|stuck|hang\w*|wait\w*|blocks?)\b[^.\n]{0,30}?\bevery\s+"
        r"(?:\d+|few|couple of|num_workers?|n)\s*(?:\w+\s+)?(?:iterations?|steps?|batches)\b",
        r"\b(?:start|beginning) of (?:every|each) epoch\b[^.\n]{0,60}?"
        r"\b(?:stuck|stall\w*|slow\w*|wait\w*|pause\w*|freez\w*|idle)\b",
        r"(?:数据加载|数据读取|数据预处理|dataloader)[^\n]{0,30}?(?:瓶颈|太慢|很慢|跟不上)",
    ],
    # GPU utilisation swinging between busy and idle. NVML's utilisation is the share of the sample period
    # with a kernel running, and NCCL's kernels spin while they wait (busy, not idle), so a GPU that drops to
    # low or zero and back has periods with no work queued: it waits on the host.
    "util_swings": [
        r"\bGPU[- ]?(?:util\w*|usage|load|occupancy|activity)\b[^.\n]{0,40}?"
        # (review29) "fluctuant" as well as fluctuating: "the volatile gpu-util is very low and fluctuant"
        # (poier/PreView#5)
        r"\b(?:fluctua(?:t\w*|nt)|oscillat\w*|spiky|swing\w*|jumps? (?:up and down|around|between)|"
        r"goes up and down|up and down|bounc\w*|periodically drops?|sawtooth|erratic|unstable|"
        # (left26) a change said over and over: "volatile GPU-utility will change periodically within 2-3 sec from 10%
        # to 99%" (ZX-Yin/ms-nerf#3)
        r"chang(?:e|es|ed|ing)\s+(?:periodically|frequently|constantly|rapidly|repeatedly|all the time))\b",
        # (left26) the share named before the GPU: "the usage of my GPU (NVidia GTX 970) starts fluctuating rapidly from
        # 0 to 100%" (develsoftware/GMinerRelease#341); not its memory ("the usage of GPU memory is always fluctuating",
        # laoreja/HPLFlowNet#7)
        r"\b(?:usage|utili[sz]ation|load|occupancy)\s+of\s+(?:the\s+|my\s+|each\s+|all\s+|our\s+)?GPUs?\b"
        r"(?!\s*(?:memory|mem|VRAM|RAM)\b)[^.\n]{0,40}?\b(?:fluctuat\w*|oscillat\w*|swing\w*|bounc\w*|"
        r"jumps? (?:up and down|around|between))\b",
        r"\bGPU[- ]?(?:util\w*|usage|load)\b[^.\n]{0,40}?\bdrops? to (?:0|zero)\b[^.\n]{0,40}?"
        r"\b(?:then|and (?:then )?(?:back|goes|climbs|rises)|every|periodically|from time to time|at other times)\b",
        r"\b(?:fluctuating|spiky|oscillating|erratic|unstable|jumpy|bursty)\s+GPU[- ]?(?:util\w*|usage|load)\b",
        # (hostbound37) low for long stretches, then a burst: "very low GPU memory/core usage for large periods of
        # time, then a spike in both, followed by a batch of text" (Blair-Johnson/batch-whisper#6)
        r"\b(?:low|no|zero)\s+GPU\b[^.\n]{0,25}?\b(?:usage|util\w*|load|activity)\s+for\s+(?:large|long|extended)\s+"
        r"(?:periods|stretches|spans)\b[^.\n]{0,25}?\bthen\s+(?:a\s+)?(?:spike|burst|jump|peak)s?\b",
        # (hostbound36) busy and idle in turn, said in words: "the GPU is either full or nothing", "GPU usage is either
        # maxed out or idle" (GerrySant/multimodalhugs#28); not its memory
        r"\bGPU(?:[- ]?(?:util\w*|usage|load))?\b(?:(?!memory|mem\b|VRAM)[^.\n]){0,25}?\beither\s+(?:at\s+)?"
        r"(?:full|busy|maxed(?: out)?|100\s*%|fully (?:used|utili[sz]ed))\s+or\s+(?:at\s+)?"
        r"(?:nothing|idle|empty|zero|0\s*%|doing nothing)(?!\w)",
        # "the utilization rate fluctuates between 0-100" in a text about the GPU (not the CPU's); (left26) a clause may
        # stand between: "GPU utilization does not consistently remain at 10%, but fluctuates between 0% and 10%"
        # (OpenBMB/MiniCPM-V#570)
        r"(?<!CPU )(?<!cpu )\butili[sz]ation(?: rate)?\b[^.\n]{0,60}?\b(?:fluctuat\w*|oscillat\w*|swing\w*)\b"
        r"[^.\n]{0,20}?\bbetween\s+0\b",
        # (left26) "the gpu utility varies so much" (NVIDIA/Megatron-LM#1415): varies said with how much
        r"\bGPU[- ]?(?:util\w*|usage|load)\b[^.\n]{0,20}?\bvar(?:y|ies|ied|ying)\s+(?:so\s+|very\s+)?"
        r"(?:much|a\s+lot|wildly|greatly|widely|significantly|dramatically)\b",
        # (review29) also "GPU的Util波动比较大" (JDAI-CV/fast-reid#294): the share in English inside Chinese
        r"GPU\s*(?:的\s*)?(?:利用率|使用率|占用率?|util\w*)[^\n]{0,20}?(?:波动|忽高忽低|时高时低|上下跳动|跳来跳去)",
        # (review29) the English twin of 一下X% 一下Y%: "the GPU call rate is sometimes 100%, sometimes 0%"
        # (deepinsight/insightface#453); not its memory
        r"\bGPU\b(?:(?!memory|mem\b|VRAM)[^.\n]){0,40}?\bsometimes\s+\d{1,3}\s*%\s*,?\s*(?:and\s+|but\s+)?"
        r"(?:sometimes|at other times|other times)\s+\d{1,3}\s*%",
        # (review29) the card named 显卡 ("显卡利用率和arcface的工程相比，波动较大",
        # DanJun6737/TopoFR#3), or the GPU named earlier in the clause, its memory said steady and
        # its share swinging ("gpu占存几乎没有变化，稳定在14g左右，但是使用率波动较大",
        # HUSTAI/uie_pytorch#18); not the memory (显存) that swings, nor the CPU's share
        r"显卡\s*(?:利用率|使用率|占用率)[^\n。]{0,20}?(?:波动|忽高忽低|时高时低)",
        r"GPU(?:(?!CPU|显存|内存)[^\n。]){0,30}?(?:利用率|使用率)\s*(?:波动|忽高忽低|时高时低)",
    ],
    # A GPU read busy while no work runs: "GPU utilization is 100% even when we are not inferencing", "no input text
    # for generation, why is the GPU occupancy 100%?", "推理结束，一张卡 GPU 利用率 100%". NVML's utilization.gpu is
    # the share of the sample period with any kernel resident (nvidia-smi --help-query-gpu: "Percent of time over the
    # past sample period during which one or more kernels was executing on the GPU"), so a kernel left waiting (NCCL's
    # collectives spin until their peers arrive; an engine's polling loop) reads 100 % at idle power.
    "util_when_idle": [
        r"\b(?:GPU[- ]?)?(?:util\w*|usage|occupancy)\b[^.\n]{0,40}?(?:\b100\s*%|\bfull\b|\bmaxed\b|\bpegged\b)"
        r"[^.\n]{0,30}?\b(?:even\s+)?(?:when|while|with)\s+(?:it\s+is\s+|it'?s\s+|the\s+(?:GPU|server|model)\s+is\s+|"
        r"(?:we|I)\s+(?:are|am|'?m|'?re)\s+|there\s+(?:is|are)\s+)?(?:idle|idling|not\s+(?:inferencing|serving|generating|"
        r"running\s+(?:any\w*|inference|requests))|no\s+(?:requests?|input|inputs|input text|load|traffic|prompts?|"
        r"jobs?)\b|nothing\s+(?:is\s+)?running)",
        r"\b(?:no\s+(?:input(?: text)?|requests?|prompts?|load|traffic)\b|(?:when|while)\s+(?:it\s+is\s+)?idle\b)"
        r"[^.\n]{0,50}?\b(?:GPU[- ]?)?(?:util\w*|usage|occupancy)\b[^.\n]{0,20}?\b100\s*%",
        r"\bafter\s+(?:the\s+)?(?:inference|generation|requests?|run|job|benchmark)\w*\s+(?:is\s+|are\s+|has\s+|have\s+)?"
        r"(?:finished|ended|done|completed?|over)\b[^.\n]{0,60}?(?:\b(?:util\w*|usage|occupancy)\b[^.\n]{0,20}?\b100\s*%|"
        r"\b100\s*%\s+(?:GPU[- ]?)?(?:util\w*|usage|occupancy)\b)",
        r"(?:推理|生成|请求|任务|运行)(?:已经|已)?(?:结束|完成|完毕)[^\n]{0,30}?(?:利用率|使用率|占用率?)[^\n]{0,15}?100\s*%",
        r"(?:空闲|闲置|没有(?:任何)?(?:请求|推理|任务|输入)|无请求|不推理)[^\n]{0,30}?(?:利用率|使用率|占用率?)[^\n]{0,15}?"
        r"100\s*%",
        # (the idle words after the figure only under "even": "推理时100%，空闲时0%" reads two states)
        r"(?:利用率|使用率|占用率?)[^\n]{0,15}?100\s*%[^\n]{0,10}?(?:即使|即便|哪怕|甚至)[^\n]{0,10}?(?:空闲|闲置|"
        r"没有(?:任何)?(?:请求|推理|任务|输入)|无请求|不推理)",
    ],
    # (issue 11, s22) Busy at 100 % while the board draws little power: the same counter (a kernel resident all the
    # sample period) with the power showing that it does not compute, what a collective spinning while it waits for a
    # peer looks like ("利用率满载 but 功耗很低", QwenLM/Qwen#970). ticket.busy_low_power reads it beside a hang or a
    # slow run, and sets a stated wattage against the board's rated power (data groups: the watts, when said).
    "busy_low_power": [
        _BUSY + r"[^.\n]{0,40}?\b(?:but|yet|while|though|although|with|and|at)\b[^.\n]{0,30}?" + _LOW_POWER,
        _LOW_POWER + r"[^.\n]{0,40}?\b(?:but|yet|while|though|although|despite|even though|and|with)\b[^.\n]{0,30}?"
        + _BUSY,
        r"(?:利用率|使用率|占用率?)[^\n]{0,10}?(?:满载|跑满|拉满|满了|100\s*%)[^\n]{0,20}?(?:功耗|功率)[^\n]{0,6}?"
        r"(?:很低|较低|偏低|低|只有\s*(\d{1,4})\s*W|才\s*(\d{1,4})\s*W)",
        r"(?:功耗|功率)[^\n]{0,6}?(?:很低|较低|偏低|低|只有\s*(\d{1,4})\s*W|才\s*(\d{1,4})\s*W)[^\n]{0,20}?"
        r"(?:利用率|使用率|占用率?)[^\n]{0,10}?(?:满载|跑满|拉满|满了|满|100\s*%)",
    ],
    # Slower when work arrives with gaps: the driver drops an idle GPU to a low-power P-state and the first
    # kernels after the gap run at low clocks (nvidia-smi -q "Performance State"; persistence mode and locked
    # clocks, https://docs.nvidia.com/deploy/driver-persistence/).
    "idle_gap_slow": [
        # (gaps between calls, not between kernels, steps of a trace or two TP sizes)
        r"\b(?:delays?|sleeps?|pauses?|gaps?|intervals?|idle (?:time|period)s?|time (?:interval|gap)s?)\b"
        r"[^.\n]{0,20}?\bbetween\b" + _CALLS + r"[^.\n]{0,80}?"
        r"\b(?:slow\w*|longer|increas\w*|drops?|grows?|higher|worse)\b",
        r"\b(?:slow\w*|longer|increas\w*|drops?|grows?|higher|worse)\b[^.\n]{0,60}?"
        r"\b(?:delays?|sleeps?|pauses?|gaps?|intervals?|idle)\b[^.\n]{0,20}?\bbetween\b" + _CALLS,
        r"\bnot (?:run\w* )?continuous\w*\b[^.\n]{0,60}?\bslow\w*",
        r"\b(?:every (?:few|\d+(?:\.\d+)?) ?(?:s|secs?|seconds?|minutes?)|sparse\w*|occasional\w*|"
        r"with (?:a )?(?:sleep|delay|pause)s?)\b[^.\n]{0,120}?\b(?:back[- ]to[- ]back|continuous\w*|consecutive\w*|"
        r"in a (?:tight )?loop)\b",
        r"\bafter\s+(?:being\s+|it (?:is|was|has been)\s+|the GPU (?:is|was|sits|sat|has been)\s+)?"
        r"idle\b[^.\n]{0,60}?\b(?:slow\w*|longer|spikes?|higher)\b",
    ],
    # NCCL's IB/RoCE transport off: NCCL_IB_DISABLE=1 "prevents the IB/RoCE transport from being used by NCCL;
    # NCCL will fall back to using IP sockets" (NCCL environment-variable documentation).
    "rdma_off": [
        # (GPUDirect RDMA off is gdr_off: NCCL keeps NET/IB and stages through host memory, no sockets)
        r"(?<!Direct )(?<!Direct-)\b(?:IB|InfiniBand|RDMA|RoCE)\b"
        r"(?: transport| network| fabric)?\s*(?:is |was |were |got |being )?(?:disabled|turned off|switched off)\b",
        # (not "without IB": a cluster that has none runs NCCL on its Ethernet by design, no fallback)
        r"\b(?:disabl\w+|turn\w* off|switch\w* off)\s+(?:the\s+)?(?:IB|InfiniBand|RDMA|RoCE)\b",
    ],
}


# (issue 11 f) More word orders and the same situations in Chinese, merged into the families above and the
# older ones (P2P refused: torch's can_device_access_peer, p2pBandwidthLatencyTest's "CANNOT Access Peer").
MORE_WORDS_F: dict[str, list[str]] = {
    "no_p2p": [
        r"\b(?:P2P|peer[- ]to[- ]peer)\b[^.\n]{0,40}?\b(?:is|are|was|were)\s+not\s+"
        r"(?:supported|available|enabled|possible|working)\b",
        r"\bcan_?device_?access_?peer\b[^\n]{0,30}?(?:returns?|==?|is|:|->)\s*(?:False|0)\b",
        r"\bCANNOT Access Peer\b",
        # the card or platform said not to support P2P, accelerate's refusal included ("Using RTX 4000 series doesn't
        # support faster communication broadband via P2P or IB", huggingface/accelerate src/accelerate/state.py;
        # "it seems that the RTX 4090 does not support P2P", NVIDIA/nccl#1127); a clause, not past a comma
        r"\b(?:does ?n[o'’]t|do ?n[o'’]t|does not|do not|can ?n[o'’]t|cannot|won'?t)\s+support\b[^.\n,;]{0,50}?"
        r"\b(?:P2P|peer[- ]to[- ]peer)\b",
    ],
    "net_socket": [r"(?:走|用)(?:的是)?\s*以太网|没有?\s*(?:用上|使用|走)\s*(?:IB|RDMA|InfiniBand|RoCE)\b|"
                   r"\b(?:IB|RDMA)\s*(?:没有?|未)\s*(?:用上|使用|生效|启用)",
                   # (issue 11, paraphrase audit) TCP named as the transport ("we use TCP for communication") and IP
                   # over InfiniBand, NCCL's socket transport on an IB port ("I was getting 4GBps (IPoIB)")
                   r"\b(?:use[sd]?|using|fall(?:s)? back to|over)\s+(?:plain\s+)?(?:TCP|sockets?)\s+for\s+(?:the\s+)?"
                   r"(?:communication|transport|data|traffic|collectives|all[-_ ]?reduce)\b",
                   r"\b(?:getting|got|gets|only|using|over|via|through)\b[^.\n]{0,30}?\bIPoIB\b"],
    "cpu_ab": [r"单核\s*跑满|CPU\s*(?:单核\s*)?跑满|CPU\s*(?:成为了?|是)\s*瓶颈"],
    "eager_flag": [r"(?:关闭|禁用|关掉)了?\s*CUDA\s*graphs?|CUDA\s*graphs?\s*(?:被)?(?:关闭|禁用)"],
    "clock_power": [r"(?:频率|主频|核心频率)[^\n]{0,10}?(?:锁在|只有|卡在|降到)\s*\d{2,4}\s*MHz"],
    "pcie_degraded": [r"(?:跑在|运行在|插在|只有|降到了?|降为)\s*PCIe\s*(?:\d\.\d\s*)?(?:x[148]\b|Gen\s?[12]\b)|"
                      r"(?:链路|带宽)\s*(?:降到了?|降为|只有)\s*(?:PCIe\s*)?(?:Gen\s?[12]\b|x[148]\b)"],
    "numa_words": [r"不在同一(?:个)?\s*NUMA",
                   # (para37c) the English "wrong/remote/cross NUMA" in Chinese: "分配在错误的NUMA节点上", "跨NUMA访问"
                   r"(?:错误|远端|远程|另一个|另一颗|对面)\s*(?:的)?\s*(?:NUMA|CPU\s*插槽|socket)|跨\s*NUMA"],
    # (left26) "GPU利用率一直在跳 ... 一下100% 一下 0%" (hiyouga/LlamaFactory#8958): 一直在跳 "keeps jumping",
    # 一下 ... 一下 "one moment ... the next"
    "util_swings": [r"GPU\s*(?:利用率|使用率)[^\n]{0,20}?(?:之间跳|跳动|波动|忽高忽低|时高时低|一直在跳|来回跳)",
                    r"(?:利用率|使用率)[^\n]{0,30}?一下\s*\d{1,3}\s*%\s*一下\s*\d{1,3}\s*%"],
}


# --------------------------------------------------------------------------- host-side families (issue 11 j)
# More of the host-side vocabulary, from the documents that name each situation: vLLM's and SGLang's
# optimisation guides (CPU overhead, the scheduler and detokenizer on the serving process, CUDA graphs off
# for features that cannot be captured), TensorRT-LLM's `cuda_graph_config` (null turns graphs off), the CUDA
# graphs blog (the CPU cannot keep up issuing short kernels), Slurm's `--cpu-bind` and the Linux sysfs
# `numa_node` file (-1: the firmware gave the kernel no NUMA node for the device), `nvidia-smi -pl` (the power
# limit) and how collective stragglers are reported (one rank always last, the others waiting for it).
# "CPU" naming the host's memory, its link to the GPU or an offload to it, not the thread that drives the GPU: "the
# CPU-GPU PCIe link", "CPU memory bandwidth", "CPU RAM", "the CPU offload of the KV cache", "the CPU side".
_NOT_THE_HOST_THREAD = (r"(?![-–/ ]?(?:to[- ])?GPU\b|[-– ]side\b|\s*(?:memory|RAM|DRAM|DDR\d?|offload\w*|bandwidth|"
                        r"link|PCIe|<->|->|↔)\b)")
MORE_WORDS_J: dict[str, list[str]] = {
    "cpu_ab": [
        # one named thread or core at its limit ("a single Python thread pinned at 100 %")
        r"\b(?:one|single|1|a)\s+(?:Python|main|engine|server|scheduler|worker|process(?:'s)?)\s+"
        r"(?:CPU\s+)?(?:thread|core|process)\b[^.\n]{0,40}?\b(?:100\s*%|maxed|pegged|saturat\w*|fully busy)",
        r"\b(?:pinned|pegged|stuck|sits?|sitting|running)\s+at\s+100\s*%\s+(?:of\s+)?(?:one|a single|1)\s+"
        r"(?:CPU\s+)?(?:core|thread)\b",
        # the work bound by one thread's speed ("bottlenecked by single-threaded performance")
        # ("mono-threaded", "monothread": the same word as French and Spanish technical English write it)
        r"\b(?:single[- ]|mono-?)thread(?:ed)?\b[^.\n]{0,30}?\b(?:bottleneck\w*|bound|limit\w*|hold\w* back|"
        r"held back)\b|"
        r"\b(?:bottleneck\w*|bound|limited|held back)\b[^.\n]{0,30}?\b(?:single[- ](?:thread(?:ed)?|core)|"
        r"mono-?thread(?:ed)?)\b",
        # the CPU said to hold the GPU back ("CPU limits GPU computation", "the GPUs are limited by the CPU"); "the CPU
        # does not limit the GPU" rules it out, and the host's memory, link or offload is no host thread ("limited by
        # the CPU-GPU PCIe link", "bound by CPU memory bandwidth", "limited by the CPU offload": _NOT_THE_HOST_THREAD)
        r"\bCPU\b" + _NOT_THE_HOST_THREAD + r"(?:(?!\b(?:not|never|no)\b|n't)[^.\n]){0,20}?\b(?:limits?|limiting|"
        r"throttles?|throttling|holds? back|holding back|starv(?:es|ing))\s+(?:the\s+)?GPUs?\b",
        r"\b(?:GPUs?|speed|throughput|performance|generation|decod\w*|inference)\b(?:(?!\b(?:not|never|no)\b|n't)[^.\n])"
        r"{0,40}?\b(?:limited|bound|bottlenecked|held back|starved)"
        r"\s+by\s+(?:the\s+|a\s+|one\s+)?(?:single[- ]threaded\s+)?CPU\b" + _NOT_THE_HOST_THREAD,
        r"\b(?:only|just)\s+(?:ever\s+)?(?:uses?|using|runs? on|utili[sz]es?)\s+(?:a\s+single|one|1)\s+"
        r"(?:CPU\s+)?(?:thread|core)\b",
        # one thread whatever the thread count is set to (llama.cpp's -t/--threads, Ollama's num_thread)
        r"\b(?:single|one|1)\s+(?:CPU\s+)?thread\b[^.\n]{0,40}?\b(?:regardless of|whatever|no matter)\b[^.\n]{0,20}?"
        r"(?:--threads\b|(?<![\w-])-t\b|\bnum_threads?\b|\bn_threads\b)",
        # Hugging Face's warning "Using a slow tokenizer. This might cause a significant slowdown", and latency that
        # is mostly tokenization
        r"\bslow (?:Python )?tokeni[sz]er\b",
        r"\b(?:most|majority|bulk|\d{2}(?:\.\d+)?\s*%)\s+of\s+(?:(?:the\s+)?(?:latency|time|wall[- ]?time|TTFT)|it|"
        r"that|this)\s+(?:is|was|(?:goes|went) (?:to|into|in|on)|comes from|(?:is |was )?spent (?:in|on|into|to))\s+"
        r"(?:the\s+)?(?:tokeni\w+|detokeni\w+|schedul\w+|sampl\w+|pre-?process\w*|post-?process\w*|Python)\b",
        # a host profile (py-spy, cProfile, nsys's CPU rows) where the serving stages take the time
        r"\b(?:most|majority|bulk|\d{2}(?:\.\d+)?\s*%)\s+of\s+(?:the\s+)?(?:wall[- ]?(?:clock\s+)?|CPU\s+|step\s+)?"
        r"time\b[^.\n]{0,40}?\b(?:in|on|inside)\s+(?:the\s+)?(?:engine'?s?\s+)?(?:scheduler\w*|schedul\w+|"
        r"detokeni\w+|tokeni\w+|sampl\w+|Python|pre-?process\w*|post-?process\w*|logits? process\w*|"
        r"output process\w*|input (?:prep\w*|process\w*))\b",
        # the GPU idle between whole steps (not between kernels: launch_overhead; nor between requests or
        # calls: idle_gap_slow)
        r"(?<!pipeline )\b(?:gaps?|idle (?:time|periods?|gaps?))\b[^.\n]{0,20}?\bbetween\s+(?:the\s+|consecutive\s+|"
        r"each\s+|two\s+)?(?:decode|decoding|forward|generation|engine|model|scheduler)\s+(?:steps|iterations|"
        r"passes|calls)\b(?![^.\n]{0,30}?\b(?:pipeline|stages?)\b)",  # (a pipeline's bubbles: pp_bubble)
    ],
    "eager_flag": [
        # torch.compile off in a hand-written decode loop (its "reduce-overhead" mode is PyTorch's CUDA graphs)
        r"\btorch\.compile\b(?:(?!\bnot\b|n't\b|\bnever\b)[^.\n]){0,20}?\b(?:turned off|switched off|disabled)\b",
        r"\bTORCHDYNAMO_DISABLE\s*=\s*1\b",
        # TensorRT-LLM's LLM API: cuda_graph_config null/None turns CUDA graphs off in the PyTorch backend
        r"\bcuda_graph_config\W?\s*[=:]\s*(?:(?:null|None)\b|~(?!\S))",
        # a feature the engine cannot capture: "CUDA graphs are not supported with ..., running without them"
        r"\bCUDA[- ]?graphs?\b[^.\n]{0,30}?\b(?:(?:is|are)\s+)?(?:not supported|unsupported|incompatible|"
        r"cannot be (?:used|captured|enabled)|can't be (?:used|captured|enabled)|disabled (?:for|with|because|when|"
        r"since|under))\b",  # ("not used for prefill", "skipped above batch 512": vLLM's normal capture, no graphs off)
        # vLLM's config dump with graphs off: compilation_config {... 'cudagraph_mode': <CUDAGraphMode.NONE: 0>}
        r"\bCUDAGraphMode\.NONE\b",
        r"\b(?:runs?|running|ran|serv\w+|decod\w+)\s+without\s+(?:CUDA[- ]?graphs?|cudagraphs?)(?![\w-])",
        # (s23) the graphs captured but not run: "the CUDA graph not being properly launched" (sgl-project/sglang#5527,
        # found with Nsight Systems), "the slow run did not activate CUDA graph" (SGLang's maintainer on
        # sgl-project/sglang#6092): decode then launches every kernel from the host, as in eager mode. Not "skipped":
        # graphs skipped above the largest captured batch are the engines' normal capture (vLLM, SGLang docs); nor a
        # prefill without them ("not used for prefill": the engines capture decode only)
        r"\bCUDA[- ]?graphs?\s+(?:(?:is|are|was|were)\s+)?(?:not|never)\s+(?:being\s+)?(?:properly\s+|actually\s+|"
        r"really\s+)?(?:launched|activated|replayed|triggered|used|running)\b(?![^.\n]{0,25}?\bprefill)",
        r"\b(?:did|does|do)\s*(?:not|n't)\s+(?:activate|launch|replay|use|trigger)\s+(?:the\s+|any\s+)?"
        r"CUDA[- ]?graphs?\b",
    ],
    "launch_overhead": [
        # a profile's kernel count per token or step, and kernels shorter than a launch
        r"\b(?:\d{1,3}(?:,\d{3})+|\d{3,})\s+(?:tiny\s+|small\s+|short\s+)?kernels?\s+(?:per|each|every|for each)\s+"
        r"(?:step|token|frame|iteration|forward|layer|decode)\b",
        r"\bkernels?\b[^.\n]{0,40}?\b(?:under|below|shorter than|less than)\s+\d+(?:\.\d+)?\s*(?:us|µs|μs|"
        r"microseconds?)\b[^.\n]{0,60}?\bidle\b",
        r"\bGPU\b[^.\n]{0,20}?\b(?:sits |is |stays )?idle between (?:them|each (?:one|kernel)|launches)\b",
        # the CUDA-graphs blog's words: the CPU cannot issue kernels as fast as the GPU finishes them
        r"\b(?:CPU|host|Python)\b[^.\n]{0,30}?\b(?:cannot|can't|can not|could not|couldn't|unable to)\s+keep up\b"
        r"[^.\n]{0,20}?\b(?:issu\w+|launch\w+|dispatch\w+|enqueu\w+|submitt?\w+)\b",
        r"\blaunch(?:es|ing)?\b[^.\n]{0,20}?\btak(?:e|es|ing)\s+(?:about\s+|~)?\d+(?:\.\d+)?\s*"
        r"(?:us|µs|μs|microseconds?)\b",
    ],
    "one_slow": [
        # a numbered rank, node or GPU always behind, or everyone waiting for it
        r"\b(?:rank|node|GPU|worker|host|device)\s*#?\d+\b[^.\n]{0,40}?\b(?:always|consistently|every (?:step|time|"
        r"iteration))\b[^.\n]{0,30}?\b(?:last|late|behind|slower|lags?|lagging)\b",
        r"\b(?:every|each) (?:step|iteration|collective|all[-_ ]?reduce)\b[^.\n]{0,20}?\bwaits? (?:for|on)\s+"
        r"(?:the\s+)?(?:rank|node|GPU|worker|host|device)\s*#?\d+\b",
        # (the rank waited for is numbered: "the others wait for it" may be a checkpoint on rank 0)
        r"\b(?:the\s+)?others\s+(?:all\s+)?wait(?:s|ing|ed)?\s+(?:for|on)\s+(?:rank|node|GPU|worker|device)\s*#?\d+\b",
        r"\bothers\s+wait\s+\d+(?:\.\d+)?\s*(?:-\s*\d+(?:\.\d+)?\s*)?(?:ms|s|us)\b[^.\n]{0,30}?"
        r"\b(?:for|before|until)\s+(?:rank|node|GPU|worker|device)\s*#?\d+\b",
    ],
    "hardware_error": [
        # nvidia-smi -q's row-remapping and page-retirement fields with a pending or failed remap
        r"\bRemapped Rows?\b[^\n]{0,25}?\b(?:Pending|Failure(?: Occurred)?)\s*:\s*Yes\b",
        r"\bRemapping Failure Occurred\s*:\s*Yes\b", r"\bPending (?:Page )?(?:Blacklist|Retirement)\s*:\s*Yes\b",
    ],
    "numa_words": [
        # sysfs numa_node of -1 on a multi-socket host: no NUMA node is known for the device, so nothing can bind
        # its work locally (`nvidia-smi topo -m` then shows NUMA Affinity N/A). On one socket -1 is harmless: the
        # rule counts it only beside a multi_socket claim (NO_NUMA_NODE tells it apart).
        r"\bnuma_node\b[^\n]{0,60}?(?:=|:|prints?|shows?|is|returns?|gives?)\s*-1\b",
        r"\bNUMA (?:node|affinity|ID)\b\s*(?:of\s+(?:the\s+)?GPU\s*)?(?:=|:|is)?\s*-1\b",
    ],
    "multi_socket": [
        # two sockets or NUMA nodes named by number in one sentence ("on socket 0 although GPUs 4-7 are on socket 1")
        r"\bsocket\s*#?(\d)\b[^.\n]{0,80}?\bsocket\s*#?(?!\1)\d\b",
        r"\bNUMA\s+(?:node\s*)?#?(\d)\b[^.\n]{0,80}?\bNUMA\s+(?:node\s*)?#?(?!\1)\d\b",
    ],
    "no_cpu_binding": [
        # Slurm's srun --cpu-bind=none (or cpu_bind="verbose,none" in a launcher's config): tasks unbound
        r"--cpu[-_]bind(?:=|\s+)(?:verbose,)?none\b", r"\bcpu_bind\W{0,3}\s*[=:]\s*\W?(?:verbose,)?none\b",
    ],
}

NO_NUMA_NODE = re.compile(r"(?<![\w-])-1\b")

# New kinds of this block. The board's power limit as configured (`nvidia-smi -pl`, `--power-limit`, nvidia-smi
# -q's "Power Limit"): a limit well below the board's rated power (the catalog's tdp_w) holds its clocks down
# whenever the work would draw more (claims(): power_limit, or power_limit_ok at or near the rated power).
FAILURE_PATTERNS_J: dict[str, list[str]] = {
    # Two GPUs' clocks under the same load in one sentence ("GPU0 at 2100 MHz vs 2750 MHz on GPU1"): identical boards
    # run within a few boost bins of each other, so one well below its peer is held down (claims(): clock_peers, or
    # clock_peers_ok within 10 %).
    "clock_peers": [
        r"(?<![\d.])(\d{3,4})\s*MHz\b[^.\n]{0,50}?\b(?:vs\.?|versus|while|whereas|but|compared (?:to|with))\b"
        r"[^.\n]{0,40}?(?<![\d.])(\d{3,4})\s*MHz\b",
    ],
    # The figure the limit is set to: "limit is / set to / : / =" or its target "from X to Y" (not "can be set between
    # 150 W and 600 W", nvidia-smi -q's Min/Max Power Limit, nor the draw beside "SW Power Cap").
    "power_limit": [
        r"(?<!Min )(?<!Max )(?<!Minimum )(?<!Maximum )\bpower[- ]?limit\b\s*(?:(?:is|was|of|at|to|[:=])\s*|"
        r"(?:(?:is|was|got)\s+)?(?:set|lowered|capped|reduced|raised|increased|changed|limited)\s+(?:to|at)\s+|"
        r"from\s+\d{2,4}(?:\.\d+)?\s*(?:W|watts?)\s+to\s+)(?:about\s+|~)?(\d{2,4}(?:\.\d+)?)\s*(?:W|watts?)\b",
        r"(?:\s-pl|--power-limit)(?:=|\s+)(\d{2,4})\b(?!\s*%)",
        r"\b(\d{2,4}(?:\.\d+)?)\s*(?:W|watts?)\s+(?:power[- ]?)?limit\b",  # "one L4 (72 W limit)"
    ],
}

# Kinds of this block whose matched words can carry their own negation ("GPU usage does not fluctuate").
_NEGATED_INSIDE_F = ("input_starved", "util_swings", "idle_gap_slow", "busy_low_power")
_INSIDE_NEGATION_F = re.compile(r"\b(?:is|are|was|were|does|do|did)\s+not\b(?! have many workers\b)|"
                                r"\b(?:isn't|aren't|wasn't|weren't|doesn't|don't|didn't|never)\b", re.I)

# A GPU temperature the reporter states: "the GPU sits at 87C", "温度到了 88 度". GeForce boards hold
# 83 C as their GPU Boost target and lower clocks above it (nvidia-smi -q "GPU Target Temperature");
# data-centre boards list a slowdown temperature of 85-92 C ("GPU Slowdown Temp"). From HOT_C on, the
# clocks are at or near their thermal limit.
HOT_C = 83
_TEMP = re.compile(r"(?<![\w.])(\d{2,3})(?:\.\d)?\s*(?:°\s*C\b|℃|ºC\b|C\b|degrees?\b(?:\s*C(?:elsius)?\b)?|度)", re.I)
_TEMP_SUBJECT = re.compile(r"\b(?:GPUs?|temp\w*|hot\w*|cards?|cores?|junction|hotspot|memory temp\w*|VRAM)\b|温度",
                           re.I)
_NOT_GPU_TEMP = re.compile(r"\b(?:CPU|ambient|room|inlet|outside|water|coolant|air)\b[^.\n]{0,25}$", re.I)


def temperatures(said: list[tuple[str, str]]) -> list[Claim]:
    """GPU temperatures stated in the reporter's words (`said`: texts()), in degrees Celsius (data: celsius, hot)."""
    out = []
    for source, text in said:
        for sentence in sentences(text):
            if not _TEMP_SUBJECT.search(sentence):
                continue
            for m in _TEMP.finditer(sentence):
                celsius = float(m.group(1))
                if not 30 <= celsius <= 120 or _NOT_GPU_TEMP.search(sentence[max(0, m.start() - 30):m.start()]):
                    continue
                out.append(Claim("gpu_temp", source, _quote(sentence, m), {"celsius": celsius,
                                                                           "hot": celsius >= HOT_C},
                                 negated=_negated("gpu_temp", sentence, m), guess=_guessed(sentence, m.start())))
    return out


# One NCCL release per pasted block: "run with nccl 2.21.5:" above one block of output, "### v2.18.5-1" above
# the next. The figure both blocks print (a duration, a bus bandwidth, a rate) is compared as an A/B.
_RELEASE_INTRO = re.compile(r"(?:\bNCCL\b|\blibnccl\w*|\bnccl\b)[^\n]{0,25}?\bv?([12]\.\d{1,2}(?:\.\d{1,2})?)\b|"
                            r"^\W{0,6}v([12]\.\d{1,2}\.\d{1,2})-\d\b", re.I)
_BLOCK_FIGURE = re.compile(r"\b(duration|elapsed|time|latency|bus ?bandwidth|busbw|algbw|throughput|tok(?:ens)?/s|"
                           r"samples/s\w*|it/s)\b[^\d\n]{0,25}?(\d+(?:\.\d+)?)", re.I)


def _block_figures(body: str) -> dict[str, float]:
    found: dict[str, list[float]] = {}
    for m in _BLOCK_FIGURE.finditer(body):
        found.setdefault(m.group(1).lower().replace(" ", ""), []).append(float(m.group(2)))
    return {k: sorted(v)[len(v) // 2] for k, v in found.items()}  # the median of each figure


def release_blocks(facts: Facts) -> list[Claim]:
    """An A/B of NCCL releases given as one block of pasted output per release: each prose line naming a
    release (and nothing else) is paired with the next pasted block of the same file, the nearest such line
    before a block naming it (a title or an opening line that names one release, "Performance drop ... for NCCL
    >= 2.20", is not what introduces the first block), and the blocks' common figure must differ by more than
    RELEASES_DIFFER."""
    outputs = sorted(pasted_blocks(facts),
                     key=lambda s: line_number(s[0]))
    for n in facts.of(Note):
        lines, where = n.text.splitlines() if n.kind == "description" and n.text else [], n.data.get("prose_sources")
        if not lines or not where or len(lines) > len(where):
            continue  # (the prose is stripped: blank lines at its end are gone, its lines still start together)
        file = where[0].rsplit(":", 1)[0]
        introduced: dict[str, tuple[str, tuple[str, str]]] = {}  # block source -> (release, block)
        for line, at in zip(lines, where):
            versions = {a or b for a, b in _RELEASE_INTRO.findall(line)}
            if len(versions) != 1:
                continue
            after = [(s, t) for s, t in outputs if s.rsplit(":", 1)[0] == file and line_number(s) > line_number(at)]
            if after:  # a later line, nearer the block, introduces it
                introduced[after[0][0]] = (versions.pop(), after[0])
        picked: dict[str, tuple[str, str]] = {}
        for version, block in introduced.values():
            picked.setdefault(version, block)
        if len(picked) < 2 or len({s for s, _ in picked.values()}) < len(picked):
            continue
        figures = {v: _block_figures(t) for v, (_, t) in picked.items()}
        common = set.intersection(*(set(f) for f in figures.values()))
        for key in sorted(common):
            values = [figures[v][key] for v in picked]
            if min(values) > 0 and max(values) > RELEASES_DIFFER * min(values):
                quote = "; ".join(f"NCCL {v}: {key} {figures[v][key]:g} ({picked[v][0]})" for v in picked)
                return [Claim("nccl_versions_compared", picked[next(iter(picked))][0], quote,
                              {"versions": list(picked), "origin": "output"})]
    return []


def line_number(source: str) -> int:
    """The line number a source names ("issue.md:12" -> 12), 0 when it names none: for reading order."""
    tail = source.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 0


# A hang in words; "GPUs 4-7 hang off socket 1" is where they are attached (issue 11 j).
# ("hanged" is how many reporters write the past tense: "before the program hanged", k2-fsa/snowfall#71)
_HANG = r"\bhangs?\b(?!\s+off\b)|\bhung\b|\bhanged\b|\bhanging\b(?!\s+off\b)"
# "stuck" before a figure with a clock, power, rate or link unit, or a power state: the level something is held at.
# (a zero rate is no level: "stuck at 0 tokens/s" is the hang itself)
_STUCK_AT_LEVEL = (r"(?!\s+(?:at|in|on|around|near)\s+(?:~|about\s+)?(?:(?![0.,]+\s*(?:tok|it/s|[GM]B/s|Gb/s|fps))"
                   r"\d[\d.,]*\s*(?:[kMG]Hz\b|W\b|watts?\b|"
                   r"tok\w*|it/s|[GM]B/s|Gb/s|fps\b)|P\d{1,2}\b|(?:PCIe\s*)?Gen\s?\d|x\d{1,2}\b))")
# How many minutes, hours or days: "3", "two", "a few", "several".
_SPAN = (r"(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a few|a couple of|several|"
         r"some|many)")
# (issue 11) For shared_gpu_hang: the condition that starts the hang ("when", "as soon as", "whenever"), the other
# process (up to two describing words, none a negation: "if no other process" is no trigger), and the GPU it shares.
_SHARE_TRIGGER = (r"\b(?:when|whenever|if|as soon as|once|while|each time|every time|after)\s+"
                  r"(?:(?!(?:no|not|never|nothing|none)\b)[\w-]+\s+){0,2}?")
_SHARER = (r"(?<!\bno )(?:another|a second|a different|a separate|other)\s+(?:[\w-]+\s+){0,2}?"
           r"(?:process(?:es)?|jobs?|programs?|applications?|apps?|models?|workloads?|containers?|instances?|tasks?)\b")
_SAME_GPU = (r"\b(?:(?:the\s+same|that|those|these|this|my|our|one|a\s+single)\s+(?:[\w-]+\s+)?"
             r"(?:GPUs?|cards?|devices?)|one\s+of\s+(?:the|my|our|those|these)\s+(?:GPUs|cards|devices))\b")
# Several processes on each GPU: "2 workers per GPU", "multiple processes on the same GPUs", "two ranks sharing one
# GPU".
# (ut25) up to two describing words, and a set of GPUs named as one: "two parallel training processes on the same
# bunch of GPUs" (pytorch/pytorch#1656).
_MANY_PER_GPU = (r"\b(?:multiple|several|two|three|four|[2-9]|\d{2,})\s+(?:[\w-]+\s+){0,2}?"
                 r"(?:process(?:es)?|workers?|ranks?|jobs?|instances?)\s+"
                 r"(?:per|on\s+(?:the\s+)?same|on\s+(?:one|a\s+single)|sharing\s+(?:a|one|the\s+same))"
                 r"\s+(?:(?:bunch|set|group|pair|couple)\s+of\s+|[\w-]+\s+)?(?:GPUs?|cards?|devices?)\b")
# (issue 11) For component_hang: what a job can run without and still be the same multi-GPU job. Not the parallel
# layout itself ("without tensor parallelism", "without TP", "without the second GPU"), not the collective library
# or its peer path ("without NCCL", "without P2P"), and not what blocks that path ("without the IOMMU", "without
# ACS", "without the VM"): dropping those changes the path, which is the P2P suspect's own test.
_NOT_A_COMPONENT = (r"(?:(?:tensor|pipeline|expert|data|model|sequence)[- ]?)?parallel\w*\b|(?:tp|pp|ep|dp)\b|"
                    r"multi\w*|multiple\b|several\b|second\b|other\b|extra\b|more\b|gpus?\b|cards?\b|devices?\b|"
                    r"p2p\b|peer\w*|nccl\w*|custom[- _]?all[- _]?reduce\b|iommu\b|acs\b|vt-?d\b|virtuali\w*|vms?\b|"
                    r"hypervisor\b|pass-?through\b|nvlink\w*|shard\w*|split\w*|distribut\w*|-{1,2}(?:tensor|tp|pipeline)\S*")
_ARTICLE = r"(?:the|a|an|any|our|my|its)"
_WITHOUT_COMPONENT = (r"\bwithout\s+(?:" + _ARTICLE + r"\s+)?(?!" + _ARTICLE + r"\s|" + _NOT_A_COMPONENT
                      + r")[`'\"]?[A-Za-z][\w./@-]*")
# (review39s) For own_code_hang: a host-side synchronisation primitive of the reporter's own program: one of Python's
# standard library by the name its docs use (threading.Lock/Condition/Semaphore, queue.Queue.get, concurrent.futures'
# executors, a coroutine's "async def"), or threads, locks, queues, pipes, asyncio or an event loop said to be the
# reporter's ("my worker threads", "our event loop", "我自己的多线程代码"). Not the words alone: an engine's
# multiprocessing backend or its asyncio server ("hangs with the multiprocessing backend", "an asyncio TimeoutError")
# wait on a stuck collective like any other caller, and py-spy prints "threading.py" frames for every waiting process.
_HOST_SYNC = (r"(?:\bthreading\.(?:R?Lock|Condition|Semaphore|Event)\b|\bqueue\.get\b|"
              r"\b(?:Thread|Process)PoolExecutor\b|\basync\s+def\b|\b(?:my|our)\s+(?:own\s+)?(?:\w+\s+){0,2}?(?:threads?|locks?|mutex(?:es)?|semaphores?|"
              r"queues?|pipes?|asyncio|event[- ]loop|coroutines?|multiprocessing|(?:worker|process)\s+pools?)\b|"
              r"我(?:们)?(?:自己)?的?[^。，,\n]{0,6}?(?:多线程|线程|协程|事件循环|互斥锁|队列))")
# (review39b) Not an own-code hang where its sentence places the wait in a collective ("py-spy shows my worker
# threads waiting in all_reduce", "一到 all_reduce 就卡住，我的线程也跟着卡死了"), has the reporter's threads only hang
# along with the job ("my threads hang too"), or says their code is fine ("my queue of batches is fine; the hang is
# in NCCL"): a stuck collective stops every thread that waits on its result, the reporter's included.
_OWN_WAIT_ELSEWHERE = re.compile(
    r"\b(?:all[-_ ]?reduc\w*|all[-_ ]?gather\w*|reduce[-_ ]?scatter\w*|broadcast\w*|all[-_ ]?to[-_ ]?all|"
    r"send[-_ ]?recv|collective\w*|(?<!threading\.)barrier|nccl\w*)\b|\btoo\b|\bas well\b|\balong\b|"
    r"跟着|也(?=[^。，,\n]{0,4}?(?:卡|死锁|阻塞))|"
    r"\b(?:is|are|was|were)\s+(?:fine|ok|okay|not\s+(?:the\s+)?(?:problem|cause|issue|culprit))\b", re.I)
# (mend44) For build_hang: a build of the software, by its image tag or a component's release ("nvidia/cuda:12.9.X-...",
# "PyTorch 0.3.1", "vLLM v0.6.3", "the previous image"), not a GPU or a machine.
_BUILD = (r"(?:`?[\w.-]+/[\w.-]+:\d[\w.-]*|`?(?:vllm|sglang|pytorch|torch|nccl|cuda|tensorrt[- _]?llm|trt[- _]?llm|tgi|"
          r"lmdeploy|deepspeed|megatron\S*|jax|transformers)\s*(?:version\s+|==|=)?v?\d+(?:\.\d+)+|"
          # a bare release written in full: "hangs in 0.4.6.post4, but works fine in 0.4.6.post3" (sglang#6465); not
          # a two-part number, which is as often a fraction or a setting ("works fine with 0.85")
          r"(?<![\w.])v?\d+\.\d+\.\d+(?:\.?(?:post|rc|dev)\d+)?(?![\w.]*\d)|v\d+\.\d+(?![\w.]*\d)|"
          r"(?:the\s+)?(?:old(?:er)?|previous|earlier|prior|last)\s+(?:release|version|image|build|container|"
          r"docker image|wheel|nightly))(?![^\n]{0,40}\b(?:another|other|different|second|new)\s+(?:\w+\s+)?"
          r"(?:machines?|servers?|nodes?|hosts?|box|GPUs?|cards?|systems?)\b)")
# (ut25) For option_hang: a command-line option turned on ("passing --streaming", "adding `--enable-prefix-caching`"),
# not one that sets the parallel layout, the processes or GPUs, or the peer path (those change the path that the P2P
# suspect is about).
_NOT_AN_OPTION = (r"(?:--?(?:n|np|tp|pp|dp|ep|[tpde]p[-_]size)\b|--?[\w-]*?(?:parallel|p2p|nccl|all[-_]?reduce|tensor|"
                  r"pipeline|gpu|device|node|nproc|world|rank|master|rdzv|host|shard|split|distribut|iommu|acs\b|"
                  r"nvlink|multi))")
_OPTION_ON = (r"\b(?:pass(?:ing)?|add(?:ing)?|enabl(?:e|ing)|set(?:ting)?|turn(?:ing)?\s+on|switch(?:ing)?\s+on|"
              r"us(?:e|ing))\s+(?:the\s+)?[`'\"]?(?!" + _NOT_AN_OPTION + r")--?[A-Za-z][\w-]*")
# Any word for a job that stops making progress, for the claims that place the hang in time; a timeout only where no
# duration follows it ("timed out after 2 hours" is how long it waited, not when it stopped).
# ("stucks" is how many reporters conjugate it: "the process stucks", facebookresearch/Detectron#219)
_STOPS = (r"(?:" + _HANG + r"|\bstucks?\b|\bfreez\w*|\bfroze\b|\bstall(?:s|ed)?\b|\bdeadlock\w*|\bunresponsive\b|"
          r"\bstop(?:s|ped)? (?:responding|processing|serving|answering)\b)")
_LATE_HANG = r"(?:" + _STOPS + r"|\btim(?:es|ed)? out\b)"
_HOST_STOPS = r"(?:" + _STOPS + r"|死锁|卡住|卡死|阻塞)"
# (startup34) The start-up steps that compile, build or load, by the words the engines print for them.
_STARTUP_STEP = (r"(?:torch\.compile\b|(?:Dynamo|Inductor)\b|compil\w+\s+(?:a\s+|the\s+)?(?:graphs?|model|kernels?|"
                 r"extensions?|ops?)\b|(?:Building|Loading)\s+extension\s+module\b|build\w*\s+(?:the\s+)?(?:\w+\s+)?"
                 r"(?:extensions?|ops?|engines?|TensorRT engines?)\b|trtllm-build\b|ninja\b|JIT\b|"
                 r"Loading\s+safetensors\s+checkpoint\s+shards\b|(?:load\w*|read\w*|download\w*)\s+(?:the\s+)?"
                 r"(?:model\s+)?(?:weights|checkpoints?|shards|safetensors)\b)")
_ABOUT = r"(?:about |around |roughly |approximately |over |more than |~)?"
_FINE = r"(?:fine|normal(?:ly)?|well|ok(?:ay)?|good|smoothly|stabl[ey]|without (?:any )?(?:problems?|issues?|errors?))"
# How long a job ran healthy: "a while", "a long time", "half a day", "3 hours", "200 steps".
_RAN_FOR = (r"(?:a while|some time|a long time|long|" + _ABOUT + r"(?:half\s+)?" + _SPAN
            + r"\s*(?:minutes?|mins?|hours?|hrs?|h|days?|weeks?|steps|iterations|epochs))")
# ... that was no running: a span of loading, start-up or waiting ("after two hours of model loading, during NCCL
# init") ends at the first collective, where a blocked peer path shows.
_NOT_AT_START = (r"(?!\s*,?\s*(?:of|in|during|at|while|for)\s+(?:\w+\s+){0,2}?(?:load\w*|start\w*|init\w*|wait\w*|"
                 r"download\w*|compil\w*|warm\w*|first (?:all-?reduce|collective|request|batch|step))\b)")
# (ut25) Units of work done, for a hang placed after them in either order ("hangs after 2000 steps", "After several
# iterations, the process stucks"): each completed step ran its collectives. Only work, not time: "after 20 minutes
# it is still stuck" can be a wait at init; not attempts or retries, which are no work done.
# (review2_25) "after completion of some batches ... of 5397batch" (PaddlePaddle/PaddleSpeech#266) is the same work
# done (a count glued to its unit, singular after a count; not a batch size), as is one full epoch ("Get stuck after one
# epoch of training", tianweiy/CenterPoint#203).
_WORK_DONE = (r"(?:(?:the\s+)?complet(?:ion|ing)\s+(?:of\s+)?|finishing\s+)?"
              r"(?:about |around |roughly |over |more than |~)?"
              r"(?:(?:one|an?|the first)\s+(?:full\s+|whole\s+)?epoch\b|"
              r"(?:\d{2,}\s*|(?:several|some|many|(?:a\s+)?few|hundreds of|thousands of)\s+|"
              # (review26) a small count or a range of them: "after 2-3 requests", "after ~100-120 successful
              # completions" (sgl-project/sglang#27949, #22779): any request served ran the layers' all-reduces
              r"\d+\s*[-–~]\s*\d+\s*|[2-9]\s+)"
              r"(?:successful\s+)?(?:training\s+|chat\s+)?(?:steps?|iterations?|iters?|epochs?|requests?|"
              r"completions?|responses?|queries|batch(?:es)?(?!\s*size)|generations?)\b)")
# (review2_25) A numbered epoch, iteration or step after the first: "stuck in epoch 8 or 9" (VISION-SJTU/
# PointAugmenting#3), "stuck in the 88 epoch" (facebookresearch/3detr#22), "stuck after epoch 50 is complete"
# (NVlabs/few-shot-vid2vid#37). The first ran its collectives to the end, so the peer path delivered; the first epoch or
# step itself ("hangs during the first epoch") is no such work.
_NTH = r"(?:[2-9]|[1-9]\d+)"
_LATER_UNIT = (r"(?:(?:epoch|iteration|iter|step)\s*#?\s*" + _NTH + r"\b|" + _NTH
               + r"(?:st|nd|rd|th)?(?:\s+or\s+\d+)?\s+epoch\b)")

# One physical situation per entry; several phrasings each, taken from the vocabulary of the
# tools involved (NCCL's messages and docs, nvidia-smi's field names, the engines' flags and error
# catalogs), never from one ticket's sentence.

# (review st 3) A one that opens a sweep is no single stream: "bs=1 and 8", "batch size 1 to 32", "concurrency of 1, 8
# and 64" (the next figure a count of something else is no sweep: "concurrency=1 and 512 output tokens").
_NOT_A_SWEEP = (r"(?!\s*(?:and|or|to|through|,|/|-|–|~|vs\.?)\s*(?:(?:bs|batch(?:[ _-]?size)?|concurrency)\s*[=:]?\s*)?"
                r"\d+(?:\.\d+)?(?!\d|\.\d|\s*(?:%|x\b|k\b|[KMG]i?B|ms\b|s\b|sec\w*|min\w*|tok\w*|output|input|"
                r"prompt|request|GPU|card|node|user|seq\w*|step|iter\w*|sample|image|thread|layer|head|expert|word|"
                r"char|byte|item|quer)))")

# "host" naming a side of one machine, not the machine: "the single host thread", "same host bridge" (PHB).
_NOT_HOST_SIDE = r"(?![- ](?:threads?|process\w*|CPUs?|memory|RAM|side|cores?|bridge|code|names?|ports?)\b)"

# (s25) a CUDA check macro's report: the source file and line, then the CUDA error string, as ggml's CUDA_CHECK
# ("ggml-cuda.cu:7068: invalid argument", ggml-org/llama.cpp#3930; its abort form 'ggml-cuda.cu:229: !"CUDA error"',
# LostRuins/koboldcpp#612) and vLLM's CUDACHECK ("custom_all_reduce.cuh:310 'invalid argument'") print it. Not a
# compiler's warning, note or remark. An exception (claims "exception") and, in the opening, the error symptom.
_CUDA_CHECK_LINE = (r"\b[\w-]+\.cuh?(?::\d+:\s*!?['\"]?|:\d+\s+['\"]|\(\d+\):\s*)(?!(?:warning|note|remark)\b)"
                    r"[a-z][a-z ]{4,60}\b")


# (review3_25) torch's elastic agent turns the signal it got into SignalException; signal 2 is SIGINT, the keyboard's
# interrupt (signal(7)): "SignalException: Process 1313 got signal: 2" is the user's Ctrl-C, not software raising
# (LinkSoul-AI/Chinese-Llama-2-7b#27).
_SIGINT_RAISED = r"SignalException: Process \d+ got signal: 2\b"

# (fr43 B2) "GPU usage is low" heard from others: "낮다고 하던데", "낮다고 들었", "낮다는 말/얘기/소리/글"; not the
# reporter's own observation said with the same endings ("낮다는 것을 확인했습니다", "낮다고 판단").
_KO_HEARD = r"다고\s*(?:하|합니|했|해|들었|들어|들은)|다는\s*(?:말|얘기|이야기|소리|글|보고(?:가|를|도|들))"


# (words44) The Japanese and Korean denials after a word, one piece where the slow and GPU-usage readings share them:
# "遅くない", "低くなかった", "低くありません"; "느리지 않", "느려지지는 않", "느리진 않", "느리지도 않".
_JA_DENIED = r"(?:ない|なかった|ありません)"
_KO_DENIED = r"[지진]\s*(?:[는도]\s*)?않"
# nccl-tests' own result check failing, as its summary line or its "#wrong" column says it and reporters quote it in
# prose or a title ("Out of bounds values : 248 FAILED", NVIDIA/nccl-tests#7; "occasional `#wrong` transfers",
# NVIDIA/nccl#2001): a count above 0, or the wrong transfers or values themselves. Not the column's header ("busbw
# #wrong time", a table pasted as prose: NVIDIA/nccl-tests#249, NVIDIA/nccl#1368) nor a count of 0.
# (r49b) Not a count of 0 said in words after the noun ("the #wrong values are all 0", "#wrong results are zero",
# "#wrong values: none"), nor a message size after "of" ("the #wrong of 1GB and 2GB rows is 0").
NCCL_CHECK_FAILED = re.compile(r"\bOut of bounds values?\s*:\s*[1-9]|"
                               r"#wrong\b[`'\"]?\s*(?:(?:is|are|was|were|=|:|counts?|column)\s*)*"
                               r"(?:[1-9]|(?:transfers?|values?|results?|elements?)\b"
                               r"(?!\s*(?::\s*|(?:are|is|were|was|stay(?:ed|s)?|remain(?:ed|s)?)\s+)?(?:all\s+|always\s+)?"
                               r"(?:0|zero|none|nothing)\b))", re.I)
PATTERNS: dict[str, list[str]] = {
    "virtualized": [
        r"\bvirtual machines?\b", r"\bVMs?\b", r"\bKVM\b", r"\b(?:VM|KVM|hypervisor) guest\b",
        r"\bguest (?:OS|VM)\b", r"\bhypervisor\b", r"\bpassed[- ]through\b", r"\bpass-?through\b", r"\bvGPU\b",
        r"\bSR-IOV\b", r"\bvirtuali[sz]ed\b", r"\bNCv\d\b|\bND\w*v\d\b",
        r"\bProxmox\b|\bVMware\b|\bESXi\b|\bHyper-V\b|\bXen\b|\bQEMU\b",
        r"虚拟机",  # (para37b) "virtual machine" in Chinese
        # WSL 2 is a Hyper-V utility VM (collect_env's "microsoft-standard-WSL2" kernel), and Docker Desktop on
        # Windows runs its containers in it; a setup left behind ("moved from WSL2 to Ubuntu") is none, nor WSL
        # ruled out ("Windows 10 (non-WSL) with CUDA", oobabooga/text-generation-webui#1220, tests/data/ut12x)
        r"(?:(?<!non-)(?<!non )\bWSL ?2?\b|microsoft-standard-WSL2|\bWindows Subsystem for Linux\b|"
        r"\bDocker Desktop\b[^.\n]{0,30}?\bWindows\b|"
        r"\bWindows\b[^.\n]{0,30}?\bDocker Desktop\b)",
    ],
    "container": [r"\bdocker\b", r"\bcontainers?\b", r"\bkubernetes\b|\bk8s\b", r"\bpods?\b",
                  r"\bsingularity\b|\bapptainer\b|\benroot\b|\bpodman\b"],
    "slowdown_over_time": [
        r"(?:degrad\w*|slow(?:s|ing|ed)? down|slower|drops?|dropping|decreas\w*|declin\w*)[^.]{0,60}?"
        r"(?:over time|steadily|gradually|progressively|over (?:a |the )?long(?:er)? run|over (?:minutes|hours)|"
        r"the longer it runs|after (?:a few|some|several) (?:minutes|hours))",
        # a trend against another variable ("gradually decreased as the number of nodes increased") is not one over time
        r"(?:steadily|gradually|progressively|monotonic\w*)\s+(?:degrad\w*|slow\w*|drop\w*|decreas\w*|declin\w*)"
        r"(?![^.\n]{0,40}?\b(?:as|when|with|while)\s+(?:the\s+)?(?:number|count|size|amount)\s+of\b)"
        r"(?![^.\n]{0,40}?\b(?:as|when|with)\s+(?:more|we add|adding|increasing|the)\s+\w*\s*"
        r"(?:nodes|GPUs|ranks|size|batch\w*|"
        r"message\w*|context|sequence\w*|tokens|concurrency|users)\b)",
        r"\bthermal(?:ly)? throttl\w*|\boverheat\w*",
        # (issue 11 f) a rate that falls after a stated run time under the same load, and the idiom for it
        r"\bafter (?:about |around |roughly |approximately |~)?\d+\s*(?:minutes|mins?|hours?|hrs?|h)\b[^.\n]{0,50}?"
        r"\b(?:drops?|dropp\w+|falls?|fell|slow\w*|decreas\w*|declin\w*|degrad\w*|(?:is|are|was) (?:at|down to) \d)",
        r"\b(?:slower and slower|(?:getting|gets|got|becom\w+) (?:slower|slow) over time|progressively slower)\b",
        r"(?:degrad\w*|slow(?:s|ing|ed)? down|slower|drops?|dropping|decreas\w*|declin\w*)[^.]{0,60}?"
        r"(?:over (?:a few|several|some|many|\d+) (?:minutes|hours)|after (?:running|training|serving|working) "
        r"(?:for )?(?:a while|some time|a few (?:minutes|hours)))",
        r"越来越慢|跑一段时间(?:后|之后)?(?:就)?(?:变)?慢",
    ],
    "multi_node": [
        # also in two words, as many reporters write it ("[Multi node Training]",
        # https://github.com/facebookresearch/detectron2/issues/4730; "error in multi node",
        # https://github.com/pytorch/pytorch/issues/23363; "on multi nodes", https://github.com/NVIDIA/nccl-tests/issues/213)
        r"\bmulti[- ]?nodes?\b", r"\binter[- ]?node\b", r"\b(?:two|three|four|\d+)-node\b",
        r"\bacross (?:two|several|multiple|\d+) (?:nodes|servers|hosts|machines)\b",
        r"\bbetween (?:the )?(?:two|\d+) (?:nodes|servers|hosts|machines)\b",
        # (para37) with no count, the plural alone ("collectives between nodes", "PP across nodes", "a job across
        # machines", "transport errors between nodes" in kept pastes); not one node's parts ("between GPUs"), nor
        # the host beside its GPUs ("the bandwidth between hosts and GPUs")
        r"\b(?:between|across|among) (?:the |our |different )?(?:nodes|servers|hosts|machines)\b"
        r"(?!\s+(?:and|&)\s+(?:the\s+|their\s+|its\s+)?(?:GPU|device|card)s?\b)",
        r"\b(?:on|using|with|over|spanning)\s+(?:two|\d+|multiple|several)\s+(?:nodes|servers|hosts)\b",
        r"\b(?:two|\d+|multiple|several)\s+(?:GPU\s+)?(?:nodes|servers|hosts|machines)\b", r"\bcross-?node\b",
        r"\bmulti[- ]?(?:machines?|servers?|hosts?)\b",
        r"(?:多机|跨机|多节点|跨节点|双机|双节点|两台(?:机器|服务器|节点)|多台(?:机器|服务器))",
        r"\b(?:two|\d+)\s+(?:\w+\s+)?(?:nodes|servers|hosts|machines)\s+(?:connected|linked|over|via|through)\b",
        # a count of named systems: "two DGX A100 nodes", "2 p4d.24xlarge instances", "four HGX H100 servers"
        r"\b(?:two|three|four|eight|\d+)\s*x?\s+(?:DGX|HGX|p4de?|p5e?|ND\w*)\b[\w.-]*(?:\s+[\w.-]+){0,2}?\s+"
        r"(?:nodes|servers|hosts|machines|instances|boxes|systems)\b",
    ],
    # (mend41) The job spread over Kubernetes pods: a pod sees only the GPUs given to it, so ranks of different pods
    # join over the network, never by CUDA peer-to-peer, even on one machine ("even when scheduling both Pods onto
    # the same node, NVLink couldn't be utilized ... only RDMA or TCP", NVIDIA/nccl#1781). LeaderWorkerSet (lws)
    # deploys a leader pod and its worker pods as one unit (https://github.com/kubernetes-sigs/lws). Not one pod
    # ("in k8s pod, even the GPUs are in the same node", vllm-project/vllm#7466).
    "across_pods": [
        r"\bLeaderWorkerSet\b|(?<![\w.-])lws\b",
        r"\b(?:across|between|over|spanning)\s+(?:the\s+)?(?:two|three|four|several|multiple|different|separate|\d+)\s+"
        r"(?:\w+\s+)?pods\b",
        r"\b(?:two|three|four|several|multiple|different|separate|\d+)\s+(?:separate\s+|different\s+)?"
        r"(?:k8s\s+|kubernetes\s+)?pods\b",
        r"\bmulti[- ]?pods?\b|\bworker pods?\b",
    ],
    # (issue 11) The job on one host, as reporters place it: "on a single node", "in one machine", "on the same host",
    # "single-node", "8 GPUs in one node", "1 node with 8 GPUs", "--nnodes 1", 单机 / 单节点. rules.common.node_count
    # reads it after every parsed count and below any multi-node statement (the larger count said wins). Not a NUMA
    # node (_numa_nodes), nor one host among several ("one of the nodes", "from one node to another", "more than one
    # node": _ONE_OF_MANY).
    "one_node": [
        r"\b(?:on|in|within|inside|using|with|onto)\s+(?:only\s+)?(?:a\s+single|one\s+single|a|one|single|1|the\s+same|"
        r"the\s+one)\s+(?:(?!NUMA\b)[\w.-]+\s+){0,2}?(?:node|machine|server|host|box)\b" + _NOT_HOST_SIDE,
        r"\bsingle[- ]?(?:node|machine|server|host)\b" + _NOT_HOST_SIDE,
        r"\b(?:one|1|a single)\s+(?:[\w.-]+\s+)?(?:node|machine|server|host|box)\s+(?:with|of|holding|having|x|×)\s+\d",
        r"(?:--nnodes|--num[-_]nodes|\bnnodes|\bNNODES|\bnum_nodes)\s*[= ]\s*1\b",
        # (decided31) a count of one with the plural slipped in: "a training task with 1 nodes", "on 1 nodes"
        r"\b(?:on|in|with|using|onto|across)\s+(?:only\s+)?1\s+(?:nodes|servers|hosts|machines)\b",
        r"单机|单节点|单台(?:机器|服务器)|同一台(?:机器|服务器)",
    ],
    # (issue 11) A hang that comes after the job has been running: collectives completed before it, so a peer-to-peer
    # path that never delivers (ACS, the IOMMU, a hypervisor: NCCL's troubleshooting guide) is not what hangs; such a
    # path stops the first collective, at init or the first all-reduce. "hangs after 2 hours", "ran fine for a day,
    # then froze", "three hangs in 40 minutes", "stuck in the middle of training", "跑了几个小时后卡住".
    "late_hang": [
        _STOPS + r"[^.\n]{0,40}?\bafter\s+" + _ABOUT + r"(?:half\s+)?" + _SPAN
        + r"\s*(?:minutes?|mins?|hours?|hrs?|h|days?)\b" + _NOT_AT_START,
        _STOPS + r"[^.\n]{0,40}?\bafter\s+" + _WORK_DONE,
        # (ut25) the work first, then the stop: "After several iterations, the process stucks" (Detectron#219),
        # "after some iterations the training program always stuck" (open-mmlab/mmdetection#3563)
        r"\bafter\s+" + _WORK_DONE + _NOT_AT_START + r"[^.\n]{0,60}?" + _LATE_HANG,
        # healthy for a span, then the stop: "ran fine for two days, then froze", "after serving for half a day it
        # hangs", "works for a long time (thousands of requests), then gets stuck", "was OK during the first 3 hours"
        r"\b(?:(?:run|runs|ran|running|work|works|worked|working|serv\w+|train\w*|went)(?:\s+" + _FINE + r")?|"
        + _FINE + r")\s+(?:for|during|in)\s+(?:the\s+first\s+)?" + _RAN_FOR + r"\b" + _NOT_AT_START
        + r"[^.\n]{0,60}?" + _LATE_HANG,
        r"\b(?:" + _SPAN + r"|multiple|repeated)\s+(?:\w+\s+)?(?:hangs|freezes|stalls|deadlocks)\s+"
        r"(?:within|in|over|during)\s+(?:the\s+(?:first|last)\s+)?" + _SPAN + r"\s*"
        r"(?:minutes?|mins?|hours?|hrs?|h|days?)\b",
        # (review2_25) in or after a numbered epoch past the first, in either order: "stuck in epoch 8 or 9", "the 2
        # or 5 epoch was stuck" (rmrao/msa-transformer#1)
        _STOPS + r"[^.\n]{0,30}?\b(?:in|at|on|during|after)\s+(?:the\s+)?" + _LATER_UNIT,
        r"\b(?:in|at|during|of)\s+the\s+" + _NTH + r"(?:st|nd|rd|th)?(?:\s+or\s+\d+)?\s+epochs?\b[^.\n]{0,20}?"
        + _STOPS,
        _LATE_HANG + r"[^.\n]{0,30}?\bevery\s+(?:few\s+|\d+(?:\.\d+)?\s*|couple of\s+)?(?:minutes?|hours?|days?)\b",
        _LATE_HANG + r"[^.\n]{0,30}?\b(?:in the middle of|midway through|partway through|halfway through|mid-)"
        r"\s*(?:a\s+|the\s+)?(?:training|serving|generation|run|epoch|job|inference|benchmark)\b",
        r"(?:运行|跑了?|服务)\s*(?:了)?\s*(?:一段时间|几个小时|几天|\d+\s*(?:分钟|小时|天))\s*(?:后|之后|以后)"
        r"[^。\n]{0,20}?(?:卡住|卡死|hang|无响应)",
        # (review50) at the evaluation of a training run: the training steps before it ran their collectives ("I'm
        # finetuning vicuna-7b ... my process hangs during evaluation", lm-sys/FastChat#1851). Not an evaluation run
        # alone (a harness scoring a model), whose first collective may be the one that hangs: a training word comes
        # with it.
        r"\b(?:train\w*|fine-?tun\w*|finetun\w*)\b[\s\S]{0,300}?" + _STOPS
        + r"[^.\n]{0,30}?\b(?:during|at|in|while|when)\s+(?:the\s+|an?\s+)?(?:running\s+|doing\s+)?"
        r"(?:eval(?:uation)?|validation|validating|evaluating)\b",
        _STOPS + r"[^.\n]{0,30}?\b(?:during|at|in|while|when)\s+(?:the\s+)?(?:eval(?:uation)?|validation)\b"
        r"[^.\n]{0,40}?\b(?:train\w*|fine-?tun\w*|finetun\w*)",
        # (review50) after an out-of-memory error: a rank that hit it left its peers waiting in the collective
        # ("Sometimes after a large request ... that caused OOM, the inference service will hang",
        # huggingface/transformers-bloom-inference#32). Not an OOM ruled out ("no OOM, it just hangs").
        r"\b(?:after|following)\b[^.\n]{0,60}?(?<!\bno )(?<!\bwithout )(?<!\bnot an )\b(?:OOM|out[- ]of[- ]memory)\b"
        r"[^.\n]{0,80}?" + _LATE_HANG,
        _LATE_HANG + r"[^.\n]{0,30}?\b(?:after|following)\s+(?:an?\s+|the\s+)?(?:GPU\s+|CUDA\s+)?"
        r"(?:OOM|out[- ]of[- ]memory)\b",
    ],
    # (issue 11) A hang the reporter ties to another process sharing the GPU: "hangs as soon as another process uses
    # the same GPU", "freezes whenever a second model runs on those cards", "hangs when running 2 workers per GPU",
    # "multiple processes on the same GPUs hang". Collective kernels (NCCL's, or an engine's custom all-reduce)
    # spin-wait for their peers and need every rank's kernel resident; another process's kernels on the same GPU can
    # keep one rank's from running, and the others wait forever. A peer-to-peer path that never delivers (ACS, the
    # IOMMU) hangs the first collective whoever else uses the GPU, so the condition speaks against it. Not a process
    # ruled out ("no other process uses the GPU", "even when nothing else runs on it"), nor another process on other
    # GPUs ("a second job on a different GPU").
    "shared_gpu_hang": [
        _STOPS + r"[^.\n]{0,100}?" + _SHARE_TRIGGER + _SHARER + r"[^.\n]{0,40}?" + _SAME_GPU,
        _SHARE_TRIGGER + _SHARER + r"[^.\n]{0,40}?" + _SAME_GPU + r"[^.\n]{0,120}?" + _STOPS,
        _MANY_PER_GPU + r"[^.\n]{0,80}?" + _STOPS,
        _STOPS + r"[^.\n]{0,80}?" + _MANY_PER_GPU,
        r"(?:另一个|其他|其它|别的)(?:进程|程序|任务|模型)[^。\n]{0,10}?(?:使用|占用|跑|运行)[^。\n]{0,6}?同一(?:张|块|个)?\s*"
        r"(?:GPU|显卡|卡)[^。\n]{0,40}?(?:卡住|卡死|hang|无响应)",
    ],
    # (issue 11) A hang the reporter finds only with a software component in the job: "This does not reproduce when
    # running the same TP2 startup configuration without kvcached", "It works fine without LMCache", "Without the
    # connector, the same server starts normally". A peer-to-peer path that never delivers (ACS, the IOMMU) hangs
    # NCCL's first collective whatever plugin, cache or connector the engine loads, so a hang that goes away when
    # one is left out, the GPUs and the parallel layout kept, points at that component. Not the layout or the path
    # left out ("works fine without parallelism", "does not hang without P2P"), nor a hang that stays ("it also
    # hangs without kvcached").
    # (ut27f) A collective that hangs only under Nsight Compute: ncu serializes kernel launches, across every process
    # it profiles (https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#serialization), so an NCCL kernel
    # that waits for its peers' kernels never finishes ("I try to use ncu profile gpt demo but hangs when profiling
    # ncclAllReduceKernel", NVIDIA/FasterTransformer#114; "all_reduce_perf will hang after printing ==PROF== Profiling
    # \"ncclKernel_AllReduce_RING_LL_...\"", NVIDIA/nccl-tests#101). The profiler named (ncu, Nsight Compute, its
    # ==PROF== / ==WARNING== lines) near the hang, and a collective (NCCL kernel, several GPUs) in the same words.
    # Not Nsight Systems, which times kernels without serializing them, nor an ncu error that is no hang
    # ("UnknownError when trying to profile NCCL all reduce perf test with Nsight Compute", NVIDIA/nccl-tests#339).
    # (startup34) A stop placed at a start-up step that compiles, builds or loads, which the engines print and document
    # as taking minutes on a first start and which exchanges nothing between GPUs: torch.compile / Dynamo / Inductor
    # ("Compiling a graph for dynamic shape", vLLM's torch.compile cache docs), a PyTorch or DeepSpeed op's JIT build
    # ("Building extension module", "Loading extension module", ninja; DeepSpeed's op builder), a JIT kernel build
    # (FlashInfer, Triton), a TensorRT engine build (trtllm-build), reading or downloading the weights ("Loading
    # safetensors checkpoint shards"). A peer path that never delivers stops the first collective, after these steps,
    # so the stop is not that path's. Not CUDA-graph capture, which runs the model's collectives; not "after loading":
    # the step finished and what follows it (the first all-reduce) is what stopped.
    "startup_step_hang": [
        r"(?:" + _STOPS + r"|\bget(?:s|ting)? stuck\b|\bstuck(?:ed)?\b)\s+(?:\w+\s+){0,3}?"
        r"(?:at|on|in|during|while|when)\s+(?:the\s+)?(?:\w+\s+){0,2}?['\"`]?" + _STARTUP_STEP,
        _STARTUP_STEP + r"['\"`]?(?:(?!\bnot\b|n't\b|\bnever\b|\bno\b)[^.\n]){0,40}?(?:" + _STOPS
        + r"|\bget(?:s|ting)? stuck\b|\bstuck(?:ed)?\b|\btakes? forever\b)",
    ],
    "profiler_hang": [
        # (the profiler's name looked for first: the 400-character look-ahead tried at every position cost 400 steps
        # a character of any long text)
        r"(?=\bncu\b|\bnv-nsight-cu|\bnsight[- ]?compute\b|==PROF==)"
        r"(?=[\s\S]{0,400}?(?:\bnccl\w*|all[-_ ]?reduce|multi[- ]?GPU|\b\d+\s*GPUs?\b|mpirun|\branks?\b))"
        r"(?:\bncu\b|\bnv-nsight-cu(?:-cli)?\b|\bnsight[- ]?compute\b|==PROF==)[\s\S]{0,200}?"
        r"(?:" + _STOPS + r"|\bget(?:s|ting)? stuck\b)",
        r"(?:" + _STOPS + r")[^\n]{0,60}?\b(?:when|while|during|after)\b[^\n]{0,40}?"
        r"(?:\bncu\b|\bnsight[- ]?compute\b|==PROF==)",
        r"==WARNING== Launching the workload is taking more time than expected",
        # profiling one NCCL kernel is what a kernel profiler does: "the profiler hangs when it profiles
        # `ncclKernelBoardcast`" (NVIDIA/nccl#466), "hang when profiling ncclAllReduceRingLLKernel_sum"
        # (NVIDIA/nccl#536)
        r"(?:" + _STOPS + r")[^.\n]{0,30}?\bwhen (?:it |I'?m |we'?re )?profil\w+\s+(?:the\s+)?`?nccl\w*",
    ],
    "component_hang": [
        r"\b(?:does|did|do|can|could|will|would)\s*(?:\*{1,2}|_)?(?:not|n't)(?:\*{1,2}|_)?\s+(?:reproduce|happen|occur|hang|freeze|stall|"
        r"deadlock)\b[^.\n]{0,80}?" + _WITHOUT_COMPONENT,
        r"\b(?:works?|worked|runs?|ran|starts?|started|loads?|loaded|serves?|served)\s+(?:up\s+)?" + _FINE
        + r"\s+(?:[^.\n]{0,40}?\s)?" + _WITHOUT_COMPONENT,
        _WITHOUT_COMPONENT + r"[^.\n]{0,60}?\b(?:works?|worked|runs?|ran|starts?|started|loads?|loaded|serves?|"
        r"served)\s+(?:up\s+)?" + _FINE,
    ],
    # (review39s) A hang in the reporter's own process's synchronisation, not in a collective: "my worker threads
    # deadlock on a threading.Lock I hold while calling generate()", "my asyncio event loop deadlocks when I call
    # llm.generate synchronously", "我自己的多线程代码在 queue.get() 上死锁了". A lock, queue or event loop that
    # never returns stops a process whatever path the GPUs share (Python docs: threading, asyncio "Developing with
    # asyncio": a blocking call inside a coroutine stalls the loop).
    "own_code_hang": [
        _HOST_SYNC + r"[^.\n。]{0,80}?" + _HOST_STOPS,
        _HOST_STOPS + r"[^.\n。]{0,60}?" + _HOST_SYNC,
    ],
    # (mend44) A hang that one build of the software has and another build, on the same GPUs, does not: "when I use
    # `nvidia/cuda:13.0.X-...` with `tp > 1`, it gets stuck ... But it works fine with `nvidia/cuda:12.9.X-...`"
    # (vllm-project/vllm#28283), "Multi node serving hangs in 0.4.6.post4 , but works fine in 0.4.6.post3"
    # (sgl-project/sglang#6465). The peer path is the hardware's and the driver's, so the build, not the link, hangs.
    # Not a build that hangs too ("also hangs with 0.6.3"), nor a working side on other GPUs or another machine
    # ("works fine with vLLM 0.5.4 on another machine"; a GPU model in the quote: ticket_rules._BUILD_ELSEWHERE).
    "build_hang": [
        r"(?:" + _STOPS + r"|\bget(?:s|ting)? stuck\b)[^\n]{0,200}?\b(?:but|while|whereas|yet)\b[^\n]{0,40}?"
        r"\b(?:works?|worked|working|runs?|ran|finish(?:es|ed)?|succeeds?|succeeded|starts?|started)\s+"
        r"(?:(?:up\s+)?" + _FINE + r"\s+|successfully\s+|as expected\s+)?(?:with|on|in|using|under)\s+" + _BUILD,
        r"\b(?:works?|worked|runs?|ran|finish(?:es|ed)?|succeeds?|succeeded)\s+(?:(?:up\s+)?" + _FINE
        + r"\s+|successfully\s+)?(?:with|on|in|using|under)\s+" + _BUILD + r"[^\n]{0,80}?\b(?:but|while|whereas)\b"
        r"[^\n]{0,60}?(?:" + _STOPS + r"|\bget(?:s|ting)? stuck\b)[^\n]{0,20}?\b(?:with|on|in|using|under)\s+"
        + _BUILD,
        # the hang said not to come on the other build: "... during the hang, which doesn't occur in the previous
        # image" (ai2cm/ace#320), "The hang doesn't occur if I downgrade pytorch to v1.0" (pytorch/pytorch#20630)
        r"(?:" + _STOPS + r"|\bget(?:s|ting)? stuck\b)[^.\n]{0,60}?\b(?:does|did|do|will|would)\s*(?:not|n't)\s+"
        r"(?:occur|happen|reproduce)\s+(?:(?:in|with|on|under|using)\s+|(?:if|when|after)\s+(?:I|we)?\s*"
        r"(?:downgrad\w*|roll\w*\s+back|revert\w*|go\s+back)\s+(?:\w+\s+)?(?:to\s+)?)" + _BUILD,
    ],
    # (ut25) A hang the reporter ties to one command-line option of the job: "when passing --streaming with mpirun -n 4,
    # the program hung" (NVIDIA/TensorRT-LLM#716, fixed in the engine's next release). A peer-to-peer path that never
    # delivers hangs the first collective whatever the option, so the code path the option turns on is the suspect.
    # Not an option that sets the layout, the GPUs or the peer path itself ("when using --tp 2", "when passing
    # --nproc_per_node 2", "with --disable-custom-all-reduce": _NOT_AN_OPTION), nor a hang ruled out ("does not hang
    # when passing --foo").
    "option_hang": [
        _OPTION_ON + r"[^.\n]{0,80}?" + _STOPS,
        _STOPS + r"[^.\n]{0,60}?\b(?:when|whenever|if|once|as soon as)\s+(?:I\s+|we\s+)?" + _OPTION_ON,
    ],
    # (a clock, a link or a rate "stuck at 33MHz", "stuck in P2", "stuck at Gen1" is a level that does not move, not
    # a job that stopped: https://github.com/stockmind/dell-xps-9560-ubuntu-respin/issues/59,
    # https://github.com/NGnius/PowerTools/issues/76; "stuck at 100%" GPU-Util stays a hang's sign)
    "hang": [_HANG,
             r"\bstuck(?:ed)?\b" + _STUCK_AT_LEVEL + r"|\bstall(?:s|ed|ing)?\b", r"\bfreez\w*\b|\bfroze\b",
             r"\bdeadlock\w*\b", r"\bnever (?:finishes|completes|returns|ends)\b",
             r"\bno (?:progress|output) (?:at all|for)\b"],
    "no_cpu_binding": [
        # (not "no core binding issue here": no problem with the binding)
        r"\b(?:without|no) (?:any )?(?:cpu|numa|memory|process|core)[\w ,/-]{0,30}?(?:binding|pinning|affinity)"
        r"(?!\s+(?:issues?|problems?|errors?|concerns?)\b)",
        r"\bno (?:cpu |numa |memory )?(?:binding|pinning)\b(?!\s+(?:issues?|problems?|errors?|concerns?)\b)",
        r"\bnot (?:pinned|bound)\b", r"\bunpinned\b",
        # (issue 11 s) not "with and without numactl": both runs named
        r"(?<!\bwith and )(?<!\bwith or )\bwithout (?:numactl|taskset)\b",
        r"(?:没有|没|未|不)\s*(?:绑定|绑核|绑\s*CPU|做\s*(?:CPU|NUMA)\s*绑定)",
        r"--bind-to[ =]none\b",  # (issue 11 f) Open MPI's switch for no binding
    ],
    "multi_socket": [
        r"\bdual[- ]socket\b", r"\b(?:two|2|four|4) (?:cpu )?sockets\b",
        r"\b(?:2|4)\s*x\s*(?:AMD |Intel )?(?:EPYC|Xeon)\b",
        r"\btwo (?:cpu )?numa\b", r"\b(?:2|two)[- ]socket\b", r"\bNPS\s?[24]\b", r"(?:双路|两路|四路|双\s*CPU)",
    ],
    # GPU peer-to-peer refused: CUDA's and nvidia-smi's words for it (cudaErrorPeerAccessUnsupported,
    # `topo -p2p` legend: NS / CNS "chipset not supported" / GNS / TNS), and boot logs.
    "no_p2p": [
        r"(?:not|n't|never|no longer)\s+(?:use|using|uses|enable|enabling|enabled)\s+"
        r"(?:the\s+)?(?:P2P|NVLink|peer[- ]to[- ]peer)",
        r"\b(?:P2P|peer[- ]to[- ]peer|peer)(?: access)?(?: is| was| are)? "
        r"(?:not (?:supported|available|enabled|possible|working)|disabled|unavailable|unsupported|refused)\b",
        # (the participle's -ed left off, as non-native English writes it: "Cuda failure 217 'peer access is not
        # support between these two devices'", alibaba/ChatLearn#374)
        r"\bno P2P\b", r"\bP2P DISABLED\b", r"\bpeer access is not support(?:ed)?\b",
        r"\bcudaErrorPeerAccessUnsupported\b",
        r"\b(?:cannot|can't|could not|couldn't|unable to|fail\w* to) (?:enable |use )?"
        r"(?:P2P|peer(?: access| to peer| mapping)?)\b",
        # `topo -p2p`'s legend ("CNS  = Chipset not supported") prints under every matrix, however the pairs read;
        # a canAccessPeer result of 0, not the peer's index ("Device=1 CAN Access Peer Device=0",
        # p2pBandwidthLatencyTest on a host whose P2P works, tests/data/fa24)
        r"can ?access ?peer\w*\b[^.\n]{0,30}?(?<!Device=)(?<!Device )(?<!GPU)(?<!GPU )\b(?:0|no|false)\b",
        # (ut28g) not a platform or engine refusing several GPUs ("Multi-GPU not supported for Windows",
        # dattalab/keypoint-moseq#111): the legend's GNS is one GPU's word, never "multi-GPU"
        r"(?<!= )(?<!multi-)(?<!multi )(?<!multi)\b(?:Chipset|Topology) not supported\b",
        # (review39) "GPU not supported" alone is any program refusing a board ("i am getting an error as GPU not
        # supported", an emulator on a phone, The412Banner/Bannerlator#226): GNS's words count beside P2P, peer or topo
        r"\b(?:P2P|peer|topo)\b[^.\n]{0,60}?(?<!= )(?<!multi-)(?<!multi )(?<!multi)\bGPU not supported\b|"
        r"(?<!= )(?<!multi-)(?<!multi )(?<!multi)\bGPU not supported\b[^.\n]{0,40}?\b(?:P2P|peer|topo)\b",
        # (and CUDA's peer access by its Chinese name, 对等访问 "peer access", or 点对点 "point to point": "启动服务报
        # `不支持对等访问`错误", PaddlePaddle/FastDeploy#4588)
        r"(?:未|没有|没|不|无法)(?:开启|启用|支持|使用|打开|开)\s*(?:P2P|p2p|对等访问|点对点(?:访问|通信|传输)?)",
        # (para37c) the state after its subject with the everyday verb: "p2p没开" (the wording the question reading
        # below quotes, "p2p没开会影响速度吗？"), "P2P没有打开"
        r"(?:P2P|p2p|对等访问|点对点(?:访问|通信|传输)?)\s*(?:未|没有|没|不|无法)(?:开启|启用|支持|使用|打开|开)",
        # the board or driver said not to support it, the verb first as the Chinese above ("2080 Ti does not support
        # p2p access without NVLink bridge", https://github.com/tensorflow/tensorflow/issues/24677)
        r"\b(?:does|do|did)\s*(?:not|n't)\s+support\s+(?:the\s+)?(?:P2P|peer[- ]to[- ]peer|peer)\b",
        # tried and failed to get it working ("pulling my hair for days to get p2p to work, still nothing",
        # https://github.com/aikitoria/open-gpu-kernel-modules/issues/12)
        r"\b(?:get|getting|make|making)\s+(?:the\s+)?(?:P2P|peer[- ]to[- ]peer)\b[^.\n]{0,15}?\bto work\b[^.\n]{0,25}?"
        r"\b(?:still nothing|no luck|no success|without success|in vain|nothing works?)\b",
        # the CUDA sample simpleP2P's own words ("> GPU0 = ... IS capable of Peer-to-Peer (P2P)") negated:
        # "Geforce cards are not P2P-capable" (https://github.com/NVIDIA/nccl/issues/1516)
        r"\b(?:not|n't)\s+(?:P2P|peer[- ]to[- ]peer)[- ]capable\b|\bNOT\s+capable of Peer-to-Peer\b",
        # (ut29g) the peer path said to fail between named GPUs, its subject P2P itself: "P2P fails between 5090s"
        # (aikitoria/open-gpu-kernel-modules#11), "P2P is broken between GPU0 and GPU1", "peer-to-peer doesn't work
        # between the cards"; not a failover ("P2P fails over to SHM"), nor a test or job that fails with it
        r"\b(?:P2P|peer[- ]to[- ]peer)(?:\s+(?:access|transfers?|copies|communication))?\s+"
        r"(?:fails|failed|failing|(?:is|was|are|were)\s+(?:broken|failing)|does\s*(?:not|n't)\s+work|"
        r"(?:is|was)\s+not\s+working)\s+(?:(?:for|on|with)\s+\w+\s+)?(?:between|across)\b",
    ],
    # A link reported down: NVLink state words from `nvidia-smi nvlink -s` / `-q`, bridges not seated.
    "link_down": [
        r"\bNVLinks?\b[^.\n]{0,40}?"
        r"\b(?P<state>down|inactive|<inactive>|not active|not detected|not working|disabled|offline|missing|dead)\b",
        r"\b(?:link|links|lanes?)\s*\d*\s*(?:is|are|was|were|shows?)?\s*(?:<inactive>|inactive|down)\b",
        r"\bNVLink bridge\b[^.\n]{0,40}?\b(?:not (?:seated|detected|recogni[sz]ed|working)|loose|broken)\b",
        # topo -m's legend for a pair the bridge should join, said against the bridge ("shows PHB between GPU0 and
        # GPU1 although the NVLink bridge is installed"): the bridge is not linking (NV# is the legend's NVLink)
        r"\btopo\b[^.\n]{0,40}?\b(?:PHB|PIX|PXB|NODE|SYS|SOC)\b[^.\n]{0,50}?\b(?:even though|although|though|despite|"
        r"while|but|yet)\b[^.\n]{0,40}?\bNVLink(?: bridge)?\b[^.\n]{0,20}?\b(?:is |are )?(?:installed|attached|fitted|"
        r"connected|in place|present)\b",
        # ... not where the words say the PHB is gone ("no longer shows PHB", "now shows NV4"): a fix confirmed
        r"\bNVLink bridges?\b(?![^.\n]*\bNV\d+\b)[^.\n]{0,20}?\b(?:is |are )?(?:installed|attached|fitted|connected|"
        r"in place)\b[^.\n]{0,40}?\b(?:but|yet|still|however)\b[^.\n]{0,40}?\btopo\b"
        r"(?:(?!\b(?:no longer|not|never|doesn't|does not|didn't|did not)\b)[^.\n]){0,30}?"
        r"\b(?:PHB|PIX|PXB|NODE|SYS|SOC)\b",
    ],
    # nvidia-smi / NVML answering slowly, in words ("nvidia-smi takes forever", "nvidia-smi is very slow").
    "nvidia_smi_slow_words": [
        r"\bnvidia-smi\b[^.\n]{0,40}?\b(?:is|was|runs?|takes?|became|becomes)\s+"
        r"(?:very |extremely |super |really |so )?(?:slow|forever|ages|a long time|long time)\b",
        r"\bnvidia-smi\b[^.\n]{0,30}?\b(?:hangs?|hung|freezes|stalls|is unresponsive)\b",
    ],
    # A kernel module the GPU or RDMA path needs is absent.
    "module_missing": [
        r"\b(nvidia[-_]peermem|nv_peer_mem|gdrdrv|nvidia[-_]fs|nvidia[-_]uvm|mlx5_ib|ib_uverbs|ib_core|"
        r"nvidia[-_]fabricmanager)\b[^.\n]{0,40}?"
        r"\b(?:is |was |are )?(?P<state>not (?:loaded|installed|running|found|present)|missing|absent|unavailable|"
        r"fail(?:s|ed)? to (?:load|install|build))\b",
        r"\b(?:no|missing|without)\s+(nvidia[-_]peermem|nv_peer_mem|gdrdrv|nvidia[-_]fs|mlx5_ib|ib_uverbs)\b",
        # (issue 11, paraphrase audit) the reporter's own "not": "I didn't load the nv_peer_mem ... module", "I've not
        # set up nv_peer_memory module" (the Mellanox repository's name for nv_peer_mem)
        r"(?:\b(?:not|never)|n't)\s+(?:yet\s+)?(?:load(?:ed)?|install(?:ed)?|set\s*up|setup|buil[dt]|insmod|modprobe)\s+"
        r"(?:the\s+)?[\"'`]?(nvidia[-_]peermem|nv_peer_mem(?:ory)?|gdrdrv)\b",
    ],
    # NCCL's shared-memory helper failing (docker's 64 MB /dev/shm default).
    "shm_error": [
        r"(?:\bposix_fallocate|\bshm_open|/dev/shm|\bshared memory segment)\b[^.\n]{0,80}?"
        r"\b(?:fail\w*|error|No space left|denied|too small|full|only \d+)",
        r"\bError while creating shared memory segment\b", r"/dev/shm\b[^.\n]{0,40}?\b(?:64\s*M|67108864)",
        r"(?<!PCIe )\bBus error\b",  # SIGBUS, not the kernel's AER "PCIe Bus Error" (pcie_errors)
        # NCCL's shmutils.cc / shm.h and PyTorch's DataLoader messages for the same failure
        r"\bncclShmOpen\b", r"\bfailed to extend /dev/shm\b", r"\binsufficient shared memory\b",
        # (issue 11, paraphrase audit) the error before the segment ("No space left on device while creating shared
        # memory segment"), a shared-memory failure named as such ("nccl shared memory issue"), and Docker's 64 MB
        # default in Chinese ("共享内存大小为64MB")
        r"\b(?:No space left on device|fail\w*|error)\b[^.\n]{0,30}?\b(?:creating|allocating|extending|opening)\s+"
        r"(?:the\s+|a\s+)?(?:shared memory|/dev/shm|shm)\b",
        r"\bshared[- ]memory\s+(?:issue|error|problem|failure)s?\b",
        r"共享内存[^\n]{0,12}?(?:不足|太小|不够|64\s*M)",
    ],
    # Clock and power state: nvidia-smi's clocks-event (throttle) reasons and how people say it.
    "clock_power": [
        # `nvidia-smi -q` prints every reason with ": Active" or ": Not Active"; only an active one is a claim
        r"\bSW Power Cap\b(?!\s*:\s*Not)", r"\bHW Slowdown\b(?!\s*:\s*Not)",
        # the same reason by its --query-gpu field name said in prose ("a sw_power_cap issue at only about 60% TDP",
        # https://github.com/ollama/ollama/issues/16048); a CSV header's "clocks_event_reasons.sw_power_cap" is a
        # column name, read with its value below
        r"(?<![.\w])sw_power_cap\b(?!\s*[:,=]\s*Not)",
        r"\bHW Power Brake\b(?!(?: Slowdown)?\s*:\s*Not)",
        r"\b(?:SW |HW )?Thermal Slowdown\b(?!\s*:\s*Not)",
        # (not dcgm-exporter's counter description "Throttling duration due to power constraints (in us)": the
        # name of a metric, not an event)
        # (nor nvidia-smi's "throttle reasons" said to be "Not Active", its own word for none: "If all throttle reasons
        # are returned as "Not Active" ...", https://github.com/huggingface/candle/issues/733)
        r"\bpower[- ]capp(?:ed|ing)\b",
        r"\bthrottl\w+\b(?!\s+duration\b)(?!\s+reasons?\b[^.\n]{0,40}?\bNot Active\b)",
        r"\bclocks?\b[^.\n]{0,30}?\b(?:stuck|locked|drops?|dropp\w+|reduced|lower\w*|capped)\b",
        r"\bfrequency (?:reduction|drops?|throttl\w*)\b",
        # (para37b) not a state held above the idle one it should drop to: "stays at P2, never back to P8" says the
        # GPU does not go down to idle (ticket.idle_reading), not that its clocks are held down
        r"\b(?:stuck|stays|remains|locked|held|kept) (?:in|at) (?:the )?P[2-8]\b"
        r"(?![^.\n]{0,40}?(?:\b(?:never|not|won't|instead of)|n't)\b[^.\n]{0,25}?\bP(?:[5-9]|1[0-2])\b)",
        # the board drawing far less than its limit under full load: the power controller holds it back
        r"\bpower (?:draw|usage|consumption)\b[^.\n]{0,40}?"
        r"\b(?:never (?:exceeds|goes above|reaches|gets above)|capped at|limited to|tops out at)\b",
        # ... or that cannot get past a wattage ("the power (Watt) cannot go beyond 25W",
        # https://github.com/boris-dimitrov/set_gpu_fans_public/issues/4)
        r"\bpower\b[^.\n]{0,25}?\b(?:cannot|can't|can not|won't|will not|doesn't|does not|never)\s+"
        r"(?:go|get|rise|climb)\s+(?:beyond|above|over|past|higher than)\s+\d{1,4}\s*(?:W|watts?)\b",
        # `--query-gpu=clocks_event_reasons.*` (older: clocks_throttle_reasons.*) columns, an active reason
        # named by its field
        r"\bclocks_(?:event|throttle)_reasons\."
        r"(?:sw_power_cap|hw_slowdown|hw_thermal_slowdown|sw_thermal_slowdown|hw_power_brake_slowdown)"
        r"\b\s*[:,=]\s*Active\b",
        # the same reasons as NVML's bitmask (clocks_event_reasons.active): SW power cap 0x4, HW slowdown 0x8, SW/HW
        # thermal 0x20/0x40, power brake 0x80; 0x0 is none and 0x1 only idle
        r"\bclocks_(?:event|throttle)_reasons\.active\b[^\n]{0,80}?\b0x0*(?:[48c]|[2-9a-f][0-9a-f])\b",
        # (an idle GPU's clocks drop by design: a sentence about idle clocks is no claim)
        # (the clock word looked for first: the look-ahead to the line's end tried at every position cost n squared
        # steps on a long line)
        r"(?=\b(?:SM |graphics |GPU )?clocks?\b)(?![^.\n]*\bidle\b)\b(?:SM |graphics |GPU )?clocks?\b[^.\n]{0,25}?"
        r"\b(?:stuck|stays?|only|locked|capped|drops?)\b"
        r"[^.\n]{0,12}?\b\d{2,4}\s*MHz\b",
        r"降频|功耗墙|温度墙|过热|锁频",
    ],
    # Xid, ECC and reset-required errors, named in words or pasted.
    "hardware_error": [
        # `nvidia-smi -q` prints its ECC counters and reset status as "Double Bit ECC : N/A", "Reset Required : No":
        # a counter at 0 / N/A or a "No" is the field's name, not an error
        r"\bXid\s*(?:\(PCI:[^)]*\))?:?\s*(\d+)\b",
        r"\b(?:fallen|falls?|fell|falling)\s+off\s+(?:of\s+)?the\s+(?:PCIe?\s+)?bus\b",  # ("falls off the PCIe bus")
        r"\b(?:uncorrectable|double[- ]bit|DBE)\b[^.\n]{0,20}?\bECC\b(?!\s*:\s*(?:0|N/A|No|None)\b)",
        r"\bECC\b[^.\n]{0,20}?\b(?:uncorrectable|errors? (?:detected|reported))\b",
        r"\bNV_ERR_RESET_REQUIRED\b|\bReset required\b(?!\s*:\s*(?:No|N/A)\b)|\brequires? (?:a )?(?:GPU )?reset\b",
        r"\brow[- ]remap\w*\s+(?:failure|pending)\b", r"\bGPU is lost\b|\bGPU has fallen\b",
        # (dup39) nvidia-smi's line for a GPU that stopped answering the driver (NVML cannot open its handle: the Xid 79
        # state, "fallen off the bus", https://docs.nvidia.com/deploy/xid-errors/): "Unable to determine the device
        # handle for GPU 0000:0B:00.0: Unknown Error" (NVIDIA/open-gpu-kernel-modules#387, fixed by reseating the
        # card; liucongg/ChatGLM-Finetuning#95; rwth-i6/returnn#1486 beside PCIe AER errors; NVIDIA/dcgm-exporter#604;
        # NVIDIA/nvidia-docker#1553). Not another status on that line ("Insufficient Permissions", "Not Supported").
        r"\bUnable to determine the device handle for GPU\s*[0-9A-Fa-f:.]{0,20}:\s*Unknown Error\b",
        r"\bretired pages? pending\b",
    ],
    # NVSwitch / NVLS set-up failing: fabric manager not running (CUDA 802 "system not yet initialized").
    "fabric_setup": [
        # (a release or host name inside the span is no sentence end: "The Fabric Manager state at job start on h200x4
        # (driver 580.126.09 / CUDA 13.0) shows State: In Progress", huggingface/huggingface_hub#4128; nvidia-smi -q's
        # Fabric section reads State: Not Started / In Progress / Completed, the fabric manager user guide)
        r"\bfabric ?manager\b(?:[^.\n]|\.(?=\d)){0,100}?\b(?:not (?:running|started|active|installed|ready)|fail\w*|"
        r"error\w*|inactive|stopped|dead|mismatch\w*|in progress|never (?:\w+ )?(?:to )?completed?)\b",
        # (NCCL's own hint after a failed NVLS bind is read here too, "This is usually caused by a system or
        # configuration error in the Fabric Manager or NVSwitches"; where the bind it follows failed for memory it is
        # dropped below, _NVLS_OOM)
        r"\b(?:fail\w*|error|cannot start|could not start)\b[^.\n]{0,30}?\bfabric ?manager\b",
        r"\bsystem not yet initiali[sz]ed\b", r"\bcudaErrorSystemNotReady\b",
        # CUDA's error 802 (cudaErrorSystemNotReady) by its number alone: "fails with CUDA 802", "CUDA Error 802",
        # "cuda runtime error (802)", "error=802"; not IEEE 802.x ("802.3ad bonding", "802.1Q VLAN")
        r"\b(?:CUDA|cuda)(?:\s+runtime)?(?:\s+error)?\s*(?:\(802\)|802\b)(?!\.\d)",
        r"\berror\s*(?:=\s*|\(\s*|:\s*|\s)802\b(?!\.\d)",
        # (review27b) ... and the number before the word: "CUDA initialization fails with 802 system error"
        # (aws-samples/aws-deep-learning-ami-ubuntu-dcv-desktop#33)
        r"(?<![\w.])802\s+(?:system\s+)?error\b",
        # (NVLS buffers the device has no room for are memory, not the fabric: nvls.cc's "Cuda failure 'out of memory'")
        r"\bnvls\.cc\b(?![^\n]{0,100}?out of memory)[^\n]{0,60}?\b(?:WARN|fail\w*|error)\b", r"\bnvlsAllocateMem\b",
        # newer releases name the failed bind: "Failed to bind NVLink SHARP (NVLS) Multicast memory of size N :
        # CUDA error 401 'the operation cannot be performed in the present state'" (a fabric state); CUDA error 2 'out
        # of memory' there (or NVLS said to exhaust its multicast slots) is the switch's multicast resources or the
        # device's memory running out, not the fabric
        r"\bFailed to bind NVLink SHARP\b(?![^\n]{0,120}?out of memory)",
        r"\bNVLS\b(?![^\n]{0,100}?(?:out of memory|exhaust\w*))[^.\n]{0,40}?\b(?:fail\w*|error)\b",
        r"\bmulticast (?:object|support)\b[^.\n]{0,30}?\b(?:fail\w*|not supported)\b",
    ],
    # One GPU, rank or node always behind the rest.
    "one_slow": [
        # (not where the count is a place or a layout: "in the same machine it is slower", "with one GPU it is slower";
        # nor a bare "single node / single GPU", which names the layout as "single-node" does: "Single-node and
        # multi-node performance of H100 nodes", https://github.com/NVIDIA/nccl-tests/issues/290; "Multi GPU is slower
        # than Single GPU", https://github.com/ildoonet/tf-pose-estimation/issues/86; "slower than single-node",
        # https://github.com/mlfoundations/open_clip/issues/465; a straggler is "a single node", "one node")
        r"(?<!\bin )(?<!\bon )(?<!\bwith )(?<!\bwithin )(?<!\binside )(?<!\busing )(?<!\bfrom )(?<!\bacross )"
        r"\b(?:one|a single|(?<=\bno )single|a certain|a specific|the same|always (?:a|one)|only one)\s+"
        r"(?:GPU|rank|node|card|device|worker|process|machine)\b"
        # (para37c) not the layout itself, a host with its GPUs counted: "one machine, 2 GPUs: inference got slower",
        # "a single node with 8 GPUs is slower than ..." (单机2卡)
        r"(?!\s*[,:]?\s*(?:with\s+|of\s+|and\s+)?(?:\d+|two|three|four|eight)\s*[x×]?\s*(?:[\w-]+\s+)?(?:GPUs|cards)\b)"
        r"[^.\n]{0,40}?\b(?:slower|lag\w*|late|behind|straggl\w+|takes? longer)\b",
        # whatever the preposition, one of them set against the others or lagging is a straggler ("On one GPU the
        # all-reduce is always slower than on the other seven", "with one rank always lagging behind"); "on a single
        # node it is slower than on two nodes" compares layouts
        r"(?<!\ba )\b(?:one|a single|single)\s+(?:GPU|rank|node|card|device|worker|process|machine)\b[^.\n]{0,40}?"
        r"(?:\b(?:lag(?:s|ged|ging)?|straggl\w+)\b|\b(?:slower|takes? longer|later)\b[^.\n]{0,12}?\bthan\s+"
        r"(?:on\s+|in\s+|for\s+)?(?:all\s+)?(?:the\s+)?(?:others\b|rest\b|other\s+(?:\w+\s+)?(?:GPUs?|ranks?|nodes?|cards?|devices?|"
        r"workers?|process(?:es)?|machines?|one|ones|two|three|five|six|seven|\d+)\b))",
        r"\b(?:the )?(?:other|rest of the|remaining) (?:GPUs|ranks|nodes|workers|processes|devices)\b"
        r"[^.\n]{0,30}?\bwait(?:s|ing)? for\b",
        # (issue 11, paraphrase audit) "every other rank is already waiting in the all_reduce", "all other GPUs wait
        # on it": the rest waiting inside a collective or a barrier for the one that is late
        r"\b(?:every|all(?: the)?) other (?:GPUs?|ranks?|nodes?|workers?|process(?:es)?|devices?)\b[^.\n]{0,30}?"
        r"\bwait(?:s|ing|ed)? (?:for|on|in (?:the |a )?(?:all[-_ ]?reduce|all[-_ ]?gather|collective|barrier))\b",
        # one numbered GPU doing more of the work than the rest (the load imbalance a straggler is)
        r"\b(?:GPU|rank|node|worker|device)\s?#?\d+\b[^.\n]{0,30}?\bmore (?:work|computation|compute|load)\b"
        r"[^.\n]{0,15}?\bthan (?:the |all )?(?:other|rest)\b",
        # the word said of a rank or node, not a tool's or flag's name ("--log-straggler", "StragglerDetector",
        # "enable_straggler_detection", "=== Straggler Report ... No stragglers detected.", flagos-ai/FlagScale#938) nor
        # one ruled out ("no stragglers")
        r"(?<![-_\w])(?<!\bno )(?<!\bwithout )(?<!\bnot a )(?<!\bany )straggl(?:ers?|ing|es|ed)\b(?![-_]\w)"
        r"(?!\s+(?:detect\w*|report\w*|monitor\w*|logg\w*|log\b|callback|check\w*|profil\w*|interval)\b)",
        r"\bGPU\s?\d+\b[^.\n]{0,30}?\b(?:is |was )?(?:much |always |consistently )?(?:slower|lagging|behind)\b",
    ],
    # The first calls of a collective or the first requests are slow, the rest are normal.
    "first_calls_slow": [
        _FIRST_WORK + r"[^.\n]{0,60}?\b(?:slow\w*|take|takes|took|longer|"
        r"(?:was|were|is|are|needs?|needed|requires?|required|costs?)\s+"
        r"(?:about\s+|around\s+|~)?\d+(?:\.\d+)?\s*"
        r"(?:ms|s|sec\w*|seconds?|minutes?)|\d+\s*ms)\b",
        # the cost said before the work it falls on: "it takes a long time to do inference for the first few images"
        r"\b(?:slow\w*|takes?\s+(?:a\s+)?(?:long|longer|much longer|a long time|ages|forever)|long time)\b"
        r"[^.\n]{0,50}?" + _FIRST_WORK,
    ],
    # (s29, ut29a) The engine's start-up capture of CUDA graphs (or its torch.compile) said to take a time: "the capture
    # time of cuda graph is always 65s, is this normal?" (vllm-project/vllm#16716), "cuda graph capturing takes 18s"
    # (vllm-project/vllm#20264). A figure or "too long" said of the capture itself, not of decoding with graphs on.
    "graph_capture_time": [
        r"(?:\b(?:cuda[- ]?graphs?|cudagraphs?)\b[^.\n]{0,30}?\bcaptur\w*|\bcaptur\w*\b[^.\n]{0,30}?"
        r"\b(?:cuda[- ]?graphs?|cudagraphs?)\b|\btorch\.compile\b)[^.\n]{0,40}?"
        r"\b(?:is|was|are|takes?|took|taking|lasts?|last(?:ed|ing)|costs?|needs?|of|about|around)\b[^.\n]{0,20}?"
        r"(?:\d+(?:\.\d+)?\s*(?:s|secs?|seconds?|mins?|minutes?)\b|too long|so long|very long|a long time|forever|"
        # (review43) a duration in words: "CUDA graph capture takes up to a minute" (vllm-project/vllm#29275)
        r"ages|(?:a|one|a few|several)\s+(?:minutes?|mins?|hours?)\b)",
        # (review43) the time first, the capture after: "AD spends a long time on cuda-graph capture"
        # (NVIDIA/TensorRT-LLM#7440)
        r"\b(?:spends?|spent|spending|takes?|took|taking)\s+(?:a\s+)?(?:long time|lot of time|very long|ages|forever|"
        r"\d+(?:\.\d+)?\s*(?:s|secs?|seconds?|mins?|minutes?))\s+(?:on|in|for)\s+(?:the\s+)?(?:capturing\s+"
        r"(?:the\s+)?(?:cuda[- ]?graphs?|cudagraphs?)\b|(?:cuda[- ]?graphs?|cudagraphs?)[- ]captur\w*)",
    ],
    # A rank blocked in a collective, waiting for a peer that has not arrived.
    "blocked_in_collective": [
        r"\b(?:blocked|blocking|waiting|wait(?:s|ed)? for)\b[^.\n]{0,60}?"
        r"\b(?:all[-_ ]?gather|all[-_ ]?reduce|broadcast|collective|NCCL|"
        r"(?:the )?other (?:process|rank|GPU|worker)s?)",
        r"\b(?:skip|skips|skipped|not call\w*|never call\w*)\b[^.\n]{0,30}?"
        r"\b(?:all[-_ ]?gather|all[-_ ]?reduce|broadcast|collective)",
    ],
    # Each rank isolated from the other GPUs: its own container, or a scheduler showing it one GPU.
    # CUDA IPC / P2P needs the peer GPU visible in the same IPC and PID namespaces.
    "isolated_ranks": [
        r"\b(?:each|every) (?:rank|process|task|worker|container|pod)\b[^.\n]{0,30}?\b(?:only )?(?:sees?|has|gets)\b"
        r"[^.\n]{0,20}?\b(?:its own|one|a single) GPU\b",
        r"\b(?:across|between) (?:two |multiple |different |\d+ )?(?:docker|containers?|pods)\b",
        # (para38) "dockers" as reporters write the plural ("two dockers on one host")
        r"\b(?:two|multiple|several|\d+) (?:docker|dockers|(?:docker )?containers|pods)\b[^.\n]{0,40}?"
        r"\b(?:same|one) (?:host|node|machine|server)\b",
        r"--gpus-per-task\b|\bgpus-per-task\b",
        # (para37b) the first reading in Chinese: "每个 rank 只能看到自己那张 GPU"
        r"(?:每个|每一个)\s*(?:rank|进程|任务|容器|pod)[^\n。，,]{0,10}?(?:看到|看见|分到|拿到)[^\n。，,]{0,6}?"
        r"(?:自己(?:的|那张|那块)?|一张|一块)\s*(?:GPU|卡|显卡)",
        # (para38) the ranks in separate containers, in Chinese as the English "between two containers" / "two
        # containers on the same host": "两个 docker 之间跑 NCCL", "同一台机器上的两个容器", "跨容器"
        # (review38b: not "不是跨容器", "没有跨容器")
        r"(?:两个|多个|几个|[2-9]\s*个)\s*(?:docker|容器|pod)\s*(?:之间|间)|(?<![不没非])(?<!不是)(?<!没有)跨\s*(?:docker|容器|pod)|"
        r"(?:同一台?|一台)\s*(?:机器|服务器|主机|节点)\s*(?:上|里|内)?\s*的?\s*(?:两个|多个|[2-9]\s*个)\s*"
        r"(?:docker|容器|pod)",
    ],
    # Wrong numbers out of a collective or a multi-GPU run: corrupted peer transfers.
    "wrong_results": [
        r"\b(?:data|results?|values?|outputs?|gradients?|communication data)\b[^.\n]{0,30}?"
        r"\b(?:is|are|was|were)?\s*(?:all )?"
        r"(?:incorrect|corrupt\w*|wrong|garbage|NaNs?|nan)\b",
        r"\b#?\s*wrong\b[^\n]{0,20}\b[1-9]\d*\b", r"\bOut of bounds values\s*:\s*[1-9]",
        # (para38b) the same in Chinese: "通信数据全都是错的", "结果不正确", "输出乱码", as the first reading above;
        # nothing denying between ("数据没有错误", "结果是不是错的" asks) and not "不对劲" (something feels off)
        # (review38c) not a step on the data that failed, an error the program raised: "数据格式错误" (KeyError),
        # "数据加载错误" (FileNotFoundError), "数据集路径错误", "数据类型错误"
        r"(?:数据|结果|输出|数值|梯度)(?!集)(?:(?![没不无]|格式|加载|读取|路径|类型|处理|解析|文件|维度|形状|长度)"
        r"[^。\n，,？?]){0,8}?(?:错的|错误|不正确|不对(?!劲)|乱码)",
        r"\baccuracy (?:does ?n[o']t|would ?n[o']t|did ?n[o']t|never) (?:go up|improve|increase)\b",
        # A copy from one GPU to another that lands zeros or wrong values (a copy through the host is right): the
        # peer DMA is redirected or faulted (NCCL troubleshooting, "PCI Access Control Services"; CUDA's simpleP2P
        # checks exactly this). Reported as "moving a tensor from cuda:0 to cuda:1 gets a zero tensor"
        # (pytorch/pytorch#87363), "any attempt to copy tensors between devices fails silently ... all of the values
        # are set to zero" (#13803), "isn't copying the data correctly when it is moved from one GPU to another GPU"
        # (#132397), "weights aren't right on the second gpu" (#70048).
        _PEER_MOVE + r"[^.\n]{0,80}?" + GPU_TO_GPU + r"[^.\n]{0,80}?" + _PEER_WRONG,
        _PEER_WRONG + r"[^.\n]{0,60}?" + _PEER_MOVE + r"[^.\n]{0,60}?" + GPU_TO_GPU,
        _PEER_MOVE + r"[^.\n]{0,60}?" + _PEER_WRONG + r"[^.\n]{0,60}?" + GPU_TO_GPU,
        # (s20) the GPU-to-GPU words first ("Cross-GPU copies failing silently"), or PyTorch's move to a CUDA device
        # landing zeros ("`tensor.to('cuda:1')` returns an all-zero tensor": which GPU it left, ticket.p2p_corrupts
        # asks of the job's GPU count)
        GPU_TO_GPU + r"[^.\n]{0,40}?" + _PEER_MOVE + r"[^.\n]{0,60}?" + _PEER_WRONG,
        _TORCH_TO + r"[^.\n]{0,100}?" + _PEER_WRONG,
    ],
    # The IOMMU faulting on GPU DMA: peer traffic blocked on bare metal (AMD-Vi / Intel DMAR).
    "iommu_fault": [
        r"\bAMD-Vi\b[^\n]{0,80}?\bIO_PAGE_FAULT\b", r"\bIO_PAGE_FAULT\b", r"\bDMAR\b[^\n]{0,80}?\b(?:fault|DRHD)\b",
        r"\bDMA (?:Read|Write) (?:NO_PASID|fault)\b",
    ],
    # A Python exception or an engine error message quoted in the ticket: software raising.
    "exception": [
        # (s25) Python's header "Traceback (most recent call last):" ends its line (the old `\b` after its ")" never
        # matched); IPython and Jupyter print the exception's name on the header's line, padded: "AssertionError
        # <spaces> Traceback (most recent call last)" (vllm-project/vllm#1386).
        r"\b(?!" + _SIGINT_RAISED + r")(?:[A-Z]\w*(?:Error|Exception)|AssertionError)\b"
        r"(?::|\s*$|[ \t]{2,}Traceback \(most recent call last\))|"
        # (review25) Not a traceback whose frames end in KeyboardInterrupt: the user's Ctrl-C stopped the run, nothing
        # raised (nagadomi/nunif#26, pytorch/pytorch#129477). (review3_25) Other processes' lines may cut into the
        # frames as several print at once ("Process Process-1:", the elastic agent's "WARNING:..." lines,
        # hpcaitech/ColossalAI#5179), and the elastic agent raises the Ctrl-C as SignalException (_SIGINT_RAISED).
        r"\bTraceback \(most recent call last\)(?=:?[ \t]*(?:\n|$))"
        # Each frame line is read one way only (a line opening with a blank, an empty line, another process's line):
        # "[ \t]+[^\n]*" split each indented line at any of its blanks, and a traceback not ending in Ctrl-C tried
        # every split of every frame (a 1.4 kB JAX traceback, tests/data/dup39/fm802_1.md, took 8 s)
        r"(?!:?[ \t]*\n(?:[ \t][^\n]*\n|\n|(?:Process [\w-]+:|WARNING:|INFO:)[^\n]*\n)*"
        r"(?:KeyboardInterrupt\b|[\w.]*" + _SIGINT_RAISED + r"))",
        _CUDA_CHECK_LINE,
        r"\bRuntimeError\b|\bValueError\b|\bTypeError\b|\bKeyError\b|\bNotImplementedError\b",
        # (s26, ut26e) a C++ engine's check, as it prints it ("[TensorRT-LLM][ERROR] Assertion failed: ...", TurboMind's
        # "[TM][ERROR] Assertion fail: ...") or as the reporter retells it: "It will not run because there is an
        # assertion that PP size * TP size <= num_GPUs_per_node" (NVIDIA/TensorRT-LLM#1035). Not "add an assert for
        # ..." (a change proposed) nor an assertion said to pass.
        r"\bAssertion fail(?:ed|s|ure)?\b|\b(?:there is|there's|hits?|hit|triggers?|an?)\s+(?:an?\s+)?assert(?:ion)?\s+"
        r"(?:that|in|at)\b(?![^.\n]{0,60}?\b(?:pass(?:es|ed)?|holds?)\b)",
        # (s22) an engine refusing a model architecture by its Transformers class name (config.json "architectures"),
        # as engines word it: "Tensor-parallel is not supported for Gemma2ForCausalLM" (exllamav2, as quoted in
        # theroyallab/tabbyAPI#188 and #363), "Glm4MoeModel'> does not support tensor parallel yet!" (transformers,
        # vllm-project/vllm#22126), "Auto policy for Gemma2ForCausalLM (...) is not implemented" (ColossalAI#6120)
        r"\bnot (?:supported|implemented)\s+(?:for|by|with)\s+`?[A-Z][a-z]\w*?For(?:CausalLM|ConditionalGeneration)\b",
        r"\b[A-Z][a-z]\w*?(?:For(?:CausalLM|ConditionalGeneration)|Model)\b\W{0,4}\s*does not support\b",
        r"\bfor\s+`?[A-Z][a-z]\w*?For(?:CausalLM|ConditionalGeneration)\b[^\n]{0,100}?\bis not implemented\b",
    ],
    # A/B: the same job on bare metal and in a VM (or a cloud instance), differently.
    "vm_vs_bare_metal": [
        r"\b(?:bare[- ]?metal|BM|physical (?:host|machine|server))\b[\s\S]{0,300}?"
        r"\b(?:VMs?|virtual machines?|guest|hypervisor|Proxmox|KVM)\b",
        r"\b(?:VMs?|virtual machines?|guest|hypervisor|Proxmox|KVM)\b[\s\S]{0,300}?"
        r"\b(?:bare[- ]?metal|BM|physical (?:host|machine|server))\b",
        # (para37b) in Chinese: 物理机 / 裸机 / 裸金属 "bare metal" and 虚拟机 "virtual machine", either first
        r"(?:物理机|裸机|裸金属)[\s\S]{0,300}?(?:虚拟机|\bVMs?\b)|(?:虚拟机|\bVMs?\b)[\s\S]{0,300}?(?:物理机|裸机|裸金属)",
    ],
    # Memory each GPU shows, as a complaint ("takes 38GB on each GPU").
    "memory_per_gpu": [
        r"\b(?:takes?|uses?|occup\w+|consum\w+|allocat\w+|load(?:s|ed|ing)?)\s+(?:up to |about |around |~)?"
        r"\d+(?:\.\d+)?\s*G(?:i)?B\b(?!\s*/\s*s|ps)"
        r"[^.\n]{0,20}?\b(?:(?:on|of|per|in)\s+(?:each|every|per|both|all)\b|per (?:GPU|card|device)\b)",
        r"\b(?:memory|VRAM)\b[^.\n]{0,40}?\b(?:on|of|per)\s+(?:each|every)\s+GPU\b[^.\n]{0,30}?\b(?:high|full|same|\d+\s*G)",
        # (issue 11, q11a) one GPU's memory far above the weights: "takes 72 GB of GPU memory although the model is only
        # 13 GB", "uses 90% of the VRAM for a 7B model", "显存占用 70 多 G，模型才 15G": the engine's reservation
        # (cr10 #8) said with any verb or reading: "nvidia-smi shows 74 GB used even though the weights are only 15 GB",
        # "grabs 43 GiB of GPU memory but the model itself should be 26 GB", "memory is almost full (22 of 24 GB) for
        # a 7B model": a memory figure, then a contrast with the model or its weights
        # A verb takes its figure next to it: in "using 2x RTX 4090 (24 GB) for the 70B model" or "used 4x A100 80GB
        # for Llama-70B" the figure is the size of the card named with it, not memory held
        # (ut27f) a share after a verb is memory only when it says so ("uses 90% of the VRAM"):
        # "ncclAllReduceRingLLKernel used 13.4% of cuda resources, which caused the cuda resources for model
        # calculation to be occupied" (NVIDIA/nccl#403) is a kernel's share of the GPU's time
        r"(?:\b(?:memory|VRAM)\b[^.\n]{0,30}?\d+(?:\.\d+)?\s*(?:G(?:i)?B(?!\s*/\s*s|ps)|%)|"
        r"\bnvidia-smi\b[^.\n]{0,30}?\d+(?:\.\d+)?\s*G(?:i)?B(?!\s*/\s*s|ps)|"
        r"\b(?:takes?|uses?|using|used|occup\w+|consum\w+|allocat\w+|"
        r"reserv\w+|eats?|fills?|grabs?|holds?)(?:\s+up)?\s+(?:up to |about |around |~|over |almost |nearly |only )?"
        r"\d+(?:\.\d+)?\s*(?:G(?:i)?B(?!\s*/\s*s|ps)|%(?=\s+of\s+(?:the\s+|its\s+|each\s+)?(?:GPU'?s?\s+)?"
        r"(?:VRAM|memory)\b)))"
        r"[^.\n]{0,60}?\b(?:although|though|while|but|whereas|for|even though)\b[^.\n]{0,40}?\b(?:model|weights)\b",
        r"(?:显存|GPU\s*内存)\s*(?:占用|使用|用了|占了)?[^。\n]{0,12}?\d+\s*(?:多\s*)?(?:G|GB|%)[^。\n]{0,30}?模型"
        r"[^。\n]{0,12}?(?:才|只有|只|仅|不到)",
        # (s29, ut29a) the same reading in the other order, the model's size first: "the gguf model is only 800M, but
        # why does the GPU memory usage exceed 20G?" (vllm-project/vllm#7979)
        r"\b(?:model|weights|gguf|checkpoint)\b[^.\n]{0,20}?\b(?:is|are|was|only|just)\b[^.\n]{0,10}?"
        r"\d+(?:\.\d+)?\s*(?:[MG](?:i?B)?)\b[^.\n]{0,40}?\b(?:memory|VRAM)(?:\s+(?:usage|use|footprint|consumption))?"
        r"[^.\n]{0,15}?\b(?:exceed\w*|(?:is |goes )?(?:over|above|more than)|reach\w*|is|are|was)\s+"
        r"(?:about |around |~|almost |nearly )?\d+(?:\.\d+)?\s*G",
        # ... the engine's footprint set against a plain (Transformers) load of the same model, both as figures: "The
        # normal loading of the baichuan-13b takes up about 25G of GPU, and the loading of vllm takes up 35G of GPU"
        # (vllm-project/vllm#822), "takes only 18Gb when run by using hugggingface code, but the same model takes 38
        # GB GPU memory with VLM" (vllm-project/vllm#10357's title)
        r"\b(?:HF|hug+ing\s*face|transformers|normal(?:ly)?|plain|raw|native)\b[^.\n]{0,60}?\d+(?:\.\d+)?\s*"
        r"G(?:i?B)?(?!\s*/\s*s|ps)\b[^.\n]{0,60}?\b(?:vllm|sglang|lmdeploy|tensorrt-?llm|trt-?llm|tgi)\b"
        r"[^.\n]{0,30}?\d+(?:\.\d+)?\s*G(?:i?B)?(?!\s*/\s*s|ps)\b",
        r"\d+(?:\.\d+)?\s*G(?:i?B)?(?!\s*/\s*s|ps)\b[^.\n]{0,40}?\b(?:HF|hug+ing\s*face|transformers)\b[^.\n]{0,60}?"
        r"\d+(?:\.\d+)?\s*G(?:i?B)?(?!\s*/\s*s|ps)\b[^.\n]{0,30}?\b(?:vllm|VLM|sglang|lmdeploy|tensorrt-?llm|tgi)\b",
        # (review43) ... the engine first, then a plain or quantisation-library load set against it: "with vLLM it
        # consumes around 69GB of GPU, whereas AutoGPTQ consumes around 5.67GB" (vllm-project/vllm#2352)
        r"\b(?:vllm|sglang|lmdeploy|tensorrt-?llm|trt-?llm|tgi)\b[^.\n]{0,40}?\d+(?:\.\d+)?\s*G(?:i?B)?(?!\s*/\s*s|ps)\b"
        r"[^.\n]{0,20}?\b(?:whereas|while|but|compared (?:to|with)|vs\.?)\s+(?:with\s+|using\s+)?(?:the\s+)?"
        r"(?:HF|hug+ing\s*face|transformers|auto-?gptq|auto-?awq|plain|native)\b[^.\n]{0,30}?\d+(?:\.\d+)?\s*"
        r"G(?:i?B)?(?!\s*/\s*s|ps)\b",
        # ... in words, no figure: "llama-13B使用lmdeploy和transformers分别加载后，显存占用差距较大"
        # (InternLM/lmdeploy#1509)
        r"(?:vllm|lmdeploy|sglang|tensorrt-?llm|trt-?llm)\s*(?:和|与|跟|比|vs\.?)\s*(?:transformers|hf|huggingface)"
        r"[^。\n？?]{0,30}?显存(?:占用)?[^。\n]{0,6}?(?:差距|差别|相差|多|大)",
        # ... the model's size against a usage said to be above it: "it will take around 40GB total (model size) out
        # of 256GB, but when I load it, the GPU usage is more than that" (vllm-project/vllm#4733)
        r"\bmodel size\b[^.\n]{0,80}?\bbut\b[^.\n]{0,40}?\b(?:GPU|memory|VRAM)\s+(?:usage|use|consumption|footprint)\b"
        r"[^.\n]{0,10}?\b(?:is\s+)?(?:much\s+|far\s+|way\s+)?(?:more|higher|larger|bigger|greater)\s+than\b",
        # ... or the reservation itself, as the reporter sees it: "The tensorrt-llm tends to use as much memory for KV
        # cache as it could in startup" (NVIDIA/TensorRT-LLM#486), "kv cache used a lot of vram"
        # (vllm-project/vllm#17891)
        # "vllm serve /models/Meta-Llama-3-8B/ ... uses almost all available space on my H100" (vllm-project/vllm#8816)
        r"\b(?:uses?|using|takes?|took|taking|occup\w+|consum\w+|eats?|grabs?|fills?)\s+(?:up\s+)?"
        r"(?:almost |nearly |practically )?(?:all|most)\s+(?:of\s+)?(?:the\s+)?(?:available\s+)?(?:GPU\s+)?"
        r"(?:memory|VRAM|vram|space)\b",
        # "Why TGI reserves a significant amount of VRAM and what it is used for?" (huggingface/text-generation-
        # inference#1856)
        r"\b(?:reserv\w+|pre-?allocat\w+|grabs?|grabbing)\s+(?:a\s+)?(?:significant|large|huge|big|lot|most|all)\b"
        r"[^.\n]{0,20}?\b(?:VRAM|vram|memory)\b",
        r"\b(?:use|uses|using|take|takes|allocat\w+|reserv\w+|grabs?)\s+as much (?:GPU )?memory "
        r"(?:for (?:the )?KV[- ]?cache )?as (?:it )?(?:can|could|possible)\b",
        # ... or a figure said to be the KV cache's: "73GB used, 67GB used for KV Cache!" (NVIDIA/TensorRT-LLM#1400),
        # "其中 62.18GiB 是 KV cache 预留池" (vllm-project/vllm#43400)
        r"\d+(?:\.\d+)?\s*G(?:i?B)?\s+(?:(?:is |are |was )?used\s+)?(?:for|是|by)\s+(?:the\s+)?KV[- ]?cache\b",
        r"\bKV[- ]?cache\b[^.\n]{0,15}?\b(?:uses?|used|takes?|took|occup\w+|eats?|consum\w+)\s+(?:up\s+)?"
        r"(?:a lot of|most of|so much|too much|almost all)\b[^.\n]{0,20}?\b(?:memory|v?ram|VRAM)\b",
        # (last: a sentence that also sets the engine against a plain load is read by that pattern, whose two
        # figures are both memory) ... a model's parameter count, then the memory its loading needs: "Why does
        # loading a 7b model with VLLM require 70GB of vram?" (vllm-project/vllm#17891),
        # "to inference vicuna-13B，It took 75 G of video memory"
        # (vllm-project/vllm#527). Groups (billions of parameters, GB): ticket.explained reads it as a reservation
        # only where the memory is well above the 16-bit weights ("a 70b model in fp16 requires 140GB of VRAM" is not)
        r"(?<![\w.])(?:[A-Za-z][\w-]*?)?(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])[^.\n]{0,60}?"
        r"\b(?:requires?|requiring|needs?|needing|took|takes?|taking|uses?|using|consum\w+|occup\w+)\s+"
        r"(?:up\s+)?(?:about |around |~|over |almost |nearly )?(\d+(?:\.\d+)?)\s*G(?:i?B)?(?:\s+(?:of\s+)?"
        r"(?:(?:the\s+)?(?:video|GPU|gpu)\s+(?:memory|ram|RAM)|VRAM|vram|显存)|(?![\w/]|\s*/\s*s|\s*ps\b))",
        # ... with the reading after the usage word: "when load 13b llama in vllm, GPU usage is about 73G"
        # (vllm-project/vllm#550), "vicuna7b_v1.3 with default config ,i found that gpu memory cost around 23G"
        # (vllm-project/vllm#235)
        r"(?<![\w.])(?:[A-Za-z][\w-]*?)?(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])[^.\n]{0,60}?"
        r"\b(?:GPU|gpu|memory|VRAM|vram)\s+(?:memory\s+)?(?:usage|use|cost|consumption|footprint)\s+(?:is\s+|was\s+)?"
        r"(?:about |around |~|over |almost |nearly )?(\d+(?:\.\d+)?)\s*G(?:i?B)?\b",
    ],
    # The share of time spent communicating, as the reporter measured it.
    "comm_share": [
        # (para37b) not a share said of the GPU in between: "nccl waiting but gpu show 100%" is its utilisation
        r"\b(?:NCCL|communication|comm|all[-_ ]?reduce|allgather)\b"
        r"(?:(?!\bGPUs?\s+(?:usage\s+|util\w*\s+)?(?:shows?|showed|shown|is|are|was|were|at|reach\w*|hits?|goes|went)\b)"
        r"[^.\n%]){0,40}?\b(\d{1,3}(?:\.\d+)?)\s*%"
        r"(?!\s*(?:GPU\s*)?(?:busy|util\w*|usage|load|occup\w*|volatile))"
        r"(?!\s*(?:slower|faster|lower|higher|less|more|worse|better|drop|increase|decrease|improvement|regression|"
        r"of (?:the )?(?:bandwidth|peak|line rate)))",
        r"\b(\d{1,3}(?:\.\d+)?)\s*%\s+(?:of (?:the )?(?:time|step|runtime) )?(?:is |was )?"
        r"(?:goes to |spent (?:in|on) )?(?:NCCL|communication|all[-_ ]?reduce)\b",
    ],
    # Compute kernels slowing down while a collective runs beside them.
    "overlap_slowdown": [
        r"\b(?:kernels?|compute|GEMM|attention)\b[^.\n]{0,80}?\boverlap\w*\b[^.\n]{0,60}?"
        r"\b(?:NCCL|communication|all[-_ ]?reduce|allgather|collective)",
        r"\boverlap\w*\b[^.\n]{0,40}?\b(?:NCCL|communication|collective)\b[^.\n]{0,60}?\b(?:slower|longer|increase\w*|slows?)\b",
    ],
    # The engine refusing a TP size: its error catalog (vLLM, SGLang, TRT-LLM, DeepSpeed, Megatron).
    "tp_size_error": [
        r"\bnot aligned with the quantized weight shape\b",
        r"\b(?:is )?not divisible by\b[^.\n]{0,60}?\b(?:tensor|tp|parallel|world|mp|num_shards)",
        # (TGI: "`num_heads` must be divisible by `num_shards` (got `num_heads`: 25 and `num_shards`: 2)")
        r"\b(?:must|should) be divisible by\b[^.\n]{0,40}?\b(?:tensor|tp|parallel|world|mp|gpus?|num_shards)",
        r"\b(?:heads?|num_heads|num_attention_heads|kv_heads|head_num|kv_head_num|hidden_size|intermediate_size)\b"
        r"\s*%\s*(?:tp|mp|world)\w*",
        r"\bassert\w*[^\n]{0,60}?%\s*(?:mp_size|tp_size|world_size|tensor_parallel)\w*\s*==\s*0",
        # the same check as engines write it on an attribute (TGI's layers: "assert in_features % self.tp_world_size
        # == 0"; LightLLM: "assert self.config["num_attention_heads"] % self.world_size_ == 0"), taken only where a
        # model dimension is divided: "args.world_size % args.tensor_model_parallel_size" (Megatron's GPU count) and
        # "seq_length * micro_batch_size % ..." are a layout's and a batch's checks, not the model's
        r"\bassert\w*[^\n]{0,60}?\b(?:\w*heads?\w*|head_num\w*|in_features|out_features|hidden_size|intermediate_size|"
        r"vocab_size|embed_dim|num_experts)\W{0,3}%\s*(?:\w+\.)*\w*?"
        r"(?:world_size|tp_size|mp_size|tensor_model_parallel_size|tensor_parallel_size)\w*\s*==\s*0",
        r"\b(?:input|output) size\b[^.\n]{0,40}?\bnot (?:aligned|divisible)\b",
        # ensure_divisibility's bare refusal in vLLM, SGLang and Megatron-LM ("AssertionError: 25 is not divisible by
        # 4"; vllm/distributed/utils.py, megatron/core/utils.py) names no parallel size: data.groups keep both
        # numbers, and the rule takes it only where the divisor is the ticket's TP size
        r"\b(\d{1,6}) is not divisible by (\d{1,3})\b(?!\s*[.,]?\d)",
        # (issue 11, paraphrase audit) the heads said not divisible by the devices in prose ("num_heads are not
        # divisible by number of workers"), TGI's refusal to shard a dimension (server/text_generation_server/utils/
        # weights.py get_sharded: "The choosen size 50432 is not compatible with sharding on 3 shards") and the same
        # in Chinese ("32 heads ÷ 5 GPUs 不整除")
        r"\b(?:heads?|num_heads|num_attention_heads|attention heads)\b[^.\n]{0,20}?\bnot divisible by\b[^.\n]{0,30}?"
        r"\b(?:workers?|GPUs?|devices?|ranks?|cards?|shards?)\b",
        r"\bnot compatible with sharding on \d+ shards?\b",
        r"(?:\bheads?\b|注意力头|头数)[^\n]{0,30}?(?:不整除|不能整除|无法整除|除不尽)",
        # the verb for the adjective ("the number of attention heads of GPT-XL is 25, which cannot be divided by the
        # tensor parallel size 4", hpcaitech/ColossalAI#116), as "is not divisible by" above
        r"\b(?:can\s?not|can't|could\s?not|couldn't|not)\s+be\s+(?:evenly\s+)?divided\s+(?:by|among|between|across)\b"
        r"[^.\n]{0,40}?\b(?:tensor|tp|parallel|world|mp|gpus?|ranks?|shards?|devices?|cards?)\b",
        # the engines' rule as Chinese writes it, the heads to be divisible by the TP size, beside the error it raises
        # ("attention head的个数得整除TP的size，用12就会报错", hpcaitech/ColossalAI#3043), as "must be divisible
        # by" above
        r"(?:\bheads?\b|注意力头|头数|head的?个数)[^\n]{0,20}?(?:得|必须|需要|要)\s*(?:能\s*)?(?:被\s*)?整除\s*"
        r"(?:TP|tp|张量并行|卡数|GPU)[^\n]{0,30}?报错",
        # (s26, ut26e) a quantised layer's width against the TP size times the quantisation group, as the converter's
        # refusal is retold: '"intermediate_size": 27392,无法整除4*128' (InternLM/lmdeploy#1560: 27392 / 128 = 214
        # groups, which 4 GPUs cannot share), "hidden_size 13696 is not divisible by 2*128". data.groups: the width,
        # then the two factors (the TP size and the group size, in the order written)
        r"\b(?:intermediate_size|hidden_size|in_features|out_features|ffn_hidden_size|moe_intermediate_size)\b\W{0,4}"
        r"\s*(\d{3,6})\s*[,，]?\s*(?:(?:is\s+)?not\s+divisible\s+by|(?:can\s?not|can't)\s+be\s+divided\s+by|"
        r"无法整除|不能整除|不整除|除不尽)\s*(\d{1,3})\s*[*x×]\s*(\d{1,4})\b",
        # (cn42) the same refusal worked through in Chinese, the width divided by the group first and the groups left
        # that the TP sizes cannot share: "intermediate_size为29568，除以groupsize(128)后剩下的231无法被2或4或8整除"
        # (QwenLM/Qwen3-VL#231; vllm-project/vllm#21695 answers the same checkpoint "29568/128 = 231, which means TP is
        # currently limited to 1"). data.groups: the width, the group, the first TP size named; not "可以被2，4，8整除"
        r"\b(?:intermediate_size|hidden_size|in_features|out_features|ffn_hidden_size|moe_intermediate_size)\b\W{0,4}"
        r"\s{0,3}(?:为|是|=|:|：)?\s{0,3}(\d{3,6})\s{0,3}[,，]?\s{0,3}(?:除以|/)\s{0,3}(?:group_?size|组大小|分组大小)?"
        r"\s{0,3}[(（]?\s{0,3}(\d{2,4})\s{0,3}[)）]?[^\n。]{0,16}?(?:无法|不能|没法)\s{0,3}被\s{0,3}(\d{1,2})"
        r"(?:\s{0,3}(?:或者?|、|,|，)\s{0,3}\d{1,2}){0,3}\s{0,3}整除",
        # (s29, ut29f) a quantised kernel's tile refusing one rank's shard: vLLM's Marlin check ("Weight
        # input_size_per_partition = 14784 is not divisible by min_thread_k = 128. Consider reducing
        # tensor_parallel_size", vllm/model_executor/layers/quantization/utils/marlin_utils.py; vllm#13640) and its
        # kernels' shape asserts ("size_n = 5472 is not divisible by tile_n_size = 64", zai-org/GLM-V#178).
        # data.groups: the shard's width, then the tile; the rule takes it only where the ticket's TP is 2 or more
        # (at TP 1 the whole width meets the tile: the kernel's limit, not the layout, vllm#9913)
        r"\b(?:input|output)_size_per_partition\s*=\s*(\d{2,6}) is not divisible by min_thread_[kn]\s*=\s*(\d{1,4})\b",
        r"\bsize_[kn]\s*=\s*(\d{2,6}) is not divisible by tile_[kn]_size\s*=\s*(\d{1,4})\b",
    ],
    # The reporter compares two CPUs, hosts' CPU settings, or CPU load: a host-side lead.
    "cpu_ab": [
        r"\b(?:upgrad\w+|chang\w+|switch\w+|different|faster|newer|better)\s+(?:the\s+)?CPUs?\b(?![ _-]?affinit)",
        # (review37) on one line: a title ending "slow" above a body opening "CPU RAM usage" is no slow CPU
        r"\b(?:slow(?:er)?|weak(?:er)?|old(?:er)?)[ \t]+(?:v?CPUs?|CPU cores|processors?)\b|"
        r"\b(?:v?CPUs?|processors?)\b[^.\n]{0,15}?\b(?:is|are) (?:much |a lot |far )?(?:slower|weaker|older)\b",
        r"\bCPU\b[^.\n]{0,30}?\b(?:upgrad\w+|bottleneck\w*|at 100\s*%|pegged|maxed)\b",
        # the serving process's own thread busy while the GPU waits: vLLM/SGLang docs' "CPU overhead",
        # Python's GIL (one core per process), the GPU idle between steps waiting on the host
        # (a GPU named between them owns the figure: "CPU usage is low, the GPU is at 100 %")
        # (hostbound37) or near it: "CPU loading: >90%" beside "GPU loading: 20%" (tensorflow/nmt#110); not a share
        # said idle or free
        # (review37) nor the host's memory, fan or temperature between ("CPU RAM usage is 95%"): no load of the cores
        r"\bCPU\b(?:(?!\bGPU|\b(?:RAM|memory|mem|swap|fans?|temp\w*)\b)[^.\n%]){0,40}?(?:>\s*|over |above )?"
        r"(?:100|9\d(?:\.\d+)?)\s*%(?!\s*(?:idle|free|fans?\b|RAM|memory))",
        r"\b100\s*%\s*(?:CPU|of (?:a|one) (?:CPU )?core)\b",
        # ("one of the processor cores is always at 100 %": "processor" is the CPU's other name, as in "slower
        # processors" above)
        r"\b(?:one|single|1|a|two|2) (?:of (?:the|my|its|our) )?(?:logic(?:al)? |physical )?(?:CPU |processor )?"
        r"(?:cores?|threads?)\b[^.\n]{0,40}?\b(?:100\s*%|maxed|pegged|saturat\w*|fully (?:loaded|used|busy))",
        # one of them busy and the rest not ("tensorflow serving gpu only one thread is busy",
        # https://github.com/tensorflow/serving/issues/1505; the OpenLLM and vLLM threads' "only one core")
        r"\b(?:only|just)\s+(?:one|a single|1)\s+(?:CPU\s+)?(?:core|thread)\s+(?:is|was|are)\s+(?:\w+\s+)?busy\b",
        r"\b(?:CPU|host)[- ](?:bound|bottleneck\w*|limited|overhead)\b", r"\b(?:GIL|global interpreter lock)\b",
        # high CPU load said without a figure, and the serving side's Python overhead (vLLM/SGLang docs:
        # "CPU overhead")
        r"\bhigh CPU (?:usage|load|utili[sz]ation)\b|"
        r"\bCPU (?:usage|load|utili[sz]ation) (?:is |was |stays |remains )?(?:very |extremely )?high\b",
        r"\b(?:Python|framework|scheduling|scheduler|CPU[- ]side|host[- ]side)\s+overhead\b",
        r"\b(?:tokeni[sz]\w+|detokeni[sz]\w+|scheduler|scheduling|sampler|post-?process\w*|pre-?process\w*|"
        # (review37b) with no word between that calls the part quick ("the tokenizer is fast", "it doesn't matter
        # that it happens on cpu"), and not ruled out right before ("not the bottleneck", "no overhead")
        r"data ?loader\w*)\b(?:(?!\b(?:small|negligible|minor|tiny|fast|matter)\b)[^.\n]){0,60}?"
        # (para37) the CPU with no article, as 在CPU上 above says it ("it's only running on cpu")
        r"(?<!not )(?<!not the )(?<!n't )(?<!no )\b(?:bottleneck\w*|overhead|on (?:the )?CPU|CPU[- ]bound)\b",
        r"(?:tokeni[sz]\w*|分词|预处理|数据加载)[^\n]{0,40}?(?:在\s*CPU\s*上|CPU\s*上运行|只用\s*CPU|用的是\s*CPU|CPU\s*瓶颈)",
        r"CPU\s*(?:占用|使用率?|利用率)\s*(?:一直|达到|超过|都是|为|是)?\s*100\s*%|CPU\s*瓶颈|单核\s*100\s*%",
        r"\bGPUs?\b[^.\n]{0,30}?\b(?:wait\w*|idl\w+|starv\w+)\b[^.\n]{0,25}?\b(?:for|on)\s+(?:the\s+)?(?:CPUs?|host|Python)\b",
    ],
    # CUDA graphs off: the engines' own switches (vLLM/Aphrodite --enforce-eager / enforce_eager=True,
    # SGLang --disable-cuda-graph, vLLM's compilation cudagraph_mode NONE, TGI --cuda-graphs 0) and the
    # words for it. Not HF's attn_implementation="eager", which names an attention kernel.
    # The engines' own logs name the switch as advice ("To run the model in eager mode, set 'enforce_eager=True'
    # or use '--enforce-eager'", SGLang's "disable CUDA graph by --disable-cuda-graph"): advice is not the setting.
    "eager_flag": [
        # (the name ends where the flag does: "--disable-cuda-graph-padding", SGLang's switch that keeps graphs on
        # for batch sizes that need no padding, is no "--disable-cuda-graph")
        _ADVICE + r"--enforce[-_]eager(?![\w-])(?!\s*(?:=\s*)?(?:False|false|0)\b)",
        _ADVICE + r"(?<!-)\benforce[-_]eager\W?\s*[=:]\s*(?:True|true|1)\b",  # (the dashed flag is the line above's)
        _ADVICE + r"--disable[-_]cuda[-_]graphs?(?![\w-])(?!\s*(?:=\s*)?(?:False|false|0)\b)",
        # (and as a YAML file of SGLang launch flags writes the name, "disable-cuda-graph: true")
        r"\bdisable[-_]cuda[-_]graphs?\s*[=:]\s*(?:True|true|1)\b",
        r"\bcudagraph_mode\W{0,3}\s*[=:]\s*\W?NONE\b", r"--cuda[-_]graphs\s*(?:=\s*)?0\b",
        r"\b(?:runs?|running|ran|serv\w+) (?:\w+ )?in eager mode\b",
        r"\bCUDA[- ]?graphs? (?:is |are |were |was )?(?:disabled|turned off|off)\b",
        # (physdoc33) said as what the reporter did: "I disabled CUDA graph to save memory", "after turning off
        # cudagraphs" (not advice: "consider disabling", "you can turn off", "try disabling"; review33: nor a
        # question or a suggestion, "would disabling CUDA graphs help?", "someone recommended disabling")
        r"(?<!consider )(?<!can )(?<!could )(?<!try )(?<!should )(?<!to )(?<!would )(?<!will )(?<!does )(?<!if )"
        r"(?<!recommend )(?<!recommended )(?<!suggest )(?<!suggested )(?<!without )"
        r"\b(?:disabl(?:ed|ing)|turn(?:ed|ing) off|switch(?:ed|ing) off)\s+(?:the\s+)?(?:CUDA[- ]?graphs?|cudagraphs?)"
        r"(?![\w-])",
        # a settings listing: the option's name, a separator (a table cell's bar, a colon, an equals sign), its value
        # ("| CUDA graphs | Disabled (enforce-eager) |", "CUDA graph: off", "cudagraphs = no"); the option's name whole,
        # not the end of a longer one ("--disable-cuda-graph=false" keeps graphs on; "piecewise-cudagraphs")
        r"(?<![\w-])(?:CUDA[- ]?graphs?|cudagraphs?)\s*[|:=]\s*(?:disabled|off|no|false|none)\b",
        # TensorRT-LLM's PyTorch backend (use_cuda_graph), LMDeploy's PytorchEngineConfig(eager_mode=True),
        # llama.cpp's GGML_CUDA_DISABLE_GRAPHS=1
        r"\b(?:use|enable)[-_]cuda[-_]graphs?\W?\s*[=:]\s*(?:False|false|0)\b",
        r"\beager_mode\W?\s*[=:]\s*(?:True|true|1)\b",
        r"\bGGML_CUDA_DISABLE_GRAPHS\s*=\s*1\b",
        r"\b(?:fall(?:s|ing)?|fell)\s+back\s+(?:to\s+)?eager\b|\beager(?:[- ]mode)? fallback\b",
    ],
    # Pipeline parallelism in the layout: stages of layers on different GPUs, one after another.
    "pipeline_parallel": [
        # (a degree of 1 written with the words is no pipeline: pipeline_degree, _negated)
        r"\bpipeline[- _]?(?:model[- _]?)?parallel(?:ism|i[sz]ed|i[sz]ation)?(?:[- _](?:size|degree))?\b",
        r"--pipeline[-_]parallel[-_]size\s*(?:=\s*)?[2-9]\d*\b",
        r"(?<![\w-])-pp\s+[2-9]\b", r"\bpp(?:[-_]size)?\s*=\s*[2-9]\b", r"\bTP\d+\s*PP[2-9]\b", r"\bPP\s*=\s*[2-9]\b",
        # (para37c, para37d, each from its own rewordings) its Chinese name, as in tests/data/ut17/deepseekv2_35.md;
        # already a multi-GPU word in symptom_prior's list
        r"流水线并行",
    ],
    # One request (stream) at a time, or a small batch: nothing to overlap or split.
    # The GPU mostly idle, said without a figure ("GPU utilization is very low", "GPU usage stays near zero",
    # "低GPU利用率"). nvidia-smi's utilization.gpu is the share of time a kernel runs (NVML docs), so low
    # means idle time.
    "gpu_idle_words": [
        r"\bGPU[- ]?(?:util\w*|usage|load|occupancy)\b[^.\n%\d]{0,25}?"
        r"\b(?:is |was |stays |remains |drops to |goes down to |always |only |quite |very |extremely |rather )*"
        r"(?:low|zero|near zero|close to zero|almost zero|nearly zero|negligible)\b",
        r"\b(?:low|poor|zero)\s+GPU[- ]?(?:util\w*|usage|load|occupancy)\b",
        r"\bGPU\b[^.\n]{0,15}?\b(?:mostly|almost always|often) idle\b",
        # (para38b) and the degree said as "so", "too", "rather": "利用率这么低", "使用率太低" (kept paste), "偏低"
        r"(?:GPU|卡)(?!\S{0,2}?(?:显存|内存))\S{0,2}?\s*(?:利用率|使用率|占用)\s*"
        r"(?:很|非常|极|比较|这么|那么|太|特别|偏|有点|有些)?(?:低|为\s*0|是\s*0)|"
        # ("GPU利用率也不高", "利用率一直不高": not high, the same low share said the other way; GPT-SoVITS#779)
        r"(?:GPU|卡)(?!\S{0,2}?(?:显存|内存))\S{0,2}?\s*(?:利用率|使用率)\s*(?:也|都|并|一直|始终)?\s*(?:不高|上不去)|"
        r"(?:低|很低的)\s*GPU\s*(?:利用率|使用率)",
        # (words43) ... and in Japanese and Korean, as a symptom is stated ("症状: GPU使用率が低い（<50%）",
        # "GPU使用率が低い、トレーニングが進まない"; "문제 3: GPU 사용률이 낮음 (30-40%)",
        # "GPU 사용률이 낮음: {avg_gpu:.1f}%", "GPU 사용률이 낮은데도 fps가 떨어진다면"); not as a case a guide
        # answers or a possibility ("GPU使用率が低い場合", "低いなら", "低いと", "低い時"; "GPU 사용률이 낮으면",
        # "낮은 경우", "낮을 때", "낮을 수 있음"), nor denied ("低くない", "낮지 않"). (fr43) Nor heard
        # ("낮다고 하던데", "낮다는 말": _KO_HEARD), denied with the verb after ("낮게 나오지는 않"), or asked
        # ("低いかどうか")
        r"GPU\s?(?:の\s?)?(?:使用率|利用率|稼働率|負荷)\s?(?:(?:が|は|も)\s?)?(?:(?:とても|かなり|非常に|ずっと|常に|まだ)\s?)?"
        r"低(?:い|く|かった|すぎ|め)(?!\s?(?:場合|なら|と(?![かも])|時|とき|ときは|" + _JA_DENIED
        + r"|はない|かどうか)|" + _JA_DENIED + r")",
        r"GPU\s?(?:의\s?)?(?:사용률|사용량|이용률|활용률|활용도|점유율)\s?(?:(?:이|가|은|는|도)\s?)?"
        r"(?:(?:매우|너무|아주|계속|항상|많이)\s?)?낮(?!" + _KO_HEARD + r"|게\s*(?:[가-힣]{0,3}지)\s*[는도]?\s*않)"
        r"(?:음|아요|아서|았|습니다|다|고|네요|은데|게|은\s?편)(?!\s?(?:경우|때))",
    ],
    # Tensor parallelism asked of Hugging Face transformers itself (tp_plan, torchrun), or named in words: without
    # them transformers spreads a model over the GPUs with accelerate's device_map, a layer split
    # (https://huggingface.co/docs/transformers/perf_infer_gpu_multi,
    # https://huggingface.co/docs/accelerate/usage_guides/big_modeling: "only one GPU will be active at a given
    # moment"). Ruled out ("does not support tensor parallel") or asked about ("would TP help?") it is not used.
    "tp_asked": [r"\btp_plan\b|\btorchrun\b|\btensor[-_ ]?parallel\w*|\bTP\s*=?\s*\d|张量并行"],
    "few_requests": [
        # (not one request among many: "a single request is queued behind the rest")
        r"\b(?:non-?concurrent\w*|one request at a time|one at a time|"
        r"single[- ](?:request|stream|user|prompt|sequence)s?|one[- ](?:stream|user))\b"
        r"(?![^.\n]{0,30}?\b(?:queued|queues|waits?|waiting|stuck|sits?)\s+(?:\w+\s+)?behind\b)",
        r"\bbatch(?:[ _-]?size)?\s*(?:=|of|is|:)?\s*1\b(?!\.\d)" + _NOT_A_SWEEP,
        r"\b(?:batch(?:[ _-]?size)?|running req\w*|concurrency|number of requests)\b[^.\n]{0,25}?"
        r"\b(?:is |are )?(?:small|low|few)\b",
        # (para37c) the same said in Chinese: "batch size(running请求数)小的时候", "并发数很少时" (not "不小", "小于 8")
        r"(?:\bbatch(?:[ _-]?size)?|批大小|并发(?:数|量)?|running\s*(?:req\w*|请求数?))[^。\n，,高大多]{0,20}?"
        r"(?<![不没])(?:很|比较|较|太)?(?:小|少)(?![于了点些])",
        r"#running-req: 1\b|\bRunning: 1 reqs\b",
    ],
    # GPUDirect RDMA (NCCL's "GDRDMA") off or sought: the NIC reads GPU memory through host memory.
    "gdr_off": [
        r"\b(?:GDR|GDRDMA|GPU ?Direct ?RDMA|GPUDirect)\b[^.\n?]{0,40}?"
        r"\b(?:(?:is |was )?not (?:enabled|working|used|active|supported)|"
        # (para37b) the auxiliary dropped, as non-native reporters write it: "turn on GDR ... but it not work"
        r"(?<=\bit )not work|"
        r"disabled|unavailable|fail\w*|(?:does|did)(?:n't| not) work)\b",
        r"\b(?:how (?:to|do I|can I)|unable to|cannot|can't|fail\w* to|problem with)\s+"
        r"(?:enabl\w*|turn\w* on|us\w*|get)\s+"
        r"(?:the\s+)?(?:GDR|GDRDMA|GPU ?Direct ?RDMA|GPUDirect)\b",
        # NCCL's channel lines name it: "via NET/IB/0/GDRDMA"; the reporter sees them without it
        r"\bNET/IB\b[^.\n]{0,40}?\b(?:but )?(?:never|no|not|without)\s+(?:any\s+|a\s+)?/?GDRDMA\b",
        r"\b(?:no|never|without|missing)\s+(?:the\s+)?/?GDRDMA\b(?!\s+(?:issues?|problems?|errors?|trouble))",
    ],
    # A small collective (bytes to a megabyte) that takes milliseconds inside an application.
    "small_collective_slow": [
        r"\b(?:all[-_ ]?reduc\w*|all[-_ ]?gather\w*|broadcast\w*|collective\w*)\b[^.\n]{0,60}?"
        # (para38: the size as a compound adjective, "a 228-byte tensor takes ~4ms")
        r"\b(\d+(?:\.\d+)?)(?:\s*|-)(bytes?|B|KB|KiB|kB)\b[^.\n]{0,40}?\b(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|seconds?)\b",
    ],
    # The host launching kernels too slowly for the GPU: the words of the CUDA-graphs documentation
    # ("CPU launch overhead", the GPU idle between kernels) and of profilers' step breakdowns (the
    # TensorFlow profiler's "Kernel Launch" time); https://developer.nvidia.com/blog/cuda-graphs/,
    # https://www.tensorflow.org/guide/gpu_performance_analysis
    "launch_overhead": [
        r"\b(?:kernel|CUDA)[- ]launch(?:es|ing)?\b\W{0,3}\s*"
        r"(?:overheads?|time|latency|latencies|step|costs?|bound|bottleneck)\b",
        r"\blaunch(?:ing)?[- ](?:overheads?|latency|bound)\b",
        r"\b(?:wait\w*|idle|starv\w*)\b[^.\n]{0,40}?\bCPU\b[^.\n]{0,30}?\blaunch\w*\b",
        r"\bCPU\b[^.\n]{0,30}?\b(?:too slow|cannot keep up|can't keep up|not fast enough|bottleneck\w*)\b"
        r"[^.\n]{0,30}?\blaunch\w*",
        r"\bGPU\b[^.\n]{0,30}?\bidle\b[^.\n]{0,20}?\bbetween (?:kernels|kernel launches|ops|operators)\b",
        r"\bgaps? between (?:the )?kernels\b",
        # a profile's words: time spent launching, short kernels separated by gaps
        r"\b(?:spent|time|busy)\b[^.\n]{0,30}?\b(?:in |on )?(?:CPU[- ]side |host[- ]side )?(?:kernel|CUDA) launch\w*",
        r"\b(?:tiny|small|short)\s+(?:GPU\s+)?kernels\b[^.\n]{0,30}?\bgaps?\b",
        # replaying the step as a CUDA graph removes the launches: when that alone makes it much faster, they
        # were the cost
        r"\b(?:CUDA[- ]?graphs?|cudagraphs?|torch\.compile\b[^.\n]{0,30}?reduce-overhead)\b[^.\n]{0,60}?"
        r"\b(?:\d+(?:\.\d+)?\s*x\s*faster|(?:much|far|a lot|significantly|dramatically) faster|"
        r"speeds? (?:it |things )?up|sped (?:it )?up)",
        r"\b(?:many|thousands of|lots of|hundreds of) (?:tiny|small|short) kernels\b",
        # (issue 11 f) "a CUDA graph gave a 5.9x speed-up", "eager 52 ms vs graph 9 ms", "1200 launches per frame"
        r"\b(?:CUDA[- ]?graphs?|cudagraphs?|graph (?:capture|replay))\b[^.\n]{0,60}?"
        r"\b\d+(?:\.\d+)?\s*(?:x|×)\s*(?:speed[- ]?ups?|faster)\b",
        r"\b(?:speed[- ]?ups?|faster)\b[^.\n]{0,20}?\b(?:with|from|using)\s+(?:a\s+)?"
        r"(?:CUDA[- ]?graphs?|cudagraphs?)\b",
        r"\b\d{3,}\s+(?:kernel\s+)?launches\s+(?:per|each|every)\s+(?:step|token|frame|iteration|forward)\b",
        # nsys's CUDA API summary: cudaLaunchKernel taking most of the host's CUDA time
        r"\bcudaLaunchKernel\b[^\n]{0,60}?\b(?:[3-9]\d|100)(?:\.\d+)?\s*%", r"\blaunch[- ]bound\b",
    ],
    # Layer split engines (one GPU works at a time): llama.cpp/ollama/text-generation-webui/accelerate.
    "layer_split": [
        # (layoutab32) llama.cpp's short flag `-sm layer` (tools/server/README.md: "-sm, --split-mode
        # {none,layer,row}"): a dash starts no word, so the flag is bounded by what precedes it, not by \b ("`-sm
        # layer` splits layers", sudoingX/qwen38-mtp#24)
        r"(?:\bsplit[-_ ]mode|(?<![\w-])(?:--split-mode|-sm))`?\s*(?:=\s*)?`?layer\b",
        # accelerate's strategies, each whole layers per GPU in turn, and a max_memory map naming two GPUs or more
        # (https://huggingface.co/docs/accelerate/concept_guides/big_model_inference, "Designing a device map")
        r"\bdevice_map`?\s*=\s*['\"]?(?:auto|balanced|sequential)",
        # (s27, ut27d) the map named as what the run uses: "use fastchat to start with 2 GPUs ... it use the device_map"
        # (vllm-project/vllm#1752); asked about ("Does vllm support device_map?", "how to set device_map") it is not,
        # nor a map given a value here (device_map="cuda:0" is one device; the strategies are read above)
        # (review31b) not advice against it, "you shouldn't use the `device_map` argument but just place your model
        # on that GPU" (huggingface/transformers#22431); "I used the following device_map" on 2x4090 is one
        # (huggingface/accelerate#1394)
        r"(?<!n't )(?<!not )(?<!never )(?<!without )\b(?:uses?|used|using|with|via|through)\s+"
        r"(?:the\s+(?:following\s+)?|accelerate'?s?\s+|HF'?s?\s+)?`?device_map\b(?!`?\s*[?=:(])",
        r"\bmax[_ ]memory`?\s*[:=]\s*\{\s*['\"]?\d+['\"]?\s*:[^{}]{1,40}?,\s*['\"]?\d+['\"]?\s*:",
        r"\bgpu[-_ ]split\b", r"\bnum_gpu\b", r"--auto-devices\b",
        r"\b(?:layers?|offload\w*) (?:split|spread|distributed) (?:across|over|between)\b",
    ],
    **FAILURE_PATTERNS,
    **FAILURE_PATTERNS_F,
    **FAILURE_PATTERNS_J,
}


def _extend(more: dict[str, list[str]], new_kinds: bool = False) -> None:
    """Add more wordings to PATTERNS' families: a kind PATTERNS lacks is a typo (KeyError) unless new_kinds says
    the block brings families of its own."""
    for kind, words in more.items():
        PATTERNS[kind] = (PATTERNS.get(kind, []) if new_kinds else PATTERNS[kind]) + words


_extend(MORE_WORDS_F)
_extend(MORE_WORDS_J)
# (s27, ut27d) Weights partitioned over the GPUs and gathered whole for every forward pass: DeepSpeed ZeRO stage 3
# ("zero_stage: 3", "zero3", "ZeRO-3") and PyTorch FSDP (https://deepspeed.readthedocs.io/en/latest/zero3.html;
# https://pytorch.org/docs/stable/fsdp.html "all-gathers the full parameters before the forward computation"), named
# beside a generation ("model generate can be very slow", CarperAI/trlx#347; "With stage 3, generation is too slow",
# deepspeedai/DeepSpeedExamples#764). rules.loss_bound keeps its own pattern for the figures it will not bound.
_GATHERED = (r"(?:ZeRO[-_ ]?(?:stage[-_ ]?)?3|zero[_ ]?stage\W{0,3}(?:(?:is|was)\s+)?(?:set\s+)?(?:to\s+|=\s*)?3|"
             r"(?:ZeRO\W{0,3})?stage\W{0,3}3|FSDP|FullyShardedDataParallel)")
_GENERATING = r"(?:generat\w*|decod\w*|sampling|rollouts?|per[- ]token)"
_extend({"weights_gathered": [
    r"\b" + _GATHERED + r"\b[^.\n]{0,120}?\b" + _GENERATING + r"\b",
    r"\b" + _GENERATING + r"\b[^.\n]{0,120}?\b" + _GATHERED + r"\b",
]}, new_kinds=True)
# (s27, review31b) "stage 3" alone is ZeRO's only where the ticket names ZeRO: DeepSpeed-Chat calls its RLHF step
# "stage3 training" ("... use tensor parallelism via hybrid engine to generate sequence in stage3 training",
# deepspeedai/DeepSpeedExamples#760, whose generation is not ZeRO's), and other pipelines number their stages.
_ZERO_NAMED = re.compile(r"(?-i:\bZeRO)|\bzero[_ -]?(?:stage|[123]\b)|\bFSDP\b|FullyShardedDataParallel", re.I)


def weights_gathered(facts: Facts) -> list[Claim]:
    """Affirmed 'weights_gathered' claims, a bare "stage 3" counting only where the ticket names ZeRO or FSDP."""
    found = [c for c in find(facts, "weights_gathered") if not c.guess]
    named = any(_ZERO_NAMED.search(text) for _, text in texts(facts))
    return [c for c in found if named or _ZERO_NAMED.search(c.quote)]

# Families whose two halves are usually said in different sentences ("... in the VM. On bare metal
# it was fine."): matched over the whole text.
ACROSS_SENTENCES = ("vm_vs_bare_metal", "build_hang")

# Cause words whose claim is the reporter's guess, not an observation ("maybe it's P2P?").
# (words41) a doubt is the reporter's opinion that the words are not so, neither an observation nor an assurance:
# "to doubt" is "to consider unlikely" (Merriam-Webster), and reporters write it so: "I doubt it is a driver
# issue", "I doubt that's the case here", "I doubt that you would see monotonicity with any GPU arrangement"
# (facebookresearch/fastMRI#112). Only the reporter's own "I doubt": "no doubt", "without a doubt" affirm.
_DOUBT_WORDS = (r"I (?:really |highly |strongly |seriously )?doubt\b|(?:I['’]m|I am) (?:a bit |somewhat |"
                r"quite )?(?:doubtful|skeptical|sceptical)\b")
# (words42) ... and what it governs is no suspicion either: "I doubt it is an OOM problem" (fairseq#1294) weighs
# against the OOM, so the doubted words give no claim for it (_first), at most nothing
_DOUBT = re.compile(r"\b(?:" + _DOUBT_WORDS + r")", re.I)
_GUESS = re.compile(
    r"\b(?:maybe|might|perhaps|possibly|probably|I (?:think|guess|suspect|believe|assume|wonder)|suspect\w*|"
    + _DOUBT_WORDS + r"|"
    r"could (?:it|this|that) be|is (?:it|this|that) (?:because|due to|caused by)|not sure (?:if|whether)|"
    # what the reporter read or heard, and a suggestion or claim someone else made ("someone suggested
    # --enforce-eager", "Someone on reddit said frequency_penalty makes vLLM slower"): another's word, not a run seen
    # (rules/hearsay.py owns the reading; not the bare passive: "it was recommended for V100 and we kept it" says what
    # is in use)
    + hearsay.SAID_BY_OTHERS + r"|"
    # (issue 11 j) what the reporter wants to find out, or would do, is no observation either
    r"(?:want|like|need) to know (?:if|whether)|wondering (?:if|whether)|"
    r"(?:was|were|been) suggested to (?:try|use|set)|"
    # (issue 11, paraphrase audit) advice in the second person: "Otherwise you could set NCCL_IB_DISABLE=1 to use
    # sockets but it will be much slower" (https://github.com/NVIDIA/nccl-tests/issues/188)
    + YOU_ADVISE + r"|"
    r"(?:before|planning to) (?:buy|purchas)\w*|"
    # a mechanism inferred from what the run shows, not seen ("inter-node communication appears to fall back to
    # TCP/IP", "the traffic seems to go through the CPU"): English puts a path the speaker did not watch behind
    # appears/seems to; the run itself ("it seems to hang") is no mechanism
    r"(?:appears?|seems?) to (?:fall back|revert|go (?:through|over|via)|be (?:going|routed) (?:through|over|via)|"
    r"be using|use|run (?:over|through|via))\b[^.\n]{0,40}?\b(?:TCP|sockets?|IP|ethernet|PCIe|CPU|host|"
    r"shared memory|SHM)\b)\b", re.I)
# "Is it the power cap?", "Does SW Power Cap cause this?": a yes/no question offers a cause; a
# why-question ("why is the first call slow?") presupposes what it asks about.
_YES_NO = re.compile(r"^[#\s>*-]*(?:\[[^\]]*\]\s*)?"
                     r"(?:is|are|was|were|does|dose|do|did|can|could|would|will|should|might|may|has|have)\b", re.I)


# A Chinese yes/no question ("是不是掉卡了？", "是否是CPU瓶颈？", "...吗？"): a cause offered, as _YES_NO.
# ("有没有办法", "能不能帮忙" ask for a way or for help, not whether the words are so)
_YES_NO_ZH_WORDS = re.compile(r"是不是|是否|会不会|能不能(?!\s*(?:帮|办法))|有没有(?!\s*(?:办法|方法|人|大佬))")
_YES_NO_ZH = re.compile(_YES_NO_ZH_WORDS.pattern + r"|吗\s*[？?]\s*$|么\s*[？?]\s*$")


# A question of a few words with no question word ("throttling?", "PCIe bottleneck?", "# NCCL bug?"): a cause offered
# as a yes/no question with its verb left out.
_BARE_QUESTION = re.compile(r"^[#\s>*-]*(?!(?:why|how|what|when|where|which|who)\b)"
                            r"(?:[\w/.-]+\s+){0,3}[\w/.-]+\s*[?？]$", re.I)


# (session 21 review) A guess word governs its own clause and what follows it up to a semicolon, not the clause before:
# "NCCL_P2P_DISABLE=1 fixed it; you could also try --enforce-eager" and "I don't have InfiniBand ..., so I'm not sure if
# ..." (NVIDIA/nccl#111) report the first clause. A clause opens after a comma, semicolon, colon or dash, or at a joint
# ("but", "so", "because", ...); a guess word with nothing after it in its clause ("The links are down, I think.")
# is said of the sentence before it.
# (session 22) Whether anything follows the guess word in its clause is read up to the next punctuation only: a joint
# right after it opens what it guesses ("..., probably because the batch is too small", "I think since ...").
_CLAUSE_MARK = r"[,;:，；：]\s|\s[-–—]+\s"
_CLAUSE_PUNCT = re.compile(_CLAUSE_MARK)
_CLAUSE_OPENS = re.compile(_CLAUSE_MARK + r"|\b(?:but|and|so|while|whereas|although|though|because|since|"
                           r"however)\b(?!\s+(?:that|as)\b)", re.I)
_SCOPE_ENDS = re.compile(r"[;；]")


# Advice in the second person, the part of _GUESS that names a switch to turn: what it governs is untried, whatever it
# is said to do ("you could set NCCL_P2P_DISABLE=1 to avoid the hang" avoids nothing yet).
_ADVISED = re.compile(r"\b" + YOU_ADVISE + r"\b", re.I)


# (session 22) A condition said before the guess's clause is part of what it guesses: "if the model is evenly
# distributed between two cards ..., while one card processes ..., the second request might ..." (ollama/ollama#7104)
# supposes the two cards. Back from the guess's clause over clauses that hang on it (while, when, as, because, ...) to
# the nearest condition (if, unless, whether); a main clause or a semicolon in between ends the walk.
_CONDITION_WORDS = ("if", "unless", "whether")
_SUBORDINATE_WORDS = ("while", "when", "whenever", "as", "because", "since", "though", "although", "whereas")


def _condition_before(sentence: str, opens: list[re.Match]) -> int:
    """Where the clause that `opens`' last opening begins reaches back to: that opening's end, or the start of a
    condition clause before it that only subordinate clauses separate from it."""
    start = opens[-1].end() if opens else 0
    for k in range(len(opens) - 1, -1, -1):
        if ";" in opens[k].group() or "；" in opens[k].group():
            break
        begin = opens[k - 1].start() if k else 0
        word = re.match(r"[\s,;:，；：–—-]*(\w+)", sentence[begin:opens[k].end()])
        lead = word.group(1).lower() if word else ""
        if lead in _CONDITION_WORDS:
            return begin
        if lead not in _SUBORDINATE_WORDS:
            break
    return start


_HEARSAY_OPENS = re.compile(hearsay.SAID_BY_OTHERS, re.I)
_SET_AGAINST_HEARSAY = re.compile(r"\b(?:but|however|whereas|although|though|yet)\b", re.I)
_RIGHT_AFTER_A_WORD = re.compile(r"\w\s+$")


def guess_scope(sentence: str, words: re.Pattern = _GUESS) -> list[tuple[int, int]]:
    """The spans of `sentence` its guess words (claims._GUESS, or `words`) govern: each from the opening of the word's
    clause to the next semicolon or the sentence's end; from the sentence's start where nothing follows the word before
    the next comma, colon or dash ("The links are down, I think.")."""
    spans = []
    for g in words.finditer(sentence):
        start = _condition_before(sentence, list(_CLAUSE_OPENS.finditer(sentence, 0, g.start())))
        end = next((c.start() for c in _SCOPE_ENDS.finditer(sentence, g.end())), len(sentence))
        hearsay = bool(_HEARSAY_OPENS.match(sentence, g.start()))
        if hearsay:
            # (review38) another's word ends where the reporter sets their own against it: "The docs say TP=2 should
            # be faster, but P2P is disabled on this board" reports the P2P state
            end = next((c.start() for c in _SET_AGAINST_HEARSAY.finditer(sentence, g.end(), end)), end)
        rest = sentence[g.end():next((c.start() for c in _CLAUSE_PUNCT.finditer(sentence, g.end())), end)]
        if hearsay and not re.search(r"\w", rest) and _RIGHT_AFTER_A_WORD.search(sentence, 0, g.start()):
            # (s38) another's word closing a noun phrase with nothing between ("much slower than the 20 seconds others
            # report", "slower than the docs say"): it names where that figure comes from, not the sentence's claim
            spans.append((g.start(), end))
            continue
        spans.append((0 if not re.search(r"\w", rest) else start, end))
    return spans


def _doubted(sentence: str, at: int) -> bool:
    """(words42) Is the text at `at` inside what the reporter's own doubt ("I doubt", "I'm skeptical") governs
    (guess_scope over _DOUBT)?"""
    if not _DOUBT.search(sentence):
        return False
    for g, (a, b) in zip(_DOUBT.finditer(sentence), guess_scope(sentence, _DOUBT)):
        # (fr42) what it doubts ends at a semicolon or "but", or where another guess opens: "I doubt it is the driver,
        # maybe P2P is disabled on this box?" suspects P2P. Not at a bare comma: "I doubt it is thermal throttling,
        # the clocks stay at 1980 MHz" gives its reason, no clock complaint (tests/test_words42.py)
        cut = _DOUBT_SCOPE_ENDS.search(sentence, g.end(), b)
        guess = next((m for m in _GUESS.finditer(sentence, g.end(), b) if m.start() > g.end()), None)
        b = min([b] + [x.start() for x in (cut, guess) if x])
        if a <= at < b:
            return True
    return False


_DOUBT_SCOPE_ENDS = re.compile(r"[;；]|\bbut\b", re.I)


def _guessed(sentence: str, at: int | None = None) -> bool:
    """Is the sentence (or, with `at`, the clause holding that position) a guess, advice or a yes/no question?"""
    s = re.sub(r"^(?:\s*#{1,6}[^\n]*\n)+", "", sentence.strip())  # a title line above is not part of the sentence
    offset = sentence.find(s)
    if at is None or at < offset:
        guess = bool(_GUESS.search(s))
    else:
        guess = any(a <= at - offset < b for a, b in guess_scope(s))
    return guess or (asked(s) and bool(_YES_NO.match(s) or _YES_NO_ZH.search(s) or _BARE_QUESTION.match(s)))


# A question asks about its last clause; a state reported in a clause before it is observed, not offered as a cause:
# "Two 3090s, P2P is not enabled, could this cost half the speed?", and in Chinese, whose yes/no question closes on a
# particle, "2张2080Ti 无nvlink 没有开启p2p模式 但两张卡都工作在x16模式下 会有这么大的性能损失吗？". The question
# must not open the sentence ("Is P2P off, or is it the driver?"), carry a guess word, or ask in Chinese with
# 是不是/是否/会不会 (those can scope back over the whole sentence); the state must not sit in a condition
# ("if P2P is off, ..." stays hypothetical through conditional()). A clause ends at a comma, semicolon, colon or
# dash, or at a space between two Chinese characters (spaced() adds spaces only at CJK/Latin seams); so
# "没有开启p2p吗？", "p2p没开会影响速度吗？" and "is P2P not enabled?" keep the state inside the question.
_CLAUSE_END = re.compile(r"[，；：、]|[,;:](?=\s)|\s[-–—]+\s|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")
_QUESTION_OPENS = re.compile(r"^[#\s>*-]*(?:\[[^\]]*\]\s*)?(?:why|how|what|which|where|when|who)\b", re.I)


def stated_before_question(sentence: str, start: int) -> bool:
    """Is the text at `start` reported in a clause before the question that closes the sentence, not asked by it?"""
    s = sentence.rstrip()
    if not asked(s) or _GUESS.search(s) or _YES_NO.match(s) or _QUESTION_OPENS.match(s) or \
            _YES_NO_ZH_WORDS.search(s):
        return False
    ends = [m.end() for m in _CLAUSE_END.finditer(s)]
    return bool(ends) and start < ends[-1]


# A condition or what ought to be, in the clause before the words: "if ACS is enabled, ...", "the link should go back
# to Gen 4 under load" quote a rule or an expectation, not what the reporter saw.
_SUPPOSED = re.compile(r"\b(?:if|unless|whether|should|would|could|supposed to|expected to)\b[^,;:]*$|"
                       # (paraphrase audit, s24) a change's purpose over things in general: "To run models with tensor
                       # parallel sizes where their number of attention heads is not divisible by the GPU count"
                       # (dphnAI/sonar#594), the goal of a feature, no run of the reporter's
                       r"^\W*(?:To|In order to)\s+(?:run|support|allow|enable|handle|serve)\s+(?:\w+\s+)?"
                       r"(?:models|GPUs|cards|sizes|configurations|setups|systems|cases|layouts)\b[^,;:]*$|"
                       # (issue 11, paraphrase audit) systems in general: "On systems where PCIe ACS is enabled, ..."
                       r"\b(?:on|in|for)\s+(?:\w+\s+)?(?:systems|machines|platforms|hosts|servers|nodes|setups)\s+"
                       r"where\b[^,;:]*$", re.I)
_CONDITIONAL = re.compile(r"\b(?:when|whenever)\b[^,;:]*$|" + _SUPPOSED.pattern, re.I)


def conditional(clause: str, when: bool = True) -> bool:
    """Does the clause end in a condition or an expectation? when=False leaves "when" out, for a reading said with
    the time it was taken ("when idle it sits at P2" is an observation; "if it were idle ..." is not)."""
    return bool((_CONDITIONAL if when else _SUPPOSED).search(clause))


def asked(sentence: str) -> bool:
    """Is the sentence a question ("... would plain ethernet be the reason?"): a cause offered, not one seen."""
    # a Chinese question may end on its particle alone ("这是什么情况呢", "这正常吗")
    # (么 only as the particle: "这也没什么。", "就是这么。" state)
    return sentence.rstrip().endswith(("?", "？")) or \
        bool(re.search(r"(?:[吗呢]|(?<![什这那怎])么)[。.!！]?$", sentence.rstrip()))


def _asked_if(sentence: str, start: int) -> bool:
    """A yes/no question under a condition, the words in the condition: "If the GPU sits idle for a minute, is the
    following query slower?" asks; "when I decode one audio, X is slower than Y, why?" reports."""
    condition, comma, main = sentence[start:].partition(",")
    return asked(sentence) and bool(comma) and bool(_CONDITIONAL.search(sentence[:start])) and \
        bool(_YES_NO.match(main.strip()))


def hypothetical(sentence: str, start: int) -> bool:
    """Is the sentence a question, or the clause before `start` a condition or an expectation?"""
    return asked(sentence) or conditional(sentence[:start])


# "HW Slowdown does not appear", "P2P is not the issue", "NVLink: not active": negation after the words. (faq31) "the
# fp8 KV cache isn't the reason", "beam search is not what makes it slow" rule it out as "is not the cause" does.
_NEGATED_AFTER = re.compile(
    r"^[\s:,\w/-]{0,25}?\b(?:does(?:n't| not)|did(?:n't| not)|is(?:n't| not)|are(?:n't| not)|was(?:n't| not)|"
    r"were(?:n't| not)|never|not)\s+"
    r"(?:appear\w*|show\w*|present|happen\w*|occur\w*|seen|the (?:issue|problem|cause|reason|culprit)|an issue|"
    r"a problem|related|what (?:makes|made|causes|caused))|"
    # "throttling was ruled out", "NVLink has been excluded", "P2P can be ruled out"; not "was not ruled out", "has
    # not (yet) been ruled out": a question still open
    r"^(?:(?!\b(?:not|never|cannot)\b)[\s:,\w/-]){0,25}?\b(?:is|are|was|were|has been|have been|had been|got|"
    r"can be|could be|been)\s+(?:(?!(?:not|never|yet)\b)\w+\s+)?(?:ruled out|excluded|eliminated)\b",
    re.I)
# Sentences: a claim's scope for negation and guessing.
# (left28b) A full-width full stop (。) ends a sentence with no space after it, as Chinese and Japanese write it:
# "...只有一张卡的显存被占满了。想解决这个问题...？" (InternLM/lmdeploy#1130). A run ("。。。", "。」") stays whole, and
# so does a 。 typed for a decimal point between digits ("Python:3。9", QwenLM/Qwen#625). Not ？ glued to what
# follows: reporters put it after what they found ("发现模型并没有加载到两张卡上？还是报错OOM", InternLM/lmdeploy#1059),
# which a split would turn into a question. Not ；, which joins clauses of one sentence as ";" does in English.
# (left29) A full-width exclamation mark (！) glued to more text ends its sentence as 。 does:
# "谢谢！那找到原因，我用的是两块pcie v100" (zai-org/ChatGLM-6B#595). It asks nothing, so a split cannot turn
# what follows into a question, while without it an exclamation joins a question after it and reads as asked. A run
# ("！！！", "！？") stays whole.
_SENTENCE = re.compile(r"(?<=[.!?！？])\s+|(?<=[。！])(?![。！？」』）!?]|(?<=\d。)\d)\s*|"
                       r"\n\s*\n|\n(?=\s*[-*#>|]|\s*\d+\.)")


_VERSION = re.compile(r"(?<![\d.])([12]\.\d{1,2}(?:\.\d{1,2})?)(?![\d.]*\d)")
# A version number right after another product's name is that product's version.
# (s21: Python's own name only, not a package named for it: "flashinfer-python 0.6.7", vllm-project/vllm#42186)
_OTHER_PRODUCT = re.compile(
    r"(?:nccl-tests|cuda|driver|torch|pytorch|vllm|sglang|(?<![\w-])python|ubuntu|tensorflow|transformers|ofed|ucx|"
    r"openmpi|mpi|rocm|trt-llm|tensorrt|deepspeed|megatron|ray|kernel|flash[-_ ]?attn|flash[-_ ]?attention|triton|"
    r"xformers|numpy|jax|accelerate|apex|nemo|slurm|docker|gcc|"
    # (hostbound37) the rest of diffusers' environment template ("- `diffusers` version: 0.12.1", "- Huggingface_hub
    # version: 0.12.0") and the kernel in its platform string ("Platform: Linux-5.15.0-58-generic-x86_64")
    r"diffusers|huggingface[-_ ]hub|safetensors|bitsandbytes|(?<![\w-])linux|"
    # (s27, ut27c) the AWS network stack NCCL runs over, whose releases sit beside NCCL's in a cloud ticket: "EFA
    # installer version : 1.39.0" (aws/aws-ofi-nccl#879), "Libfabric version 1.22", "aws-ofi-nccl 1.13.2"
    r"aws-ofi-nccl|ofi-nccl|libfabric|(?<![\w-])efa|"
    # (review30) the same names as build variables, table rows and release notes write them: "AWS_OFI_NCCL_VERSION=
    # 1.17.2" (awslabs/awsome-distributed-ai#925), "AWS OFI NCCL version:" (#261), "aws-ofi-plugin:1.10.0" (#400)
    r"aws[-_ ]ofi(?:[-_ ](?:nccl|plugin))?|ofi[-_ ]nccl|"
    # (review3_25) an operating system's release, its codename between ("macOS Sequoia 15.6.1", ollama/ollama#12035)
    r"(?<!\w)(?:mac\s?os(?:\s+[a-z]+)?|os\s?x|windows|ios))"
    # the product's installer or plugin, and the word "version" before the figure ("EFA installer version : 1.39.0",
    # "torch version 2.1.0")
    r"(?:[\s_-]+(?:installer|plugin))?(?:[\s_]+version)?"
    # (review30) "to" before the figure in a change list ("- EFA Installer to 1.33.0", awslabs/awsome-distributed-ai
    # #371) and a table's cell border between name and figure ("|  EFA installer version:  |  1.26.1", #261)
    r"(?:\s+to)?(?:\W{0,3}|(?:\s*[:|]\s*){1,2})v?$",
    re.I,
)


# A unit after a number makes it a figure, not a release: "1.3 s", "1.2 ms", "1.5x", "2.5 GB/s", "1.1 %".
# ("2.18 times out" is a release that hangs, "2.18 x86_64" a build)
_UNIT_AFTER = re.compile(r"\s*(?:[x×](?!\w)|%|(?:s|ms|us|µs|sec\w*|min\w*|[KMGT]i?B\w*|[GM]b(?:ps|/s)|GT/s|tok\w*|it/s|"
                         r"W|MHz|GHz|times(?!\s+out))\b)", re.I)
# (ut29h) the first figure of a range whose unit follows the second ("Median improvement: +59.7% (2.58 → 4.12 tok/s)",
# NVIDIA/TensorRT-LLM#17160)
# Both figures are written to the same precision; a release followed by its own figure ("NCCL 2.16.2 -> 92 GB/s",
# "2.18 -> 92.5 GB/s") is the per-release A/B and stays a release.
_RANGE_UNIT_AFTER = re.compile(r"(?<=\d\.\d\d)\s*(?:→|->|=>|\bto\b)\s*\d+\.\d\d(?!\d)" + _UNIT_AFTER.pattern, re.I)
# (ut29h) a comma list of three or more decimals: repeated measurements ("reps (sorted) | 2.54, 2.57, 2.58, 4.04, 4.16",
# NVIDIA/TensorRT-LLM#17160), not releases, once one of them cannot be an NCCL release (NCCL's major is 2)
_NUMBER_LIST = re.compile(r"(?<![\w.])\d+\.\d+(?:\s*,\s*\d+\.\d+){2,}(?![\w.])")


def _in_figure_list(text: str, m: re.Match) -> bool:
    """Is the number of `m` one of a comma list of decimals some of which are no NCCL release?"""
    for run in _NUMBER_LIST.finditer(text[max(0, m.start() - 200):m.end() + 200]):
        start = run.start() + max(0, m.start() - 200)
        if start <= m.start() < start + len(run.group(0)):
            return any(not x.strip().startswith("2.") for x in run.group(0).split(","))
    return False


_RELEASE_HEADER = re.compile(r"nccl|version|release|\bver\b|build|tag|lib", re.I)
_TABLE_RULE = re.compile(r"^\s*(?:\|\s*)?:?-{3,}")


def _figure_column(text: str, m: re.Match) -> bool:
    """Is the number of `m` in a markdown table cell whose column header names no release ("median", "mean", "reps"):
    a table labels its columns, and a release sits under "NCCL", "Runtime NCCL", "version" (NVIDIA/TensorRT-LLM#17160's
    table of runs per NCCL release)."""
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    line = text[start:end if end >= 0 else len(text)]
    if not line.lstrip().startswith("|"):
        return False
    lines = text[:start].split("\n")
    rule_at = next((i for i in range(len(lines) - 1, -1, -1) if _TABLE_RULE.match(lines[i])), None)
    if rule_at is None or rule_at == 0 or not all(x.lstrip().startswith("|") for x in lines[rule_at + 1:-1]):
        return False
    column = line[:m.start() - start].count("|") - 1
    headers = md_cells(lines[rule_at - 1])
    return 0 <= column < len(headers) and not _RELEASE_HEADER.search(headers[column])


# NCCL's release said the same on both sides: "NCCL is 2.18.6 in both environments", "same NCCL", "NCCL stayed at
# 2.19.3, unchanged", "we pin NCCL": a change elsewhere, not NCCL's.
_NCCL_RELEASE = r"\bNCCL(?:\s+(?:version|release))?(?:\s+(?:is|was)\s+)?(?:\s*v?\d[\d.]*)?"
_NCCL_UNCHANGED = re.compile(
    _NCCL_RELEASE + r"\s+(?:in|on|for) both\b(?!\s+(?:nodes|GPUs|servers|machines|hosts|cards|ranks))|"
    r"\bsame NCCL\b|" + _NCCL_RELEASE + r",?\s+(?:(?:is|was|stays?|stayed|remain(?:s|ed)?)\s+)?(?:unchanged|"
    r"the same|identical|pinned)\b|" + _NCCL_RELEASE + r"\s+(?:did(?:n't| not) change|stay(?:s|ed)? at)\b|"
    r"\bpin(?:ned|ning)?\b[^\n]{0,20}?\bNCCL\b|\bNCCL\b[^\n]{0,40}?\bwe pin\b", re.I)


# (ut29h) NCCL pinned *to* a release, or its wheel capped, in a text that contrasts two NCCL releases: the pin is the
# move back to the good one ("Pin NCCL to 2.29.7 ... to work around a NCCL 2.30.4 ... regression",
# NVIDIA/TensorRT-LLM#17160), not NCCL held the same ("we pin NCCL at 2.18.6 in both images" stays unchanged)
_PIN_TO = re.compile(r"\bpin(?:s|ned|ning)?\s+(?:\S+\s+){0,2}?(?:NCCL|libnccl\w*|nvidia-nccl-cu\d+)\b[`'\"*]*"
                     r"\s+(?:back\s+)?to\b", re.I)


def nccl_unchanged(text: str, named: list[str] | None = None) -> bool:
    """Does the reporter say NCCL's release was the same in the runs compared (in a sentence naming at most one)?
    `named`: the text's NCCL releases where the caller has read them."""
    if not _NCCL_UNCHANGED.search(text):
        return False
    named = nccl_versions(text) if named is None else named
    moved = len(named) >= 2 and _versions_contrasted(text, named)
    return any(_NCCL_UNCHANGED.search(_PIN_TO.sub(" ", s) if moved else s) and len(nccl_versions(s)) <= 1
               and not _guessed(s) and not asked(s) for s in sentences(text))


def nccl_versions(text: str) -> list[str]:
    """NCCL versions named in a text that talks about NCCL ('from 2.22 to 2.25', '2.5.6 faster', the Debian
    package 'libnccl2=2.20.5-1+cuda12.4')."""
    if not re.search(r"(?<![A-Za-z])NCCL(?![A-Za-z_])|\blibnccl", text, re.I):  # also glued: "nccl2.21", "用NCCL2.28"
        return []
    found: list[str] = []
    for m in _VERSION.finditer(text):
        if _OTHER_PRODUCT.search(text[max(0, m.start() - 32):m.start()]) or _UNIT_AFTER.match(text, m.end()) \
                or _RANGE_UNIT_AFTER.match(text, m.end()) or _in_figure_list(text, m) or _figure_column(text, m):
            continue  # another product's release, or a figure with its unit ("1.0 s -> 1.3 s", "1.5x", "2.58 → 4.12
            # tok/s": the unit after the range's second figure is the first's too), or one of a list of measurements
        if m.group(1) not in found:
            found.append(m.group(1))
    return found


_REGRESS_WORDS = re.compile(
    r"\b(?:slower|faster|drop\w*|regress\w*|lower|worse|weaker|better|only|upgrad\w*|downgrad\w*|lost|loses|degrad\w*|"
    r"decreas\w*|slow(?:s|ed)?[- ]?downs?)\b|"
    # (ut29b) a time grown: "0.4.3post2 is fine but 0.4.4post3 is response time long" (sgl-project/sglang#4916), "takes
    # longer"; not "no longer", which says a behaviour stopped
    r"(?<!\bno )\blonger\b|\b(?:response|request|generation)\s+times?\s+(?:is\s+|are\s+)?(?:very\s+|much\s+)?long\b|"
    # (review, s24) a gap said large, its direction left open: "vLLM 0.6.3.post1 and vLLM 0.8.5.post1 shows a
    # significant difference in inference speed" (vllm-project/vllm#23089); not "no difference", "a small difference"
    r"(?<!\bno )(?<!\bnot a )(?<!\bnot any )(?<!\bwithout )(?<!\bwithout any )(?<!\bnot much )"
    r"\b(?:significant|big|huge|large|noticeable|major|dramatic|massive)\s+(?:\w+\s+)?difference\b|"
    r"\bdifference\s+(?:is|was)\s+(?:\w+\s+)?(?:huge|big|large|significant|massive|dramatic)\b|"
    # (paraphrase audit, s24) in Chinese: 降低/下降 "dropped", 变慢/更慢/慢了 "slower", 升级/降级 "up/downgrade"
    r"降低|下降|变慢|更慢|慢了|升级|降级", re.I
)
# A setting written as an assignment ("NCCL_P2P_DISABLE=1", "export NCCL_IB_DISABLE = 1") or in words, the variable
# first: "NCCL_P2P_DISABLE was set to 1" (xdit-project/xDiT#526), "when NCCL_P2P_DISABLE is set to 1 like this"
# (NVIDIA/nccl#631), "NCCL_CUMEM_ENABLE has been set to `0`".
_SETTING = re.compile(r"\b((?:NCCL|CUDA|TORCH_NCCL|NVIDIA)_[A-Z0-9_]+)(?:\s*=\s*|\s+(?:(?:is|was|were|are|has been|"
                      r"had been|got)\s+)?set\s+to\s+[`'\"]?)([^\s,;)'\"`]+)")
# How long nvidia-smi takes, as people write a duration: a figure or an English number word ("takes ~30seconds",
# "needs almost two minutes", "took over a minute", "takes several seconds").
_DURATION_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "a couple of": 2,
                   "a few": 3, "several": 3}
_SMI_SLOW = re.compile(
    r"nvidia-smi[^.\n]{0,80}?\b(?:takes?|took|taking|needs?|needed|requires?|required)\s+"
    r"(?:(?:about|around|approximately|roughly|almost|nearly|close to|up to|over|more than|at least|~|>)\s*)?"
    r"(\d+(?:\.\d+)?|" + "|".join(sorted(_DURATION_WORDS, key=len, reverse=True)) + r")"
    r"\s*(?:s|sec|secs|seconds?|min|mins|minutes?)\b",
    re.I,
)


def smi_seconds(m: re.Match) -> float:
    """The seconds a _SMI_SLOW match says."""
    figure = m.group(1).lower()
    n = _DURATION_WORDS[figure] if figure in _DURATION_WORDS else float(figure)
    return n * (60 if re.search(r"\bmin", m.group(0)[m.start(1) - m.start():], re.I) else 1)


# "no thermal throttling", "not in a VM", "without hangs": the reporter rules the situation out. A negator before
# "rule out" ("could not rule out", "haven't yet ruled out"), or "to rule out" (a plan) other than "able to", leaves the
# question open.
_OPEN_RULE_OUT = r"(?:\s+yet)?(?:\s+able)?(?:\s+to)?(?:\s+be(?:en)?)?\s+rul(?:e|ed)\s+out\b"
_NEGATION = re.compile(r"\b(?:(?:no|none(?: of)?|not|never|without|isn't|aren't|wasn't|don't|doesn't|didn't|nor)"
                       r"(?!" + _OPEN_RULE_OUT + r")|"
                       r"(?<!\bnot )(?<!\bnot yet )(?<!n't )(?<!n't yet )(?<!\bcannot )(?<!\bnever )"
                       r"(?:(?<!\bto )|(?<=\bable to )(?<!\bunable to )(?<!\bnot able to ))"
                       r"(?:ruled out|rule out)|excluded|eliminated)\b[\w\s,-]{0,20}$", re.I)
def negated_words(sentence: str, m: re.Match) -> bool:
    """Does the reporter rule the words `m` matched out ("no longer", "not", "without" before them, "is not the issue"
    after), as they would a claim's? For patterns kept outside PATTERNS (rules.ticket_questions)."""
    return _negated("", sentence, m)


def guessed(sentence: str, at: int | None = None) -> bool:
    """Is the sentence a guess, a suggestion someone made or a yes/no question, rather than an observation? With `at`,
    a guess word counts only over its own clause (guess_scope)."""
    return _guessed(sentence, at)


def asked_at(sentence: str, at: int) -> bool:
    """Does the question the sentence asks hold the text at `at`, rather than a clause reported before it
    (stated_before_question: "Only one GPU is used, is this expected?" reports the one GPU)?"""
    return asked(sentence) and not stated_before_question(sentence, at)


def offered(sentence: str, at: int) -> bool:
    """Is the text at `at` offered, not observed: in a guess word's or advice's clause (guessed with `at`, through
    guess_scope) or in the question the sentence asks (asked_at)? The clause-scoped form of `_guessed(sentence) or
    asked(sentence)`, for the readings that take a claim from one match in the sentence."""
    return _guessed(sentence, at) or asked_at(sentence, at)


# Kinds whose patterns carry the negation themselves ("IB not detected" affirms a fallback).
_NEGATIVE_KINDS = ("no_cpu_binding", "no_p2p", "module_missing", "link_down", "net_socket")
# A state word (a pattern's `state` group: "down", "inactive", "missing") denied by the copula or verb before it in
# the same clause: "the links are not down", "NVLinks aren't inactive", "were never down", "doesn't show as inactive",
# "nvidia_peermem is not missing". Up to three words between, none a clause's joint and no punctuation ("NVLink is not
# the problem, link 2 is down" affirms link 2 down); a state that carries its own "not" ("is not active") is the state.
_CLAUSE_JOINT = r"(?:and|but|or|while|whereas|though|although|because|since|so|yet|if|when)"
_STATE_DENIED = re.compile(r"(?:\b(?:not|never)|n't)(?!\s+(?:only|just)\b)"
                           r"(?:\s+(?!" + _CLAUSE_JOINT + r"\b)[\w<>-]+){0,3}?\s*$", re.I)


def _state_denied(sentence: str, m: re.Match) -> bool:
    """Is the state word `m` matched denied by the verb before it, in the words `m` matched?"""
    if "state" not in m.re.groupindex or m.start("state") < 0:
        return False
    return bool(_STATE_DENIED.search(sentence, m.start(), m.start("state")))


# (tidy44) The past said in so many words, one reading for _SAID_BEFORE and _PAST_STATE: an adverb of the past
# ("previously", "used to") or a change made since ("before the upgrade", "before my fix", "before patching"; "after
# the upgrade" turns to now, _TURN_TO_NOW).
_PAST_ADVERB = r"previously|formerly|originally|used\s+to"
# (fr44r2) the verbs' -ing forms too ("before updating Ollama", "after upgrading")
_CHANGE_WORD = r"(?:fix|chang|upgrad|updat|patch)\w*"
_THE_CHANGE = r"(?:the|my|this|that|our|an?)\s+" + _CHANGE_WORD
_A_CHANGE = r"(?:(?:the|my|this|that|our|an?)\s+)?" + _CHANGE_WORD
_BEFORE_A_CHANGE = r"before\s+" + _A_CHANGE
# (fr44) A placement's past needs the change named with its determiner ("before the upgrade"): "Before patching the
# Modelfile myself I checked the server log, and only 27 layers are offloaded" tells when the writer looked, and a
# concessive "even after the patch" inside a clause of the past ("Previously, even after patching the Modelfile, only
# 27 layers were offloaded") turns to nothing now (_PAST_STATE, _TURN_TO_NOW, as before tidy44).
_BEFORE_THE_CHANGE = r"before\s+" + _THE_CHANGE
# A line quoted as what a log or tool printed before, or prints no more ("the log no longer says 'Cudagraph is
# disabled'", "it used to show ...", "before the fix it said ...", "doesn't print '...' any more"): not what runs now.
# The quote follows the verb (in quotes, after a colon, or right after it), so "didn't see a change; ..." stays.
_SAID_BEFORE = re.compile(
    r"(?:\b(?:no longer|not any ?more|" + _PAST_ADVERB + r"|(?:does|do|did)(?:n't| not)|" + _BEFORE_A_CHANGE +
    # (fr43) the gap stops at a clause that turns to now: "Before the upgrade it worked, now it shows ..."
    r"(?:(?!\b(?:now|but|and)\b)[^.\n\"'“‘`]){0,20}?)"
    r"\s+(?:(?!(?:now|but|and)\b)\w+\s+){0,2}?(?:say|said|says|show|showed|shown|shows|print|printed|prints|"
    r"report|reported|reports|log|logged|logs|display\w*|warn\w*|see|saw|seen|complain\w*|get|gets|got|hit|hits|"
    r"throw\w*|threw|rais\w+)|"
    # (xfail43a) the run that stopped on the message, said of the past: "TestCafe no longer fails with the
    # `ERR_STREAM_WRITE_AFTER_END` error" (DevExpress/testcafe's changelog), "... no longer fails with `PKGBUILD not
    # found`", "the kernel no longer crashes with ...". (fr43) Only a past-marking adverb right before the verb: "does
    # not start and fails with ..." and "before the upgrade it worked, now it fails with ..." fail now.
    # (fr43 A2) A "before the fix/upgrade" lead, a comma and a subject after it, and up to two words after the adverb
    # reach the verb too: "Before the upgrade, vLLM crashed with ...", "It used to sometimes fail with ...", "it
    # previously always failed with ...". The gaps stop at a comma, "now", "but" and "and".
    r"\b(?:no longer|" + _PAST_ADVERB + r"|" + _BEFORE_A_CHANGE + r",?"
    r"(?:\s+(?!(?:now|but|and)\b)\w+){0,2}?)"
    r"\s+(?:(?!(?:now|but|and)\b)\w+\s+){0,2}?"
    r"(?:fail(?:s|ed)?|crash(?:es|ed)?|die[sd]?|abort(?:s|ed)?|exit(?:s|ed)?|error(?:s|ed)?(?:\s+out)?)\s+with"
    r"(?:\s+(?:the|an?))?)\b"
    r"(?:[:,]?\s*[\"'“‘`][^\"'“”‘’`\n]{0,80}|\s*:\s*[^\n]{0,80}|\s*(?:that\s+)?)$", re.I)
# A switch taken off: "I removed --enforce-eager", "dropped enforce_eager=True", "no longer pass --disable-cuda-graph".
_REMOVAL_VERBS = (r"\b(?:remov(?:e|ed|ing)|dropp?(?:ed|ing)?|delet(?:e|ed|ing)|t(?:ook|ake|aken|aking) out|"
              r"got rid of|comment(?:ed|ing)? out|un-?set(?:ting)?|"
              r"stopp?(?:ed|ing) (?:using|passing|setting)|no longer (?:use|pass|set)\w*)")
_SWITCH_REMOVED = re.compile(_REMOVAL_VERBS + r"\s+(?:the\s+)?(?:flag\s+|option\s+)?[\"'`]?$", re.I)
# (fx48p) ... or taken off after it is named, by a word that points back to it: "Earlier generation with --load-8bit
# was slow, I dropped the flag and it is fast now", "..., then removed it".
_TAKEN_OFF_AFTER = re.compile(_REMOVAL_VERBS + r"\s+(?:the\s+(?:flag|option|switch)|it|that(?:\s+flag)?)\b", re.I)
_SWITCH = re.compile(r"\s*(?:-{1,2}\w|\w+[^\w\s]?\s*[=:])")
# A setup left behind: "we moved from WSL2 to Ubuntu", "migrated away from the KVM guest".
_LEFT_FROM = re.compile(r"\b(?:mov(?:e|ed|ing)|migrat(?:e|ed|ing)|switch(?:ed|ing)?|came|went)\s+(?:over\s+)?"
                        r"(?:away\s+)?from\s+(?:(?:the|our|a|an|my)\s+)?$", re.I)


def _gone(sentence: str, m: re.Match) -> bool:
    """Is the match something the reporter says is gone: a quoted line the log no longer prints, or a switch they
    took off? Either is what ran before, no current evidence."""
    before = sentence[:m.start()].rsplit("\n", 1)[-1]
    return bool(_SAID_BEFORE.search(before[-160:]) or _LEFT_FROM.search(before[-40:])
                or (_SWITCH.match(m.group(0)) and _SWITCH_REMOVED.search(before[-40:])))


def said_gone(text: str, m: re.Match) -> bool:
    """_gone for a rule's own pattern: is the line `m` matched in `text` quoted as printed before, or no more?"""
    return _gone(text, m)


def switch_dropped(sentence: str, m: re.Match) -> bool:
    """Is the switch `m` matched one the reporter took off, before it ("I removed --load-8bit") or after it, in the
    same sentence ("with --load-8bit it was slow, I dropped the flag")? Then it ran before, not in the run now."""
    return _gone(sentence, m) or bool(_TAKEN_OFF_AFTER.search(sentence, m.end()))


# (issue 11, u14a) NUMA nodes are no hosts. numactl --hardware opens with "available: 2 nodes (0-1)" (the count, then
# the range of node ids: numactl(8)), and AMD's BIOS option counts "NUMA nodes per socket" (NPS1/2/4, "4 nodes per
# socket"); neither says the job spans machines.
_NUMACTL_BEFORE = re.compile(r"\bavailable:\s*$", re.I)
_NUMACTL_AFTER = re.compile(r"^\s*\(\d+-\d+\)|^\s+per\s+(?:socket|CPU|die|package)\b", re.I)


# One host among several: "one of the nodes", "more than one node", "from one node to another", "than on a single
# node", "does not fit on a single node", "one node is slower than the rest".
_MANY_BEFORE = re.compile(r"\b(?:more than|than|beyond|outgrow\w*|exceed\w*|from|"
                          r"(?:not|n't)\s+(?:\w+\s+)?(?:fit\w*|enough|possible))"
                          r"(?:\s+(?:on|in|with|using|a|one|the))*\s*$", re.I)
_MANY_AFTER = re.compile(r"^\s*(?:of\s+(?:the|our|my|these|those|\d+|two|several)\b|"
                         r"(?:s\s+)?to\s+(?:another|the other)\b|"
                         r"(?:is|was)\s+(?:\w+\s+)?(?:slower|faster|late|lagging|behind)\b)", re.I)
_NOT_JUST_BEFORE = re.compile(r"(?:\b(?:not|never)|n't)(?:\s+(?:on|in|within|inside|using|with|a|one|the|only))*\s*$",
                              re.I)


def _one_of_many(sentence: str, m: re.Match) -> bool:
    """Is the host named one of several, or the one the job is said not to fit on?"""
    before = sentence[:m.start()].rsplit("\n", 1)[-1]
    return bool(_MANY_BEFORE.search(before[-30:]) or _MANY_AFTER.match(sentence[m.end():m.end() + 40]))


_NOT_A_NODE_WORD = r"(?!(?:per|each|in|on|of|across|over|with|and|or)\b)"
_NODES_SAID = re.compile(r"\b(\d{1,4}|" + words_pattern(ENGLISH_COUNT_WORDS) + r")(?:\s*x)?[\s-]+"
                         r"(?:" + _NOT_A_NODE_WORD + r"[\w.-]+\s+){0,2}?"
                         r"(?:nodes?|servers?|hosts?|machines?|boxes|instances)\b", re.I)


def nodes_said(quote: str) -> int | None:
    """The host count a multi-node statement gives ("across 4 nodes", "two DGX A100 servers", "a 16-node job"),
    where it gives one of 2 or more."""
    for m in _NODES_SAID.finditer(quote):
        token = m.group(1).lower()
        n = int(token) if token.isdigit() else ENGLISH_COUNT_WORDS.get(re.sub(r"\s+", " ", token))
        if n and 2 <= n <= 4096:
            return n
    return None


def _numa_nodes(sentence: str, m: re.Match) -> bool:
    before = sentence[:m.start()].rsplit("\n", 1)[-1]
    return bool(_NUMACTL_BEFORE.search(before[-20:]) or _NUMACTL_AFTER.match(sentence[m.end():m.end() + 30]))


# The pipeline's degree written with its words, as prose, flags and configs write it: "pipeline parallelism of 1",
# "pipeline parallel (PP=1)", "--pipeline_parallel 1", "pipeline_parallel_size=1", Megatron's
# "--pipeline-model-parallel-size 1", "pipeline-parallel degree: 2", "pipeline parallel size is one", and a config
# dict's or JSON's quoted key ("'pipeline_parallelism': 1" in TensorRT-LLM's build flags,
# "\"pipeline_parallel_size\": 1").
_PP_DEGREE = re.compile(r"[-_ ]?(?:(?:size|degree|stages?)\b)?['\"]?\s*(?:\(\s*)?(?:(?:PP|pp)(?:[-_]?size)?\s*)?"
                        r"(?:(?:=|:|==|\bis\b|\bof\b|\bto\b|\bset to\b|\bequals?\b)\s*)?(\d{1,3}|one|a single)\b"
                        r"(?!\s*(?:%|x\b|×|GPUs?|cards?|nodes?|ms\b|s\b|sec|GB|tok|t/s|times))", re.I)


def pipeline_degree(sentence: str, m: re.Match) -> int | None:
    """The pipeline-parallel degree written right after the words `m` matched, or None where none is."""
    d = _PP_DEGREE.match(sentence, m.end())
    if not d:
        return None
    return 1 if d.group(1).lower() in ("one", "a single") else int(d.group(1))


def tp_degree(sentence: str, m: re.Match) -> int | None:
    """The tensor-parallel degree a tp_asked match states ("TP=1", "-tp 2": its last digit starts the number;
    "--tensor-parallel-size 1", "tensor parallel size of 4": written right after the words), or None."""
    if m.group(0)[-1:].isdigit():
        return int(re.match(r"\d+", sentence[m.end() - 1:]).group(0))
    d = _PP_DEGREE.match(sentence, m.end())
    if not d or re.match(r"\s*(?:PP|pp)", sentence[m.end():]):
        return None
    return 1 if d.group(1).lower() in ("one", "a single") else int(d.group(1))


# a log said to be clean, a zero counter, "zero replay errors": PCIe link errors ruled out (the clean line read from its
# start only: from every character it took seconds on a long line that does not end "clean")
_CLEAN_LOG = re.compile(r"(?m:^)[^\n]*\bclean$|\bReplays Since Reset\b\W{0,10}0$", re.I)
_ZERO_BEFORE = re.compile(r"\b(?:zero|0)\s+(?:\w+\s+)?$", re.I)


# A transport said of the time before a change to the fabric's setup ("4GBps over IPoIB before enabling RDMA"): what
# ran then, not the path in use now (the kinds that name the network transport).
_TRANSPORT_KINDS = ("net_socket", "tcp_only", "rdma_off")
_BEFORE_CHANGE = re.compile(r"[^.;\n]{0,40}?\bbefore\s+(?:I\s+|we\s+)?"
                            r"(?:enabl|install|configur|load|switch|turn|set|fix|add|mount|pass)\w*\b", re.I)


# (decided31) A multi-node reading whose count is one ("a distributed training task with 1 nodes",
# pytorch/pytorch#40273; "run 1 task on 1 nodes" in an HPC job script): the plural is a slip, the count says one host.
# Not a bound: "more than 1 nodes", ">1 nodes" (NVIDIA/nccl#447: "When using 1 nodes it works ... But when using more
# than 1 nodes, Training get stuck") is the multi-node job.
_COUNT_OF_ONE = re.compile(r"(?:(?:on|using|with|over|spanning|across|between)\s+(?:the\s+)?)?0*1(?:\s*x)?[\s-]", re.I)
_MORE_THAN = re.compile(r"(?:\bmore\s+than|\bover|\babove|\bbeyond|\bat\s+least|>=?)\s*$", re.I)


# (ruledout34) An NCCL change undone ("downgrading NCCL", "rolled back NCCL to 2.18") followed in its clause by no
# effect ("did not help", "made no difference", "same result"): the reporter ruled the release out.
_UNDONE = re.compile(r"\b(?:downgrad\w*|roll\w* back|revert\w*|go\w* back)\b", re.I)
_UNDONE_NO_HELP = re.compile(r"[^.;\n]{0,40}?(?:\b(?:did|does|do)\s*(?:not|n't)\s+(?:help|fix|change|solve|improve)\b|"
                             + NO_EFFECT + r"|\bsame\s+(?:results?|speed|numbers?|performance)\b|\bno\s+(?:luck|"
                             r"difference|change)\b)", re.I)


# (words42) "no doubt", "without a doubt", "I don't doubt" affirm what follows ("no doubt": certainly, Merriam-Webster):
# their "no"/"not" denies the doubt, not the state ("There is no doubt P2P is disabled" reports P2P off). Blanked
# (same length, so positions hold) before the negation is looked for.
_NO_DOUBT = re.compile(r"(?:\b(?:no|not|never|without(?:\s+(?:a|any))?)|n['’]t)\s+doubt(?:s|ed|ing)?\b", re.I)


def _negated(kind: str, sentence: str, m: re.Match) -> bool:
    """Does the reporter rule the match out? Only words on its own line count: in pasted tool output the line
    above ("Idle : Not Active") says nothing about this one ("SW Power Cap : Active")."""
    if "oubt" in sentence:
        sentence = _NO_DOUBT.sub(lambda d: " " * len(d.group()), sentence)
    if _gone(sentence, m):
        return True
    if kind == "pcie_errors" and (_CLEAN_LOG.search(m.group(0)) or _ZERO_BEFORE.search(sentence[:m.start()])):
        return True
    if kind in _TRANSPORT_KINDS and _BEFORE_CHANGE.match(sentence, m.end()):
        return True
    if kind == "nccl_upgrade" and _UNDONE.search(m.group(0)) and _UNDONE_NO_HELP.match(sentence, m.end()):
        return True  # (ruledout34) "downgrading NCCL did not help": the release tried back and ruled out
    if kind in _NEGATIVE_KINDS:
        if _state_denied(sentence, m):
            return True
        window = sentence[max(0, m.start() - 20):m.start()].rsplit("\n", 1)[-1]
        return bool(re.search(r"(?:\b(?:not|never|no)|n't)\b[\w\s,'\"`-]{0,12}$", window, re.I)
                    and not re.search(r"\b(?:is|are|was)\s+not\b", m.group(0), re.I))
    if kind in ("multi_node", "one_node") and _numa_nodes(sentence, m):
        return True
    if kind == "multi_node" and _COUNT_OF_ONE.match(m.group(0)) and not _MORE_THAN.search(
            sentence[max(0, m.start() - 20):m.start()]):
        return True  # (decided31) "with 1 nodes": a count of one host, whatever the plural, is no multi-node job
    if kind == "one_node":  # a place: only its own "not" rules it out ("not on one node"; not "does not work on")
        return _one_of_many(sentence, m) or bool(_NOT_JUST_BEFORE.search(sentence[max(0, m.start() - 30):m.start()]))
    if kind == "pipeline_parallel" and pipeline_degree(sentence, m) == 1:
        return True  # one stage: no pipeline
    if kind == "tp_asked" and tp_degree(sentence, m) == 1:
        return True  # (mend41) "-tp 1", "--tensor-parallel-size 1": one GPU, nothing sharded (vllm-project/vllm#5376)
    before = _said_not(sentence, m.start())  # "not working when each rank ...": another clause's is not this one's
    inside = kind in _NEGATED_INSIDE and _INSIDE_NEGATION.search(m.group(0))
    # ("not A, but B" affirms B: "GPU utilization does not consistently remain at 10%, but fluctuates between 0% and
    # 10%", OpenBMB/MiniCPM-V#570; left26)
    inside = inside or (kind in _NEGATED_INSIDE_F and _INSIDE_NEGATION_F.search(re.split(r"\bbut\b", m.group(0))[-1]))
    inside = inside or (kind in _NEGATED_BY_NONE and _NONE_INSIDE.search(m.group(0)))
    inside = inside or (kind in _NEGATED_ANYWHERE_INSIDE and _ANY_NEGATION.search(m.group(0)))
    inside = inside or (kind == "shm_error" and _FAILURE_DENIED.search(m.group(0)))
    small = kind in _NEGATED_BY_NONE and _SHARE.match(m.group(0)) and _SMALL_SHARE.search(sentence[:m.start()])
    kept_on = kind == "eager_flag" and (_GRAPHS_KEPT_ON.search(sentence[m.end():]) or _prefill_line(sentence, m)
                                        or bool(_UNLESS.search(sentence[:m.start()])))
    kept_on = kept_on or kind == "first_calls_slow" and _REST_SLOW_TOO.search(sentence[m.end():])
    kept_on = kept_on or kind == "first_calls_slow" and _FIRST_AFTER_PAUSE.search(sentence[m.start():m.end() + 60])
    after = sentence[m.end():m.end() + 60]
    return bool(before or inside or small or kept_on or _NEGATED_AFTER.match(after) or _TOO_SMALL_AFTER.match(after))


# (issue 11, paraphrase audit) A flag under "unless" is the one not set: "cuda graph will be enabled by default ...
# unless you set --enforce-eager=True" (https://github.com/vllm-project/vllm/issues/13661).
_UNLESS = re.compile(r"\bunless\b[^,;:]*$", re.I)


# SGLang's prefill stats line says whether that prefill batch ran in a CUDA graph ("Prefill batch, ... cuda graph:
# False", scheduler log_prefill_stats): graphs are captured for decode batches, so a prefill's is False with graphs on.
_SGLANG_PREFILL = re.compile(r"\bPrefill batch[.,]")


def _prefill_line(sentence: str, m: re.Match) -> bool:
    """Is the match on an SGLang prefill stats line?"""
    start = sentence.rfind("\n", 0, m.start()) + 1
    return bool(_SGLANG_PREFILL.search(sentence, start, m.start()))


# (issue 11 t) The first call after a pause ("the first frame after a 10 s sleep", "the first request following an idle
# period"): it comes after every pause, so it is the gap's (idle_gap_slow: the driver lowers an idle GPU's clocks and
# P-state, https://docs.nvidia.com/deploy/driver-persistence/), not the run's warm-up, which comes once per process.
# Not a start or restart ("the first request after startup" is warm-up).
_FIRST_AFTER_PAUSE = re.compile(
    _FIRST_WORK + r"\s+(?:(?:right|just|directly|immediately)\s+)?(?:after|following)\s+"
    r"(?:a|an|the|some|each|every|any)?\s*(?:[\w.-]+\s+){0,3}?"
    r"(?:sleeps?|pauses?|delays?|breaks?|gaps?|idle|inactivity|lulls?|quiet)\b", re.I)
# The first call slow "and all later ones too": every call is slow, no warm-up (in the languages warm-up is read in).
_REST_SLOW_TOO = re.compile(
    r"^[^.\n]{0,30}?(?:\b(?:all|every|each|the)\s+(?:of\s+the\s+)?(?:later|subsequent|following|other|next|rest)"
    r"(?:\s+(?:ones?|calls?|requests?|runs?|steps?))?\s+(?:are\s+|were\s+|is\s+|was\s+)?(?:slow\s+)?"
    r"(?:too|as well|also)\b|\b(?:and|as is|like|so is)\s+every\s+(?:call|request|run|step|one)\b|"
    r"\b(?:alle|die)\s+(?:weiteren|anderen|folgenden|nächsten)\s+(?:\w+\s+)?auch\b|"
    r"\b(?:и\s+)?(?:все\s+)?(?:последующие|остальные|следующие)\s+(?:\w+\s+)?тоже|"
    r"\b(?:y\s+)?(?:todas\s+|todos\s+)?(?:las|los)\s+(?:siguientes|dem[aá]s)\s+(?:\w+\s+)?tambi[eé]n|"
    r"(?:之后|后面|以后|后续)(?:的)?(?:也|都|还是)(?:很|一样|一直)?慢|每次都慢|その後も遅|毎回遅|"
    r"이후에도\s*느|매번\s*느)", re.I)
# "... is negligible", "... was insignificant": the reporter measured the cause and found it too small to matter.
_TOO_SMALL_AFTER = re.compile(r"^[\s:,\w/-]{0,25}?\b(?:is|are|was|were|seems?|looks?|stays?|remains?)\s+(?:\w+\s+)?"
                              r"(?:negligible|insignificant|minimal|trivial|not significant|close to zero|near zero|"
                              r"next to nothing)\b", re.I)
# Host-side load words negated inside the match: "CPU threads busy and no single thread at 100 %", "none of the CPU
# threads reaches 100 %", "the CPU never hits 100 %" (the negation runs to the figure, no other clause between);
# and a small share of the time ("under 10 % of the time goes to tokenization"; "only 1 core" is a count).
_NEGATED_BY_NONE = ("cpu_ab",)
_NONE_INSIDE = re.compile(r"\b(?:no|none|never|nothing)\b(?:(?!\b(?:and|but|while|whereas|though)\b)[^,;])*$", re.I)
_SHARE = re.compile(r"\d+(?:\.\d+)?\s*%\s+of\b")
_SMALL_SHARE = re.compile(r"\b(?:less than|under|below|at most|no more than)\s*~?\s*$", re.I)


# "Running without CUDA graphs was 2x slower, so we keep them enabled": the setting in use is the later one.
_GRAPHS_KEPT_ON = re.compile(r"\b(?:keep|kept|keeping|leave|left)\s+(?:them|it|(?:CUDA[- ]?)?graphs?)\s+"
                             r"(?:enabled|on)\b|\bre-?enabl(?:e|ed|ing)\b", re.I)


# Kinds whose matched words can carry their own negation ("the CPU is not the bottleneck").
# (insuff32) "the first images are not slow": the first calls' slowness denied inside its own words
_NEGATED_INSIDE = ("cpu_ab", "gpu_idle_words", "first_calls_slow")
_INSIDE_NEGATION = re.compile(r"\b(?:is|are|was|were)\s+not\b|\b(?:isn't|aren't|wasn't|weren't)\b", re.I)
# Kinds whose words can carry an adverb between the verb and its negation ("the batch size is definitely not small",
# "concurrency isn't low at all", "the number of requests is never small"): any negation inside rules them out.
# (layer_slower, rules.ticket_layers: "through the proxy it is not slower" rules the layer out)
_NEGATED_ANYWHERE_INSIDE = ("few_requests", "layer_slower")
_ANY_NEGATION = re.compile(r"\b(?:not|never|hardly)\b|n't\b", re.I)
# A failure denied next to its verb ("/dev/shm is 64 GB and nothing fails", "shm_open never failed", "no errors").
_FAILURE_DENIED = re.compile(r"(?:\b(?:nothing|never|not|no)|n't)\s+(?:\w+\s+)?(?:fail\w*|errors?)\b", re.I)


_CLAUSE = re.compile(r"\b(?:when|while|because|if|after|since|but|unless|whenever|so|as)\b", re.I)


# The checklists GitHub issue templates make the reporter tick: the form's words, not an account of the system
# ("I have searched related issues but cannot get the expected help." is no complaint). The SGLang, LMDeploy and
# KTransformers bug form (.github/ISSUE_TEMPLATE/1-bug-report.yml), vLLM's ("Make sure you already searched for
# relevant issues, and asked the chatbot ..."), TabbyAPI's and exllamav2's ("I have looked for similar issues before
# submitting this one", "I understand that the developers have lives ..."), LLaMA-Factory's ("I have read the above
# rules and searched the existing issues"), text-generation-webui's ("I have searched the existing issues").
_TEMPLATE_CHECKLIST = re.compile(
    r"^[\s>*-]*(?:\[[ xX]\]\s*)?(?:\d+\.\s*)?(?:I have searched (?:related|the existing|existing) issues\b|"
    r"The bug has not been fixed in the latest version\b|Please note that if the bug-related issue you submitted\b|"
    r"If the issue you raised is not a bug but a question\b|Please use English, otherwise\b|"
    r"Make sure you already searched for relevant issues\b|I have looked for similar (?:issues|requests)\b|"
    r"I understand (?:that )?the developers\b|I have read the above rules\b|To help the community, I will use\b)",
    re.I)


def sentences(text: str) -> list[str]:
    return list(_sentences(text))


@functools.lru_cache(maxsize=1024)
def _sentences(text: str) -> tuple[str, ...]:
    """The sentences of one text, kept per text (a string: never stale): the claims split each of a ticket's texts
    again for every phrasing kind and catalog error row, some 500 times a ticket."""
    return tuple(s for s in _SENTENCE.split(text) if s and s.strip() and not _TEMPLATE_CHECKLIST.match(s))


# (review26) Python's report of an exception it could not raise (sys.unraisablehook: a destructor such as __del__, or
# garbage collection at interpreter shutdown): "Exception ignored in: <function LLMEngine.__del__ ...>", then the
# traceback and its last line. Nothing reached the caller and the program went on or had ended (vllm-project/vllm#8208,
# run-llama/llama_index#13019: "This isn't an error, the program ran fine"), so no software raising.
_UNRAISABLE = re.compile(r"^[ \t]*Exception ignored in\b[^\n]*\n(?:[ \t]*Traceback \(most recent call last\):?[^\n]*\n"
                         r"(?:[ \t]+[^\n]*\n)*)?[^\n]*", re.M)


# (review36) Thunderbolt and USB4 also join computers to each other: exo's Mac clusters ("4 mac studios m3 ultra link
# with tb4, rdma on", exo-explore/exo#1881; "I used a TB5 link, connecting A->B, A->C", #1050; "2x Mac Mini M4 (TB4)
# cluster", #1813), llama.cpp RPC over `thunderbolt-net` ("Thunderbolt node-to-node interconnects ... over TB4",
# geerlingguy/ai-benchmarks#21). Such a cable is a network between the machines, not how a GPU is attached: a
# Thunderbolt word in a sentence that names no GPU, where the sentence speaks of machines, nodes, a cluster, RDMA or a
# Thunderbolt network (or the ticket of a cluster), is not read as one. "eGPUs using TB3", "Razer Core TB3" stay.
_TB_WORD = re.compile(r"\b(?:thunderbolt\w*|TB\s?[2-5]|USB\s?4)\b", re.I)
_MACHINES_LINKED = re.compile(r"\b(?:nodes?|node[- ]to[- ]node|clusters?|mac\s*(?:studios?|minis?|books?|pros?)|macs|"
                              r"hosts|machines|computers|PCs|boxes|RDMA|RoCE\w*|rpc[- ]servers?|mesh|networking|"
                              r"thunderbolt[-_ ]?(?:net\w*|bridge)|thunderbolt\d|bridge0|peer-to-peer bridges?|"
                              r"[A-D]\s*->\s*[A-D])\b", re.I)
_GPU_HELD = re.compile(r"\b(?:e?GPUs?|graphics|enclosures?|Core\s?X|RTX|GTX|Quadro|Tesla|Radeon|RX\s?\d{3,4}|Arc|"
                       r"dGPU|video cards?|3090|4090|5090)\b", re.I)


# Said elsewhere in the ticket, only a cluster's own words: "the machines" alone may be the reporter's two desktops.
_CLUSTER_TICKET = re.compile(r"\b(?:clusters?|RDMA|thunderbolt[-_ ]?(?:net\w*|bridge)|rpc[- ]servers?|"
                             r"mac\s*(?:studios?|minis?))\b", re.I)


# (review37b) The plural with no count ("across servers", "between machines") names one job over several machines only
# when the sentence says what spans them: a parallel layout, the collectives or the link between them ("PP across
# nodes", "all-reduce between nodes", "a job across machines", "400 Gb/s between the machines"). Machines compared or
# each working alone ("a load balancer across servers, each runs its own vLLM", "consistent across machines", "latency
# differs between machines", "replicas across our servers") are no multi-node run: nothing crosses between them.
_NODES_NO_COUNT = re.compile(r"(?:between|across|among)\s+(?:the\s+|our\s+|different\s+)?"
                             r"(?:nodes|servers|hosts|machines)\b", re.I)
_SPANS_MACHINES = re.compile(r"\b(?:parallel\w*|TP\d*|PP\d*|tensor|pipeline|NCCL|all[- ]?reduce|all[- ]?to[- ]?all|"
                             r"all[- ]?gather|collectives?|broadcast|communicat\w*|transport|InfiniBand|IB|RoCE\w*|"
                             r"RDMA|GDR|GPUDirect|network\w*|bandwidth|busbw|links?|NICs?|Gb/s|GB/s|Gbps|ethernet|"
                             r"thunderbolt|TB\d|jobs?|train\w*|shard\w*|split\w*|span\w*|Ray|MPI|torchrun|deepspeed|"
                             r"deploy\w*|speed\s+between)\b", re.I)
_MACHINES_APART = re.compile(r"\b(?:each|every|independent\w*|separate\w*|replicas?|load[- ]?balanc\w*|consistent\w*|"
                             r"differ\w*|var(?:y|ies|ied)|compar\w*)\b|\b(?:its|their)\s+own\b", re.I)


# (para38) Two machines counted and then told apart, one against the other: "ran llama.cpp on two machines, one's got
# 4xA100, the other 8xH100", "two servers: one with ..., the other with ..." (s007's "two systems, one with 4xA100 and
# the other with 8xH100"): two setups compared, no job across them.
_ONE_THE_OTHER = re.compile(r"^[^.\n]{0,40}?\bone(?:'s|\s+(?:has|had|with|is|was|of them|got|runs?))\b[^.\n]{0,80}?"
                            r"\b(?:the other|the second|another)\b", re.I)


# (review38b) ... unless the sentence runs one job over both, or names the collective or fabric between them ("we run
# one job across two machines, one with 8xA100 and the other with 8xA100 too, over 100G RoCE").
_ONE_RUN_ACROSS = re.compile(r"\b(?:NCCL|all[- ]?reduce\w*|all[- ]?gather\w*|busbw|InfiniBand|RoCE\w*|RDMA|GPUDirect|"
                             r"torchrun|MPI)\b|\b(?:one|a|single|the\s+same)\s+(?:job|run|training|TP\s+group)\s+"
                             r"(?:across|over|spanning)\b", re.I)


# (para38) A question that offers layouts to choose from, in the clause that asks: "对于并行方式，推理是选择张量并行还是
# 流水线并行？" (deepseek-ai/DeepSeek-V2#35: which to pick, neither in use), "For inference, should I choose tensor
# parallel or pipeline parallel?". A layout said in a clause before the question stays observed ("我用的是流水线并行，
# 吞吐很低，是 batch 太小还是配置问题？").
_ALTERNATIVES = re.compile(r"还是|\bor\b|\bversus\b|\bvs\.?(?=\s)", re.I)


def _choice_asked(sentence: str, at: int) -> bool:
    """Is position `at` inside the last clause of a question (ending in ? or ？) that offers alternatives?"""
    if not re.search(r"[?？]\s*$", sentence):
        return False
    ends = [c.end() for c in _CLAUSE_END.finditer(sentence, 0, at)]
    clause = sentence[ends[-1] if ends else 0:]
    return not _CLAUSE_END.search(clause) and bool(_ALTERNATIVES.search(clause))


def _machines_apart(sentence: str, m) -> bool:
    """Is a count-less "across/between machines" match (_NODES_NO_COUNT) no multi-node job: nothing in the sentence
    spans the machines, or the sentence sets them apart (_MACHINES_APART)? Or two machines counted and told apart,
    one against the other (_ONE_THE_OTHER)?"""
    if _ONE_THE_OTHER.search(sentence[m.end():]) and not _ONE_RUN_ACROSS.search(sentence):
        return True
    if not _NODES_NO_COUNT.fullmatch(m.group(0)):
        return False
    return not _SPANS_MACHINES.search(sentence) or bool(_MACHINES_APART.search(sentence))


def _machines_linked(sentence: str, m, text: str) -> bool:
    """Is this Thunderbolt or USB4 match a cable between computers (a cluster's network), not a GPU's attachment?"""
    return bool(_TB_WORD.search(m.group(0))) and not _GPU_HELD.search(sentence) and \
        bool(_MACHINES_LINKED.search(sentence) or _CLUSTER_TICKET.search(text))


# A decline said against a quantity that grows ("as the context length increases, the inference speed gradually
# declines", ikawrakow/ik_llama.cpp#766; "drops steadily as the prompt gets longer") is a trend against that
# quantity, not one over time under a constant load: decode reads the whole KV cache every step and prefill grows with
# the prompt, so the rate falls as they grow (ticket.serving_tradeoff reads it as claims.length_tradeoff).
_GROWING = (r"(?:context|prompt|input|sequence|conversation|chat|history|kv[- ]?cache|tokens?|batch|concurrency|"
            r"requests|users|GPUs?|nodes)(?:[- ](?:length|size|window|count|number))?\s+"
            r"(?:increases|increased|grows|grew|gets\s+(?:longer|larger|bigger)|got\s+(?:longer|larger|bigger)|"
            r"goes\s+up|rises|fills(?:\s+up)?)\b")
_GROWS_BEFORE = re.compile(r"(?:\b(?:as|when|while)\s+(?:the\s+|my\s+|our\s+)?(?:\w+\s+){0,2}?" + _GROWING +
                           r"|随着\S{0,6}(?:上下文|输入|提示词|prompt|对话|token|序列)\S{0,6}(?:增加|增长|变长|越来越长))"
                           r"[^.\n]{0,80}$", re.I)
_GROWS_AFTER = re.compile(r"[^.\n]{0,40}?\b(?:as|when|while)\s+(?:the\s+|my\s+|our\s+)?(?:\w+\s+){0,2}?" + _GROWING,
                          re.I)


def _trend_against_growth(sentence: str, m: re.Match) -> bool:
    """Is this slowdown said against a growing context, prompt, batch or GPU count in its own sentence?"""
    return bool(_GROWS_BEFORE.search(sentence[:m.start()]) or _GROWS_AFTER.match(sentence, m.end()))


# (review34b) A start-up step named beside a stop that is not where the job stopped: the step finished ("stuck after
# 'Loading model weights took 13 GB'", vLLM's line once the weights are in; "Loading safetensors checkpoint shards:
# 100% Completed and then it hangs"), came before the stop ("after loading the weights it hangs at the first
# all-reduce"), was turned off ("with torch.compile disabled it still hangs", "hangs when I disable the JIT"), or is
# another subject set against it ("ninja is installed, but the all-reduce hangs"). Then the first collective, after
# the step, is what stopped, where a blocked peer path shows, so the claim does not hold.
_STEP_RE = re.compile(_STARTUP_STEP, re.I)
_STEP_DONE = re.compile(r"['\"`]?[^.\n]{0,40}?(?:\b(?:took(?!\s+(?:forever|ages))|(?<!%\s)complet\w*|done|finish\w*|"
                        r"succeed\w*)\b|\b100\s?%)", re.I)  # not "0% Completed | 0/4", not "took forever"
_STEP_BEHIND = re.compile(r"\b(?:after|once|without|disabl\w*|skip\w*|turn\w*\s+off|remov\w*|installed)\b[^.\n]{0,20}$",
                          re.I)
_STEP_SET_AGAINST = re.compile(r"\b(?:after|then|but|however|though|disabl\w*|without|off|installed|fine|fast|"
                               r"succe\w*)\b", re.I)


def _step_passed(sentence: str, m: re.Match) -> bool:
    """Does the sentence put the start-up step it names behind the stop it names (see _STEP_DONE)?"""
    step = _STEP_RE.search(sentence, m.start(), m.end())
    if not step:
        return False
    if _STEP_DONE.match(sentence, step.end()):
        return True  # the step finished
    if step.start() == m.start():  # "<step> ... hangs": what comes before the step, and between the two
        return bool(_STEP_BEHIND.search(sentence[max(0, m.start() - 30):m.start()])
                    or _STEP_SET_AGAINST.search(sentence, step.end(), m.end()))
    return bool(_STEP_BEHIND.search(sentence, m.start(), step.start()))  # "hangs when I disable torch.compile"


# (misfire35) Several pods, containers or processes sharing one GPU: Kubernetes' device plugin gives each container
# whole GPUs ("Containers (and Pods) do not share GPUs", kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus), and
# NVIDIA's ways to share one are time-slicing and MPS (docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/
# gpu-sharing.html). A sentence about sharing a GPU "between pods" is scheduling, the opposite of isolated_ranks (one
# job's ranks each hidden from the other GPUs), so its "between pods" is not read as that.
_GPU_SHARED = re.compile(r"\bshar(?:e|es|ed|ing)\s+(?:an?|one|the|single|same|my|our|this|that|each)?\s*"
                         r"(?:(?:single|same|physical|whole)\s+)?(?:NVIDIA\s+)?(?:GPUs?|cards?|(?:RTX\s?|GTX\s?|Tesla\s)?"
                         r"(?:[A-Z]{1,2}\d{2,4}|\d{4})\w{0,4})\b|\bGPUs?[- ]shar\w*|"
                         r"\btime[- ]slic\w*|\bMPS\b|\b(?:one|a|single|the same)\s+GPU\s+(?:between|among)\b", re.I)

# (review38b) Containers that run jobs of their own, no collective between them: "two containers on the same host
# run separate vLLM servers that do not talk to each other", "同一台机器上的两个容器...分别跑推理服务，互不通信".
# Ranks isolated from each other (isolated_ranks) are ranks of one job; these are two jobs.
_CONTAINERS_APART = re.compile(r"\bseparate\s+(?:\w+\s+)?(?:services?|servers?|jobs?|instances?|deployments?)\b|"
                               r"\bindependent(?:ly)?\b|\b(?:do|does|did)\s*(?:n't|\s+not)\s+(?:talk|communicate)\b|"
                               r"\bno\s+(?:communication|collectives?|NCCL)\s+between\b|"
                               r"互不通信|(?:不|无)(?:需要)?(?:相互|互相)?通信|各自独立|"
                               r"独立(?:的)?(?:服务|任务|实例|部署)", re.I)


# (misfire35) "when the GPU is idle" before a reading the driver lowers at idle (the PCIe link generation, clocks,
# P-state): the state the reading was taken in, not an observation that the GPU idles during the work. (Not a power
# draw: "the CPU is at 100 % while the GPU is idle, drawing 30 W" is the starved GPU itself.)
# nvidia-smi -q "GPU Link Info" shows the link's Current generation below Max at idle, back up under load; the idle
# clocks and P8 are nvmlClocksEventReasonGpuIdle (docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html).
_IDLE_WHEN = re.compile(r"\b(?:when|whenever|while|if|once|as long as)\s+(?:[\w-]+\s+){0,2}$", re.I)
_IDLE_LOWERED_READING = re.compile(r"\bPCI-?e\b|\bGen\s?[1-6]\b|\bGT/s\b|\bLnk(?:Sta|Cap)\b|"
                                   r"\blink\s+(?:speed|width|gen\w*)\b|\bclocks?\b|\bMHz\b|\bP-?states?\b|"
                                   r"\bP[0-8]\b|\bperformance\s+state\b|\bpower\s+state\b", re.I)


# (misfire35) A failure stated as the documentation's rule, not as what this run did: "The NCCL docs say that if
# /dev/shm is too small NCCL fails", "According to the troubleshooting guide, NCCL may fail when the shared memory
# segment is too small" (NCCL troubleshooting, "Docker": the SHM transport needs a large /dev/shm). Under "if", "unless"
# or "should" (conditional(when=False)), or after the docs are named, the words are a rule the reporter quotes; "when"
# alone stays a report ("it fails when /dev/shm fills up").
_RULE_QUOTED_KINDS = frozenset({"shm_error"})
_ACCORDING_TO_DOCS = re.compile(r"\baccording\s+to\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:docs?|documentation|"
                                r"guide|FAQ|README|manual|wiki)\b", re.I)


def _rule_quoted(before: str) -> bool:
    """Does the sentence before a failure's words make it a condition or the documentation's words?"""
    return conditional(before, when=False) or bool(_DOCS_SAY.search(before) or _ACCORDING_TO_DOCS.search(before))


def _idle_as_setting(sentence: str, m: re.Match) -> bool:
    """Is "the GPU is idle" the time a power-managed reading was taken ("PCIe shows Gen1 when the GPU is idle")?"""
    return bool(_IDLE_WHEN.search(sentence[max(0, m.start() - 40):m.start()])
                and _IDLE_LOWERED_READING.search(sentence))


def _first(kind: str, patterns: list[str], text: str) -> Claim | None:
    """The first statement of `kind` in `text` the reporter observed; else the first they offered as a guess
    (a title asking "Is it a CPU bottleneck?" above "the CPU is at 100 %" is an observation all the same);
    else the first negated one (negated=True)."""
    guessed = negated = None
    if kind == "exception":
        text = _UNRAISABLE.sub("", text)
    patterns = [p for p in patterns if not re.absent(p, text, re.I)]  # one search of the text, not one a sentence
    if not patterns:
        return None
    pieces = [text] if kind in ACROSS_SENTENCES else sentences(text)
    for i, sentence in enumerate(pieces):
        for p in patterns:
            for m in re.finditer(p, sentence, re.I):
                if kind == "clock_peers" and not _two_peers(sentence, m):
                    continue
                if kind == "numa_words" and _gpus_placed(sentence, m):
                    continue
                if kind == "pcie_slot" and _machines_linked(sentence, m, text):
                    continue
                if kind == "multi_node" and _machines_apart(sentence, m):
                    continue
                if kind == "slowdown_over_time" and _trend_against_growth(sentence, m):
                    continue
                if kind == "startup_step_hang" and _step_passed(sentence, m):
                    continue
                if kind == "isolated_ranks" and (_GPU_SHARED.search(sentence) or _CONTAINERS_APART.search(sentence)):
                    continue
                if kind == "gpu_idle_words" and _idle_as_setting(sentence, m):
                    continue
                if kind == "update_slower" and _zh_update_denied(sentence, m):
                    continue
                if kind == "own_code_hang" and _OWN_WAIT_ELSEWHERE.search(sentence):
                    continue
                if kind == "rank_zero_work" and _rank_zero_work_over(sentence, m, "".join(pieces[i + 1:i + 2])):
                    continue
                if kind == "hardware_error" and (resolved_after(sentence[m.end():], m.group(0))
                                                 or anothers_report(sentence[:m.start()], sentence[m.end():])
                                                 or hearsay.advised(sentence, m.start(), m.end())):
                    continue  # (review39b) "... Xid 79 last week, but reseating the card fixed it", "in #1234 someone
                    # got Xid 79": no failing GPU now, nor the reporter's, as a quoted catalog error (_error_said)
                if kind in _TIED_SLOWDOWN_KINDS and _slowdown_elsewhere(sentence, m):
                    continue
                if kind in _RULE_QUOTED_KINDS and _rule_quoted(sentence[:m.start()]):
                    continue
                # one of the layouts a question offers to choose from is not one in use (_choice_asked)
                choice = kind == "pipeline_parallel" and _choice_asked(sentence, m.start())
                stated = stated_before_question(sentence, m.start()) and not choice
                guess = choice or (not stated and (_guessed(sentence, m.start())
                                         or ((kind in MORE_WORDS_K or kind in WORKING_KINDS) and asked(sentence))
                                         or (kind == "tp_size_error" and _heads_asked(sentence)))) or \
                    (kind in _READ_IN_CONDITIONS and conditional(sentence[:m.start()])) or \
                    (kind in _READ_IN_SUPPOSITIONS and conditional(sentence[:m.start()], when=False)) or \
                    (kind in _STATE_IN_SUPPOSITIONS and _SUPPOSED_STATE.search(m.group(0))
                     and conditional(sentence[:m.start()], when=False)) or \
                    _asked_if(sentence, m.start())
                state = m.re.groupindex.get("state")  # the state word is no figure or name a rule reads
                claim = Claim(kind, "", _quote(sentence, m),
                              {"groups": [g for i, g in enumerate(m.groups(), 1) if g and i != state]},
                              negated=_negated(kind, sentence, m), guess=guess)
                if not claim.negated and not claim.guess:
                    return claim
                if not claim.negated and _doubted(sentence, m.start()):
                    continue  # (words42) "I doubt it is P2P": the reporter weighs against it, no suspicion of it
                if claim.negated:
                    negated = negated or claim
                else:
                    guessed = guessed or claim
    return guessed or negated


# (session 21 review) The heads and the GPUs in the reporter's own words, asked ("64 heads not divisible by 3 GPUs?",
# "Is it possible to run a model with 64 heads on 3 GPUs?", vllm-project/vllm#4232): a question whether TP must divide
# the heads, not the engine's refusal. The refusal is quoted, with its exception or assertion or in quotes ("error:
# AssertionError: num_heads (52) must be divisible by mp_size (8)", DeepSpeed#3634), with the figures in parentheses as
# the engines print them ("Total number of attention heads (40) must be divisible by tensor parallel size (6).how could
# I do to overcome this problem?", vllm-project/vllm#4232), or asked about with a question word ("why does vLLM say
# ...?"): those stay the refusal.
_REFUSAL_QUOTED = re.compile(r"\w*(?:Error|Exception)\b|\bassert\w*|[`'\"]|\(\s*\d+\s*\)")


def _heads_asked(sentence: str) -> bool:
    return asked(sentence) and not _QUESTION_OPENS.match(sentence) and not _REFUSAL_QUOTED.search(sentence)


def states(kind: str, text: str) -> bool:
    """Does `text` state a claim of `kind` (its PATTERNS wordings), not ruled out? For a rule that asks it of one
    sentence, so that one vocabulary serves every rule that needs the statement."""
    found = _first(kind, PATTERNS[kind], text)
    return bool(found and not found.negated)


# A GPU with nothing to do: NVIDIA drops its clocks and performance state (P8, "GPU Idle" among nvidia-smi's
# clocks event reasons) by design, so clock or power words said of an idle GPU describe power saving.
# https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html
_IDLE_STATE = re.compile(r"\b(?:when|while|at|in|during)\s+idle\b|\bidl(?:e|ing)\s+(?:state|GPUs?|time)\b|"
                         r"\bbetween\s+(?:requests|generations|runs|batches|calls|jobs)\b|"
                         r"\bwhen (?:there (?:is|are) )?no (?:requests?|traffic|load)\b|"
                         r"\bnothing\s+(?:is\s+)?running\b|\bno\s+(?:load|work(?:load)?|jobs?|process(?:es)?)\b|"
                         r"\bnot\s+(?:running|doing)\s+anything\b|\bwithout\s+(?:any\s+)?load\b|\b(?:is|are)\s+idle\b|"
                         # "my idle RTX 3090", "when nothing runs", "while the server waits for requests", "sits idle"
                         r"\b(?:my|an?|the|our|its)\s+idle\b(?!-)|\bnothing\s+(?:is\s+)?(?:runs|running|loaded)\b|"
                         r"\bwait(?:s|ing)?\s+for\s+(?:new\s+|incoming\s+)?(?:requests|work|jobs|input|prompts)\b|"
                         r"\b(?:sits?|sitting|stays?|staying|idles?)\s+(?:idle|at\s+idle)\b|"
                         # (para37b) not a level likened to idle: "停在接近空闲的频率" (clocks held near idle ones)
                         r"(?<!接近)(?<!近乎)(?<!类似)(?:空闲|闲置|待机)(?!的?(?:频率|时钟|主频))",
                         re.I)


def _idle(text: str, quote: str) -> bool:
    """Is the sentence a claim was quoted from about a GPU with nothing to do?"""
    return bool(_IDLE_STATE.search(_said_sentence(text, quote)))


_POWER_CAP = re.compile(r"\bSW Power Cap\b(?!\s*:\s*Not)", re.I)
_OTHER_REASON = re.compile(r"\b(?:HW Slowdown|Thermal Slowdown|HW Power Brake)\b(?!(?: Slowdown)?\s*:\s*Not)", re.I)


# (para37) The board's draw when the reporter sees SW Power Cap come on: "SW Power Cap will appear at about 240W"
# (h016), "SW Power Cap shows up at around 240W", "shows SW Power Cap active once the card draws about 240 W".
# nvidia-smi reports SW Power Cap when the power controller lowers clocks to hold the draw at the enforced limit
# (nvidia-smi -q's Clocks Event Reasons), so a cap reached at a draw far below the limit is the board or chassis
# limiting power, not the GPU at its rated power. Not a limit set ("power cap: 250W", "power limit set to 288 W"):
# no draw is said.
_CAP_DRAW = re.compile(r"\b(?:SW Power Cap|sw_power_cap)\b(?:(?!\blimit\w*\b|-pl\b)[^.\n]){0,60}?"
                       r"\b(?:at|draws?|drawing|reach(?:es|ing)?|hits?)\s+(?:only\s+)?(?:about\s+|around\s+|"
                       r"approximately\s+|roughly\s+|~\s*)?(\d{2,4}(?:\.\d+)?)\s*(?:W|watts?)\b", re.I)


# (review37b) ... said of the reporter's own board: not of another card, machine or person's ("on my other machine, a
# 3060, SW Power Cap appears at 170W", "someone said SW Power Cap hits at 200 W on their 3080").
_CAP_ELSEWHERE = re.compile(r"\b(?:other|another|someone|somebody|their|his|her|forum|thread)\b", re.I)


def cap_draw(text: str) -> float | None:
    """The first draw (W) at which the reporter says SW Power Cap comes on on their own board, or None."""
    for sentence in sentences(text):
        m = _CAP_DRAW.search(sentence)
        if m and not _CAP_ELSEWHERE.search(sentence, 0, m.end()) and not asked(sentence):
            return float(m.group(1))
    return None


def _power_cap_only(sentence: str) -> bool:
    """Does the sentence show SW Power Cap active and no slowdown or thermal reason (what a board at its power limit
    shows by design under full load)?"""
    return bool(_POWER_CAP.search(sentence)) and not _OTHER_REASON.search(sentence)


def sentence_of(facts: Facts, c: Claim) -> str:
    """The whole sentence of the reporter's text that claim `c` was quoted from (its quote is cut at 50 characters);
    split as the claims were (sentences(), which keeps "2.5GT/s" whole), else as _said_sentence splits."""
    text, start = dict(texts(facts)).get(c.source, ""), c.quote.strip("…").strip()[:40]
    return next((s for s in sentences(text) if start in one_line(s)), None) or _said_sentence(text, c.quote)


def _said_sentence(text: str, quote: str) -> str:
    """The sentence of `text` a claim was quoted from (the quote itself where it is not found)."""
    at = text.find(quote.strip("…").strip()[:40])
    return _sentence_at(text, at) if at >= 0 else quote


# A clock figure is a throttle only below the GPU's own top clock: an H100 SXM "staying at 1980 MHz" runs at its
# maximum (cudaDeviceProp.clockRate 1980 MHz in the real captures), and GeForce boards boost above their rated
# clock. GPU Boost moves in 15 MHz bins and eases off a little with temperature long before any clocks-event
# reason is active, so a figure within 10 % of the top clock is the GPU running as designed
# (https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html).
AT_MAX_CLOCK = 0.9

# Two clocks are two peers' only with a GPU named before the first ("GPU0", "the slow card", "one A6000") and a peer
# after it ("GPU1", "the other three", "its neighbour"); one GPU idle against loaded, or its graphics against its
# memory clock, is no pair of peers.
_PEER_BEFORE = re.compile(r"\b(?:GPU|card|board|device|rank|cuda:?)\s*#?\d*s?\b|"
                          r"\bone\s+(?:\w+\s+)?[A-Z]{0,3}\d{3,4}\w*\b", re.I)
_PEER_AFTER = re.compile(r"\b(?:GPU|card|board|device|rank|cuda:?)\s*#?\d+\b|\bothers?\b|\bpeers?\b|\bneighbou?rs?\b|"
                         r"\b(?:the\s+)?rest\b|\bsecond (?:GPU|card|board)\b", re.I)
_NOT_PEERS = re.compile(r"\bidl(?:e|ing)\b|\b(?:memory|mem|VRAM|HBM)\s+clocks?\b", re.I)


# (issue 11, ut16h) Where the GPUs themselves sit ("GPU0 and GPU1 belong to different NUMA nodes", "my two cards are
# on different sockets") is the box's inventory, which `nvidia-smi topo -m`'s NUMA Affinity column gives
# (node.numa_placement reads it as context): no rank's CPU work is said to run on the far socket. Only a slowdown said
# beside it (the mixed-sockets wording in PATTERNS) makes it a claim.
_GPU_NOUN = r"\b(?:GPUs?|cards?|boards?|devices?)\s*#?\d*\b"
_GPUS_PLACED = re.compile(_GPU_NOUN + r"(?:[^.\n]{0,40}?\b(?:belong(?:s|ing)?\s+to|(?:are|is|sit|sits|located|reside|"
                          r"resides|attached|connected|plugged|installed|hang(?:s)? off)"
                          r"(?:\s+(?:to|on|in|into|at|under))?)|"
                          r"(?:[\s,\d-]|\band\b)*\s(?:on|in|across))\s+(?:the\s+|two\s+|2\s+)?$", re.I)
_SPEED_WORDS_NEAR = re.compile(r"\b(?:slow\w*|lower|worse|drops?|degrad\w*|latency|faster|halv\w*)\b", re.I)


def _gpus_placed(sentence: str, m: re.Match) -> bool:
    """Does the match say where GPUs sit ("GPUs that belong to different NUMA nodes"), with no speed in the sentence?"""
    return bool(_GPUS_PLACED.search(sentence[:m.start()])) and not _SPEED_WORDS_NEAR.search(sentence)


def _two_peers(sentence: str, m: re.Match) -> bool:
    before, after = sentence[:m.start(1)], sentence[m.end(1):]
    return bool(_PEER_BEFORE.search(before) and _PEER_AFTER.search(after) and not _NOT_PEERS.search(sentence))
_CLOCK_MHZ = re.compile(r"\b(\d{3,4}(?:\.\d+)?)\s*MHz\b", re.I)
# words that name a throttle whatever the figure: nvidia-smi's reasons and how people say a clock fell
_THROTTLE_WORDS = re.compile(r"\bthrottl\w*|\bslowdown\b|\bpower[- ]?(?:cap\w*|brake)\b|\bthermal\b|\boverheat\w*|"
                             r"\bdrop\w*|\bfall\w*|\bfell\b|\breduc\w*|\blower\w*|\bdown[- ]?clock\w*|"
                             r"降频|降到|功耗墙|温度墙|过热", re.I)


def _clock_figure(c: Claim, sentence: str, gpu) -> None:
    """A clock state claim that rests only on an MHz figure (no throttle words): at or near the GPU's own top
    clock (catalog max_clock_mhz) it is no throttle (kind clock_at_max); where the catalog has no top clock for
    the GPU, the claim says so (data max_clock_mhz None) for the rule to report."""
    m = _CLOCK_MHZ.search(sentence)
    if not m or any(not negated_words(sentence, w) for w in _THROTTLE_WORDS.finditer(sentence)):
        return  # (a throttle ruled out beside the figure, "no throttling seen, clocks stay at 1410 MHz", is none)
    mhz, top = float(m.group(1)), getattr(gpu, "max_clock_mhz", 0) or 0
    c.data.update({"mhz": mhz, "max_clock_mhz": top or None, "gpu": getattr(gpu, "key", None)})
    if top and mhz >= AT_MAX_CLOCK * top:
        c.kind = "clock_at_max"
    elif not top and _THROTTLE_WORDS.search(sentence):
        c.negated = True  # no top clock to judge the figure by: the reporter's own "no throttling" stands


def _asked_only(c: Claim, text: str) -> None:
    """A clock state named only inside a question ("Is the GPU throttling?") is what the reporter asks, not what
    they saw: the claim moves to the clock figure a statement of theirs gives ("sits at 1980 MHz under full
    load"), judged against the GPU's top clock, and the question is kept (data asked); with none it stays a
    guess."""
    for sentence in sentences(text):
        m = _CLOCK_MHZ.search(sentence)
        if m and not asked(sentence):
            c.data["asked"] = c.quote
            c.quote, c.guess = _quote(sentence, m), False
            return


# A limit within 15 % of the board's rated power is its default or close to it (health.throttling reads a
# lowered cap the same way).
LOWERED_LIMIT = 0.85


# The board's own power stated beside a lowered limit: "(default 350 W)", "of its 450 W TDP", "stock 320W".
# nvidia-smi -q's "Default Power Limit : 350.00 W" too. Not "max" or "normally": those describe the draw ("draws max
# 300 W"), and nvidia-smi's "Max Power Limit" is the top of the settable range, not the default.
_STATED_DEFAULT = re.compile(r"\b(?:default|rated|stock|factory|TDP|TGP)\b(?:\s+power)?(?:\s+limit)?"
                             r"(?:\s+(?:is|of|at|was))?\s*[:=]?\s*(\d{2,4}(?:\.\d+)?)\s*(?:W|watts?)\b|"
                             r"\b(\d{2,4}(?:\.\d+)?)\s*(?:W|watts?)\s+(?:default|TDP|TGP|rated|stock)\b", re.I)


def _power_limit(c: Claim, gpu) -> None:
    """A configured power limit set against the GPU's rated power (catalog tdp_w): well below it the claim stays
    power_limit (data watts, tdp_w); at or near it, or with no rated power to compare, it is power_limit_ok."""
    watts = float(c.data["groups"][0]) if c.data.get("groups") else 0.0
    tdp = getattr(gpu, "tdp_w", 0) or 0
    stated = _STATED_DEFAULT.search(c.quote)  # (issue 11 n) the reporter's own "default 350 W" beside the limit
    if not tdp and stated:
        tdp = float(stated.group(1) or stated.group(2))
    c.data.update({"watts": watts, "tdp_w": tdp or None, "gpu": getattr(gpu, "key", None),
                   "reference": "catalog" if getattr(gpu, "tdp_w", 0) else "stated" if tdp else None})
    if not (tdp and 0 < watts < LOWERED_LIMIT * tdp):
        c.kind = "power_limit_ok"


def claims(facts: Facts) -> list[Claim]:
    """Every claim found in the reporter's text, in order (negated ones flagged, not dropped)."""
    gpu = getattr(getattr(facts, "subject", None), "gpu", None)
    key = (id(facts), len(facts.records), getattr(gpu, "key", None))  # a clock figure is read against the GPU
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is facts:
        return cached[1]
    out: list[Claim] = []
    said = texts(facts)
    for source, text in said:
        for kind, patterns in PATTERNS.items():
            c = _first(kind, patterns, text)
            if c:
                c.source = source
                out.append(c)
        if not any(c.kind == "numa_words" and c.source == source and not c.negated and not c.guess for c in out):
            ab = binding_ab(text) or affinity_vs_binding(text)
            if ab:
                ab.source = source
                out.append(ab)
        ref = reference_rate(text)
        if ref:
            ref.source = source
            out.append(ref)
        if not any(c.kind == "one_slow" and c.source == source for c in out):
            slow = one_slow_ab(text) or ranks_together(text)
            if slow:
                slow.source = source
                out.append(slow)
        drivers = driver_change(text)  # (s24) the driver's releases said in prose: to the words' driver_change
        if drivers:
            worded = next((c for c in out if c.kind == "driver_change" and c.source == source), None)
            if worded:
                worded.data.update(drivers, worded=True)  # the words' own claim, now with its releases
            else:
                at = next(r for r in driver_releases(text) if r[0] in drivers["versions"])[1]
                m = re.compile(r"\S+").search(text, at)
                out.append(Claim("driver_change", source, _quote(text, m, 80), drivers))
        named = nccl_versions(text)  # read once: the figures, the A/B and the engine's releases all start from it
        figured = version_figures(text, named)
        versions = figured or named
        if (figured or (len(versions) >= 2 and (_versions_contrasted(text, named) or failure_ab(text, named)))) \
                and not nccl_unchanged(text, named):
            m = re.search(r"\bNCCL\b|\blibnccl", text, re.I)
            out.append(Claim("nccl_versions_compared", source, _quote(text, m, 120), {"versions": versions}))
        # NCCL's own releases: nccl_versions_compared; one NCCL said unchanged beside two engine releases
        # ("NCCL is 2.20.5 in both images") leaves the engine as what changed (issue 11 s)
        engine_versions = None if named and not nccl_unchanged(text, named) else _engine_versions(text)
        # (one release named: engine_moved_to read the change and what it did)
        # kind: "releases" (two named), "moved" (one named, the other the release before; good: the one gone back to
        # when that cured it), "commit" (a PR or commit the slowdown was pinned on); each worded from its kind
        works = release_works(text)  # (mend2_25) "was OK on v0.5.3, broken since 0.6.0": the one said to work
        if engine_versions and (engine_versions[3] == "moved" or _change_worded(text) or _BISECTED.search(text)
                                or engine_failure_ab(text, engine_versions[1]) or behaviour_lost(text)):
            # good: the release that works, as the words that move between them say (release_direction)
            good = engine_versions[4] if engine_versions[3] == "moved" else \
                release_direction(text, engine_versions[1])
            if good is None and works and works[1] in engine_versions[1]:
                good = works[1]
            figures = release_figures(text, engine_versions[1])
            # (rel25) one release moved to, its rate told as a time line ("dropped from 40 to 25 tok/s", "it used to
            # be 60"): the figure said of before is the build before the change's, the other one the release's
            timeline = moved_timeline(text, engine_versions[1][0]) if engine_versions[3] == "moved" and not good else {}
            if timeline:
                figures = {engine_versions[1][0]: timeline["after"]}
            out.append(Claim("engine_versions_compared", source, engine_versions[2], {
                "engine": engine_versions[0], "versions": engine_versions[1], "kind": engine_versions[3],
                "good": good, "figures": figures, "before": timeline.get("before"),
                # the good release as written, with its suffix, for the fix to pin ("0.6.6.post1")
                "pin": works[3] if works and good == works[1] else good}))
        elif not named and (ab := works_vs_failing(text, works)):
            out.append(Claim("engine_versions_compared", source, ab[2], {
                "engine": ab[0], "versions": ab[1], "kind": "releases", "good": ab[1][1],
                "figures": release_figures(text, ab[1]), "pin": works[3]}))
        elif not named and (bisected := code_change_regression(text)):
            out.append(Claim("engine_versions_compared", source, bisected[2], {
                "engine": bisected[0], "versions": bisected[1], "kind": "commit", "good": None,
                "figures": code_change_figures(text) or ab_table_figures(text)}))
        elif not named and (pair := commits_compared(text)):
            out.append(Claim("engine_versions_compared", source, pair[2], {
                "engine": pair[0], "versions": pair[1][:1], "kind": "commit", "good": pair[1][1], "figures": {}}))
        if works:  # (mend2_25) the release to pin, in any answer's fix
            out.append(Claim("release_works", source, works[2], {"engine": works[0], "release": works[3]}))
        handed = advised_lines(text)  # (left27) exports under "you may:" / "试试...": advice, not in use
        for m in _SETTING.finditer(text):
            value = m.group(2).rstrip(".:")
            sentence = _sentence_at(text, m.start())
            removed = bool(_TAKEN_OFF.match(text, m.end()))  # "works with NCCL_P2P_DISABLE=1 removed": not in use
            # "we do not set X=1", "X=1 is not set": not in use, and no workaround; "without X=1 it hangs" keeps its
            # effect (the setting is what works), though it is not in use either
            off = setting_off(text, m.start(), m.end())
            at, line_handed, ordered, advised = _advice_at(text, m.start(), m.group(0), sentence, handed)
            effect, answered = _tried_effect(text, m.start(), m.group(0), sentence, at, advised, removed)
            if answered:  # the advice was followed: the setting was in use ("I did and it works now" keeps "fixes")
                off = line_handed = ordered = False
            # (past45) advice the writer took up in the same sentence ("You can set X=1, so we run with it"): in use,
            # as the launch parser reads it (launch.ADOPTED_AFTER), or in the next ("We run with it as suggested.")
            adopted = not removed and not off and (bool(ADOPTED_AFTER.match(text[m.end():m.end() + 80])) or (
                answered and bool(ADOPTED_NEXT.match(_answered_advice(text, m.start()) or ""))))
            without = re.search(r"\bwithout\W*$", text[max(0, m.start() - 12):m.start()], re.I)
            if off and effect == "fixes" and not without:
                effect = None
            # (s21) nor one supposed: "if NCCL_P2P_DISABLE is set to 1, communication ... uses shared memory"
            # (NVIDIA/nccl#631) says what the setting would do, not that it is set ("when X=1 it hangs" is seen)
            supposed = ordered or (at >= 0 and bool(_IF_CLAUSE.search(sentence[:at])))
            tried = removed or off or line_handed or tried_only(sentence, effect, at, len(m.group(0))) or (
                effect != "fixes" and not adopted and (guessed(sentence, at) or supposed or _governs(
                    _NOT_TRIED_YET, sentence, at, len(m.group(0)))))  # advised, untried
            out.append(Claim("setting", source, _quote(text, m, 30), {"name": m.group(1), "value": value,
                                                                     "effect": effect, "tried": tried}))
        out += remedies(source, text, handed)
        m = _SMI_SLOW.search(text)
        # (negated inside, "nvidia-smi does not take 30 s", or before it as any claim is: "It is not true that ...")
        if m and not re.search(r"\b(?:not|never|no longer)\b|n't\b", m.group(0)[:m.start(1) - m.start()], re.I) \
                and not _negated("", text, m):
            out.append(Claim("nvidia_smi_slow", source, _quote(text, m), {"seconds": smi_seconds(m)}))
        read_to = 0  # the end of the last figure read (a range's top is part of it)
        spans: list[tuple[int, int]] = []  # the text of every figure read
        util_sentences: set[int] = set()  # the starts of sentences that gave a figure (a per-card contrast reads on)
        busy_at: list[tuple[int, int, float]] = []  # (start, end, percent) of each busy or idle share read
        bare = [(m, "n") for m in _UTIL_BARE.finditer(text)]
        for m, number in sorted([(m, None) for m in _UTIL.finditer(text)] + bare, key=lambda x: x[0].start()):
            number = number or next(i for i in range(1, len(m.groups()) + 1) if m.group(i))
            if m.start(number) < read_to:
                continue  # the top of a range already read, or one figure two patterns found
            pct = 0.0 if m.group(number).lower() == "zero" else float(m.group(number))
            lead = text[max(0, m.start() - 12):m.start(number)]
            low = next((float(g) for r in [_RANGE_BEFORE.search(lead)] if r for g in r.groups() if g), None)
            top = _RANGE_AFTER.match(text, m.end()) or (
                re.search(r"\bbetween\s+$", lead, re.I) and _RANGE_AND_AFTER.match(text, m.end()))
            if low is None and top and float(top.group(1)) > pct:
                low, pct, read_to = pct, float(top.group(1)), top.end()
            else:
                read_to = m.end()
            spans.append((m.start(), read_to))
            if low is not None and low >= pct:
                low = None
            if _OTHER_PROCESS.search(_CLAUSE_SPLIT.split(text[max(0, m.start() - 60):m.start(number)]
                                                          .rsplit("\n", 1)[-1])[-1]):
                continue  # "Xorg uses 10 % of the GPU": another program's share
            if _MEMORY_UTIL.search(text[max(0, m.start() - 12):m.start()]):
                continue  # "GPU memory utilization is 0%": nvidia-smi's utilization.memory, not GPU-Util
            if _MEMORY_BEFORE_FIGURE.search(text, m.start(), m.start(number)):
                continue  # "GPU usage: dedicated GPU memory ~80-90%": how full its memory is, not busy time
            if _NOT_UTIL.search(text[max(0, m.start() - 40):m.end()].rsplit("\n", 1)[-1]):
                continue  # "scaling efficiency with 8 GPUs is only 60 %": a ratio of speeds, not busy time
            if cpu_figure(text[max(0, m.start() - 60):m.start(number)]
                          .rsplit("\n", 1)[-1].rsplit(". ", 1)[-1], m.group(0)):
                continue  # "one CPU core consistently reaches 100% utilization": the CPU's load, not the GPU's
            if _NOT_BUSY_AFTER.match(text[m.end():m.end() + 30]):
                continue  # "each GPU uses 90 % of its memory": a share of memory, not busy time
            if pct < 50 and _IDLE_STATE.search(_figure_clause(text, m.start(number))):
                continue  # "drops to 0 % between requests": an idle GPU, not a low share of a running job
            if _CHANGE_BY.search(text[max(0, m.start() - 30):m.start(number)].rsplit("\n", 1)[-1]):
                continue  # "utilisation dropped by 30 %", "利用率下降了 30%": how much it changed, not its level
            if 0 <= pct <= 100:
                before = text[max(0, m.start() - 30):m.start(number)].rsplit("\n", 1)[-1]
                bound = _UTIL_BOUND.search(before)
                # "never reaches 100 %" rules a reading out; "never goes above 20" is a ceiling far below full, a low
                # share affirmed as "stays below 20 %" is (mend2_25)
                never = bool(bound and bound.group("not")) and pct >= 80
                # (para38b) a bound at full said without "not", "stays under 100 %", "below 100%": the same ceiling
                # short of full ("will not reach 100 %", s018), not a reading of 100 %
                never = never or bool(bound) and pct >= 90
                data = {"percent": pct, "below": bool(bound)}
                if low is not None:
                    data["low"] = low
                out.append(Claim("gpu_util", source, _quote(text, m, 40), data, negated=never))
                util_sentences.add(sentence_start(text, m.start()))
                if not never and (pct >= SWING_BUSY or pct <= SWING_IDLE):
                    busy_at.append((m.start(number), read_to, pct))
                if never and pct >= 90:  # "never reaches 100 %": by NVML's definition, time with no kernel running
                    out.append(Claim("gpu_idle_words", source, _quote(text, m, 40), {"groups": []}))
        for m, later in (*((m, False) for m in _UTIL_OTHER_CARD.finditer(text)),
                         *((m, False) for m in _UTIL_CONTRAST.finditer(text)),
                         *((m, True) for m in _UTIL_LATER.finditer(text))):
            # "... 100% on one card and 0% on the other", "... around 60-70% at 00:00, but it drops to 50-60%"
            number = 2 if later else next(i for i in range(1, m.re.groups + 1) if m.group(i))
            if any(a <= m.start(number) < b for a, b in spans) \
                    or sentence_start(text, m.start()) not in util_sentences:
                continue
            pct = float(m.group(number))
            if pct < 50 and _IDLE_STATE.search(_figure_clause(text, m.start(number))):
                continue  # "drops to 0 % between requests": an idle GPU
            if _NOT_BUSY_AFTER.match(text[m.end(number):m.end(number) + 40].lstrip("% ")):
                continue  # "one is 30% slower than the other", "drops to 40% of its memory": not busy time
            data = {"percent": pct, "below": False}
            if later and m.group("low") and float(m.group("low")) < pct:
                data["low"] = float(m.group("low"))
            if pct <= 100:
                out.append(Claim("gpu_util", source, _quote(text, m, 40), data))
                spans.append((m.start(number), m.end(number)))  # one figure read once, whichever pattern found it
        swing = util_swing(text, busy_at)
        if swing:
            out.append(swing_claim(source, text, *swing))
    for n in facts.of(Note):
        if n.kind != OUTPUT_KIND or not n.text:
            continue
        for kind in OUTPUT_FAMILIES:
            c = _first(kind, PATTERNS[kind], spaced(_one_gpu_waivers_out(n.text) if kind == "no_p2p" else n.text))
            if c and not c.negated:
                c.source, c.guess = n.source, False
                c.data["origin"] = "output"
                out.append(c)
    out.extend(temperatures(said))
    out.extend(release_blocks(facts))
    out.extend(profiler_busy(facts))
    _CACHE.clear()
    by_source = dict(said)
    for c in out:
        if c.kind == "clock_power" and not c.negated and _idle(by_source.get(c.source, ""), c.quote):
            c.kind = "idle_state"  # low clocks or P8 while nothing runs: the driver's power saving, not a throttle
        elif c.kind == "clock_power" and not c.negated:
            sentence = _said_sentence(by_source.get(c.source, ""), c.quote)
            if c.guess and asked(sentence):
                _asked_only(c, by_source.get(c.source, ""))  # "Is the GPU throttling?": the question, not evidence
                sentence = _said_sentence(by_source.get(c.source, ""), c.quote)
            _clock_figure(c, sentence, gpu)
            c.data["power_cap_only"] = _power_cap_only(sentence)
            draw = cap_draw(by_source.get(c.source, ""))
            if c.data["power_cap_only"] and draw:
                c.data["cap_draw_w"] = draw
            if c.data.get("asked") and c.kind == "clock_power" and not c.data.get("max_clock_mhz"):
                c.guess = True  # a figure with no top clock to set it against leaves the question open
        elif c.kind == "power_limit":
            _power_limit(c, gpu)
        elif c.kind == "clock_peers":
            low, high = sorted(float(g) for g in c.data["groups"][:2])
            c.data.update({"low_mhz": low, "high_mhz": high})
            if low >= AT_MAX_CLOCK * high:
                c.kind = "clock_peers_ok"
    # NCCL prints its fabric hint after every failed NVLS bind, whatever the CUDA error (src/transport/nvls.cc, 2.29
    # in the threads that quote it); where the bind failed for memory ('out of memory': the NVSwitch's multicast slots
    # or the device's memory, NVIDIA/nccl#2077 on a fabric whose State is Completed) the hint names no fabric failure
    if any(c.kind == "fabric_setup" for c in out):
        shown = "\n".join([t for _, t in said] + [n.text for n in facts.of(Note) if n.text])
        if _NVLS_OOM.search(shown):
            out = [c for c in out if not (c.kind == "fabric_setup" and _NVLS_HINT.search(c.quote or ""))]
    _CACHE[key] = (facts, out)
    return out


_NVLS_HINT = re.compile(r"usually caused by a system or configuration error", re.I)
_NVLS_OOM = re.compile(r"\b(?:Failed to bind NVLink SHARP|nvls\.cc)\b[^\n]{0,120}?out of memory", re.I)
_CACHE: dict = {}
_UTIL = re.compile(
    # (the unit said twice, "0% percentage GPU-Util": https://github.com/neptune-ai/open-solution-salt-identification/issues/21)
    r"\b(\d{1,3}(?:\.\d+)?)\s*%\s*(?:percent(?:age)?\s+)?(?:GPU[- ]?|volatile\s+)?"
    r"(?:util\w*|usage|load|busy|occupancy|occupation)\b|"
    # (hostbound37) "GPU loading: 20%" beside "CPU loading: >90%" (tensorflow/nmt#110): loading is load
    r"\b(?:GPU[- ]?util\w*|GPU usage|GPU load(?:ing)?|utili[sz]\w*|GPU-Util)\b[^.\n%]{0,30}?\b(\d{1,3}(?:\.\d+)?)\s*%|"
    # (left26) a swing's range further from its subject: "the GPU utilization is always fluctuating between 0% and 100%"
    # (keras-team/keras#7351)
    r"\b(?:GPU[- ]?util\w*|GPU usage|GPU load|utili[sz]\w*|GPU-Util)\b[^.\n%]{0,25}?"
    r"\b(?:fluctuat\w*|oscillat\w*|swing\w*|jump\w*|bounc\w*)\s+between\s+(\d{1,3}(?:\.\d+)?)\s*%|"
    # "the GPU only uses 10%", "each GPU is at 40%" (not its memory, fan, power or temperature); a card or "the other
    # one" named as the GPU is ("the other card is at 100%", "one of my gpu was peaking while the other one runs
    # quietly", https://github.com/karpathy/char-rnn/issues/232; "GPU-0 runs at 100% ... while GPU-1 is idle",
    # https://github.com/ollama/ollama/issues/11917)
    r"\b(?:GPUs?|(?<!network )(?<!sound )(?<!SD )cards?|the other(?: one)?)\b"
    # (para38) nor its clock said as a frequency: "warming up GPU until SM frequency is 100%"
    r"(?![^.\n%]{0,25}?\b(?:memory|VRAM|mem|fan|power|temp\w*|clock\w*|freq\w*)\b)[^.\n%]{0,20}?"
    # (mend2_25: the past tense and a range, "the GPUs stayed at 2-5%": _util_range reads its low end)
    r"\b(?:uses?|used|using|is(?: at)?|are(?: at)?|was(?: at)?|were(?: at)?|runs? at|"
    r"(?:sits?|sat|stays?|stayed|remains?|remained|"
    r"hover(?:s|ed|ing)?)(?: at| around)?|shows?|reach\w*|only)\s+"
    r"(?:only\s+|about\s+|around\s+|~)?(?:at\s+)?(?:less than\s+|under\s+|below\s+|more than\s+)?"
    r"(?:\d{1,3}\s*%?\s*(?:-|–|~|to)\s*)?(\d{1,3}(?:\.\d+)?)\s*%|"
    # nvidia-smi's GPU-Util as Chinese reporters name it ("利用率很低，3%", "使用率 100%"; 显存占用 is memory)
    # (not the CPU's, the RAM's, a link's bandwidth or memory: "CPU利用率 100%", "内存使用率", "带宽利用率")
    r"(?<!显存)(?<!内存)(?<!带宽)(?<!CPU)(?<!CPU )"
    # (para38) and its load, as "GPU load" above: "GPU 负载率最高只能到 50%" (GPU-Z's "GPU 负载"; not "CPU负载")
    r"(?:利用率|使用率|GPU\s*占用率?|(?:GPU|显卡)\s*负载率?)[^\n%。;；]{0,12}?(\d{1,3}(?:\.\d+)?)\s*%",
    re.I)
# A change, not a level: "dropped by 30 %", "went up by 20 %", Chinese "下降了 30%", "提高了 20%" (but "dropped to
# 30 %" is the level it reached).
_CHANGE_BY = re.compile(r"\b(?:drop\w*|fell|fall\w*|decreas\w*|increas\w*|ris\w*|rose|went (?:up|down)|"
                        r"improv\w*|reduc\w*|grew|grow\w*|climb\w*)\s+(?:by\s+)?(?:about\s+|around\s+|~)?$|"
                        r"\bby\s+(?:about\s+|around\s+|~)?$|"
                        r"(?:下降|降低|减少|提高|提升|增加|上升)\s*了?\s*(?:约|大约)?\s*$", re.I)
# A share of something else after the figure: "90 % of its memory", "60 % of the VRAM", "30 % fan".
_NOT_BUSY_AFTER = re.compile(r"\s*(?:of\s+(?:its|the|their|each|all|total)?\s*(?:GPU\s+)?)?"
                             # (mend2_25: a share of the board's power, "at 30% of TDP", nvidia-smi's Pwr:Usage/Cap)
                             r"(?:memory|VRAM|mem|fan|power|capacity|KV[- ]?cache|TDP|TGP|TBP|wattage|power\s+limit)\b|"
                             # a share of memory said as how full it is: "the GPU is 90% full / allocated"
                             r"\s*(?:full|allocated|occupied|filled)\b|"
                             # a share compared, not a level: "the GPU remains 30% slower than one card"
                             r"\s*(?:slower|faster|lower|higher|less|more|worse|better|smaller|larger|bigger)\b",
                             re.I)
# (review2_25) nvidia-smi's memory utilisation (utilization.memory: the share of time device memory was read or
# written, nvidia-smi's documentation) named before the figure's word: "GPU memory utilization is 0%"
# (rmrao/msa-transformer#1), "memory-util 40%".
_MEMORY_UTIL = re.compile(r"\b(?:memory|mem|VRAM)[\s_-]*$", re.I)
# (known46b) ... and a memory share right before the figure, after the GPU's own word: "GPU usage" names the whole
# board's use, of which memory is one part, and the share after "memory" is how full it is (nvidia-smi's memory.used
# over memory.total), not GPU-Util (utilization.gpu, "percent of time ... one or more kernels was executing":
# nvidia-smi --help-query-gpu). So people write it: "GPU Usage: Memory 45.0% (threshold: 10%), Compute 12.0%"
# (find_string id 10837830219), "GPU usage: memory=...MB, utilization=...%" (id 56710955469), "Get GPU usage: VRAM used
# (in MB) and GPU MHz" (id 24306658758), "Live GPU usage: memory, load, temperature and power" (id 71285718134);
# Windows' Task Manager shows "Dedicated GPU memory" beside its GPU graph ("GPU usage: dedicated GPU memory ~80-90%").
# (s46 final read) Not a label that pairs two shares, "GPU Usage (Compute/Memory): 30% / 92%" (the first is compute's),
# nor memory set aside, "GPU utilization on both cards (not memory): 30%": no ")" or "/" between memory and the figure,
# and no memory word after not, no or excluding.
_MEMORY_BEFORE_FIGURE = re.compile(r"(?<!\bnot\s)(?<!\bno\s)(?<!\bexcluding\s)\b(?:memory|mem|VRAM)\b[^\w%)/]{0,4}"
                                   r"(?:(?:usage|used|use|load|util\w*|occupancy)\b[^\w%)/]{0,4})?"
                                   r"(?:\d{1,3}(?:\.\d+)?\s*%?\s*(?:-|–|~|to)\s*)?$", re.I)
# Percentages of other things said beside the GPUs: scaling efficiency, speed-up, MFU.
_NOT_UTIL = re.compile(r"\b(?:scal\w*|efficien\w*|speed-?ups?|MFU|MBU)\b", re.I)
# A load figure whose clause names the CPU (or one of its cores or threads) and no GPU before it is the CPU's: "one CPU
# core consistently reaches 100% utilization" (turboderp-org/exllamav3#97), "the CPU utilization rate is 100%, and the
# GPU SM utilization rate is only about 60%-75%" (vllm-project/vllm#4806: the 100 % is the CPU's, the 60 % the GPU's).
# The clause ends at a comma, semicolon, "and", "but", "while" or "whereas"; a GPU named inside it owns the figure
# ("the CPU is idle and GPU usage is 40%", "CPU usage 98.5 %, GPU-Util 4 %").
_CLAUSE_SPLIT = re.compile(r"[,;:()]|\b(?:and|but|while|whereas)\b", re.I)
_CPU_NAMED = re.compile(r"\b(?:v?CPUs?|processors?|cores?|threads?)\b", re.I)
_GPU_NAMED = re.compile(r"\b(?:GPUs?|cards?|SMs?|CUDA)\b|GPU-Util", re.I)


def cpu_figure(clause_before: str, match: str) -> bool:
    """Whether a load figure belongs to the CPU: the clause before it names the CPU, a core or a thread, and neither it
    nor the figure's own words name a GPU."""
    clause = _CLAUSE_SPLIT.split(clause_before)[-1]
    return bool(_CPU_NAMED.search(clause)) and not _GPU_NAMED.search(clause) and not _GPU_NAMED.search(match)
# A utilisation figure that is a bound, not a reading ("below"/"under 50 %": data["below"]). "Will not reach
# 100 %", "never goes above 60 %" (a verb of reaching negated; "is not low, it stays at 99 %" is a reading) rule
# the figure out (negated, so rules that read high figures skip it); "stays below 50 %" affirms a low share,
# which the low-utilisation rules read as one (its true value is lower still).
_UTIL_BOUND = re.compile(r"(?P<not>(?:\b(?:not|never|cannot)\b|n't\b)\s+(?:\w+\s+){0,2}?"
                         r"(?:reach|hit|get|go|exceed|rise|climb|above|over|past|beyond|more than|higher than)\w*\b"
                         r"[\w\s]{0,12}$)|"
                         r"\b(?:below|under|less than|lower than|at most)\s+(?:~|about\s+|around\s+)?$|"
                         # (review2_25) the sign: "really low (<20 %)" (yuhuixu1993/PC-DARTS#48)
                         r"(?:<|≤|&lt;)\s*$|"
                         # (mend2_25) in Chinese: 不超过 "not above", 不到 / 低于 / 小于 "below", 最多 "at most"
                         r"(?:不超过|不到|低于|小于|最多)\s*$", re.I)
# (mend2_25) A utilisation said as a range, as people read nvidia-smi's moving GPU-Util column: "the GPUs stayed at
# 2-5%", "hovers around 30-40%", "30%~40%", "between 30 and 40%". One reading: its top as data["percent"] (what a rule
# that asks "is it low?" may rely on), its bottom as data["low"]. "From 90 to 30 %" is a change, not a range.
# (review26) and in Chinese, 到 / 至 "to": "GPU 使用率一直在30%到60%之间" (stanleylsx/entity_extractor_by_ner#6)
_RANGE_BEFORE = re.compile(r"(?<!from )(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*%?\s*(?:-|–|~|to|到|至)\s*$|"
                           r"\bbetween\s+(\d{1,3}(?:\.\d+)?)\s*%?\s+and\s+$", re.I)
_RANGE_AFTER = re.compile(r"\s*(?:-|–|~|to|到|至)\s*(\d{1,3}(?:\.\d+)?)\s*%")
# (review26) ... and its top after "between X% and": "GPU utilization is jumping between 12% and 95%"
# (keras-team/keras-applications#146) is one range, not a GPU at 12 %
_RANGE_AND_AFTER = re.compile(r"\s+and\s+(\d{1,3}(?:\.\d+)?)\s*%")
# (mend2_25) nvidia-smi's column named and its figure written bare, without "%": "GPU-Util never goes above 20", "the
# GPU-Util is usually 0", "gpu util = 0", "GPU-util is always zero". Only the GPU's own column or share names it (not
# "--gpu-memory-utilization 0.9"), the words between are the few that lead to a figure, and a unit after the figure
# makes it something else ("GPU util of 4 GPUs", "0.95").
_UTIL_BARE = re.compile(r"\b(?:volatile\s+)?GPU[- ]?Util(?:i[sz]ation)?\b(?:\s+rate)?"
                        r"(?:\s*[=:]|\s+(?:is|was|are|were|stays?|stayed|remains?|remained|usually|always|only|never|"
                        r"constantly|mostly|goes|go|went|gets?|got|above|over|beyond|past|at|around|about|keeps?|kept|"
                        r"reach(?:es|ed)?|exceeds?|exceeded|even|just|still|shows?|showed|of))*\s*(?P<n>\d{1,3}|zero)\b"
                        r"(?!\s*(?:%|\.\d|[GMK]i?B\b|W\b|C\b|°|x\b|ms\b|s\b|tok|t/s|MHz|GPUs?\b|cards?\b|"
                        r"nodes?\b))", re.I)
# (mend2_25) The second card of a per-card contrast, its figure before the card: "GPU usage is 100% on one card and 0%
# on the other", "... and 0% for GPU1". Read only in a sentence that already gave a GPU utilisation figure.
_UTIL_OTHER_CARD = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*%\s+(?:on|for|in)\s+(?:the\s+)?"
                              r"(?:other|second|another|remaining|rest)(?:\s+(?:one|ones|GPUs?|cards?))?\b|"
                              r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*%\s+(?:on|for|in)\s+(?:GPU|card|device)\s*#?\d+\b"
                              r"|"
                              # ... or the card named "one" beside "the other": "when one is 30%, the other is
                              # around 70%"
                              r"\bone\s+(?:is|was|sits\s+at|stays\s+at|runs\s+at)\s+(?:at\s+)?(?:around\s+|about\s+|~)?"
                              r"(\d{1,3}(?:\.\d+)?)\s*%(?=[^.\n]{0,40}\bthe\s+other\b)", re.I)
# (para37) The other side of a contrast, its noun left out after the first figure named it: "the LLM class gets 90~100%
# GPU utilization; the API server only 50%", "keeps the card 90-100% busy, but through the server it only gets to
# about 50%", "... while with TP=2 just 40%". Read only in a sentence that already gave a GPU utilisation figure, after
# a contrast word and "only"/"just"/"barely", with no other quantity named on the way ("but memory only 50%", "yet
# throughput only 60% of that") and none after the figure ("only 50% of the tokens").
_UTIL_CONTRAST = re.compile(r"(?:[;,]|\b(?:but|while|whereas|yet|vs\.?|versus))\s+"
                            r"(?:(?!\b(?:memory|VRAM|CPU|RAM|throughput|speed|bandwidth|tok\w*|scaling|efficiency|"
                            # (review37b) and the other measures engines and profilers give as a share: the KV
                            # cache's usage, SM occupancy or activity, MFU/MBU, a batch's fill, a hit or acceptance rate
                            r"power|fan|disk|network|latency|rate|usage|cache|KV|occupancy|SM|MFU|MBU|batch\w*|"
                            r"tensor\s+cores?|hit|acceptance|share)\b)[^.;\n%]){0,50}?"
                            r"\b(?:only|just|barely)\s+(?:(?:gets?|got|reach(?:es|ed)?|hits?|hit|at|uses?|used|"
                            r"utili[sz]es?|to)\s+){0,2}(?:about\s+|around\s+|~\s*)?(\d{1,3}(?:\.\d+)?)\s*%"
                            r"(?!\s*(?:of|slower|faster|more|less|lower|higher)\b)", re.I)
# (mend2_25) A later level of the same sentence's utilisation, reached by a move: "the utilization rate is around 60-70%
# at 00:00, but it drops to 50-60% by 15:00" (a level, not "dropped by 30 %", which _CHANGE_BY leaves out).
# (review26) and the end of a change said "from X% to Y%": "a decrease in GPU utilization from 94% to 56% when
# concurrent requests increase from 1 to 100" (vllm-project/vllm#6105) leaves the GPU at 56 %, not 94 %
_UTIL_LATER = re.compile(r"(?:\b(?:drops?|dropped|dropping|falls?|fell|goes|went|rises?|rose|climbs?|climbed|jumps?|"
                         r"jumped|turns?|turned)\s+(?:down\s+|up\s+|back\s+)?|"
                         r"\bfrom\s+\d{1,3}(?:\.\d+)?\s*%\s+)to\s+(?:only\s+|about\s+|around\s+|~\s*)?"
                         r"(?:(?P<low>\d{1,3})\s*%?\s*[-–~]\s*)?(\d{1,3}(?:\.\d+)?)\s*%", re.I)
# (mend2_25) A figure whose clause names another program using the GPU is that program's, not the job's: "Xorg uses
# 10 % of the GPU", "another process keeps GPU0 at 100 %".
_OTHER_PROCESS = re.compile(r"\b(?:another|other|different|separate|unrelated)\s+(?:process|program|application|app|"
                            r"job|container|user|workload)s?\b|\b(?:Xorg|gnome-shell|desktop|browser|chrome|firefox|"
                            r"games?)\b", re.I)
# What a setting did, as the sentence around it says: "setting NCCL_P2P_DISABLE=1 works around it".
_FIXES = re.compile(r"\b(?:unless|only (?:\w+\s+)?with|work(?:s|ed)?(?:[- ]?around)?|fix\w*|solv\w*|resolv\w*|avoid\w*|"
                    r"helps?|helped|no longer|"
                    r"succeed\w*|passes|runs? (?:fine|normally|ok)|(?:it|that|this|then) runs|"
                    # (review37) "The script runs without any errors when i set ..." (NVIDIA/nccl#1769)
                    r"(?:runs?|ran|works?|worked|completes?|completed) without (?:any )?(?:errors?|issues?|problems?)|"
                    # (ut28e) "When I add `NCCL_CUMEM_HOST_ENABLE=0`, the test can pass" (NVIDIA/nccl#1838): a test, a
                    # job or it passing, with nothing passed on ("passed to the engine", "the test can pass the
                    # machine in" pass an object)
                    r"(?:test|tests|job|it)\s+(?:(?:can|could|will|now|then)\s+)?pass(?:ed)?"
                    r"(?=\s*(?:[.,;!)]|$|\s(?:now|again|fine|successfully|with|when|after|on)\b))|"
                    r"(?:launch|start|load|boot|come)(?:s|es|ed)?(?: up)? (?:fine|ok|okay|normally|successfully|"
                    r"reliably|every time|each time|now)|"
                    r"go(?:es)? away|went away|disappear\w*|gone|"
                    # (review48) the stuck job said to start once the setting was made: "The training started after I
                    # set export NCCL_P2P_DISABLE=1" (brandleyzhou/DIFFNet#10); a failure that starts ("the hang
                    # started after ...") has no such subject
                    r"(?:training|job|run|process|inference|server|it)\s+(?:finally\s+|then\s+)?"
                    r"(?:started|starts|began|begins)\s+(?:after|once|when)\b|"
                    # (review50) what made the stuck job run: "the only one that made it run was setting
                    # NCCL_P2P_DISABLE=1" (tests/data/paraphrases n021 -e); not what made it hang or fail
                    r"(?:made|makes|make|got|gets)\s+(?:it|the\s+(?:job|training|run|test|server))\s+(?:to\s+)?"
                    r"(?:run|work|start|running|working)\b)\b|"
                    # (para37b) in Chinese: 就能跑 / 才能正常运行 "then it runs", 就好了 "then it is fine"
                    r"(?:就|才)(?:能|可以)(?:正常)?(?:跑|运行|训练|推理)|就好了", re.I)
# "did not help", "didn't fix", "didnt work"
_NOT_BEFORE = re.compile(r"(?:\b(?:not|never)|" + NOT_ENDING + r")\s+$", re.I)
_WORSENS = re.compile(r"\b(?:slow\w*|low(?:er)? (?:speed|bandwidth|performance)|hang\w*|fail\w*|crash\w*|worse)\b",
                      re.I)


# A condition open before a setting: "if NCCL_P2P_DISABLE is set to 1, ..." supposes it ("when X=1 it hangs" is seen).
_IF_CLAUSE = re.compile(r"\b(?:if|unless|whether)\b[^,;:]*$", re.I)


# A setting run once to compare ("we also tried NCCL_IB_DISABLE=1 for comparison", "as an experiment I set ...") or
# tried and dropped because it was slower or did not help: the job runs with another setting.
_FOR_COMPARISON = re.compile(r"\b(?:for comparison|to compare|as an? (?:experiment|test|comparison)|"
                             r"just to (?:see|check|test)|out of curiosity)\b", re.I)
_TRIED = re.compile(r"\b(?:tried|tested|experimented)\b", re.I)


def tried_only(sentence: str, effect: str | None, at: int = -1, size: int = 0) -> bool:
    """Was a setting in `sentence` (at `at`, `size` characters, where known) only tried, for comparison or with a
    worse result, not kept (a setting that fixed the problem stays in use)?"""
    if effect == "fixes":
        return False
    return bool(_governs(_FOR_COMPARISON, sentence, at, size) or effect == "no_help"
                or (effect == "worse" and _TRIED.search(sentence)))


# (fr45) A named thing other than a setting's own words: another setting or variable (NCCL_IB_DISABLE), a flag
# (--enforce-eager), a release (NCCL 2.21.5, on 2.18.1).
_NAMED_THING = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|(?<![\w-])--?[a-z][\w-]+|"
                          r"\b[A-Za-z][\w.-]*\s+v?\d+(?:\.\d+)+\b")


def _governs(words: re.Pattern, sentence: str, at: int, size: int) -> bool:
    """(fr45) Do `words` ("have not tried", "for comparison") in `sentence` speak of the setting at sentence[at:at +
    size]? Not where another named thing sits between them and it ("We run with X=1 on NCCL 2.18.1 and also ran NCCL
    2.21.5 for comparison"), nor where another named thing is what they take right after them ("... and have not
    tried NCCL_IB_DISABLE yet"). Anywhere in the sentence where the setting's place is not known."""
    if at < 0:
        return bool(words.search(sentence))
    end = at + size
    for w in words.finditer(sentence):
        later = w.start() >= end
        gap = sentence[end:w.start()] if later else sentence[w.end():at]
        if _NAMED_THING.search(gap) and not _LIST_ONLY.fullmatch(_NAMED_THING.sub("", gap)):
            continue  # another thing between, not a list with the setting in it ("not tried X=1 or Y=1")
        if later and _NAMED_THING.match(sentence, len(sentence) - len(sentence[w.end():].lstrip())):
            continue  # they take another thing
        return True
    return False


_LIST_ONLY = re.compile(r"(?:[\s,/]|\band\b|\bor\b|\bnor\b|=\S*)*", re.I)


# A setting said taken off right after it: "with NCCL_P2P_DISABLE=1 removed", "NCCL_P2P_LEVEL=LOC unset".
_TAKEN_OFF = re.compile(r"(?<!\s)\s+(?:is\s+|was\s+)?(?:removed|unset|dropped|deleted|taken out|commented out)\b", re.I)


def _clause_of(sentence: str, said: str) -> str:
    """The part of `sentence` between semicolons that holds `said`: "even with X=1 it still hangs; it only works with
    Y" gives each setting its own effect."""
    return next((part for part in sentence.split(";") if said in part), sentence)


def _sentence_at(text: str, pos: int) -> str:
    """The sentence holding `pos`, with its end mark (text.sentence_start / sentence_end: not cut at the dots of a
    version, a decimal or a file name), a question and the answer after it taken together ("Does X=1 help? No, it
    still hangs.": _tried_effect reads the answer)."""
    return text[sentence_start(text, pos, questions=False):sentence_end(text, pos, questions=False)]


def _figure_clause(text: str, pos: int) -> str:
    """(fr45) The clause of `pos`'s sentence (_sentence_at) holding it (text.clause_around): words there govern what
    sits at `pos`, not a clause the sentence goes on to ("5 % during the benchmark, so the GPUs are idle most of the
    time": the idle words are the conclusion drawn, not the state the figure was read in)."""
    start = sentence_start(text, pos, questions=False)
    return clause_around(text[start:sentence_end(text, pos, questions=False)], pos - start)


# (healthy31) A swing read from its figures, whatever the words around them: one GPU's utilisation given as a busy
# share and, beside it in the same sentence, an idle one ("GPU-Util always jumps from 89% seconds later to 0%, then
# 89% again", megvii-research/video_analyst#215; "gpu 利用率时为 0 时为 80%",
# aliyun/conditional-lane-detection#15). nvidia-smi's utilization.gpu is "percent of time over the past sample
# period during which one or more kernels was executing on the GPU" (nvidia-smi --help-query-gpu), and NCCL's kernels
# spin while they wait, so a sample at (near) zero between busy ones is a stretch with no kernel queued: the host did
# not feed the GPU. Two cards' shares side by side ("100% on GPU0 and 0% on GPU1") are a per-card contrast, not a
# swing, and an idle GPU between requests is no running job.
SWING_BUSY = 40.0  # a share at or above this is a GPU at work
SWING_IDLE = 5.0  # ... and one at or below this, beside it, a GPU with nothing queued
# (a share below 1-5 % is written with its sign; bare, only a 0: "process 1", "step 2" are no utilisation)
_IDLE_SHARE = re.compile(r"(?<![\w.:#/+-])([0-5](?=(?:\.0+)?\s*[%％])|0)(?:\.0+)?(?:\s*[%％])?"
                         r"(?![\w.%％]|\s*(?:[GMK]i?B|ms|s\b|sec|W\b|°|C\b|x\b|times|GPUs?|cards?|nodes?|[卡张个秒]))",
                         re.I)
_BUSY_SHARE = re.compile(r"(?<![\w.])(4\d|[5-9]\d|100)(?:\.\d+)?\s*[%％]")
_OTHER_SHARE = re.compile(r"(?:\bCPU|\bmemory|\bmem\b|VRAM|\bRAM\b|\bpower|\bfans?\b|\bdisk|显存|内存|功耗|风扇)"
                          r"[^%％\d]{0,25}$", re.I)
_NUMBERED_BEFORE = re.compile(r"(?:\b(?:GPU|cuda|device|rank|card|id|no|batch(?:[ _-]?size)?|bs|tp|pp|dp|ep|size|"
                              r"num\w*|workers?|process(?:es)?|proc|pid|threads?|steps?|epochs?|iter\w*|layers?|"
                              r"requests?|nodes?|instances?|replicas?)|[#卡号第])\W{0,3}$|=\s*$", re.I)
_CARDS_CONTRASTED = re.compile(r"\b(?:other|another|second|first|remaining|each|both)\s+(?:one|GPUs?|cards?)\b|"
                               r"\bthe other\b|\bone\s+(?:GPU|card|device)\b|"
                               r"\b(?:two|2|dual|both|several|multiple)\s+(?:GPUs|cards)\b|"
                               r"\b(?:GPU|card|device)\s*#?\d\b|"
                               # (s39) part of the set against the rest: "a few of the GPUs show 0% while the others
                               # are at 100%", "half the cards idle, the rest busy", "3 of the 8 GPUs"
                               # (review39c: not the rest of the time, "100% for a second, then 0% the rest of the
                               # time", "0% half the time and 100% the rest": a swing; "others" bare with a card's
                               # state after it, "others are at 100%"; "3 out of 8 GPUs")
                               r"\bthe\s+others\b|\bthe\s+rest\b(?!\s+of\s+(?:the\s+|my\s+|its\s+)?(?:time|run|step|"
                               r"epoch|batch|generation|request|process|day|while|way)\b|\s*(?:[.,;!?]|$))|"
                               r"\bothers\s+(?:are|were|at|show\w*|stay\w*|sit\w*|remain\w*|idle|run\w*)\b|"
                               r"\b(?:some|a\s+few|few|half|most|all\s+but\s+(?:one|two))\s+(?:of\s+)?(?:the\s+|my\s+|our\s+)?"
                               r"(?:GPUs|cards)\b|\b\d\s+(?:out\s+)?of\s+(?:the\s+|my\s+|our\s+)?(?:\d\s+)?(?:GPUs|cards)\b|"
                               r"一张|另外|另一|两张|双卡|多卡|其他|其余|第[一二]|每张|部分卡|有的卡|有些卡", re.I)
SWING_SPAN = 60  # the idle share within this many characters of the busy one
_STARTING = re.compile(r"\b(?:start\w*|launch\w*|begin\w*|boot\w*|load(?:s|ed|ing)?)\b|开始|启动|加载", re.I)


def util_swing(text: str, read: list[tuple[int, int, float]]) -> tuple[int, int, float, float] | None:
    """(start, end, idle share, busy share) of the first utilisation share read (busy or idle) told beside the other
    kind in its sentence (SWING_BUSY, SWING_IDLE); None when no sentence gives both for one GPU."""
    for start, end, pct in read:
        sentence = _sentence_at(text, start)
        if _CARDS_CONTRASTED.search(sentence) or _IDLE_STATE.search(sentence) or _STARTING.search(sentence):
            continue  # two cards' shares, a GPU idle between requests, or one that rises as a job starts
        other = _IDLE_SHARE if pct >= SWING_BUSY else _BUSY_SHARE
        for m in other.finditer(text, max(0, start - SWING_SPAN), min(len(text), end + SWING_SPAN)):
            if start <= m.start() < end or sentence_start(text, m.start()) != sentence_start(text, start):
                continue  # the busy figure itself, or another sentence's number
            if _NUMBERED_BEFORE.search(text[max(0, m.start() - 12):m.start()]):
                continue  # "GPU 0", "rank 1", "batch size 4", "tp=4": a name, a count or a setting, not a share
            if _INSIDE_NEGATION_F.search(text[max(0, m.start() - 25):m.start()]):
                continue  # "never drops below 1 %": the idle share ruled out
            if _OTHER_SHARE.search(text[max(0, m.start() - 30):m.start()]):
                continue  # "CPU is at 100 %", "memory usage is 95 %": another thing's share
            idle, busy = sorted((pct, float(m.group(1))))
            return min(start, m.start()), max(end, m.end()), idle, busy
    return None


def cards_split_busy_idle(quote: str) -> bool:
    """A sentence that sets some cards at work against others ("half the cards sit at 0% while the rest are at 100%"):
    a busy share (not the CPU's or memory's, _OTHER_SHARE) beside words that tell cards apart (_CARDS_CONTRASTED), so
    its idle share is a card's, not a swing."""
    return bool(_CARDS_CONTRASTED.search(quote)) and any(
        not _OTHER_SHARE.search(quote[max(0, m.start() - 30):m.start()]) for m in _BUSY_SHARE.finditer(quote))


def swing_claim(source: str, text: str, start: int, end: int, idle: float, busy: float) -> Claim:
    span = re.compile(re.escape(text[start:end]))
    m = span.search(text, start)
    return Claim("util_swings", source, _quote(text, m, 40), {"low": idle, "high": busy, "groups": []})


def fixed_by(quote: str) -> bool:
    """Does the quote say something made the problem go away ("upgrading NCCL fixed it")?"""
    return bool(_FIXES.search(quote))


# The reporter closing the ticket themselves: "Problem solved.", "the issue is resolved now", "fixed it".
_SOLVED = re.compile(r"\b(?:problem|issue|it|this|that)\s+(?:is\s+|was\s+|has been\s+|got\s+)?(?:now\s+)?"
                     r"(?:solved|resolved|fixed)\b|\b(?:solved|resolved|fixed)\s+(?:it|(?:the|this|that|my|our) "
                     r"(?:problem|issue|bug))\b|"
                     r"问题(?:已经?)?解决|"
                     # (issue 11, paraphrase audit) the failure said gone ("The error disappeared", "the hang went
                     # away"), everything said to work now ("everything is working OK", "everything is normal now"), a
                     # fix confirmed ("can confirm resolution with ..."), and 跑通 (ran through)
                     r"\b(?:error|problem|issue|hang|crash|failure)s?\s+(?:has\s+|have\s+|had\s+)?(?:now\s+)?"
                     r"(?:disappeared|vanished|went away|gone away|is gone|are gone)\b|"
                     r"\beverything\s+(?:is\s+|was\s+)?(?:now\s+)?(?:(?:works?|working|runs?|running|normal)\s+"
                     r"(?:\w+\s+){0,2}?(?:fine|ok(?:ay)?|normally|well|correctly|smoothly|perfectly|now|again)|fine|ok(?:ay)?)\b|"
                     r"\bconfirm(?:ed|s)?\s+(?:the\s+)?(?:resolution|fix)\b|跑通", re.I)
# ... not denied, hoped or asked ("hasn't fixed the issue", "I can't say the problem is solved", "maybe a reboot fixed
# it?") ...
_NOT_SOLVED = re.compile(r"(?:\b(?:not|no|never)|n't)\b[\w\s,-]{0,20}$", re.I)
# ... nor undone after the words: the fix denied in its clause ("I can confirm the fix from #123 does not help"), or
# the sentence turning to what is still wrong ("Everything works fine on a single GPU, but with TP=2 it hangs", "The
# error disappeared but now it is 3x slower", "单卡跑通了，但是双卡很慢") or to an earlier time ("Everything was working
# fine yesterday, today it hangs"): what is fine is then a part or the past, not the problem gone.
_FIX_DENIED = re.compile(r"\b(?:does|did|do|has|have|is|was)\s*(?:n't|not)\s+(?:\w+\s+)?"
                         r"(?:help|work|fix|solve|resolve|change)\w*", re.I)
_TURNS = re.compile(r"\b(?:but|yet|however|except|until|before|yesterday|previously|earlier|initially|at first)\b|"
                    r"但是?|可是|不过|然而|之前|以前", re.I)
# ... unless the same text says something is still wrong.
_STILL = re.compile(r"\b(?:still|again|persists?|remains?)\b|仍然|还是", re.I)
# ... where "again" is the failure back, not a test run again ("I went to test the latest build again and everything
# is normal now")
_RETRIED = re.compile(r"\b(?:test\w*|tr(?:y|ied|ying)|ran|run\w*|rerun\w*|check\w*|install\w*|build\w*|start\w*|"
                      r"boot\w*|launch\w*)\b[^.,;\n]{0,40}?$", re.I)


def _still_wrong(text: str) -> bool:
    """Does the text say something is still or again wrong ("still hangs", "the error persists", "it fails again")?"""
    return any(not (m.group(0).lower() == "again" and _RETRIED.search(text, 0, m.start()))
               for m in _STILL.finditer(text))


def solved(facts: Facts) -> Claim | None:
    """The reporter's own word that the problem is gone ("Problem solved."), when nothing is said to be still
    wrong: what the ticket describes is then the past, no failure to diagnose."""
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _SOLVED.search(sentence)
            # (a guess in another clause is that clause's: "the issue has been resolved ..., it was probably an issue
            # with the booting script" guesses the cause, not the fix)
            # (and a "not" in another clause is that clause's: "I'm not OP but can confirm resolution")
            before = _CLAUSES.split(sentence[max(0, m.start() - 30):m.start()])[-1] if m else ""
            if m and not (_NOT_SOLVED.search(before) or _guessed(_clause_at(sentence, m.start(), m.end()))
                          or hypothetical(sentence, m.start()) or _still_wrong(text)
                          or _FIX_DENIED.search(_CLAUSES.split(sentence[m.end():], 1)[0])
                          or _TURNS.search(sentence, m.end())):
                return Claim("solved", source, _quote(sentence, m, 60))
    return None


# (healthy40) The reporter's own word that the job itself works and only a message is in question: "When using nodes
# connected by IPv6, training proceeds correctly, but emits these misleading messages" (pytorch/pytorch#128998), "tests
# do not fail, just a ton of warnings" (helmholtz-analytics/heat#1003), "The issue is limited to the log message logic
# and does not affect actual execution correctness" (vllm-project/vllm#31005). What runs is named (training, the job,
# the tests, it, everything), then how it does: proceeds/runs/works/completes correctly, fine, normally, as expected;
# does not fail; or the message's effect denied ("does not affect the execution / correctness / results"), or the
# trouble bounded to the log ("limited to the log message").
_RUN_SAID = (r"(?:training|inference|generation|execution|everything|it|(?:the|my|our)\s+(?:\w+\s+)?"
             r"(?:job|run|training|model|server|program|script|code|process|test|benchmark|service)s?|(?:the\s+)?tests?)")
_RUN_OK = re.compile(
    r"\b" + _RUN_SAID + r"\s+(?:still\s+|actually\s+|otherwise\s+)?"
    r"(?:proceeds?|runs?|ran|works?|worked|completes?|completed|finish(?:es|ed)?|succeeds?|succeeded|goes|went|"
    r"is\s+(?:running|working|progressing)|are\s+(?:running|working|passing)|pass(?:es|ed)?)\s+"
    r"(?:just\s+|perfectly\s+|totally\s+)?(?:correctly|fine|normally|as\s+expected|successfully|ok(?:ay)?|"
    r"without\s+(?:any\s+)?(?:issues?|problems?|errors?))\b|"
    r"\b" + _RUN_SAID + r"\s+(?:do|does|did)(?:\s*n['’]t|\s+not)\s+fail\b|"
    r"\b(?:does|do|did)(?:\s*n['’]t|\s+not)\s+(?:seem\s+to\s+|appear\s+to\s+)?(?:affect|impact|break)\s+(?:the\s+)?"
    r"(?:actual\s+)?(?:execution|correctness|results?|outputs?|training|inference|functionality|run)\b|"
    r"\b(?:limited|confined)\s+to\s+(?:the\s+)?(?:log(?:ging)?|warning|message)", re.I)
# ... in a sentence that names the message: a warning, a message, a log line, their noise
_MESSAGE_WORD = re.compile(r"\bwarn(?:ing|ings|s)?\b|\bmessages?\b|\blog(?:s|ged|ging)?\b|\bspam\w*|\bnoise\b|"
                           r"\bemits?\b|\bprints?\b|\bprinted\b", re.I)
# ... not a time gone or a part of the runs: "it worked fine before the upgrade", "training proceeds correctly until
# step 500", "works fine on one GPU"
_RUN_OK_BOUNDED = re.compile(r"\s{0,3}(?:\w+\s{1,3})?(?:before|until|till|previously|yesterday|earlier|at\s+first|"
                             r"in\s+the\s+past|on\s+(?:a\s+)?(?:one|single|1)\s+(?:GPU|card|node)|"
                             r"with\s+(?:a\s+)?(?:one|single|1)\s+(?:GPU|card)|for\s+(?:a\s+)?(?:while|few))\b", re.I)


def run_unaffected(facts: Facts) -> Claim | None:
    """The reporter's own sentence that the job works and only a message (a warning, an error line in the log) is in
    question (_RUN_OK with _MESSAGE_WORD in the same sentence): what is asked about is the message, not a failure. Not
    asked, guessed, supposed or negated ("I don't think it works"), not another's word (hearsay.elsewhere), not bounded
    to a time or part (_RUN_OK_BOUNDED), and not where the same text says something is still wrong."""
    for source, sentence in own_sentences(facts):
        if not _MESSAGE_WORD.search(sentence):
            continue
        for m in _RUN_OK.finditer(sentence):
            before = sentence[:m.start()]
            # a question after the words asks about the message ("..., can I ignore them?"): the run is reported
            asks = asked(sentence) and not stated_before_question(sentence, m.start())
            # (review40) nor ruled out or doubted before it: "I'm not sure it runs correctly", "I don't think it
            # works correctly" (negated_words)
            if (asks or conditional(before) or _guessed(sentence, m.start()) or hearsay.elsewhere(before)
                    or negated_words(sentence, m)
                    or _RUN_OK_BOUNDED.match(sentence, m.end()) or _still_wrong(sentence)):
                continue
            return Claim("run_unaffected", source, _quote(sentence, m, 60))
    return None


# (healthy40) The reporter asks whether a message matters, with nothing said to fail: "do I need to deal with such
# warnings? Or just ignore it?" (zengxianyu/crfill#8), "Will this warning affect the accuracy of training?"
# (gaopengcuhk/SMCA-DETR#6), "I don't know whether this warning will affect the output of the program"
# (pytorch/pytorch#69200). Asked of a warning or message: can it be ignored, must it be dealt with, does it affect the
# run, is it harmless.
_MESSAGE_NOUN = r"(?:warn(?:ing|ings)?|messages?|logs?|(?:error\s+)?lines?)"
_IGNORE_ASKED = re.compile(
    r"\b(?:can|could|should|may|shall)\s+(?:I|we|one)\s+(?:just\s+|simply\s+|safely\s+)?ignore\b|"
    r"\b(?:or|just)\s+(?:just\s+|simply\s+)?ignore\s+(?:it|them|this|these|that)\b|"
    r"\b(?:safe|ok(?:ay)?|fine)\s+to\s+ignore\b|"
    r"\b(?:do|should|must)\s+(?:I|we)\s+(?:need\s+to\s+|have\s+to\s+)?(?:deal\s+with|worry\s+about|care\s+about|fix)\s+"
    r"(?:such|this|these|that|the|those)\s+(?:\w+\s+)?" + _MESSAGE_NOUN + r"\b|"
    r"\b(?:will|would|does|do|can|could)\s+(?:this|these|the|such|that|those)\s+(?:\w+\s+)?" + _MESSAGE_NOUN +
    r"\s+(?:\w+\s+)?(?:affect|impact|harm|hurt|matter|influence)\w*\b|"
    r"\b(?:is|are)\s+(?:this|these|the|that|those|it)\s+(?:\w+\s+)?(?:" + _MESSAGE_NOUN + r"\s+)?"
    r"(?:harmless|benign|safe\s+to\s+ignore|something\s+to\s+worry\s+about)\b", re.I)


def ignore_asked(facts: Facts) -> Claim | None:
    """The reporter's own question whether a warning or message matters or can be ignored (_IGNORE_ASKED), in a
    sentence that names the message (_MESSAGE_WORD: "can I ignore the last layer?" asks about no message); None where
    it is not asked (a statement, "I ignored it") or is another's word."""
    for source, sentence in own_sentences(facts):
        m = _IGNORE_ASKED.search(sentence)
        if not m or not asked(sentence) or not _MESSAGE_WORD.search(sentence) \
                or hearsay.elsewhere(sentence[:m.start()]):
            continue
        return Claim("ignore_asked", source, _quote(sentence, m, 60))
    return None



# (b51c) The tensor-parallel size the reporter configured is not the one the engine was started with: the layer that
# deploys it (a serving platform, a chart, a launcher) drops, ignores or misreads the setting, and the engine comes up
# on fewer GPUs (vLLM's and SGLang's tensor-parallel size defaults to 1). "sglang offical --tp not effect in gpustack"
# (gpustack/gpustack#5966: its scheduler read only --tp-size, fixed), "Docker Model Runner vLLM ignores tensor parallel
# config and starts with world_size=1" (vllm-project/vllm#36772), "the `--tensor-parallel-size` is not configured
# correctly" (llmos-ai/llmos#40, fixed in v0.3.0). The setting is the subject of the failure to take ("X is not
# applied", "X not effect") or the object of a tool that ignores it; not the reporter's own omission ("I did not set
# the tensor parallel size": nothing dropped), nor a warning ignored ("I ignored the tensor parallel warning").
# (r51b) The setting is named as the engines name it: a flag (--tp, --tp-size, --tensor-parallel-size, --num-shard) or
# the size, degree or config of tensor parallelism. The technique alone ("Tensor parallelism is not configured (single
# GPU)", "Ignoring tensor parallelism for now", "TP not effective") is the reporter's choice or its speed-up, not a
# setting dropped; and "not effective" is said of a speed-up, so only "not (take) effect" is read.
_TP_SETTING = (r"(?:tensor[-_ ]parallel(?:ism)?[-_ ](?:size|degree|config(?:uration)?|settings?)|"
               r"--?tp(?:[-_]size)?\b|\btp[-_]size\b|--?num[-_]shards?\b)")
_TP_DROPPED = re.compile(
    _TP_SETTING + r"`?['\"]?\s+(?:(?:value|setting|option|flag|argument|parameter)\s+)?"
    r"(?:(?:is|was|are|were|does|did|do|has|have)(?:\s+|(?=n['’]t)))?(?:not|never|n['’]t)\s+"
    r"(?:being\s+|been\s+|correctly\s+|properly\s+)?(?:configured|applied|passed(?:\s+(?:on|through|down))?|respected|"
    r"honou?red|picked\s+up|(?:taking|take|taken|takes|in)\s+effect|effect)\b|"
    r"\bignor(?:es|ed|ing)\s+(?:the\s+|my\s+|our\s+|its\s+)?(?:[\w-]+\s+){0,2}?" + _TP_SETTING +
    r"(?!\s*(?:[\w-]+\s+)?(?:warnings?|messages?|notices?|logs?)\b)", re.I)
# The reporter as the one who dropped it ("I ignored the --tp flag"), not as the one who saw it dropped ("We see --tp
# is not respected by gpustack").
_FIRST_PERSON_END = re.compile(r"\b(?:I|we|me|us)\s+(?!(?:see|saw|notice|noticed|found|observe|observed)\b)"
                               r"(?:\w+\s+)?$", re.I)
# (r51e) "not applied to the draft model", "not respected for the vision encoder": a part of the model the setting does
# not cover (vLLM runs a speculative draft at its own TP, replicates a vision encoder), not the setting dropped; only a
# setting "not passed to" something is one that did not reach it. "not configured in my docker run command": the
# reporter's own omission, nothing dropped ("not configured yet in our manifest": not yet done). A warning about the
# setting ignored ("Ignoring the tp_size deprecation warning") is not the setting.
_TP_SCOPE = re.compile(r"\s+(?:to|for)\b", re.I)
_TP_OWN_PLACE = re.compile(r"\s+(?:yet\s+)?(?:in|from)\s+(?:my|our)\b", re.I)
# (r51b) A dropped setting told as over: dated to a day or week gone ("Yesterday the tensor parallel size was not
# applied by the Helm chart"), or cured later in the sentence or the next one ("... by our chart (fixed)", "I fixed the
# values.yaml", "after upgrading to 0.5 that is gone", "after adding it vLLM uses both GPUs", "Upgrading to 0.5 fixed
# it."); not "still", not "even after", not a value "fixed at 1". (r51e) "at first" and "initially" date it wherever
# they stand in the sentence ("was not passed in my launch script at first").
_TP_THEN = re.compile(r"\b(?:yesterday|last\s+(?:week|month|night|year|time)|earlier\s+today)\b", re.I)
_TP_AT_FIRST = re.compile(r"\b(?:at\s+first|initially)\b", re.I)
_TP_CURED_AFTER = re.compile(r"\(\s*(?:now\s+)?(?:fixed|solved|resolved)\s*\)|\b(?:I|we)\s+(?:have\s+)?"
                             r"(?:fixed|solved|resolved|corrected)\b|\b(?:is|was|has\s+been|got)\s+(?:now\s+)?"
                             r"(?:gone|fixed|solved|resolved)\b(?!\s+(?:at|to|on)\b)|"
                             r"\b(?:fixed|solved|resolved)\s+(?:it|this|that|the\s+(?:issue|problem|bug))\b|"
                             r"(?<!\beven\s)\bafter\s+(?:\w+\s+)?"
                             r"(?:upgrad|updat|fix|chang|remov|correct|edit|add|sett|pass)\w*", re.I)


def tp_setting_dropped(facts: Facts) -> Claim | None:
    """The reporter's statement that the tensor-parallel size they gave did not take: not applied, not passed on, or
    ignored by the layer that starts the engine (_TP_DROPPED); None where it is asked, guessed, ruled out, put in the
    past (or cured later in the sentence or the next) or the conditional, someone else's, their own choice, or said of
    a part of the model the setting does not cover."""
    said = own_sentences(facts)
    for i, (source, sentence) in enumerate(said):
        following = said[i + 1][1] if i + 1 < len(said) and said[i + 1][0] == source else ""
        for m in _TP_DROPPED.finditer(sentence):
            before, after = sentence[:m.start()], sentence[m.end():]
            cured = any(_TP_CURED_AFTER.search(text) and not _still_wrong(text) for text in (after, following))
            if asked(sentence) or offered(sentence, m.start()) or negated_words(sentence, m) \
                    or conditional(before) or hearsay.someone_elses(before) \
                    or _past_state(before, past=bool(_PAST_VERB.search(m.group(0)))) or _TP_THEN.search(before) \
                    or _TP_AT_FIRST.search(sentence) or cured or _FIRST_PERSON_END.search(before) \
                    or _TP_SCOPE.match(after) and not re.search(r"pass|ignor", m.group(0), re.I) \
                    or _TP_OWN_PLACE.match(after):
                continue
            return Claim("tp_setting_dropped", source, _quote(sentence, m, 60))
    return None

# (healthy43) The reporter asks what nccl-tests' result check means: the old table's "error" column (the largest
# deviation of any value from the expected result, a float such as 5e-07) or the "Out of bounds values" line, and why
# they are not 0: "How to interpret the error column?" (NVIDIA/nccl-tests#176), "I don't know what's mean error field
# and value "5e-07"" (#118), "why the Out of Bounds values is 0?" with "the error column ... has meaningful numbers
# rather than 0" (#52). Asked in a question, or as "I don't know / understand what ...". In a ticket about nccl-tests
# (its name or a binary, _NCCL_TESTS_NAMED), not another program's "error column". (s43review) The figures by their
# names: "wrong" only as the "#wrong" column's or field's name, "out of bounds" only as that line's "values"/"line"/
# "count"; "Why do I get wrong values?" and "index out of bounds" report a failure, and "error number 2" is an error's
# code, none of them the check's meaning asked.
# (fr43) Named as the output writes them, too: "#wrong" with its hash ("What do the #wrong numbers mean?"), "Out of
# bounds" in quotes ('What does "Out of bounds" mean in the output?'), and the out-of-bounds "check".
_CHECK_COLUMN = (r"(?:error|err)\s+(?:column|field|values?)|#?\s?wrong\s+(?:column|field)|"
                 r"out[\s-]+of[\s-]+bounds?\s+(?:values?|line|count|checks?)")
_CHECK_FIGURE = (r"(?:\b(?:" + _CHECK_COLUMN + r")\b|#\s?wrong\b|"
                 r"[\"“'‘]out[\s-]+of[\s-]+bounds?[\"”'’])")
_CHECK_COLUMN_ASKED = re.compile(
    r"\b(?:what|how)\b[^.?!\n]{0,60}?" + _CHECK_FIGURE + r"|"
    + _CHECK_FIGURE + r"[^.?!\n]{0,80}?\b(?:mean|means|meaning|represent\w*|interpret\w*|stand\s+for)\b|"
    r"\bwhy\b[^.?!\n]{0,40}?" + _CHECK_FIGURE, re.I)
_NOT_KNOWN = re.compile(r"\b(?:I|we)\s+(?:do\s*n['’]?t|do\s+not|can['’]?t|cannot)\s+(?:know|understand|tell|"
                        r"figure\s+out)\s+(?:what|how|why)\b", re.I)
_NCCL_TESTS_NAMED = re.compile(r"\bnccl[-_ ]?tests?\b|\b(?:" + "|".join(
    ("all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv", "broadcast")) + r")_perf\b", re.I)


def check_column_asked(facts: Facts) -> Claim | None:
    """The reporter's question what nccl-tests' check figures mean (the "error" column, the "#wrong" column, the "Out of
    bounds values" line) or why they read as they do (_CHECK_COLUMN_ASKED), in a ticket that names nccl-tests or pastes
    its table; asked (a question, or "I don't know what ..."), not another's word. None otherwise."""
    if not facts.of(CollectiveResult) and not any(_NCCL_TESTS_NAMED.search(t) for _, t in texts(facts)):
        return None
    for source, sentence in own_sentences(facts):
        m = _CHECK_COLUMN_ASKED.search(sentence)
        if not m or hearsay.elsewhere(sentence[:m.start()]):
            continue
        if asked(sentence) or _NOT_KNOWN.search(sentence[:m.end()]):
            return Claim("check_column_asked", source, _quote(sentence, m, 60))
    return None


_DID_NOTHING = re.compile(NO_EFFECT, re.I)  # "it had no effect", "made no difference" (text.NO_EFFECT)
_STILL_FAILS = re.compile(r"\bstill\s+(?:hangs?|hung|fails?|failed|crash\w*|freez\w*|froze|stuck|times? out)\b", re.I)
# ("it is still slow" after a remedy: the slowness stayed, no help; not the remedy making it worse. (s42review) Not
# where the same sentence says it got faster: "it got much faster, though still slower than TP=1" helped, in part)
_NO_BEFORE = re.compile(r"\bno\s+$", re.I)
# (fr42) An improvement only hoped for, not said of the run: "still slow, I expected it to be much faster", "it should
# be faster", "would be better", "than" a faster one; its clause only (a comma ends it: "I expected little, but it is
# faster").
_HOPED_BEFORE = re.compile(r"\b(?:expect\w*|hop(?:e|es|ed|ing)|should|would|than)\b"
                           r"(?:(?!\b(?:and|but)\b)[^,;.!?\n]){0,30}$", re.I)
_STILL_SLOW = re.compile(r"\bstill\s+(?:(?:very|so|too|really|quite)\s+)?slow(?:er)?\b", re.I)
# (ruledout34) The same outcome with the setting as without: "Same result with NCCL_P2P_DISABLE=1", "the same speed when
# I set NCCL_P2P_LEVEL=SYS": the setting changed nothing, so what it switches is not the cause.
_SAME_WITH = re.compile(r"\bsame\s+(?:results?|speed|numbers?|performance|throughput|bandwidth|behaviou?r|outcome|"
                        r"hang|error|issue|problem|crash|failure|symptoms?)\s+(?:with|when|after|using|if)\b", re.I)
# (tried39) The failure told again after the setting, not only with "still": "Even with NCCL_P2P_DISABLE=1 it hangs the
# same way", "... it fails again", "hangs anyway", "the same hang", and in Chinese "设置了 X 还是卡住"
# (still stuck), "依然/仍然/依旧报错" (still errors), "加了 X 也没用" (of no use), "不起作用" / "没有效果"
# (no effect). A symptom that changed ("no longer hangs but is slow") is a fix of the failure, read by _FIXES first.
_FAILS_AGAIN = re.compile(r"\b(?:hangs?|hung|fails?|failed|crash(?:es|ed)?|freez(?:es|ed)?|froze|"
                          r"(?:gets?|got|is|was)\s+stuck|errors?\s+out|times?\s+out)\s+(?:(?:in|at)\s+)?(?:(?:exactly\s+)?the\s+same\b|"
                          r"again\b|as\s+before\b|anyway\b|regardless\b)|"
                          r"\b(?:the\s+)?(?:exact\s+)?same\s+(?:hang|error|crash|failure|freeze|timeout)\b"
                          r"(?!\s+(?:as|with|when|if)\b)|"
                          r"(?:还是|依然|仍然|依旧|照样|照旧)(?:会)?"
                          r"(?:卡住|卡死|卡|挂|hang|报错|失败|超时|崩|不行|一样)|"
                          r"(?:也?没(?:有)?用|不起作用|没(?:有)?(?:效果|作用)|无效)(?!的)", re.I)
# (tried39) The reporter's answer to advice in the sentence before: "The maintainer said: if it hangs, set
# NCCL_P2P_DISABLE=1. I did and it still hangs", "Tried that, same hang", "我照做了，还是卡住" (I did as told, still
# stuck): what the advised setting did, read from this sentence.
# (past45) ... or the advice taken up as the way the reporter now runs (launch.ADOPTED_NEXT: "We run with it as
# suggested."): in use.
_DID_AS_TOLD = re.compile(ADOPTED_NEXT.pattern + r"|"
                          r"[\s*>-]*(?:(?:so|and|then|ok|okay)[\s,]+)?(?:(?:I|we)\s+(?:have\s+|also\s+)?)?(?:did|done|"
                          r"tried|set|added|exported|applied|followed)\b(?:\s+(?:it|that|this|so|as\s+(?:suggested|"
                          r"advised|told|instructed)|the\s+(?:advice|suggestion))\b)?"
                          r"(?=\s*(?:[,;:!-]|and\b|but\b|still\b|same\b|$))|"
                          r"\s*(?:我|我们)?(?:照做了|试了|试过了?|设置了|加了|按照?(?:建议|说的)(?:做|设置)了)", re.I)


# (tried39) "Even with X=1 ...", "... even with X=1", "even after setting X=1", "即使/哪怕设置了 X": the setting
# was made and what the sentence says held anyway; read with a failure in the sentence (_FAILURE_WORDS), since "even
# with X it is fast" is praise, not a remedy tried.
_EVEN_WITH = re.compile(r"(?:\beven\s+(?:with|when|after|using|if\s+(?:I|we)\s+(?:set|use|export)|"
                        r"though\s+(?:I|we)\s+set)(?:\s+(?:setting|exporting|adding|I\s+set|we\s+set))?|"
                        r"(?:即使|哪怕|就算)(?:我)?(?:设置了?|加了|用了)?)\W{0,3}(?:export\s+)?$", re.I)
_FAILURE_WORDS = re.compile(r"\b(?:hang\w*|hung|stuck|fail\w*|crash\w*|errors?|time[sd]?\s+out|timeout|freez\w*|froze|"
                            r"forever|deadlock\w*|illegal\s+memory)\b|卡住|卡死|报错|失败|超时", re.I)


# (words41) A question ends its sentence as a period does (a "?" before white space or the end, or a full-width "？"):
# "If I add --ipc=host, does it help? I did and it still hangs." asks, then answers; the answer is the next sentence.
# (Not a "?" inside a URL's query, "...?id=3", which has no blank after it.)
_QUESTION_END = re.compile(r"\?(?=\s|$)|？")


def _answered_advice(text: str, pos: int) -> str | None:
    """The sentence after the one at `pos` (a period, "!", a line's end or a question mark closing it) when it opens as
    the reporter doing what that sentence advised (_DID_AS_TOLD); None otherwise."""
    start = next_sentence(text, pos, marks=".!?。！？\n")  # (text.py's splitter: not a version's or a file name's dot)
    nxt = "" if start is None else re.split(r"[.\n。]|\?(?=\s|$)|？", text[start:], maxsplit=1)[0]
    return nxt if nxt and _DID_AS_TOLD.match(nxt) else None


# (tried40) No change told without a verb before it: "disabled IOMMU in BIOS and in GRUB kernel arguments but no luck -
# results isn't changed", "also disabled SVM MODE in BIOS but no effect", "just tried old driver ... - result are the
# same" (aikitoria/open-gpu-kernel-modules#25): "no luck/effect/difference" after "but" or a dash, or the result(s)
# said the same or unchanged.
_NO_LUCK = re.compile(r"\b(?:continues?|continued|keeps?|kept)\s+(?:to\s+)?(?:hang|fail|crash|freez)\w*|"
                      r"(?:\bbut|[-–—,])\s+(?:with\s+)?no\s+(?:luck|effect|difference|change|improvement|success)\b|"
                      # (review40) not "the same as on a single GPU": the same as a reference is a right result
                      r"\bresults?\s+(?:is|are|was|were)\s+(?:(?:the\s+)?same"
                      r"(?!\s+as\s+(?!before|earlier|previously|without))|unchanged)\b|"
                      r"\bresults?\s+(?:is|are|was|were)(?:n't|\s+not)\s+changed\b", re.I)


# (s42review) nvbandwidth waives its peer tests where no GPU pair passes cuDeviceCanAccessPeer, and a run that sees
# one GPU has no pair at all (Testcase::filterHasAccessiblePeerPairs loops over the pairs of cuDeviceGetCount's
# devices): its "Waiving device_to_device_..." lines say nothing of P2P where the device list it prints ("Device 0:
# NVIDIA ...", one line a GPU: NVIDIA/nvbandwidth#13, #15, #34) names device 0 alone.
_NVBW_DEVICE = re.compile(r"^Device (\d{1,3}): ", re.M)
_NVBW_WAIVER = re.compile(r"^Waiving (?:device_to_device|all_to_one|one_to_all)_[a-z_]+\.[^\S\n]*$", re.M)


def _one_gpu_waivers_out(text: str) -> str:
    """The output without nvbandwidth's peer-test waivers where the run it prints saw a single GPU."""
    devices = {int(d) for d in _NVBW_DEVICE.findall(text)}
    return _NVBW_WAIVER.sub("", text) if devices == {0} else text


def _advice_at(text: str, pos: int, said: str, sentence: str, handed: set[int]) -> tuple[int, bool, bool, bool]:
    """(at, line_handed, ordered, advised) of what is said at text[pos] (a setting, a flag, a platform change) in its
    sentence: where it sits, whether its line is under advice ("you may:"), ordered ("if it hangs, set X=1") or
    advised ("you could add --ipc=host")."""
    at = sentence.find(said.rstrip(".:"))  # (tried39) "set X=1." ends a sentence: its period is not in it
    line_handed = text.count("\n", 0, pos) + 1 in handed
    ordered = at >= 0 and hearsay.ordered(sentence, at)  # (review39c) "if it hangs, set X=1": advice
    advised = line_handed or ordered or any(a <= at < b for a, b in guess_scope(sentence, _ADVISED))
    return at, line_handed, ordered, advised


def _not_in_use(text: str, pos: int, sentence: str) -> bool:
    """(review40) Is the setting or remedy at text[pos] said not in use before it on its line ("we are not using
    --ipc=host", "we don't set X=1", "I did not disable ACS": launch.off_before, as setting_off reads it) or not
    tried yet in its sentence ("I haven't tried --enforce-eager yet")? Then "... and it still hangs" rules nothing
    out. OFF_BEFORE only: setting_off's words after it ("X=1, but it did not help") say it was tried."""
    return off_before(text[max(0, pos - 40):pos].rsplit("\n", 1)[-1]) or bool(_NOT_TRIED_YET.search(sentence))


def _tried_effect(text: str, pos: int, said: str, sentence: str, at: int, advised: bool,
                  removed: bool) -> tuple[str | None, bool]:
    """(effect, answered): what a remedy said at text[pos] did, as its clause says (_effect: "fixes", "no_help",
    "worse", None), "no_help" for "it hangs even with X" (tried39), and, for advice or a supposition, what the next
    sentence says when it answers it ("... set X=1. I did and it still hangs"; answered True: the advice was followed);
    never "no_help" for one said not in use or not tried yet (_not_in_use).
    One reading for NCCL settings (tried39) and for flags, platform changes and releases (tried40, remedies)."""
    effect = None if removed or advised else _effect(_clause_of(sentence, said)) or \
        _effect(_clause_of(_sentence_at(text, pos), said))
    asked = _QUESTION_END.search(sentence, at) if at >= 0 else None
    if asked and sentence[asked.end():].strip() and not (removed or advised):
        # (s41) a question about it answered in the same sentence: the answer says what it did, not the question's
        # "help" ("Does NCCL_P2P_DISABLE=1 help? No, it still hangs." is no_help)
        answer = sentence[asked.end():]
        effect = _effect(answer)
        if effect and not hearsay.elsewhere(answer) and not guessed(answer):
            # answered from the reporter's own run: it was tried ("Does --enforce-eager help? Yes, it works now." is
            # no guess; "Should I add --ipc=host? Someone said it helps." and (s42review) "Does it help? I think it
            # fixes it." stay one)
            return effect, True
    even = _EVEN_WITH.search(text[max(0, pos - 60):pos])
    if effect in (None, "worse") and not (removed or advised) and even and _FAILURE_WORDS.search(sentence):
        effect = "no_help"  # (tried39) "it hangs even with NCCL_P2P_DISABLE=1": the failure stayed
    # advice, a supposition or a suggestion, answered in the next sentence ("I did and it still hangs")
    told = advised or _supposed_at(sentence, at)
    answer = _answered_advice(text, pos) if told and not removed else None
    if answer:  # (tried39) "... set NCCL_P2P_DISABLE=1. I did and it still hangs": done, with this effect
        return _effect(answer), True
    if effect == "no_help" and _not_in_use(text, pos, sentence):
        effect = None  # (review40) "we are not using --ipc=host and it still hangs": nothing was tried
    return effect, False


def _supposed_at(sentence: str, at: int) -> bool:
    """Is the remedy said at sentence[at] (at -1: none found in it) only supposed or guessed: an "if" clause before it
    ("if I add --ipc=host ..."), a guess (guessed: "maybe --enforce-eager helps?") or a question after it (words41:
    "NCCL_P2P_DISABLE=1? Tried it, still hangs"; not one before it, "Maybe it is P2P? X=1 fixes it")? _tried_effect
    then looks for the answer in the next sentence, and remedies keeps one left unanswered as a guess."""
    return at >= 0 and (bool(_IF_CLAUSE.search(sentence[:at])) or guessed(sentence, at)
                        or bool(_QUESTION_END.search(sentence, at)))


def _effect(sentence: str) -> str | None:
    """'fixes' when the sentence says the setting made the problem go away, 'no_help' when it says it did not ("did
    not help", "still hangs"), 'worse' when it hurt."""
    fixes = list(_FIXES.finditer(sentence))
    if any(not _NOT_BEFORE.search(sentence[:m.start()]) for m in fixes):
        return "fixes"
    still_slow = _STILL_SLOW.search(sentence)
    faster = still_slow and any(not (_NOT_BEFORE.search(pre := sentence[:m.start()]) or _NO_BEFORE.search(pre)
                                     or _HOPED_BEFORE.search(pre))
                                for m in _IMPROVED.finditer(sentence))  # "no faster", "did not improve": not faster
    if fixes or _STILL_FAILS.search(sentence) or _DID_NOTHING.search(sentence) or _SAME_WITH.search(sentence) \
            or (still_slow and not faster) \
            or any(not _NOT_BEFORE.search(sentence[:m.start()])  # (review40) "it does not keep crashing": fixed
                   for m in (*_NO_LUCK.finditer(sentence), *_FAILS_AGAIN.finditer(sentence))):
        return "no_help"
    if faster:
        return None  # faster, though still slow: it helped in part, neither a fix nor no help nor worse
    if _WORSENS.search(sentence):
        return "worse"
    return None


# (TensorRT-LLM also as its own docs and CLI glue it: "TRTLLM: v1.2.0rc2", "trtllm-serve", "trtllm-build")
_ENGINE_NAMES = (r"vllm|sglang|tgi|text-generation-inference|tensorrt[-_]?llm|trt[-_]?llm|lmdeploy|ollama|llama\.cpp|"
                 r"deepspeed|transformers")
_ENGINE_VERSION = re.compile(r"\b(" + _ENGINE_NAMES + r")\b", re.I)
# A release: "v0.3.2", "0.2.7", "version 0.4" (not "3.8x speedup" nor "1.23 s").
# (a PEP 440 development, pre- or post-release suffix belongs to the release: "0.18.0.dev2025021101", TensorRT-LLM's
# nightly wheels; "0.5.3.post1"; "1.0.0rc3": https://packaging.python.org/en/latest/specifications/version-specifiers/)
# (ab33) in the order that specification gives them, pre-, post- then development release, then a local version label
# after "+": "0.21.1rc1.dev169+ga6682d1d2", the setuptools-scm version of a vLLM nightly wheel (vllm-project/vllm#45741)
_SEMVER = re.compile(r"(?<![\w.])(?:v(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)|(\d{1,2}\.\d{1,3}\.\d{1,3})|"
                     r"(?<=version )(\d{1,2}\.\d{1,3}))(?:\.?rc\d+)?(?:\.?post\d+)?(?:\.?dev\d+)?"
                     r"(?:\+[a-z0-9]+(?:\.[a-z0-9]+)*)?(?![\w.]*\d)"
                     r"(?!\s*(?:x|%|s\b|ms\b|GB|tok))")
# (a latency metric degraded is a slowdown as much as "slower": "TTFT degradation from v0.19.0 to v0.21.0rc2"; and the
# same words in Chinese: 速度 speed, 吞吐 throughput, 延迟/时延 latency, 性能 performance, 变慢 slowed down)
# (ut29b) a request's end-to-end time is a latency too: "0.4.3post2 is fine but 0.4.4post3 is response time long"
# (sgl-project/sglang#4916), "response times are much longer"
_PERF_WORDS = re.compile(r"\b(?:slow\w*|faster|throughput|tokens?/s|tok/s|latency|speed\w*|regress\w*|performance|"
                         r"degrad\w*|TTFT|TPOT|ITL|response times?)\b|速度|吞吐|延迟|时延|性能|变慢", re.I)


# llama.cpp, by its name or its programs' ("llama-server", "llama-bench", "llama_print_timings"), and its build tags
# (b1000 onwards; four or five digits, so no GPU name such as "b200" is read as one)
_LLAMA_CPP = re.compile(r"\bllama\.cpp\b|\bllama[-_](?:server|cli|bench|print_timings)\b", re.I)
_LLAMA_BUILD = re.compile(r"(?<![\w.-])(b\d{4,5})(?![\w.])")


# (s21) A bisect that ended between two releases found the first bad one: "bisected to flashinfer-python 0.6.7 →
# 0.6.8.post1" (vllm-project/vllm#42186, flashinfer-ai/flashinfer#3279), whatever the failure (a hang here).
# (a container image is a release of the engine it ships: "docker image v0.4.5 ... comparing with docker image v0.4.3";
# two releases set side by side, "compared with"/"comparing to", or in Chinese 相比/对比 "compared with", 升级/降级
# "upgrade/downgrade", 版本 "version")
# (ut29b) and a slowdown called a regression: "~35% generation speed regression ... Previous working: b9536"
# (ggml-org/llama.cpp#26025), the word with the speed that regressed (a bare "regress" names no change of speed)
_CHANGE_WORDS = re.compile(r"\b(?:upgrad\w*|downgrad\w*|release|version|after|before|from|bisect\w*|image|"
                           r"(?:speed|throughput|latency|performance|perf|decode|generation|prefill|inference)\s+"
                           r"regress\w*(?!\s+(?:tests?|testing|suites?|checks?|detection|gates?)\b)|"
                           r"compar(?:ed|ing)\s+(?:with|to))\b|相比|对比|升级|降级|版本", re.I)
_BISECTED = re.compile(r"\bbisect\w*\b[^.\n]{0,40}?\b(?:to|between)\b", re.I)
# (mend2_s24) One release set against another by a comparative and "than", in a text that names the engine: "vllm
# v0.10.0 is much slower than v0.8.5" (vllm-project/vllm#22239), "~5x slower on 0.33.2 than on 0.32.13"
# (ollama/ollama#18225), "the performance of version 0.6.3 is weaker than that of version 0.6.2" (vllm#9581).
# The second release is written bare, as people write the one they compare with, so it is the engine's too.
_RELEASES_CONTRASTED = re.compile(r"(?:\b(?:slower|faster|quicker|worse|better|weaker|lower|higher)\b"
                                  r"(?:[^.\n]|(?<=\d)\.(?=\d)){0,40}?"
                                  r"\bthan|"
                                  # (mend25) or an equality denied: "is not as good as 0.5.4", "isn't as fast as v0.4"
                                  r"(?:\bnot|n't)\s+(?:\w+\s+){0,2}?as\s+(?:good|fast|quick|high|well)\s+as)"
                                  r"\s+(?:(?:on|with|in|using|that\s+of|the)\s+)*(?:version\s+)?v?\d{1,2}\.\d{1,3}",
                                  re.I)


# (s22) What a release stopped doing that the one before it did: "Moving from 0.3.6 to 0.3.7-rc5, Ollama no longer uses
# both GPUs for a single model" (ollama/ollama#6479), "since then, there is no 2nd GPU anymore possible to select"
# (pollockjj/ComfyUI-MultiGPU#144, after an upgrade from v0.3.65 to 0.3.73). "No longer" / "anymore" / "stopped"
# say the earlier release did it, so the later one fails where the earlier worked: a failure A/B between the two.
_LOST = re.compile(r"\bno\s+longer\b|\bany\s?more\b|\bstopped\s+\w+ing\b", re.I)
# What was lost is the model's spread over several GPUs ("no longer uses both GPUs", "stopped using all GPUs"): a
# placement, which a layer-split engine chooses by design when the model fits one GPU, as one GPU runs it as fast or
# faster (Ollama's FAQ, "How does Ollama load models on multiple GPUs?": one GPU if the model fits; OLLAMA_SCHED_SPREAD
# spreads it; maintainers in ollama/ollama#5093, #5455, #7253). Lost only where the words say the model no longer fits
# where it now sits: it does not fit one card, or part of it spills to the CPU (ollama/ollama#6479, "29%/71% CPU/GPU").
_GPUS_USED = re.compile(r"^\W{0,3}(?:\w+\s+){0,2}?(?:use[sd]?|using|utili[sz]\w*|run\w*\s+on|load\w*\s+on(?:to)?|"
                        r"split\w*\s+(?:across|over|between))\s+"
                        r"(?:both|all|multiple|several|two|three|four|\d+|the\s+other|the\s+second|my|the)?\s*"
                        r"(?:\d+\s+|other\s+)?(?:GPUs?|cards?|graphics\s+cards?|devices)\b", re.I)
_NOT_FITTING = re.compile(r"\b(?:(?:will|would|does|do|did|can|could)\s*(?:not|n't)|won't|doesn't|don't|can't|"
                          r"cannot)\s+fit\b|\bCPU/GPU\b|\boffload\w*|\bspill\w*|\bout of (?:GPU\s+|video\s+)?memory\b|"
                          r"\bOOM\b", re.I)


def behaviour_lost(text: str) -> bool:
    """A sentence says the engine stopped doing something (_LOST), in a text that moves between releases
    (_CHANGE_WORDS); not asked ("does 0.3.7 no longer use both GPUs?"), nor supposed ("if it no longer ...")."""
    if not _CHANGE_WORDS.search(text):
        return False
    for sentence in sentences(text):
        m = _LOST.search(sentence)
        if m and not sentence.rstrip().endswith("?") and not _IF_CLAUSE.search(sentence[:m.start()]) \
                and not _FAILS.search(sentence, m.end(), m.end() + 40):  # "it no longer hangs": a cure, not a loss
            after = sentence[m.start() + len("stopped"):] if m.group(0).lower().startswith("stopped") \
                else sentence[m.end():]  # "stopped using all GPUs": the verb is in the match
            if _GPUS_USED.search(after) and not _NOT_FITTING.search(text):
                continue  # fewer GPUs for a model that fits: the engine's placement, not a loss
            return True
    return False


_MODEL_BEFORE = re.compile(r"\b(?:model|checkpoint|weights|dataset|llama|qwen|mistral|mixtral|gemma|phi|deepseek|glm|"
                           r"falcon|yi)\W{0,3}(?:version\s+)?$", re.I)


def _bare_releases_contrasted(text: str, versions: list[str]) -> bool:
    """(mend25) Two of the releases found set against each other in one sentence, the first before the comparative
    and the second right after it ("I found it to be 50 percent faster than 0.6.0" after "with 0.5.0"), where no
    engine is named: a figure or a hyper-parameter ("not as good as 0.001") is no release."""
    for sentence in sentences(text):
        for c in _RELEASES_CONTRASTED.finditer(sentence):
            def said(part: str) -> bool:  # (not a model's or a data set's version: "the model v0.2", "Qwen v2.5")
                return any(not _MODEL_BEFORE.search(part[:r.start()]) for v in versions
                           for r in re.finditer(r"(?<![\w.])v?" + re.escape(v) + r"(?![\w.]*\d)", part))
            if said(sentence[c.start():c.end() + 16]) and said(sentence[:c.start()]):
                return True
    return False


# A release glued to the engine's name or to Chinese text, as people type it ("vllm0.8.5.post1相比0.6.3.post1"): spaced
# out first, so that the release is read as if written "vllm 0.8.5.post1 相比 0.6.3.post1".
_GLUED_RELEASE = re.compile(r"\b(" + _ENGINE_NAMES + r")(?=v?\d)|"
                            r"(?<=[\u4e00-\u9fff])(?=v?\d)|(?<=\d)(?=[\u4e00-\u9fff])", re.I)


# (left26) Another product moved between two of its releases, named before "from": "the commit is about upgrading
# pytorch from 2.6.0+cu124 to 2.7.0+cu128" (vllm-project/vllm#17741): both releases are that product's (PyTorch's wheels
# carry the CUDA build as a local version, "+cu124"), whatever engine the thread is about. Only the platform under the
# engine, whose releases other readers take (torch_releases, nccl_versions, driver_change); a Python package moved
# ("upgrading transformers from 4.44.2 to 4.45.1", "flashinfer-python 0.6.7 → 0.6.8") stays the A/B's, by its name.
_PRODUCT_FROM_TO = re.compile(
    r"\b(?:cuda|driver|torch|pytorch|python|nccl|rocm|kernel|docker|ubuntu)(?:\s+(?:version|release))?\s+"
    r"from\s+v?(?P<a>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)(?:\+\w+)?\s*(?:to|->|→)\s*"
    r"v?(?P<b>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)", re.I)


# (hostbound36) An environment listing names each release after its product's label, "- PyTorch version (GPU?): 1.3.1",
# "Python version: 3.10", "CUDA Version : 12.1" (the Hugging Face and vLLM issue templates, collect_env): the label
# can sit further back than the 16 characters the product is looked for right before a release, and the release under
# it is that product's, never the engine's A/B. The label is read back to the item's start (a new line, a list dash,
# a sentence's end) and must end in ":" or "=" after the word "version".
_LISTED_LABEL = re.compile(r"(?:^|\n|[.;|]\s|\s-\s|^-\s)\s*(?P<label>[^\n.;|]{1,40}?\bver(?:sion)?\b[^\n:=]{0,14}"
                           r"[:=])\s*v?$", re.I)


def _listed_as_other(text: str, start: int) -> bool:
    """Is the release at start listed under another product's label ("PyTorch version (GPU?): 1.3.1")?"""
    m = _LISTED_LABEL.search(text[max(0, start - 64):start])
    if not m or _ENGINE_VERSION.search(m.group("label")):
        return False
    name = re.split(r"\bver(?:sion)?\b", m.group("label"), maxsplit=1, flags=re.I)[0].strip(" -*`\t")
    return bool(name and _OTHER_PRODUCT.search(name + " version:"))  # (the product named as _OTHER_PRODUCT reads it)


def _engine_versions(text: str):
    """(engine, [versions], quote, kind, good) when the text compares two releases of a serving engine ("releases"), or
    says it moved to one ("moved"; good: that release, when going back to it cured the problem)."""
    text = _GLUED_RELEASE.sub(lambda g: (g.group(1) or "") + " ", text)
    m = _ENGINE_VERSION.search(text)
    versions: list[str] = []
    named = set()  # releases written right after the engine's name ("vLLM 0.5.4 ... vLLM 0.6.3")
    engines: set[str] = set()  # the engine named right before each release
    others = False  # a release of another product named ("CUDA 12.1", "torch 2.1.0")
    moved = [(p.start("a"), p.end("b")) for p in _PRODUCT_FROM_TO.finditer(text)]
    beyond: set[str] = set()  # releases above the majors of the engine named (_engine_release)
    for v in _SEMVER.finditer(text):
        before = text[max(0, v.start() - 16):v.start()]
        if _OTHER_PRODUCT.search(before) and not _ENGINE_VERSION.search(before) and not before.rstrip().endswith("v") \
                or any(a <= v.start() < b for a, b in moved) or _listed_as_other(text, v.start()):
            others = True
            continue
        number = next(g for g in v.groups() if g)
        if m and not _engine_release(m.group(1), number):
            beyond.add(number)
        if number not in versions:
            versions.append(number)
        if re.search(_ENGINE_VERSION.pattern + r"\W{0,3}v?$", before, re.I):
            named.add(number)
        engines.update(e.group(1).lower() for e in list(_ENGINE_VERSION.finditer(before))[-1:])
    if len(engines) > 1:
        return None  # "vllm=0.6.2 vs sglang=0.3.2": two engines compared, each at its release, not two releases
    if beyond and not (versions and _package_before(text, versions[0])):
        # (left26) "vLLM ... 2.4.0": above the engine's majors, another product's release; a package named before the
        # first keeps them its own ("libs 2.6.0 and 2.7.0 but works fine with 2.6.1", Project-HAMi/HAMi#1461)
        versions, named, others = [v for v in versions if v not in beyond], named - beyond, True
    if len(versions) < 2 and _LLAMA_CPP.search(text):
        # (s21) llama.cpp's releases are its build tags, b<build number> (github.com/ggml-org/llama.cpp/releases):
        # "good results with release b1842 and earlier. With b1843 and newer ... a ~62% drop" (ggml-org/llama.cpp#6814)
        # (the first two named are the two compared: "b1842 and earlier ... b1843 and newer", then the others listed)
        versions += [b for b in dict.fromkeys(_LLAMA_BUILD.findall(text)) if b not in versions][:2 - len(versions)]
    if len(versions) < 2:
        moved = engine_moved_to(text)
        return (*moved[:3], "moved", moved[1][0] if moved[3] else None) if moved else None
    # (s21) or bisected between them: "bisected to flashinfer-python 0.6.7 → 0.6.8.post1" (vllm-project/vllm#42186)
    if len(named) < 2 and not _CHANGE_WORDS.search(text) and not (m and engine_failure_ab(text, versions)) \
            and not (m and _RELEASES_CONTRASTED.search(text)) \
            and not (not m and not others and _bare_releases_contrasted(text, versions)):
        # (mend25: two releases set against each other with no engine named, "0.4.2 is slower than 0.4.0", are the
        # engine's the thread is about, unnamed, unless another product's release is named beside them)
        return None  # (one release works where the other fails: "vLLM 0.5.5 works, 0.6.0 hangs" is an A/B too)
    if not _PERF_WORDS.search(text) and not engine_failure_ab(text, versions) \
            and not _BISECTED.search(text) and not behaviour_lost(text):
        return None  # a behaviour change between releases is no slowdown, unless one release fails where another works
        # (or a bisect ended between them, which finds the first bad release: "bisected to X 0.6.7 → 0.6.8")
    anchor = m or _CHANGE_WORDS.search(text) or _RELEASES_CONTRASTED.search(text)
    return (_package_before(text, versions[0]) if not named else None) or (m.group(1) if m else None), \
        versions[:3], _quote(text, anchor, 120), "releases", None


# (s21) A package named right before its release, as pip names it ("flashinfer-python 0.6.7 → 0.6.8.post1",
# vllm-project/vllm#42186; "flash_attn 2.5.8"): the releases are that package's, not the engine's named elsewhere.
_PACKAGE = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*)\s*(?:==|=|:)?\s*v?$")
# ... not a word that only introduces a release ("from 0.6.7", "version 0.6.7", "between 0.6.7 and 0.6.8")
# (nor the container image that ships the release: "sglang docker image v0.4.5-cu124")
_NOT_A_PACKAGE = re.compile(r"^(?:from|to|and|or|vs|versus|between|on|in|at|with|of|is|was|since|after|before|"
                            r"version|release|build|tag|image|v|bisected|upgraded|downgraded|updated|moved|using|use|"
                            # (review3_25) "slowness start with 0.1.39", "Revert back to ver 0.1.38" (ollama#4902)
                            r"start|starts|started|starting|ver|until|till|through|than)$",
                            re.I)


def _package_before(text: str, version: str) -> str | None:
    v = re.search(r"(?<![\w.])v?" + re.escape(version) + r"(?!\d)", text)
    p = _PACKAGE.search(text[max(0, v.start() - 40):v.start()]) if v else None
    return p.group(1) if p and not (_ENGINE_VERSION.search(p.group(1)) or _NOT_A_PACKAGE.match(p.group(1))
                                    or _OTHER_PRODUCT.search(p.group(1))) else None


# A slowdown the reporter bisected to one change of the engine's code, not to a release: "regresses ... after PR
# #29223 / merge commit da802dd", "bisected the regression to commit 1a2b3c4". Git and GitHub name a change by its
# pull request number or its commit hash (seven or more hex digits, `git rev-parse --short`); a bisect (git-bisect(1))
# ends on the first bad commit. Both builds ran the same setup, so the difference is the engine's, as between releases.
# (an NCCL commit is NCCL's: nccl_versions_compared and ticket.nccl_versions read NCCL's own changes)
# (s20) ... as GitHub writes them too: a bare "#4606" right after the words that date a change ("Dual GPU performance
# regression After #4606", ggml-org/llama.cpp#5324; "Multi-GPU performance regression with #44", tensorflow/models#47),
# a full 40-digit hash ("pinpoint the performance regression at 84b58a6...", tensorflow/models#47), and the commit and
# pull-request URLs (".../commit/5bf3953d...", ".../pull/4606"). A bare "#12" elsewhere ("see #12", "step #2", "the
# discussion in #12", "reported from #12") is not.
_CODE_CHANGE = re.compile(r"\b(?:PR|pull request)\s*#\s*\d{2,6}\b|\b(?:merge\s+)?commit\s+`?[0-9a-f]{7,40}\b|"
                          r"(?:(?<=after )|(?<=since )|(?<=with )|(?<=by )|(?<=introduced in ))#\d{2,6}\b|"
                          r"(?<![\w/])[0-9a-f]{40}\b|\bgithub\.com/[\w.-]+/[\w.-]+/(?:commit/[0-9a-f]{7,40}|pull/\d{2,6})\b",
                          re.I)
_BISECT_WORDS = re.compile(r"\b(?:bisect\w*|regress\w*|introduced (?:by|in|with)|caused by|(?:slower|worse|dropp?\w*) "
                           r"(?:since|after))\b", re.I)


def code_change_regression(text: str) -> tuple[str | None, list[str], str] | None:
    """(engine, [the changes named], quote) where a performance regression is pinned on a PR or commit of the engine,
    in the sentence naming it, else None. Not one asked about, guessed, ruled out ("was not caused by PR #1") or
    supposed (_change_said), nor a change said to have fixed it ("PR #1 fixed the regression")."""
    if not _PERF_WORDS.search(text):
        return None
    refs, first = [], None
    for sentence in sentences(text):
        said = [w for w in _BISECT_WORDS.finditer(sentence) if not negated_words(sentence, w)]
        if re.search(r"\bNCCL\b", sentence) or not said or _CURED.search(sentence):
            continue
        for m in _CODE_CHANGE.finditer(sentence):
            if not _change_said(sentence, m):
                continue
            ref = re.sub(r"\s+", " ", m.group(0).replace("`", ""))
            if ref not in refs:
                refs.append(ref)
            first = first or (sentence, m)
    if not refs:
        return None
    engine = _ENGINE_VERSION.search(text)
    return (engine.group(1) if engine else None), refs[:2], _quote(first[0], first[1], 120)


# (audit30a) Two builds of the code named by their commits, each in its own sentence, one said to work and the other to
# be slower or to fail: "Commit 5744b31... is fine (~10 tok/s). Commit f2bf1a2... and later is 10x slower in streaming
# mode" (oobabooga/textgen#1220); "with commit 2f1d928 it runs at 30 tok/s as expected ... the current main at commit
# 9c3d1e2 is much slower". Only the code changed between them, as between two releases. Not one commit said to have
# fixed it ("commit 1a2b3c4 fixed the slowdown": a cure, no regression), nor a sentence that names two commits (its
# words say nothing of each), nor NCCL's commits (its own readers).
def commits_compared(text: str) -> tuple[str | None, list[str], str] | None:
    """(engine, [the slow or failing commit, the one that works], quote) where one sentence says a commit of the code
    works and another says a different commit is slower or fails, else None."""
    if not (_PERF_WORDS.search(text) or _FAILS.search(text)):
        return None
    states: dict[str, tuple[str, str, re.Match]] = {}
    for sentence in sentences(text):
        refs = [m for m in _CODE_CHANGE.finditer(sentence) if _change_said(sentence, m)]
        if len(refs) != 1 or re.search(r"\bNCCL\b", sentence) or _CURED.search(sentence) or _CURES.search(sentence):
            continue
        m = refs[0]
        ref = re.sub(r"\s+", " ", m.group(0).replace("`", ""))
        state = _state(sentence[:m.start()] + " " + sentence[m.end():])
        if ref not in states:
            states[ref] = (state, sentence, m)
    good = [r for r, (state, _, _) in states.items() if state == "good"]
    bad = [r for r, (state, _, _) in states.items() if state == "bad"]
    if len(good) == 1 and not bad:
        # the other commit named with no word of its own, in a report whose other sentences say it fails or slowed
        # ("The commit in question is 1b4ed08... 8a3766e... ran this test successfully for 20 iterations", under
        # "metal BERT test hangs", tenstorrent/tt-metal#4759): the one the report is about
        rest = text.replace(states[good[0]][1], " ")
        plain = [r for r, (state, _, _) in states.items() if state is None]
        if len(plain) == 1 and _state(rest) == "bad":
            bad = plain
    if len(good) != 1 or len(bad) != 1:
        return None
    _, sentence, m = states[bad[0]]
    engine = _ENGINE_VERSION.search(text)
    return (engine.group(1) if engine else None), [bad[0], good[0]], _quote(sentence, m, 120)


# One figure of a build, as a bisect reports it: "128.8 output tok/s", "22.7 ms".
_BUILD_FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:output\s+|decode\s+)?(tok(?:ens)?/s(?:ec)?|t/s|ms)\b", re.I)
# Words that set two builds' figures side by side as before and after the change: "41 tok/s before and 35.5 after",
# "23.4 ms with it, 20.1 ms on its parent", "from 41 to 35.5 tok/s", "128.8 -> 124.8". ("regressed after PR #1" says
# when, not which figure: the "after" right before the change does not count.)
_BEFORE_AFTER = re.compile(r"\b(?:before|after|parent|prior|previous|reverted|without it|with it|good|bad)\b|"
                           r"\bfrom\s+~?\d[\d.]*\s*(?:\S+\s+)?to\s+~?\d|\d\s*(?:\S+\s*)?(?:->|→)\s*~?\d", re.I)
_WHEN_CHANGED = re.compile(r"\b(?:after|since|with)\s+(?=" + _CODE_CHANGE.pattern + ")", re.I)
# A metric named right before a figure ("TTFT 30 ms and TPOT 8 ms"): two different ones are two metrics, not two builds.
_METRIC_BEFORE = re.compile(r"\b(ttft|tpot|itl|e2el?|latency|throughput)\b\W{0,3}(?:(?:is|was|of|at)\s+)?~?$", re.I)


def code_change_figures(text: str) -> dict[str, tuple[float, str]]:
    """{"before": (figure, unit), "after": ...} from the one sentence that names a change and gives two figures in one
    unit set side by side as before and after it (_BEFORE_AFTER), else {}. The change is a regression
    (code_change_regression), so the worse figure is the one after it: the lower rate, or the longer time."""
    for sentence in sentences(text):
        if not _CODE_CHANGE.search(sentence) or not _BEFORE_AFTER.search(_WHEN_CHANGED.sub(" ", sentence)):
            continue
        matches = list(_BUILD_FIGURE.finditer(sentence))
        found = [(float(m.group(1)), m.group(2).lower()) for m in matches]
        if len(found) != 2 or found[0][1] != found[1][1] or found[0][0] == found[1][0]:
            continue
        metrics = {n.group(1).lower() for m in matches if (n := _METRIC_BEFORE.search(sentence[:m.start()]))}
        if len(metrics) > 1:
            continue  # "TTFT 30 ms and TPOT 8 ms": two metrics of one build
        unit = found[0][1]
        worse = max if unit == "ms" else min
        after = worse(found)
        return {"before": next(f for f in found if f != after), "after": after}
    return {}


# (ab33) The same two builds set side by side as two columns of a Markdown table, headed by the side of the change
# each column measures: "| Workload | System / shape | Before #26496 | After #26496 | Drop |" (sgl-project/sglang#28224,
# #28300, #30200 share this bisect-report form), "| metric | without the PR | with the PR |". A row gives both builds'
# figures of one metric on one system, so the reporter's own A/B reads from it as from a sentence (code_change_figures).
# (review33b) The rest of such a header names the change or nothing ("Before #26496", "with the PR", "After (ms)"):
# "| With NVLink | Without NVLink |" or "| with cuda graph | without cuda graph |" beside a bisected PR sets two
# settings side by side, not the builds before and after it.
_COLUMN_REST = (r"(?=[*_`\s]*(?:\([^)]*\)[*_`\s]*)?$|[*_`\s]+(?:(?:the|this|that|a|PR|pull\s+request)\s+)?"
                r"(?:#\d+|PRs?\b|pull\b|commit|patch|change|fix|revert|merge|[0-9a-f]{7,40}\b|v?\d+\.\d+|build|version|"
                r"release|upgrade|update|nightly|main\b|master\b|bisect|regress))")
_BEFORE_COLUMN = re.compile(r"^[*_`]*(?:(?:before|without|prior\s+to)" + _COLUMN_REST +
                            r"|pre-?(?:pr|change|commit|patch)\b|parent\b)", re.I)
_AFTER_COLUMN = re.compile(r"^[*_`]*(?:(?:after|with(?!out))" + _COLUMN_REST + r"|post-?(?:pr|change|commit|patch)\b)",
                           re.I)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def ab_table_figures(text: str) -> dict[str, tuple[float, str]]:
    """{"before": (figure, unit), "after": ...} from the first Markdown table whose header has exactly one column for
    the build before a change and one for the build after it (_BEFORE_COLUMN, _AFTER_COLUMN), taken from its first row
    whose two cells each hold a figure in one unit (_BUILD_FIGURE); else {}. The change is a regression
    (code_change_regression): a row where the build after it is as good or better says no slowdown, so {}."""
    lines = text.splitlines()
    for i in range(1, len(lines) - 1):
        if not _TABLE_RULE.match(lines[i]) or not lines[i - 1].lstrip().startswith("|"):
            continue
        header = _cells(lines[i - 1])
        before = [k for k, c in enumerate(header) if _BEFORE_COLUMN.match(c)]
        after = [k for k, c in enumerate(header) if _AFTER_COLUMN.match(c)]
        if len(before) != 1 or len(after) != 1:
            continue
        for row in lines[i + 1:]:
            if not row.lstrip().startswith("|"):
                break
            cells = _cells(row)
            if max(before[0], after[0]) >= len(cells):
                continue
            found = [_BUILD_FIGURE.search(cells[k].replace(",", "")) for k in (before[0], after[0])]
            if all(found) and found[0].group(2).lower() == found[1].group(2).lower():
                (old, unit), (new, _) = [(float(m.group(1)), m.group(2).lower()) for m in found]
                # a slowdown only: the build after the change worse (a lower rate, a longer time)
                return {"before": (old, unit), "after": (new, unit)} if (new > old if unit == "ms" else new < old) \
                    else {}
    return {}


# (issue 11, s15) One release named as where the engine was moved ("after upgrading to vLLM 0.6.4 it got slower",
# "since we moved to SGLang 0.4.3 ...", "downgrading SGLang to 0.4.1 fixed it"): the other side of the A/B is the
# release before, unnamed. The verbs are how release notes and issue threads say a release changed. Only the
# engine's own name may stand between the verb and "to" ("switching gpu-memory-utilization to 0.95", "upgraded
# flashinfer to 0.1.6" move something else), and the release must be the engine's: its name right before it
# ("to vLLM 0.6.4"), as the verb's object ("upgraded vLLM to 0.6.4"), or that release given with the engine elsewhere.
_ENGINE_NAME = _ENGINE_VERSION.pattern[3:-3]
# (issue 11, s18) What people write before an engine's release in a change ("to the vLLM v0.6.3", "from version 0.5.4"),
# and the release itself
_RELEASE_LEAD = r"(?:(?:the\s+)?(?:" + _ENGINE_NAME + r")\W{0,3})?(?:(?:version|release)\s+)?v?"
_RELEASE_NUMBER = r"(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)"
_MOVED_TO = re.compile(r"\b(?P<verb>upgrad\w*|updat\w*|mov(?:e|ed|ing)|switch\w*|bump\w*|downgrad\w*|migrat\w*|"
                       r"roll(?:ed|ing)?\s+back|revert\w*|go(?:ing)?\s+back|went\s+back)"
                       r"(?:\s+(?:(?:the|our|my)\s+)?(?P<object>" + _ENGINE_NAME + r")"
                       r"(?:\s+(?:version|package|release))?)?"
                       r"\s+to\s+(?:(?:the\s+)?(?P<engine>" + _ENGINE_NAME + r")\W{0,3})?"
                       # ("to version v0.4.3.post2-cu125": the word and a post-release or CUDA-build suffix as PyPI
                       # and the images' tags write them, https://packaging.python.org/en/latest/specifications/version-specifiers/)
                       r"(?:(?:the\s+)?(?:version|release)\s+)?"
                       r"v?(?P<release>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)(?:\.?post\d+|rc\d+)?(?:-cu\d+)?(?![\w.]*\d)",
                       re.I)
# ... the engine as the subject of the change: "sglang was upgraded to ...", "vLLM has been updated to ..."
_SUBJECT_MOVED = re.compile(r"\b(" + _ENGINE_NAME + r")\s+(?:was|were|has\s+been|have\s+been|got|is|being)\s*$", re.I)
_BACK_VERB = re.compile(r"^(?:downgrad|roll|revert|go|went)", re.I)
_PLANNED = re.compile(r"\b(?:plan(?:s|ning)?|will|going|want(?:s|ed)?|would|should|could|might|try(?:ing)?|thinking|"
                      r"consider\w*|wonder\w*|if)\b(?:\s+\w+){0,3}\s*$", re.I)
_CURED = re.compile(r"\b(?:fix\w*|solv\w*|resolv\w*|cur\w*|works? again|back to normal|restor\w*|"
                    r"(?:problem|issue|hang|crash|slowdown|error)\w* (?:is |was )?gone|went away)\b", re.I)
# What the change did, said right after it: better ("it got faster", "throughput improved"), not a regression; a
# multiple of the speed said with "as fast" is a gain too ("twice as fast", "three times as fast", "2x as fast"), not
# a fraction of it ("half as fast"; (s43review) nor "0.5x as fast", "1x as fast": a figure above 1, whole).
_IMPROVED = re.compile(r"\b(?:faster|quicker|improv\w*|better|sped up|speed-?up|increas\w*|"
                       r"(?:twice|(?:two|three|four|five|several|many|(?<![\d.])(?!1(?:\.0*)?\s*(?:times|x|×))"
                       r"[1-9]\d*(?:\.\d+)?)\s*(?:times|x|×))\s+as\s+(?:fast|quick)\b)", re.I)


def _change_said(sentence: str, m: re.Match) -> bool:
    """Is the change `m` names reported as what happened, not asked about ("Is the slowdown caused by PR #1?"), guessed
    ("maybe the upgrade to 0.6.4"), ruled out ("not caused by PR #1"), supposed ("if we upgrade to ...") or planned
    ("we will upgrade to ...")? The guard of both readers of the engine's changes (releases and commits)."""
    return not (asked(sentence) or _guessed(sentence) or negated_words(sentence, m) or
                hypothetical(sentence, m.start()) or _PLANNED.search(sentence[:m.start()]))


def _improved_after(sentence: str, end: int) -> bool:
    """Does the clause after a change say it made things better ("it got faster but TP=8 is still slow")?"""
    clause = _RELEASE_CONTRAST.split(sentence[end:], 1)[0]
    return any(not _NEGATED_BEFORE.search(clause[:i.start()]) for i in _IMPROVED.finditer(clause))


# ... or the failure said to be new to the release in use: "haven't seen it in earlier versions of vllm", "this did not
# happen with older releases", "it worked fine in previous versions".
_EARLIER = (r"(?:in|with|on|under|using)\s+(?:the\s+)?(?:earlier|older|previous|prior|past|last)\s+"
            r"(?:versions?|releases?)")
_NEW_IN_RELEASE = re.compile(r"\b(?:haven'?t|havn'?t|hadn'?t|didn'?t|did not|have not|had not|never|wasn'?t|was not)\s+"
                             r"(?:\w+\s+)?(?:seen|see|saw|happen\w*|occur\w*|notic\w*|experienc\w*|encounter\w*|"
                             r"observ\w*|had|have|get|got|there)\b(?:\s+\w+){0,3}?\s+" + _EARLIER
                             # (mend2_25) "no issue with the previous version", "never had this problem on older
                             # releases"
                             + r"|\b(?:no|never\s+had\s+(?:any|this|the|such)|without\s+(?:any|this|the))\s+"
                             r"(?:such\s+|this\s+|the\s+same\s+)?(?:issues?|problems?|errors?|hangs?|crash\w*)\s+"
                             + _EARLIER
                             + r"|\b(?:worked|ran|was)\s+(?:\w+\s+){0,2}?"
                             r"(?:fine|well|ok|okay|normally|great)\s+" + _EARLIER, re.I)


# (s20) A behaviour said to start with one release: "Since version 0.11.5, the models are always placed on multiple GPUs
# ... the generated tokens per second went from 100 ... to now around 35" (ollama/ollama#11986), "since vLLM 0.6.4 it
# hangs", "starting with v0.5.0 throughput dropped". The release is the engine's when its name or the word version /
# release / a "v" stands right before it ("since version 0.9, Trac can also read ..." is a feature, not a fault: a
# failure or a rate that fell must be said too, in the sentence or after it).
_SINCE_RELEASE = re.compile(r"\b(?:since|starting\s+(?:with|from|in|at)|beginning\s+(?:with|in)|as\s+of)\s+"
                            r"(?:(?:the\s+)?(?P<engine>" + _ENGINE_NAME + r")\W{0,3})?"
                            r"(?P<word>(?:version|release)\s+[`'\"]?v?|[`'\"]?v(?=\d))?"
                            r"(?:the\s+)?(?P<release>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)(?:\.?post\d+|rc\d+)?(?![\w.]*\d)"
                            # (rel25) the word after it: "ever since the 0.5.4 release", "since the 0.6 update"
                            r"(?P<after>\s+(?:release|version|update|upgrade)\b)?", re.I)
# A rate that fell, as people write the before and after with the rate's name anywhere in the sentence: "the generated
# tokens per second ... went from 100 (when ...) to now around 35" (_RATE_FELL, the symptom's, wants the unit on both
# figures); a time or latency that "went from" is left out (it falling is no slowdown).
_FIGURE_FELL = re.compile(r"\b(?:went|gone|dropped|fell|fallen|decreased|declined|down)\s+(?:down\s+)?from\s+~?"
                        r"(\d+(?:\.\d+)?)\b[^.\n]{0,80}?\bto\s+(?:now\s+)?(?:only\s+)?(?:about\s+|around\s+|roughly\s+|"
                        r"~\s*)?(\d+(?:\.\d+)?)", re.I)
_RATE_WORDS = re.compile(r"\btokens?\s*(?:/|per)\s*s(?:ec\w*)?\b|\btok/s\b|\bt/s\b|\bthroughput\b|\bspeed\b|"
                         r"\bit/s\b|\breq/s\b|\bGB/s\b", re.I)
_TIME_WORDS = re.compile(r"\b(?:ms|latency|TTFT|TPOT|ITL|seconds?|minutes?)\b", re.I)
# ... or in words: "The speed since version `0.3.0` descreased alot" (vllm-project/vllm#2971, misspelt as written)
_RATE_WENT_DOWN = re.compile(r"\b(?:speed|throughput|performance|tok(?:ens)?/s|tokens per second)\b[^\n]{0,40}?"
                             r"\b(?:des?creas\w*|dropp?\w*|fell|went down|halved)\b", re.I)


def rate_fell(sentence: str) -> bool:
    """Does the sentence say a rate went down from one figure to a lower one ("went from 100 ... to around 35")?"""
    return any(float(m.group(2)) < float(m.group(1)) and _RATE_WORDS.search(sentence)
               and not _TIME_WORDS.search(sentence) for m in _FIGURE_FELL.finditer(sentence)) \
        or any(not _ANY_NEGATION.search(m.group(0)) for m in _RATE_WENT_DOWN.finditer(sentence))


def release_since(text: str):
    """(engine or None, [release], quote, False) when a failure or a slowdown is said to start with one release of the
    engine ("Since version 0.11.5, ..."), reported (not asked, guessed, ruled out or supposed), with a failure or a
    fallen rate said in that sentence or the ones after it; None otherwise."""
    said = sentences(text)
    for i, sentence in enumerate(said):
        m = _SINCE_RELEASE.search(sentence)
        if not m or not (m.group("engine") or m.group("word") or m.group("after")) or not _change_said(sentence, m):
            continue
        rest = said[i:]
        if any(_CURED.search(s_) or _improved_after(s_, 0) for s_ in rest[:1]):
            continue  # "since 0.6.4 it is fixed / faster"
        if any((_FAILS.search(s_) and _state(s_) == "bad") or rate_fell(s_) or timeline_figures(s_) for s_ in rest):
            engine = m.group("engine") or sole_engine(text, m.group("release"))  # (rel25) named once elsewhere
            return engine, [m.group("release")], _quote(sentence, m, 120), False
    return None


# (rel25) Another product's release, named right before it ("CUDA 12.4", "CUDA version: 12.4", "torch 2.5.1", "driver
# 550"): a release the ticket gives to that product is not the engine's, wherever else it is written bare.
_PRODUCT_BEFORE = re.compile(r"\b(?:cuda|driver|torch|pytorch|python|ubuntu|nccl|triton|flash[-_ ]?attn|"
                             r"flash[-_ ]?attention|xformers|rocm|kernel|docker|gcc|numpy|tensorrt|jax|ray)"
                             r"(?:\s+(?:version|release|toolkit|runtime))?\W{0,3}v?$", re.I)
_SAME_ENGINE = {"text-generation-inference": "tgi", "trt-llm": "tensorrt-llm", "trt_llm": "tensorrt-llm",
                "tensorrtllm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm", "trtllm": "tensorrt-llm"}


def _engine_release(engine: str, release: str) -> bool:
    """(left26) Can a bare `release` be `engine`'s? A full one (major.minor.patch) not above the majors the engine has
    published (catalog engine_release_ceiling: "2.4.0" under vLLM is PyTorch's or NCCL's); a two-part one may be the
    engine's written without its leading "0." ("since version 10. it works in 9.2", vLLM 0.10 and 0.9.2,
    vllm-project/vllm#22126), so only the general bound holds for it: not a 10.x or later, as a bare "12.4" is written
    as CUDA's toolkits are (10.x to 13.x) and no engine _ENGINE_NAMES names has reached one."""
    from rules import catalog

    ceiling = catalog.engine_release_ceiling(engine) if release.count(".") >= 2 else None
    return int(release.split(".")[0]) <= (ceiling if ceiling is not None else 9)


def sole_engine(text: str, release: str) -> str | None:
    """(rel25) The engine a bare release belongs to when the ticket names one engine only (in its title, launch line
    or env dump: "[Bug] vLLM ..." then "since upgrading to 0.6.0"), and writes that release after no other product
    ("CUDA 12.4"); None when it names none or several ("vllm ... transformers 4.40"): then nothing says whose it is."""
    names = [m.group(1) for m in _ENGINE_VERSION.finditer(text)]
    if len({_SAME_ENGINE.get(n.lower(), n.lower()) for n in names}) != 1 or not _engine_release(names[0], release):
        return None
    for m in re.finditer(r"(?<![\w.])v?" + re.escape(release) + r"(?![\d.]*\d)", text):
        if _PRODUCT_BEFORE.search(text[max(0, m.start() - 24):m.start()]) or _UNIT_AFTER.match(text, m.end()):
            return None  # another product's ("CUDA 12.4"), or a figure with its unit ("0.5 GB", "12.4 tokens/s")
    return names[0]


# (rel25) A figure and its unit, as a time line states a rate: "40 tok/s", "2.9t/s", "60 tokens per second".
_TIMELINE_UNIT = r"tok\w*/s(?:ec)?|t/s|tps|tokens?\s+per\s+sec(?:ond)?|it/s|req\w*/s(?:ec)?"
_TIMELINE_RATE = r"~?\s*(\d+(?:\.\d+)?)\s*(" + _TIMELINE_UNIT + ")"
# The rate the build before the change gave, as a time line says it: "it used to be 60 tok/s", "before the update I had
# 60 tok/s", "1200 tok/s before", "previously 60 tok/s", "I was getting 60 tok/s before". Not "before the first token".
_BEFORE_RATE = re.compile(
    r"\b(?:used\s+to\s+(?:be|get|have|see|reach|do|run\s+at|achieve)|previously(?:\s+(?:had|got|was|were|at))?|"
    r"before\s+(?:the\s+|this\s+|that\s+|my\s+|our\s+)?(?:update|upgrade|updating|upgrading)\b[^.\n\d]{0,30}?)"
    r"\s*(?:about\s+|around\s+|roughly\s+|up\s+to\s+)?" + _TIMELINE_RATE + r"\b"
    r"|(?<![\w.])" + _TIMELINE_RATE + r"\s+(?:before|previously|earlier)\b(?!\s+(?:the|it|I|we|a|an)\b)", re.I)
# (review3_25: each figure may carry its build in brackets, "from 50 tok/s (on v0.3.6) to 20 tok/s", jundot/omlx#936)
_FROM_TO_RATE = re.compile(r"\bfrom\s+~?\s*(\d+(?:\.\d+)?)\s*(?:" + _TIMELINE_UNIT + r")?(?:\s*\([^()\n]{1,30}\))?"
                           r"\s*(?:to|->|→|down\s+to)"
                           r"\s+(?:now\s+)?(?:only\s+)?(?:about\s+|around\s+|roughly\s+)?" + _TIMELINE_RATE + r"\b",
                           re.I)
# ... the same said the other way round: "decode's token speed dropped to 10 token/s from 30token/s"
_TO_FROM_RATE = re.compile(r"\b(?:dropped|dropping|fell|fallen|decreased|declined|went\s+down|down)\s+to\s+"
                           r"(?:only\s+)?(?:about\s+|around\s+)?" + _TIMELINE_RATE + r"\s+from\s+" + _TIMELINE_RATE
                           + r"\b", re.I)


_RATE_BACK = re.compile(r"\b(?:am|is|are|was|were|got|get|it's|we're|I'm)\s+(?:\w+\s+)?back\s+(?:up\s+)?to\s+~?\s*"
                        r"\d+(?:\.\d+)?\s*(?:" + _TIMELINE_UNIT + r")", re.I)


def _rate_unit(unit: str) -> str:
    unit = " ".join(unit.lower().split())
    return "tok/s" if unit.startswith("tok") or unit in ("t/s", "tps") else unit


def timeline_figures(sentence: str) -> dict:
    """(rel25) {"before": (value, unit), "after": (value, unit)} when a sentence tells a rate that fell with a change
    as a time line: "the throughput dropped from 40 to 25 tok/s", "only 30 tok/s, it used to be 60 tok/s", "1200 tok/s
    before, 800 tok/s now". The figure said of before is the build before the change's; the other one, in the same
    unit, the build now. A rate that rose is no slowdown ({})."""
    m = _FROM_TO_RATE.search(sentence)
    if m:
        before, after, unit = float(m.group(1)), float(m.group(2)), _rate_unit(m.group(3))
        return {"before": (before, unit), "after": (after, unit)} if before > after else {}
    m = _TO_FROM_RATE.search(sentence)
    if m and _rate_unit(m.group(2)) == _rate_unit(m.group(4)):
        before, after, unit = float(m.group(3)), float(m.group(1)), _rate_unit(m.group(2))
        return {"before": (before, unit), "after": (after, unit)} if before > after else {}
    m = _BEFORE_RATE.search(sentence)
    if not m:
        return {}
    value, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    before, unit = float(value), _rate_unit(unit)
    start, end = (m.start(1), m.end(2)) if m.group(1) else (m.start(3), m.end(4))
    for f in re.finditer(r"(?<![\w.])" + _TIMELINE_RATE + r"\b", sentence, re.I):
        if f.end() <= start or f.start() >= end:
            if _rate_unit(f.group(2)) == unit and float(f.group(1)) < before:
                return {"before": (before, unit), "after": (float(f.group(1)), unit)}
    return {}


def moved_timeline(text: str, release: str) -> dict:
    """(rel25) The time line (timeline_figures) told in the sentence that names the release moved to or the one after
    it ("I upgraded to 0.6.3. Throughput dropped from 40 to 25 tok/s."); {} elsewhere (another comparison's figures)."""
    said = sentences(text)
    at = next((i for i, s_ in enumerate(said) if re.search(r"(?<![\w.])v?" + re.escape(release) + r"(?![\d.]*\d)", s_)),
              None)
    return {} if at is None else next((t for s_ in said[at:at + 2] if (t := timeline_figures(s_))), {})


def engine_moved_to(text: str):
    """(engine, [release], quote, cured) when the text says the engine was moved to one named release and it then
    failed or slowed ("after upgrading to vLLM 0.6.4 throughput dropped"), or that going back to one cured it
    ("downgrading to 0.4.1 fixed it": cured, that release is the good one), or that a failure of the one release it
    names was not there in earlier ones. Not an upgrade that cured it or made it faster, a plan ("we will upgrade to
    ..."), a question or a guess, nor a sentence that rules the change out ("it is not the upgrade to 0.6.4")."""
    said = sentences(text)
    for i, sentence in enumerate(said):
        m = _MOVED_TO.search(sentence)
        if not m or not _change_said(sentence, m):
            continue
        engine = m.group("engine") or m.group("object")
        if not engine and (subject := _SUBJECT_MOVED.search(sentence[:m.start()])):
            engine = subject.group(1)
        given = re.search(r"\b(" + _ENGINE_NAME + r")\W{0,3}v?" + re.escape(m.group("release")) + r"(?![\w.]*\d)", text,
                          re.I)
        engine = engine or (given.group(1) if given else sole_engine(text, m.group("release")))
        if not engine:
            continue  # "after upgrading to 12.4 tokens/s ...": nothing says 12.4 is the engine's release
        # (rel25) going back cured it when the rate came back with it: "i went back to 0.6.8 and i am back to
        # 2.9t/s" (ollama/ollama#10680)
        cured = bool(_CURED.search(sentence)) or bool(_BACK_VERB.match(m.group("verb")) and _RATE_BACK.search(
            sentence, m.end()))
        if bool(_BACK_VERB.match(m.group("verb"))) != cured:
            continue  # an upgrade that cured it, or a downgrade that did not
        # (rel25) a rate that fell, told with the move or right after it: "I upgraded to 0.6.3. Throughput dropped
        # from 40 to 25 tok/s."
        slowed = any(timeline_figures(s_) or rate_fell(s_) for s_ in said[i:i + 2])
        if not cured and (not slowed and (_state(sentence) != "bad" or not (_PERF_WORDS.search(sentence)
                                                                             or _FAILS.search(sentence)))
                          or _improved_after(sentence, m.end())):
            continue  # the move named, but no failure or slowdown with it, or it made things better
        return engine, [m.group("release")], _quote(sentence, m, 120), cured
    if since := release_since(text):
        return since
    releases = [r for r in re.finditer(_ENGINE_VERSION.pattern + r"\W{0,3}v?(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)\b", text,
                                       re.I)]
    # (the clause's own question mark: "haven't seen it in earlier versions, any thoughts?" reports, then asks)
    new = next((m for s_ in sentences(text) for m in [_NEW_IN_RELEASE.search(s_)]
                if m and not asked(s_[:m.start()] + re.match(r"[^,;?]*\??", s_[m.start():]).group(0))
                and not _guessed(s_)), None)
    if new and len({r.group(2) for r in releases}) == 1 and _FAILS.search(text):
        return releases[0].group(1), [releases[0].group(2)], _quote(text, new, 120), False
    return None


# (issue 11, s18) Which of two releases is the good one, from the words that move between them, not from their order:
# "downgrading to 0.5.4 fixed it", "rolled back to v0.10.2" (the release gone back to works; the one left is slow),
# "upgrading to 0.7.0 fixed it" (the newer one works), "after upgrading from 0.12.0 to 0.13.0 it is slow" (the one
# left worked), "we rolled back to 0.6.3, which is even slower" (the release gone back to is the slow one).
_FROM_TO = re.compile(r"\bfrom\s+" + _RELEASE_LEAD + _RELEASE_NUMBER + r"\S*\s+to\s+" + _RELEASE_LEAD + _RELEASE_NUMBER,
                      re.I)


def release_direction(text: str, versions: list[str]) -> str | None:
    """The release of `versions` that behaves well, read from the first sentence that moves between releases: one gone
    back to ("downgraded to", "rolled back to", "reverted to") is the good one unless the words right after it call it
    worse; one moved forward to is the good one when the move cured or sped things up, else the one left is (a move
    said with a failure, a slowdown or a rate). None when no sentence says; a question, a guess or a plan says
    nothing."""
    for sentence in sentences(text):
        m = _MOVED_TO.search(sentence)
        fro = _FROM_TO.search(sentence)
        if fro and (not m or fro.start() < m.start()) and _SIDE_MOVE.search(sentence[:fro.start()]):
            to, left, verb, end = fro.group(2), fro.group(1), _SIDE_MOVE.search(sentence[:fro.start()]), fro.end()
        elif m:
            to, verb, end = m.group("release"), m, m.end()
            left = fro.group(1) if fro and fro.group(2) == to else None
        else:
            continue
        left = left or (next(v for v in versions if v != to) if len(versions) == 2 else None)
        if to not in versions or not _change_said(sentence, verb):
            continue
        after = _RELEASE_CONTRAST.split(sentence[end:], 1)[0]
        if _BACK_VERB.match(verb.group(0)):
            worse = _WORSE_STILL.search(after)
            return left if worse and not _NEGATED_BEFORE.search(after[:worse.start()]) else to
        if _CURED.search(sentence) or _improved_after(sentence, end):
            return to  # the move cured it or sped it up
        if _state(sentence) == "bad" or _PERF_WORDS.search(sentence) or _TOLD_FIGURE.search(sentence):
            return left if left in versions else None  # the move came with the failure or the slowdown
        if _state(after) == "good":
            return to  # "upgraded from 0.5.4 to 0.6.0 and it no longer hangs": the failure stopped with the move
    return None


# (mend2_25) A release of the engine said to work, as reporters name the build to stay on: "It works fine in 0.2.0",
# "was OK on v0.5.3", "no issue with vLLM 0.5.4", "0.4.2 works fine", "runs normally under version 0.6.1". The release
# is the engine's: its name or "version"/"release"/"v" right before it (_RELEASE_LEAD), or an engine named in the text
# and no other product (CUDA 12.1, driver 535.104, NCCL 2.18) right before it. Not asked ("works in 0.2.0?"), denied
# ("doesn't work in 0.2.0 either", "not working with 0.5.3"), supposed, planned or guessed (_change_said).
_WORKS_FINE = (r"(?:fine|well|ok|okay|normally|perfectly|great|correctly|properly|as expected|"
               r"without (?:any )?(?:issues?|problems?))")
_WORKS_VERB = r"(?:works?|worked|working|runs?|ran|running|is|was|were|has been|had been|been|it's)"
_WORKS_IN = re.compile(r"\b(?:" + _WORKS_VERB + r"\s+(?:\w+\s+)?" + _WORKS_FINE + r"|works?|worked|working|"
                       r"(?:no|without)\s+(?:such\s+|any\s+|the\s+same\s+)?(?:issues?|problems?|errors?|hangs?|"
                       r"slowdowns?|regressions?)|"
                       # "got fixed when using vllm==0.11.0", "solved by installing vLLM 0.6.0"
                       r"(?:fix\w*|solv\w*|resolv\w*)\s+(?:when|by|after)\s+(?:using|installing|pinning|switching\s+to)|"
                       # an issue template's label: "Working version: 0.6.6.post1" (vllm-project/vllm#14415)
                       r"working\s+(?:version|release)\s*[:=]?)"
                       # (a container image's tag is the release it ships: "with vllm/vllm-openai:v0.4.3")
                       r"\s+(?:in|on|with|under|using|for)?\s*[`'\"]?(?:[\w.-]+/[\w.-]+:)?"
                       r"(?P<lead>" + _RELEASE_LEAD + r")"
                       + _RELEASE_NUMBER + r"(?:\.?(?:post|rc|dev)\d+)?(?![\w.]*\d)", re.I)
_RELEASE_WORKS = re.compile(r"(?<![\w.])[`'\"]?(?P<lead>" + _RELEASE_LEAD + r")" + _RELEASE_NUMBER +
                            r"(?:\.?(?:post|rc|dev)\d+)?(?![\w.]*\d)[`'\"]?,?\s+(?:(?:still|just|also)\s+)?"
                            r"(?:" + _WORKS_VERB + r"\s+(?:\w+\s+)?" + _WORKS_FINE + r"|works|worked|"
                            # "With vllm==0.5.4 I used to be able to run ... TP=16", "on 0.5.3 we could serve it"
                            r"(?:I|we|it|this|everything)\s+(?:used\s+to|could|was\s+able\s+to|were\s+able\s+to))\b",
                            re.I)
# ... or gone back to and cured: "downgrading to 0.4.2 fixes it", "rolled back to v0.10.2 and it works again"
_WORKS_BACK_TO = re.compile(r"\b(?:downgrad\w*|roll(?:ed|ing)?\s+back|revert\w*|go(?:ing)?\s+back|went\s+back)"
                      r"(?:\s+(?:the\s+)?(?:" + _ENGINE_NAME + r"))?\s+to\s+[`'\"]?(?P<lead>" + _RELEASE_LEAD + r")"
                      + _RELEASE_NUMBER + r"(?:\.?(?:post|rc|dev)\d+)?(?![\w.]*\d)", re.I)
_WORKS_OTHER = re.compile(r"\b(?:cuda|driver|nccl|torch|pytorch|transformers|flash[-_ ]?attn|python|kernel|triton|"
                              r"cudnn|ubuntu|rocm|docker)\b", re.I)
# ... or a run said possible on it: "I can run with -tp 2 in version 9.2" (vllm-project/vllm#22479)
_CAN_RUN_ON = re.compile(r"\b(?:I|we)\s+(?:can|could|am able to|are able to|was able to|were able to)\s+(?:still\s+)?"
                         r"(?:run|serve|load|use|start)\b[^.;\n]{0,40}?\b(?:in|on|with|using|under)\s+[`'\"]?"
                         r"(?P<lead>" + _RELEASE_LEAD + r")" + _RELEASE_NUMBER + r"(?![\w.]*\d)", re.I)
_WORKS_DENIED = re.compile(r"(?:\b(?:not|never|no longer)|n't)\s+(?:\w+\s+){0,2}$", re.I)


# (mend2_25) The release that fails, named as the engine's: right after its name ("vLLM 0.6.2"), or where it was moved
# ("upgrading vLLM to 0.6.2", "since version 0.6.0"); and what it did, a failure, a slowdown or a raised exception.
_ENGINE_RELEASE_NAMED = re.compile(r"\b(?:" + _ENGINE_NAME + r")\W{0,3}(?:version\s+|release\s+)?v?" + _RELEASE_NUMBER
                                   + r"(?![\w.]*\d)|\b(?:to|since|from|on|in|with|using)\s+(?:version\s+|release\s+|v)"
                                   + _RELEASE_NUMBER + r"(?![\w.]*\d)", re.I)
_RAISES = re.compile(r"\b(?:raise[sd]?|raising|throws?|threw|traceback|exception)\b|\b[A-Z]\w*(?:Error|Exception)\b")


def _own_engine(named: str, engine: str | None) -> bool:
    """Does the release `named` ("vLLM 0.22.0") sit right after the name of the engine said to work (`engine`, as
    release_works gives it)? _OTHER_PRODUCT lists the engines too (an engine's release beside NCCL's is another
    product's), so without this the engine's own failing release ("works fine with the vLLM 0.19 image ... vllm
    0.22.0", vllm-project/vllm#45021; "Error ... in vllm 0.7.0 (No Issue in vllm 0.6.6)", vllm-project/vllm#12515)
    was never read as the other side (nccl43)."""
    lead = re.match(_ENGINE_NAME, named, re.I)
    return bool(lead and engine and lead.group(0).lower() == engine.lower())


# (s43review) The word right after a release, "of" between: the product a release with no name before it belongs to
# ("crashes when using version 12.4 of CUDA", "with v2.5.1 torch"), read by _OTHER_PRODUCT over that word alone.
# (fr43) Without "of", a word not followed by ".word" nor by a part of the engine (_ENGINE_PART): "v0.6.3 torch.compile
# hangs", "v0.6.3 Ray workers hang" name a part of the engine's release, not another product's; "with v2.5.1 torch it
# crashes", "with version 12.4 CUDA it crashes" do (fr43 B2).
_ENGINE_PART = r"(?:workers?|kernels?|backends?|graphs?|actors?)\b"
_NAME_AFTER = re.compile(r"\s{0,3}(?:of\s{1,3}(?:the\s{1,3})?([A-Za-z][\w+-]*)|"
                         r"([A-Za-z][\w+-]*)(?![\w+-]|\.\w|\s+" + _ENGINE_PART + r"))")


def _product_after(text: str, end: int, engine: str | None) -> bool:
    """Is the release ending at `end` another product's, named right after it (_NAME_AFTER), not the engine's own
    ("version 0.7.0 of vLLM")?"""
    m = _NAME_AFTER.match(text, end)
    name = m and (m.group(1) or m.group(2))
    return bool(name and not (engine and name.lower() == engine.lower()) and _OTHER_PRODUCT.match(name))


def works_vs_failing(text: str, works) -> tuple[str | None, list[str], str] | None:
    """(engine, [failing release, working release], quote) when the text says one release of the engine works
    (`works`: release_works of the same text) and names another of its releases beside a failure, a slowdown or an
    exception: a regression between the two builds, the working one being the build to stay on."""
    if not works or not (_FAILS.search(text) or _PERF_WORDS.search(text) or _RAISES.search(text)):
        return None
    others = [r for m in _ENGINE_RELEASE_NAMED.finditer(text) for r in m.groups() if r and r != works[1]
              and (_own_engine(m.group(0), works[0])
                   or not (_OTHER_PRODUCT.search(text[max(0, m.start() - 16):m.start()] + m.group(0).split()[0])
                           or _product_after(text, m.end(), works[0])))]
    others += [m.group("release") for m in _MOVED_TO.finditer(text) if m.group("release") != works[1]
               and (m.group("engine") or m.group("object"))]  # "upgrading vLLM to 0.6.2"
    if not others:
        return None
    return works[0], [others[0], works[1]], works[2]


def release_works(text: str) -> tuple[str | None, str, str, str] | None:
    """(engine or None, release, quote, the release as written with its suffix: "0.6.6.post1") for the first release
    of the engine the text says works, else None."""
    engine_named = _ENGINE_VERSION.search(text)
    for sentence in sentences(text):
        back = [m for m in _WORKS_BACK_TO.finditer(sentence) if _CURED.search(sentence, m.end())
                and (re.search(r"\S", m.group("lead")) or not _WORKS_OTHER.search(sentence))]
        for m in (*_WORKS_IN.finditer(sentence), *_RELEASE_WORKS.finditer(sentence), *_CAN_RUN_ON.finditer(sentence),
                  *back):
            lead, release = m.group("lead"), m.group(m.re.groups)
            if not (re.search(r"\S", lead) or engine_named):
                continue  # "works with 12.1": nothing says it is the engine's release
            if not re.search(r"\S", lead) and _OTHER_PRODUCT.search(sentence[max(0, m.start(m.re.groups) - 16):
                                                                             m.start(m.re.groups)]):
                continue
            if not re.search(r"\S", lead) and (
                    re.search(r"\b(?:cuda|driver|nccl|torch|pytorch|python|kernel|ubuntu|rocm)\W{0,3}(?:version\s+)?v?"
                              + re.escape(release) + r"(?![\w.]*\d)", text, re.I)
                    or (_WORKS_OTHER.search(sentence) and not _ENGINE_VERSION.search(sentence))):
                continue  # a bare release that is another component's ("CUDA 12.3 ... works for 12.3 on other GPUs")
            if re.search(r"\b(?:not|never)\b|n't\b", m.group(0), re.I) or _WORKS_DENIED.search(sentence[:m.start()]) \
                    or re.match(r"\s*(?:either|neither)\b", sentence[m.end():], re.I):
                continue  # "doesn't work in 0.2.0 either", "is not fine on 0.5.3"
            if not _change_said(sentence, m) or _guessed(sentence, m.start()):
                continue
            engine = re.search(_ENGINE_NAME, lead, re.I)
            full = re.match(r"\d+(?:\.\d+)*(?:\.?(?:post|rc|dev)\d+)?", sentence[m.start(m.re.groups):]).group(0)
            name = engine.group(0) if engine else engine_named.group(1) if engine_named else None
            if name and not _engine_release(name, release):
                continue  # (left26) "works on 2.6.0" in a vLLM thread: above vLLM's majors, PyTorch's or NCCL's
            return name, release, _quote(sentence, m, 100), full
    return None


# Words that call a release gone back to worse still: "which is even slower", "got worse".
_WORSE_STILL = re.compile(r"\b(?:slower|worse|poorer|lower\s+throughput|higher\s+latency)\b", re.I)


# An engine's release as people write it: "v0.25.0", "0.24.0", "v0.6" (its own numbering starts at 0, unlike NCCL's).
_ENGINE_RELEASE = re.compile(r"(?<![\w.])v?(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)(?![\w.]*\d)")


_GONE_BACK = r"\b(?:downgrad\w*|roll(?:ing|ed)?\s+back|revert\w*(?:\s+back)?|go(?:ing)?\s+back|went\s+back)\b"


def engine_failure_ab(text: str, versions: list[str]) -> bool:
    """One release of the engine fails (hangs, crashes, errors) where another of its releases works, each said in a
    part naming its own release ("vLLM v0.25.0 will hang ...; it starts successfully if I downgrade vLLM to
    v0.24.0"): the same A/B as NCCL's (failure_ab), over the engine's releases."""
    good, bad = release_sides(text, versions, _ENGINE_RELEASE)
    if good and not bad and _FAILS.search(text):
        # going back to a release cures a failure the text names: the other release named is the failing one
        back = [m.group(1) for m in re.finditer(_GONE_BACK + r"[^.\n]{0,40}?" + _ENGINE_RELEASE.pattern, text, re.I)]
        bad = {v for v in versions if v not in good} if set(back) & good else set()
    return bool(good and bad and not good & bad)


# (issue 11 s) The figure each release gave, written right after it: "vLLM 0.5.4: 42 tok/s; vLLM 0.6.3: 31 tok/s",
# "0.5.4 -> 42 tok/s", "with 0.6.3 we get 31 tok/s". {version: (value, unit)} for the releases with one.
# (Markdown emphasis may wrap the release or its separator: "**v0.4.6:** 27 tokens/sec", sglang#7568)
_RELEASE_FIGURE = r"(?:[*_]*\s*(?::|=|->|→|\|)[*_]*\s*|[*_]*\s+(?:gives?|gave|got|does|did|reaches|reached|is at|" \
                  r"was at|at|we get|I get|we got|I got|runs at|ran at)\s+)~?(\d+(?:\.\d+)?)\s*" \
                  r"(tok\w*/s(?:ec)?|t/s|tps|it/s|[GM]B/s|samples/s|req\w*/s(?:ec)?|fps|images?/s|ms)\b"


def release_figures(text: str, versions: list[str]) -> dict[str, tuple[float, str]]:
    out: dict[str, tuple[float, str]] = {}
    passed: dict[str, tuple[float, str]] = {}  # figures written after a release a change left: its target's
    for v in versions:
        for m in re.finditer(r"(?<![\d.])(v?" + re.escape(v) + r")(?![\d.]*\d)" + _RELEASE_FIGURE, text, re.I):
            target = changed_to(text, m.start(1), m.end(1), v, versions)
            if target is None:
                out[v] = (float(m.group(2)), m.group(3))
                break
            if target:
                passed.setdefault(target, (float(m.group(2)), m.group(3)))
    for v in versions:  # (issue 11, s17) the figure told of a release in the next sentence
        for m in re.finditer(r"(?<![\d.])v?" + re.escape(v) + r"(?![\d.]*\d)", text):
            figure = _figure_told_after(text, m.end(), v, versions)
            target = changed_to(text, m.start(), m.end(), v, versions)
            if figure and target is None:
                out.setdefault(v, figure)
            elif figure and target:
                passed.setdefault(target, figure)
            if figure or target is None:
                break  # the first mention that tells a figure, or tells none of its own, decides
    for v in versions:  # "only 28tok/s after upgrading to v0.12.0" (vllm-project/vllm#31030): the figure before
        if v not in out and (m := re.search(_FIGURE_BEFORE + re.escape(v) + r"(?![\d.]*\d)", text, re.I)):
            out[v] = (float(m.group(1)), m.group(2))
    for v, figure in passed.items():
        out.setdefault(v, figure)
    return out


# A rate written right before the change that brought the release it belongs to: "28tok/s after upgrading to
# v0.12.0", "31 tok/s since we moved to vLLM 0.6.3", "42 tok/s on 0.5.4"
_FIGURE_BEFORE = (r"(?<![\w.])~?(\d+(?:\.\d+)?)\s*(tok\w*/s(?:ec)?|t/s|tps|it/s|[GM]B/s|req\w*/s(?:ec)?)\s+"
                  r"(?:after|since|with|on|using|in)\s+(?:(?:we|I)\s+)?"
                  r"(?:(?:upgrad|updat|mov|switch|bump|downgrad|revert)\w*\s+(?:to\s+)?)?" + _RELEASE_LEAD)


# (issue 11, s18) A release that is the source of a change: "from 0.12.0 to 0.13.0", "upgrading from 0.12.0 we get
# 3000 tok/s", "0.12.0 -> 0.13.0". What is written after it is the run on the release moved to, not its own.
_FROM_RELEASE = re.compile(r"\bfrom\s+" + _RELEASE_LEAD + "$", re.I)
_TO_RELEASE = re.compile(r"(?:\.?(?:dev|post|rc)\d+)?(?:-cu\d+)?\s*(?:->|→|=>|\bto\b)\s*" + _RELEASE_LEAD
                         + _RELEASE_NUMBER + r"(?![\d.]*\d)", re.I)


# ... though a parenthesis or a relative clause right after the source still tells of it: "from 0.12.0 (6000 tok/s) to
# 0.13.0", "coming from 0.5.4, where we had 42 tok/s, ..."
_OF_ITSELF = re.compile(r"(?:\.?(?:dev|post|rc)\d+)?`?\s*(?:\(|\[|(?:,\s*)?(?:where|when|which|in which|on which|"
                        r"at which|with which)\b)", re.I)


def changed_to(text: str, start: int, end: int, v: str, versions: list[str]) -> str | None:
    """For the mention of release `v` at text[start:end]: None when what follows it is its own (it is no change's
    source, or a parenthesis or relative clause of its own follows); else the release the change went to (named after
    "to" or an arrow, else the one other release of `versions`), "" when unknown."""
    if _OF_ITSELF.match(text, end):
        return None
    to = _TO_RELEASE.match(text, end)
    if to and to.group(1) != v:
        return to.group(1)
    if not _FROM_RELEASE.search(text[max(0, start - 60):start]):
        return None
    others = [x for x in versions if x != v]
    return others[0] if len(others) == 1 else ""


# A rate as _RELEASE_FIGURE writes one: "approximately 6200 tokens/s", "~42 tok/s".
_TOLD_FIGURE = re.compile(r"(?<![\w.])~?(\d+(?:\.\d+)?)\s*(tok\w*/s(?:ec)?|t/s|tps|it/s|[GM]B/s|req\w*/s(?:ec)?)\b",
                          re.I)


def _figure_told_after(text: str, end: int, v: str, versions: list[str]) -> tuple[float, str] | None:
    """(value, unit) of the first rate written after the mention of release `v` ending at `end`, in its sentence or the
    next, before any other release of `versions` is named: "In a previous version of TRT-LLM (0.12.0), I was able to
    run 4 servers ... With this configuration, I achieved approximately 6200 tokens/s" (NVIDIA/TensorRT-LLM#2802)
    tells 0.12.0's figure. A paragraph break or another release between them leaves it untold."""
    after = re.split(r"\n\s*\n", text[end:], maxsplit=1)[0]
    ends = [e.end() for e in re.finditer(r"[.!?。](?:\s|$)", after)]
    after = after[:ends[1]] if len(ends) > 1 else after  # its sentence and the next
    others = [o.start() for x in versions if x != v for o in re.finditer(r"(?<![\d.])" + re.escape(x), after)]
    f = _TOLD_FIGURE.search(after)
    if not f or (others and min(others) < f.start()):
        return None
    return float(f.group(1)), f.group(2)


# "v2.9.9-1: 53.95", "2.19.3 -> 385 GB/s": a figure per NCCL release, one per line or item.
# (a Markdown table row "| 2.18.5 | 182 |" puts the release and its figure in neighbouring cells)
_VERSION_FIGURE = re.compile(r"(?<![\d.])(v)?([12]\.\d{1,2}(?:\.\d{1,2})?)(-\d)?"
                             r"\s*(?::|=|->|→|gives|got|\|)\s*~?(\d+(?:\.\d+)?)")
# Two releases' figures count as different past this ratio. Not fitted to a case: bus bandwidth of one
# system measured twice moves by a few percent, and a tuning change between releases (algorithm, protocol,
# channel count; NCCL_DEBUG_SUBSYS=TUNING) moves it by far more, so the margin sits well above the first.
RELEASES_DIFFER = 1.2


def _versions_contrasted(text: str, named: list[str]) -> bool:
    """A sentence that names two of the NCCL releases with a word that contrasts them ("2.16.2 is slower than
    2.14.3", "dropped from 2.19.3 to 2.20.3"), or one release with such a word and the other in the next
    sentence. Two releases named far apart (the source file of one, the release in use) are no A/B."""
    known = set(named)
    parts = sentences(text)
    for i, sentence in enumerate(parts):
        here = {m.group(1) for m in _VERSION.finditer(sentence)} & known
        # (words42: nor denied in Chinese, "带宽没有下降")
        said = [m for m in _REGRESS_WORDS.finditer(sentence) if not negated_words(sentence, m)
                and not _zh_denied(sentence, m)]
        if not here or not said or said_alike(sentence):
            continue  # "not a regression", "the same on both": no contrast
        near = here | ({m.group(1) for m in _VERSION.finditer(" ".join(parts[max(0, i - 1):i + 2]))} & known)
        if len(near) >= 2 or (any(_RELEASE_CHANGE.match(m.group(0)) for m in said) and len(known) >= 2):
            return True  # "a regression in 2.29.7" compares it with a release the text names elsewhere
    return False


def _change_worded(text: str) -> bool:
    """(ab33) A sentence that says a release change made a difference ("slower on 0.6.3", "since the upgrade"), as
    _versions_contrasted reads NCCL's: not one that rules it out ("the upgrade from 0.5.4 is not the problem", "no
    slower than 0.5.4", "the upgrade made no difference") nor one that calls both alike ("0.5.4 gave the same", "the
    same 15 tok/s")."""
    for sentence in sentences(text):
        if said_alike(sentence) or _SAME_RATE.search(sentence):
            continue
        if any(not negated_words(sentence, m) and not _zh_denied(sentence, m)
               and not _CHANGE_RULED_OUT.match(sentence, m.end()) for m in _REGRESS_WORDS.finditer(sentence)):
            return True
    return False


# (review33b) The change itself ruled out in its own clause, the verdict after it: "The upgrade from 0.5.4 is not the
# problem", "the upgrade made no difference"; and one figure said of both sides, "Downgrading to 0.5.4 did not help,
# same 15 tok/s", "0.5.4 gave the same 15 tok/s" (said_alike reads "the same" only where its clause ends). Not "did not
# help" alone: "Upgrading to 0.6.3 did not help, and it is slower than 0.5.4" still sets the two releases apart.
_CHANGE_RULED_OUT = re.compile(
    r"(?:[^.;,:!?]|\.(?=\d)){0,40}?\b(?:(?:(?:is|was)\s+not|isn't|wasn't)\s+(?:the\s+)?"
    r"(?:problem|issue|cause|culprit|reason)\b|"
    r"(?:did(?:\s+not|n't)|does(?:\s+not|n't))\s+(?:change\s+anything|make\s+(?:a|any)\s+difference)\b|"
    r"made\s+no\s+difference|changed\s+nothing|(?:had|has)\s+no\s+effect)", re.I)
_SAME_RATE = re.compile(r"\b(?:the\s+)?same\s+(?:~\s*)?\d+(?:\.\d+)?\s*(?:tok(?:ens)?/s|t/s|it/s|ms\b|s\b|GB/s)",
                        re.I)


# Words that themselves say a release was compared with another: a regression, an upgrade, a downgrade.
_RELEASE_CHANGE = re.compile(r"\b(?:regress\w*|upgrad\w*|downgrad\w*)\b", re.I)


# "with 2.18 it works, with 2.19 it hangs", "2.27 was very slow, but 2.21 was normal": one release behaves
# badly where another does not. The words are how people report a release change (NCCL release notes and
# issue threads): a failure (hang, crash, error) or a slowdown on one side, "works", "fine", "normal", "no problems"
# on the other. A negator before a word turns it over ("no problems", "not normal", "doesn't work"), and so does
# a word after it saying it went away ("the hang is gone").
_WORKS = re.compile(r"\b(?:works?|worked|working|fine|ok|okay|succe(?:ed|ss)\w*|passe[sd]|normal(?:ly)?|as expected|"
                    r"good|correct(?:ly)?)\b|"
                    # (para37b) in Chinese: 没(有)问题 "no problem", 正常 "normal", 能跑/跑通 "runs"
                    r"(?<!有)没有?问题|(?<!不)正常|能跑|跑通", re.I)
_FAILS = re.compile(r"\b(?:hang\w*|hung|stuck|fail\w*|crash\w*|errors?|deadlock\w*|segfault\w*|freez\w*|froze|broken|"
                    r"problems?|issues?|bugs?|"
                    r"slow(?:er|s|ed|ing|ly)?|poor(?:ly)?|worse|degrad\w*|regress\w*|drop(?:s|ped)?|"
                    r"low(?:er)?(?!\s+(?:latency|latencies|overhead|memory|power|temperature)))\b|"
                    # (para37b) in Chinese: 卡住/卡死 "hangs", 报错 "errors out", 失败 "fails", 崩溃 "crashes",
                    # 变慢 "slower"
                    r"卡住|卡死|报错|失败|崩溃|变慢|"
                    # (para37c) and "很慢" slow, "很低" low (as slow / low above), 崩 "crashes" for short ("会崩"); not
                    # 不慢 / 不会崩 / 没崩, nor "低于" a comparison
                    r"(?<![不没])(?:很|非常|特别|极|太|比较)?慢|(?:很|非常|特别|极|太|比较)低(?!于)|"
                    r"(?<!不会)(?<![不没])崩", re.I)
_NEGATED_BEFORE = re.compile(r"(?:\b(?:not|no|never|nor|without|none of)|n't)(?:\s+\w+){0,2}\s+$", re.I)
# (regex34: a search starts the gap at its first blank only, (?<!\s), so a long run of spaces is not re-read from each)
_GONE_AFTER = re.compile(r"(?<!\s)\s+(?:\w+\s+){0,2}?(?:(?:is|are|was|were)\s*)?(?:gone|went away|disappear\w*|"
                         r"resolved|fixed)\b", re.I)
# (issue 11, s15) The same said of the releases ("the same on 2.18.3 and 2.19.3", "no difference between them", "2.18.3
# and 2.19.3 give identical results"): no contrast, whatever else the sentence says ("so this is not a regression").
# "Same" said of something else ("same for both nodes", "the same with and without NVLS", "no difference between IB
# and RoCE") leaves the releases' contrast standing: it counts only with the releases right after it, or closing a
# clause that names them.
_SAME_WORDS = re.compile(r"\b(?:the )?(?:same|identical)(?: (?:error|hang|problem|issue|result|behaviou?r|numbers?|"
                         r"performance|speed|bandwidth|busbw)s?)?(?: (?:on|in|with|for|across|between|under|as))?\b|"
                         r"\bno (?:real |noticeable |measurable |significant )?difference"
                         r"(?: (?:between|across|with|on|for|in))?\b", re.I)
# Hardware or runs "both" may be said of instead of releases ("on both nodes", "either GPU").
_NOT_RELEASES = r"(?!\s+(?:nodes?|GPUs?|servers?|machines?|hosts?|cards?|ranks?|boxes|systems?|clusters?|NICs?|" \
                r"sockets?|sides?|directions?|modes?|ways?)\b)"
_RELEASES_NEXT = re.compile(r"\s*(?:(?:NCCL|" + _ENGINE_VERSION.pattern[3:-3] + r")\s*)?(?:v?\d+\.\d+|"
                            r"(?:both|either|neither)\b" + _NOT_RELEASES + r"|them\b|"
                            r"all (?:of them|versions|releases)\b|"
                            r"each\b" + _NOT_RELEASES + r"|these\b|those\b|the two\b" + _NOT_RELEASES + r"|"
                            r"(?:the\s+|all\s+)?(?:(?:old(?:er)?|new(?:er)?|two|both|different)\s+)?"
                            r"(?:versions?|releases?|builds?)\b)", re.I)
_CLAUSE_CLOSES = re.compile(r"\s*(?:[.;,:!)]|$|(?:so|and|but|either way)\b)", re.I)
_A_RELEASE = re.compile(r"(?<![\w.])v?\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?![\w.]*\d)(?!\s*(?:[x%]|[KMG]i?B|ms\b|s\b|tok))|"
                        r"\b(?:versions|releases|both)\b" + _NOT_RELEASES, re.I)


def said_alike(sentence: str) -> bool:
    """Does the sentence say the releases behave the same ("the same on 2.18.3 and 2.19.3", "2.18.3 and 2.19.3: no
    difference"), not something else ("same for both nodes", "the same with NCCL_P2P_DISABLE=1")?"""
    for m in _SAME_WORDS.finditer(sentence):
        if _RELEASES_NEXT.match(sentence, m.end()):
            return True
        if _CLAUSE_CLOSES.match(sentence, m.end()):
            clause = next((c for c in _CLAUSES.split(sentence[:m.end()])[-1:]), "")
            if _A_RELEASE.search(clause):
                return True
    return False


_ALIKE = re.compile(r"\b(?:(?:both|either|neither)\b" + _NOT_RELEASES + r"|all (?:of )?(?:them|versions|releases)\b)",
                    re.I)
# Clauses of one sentence: "with 2.18 it works, with 2.19 it hangs", "2.21.5 crashes while 2.20.5 works". A mark's
# blanks start at the first of their run ((?<!\s)): a search would otherwise try each blank of a long run to its end.
# (para37c) and the Chinese clause marks, as _CLAUSE_END reads them: "带宽很慢，2.21版本是正常的", "但(是)" but
_CLAUSES = re.compile(r"[,;，；]\s*|(?<!\s)\s+(?:while|whereas|but|and|although)\s+|但是?|而", re.I)
# Halves of one sentence split only at a contrast: "with 2.27 ..., the bw was very slow, but 2.21 was normal".
_RELEASE_CONTRAST = re.compile(r"[;；]\s*|,?\s+(?:while|whereas|but|although|however)\s+|[，,]?\s*但是?", re.I)


# A release named as a bound ("releases newer than v2.11.4", "since 2.19", ">= 2.5.6") is where a change starts,
# not the release the sentence says behaves so.
_BOUND = re.compile(r"(?:\b(?:than|since|after|before|until|prior to)|[<>]=?)\s*(?:NCCL\s*)?v?$", re.I)


# A change said to cure the failure ("rolling back to v0.6.0 resolves the issue", "fixes the hang"): works-words whose
# object is a failure word, read as one good word.
_CURES = re.compile(r"\b(?:resolv|fix|solv|cur)\w*\s+(?:the\s+|this\s+|that\s+|my\s+|our\s+|it\s+)?"
                    r"(?:issues?|problems?|errors?|bugs?|hangs?|crash\w*)\b", re.I)


# (s22) A release named as what cured it: "Fixed with: `2.26.2-1+cuda12.8`" beside "Libraries: `2.25.1-1+cuda12.8`"
# (NVIDIA/TensorRT-LLM#4238), "The problem got fixed in NCCL 2.4.6" (of a hang on NCCL 2.4.2, pytorch/pytorch#20630):
# the release after the cure word is the good side. (s23) The passive is read whatever ending the verb was given after
# its auxiliary ("This is fixes with NCCL 2.26.2-1", of ncclCommAbort hanging on 2.25.1-1, pytorch/pytorch#149153;
# "this bug has been fixed in 2.4.6", NVIDIA/nccl#238); the noun ("there are fixes in 2.26.2") has no such auxiliary.
_CURED_WITH = re.compile(r"\b(?:fixed|solved|resolved|cured|(?:is|was|been|got|gets)\s+"
                         r"(?:fix(?:e[sd])?|solve[sd]?|resolve[sd]?|cure[sd]?))\s+(?:it\s+)?(?:with|by|in|using)\b",
                         re.I)


def _state(part: str) -> str | None:
    """'good' or 'bad' when every behaviour word of the part says the same once negations are applied."""
    said = {"good"} if _CURES.search(part) else set()
    cured = _CURED_WITH.search(part)
    if cured and not _NEGATED_BEFORE.search(part[:cured.start()]):
        said.add("good")
    part = _CURES.sub(" ", part)
    for word, meaning in ((_WORKS, "good"), (_FAILS, "bad")):
        for m in word.finditer(part):
            flip = _NEGATED_BEFORE.search(part[:m.start()]) or _GONE_AFTER.match(part, m.end())
            said.add(meaning if not flip else ("bad" if meaning == "good" else "good"))
    return said.pop() if len(said) == 1 else None


# A works-word followed by the condition it needs ("it starts successfully if set CUDA_DISABLE_CONTROL=true", "works
# only when NCCL_P2P_DISABLE=1"): the release works with that change, not as it is.
_ON_CONDITION = re.compile(r"\b(?:if|when|once|unless|only (?:if|when|with)|as long as|provided)\b"
                           r"(?P<cond>(?:[^.;\n]|\.(?=\d))*)", re.I)


def _works_on_condition(part: str, release: re.Pattern) -> bool:
    """Does the part's works-word hang on a condition that names no release (another change made it work)?"""
    works = _WORKS.search(part)
    cond = _ON_CONDITION.search(part, works.end()) if works else None
    return bool(cond and not release.search(cond.group("cond")))


# (issue 11, s16) A move between two releases said in one sentence: "after moving from 2.18 to 2.19 it hangs", "we
# upgraded NCCL from 2.18.3 to 2.19.3 and now the job hangs", "it worked on 2.18.3, we now use 2.19.4", "was fine with
# 2.18.1 but since upgrading to 2.19.3 it is slow". What the sentence says happened belongs to the release moved to;
# the release moved from is the other side (it worked before the move, or failed where the move cured it).
_SIDE_PRODUCT = r"(?:(?:NCCL|[A-Za-z][\w-]*)\s*)?v?$"  # "from NCCL 2.18", "to vLLM v0.6.1", "from 2.18"
# Worked before (a past state, not the present): the past good words, taken out before the sentence's state is read.
_SIDE_WORKED = re.compile(r"\b(?:used to (?:work|run)\w*(?:\s+(?:fine|well|ok|okay))?|(?:it\s+)?worked(?:\s+(?:fine|"
                            r"well|ok|okay|perfectly))?|(?:was|were)\s+(?:\w+\s+)?(?:fine|ok|okay|good|normal|working)|"
                            r"ran\s+(?:fine|well|ok|okay|normally))\b", re.I)
_SIDE_FROM = re.compile(r"(?:\bfrom|(?:" + _SIDE_WORKED.pattern + r")\s+(?:\w+\s+)?(?:on|with|in|under|using))\s+"
                         + _SIDE_PRODUCT, re.I)
_SIDE_TO = re.compile(r"(?:\bto|->|→|=>|\bnow\s+(?:\w+\s+){0,2}?(?:on|with|using|uses?|runs?|running|ha(?:s|ve))|"
                       r"\bsince)\s*" + _SIDE_PRODUCT, re.I)
_SIDE_MOVE = re.compile(r"\b(?:upgrad\w*|updat\w*|mov\w*|switch\w*|bump\w*|migrat\w*|chang\w*|downgrad\w*|"
                        r"roll(?:ing|ed)?\s+back|revert\w*|go(?:ing)?\s+back|went\s+back|now|since)\b", re.I)
# The failure outlived the move ("still hangs", "hangs too"): no contrast between the two releases. A move made to
# cure it ("to fix the hang") says why, not what it did.
_SIDE_PERSISTS = re.compile(r"\b(?:still|also|too|as well|persist\w*|again|either|same)\b", re.I)
_SIDE_PURPOSE = re.compile(r"\b(?:to|try(?:ing)? to|hop\w* to)\s+(?:fix|solve|resolve|cure|avoid|work around)\b", re.I)
_SIDE_CURED = re.compile(r"\b(?:no longer|any\s?more|not any longer)\b|" + _GONE_BACK, re.I)


def _moved_sides(sentence: str, release: re.Pattern, known: set[str]) -> tuple[set[str], set[str]] | None:
    """(good, bad) of a sentence that moves from one release to another, or None when it says no move."""
    before: set[str] = set()
    after: set[str] = set()
    for m in release.finditer(sentence):
        lead = sentence[max(0, m.start() - 40):m.start()]
        if m.group(1) not in known:
            continue
        if _SIDE_FROM.search(lead):
            before.add(m.group(1))
        elif _SIDE_TO.search(lead) and (before or _SIDE_MOVE.search(sentence[:m.start()])):
            after.add(m.group(1))
    if before and not after and _SIDE_MOVE.search(sentence):  # "it hangs on 2.19.3 since we moved from 2.18.3"
        after = {m.group(1) for m in release.finditer(sentence)} & known - before
    if not before or not after or before & after or _SIDE_PERSISTS.search(sentence):
        return None
    if _SIDE_PURPOSE.search(sentence):
        return set(), set()
    worked_before = _SIDE_WORKED.search(sentence)
    state = _state(_SIDE_WORKED.sub(" ", sentence))
    if state == "bad" or (state is None and worked_before):
        return before, after  # the failure came with the move; a release that worked then does not now
    if state == "good" and (_CURES.search(sentence) or _GONE_AFTER.search(sentence) or _SIDE_CURED.search(sentence)):
        return after, before  # the move cured it
    if state == "good":
        return after, set()
    return None


def release_sides(text: str, named: list[str] | None = None, release=None) -> tuple[set[str], set[str]]:
    """(releases said to behave well, releases said to behave badly) over the whole text: each sentence is
    cut at its contrasts and, failing that, at its commas; a part counts when it names releases and says one
    thing about them. Questions, guesses and sentences treating the releases alike are skipped. A line break
    ends a part as a full stop does (pasted output or an image between two lines is no sentence). `release`: the
    pattern a release is written in (NCCL's 2.x by default; an engine's 0.x with _ENGINE_RELEASE)."""
    known = set(nccl_versions(text) if named is None else named)
    release = release or _VERSION
    good: set[str] = set()
    bad: set[str] = set()
    for sentence in (line for s in sentences(text) for line in s.splitlines()):  # a line ends a thought too
        if _ALIKE.search(sentence) or said_alike(sentence) or asked(sentence) or _guessed(sentence):
            continue
        moved = _moved_sides(sentence, release, known)
        if moved:
            good.update(moved[0])
            bad.update(moved[1])
            continue
        for cut in (_RELEASE_CONTRAST, _CLAUSES):
            for part in cut.split(sentence):
                releases = {m.group(1) for m in release.finditer(part)
                            if not _BOUND.search(part[max(0, m.start() - 16):m.start()])} & known
                state = _state(part) if releases else None
                if state == "good" and _works_on_condition(part, release):
                    continue  # "v0.25.0 starts if I set X=1": works with another change, not on this release alone
                (good if state == "good" else bad if state == "bad" else set()).update(releases)
    return good, bad


def failure_ab(text: str, named: list[str] | None = None) -> bool:
    """(`named`: the text's nccl_versions, when the caller has them.) The text says one NCCL release works
    (or runs normally) and another fails (or is slow): the works-side and the fails-side each in a part naming
    its own release, in one sentence or in different ones (not every release failing alike, nor a contrast of
    node counts)."""
    good, bad = release_sides(text, named)
    if good and not bad and _FAILS.search(text):
        # (s22) a release named as the cure of a failure the text names ("Fixed with: 2.26.2", after an NCCL error):
        # the other release named is the failing one, as engine_failure_ab reads a release gone back to
        known = set(nccl_versions(text) if named is None else named)
        cured = {m.group(1) for m in re.finditer(_CURED_WITH.pattern + r"[^.\n]{0,30}?" + _VERSION.pattern, text, re.I)}
        bad = known - good if cured & good else set()
    return bool(good and bad and not good & bad)


def version_figures(text: str, named: list[str] | None = None) -> list[str]:
    """The NCCL releases of a text that gives a figure per release, when the figures differ by more than
    RELEASES_DIFFER: an A/B stated as numbers, not words. Only versions nccl_versions() reads as NCCL's
    count, or NCCL's release tags "v2.18.5-1" ("torch 2.1.0: 30 tok/s" is another package's release). [] otherwise."""
    known = set(nccl_versions(text) if named is None else named)
    figures: dict[str, float] = {}
    for m in _VERSION_FIGURE.finditer(text):
        if m.group(2) in known or (m.group(1) and m.group(3)):  # or NCCL's release tag, "v2.18.5-1"
            figures.setdefault(m.group(2), float(m.group(4)))
    values = [v for v in figures.values() if v > 0]
    return list(figures) if len(values) >= 2 and max(values) > RELEASES_DIFFER * min(values) else []


# --------------------------------------------------------------------------- the symptom

# "more GPUs", "TP=4", "8x H100", "tensor parallel", "more nodes": the layout grows.
_MORE_GPUS = (r"(?:\b(?:more|multiple|several|multi|\d+|two|three|four|six|eight|second|another|extra|additional)"
              r"[- ]?(?:GPUs?|cards?)\b|\b\d+\s*[x×*]\s*[A-Z]{1,3}\d{2,4}|"
              r"\btensor[-_ ]?parallel\w*|\bTP\b|\btp\s?=?\s?\d|\btp[-_]size\b|\bshard\w*|\bmulti-?gpu\b|"
              r"\bpipeline[-_ ]?parallel\w*|\bpp\s?=\s?\d|\b(?:\d+|two|four|eight)\s+(?:pipeline\s+)?stages\b|"
              r"\bsingle (?:GPU|card)\b|"
              # a count or an added card named by its model: "a second 3090", "two 4090s", "another A100"
              r"\b(?:\d+|two|three|four|six|eight|second|another|extra|additional)\s+(?:x\s*)?(?:RTX\s*|GTX\s*)?"
              r"(?:[AHLTVP]\d{2,3}|[1-5]0[5-9]0)(?:\s*Ti)?s?\b|"
              r"\badd(?:ing|ed|s)?\s+(?:\w+\s+)?(?:GPUs?|cards?)\b|\bnumber of (?:GPUs|cards)\b|"
              r"\b(?:more|multiple|\d+|two|four|eight) (?:nodes|machines|servers)\b)")
# ... and the speed does not follow: slower, no gain, the same, higher latency.
# A rise the reporter puts down to something other than the GPUs: "TTFT grows with the prompt length",
# "首token延迟随 prompt 长度增加" (prefill's work grows with the prompt, by design).
_OTHER_CAUSE = (r"(?:with|as)\s+(?:the\s+|a\s+)?(?:longer\s+|larger\s+)?(?:prompt|input|context|batch|sequence|length)|"
                r"随[^\n，,。]{0,12}?(?:长度|prompt|输入|上下文|batch)")
# Slowness in the other words of everyday English (what a dictionary or thesaurus gives for "slow": sluggish, laggy,
# crawling, at a snail's pace, glacial, bogged down, underperforming, "takes forever", drawn-out "sloooow"), as a
# reporter writes them ("generation is sluggish", "it crawls", "feels laggy"); "crawl" only not followed by what a
# web crawler crawls ("crawling the pages"), "lag" only as an amount ("a lot of lag", "noticeable lag").
_SLOW_WORDS = (r"\bsluggish\w*|\blagg(?:y|iness)\b|\b(?:a lot of|lots of|noticeable|significant|huge|big|serious|"
               r"massive|terrible|bad|severe|heavy|annoying) lag\b|\bslo{2,}w\w*|\bglacial(?:ly)?\b|"
               r"\b(?:to|at) a (?:snail'?s? |slow |painful |near )?crawl\b|"
               r"\bcrawl(?:s|ing|ed)\b(?! (?:the|a|an|web|websites?|pages?|sites?|over|through|data|URLs?|links?)\b)|"
               r"\bsnail'?s?[- ](?:pace|speed)\b|\blike a snail\b|\bbog(?:s|ged|ging)? down\b|\bunderperform\w*|"
               r"\b(?:takes?|took|taking) (?:forever|ages|an eternity)\b")
# (symptom34) The names of a rate, where more is better (not a latency or a time): what a speed complaint names when it
# says the rate fell or did not rise.
_RATE_NOUN = r"(?:speed|throughput|bandwidth|busbw|algbw|performance|perf|tok(?:en)?s?/s|t/s|tps|qps|rps)"
_NO_GAIN = (r"(?:\bslow\w*|" + _SLOW_WORDS +
            # (symptom34) with the rate named between: "No throughput gain on increasing number of GPUs"
            # (triton-inference-server/server#3446), "no performance improvement with 4 GPUs"
            r"|\bno (?:any )?(?:" + _RATE_NOUN + r"\s+)?(?:gain|improvement|speed-?up|difference|acceleration|benefit|"
            r"boost|uplift)|"
            # a gain called too small to count: "very little or no boost", "hardly any speed-up", "marginal gain"
            r"\b(?:(?:very )?little|hardly any|barely any|almost no|not much|minimal|marginal|negligible)"
            r"(?: or no)? (?:gain|improvement|speed-?up|acceleration|benefit|boost|uplift)\b|"
            # ... or the comparative hedged: "barely faster", "only slightly quicker", "not much faster"
            r"\b(?:barely|hardly|scarcely|only (?:slightly|marginally|a (?:little|bit))|not (?:much|significantly|"
            r"noticeably)|marginally) (?:any )?(?:faster|quicker|better)\b|"
            r"\bno (?:significant|noticeable|obvious|real|big|much|great) "
            r"(?:gain|improvement|speed-?up|difference|acceleration|benefit|increase)|"
            r"\b(?:remain\w*|stay\w*|stays|is|was|basically|almost|nearly|largely) "
            r"(?:basically |almost |nearly |largely )?unchanged\b|"
            # (symptom34) "increas\w*", not "increase\w*", so that the -ing form counts: "Throughput (requests per
            # second / RPS) not increasing when scaling up from 1 GPU to 4 GPUs"
            r"\bnot (?:faster|improv\w*|scal\w*|better|increas\w*|any faster)|"
            # (symptom34) the rate named before the verb that denies its rise: "tokens/s does not increase with more
            # GPUs", "the throughput did not improve at TP=4" (a time that does not rise is no complaint: rates only)
            r"\b" + _RATE_NOUN + r"\b[^.\n]{0,30}?\b(?:does ?n[o']t|did ?n[o']t|do ?n[o']t|is ?n[o']t|are ?n[o']t|"
            r"was ?n[o']t|never|won't)\s+(?:\w+\s+)?(?:increas\w*|improv\w*|grow\w*|go(?:es)? up|ris(?:e|es|ing))\b|"
            r"\bsame (?:\w+ )?(?:speed|throughput|performance|qps|latency|tok\w*|t/s|rate)|"
            # a speed that does not follow the GPUs: "doesn't scale linearly", "fails to scale", "not doubling",
            # "barely changes", "only 1.2x faster", "TTFT grows"
            r"\b(?:does ?n[o']t|did ?n[o']t|do ?n[o']t|not|never|won't|fail(?:s|ed)? to)\s+(?:\w+\s+)?"
            r"(?:scale|scaling|double|doubling|speed\s*up)\b|"
            # "TP=4 does not yield high time benefits", "didn't give any speed-up"
            r"\b(?:does ?n[o']t|did ?n[o']t|not|never)\s+(?:yield|give|bring|provide|offer)\w*\s+(?:\w+\s+){0,2}?"
            r"(?:gain|improvement|speed-?up|benefit|boost|advantage)s?\b|"
            r"\b(?:fail(?:s|ed)? to|did ?n[o']t|not) get\s+(?:any|much|a)\s+"
            r"(?:gain|improvement|speed-?up|benefit|boost)|"
            r"\b(?:barely|hardly|does ?n[o']t|did ?n[o']t)\s+(?:change|move|improve|budge)s?\b|"
            r"\b(?:does ?n[o']t|did ?n[o']t|not)\s+(?:reduce|lower|cut|shorten)\s+(?:the\s+)?(?:\w+\s+)?"
            r"(?:latency|time|TTFT|ITL)\b|"
            r"\b(?:latency|time|TTFT|ITL)\b[^.\n]{0,25}?\b(?:does ?n[o']t|did ?n[o']t|not)\s+"
            r"(?:shorten|drop|go down|decrease|improve)\w*|"
            r"\bonly\s+(?:about\s+|around\s+|~)?\d+(?:\.\d+)?\s*(?:x|×|times)\s+(?:faster|the speed|quicker)|"
            # (para38) the gain named first, then called small: "the boost I get is very small or nothing", "the
            # speed-up was negligible" (as "very little or no boost" above)
            r"\b(?:gain|improvement|speed-?up|acceleration|benefit|boost|uplift)\b[^.?\n]{0,20}?\b(?:is|was|are|were|"
            r"seems?|looks?)\s+(?:very\s+|quite\s+|really\s+|too\s+|so\s+|pretty\s+)?(?:small|little|tiny|"
            r"negligible|minimal|marginal|nothing|zero|none|non-?existent)\b|"
            r"\b(?:TTFT|ITL|TPOT|time to first token)\b(?:(?!" + _OTHER_CAUSE + r")[^.\n]){0,30}?"
            r"\b(?:grow\w*|increas\w*|gets? (?:worse|longer)|go(?:es)? up|went up|ris(?:es|ing|e))\b"
            r"(?!\s+" + _OTHER_CAUSE + r")|"
            # (para38b) not a lower time, which is the gain: "do you get lower latency out of the extra parallelism?"
            r"\bworse\b|\bdoesn'?t (?:help|improve|scale|speed)|\bdecreas\w*|\bhalf\b|"
            r"\blower\b(?!\s+(?:latency|latencies|TTFT|ITL|TPOT|time|delay|response time))|"
            r"\b(?:latency|time)\b(?:(?!" + _OTHER_CAUSE + r")[^.\n]){0,30}?\b(?:greater|higher|longer|increase\w*)\b"
            r"(?!\s+" + _OTHER_CAUSE + r")|"
            # (ut22a) "more" as the comparative of a time, as people write it: "Predict latency is more with 4 GPUs
            # than 1 GPU" (deepspeedai/DeepSpeedExamples#135), "multi GPUs(8*V100) need more time to infer compared to
            # Single GPU" (zai-org/ChatGLM-6B#910); not "more or less the same", nor more time to load or start (the
            # set-up, not the run's speed)
            r"\b(?:latency|time)\s+(?:is|was|are|were|gets?|got|becomes?|became)\s+(?:much\s+|even\s+|far\s+|way\s+)?"
            r"more\b(?!\s+or\s+less)|"
            r"\b(?:needs?|needed|takes?|took|taking|costs?|cost|spends?|spent)\s+"
            r"(?:much\s+|even\s+|far\s+|way\s+|a lot\s+)?"
            r"more\s+time\b(?!\s+to\s+(?:load|start|launch|download|initiali[sz]e|compile|build|warm))|"
            r"\bperformance (?:is|was) (?:the same|similar|not (?:better|improved))|\bno (?:better|faster)\b|"
            r"\b(?:does ?n[o']t|did ?n[o']t|not|never) (?:make|get|run)\b[^.\n]{0,30}?\b(?:faster|quicker|better)\b|"
            r"\b(?:is|are|stays?|remains?) (?:the )?same\b|"
            # (symptom36) the scaling itself called bad: "Bad scaling with tensor-parallel" (vllm-project/vllm#6955),
            # "poor multi-GPU scaling", "it scales poorly beyond 2 GPUs"
            r"\b(?:bad|poor|weak|terrible|disappointing)\s+(?:multi-?GPU\s+)?scal(?:ing|ability)\b|"
            r"\bscal(?:es|ed|ing)\s+(?:very\s+|so\s+|quite\s+|really\s+)?(?:poorly|badly)\b)")
# (symptom36) the count also in Chinese numerals, "四卡推理比双卡还慢" (four cards slower than two,
# chatchat-space/Langchain-Chatchat#3764); and "the more X, the slower", "机器越多耗时越大" (the more machines, the
# longer each batch, modelscope/ms-swift#1825), "卡越多越慢"
_CJK_SCALING = (r"(?:(?:卡|GPU|显卡|机器?|节点)数?量?越多[^\n。]{0,12}?"
                r"(?:越慢|(?:耗时|时间|延迟|时延)越(?:大|长|多|高)|(?:速度|吞吐量?)越(?:慢|低))|"
                r"(?:多卡|多GPU|多个GPU|多张|张卡|\d+\s*卡|\d+\s*张|[双两三四五六八]\s*[张块]?\s*卡|并行|tp\s*=?\s*\d)"
                r"[^\n]{0,80}?"
                # (para37) little gain said as such: "没快多少", "没怎么提速", "加速不明显" / "提升不明显" (kept pastes)
                # (para38b) and "no speed-up at all": "没有任何加速效果", "没有任何提升" (kept paste), "毫无提升"
                r"(?:慢|没有提升|无提升|一致|下降|没有加速|持平|(?:没有任何|毫无)(?:加速|提升)|"
                # (para38: not as expected, "速度和预期一样": praise)
                r"(?:速度|吞吐量?|性能)(?!\s*(?:和|跟|与)\s*(?:预期|期望|预想|文档|官方))\S{0,4}?(?:差不多|相当|一样)|"
                # (para38) the speed set beside fewer cards: "速度和 1 张 H100 一样", "速度跟单卡差不多" (spaced CJK
                # leaves blanks between; not "和预期一样", no count of cards named)
                r"(?:速度|吞吐量?|性能)\s*(?:和|跟|与)\s*(?:单卡|单张|一张|一块|单个?\s*GPU|1\s*(?:张|块|卡|个))"
                # (review38b: not "和一张卡不一样")
                r"[^\n，,。]{0,12}?(?<![不没])(?:差不多|相当|一样|持平)|"
                # (review37b) said of the speed, not of another quantity just before it ("CPU占用提升不明显",
                # "功耗提升不大", "内存没有变快多少")
                r"(?=[没不快加提])(?<!占用)(?<!功耗)(?<!功率)(?<!内存)(?<!显存)(?<!温度)(?<!利用率)(?<!CPU)(?<!带宽)"
                r"(?:(?:没|没有|没怎么|不怎么)\s*(?:快多少|快很多|提速|加速|变快)|(?:加速|提速|提升)\s*不(?:明显|大)|"
                r"快不了多少)|"
                # as fast as another layout ("tp=4 跟 tp=2 一样快"), not as the docs say ("和文档一样快": praise)
                r"(?:差不多|一样)慢|(?:跟|和|与)\s*(?:tp\s*=?\s*\d|\d+\s*(?:张|卡)|单卡|一张)[^\n，,。]{0,4}?(?:差不多|一样)快|"
                # (para37b) "没有明显收益/提升" no clear gain, "吞吐上不去" the throughput will not go up
                r"没有(?:很大|明显|太大)?(?:区别|差别|差异|收益|提升)|(?:吞吐量?|速度|性能)\S{0,3}?上不去)|(?:慢|没有提升)[^\n]{0,40}?(?:多卡|多GPU|张卡)|"
                # a latency that grows with the cards: "首token延迟 800ms，TP=4 比 TP=2 还高"
                r"(?:延迟|时延|耗时|TTFT)[^\n]{0,40}?(?:多卡|\d+\s*卡|\d+\s*张|tp\s*=?\s*\d)(?:(?!" + _OTHER_CAUSE
                + r")[^\n]){0,30}?(?:更高|还高|变高|增加|变长|更长|上升)|"
                r"(?:多卡|\d+\s*卡|\d+\s*张|tp\s*=?\s*\d)[^\n]{0,40}?(?:延迟|时延|耗时|TTFT)(?:(?!" + _OTHER_CAUSE
                + r")[^\n]){0,30}?(?:更高|还高|变高|增加|变长|更长|上升)|"
                # (ut26f) the same complaint from the fewer GPUs' side, X 比 Y 快 "X is faster than Y":
                # "单张A100比2张A100速度快" (QwenLM/Qwen#669), "单卡比双卡快"; not denied ("单卡并不比双卡快")
                r"(?:单卡|单张|单块|单个?GPU|一张|一块|1\s*张|1\s*卡|1\s*块)(?:[^\n，,。比不没]){0,12}?比\s*"
                r"(?:多卡|双卡|两张|两块|多张|多块|多个?GPU|[2-9]\s*(?:张|卡|块)|[1-9]\d\s*(?:张|卡|块))"
                r"[^\n，,。]{0,12}?(?<![不没])(?:还|更|要)?快|"
                # ... and from the more GPUs' side, X 不如 Y 快 "X is not as fast as Y":
                # "我每次开四卡跑模型还不如单卡跑的快" (PaddlePaddle/PaddleOCR#3715); not "单卡不如双卡快" (one card
                # not as fast as two)
                r"(?:多卡|多张|多块|多个?GPU|[两双三四五六八]\s*[张块]?\s*卡|[两三四五六八]\s*[张块]|[2-9]\s*(?:张|卡|块)|"
                r"[1-9]\d\s*(?:张|卡|块))[^\n，,。]{0,12}?不如\s*(?:单卡|单张|单块|单个?GPU|一张|一块|1\s*[张卡块])"
                r"[^\n，,。]{0,8}?快|"
                # (cn42) ... and X 没有 Y 快, the same comparison with 没有 ("X is not as fast as Y"), of cards or of
                # machines: "使用多机训的速度没有单机快" (CodeGoat24/Pref-GRPO#16),
                # "在多卡中开启图模式没有单卡推理速度快" (DeepLink-org/dlinfer#109); not denied ("并不是没有单卡快"),
                # not the fewer side first ("单卡没有双卡快")
                r"(?:多卡|多张|多块|多个?GPU|[两双三四五六八]\s*[张块]?\s*卡|[两三四五六八]\s*[张块]|[2-9]\s*(?:张|卡|块)|"
                r"[1-9]\d\s*(?:张|卡|块)|多机|多节点|多台|[2-9两三四八]\s*(?:机|台|个?节点))[^\n，,。]{0,12}?"
                r"(?<!并不是)(?<!并非)(?<!不是)没有\s*(?:单卡|单张|单块|单个?GPU|一张|一块|1\s*[张卡块]|单机|单节点|单台|"
                r"一台|1\s*台)[^\n，,。]{0,8}?快)")

# (issue 11 r) More GPUs and no speed-up as Japanese, Korean, German, Russian and Spanish threads say it:
# "2枚にしても速くならない", "GPU 두 개로 해도 빨라지지 않습니다", "mit zwei Karten nicht schneller",
# "на двух видеокартах не быстрее", "con dos GPUs no es más rápido".
_BOARD = r"(?:RTX\s*|GTX\s*)?[A-Z]{0,2}\d{3,4}(?:\s*Ti)?s?"  # "zwei RTX 3090", "dos A100"
# (the count beside a GPU noun: "画像を2枚", "요청 2개" count images and requests; "同じモデル" is no same
# speed; a speed set against "before" is a regression, not the cards' scaling)
_WORLD_SCALING = (r"(?:(?:\d+|二|複数)\s*枚\s*の?\s*(?:GPU|グラボ)|(?:GPU|グラボ)\s*(?:を|が|は)?\s*(?:\d+|二)\s*枚|"
                  r"複数\s*の?\s*GPU|マルチ\s*GPU)[^。\n]{0,60}?"
                  r"(?:速くならな|速くなりませ|遅く|変わらな|変わりませ|同じ速度|同じくらいの速度)|"
                  r"(?:(?:GPU|그래픽\s*카드)\s*(?:를|을|가|이)?\s*(?:\d+|두|세|네|여러)\s*개|"
                  r"(?:\d+|두|세|네|여러)\s*개\s*의?\s*GPU|여러\s*GPU|멀티\s*GPU)"
                  r"[^.\n]{0,60}?(?:빨라지지\s*않|느려|차이가\s*없|똑같|같은\s*속도)|"
                  r"\b(?:zwei|drei|vier|acht|mehrere[n]?|\d+)\s+(?:GPUs|Karten|Grafikkarten|" + _BOARD
                  + r")\b[^.\n]{0,60}?"
                  r"\b(?:nicht schneller|langsamer(?! als (?:vorher|früher|zuvor))|"
                  r"kein\w* (?:Geschwindigkeits)?(?:gewinn|vorteil)|"
                  r"gleich schnell)|"
                  r"(?:\b(?:двух|трёх|трех|четырёх|четырех|нескольких|\d+)\s+(?:видеокарт\w*|GPU|картах|" + _BOARD
                  + r"))[^.\n]{0,60}?"
                  r"(?:не быстрее|медленнее|нет прироста|так же)|"
                  r"\b(?:dos|tres|cuatro|varias|m[uú]ltiples|\d+)\s+(?:GPUs|tarjetas|" + _BOARD + r")\b[^.\n]{0,60}?"
                  r"\b(?:no (?:es |va |son |van )?m[aá]s r[aá]pid\w*|m[aá]s lent[oa]s?\b(?! que antes)|sin mejora|"
                  r"igual de r[aá]pid\w*)")

# A question about a figure, not a fault report: "why is the bandwidth 160GB/s, instead of 400GB/s?",
# "Question about NVLink max bandwidth", "confused by the latency number". (Phrasings that only one
# development case used were dropped after code review 2: "this page states", "puzzled", "performance
# impact", "can anyone confirm".)
_FIGURE_QUESTION = (
    r"\bwhy\b[^?\n]{0,150}?\d+(?:\.\d+)?\s*(?:[GMT]B/s|GB\b|Gb/s|Gbps|tok\w*/s|tokens?\b|t/s|%|ms\b|us\b|usec|TFLOPS)"
    r"[^?\n]{0,80}\?|"
    r"^#\s*(?:\[question\]\s*)?questions? (?:about|on|regarding)\b|\[question\]|"
    r"\b(?:confus\w*|understand\w*)\b[^.\n]{0,60}?\b(?:numbers?|figures?|results?|latency|bandwidth|throughput|speed|B/W)\b|"
    r"\bhow (?:fast|much faster)\b|"
    # (ut29b) not a table's label, "Reference performance:" over a before/after table (sgl-project/sglang#28224)
    r"\breference (?:results?|numbers?|figures?|values?|performance)\b(?!\s*:)|"
    r"\bverify(?:ing)?\b[^.\n]{0,40}?\b(?:is using|uses|is used|is enabled|works|is working)\b"
)

# A verb of reaching with a figure after it, within a few words: "get more than 10 tok/s", "reach the advertised
# 450 GB/s" (a shortfall), not "get the model to load on 2 GPUs" (the figure belongs to another verb).
# ("get any speed-up" is a speed too)
_TO_A_FIGURE = (r"(?:get|reach|achieve|hit|exceed|go|surpass|push|make)\b(?:\s+(?!to\b)[\w-]+){0,3}?\s+~?\d|"
                r"get\s+(?:\w+\s+)?(?:speed-?up|gain|improvement|boost|benefit|performance)")

# (issue 11 n) A rate said to have gone from one figure to a lower one ("generation went from 38 to 24 tok/s", "dropped
# from 5100 to 2950 samples/s") is a slowdown: symptom 'slow' when the second figure is the lower (symptom_quote and
# complaint check the order, _rate_rose; "went from 24 to 38 tok/s" is a gain). Rates only: for times a rise is the
# slowdown.
_RATE_UNIT = r"(?:tok\w*/s|t/s|tps|it/s|[GM]B/s|samples/s|req\w*/s|fps|images?/s)"
_RATE_FELL = (r"\b(?:went|gone|goes|dropped|drops|fell|falls|decreased|changed|moved|came|is down|was down)\s+"
              r"(?:down\s+)?"
              r"from\s+~?(?P<was>\d+(?:\.\d+)?)\s*" + _RATE_UNIT + r"?\s+to\s+(?:only\s+)?~?(?P<now>\d+(?:\.\d+)?)\s*"
              + _RATE_UNIT + r"\b")

# (issue 11 t) A drop or a no-change that ends in a power state ("let it drop to P8", "does not change state to P8"):
# the driver's power management lowering an idle GPU (P0 is the highest performance state, P8 or P12 the lowest,
# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/731), not a rate falling. Reporters write it so about idle
# GPUs: "my idle clocks will not drop below 1860" (https://github.com/xor2k/gpu_undervolt/issues/2), "keep my gpu_0 in
# a P0 state ... at idle instead of P8" (https://github.com/NVIDIA/k8s-device-plugin/issues/110), "will switch to p8
# when idle?" (https://github.com/crashr/gppm/issues/2).
_TO_POWER_STATE = re.compile(r"(?:\s+(?:its\s+|the\s+)?(?:power\s+|performance\s+|P-?)?state)?"
                             r"\s+(?:back\s+)?(?:down\s+)?(?:to|into|in)\s+(?:the\s+|an?\s+)?(?:P\d{1,2}\b|"
                             r"(?:idle|low(?:er)?[- ]power|power[- ]sav\w*|rest\w*)\s+"
                             r"(?:P-?|power[- ]|performance[- ])?(?:state|mode)\b)", re.I)


# A drop said of the time after the work ended ("As the benchmark ends they both drop to 1695, stay there for a minute,
# then drop back to true idle", https://github.com/noonghunna/club-3090/issues/107): clocks leaving their boost once
# the load is gone, power management again; a drop while the work runs stays a slowdown. The end must be said (a verb
# of ending, or "at the end of the run"): "after each epoch," or "after the warm-up run," is a later moment of work that
# goes on, and an epoch's end is not the work's.
_WORK = r"(?:[\w-]+\s+)?(?:benchmark|bench|run|job|test|load|workload|inference|training|generation)s?"
_WORK_ENDED = re.compile(r"\b(?:(?:as|when|once|after|whenever)\s+(?:the\s+|a\s+|my\s+|each\s+|our\s+)?" + _WORK +
                         r"\s+(?:run\s+)?(?:ends?|ended|finish(?:es|ed)?|stops?|stopped|completes?|completed|"
                         r"(?:is|was|are|were)\s+(?:done|over|finished|complete))|at the end of (?:the|my|our)\s+" +
                         _WORK + r")\b", re.I)


def _power_state_drop(text: str, m: re.Match) -> bool:
    """A drop or a no-change that ends in a power state ("does not change state to P8", _TO_POWER_STATE), or a drop
    once the work has ended (_WORK_ENDED, earlier in its sentence): power management, not a slowdown."""
    if _TO_POWER_STATE.match(text, m.end()):
        return True
    before = re.split(r"[.!?。？！]\s", text[max(0, m.start() - 100):m.start()])[-1]
    ended = list(_WORK_ENDED.finditer(before))
    return bool(ended) and not re.search(r"\b(?:start|began|begin)", ended[-1].group(0), re.I)


# (ut26a) A rate given at a GPU count on a line of its own, in any rate unit: "2GPU has 2.9it/s" over "1GPU has
# 3.4it/s" (wasiahmad/NeuralCodeSum#12), "TP=4: 35 samples/s". A line naming two counts does not say whose the rate is.
_A_RATE = re.compile(r"\d(?:\.\d+)?\s*" + _RATE_UNIT, re.I)


def rates_by_layout(facts: Facts) -> dict[int, str]:
    """GPU counts the reporter states a rate at, each with the line it was read from: both sides of a scaling
    comparison given in words, whatever the unit (the figure checks judge tok/s only)."""
    out: dict[int, str] = {}
    for _, text in texts(facts):
        for line in text.splitlines():
            counts = _layout_counts(line) if _A_RATE.search(line) else []
            if len(counts) == 1:
                out.setdefault(counts[0], one_line(line))
    return out


def _rate_rose(m: re.Match) -> bool:
    """A rate that went from one figure to a higher one ("went from 24 to 38 tok/s"): a gain, not a slowdown."""
    return bool(m.groupdict().get("was")) and float(m.group("now")) >= float(m.group("was"))


# What kind of ticket it is, from the title and the opening of the description: the prior every
# category's score starts from. Checked in this order; the first that matches wins.
# A rate or bandwidth figure, and the words that mark a figure as published rather than measured.
_FIGURE = r"\d+(?:\.\d+)?\s*(?:[GMT]B/s|Gb/s|Gbps|tok\w*/s|t/s)?"
_PUBLISHED = r"(?:advertised|marketed|spec(?:'d|ced|ified)?|theoretical|rated|promised|claimed|official|nominal)\b"
# What a figure is held against when someone asks whether it matches: a published, specified or expected figure, what
# the hardware or others give ("does this match what the hardware should give?", "in line with the published numbers",
# "close to the theoretical peak"); not one's own earlier run or a deadline.
_REFERENCE = (r"\b(?:" + _PUBLISHED + r"|expect\w*|spec\w*|published|datasheet|roofline|peak|benchmarks?|reported|"
              r"paper|blog|others|other (?:users|people)|hardware|theor\w*|"
              r"what (?:\w+\s+){0,3}?(?:should|can|could|is supposed to|are supposed to|would)\b)")


# (issue 11) A published figure the reporter's run falls short of, said by its verb: "unable to reproduce the
# throughput", "cannot achieve the reported performance", "couldn't match the published figures", "I tried to replicate
# these numbers, but I got much lower throughput than what is reported" (https://github.com/vllm-project/vllm/issues/
# 8244), "I'm unable to reproduce the benchmark results described in this repo" (https://github.com/junkurihara/
# rust-rpxy/issues/551). A performance complaint (symptom "slow"), not a failure: "unable to load the model" names no
# figure. The object must be a performance figure (throughput, speed, performance, tok/s, bandwidth) or a figure that
# someone published (published / reported / advertised / claimed / official / README / blog / paper / benchmark
# numbers, figures, results): "can't reproduce the bug" is not one.
# (ut29b: "Unable to produce the result of throughput & latency claimed on vLLM dashboard", vllm-project/vllm#12315)
_REPRO_VERB = r"(?:(?:re)?produc\w*|replicat\w*|achiev\w*|match\w*|reach\w*|get(?:ting)?|hit(?:ting)?|attain\w*)"
_PERF_OBJECT = r"(?:throughput|performance|perf|speed|tok\w*/s|tokens? per second|bandwidth|busbw|latency)"
_PUBLISHED_FIGURE = (r"(?:published|reported|advertised|claimed|official|documented|README|blog|paper(?:'s)?|"
                     r"benchmark(?:ed|ing)?|quoted|listed|stated|expected|same)\s+(?:[\w-]+\s+){0,2}?"
                     r"(?:figures?|numbers?|results?|benchmarks?|scores?|values?|" + _PERF_OBJECT + r")")
_REFERENCE_OBJECT = (r"(?:the\s+|these\s+|those\s+|their\s+|your\s+|its\s+|that\s+|this\s+)?(?:[\w.-]+\s+){0,2}?(?:"
                     + _PUBLISHED_FIGURE + r"|" + _PERF_OBJECT + r"|(?:figures?|numbers?)\b(?=[^.\n]{0,40}?"
                     r"\b(?:published|reported|advertised|claimed|official|README|blog|paper|benchmark)))")
# ... after the reporter's own shortfall marker: "can't", "unable to", "couldn't", "failed to", "not able to",
# "does not", "a hard time", "struggling to"; "I can reproduce the numbers" and "I was able to match the published
# figures" have none.
_SHORTFALL_MARKER = (r"(?:\bcan ?not|\bcan['’]t|\bcould(?:n['’]t| not)|\bunable to|\bnot (?:been )?able to|"
                     r"\bfail(?:s|ed)? to|\b(?:does|do|did)(?:n['’]t| not)(?: actually)?|\bnever|"
                     r"\ba hard time|\bstruggl\w* to|\bno luck)\s+(?:\w+\s+){0,2}?")
MISSED_REFERENCE = (_SHORTFALL_MARKER + _REPRO_VERB + r"\s+" + _REFERENCE_OBJECT + r"\b|"
                    r"\b(?:tried|trying|attempt\w*) to (?:reproduce|replicate|match)\b[^.\n]{0,60}?\bbut\b[^.\n]{0,40}?"
                    r"\b(?:lower|less|slower|worse|only|far (?:below|from))\b|"
                    # Chinese: 无法复现官方性能, 复现不了论文里的吞吐, 达不到官方(公布的)速度
                    r"(?:无法|不能|没法|没能|未能|难以)(?:复现|达到)[^。\n]{0,12}?(?:性能|吞吐|速度|数据|指标|结果)|"
                    r"复现不(?:了|出)[^。\n]{0,12}?(?:性能|吞吐|速度|数据|指标|结果)|"
                    r"达不到[^。\n]{0,12}?(?:官方|宣传|标称|公布|论文|文档)")

# What the reporter cannot grasp or find is their own puzzlement, not a failure of the system: "I cannot understand the
# results I got" (NVIDIA/nccl#569), "I can not understand deeply about the busbw" (NVIDIA/nccl-tests#267), "I already
# have checked nsight system but can't find something" (NVIDIA/TensorRT-LLM#1102). "cannot find libnccl.so", "can't find
# the GPU" stay failures: the object is a thing the software looks for, not a reason or an insight.
# (physdoc33) and where the cause lies, not found: "I can't catch which line causes this", "can't pinpoint where"
_OWN_GRASP = (r"(?:understand|comprehend|figure out|make sense of|explain|tell (?:why|what|how|which|where)|"
              r"see (?:why|what|how|which|where)|"
              r"(?:catch|pin ?point|pin down|locate|identify) (?:which|where|why|what)|"
              r"find (?:any|anything|something|nothing|out|why|what|where|how|a (?:reason|cause|clue|pattern)|"
              r"the (?:reason|cause|culprit|bottleneck|root cause)))\b")
# How well something works qualifies a speed, not a failure: "the tensor parallel is not working well with more than 4
# gpus" (vllm-project/vllm#804) complains of a speed; "it does not work", "not working at all", "not working as
# expected" (which may be a wrong output) stay failures.
_HOW_WELL = r"(?:well|efficiently|effectively|optimally|fast enough|as (?:well|fast|efficiently))\b"
# (s29, ut29c) A model or process put on GPUs other than the ones asked for: "the process is launched on the incorrect
# GPU" (triton-inference-server/tensorrtllm_backend#481, whose backend chose its GPUs by its own parameter, not the
# instance_group's `gpus`), "Triton/vllm_backend launches model on incorrect GPU" (triton-inference-server/server#7349),
# "still both models are loaded on the same GPU" (k2-fsa/sherpa#743), "my models were being loaded only into gpu 0"
# (triton-inference-server/server#7786). A failure of placement, so a passed health check does not answer it. Not a
# wish or a question of where to put it ("I want to launch tensorrt on every gpu separately", "how do I choose which
# GPU the model is loaded on?"): those name no wrong GPU.
_MISPLACED = (r"\b(?:wrong|incorrect)\s+(?:GPU|device|card)s?\b(?!\s*(?:count|number|name|model|type|driver)s?\b)|"
              r"\b(?:both|all)\s+(?:\w+\s+){0,3}?(?:are|were|get|got|is|was)\s+(?:\w+\s+)?(?:loaded|placed|launched|"
              r"allocated|put|running|started)\s+(?:on|onto|into|in|to)\s+(?:the\s+)?(?:same|first|one)\s+"
              r"(?:GPU|device|card)\b|"
              r"\b(?:loaded|placed|launched|allocated|put|started)\s+only\s+(?:on|onto|into|in|to)\s+(?:the\s+first\s+"
              r"(?:GPU|device|card)|(?:GPU|device|cuda)\s*:?\s*0)\b|"
              # (review43) the same said with a plain verb, as a habit, as a contrast or as a miss: "I found all python
              # stubs run on the same gpu" (triton-inference-server/server#4581), "vLLM keeps loading the second model
              # onto the first GPU" (vllm-project/vllm#16051), "does not successfully place the vllm model on the last
              # visible gpu, but on the first visible gpu" (vllm-project/vllm#19176), "the model execution is not
              # correctly assigned to the specified GPU" (triton-inference-server/server#8184). Not a wish ("I want
              # both models to run on the same GPU": the verb after "to") nor a question of sharing ("Can I run
              # multiple models in the same GPU?", vllm-project/production-stack#857).
              r"\b(?:both|all)\s+(?:\w+\s+){0,3}?(?<!to )(?:run|runs|ran|land(?:s|ed)?)\s+(?:on|in)\s+(?:the\s+)?"
              r"(?:same|first|one)\s+(?:GPU|device|card)\b|"
              r"\bkeeps?\s+(?:loading|placing|putting|launching|allocating)\b[^.\n]{0,40}?\b(?:onto|on|into|to)\s+"
              r"(?:the\s+)?(?:same|first)\s+(?:visible\s+)?(?:GPU|device|card)\b|"
              r"\bbut\s+(?:on|onto|into|to)\s+the\s+first\s+(?:visible\s+)?(?:GPU|device|card)\b|"
              r"\bnot\s+(?:correctly\s+|properly\s+|successfully\s+)?(?:assigned|placed|loaded|allocated|put)\s+"
              r"(?:to|on|onto)\s+the\s+(?:specified|assigned|chosen|selected|requested|right|correct)\s+(?:GPU|device|card)\b")

# (ut29b, issue 11) A slowdown said by the noun "regression" with what got slower before it, without the word
# "performance": "speed regression" (ggml-org/llama.cpp#6476, LostRuins/koboldcpp#642), "decode throughput regression"
# (sgl-project/sglang#28224, vllm-project/vllm#45741), "~35% generation speed regression" (ggml-org/llama.cpp#26025),
# "throughput regressions in several benchmarks" (ray-project/ray#35517), "[Performance]: Regression between 0.10.2 and
# 0.12.0" (vllm-project/vllm#31030: the form's tag names what regressed); or by the verb with a share of the rate lost,
# "Llama4 on DGXH100 has regressed by 14.23%" (sgl-project/sglang#14665). What regressed must be a speed: "accuracy
# regression" (intel/auto-round#2059), "token count regression" and "regression test" are not (_OTHER_REGRESSION).
_REGRESSED_NOUN = (r"(?:speed|throughput|latency|perf|performance|decode|decoding|generation|prefill|inference|"
                   r"tok\w*/s|t/s|tps|bandwidth|busbw|algbw|TTFT|ITL|TPOT)")
# (review45) not a suite that watches for one: "Add inference regression test for Reasoner mode"
# (NVIDIA/cosmos-framework#59)
_NOT_A_TEST = r"(?!\s+(?:tests?|testing|suites?|checks?|detection|gates?)\b)"
_SPEED_REGRESSION = (r"\b" + _REGRESSED_NOUN + r"\]?:?\s+(?:has\s+|have\s+)?regress(?:ion|ions|ed)\b" + _NOT_A_TEST
                     + "|"
                     r"\bregress(?:ed|es)\s+(?:by\s+)?(?:about\s+|around\s+|~)?\d+(?:\.\d+)?\s*%")
# ... or a speed said to differ between releases: "Performance differs between different versions"
# (InternLM/lmdeploy#496), not "accuracy discrepancies across different vLLM versions" (vllm-project/vllm#42801)
# nor "differs on different V100" (two machines, not two releases).
_SPEED_DIFFERS = (r"\b(?:performance|speed|throughput|latency|tok\w*/s)\s+"
                  r"(?:differs?|is different|varies|vary|changed?)\s+"
                  r"(?:a lot\s+|significantly\s+|greatly\s+)?(?:between|across|among)\s+(?:[\w.-]+\s+){0,2}?"
                  r"(?:versions?|releases?|builds?|commits?)\b")
# (ut29b, issue 11) A published figure not reached, said as a difficulty or as a shortfall from what someone else
# stated: "Difficulty reproducing NVidia numbers on 4x L40S system" and "having trouble reproducing NVidia claimed
# numbers" (NVIDIA/TensorRT-LLM#2140), "This is far from official" (vllm-project/vllm#359), "far lower than 10.59
# requests/s you mentioned here" (ModelTC/LightLLM#104). "trouble reproducing the crash" names no figure, "far from the
# GPU" no reference.
_REPRO_TROUBLE = (r"\b(?:difficult(?:y|ies)|trouble|problems?|struggl\w*|hard time)\s+(?:in\s+|with\s+)?"
                  r"(?:reproduc\w*|replicat\w*|matching|reaching|achieving|hitting)\s+(?:the\s+|their\s+|your\s+)?"
                  r"(?:[\w.-]+\s+){0,2}?(?:numbers|figures|results|benchmarks?|performance|throughput|speeds?|perf)\b|"
                  r"\bfar\s+(?:away\s+)?(?:from|below|behind|short of)\s+(?:the\s+|what\s+(?:is\s+|was\s+)?)?"
                  r"(?:official|published|reported|claimed|advertised|README|blog|paper)\b"
                  # (review45) the reference's figures, or the sentence ends: not "far from official support"
                  # (ROCm/ROCm#1617), a thing unofficial rather than a figure missed
                  r"(?=\s*(?:[^\w\s]|$)|\s+(?:[\w-]+\s+)?(?:numbers?|figures?|results?|benchmarks?|performance|perf|"
                  r"throughput|speeds?|latency|values?|data)\b)|"
                  r"\b(?:lower|less|slower|worse|below|under)\s+(?:than\s+)?(?:the\s+)?~?\d[\d,]*(?:\.\d+)?\s*"
                  r"(?:[\w/]+\s+){0,2}?(?:that\s+|which\s+)?(?:you|they|NVIDIA|the\s+(?:blog|paper|README|docs?|authors?))"
                  r"\s+(?:have\s+|had\s+)?(?:mention|claim|report|publish|advertis|stat|list|quot|show|promis)\w*")

# (symptom34) A rate named first and its fall after it, the word order the adjective-first patterns of "slow" miss:
# "the MTP ... make the output token throughput worse" (sgl-project/sglang#8092), "the token/s performance is worse when
# utilizing both GPUs" (pytorch-labs/gpt-fast#111), "Balanced (TP4+DP4+DeepEP) throughput lower than Low-Latency"
# (vllm-project/vllm#23896). A rate only: a latency that is "lower" is a gain. Not "performance lower bound" (a bound,
# not a measurement). (The nouns "reduce"/"reduction" were tried and left out: on the fresh split they turned one NCCL
# regression ticket confidently wrong, and "drop", "decrease" already read a fall.)
_RATE_WORSENED = (r"\b" + _RATE_NOUN + r"\s+(?:(?:is|was|are|were|gets?|got|getting|becomes?|became|goes|went|will|"
                  r"has|have|had|seems?|looks?)\s+)?(?:(?:much|even|far|way|significantly|a lot|considerably)\s+)?"
                  r"(?:worse|lower(?!\s+bounds?\b)|slower|declin(?:e|es|ed|ing)|fell|falls|falling)\b")
# ... or said as expectations not met: "The network bandwidth in the alltoall_perf test failed to meet expectations"
# (NVIDIA/nccl-tests#209), "performance does not meet our expectations", "throughput below expectations": the figure
# falls short of what the reporter expected (the shortfall of "slow"; "error" leaves "failed to meet" alone).
_BELOW_EXPECTATIONS = (r"\b(?:fail(?:s|ed|ing)? to|does ?n[o']t|did ?n[o']t|do ?n[o']t|not|never)\s+"
                       r"(?:meet|match|reach|live up to)\s+(?:the\s+|our\s+|my\s+|their\s+)?expectations?\b|"
                       r"\b(?:below|under|short of|lower than)\s+(?:the\s+|our\s+|my\s+)?expectations?\b|"
                       # (para37c) the same in Chinese: "吞吐比预期低", "低于预期", "达不到预期"
                       # (not "比预期快", "没有低于预期")
                       r"(?<!没有)(?<!并未)(?<!不)(?:比\s*(?:预期|期望|预想)(?:的)?\s*(?:要|还|更)?(?:低|慢|差|少)|"
                       r"(?:低于|不及|达不到|没达到|未达到|没有达到)\s*(?:预期|期望|预想))|"
                       # (para37d) far under a baseline or an expected figure: "far below expected under load",
                       # "much slower than baseline" said as "far under baseline", "well below spec"; a shortfall
                       # word first (a time below its reference is no shortfall: "TTFT is below the expected 53.72 ms")
                       r"(?<!latency )(?<!TTFT )(?<!time )\b(?:far|well|way|much|a lot|significantly)\s+"
                       r"(?:below|under)\s+(?:the\s+|our\s+|my\s+)?(?:baseline|expected|advertised|spec)\b")
# (symptom34) A wish for a named rate that says the present one is too low: "Any ideas to reach >1 token/s on a 8vCPU
# machine? now I am at roughly 30s per token" (karpathy/llama2.c#184), "how can I get more than 20 tokens/s",
# "is there a way to achieve 100 t/s". The target must be a rate with its unit: "how to reach 4 GPUs" is a count.
_RATE_WISHED = (r"\b(?:how|ideas?|ways?|tips?|possible|help)\b[^.?\n]{0,25}?\b(?:to|can (?:I|we)|could (?:I|we)|"
                r"do (?:I|we))\s+(?:reach|get|achieve|hit|exceed)\s+"
                r"(?:more than\s+|over\s+|above\s+|at least\s+|>\s*|~)?\d+(?:\.\d+)?\s*"
                r"(?:tok\w*(?:/s|\s+per\s+s\w*)|t/s|tps|it/s|[GMT]B/?s|Gb/?s|GBps)")

# (symptom34) A question of how long something usually takes asks for the typical figure, as "is this normal?" does:
# "how long does it usually take for the model to answer one user query" (defog-ai/sqlcoder#37), "How long should
# this take" (paraphrases/f13), "多GPU推理时，loading 模型，一般是多久？" (how long does loading usually take,
# SkyworkAI/SkyReels-V2#23). A plain "how long does vllm take to load your model" asks no typical figure (no "usually",
# no "should").
_USUAL_DURATION = (r"\bhow long (?:does|do|would|will|did) (?:[\w-]+\s+){0,8}?"
                   r"(?:usually|normally|typically|generally)\b|"
                   r"\bhow long (?:should|is (?:it|this|that) supposed to)\b|"
                   r"(?:一般|通常|正常|大概)(?:是|要|需要|得)?多(?:久|长时间)")
# (symptom34) Unsure whether the GPUs are used as they should be, a doubt about an observed state: "GPU util is always 0
# ... I don't know if all gpus are correctly used during inference" (FoundationVision/VNext#26), "not sure whether both
# cards are actually being utilized". The GPUs are the subject: "not sure if it's caused by the driver" is not this.
_GPUS_USED_DOUBT = (r"\b(?:not sure|unsure|don't know|do not know|wonder(?:ing)?|can't tell|cannot tell)\s+"
                    r"(?:if|whether)\s+"
                    r"(?:(?:all|both|the|my|of|these|those)\s+)*(?:\d+\s+)?(?:GPUs?|cards?|devices?)\s+"
                    r"(?:is|are|were|was)\s+(?:(?:being|all|both)\s+)*(?:correctly|properly|actually|really|fully|"
                    r"effectively)\s+(?:being\s+)?(?:used|utili[sz]ed|in use)\b")

# (cn38) The other ways Chinese threads say a run hangs, beside 卡住/卡死/无响应: 卡着 (stays stuck:
# "使用第2第3块gpu启动时，卡着不动", lm-sys/FastChat#2833; "yiz一直卡着不动，已经半小时了",
# hiyouga/LlamaFactory#4971), 卡在 + where it stopped ("两个节点都卡在了init nccl后", PaddlePaddle/Paddle#51096;
# "有时候就卡在那边", modelscope/ms-swift#6544; "卡在pipeline函数这一块", InternLM/lmdeploy#1712; "一直卡在训练阶段",
# shibing624/MedicalGPT#330) and 没反应 / 无反应 / 没响应 (no response: "8卡推理llama7-70b-instruct无反应",
# InternLM/lmdeploy#1712). Not 卡在 before a figure, a level a reading is held at ("频率卡在1200MHz",
# "功耗读数卡在一个…固定值", "速度卡在20 tokens/s"), nor a setting with no effect ("设置了也没反应" says 没用, not a
# hang: _zh_not_observed).
# 卡 is also the noun card: "两张卡在同一个NUMA上", "显卡在跑" (a card, then 在) are no hang, so a count, 显 or a card's
# word before 卡 rules it out, and 卡在 needs the place it stopped at (不动, 那里, 这一步/这块, 阶段, 初始化/init, 加载,
# 后): "瓶颈卡在通信上" (bottlenecked on communication) names a limit, not a hang, and so does where the time mostly
# goes ("耗时主要卡在prefill阶段"). 没有反应 before 出/到/在 is 反映 miswritten ("优势没有反应出来": not reflected),
# and 没有响应 before 时间/速度/延迟 is a response time that did not improve ("并没有响应时间上的提升").
_NOT_CARD_NOUN = r"(?<![张块个显单双多两\d一二三四五六七八九十板])"
# (cjk44) Two more words Chinese write-ups use for a start-up that stops: 停滞 (stalls: "vLLM 进程会在初始化阶段
# 停滞", "进程成功检测到NCCL 2.21.5版本后停滞", blog.gitcode.com/26959e5b...; "纯 PCIe 多卡机器如果在 vLLM custom
# all-reduce 初始化阶段停滞，可增加 --disable-custom-all-reduce", a deployment README; "辅助录像作业在 B200 的渲染
# 初始化阶段停滞后取消", a job log) and 挂起 as a symptom (hangs: "系统会出现挂起现象", "多节点启动时出现挂起问题",
# blog.gitcode.com/ecc57c12...; "shell 工具因管道继承导致进程挂起", a project's changelog). Not 停滞 of a figure
# that stops growing, a plateau ("性能停滞不前", "提升停滞", "增长停滞": a rate, read by the scaling words), nor 挂起
# as the OS's deliberate suspension, a wait or a sleep ("进程挂起等待", "把进程挂起一段时间", "挂起的进程",
# "挂起/恢复"), nor either under a remedy ("防止进程挂起", "避免…挂起").
_HANG_ZH_STALL = (r"(?<!防止)(?<!避免)(?<!性能)(?<!增长)(?<!提升)(?<!速度)(?<!吞吐)(?<!进展)停滞(?!不前)|"
                  r"(?<!防止)(?<!避免)(?<!防止进程)(?<!避免进程)(?:出现|发生|导致|进程|服务|程序|任务)\s?挂起"
                  r"(?![的了]?\s?(?:等待|一段时间|恢复|进程|状态|[（(]\s?Pending)|[到至]后台)(?!/)|挂起(?:现象|问题)")
# (fr44) Nor either word in a clause that names a rate or a figure before it, a plateau however it is spelt
# ("加到 8 卡后吞吐量停滞", "速度就停滞了", "loss 停滞在 2.3"), nor under a precaution, a fix or the past in its
# clause ("为了防止出现NCCL挂起问题", "以免进程挂起", "已经解决了挂起问题", "之前遇到过 NCCL 初始化停滞") or a fix said
# after it in its sentence ("…停滞，已经通过设置 NCCL_P2P_DISABLE=1 解决了"), nor 挂起 done to a process on purpose
# ("用 Ctrl+Z 把进程挂起后再 fg 恢复"). (In its clause only: "为了提高吞吐，加了 --enforce-eager 后进程挂起" is a
# hang the change brought.)
_ZH_STALL_RATE = re.compile(r"吞吐|速度|速率|性能|加速|提升|增长|进展|利用率|占用率|带宽|loss|损失|精度|准确率|收敛|"
                            r"tokens?\s*/\s*s|tok/s|it/s", re.I)
# (fr44r2) 之前/以前/原来/过去 are the past only opening the clause or before 也/曾/遇到/出现过
# ("之前遇到过 NCCL 初始化停滞"), not after a noun, "before X" ("在 loss.backward() 之前进程挂起": the hang is
# now), nor as "former" (原来的配置下) or a span (过去 2 小时进程挂起). A fix said after it is no fix when
# temporary, believed or asked for ("重启后暂时解决了", "要怎么才能彻底解决了？").
_ZH_HANG_AVERTED = re.compile(r"防止|避免|以免|以防|防范|预防|免得|解决了|已解决|修复了|已修复|曾经|过去曾|"
                              r"^\s*(?:之前|以前|原来|过去)(?![的\s\d几一两半])|"
                              r"(?:之前|以前|原来|过去)\s*(?:也|曾|遇到|碰到|出现过|发生过)")
_ZH_HANG_FIXED_AFTER = re.compile(r"[\s\S]{0,60}?(?:解决了|修复了|已解决|已修复)")  # (in the hang's sentence)
_ZH_FIX_NOT_SO = re.compile(r"暂时|临时|以为|怎么|如何|请问|能否|是否|吗|[？?]")
_ZH_CLAUSE_SPAN = 120  # the clause before a Chinese hang word is read back this far at most


def zh_hang_averted(text: str, m: re.Match) -> bool:
    """(fr44) Is the Chinese hang word `m` guarded against, fixed or past (_ZH_HANG_AVERTED in its clause before it, a
    fix said after it in its sentence), not a hang seen now?"""
    return bool(re.match(r"[\u4e00-\u9fff]", m.group(0))) and bool(
        _ZH_HANG_AVERTED.search(clause_before(text, m.start(), _ZH_CLAUSE_SPAN)) or _zh_fixed_after(text, m))


def _zh_fixed_after(text: str, m: re.Match) -> bool:
    """(fr44r2) Is a fix said after the Chinese hang word `m` in its sentence, not a temporary, believed or asked-for
    one (_ZH_FIX_NOT_SO between, or a question after)?"""
    end = sentence_end(text, m.end())  # (past its end mark: a question's ？ is read)
    fix = _ZH_HANG_FIXED_AFTER.match(text, m.end(), min(end, m.end() + 80))
    return bool(fix) and not _ZH_FIX_NOT_SO.search(text[m.end():min(end, fix.end() + 40)])


def _zh_stall_not_hang(text: str, m: re.Match) -> bool:
    """(fr44) Is the 停滞 / 挂起 hang word `m` a rate's plateau (a rate or figure named earlier in its clause), averted,
    fixed or past (zh_hang_averted), or a suspension done on purpose (把 … 挂起)?"""
    word = m.group(0)
    if "停滞" not in word and "挂起" not in word:
        return False
    # (fr44r2) the rate the subject right before 停滞 ("吞吐量停滞", "速度就停滞了", "loss 停滞在"), not one before
    # 时/但/后 or another subject ("GPU 利用率 100% 但训练停滞", "测带宽时停滞"); 把 with the process right before
    # 挂起 ("把进程挂起"), not "把模型加载到 GPU 后进程挂起"
    lead = clause_before(text, m.start(), _ZH_CLAUSE_SPAN) + word[:word.find("停滞" if "停滞" in word else "挂起")]
    if "停滞" in word and re.search(r"(?:" + _ZH_STALL_RATE.pattern
                                   + r")(?:量|值)?\s*(?:就|也|都|一直|基本|已经|开始)?\s*$", lead, re.I):
        return True
    if "挂起" in word and re.search(r"把\s*(?:这个|该|整个)?\s*(?:进程|任务|作业|程序|服务|job|它)?\s*$", lead, re.I):
        return True
    return zh_hang_averted(text, m)
_HANG_ZH = (_NOT_CARD_NOUN + r"卡着|"
            + _NOT_CARD_NOUN + r"(?<!主要)(?<!瓶颈)(?<!基本)卡在了?\s*(?![\d约大一])[^，。；,;\n]{0,20}?"
            r"(?:不动|那里|那边|那儿|这里|这儿|这一?步|这一?块|这个(?:地方|位置)|阶段|初始化|(?<![A-Za-z])init\b|加载|"
            r"后(?![面续])|之后)|"
            r"(?:没有?|无)\s*(?:任何)?\s*(?:反应|响应)(?![出到在时速延上的])|"
            + _HANG_ZH_STALL)
# (physics41) A time said to rise, in Chinese, as "latency increases" is read in English: 耗时/延迟/时延/延时/响应时间/
# 推理时间 and then 增加/上升/升高/变长/翻倍 in the same clause ("模型推理的耗时随着并发数增加而显著增加",
# PaddlePaddle/Paddle#74043; "并发的耗时也在上升", PaddlePaddle/PaddleX#4668; "突然有新请求也会响应时间变长",
# jina-ai/clip-as-service#539). A negation between them rules it out ("耗时没有增加", "延迟不会变长"); a bare 时间 (load
# time, training time, the date) is not read.
# (s41review) Only a negation: 不断/不停 ("耗时不断增加", the time keeps rising) say the opposite of one. Nor may the
# gap hold a time falling or a rate, whose own verb the rise then is ("延迟降低而吞吐量增加": latency fell, throughput
# rose).
_ZH_NEGATION = r"没|不(?![断停])|未|无"  # a negation, not 不断/不停 ("keeps")
# (words42) ... and one right before a change word of slowness, as "not slower" is in English: "推理没有变慢", "速度并
# 没有下降", "一点也不慢", "未见明显下降", "不会变慢", "不算慢"; only the words that may stand between a negation and
# its verb (有, 会, 是, 明显, 太, 变得, ...), so "不知不觉变慢" and "受不了太慢" still complain
_ZH_DENIED = re.compile(r"(?:" + _ZH_NEGATION + r")(?:有|会|再|是|算|怎么|见|曾|明显|太|很|多少|任何|显著|特别|"
                        r"非常|什么|变得?|地|的){0,3}\s?$")


def _zh_denied(text: str, m: re.Match) -> bool:
    """(words42) Is the Chinese change word `m` matched denied by the negation just before it ("没有变慢")? (fr42) Not
    by the negation of an A-not-A question, between two of the same verb ("是不是太慢", "会不会变慢", "有没有变慢"):
    that asks."""
    pos = max(0, m.start() - 10)
    while d := _ZH_DENIED.search(text, pos, m.start()):
        verb = text[d.start() + 1:d.start() + 2]
        if not (d.start() > 0 and verb and text[d.start() - 1] == verb):
            return True
        pos = d.start() + 1
    return False
_ZH_RISE_GAP = r"(?:(?!" + _ZH_NEGATION + r"|[降减缩]|变[短快少小]|吞吐|速度)[^\n，,。；;])"
# (words42) 延迟/延时 is also the verb "defer": 延迟加载 is lazy loading, 延迟初始化 lazy initialisation (Spring's
# lazy-initialization; https://learn.microsoft.com/zh-cn/ef/core/querying/related-data/lazy "延迟加载"), which loads
# later and so may hold more memory ("开启延迟加载后内存占用增加"): no latency, when a verb follows it.
_DEFERRED = r"(?!\s?(?:加载|初始化|启动|执行|导入|分配|释放|调用|创建|绑定|求值|计算|编译))"
_TIME_ROSE_ZH = (r"(?:耗时|延迟" + _DEFERRED + r"|时延|延时" + _DEFERRED + r"|响应时间|推理时间)" + _ZH_RISE_GAP
                 + r"{0,20}?"
                 r"(?:增加|上升|升高|变长|翻倍)")


# (lang42) The timeout in Korean and Japanese, the loanword of the English "timeout" the hang family reads:
# "NCCL ALLREDUCE 타임아웃이 발생하면서 학습이 죽어버리는 문제" (9566.tistory.com/568),
# "멀티 GPU NCCL 타임아웃 - 이 환경에서는 불안정", "분산 학습 시 NCCL 타임아웃은 대부분 네트워크 문제입니다";
# "NCCL watchdogタイムアウト（rank0が10分停止）が1回発生", "NFS I/Oが重い場合にタイムアウトする可能性がある"
# (Korean and Japanese training READMEs and notes in public repositories).
# Not the timeout as a setting or a remedy ("NCCL 타임아웃 값 증가", "타임아웃을 늘리", "NCCLタイムアウトを延長",
# "NCCLタイムアウトを回避します", "NCCLタイムアウト7200秒"), denied ("타임아웃이 발생하지 않", "타임아웃 없이",
# "タイムアウトしない", "タイムアウトは発生しなかった"), heard or guessed ("타임아웃이 난다고",
# "タイムアウトするらしい")
# or under a condition ("타임아웃이 발생하면" but not "발생하면서", "while it occurs";
# "タイムアウトする可能性", "タイムアウトしたら", "タイムアウトする場合").
# (fr42) Denied in the short form too, 안 before the verb ("타임아웃이 안 났습니다", "타임아웃은 더 이상 안
# 납니다"), in the progressive ("タイムアウトは発生していません", "タイムアウトエラーは出ていません") or with せず/ず
# ("タイムアウトせずに完了"), a word such as 에러/エラー, 더 이상 or 一度も between. (Asked whether it will,
# "타임아웃이 발생하나요?": _ko_ja_asked.)
_KO_TIMEOUT_LEAD = r"(?:\s?(?:에러|오류))?(?:이|가|은|는|도)?\s?(?:(?:더\s?이상|전혀|한\s?번도|다시는|아직)\s?)?"
_JA_TIMEOUT_LEAD = r"(?:\s?エラー)?(?:は|が|も)?\s?(?:(?:一度も|全く|まったく|もう)\s?)?"
_HANG_KO_JA = (r"타임\s?아웃(?!\s?(?:값|시간|설정|을\s*(?:늘|증가|연장|설정|조정|올)|"
               + _KO_TIMEOUT_LEAD + r"(?:(?:발생|생기|나|뜨)(?:하|되)?(?:고\s?있)?지\s*않|없|"
               r"발생하면(?!서)|나면(?!서)|뜨면|"
               r"안\s?(?:나|났|납|난|생|뜨|떴|뜹|뜬|떠|발생|걸)|"
               r"(?:발생할|날|생길)\s*(?:경우|수|때)|(?:발생한다|난다|뜬다)(?:고|는)|"
               r"(?:발생하|나|뜨)는\s*(?:것\s*같|듯))))|"
               r"タイムアウト(?!\s?(?:値|時間|設定|\d|を(?:延長|設定|伸ば|長く|回避|防)|の(?:設定|延長|値|回避)|"
               r"(?:し|する|して)?(?:な[いかく]|ません|たら|ると|る場合|る可能性|る恐れ|るかも|るらしい|るそう)|"
               + _JA_TIMEOUT_LEAD + r"(?:発生|起き|出|起こら)?(?:し|す)?(?:て(?:い|お)?)?"
               r"(?:な[いかく]|ませ|る場合|る可能性|たら)|"
               + _JA_TIMEOUT_LEAD + r"(?:発生)?(?:せ|起き|出|起こら)ず|なし|対策))")

# (words43) The other Japanese and Korean hang words, beside the timeout: the loanwords of the English ones the hang
# family reads (freeze, hang, deadlock: フリーズ, ハング(アップ), デッドロック; 데드락/데드록, 프리징), as reports
# and notes write them ("ここでフリーズしていることがあった", "ダウンロード中に...黒画面でフリーズ",
# "講評途中の「もう一度」でフリーズ"; "デッドロック(プログラムが停止してしまう状態)",
# runebook.dev/ja/docs/pytorch/distributed.algorithms.join/...), and the Korean 행 걸림 ("hang" spelt in Hangul,
# with 걸리다: "행 걸린 연결이 라우트를 붙잡지 않게", "pid는 살아 있으나 ... 행 걸림(hang) 의심",
# "행 걸린 요청이 worker 점유"). Not denied after it ("フリーズしない", "フリーズしていません", "행 걸림 없음",
# "데드락이 발생하지 않"), nor a possibility, a risk or a condition ("OOMでフリーズするリスクがある",
# "フリーズしたら", "フリーズすると", "데드락이 발생할 수", "데드락이 발생하면"), nor a remedy
# ("デッドロックを防ぐ", "데드락 방지"); 行/row is 행 too: "3 개 행 걸침" (spans 3 rows), "행 걸러내기" (filter
# rows) are not the forms read, nor a 행 after a number; nor ハングル (Hangul).
# (fr43) Nor "is not a freeze" ("フリーズではなく", "フリーズじゃなくて"; "데드락은 아니고", "데드락이 아닌"),
# but "is it not a freeze?" suspects one (fr43 B2: "デッドロックではないかと思います", "ではありませんか",
# "데드락이 아닌가 싶습니다", "아닌지", "아니냐"); nor 행
# inside a word (실행/수행, "execution": "실행에 걸린 시간") or "time taken" ("행 걸린 시간").
# (words44) What the Japanese hang and error words share after their verb: denied ("しない", "しませんでした"), a
# condition or a possibility ("したら", "すると", "する場合", "する可能性", "するかも"), heard ("するらしい",
# "するそう").
_JA_NOT_SEEN = (r"な[いかく]|ませ|たら|ると|る場合|る可能性|るリスク|る恐れ|るおそれ|るかも|るらしい|るそう|そう|ず|"
                r"れ(?:る|ない)")
_JA_HANG_WORDS = (r"(?:フリーズ|ハング(?!ル)(?:アップ)?|デッドロック)(?!\s?(?:を|の)?\s?(?:防|回避|対策|防止|避け)|"
                  r"\s?(?:で(?:は|も)?\s?(?:なく|ない(?!か(?!も)|でしょう|だろう)|ありません(?!か))|"
                  r"じゃな(?!い(?:か(?!も)|でしょう|だろう)))|"
                  + _JA_TIMEOUT_LEAD + r"(?:発生|起き|起こら)?(?:し|す|さ)?(?:て(?:い|お)?)?"
                  r"(?:" + _JA_NOT_SEEN + r")|せず|なし|の(?:場合|可能性|リスク|恐れ|対策|回避|防止))")
_KO_HANG_WORDS = (r"(?:데드\s?락|데드\s?록|프리징)(?!" + _KO_TIMEOUT_LEAD
                  + r"(?:(?:발생|생기|나|걸리|되)(?:하|되)?지\s*않|"
                  r"없|(?:발생|걸리|생기)?(?:하|되)?면|(?:발생할|생길|날|걸릴|될)\s*(?:경우|수|때)|방지|해결|회피|"
                  r"(?:발생한다|난다|걸린다|된다)(?:고|는)|안\s?(?:나|났|생|걸|발생)|"
                  r"(?:은|는|이|가)?\s?(?:아니(?![가까냐])|아닌(?!가|지))))|"
                  r"(?<![가-힣])(?<!\d)(?<!\d\s)행\s?(?:이\s?|에\s?)?걸(?:려|렸|림|린(?!\s?시간)|립니)"
                  r"(?!\s?(?:은|는|이|도)?\s?없)")


# (words44) An error said in Japanese and Korean, as "I get an error" is in English: エラー with the verb that reports
# it (出る, 発生する, になる), 에러/오류 with 발생하다, 나다, 뜨다, 생기다, 나오다, as reports and guides write them
# ("マイグレーションをデータベースに反映しようとすると、次のようなエラーが出ます。", find_string id 26406751963;
# "（Consoleにエラーが出ます）", id 31293296383;
# "オブジェクトや関数を直接レンダリングしようとするとエラーになります。", id 21504032808;
# "C#環境の構築にて、友人のPCでエラーが発生したので", id 26406751963; "열심히 달려왔지만 ... 위와 같이 수많은 에러가
# 발생합니다.", id 46305074641; "SQL로 직접 정책을 생성하려고 하면 \"must be owner of table objects\" 에러가
# 발생합니다.", id 15079174906; "뜬금없는 SQL syntax 에러가 납니다.", id 42579290777). The clause before the word
# ("実行すると", "생성하려고 하면") is when the reporter saw it, as "when I run it I get an error". Not denied after
# it ("エラーは出ません", id 66181978577; "エラーは出ていません", "エラーにならない"; "에러가 발생하지 않습니다",
# "에러가 안 납니다", "오류 없음"), nor a condition, a possibility or another's word ("エラーが出る場合",
# "エラーが発生したら", "エラーになる可能性", "エラーが出るらしい"; "에러가 발생하면", "에러가 발생할 경우",
# "오류 발생 시", "에러가 난다고"), nor asked whether it will ("エラーが出ますか", "에러가 발생하나요?": _ko_ja_asked).
# (fr44) Not the stream's name ("標準エラー出力", stderr: 出 before 力, but "エラーが出力されて": one put out),
# nor "never" said as "there is no case of it"
# ("エラーが出ることはありません", "エラーが発生したことはない"), nor a concession ("エラーが出ても処理は続きます").
_JA_ERROR_WORDS = (r"エラー(?:メッセージ)?(?=" + _JA_TIMEOUT_LEAD
                   + r"(?:出(?!力(?![さし]))|発生|起き|起こ|吐|に\s?な|と\s?な))"
                   r"(?!" + _JA_TIMEOUT_LEAD + r"(?:出|発生|起き|起こ[りら]?|に\s?な[らりっ]?|と\s?な[らりっ]?)?"
                   r"(?:し|す|さ)?(?:て(?:い|お)?)?"
                   r"(?:" + _JA_NOT_SEEN + r"|る(?:か(?:どうか)?|時|とき|際)|た(?:場合|時|とき|際|ら)|れば|ても|"
                   r"[るた]?こと(?:は|が|も)?\s?(?:な[いく]|ありません))|せず|なし)")
_KO_ERROR_WORDS = (r"(?:에러|오류)(?:\s?메시지)?(?=" + _KO_TIMEOUT_LEAD
                   + r"(?:발생|생기|생겼|생깁|나(?!중|머지)|났|납|난|뜨|뜹|떴|떠|뜬|나타|나오|나옵|나왔))"
                   r"(?!" + _KO_TIMEOUT_LEAD
                   + r"(?:(?:발생|생기|나|뜨|나타나|나오)(?:하|되)?(?:고\s?있)?지\s*(?:[는도]\s*)?않|"
                   r"(?:발생|생기|나타나)?(?:하|되)?면(?!서)|나면(?!서)|뜨면|나오면|"
                   r"(?:발생할|발생될|생길|날|뜰|나올)\s*(?:경우|수|때|지도)|발생\s?시(?![가-힣])|발생\s?가능|"
                   r"(?:발생한다|난다|뜬다|나온다)(?:고|는)|(?:발생하|나|뜨)는\s*(?:것\s*같|듯)|"
                   r"안\s?(?:나|났|납|난|생|뜨|떴|뜹|뜬|떠|발생|나와|나오)|"
                   # (fr44) without one or whether one occurs ("오류 발생 없이 정상 동작", "에러 발생 여부는"), the
                   # case of one ("에러가 발생하는 경우", "오류가 나는지"), another's word ("에러가 발생했다고 하던데")
                   r"발생\s?(?:없이|여부)|(?:발생하|생기|나|뜨|나오)는\s*(?:경우|지(?!점|속))|"
                   # (fr44r2) not what the screen shows ("오류가 발생했다고 뜨고": seen), nor 지점 ("the point")
                   r"(?:발생했|났|떴|생겼|나왔)다(?:고|는)(?!\s*(?:뜨|뜹|떴|떠|나오|나옵|나왔|나와|표시|찍))))")

SYMPTOMS: list[tuple[str, str]] = [
    # (ut29d) "stucked", as non-native writers put it ("it aways stucked", sgl-project/sglang#12450)
    # (symptom36) and the plural of a timeout: "This was leading to collective timeouts" (instructlab/training#566)
    ("hang", _HANG + r"|\bstuck(?:ed)?\b|\bstall(?:s|ed|ing)?\b|\bfreez\w*|\bfroze\b|\bdeadlock\w*|"
             # (para38b) 死锁, "deadlock" in Chinese, as \bdeadlock\w* beside it
             r"\btimed? ?outs?\b|\btim(?:es|ing) out\b|\bwatchdog\b|\bnever (?:finishes|completes|returns)\b|"
             r"卡住|卡死|死锁|无响应|超时|"
             + _HANG_KO_JA + r"|" + _JA_HANG_WORDS + r"|" + _KO_HANG_WORDS + r"|"
             # (fault39) a process that even SIGKILL does not end: it waits inside a kernel call (the GPU driver's),
             # the state ps(1) shows as D, "uninterruptible sleep", and no signal is delivered until that call returns
             # (signal(7)): "freeze and is not killable" (pytorch/pytorch#24081), "the suspended process could not
             # be killed by ctrl-c" (OpenNMT/CTranslate2#665), "I could not `sudo kill` the training processes"
             # (pytorch/pytorch#1656), "the GPU process can not be killed" (alibaba/cascade-stereo#7)
             r"\b(?:can\s?not|can['’]?t|could\s?not|could\s?n['’]?t|won['’]?t|will not|unable to)\s+(?:even\s+)?"
             # (review39b: not "can't be killed cleanly": a shutdown that leaves a worker behind, which SIGKILL ends)
             r"(?:be\s+)?[`'\"]?(?:sudo\s+)?kill(?:ed)?\b(?!\s+(?:cleanly|gracefully|properly|nicely))|"
             r"\b(?:not\s+|un)killable\b|"
             # (ut25) the GPUs or processes stop answering: "those GPUs stopped responding" (pytorch/pytorch#1656)
             # (review26) "silently stops processing requests" (sgl-project/sglang#22779)
             r"\bstop(?:s|ped)? (?:responding|processing|serving|answering)\b|\bunresponsive\b|"
             # a server that takes requests and never answers them: a hang seen from the client
             # (not "never answered more than 20 tok/s": a rate)
             # (para38) and with the requests as its object: "takes the requests and never answers them"
             r"\bnever (?:respond(?:s|ed)?|answer(?:s|ed)?|repl(?:y|ies|ied))\b(?:\s+(?:them|it|any of them))?"
             r"(?=\s*(?:[.,;:!?)]|$|to\b|at all\b|back\b|anymore\b|and\b|but\b|while\b|once\b|when\b|after\b|since\b))|"
             # (symptom36) the same said with "not": "the request does not respond, and the service cannot handle new
             # request" (triton-inference-server/tensorrtllm_backend#110), "the server is not responding"
             r"\b(?:does ?n[o']t|did ?n[o']t|do ?n[o']t|is ?n[o']t|are ?n[o']t|was ?n[o']t|not) "
             r"(?:respond(?:s|ing)?|answer(?:s|ing)?|repl(?:y|ying))\b"
             # (to a request, not "does not respond to batch size": a figure that does not move)
             r"(?=\s*(?:[.,;:!?)]|$|to\s+(?:any\s+|the\s+|my\s+|new\s+|further\s+)?(?:requests?|queries|pings?|"
             r"clients?|calls?|curl|API|prompts?|health)\b|at all\b|back\b|anymore\b|and\b|but\b|while\b|once\b|"
             r"when\b|after\b|since\b))|"
             r"\bno (?:response|reply|answer) (?:ever )?(?:comes?|came|is|was) (?:back|returned)\b|"
             r"一直(?:没有|没)(?:响应|返回|回复)|" + _HANG_ZH),
    ("crash", r"\bcrash\w*|\bsegfault\w*|\bsegmentation fault\b|\bcore dumped\b|\bkilled\b|(?<!PCIe )\bbus error\b|"
              r"\billegal memory access\b|崩溃|段错误|"
              # (lang40) the process killed, said in Chinese: passive 被 + kill/杀 ("跑起来后 莫名的被kill了",
              # PaddlePaddle/PaddleOCR#1846; "内存不够，被系统杀掉了", hiyouga/LlamaFactory#6964; "就会被Killed掉",
              # EOA-AILab/NER-Chinese#5), "Killed" with a Chinese particle after it, where \b finds no edge
              # ("推理时模型加载Killed了", ssbuild/chatglm_finetuning#75), and bash's zh_CN message for SIGKILL, 已杀死
              # ("ETA: 2621s已杀死", open-mmlab/mmdetection#5263). Not the reporter killing it ("手动执行 kill -9",
              # "只能kill掉进程": no 被), and not "kill" before a noun ("被kill进程": no such form read)
              r"被\s*(?:(?:系统|操作系统|OOM\s*killer|OOM|内核|linux)\s*)?(?:kill(?:ed)?|杀(?!毒))(?![A-Za-z])|"
              r"killed(?=[了掉])|已杀死"),
    # "cannot" names a failure, not "can't get more than 10 tok/s" (a figure follows: a shortfall), "can't scale"
    # (a speed) nor "(or I can't?)" (the clause ends there); "can't get the model to load" is one
    # (s25) an exception named by its class, as Python prints it ("AssertionError: 25 is not divisible by 4",
    # "[Bug]: ValueError: The number of required GPUs exceeds ...", vllm-project/vllm#7107): "error" sits inside it
    # (review25) and a CUDA check's line, which names the error without the word ("[BUG] (v1.50.1) - ggml-cuda.cu:5871:
    # out of memory", LostRuins/koboldcpp#544's title)
    ("error", r"\berror\w*\b|\bexception\b|\btraceback\b|\b(?-i:[A-Z][a-z]\w*?(?:Error|Exception))\b(?=:|\s*$)|"
              + _CUDA_CHECK_LINE + "|"
              r"\bfail(?:s|ed|ure)?\b(?!\s+to\s+(?:(?:\w+\s+)?" + _REPRO_VERB + r"\s+" + _REFERENCE_OBJECT + r"\b|"
              r"(?:scale|speed|improve|double|match|saturate|deliver|meet|"
              r"use|utili[sz]e|beat|outperform|increase)\b|" + _TO_A_FIGURE + "))|"
              r"(?:\bcannot\b|\bcan't\b|\bunable to\b)(?!\s*(?:[?)!.,;]|$|" + _OWN_GRASP
              # (ut27b) how a tensor lies over the GPUs, not a failure: "the KV cache cannot be sharded across
              # tensor-parallel ranks and is replicated 8x" (MLA's single KV head, vllm-project/recipes#762)
              + r"|be (?:sharded|split|partitioned|divided) (?:across|among|over|between)\b"
              + r"|(?:improve|increase|do better|scale|"
              r"(?:fully|efficiently|effectively) (?:use|utili[sz]e)|utili[sz]e all|"
              # (s27, ut27c) a link or GPU used below its rate: "NCCL unable to use full TCP bandwidth in Azure"
              # (NVIDIA/nccl-tests#83), "can't saturate the full 100Gbps bandwidth"
              # (para38) with the subject asked between: "why can't one request use the maximum bandwidth?"
              r"(?:(?:one|a|the|my|our|single|this|that|it|we|I)\s+(?:\w+\s+)?)?"
              r"(?:use|utili[sz]e|saturate|reach|get)\s+(?:the\s+)?(?:full|max\w*|all\s+(?:the\s+)?(?:available\s+)?)"
              r"\s*(?:[\w/.-]+\s+){0,2}?(?:bandwidth|throughput|speed|performance|line[- ]rate)\b|"
              # "I cannot use them all", "can't use both GPUs": GPUs left idle, a question of placement (issue 11 r)
              # ("cannot use the second GPU" stays a failure: one device out of reach)
              r"(?:use|utili[sz]e) (?:them all|all (?:of )?(?:them|the|my|\d+)|both|every|"
              r"more than one|multiple|several|\d+) ?(?:\w+ )?(?:GPUs?|cards?)?)\b|"
              # (s27, ut27d) a setting ruled out for memory, said to explain the one in use: "I can't use
              # zero_stage:2 because the model is too large" (CarperAI/trlx#347, whose trouble is a slow generate)
              r"(?:use|run|choose|pick|enable|go with)\s+[^.\n,;]{1,40}?\s+(?:because|since|as)\s+"
              r"(?:the\s+|my\s+|our\s+)?(?:model|it|weights?)\s*(?:is|are|'s)?\s*"
              r"(?:too (?:large|big)|(?:does|do)(?:n't| not) fit)\b|"
              # a speed out of reach: "can't one request reach the batch's rate", "can't TPS be the maximum"
              # ("cannot be loaded", "can't get the model to load" stay failures: no speed named)
              r"(?:\w+\s+){0,2}?" + _REPRO_VERB + r"\s+" + _REFERENCE_OBJECT + r"\b|"  # (issue 11)
              r"(?:[\w'\"‘’“”]+\s+){0,3}?(?:reach|achieve|exceed|match|get|be)\b[^.?!\n]{0,30}?"
              r"\b(?:max\w*|peak|faster|quicker|higher|better|rates?|speed|throughput|bandwidth|"
              r"as (?:fast|high|good)|~?\d+\b(?!\s*(?:\w+\s+)?(?:GPUs?|cards?|nodes?|devices?)\b))\b|"
              + _TO_A_FIGURE + "))|"
              r"\b(?:does ?n[o']t|not) (?:work|start|load|run)\w*\b(?!\s+" + _HOW_WELL + r")|\brefuses?\b|"
              # (review26) the same failure said as a change: "SGLang stops working after a few requests"
              # (sgl-project/sglang#2741; not "stops working well")
              r"\bstop(?:s|ped)? working\b(?!\s+" + _HOW_WELL + r")|"
              r"\bcan not (?!" + _OWN_GRASP + r")(?:start|load|run|find|open|allocate|connect|enable|access|"
              r"initiali[sz]e|launch|create|use|do)\b|"
              r"\bnot supported\b|\binvalid\b|"
              + _MISPLACED + "|"
              # (para37c) 错误的 before a place is the adjective "wrong" ("分配在错误的NUMA节点上": the wrong
              # node), no error
              r"\bWARN\b|报错|错误(?!\s*的\s*(?:NUMA|节点|socket|插槽|CPU|位置|设备|卡|GPU))|失败|"
              # (b49d) the Chinese of "does not load / run" and "can not load / run" above: "跑9B的模型无法跑起来"
              # (vllm-project/vllm#5704), "单机的一张卡无法加载大模型" (xorbitsai/inference#1927), "加载不了". Not
              # 显存不足 / 内存不足 (r49a): the English class holds no "out of memory" either, and the words
              # stand as often in a fixed, past or conditional state ("之前显存不足的问题已经解决了",
              # "显存不足时会自动卸载到 CPU")
              r"启动不了|无法启动|无法\s*(?:加载|载入|运行|跑起来|跑通)|(?:加载|载入|运行|跑)\s*不(?:了|起来)|"
              + _JA_ERROR_WORDS + "|" + _KO_ERROR_WORDS),
    ("scaling", _MORE_GPUS + r"[^\n]{0,200}?" + _NO_GAIN + "|" + _NO_GAIN + r"[^\n]{0,120}?" + _MORE_GPUS
                + "|" + _CJK_SCALING + "|" + _WORLD_SCALING),
    ("normal?", r"\bnormal\b|\bexpected\b|\breasonable\b|"
                r"\b(?:is|are) (?:this|it|that|these|those)(?: (?:numbers?|figures?|results?|speeds?|values?|rates?|"
                r"bandwidth|throughput|latency|performance))? (?:right|correct|ok|okay|fine|good|acceptable)\b|"
                r"\bshould (?:it|this|that) (?:be|run|go) (?:any )?(?:faster|higher|quicker)\b|"
                r"\bshould (?:I|we) (?:expect|get|see)\b|"
                # (issue 11, paraphrase audit) the negative question and the commonness question: "Shouldn't this be
                # 124-125+?", "is that a common ...?" (a question mark closes the sentence)
                r"\bshould(?:n't| not)? (?:it|this|that|these|those) be\b[^.\n?]{0,40}\?|"
                r"\b(?:is|are) (?:this|that|it|these|those) (?:a |an )?(?:common|usual|typical)\b[^.\n?]{0,60}\?|"
                + _USUAL_DURATION + "|" + _GPUS_USED_DOUBT + "|"
                # "does this match what the hardware should give?", "is this in line with / on par with the spec?"
                r"\b(?:does|do|is|are) (?:this|that|it|these|those)(?: \w+)? (?:match|meet|line up with|in line with|"
                r"on par with|consistent with|close to)\b[^.\n?]{0,40}?" + _REFERENCE + r"[^.\n]{0,40}\?|"
                # asking whether a figure or behaviour is right ("does this look right?", "am I doing something
                # wrong?", "is that about right?", "does that make sense?")
                r"\b(?:does|do) (?:this|that|it|these|those)(?: \w+)? (?:look|seem|sound)s? (?:right|correct|normal|"
                r"ok|okay|fine|reasonable|good|plausible)\b|\b(?:does|do) (?:this|that|it|these) make sense\b|"
                r"\bam I (?:doing|missing) (?:something|anything)\b|\bwhat am I (?:doing wrong|missing)\b|"
                r"\b(?:is|are) (?:this|that|it|these) (?:about|roughly|more or less) right\b|\bas good as it gets\b|"
                r"\btheoretical\b|\bwhy (?:only|is (?:the|it|this))\b|\bhow to (?:verify|check|confirm)\b|"
                # (symptom36) not a cause supposed, "Is it possible that NCCL is using RDMA without GPUDirect?"
                # (NVIDIA/nccl#465), "is it possible that something isn't working correctly?" (LostRuins/koboldcpp#642)
                r"\bis (?:this|it) (?:possible(?!\s+that\b)|using)\b|"
                r"正常的?[吗么]|是否(?:是)?正常|正常不|合理的?吗|是否合理|符合预期|理论值|"
                # (para38) the noun after it ("这种情况正常吗", "这是正常现象吗", "这个是正常情况吗"), the A-not-A
                # question ("不知道正不正常", "是不是正常"), the either-or question ("这是正常现象，还是我哪里用错了？")
                # and "did I set something wrong" ("是我哪里没有设置对吗？", "我哪里用错了") as "am I doing something
                # wrong?" above; not "理解错" (a meaning asked: ticket.figure_meaning)
                r"正常的?\s*(?:现象|情况|表现|水平|速度)\s*[吗么嘛]|正不正常|是不是正常|"
                r"正常的?\s*(?:现象|情况)?\s*[，,]\s*还是[^。？?\n]{0,30}[？?]|"
                r"哪里\s*(?:(?:做|用|设置?|配置?|弄|搞|写)\s*错|没有?\s*(?:做|用|设置?|配置?|弄|搞|写)\s*对)\s*了?\s*[吗么]?\s*[？?]|"
                # ja / ko / ru / de / es: "正常ですか", "仕様ですか", "정상인가요", "это нормально", "zu erwarten",
                # "es lo esperado" (issue 11 r)
                r"正常(?:です|でしょう)か|普通(?:です|でしょう)か|仕様(?:です|でしょう)か|想定(?:通り|内)|こんなもの(?:です)?か|"
                r"정상(?:인가요|입니까|인지|이에요|이죠|적인 (?:건가요|속도))|원래 (?:이런|그런)|"
                r"(?<!не)нормальн\w*|(?<!не)ожидаем\w*|так и должно быть|"
                r"\bzu erwarten\b|\berwartet\b|\bnormalerweise\b|\besperad[oa]s?\b|"
                + _FIGURE_QUESTION),
    ("slow", _RATE_FELL + r"|\bslow\w*|" + _SLOW_WORDS + "|" + MISSED_REFERENCE + "|" + _SPEED_REGRESSION + "|" +
             _SPEED_DIFFERS + "|" + _REPRO_TROUBLE + "|" + _BELOW_EXPECTATIONS + "|" + _RATE_WISHED +
             # (a figure's name of two words between: "a low token generation speed compared to the previous one")
             r"|\blow (?:\w+ ){0,2}(?:speed|throughput|bandwidth|performance|utili[sz]ation)|"
             # (issue 11 s) the figure's name first: "throughput low", "the speed is very low"
             # (the figure's name before its fall: "found input token throughput decrease dramatically")
             r"\b(?:speed|throughput|bandwidth|performance)\s+decreas(?:e|es|ed|ing)\b|" + _RATE_WORSENED + "|"
             r"\b(?:speed|throughput|bandwidth|performance)\s+(?:is\s+|was\s+|are\s+|seems\s+|looks\s+|stays\s+)?"
             r"(?:very\s+|quite\s+|too\s+|rather\s+|so\s+)?low\b|"
             r"\b(?:lower|worse|less|lesser|reduced|decreased|bad) (?:\w+ )?(?:speed|throughput|bandwidth|performance|"
             r"tok\w*/s)\b|\b(?:speed|throughput|bandwidth|performance) (?:is |was )?(?:lesser|worse) than\b|"
             r"\bunder-?utili[sz]\w*|"
             # (symptom36) a link or GPU used below its rate, the shortfall error's "cannot" leaves to this class: "NCCL
             # unable to use full TCP bandwidth in Azure" (NVIDIA/nccl-tests#83), "can't saturate the full 100Gbps
             # bandwidth"; and the GPU's busy share said to be low: "the GPU usage is too low(15%)"
             # (grammarly/gector#66), "GPU utilization is very low" (not "GPU memory usage is low": memory, not work)
             r"\b(?:cannot|can't|can not|unable to|not able to|fail(?:s|ed)? to)\s+"
             r"(?:use|utili[sz]e|saturate|reach|get)\s+"
             r"(?:the\s+)?(?:full|max\w*|peak|all\s+(?:the\s+)?(?:available\s+)?)\s*(?:[\w/.-]+\s+){0,2}?"
             r"(?:bandwidth|throughput|speed|performance|line[- ]rate)\b|"
             r"\bGPU[- ]?(?:usage|utili[sz]ation|util|load)\s+(?:is\s+|was\s+|are\s+|stays\s+|seems\s+|remains\s+)?"
             r"(?:very\s+|quite\s+|too\s+|rather\s+|so\s+|extremely\s+)?low\b|"
             r"\bnot fully utili[sz]\w*|\bhigh(?:er)? latency|"
             r"\blatency (?:is |was )?(?:very |much )?(?:high|higher|increas\w*)|"
             r"\bperformance (?:issue|problem|regression|degradation|drop)" + _NOT_A_TEST +
             r"|\bpoor\b|\bdegrad\w*|\bbottleneck\w*|"
             r"\bdrop(?:s|ped|ping)?\b|"
             r"\b\d+(?:\.\d+)?\s*%\s+(?:below|short of|lower than|slower than|behind|"  # (issue 11 j)
             r"under\s+(?:the\s+|what\s+)?(?:expected|spec|published|advertised|claimed))\b|"  # (not "95% under load")
             # a measured figure set against a published one: "749 GB/s vs the 900 GB/s advertised", "380 out of
             # the marketed 450 GB/s", "1.3 TB/s instead of the theoretical 2 TB/s"
             r"(?<![\w.])(?P<vs_measured>" + _FIGURE + r")\s*(?:\w+\s+)?(?:vs\.?|versus|out of|against|instead of|"
             r"rather than|compared (?:to|with))\s+(?:the\s+|a\s+|an\s+)?(?:~?(?P<vs_before>" + _FIGURE +
             r")\s*(?:\w+\s+)?)?" + _PUBLISHED + r"(?:\s+(?P<vs_after>" + _FIGURE + "))?|"
             r"\b(?:half|a third|a quarter|one third)\s+(?:of\s+)?(?:what|the\s+(?:speed|throughput|rate|performance|"
             r"bandwidth|tok\w*/s))\b|"
             r"\b(?:can )?only (?:reach|reaches|get|gets|achieve|achieves|hit|hits)\b|"
             # a rate bounded from above ("less than 10 tokens/s", "under 5 t/s", "below 100 GB/s"); a time
             # bounded so ("under 10 ms") is praise, not a complaint
             r"\b(?:less than|fewer than|under|below|lower than|no more than|barely)\s+(?:about\s+|around\s+|~)?"
             r"\d+(?:\.\d+)?\s*(?:tok\w*(?:/s|\s+per\s+s\w*)|t/s|tps|it/s|[GMT]B/?s|Gb/?s|GBps)|"
             r"\b(?:un|not\s+)satisf\w*|\bdisappoint\w*|\bunderwhelm\w*|"
             r"\border(?:s)? of magnitude (?:below|lower|slower|less|worse)\b|"
             r"(?:\bnot|n't) (?:pick|use|choose)\w* the (?:optimal|best|fastest)\b|\bsub-?optimal\b|\bceiling\b|"
             r"慢|天花板|速度只有|下降|(?<!没有)(?<!不是)瓶颈|" + _TIME_ROSE_ZH + "|"
             # (s43) "slow" in Japanese and Korean, as 慢 above, in the forms a report writes ("遅い", "遅すぎる",
             # "遅くなった", "遅くて"; "느립니다", "속도가 느림", "느려요", "느려졌", "느린", "느리다"); not denied
             # ("遅くない", "遅くなかった", "느리지 않", "느려지지 않"), nor 遅延 (latency, a figure's name).
             # (s43review) Nor "did not become slow" ("遅くならない", "遅くなりません", "遅くなっていない/ません",
             # "遅くなってない"), nor Korean's denial with a particle or contracted ("느리지는 않", "느리지도 않",
             # "느리진 않", "느려지지는 않") or the short one before the verb ("안 느려요"); (fr43) 안 standing alone,
             # not the end of 동안 ("몇 시간 동안 느려졌습니다", "during")
             r"遅(?:い|すぎ|かった|くて|くな(?!い|かった|ら[なず]|りませ|って(?:い)?(?:な|ませ)))|"
             r"(?<!(?<![가-힣])안)(?<!(?<![가-힣])안 )"
             r"느(?:립니|림|려(?!지" + _KO_DENIED + r")|린|리(?!" + _KO_DENIED + r"))|"
             # (review38c) a fraction of the rate said with "only", as "half the speed" above: "只有单卡的一半速度",
             # "性能只有一半", "吞吐不到单卡的三分之一"; not a ratio stated plainly ("单卡的速度是双卡的一半")
             r"(?:只有|仅有|只剩|不到)\s*[^，。；,;\n]{0,8}?(?:一半|三分之一|四分之一|1/[234])\s*(?:的)?\s*"
             r"(?:速度|吞吐量?|性能|带宽|速率)|"
             r"(?:速度|吞吐量?|性能|带宽|速率)\s*(?:也|都)?\s*(?:只有|仅有|只剩|不到)\s*[^，。；,;\n]{0,8}?"
             r"(?:一半|三分之一|四分之一|1/[234])|"
             # (para38) the rate called unsatisfactory, as "not satisfactory" above ("速度不太理想", "效果不理想",
             # "不尽如人意"), the rate that fell ("性能掉得很厉害", "带宽掉了一半"), and a ceiling said with "only can
             # reach", as "can only reach" above ("GPU 负载最高只能到 50%"); not "没有不理想", "满意"
             # (review38b: a rate's, not the memory's: "显存占用不理想")
             r"(?<![没並并])(?<!显存)(?<!内存)(?<!占用)(?<!功耗)不(?:太|是很|够|怎么|大)?理想|不尽如人意|"
             r"(?:性能|速度|带宽|吞吐量?|速率|tok\w*/s)\s*(?:也|都|就|直接)?\s*掉|只能\s*(?:跑)?\s*(?:到|达到)|"
             # (para37c, para37d) the rate called low in Chinese, as "throughput is very low" above: "吞吐极低",
             # "带宽很低", "吞吐低得离谱" (a rate's noun: "延迟很低" is a good latency; not "不低", nor "低于" a
             # comparison)
             r"(?:吞吐量?|速度|带宽|性能|速率)\s*(?:也|都|一直|还是)?\s*(?:很|极|极其|非常|特别|比较|较|太|偏)?(?<![不没])低(?![于])|"
             # (title34) the rate said with "only", as 速度只有 says it: "throughput only 8t/s", "speed is only 5 tok/s"
             r"\b(?:speed|throughput|bandwidth|performance|rate)\s+(?:is\s+|was\s+|of\s+)?only\s+(?:about\s+|around\s+|~)?"
             r"\d+(?:\.\d+)?\s*(?:tok\w*(?:/s|\s+per\s+s\w*)|t/s|tps|it/s|[GMT]B/?s|Gb/?s|GBps)"
             # (review34b) not a difference ("only 5 tok/s lower than vLLM"), a need ("bandwidth only 12 GB/s is
             # needed"), or the rate before a change ("was only 20 tok/s before the upgrade; now 60")
             r"(?!\s+(?:lower|higher|slower|faster|less|more|behind|apart|difference)\b|"
             r"\s+(?:is\s+|are\s+)?(?:needed|required|necessary|enough)\b|[^.;\n]{0,20}?\bbefore\b)|"
             # part of the GPUs idle: nvidia-smi's utilisation seen only on some of them at a time; (para37) the
             # range written close ("only 1-2 GPUs") and the verb in any tense ("run at a time", not "runs out of")
             r"\bonly (?:one|1|two|2|a few|some|\d+(?:\s*(?:or|to|-|–|~)\s*\d+)?|\w+ (?:or|to) \w+) (?:of (?:the|my) )?"
             r"(?:GPUs?|cards?)\b[^.\n]{0,30}?"
             # (review37b) not one GPU meant ("only one GPU ran, as intended", "... used on purpose")
             r"\b(?:running|run|runs|ran|busy|work\w*|utili[sz]ed|used|active|computing)\b(?!\s+out\s+of\b)"
             r"(?![^.\n]{0,30}?\b(?:as\s+intended|on\s+purpose|as\s+(?:I\s+|we\s+)?(?:expected|configured|set)|"
             r"by\s+design|deliberately)\b)|"
             r"\b(?:other|rest of the|remaining) (?:GPUs|cards)\b[^.\n]{0,20}?"
             r"\b(?:are |stay |sit )?(?:idle|unused|waiting|at 0\s*%)"),
]


# (left27) The lines an issue form prints around the reporter's answers: its ticked boxes ("- [x] 1. I have searched
# related issues but cannot get the expected help.") and its field labels, which GitHub renders as headings ("### 🐛
# Describe the bug", "### Error traceback", "### Anything that did not work"). Neither is the reporter's account, so
# neither classes the ticket. The title ("# ...") is the reporter's.
_FORM_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]+\[[ xX]\][^\n]*|#{2,6}[ \t][^\n]*)$", re.M)
# (symptom34) ... and the placeholder sentences of GitHub's default issue templates, left in when the reporter writes
# beside them rather than over them: "A clear and concise description of what you expected to happen." under
# "**Expected behavior**" (triton-inference-server/server#3446), "A clear and concise description of what you want to
# be implemented." (oobabooga/textgen#2909). The template's words, not the reporter's: "expected" there asks nothing.
# (review34) Only the template's own sentences, "of what ..." and "of any ...", to their end: a reporter who writes over
# the placeholder ("A clear and concise description of the bug: TP 4 is 2x slower than TP 2") keeps their words.
_TEMPLATE_PLACEHOLDER = re.compile(r"\bA clear and concise description of (?:what|any)\b[^.:\n]*\.?|"
                                   # the same template's field labels, in bold where the form has no heading
                                   r"^[ \t]*\*\*(?:expected behaviou?r|describe the bug|to reproduce|additional "
                                   r"context|screenshots)\*\*[ \t]*:?[ \t]*$", re.I | re.M)


def _opening(facts: Facts) -> tuple[str, str] | None:
    """(source, title and first paragraphs) of the reporter's description, without the issue form's own lines."""
    for n in facts.of(Note):
        if n.kind == "description" and n.text:
            return n.source, spaced(_TEMPLATE_PLACEHOLDER.sub("", _FORM_LINE.sub("", n.text))[:900])
    return None


_A_RATE_STUCK = re.compile(
    r"\b(?:throughput|speed|performance|bandwidth|busbw|algbw|tok(?:en)?s?/s|utili[sz]ation|latency|scaling)\b\W+(?:\w+\W+){0,2}?"
    r"(?:stuck|stall\w*|plateau\w*)\b|\b(?:stuck|stall\w*)\s+(?:at|around|near|below|under)\s+~?\d+(?:\.\d+)?\s*"
    r"(?:tok\w*/s|tokens?/s|t/s|it/s|GB/s|Gb/s|%|ms|samples/s|req\w*/s)", re.I)


# (para38) 卡住 after 被 ("held back by") in its clause is the passive "blocked by": "多卡推理速度被单个 CPU 核心的性能
# 卡住了" (the speed limited by one CPU core), "被 PCIe 带宽卡住", as "bottlenecked by"; the hang is "程序卡住了".
_HELD_BACK_BY = re.compile(r"被(?:(?!之后|以后|后|时)[^，,。；;！!？?\n]){1,25}$")  # (not "被 kill 之后程序卡住了")

# (s22) Stuck in a state a scheduler gives before any GPU work starts: "The model instance gets stuck in the analyzing
# state" (gpustack/gpustack#907), "The model instance is stuck in the Analyzing state" (gpustack/gpustack#1650), "The
# model instance has been stuck in Scheduled state" (gpustack/gpustack#871), "the pod is stuck in pending state"
# (kai-scheduler/KAI-Scheduler#993): the placement waits, no collective hangs.
_STATE_STUCK = re.compile(r"\s+in\s+(?:the\s+|a\s+)?['\"“‘`]?(?:pending|scheduled|scheduling|analy[sz]ing|queued|"
                          r"unschedulable)['\"”’`]?\s+(?:state|status)\b", re.I)

# (physdoc33) A pause that ends, not a hang: "the generation stalls for a moment each time a long prompt arrives",
# "streaming briefly freezes" (the chunked-prefill and preemption trade-offs the engines document).
# (review33) "a second" is a duration, not the ordinal of "got stuck a second time", "hangs a second run".
_MOMENTARY_AFTER = re.compile(r"\s*(?:for\s+)?(?:a (?:moment|split second|few (?:seconds|milliseconds|ms))|"
                              r"a second(?!\s+(?:time|run|attempt|try|round|request|call|one)\b)|"
                              r"briefly|momentarily|a (?:little|bit))\b", re.I)
# (lead44) An English hang guarded against or fixed is no hang seen now, as the Chinese one is (zh_hang_averted): a
# precaution before it in its clause ("sets NCCL_P2P_DISABLE=1 (to avoid NCCL hangs)", find_string id 65769737760;
# "may need NCCL_P2P_DISABLE=1 to avoid NCCL hangs", id 53858619987; "to avoid NCCL hang on exit", id 22445923900)
# or a fix said of it ("Once the hang was fixed, ...", ids 67317528695, 58604153629; "The hang was fixed by Linux
# 6.2", id 63245293249; "The training hang issue was resolved in recent updates", id 8040994286; "remove
# kernfs_remove, which fixed the hang", id 25589380657). Not when the precaution failed or is asked for ("we cannot
# avoid the hang", "how do I prevent the hang?"), nor a fix denied, temporary, undone or asked about ("was not
# fixed", "fixed temporarily", "is back", "again", "Was the hang fixed in 0.6.3?"); a fix tried for it ("I set X=1 to
# fix the hang") says the hang was seen, its outcome unsaid. (past45) "guard against" and "protect against" are the same
# precaution ("The timeout is there to guard against hangs": a probe; "Configure ... timeouts to prevent requests from
# hanging indefinitely", find_string id 19515763622).
_EN_HANG_AVERTED_BEFORE = re.compile(
    r"\b(?:avoid(?:s|ing)?|prevent(?:s|ing)?|work(?:s|ing)?\s+around|(?:safe)?guard(?:s|ing)?\s+against|"
    r"protect(?:s|ing)?\s+against|(?<!\bto\s)(?:fix(?:es|ed|ing)?|resolv(?:e|es|ed|ing)|"
    r"solv(?:e|es|ed|ing))|eliminat(?:e|es|ed|ing)|got\s+rid\s+of)\s+(?:(?:the|this|that|these|those|our|my|any|"
    r"an?|NCCL|random|occasional|intermittent|init|startup|training|process|collective|potential|possible)\s+){0,3}"
    r"(?:[\w-]+\s+)?$|\bprevent(?:s|ing)?\s+(?:[\w-]+\s+){1,3}from\s+$", re.I)
_EN_HANG_FIXED_AFTER = re.compile(
    r"(?:\s+(?:issues?|problems?|bugs?))?(?:\s+(?:before|earlier|previously|in\s+the\s+past))?"
    r"(?:\s*,?\s+(?:which|that)\s+(?:(?:we|I|they|it)\s+)?(?:(?:had|have)\s+)?|\s+)"
    r"(?:(?:was|were|is|are|has\s+been|have\s+been|had\s+been|got|gets|seems?\s+to\s+be)\s+)?"
    r"(?:(?:now|finally|completely|fully)\s+)?(?:fixed|resolved|solved|gone|went\s+away|disappeared)\b", re.I)
_EN_FIX_NOT_SO = re.compile(r"\b(?:not|never|cannot|can't|couldn't|unable|fail(?:s|ed)?\s+to|no\s+way|temporar\w*|"
                            r"partially|how|back|again|still|until|whether)\b|n't\b|\?", re.I)


def _en_hang_averted(text: str, m: re.Match) -> bool:
    """(lead44) Is the English hang word `m` a precaution's object or said fixed (_EN_HANG_AVERTED_BEFORE in its clause
    before it, _EN_HANG_FIXED_AFTER right after it), in a sentence that neither denies, undoes nor asks it
    (_EN_FIX_NOT_SO)?"""
    if not re.match(r"[A-Za-z]", m.group(0)):
        return False
    start = sentence_start(text, m.start(), 160, semicolon=True)  # (the sentence read as text's splitter reads it,
    clause = re.split(r",|\bbut\b", text[start:m.start()])[-1]  # "; " ending one)
    if not (_EN_HANG_AVERTED_BEFORE.search(clause) or _EN_HANG_FIXED_AFTER.match(text, m.end(), m.end() + 80)):
        return False
    return not _EN_FIX_NOT_SO.search(text[start:sentence_end(text, m.end(), 240, semicolon=True)])



# (known46a) A negation that says a run went fine ("without issue", "with no problems") negates its own object, not a
# failure in the clause after it: "We used to run TP=2 without issue, and now it hangs" (a probe the last session's
# read left wrong), "A moment ago Firefox worked without problems, but now it hanged" (find_string id 27695927045),
# "The service has been running in development for weeks without issues, but now it's failing intermittently" (id
# 41242127831), "this worked without any issues, but now after about a day, this stops working" (id 56778882400), "I
# did this before with no issues, but now it seems something is wrong" (id 56869221085). Only where a clause opens
# between them ("but", "until", "now", "and now", "and it"): "without errors, hangs or crashes" is one list of
# what did not happen, and "without hanging", "without any hang" negate the hang itself.
_OWN_OBJECT_NEGATED = re.compile(
    r"\b(?:without|no)\s+(?:(?:any|an?|much|real|major|further|other)\s+)?(?:issues?|problems?|errors?|troubles?|"
    r"hiccups?|complaints?|hitch(?:es)?)(?:,\s*|\s+(?:,\s*)?)(?:but|until|till|yet|now|then|however|though|although|whereas|"
    r"and\s+(?:now|then|suddenly|recently|lately|today|it|this|that|we|I|they|the))\b", re.I)


# (fr46b2) ... but the old reading holds where the failure word's own clause is denied right after it ("It ran 24h
# without issues, and the watchdog never fired": the watchdog is the subject of "never fired", no hang) or where the
# run going fine is a condition ("If it runs without errors, then the hang must be on the client side": a guess under
# an if, not a hang seen after a good run). Not "and now it hangs and never recovers": "and" opens another verb.
_DENIED_RIGHT_AFTER = re.compile(r"\s{1,4}(?:(?!(?:and|or|but|then|so)\b)\w+\s{1,4})?(?:never|not|no\s+longer|"
                                 r"(?:did|does|do|has|have|had|was|is|were|would|will|could)n['’]?t|won['’]t|"
                                 r"can['’]?t)\b", re.I)
_CONDITION_OPENS = re.compile(r"[^\w\n]{0,8}(?:if|once|unless|as\s{1,4}long\s{1,4}as|provided(?:\s{1,4}that)?)\b", re.I)


def _negation_before(text: str, m: re.Match) -> bool:
    """Does a negation (_NEGATION, within 30 characters) rule the failure word `m` out, one that is not a run said to
    go fine with a clause opening after it (_OWN_OBJECT_NEGATED) -- unless `m` is denied right after it or that
    sentence opens as a condition (_DENIED_RIGHT_AFTER, _CONDITION_OPENS)?"""
    window = text[max(0, m.start() - 30):m.start()]
    neg = _NEGATION.search(window)
    while neg:
        if not _OWN_OBJECT_NEGATED.match(window, neg.start()):
            return True
        if _DENIED_RIGHT_AFTER.match(text, m.end(), m.end() + 40) or \
                _CONDITION_OPENS.match(text, sentence_start(text, m.start(), 160), m.start()):
            return True  # "... and the watchdog never fired", "If it runs without errors, then the hang ..."
        neg = _NEGATION.search(window, neg.start() + 1)
    return False


# (known46a) "Times out" and "timing out" (the hang family reads "timed out" and "timeout") where a collective or its
# watchdog times out: PyTorch's ProcessGroupNCCL watchdog says a collective that never completes "ran for 600000
# milliseconds before timing out" ("Watchdog caught collective operation timeout"; torch.distributed's `timeout`
# bounds how long a collective waits), and reporters write it so: "ranks 1-3 enter ep2 and their allreduce times out
# at 10 min" (find_string id 55590426872), "after replay the embedding allreduce times out at 604s" (a row its table
# marks "hang", id 54718215719), "NCCL AllReduce times out after 120s" (id 56459987861), "IB hang — NCCL all_reduce
# times out" (id 66070853315). Not a client's wait ("the request times out after 60 s", "the client keeps timing
# out"): no collective is named in the sentence before it, as "Read timed out" names none (that one the hang family
# reads as it did before).
# (fr46b2) The collective is the subject of "times out": its word right before it, with at most a rank or a step and
# two words such as "keeps", "call", "sometimes" between ("their allreduce times out", "NCCL all_reduce on rank 3
# keeps timing out"), not anywhere in the sentence ("With LoRA rank 64 the HTTP request times out", "Our 16-rank job
# times out at the 24h Slurm time limit", "Data loading from S3 on each rank times out": a request's, a job's, a
# download's wait; a bare rank names no collective). Nor in code: a comment in a fenced block or after "#" or "//"
# ("dist.barrier()  # returns early, otherwise rank 0 times out") is the program's text, not the reporter's.
_TIMES_OUT = re.compile(r"tim(?:es|ing) out", re.I)
_COLLECTIVE_BEFORE = re.compile(r"\b(?:all[-_ ]?reduce|all[-_ ]?gather|reduce[-_ ]?scatter|all[-_ ]?to[-_ ]?all|"
                                r"broadcast|barrier|collectives?|NCCL|RCCL|c10d|watchdog|process[-_ ]?group|"
                                r"init_process_group|communicators?)(?:\(\))?"
                                r"(?:\s+(?:on|in|at|from|of|for)\s+(?:the\s+)?(?:rank|GPU|node|step|epoch|iteration)"
                                r"\s*\d+)?(?:\s+(?:keeps?|kept|still|always|often|sometimes|occasionally|then|just|"
                                r"also|now|eventually|randomly|calls?|ops?|operations?|itself)){0,2}\s+$", re.I)
_CODE_COMMENT_BEFORE = re.compile(r"\S[ \t]+(?:#|//)[ \t][^\n]*$")  # (code, then a comment: not a "# Title" line)
# (fr46c) Nor a collective's timeout put as a condition, in the past or on someone else's system: "If the allreduce
# times out, the job restarts from the last checkpoint", "In the past, when the allreduce times out, we set
# NCCL_IB_TIMEOUT=22", "On another team's cluster their allreduce times out, but ours never stops" (the sentence opens
# so; "hangs" in their place is read by the hang family as it always was).
_TIMES_OUT_NOT_SEEN = re.compile(r"[^\w\n]{0,8}(?:(?:if|when|whenever|once|unless)\b|in\s{1,4}the\s{1,4}past\b|"
                                 r"on\s{1,4}(?:an)?other\s{1,4}(?:team|group|user|company)['’]?s?\s{1,4}"
                                 r"(?:cluster|machine|node|setup|system)s?\b)", re.I)


def _times_out_of_no_collective(text: str, m: re.Match) -> bool:
    """(known46a, fr46b2) Is the "times out" `m` not a collective's own (_COLLECTIVE_BEFORE right before it), or
    written in code (a fenced block, a comment after "#" or "//" on its line)?"""
    before = text[sentence_start(text, m.start(), 80):m.start()]
    return not _COLLECTIVE_BEFORE.search(before[-120:]) or text.count("```", 0, m.start()) % 2 == 1 \
        or bool(_CODE_COMMENT_BEFORE.search(text, max(0, m.start() - 200), m.start())) \
        or bool(_TIMES_OUT_NOT_SEEN.match(before))


# (past45) An English hang said only of the past, with no fix, is no hang seen now, as the Chinese "之前遇到过" is not
# (_ZH_HANG_AVERTED): "used to" governing the hang ("the one that used to hang forever", find_string id 62741282705;
# "a blocked SSE stream used to hang shutdown", id 58532940395; "Sleep(0) used to hang", id 3849965; "the UI used to
# freeze for approximately 50 seconds", id 27964278464; "The particles used to freeze mid-load", id 59396526644), or
# a past marker with a past verb before it in its clause ("Previously had hangs - now fixed!", id 16086446921;
# "We've had similar problems in the past with LL", NVIDIA/nccl#306). Not where the sentence says it goes on now
# ("it still hangs", "it hangs again", "now it hangs", "the hangs are back"), nor a contrast that puts the hang after
# the past ("it used to work but now hangs": the hang's own clause has no past marker), nor "earlier today", nor "we
# are used to hangs" (accustomed to them).
_EN_PAST_VERB = (r"(?:had|got|saw|hit|experienced|encountered|observed|noticed|faced|ran\s+into|would\s+(?:get|see|"
                 r"have))")
# (fr45) "earlier in this run", "earlier in the log": now, not the past; (fr45r2) but "earlier in the year", "earlier
# this year" are the past
# (known46a) ... and "back then", "back when ...", "back in <a release, a year, a month, those days>", "(all the) way
# back ...", at the head of their clause: "Back then we had to key in the cylinders, heads & sectors into BIOS"
# (find_string id 56731994417), "Back then we had the UMH to provide firmware loading" (id 9757952687), "Back then I had
# little experience with websites" (id 48215898459), "Back then we had to use over 16.000 blocks" (id 69426772296). Not
# "back" as a verb's particle ("if we get 0 back then we had the wrong username", id 4457435988; "If the storage
# transaction rolls back then ...", id 24524493; "they come back in Version", id 51893334357): a word before it.
_EN_BACK_THEN = (r"(?:(?<![\w'’]\s)(?<![\w'’])|(?<=\band\s)|(?<=\bbut\s)|(?<=\beven\s))"
                 r"(?:(?:all\s+the\s+)?way\s+)?back\s+(?:then|when|in\s+(?:the\s+(?:days?|old|early|\d+s?\b)|"
                 r"those\s+days|(?:early|late|mid)\b|v?\d[\d.]*(?:[a-z]\w*)?|"
                 r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b|"
                 r"(?:version|release|NCCL|vLLM|PyTorch|torch|CUDA|driver)\s+v?\d[\d.]*(?:[a-z]\w*)?))")
_EN_EARLIER = (r"(?:earlier(?!\s+(?:today|tonight|this(?!\s+(?:year|month))|in\s+(?:this|that|the|my|our)\s+"
               r"(?:log|run|output|thread|issue|post|comment|trace|traceback|message|job|session|test|day|script|"
               r"file|code|process|step|training|report))s?\b)|previously|formerly|in\s+the\s+past|"
               + _EN_BACK_THEN + r")")
_EN_HANG_PAST_BEFORE = re.compile(
    r"(?<!\bam\s)(?<!\bis\s)(?<!\bare\s)(?<!\bwas\s)(?<!\bwere\s)(?<!\bbeen\s)(?<!\bget\s)(?<!\bgot\s)"
    r"\bused\s+to\s+(?:(?:get|have|see|hit|experience|encounter|run\s+into)\s+(?:[\w-]+\s+){0,2})?$|"
    r"\b(?:" + _EN_EARLIER + r"|in\s+older\s+versions)\b[^,;]{0,40}?\b" + _EN_PAST_VERB + r"\s+(?:[\w-]+\s+){0,2}$|"
    r"\b" + _EN_EARLIER + r"\b[^,;]{0,30}?\s$", re.I)
# (fr45) A past marker that points back at the text or at this run, not at a past one: "As I mentioned earlier the job
# hung", "the log I posted earlier shows where it hung", "As previously reported the process froze", "Same as
# earlier: it stalled", "the log from earlier": a mention verb, "as", "than" or "from" before it, or a mention verb
# right after it.
_EN_MENTIONED = (r"(?:mentioned|reported|posted|described|shown|showed|seen|said|stated|noted|explained|wrote|written|"
                 r"attached|shared|linked|discussed|pasted|quoted|cited|sent|uploaded|outlined|listed)")
_EN_BACK_AT_TEXT_BEFORE = re.compile(r"\b(?:as|than|from|" + _EN_MENTIONED + r")\s+$", re.I)
_EN_BACK_AT_TEXT_AFTER = re.compile(r"(?:in\s+older\s+versions|" + _EN_EARLIER + r")\s+" + _EN_MENTIONED + r"\b", re.I)
# (fr45) "Used to" as what a thing was used for, not a past habit: "the minimal script I used to hit the hang", "the
# exact flags we used to get the deadlock", "the config that we used to reproduce the hang": a pronoun its subject
# right after a noun phrase (a relative clause, "that"/"which" or none). Not "the one that used to hang" (no
# pronoun), "I know that we used to get hangs" (no noun), "My colleagues and I used to get hangs", nor "On the old
# cluster we used to see hangs" (a phrase of place or time).
_EN_USED_FOR_BEFORE = re.compile(
    r"(?<![\w-])(?:the|this|these|those|my|our|your|their|a|an)\s+(?:(?!(?:and|or|that|which)\b)[\w.-]+\s+){1,3}?"
    r"(?:(?:that|which)\s+)?(?:I|we|you|they|he|she)\s+(?:(?:just|also|once|\w+ly)\s+)?$", re.I)
_EN_PLACE_OR_TIME_BEFORE = re.compile(r"\b(?:in|on|at|with|for|during|before|after|since|under|from|back|across|"
                                      r"over|by|within|between|when|while|if|once|until|then)\s+$", re.I)
_EN_PAST_HANG_WORD = re.compile(r"hung|hanged|froze|stalled|deadlocked|stuck|hangs?|hanging|freez\w*|stall\w*|"
                                r"deadlocks?", re.I)
# (fr45) A remedy said not to help, or the hang said the same now, carries it on: "Earlier we had hangs with 2.18 and
# upgrading to 2.21 did not help", "In older versions we got the same hang", "... with 0.6.3 too"; in the next
# sentence too ("Previously the job hung at init. I upgraded NCCL to 2.21 but nothing changed."), there without "now"
# or "today" ("Previously it hung. Now it runs fine.": a contrast).
_EN_NO_HELP = (r"\b(?:(?:did|does|do|would|has|have)\s*(?:n['’]?t|\s+not)|won['’]?t|never)\s+"
               r"(?:\w+ly\s+)?(?:help\w*|fix\w*|change\w*|solve\w*|resolve\w*|make\s+(?:a|any)\s+difference)\b|"
               # (fr45r2) "nothing changed" / "no change" with no object: "nothing changed in our config", "no change
               # needed elsewhere" say the fix took nothing else
               r"\bnothing\s+(?:changed|helped|worked)\b(?!\s+(?:in|on|to|with|for|about|at|else\w*|needed|required)\b)|"
               r"\bno\s+(?:changes?(?!\s+(?:in|to|on|needed|required|necessary|elsewhere)\b)|difference|luck|"
               r"improvement)\b")
# (fr45r2) Words that carry the hang on only where no fix is said beside it: the hang "too", "as well", "the same",
# "now", a remedy that did not help ("Upgrading NCCL didn't help at first, but setting NCCL_P2P_DISABLE=1 fixed it",
# "Earlier the job hung at init too. Now it runs fine.", "Upgrading fixed it and nothing changed in our config").
_EN_GOES_ON_WEAK = re.compile(r"\b(?:now(?!\s+and\s+then)|currently|today|these\s+days|nowadays|"
                              r"same(?!\s+time)|(?:too|as\s+well)(?=\s*(?:[.,;:!)]|$)))\b|" + _EN_NO_HELP, re.I)
# (fr46b2) A past hang still open: no fix found for it, or an older release kept until it is fixed ("Back when we
# moved to TP=4 the job hung at the first allreduce and we have not found a workaround", "Back in 0.6.3 the server hung
# at NCCL init, so we pinned 0.6.2 until this is fixed"): "until ... is fixed" and "not found a fix" deny the fix that
# _EN_FIXED would read in "is fixed". (fr46c) Not a cause not found: "We have not found a root cause, it just went away
# with 2.4" is a hang gone, not one open.
_EN_STILL_OPEN = (r"\b(?:(?:have|has|had|did)\s*(?:n['’]?t|\s+not)|never)\s+(?:yet\s+)?(?:been\s+able\s+to\s+)?"
                  r"(?:found|find)\s+(?:a|any|the)\s+(?:\w+\s+)?(?:fix|workaround|solution)\b|"
                  r"\bno\s+(?:fix|workaround|solution)\s+(?:yet|so\s+far|found)\b|"
                  r"\buntil\s+(?:this|it|that|the\s+(?:bug|issue|hang|problem|regression))\s+(?:is|gets|has\s+been)\s+"
                  r"(?:fixed|resolved|solved)\b")
# ("back" as "the hangs are back", not the past marker "back then", "back in 0.4": known46a)
_EN_GOES_ON = re.compile(r"\b(?:still|again|keeps?|kept|continu\w*|persist\w*|"
                         r"(?!" + _EN_BACK_THEN + r")(?<!\bway\s)back)\b|\?|" + _EN_STILL_OPEN, re.I)
# (fr45r2) ... and in the next sentence "still" / "again" only with a hang word ("It still hangs", "the job hung
# again", "It still does."), not about something else ("Since the update the job finishes but it is still slow", "Now
# it still prints a warning but runs fine")
_EN_HANG_STEM = r"hang\w*|hung|freez\w*|froze\w*|stall\w*|stuck|deadlock\w*"
_EN_GOES_ON_NEXT = re.compile(r"\bstill\s+(?:\w+\s+){0,2}?(?:" + _EN_HANG_STEM + r"|time[sd]?\s*out\w*)\b|"
                              r"\b(?:" + _EN_HANG_STEM + r"|happen\w*|occur\w*)"
                              r"\s+(?:\w+\s+){0,2}?again\b|\b(?:it|this|that)\s+still\s+(?:does|do|is|happens|occurs)\b"
                              r"(?!\s+\w)|\b(?:keeps?|kept|continu\w*|persist\w*|"
                              r"same\s+(?:with|on|for|here|thing|issue|problem|result|behaviou?r))\b", re.I)
_EN_GOES_ON_NEXT_WEAK = re.compile(_EN_NO_HELP + r"|" + _EN_STILL_OPEN, re.I)
# (fr45r2) A fix said in the hang's sentence after it or in the next: "Upgrading to 2.21 solved it", "setting
# NCCL_P2P_DISABLE=1 fixed it", "it was fixed", "Now it runs fine", "now it is fine", "no more hangs"; not denied
# ("didn't fix it", "hasn't been fixed", "is not fine"), nor a fix of something else ("fixed the crash").
_EN_FIXED = re.compile(r"(?<!n't\s)(?<!n’t\s)(?<!not\s)(?<!never\s)(?<!nothing\s)(?<!n't\sbeen\s)(?<!not\sbeen\s)"
                       r"\b(?:fixed|fixes|solved|solves|resolved|resolves|cured)\s+(?:it|this|that|them|everything|"
                       r"(?:the|our|this|that)\s+(?:hangs?|hung|freez\w*|stall\w*|deadlocks?|issue|problem|bug))\b|"
                       r"(?<!n't\s)(?<!n’t\s)(?<!not\s)(?<!never\s)\b(?:is|was|got|been|are|were)\s+"
                       r"(?:(?:now|since|then)\s+)?(?:fixed|solved|resolved|gone)\b|"
                       r"\b(?:runs?|running|works?|working|is|been|are)\s+(?:(?!not\b|never\b|still\b)\w+\s+)?"
                       r"(?:fine|ok(?:ay)?|smoothly|normally|perfectly)\b|\bno\s+more\s+(?:hangs?|freezes|stalls|deadlocks)\b",
                       re.I)


def _en_hang_past(text: str, m: re.Match) -> bool:
    """(past45) Is the English hang word `m` said only of the past (_EN_HANG_PAST_BEFORE in its clause before it), in
    a sentence that does not carry it on to now (_EN_GOES_ON)? A bare past marker needs a past-tense hang word
    ("previously it hung"), not "previously, when it hangs ..."."""
    if not re.match(r"[A-Za-z]", m.group(0)) or not _EN_PAST_HANG_WORD.fullmatch(m.group(0)):
        return False
    start = sentence_start(text, m.start(), 160, semicolon=True)
    clause = re.split(r",|\bbut\b|\band\s+(?:now|then)\b", text[start:m.start()])[-1]
    past = _EN_HANG_PAST_BEFORE.search(clause)
    if not past:
        return False
    used_for = past.group(0).lower().startswith("used") and _EN_USED_FOR_BEFORE.search(clause, 0, past.start())
    if used_for and not _EN_PLACE_OR_TIME_BEFORE.search(clause, 0, used_for.start()):
        return False  # "the script I used to hit the hang": what it was used for, not a habit
    if not past.group(0).lower().startswith("used") and (
            _EN_BACK_AT_TEXT_BEFORE.search(clause, 0, past.start()) or
            _EN_BACK_AT_TEXT_AFTER.match(past.group(0))):
        return False  # "as I mentioned earlier the job hung", "as previously reported it froze": the text's past
    if not re.search(r"used\s+to|" + _EN_PAST_VERB, past.group(0), re.I) and \
            not re.fullmatch(r"hung|hanged|froze|stalled|deadlocked", m.group(0), re.I):
        return False  # "previously it hung" is the past; "previously, it hangs" is not said of it
    end = sentence_end(text, m.end(), 240, semicolon=True)
    after = re.split(r"\n\s*\n", text[end:sentence_end(text, end + 1, 240, semicolon=True)])[0]
    fixed = bool(_EN_FIXED.search(text, m.end(), end) or _EN_FIXED.search(after))
    if _EN_GOES_ON.search(text[start:end]) or (not fixed and _EN_GOES_ON_WEAK.search(text[start:end])):
        return False
    # the next sentence of its paragraph: "... but nothing changed."
    return not (_EN_GOES_ON_NEXT.search(after) or (not fixed and _EN_GOES_ON_NEXT_WEAK.search(after)))


# (past45) A timeout set as a guard is no timeout met: the noun with a purpose after it that prevents a hang ("Add
# timeout to prevent hanging", find_string id 57978273250; "Set the timeout to prevent hangs with configurations that
# work", id 6024655; "Set a timeout to avoid hanging", ids 46975745872, 36004510252; "with intelligent timeouts to
# prevent UI stalling", id 71499686312; "Configure web server and application timeouts to prevent requests from
# hanging indefinitely", id 19515763622; "Enable NCCL blocking wait to avoid hangs", facebookresearch/ClassyVision#546,
# whose timeout logic it enables), or a "so" that it does not hang. Not one met ("the job hit a timeout", "Watchdog
# caught collective operation timeout", "timed out after 600 s": a verb, not the noun) nor a purpose said after a
# timeout seen ("hit the timeout, so it did not hang": done, not meant).
_TIMEOUT_NOUN = re.compile(r"time ?outs?", re.I)
_TIMEOUT_MET_BEFORE = re.compile(r"\b(?:hit|hits|hitting|get|got|gets|getting|reach(?:ed|es)?|exceed(?:ed|s)?|caught|"
                                 r"catch(?:es)?|throws?|threw|rais(?:ed|es)|trigger(?:ed|s)?|fir(?:ed|es)|ran\s+into|"
                                 r"runs?\s+into|encounter\w*|see|saw|seeing|sees|report(?:s|ed|ing)?|"
                                 r"(?:end|fail|die|crash|error|exit)(?:s|ed|es|d)?\s+(?:with|in|on))\s+"
                                 r"(?:(?:an?|the|this|that|[\w-]+)\s+){0,2}$", re.I)
_TIMEOUT_GUARD_AFTER = re.compile(
    r"(?P<between>[^.;!?\n]{0,40}?)\b(?:to|so\s+(?:that\s+)?(?:[\w'-]+\s+){0,3}?|in\s+order\s+to)\s*"
    r"(?:(?:prevent|avoid|guard\s+against|protect\s+against)\b|"
    r"(?:does\s*n['’]?t|do\s*n['’]?t|does\s+not|do\s+not|won['’]t|will\s+not|never|can['’]?t|cannot)\s+"
    r"(?:\w+\s+)?(?:hang|stall|freeze|block|get\s+stuck|wait)\b)", re.I)


def _timeout_guard(text: str, m: re.Match) -> bool:
    """(past45) Is the English timeout noun `m` one set to keep a hang off (_TIMEOUT_GUARD_AFTER), not one met
    (_TIMEOUT_MET_BEFORE)?"""
    if not _TIMEOUT_NOUN.fullmatch(m.group(0)):
        return False
    if _TIMEOUT_MET_BEFORE.search(text[max(0, m.start() - 40):m.start()]):
        return False
    guard = _TIMEOUT_GUARD_AFTER.match(text, m.end(), m.end() + 120)
    if not guard:
        return False
    between = guard.group("between")
    if _ANOTHER_SETTING.search(between) or _TIMEOUT_MET_BETWEEN.search(between):
        return False
    return bool(_TIMEOUT_SET_BEFORE.search(text, max(0, m.start() - 40), m.start())) \
        or not _ANOTHER_CLAUSE.search(between)


# (known47a) A question about the timeout setting says nothing timed out: the noun asked of in a question that sets or
# chooses it ("What timeout should be used for network reachability checks?", find_string id 32080803056; "What timeout
# should I use?", id 71595468744; "How can I increase the timeout for each probe in the traceroute command?", id
# 10542950378; "how do I set the timeout for the network interface to 5-10 seconds?", a forum thread, id 56788839381;
# "What timeout should v1 use for an OpenClaw agent turn: 5, 10, 15, or 20 minutes?", id 55067257871): a verb that sets
# it (_TIMEOUT_SET_BEFORE and the verbs that change a value) or "what/which/how long" choosing it, in the question
# clause (asked_at). Not where the sentence reports a failure before its question ("It times out, what timeout should
# I set?": a hang and a question), nor a timeout met ("Why do I get a timeout?", "What causes the NCCL timeout?",
# "How do I fix the timeout?"), nor the watchdog's own line (no question). A timeout reported in another sentence
# ("My action times out after 2 minutes. How can I increase the timeout value?", id 924868036) is read there.
_TIMEOUT_CHANGED_BEFORE = re.compile(r"\b(?:chang(?:e|es|ing)|adjust\w*|extend\w*|lengthen\w*|bump(?:\s+up)?|"
                                     r"tun(?:e|es|ing)|modify|override|lower|decreas\w*|reduc(?:e|es|ing)|choose|pick|recommend)\s+"
                                     r"(?:(?:an?|the|this|that|our|my|its|their|some|[\w-]+)\s+){0,2}$", re.I)
_TIMEOUT_CHOSEN_BEFORE = re.compile(
    r"\b(?:what|which|how\s+(?:long|much|big|large|high))\s+(?:(?:is|are|should\s+be|would\s+be)\s+)?"
    r"(?:(?:the|a|an|my|our)\s+)?"
    r"(?:(?!(?:caus|trigger|lead|result|produc|happen|occur|mean|make|made|do|does|did|hit|get|got)\w*\b)[\w-]+\s+){0,2}$",
    re.I)


# (fr47a1) A timeout the question says acts ("Which timeout kills our job, NCCL's or torch's?", "What timeout is
# firing here?", "Which timeout are we hitting?"): one met, asked which it is, not a setting to choose.
_TIMEOUT_ACTS_AFTER = re.compile(
    r"(?:\s{1,3}(?:value|setting|here|exactly|actually|then))?\s{0,3}(?:,\s{0,3})?(?:(?:that|which)\s{1,3})?"
    r"(?:(?:is|are|was|were|has|have|had|keeps?|kept|always|still|eventually|just|being|been|now)\s{1,3}){0,3}"
    r"(?:(?:are|is|do|did|does|were|was)\s{1,3}(?:we|you|they|I|it)\s{1,3}"
    r"(?:hit(?:ting)?|run(?:ning)?\s{1,3}into|ran\s{1,3}into|get(?:ting)?\s{1,3}hit\s{1,3}by)|"
    r"kill(?:s|ed|ing)?|fir(?:es|ed|ing)|trigger(?:s|ed|ing)?|hit|expir(?:es|ed|ing)|abort(?:s|ed|ing)?|"
    r"happen(?:s|ed|ing)?|occur(?:s|red|ring)?|trip(?:s|ped|ping)?|terminat(?:es|ed|ing)|"
    r"kick(?:s|ed|ing)?\s{1,3}in|elaps(?:es|ed|ing)|interrupt(?:s|ed|ing)?|cancel(?:s|led|ed|ling|ing)?|"
    r"reached|exceeded)\b", re.I)
# (fr47a1) A stall said without a hang word, in the question's sentence or the one before it ("no progress at the
# first allreduce - how do I raise the timeout?", "... sits at 100% GPU util with no progress for 30 minutes. What
# timeout should I set so it fails faster instead of sitting there?"): the timeout asked of is the stall's, a hang.
_STALL_SAID = re.compile(
    r"\b(?:(?:no|without(?:\s+any)?)\s+(?:further\s+|visible\s+)?progress|(?:makes?|making|made)\s+no\s+progress|"
    r"never\s+(?:complet\w*|finish\w*|return\w*|progress\w*|gets?\s+past|mov(?:es|ed)\s+on)|"
    r"(?:sits?|sitting|sat)\s+(?:there|idle|waiting|forever|doing\s+nothing)|"
    r"wait(?:s|ed|ing)?\s+(?:forever|indefinitely|endlessly)|(?:is|was|gets?|got|being)\s+killed\s+after)\b", re.I)
# (fr47a1) A phrase denied by a negation right before it, one word between at most: "does not differ significantly
# from the results reported", "no longer differs much", "it isn't killed after 10 minutes", "never really waits
# forever" (the stall phrases and the shortfall's "differ" read it alike; known48: one pattern). Not _NEGATED_BEFORE
# (a cure's or a change's clause, two words between and "no", "nor", "without" as negations).
_NEGATION_RIGHT_BEFORE = re.compile(r"(?:\bnot|n['’]t|\bnever|\bno\s+longer|\bhardly|\bbarely)\s+(?:\w+\s+)?$",
                                    re.I)


def _negation_right_before(sentence: str, at: int) -> bool:
    """Is the phrase at sentence[at] denied by a negation right before it (_NEGATION_RIGHT_BEFORE, 30 characters
    back)?"""
    return bool(_NEGATION_RIGHT_BEFORE.search(sentence[max(0, at - 30):at]))


def _stall_said(sentence: str) -> bool:
    """(fr47a1) Does `sentence` say a stall in words no hang reading holds (_STALL_SAID), not denied?"""
    return any(not _negation_right_before(sentence, s.start()) for s in _STALL_SAID.finditer(sentence))


# (fr47c, the second read) A value the writer means to set after the question: "Which timeout is hit first when the
# engine is healthy but a prompt is very long, the HTTP one or the engine one? We want to set it to 600 s." — the
# timeout that "is hit" is one they choose, not one met.
_SET_TO_VALUE = re.compile(r"\b(?:set|raise|increase|extend|change|bump|put)\s+(?:it|them|the\s+timeout|this|that|"
                           r"both)\s+(?:up\s+)?to\s+\d", re.I)


def _set_to_value_after(text: str, at: int) -> bool:
    """Does the question's sentence from `at`, or the sentence after it, set the timeout to a value (_SET_TO_VALUE)?"""
    end = sentence_end(text, at, 240)
    return bool(_SET_TO_VALUE.search(text, at, sentence_end(text, min(end + 1, len(text)), 240)))


def _timeout_setting_asked(text: str, m: re.Match) -> bool:
    """(known47a) Is the English timeout noun `m` asked of as a setting to choose or change (a question whose clause
    holds it, _TIMEOUT_CHOSEN_BEFORE or a set / change verb before it), in a sentence that reports no hang before its
    question? (fr47a1) Not a timeout the question says acts (_TIMEOUT_ACTS_AFTER), nor one asked of where this
    sentence or the one before says a stall (_STALL_SAID)."""
    if not _TIMEOUT_NOUN.fullmatch(m.group(0)):
        return False
    start = sentence_start(text, m.start(), 240)
    sentence = text[start:sentence_end(text, m.start(), 240)]
    at = m.start() - start
    if not asked(sentence) or not asked_at(sentence, at):
        return False
    clause_from = max([c.end() for c in _CLAUSE_END.finditer(sentence, 0, at)], default=0)
    if re.search(dict(SYMPTOMS)["hang"], sentence[:clause_from], re.I):
        return False  # "It times out, what timeout should I set?": a failure reported, then the question
    if _TIMEOUT_ACTS_AFTER.match(text, m.end(), m.end() + 80) and not _set_to_value_after(text, m.end()):
        return False  # "Which timeout is hit first ...? We want to set it to 600 s": the choice of a setting
    end_before = len(text[:start].rstrip()) - 1  # the sentence before ends here (its end mark)
    previous = text[sentence_start(text, end_before, 240):start] if end_before >= 0 else ""
    if _stall_said(sentence) or _stall_said(previous):
        return False  # "no progress at the first allreduce - how do I raise the timeout?": the stall's timeout
    before = sentence[clause_from:at]
    if _TIMEOUT_MET_BEFORE.search(before[-40:]):
        return False
    return bool(_TIMEOUT_SET_BEFORE.search(before[-40:]) or _TIMEOUT_CHANGED_BEFORE.search(before[-40:])
                or _TIMEOUT_CHOSEN_BEFORE.search(before[-60:]))


# (fr45) Words between the timeout and the purpose that open another clause or name another setting, whose purpose
# it then is: "Rank 3 reports a timeout after I added NCCL_IB_DISABLE=1 to avoid IB errors", "a timeout when we set
# X to prevent ...". Not the timeout's own value or place ("a timeout of 30 s", "timeout=600", "the timeout in the
# config").
_ANOTHER_CLAUSE = re.compile(r"(?i:\b(?:after|when|whenever|while|because|since|if|once|until|before|whereas|"
                             r"we|you|they|he|she)\b)|\bI\b|[A-Za-z]\w*\s*=")
# (fr45r2) ... but where a set / configure verb governs the timeout ("We were told to set a timeout when we init the
# process group to prevent silent hangs", "Set a timeout while debugging to avoid hangs", "Configure a timeout once per
# job to prevent hangs") the purpose is still the timeout's, unless another setting (NAME=) or a verb of meeting the
# timeout stands between ("a timeout after I added NCCL_IB_DISABLE=1 to avoid IB errors").
_ANOTHER_SETTING = re.compile(r"[A-Za-z]\w*\s*=")
_TIMEOUT_SET_BEFORE = re.compile(r"\b(?:set|sets|setting|configur\w*|add|adds|added|adding|use|uses|using|enabl\w*|"
                                 r"pass|passes|passed|passing|specif\w*|increas\w*|rais(?:e|es|ing)|put|putting)\s+"
                                 r"(?:(?:an?|the|this|that|our|my|its|their|some|[\w-]+)\s+){0,2}$", re.I)
_TIMEOUT_MET_BETWEEN = re.compile(r"\b(?:hit|hits|hitting|got|gets|reach(?:ed|es)|exceed(?:ed|s)|caught|threw|thrown|"
                                  r"trigger(?:ed|s)|fired|ran\s+into|encounter\w*|saw|seen|report(?:s|ed))\b", re.I)

# (words44) "Freeze" in training's sense: parameters kept from updating (requires_grad=False), the verb's object or
# the noun before it a part of the model, not the run: "We freeze the backbone and build lightweight scoring on top"
# (find_string id 56074484420), "freeze the backbone for this many initial epochs" (id 51920190530), "Inject LoRA
# adapters into selected linear layers and freeze the backbone" (id 58365933605), "Whether to freeze layers (True)"
# (id 27380315960), flags such as freeze_backbone and Ultralytics' "freeze=10" (id 61397678015; its train argument
# freezes the first N layers); "常にこれらのレイヤーをフリーズ" (id 4960559202), "対象外の層の重みをフリーズ。"
# (id 53668722867); "마지막레이어를 제외한 모든 레이어를 프리징 후 훈련", "모델의 헤드만 프리징하여 훈련"
# (id 3693901214), "모든 레이어를 프리징합니다." (id 39873315267), "전체 동결 (백본 프리징)" (id 62568854660). And pip's
# command, "pip freeze" (pip's reference: "Output installed packages in requirements format"), an environment listing
# pasted with the report. A process, a GPU or training that freezes is still a hang ("training freezes at step 300",
# "the process freezes", "フリーズしました",
# "コンピュータをフリーズさせる"): a preposition or an -ing word after the verb ("freezes at", "freezes while loading
# weights") ends the object.
_PARAM_NOUN = (r"(?:backbones?|encoders?|decoders?|layers?|weights?|parameters?|params|embeddings?|embed|towers?|"
               r"heads?|adapters?|blocks?|stages?|bn|batch[\s_-]?norm\w*|base|LLM|language[\s_-]+model|"
               r"(?:vision|text|image)[\s_-]+(?:model|tower|encoder))")
_PIP_FREEZE = re.compile(r"\b(?:pip3?|python3?\s+-m\s+pip|uv\s+pip)\s+$", re.I)
_FREEZE_STEM = re.compile(r"freez(?:e[sd]?|ing)?|froze", re.I)
# (each run of blanks tried from its start only, and never given back: linear on a long run)
# (fr44) Nor where the run is, "halfway through", "midway", "partway" ("training freezes halfway through the layers of
# the first forward pass": a hang inside the layers), nor a part named as what a machine serves ("froze my LLM server":
# the server froze). A value is a flag's only after the bare flag ("freeze=10"; with a colon, at a line's start or
# after --, _ or a quote: "--freeze: 3", a config line "freeze: [0, 1]"), not a run's count after "freezes:" ("the job
# sometimes freezes: 2 out of 5 runs"). (fr44r2) "half", "part", "around", "over" end it only before "way", "through",
# "of the forward" ("freezes part way through the layers"): "I freeze part of the backbone", "freeze over 20 layers"
# are parameters.
_FROZEN_OBJECT = re.compile(r"(?<![\s_-])(?:(?:[\s_-]++(?!(?:at|on|in|into|during|after|before|when|while|for|with|"
                            r"every|each|and|or|if|because|until|from|to|since|up|out|again|forever|completely|"
                            r"through|throughout|halfway|midway|partway|somewhere|across|within|inside|near|past|"
                            r"(?:half|part|around|over)\b(?=[\s_-]*+(?:way|through|of\s+the\s+(?:forward|backward))))\b)"
                            r"(?![A-Za-z]+ing\b)[A-Za-z0-9'.]++){0,3}?[\s_-]++" + _PARAM_NOUN + r"\b"
                            r"(?![\s_-]*+(?:servers?|services?|process(?:es)?|instances?|containers?|pods?|nodes?|"
                            r"machines?|hosts?|endpoints?|workers?|engines?|runtimes?|apps?|applications?|clients?|"
                            r"boxe?s?|APIs?|deployments?)\b)|"
                            r"\s*+[=:]\s*+(?:\d|\[|true\b|false\b))", re.I)
_FROZEN_FLAG_BEFORE = re.compile(r"(?:^|\n|[-_\"'`{,]|--)[ \t]*$")
_FROZEN_BEFORE_EN = re.compile(r"\b(?:backbone|encoder|decoder|layer|weight|parameter|embedding)[\s_-]+$|"
                               r"\b" + _PARAM_NOUN + r"\s+(?:are|is|were|was|been|being|get|gets|got)\s+$", re.I)
# (fr44) The English parts ("LLM", "base", "heads") only as the marked object (を/을/를/만):
# "ローカルLLMもフリーズします" (the local LLM freezes too) is the hang; a native part also with の/의 or bare
# ("層の重みをフリーズ", "백본 프리징"), not with は/も/은/는/도 (its subject).
_FROZEN_BEFORE_KO_JA = re.compile(
    r"(?:(?:バックボーン|エンコーダー?|デコーダー?|レイヤー?|層|重み|パラメータ|パラメーター|埋め込み|エンベディング|"
    r"ヘッド|백본|인코더|디코더|레이어|층|가중치|파라미터|매개\s?변수|임베딩|헤드)"
    r"\s?(?:を|の|だけを?|을|를|의|만)?|" + _PARAM_NOUN + r"\s?(?:を|だけを?|을|를|만))\s?$", re.I)
# (fr44r2) A native part as the topic (は/는/은) where training follows in the sentence: "エンコーダーはフリーズし、
# デコーダーのみ学習します", "인코더는 프리징하고 디코더만 학습합니다" (freeze one part, train the other).
_FROZEN_TOPIC_KO_JA = re.compile(
    r"(?:バックボーン|エンコーダー?|デコーダー?|レイヤー?|層|重み|パラメータ|パラメーター|埋め込み|エンベディング|ヘッド|"
    r"백본|인코더|디코더|레이어|층|가중치|파라미터|매개\s?변수|임베딩|헤드)\s?(?:は|는|은)\s?$")
_FROZEN_THEN_TRAIN = re.compile(r"(?:し|して|させ|하고|하며|하여|해서|시키고)[^。！？!?\n]{0,40}?"
                                r"(?:学習|訓練|ファインチューニング|학습|훈련|파인\s?튜닝|fine-?tun)", re.I)
# (past45) A parameter's name, not a behaviour: a docstring's or a signature's argument with its type ("freeze (bool,
# optional): Whether to freeze the encoder parameters", find_string id 1840756031; "freeze (bool): If True, freezes the
# layers", id 11979481346; "freeze (bool): Whether to freeze the codebook parameters", id 13916012876;
# "freeze_vision_tower: bool = field(default=True)", id 10274066735), a command-line flag ("grimblast --freeze copy
# area", id 52434867310; "--demo --freeze --inject-widget", id 70077831280; "--root \"$ROOT\" --freeze
# --require-readonly", id 57454394695), or an identifier glued to the word ("freeze_vision_tower=True",
# "freeze_mm_proj: bool", id 71043805580; camelCase "freezeBackbone"). The flag and the typed name in the bare form
# only: not "it freezes (no output for 10 minutes)", "the screen freezes (bool flags aside)", "-freezes the server".
_FREEZE_IDENTIFIER = re.compile(r"_|[a-z][A-Z]|\d")
_FREEZE_FLAG_BEFORE = re.compile(r"(?:^|(?<=[\s\[(`'\"=,]))--?$")
_FREEZE_TYPED = re.compile(r"\s*(?:\(\s*[`'\"*]*|:\s*)(?:bool|int|float|str|list|List|dict|Dict|tuple|Tuple|Optional|"
                           r"Union|Sequence)\b(?=\s*+(?:[,)\]|=]|$))", re.M)
_FROZEN_AFTER_JA = re.compile(r"(?:する|した|させる|させた)\s?(?:レイヤー?|層|重み|パラメータ|パラメーター)")


def _frozen_parameters(text: str, m: re.Match) -> bool:
    """Is the freeze word `m` (freeze, froze, フリーズ, 프리징) said of a model's parameters, training's sense
    (_FROZEN_OBJECT after it, _FROZEN_BEFORE_EN / _FROZEN_BEFORE_KO_JA before it, "フリーズする層"), or pip's command
    ("pip freeze"), not a hang?"""
    word = m.group(0)
    if _PIP_FREEZE.search(text[max(0, m.start() - 25):m.start()]):
        return True
    if re.match(r"freez|froze", word, re.I):
        flag = _FREEZE_FLAG_BEFORE.search(text[max(0, m.start() - 3):m.start()])
        typed = _FREEZE_TYPED.match(text, m.end())
        if _FREEZE_IDENTIFIER.search(word) or (word.lower() == "freeze" and (flag or typed)):
            return True  # (past45) "freeze_vision_tower=True", "--freeze", "freeze (bool): ...": a parameter's name
        stem = _FREEZE_STEM.match(word)
        obj = _FROZEN_OBJECT.match(text[m.start() + stem.end():m.end() + 60])
        if obj and re.match(r"\s*[=:]", obj.group(0)) and not (word.lower() == "freeze" and (
                "=" in obj.group(0) or _FROZEN_FLAG_BEFORE.search(text[max(0, m.start() - 10):m.start()]))):
            obj = None  # "the job sometimes freezes: 2 out of 5 runs": a count, not a flag's value
        return bool(obj or _FROZEN_BEFORE_EN.search(text[max(0, m.start() - 40):m.start()]))
    if word.startswith(("フリーズ", "프리징")):
        return bool(_FROZEN_BEFORE_KO_JA.search(text[max(0, m.start() - 20):m.start()])
                    or _FROZEN_AFTER_JA.match(text, m.end())
                    or (_FROZEN_TOPIC_KO_JA.search(text[max(0, m.start() - 20):m.start()])
                        and _FROZEN_THEN_TRAIN.match(text, m.end())))
    return False


_MOMENTARY_BEFORE = re.compile(r"\b(?:briefly|momentarily)\s+$", re.I)


def symptom(facts: Facts) -> str | None:
    """hang | crash | error | scaling | normal? | slow | other, or None when there is no description."""
    found = symptom_quote(facts)
    return found[2] if found else None


# (s27, ut27d) A hang said of a run on one GPU: "use fastchat to start with 1 GPU ... fast but will stuck on long
# tokens" (vllm-project/vllm#1752). No peer exchanges anything there, so no inter-GPU path can be its cause. The
# phrase names a run (a preposition before the count), not one GPU of several that stalls ("One GPU always stucks/hangs
# when using NCCL"); a larger count said later in the sentence ("fine on a single GPU and hangs with four") is the
# run that hangs.
_ONE_GPU_RUN = re.compile(r"\b(?:with|on|using|uses?|to)\s+(?:a\s+|only\s+|just\s+)?(?:1|one|single|a single)"
                          r"\s*(?:x\s*)?(?:GPU|card|device)s?\b", re.I)
_MANY = (r"(?:\d+|two|three|four|five|six|seven|eight|multiple|several|both|all|more)")
_MANY_GPUS = re.compile(r"\b" + _MANY + r"\s*(?:x\s*)?(?:GPU|card|device)s\b|"
                        r"\b(?:with|on|using|across|over)\s+" + _MANY + r"\b", re.I)
_SENTENCE_END = re.compile(r"[.!?;](?=\s|\*|$)")


def hang_on_one_gpu(facts: Facts) -> bool:
    """Is the ticket's hang said, in its own sentence, of a run on one GPU (see _ONE_GPU_RUN)?"""
    opening = _opening(facts)
    found = symptom_quote(facts)
    if not opening or not found or found[2] != "hang":
        return False
    text = opening[1]
    m = next((m for m in re.finditer(dict(SYMPTOMS)["hang"], text, re.I)
              if _quote(text, m, 60) == found[1]), None)
    if m is None:
        return False
    before = text[max(0, m.start() - 160):m.start()]
    ends = list(_SENTENCE_END.finditer(before))
    before = before[ends[-1].end():] if ends else before
    after = text[m.end():m.end() + 120]
    end = _SENTENCE_END.search(after)
    after = after[:end.start()] if end else after
    runs = list(_ONE_GPU_RUN.finditer(before))
    return bool(runs) and not _MANY_GPUS.search(before[runs[-1].end():]) and not _MANY_GPUS.search(after)


def hang_seen_now(facts: Facts) -> bool:
    """(fr44) Does the ticket's opening class it as a hang (symptom_quote) with a hang seen now: not a Chinese hang word
    guarded against, fixed or past (zh_hang_averted: "之前出现过卡住的问题，升级后已经解决了"), which the symptom
    reading of the main words still takes as the ticket's class?"""
    opening = _opening(facts)
    found = symptom_quote(facts)
    if not opening or not found or found[2] != "hang":
        return False
    text = opening[1]
    m = next((m for m in _said("hang", dict(SYMPTOMS)["hang"], text) if _quote(text, m, 60) == found[1]), None)
    return m is None or not zh_hang_averted(text, m)


def symptom_quote(facts: Facts) -> tuple[str, str, str] | None:
    """(source, quote, symptom) of the words that class the ticket."""
    opening = _opening(facts)
    return _symptom_said(*opening) if opening else None


# (title34) The reporter's own words, title included, are read before the tool output pasted into them without a fence:
# a WARN line or a watchdog's timeout in a log pasted as context ("ERROR shard-manager: ..." over a log whose NCCL
# watchdog timed out, huggingface/text-generation-inference#1383) does not outrank what the reporter says the trouble
# is. Within each part, SYMPTOMS' order. (Measured and not kept: the title, then the sentences that ask, before the
# rest of the prose. It reads more posts as labelled, but the rules downstream then answer four kept pastes worse.)
# Lines a program printed: a timestamp or log level first ("2023-12-28T13:17:07Z", "INFO 04-06 03:23:45",
# "[E ProcessGroupNCCL.cpp:828]", glog's "E0104 12:00:01.123"), NCCL's "host:pid:tid [0] NCCL INFO", a worker's
# "(RayWorkerWrapper pid=123)" or "[rank0]:" prefix, a Python traceback's lines, a shell or REPL prompt, a rule of
# "=====".
_LEVEL = r"(?-i:INFO|WARN(?:ING)?|ERROR|DEBUG|CRITICAL|FATAL|TRACE)"
# (review34b) A level counts where a log line's shape follows it, as the loggers print them: "[INFO]", "INFO:root:",
# "ERROR - ", "INFO 04-06 03:23:46 file.py:12]", "ERROR shard-manager: ..." (not the reporter's "ERROR happens only with
# TP=4", "**ERROR**: it hangs", "DEBUG mode makes it slow"); glog's letter with its date and time ("E0104 12:00:01",
# glog's documented "Lmmdd hh:mm:ss.uuuuuu"), not a card's name ("W7900 is slower"); PyTorch's "[E file.cpp:455]", not
# "[I tried ...]".
_OUTPUT_LINE = re.compile(
    r"^[ \t>*_-]*(?:\[?\d{4}-\d{2}-\d{2}[ T]\d|\[?\d{1,2}[-/]\d{1,2}[ T]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}\b|"
    r"\[" + _LEVEL + r"\]|" + _LEVEL + r"(?=\s*[:|]|\s+-\s|\s+\d|\s+[\w.-]+(?:\[\d+\])?:\s)|"
    r"\[(?-i:[EWIF])\s+[^\s\]]+:\d+\]|\[?(?-i:[EWIF])\d{4}\s+\d{2}:\d{2}:\d{2}|"
    r"\S+:\d+:\d+\s+\[\d+\]\s+NCCL\b|\(\w+ (?:pid|rank)=\d+|\[rank\d+\]:|"
    r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|(?-i:[A-Z]\w*(?:Error|Exception)):|"
    r"\$ |>>> |[=~*#_-]{5,})", re.I)


def _reading_order(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The (start, end) spans of an opening's lines in the order they are read: the reporter's lines (the title, a
    "# ..." first line, is one), then the lines of pasted output."""
    words: list[tuple[int, int]] = []
    output: list[tuple[int, int]] = []
    at = 0
    for k, line in enumerate(text.splitlines(keepends=True)):
        start, at = at, at + len(line)
        is_title = k == 0 and line.startswith("# ")  # "# ERROR shard-manager: ..." is a title, not a log line
        (output if _OUTPUT_LINE.match(line) and not is_title else words).append((start, at))
    return words, output


@functools.lru_cache(maxsize=64)
def _symptom_said(source: str, text: str) -> tuple[str, str, str]:
    """symptom_quote of one opening text: a function of the text alone (strings, so the cache can never go stale),
    kept because some 40 rules ask it of every ticket and each scan of SYMPTOMS takes milliseconds. The reporter's
    lines are read before pasted output (_reading_order); within each, SYMPTOMS' order."""
    said = {kind: list(_said(kind, pattern, text)) for kind, pattern in SYMPTOMS}
    # a reference said, not asked (_reference_said), reads "normal?" only where nothing else is said in that part
    stated = [m for m in said["normal?"] if _reference_said(text, m)]
    said["normal?"] = [m for m in said["normal?"] if m not in stated]
    for part in _reading_order(text):
        for kind in [kind for kind, _ in SYMPTOMS] + ["stated"]:
            m = next((m for m in (stated if kind == "stated" else said[kind])
                      if any(a <= m.start() < b for a, b in part)), None)
            if m:
                return source, _quote(text, m, 60), "normal?" if kind == "stated" else kind
    return source, one_line(text[:120]), "other"  # a question or report of another kind


# (review39c) "Nothing" as the subject of the failure word itself: "Nothing hangs.", "nothing crashed", "nothing has
# ever hung", "Nothing hangs or crashes". Only right before the word, in its own clause: "Nothing happens, it just
# hangs" is a hang (a comma between), and so are "nothing in the logs, the process freezes" and "nothing happens and
# it hangs" (only another failure word may stand between).
_NOTHING_BEFORE = re.compile(r"\bnothing\s+(?:(?:ever|really|actually|else|is|was|has|had|got|gets|seems\s+to|"
                             r"appears\s+to)\s+){0,2}(?:(?:hangs?|hung|crash\w*|freez\w*|froze|stall\w*|fail\w*|"
                             r"errors?|errored)\s*(?:,|\bor\b|\bnor\b)\s*){0,2}$", re.I)


def _said(kind: str, pattern: str, text: str):
    """The matches of one SYMPTOMS kind in the text that do say it (not negated, not a remedy, a gain, ...)."""
    for m in re.finditer(pattern, text, re.I):
        if kind in ("hang", "crash", "error") and (
                _negation_before(text, m)
                or re.search(r"(?:没有|没|无|不|未)\s?$", text[max(0, m.start() - 3):m.start()])
                # (para38) a count of none: "comes up with zero errors", "zero crashes so far"
                or re.search(r"(?-i:\b[Zz]ero)\s+$", text[max(0, m.start() - 6):m.start()])):
            continue  # "no errors", "does not hang", "zero errors"
        if kind in ("hang", "crash", "error") and \
                _HEARSAY_POSSIBLE.search(text[sentence_start(text, m.start(), hearsay.SENTENCE_SPAN):m.start()]):
            continue  # "someone said it might also hang with mixed cards": another's warning of what could happen
        if kind == "hang" and hearsay.denied_for_writer(text, m.start(), m.end()):
            continue  # "someone said the allreduce hangs on H100s too, but ours runs fine": theirs, not the writer's
        if kind in ("hang", "error") and _ko_ja_asked(text, m):
            continue  # "노드를 늘리면 타임아웃이 발생하나요?": asked whether it will, not seen
        if kind in ("hang", "crash", "error") and _zh_not_observed(text, m):
            continue  # "不会卡住", "听说多卡会卡住", "会不会卡住", "设置了也没反应": not a hang seen
        if kind in ("hang", "crash", "error") and (hearsay.advised(text, m.start(), m.end())
                                                   or _NOTHING_BEFORE.search(text[max(0, m.start() - 40):m.start()])):
            continue  # "if it hangs, set NCCL_P2P_DISABLE=1": advice under a condition; "Nothing hangs.": none
        if kind == "error" and _remedy_failed(text, m):
            continue  # "NVIDIA_VISIBLE_DEVICES=0 prefix did not work for me": a remedy tried, not the trouble
        if kind == "slow" and _other_regression(text, m):
            continue  # "Fix speed regression in ...", "accuracy has regressed by 5%": no slowdown complained of
        if kind == "slow" and (_negated(kind, text, m) or _zh_denied(text, m)):
            continue  # "not bad throughput", "it never goes below 40 tok/s"
        if kind == "slow" and (_rate_rose(m) or _power_state_drop(text, m) or _at_published(m)):
            continue  # "went from 24 to 38 tok/s": a gain; "lets it drop to P8": an idle state;
            # "880 GB/s out of the advertised 900": at spec
        if kind == "normal?" and (_as_expected_said(text, m) or _normal_said(text, m)):
            continue  # "with ep_size=None we see a speed-up as expected": a statement that a run behaves, not a
            # question whether it does; "no it is not normal", "during normal operation": the word said, not asked
        if kind == "scaling" and (_gain_ruled_out(text, m) or _one_card_slower(text, m)):
            continue  # "that is not slow", "1 GPU is 23% slower than TP=2", "单卡...比 2 卡慢": the larger layout is
            # not the slow one
        if kind == "scaling" and _one_gpu_only(text, m):
            continue  # "as I only have 1 GPU), but I am very surprised by the slow inference time", "with an single
            # 3090 GPU ... the speed lower than paper's result": one GPU held against something else, not more GPUs
        if kind in ("scaling", "slow") and _zh_not_own(text, m):
            continue  # "听说 tp=2 在 4090 上没有加速", "担心开 tp=4 没有提升": another's word or a worry, not seen
        if kind == "scaling" and _other_upgrade(text, m):
            continue  # "we doubled the network bandwidth but tokens/s did not change": that upgrade's
        if kind == "scaling" and _HALF_VALUE.search(m.group(0)) and \
                not re.search(_NO_GAIN, _HALF_VALUE.sub(" ", m.group(0)), re.I):
            continue  # "--tensor-parallel-size 1 --dtype=half": a value, no share of a speed
        if kind == "scaling" and about_memory(text[max(0, m.start() - 80):m.end()]):
            continue  # memory spread over more cards ("KV cache usage is lower with more GPUs"), not a speed
        if kind == "hang" and re.match(r"stuck|stall", m.group(0), re.I) and \
                _A_RATE_STUCK.search(text[max(0, m.start() - 40):m.end() + 30]):
            continue  # "throughput stuck at 20 tok/s": a figure that does not improve, not a hang
        if kind == "hang" and m.group(0) in ("卡住", "卡死") and \
                _HELD_BACK_BY.search(text[max(0, m.start() - 30):m.start()]):
            continue  # "速度被单个 CPU 核心的性能卡住了": held back by the CPU (a bottleneck), not a hang
        if kind == "hang" and m.group(0).lower() == "stuck" and _STATE_STUCK.match(text, m.end()):
            continue  # "stuck in the Pending state": a scheduler's state, before any GPU work
        if kind == "hang" and _zh_stall_not_hang(text, m):
            continue  # "吞吐量停滞", "为了防止出现NCCL挂起问题", "已经解决了挂起问题": a plateau, a remedy, a fix
        if kind == "hang" and _TIMES_OUT.fullmatch(m.group(0)) and _times_out_of_no_collective(text, m):
            continue  # "the request times out after 60 s": a client's wait, not a collective's (known46a)
        if kind == "hang" and _en_hang_averted(text, m):
            continue  # "to avoid NCCL hangs we set ...", "once the hang was fixed": a precaution, a fix
        if kind == "hang" and (_en_hang_past(text, m) or _timeout_guard(text, m) or _timeout_setting_asked(text, m)):
            continue  # "we used to get hangs with NCCL 2.18", "timeouts to prevent hangs", "what timeout should I
            # set?": the past, a guard, a setting asked about
        if kind == "hang" and _frozen_parameters(text, m):
            continue  # "we freeze the backbone", "レイヤーをフリーズ", "백본 프리징": parameters kept from training
        if kind == "hang" and (_MOMENTARY_AFTER.match(text, m.end()) or
                               _MOMENTARY_BEFORE.search(text[max(0, m.start() - 15):m.start()])):
            continue  # "stalls for a moment", "briefly freezes": a pause that ends, not a hang
        yield m


# (ut29b) A regression that is no complaint of speed: one a change fixes or reverts, as a changelog or pull request
# says it ("Fix Performance Regression caused by split-or", hyrise/hyrise#2244; "fix(pse): revert max_tokens 1024→2048 —
# caused Sprint-17 throughput regression", Alex8791-cyber/cognithor#322), or a share lost by something that is not a
# rate ("accuracy has regressed by 5%").
_FIXED_BEFORE = re.compile(r"\b(?:fix(?:es|ed|ing)?|revert\w*|resolv\w*|restor\w*|recover\w*|roll(?:s|ed|ing)?\s+back|"
                           r"undo\w*|avoid\w*|prevent\w*)\b[^.\n]*$", re.I)
_NOT_A_RATE = re.compile(r"\b(?:accuracy|quality|score|perplexity|ppl|loss|memory|VRAM|correctness|output|MMLU|GSM8K|"
                         r"token count|coverage|size)\b[^.\n]{0,30}$", re.I)


# ... and a bare word of loss ("drops ~5%", "degraded", "regressed") in a line that names a score and no rate: "GSM8K
# accuracy regression: nightly (0.26.1rc1.dev77) drops ~5% vs latest (0.26.0)" (vllm-project/vllm#50435), "gemma3 shows
# degraded accuracy in vLLM v0.8.4" (vllm-project/vllm#17689)
_SCORE = re.compile(r"\b(?:accuracy|quality|score|perplexity|ppl|MMLU|GSM8K|exact_match|correctness|BLEU|ROUGE|"
                    r"(?-i:mAP|AP|F1|WER))\b", re.I)
_RATE_NAMED = re.compile(r"\b(?:speed|throughput|latency|perf\w*|tok\w*/s|t/s|tps|TTFT|ITL|TPOT|bandwidth|busbw|"
                         r"slow\w*|fast\w*|utili[sz]\w*|T?FLOPS|times?)\b|\bGB/s|\bit/s|\d\s*(?:ms|s)\b", re.I)


_TROUBLE_WORD = re.compile(r"(?:difficult|trouble|problem|struggl|hard time)", re.I)
_HEDGED = re.compile(r"\b(?:might|may|could|would|will)\s+(?:\w+\s+)?$", re.I)


def _other_regression(text: str, m: re.Match) -> bool:
    """Is the "slow" match a regression named as fixed or reverted, a loss of something other than a rate, or a
    shortfall only supposed, or said in a text that names a score and no rate at all?"""
    word = m.group(0).lower()
    if _SCORE.search(text) and not _RATE_NAMED.search(text):
        return True  # (review45) "not able to reproduce the numbers mentioned in the paper ... accuracy of 46.7"
        # (nasir6/zero_shot_detection#3): a score missed, and no rate named anywhere, is no slowness
    start = text.rfind("\n", 0, m.start()) + 1
    if _TROUBLE_WORD.match(word) and _HEDGED.search(text[start:m.start()]):
        return True  # (review45) "why you might struggle to reproduce numbers reported in a paper" (a reply's
        # supposition, smallcorgi/Faster-RCNN_TF#226), not a shortfall met
    end = text.find("\n", m.end())
    line = text[start:end if end >= 0 else len(text)]
    if re.match(r"(?:regress|drop|degrad)", word) and _SCORE.search(line) and not _RATE_NAMED.search(line):
        return True
    if "regress" not in word:
        return False
    before = text[start:m.start()]
    if _FIXED_BEFORE.search(before[-80:]):
        return True
    return bool(re.match(r"regress", word) and _NOT_A_RATE.search(before[-60:]))


# (ut26a) A remedy the reporter tried, named as the subject of "did not work": an environment assignment set before the
# command ("NVIDIA_VISIBLE_DEVICES=0 prefix did not work for me", facebookresearch/ParlAI#2844, in a ticket about
# slow replies) or the words for a tried fix. What failed is the attempt, not the system: the ticket's trouble is
# what the attempt was for. An option or feature that does not work ("the --tp option does not work") stays a failure.
_REMEDY = re.compile(r"(?:\b[A-Z][A-Z0-9_]{2,}=\S*|\b(?:prefix|workaround|work-around|fix|solution|suggestion|trick|"
                     r"tip|advice|hack)(?:es|s)?\b)(?:\s+(?:also|either|too|still|did|does|do|has|have|had|is|was|were))*\s*$")
_DOES_NOT_WORK = re.compile(r"(?:does ?n[o']t|did ?n[o']t|not) work", re.I)


# (review37) A failure someone else warns of, under a modal ("someone said it might also hang with mixed cards", "the
# docs say it can crash on Pascal", "people claim it may hang without NCCL_P2P_DISABLE"): a possibility reported second
# hand, not this run's symptom. The reporter's own "it may hang after a few hours" (no one else's word) stays a symptom.
_HEARSAY_POSSIBLE = hearsay.POSSIBLE  # (rules/hearsay.py owns the reading)


# (cn38) What keeps a Chinese hang, crash or error word from being one seen: a negation with one helping word
# between ("不会卡住" won't hang, "没再卡住" didn't hang again, "不是卡住" is no hang), hearsay ("听说多卡会卡住",
# "网上有人说会报错"), a possibility or worry asked about ("会不会卡住", "可能会崩溃", "担心会卡死"), and 没反应
# said of a setting that changed nothing ("设置了NCCL_P2P_DISABLE也没反应": 没用, not a hang).
_ZH_NEGATED_AUX = re.compile(r"(?:没有|没|无|不|未|别|并非)\s?(?:会|再|是|有|曾|能)?\s?$")
_ZH_HEARSAY = re.compile(r"听说|据说|传闻|(?:别人|有人|网上|大家|官方|文档|同事|朋友)(?:都|也)?(?:说|提到|反映|反馈)")
_ZH_POSSIBLE = re.compile(r"(?:可能会?|会不会|是否会?|能不能|担心会?|害怕会?|怕会?|以防)\s*$")
_ZH_SETTING_BEFORE = re.compile(r"设置|加了|改了|修改|调整|参数|环境变量|export|配置")


def zh_not_seen(sentence: str, m: re.Match) -> bool:
    """Is the Chinese statement `m` matched in `sentence` denied ("并不是只有一张卡被占用", "不会卡住"), heard
    from others ("听说…") or only feared or asked about ("会不会卡住"), rather than seen? False for a match that does
    not start with a CJK letter (the English readings have their own checks)."""
    if not re.match(r"[\u4e00-\u9fff]", m.group(0)):
        return False
    before = sentence[:m.start()]
    return bool(_ZH_NEGATED_AUX.search(before[-5:]) or _ZH_HEARSAY.search(_ZH_CONTRAST.split(before)[-1])
                or _ZH_POSSIBLE.search(before[-6:]))


# (fr45) A contrast turns from what was heard to what the reporter sees: "听说 vLLM 0.6.3 已经修复了，但我们这边推理还是
# 卡住了" (heard it was fixed, but ours still hangs): hearsay before it is not the hang's.
_ZH_CONTRAST = re.compile(r"但是?|可是|不过|然而")


# (cn38) 卡在 and 没反应 are the weaker hang words: 卡在 also says where the time goes ("推理时间主要卡在
# decode"), 没反应 that something had no effect ("速度没有反应出提升"). In a post that speaks of speed they yield to
# that complaint (the scaling or slowness SYMPTOMS read); 卡住/卡死/卡着 and 无响应 keep their sense everywhere.
_ZH_SPEED_WORDS = re.compile(r"慢|快|速度|吞吐|提升|加速|耗时|延迟|时延|tokens?\s*/\s*s|tok/s|it/s", re.I)
# (review39s) ... but not where the rate fell to zero ("速度从 20 tokens/s 掉到 0"): that is the hang itself. (Tried and
# not kept: yielding only to a complaint (_COMPLAINT), so that "之前单卡速度还可以" beside 没反应 keeps the hang; it
# turned one fresh-split case wrong, 73% -> 72%, as cn38's first reading had.)
_ZH_RATE_TO_ZERO = re.compile(r"(?:掉|降|跌|变)(?:到|至|为|成)\s*0(?![.\d])")


# (fr42) A Korean or Japanese timeout asked about, its verb in the question form right after it: "노드를 늘리면 NCCL
# 타임아웃이 발생하나요?", "타임아웃이 날까요?", "タイムアウトは発生しますか", "タイムアウトするのでしょうか". Not
# a question why it does ("왜 타임아웃이 발생하나요?", "なぜタイムアウトが発生するのでしょうか"): that one is seen.
_KO_JA_ASKED = re.compile(
    _KO_TIMEOUT_LEAD + r"(?:(?:또|다시|계속|자주)\s?)?"
    r"(?:(?:발생|생기|나|뜨|걸리)(?:하|되)?(?:나요|나\s*[?？]|는지|는가)|"
    r"(?:발생할|발생될|생길|날|뜰|걸릴)까|(?:발생합|생깁|납|뜹|걸립)니까)|"
    + _JA_TIMEOUT_LEAD + r"(?:発生|起き|出|起こり)?(?:し|す)?"
    r"(?:ますか|ますでしょうか|るのでしょうか|るでしょうか|るのか)")
_ASKED_WHY_KO_JA = re.compile(r"왜|어째서|무엇\s?때문|뭐\s?때문|なぜ|何故|どうして|原因")


def _ko_ja_asked(text: str, m: re.Match) -> bool:
    """Is the Korean or Japanese timeout or hang word `m` asked about (_KO_JA_ASKED right after it: "フリーズしますか"),
    and not asked why?"""
    if not re.match(r"타임|タイム|フリーズ|ハング|デッドロック|데드|프리징|エラー|에러|오류", m.group(0)) \
            or not _KO_JA_ASKED.match(text, m.end()):
        return False
    return not _ASKED_WHY_KO_JA.search(text[sentence_start(text, m.start()):m.start()])


def _zh_not_observed(text: str, m: re.Match) -> bool:
    """zh_not_seen over the sentence of `text` that holds `m`; (没反应) a setting said to have had no effect; (卡在,
    没反应) a post that speaks of speed, unless its rate fell to zero."""
    if re.match(r"卡在|没|无(?!响应$)", m.group(0)) and _ZH_SPEED_WORDS.search(text) and \
            not _ZH_RATE_TO_ZERO.search(text):
        return True
    start = sentence_start(text, m.start(), hearsay.SENTENCE_SPAN)
    local = re.compile(re.escape(m.group(0))).search(text[start:m.end()], m.start() - start)  # m, in its sentence
    clause = clause_before(text, m.start(), hearsay.SENTENCE_SPAN)
    return zh_not_seen(text[start:m.end()], local) or bool(re.search(r"反应|响应", m.group(0))
                                                            and _ZH_SETTING_BEFORE.search(clause))


# (review39s) A Chinese no-gain or slowness another person reports or the reporter only fears, in the clause before it:
# "听说 tp=2 在 4090 上没有加速，是真的吗？" (heard), "担心开 tp=4 没有提升" (worried), "网上说多卡没有加速" (others
# say); the reporter's own "我试了，确实没有加速" after them is a clause of its own and stays.
_ZH_WORRY = re.compile(r"担心|担忧|害怕|生怕|顾虑|(?<!恐)怕(?!是)")  # (怕是, 恐怕: "probably", a guess at a cause)


def _zh_not_own(text: str, m: re.Match) -> bool:
    """Is the match heard from others (_ZH_HEARSAY) or feared (_ZH_WORRY) in the clause just before it?"""
    clause = clause_before(text, m.start(), 40)
    return bool(_ZH_HEARSAY.search(clause) or _ZH_WORRY.search(clause))


def _remedy_failed(text: str, m: re.Match) -> bool:
    """Is the match "does not work" said of a remedy the reporter tried (_REMEDY right before it)?"""
    if not _DOES_NOT_WORK.match(m.group(0)):
        return False
    return bool(_REMEDY.search(text[sentence_start(text, m.start()):m.start()].rstrip()))


def _as_expected_said(text: str, m: re.Match) -> bool:
    """Is the match "as expected" said of a run in a statement ("works as expected", "scales as expected") rather than
    asked ("is this as expected?")? Its sentence has no question mark."""
    if m.group(0).lower() != "expected" or not re.search(r"\bas\s+$", text[max(0, m.start() - 4):m.start()], re.I):
        return False
    return "?" not in _sentence_at(text, m.start())


def _normal_said(text: str, m: re.Match) -> bool:
    """Is the bare word "normal" used in a statement ("it is not normal", "everything is normal now", "falls off the
    bus during normal operation") rather than a question whether something is normal? Its sentence neither ends in
    nor holds a question mark, and does not ask in words ("I wonder if this is normal")."""
    if m.group(0).lower() != "normal":
        return False
    sentence = _sentence_at(text, m.start())
    return "?" not in sentence and "？" not in sentence and not _ASKS.search(sentence)


# (symptom36) The reporter's own expectation, said and not asked: "a bus bandwidth of 6GBps ..., which is half of what I
# expected" (NVIDIA/nccl#465), "I expected to see bus bandwidths ~21 Gbps ... but it maxed out" (NVIDIA/nccl-tests#83),
# "the speed is not as fast as we had expected". Where the post also says its trouble (a shortfall, a hang), that is
# the question; _symptom_said reads such a sentence as "normal?" only where nothing else is said. "is this expected?",
# "not sure if this is expected", "I wonder whether we should have expected more" still ask, and a norm named ("the
# expected performance", "the theoretical value") keeps asking whether the figure meets it (measured: reading "do not
# achieve the expected performance" as a plain shortfall turned one development ticket from expected_physics to
# insufficient_data).
_ASKED_IN_WORDS = re.compile(r"[?？]|\b(?:whether|if|wonder\w*|curious|not sure|unsure|want to know|like to know|"
                             r"ask)\b", re.I)
_OWN_EXPECTATION = re.compile(r"\b(?:I|we)(?:'d| had| would have| originally| initially)?\s+$", re.I)


# (symptom36) "half" as a value, not a share of a speed: "--dtype=half", "--dtype half", "half precision" (a pasted vLLM
# command, vllm-project/vllm#7979, read as "half the speed" beside its --tensor-parallel-size). Checked on a scaling
# match rather than inside _NO_GAIN: lookbehinds there tripled the pattern's time on a long paste.
_HALF_VALUE = re.compile(r"(?:[=/-]|\bdtype:?\s+)half\b|\bhalf[-_\s]*precision\b", re.I)


def _reference_said(text: str, m: re.Match) -> bool:
    """Is the match the reporter's own "I/we expected" in a sentence that neither holds a question mark nor asks in
    words (_ASKED_IN_WORDS)?"""
    if m.group(0).lower() != "expected" or not _OWN_EXPECTATION.search(text[max(0, m.start() - 20):m.start()]):
        return False
    start = max((s.end() for s in _SENTENCE.finditer(text, 0, m.start())), default=0)
    start = max(start, text.rfind("\n", 0, m.start()) + 1)
    end = next((s.start() for s in _SENTENCE.finditer(text, m.end())), len(text))
    end = min(end, (text.find("\n", m.end()) + 1 or len(text) + 1) - 1)
    return not _ASKED_IN_WORDS.search(text[start:end])


def _at_published(m: re.Match) -> bool:
    """Is a measured figure set against a published one within 10 % of it (the margin a healthy part runs at, as for
    clocks above)? Both figures must be written: "880 GB/s out of the advertised 900 GB/s" is at spec."""
    def value(figure: str | None) -> float | None:
        n = re.match(r"\d+(?:\.\d+)?", figure or "")
        return float(n.group(0)) * (1000 if re.search(r"\dT|\sT", figure) else 1) if n else None

    measured = value(m.groupdict().get("vs_measured"))
    published = value(m.groupdict().get("vs_before") or m.groupdict().get("vs_after"))
    return bool(measured and published and measured >= 0.9 * published)


_SLOW_WORD = re.compile(r"\bslow\w*|" + _SLOW_WORDS, re.I)
_ONE_GPU = re.compile(r"\b(?:1|one|single)\s*(?:GPU|card)s?\b|\bTP\s*=?\s*1\b", re.I)


# An upgrade of something other than the GPU count: the network, a link, a driver or library, the CPU, the GPU model.
# "No gain after the upgrade" is that change's A/B, whatever GPU count the ticket names elsewhere ("I updated our device
# from ethernet to InfiniBand, and expected ... a huge boost ... it did not happen",
# https://github.com/open-mmlab/mmdetection/issues/6817; "Training speed is not improved by using a better GPU",
# https://github.com/k2-fsa/icefall/issues/1698; "I upgraded to Titan X Pascal ... don't seem to process much
# faster", https://github.com/yusuketomoto/chainer-fast-neuralstyle/issues/42).
_OTHER_UPGRADE = re.compile(
    r"\b(?:upgrad\w*|updat\w*|doubl\w*|switch\w*|mov\w*|replac\w*|increas\w*|improv\w*|went)\b[^.;\n]{0,40}?"
    r"\b(?:(?:inter-?node |the )?(?:link|network|NIC|bandwidth|InfiniBand|IB|RoCE|ethernet|interconnect|fabric)s?|"
    r"driver|CUDA|NCCL|PyTorch|torch|kernel|firmware|BIOS|CPU|RAM|storage|SSD|\d+\s*G(?:b|bps|bit)?(?:/s)?)\b",
    re.I)


def _other_upgrade(text: str, m: re.Match) -> bool:
    """A scaling match whose no-gain sits in a sentence about upgrading something other than the GPU count (and that
    sentence names no GPU count): the gain missing is that upgrade's."""
    gains = list(re.finditer(_NO_GAIN, m.group(0), re.I))
    if not gains:
        return False
    at = m.start() + gains[-1].start()
    start = max((s.end() for s in _SENTENCE.finditer(text, 0, at)), default=0)
    sentence = text[start:at + len(gains[-1].group(0))]
    return bool(_OTHER_UPGRADE.search(sentence)) and not re.search(_MORE_GPUS, sentence, re.I)


# (symptom36) One card named before 比 ("than") and the cards' count right after it: "单卡推理，速度比 2 卡慢很多" (one
# card is much slower than two, QwenLM/Qwen3-Embedding#73), "单卡比双卡还慢": the one card is the slow layout.
_ONE_CARD_THAN = re.compile(r"(?:单卡|单张卡?|单块卡?|单个?GPU|一张卡?|一块卡?|1\s*(?:[张块]卡?|卡))"
                            r"[^。\n卡张块]{0,20}?比\s*(?:\d+|[双两三四五六八多])\s*[张块个]?\s*(?:卡|GPU)")


def _one_card_slower(text: str, m: re.Match) -> bool:
    """A Chinese scaling match whose count is the reference of a comparison with one card (_ONE_CARD_THAN)."""
    return bool(_ONE_CARD_THAN.search(text[max(0, m.start() - 30):m.end()]))


# (audit48c) A GeForce board's number before "GPU" reads as a count in _MORE_GPUS ("an single 3090 GPU", "a single
# NVIDIA RTX 4090 GPU"); the numbers are the boards' own (GTX 1050 ... RTX 5090), never a power of two like 1024 GPUs.
# Plural with no count before it ("4090 GPUs slower on v0.4.8", sgl-project/sglang#7568) it is still the board's
# name; a count before it ("dual 4090 GPUs", "a pair of 4090 GPUs") is _SEVERAL_NAMED.
_BOARD_AS_COUNT = re.compile(r"(?:RTX\s*|GTX\s*)?[1-5]0[5-9]0(?:\s*Ti)?[- ]?(?:GPU|card)s?", re.I)
# (fx48c) One GPU as what a comparison holds the speed against: the comparison word, then only the little words that
# lead to its object ("slower than 1 GPU", "lower than with 1 GPU", "slower than it was on a single GPU", "slower
# compared to using a single GPU", "no speedup over one GPU"): a second layout. Not "slower than expected on a single
# GPU" (a word of content between: the one GPU is the run itself).
_AGAINST_ONE = re.compile(r"(?:\bthan|\bvs\.?|\bversus|\bcompared\s+(?:to|with)|\brelative\s+to|\bagainst|\bfrom|"
                          r"\bover)\s+(?:(?:a|an|the|with|on|in|using|running|when|while|it|it'?s|was|is|were|we|I|you|"
                          r"they|had|has|have|just|only|what|got|ran|run|did|do|does)\s+){0,5}$", re.I)
# (fx48c) Several GPUs named in words _MORE_GPUS leaves out ("both cards", "all GPUs", "dual 4090 GPUs", "a pair of
# 4090 GPUs", "another NVIDIA GPU", "two RTX 3090 cards") or a parallel layout ("tensor parallelism"): the sentence
# compares layouts, whatever one GPU it names beside them. "both"/"all" only with the plural ("all GPU memory" is none).
_BOARD_WORDS = (r"(?:(?:of\s+)?(?:the|our|my|these|those)\s+)?"
                r"(?:(?:NVIDIA|GeForce|RTX|GTX|Tesla|Quadro|\w*\d\w*)[-\s]+){0,3}")
_SEVERAL_NAMED = re.compile(
    r"\b(?:both|all)\s+" + _BOARD_WORDS + r"(?:GPU|card)s\b|"
    r"(?:\b(?:dual|pair\s+of|another|two|three|four|eight|multiple|several)|(?<![\d.])(?:[2-9]|[1-9]\d+)\s*[x×*])"
    r"[-\s]*" + _BOARD_WORDS + r"(?:GPU|card)s?\b|\b(?:tensor|pipeline)[-_ ]?parallel", re.I)


def _one_gpu_only(text: str, m: re.Match) -> bool:
    """(audit48c) A 'more GPUs ... slow' match whose sentence names one GPU and no second layout (_one_gpu_named), nor
    does the sentence before it ("I just added another RTX 3090. It is now slower than on a single GPU")."""
    start, end = sentence_start(text, m.start()), sentence_end(text, m.end())
    return _one_gpu_named(text[start:end], _MORE_GPUS, _sentence_before(text, start))


def _sentence_before(text: str, start: int) -> str:
    """The sentence ending before `start` (a sentence's start), across a paragraph break; '' at the text's start."""
    end = len(text[:start].rstrip())
    return text[sentence_start(text, end - 1):end] if end else ""


def _one_gpu_named(sentence: str, layouts: str, before: str = "") -> bool:
    """(audit48c) Is every layout the sentence names (the `layouts` pattern's matches) one GPU said as what the reporter
    has or runs ("I only have 1 GPU", meta-llama/llama#506), or a board's number read as a count ("with an single 3090
    GPU ... the speed lower than paper's result", GXNU-ZhongLab/SGLATrack#4; "on a single NVIDIA RTX 4090 GPU, only
    18% lower than ... A100", Tiiny-AI/PowerInfer#16; "4090 GPUs slower on v0.4.8", sgl-project/sglang#7568)? The
    speed is then held against another model, a paper, another board or a release: no layout grew. (fx48c) Not where
    the sentence or the one `before` it names several GPUs (_SEVERAL_NAMED, or a layout that is not one GPU), nor
    where the one GPU is what a comparison holds the speed against (_AGAINST_ONE). A layout the sentence before asks
    about or rules out counts for none."""
    if _SEVERAL_NAMED.search(sentence):
        return False
    hits = list(re.finditer(layouts, sentence, re.I))
    if not hits or not all(_one_or_board(sentence, h) for h in hits):
        return False
    said_before = [*_SEVERAL_NAMED.finditer(before), *re.finditer(layouts, before, re.I)]
    return asked(before) or not any(  # "Would two GPUs help?", "We don't use tensor parallelism.": none run
        not _one_or_board(before, h) and not _NEGATION.search(before[max(0, h.start() - 30):h.start()])
        for h in said_before)


def _one_or_board(sentence: str, h: re.Match) -> bool:
    """Is the layout match `h` a board's number read as a count, or one GPU ("1 GPU", "a single GPU", "1x A100") that is
    not the compared side?"""
    said = h.group(0).strip()
    one = _ONE_GPU.fullmatch(said) or re.match(r"1\s*[x×*]", said)
    return bool(_BOARD_AS_COUNT.fullmatch(said) or (one and not _AGAINST_ONE.search(sentence[:h.start()])))


def _gain_ruled_out(text: str, m: re.Match) -> bool:
    """A 'more GPUs ... slow' match whose slowness is not the larger layout's: ruled out ("that is not
    slow") or said of the one-GPU run, the other layout after "than" ("1 GPU is 23% slower than TP=2")."""
    for slow in _SLOW_WORD.finditer(m.group(0)):
        start, end = m.start() + slow.start(), m.start() + slow.end()
        if re.search(r"(?:\b(?:not|never|no)\b|n't)[\w\s,'\"`-]{0,12}$", text[max(0, start - 20):start], re.I):
            return True
        clause = re.split(r"[.!?;\n]", text[:start])[-1]
        if _ONE_GPU.search(clause) and re.match(r"\s+than\b", text[end:]):
            return True
    return False


def nccl_check_said(facts: Facts) -> Claim | None:
    """nccl-tests' own result check said failing in the reporter's words (NCCL_CHECK_FAILED): a wrong_results claim
    quoting it ("Out of bounds values : 248 FAILED"), or its "#wrong" count named as what the run reports ("occasional
    `#wrong` transfers reported by all_reduce_perf"). Not a count of 0 ("#wrong is 0"), ruled out ("no #wrong"),
    asked, guessed, nor another's or another thread's ("someone in #131 got Out of bounds values : 50")."""
    for c in find(facts, "wrong_results"):
        m = NCCL_CHECK_FAILED.search(c.quote)
        if m and not c.guess and not hearsay.someone_elses(c.quote[:m.start()]):
            return c
    for source, sentence in own_sentences(facts):
        m = NCCL_CHECK_FAILED.search(sentence)
        if m is None or ruled_out(sentence, m) or asked_at(sentence, m.start()) or offered(sentence, m.start()) \
                or hearsay.someone_elses(sentence[:m.start()]) or _past_state(sentence[:m.start()], past=True):
            continue
        return Claim("wrong_results", source, _quote(sentence, m, 120))
    return None


def find(facts: Facts, kind: str, negated: bool = False) -> list[Claim]:
    """Claims of `kind` the reporter affirms (or, with negated=True, rules out)."""
    return [c for c in claims(facts) if c.kind == kind and c.negated == negated]


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


# --------------------------------------------------------------------------- figures the reporter quotes

# A bandwidth in gigabytes per second as people write it: "337.35 GB/s", "450GB/S", "25 GBps",
# "1,800 GB/s". The capital B decides (Gb/s is a link's bit rate). A bare "25GB" counts only in a
# sentence about bandwidth, never one about memory.
# Any other rate unit ("25000 MB/s", "2400 Gbit/s") is converted with text.to_gbs; a bit rate beside a network's
# name ("400 Gb/s NDR") is that network's line rate, read by the link rules, not a GPU figure.
_GBYTES_FIG = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*"
                         r"(?:(?-i:GB|GiB)(/s|/S|ps|/sec|ytes/s)?(?![\w/])|(" + RATE_UNIT + "))")
_NETWORK = re.compile(r"\b(?:InfiniBand|IB|[HNEX]DR|RoCE|NICs?|Ethernet|HCAs?|ConnectX\w*|port)\b", re.I)
_BW_WORDS = re.compile(r"\b(?:bandwidth|b/w|bw|busbw|algbw|nvlink|link|links|transfer\w*|throughput|speed)\b", re.I)
_CAPACITY_WORDS = re.compile(r"\b(?:memory|vram|ram|capacity|disk|weights?|cache|storage|model size)\b", re.I)
# Words that make a figure a specification or an expectation rather than a measurement.
_SPEC_WORDS = re.compile(
    r"\b(?:theor\w*|spec\w*|datasheet|official\w*|claim\w*|advertis\w*|nominal|peak|line[- ]rate|up to|"
    r"should|expect\w*|instead of|according to|readme|paper|cited|published|"
    r"rated|maximum|aggregate|total)\b", re.I)
# Which way a figure counts the traffic: a measured bidirectional copy is still a measurement.
_DIRECTION = re.compile(r"\b(bi|uni)-?directional\b", re.I)
# nvbandwidth's bidirectional device-to-device tests, named as the tool prints them. Their figure's scope differs by
# version: the SM tests reported the sum of both directions and the CE tests the measured stream alone (one direction;
# https://github.com/NVIDIA/nvbandwidth README, "Bidirectional Device <-> Device Bandwidth Tests"); later versions
# print three matrices per test, "..._read1"/"_write1" and "..._read2"/"_write2" (one direction each) and "..._total"
# (their sum). A bare test name therefore leaves the scope of the figure said of it unknown.
_NVB_BIDIR = re.compile(r"device_to_device_bidirectional_memcpy_(?:read|write)_(?:ce|sm)"
                        r"(?:_(total|read[12]|write[12]))?(?![A-Za-z0-9])", re.I)


def nvbandwidth_direction(text: str) -> str | None:
    """How the nvbandwidth bidirectional tests named in `text` count a figure: 'bi' (both directions summed: a
    '_total' row, or the tool's "Total bandwidth" header), 'uni' (one direction: a '_read1'/'_write2' row), 'unknown'
    (only a bare test name, as a command gives it, or rows of both kinds), None where no such test is named."""
    found = list(_NVB_BIDIR.finditer(text))
    if not found:
        return None
    rows = {"bi" if m.group(1).lower() == "total" else "uni" for m in found if m.group(1)}
    if re.search(r"<->\s*GPU\S*\s+Total bandwidth", text, re.I):
        rows.add("bi")
    return rows.pop() if len(rows) == 1 else "unknown"
# A copy between two GPUs (not a collective), as people and the CUDA samples name it.
COPY_WORDS = (r"\b(?:p2p|peer[- ]to[- ]peer|between (?:the )?(?:two )?GPUs|GPU[- ]to[- ]GPU|device[- ]to[- ]device|d2d|"
              r"nvbandwidth|p2pBandwidthLatencyTest|memcpy)\b")
# A collective's (or NCCL point-to-point's) figure: its columns, operations and nccl-tests' binaries ("sendrecv_perf",
# "alltoall_perf", "reduce_scatter_perf", "broadcast_perf": https://github.com/NVIDIA/nccl-tests).
_COLLECTIVE_BW = re.compile(r"\b(?:busbw|bus ?bandwidth|algbw|all[-_ ]?reduce\w*|all[-_ ]?gather\w*|nccl\w*|"
                            r"send[-_ ]?recv\w*|all[-_ ]?to[-_ ]?all\w*|reduce[-_ ]?scatter\w*|broadcast_perf)\b", re.I)


def collective_named(text: str) -> bool:
    """Does the text name a collective, its bandwidth columns or an nccl-tests binary?"""
    return bool(_COLLECTIVE_BW.search(text))


def _copy_figure_at(part: str, start: int, end: int) -> bool:
    """Is the figure at part[start:end] said of a GPU-to-GPU copy? Its own clause decides where it names a copy tool
    or a collective ("`nvbandwidth` reports 260GB/s whereas `sendrecv_perf` reports somewhere around 80GB/s":
    260 the copy's, 80 NCCL's, NVIDIA/nccl-tests#268); else the sentence, when it names a copy and no collective."""
    clause = _clause_at(part, start, end)
    if _COLLECTIVE_BW.search(clause):
        return False
    if re.search(COPY_WORDS, clause, re.I):
        return True
    return bool(re.search(COPY_WORDS, part, re.I)) and not _COLLECTIVE_BW.search(part)
# A GPU's name (or its memory's) next to a bare "80GB": the board's memory size, not a rate.
_GPU_BEFORE = re.compile(r"\b(?:[A-Z]{1,3}\d{2,4}[A-Za-z]*|RTX\s?\d{4}\w*|Ti)(?:[- ](?:SXM\d?|PCIe|NVL))?[\s_-]*$")
_MEMORY_AFTER = re.compile(r"^\s*(?:[A-Z]{1,3}\d{2,4}\b|RTX\b|GPUs?\b|cards?\b|boards?\b|HBM\w*|VRAM\b|memory\b|"
                           r"of (?:memory|VRAM|HBM))", re.I)


def memory_size_at(text: str, start: int, end: int) -> bool:
    """Is the size at text[start:end] a GPU's memory ("H100 80GB", "24GB RTX 3090", "80GB of HBM")?"""
    return bool(_GPU_BEFORE.search(text[max(0, start - 24):start]) or _MEMORY_AFTER.match(text[end:end + 20]))


# The figure a change started from: "from 180 GB/s to 90 GB/s", "180 GB/s -> 90 GB/s", "up from 90 GB/s".
_FROM_BEFORE = re.compile(r"\bfrom\s+(?:about\s+|around\s+|~)?$", re.I)
_TO_AFTER = re.compile(r"\s*(?:->|→|=>)\s*(?:about\s+|around\s+|~)?\d", re.I)


def bandwidth_figures(facts: Facts, earlier: bool = False) -> list[Claim]:
    """Every GB/s figure in the reporter's own words, in order: data {value, spec (said as a
    specification or an expectation), question (asked about, in a sentence ending with '?'),
    direction ('bi', 'uni' or None, as the words around it say, else as a named nvbandwidth test's output counts it;
    'unknown' where the test named leaves it open), copy (said of a GPU-to-GPU copy,
    not of a collective)}. The figure a change started from ("from 180 GB/s to 90 GB/s": 90 is the figure
    now) only with earlier=True."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            for part in re.split(r"(?<=[.?!。？])\s+", sentence):
                for m in _GBYTES_FIG.finditer(part):
                    other = m.group(3)
                    if not m.group(2) and not other and (not _BW_WORDS.search(part) or _CAPACITY_WORDS.search(part)
                                                         or memory_size_at(part, m.start(), m.end())):
                        continue  # "25GB" of memory, "H100 80GB": not a bandwidth
                    value = float(m.group(1).replace(",", ""))
                    if other:
                        if is_bits(other) and _NETWORK.search(part):
                            continue
                        value = round(to_gbs(value, other), 3)
                    elif "GiB" in m.group(0):  # binary gigabytes, 7.4 % more than GB
                        value = round(to_gbs(value, "GiB"), 3)
                    around = part[max(0, m.start() - 45):m.end() + 25]
                    if value <= 0 or not earlier and (_FROM_BEFORE.search(part[max(0, m.start() - 20):m.start()])
                                                      or _TO_AFTER.match(part, m.end())):
                        continue
                    near = part[max(0, m.start() - 80):m.end() + 25]
                    direction = _DIRECTION.search(near)
                    copy = _copy_figure_at(part, m.start(), m.end())
                    # a copy figure with no direction in its words takes it from the nvbandwidth test the text names
                    named = nvbandwidth_direction(text) if copy and not direction else None
                    out.append(Claim("bandwidth_figure", source, _quote(part, m, 40),
                                     {"value": value, "spec": bool(_SPEC_WORDS.search(around)),
                                      "question": asked(part),
                                      "direction": direction.group(1).lower() if direction else named,
                                      "copy": copy,
                                      "off_path": bool(_OFF_PATH.search(
                                          clause := _clause_at(part, m.start(), m.end()))),
                                      "link_report": bool(_LINK_REPORTER.search(clause)),
                                      "gpu": gpu.group(1) if (gpu := GPU_NAME.search(clause)) else None}))
    return out


# (data link_report: the figure's clause names a tool that reports a link's negotiated rate, not a transfer: lstopo and
# hwloc print each PCIe link's bandwidth from its current speed and width, lspci its LnkSta/LnkCap, and a GPU lowers its
# link speed when idle, "lots of modern GPUs can decrease the link speed when idle", https://github.com/open-mpi/hwloc/issues/653)
_LINK_REPORTER = re.compile(r"\b(?:lstopo|hwloc|lspci|LnkSta|LnkCap)\b", re.I)
# (data gpu: the GPU the figure's own clause names, "on our old DGX A100 it gave 230 GB/s", else None)
# A copy run off the GPUs' direct path, or too small to reach its bandwidth, said in the figure's own clause: "40 GB/s
# with P2P disabled", "NCCL_P2P_DISABLE=1", "for 64 KB buffers" (off_path: no measure of the links).
_OFF_PATH = re.compile(r"\b(?:P2P\s*(?:disabled|off|=\s*0)|without\s+P2P|disabl\w*\s+P2P|NCCL_P2P_DISABLE|small\w*\s+"
                       r"(?:copies|buffers?|messages?|transfers?|sizes?)|\d+(?:\.\d+)?\s*[KM]i?B(?!/|ps)\b)", re.I)


def _clause_at(text: str, start: int, end: int) -> str:
    """The clause of `text` holding [start, end) (rules.claims._CLAUSES bounds it). The rest is searched as a text of
    its own: _CLAUSES starts a blank run's mark only at its first blank, and `end` may fall inside the run."""
    a = max((c.end() for c in _CLAUSES.finditer(text, 0, start)), default=0)
    b = next((end + c.start() for c in _CLAUSES.finditer(text[end:])), len(text))
    return text[a:b]


# CUDA's bandwidthTest sample (cuda-samples/Samples/1_Utilities/bandwidthTest): a section per direction
# ("Host to Device Bandwidth, 1 Device(s)"), the memory kind ("PINNED Memory Transfers" or "PAGEABLE ..."),
# a header naming the unit ("Bandwidth(MB/s)" in older releases, "Bandwidth(GB/s)" in newer) and rows of
# transfer size and rate.
_BWTEST_SECTION = re.compile(r"^\s*(Host to Device|Device to Host|Device to Device) Bandwidth\b", re.I)
_BWTEST_MEMORY = re.compile(r"^\s*(PINNED|PAGEABLE) Memory Transfers", re.I)
_BWTEST_HEADER = re.compile(r"Bandwidth\s*\(\s*(" + RATE_UNIT + r")\s*\)", re.I)
_BWTEST_ROW = re.compile(r"^\s*(\d+)\s+(\d+(?:\.\d+)?)\s*$")


def bandwidth_test_rates(facts: Facts) -> list[Claim]:
    """The rates a pasted bandwidthTest printed: data {value (GB/s), direction ('h2d', 'd2h', 'd2d'),
    memory ('pinned', 'pageable' or None), size (bytes)}; the largest transfer of each section."""
    out: list[Claim] = []
    for n in facts.of(Note):
        if n.kind not in (OUTPUT_KIND, "description") or not n.text or "Bandwidth" not in n.text:
            continue
        direction = memory = unit = None
        best: dict = {}
        for line in n.text.splitlines():
            if (m := _BWTEST_SECTION.match(line)):
                direction = {"host to device": "h2d", "device to host": "d2h"}.get(m.group(1).lower(), "d2d")
                memory = unit = None
            elif (m := _BWTEST_MEMORY.match(line)):
                memory = m.group(1).lower()
            elif (m := _BWTEST_HEADER.search(line)):
                unit = m.group(1)
            elif direction and unit and (m := _BWTEST_ROW.match(line)):
                size, value = int(m.group(1)), round(to_gbs(float(m.group(2)), unit), 3)
                if size >= best.get(direction, {}).get("size", -1):
                    best[direction] = {"value": value, "direction": direction, "memory": memory, "size": size,
                                       "quote": one_line(line)}
        out.extend(Claim("bandwidth_test", n.source, d.pop("quote"), d) for d in best.values())
    return out


# "1.6 usec for a 10000000 byte allreduce", "an 8 MB all_gather takes 2 ms": one collective's size and
# time, in either order, in a sentence that names the collective.
_COLLECTIVE_WORD = re.compile(r"\b(?:all[-_ ]?reduc\w*|all[-_ ]?gather\w*|reduce[-_ ]?scatter\w*|broadcast\w*|"
                              r"all[-_ ]?to[-_ ]?all|send[-_ ]?recv|collective\w*)\b", re.I)
# A message size (no bare "B": "70B" is a model's parameter count), counted only when tied to the
# collective: "of 8 MB", "for a 10000000 byte allreduce", "an 8 MB all_gather", "message size 4MB".
_SIZE = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(bytes?|KB|KiB|kB|MB|MiB|GB|GiB)\b(?!/)")
_SIZE_TIED_BEFORE = re.compile(r"(?:\b(?:of|for|with|size|sizes|message|messages|buffer|payload|count)|"
                               + _COLLECTIVE_WORD.pattern + r")\W{0,3}(?:a|an|the|one)?\s*$", re.I)
_SIZE_TIED_AFTER = re.compile(r"^\s*(?:\w+\s+)?" + _COLLECTIVE_WORD.pattern, re.I)


def _collective_size(sentence: str) -> re.Match | None:
    """The message size of the sentence's collective, or None (a GPU's memory, a model's size)."""
    for m in _SIZE.finditer(sentence):
        if memory_size_at(sentence, m.start(), m.end()):
            continue
        if _SIZE_TIED_BEFORE.search(sentence[max(0, m.start() - 20):m.start()]) or \
                _SIZE_TIED_AFTER.match(sentence[m.end():m.end() + 40]):
            return m
    return None


_TIME = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*"
                   r"(usecs?|us|µs|μs|microseconds?|ms|msecs?|milliseconds?|s|secs?|seconds?)\b(?!/)", re.I)
BYTES_PER_UNIT = {"b": 1, "byte": 1, "bytes": 1, "kb": 1e3, "kib": 1024, "mb": 1e6, "mib": 1 << 20,
                  "gb": 1e9, "gib": 1 << 30}


def collective_timings(facts: Facts) -> list[Claim]:
    """Claims {bytes, seconds} of one collective the reporter timed, in their words."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            if not _COLLECTIVE_WORD.search(sentence):
                continue
            size, time = _collective_size(sentence), _TIME.search(sentence)
            if not (size and time):
                continue
            unit = time.group(2).lower()
            scale = (1e-6 if unit.startswith(("u", "µ", "μ", "micro"))
                     else 1e-3 if unit.startswith(("ms", "msec", "milli")) else 1.0)
            nbytes = float(size.group(1).replace(",", "")) * BYTES_PER_UNIT[size.group(2).lower()]
            seconds = float(time.group(1)) * scale
            if nbytes > 0 and seconds > 0:
                out.append(Claim("collective_timing", source, _quote(sentence, size, 60),
                                 {"bytes": nbytes, "seconds": seconds}))
    return out


# --------------------------------------------------------------------------- questions and complaints (issue 11 c)

# (fx48a) A question mark with the next sentence run on without a space asks only where its clause reads as a
# question: from a clause start (a line's, a sentence's, or after ";", ":" or "," but not a relative ", which"), an
# interrogative or an auxiliary first ("Is this normal?The", "How can I use ... parameters?I got"), or a bare fragment
# of surprise ("very strange?RTX3090"). The word before the mark is a plain word, lowercase-ended, after a space or
# the clause start, and a capitalised word then a space follows: not inline code ("`has_nvlink?NVLink:PCIe`"), a URL
# or path ("http://host/d/abc?Overview", "productdetail.asp?Model=3U8G"), a regex group ("(rank)?Worker"), nor a
# statement whose mark is a lost character ("It was deployed on friday?Then the GPU ...").
_RUN_ON_ASKER = (r"(?:is|are|am|was|were|isn't|aren't|wasn't|weren't|does|do|did|doesn't|don't|didn't|can|could|"
                 r"should|would|will|shall|may|might|has|have|hasn't|haven't|can't|won't|couldn't|shouldn't|"
                 r"wouldn't|why|how|what|which|any|anyone|anybody|someone|somebody)\b")
_SURPRISE_FRAGMENT = (r"(?:(?:very|so|really|quite|pretty|rather)\s+)?(?:strange|weird|odd|abnormal|unusual|"
                      r"unexpected|normal|expected|intended|correct|possible|a\s+bug|an?\s+issue)")
_RUN_ON_QUESTION = (r"(?:^|(?<=[.!?;:])|(?<=,)(?!\s*which\b))[\s#>*_]*(?:(?:and|but|so|or)\s+)?"
                    r"(?:" + _RUN_ON_ASKER + r"(?:[^.!?;:,`\n]*\s[a-z][a-z'-]*)?|" + _SURPRISE_FRAGMENT + r")"
                    r"(?-i:(?<=[a-z])\?(?=[A-Z][\w'-]*\s))")

# The reporter asks (rather than reports a failure): a sentence ending in a question mark, or the
# phrasings of a question without one ("I wonder what", "may I ask", "I want to know", "please help
# me understand"). CJK question marks and particles count too.
_ASKS = re.compile(
    # (a question mark closed by Markdown emphasis asks too: "*Is V1 expected to consume more memory?*")
    # (para38) the full-width mark asks wherever it stands: Chinese runs the next sentence on with no blank
    # ("帮助不大？...", "是正常的吗？我用的是...")
    r"[?？]\s*$|[?？](?=\s)|？|[?？][*_`]+(?=\s|$)|^[#\s>*-]*(?:why|how come)\b|"
    # (audit48a) ... and with the next sentence run on without a space, as a title joined to its body or a typo
    # writes it ("very strange?RTX3090 load vicuna-7b", lm-sys/FastChat#2475; "Is this normal?The nvswitch is slower",
    # NVIDIA/nccl#258; "Is it a issue?How can it", apache/mxnet#2363; "different parameters?I got", NVIDIA/nccl#967)
    + _RUN_ON_QUESTION + "|"
    r"\b(?:I (?:wonder|am wondering|was wondering)|(?:I'm|I am) (?:just )?(?:curious|confused|puzzled)|"
    r"may I ask|I(?:'d| would) like to (?:know|understand|ask|inquire|enquire)|I want to (?:know|understand)|"
    r"\bis there (?:a|any) (?:way|method|setting|option|trick|fix)s?\b|\bany (?:tips|advice|suggestions?|ideas)\b|"
    r"\bwhat can (?:I|we) do\b|\bplease advise\b|"
    # an expectation the behaviour contradicts is a question unasked: "CPU load should be at best 100%"
    r"\bshould be at (?:best|most)\b|(?:to my|in my) understanding|I (?:thought|assumed|expected)\b|is supposed to|"
    r"(?:please |could you |can you |can someone |can anyone )?(?:help me )?(?:understand|explain)\b)|"
    r"\bany idea\b|\bshould (?:I|we)\b[^.\n]{0,60}\?|"
    # (issue 11 r) ja: ですか/ますか/でしょうか, ko: -까요/-나요/-니까, ru: почему/ли, de: warum/wieso/gibt es,
    # es: por qué/hay alguna
    r"(?:です|ます|でしょう)か|なぜ|どうして|(?:까요|나요|니까|는지)\s*[.?？]?\s*$|왜\b|"
    r"\bпочему\b|\bли\b|\bкак (?:ускорить|сделать|заставить)\b|"
    r"\b(?:warum|wieso|weshalb)\b|\bgibt es (?:eine|einen)\b|\bpor qu[eé]\b|\bhay (?:alguna|algún) (?:forma|manera)\b|"
    r"吗|是否|为什么|为何|"
    # (para37d) Chinese: 有没有办法 ("is there a way", as "is there a way" above), and the full-width question mark
    # with the next sentence written on without a space, as Chinese runs on (not 请问 "may I ask" alone: it opens
    # reports as a courtesy, "请问大佬，为啥同一张图片推理时间波动很明显", whose complaint is the fluctuation)
    r"有没有(?:什么)?(?:办法|方法)|？(?=[\u4e00-\u9fff])", re.I | re.M)
# A complaint: something is called slow, low, poor or worse than a figure it is held against. The
# symptom vocabulary of SYMPTOMS' "slow" class and of _NO_GAIN, read over the whole description.
_COMPLAINT = re.compile("|".join(p for kind, p in SYMPTOMS if kind == "slow") + "|" + _NO_GAIN + r"|"
                        r"\b(?:only|just)\s+(?:\w+\s+){0,3}?(?:about\s+|around\s+|~)?\d+(?:\.\d+)?\s*"
                        r"(?:%|[GMT]B/?s|Gb/?s|GBps|tok|t/s|it/s|ms)|"
                        # a speed-up called small: "only 1.3x faster", "just 2 times the speed"
                        r"\b(?:only|just|barely)\s+(?:\w+\s+){0,3}?(?:about\s+|around\s+|~)?\d+(?:\.\d+)?\s*"
                        r"(?:x|×|times)(?![\w.])|"
                        r"\b(?:far|much|way|significantly)\s+(?:below|lower|less|from)\b|\binstead of\b|"
                        r"\bno\s+(?:\w+\s+)?(?:gain|improvement|speed-?up|benefit|acceleration)\b|"
                        r"\blos(?:e|es|ing|t)\s+(?:\w+\s+)?(?:bandwidth|speed|performance|throughput|tok\w*)\b|"
                        r"\b(?:can ?not|can't|fail\w* to|unable to|doesn't|does not|don't)\s+"
                        r"(?:reach|achieve|get|hit)\b|"
                        # asking how to make it faster says it is too slow: "how can I speed up the tokenization?"
                        r"\bhow (?:can I|can we|do I|do we|to|could I|could we)\s+(?:\w+\s+){0,2}?"
                        r"(?:speed\s*(?:it\s+)?up|accelerate|make (?:it|this|\w+) faster)\b|"
                        # "is there a way to improve this?", "how can I increase the throughput"
                        r"\b(?:a |any |some )?(?:way|ways|method|methods|how)\s+to\s+(?:improve|increase|boost|raise|"
                        r"optimi[sz]e|speed\s*up)\b|"
                        # ... asked ("how can I improve generation speed"), not done ("we raised the batch to increase
                        # the throughput") nor foreseen ("upgrading the driver will improve the performance")
                        r"\b(?:how|can (?:I|we)|could (?:I|we)|is there)\b[^.?\n]{0,30}?"
                        r"\b(?:improve|increase|boost|raise)\s+(?:the\s+|this\s+|my\s+|our\s+|its\s+)?(?:\w+\s+)?"
                        r"(?:speed|throughput|performance|tok\w*/s|tps|generation rate)\b|"
                        # (review26) ... and "is there any way to raise it": "有没有什么办法可以提高？" said of a GPU
                        # utilisation (stanleylsx/entity_extractor_by_ner#6), as "is there a way to improve" above;
                        # not a model's accuracy or quality ("如何能提高模型的准确率呢", mohenghui/yolov5_flask#2)
                        r"(?:如何|怎么|怎样|有什么方法|有没有(?:什么)?(?:办法|方法))[^。？?\n]{0,20}?"
                        r"(?:提速|加速|加快|(?:提高|提升|增大)(?![^。？?\n]{0,8}?(?:准确|精度|精确|正确率|效果|质量)))|提速|"
                        # a rate called small in Chinese: "只有 160 GB/s", "仅 20 tokens/s", "才 10 个 token"; not a
                        # count ("我只有 1 张 4090") nor "刚才" (just now)
                        r"(?:只有|仅有|仅|(?<!刚)才)\s*(?:约|大约|大概)?\s*\d+(?:\.\d+)?\s*"
                        r"(?:tok\w*(?:/s)?|t/s|tps|it/s|[GMT]B/?s|Gb/?s|GBps|个\s*token)", re.I)


# The headings GitHub issue templates print above the reporter's text (Ollama's "What is the issue?", vLLM's "How would
# you like to use vllm", the bug-report forms' "What happened?"): the form asks them, not the reporter (issue 11 r).
# GitHub's default feature-request template opens with "Is your feature request related to a problem? Please
# describe." (horovod/horovod#1477, THUDM/ChatGLM-6B#910).
# (b50c) Bilingual forms print each heading twice, the second half after " / " or " | ": Xinference's bug form
# (xorbitsai/inference .github/ISSUE_TEMPLATE: "Running Xinference with Docker? / 是否使用 Docker 运行 Xinfernece？")
# and the form QwenLM/Qwen, Qwen-VL and MiniCPM-V share ("是否已有关于该错误的issue或讨论？ | Is there an existing issue
# / discussion for this?", "该问题是否在FAQ中有解答？ | Is there an existing answer for this in FAQ?").
_TEMPLATE_HEADING = re.compile(r"^[#\s>*./|-]*(?:what is the issue|what happened|what did you expect(?: to happen)?|"
                               r"is there an existing (?:issue(?:\s*/\s*discussion)?|answer)(?: for this)?"
                               r"(?: in (?:the )?FAQ)?|how would you like to use \w+|"
                               r"(?:what is )?the expected behaviou?r|describe the bug|running \w+ with docker|"
                               r"是否使用\s*docker\s*运行\s*\w+|是否已有关于该错误的\s*issue\s*或讨论|"
                               r"该问题是否在\s*FAQ\s*中有解答|"
                               r"is your feature request related to a problem)\s*[?？.:]?\s*$", re.I)
# (b50d) An issue form (.github/ISSUE_TEMPLATE/*.yml) prints each field's label as a "### " heading above the answer:
# "### Who can help?" (TensorRT-LLM, transformers), "### How is this issue impacting you?" (NCCL), "### Which llama.cpp
# modules do you know to be affected?", "### Running Xinference with Docker?", "### Is there an existing issue for
# the same bug?" (RAGFlow), "### 是否已有关于该错误的issue或讨论？" (Qwen). A question standing as such a heading is
# the form's label, not the reporter's question; the issue's own title is the one "# " heading. The whole line is the
# label, both halves of a bilingual one ("### 是否已有关于该错误的issue或讨论？ | Is there an existing issue / ...?").
# (r50b) Only a label the forms print (_FORM_LABELS): GitHub's editor writes a reporter's own heading with "### " too
# ("### Is it normal that vLLM takes 90% of GPU memory as soon as it starts?" stays their question).
_FORM_LABEL = re.compile(r"^[ \t]*#{3,}[ \t]+(.+)$", re.M)
# The labels of the forms the kept threads were filed through (each form's .github/ISSUE_TEMPLATE): transformers and
# TensorRT-LLM "Who can help?", NCCL "How is this issue impacting you?", llama.cpp "Which llama.cpp modules do you know
# to be affected?", Ray "What is the problem?" (dup39/rayipc_3), JAX "What jax/jaxlib version are you using?", the
# open GPU kernel modules' "Does this happen with the proprietary driver (of the same version) as well?", TensorFlow
# "Current Behaviour?", PhysicsNeMo "On which installation method(s) does this occur?", RAGFlow "Is there an existing
# issue for the same bug?", Xinference "Running Xinference with Docker?", and the Chinese forms' "发生了什么？" and
# "备注 | Anything else?"; vLLM's "What I expected".
_FORM_LABELS = re.compile(r"[*\s]*(?:who can help|how is this issue impacting you|"
                          r"which [\w.-]+ modules do you know to be affected|what is the problem|"
                          r"what [\w/.-]+ versions? are you using|does this happen with the proprietary driver|"
                          r"current behaviou?r|on which installation method|is there an existing issue|"
                          r"running \w+ with docker|what i expected|anything else|"
                          r"发生了什么|备注|是否已有|是否使用)", re.I)


def _asking_sentences(facts: Facts):
    """(source, sentence) of each sentence of the description that asks (not an issue template's heading nor a
    sentence of an issue form's field label)."""
    for n in facts.of(Note):
        if n.kind == "description" and n.text:
            labels = [m.group(1) for m in _FORM_LABEL.finditer(n.text) if _FORM_LABELS.match(m.group(1))]
            for sentence in sentences(n.text):
                if _ASKS.search(sentence) and not _TEMPLATE_HEADING.match(sentence) \
                        and not any(sentence.strip(" #|/") in label for label in labels):
                    yield n.source, sentence


def asks(facts: Facts) -> Claim | None:
    """The reporter's question (the first sentence of the description that asks), or None when the
    ticket only reports."""
    return next((Claim("question", source, one_line(sentence)[:200])
                 for source, sentence in _asking_sentences(facts)), None)


# (s31) The reporter asks what a figure counts, not whether it is good: "does tokens_per_sec mean total tok/s or
# tok/s/GPU?" (NVIDIA/TensorRT-LLM#1450), "is the output throughput per GPU or for all GPUs?", "what does
# generation_tokens_per_second mean?", "does the throughput include the prompt tokens?". The benchmark's own
# definition of the figure answers it (the scope its parser records); nothing is asked to be judged against physics.
_METRIC = (r"[`'\"]?(?:\w+_per_\w+|(?-i:[a-z]\w*Per[A-Z]\w*)|"  # tokens_per_sec, tokensPerSec
           r"[\w ]{0,20}throughput|tok(?:en)?s?\s*/\s*s(?:ec)?(?:\s*/\s*\w+)?|tokens per second|"
           r"latency|TTFT|TPOT|ITL|busbw|algbw|bus bandwidth|\w+\((?:ms|s|gb)\))[`'\"]?")
_MEANING_ASKED = re.compile(
    r"\bwhat\s+(?:does|do|is|are)\s+(?:the\s+|this\s+)?" + _METRIC + r"\s+(?:mean|means|stand\s+for|measure|count|"
    r"refer\s+to|include)\b|"
    r"\b(?:does|do|is|are)\s+(?:the\s+|this\s+)?" + _METRIC + r"\s+(?:mean|means|refer\s+to|include|count|measure)s?\b|"
    r"\bmeaning\s+of\s+(?:the\s+)?" + _METRIC + r"|"
    r"\bper[- ](?:GPU|card|device|rank|request|user|sequence)\s+or\s+(?:the\s+|in\s+)?(?:total|overall|aggregate|"
    r"all|combined|sum)\b|"
    r"\b(?:total|overall|aggregate|combined)(?:\s+tok(?:en)?s?/s(?:ec)?)?\s+or\s+"
    r"(?:per[- ]|each\s+|tok(?:en)?s?/s(?:ec)?/)(?:GPU|card|device|rank|request|user|sequence)\b", re.I)

# ... a question that also asks for a judgement ("is 40 tok/s per GPU or total good enough?") asks more than that
_JUDGED = re.compile(r"\b(?:normal|expected|reasonable|good|bad|slow|fast|low|high|enough|poor|worse|better|"
                     r"acceptable)\b", re.I)


def meaning_asked(facts: Facts) -> Claim | None:
    """The reporter's question about what a figure counts (per GPU or in total, per request or the whole batch,
    what a field means), from a sentence of the description that asks; None when no such question is put."""
    for source, sentence in _asking_sentences(facts):
        if (m := _MEANING_ASKED.search(sentence)) and not _JUDGED.search(sentence) \
                and not _NEGATION.search(sentence[max(0, m.start() - 30):m.start()]):
            return Claim("meaning_asked", source, _quote(sentence, m, 60))
    return None


# The reporter has run nothing yet ("I have not tried yet", "haven't tested it so far", "we didn't run it yet", "before
# buying"; "我还没试", "打算买"): a figure they quote is someone else's, and no behaviour of theirs is there to call
# normal.
_UNTRIED = re.compile(r"\b(?:I|we)\s+(?:have\s+not|haven't|have\s+never|did\s+not|didn't|can't|cannot)\s+"
                      r"(?:\w+\s+)?(?:tried|tested|run|ran|measured|benchmarked|bought|got)\b[^.?!\n]{0,30}?"
                      r"\b(?:yet|so far|still)\b|\bnot (?:tried|tested|measured|run)\s+(?:it\s+|this\s+)?yet\b|"
                      r"\b(?:before|planning to|plan to|thinking of|considering)\s+(?:buy|purchas|order|rent)\w*|"
                      # (review39s) in Chinese: "我还没试" with nothing after the verb (not "还没试过
                      # NCCL_P2P_DISABLE", a remedy not tried after a run), "还没买第二张", and buying planned,
                      # "打算买两张 4090"
                      r"(?:还|尚|暂时)\s*(?:没有?|未)\s*(?:(?:试|测|跑|部署)过?(?:呢)?(?=\s*(?:[，。,.！!；;]|$))|"
                      r"买|购买)|"
                      r"(?:打算|准备|计划|考虑)\s*(?:再)?\s*(?:买|购买|入手|采购)", re.I)


# (issue 11, ut20a) The reporter's own A/B of CUDA graphs: the engine's switch set to keep graphs on (vLLM's
# enforce_eager=False, the --enforce-eager or SGLang's --disable-cuda-graph flag dropped, graphs enabled) and the figure
# did not move. Graphs are then tried and ruled out as the cause: "I set `enforce_eager=False` and
# `disable_custom_all_reduce=False`, but the gpu utilization does not grow obviously" (vllm-project/vllm#14022); "The
# perf impact is within noise" of CUDA graph capture on 2x RTX 6000 Ada (ggml-org/llama.cpp#19378). Not a gain:
# "tp 2 + no eager ... 57.8 tokens/s" against 31.4 with --enforce-eager (dphnAI/sonar#1114), "dropping --enforce-eager
# -> +22% decode".
_GRAPHS_ON = re.compile(
    r"\benforce[-_]eager\W{0,2}\s*[=:]\s*\W?(?:False|false|0)\b|"
    r"\bdisable[-_]cuda[-_]graphs?\W{0,2}\s*[=:]\s*\W?(?:False|false|0)\b|"
    r"\b(?:without|remov\w*|dropp\w*|drop|delet\w*|took out|take out)\s+(?:the\s+)?\W{0,2}"
    r"(?:--)?(?:enforce[-_]eager|disable[-_]cuda[-_]graphs?|eager mode)\b|"
    r"\b(?:enabl\w+|turn\w* on|switch\w* on)\s+(?:the\s+)?CUDA[- ]?graphs?\b(?!\s+(?:off|disabled))", re.I)
# (session 21 review) "With CUDA graphs the throughput doesn't change": vLLM runs CUDA graphs unless --enforce-eager and
# SGLang unless --disable-cuda-graph (their docs; rules/catalog/engines.toml cuda_graphs), so there "with CUDA graphs"
# names the default run, no switch the reporter turned. It is one where the sentence names the other arm ("compared to
# --enforce-eager", "than eager mode", "with and without CUDA graphs") or the ticket's engine runs eager by default
# (DeepSpeed's enable_cuda_graph, LMDeploy's PyTorch engine before graphs).
_WITH_GRAPHS = re.compile(r"\bwith\s+(?:the\s+)?CUDA[- ]?graphs?\b(?!\s+(?:off|disabled))", re.I)
_OTHER_ARM = re.compile(r"\b(?:enforce[-_]eager|disable[-_]cuda[-_]graphs?|eager(?:\s+mode)?|without\s+(?:the\s+)?"
                        r"CUDA[- ]?graphs?|(?:and|or)\s+without)\b", re.I)
_DID_NOT_MOVE = re.compile(
    _NO_GAIN + r"|\b(?:does|did|do)\s?n[o']t\s+(?:grow|rise|go up|increase|help|change|improve|matter)\w*|"
    r"\bwithin (?:the )?noise\b|\bno (?:obvious |noticeable |visible |significant |real |big )?"
    r"(?:change|effect|difference)\b", re.I)


def graphs_tried_no_gain(facts: Facts) -> Claim | None:
    """The reporter turned CUDA graphs on (or kept them on) and says the figure did not move (_GRAPHS_ON in a sentence
    with _DID_NOT_MOVE after it): eager mode is then tried and ruled out as the cause, or None."""
    from rules import catalog

    engine = catalog.engine_named(facts)  # the engine profile the launch line or ticket names
    eager_default = engine is not None and not engine.cuda_graphs
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _GRAPHS_ON.search(sentence)
            if not m and (w := _WITH_GRAPHS.search(sentence)) and (eager_default or _OTHER_ARM.search(sentence)):
                m = w
            if m and not asked(sentence) and _DID_NOT_MOVE.search(sentence, m.end()):
                return Claim("graphs_tried_no_gain", source, _quote(sentence, m, 80))
    return None



# (issue 11, phys25) The reporter ran the reference's own settings: "Flags: identical to your TP2 recipe" (a 2x DGX
# Spark DFlash2 reproduction, tonyd2wild/GLM-5.3-Flash-NVFP4-DFlash2-2x-DGX-Spark#7, whose gap to the recipe's 46.9
# tok/s the thread put on the drafter file, not on the recipe's --enforce-eager). A setting the slow run shares with
# the reference that reached the higher figure cannot explain the gap between them. The settings (flags, command,
# config, arguments) are said to be the same as, or identical to, a reference's (your / the recipe, README, guide,
# docs, example, playbook, reference run); a stated difference in the sentence ("except", "but", "apart from",
# "other than") or a negation or question leaves them different.
_SETTINGS_WORD = (r"(?:flags?|settings?|config(?:uration)?s?|commands?(?:[- ]lines?)?|launch\s+(?:commands?|lines?|"
                  r"flags?|args)|arguments?|args|parameters?|params|options|serve\s+args)")
_REFERENCE_SETUP = (r"(?:your|the|this|that)\s+(?:[\w.-]+\s+){0,2}?(?:recipe|readme|reference(?:\s+(?:run|setup|"
                    r"config\w*|rig|box))?|guide|docs?|documentation|playbook|example|tutorial|quick[- ]?start|"
                    r"published\s+(?:setup|config\w*|command))\b")
_AS_REFERENCE = re.compile(
    r"\b" + _SETTINGS_WORD + r"\b[^.\n]{0,40}?\b(?:(?:are|is|were|was)\s+)?(?:exactly\s+)?(?:identical|the same|same)"
    r"\s+(?:to|as)\s+(?:in\s+)?" + _REFERENCE_SETUP + "|"
    r"\b(?:identical|(?:exactly\s+)?the same|same)\s+" + _SETTINGS_WORD + r"\s+(?:to|as)\s+(?:in\s+)?"
    + _REFERENCE_SETUP + "|"
    r"\b(?:us(?:ed|ing)|ran with|run with|launched with)\s+(?:exactly\s+)?(?:your|the)\s+(?:[\w.-]+\s+){0,2}?"
    r"(?:recipe|readme|guide|playbook)(?:['’]s)?\s+" + _SETTINGS_WORD + r"\b", re.I)
_DIFFERENCE_NAMED = re.compile(r"\b(?:except|but|apart from|other than|save for|besides|minus|instead)\b|"
                                r"\b(?:not|n['’]t|never)\b[^.\n]{0,20}?\b(?:identical|same)\b", re.I)


def settings_as_reference(facts: Facts) -> Claim | None:
    """The reporter says the run used the reference's own settings (_AS_REFERENCE: flags, command or config the same
    as, or identical to, the recipe's, README's, guide's) and sets the figure against that reference (a reference mark
    in the same text: reported, published, README, instead of), or None. Not asked, negated, or with a difference
    named in the sentence."""
    for source, text in texts(facts):
        parts = sentences(text)
        if not any(reference_marked(s) for s in parts):
            continue
        for sentence in parts:
            m = _AS_REFERENCE.search(sentence)
            if m and not asked(sentence) and not _DIFFERENCE_NAMED.search(sentence):
                return Claim("settings_as_reference", source, _quote(sentence, m, 80))
    return None

# (issue 11, ut21a) NCCL's peer-to-peer settings varied and the figure did not move: "How can I use NCCL_P2P_LEVEL to
# compare performance under different parameters? I got the same result with all the parameters" (NVIDIA/nccl#967).
# The levels run from LOC (P2P off) to SYS (P2P across the CPUs; NCCL's environment-variable documentation), so one
# figure under every level means NCCL moved no data peer-to-peer under any of them. The knob is named anywhere in the
# text; the sentence that says the figure stayed names many of its values ("all the parameters", "every level",
# "whatever value", "regardless of the setting"), or several NCCL_P2P_LEVEL values: one value against the default
# ("NCCL_P2P_LEVEL=NVL gives the same result") is one arm, which NVLink or a close PCIe pair explains as well.
_P2P_KNOB = re.compile(r"\bNCCL_P2P_(?:LEVEL|DISABLE)\b", re.I)
_MANY_VALUES = (r"\b(?:all|every|each|any|whatever|different|various|regardless of)\s+(?:of\s+)?(?:the\s+)?"
                r"(?:(?:p2p|nccl_p2p_level)\s+)?(?:parameters?|values?|settings?|levels?|options?|configurations?|"
                r"params?)\b")
_SAME_FIGURE = re.compile(
    r"\b(?:same|identical|similar|unchanged|equal)\s+(?:results?|numbers?|performance|bandwidth|speed|figures?|"
    r"busbw|throughput|output)\b[^.?!\n。？]{0,60}?" + _MANY_VALUES + "|"
    + _MANY_VALUES + r"[^.?!\n。？]{0,60}?\b(?:(?:the\s+)?(?:same|identical|similar|unchanged)\s+(?:results?|numbers?|"
    r"performance|bandwidth|speed|figures?|busbw|throughput)\b|" + NO_EFFECT + r")", re.I)


def p2p_levels_same(facts: Facts) -> Claim | None:
    """The reporter varied NCCL's P2P level (or P2P on and off) over many values and the figure stayed the same
    (_SAME_FIGURE in a sentence of a text that names the knob, not negated nor asked), or None."""
    for source, text in texts(facts):
        if not _P2P_KNOB.search(text):
            continue
        for sentence in sentences(text):
            m = _SAME_FIGURE.search(sentence)
            if m and not asked(sentence) and not re.search(r"(?:\bnot|\bnever|n['’]?t)\s+(?:\w+\s+){0,2}$",
                                                            sentence[:m.start()][-30:], re.I):
                return Claim("p2p_levels_same", source, _quote(sentence, m, 80))
    return None


# ... or asks whether someone else's figure can be reproduced, and how, with no figure of their own: "Can we reproduce
# it using https://github.com/vllm-project/vllm/pull/4650" under the DeepSeek-V2 paper's "50K tokens per second"
# (deepseek-ai/DeepSeek-V2#21), "how can I reproduce the numbers in the blog?", "is it possible to reach the
# published throughput with ...?". The question is asked before any run; ticket.nothing_broken reads it only where
# the ticket judges no figure of the reporter's ("I reproduced it and got 1500 tok/s" holds one: the figure
# checks'). Not a bug's reproduction ("can you reproduce the hang?", "steps to reproduce"): the thing reproduced is
# a figure.
_REPRODUCE_FIGURE = re.compile(
    r"\b(?:can|could|how\s+(?:can|could|do|to))\s+(?:we|I|one)?\s*(?:(?:reproduce|replicate)\s+(?:it|this|that|these|them)|"
    r"(?:reproduce|replicate|reach|achieve|match|get)\s+the\s+(?:\w+\s+){0,3}?(?:throughput|numbers?|figures?|results?|"
    r"speed|performance|benchmark|tokens?\s*(?:/|per)\s*s\w*))\b", re.I)


# (s27, review31b) ... unless the ticket says an attempt was made: "The method described in the README ... does not
# actually reproduce the throughput. How to reproduce the throughput result?" (Sys-KU/DeepPlan#6): something was run.
_ATTEMPTED = re.compile(r"\b(?:does|did|do|could|can)\s*(?:n[o']t|not)\s+(?:actually\s+)?(?:reproduce|replicate|reach|"
                        r"achieve|match)|\b(?:tried|attempted|failed|unable)\s+to\s+(?:reproduce|replicate|reach|achieve|"
                        r"match)|\b(?:I|we)\s+(?:reproduced|replicated|ran|measured|benchmarked)\b", re.I)


def untried(facts: Facts) -> Claim | None:
    """The reporter's words that they have not run the setup yet, or a question whether another's figure can be
    reproduced (_REPRODUCE_FIGURE) where no attempt is told (_ATTEMPTED), or None."""
    attempted = any(_ATTEMPTED.search(text) for _, text in texts(facts))
    for source, text in texts(facts):
        for sentence in sentences(text):
            if (m := _UNTRIED.search(sentence)) and not asked(sentence):
                return Claim("untried", source, _quote(sentence, m, 40))
            # (a question, or a sentence that opens with the interrogative, "Can we reproduce it using ...",
            # though its question mark is missing; "we can reproduce it" states a run)
            if (m := _REPRODUCE_FIGURE.search(sentence)) and not attempted \
                    and (asked(sentence) or not sentence[:m.start()].strip()):
                return Claim("untried", source, _quote(sentence, m, 40))
    return None


# Claim families that point at a fault, or at a platform where the question's answer is usually one
# (a VM, ranks in separate containers, a riser): with any of them affirmed, "nothing is broken" is not
# the answer. The families are this module's own, each from its tool's vocabulary.
FAULT_FAMILIES = (
    "hang", "no_p2p", "link_down", "nvidia_smi_slow_words", "module_missing", "shm_error", "clock_power",
    "hardware_error", "fabric_setup", "one_slow", "isolated_ranks", "wrong_results", "iommu_fault", "exception",
    "vm_vs_bare_metal", "virtualized", "tp_size_error", "eager_flag", "gdr_off", "slowdown_over_time", "net_socket",
    "pcie_degraded", "pcie_slot", "numa_words", "nccl_upgrade", "bimodal", "small_collective_slow", "launch_overhead",
    "nccl_versions_compared", "engine_versions_compared", "blocked_in_collective",
)


# (c50f) The fault families that name a pace: a rank, a run or a size that is slower (one_slow, slowdown_over_time,
# bimodal, small_collective_slow) or a GPU waiting on the host's launches. The rest name a failure, a platform or a
# setting; beside a hang, a crash or an error they say why the job stopped, not how fast it ran.
PACE_FAMILIES = ("one_slow", "slowdown_over_time", "bimodal", "small_collective_slow", "launch_overhead")
# The symptoms of a job that stops or fails (symptom()): a hang, a crash, an error (an out-of-memory among them).
FAILURE_SYMPTOMS = ("hang", "crash", "error")


def fault_claims(facts: Facts, excused: tuple[str, ...] = ()) -> list[Claim]:
    """The ticket's claims of the FAULT_FAMILIES not ruled out, less the `excused` families (a caller that has explained
    that very observation as normal)."""
    return [c for c in claims(facts) if c.kind in FAULT_FAMILIES and c.kind not in excused and not c.negated]


def complaint(facts: Facts, skip: re.Pattern | None = None) -> Claim | None:
    """The reporter's complaint (something called slow, low, worse, below a figure), unless ruled out
    ("it is not slow"); None: a question without one asks about behaviour, not about a shortfall. `skip`: the words
    it matches are not read (the observation a rule already explains, such as "only one GPU is used")."""
    for source, text in texts(facts):
        for sentence in sentences(text):
            spans = [(k.start(), k.end()) for k in skip.finditer(sentence)] if skip is not None else []
            for m in _COMPLAINT.finditer(sentence):
                if (_NEGATION.search(sentence[max(0, m.start() - 30):m.start()]) or _zh_denied(sentence, m)
                        or _rate_rose(m)
                        or _power_state_drop(sentence, m)):
                    continue
                if any(m.start() < end and start < m.end() for start, end in spans):
                    continue
                return Claim("complaint", source, _quote(sentence, m, 60))
    return None


# A contrast between two setups, runs or versions ("faster than", "compared to", "vs", "10 times slower", "drops by
# half"): asked as a question ("Why is vLLM faster than SGLang by nearly 10 times?", sgl-project/sglang#4245; "memory
# usage of v0.9.2 is significantly higher than that of v0.9.1. Why is this?", vllm-project/vllm#21027) it is a
# complaint all the same, and "nothing is wrong" does not answer it.
_ASKED_CONTRAST = re.compile(
    # (not a bound in units, "more than 1 GB", "higher than 3K tokens": a figure the figure checks judge)
    r"\b(?:faster|slower|higher|lower|more|less|worse|better|larger|bigger|smaller|longer|shorter|quicker)\s+th[ae]n\b"
    r"(?!\s*(?:about\s+|around\s+|~)?\d[\d.,]*\s*(?:%|[KMGT]i?B\b|[KMG]\b|tok|t/s|it/s|ms\b|s\b|sec|min|W\b|°))|"
    r"\bcompared\s+(?:to|with)\b|\bvs\.?(?=\s)|\bversus\b|"
    r"\b(?:faster|slower|worse|better|higher|lower)\s+by\s+(?:about\s+|nearly\s+|almost\s+|~)?\d|"
    r"\b\d+(?:\.\d+)?\s*(?:x|×|times)\s+(?:as\s+)?(?:faster|slower|higher|lower|more|less|fast|slow)\b|"
    r"\b(?:drop|drops|dropped|dropping|fall|falls|fell|decreas\w*|degrad\w*|reduc\w*|halv\w*|doubl\w*)\s+"
    r"(?:by\s+)?(?:about\s+|nearly\s+|almost\s+|~)?(?:half|\d+(?:\.\d+)?\s*(?:%|x|times))|"
    r"比[^。？?\n]{0,20}?(?:快|慢|高|低|多|少)", re.I)
# ... but the first run against the ones after it is warm-up (compilation, CUDA graph capture, caches), not a fault
# ... and asked as "is it normal that ...?" rather than "why ...?", only a loss is a complaint: "Is it normal that the
# tree algorithm is faster than ring on two nodes?" asks about a behaviour, "is it expected that ... drops by half?"
# about a shortfall
_IS_NORMAL = re.compile(r"\b(?:is|are)\s+(?:it|this|that|these|those)\s+(?:\w+\s+)?(?:normal|expected|usual|ok|okay|"
                        r"reasonable)\b", re.I)
_WHY = re.compile(r"\b(?:why|how come)\b|为什么|为啥", re.I)  # (review3_25: and in Chinese)
_COST = re.compile(r"\b(?:memory|VRAM|RAM|latency|time|power)\b|\bas\s+(?:many|much)\b", re.I)  # more of it: a loss
_LOSS = re.compile(r"slower|worse|lower|less|longer|drop|fall|fell|decreas|degrad|reduc|halv", re.I)
# (mend25) ... or asked with its other side left unsaid, as people ask about a change they made: "Is V1 expected to
# consume more memory?" (vllm-project/vllm#12529, V1 against the V0 engine before it), "Why does TP=4 use more
# memory with the new version?", "Newer version of KoboldCPP cannot fit as many layers in VRAM?"
# (LostRuins/koboldcpp#1596): a comparative in a question that names one side, a release, an engine generation, an
# upgrade or a layout (the other side is the one before it). Not a plan or a forecast ("will I see a significant
# increase in performance?", "wouldn't it be better to use DDP?") nor a how-to ("how can I make it faster with TP?").
# ("more" and "less" of a measure or after a verb of use only: "is there more documentation?" compares nothing)
_UNSAID_CONTRAST = re.compile(r"\b(?:higher|lower|slower|faster|worse|better|larger|bigger|smaller|longer|"
                              r"shorter)\b|"
                              r"\b(?:more|less|fewer)\s+(?:\w+\s+)?(?:memory|VRAM|RAM|time|latency|power|bandwidth|"
                              r"throughput|tokens|speed|space)\b|"
                              r"\b(?:use[sd]?|using|consum(?:e|es|ed|ing)|tak(?:e|es|en|ing)|took|need(?:s|ed)?|"
                              r"requir(?:e|es|ed)|allocat(?:e|es|ed)|occup(?:y|ies|ied))\s+(?:\w+\s+)?(?:more|less)\b|"
                              r"(?:\bnot|n't|\bcannot)\s+(?:\w+\s+){0,3}?as\s+(?:many|much|fast|good|well|quick(?:ly)?|"
                              r"high)\b|"
                              # (review3_25) ... in Chinese: 高很多 "much higher", 多了不少, 更慢 "slower",
                              # 变慢 "got slower" ("为什么相同并发下 显存占用高很多？", ollama/ollama#14774)
                              r"(?:高|多|慢|大|长)了?(?:很多|不少|许多|好多|一倍)|更(?:慢|高|多|大|长)|变慢", re.I)
_ONE_SIDE = re.compile(r"\b(?:new|newer|old|older|latest|previous|prior|last|current|recent)\s+(?:\w+\s+)?"
                       r"(?:versions?|releases?|builds?|images?|drivers?|updates?)\b|\bV[01]\b|"
                       r"\bv\d+(?:\.\d+)+\b|\b\d+\.\d+\.\d+\b|\bversion\s+v?\d|"
                       r"\b(?:upgrad|updat|downgrad)\w*|"
                       r"\b(?:TP|PP)\s*(?:=|:|\s(?:is|of))?\s*\d|--tp\b|\btensor[\s_-]parallel\w*|"
                       r"\bpipeline[\s_-]parallel\w*|\b(?:\d+|two|three|four|eight|multiple|several)\s+(?:GPUs?|cards?)\b|"
                       r"\bmulti-?GPUs?\b|\bsingle\s+(?:GPU|card)\b|"
                       # (review3_25) a release or a version in Chinese: "0.17.7版本", 新版本 "the new version", 旧版
                       r"(?<![\w.])v?\d+\.\d+(?:\.\d+)?\s*版本?|[新旧老]版本?", re.I)
_NOT_A_CONTRAST_ASKED = re.compile(r"\b(?:how\s+(?:can|do|does|could|should|to|did|would)|is\s+there\s+(?:a|any)\s+way|"
                                   r"any\s+way|(?:can|could|should)\s+(?:I|we)|would|wouldn'?t|will|won'?t|"
                                   r"if\s+(?:I|we|you)|is\s+there|are\s+there|which|recommend\w*)\b|"
                                   r"怎么|怎样|如何|能否|会不会|有没有", re.I)  # (review3_25) how, can it, will it


def _unsaid_contrast(sentence: str) -> re.Match | None:
    """The comparative of a question that names one side of a comparison and leaves the other unsaid
    (_UNSAID_CONTRAST with _ONE_SIDE in the question itself), or None."""
    for m in _UNSAID_CONTRAST.finditer(sentence):
        end = min((i for i in (sentence.find("?", m.end()), sentence.find("？", m.end())) if i >= 0), default=-1)
        if end < 0 and not _WHY.search(sentence[:m.start()]):
            continue  # a statement ("it needs more memory"), not the question itself
        asking = sentence[:end + 1] if end >= 0 else sentence
        if _ONE_SIDE.search(asking) and not _NOT_A_CONTRAST_ASKED.search(asking):
            return m
    return None


_WARM_UP = re.compile(r"\b(?:first|initial|1st)\s+(?:\w+\s+)?(?:request|run|call|iteration|step|batch|inference|"
                      r"query|prompt|time|epoch)s?\b|\bwarm-?up\b|\bcold start\b", re.I)


def asked_contrast(facts: Facts) -> Claim | None:
    """A question that holds two setups, runs or versions against each other (_ASKED_CONTRAST; "not much faster
    than" is one too; or one side named and the other unsaid, _unsaid_contrast), unless it is a first run against
    later ones (_WARM_UP) or a gain asked as "is it normal?" (_IS_NORMAL); None when there is none. A contrast stated
    and then asked about in a short question of its own ("... higher than that of v0.9.1. Why is this?") is asked
    too."""
    for source, text in texts(facts):
        said = sentences(text)
        for k, sentence in enumerate(said):
            then = said[k + 1] if k + 1 < len(said) else ""
            asked = _ASKS.search(sentence) or (_ASKS.search(then) and len(re.findall(r"\w+", then)) <= 8)
            if not asked or _WARM_UP.search(sentence):
                continue
            m = _ASKED_CONTRAST.search(sentence) or (_ASKS.search(sentence) and _unsaid_contrast(sentence))
            asking = sentence + " " + then
            if m and (_WHY.search(asking) or not _IS_NORMAL.search(asking) or _LOSS.search(m.group(0))
                      or re.search(r"\bmore\b|\bnot\b|n't|cannot", m.group(0), re.I) and _COST.search(asking)):
                return Claim("complaint", source, _quote(sentence, m, 80))
    return None


# (audit47a) A result the reporter holds short of what they expected or of what was reported, said in words with
# no figure and no "slow": "it definitely improved performance, but not as much as I expected" (whisper.net#79),
# "the time needed for training is estimated to be 80-90hours, which differs significantly with the result reported
# by you" (artidoro/qlora#77), "推理速度基本上没有提升" (the speed barely improved, InternLM/lmdeploy#2310). The
# English shortfall words ("no improvement", "below expectations", "far from the reported") are complaints already
# (_COMPLAINT, _BELOW_EXPECTATIONS, _REPRO_TROUBLE); these are their counterparts those readings miss. A speed word
# must share the sentence of "not as much as I expected" ("it's quite hard but not as much as I expected" is no rate);
# a gain called small ("not as slow as I expected", "as fast as we expected") is not one; a reference must be a
# result or figure reported, not a thing ("differs from the reported CANcoder position").
_SHORT_OF_EXPECTED = re.compile(
    r"\bnot\s+(?:nearly\s+|quite\s+)?as\s+(?:much|fast|quick|good|high|big|large|great)\s+as\s+(?:I|we)\s+"
    r"(?:had\s+|would\s+have\s+)?(?:expected|hoped|anticipated|thought)\b|"
    r"\bdiffer(?:s|ed|ing)?\s+(?:so\s+|very\s+)?(?:significantly|greatly|a lot|considerably|substantially|much|hugely)"
    r"\s+(?:from|with)\s+(?:the\s+|your\s+|their\s+)?(?:results?|numbers?|figures?|times?|speeds?|throughput|"
    r"performance|benchmarks?)\s+(?:reported|published|claimed|stated|you\s+reported|in\s+the\s+(?:paper|README|blog))|"
    r"(?<!不是)(?<!并非)(?:速度|性能|吞吐量?|速率)\s*(?:基本上?|几乎|完全|并|都|也)?\s*没有?\s*(?:什么|明显|太大|任何)?"
    r"(?:的)?\s*(?:提升|提高|加快|变快|加速)", re.I)
_RATE_IN_SENTENCE = re.compile(r"\b(?:performance|speed\w*|faster|quicker|throughput|latency|tok\w*/s|tps|it/s|"
                               r"accelerat\w*|runtime|run\s+time|(?:inference|training|generation|decod\w*|prefill|"
                               r"step|epoch|iteration|wall(?:-clock)?|response|execution|processing|compute|"
                               r"latency|load(?:ing)?|startup|elapsed)\s+times?|times?\s+(?:per|to\s+first|"
                               r"needed|taken|spent))\b|速度|性能|吞吐", re.I)


def expectation_missed(facts: Facts) -> Claim | None:
    """(audit47a) The reporter's own sentence holding a result short of what they expected or of a reported result
    (_SHORT_OF_EXPECTED), stated, not guessed, advised, asked or supposed ("if it is not as fast as I expected");
    None when there is none."""
    for source, sentence in own_sentences(facts):
        for m in _SHORT_OF_EXPECTED.finditer(sentence):
            if m.group(0).lower().startswith("not") and not _RATE_IN_SENTENCE.search(sentence):
                continue
            if m.group(0).lower().startswith("differ") and _negation_right_before(sentence, m.start()):
                continue  # "does not differ significantly from the results reported": no shortfall (fr47a1)
            if offered(sentence, m.start()) or conditional(sentence[:m.start()], when=False) or \
                    _IF_ZH.search(sentence[:m.start()]):
                continue
            return Claim("complaint", source, _quote(sentence, m, 80))
    return None


# A time per unit of work ("a step takes 10 s+", "a reply takes over ten minutes", "一个step就需要10s+",
# "一个回复要十几分钟"): a rate in other words, which only a figure check (with the model, GPU and lengths) can call
# normal.
_WORK_DURATION = re.compile(
    r"\b(?:a|one|each|every|per)\s+(?:single\s+)?(?:decode\s+|decoding\s+|generation\s+)?"
    r"(?:step|token|reply|response|answer|completion)\b[^.\n]{0,30}?"
    r"(?:\d+(?:\.\d+)?\s*\+?\s*(?:ms|s|secs?|seconds?|min|mins|minutes?)\b|"
    r"\b(?:several|ten|twenty|many|a few)\s+(?:minutes|seconds))|"
    r"(?:一个|每个?|一条|单个)\s*(?:step|token|回复|回答|答案|请求)[^。，,\n]{0,12}?"
    r"(?:\d+(?:\.\d+)?\s*\+?\s*(?:ms|s|秒|分钟|min)|[十几数两]+\s*(?:分钟|秒))", re.I)


def work_duration_in(sentence: str) -> bool:
    """Does the sentence give a time per step, token or reply (_WORK_DURATION)?"""
    return bool(_WORK_DURATION.search(sentence))


def work_duration(facts: Facts) -> bool:
    """Does the reporter give a time per step, token or reply anywhere?"""
    return any(work_duration_in(s) for _, t in texts(facts) for s in sentences(t))

# --------------------------------------------------------------------------- GPUs of other vendors
# Accelerators that are not NVIDIA's, as their makers name them: AMD Instinct MI-series and Radeon (ROCm),
# Intel Arc / Data Center GPU Max / Gaudi (XPU), Apple M-series (Metal)
# (https://www.amd.com/en/products/accelerators/instinct.html, https://www.intel.com/content/www/us/en/products/details/discrete-gpus.html,
# https://developer.apple.com/metal/). NVIDIA's P-states, nvidia-smi fields, NVLink and NCCL do not describe them.
# ("metal" after a dot is a cloud instance's bare-metal size, "g4dn.metal", "m5.metal":
# https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html)
# (ut28c) Apple's machines by their names: "two Mac computers" (exo-explore/exo#141), "Mac Studio", "MacBook";
# "Macs" only capitalised as Apple writes it ("MACs" are NICs' addresses), "Mac Pro" is a machine too
_MAC_MACHINES = r"\bMac\s+(?:computers?|Studios?|minis?|Pro)\b|\bMacBooks?\b|(?-i:\bMacs\b)"
# (review40) A Mac is a computer, not an accelerator: one may hold an NVIDIA card ("Mac Pro + Quadro M4000 in a
# Bizon2", tensorflow/tensorflow#664; "Mac Pro 6,1 ... eGPU: Sonnet Breakaway 550 + NVIDIA GTX 680",
# mayankk2308/purge-wrangler#53). Where NVIDIA's own names for its cards or tools appear, a Mac's name says nothing
# of the accelerator (https://www.nvidia.com/en-us/geforce/, https://www.nvidia.com/en-us/design-visualization/).
# (the bare word NVIDIA is no card: Mac cluster threads name NVIDIA's GPUs or NCCL as what they are not)
_NVIDIA_NAMED = re.compile(r"\bGeForce\b|\bQuadro\b|\bGTX\s?\d|\bRTX\s?(?:A?\d|PRO\b)|\bnvidia-smi\b", re.I)
_OTHER_VENDOR = re.compile(
    r"\bMI\s?(?:25|50|60|100|210|250X?|300[AX]?|325X|350X?|355X?)\b|\bInstinct\b|\bRadeon\b|\bRX\s?[5-9]\d{3}\b|"
    r"\bROCm\b|\brocm-smi\b|\bamd-smi\b|\bIntel\s+(?:Arc|Data\s+Center\s+GPU|Gaudi|GPU\s+Max)\b|\bArc\s+[AB]\d{3}\b|"
    r"\bGaudi\s?\d?\b|\bXPU\b|\bApple\s+(?:M[1-5]|silicon)\b|\bM[1-5]\s+(?:Pro|Max|Ultra)\b|(?<!\.)\bMetal\b|"
    + _MAC_MACHINES + "|" +
    # (ut26f) the accelerators of Chinese threads: Huawei's Ascend NPUs (910B/910C, npu-smi, torch_npu; "设备：910b",
    # DeepLink-org/dlinfer#109), Cambricon's MLU (cnmon), Hygon's DCU (hy-smi), Kunlunxin's XPU; a bare "910" is no name
    r"\bAscend\b|昇腾|\bnpu-smi\b|\btorch_npu\b|(?<![\w.])910[BC]\d?(?![\w.])|\bMLU\s?[2-5]\d0\b|寒武纪|\bcnmon\b|"
    r"海光|\bhy-smi\b|昆仑芯|\bKunlun(?:xin)?\b|"
    # (s28, ut28f) Tenstorrent's accelerators and their software as Tenstorrent names them: the Grayskull, Wormhole
    # (n150/n300) and Blackhole (p100/p150) cards, the QuietBox and LoudBox workstations, tt-smi, TT-Metalium
    # (tt-metal) and TT-NN (https://tenstorrent.com/hardware; https://docs.tenstorrent.com); "Very slow speed ... on
    # QuietBox (which I am using)" (tenstorrent/tt-inference-server#40)
    # (review38) QuietBox and LoudBox as Tenstorrent writes them, capitalised: "on a quiet box" is an idle machine
    r"\bTenstorrent\b|(?-i:\bQuiet\s?Box\b|\bLoud\s?Box\b)|\bGrayskull\b|\bWormhole\s+n[13]\d0\b|\bn300s?\b|"
    r"\bBlackhole\s+p1\d0a?\b|\btt-smi\b|\btt-metal(?:ium)?\b|\bTT-NN\b", re.I)


# The same names without Apple's machines: the chips and tools alone.
_OTHER_CHIPS = re.compile(_OTHER_VENDOR.pattern.replace(_MAC_MACHINES + "|", ""), re.I)


def other_vendor(facts: Facts) -> Claim | None:
    """The non-NVIDIA accelerator the ticket is about: named in its title, or named where no NVIDIA GPU is; None
    otherwise (a ticket that only compares with one stays NVIDIA's)."""
    cited = [t for n in facts.of(Note) if n.kind == "description" for t in n.data.get("cited", ())]
    nvidia = any(_NVIDIA_NAMED.search(t) for _, t in texts(facts))
    for source, text in texts(facts):
        title = text.lstrip().split("\n", 1)[0]
        m = _named_here(_OTHER_VENDOR, title, cited) or (
            facts.subject.gpu is None and _named_here(_OTHER_VENDOR, text, cited))
        if m and re.fullmatch(_MAC_MACHINES, m.group(0), re.I) and nvidia:
            # a Mac holding an NVIDIA card (review40); another vendor's chip named beside it still counts
            m = _named_here(_OTHER_CHIPS, title, cited) or (
                facts.subject.gpu is None and _named_here(_OTHER_CHIPS, text, cited))
        if m:
            name = "Apple Mac" if m.group(0).lower().startswith("mac") else m.group(0)  # "two Mac computers"
            return Claim("other_vendor", source, _quote(m.string, m, 40), {"name": name})
    return None


def _named_here(pattern: re.Pattern, text: str, cited: list[str]) -> re.Match | None:
    """The first match of `pattern` in `text` outside the titles of pages the reporter links to (issue_md.CITED_LINK:
    a cited page's title names its own hardware, not the reporter's)."""
    spans = [(i, i + len(t)) for t in cited if t for i in (k.start() for k in re.finditer(re.escape(t), text))]
    return next((m for m in pattern.finditer(text) if not any(a <= m.start() and m.end() <= b for a, b in spans)), None)


def other_vendor_speed(facts: Facts) -> Claim | None:
    """other_vendor's accelerator where the ticket asks about its speed or scaling (ticket.other_vendor answers that,
    and the rules built on NVIDIA's physics stay silent), else None."""
    said = symptom_quote(facts)
    return other_vendor(facts) if said and said[2] in ("scaling", "slow") else None

# --------------------------------------------------------------------------- speed-ups and scaling efficiency

# How much faster a larger layout runs than a smaller one, as reporters state it: "TP4 is only 1.3x faster
# than TP1", "a 1.8x speed-up from 1 to 2 GPUs", "with 8 GPUs the scaling efficiency is 60 %". The
# vocabulary is benchmarking's (speed-up = t_small / t_large; efficiency = speed-up / GPU ratio).
# ("x1.3" only before a speed word: "x16" and "x86" name PCIe lanes and a CPU)
_RATIO = re.compile(r"(?<![\w.])(?:(\d+(?:\.\d+)?)\s*(?:x|×|times)(?![\w.])|"
                    r"[x×](\d+(?:\.\d+)?)(?![\w.])(?=\s*(?:speed-?ups?|faster|slower|quicker)\b))", re.I)
# A speed-up as a percentage: "30% faster", "20 % slower", "improves the speed by only 10%" (1.3x, 0.8x, 1.1x).
_PERCENT_SPEED = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*%\s+"
                            r"(faster|quicker|slower|better|worse|more throughput)\b|"
                            r"\b(?:improv\w*|increas\w*|speed\w*\s+up|rais\w*|gain\w*)\b[^.\n%]{0,30}?\bby\s+"
                            r"(?:only\s+|about\s+|around\s+|~)?(\d{1,3}(?:\.\d+)?)\s*%", re.I)
# A speed-up named as such, its figure after the name: "a speed-up of only 1.3", "speedup factor 2.1", Chinese
# "加速比只有 1.3" (speed-up ratio; not a percentage, which _PERCENT_SPEED reads).
_RATIO_NAMED = re.compile(r"(?:\bspeed-?up(?:\s+(?:ratio|factor))?\s*(?:of|is|was|=|:)?|"
                          r"加速比\s*(?:只有|仅为|仅|为|是|约|才|大约)?)"
                          r"\s*(?:only\s+|about\s+|around\s+|~)?(\d+(?:\.\d+)?)(?!\d|\.\d|\s*%)", re.I)
# ... and a percentage in Chinese word order: "只比单卡快 20%" (1.2x), "慢了 10%" (0.9x), "提升了 20%" (1.2x).
_CJK_PERCENT = re.compile(r"(?P<dir>快|慢|提升|提高|增加|下降|降低)\s*了?\s*(?:约|大约|只有|仅|不到)?\s*"
                          r"(?P<n>\d{1,3}(?:\.\d+)?)\s*[%％]")
# What went up "by N%" for it to be a speed-up: a speed (_SPEED_NOUN, below), not a time or a memory figure.
# ... and in Chinese, before a neutral verb (提升, 下降; 快 and 慢 say speed themselves): 速度 speed, 吞吐 throughput,
# 性能 performance, 速率 rate, 加速 speed-up, a tokens/s unit; not 延迟/时延 latency, 耗时/时间 time, 显存/内存 memory.
_CJK_SPEED_NOUN = re.compile(r"速度|吞吐|性能|速率|加速|tok\w*/s|t/s", re.I)
_CJK_TIME_NOUN = re.compile(r"延迟|时延|耗时|时间|显存|内存")
_TIME_NOUN = re.compile(r"\b(?:latency|time|TTFT|ITL|TPOT|memory|VRAM)\b", re.I)
_SPEED_WORDS = re.compile(r"\b(?:faster|quicker|slower|speed-?ups?|speeds?|accelerat\w*|throughput|perf\w*|scal\w*|"
                          r"tok\w*/s|t/s|tokens? per second|latency|better|as (?:fast|quick) as)\b|"
                          r"加速|速度|快|慢|吞吐|性能", re.I)
# A ratio of GPUs ("2x the GPUs", "4x A100"), not of speed.
# ("4x L40S", "2x 3090s", "8x A100-80GB" name GPUs too)
_RATIO_OF_GPUS = re.compile(r"^\s*(?:more\s+|the\s+)?(?:GPUs?|cards?|nodes?|[A-Z]{1,3}\d{2,4}[A-Z]{0,3}s?|RTX|GTX|"
                            r"Tesla|H\d{2,3}|A\d{2,3}|[1-9]0[5-9]0(?:\s*Ti)?s?)\b", re.I)
# A ratio the reporter expects or hopes for, not one they measured: "I expected 4x", "should be 2x faster".
_RATIO_HOPED = re.compile(r"\b(?:expect\w*|should|hop(?:e|ed|ing)|ideal\w*|theoretical\w*|would|linear\w*|"
                          r"supposed|wish\w*|aim\w*)\b[^.\n]{0,25}$", re.I)
# ("N-way" is a tensor-parallel degree, "8-way TP"; not "8-way concurrency", streams: vllm-project/vllm#44697)
_LAYOUT_COUNT = re.compile(
    r"\bTP\s*[=:]?\s*(\d{1,2})\b|\btp[-_ ]?(?:size\s*[=:]?\s*)?(\d{1,2})\b|"
    r"\b(\d{1,2})[- ]way\b(?!\s+(?:concurren\w*|batch\w*|requests?|streams?|users?)\b)|"
    # (variant39: "on 4 A100 GPUs", a board's name between the count and its noun)
    r"\b(\d{1,2})\s*(?:x\s*)?(?:(?-i:[A-Z]{1,3}\d{2,4}[A-Z]{0,3})\s+)?(?:GPUs?|cards?|devices?)\b|"
    r"\b(one|single|two|dual|three|four|six|eight|sixteen)\s+(?:\w+\s+)?(?:GPUs?|cards?|devices?)\b|"
    r"\b(\d{1,2})\s*[x×]\s*(?=[A-Z]{1,3}\d{2,4}|RTX|H\d{2,3}|A\d{2,3}|L\d{1,2}|V100|T4)|" + GLUED_COUNT + "|"
    # Chinese counts of cards: "4 张 L40S", "双卡", "单卡", "8卡"
    r"([一单两二双三四六八]|\d{1,2})\s*(?:张|块)\s*(?:显卡|卡|GPU)?|([一单两二双三四六八]|\d{1,2})\s*卡", re.I)
_EFFICIENCY = re.compile(
    r"\b(?:scal\w*|parallel)\s+efficiency\b[^.\n%]{0,30}?(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*%|"
    r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*%\s+(?:\w+\s+)?(?:scal\w*|parallel)\s+efficiency\b|"
    r"\bscal\w*\b[^.\n%]{0,25}?\bonly\s+(?:about\s+|around\s+|~)?(\d{1,3}(?:\.\d+)?)\s*%", re.I)


# "from 1 to 8 GPUs", "2 -> 4 cards", "TP1 to TP4": both ends of a step named once.
_COUNT_RANGE = re.compile(r"\b(?:from\s+)?(?:TP\s*)?(\d{1,2})\s*(?:->|→|to)\s*(?:TP\s*)?(\d{1,2})\s*"
                          r"(?:GPUs?|cards?|devices?|ranks?)?\b", re.I)


def _layout_counts(sentence: str) -> list[int]:
    """The GPU counts a sentence names ("TP4", "8 GPUs", "a single GPU", "2x A100", "from 1 to 8 GPUs"), in
    order, once each."""
    out: list[int] = []
    for m in _COUNT_RANGE.finditer(sentence):
        if re.search(r"GPU|card|device|rank|TP", m.group(0), re.I):  # "2 to 3 seconds" is no layout
            out += [int(g) for g in m.groups() if int(g) not in out]
    for m in _LAYOUT_COUNT.finditer(sentence):
        token = next(g for g in m.groups() if g)
        n = count_word(token)
        if n and n not in out:
            out.append(n)
    return out


def _span(counts: list[int]) -> tuple[int | None, int | None]:
    """(smaller, larger) layout of the counts named; one count is the larger layout, its baseline unstated."""
    if len(counts) >= 2:
        return min(counts), max(counts)
    return (None, counts[0]) if counts and counts[0] > 1 else (None, None)


# A comparison named before the ratio ("compared with 1 GPU, it is 1.8x faster on 4"): the smaller layout is the
# baseline there, not the subject.
_BASELINE_FIRST = re.compile(r"\b(?:compared|relative|versus|vs|than|over|from)\b|比|相比|相对于|对比", re.I)


# An environment variable set or a command-line flag in the clause that states a ratio: the ratio is that setting's
# effect (with vs without it), e.g. "with NCCL_P2P_DISABLE=1 it is 30% slower", "adding --enforce-eager made it 2x
# slower".
_SETTING_TOGGLED = re.compile(_SETTING.pattern + r"|(?<![\w-])--[a-z][\w-]+")
# Settings that choose the layout itself are the comparison, not an A/B on one layout: vLLM's --tensor-parallel-size
# / -tp / --pipeline-parallel-size / --data-parallel-size, SGLang's --tp-size / --dp-size, TGI's --num-shard, TRT-LLM's
# --tp_size / --world_size, torchrun's --nproc_per_node, llama.cpp's --tensor-split / --split-mode, and which GPUs are
# visible (https://docs.vllm.ai/en/v0.8.5/serving/engine_args.html,
# https://huggingface.co/docs/text-generation-inference/basic_tutorials/launcher,
# https://pytorch.org/docs/stable/elastic/run.html).
_LAYOUT_SETTING = re.compile(
    r"(?:^|[-_])(?:tensor|pipeline|data|expert)[-_]parallel|(?:^|[-_])(?:tp|pp|dp|ep)(?:[-_]size)?$|num[-_]shard|"
    r"world[-_]size|nproc|tensor[-_]split|split[-_]mode|gpus$|VISIBLE_DEVICES", re.I)


def _setting_toggled(clause: str) -> bool:
    """Does the clause set an environment variable or flag other than the GPU layout?"""
    names = [(m.group(1) or m.group(0)).lstrip("-") for m in _SETTING_TOGGLED.finditer(clause)]
    return bool(names) and not any(_LAYOUT_SETTING.search(n) for n in names)


def speedups(facts: Facts) -> list[Claim]:
    """Speed-ups the reporter measured between two layouts: data {ratio (larger layout's speed over the
    smaller's), small, large (GPU counts; None when unstated)}. A ratio hoped for ("should be 2x") or ruled
    out ("not 2x faster") is not a measurement and is left out; so is a ratio of GPUs ("2x the GPUs")."""
    out: list[Claim] = []
    engine = _engine_mentions(facts)
    for source, text in texts(facts):
        for sentence in sentences(text):
            if not _SPEED_WORDS.search(sentence):
                continue
            for m, percent in [*((m, False) for m in _RATIO.finditer(sentence)),
                               *((m, False) for m in _RATIO_NAMED.finditer(sentence)),
                               *((m, True) for m in _PERCENT_SPEED.finditer(sentence)),
                               *((m, "cjk") for m in _CJK_PERCENT.finditer(sentence))]:
                before = sentence[:m.start()]
                if _RATIO_OF_GPUS.match(sentence[m.end():]) or _RATIO_HOPED.search(before):
                    continue
                if _NEGATION.search(before[-15:]):
                    continue  # "not 2x faster": what it is not, not what it is
                if _setting_toggled(_CLAUSES.split(before)[-1]):
                    continue  # "with NCCL_P2P_DISABLE=1 it's 30% slower", "--enforce-eager makes it 2x slower": a
                    # setting's A/B on one layout, not a speed-up between GPU counts
                if _against_engine(sentence, m, engine):
                    continue  # "2 times slower than lmdeploy": another engine's speed, not another layout's
                if percent is True and m.group(3) and (
                        not _SPEED_NOUN.search(sentence[max(0, m.start() - 30):m.end()])
                        or _TIME_NOUN.search(sentence[max(0, m.start() - 30):m.end()])):
                    continue  # "latency increased by 30%", "memory use increased by 50%": not the speed that went up
                if percent == "cjk" and m.group("dir") not in ("快", "慢"):
                    said = re.split(r"[，,。；;：:、]", before)[-1]  # what went up or down, in its own clause
                    if not _CJK_SPEED_NOUN.search(said) or _CJK_TIME_NOUN.search(said):
                        continue  # "功耗降低了 40%", "利用率下降了 30%", "延迟降低了 30%": not the speed
                if percent == "cjk":
                    pct = float(m.group("n")) / 100
                    ratio = 1 - pct if m.group("dir") in ("慢", "下降", "降低") else 1 + pct
                elif percent:
                    pct = float(m.group(1) or m.group(3)) / 100
                    slower = bool(m.group(2)) and m.group(2).lower() in ("slower", "worse")
                    ratio = 1 - pct if slower else 1 + pct  # "20% slower": 0.8x; "30% faster", "by 30%": 1.3x
                else:
                    ratio = float(m.group(1) or m.group(2))
                    after = sentence[m.end():m.end() + 20]
                    if re.match(r"\s*slower\b", after, re.I) and ratio > 1:
                        ratio = 1 / ratio  # "1.5x slower with TP2": the larger layout is slower
                    elif re.match(r"\s*(?:lower|less)\b", after, re.I) and ratio > 1 and any(
                            f.start() <= m.start() < f.end() for f, _ in figure_losses(sentence)):
                        ratio = 1 / ratio  # (variant39) "the throughput is 3x lower on 4 GPUs": a loss, as
                        # figures.losses reads it; "accelerates 3.54x less than 3.8" is none (a speed-up's size)
                small, large = _span(_layout_counts(sentence))
                subject = _layout_counts(before)
                if small and large and subject and subject[-1] == small and ratio > 0 \
                        and not _BASELINE_FIRST.search(before):
                    ratio = 1 / ratio  # "1 GPU is 2x faster than TP=2": the smaller layout is the faster
                if ratio <= 0 or (small and large and small >= large):
                    continue
                out.append(Claim("speedup", source, _quote(sentence, m, 60),
                                 {"ratio": ratio, "small": small, "large": large,
                                  "rounding": _rounding(m.group("n")) / 100 if percent == "cjk"
                                  else _rounding(m.group(1) or m.group(3)) / 100 if percent
                                  else _rounding(m.group(1) or m.group(2))}))
                break
            else:
                worded = worded_speedup(sentence)
                if worded:
                    worded.source = source
                    out.append(worded)
    return out


# (issue 11 l) A speed-up said in words between two named layouts: "TP=2 gives half the speed of one GPU" (x0.5),
# "four cards are no faster than two", "TP4 and TP2 give about the same tok/s", "going from 1 to 2 GPUs barely changes
# the throughput" (x1), "twice as fast on 2 GPUs" (x2). The words name no figure beyond the ratio itself, so it is read
# to a tenth of it (the finest step people write a speed-up in, "1.1x"). Both layouts must be counted in the sentence:
# "about the same as yesterday" compares no layouts; "lower with 2 GPUs" says no ratio and is left to more_gpus_no_gain.
_SPEED_NOUNS = r"(?:speed|throughput|performance|perf|rate|tok\w*/s|t/s|tokens? per second|it/s|qps)"
_NEARLY = r"(?:about|roughly|nearly|almost|basically|essentially|pretty much|more or less|practically)"
_SPEED_AS = r"(?:the\s+|its\s+|their\s+|of\s+the\s+|of\s+)?" + _SPEED_NOUNS + r"\b"
# The multiples people say in words (figures.FACTOR_WORDS, the table figures.relative reads too) in a speed-up's
# frames: "half the speed", "a third of the throughput", "twice as fast" (the factor) and "twice as slow" (its inverse);
# then the verbs and the sameness words only a speed-up between layouts uses.
_WORDED_RATIOS = (
    *((factor, r"\b(?:" + words + r")\s+(?:" + _SPEED_AS + r"|as\s+(?:fast|quick)\b)")
      for factor, words in FACTOR_WORDS),
    *((1 / factor, r"\b(?:" + words + r")\s+as\s+slow\b") for factor, words in FACTOR_WORDS),
    (0.5, r"\b" + _SPEED_NOUNS + r"\s+(?:is\s+|was\s+|got\s+|gets\s+)?(?:roughly\s+|about\s+|almost\s+|nearly\s+)?"
          r"halved\b|\b" + _SPEED_NOUNS + r"\s+(?:is|was)\s+(?:only\s+|just\s+|about\s+|roughly\s+)?half\b"),
    # (review39s) a share of one card's rate in Chinese, as "half the speed of one GPU" above: "速度只有单卡的一半",
    # "还不到一张卡的三分之一"; the share of one card only (a share of two cards, "单卡是双卡的一半", states the gain)
    *((share, r"(?:单卡|单张卡?|一张卡|一块卡|单块卡|单\s*GPU|一个\s*GPU|1\s*张卡)\s*(?:的\s*)?(?:推理\s*)?"
              r"(?:(?:速度|性能|吞吐量?)\s*)?(?:的\s*)?" + words)
      for share, words in ((0.5, "(?:一半|1/2)"), (1 / 3, "(?:三分之一|1/3)"), (0.25, "(?:四分之一|1/4)"))),
    (2.0, r"\bdoubl(?:es|ed)\s+(?:the\s+)?" + _SPEED_NOUNS + r"\b|"
          r"\b" + _SPEED_NOUNS + r"\s+(?:is\s+|was\s+|got\s+)?(?:roughly\s+|about\s+|almost\s+|nearly\s+)?doubled\b"),
    (1.0, r"\b(?:" + _NEARLY + r"\s+)?(?:the\s+)?same\s+" + _SPEED_NOUNS + r"\b|\b" + _NEARLY + r"\s+the\s+same\b|"
          r"\b(?:(?:nearly|almost|basically|virtually|practically)\s+)?identical\b|"
          r"\b(?:no|not)\s+(?:any\s+)?(?:faster|quicker)\b|"
          r"\b(?:barely|hardly|scarcely)\s+(?:changes?|changed|moves?|moved|differs?|differed|improves?|improved)\b|"
          r"\b(?:no|zero)\s+(?:speed-?up|gain|difference|improvement)\b|\bas\s+(?:fast|slow|quick)\s+as\b"),
)
_WORDED = [(ratio, re.compile(p, re.I)) for ratio, p in _WORDED_RATIOS]
# Not the decode rate the ratio is judged against: a time to first token or a memory figure (显存, 首字/首 token).
_NOT_DECODE = re.compile(r"\b(?:TTFT|time to first token|prefill|memory|VRAM|KV[- ]?cache)\b|显存|首\s*(?:字|token)",
                         re.I)


# The other layout said without its noun, the comparison carrying it: "no faster than using 2", "nearly identical to
# that with just two"; and the TP size as a launch sets it ("tensor_parallel_size to 2": issue_md.TP).
_OTHER_LAYOUT = re.compile(r"\b(?:than|to|as)\s+(?:(?:that|those|it|the one)\s+)?(?:with|using|on|at|for)?\s*"
                           r"(?:just\s+|only\s+)?(\d{1,2}|one|two|three|four|six|eight)\b(?!\s*(?:%|x\b|×|times|"
                           r"tok|t/s|ms\b|s\b|sec|GB|MB|it/s|tokens?|requests?|users?))", re.I)


def _compared_counts(sentence: str) -> list[int]:
    """_layout_counts, with the TP size a launch names and the other layout of an elliptical comparison."""
    out = _layout_counts(sentence)
    for m in [*TP_SIZE.finditer(sentence), *_OTHER_LAYOUT.finditer(sentence)]:
        n = count_word(next(g for g in m.groups() if g))
        if n and n not in out:
            out.append(n)
    return out


def worded_speedup(sentence: str) -> Claim | None:
    """A speedup claim (data as speedups()) from words that state the ratio between two layouts the sentence counts;
    None where it counts fewer than two, is hoped for, ruled out or asked."""
    counts = _compared_counts(sentence)
    if len(counts) < 2 or _NOT_DECODE.search(sentence):
        return None
    small, large = _span(counts)
    for ratio, pattern in _WORDED:
        for m in pattern.finditer(sentence):
            before = sentence[:m.start()]
            clause = re.split(r"[,;:—–]\s*", before)[-1] + sentence[m.start():]
            # (review39s: not a ratio stated in a clause before the question that closes the sentence, "速度只有单卡的
            # 一半，这正常吗？", whose 吗 would scope the whole sentence)
            if _guessed(clause) and not stated_before_question(sentence, m.start()):
                # "would TP4 be no faster?" asks, "I think it is about the same" guesses; "why is TP4 no faster than
                return None  # TP2?" reports, and "I suspect X is flawed—TP4 is no faster" too
            if _RATIO_HOPED.search(before) or _NEGATION.search(before[-15:]) or conditional(before, when=False):
                return None  # "should be about the same", "it is not half the speed", "if TP4 were no faster"
            if _setting_toggled(_CLAUSES.split(before)[-1]):
                return None  # a setting's A/B on one layout
            said_of = re.split(r"[,;:—–]\s*|\s+(?:but|while|whereas|only)\s+", clause)
            said_of = next((c for c in said_of if m.group(0) in c), clause)
            if not re.search(r"\b" + _SPEED_NOUNS + r"\b|\b(?:fast|faster|quick|quicker|slow|slower|speed-?up)\b|"
                             r"速度|性能|吞吐|[快慢]", said_of, re.I):
                return None  # "the output is almost the same, but slower": the same what is not the speed
            subject = _compared_counts(before)
            if ratio != 1.0 and subject and subject[-1] == small and not _BASELINE_FIRST.search(before):
                ratio = 1 / ratio  # "1 GPU is twice as fast as TP=2": the smaller layout is the faster
            return Claim("speedup", "", _quote(sentence, m, 60),
                         {"ratio": ratio, "small": small, "large": large, "rounding": 0.1 * ratio, "worded": True})
    return None


def _loss_measured(sentence: str, m: re.Match | None) -> bool:
    """Is the loss `m` said what the reporter measured, not hoped for ("should not be 50x slower"), ruled out ("it is
    not ten times slower", "... was ruled out"), guessed or asked ("is it 50x slower?") or a condition ("if it were
    50x slower")?"""
    before = sentence[:m.start()] if m else ""
    return not (_RATIO_HOPED.search(before) or _NEGATION.search(before[-15:]) or _guessed(sentence)
                or (m and negated_words(sentence, m)) or conditional(re.split(r"[,;:]\s", before)[-1], when=False))


# The loss's other side is another engine: "about 2 times slower than lmdeploy", "3x slower compared to vLLM on the
# same GPUs". That compares software, not layouts, so no GPU count bounds it. The engine may also name the other
# layout's run: "than the same vLLM server on 4 GPUs", "than the vLLM TP=2 baseline", "than with vllm's TP=2 run", or
# simply the engine the ticket runs: those compare layouts (_against_engine).
_AGAINST_ENGINE = re.compile(r"\s*(?:(?:slower|faster|quicker|better|worse)\s+)?"
                             r"(?:than|compared (?:to|with)|vs\.?|versus|against)\s+(?P<words>(?:\w+\s+){0,2}?)"
                             + ENGINE_WORD.pattern, re.I)
_RELEASE_NEXT = re.compile(r"\s*(?:(?:==|@|version)\s*)?v?\d+\.\d", re.I)


def _engine_mentions(facts: Facts) -> Counter:
    """How often the ticket names each engine (offload.engine_family): in the reporter's words and pasted output, and as
    the framework a file other than the issue's prose states (ticket.toml, a launch line, a benchmark's backend)."""
    said = [n.text for n in facts.of(Note) if n.kind in (*_TEXT_KINDS, OUTPUT_KIND) and n.text]
    said += [w.framework for w in facts.of(Workload) if w.framework and ".md" not in w.source]
    return Counter(engine_family(e.group(1)) for text in said for e in ENGINE_WORD.finditer(text))


def _against_engine(sentence: str, m: re.Match | None, named: Counter | None = None) -> bool:
    """Is the other side of the loss `m` another engine ("2 times slower than lmdeploy")? Not where that engine is one
    the ticket runs (`named` elsewhere in it: _engine_mentions) and no other is the subject, "same" or a possessive ties
    it to this run ("the same vLLM server", "vllm's TP=2 run"), or the rest of the sentence counts a layout the part
    before it does not ("TP=8 ... than vLLM on 4 GPUs")."""
    a = m and _AGAINST_ENGINE.match(sentence, m.end())
    if not a:
        return False
    rest = sentence[a.end():]
    if re.search(r"\bsame\b", a.group("words"), re.I) or re.match(r"['’]s\b", rest):
        return False
    other = engine_family(a.group(2))  # (group 1 is the words before the name)
    here = Counter(engine_family(e.group(1)) for e in ENGINE_WORD.finditer(sentence))
    subjects = {engine_family(e.group(1)) for e in ENGINE_WORD.finditer(sentence[:m.start()])}
    if (named or Counter())[other] > here[other] and not subjects - {other} and not _RELEASE_NEXT.match(rest):
        return False  # the ticket's own engine against itself, no other release of it: another layout or setting
    before = set(_layout_counts(sentence[:m.start()])) | {count_word(next(g for g in t.groups() if g))
                                                          for t in TP_SIZE.finditer(sentence[:m.start()])}
    after = set(_layout_counts(rest)) | {count_word(next(g for g in t.groups() if g)) for t in TP_SIZE.finditer(rest)}
    return not (after - before)


# (hostbound36) A loss said of one stage the host runs, or of a constraint on the output, is not a loss between layouts:
# "my sample time for creating an object is an order of magnitude slower" on two A40s (Maximilian-Winter/
# llama-cpp-agent#36: llama.cpp's sampler, 78 against 0.7 ms a token), "10x slower when using a JSON schema". The
# stage named before the figure, or the constraint anywhere in the sentence (constrained_slow's words).
_HOST_STAGE = re.compile(r"\b(?:sampl(?:e|ing)\s+(?:time|step|speed)|sampling|sampler|(?:de)?tokeni[sz](?:ation|er)|"
                         r"pre-?processing|post-?processing|(?:model\s+)?load(?:ing)?\s+time|start-?up\s+time)\b|"
                         # (hostbound37) weights moved to the host, or the work run there: "from 10 seconds to 40
                         # minutes, which leads me to believe that instead of CPU offloading, it actually just uses
                         # the CPU" on a 10-GPU box (huggingface/diffusers#1047)
                         r"\bCPU[-_ ]offload\w*|"
                         r"\boffload\w*\s+(?:\w+\s+){0,2}?to\s+(?:the\s+)?(?:CPU|host|system\s+RAM)\b|"
                         # (the CPU doing the work, not its load: "uses the CPU at 100 %" is a figure)
                         r"\b(?:uses?|using|runs?\s+on|running\s+on)\s+(?:only\s+)?(?:the\s+)?CPU\b"
                         r"(?!\s*(?:at\b|usage|load|utili|cores?\b|\d))", re.I)


def _host_stage_loss(sentence: str) -> bool:
    """Is the loss in `sentence` said of a host stage or of a constrained output, not of the run (_HOST_STAGE)?"""
    return bool(_HOST_STAGE.search(sentence) or re.search(_CONSTRAINED, sentence, re.I))


def stated_losses(facts: Facts, host_stage: bool = False) -> list[Claim]:
    """Slowdowns the reporter measured: a speed-up below one (speedups) and the losses figures.losses reads ("fifty
    times slower", "from 40 tok/s to 1 tok/s", "10 minutes instead of 10 seconds"), data {factor (how many times as
    long the slower run takes), small, large (the GPU counts the sentence names; None when unstated)}. Hoped for,
    ruled out, guessed or conditional ones are no measurement (_loss_measured). Those said of a host stage
    (_host_stage_loss) are no loss between layouts and are left out; host_stage=True returns only them."""
    out = []
    engine = _engine_mentions(facts)
    for c in speedups(facts):
        said = figure_losses(c.quote)
        if 0 < c.data["ratio"] < 1 and _loss_measured(c.quote, said[0][0] if said else None) \
                and _host_stage_loss(c.quote) == host_stage:
            out.append(Claim("loss", c.source, c.quote, {"factor": 1 / c.data["ratio"], "small": c.data["small"],
                                                         "large": c.data["large"]}))
    for source, text in texts(facts):
        for sentence in sentences(text):
            for m, factor in figure_losses(sentence):
                if not _loss_measured(sentence, m) or _against_engine(sentence, m, engine) \
                        or _host_stage_loss(sentence) != host_stage:
                    continue  # "should not be 50x slower", "it is not ten times slower", "if it were 50x slower",
                    # "2 times slower than lmdeploy" (another engine, not another layout), "the sample time is an
                    # order of magnitude slower" (one host stage, not the run between layouts)
                if any(c.source == source and abs(c.data["factor"] - factor) <= 0.01 * factor for c in out):
                    continue  # the speed-up read it already
                small, large = _span(_layout_counts(sentence))
                out.append(Claim("loss", source, _quote(sentence, m, 60),
                                 {"factor": factor, "small": small, "large": large}))
    return out


def _rounding(written: str) -> float:
    """Half a unit of the last digit written: "~1.0x" is anywhere from 0.95 to 1.05, "1.02x" from 1.015 to 1.025."""
    decimals = len(written.partition(".")[2])
    return 0.5 * 10 ** -decimals


def scaling_efficiencies(facts: Facts) -> list[Claim]:
    """Scaling efficiencies the reporter states ("scaling efficiency is only 60 %"), as the speed-up they
    imply: data {percent, small, large}. A hoped-for efficiency is left out."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _EFFICIENCY.search(sentence)
            if not m or _RATIO_HOPED.search(sentence[:m.start()]):
                continue
            percent = float(next(g for g in m.groups() if g))
            if not 0 < percent <= 100:
                continue
            small, large = _span(_layout_counts(sentence))
            out.append(Claim("scaling_efficiency", source, _quote(sentence, m, 60),
                             {"percent": percent, "small": small, "large": large}))
    return out


# --------------------------------------------------------------------------- NCCL algorithms set side by side

# NCCL's all-reduce algorithms by the names its documentation and logs use (NCCL_ALGO: Ring, Tree, CollNet,
# NVLS, NVLSTree, PAT; SHARP is the network offload CollNet drives), "NVLS + Tree" as people write NVLSTree.
_ALGO = re.compile(r"\b(nvls\s*(?:\+|and|/)?\s*tree|nvlstree|nvls|collnet\w*|sharp|ring|tree|pat)\b", re.I)
_ALGO_CONTEXT = re.compile(r"\b(?:NCCL\w*|all[-_ ]?reduce\w*|busbw|bus ?bandwidth|algbw|all_reduce_perf)\b", re.I)
_COMPARING = re.compile(r"\b(?:better|faster|slower|higher|lower|than|vs\.?|versus|compared?\w*|similar|superior\w*|"
                        r"instead|outperform\w*|beats?|over|differ\w*)\b", re.I)


def algorithms_compared(facts: Facts) -> list[Claim]:
    """Sentences that set two NCCL algorithms against each other ("Tree has better bandwidth than Ring",
    "why NVLS + Tree instead of just Tree?"): data {algorithms (canonical names, in order)}. Only where the
    text is about NCCL or its collectives, so a "ring" or "tree" of another kind is not read."""
    out: list[Claim] = []
    for source, text in texts(facts):
        if not _ALGO_CONTEXT.search(text):
            continue
        for sentence in sentences(text):
            names = []
            for m in _ALGO.finditer(sentence):
                name = re.sub(r"\s*(?:\+|and|/)?\s*", "", m.group(1).lower())
                name = "collnet" if name.startswith("collnet") else name
                if name not in names:
                    names.append(name)
            figures = re.findall(r"\d+(?:\.\d+)?\s*(?:GB/s|Gb/s|GBps|us|ms)\b", sentence)
            if len(names) >= 2 and (_COMPARING.search(sentence) or len(figures) >= 2):
                out.append(Claim("algorithms_compared", source, one_line(sentence)[:200], {"algorithms": names}))
    return out


# ------------------------------------------------------------------- layouts that grow without the speed following

# The layout grows: more GPUs, tensor or pipeline parallelism, sharding, a second card, as people write them
# (the symptom's _MORE_GPUS, and "adding GPUs", "split across the GPUs", "pipeline parallel"); CJK as written.
_LAYOUT_GROWS = re.compile(
    _MORE_GPUS + r"|\b(?:add(?:s|ed|ing)?|more|multiple|several|extra|additional)\s+(?:\w+\s+)?(?:GPUs?|cards?)\b|"
    r"\b(?:split|spread|shard|distribut)\w*\s+(?:\w+\s+){0,3}?(?:across|over|between|onto|on)\s+(?:\w+\s+){0,2}?"
    r"(?:GPUs?|cards?|devices?)\b|"
    r"\bpipeline[-_ ]parallel\w*|\bPP\s*=?\s*\d\b|"
    # ("2个卡", two cards counted with the general classifier 个: https://github.com/DeepLink-org/dlinfer/issues/109)
    r"多卡|多GPU|多个GPU|多张|张卡|\d+\s*个?\s*[张块卡]|[两双四八]\s*个?\s*[张块卡]|张量并行|流水线并行|"
    r"(?:开启|开|使用|用)\s*tp\b", re.I)
# ... and the speed does not follow: the symptom's _NO_GAIN, the verbs of no effect ("won't affect the token
# generation", "did not increase the speed", "makes no difference"), and their CJK forms.
_NO_EFFECT = re.compile(
    _NO_GAIN + r"|\b(?:won'?t|wont|will not|doesn'?t|does not|didn'?t|did not|don'?t|do not|can'?t|cannot|not)\s+"
    r"(?:\w+\s+)?(?:affect|change|improve|increase|help|speed\s*up|accelerate|boost|raise)\b|"
    r"\bno\s+(?:\w+\s+)?(?:increase|change|effect|impact)\s+(?:in|on|to)\b|\bmakes? no difference\b|"
    # ("2个卡速度慢了将近一倍", two cards got slower by nearly half: https://github.com/DeepLink-org/dlinfer/issues/109)
    r"没有(?:速度)?提升|无提升|没有加速|没有变快|(?:更|变|反而|还)慢|慢了|比[^，。,.]{0,20}?慢|速度(?:没有|无)(?:变化|提升)|"
    r"(?:速度|吞吐)[^，。,.]{0,10}?一样|"
    # "速度和我用单卡跑的差不多" (about the same as one card), "还没有单卡的快" / "不如单卡快" (not even as fast as one)
    r"(?:速度|吞吐)[^，。,.]{0,12}?(?:差不多|相当|相近|持平)|"
    r"(?:还|并|都)?没有[^，。,.？?]{0,10}?快|不如[^，。,.？?]{0,10}?快|"
    # (s20) a gain called too small to count, as _NO_GAIN's "no significant improvement" in Chinese: "吞吐量提升不明显"
    # (discuss.vllm.ai/t/vllm/2096), "qps和吞吐没有很大区别" (InternLM/lmdeploy#2429)
    r"(?:提升|提高|增长|加速|改善|变化|区别|差别|差异)(?:效果)?(?:不明显|不大|有限|很小|甚微)|"
    r"没(?:有)?(?:什么|很大|太大|明显)的?(?:提升|提高|区别|差别|差异|变化|加速)|"
    # (ut29e) the total said to hold where it was: "if you deploy the model to two gpus, The total throughput is
    # similar" (triton-inference-server/server#269), "from 1 V100 to 2/4/8 V100 ... the throughtput stays around ~2500
    # infer/sec" (triton-inference-server/server#239, the reporter's spelling)
    # (review46) "around/about/at" a figure only with a verb of holding: "the throughput is about 200, which is logical"
    # on two cards against one card's 100 (triton-inference-server/server#6825) states a figure that doubled
    r"\b(?:total|overall|aggregate)?\s*(?:through(?:t)?put|speed|performance|QPS|rate)\s+"
    r"(?:(?:is|was|stays?|stayed|remains?|remained)\s+(?:(?:very|quite|roughly|about|almost|still)\s+)?"
    r"(?:similar|the\s+same|unchanged|flat)|(?:stays?|stayed|remains?|remained)\s+(?:(?:roughly|still)\s+)?"
    r"(?:around|about|at))\b", re.I)
# What the speed is of: a rate, generation or decode, latency. A memory figure ("KV cache usage is lower with
# more GPUs", "VRAM per card drops") is capacity spread over more cards, not a speed that failed to follow.
_MEMORY_ONLY = re.compile(r"\b(?:memory|VRAM|KV[- ]?cache|cache usage|GiB|MiB)\b|显存|内存", re.I)
_SPEED_TOPIC = re.compile(r"\b(?:speed\w*|fast\w*|quick\w*|slow\w*|throughput|tok\w*/s|t/s|tokens?|latency|"
                          r"generat\w*|decod\w*|performance|perf|time|seconds?|it/s|qps|through(?:t)?put|"
                          r"infer(?:ence)?s?/s(?:ec)?|req(?:uest)?s?/s(?:ec)?)\b|"
                          r"速度|吞吐|延迟|慢|快|加速", re.I)


def about_memory(text: str) -> bool:
    """Is a statement about memory or cache use, with no word of speed in it?"""
    return bool(_MEMORY_ONLY.search(text)) and not _SPEED_TOPIC.search(text)


# (ut27e) The GPUs the reporter owns, named as the rig ("I have two 3090 graphics cards"), before a run called slow in
# the plain degree ("Running Llama 3.1 70B Instruct Q4 is slow, is this normal?", janhq/jan#3955, whose cause was layers
# left on the CPU): no layout grew and no speed failed to follow it. A slowness that compares ("slower", "slowed down")
# or a card added ("I added a second 3090 and it's slow") still counts.
_RIG_OWNED = re.compile(r"\b(?:I|we)\s*(?:have|'ve|'ve got|have got|own|got|bought)\s+(?:got\s+)?(?:a\s+|an\s+)?$",
                        re.I)


def more_gpus_no_gain(facts: Facts) -> list[Claim]:
    """Sentences where the layout grows and the speed does not follow ("why adding GPUs won't affect the token
    generation", "with tp=2 there is no speed-up, even slower"): the reporter's statement of a scaling
    question, whatever the figures. Ruled out ("it is not slower") or about memory, it does not count."""
    out: list[Claim] = []
    for source, text in texts(facts):
        in_order = sentences(spaced(text))
        for i, sentence in enumerate(in_order):
            grows = _LAYOUT_GROWS.search(sentence)
            effect = _NO_EFFECT.search(sentence) if grows else None
            if not effect or not _SPEED_TOPIC.search(sentence):
                continue  # "the more GPUs, the lower this indicator": a figure that is no speed
            if _one_gpu_named(sentence, _LAYOUT_GROWS.pattern, in_order[i - 1] if i else ""):
                continue  # (audit48c) "as I only have 1 GPU ... the slow inference", "an single 3090 GPU": none grew
            if not re.match(r"(?:\bnot|\bno\b|\bn't|没|无)", effect.group(0), re.I) and \
                    _NEGATION.search(sentence[max(0, effect.start() - 30):effect.start()]):
                continue  # "it is not slower": the reporter rules it out
            if len(set(nccl_versions(sentence))) >= 2:
                continue  # "nccl v2.7.6 slow down 30% than nccl v2.5.7 ... on 8*v100": two releases on the same GPUs
            if _RIG_OWNED.search(sentence[max(0, grows.start() - 20):grows.start()]) and \
                    re.fullmatch(r"slow(?:ly|ness)?", effect.group(0), re.I):
                continue  # the rig described, then a run called slow: no layout grew (_RIG_OWNED)
            out.append(Claim("more_gpus_no_gain", source, _quote(sentence, effect, 60)))
        if not out:
            out += _systems_alike(source, text)
    return out


# (ut26a) Two systems of different GPU counts named first, then their speed said to be alike by pointing back at them:
# "I installed localGPT on two systems, one with 4xA100 GPU and the other with 8xH100 GPU. The test results show that
# the response time of the two systems is almost the same" (PromtEngineer/localGPT#696). Not "both GPUs are at the
# same clock" (no speed), nor two systems of one count ("two nodes of 8 GPUs each ... both are the same").
_BOTH_SYSTEMS = re.compile(r"\b(?:the\s+two|both(?:\s+(?:of\s+)?the)?)\s+(?:\w+\s+)?(?:systems?|setups?|machines?|"
                           r"environments?|servers?|nodes?|boxes|configurations?|configs?|clusters?|rigs?)\b", re.I)
# (review29) also the time taken said alike: "The training epoch takes the same time on both setups" after a node of
# 8 GPUs and one of 2 (facebookresearch/detr#257)
_SAME_SPEED = re.compile(r"\b(?:is|are|was|were|remains?|stays?|looks?|seems?|takes?|took)\s+(?:\w+\s+){0,2}?"
                         r"(?:the\s+)?(?:same|identical|similar|equal|comparable)\b", re.I)
# (review29) two counts sharing one noun: "the time it takes for an epoch is almost the same with 1 or 2 GPUs"
# (facebookresearch/XLM#324), which _counted reads as the one count before the noun
_SHARED_NOUN_COUNTS = re.compile(r"\b(\d{1,2})\s*(?:or|and|vs\.?|versus)\s*(?=\d{1,2}\s*(?:GPUs?|cards?|devices?)\b)",
                                 re.I)


def _systems_alike(source: str, text: str) -> list[Claim]:
    """more_gpus_no_gain's claim where a speed is said alike (_SAME_SPEED) of two GPU counts: named in the sentences
    before and pointed back at ("the two systems"), or named in the sentence itself ("the performance of 4 Gpus is
    similar to that of 2 Gpus", vllm-project/vllm#1954; "when using 8 GPUs, the throughput ... is similar to that of
    4 GPUs", huggingface/transformers-bloom-inference#59)."""
    for sentence in sentences(spaced(text)):
        for alike in _SAME_SPEED.finditer(sentence):
            if _NEGATION.search(sentence[max(0, alike.start() - 20):alike.end()]):
                continue
            before = spaced(text)[:spaced(text).find(sentence)]
            if _BOTH_SYSTEMS.search(sentence) and _SPEED_TOPIC.search(sentence) and len(set(_counted(before))) >= 2:
                return [Claim("more_gpus_no_gain", source, _quote(sentence, alike, 60))]
            # in one sentence, the speed must be what is alike: "the performance of 4 Gpus is similar", not "using 1
            # GPU is consuming the same" memory after a speed that doubled (CMU-Perceptual-Computing-Lab/openpose#1466)
            lead = sentence[max(0, alike.start() - 60):alike.end()]
            counts = set(_counted(sentence)) | {int(n) for n in _SHARED_NOUN_COUNTS.findall(sentence)}
            if len(counts) >= 2 and _SPEED_TOPIC.search(lead) and \
                    not _MEMORY_ONLY.search(lead + sentence[alike.end():alike.end() + 30]):
                return [Claim("more_gpus_no_gain", source, _quote(sentence, alike, 60))]
    return []



# (issue 11 l) Where the trouble starts, by GPU count: "fine up to 6 GPUs, slow with 7 or 8", "only at 3 or more
# GPUs", "anything with GPU > 2 runs into issues" (https://github.com/BlackSamorez/tensor_parallel/issues/98), "the
# benefit stops beyond two", "~1.9x on 2x 1080 Ti, but slows the server down if you use 4x"
# (https://github.com/bigscience-workshop/petals/issues/203). The count where it changes is evidence: a ring that
# grows past one PCIe switch, NUMA node or NVLink island runs at the pace of the new, slower link. Data {fine_upto,
# bad_from} (either may be None); the counts are GPUs in use.
_N = r"(\d{1,2}|" + words_pattern(ENGLISH_COUNT_WORDS) + ")"
_UNITS = r"(?:\s*(?:x\s*)?(?:GPUs?|cards?|ranks?|devices?|nodes?)\b)"
_TROUBLE = (r"(?:slow\w*|drops?|dropp\w+|degrad\w*|worse|falls?|fell|hangs?|hung|fails?|failed|crash\w*|collaps\w*|"
            r"errors?|issues?|problems?|stops?\s+(?:scaling|helping|improving)|no\s+(?:gain|speed-?up|benefit)|"
            r"not\s+(?:scal\w*|faster)|stops?(?=\s+(?:beyond|after|past|above)\b))")
_TROUBLED = re.compile(r"\b" + _TROUBLE + r"\b", re.I)
# The troubles that are failures, not a pace: a hang, crash or error where the ring takes a farther path is a fault of
# that path (P2P over the socket link, ACS, IOMMU), not the slower link's figure (data "fails").
_FAILING = re.compile(r"\b(?:hangs?|hung|crash\w*|errors?|"
                      r"fail(?:s|ed)?(?!\s+to\s+(?:scale|speed|improve|help|gain)))\b", re.I)
_COUNT_SCOPE = (
    # fine up to N ... trouble (with M): fine_upto N; bad_from the first larger count after it
    ("upto", r"\b(?:fine|ok|okay|good|normal|well|works?|worked|working|scal\w+|as expected|no (?:problems?|issues?))\b"
             r"[^.\n]{0,30}?\b(?:up to|until|through|for up to|with up to|<=|≤)\s*" + _N + _UNITS + r"?"
             r"(?=[^.\n]{0,80}?\b" + _TROUBLE + r")"),
    # only at N or more: bad_from N
    ("from", r"\b(?:only|just)\s+(?:\w+\s+){0,3}?(?:with|at|on|using|from|for|once)\s+(?:we\s+(?:use|reach)\s+)?" + _N
             + r"\s*(?:\+|or more|or above|and (?:more|above|up))" + _UNITS + r"?"),
    ("beyond", r"\b(?:only|just)\s+(?:\w+\s+){0,3}?(?:with|at|on|using|from|for|once)\s+(?:more than|over|above)\s+"
               + _N + _UNITS),
    # trouble beyond N / with more than N / GPUs > N: bad_from N + 1
    ("beyond", r"\b" + _TROUBLE + r"\b[^.\n]{0,40}?\b(?:beyond|above|past|over|more than|after|>)\s*" + _N
               + r"(?:" + _UNITS + r"|\s*$|\s*[.,;)])"),
    # ("the number of GPUs is more than 1": uber-research/UPSNet#63, gunrock/gunrock#876)
    ("beyond", r"\b(?:GPUs?|cards?|ranks?)\s*(?:(?:is|are)\s+)?(?:>|more than|greater than)\s*" + _N
               + r"\b(?=[^.\n]{0,60}?\b" + _TROUBLE + r")"),
    ("beyond", r"\b(?:more than|over|above|beyond)\s+" + _N + _UNITS + r"(?=[^.\n]{0,60}?\b" + _TROUBLE + r")"),
)
_COUNT_SCOPES = [(how, re.compile(p, re.I)) for how, p in _COUNT_SCOPE]
_LARGER = re.compile(r"\b(?:with|at|on|using|for|from|to)\s+(?:all\s+)?" + _N + r"(?:\s*(?:or|and|/|-)\s*" + _N + r")?"
                     + _UNITS + r"?(?!\s*(?:%|x\b|tok|t/s|ms|s\b|GB|MB|users?|requests?))|" + r"\b" + _N + _UNITS, re.I)


def count_scope(facts: Facts) -> list[Claim]:
    """The GPU count where the reporter says the trouble starts (data {fine_upto, bad_from}); a guess or a question
    is flagged, a ruled-out one ("no slowdown up to 8 GPUs") dropped; data "fails" where the trouble is a hang, crash
    or error (_FAILING) rather than a pace."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            trouble = _TROUBLED.search(sentence)
            # "fine up to 8 GPUs, no slowdown at all": no threshold; the two-counts contrast is still tried
            troubled = trouble and not _NEGATION.search(sentence[max(0, trouble.start() - 15):trouble.start()])
            for how, pattern in _COUNT_SCOPES if troubled else ():
                m = pattern.search(sentence)
                if not m or _negated("", sentence, m):
                    continue
                n = count_word(m.group(1))
                if not n:
                    continue
                fine, bad = (n, None) if how == "upto" else (None, n) if how == "from" else (n, n + 1)
                if how == "upto":
                    later = [c for x in _LARGER.finditer(sentence, m.end())
                             for c in (count_word(g) for g in x.groups() if g) if c and c > n]
                    bad = min(later, default=None)
                out.append(Claim("count_scope", source, _quote(sentence, m, 60),
                                 {"fine_upto": fine, "bad_from": bad, "fails": bool(_FAILING.search(sentence))},
                                 guess=offered(sentence, m.start()) or (conditional(sentence[:m.start()])
                                                                        and not _outcome_seen(sentence, m.end()))))
                break
            else:
                pair = _counts_contrasted(sentence)
                if pair:
                    pair.source = source
                    out.append(pair)
    return out


# What follows a count's condition, when it says what was seen: "when the number of GPUs more than 4, it always hangs"
# (gunrock/gunrock#876), "If I use more than 9 GPUs, nccl hangs in init": the failure's scope, observed. Not an outcome
# expected, guessed or asked ("..., it might hang", "..., maybe it hangs", "..., would it hang?").
_EXPECTED = re.compile(r"\b(?:would|could|might|may|should|can|will|shall|must)\b|'(?:ll|d)\b", re.I)


def _outcome_seen(sentence: str, end: int) -> bool:
    """Does the main clause after a condition ending near `end` (its first comma or semicolon on, else the rest) report
    the trouble as seen: a trouble word (_TROUBLED) with no modal, guess word or question before it?"""
    joint = re.search(r"[,;]", sentence[end:])
    main = sentence[end + joint.end():] if joint else sentence[end:]
    trouble = _TROUBLED.search(main)
    return bool(trouble) and not asked(sentence) and not _EXPECTED.search(main[:trouble.start()]) \
        and not _GUESS.search(main[:trouble.end()])


# Two counts set against each other: "~1.9x on 2x 1080 Ti, but it slows down with 4x", "with 2 GPUs it is fine, but
# with 4 GPUs the throughput halves": the good clause's count is fine_upto, the troubled clause's larger one bad_from.
# ((?<!\s): its blanks start at the first of their run, so a search is not quadratic in a long run of them)
_COUNTS_CONTRAST = re.compile(r"[,;]?(?<!\s)\s+(?:but|while|whereas|however|yet)\b|;\s*", re.I)
_GOOD = re.compile(r"\b(?:fine|ok|okay|good|normal|works?|worked|well|speed-?ups?|faster|scales?|scaling|"
                   r"as expected)\b", re.I)
_COUNTED = re.compile(r"\b" + _N + r"\s*(?:x\s*)?(?:GPUs?|cards?|ranks?|devices?)\b|"
                      r"(?<![\d.])(\d{1,2})\s*[x×]\s*(?=\d{3,4}\b|[A-Za-z]{1,4}\s?\d{2,4})|" + GLUED_COUNT, re.I)


def _counted(text: str) -> list[int]:
    """The GPU counts a clause names, in order."""
    return [n for m in _COUNTED.finditer(text) for n in (count_word(g) for g in m.groups() if g) if n]


def _counts_contrasted(sentence: str) -> Claim | None:
    parts = _COUNTS_CONTRAST.split(sentence, maxsplit=1)
    if len(parts) != 2:
        return None
    good, bad = parts
    trouble = _TROUBLED.search(bad)
    if not _GOOD.search(good) or not trouble or _TROUBLED.search(good) or \
            _NEGATION.search(bad[max(0, trouble.start() - 15):trouble.start()]):
        return None
    low, high = _counted(good), _counted(bad)
    if not low or not high or max(high) <= max(low):
        return None
    at = len(sentence) - len(bad) + trouble.start()  # the trouble's place in the sentence: its clause decides
    return Claim("count_scope", "", _quote(sentence, trouble, 80),
                 {"fine_upto": max(low), "bad_from": min(n for n in high if n > max(low)),
                  "fails": bool(_FAILING.search(bad))}, guess=_guessed(sentence, at))

# What a question asks of the speed: the effect of the matter at hand ("the performance impact", "a speed penalty",
# "how fast", "how much slower"), which may refer back to a layout named in its paragraph or the title; or a
# comparison of layouts in the sentence itself ("would two GPUs be faster than one?", "is it faster with 4 cards?").
# "Tree is faster than ring on two nodes" compares algorithms, not layouts.
_SPEED_EFFECT = (r"\b(?:performance|speed|latency|throughput)\s+(?:impact|penalty|hit|cost|difference|gain|loss|change|"
                 r"drop)s?\b|\bhow (?:fast|slow|quick)\b|\bhow much (?:faster|slower|quicker|speed\w*)\b|"
                 # (ut26a) the matter at hand said to help the speed, by a pronoun that points back to it: "Is there a
                 # way to load it only on a single GPU? Can it improve performance?" (facebookresearch/ParlAI#2844);
                 # not "would a newer driver improve performance?", which names another matter
                 r"\b(?:it|this|that)\s+(?:\w+\s+)?(?:improve|increase|boost|help)\s+(?:the\s+)?(?:overall\s+)?"
                 r"(?:performance|speed|throughput|latency|response time)\b|"
                 # (review29) the cards pointed back at as the means: "I have two GPU's (p100 & v100) Is it possible to
                 # run Wan2GP using both of them to increase speed?" (deepbeepmeep/Wan2GP#375)
                 r"\b(?:both|all)\s+(?:of\s+)?(?:them|the\s+GPUs|GPUs|the\s+cards|cards)\s+to\s+(?:increase|improve|boost)"
                 r"\s+(?:the\s+)?(?:overall\s+)?(?:performance|speed|throughput)\b")
_SPEED_EFFECT_ASKED = re.compile(_SPEED_EFFECT, re.I)
# (ut26a) the time asked to shrink: "Can it take less time if I use 2* A100（80G）gpu?" (defog-ai/sqlcoder#37)
# (review29) or asked to be reduced: "Can multi-GPU inference reduce recommendation time?" (yjsunnn/DLoRAL#24)
_SPEED_CHANGE = (r"\b(?:faster|slower|quicker|speed\s*(?:it\s+)?up|speed-?up|less time|"
                 r"(?:shorter|lower) (?:time|latency)|reduc(?:e|es|ed|ing)\s+(?:the\s+)?(?:\w+\s+)?(?:time|latency))\b")
# a count of GPUs, also as "2x A100 GPUs" and "2* A100（80G）gpu" (a model and its memory in brackets before the noun);
# a figure glued to its unit ("80GB GPU") is no count
# (review29) and the layout named as an adjective: "multi-GPU inference" (yjsunnn/DLoRAL#24)
_GPUS_NAMED = (r"(?:(?:\d+(?:\s*[*x×]\s*|\s+)|(?:two|three|four|six|eight|multiple|several|more|a second|another)\s+)"
               r"(?:[\w-]+\s*(?:[(（][^)）\n]{1,12}[)）]\s*)?)?(?:GPUs?|cards?|devices?)\b|\bmulti-?GPU\b)")
_LAYOUTS_COMPARED = re.compile(
    _SPEED_CHANGE + r"[^.?\n]{0,30}?\b(?:than\s+(?:on\s+|with\s+)?(?:a\s+single|a|one|1|single)\s+"
    r"(?:GPU|card|device)\b|(?:with|on|using|use|across|over)\s+(?:the\s+)?" + _GPUS_NAMED + r")|"
    r"\b" + _GPUS_NAMED + r"[^.?\n]{0,40}?" + _SPEED_CHANGE, re.I)


# (ut26c) Several boards set against one that holds the model, each named by its memory or model rather than the noun
# alone: "Is 2x V100 16GB Faster Than One 32GB Card?" (knightli.com, 2026-05), "would 2x RTX 3090 be faster than a
# single A100 GPU?". Several counted before the speed word, one after "than": the layouts compared. Not two boards one
# against the other ("is the 4090 faster than one 3090 card?": no count of several).
_SEVERAL_BOARDS = re.compile(r"(?:\b(?:[2-9]|1[0-6])\s*[x×*]\s*|\b(?:two|dual|three|four|eight|multiple|several)\s+)"
                             r"(?=(?:[A-Za-z]+\s+)?[\w-]*\d)", re.I)
_THAN_ONE_BOARD = re.compile(_SPEED_CHANGE + r"[^.?\n]{0,30}?\bthan\s+(?:on\s+|with\s+)?"
                             r"(?:a\s+single|one|1|single|a)\s+(?:[\w-]+\s+){1,3}?(?:GPU|card|device|board)\b", re.I)


def _boards_compared(sentence: str) -> re.Match | None:
    """Several boards counted before the speed word, one after "than" (_SEVERAL_BOARDS, _THAN_ONE_BOARD)."""
    m = _THAN_ONE_BOARD.search(sentence)
    return m if m and _SEVERAL_BOARDS.search(sentence, 0, m.start()) else None


# (para38b) The speed effect named as a purpose, why someone chose a layout: "for latency gains from the extra
# parallelism?", "is it because of the performance gain?" asks the motive, not what a layout would do to the speed.
_FOR_THE_GAIN = re.compile(r"\b(?:for|because of|due to)\s+(?:the\s+|any\s+|its\s+)?$", re.I)


def layout_speed_asked(facts: Facts) -> list[Claim]:
    """A question about what a larger layout does to the speed, asked before or instead of measuring it ("would
    multiple GPUs be faster than a single GPU?", "can anyone confirm the performance impact?" under a title about
    splitting the model over two cards): the scaling question in its prospective form. A question about an effect
    takes its layout from its paragraph or the title, a comparison names the layouts itself; a speed question ruled
    out ("I don't mind it being slower") does not count, nor does a statement without a question (a suggestion
    someone else made)."""
    out: list[Claim] = []
    for source, text in texts(facts):
        first = text.lstrip().split("\n", 1)[0]
        title = first if first.startswith("#") and _LAYOUT_GROWS.search(first) else ""
        for paragraph in re.split(r"\n\s*\n", text):
            effect = bool(title or _LAYOUT_GROWS.search(paragraph))
            for sentence in sentences(paragraph):
                m = None if not _ASKS.search(sentence) else \
                    (effect and _SPEED_EFFECT_ASKED.search(sentence)) or _LAYOUTS_COMPARED.search(sentence) \
                    or _boards_compared(sentence)
                at = m.start() + re.search(_SPEED_CHANGE + "|" + _SPEED_EFFECT, m.group(0), re.I).start() \
                    if m else 0  # where the speed word starts: "2 GPUs, I don't care if it gets slower" rules it out
                if m and not _NEGATION.search(sentence[max(0, at - 30):at]) \
                        and not _FOR_THE_GAIN.search(sentence[max(0, at - 20):at]):
                    out.append(Claim("layout_speed_asked", source, _quote(sentence, m, 60)))
    return out


# One model sharded over several GPUs set against copies of it on fewer GPUs each (data parallelism, replicas,
# separate instances, "less sharding"), the copies faster.
# (pairs36) a copy is also named by what it is on its own: "2x Solo" (two one-node engines behind a proxy, against
# "Cluster TP=2" on the same two nodes: forums.developer.nvidia.com t/364926), "two solo instances", "two independent
# vLLM engines"; "solo" alone is the one-GPU arm of a scaling set, not a copy, and is not read.
_SOLO_COPIES = (r"\b(?:[2-9]|two|three|four|eight)\s*[x×*]\s*solo\b|"
                r"\b(?:[2-9]|two|three|four|eight|separate|independent)\s+solo\s+(?:instances|engines|servers|nodes|copies)\b")
_FEWER_SHARDS = (r"(?:\b(?:less|no|fewer|without|smaller)\s+(?:\w+\s+)?(?:shard\w*|tensor[-_ ]parallel\w*|TP)\b|"
                 r"\bdata[-_ ]parallel\w*|\bDP\s*=?\s*\d*\b|\breplicas?\b|" + _SOLO_COPIES + "|"
                 r"\b(?:separate|independent|multiple|several|\d+)\s+(?:\w+\s+)?(?:instances|servers|copies|engines|"
                 r"deployments)\b)")
_SHARDED = r"(?:\btensor[-_ ]parallel\w*|\bTP\s*=?\s*\d*\b|\bshard\w*)"
_BETTER = r"(?:\bbetter\b|\bfaster\b|\bhigher\b|\bmore (?:throughput|tok\w*)|\boutperform\w*|\bbeats?\b|\bwins?\b)"
_WORSE = r"(?:\bworse\b|\bslower\b|\blower\b|\bless (?:throughput|tok\w*))"
_REPLICAS_WIN = re.compile(
    _BETTER + r"(?:(?!\bthan\b)[^.\n]){0,60}?" + _FEWER_SHARDS + "|" + _FEWER_SHARDS + r"[^.\n]{0,60}?" + _BETTER + "|"
    + _SHARDED + r"[^.\n]{0,60}?" + _WORSE + r"[^.\n]{0,30}?\bthan\b[^.\n]{0,30}?" + _FEWER_SHARDS, re.I)


def replicas_beat_sharding(facts: Facts) -> list[Claim]:
    """Sentences where copies of a model on fewer GPUs each (data parallelism, replicas, "less sharding") beat
    one model sharded over more ("data parallel is faster than TP", "better with less sharding"). A
    comparison ruled out ("not better with replicas") does not count, nor one where the sharded model is the one
    that wins ("TP beats data parallel": sharding_beats_replicas)."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _REPLICAS_WIN.search(sentence)
            if not m or _NEGATION.search(sentence[max(0, m.start() - 30):m.start()]) or _sharding_win(sentence) \
                    or _LAYOUT_HOPED.search(sentence, 0, m.end()):
                continue
            out.append(Claim("replicas_beat_sharding", source, _quote(sentence, m, 60)))
    return out


# (pairs36) The other outcome of the same pair: one tensor-parallel group ahead of copies of the model on the same GPUs
# ("Why does Cluster TP=2 beat 2x Solo ... at low/mid concurrency?", forums.developer.nvidia.com t/364926; "TP is faster
# than data parallel"; "two replicas are slower than one TP=2 instance"). Physics too: a decode step reads every weight,
# so one request on a TP group has every GPU's memory bandwidth, while a copy serves each request on its own GPUs and
# pays off only once every copy has a full batch (vLLM's parallelism guide: TP "if the model is too large for a single
# GPU" or for latency; data parallelism for throughput, docs.vllm.ai serving/data_parallel_deployment; SGLang's server
# arguments: "Data parallelism is better for throughput if there is enough memory").
_SHARDING_WIN = re.compile(
    _SHARDED + r"(?:(?!" + _FEWER_SHARDS + r")[^.\n]){0,60}?" + _BETTER + r"[^.\n]{0,40}?" + _FEWER_SHARDS + "|"
    + _FEWER_SHARDS + r"(?:(?!" + _SHARDED + r")[^.\n]){0,60}?" + _WORSE + r"[^.\n]{0,30}?\bthan\b[^.\n]{0,30}?"
    + _SHARDED, re.I)


# What the reporter expected or hoped, not what they measured: "My expectation: 2xSolo behind a proxy should always
# produce higher total throughput than cluster TP=2" (t/364926, the sentence before the measured opposite).
_LAYOUT_HOPED = re.compile(r"\b(?:should|would|expect\w*|supposed to|hop(?:e|ed|ing)|assum\w*|thought)\b", re.I)


def _sharding_win(sentence: str) -> re.Match | None:
    """The sentence's sharded-model-wins comparison (_SHARDING_WIN), unless ruled out before its speed word ("TP is
    not faster than DP") or only expected ("TP should be faster than DP")."""
    m = _SHARDING_WIN.search(sentence)
    if m is None:
        return None
    word = re.search(_BETTER + "|" + _WORSE, m.group(0), re.I)
    at = m.start() + (word.start() if word else 0)
    return None if _NEGATION.search(sentence[max(0, m.start() - 30):at]) or _LAYOUT_HOPED.search(sentence, 0, at) \
        else m


# (review36b) The load the sentence says the sharded model won at, when it is high: "high concurrency", "heavy load",
# or a count of concurrent requests of at least HIGH_CONCURRENCY. There the copies each fill a batch and should win
# throughput; the sharded model winning is no longer the low-load physics. HIGH_CONCURRENCY is a policy line, not a
# measured one: forums.developer.nvidia.com t/364926 saw two copies pull ahead of TP=2 at 64 concurrent requests.
HIGH_CONCURRENCY = 64
_HIGH_LOAD = re.compile(r"\b(?:high|heavy|large|full|peak|max(?:imum)?)\s+(?:concurrency|load|traffic)\b|"
                        r"(?<![\w.])(\d{1,5})\s+(?:concurrent|parallel|simultaneous)\b|"
                        r"\b(?:concurrency|max[-_]concurrency)\s*(?:of\s+|=\s*|:\s*)?(\d{1,5})\b|\bc(\d{2,5})\b", re.I)


def _high_load(sentence: str) -> bool:
    """Does the sentence place its comparison at high load (_HIGH_LOAD)?"""
    for m in _HIGH_LOAD.finditer(sentence):
        count = next((g for g in m.groups() if g), None)
        if count is None or int(count) >= HIGH_CONCURRENCY:
            return True
    return False


def _concurrency(sentence: str) -> int | None:
    """The largest count of concurrent requests the sentence states (_HIGH_LOAD's counts), or None."""
    counts = [int(g) for m in _HIGH_LOAD.finditer(sentence) for g in m.groups() if g]
    return max(counts, default=None)


def sharding_beats_replicas(facts: Facts) -> list[Claim]:
    """Sentences where one model sharded by tensor parallelism beats copies of it on the same GPUs (data
    parallelism, replicas, separate or "solo" instances): the pair's other outcome, by design at low concurrency.
    data["high_load"]: the sentence says the win came at high load (_high_load), where the copies should win;
    data["concurrency"]: the count of concurrent requests it states, if any."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _sharding_win(sentence)
            if m:
                out.append(Claim("sharding_beats_replicas", source, _quote(sentence, m, 60),
                                 {"high_load": _high_load(sentence), "concurrency": _concurrency(sentence)}))
    return out


# The two ways to serve one model on several GPUs, as people name them when they ask which to pick: copies of it
# (replicas, data parallelism, DDP, separate instances or services, one per GPU) or one
# model sharded across the GPUs (tensor parallelism, one instance over all of them). vLLM's parallelism guide
# (https://docs.vllm.ai/en/latest/serving/parallelism_scaling/: "if the model fits on a single GPU, distributed
# inference is probably unnecessary"; tensor parallelism "if the model is too large for a single GPU") answers:
# shard only as far as the model needs; beyond that, replicas add throughput without the per-layer all-reduce.
_COPIES = (_FEWER_SHARDS + r"|\bDDP\b|"
           r"\b(?:two|three|four|eight|multiple|several|separate|independent|\d+)\s+(?:\w+\s+){0,2}?"
           r"(?:instances|servers|services|deployments)\b|"
           r"\b(?:one|a|an|single|separate)\s+(?:\w+\s+){0,2}?(?:instance|server|service|process|engine|copy|replica)\s+"
           r"(?:\w+\s+)?(?:on|per|for)\s+(?:each|every|one|a single)\s+(?:GPU|card|device)\b")
_ONE_SHARDED = (_SHARDED + r"|--tensor[-_]parallel[-_]size")
# one instance set against the copies stands for the sharded layout only where the ticket has several GPUs
_ONE_INSTANCE = r"\b(?:a|one|single)\s+(?:\w+\s+){0,2}?(?:instance|server|service)\b(?!\s+(?:on|per|for)\s+each)"
_CHOICE = re.compile(r"\b(?:which|better|best|recommend\w*|prefer\w*|advantages?|benefits?|pros and cons|trade-?offs?|"
                     r"should (?:I|we)|vs\.?|versus)\b|\bor\b", re.I)


def _named(pattern: str, text: str) -> bool:
    """Does `text` name what `pattern` matches somewhere without ruling it out just before ("no replicas")?"""
    return any(not _NEGATION.search(text[max(0, m.start() - 30):m.start()]) for m in re.finditer(pattern, text, re.I))


def layout_choice_asked(facts: Facts) -> list[Claim]:
    """A question asking which of the two layouts to serve a model with on several GPUs: copies of it (replicas,
    data parallelism, one instance per GPU) or one model sharded by tensor parallelism ("two instances or TP=2,
    which is better?", "why use TP when the model fits one GPU, wouldn't DDP be better?"). Both layouts named in
    the question's paragraph (or the title) and not ruled out ("no replicas", "not TP"); a statement of what
    someone runs, with no question, does not count. data {tp_named}: False where one instance stands for the sharded
    layout, which it is only on several GPUs (the rule checks the count)."""
    out: list[Claim] = []
    for source, text in texts(facts):
        first = text.lstrip().split("\n", 1)[0]
        title = first if first.startswith("#") else ""
        for paragraph in re.split(r"\n\s*\n", text):
            scope = title + "\n" + paragraph
            tp_named = _named(_ONE_SHARDED, scope)
            if not (_named(_COPIES, scope) and (tp_named or _named(_ONE_INSTANCE, scope))):
                continue
            for sentence in sentences(paragraph):
                m = _CHOICE.search(sentence) if _ASKS.search(sentence) else None
                if m:
                    out.append(Claim("layout_choice_asked", source, _quote(sentence, m, 80), {"tp_named": tp_named}))
                    break
    return out


# ------------------------------------------------------------------- what the serving phases and the batch trade

# Prompt processing (prefill: every prompt token in one step, compute-bound) against generation (decode: one token
# per step per sequence, memory-bound), as engines and llama.cpp name the two: "prompt eval" / "eval", pp512 /
# tg128, input / output tokens per second.
_PREFILL_WORDS = re.compile(r"\b(?:prefill\w*|prompt[- ](?:processing|eval\w*|tokens?/s|throughput|speed|phase)|"
                            r"prompts?\s+(?:\w+\s+)?(?:processed|processing|encoded)|"
                            r"pp\d{2,5}|input (?:tokens?/s|throughput|token throughput|speed)|"
                            r"(?:process|encod)\w*\s+(?:of\s+)?(?:the\s+|my\s+|a\s+)?prompts?)\b|预填充|首字", re.I)
_DECODE_WORDS = re.compile(r"\b(?:decod\w*|generat\w*|tg\d{2,5}|output (?:tokens?/s|throughput|token throughput|speed)|"
                           r"eval rate|token generation)\b|解码|生成", re.I)
_PHASE_CONTRAST = re.compile(r"\b(?:but|while|whereas|than|vs\.?|versus|compared?\w*|only|much|far|why|differ\w*|"
                             r"fast(?:er)?|slow(?:er)?|higher|lower)\b|只有|但是|为什么", re.I)


# (ut28b) What a PCIe link carries most of besides decode: the prompt (prefill), the weights as they load, and a
# model or KV cache spilled to host memory. Said anywhere in the ticket, the link's width may bear on the complaint.
_LINK_HEAVY = re.compile(r"\b(?:load(?:s|ed|ing)?\s+(?:the\s+|a\s+|my\s+)?(?:model|weights)|model\s+load\w*|"
                         r"(?:model|weights)\s+(?:are|is|get|gets|got|were|was)\s+loaded|"
                         r"load(?:s|ed|ing)?\s+(?:in)?to\s+(?:the\s+)?(?:GPUs?|VRAM)|"
                         r"(?:cpu|ram|host)[- ]offload\w*|offload\w*\s+(?:\w+\s+)?to\s+(?:the\s+)?(?:cpu|ram|host)|"
                         r"TTFT|time to first token|first token|"
                         # (review36) the load time as complained of: "high load duration" (Ollama's
                         # load_duration, ollama/ollama#9311), "It takes 45 seconds to load" (#1637); a printed
                         # "load time = 11896 ms" is none. A long prompt by its size: "with Large Code Snippets"
                         # (ollama/ollama-python#302)
                         r"(?:high|long|slow)\s+load(?:ing)?[_ ](?:duration|time)s?|"
                         r"tak(?:es?|ing|en)\s+[^.\n]{0,25}?\bto\s+load|"
                         r"(?:long|large|big|huge)\s+(?:\w+\s+)?(?:prompts?|inputs?|code snippets?|documents?)"
                         r")\b", re.I)


# (ut28b) llama.cpp's tensor splits by their option, however written: "-sm row", "--split-mode tensor",
# `split_mode = "row"` (Ollama's and llama-cpp-python's setting, ollama/ollama#2191); ik_llama.cpp's "graph".
# (review36) ... and the row split in words: "split by rows like the original behavior" (oobabooga/textgen#5435),
# "row split mode outputs gibberish" (ggml-org/llama.cpp#16680), "tensor/row split" (anthony-chaudhary/fak#3075),
# koboldcpp's "rowsplit". "--tensor-split 35,37,28" / "-ts 7,12,12,12" are how much of the model each GPU holds: none.
_TENSOR_SPLIT = re.compile(r"(?:--split[-_]mode|\bsplit[-_ ]mode|(?<![\w-])-sm)\b\W{0,4}(?:row|tensor|graph)\b|"
                           r"\brow[- ]?split\w*|\bsplit(?:s|ting)?\s+(?:by\s+|into\s+)?rows\b|"
                           r"\bLLAMA_SPLIT(?:_MODE)?_(?:ROW|TENSOR)\b", re.I)


def tensor_split_said(facts: Facts) -> bool:
    """Do the ticket's words name one of llama.cpp's tensor splits (row, tensor, graph), run or compared with the
    layer split, or tensor parallelism itself, stated and not asked ("--enable_tp ... tensor parallelism with
    exllamav2", oobabooga/textgen#6356: a layer-split engine's name beside it)? Its all-reduce crosses the GPUs'
    link every layer."""
    return any(_TENSOR_SPLIT.search(t) for _, t in texts(facts)) or \
        any(not c.guess for c in find(facts, "tp_asked"))


def link_heavy_phase(*quotes: str) -> bool:
    """Do these words (the complaint's, the link's) speak of prompt processing, model loading, host offload or time to
    first token, the phases in which a GPU's PCIe link carries large transfers (as opposed to a layer split's decode,
    which hands one hidden-state vector per token from GPU to GPU)? A TTFT column in a pasted table beside the decode
    rate is not the complaint (tests/data/ut26c/aifred_rtx8000_p40.md)."""
    return any(_PREFILL_WORDS.search(q) or _LINK_HEAVY.search(q) for q in quotes if q)


# A phase word that names a length ("prefill_length, decode length 32, 64, 128", mit-han-lab/llm-awq#79; "prefill_len",
# "decode tokens: 256") is a workload's parameter, not the phase's speed.
_PHASE_LENGTH = re.compile(r"(?:[_ -]?(?:length|len|lens|size|steps)\b|\s+tokens?\s*[:=]?\s*\d)", re.I)


def _phase_named(words: re.Pattern, sentence: str) -> bool:
    """Does the sentence name the phase itself, not a length of it?"""
    return any(not (re.search(r"_(?:length|len|lens|size|steps)$", m.group(0), re.I)
                    or _PHASE_LENGTH.match(sentence, m.end())) for m in words.finditer(sentence))


def phases_compared(facts: Facts) -> list[Claim]:
    """Sentences that set prompt processing against generation ("the prompt runs at 3000 tok/s but generation at
    40 tok/s", "why is prefill so much faster than decode?"): a contrast the two phases make by design."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(spaced(text)):
            pre, dec = _phase_named(_PREFILL_WORDS, sentence), _phase_named(_DECODE_WORDS, sentence)
            rates = re.findall(r"\d\s*(?:tok\w*/s|t/s|tokens?/s|tokens per second)", sentence, re.I)
            if pre and dec and (_PHASE_CONTRAST.search(sentence) or len(rates) >= 2):
                out.append(Claim("phases_compared", source, one_line(sentence)[:200], _phase_rates(sentence)))
    return out


_PHASE_RATE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:tok\w*/s|t/s|tokens?/s|tokens per second)", re.I)


def _phase_rates(sentence: str) -> dict:
    """{"prefill": rate, "decode": rate} as the sentence states them, each rate under the phase words nearest before it
    ("prompt eval rate: 11.8 tokens/s ... eval rate: 6.1 tokens/s"); {} unless both are stated."""
    pre = [(m.start(), m.end(), "prefill") for m in _PREFILL_WORDS.finditer(sentence)]
    dec = [(m.start(), m.end(), "decode") for m in _DECODE_WORDS.finditer(sentence)
           if not any(a <= m.start() < b for a, b, _ in pre)]  # "eval rate" inside "prompt eval rate" is prefill's
    words = sorted(pre + dec)
    out: dict = {}
    for m in _PHASE_RATE.finditer(sentence):
        before = [w for w in words if w[1] <= m.start()]
        if before:
            out.setdefault(before[-1][2], float(m.group(1)))
    return out if len(out) == 2 else {}


# More sequences per step (a bigger batch, more concurrent requests) against each one's own speed: the step
# carries more tokens and takes longer, so the total rises while each request slows (continuous batching).
_MORE_IN_FLIGHT = re.compile(r"\b(?:(?:increas\w*|rais\w*|larger|bigger|higher|more)\s+(?:the\s+)?"
                             r"(?:batch(?:[- ]size)?|concurren\w*|parallel requests|requests|users|sequences|"
                             r"max[-_ ]num[-_ ]seqs)|"
                             r"(?:batch(?:[- ]size)?|concurrency)\s+(?:of\s+|=\s*|goes up|grows|increases)|"
                             r"\d+\s+(?:concurrent|parallel|simultaneous)\s+(?:requests|users|streams|sequences))\b",
                             re.I)
_EACH_SLOWER = re.compile(r"\b(?:per[- ](?:request|user|sequence|stream)|each (?:request|user|sequence|stream)|"
                          r"single[- ](?:request|user|stream)|latency|ITL|TPOT|TTFT|time per (?:output )?token)\b"
                          r"[^.\n]{0,60}?\b(?:slow\w*|drops?|dropp\w*|decreas\w*|falls?|lower|worse|increas\w*|higher|"
                          r"longer|go(?:es)? up|rises?)\b|"
                          r"\b(?:slow\w*|drops?|decreas\w*|lower|worse)\b[^.\n]{0,40}?\b(?:per[- ](?:request|user)|"
                          r"each (?:request|user)|latency)\b", re.I)


# (physics41) The same in Chinese: more in flight as a count of concurrent requests, instances or processes that
# grows ("并发数增加", "随着进程数的增加", "实例数量增加"), a time tied to that count ("耗时跟并发的数量正比上升"),
# or several of them at once ("多个并发", "4 实例", "多个triton instance"); each one slower as a time that rises
# (_TIME_ROSE_ZH) or a speed that falls ("速度变慢"). The threads: PaddlePaddle/Paddle#74043 and
# PaddlePaddle/PaddleX#4668 (read; the maintainer of the second: instances on one card contend, "导致耗时上升"),
# PaddlePaddle/PaddleOCR#9124 ("随着进程数的增加时间也会增加": a bare 时间, not read), qi-hua/async_cosyvoice#63
# (the verb before the noun, "增加合成的总时长": not read). Processes that share one GPU take turns on it (CUDA's MPS
# overview: without MPS, work from different processes is time-sliced); requests in one engine share its steps
# (vLLM's optimization guide): either way each one waits longer as more run. Cards (卡, GPU) are not in flight: more
# of them is scaling, not this. (s41review) Several means more than one: not "1 个实例", nor a card's name ("A100 实例")
# or an ordinal ("第二个实例"); and a time tied to the count is not one said to be unrelated to it ("跟并发无关").
_MORE_IN_FLIGHT_ZH = re.compile(
    r"(?:并发|进程|实例|请求|instances?)[\s的]{0,3}(?:数|数量|个数|数目)?[\s的]{0,3}"
    r"(?:增加|增大|增多|变多|上升|提高|翻倍|越多|越大)|"
    r"(?:随着|跟|与)\s{0,2}[^\s，,。；]{0,4}?(?:并发|进程数|实例数|请求数)(?![^\s，,。；]{0,4}?(?:无关|没有?关系|不相关))|"
    r"(?<![A-Za-z0-9_.第])(?:(?!0*1(?!\d))\d+|[两二三四五六七八九十]|多)\s{0,2}个?\s{0,2}"
    r"(?:并发|实例|(?:triton\s{1,3})?instances?)", re.I)
_EACH_SLOWER_ZH = re.compile(_TIME_ROSE_ZH + r"|(?:速度|吞吐量?)(?:(?!" + _ZH_NEGATION + r")[^\n，,。；;]){0,10}?"
                             r"(?:变慢|越慢)")
# (s41review) ... and a negation just before the time or speed rules it out as the English _slowdown_denied does:
# "并发数增加不会导致耗时增加", "并没有让延迟上升" (a negation, an auxiliary, a verb of causing).
_ZH_SLOWDOWN_DENIED = re.compile(r"(?:没有|没|不(?![断停同])|未|并非)\s?(?:会|能)?\s?(?:导致|使得?|让|造成|引起)?\s?$")


def batch_tradeoff(facts: Facts) -> list[Claim]:
    """Sentences where more requests in flight make each one slower ("with 32 concurrent requests each request gets
    slower", "tokens/s per request drops as I raise the batch size", "耗时随着并发数增加而显著增加"): the batch's trade
    of latency for total throughput. Ruled out ("latency does not increase", "耗时没有增加") it does not count."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            more = _MORE_IN_FLIGHT.search(sentence)
            slower = _EACH_SLOWER.search(sentence) if more else None
            if not slower and _MORE_IN_FLIGHT_ZH.search(sentence):
                slower = _EACH_SLOWER_ZH.search(sentence)  # a negation inside ruled out by the forms' shape
                if slower and _ZH_SLOWDOWN_DENIED.search(sentence[max(0, slower.start() - 8):slower.start()]):
                    continue  # "不会导致耗时增加": ruled out before it
            elif slower and _slowdown_denied(sentence, slower):
                continue  # "the latency does not increase": ruled out
            if not slower:
                continue
            out.append(Claim("batch_tradeoff", source, _quote(sentence, slower, 60)))
    return out


def _slowdown_denied(sentence: str, m: re.Match) -> bool:
    """Is the slowdown `m` of `sentence` ruled out: a negation just before it ("it is not slower") or inside it ("the
    latency does not increase")?"""
    return bool(_NEGATION.search(sentence[max(0, m.start() - 30):m.start()])
                or re.search(r"\b(?:not|never|no)\b|n't\b", m.group(0), re.I))


# A longer prompt or context against the time it takes: prefill runs every prompt token through the model (compute
# grows with the prompt, attention with its square) and each decode step reads the whole KV cache, so the first token
# and then every token take longer as the prompt and the context grow (vLLM's optimization guide; NVIDIA's "Mastering
# LLM Techniques: Inference Optimization").
_LONGER_INPUT = re.compile(
    r"\b(?:long(?:er)?|bigger|larger)\s+(?:prompts?|inputs?|contexts?|conversations?|histor(?:y|ies)|"
    r"(?:input|prompt|context) tokens)\b|"
    r"\b(?:prompts?|inputs?|contexts?|conversations?)(?:[- ]lengths?)?\s+"
    r"(?:grows?|gets? longer|increases?|is longer)\b|"
    r"\bas the (?:context|conversation|prompt|input|chat)\b[^.\n]{0,20}?\b(?:grows|gets longer|increases|fills)\b|"
    r"\b\d+(?:\.\d+)?\s*[kK][- ]?(?:tokens?)?[- ](?:long\s+)?(?:prompts?|contexts?|inputs?)\b|"
    r"\bwith (?:the )?(?:prompt|input|context) (?:length|size)\b|"
    r"(?:输入|上下文|提示词|prompt)\S{0,4}越长", re.I)
# (a time goes up, a rate goes down: "TTFT drops for longer prompts" with a prefix cache is no cost)
_TAKES_LONGER = re.compile(
    r"\b(?:TTFT|time to first token|first token|latency|ITL|TPOT)\b[^.\n]{0,60}?\b(?:slow\w*|increas\w*|grows?|"
    r"higher|longer(?!\s+(?:prompts?|inputs?|contexts?|conversations?))|go(?:es)? up|rises?|from\s+~?\d)|"
    r"\b(?:prefill|decod\w*|generation|tok\w*/s|speed|throughput)\b[^.\n]{0,60}?\b(?:slow\w*|drops?|dropp\w*|"
    r"decreas\w*|declin\w*|lower|falls?|from\s+~?\d)|"
    r"\b(?:slow\w*|longer|increas\w*)\b[^.\n]{0,40}?\b(?:TTFT|first token|latency)\b|"
    r"\bslow\w*\b[^.\n]{0,40}?\b(?:prefill|decod\w*|generation)\b|"
    r"越慢|首字(?:延迟)?\S{0,4}(?:越|变)(?:长|慢)|延迟\S{0,4}(?:越|变)(?:长|高)|"
    # (physdoc33) the first token's wait said as a level, not a change: "TTFT is very high", "the time to first token
    # is 4 seconds", "it takes some time until it starts to generate"; tied to a longer input in the same sentence
    r"\b(?:TTFT|time (?:to|before|until) (?:the )?first token|first[- ]token(?: latency| time)?)\b[^.\n]{0,40}?"
    r"(?:\b(?:is|are|was|were|of|takes?|took|around|about)\s+(?:(?:very|so|too|really|extremely|quite)\s+)?"
    r"(?:high|long|slow)\b|\b\d+(?:\.\d+)?\s*(?:s|secs?|seconds?|minutes?|mins?)\b)|"
    r"\btakes?\s+(?:some|a (?:long|lot of)|much|too much|ages|forever)\s*(?:time)?\s+(?:until|before|to)\b"
    r"[^.\n]{0,30}?\b(?:start\w*|first token|generat\w*|respond\w*|answer\w*|output\w*)", re.I)


# The length tied to the change: "with longer inputs", "when we send 16k-token prompts", "for long contexts", "at 100k
# context".
_LENGTH_TIED = re.compile(r"\b(?:with|as|when|for|once|if|on|at)\b[^.,;\n]{0,20}$", re.I)


def length_tradeoff(facts: Facts) -> list[Claim]:
    """Sentences where a longer prompt or context makes the first token or each token slower ("TTFT grows with the
    prompt length", "decode gets slower as the conversation gets longer", "输入越长首字越慢"): what prefill and the
    KV cache cost by design. Ruled out ("TTFT does not grow with longer prompts") it does not count."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(spaced(text)):
            longer, slower = _LONGER_INPUT.search(sentence), _TAKES_LONGER.search(sentence)
            if longer and not (_LENGTH_TIED.search(sentence[:longer.start()]) or
                               longer.group(0).lower().startswith(("as ", "with ")) or "越" in longer.group(0)):
                continue  # "our longer prompts are fine, but decode drops after the update": the length is no cause
            if not (longer and slower) or _slowdown_denied(sentence, slower):
                continue
            out.append(Claim("length_tradeoff", source, _quote(sentence, slower, 60)))
    return out


# A bigger model against a smaller one on the same hardware: decode reads every weight once per generated token, so the
# time per token grows with the weights' bytes, and prefill's FLOPs with the parameter count (NVIDIA, "Mastering LLM
# Techniques: Inference Optimization"). Sizes as checkpoints name them ("70B", "7b", "1.8B"); a Mixtral-style "8x7B"
# names an expert, not the model's size, and is not read.
_PARAMS = r"(?<![\w.])(\d+(?:\.\d+)?)\s?[bB]\b"
_SO_MUCH = r"(?:much |a lot |far |way |significantly |considerably |\d+(?:\.\d+)?\s?[x×] )?"


def _size_than(word: str) -> re.Pattern:
    """'<size> ... [much] <word> than ... <size>' in one sentence."""
    return re.compile(_PARAMS + r"[^.\n]{0,60}?\b" + _SO_MUCH + word + r"\b[^.\n]{0,20}?\bthan\b[^.\n]{0,30}?"
                      + _PARAMS, re.I)


_SIZE_SLOWER, _SIZE_FASTER = _size_than("slower"), _size_than("faster")
_SIZE_SLOWER_ZH = re.compile(_PARAMS + r"[^。\n]{0,20}?比[^。\n]{0,10}?" + _PARAMS + r"[^。\n]{0,10}?慢", re.I)
_BIGGER_SLOWER = re.compile(r"\b(?:bigger|larger)\s+(?:models?|LLMs?|checkpoints?)\b[^.\n]{0,60}?"
                            r"\b(?:(?:are|is|run|runs|get|gets)\s+)?" + _SO_MUCH + r"slower\b", re.I)
# How much larger the slower model must be for the weights to explain it: a few percent apart (Llama-2 70B against
# Llama-1 65B, meta-llama/llama#471) is within what GQA, kernels and layout change.
SIZE_RATIO = 1.5


def size_tradeoff(facts: Facts) -> list[Claim]:
    """Sentences where the bigger of two models is the slower one ("the 70B model is much slower than the 7B", "bigger
    models run slower"): each token reads every weight, so this is what a memory-bound decode does. The smaller model
    slower ("1.8b模型推理速度比7b慢", QwenLM/Qwen#906) is no such trade, nor sizes within SIZE_RATIO of each other; a
    comparison ruled out ("the 70B is not slower than the 7B") does not count."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _SIZE_SLOWER.search(sentence) or _SIZE_SLOWER_ZH.search(sentence)
            slow, fast = (float(m.group(1)), float(m.group(2))) if m else (None, None)
            if m is None and (m := _SIZE_FASTER.search(sentence)):
                fast, slow = float(m.group(1)), float(m.group(2))
            if m is None and (m := _BIGGER_SLOWER.search(sentence)):
                slow, fast = SIZE_RATIO, 1.0
            if m is None or slow < SIZE_RATIO * fast or _slowdown_denied(sentence, m):
                continue
            out.append(Claim("size_tradeoff", source, _quote(sentence, m, 60)))
    return out


# (faq31) A feature or setting an engine documents as a trade-off (rules/catalog/serving_tradeoffs.toml), said with the
# cost the docs give it: speculative decoding slower at high load, chunked prefill raising running requests' ITL, the
# first request slow while CUDA graphs are captured. Where a row names no cost of its own, these generic words of a
# slowdown stand in: slower, throughput or speed down, latency up, no speed-up, an overhead.
_TRADEOFF_COST = re.compile(
    r"\b(?:slow\w*|lower (?:throughput|speed|performance|tok\w*/s|tokens per second|t/s)|"
    r"(?:throughput|tok\w*/s|tokens per second|t/s|speed|performance|QPS)\b[^.\n]{0,40}?\b(?:drops?|dropp\w*|dropped|"
    r"decreas\w*|lower|falls?|fell|worse|degrad\w*|reduc\w*|halv\w*|go(?:es)? down|went down)|"
    r"(?:latency|ITL|TPOT|TTFT|time to first token|time per (?:output )?token)\b[^.\n]{0,40}?\b(?:increas\w*|higher|"
    r"grows?|worse|jumps?|spikes?|goes up|rises?|doubl\w*|climb\w*|"
    r"(?:is|are|gets?) (?:very |really |so )?(?:high|bad|poor|terrible|awful))|"
    r"(?:higher|worse|increased) (?:latency|ITL|TPOT|TTFT)|"
    r"no (?:speed-?up|improvement|gain|benefit)|(?:not|isn't|aren't|no) (?:any )?faster|overhead|"
    r"takes? (?:far |much |a lot )?longer|(?:several|many|\d+(?:\.\d+)?)\s?(?:x|times) (?:slower|longer)|"
    r"(?:twice|three times|(?:several|many|\d+(?:\.\d+)?)\s?(?:x|times)) as (?:long|slow)|"
    r"(?:\d+(?:\.\d+)?\s?[x×]|(?:several|many|\d+) times) the (?:latency|time))\b", re.I)
# A cost that carries its own "no" ("no speed-up", "doesn't help") is the complaint, not a denial of it.
_NEGATIVE_COST = re.compile(r"^(?:no|not|isn't|aren't|does ?n[o']t|did ?n[o']t|do ?n[o']t|won't)\b", re.I)


def documented_tradeoffs(facts: Facts) -> list[Claim]:
    """Sentences that name a feature an engine documents as a trade-off and, in the same sentence, the cost its docs
    give it ("speculative decoding is slower at 64 concurrent requests", "the first request takes 40 s"), or the
    feature in the sentence before or after: data
    {"tradeoff": catalog.ServingTradeoff}. A cost ruled out ("EAGLE is not slower") does not count; one claim a row."""
    from rules.catalog import serving_tradeoffs

    out: list[Claim] = []
    for source, text in texts(facts):
        said = sentences(text)
        for i, sentence in enumerate(said):
            for row in serving_tradeoffs():
                named = [(s, m) for s in said[max(0, i - 1):i + 2] for m in row.feature.finditer(s)]
                if any(c.data["tradeoff"].id == row.id for c in out) or not named or \
                        all(negated_words(s, m) for s, m in named):
                    continue  # the feature named in this sentence or one next to it ("I set max-num-seqs to 16.
                    # Beyond 16 clients the throughput stops rising."), and not ruled out ("LoRA is not the cause")
                cost = (row.cost or _TRADEOFF_COST).search(sentence)
                if row.unless is not None and any(row.unless.search(s) for s in said[max(0, i - 1):i + 2]):
                    continue  # said beside it: the cost is not this trade's (review33)
                if cost is None or (not _NEGATIVE_COST.match(cost.group(0)) and
                                    _NEGATION.search(sentence[max(0, cost.start() - 30):cost.start()])):
                    continue
                out.append(Claim("documented_tradeoff", source, _quote(sentence, cost, 60), {"tradeoff": row}))
    return out


# (faq31) Another engine named as the faster one ("however, vllm lora serving is faster", "lmdeploy runs it 2x
# quicker", "TGI does better on the same GPU"): the same work done faster elsewhere is that engine's implementation
# against this one's, not a cost the feature carries by design. A sentence that sets the feature off against on ("vLLM
# is faster without speculative decoding") is the trade itself and does not count.
_ENGINE_FASTER = re.compile(r"\b(?:faster|quicker|better|outperform\w*)\b", re.I)
_FEATURE_OFF = re.compile(r"\b(?:without|disabled?|turned off|switched off|off)\b", re.I)


def engine_faster(facts: Facts) -> Claim | None:
    """The first sentence that names an engine as faster or better, with no feature switched off in it."""
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _ENGINE_FASTER.search(sentence)
            if m and ENGINE_WORD.search(sentence) and not _FEATURE_OFF.search(sentence) and \
                    not _NEGATION.search(sentence[max(0, m.start() - 30):m.start()]):
                return Claim("engine_faster", source, _quote(sentence, m, 60))
    return None


# ------------------------------------------------------------------- a process held at one core

# The serving process never above 100 % CPU (top counts one core as 100 %), or said to use one core only: one
# Python thread, which the GIL keeps on one core whatever the machine has (Python's threading documentation).
_CPU_CEILING = re.compile(
    r"\b(?:CPU|process)\b[^.\n%]{0,50}?\b(?:can ?not|can't|never|won't|doesn't|does not|will not|not)\s+"
    r"(?:\w+\s+){0,2}?(?:exceed\w*|go(?:es)? (?:above|over|beyond|past)|get (?:above|over)|rise above|pass\w*)\s+"
    r"100\s*%|"
    r"\b(?:only|just)\s+(?:uses?|using|use)\s+(?:one|1|a single)\s+(?:CPU\s+)?(?:core|thread|CPU)\b|"
    # (review25) "only one thread is busy" (tensorflow/tensorflow#34906's title)
    # (review26) and the verb left out: "when CPU offloading there is only one core used" (oobabooga/textgen#168)
    r"\bonly\s+(?:one|1|a single)\s+(?:CPU\s+)?(?:core|thread)\s+(?:(?:is|was|being)\s+)?"
    r"(?:busy|used|utili[sz]ed|working|active|running)\b|"
    # (review25) "stuck at 100%" said of the CPU, a process, thread or core: not of a deployment's progress ("stuck at
    # 100% - nothing in log files", gpustack/gpustack#3859's title)
    r"\b(?:CPU|process|thread|core)\b[^.\n%]{0,40}?\b(?:stuck|capped|limited|pinned)\s+(?:at|to)\s+100\s*%|"
    r"\b(?:stuck|capped|limited|pinned)\s+(?:at|to)\s+one (?:CPU )?core|"
    r"CPU\s*(?:使用率?|占用|利用率)?\s*(?:无法|不能|不会|没有|从不)\s*超过\s*100\s*%|只(?:使用|用)了?\s*(?:一个|1\s*个|单个)\s*(?:cpu|CPU|核)|"
    # (review25) a process held at one core, not single-core as a setting compared or a CPU's rating: "单核推理比多核快"
    # (alibaba/MNN#515), "单核性能"
    r"单核(?![^，。,.!?！？\n]{0,8}?比)(?!\s*(?:性能|频率|主频|跑分))|"
    # ... and in Japanese and Korean: "CPU使用率が100%を超えることがありません", "1コアしか使わない",
    # "CPU 사용률이 100%를 넘지 않습니다", "코어 하나만 사용"
    r"CPU\s*(?:使用率|利用率)?\s*(?:が|は)?\s*100\s*%\s*(?:を|より)?\s*(?:超え|上回)(?:ることが(?:ありません|ない)|ない|ません)|"
    r"(?:1|一|ひとつ)\s*(?:つの\s*)?(?:コア|スレッド)\s*しか\s*(?:使[わいえっ]|利用)|"
    r"CPU\s*(?:사용률|사용량|점유율)?\s*(?:이|가|은|는)?\s*100\s*%\s*(?:를|을)?\s*(?:넘지|초과하지)\s*(?:않|못)|"
    r"(?:코어|스레드)\s*(?:하나|1\s*개)만\s*(?:사용|써|쓰)|"
    r"(?:1|한)\s*(?:개\s*)?(?:코어|스레드)만\s*(?:사용|써|쓰)", re.I)


def cpu_ceiling(facts: Facts) -> list[Claim]:
    """The reporter sees a process held at one core ("CPU usage never goes above 100 %", "it only uses one
    core"): data {}. Said of the GPU utilisation ("GPU never above 100 %") it is no CPU ceiling."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(spaced(text)):
            m = _CPU_CEILING.search(sentence)
            if m and not re.search(r"\bGPU[- ]?(?:util\w*|usage|load)\b", m.group(0), re.I):
                out.append(Claim("cpu_ceiling", source, _quote(sentence, m, 60)))
    return out


# ------------------------------------------------------------------- tensor against pipeline parallelism

# llama.cpp's split modes (and Ollama's and LM Studio's, which wrap it) name the two layouts too: `row` (and since
# 2026 `tensor`) splits every weight matrix over the GPUs, tensor parallelism; `layer`, the default, gives each GPU
# a run of whole layers, a pipeline (ggml-org/llama.cpp docs/multi-gpu.md: "layer (default) | Pipeline
# parallelism", "row | ... row-split tensor-parallel path"), written as a flag, a setting or in words:
# `-sm row`, `--split-mode row`, `split_mode = "row"`, "row split", "split by rows" / "layer split", "split by layer".
_SPLIT_MODE = r"(?:\bsplit[-_ ]?mode|--split-mode|(?<![\w-])-sm)\s*(?:=|:)?\s*[\"'`]?"
_TP_WORDS = (r"(?:\btensor[-_ ]parallel\w*|\bTP\s*=?\s*\d*\b|--tensor-parallel-size|"
             + _SPLIT_MODE + r"(?:row|tensor)\b|\brow[- ]split\w*|\bsplit\w* (?:by|into) rows\b)")
_PP_WORDS = (r"(?:\bpipeline[-_ ]parallel\w*|\bPP\s*=?\s*\d*\b|--pipeline-parallel-size|\blayer[- ]split\w*|"
             + _SPLIT_MODE + r"layer\b|\bsplit\w* (?:by|into) layers?\b)")
_WINS = r"(?:\bfaster\b|\bbetter\b|\bhigher\b|\bmore (?:throughput|tok\w*|requests)\b|\boutperform\w*|\bbeats?\b)"
_COMPARED = r"(?:" + _WINS + r"|\bslower\b|\bworse\b|\blower\b|\bthan\b|\bvs\.?\b|\bversus\b|\bcompared?\b)"
_SPEED_SAID = _WINS + r"|\bslower\b|\bworse\b|\blower\b"
_NOT_SPEED = r"\b(?:not|never|no)\b|n't\b|\b(?:V?RAM|memory|power|energy)\b"
_TP_PP = re.compile(_TP_WORDS + r"[^.\n]{0,80}?" + _COMPARED + r"[^.\n]{0,80}?" + _PP_WORDS + "|"
                    + _PP_WORDS + r"[^.\n]{0,80}?" + _COMPARED + r"[^.\n]{0,80}?" + _TP_WORDS, re.I)


def tp_pp_compared(facts: Facts) -> list[Claim]:
    """Sentences that set tensor parallelism against pipeline parallelism or a layer split ("PP=2 gives more
    throughput than TP=2", "why is TP faster than pipeline parallel for one request?"): data {pp_wins}, whether
    the pipeline is said to be the faster (for throughput it can be, for one request it cannot)."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _TP_PP.search(sentence)
            if not m or _NEGATION.search(sentence[max(0, m.start() - 30):m.start()]):
                continue
            first_pp = re.match(_PP_WORDS, m.group(0), re.I) is not None
            better = re.search(_WINS, m.group(0), re.I) is not None
            # which layout is the faster is said only by a speed word, not denied, not about memory: a bare "vs" or
            # a "than" about VRAM leaves pp_wins read from the word order alone
            directed = bool(re.search(_SPEED_SAID, m.group(0), re.I) and not re.search(_NOT_SPEED, m.group(0), re.I))
            out.append(Claim("tp_pp_compared", source, _quote(sentence, m, 60),
                             {"pp_wins": first_pp == better, "directed": directed}))
    return out


# (mend41) The pipelined or multi-node side said to be the faster, against one GPU, one node or TP: "the multiple
# distributed setting works better for both ttft/latency" (two nodes of 4 at TP 4 x PP 2 against one node of 8,
# vllm-project/vllm#17281), "pure pipeline parallism runs faster than pure tensor parallelism" (NVIDIA/Megatron-LM#258).
# Not the multi-node side slower ("two machines ... it was slower than just one machine", b4rtaz/distributed-llama#262)
# nor more stages hurting ("Adding more nodes adds more pipeline stages. This can hurt the latency", alpa#609).
# ("paral\w*": "pipeline parallism" as Megatron-LM#258 writes it)
_SPREAD_SIDE = (r"(?:\bpipeline[-_ ]?paral\w*|\bPP\s*=?\s*[2-9]\b|\bmulti(?:ple)?[- ]?nodes?\b|\bdistributed\b|"
                r"\b(?:two|2|several|multiple)\s+(?:\w+\s+)?(?:nodes|machines|servers|hosts)\b)")
_SPREAD_WINS = re.compile(_SPREAD_SIDE + r"(?:(?!\bthan\b|\bslow\w*|\bworse\b|\bno\b|\bnot\b|n't\b|\bhurt\w*)"
                          r"[^.\n]){0,40}?(?:\bfaster\b|\bbetter\b|\bquicker\b|\bspeed[- ]?ups?\b|\boutperform\w*)",
                          re.I)

# A slight edge is the no-gain a pipeline's bubble predicts, not a win past it ("pipeline parallel is always slightly
# faster than single gpu", 11.30 s against 11.51 s at batch 1: NVIDIA/TensorRT-LLM#1102, tests/data/ut20a).
_SLIGHT = re.compile(r"\b(?:slightly|marginally|a (?:little|bit|tad)|somewhat|barely|only just)\s+\S+$", re.I)


def spread_wins(facts: Facts) -> Claim | None:
    """The reporter's measurement that the pipelined or multi-node layout is the faster one, or None: not asked
    ("is PP faster?"), not denied. A pipeline's bubble is then no complaint to answer (ticket.pp_bubble)."""
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _SPREAD_WINS.search(sentence)
            if m and not asked(sentence) and not _NEGATION.search(sentence[max(0, m.start() - 30):m.start()]) \
                    and not _SLIGHT.search(m.group(0)):
                return Claim("spread_wins", source, _quote(sentence, m, 60))
    return None


# Expert parallelism or DP attention set against tensor parallelism ("the TP speed is faster than that of the EP",
# "--enable-expert-parallel True is slower than False", sgl-project/sglang#2203 and vllm-project/vllm#28887): the
# engines' flags (vLLM --enable-expert-parallel, SGLang --enable-ep-moe / --enable-dp-attention) and the words.
# EP_NAMED names the layout anywhere ("EP=1" is none; vLLM's own "enable_expert_parallel" too, NVIDIA-NeMo/RL#997);
# a bare "EP" names it only beside TP in a comparison.
EP_NAMED = (r"(?:(?<![A-Za-z0-9])expert[-_ ]parallel\w*|\bDeepEP\b|\bT?EP\s*=?\s*(?:[2-9]|\d{2,})\b|"
            r"\bDP[- _]attention\b)")
_EP_WORDS = (r"(?:" + EP_NAMED + r"|(?<![\w-])EP\b(?!\s*=\s*1\b)|--enable-ep-moe|--enable-expert-parallel|"
             r"--enable-dp-attention)")
_TP_EP = re.compile(_TP_WORDS + r"[^.\n]{0,80}?" + _COMPARED + r"[^.\n]{0,80}?" + _EP_WORDS + "|"
                    + _EP_WORDS + r"[^.\n]{0,80}?" + _COMPARED + r"[^.\n]{0,80}?" + _TP_WORDS, re.I)


def tp_ep_compared(facts: Facts) -> list[Claim]:
    """Sentences that set tensor parallelism against expert parallelism or DP attention, as tp_pp_compared reads TP
    against PP: data {ep_wins}, whether the expert-parallel layout is said to be the faster."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _TP_EP.search(sentence)
            if not m or _NEGATION.search(sentence[max(0, m.start() - 30):m.start()]):
                continue
            first_ep = re.match(_EP_WORDS, m.group(0), re.I) is not None
            better = re.search(_WINS, m.group(0), re.I) is not None
            out.append(Claim("tp_ep_compared", source, _quote(sentence, m, 60), {"ep_wins": first_ep == better}))
    return out


# ------------------------------------------------------------------- (issue 11 k) transport words

# More ways tools and people say GPU peer access is refused, merged into the families above: TensorRT-LLM's and
# LMDeploy's start-up warning ("[TM][WARNING] Device 0 peer access Device 1 is not available."), and the verbs
# people put between "cannot" and P2P ("can not do p2p", "unable to establish peer access", "P2P doesn't work").
# (vLLM's "Custom allreduce is disabled because your platform lacks GPU P2P capability" is its routine notice on
# every PCIe box without P2P, NCCL carrying on: no refusal that breaks anything.)
MORE_WORDS_K: dict[str, list[str]] = {
    "no_p2p": [
        r"\bpeer access (?:to )?(?:Device|GPU)\s*\d+ is not (?:available|supported|enabled)\b",
        r"\b(?:can\s?not|can't|could\s?not|couldn't|unable to|fail\w* to)\s+"
        r"(?:do|use|get|establish|access|run|support|set up|initiali[sz]e)\s+(?:the\s+)?"
        r"(?:GPU\s+)?(?:P2P|peer[- ]to[- ]peer|peer access)\b",
        r"\b(?:P2P|peer[- ]to[- ]peer|peer access)\b[^.\n]{0,30}?\b(?:does ?n[o']t|did ?n[o']t|do ?n[o']t)\s+work\b",
        # (p2ptest34) "P2P" as the verb, after "not able to": "only 5060ti(8x) can p2p, others like pcie 16x->8x not
        # able to p2p" (aikitoria/open-gpu-kernel-modules#13)
        r"\b(?:not|n't|never)\s+able\s+to\s+(?:do\s+|use\s+|enable\s+|get\s+)?(?:P2P|peer[- ]to[- ]peer)\b",
        # `nvidia-smi topo -p2p r|w|n` cells said in prose: CNS chipset, GNS GPU, TNS topology not supported, NS
        # not supported (the legend line "CNS = Chipset not supported" itself is no observation)
        r"\btopo\s+-p2p\b[^.\n]{0,60}?(?<![\w-])(?-i:CNS|GNS|TNS|NS)\b(?!\s*=)",
        r"(?<![\w-])(?-i:CNS|GNS|TNS)\b(?!\s*=)[^.\n]{0,40}?\b(?:P2P|peer)\b",
        # (p2p42) nvbandwidth skipping its peer tests: every device_to_device_*, all_to_one_* and one_to_all_* test
        # runs only where some GPU pair passes cuDeviceCanAccessPeer (Testcase::filterHasAccessiblePeerPairs,
        # NVIDIA/nvbandwidth testcase.h / testcase.cpp); v0.2 prints "Waiving <test>." otherwise (later versions the
        # status "Waived"): "the test gets waived because the peer to peer mapping failed", the maintainer in
        # NVIDIA/nvbandwidth#13, and in #45 the reporter's `topo -p2p r` showed no P2P. Its host tests are not
        # filtered on peers, so only the peer tests' names count
        r"(?-i:\bWaiving) (?:device_to_device|all_to_one|one_to_all)_[a-z_]+\.(?!\w)",
    ],
    # lsmod showing no GPUDirect RDMA module ("lsmod | grep peermem shows nothing")
    "module_missing": [
        r"\blsmod\b[^\n]{0,30}?\b(nvidia[-_]peermem|nv_peer_mem|peermem|peer_mem|gdrdrv)\b[^.\n]{0,30}?"
        r"\b(?:shows|returns|prints|gives|outputs?)\s+(?:nothing|no output|empty|an empty)",
    ],
    # NCCL's transport lines without the GDRDMA suffix, said in words ("via NET/IB/0 without GDRDMA")
    "gdr_off": [r"\b(?:without|no|missing|lacks?)\s+(?:the\s+)?(?:GDRDMA|GDR|GPU ?Direct ?RDMA)\b(?!\s+(?:issues?|"
                r"problems?|errors?))"],
    # nvidia-smi's own field names for a link trained below its maximum: "PCIe Generation Current : 1"
    "pcie_degraded": [r"\bGen(?:eration)?\s*(?:/\s*)?Current\s*:?\s*[12]\b(?!\.)",
                      r"\bpcie\.link\.gen\.current\b\W{0,6}[12]\b(?!\.)"],
    # nodes joined by Ethernet alone, no RDMA fabric: NCCL's only inter-node transport is then its TCP sockets
    "tcp_only": [
        r"\b(?:only|just|plain|regular|standard|ordinary|normal|commodity)\s+(?:an?\s+)?"
        r"(?:\d+(?:\.\d+)?\s*(?:G|Gb|Gbps|Gbit|Gb/s|M|Mbps)?\s*)?(?:ethernet|TCP(?:/IP)?|GbE)\b",  # ("plain 25GbE")
        r"\b(?:connected|linked|networked|joined)\s+(?:by|via|with|over|through)\s+(?:an?\s+)?(?:a\s+)?"
        r"\d+(?:\.\d+)?\s*(?:G|Gb|Gbps|Gbit|Gb/s|M|Mbps)?\s*(?:ethernet|GbE)\b",
        r"\b(?:over|via|through)\s+(?:an?\s+)?\d+(?:\.\d+)?\s*(?:GbE|G(?:b|bps|bit)?\s+ethernet)\b",
        # (s27, ut27c) the nodes' network named as TCP/IP itself: "In a VM scale set on Azure connected over TCP/IP"
        # (NVIDIA/nccl-tests#83); not a process connecting to a port ("connected to 10.0.0.4:29500 over TCP")
        r"\b(?:connected|linked|networked|joined)\s+(?:by|via|with|over|through)\s+(?:an?\s+)?"
        r"TCP(?:/IP\b|\s+network\b)",
        # "no IB errors", "no IB switch" (cabled back to back) say nothing against the fabric
        r"\b(?:no|without)\s+(?:RDMA|InfiniBand|IB|RoCE)\b(?!\s+(?:errors?|issues?|problems?|switch\w*|devices?|warnings?|"
        r"counters?))(?:\s+(?:network|fabric|NICs?|cards?|between))?\b",
        # (issue 11, paraphrase audit) "I don't have InfiniBand environment", "we do not have an IB network"
        r"\b(?:don't|do not|doesn't|does not|didn't|did not)\s+have\s+(?:an?\s+|any\s+)?(?:RDMA|InfiniBand|IB|RoCE)\b"
        r"(?!\s+(?:errors?|issues?|problems?|warnings?))",
    ],
    # Peer requests sent up to the root complex (NCCL troubleshooting, "PCI Access Control Services (ACS)" and "IO
    # virtualization"): lspci's ACSCtl flags quoted in prose, ACS or a translating IOMMU said in words (iommu=pt,
    # passthrough, leaves peer traffic alone)
    "pcie_redirect": [
        r"\bACSCtl:?\s*SrcValid\+", r"\b(?:ReqRedir|CmpltRedir)\+",
        # the state linked to the word itself ("ACS is enabled", "the IOMMU was on"): "IOMMU is off on this host",
        # "ACS, it's disabled and P2P is enabled" name other things on or enabled
        r"\bACS\s+(?:is|was|are|were)\s+(?:still\s+)?(?:enabled|turned on|on|active)\b",
        r"\b(?:intel_iommu|amd_iommu)=on\b(?![^\n]{0,40}\biommu=pt\b)",
        r"\b(?:IOMMU|VT-d|AMD-Vi)\s+(?:is|was|are|were)\s+(?:still\s+)?(?:on|enabled|active)\b(?![^.\n]{0,40}\b(?:iommu=pt|"
        r"pass-?through)\b)",
        # (issue 11, paraphrase audit) "with IOMMU on", lspci's ACS control flag quoted alone ("you still have a lot of
        # `SrcValid+`"; not its capability line, ACSCap), and RCCL's warning that the IOMMU translates (init.cc:
        # 'Missing "iommu=pt" from kernel command line')
        # (not both states tried: "with IOMMU on and off, no difference", "with ACS enabled or disabled")
        r"\bwith\s+(?:the\s+)?(?:IOMMU|VT-d|AMD-Vi|ACS)\s+(?:on|enabled|active)\b"
        r"(?!\s*(?:and|or|/|vs\.?|versus)\s*(?:off|disabled|inactive)\b)",
        r"(?<!ACSCap:)(?<!ACSCap: )(?<!ACSCap:\t)\bSrcValid\+",
        r"\bMissing\s+\W?iommu=pt\W?\s+from (?:the )?kernel command line\b",
    ],
    # NVLink error counters climbing (`nvidia-smi nvlink -e`: CRC, replay, recovery errors), said in words
    "link_down": [
        r"\bnvlink\s+(?:-e|--error-counters)\b(?![^.\n]{0,30}?\b(?:no|zero|0)\s+(?:CRC|replay|recovery|errors?))"
        r"[^.\n]{0,60}?\b(?:CRC|replay|recovery)\b[^.\n]{0,20}?\berrors?\b",
        r"\b(?:CRC|replay|recovery)\s+errors?\b[^.\n]{0,20}?\b(?:increas\w*|grow\w*|climb\w*|keep \w+ing)\b"
        r"[^.\n]{0,40}?\b(?:NVLinks?|links?)\b",
    ],
}
# A clause after the words that says the reporter's own system is fine: "GNS shows on some drivers, but on mine every
# cell is OK", "..., but here all pairs show OK": the words were about other systems.
_OWN_FINE = re.compile(r"\b(?:but|however|yet|whereas|though)\b[^.\n]{0,60}?\b(?:mine|my|ours|our|here|this (?:box|"
                       r"machine|server|host|node))\b[^.\n]{0,60}?\b(?:OK|works?|working|fine|enabled|supported)\b",
                       re.I)


def own_system_fine(facts: Facts, c: Claim) -> bool:
    """Does the sentence a claim was said in go on to say the reporter's own system is fine?"""
    for source, text in texts(facts):
        if source == c.source:
            sentence = _said_sentence(text, c.quote)
            at = sentence.find(c.quote.strip("…").strip()[:40])
            return bool(_OWN_FINE.search(sentence[max(at, 0):]))
    return False


# Peer-to-peer run both ways as the reporter's own A/B: "enabling P2P on 8 RTX 4090s gives lower alltoall_perf than
# with P2P disabled", "with P2P enabled it is slower than with NCCL_P2P_DISABLE=1". Where P2P ran enabled, the driver
# did not refuse it: the disabled arm is a setting chosen to compare, not the refusal ticket.p2p_refused reads. (NCCL
# turns P2P off by NCCL_P2P_DISABLE=1, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html; a driver
# that refuses it leaves nothing to enable.) An enabling that failed, was asked about or hoped for is no arm.
_P2P_WORD = r"(?:P2P|peer[- ]to[- ]peer)(?:\s+(?:capability|access|support|transport|mode))?"
_P2P_ON = re.compile(r"(?<!\w)(?:enabling|enabled|turning on|switching on)\s+(?:the\s+)?" + _P2P_WORD + r"\b|"
                     r"\b(?:with|when|while)\s+(?:the\s+)?" + _P2P_WORD + r"\s+(?:is\s+|was\s+)?(?:enabled|on)\b|"
                     r"\b" + _P2P_WORD + r"\s+(?:enabled|on)(?=\s+(?:vs\.?|versus|and|or|compared)\b)|"
                     r"\bNCCL_P2P_DISABLE\s*=\s*0\b", re.I)
_P2P_ON_DENIED = re.compile(r"(?:\b(?:not|never|cannot|unable to|fail\w* (?:at|in|to)|how (?:to|do I|can I)|"
                            r"trying|tried|try|want\w* to|should|would|could)|n't)\s+(?:\w+\s+){0,2}$", re.I)


# The other arm, P2P off by choice: "than when P2P is disabled", "without P2P", "vs disabled", "NCCL_P2P_DISABLE=1".
_P2P_OFF = re.compile(r"\b" + _P2P_WORD + r"\s+(?:is\s+|was\s+)?(?:disabled|off)\b|\b(?:disabling|without|turning off|"
                      r"switching off)\s+(?:the\s+)?" + _P2P_WORD + r"\b|\b(?:vs\.?|versus|or|and)\s+(?:when\s+)?"
                      r"(?:disabled|off)\b|\bNCCL_P2P_DISABLE\s*=\s*1\b", re.I)
# The two arms set against each other with a result: a comparison ("lower than", "vs", "compared with") or a figure.
_ARMS_COMPARED = re.compile(r"\b(?:than|vs\.?|versus|compared|against|whereas|respectively)\b|"
                            r"(?<![\w.])\d+(?:\.\d+)?\s*(?:" + RATE_UNIT + r"|[GM]B/s|tok(?:ens)?/s|t/s|ms|us|µs|%)",
                            re.I)
_FIGURE_SAID = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:" + RATE_UNIT + r"|[GM]B/s|tok(?:ens)?/s|t/s|ms|us|µs)", re.I)
# The enabling did not take: "I enabled P2P in the BIOS but simpleP2P still reports Peer access not available",
# "enabling P2P has no effect: ... NS everywhere", "the driver refuses".
_P2P_ON_FAILED = re.compile(r"\bbut\b[^.\n]{0,60}?\bstill\b|\b(?:no|zero)\s+effect\b|\bnothing changed\b|"
                            r"\bnot\s+(?:available|supported|possible|enabled|working)\b|\b(?:C?NS)\b|"
                            r"\bstill\s+(?:shows?|reports?|says?|prints?|lists?|disabled|not|NS|unavailable)\b|"
                            r"\brefus\w*|\bfail\w*|\bcannot access peer\b|\bdoes(?:n't| not)\s+(?:work|help|stick)\b",
                            re.I)


def p2p_run_enabled(facts: Facts) -> Claim | None:
    """The reporter's statement that P2P ran enabled as an arm of their own A/B, or None: an enabled arm set against a
    disabled one with a result on each (a comparison or a figure in one sentence, or a figure in each of two
    sentences running on). An enabling that did not take ("but ... still not available", "no effect") is no arm."""
    for source, text in texts(facts):
        said = sentences(text)
        for i, sentence in enumerate(said):
            for m in _P2P_ON.finditer(sentence):
                if asked(sentence) or _P2P_ON_DENIED.search(sentence[max(0, m.start() - 40):m.start()]) \
                        or _P2P_ON_FAILED.search(sentence[m.end():]):
                    continue
                rest = sentence[:m.start()] + " " + sentence[m.end():]
                nxt = said[i + 1] if i + 1 < len(said) else ""
                one = _P2P_OFF.search(rest) and _ARMS_COMPARED.search(rest)
                two = _P2P_OFF.search(nxt) and _FIGURE_SAID.search(sentence) and _FIGURE_SAID.search(nxt)
                if one or two:
                    return Claim("p2p_enabled", source, _quote(sentence, m, 60))
    return None


# P2P switched off by the reporter for a run: "all_reduce_perf test with P2P disabled" (NVIDIA/nccl#1130), "test
# data for eight GPUs with P2P disabled" (tinygrad/open-gpu-kernel-modules#17), "with P2P disabled it works"
# (NVIDIA/nccl#631), "after disabling P2P", "I disabled P2P", NCCL_P2P_DISABLE=1. NCCL then runs GPU-to-GPU traffic
# over SHM through host memory (NCCL_P2P_DISABLE, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html):
# a setting chosen, not peer access refused. The system's own words stay a refusal: "P2P is disabled between
# connected GPUs" (NCCL's log), "CANNOT Access Peer", "disabled by the BIOS/driver".
_P2P_SET_OFF = re.compile(
    r"(?:\b(?:with|when|while|after|once)\s+(?:the\s+)?(?:GPU\s+)?" + _P2P_WORD
    + r"\s+(?:is\s+|was\s+|being\s+)?(?:disabled|off|turned off|switched off)"
    r"|\b(?:I|we)\s+(?:have\s+|had\s+|then\s+)?(?:disabled|turned off|switched off)\s+(?:the\s+)?(?:GPU\s+)?"
    + _P2P_WORD + r"|\b(?:after|by|when|while|with|on)\s+(?:disabling|turning off|switching off)\s+(?:the\s+)?"
    r"(?:GPU\s+)?" + _P2P_WORD + r")\b(?!\s+(?:by\s+(?:the\s+)?(?:driver|BIOS|system|ACS|IOMMU|hypervisor|host|"
    r"default|platform)|due to|because)\b)|\bNCCL_P2P_DISABLE\s*=\s*1\b", re.I)


# (p2pline36) P2P off because the two GPUs hang off different CPUs: "P2P disabled (cards on separate NUMA nodes, SYS
# path)", "no P2P since the GPUs sit on different sockets". NCCL chooses by the path between the GPUs how far P2P may
# go (NCCL_P2P_LEVEL, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html: SYS, the path across the
# CPUs' SMP interconnect, is its widest level) and by default bounces traffic through host memory there: "CPUs make
# very poor PCI switches ... we normally disable P2P and bounce the communication via Host (SHM) buffers instead"
# (NVIDIA, https://github.com/NVIDIA/nccl/issues/1603); "recent Intel CPUs have horrible P2P performance" through the
# CPU (https://github.com/NVIDIA/nccl/issues/428). Off there is the platform's path, nothing refused that the hardware
# offers. The same-node wording ("even though both are on the same NUMA node") and a cause that can be switched
# ("by the BIOS", ACS, the IOMMU, the driver) or the system's own refusal ("not supported", CNS) say otherwise.
# (splitter45) Not the driver named by its version, as nvidia-smi's header prints it ("Driver Version: 535.104.05")
# and reporters list it ("driver 580.178.04"): the installed release, no cause; read once the sentence is no longer
# cut at its dots.
_ACROSS_CPUS = re.compile(
    r"(?<!not )(?<!n't )\b(?:separate|different|two|both|other|opposite|across|cross(?:es|ing)?|spans?|spanning)"
    r"[- ](?:the\s+)?(?:CPU\s+|NUMA\s+)?(?:sockets?|NUMA(?:\s+nodes?|\s+domains?)?|CPUs|processors|root complexes)\b"
    r"|\bcross[- ](?:socket|NUMA|CPU)\b|\b(?-i:SYS)\s+(?:path|link|connection|topology|hop)\b|\b(?:QPI|UPI|xGMI)\b",
    re.I)
_CAUSE_SWITCHED = re.compile(r"\b(?:BIOS|ACS|IOMMU|VT-?d|driver(?!\s{0,3}(?:version\s{0,3})?[:=]?\s{0,3}v?\d)|"
                             r"hypervisor|VM|not supported|unsupported|cannot|"
                             r"can't|unable|refus\w*|error|fail\w*|(?-i:C?NS)|same (?:NUMA|socket|CPU|switch))\b",
                             re.I)


# (review36) A reason someone else gave ("someone on the forum said P2P is disabled when GPUs are on different
# sockets"): hearsay about P2P in general, not the reporter's path.
_SAID_BY_OTHERS = re.compile(r"\b(?:someone|somebody|people|others|they|a colleague|a friend)\b[^.\n]{0,30}?"
                             r"\b(?:said|says|say|wrote|writes|claim\w*|mention\w*)\b", re.I)


def p2p_off_across_cpus(facts: Facts, c: Claim) -> bool:
    """Is the no_p2p claim `c` said with its reason, a path between the GPUs across CPU sockets or NUMA nodes, in its
    own sentence, where NCCL keeps P2P off by its own policy (the comment above), and no switchable cause or
    refusal beside it?"""
    for source, text in texts(facts):
        if source == c.source:
            # (the quote too: a sentence cut at a decimal point, "11.7 tok/s", may hold only part of it)
            sentence = f"{_said_sentence(text, c.quote)} {c.quote.strip('…')}"
            across = _ACROSS_CPUS.search(sentence)
            return bool(across) and not _CAUSE_SWITCHED.search(_p2p_reason_clause(sentence, across)) \
                and not guessed(sentence) and not _SAID_BY_OTHERS.search(sentence)
    return False


def _p2p_reason_clause(sentence: str, across: re.Match) -> str:
    """(fr45) The clauses of `sentence` from its P2P words to the path across CPUs given as their reason: a cause word
    the sentence goes on to in a clause of its own ("..., so the bandwidth test cannot go above 6 GB/s", "... and the
    job fails after 30 min") is that clause's, not P2P's."""
    p2p = re.search(_P2P_WORD, sentence, re.I)
    if not p2p:
        return sentence
    return clause_around(sentence, min(p2p.start(), across.start()), max(p2p.end(), across.end()))


def p2p_off_by_setting(facts: Facts, c: Claim) -> bool:
    """Is the no_p2p claim `c` a run the reporter made with P2P switched off ("with P2P disabled",
    NCCL_P2P_DISABLE=1), said in the claim's own sentence, rather than the system refusing peer access?"""
    for source, text in texts(facts):
        if source == c.source:
            return bool(_P2P_SET_OFF.search(_said_sentence(text, c.quote)))
    return False


# GPUDirect RDMA registered through the kernel's DMA-BUF instead of the nvidia-peermem module: NCCL uses it where the
# driver and kernel allow (NCCL_DMABUF_ENABLE, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html),
# and NVIDIA recommends it over the legacy module
# (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-rdma.html).
# ("cannot use DMA-BUF", "DMA-BUF is not supported on our kernel" say the opposite)
_NOT_BETWEEN = r"(?:(?!\b(?:not|no|never)\b|n't\b)[^.\n])"
MORE_WORDS_K["dmabuf_used"] = [
    r"(?<!not )(?<!n't )(?<!unable to )\b(?:use|uses|using|used|with|via|through|over|switched to|rely on|relies on)"
    r"\s+(?:the\s+)?(?:kernel'?s?\s+)?(?:DMA-?BUF|dmabuf)\b",
    r"\bNCCL_DMABUF_ENABLE\s*=\s*1\b",
    r"\b(?:DMA-?BUF|dmabuf)\b" + _NOT_BETWEEN
    + r"{0,30}?\b(?:is\s+|are\s+)?(?:enabled|in use|supported|works|instead)\b",
]
# NCCL's network lines quoted as carrying GPUDirect RDMA: "NET/IB with GDRDMA", "via NET/IB/0/GDRDMA", "GPUDirect
# RDMA is in use".
MORE_WORDS_K["gdr_on"] = [
    r"\bNET/IB\b(?:(?!\bwithout\b)" + _NOT_BETWEEN + r"){0,40}?\bGDRDMA\b",
    r"\bGDRDMA\b" + _NOT_BETWEEN + r"{0,30}?\bNET/IB\b",
    r"\b(?:GPUDirect RDMA|GDRDMA|GDR)\s+(?:is\s+|was\s+)?(?:in use|enabled|active|used|on)\b",
]
# (p2ptest34) The reporter's own evidence that GPU peer-to-peer works on this host, in two strengths. Granted: the
# driver's answer, CUDA's cudaDeviceCanAccessPeer through torch ("torch.cuda.can_device_access_peer(0, 1) returns True",
# https://pytorch.org/docs/stable/generated/torch.cuda.can_device_access_peer.html), `nvidia-smi topo -p2p r|w` cells
# said OK (nvidia-smi's legend: OK = Status Ok), "peer access is enabled", or the reporter ruling P2P out ("P2P is not
# the issue"). Passed: a check that moved data peer-to-peer and read it back, the CUDA samples simpleP2P ("Test
# passed", it verifies the copied buffer) and p2pBandwidthLatencyTest, vLLM's gpu_p2p_access_check (it writes through
# CUDA IPC in one process and reads in another, vllm/distributed/device_communicators/custom_all_reduce_utils.py), or
# "P2P works". Not a check that failed ("does not pass", negated), asked about, or a run with P2P enabled as one arm of
# an A/B (p2p_run_enabled reads that).
_P2P_SUBJECT = r"(?:P2P|peer[- ]to[- ]peer|GPU peer access|peer access)"
MORE_WORDS_K["p2p_ok"] = [
    r"\bcan_?device_?access_?peer\b[^\n]{0,30}?(?:returns?|==?|is|:|->|gives|prints)\s*`?True\b",
    r"(?<!\bif )(?<!\bwhen )(?<!\bwhether )\b" + _P2P_SUBJECT + r"\s+(?:access\s+)?(?:is|are|was|were)\s+(?:now\s+|"
    r"fully\s+|also\s+)?(?:enabled|supported|available|granted|allowed)\b(?!\s+(?:by|with|via|through|in)\s+"
    r"(?:setting|NCCL_|the env))",
    r"\btopo\s+-p2p\s*[rw]?\b[^.\n]{0,40}?\b(?:shows?|reports?|gives|says|prints|is|are|returns?)\s+(?:all\s+|only\s+)?"
    r"[`'\"]?OK\b",
    r"\b" + _P2P_SUBJECT + r"\s+(?:is|was)\s+(?:not|n't)\s+(?:the|a)\s+(?:issue|problem|cause|culprit|bottleneck)\b",
    r"\b" + _P2P_SUBJECT + r"\s+(?:has been|was|is|can be)\s+ruled out\b",
    # (ruledout34) the ruling-out said with the suspect after the verb: "it is not a P2P issue", "I ruled out P2P"
    r"\bnot\s+(?:an?|the)\s+" + _P2P_SUBJECT + r"\s+(?:issue|problem|cause)\b",
    r"\bruled\s+out\s+(?:the\s+)?" + _P2P_SUBJECT + r"\b",
]
MORE_WORDS_K["p2p_passed"] = [
    r"\b(?:simpleP2P|p2pBandwidthLatencyTest|p2p[_ ]?(?:bandwidth[_ ]?latency[_ ]?)?tests?|P2P (?:access )?checks?|"
    r"gpu_p2p_access_check)\b" + _NOT_BETWEEN + r"{0,30}?\b(?:pass(?:es|ed)?|succeed(?:s|ed)?|successful(?:ly)?|"
    r"returns?\s+True|(?:is|are|was|looks?)\s+(?:fine|OK|good))\b",
    r"\b(?:P2P|peer[- ]to[- ]peer)(?:\s+(?:access|transfers?|copies|communication))?\s+(?:works|is working|"
    r"(?:is|was)\s+(?:fully\s+)?(?:functional|working))\b(?!\s+(?:only|except|but|on some))",
]
# (p2p41) The host's own P2P check said to fail, hang or crash: NCCL's troubleshooting guide has p2pBandwidthLatencyTest
# "run to completion and report good performance between GPUs", and ACS or the IOMMU redirecting peer traffic causes "a
# significant performance reduction or even a hang". Said "I'm able to reproduce a crash with the p2p samples"
# (NVIDIA/cuda-samples#48, IOMMU off let them run), "Everything looks fine but fails simpleP2P test"
# (aikitoria/open-gpu-kernel-modules#8), "simpleP2P failing on 4x3090" (#22 there, the BAR too small),
# "p2pBandwithLatencyTest gives me the following output and then hangs" (pytorch/pytorch#1637, IOMMU). Not the sample
# failing to build, nor another step ("the p2p test passes but training hangs": nothing passing, denying or starting
# another clause between the check and the verb), nor vLLM's routine notice on every PCIe box without P2P ("Custom
# allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed"), which says either.
_P2P_CHECK = (r"(?:simpleP2P|p2pBandwid?thLatencyTest|p2p[_ ]?(?:bandwidth[_ ]?latency[_ ]?)?(?:tests?|samples?)|"
              r"P2P (?:access )?checks?)")
# (s41 final read) not the check switched off: "vLLM still fails with the P2P check disabled", "It hangs with the P2P
# check skipped (VLLM_SKIP_P2P_CHECK=1)"
_CHECK_ON = r"\b(?!\s+(?:disabled|skipped|bypassed|(?:turned|switched)\s+off|off)\b)"
_CHECK_BROKE = (r"(?:fail(?:s|ed|ing)?|hangs?|hung|freez(?:es|ing)|froze|crash(?:es|ed|ing)?|segfaults?|"
                r"gets stuck|stuck)")
# (s41review) Nor another subject's failure after the check, without a clause between: "After running simpleP2P the
# training hangs", "Even with simpleP2P showing peer access vLLM hangs": a job, an engine or a library named between
# the check and the verb owns the verb.
# (s41 final read) Unless the noun only says where the check ran: "simpleP2P inside the pytorch container fails",
# "simpleP2P on the inference node hangs" (a preposition, with or without a determiner, just before it).
_CHECK_PLACE = "".join(rf"(?<!\b{prep} {det})"
                       for prep in ("in", "inside", "on", "within", "from", "under", "of", "for")
                       for det in ("", "the ", "a ", "an ", "my ", "our ", "this "))
_CHECK_GAP = (r"(?:(?!\b(?:not|no|never|pass\w*|succeed\w*|works?|worked|OK|fine|but|while|though|although|"
              r"whereas|yet|if|when|unless)\b|"
              r"(?=\b(?:training|inference|vllm|sglang|nccl|deepspeed|megatron|pytorch|torch|models?|jobs?|engines?|"
              r"all-?reduce)\b)" + _CHECK_PLACE + r"|\band\b(?!\s+then\b)|n't\b)[^.\n,;])")
MORE_WORDS_K["p2p_check_failed"] = [
    r"(?<!capability or )\b" + _P2P_CHECK + _CHECK_ON + _CHECK_GAP + r"{0,50}?\b" + _CHECK_BROKE + r"\b"
    r"(?!\s+to\s+(?:compile|build|make|link|install|load|open|find))",
    # (s41review) the blanks after the preposition belong to it: "\s+(?:with|...)?\s*" split a long run of blanks every
    # way before failing (1.5 s on 5,000 after "fails"); same matches
    r"(?<!\bnot )\b" + _CHECK_BROKE + r"\s+(?:(?:with|in|on|running|when running|at)\s*)?(?:the\s+|my\s+|both\s+)?"
    r"(?:CUDA\s+)?" + _P2P_CHECK + _CHECK_ON,
]
_extend(MORE_WORDS_K, new_kinds=True)
# (review34) A P2P check said to pass of another host, run or pair is no check of this one: someone else's ("in #1234
# someone's p2p test passed", "other users report P2P works"), a time before the problem ("P2P was working before the
# update", "used to work on the old driver"), or only part of the GPUs or places ("P2P works between GPU0 and GPU1 but
# not GPU2", "the P2P check passed on the host but not inside the VM", "supported on A100 but not on 4090").
_SAID_OF_OTHERS = re.compile(
    r"\b(?:someone|somebody|others|other (?:users|people|folks)|people)\b|(?<![\w&])#\d+\b|"
    r"\b(?:another|other|a different) (?:thread|issue|user|system|machine|box|server|host|node|cluster)\b|"
    r"\b(?:used to|previously|until|before (?:the|an?|my|our|I|we|upgrad\w*|updat\w*|switch\w*|reboot\w*|"
    r"install\w*))\b|\b(?:on|with) the (?:old|previous|older) \w+", re.I)
_SAID_OF_PART = r"\bbut\s+not\b|\bexcept\b|\b(?:only|just)\s+(?:on|between|for|with)\b"
_SAID_ELSEWHERE = re.compile(_SAID_OF_OTHERS.pattern + "|" + _SAID_OF_PART, re.I)


def p2p_check_said(facts: Facts, kind: str) -> list[Claim]:
    """The reporter's words that P2P works on this host (`kind` p2p_ok, a grant, or p2p_passed, a delivery), or that
    its check fails (p2p_check_failed): affirmed, no guess, and not said of another host or an earlier time; a pass
    said of some of the GPUs only (_SAID_ELSEWHERE) clears none, while (s41review) a failure of some of them ("simpleP2P
    fails only between GPU0 and GPU2", "... but not between GPU0 and GPU1") is still this host's failure."""
    return _said_of_this_host(facts, kind, elsewhere=_SAID_OF_OTHERS if kind == "p2p_check_failed" else _SAID_ELSEWHERE)


def _said_of_this_host(facts: Facts, kind: str, contrary: re.Pattern | None = None,
                       elsewhere: re.Pattern = _SAID_ELSEWHERE) -> list[Claim]:
    """The `kind` claims that are no guess and whose sentence says them of this host now (not another host, an earlier
    time or part of the GPUs: `elsewhere`, _SAID_ELSEWHERE by default), nor beside `contrary` words: the filter
    p2p_check_said and said_working share."""
    said = dict(texts(facts))
    out = []
    for c in find(facts, kind):
        sentence = _said_sentence(said.get(c.source, ""), c.quote)
        if c.guess or elsewhere.search(sentence) or (contrary and contrary.search(sentence)):
            continue
        out.append(c)
    return out


# (ruledout34) The reporter's word that a suspect works, or that they ruled it out, for the families beyond P2P
# (P2P has its own two strengths above, p2p_ok and p2p_passed). Each subject's words come from its tool's success
# output quoted in prose and from how people rule a thing out:
# - pcie: lspci's link status at full width ("LnkSta: Speed 16GT/s (ok), Width x16 (ok)", the pci-utils man page:
#   "(downgraded)" marks a link below its capability), "the link runs at Gen4 x16";
# - shm: /dev/shm sized in gigabytes (`df -h /dev/shm` "64G"; docker's default is 64 MB, docs.docker.com run
#   reference "--shm-size"), "--shm-size=16g", "--ipc=host" (the host's /dev/shm);
# - numa: ranks bound to their GPU's node, all GPUs on one node, binding tried without effect;
# - nvlink: `nvidia-smi nvlink -s` per-link rates ("Link 0: 25.781 GB/s"), "NVLink is active / up";
# - network: NCCL INFO "NET/IB : Using [0]mlx5_0:1/IB", "GPU Direct RDMA Enabled for HCA", "IB works fine".
# Plus, for each, the ruling-out: "X is not the problem", "it is not an X issue", "I (already) ruled out X".
# A question, a condition, a negation ("X does not work", "I have not ruled out X") or another host, time or part
# of the GPUs (_SAID_ELSEWHERE, said_working) is no such word.
_WORKING_SUBJECTS = {
    "pcie": r"(?:PCI-?e|the\s+(?:PCI-?e\s+)?links?)(?:\s+(?:links?|lanes?|slots?|bandwidth|bus|width|speed|risers?))?",
    "shm": r"(?:/dev/shm|shared\s+memory|shm)(?:\s+size)?",
    "numa": r"(?:NUMA|CPU\s+affinity|CPU\s+binding|socket\s+binding|cross[- ]socket\s+traffic)"
            r"(?:\s+(?:binding|affinity|placement|nodes?|settings?))?",
    "nvlink": r"(?:NVLinks?|NVSwitch(?:es)?|the\s+NVLink\s+bridges?)",
    "network": r"(?:InfiniBand|IB|RoCE|RDMA|GPUDirect\s+RDMA|GDR|the\s+(?:network|NICs?|fabric))",
}


def _ruling_out(subject: str) -> list[str]:
    """How a reporter rules a suspect out, for a subject pattern ("NUMA is not the problem", "it is not a PCIe issue",
    "I already ruled out NUMA", "the network has been ruled out")."""
    cause = r"(?:issue|problem|cause|culprit|bottleneck)"
    return [r"\b" + subject + r"\s+(?:is|was)\s+(?:not|n't)\s+(?:the|a|an)\s+(?:\w+\s+)?" + cause + r"\b",
            r"\bnot\s+(?:an?|the)\s+" + subject + r"\s+" + cause + r"\b",
            r"\bruled\s+out\s+(?:the\s+)?" + subject + r"\b",
            r"\b" + subject + r"\s+(?:has been|was|is|can be)\s+ruled out\b"]


_FULL_WIDTH = r"(?:Gen\s?[3-6]\s*x16|x16\s*(?:@\s*)?Gen\s?[3-6]|x16)"
WORKING_WORDS = {
    "pcie": _ruling_out(_WORKING_SUBJECTS["pcie"]) + [
        r"\bLnkSta:?\s*Speed\s+(?:8|16|32|64)\s*GT/s\b[^\n]{0,16}?Width\s+x16\b(?![^\n]{0,12}\bdowngraded\b)",
        r"\b(?:the\s+)?(?:PCI-?e\s+)?links?\s+(?:is\s+|are\s+)?(?:all\s+)?(?:running|runs|trained|negotiated|sits?)\s+"
        r"(?:at\s+)?(?:the\s+)?(?:full\s+)?" + _FULL_WIDTH + r"\b",
        r"\b(?:all|both|every|each)\s+(?:of\s+the\s+)?(?:GPUs?|cards?|links?)\s+(?:is\s+|are\s+)?(?:running\s+)?"
        r"(?:at\s+)?(?:full\s+)?" + _FULL_WIDTH + r"\b",
    ],
    "shm": _ruling_out(_WORKING_SUBJECTS["shm"]) + [
        r"/dev/shm\b[^.\n]{0,30}?(?<![\w.])\d+(?:\.\d+)?\s*[GT](?:i?B)?\b",
        r"--shm-size[= ]\s*\d+(?:\.\d+)?\s*[gGtT](?:i?B)?\b",
        r"\b(?:use|uses|using|used|with|run\w*|ran|start\w*|launch\w*|added|set)\s+(?:the\s+)?`?--ipc[= ]host\b",
    ],
    "numa": _ruling_out(_WORKING_SUBJECTS["numa"]) + [
        r"\bbound\s+to\s+(?:the|its|their)\s+(?:right|correct|local|own|GPU'?s?)\s+(?:NUMA\s+node|socket|CPUs?)\b",
        r"\b(?:all|both)\s+(?:the\s+|my\s+|our\s+)?(?:GPUs|cards)\s+(?:are\s+)?(?:on|in|attached to|hang off)\s+"
        r"(?:the\s+)?(?:same\s+(?:NUMA\s+node|socket|CPU)|one\s+(?:NUMA\s+node|socket)|NUMA\s+node\s*\d)\b",
        r"\b(?:numactl|taskset|NUMA\s+binding|CPU\s+binding|CPU\s+affinity|--cpunodebind)\b[^.\n]{0,40}?"
        r"\b(?:makes?|made)\s+no\s+(?:real\s+)?difference\b",
    ],
    "nvlink": _ruling_out(_WORKING_SUBJECTS["nvlink"]) + [
        r"\bNVLinks?\b(?:\s+(?:links?|bridges?|connections?))?\s+(?:is|are)\s+(?:all\s+)?(?:active|up|working|healthy|"
        r"enabled|fine)\b",
        r"\ball\s+(?:the\s+)?NVLinks?\b(?:\s+links?)?\s+(?:are\s+)?(?:active|up|working|healthy)\b",
        r"\bnvlink\s+(?:-s|--status)\b[^\n]{0,30}?\bLink\s+\d+\s*:\s*\d+(?:\.\d+)?\s*GB/s",
        r"\bNVLink\s+bridge\s+works\b",
    ],
    "network": _ruling_out(_WORKING_SUBJECTS["network"]) + [
        r"\bNET/IB\s*:\s*Using\b",
        r"\bGPU\s*Direct\s+RDMA\s+Enabled\b",
        r"\b(?:IB|InfiniBand|RoCE|RDMA)\b(?:\s+(?:links?|network|fabric))?\s+(?:works|is\s+working|is\s+fine|is\s+up)\b",
    ],
}
WORKING_KINDS = frozenset(f"{subject}_working" for subject in WORKING_WORDS)
_extend({f"{subject}_working": words for subject, words in WORKING_WORDS.items()}, new_kinds=True)
# Words in the same sentence that make a "works" partial: a narrower or slower link beside the full one ("GPU0 is at
# x16 but GPU1 is at x4"), a small /dev/shm beside a large one.
_WORKING_CONTRARY = {
    "pcie": re.compile(r"\bx(?:1|2|4|8)\b|\bGen\s?[12]\b|\bdowngraded\b", re.I),
    "shm": re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*[MK](?:i?B)?\b", re.I),
}


# (tried39) The NCCL settings that switch one path off, by the path: NCCL's environment variables
# (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html) and the workarounds its troubleshooting page
# offers for each. A setting tried with no effect on the failure (effect "no_help") rules its path out: the path was
# off and the job failed the same way.
PATH_SETTINGS = {
    "p2p": ("NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"),
    "shm": ("NCCL_SHM_DISABLE",),
}


# (tried40) The other remedies experts read the same way, by the cause each one takes away: an engine flag, a container
# option, a platform change or a release moved to. Each is the documented workaround or test for its cause:
# - "custom_ar": the engine's own all-reduce over CUDA IPC (vLLM/SGLang --disable-custom-all-reduce, vLLM's
#   disable_custom_all_reduce=True, TensorRT-LLM's use_custom_all_reduce; vLLM debugging guide, engine_errors.toml);
# - "cuda_graphs": CUDA graph capture and replay (vLLM --enforce-eager / enforce_eager=True, SGLang
#   --disable-cuda-graph);
# - "dev_shm": the container's /dev/shm size (docker --shm-size / --ipc=host, compose "ipc: host"; NCCL troubleshooting,
#   "Docker"; vLLM's docker deployment page);
# - "acs": PCIe ACS redirect and a translating IOMMU (ACS disabled, pci=noacs, iommu=pt, intel_iommu=off, VT-d off;
#   NCCL troubleshooting, "PCI Access Control Services" and "IO virtualization");
# - "nccl_release", "driver_release", "torch_release": a release of NCCL, the GPU driver or PyTorch moved to or back.
# A reboot is read too ("reboot") but rules out no cause on its own. Each name is matched in prose (not in a code
# block's launch line: remedies() reads the reporter's sentences) and its effect read as a setting's (_tried_effect).
_NOT_PART = r"(?<![\w-])"  # not inside a longer name (\b fails after CJK: "设置了shm-size也没用")
_OFF = r"(?:disabl\w*|turn\w*\s+off|switch\w*\s+off)\s+(?:the\s+)?"
REMEDIES = {
    "disable_custom_all_reduce": ("custom_ar", re.compile(
        _NOT_PART + r"(?:--)?disable[-_]custom[-_]all[-_]?reduce\b(?!\s*=\s*False)|"
        r"\b" + _OFF + r"(?:engine's\s+)?`?(?:use_)?custom[ _-]?all[ _-]?reduce\b", re.I)),
    "enforce_eager": ("cuda_graphs", re.compile(
        _NOT_PART + r"(?:--)?enforce[-_]eager\b(?!\s*=\s*False)|--disable[-_]cuda[-_]graph\b", re.I)),
    "shm_size": ("dev_shm", re.compile(_NOT_PART + r"(?:--)?shm[-_]size\b|--ipc[= ]host\b|\bipc:\s?host\b", re.I)),
    "acs_off": ("acs", re.compile(
        r"\b" + _OFF + r"(?:PCIe\s+)?(?:ACS|IOMMU|VT-?d)\b|\b(?:ACS|IOMMU|VT-?d)\s+(?:is\s+|was\s+)?(?:disabled|off)\b|"
        r"\bpci=noacs\b|\biommu=(?:pt|off|soft)\b|\b(?:intel|amd)_iommu=off\b", re.I)),
    "nccl_release": ("nccl_release", re.compile(
        r"\b(?:upgrad|updat|downgrad)\w*\s+(?:(?:to|the|my|our)\s+){0,2}NCCL\b|\bNCCL\s+(?:upgrade|update|downgrade)s?\b|"
        r"\b(?:tried|tested|with)\s+(?:an?\s+|the\s+)?(?:newer|older|later|earlier|latest|different)\s+NCCL\b", re.I)),
    "driver_release": ("driver_release", re.compile(
        r"\b(?:upgrad|updat|downgrad|reinstall)\w*\s+(?:(?:to|the|my|our|nvidia|gpu)\s+){0,3}drivers?\b|"
        r"\bdriver\s+(?:upgrade|update|downgrade)s?\b|"
        r"\b(?:tried|tested|with)\s+(?:an?\s+|the\s+)?(?:newer|older|old|later|earlier|latest|different)\s+"
        r"(?:nvidia\s+|gpu\s+)?drivers?\b", re.I)),
    "torch_release": ("torch_release", re.compile(
        r"\b(?:upgrad|updat|downgrad)\w*\s+(?:(?:to|the|my|our)\s+){0,2}(?:py)?torch\b|"
        r"\b(?:py)?torch\s+(?:upgrade|update|downgrade)s?\b", re.I)),
    "reboot": ("reboot", re.compile(r"\breboot(?:ed|ing)?\b|\brestart(?:ed|ing)?\s+(?:the\s+|my\s+|our\s+)?"
                                    r"(?:machine|server|host|node|system|computer|box)\b", re.I)),
}
# A release moved to and the failure "again" is the regression back ("since upgrading the driver it fails again"), not
# a remedy without effect; only words that the failure stayed read that way for a release.
_STAYED = re.compile(r"\b(?:still|same|anyway|regardless|continues?|persists?)\b|n't\b|\bnot?\b|"
                     r"还是|依然|仍然|依旧|照样|也没用|没(?:有)?(?:效果|作用)|不起作用", re.I)


# (fr47) A release said to fix something cured the failure only where the fix names it as _EN_FIXED names a hang's
# fix ("fixed it", "fixed the problem", "fixed the allreduce hang"), not something else ("Upgrading NCCL fixed a
# different issue (the IB warning spam)", "Upgrading PyTorch fixed the import error": _EN_FIXED's "not a fix of
# something else"), and where the failure does not go on after it: in its sentence as solved() reads a fix undone
# (_still_wrong: "..., but the hang remains", "fixed the hang for a day, now it hangs again") or in the next as
# _en_hang_past reads a hang carried on (_EN_GOES_ON_NEXT: "It still hangs at the first allreduce"), or come back.
# The object is read after a fix verb with a determiner or a pronoun first ("fixed for us", "fixed now" name none).
_FIX_VERB_OBJECT = re.compile(r"\b(?:fix(?:es|ed)?|solv(?:es|ed)|resolv(?:es|ed)|cur(?:es|ed))\s+"
                              r"(?P<obj>(?:a|an|the|my|our|its|this|that|these|those|some|another|it|them|everything)"
                              r"\b[^.,;:!?()\n]{0,40})", re.I)
# ... cut at a preposition or a conjunction: "the hang on our NVLink nodes", "it for a day", "the hang only after ..."
_OBJECT_END = re.compile(r"\s(?:on|in|at|for|with|by|after|before|when|once|since|until|only|and|but|so|now|then|"
                         r"too|again|completely|immediately)\b.*", re.I | re.S)
_FAILURE_NAMED = re.compile(r"^(?:it|them|everything)\b|^(?:this|that)$|\b(?:issues?|problems?|bugs?|behaviou?rs?|"
                            r"watchdog|" + _EN_HANG_STEM + r"|time[sd]?\s*outs?)\b", re.I)
_ANOTHER_ONE = re.compile(r"\b(?:different|other|another|separate|unrelated)\b", re.I)
_BARE_GOES_ON = re.compile(r"keeps?|kept|continu\w*|persist\w*", re.I)
_HANG_WORD = re.compile(r"\b(?:" + _EN_HANG_STEM + r")", re.I)
# (the hang itself back, not anything "back": "We are back in business.", "Throughput is back at 40 tok/s")
_CAME_BACK = re.compile(r"\b(?:it|they|the\s+(?:problem|issue|bug|behaviou?r)|(?:the\s+)?(?:" + _EN_HANG_STEM
                        + r"))\s+(?:came|comes|come|is|are|was|were)\s+back\b(?!\s+(?:to|up|online|with|from)\b)",
                        re.I)
# (a "still" / "again" / "remains" of the hang's own clause: "but the hang remains", "now it hangs again" — not of
# another matter after the cure: "fixed the hang, though throughput is still below what we expected", "the startup
# warning still shows" (second read, fr47c))
_CLAUSE_CUT = re.compile(r"[,;:()]|\b(?:though|although|but|while|whereas)\b", re.I)
_HANG_SUBJECT = re.compile(r"\b(?:it|they|the\s+(?:problem|issue|bug))\b|\b(?:" + _EN_HANG_STEM + r")", re.I)


def _hang_still_on(text: str) -> bool:
    """Does a clause of `text` say the hang (or "it", "the problem") is still or again there (_still_wrong)?"""
    return any(_still_wrong(clause) and _HANG_SUBJECT.search(clause) for clause in _CLAUSE_CUT.split(text))


def _release_cured_failure(text: str, pos: int) -> bool:
    """(fr47) Does the release said up to text[pos], read as a fix ("fixes"), cure the failure (_FIX_VERB_OBJECT,
    _FAILURE_NAMED) and keep it cured (_hang_still_on, _EN_GOES_ON_NEXT, _CAME_BACK)?"""
    end = sentence_end(text, pos, 240, questions=False)
    rest = text[pos:end]
    nxt = re.split(r"\n\s*\n", text[end:sentence_end(text, end + 1, 240, questions=False)])[0]
    objects = [_OBJECT_END.sub("", m.group("obj")).strip() for m in _FIX_VERB_OBJECT.finditer(rest)]
    if objects and not any(_FAILURE_NAMED.search(o) and not _ANOTHER_ONE.search(o) for o in objects):
        return False  # "fixed a different issue", "fixed the import error": something else was fixed
    # (a bare "keeps" / "continues" only with a hang word after it, or in the next sentence: "training continues
    # normally" is the cure kept, "it keeps hanging" and "The hang persists." are not)
    goes_on = any(not _BARE_GOES_ON.fullmatch(g.group(0)) or _HANG_WORD.search(part, g.end(), g.end() + 20)
                  or (next_one and _HANG_WORD.search(part))
                  for next_one, part in ((False, rest), (True, nxt)) for g in _EN_GOES_ON_NEXT.finditer(part))
    return not (_hang_still_on(rest) or goes_on or _CAME_BACK.search(rest + " " + nxt))


def remedies(source, text: str, handed: set[int]) -> list[Claim]:
    """The remedies of REMEDIES the reporter's `text` says were tried, each a claim "remedy" with data {name, path,
    effect}: effect as a setting's (_tried_effect: "fixes", "no_help", "worse", None); advice not answered has none,
    and a remedy supposed or guessed ("if I add --ipc=host ...", "maybe --enforce-eager helps?") is a guess."""
    out = []
    for name, (path, pattern) in REMEDIES.items():
        for m in pattern.finditer(text):
            sentence = _sentence_at(text, m.start())
            at, _, _, advised = _advice_at(text, m.start(), m.group(0), sentence, handed)
            effect, answered = _tried_effect(text, m.start(), m.group(0), sentence, at, advised, False)
            if effect == "fixes" and not answered and setting_off(text, m.start(), m.end()):
                effect = None  # "someone suggested --ipc=host, it works for them": not what runs here
            if effect == "no_help" and path.endswith("_release") \
                    and not _STAYED.search(sentence + " " + _sentence_at(text, m.start())):
                effect = None
            if effect == "fixes" and path.endswith("_release") and not answered \
                    and not _release_cured_failure(text, m.end()):
                effect = None
            supposed = not answered and _supposed_at(sentence, at)
            out.append(Claim("remedy", source, _quote(text, m, 40), {"name": name, "path": path, "effect": effect},
                             guess=supposed or (advised and not answered)))
    return out


def tried_without_effect(facts: Facts, *paths: str) -> list[Claim]:
    """The reporter's settings (PATH_SETTINGS) and remedies (REMEDIES) that switched one of `paths` off or moved it and
    did not change the failure ("I set NCCL_P2P_DISABLE=1 and it still hangs", "even with X=1 it hangs the same way",
    "设置了 X 还是卡住", "I added --shm-size 16g and it still hangs", "upgrading the driver did not help")."""
    names = {name for path in paths for name in PATH_SETTINGS.get(path, ())}
    return [c for c in find(facts, "setting") + find(facts, "remedy") if c.data.get("effect") == "no_help"
            and not c.guess and (c.data["name"] in names or c.data.get("path") in paths)]


def said_working(facts: Facts, subject: str) -> list[Claim]:
    """The reporter's words that the `subject` of WORKING_WORDS (pcie, shm, numa, nvlink, network) works on this host
    or was ruled out: affirmed, no guess or condition, not said of another host, an earlier time or part of the GPUs
    (_SAID_ELSEWHERE), nor beside contrary words (_WORKING_CONTRARY). Weaker than an artifact showing the fault: a
    rule weighs it only against a cause named from a prior (a riser, a container's default, an inventory line)."""
    return _said_of_this_host(facts, f"{subject}_working", _WORKING_CONTRARY.get(subject))


# Kinds whose words under a condition are a rule, not what happened (rules._first makes them a guess): MORE_WORDS_K's,
# and the heads refusal said in prose ("this allows AutoTP to run even when number heads are not divisible by number
# of devices": the change lifts the limit).
_READ_IN_CONDITIONS = frozenset(MORE_WORDS_K) | WORKING_KINDS | {"tp_size_error"}
# (s23 review) Graphs off or not run, said under a supposition in the clause before ("if", "unless", "should",
# "would"): "-1 if cuda graph is not used" (vLLM's FlashInfer metadata docstring) says what would follow, not the run
# the reporter has. "When" stays a report ("when I run with --enforce-eager, it is slow" is the reporter's run), as
# conditional(when=False) reads it.
_READ_IN_SUPPOSITIONS = frozenset({"eager_flag"})
# (review37) A host state under a supposition is supposed, not seen: "If streaming were the bottleneck I would see the
# CPU busy", "If the CPU were the bottleneck I would see one core at 100%". A change tried under "if" stays the
# reporter's run ("if I give the container --cpus=2 it is 3 times slower"), so only the state's words (a bottleneck
# named, a load figure) are read this way.
_STATE_IN_SUPPOSITIONS = frozenset({"cpu_ab"})
_SUPPOSED_STATE = re.compile(r"\bbottleneck|\d\s*%")

# A job said to span GPUs without a count: "multi-GPU training", "with both GPUs", "two RTX A6000 GPUs". A count is a
# whole word before a plural: a model number or a memory size before "GPU" ("RTX 2080 GPU", "24GB GPU") is one GPU.
# (issue 11) A tensor-parallel degree bounded below at two ("when tensor-parallel-size>1, stuck",
# vllm-project/vllm#8087; "Hangs indefinitely when `tensor_parallel_size` > 1", genlm/genlm-backend#10; "tp≥2"), and
# the Chinese words for several cards: 多卡 (multi-card: "单卡可以，多卡就卡住了", opendatalab/DocLayout-YOLO#172),
# 双卡 (two cards: "单机双卡训练时总是卡住", Tencent-Hunyuan/SRPO#19), a count of cards ("两张卡", "4块显卡").
# 单卡 is one card.
# (para38: "several" said as "a bunch of", "a couple of", "a few", "various": "tried it on a bunch of different GPUs")
_SEVERAL_GPUS = re.compile(r"\bmulti[- ]?GPUs?\b|(?<![\w.])(?:multiple|several|both|two|three|four|2|3|4|more than one|"
                           r"a bunch of|a couple of|a few|various|"
                           r"all (?:the |my |our )?)\s+(?:[\w-]+\s+){0,2}?(?:GPUs|cards|devices)\b|"
                           r"(?:\btp|\bTP|tensor[-_ ]parallel(?:[-_ ]size)?|tp[-_]size)`?\s*"
                           r"(?:(?:≥|>=|=>)\s*(?:[2-9]|[1-9]\d)|>\s*(?:[1-9]|[1-9]\d))(?![\d.])|"
                           # (mend43) a count, a board's name, then GPU or card in the singular, as people write
                           # it: "Hardware: two 4090 GPU" (zai-org/CogVLM#56), "2 x RTX 3090 card"; not what the
                           # words then name ("two A100 GPU hours", "two A100 GPU types", "4 A100 GPU nodes")
                           r"(?<![\w.-])(?:two|three|four|five|six|seven|eight|sixteen|[2-9]|[1-9]\d{1,2})"
                           r"\s*(?:[x×*]\s*|个\s*)?(?:NVIDIA\s+)?(?:GeForce\s+|Tesla\s+)?(?:RTX\s*|GTX\s*)?"
                           r"(?:[AHLBTVP]\d{1,3}S?|[1-9]0[5-9]0|A[2-6]000)(?:\s*Ti)?"
                           # each card's memory may stand between: "4 v100 (32G) GPU" (sunshangquan/Histoformer#1)
                           r"(?:\s*[(\[]?\s*\d{2,3}\s*G(?:i?B)?\s*[)\]]?)?\s*(?:GPU|card)\b"
                           r"(?!['’]?s?\s*-?\s*(?:hours?|hrs?|types?|models?|kinds?|nodes?|servers?|hosts?|machines?|"
                           r"instances?|clusters?|generations?|families|architectures?|days?|years?|小时)\b)(?!小时)|"
                           # ... or the count after the word: "We trained on A100 80GB GPU x 4" (ByeongHyunPak/tqdm#3)
                           r"(?<![\w.-])(?:[AHLBTVP]\d{1,3}S?|[1-9]0[5-9]0|A[2-6]000)(?:\s*Ti)?"
                           r"(?:\s*[(\[]?\s*\d{2,3}\s*G(?:i?B)?\s*[)\]]?)?\s*(?:GPU|card)s?\s*[x×*]\s*"
                           r"(?:[2-9]|[1-9]\d{1,3})(?![\d.x×*])|"
                           r"多卡|双卡|多(?:张|块|个|颗)\s*(?:显卡|卡|GPU)|(?:两|二|三|四|五|六|七|八|[2-9])\s*(?:张|块|颗)\s*(?:显卡|卡|GPU)|"
                           # (ut25) GPUs named by index: "GPU 2 and 3" (pytorch/pytorch#1656), "GPUs 0, 1 and 2",
                           # "GPU0 and GPU1" (not "GPU 0 and 1 GB": a size follows)
                           r"\bGPUs?\s?#?\d{1,2}(?:\s*,\s*(?:GPU\s?)?#?\d{1,2})*\s*(?:,|\band\b|&)\s*(?:GPU\s?)?#?\d{1,2}\b"
                           r"(?!\s*(?:[GMK]i?B|GB/s|%|W\b|°|C\b))",
                           re.I)


# (review38b) Boards tried each by itself, not one job across them: "I tried a bunch of different GPUs (a 3090, a 4090),
# each one alone", "tested on various GPUs separately", "逐个测试". "each GPU uses 20 GB" (a share of one job) says
# nothing of the kind, nor "one at a time" (a layer split's GPUs work one at a time, in one job).
_EACH_BY_ITSELF = re.compile(r"\b(?:one\s+by\s+one|separately|(?:each|every)\s+(?:one\s+|card\s+|GPU\s+|board\s+)?"
                            r"(?:alone|on\s+its\s+own|by\s+itself))\b|逐个|挨个", re.I)


def several_gpus(facts: Facts) -> bool:
    """Does the reporter say, not rule out ("I have not tried multiple GPUs") nor guess, that the job spans GPUs, and
    not that the boards ran each by itself (_EACH_BY_ITSELF)?"""
    for _, text in texts(facts):
        for sentence in sentences(text):
            for m in _SEVERAL_GPUS.finditer(sentence):
                if not _NEGATION.search(sentence[max(0, m.start() - 30):m.start()]) and \
                        not _guessed(sentence, m.start()) and not _EACH_BY_ITSELF.search(sentence):
                    return True
    return False


# A thing said absent after its name: "the InfiniBand cards are not installed", "RoCE is missing".
_ABSENT_AFTER = re.compile(r"[\w\s/-]{0,25}?\b(?:(?:is|are|was|were)\s+not|isn't|aren't|wasn't|weren't|missing|absent|"
                           r"unavailable)\b", re.I)


def ruled_out(text: str, m: re.Match) -> bool:
    """Is the word `m` found in `text` said absent ("no RoCE", "without InfiniBand", "the IB cards are not
    installed")? Each mention answers for itself: "HDR InfiniBand ... no IB errors" names a fabric present."""
    before = text[max(0, m.start() - 30):m.start()].rsplit("\n", 1)[-1]
    return bool(_NEGATION.search(before) or _ABSENT_AFTER.match(text, m.end()))


# The reporter saying a reading was taken while the GPUs worked: "this is while running vLLM", "under load", "during
# inference". Running a monitoring tool is no load: "the output I got while running nvidia-smi".
READ_BUSY = re.compile(
    r"\b(?:while|during)\s+(?:(?:it|they|we|the (?:job|model|server|GPUs?)) (?:is|are|was|were) )?"
    r"(?:running|training|serving|inference|generat\w+|benchmark\w*|decod\w+|the (?:run|benchmark|test|job|inference|"
    r"training))\b(?!\s+(?:the\s+)?(?:nvidia-smi|lspci|nvtop|nvitop|gpustat|dcgmi|nvidia-bug-report|lshw|dmidecode|"
    r"htop|the command|this command|that command)\b)|\bunder (?:full |heavy )?load\b|"
    # an engine or benchmark named as the one at work: "while vLLM serves", "while all_reduce_perf runs"
    r"\b(?:while|during)\s+(?:the\s+)?(?:vLLM|SGLang|TGI|TensorRT-LLM|trtllm\w*|llama\.cpp|llama-server|ollama|"
    r"lmdeploy|DeepSpeed|torchrun|(?:all_reduce|all_gather|reduce_scatter|sendrecv)_perf|nvbandwidth|bandwidthTest|"
    r"p2pBandwidthLatencyTest|the (?:model|server|engine))\s+(?:is\s+|was\s+)?(?:serv\w+|runs|running|ran|generat\w+|"
    r"decod\w+|infer\w*|train\w*|benchmark\w*)\b", re.I)
# "not running" as a state, not a speed: "the decode is not running any faster" says nothing of idleness.
# (word prefixes: a quote may cut the word, "…not running much faste…")
_SAID_IDLE = re.compile(r"\b(?:idle|idling|at rest|not (?:running|loaded|in use))\b"
                        r"(?!\s+(?:any\s+|much\s+)?(?:fast|slow|bett|quick|well|as\b|at\s+full))", re.I)


def _said_not(sentence: str, start: int) -> bool:
    """Do the words just before `start`, in the same clause, negate what follows ("not while running vLLM",
    "(not under load)", "never during inference", "can't reach 100% CPU load")? A negated verb of liking takes what
    follows as its object and leaves it standing ("I don't like 85 degrees on my GPU")."""
    window = sentence[max(0, start - 30):start].rsplit("\n", 1)[-1]
    if _QUOTE_DENIED.search(window):
        return True
    if _CANNOT_REACH.search(window):
        return True
    before = _NEGATION.search(window)
    if before and _DISLIKED.match(window, before.start()):
        return False
    if before and _CAUSE_AFTER.search(before.group(0)) and not _CAUSE_DENIED.match(before.group(0)):
        return False  # "GPU is not usable due to Uncorrectable ECC Error": the "not" is the effect's; the cause stands
    # "HW Slowdown : Not Active, SW Power Cap : Active": a "Not" after a colon is the field before's value
    return bool(before and not _CLAUSE.search(before.group(0)) and not re.search(r":\s*$", window[:before.start()]))


# (errors31) A quoted message denied right before its opening quote: "There is no 'Cannot re-initialize CUDA in forked
# subprocess' error", "I don't see \"no socket interface found\"", "never got 'Address already in use'". Only the
# negation next to the quote, or one verb of seeing between: in 'doesn't have NCCL "Distributed package doesn't have
# NCCL built in"' the "doesn't" is the words before's, and the quote is the message shown.
# (review37) A determiner may stand between: "it's not the 'CPU does not have AVX ...' issue", "I don't get the 'X'
# error".
_QUOTE_DENIED = re.compile(r"(?:\b(?:no|not|never|without|nor)|n't)(?:\s+(?:see|seen|saw|get|gets|got|getting|find|"
                           r"found|show|shows|showed|hit|hitting))?(?:\s+(?:the|that|this|any))?\s*['\"`\u2018\u201c]\s*$",
                           re.I)
# "Can't reach 100% CPU load" (https://github.com/opendreamnet/dreampower/issues/90): a level not reached, as
# _UTIL_BOUND reads a utilisation's "will not reach 100 %".
_CANNOT_REACH = re.compile(r"\b(?:can't|cannot|can not|couldn't|could not|unable to)\s+(?:ever\s+)?"
                           r"(?:reach|hit|get to|exceed|go (?:above|beyond|over|past))\s+(?:~|about\s+)?$", re.I)
# A cause connective after the "not" ("not usable due to", "doesn't work because of", "fails to start caused by")
_CAUSE_AFTER = re.compile(r"\b(?:due to|because of|caused by|owing to|thanks to)\b", re.I)
# ... unless the "not" stands right before the connective: then the cause itself is ruled out ("The regression is not
# caused by #4606", "not due to the driver", "isn't because of P2P")
_CAUSE_DENIED = re.compile(r"(?:not|never|isn't|wasn't|aren't|weren't)\s+(?:(?:really|necessarily|actually)\s+)?"
                           r"(?:due to|because of|caused by|owing to)\b", re.I)
# "don't like", "do not want": the figure after it is what the reporter sees and dislikes
# (https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/1614)
_DISLIKED = re.compile(r"(?:do|does|did)?\s*(?:not|n't)\s+(?:really\s+)?(?:like|love|enjoy|want)\b", re.I)


def said_idle(text: str) -> bool:
    """Does the reporter say, not negated, that the GPU was idle ("read at idle", "nothing running")? Then a low
    clock, power state or link generation is power saving."""
    return any(not _said_not(sentence, m.start())
               for sentence in sentences(text) for words in (_SAID_IDLE, _IDLE_STATE) for m in words.finditer(sentence))


def said_busy(text: str) -> str | None:
    """The reporter's words that a reading was taken under load, as a one-line quote; not when negated ("with no load,
    not while running vLLM"), asked, supposed or conditional ("should go back to Gen 4 under load", "should I capture
    it while running the benchmark?"), nor beside words, not themselves negated, that the GPU was idle."""
    for sentence in sentences(text):
        idle = said_idle(sentence)
        for m in READ_BUSY.finditer(sentence):
            if not (idle or _said_not(sentence, m.start()) or _guessed(sentence) or hypothetical(sentence, m.start())):
                return one_line(sentence[max(0, m.start() - 40):m.end()])
    return None


# A stated size of the difference between two releases: "around 10% slower", "3x slower", "busbw is 40% lower",
# "slower by 5 %". "Lower", "higher", "less" and "more" say speed only in a clause about speed ("5% more memory" is
# no slowdown).
_STATED_DIFFERENCE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(%|x|×|times)\s*(?:\w+\s+){0,2}?"
    r"(slower|faster|lower|higher|less|more|worse|better|drops?|decrease\w*|degradation|regression)\b|"
    r"\b(slower|faster|lower|higher|worse|better|drops?|decrease\w*)\s+by\s+(?:about\s+|around\s+|~)?"
    r"(\d+(?:\.\d+)?)\s*(%|x|×|times)", re.I)
_NEUTRAL_COMPARATIVE = ("lower", "higher", "less", "more")
_SPEED_NOUN = re.compile(r"\b(?:bus ?bw|busbw|algbw|bandwidth|bw|throughput|speed|performance|perf|latency|"
                         r"step time|tok(?:en)?s?/s|GB/s)\b", re.I)
_MEMORY_NOUN = re.compile(r"\b(?:memory|VRAM|RAM|mem|footprint|disk)\b", re.I)


def stated_release_ratio(quote_text: str) -> float | None:
    """The largest speed ratio between two releases a sentence states in words (">= 1"), or None: "10% slower" is
    1.1, "3x slower" 3.0. The figures of one system measured twice move by a few percent, so only a ratio past
    RELEASES_DIFFER says the releases differ."""
    ratios = []
    for clause in _CLAUSES.split(quote_text):
        for m in _STATED_DIFFERENCE.finditer(clause):
            value, unit, word = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(5), m.group(6),
                                                                                         m.group(4))
            if word.lower() in _NEUTRAL_COMPARATIVE and (not _SPEED_NOUN.search(clause) or _MEMORY_NOUN.search(clause)):
                continue  # "5% more memory": not a speed
            v = float(value)
            ratio = (1 + v / 100 if v < 100 else None) if unit == "%" else (v if v >= 1 else None)
            if ratio:
                ratios.append(ratio)
    return max(ratios, default=None)


# One GPU slow to every peer while the other pairs are fine: the links its traffic shares, its own PCIe link
# (or its NVLinks), not the fabric. Said of bandwidth or copies, not of compute ("GPU 3 is slower": one_slow), nor
# of latency ("the lowest latency to all other GPUs" is the best GPU).
_SLOW_LINK = r"(?:slow(?:er)?|(?:low(?:er)?|poor|bad)\s+(?:bandwidth|GB/s)|only\s+\d+(?:\.\d+)?\s*GB/s)"
_ONE_TO_ALL = re.compile(
    r"\bGPU\s?(\d+)\b[^.\n]{0,50}?\b" + _SLOW_LINK + r"\b[^.\n]{0,40}?"
    r"\b(?:to|with|from|and)\s+(?:every|all|each|any)(?:\s+(?:other|the other))?\s+(?:peers?|GPUs?|cards?|devices?)\b|"
    r"\b(?:every|all|each|only the)\s+(?:pairs?|transfers?|copies|links?)\b[^.\n]{0,30}?"
    r"\b(?:with|involving|to|from|that (?:includes?|touch(?:es)?))\s+GPU\s?(\d+)\b[^.\n]{0,30}?\b" + _SLOW_LINK + r"\b",
    re.I)
# The same said of every GPU ("like every GPU here", "as is every GPU in this box"): no one GPU's link
_BW_CONTEXT = re.compile(r"\b(?:GB/s|bandwidth|bw|busbw|P2P|peer|copy|copies|transfer\w*|p2pBandwidth\w*|"
                         r"nvbandwidth|all[-_ ]?reduce)\b", re.I)
_EVERY_GPU = re.compile(r"\b(?:every|each|all(?:\s+(?:the|my|our|of the))?)\s+(?:GPUs?|cards?|pairs?)\b", re.I)
def one_gpu_slow_to_all(facts: Facts) -> list[Claim]:
    """A GPU slow to every peer in a transfer or bandwidth test, the other pairs fine: data {gpu}."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for sentence in sentences(text):
            m = _ONE_TO_ALL.search(sentence)
            if not m or not _BW_CONTEXT.search(sentence) or \
                    _NEGATION.search(sentence[max(0, m.start() - 30):m.start()]) or \
                    _EVERY_GPU.search(sentence[:m.start()] + " " + sentence[m.end():]):
                continue
            out.append(Claim("one_gpu_slow_to_all", source, _quote(sentence, m, 60),
                             {"gpu": int(m.group(1) or m.group(2))}, guess=_guessed(sentence)))
    return out


# A job that runs NCCL: its collectives, communicators and process groups, or a distributed launcher or layout.
DISTRIBUTED = re.compile(r"\b(?:NCCL|communicators?|communication groups?|process groups?|collectives?|DDP|"
                         r"DistributedDataParallel|FSDP|all[-_ ]?reduce\w*|all[-_ ]?gather\w*|torchrun|"
                         r"torch\.distributed|multi[- ]?(?:GPU|node)|tensor[- ]parallel\w*|data[- ]parallel\w*)\b",
                         re.I)


# Two PyTorch releases set against each other ("torch~=2.1.1 ... torch~=2.3.0", "PyTorch 1.13 vs 2.1", "slower on
# torch versions after 2.1"): each release's wheels pin their own NCCL (the nvidia-nccl-cu* dependency;
# torch.cuda.nccl.version() names it), so a distributed job that changes speed with the release alone may be seeing
# an NCCL change. A version floor ("torch>=2.1" in a requirements list, "we need torch > 2.0") names no release used.
# The name may be glued to its release or to the words around it ("torch2.3.0", "采用pytorch1.13.1的"), not to another
# name (libtorch, torch_tensorrt, torch2trt: the release must follow at once).
_TORCH_RELEASE = re.compile(r"(?<![A-Za-z])(?:torch|pytorch)(?![A-Za-z_])[\s=~:v]{0,4}(\d\.\d{1,2}(?:\.\d{1,2})?)"
                            r"(?![\d.]*\d)", re.I)
# "torch ... from 2.1 to 2.4", or the component named after "from": "upgraded from PyTorch 2.1 to 2.4"
_TORCH_FROM_TO = re.compile(r"(?:\b(?:torch|pytorch)\b[^.\n]{0,20}?\bfrom\s+|\bfrom\s+(?:torch|pytorch)[\s=~:v]{0,4})"
                            r"v?(\d\.\d{1,2}(?:\.\d{1,2})?)\s+to\s+(?:(?:torch|pytorch)[\s=~:v]{0,4})?"
                            r"v?(\d\.\d{1,2}(?:\.\d{1,2})?)", re.I)
# (para37d) also with the nouns left out, "slower on torch > 2.1", "torch newer than 2.1 runs slower": in a sentence
# that compares speed (_SPEED_COMPARED) the bound names the releases used, not a requirement's floor
_TORCH_AFTER = re.compile(r"\b(?:torch|pytorch)\s+(?:(?:versions?|releases?)\s+(?:after|since|newer than|above)\s+|"
                          r"(?:newer than|after|>)(?!=)\s*)v?(\d\.\d{1,2})\b", re.I)
_SPEED_COMPARED = re.compile(r"\b(?:slower|faster|worse|better|slowdowns?|regress\w*|degrad\w*)\b", re.I)


# Which way a release comparison goes: "X is slower than Y", "moving to 2.3 made it slower", "downgrading makes it
# faster" (the newer release slower).
# (issue 11 n) and the rate said lower or higher: "with 2.3 the throughput is lower", "lower tok/s on 2.4"
_RATE_NAMES = r"(?:throughput|tok\w*/s|tok(?:en)?s? per second|speed|performance|bandwidth|samples/s|it/s|QPS)"
_SLOWER = re.compile(r"\b(?:slower|slowdowns?|worse|regress\w*|degrad\w*|drop(?:s|ped)?)\b|"
                     r"\b(?:lower|less|reduced)\s+" + _RATE_NAMES + r"|\b" + _RATE_NAMES + r"\s+(?:is|was|gets|got|"
                     r"becomes|became|goes|went)\s+(?:much\s+|a lot\s+|noticeably\s+|clearly\s+)?(?:lower|down)\b",
                     re.I)
_FASTER = re.compile(r"\b(?:faster|better|quicker|improv\w*|speed-?ups?)\b|"
                     r"\bhigher\s+" + _RATE_NAMES + r"|\b" + _RATE_NAMES + r"\s+(?:is|was|gets|got|becomes|became|"
                     r"goes|went)\s+(?:much\s+|a lot\s+|noticeably\s+|clearly\s+)?(?:higher|up)\b", re.I)
_THAN = re.compile(r"\b(?:than|vs\.?|versus|compared (?:to|with))\b", re.I)
_BACK = re.compile(r"\b(?:downgrad\w*|roll(?:ed|ing)? back|revert\w*|go(?:ing)? back|went back)\b", re.I)
_BARE_RELEASE = re.compile(r"(?<![\d.])(\d\.\d{1,2}(?:\.\d{1,2})?)(?![\d.]*\d)(?!\s*(?:x|%|s\b|ms\b|GB))")


def newer_slower(sentence: str) -> bool:
    """Does the sentence say, not negated, that the newer release is the slower one? "X is faster than Y" is a slowdown
    only when X is the older; a comparative without "than" reads along the change ("upgrading made it slower",
    "downgrading made it faster")."""
    slower = [m for m in _SLOWER.finditer(sentence) if not _said_not(sentence, m.start())]
    faster = [m for m in _FASTER.finditer(sentence) if not _said_not(sentence, m.start())]
    than = _THAN.search(sentence)
    word = max((m for m in slower + faster if than and m.end() <= than.start()), key=lambda m: m.start(), default=None)
    if word:  # the comparative just before "than" says which side is slower
        a = _BARE_RELEASE.findall(sentence[:than.start()])
        b = _BARE_RELEASE.findall(sentence[than.end():])
        if a and b and version_key(a[-1]) != version_key(b[0]):
            return (version_key(a[-1]) > version_key(b[0])) == (word in slower)
    return bool(slower) or bool(faster and _BACK.search(sentence))


def torch_releases_compared(facts: Facts) -> list[Claim]:
    """The reporter sets two PyTorch releases against each other, or the releases after one against it in a sentence
    that compares speed: data {versions, slower: a sentence naming them says the newer is slower}."""
    out: list[Claim] = []
    for source, text in texts(facts):
        found = [m.group(1) for m in _TORCH_RELEASE.finditer(text)]
        found += [v for m in _TORCH_FROM_TO.finditer(text) for v in m.groups()]
        versions = list(dict.fromkeys(found))
        later = next((m for x in sentences(text) if _SPEED_COMPARED.search(x) for m in _TORCH_AFTER.finditer(x)), None)
        if len({version_key(v)[:2] for v in versions}) >= 2 or later:
            m = later or _TORCH_RELEASE.search(text) or _TORCH_FROM_TO.search(text)
            sentence = next((x for x in sentences(text) if m.group(0) in x), m.group(0))
            named = [x for x in sentences(text) if _TORCH_RELEASE.search(x) or _TORCH_FROM_TO.search(x)
                     or _TORCH_AFTER.search(x)]
            out.append(Claim("torch_releases_compared", source, _quote(text, m, 80),
                             {"versions": versions or [later.group(1)], "slower": any(map(newer_slower, named))},
                             guess=_guessed(sentence) or asked(sentence)))
    return out


# --------------------------------------------------------------------------- the GPU driver's releases in prose (s24)
# NVIDIA's driver releases are numbered by branch, three digits, then the build ("535", "550.54.14", "576.33": the
# Linux and Windows release lists, https://docs.nvidia.com/datacenter/tesla/drivers/ and the CUDA release notes' table
# of minimum driver versions); a fabric manager's release is its driver's ("the Fabric Manager package version must
# match the driver version", https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/). A release is read
# only beside the word: after "driver" ("driver 550.54.14", "Driver Version: 535.129.03", "nvidia-driver-580.105.08",
# "drivers above 576.33"), before it ("the 535 driver"), or moved to in a text that names the driver ("rolled back to
# 535"); a figure with a unit after it ("550 W", "115 tok/s") is none.
_DRIVER_NUMBER = (r"R?(?P<release>[3-9]\d{2}(?:\.\d{1,3}){0,2})(?![\w.]*\d)(?![.,]\d)"
                  r"(?!\s*(?:(?:W|watts?|[KMG]?Hz|[KMGT](?:i?B|b|bit|bps)?(?:/s)?|ms|s|tok\w*|t/s|it/s|x|GPUs?|"
                  r"cores?|nodes?|series)\b|%|°))")
_DRIVER_BOUND = r"(?P<bound>above|newer than|later than|higher than|after|since|>=?|≥)"
_DRIVER_AFTER = re.compile(
    r"(?:\b(?:nvidia[-_ ])?drivers?|\bfabric[- ]?manager)(?:[-_ ](?:versions?|releases?|branch(?:es)?|series))?"
    r"[\s:=`'\"*-]{0,4}(?:(?:is|was|of|at|on|from|to|R|" + _DRIVER_BOUND + r")\s*[`'\"]?)?" + _DRIVER_NUMBER, re.I)
_DRIVER_BEFORE = re.compile(r"(?<![\w.])" + _DRIVER_NUMBER + r"(?:\s*\((?:studio|game ready|open)\))?"
                            r"(?:\s+(?:studio|open|proprietary|NVIDIA|GPU|display|series))?\s+drivers?\b", re.I)
# the next release of a list or a move ("from 535 to 550", "570 and 580", "535 vs 550", "570 → 580"), after one read
_DRIVER_NEXT = re.compile(r"\s*(?:,|/|\band\b|\bor\b|\bvs\.?|\bversus\b|\bto\b|->|→|=>)\s*(?:nvidia[-_ ]driver[-_ ]|"
                          r"drivers?\s+)?" + _DRIVER_NUMBER, re.I)
# a move to a release in a text that names the driver ("rolled back to 531.79", "Downgrading nvidia-dkms ... to 535",
# "update to: 595.79", "downgrading to driver version 510"), or the one left ("previously 595.84")
_DRIVER_MOVE = re.compile(r"\b(?P<verb>roll\w*\s*back|revert\w*|downgrad\w*|upgrad\w*|updat\w*|go\w* back|went back|"
                          r"previously|formerly)\b(?:[^.\n]{0,50}?\bto\b)?\s*:?\s*(?:version\s+)?"
                          r"(?:nvidia[-_ ]driver[-_ ]|drivers?\s+)?(?:version\s+)?" + _DRIVER_NUMBER,
                          re.I)
_DRIVER_NAMED = re.compile(r"\bdrivers?\b|nvidia[-_]driver|\bfabric[- ]?manager\b|\bnvidia-(?:dkms|utils)\b", re.I)
# CUDA's releases: majors 7 to 13, one-digit minors ("CUDA 12.4", "cuda 11.8", "CUDA Version: 12.8"); "CUDA runtime
# 2.25.2" is an application's own runtime package, not CUDA.
_CUDA_RELEASE = re.compile(r"\bCUDA(?:[-_ ](?:toolkit|version|runtime))?\s*[:=]?\s*v?(?P<release>(?:[7-9]|1[0-3])\.\d)"
                           r"(?:\.\d{1,3})?(?![\w.]*\d)", re.I)
_BACK_MOVE = re.compile(r"^(?:roll|revert|downgrad|go|went|previously|formerly)", re.I)


def driver_releases(text: str) -> list[tuple[str, int, str | None]]:
    """(release, position, bound word) of each GPU driver release the text names, in order, each once."""
    found: dict[str, tuple[int, str | None]] = {}
    for pattern in (_DRIVER_AFTER, _DRIVER_BEFORE):
        for m in pattern.finditer(text):
            found.setdefault(m.group("release"), (m.start("release"), m.groupdict().get("bound")))
            end = m.end()
            while n := _DRIVER_NEXT.match(text, end):
                found.setdefault(n.group("release"), (n.start("release"), None))
                end = n.end()
    if _DRIVER_NAMED.search(text):
        for m in _DRIVER_MOVE.finditer(text):
            found.setdefault(m.group("release"), (m.start("release"), None))
    return sorted(((r, at, bound) for r, (at, bound) in found.items()), key=lambda x: x[1])


def cuda_releases(text: str) -> list[str]:
    """The CUDA releases the text names ("CUDA 12.4", "cuda 11.8"), each once."""
    return list(dict.fromkeys(m.group("release") for m in _CUDA_RELEASE.finditer(text)))


def _driver_good(text: str, named: list[tuple[str, int, str | None]]) -> tuple[str | None, bool, str | None]:
    """(the release that behaves well, whether a release is said to behave badly, how the good one was said: "back",
    "forward", "left", "bound" or "clause"), as the text says: a release
    gone back to that cured it, one moved forward to that cured it, the one left when a move brought the failure, the
    bound of "releases above X" that are slower, or the one a clause of its own calls good."""
    releases = [r for r, _, _ in named]
    bad = False
    for sentence in sentences(text):
        if asked(sentence) or _guessed(sentence):
            continue
        here = [r for r in releases if re.search(r"(?<![\d.])" + re.escape(r) + r"(?![\d.]*\d)", sentence)]
        if not here:
            continue
        state = _state(sentence)
        bad = bad or state == "bad" or bool(_SLOWER.search(sentence))
        for r, _, bound in named:
            if bound and r in here and (state == "bad" or _SLOWER.search(sentence)):
                return r, True, "bound"  # "slower with driver versions above 576.33": the bound works
        move = _DRIVER_MOVE.search(sentence)
        if move and move.group("release") in here and not _BACK_MOVE.match(move.group("verb")):
            fro = re.search(r"\bfrom\s+(?:\S+\s+){0,2}?(?:nvidia[-_]driver[-_])?R?([3-9]\d{2}(?:\.\d{1,3}){0,2})",
                            sentence)
            if _CURED.search(sentence) or _improved_after(sentence, move.end()):
                return move.group("release"), bad, "forward"  # moved forward and it was cured
            if fro and (state == "bad" or _SLOWER.search(sentence) or _PERF_WORDS.search(sentence)):
                return fro.group(1), True, "left"  # the move brought the failure: the release left behind works
        elif move and move.group("release") in here and (_CURED.search(sentence) or state == "good"
                                                         or _state(sentence[:move.start()]) == "bad"):
            return move.group("release"), bad, "back"  # gone back to it, and it works (or away from the failure)
        parts = [p for p in _RELEASE_CONTRAST.split(sentence) if p]
        for part in parts:
            inside = [r for r in here if re.search(r"(?<![\d.])" + re.escape(r) + r"(?![\d.]*\d)", part)]
            cuts = [part.find(r) for r in inside] + [len(part)]
            for k, r in enumerate(inside):
                said = _state(part if len(inside) == 1 else part[cuts[k]:cuts[k + 1]])
                if said == "good" and len(releases) >= 2:
                    return r, bad, "clause"
                bad = bad or said == "bad"
    return None, bad, None


def driver_change(text: str) -> dict | None:
    """The reporter sets GPU driver releases against each other, or says a move of release brought or cured the
    failure: {versions, good (the release that behaves well, when said), how (how the good one was said, see
    _driver_good), cuda (the CUDA releases named beside)}."""
    named = driver_releases(text)
    if not named:
        return None
    versions = [r for r, _, _ in named]
    moves = [(s, m) for s in sentences(text) for m in _DRIVER_MOVE.finditer(s)]
    if any(_still_wrong(s[m.end():]) or _FIX_DENIED.search(s[m.end():]) for s, m in moves):
        return None  # "updated the driver to 375.66, but the problem still exists": the move changed nothing
    good, bad, how = _driver_good(text, named)
    moved = bool(moves)
    bounded = any(b for _, _, b in named)
    if good is None and not (bad and (len(versions) >= 2 or moved or bounded)):
        return None
    if good is not None and len(versions) < 2 and not (moved or bounded):
        return None  # "the 525 drivers work fine": one release said good, no change
    return {"versions": versions, "good": good, "how": how, "cuda": cuda_releases(text)}



# --------------------------------------------------------------------------- one rank's figure apart (issue 11 j)
# Per-rank (per-GPU, per-node) figures the reporter lists: "rank0 212 ms, rank1 209 ms, ... rank3 311 ms", or a
# table of GPU index and time. A synchronous step (a collective, a TP layer) ends when its slowest rank arrives, so
# one rank well behind its peers' median sets everyone's pace: a straggler, whatever holds it back.
_FIGURE_UNIT = r"(ms|s|us|µs|GB/s|tok/s|tokens/s|it/s|samples/s)(?![\w/])"
_RANK_FIGURE = re.compile(
    r"\b(?:rank|GPU|node|worker|device|cuda:)\s*#?\s*(\d{1,3})\b\s*(?:[:=)\]|]\s*|\s+(?:is|at|took|takes|:)?\s*)"
    r"(?:~|about\s+)?(\d+(?:\.\d+)?)\s*" + _FIGURE_UNIT, re.I)
_TIME_UNITS = ("ms", "s", "us", "µs")
_RANK_HEADER = re.compile(r"(?:GPU|rank|node|worker|device)\s*(?:id|#)?", re.I)


def _index_column(header: list[str], body: list[list[str]]) -> int | None:
    """The column that numbers ranks: named GPU, rank, node, worker or device (not a count such as issue_md's
    GPUS_HEADER), its cells consecutive from 0 or 1 ("| node | busbw | 1 | 2 | 4 |" counts nodes, it numbers none)."""
    for k, h in enumerate(header):
        if not _RANK_HEADER.fullmatch(h) or GPUS_HEADER.match(h):
            continue
        cells = [row[k].lstrip("#") for row in body]
        if all(c.isdigit() for c in cells) and [int(c) for c in cells] in (list(range(len(cells))),
                                                                              list(range(1, len(cells) + 1))):
            return k
    return None


def _table_rank_figures(text: str) -> dict[str, dict[str, tuple[float, str]]]:
    """{unit: {rank: (value, row)}} from Markdown tables with a rank column (_index_column) whose other cells hold
    figures with a unit (in the cell or the column header: "time (ms)")."""
    out: dict[str, dict[str, tuple[float, str]]] = {}
    rows = [ln.strip() for ln in text.splitlines()]
    for i, line in enumerate(rows):
        if not (line.startswith("|") and i + 1 < len(rows) and re.match(r"^\|[\s:|-]+\|?$", rows[i + 1])):
            continue
        header = md_cells(line)
        body = []
        for row in rows[i + 2:]:
            if not row.startswith("|"):
                break
            cells = md_cells(row)
            if len(cells) == len(header):
                body.append((row, cells))
        at = _index_column(header, [cells for _, cells in body])
        if at is None:
            continue
        for row, cells in body:
            for k, cell in enumerate(cells):
                unit_in = re.search(r"\b" + _FIGURE_UNIT, header[k])
                m = re.fullmatch(r"~?(\d+(?:\.\d+)?)\s*(?:" + _FIGURE_UNIT + ")?", cell, re.I)
                unit = (m.group(2) if m and m.group(2) else unit_in.group(1) if unit_in else None) if k != at else None
                if m and unit:
                    out.setdefault(unit.lower(), {}).setdefault(cells[at].lstrip("#"), (float(m.group(1)), row))
    return out


# (issue 11 n) Per-rank figures listed one per line without a unit, the unit given once above them as logs and
# spreadsheets head a column: "step time (ms):", "latency in ms", "times [s]".
# (a bracket after a word, "GPU(s):", is a plural, not a unit)
_UNIT_HEAD = re.compile(r"(?:(?<!\w)\(|\[|\bin\s+)(ms|milliseconds?|s|secs?|seconds?|us|µs|microseconds?|tok/s|"
                        r"tokens/s|GB/s|it/s|samples/s)(?:\)|\]|\b)", re.I)
_RANK_LINE = re.compile(r"^\s*(?:rank|GPU|node|worker|device)\s*#?\s*(\d{1,3})\s*[:=]?\s+~?(\d+(?:\.\d+)?)\s*$", re.I)
_UNIT_NAMES = {"millisecond": "ms", "milliseconds": "ms", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
               "microsecond": "us", "microseconds": "us"}


def _listed_rank_figures(text: str) -> dict[str, dict[str, tuple[float, str]]]:
    """{unit: {rank: (value, line)}} from three or more consecutive 'rank N <figure>' lines under a line naming the
    unit; nothing when no unit is named just above them."""
    out: dict[str, dict[str, tuple[float, str]]] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        run = []  # (line, its match)
        while i < len(lines) and (m := _RANK_LINE.match(lines[i])):
            run.append((lines[i], m))
            i += 1
        if len(run) >= 3:
            head = next((lines[k] for k in range(i - len(run) - 1, max(-1, i - len(run) - 3), -1)
                         if lines[k].strip()), "")
            unit = _UNIT_HEAD.search(head)
            if unit:
                name = _UNIT_NAMES.get(unit.group(1).lower(), unit.group(1).lower())
                for line, m in run:
                    out.setdefault(name, {}).setdefault(m.group(1), (float(m.group(2)), line.strip()))
        i += 1 if not run else 0
    return out


def rank_figures(facts: Facts) -> list[Claim]:
    """Per-rank (per-GPU, per-node) figures the reporter lists in a sentence or a Markdown table, one claim per text
    and unit: data {unit, time (a duration, else a rate), figures: [(rank, value, quote, guessed)]}. Which rank stands
    apart is the rules' decision (ticket_rules.rank_outliers)."""
    out: list[Claim] = []
    for source, text in texts(facts):
        by_unit: dict[str, dict[str, tuple[float, str]]] = {}
        spaced_bars = text.replace("|", " | ")
        for m in _RANK_FIGURE.finditer(spaced_bars):
            figure = (float(m.group(2)), _quote(spaced_bars, m, 40))
            by_unit.setdefault(m.group(3).lower(), {}).setdefault(m.group(1), figure)
        for unit, ranks in [*_listed_rank_figures(text).items(), *_table_rank_figures(text).items()]:
            for rank, figure in ranks.items():
                by_unit.setdefault(unit, {}).setdefault(rank, figure)
        for unit, ranks in by_unit.items():
            figures = [(rank, value, quote, _guessed(quote)) for rank, (value, quote) in ranks.items()]
            out.append(Claim("rank_figures", source, figures[0][2],
                             {"unit": unit, "time": unit in _TIME_UNITS, "figures": figures}))
    return out


# ------------------------------------------------------------------- model layers left on the CPU

# Where llama.cpp and Ollama put a model's layers. Ollama's `ollama ps` PROCESSOR column reads "48%/52% CPU/GPU" when
# the model is split between system memory and the GPU, "100% GPU" when it is all in VRAM
# (https://github.com/ollama/ollama/blob/main/docs/faq.md, "How can I tell if my model was loaded onto the GPU?");
# the runner logs "offloaded N/M layers to GPU"; llama.cpp's -ngl / --n-gpu-layers sets how many layers go to VRAM
# (https://github.com/ggml-org/llama.cpp/blob/master/tools/main/README.md), Ollama's num_gpu the same.
_OLLAMA_SPLIT = re.compile(r"\b(\d{1,3})\s*%\s*/\s*(\d{1,3})\s*%\s*CPU\s*/\s*GPU\b", re.I)
_OLLAMA_ALL_GPU = re.compile(r"(?<![\d/%])\s100\s*%\s*GPU\b(?![\s-]*(?:util\w*|usage|load|busy|compute))", re.I)
_OFFLOADED = re.compile(r"\boffload(?:ed|ing)\s+(\d{1,3})\s*/\s*(\d{1,3})\s+(?:repeating\s+)?layers\s+to\s+GPU\b", re.I)
# (s20) ... and the same count in the reporter's words, the loader's "N/M layers offloaded" (text-generation-webui, and
# "55/81 layers offloaded", oobabooga/textgen#6054) or "N of M layers on the GPU": "why only 42/81 layers are
# offloaded to GPU" (ollama/ollama#6008). Not "N/M layers to GPU" after "offloaded" (the log line, _OFFLOADED).
_LAYERS_ON_GPU_SAID = re.compile(r"(?<![\d/])(\d{1,3})\s*(?:/|of|out of)\s*(\d{1,3})\s+(?:repeating\s+)?layers\s+"
                                 r"(?:(?:are|were|is|was|got|get|being)\s+)?(?:offloaded\b|(?:loaded\s+)?(?:on|in|onto)\s+"
                                 r"(?:the\s+)?(?:GPUs?|VRAM)\b)", re.I)
_NGL = re.compile(r"(?:\s-ngl|--n-gpu-layers|--gpu-layers|\bnum_gpu)[\s=:\"]+(\d{1,4})\b", re.I)
# Ollama's server log states the placement it chose before loading: `msg="offload to cuda" layers.requested=-1
# layers.model=65 layers.offload=42 ...` (llm/memory.go; the same numbers `ollama ps` turns into "35%/65% CPU/GPU").
_OLLAMA_LAYERS = re.compile(r"\blayers\.model=(\d{1,3})\b.{0,80}?\blayers\.offload=(\d{1,3})\b|"
                            r"\blayers\.offload=(\d{1,3})\b.{0,80}?\blayers\.model=(\d{1,3})\b", re.I)
# text-generation-webui's GPTQ-for-LLaMa loader: "--pre_layer PRE_LAYER [PRE_LAYER ...] The number of layers to
# allocate to the GPU. Setting this parameter enables CPU offloading for 4-bit models. For multi-gpu, write the numbers
# separated by spaces, eg --pre_layer 30 60." (docs/Command-line-flags / the README's "GPTQ" flags): the last number is
# how many layers sit on the GPUs, the rest of the model's layers run on the CPU, as -ngl does in llama.cpp.
_PRE_LAYER = re.compile(r"--pre[_-]layers?[\s=]+(\d{1,3}(?:\s+\d{1,3})*)\b", re.I)
_CPU_SIDE = r"(?:the\s+)?(?:CPU|system\s+(?:RAM|memory)|(?:main\s+|host\s+)?RAM|host\s+memory)"
_OFFLOAD_WORDS = re.compile(
    r"\b(?:part|parts|some|half|rest|remainder|portion|\d{1,3}\s*%|(?:a\s+)?few|many)\s+(?:of\s+)?"
    r"(?:the\s+|its\s+|my\s+|our\s+)?(?:model|layers|weights|tensors|it|them)\b[\w\s,-]{0,20}?"
    r"\b(?:runs?|running|ran|is|are|sits?|lives?|stays?|goes|went|spills?|spilled|spilling|loaded|offloaded|placed|"
    r"computed|executed|kept)\b[\w\s-]{0,15}?\b(?:on|in|to|into|onto)\s+" + _CPU_SIDE + r"\b|"
    r"\bspill(?:s|ed|ing)?\s+(?:over\s+)?(?:in)?to\s+" + _CPU_SIDE + r"\b|"
    r"\boffload(?:s|ed|ing)?\s+(?:some|part|half|\d+)\s+(?:of\s+(?:the\s+|its\s+)?)?(?:layers|the model|weights)\s+"
    r"(?:to|on|onto)\s+" + _CPU_SIDE + r"\b", re.I)
# (xfail43b) a count of layers put on the CPU ("one layer always gets offloaded to CPU despite VRAM still available",
# ollama/ollama#11162), and a split said as halves or a rest ("offloads only half layers to gpu, half to cpu",
# ollama/ollama#9181). Guides say the same as advice ("you can load some layers to GPU and the rest to CPU RAM"), so a
# condition or a "you can" before it is no observation.
_OFFLOAD_COUNT_WORDS = re.compile(
    # (fr43) a model's depth is no count on the CPU ("my 2 layer LSTM runs on CPU"), nor is a clause after a comma
    # ("33 layers on GPU, none are on CPU")
    r"\b(?:one|two|three|[1-9]\d{0,2})\s+(?:more\s+|repeating\s+)?layers?\b"
    r"(?!\s+(?:LSTMs?|GRUs?|RNNs?|CNNs?|MLPs?|models?|networks?|nets?|transformers?|perceptrons?|encoders?|decoders?|"
    r"neural|deep|convolutional|recurrent|NNs?)\b)[\w\s-]{0,20}?\b(?:runs?|running|ran|is|are|"
    r"sits?|stays?|goes|went|gets?|got|loaded|offloaded|placed|assigned|kept)\b[\w\s-]{0,15}?\b(?:on|in|to|into|onto)\s+"
    + _CPU_SIDE + r"\b|"
    r"\b(?:half|part|some)\s+(?:of\s+)?(?:the\s+)?(?:layers|model|weights)\s+(?:\w+\s+){0,2}?(?:to|on|in|onto)\s+"
    r"(?:the\s+)?GPUs?\s*,?\s+(?:and\s+|but\s+)?(?:the\s+)?(?:other\s+half|half|rest|remainder)\s+(?:\w+\s+){0,2}?"
    r"(?:to|on|in|onto)\s+" + _CPU_SIDE + r"\b", re.I)
_YOU_CAN = re.compile(r"\b(?:" + YOU_MODAL + r"|you\s+would)\b", re.I)
# (xfail43b) the count on the GPU said with "only" and, later in the sentence, the model's count ("by default only 27
# layers are offloaded on GPU, but I want to offload all 43 layers to GPU", ollama/ollama#5843): llama.cpp and Ollama
# put on the GPU the layers that fit and leave the rest on the CPU, so "only n" on the GPU is a partial offload
# (fr43) A placement said of the past, fixed since: "Before the upgrade only 27 layers were offloaded to GPU",
# "previously", "used to", "with the old version".
_PAST_STATE = re.compile(r"\b(?:" + _BEFORE_THE_CHANGE + r"|" + _PAST_ADVERB + r"|"
                         r"(?:with|in|on)\s+the\s+(?:old|older|previous)\s+(?:version|release|build)s?)\b", re.I)
# (fr43 A2) The past said in an earlier clause that turns to now is not this placement's: "I used to get 40 tokens/s,
# but now only 20 layers are offloaded to GPU", "Before the update everything ran on the GPU, but now only 20 ...".
# (fr44r2) ... and after a change, its determiner optional as before ("after patching the Modelfile only 27 layers
# are offloaded", "after update 0.3.1 ..."); a concessive "even after" is none.
_TURN_TO_NOW = re.compile(r";|\b(?:but|now|currently|nowadays|today|these\s+days|since\s+then|"
                          r"(?<!\beven\s)after\s+" + _A_CHANGE + r")\b", re.I)
# (fr44r2) A placement put in the past tense ("only 27 layers were offloaded") is the past after a bare change too
# ("Before patching the Modelfile only 27 layers were offloaded"); one in the present needs the determiner (above).
_PAST_STATE_BARE = re.compile(r"\b" + _BEFORE_A_CHANGE + r"\b", re.I)
_PAST_VERB = re.compile(r"\b(?:were|was)\b", re.I)


def _past_state(before: str, past: bool = False) -> bool:
    """Is the placement after `before` said of the past, in its own clause (after the last turn to now)? `past`: the
    placement's own verb is in the past tense."""
    turns = [t.end() for t in _TURN_TO_NOW.finditer(before)]
    start = turns[-1] if turns else 0
    return bool(_PAST_STATE.search(before, start) or past and _PAST_STATE_BARE.search(before, start))


_ONLY_LAYERS_ON_GPU = re.compile(r"\bonly\s+(\d{1,3})\s+(?:repeating\s+)?layers\s+"
                                 r"(?:(?:are|were|is|was|got|get|gets|being)\s+)?"
                                 r"(?:offloaded|loaded|placed|put)\s+(?:on|in|onto|to)\s+(?:the\s+)?(?:GPUs?|VRAM)\b"
                                 r"(?:[^.;\n\d]{0,40}?\ball\s+(?:the\s+)?(\d{1,3})\s+layers\b)?", re.I)
# A layer count followed, in its clause, by what it would do: a comparison put in the conditional, not the setting used.
# (in the count's own clause: "-ngl 40 since more would not fit" gives the reason for the setting used)
_WOULD_AFTER = re.compile(r"(?:(?!\b(?:since|because|as|so|but|and|while|though)\b)[^,;.\n]){0,25}?"
                          r"\b(?:would|could|might)\b", re.I)
# The reporter saying the layers are not (or no longer) on the CPU: "nothing is offloaded", "fits in VRAM".
_NOT_OFFLOADED = re.compile(r"\b(?:no|not|never|nothing|none|no\s+longer|n't)\b[\w\s,-]{0,30}$", re.I)
# Output quoted from the documentation ("the FAQ says '48%/52% CPU/GPU' means ..."): an example, not this machine.
_DOCS_SAY = re.compile(r"\b(?:docs?|documentation|FAQ|README|manual|guide|wiki)\b[^.;]{0,20}?\b(?:says?|states?|"
                       r"mentions?|explains?|shows?|describes?)\b", re.I)
# A suggestion or a plan ("try offloading", "to fit a bigger context"), not where the layers are now.
_OFFLOAD_PLAN = re.compile(r"\b(?:try|trying|tried|could|should|would|maybe|perhaps|want to|how (?:do|can) I|"
                           r"is it possible)\b[^.;]{0,30}$", re.I)


# The reporter saying the whole model is on the GPU now ("everything is on the GPU now", "all layers fit in VRAM"):
# words about layers on the CPU in the same text then tell the past ("when part of the model ran on the CPU").
_ALL_ON_GPU = re.compile(r"\b(?:everything|all (?:of )?(?:the |its )?(?:layers|weights|model|of it)|"
                         r"the (?:whole|entire|full) model|it all)\b[\w\s,-]{0,20}?"
                         r"\b(?:is|are|runs?|sits?|fits?|goes|went|loaded)\b[\w\s-]{0,15}?"
                         r"\b(?:on|in|into|onto)\s+(?:the\s+)?(?:GPUs?|VRAM)\b", re.I)


def all_on_gpu(text: str) -> bool:
    """Does the reporter say, not negated, asked or supposed, that the whole model is on the GPU?"""
    return any(not (_NOT_OFFLOADED.search(s[:m.start()]) or _guessed(s) or hypothetical(s, m.start()))
               for s in sentences(text) for m in _ALL_ON_GPU.finditer(s))


def _quoted_output(sentence: str, m: re.Match) -> bool:
    """Is tool output written in prose as a condition, a guess or the docs' example, not what this machine printed?"""
    return _guessed(sentence) or hypothetical(sentence, m.start()) or bool(_DOCS_SAY.search(sentence[:m.start()]))


# (issue 11 w) Where else a model's weights sit outside the GPU, as each engine documents it:
# - vLLM's --cpu-offload-gb N ("the space in GiB to offload to CPU, per GPU ... loaded on the fly in each forward
#   pass", https://docs.vllm.ai/en/latest/configuration/engine_args.html): N GiB cross PCIe every step.
# - MoE experts computed on the CPU: KTransformers places the routed experts on the CPU and attention on the GPU
#   (https://github.com/kvcache-ai/ktransformers/blob/main/doc/en/DeepseekR1_V3_tutorial.md, "Expert Offload"; its
#   optimize rules name the CPU expert op KExpertsCPU); llama.cpp's --cpu-moe / --n-cpu-moe N and -ot "exps=CPU"
#   keep expert tensors in host memory (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md).
# - accelerate's device_map="auto" warns "Some parameters are on the meta device because they were offloaded to the
#   cpu" (or "disk"); those weights are copied to the GPU for each forward
#   (https://huggingface.co/docs/accelerate/concept_guides/big_model_inference).
# vLLM's / SGLang's flag and its Python keyword: GiB per GPU kept in host memory (zero, the default, offloads nothing).
CPU_OFFLOAD_GB = re.compile(r"(?:--cpu[-_]offload[-_]gb|\bcpu_offload_gb)[\s=:\"']+(\d+(?:\.\d+)?)", re.I)
# DeepSpeed ZeRO-Inference's parameter offload: the ZeRO-3 config's "offload_param": {"device": "cpu" | "nvme"}
# (https://www.deepspeed.ai/docs/config-json/#parameter-offloading), which the example scripts set from a flag of their
# own: transformers-bloom-inference's bloom-ds-zero-inference.py `--cpu_offload` (deepspeedai/DeepSpeed#2892),
# DeepSpeedExamples' zero_inference/run_model.py `--cpu-offload` / `--disk-offload`. ZeRO-Inference keeps the weights
# in host memory (or NVMe) and streams them into the GPU layer by layer on every forward pass
# (https://www.deepspeed.ai/2022/09/09/zero-inference.html; DeepSpeedExamples deepnvme/zero_inference/README.md).
# The flags are read where the text names DeepSpeed (a training script's "--cpu_offload" is another tool's); never
# vLLM's --cpu-offload-gb (a size: CPU_OFFLOAD_GB). Data {form: 'zero', to: 'cpu' | 'nvme'}.
_ZERO_OFFLOAD_FLAG = re.compile(r"(?<![\w-])--(cpu|disk)[-_]offload(?![-_\w])", re.I)
_ZERO_OFFLOAD_CONFIG = re.compile(r"[\"']offload_param[\"']\s*:\s*\{[^}]{0,120}?[\"']device[\"']\s*:\s*"
                                  r"[\"'](cpu|nvme)[\"']", re.I)
_DEEPSPEED = re.compile(r"\bdeepspeed\b", re.I)
# --n-cpu-moe N (-ncmoe N) keeps only the first N layers' experts on the CPU (https://github.com/ggml-org/llama.cpp/pull/15077):
# the claim carries N as first_layers.
_EXPERT_FLAGS = re.compile(r"(?:\s|^)(?:(?:--cpu-moe|-cmoe)\b|(?:--n-cpu-moe|-ncmoe)[\s=]+(?P<first>\d+)|"
                           r"(?:-ot|--override-tensor)[\s=]+[\"']?"
                           r"[^\s\"']*exps[^\s\"']*=CPU\b)|\bKExpertsCPU\b|\bk[-_ ]?transformers\b", re.I)
_EXPERT_WORDS = re.compile(
    r"\b(?:routed\s+|MoE\s+)?experts?\b(?:\s+(?:weights|layers|tensors|computation|compute))?[\w\s,-]{0,20}?"
    r"\b(?:on|to|in|into|onto)\s+" + _CPU_SIDE + r"\b|"
    r"\b(?:offload\w*|put(?:ting)?|plac\w+|keep\w*|kept|mov\w+|run\w*|comput\w+)\s+(?:the\s+|all\s+|its\s+|"
    r"routed\s+|MoE\s+)*experts?\s+(?:\w+\s+)?(?:to|on|onto|in)\s+" + _CPU_SIDE + r"\b|"
    r"\bCPU[-\s]+(?:side\s+)?experts?\b|专家[^。，,.]{0,10}?(?:放|跑|卸载|offload)\w*\s*(?:在|到)\s*(?:CPU|内存)", re.I)
# (c50g) What a question about the GPUs' share of the work names: the GPUs, their memory, a CUDA device ("cuda:0"), a
# multi-GPU optimize rule, in the words KTransformers' users write (its optimize rules are named
# DeepSeek-V3-Chat-multi-gpu*.yaml; "显卡" card, "显存" GPU memory, "多卡/双卡" several / two cards). Not the host's
# RAM or CPU ("内存", "CPU是满负载"): a question about those asks about the CPU side, which an offload uses as designed.
_GPU_SIDE = re.compile(r"\bGPUs?\b|\bVRAM\b|\bcuda:\d\b|multi[-_ ]?gpu|显卡|显存|多卡|双卡", re.I)


# Asking for more of the GPUs ("how do I use more of the GPU memory?", "如何使用更多的GPU显存", "充分利用显卡"), not
# more of anything else ("Do you need more info about my GPU setup?", r50d).
_MORE_OF = re.compile(r"\b(?:use|using|utili[sz]e|occupy|fill|load)\s+more\b|"
                      r"\bmore\s+(?:of\s+)?(?:the\s+|my\s+|its\s+)?(?:GPUs?|VRAM|(?:GPU\s+)?memory|cards?|cuda:\d)\b|"
                      r"更多|充分", re.I)


def speed_asked(facts: Facts) -> Claim | None:
    """The reporter's first question about speed (_SPEED_WORDS: "how many tokens/s should I expect?", "is it faster
    then?", "速度会提升吗"), or None."""
    return next((Claim("speed_asked", source, one_line(sentence)[:200])
                 for source, sentence in _asking_sentences(facts) if _SPEED_WORDS.search(sentence)), None)


def gpu_side_asked(facts: Facts) -> Claim | None:
    """The reporter's question that names the GPU side (_GPU_SIDE) when the questions are about speed: more of the GPUs
    or their memory asked for in it, or a speed asked in any of them ("is it faster then?", "速度会提升吗"); None
    otherwise (which GPU to pick, whether a card is supported: no speed asked)."""
    asking = list(_asking_sentences(facts))
    speed = any(_SPEED_WORDS.search(sentence) for _, sentence in asking)  # speed_asked's test, on the list in hand
    for source, sentence in asking:
        m = _GPU_SIDE.search(sentence)
        # (a question is conditional by nature: "will it be faster if the experts go to cuda:0?")
        if m and (speed or _MORE_OF.search(sentence)):
            return Claim("gpu_side_asked", source, _quote(sentence, m))
    return None


# accelerate's own words (big_modeling.dispatch_model: f"Some parameters are on the meta device because they were
# offloaded to the {offloaded_devices_str}.", the places of a set joined by " and ", either order; older releases wrote
# "meta device device"), not prose that says layers went to the CPU (the words forms read that)
_ACCELERATE_OFFLOADED = re.compile(r"\bon the meta device(?: device)? because they were offloaded to the "
                                   r"(cpu and disk|disk and cpu|cpu|disk)\b", re.I)
# (hostbound37) diffusers' sequential CPU offload and accelerate's cpu_offload, which it calls: every submodule's
# weights stay in host memory and are copied to the GPU when its forward runs, then dropped, on every step
# ("Sequential CPU offloading preserves a lot of memory but it makes inference slower because submodules are moved to
# GPU as needed", https://huggingface.co/docs/diffusers/optimization/memory; accelerate.cpu_offload, big_modeling.py).
# The pipeline call, the bare accelerate call and the node option that front ends name after it
# ("sequential_cpu_offload"), not enable_model_cpu_offload, whose whole-model moves the same page calls negligible in
# time. Data {form: 'hooks'}.
_OFFLOAD_HOOKS = re.compile(r"\benable_sequential_cpu_offload\b|(?<![\w.])(?:accelerate\.)?cpu_offload\s*\(|"
                            r"\bsequential[-_ ]cpu[-_ ]offload(?:ing)?\b", re.I)
# "we don't use ktransformers", "without --cpu-moe", "the experts are not on the CPU": ruled out before or inside.
_NOT_THERE = re.compile(r"(?:\b(?:no|not|never|without|nothing|none)\b|n't)[\w\s,-]{0,30}$", re.I)
# (r50d) ... or after, in its clause ("ktransformers is not an option for me"), or taken out ("I removed --cpu-moe").
_NOT_THERE_AFTER = re.compile(r"[\w\s'-]{0,12}?\b(?:is|are|was|were|does|do)\s*(?:not|n't)\b", re.I)
_TAKEN_OUT = re.compile(r"\b(?:removed|dropped|disabled|turned\s+off)\s*(?:the\s*)?$", re.I)
# (r50d) Experts on the CPU named only as another setup the reporter compares with, tried or left: "Compared with
# ktransformers, ollama feels slow", "I used to run llama.cpp with --cpu-moe, but now ...", "I tested llama.cpp,
# ollama and ktransformers earlier" (the clause's words before the name).
_OTHER_SETUP = re.compile(r"\b(?:compared\s+(?:with|to)|unlike|instead\s+of|rather\s+than|than|vs\.?|versus|"
                          r"used\s+to|switched\s+from|moved\s+(?:away\s+)?from|tested|tried)\b"
                          r"(?:[^.;:]|\.(?=\w)){0,60}$", re.I)
# ... or after it, in its clause ("ktransformers is faster than this for me").
_OTHER_SETUP_AFTER = re.compile(r"\s+(?:is|was|are|were|gets?|got|runs?|ran)\s+(?:\w+\s+){0,2}?"
                                r"(?:faster|slower|better|worse|quicker)\b", re.I)


def _elsewhere(out: list, source: str, sentence: str, prose: bool) -> None:
    """partial_offload's other placements in one sentence or line: weights copied over PCIe each step (form 'pcie',
    gb), MoE experts on the CPU (form 'experts'), accelerate's offload warning (form 'accelerate', to)."""
    for m in CPU_OFFLOAD_GB.finditer(sentence):
        gb = float(m.group(1))
        out.append(Claim("partial_offload", source, _quote(sentence, m), {"form": "pcie", "gb": gb * GIB},
                         negated=gb == 0, guess=hypothetical(sentence, m.start())))
    for rx in (_EXPERT_FLAGS, _EXPERT_WORDS) if prose else (_EXPERT_FLAGS,):
        for m in rx.finditer(sentence):
            before = sentence[:m.start()]
            first = m.groupdict().get("first")
            data = {"form": "experts", **({"first_layers": int(first)} if first else {})}
            out.append(Claim("partial_offload", source, _quote(sentence, m), data,
                             negated=bool(_NOT_THERE.search(before + m.group(0)) or _TAKEN_OUT.search(before)
                                          or prose and _NOT_THERE_AFTER.match(sentence, m.end())),
                             guess=prose and (offered(sentence, m.start()) or bool(_OFFLOAD_PLAN.search(before))
                                              or bool(_OTHER_SETUP.search(before))
                                              or bool(_OTHER_SETUP_AFTER.match(sentence, m.end())))))
    flags = _ZERO_OFFLOAD_FLAG.finditer(sentence) if _DEEPSPEED.search(sentence) else ()
    for m in [*flags, *_ZERO_OFFLOAD_CONFIG.finditer(sentence)]:
        to = {"disk": "nvme"}.get(m.group(1).lower(), m.group(1).lower())
        out.append(Claim("partial_offload", source, _quote(sentence, m), {"form": "zero", "to": to},
                         negated=bool(_NOT_THERE.search(sentence[:m.start()])),
                         guess=prose and hypothetical(sentence, m.start())))
    for m in _OFFLOAD_HOOKS.finditer(sentence):
        out.append(Claim("partial_offload", source, _quote(sentence, m), {"form": "hooks"},
                         negated=bool(_NOT_THERE.search(sentence[:m.start()])),
                         guess=prose and (hypothetical(sentence, m.start()) or offered(sentence, m.start()))))
    for m in _ACCELERATE_OFFLOADED.finditer(sentence):
        out.append(Claim("partial_offload", source, _quote(sentence, m), {"form": "accelerate", "to": m.group(1)},
                         negated=bool(_NOT_OFFLOADED.search(sentence[:m.start()])),
                         guess=prose and hypothetical(sentence, m.start())))


# (s24) accelerate's placement as its own arguments and messages say it (https://huggingface.co/docs/accelerate/
# concept_guides/big_model_inference, "Designing a device map"; transformers' from_pretrained passes them through):
# max_memory budgets each device by key, the GPUs by index, then "cpu" and "disk", and device_map="auto" fills the GPUs
# first and leaves the rest to the CPU, then the disk; a device_map written out (or printed: model.hf_device_map) maps
# each module to a GPU index, "cpu" or "disk"; transformers asks for an offload_folder when "the current `device_map`
# had weights offloaded to the disk". Only the argument counts: the library's own "Inferred max memory: {...}" print
# always names the CPU, and a map of GPUs only is a layer split (PATTERNS["layer_split"]), no offload.
_MAP_BODY = r"\{(?P<body>[^{}]{1,6000})\}"
_MAX_MEMORY_ARG = re.compile(r"""\bmax_memory\b['"]?\s*[=:]\s*""" + _MAP_BODY)
_DEVICE_MAP_ARG = re.compile(r"""\b(?:hf_)?device_map\b['"]?\s*[=:]\s*""" + _MAP_BODY)
_ANY_MAP = re.compile(_MAP_BODY)
_MAP_ENTRY = re.compile(r"""(?P<key>['"][^'"]{0,120}['"]|\d{1,2})\s*:\s*(?P<value>['"][^'"]{0,40}['"]|\d{1,2})(?!\.)""")
_GPU_PLACE = re.compile(r"^(?:\d{1,2}|cuda(?::\d{1,2})?)$", re.I)
_HOST_PLACE = re.compile(r"^(cpu|disk)$", re.I)
# a module of the model's repeated blocks: "model.layers.8", "transformer.h.62", "model.decoder.layers.3"
_BLOCK_KEY = re.compile(r"(?:^|\.)(?:layers|h|blocks?|layer)\.(\d{1,3})$")
_OFFLOADED_TO = re.compile(r"\bweights\s+(?:were\s+|are\s+)?offloaded\s+to\s+the\s+(disk|cpu)\b|"
                           r"\blayers?\b[^.\n]{0,40}?\b(?:stored|offloaded|placed|kept)\s+(?:on|to)\s+(?:the\s+)?(disk)\b|"
                           r"\boffload(?:ed|ing)\s+to\s+(?:the\s+)?(disk)\b", re.I)
_OFFLOAD_FOLDER = re.compile(r"""\boffload_(?:folder|dir)\s*=\s*['"]""", re.I)
# an argument advised, not one the reporter runs ("add the parameter offload_folder=...", "try max_memory=...")
_ARG_ADVISED = re.compile(r"\b(?:add|set|pass|use|try|could|should|recommend\w*|suggest\w*|uncomment)\b[^.\n]{0,60}$",
                          re.I)


def _places(body: str, by_key: bool) -> list[tuple[str, str]]:
    """(key, place) of a map's entries, the place a device's name when the map is keyed by device (max_memory)."""
    out = []
    for m in _MAP_ENTRY.finditer(body):
        key, value = m.group("key").strip("'\""), m.group("value").strip("'\"")
        out.append((key, key if by_key else value))
    return out


def accelerate_maps(text: str, prose: bool) -> list[tuple[re.Match, dict, bool]]:
    """(match, data, guess) of each accelerate placement the text writes that leaves weights on the host: data
    {form: 'accelerate', to: 'cpu' | 'disk'} for a budget or message, {form: 'offloaded', on_gpu, layers} for a
    device map that places the model's blocks on GPUs and on the host."""
    out = []
    spans: list[tuple[int, int]] = []
    for rx, by_key in ((_MAX_MEMORY_ARG, True), (_DEVICE_MAP_ARG, False), (_ANY_MAP, False)):
        for m in rx.finditer(text):
            if any(a <= m.start("body") < b for a, b in spans):
                continue
            places = _places(m.group("body"), by_key)
            gpu = [k for k, p in places if _GPU_PLACE.match(p)]
            host = [p.lower() for k, p in places if _HOST_PLACE.match(p)]
            if rx is _ANY_MAP and (len(places) < 3 or not all(_GPU_PLACE.match(p) or _HOST_PLACE.match(p)
                                                              for _, p in places)
                                   or not any(_BLOCK_KEY.search(k) for k, _ in places)):
                continue  # a bare dict counts only as a printed device map: module names to places
            spans.append((m.start("body"), m.end("body")))
            if not gpu or not host:
                continue  # GPUs only (a split) or the host only (a CPU run): no offload
            guess = bool(_ARG_ADVISED.search(text[max(0, m.start() - 80):m.start()].rsplit("\n", 1)[-1])) \
                or (prose and hypothetical(text, m.start()))
            blocks = [(int(b.group(1)), p) for k, p in places if (b := _BLOCK_KEY.search(k))]
            if not by_key and blocks:
                on_gpu = sum(1 for _, p in blocks if _GPU_PLACE.match(p))
                out.append((m, {"form": "offloaded", "on_gpu": on_gpu, "layers": len(blocks)}, guess))
            else:
                out.append((m, {"form": "accelerate", "to": "disk" if "disk" in host else "cpu"}, guess))
    warned = [(w.start(), w.end()) for w in _ACCELERATE_OFFLOADED.finditer(text)]  # read as its own form
    for m in _OFFLOADED_TO.finditer(text):
        if any(a <= m.start() < b for a, b in warned):
            continue
        to = next(g for g in m.groups() if g).lower()
        before = text[max(0, m.start() - 80):m.start()].rsplit("\n", 1)[-1]
        out.append((m, {"form": "accelerate", "to": to}, prose and (offered(text, m.start()) or
                                                                   bool(_OFFLOAD_PLAN.search(before)))))
    for m in _OFFLOAD_FOLDER.finditer(text):
        if not _MAPPED_CALL.search(_call_around(text, m.start())):
            continue  # a folder given to a call with no device map offloads nothing (LLaVA's load_pretrained_model)
        before = text[max(0, m.start() - 80):m.start()].rsplit("\n", 1)[-1]
        out.append((m, {"form": "accelerate", "to": "disk"}, bool(_ARG_ADVISED.search(before))))
    return out


# accelerate writes to the offload folder only what a device map sends to "disk" ("offload_folder: If the device_map
# contains any value "disk", the folder where we will offload weights", transformers' from_pretrained docs): the folder
# counts where the same call places the model by a device map or a memory budget.
_MAPPED_CALL = re.compile(r"\b(?:device_map|max_memory)\b")


def _call_around(text: str, at: int) -> str:
    """The text of the call whose arguments hold position `at`: from its open parenthesis to the one closing it (the
    line where none is open)."""
    depth, start = 0, None
    for i in range(at - 1, max(-1, at - 2000), -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth < 0:
            start = i
            break
    if start is None:
        return text[text.rfind("\n", 0, at) + 1:(text.find("\n", at) + 1 or len(text) + 1) - 1]
    depth = 0
    for j in range(start, min(len(text), start + 4000)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return text[start:j + 1]
    return text[start:]


# The host a CPU part runs on, as reporters and lscpu write it: the CPU's model name, the memory's generation and speed
# ("DDR5-4800", "DDR4 2400", "4800MHz DDR5", "DDR5 RDIMM 4800", "DDR4@3600"), the channels ("12-channel", "8 channels",
# "12通道") and the sockets ("dual socket", "2 x Xeon", "EPYC 9654 x2", "双路", lscpu's "Socket(s): 2"). Which family a
# name belongs to and what it implies is rules/offload.py's (from rules/catalog/host_memory.toml).
_CPU_NAME = re.compile(
    r"\b(?:(?:Intel\W*)?Xeon\W*(?:\(R\)\s*)?(?:CPU\s*)?(?:Platinum|Gold|Silver|Bronze|[wW][3579]-|6\d{3}P|E\d-?)\s*"
    r"[\w+-]*|(?:AMD\s*)?EPYC\s*\w+|(?:AMD\s*)?(?:Ryzen\s*)?Threadripper(?:\s*PRO)?\s*\w+|(?:AMD\s*)?Ryzen\s*[3579]\s*"
    r"\w+(?:\s*X3D)?|(?:Intel\W*)?Core\W*(?:\(TM\)\s*)?(?:i[3579]-\w+|Ultra\s*[579]\s*\w+)|\bi[3579]-\d{4,5}\w*|"
    r"(?:Intel\W*)?(?:Xeon|Intel)(?:\(R\))?\s*[3-9][1-5]\d\d[CYNUHMQPVTLSR+]*(?![\w+]))",
    re.I)  # (written in capitals too: "INTEL XEON PLATINUM 8582C", kvcache-ai/ktransformers#1497; a Xeon Scalable
# model after "Xeon" or "Intel" alone, "2x Xeon 8480C", as host_memory.toml's families read it)
_DDR = re.compile(r"\bDDR\s*([45])(?:[\s@-]*(?:R?DIMM|RECC|ECC|SDRAM|RAM|memory|内存|\s)*[\s@-]*(\d{4})\b|"
                  r"(?=\b))|\b(\d{4})\s*(MT/s|MHz)\s*(?:DDR\s*([45]))?", re.I)
# A bare "NNNN MHz" is a memory speed only beside memory words (a DIMM, RAM, dmidecode's "Speed:" / "Configured Memory
# Speed:"): nvidia-smi -q prints its clocks the same way ("Graphics : 3120 MHz", "Memory : 2619 MHz").
_MEMORY_WORDS = re.compile(r"\b(?:DDR\s*[45]?|(?:R|SO-?|U)?DIMMs?|RAM|Speed\s*:)|内存", re.I)
_CHANNELS = re.compile(r"\b(\d{1,2})\s*[- ]?(?:memory\s+)?channels?\b|(\d{1,2})\s*通道", re.I)
# A count of CPUs is sockets only in socket words: "dual CPU" / "dual-socket" / "2 x Xeon" / "2P server" are, while
# "2 CPUs", "--cpus 2" and "two CPU threads" count cores or threads as often as sockets and are not read.
_SOCKETS = re.compile(
    r"\b(?:dual[\s-]*(?:socket|sockets|CPU|CPUs|processors?|EPYC|Xeon)|(?:two|2)[\s-]*(?:socket|sockets|EPYC|Xeon))\b|"
    r"\b(?:2|two)\s*[x×*]\s*(?:Intel\s*|AMD\s*)?(?:Xeon|EPYC)|\b(?:EPYC|Xeon)[\w\s()-]{0,30}?\s*[x×*]\s*2\b|"
    r"\b2P\s+(?:server|system|platform|node|machine|box|EPYC|Xeon)\b|双路|\bSocket\(s\):\s*(?P<n>\d)", re.I)
_ONE_SOCKET = re.compile(r"\b(?:single|one|1)[\s-]*socket\b|单路|\bSocket\(s\):\s*1\b", re.I)


def host_platform(facts: Facts) -> list[Claim]:
    """The host the reporter describes, one claim per fact found: data {cpu: name} | {ddr: 'ddr4'|'ddr5'|None, mts} |
    {channels} | {sockets}. A figure asked about or put as a plan ("should I buy DDR5-6400?") is a guess."""
    out: list[Claim] = []
    for source, text in texts(facts) + pasted_blocks(facts):
        for sentence in sentences(text):
            guess = asked(sentence) or bool(_OFFLOAD_PLAN.search(sentence))
            for m in _CPU_NAME.finditer(sentence):
                out.append(Claim("host_platform", source, _quote(sentence, m), {"cpu": m.group(0)}, guess=guess))
            for m in _DDR.finditer(sentence):
                gen = m.group(1) or m.group(5)
                mts = int(m.group(2) or m.group(3) or 0)
                if not gen and (m.group(4) or "").lower() == "mhz" and not (
                        _MEMORY_WORDS.search(sentence[max(0, m.start() - 30):m.start()])
                        or _MEMORY_WORDS.search(sentence[m.end():m.end() + 12])):
                    continue
                if (gen or mts) and (not mts or 1600 <= mts <= 9600) and (gen or mts >= 2133):
                    # the generation only where named: a speed alone leaves it to the CPU family (rules/offload.py)
                    data = {"ddr": f"ddr{gen}" if gen else None, "mts": mts or None}
                    out.append(Claim("host_platform", source, _quote(sentence, m), data, guess=guess))
            for m in _CHANNELS.finditer(sentence):
                n = int(m.group(1) or m.group(2))
                near = sentence[max(0, m.start() - 40):m.end() + 40]
                # memory channels beside memory words or a CPU ("8-channel DDR5", "12-channel EPYC"), not NCCL's
                # "Using 24 channels" or an audio interface's "8 channels"
                if 1 <= n <= 24 and (_MEMORY_WORDS.search(near) or re.search(r"\bmemory\b", near, re.I)
                                     or _CPU_NAME.search(near)):
                    out.append(Claim("host_platform", source, _quote(sentence, m), {"channels": n}, guess=guess))
            for m in _SOCKETS.finditer(sentence):
                n = int(m.group("n") or 2)
                out.append(Claim("host_platform", source, _quote(sentence, m), {"sockets": n},
                                 negated=bool(_NOT_OFFLOADED.search(sentence[:m.start()])), guess=guess))
            for m in _ONE_SOCKET.finditer(sentence):
                out.append(Claim("host_platform", source, _quote(sentence, m), {"sockets": 1}, guess=guess))
    return out


def _engine_counts(facts: Facts) -> Counter:
    """_engine_mentions, with the names run into Chinese words counted too ("用ollama跑",
    "但是TensorRT-LLM还是用CPU推理": spaced before they are looked for)."""
    said = [t for _, t in texts(facts) + pasted_blocks(facts)]
    spaced_in = Counter(engine_family(e.group(1)) for t in said for e in ENGINE_WORD.finditer(spaced(t)))
    return _engine_mentions(facts) | spaced_in


def _places_layers(sentence: str, ticket: Counter) -> bool:
    """Does the engine the sentence names, else the ticket's (the one it names most; all of those tied), leave the
    layers that do not fit in VRAM on the CPU (offload.keeps_weights_on_gpu is False: llama.cpp, Ollama, LM Studio,
    accelerate, ...)? "I moved from Ollama to vLLM. With vLLM the CPU usage is higher than the GPU's" speaks of vLLM,
    which keeps every layer in VRAM; a sentence naming no engine speaks of the one the ticket runs."""
    named = {engine_family(e.group(1)) for e in ENGINE_WORD.finditer(spaced(sentence))}
    if not named and ticket:
        most = max(ticket.values())
        named = {e for e, n in ticket.items() if n == most}
    return bool(named) and all(keeps_weights_on_gpu(e) is False for e in named)


def engines_named(facts: Facts) -> set[str]:
    """The engine families the ticket names, in its words and pasted output (_engine_counts)."""
    return set(_engine_counts(facts))


def _layers_may_sit_on_cpu(facts: Facts) -> bool:
    """Can the ticket's engine have left layers on the CPU while VRAM is free? llama.cpp, Ollama, accelerate and
    KTransformers place layers by what fits; an engine that holds every weight in VRAM (offload.keeps_weights_on_gpu:
    vLLM, SGLang, TensorRT-LLM, ...) puts none there unless told (--cpu-offload-gb, expert offload). No engine named or
    one not known: yes."""
    named = set(_engine_counts(facts))
    if not named or any(keeps_weights_on_gpu(e) is not True for e in named):
        return True
    said = [t for _, t in texts(facts) + pasted_blocks(facts)]
    return any(float(m.group(1)) > 0 for t in said for m in CPU_OFFLOAD_GB.finditer(t)) or \
        any(_EXPERT_FLAGS.search(t) or _ZERO_OFFLOAD_CONFIG.search(t)
            or _DEEPSPEED.search(t) and _ZERO_OFFLOAD_FLAG.search(t) for t in said)


def partial_offload(facts: Facts) -> list[Claim]:
    """Where the reporter's output or words put some of the model's layers on the CPU: data {form: 'ollama_ps' |
    'offloaded' | 'ngl' | 'words' | 'pcie' | 'experts' | 'accelerate' | 'zero', cpu_pct, on_gpu, layers}; negated
    when the output says all of it is on the GPU ('100% GPU', 'offloaded 81/81') or the words rule it out. Whether
    -ngl leaves layers behind is the rule's to judge against the model's layer count."""
    out: list[Claim] = []
    pasted = pasted_blocks(facts)
    places = functools.cache(functools.partial(_layers_may_sit_on_cpu, facts))
    engines = functools.cache(functools.partial(_engine_counts, facts))
    for block, text in texts(facts) + pasted:
        prose = (block, text) not in pasted
        on_gpu = functools.cache(functools.partial(all_on_gpu, text))  # once per text, when a match first asks
        for k, sentence in enumerate(sentences(text) if prose else text.splitlines()):
            # a pasted block's line k is cited by its own line ("issue.md:6" + k), prose by ProseSource
            start = None if prose else re.search(r":(\d+)$", block)
            source = f"{block[:start.start()]}:{int(start.group(1)) + k}" if start else block
            for m in _OLLAMA_SPLIT.finditer(sentence):
                cpu = int(m.group(1))
                out.append(Claim("partial_offload", source, _quote(sentence, m),
                                 {"form": "ollama_ps", "cpu_pct": cpu, "origin": "output"}, negated=cpu == 0,
                                 guess=prose and _quoted_output(sentence, m)))
            for m in _OLLAMA_ALL_GPU.finditer(sentence):
                out.append(Claim("partial_offload", source, _quote(sentence, m),
                                 {"form": "ollama_ps", "cpu_pct": 0, "origin": "output"}, negated=True,
                                 guess=prose and _quoted_output(sentence, m)))
            for m in _OFFLOADED.finditer(sentence):
                loaded, layers = int(m.group(1)), int(m.group(2))
                out.append(Claim("partial_offload", source, _quote(sentence, m),
                                 {"form": "offloaded", "on_gpu": loaded, "layers": layers, "origin": "output"},
                                 negated=loaded >= layers,
                                 guess=prose and _quoted_output(sentence, m)))
            for m in _LAYERS_ON_GPU_SAID.finditer(sentence) if prose else ():
                loaded, layers = int(m.group(1)), int(m.group(2))
                if 0 < layers and loaded <= layers:
                    out.append(Claim("partial_offload", source, _quote(sentence, m),
                                     {"form": "offloaded", "on_gpu": loaded, "layers": layers, "origin": "words"},
                                     negated=loaded >= layers or bool(_NOT_OFFLOADED.search(sentence[:m.start()])),
                                     # a why-question's premise is observed ("why only 42/81 layers are offloaded"),
                                     # a yes/no question, a condition, the docs or a plan is not
                                     guess=_guessed(sentence, m.start()) or conditional(sentence[:m.start()])
                                     or bool(_DOCS_SAY.search(sentence[:m.start()])
                                             or _OFFLOAD_PLAN.search(sentence[:m.start()]))))
            for m in _ONLY_LAYERS_ON_GPU.finditer(sentence) if prose else ():
                loaded, layers = int(m.group(1)), int(m.group(2) or 0)
                if layers and loaded >= layers:
                    continue
                data = {"form": "offloaded", "on_gpu": loaded, "layers": layers, "origin": "words"} if layers \
                    else {"form": "words"}
                out.append(Claim("partial_offload", source, _quote(sentence, m), data,
                                 negated=bool(_NOT_OFFLOADED.search(sentence[:m.start()])
                                              or _past_state(sentence[:m.start()],
                                                             past=bool(_PAST_VERB.search(m.group(0))))),
                                 # a placement said with the time it was seen ("when I am running gemma2 ...
                                 # only 27 layers are offloaded") is observed; "if" still conditions it
                                 guess=_guessed(sentence, m.start()) or conditional(sentence[:m.start()], when=False)
                                 or bool(_DOCS_SAY.search(sentence[:m.start()])
                                         or _OFFLOAD_PLAN.search(sentence[:m.start()]))))
            for m in _OLLAMA_LAYERS.finditer(sentence):
                layers, loaded = (int(m.group(1)), int(m.group(2))) if m.group(1) \
                    else (int(m.group(4)), int(m.group(3)))
                if layers:
                    out.append(Claim("partial_offload", source, _quote(sentence, m),
                                     {"form": "offloaded", "on_gpu": loaded, "layers": layers, "origin": "output"},
                                     negated=loaded >= layers, guess=prose and _quoted_output(sentence, m)))
            for m in _PRE_LAYER.finditer(sentence):
                out.append(Claim("partial_offload", source, _quote(sentence, m),
                                 {"form": "ngl", "on_gpu": int(m.group(1).split()[-1])},
                                 guess=hypothetical(sentence, m.start())
                                 or bool(_OFFLOAD_PLAN.search(sentence[:m.start()]))))
            for m in _NGL.finditer(" " + sentence):
                # ("-ngl 40 would be slower, so I use -ngl 99": the first is a comparison made in the conditional)
                after = _WOULD_AFTER.match(sentence[max(0, m.end() - 1):])
                out.append(Claim("partial_offload", source, _quote(" " + sentence, m),
                                 {"form": "ngl", "on_gpu": int(m.group(1))},
                                 guess=hypothetical(sentence, m.start()) or bool(after)))
            for m in _OFFLOAD_WORDS.finditer(sentence) if prose else ():
                before = sentence[:m.start()]
                out.append(Claim("partial_offload", source, _quote(sentence, m), {"form": "words"},
                                 negated=bool(_NOT_OFFLOADED.search(before + m.group(0)[:25])) or on_gpu(),
                                 guess=offered(sentence, m.start()) or bool(_OFFLOAD_PLAN.search(before))))
            for m in _OFFLOAD_COUNT_WORDS.finditer(sentence) if prose else ():
                before = sentence[:m.start()]
                out.append(Claim("partial_offload", source, _quote(sentence, m), {"form": "words"},
                                 negated=bool(_NOT_OFFLOADED.search(before)
                                              or re.search(r"\b(?:not|never|n't|none|nothing|zero|no)\b",
                                                           m.group(0))) or on_gpu(),
                                 guess=offered(sentence, m.start()) or bool(_OFFLOAD_PLAN.search(before))
                                 or conditional(before, when=False) or bool(_YOU_CAN.search(before))))
            _elsewhere(out, source, sentence, prose)
            for m, negated, guess in over_vram(sentence, on_gpu) if prose else ():
                out.append(Claim("partial_offload", source, _quote(sentence, m), {"form": "over_vram"},
                                 negated=negated, guess=guess))
            for m, negated in cpu_over_gpu(sentence) if prose and _places_layers(sentence, engines()) else ():
                out.append(Claim("partial_offload", source, _quote(sentence, m), {"form": "words"},
                                 negated=negated or on_gpu(), guess=_guessed(sentence, m.start())))
            for form, zh in (("words", _OFFLOAD_ZH), ("over_vram", _OVER_VRAM_ZH),
                             ("words", _VRAM_LEFT_CPU)) if prose else ():
                if zh is _VRAM_LEFT_CPU and not places():
                    continue
                for m in zh.finditer(sentence):
                    out.append(Claim("partial_offload", source, _quote(sentence, m), {"form": form},
                                     negated=bool(m.group("not") or m.groupdict().get("not_en")) or on_gpu(),
                                     guess=_guessed(sentence) or asked(sentence)))
        for m, data, guess in accelerate_maps(text, prose):  # (s24) whole text: a map may span lines
            if data["form"] == "offloaded":
                data["origin"] = "words" if prose else "output"
            out.append(Claim("partial_offload", block, _quote(text, m, 40), data, guess=guess))
    out += _layer_option_left_out(facts)
    return out


# (healthy32) llama.cpp run without its layer option. llama.cpp keeps every layer on the CPU unless told how many to
# put in VRAM: "-ngl N, --n-gpu-layers N: When compiled with GPU support, this option allows offloading some layers to
# the GPU for computation" (tools/main README); a CUDA build run without it computes on the CPU and the GPU idles.
# llama-cpp-python's Llama() defaults to n_gpu_layers=0 ("Number of layers to offload to GPU (-ngl). If -1, all layers
# are offloaded", its API reference). Newer llama.cpp builds offload by default (the help now reads "default: -1" /
# "auto"; ikawrakow/ik_llama.cpp#2209 in 2026 contrasts its own zero default with llama.cpp's), while janhq/jan#5310
# (2025-06-17) still had to pass a layer count to get all layers on the GPU: so only a build below
# NGL_DEFAULT_ZERO_BEFORE (b5449 is dated 2025-05-22 in ggml-org/llama.cpp#13735) or the old `main` binary (renamed
# llama-cli in mid-2024) is read as the zero default; a build not stated is read only for `main`.
NGL_DEFAULT_ZERO_BEFORE = 5600
# (review32) only options and their values between `main` and -m: a command line, not the word in prose ("on the main
# branch: llama-server -m x.gguf", where llama-server of a build not stated is read by _LLAMA_CLI's rule)
_LLAMA_MAIN = re.compile(r"""(?:^|[\s/\\"'`])main(?:\.exe)?(?:[ \t]+--?[^\s-]\S*(?:[ \t]+[^\s-]\S*)?)*?[ \t]+"""
                         r"""(?:-m|--model)[ \t=]""", re.M)
_LLAMA_CLI = re.compile(r"\bllama-(?:cli|server|run|simple)(?:\.exe)?[ \t]+(?:[^\n]*?[ \t])?"
                        r"(?:-m|--model|-hfr?|--hf-repo)[ \t=]", re.M)
# the build a llama.cpp log or --version prints: "main: build = 992 (0919a0f)", "version: 3902 (c81f3bbb)"
_LLAMA_BUILD_LINE = re.compile(r"\bbuild\s*=\s*(\d{2,5})\s*\(|\bversion:\s*(\d{3,5})\s*\(", re.I)
# llama-cpp-python's constructor with its arguments (to the closing parenthesis of a call a few lines long)
_LLAMA_PY = re.compile(r"""\bLlama\(\s*(?:model_path\s*=|["'])[^()]{0,400}?\)""")
# any option that places layers or weights on the GPU (PowerInfer's --vram-budget, Ollama's num_gpu)
_LAYER_OPTION = re.compile(r"-ngl\b|--n-gpu-layers|--gpu-layers|\bn_gpu_layers?\b|--vram-budget|\bnum_gpu\b", re.I)


def _layer_option_left_out(facts: Facts) -> list[Claim]:
    """A llama.cpp run given without the layer option where the default puts no layer on the GPU: the old `main`
    binary or llama-cli/llama-server of a build below NGL_DEFAULT_ZERO_BEFORE run without -ngl, or llama-cpp-python's
    Llama() called without n_gpu_layers. Data {form: 'no_ngl', on_gpu: 0, origin: 'output', build: the largest build
    number printed, or None}."""
    said = texts(facts) + pasted_blocks(facts)
    if "llamacpp" not in engines_named(facts) or any(_LAYER_OPTION.search(t) for _, t in said):
        return []
    builds = [int(b) for _, t in said for m in _LLAMA_BUILD_LINE.finditer(t) for b in m.groups() if b]
    old = bool(builds) and max(builds) < NGL_DEFAULT_ZERO_BEFORE
    for source, text in said:
        for rx, needs_build in ((_LLAMA_PY, False), (_LLAMA_MAIN, False), (_LLAMA_CLI, True)):
            m = rx.search(text)
            if m and (old or not (needs_build or builds)):
                return [Claim("partial_offload", source, _quote(text, m, 40),
                              {"form": "no_ngl", "on_gpu": 0, "origin": "output",
                               "build": max(builds) if builds else None})]
    return []


# ------------------------------------------------------------------- (issue 11 n) host-side and GPU-state words
# More ways the same situations are worded across engines' and vendors' documentation and many threads:
# - idle_gap_slow: the call after a pause is the slow one ("after a 30 s pause the next request takes 3x longer",
#   "with a 10 s sleep in between, the next frame jumps"): NVIDIA lowers an idle GPU's clocks and P-state
#   (https://docs.nvidia.com/deploy/driver-persistence/, TensorRT's "GPU Clock Locking and Floating Clock",
#   https://docs.nvidia.com/deeplearning/tensorrt/latest/performance/hw-sw-environment.html).
# - few_requests: one input at a time named by what the job processes ("only one audio file", "a single image").
# - gpu_build_slower: the GPU build or backend of a tool slower than the CPU one; with one input at a time that is the
#   GPU's latency, not its throughput (FasterTransformer's README: "When batch size equals to 1, the ... execution
#   time really depends on the CPU",
#   https://github.com/NVIDIA/DeepLearningExamples/tree/master/FasterTransformer; GPUs trade latency for throughput).
_GAP_PAUSE = r"(?:sleeps?|pauses?|delays?|waits?|breaks?|gaps?|idle(?:\s+(?:time|period|phase))?|inactivity|lulls?)"
_GAP_NEXT = (r"\b(?:next|following|subsequent|first)\s+(?:\w+\s+)?(?:frames?|calls?|requests?|inferences?|runs?|"
              r"iterations?|predictions?|queries|query|generations?|batch(?:es)?|images?|steps?|prompts?|forward)\b")
# (a higher time, not any higher figure: "higher throughput" after a pause is the opposite)
# (para38: the time "becomes much bigger", a growth intensified: "time cost of next frame often becomes much bigger")
_GAP_SLOWER = (r"\b(?:slow\w*|longer|increas\w*|higher\s+(?:latenc\w+|times?|TTFT|ITL|TPOT)|spikes?|jumps?|worse|"
               r"(?:much|far|a lot|significantly|way)\s+(?:bigger|larger|greater)|"
               r"\d+(?:\.\d+)?\s*(?:x|×)\s*(?:slower|longer)?|twice as (?:slow|long))\b")
MORE_WORDS_N: dict[str, list[str]] = {
    "idle_gap_slow": [
        # a pause named before the call it slows: "with a 10 s sleep in the middle, the next frame takes longer"
        r"\b" + _GAP_PAUSE + r"\b[^.\n]{0,40}?\b(?:in (?:the )?middle|in between|between(?=" + _CALLS + ")|before|"
        r"beforehand)\b"
        r"[^.\n]{0,40}?" + _GAP_NEXT + r"[^.\n]{0,60}?" + _GAP_SLOWER,
        # "after a 30 s pause, the next request is 3x slower", "following 2 minutes of inactivity", "every request
        # after a quiet period takes 3x longer" (not a restart in between: "... I restarted the server and it was slow")
        r"\b(?:after|following)\s+(?:a\s+|an\s+|some\s+)?(?:\d+(?:\.\d+)?\s*-?\s*(?:ms|s|secs?|seconds?|mins?|"
        r"minutes?)\s+(?:of\s+)?|(?:short|long|brief)\s+)?(?:" + _GAP_PAUSE + r"|(?:quiet|idle|inactive)\w*"
        r"(?:\s+(?:period|time|phase|while|spell|minutes?|seconds?))?)\b"
        r"(?:(?!\b(?:restart|reboot|reload|reinstall|redeploy|upgrad|updat)\w*)[^.\n]){0,60}?" + _GAP_SLOWER,
        # "if the GPU sits idle for a minute, the following query is slow" (an observation put as a when/if)
        r"\b(?:sits?|stays?|is|was|left|goes)\s+idle\s+for\b[^.\n]{0,50}?" + _GAP_NEXT + r"[^.\n]{0,50}?" + _GAP_SLOWER,
    ],
    "few_requests": [
        r"\b(?:only|just)\s+(?:one|a single|1)\s+(?:audio(?: file| clip)?s?|utterances?|images?|pictures?|photos?|"
        r"frames?|samples?|inputs?|prompts?|requests?|queries|query|sentences?|files?|sequences?|examples?|"
        r"documents?|videos?)\b",
        r"\b(?:one|a single)\s+(?:audio(?: file| clip)?|utterance|image|picture|frame|sample|input|prompt|query|"
        r"sentence|sequence|example)\s+at a time\b",
    ],
    "gpu_build_slower": [
        # "the GPU build is slower than the CPU build", "cuda version runs slower than the CPU one",
        # "batched-wav-nnet3-cuda is slower than nnet3-latgen-faster" (a tool's CUDA variant against its other)
        # (a tool's GPU variant by name, "whisper-gpu", "batched-...-cuda", CUDAExecutionProvider, against any other;
        # "the GPU build/version/backend" only against the CPU one: "my GPU is slower than my old one" is no such pair)
        # (para37d: the verb may be left out, as terse titles do: "batched-...-cuda slower than nnet3-...?")
        r"(?:\b\w+[-_][\w-]*(?:cuda|gpu)[\w-]*|\b(?:cuda|gpu)[-_][\w-]+|\bCUDAExecutionProvider)\s+"
        r"(?:(?:is|was|runs?|ran|gets?|got)\s+)?(?:much\s+|even\s+|a lot\s+|far\s+)?slower\s+than\b"
        # (against another GPU set-up, "multi-gpu is slower than single-gpu", it is no GPU-against-CPU pair)
        r"(?!\s+(?:[\w.]+\s+){0,2}?[\w-]*(?:gpu|cuda))",
        r"\b(?:GPU|CUDA)\s+(?:build|version|backend|decoder|inference|path|mode|binary|provider)\s+"
        r"(?:is|was|runs?|ran|gets?|got)\s+(?:much\s+|even\s+|a lot\s+|far\s+)?slower\s+than\s+(?:the\s+|my\s+)?"
        r"(?:CPU|cpu)\b",
        r"\b(?:slower|longer)\s+(?:on|with)\s+(?:the\s+)?GPU\s+than\s+(?:on|with)\s+(?:the\s+)?CPU\b",
        r"\bCPU\b[^.\n]{0,20}?\b(?:is|was|runs?|ran)\s+(?:much\s+|even\s+|a lot\s+)?faster\s+than\s+(?:the\s+)?"
        r"(?:GPU|CUDA)\b",
        # (para37c, para37d) the same pairs in Chinese, "A 比 B (还/更)慢": a tool's CUDA/GPU variant or the GPU build
        # against any other not itself a GPU one ("...-cuda 比 nnet3-latgen-faster 还慢", "GPU版本比CPU版本还慢",
        # "显卡推理比CPU还慢"), or "CPU 比 GPU 还快"; not "不比 ... 慢" (said not)
        r"(?<!不)(?:\b[\w-]*(?:cuda|gpu)[\w-]*|GPU|CUDA|显卡)\s*(?:版本?|推理|解码|模式)?\s*比\s*"
        r"(?![^\s，。,]*(?:cuda|gpu|GPU|CUDA|显卡|单卡|多卡))[^\s，。,]{1,40}\s*(?:版本?)?\s*(?:还|更|要)?慢",
        r"(?<!不)\bCPU\s*(?:版本?|推理|模式)?\s*比\s*(?:GPU|CUDA|显卡)\s*(?:版本?)?\s*(?:还|更|要)?快",
    ],
}
_NEGATED_INSIDE_F += ("gpu_build_slower",)
_extend(MORE_WORDS_N, new_kinds=True)

# The model, or the memory it needs, larger than the GPU's memory: llama.cpp and Ollama then keep the layers that do
# not fit on the CPU (Ollama FAQ, "How can I tell if my model was loaded onto the GPU?"), and on Windows the driver
# pages the rest into shared system memory (NVIDIA, "CUDA - Sysmem Fallback Policy", driver 536.40 and later,
# https://nvidia.custhelp.com/app/answers/detail/a_id/5490). Either way tokens wait on host memory.
_VRAM = (r"(?:the\s+|my\s+|its\s+|our\s+|a\s+|each\s+)?(?:\d+(?:\.\d+)?\s*G(?:i)?B\s+(?:of\s+)?)?"
         r"(?:(?:dedicated|available|free|total|GPU'?s?|card'?s?|graphics card'?s?)\s+)*"
         r"(?:VRAM|(?:GPU|graphics|video|dedicated)(?:'s)?\s+(?:GPU\s+|graphics\s+|video\s+)?memory|"
         r"(?:GPU |graphics |video )?memory of the (?:GPU|card))\b")
_OVER_VRAM = re.compile(
    r"\b(?:model|weights|it|(?:total\s+)?(?:graphics|GPU|video)\s+memory\s+(?:usage|use|needed|required)|"
    r"memory\s+(?:usage|use|footprint|needed|required))\b(?P<gap>[^.;\n]{0,40}?)"
    # (para38: "exceeds" said as "goes beyond", "gets past", "surpasses")
    r"(?P<verb>\b(?:exceed(?:s|ed|ing)?|surpass(?:es|ed|ing)?|(?:goes|go|went|gets?|got)\s+(?:beyond|past|over)|"
    r"(?:is|are|was|were|gets?|got|becomes?|became)\s+(?:\w+\s+)?(?:bigger|larger)\s+"
    r"than|(?:does|did|do)(?:n't| not)\s+fit\s+(?:in|into|on)|won't\s+fit\s+(?:in|into|on)|(?:is|was)\s+too\s+"
    r"(?:big|large)\s+for|overflow(?:s|ed|ing)?)\s+)" + _VRAM +
    r"|\b(?:uses?|using|used|spills?\s+(?:over\s+)?(?:in)?to|spilled\s+(?:over\s+)?(?:in)?to|goes\s+(?:in)?to|"
    r"went\s+(?:in)?to|falls?\s+back\s+to|fell\s+back\s+to)\s+(?:the\s+)?(?:\d+(?:\.\d+)?\s*G(?:i)?B\s+(?:of\s+)?)?"
    r"shared\s+(?:GPU|graphics|system)\s+memory\b", re.I)  # (Task Manager's "Shared GPU memory"; NCCL's SHM is not)
_NOT_IN_GAP = re.compile(r"\b(?:not|never|no longer)\b|n't\b", re.I)
_ONLY_IF = re.compile(r"\b(?:if|unless|whether|in case)\b[^,;]*$", re.I)


def over_vram(sentence: str, on_gpu) -> list[tuple[re.Match, bool, bool]]:
    """(match, negated, guess) for each place the sentence puts the model past the GPU's memory: negated when a
    'not' sits before a positive verb ('it does not exceed VRAM') or the text says everything is on the GPU (on_gpu():
    all_on_gpu of the whole text, asked only when needed); a guess when asked, supposed, planned, or only a condition
    ('if the model exceeds VRAM, ...')."""
    out = []
    for m in _OVER_VRAM.finditer(sentence):
        before = sentence[:m.start()]
        gap = m.group("gap") or ""
        negated = bool(_NOT_IN_GAP.search(gap) and m.group("verb") and "fit" not in m.group("verb").lower()) or \
            bool(_NOT_OFFLOADED.search(before)) or on_gpu()
        guess = offered(sentence, m.start()) or bool(_OFFLOAD_PLAN.search(before) or _ONLY_IF.search(before))
        out.append((m, negated, guess))
    return out

# A pasted `top` / `htop` process row (PID USER PR|PRI NI VIRT RES SHR S %CPU|CPU% %MEM TIME+ COMMAND, procps and htop
# manuals) with the serving process at one core's worth, 95-105 %: a single-threaded Python engine loop (the GIL keeps
# one process on one core) at its limit. Over 105 % is several threads busy, under 95 % a core with time to spare.
_TOP_ROW = (r"(?m)^[ \t]*\d+\s+\S+\s+(?:-?\d+|rt)\s+-?\d+\s+[\d.,]+[kmgtpKMGTP]?\s+[\d.,]+[kmgtpKMGTP]?\s+"
            r"[\d.,]+[kmgtpKMGTP]?\s+[RSDITZ]\s+(?:9[5-9]|10[0-4])(?:[.,]\d)?\s+[\d.,]+\s+[\d:.]+\s+(?:\S*/)?"
            r"(?:python\S*|vllm\S*|VLLM\S*|sglang\S*|ollama\S*|llama-server|llama-cli|text-generation\S*|tritonserver|"
            r"trtllm\S*|torchrun|uvicorn|lmdeploy\S*)")
_extend({"cpu_pegged_row": [_TOP_ROW]}, new_kinds=True)

# (issue 11 n) More word orders for situations the families above name:
# - numa_words: binding to the GPUs' socket named as the change that paid ("doubles when I bind the server to the
#   socket the GPUs are attached to"), gains said as a share ("30 % more throughput under numactl") (vLLM's and
#   TensorRT-LLM's NUMA-binding docs, NCCL_IGNORE_CPU_AFFINITY).
# - cpu_ab: the serving side's text stages slower than the GPU step ("detokenization takes longer than the decode
#   step"), and the client's latency a multiple of the engine's: the gap is spent on the host (SGLang and vLLM
#   document the tokenizer/detokenizer processes; --skip-tokenizer-init).
# - one_slow: "one of the eight nodes is consistently slower", "every all-reduce waits for it".
_GAIN = (r"(?:fast(?:er)?|doubl\w*|tripl\w*|improv\w*|helps?|helped|fix(?:es|ed)?|speeds? up|sped up|"
         r"\d+(?:\.\d+)?\s*(?:%|x|×)\s*(?:more|faster|higher|better)|more (?:throughput|tok\w*|bandwidth|speed)|"
         r"higher (?:throughput|bandwidth))")
# (a gap without "not", "n't" or "never": "binding to the local node did not help" is no gain)
_AFFIRMED = r"(?:(?!\b(?:not|never|no)\b|n't\b)[^.\n])"
MORE_WORDS_N2: dict[str, list[str]] = {
    "numa_words": [
        r"\b" + _GAIN + r"\b" + _AFFIRMED + r"{0,60}?\b(?:bind|binding|bound|pin|pinning|pinned)\b[^.\n]{0,40}?\bto\s+"
        r"(?:the\s+)?"
        r"(?:same\s+|local\s+|right\s+|correct\s+)?(?:CPU\s+)?(?:socket|NUMA node|NUMA domain)\b",
        r"\b(?:bind|binding|bound|pin|pinning|pinned)\b[^.\n]{0,40}?\bto\s+(?:the\s+)?(?:same\s+|local\s+|right\s+|"
        r"correct\s+)?(?:CPU\s+)?(?:socket|NUMA node|NUMA domain)\b" + _AFFIRMED + r"{0,60}?\b" + _GAIN,
        r"\b(?:numactl|taskset|--cpunodebind|--membind|CPU affinity|NUMA binding)\b" + _AFFIRMED + r"{0,60}?"
        r"\b(?:gives?|gave|yields?|brings?)\s+(?:us\s+)?(?:about\s+|~)?\d+(?:\.\d+)?\s*(?:%|x|×)\s*"
        r"(?:more|higher|faster|better)\b",
    ],
    "cpu_ab": [
        r"\b(?:detokeni\w+|tokeni\w+|output process\w*|post-?process\w*|scheduling|the scheduler)\b"
        + _AFFIRMED + r"{0,40}?"
        r"\btak(?:e|es|ing)\s+(?:much\s+|far\s+)?(?:longer|more time)\s+than\s+(?:the\s+)?(?:decode|forward|model|GPU|"
        r"engine)\b",
        r"\bclient[- ]side\s+(?:ITL|TPOT|latency|inter-token latency)\b[^.\n]{0,40}?\b(?:\d+(?:\.\d+)?\s*(?:x|×)|"
        r"several times|much (?:higher|larger))\b[^.\n]{0,30}?\b(?:engine|server|scheduler)(?:'s|-side)?\b",
        # a host profile (py-spy, cProfile, nsys) giving a serving stage a large share: "the tokenizer takes 40% of
        # the time" (a share right after the verb: "takes less than 1%" is none)
        r"\b(?:detokeni\w+|tokeni\w+|schedul\w+|sampl\w+|pre-?process\w*|post-?process\w*|output process\w*)"
        r"(?:\s+(?:step|stage|process|thread))?\s+(?:takes?|took|taking|uses?|used|eats?|ate|accounts? for|"
        r"consumes?|consumed)\s+(?:about\s+|around\s+|roughly\s+|~\s*|up to\s+)?(?:most|the (?:majority|bulk)|"
        r"\d{2}(?:\.\d+)?\s*%)\s+of\s+(?:the\s+|each\s+)?(?:(?:wall[- ]?(?:clock\s+)?|CPU\s+|step\s+)?time|latency|"
        r"step)\b",
        # the GPU idle between whole steps, said of the GPU ("the GPU sits idle between steps"; not between
        # requests: idle_gap_slow; nor a pipeline's stages: pp_bubble)
        r"\bGPUs?\b[^.\n]{0,20}?\b(?:sits?|sitting|is|are|stays?|goes|go)\s+idle\s+between\s+(?:the\s+|consecutive\s+|"
        r"each\s+|two\s+)?(?:(?:decode|decoding|forward|generation|engine|model)\s+)?(?:steps|iterations|passes)\b"
        r"(?![^.\n]{0,30}?\b(?:pipeline|stages?)\b)",
        # (s23) the GPU, a node or a worker said to wait on the host's work or one of the serving process's host
        # threads: "P node GPU blocked by detoken thread", "The P node seems blocked by some cpu work"
        # (sgl-project/sglang#6909), "GPU is often idle, waiting for CPU operations" (vLLM's multi-step scheduling RFC,
        # vllm-project/vllm#6854). The host's memory or link is no host thread ("waiting for CPU memory":
        # _NOT_THE_HOST_THREAD); a GPU blocked by anything else ("blocked by a ROCm profiler race") is none of this
        r"\b(?:GPUs?|nodes?|ranks?|workers?)\b[^.\n]{0,25}?\b(?:blocked|stalled|starved|held up|waiting|waits?)\s+"
        r"(?:by|on|for)\s+(?:the\s+|a\s+|some\s+)?(?:(?:CPU|host)\b" + _NOT_THE_HOST_THREAD + r"(?:[- ](?:side\s+)?"
        r"(?:work|operations?|tasks?|overhead|processing|threads?|code))?|(?:de)?token\w*\s+(?:threads?|process\w*|"
        r"workers?)|detokeni[sz]\w*|the\s+scheduler\b)",
        # (hostbound37) a container's CPU limit changing the speed: docker's --cpus / --cpu-quota / --cpu-period
        # and Kubernetes CPU limits cap the CPU time the process gets (https://docs.docker.com/engine/containers/
        # resource_constraints/#cpu); "with --cpu-quota=100000 ... 2 times as fast than with --cpu-quota=50000"
        # (NVIDIA/nvidia-docker#757: the GPU job was CPU-bound)
        # (para37d) the work itself said to run on the CPU, the GPU holding the model: "the processing seems to be
        # mostly on CPU" (ollama/ollama#4668), "inference runs mostly on the CPU" (not the host's memory: "the
        # weights are mostly in CPU RAM" is an offload, partial_offload's)
        r"\b(?:processing|computing|computation|compute|inference|workload|work|generation|decoding)\s+"
        r"(?:(?!not\b|never\b)\w+\s+){0,3}?(?:mostly|mainly|largely|entirely)\s+(?:on|by)\s+(?:the\s+)?CPU\b"
        r"(?!\s*(?:RAM|memory|mem)\b)",
        r"(?:--cpu-quota|--cpus\b|--cpu-period|\bcpu[-_ ]quota\b|\bCPU\s+limits?\b|\bCPU\s+limited\s+to\b)"
        + _AFFIRMED + r"{0,200}?\b(?:(?:\d+(?:\.\d+)?|two|three|twice)\s*(?:x|×|times)\s+(?:as\s+)?(?:fast|slow)\w*|"
        r"(?:much\s+|far\s+)?(?:faster|slower))\b",
        r"\b(?:slows?|slowed|slowing)\s+down\b" + _AFFIRMED + r"{0,40}?(?:--cpu-quota|--cpus\b|--cpu-period|"
        r"\bcpu[-_ ]quota\b|\bCPU\s+limits?\b)",
        # (hostbound37) the serving side's front end named as the bottleneck: the API server, the web UI or its
        # streaming of the text ("streaming the text into the frontend becomes the bottleneck", "bottlenecked by the
        # UI streaming process", oobabooga/textgen#4990; vLLM's API server run in the engine's process capped GPU
        # utilisation at half, vllm-project/vllm#580, the reason for vLLM's separate API-server process and
        # --api-server-count)
        r"\b(?:API[- ]?server|(?:web[- ]?)?front[- ]?end|web[- ]?UI|UI|GUI|HTTP server|(?:text\s+|token\s+)?streaming)"
        r"\b" + _AFFIRMED + r"{0,40}?\b(?:is|are|was|were|becomes?|became|being)\s+(?:the\s+|a\s+|our\s+)?"
        r"(?:main\s+|real\s+|actual\s+)?bottleneck\b",
        r"\bbottleneck(?:ed|s)?\s+(?:by|on)\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:API[- ]?server|front[- ]?end|web[- ]?UI|"
        r"UI|GUI|HTTP server|streaming)\b",
    ],
    "one_slow": [
        r"\b(?:one|a single)\s+of\s+(?:the|our|my)\s+(?:\w+\s+)?(?:GPUs|ranks|nodes|cards|workers|machines|servers|"
        r"hosts)\b" + _AFFIRMED + r"{0,40}?\b(?:slower|lags?|lagging|late|behind|straggl\w+|takes? longer)\b",
        r"\b(?:every|each)\s+(?:step|iteration|all[-_ ]?reduce|collective|batch)\s+(?:has to\s+)?waits?\s+(?:for|on)\s+"
        r"(?:it|that (?:one|node|GPU|rank|card|machine))\b",
    ],
}
_extend(MORE_WORDS_N2)


# ------------------------------------------------------------------- (issue 11 n) where the process is bound
# The CPUs a launch binds its process to, as the tools spell them (taskset(1) -c LIST, numactl(8) --physcpubind / -C
# LIST and --cpunodebind / -N NODE, docker run --cpuset-cpus LIST) or in words ("pinned to cores 32-63"); a Linux CPU
# list as nvidia-smi topo -m prints its CPU Affinity column. Set against the CPUs local to the GPUs in use (that
# column, or the NUMA node), a binding that shares none puts every launch and host copy across the socket link.
_CPU_LIST = r"(\d{1,4}(?:\s*-\s*\d{1,4})?(?:\s*,\s*\d{1,4}(?:\s*-\s*\d{1,4})?)*)(?![\d.])"
_BIND_CPUS = re.compile(r"(?:\btaskset\s+(?:-\w*c\w*|--cpu-list)\s+|--physcpubind[= ]|"
                        r"\bnumactl\s+(?:[^\n|;]{0,40}?\s)?-C\s+|--cpuset-cpus[= ]\"?|"
                        r"\b(?:pinn?(?:ed|ing|s)?|bound|bind(?:s|ing)?)\s+(?:[\w-]+\s+){0,4}?"
                        r"to\s+(?:the\s+)?(?:CPUs?|cores?|CPU cores|logical CPUs)\s+)" + _CPU_LIST, re.I)
_BIND_NODE = re.compile(r"(?:--cpunodebind[= ]|\bnumactl\s+(?:[^\n|;]{0,40}?\s)?-N\s+)(\d)\b(?![\d,-])")
_NO_BINDING = re.compile(r"\b(?:without|not|no longer|never|instead of|remov\w+|dropp\w+)\b[^.\n]{0,20}$", re.I)


# (issue 11 s) The same run measured with its threads and memory bound to one socket and without ("~4 t/s. Pinned to
# one CPU with `numactl --cpunodebind=1 --membind=1`, ~8 t/s"): a binder in one sentence whose rate beats the rate of
# a sentence without one by AB_GAIN, in the same unit. numactl(8) binds CPUs and memory to a node; unbound on a
# multi-socket host, half the threads read memory across the socket link (numactl(8); NCCL environment docs,
# NCCL_IGNORE_CPU_AFFINITY). A binding that made no difference or made it slower gives no claim; so does a sentence
# naming the binder only as absent ("without numactl") or asked about.
_AB_BINDER = re.compile(r"\b(?:numactl|taskset)\b|--(?:cpunodebind|membind|physcpubind|cpuset-cpus)\b|"
                        r"--bind-to[ =](?:numa|socket|core)\b|"
                        r"\b(?:pinn?(?:ed|ing)|bound|bind(?:ing)?)\s+(?:\w+\s+){0,3}?to\s+"
                        r"(?:one|a single|1|the|its|their)(?:\s+own)?(?:\s+(?:local|same))?\s+"
                        r"(?:CPU|socket|NUMA node|NUMA domain|node)s?\b", re.I)
_AB_RATE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(tok\w*/s|t/s|tps|tokens? per second|it/s|[GM]B/s|samples/s|"
                      r"images?/s|img/s|fps)(?![\w/])", re.I)
AB_GAIN = 1.2
# A sentence is the unbound run only when it says so ("plain", "by default", "without numactl", "unpinned"), or when
# the bound sentence says it is the same run ("same test/command"); runs at different batch sizes are no pair.
_AB_UNBOUND = re.compile(r"\b(?:plain|by default|default (?:settings|launch|run|config\w*)|out of the box|normally|"
                         r"unbound|unpinned|not (?:pinned|bound)|without (?:any\s+)?(?:pinning|binding))\b", re.I)
_AB_SAME_RUN = re.compile(r"\bsame\s+(?:test|command|run|benchmark|bench|setup|job|script|workload|launch|"
                          r"config\w*)\b", re.I)
_AB_BATCH = re.compile(r"\b(?:batch(?:[- ]?size)?|bs|concurrency)\s*(?:of\s+|=\s*|:\s*)?(\d+)\b", re.I)
# (para37b) The bound run's own command line says it is the same run: the program numactl or taskset starts ("numactl
# --cpunodebind=1 --membind=1 ./bench --cpu") is the command of the other sentence ("./bench --cpu: ~4 t/s").
_AB_WRAPPED = re.compile(r"\b(?:numactl|taskset)(?:\s+-{1,2}[\w-]+(?:[ =](?!\.?/)[\w,.:-]+)?)*\s+"
                         r"([^\s`:,;]+(?:\s+[^\s`:,;]+){0,2})", re.I)


def _same_command(bound: str, free: str) -> bool:
    """Does the program the binder starts in `bound`, with its first arguments, appear in `free`?"""
    m = _AB_WRAPPED.search(bound)
    return bool(m and len(m.group(1)) >= 8 and " " in m.group(1) and m.group(1) in free)


def _ab_unit(unit: str) -> str:
    """One name per rate: 't/s', 'tps', 'tokens/s' and 'tokens per second' are all tokens per second."""
    u = unit.lower()
    return "tok/s" if u.startswith("t") else "img/s" if u.startswith("im") else u


def binding_ab(text: str) -> Claim | None:
    """The bound run's rate at least AB_GAIN times the unbound one's, each the only rate of its sentence: a
    numa_words claim quoting the bound run, data {bound, unbound, unit}."""
    bound, free = [], []
    for sentence in sentences(text):
        rates = [(float(m.group(1)), _ab_unit(m.group(2))) for m in _AB_RATE.finditer(sentence)]
        if len(rates) != 1:
            continue  # two figures in one sentence are a comparison of their own, not one run
        batch = {m.group(1) for m in _AB_BATCH.finditer(sentence)}
        b = _AB_BINDER.search(sentence)
        if not b or _NO_BINDING.search(sentence[:b.start()]):
            free.append((rates[0], batch, bool(b) or bool(_AB_UNBOUND.search(sentence)), sentence))
        elif not hypothetical(sentence, b.start()):
            bound.append((rates[0], sentence, b, batch, bool(_AB_SAME_RUN.search(sentence))))
    for (value, unit), sentence, b, batch, same_run in bound:
        others = [v for (v, u), fb, said, text in free
                  if u == unit and (said or same_run or _same_command(sentence, text))
                  and not (batch and fb and batch != fb)]
        if others and value >= AB_GAIN * max(others):
            return Claim("numa_words", "", _quote(sentence, b, 80),
                         {"groups": [], "bound": value, "unbound": max(others), "unit": unit, "origin": "figures"})
    return None


def cpu_binding(facts: Facts) -> list[Claim]:
    """Each CPU binding the reporter's words or pasted commands give: data {cpus: [...]} or {node: N}; a guess when
    asked, supposed or advised, negated when said to be absent or removed ('without taskset')."""
    out: list[Claim] = []
    pasted = pasted_blocks(facts)
    for source, text in texts(facts) + pasted:
        for sentence in sentences(text):
            for m, data in [(m, {"cpus": nccl_log.cpu_list(m.group(1))}) for m in _BIND_CPUS.finditer(sentence)] + \
                           [(m, {"node": int(m.group(1))}) for m in _BIND_NODE.finditer(sentence)]:
                if data.get("cpus") == []:
                    continue
                before = sentence[:m.start()]
                out.append(Claim("cpu_binding", source, _quote(sentence, m), data,
                                 negated=bool(_NO_BINDING.search(before)),
                                 guess=offered(sentence, m.start()) or conditional(sentence[:m.start()])))
    return out


# (issue 11 n) The GPUs' socket and the process's binding named in one sentence and differing ("GPUs 0-3 hang off NUMA
# node 0, but the worker is pinned with taskset -c 32-63, which is node 1"; "GPU2 and GPU3 are on socket 1, the
# container runs with --cpuset-cpus 0-31 (socket 0)"): the binding is on the other socket (numa_words).
# One node or host that alone brings the figure down: "fine on every pair except when node gpu-07 takes part".
_SOCKET_NAMED = r"\b(?:socket|NUMA node|NUMA domain|node|NUMA)\s*#?(\d)\b"
_BINDER = (r"(?:\b(?:taskset|numactl|cpuset|pinn?(?:ed|ing|s)?|bound|binds?)\b|"
           r"--(?:cpuset-cpus|cpunodebind|physcpubind)\b)")
# (the node bound to is the first one named after the binder: "bind ... to node 0; the NIC sits on node 1" is no
# mismatch for GPUs on node 0)
_UNTIL_NODE = r"(?:(?!\b(?:socket|NUMA node|NUMA domain|node|NUMA)\s*#?\d\b)[^.\n]){0,60}?"
MORE_WORDS_N3: dict[str, list[str]] = {
    "numa_words": [
        r"\bGPUs?(?:\s*#?\d+)?\b[^.\n]{0,40}?\b(?:hang(?:s)? off|(?:is|are|sit|sits)\s+on|attached to|local to|"
        r"connected to)\s+(?:CPU\s+)?" + _SOCKET_NAMED + r"[^.\n]{0,100}?" + _BINDER + _UNTIL_NODE +
        r"\b(?:socket|NUMA node|NUMA domain|node|NUMA)\s*#?(?!\1)\d\b",
        _BINDER + _UNTIL_NODE + _SOCKET_NAMED + r"[^.\n]{0,100}?\bGPUs?(?:\s*#?\d+)?\b[^.\n]{0,40}?"
        r"\b(?:hang(?:s)? off|(?:is|are|sit|sits)\s+on|attached to|local to|connected to)\s+(?:CPU\s+)?"
        r"(?:socket|NUMA node|NUMA domain|node|NUMA)\s*#?(?!\1)\d\b",
    ],
    "one_slow": [
        r"\b(?:fine|normal|ok|okay|good|as expected|full speed)\b[^.\n]{0,60}?\bexcept\s+(?:when|with|for|on|if)\s+"
        r"(?:the\s+)?(?:node|host|GPU|rank|server|machine|card)\b[^.\n]{0,60}?"
        r"\b(?:drops?|slow\w*|falls?|halv\w*|lower|third|quarter|half)\b",
        r"\b(?:whenever|every time|only when)\s+(?:the\s+)?(?:node|host|GPU|rank|server|machine|card)\s+[\w.-]+\s+"
        r"(?:takes part|is included|joins|is in the (?:ring|job|group))\b[^.\n]{0,60}?"
        r"\b(?:drops?|slow\w*|falls?|halv\w*|lower)\b",
    ],
}
_extend(MORE_WORDS_N3)


# torch.profiler's key_averages().table() ends with "Self CPU time total: 48.210ms" and "Self CUDA time total: 6.884ms"
# (https://pytorch.org/docs/stable/profiler.html): the time the profiled host threads ran against the time kernels ran
# on the GPU over the same window. Kernels busy for a small share of the host's time leave the GPU idle, waiting on
# the host; read as a GPU-busy share (gpu_util, origin 'profiler') only at half or less, where the gap is plain.
_PROF_TOTAL = re.compile(r"\bSelf (CPU|CUDA|GPU|Device) time total\s*:\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s)\b", re.I)
PROFILER_IDLE = 0.5


def profiler_busy(facts: Facts) -> list[Claim]:
    """A gpu_util claim (percent = GPU kernel time / host time) from a pasted torch.profiler table's totals."""
    out: list[Claim] = []
    pasted = pasted_blocks(facts)
    for source, text in texts(facts) + pasted:
        totals = {}
        for m in _PROF_TOTAL.finditer(text):
            totals.setdefault("cpu" if m.group(1).upper() == "CPU" else "gpu",
                              (to_ms(float(m.group(2)), m.group(3)), m))
        if "cpu" in totals and "gpu" in totals and totals["cpu"][0] > 0:
            share = totals["gpu"][0] / totals["cpu"][0]
            if share <= PROFILER_IDLE:
                m = totals["gpu"][1]
                out.append(Claim("gpu_util", source, _quote(text, m, 60),
                                 {"percent": round(100 * share, 1), "below": False, "origin": "profiler",
                                  "cpu_ms": totals["cpu"][0], "gpu_ms": totals["gpu"][0]}))
    return out


# (p48d) Rank 0 busy with work of its own (saving, writing or downloading a checkpoint, reading back the shards,
# evaluating) while the other ranks already wait at the next collective or barrier: the wait outlasts the process
# group's timeout (PyTorch's NCCL watchdog, 10 or 30 minutes by default) and the job is aborted, with no fault in the
# path between the GPUs. Said as a clause naming rank 0 (its local or global form, or the main process) as the one
# doing the work: "timeouts may occur because rank 0 takes significantly longer to finish since it's saving"
# (mosaicml/llm-foundry#733), "waiting for rank-0 forward, while rank 0 was saving artifacts"
# (instructlab/training#566), "while **rank 0 alone** serially reads all 144 partials" (goodfire-ai/spd#536), "a
# timeout on the barrier when it takes local rank 0 a long time to download the checkpoint" (mosaicml/composer#2071).
# "non-rank-0" is the others.
_RANK_ZERO = r"(?:local\s+|global\s+)?rank[\s_-]?(?:0|zero)\b|main\s+process\b"
# (fx48q) Rank 0 the subject of the work verb, only an auxiliary or an adverb between ("rank 0 was saving", "rank 0
# alone serially reads", "it takes local rank 0 a long time to download"): not a verb of another subject after it
# ("While rank 0 is stuck there, nvidia-smi reads 100 %", "rank 0 waits at the barrier and rank 3 is still writing"),
# nor work denied ("rank 0 writes nothing").
_RANK_ZERO_GAP = (r"(?:\s+(?:is|was|are|were|has|had|been|being|still|also|now|then|busy|alone|only|\w+ly|"
                  r"a\s+long\s+time\s+to)){0,3}")
MORE_WORDS_P48D: dict[str, list[str]] = {
    "rank_zero_work": [
        r"\b(?:while|whilst|when|because|since|as|until|till)\s+(?:it\s+takes\s+)?(?:\*\*)?(?:the\s+)?(?:"
        + _RANK_ZERO + r")(?:\s+(?:alone|only))?(?:\*\*)?" + _RANK_ZERO_GAP + r"\s+(?:sav(?:e|es|ed|ing)|"
        r"writ(?:e|es|ing)|download\w*|upload\w*|serializ\w*|evaluat\w*|reads?|reading|"
        r"takes?\s+(?:\w+\s+)?(?:longer|a\s+long\s+time))\b(?!\s+(?:nothing|no\b))",
    ],
}
_extend(MORE_WORDS_P48D, new_kinds=True)
# ... not a past run's, nor one said cured in its sentence: "Last month we had timeouts while rank 0 was saving, fixed
# with a barrier" (the job's trouble now is another); (fx48q) nor said cured or harmless after it in its sentence or the
# next, as _en_hang_past reads a hang fixed (_EN_FIXED): "When rank 0 saves the checkpoint at step 1000 everything is
# fine", "... while rank 0 was saving the checkpoint. Adding dist.barrier() after the save fixed it."; nor another's
# run ("A colleague's job timed out while rank 0 was saving": hearsay.theirs).
_WORK_PAST_BEFORE = re.compile(r"\b(?:" + _EN_EARLIER + r"|last\s+(?:week|month|year|time)|used\s+to)\b", re.I)
_WORK_CURED_AFTER = re.compile(r"(?<!not\s)(?<!n't\s)\b(?:fixed|solved|resolved|cured|went\s+away|"
                               r"(?:is|are|was|were)\s+gone)\b", re.I)


def _rank_zero_work_over(sentence: str, m: re.Match, following: str = "") -> bool:
    """Is rank 0's work `m` said of the past (a past marker before it), of another's run, or as cured or harmless
    (after it in its sentence, or in the `following` sentence)?"""
    before = sentence[:m.start()]
    return bool(_WORK_PAST_BEFORE.search(before) or hearsay.someone_elses(before)
                or _WORK_CURED_AFTER.search(sentence, m.end()) or _EN_FIXED.search(sentence, m.end())
                or _EN_FIXED.search(following))


# A timeout said anywhere in the ticket: the reporter's words, the title, or a pasted watchdog line.
_TIMEOUT_SAID = re.compile(r"\btime[- ]?outs?\b|\btimed?[- ]out\b|\btiming[- ]out\b|\bwatchdog\b", re.I)


def rank_zero_work(facts: Facts) -> Claim | None:
    """(p48d) Rank 0's own work said as what the others waited on (rank_zero_work, not a guess), in a ticket that
    says a timeout: the collective timed out waiting for rank 0, not for a path between the GPUs."""
    if not any(_TIMEOUT_SAID.search(text) for _, text in texts(facts) + pasted_blocks(facts)):
        return None
    return next((c for c in find(facts, "rank_zero_work") if not c.guess), None)


# (issue 11 n) The same situations as Chinese threads word them: one card or node behind the rest ("其中一张卡
# 明显比其他卡慢", "每次都要等它"), a GPU dropped from the bus ("掉卡", nvidia-smi no longer listing a card), ECC
# errors ("ECC 错误", "不可纠正"); and (partial_offload) layers left on the CPU ("一部分层放在CPU上") or the model past
# the GPU's memory ("显存放不下").
# (the text is spaced between Chinese and Latin letters, "没有 ECC 错误": each negation is looked for with a space too)
_ZH_NOT = "".join(f"(?<!{w}{s})" for w in ("没有", "没", "未", "不", "无", "不是", "并非", "并不是") for s in ("", " "))
# (cn42) The count as a place or a means, not one of several: "只能在第一个GPU图像生成很慢" (only on the first
# GPU, generating is slow: Tencent-Hunyuan/HunyuanDiT#36, the app puts one image on one GPU), "一个请求的 attention
# 压在一张卡上算得太慢" (crammed onto one card), "用一张卡跑很慢": the layout, as the English reading leaves "on one
# GPU it is slower" and "with one GPU" alone. 在/用/到 just before the count (or its ordinal 第) mark it.
_ZH_ON = "".join(f"(?<!{w}{o}{s})" for w in ("在", "用", "到") for o in ("", "第") for s in ("", " "))
MORE_WORDS_N4: dict[str, list[str]] = {
    "one_slow": [
        # (para37b) also one process or rank ("总有一个进程比其他的慢"), as the English readings take "one process"
        # (cn42) not one denied to exist: "没有一张卡很慢" (no card is slow)
        r"(?<!没)(?<!没 )(?:其中|有)?" + _ZH_ON + r"(?<!没有)(?<!没有 )(?<!无)(?:一|某一?|某个|1)\s*(?:张|块|个|台)"
        r"\s*(?:卡|GPU|显卡|节点|机器|进程|rank)[^\n。，,]{0,12}?"
        r"(?:明显|总是|一直|特别)?\s*(?:比(?:其他|其它|别的)[^\n。，,]{0,6}?)?" + _ZH_NOT + r"(?:慢|拖后腿|落后)",
        r"(?:每次|每一步|每个step)[^\n。]{0,20}?(?:都要|总要|都得)\s*等(?:它|这张卡|这个节点|那张卡|那个节点)",
    ],
    "hardware_error": [
        _ZH_NOT + r"掉卡|" + _ZH_NOT + r"(?:显卡|GPU)\s*掉(?:线|了)",
        r"(?:看不到|识别不到|检测不到|找不到)了?\s*(?:第\s*[一二三四五六七八\d]\s*张卡|一张卡|其中一张)",
        _ZH_NOT + r"\bECC\b\s*(?:错误|报错)|" + _ZH_NOT + r"不可纠正",
    ],
}
_extend(MORE_WORDS_N4)
_OFFLOAD_ZH = re.compile(r"(?P<not>没有|没|未|不)?\s*(?:一部分|部分|剩下的|其余的?|多余的?)(?:的)?\s*"
                         r"(?:层|权重|模型|参数)?\s*(?:放|跑|加载|卸载|offload|分配)(?:在|到)\s*(?:CPU|内存|系统内存)")
_OVER_VRAM_ZH = re.compile(r"(?P<not>没有|没|未|不会|并不|不是)?\s*(?:显存|GPU\s*内存|VRAM)\s*"
                           r"(?:放不下|装不下|不够|不足)")
# Memory left on the GPU while the engine computes on the CPU ("显存还剩几个G，但是却用CPU推理", "there's still 6 GB of
# VRAM free but it runs on the CPU", "a few GB of vram are still free, but it runs inference on the cpu"):
# llama.cpp and Ollama place whole layers by an estimate of what fits (-ngl /
# num_gpu; Ollama's FAQ, "How can I tell if my model was loaded onto the GPU?", shows the split as "48%/52% CPU/GPU",
# https://github.com/ollama/ollama/blob/main/docs/faq.md), so the layers that did not fit run from system memory on
# the CPU although nvidia-smi still shows free VRAM: the same placement as partial_offload's words, said from the
# other side. The CPU named after "but" as where the work runs, not as a load figure ("but CPU usage is 100 %");
# a dot inside a name ("llama.cpp") does not end the clause.
_VRAM_SIDE_ZH = r"(?:显存|显卡内存|显卡的内存|GPU\s*内存|VRAM)"
# The CPU named as a load or for host work is no placement of layers: a usage figure or word right after it ("uses
# the CPU at 100 %", "在CPU上的占用很高") or a job every engine gives the host (vLLM's --swap-space keeps preempted
# requests' KV blocks in CPU memory, https://docs.vllm.ai/en/latest/configuration/engine_args.html; tokenising,
# sampling).
_CPU_NOT_LAYERS = (r"(?:\d+(?:\.\d+)?\s*%|\b(?:usage|load|utili[sz]\w*|percent|swap\w*|tokeni[sz]\w*|detokeni[sz]\w*|"
                   r"sampl\w*|pre-?process\w*|post-?process\w*|schedul\w*)\b)")
_CPU_NOT_LAYERS_ZH = r"(?:占用|利用率|使用率|负载|占比|满载|跑满|交换|分词|采样|%|usage|load|swap)"
_VRAM_LEFT_CPU = re.compile(
    r"(?:(?:还有|还剩|剩余|剩下|空闲)[^。\n]{0,12}?" + _VRAM_SIDE_ZH + r"|" + _VRAM_SIDE_ZH +
    r"[^。\n]{0,8}?(?:还有|还剩|剩余|剩下|没满|未满|没用满|未用满|没用完|没占满|空闲))"
    r"[^。\n]{0,24}?(?:但是?|却|可是|然而|依然|仍然|还是)[^。\n]{0,16}?"
    r"(?P<not>没有|没|未|不会|不)?\s*(?:会\s*)?(?:启用|使用|用|跑在|跑到|放在|放到|切换?到|回退到|转到|在)\s*了?\s*"
    r"(?:CPU|处理器)\s*(?:推理|计算|运行|跑|上)(?![^。\n，,；;]{0,5}?" + _CPU_NOT_LAYERS_ZH + r")|"
    # English: an amount of VRAM (or "still", "plenty of") said free, then after "but" the CPU as where the work runs:
    # used directly ("uses the CPU") or after a verb, an object of a few words and a preposition ("runs on the CPU",
    # "is running it on CPU", "runs part of the model on the CPU", "falls back to the CPU", "processed by the CPU")
    r"\b(?:(?:still\s+)?(?:plenty\s+of|lots\s+of|(?:\d+(?:\.\d+)?\s*Gi?B|a\s+few\s+(?:GB|gigs))(?:\s+of)?)\s+|"
    r"still\s+)(?:free\s+)?(?:VRAM|GPU\s+memory|video\s+memory)\s+(?:(?:is|are|was|were)\s+)?(?:still\s+)?"
    r"(?:left|free|available|unused|to\s+spare)\b"
    r"(?:[^.\n]|\.(?=\w)){0,40}?\b(?:but|yet|still|however)\b(?:[^.\n]|\.(?=\w)){0,30}?"
    r"(?P<not_en>\b(?:not|never|doesn't|does\s+not|isn't|won't|didn't)\s+)?"
    r"(?:\b(?:uses?|using|used|utili[sz]es|utili[sz]ing)\s+|"
    r"\b(?:runs?|running|ran|puts?|putting|loads?|loading|loaded|offload(?:s|ed|ing)?|plac(?:es?|ed|ing)|"
    r"falls?\s+back|fell\s+back|falling\s+back|switch(?:es|ed|ing)?|spill(?:s|ed|ing)?(?:\s+over)?|goes|going|went|"
    r"does|doing|did|processe[sd]|processing|computes?|computed|computing|handled|done)\s+"
    r"(?:(?!(?:and|but|while|at|with|because|so|then)\b|" + _CPU_NOT_LAYERS + r")[\w'-]+\s+){0,5}?"
    r"(?:on|to|onto|into|in|by|over\s+to)\s+)"
    r"(?:the\s+|my\s+|its\s+)?CPU\b(?![\s(~-]*(?:\w+\s+){0,2}?" + _CPU_NOT_LAYERS + r")", re.I)



# The CPU said to do more of the work than the GPU, under an engine that places the layers which do not fit in VRAM on
# the CPU (llama.cpp's -ngl, Ollama's scheduler, LM Studio and koboldcpp on llama.cpp, accelerate's device_map): with
# every layer in VRAM the host only launches kernels and samples, so a CPU busier than the GPU is the CPU computing
# layers (Ollama's FAQ shows that split in `ollama ps`, "48%/52% CPU/GPU",
# https://github.com/ollama/ollama/blob/main/docs/faq.md; llama.cpp tools/main/README.md, -ngl). Said as a comparison
# ("the CPU works harder than the GPU", "GPU usage is lower than the CPU's", "CPU的利用率高于GPU", "GPU占用比CPU低"),
# as the CPU doing most of the work, or as two load figures with the GPU's the lower (_CPU_OVER_GPU_FIGURES). A GPU at
# 0 % does nothing at all: the engine did not use it (no CUDA device found), another cause, so a figure pair needs a GPU
# above 0. What is said under a condition ("if the CPU were at 100 %", "如果CPU占用比GPU高") was not seen.
_MORE = r"(?:much\s+|far\s+|a\s+lot\s+|way\s+|even\s+|significantly\s+)?"
_NOT_MORE = r"(?:\b(?:not|no|never|isn't|aren't|wasn't|doesn't|does\s+not|didn't)\s+)?"
# (a denial inside the comparison: "the CPU is not busier than the GPU", "CPU并不比GPU高", "CPU占用不高于GPU")
_MORE_DENIED = re.compile(r"\b(?:not|no|never|isn't|aren't|wasn't|doesn't|didn't)\b|不|没有", re.I)
_CPU_OVER_GPU = re.compile(
    r"\bCPU(?:'s)?\s+(?:usage\s+|load\s+|utili[sz]ation\s+|use\s+)?(?:is\s+|was\s+|stays\s+|seems\s+)?" + _NOT_MORE
    + r"(?:(?:working|doing|used|loaded|utili[sz]ed|busy|works?|does|did)\s+)?" + _MORE
    + r"(?:higher|greater|busier|harder|more(?:\s+work)?)\s+than\s+(?:the\s+|my\s+|its\s+)?GPU|"
    r"\bGPU(?:'s)?\s+(?:usage\s+|load\s+|utili[sz]ation\s+|use\s+)?(?:is\s+|was\s+|stays\s+|seems\s+)?" + _NOT_MORE
    + r"(?:(?:working|doing|used|loaded|utili[sz]ed|works?|does|did)\s+)?" + _MORE
    + r"(?:lower|less(?:\s+work)?)\s+than\s+(?:the\s+|my\s+)?CPU|"
    r"\b(?:uses?|using|used)\s+(?:the\s+|my\s+)?CPU\s+" + _MORE + r"more\s+than\s+(?:the\s+|my\s+)?GPU|"
    r"\bCPU\s+(?:is\s+|was\s+)?" + _NOT_MORE + r"(?:doing|does|did)\s+(?:most|the\s+bulk)\s+of\s+the\s+"
    r"(?:work|heavy\s+lifting|computation|compute|inference)\b", re.I)
# Chinese compares with 比 ("CPU的占用比GPU高", "GPU的利用率比CPU还低") or with 高于/低于 ("CPU的使用率却会高于GPU");
# 不, 并不 or 没有 before the verb denies it. The clause must say what is compared is load (_LOAD_ZH: 负载, 占用,
# 使用率, 利用率, 出力, ...; or the verb 忙/累/闲 itself): "CPU主频要比GPU高", "CPU的温度高于GPU",
# "cpu的耗时会明显高于gpu" compare a clock, a temperature, a run time.
_ZH_CLAUSE_END = r"[。\n，,？?；;！!]"
_ZH_CLAUSE = "[^" + _ZH_CLAUSE_END[1:]
_CPU_OVER_GPU_ZH = re.compile(
    r"CPU" + _ZH_CLAUSE + r"{0,12}?(?:比\s*(?:显卡|GPU)" + _ZH_CLAUSE
    + r"{0,8}?(?:还|更)?\s*(?P<more>高|多|大|重|忙|累)|"
    r"(?:高于|多于|大于|超过)\s*(?:显卡|GPU))|"
    r"(?:显卡|GPU)" + _ZH_CLAUSE + r"{0,12}?(?:比\s*CPU" + _ZH_CLAUSE
    + r"{0,8}?(?:还|更)?\s*(?P<less>低|少|小|闲)|"
    r"(?:低于|少于|小于)\s*CPU)", re.I)
_LOAD_ZH = re.compile(r"负载|负荷|占用|使用率|利用率|用量|出力|工作量|干活|load|usage|utili[sz]", re.I)
_BUSY_ZH = ("忙", "累", "闲")
_IF_ZH = re.compile(r"(?:如果|假如|假设|要是|若是?|万一)" + _ZH_CLAUSE + r"*$")
# ... and as two load figures in one sentence, either order: "GPU at 1-3 %, while the CPU at 70 %", "CPU usage 98.5 %,
# GPU-Util 4 %", "GPU占用5%，CPU占用90%". The name stands alone (Chinese runs its words into it: "GPU占用"); the words
# between a name and its figure say what it counts: not memory, a temperature, a fan, power or a clock
# (_NOT_LOAD_FIGURE), and a CPU figure is the whole CPU's, not one core's or thread's ("CPU only use one core at 100%":
# the thread that drives the GPU spins one core, GPU-resident or not; a process's figure above 100 % counts cores).
_NAME = r"(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"
_PCT = r"(?<![\d.])\d{1,3}(?:\.\d+)?"  # a percentage's figure
_CPU_OVER_GPU_FIGURES = re.compile(
    _NAME.format("GPU") + r"(?P<g1>[^.\n%]{0,40}?)(?P<gpu>" + _PCT + r")\s*%[^.\n]{0,40}?" + _NAME.format("CPU")
    + r"(?P<c1>[^.\n%\d]{0,40}?)(?P<cpu>" + _PCT + r")\s*%|"
    + _NAME.format("CPU") + r"(?P<c2>[^.\n%\d]{0,40}?)(?P<cpu2>" + _PCT + r")\s*%[^.\n]{0,40}?"
    + _NAME.format("GPU") + r"(?P<g2>[^.\n%]{0,40}?)(?P<gpu2>" + _PCT + r")\s*%", re.I)
# (audit36) ... and as two states joined by "but" / "while", either order: "the CPU usage is often full, but the GPU
# usage is not high" (ollama/ollama#7801), "GPU utilization stays low while CPU usage is maxed out". The CPU said busy
# (full, maxed out, pegged, high, at 100 %), the GPU said low or "not (very) high": never idle or at 0, which is a GPU
# the engine did not use at all (another cause), and never a denied CPU state ("the CPU usage is not high").
_CPU_BUSY = (r"\bCPU(?:'s)?\s+(?:usage|load|utili[sz]ation|use)\s+(?:is\s+|was\s+|stays\s+|goes\s+|gets\s+|remains\s+)?"
             r"(?:often\s+|always\s+|constantly\s+|usually\s+|quite\s+|very\s+|almost\s+|nearly\s+)?"
             r"(?:full|maxed(?:\s+out)?|pegged|high|at\s+(?:its\s+)?(?:max\w*|limit)|(?:at\s+)?100\s*%)")
_GPU_LOW = (r"\bGPU(?:'s)?\s+(?:usage|load|utili[sz]ation|use)\s+(?:is\s+|was\s+|stays\s+|remains\s+)?"
            r"(?:only\s+|very\s+|quite\s+|really\s+|rather\s+)?(?:not\s+(?:very\s+|that\s+|so\s+)?high|low)\b")
_CPU_BUSY_GPU_LOW = re.compile(
    _CPU_BUSY + r"(?:[^.\n]|\.(?=\w)){0,40}?\b(?:but|while|whereas|yet)\b\s+(?:the\s+|my\s+)?" + _GPU_LOW[2:] + "|"
    + _GPU_LOW + r"(?:[^.\n]|\.(?=\w)){0,40}?\b(?:but|while|whereas|yet)\b\s+(?:the\s+|my\s+)?" + _CPU_BUSY[2:],
    re.I)
_NOT_LOAD_FIGURE = re.compile(r"\b(?:memory|mem|VRAM|RAM|temp\w*|fans?|power|clocks?|freq\w*)\b|"
                              r"显存|内存|温度|风扇|功耗|功率|频率", re.I)
_ONE_CORE = re.compile(r"\b(?:one|single|a|1)\s+(?:CPU\s+)?(?:core|thread)\b|单核|单线程|一个核", re.I)


def cpu_over_gpu(sentence: str) -> list[tuple[re.Match, bool]]:
    """(match, negated) for each place the sentence says the CPU does more of the work than the GPU (_CPU_OVER_GPU,
    _CPU_BUSY_GPU_LOW's two states, _CPU_OVER_GPU_ZH where the clause names a load, _CPU_OVER_GPU_FIGURES with the
    GPU's load figure above 0 and below the CPU's); none said under a condition."""
    def supposed(start: int) -> bool:
        return conditional(sentence[:start], when=False) or bool(_IF_ZH.search(sentence[:start]))

    out = [(m, bool(_MORE_DENIED.search(m.group(0)))) for m in _CPU_OVER_GPU.finditer(sentence)
           if not supposed(m.start())]
    out += [(m, False) for m in _CPU_BUSY_GPU_LOW.finditer(sentence) if not supposed(m.start())]
    for m in _CPU_OVER_GPU_ZH.finditer(sentence):
        clause = re.split(_ZH_CLAUSE_END, sentence[:m.start()])[-1][-8:] + m.group(0)  # ("从利用率上看CPU要远高于GPU")
        if (_LOAD_ZH.search(clause) or (m.group("more") or m.group("less")) in _BUSY_ZH) and not supposed(m.start()):
            out.append((m, bool(_MORE_DENIED.search(m.group(0)))))
    for m in _CPU_OVER_GPU_FIGURES.finditer(sentence):
        gpu, cpu = float(m.group("gpu") or m.group("gpu2")), float(m.group("cpu") or m.group("cpu2"))
        said = (m.group("g1") or m.group("g2") or "") + (m.group("c1") or m.group("c2") or "")
        cpu_words = m.group("c1") or m.group("c2") or ""
        if 0 < gpu < cpu <= 100 and not _NOT_LOAD_FIGURE.search(said) and not _ONE_CORE.search(cpu_words) and \
                not supposed(m.start("gpu") if m.group("gpu") else m.start("cpu2")) and \
                not supposed(m.start("cpu") if m.group("cpu") else m.start("gpu2")):
            out.append((m, False))
    return out


# (issue 11 n) A laptop GPU slower on battery than on mains: the notebook's power management lowers the GPU's power
# limit on battery (NVIDIA Dynamic Boost and Battery Boost, https://www.nvidia.com/en-us/geforce/technologies/battery-
# boost/), so the clocks come down: a power throttle by design (clock_power). And the vLLM V1 engine process
# ("EngineCore", its busy loop the schedule-and-launch thread) or the serving process named at one core's worth.
_BATTERY_SLOWER = (r"\b(?:slow\w*|drops?|half|fewer|only\s+(?:gives?\s+|reach\w*\s+|gets?\s+|does\s+|manages?\s+)?"
                   r"~?\d|lower\s+(?:speed|clocks?|tok\w*|throughput|performance|rate|fps))\b")
# (one core's worth is also how a GPU-bound PyTorch job looks: CUDA spins a core while it waits on the GPU, so
# ticket.cpu_bound counts this and a top row only beside a GPU seen idle)
PROCESS_AT_CORE = (r"\b(?:EngineCore|engine[- ]core|engine process|scheduler process|API server process|"
                   r"server process|python3? process|main process)\b[^.\n%]{0,30}?\b(?:at|is at|sits at|hits|shows|"
                   r"uses?|pegged at|stuck at)\s+(?:~|about\s+)?(?:9\d|1\d\d)(?:\.\d+)?\s*%")
MORE_WORDS_N5: dict[str, list[str]] = {
    "clock_power": [
        # (a speed word: "I only use it on battery" says when, not how fast)
        r"\bon battery(?: power)?\b[^.\n]{0,60}?" + _BATTERY_SLOWER + r"|"
        + _BATTERY_SLOWER + r"[^.\n]{0,60}?\bon battery\b",
        r"(?:用电池|不插电|拔掉电源)[^\n。]{0,30}?(?:慢|降|只有)",
    ],
    "cpu_ab": [PROCESS_AT_CORE],
}
_extend(MORE_WORDS_N5)


# --------------------------------------------------------------------------- warm-up in other languages (issue 11 r)
# "Only the first call is slow, then it is fast", as the threads in Chinese, Japanese, Korean, German, Russian and
# Spanish say it: the first units of work pay CUDA's lazy initialisation and NCCL's lazy connection set-up.
MORE_WORDS_R: dict[str, list[str]] = {
    # (the negations "不慢", "遅くない", "느리지 않", "nicht langsam", "не медленн", "no es lento" rule them out)
    "first_calls_slow": [
        # (the work named: "首次部署后很慢", "처음 사용해보는데 느려요" are a first use, slow ever since)
        r"(?:第一次|首次|头一次|第一个|前几次|前几个)\s*(?:推理|请求|调用|运行|预测|生成|inference)"
        r"(?:(?![不没])[^。\n，,]){0,20}?(?<![不没])(?:很慢|特别慢|非常慢|较慢|慢|耗时(?:很)?(?:长|久)|时间(?:很|较)?长)",
        # (para37c) "为什么最开始几次 ncclSendRecv 很慢", "前几次每次要10到100 ms": the first few named by the API
        # call, or by a time each, the counterpart of _FIRST_WORK's "the first few ncclSendRecv take 10 to 100 ms"
        r"(?:前几次|头几次|(?:最|刚)?开始(?:的)?几次|最初(?:的)?几次)\s*(?:[A-Za-z_][\w.]*\s*)?"
        r"(?:推理|请求|调用|运行|通信)?(?:(?![不没])[^。\n，,]){0,20}?(?<![不没])"
        r"(?:很慢|特别慢|非常慢|较慢|慢|耗时(?:很)?(?:长|久)|时间(?:很|较)?长)",
        r"(?:前几次|头几次|(?:最|刚)?开始(?:的)?几次|最初(?:的)?几次)[^。\n]{0,10}?(?:要|需要|花了?|耗时|用了)\s*"
        r"\d+(?:\.\d+)?\s*(?:(?:到|至|-|~)\s*\d+(?:\.\d+)?\s*)?(?:ms|s|秒|毫秒)",
        r"(?:最初|初回|一回目|1\s*回目)\s*(?:の)?\s*(?:推論|リクエスト|呼び出し|実行|生成)[^。\n]{0,20}?"
        r"(?:遅(?:い|く|かった)(?!\s*" + _JA_DENIED + r")|時間がかか(?!らない))",
        r"(?:첫\s*번째|첫|처음)\s*(?:추론|요청|호출|실행|생성)[^.\n]{0,20}?(?:느리(?!지\s*않)|느려|오래\s*걸)",
        r"\b(?:erste[rsn]?|ersten paar)\s+(?:Aufruf|Anfrage|Inferenz|Durchlauf|Lauf|Schritt|Vorhersage)\w*\b"
        r"(?:(?!\b(?:nicht|kein\w*)\b)[^.\n]){0,40}?\b(?:langsam\w*|dauert)",
        r"(?:перв(?:ый|ая|ое|ые|ого|ых))\s+(?:запрос|вызов|инференс|прогон|шаг|генераци)\w*"
        r"(?:(?!\bне\b)[^.\n]){0,40}?(?:медленн|долг|занима)",
        r"\b(?:primer[ao]?s?)\s+(?:inferencias?|petici[oó]n|peticiones|solicitud\w*|llamadas?|ejecuci[oó]n|consultas?)\b"
        r"(?:(?!\bno\b)[^.\n]){0,40}?\b(?:lent[ao]s?|tarda\w*)",
    ],
}
_extend(MORE_WORDS_R)
# (issue 11 s) One request at a time as reporters also say it: a concurrency of one ("concurrency=1",
# "--max-concurrency 1", "one concurrent request"), "only tested a single prompt", and the Chinese forms
# (单并发, 并发为1, 单个请求, 测试单条, 一次只发一条). benchmark_serving's --max-concurrency and trtllm-bench's
# --concurrency name the requests in flight; at one, decode is latency-bound (few_requests).
MORE_WORDS_S: dict[str, list[str]] = {
    "few_requests": [
        r"\bconcurrency\s*(?:=|:|of|is|was|set to)?\s*1\b(?!\.\d)" + _NOT_A_SWEEP,
        r"--(?:max[-_])?concurrency[ =]1\b(?!\.\d)" + _NOT_A_SWEEP,
        r"\b(?:1|one|a single)\s+concurrent\s+(?:request|user|stream|client|prompt)s?\b",
        r"\bonly\s+(?:tested|ran|sent|measured|benchmarked|tried|timed)\s+(?:with\s+)?(?:a single|one|1)\s+"
        r"(?:request|prompt|query|sequence|input|sample)\b",
        r"单并发|并发(?:数|量)?\s*(?:为|=|是|设为|设置为)?\s*1(?![\d.])|单(?:个|次)?请求|单条(?:请求|输入|数据|样本|prompt|query)|"
        r"(?:测试?|测了|跑了?)\s*单条|(?:一次|每次)只(?:发|跑|推理|处理|测)?\s*一(?:个|条)(?:请求|输入|数据|样本)?",
        # (para37d) one item of what the job processes, as few_requests reads "only one audio" in English: "只解码一条
        # 音频", "只处理一张图片"; and "decode/process one audio" with the verb in English
        # (para37d) a small batch or few requests in Chinese, as "batch size is small" above: "batch 小", "请求少",
        # "并发很少" (not "不少": the adverbs allowed between are the degree words only)
        r"\bbatch(?:[ _-]?size)?\s*(?:很|较|比较|太|非常|偏)?小|(?:请求|并发)(?:数|量)?\s*(?:很|较|比较|太|非常|偏)?少",
        # (para37c found the same reading in its own rewordings: "只推理一张图片", "每次只输入一句"; not "不只")
        r"(?<!不)只\s*(?:解码|处理|推理|识别|跑|输入|测|送入|生成)?\s*(?:一|1|单)\s*(?:条|张|个|段|句|路|幅|帧)\s*"
        r"(?:音频|语音|图片|图像|图|样本|句子|视频|输入|请求|文本|prompt)",
        r"\b(?:decod|process|transcrib|infer|classif|recogni[sz])\w*\s+(?:only\s+)?(?:one|a single|1)\s+"
        r"(?:audio(?: file| clip)?|utterance|image|picture|photo|frame|sample|sentence|video)\b(?!\s+(?:per|of|at)\b)",
    ],
}
_extend(MORE_WORDS_S)

# (lang42) GPU peer-to-peer refused, in the words no_p2p reads in English:
# - `nvidia-smi topo -p2p` glossed by its own legend ("NS = Not supported"): a cell written "NS (Not Supported)"
#   away from the command line ("GPU0 ↔ GPU1 : NS (Not Supported)", 9566.tistory.com/567);
# - Korean "P2P를 지원하지 않다" ("does not support P2P"), the English "doesn't support ... P2P": said of a machine in
#   9566.tistory.com/567 ("서로 직접 접근(P2P, peer-to-peer)을 지원하지 않는 구조였다"), and in Korean write-ups of
#   the mechanism ("PCIe 토폴로지가 P2P를 지원하지 않으면, NCCL은 SHM으로 폴백합니다"; "일부 system은 P2P를 지원하지
#   않거나 ACS/IOMMU 설정으로 redirect될 수 있다"; a Korean ML-engineering guide: "L4 예처럼 P2P를 지원하지 않을 수
#   있다"). Those three are conditions or possibilities ("않으면" if not, "않을 수" may not, "않거나" or may not):
#   only the stated forms read ("않는", "않습니다", "않아", "않았"), never "않는지"/"않나요" (whether ... ?).
# (fr42) Nor a condition in the stated form: "P2P를 지원하지 않는 경우 NCCL은 SHM으로 폴백합니다" (in the case it does
# not: the mechanism explained), "않는 때", "지원하지 않는다면" / "않았다면" (if not).
_KO_NOT_A_CASE = r"(?!\s*(?:경우|때(?!문)))"
_KO_P2P = r"(?:\bP2P|\bpeer[- ]to[- ]peer|피어\s?투\s?피어|GPU\s*간\s*직접\s*(?:접근|통신))\)?"
MORE_WORDS_L42: dict[str, list[str]] = {
    "no_p2p": [
        r"(?<![\w-])(?-i:NS)\s*\(\s*not\s+supported\s*\)",
        _KO_P2P + r"\s?(?:를|을|가|이|는|은)?\s?(?:지원하지\s*않(?:는(?!지|다고|다는|다더|다면|\s*(?:것\s*같|듯))"
        + _KO_NOT_A_CASE + r"|습니다|아(?!요\?)|았(?!다면|더라면))|"
        r"지원(?:이|을)?\s*안\s*(?:됨|됩니다|된다|돼(?!요\?)|되는(?!지|다면)" + _KO_NOT_A_CASE + r")|"
        r"지원되지\s*않(?:는(?!지|다면)" + _KO_NOT_A_CASE + r"|습니다|아|았(?!다면|더라면))|"
        r"(?:사용|지원)\s*불가(?!능한지))",
    ],
}
_extend(MORE_WORDS_L42)

# (issue 11 s) A measured rate set against a published or expected one in one sentence ("only 87 tokens/s, not the
# 239.98 tokens/s of the README", "2000 tok/s instead of the 6552 on the performance page", "只有87tokens/s，没有239.98
# tokens/s", "不是239.98 tokens/s"):
# two rates of one unit, a reference word among them, the larger at least REFERENCE_GAP times the smaller.
# The larger is the reference, the smaller the measurement (data {measured, reference, unit}). A question ("should I
# get 240 tok/s rather than 87?") is no claim; "went from 40 to 20 tok/s" names no reference.
_REFERENCE_MARK = re.compile(
    r"\b(?:instead of|rather than|expected|expecting|should (?:get|be|reach|see)|readme|docs?|documentation|"
    r"documents?|documented|"
    r"official\w*|published|reported|claimed|advertised|paper|blog|"
    r"perf(?:ormance)?[- ](?:page|table|overview|numbers?|docs?)|benchmark (?:page|table|results?|numbers?))\b|"
    r"(?:\bnot|n't)\s+(?:(?:get\w*|reach\w*|see\w*|the|near|close to|anywhere near)\s+){0,2}(?:~|about\s+)?(?=\d)|"
    # (para37) Chinese "not" before the figure as English "not 240" above: "只有87tokens/s，不是239.98 tokens/s"
    r"没有\s*(?:达到\s*)?(?=\d)|(?:不是|并非)\s*(?=\d)|达不到|不到\s*(?=\d)|而不是|官方|文档|宣称|标称|号称", re.I)
REFERENCE_GAP = 1.5
# (the mark must govern the larger figure, next to it: "instead of the 5000 tok/s", "120 tok/s the README shows";
# the larger one said to be our own earlier figure is a regression, not a reference: "not the 90 tok/s we had before")
_REFERENCE_NEAR = 40
_OUR_EARLIER = re.compile(r"\b(?:we|I)\s+(?:had|got|saw|used to|were getting|was getting)\b|\bused to\b|"
                          r"\bpreviously\b|\bbefore\b|\bearlier\b|\blast (?:week|month|year|release|version)\b|"
                          r"\bold (?:version|release|driver|build)\b|以前|之前|原来", re.I)


def _reference_mark(sentence: str, rates: list) -> re.Match | None:
    """The reference mark beside the larger of two rates, unless that figure is said to be our own earlier one."""
    (_, _, first), (_, _, second) = rates
    high = first if rates[0][0] >= rates[1][0] else second
    start = first.end() if high is second else 0
    end = second.start() if high is first else len(sentence)
    before = max(start, high.start() - _REFERENCE_NEAR)
    after = min(end, high.end() + _REFERENCE_NEAR)
    if _OUR_EARLIER.search(sentence, before, after):
        return None
    # (the search before runs one character into the figure: "not the (?=\d)" looks ahead at it)
    return _REFERENCE_MARK.search(sentence, before, high.start() + 1) or \
        _REFERENCE_MARK.search(sentence, high.end(), after)


def reference_marked(sentence: str) -> bool:
    """Does the sentence cite a published or expected figure's source (README, docs, official, paper, 'instead of')?"""
    return bool(reference_mark(sentence))


def reference_mark(sentence: str) -> re.Match | None:
    """The first word of the sentence that cites a published or expected figure's source, or None."""
    return _REFERENCE_MARK.search(sentence)


def reference_rate(text: str) -> Claim | None:
    """The first sentence that sets a measured rate against a reference one (see _REFERENCE_MARK); its data carries
    the reference's scope where the words say it sums many streams and the measured one is one stream's (_pair_scope).
    Without such a sentence, the first sentence or paragraph that says both scopes outright (scope_pair)."""
    for sentence in sentences(text):
        rates = [(float(m.group(1)), _ab_unit(m.group(2)), m) for m in _AB_RATE.finditer(sentence)]
        if len(rates) != 2 or rates[0][1] != rates[1][1] or asked(sentence):
            continue
        mark = _reference_mark(sentence, rates)
        if not mark:
            continue
        low, high = sorted(r[0] for r in rates)
        if low > 0 and high >= REFERENCE_GAP * low:
            data = {"measured": low, "reference": high, "unit": rates[0][1]}
            scope = _pair_scope(sentence, rates, text.replace(sentence, " "))
            if scope:
                data["scope"] = scope
            return Claim("reference_rate", "", _quote(sentence, mark, 80), data)
    return scope_pair(text)


# (scope26, issue 11) Many streams at once said beside a figure: "aggregate/total/system throughput", "100t/s
# aggregated", "(~416 tok/s total)", "64 concurrent requests", "when I have two requests", "concurrency 32", "batch size
# 64"; one stream: "one request", "single stream", "per user", "each", "alone", "concurrency 1". A served figure sums
# every stream in flight: TensorRT-LLM's perf page computes throughput as output tokens x batch size / runtime
# (NVIDIA/TensorRT-LLM#43), and "a GPU server might deliver 30 tok/s to each of 100 concurrent users - 3,000 tok/s of
# system throughput" (infercom.ai's glossary). So aggregate / streams is the per-stream figure. (Several GPUs as a
# scope, "N cards / N", is not read: no verbatim thread of tests/data/scope26 supports it yet.)
_NUMBER_WORD = r"(\d{1,4}|two|three|four|five|six|eight|ten|sixteen)"
_SCOPE_MANY = re.compile(
    r"(?<![\w.])" + _NUMBER_WORD + r"\s+(?:concurrent|parallel|simultaneous)\s+(?:requests?|users?|streams?|"
    r"clients?|sequences?|prompts?|threads?)\b|"
    r"(?:(?<=have )|(?<=with )|(?<=at ))" + _NUMBER_WORD + r"\s+(?:requests|streams|users|sequences)\b|"
    r"\b(?:concurrency|max[-_ ]concurrency|batch[-_ ]size|bs|max[-_]num[-_]seqs)\s*(?:=|:|of|at)?\s*"
    r"(\d{1,4})\b(?![.\d])|"
    r"\b(aggregated?|total|combined|overall|batched|system)\s+(?:output\s+|generation\s+|decode\s+)?"
    r"(?:throughput|tok\w*/s|tokens?)", re.I)
# a sum named right after its figure: "100t/s aggregated", "(~416 tok/s total)"
_SCOPE_AFTER = re.compile(r"[\s*)]{0,3}(aggregated?|total|combined)\b", re.I)
_SCOPE_ONE = re.compile(
    r"\b(?:one|single|a single|1)\s+(?:concurrent\s+)?(?:request|stream|user|prompt|sequence|query|client)\b|"
    r"\bsingle[- ](?:stream|user|request|flight|query)\b|\bper[- ](?:stream|request|user|query|thread|sequence)\b|"
    r"\beach\b|\balone\b|\b(?:concurrency|batch[-_ ]size|bs)\s*(?:=|:|of)?\s*1\b(?![.\d])", re.I)
# clauses: a scope word belongs to the rate of its own clause ("one request ... 70 tokens/s; two requests ... 140")
_CLAUSE_SEP = re.compile(r";|\s[-–—]\s|\b(?:vs\.?|versus|but|and|while|whereas)\b", re.I)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def _scope_count(m: re.Match) -> int | None:
    """The count a scope phrase says, or None for a word without one ('aggregate')."""
    for g in m.groups():
        if g:
            return int(g) if g.isdigit() else ENGLISH_COUNT_WORDS.get(g.lower())
    return None


def _owner(window: str, at: tuple[int, int], rates: list) -> int | None:
    """Index of the rate a phrase at `at` describes: the one rate of its clause; the nearer one when its clause holds
    both; none when its clause holds neither ("..., but a much slower experience per request")."""
    cuts = [0] + [m.end() for m in _CLAUSE_SEP.finditer(window)] + [len(window)]
    lo = max(c for c in cuts if c <= at[0])
    hi = min((c for c in cuts if c >= at[1]), default=len(window))
    inside = [i for i, r in enumerate(rates) if lo <= r[2].start() and r[2].end() <= hi]
    if len(inside) == 1:
        return inside[0]
    if not inside:
        return None
    gaps = [max(r[2].start() - at[1], at[0] - r[2].end(), 0) for r in rates]
    return min(range(len(rates)), key=gaps.__getitem__)


def _each_of(text: str, m: re.Match) -> bool:
    """'to each of 100 concurrent users': the figure before it is one user's; the phrase gives the count."""
    return text[:m.start()].rstrip().lower().endswith("each of")


def _pair_scope(window: str, rates: list, rest: str = "") -> dict | None:
    """{"what": "streams", "count": N or None, "said": phrase} when the larger of two rates is said to be of many
    streams and the smaller to be one stream's; None otherwise. Precision first: a reference mark alone does not
    make the smaller figure one stream's, and the rest of the ticket naming many streams (two aggregates at one load,
    a measured figure that may be a sum too) leaves the scope unread."""
    high = 0 if rates[0][0] >= rates[1][0] else 1
    single = [_owner(window, m.span(), rates) for m in _SCOPE_ONE.finditer(window)]
    found = [(m, _owner(window, m.span(), rates)) for m in _SCOPE_MANY.finditer(window)]
    found += [(m, i) for i, r in enumerate(rates) for m in [_SCOPE_AFTER.match(window, r[2].end())] if m]
    each = [m for m, i in found if i == 1 - high and _each_of(window, m)]
    ref = [m for m, i in found if i == high]
    own = [m for m, i in found if i == 1 - high and m not in each]
    if not ref or own or high in single or (1 - high) not in single:
        return None
    said = next((m for m in ref if _scope_count(m) is not None), ref[0])  # (a count where one is said)
    count = _scope_count(said)
    if count is None and each:
        count, said = _scope_count(each[0]), each[0]
    if count is not None and count < 2:
        return None  # ("concurrency 1": one stream, the same scope as one request)
    if any(_scope_count(m) != 1 for m in _SCOPE_MANY.finditer(rest) if not _each_of(rest, m)):
        return None  # the ticket names many streams elsewhere: the measured figure may be of them too
    return {"what": "streams", "count": count, "said": said.group(0).strip(" *)")}


# A Markdown list item: "- ", "* ", "+ " or "1. " opening a line (https://spec.commonmark.org/0.31.2/#list-items).
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,2}[.)])\s+")


def _listed_apart(window: str, rates: list) -> bool:
    """The two rates stand on two items of one list: results the reporter lists one by one ("- Single stream: ~12-13
    tok/s", "- 4 concurrent: ~21 tok/s aggregate", MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#142), each a run of
    theirs, not one figure held against another."""
    lines = [window.rfind("\n", 0, r[2].start()) + 1 for r in rates]
    return lines[0] != lines[1] and all(_LIST_ITEM.match(window, at) for at in lines)


def scope_pair(text: str) -> Claim | None:
    """The first sentence, else paragraph, with exactly two rates of one unit, the larger at least REFERENCE_GAP times
    the smaller and said to be of many streams or GPUs, the smaller said to be one stream's (_pair_scope): a
    reference_rate claim with its scope. Real tickets state the comparison over a paragraph as often as in a sentence
    ("37t/s single stream and 100t/s aggregated"; "one request ... 70 tokens/s; two requests ... 140 tokens/s")."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if "```" not in p and not re.search(r"^\s*\|", p, re.M)]
    for window in sentences(text) + [p for p in paragraphs if len(sentences(p)) > 1]:
        window = _THOUSANDS.sub("", window)
        if asked(window):  # the figures stated before the closing question ("..., so why can't ... ?"), not in it
            window = window[:max(window.rfind(","), window.rfind(";"), 0)]
        # (a figure in a condition is no measurement: "If each request must stay above ~40 tok/s, ...")
        rates = [(float(m.group(1)), _ab_unit(m.group(2)), m) for m in _AB_RATE.finditer(window)
                 if not conditional(window[:m.start()], when=False)]
        if len(rates) != 2 or rates[0][1] != rates[1][1]:
            continue
        low, high = sorted(r[0] for r in rates)
        if not (low > 0 and high >= REFERENCE_GAP * low):
            continue
        if _listed_apart(window, rates):
            continue
        scope = _pair_scope(window, rates, _THOUSANDS.sub("", text).replace(window, " "))
        if scope:
            at = max(rates, key=lambda r: r[0])[2]
            return Claim("reference_rate", "", _quote(window, at, 80),
                         {"measured": low, "reference": high, "unit": rates[0][1], "scope": scope})
    return None

# (issue 11 s) The GPU said to sit idle in so many words ("the GPU is idle while ...", "the GPUs sit idle most of the
# time", "the GPU idles between kernels", "GPU 空闲/闲置"): NVML's utilization is the share of time a kernel runs, so
# an idle GPU under load is one waiting on its feeder. Not the idle state between requests or with no work
# ("the GPU is idle when no requests come in"), nor "is not idle".
# A P-state reading ("idling at P8", "at power state 2") is the idle state: ticket.idle_reading's.
_IDLE_NOT_LOAD = (r"(?!\s+(?:at|in)\s+(?:P\d|P-state|(?:power|performance)[- ]state))"
                  r"(?![^.\n]{0,40}?\b(?:when|if|after|before|between)\b[^.\n]{0,30}?"
                  r"\b(?:no|nothing|idle|finish\w*|done|requests?)\b)"
                  # "while the server waits (for requests)": no work; "waits for the CPU / tokenizer" is load
                  r"(?![^.\n]{0,40}?\b(?:server|engine|service|it)\s+(?:is\s+)?wait(?:s|ing)?\b"
                  r"(?!\s+(?:for|on)\s+(?:the\s+)?(?:cpu|host|data|input|tokeni\w*|python|scheduler|dataloader)))")
# (fr42) nor under the reader's condition or a doubt: "if your GPU usage is mostly 0%, the dataloader is the
# bottleneck" (a guide's advice), "if my", "unless", "whether"
_NOT_IF = (r"(?<!\bif )(?<!\bif the )(?<!\bwhen )(?<!\bwhen the )(?<!\bif your )(?<!\bif my )(?<!\bif our )"
           r"(?<!\bunless )(?<!\bunless the )(?<!\bunless your )(?<!\bunless my )(?<!\bwhether )"
           r"(?<!\bwhether the )(?<!\bwhether your )(?<!\bwhether my )")
_extend({"gpu_idle_words": [
    r"\bGPUs?\b[^.\n]{0,15}?\b(?:is|are|sits?|sat|stays?|remains?|was|were)\s+(?:mostly\s+|often\s+|largely\s+|"
    r"just\s+|basically\s+)?idle\b" + _IDLE_NOT_LOAD,
    # (hostbound36) idle said as doing nothing, or as the share of the time it does nothing: "the GPU is doing nothing
    # most of the time", "half of the time the GPU sits doing nothing" (NVML's utilisation is that share, inverted)
    r"\bGPUs?\b[^.\n]{0,15}?\b(?:is|are|sits?|stays?|was|were)\s+(?:mostly\s+|often\s+|just\s+|basically\s+)?"
    r"doing nothing\b" + _IDLE_NOT_LOAD,
    r"\b(?:most|half|(?:more than |over |about )?\d{2}\s*%)\s+of\s+the\s+time\b[^.\n]{0,20}?\bGPUs?\s+"
    r"(?:is|are|sits?|stays?|was|were)\s+(?:doing nothing|idle|empty)\b" + _IDLE_NOT_LOAD,
    r"\bGPUs?\s+(?:idles?|idling|starv\w+)\b" + _IDLE_NOT_LOAD,
    r"GPU\s*(?:大部分时间|经常|基本|一直)?\s*(?:处于)?\s*(?:空闲|闲置)",
    # (hostbound37) the same share said from the busy side: "GPU utilization is only near maximum for maybe like 5%
    # of the time the program is running" (Blair-Johnson/batch-whisper#6): busy a small share, idle the rest
    r"\bGPU[- ]?(?:util\w*|usage|load)\b[^.\n]{0,25}?\b(?:near\s+|close\s+to\s+|at\s+)?(?:max\w*|full|100\s*%|busy)"
    r"\s+(?:only\s+)?for\s+(?:only\s+|maybe\s+|like\s+|about\s+|around\s+|roughly\s+|~\s*)*"
    r"(?:[1-3]?\d\s*%|a\s+(?:small\s+)?fraction|a\s+few\s+percent)\s+of\s+the\s+(?:time|run)\b",
    # (forum42) the idle share said as the figure nvidia-smi shows most of the time: "(mostly GPU usage is 0%)"
    # (discuss.pytorch.org t/59604), "GPU usage is mostly 0%", "GPU util is 0% most of the time". NVML's utilization.gpu
    # is the share of the sample period with a kernel running (nvidia-smi --help-query-gpu), so 0 % most of the time is
    # the GPU idle most of the time, the words above said with their figure; not its memory's share (a word between),
    # nor a condition or advice ("If GPU usage is mostly 0%, raise num_workers": _NOT_IF)
    r"\b(?:mostly|most of the time|usually|largely),?\s+(?:the\s+|my\s+)?GPU[- ]?(?:util\w*|usage|load)\s+"
    r"(?:is|was|stays?|remains?|sits?)\s+(?:at\s+)?(?:0|zero)\s*%" + _IDLE_NOT_LOAD,
    _NOT_IF + r"\bGPU[- ]?(?:util\w*|usage|load)\s+(?:is|was|stays?|remains?|sits?)\s+(?:mostly|largely|usually)\s+"
    r"(?:at\s+)?(?:0|zero)\s*%" + _IDLE_NOT_LOAD,
    _NOT_IF + r"\bGPU[- ]?(?:util\w*|usage|load)\s+(?:is|was|stays?|remains?|sits?)\s+(?:at\s+)?(?:0|zero)\s*%\s+"
    r"(?:for\s+)?most\s+of\s+the\s+time\b" + _IDLE_NOT_LOAD,
]})


# (hostbound36) A slowdown tied to constrained decoding: a grammar (llama.cpp's GBNF), a JSON schema or JSON mode,
# guided or structured output (vLLM, SGLang, TGI; Outlines, XGrammar). The engines build the token mask for each step
# on the CPU (llama.cpp grammars/README.md: the grammar constrains sampling; XGrammar, arXiv 2411.15100, overlaps the
# CPU's mask with the GPU because it costs that much), so the GPU waits for it: "the performance is affected ... the
# RTX3080 generates at the same speed as the RTX3060" (LostRuins/koboldcpp#810), "Guided_json ~70 generation tokens per
# second, non-guided ~800" (vllm-project/vllm#3567), "JSON-schema constrained decoding costs ~60x on decode", the
# mask simulated over the whole vocabulary each step (ddalcu/mlx-serve#380), "the grammar FSM is host-side"
# (kekzl/imp#651). Not the English grammar of a text ("fix the grammar", "grammar mistakes"), nor output that breaks
# the schema without a word of speed.
# (review36) nor a text's grammar fixed or judged ("I fixed the grammar of my prompt", "poor grammar"): the words
# right before it, or "of"/"in" a text after it.
_CONSTRAINED = (r"(?:(?<!English )(?<!english )(?<!fixed the )(?<!fix the )(?<!fixed my )(?<!corrected the )"
                r"(?<!bad )(?<!poor )(?<!proper )(?<!spelling and )"
                r"\bgrammars?\b(?!\s+(?:check\w*|correct\w*|errors?|mistakes?|fix\w*|and\s+spelling|"
                r"of\s+(?:the|my|its|your|this|a)\b|in\s+(?:the|my|your|this)\s+(?:prompts?|text|sentences?|writing)\b))|"
                r"\bGBNF\b|\bguided[_ -]?(?:decoding|generation|json|regex|choice|grammar)\b|"
                r"\bstructured[_ -](?:outputs?|generation|decoding)\b|"
                r"\bconstrained[_ -](?:decoding|generation|sampling)\b|"
                r"\bJSON[_ -](?:schema|mode|format)\b|\bresponse_format\b|\bformat[\"':= ]{1,4}json\b|\bxgrammar\b|"
                r"\b(?:format|mode)\s+(?:to|as|of)\s+JSON\b)")
_CONSTRAINED_SLOWED = (r"(?:\bslow\w*|\bslows? (?:it |things |generation )?down\b|\bdecreas\w*|\bdrops?\b|\bdropped\b|"
                       r"\bcollaps\w*|"
           r"\bdegrad\w*|\boverhead\b|\bbottleneck\w*|\b(?:much |far |way )?longer\b|\btenfold\b|"
           r"\b(?:performance|speed|throughput|latency)\s+(?:is|was|gets?|got)\s+(?:\w+\s+)?(?:affected|hit|impacted|"
           r"reduced|worse|lower|higher))")
# (review36) A slowdown said of the run with and without the constraint alike is not tied to it: "slow with or without
# guided decoding", "even without the grammar it is slow", "regardless of JSON mode".
_NOT_TIED = r"(?<!without )(?<!without the )(?<!without a )(?<!regardless of )(?<!with or )(?<!with and )"
_extend({"constrained_slow": [
    _NOT_TIED + _CONSTRAINED + r"[^.\n?]{0,80}?" + _CONSTRAINED_SLOWED,
    _CONSTRAINED_SLOWED + r"[^.\n?]{0,60}?\b(?:when|with|using|if|once|after|for)\b(?!\s+(?:or|and)\s+without\b)"
    r"\s+(?:\w+\s+){0,3}?" + _NOT_TIED + _CONSTRAINED,
]}, new_kinds=True)
_NEGATED_INSIDE_F += ("constrained_slow",)  # "guided decoding is not slower", "the grammar does not slow it down"

# (hostbound37) A slowdown tied to a sampling option that makes the sampler work over the whole vocabulary, outside the
# forward pass: repetition, presence or frequency penalties, top-k switched off (0 or -1: every token sorted), DRY or
# no-repeat n-grams, log-probabilities returned. llama.cpp's sampler chain runs on the CPU after each step ("--presence-
# penalty or --repeat-penalty ... a drop about 18-20%", ggml-org/llama.cpp#24871; "Massive generation slowdown when
# disabling top-k sampling (--top-k 0)", #15223, "top_k <= 0 samples the whole vocab", #13171); transformers' logits
# processors loop in Python (repetition_penalty, huggingface/transformers#5345; NoRepeatNGramLogitsProcessor, #26130);
# vLLM builds the returned logprobs on the host (vllm-project/vllm#4699). In one sentence, as constrained_slow.
_SAMPLER_OPTION = (r"(?:\b(?:repeat|repetition|presence|frequency)[-_ ]penalt(?:y|ies)|\bsampling\s+penalt(?:y|ies)|"
                   r"\bno[-_ ]repeat[-_ ]ngram\w*|\btop[-_ ]?k\s*(?:=|:|of|to|at)?\s*(?:0|-1)(?![\d.])|"
                   r"\b(?:disabl\w+|turn\w*\s+off|without)\s+top[-_ ]?k\b|\btop[-_ ]?k\s+(?:disabled|off)\b|"
                   r"\b(?:prompt_)?logprobs\b|\bDRY\s+(?:sampler|sampling|penalty)\b)")
_extend({"sampler_option_slow": [
    _NOT_TIED + _SAMPLER_OPTION + r"[^.\n?]{0,80}?" + _CONSTRAINED_SLOWED,
    _CONSTRAINED_SLOWED + r"[^.\n?]{0,60}?\b(?:when|with|using|if|once|after|for)\b(?!\s+(?:or|and)\s+without\b)"
    r"\s+(?:\w+\s+){0,3}?" + _NOT_TIED + _SAMPLER_OPTION,
]}, new_kinds=True)
_NEGATED_INSIDE_F += ("sampler_option_slow",)  # "the repetition penalty does not slow it down"
# (review37) A slowdown tied to a decoding option (constrained_slow, sampler_option_slow) is not that option's where the
# words set it against another layout ("TP=2 is slower than TP=1 with top_k=-1": the option is common to both runs) or
# say that taking the option away changed nothing ("Removing the repetition penalty made no difference, it is still
# slow"): the slowdown is someone else's to explain. So for a host change said beside a slowdown (cpu_ab: "We start the
# container with --cpus 32 and TP=2 is much slower than TP=1", the limit common to both layouts).
_TIED_SLOWDOWN_KINDS = frozenset({"constrained_slow", "sampler_option_slow", "cpu_ab"})
_OTHER_SLOWDOWN = re.compile(
    r"\b(?:slow\w*|faster)\s+than\s+(?:with\s+|on\s+|using\s+)?(?:TP|PP|tensor[-_ ]parallel\w*|"
    r"pipeline[-_ ]parallel\w*|DP|data[-_ ]parallel\w*|\d+\s*(?:x\s*)?(?:GPUs?|cards?)\b|"
    r"(?:one|a\s+single|two|four|eight)\s+(?:GPU|card)s?\b)|"
    r"\b(?:made|makes|make)\s+no\s+(?:real\s+|noticeable\s+)?difference\b|"
    r"\b(?:did(?:n't| not)|does(?:n't| not)|won't|will not)\s+(?:help|change\s+(?:it|anything|the\s+speed)|"
    r"matter)\b", re.I)


def _slowdown_elsewhere(sentence: str, m: re.Match) -> bool:
    """Do the words the match reads as its slowdown belong elsewhere (_OTHER_SLOWDOWN starting inside the match, read
    on past its end: "... much slower| than TP=1")? A layout comparison after the match ("the CPU is at 100 %; TP=2 is
    slower than TP=1") leaves the match standing."""
    o = _OTHER_SLOWDOWN.search(sentence, m.start(), min(len(sentence), m.end() + 40))
    return bool(o and o.start() < m.end())


# (issue 11 s) A container started for several GPUs with docker's default /dev/shm: a `docker run` (nvidia-docker,
# podman) with GPUs and a tensor-parallel size of 2 or more (or two devices named), and neither --ipc=host, --shm-size
# nor a /dev/shm mount anywhere in the ticket. Docker gives a container 64 MB of /dev/shm; vLLM's docs ("use the
# --ipc=host flag or --shm-size flag ... particularly for tensor parallel inference"), SGLang's (--shm-size) and NCCL's
# troubleshooting guide (Docker: shared memory) ask for more. Data {command}.
_CONTAINER_RUN = re.compile(r"\b(?:nvidia-docker|docker|podman)\s+run\b", re.I)
_CONTAINER_GPUS = re.compile(r"--gpus\b|--runtime[= ]nvidia\b|\bNVIDIA_VISIBLE_DEVICES=", re.I)
_CONTAINER_TP = re.compile(r"--(?:tensor[-_]parallel[-_]size|tp[-_]size|tp|num[-_]shard)[= ](?:[2-9]|\d\d)\b|"
                           r"\s-tp[= ](?:[2-9]|\d\d)\b|--gpus[= ]\"?'?(?:\"?device=)?\d+,\d+", re.I)
_SHM_GIVEN = re.compile(r"--ipc[= ]host\b|--shm-size\b|\bshm_size\b|\bipc:\s*host\b|/dev/shm\b|--ipc[= ]shareable",
                        re.I)


# (review st 7) A failure the default /dev/shm explains is one said of shared memory or of setting the workers up
# (NCCL's shm transport, "Bus error", ncclSystemError, "fails while the workers initialise"); another failure named
# (out of memory, a missing module, an illegal access) has its own cause.
_SETUP_FAILURE = re.compile(r"(?<!PCIe )\b(?:shm|shared memory|Bus error|NCCL|nccl\w*Error|unhandled system error|"
                            r"initiali[sz]\w*|init|start(?:ing|up)?|spawn\w*|set(?:ting)? up)\b|/dev/shm", re.I)
_OOM = r"out[- ]of[- ]memory|OutOfMemoryError|OOM"  # CUDA's "out of memory", hyphenated in prose (sglang#227)
_OTHER_FAILURE = re.compile(rf"\b(?:{_OOM}|No module named|ModuleNotFoundError|ImportError|illegal memory access)\b",
                            re.I)


# (s28, ut28d) ... and said in the languages these threads use: 显存溢出 / 显存不足 / 爆显存 ("GPU memory overflow / not
# enough / blown", InternLM/lmdeploy#2145, modelscope/ms-swift#1376), メモリ不足 / 메모리 부족 ("out of memory"); "OOM"
# glued to a CJK word ("报错OOM", InternLM/lmdeploy#1059), where no word boundary stands between them.
# (review35) and the memory "exceeded" or "blown": "现在显存会超出" (zai-org/GLM-4#321), "显存爆了"; not
# "显存会不会超出", a question (no 不 may stand between).
# (left28b) ... and "OOMs", the noun's plural or the verb: "leads to OOMs" (pollockjj/ComfyUI-MultiGPU#13), "recovery
# from CUDA OOMs" (pytorch/pytorch#18853), "it OOMs at the latest GPU" (ikawrakow/ik_llama.cpp#1821).
# (cn38) and memory said to grow until it overflows: "发现第一张卡的显存增加直到溢出" (QwenLM/Qwen#870),
# "显存一直涨到爆".
_OOM_WORLD = re.compile(r"(?<![A-Za-z])(?:OOMs?|OutOfMemoryError)(?![A-Za-z])|"
                        r"显存\s*(?:会|就|又|直接)?\s*(?:溢出|不足|不够|不夠|超出|超了|爆了|爆掉)|爆显存|"
                        r"显存\s*(?:占用)?\s*(?:一直|不断)?\s*(?:增加|增长|上涨|涨)\s*(?:直到|到|至)\s*(?:溢出|爆|满)|"
                        r"(?:GPU|VRAM|显存)?\s*メモリ(?:ー)?\s*不足|(?:GPU\s*)?메모리\s*(?:가\s*)?부족")


# (review41) Out of memory as what a setting is chosen to keep away, not what happened: "Headroom reduced from 1.1 to 1
# to avoid OOM of Qwen3.5-35B on 4 B60 GPUs" (sgl-project/sgl-kernel-xpu#464), "to prevent OOMs".
_AVOIDED = re.compile(r"\b(?:avoid|avoiding|prevent|preventing|so as not to)\s+(?:(?:any|an?|the|further|more|GPU|CUDA)"
                      r"\s+){0,2}$", re.I)


def _avoided(sentence: str, m: re.Match) -> bool:
    return bool(_AVOIDED.search(sentence[max(0, m.start() - 40):m.start()]))


def out_of_memory(facts: Facts) -> bool:
    """Does the reporter say the job ran out of memory, not ruling it out nor naming it as what a setting avoids?"""
    return next(_out_of_memory_said(facts), None) is not None


def _out_of_memory_said(facts: Facts):
    """(source, sentence, match) of each out-of-memory the reporter's words name, neither ruled out nor named as what
    a setting avoids: out_of_memory's reading, which out_of_memory_seen narrows further."""
    for source, text in texts(facts):
        for sentence in sentences(text):
            for m in [*re.finditer(rf"\b(?:{_OOM})\b", sentence, re.I), *_OOM_WORLD.finditer(sentence)]:
                if not negated_words(sentence, m) and not _avoided(sentence, m):
                    yield source, sentence, m


# (mend42, issue 11) An error whose message names its own cause, none a path between GPUs can have: an HTTP client
# error as the server's access log prints it (RFC 9110 15.5: a 4xx status is the request's fault: "POST
# /v1/chat/completions HTTP/1.1" 404 Not Found, a route the server does not have), a module that does not import, a
# tokenizer or model configuration the loader cannot read, a model file or repository not found, and out of memory.
# Beside such a message a configuration fact of the machine (WSL 2, a VM) is context, not the failure's cause.
_ELSEWHERE = re.compile(
    r"\bHTTP/\d(?:\.\d)?\"?\s+4\d\d\b|\b4(?:00|01|03|04|05|22)\s+(?:Bad Request|Unauthorized|Forbidden|Not Found|"
    r"Method Not Allowed|Unprocessable Entity)\b|"
    r"\bNo module named\b|\bModuleNotFoundError\b|\bImportError\b|"
    r"\bTokenizer class\s+\S+\s+does not exist\b|\b(?:can(?:not|'t)|unable to|failed to) load (?:the )?tokenizer\b|"
    r"\bdoes not recognize this architecture\b|\bKeyError:\s*['\"]model_type['\"]|"
    r"\bdoes not appear to have a file named\b|\bis not a (?:local folder and is not a )?valid model identifier\b|"
    rf"\b(?:{_OOM})s?\b", re.I)
# ... and what a path between GPUs that fails does say: NCCL's errors and WARN lines, peer access refused, CUDA IPC,
# a collective that waits (a hang, a watchdog or NCCL timeout). With any of these named, the error is not the only one.
_BETWEEN_GPUS_FAILED = re.compile(
    r"\bNCCL (?:error|WARN|failure)\b|\bnccl\w*Error\b|\bunhandled (?:cuda|system) error\b|\bpeer access\b|"
    r"\bP2P\b[^\n]{0,40}?\b(?:fail\w*|error|not supported|disabled)\b|\bcudaIpc\w*|\bcudaErrorPeer\w*|"
    r"\bwatchdog\b|\bhangs?\b|\bhung\b|\bstuck\b|\bdeadlock\w*|\bfreez\w*|\btimed? ?out\b|"
    # (review41) out of memory said of NCCL itself, its buffers or host allocations: "NCCL out of memory error after
    # updating to PyTorch 2.7", "saw OOM as pytorch upgrades from NCCL 2.21 to 2.26" (pytorch/pytorch#152302)
    rf"\bNCCL\b[^\n]{{0,60}}?\b(?:{_OOM})\b|\b(?:{_OOM})s?\b[^\n]{{0,60}}?\bNCCL\b", re.I)


def error_elsewhere(facts: Facts) -> Claim | None:
    """The ticket's error names its own cause outside the path between GPUs (a message of the error catalog, or
    _ELSEWHERE: an HTTP client error, an import, a tokenizer or model configuration, a model file, out of memory), not
    ruled out, and nothing in it says that path failed (_BETWEEN_GPUS_FAILED): the message quoted. None otherwise."""
    said = texts(facts) + pasted_blocks(facts)
    if any(_BETWEEN_GPUS_FAILED.search(text) for _, text in said):
        return None
    known = known_errors(facts)  # a message of the catalog names its failure itself (engine_errors.toml's header)
    if known:
        return Claim("error_elsewhere", known[0].source, known[0].quote)
    for source, text in said:
        for sentence in sentences(text):
            for m in _ELSEWHERE.finditer(sentence):
                if not negated_words(sentence, m) and not _avoided(sentence, m):
                    return Claim("error_elsewhere", source, _quote(sentence, m, 80))
    return None


def container_default_shm(facts: Facts) -> Claim | None:
    """A multi-GPU container launch line without --ipc=host or --shm-size: data {command, setup} (setup: a failure
    in the prose is said of shared memory or of setting the workers up). None when another failure is named."""
    said = texts(facts) + pasted_blocks(facts)
    if any(_SHM_GIVEN.search(text) for _, text in said):
        return None  # shared memory named anywhere: set, tried or asked about
    if any(_OTHER_FAILURE.search(text) for _, text in said):
        return None
    for source, text in said:
        for m in _CONTAINER_RUN.finditer(text):
            command = text[m.start():m.start() + 2000].split("\n\n")[0]
            if _CONTAINER_GPUS.search(command) and _CONTAINER_TP.search(command):
                setup = any(_SETUP_FAILURE.search(prose) for _, prose in texts(facts))
                return Claim("container_default_shm", source, _quote(text, m, 100),
                             {"command": command[:300], "setup": setup})
    return None

# (issue 11 s) The limit as nvidia-smi prints it: its default table's Pwr:Usage/Cap cell ("148W / 150W") and
# nvidia-smi -q's "Current Power Limit : 250.00 W" / "Enforced Power Limit" said in prose without a verb. The cap
# is the figure; _power_limit sets it against the board's rated power (catalog tdp_w or a default said beside it).
_extend({"power_limit": [
    r"(?<![\w.])\d{1,4}(?:\.\d+)?\s*W\s*/\s*(\d{2,4})\s*W\b",
    r"\b(?:current|enforced|configured|requested)\s+power[- ]?limit\s*[:=]?\s*(\d{2,4}(?:\.\d+)?)\s*(?:W|watts?)\b",
]})
OUTPUT_FAMILIES = OUTPUT_FAMILIES + ("power_limit",)


# (issue 11 s) The GPUs' CPU affinity as `nvidia-smi topo -m` prints it, quoted in prose ("topo -m gives CPU Affinity
# 32-63 for GPU4-7"), beside a binding of the process to CPUs that share none of them ("the launcher runs those
# ranks under taskset -c 0-31"): every launch and host copy of those ranks crosses the socket link (numa_words).
_AFFINITY_SAID = re.compile(r"\bCPU[ _-]?Affinity\b\s*(?:of|for|is|was|=|:)?\s*(?:(?:GPUs?\s*[\d,-]+|the GPUs?)\s*"
                            r"(?:is|are|=|:)?\s*)?" + _CPU_LIST, re.I)


def affinity_vs_binding(text: str) -> Claim | None:
    """A CPU binding in `text` that shares no CPU with a GPU CPU affinity said in it: a numa_words claim quoting
    the binding, data {affinity, bound}."""
    local = [nccl_log.cpu_list(m.group(1)) for m in _AFFINITY_SAID.finditer(text)]
    local = [cpus for cpus in local if cpus]
    if not local:
        return None
    for sentence in sentences(text):
        for m in _BIND_CPUS.finditer(sentence):
            bound = nccl_log.cpu_list(m.group(1))
            if not bound or _NO_BINDING.search(sentence[:m.start()]) or hypothetical(sentence, m.start()):
                continue
            far = next((cpus for cpus in local if not set(cpus) & set(bound)), None)
            if far:
                return Claim("numa_words", "", _quote(sentence, m, 80),
                             {"groups": [], "affinity": f"{far[0]}-{far[-1]}", "bound": m.group(1)})
    return None


# (issue 11 s) One node, GPU or rank singled out by an A/B the reporter ran (one_slow): the job back to speed without
# it ("without node gpu-03 it takes 1.3 s", "excluding GPU 5 the step time goes back to normal"), or its own work
# measured longer than the others' ("rank 3's compute takes 30% longer than the other ranks"). (Every pair test that
# includes one GPU being slow points at that GPU's link instead: ticket.one_gpu_every_peer.) A collective
# finishes when its last rank arrives (NCCL docs; PyTorch distributed's straggler guidance).
_ONE_NAMED = r"(?:the\s+)?(?:node|host|GPU|rank|card|server|machine|worker)\s*[#:]?\s*[\w.-]*\d[\w.-]*\b"
# (review st 5) Only words that say the speed came back; a bare figure ("it takes 2.2 s") only through one_slow_ab,
# which compares it with the earlier one; never "worse" or "slower" after it; not a rank slower to load or start.
_LEFT_OUT = (r"\b(?:without|excluding|exclud\w+|remov\w+|dropp\w+|drop|leav\w+ out|left out|skipp\w+|tak\w+ out|"
             r"took out)\s+" + _ONE_NAMED)
_BACK_TO_SPEED = (r"\b(?:faster|normal|back to normal|recover\w*|goes back|went back|back to (?:full )?(?:speed|\d)|"
                  r"improv\w*)\b(?![^.\n]{0,40}?\b(?:worse|slower|no better|as slow)\b)")
_NOT_THE_STEP = r"(?![^.\n]{0,40}?\b(?:load\w*|start\w*|init\w*|boot\w*|download\w*|compil\w*|warm\w*)\b)"
_extend({"one_slow": [
    _LEFT_OUT + _AFFIRMED + r"{0,80}?" + _BACK_TO_SPEED,
    r"\b(?:rank|GPU|node|worker)\s*#?\d+(?:'s)?\s+(?:\w+\s+){0,2}?(?:takes?|is|runs?)\s+(?:about\s+|~)?"
    r"\d+(?:\.\d+)?\s*(?:%|x|×)\s+(?:longer|slower)\s+than\s+(?:the\s+|all\s+)?(?:other|rest)" + _NOT_THE_STEP,
]})
_LEFT_OUT_FIGURE = re.compile(_LEFT_OUT + _AFFIRMED + r"{0,80}?\b(?:takes?|took|is|was|gives?|gave|reach\w*|runs? at)"
                              r"\s+"
                              r"(?:only\s+)?(?:about\s+|~\s*)?(\d+(?:\.\d+)?)\s*(ms|s|sec\w*|min\w*)?", re.I)
_STEP_TIME = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(ms|s|sec\w*|min\w*)\b", re.I)


def _time_unit(unit: str) -> str:
    u = unit.lower()
    return "ms" if u.startswith("ms") else "min" if u.startswith("mi") else "s"


# (issue 11 l) A straggler as a timeline shows it: a collective finishes when its last rank arrives, so the others'
# kernels spin until then (NCCL docs; https://github.com/NVIDIA/nccl/issues/460: "the GPU which has the smallest time
# is the one which arrived the last"; nsys and Horovod timelines show "which workers were early and which were late",
# https://github.com/horovod/horovod/pull/11). One numbered member arriving, entering or reaching the collective last
# or late ("rank 3 always arrives later", "GPU 5 is the last to enter the all-reduce"), the last or slowest one named
# ("the slowest rank is rank 6", "Latest: rank 6"), everyone waiting on a numbered one. Several named ("ranks 0/1/4/7
# arrive late") is no single straggler; a rank late to load or start is not late to the step.
_MEMBER = r"(?<![\w/-])(?:rank|GPU|node|worker|device|host|process)\s*#?\d+\b(?!\s*(?:,|/|and|or|&)\s*(?:\d|rank|GPU))"
_ARRIVES = (r"(?:arriv\w*|enter\w*|reach\w*|gets?\s+(?:to|into)|got\s+(?:to|into)|join\w*|shows?\s+up|showed\s+up|"
            r"hits?|launch\w*|issu\w*)")
_extend({"one_slow": [
    r"(?<!\bif )(?<!\bunless )(?<!\bwhether )" + _MEMBER + _AFFIRMED + r"{0,40}?\b" + _ARRIVES + r"\b" + _AFFIRMED
    + r"{0,40}?\b(?:last|late|later|behind)\b" + _NOT_THE_STEP,
    _MEMBER + r"\s+(?:is|was)\s+(?:always\s+|consistently\s+|usually\s+|often\s+)?the\s+last\s+(?:one\s+)?"
    r"(?:to\s+)?" + _ARRIVES + _NOT_THE_STEP,
    r"\b(?:the\s+)?(?:last|latest|slowest)\s*(?:one\s+|rank\s+|GPU\s+|node\s+|worker\s+)?(?:to\s+" + _ARRIVES
    + r"\s+)?(?:is|was|:)\s*(?:always\s+|consistently\s+|usually\s+)?" + _MEMBER,
    r"\b(?:all|every|the)\s+(?:other\s+|remaining\s+)?(?:ranks|GPUs|nodes|workers|processes)\s+(?:\w+\s+){0,2}?"
    r"wait\w*\s+(?:for|on)\s+" + _MEMBER,
    r"\b(?:everyone|everybody|all the others)\s+(?:\w+\s+){0,2}?wait\w*\s+(?:for|on)\s+" + _MEMBER,
    # the others done, one still at work: "one rank - rank 247 - was still sending"
    r"\b(?:one|a single|only one)\s+(?:rank|GPU|node|worker)\b[^.\n]{0,60}?\b(?:is|was)\s+still\s+(?:sending|receiving|"
    r"running|computing|working|busy|in\s+(?:the\s+)?(?:all[-_ ]?reduce|collective|backward|forward))\b",
]})
# ... and ruled out: "all ranks arrive together", "every GPU enters the all-reduce at the same time", "the ranks reach
# the collective within a few microseconds of each other": no straggler (claims() adds a negated one_slow claim).
_RANKS_TOGETHER = re.compile(
    r"\b(?:all|every|each|the)\s+(?:of\s+the\s+)?(?:\w+\s+)?(?:ranks?|GPUs?|nodes?|workers?|processes)\b[^.\n]{0,40}?\b"
    + _ARRIVES + r"\b[^.\n]{0,40}?\b(?:together|at (?:about |roughly |nearly |almost )?the same time|"
    r"simultaneously|(?:at once)|within\s+(?:a few|\d+(?:\.\d+)?)\s*(?:µs|us|microseconds?|ms)\b)", re.I)


def ranks_together(text: str) -> Claim | None:
    """A negated one_slow claim where the reporter says every rank arrives at once, said as an observation."""
    for sentence in sentences(text):
        m = _RANKS_TOGETHER.search(sentence)
        if m and not _guessed(sentence) and not hypothetical(sentence, m.start()) and not _negated("", sentence, m):
            return Claim("one_slow", "", _quote(sentence, m, 60), {"groups": [], "origin": "together"}, negated=True)
    return None

def one_slow_ab(text: str) -> Claim | None:
    """One member left out and the job's figure better than the one measured with it (a shorter time, a higher rate
    in the same unit), said in the same or the previous sentence: a one_slow claim, data {without, with, unit}."""
    said = sentences(text)
    for i, sentence in enumerate(said):
        m = _LEFT_OUT_FIGURE.search(sentence)
        if not m or hypothetical(sentence, m.start()):
            continue
        earlier = sentence[:m.start()] + " " + (said[i - 1] if i else "")
        value = float(m.group(1))
        if m.group(2):  # a time: shorter is better
            unit = _time_unit(m.group(2))
            others = [float(x.group(1)) for x in _STEP_TIME.finditer(earlier) if _time_unit(x.group(2)) == unit]
            other = max(others, default=0.0)
            better = value * AB_GAIN <= other
        else:  # a rate: higher is better
            rate = _AB_RATE.match(sentence, m.start(1))
            if not rate:
                continue
            unit = _ab_unit(rate.group(2))
            others = [float(x.group(1)) for x in _AB_RATE.finditer(earlier) if _ab_unit(x.group(2)) == unit]
            other = min(others, default=0.0)
            better = other > 0 and value >= AB_GAIN * other
        if better:
            return Claim("one_slow", "", _quote(sentence, m, 80),
                         {"groups": [], "without": value, "with": other, "unit": unit, "origin": "figures"})
    return None


# (issue 11 s) Two GPU models named as used together in one sentence ("we combined an RTX 3090 and an RTX 3060 with
# tensor parallelism", "a 4090 plus a 3060 in one box", "mixed A100 and V100"): not a comparison of machines ("the
# 4090 is faster than the 3060", "replaced the V100 with an A100"). Data {names}.
# (review st 4) "plus" and "tensor parallel" alone say nothing of one job: "an H100 node and an A100 node, each running
# its own copy with tensor parallelism". The words must say the two work as one, next to the names.
_TOGETHER = re.compile(r"\b(?:combin\w+|together|pair(?:s|ed|ing)?|pair of|alongside|along with|"
                       # ("mixed A100 and V100", "a mix of 3090s and 3060s"; not "mixed results")
                       r"mix(?:ed|es|ing)?\s+(?:of\s+)?(?:\w+\s+){0,2}?(?=(?:RTX|GTX|Tesla|Quadro|[a-z]{1,3}\s?\d))|"
                       r"split\w*\s+(?:\w+\s+){0,3}?(?:across|over|between)|across (?:both|the two|them|all)|"
                       r"in (?:one|the same|a single) (?:box|machine|server|node|system|"
                       r"(?:tensor[- ]parallel |TP )?group)|"
                       r"(?:one|the same|a single) (?:tensor[- ]parallel|TP) group)\b", re.I)
_APART = re.compile(r"\b(?:each\s+(?:one\s+)?(?:runs?|serves?|hosts?|handles?|gets?)|separate\w*|own|independent\w*|"
                    r"individual\w*|apart)\b", re.I)
_TOGETHER_NEAR = 60
_CONTRAST = re.compile(r"\b(?:than|vs\.?|versus|compar\w+|instead of|replac\w+|switch\w*|upgrad\w*|swapp?\w*|"
                       r"moved? from|rather than)\b", re.I)


def gpus_together(facts: Facts) -> Claim | None:
    for source, text in texts(facts):
        for sentence in sentences(text):
            found = list(GPU_NAME.finditer(sentence))
            names = list(dict.fromkeys(m.group(1) for m in found))
            if len(names) < 2 or asked(sentence) or _APART.search(sentence):
                continue
            m = found[0]
            second = next(x for x in found if x.group(1) == names[1])
            if not _TOGETHER.search(sentence, max(0, m.start() - _TOGETHER_NEAR),
                                    min(len(sentence), second.end() + _TOGETHER_NEAR)):
                continue
            if _CONTRAST.search(sentence[max(0, m.start() - 30):second.end()]):
                continue  # the two named against each other, or one for the other
            return Claim("gpus_together", source, _quote(sentence, m, 100), {"names": names})
    return None


# (issue 11, batch u16b) What unlike GPUs do to each other's speed in one job, asked before (or instead of) measuring:
# "how will that weaker card affect the speed?", "will the 3060 slow my 3090 down if I pair them?", "would mixing an
# A100 and a V100 in one TP group hurt throughput?". Tensor parallelism gives every GPU an equal shard and all-reduces
# at every layer, so the group waits for its slowest member at each step, and a layer split hands every token through
# the slower card too (vLLM's parallelism guide; llama.cpp's --tensor-split exists to give a weaker card less work):
# the answer is physics, not a fault. Either a lesser card named with what it does to the speed, in a ticket that is
# about several unlike GPUs, or two GPU models named as used together in the question itself. Not a comparison of two
# boards ("is a 3060 slower than a 3090?"), nor a question the reporter rules the speed out of.
_LESSER_CARD = re.compile(r"(?:\b(?:weak|slow|old|small|cheap|low)(?:er|est)|\bless(?:er)?\s+powerful|\blower[- ]end)"
                          r"\s+(?:\w+\s+){0,2}?(?:cards?|GPUs?|boards?|ones?)\b", re.I)
# What a pace verb acts on: the speed, or the group and the other cards ("limit the whole tensor-parallel group",
# "drag the speed down"); not the memory side ("limit the context length", "the cards' VRAM"), which a weaker card
# with less memory limits too, and which is no question of pace.
_PACE_OBJECT = (r"(?:(?:the|my|our|its|their|this|that|whole|other|overall|entire|total|faster|stronger|newer|better|"
                r"bigger)\s+)*(?:speed|performance|throughput|tok\w*/s|pace|inference|generation|decod\w+|prefill|"
                r"(?:tensor[- ]parallel\s+|TP\s+)?group|rest|everything|things|others?|it|them|both|pair|setup|system|"
                r"rig|cards?|GPUs?|ones?)\b(?!['’]?s?\s*(?:memory|VRAM|context|capacity))")
_PACE_EFFECT = re.compile(r"\b(?:affect\w*|impact\w*|slow\w*\s+(?:\w+\s+){0,2}?down|hold\w*\s+(?:\w+\s+){0,2}?back|"
                          r"bottleneck\w*|drag\w*\s+(?:\w+\s+){0,2}?down|limit\w*\s+" + _PACE_OBJECT + r"|hurt\w*|"
                          r"penali[sz]\w*|drop\w*|(?:speed|performance|throughput|tok\w*/s)\b)", re.I)
# A GPU model as the subject of a pace verb that acts on the speed, the group or another card ("Does the P40 drag the
# speed down?", "will the 2080 Ti hold my 3090 back?"): the lesser card named by its model where several are present.
# (a verb with its object: "does the 3090 slow down when it gets hot?" is the card's own clocks)
_NAME_PACE = re.compile(r"['’]?s?\s+(?:(?!(?:and|but|or|if|when|while|than)\b)[\w-]+\s+){0,4}?"
                        r"(?:affect\w*|impact\w*|hurt\w*|penali[sz]\w*|bottleneck\w*|limit\w*|slow\w*|hold\w*|"
                        r"drag\w*)(?:\s+(?:down|back))?\s+(?:(?:the|my|our|its|their|this|that)\s+)*", re.I)
_PACE_NOUN = re.compile(_PACE_OBJECT, re.I)
_UNLIKE_GPUS = re.compile(r"\b(?:different|mixed|unlike|mismatched|heterogeneous|two kinds of)\s+(?:\w+\s+)?"
                          r"(?:GPUs|cards|boards|GPU models)\b", re.I)


def _named_lesser(sentence: str) -> re.Match | None:
    """The GPU model a question names as what sets the pace ("Does the P40 drag the speed down?"), or None."""
    for n in GPU_NAME.finditer(sentence):
        v = _NAME_PACE.match(sentence, n.end())
        if v and (_PACE_NOUN.match(sentence, v.end()) or GPU_NAME.match(sentence, v.end())):
            return n
    return None


def mixed_gpus_asked(facts: Facts) -> Claim | None:
    for source, text in texts(facts):
        first = text.lstrip().split("\n", 1)[0]
        title = first if first.startswith("#") else ""
        for paragraph in re.split(r"\n\s*\n", text):
            context = title + "\n" + paragraph
            several = bool(_TOGETHER.search(context) or _UNLIKE_GPUS.search(context)) or \
                len({m.group(1).lower() for m in GPU_NAME.finditer(context)}) >= 2
            for sentence in sentences(paragraph):
                # (not a comparison of two boards nor GPUs that each run on their own, whichever way it is asked)
                if not asked(sentence) or _CONTRAST.search(sentence) or _APART.search(sentence):
                    continue
                lesser, effect = _LESSER_CARD.search(sentence), _PACE_EFFECT.search(sentence)
                if several and not lesser:
                    lesser = _named_lesser(sentence)
                names = list(dict.fromkeys(m.group(1) for m in GPU_NAME.finditer(sentence)))
                together = len(names) >= 2 and _TOGETHER.search(sentence)
                if not effect or not ((lesser and several) or together):
                    continue
                at = min(effect.start(), lesser.start() if lesser else effect.start())
                if _NEGATION.search(sentence[max(0, at - 30):at]):
                    continue  # "I don't mind the weaker card slowing it down, how do I enable it?"
                return Claim("mixed_gpus_asked", source, _quote(sentence, lesser or effect, 80),
                             {"names": names})
    return None

# (p49h) GPUs of different memory sizes in one job, as the reporters write it: "two gpus of different sizes"
# (sgl-project/sglang#227), "GPUs with different VRAM sizes" (vllm-project/vllm#2317), "GPUs with varying vRAM"
# (vllm-project/vllm#4998), "3080 and 3090 have different VRAM" (vllm-project/vllm#10204's answer). A size, never a
# usage: "different memory usage on the two GPUs" is the symptom of a split, and SGLang's "The memory capacity is
# unbalanced" measures the free memory another process may hold (ticket.known_error's tp_memory_unbalanced).
# (r49c) Only GPUs' memory, and none a usage, a clock or a bandwidth: GPUs, cards or VRAM named as what differs, not a
# model, a host or a CPU ("the two models need different amounts of memory", "our two hosts have different amounts of
# memory", "the nodes have different memory sizes": _gpus_differ).
_NOT_A_SIZE = (r"(?!\s*(?:usage|use|used|utili[sz]\w*|consumption|footprint|allocat\w*|occupancy|loads?|bandwidths?|"
               r"speeds?|clocks?|types?|distributions?|splits?)\b)")
_UNEQUAL_MEMORY = re.compile(
    r"\b(?:GPUs|cards|boards|devices)\s+(?:of|with)\s+(?:different|differing|varying|unequal|mismatched)\s+"
    r"(?:(?:VRAM|memory|GPU memory)\s+)?(?:sizes|capacit(?:y|ies)|(?:amounts\s+of\s+)?(?:VRAM|memory))\b" + _NOT_A_SIZE
    + r"|\b(?:different|differing|varying|unequal|mismatched)\s+(?:amounts\s+of\s+)?"
    r"(?:VRAM|GPU memory|memory)(?:\s+(?:sizes?|capacit(?:y|ies)))?\b" + _NOT_A_SIZE + r"|"
    r"\b(?:VRAM|memory)\s+sizes?\s+(?:differ\w*|(?:is|are)\s+(?:different|unequal))\b",
    re.I)
_GPU_WORD = re.compile(r"\b(?:GPUs?|cards?|VRAM|vRAM)\b", re.I)
_OTHER_MEMORY = re.compile(r"\b(?:models?|hosts?|nodes?|servers?|machines?|CPUs?|sockets?|RAM)\b", re.I)


def _not_now_or_not_ours(sentence: str, m: re.Match) -> bool:
    """Do the words before `m` make it another person's (hearsay) or the past ("used to", "previously")?"""
    before = sentence[:m.start()]
    return hearsay.someone_elses(before) or bool(re.search(rf"\b(?:{_PAST_ADVERB})\b", before, re.I))


def unequal_memory_said(facts: Facts) -> Claim | None:
    """The reporter's words that their GPUs differ in memory size, or None (ruled out: "not GPUs of different
    sizes"; another's or a past machine: "a friend has GPUs of different sizes", "I used to have ...")."""
    for source, text in texts(facts):
        for sentence in sentences(text):
            for m in _UNEQUAL_MEMORY.finditer(sentence):
                if not negated_words(sentence, m) and not _not_now_or_not_ours(sentence, m) \
                        and not offered(sentence, m.start()) and _gpus_differ(sentence, m):
                    return Claim("unequal_memory", source, _quote(sentence, m, 80))
    return None


def _gpus_differ(sentence: str, m: re.Match) -> bool:
    """Is what differs in memory (an _UNEQUAL_MEMORY match) the GPUs: named in the match ("GPUs of different sizes"),
    or the nearest subject before it a GPU word rather than a model, host or CPU (_OTHER_MEMORY)?"""
    if _GPU_WORD.match(m.group(0)) or re.match(r"(?:boards|devices)\b", m.group(0), re.I):
        return True
    before = sentence[max(0, m.start() - 60):m.start()]
    gpu = [g.end() for g in _GPU_WORD.finditer(before)]
    other = [o.end() for o in _OTHER_MEMORY.finditer(before)]
    return bool(gpu) and (not other or gpu[-1] > other[-1])


def out_of_memory_seen(facts: Facts) -> Claim | None:
    """The reporter's out-of-memory as one that happened and still does: out_of_memory's reading, less one asked
    about or offered ("would the smaller GPU run out of memory?"), feared before running ("I am worried about out of
    memory"), another's, one of the past ("it used to run out of memory", "Last week I got CUDA out of memory") or one
    gone since ("the out of memory error is gone after lowering max-model-len") (r49c)."""
    for source, sentence, m in _out_of_memory_said(facts):
        before = sentence[:m.start()]
        if not offered(sentence, m.start()) and not _not_now_or_not_ours(sentence, m) \
                and not _past_state(before, past=True) and not _OOM_NOT_NOW.search(before[-80:]) \
                and not _OOM_GONE.match(sentence, m.end()):
            return Claim("out_of_memory", source, _quote(sentence, m, 80))
    return None


# (r49c) An out-of-memory not (or no longer) happening: feared or expected before a run, of an earlier day, and one the
# sentence then says is gone or fixed.
# (r49d) Not an expectation the failure broke ("I expected it to fit, but it fails with out of memory"), a step it
# fails before ("Before the server starts, it fails ..."), nor what follows in another clause ("...; lowering it never
# fixed it", "... and the server no longer starts").
_OOM_NOT_NOW = re.compile(r"\b(?:worr(?:y|ied|ying)|afraid|fear(?:s|ed|ing)?|concerned|"
                          r"not\s+(?:run|tried|started)\s+it\s+yet|last\s+(?:week|month|year)|yesterday)\b", re.I)
_OOM_GONE = re.compile(r"[^.;,\n]{0,60}?\b(?:is|was|are|were|got)\s+(?:now\s+)?(?:gone|fixed|solved|resolved)\b|"
                       r"[^.;,\n]{0,60}?\b(?:went\s+away|disappeared)\b", re.I)


# (issue 11 s) CUDA graphs left out at build or launch time ("we build without --use_cuda_graph", "engine built
# without CUDA graphs"): TensorRT-LLM's --use_cuda_graph and the engines' graph options named as absent. And a profile
# dominated by kernel launches as Nsight Systems' CUDA API summary shows it ("mostly cudaLaunchKernel", "80% of the
# CUDA API time in cudaLaunchKernel"): the host's launch rate sets the pace (the CUDA graphs blog, nsys docs).
_extend({
    "eager_flag": [
        r"\b(?:buil[dt]\w*|compil\w+|exported?|configured?|launch\w*|start\w*)\s+(?:\w+\s+){0,2}?without\s+(?:the\s+)?"
        r"(?:--use[-_]cuda[-_]graphs?|use_cuda_graphs?|CUDA[- ]?graphs?|cudagraphs?)(?![\w-])",
    ],
    "launch_overhead": [
        r"\b(?:mostly|dominated by|most(?: of the)? (?:CPU |API )?time (?:is |in |on )?|spent (?:mostly )?in)\s*"
        r"cudaLaunchKernel\b",
        r"\bcudaLaunchKernel\b\s+(?:\w+\s+){0,2}?(?:dominat\w+|(?:takes?|is|accounts? for|uses?)\s+(?:up\s+)?"
        r"(?:most of the|(?:about\s+|~)?[5-9]\d(?:\.\d+)?\s*%))",
        r"\b[5-9]\d(?:\.\d+)?\s*%\s+(?:of\s+(?:the\s+)?(?:CUDA\s+)?(?:API|CPU)\s+time\s+)?(?:is\s+|in\s+|spent in\s+)?"
        r"cudaLaunchKernel\b",
    ],
})

# (issue 11 s) Chinese wordings of the GDR module, NCCL's own upgrade and a narrow link, as reporters write them:
# "没有加载 nvidia-peermem", "日志里没有 GDRDMA", "升级 NCCL 到 2.21 之后", "其中一张卡是 PCIe Gen1 x4". A link's width
# does not shrink at idle (only its speed does, to save power), so a width of x1 or x4 counts as said; Gen1 only
# with a narrow width beside it.
_extend({
    "module_missing": [
        r"(?:没有|没|未)\s*(?:加载|安装|装|启用)\s*(nvidia[-_]peermem|nv_peer_mem|gdrdrv)\b|"
        r"\b(nvidia[-_]peermem|nv_peer_mem|gdrdrv)\s*(?:模块)?\s*(?:没有|没|未)\s*(?:加载|安装|启用)",
    ],
    "gdr_off": [r"(?:没有|没|未)\s*(?:用上|使用|开启|启用|走)?\s*(?:GDRDMA|GDR\b|GPU\s*Direct\s*RDMA)"],
    "nccl_upgrade": [r"(?:升级|更新|换)(?:了)?\s*(?:到\s*)?NCCL|\bNCCL\s*(?:版本)?\s*(?:升级|更新)(?:了|到|之后|后)"],
    "pcie_degraded": [
        r"(?:是|为|显示为?|跑在|变成了?)\s*PCIe\s*(?:Gen\s?\d\s*|\d\.0\s*)?x[14]\b(?!\d)|"
        r"(?:是|为|显示为?|跑在|变成了?)\s*PCIe\s*Gen\s?[12]\s*x(?:[148])\b(?!\d)",
        r"\b(?:is|shows|reports|sits at|links? at)\s+(?:PCIe\s*)?(?:Gen\s?\d\s*|\d\.0\s+)?x[14]\b(?!\d)",
    ],
})
# Someone else's suggestion, or a setting not tried yet: "someone suggested NCCL_P2P_DISABLE=1 but I haven't tried
# it", "the docs recommend NCCL_IB_DISABLE=0": named, not in use.
# (review st 6) Others' advice is what guessed() reads (claims._GUESS names the adviser: "the vendor recommended X=1
# and we run with it" runs); here only what was told and not yet tried.
_NOT_TRIED_YET = re.compile(r"\b(?:haven't|have not|hasn't|has not|didn't|did not|not yet|yet to)\s+(?:\w+\s+)?"
                            r"tr(?:y|ied)\b|\b(?:was|were) told to\b|还没(?:有)?试|没(?:有)?试过", re.I)

# (left26) A slowdown since an update that names no release: "Inference time considerably slower since update"
# (franciszzj/Leffa#34), "Decreased inference speed after latest changes" (Comfy-Org/ComfyUI#4197), "After the update
# of the new version, the running speed has significantly decreased" (inferencerlabs/inferencer-feedback#271),
# "更新ChatGLM3之后，感觉推理速度变慢了" (zai-org/ChatGLM3#17). A software change is the lead, but with no release named
# no A/B can be set up: what settles it is the two releases (rules.engine.UPDATE_ASK). A text that names a release is
# the release readers' (engine_versions_compared); one that got faster is no slowdown.
_AN_UPDATE = (r"(?:after|since)\s+(?:the\s+|an?\s+|my\s+|our\s+|this\s+)?(?:latest\s+|recent\s+|last\s+|new\s+|"
           r"several\s+)?(?:updates?|upgrades?|updating|upgrading|changes)\b")
_SLOWED = r"(?:slow\w*|decreas\w*|reduced|dropp?\w*|degrad\w*|regress\w*)"
# (review27b) A paragraph's soft line break is no sentence end: "After updating the code yesterday, \nthe inference
# speed has dropped from ..." (fishaudio/fish-speech#926); a blank line is.
_SAME_PARAGRAPH = r"(?:[^.\n]|\n(?![ \t]*\n)){0,60}?"
# (audit30a) ... or the build before the change named only as "the previous version" or "previous builds", with the
# figure it gave or the slowdown beside it: "In the previous version, the 'gen throughput (token/s): 75.15' here was
# approximately 160" (sgl-project/sglang#7212), "with the previous builds, i was getting great timming on render but
# now is just dead slow" (lshqqytiger/stable-diffusion-webui-amdgpu-forge#71); and a slowdown called a regression by
# its size with no release named, as CI reports write it: "Llama4 on DGXH100 has regressed by 14.23%"
# (sgl-project/sglang#14665), "Regression in Gemma3 MM throughput of ~5%" (vllm-project/vllm#43078), "-40% decode
# speed regression" (TheTom/llama-cpp-turboquant#379). Not "regression tests", nor a previous version of a model
# or a document ("the previous version of the model", "the previous version of this issue"), nor a figure that is no
# speed ("was 2 GB", "the default max_model_len was 4096"). A previous build said to be slower is read too; it only
# asks for the two releases.
_EARLIER_BUILD = (r"(?:in|with|on|using|under)\s+(?:the\s+)?(?:previous|earlier|older|prior|last)\s+"
                  r"(?:versions?|releases?|builds?|images?|commits?)\b(?!\s+of\s+(?:the\s+)?(?:model|weights|"
                  r"checkpoint|paper|doc\w*|issue|post|readme|report)\b)")
# (a figure's decimal point is no sentence end: "75.15 here was approximately 160")
_BUILD_SPAN = r"(?:[^.\n]|\.(?=\d)|\n(?![ \t]*\n)){0,80}?"
# (a figure of the build before is a speed only where the words say so: "the default max_model_len was 4096" is none)
_BUILD_SPEED = (r"(?:\b(?:throughput|speed|latency|TTFT|TPOT|ITL|TPS|performance)\b|"
               r"\btok(?:en)?s?/s\b|\bt/s\b|\bit/s\b)")
_BUILD_RATE = (r"(?:about|around|approximately|approx\.?|roughly|nearly|almost|over|~)?\s*~?\d[\d,.]*(?![\d,.])"
               r"(?!\s*(?:[KMGT]i?B|%))")
_ZH_UPDATE_SLOWER = r"(?:变慢|慢了|下降|降低)"


def _zh_update_denied(sentence: str, m: re.Match) -> bool:
    """(fr42) Is the Chinese update_slower wording `m` matched denied on its slowness word ("升级后推理没有变慢")?"""
    word = re.compile(_ZH_UPDATE_SLOWER + "$").search(sentence, m.start(), m.end())
    return bool(word and _zh_denied(sentence, word))


_extend({"update_slower": [
    r"\b" + _SLOWED + r"\b" + _SAME_PARAGRAPH + r"\b" + _AN_UPDATE,
    r"\b" + _AN_UPDATE + _SAME_PARAGRAPH + r"\b" + _SLOWED + r"\b",
    # (words42: not denied, "升级驱动后推理没有变慢": _first's _zh_update_denied, fr42: on the slowness word itself, so
    # a negation elsewhere in the gap keeps it, "升级后不同模型的吞吐都下降了", "升级之后不知道为什么变慢了")
    r"(?:更新|升级)[^\n。]{0,20}?(?:之后|以后|后)[^\n。]{0,20}?" + _ZH_UPDATE_SLOWER,
    r"\b" + _EARLIER_BUILD + _BUILD_SPAN + _BUILD_SPEED + _BUILD_SPAN + r"\b(?:was|were|used to be|reached|gave|got)\s+"
    + _BUILD_RATE,
    r"\b" + _EARLIER_BUILD + _BUILD_SPAN + r"\b(?:was|were|used to be|reached|gave|got)\s+" + _BUILD_RATE
    + r"\s*(?:tok(?:en)?s?/s|t/s|tps|it/s|req(?:uests)?/s|ms|s)\b",
    r"\b" + _EARLIER_BUILD + _BUILD_SPAN + r"\bnow\b" + _BUILD_SPAN + r"\b(?:slow\w*|worse|lower)\b",
    r"\bregress(?:ed|es|ion)\b[^.\n]{0,40}?\b(?:of|by)\s+~?-?\d+(?:\.\d+)?\s*%",
    r"(?<![\d.])\d+(?:\.\d+)?\s*%\s+(?:(?:performance|perf|throughput|speed|latency|decode|generation|prefill|"
    r"inference)\s+){0,2}regression\b(?!\s+(?:tests?|testing|suites?|checks?)\b)",
]}, new_kinds=True)


def update_without_release(facts: Facts) -> Claim | None:
    """(left26) The reporter's word that it got slower since an update (update_slower), observed, in a ticket whose
    texts name no release number (_SEMVER: "0.6.3", "v0.5.4") nor a change another reader takes (_RELEASE_KINDS), so
    no release A/B can be read; else None."""
    c = next((c for c in find(facts, "update_slower") if not c.guess), None)
    if c and not any(_SEMVER.search(t) or _UPDATE_FROM_TO.search(t) for _, t in texts(facts)) \
            and not any(find(facts, kind) for kind in _RELEASE_KINDS):
        return c
    return None


# (review27b) An update "from A to B" names both releases even when they are two-part: "Significant performance drop
# after update from 0.16 to 0.18" (rerun-io/rerun#7222), which _SEMVER leaves to a "v" or three parts. A figure with
# its unit is a measurement, not a release ("went from 1.5 to 3.2 s").
_UPDATE_FROM_TO = re.compile(r"\b(?:updat\w*|upgrad\w*|downgrad\w*|going|went|moving|moved|switch\w*|bump\w*)\s+"
                             r"(?:\w+\s+){0,2}?from\s+v?\d{1,3}\.\d{1,3}(?:\.\d+)*\s+(?:to|->|→)\s+v?\d{1,3}\.\d{1,3}"
                             r"(?:\.\d+)*(?![\d.]*\s*(?:x\b|%|s\b|ms\b|sec|GB|tok|it/s|t/s))", re.I)

# The readers of a change whose releases the ticket names: a driver's ("after upgrading NVIDIA driver to 536",
# vllm-project/vllm#2057), the engine's, NCCL's.
_RELEASE_KINDS = ("driver_change", "engine_versions_compared", "nccl_versions_compared")


# (issue 11 s) One sequence at a time as launch flags and shorthand give it: "bs=1" / "BS1" (not "BS1 and BS8"),
# vLLM's --max-num-seqs 1 / max_num_seqs=1, TensorRT-LLM's --max_batch_size 1, and "I send one prompt and wait".
_extend({"few_requests": [
    r"\bbs\s*[=:]?\s*1\b(?!\.\d)" + _NOT_A_SWEEP,
    r"(?:--?|\b)max[-_](?:num[-_]seqs|batch[-_]size|running[-_]requests)\s*[= ]\s*1\b(?![.\d])",
    r"\b(?:send|sending|sent|run|running|ran|submit\w*|fire|firing)\s+(?:only\s+)?(?:one|a single)\s+"
    r"(?:prompt|request|query)\s+(?:and\s+wait|at a time|then wait|and then)\b",
    # (review 11e 6) the condition a figure was measured under: "for one request", "with a single sequence" (not a
    # rate, "1 request per second", nor one of several, "one request of the batch")
    r"\b(?:for|with|at|on|using)\s+(?:just\s+|only\s+)?(?:one|a single|1)\s+(?:request|prompt|sequence|query)\b"
    r"(?!\s*(?:/|per\b|each\b|every\b|of\b|in\s+(?:the|a)\s+batch))",
    # one user in Chinese (单用户), as "single user" above and 单并发 / 单个请求 (ticket.memory_bound_decode read it)
    r"单用户",
]})

# (issue 11 s) The TP size written before the words: "8 GPUs with tensor parallelism", "4 cards using TP".
_extend({"tp_size_named": [r"(?<![\d.])(\d{1,2})\s*(?:GPUs?|cards?|卡)\s+(?:with|using|for|via|in|under)\s+"
                           r"(?:tensor[-_ ]?parallel\w*|TP)\b"]})

# (issue 11 s) Several sockets as lscpu and numactl print them ("Socket(s): 2", "NUMA node(s): 2",
# "available: 2 nodes (0-1)"), read in pasted output too: the configuration fact beside an unbound process.
_extend({"multi_socket": [r"\bSocket\(s\):\s*[2-8]\b", r"\bNUMA node\(s\):\s*[2-8]\b",
                          r"\bavailable:\s*[2-8]\s+nodes\s*\(0-[1-7]\)"]})
OUTPUT_FAMILIES = OUTPUT_FAMILIES + ("multi_socket",)

# (issue 11 r) DCGM's own wording for a clocks event, from its error catalog (dcgmlib/dcgm_errors.h,
# https://github.com/NVIDIA/DCGM): DCGM_FR_CLOCK_THROTTLE_THERMAL / _POWER "Detected clock throttling due to
# thermal|power violation in GPU %u" (DCGM 4 says "clocks event" for "clock throttling"), DCGM_FR_THERMAL_VIOLATIONS
# (_TS) "There were thermal violations totaling %.1f seconds" / "Thermal violations totaling %.1f seconds started at",
# DCGM_FR_THROTTLING_VIOLATION "Clocks are being throttled for GPU %u" (4.x: "optimized"), the codes themselves, and
# the violation counters dcgm-exporter exports (DCGM_FI_DEV_THERMAL_VIOLATION / _POWER_VIOLATION, time spent held
# down) above zero.
_extend({"clock_power": [
    r"\bclocks? (?:event|throttling)\s+due to\s+(?:thermal|power)\s+violation",
    r"\b(?:thermal|power) violations?\s+totaling\s+\d",
    r"\bClocks are being (?:throttled|optimized) for GPU\b",
    r"\bDCGM_FR_(?:CLOCKS?_(?:EVENT|THROTTLE)_(?:THERMAL|POWER)|THERMAL_VIOLATIONS(?:_TS)?|THROTTLING_VIOLATION)\b",
    r"\bDCGM_FI_DEV_(?:THERMAL|POWER)_VIOLATION\b(?:\{[^}\n]*\})?\s+[1-9]",
]})


# --------------------------------------------------------------------------- an error message the catalog knows
# (issue 11, s14) The CUDA runtime's and the engines' own error messages (rules/catalog/engine_errors.toml): pasted
# output, or the reporter's sentence quoting it. Not one ruled out ("no out-of-memory errors", "it is not OOM"), asked
# about or guessed ("could it be an illegal memory access?").
def known_errors(facts: Facts) -> list[Claim]:
    """Error messages of the catalog the ticket quotes: data {error (catalog.EngineError), origin}; not the rows of
    messages with several documented causes (ambiguous_errors)."""
    from rules.catalog import ASKED, engine_errors

    return _catalog_messages(facts, [row for row in engine_errors() if row.category != ASKED])


def ambiguous_errors(facts: Facts) -> list[Claim]:
    """(errors31) The catalog's messages with several documented causes that the ticket quotes (category
    insufficient_data: NCCL's 'unhandled cuda error' without the CUDA error it wraps): data as known_errors'."""
    from rules.catalog import ASKED, engine_errors

    return _catalog_messages(facts, [row for row in engine_errors() if row.category == ASKED])


def engine_notices(facts: Facts) -> list[Claim]:
    """(warnings33) The engines' notices about their own speed the ticket quotes (rules/catalog/engine_notices.toml):
    pasted output, or the reporter's sentence quoting one (not one ruled out, guessed or asked about); data {notice
    (catalog.EngineNotice), origin}."""
    from rules.catalog import engine_notices as rows

    return _catalog_messages(facts, list(rows()), name="engine_notice", key="notice")


def _catalog_messages(facts: Facts, rows: list, name: str = "known_error", key: str = "error") -> list[Claim]:
    """The claims (`name`, the row under data[`key`]) of the catalog messages the ticket quotes (rows of
    engine_errors.toml or engine_notices.toml), each message named by the first row matching it."""
    # (an attached NCCL_DEBUG log's WARN lines are the same messages as a pasted one's: nccl_log keeps each as an event)
    logged = [(e.source, e.message) for e in facts.of(NcclEvent) if e.message]
    pasted, prose = pasted_blocks(facts) + logged, texts(facts)
    said = (tuple(pasted), tuple((src, getattr(src, "lines", None), text) for src, text in prose), name, key,
            tuple(map(id, rows)))
    kept = _MESSAGES.get(said)
    if kept is None or any(a is not b for a, b in zip(kept[0], rows)):
        if len(_MESSAGES) >= 8:  # one ticket's three row sets, and more: the rules ask of one ticket after another
            _MESSAGES.clear()
        kept = _MESSAGES[said] = (rows, _messages_said(pasted, prose, rows, name, key))
    return [dataclasses.replace(c, data=dict(c.data)) for c in kept[1]]  # a caller may change its claims


# The claims _catalog_messages found, by what they were read from: (pasted, prose and its lines, name, key, the rows'
# ids) -> (the rows, kept so their ids stay theirs; the claims). The same texts and rows give the same claims, and
# the rules ask for them many times a ticket (known_errors: a dozen rules), each a search of every row over the text.
_MESSAGES: dict = {}


def _messages_said(pasted: list, prose: list, rows: list, name: str, key: str) -> list[Claim]:
    """_catalog_messages' claims in the (source, text) pairs of pasted output and of prose."""
    out: list[Claim] = []
    named: set[tuple[str, str]] = set()  # (source, line): a line is one message, named by the first row matching it
    whole = "\n".join(t for _, t in pasted + prose)
    # a row whose stack the ticket never names leaves the message to the next row (notices have no such context)
    rows = [row for row in rows if not getattr(row, "context", None) or row.context.search(whole)]
    # (review34b) nor a row whose `unless` the ticket says ("the build finished" beside a lock that stops a start)
    rows = [row for row in rows if not getattr(row, "unless", None) or not row.unless.search(whole)]
    # (xfail43a) a line nccl_log kept from the prose itself ("I don't see \"ncclSystemError\" anywhere, it just
    # waits"): the reporter's sentence, so a denial of the message or its going away is weighed as the prose's is
    # (_line_denied). Not its guess words: a raw log line pasted without a fence carries the framework's own ("...
    # might run on corrupted/incomplete data", "A call failed possibly due to a network error")
    prose_lines = {line.strip() for _, t in prose for line in t.splitlines() if line.strip()}
    for origin, said in (("output", pasted), ("prose", prose)):
        for source, text in said:
            parts = sentences(text) if origin == "prose" else [text]
            in_prose = origin == "output" and "\n" not in text.strip() and text.strip() in prose_lines
            for row in rows:
                if any(c.data[key].id == row.id for c in out) or re.absent(row.pattern, text):
                    continue  # one claim a message: the pasted output's, else the first sentence's
                for sentence in parts:
                    if origin == "output":
                        m = next((x for x in row.pattern.finditer(sentence) if (source, _line_at(x)) not in named),
                                 None)
                        m = None if m and in_prose and _line_denied(sentence, m) else m
                    else:
                        # (a harmless notice is asked about as a message, whoever saw it: "someone in #4021 saw
                        # 'Torch was not compiled with flash attention', does it matter for me?")
                        m = _error_said(row.pattern, sentence, own=getattr(row, "strength", None) != "harmless")
                        m = None if m and (source, _line_at(m)) in named else m
                    if m:
                        named.add((source, _line_at(m)))
                        out.append(Claim(name, source, _quote(m.string, m, 80), {key: row, "origin": origin}))
                        break
    return out


# (s28, ut28c) `ray status` pasted beside a Ray placement group that waits: its Resources block counts the cluster's
# GPUs ("0.0/1.0 GPU": used/total) and its demands say what waits ("{'GPU': 1.0} * 2 (PACK): 1+ pending placement
# groups"; https://docs.ray.io/en/latest/cluster/cli.html#ray-status). A total below the GPUs asked is the reason the
# group cannot be placed (gpustack/gpustack#5509: one node's GPU counted as a TPU). Read only inside a `ray status`
# paste (its "Autoscaler status" or "Node status" heading): "0.0/1.0 GPU" elsewhere is no count of Ray's.
_RAY_STATUS = re.compile(r"Autoscaler status|^\s*Node status\s*$", re.M)
_RAY_GPU_TOTAL = re.compile(r"^\s*\d+(?:\.\d+)?/(\d+(?:\.\d+)?)\s+GPU\s*$", re.M)
_RAY_GPU_DEMAND = re.compile(r"\{\s*'GPU'\s*:\s*(\d+(?:\.\d+)?)\s*\}\s*\*\s*(\d+)\s*\((?:STRICT_)?(?:PACK|SPREAD)\)"
                             r"[^\n]*pending placement group")


def ray_gpus(facts: Facts) -> tuple[Claim, Claim] | None:
    """(total, demand) from a pasted `ray status`: total.data["gpus"] the GPUs Ray counts in the cluster,
    demand.data["gpus"] the GPUs a pending placement group asks for; None unless both are there."""
    for source, text in pasted_blocks(facts) + texts(facts):
        if not _RAY_STATUS.search(text):
            continue
        total, demand = _RAY_GPU_TOTAL.search(text), _RAY_GPU_DEMAND.search(text)
        if total and demand:
            return (Claim("ray_gpus", source, _quote(text, total, 0), {"gpus": float(total.group(1))}),
                    Claim("ray_demand", source, _quote(text, demand, 0),
                          {"gpus": float(demand.group(1)) * int(demand.group(2))}))
    return None


def _line_at(m: re.Match) -> str:
    """The line a match starts on, stripped: "cudaErrorInvalidDevice: 101 from cudaIpcOpenMemHandle" is one message,
    which the catalog row listed first names (cuda_ipc_failed), not a second one (invalid_device_ordinal)."""
    text = m.string
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.start())
    return text[start:end if end >= 0 else len(text)].strip()


# (newarch35) PyTorch's own sentence after every CUDA error (c10/cuda/CUDAException.cpp: "CUDA kernel errors might be
# asynchronously reported at some other API call, so the stacktrace below might be incorrect."): the framework's hedge
# about the stack trace, not the reporter's about the error (Comfy-Org/ComfyUI#8708's title quotes both).
_TORCH_ASYNC_HEDGE = re.compile(r"CUDA kernel errors might be asynchronously reported at some other API call,? so the "
                                r"stack ?trace below might be incorrect\.?", re.I)


def _error_said(pattern: re.Pattern, sentence: str, own: bool = True) -> re.Match | None:
    """The catalog message in a prose sentence, matched line by line (an error pasted outside a code block is one
    line), when the sentence up to it does not rule it out, guess or ask it: "Maybe it's\nCUDA out of memory" wraps
    the guess onto the line before. The lines after the match are left out (the guess words of the framework's own
    next line, "A call failed possibly due to ...", are not the reporter's); the question mark closing its own line
    counts. With `own`, not a message told as another person's (anothers_report)."""
    lines = sentence.splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = pattern.search(line)
        if not m:
            continue
        head = "".join(lines[:i]).replace("\n", " ")  # the wrapped lines before, read as one with the match's
        upto = pattern.search(head + line.rstrip("\n"), len(head))
        plain = _TORCH_ASYNC_HEDGE.sub(" ", upto.string) if upto else ""
        if upto and not (negated_words(upto.string, upto) or _guessed(plain) or asked(plain)
                         or resolved_after("".join(lines[i:])[m.end():], m.group(0))
                         or _ADVICE_IF.search(upto.string[:upto.start()])
                         or _MAY_CAUSE.search(upto.string[:upto.start()])
                         or own and anothers_report(upto.string[:upto.start()], "".join(lines[i:])[m.end():])):
            return upto
    return None


def _line_denied(line: str, m: re.Match) -> bool:
    """(xfail43a) Does the line rule out the message `m` matched in it ("I don't see ...", "... no longer fails with
    ...") or say it is over ("... is not raised any more")?"""
    return bool(negated_words(line, m) or resolved_after(line[m.end():], m.group(0)))


# (review38b) A quoted message the reporter then says is over: 'The "CUDA error: out of memory" is gone after I set
# --max-model-len', "之前报 CUDA out of memory，调小 max-model-len 后已经解决了": what ran before, not the failure now
# (engine.FAILURE_MESSAGES lets a current one outrank a fitting figure). Not "is not fixed", "还没解决".
# (fr43) A clause with a subject of its own after a comma: "fails with 'X', the flash-attn warning does not appear
# anymore" speaks of the warning; "'X', the error is not raised anymore" still of the message.
# (fr43 A2) The subject's noun phrase, up to three words ending in a name of the failure, is the message itself: ",
# the NCCL crash does not happen anymore" after a quoted CUDA error. A warning is another message than an error
# ("fails with 'OOM'; the NCCL warning from before is not shown anymore"), the same one where the quoted line is a
# warning (_RESOLVED_AFTER_WARNING). After ";" the clause goes on only where it opens on the message (it, this, that,
# "the error") or on when it stopped ("; after setting NCCL_P2P_DISABLE=1 it does not appear anymore").
_ERROR_NOUNS = r"errors?|messages?|exceptions?|crash(?:es)?|failures?|issues?|problems?|timeouts?|ooms?|segfaults?"


def _resolved_after(nouns: str) -> re.Pattern:
    """_RESOLVED_AFTER with `nouns` naming the quoted message's kind."""
    phrase = r"(?:[\w-]+\s+){0,2}?(?:" + nouns + r")\b"
    own = r"(?:the|a|an|my|our|their|his|her|this|that)\s+" + phrase
    new_subject = r",\s+(?:the|a|an|my|our|their|his|her)\s+(?!" + phrase + r")\w"
    semicolon = (r";(?!\s*(?:(?:it|this|that|after|since|once|with|when|now|then)\b|" + own + r"))")
    return re.compile(
        r"^[^.?!\n]{0,80}?\b(?:is|was|has\s+been|have\s+been|are|were|got)\s+(?:now\s+|since\s+|already\s+)?"
        r"(?:gone|fixed|resolved|solved)\b|^[^.?!\n]{0,80}?\b(?:went\s+away|disappeared)\b|"
        # (xfail43a) ... or no longer raised or shown: "the error is not raised anymore", "The error doesn't appear
        # anymore after restarting monerod", "it no longer shows up"; said of this message, not of another one after
        # "and", "but" ("fails with 'X' and the warning no longer shows up"), and not "..., but I still get it"; not
        # "not raised yet" (a wait, not a cure)
        r"^(?:(?!\b(?:and|but|while|whereas)\b|" + new_subject + r"|" + semicolon + r")[^.?!\n]){0,80}?"
        r"\b(?:(?:(?:is|are|was|were)(?:\s+not|n['’]t)\s+"
        r"(?:being\s+)?(?:raised|thrown|shown|printed|logged|reported|displayed|seen)|(?:does|do|did)(?:\s+not|n['’]t)\s+"
        r"(?:appear|show(?:\s+up)?|occur|happen|come\s+up|pop\s+up))\s+(?:any\s?more|any\s+longer)|"
        r"no\s+longer\s+(?:appears?|shows?(?:\s+up)?|occurs?|happens?|comes?\s+up|pops?\s+up|"
        r"(?:is|gets?)\s+(?:raised|thrown|shown|printed|logged|reported|displayed)))\b"
        r"(?!(?:[^.?!\n]|\.(?=\w)){0,60}?\bstill\b)|"
        r"^[^。？！?!\n]{0,40}?(?:(?:已经?|已)\s*(?:被\s*)?(?:解决|修复|消失)|(?<![没未不])(?:解决|修复|消失)了)|"
        # (review39s) what cured it as the subject: "but a reboot fixed that", "updating the driver solved it"; not
        # "nothing fixed it", "no reboot has fixed it", "a reboot hasn't fixed it", "neither ... nor ... fixed it"
        r"^(?![^.?!\n]{0,80}?(?:\b(?:nothing|nobody|none|neither|nor|never|not|no)\b|n['’]t\b))[^.?!\n]{0,80}?"
        r"\b(?:fixed|solved|resolved|cured)\s+(?:it|that|this|the\s+(?:issue|problem|error|message))\b", re.I)


_RESOLVED_AFTER = _resolved_after(_ERROR_NOUNS)
_RESOLVED_AFTER_WARNING = _resolved_after(_ERROR_NOUNS + r"|warnings?|notices?")


def resolved_after(after: str, said: str) -> bool:
    """Does the text `after` the quoted message `said` say it is over? A warning is cured by "the warning is gone"."""
    return bool((_RESOLVED_AFTER_WARNING if re.search(r"warn", said, re.I) else _RESOLVED_AFTER).search(after))


# (review33b) Another person's run, the error theirs: "Someone in #1234 got CUBLAS_STATUS_EXECUTION_FAILED, but for me
# it just hangs", "another user reported ... in #7297", "in the linked issue they got ...". Issue threads cite
# earlier threads this way; the reporter's own error is said with "I"/"we" ("Like the user in #7297, I also get ...",
# "Same error as #1234: ...") or taken up after it ("..., and I get it too").
_MEETS = (r"(?:\s+[\w#@'./-]+){0,6}?\s+(?:got|gets|saw|sees|hit|hits|had|has|reported|reports|encountered|encounters|"
          r"ran\s+into|runs\s+into|faced|mentioned|mentions|posted|describe[sd]?|(?:was|is|were)\s+getting)\b")
# (review38b) and whoever rules/hearsay.py names as another's voice ("in #4512 people got 'CUDA out of memory'; I
# don't", "the docs mention ..."): one list of others for every hearsay reading
_ANOTHER_PERSON = re.compile(r"\b(?:someone|somebody|another\s+(?:user|person|reporter|poster|team)|other\s+(?:users|"
                             r"people|teams)|others|" + hearsay.OTHERS + r")\b" + _MEETS
                             + r"|(?<![\w@])@[\w-]+" + _MEETS, re.I)
# "they", "he", "the reporter" are another person's only beside another thread named ("in #1234 they got ..."): in a
# ticket filed for a customer ("the user reports CUDA out of memory on our cluster") they are the ticket's own.
_THREAD_NAMED = re.compile(r"#\d{2,6}\b|\b(?:issue|thread|post|discussion)\b", re.I)
_THEY = re.compile(r"\b(?:they|he|she|the\s+(?:reporter|poster|author|OP))\b" + _MEETS, re.I)
_FIRST_PERSON = re.compile(r"\b(?:I|[Ww]e|[Mm]e|[Mm]y|[Oo]ur|[Uu]s)\b")
# (review39s: not denied, "but I never saw it", "we have not seen that")
_TAKEN_UP = re.compile(r"\b(?:I|we)\s+(?:(?!(?:never|not|rarely|hardly)\b)\w+\s+)?(?:get|got|see|saw|hit|have|had)\s+"
                       r"(?:it|this|that|the\s+same)\b|"
                       r"\b(?:me|us)\s+too\b|\bfor\s+(?:me|us)\s+(?:too|as\s+well)\b|\bsame\s+(?:here|for\s+(?:me|us))\b",
                       re.I)


def anothers_report(before: str, after: str = "") -> bool:
    """Is the message that follows `before` another person's, told by the reporter (a subject other than the reporter
    with a verb of meeting it, no "I"/"we" between them and the message), and not taken up as the reporter's own in
    `after` ("I get it too")?"""
    found = list(_ANOTHER_PERSON.finditer(before))
    if not found and _THREAD_NAMED.search(before):
        found = list(_THEY.finditer(before))
    last = found[-1] if found else None
    if last is None or _FIRST_PERSON.search(before, last.end()):
        return False
    return not _TAKEN_UP.search(after)


# A failure said possible, not seen: "Passing an interior address may cause cuIpcGetMemHandle to fail on some drivers"
# (openucx/ucx#11746, a pull request on what the API requires), "this can lead to CUDA out of memory".
_MAY_CAUSE = re.compile(r"\b(?:may|might|can|could)\s+(?:also\s+|sometimes\s+|potentially\s+)?"
                        r"(?:cause|make|lead\s+to|result\s+in|trigger)\s+(?:[\w`'\"().-]+\s+){0,3}$", re.I)


# Advice to the reader on an error that may come, as READMEs and comments give it: "# specify --max-model-len if you
# get CUDA out of memory", "in case you hit an illegal memory access, ...": a condition on someone else's run, not the
# reporter's error (the reporter's own condition, "if I use TP=2 I get CUDA out of memory", is seen and stays).
_ADVICE_IF = re.compile(r"\b(?:if|when(?:ever)?|in\s+case|should)\s+you\s+(?:\w+\s+)?(?:get|see|hit|encounter|run\s+"
                        r"into|face|experience|receive|meet)\b[^,;:]*$", re.I)


# --------------------------------------------------------------------------- the machine loses power under load
# (issue 11) The whole machine powering off or rebooting by itself while the GPUs work: the PSU's over-current or
# over-power protection tripped by the GPUs' transient draw, which lasts well under the millisecond average a power
# limit (`nvidia-smi -pl`) regulates, so a lowered limit often does not stop it (the usual fix: a larger or second
# PSU, or fewer GPUs per PSU). Said as "the PC shuts down", "instantly powers off my desktop", "causing reboots",
# "sudden shutdown" (kijai/ComfyUI-FluxTrainer#208, AnswerDotAI/fsdp_qlora#41, sgl-project/sglang#5146,
# ggml-org/llama.cpp#23919). The machine is the subject or the object of a program, never of the reporter ("I
# rebooted the machine", "after restarting the PC" are actions); an engine or server process shutting down is
# its own log line, not the machine's power.
# (in the plural too: "the hosts shut down sometimes", weiliu89/caffe#607, two GPUs training one model)
_MACHINE = r"(?:PC|computer|desktop|machine|rig|workstation|box|system|host)(?:s|es)?"
_OFF_VERB = (r"(?:power(?:s|ed|ing)?\s+(?:itself\s+)?off|shut(?:s|ting)?\s*-?\s*(?:itself\s+)?(?:down|off)|"
             r"turn(?:s|ed|ing)?\s+(?:itself\s+)?off|cuts?\s+(?:the\s+)?power)")
_ON_ITS_OWN = r"(?:just|instantly|immediately|suddenly|randomly|completely|hard|then|simply|always|will|would|\w+ly)"
_extend({"power_loss": [
    # (para37c) the same in Chinese, the machine as the subject: "整台机器立刻关机", "电脑直接断电", "主机突然重启"
    # (not "重启后" / "重启一下": after or as the reporter's restart; not "不会关机")
    r"(?:整台|整个|整)?(?:机器|电脑|主机|整机|工作站|服务器)\s*(?:(?:会|就|直接|立刻|立即|马上|突然|自动|瞬间|都)\s*){0,3}"
    r"(?<![不没])(?:关机|断电|掉电|重启)(?!\s*(?:后|之后|以后|一下|才))",
    # "the PC shuts down", "the whole rig instantly powers off", "the computer restarts", "my desktop reboots"
    r"(?<!\bI\s)(?<!\bwe\s)\b(?:(?:the|my|our|whole|entire|this)\s+)?(?:whole\s+|entire\s+)?" + _MACHINE
    + r"\s+(?:" + _ON_ITS_OWN + r"\s+){0,2}(?:" + _OFF_VERB + r"(?!\s+(?:scripts?|commands?|buttons?|signals?|hooks?|"
    r"sequences?|procedures?|timers?|events?|logs?|messages?)\b)|(?:restart|reboot)(?:s|ed|ing)?\b"
    r"(?!\s+(?:the|a|an|my|our|its|all|every|it|them|vllm|sglang|ollama|docker|services?|containers?|workers?|"
    r"process(?:es)?)\b))",
    # "instantly powers off my desktop", "is shutting down the whole rig" (a program or load as the subject); not
    # "only rebooting the system helps", "only rebooting the machine works": the reporter's remedy (AlexeyAB/darknet
    # #2807, training stopped on 3 GPUs and a reboot was the only way to restart it)
    r"(?<!\bI\s)(?<!\bwe\s)(?<!\bto\s)\b(?!only\b)(?:" + _ON_ITS_OWN + r")\s+"
    r"(?:" + _OFF_VERB + r"|(?:restart|reboot)(?:s|ed|ing)?)\s+(?:the|my|our)\s+"
    r"(?:whole\s+|entire\s+)?" + _MACHINE + r"\b",
    # "causing reboots", "a sudden shutdown", "immediate reboot (hard crash)"
    r"\b(?:caus\w*|trigger\w*|leads?\s+to|results?\s+in)\s+(?:a\s+|the\s+)?(?:(?:system|machine|PC|computer|host)\s+)?"
    r"(?:reboots?|restarts?|shut-?downs?|power[- ]?offs?)\b",
    r"\b(?:sudden|instant|immediate|unexpected|spontaneous|random)\s+(?:(?:system|machine|PC|computer)\s+)?"
    r"(?:shut-?downs?|reboots?|restarts?|power[- ]?offs?|power loss)\b",
    # (para37d) the particle after its object, as English separates it: "any request powers the whole rig off",
    # "it shuts the machine down" (not the reporter's own act: "I powered the box off")
    r"(?<!\bI\s)(?<!\bwe\s)(?<!\bto\s)\b(?:power(?:s|ed)?|shuts?|turn(?:s|ed)?)\s+(?:the|my|our)\s+"
    r"(?:whole\s+|entire\s+)?" + _MACHINE + r"\s+(?:off|down)\b",
    # (para37d) in Chinese: the machine (整机, 机器, 电脑, 主机) "关机" (shuts down), "断电" (loses power), "重启"
    # (restarts), with at most an adverb between ("直接", "立刻"); not "不会关机" (does not), not "重启后" (after
    # a restart: the remedy), and not the reporter restarting it ("重启机器": the verb before the noun)
    r"(?:整机|整台(?:机器|电脑|主机)|机器|电脑|主机|服务器)(?:(?:会|就|也)?(?:直接|立刻|立即|马上|突然|自动|瞬间|随机)){0,2}"
    r"(?:关机|断电|掉电|重启)(?!后|之后|以后|一下|就好)",
]}, new_kinds=True)
# "my PC doesn't shut down", "the machine never reboots": a negation inside the match rules it out
_NEGATED_ANYWHERE_INSIDE = _NEGATED_ANYWHERE_INSIDE + ("power_loss",)


# RoCE GID tables as the two usual tools print them. `ibv_devinfo -v` (rdma-core): "GID[  3]:  ::ffff:200.0.209.6, RoCE
# v2" (older releases print the full form "0000:...:ffff:c800:d106, RoCE v1"); Mellanox's `show_gids`: "mlx5_0  1  3
# 0000:0000:0000:0000:0000:ffff:0b00:0048  11.0.0.72  v2  ens3np0" (DEV PORT INDEX GID IPv4 VER DEV). A GID is an IPv6
# address: fe80:: ones are link-local, ::ffff:a.b.c.d ones carry the NIC's IPv4 address.
_GID_DEVINFO = re.compile(r"^[ \t]*GID\[\s*(?P<index>\d+)\]\s*:\s*(?P<gid>[0-9a-f:.]+)\s*,\s*RoCE\s*(?P<ver>v[12])\b",
                          re.I | re.M)
_GID_SHOW = re.compile(r"^[ \t]*(?P<dev>[\w.\-]+)\s+(?P<port>\d+)\s+(?P<index>\d+)\s+"
                       r"(?P<gid>[0-9a-f]{4}(?::[0-9a-f]{0,4})+)\s+(?:(?P<ip>\d{1,3}(?:\.\d{1,3}){3})\s+)?"
                       r"(?P<ver>v[12])\b", re.I | re.M)


def _gid_ipv4(gid: str) -> str | None:
    """The IPv4 address an IPv4-mapped GID carries (::ffff:a.b.c.d, or its hex form ...:ffff:c800:d106)."""
    if m := re.search(r"ffff:(\d{1,3}(?:\.\d{1,3}){3})$", gid, re.I):
        return m.group(1)
    if m := re.search(r"(?:^|:)0000:ffff:([0-9a-f]{4}):([0-9a-f]{4})$", gid, re.I):
        hi, lo = int(m.group(1), 16), int(m.group(2), 16)
        return f"{hi >> 8}.{hi & 255}.{lo >> 8}.{lo & 255}"
    return None


def gid_table(facts: Facts) -> list[dict]:
    """The RoCE GID entries the ticket pastes: {source, device, index, gid, version, ipv4, link_local}."""
    out, seen = [], set()
    for source, text in pasted_blocks(facts) + texts(facts):
        for m in list(_GID_DEVINFO.finditer(text)) + list(_GID_SHOW.finditer(text)):
            d = m.groupdict()
            key = (d.get("dev"), int(d["index"]), d["gid"].lower())
            if key in seen:
                continue
            seen.add(key)
            gid = d["gid"].lower()
            out.append({"source": source, "device": d.get("dev"), "index": int(d["index"]), "gid": gid,
                        "version": d["ver"].lower(), "ipv4": d.get("ip") or _gid_ipv4(gid),
                        "link_local": gid.startswith("fe80")})
    return out


# (ut26f) A job stuck where NCCL starts, before any collective: "发现两个节点都卡在了init nccl后"
# (PaddlePaddle/Paddle#51096), "it just stopped at \"Init nccl begin\" without further progress"
# (sgl-project/sglang#958).
# Across machines NCCL first connects the ranks over TCP on one IP interface (its bootstrap), so a hang there is first
# an interface or firewall question (NCCL_SOCKET_IFNAME: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/
# env.html); ticket.init_hang_across_nodes reads it. Not a hang during training ("stuck at step 200").
_NCCL_START = (r"(?:init(?:iali[sz]\w*)?[ _]?nccl\w*|nccl[ _]?init\w*|Init nccl begin|ncclCommInitRank\w*|Init START|"
               r"NCCL initiali[sz]ation|init_process_group|NCCL\s*初始化|初始化\s*NCCL)")
_extend({"nccl_init_stuck": [
    r"\b(?:stuck|hangs?|hanging|hung|stops?|stopped|freez\w*|frozen|blocked|waits?|waiting)\b[^.\n]{0,40}?"
    # (review29) the call named between: "hangs for hours when encountered with `init_process_group`"
    # (pytorch/pytorch#76069), "hangs when calling ncclCommInitRank"
    r"\b(?:at|in|on|after|during|when)\s+(?:(?:calling|encountered\s+with|reaching|the\s+call\s+to)\s+)?"
    r"(?:the\s+)?[\"'“`]?" + _NCCL_START,
    r"(?:卡|停)(?:在|住)了?\s*(?:在\s*)?[\"'“`]?" + _NCCL_START,
]}, new_kinds=True)


# (s29, ut29c) Triton's instance_group asked to place a TensorRT-LLM model on GPUs: `kind: KIND_GPU`, a `gpus: [...]`
# list or a count per GPU, in a ticket about the tensorrtllm backend (its model folder, launcher or container). That
# backend starts its engine on the GPUs the server sees, or those its own GPU-id parameter lists, one MPI rank per GPU
# of the engine's layout; it does not take them from instance_group (triton-inference-server/tensorrtllm_backend#481,
# #166, #277; the backend's multi-instance guide). Not an instance_group of another backend ("backend: "vllm"", a
# plain TensorRT or ONNX model), which Triton places itself. Data {gpus} (the listed ids, if any).
_INSTANCE_GROUP_GPU = re.compile(r"instance_group\s*[:=]?\s*[\[{][^\]]{0,300}?"
                                 r"(?:KIND_GPU|\bgpus\s*:\s*\[(?P<gpus>[^\]]*)\])", re.I | re.S)
_TRTLLM_BACKEND = re.compile(r"backend\s*:\s*\"tensorrtllm\"|tensorrtllm_backend|launch_triton_server|"
                             r"inflight_batcher_llm|trtllm-python-py3|tensorrt_llm/config\.pbtxt|"
                             r"tensorrt[-_ ]?llm\s+backend", re.I)
_OTHER_BACKEND = re.compile(r"backend\s*:\s*\"(?!tensorrtllm\")\w+\"|platform\s*:\s*\"\w+\"", re.I)


def trtllm_instance_group(facts: Facts) -> Claim | None:
    """The config (a pasted code block or the reporter's text) whose instance_group places a TensorRT-LLM model."""
    pasted = [(n.source, n.text) for n in facts.of(Note) if n.kind == OUTPUT_KIND and n.text]
    every = texts(facts) + pasted
    if not any(_TRTLLM_BACKEND.search(text) for _, text in every):
        return None
    for source, text in every:
        m = _INSTANCE_GROUP_GPU.search(text)
        if not m:
            continue
        near = text[max(0, m.start() - 400):m.start()]
        if _OTHER_BACKEND.search(near) and not re.search(r"backend\s*:\s*\"tensorrtllm\"", near, re.I):
            continue  # the group of another backend's model in the same paste
        listed = m.group("gpus") or next(iter(re.findall(r"\bgpus\s*:\s*\[([^\]]*)\]", text[m.end():m.end() + 80])), "")
        gpus = [int(g) for g in re.findall(r"\d+", listed)]
        return Claim("trtllm_instance_group", source, _quote(text, m, 30), {"gpus": gpus})
    return None


# (ask30, issue 11) One machine that works and another that does not, in one sentence: "it works beautifully on my old
# box ... but it produces only garbage on my newly built box" (ggml-org/llama.cpp#3772). What decides such a ticket is
# the difference between the two machines (driver, CUDA and NCCL, engine build, GPUs and how they connect), so the
# ask is each machine's versions and topology (rules.engine.MACHINE_AB_ASK), not one machine's. Not the same machine
# with another GPU count or setting ("works on one GPU but not on two in the same machine"), nor a job spread over
# machines ("works on one node but hangs across two nodes": a multi-node question, read by multi_node).
_MAB_MACHINE = r"(?:box|machine|server|node|host|computer|PC|workstation|rig|system|instance|VM)"
_MAB_ONE_MACHINE = (r"(?:on|in|with)\s+(?:my|our|the|an?|one|this|that)\s+(?!same\b)(?:[\w-]+\s+){0,2}?"
                    + _MAB_MACHINE + r"\b(?!\s+(?:with|of)\s+(?:one|a single|1)\s+GPU)")
_MAB_OTHER_MACHINE = (r"(?:on|in|with)\s+(?:my|our|the|an?|this|that)?\s*(?:[\w-]+\s+){0,2}?(?:other|another|second|"
                      r"new(?:ly)?|newer|old(?:er)?|different|2nd)\s+(?:[\w-]+\s+){0,2}?" + _MAB_MACHINE + r"\b")
_MAB_ELSEWHERE = (r"\b(?:on|in)\s+(?:an?|my|our|the)?\s*(?:other|another|different|second)\s+(?:[\w-]+\s+){0,2}?"
                  + _MAB_MACHINE + r"\b")
_MAB_WORKS_ON = r"\b(?:works?|worked|working|runs?|ran|running|is fine|was fine)\b\W{0,3}(?:\w+\W{0,3})?"
# ... said of the other machine alone, with how well: "works fine on another machine" (not "this script works on
# another server", a place to run it, nor "maybe it works on other servers")
_MAB_WORKS_FINE = (r"\b(?:works?|worked|runs?|ran)\s+(?:just\s+)?(?:fine|well|perfectly|normally|great|"
                   r"without (?:any )?(?:problems?|errors?|issues?))\b")
_MAB_FAILS = (r"\b(?:fails?|failed|failing|crash\w*|hangs?|hung|stuck|slow\w*|garbage|gibberish|errors?|broken|"
              r"doesn'?t|does not|didn'?t|did not|won'?t|not work\w*|can'?t|cannot)\b")
_MAB_BUT = r"[^\n]{0,200}?\b(?:but|while|whereas|however)\b"
_extend({"machine_ab": [
    # works on one machine ..., but fails (or garbage, slow) on another
    _MAB_WORKS_ON + r"[^.\n]{0,20}?" + _MAB_ONE_MACHINE + _MAB_BUT + r"[^\n]{0,80}?"
    + _MAB_FAILS + r"[^\n]{0,60}?" + _MAB_OTHER_MACHINE,
    _MAB_WORKS_ON + r"[^.\n]{0,20}?" + _MAB_OTHER_MACHINE + _MAB_BUT + r"[^\n]{0,80}?"
    + _MAB_FAILS + r"[^\n]{0,60}?" + _MAB_ONE_MACHINE,
    # fails on this machine ..., but works on another
    _MAB_FAILS + r"[^.\n]{0,60}?" + _MAB_ONE_MACHINE + _MAB_BUT + r"[^\n]{0,40}?"
    + _MAB_WORKS_ON + r"[^\n]{0,30}?" + _MAB_OTHER_MACHINE,
    # one side only, the other machine's: "works fine on another machine", "on another machine ... the example can be
    # run successfully" (the machine the ticket is about is the one that fails); not a new or old machine alone ("it
    # works on my new machine" is as often the fix)
    _MAB_WORKS_FINE + r"[^.\n]{0,20}?" + _MAB_ELSEWHERE,
    _MAB_ELSEWHERE + r"[^\n]{0,200}?\b(?:works?|worked|runs?|ran|can be run|completes?|completed|trains?)\s+"
    r"(?:fine|well|successfully|normally|perfectly|without (?:any )?(?:problems?|errors?|issues?))\b",
]}, new_kinds=True)
_MAB_MULTI_NODE_HERE = re.compile(r"\bacross\s+(?:two|\d+|multiple|several)\s+(?:nodes|machines|servers|hosts)\b|"
                                  r"\bmulti[- ]?(?:node|machine|host)\b", re.I)


def machine_ab(facts: Facts) -> Claim | None:
    """(ask30) The reporter's word that the job works on one machine and not on another (machine_ab), observed, in a
    ticket that is not about one job spread over machines; else None."""
    if any(_MAB_MULTI_NODE_HERE.search(t) for _, t in texts(facts)):
        return None
    return next((c for c in find(facts, "machine_ab") if not c.guess), None)


# (setting30, issue 11) The reporter says every arm of a comparison ran one software setup: "All 4 runs same day,
# same model, same image" (NVIDIA forums 364926, solo vs TP=2 vs two solo engines), "both runs use the same container
# and flags". A launch setting of that setup is then common to every arm: it is context for the difference between
# them, not its cause (rules.engine.shared_setting_context weighs which). Only the software setup counts (image,
# container, recipe, flags, build, release): "both configurations were loading the same model" (lmstudio-bug-tracker
# #1608) compares a 5090 alone with the 5090 and a 3080, so the GPU set is what differs. The sentence names
# several runs (all, every, each, both + runs, tests, topologies, setups ...) and something the same across them; a
# difference named in it ("same image except --enforce-eager", "same model but different flags") or a question
# ("do both runs use the same image?") is no such statement.
_ARMS = (r"\b(?:all|every|each|both)\s+(?:of\s+)?(?:(?:the|these|those|my|our|\d+|two|three|four|five|six|eight)\s+)?"
         r"(?:[\w-]+\s+)?(?:runs?|tests?|topolog(?:y|ies)|configurations?|configs?|setups?|arms?|variants?|"
         r"benchmarks?|measurements?|experiments?|layouts?|scenarios?)\b")
_SAME_SETUP = (r"\b(?:same|identical)\s+(?:[\w-]+\s+)?(?:image|container|recipe|settings?|flags?|config\w*|build|"
               r"version|release|environment|software|stack|command|launch\s+(?:args|arguments|command))\b")
_ARMS_SHARE = re.compile(_ARMS + r"[^.?!\n]{0,80}?" + _SAME_SETUP + "|" + _SAME_SETUP + r"[^.?!\n]{0,80}?" + _ARMS,
                         re.I)
# The one thing the arms differ in, named anywhere in the text ("only the spec flags changing", "the only changed
# argument was --enforce-eager", "otherwise identical", "with and without"): that setting is the A/B itself.
_ONE_DIFFERENCE = re.compile(r"\bonly\b[^.?!\n]{0,40}?\b(?:chang\w*|differ\w*|vary\w*|varied|variable)\b|"
                             r"\botherwise\b|\bwith and without\b|\bon (?:vs\.?|versus|and) off\b", re.I)


def arms_share_setup(facts: Facts) -> Claim | None:
    """The reporter's statement that every arm of a comparison ran on one setup (_ARMS_SHARE), or None: not asked,
    and with no difference named in the sentence (_DIFFERENCE_NAMED) nor the one difference named in the text
    (_ONE_DIFFERENCE)."""
    for source, text in texts(facts):
        if _ONE_DIFFERENCE.search(text):
            continue
        for sentence in sentences(text):
            m = _ARMS_SHARE.search(sentence)
            if m and not asked(sentence) and not _DIFFERENCE_NAMED.search(sentence):
                return Claim("arms_share_setup", source, _quote(sentence, m, 80))
    return None
