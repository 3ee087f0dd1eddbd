"""`nvidia-smi nvlink -s` / `--status` (and `-e` error counters): one NvLinkFact per GPU link.

`GPU 0: NVIDIA A100-SXM4-80GB (UUID: ...)` opens a GPU; `Link 4: 25 GB/s` is an active link,
`Link 4: <inactive>` an inactive one. Health-check logs that quote the same lines
(`GPU 0 has nvlinks inactive: Link 4: Inactive`) are read the same way. Error counter lines
(`Link 0: Replay Errors: 0`) attach to the link's status; a link whose status the text does not
show becomes a Note, since its being up or down is not known. A paste cut with `...` leaves the
GPU it cut inside not reported (a Note), never read as the few links printed before the cut.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import clean_lines
from diagnose.evidence import GpuFact, Note, NvLinkFact, where

KIND = "nvlink_status"

# The UUID in parentheses may be redacted in a paste (`(UUID: GPU-xxx)`): it is still not part of the name.
_GPU = re.compile(r"^\s*GPU\s+(\d{1,3})\s*:\s*((?:[A-Za-z].*?)?)\s*(?:\(UUID:\s*([^)]*?)\s*\)?)?\s*$")
_UUID = re.compile(r"GPU-[0-9a-fA-F]+(?:-[0-9a-fA-F]+)+")
_GPU_IN_TEXT = re.compile(r"\bGPU\s+(\d+)\b(?=[^:]*nvlinks?\b)", re.I)
_LINK = re.compile(r"\bLink\s+(\d+)\s*:\s*(.*?)\s*(?=\bLink\s+\d+\s*:|$)")
_SPEED = re.compile(r"^(?:Speed\s*:?\s*)?(\d+(?:\.\d+)?)\s*GB/s", re.I)
_INACTIVE = re.compile(r"^<?\s*(?:inactive|down|disabled)\s*>?", re.I)
_ERROR = re.compile(r"^([A-Za-z][A-Za-z .]*?)\s*(?:Errors?)?\s*:\s*(\d+)$")
# nvidia-smi's line for a GPU without an active NVLink: read by detect() and parse() alike.
_ALL_INACTIVE = re.compile(r"all links are in\s*active", re.I)
_CUT = re.compile(r"^\s*(?:\.{3,}|…)\s*(?:<?\s*snip\w*\s*>?\s*(?:\.{3,}|…)?)?\s*$", re.I)


def detect(text: str) -> float:
    head = text[:200_000]
    links = len(re.findall(r"\bLink\s+\d+\s*:\s*(?:\d+(?:\.\d+)?\s*GB/s|<?inactive>?|Inactive)", head, re.I))
    if links and re.search(r"(?m)^[^\S\n]*GPU\s+\d+\s*:|GPU\s+\d+ has nvlinks", head):
        return 0.95 if links >= 2 else 0.7
    if _ALL_INACTIVE.search(head):
        return 0.8
    if len(re.findall(r"\bLink\s+\d+\s*:\s*\w[\w ]*Errors?\s*:\s*\d+", head)) >= 2:
        return 0.8
    return 0.0


def parse(text: str, name: str) -> list:
    records: list = []
    # A GPU is known by its UUID where the header gives one, so `-s` and `-e` of one GPU merge
    # while the same index on two nodes stays two GPUs.
    links: dict[tuple, NvLinkFact] = {}
    errors: dict[tuple, tuple[str, dict]] = {}
    gpu: int | None = None
    uuid: str | None = None
    seen_gpus: set = set()
    cut: dict[tuple, str] = {}  # (gpu, uuid) -> where the paste was cut inside its link list
    for i, line in enumerate(clean_lines(text)):
        src = where(name, i + 1)
        if _CUT.match(line):
            if gpu is not None:
                cut.setdefault((gpu, uuid), src)
            continue
        header = _GPU.match(line)
        if header and "Link" not in line:
            gpu = int(header.group(1))
            uuid = header.group(3) if header.group(3) and _UUID.fullmatch(header.group(3)) else None
            model = header.group(2).strip() or None
            if (model or uuid) and (gpu, uuid) not in seen_gpus:
                seen_gpus.add((gpu, uuid))
                records.append(GpuFact(src, index=gpu, name=model, uuid=uuid))
            continue
        if _ALL_INACTIVE.search(line):
            records.append(Note(src, "nvlink_all_inactive", line.strip(), {"gpu": gpu}))
            continue
        mention = _GPU_IN_TEXT.search(line)
        if mention:
            gpu, uuid = int(mention.group(1)), None
        for m in _LINK.finditer(line):
            link, rest = int(m.group(1)), m.group(2)
            key = (gpu, uuid, link)
            speed, error = _SPEED.match(rest), _ERROR.match(rest)
            if speed:
                fact = NvLinkFact(src, gpu, link, True, speed_gbs=float(speed.group(1)))
            elif _INACTIVE.match(rest):
                fact = NvLinkFact(src, gpu, link, False)
            elif error:
                errors.setdefault(key, (src, {}))[1][_error_name(error.group(1))] = int(error.group(2))
                continue
            else:
                continue
            if key not in links:
                links[key] = fact
                records.append(fact)
    if cut:
        # the links printed before the cut are some of that GPU's links, not its count
        dropped = {id(fact) for (g, u, _link), fact in links.items() if (g, u) in cut}
        records = [r for r in records if id(r) not in dropped]
        records += [Note(src, "nvlink_paste_cut", f"GPU {g}: the paste was cut ('...') inside its links; they are "
                                                  "not reported", {"gpu": g}) for (g, _u), src in cut.items()]
    for key, (src, counts) in errors.items():
        if key in links:
            links[key].errors.update(counts)
        else:
            gpu, _, link = key
            summary = ", ".join(f"{k}={v}" for k, v in counts.items())
            records.append(Note(src, "nvlink_errors", f"GPU {gpu} link {link}: {summary}",
                                {"gpu": gpu, "link": link, "errors": counts}))
    return records


def _error_name(raw: str) -> str:
    """'Replay Errors' -> 'replay', 'CRC Errors' -> 'crc', 'Recovery' -> 'recovery'."""
    raw = re.sub(r"\s*errors?$", "", raw.strip(), flags=re.I)
    return re.sub(r"\W+", "_", raw).strip("_").lower()
