"""A model run wholly on the CPU, by the reporter's own setup, asked about its speed: host memory sets the pace.

Decoding one token reads every active weight once (model-configs.md). On a CPU those reads come from system memory,
whose bandwidth (about 40-90 GB/s on a desktop's two channels, a few hundred GB/s on a server socket:
rules/catalog/host_memory.toml) is one or two orders of magnitude below a GPU's, so a few tokens a second for a 7-8B
model is what the hardware gives, not a fault. vLLM's maintainers answer a CPU instance's "< 10 tokens / second" with
that arithmetic ("MEM_BW GB/s / MODEL_WEIGHTS GB = TOKENS/SEC", vllm-project/vllm#7379); llama.cpp's CPU backend and
Ollama without a GPU are memory-bound the same way (ggml-org/llama.cpp#7812: "On CPU the memory bandwidth limits
token/s").

Only a run the reporter set up without a GPU counts: the words say so ("CPU only", "a CPU instance", "no GPU",
`--device cpu`) and the ticket names no GPU at all. A CPU fallback beside a GPU the reporter meant to use ("I have a
3060 but it runs on the CPU") is a fault with its own rules (partial or failed offload), never this answer.
"""

from __future__ import annotations

from diagnose import lazy_re as re
from diagnose.evidence import Facts, GpuFact, Measurement, Workload
from rules import claims, hearsay
from rules.common import ev, make
from rules.engine import FAILURES, rule

VLLM_CPU = "https://github.com/vllm-project/vllm/issues/7379"
LLAMACPP_CPU = "https://github.com/ggml-org/llama.cpp/issues/7812"
HOST_MEMORY = "https://docs.vllm.ai/en/latest/getting_started/installation/cpu.html"

# The run set up on the CPU, as reporters and the engines write it: "CPU only" / "CPU-only", "on (the) CPU only",
# "only (on the) CPU", a CPU instance / machine / server / VM, CPU inference or backend or mode, no (dedicated) GPU,
# the engines' CPU switches (vLLM's VLLM_TARGET_DEVICE=cpu and --device cpu, PyTorch's device="cpu", transformers'
# device_map="cpu"), and in Chinese 纯CPU / 只用CPU / CPU推理 / 没有(GPU|显卡).
_CPU_ONLY = re.compile(
    r"\bCPU[- ]only\b|\bonly\s+(?:on\s+)?(?:the\s+|a\s+|my\s+)?CPUs?\b|"
    r"\b(?:on|with|using)\s+(?:the\s+|a\s+|my\s+)?CPUs?\s+only\b|"
    r"\bCPU\s+(?:instance|machine|server|node|box|VM|backend|mode|inference)s?\b|"
    r"\b(?:no|without(?:\s+(?:a|any))?|(?:do\s+not|don['’]t|doesn['’]t|does\s+not)\s+have\s+(?:a|any))\s+"
    r"(?:dedicated\s+|discrete\s+|NVIDIA\s+)?(?:GPUs?|graphics\s+cards?)\b|"
    r"--device[= ]cpu\b|\bdevice(?:_map)?\s*=\s*[\"']cpu[\"']|\bVLLM_TARGET_DEVICE\s*=\s*cpu\b|"
    r"纯\s*CPU|只用\s*CPU|仅用\s*CPU|CPU\s*推理|没有\s*(?:GPU|显卡)|无\s*显卡", re.I)
# A GPU the run could be using: named in the words or in a tool's output. What _CPU_ONLY matched is taken out first
# ("no GPU" is no GPU), and so is a template's empty "### GPU" heading.
# (review36) Also inside an engine's option, where "_" joins it to the next word: n_gpu_layers, num_gpu, gpu_layers,
# and llama.cpp's -ngl (its short form): offload asked for is a GPU the run should be using.
# (risks37) And offload, in either direction: llama.cpp's "offloaded 20/33 layers" go to a GPU, and vLLM's
# --cpu-offload-gb or "the rest on the CPU" moves weights off one: either way a GPU runs part of the model.
_GPU_WORD = re.compile(r"(?<![A-Za-z])GPUs?(?![A-Za-z])|\bCUDA\b|\bcuda:\d|\.cuda\(\)|nvidia-smi|显卡|\bVRAM\b|"
                       r"(?<![\w-])-ngl\b|\b(?:graphics|video)\s+cards?\b|\boffload\w*", re.I)
