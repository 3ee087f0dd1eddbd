"""The decode rate of a model that does not sit wholly in GPU memory: where each byte is read per token.

Decoding one token reads every active weight once (model-configs.md). Weights on the GPU are read from its memory at
the pace the predictor calibrates (rules.roofline: the all-in-VRAM prediction's step, scaled to the share of bytes left
there); layers or experts computed on the CPU (llama.cpp / Ollama CPU layers, KTransformers' or llama.cpp's
`--cpu-moe` experts) are read from system memory at the host's bandwidth; weights kept in host memory and copied to the
GPU for every step (vLLM `--cpu-offload-gb`, accelerate's cpu offload, ZeRO-Inference) cross PCIe. The three times add
up: one stream's layers run one after another. An MoE token reads only its active experts' bytes.

Host bandwidth is data (rules/catalog/host_memory.toml): channels x MT/s x 8 bytes per socket, from the CPU the reporter
names or, unnamed, a band over the platform classes that can hold the bytes; what decode achieves of that peak is the
range measured there, on CPU-only decode and on the fit rows of the published offload runs, apart for whole dense
layers and for an MoE's routed experts (which read at a lower share). A prompt is priced the way llama.cpp runs it:
the host-resident weights copied to the GPU for every micro-batch (prompt_pace).
"""

from __future__ import annotations

import dataclasses
import math
import statistics

from diagnose import lazy_re as re

# Engines that hold every weight in GPU memory unless told otherwise: vLLM and SGLang offload only with
# --cpu-offload-gb (default 0: https://docs.vllm.ai/en/latest/configuration/engine_args.html,
# https://docs.sglang.ai/advanced_features/server_arguments.html); TensorRT-LLM, TGI, LMDeploy's TurboMind,
# FasterTransformer and gpt-fast load the whole model onto the GPUs, as DeepSpeed-Inference's init_inference does
# (ZeRO-Inference offloads only when its config says so: https://www.deepspeed.ai/tutorials/inference-tutorial/).
# (llama.cpp, Ollama and accelerate's device_map="auto" spill layers to the CPU instead: ticket.model_over_vram.)
GPU_RESIDENT = ("vllm", "sglang", "trtllm", "tgi", "lmdeploy", "deepspeed", "fastertransformer", "gpt-fast")
# Engines that place layers by what fits and leave the rest in host memory: llama.cpp (--n-gpu-layers,
# https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md) and what runs it (Ollama's num_gpu estimate,
# https://github.com/ollama/ollama/blob/main/docs/faq.md "How can I tell if my model was loaded onto the GPU?": "48%/52%
# CPU/GPU"; koboldcpp; LM Studio), Hugging Face accelerate's device_map="auto" under transformers (GPUs first, then CPU
# and disk: https://huggingface.co/docs/accelerate/usage_guides/big_modeling) and KTransformers (routed experts on the
# CPU by design: https://github.com/kvcache-ai/ktransformers).
PLACES_LAYERS = ("llamacpp", "ollama", "koboldcpp", "lmstudio", "accelerate", "transformers", "ktransformers")

# An engine's name as tickets write it (a catalog key, a framework line, a container image, a program, a Python
# argument), to its family; the more specific first ("ktransformers" before "transformers", TGI's image before
# "huggingface").
_FAMILIES = (
    ("ktransformers", r"k[-_ ]?transformers"),
    ("tgi", r"text[-_ ]?generation[-_ ]?inference|\btgi\b"),
    ("trtllm", r"tensorrt[-_ ]?llm|\btrt[-_ ]?llm"),
    ("vllm", r"vllm|aphrodite"), ("sglang", r"sglang"), ("lmdeploy", r"lmdeploy|turbomind"),
    ("deepspeed", r"deepspeed"), ("fastertransformer", r"faster[-_ ]?transformer"), ("gpt-fast", r"gpt[-_ ]?fast"),
    ("ollama", r"ollama"), ("koboldcpp", r"kobold[-_ ]?cpp"), ("lmstudio", r"lm[-_ ]?studio"),
    ("llamacpp", r"llama[-_. ]?(?:cpp|server|cli|bench)|\bggml\b"),
    ("megatron", r"megatron"), ("exllama", r"exllama"),
    ("textgenerationwebui", r"text[-_ ]?generation[-_ ]?webui|oobabooga"),
    ("accelerate", r"accelerate|device_map"), ("transformers", r"transformers|hugging[-_ ]?face|\bhf\b"),
)


