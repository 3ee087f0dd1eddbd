"""A build without the GPU's architecture (issue 11, newarch35): a framework wheel, an engine's container or a compiled
binary made before its GPU's architecture existed, or built for a list of architectures that omits it. CUDA code runs
on a GPU only as a cubin of its major architecture or as PTX the driver JIT-compiles at start-up (CUDA C++ Programming
Guide, "Application Compatibility"), so such a build either fails ("no kernel image is available", PyTorch's "is not
compatible with the current PyTorch installation") or runs slowly on older kernels and JIT-compiled PTX. The category
is `other` (DESIGN.md has none for software builds; the fix is the build, not the links, the layout or the host)."""
from __future__ import annotations

import functools
import re

from diagnose.evidence import Facts, Measurement, Note
from rules import catalog, claims
from rules.common import claim_ev, ev, make
from rules.engine import rule

ARCH_DOCS = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#application-compatibility"
TORCH_INSTALL = "https://pytorch.org/get-started/locally/"

# The messages a build without the GPU's architecture prints, in the tools' own words:
# - PyTorch's capability check (torch/cuda/__init__.py, _check_capability): "<GPU> with CUDA capability sm_120 is not
#   compatible with the current PyTorch installation. The current PyTorch install supports CUDA capabilities sm_50 ...";
#   its newer form "Found GPU0 <GPU> which is of compute capability (CC) 12.0 ... Your installed torch==... does not
#   include kernels for this GPU", and for a card below the build's oldest "Found GPU0 <GPU> which is of cuda
#   capability 3.5. PyTorch no longer supports this GPU because it is too old."
# - nvcc asked for an architecture newer than the toolkit: "nvcc fatal : Unsupported gpu architecture 'compute_120'".
# - LLVM (Triton, Numba) older than the architecture: "'sm_120' is not a recognized processor for this target".
_TORCH_WARNING = re.compile(r"(?:NVIDIA )?([A-Za-z][\w .()-]{2,60}?) with CUDA capability sm_(\d{2,3})[a-z]? is not "
                            r"compatible with the current PyTorch install", re.I)
_TORCH_FOUND = re.compile(r"Found GPU ?\d{1,2} (?:NVIDIA )?([^\n]{2,60}?) which is of (?:cuda|compute) capability"
                          r"(?: \(CC\))? (\d{1,2})\.(\d)", re.I)
_TORCH_FOUND_CAUSE = re.compile(r"does not include kernels for this GPU|no longer supports this GPU because it is too "
                                r"old", re.I)
_TORCH_SUPPORTS = re.compile(r"PyTorch install supports CUDA capabilities((?:\s{1,3}(?:sm|compute)_\d{2,3}a?){1,24})",
                             re.I)
_NVCC = re.compile(r"Unsupported gpu architecture '(?:compute|sm)_(\d{2,3})[a-z]?'", re.I)
_LLVM = re.compile(r"'sm_(\d{2,3})[a-z]?' is not a recognized processor for this target", re.I)

# A build's CUDA as its tag names it: PyTorch's wheels ("torch 2.7.0+cu118", ".../whl/cu128") and the images and
# binaries tagged the same way ("CU113"). A bare "CUDA 12.4" is left out: it is as often the driver's (nvidia-smi's
# header "CUDA Version: 12.4" is the newest CUDA the driver runs, not a build's: rules/catalog/cuda_versions.toml).
_CU_TAG = re.compile(r"(?<![\w.])(?:\+|whl/|nightly/)?cu(1[0-3])(\d)(?!\d)", re.I)
# The PyTorch release written before a tag ("2.8.0+cu129", "PyTorch 2.8.0 + cu129"), which says the wheel's
# architecture list (rules/catalog/torch_wheel_archs.toml)
_TAG_RELEASE = re.compile(r"\b(2\.\d{1,2}\.\d{1,2})\s?\+\s?$")

