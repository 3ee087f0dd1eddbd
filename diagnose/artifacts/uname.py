"""The Linux kernel release: `uname -r`, `uname -a`, `/proc/version` (and dmesg's first line), one
HostFact("kernel", release).

The release names the kernel's build: `5.15.0-91-generic` (Ubuntu), `5.15.153.1-microsoft-standard-WSL2`
(the kernel Microsoft ships for WSL 2, a Hyper-V utility VM), `4.4.0-19041-Microsoft` (WSL 1). What a
release means (a VM, a WSL guest) is for the rules.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import clean_lines
from diagnose.evidence import HostFact, where

KIND = "uname"

_RELEASE = r"(\d+\.\d+(?:\.\d+){0,2}-[\w.+~-]*[A-Za-z][\w.+~-]*)"
_FORMS = (
    re.compile(rf"^\s*Linux\s+\S+\s+{_RELEASE}\s+#\d+"),  # uname -a: Linux HOST RELEASE #1 SMP ...
    re.compile(rf"\bLinux version\s+{_RELEASE}(?:\s|$)"),  # /proc/version, dmesg's first line
    re.compile(rf"^\s*(?:\$\s*uname\s+-r\s*)?{_RELEASE}\s*$"),  # uname -r: the release alone on its line
)


def _releases(text: str) -> list[tuple[int, str]]:
    out = []
    for i, line in enumerate(clean_lines(text[:2_000_000])):
        for form in _FORMS:
            m = form.search(line)
            if m:
                out.append((i, m.group(1)))
                break
    return out


def detect(text: str) -> float:
    found = _releases(text)
    # a bare "X.Y.Z-word" line is a release only where another line asked for it or it names a kernel flavour
    strong = any(re.search(r"generic|microsoft|WSL|amd64|aws|azure|gcp|el\d|fc\d|lowlatency|server", r, re.I)
                 for _, r in found)
    return 0.9 if found and (strong or re.search(r"\buname\b|Linux version", text[:200_000])) else 0.0


def parse(text: str, name: str) -> list:
    return [HostFact(where(name, i + 1), "kernel", release) for i, release in _releases(text)][:1]