_EMPTY_HEADING = re.compile(r"(?m)^\s*#{1,6}\s*GPU\s*$")
# (review37b) Offload ruled out ("I offload nothing", "no offloading", "without offload", "-ngl 0") names no GPU.
_NO_OFFLOAD = re.compile(r"\b(?:no|not|without|never|nothing\s+to)\s+(?:\w+\s+)?offload\w*|"
                         r"\boffload\w*\s+(?:nothing|no\s+layers|0\s+layers)\b|(?<![\w-])-ngl\s+0\b", re.I)
# What the words say of a run on the CPU in the first place: a fallback ("falls back to the CPU"), a CPU used
# instead of something else, or the CPU as a load ("CPU only at 50 %"): no setup of the reporter's.
# (risks37) Nor one part of the work on the CPU (the tokenizer, pre- or post-processing, sampling, data loading: what
# the engines run on the host beside a GPU's forward pass), nor a CPU build of a package (torch's "+cpu" wheel, a
# CPU-only build: which software is installed, not a machine set up without a GPU; pip pulling it onto a GPU box is
# the cause of the slowness, not host memory's pace).
_NOT_SETUP = re.compile(r"\b(?:instead\s+of|rather\s+than|fall(?:s|ing)?\s+back|fell\s+back|switch\w*\s+to)\b|"
                        r"\b(?:usage|load|utili[sz]ation)\b|%|"
                        r"\b(?:tokeni[sz]\w*|detokeni[sz]\w*|pre-?process\w*|post-?process\w*|sampl(?:er|ing)|"
                        r"data[- ]?load\w*|dataloader)\b|"
                        r"\b(?:by\s+mistake|accidentally)\b|\+cpu\b", re.I)
_BUILD_AFTER = re.compile(r"^\s*(?:\w+\s+)?(?:wheel|build|package|binar(?:y|ies)|version)\b", re.I)
# (risks37) A fallback said anywhere in the ticket ("ollama runs in CPU mode ... it falls back to CPU mode"): the run
# was meant for a GPU, whichever sentence says CPU first.
_FALLBACK = re.compile(r"\b(?:fall(?:s|ing)?|fell)\s+back\s+(?:\w+\s+){0,2}?CPU|\bCPU\s+fallback\b", re.I)
# (review37b) ... said of the reporter's run: not someone else's ("in another thread someone said it falls back to
# CPU"), not asked ("does it fall back to CPU?") nor supposed ("if the driver is missing it falls back to CPU").
# (rules/hearsay.py reads whose it is)


def _fallback_said(sentence: str) -> bool:
    m = _FALLBACK.search(sentence)
    return bool(m) and not (hearsay.elsewhere(sentence[:m.start()]) or claims.asked_at(sentence, m.start())
                            or claims.conditional(sentence[:m.start()], when=False))


# (review36) ... nor the engine not seeing or not using a GPU ("No NVIDIA GPU detected", "no GPU is used", "the GPU is
# not recognised"): a GPU the reporter has, which the run misses, is a fault (a container without --gpus, a build
# without CUDA), not a CPU set up on purpose.
_GPU_MISSED = re.compile(r"\b(?:GPUs?|graphics\s+cards?|CUDA)\b[^.\n]{0,20}?\b(?:detected|found|recogni[sz]ed|used|"
                         r"utili[sz]ed|visible|picked\s+up|in\s+use)\b", re.I)
_CLAUSE_SEPS = ("，", ",", "；", ";")
# A speed the ticket asks about: a rate or a time the run measured, or a complaint in speed words.
_SPEED_METRICS = ("decode_tok_s", "output_tok_s", "itl_ms", "tpot_ms", "ttft_ms", "e2e_latency_ms")
_SPEED = re.compile(r"\bslow|\bspeed|\bfast|latenc|throughput|\btok\w*\s*/\s*s|tokens?\s+(?:per|a|/)\s*s|慢|速度",
                    re.I)