# The build's CUDA as the tools print it and people write it (each group the CUDA release):
# - collect_env's "CUDA used to build PyTorch: 12.1" (torch/utils/collect_env.py);
# - torch.version.cuda printed ("torch.version.cuda: 11.8", ">>> torch.version.cuda\n'11.8'", "print(torch.version.cuda)
#   gives 12.1");
# - nvcc's own "Cuda compilation tools, release 12.4, V12.4.131", or "nvcc 11.8" said: the toolkit a build from
#   source compiles with (cuda_versions.toml: nvcc reports the toolkit);
# - conda's pins "pytorch-cuda=11.8", "cudatoolkit=11.3", "cuda-version=12.4".
_BUILT_WITH = re.compile(
    r"CUDA used to build PyTorch:[ \t]{0,8}(1[0-3]\.\d)\b|"
    r"torch\.version\.cuda\)?(?: (?:gives|returns|prints|shows|says|is))?[\s:=>'\"]{0,12}(1[0-3]\.\d)\b|"
    r"Cuda compilation tools,? release (1[0-3]\.\d)\b|"
    r"\bnvcc(?: --version| -V)?(?: (?:says|shows|is|reports|version))?:?[ \t]{1,3}v?(1[0-3]\.\d)\b|"
    r"\b(?:pytorch-cuda|cudatoolkit|cuda-toolkit|cuda-version)[ \t]{0,2}==?[ \t]{0,2}(1[0-3]\.\d)\b", re.I)

# The reporter says the build supports the architecture: "my torch is built for sm_120", "PyTorch 2.7 supports
# Blackwell", "get_arch_list() includes sm_120". Not when negated ("not supported", "doesn't support", "isn't fully
# supported yet") or asked.
_SUPPORTED = re.compile(r"\b(?:supports?|built for|compiled for|compiled with|includes?|lists?)\s+(?:the\s+)?"
                        r"(?:sm_?\d{2,3}|compute capability \d{1,2}\.\d|Blackwell|Hopper|Ada(?: Lovelace)?)\b|"
                        r"\b(?:sm_?\d{2,3}|Blackwell|Hopper|Ada)\s+(?:is|are)\s+(?:now\s+)?supported\b", re.I)
_NEGATION = re.compile(r"\b(?:not|no|never|without)\b|n't\b|\?", re.I)


# (review35b) A message the reporter says is gone since, in the words after it: "I used to get '... is not compatible
# with the current PyTorch installation' but after installing the cu128 nightly that is gone" (what came before it,
# "used to get", "previously saw": claims.said_gone). The build has been changed since; the message is no evidence.
_GONE_AFTER = re.compile(r"^[^.\n]{0,160}?\b(?:(?:is|was|are|were)\s+(?:now\s+)?gone|went away|"
                         r"(?<!not )(?<!never )(?<!n't )disappeared|no longer (?:shows?|appears?|prints?|printed))\b",
                         re.I)


def _said_gone(text: str, m: re.Match) -> bool:
    """Is the message `m` quoted as printed before, or said gone after it?"""
    return claims.said_gone(text, m) or bool(_GONE_AFTER.search(text[m.end():m.end() + 200]))


def _quote(text: str, m: re.Match, pad: int) -> str:
    return claims.one_line(text[max(0, m.start() - pad):m.end() + pad])


def _cc(sm: str) -> float:
    """sm_120 -> 12.0, sm_86 -> 8.6."""
    return int(sm[:-1]) + int(sm[-1]) / 10


def _sm(cc: float) -> str:
    return f"sm_{int(cc)}{round(cc * 10) % 10}"


def arch_messages(facts: Facts) -> list[tuple[claims.Claim, float, str | None, tuple[float, ...]]]:
    """(claim, the GPU's compute capability, the GPU named or None, the capabilities the build lists) for each message
    of a build without the GPU's architecture that the ticket quotes, pasted output first."""
    pasted = {text for _, text in claims.pasted_blocks(facts)}
    out = []
    for source, text in claims.texts(facts) + claims.pasted_blocks(facts):
        listed = tuple(_cc(s) for m in _TORCH_SUPPORTS.finditer(text) for s in re.findall(r"_(\d{2,3})", m.group(1)))
        found = [(m, _cc(m.group(2)), m.group(1).strip()) for m in _TORCH_WARNING.finditer(text)]
        if _TORCH_FOUND_CAUSE.search(text):
            found += [(m, int(m.group(2)) + int(m.group(3)) / 10, m.group(1).strip())
                      for m in _TORCH_FOUND.finditer(text)]
        found += [(m, _cc(m.group(1)), None) for p in (_NVCC, _LLVM) for m in p.finditer(text)]
        for m, cc, gpu in found:
            if text not in pasted and _said_gone(text, m):
                continue
            c = claims.Claim("arch_missing", source, _quote(text, m, 40), {"pasted": text in pasted})
            out.append((c, cc, gpu, listed))
    return sorted(out, key=lambda f: not f[0].data["pasted"])


