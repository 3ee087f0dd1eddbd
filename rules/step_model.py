"""The expected figures: one pass of a model through one TP rank, timed kernel by kernel as a
healthy GPU running a given engine delivers it.

A kernel costs a fixed time (calibration `kernel_overhead_us`: launch inside a graph, ramp-up,
the last partial wave) plus its bytes at the achieved stream bandwidth and its FLOPs at the
achieved tensor rate for its shape and dtype, combined as they overlap (the larger far from
the ridge point, more than either near it: `overlapped`); a grouped expert GEMM runs at a
share of the dense rate (`expert_gemm_efficiency`). So the bandwidth a step achieves is a
function of the bytes per kernel: near the stream efficiency when each GPU holds large matrices,
falling as TP shrinks them (the implied MBU of published runs falls from ~0.7 at TP1 to 0.3-0.4
at TP8), and the FLOPs a GEMM achieves falls when its output tiles do not fill the GPU's SMs.

Per decoder layer: its GEMMs (rules.shapes.layer_matrices), one attention kernel, and the
engine's other kernels (norms, rotary, activation, residual adds: `kernels_per_layer` minus
a dense layer's four GEMMs and its attention; an MoE layer adds its routing) with the
activation traffic; per pass the LM head and a few sampling kernels; every all-reduce at the
engine's implementation (rules.collectives), and apart from them the wait for the group's slowest
GPU (`slowest_gpu_wait_ms`), or, where the hosts set the pace, for the slowest rank's host
(`host_speed_cv`, where each rank is its own Python process: engines.toml python_rank_processes).
Without CUDA graphs the host launches every
kernel, calls every all-reduce and makes the layer's views itself, so a pass takes at least kernels x `launch_us`
+ all-reduces x `allreduce_host_us` + layers x `host_us_per_layer`; with piecewise CUDA graphs (each layer's
attention eager between graph pieces) a decode pass adds layers x `piecewise_layer_us`. The engine's host time per
step and per request is added by the caller (rules.roofline), once. A decode attention kernel that runs one
thread block per query head (grouped_attention false) may be bound by its CUDA-core work; a prefill
attention that is not fused (engines.toml context_score_bytes) moves every score through memory.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields

from rules import collectives, shapes
from rules.catalog import Calibration, EngineSpec, GpuSpec, InterconnectSpec, ModelSpec, gguf_type

STEP_KERNELS = 4  # per pass outside the layers: embedding, final norm, logits processing, sampling
DENSE_GEMMS = 4  # QKV, O, gate/up, down: the GEMMs engines.toml kernels_per_layer counts in
MOE_ROUTING_KERNELS = 3  # top-k, token permute, un-permute / combine
# MLA (DeepSeek-V3) runs its attention projections as six GEMM-like kernels and two norms where
# a GQA layer runs one QKV GEMM: q down-proj, q norm, q up-proj, kv down-proj, kv norm, and the
# absorbed k and v up-projections (two batched GEMMs around the attention).
MLA_EXTRA_KERNELS = 6
UNFUSED_ATTENTION_KERNELS = 3  # QK^T batched GEMM, masked softmax, PV batched GEMM (one fused kernel otherwise)
TILE = 128  # output tile edge of the tensor-core GEMM kernels (cuBLAS / CUTLASS 128x128 tiles)
SPLIT_K_MIN = 512  # shortest K slice a split-K GEMM gives one work unit
# 16-bit tensor cores from Volta (compute capability 7.0) on: llama.cpp's dp4a INT8 kernels run a prompt only below
# it (ggml-cuda's CUDA_USE_TENSOR_CORES / fp16_mma_available hand larger batches to cuBLAS there)
FP16_TENSOR_CC = 7.0
# most rows ggml-cuda multiplies with its mat-vec kernels (MMVQ_MAX_BATCH_SIZE, ggml/src/ggml-cuda/mmvq.cuh); more go
# to MMQ
MMVQ_MAX_BATCH = 8


@dataclass
class PassTerms:
    """Milliseconds of one pass on one rank, split so a measurement can be compared term by term.

    weights/kv/activation: their bytes at the achieved stream bandwidth; compute: GEMM and
    attention time beyond their streaming (compute-bound kernels); overhead: the fixed time of
    every kernel; allreduce: every all-reduce; wait: the TP group's wait at its all-reduces for
    its slowest GPU; launch: host launch time the GPU waits for (no CUDA graphs, or the eager attention
    between piecewise graph pieces).
    """

    weights_ms: float = 0.0
    kv_ms: float = 0.0
    activation_ms: float = 0.0
    compute_ms: float = 0.0
    overhead_ms: float = 0.0
    allreduce_ms: float = 0.0
    wait_ms: float = 0.0
    launch_ms: float = 0.0
    kernels: int = 0
    allreduces: int = 0
    allreduce_us: float = 0.0
    allreduce_impl: str = "none"

    @property
    def memory_ms(self) -> float:
        return self.weights_ms + self.kv_ms + self.activation_ms

    @property
    def total_ms(self) -> float:
        return self.memory_ms + self.compute_ms + self.overhead_ms + self.allreduce_ms + self.wait_ms + self.launch_ms

    def scaled(self, factor: float) -> "PassTerms":
        """Per-GPU share of a pass over `factor` of the layers (PP: m microbatches / pp stages)."""
        out = PassTerms(**{f.name: getattr(self, f.name) for f in fields(self)})
        for name in ("weights_ms", "kv_ms", "activation_ms", "compute_ms", "overhead_ms", "allreduce_ms", "wait_ms",
                     "launch_ms"):
            setattr(out, name, getattr(self, name) * factor)
        return out


@dataclass(frozen=True)
class Setting:
    """Everything about the run that is not the batch: who runs what where, at what efficiency."""

    model: ModelSpec
    gpu: GpuSpec
    engine: EngineSpec
    cal: Calibration
    tp: int
    dtype: str
    kv_dtype: str
    fabric: InterconnectSpec
    nodes: int = 1
    p2p: bool = True
    group: int | str | None = None
    stream_efficiency: float | None = None  # --mbu override
    gemm_efficiency: float | None = None  # --mfu override
    ring_path: str = ""  # the TP ring's worst PCIe link (collectives.PATHS), where known; "" unknown
    ring_cpu: str = ""  # the host CPUs' link where the ring spans sockets (collectives.NCCL_CPU_LINK_GBS); "" unknown
    nccl_release: str = ""  # the NCCL release that ran, where stated (collectives.tuning); "" the pinned one

    @property
    def compute_dtype(self) -> str:
        if self.engine.gemm_dtype == "fp16" and self.engine.gemm_accumulate == "fp16":
            return "fp16acc16"  # FP16 accumulate: twice the FP32-accumulate rate on GeForce boards
        if self.engine.gemm_dtype:  # the engine's own GEMM type (llama.cpp: fp16 for every GGUF type)
            return self.engine.gemm_dtype
        if self.dtype == "fp8" and self.gpu.fp8_tflops:
            return "fp8"
        return "fp16" if self.dtype == "fp16" else "bf16"

    @property
    def int8_path(self) -> bool:
        """Whether the engine may multiply these integer weights with INT8 dot products (llama.cpp's MMQ: the
        activations quantised to 8 bits) on a GPU that lists an INT8 rate."""
        return self.engine.int8_gemm and self.dtype in ("int4", "int8") and bool(self.gpu.int8_tops)

    @property
    def int8_mma(self) -> bool:
        """Whether those INT8 GEMMs run on INT8 tensor cores whatever the batch (engines.toml int8_mma_cc: llama.cpp's
        MMQ from b3216 on compute capability 7.5 and newer), in place of the 16-bit path."""
        cc = self.engine.int8_mma_cc
        return self.int8_path and bool(cc) and self.gpu.compute_capability >= cc

    def mmq_rows(self, m: float) -> bool:
        """Whether a weight GEMM of m rows runs as MMQ on INT8 tensor cores: more rows than a mat-vec kernel takes
        (ggml-cuda's MMVQ up to MMVQ_MAX_BATCH_SIZE, mmvq.cuh), on the path int8_mma opens."""
        return self.int8_mma and m > MMVQ_MAX_BATCH

    def gemm_rate(self, m: float, n: float, k: float) -> float:
        """Achieved FLOPs per microsecond of a weight GEMM: the engine's INT8 tensor-core path where it runs one
        (mmq_rows), else its 16-bit path, or its INT8 dot-product path where that is the faster on this GPU (a P40's
        47 INT8 TOPS against its 11.8 FP16/FP32 TFLOPS; on a GPU with 16-bit tensor cores the 16-bit path)."""
        if self.mmq_rows(m):
            return self.tensor_rate("int8", m, n, k)
        rate = self.tensor_rate(self.compute_dtype, m, n, k)
        if not self.int8_path or self.gpu.compute_capability >= FP16_TENSOR_CC:
            return rate
        return max(rate, self.tensor_rate("int8", m, n, k))

    def f16_copy(self, tokens: float, m: float, n: float, k: float) -> bool:
        """Whether a GEMM of `tokens` rows over quantised weights first writes them out as F16 and multiplies that
        copy (engines.toml f16_copy_tokens: llama.cpp hands a prompt's quantised weights to cuBLAS so, when its
        16-bit path is the faster)."""
        limit = self.engine.f16_copy_tokens
        if self.int8_mma:
            return False
        sixteen = self.tensor_rate(self.compute_dtype, m, n, k)
        return bool(limit) and tokens > limit and self.gemm_rate(m, n, k) == sixteen

    def stream_bw(self) -> float:
        """Achieved bytes per microsecond of a long stream."""
        eff = self.stream_efficiency or self.cal.stream_efficiency
        return self.gpu.hbm_gbs * 1e3 * eff

    def tensor_rate(self, dtype: str, m: float, n: float, k: float) -> float:
        """Achieved FLOPs per microsecond of an m x n x k GEMM: the ceiling, times the share of SMs
        its tiles keep busy, times the share of each tile's time spent in its K loop (a tile's
        prologue and epilogue cost about `tile_overhead_k` steps of K, so a shallow K, as TP
        leaves the row-parallel GEMMs, runs less efficiently)."""
        eff = self.gemm_efficiency or self.cal.gemm(dtype, self.gpu, self.engine.gemm_share(dtype))
        if dtype == "int8":  # the engine's INT8 kernels (llama.cpp's MMQ), at their own share: tensor cores or dp4a
            eff = (self.engine.int8_mma_efficiency if self.int8_mma else self.engine.int8_gemm_efficiency) or eff
        depth = k / (k + self.cal.tile_overhead_k)
        return self.gpu.tflops(dtype) * 1e6 * eff * wave_efficiency(m, n, k, self.gpu.sms) * depth


def wave_efficiency(m: float, n: float, k: float, sms: int) -> float:
    """Share of the SMs busy over a GEMM's waves of work units: TILE x TILE output tiles, each
    split along K into slices of at least SPLIT_K_MIN (split-K / stream-K, as cuBLAS and CUTLASS
    do when the output tiles alone cannot fill the GPU). Units that do not fill the last wave
    leave SMs idle."""
    if not sms:
        return 1.0
    tiles = math.ceil(max(m, 1) / TILE) * math.ceil(max(n, 1) / TILE)
    split = max(1, min(math.ceil(sms / tiles), int(k // SPLIT_K_MIN)))
    units = tiles * split
    return units / (math.ceil(units / sms) * sms)


def pass_terms(s: Setting, *, sequences: int, tokens_per_seq: int, context: float, prefill: bool) -> PassTerms:
    """One pass through all layers: decode (tokens_per_seq = 1 at `context` keys) or prefill
    (tokens_per_seq = prompt, causal attention over the prompt)."""
    model, cal = s.model, s.cal
    tokens = sequences * tokens_per_seq
    bw = s.stream_bw()
    over = s.engine.kernel_overhead_us or cal.kernel_overhead_us
    t = PassTerms()
    us = {"weights": 0.0, "kv": 0.0, "act": 0.0, "compute": 0.0}
    kernels = 0

    # decode attention reads the KV cache below the stream rate (an --mbu override sets both)
    kv_bw = s.gpu.hbm_gbs * 1e3 * (s.stream_efficiency or s.engine.attention_efficiency or cal.attention_efficiency)

    def kernel(weights_b: float, kv_b: float, act_b: float, flops: float, rate: float, alu_us: float = 0.0) -> None:
        """Time of one kernel's bytes and FLOPs, and of its CUDA-core work on the weights as they arrive
        (`alu_us`: dequantising them; its fixed overhead is counted below). The dequantisation is
        software-pipelined with the loads (each tile converted in registers while the next streams in), so
        it costs time only where it takes longer than the stream: the larger of the two, then overlapped
        with the MMAs like any stream."""
        stream = (weights_b + act_b) / bw + kv_b / kv_bw
        us["weights"] += weights_b / bw
        us["kv"] += kv_b / kv_bw
        us["act"] += act_b / bw
        us["compute"] += overlapped(max(stream, alu_us), flops / rate if rate else 0.0, cal.overlap_p) - stream

    dense_experts = model.is_moe and s.engine.moe_dense_experts
    touched = (model.experts if dense_experts else shapes.experts_touched(model, tokens)) if model.is_moe else 0.0
    keys = shapes.attended(model, context)
    kv_token_layer = shapes.kv_bytes_per_token_per_gpu(model, s.tp, 1, s.kv_dtype, int(context)) / model.layers
    attn_rate = s.tensor_rate("fp16" if s.dtype == "fp16" else "bf16", tokens, model.heads / s.tp * model.head_dim,
                              keys)
    ffn_w = model.experts_active * model.expert_ffn if model.is_moe else model.ffn
    for count, moe in ((model.layers - model.moe_layers, False), (model.moe_layers, True)):
        if not count:
            continue
        mats = shapes.layer_matrices(model, s.tp, moe, touched, dense_experts)
        for mat in mats:
            m = tokens * mat.tokens_share  # rows of each of its `groups` GEMMs (an expert's tokens)
            flops = 2.0 * m * mat.params
            rate = s.gemm_rate(m, mat.n, mat.k)
            if mat.grouped:
                rate = expert_rate(s, rate)
            act_b = m * (mat.k + mat.n) * 2.0 * mat.groups
            bpp = _bytes_per_param(s, mat)
            weights_b = mat.params * bpp * count
            if bpp < 2.0 and s.f16_copy(tokens, m, mat.n, mat.k):
                # its own kernel before the GEMM (to_fp16_cuda, then cublasGemmEx on the same stream): the quantised
                # weights read and unpacked, the F16 copy written; the GEMM then reads that copy, hidden under its MMAs
                kernel(weights_b, 0.0, mat.params * 2.0 * count, 0.0, 0.0, dequant_us(s, mat) * count)
                kernels += count
                kernel(0.0, 0.0, (act_b + mat.params * 2.0) * count, flops * count, rate)
                continue
            unpacks = 1  # an INT8 kernel unpacks its weight tiles again for every tile of tokens (llama.cpp's MMQ)
            if s.mmq_rows(m):
                unpacks = math.ceil(m / (s.engine.int8_mma_tile_tokens or m))
                act_b = mmq_activation_bytes(m, mat)
            elif s.engine.int8_tile_tokens and s.int8_path and rate > s.tensor_rate(s.compute_dtype, m, mat.n, mat.k):
                unpacks = math.ceil(m / s.engine.int8_tile_tokens)
            kernel(weights_b, 0.0, act_b * count, flops * count, rate, dequant_us(s, mat) * unpacks * count)
        if prefill and s.engine.context_score_bytes and not model.is_mla:  # the score matrices go to memory
            kernel(0.0, tokens * kv_token_layer * count, 0.0, 0.0, 0.0)  # K and V written once
            for b, f, r in unfused_attention(s, sequences, tokens_per_seq):
                kernel(0.0, 0.0, b * count, f * count, r)
            kernels += count * (UNFUSED_ATTENTION_KERNELS - 1)
        elif prefill:  # causal attention over the prompt; K and V written once
            flops = tokens * shapes.attention_flops_per_token(model, s.tp, keys / 2, layers=1)
            kernel(0.0, tokens * kv_token_layer * count, 0.0, flops * count, attn_rate)
        else:  # every sequence reads its whole KV cache
            flops = sequences * shapes.attention_flops_per_token(model, s.tp, keys, layers=1)
            kv_b = sequences * context * kv_token_layer * count  # kv_token_layer already averages windows and layers
            # a hybrid's recurrent update writes its state back (read with the cache above): once more per step
            kv_b += sequences * shapes.linear_state_bytes_per_gpu(model, s.tp) * count / model.layers
            before = us["kv"] + us["compute"]
            kernel(0.0, kv_b, 0.0, flops * count, attn_rate)
            if not grouped_attention(s):  # one block per query head: CUDA-core work may exceed the KV stream
                us["compute"] += max(0.0, per_head_attention_us(s, sequences * keys * count) - kv_b / kv_bw)
            if not s.engine.decode_splits_kv:  # each block walks its head's whole cache: the walk may be the longer
                walk = single_block_attention_us(s, keys) * count
                us["compute"] += max(0.0, walk - (us["kv"] + us["compute"] - before))
        # the engine's non-GEMM kernels of a dense layer, plus what an MoE layer adds beside its GEMMs
        # (routing; the shared expert's own activation), whatever its GEMM count
        misc = (max(0, s.engine.layer_kernels(s.dtype) + attention_kernels(s) - DENSE_GEMMS - 1)
                + ((MOE_ROUTING_KERNELS + (1 if model.shared_experts else 0)) if moe else 0)
                + (MLA_EXTRA_KERNELS if model.is_mla else 0))
        # their traffic: norms and residual adds ~6 x hidden per token; the MLP activation reads gate and up and
        # writes one (3 x ffn), a plain GELU / ReLU reads one and writes one (2 x ffn)
        us["act"] += tokens * (6 * model.hidden + (3 if model.gated_mlp else 2) * ffn_w / s.tp) * 2.0 * count / bw
        kernels += count * (len(mats) + 1 + misc)
    head_tokens = sequences  # logits only for the last token of each sequence
    head_params = model.lm_head_params() / s.tp
    kernel(head_params * shapes.edge_bytes(s.dtype, s.group), 0.0,
           head_tokens * (model.hidden + model.vocab / s.tp) * 2.0, 2.0 * head_tokens * head_params,
           s.tensor_rate(s.compute_dtype, head_tokens, model.vocab / s.tp, model.hidden))
    kernels += 1 + STEP_KERNELS
    t.kernels = kernels
    t.weights_ms, t.kv_ms, t.activation_ms, t.compute_ms = (us[k] / 1e3 for k in ("weights", "kv", "act", "compute"))
    t.overhead_ms = kernels * over / 1e3
    t.allreduces = shapes.allreduces_per_pass(model, s.tp, s.engine.parallel_block_allreduces)
    if t.allreduces:
        graphs = s.engine.cuda_graphs and not prefill
        ar = collectives.expected(s.fabric, s.tp, tokens * model.hidden * 2, nodes=s.nodes, engine=s.engine,
                                  graphs=graphs, link_gbs=s.gpu.nvlink_gbs or None, path=s.ring_path,
                                  cpu=s.ring_cpu, gpu=s.gpu, release=s.nccl_release or None)
        t.allreduce_us, t.allreduce_impl = ar.us, ar.impl
        t.allreduce_ms = t.allreduces * ar.us / 1e3
        t.wait_ms = slowest_gpu_wait_ms(s.tp, t.memory_ms + t.compute_ms + t.overhead_ms, s.cal.gpu_speed_cv)
    if not s.engine.cuda_graphs or prefill:
        host = (kernels * s.engine.launch_us + t.allreduces * (s.engine.allreduce_host_us or s.engine.launch_us)
                + model.layers * s.engine.host_us_per_layer) / 1e3
        if t.allreduces and host > t.total_ms:
            # each rank's own process launches its pass, and every all-reduce waits for the slowest rank's host
            # (its time spread across Python ranks: calibration.toml [sync] host_speed_cv; none for C++ runtimes)
            gpu_ms = t.total_ms - t.wait_ms
            if s.engine.python_rank_processes:
                t.wait_ms = max(t.wait_ms, slowest_gpu_wait_ms(s.tp, host, s.cal.host_speed_cv))
            t.launch_ms = host - gpu_ms
        else:
            t.launch_ms = max(0.0, host - t.total_ms)
    elif s.engine.piecewise_layer_us:  # piecewise graphs: each layer's attention runs eagerly between two pieces
        t.launch_ms = model.layers * s.engine.piecewise_layer_us / 1e3
    return t


Q8_1_BYTES = 36 / 32  # llama.cpp's q8_1 block: 32 int8 values and a half2 (scale, sum), 1.125 bytes a value


def mmq_activation_bytes(m: float, mat) -> float:
    """Activation traffic of one MMQ GEMM of m rows (mmq.cu ggml_cuda_mul_mat_q): quantize_mmq_q8_1 reads the F32
    input and writes it as q8_1, the GEMM reads that and writes its F32 result."""
    return m * (mat.k * (4.0 + 2 * Q8_1_BYTES) + mat.n * 4.0) * mat.groups


def expert_rate(s: Setting, dense_rate: float) -> float:
    """FLOPs per microsecond of a grouped expert GEMM (fused MoE: each expert's tokens gathered, its rows
    padded to the kernel's block) at the shape whose dense rate is `dense_rate`: a share of it
    (`expert_gemm_efficiency`), and no more than the SMs sustain where the engine's kernel is bound by
    the tiles each SM keeps in flight (engines.toml expert_gemm_sm_tflops: vLLM's fused MoE at its
    default block sizes reaches about the same TFLOPS on an H100 as on an A100)."""
    rate = dense_rate * (s.engine.expert_gemm_efficiency or s.cal.expert_gemm_efficiency)
    if s.engine.expert_gemm_sm_tflops and s.gpu.sms:
        rate = min(rate, s.engine.expert_gemm_sm_tflops * s.gpu.sms * 1e6)
    return rate


def unfused_attention(s: Setting, sequences: int, prompt: int) -> list[tuple[float, float, float]]:
    """(bytes, FLOPs, FLOPs per us) of one layer's unfused prefill attention on one rank, kernel by kernel.

    An engine without a fused attention kernel for its prompt (engines.toml context_score_bytes:
    FasterTransformer's GPT unless FMHA_ENABLE=ON) runs it as cuBLAS batched GEMMs, one per sequence and
    head: QK^T (prompt x prompt x head_dim, so K is only head_dim deep) writes every score in
    `context_score_bytes` (FP32 by default: is_context_qk_buf_float_), the masked softmax reads them and
    writes 16-bit probabilities, and PV (prompt x head_dim x prompt) reads those. The causal mask is
    applied in the softmax, so both GEMMs compute the full square. The score matrices are sequences x
    heads x prompt^2 elements, so at a long prompt and a small hidden size they, not the weights, set
    the attention's time."""
    heads = s.model.heads / s.tp
    d = s.model.head_dim
    square = sequences * heads * float(prompt) ** 2  # score elements
    dtype = "fp16" if s.dtype == "fp16" else "bf16"
    rows = sequences * heads * math.ceil(prompt / TILE) * TILE  # every (sequence, head) its own tiles
    flops = 2.0 * square * d
    return [(square * s.engine.context_score_bytes, flops, s.tensor_rate(dtype, rows, prompt, d)),
            (square * (s.engine.context_score_bytes + 2.0), 0.0, 0.0),
            (square * 2.0, flops, s.tensor_rate(dtype, rows, d, prompt))]


def attention_kernels(s: Setting) -> int:
    """Kernels a decode layer's attention takes from the engine's kernels_per_layer where it runs as flash attention
    (rules.catalog.attention_build): fa_kernels in place of the unfused path's unfused_attention_kernels."""
    e = s.engine
    return e.fa_kernels - e.unfused_attention_kernels if e.flash_attention else 0


def slowest_gpu_wait_ms(tp: int, gpu_ms: float, cv: float) -> float:
    """How long a TP group's all-reduces wait for its slowest GPU in a pass of `gpu_ms` of GPU work:
    GPUs of one model differ in speed with relative spread `cv` (calibration.toml [sync]), and the
    slowest of `tp` sits E[max of tp normals] spreads above the mean."""
    return cv * expected_max_normal(tp) * gpu_ms


@functools.lru_cache(maxsize=None)
def expected_max_normal(n: int) -> float:
    """E[max of n independent standard normals] (0 for one, 0.564 for two, 1.424 for eight): how
    far the slowest of n GPUs sits above their mean speed, in standard deviations."""
    if n <= 1:
        return 0.0
    step, total = 0.01, 0.0
    for i in range(-800, 801):
        x = i * step
        pdf = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        total += x * n * pdf * (0.5 * (1 + math.erf(x / math.sqrt(2)))) ** (n - 1) * step
    return total


def overlapped(stream_us: float, math_us: float, p: float) -> float:
    """Time of a kernel that streams for `stream_us` and computes for `math_us`: the p-norm of
    the two. Far from the ridge point the larger one sets the time (a decode GEMV, a long
    prefill GEMM); near it (a prefill of a few hundred tokens) loads and MMAs do not overlap
    fully and the time exceeds both (calibration.toml [gemm_shape] overlap_p)."""
    hi, lo = max(stream_us, math_us), min(stream_us, math_us)
    return hi * (1.0 + (lo / hi) ** p) ** (1.0 / p) if hi > 0 else 0.0


def grouped_attention(s: Setting) -> bool:
    """Whether the engine's decode attention reads each KV head once for its whole GQA group
    (engines.toml grouped_decode_attention covers the model's head_dim:group), rather than once
    per query head (TensorRT-LLM's masked MHA, one thread block per head)."""
    shapes_ok = s.engine.grouped_decode_attention
    if s.model.is_mla or "any" in shapes_ok:
        return True
    group = s.model.heads // max(1, s.model.kv_heads)
    return any(_within(dims, s.model.head_dim) and _within(groups, group)
               for dims, _, groups in (entry.partition(":") for entry in shapes_ok))


def _within(side: str, value: int) -> bool:
    """One side of a grouped_decode_attention entry: a number, a range 'lo-hi', or '*'."""
    if side == "*":
        return True
    lo, _, hi = side.partition("-")
    return int(lo) <= value <= int(hi or lo)


def per_head_attention_us(s: Setting, token_layers: float) -> float:
    """CUDA-core time of a per-query-head decode attention over `token_layers` cached tokens x
    layers on one rank: every query head loads, converts and multiplies each element of its KV
    head's K and V itself (calibration.toml [per_head_attention]), at the FP32 FMA rate."""
    elements = token_layers * (s.model.heads / s.tp) * s.model.head_dim * 2.0
    ops = s.cal.per_head_ops["kv8" if shapes.DTYPE_BYTES.get(s.kv_dtype, 2.0) < 2 else "kv16"]
    return elements * ops / _fma_per_us(s) if s.gpu.fp32_tflops else 0.0


def single_block_attention_us(s: Setting, keys: float) -> float:
    """Least time of one layer's decode attention where each (sequence, head) gets one thread block that walks the
    head's `keys` cached tokens alone (engines.toml decode_splits_kv = false): no block finishes before its own walk,
    calibration.toml [single_block_attention] cycles per token at the SM clock. Many blocks share the SMs at a large
    batch, where the KV stream is the longer; at batch 1 a handful of blocks leave the walk as the kernel's time."""
    if not s.gpu.max_clock_mhz:
        return 0.0
    cycles = s.cal.single_block_cycles["kv8" if shapes.DTYPE_BYTES.get(s.kv_dtype, 2.0) < 2 else "kv16"]
    return keys * cycles / s.gpu.max_clock_mhz


def _fma_per_us(s: Setting) -> float:
    """FP32 fused multiply-adds per microsecond on CUDA cores (two FLOPs each): the rate per-element work
    outside the tensor cores runs at."""
    return s.gpu.fp32_tflops * 1e6 / 2.0


def dequant_us(s: Setting, mat: shapes.Matrix) -> float:
    """CUDA-core time to turn one pass's int4 / int8 weights of `mat` into 16 bits (weight-only
    quantisation: the GEMM multiplies in 16 bits), or to unpack a GGUF block's fields for the engine's dot
    products, once per weight, at the FP32 FMA rate (calibration.toml [dequant], by dtype or GGUF block
    family); 0 for 16-bit and FP8 weights and for matrices kept in 16 bits."""
    ops = s.cal.dequant_ops.get(_dequant_key(s))
    if not ops or not s.gpu.fp32_tflops or _bytes_per_param(s, mat) >= 2.0:
        return 0.0
    return mat.params * ops / _fma_per_us(s)


def _dequant_key(s: Setting) -> str:
    """calibration.toml [dequant]'s key for these weights: a GGUF type's block family where the calibration has
    one (gguf_types.toml dequant), else the weight dtype."""
    if isinstance(s.group, str):
        family = gguf_type(s.group).dequant
        if f"gguf_{family}" in s.cal.dequant_ops:
            return f"gguf_{family}"
    return s.dtype


def _bytes_per_param(s: Setting, mat: shapes.Matrix) -> float:
    """16-bit where the checkpoint keeps it (routers; MXFP4 quantises only the routed experts)."""
    if not mat.quantised or (s.dtype == "mxfp4" and not mat.expert):
        return 2.0
    if s.dtype == "mxfp4" and not s.model.is_moe:
        return 2.0
    return shapes.bytes_per_param(s.dtype, s.group)
