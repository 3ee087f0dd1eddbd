"""Which GPU, model and serving engine the evidence is about: their catalog rows, resolved once.

Many rules compare a figure with the catalog row of the GPU or model the facts name. The rules
engine resolves both here before any rule runs (rules.engine.evaluate) and puts the answer on
`facts.subject`; rules read it and never look a name up again. A name the catalog lacks is None;
a broken catalog is bad input (exit 2) and stops the run.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from diagnose.evidence import Facts, GpuFact, TopologyPath, Workload
from rules import board_variant, catalog
from rules.board_variant import Variant
from rules.board_variant import product as _product
from rules.catalog import EngineSpec, GpuSpec, ModelSpec
from rules.common import (
    engine_builds,
    engine_flash_attn,
    engine_of,
    gpu_count,
    has_nvlink,
    named_system,
    runs_ollama,
    wfield,
)


@dataclass(frozen=True)
class Subject:
    """The catalog rows of the facts' GPU and model, each with the source that named it, and the
    engine profile of the framework they name (None: none named; the predictor then assumes the
    catalog's generic engine). `gpu_by_family`: the GPU row was picked from a family word ("A100"),
    not an exact name, so board details (SXM or PCIe) are a guess."""

    gpu: GpuSpec | None = None
    gpu_source: str | None = None
    model: ModelSpec | None = None
    model_source: str | None = None
    engine: EngineSpec | None = None
    gpu_by_family: bool = False
    variants: dict[str, Variant] = dataclasses.field(default_factory=dict)

    def said_of(self, names: str | None) -> bool:
        """Is a figure said of this GPU? True where it names no GPU, or only this product (any memory size or form
        factor: "A100 80GB" of an A100 40GB SXM); False where it names another GPU, or several ("A100 / H100"), or
        one the catalog lacks: such a figure is not judged against this GPU's band."""
        if not names or self.gpu is None:
            return True
        return all(_product(_known(catalog.resolve_gpu, text=n))
                   == _product(self.gpu) for n in names.split(" / "))

    def model_said_of(self, names: str | None) -> bool:
        """Is a figure said of this model? True where it names none, or one the same as this (the same catalog row,
        or the same size where either is known only by its size: "the 70B" of Llama-3-70B); False where it names
        another, several ("7B / 13B"), or one no catalog row nor size places: not judged against this model."""
        if not names or self.model is None:
            return True
        return same_model(figure_model(names), self.model)

    def model_of(self, names: str | None) -> ModelSpec | None:
        """The model a figure is of: the one its clause names (figure_model), else this ticket's; None where the
        clause names several or one nothing places, so no rule guesses."""
        return figure_model(names) if names else self.model

    def board(self, name: str | None, nvlink: bool | None = None) -> GpuSpec | None:
        """The catalog row of a GPU name a figure is said of, with the variant the reporter states apart from the name
        for its product ("H100 used is of type PCI-e": "H100" is the H100 PCIe); None for a name no row has."""
        spec = _known(catalog.resolve_gpu, text=name, nvlink=nvlink) if name else None
        return _variant_board(name, spec, self.variants, nvlink)[0] or spec

    @classmethod
    def of(cls, facts: Facts) -> "Subject":
        key = engine_of(facts)
        variants = board_variant.said(facts)
        gpu, gpu_source, by_family = _gpu(facts, variants)
        gpu, gpu_source = _with_stated_memory(facts, gpu, gpu_source)
        fa, server = engine_flash_attn(facts)
        engine = catalog.run_engine(key, gpu, builds=engine_builds(facts), fa=fa, server=server) if key else None
        return cls(gpu, gpu_source, *_model(facts), engine, by_family, variants)


def _form(spec: GpuSpec) -> str | None:
    """A catalog row's form factor as its key says it (SXM, PCIe, NVL), or None."""
    m = re.search(r"-(sxm|pcie|nvl)", spec.key)
    return m.group(1) if m else None


def _variant_board(name: str | None, spec: GpuSpec | None, variants: dict[str, Variant],
                   nvlink: bool | None) -> tuple[GpuSpec | None, Variant | None]:
    """(the board `name` is with the variant the reporter states apart from its product, that statement); (None, None)
    where none is said of the product or the catalog has no such board."""
    said = variants.get(_product(spec)) if spec else None
    board = _known(catalog.resolve_gpu, text=said.applied(name), nvlink=nvlink) if said else None
    return (board, said) if board else (None, None)


def _gpu(facts: Facts, variants: dict[str, Variant]) -> tuple[GpuSpec | None, str | None, bool]:
    """(GpuSpec, source, read from a family word) of the GPUs in the facts, from NVML/nvidia-smi names
    first, then the reporter's `[hardware] gpu`; (None, None, False) when no catalog row matches. A family word
    takes the variant the reporter states apart from it (`variants`, rules.board_variant)."""
    for g in facts.of(GpuFact):
        if g.name or g.pci_device_id:
            spec = _known(catalog.find_gpu, name=g.name, pci_device_id=g.pci_device_id)
            if spec:
                return spec, g.source, False
    gpu, source = wfield(facts, "gpu")
    if gpu:
        for name in (gpu, re.sub(r"\s*\(.*?\)", "", gpu).strip()):
            spec = _known(catalog.find_gpu, name=catalog.gpu_name(name))
            if spec:
                return spec, source, False
    # a name as people write it ("A100 80GB", "8x H100", "V100s"): catalog.resolve_gpu, as predict, plan and scaling
    # read their --gpu; the links seen pick SXM or PCIe
    names = [g.name for g in facts.of(GpuFact) if g.name] + ([gpu] if gpu else [])
    system = _system_gpu(facts)
    nvlink = _nvlink_hint(facts)
    for name in names:
        spec = _known(catalog.resolve_gpu, text=name, nvlink=nvlink)
        board, said = _variant_board(name, spec, variants, nvlink)
        if board:
            src = next((g.source for g in facts.of(GpuFact) if g.name == name), source)
            return board, f"{src} (GPU family '{name}' read as {board.key}: '{said.quote}' at {said.source})", True
        if spec:
            # "A100" on a p4de.24xlarge: its A100 80GB SXM; a memory size the reporter states ("A100 80GB" on a
            # p4d.24xlarge, whose A100s have 40) is their reading of the board and is kept
            if system and _product(system[0]) == _product(spec) and not _states_other_memory(name, system[0]):
                return system[0], system[1], False
            src = next((g.source for g in facts.of(GpuFact) if g.name == name), source)
            return spec, f"{src} (GPU family '{name}' read as {spec.key})", True
    return (system[0], system[1], False) if system else (None, None, False)


# nvidia-smi's total sits 1-6 % under the marketed size (L40S 46068 MiB of 48 GB, A10 23028 of 24, T4 15360 of 16:
# https://github.com/modal-labs/modal-client/pull/2797), so a size within 10 % of the row's is the row's own
OTHER_SIZE = 0.10
# a memory size as written after a GPU name: "48GB", "48Gb" (people's spelling of GB; no GPU is sold in gigabits),
# "22G", "94 GiB"; not a rate ("100Gb/s") nor the "10G" of "A10G" (a name)
STATED_SIZE = re.compile(r"(?<![\w.])(\d{2,3})\s?G(?:i?B)?(?![\w/])", re.I)


def _with_stated_memory(facts: Facts, spec: GpuSpec | None, source: str | None) -> tuple[GpuSpec | None, str | None]:
    """The row with the per-GPU memory that nvidia-smi's total or the reporter's GPU name states, where it differs
    from the row's (a modded RTX 4090 48GB, no catalog variant of that size): weights-fit and the KV budget then use
    it, the row still gives bandwidth and FLOPs, and the source says where the size came from."""
    said = _stated_memory(facts, spec) if spec else None
    if said is None:
        return spec, source
    gb, where, how = said
    # a name that leaves the memory variant out (nvidia-smi's table cuts it at about 20 characters: "Tesla
    # V100-SXM2...", "NVIDIA A100-SXM..."; "A100-SXM4" as people write it) read as the family's default row: the
    # variant of the same product and form with the memory stated is the board, with its own bandwidth (the A100 SXM's
    # 40 GB runs 1555 GB/s, its 80 GB 2039)
    variant = next((g for g in catalog.gpus().values() if _product(g) == _product(spec) and _form(g) == _form(spec)
                    and abs(g.memory_gb - gb) <= OTHER_SIZE * gb), None)
    if variant is not None:
        return variant, f"{source} (the {variant.key} variant: memory {gb:g} GB a GPU from {how} at {where})"
    variants = [g.memory_gb for g in catalog.gpus().values() if _product(g) == _product(spec)]
    flag = ("" if gb <= max(variants) or gb == spec.modded_memory_gb
            else ", larger than any variant the catalog knows: the reporter's figure")
    note = f"memory {gb:g} GB a GPU from {how} at {where}, not the catalog's {spec.memory_gb:g} GB{flag}"
    return dataclasses.replace(spec, memory_gb=gb, memory_said=note), f"{source} ({note})"


def _stated_memory(facts: Facts, spec: GpuSpec) -> tuple[float, str, str] | None:
    """(GB a GPU, where, how it was read) where nvidia-smi's total, else a size written after the GPU's name, differs
    from the row's memory by more than OTHER_SIZE; None otherwise. A size that is the GPUs' sum ("2x 3090 48GB": 2 x
    24) is a total, unless it is the board's known modded size; one under half or over twice the row's is no
    board's (host RAM, a model's size)."""
    mine = [g for g in facts.of(GpuFact) if not g.name or _product(_known(catalog.resolve_gpu, text=g.name))
            == _product(spec)]
    totals = [g for g in mine if g.memory_total_mib]
    if totals:
        gb = float(round(totals[0].memory_total_mib / 1024))
        how = f"nvidia-smi's total of {totals[0].memory_total_mib:.0f} MiB"
        return (gb, totals[0].source, how) if abs(gb - spec.memory_gb) > OTHER_SIZE * spec.memory_gb else None
    named = [(g.name, g.source) for g in mine if g.name] + [wfield(facts, "gpu")]
    count = gpu_count(facts) or 1
    for name, where in named:
        for m in STATED_SIZE.finditer(name or ""):
            gb = float(m.group(1))
            if gb != spec.modded_memory_gb and (not 0.5 <= gb / spec.memory_gb <= 2.0
                                                or count > 1 and gb == count * spec.memory_gb):
                continue
            if abs(gb - spec.memory_gb) > OTHER_SIZE * spec.memory_gb:
                return gb, where, f"the GPU as the reporter names it ('{name}')"
    return None


def _states_other_memory(name: str, board: GpuSpec) -> bool:
    """Does the GPU name state a memory size ("A100 80GB", "A100-40G") other than the board's?"""
    sizes = {int(m) for m in re.findall(r"(?<!\d)(\d{2,3})\s?G(?:B|iB)?\b", name, re.I)}
    return bool(sizes) and int(board.memory_gb) not in sizes


def _system_gpu(facts: Facts) -> tuple[GpuSpec, str] | None:
    """(GpuSpec, source) of the board of the one system or cloud instance the ticket names (rules/catalog/
    systems.toml: a p4de.24xlarge holds A100 80GB SXM); None when it names none, several, or one of several boards."""
    named = named_system(facts)
    if named is None or not named[0].gpu:
        return None
    spec, src, quote = named
    return catalog.gpus()[spec.gpu], f"{src} (the instance '{quote}' holds {spec.gpu}: {spec.cited})"


def _nvlink_hint(facts: Facts) -> bool | None:
    """True when NVLink is seen, False when the topology shows none or only bridged pairs, None when
    nothing tells. An SXM board joins each GPU to several peers over NVLink (all of them through
    NVSwitch, four on a DGX-1 mesh); NV# between pairs only, with PCIe paths beside, is the PCIe
    cards' NVLink bridge layout (one partner per card)."""
    peers: dict[str, set[str]] = {}
    pcie_pair = False
    for t in facts.of(TopologyPath):
        if t.a.startswith("GPU") and t.b.startswith("GPU") and t.a != t.b:
            if t.path.upper().startswith("NV"):
                peers.setdefault(t.a, set()).add(t.b)
                peers.setdefault(t.b, set()).add(t.a)
            else:
                pcie_pair = True
    if peers and pcie_pair and max(len(p) for p in peers.values()) == 1:
        return False
    if has_nvlink(facts):
        return True
    if any(t.path.upper() in ("PIX", "PXB", "PHB", "NODE", "SYS", "SOC") for t in facts.of(TopologyPath)):
        return False
    return None


def _known(fn, **kwargs):
    """The lookup's answer, None for a name no entry has; a broken catalog still raises."""
    try:
        return fn(**kwargs)
    except catalog.UnknownName:
        return None


def _model(facts: Facts) -> tuple[ModelSpec | None, str | None]:
    """(ModelSpec, source) from the first Workload naming a catalog model; a model named only by its size ('a 70B
    model') gets the dense catalog model of that size as a stand-in, said in its key."""
    for w in facts.of(Workload):
        if not w.model:
            continue
        for name in _model_names(w.model) + _ollama_latest(facts, w.model):
            spec = catalog.find_model(name)  # None for an unknown model; a broken catalog raises
            if spec:
                return spec, w.source
    for w in facts.of(Workload):
        # a word the reporter put after "Ollama" ("Ollama Mixtral uses 7% of the GPU"): a library tag where the tag
        # table knows it, which pulls its `latest` size
        tag = catalog.ollama_sized_tag(w.extra.get("ollama_named")) if w.extra.get("ollama_named") else None
        spec = catalog.find_model(tag) if tag else None
        if spec:
            return spec, w.source
    dense = _declared_dense(facts)
    for w in facts.of(Workload):
        # 'a 70B model', or a name ending in its size that the catalog does not know ('Llama 70B', 'Baichuan2-13B',
        # 'Llama-3.1-Nemotron-70B-Instruct'); not an expert's active size ('-A3B') nor an expert count ('-16E')
        spec = _sized_stand_in(w.model, dense) if w.model else None
        if spec:
            return spec, w.source
    return None, None


# text-generation-webui's GPTQ loader takes the architecture of a pre-quantised model on the command line:
# "--model_type MODEL_TYPE  Model type of pre-quantized model. Currently LLaMA, OPT, and GPT-J are supported."
# (its docs' command-line flags, GPTQ section). All three are dense, so a fine-tune of unknown family named with its
# size ('Pygmalion-13b' with --model_type llama) may have a dense stand-in of that size.
_MODEL_TYPE_DENSE = re.compile(r"--model[_-]type[\s=]+[\"']?(?:llama|opt|gptj|gpt-j)\b", re.I)


def _declared_dense(facts: Facts) -> bool:
    from rules.claims import texts  # rules.claims reads Subject: imported when asked, not at load
    return any(_MODEL_TYPE_DENSE.search(text) for _, text in texts(facts))


def _sized_stand_in(model: str, dense: bool = False) -> ModelSpec | None:
    """A dense stand-in for a name that ends in its size, or is one ('a 70B model', 'Llama 70B', 'Baichuan2-13B');
    not an expert's active size ('-A3B') nor an expert count ('-16E'): a mixture has no dense size to stand in for.
    dense: the ticket declares a dense architecture (--model_type llama), so a family the catalog lacks may stand in."""
    if EXPERT_SIZE.search(model) or VISION_MODEL.search(model):
        return None  # a mixture of experts reads its active weights per token, a vision model's size counts its
        # vision tower (and cross-attention layers): no dense model of that size stands in
    for name in _model_names(model):
        # (the family glued to its size, "llama70b", as MODEL_NAME reads it, is the same name)
        size = re.fullmatch(r"(?:([A-Za-z][\w.:-]*?)[\s_:-]?)?(\d{1,3}(?:\.\d)?)\s?[bB]", name.rsplit("/", 1)[-1])
        spec = size and (dense or _dense_family(size.group(1), ":" in model)) and _stand_in(float(size.group(2)))
        if spec:
            return spec
    return None


def figure_model(names: str | None) -> ModelSpec | None:
    """The catalog row of the one model a figure's clause names (Measurement.model), read as a ticket's model is: a
    catalog name first, else a dense stand-in of its size ('13B'); several names are one model only where all are
    the same model (an HF id and its short name); None for two models or a name nothing places."""
    if not names:
        return None
    specs = [next((spec for n in _model_names(name) if (spec := catalog.find_model(n))), None)
             or _sized_stand_in(name) for name in names.split(" / ")]
    return specs[0] if all(same_model(specs[0], s) for s in specs) else None


def same_model(a: ModelSpec | None, b: ModelSpec | None) -> bool:
    """One model as the predictor sees it: the same catalog row or the same shape (Llama 3 8B and Llama 3.1 8B share
    every config.json figure decode turns on), or, where either is only a stand-in for a size, sizes a stand-in could
    share."""
    if a is None or b is None:
        return False
    if "stand-in" not in a.key and "stand-in" not in b.key:
        return a.key == b.key or _shape(a) == _shape(b)
    sizes = a.published_params_b, b.published_params_b
    return all(sizes) and abs(sizes[0] - sizes[1]) <= STAND_IN_SPREAD * max(sizes)


def _shape(m: ModelSpec) -> tuple:
    """What a decode step's bytes and FLOPs turn on (config.json's sizes)."""
    return (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn, m.vocab, m.experts, m.experts_active,
            m.expert_ffn)


# An expert model's active size ('-A3B'), expert count ('-16E', '-128E') or a MoE marker in its name: no dense size
# to stand in for.
EXPERT_SIZE = re.compile(r"moe\b|-A\d+(?:\.\d+)?B\b|-\d+E\b", re.I)


# A vision-language model's name: "-VL-" (Qwen2.5-VL, InternVL), "-Vision" (Llama-3.2-11B-Vision: Llama 3.1 8B plus
# cross-attention image layers, https://huggingface.co/meta-llama/Llama-3.2-11B-Vision), LLaVA, Pixtral, MLlama
# (transformers' name for Llama 3.2 Vision). Its size is not a language model's; the catalog aliases the ones whose
# language model it knows (the text_config of their config.json, cited there).
VISION_MODEL = re.compile(r"(?<![a-z])(?:vl|vision|vlm)(?![a-z])|internvl|llava|pixtral|mllama", re.I)


def _family(name: str) -> str:
    """A model name without its size and what follows it ('qwen3-30b-a3b' -> 'qwen3', 'Llama 70B' -> 'llama')."""
    return re.sub(r"[\s_:-]*\d+(?:\.\d+)?(?:x\d+)?b\b.*$", "", name.strip().lower().replace(" ", "-").replace("_", "-"))


def _dense_family(family: str | None, ollama_tag: bool = False) -> bool:
    """Whether a size may be stood in for: the family ('qwen3-coder' of 'qwen3-coder:30b') is in the catalog and
    none of its models is a mixture (qwen3's 30B is qwen3-30b-a3b). A family the catalog does not know may be a
    mixture: an Ollama tag hides the '-A3B' its repository name carries, so it gets none; a repository name
    ('Gemma-4-31B') gets one only where every catalog model of its line ('gemma') is dense. A bare size
    ('a 70B model') names no family."""
    if not family:
        return True
    kin = [m for m in catalog.models().values() if _family(m.key) == _family(family)]
    if not kin and not ollama_tag:
        line = re.match(r"[a-z]+", _family(family))
        kin = [m for m in catalog.models().values() if line and re.match(r"[a-z]+", m.key).group(0) == line.group(0)]
    return bool(kin) and not any(m.is_moe for m in kin)


def _ollama_latest(facts: Facts, name: str) -> list[str]:
    """A sizeless model name in a ticket that runs Ollama ('llama3.3', framework 'ollama') is the library's `latest`
    tag, whose size rules/catalog/ollama_tags.toml gives; outside Ollama a bare family name names no size."""
    return [f"{name}:latest"] if runs_ollama(facts) and ":" not in name else []


# How far a stand-in's published size may be from the size named: dense models of one size class stream the same
# weight bytes per token, which is what decode's physics turns on.
STAND_IN_SPREAD = 0.15


def _stand_in(billions: float) -> ModelSpec | None:
    """The dense catalog model whose published size is nearest `billions` (within STAND_IN_SPREAD), keyed so that
    every finding shows the shape was assumed; None when the catalog has none that close. A model of the usual
    block (_usual_block) stands in where one is that close: an unnamed size is most likely one. Names write sizes
    to a tenth at most ('7.2B'), so distances are compared to a tenth; of equals, the catalog's earlier row."""
    dense = [m for m in catalog.models().values() if not m.is_moe and m.published_params_b]
    for pool in ([m for m in dense if _usual_block(m)], dense):
        best = min(pool, key=lambda m: round(abs(m.published_params_b - billions), 1), default=None)
        if best is not None and abs(best.published_params_b - billions) <= STAND_IN_SPREAD * billions:
            return dataclasses.replace(best, key=f"{best.key}{catalog.STAND_IN}{billions:g}B model)")
    return None


def _usual_block(m: ModelSpec) -> bool:
    """The decoder block of nearly every open model since Llama (Llama 2/3, Mistral, Qwen, Gemma, Phi, Yi, InternLM,
    DeepSeek's dense models: rules/catalog/models.toml): attention, then a gated MLP, in turn. The GPT-style blocks
    (an ungated MLP, attention beside the MLP: GPT-J, OPT, GPT-NeoX, BLOOM, Falcon, StarCoder2, Command-R) are of a
    few older or niche lines, so they stand in only for a size no usual model is near."""
    return m.gated_mlp and not m.parallel_attn


# Community fine-tunes tickets name, with the base whose shapes they keep (each model card says which):
# Vicuna v1.5 is Llama 2 (https://huggingface.co/lmsys/vicuna-13b-v1.5), earlier Vicuna LLaMA 1, whose 7B/13B
# shapes Llama 2 kept (33B is LLaMA's 30B); Zephyr is Mistral 7B (https://huggingface.co/HuggingFaceH4/zephyr-7b-beta).
# WizardLM 7B/13B/70B are LLaMA / Llama 2 fine-tunes of the same sizes
# (https://huggingface.co/WizardLMTeam/WizardLM-70B-V1.0: "trained from Llama-2 70b"; WizardLM-13B-V1.2 from Llama-2
# 13b); WizardLM-2 ('wizardlm2:7b') is Mistral's, not matched.
FINE_TUNES = ((r"vicuna[-_ ]?(7b|13b)$", "llama-2-{0}"), (r"vicuna[-_ ]?33b$", "llama-30b"),
              (r"zephyr[-_ ]?7b(?:[-_ ](?:alpha|beta|gemma))?$", "mistral-7b"),
              (r"wizardlm[-_ ]?(7b|13b|70b)$", "llama-2-{0}"))


def model_named(name: str) -> ModelSpec:
    """The catalog model a command's --model names, read as a ticket reads a name: a GGUF file name
    ('Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf') or a fine-tune is its base model. Unknown: the catalog's own error."""
    try:
        return catalog.model(name)
    except catalog.UnknownName:
        stem = re.sub(r"\.gguf$", "", str(name), flags=re.I)
        kind = catalog.named_gguf(stem) if stem != name else None
        if kind:  # "llama-2-7b.Q5_K_M": the type after a dot, dash or underscore
            stem = re.sub(rf"[.\-_ ]{re.escape(kind)}$", "", stem, flags=re.I)
        for variant in _model_names(stem)[1:] if stem == name else _model_names(stem):
            found = catalog.find_model(variant)
            if found:
                return found
        raise


def _model_names(name: str) -> list[str]:
    """The name as given, then without the org, the 'Meta-' prefix and a fine-tune suffix
    ('-Instruct', '-Chat', '-AWQ', '-v0.1', '-2507'): fine-tunes and quantisations share the base
    architecture. A distilled model is its student's architecture (DeepSeek-R1-Distill-Qwen-32B is
    a Qwen2.5-32B: https://huggingface.co/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B), and Qwen2's
    sizes that Qwen2.5 kept have the same shapes (hidden size, layers and heads of their config.json)."""
    # a GGUF file name, as predict reads one; a model's folder, with or without its closing slash
    base = re.sub(r"\.gguf$", "", name.rstrip("/").rsplit("/", 1)[-1], flags=re.I)
    out = [name, base]
    trimmed = re.sub(r"^meta-", "", base, flags=re.I)
    out.append(trimmed)
    while True:
        shorter = re.sub(r"[-_ .:](instruct|chat|hf|base|it|awq|gptq|fp8|fp16|bf16|fp32|f16|f32|int4|int8|bnb|gguf|"
                         r"exl2|nf4|nvfp4|mxfp4|fp4|w4a4|w4a8|w4a16|w8a8|[48]bit|q\d(?:_\w+)?|v\d+(?:\.\d+)*|\d{4})$",
                         "", trimmed, flags=re.I)
        if shorter == trimmed:
            break
        trimmed = shorter
        out.append(trimmed)  # each step: 'DeepSeek-V3-AWQ' is 'DeepSeek-V3' before its '-V3' goes
    if re.search(r"[-_ ]\d+(?:\.\d+)?b$", trimmed, re.I):
        # the base name of a release the catalog lists by its instruct checkpoint only ('Qwen2-VL-7B' from
        # 'Qwen2-VL-7B-Instruct-AWQ', the alias Qwen/Qwen2-VL-7B-Instruct): instruction tuning keeps the shape
        out.append(f"{trimmed}-Instruct")
    if ":" in trimmed:  # an Ollama tag, "mistral-small:24b": the family and its size
        out.append(trimmed.replace(":", "-"))
    # a fine-tune word between the line and its size, as some uploads order them ('llama2-chat-70b-4bit',
    # lmdeploy's docs; 'Llama-2-chat-7b'): the same base as 'llama2-70b'
    out.append(re.sub(r"(?<=[a-z0-9])[-_ ](?:chat|instruct|base)(?=[-_ ]\d+(?:\.\d+)?b$)", "", trimmed, flags=re.I))
    # a size's decimal point written as '_' where a name may not hold a dot (milabench's 'opt-1_3b', 'opt-6_7b':
    # https://github.com/mila-iqia/milabench): OPT-1.3B, not a 3B
    out.append(re.sub(r"(?<=[-_ ]\d)_(?=\d{1,2}b$)", ".", trimmed, flags=re.I))
    distill = re.search(r"distill[-_ ](qwen|llama)[-_ ]?(\d+(?:\.\d+)?b)\b", base, re.I)
    if distill:
        out.append(("qwen2.5-" if distill.group(1).lower() == "qwen" else "llama-3-") + distill.group(2).lower())
    for pattern, parent in FINE_TUNES:
        if tuned := re.match(pattern, trimmed, re.I):
            out.append(parent.format(*tuned.groups()))
            break
    # Qwen2.5-Coder keeps Qwen2.5's shapes (https://huggingface.co/Qwen/Qwen2.5-Coder-32B-Instruct/blob/main/config.json)
    coder = re.match(r"qwen2\.5[-_ ]coder[-_ :](\d+(?:\.\d+)?b)$", trimmed, re.I)
    if coder:
        out.append(f"qwen2.5-{coder.group(1).lower()}")
    # a mixture of experts with its experts' count last, "Mixtral 7bx8" (vllm-project/vllm#2048): the 8x7B
    out.append(re.sub(r"(?<![\w.])(\d+)b\s?x\s?(\d+)$", r"\2x\1b", trimmed, flags=re.I))
    # a mixture named by its experts' shape after a fine-tune's or merge's own words ("WizardLM-2-8x22B": "base model
    # Mixtral-8x22B", https://huggingface.co/alpindale/WizardLM-2-8x22B; "Nous-Hermes-2-Mixtral-8x7B-DPO"; mergekit-moe
    # builds a Mixtral architecture from Mistral experts, https://github.com/arcee-ai/mergekit/blob/main/docs/moe.md):
    # the catalog's one mixture of that shape, where it has exactly one
    shape = re.search(r"(?<![\w.])(\d+x\d+(?:\.\d+)?b)$", re.sub(r".*[-_ :]", "", trimmed), re.I)
    kin = [m.key for m in catalog.models().values() if shape and m.key.endswith(f"-{shape.group(1).lower()}")]
    if len(kin) == 1:
        out.append(kin[0])
    older = re.match(r"qwen2[-_ ](\d+(?:\.\d+)?b)$", trimmed, re.I)
    if older:
        out.append(f"qwen2.5-{older.group(1).lower()}")
    return list(dict.fromkeys(out + _runs_with_size(base)))


# A word of a model name that states a size: '70B', '0.5b', '8x7B' (Mixtral's experts x size), and the words that may
# follow one in the same name, a mixture's active size or expert count ('-A3B', '-16E').
SIZE_WORD = re.compile(r"\d+(?:\.\d+)?b|\d+x\d+(?:\.\d+)?b|a\d+(?:\.\d+)?b|\d+e", re.I)


def _runs_with_size(name: str) -> list[str]:
    """The runs of a name's words that end in a size, longest first: the base a fine-tune, merge or repackaging names
    inside its own name, as Hugging Face repository names are built (a publisher's words around the base's name:
    'Hermes-3-Llama-3.1-70B', 'OpenHermes-2.5-Mistral-7B', 'Qwen2.5-7B-Instruct-unsloth-bnb-4bit',
    'models--meta-llama--Llama-3.1-8B'). The caller looks each up whole, so a run only names a catalog model it
    spells out with its size; a family word alone ('phi-4' in 'phi-4-mini') names none."""
    words = [w for w in re.split(r"[-_\s:/]+", name) if w]
    runs = [(j - i, i, "-".join(words[i:j])) for j in range(1, len(words) + 1) if SIZE_WORD.fullmatch(words[j - 1])
            for i in range(max(0, j - 5), j - 1)]
    return [run for _, _, run in sorted(runs, key=lambda r: (-r[0], r[1]))]