def _gpu_named(facts: Facts) -> bool:
    """Does the ticket name a GPU anywhere: a parsed GPU, a workload's GPU or count, or a GPU word in the text?"""
    if facts.of(GpuFact) or getattr(facts.subject, "gpu", None) is not None:
        return True
    if any(w.gpu or w.gpu_count for w in facts.of(Workload)):
        return True
    return any(_GPU_WORD.search(_NO_OFFLOAD.sub(" ", _EMPTY_HEADING.sub("", _CPU_ONLY.sub(" ", text))))
               for _, text in claims.texts(facts))


def cpu_only_said(facts: Facts) -> tuple[str, str] | None:
    """(source, sentence) where the reporter says the run is set up on the CPU alone, said as fact: not negated
    ("not CPU only"), not a guess or question ("should I try CPU only?"), not a condition ("if I run CPU only"), not
    a fallback or a load figure."""
    if any(_fallback_said(sentence) for _, text in claims.texts(facts) for sentence in claims.sentences(text)):
        return None
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            for m in _CPU_ONLY.finditer(sentence):
                near = sentence[max(0, m.start() - 40):m.end() + 40]
                # its own clause decides a question: "纯CPU推理 Qwen-7B，速度很慢，正常吗？" asks about the speed
                start = max(sentence.rfind(sep, 0, m.start()) for sep in _CLAUSE_SEPS) + 1
                ends = [i for sep in _CLAUSE_SEPS if (i := sentence.find(sep, m.end())) >= 0]
                clause = sentence[start:min(ends, default=len(sentence))]
                if claims.negated_words(sentence, m) or claims.guessed(clause) \
                        or claims.conditional(sentence[:m.start()]) or _NOT_SETUP.search(near) \
                        or _BUILD_AFTER.search(sentence[m.end():]) \
                        or _GPU_MISSED.search(sentence):
                    continue
                return source, claims.one_line(sentence[:240])
    return None


@rule("ticket.cpu_only_run", "expected_physics")
def cpu_only_run(facts: Facts, predictions=None):
    """A speed question about a model the reporter runs on the CPU alone, with no GPU in the ticket: decode reads
    every weight from host memory, a bandwidth far below a GPU's, so the rate is the hardware's. A modest answer
    (0.5): it rests on the reporter's words and the hardware class, not on a figure set against the host's
    bandwidth."""
    said = claims.symptom_quote(facts)
    if said is None or said[2] in FAILURES:
        return  # an error, a hang or a crash on the CPU is that failure's, not the memory's
    shortfall = claims.complaint(facts)
    if not any(m.metric in _SPEED_METRICS for m in facts.of(Measurement)) \
            and not (shortfall is not None and _SPEED.search(shortfall.quote)):
        return  # no speed asked about ("RAM stays unused" on a CPU-only box is a memory question)
    found = cpu_only_said(facts)
    if found is None or _gpu_named(facts):
        return
    yield make("ticket.cpu_only_run", "expected_physics", "info", 0.5,
               "The model runs on the CPU alone: host-memory bandwidth sets the decode rate",
               "Each generated token reads every active weight once. On the CPU those reads come from system memory "
               "(tens of GB/s on a desktop, a few hundred on a server socket), one or two orders of magnitude below a "
               "GPU's memory, so the rate is about the memory bandwidth divided by the weights' bytes: a few tokens a "
               "second for a 7-8B model in 16 or 32 bits. More CPU threads do not raise it once the memory is busy.",
               [ev(found[0], f'the run as the reporter sets it up: "{found[1]}"'),
                ev(said[0], f'what the reporter asks: "{claims.one_line(said[1][:200])}"')],
               fix="Nothing is broken. For more speed: fewer bytes per token (a 4- or 8-bit quantisation in bf16 "
               "rather than fp32), every memory channel populated, or a GPU that holds the model.",
               refs=[VLLM_CPU, LLAMACPP_CPU, HOST_MEMORY])