def engine_family(name: str | None) -> str | None:
    """The family of the engine a name writes ('vllm-0.8', 'vLLM 0.6.3', 'vllm/vllm-openai:v0.6.3', 'TensorRT-LLM',
    'llama-server', 'tgi-1.0', 'hf-eager', 'device_map="auto"'), else the catalog's key for an alias it knows; None
    where it names none."""
    text = str(name or "").lower()
    family = next((f for f, words in _FAMILIES if re.search(words, text)), None)
    if family is None and text:
        from rules import catalog

        found = catalog.find_engine(text)
        family = found.key if found is not None else None
    return family


def keeps_weights_on_gpu(name: str | None) -> bool | None:
    """Does this engine keep every weight in VRAM unless told to offload (--cpu-offload-gb, expert offload)? True for
    GPU_RESIDENT, False for one that places layers by what fits (PLACES_LAYERS), None where the name is none or
    neither. One answer for every rule that asks, whatever spelling the ticket uses."""
    family = engine_family(name)
    if family is None:
        return None
    if family.startswith(GPU_RESIDENT):
        return True
    return False if family.startswith(PLACES_LAYERS) else None

# vLLM's --cpu-offload-gb is "the space in GiB to offload to CPU, per GPU"
# (https://docs.vllm.ai/en/latest/configuration/engine_args.html#-cpu-offload-gb); every forward pass copies it in.
GIB = 2**30 / 1e9


@dataclasses.dataclass(frozen=True)
class HostMemory:
    """Peak host-memory bandwidth the CPU part can read at (GB/s, low..high) and how it was found."""

    low_gbs: float
    high_gbs: float
    what: str  # "Xeon Scalable 1st gen (Skylake-SP): 6 x DDR4-2666 = 128 GB/s per socket"
    assumed: bool  # no CPU or memory named: a band over the platform classes


def _table() -> dict:
    """host_memory.toml through rules.catalog, so --catalog / $DIAGNOSE_CATALOG files can add CPU families and rows."""
    from rules import catalog

    return catalog.host_memory()


def max_channels() -> int:
    """The most memory channels a socket of any platform class has (host_memory.toml [class])."""
    return max(c["channels"][1] for c in _table()["class"].values())


def achieved_share(reads: str = "dense") -> tuple[float, float, float]:
    """(lowest, median, highest) share of peak that decode on the CPU reached (host_memory.toml [[achieved]]) for what
    the CPU reads: whole dense layers, or an MoE's routed experts, whose small matrices the measurements show read at
    a lower share. The edges over every row of that kind, the centre over machines, each the median of its own rows
    (one box measured twice is one machine)."""
    rows = [row for row in _table()["achieved"] if row.get("reads", "dense") == reads]
    shares = sorted(row["achieved_gbs"] / row["peak_gbs"] for row in rows)
    machines: dict[str, list[float]] = {}
    for row in rows:
        machines.setdefault(row.get("machine", row["what"]), []).append(row["achieved_gbs"] / row["peak_gbs"])
    return shares[0], statistics.median(statistics.median(v) for v in machines.values()), shares[-1]


def cpu_family(text: str) -> tuple[dict, int] | None:
    """(the CPU family row, the MT/s it lists for this model's tier) of the first family whose pattern the text
    names, else None."""
    for row in _table()["cpu"]:
        m = re.search(row["pattern"], text, re.I)
        if m:
            tiers = row.get("mts_by_tier")
            tier = next((g for g in m.groups() if g), None)  # a pattern may read the tier in either of two forms
            mts = tiers.get(tier, max(tiers.values())) if tiers else row["mts"]
            return row, mts
    return None