def _about_another_gpu(facts: Facts, cc: float, gpu: str | None) -> bool:
    """The message names a GPU other than the ticket's, whose own architecture differs: a second card in the box (a
    display card PyTorch warns about) while the job runs on the one the ticket is about."""
    own = facts.subject.gpu if facts.subject is not None else None
    if gpu is None or own is None or own.compute_capability <= 0 or own.compute_capability == cc:
        return False
    named = catalog.resolve_gpu(gpu)
    return named is None or named.key != own.key


def build_tags(facts: Facts) -> list[tuple[claims.Claim, str]]:
    """(claim, CUDA version) of each build the ticket names: a wheel's tag ("+cu118" -> "11.8", its PyTorch release in
    the claim's data where written before it), a tool's line naming the build's CUDA (_BUILT_WITH; in an attached file,
    the parsers' torch_release and build_cuda notes), and an NGC container tag, whose CUDA its release notes state
    (rules/containers.py adds it as a "software" note before the rules run). The driver's "CUDA Version" is none."""
    out = []
    for source, text in claims.texts(facts) + claims.pasted_blocks(facts):
        for m in _CU_TAG.finditer(text):
            before = _TAG_RELEASE.search(text[max(0, m.start() - 12):m.start() + (m.group(0)[0] == "+")])
            data = {"variant": f"cu{m.group(1)}{m.group(2)}", "release": before.group(1) if before else ""}
            out.append((claims.Claim("build_tag", source, _quote(text, m, 30), data), f"{m.group(1)}.{m.group(2)}"))
        for m in _BUILT_WITH.finditer(text):
            version = next(g for g in m.groups() if g)
            out.append((claims.Claim("build_tag", source, _quote(text, m, 20)), version))
    for note in facts.of(Note):  # what the parsers read from attached files (collect_env, pip freeze)
        if note.kind == "torch_release" and note.data.get("variant"):
            cu = note.data["variant"][2:]
            out.append((claims.Claim("build_tag", note.source, note.text, dict(note.data)), f"{cu[:-1]}.{cu[-1]}"))
        elif note.kind == "build_cuda":
            out.append((claims.Claim("build_tag", note.source, note.text), note.data["cuda"]))
        elif note.kind == "software" and note.data.get("derived_from") and "cuda" in note.data:
            version = re.match(r"\d{1,2}\.\d", str(note.data["cuda"]))
            if version:
                out.append((claims.Claim("build_tag", note.source, note.text), version.group(0)))
    return out


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def wheel_without(claim: claims.Claim, cc: float) -> dict | None:
    """The torch_wheel_archs.toml row saying the PyTorch wheel a tag names leaves out compute capability `cc`
    ("2.8.0+cu129" on a Pascal GPU), or None."""
    variant, release = claim.data.get("variant"), claim.data.get("release")
    for row in catalog.torch_wheel_archs():
        if row["variant"] == variant and cc < row["oldest"] and (
                row["alone"] or (release and _version(release) >= _version(row["first_release"]))):
            return row
    return None


def tags_below(facts: Facts, cc: float) -> tuple[list[tuple[claims.Claim, str]], dict | None]:
    """The builds the ticket names that hold no code for the architecture of compute capability `cc` (all of them, or
    none where any named build holds it): a CUDA before the architecture's first (or after its last), or a PyTorch
    wheel whose list leaves it out (wheel_without); with that architecture's gpu_archs.toml row."""
    row = catalog.gpu_archs().get(round(cc, 1))
    tags = build_tags(facts)
    if row is None or not tags:
        return [], row
    old = [(c, v) for c, v in tags if _version(v) < _version(row["min_cuda"])
           or ("last_cuda" in row and _version(v) > _version(row["last_cuda"])) or wheel_without(c, cc)]
    return (old if len(old) == len(tags) else []), row


def same_major_cubin(cc: float, version: str) -> bool:
    """Can a build of CUDA `version` hold a cubin that runs on compute capability `cc`? A cubin runs on GPUs of its
    major architecture at the same or a later minor (CUDA C++ Programming Guide, "Binary Compatibility"), so a build
    made before sm_89 still runs an RTX 4090 on its sm_86 code, untuned for it (no FP8, older library heuristics); a
    new major (sm_90, sm_100, sm_120) has no earlier code it can run, only PTX the driver JIT-compiles, or nothing."""
    return any(int(k) == int(cc) and k < cc and _version(row["min_cuda"]) <= _version(version)
               for k, row in catalog.gpu_archs().items())


