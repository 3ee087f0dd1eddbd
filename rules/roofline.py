"""The roofline predictor: what a GPU type and a TP/PP/DP layout should deliver for a model.

Two figures for everything:
- roofline: 100 % of datasheet HBM bandwidth and tensor FLOPs, communication at line rate with
  the fastest all-reduce ever measured on the fabric as its latency. Nothing real is faster.
- expected: the same terms divided by stated efficiency factors (EXPECTED below; --mbu and
  --mfu override them), NCCL's ring latency model and the typically achieved bus bandwidth.

Terms are kept apart (weights ms, KV ms, activations ms, compute ms, all-reduce ms, PP send/recv
ms, launch ms) so measurements can be compared term by term. The formulas follow
../shared/docs/collectives-reference.md section 3 and model-configs.md sections 3-4.

Conventions: `batch` is concurrent sequences per model replica (one TP x PP group); the DP
replicas multiply the totals. Embeddings and the LM head stay in 16-bit (FP8/INT4 checkpoints
ship them so); only decoder-layer weights take `dtype`. Activations are 16-bit.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace

from diagnose.errors import InputError
from rules import catalog
from rules.catalog import GpuSpec, InterconnectSpec, ModelSpec

DTYPE_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "mxfp4": 4.25 / 8}
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8")

# Efficiency factors for the "expected" figures, and why:
EXPECTED = {
    # Model-bandwidth utilisation in decode: gpt-fast saw ~1700 of 2039 GB/s (83 %) on A100;
    # collectives-reference.md quotes 0.55-0.8 as typical for serving engines.
    "mbu": 0.75,
    # Model-FLOPs utilisation in prefill: the best measured bf16 matmul is 78-87 % of the
    # datasheet (gpu-specs.md MAMF table); attention and small GEMMs bring a whole step lower.
    "mfu": 0.60,
    # Gaps between kernels per decoder layer with CUDA graphs (assumption, about 6 kernels x 1 us).
    "launch_us_per_layer": 5.0,
    # Share of GPU memory a serving engine may use (vLLM's gpu_memory_utilization default).
    "memory_utilization": 0.90,
}
FP8_BLOCK = 128  # 128x128 block-quantised FP8 checkpoints (model-configs.md section 3)
INT4_MIN_K = 128  # AWQ/Marlin min_thread_k on the row-parallel input
DEFAULT_NETWORK = "ib-ndr"
INTRA_HOP_US = 0.6  # NCCL's NVLink hop latency, for the intra-node steps of a multi-node ring


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
    """Everything predict() computes for one model x GPU x layout x batch. JSON-able."""

    model: str
    gpu: str
    tp: int
    pp: int
    dp: int
    gpus: int
    batch: int
    prompt: int
    context: int
    dtype: str
    kv_dtype: str
    interconnect: str  # fabric carrying the TP all-reduce
    mbu: float
    mfu: float
    valid: bool
    fits: bool
    # memory
    weights_gb_per_gpu: float
    kv_gb_per_seq_per_gpu: float
    kv_budget_gb: float
    max_concurrent_seqs: int
    memory_shortfall_gb: float
    kv_replication: int
    # decode step (one token for every sequence in the batch), roofline terms in ms per GPU
    streamed_gb_per_step: float  # bytes read from HBM per step, all GPUs of one replica
    weights_ms: float
    kv_ms: float
    activation_ms: float
    memory_ms: float
    compute_ms: float
    bound: str  # memory | compute
    allreduce_count_per_step: int
    allreduce_bytes: int  # one all-reduce message
    allreduce_ms_per_step: float
    pp_sendrecv_ms: float
    pp_bubble_fraction: float
    decode_step_ms: float
    decode_tok_s: float  # per sequence
    decode_tok_s_total: float  # all sequences, all DP replicas
    # expected (efficiency factors applied)
    memory_ms_expected: float
    compute_ms_expected: float
    allreduce_ms_per_step_expected: float
    launch_ms_expected: float
    decode_step_ms_expected: float
    decode_tok_s_expected: float
    decode_tok_s_total_expected: float
    allreduce_share_expected: float  # of the expected decode step
    # prefill
    prefill_bound: str
    ttft_ms: float
    ttft_ms_expected: float
    prefill_tok_s: float  # one replica, whole batch of prompts
    prefill_tok_s_expected: float
    prefill_tok_s_total_expected: float
    experts_touched_per_layer: float = 0.0
    problems: list[Problem] = field(default_factory=list)
    assumptions: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def terms(self, expected: bool = True) -> dict[str, float]:
        """The decode step per GPU, term by term in ms, to set beside a measured breakdown.

        The memory terms overlap compute (the step takes the larger of the two); the all-reduce,
        PP send/recv and launch terms add on top.
        """
        m = 1.0 / self.mbu if expected else 1.0
        return {
            "weights_ms": round(self.weights_ms * m, 4),
            "kv_ms": round(self.kv_ms * m, 4),
            "activation_ms": round(self.activation_ms * m, 4),
            "compute_ms": self.compute_ms_expected if expected else self.compute_ms,
            "allreduce_ms": self.allreduce_ms_per_step_expected if expected else self.allreduce_ms_per_step,
            "pp_sendrecv_ms": self.pp_sendrecv_ms,
            "launch_ms": self.launch_ms_expected if expected else 0.0,
            "step_ms": self.decode_step_ms_expected if expected else self.decode_step_ms,
        }


# --------------------------------------------------------------------------- validity


def kv_replication(model: ModelSpec, tp: int) -> int:
    """How many TP ranks hold a copy of each KV head (MLA: the latent is on every rank)."""
    if model.is_mla:
        return tp
    return max(1, tp // model.kv_heads) if tp >= model.kv_heads else 1


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


# --------------------------------------------------------------------------- per-rank sizes


def decoder_params_per_rank(model: ModelSpec, tp: int, experts_touched: float | None = None) -> float:
    """Decoder-layer parameters held (or, with experts_touched, read) by one TP rank, all layers."""
    h = model.hidden
    if model.is_mla:
        rope, nope, v = model.qk_rope_head_dim, model.qk_nope_head_dim, model.v_head_dim
        replicated = h * model.q_lora_rank + h * (model.kv_lora_rank + rope)
        split = model.attn_params() - replicated
        attn = replicated + split / tp
    else:
        kv_weights = 2 * h * model.kv_heads * model.head_dim
        kv_per_rank = kv_weights * kv_replication(model, tp) / tp
        attn = (model.attn_params() - kv_weights) / tp + kv_per_rank
    norms = model.norms_per_layer * h
    dense = model.mlp_params(model.ffn) / tp
    per_dense_layer = attn + norms + dense
    if not model.is_moe:
        return model.layers * per_dense_layer
    n = model.experts if experts_touched is None else experts_touched
    per_moe_layer = attn + norms + model.router_params() + (n * model.mlp_params(model.expert_ffn) + model.shared_params()) / tp
    return (model.layers - model.moe_layers) * per_dense_layer + model.moe_layers * per_moe_layer


def decoder_bytes_per_rank(model: ModelSpec, tp: int, dtype: str, experts_touched: float | None = None) -> float:
    """Decoder weight bytes on one TP rank. MXFP4 checkpoints (GPT-OSS) quantise only the
    routed experts; attention, router and shared experts stay 16-bit."""
    params = decoder_params_per_rank(model, tp, experts_touched)
    if dtype != "mxfp4" or not model.is_moe:
        return params * DTYPE_BYTES[dtype]
    n = model.experts if experts_touched is None else experts_touched
    experts = model.moe_layers * n * model.mlp_params(model.expert_ffn) / tp
    return experts * DTYPE_BYTES[dtype] + (params - experts) * 2.0


def experts_touched(model: ModelSpec, tokens: int) -> float:
    """Expected distinct experts a layer reads for `tokens` tokens under uniform routing.

    One token reads experts_active; a batch approaches all experts (model-configs.md section 4).
    """
    if not model.is_moe:
        return 0.0
    e, k = model.experts, model.experts_active
    return e * (1.0 - (1.0 - k / e) ** tokens)


def smaller_dtype_hint(dtype: str) -> str:
    """'a smaller weight dtype (--dtype fp8/int4), ' naming only dtypes smaller than `dtype` ('' at int4)."""
    smaller = [d for d in ("fp8", "int4") if DTYPE_BYTES[d] < DTYPE_BYTES.get(dtype, 2.0)]
    return f"a smaller weight dtype (--dtype {'/'.join(smaller)}), " if smaller else ""


def usable_gb(gpu: GpuSpec) -> float:
    """GB (1e9 B) a serving engine may fill on one GPU: memory_utilization of its memory."""
    return gpu.memory_bytes / 1e9 * EXPECTED["memory_utilization"]


def weights_bytes_per_gpu(model: ModelSpec, layout: Layout, dtype: str) -> float:
    """Weights resident on the fullest GPU (first or last PP stage)."""
    tp, pp = layout.tp, layout.pp
    stage_share = math.ceil(model.layers / pp) / model.layers
    decoder = decoder_bytes_per_rank(model, tp, dtype) * stage_share
    emb = model.embedding_params() * _edge_bytes(dtype) / tp
    head = 0.0 if model.tied_embeddings else model.lm_head_params() * _edge_bytes(dtype) / tp
    edges = emb + head if pp == 1 else max(emb, head if head else emb)
    return decoder + edges


def _edge_bytes(dtype: str) -> float:
    """Embedding / LM-head bytes per parameter: 16-bit unless everything is fp32."""
    return 4.0 if dtype == "fp32" else 2.0


def kv_bytes_per_token_per_gpu(model: ModelSpec, tp: int, pp: int, kv_dtype: str, context: int | None = None) -> float:
    whole = model.kv_bytes_per_token(DTYPE_BYTES[kv_dtype], context)
    per_rank = whole * kv_replication(model, tp) / tp if not model.is_mla else whole
    return per_rank * math.ceil(model.layers / pp) / model.layers


# --------------------------------------------------------------------------- work per step


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


def _attention_flops_per_token(model: ModelSpec, tp: int, attended: float) -> float:
    """QK^T and PV for one query token attending to `attended` keys, per rank, all layers."""
    heads = model.heads / tp
    if model.is_mla:  # absorbed MLA: scores over the latent + rope, values in the latent
        dims = (model.kv_lora_rank + model.qk_rope_head_dim) + model.kv_lora_rank
    else:
        dims = 2 * model.head_dim
    return 2.0 * heads * dims * attended * model.layers


def _attended(model: ModelSpec, context: int) -> float:
    """Average keys attended per layer at this context (windowed layers see at most the window)."""
    if not (model.sliding_window and model.sliding_window_every) or context <= model.sliding_window:
        return float(context)
    local = model.layers // model.sliding_window_every
    return ((model.layers - local) * context + local * model.sliding_window) / model.layers


def _allreduces_per_pass(model: ModelSpec, tp: int) -> int:
    """Two per layer (after o_proj and down_proj); one with a parallel attention+MLP block."""
    if tp == 1:
        return 0
    return model.layers * (1 if model.parallel_attn else 2)


def _act_bytes_per_token(model: ModelSpec, tp: int) -> float:
    """Activation reads+writes per token per rank, all layers (fused kernels, 16-bit)."""
    ffn = model.experts_active * model.expert_ffn if model.is_moe else model.ffn
    return (6 * model.hidden + 5 * ffn / tp) * 2.0 * model.layers


def decode_work(model: ModelSpec, tp: int, batch: int, context: int, dtype: str, kv_dtype: str) -> Work:
    """One decode step: every sequence in `batch` produces one token at `context` tokens of KV."""
    touched = experts_touched(model, batch) if model.is_moe else None
    head = model.lm_head_params() / tp  # tied: the embedding table is read as the LM head
    weights = decoder_bytes_per_rank(model, tp, dtype, touched) + head * _edge_bytes(dtype)
    kv = batch * context * kv_bytes_per_token_per_gpu(model, tp, 1, kv_dtype, context)
    active = decoder_params_per_rank(model, tp, model.experts_active if model.is_moe else None) + head
    flops = batch * (2.0 * active + _attention_flops_per_token(model, tp, _attended(model, context)))
    return Work(weights, kv, batch * _act_bytes_per_token(model, tp), flops,
                _allreduces_per_pass(model, tp), batch * model.hidden * 2, touched or 0.0)


def prefill_work(model: ModelSpec, tp: int, sequences: int, prompt: int, dtype: str, kv_dtype: str) -> Work:
    """Prefill of `sequences` prompts of `prompt` tokens each (causal attention, KV written once)."""
    tokens = sequences * prompt
    touched = experts_touched(model, tokens) if model.is_moe else None
    head = model.lm_head_params() / tp
    weights = decoder_bytes_per_rank(model, tp, dtype, touched) + head * _edge_bytes(dtype)
    kv = tokens * kv_bytes_per_token_per_gpu(model, tp, 1, kv_dtype, prompt)
    active = decoder_params_per_rank(model, tp, model.experts_active if model.is_moe else None)
    attn = _attention_flops_per_token(model, tp, _attended(model, prompt) / 2)  # causal: half on average
    flops = tokens * (2.0 * active + attn) + sequences * 2.0 * head  # logits only for the last token
    return Work(weights, kv, tokens * _act_bytes_per_token(model, tp), flops,
                _allreduces_per_pass(model, tp), tokens * model.hidden * 2, touched or 0.0)


# --------------------------------------------------------------------------- communication


def allreduce_time_us(interconnect, nranks: int, size_bytes: float, *, roofline: bool = False, nodes: int = 1) -> float:
    """One all-reduce of `size_bytes` over `nranks` GPUs, alpha-beta model.

    expected: NCCL ring/LL latency, base + 2(n-1) hops (across nodes, 2(nodes-1) of them are
    network hops), and the data term at the achieved bus bandwidth. roofline: the fabric's smallest measured all-reduce time as latency and the data
    term at line rate. Data term inside a node: 2(n-1)/n x size (ring bus factor), or 1 x size
    when the switch reduces (NVLS). On a `network` fabric the ranks sit `nranks/nodes` to a
    node, each GPU with its own NIC, and the reduction is hierarchical (NVLink inside the node),
    so each NIC carries 2(nodes-1)/nodes x size / (ranks per node).
    """
    ic = catalog.interconnect(interconnect)
    if nranks <= 1:
        return 0.0
    bw = (ic.bandwidth_gbs if roofline else ic.achieved_gbs) * 1e3  # bytes per microsecond
    if ic.kind == "network":
        nodes = nodes if nodes > 1 else nranks
        data = 2.0 * (nodes - 1) / nodes * size_bytes / (nranks / nodes)
    elif roofline and ic.in_network_reduction:
        data = size_bytes
    else:
        data = 2.0 * (nranks - 1) / nranks * size_bytes
    if roofline:
        alpha = ic.floor_us
    elif ic.kind == "network":  # NCCL: 2(nodes-1) of the ring's 2(n-1) steps cross the network
        net_steps = 2 * (nodes - 1)
        alpha = ic.latency_us + net_steps * ic.hop_us + (2 * (nranks - 1) - net_steps) * INTRA_HOP_US
    else:
        alpha = ic.latency_us + 2 * (nranks - 1) * ic.hop_us
    return alpha + data / bw


def p2p_time_us(interconnect, size_bytes: float, *, roofline: bool = False) -> float:
    """One PP send/recv between neighbouring stages."""
    ic = catalog.interconnect(interconnect)
    if roofline:
        return ic.floor_us / 2 + size_bytes / (ic.bandwidth_gbs * 1e3)
    return ic.latency_us + ic.hop_us + size_bytes / (ic.achieved_gbs * 1e3)


def tp_fabric(gpu: GpuSpec, tp: int, gpus_per_node: int, interconnect=None, network=None) -> tuple[InterconnectSpec, int]:
    """The fabric a TP group's all-reduce runs on, and how many nodes it spans."""
    nodes = math.ceil(tp / gpus_per_node)
    if nodes > 1:
        return catalog.interconnect(network or DEFAULT_NETWORK), nodes
    if interconnect is not None:
        return _capped(gpu, catalog.interconnect(interconnect)), 1
    if gpu.nvlink_gbs and tp <= gpu.nvlink_domain:
        return _capped(gpu, catalog.interconnect(gpu.interconnect)), 1
    return catalog.interconnect(gpu.pcie_interconnect), 1


