"""The predictor: what a GPU type and a TP/PP/DP layout deliver for a model.

Three figures, three words (DESIGN.md):
- roofline: the physical bound. Datasheet HBM bandwidth and tensor FLOPs, every all-reduce at
  the fabric's one-hop latency and line rate (rules.collectives.roofline_us). Nothing real is
  faster; a measurement below it means the inputs do not describe the run.
- expected: what a healthy system running this engine delivers (rules.step_model): every kernel
  timed with its fixed cost and its bytes and FLOPs at the achieved rates, the engine's
  all-reduce at this size and rank count, its host time per step and per request; with a band
  from the calibration residuals (calibration.toml [band]). Outside the band is "broken".
- measured: what the user's system did (the commands compare it with the two above).

Terms are kept apart (weights, KV, activations, compute, kernel overhead, all-reduce, launch,
host, PP send/recv) so measurements can be compared term by term. The roofline formulas follow
../shared/docs/collectives-reference.md section 3 and model-configs.md sections 3-4.

Conventions: `batch` is concurrent sequences per model replica (one TP x PP group); the DP
replicas multiply the totals. Embeddings and the LM head stay in 16-bit (FP8/INT4 checkpoints
ship them so); only decoder-layer weights take `dtype`. Activations are 16-bit.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, replace

from diagnose.errors import InputError
from rules import catalog, collectives, shapes, step_model
from rules.catalog import EngineSpec, GpuSpec, InterconnectSpec, ModelSpec
from rules.shapes import (  # noqa: F401 - re-exported: the predictor's vocabulary
    DTYPE_BYTES,
    KV_DTYPES,
    decoder_bytes_per_rank,
    decoder_params_per_rank,
    experts_touched,
    kv_bytes_per_token_per_gpu,
    kv_replication,
)

FP8_BLOCK = 128  # 128x128 block-quantised FP8 checkpoints (model-configs.md section 3)
INT4_MIN_K = 128  # AWQ/Marlin min_thread_k on the row-parallel input
DEFAULT_NETWORK = "ib-ndr"
LOGIT_SEQS = 256  # sequences whose fp32 logits an engine's warm-up holds at once (vLLM max_num_seqs)


@dataclass(frozen=True)
class Layout:
    tp: int = 1
    pp: int = 1
    dp: int = 1

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp

    def label(self) -> str:
        return f"TP{self.tp}" + (f" PP{self.pp}" if self.pp > 1 else "") + (f" DP{self.dp}" if self.dp > 1 else "")


@dataclass
class Problem:
    """A reason a layout is invalid (severity 'error'), risky ('warning') or worth a note."""

    code: str
    category: str  # a DESIGN.md root-cause category
    severity: str  # error | warning | info
    message: str


@dataclass
class Prediction:
    """Everything predict() computes for one model x GPU x engine x layout x batch. JSON-able.

    Times are ms per GPU; `*_expected` fields are the calibrated model, the others the roofline.
    """

    model: str
    gpu: str
    engine: str
    tp: int
    pp: int
    dp: int
    gpus: int
    batch: int
    prompt: int
    context: int
    output: int  # output tokens per request (the end-to-end latency)
    dtype: str
    kv_dtype: str
    interconnect: str  # fabric carrying the TP all-reduce
    mbu: float  # stream efficiency used: fraction of HBM bandwidth a long weight stream reaches
    mfu: float  # GEMM efficiency used for the compute dtype
    valid: bool
    fits: bool
    # memory
    weights_gb_per_gpu: float
    kv_gb_per_seq_per_gpu: float
    reserved_gb: float  # activations, CUDA graphs and communication buffers the engine keeps
    kv_budget_gb: float
    max_concurrent_seqs: int
    memory_shortfall_gb: float
    kv_replication: int
    # decode step (one token for every sequence in the batch): the roofline
    streamed_gb_per_step: float  # bytes read from HBM per step, all GPUs of one replica
    weights_ms: float
    kv_ms: float
    activation_ms: float
    memory_ms: float
    compute_ms: float
    bound: str  # memory | compute
    allreduce_count_per_step: int  # the engine's own (a v0.5 parallel block reduces twice); the expected time's count
    allreduce_bytes: int  # one all-reduce message
    allreduce_ms_per_step: float
    pp_sendrecv_ms: float
    pp_bubble_fraction: float
    decode_step_ms: float
    decode_tok_s: float  # per sequence
    decode_tok_s_total: float  # all sequences, all DP replicas
    # the expected decode step
    memory_ms_expected: float
    compute_ms_expected: float
    allreduce_us_expected: float  # one all-reduce
    allreduce_impl: str  # which implementation the engine runs at this size
    allreduce_ms_per_step_expected: float  # the collectives alone; the wait for the slowest GPU is its own term
    launch_ms_expected: float  # kernel overheads + host launches the GPU waits for
    host_ms_expected: float  # the engine's host time per step
    decode_step_ms_expected: float
    decode_tok_s_expected: float
    decode_tok_s_total_expected: float
    allreduce_share_expected: float  # of the expected decode step
    mbu_implied: float  # bytes streamed per step / (expected step x datasheet bandwidth)
    # prefill
    prefill_bound: str
    ttft_ms: float
    ttft_ms_expected: float
    prefill_tok_s: float  # one replica, whole batch of prompts
    prefill_tok_s_expected: float
    prefill_tok_s_total_expected: float
    # one request batch end to end: prefill of every prompt + (output - 1) decode steps
    ttft_batch_ms: float  # prefill of the whole batch of prompts (the first token of every request)
    ttft_batch_ms_expected: float
    itl_ms: float  # mean inter-token latency over the output (decode step at the average context)
    itl_ms_expected: float
    e2e_latency_ms: float
    e2e_latency_ms_expected: float
    band_low: float  # the expected figure's band, as factors on its times
    band_high: float
    itl_context: int = 0  # the context the ITL is priced at: prompt + itl_share x output (itl_context())
    itl_tok_s_expected: float = 0.0  # 1000 / itl_ms_expected: a sequence's rate at that same context
    expected_terms: dict = field(default_factory=dict)
    experts_touched_per_layer: float = 0.0
    problems: list[Problem] = field(default_factory=list)
    assumptions: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def band(self, value_ms: float) -> tuple[float, float]:
        """The band around an expected time: (fastest healthy, slowest healthy)."""
        return value_ms * self.band_low, value_ms * self.band_high

    def terms(self, expected: bool = True) -> dict[str, float]:
        """The decode step per GPU, term by term in ms, to set beside a measured breakdown.

        Expected: additive (each kernel's streaming, its compute beyond streaming, its fixed
        cost, the all-reduces, the wait for the slowest GPU, host launches, host time, PP
        send/recv) and summing to the step.
        Roofline: memory and compute overlap (the larger counts), all-reduce and PP add on top.
        """
        if expected:
            return {**self.expected_terms, "step_ms": self.decode_step_ms_expected}
        return {
            "weights_ms": self.weights_ms, "kv_ms": self.kv_ms, "activation_ms": self.activation_ms,
            "compute_ms": self.compute_ms, "allreduce_ms": self.allreduce_ms_per_step,
            "pp_sendrecv_ms": self.pp_sendrecv_ms, "launch_ms": 0.0, "step_ms": self.decode_step_ms,
        }


# --------------------------------------------------------------------------- validity


# Problems that stop a checkpoint of the given dtype from loading at a TP, though the heads allow it
# (validity: the FP8 weight block, the int4 groups' Marlin min_thread_k).
BLOCK_CODES = ("fp8_block", "int4_block")


def cannot_run(pr: Problem) -> bool:
    """A problem no engine starts with: heads or widths that do not split, blocks that do not load."""
    return pr.severity == "error" or pr.code in BLOCK_CODES


def validity(model: ModelSpec, tp: int, pp: int = 1, dtype: str = "bf16") -> list[Problem]:
    """Head, KV-head, FFN and quantisation-block constraints (vLLM's QKVParallelLinear)."""
    out: list[Problem] = []
    if model.heads % tp:
        out.append(Problem("heads_not_divisible", "tp_not_dividing_heads", "error",
                           f"{model.heads} attention heads are not divisible by TP={tp}"))
    if not model.is_mla:
        kv = model.kv_heads
        if (tp < kv and kv % tp) or (tp > kv and tp % kv):
            out.append(Problem("kv_heads_not_divisible", "tp_not_dividing_heads", "error",
                               f"{kv} KV heads and TP={tp}: one must divide the other"))
    rep = kv_replication(model, tp)
    if rep > 1 and not out:
        what = "the MLA latent KV cache" if model.is_mla else f"each of the {model.kv_heads} KV heads"
        out.append(Problem("kv_replicated", "other", "info",
                           f"TP={tp}: {what} is replicated x{rep}, so KV memory per token stops shrinking"))
    for name, width in _ffn_widths(model):
        if width % tp:
            out.append(Problem("ffn_not_divisible", "tp_not_dividing_heads", "error",
                               f"{name} {width} is not divisible by TP={tp}"))
        elif dtype == "fp8" and tp > 1 and (width // tp) % FP8_BLOCK:
            out.append(Problem("fp8_block", "tp_not_dividing_heads", "warning",
                               f"{name} {width}/TP{tp} = {width // tp} is not a multiple of the {FP8_BLOCK}-wide "
                               "FP8 weight block: block-quantised FP8 checkpoints fail to load"))
        elif dtype == "int4" and tp > 1 and (width // tp) % INT4_MIN_K:
            out.append(Problem("int4_block", "tp_not_dividing_heads", "warning",
                               f"{name} {width}/TP{tp} = {width // tp} is not a multiple of {INT4_MIN_K} "
                               "(AWQ/GPTQ Marlin min_thread_k)"))
    if model.layers % pp:
        largest = -(-model.layers // pp)
        slower = largest / (model.layers / pp) - 1
        # one layer more in a stage of 30 costs ~2%: worth knowing, not a warning
        out.append(Problem("pp_uneven", "pp_bubble", "warning" if slower >= 0.1 else "info",
                           f"{model.layers} layers do not split evenly into PP={pp} stages; the largest "
                           f"stage ({largest} layers) sets the pace, {slower:.0%} slower than an even split"))
    return out


def _ffn_widths(model: ModelSpec) -> list[tuple[str, int]]:
    widths = []
    if not model.is_moe or model.first_dense_layers:
        widths.append(("FFN", model.ffn))
    if model.is_moe:
        widths.append(("expert FFN", model.expert_ffn))
    return widths


# --------------------------------------------------------------------------- memory


def smaller_dtype_hint(dtype: str) -> str:
    """'a smaller weight dtype (--dtype fp8/int4), ' naming only dtypes smaller than `dtype` ('' at int4)."""
    smaller = [d for d in ("fp8", "int4") if DTYPE_BYTES[d] < DTYPE_BYTES.get(dtype, 2.0)]
    return f"a smaller weight dtype (--dtype {'/'.join(smaller)}), " if smaller else ""


def usable_gb(gpu: GpuSpec, engine: EngineSpec) -> float:
    """GB (1e9 B) the engine may fill on one GPU: its memory_utilization of the GPU's memory."""
    return gpu.memory_bytes / 1e9 * engine.memory_utilization


def stated_usable_gb(gpu: GpuSpec, engine: EngineSpec, share: tuple[float, str, str] | None,
                     held_gb: float) -> tuple[float, str]:
    """(GB the engine may fill on one GPU, where that share came from): a stated share of the whole GPU, or of what
    the weights and reserve (`held_gb`) leave free (TensorRT-LLM's free_gpu_memory_fraction, LMDeploy's
    cache_max_entry_count); else the profile's default (usable_gb)."""
    if share is None:
        return usable_gb(gpu, engine), f"engine default {engine.memory_utilization:.0%} ({engine.key}, engines.toml)"
    fraction, of, said = share
    total = gpu.memory_bytes / 1e9
    if of == "free":
        return (held_gb + fraction * max(0.0, total - held_gb),
                f"{said}: {fraction:.0%} of the memory left after weights")
    return total * fraction, f"{said}: {fraction:.0%} of the GPU"


def reserved_gb(model: ModelSpec, tp: int, engine: EngineSpec, gpus_in_group: int) -> float:
    """What the engine keeps per GPU besides weights and KV: the activations of one forward pass
    of `activation_tokens` tokens (the MLP's widest intermediate, a few hidden-size buffers, the
    fp32 logits of up to LOGIT_SEQS sequences), its CUDA graphs, and NCCL / custom all-reduce
    buffers when the GPU talks to others."""
    ffn = model.experts_active * model.expert_ffn if model.is_moe else model.ffn
    per_token = ((2 if model.gated_mlp else 1) * ffn / tp + 4 * model.hidden) * 2.0
    tokens = engine.activation_tokens
    activations = tokens * per_token + min(tokens, LOGIT_SEQS) * model.vocab * 4.0
    comm = engine.comm_buffer_gb if gpus_in_group > 1 else 0.0
    return activations / 1e9 + engine.cuda_graph_gb + comm


def weights_bytes_per_gpu(model: ModelSpec, layout: Layout, dtype: str, group: int | str | None = None) -> float:
    """Weights resident on the fullest GPU (first or last PP stage)."""
    return shapes.weights_bytes_per_gpu(model, layout.tp, layout.pp, dtype, group)


# --------------------------------------------------------------------------- the roofline's work


@dataclass
class Work:
    """Bytes and FLOPs of one pass through ALL stages on one TP rank, plus its all-reduces."""

    weights_bytes: float
    kv_bytes: float
    act_bytes: float
    flops: float
    allreduces: int
    message_bytes: int
    experts_touched: float = 0.0


def decode_work(model: ModelSpec, tp: int, batch: int, context: int, dtype: str, kv_dtype: str,
                group: int | str | None = None) -> Work:
    """One decode step: every sequence in `batch` produces one token at `context` tokens of KV."""
    touched = experts_touched(model, batch) if model.is_moe else None
    head = model.lm_head_params() / tp  # tied: the embedding table is read as the LM head
    weights = decoder_bytes_per_rank(model, tp, dtype, touched, group) + head * shapes.edge_bytes(dtype, group)
    # the KV cache and a hybrid's state are read; the recurrent update also writes the state back
    kv = batch * (context * kv_bytes_per_token_per_gpu(model, tp, 1, kv_dtype, context)
                  + shapes.linear_state_bytes_per_gpu(model, tp))
    active = decoder_params_per_rank(model, tp, model.experts_active if model.is_moe else None) + head
    flops = batch * (2.0 * active + shapes.attention_flops_per_token(model, tp, shapes.attended(model, context)))
    return Work(weights, kv, batch * shapes.act_bytes_per_token(model, tp), flops,
                shapes.allreduces_per_pass(model, tp), batch * model.hidden * 2, touched or 0.0)


def prefill_work(model: ModelSpec, tp: int, sequences: int, prompt: int, dtype: str, kv_dtype: str,
                 group: int | str | None = None) -> Work:
    """Prefill of `sequences` prompts of `prompt` tokens each (causal attention, KV written once)."""
    tokens = sequences * prompt
    touched = experts_touched(model, tokens) if model.is_moe else None
    head = model.lm_head_params() / tp
    weights = decoder_bytes_per_rank(model, tp, dtype, touched, group) + head * shapes.edge_bytes(dtype, group)
    kv = tokens * kv_bytes_per_token_per_gpu(model, tp, 1, kv_dtype, prompt)
    active = decoder_params_per_rank(model, tp, model.experts_active if model.is_moe else None)
    attn = shapes.attention_flops_per_token(model, tp, shapes.attended(model, prompt) / 2)  # causal: half on average
    flops = tokens * (2.0 * active + attn) + sequences * 2.0 * head  # logits only for the last token
    return Work(weights, kv, tokens * shapes.act_bytes_per_token(model, tp), flops,
                shapes.allreduces_per_pass(model, tp), tokens * model.hidden * 2, touched or 0.0)


@dataclass
class PassTime:
    """Roofline milliseconds for one pass through all stages of one replica."""

    weights_ms: float
    kv_ms: float
    act_ms: float
    compute_ms: float
    allreduce_ms: float

    @property
    def memory_ms(self) -> float:
        return self.weights_ms + self.kv_ms + self.act_ms

    @property
    def bound(self) -> str:
        return "compute" if self.compute_ms > self.memory_ms else "memory"

    @property
    def total_ms(self) -> float:
        """Memory and compute overlap at best; communication adds (collectives-reference.md 3.1)."""
        return max(self.memory_ms, self.compute_ms) + self.allreduce_ms


def roofline_pass(work: Work, gpu: GpuSpec, fabric: InterconnectSpec, tp: int, nodes: int,
                  compute_dtype: str) -> PassTime:
    bw = gpu.hbm_gbs * 1e9
    ar_us = collectives.roofline_us(fabric, tp, work.message_bytes, nodes=nodes)
    return PassTime(
        weights_ms=work.weights_bytes / bw * 1e3,
        kv_ms=work.kv_bytes / bw * 1e3,
        act_ms=work.act_bytes / bw * 1e3,
        compute_ms=work.flops / (gpu.tflops(compute_dtype) * 1e12) * 1e3,
        allreduce_ms=work.allreduces * ar_us / 1e3,
    )


# --------------------------------------------------------------------------- communication


def tp_fabric(gpu: GpuSpec, tp: int, gpus_per_node: int, interconnect=None,
              network=None) -> tuple[InterconnectSpec, int]:
    """The fabric a TP group's all-reduce runs on, and how many nodes it spans."""
    nodes = math.ceil(tp / gpus_per_node)
    if nodes > 1:
        return catalog.interconnect(network or DEFAULT_NETWORK), nodes
    if interconnect is not None:
        return _capped(gpu, catalog.interconnect(interconnect)), 1
    if gpu.nvlink_gbs and tp <= gpu.nvlink_domain:
        return _capped(gpu, catalog.interconnect(gpu.interconnect)), 1
    return catalog.interconnect(gpu.pcie_interconnect), 1


def direct_share(gpu: GpuSpec, fabric: InterconnectSpec, n: int) -> InterconnectSpec:
    """The part of a direct-connect NVLink board's links (no NVSwitch: catalog kind "nvlink") that n of its GPUs
    use. A board of D GPUs each wired to every other with the same number of links splits a GPU's L links into
    L / (D - 1) per pair (the 4-GPU A100 board: 12 links, NV4 to each of the 3 others, 100 GB/s per direction per
    pair), so rings over n GPUs reach (n - 1) pairs' links of each GPU, and two GPUs only their pair's
    (NVIDIA/nccl-tests#331: "NVLink 3.0 (theoretically capable of 100 GB/s unidirectional)" between two of the four
    A100s of a Leonardo node). A board not evenly wired (DGX-1's hybrid cube mesh, L not a multiple of D - 1) or
    one whose link count the catalog lacks keeps the whole GPU's figure."""
    links, d = gpu.nvlink_links, gpu.nvlink_domain
    if fabric.kind != "nvlink" or gpu.nvlink_bridged or not links or d <= 2 or not 2 <= n < d or links % (d - 1):
        return fabric
    pair = links // (d - 1)
    share = pair * (n - 1) / links
    return replace(fabric, bandwidth_gbs=fabric.bandwidth_gbs * share, achieved_gbs=fabric.achieved_gbs * share,
                   name=f"{fabric.name} over NV{pair} per GPU pair")


def unbridged(gpu: GpuSpec, fabric: InterconnectSpec, interconnect=None) -> InterconnectSpec:
    """The fabric the expected figure runs on: a PCIe board whose NVLink exists only through an optional bridge
    (catalog nvlink_bridged) runs over PCIe unless the caller names the bridge, as rules.nccl judges such a pair
    (most machines lack the bridge). The roofline keeps the bridge, so a bridged pair never beats its bound."""
    if interconnect is None and gpu.nvlink_bridged and fabric.kind == "nvlink":
        return catalog.interconnect(gpu.pcie_interconnect)
    return fabric


def _capped(gpu: GpuSpec, ic: InterconnectSpec) -> InterconnectSpec:
    """An NVLink fabric cannot run faster than the GPU's own links (a bridged H100 PCIe: 300), at the
    fabric's protocol efficiency, or at what the catalog's nvlink_achieved_gbs says where it has one."""
    if ic.kind not in ("nvlink", "nvswitch") or not gpu.nvlink_gbs:
        return ic
    if gpu.nvlink_gbs < ic.bandwidth_gbs:
        # named by the GPU's own links: a bridged pair of RTX 3090s is no "NVLink 3 (A100, 12 links)"
        ic = replace(ic, bandwidth_gbs=gpu.nvlink_gbs, achieved_gbs=ic.achieved_gbs * gpu.nvlink_gbs / ic.bandwidth_gbs,
                     name=f"{ic.name.split(' (')[0]} ({gpu.name}, "
                          f"{f'{gpu.nvlink_links} links' if gpu.nvlink_links else 'bridged pair'})")
    if gpu.nvlink_achieved_gbs:
        ic = replace(ic, achieved_gbs=min(gpu.nvlink_achieved_gbs, ic.bandwidth_gbs))
    return ic


def _cross_node_boundaries(layout: Layout, gpus_per_node: int) -> int:
    """PP stage boundaries that fall between nodes (TP ranks innermost, stages next)."""
    tp = layout.tp
    return sum(1 for s in range(1, layout.pp) if (s * tp) // gpus_per_node != (s * tp - 1) // gpus_per_node)


def _pp_fabric(gpu: GpuSpec, layout: Layout, gpus_per_node: int, interconnect, network) -> InterconnectSpec:
    if layout.pp > 1 and _cross_node_boundaries(layout, gpus_per_node):
        return catalog.interconnect(network or DEFAULT_NETWORK)
    return tp_fabric(gpu, min(layout.tp * layout.pp, gpus_per_node), gpus_per_node, interconnect, network)[0]


def engine_microbatches(eng: EngineSpec, batch: int, tokens_per_seq: int, pp: int) -> int:
    """Microbatches the engine splits a batch into across `pp` stages. By default one per stage
    (as many as fill the pipeline). An engine with pp_microbatch_tokens (FasterTransformer's
    getLocalBatchSize) takes batch / pp sequences when pp divides the batch, else the whole
    batch, and halves that while it holds more than pp_microbatch_tokens tokens."""
    if pp == 1:
        return 1
    if not eng.pp_microbatch_tokens:
        return max(1, min(batch, pp))
    local = batch // pp if batch % pp == 0 else batch
    while local * tokens_per_seq > eng.pp_microbatch_tokens and local % 2 == 0:
        local //= 2
    return math.ceil(batch / local)


def _pipelined(pass_ms: float, pp: int, microbatches: int, sendrecv_ms: float, one_shot: bool) -> float:
    """Time for every microbatch to cross every stage once (balanced stages).

    Steady decode: a round lasts max(m, pp) stage-times; one-shot (prefill): m + pp - 1.
    """
    slots = (microbatches + pp - 1) if one_shot else max(microbatches, pp)
    return slots * pass_ms / pp + (pp - 1) * sendrecv_ms


# --------------------------------------------------------------------------- predict


def default_kv_dtype(dtype: str, engine: EngineSpec) -> str:
    """The KV-cache dtype an engine picks when not told: FP8 for an FP8 checkpoint where the
    engine does so (engines.toml fp8_kv_cache), else the activations' 16-bit type."""
    if dtype == "fp8" and engine.fp8_kv_cache:
        return "fp8"
    return "fp16" if dtype == "fp16" else "bf16"


def predict(model: ModelSpec, gpu: GpuSpec, layout: Layout = Layout(), batch: int = 1, prompt: int = 1024,
            context: int | None = None, dtype: str | None = None, kv_dtype: str | None = None, interconnect=None,
            mbu: float | None = None, mfu: float | None = None, gpus_per_node: int = 8, network=None,
            engine: EngineSpec | None = None,
            output: int | None = None, quant_group: int | str | None = None, itl_share: float = 0.5,
            memory_share: tuple[float, str, str] | None = None, ring_path: str = "",
            ring_cpu: str = "", nccl_release: str = "", decode_only: bool = False) -> Prediction:
    """Roofline and expected performance of `model` on `layout` x `gpu` run by `engine`.

    context: KV tokens each sequence holds at the end of its reply (default prompt + output, output 256): the memory
    check's. The decode step (decode_step_ms, its terms) and the ITL are priced at the reply's middle (itl_context).
    output: output tokens per request for the end-to-end latency (default context - prompt).
    dtype None: the checkpoint's own dtype (bf16 for most catalog models, fp8 for DeepSeek-V3,
    mxfp4 for GPT-OSS). kv_dtype None: what the engine picks (default_kv_dtype).
    mbu / mfu: override the calibrated stream and GEMM efficiencies.
    quant_group: the int4/int8 group size, or a GGUF type ('Q5_K_M': rules/catalog/gguf_types.toml) whose
    blocks give the bytes a weight streams.
    itl_share: where in the reply the ITL is priced (itl_context): 0.5 its mean, 0.95 its 95th percentile step.
    memory_share: (fraction, "total" or "free", words) the engine was told to fill (rules.workload.memory_share) in
    place of its profile's memory_utilization: of the whole GPU, or of what the weights and reserve leave free.
    ring_path / ring_cpu: the TP ring's worst PCIe link ('pix' .. 'sys') and, across sockets, the CPUs' link
    ('amd', 'intel-skl', ...) where the caller has them (a topology, a CPU model): NCCL's PCIe protocol depends on them
    (rules.collectives.nccl_ring_gbs); "" is what a box of the catalog fabric gives. nccl_release: the NCCL release
    the caller's material states (rules.topology.ring_route), whose tuner constants pick NCCL's algorithm; "" the
    pinned one (rules/catalog/nccl_tuning.toml).
    model, gpu and engine are catalog rows the command resolved once (catalog.model / catalog.gpu /
    catalog.engine); no engine is the catalog's generic profile.
    decode_only: price the decode step, the memory fit and the band only; the prefill, TTFT, ITL and end-to-end
    figures are NaN (rules.loss_bound prices thousands of catalog pairs and reads only the step).
    """
    eng = catalog.split_twin(engine or catalog.engine(None), layout.pp)
    cal = catalog.calibration()
    dtype = dtype or model.checkpoint_dtype
    kv_dtype = kv_dtype or default_kv_dtype(dtype, eng)
    _check_args(layout, batch, prompt, context, output, dtype, kv_dtype, mbu, mfu, gpus_per_node, quant_group)
    if output is None:
        output = (context - prompt) if context and context > prompt else 256
    context = context or prompt + output
    tp, pp = layout.tp, layout.pp
    compute_dtype = "fp8" if dtype == "fp8" and gpu.fp8_tflops else ("fp16" if dtype == "fp16" else "bf16")
    compute_dtype = eng.gemm_dtype or compute_dtype
    if compute_dtype == "fp16" and eng.gemm_accumulate == "fp16":  # GeForce: twice the FP32-accumulate rate
        compute_dtype = "fp16acc16"
    # the bound takes the fastest path the engine may run (INT8 dot products on a GPU whose FP16 is slow)
    roof_dtype = ("int8" if eng.int8_gemm and dtype in ("int4", "int8") and gpu.int8_tops > gpu.tflops(compute_dtype)
                  else compute_dtype)
    fabric, nodes = tp_fabric(gpu, tp, gpus_per_node, interconnect, network)
    pp_fabric = _pp_fabric(gpu, layout, gpus_per_node, interconnect, network)
    pp_exp_fabric = unbridged(gpu, pp_fabric, interconnect)  # as the TP fabric: a bridge only where named

    def handover_ms(tokens: int, graphs: bool) -> float:
        """One stage handing the hidden states of `tokens` tokens to the next, in the engine's bytes a value."""
        size = tokens * model.hidden * eng.hidden_state_bytes
        return collectives.p2p_us(pp_exp_fabric, size, graphs=graphs, p2p=gpu.pcie_p2p,
                                  copy=eng.pp_handover == "copy") / 1e3 if pp > 1 else 0.0

    exp_fabric = unbridged(gpu, fabric, interconnect)
    p2p = collectives.peer_to_peer(gpu, exp_fabric)
    problems = validity(model, tp, pp, dtype)
    if (note := fp8_upcast(gpu, dtype)):
        problems.append(Problem("no_fp8", "other", "info", note))
    if nodes > 1:
        problems.append(Problem("tp_spans_nodes", "cross_node_tp", "warning",
                                f"TP={tp} spans {nodes} nodes of {gpus_per_node} GPUs: every layer's all-reduce "
                                f"crosses {fabric.name}"))

    # memory fit
    weights_gb = weights_bytes_per_gpu(model, layout, dtype, quant_group) / 1e9
    reserve = reserved_gb(model, tp, eng, tp * pp)
    usable, share_said = stated_usable_gb(gpu, eng, memory_share, weights_gb + reserve)
    kv_seq_gb = context * kv_bytes_per_token_per_gpu(model, tp, pp, kv_dtype, context) / 1e9
    budget = usable - weights_gb - reserve
    max_seqs = max(0, int(budget // kv_seq_gb)) if kv_seq_gb > 0 else 0
    shortfall = max(0.0, weights_gb + reserve + batch * kv_seq_gb - usable)
    if shortfall > 0:
        what = "the weights alone" if usable < weights_gb + reserve else f"weights + KV for {batch} x {context} tokens"
        need_gb = weights_gb + reserve + (batch * kv_seq_gb if budget >= 0 else 0)
        problems.append(Problem("does_not_fit", "other", "error",
                                f"{what} need {need_gb:.1f} GB per GPU with {reserve:.1f} GB the engine keeps for "
                                "activations, graphs and buffers; "
                                f"{usable:.1f} GB usable of {gpu.memory_gb:g} GiB ({share_said}): "
                                f"short by {shortfall:.1f} GB"))

    # decode: m microbatches of the batch in flight through pp stages
    m = max(1, min(batch, pp))
    mb = math.ceil(batch / m)
    share = m / pp  # per GPU per step: m microbatches through 1/pp of the layers
    setting = step_model.Setting(model, gpu, eng, cal, tp, dtype, kv_dtype, exp_fabric, nodes, p2p, quant_group, mbu,
                                 mfu, ring_path=ring_path, ring_cpu=ring_cpu, nccl_release=nccl_release)
    sendrecv_roof = collectives.p2p_us(pp_fabric, mb * model.hidden * 2, roofline=True) / 1e3 if pp > 1 else 0.0

    # the decode step every command judges (ticket, scaling, capture, predict, plan) is priced at one context: the
    # reply's middle (itl_context), where the step equals its mean over the reply; `context` is the KV held at its end,
    # so never beyond it (a caller's context below the prompt, context=1: decode over an empty cache)
    step_ctx = min(itl_context(prompt, output), context)
    dw = decode_work(model, tp, mb, int(step_ctx), dtype, kv_dtype, quant_group)
    roof = roofline_pass(dw, gpu, fabric, tp, nodes, roof_dtype)
    step = _pipelined(roof.total_ms, pp, m, sendrecv_roof, one_shot=False)
    # the expected step runs the engine's own microbatches (engines.toml pp_microbatch_tokens, pp_step_drains)
    m_e = engine_microbatches(eng, batch, 1, pp)
    mb_e = math.ceil(batch / m_e)
    sendrecv_e = handover_ms(mb_e, eng.cuda_graphs)
    host_step = eng.step_host_ms(tp * pp)

    def step_at(keys: float, sequences: int = mb_e, microbatches: int = m_e,
                sendrecv: float = sendrecv_e) -> tuple[step_model.PassTerms, float]:
        """The engine's decode step of `sequences` a microbatch at `keys` KV tokens each: its pass, and its time."""
        terms = step_model.pass_terms(setting, sequences=sequences, tokens_per_seq=1, context=keys, prefill=False)
        return terms, _pipelined(terms.total_ms, pp, microbatches, sendrecv, one_shot=eng.pp_step_drains) + host_step

    exp, step_exp = step_at(step_ctx)
    exp_share = exp.scaled(m_e / pp)
    bubble = step_exp - host_step - exp_share.total_ms

    prompt_tokens = batch * prompt
    mid = itl_context(prompt, output, itl_share)  # one request batch end to end: output - 1 steps at this context
    if decode_only:  # nothing below the decode step: the figures are NaN, no prefill pass priced
        ttft = ttft_exp = prefill_ms = prefill_ms_exp = mid_roof = mid_step_exp = e2e = e2e_exp = math.nan
        prefill_bound, m_p = "", 0  # no prefill pass, no prefill microbatches
    else:
        # prefill: TTFT of one prompt alone; throughput of the whole batch of prompts
        one = prefill_work(model, tp, 1, prompt, dtype, kv_dtype, quant_group)
        many = prefill_work(model, tp, mb, prompt, dtype, kv_dtype, quant_group)
        psr_roof = collectives.p2p_us(pp_fabric, prompt * model.hidden * 2, roofline=True) / 1e3 if pp > 1 else 0.0
        ttft = _pipelined(roofline_pass(one, gpu, fabric, tp, nodes, roof_dtype).total_ms, pp, 1, psr_roof,
                          one_shot=True)
        # an engine whose decode step runs the prompt's last token (first_token_step) prefills the rest, then takes a
        # step
        ctx = prompt - 1 if eng.first_token_step else prompt
        psr_ctx = handover_ms(ctx, False)
        m_p = engine_microbatches(eng, batch, ctx, pp)
        mb_p = math.ceil(batch / m_p)

        def prefill_at(sequences: int, microbatches: int) -> float:
            """The engine's prefill of `sequences` prompts a microbatch, up to the step that samples the first token."""
            if not ctx:
                return 0.0
            terms = step_model.pass_terms(setting, sequences=sequences, tokens_per_seq=ctx, context=ctx, prefill=True)
            return _pipelined(terms.total_ms, pp, microbatches, psr_ctx * sequences, one_shot=True)

        ttft_exp = prefill_at(1, 1) + eng.host_ms_per_request
        prefill_ms_exp = prefill_at(mb_p, m_p)
        if eng.first_token_step:
            ttft_exp += step_at(prompt, 1, 1, handover_ms(1, eng.cuda_graphs))[1]
            prefill_ms_exp += step_at(prompt)[1]
        many_roof = roofline_pass(many, gpu, fabric, tp, nodes, roof_dtype)
        prefill_ms = _pipelined(many_roof.total_ms, pp, m, psr_roof * mb, one_shot=True)

        # one request batch end to end: prefill, then output - 1 steps at the average context
        if mid == step_ctx:  # the mean ITL (itl_share 0.5) within `context`: the judged step, priced above
            mid_roof, mid_step_exp = step, step_exp
        else:
            mid_work = decode_work(model, tp, mb, int(mid), dtype, kv_dtype, quant_group)
            mid_roof = _pipelined(roofline_pass(mid_work, gpu, fabric, tp, nodes, roof_dtype).total_ms, pp, m,
                                  sendrecv_roof, one_shot=False)
            mid_step_exp = step_at(mid)[1]
        e2e = prefill_ms + (output - 1) * mid_roof
        e2e_exp = eng.host_ms_per_request + prefill_ms_exp + (output - 1) * mid_step_exp
        prefill_bound = many_roof.bound

    lo, hi = cal.band
    streamed = (dw.weights_bytes + dw.kv_bytes) * tp * m
    terms = {
        "weights_ms": exp_share.weights_ms, "kv_ms": exp_share.kv_ms, "activation_ms": exp_share.activation_ms,
        "compute_ms": exp_share.compute_ms, "overhead_ms": exp_share.overhead_ms,
        "allreduce_ms": exp_share.allreduce_ms, "wait_ms": exp_share.wait_ms, "launch_ms": exp_share.launch_ms,
        "host_ms": host_step, "pp_bubble_ms": bubble,
    }
    return Prediction(
        model=model.key, gpu=gpu.key, engine=eng.key, tp=tp, pp=pp, dp=layout.dp, gpus=layout.gpus, batch=batch,
        prompt=prompt, context=context, output=output, dtype=dtype, kv_dtype=kv_dtype, interconnect=exp_fabric.key,
        mbu=_r(mbu or cal.stream_efficiency, 3), mfu=_r(mfu or cal.gemm(compute_dtype, gpu), 3),
        valid=not any(p.severity == "error" and p.code != "does_not_fit" for p in problems),
        fits=shortfall == 0,
        weights_gb_per_gpu=_r(weights_gb), kv_gb_per_seq_per_gpu=_r(kv_seq_gb, 4), reserved_gb=_r(reserve),
        kv_budget_gb=_r(budget), max_concurrent_seqs=max_seqs, memory_shortfall_gb=_r(shortfall),
        kv_replication=kv_replication(model, tp),
        streamed_gb_per_step=_r(streamed / 1e9),
        weights_ms=_r(roof.weights_ms * share, 4), kv_ms=_r(roof.kv_ms * share, 4),
        activation_ms=_r(roof.act_ms * share, 4), memory_ms=_r(roof.memory_ms * share, 4),
        compute_ms=_r(roof.compute_ms * share, 4), bound=roof.bound,
        allreduce_count_per_step=round(exp.allreduces * m_e / pp), allreduce_bytes=dw.message_bytes,
        allreduce_ms_per_step=_r(roof.allreduce_ms * share, 4),
        pp_sendrecv_ms=_r(sendrecv_roof * (pp - 1), 4),
        pp_bubble_fraction=_r(1.0 - m / max(m, pp), 3),
        decode_step_ms=_r(step, 4), decode_tok_s=_r(1e3 / step), decode_tok_s_total=_r(1e3 / step * batch * layout.dp),
        memory_ms_expected=_r(exp_share.memory_ms, 4), compute_ms_expected=_r(exp_share.compute_ms, 4),
        allreduce_us_expected=_r(exp.allreduce_us, 2), allreduce_impl=exp.allreduce_impl,
        allreduce_ms_per_step_expected=_r(exp_share.allreduce_ms, 4),
        launch_ms_expected=_r(exp_share.overhead_ms + exp_share.launch_ms, 4),
        host_ms_expected=_r(host_step, 4),
        decode_step_ms_expected=_r(step_exp, 4), decode_tok_s_expected=_r(1e3 / step_exp),
        decode_tok_s_total_expected=_r(1e3 / step_exp * batch * layout.dp),
        allreduce_share_expected=_r(exp_share.allreduce_ms / step_exp, 3),
        mbu_implied=_r(streamed / tp / m * share / (step_exp / 1e3) / (gpu.hbm_gbs * 1e9), 3),
        prefill_bound=prefill_bound, ttft_ms=_r(ttft, 3), ttft_ms_expected=_r(ttft_exp, 3),
        prefill_tok_s=_r(prompt_tokens / prefill_ms * 1e3),
        prefill_tok_s_expected=_r(prompt_tokens / prefill_ms_exp * 1e3),
        prefill_tok_s_total_expected=_r(prompt_tokens / prefill_ms_exp * 1e3 * layout.dp),
        ttft_batch_ms=_r(prefill_ms, 3), ttft_batch_ms_expected=_r(eng.host_ms_per_request + prefill_ms_exp, 3),
        itl_ms=_r(mid_roof, 4), itl_ms_expected=_r(mid_step_exp, 4), itl_context=int(mid),
        itl_tok_s_expected=_r(1e3 / mid_step_exp),
        e2e_latency_ms=_r(e2e, 3), e2e_latency_ms_expected=_r(e2e_exp, 3),
        band_low=lo, band_high=hi,
        expected_terms={k: _r(v, 4) for k, v in terms.items()},
        experts_touched_per_layer=_r(dw.experts_touched, 2),
        problems=problems,
        assumptions={
            "engine": eng.name, "cuda_graphs": eng.cuda_graphs, "stream_efficiency": mbu or cal.stream_efficiency,
            "gemm_efficiency": mfu or cal.gemm(compute_dtype, gpu, eng.gemm_share(compute_dtype)),
            "kernel_overhead_us": eng.kernel_overhead_us or cal.kernel_overhead_us,
            "kernels_per_layer": eng.layer_kernels(dtype), "host_ms_per_step": eng.host_ms_per_step,
            "host_ms_per_request": eng.host_ms_per_request,
            "multiprocess_ms_per_step": eng.multiprocess_ms_per_step if tp * pp > 1 else 0.0,
            "allreduce": exp.allreduce_impl,
            # the SHM figure's derivation, where NCCL stages the all-reduce through host memory
            "allreduce_shm": collectives.shm_basis(exp_fabric) if "SHM" in exp.allreduce_impl else None,
            "nvlink_bridge": (f"not stated: the expected figure runs over {exp_fabric.name}, the bound allows "
                              f"{fabric.name} (--interconnect {fabric.key} for a bridged pair)"
                              if exp_fabric is not fabric else None),
            "memory_utilization": _r(usable / (gpu.memory_bytes / 1e9), 3), "memory_share": share_said,
            "memory": gpu.memory_said or None, "reserved_gb": _r(reserve), "gpus_per_node": gpus_per_node,
            "pp_fabric": pp_fabric.key if pp > 1 else None, "band": [lo, hi],
            "quant_group": quant_group or shapes.DEFAULT_QUANT_GROUP.get(dtype),
            "overlap": "none (communication adds to the step)",
            "decode_attention": (
                "grouped (each KV head read once per GQA group)" if step_model.grouped_attention(setting)
                else "one thread block per query head (CUDA cores; engines.toml grouped_decode_attention)"),
            "pp_microbatches": {"decode": m_e, "prefill": m_p, "step_drains": eng.pp_step_drains} if pp > 1 else None,
            "prompt_gemm": prompt_gemm(setting),
            # the TP ring's route as the caller's material states it (rules.topology.ring_route); absent: not known
            **({"ring_route": {"path": ring_path, "cpu": ring_cpu}} if ring_path and tp > 1 else {}),
            **({"nccl_release": nccl_release} if nccl_release and tp > 1 else {}),
        },
    )


def prompt_gemm(s: step_model.Setting) -> str | None:
    """How a prompt's GEMMs over integer (GGUF) weights run, where the engine has its own path for them (llama.cpp):
    the figure the summary's "GEMMs at N % of the tensor rate" does not describe. None: no such path."""
    eng = s.engine
    if not s.int8_path:
        if eng.int8_gemm and s.dtype in ("int4", "int8") and eng.int8_mma_cc and \
                s.gpu.compute_capability >= eng.int8_mma_cc:
            return (f"MMQ on INT8 tensor cores in these llama.cpp builds, but gpus.toml lists no INT8 rate for "
                    f"{s.gpu.name}: priced as an F16 copy of the weights, then cuBLAS")
        return None
    if s.int8_mma:
        return (f"MMQ on INT8 tensor cores (llama.cpp from b3216): {eng.int8_mma_efficiency:.0%} of "
                f"{s.gpu.int8_tops:g} INT8 TOPS, activations quantised to q8_1, no F16 copy")
    if s.f16_copy(eng.f16_copy_tokens + 1, 512, s.model.hidden, s.model.hidden):
        return "an F16 copy of the weights, then cuBLAS (llama.cpp before b3216)"
    return f"MMQ on INT8 dot products: {eng.int8_gemm_efficiency:.0%} of {s.gpu.int8_tops:g} INT8 TOPS"


def itl_context(prompt: int, output: int, share: float = 0.5) -> float:
    """The context the ITL is priced at in every command (predict, plan, scaling, tickets): the reply's middle,
    prompt + half the output, where the step equals its mean over the reply (attention grows linearly with context).
    A percentile of the reply's steps is the step that far into it: its p95 at prompt + 95 % of the output."""
    return prompt + share * output


def slo_share(stat: str | None) -> float:
    """How far into the reply a latency target's statistic falls ('p95' -> 0.95; 'median', 'mean', 'p50' -> 0.5): the
    steps of one reply grow with its context, so its pN step is the one at N % of the output."""
    m = re.fullmatch(r"p(\d+(?:\.\d+)?)", str(stat or "").lower())
    return float(m.group(1)) / 100 if m else 0.5


ITL_AT = "the decode step at the reply's middle context (prompt + half the output: its mean over the reply)"


BUILD_UNSTATED = "assumed: llama.cpp with or without CUDA graphs (builds before 2024-05 launch every kernel)"
RELEASE_UNSTATED = "assumed: any release of the engine (none stated)"
SPLIT_BUILDS = ("a split by layers keeps the graphs in some builds only (engines.toml pp_graphs_flips): expected as "
                "the newest builds run it")


def fp8_upcast(gpu: GpuSpec, dtype: str | None) -> str | None:
    """What FP8 weights cost on a GPU without FP8 tensor cores (an A100, a V100): every report of the layout says it,
    since its figures assume the 16-bit rate the weights were asked to avoid."""
    if dtype == "fp8" and not gpu.fp8_tflops:
        return f"{gpu.name} has no FP8 tensor cores: FP8 weights are upcast, compute runs at the 16-bit rate"
    return None


def predict_any_build(model: ModelSpec, gpu: GpuSpec, layout: Layout = Layout(), *, engine, build_stated: bool,
                      releases: tuple = (), release_note: str = "", eager: bool = False, **kwargs) -> Prediction:
    """The prediction for the engine as named, its band widened to cover what else it may have run: its build twin's
    (engines.toml build_twin) where the builds stated do not decide it (catalog.build_decides: a split by layers
    with graphs or without), and every release's profile where the engine is named
    without its release (`releases`: rules.catalog.release_candidates, oldest first). A figure any of them gives is
    healthy, so ticket, scaling and capture judge one figure alike. The expected figure is the named profile's, or
    the newest release's; the widening, and what narrowed the releases (`release_note`: rules.catalog.narrow_releases),
    is said in the assumptions. `eager`: the run was launched without CUDA graphs (rules.workload.runs_eager), so every
    profile prices each kernel's launch from the host (catalog.without_graphs)."""
    # a release line whose newest architecture is below this GPU's never ran on it (engines.toml max_cc): no candidate
    releases = tuple(e for e in releases[:-1] if not e.max_cc or gpu.compute_capability <= e.max_cc) + releases[-1:]
    if releases:
        engine = releases[-1]
    if eager:
        engine = catalog.without_graphs(engine or catalog.engine(None))
        releases = tuple(catalog.without_graphs(e) for e in releases)
    p = predict(model, gpu, layout, engine=engine, **kwargs)
    if not p.decode_step_ms_expected:
        return p
    others = []
    if not build_stated and engine and engine.build_twin:  # the twin runs the same attention path
        twin = replace(catalog.engine(engine.build_twin), flash_attention=engine.flash_attention)
        others = [catalog.without_graphs(twin) if eager else twin]
    for other in [*others, *releases[:-1]]:
        q = predict(model, gpu, layout, engine=other, **kwargs)
        ratio = q.decode_step_ms_expected / p.decode_step_ms_expected
        p.band_low, p.band_high = min(p.band_low, q.band_low * ratio), max(p.band_high, q.band_high * ratio)
    p.assumptions["band"] = [round(p.band_low, 3), round(p.band_high, 3)]
    if others:
        p.assumptions["build"] = f"{BUILD_UNSTATED}: band covers {engine.key} and {others[0].key}"
        if layout.pp > 1 and engine.pp_graphs_flips:
            p.assumptions["build"] += f"; {SPLIT_BUILDS}"
    if release_note:
        p.assumptions["release"] = (f"{release_note}: expected from {engine.key}"
                                    + (f"; band covers {', '.join(e.key for e in releases)}" if len(releases) > 1
                                       else "") + " (engines.toml releases)")
    elif len(releases) == 1:
        p.assumptions["release"] = (f"assumed: a release that runs {gpu.name} (none stated): {engine.key}, the only "
                                    "profile of those releases (engines.toml max_cc)")
    elif releases:
        p.assumptions["release"] = (f"{RELEASE_UNSTATED}: expected from the newest, {engine.key}; band covers "
                                    f"{', '.join(e.key for e in releases)} (engines.toml releases)")
    return p


def _check_args(layout, batch, prompt, context, output, dtype, kv_dtype, mbu, mfu, gpus_per_node, group) -> None:
    if min(layout.tp, layout.pp, layout.dp) < 1:
        raise InputError(f"layout {layout}: TP, PP and DP must be at least 1")
    if batch < 1 or prompt < 1 or (context is not None and context < 1) or gpus_per_node < 1:
        raise InputError("batch, prompt, context and gpus per node must be positive")
    if output is not None and output < 1:
        raise InputError("output tokens must be at least 1")
    if isinstance(group, str):
        catalog.gguf_type(group)  # unknown names are bad input
    elif group is not None and group < 1:
        raise InputError("the quantisation group size must be at least 1")
    if dtype not in DTYPE_BYTES:
        raise InputError(f"unknown dtype '{dtype}' (known: {', '.join(DTYPE_BYTES)})")
    if kv_dtype not in KV_DTYPES:
        raise InputError(f"unknown KV-cache dtype '{kv_dtype}' (known: {', '.join(KV_DTYPES)})")
    for name, value in (("mbu", mbu), ("mfu", mfu)):
        if value is not None and not 0 < value <= 1:
            raise InputError(f"--{name} must be in (0, 1], got {value}")


def _r(value: float, digits: int = 2) -> float:
    return round(float(value), digits)