def host_memory(cpu: str | None = None, mts: int | None = None, channels: int | None = None,
                sockets: int | None = None, ddr: str | None = None, held_gb: float = 0.0) -> HostMemory:
    """The host's peak read bandwidth for the CPU part. A named CPU gives its channels and fastest listed grade, which
    the reporter's own DDR speed or channel count replace. A second socket adds its channels only for an engine that
    keeps each socket's share local (KTransformers' USE_NUMA, llama.cpp --numa), so two sockets span one to two.
    Nothing named: the classes (desktop, HEDT, server) whose memory holds `held_gb`, slowest to fastest."""
    table = _table()
    family = cpu_family(cpu) if cpu else None
    if family or channels:
        row, listed = family or ({}, None)
        kind = ddr or row.get("ddr") or (("ddr5" if mts >= 4000 else "ddr4") if mts else None)
        if mts or listed:
            slow = fast = mts or listed
            grade = f"{(kind or 'ddr').upper()}-{slow}"
        else:  # channels alone: every JEDEC grade of the generation named, or of both, and said to be assumed
            grades = table["ddr"][kind] if kind else [g for k in table["ddr"].values() for g in k]
            slow, fast = min(grades), max(grades)
            grade = f"{kind.upper() if kind else 'DDR4/DDR5'} at {slow}-{fast} MT/s (speed assumed)"
        ch = channels or row.get("channels") or 2
        name = row.get("family", "stated platform")
        what = f"{name}: {ch} x {grade} = {ch * slow * 8 / 1e3:.0f}" + (
            f"-{ch * fast * 8 / 1e3:.0f}" if fast != slow else "") + " GB/s per socket"
        if (sockets or 1) > 1:
            what += f", {sockets} sockets"
        return HostMemory(ch * slow * 8 / 1e3, ch * fast * 8 / 1e3 * (sockets or 1), what, assumed=fast != slow)
    classes = [c for c in table["class"].values() if c["max_memory_gb"] >= held_gb] or list(table["class"].values())
    low = min(c["channels"][0] * (mts or c["mts"][0]) for c in classes) * 8 / 1e3
    high = max(c["channels"][1] * (mts or c["mts"][1]) for c in classes) * 8 / 1e3 * (sockets or 1)
    names = [k for k, c in table["class"].items() if c in classes]
    what = (f"CPU not named, assumed: a {names[0]} to {names[-1]} platform that holds {held_gb:.0f} GB "
            f"({low:.0f}-{high:.0f} GB/s)")
    return HostMemory(low, high, what, assumed=True)


@dataclasses.dataclass(frozen=True)
class Placement:
    """Where one token's weight bytes are read: GB from host memory by the CPU, GB copied over PCIe, the rest on GPU."""

    cpu_gb: float
    pcie_gb: float
    words: str  # "40 of 81 layers on the CPU"
    reads: str = "dense"  # what the CPU's share is: "dense" layers or an MoE's routed "experts" (achieved_share)
    resident_gb: float = 0.0  # every weight kept in host memory (all experts, not only a token's): what a prompt copies


def resident_layer_gb(p, model) -> float:
    """GB one decoder layer holds in memory (every expert, not only the active ones)."""
    from rules import shapes

    return shapes.decoder_bytes_per_rank(model, 1, p.dtype, group=p.assumptions.get("quant_group")) / model.layers / 1e9


def _model_of(p):
    """The catalog row a prediction is of; for a size stand-in (catalog.base_key) the row it copies."""
    from rules import catalog

    return catalog.models()[catalog.base_key(p.model)]


def layers_on_cpu(p, on_gpu: int, layers: int) -> Placement:
    """llama.cpp / Ollama: `on_gpu` of the model's repeating layers on the GPU, the rest (and the output layer unless
    every layer is offloaded, llama.cpp's n_gpu_layers > n_layer) computed on the CPU from host memory."""
    from rules import shapes

    model = _model_of(p)
    dtype, group = p.dtype, p.assumptions.get("quant_group")
    per_layer = shapes.decoder_bytes_per_rank(model, 1, dtype, experts_touched=model.experts_active or None,
                                              group=group) / model.layers / 1e9
    head = model.lm_head_params() * shapes.edge_bytes(dtype, group) / 1e9
    off = max(0, model.layers - on_gpu)
    cpu = off * per_layer + (head if on_gpu < model.layers else 0.0)
    resident = off * resident_layer_gb(p, model) + (head if on_gpu < model.layers else 0.0)
    return Placement(cpu, 0.0, f"{max(0, layers - on_gpu)} of {layers} layers on the CPU",
                     "experts" if model.is_moe else "dense", resident)


def share_on_cpu(p, cpu_pct: float) -> Placement:
    """Ollama's `ollama ps` split ('48%/52% CPU/GPU'): that share of the model's bytes is read by the CPU."""
    return Placement(p.streamed_gb_per_step * cpu_pct / 100, 0.0, f"{cpu_pct:g} % of the model on the CPU",
                     "experts" if _model_of(p).is_moe else "dense", p.weights_gb_per_gpu * cpu_pct / 100)


def experts_on_cpu(p, first_layers: int | None = None) -> Placement | None:
    """KTransformers / llama.cpp --cpu-moe: the routed experts a token activates are computed on the CPU; attention,
    shared experts and dense layers stay on the GPU. llama.cpp's --n-cpu-moe N keeps only the MoE weights of the
    first N layers on the CPU (https://github.com/ggml-org/llama.cpp/pull/15077): `first_layers`, of which the
    model's leading dense layers hold no experts. None for a dense model."""
    from rules import shapes

    model = _model_of(p)
    if not model.is_moe:
        return None

    dtype, group = p.dtype, p.assumptions.get("quant_group")
    on_cpu = model.moe_layers if first_layers is None else \
        max(0, min(first_layers, model.layers) - model.first_dense_layers)
    one = model.mlp_params(model.expert_ffn) * (shapes.DTYPE_BYTES[dtype] if dtype == "mxfp4"
                                                else shapes.bytes_per_param(dtype, group)) / 1e9
    where = "" if on_cpu == model.moe_layers else f" in {on_cpu} of {model.moe_layers} MoE layers"
    words = f"the {model.experts_active} active routed experts of {model.experts}{where} on the CPU"
    return Placement(on_cpu * model.experts_active * one, 0.0, words, "experts", on_cpu * model.experts * one)


