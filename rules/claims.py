"""What the reporter's own words state, read from the description and hardware notes.

A support engineer reads the ticket text too: "inside a KVM guest", "it slows down steadily",
"2.5.6 was faster than 2.7.8". These are facts with the weakest provenance (the reporter said
so), so rules that use them quote them and keep their confidence moderate. The patterns are
families of phrasings for one physical situation, never one ticket's sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from diagnose.evidence import Facts, Note, Workload

# Which text a claim may come from: the reporter's description, and the free-text hardware /
# software fields a ticket.toml carries.
_TEXT_KINDS = ("description", "software", "hardware", "interconnect", "comment")


@dataclass
class Claim:
    kind: str
    source: str
    quote: str
    data: dict[str, Any] = field(default_factory=dict)


def texts(facts: Facts) -> list[tuple[str, str]]:
    """(source, text) of every free-text statement the reporter made."""
    out = []
    for n in facts.of(Note):
        if n.kind in _TEXT_KINDS and n.text:
            src = n.source if n.kind == "description" or "(" in n.source else f"{n.source} ({n.kind})"
            out.append((src, n.text))
    for w in facts.of(Workload):
        if w.interconnect:
            out.append((f"{w.source} (interconnect)", w.interconnect))
        if w.framework:
            out.append((f"{w.source} (framework)", w.framework))
    return out


def _quote(text: str, m: re.Match, pad: int = 50) -> str:
    a, b = max(0, m.start() - pad), min(len(text), m.end() + pad)
    snippet = text[a:b].strip()
    return ("…" if a else "") + snippet + ("…" if b < len(text) else "")


# One physical situation per entry; several phrasings each.
PATTERNS: dict[str, list[str]] = {
    "virtualized": [
        r"\bvirtual machines?\b", r"\bVMs?\b", r"\bKVM\b", r"\b(?:VM|KVM|hypervisor) guest\b",
        r"\bguest (?:OS|VM)\b", r"\bhypervisor\b", r"\bpassed[- ]through\b", r"\bpass-?through\b", r"\bvGPU\b",
        r"\bSR-IOV\b", r"\bvirtuali[sz]ed\b", r"\bNCv\d\b|\bND\w*v\d\b",
    ],
    "container": [r"\bdocker\b", r"\bcontainers?\b", r"\bkubernetes\b|\bk8s\b", r"\bpods?\b", r"\bsingularity\b|\bapptainer\b|\benroot\b"],
    "slowdown_over_time": [
        r"(?:degrad\w*|slow(?:s|ing|ed)? down|slower|drops?|dropping|decreas\w*|declin\w*)[^.]{0,60}?"
        r"(?:over time|steadily|gradually|progressively|over (?:a |the )?long(?:er)? run|over (?:minutes|hours)|the longer it runs|after (?:a few|some|several) (?:minutes|hours))",
        r"(?:steadily|gradually|progressively|monotonic\w*)\s+(?:degrad\w*|slow\w*|drop\w*|decreas\w*|declin\w*)",
        r"\bthermal(?:ly)? throttl\w*|\boverheat\w*",
    ],
    "multi_node": [
        r"\bmulti-?node\b", r"\binter-?node\b", r"\bacross (?:two|several|multiple|\d+) (?:nodes|servers|hosts|machines)\b",
        r"\bbetween (?:the )?(?:two|\d+) (?:nodes|servers|hosts|machines)\b", r"\b(?:two|\d+) (?:nodes|servers|hosts|machines)\b",
    ],
    "hang": [r"\bhangs?\b|\bhung\b|\bhanging\b", r"\bstuck\b", r"\bfreez\w*\b", r"\bdeadlock\w*\b", r"\bnever (?:finishes|completes|returns)\b"],
    "no_cpu_binding": [
        r"without (?:any )?(?:cpu|numa|memory|process)[\w ,/-]{0,30}?(?:binding|pinning|affinity)",
        r"\bno (?:cpu |numa |memory )?(?:binding|pinning)\b", r"\bnot (?:pinned|bound)\b", r"\bunpinned\b",
        r"\bwithout (?:numactl|taskset)\b",
    ],
    "multi_socket": [
        r"\bdual[- ]socket\b", r"\b(?:two|2|four|4) (?:cpu )?sockets\b", r"\b(?:2|4)\s*x\s*(?:AMD |Intel )?(?:EPYC|Xeon)\b",
        r"\btwo (?:cpu )?numa\b", r"\b(?:2|two)[- ]socket\b",
    ],
    "no_p2p": [
        r"(?:not|n't|never|no longer)\s+(?:use|using|uses|enable|enabling|enabled)\s+(?:the\s+)?(?:P2P|NVLink|peer[- ]to[- ]peer)",
        r"\bP2P (?:is )?(?:not (?:supported|available|enabled)|disabled|unavailable)\b", r"\bno P2P\b",
    ],
}

_VERSION = re.compile(r"(?<![\d.])([12]\.\d{1,2}(?:\.\d{1,2})?)(?![\d.]*\d)")
# A version number right after another product's name is that product's version.
_OTHER_PRODUCT = re.compile(
    r"(?:nccl-tests|cuda|driver|torch|pytorch|vllm|sglang|python|ubuntu|tensorflow|transformers|ofed|ucx|"
    r"openmpi|mpi|rocm|trt-llm|tensorrt|deepspeed|megatron|ray|kernel|flash[-_ ]?attn|flash[-_ ]?attention|triton|"
    r"xformers|numpy|jax|accelerate|apex|nemo|slurm|docker|gcc|v)\W{0,3}$",
    re.I,
)


def nccl_versions(text: str) -> list[str]:
    """NCCL versions named in a text that talks about NCCL ('from 2.22 to 2.25', '2.5.6 faster')."""
    if not re.search(r"\bNCCL\b", text, re.I):
        return []
    found: list[str] = []
    for m in _VERSION.finditer(text):
        if _OTHER_PRODUCT.search(text[max(0, m.start() - 16):m.start()]):
            continue
        if m.group(1) not in found:
            found.append(m.group(1))
    return found


_REGRESS_WORDS = re.compile(
    r"\b(?:slower|faster|drop\w*|regress\w*|lower|worse|better|only|upgrad\w*|downgrad\w*|lost|loses|degrad\w*)\b", re.I
)
_SETTING = re.compile(r"\b((?:NCCL|CUDA|TORCH_NCCL|NVIDIA)_[A-Z0-9_]+)\s*=\s*([^\s,;)'\"`]+)")
_SMI_SLOW = re.compile(
    r"nvidia-smi[^.\n]{0,80}?\b(?:takes?|took|needs?|needed|requires?)\s+(?:about |around |~|over |more than )?(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds|min|minutes)\b",
    re.I,
)


# "no thermal throttling", "not in a VM", "without hangs": the reporter rules the situation out.
_NEGATION = re.compile(r"\b(?:no|not|never|without|isn't|aren't|wasn't|don't|doesn't|didn't|nor|ruled out)\b[\w\s,-]{0,20}$", re.I)
# Kinds whose patterns carry the negation themselves.
_NEGATIVE_KINDS = ("no_cpu_binding", "no_p2p")


def _first_affirmed(kind: str, patterns: list[str], text: str):
    for p in patterns:
        for m in re.finditer(p, text, re.I):
            if kind in _NEGATIVE_KINDS or not _NEGATION.search(text[max(0, m.start() - 30):m.start()]):
                return m
    return None


def claims(facts: Facts) -> list[Claim]:
    """Every claim found in the reporter's text, in order."""
    out: list[Claim] = []
    for source, text in texts(facts):
        for kind, patterns in PATTERNS.items():
            m = _first_affirmed(kind, patterns, text)
            if m:
                out.append(Claim(kind, source, _quote(text, m)))
        versions = nccl_versions(text)
        if len(versions) >= 2 and _REGRESS_WORDS.search(text):
            m = re.search(r"\bNCCL\b", text, re.I)
            out.append(Claim("nccl_versions_compared", source, _quote(text, m, 120), {"versions": versions}))
        for m in _SETTING.finditer(text):
            value = m.group(2).rstrip(".")
            out.append(Claim("setting", source, _quote(text, m, 30), {"name": m.group(1), "value": value}))
        m = _SMI_SLOW.search(text)
        if m:
            seconds = float(m.group(1)) * (60 if re.search(r"min", m.group(0), re.I) else 1)
            out.append(Claim("nvidia_smi_slow", source, _quote(text, m), {"seconds": seconds}))
    return out


def find(facts: Facts, kind: str) -> list[Claim]:
    return [c for c in claims(facts) if c.kind == kind]


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])