def _capped(gpu: GpuSpec, ic: InterconnectSpec) -> InterconnectSpec:
    """An NVLink fabric cannot run faster than the GPU's own links (a bridged H100 PCIe: 300)."""
    if ic.kind not in ("nvlink", "nvswitch") or not gpu.nvlink_gbs or gpu.nvlink_gbs >= ic.bandwidth_gbs:
        return ic
    scale = gpu.nvlink_gbs / ic.bandwidth_gbs
    return replace(ic, bandwidth_gbs=gpu.nvlink_gbs, achieved_gbs=ic.achieved_gbs * scale)


def _cross_node_boundaries(layout: Layout, gpus_per_node: int) -> int:
    """PP stage boundaries that fall between nodes (TP ranks innermost, stages next)."""
    tp = layout.tp
    return sum(1 for s in range(1, layout.pp) if (s * tp) // gpus_per_node != (s * tp - 1) // gpus_per_node)


# --------------------------------------------------------------------------- timing


@dataclass
class PassTime:
    """Milliseconds for one pass through all stages of one replica."""

    weights_ms: float
    kv_ms: float
    act_ms: float
    compute_ms: float
    allreduce_ms: float
    launch_ms: float

    @property
    def memory_ms(self) -> float:
        return self.weights_ms + self.kv_ms + self.act_ms

    @property
    def bound(self) -> str:
        return "compute" if self.compute_ms > self.memory_ms else "memory"

    @property
    def total_ms(self) -> float:
        """No overlap of communication with compute (collectives-reference.md 3.1)."""
        return max(self.memory_ms, self.compute_ms) + self.allreduce_ms + self.launch_ms


def pass_time(work: Work, gpu: GpuSpec, fabric: InterconnectSpec, tp: int, nodes: int, compute_dtype: str,
              mbu: float = 1.0, mfu: float = 1.0, roofline: bool = True, launch_us_per_layer: float = 0.0,
              layers: int = 0) -> PassTime:
    bw = gpu.hbm_gbs * 1e9 * mbu
    ar_us = allreduce_time_us(fabric, tp, work.message_bytes, roofline=roofline, nodes=nodes)
    return PassTime(
        weights_ms=work.weights_bytes / bw * 1e3,
        kv_ms=work.kv_bytes / bw * 1e3,
        act_ms=work.act_bytes / bw * 1e3,
        compute_ms=work.flops / (gpu.tflops(compute_dtype) * 1e12 * mfu) * 1e3,
        allreduce_ms=work.allreduces * ar_us / 1e3,
        launch_ms=layers * launch_us_per_layer / 1e3,
    )


@dataclass
class _Runner:
    """Times a Work on one replica, roofline or expected, and pipelines it over PP stages."""

    model: ModelSpec
    gpu: GpuSpec
    fabric: InterconnectSpec
    pp_fabric: InterconnectSpec
    nodes: int
    tp: int
    pp: int
    compute_dtype: str
    mbu: float
    mfu: float

    def time(self, work: Work, expected: bool) -> PassTime:
        if not expected:
            return pass_time(work, self.gpu, self.fabric, self.tp, self.nodes, self.compute_dtype)
        return pass_time(work, self.gpu, self.fabric, self.tp, self.nodes, self.compute_dtype, self.mbu, self.mfu,
                         roofline=False, launch_us_per_layer=EXPECTED["launch_us_per_layer"], layers=self.model.layers)

    def sendrecv_ms(self, size_bytes: float, expected: bool) -> float:
        return p2p_time_us(self.pp_fabric, size_bytes, roofline=not expected) / 1e3 if self.pp > 1 else 0.0

    def pipelined(self, t: PassTime, microbatches: int, sendrecv_bytes: float, expected: bool, one_shot: bool) -> float:
        """Time for every microbatch to cross every stage once (balanced stages).

        Steady decode: a round lasts max(m, pp) stage-times; one-shot (prefill): m + pp - 1.
        """
        slots = (microbatches + self.pp - 1) if one_shot else max(microbatches, self.pp)
        return slots * t.total_ms / self.pp + (self.pp - 1) * self.sendrecv_ms(sendrecv_bytes, expected)


# --------------------------------------------------------------------------- predict


def predict(model, gpu, layout: Layout = Layout(), batch: int = 1, prompt: int = 1024, context: int | None = None,
            dtype: str | None = None, kv_dtype: str | None = None, interconnect=None, mbu: float | None = None,
            mfu: float | None = None, gpus_per_node: int = 8, network=None) -> Prediction:
    """Roofline and expected performance of `model` on `layout` x `gpu` (see module docstring).

    context: KV tokens each sequence holds during decode (default prompt + 256).
    dtype None: the checkpoint's own dtype (bf16 for most catalog models, fp8 for DeepSeek-V3,
    mxfp4 for GPT-OSS). kv_dtype None: 16-bit (fp8 weights keep a bf16 cache).
    """
    model, gpu = catalog.model(model), catalog.gpu(gpu)
    dtype = dtype or model.checkpoint_dtype
    kv_dtype = kv_dtype or ("fp16" if dtype == "fp16" else "bf16")
    _check_args(layout, batch, prompt, context, dtype, kv_dtype, mbu, mfu, gpus_per_node)
    context = context or prompt + 256
    mbu = EXPECTED["mbu"] if mbu is None else mbu
    mfu = EXPECTED["mfu"] if mfu is None else mfu
    tp, pp = layout.tp, layout.pp
    compute_dtype = "fp8" if dtype == "fp8" and gpu.fp8_tflops else ("fp16" if dtype == "fp16" else "bf16")
    fabric, nodes = tp_fabric(gpu, tp, gpus_per_node, interconnect, network)
    pp_fabric = _pp_fabric(gpu, layout, gpus_per_node, interconnect, network)
    problems = validity(model, tp, pp, dtype)
    if dtype == "fp8" and not gpu.fp8_tflops:
        problems.append(Problem("no_fp8", "other", "info",
                                f"{gpu.name} has no FP8 tensor cores: FP8 weights are upcast, compute runs at the 16-bit rate"))
    if nodes > 1:
        problems.append(Problem("tp_spans_nodes", "cross_node_tp", "warning",
                                f"TP={tp} spans {nodes} nodes of {gpus_per_node} GPUs: every layer's all-reduce crosses {fabric.name}"))

    # memory fit
    usable = usable_gb(gpu)
    weights_gb = weights_bytes_per_gpu(model, layout, dtype) / 1e9
    kv_seq_gb = context * kv_bytes_per_token_per_gpu(model, tp, pp, kv_dtype, context) / 1e9
    budget = usable - weights_gb
    max_seqs = max(0, int(budget // kv_seq_gb)) if kv_seq_gb > 0 else 0
    shortfall = max(0.0, weights_gb + batch * kv_seq_gb - usable)
    if shortfall > 0:
        what = "the weights alone" if budget < 0 else f"weights + KV for {batch} x {context} tokens"
        problems.append(Problem("does_not_fit", "other", "error",
                                f"{what} need {weights_gb + (batch * kv_seq_gb if budget >= 0 else 0):.1f} GB per GPU, "
                                f"{usable:.1f} GB usable ({EXPECTED['memory_utilization']:.0%} of {gpu.memory_gb:g} GiB): "
                                f"short by {shortfall:.1f} GB"))

    # decode: m microbatches of the batch in flight through pp stages
    run = _Runner(model, gpu, fabric, pp_fabric, nodes, tp, pp, compute_dtype, mbu, mfu)
    m = max(1, min(batch, pp))
    mb = math.ceil(batch / m)
    dw = decode_work(model, tp, mb, context, dtype, kv_dtype)
    roof, exp = run.time(dw, False), run.time(dw, True)
    step = run.pipelined(roof, m, mb * model.hidden * 2, False, one_shot=False)
    step_exp = run.pipelined(exp, m, mb * model.hidden * 2, True, one_shot=False)
    share = m / pp  # per GPU per step: m microbatches through 1/pp of the layers

    # prefill: TTFT of one prompt alone; throughput of the whole batch of prompts
    one = prefill_work(model, tp, 1, prompt, dtype, kv_dtype)
    many = prefill_work(model, tp, mb, prompt, dtype, kv_dtype)
    psr = prompt * model.hidden * 2
    ttft = run.pipelined(run.time(one, False), 1, psr, False, one_shot=True)
    ttft_exp = run.pipelined(run.time(one, True), 1, psr, True, one_shot=True)
    many_roof = run.time(many, False)
    prefill_ms = run.pipelined(many_roof, m, psr * mb, False, one_shot=True)
    prefill_ms_exp = run.pipelined(run.time(many, True), m, psr * mb, True, one_shot=True)
    prompt_tokens = batch * prompt

    return Prediction(
        model=model.key, gpu=gpu.key, tp=tp, pp=pp, dp=layout.dp, gpus=layout.gpus, batch=batch,
        prompt=prompt, context=context, dtype=dtype, kv_dtype=kv_dtype, interconnect=fabric.key,
        mbu=mbu, mfu=mfu,
        valid=not any(p.severity == "error" and p.code != "does_not_fit" for p in problems),
        fits=shortfall == 0,
        weights_gb_per_gpu=_r(weights_gb), kv_gb_per_seq_per_gpu=_r(kv_seq_gb, 4), kv_budget_gb=_r(budget),
        max_concurrent_seqs=max_seqs, memory_shortfall_gb=_r(shortfall), kv_replication=kv_replication(model, tp),
        streamed_gb_per_step=_r((dw.weights_bytes + dw.kv_bytes) * tp * m / 1e9),
        weights_ms=_r(roof.weights_ms * share, 4), kv_ms=_r(roof.kv_ms * share, 4),
        activation_ms=_r(roof.act_ms * share, 4), memory_ms=_r(roof.memory_ms * share, 4),
        compute_ms=_r(roof.compute_ms * share, 4), bound=roof.bound,
        allreduce_count_per_step=round(dw.allreduces * share), allreduce_bytes=dw.message_bytes,
        allreduce_ms_per_step=_r(roof.allreduce_ms * share, 4),
        pp_sendrecv_ms=_r(run.sendrecv_ms(mb * model.hidden * 2, False) * (pp - 1), 4),
        pp_bubble_fraction=_r(1.0 - m / max(m, pp), 3),
        decode_step_ms=_r(step, 4), decode_tok_s=_r(1e3 / step), decode_tok_s_total=_r(1e3 / step * batch * layout.dp),
        memory_ms_expected=_r(exp.memory_ms * share, 4), compute_ms_expected=_r(exp.compute_ms * share, 4),
        allreduce_ms_per_step_expected=_r(exp.allreduce_ms * share, 4),
        launch_ms_expected=_r(exp.launch_ms * share, 4),
        decode_step_ms_expected=_r(step_exp, 4), decode_tok_s_expected=_r(1e3 / step_exp),
        decode_tok_s_total_expected=_r(1e3 / step_exp * batch * layout.dp),
        allreduce_share_expected=_r(exp.allreduce_ms * share / step_exp, 3),
        prefill_bound=many_roof.bound, ttft_ms=_r(ttft, 3), ttft_ms_expected=_r(ttft_exp, 3),
        prefill_tok_s=_r(prompt_tokens / prefill_ms * 1e3), prefill_tok_s_expected=_r(prompt_tokens / prefill_ms_exp * 1e3),
        prefill_tok_s_total_expected=_r(prompt_tokens / prefill_ms_exp * 1e3 * layout.dp),
        experts_touched_per_layer=_r(dw.experts_touched, 2),
        problems=problems,
        assumptions={**EXPECTED, "mbu": mbu, "mfu": mfu, "gpus_per_node": gpus_per_node,
                     "pp_fabric": pp_fabric.key if pp > 1 else None,
                     "overlap": "none (communication adds to the step)"},
    )


def _pp_fabric(gpu: GpuSpec, layout: Layout, gpus_per_node: int, interconnect, network) -> InterconnectSpec:
    if layout.pp > 1 and _cross_node_boundaries(layout, gpus_per_node):
        return catalog.interconnect(network or DEFAULT_NETWORK)
    return tp_fabric(gpu, min(layout.tp * layout.pp, gpus_per_node), gpus_per_node, interconnect, network)[0]


def _check_args(layout, batch, prompt, context, dtype, kv_dtype, mbu, mfu, gpus_per_node) -> None:
    if min(layout.tp, layout.pp, layout.dp) < 1:
        raise InputError(f"layout {layout}: TP, PP and DP must be at least 1")
    if batch < 1 or prompt < 1 or (context is not None and context < 1) or gpus_per_node < 1:
        raise InputError("batch, prompt, context and gpus per node must be positive")
    if dtype not in DTYPE_BYTES:
        raise InputError(f"unknown dtype '{dtype}' (known: {', '.join(DTYPE_BYTES)})")
    if kv_dtype not in KV_DTYPES:
        raise InputError(f"unknown KV-cache dtype '{kv_dtype}' (known: {', '.join(KV_DTYPES)})")
    for name, value in (("mbu", mbu), ("mfu", mfu)):
        if value is not None and not 0 < value <= 1:
            raise InputError(f"--{name} must be in (0, 1], got {value}")


def _r(value: float, digits: int = 2) -> float:
    return round(float(value), digits)
