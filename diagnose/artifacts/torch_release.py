"""The PyTorch release a ticket runs, as tools print it and people write it.

    PyTorch version: 2.4.0+cu121      (collect_env)
    torch==2.3.1 / [pip3] torch==2.3.1 (pip freeze, collect_env's library list)
    torch                 2.2.1       (pip list)
    torch 2.2.1, PyTorch v2.5.1, torch version is 2.4.0 (prose)

Only what the text says: the release and the CUDA variant of the wheel ("cu121"; "" where none is written). What the
release brings (its NCCL) is rules/catalog/torch_nccl.toml's, read before the rules run (rules/containers.py). A
nightly, a pre-release or a vendor build ("2.4.0a0+3bcc3cd.nv24.07", "2.5.0.dev20240901", "2.3.0+rocm6.0", conda's
"[conda] pytorch 2.1.0") links another NCCL: none is read; a release left behind ("upgraded torch from 2.1.2 to
2.2.1") is not the one running.
"""

from __future__ import annotations

import re

from diagnose.artifacts.text import left_behind
from diagnose.evidence import Note, where

KIND = "torch_release"

# "torch" or "PyTorch" (not torchvision, torch.compile, torchrun), then "==", "version:", "v" or spaces, then a 2.x
# release; a "+cuXXX" local tag is the wheel's CUDA variant; any other suffix (a0, rc1, .dev, +cpu, .nv24.07) or a unit
# after the figure ("torch 2.5 GB") is no release.
RELEASE = re.compile(
    r"(?<![\w.\-/\[])(?:py)?torch(?![\w.\-])\s*(?:version\s*(?:is\s*)?[:=]?\s*|==?\s*|:\s*|\s)\s*v?"
    r"(?P<release>2\.\d{1,2}(?:\.\d{1,2})?)(?:\+(?P<variant>cu\d{3}))?"
    r"(?![\w+]|\.\w|-\d|\s*(?:%|x\b|[KMGT]i?B\b|GPUs?\b|nodes?\b|s\b|ms\b))", re.I)
CONDA = re.compile(r"^\s*\[conda\]", re.I)


def releases(lines: list[tuple[int, str]], name: str) -> list[Note]:
    """One Note per torch release a line names (data release, variant), not one left behind."""
    out = []
    for i, line in lines:
        if CONDA.match(line):
            continue
        for m in RELEASE.finditer(line):
            if left_behind(line, m.start()):
                continue
            variant = (m.group("variant") or "").lower()
            out.append(Note(where(name, i), KIND, m.group(0).strip(),
                            {"release": m.group("release"), "variant": variant}))
    return out
