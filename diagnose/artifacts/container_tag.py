"""NGC container tags named in a ticket ("nvcr.io/nvidia/pytorch:23.11-py3", "tritonserver:24.05-trtllm-python-py3").

Only what the text says: the image, the YY.MM release and the variant after it. What the release ships (NCCL, CUDA,
driver) is rules/catalog/ngc_containers.toml's, read at the pipeline boundary (diagnose/pipeline.py).
"""

from __future__ import annotations

import re

from diagnose.evidence import Note, where

KIND = "container_tag"

# NGC's monthly tags are YY.MM; an image outside nvcr.io/nvidia/ ("pytorch/pytorch:2.1.0-cuda12.1", a user's
# "myorg/pytorch:23.11") is not NVIDIA's, so a bare name counts only where no other registry path precedes it.
TAG = re.compile(r"(?:(?<![\w./-])|(?<=nvcr\.io/nvidia/))"
                 r"(?P<image>pytorch|tritonserver|tensorrt|tensorflow|paddlepaddle|nemo|jax|tensorrt-llm)"
                 r":(?P<release>\d{2}\.\d{2})(?:-(?P<variant>[\w.-]*\w))?(?![\w.])", re.I)


def tags(lines: list[tuple[int, str]], name: str) -> list[Note]:
    """One Note per container tag on a line: data image, release, variant ("" for none) and the tag as written."""
    out = []
    for i, line in lines:
        for m in TAG.finditer(line):
            out.append(Note(where(name, i), KIND, m.group(0), {
                "image": m.group("image").lower(), "release": m.group("release"),
                "variant": (m.group("variant") or "").lower()}))
    return out