def support_said(facts: Facts) -> claims.Claim | None:
    """The reporter's statement that the build supports the GPU's architecture, not negated or asked."""
    for source, text in claims.texts(facts):
        for sentence in re.split(r"(?<=[.!?\n])\s+", text):
            m = _SUPPORTED.search(sentence)
            if m and not _NEGATION.search(sentence[max(0, m.start() - 40):m.end() + 10]):
                return claims.Claim("arch_supported", source, _quote(sentence, m, 40))
    return None


def build_fix(cc: float, row: dict | None) -> str:
    """What to install: a build made with a CUDA that compiles for this architecture."""
    sm = _sm(cc)
    if row is None:
        return (f"Install a build of the framework or engine whose architecture list includes {sm} "
                "(`python -c \"import torch; print(torch.cuda.get_arch_list())\"` shows a PyTorch build's), or build "
                f"it with TORCH_CUDA_ARCH_LIST / CMAKE_CUDA_ARCHITECTURES including {sm}.")
    tag = "cu" + row["min_cuda"].replace(".", "")
    older = (f" ({row['name']} builds stop at CUDA {row['last_cuda']}: take a build of that CUDA or older that still "
             f"lists {sm})") if "last_cuda" in row else ""
    return (f"Install a build made with CUDA {row['min_cuda']} or newer that lists {sm}{older}: for PyTorch a wheel "
            f"from the {tag} index or a later one ({TORCH_INSTALL}), then the libraries with their own CUDA kernels "
            f"(flash-attn, xformers, bitsandbytes, CTranslate2, llama.cpp) in releases built for {sm}, or built from "
            f"source with TORCH_CUDA_ARCH_LIST / CMAKE_CUDA_ARCHITECTURES including {sm}. "
            "`python -c \"import torch; print(torch.cuda.get_arch_list())\"` shows the architectures a PyTorch "
            "build holds.")


@rule("build.arch_missing", "other")
def arch_missing(facts: Facts, predictions=None):
    """The ticket quotes a build's own message that it holds no code for the GPU's architecture (PyTorch's capability
    warning, nvcc's 'Unsupported gpu architecture', LLVM's 'not a recognized processor'): the build is the cause,
    whatever else the ticket shows. Silent where the message names another GPU of another architecture than the
    ticket's (a display card beside the one the job uses)."""
    for c, cc, gpu, listed in arch_messages(facts):
        if _about_another_gpu(facts, cc, gpu):
            continue
        row = catalog.gpu_archs().get(round(cc, 1))
        where = (f" The build lists {', '.join(_sm(x) for x in listed)}." if listed else "")
        arch = f" ({row['name']}, first built by CUDA {row['min_cuda']})" if row else ""
        yield make("build.arch_missing", "other", "warning", 0.6 if c.data["pasted"] else 0.5,
                   f"The build holds no code for this GPU's architecture, {_sm(cc)}",
                   f"The message quoted says the installed build was not compiled for compute capability {cc:g}"
                   f"{arch}.{where} CUDA code runs only as a cubin of the GPU's architecture or as PTX the driver "
                   "compiles at start-up, so such a build fails on this GPU or runs older, slower kernels.",
                   [claim_ev(c, "the build's message")]
                   + ([ev("catalog:gpu_archs.toml", f"first CUDA for {_sm(cc)}: {row['min_cuda']} ({row['source']})")]
                      if row else []),
                   fix=build_fix(cc, row), refs=[ARCH_DOCS, TORCH_INSTALL])
        return