def streamed_over_pcie(gb: float) -> Placement:
    """vLLM --cpu-offload-gb / accelerate cpu offload / ZeRO-Inference: `gb` of weights copied to each GPU each step."""
    return Placement(0.0, gb, f"{gb:.1f} GB of weights copied from host memory every step", resident_gb=gb)


@dataclasses.dataclass(frozen=True)
class OffloadPace:
    """One stream's decode rate with part of the model off the GPU: expected and band (tok/s), and the terms."""

    expected: float
    low: float
    high: float
    vram_tok_s: float  # the same model all in VRAM (the predictor's expected figure, fit or not)
    placement: Placement
    host: HostMemory
    gpu_ms: float
    cpu_ms: float  # at the median achieved share
    pcie_ms: float


def decode_pace(p, placement: Placement, host: HostMemory, pcie_gbs: float) -> OffloadPace:
    """The decode rate with `placement`'s bytes off the GPU: the all-in-VRAM step scaled to the bytes left on the GPU,
    plus the host-memory read at the achieved share of peak, plus the PCIe copy at `pcie_gbs`, the link's measured
    achieved_gbs (rules/catalog/interconnects.toml: nvbandwidth host-to-device figures), not a share of line rate. The
    band's slow edge takes the lowest share of the slowest peak, the fast edge the highest of the fastest; the GPU's
    share keeps the predictor's own band (so a placement with nothing on the CPU still has one)."""
    total = p.streamed_gb_per_step  # every GPU of the replica
    # --cpu-offload-gb is per GPU: each TP rank copies its own share over its own link at once, PP stages in turn
    off = min(total, placement.cpu_gb + placement.pcie_gb * p.tp * p.pp)
    gpu_ms = 1e3 / p.decode_tok_s_expected * (total - off) / total
    pcie_ms = placement.pcie_gb * p.pp / pcie_gbs * 1e3 if placement.pcie_gb else 0.0
    lo, mid, hi = achieved_share(placement.reads)
    peak_mid = (host.low_gbs * host.high_gbs) ** 0.5

    def ms(share: float, peak: float, gpu_factor: float = 1.0) -> float:
        return gpu_ms * gpu_factor + pcie_ms + (placement.cpu_gb / (peak * share) * 1e3 if placement.cpu_gb else 0.0)

    cpu_ms = ms(mid, peak_mid) - gpu_ms - pcie_ms
    vram = p.decode_tok_s_expected  # moving bytes off the GPU never makes a token faster than all in VRAM
    return OffloadPace(min(vram, 1e3 / ms(mid, peak_mid)), min(vram / p.band_high, 1e3 / ms(lo, host.low_gbs,
                                                                                            p.band_high)),
                       min(vram / p.band_low, 1e3 / ms(hi, host.high_gbs, p.band_low)),
                       p.decode_tok_s_expected, placement, host, gpu_ms, cpu_ms, pcie_ms)


def evidence(paces: list[OffloadPace], p, gpu_key: str) -> list:
    """The lines predict.offload and ticket.offload_rate both show for their placements, built once: where each
    token's bytes are read and how long each part takes, the host's bandwidth where the CPU reads any, the share of it
    the cited decode runs reached for what the CPU reads, and the all-in-VRAM figure beside it."""
    from diagnose.findings import Evidence

    host = paces[0].host
    terms = "; ".join(f"{x.placement.words}: " + ", ".join(
        ([f"{x.placement.cpu_gb:.2f} GB read by the CPU ({x.cpu_ms:.0f} ms)"] if x.placement.cpu_gb else [])
        + ([f"{x.placement.pcie_gb:.2f} GB over PCIe ({x.pcie_ms:.0f} ms)"] if x.placement.pcie_gb else [])
        + [f"the GPU's share {x.gpu_ms:.0f} ms"]) for x in paces)
    out = [Evidence("prediction:offload", f"per token, {terms}")]
    if any(x.placement.cpu_gb for x in paces):  # a PCIe copy alone (vLLM --cpu-offload-gb) reads no memory channel
        out.append(Evidence("rules/catalog/host_memory.toml", ("assumed: " if host.assumed else "") + host.what, None,
                            f"{host.low_gbs:.0f}-{host.high_gbs:.0f}", "GB/s"))
    for reads in dict.fromkeys(x.placement.reads for x in paces if x.placement.cpu_gb):
        lo, mid, hi = achieved_share(reads)
        what = "routed experts" if reads == "experts" else "dense layers"
        out.append(Evidence("rules/catalog/host_memory.toml", f"decode reads {what} on the CPU at {lo:.0%}-{hi:.0%} "
                            f"of peak (median {mid:.0%}) in the measurements cited there"))
    out.append(Evidence("prediction:expected", f"all in VRAM ({p.engine} profile, {gpu_key}), were it to fit", None,
                        round(p.decode_tok_s_expected, 1), "tok/s"))
    return out


