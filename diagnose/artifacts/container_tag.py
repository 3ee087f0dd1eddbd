"""NGC container tags named in a ticket ("nvcr.io/nvidia/pytorch:23.11-py3", "tritonserver:24.05-trtllm-python-py3"),
and the same release said in words ("the NGC PyTorch 24.05 container", "NGC 23.11", "the 24.01 container").

Only what the text says: the image ("" where the words name none), the YY.MM release and the variant after it. What
the release ships (NCCL, CUDA, driver) is rules/catalog/ngc_containers.toml's, read before the rules run
(rules/containers.py).
"""

from __future__ import annotations

import re

from diagnose.evidence import Note, where

KIND = "container_tag"

# NGC's monthly tags are YY.MM; an image outside nvcr.io/nvidia/ ("pytorch/pytorch:2.1.0-cuda12.1", a user's
# "myorg/pytorch:23.11") is not NVIDIA's, so a bare name counts only where no other registry path precedes it. A full
# stop after the tag ends the sentence ("... nvcr.io/nvidia/pytorch:24.05."); a digit after it is another tag.
TAG = re.compile(r"(?:(?<![\w./-])|(?<=nvcr\.io/nvidia/))"
                 r"(?P<image>pytorch|tritonserver|tensorrt|tensorflow|paddlepaddle|nemo|jax|tensorrt-llm|vllm)"
                 r":(?P<release>\d{2}\.\d{2})(?:-(?P<variant>[\w.-]*\w))?(?![\w]|\.\w)", re.I)


# The same release in words. NGC's monthly releases are YY.MM from 17.xx on; the words around it must say it is NVIDIA's
# container ("NGC", or "container"/"image" after the release or after an image name), so "PyTorch 23.11 release notes",
# a date "2023.11", "Ubuntu 22.04 container" (the word before is no article or image) or "CUDA 12.04" stay unread.
_IMAGE_WORDS = {"pytorch": "pytorch", "triton": "tritonserver", "tritonserver": "tritonserver",
                "triton inference server": "tritonserver", "tensorflow": "tensorflow", "paddle": "paddlepaddle",
                "paddlepaddle": "paddlepaddle", "tensorrt": "tensorrt", "tensorrt-llm": "tensorrt-llm",
                "trt-llm": "tensorrt-llm", "nemo": "nemo", "jax": "jax", "vllm": "vllm"}
_IMAGE = r"(?P<image>triton inference server|tensorrt-llm|trt-llm|paddlepaddle|tritonserver|" \
         r"pytorch|triton|tensorflow|paddle|tensorrt|nemo|jax|vllm)"
_REL = r"(?<![\d.])(?P<release>(?:1[7-9]|2\d)\.(?:0[1-9]|1[0-2]))(?![\d.]\d)"
_BOX = r"(?:containers?|images?|docker(?: images?)?)"
WORDS = [re.compile(p, re.I) for p in (
    # "PyTorch container 23.11", "pytorch NGC 24.03", "the Triton Inference Server container 24.05"
    rf"\b{_IMAGE}\s+(?:NGC\s+(?:{_BOX}\s+)?|{_BOX}\s+)(?:release\s+|version\s+|v)?{_REL}",
    # "NGC 23.11", "NGC PyTorch 24.03", "NGC pytorch container release 23.11", "NGC container 24.01"
    rf"\bNGC(?:'s)?\s+(?:{_IMAGE}\s+)?(?:{_BOX}\s+)?(?:release\s+|version\s+|v)?{_REL}",
    # "the 24.01 container", "our 23.11 PyTorch container", "the 24.05 NGC image", "a 24.05 Triton container"
    rf"\b(?:the|a|an|our|my|this|that)\s+{_REL}\s+(?:NGC\s+)?(?:{_IMAGE}\s+)?(?:NGC\s+)?{_BOX}\b",
)]


def tags(lines: list[tuple[int, str]], name: str) -> list[Note]:
    """One Note per container tag on a line, or release said in words: data image ("" for none said), release,
    variant ("" for none) and the words as written."""
    out = []
    for i, line in lines:
        for m in TAG.finditer(line):
            out.append(Note(where(name, i), KIND, m.group(0), {
                "image": m.group("image").lower(), "release": m.group("release"),
                "variant": (m.group("variant") or "").lower()}))
        rest = TAG.sub(_blank, line)
        for pattern in WORDS:  # each span once: "NGC PyTorch container 23.11" is not also "PyTorch container 23.11"
            for m in pattern.finditer(rest):
                image = _IMAGE_WORDS[re.sub(r"\s+", " ", m.group("image").lower())] if m.group("image") else ""
                if not image and "ngc" not in m.group(0).lower() and m.group("release")[3:] in ("04", "10"):
                    continue  # "the 22.04 image": Ubuntu's YY.04 and YY.10 releases are written the same way
                out.append(Note(where(name, i), KIND, m.group(0), {
                    "image": image, "release": m.group("release"), "variant": ""}))
            rest = pattern.sub(_blank, rest)
    return out


def _blank(m: re.Match) -> str:
    return " " * len(m.group(0))