@rule("build.cuda_before_arch", "other")
def cuda_before_arch(facts: Facts, predictions=None):
    """The ticket's GPU with a build (a '+cu113' tag, 'CUDA used to build PyTorch: 11.8', an NGC tag: build_tags) whose
    CUDA predates that GPU's architecture (or, for an architecture CUDA has since dropped, postdates its last release),
    or a PyTorch wheel whose architecture list leaves it out (wheel_without, 0.55), beside a slow run or an error:
    such a build has no code for a GPU of a new major architecture (0.55: PTX JIT-compiled at start-up, or nothing),
    or only an earlier minor's, untuned (0.45: same_major_cubin). Silent where any build the ticket names does build
    for it (the reporter may already run that one), or where a build's own message says so (build.arch_missing)."""
    gpu = facts.subject.gpu if facts.subject is not None else None
    if gpu is None or gpu.compute_capability <= 0 or arch_messages(facts):
        return
    if not (claims.complaint(facts) or claims.symptom(facts) == "error"):
        return  # a crash with no build message (a process killed while loading) is no lead to the build
    old, row = tags_below(facts, gpu.compute_capability)
    if not old:
        return
    c, version = old[0]
    cc = gpu.compute_capability
    wheel = wheel_without(c, cc)
    if wheel is not None:
        yield _wheel_finding(c, cc, wheel, row, gpu.name)
        return
    runs = same_major_cubin(cc, version)
    how = (f"it can still run the GPU on code for an earlier {int(cc)}.x GPU, not tuned for {_sm(cc)} (no features new "
           "to it, the math libraries' older heuristics)" if runs else
           f"it holds no code {_sm(cc)} can run, so the driver JIT-compiles the build's PTX of an older architecture "
           "at start-up (a slow first run, kernels not tuned for this GPU) or, without PTX, the kernels do not run")
    yield make("build.cuda_before_arch", "other", "warning", 0.45 if runs else 0.55,
               f"A build of CUDA {version} on the {gpu.name} ({_sm(cc)}): not built for it",
               f"{row['name']} GPUs are first compiled for by CUDA {row['min_cuda']}"
               + (f" and last by CUDA {row['last_cuda']}" if "last_cuda" in row else "")
               + f"; a build of CUDA {version} predates that, so {how}.",
               [claim_ev(c, "the build named"),
                ev("catalog:gpu_archs.toml", f"the build's CUDA vs the first CUDA for {_sm(cc)} ({row['source']})",
                   float(version), float(row["min_cuda"]))],
               fix=build_fix(cc, row), refs=[ARCH_DOCS, TORCH_INSTALL])


def _wheel_finding(c: claims.Claim, cc: float, wheel: dict, row: dict, gpu: str):
    """build.cuda_before_arch for a PyTorch wheel whose architecture list leaves the GPU out: its CUDA compiles for
    the GPU, the wheel holds no code for it (0.55: nothing it can run)."""
    return make("build.cuda_before_arch", "other", "warning", 0.55,
                f"A PyTorch {wheel['variant']} wheel on the {gpu} ({_sm(cc)}): left out of its architecture list",
                f"PyTorch's {wheel['variant']} wheels from {wheel['first_release']} hold code for compute capability "
                f"{wheel['oldest']:g} and newer only; the {gpu} is {cc:g} ({row['name']}), so the wheel has no kernel "
                "it can run (PyTorch warns that it 'no longer supports this GPU', then kernels fail), although CUDA "
                f"{row.get('last_cuda', row['min_cuda'])} itself still compiles for it.",
                [claim_ev(c, "the wheel named"),
                 ev("catalog:torch_wheel_archs.toml",
                    f"this GPU's architecture vs the wheel's oldest ({wheel['source']})", cc, float(wheel["oldest"]))],
                fix=f"Install the PyTorch {wheel['instead']} wheel (`pip install torch --index-url "
                    f"https://download.pytorch.org/whl/{wheel['instead']}`), whose list still holds {_sm(cc)}; "
                    "`python -c \"import torch; print(torch.cuda.get_arch_list())\"` shows the architectures a build "
                    "holds.", refs=[ARCH_DOCS, TORCH_INSTALL])