# llama.cpp runs a matrix product whose weights sit in host memory on the GPU once its batch holds at least 32 tokens
# (ggml/src/ggml-cuda/ggml-cuda.cu, ggml_backend_cuda_device_offload_op: min_batch_size = 32, the batch being a
# MUL_MAT's ne[1] and a MUL_MAT_ID's ne[2]; https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-cuda/ggml-cuda.cu),
# copying those weights over PCIe for every micro-batch; --no-op-offload turns it off
# (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md). A micro-batch is n_ubatch tokens, 512 by
# default (the same README: "physical maximum batch size (default: 512)"). An MoE layer's MUL_MAT_ID copies every
# expert of the layer, not only those the prompt's tokens pick.
OP_OFFLOAD_MIN_BATCH = 32
UBATCH = 512

# Those copies run at the link's pinned rate only from pinned memory. With mmap on (llama.cpp's default) the loader
# keeps host-resident weights in the pageable mapping ("avoid using a host buffer when using mmap",
# https://github.com/ggml-org/llama.cpp/blob/master/src/llama-model-loader.cpp; pinning mapped pages is off by default
# since https://github.com/ggml-org/llama.cpp/pull/6206); --no-mmap (-mmp 0, --load-mode none) loads them into the
# pinned CUDA_Host buffer. A copy from pageable memory is staged: the driver first copies it into pinned staging memory
# for the DMA (https://docs.nvidia.com/cuda/cuda-runtime-api/api-sync-behavior.html, "Memcpy"), so it runs below the
# pinned rate. Its share of that rate is the median, over the fit pairs of tests/data/offload_rows.toml [[pair]] (one
# prompt timed mmap on and off, the same box), of pageable t/s / pinned t/s, each a copy-bound prompt: 166 / 330
# (https://github.com/ggml-org/llama.cpp/pull/28223) and 363 / 527 (a comment on
# https://github.com/ggml-org/llama.cpp/pull/27742); benchmarks/offload_accuracy.py checks it on the validation pair.
PAGEABLE_SHARE = 0.60


@dataclasses.dataclass(frozen=True)
class PromptPace:
    """A prompt's processing rate with part of the model in host memory (tok/s), and the terms."""

    tok_s: float
    batches: int  # micro-batches, each copying the host-resident weights
    copy_ms: float
    gpu_ms: float


def copy_gbs(pcie_gbs: float, pinned: bool) -> float:
    """The rate a host-to-GPU weight copy runs at: the link's pinned rate, or its pageable share (mmap on)."""
    return pcie_gbs if pinned else pcie_gbs * PAGEABLE_SHARE


def prompt_pace(p, placement: Placement, pcie_gbs: float, prompt: int, ubatch: int = UBATCH,
                pinned: bool = False) -> PromptPace | None:
    """llama.cpp's prompt with `placement`'s weights in host memory: every micro-batch of 32+ tokens copies each
    host-resident weight to the GPU, from pageable memory under mmap (the default) or pinned memory (--no-mmap), and
    the GPU computes the whole prompt at its own all-in-VRAM prefill pace. None where nothing is kept in host memory or
    the prompt is too short for the GPU to take it (the CPU computes it then)."""
    if not placement.resident_gb or prompt < OP_OFFLOAD_MIN_BATCH or not p.prefill_tok_s_expected:
        return None
    batches = math.ceil(prompt / ubatch)
    copy_ms = batches * placement.resident_gb / copy_gbs(pcie_gbs, pinned) * 1e3
    gpu_ms = prompt / p.prefill_tok_s_expected * 1e3
    return PromptPace(prompt / (copy_ms + gpu_ms) * 1e3, batches, copy_ms, gpu_ms)