# (insuff38) "ComfyUI does not support the 50XX series?", "Would be great if blackwell was supported", "Could you please
# add support for blackwell GPUs?" (Comfy-Org/ComfyUI#7816, oobabooga/textgen#6828, jhj0517/Whisper-WebUI#614): a GPU
# said unsupported, or its support asked for, with no message, build or figure. Where PyTorch's CUDA wheel lines differ
# on that GPU's architecture (one holds it, the other not: torch_wheel_archs.toml against gpu_archs.toml), the answer
# each thread settled is the build: the GPU runs once the framework (and the libraries with their own kernels) come
# from a line that holds it.
# The GPU as named: a catalog GPU ("5070ti", "RTX 5090"), a GeForce series ("RTX 50xx", "50 series", "5000 series":
# one architecture a series, as NVIDIA's CUDA GPUs page lists them), or an architecture's name (gpu_archs.toml).
_SERIES = re.compile(r"\b(?:RTX|GTX)\s?(\d{2})(?:xx|x0|\s?series)\b|\b(\d{2})(?:xx|\s?series|00\s?series)\b", re.I)
_BOARD = re.compile(r"\b(?:(?:GeForce|NVIDIA)\s+)?(?:(?:RTX|GTX)\s?(?:PRO\s?)?)?\d{4}(?:\s?(?:Ti|Super|D))?\b", re.I)
# Asked or said of the GPU: "support(s|ed) (for) X", "X support", "X (is) (currently|still) not supported (yet)",
# "compatible with X", "X 不支持".
_SUPPORT_BEFORE = re.compile(r"\b(?:support(?:s|ed|ing)?|compatib(?:le|ility))\s{1,3}(?:(?:for|with)\s{1,3})?"
                             r"(?:(?:the|my|a|an|new|newer)\s{1,3})?$", re.I)
_SUPPORT_AFTER = re.compile(r"^\s{0,3}(?:(?:(?:graphics\s)?cards?|GPUs?|series|architecture)\s{0,3})?"
                            r"(?:support\b|(?:(?:is|are)\s)?(?:(?:currently|still|officially)\s)?(?:not\s|n't\s)?"
                            r"(?:yet\s)?(?:supported|compatible)\b|"
                            r"(?:was|were|be)\s(?:fully\s)?supported\b|\S{0,4}\s{0,3}(?:不)?支持)", re.I)
# ... said to be lacking or asked to be added ("ComfyUI does not support the 50XX series?", "please add support",
# "would be great if ... was supported", "不支持"): a bare "Is X supported?" is left alone, its threads settle it every
# way ("Yes", ModelCloud/GPTQModel#1793; "no plans", GeeeekExplorer/nano-vllm#7; a cu128 build, Comfy-Org/ComfyUI#7159).
_WANTED = re.compile(r"\b(?:not|no|n't|without|cannot|can't|unable|missing|lack\w*|add|adding|please)\b|"
                     r"\bwould be (?:great|nice|good) if\b|不支持|不支援", re.I)
# ... not a feature of the GPU ("P2P is not supported on the 5090", "FP8 support on Ada"): another question.
_FEATURE = re.compile(r"\b(?:P2P|peer|NVLink|NVLS|MIG|vGPU|SLI|FP8|FP4|NVFP4|MXFP4|ECC|multi-?GPU|"
                      r"tensor[- ]parallel\w*|TP\s?=?\s?\d|NCCL)\b", re.I)


# (review38b) ... nor the driver's ("my RTX 5090 is not supported by driver 550", "驱动不支持 5090"): a driver older
# than the GPU is another layer than the build, and no wheel line fixes it.
_DRIVER = re.compile(r"\bdrivers?\b|驱动", re.I)


# An error the ticket quotes or names: what it says decides, not the support question beside it.
_FAILED = re.compile(r"\b(?:errors?|exceptions?|Traceback|out of memory|OOM|illegal|segfault|core dumped)\b", re.I)


def _architectures(span: str) -> list[float]:
    """The compute capabilities a GPU name, series or architecture word stands for (empty when none)."""
    archs = catalog.gpu_archs()
    if m := _SERIES.search(span):  # a series' top board stands for its architecture: "RTX 50xx" -> RTX 5090
        n = m.group(1) or m.group(2)
        gpu = catalog.resolve_gpu(f"RTX {n}90") or catalog.resolve_gpu(f"GTX {n}80")
        return [gpu.compute_capability] if gpu is not None else []
    if (gpu := catalog.resolve_gpu(span)) is not None and gpu.compute_capability > 0:
        return [gpu.compute_capability]
    word = span.strip().lower()
    return [cc for cc, row in archs.items() if row["name"].split()[0].lower() == word]


def build_lines_differ(cc: float) -> bool:
    """Do PyTorch's CUDA wheel lines differ on this architecture (torch_wheel_archs.toml): too old for a line's oldest,
    or first built by a CUDA newer than the line its rows point older GPUs to ('instead')?"""
    row = catalog.gpu_archs().get(round(cc, 1))
    return row is not None and any(
        cc < w["oldest"] or _version(row["min_cuda"]) > _version(f"{w['instead'][2:-1]}.{w['instead'][-1]}")
        for w in catalog.torch_wheel_archs())


@functools.cache
def _mention() -> re.Pattern:
    """A GPU as named: a series, a board, or an architecture's name from gpu_archs.toml (built once, not per ticket)."""
    names = [a["name"].split()[0] for a in catalog.gpu_archs().values()]
    return re.compile(_SERIES.pattern + "|" + _BOARD.pattern + r"|\b(?:" + "|".join(map(re.escape, names)) + r")\b",
                      re.I)


def support_asked(facts: Facts) -> tuple[claims.Claim, list[float]] | None:
    """(claim, compute capabilities) where the reporter's own words ask or say whether a GPU is supported, of an
    architecture PyTorch's wheel lines differ on; None otherwise."""
    mention = _mention()
    for source, sentence in claims.own_sentences(facts):  # not a framework or interconnect field
        if _FEATURE.search(sentence) or _DRIVER.search(sentence) or not _WANTED.search(sentence):
            continue
        for m in mention.finditer(sentence):
            if not (_SUPPORT_BEFORE.search(sentence[:m.start()]) or _SUPPORT_AFTER.search(sentence[m.end():])):
                continue
            named = [cc for cc in _architectures(m.group(0)) if build_lines_differ(cc)]
            if named:
                return claims.Claim("support_asked", source, _quote(sentence, m, 50)), named
    return None


def _older_wheels(cc: float) -> str:
    """The PyTorch wheel lines that leave this architecture out as too old, and the line to take instead ('')."""
    rows = [w for w in catalog.torch_wheel_archs() if cc < w["oldest"]]
    if not rows:
        return ""
    return (f" PyTorch's {'/'.join(w['variant'] for w in rows)} wheels hold compute capability {rows[0]['oldest']:g} "
            f"and newer only: take the {rows[0]['instead']} wheels for {_sm(cc)}.")


@rule("build.support_asked", "other")
def support_question(facts: Facts, predictions=None):
    """Software said not to support a GPU, or asked to add it, with nothing run to judge (no build message, no figure,
    no error, hang or crash), for a GPU whose architecture one PyTorch CUDA wheel line holds and another does not: a
    lead to the build, with what to install. Silent for a bare "is it supported?" (settled every way), where a build's
    message or a named build already answers (build.arch_missing, build.cuda_before_arch), where the question is
    about a feature (P2P, FP8, NVLink, tensor parallelism) and where the driver is what is said not to support it."""
    if arch_messages(facts) or facts.of(Measurement) or claims.symptom(facts) in ("hang", "crash", "slow", "scaling"):
        return
    if any(_FAILED.search(text) for _, text in claims.texts(facts) + claims.pasted_blocks(facts)):
        return  # an error quoted or said: its own message decides
    found = support_asked(facts)
    if found is None:
        return
    c, named = found
    gpu = facts.subject.gpu if facts.subject is not None else None
    if gpu is not None and gpu.compute_capability > 0:
        if gpu.compute_capability not in named:
            return  # the ticket's own GPU is another architecture: the question is about some other board
        named = [gpu.compute_capability]
    cc, row = named[0], catalog.gpu_archs()[round(named[0], 1)]
    label = row["name"] if len(named) == 1 else row["name"].split()[0]
    sms = ", ".join(_sm(x) for x in named)
    yield make("build.support_asked", "other", "warning", 0.45,
               f"Whether it runs on {label} ({sms}) depends on the build installed",
               f"CUDA code runs on a GPU only from a build that holds its architecture. {label} GPUs are first "
               f"compiled for by CUDA {row['min_cuda']}" + (f" and last by CUDA {row['last_cuda']}" if "last_cuda" in
                                                            row else "")
               + ", and PyTorch's CUDA wheel lines differ on it, so the same software runs or fails on this GPU by "
               "which line it (and each library with its own CUDA kernels) was installed from.",
               [claim_ev(c, "the question"),
                ev("catalog:gpu_archs.toml", f"first CUDA for {_sm(cc)} ({row['source']})", float(row["min_cuda"]))],
               fix=build_fix(cc, row) + _older_wheels(cc),
               ask="the error or warning printed at start-up and `python -c \"import torch; "
               "print(torch.__version__, torch.cuda.get_arch_list())\"`", refs=[ARCH_DOCS, TORCH_INSTALL])
