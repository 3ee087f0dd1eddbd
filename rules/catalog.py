"""GPU, interconnect and model catalogs: TOML data files under rules/catalog/, plus the user's.

Extra files come from `--catalog FILE` (repeatable) or $DIAGNOSE_CATALOG (paths separated by
os.pathsep). Their entries add to or replace the bundled ones by key. A file may hold any of
the tables `[gpu.<key>]`, `[interconnect.<key>]`, `[model.<key>]`, `[engine.<key>]`; the fields are
those of GpuSpec, InterconnectSpec, ModelSpec and EngineSpec below; and host_memory.toml's `[[cpu]]` families and
`[[achieved]]` rows (host_memory()). Files are read and checked on first use; a
bad file is an InputError naming the file and the field.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from diagnose.errors import InputError, closest_names
from diagnose.inputs import tomllib  # tomli on Python 3.10

CATALOG_DIR = Path(__file__).resolve().parent / "catalog"
BUNDLED = ("gpus.toml", "interconnects.toml", "models.toml", "engines.toml")

INTERCONNECT_KINDS = ("nvlink", "nvswitch", "pcie", "network")
WEIGHT_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "mxfp4")

# Bounds on a model (catalog or config.json) and on catalog figures, so absurd sizes are bad input
# rather than overflowing arithmetic. No tensor dimension reaches 2**31 (CUDA kernels index with
# 32-bit ints); the largest open models have about 1e12 parameters (Kimi K2: 1.04e12,
# https://huggingface.co/moonshotai/Kimi-K2-Instruct), so 1e14 leaves a hundredfold margin.
MAX_DIMENSION = 2**31 - 1
MAX_PARAMS = 1e14
MAX_NUMBER = 1e30  # any catalog figure (GB, GB/s, TFLOPS, us) beyond this is a typo, and inf is none

_EXTRA_FILES: tuple[str, ...] = ()
_CACHE: dict[tuple[str, ...], "_Catalog"] = {}


def configure(extra_files=()) -> None:
    """Set the user's extra catalog files for this run (the CLI calls this once)."""
    global _EXTRA_FILES
    env = [p for p in os.environ.get("DIAGNOSE_CATALOG", "").split(os.pathsep) if p]
    _EXTRA_FILES = tuple(env) + tuple(extra_files)


def extra_files() -> tuple[str, ...]:
    return _EXTRA_FILES


def check() -> None:
    """Read the user's catalog files now: a broken --catalog is bad input (exit 2) in every command,
    before any work, rather than a lookup that some rule treats as 'unknown name'. (Without one, the
    bundled tables are read on first use; tests check them.)"""
    _catalog()
    host_memory()


class UnknownName(InputError):
    """A name no catalog entry has: a normal answer for rules that only try a lookup, unlike a
    broken catalog file (a plain InputError), which must reach the user."""


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class GpuSpec:
    """One GPU row. Rates are dense; bandwidths are GB/s (1e9 B/s), NVLink per direction."""

    key: str
    name: str
    memory_gb: float
    hbm_gbs: float
    bf16_tflops: float
    fp8_tflops: float  # 0 = no FP8 tensor cores
    fp32_tflops: float
    nvlink_gen: int  # 0 = no NVLink
    nvlink_links: int
    nvlink_gbs: float  # per direction, whole GPU
    pcie_gen: int
    pcie_lanes: int
    tdp_w: float
    sms: int
    interconnect: str  # default intra-node fabric, a key of interconnects()
    fp16_tflops: float = 0.0  # 0 = same as bf16
    # FP16 tensor rate with FP16 accumulate: GeForce boards run it at twice their FP32-accumulate rate (the
    # fp16_tflops above); data-centre boards at the same rate; 0 = same as fp16
    fp16_acc16_tflops: float = 0.0
    int8_tops: float = 0.0  # dense INT8 dot-product rate (DP4A or tensor cores); 0 = not in the catalog
    l2_mb: float = 0.0
    matmul_max: float = 0.0  # best measured 16-bit matmul / datasheet (MAMF); 0 = calibration.toml's typical
    matmul_fp8_max: float = 0.0  # the same for FP8
    # the top SM clock (MHz): CUDA's clockRate in a real capture, else the datasheet's boost clock; 0 = not known
    max_clock_mhz: float = 0.0
    compute_capability: float = 0.0  # CUDA's (developer.nvidia.com/cuda-gpus); 0 = not known
    nvlink_domain: int = 1  # GPUs sharing one all-to-all NVLink fabric on the usual board
    pcie_p2p: bool = True  # false where the stock driver refuses PCIe peer-to-peer (NCCL must use SHM)
    nvlink_bridged: bool = False  # PCIe card whose NVLinks are wired only through bridges to its partner(s)
    # the most GPUs of this board one machine holds, where the board fixes it (a desktop superchip: one); 0 = the board
    # leaves it to the system (PCIe cards, SXM baseboards)
    gpus_per_machine: int = 0
    # People write this product's own S in lower case ("L40s"): a lower-case s after its number names it, not a plural
    # of the card without the S (gpu_name). How each S product is written is measured in its row's comment and sources.
    written_lower_s: bool = False
    # measured all-reduce bus bandwidth over its own NVLink; 0 = scaled from the fabric
    nvlink_achieved_gbs: float = 0.0
    # a larger memory size third parties refit this board with (the RTX 4090 48GB and 2080 Ti 22GB sold in China), a
    # row source citing owners who run one; 0 = none known. A stated size equal to it is one board's, never a total.
    modded_memory_gb: float = 0.0
    # where memory_gb came from when a ticket states another size than the row's (rules.subject); "" = the row's own
    memory_said: str = ""
    nvml_names: tuple[str, ...] = ()
    pci_device_ids: tuple[str, ...] = ()  # 4 upper-case hex digits, vendor 10DE
    aliases: tuple[str, ...] = ()
    confidence: str = "M"
    notes: str = ""
    sources: tuple[str, ...] = ()

    @property
    def memory_bytes(self) -> float:
        """Device memory in bytes. The marketed size is binary: "80GB" is 80 GiB. CUDA reports a total of
        84.9e9 B on an H100 80GB, 150.1e9 on an H200 (141), 42.3e9 on an A100 40GB, 25.4e9 on an RTX 3090
        (TARGET_INFO_GPU.totalMemory in ../shared/captures), 1-1.5% below memory_gb GiB; reading it as
        decimal GB would hide ~6% of every GPU. Boards with ECC on GDDR (T4: 15.8e9 of 16) show ~7% less."""
        return self.memory_gb * 2**30

    @property
    def pcie_interconnect(self) -> str:
        """The PCIe fabric key for pairs outside the NVLink domain."""
        return f"pcie{self.pcie_gen}"

    def tflops(self, dtype: str) -> float:
        """Dense tensor rate for a compute dtype; weight-only int8/int4 compute in 16-bit."""
        if dtype == "fp8" and self.fp8_tflops:
            return self.fp8_tflops
        if dtype == "fp16acc16":
            return self.fp16_acc16_tflops or self.tflops("fp16")
        if dtype == "fp16" and self.fp16_tflops:
            return self.fp16_tflops
        if dtype == "fp32":
            return self.fp32_tflops
        if dtype == "int8" and self.int8_tops:
            return self.int8_tops
        return self.bf16_tflops


@dataclass(frozen=True)
class InterconnectSpec:
    """A fabric and its alpha-beta all-reduce model (see interconnects.toml)."""

    key: str
    name: str
    kind: str  # nvlink | nvswitch | pcie | network
    bandwidth_gbs: float  # theoretical, per direction, per GPU
    achieved_gbs: float  # typical nccl-tests all-reduce bus bandwidth
    latency_us: float  # NCCL tuner's ring/LL base latency (reference; the expected figure uses calibration.toml)
    hop_us: float = 0.6  # per ring step
    floor_us: float = 0.0  # physical minimum of any all-reduce here: one hop of latency (roofline)
    in_network_reduction: bool = False
    aliases: tuple[str, ...] = ()
    confidence: str = "M"
    notes: str = ""
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer's shape (Hugging Face config.json meaning)."""

    key: str
    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int  # dense MLP intermediate size
    vocab: int
    tied_embeddings: bool = False
    aliases: tuple[str, ...] = ()
    gated_mlp: bool = True
    qkv_bias: bool = False
    attn_out_bias: bool = False
    mlp_bias: bool = False
    norms_per_layer: int = 2
    parallel_attn: bool = False
    experts: int = 0
    experts_active: int = 0
    expert_ffn: int = 0
    shared_experts: int = 0
    shared_expert_ffn: int = 0  # 0 = expert_ffn
    first_dense_layers: int = 0
    q_lora_rank: int = 0
    kv_lora_rank: int = 0  # > 0 means MLA
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int = 0
    sliding_window_every: int = 0  # every n-th layer is local (windowed); 0 = none
    global_every: int = 0  # every n-th layer is global, the others local (Gemma 3: 6); 0 = none
    local_layer_count: int = 0  # local layers as a config's layer_types lists them; 0 = derive from the period
    # Hybrid linear attention (Qwen3-Next, Qwen3.5/3.6): every n-th layer is full (softmax) attention, the others
    # Gated DeltaNet layers whose state per sequence is fixed, so only the full layers grow a KV cache.
    full_attention_every: int = 0  # 0 = every layer is full attention
    linear_layer_count: int = 0  # linear layers as a config's layer_types lists them; 0 = derive from the period
    linear_key_heads: int = 0
    linear_value_heads: int = 0
    linear_key_head_dim: int = 0
    linear_value_head_dim: int = 0
    linear_conv_kernel: int = 4
    attn_output_gate: bool = False  # the query projection also yields a sigmoid gate (doubles q_proj)
    checkpoint_dtype: str = "bf16"
    max_context: int = 0
    published_params_b: float = 0.0
    published_active_b: float = 0.0
    notes: str = ""
    sources: tuple[str, ...] = ()

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def is_hybrid(self) -> bool:
        return self.full_attention_every > 0 or self.linear_layer_count > 0

    @property
    def full_attention_layers(self) -> int:
        """Layers with softmax attention and a KV cache (all of them unless hybrid)."""
        if self.linear_layer_count:
            return self.layers - self.linear_layer_count
        return self.layers // self.full_attention_every if self.is_hybrid else self.layers

    @property
    def local_layers(self) -> int:
        """Layers that attend only the last `sliding_window` tokens."""
        if not self.sliding_window:
            return 0
        if self.local_layer_count:
            return self.local_layer_count
        if self.global_every:
            return self.layers - self.layers // self.global_every
        return self.layers // self.sliding_window_every if self.sliding_window_every else 0

    @property
    def full_attention_share(self) -> float:
        return self.full_attention_layers / self.layers

    @property
    def moe_layers(self) -> int:
        return self.layers - self.first_dense_layers if self.is_moe else 0

    # -- parameters per part (model-configs.md section 4) --

    def attn_params(self) -> int:
        h, nh, nkv, hd = self.hidden, self.heads, self.kv_heads, self.head_dim
        if self.is_mla:
            rope, nope, v = self.qk_rope_head_dim, self.qk_nope_head_dim, self.v_head_dim
            if self.q_lora_rank:  # queries through a low-rank projection
                q = h * self.q_lora_rank + self.q_lora_rank * nh * (nope + rope)
            else:
                q = h * nh * (nope + rope)
            kv = h * (self.kv_lora_rank + rope) + self.kv_lora_rank * nh * (nope + v)
            return q + kv + nh * v * h + self.q_lora_rank + self.kv_lora_rank
        params = h * nh * hd * (2 if self.attn_output_gate else 1) + 2 * h * nkv * hd + nh * hd * h
        if self.qkv_bias:
            params += nh * hd + 2 * nkv * hd
        if self.attn_out_bias:
            params += h
        if not self.is_hybrid:
            return params
        full = self.full_attention_layers
        return (full * params + (self.layers - full) * self.linear_attn_params()) / self.layers

    def linear_attn_params(self) -> int:
        """One Gated DeltaNet layer: q, k, v, output gate z and the per-head b, a projections in, a short causal
        convolution over q, k, v, per-head decay and bias, a gated norm, and the output projection."""
        h, kh, vh = self.hidden, self.linear_key_heads, self.linear_value_heads
        qkv = 2 * kh * self.linear_key_head_dim + vh * self.linear_value_head_dim
        return (h * (qkv + vh * self.linear_value_head_dim + 2 * vh) + self.linear_conv_kernel * qkv + 2 * vh
                + self.linear_value_head_dim + vh * self.linear_value_head_dim * h)

    def linear_state_bytes(self, bytes_per_elem: float = 2.0) -> float:
        """A sequence's fixed recurrent state over all Gated DeltaNet layers: a key x value matrix per value head
        and the convolution's last kernel-1 inputs."""
        if not self.is_hybrid:
            return 0.0
        kh, vh = self.linear_key_heads, self.linear_value_heads
        qkv = 2 * kh * self.linear_key_head_dim + vh * self.linear_value_head_dim
        per_layer = (self.linear_value_heads * self.linear_key_head_dim * self.linear_value_head_dim
                     + (self.linear_conv_kernel - 1) * qkv)
        return (self.layers - self.full_attention_layers) * per_layer * bytes_per_elem

    def mlp_params(self, ffn: int) -> int:
        """One MLP (or one expert) of width `ffn`."""
        mats = 3 if self.gated_mlp else 2
        bias = (2 * ffn + self.hidden if self.gated_mlp else ffn + self.hidden) if self.mlp_bias else 0
        return mats * self.hidden * ffn + bias

    def router_params(self) -> int:
        return self.hidden * self.experts + (self.experts if self.mlp_bias else 0)

    def shared_params(self) -> int:
        return self.shared_experts * self.mlp_params(self.shared_expert_ffn or self.expert_ffn)

    def layer_params(self, moe: bool, active: bool = False) -> int:
        base = self.attn_params() + self.norms_per_layer * self.hidden
        if not moe:
            return base + self.mlp_params(self.ffn)
        n = self.experts_active if active else self.experts
        return base + n * self.mlp_params(self.expert_ffn) + self.shared_params() + self.router_params()

    def decoder_params(self, active: bool = False) -> int:
        dense = self.layers - self.moe_layers
        return dense * self.layer_params(False) + self.moe_layers * self.layer_params(True, active)

    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    def lm_head_params(self) -> int:
        return self.vocab * self.hidden  # the tied table is read as the LM head too

    def params(self) -> int:
        """Total parameters (embedding, decoder, untied LM head, final norm)."""
        head = 0 if self.tied_embeddings else self.lm_head_params()
        return self.decoder_params() + self.embedding_params() + head + self.hidden

    def active_params(self) -> int:
        """Parameters used per token (MoE: routed experts_active + shared)."""
        head = 0 if self.tied_embeddings else self.lm_head_params()
        return self.decoder_params(active=True) + self.embedding_params() + head + self.hidden

    def kv_bytes_per_token(self, bytes_per_elem: float = 2.0, context: int | None = None,
                           state_bytes_per_elem: float = 2.0) -> float:
        """KV-cache bytes per token of context, whole model (MLA: the shared latent).

        With `context`, windowed layers hold at most `sliding_window` tokens and a hybrid's linear layers a fixed
        state per sequence, so this is the average per token at that context. The state has its own element size
        (the model dtype, not the KV cache's: rules.shapes.STATE_BYTES); 0 leaves it out.
        """
        per_layer = (self.kv_lora_rank + self.qk_rope_head_dim) if self.is_mla else 2 * self.kv_heads * self.head_dim
        layers = float(self.full_attention_layers)
        if context and self.local_layers and context > self.sliding_window:
            local = self.local_layers
            layers = (self.layers - local) + local * self.sliding_window / context
        state = self.linear_state_bytes(state_bytes_per_elem) / context if context else 0.0
        return per_layer * layers * bytes_per_elem + state


@dataclass(frozen=True)
class ReleaseMarker:
    """Something a run's material shows that only some releases of its engine have (a launch flag, a log line, an
    environment variable, a printed version): the releases it implies narrow an engine named without its release
    (rules.catalog.narrow_releases). A pattern with a group named `release` states the release itself."""

    pattern: str  # a regular expression over one line of the material (case-insensitive)
    means: str  # what it shows, as a finding says it ("V0's stats line")
    source: str  # where the release range is documented (URL)
    first: str = ""  # MAJOR.MINOR of the first release that has it; "" = every release before `last`
    last: str = ""  # MAJOR.MINOR of the last release that has it; "" = every release from `first` on


@dataclass(frozen=True)
class EngineSpec:
    """How a serving engine runs a model, as far as step time and memory go (engines.toml).

    The predictor's expected figures model the engine that ran: its kernel count per layer and
    whether decode replays CUDA graphs set the fixed per-step GPU and host cost; its all-reduce
    (NCCL, or a custom one-shot/two-shot kernel up to a size) sets the communication term.
    """

    key: str
    name: str
    cuda_graphs: bool  # decode steps replayed from CUDA graphs: no host launch per kernel
    kernels_per_layer: int  # kernels one decoder layer runs in a decode step (GEMMs, attention, norms, ...)
    launch_us: float  # host time to launch one kernel when it is not in a CUDA graph
    host_ms_per_step: float  # scheduling, sampling and bookkeeping per step; does not shrink with TP
    host_ms_per_request: float  # fixed cost per request (admission, tokenising, first sample)
    # host time per step paid only when the model spans several worker processes (TP or PP > 1): the
    # engine handing each step's inputs to the other processes (and getting the output back)
    multiprocess_ms_per_step: float = 0.0
    # each TP rank is its own Python process that issues its kernels and collectives (vLLM's workers, SGLang's
    # schedulers, torchrun ranks, TGI's shards): where the hosts set the pace, every all-reduce waits for the rank
    # whose interpreter is slowest (calibration.toml [sync] host_speed_cv); False for C++ runtimes
    python_rank_processes: bool = False
    # host time of one all-reduce called eagerly through the framework (torch.distributed / c10d: work object,
    # events, stream waits, the NCCL enqueue), where it is not one kernel launch; 0 = launch_us
    allreduce_host_us: float = 0.0
    # host time per decoder layer, no CUDA graphs, beside its launches: the views, slices and selects its Python
    # code makes, which go through the dispatcher but launch nothing (counted from the engine's layer code)
    host_us_per_layer: float = 0.0
    # decode steps replay piecewise CUDA graphs (vLLM's PIECEWISE cudagraph mode): each decoder layer's attention runs
    # eagerly between two graph pieces, and a step pays this many microseconds per layer for it beside the GPU's work
    # (rules.step_model); 0 = one graph for the whole step (or no graphs at all)
    piecewise_layer_us: float = 0.0
    custom_allreduce: str = ""  # a [custom.<key>] of calibration.toml; "" = NCCL for every message
    custom_allreduce_max_bytes: int = 0  # larger messages go to NCCL
    # the limit at 2 ranks where the engine sizes its buffer larger for a pair (TensorRT-LLM: 16 MB); 0 = the above
    custom_allreduce_pair_max_bytes: int = 0
    custom_allreduce_max_ranks: int = 8
    custom_allreduce_pcie_pairs: bool = False  # also on 2 GPUs joined only by PCIe P2P
    attention_efficiency: float = 0.0  # share of HBM bandwidth its decode attention reaches; 0 = calibration.toml's
    # fixed GPU time of one kernel where the engine's kernels differ from the usual (compiled and fused,
    # replayed from a CUDA graph); 0 = calibration.toml's kernel_overhead_us
    kernel_overhead_us: float = 0.0
    # share of the dense GEMM rate its grouped (fused-MoE) expert GEMMs reach where its kernels differ from
    # the usual (a fused-MoE kernel at default, untuned block sizes); 0 = calibration.toml's
    expert_gemm_efficiency: float = 0.0
    # TFLOPS per SM its grouped expert GEMMs cannot exceed, whatever the GPU's tensor rate: a kernel whose
    # small default tiles leave it waiting on memory latency runs at the tiles each SM keeps in flight,
    # so its rate follows the SM count, not the tensor peak (rules.step_model); 0 = no such limit
    expert_gemm_sm_tflops: float = 0.0
    # "head_dim:group" shapes its GQA-aware decode attention kernel covers ("any": all; either side a
    # number, a range "lo-hi" or "*"); other shapes run one thread block per query head on CUDA cores
    # (rules.step_model)
    grouped_decode_attention: tuple[str, ...] = ("any",)
    # its decode attention splits a sequence's cached tokens over several thread blocks (FlashAttention's split-KV,
    # FlashInfer's, TensorRT-LLM's multi-block mode); False: one block walks a head's whole cache, so at a small batch
    # the few blocks, not the HBM stream, set its time (rules.step_model.single_block_attention_us)
    decode_splits_kv: bool = True
    # bytes per element of the score matrix its prefill (context) attention writes when that attention
    # is unfused (QK^T to memory, softmax, then PV: FasterTransformer without FMHA_ENABLE); 0 = fused
    # attention (flash / fMHA): the scores never leave the SM (rules.step_model.unfused_attention)
    context_score_bytes: float = 0.0
    fp8_kv_cache: bool = False  # an FP8 checkpoint gets an FP8 KV cache unless told otherwise
    # the 16-bit type its GEMMs run in whatever the weights' type (llama.cpp: fp16, dequantising GGUF blocks);
    # "" = the weights' own (bf16 for integer weights)
    gemm_dtype: str = ""
    # its GEMMs over integer (GGUF) weights may run as INT8 dot products (llama.cpp's MMQ kernels quantise the
    # activations to 8 bits): the roofline then takes the GPU's INT8 rate where that is the faster
    int8_gemm: bool = False
    # share of the INT8 datasheet rate those dot-product kernels reach (they unpack and scale every block beside
    # the dot products); fitted where the engine has prompt rows on a GPU that takes the INT8 path
    int8_gemm_efficiency: float = 0.0
    # share of the GPU's matmul ceiling its own 16-bit GEMM path reaches where that is not the shared calibration's
    # (llama.cpp: cuBLAS on F16 weights or on an F16 copy of quantised ones); 0 = calibration.toml [gemm_efficiency]
    fp16_gemm_efficiency: float = 0.0
    # "fp16": its 16-bit GEMMs accumulate in FP16 (llama.cpp's cuBLAS calls: CUBLAS_COMPUTE_16F), which GeForce
    # boards run twice as fast as FP32 accumulate (gpus.toml fp16_acc16_tflops); "" = FP32 accumulate
    gemm_accumulate: str = ""
    # its INT8 kernels unpack each weight tile once per tile of this many tokens (llama.cpp's MMQ: mmq_x); 0 = once
    int8_tile_tokens: int = 0
    # a GEMM over quantised weights with more rows than this, on its 16-bit path, first writes the weights out as
    # F16 and multiplies that copy (llama.cpp: cuBLAS above MMQ_MAX_BATCH_SIZE); 0 = never
    f16_copy_tokens: int = 0
    # from this compute capability its INT8 GEMMs over quantised weights run on INT8 tensor cores for every batch, in
    # place of the 16-bit path and its F16 copy (llama.cpp's MMQ from b3216 on Turing and newer); 0 = never
    int8_mma_cc: float = 0.0
    # share of the INT8 datasheet rate those tensor-core kernels reach; and the tokens of one tile of them, for each
    # of which a weight tile is unpacked again (mmq_x); the first build that runs them and the day it was merged
    # (a stated build before it runs the 16-bit path: rules.catalog.mmq_build)
    int8_mma_efficiency: float = 0.0
    int8_mma_tile_tokens: int = 0
    int8_mma_since_build: int = 0
    int8_mma_since_date: str = ""
    # MoE: each rank holds experts / tp whole experts and runs every one on every token (vLLM's Mixtral
    # before its fused-MoE kernel), not the tokens' own experts sharded over the ranks
    moe_dense_experts: bool = False
    # all-reduces per layer of a parallel attention+MLP block (Falcon, GPT-J): 1 where the engine sums the
    # two row-parallel outputs before one all-reduce, 2 where each reduces its own (rules.shapes)
    parallel_block_allreduces: int = 1
    pp_microbatch_tokens: int = 0  # PP: most tokens per microbatch (FasterTransformer); 0 = one microbatch per stage
    pp_step_drains: bool = False  # PP: every decode step fills and drains the pipeline (no overlap across steps)
    # PP: bytes per value of the hidden state a stage hands the next (llama.cpp: 4, ggml's F32 activations)
    hidden_state_bytes: int = 2
    # PP: how a stage hands the next its hidden state: "nccl" (NCCL send/recv: without PCIe peer-to-peer its SHM
    # transport, the all-reduce's path model) or "copy" (cudaMemcpyPeerAsync: without it the driver stages the bytes
    # through host memory, across PCIe twice)
    pp_handover: str = "nccl"
    # PP: split over several GPUs by layers its steps run as its build_twin (llama.cpp drops its CUDA graphs there)
    pp_eager: bool = False
    # its prefill pass runs the prompt but its last token, which the decode step after it runs and samples the first
    # output token from (TurboMind before its unified prefill/decode): a 1-token prompt costs one decode step
    first_token_step: bool = False
    activation_tokens: int = 8192  # tokens per forward pass the engine reserves activation memory for
    cuda_graph_gb: float = 0.0  # memory the captured CUDA graphs hold per GPU
    comm_buffer_gb: float = 0.0  # NCCL and custom all-reduce buffers per GPU
    memory_utilization: float = 0.9  # share of each GPU's memory the engine may fill
    # the same engine's profile for builds that differ in a way a ticket rarely states (llama.cpp before CUDA
    # graphs): where the build is not stated, a figure is judged against the band covering both (rules.roofline.cover)
    build_twin: str = ""
    # the first build that is this profile and not its twin: its build number (llama.cpp's release tag, b2822) and
    # the day it was merged (ISO); a stated build before them runs the twin (rules.catalog.build_side)
    twin_before_build: int = 0
    twin_before_date: str = ""
    # the one place an engine's releases map to its profiles: "from=profile" entries, oldest first ("0.8=vllm-0.8",
    # "0.14=vllm-0.14"); a stated release runs the last entry at or before it (one before the first: this profile), and
    # a name without its release is judged against the band of them all (release_candidates)
    releases: tuple[str, ...] = ()
    # what the material shows that tells its releases apart (engines.toml [[engine.X.release_markers]] tables)
    release_markers: tuple[ReleaseMarker, ...] = ()
    # the newest GPU architecture (compute capability) the releases this profile stands for ran on, 0 = no limit: a
    # release profile above it is no candidate for an engine named without its release (roofline.predict_any_build)
    max_cc: float = 0.0
    # the architecture gate on its graphs (ggml-cuda's ggml_cuda_graph_set_enabled): GPUs below graphs_min_cc run the
    # twin; from build graphs_since_build (merged graphs_since_date) GPUs of at least graphs_since_cc have them too
    graphs_min_cc: float = 0.0
    graphs_since_cc: float = 0.0
    graphs_since_build: int = 0
    graphs_since_date: str = ""
    # the builds where a split by layers (pp_eager) gains or loses its CUDA graphs, "build=day" oldest first: before the
    # first it runs the twin, each entry flips that (rules.catalog.split_graphs); () = every build alike
    pp_graphs_flips: tuple[str, ...] = ()
    # the builds from which a decode layer runs fewer kernels (the CUDA backend fusing ops), "BUILD=day=kernels" oldest
    # first: from that build on, merged that day, kernels_per_layer is `kernels`; before the first, kernels_per_layer.
    # BUILD may be a range "LO-HI" where the release that first carried the change is only known to lie in it: a build
    # stated inside the range is on neither side (rules.catalog.kernel_build); () = every build alike
    kernel_bands: tuple[str, ...] = ()
    # a decode layer's attention with flash attention on (engines.toml: llama.cpp's -fa): the unfused attention's
    # kernels that kernels_per_layer counts (unfused_attention_kernels) and the kernels flash attention runs in their
    # place (fa_kernels); flash_attention is what catalog.attention_build set for the run stated. 0 = not modelled
    unfused_attention_kernels: int = 0
    fa_kernels: int = 0
    flash_attention: bool = False
    # the builds (merged that day) from which flash attention is on where a run does not say (its -fa default became
    # auto, on for CUDA): llama-server and llama-cli's (fa_auto_since_*) and llama-bench's (bench_fa_auto_since_*)
    fa_auto_since_build: int = 0
    fa_auto_since_date: str = ""
    bench_fa_auto_since_build: int = 0
    bench_fa_auto_since_date: str = ""
    # the ways it spreads one model over GPUs: "tp" (tensor parallel, NCCL all-reduces), "pp" (whole layers per GPU,
    # a layer split), "dp" (replicas); plan and predict's sweep offer only these
    parallel: tuple[str, ...] = ("tp", "pp", "dp")
    # the GPUs it splits one model over where the launch names no layout: 1 where its TP size defaults to 1 (vLLM,
    # SGLang, LMDeploy, TensorRT-LLM), 0 = every GPU it sees (TGI's launcher: rules.ticket_figures.assumed_tp)
    default_tp: int = 0
    # kernels a layer runs when its weights are 4-bit weight-only (int4, w4a16) where the engine's int4 path fuses
    # differently from its 16-bit one (TurboMind: gate, up and SiLU as one kernel); 0 = kernels_per_layer
    int4_kernels_per_layer: int = 0
    launch: str = ""  # the engine's serve command, "" = none known: a plan names its settings engine-neutrally
    # "setting=flag" per plan setting (tp, pp, ep, context, batch, kv_fp8), {value} where it takes one
    launch_flags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    notes: str = ""
    sources: tuple[str, ...] = ()

    def gemm_share(self, dtype: str) -> float:
        """Its own share of the matmul ceiling for GEMMs in `dtype` (fp16_gemm_efficiency); 0 = the calibration's."""
        return self.fp16_gemm_efficiency if dtype in ("fp16", "fp16acc16") else 0.0

    def layer_kernels(self, dtype: str) -> int:
        """Kernels one decoder layer runs in a decode step with weights of `dtype`."""
        fused = self.int4_kernels_per_layer if dtype == "int4" else 0
        return fused or self.kernels_per_layer

    def step_host_ms(self, processes: int) -> float:
        """Host time of one step on `processes` worker processes (tp x pp): the per-step host work,
        plus the hand-off to the other workers where there are any."""
        return self.host_ms_per_step + (self.multiprocess_ms_per_step if processes > 1 else 0.0)


# --------------------------------------------------------------------------- loading

_SPECS = {"gpu": GpuSpec, "interconnect": InterconnectSpec, "model": ModelSpec, "engine": EngineSpec}


@dataclass
class _Catalog:
    gpu: dict[str, GpuSpec] = field(default_factory=dict)
    interconnect: dict[str, InterconnectSpec] = field(default_factory=dict)
    model: dict[str, ModelSpec] = field(default_factory=dict)
    engine: dict[str, EngineSpec] = field(default_factory=dict)
    origin: dict[tuple[str, str], str] = field(default_factory=dict)  # (table, key) -> file

    def where(self, section: str, key: str) -> str:
        return f"{self.origin.get((section, key), '?')}: [{section}.{key}]"


@functools.lru_cache(maxsize=4)
def _bundled_paths(folder: Path) -> tuple[str, ...]:
    """The bundled tables' paths, joined once: every catalog lookup checks their stamps."""
    return tuple(str(folder / f) for f in BUNDLED)


def _catalog() -> _Catalog | _BundledTables:
    files = _bundled_paths(CATALOG_DIR) + _EXTRA_FILES
    key = tuple((f, _stamp(f)) for f in files)  # a file edited since is read again
    if key not in _CACHE and not _EXTRA_FILES:
        _CACHE[key] = _BundledTables()
    if key not in _CACHE:
        cat = _Catalog()
        for path in files:
            _load_file(cat, path)
        _check_links(cat)
        _CACHE[key] = cat
    return _CACHE[key]


# The bundled file(s) each table is read from. A GPU's fields name interconnects, so its table is
# checked with theirs; each bundled file holds only its own table (tests/test_catalog.py checks).
TABLE_FILES = {"gpu": ("gpus.toml", "interconnects.toml"), "interconnect": ("interconnects.toml",),
               "model": ("models.toml",), "engine": ("engines.toml",)}


class _BundledTables:
    """The bundled catalog without user files, each table read and checked on its first use: a
    capture looks up its GPU and never a model or an engine (parsing all four files costs ~15 ms)."""

    def __getattr__(self, table: str) -> dict:
        if table not in TABLE_FILES:
            raise AttributeError(table)
        part = _Catalog()
        for name in TABLE_FILES[table]:
            _load_file(part, str(CATALOG_DIR / name))
        _check_links(part)
        for other, files in TABLE_FILES.items():  # the GPUs' files hold the interconnects too: read them once
            if other not in vars(self) and set(files) <= set(TABLE_FILES[table]):
                setattr(self, other, getattr(part, other))
        return getattr(self, table)


def _stamp(path: str) -> tuple:
    try:
        st = os.stat(path)
    except OSError:
        return ()
    return (st.st_mtime_ns, st.st_size)


def _load_file(cat: _Catalog, path: str) -> None:
    from diagnose.inputs import load_toml

    data = load_toml(path, "catalog")  # kind, size, UTF-8 and nesting checked: bad input names the file
    for section, entries in data.items():
        if section in HOST_MEMORY_TABLES:
            continue  # host-memory rows: host_memory() reads and checks them
        if section not in _SPECS:
            raise InputError(f"{path}: unknown table [{section}] (expected one of: gpu, interconnect, model, engine, "
                             "cpu, achieved)")
        if not isinstance(entries, dict):
            raise InputError(f"{path}: [{section}] must hold tables like [{section}.<key>]")
        for key, entry in entries.items():
            if not isinstance(entry, dict):
                raise InputError(f"{path}: [{section}.{key}] must be a table of fields")
            getattr(cat, section)[key] = _build(_SPECS[section], key, entry, f"{path}: [{section}.{key}]")
            cat.origin[(section, key)] = path


@functools.lru_cache(maxsize=None)
def cuda_version_sources() -> tuple[dict, ...]:
    """rules/catalog/cuda_versions.toml's [[source]] rows: the tools whose "CUDA version" a reporter quotes, and what
    each one's is (the driver's supported CUDA or a toolkit's), read once."""
    from diagnose.inputs import load_toml

    return tuple(load_toml(str(CATALOG_DIR / "cuda_versions.toml"), "catalog").get("source", []))


# The engine names claims reads, as engine_releases.toml keys them ("text-generation-inference" is TGI).
_RELEASE_KEYS = {"text-generation-inference": "tgi"}


@functools.lru_cache(maxsize=None)
def _engine_release_rows() -> dict:
    """rules/catalog/engine_releases.toml's [engine.*] rows, read once."""
    from diagnose.inputs import load_toml

    return load_toml(str(CATALOG_DIR / "engine_releases.toml"), "catalog").get("engine", {})


def engine_release_ceiling(name: str | None) -> int | None:
    """(left26) The highest major release a bare number may have to be this engine's (engine_releases.toml: its
    latest_major + 1), or None for an engine with no row."""
    key = (name or "").lower()
    row = _engine_release_rows().get(_RELEASE_KEYS.get(key, key))
    return int(row["latest_major"]) + 1 if row else None


# rules/catalog/host_memory.toml's row tables a user's file may add to: [[cpu]] families (matched before the bundled
# ones, so a user's row wins) and [[achieved]] CPU-decode measurements.
HOST_MEMORY_TABLES = {"cpu": ("family", "pattern", "channels"), "achieved": ("what", "peak_gbs", "achieved_gbs")}
_HOST_CACHE: dict[tuple, dict] = {}


def host_memory() -> dict:
    """rules/catalog/host_memory.toml with the [[cpu]] and [[achieved]] rows of the user's catalog files added, each
    row checked for its required fields (a bad one is an InputError naming the file)."""
    from diagnose.inputs import load_toml

    files = (str(CATALOG_DIR / "host_memory.toml"),) + _EXTRA_FILES
    key = tuple((f, _stamp(f)) for f in files)
    if key not in _HOST_CACHE:
        table = load_toml(files[0], "catalog")
        for path in _EXTRA_FILES:
            data = load_toml(path, "catalog")
            for section, needed in HOST_MEMORY_TABLES.items():
                rows = data.get(section, [])
                if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                    raise InputError(f"{path}: [[{section}]] must be an array of tables")
                for r in rows:
                    missing = [f for f in needed if f not in r]
                    if missing or (section == "cpu" and not ("mts" in r or "mts_by_tier" in r)):
                        raise InputError(f"{path}: [[{section}]] {r.get(needed[0], '?')!r}: missing field "
                                         f"'{(missing or ['mts'])[0]}'")
                    if section == "cpu":
                        try:
                            re.compile(r["pattern"])
                        except re.error as e:
                            raise InputError(f"{path}: [[cpu]] {r['family']!r}: pattern is no regular expression "
                                             f"({e})") from None
                table[section] = rows + table[section] if section == "cpu" else table[section] + rows
        _HOST_CACHE[key] = table
    return _HOST_CACHE[key]


def _build(cls, key: str, entry: dict, where: str):
    """A spec from a TOML table, every field checked against the dataclass."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(entry) - set(fields))
    if unknown:
        hint = closest_names(unknown[0], fields, n=3)
        raise InputError(f"{where}: unknown field '{unknown[0]}'"
                         + (f" (did you mean {', '.join(hint)}?)" if hint else ""))
    values = {"key": key} if "key" in fields else {}
    for name, f in fields.items():
        if name == "key":
            continue
        if name not in entry:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"{where}: missing field '{name}'")
            continue
        values[name] = _coerce(entry[name], f, where)
    return cls(**values)


def _coerce(value, f: dataclasses.Field, where: str):
    kind = str(f.type)
    if f.name == "release_markers":
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise InputError(f"{where}: field 'release_markers' must be a list of tables")
        return tuple(_build(ReleaseMarker, "", v, f"{where} release_markers") for v in value)
    if kind.startswith("tuple"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"{where}: field '{f.name}' must be a list of strings")
        return tuple(v.upper() if f.name == "pci_device_ids" else v for v in value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise InputError(f"{where}: field '{f.name}' must be true or false, got {value!r}")
        return value
    if kind in ("int", "float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_NUMBER:
            raise InputError(f"{where}: field '{f.name}' must be a non-negative, finite number, got {value!r}")
        if kind == "int" and value != int(value):
            raise InputError(f"{where}: field '{f.name}' must be an integer, got {value!r}")
        return int(value) if kind == "int" else float(value)
    if not isinstance(value, str):
        raise InputError(f"{where}: field '{f.name}' must be a string, got {value!r}")
    return value


def _check_links(cat: _Catalog) -> None:
    """Cross-references and shapes that would otherwise fail deep inside the predictor."""
    for ic in cat.interconnect.values():
        if ic.kind not in INTERCONNECT_KINDS:
            raise InputError(f"{cat.where('interconnect', ic.key)}: field 'kind' must be one of "
                             f"{', '.join(INTERCONNECT_KINDS)}")
        if not (ic.bandwidth_gbs > 0 and 0 < ic.achieved_gbs <= ic.bandwidth_gbs):
            raise InputError(f"{cat.where('interconnect', ic.key)}: field 'achieved_gbs' must be > 0 and at most "
                             "'bandwidth_gbs'")
    for g in cat.gpu.values():
        if g.interconnect not in cat.interconnect:
            raise InputError(f"{cat.where('gpu', g.key)}: field 'interconnect' names unknown interconnect "
                             f"'{g.interconnect}'")
        if g.pcie_interconnect not in cat.interconnect:
            raise InputError(f"{cat.where('gpu', g.key)}: field 'pcie_gen' {g.pcie_gen} has no "
                             f"'{g.pcie_interconnect}' interconnect")
        if not (g.memory_gb > 0 and g.hbm_gbs > 0 and g.bf16_tflops > 0):
            raise InputError(f"{cat.where('gpu', g.key)}: fields 'memory_gb', 'hbm_gbs' and 'bf16_tflops' must be "
                             "positive")
        for dev in g.pci_device_ids:
            if not re.fullmatch(r"[0-9A-F]{4}", dev):
                raise InputError(f"{cat.where('gpu', g.key)}: field 'pci_device_ids' entry '{dev}' is not 4 hex digits")
    for e in cat.engine.values():
        if e.custom_allreduce and e.custom_allreduce not in calibration().custom:
            raise InputError(f"{cat.where('engine', e.key)}: field 'custom_allreduce' names unknown kernel "
                             f"'{e.custom_allreduce}' (known: {', '.join(calibration().custom)})")
        flips = [re.fullmatch(r"(\d+)=(20\d\d-[01]\d-[0-3]\d)", f) for f in e.pp_graphs_flips]
        ordered = all(flips) and all(int(a[1]) < int(b[1]) and a[2] <= b[2] for a, b in zip(flips, flips[1:]))
        if not ordered:
            raise InputError(f"{cat.where('engine', e.key)}: field 'pp_graphs_flips' must list 'BUILD=YYYY-MM-DD' "
                             "entries, oldest first")
        bands = [re.fullmatch(r"(\d+)(?:-(\d+))?=(20\d\d-[01]\d-[0-3]\d)=(\d+)", b) for b in e.kernel_bands]
        ordered = all(bands) and all(int(b[1]) <= int(b[2] or b[1]) for b in bands) and all(
            int(a[1]) <= int(b[1]) and int(a[2] or a[1]) <= int(b[2] or b[1]) and a[3] < b[3]
            for a, b in zip(bands, bands[1:]))
        if not ordered or any(int(b[4]) < 1 for b in bands):
            raise InputError(f"{cat.where('engine', e.key)}: field 'kernel_bands' must list 'BUILD=YYYY-MM-DD=KERNELS' "
                             "entries (BUILD a number or 'LO-HI'), oldest first, each with at least 1 kernel")
        for entry in e.releases:
            if not re.fullmatch(r"\d+\.\d+=\S+", entry) or entry.split("=")[1] not in cat.engine:
                raise InputError(f"{cat.where('engine', e.key)}: field 'releases' entry '{entry}' is not "
                                 "'MAJOR.MINOR=profile' naming a known engine profile")
        for m in e.release_markers:
            try:
                re.compile(m.pattern)
            except re.error as exc:
                raise InputError(f"{cat.where('engine', e.key)}: release marker '{m.pattern}': {exc}") from None
            if any(v and not re.fullmatch(r"\d+\.\d+", v) for v in (m.first, m.last)):
                raise InputError(f"{cat.where('engine', e.key)}: release marker '{m.pattern}': 'first' and 'last' "
                                 "must be MAJOR.MINOR")
        for shape in e.grouped_decode_attention:
            if not re.fullmatch(r"any|(\*|\d+(-\d+)?):(\*|\d+(-\d+)?)", shape):
                raise InputError(f"{cat.where('engine', e.key)}: field 'grouped_decode_attention' entry '{shape}' is "
                                 "not 'any' or 'head_dim:group' (each a number, 'lo-hi' or '*')")
        if e.pp_handover not in ("nccl", "copy"):
            raise InputError(f"{cat.where('engine', e.key)}: field 'pp_handover' must be 'nccl' or 'copy'")
        if not 0 < e.memory_utilization <= 1 or e.kernels_per_layer < 1:
            raise InputError(f"{cat.where('engine', e.key)}: fields 'memory_utilization' must be in (0, 1] and "
                             "'kernels_per_layer' at least 1")
    for m in cat.model.values():
        for name in ("layers", "hidden", "heads", "kv_heads", "head_dim", "vocab"):
            if not 0 < getattr(m, name) <= MAX_DIMENSION:
                raise InputError(f"{cat.where('model', m.key)}: field '{name}' must be positive and at most "
                                 f"{MAX_DIMENSION}")
        if m.params() > MAX_PARAMS:
            raise InputError(f"{cat.where('model', m.key)}: its sizes make {m.params():.3g} parameters, beyond any "
                             f"real model (at most {MAX_PARAMS:.0e})")
        if m.checkpoint_dtype not in WEIGHT_DTYPES:
            raise InputError(f"{cat.where('model', m.key)}: field 'checkpoint_dtype' must be one of "
                             f"{', '.join(WEIGHT_DTYPES)}")
        if m.is_moe and not (m.experts_active and m.expert_ffn):
            raise InputError(f"{cat.where('model', m.key)}: field 'experts_active'/'expert_ffn' required when "
                             "experts > 0")


# --------------------------------------------------------------------------- calibration

CALIBRATION_FILE = CATALOG_DIR / "calibration.toml"


@dataclass(frozen=True)
class CustomAllReduceSpec:
    """An engine's own all-reduce kernel (calibration.toml [custom.<key>])."""

    key: str
    name: str
    base_us: float  # fixed time of one call replayed from a CUDA graph
    per_doubling_us: float  # added per doubling of the rank count beyond 2
    bus_gbs_per_link_gbs: float  # achieved bus bandwidth per GB/s of NVLink line rate
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Calibration:
    """The fitted constants of the expected figures (calibration.toml; see its comments)."""

    stream_efficiency: float
    kernel_overhead_us: float
    attention_efficiency: float
    per_head_ops: dict  # CUDA-core operations per KV element per query head: "kv16" (16-bit KV), "kv8" (8-bit)
    # clock cycles one decode-attention thread block spends per cached token when it walks a head's whole cache
    # alone ("kv16": 16-bit KV, "kv8": FP8 / INT8 KV; calibration.toml [single_block_attention])
    single_block_cycles: dict
    # CUDA-core operations to turn one int4 / int8 weight into 16 bits ("int4", "int8"), and one GGUF weight by its
    # block family ("gguf_k_low": gguf_types.toml dequant)
    dequant_ops: dict
    gemm_ceiling: dict
    tile_overhead_k: float
    overlap_p: float  # how fully a kernel overlaps its memory stream with its math (p-norm of the two times)
    expert_gemm_efficiency: float  # share of the dense GEMM rate a grouped (MoE expert) GEMM reaches
    gpu_speed_cv: float  # relative spread in speed between GPUs of one TP group
    host_speed_cv: float  # relative spread of the ranks' host times where each rank's own process launches its step
    gemm_efficiency: dict
    nccl: dict
    eager_extra_us: float  # a collective launched from the host instead of a CUDA graph
    # one host thread launching a collective on several GPUs (nccl-tests -g N): its fixed host time per call, and
    # what it spends on each GPU's part
    thread_call_us: float
    thread_launch_us: float
    custom: dict
    band: tuple[float, float]
    allreduce_band: tuple[float, float]

    def gemm(self, dtype: str, gpu: "GpuSpec | None" = None, share: float = 0.0) -> float:
        """Share of the datasheet tensor rate a model GEMM reaches on `gpu`: the GPU's measured
        matmul ceiling (or the typical one) times the fitted share of it (or an engine's own `share`)."""
        fp8 = dtype == "fp8"
        # matmul_max is measured at FP32 accumulate: a GeForce board's doubled FP16-accumulate rate is not
        measured = gpu is not None and not (dtype == "fp16acc16" and gpu.fp16_acc16_tflops)
        ceiling = (gpu.matmul_fp8_max if fp8 else gpu.matmul_max) if measured else 0.0
        ceiling = ceiling or self.gemm_ceiling["fp8" if fp8 else "bf16"]
        return ceiling * (share or self.gemm_efficiency.get(dtype) or self.gemm_efficiency["bf16"])


_CALIBRATION: dict[tuple, Calibration] = {}
_TRIAL: list[Calibration] = []


@contextmanager
def trial_calibration(cal: Calibration):
    """Use `cal` instead of calibration.toml inside the block (the fit tries candidates so)."""
    _TRIAL.append(cal)
    try:
        yield cal
    finally:
        _TRIAL.pop()


def calibration() -> Calibration:
    """The bundled calibration.toml, read once (re-read when the file changes)."""
    if _TRIAL:
        return _TRIAL[-1]
    key = _stamp(str(CALIBRATION_FILE))
    if key not in _CALIBRATION:
        _CALIBRATION.clear()
        _CALIBRATION[key] = _load_calibration(CALIBRATION_FILE)
    return _CALIBRATION[key]


def _load_calibration(path: Path) -> Calibration:
    where = str(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: cannot read the predictor calibration ({exc})") from None

    def number(table: dict, name: str, section: str) -> float:
        value = table.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise InputError(f"{where}: [{section}] field '{name}' must be a positive number, got {value!r}")
        return float(value)

    def table(name: str) -> dict:
        value = data.get(name)
        if not isinstance(value, dict):
            raise InputError(f"{where}: table [{name}] is missing")
        return value

    kernels, per_head, single, dequant, ceiling, shape, gemm, nccl, sync, launch, band, ar_band = (
        table(n) for n in ("kernels", "per_head_attention", "single_block_attention", "dequant", "gemm_ceiling",
                           "gemm_shape", "gemm_efficiency", "nccl", "sync", "launch", "band", "allreduce_band"))
    custom = {}
    for key, entry in table("custom").items():
        if not isinstance(entry, dict):
            raise InputError(f"{where}: [custom.{key}] must be a table of fields")
        custom[key] = _build(CustomAllReduceSpec, key, entry, f"{where}: [custom.{key}]")
    bands = tuple(tuple(number(b, k, n) for k in ("low", "high"))
                  for b, n in ((band, "band"), (ar_band, "allreduce_band")))
    if any(not lo < 1 < hi for lo, hi in bands):
        raise InputError(f"{where}: a band must hold 1 (low < 1 < high)")
    return Calibration(
        stream_efficiency=number(kernels, "stream_efficiency", "kernels"),
        kernel_overhead_us=number(kernels, "kernel_overhead_us", "kernels"),
        attention_efficiency=number(kernels, "attention_efficiency", "kernels"),
        per_head_ops={k: number(per_head, k, "per_head_attention") for k in ("kv16", "kv8")},
        single_block_cycles={k: number(single, k, "single_block_attention") for k in ("kv16", "kv8")},
        dequant_ops={k: number(dequant, k, "dequant")
                     for k in ("int4", "int8", *(k for k in dequant if k.startswith("gguf_")))},
        gemm_ceiling={k: number(ceiling, k, "gemm_ceiling") for k in ceiling},
        tile_overhead_k=number(shape, "tile_overhead_k", "gemm_shape"),
        overlap_p=number(shape, "overlap_p", "gemm_shape"),
        expert_gemm_efficiency=number(shape, "expert_gemm_efficiency", "gemm_shape"),
        gpu_speed_cv=number(sync, "gpu_speed_cv", "sync"),
        host_speed_cv=number(sync, "host_speed_cv", "sync"),
        gemm_efficiency={k: number(gemm, k, "gemm_efficiency") for k in gemm},
        nccl={k: number(nccl, k, "nccl") for k in nccl},
        eager_extra_us=number(launch, "eager_extra_us", "launch"),
        thread_call_us=number(launch, "thread_call_us", "launch"),
        thread_launch_us=number(launch, "thread_launch_us", "launch"),
        custom=custom, band=bands[0], allreduce_band=bands[1],
    )


# --------------------------------------------------------------------------- lookups


@functools.lru_cache(maxsize=4096)
def _norm(text: str) -> str:
    """'NVIDIA H100-SXM5 80GB' and 'nvidia_h100 sxm5 80gb' compare equal ('Command R+' and 'command-r-plus' too; a
    release's '3.1', '3_1' and '31' too). The gap between a release and the size after it is kept, so 'qwen2-57b'
    (Qwen2's 57B) is not 'qwen2.5-7b'; a size's decimal point is kept too, so 'opt-1.3b' is not 'opt-13b'.
    Kept per name (a string: never stale): a GPU lookup normalises every catalog entry's names again."""
    text = re.sub(r"(?<=\d)[^0-9a-z.]+(?=\d+(?:\.\d+)?b(?![a-z0-9]))", "~", str(text).lower().replace("+", "plus"))
    text = re.sub(r"(?<![\d.])(\d+)\.(\d+b)(?![a-z0-9])", r"\1p\2", text)
    return re.sub(r"[^0-9a-z.~]", "", text).replace(".", "")


def _index(entries: dict, extra_names) -> dict[str, str]:
    """Every entry's names, normalised; a Hugging Face id ('org/name') also by its name, as people drop the org."""
    index: dict[str, str] = {}
    for key, spec in entries.items():
        for name in (key, spec.name, *spec.aliases, *extra_names(spec)):
            index.setdefault(_norm(name), key)
        for name in spec.aliases:
            if "/" in name:
                index.setdefault(_norm(name.rsplit("/", 1)[-1]), key)
    return index


_INDEXES: dict[tuple, tuple[dict, int, dict]] = {}


def _held(entries: dict, how, build) -> dict:
    """build(entries), kept per table and `how` until the table is replaced or grows (a catalog file edited, a user's
    file read): model names are tried many ways (rules.subject._model_names), GPU names on every ticket."""
    held = _INDEXES.get((id(entries), how))
    if held is None or held[0] is not entries or held[1] != len(entries):
        held = _INDEXES[(id(entries), how)] = (entries, len(entries), build(entries))
    return held[2]


def _no_names(spec) -> tuple:
    return ()


def _nvml_names(spec) -> tuple:
    return tuple(spec.nvml_names)


def _lookup(entries: dict, name: str, extra_names=_no_names):
    """The entry `name` names: by key, or by any of its names (key, name, aliases and `extra_names`), normalised."""
    index = _held(entries, extra_names, lambda e: _index(e, extra_names))
    return entries.get(name) or entries.get(index.get(_norm(name), ""))


def _unknown(what: str, name: str, entries: dict, extra_names=lambda s: ()) -> UnknownName:
    names = list(entries) + [a for s in entries.values() for a in (*s.aliases, *extra_names(s))]
    hint = closest_names(str(name), names)
    # the closest names when there are some (the whole list buries them), else the whole list
    known = f"closest known: {', '.join(hint)}" if hint else f"known: {', '.join(sorted(entries))}"
    return UnknownName(f"unknown {what} '{name}'; {known} (add one with --catalog FILE)")


def gpus() -> dict[str, GpuSpec]:
    return dict(_catalog().gpu)


def interconnects() -> dict[str, InterconnectSpec]:
    return dict(_catalog().interconnect)


def models() -> dict[str, ModelSpec]:
    return dict(_catalog().model)


def engines() -> dict[str, EngineSpec]:
    return dict(_catalog().engine)


def engine(name: str | None) -> EngineSpec:
    """A serving engine profile by key or alias ('vllm', 'trt-llm', ...); None is 'generic'.
    Callers resolve a name once and pass the EngineSpec on."""
    found = _lookup(_catalog().engine, name or "generic")
    # a name with its release ('vLLM 0.21.0', 'vllm==0.21.0'): the engine's profile for that release
    said = re.fullmatch(r"\s*(\S+?)\s*(?:==|\s)\s*(v?\d+\.\d+\S*)\s*", name or "") if found is None else None
    base = _lookup(_catalog().engine, said[1]) if said else None
    if base is not None:
        return _release_profile(base, [said[2]])
    if found is None:
        raise _unknown("engine", name, _catalog().engine)
    return found


def split_twin(found: EngineSpec, pp: int, lookup=None) -> EngineSpec:
    """The profile that runs a model split over `pp` stages: an engine that drops its CUDA graphs there (engines.toml
    pp_eager: llama.cpp's pipeline parallelism) runs as its build_twin, which `lookup` resolves (default: engine())."""
    if pp > 1 and found.pp_eager and found.build_twin:  # the twin launches the same attention kernels
        return dataclasses.replace((lookup or engine)(found.build_twin), flash_attention=found.flash_attention)
    return found


def split_graphs(found: EngineSpec, builds) -> bool | None:
    """Does a split of `found` by layers keep its CUDA graphs in the builds stated (engines.toml pp_graphs_flips)?
    True or False where every one is in a range that does or does not, None where none is stated, they straddle a
    flip (a month spanning its day, two builds), or the engine has no flips."""
    if not found.pp_graphs_flips:
        return None
    sides = [build_side(found, builds, int(b), day) for b, day in (f.split("=") for f in found.pp_graphs_flips)]
    if None in sides:
        return None
    return sides.count(False) % 2 == 1  # past an odd number of flips: the graphs are back


def split_build(found: EngineSpec, builds) -> EngineSpec:
    """`found` as the builds stated run a split by layers: with its CUDA graphs (pp_eager off) where they keep them,
    or, none stated or straddling a flip, where the newest builds do (callers widen the band: build_decides)."""
    keeps = split_graphs(found, builds)
    if keeps is None and found.pp_eager and found.pp_graphs_flips:
        keeps = len(found.pp_graphs_flips) % 2 == 1
    return dataclasses.replace(found, pp_eager=False) if keeps else found


def mmq_build(found: EngineSpec, builds) -> EngineSpec:
    """`found` as the builds stated run a quantised prompt: on INT8 tensor cores (int8_mma_cc) from
    int8_mma_since_build on, on the 16-bit path where every build stated predates it; none stated or straddling it,
    as the newest builds do."""
    if found.int8_mma_cc and build_side(found, builds, found.int8_mma_since_build, found.int8_mma_since_date):
        return dataclasses.replace(found, int8_mma_cc=0.0)
    return found


def kernel_build(found: EngineSpec, builds) -> EngineSpec:
    """`found` with the kernels a decode layer runs in the builds stated (engines.toml kernel_bands): the newest band
    every stated build is at or after; none stated, the newest builds'; builds straddling a band's first build (two
    builds, a month spanning its day, a build inside its range) take that band, the newer side."""
    for entry in reversed(found.kernel_bands):
        first, day, kernels = entry.split("=")
        lo, _, hi = first.partition("-")
        sides = {build_side(found, builds, int(lo), day), build_side(found, builds, int(hi or lo) + 1, day)}
        if sides != {True}:  # at or after the band's first build, or not decided against it
            return dataclasses.replace(found, kernels_per_layer=int(kernels))
    return found


def attention_build(found: EngineSpec, fa: bool | str | None = None, builds=(), server: bool = False) -> EngineSpec:
    """`found` running its decode attention as flash attention where the run says so (-fa on / 1: True; off / 0:
    False). Not said (None), it follows the tool's default for the builds stated: on from the build its default became
    auto (auto turns it on for CUDA; engines.toml fa_auto_since_build for llama-server and llama-cli, `server`,
    bench_fa_auto_since_build for llama-bench), off before it and where no build is stated. 'auto' said is on: only
    builds from that switch take the value."""
    if fa is None:
        since = ((found.fa_auto_since_build, found.fa_auto_since_date) if server
                 else (found.bench_fa_auto_since_build, found.bench_fa_auto_since_date))
        fa = since[0] > 0 and build_side(found, builds, *since) is False
    return dataclasses.replace(found, flash_attention=True) if fa and found.fa_kernels else found


def build_profile(found: EngineSpec, builds, fa: bool | str | None = None, server: bool = False) -> EngineSpec:
    """`found` as the builds stated run it: a split by layers (split_build), a quantised prompt (mmq_build), the
    kernels of a decode layer (kernel_build), and with flash attention on or off (attention_build)."""
    return attention_build(kernel_build(mmq_build(split_build(found, builds), builds), builds), fa, builds, server)


def build_decides(found: EngineSpec | None, builds) -> bool:
    """Do the builds stated decide every build boundary of the engine's profile (build_side's, and a layer split's:
    split_graphs)? Where not, a figure is judged against the band covering the twin too (roofline.predict_any_build)."""
    return found is not None and build_side(found, builds) is not None and (
        not found.pp_graphs_flips or split_graphs(found, builds) is not None)


def without_graphs(found: EngineSpec) -> EngineSpec:
    """The profile launched without CUDA graphs (--enforce-eager, --disable-cuda-graph): every kernel of a decode step
    launched from the host (rules.step_model prices launch_us per kernel and host_us_per_layer), no piecewise graphs."""
    return found if not found.cuda_graphs else dataclasses.replace(found, cuda_graphs=False, piecewise_layer_us=0.0)


def run_engine(name: str | None, gpu: GpuSpec | None = None, gguf: str | None = None, builds=(),
               fa: bool | str | None = None, server: bool = False) -> EngineSpec:
    """The profile that runs the model: the engine named, else llama.cpp's where the weights are a GGUF file (its
    format: an Ollama tag, --quant Q4_K_M), else generic. llama.cpp on a GPU below its graphs' architecture gate
    (engines.toml graphs_min_cc: ggml-cuda keeps CUDA graphs off there) is llamacpp-eager, but for a GPU the later
    gate admits (graphs_since_cc) whose build is not stated to predate it (graphs_since_build); so is a stated build
    before the twin boundary (build_side). A row that does not know its capability (0) keeps the graphs, and a split
    by layers keeps them where its builds do (split_build)."""
    found = engine(name) if name else engine("llamacpp" if gguf else "generic")
    cc = gpu.compute_capability if gpu is not None else 0
    if found.build_twin and 0 < cc < found.graphs_min_cc:
        # below the architecture gate: the twin, unless the GPU is of the later gate's range and the build states it
        # is at or after that build (unstated: the engine as named, judged against both bands by its callers)
        later = found.graphs_since_cc and cc >= found.graphs_since_cc and build_side(
            found, builds, found.graphs_since_build, found.graphs_since_date) is not True
        if not later:
            return engine(found.build_twin)
    if build_side(found, builds):
        return attention_build(engine(found.build_twin), fa, builds, server)
    return build_profile(found, builds, fa, server)


# A build stated by its date: a year, a month or a day ('2024', '2024-03', '2024-03-15').
BUILD_DATE = re.compile(r"20\d\d(?:-[01]\d(?:-[0-3]\d)?)?")


def build_side(engine: EngineSpec | None, builds, before_build: int = 0, before_date: str = "") -> bool | None:
    """Which side of a build boundary of the engine's (engines.toml twin_before_build / twin_before_date, or the
    one given) the stated builds are on: True where every one predates it (the twin ran), False where every one is at
    or after it, None where none is stated, the engine has no twin, or they straddle it (two builds, or a month or year
    that spans the day). Builds come as the parsers read them (diagnose.artifacts.text.llamacpp_builds): 'b2822',
    '2024', '2024-03', '2024-03-15'. An embedder's own version (Ollama 0.3) is no build: embedders may compile CUDA
    graphs out (llamafile did: https://github.com/mozilla-ai/llamafile/pull/1051)."""
    before_build = before_build or (engine.twin_before_build if engine else 0)
    day = before_date or (engine.twin_before_date if engine else "")
    if not (engine and (engine.build_twin or before_build) and before_build and day):
        return None
    sides = set()
    for b in builds or ():
        b = str(b)
        if b.startswith("b") and b[1:].isdigit():
            sides.add(int(b[1:]) < before_build)
        elif BUILD_DATE.fullmatch(b):
            first, last = (b + "-01-01")[:10], (b + "-12-31")[:10] if len(b) == 4 else (b + "-31")[:10]
            sides.add(True if last < day else False if first >= day else None)
    return sides.pop() if len(sides) == 1 else None


def find_engine(text: str | None) -> EngineSpec | None:
    """The engine a framework string names ('vLLM (vllm/vllm-openai:gptoss)', 'SGLang v0.4.1',
    'TensorRT-LLM 0.9'), by its first word or any key/alias in it, as the release written after it runs it
    (_release_profile); None when none matches."""
    found, _, after = _named(text)
    return _release_profile(found, after) if found is not None else None


def engine_named(facts) -> EngineSpec | None:
    """The engine profile of the framework a launch line or ticket.toml names (the first Workload whose framework
    find_engine knows), if any: one lookup for rules.common.engine_of and rules.claims, which sits below common."""
    from diagnose.evidence import Workload

    return next((e for w in facts.of(Workload) if (e := find_engine(w.framework)) is not None), None)


def _named(text: str | None) -> tuple[EngineSpec | None, str, list[str]]:
    """The engine profile a text names by key or alias, the name it matched, and the words after the name (where its
    release would be)."""
    text = str(text or "").lower()
    # a container image names its engine in its repository, after the registry and organisation
    # ("ghcr.io/huggingface/text-generation-inference:2.0" is TGI, not Hugging Face transformers): that name first
    image = re.search(r"(?<![\w./-])(?:[a-z0-9][\w.-]*/)+([a-z0-9][\w.-]*(?::[\w.-]+)?)", text)
    words = re.findall(r"[a-z0-9][a-z0-9_.+-]*", (image.group(1) + " " if image else "") + text)
    entries = _catalog().engine
    # a two-word name ('LM Studio') is looked up as its hyphenated alias too
    for i, pair in enumerate(zip(words, words[1:] + [""])):
        for w in (pair[0], "-".join(pair).rstrip("-")):
            for name in (w, w.rstrip("0123456789.-")):
                found = _lookup(entries, name) if name else None
                if found is not None and found.key != "generic":
                    return found, name, [w[len(name):].lstrip("-"), *words[i + 1:i + 3]]
    return None, "", []


def _stated_release(after: list[str]) -> tuple[int, int] | None:
    """(major, minor) of the first version written right after an engine's name ('0.21.0', 'v1.4.5', '0.5.3.post1');
    None where none follows. NVIDIA's container tags (year.month: 'vllm:25.09-py3', 'vllm 25.09') are no release
    numbers."""
    for w in after:
        m = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:\.?post\d+|rc\d+)?", w)
        if m and int(m[1]) < 20:
            return int(m[1]), int(m[2])
    return None


def _releases(found: EngineSpec) -> list[tuple[tuple[int, int], str]]:
    return [(tuple(int(x) for x in v.split(".")), key) for v, key in (e.split("=") for e in found.releases)]


def _release_lines(found: EngineSpec) -> list[tuple[tuple[int, int], str]]:
    """(first release, profile key) of each release line, oldest first; the engine's own profile runs the releases
    before its first entry (engines.toml releases)."""
    entries = _releases(found)
    return ([] if entries[0][0] <= (0, 0) else [((0, 0), found.key)]) + entries


def _release_profile(found: EngineSpec, after: list[str]) -> EngineSpec:
    """The profile of the release written right after the engine's name (engines.toml releases: the last entry at or
    before it; before the first, the engine itself); the engine itself where none is written."""
    said = _stated_release(after) if found.releases else None
    if said is None:
        return found
    return engine(next((key for since, key in reversed(_releases(found)) if said >= since), found.key))


def release_candidates(text: str | None) -> tuple[EngineSpec, ...]:
    """The profiles an engine named without its release could have run ('vLLM', `--engine vllm`), oldest first, where
    its releases map to several (engines.toml releases); () where a release is written after the name, or the engine
    has one profile. The newest is the expected figure, the band covers them all (rules.roofline.predict_any_build)."""
    found, name, after = _named(text)
    # a name with a release in it ('vllm-v0', an alias) states it too
    if found is None or not found.releases or _stated_release(after) is not None or re.search(r"\d", name):
        return ()
    return tuple(engine(k) for k in dict.fromkeys(key for _, key in _release_lines(found)))


def release_marks(text: str, engine_key: str):
    """Every place `text` shows one of the engine's release markers (engines.toml release_markers), in marker order, as
    {"engine", "marker" (its index), "said" (the text matched), "release" (the one it states, else ""), "start",
    "end"}. Finding only: narrow_releases weighs them."""
    for i, m in enumerate(engine(engine_key).release_markers):
        for hit in _marker_re(m.pattern).finditer(text):
            yield {"engine": engine_key, "marker": i, "said": hit.group(0).strip(),
                   "release": hit.groupdict().get("release") or "", "start": hit.start(), "end": hit.end()}


@functools.lru_cache(maxsize=None)
def _marker_re(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I)


def _version(text: str, default: tuple[int, int]) -> tuple[int, int]:
    m = re.match(r"v?(\d+)\.(\d+)", text or "")
    return (int(m[1]), int(m[2])) if m else default


def narrow_releases(candidates: tuple[EngineSpec, ...], marks) -> tuple[tuple[EngineSpec, ...], str]:
    """The release profiles left of `candidates` (release_candidates: an engine named without its release) once the
    markers the material shows (release_marks, each with its "source") are weighed, and what narrowed them: each
    marker implies a range of releases (engines.toml release_markers), the ranges are intersected, and a profile stays
    where its own releases (engines.toml releases) meet what is left. Markers that contradict each other, or leave no
    profile, leave the candidates as they were, and the note says so; no marker: the candidates and ""."""
    base = next((e for e in candidates if e.releases), None)
    hits = [h for h in marks or () if base is not None and h.get("engine") == base.key
            and h.get("marker", -1) < len(base.release_markers)]
    if not hits:
        return candidates, ""
    ranges = []
    for h in {(h["marker"], h.get("release", "")): h for h in hits}.values():  # once per marker and release
        m = base.release_markers[h["marker"]]
        lo = _version(h.get("release") or m.first, (0, 0))
        hi = _version(h.get("release") or m.last, (99, 99))
        span = (f"{base.name} {h['release']}" if h.get("release") else f"{base.name} {m.first} to {m.last}"
                if m.first and m.last else f"{base.name} {m.first} or later" if m.first else
                f"{base.name} {m.last} or earlier")
        ranges.append((lo, hi, f"'{h['said']}' ({h.get('source', 'the material')}): {m.means}, {span}"))
    lo, hi = max(r[0] for r in ranges), min(r[1] for r in ranges)
    said = "; ".join(r[2] for r in ranges)
    if lo > hi:
        return candidates, f"release markers contradict each other ({said}): band left over every release"
    bounds = _release_lines(base)
    spans = {key: (since, bounds[i + 1][0] if i + 1 < len(bounds) else (99, 100)) for i, (since, key) in
             enumerate(bounds)}
    left = tuple(e for e in candidates if e.key in spans and spans[e.key][0] <= hi and spans[e.key][1] > lo)
    if not left:
        return candidates, f"release markers ({said}) match no release profile: band left over every release"
    return left, f"release narrowed by {said}"


def gpu(name: str) -> GpuSpec:
    """A GPU by key, alias, product name, NVML name or as people write it (resolve_gpu); InputError with the
    closest names. Commands call it once at their boundary and pass the GpuSpec on."""
    found = resolve_gpu(name)
    if found is None:
        raise _unknown("GPU", name, _catalog().gpu, lambda s: s.nvml_names)
    return found


# A count before or after the product: "8x H100", "2 x 3090", "4*4090", "8 H100", "A100 x8" (not the "4090" of a name:
# one to three digits and a separator or a space; not "80GB": a size).
_COUNT_BEFORE = re.compile(r"^\s*\d{1,3}\s*(?:[x×*]\s*|\s(?=\s*[A-Za-z]))(?![BG]i?B\b)")
_COUNT_AFTER = re.compile(r"(?:\s+[x×*]|\s*[×*])\s*\d{1,3}\s*$")  # (not the "x10" of "GX10")
# A plural glued to a model number: "V100s", "3090s", "A100's". NVIDIA writes a product's own S capital ("V100S",
# "L40S"; https://www.nvidia.com/en-us/data-center/l40s/, the V100 datasheet's "V100S PCIe"), so a lower-case s after
# the number is a plural where the writer uses case, unless people write that S product's own S in lower case (its
# row's written_lower_s: "L40s" is how owners write the L40S); an all-lower-case name is first read as written ("l40s",
# a key).
_PLURAL = re.compile(r"(?<=\d)(?:'s|s)$")


# A memory size in brackets after the name, and the words that say it is each card's: "4090 (48Gb each)",
# "A100(80GB)", "A6000 [48GB]", "4090（48G）" read as the spaced "4090 48Gb".
_BRACKETED_SIZE = re.compile(r"\s*[(\[（【]\s*(\d{2,3}\s*G(?:i?B)?)(?![\w/])[^)\]）】]{0,20}[)\]）】]", re.I)


def gpu_name(text: str | None) -> str:
    """The product `text` names, without a count or a plural ending ("8x V100s" -> "V100", "4 L40s" -> "L40S"), a size
    in brackets spaced ("4090 (48G)" -> "4090 48G")."""
    name = _BRACKETED_SIZE.sub(lambda m: " " + m.group(1), re.sub(r"\s+", " ", str(text or ""))).strip()
    name = _COUNT_AFTER.sub("", _COUNT_BEFORE.sub("", name)).strip()
    if name.endswith("'s"):
        return _PLURAL.sub("", name)
    if name == name.lower():
        return name
    if name.endswith("s") and _PLURAL.search(name):
        own = find_gpu(name=name[:-1] + "S")
        return name[:-1] + "S" if own is not None and own.written_lower_s else name[:-1]
    return name


def resolve_gpu(text: str | None, nvlink: bool | None = None) -> GpuSpec | None:
    """The one reading of a GPU name for every command (predict, plan, scaling, ticket): an exact catalog key, NVML
    name or product name first (find_gpu), then an alias, then the product as people write it (find_gpu_family); where
    `nvlink` is known it picks the SXM or PCIe board before an alias does. Counts and plurals off (gpu_name). None when
    no row matches."""
    entries = _catalog().gpu
    name = gpu_name(text)
    for candidate in dict.fromkeys((name, _PLURAL.sub("", name))):
        if not candidate:
            continue
        found = entries.get(candidate) or find_gpu(name=candidate)
        if found is None and nvlink is not None:
            found = find_gpu_family(candidate, nvlink)
        if found is None:  # the alias index is built only here: most names are found above
            found = _lookup(entries, candidate, _nvml_names)
        if found is None and nvlink is None:
            found = find_gpu_family(candidate)
        if found is not None:
            return found if _laptop(name) == _laptop(found.key + " " + found.name) else None
    return None


def _laptop(name: str) -> bool:
    """Does the name say a laptop part ("RTX 4090 Laptop GPU", "RTX 3060 Mobile", "GTX 1650 Ti with Max-Q")? Such a
    part has its own memory and clocks (NVIDIA names it "... Laptop GPU"), so it resolves to its own row or none,
    never the desktop card's, and a desktop name never to a laptop row. (The RTX PRO 6000 Blackwell Max-Q is a
    workstation card: its row's alias, found before this is asked, keeps it.)"""
    return bool(re.search(r"laptop|mobile|notebook", name, re.I)
                or re.search(r"max-?q", name, re.I) and not re.search(r"\bpro\b|blackwell", name, re.I))


# Mixed boards hold each other back when the fastest outruns the slowest by this much or more in memory bandwidth
# (decode) or dense compute (prefill), the catalog's figures: A100 80GB PCIe against SXM (1.05x) are alike, A100
# 40GB against 80GB (1.3x bandwidth) or an RTX 3090 against a 4060 Ti (3.2x) are not.
UNLIKE = 1.2


def pace_gap(specs) -> float:
    """The fastest board over the slowest, in memory bandwidth or dense compute, whichever differs more: one yardstick
    for mixed boards in one job (ticket.mixed_gpus) and for a reference run on other boards (reference_scaling)."""
    return max(max(getattr(s, k) for s in specs) / min(getattr(s, k) for s in specs)
               for k in ("hbm_gbs", "bf16_tflops"))


def interconnect(key: str) -> InterconnectSpec:
    """An interconnect by key; callers resolve it once and pass the InterconnectSpec on (the
    predictor's TP fabric may be a row capped to the GPU's own links, rules.roofline.tp_fabric)."""
    found = _lookup(_catalog().interconnect, key)
    if found is None:
        raise _unknown("interconnect", key, _catalog().interconnect)
    return found


def normalize_pci_device_id(value) -> str | None:
    """'0x233010DE' (nvidia-smi), '10de:2330', '0x2330', 0x2330 -> '2330'."""
    if value is None:
        return None
    if isinstance(value, int):
        return f"{value >> 16:04X}" if value > 0xFFFF and value & 0xFFFF == 0x10DE else f"{value & 0xFFFF:04X}"
    text = str(value).strip().lower().replace("0x", "")
    if ":" in text:
        text = text.split(":")[-1]
    if len(text) == 8 and text.endswith("10de"):
        text = text[:4]
    return text.upper() if re.fullmatch(r"[0-9a-f]{4}", text) else None


def find_gpu(name: str | None = None, pci_device_id=None) -> GpuSpec | None:
    """Map what NVML / nvidia-smi reports to a catalog row, or None.

    The PCI device ID decides first (names are shared or ambiguous, gpu-specs.md section 4);
    then the exact NVML name, then a catalog key or product name. Aliases are NOT used here:
    a bare 'NVIDIA H100' must not become the 80 GB SXM row.
    """
    dev = normalize_pci_device_id(pci_device_id)
    if dev:
        for g in _catalog().gpu.values():
            if dev in g.pci_device_ids:
                return g
    if not name:
        return None
    found = _held(_catalog().gpu, find_gpu, _exact_gpu_names).get(_norm(name))
    return found if found is not None else _by_name_and_memory(name)


def _exact_gpu_names(entries: dict) -> dict[str, GpuSpec]:
    """Every row's NVML names, key and product name, normalised: the first row in catalog order keeps a shared one."""
    index: dict[str, GpuSpec] = {}
    for g in entries.values():
        for n in (*g.nvml_names, g.key, g.name):
            index.setdefault(_norm(n), g)
    return index


def _by_name_and_memory(name: str) -> GpuSpec | None:
    """'NVIDIA TITAN RTX 24GB': a product name with its memory size, as reporters write it.

    Matches only when the name without the size is one row's NVML name and the size agrees
    with that row's memory, so 'NVIDIA A100 80GB' (SXM or PCIe?) stays unmapped.
    """
    m = re.fullmatch(r"\s*(.+?)\s*(\d+(?:\.\d+)?)\s*GB\s*", str(name), re.I)
    if not m:
        return None
    base, size = _norm(m.group(1)), float(m.group(2))
    hits = [
        g
        for g in _catalog().gpu.values()
        if base in {_norm(n) for n in g.nvml_names} and abs(g.memory_gb - size) <= 0.1 * size
    ]
    return hits[0] if len(hits) == 1 else None


# What follows a card's number in another card's name: "RTX 4060" is not the "RTX 4060 Ti 16GB", nor "L40" the "L40S",
# nor "4090" the "4090 D" (a size, "sxm" or "pcie" after it narrows the same card); nor a bare "RTX 4000" (Turing's
# Quadro RTX 4000, or people's "RTX 4000 series") the "RTX 4000 Ada" (a row's alias may still claim the bare name).
_OTHER_CARD = re.compile(r"^(?:ti|super|d(?!gx)|s(?!xm)|ada)")


def _key_stem(key: str) -> list[str]:
    """The key without its last part ("a100-80gb" -> "a100"), unless that part names another card ("rtx-4070-ti")."""
    head, _, tail = key.rpartition("-")
    return [head] if head and not _OTHER_CARD.match(tail) else []


def _cuts_a_form(key: str, head: str) -> bool:
    """Does `head` (normalised) end inside a form-factor part of the key ("a100s" inside the "sxm" of a100-sxm-64gb)?"""
    done = ""
    for part in key.split("-"):
        part = _norm(part)
        if len(done) < len(head) < len(done) + len(part):
            return bool(re.fullmatch(r"sxm\d?|pcie|nvl", part))
        done += part
    return False


_VENDOR_WORDS = re.compile(r"\b(?:nvidia|geforce|tesla|jetson|gpus?|cards?)\b", re.I)


def find_gpu_family(name: str | None, nvlink: bool | None = None) -> GpuSpec | None:
    """A GPU as people write it ("A100 80GB", "H100", "4090", "2x RTX A6000"), to a catalog row.

    The family decides the rows; a memory size or form factor in the name narrows them; what
    remains is split by context: NVLink/NVSwitch seen -> the SXM/NVLink board, NVLink known
    absent -> the PCIe card; otherwise the catalog's alias for the bare family name. Use it
    only after find_gpu, whose exact names win.
    """
    if not name:
        return None
    # (not "quadro": "Quadro RTX 6000" is a Turing card, not every "RTX 6000")
    text = _VENDOR_WORDS.sub(" ", str(name))
    size = re.search(r"(?<![a-z])(\d{2,3})\s*G(?:i)?B?\b", text, re.I)  # (not the "10G" of "A10G": a name)
    form = re.search(r"\b(sxm\d?|pcie|nvl)\b", text, re.I)
    # (the memory type nvidia-smi prints after the size, "H100 80GB HBM3", "B200 180GB HBM3e", names no other row)
    base = re.sub(r"(?<![a-z])(\d{2,3})\s*G(?:i)?B?\b|\b(?:sxm\d?|pcie|nvl|hbm\d?e?|gddr\d?x?|lpddr\d?x?)\b", " ", text,
                  flags=re.I)
    base = _norm(re.sub(r"\s+", " ", base).strip())
    if not base or base.isdigit() and len(base) < 4:
        return None
    # (GeForce numbers are RTX from the 20 series on and GTX before: no number is both, so "GTX 3090" is a slip
    # for the RTX 3090 and the prefix is compared off)
    bare = re.sub(r"^[rg]tx(?=\d{4})", "", base)
    entries = _catalog().gpu
    rows = [g for g in entries.values()
            if any(bare == re.sub(r"^[rg]tx(?=\d{4})", "", t)
                   for t in (_norm(n) for n in (g.key, *g.aliases, *g.key.split("-")[:1],
                                                *_key_stem(g.key))))]
    if not rows:  # a row whose key only begins with the name: its size or form follows, not another card's suffix,
        # and a form follows whole ("a100s" is the A100 plural, not the start of "a100-sxm-64gb"); or whose name
        # ends with it after the vendor's words only ("Tesla P100 ..."), not after a word that names another card
        # ("Quadro RTX 6000" is not every "RTX 6000")
        rows = [g for g in entries.values() if _norm(_VENDOR_WORDS.sub(" ", g.name)) == base
                or _norm(g.key).startswith(base) and not _OTHER_CARD.match(_norm(g.key)[len(base):])
                and not _cuts_a_form(g.key, base)]
    if size:
        rows = [g for g in rows if abs(g.memory_gb - float(size.group(1))) <= 0.1 * float(size.group(1))] or rows
    if form:
        want = form.group(1).lower()[:3]
        rows = [g for g in rows if want in g.key or want in _norm(g.name)] or rows
    if len(rows) > 1 and nvlink is not None:
        rows = [g for g in rows if (g.nvlink_gen > 0 and not g.nvlink_bridged) == nvlink
                and ("pcie" not in g.key) == nvlink] or rows
    if len(rows) > 1:
        alias = _lookup(entries, base)
        if alias in rows:
            return alias
    return rows[0] if rows else None


# A size stand-in's key (rules.subject: the dense row of a size, for a model the catalog lacks): its base row's key,
# then this ('deepseek-llm-67b (stand-in for a 65B model)'); base_key undoes it.
STAND_IN = " (stand-in for a "


def base_key(key: str) -> str:
    """The catalog key of the row a model key names: itself, or for a size stand-in the row it copies."""
    return key.split(STAND_IN, 1)[0]


def find_model(name: str) -> ModelSpec | None:
    """A catalog model by key, alias or name ('Llama 3.1 405B', 'meta-llama/...', Ollama's
    'llama3.1:8b-instruct-fp16'), or None."""
    if not name:
        return None
    entries = _catalog().model
    found = _lookup(entries, name)
    if found is None and "/" in str(name):
        found = _lookup(entries, str(name).rsplit("/", 1)[-1])
    if found is None and (tag := OLLAMA_TAG.match(str(name))):  # the size without the variant, or with the part
        words = tag.group(2).split("-")  # of it that names another base ('deepseek-r1:8b-llama-distill-q4_K_M')
        found = next((hit for n in range(len(words) - 1, 0, -1)
                      if (hit := _lookup(entries, f"{tag.group(1)}:{'-'.join(words[:n])}"))), None)
    if found is None and ":" in str(name) and (sized := ollama_sized_tag(name)):  # 'llama3.3:latest': its size
        found = find_model(sized)
    return found


# Ollama's library names a model 'family:tag' ('llama3.1:70b', 'qwen2.5:7b-instruct-q8_0'); the bare size tag and
# the variants that name no quantisation pull 4-bit GGUF weights (Q4_K_M, Q4_0 for older models):
# https://ollama.com/library/llama3.1/tags (the bare size tag is the -q4_K_M build). A tag that names a precision
# ('-fp16') or another quantisation ('-q8_0') pulls that.
OLLAMA_TAG = re.compile(r"^([a-z0-9][\w.-]*):(\d[\w.-]*)$", re.I)
OLLAMA_DEFAULT_WEIGHTS = "int4"
_PRECISIONS = (("bf16", re.compile(r"(?<![a-z0-9])bf16(?![a-z0-9])", re.I)),
               ("fp16", re.compile(r"(?<![a-z0-9])(?:fp16|f16|half)(?![a-z0-9])", re.I)),
               ("fp32", re.compile(r"(?<![a-z0-9])(?:fp32|f32)(?![a-z0-9])", re.I)))


def named_weights(name: str | None) -> str | None:
    """The weight dtype a model name states ('-AWQ', 'Q4_K_M', ':8b-instruct-fp16'), or None."""
    from diagnose.artifacts.text import quant_dtype

    return quant_dtype(name) or next((d for d, p in _PRECISIONS if name and p.search(name)), None)


def tag_weights(name: str | None) -> str | None:
    """The weights an Ollama library tag pulls: the one it names, else the library's 4-bit default; None for a
    name that is no Ollama tag."""
    if not name or not (OLLAMA_TAG.match(name) or ollama_sized_tag(name)):
        return None
    own = ollama_default_gguf(name)
    return named_weights(name) or (gguf_type(own).dtype if own else OLLAMA_DEFAULT_WEIGHTS)


_OLLAMA_SIZES: dict[str, str] = {}
_OLLAMA_GGUF: dict[str, str] = {}


def _ollama_tables() -> None:
    """rules/catalog/ollama_tags.toml's [default_size] and [default_gguf], read once."""
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "ollama_tags.toml"
    data = load_toml(path, "catalog")
    for section, table in (("default_size", _OLLAMA_SIZES), ("default_gguf", _OLLAMA_GGUF)):
        rows = data.get(section, {})
        if not isinstance(rows, dict) or not all(isinstance(v, str) for v in rows.values()):
            raise InputError(f"{path}: [{section}] maps a library name to a string ('\"llama3.3\" = \"70b\"')")
        table.update({k.lower(): v for k, v in rows.items()})


def ollama_default_gguf(name: str | None) -> str | None:
    """The GGUF type every tag of a library model ships where it is not the 4-bit default ('gpt-oss:20b' -> 'MXFP4',
    ollama_tags.toml [default_gguf]), for a model named by its Ollama tag or by its catalog name or Hugging Face id
    ('gpt-oss-20b', 'openai/gpt-oss-20b': the library whose size tag resolves to that model); None for the others."""
    if not _OLLAMA_SIZES:
        _ollama_tables()
    text = str(name or "").strip()
    own = _OLLAMA_GGUF.get(text.split(":")[0].lower())
    if own or ":" in text or not text:
        return own
    model = find_model(text)
    size = re.search(r"-(\d+(?:\.\d+)?b)$", model.key if model else "")
    return next((gguf for lib, gguf in _OLLAMA_GGUF.items()
                 if size and (tag := find_model(f"{lib}:{size.group(1)}")) and tag.key == model.key), None)


def ollama_sized_tag(name: str | None) -> str | None:
    """The size tag a sizeless Ollama tag pulls ('llama3.3' or 'llama3.3:latest' -> 'llama3.3:70b',
    rules/catalog/ollama_tags.toml), or None for a sized tag or a name the table lacks."""
    if not _OLLAMA_SIZES:
        _ollama_tables()
    bare = re.fullmatch(r"([a-z0-9][\w.-]*?)(?::latest)?", str(name or "").strip(), re.I)
    size = bare and _OLLAMA_SIZES.get(bare.group(1).lower())
    return f"{bare.group(1).lower()}:{size}" if size else None


# --------------------------------------------------------------------------- multi-node systems


@dataclass(frozen=True)
class SystemSpec:
    """A GPU system or cloud instance: its GPUs and compute NICs (rules/catalog/systems.toml)."""

    key: str
    name: str
    source: str
    nics: int  # 0 = the vendor gives only the total (or none)
    nic_gbit: float  # aggregate line rate per node and direction, Gb/s; 0 where none is documented
    aliases: tuple[str, ...]
    gpu: str | None = None  # a key of gpus.toml; None where the system comes with more than one board
    gpus: int | None = None  # GPUs per system (node, instance)
    gpu_link: str | None = None  # "nvswitch", "nvlink" or "pcie"; None for one GPU
    confirmed: bool = True  # False: no vendor text was read for the row; its evidence says so

    @property
    def cited(self) -> str:
        """The row's source as evidence cites it, flagged where the row is unconfirmed."""
        return self.source if self.confirmed else f"{self.source}; unconfirmed catalog row"


_SYSTEMS: list[tuple[re.Pattern, SystemSpec]] = []
_GPU_LINKS = ("nvswitch", "nvlink", "pcie")


def _systems() -> list[tuple[re.Pattern, SystemSpec]]:
    if not _SYSTEMS:
        from diagnose.inputs import finite_number, load_toml

        path = CATALOG_DIR / "systems.toml"
        for key, row in load_toml(path, "catalog").items():
            where = f"{path}: [{key}]"
            aliases = row.get("aliases") if isinstance(row, dict) else None
            if not aliases or not all(isinstance(a, str) and a.strip() for a in aliases) or not row.get("source"):
                raise InputError(f"{where}: needs name, source, aliases, and gpus or NICs")
            if not str(row["source"]).startswith("https://"):
                raise InputError(f"{where}: source must be the URL of the text the row was read from")
            nics = int(finite_number(row.get("nics", 0), f"{where} nics", low=0))
            total = (nics * finite_number(row.get("gbit_per_nic"), f"{where} gbit_per_nic", positive=True) if nics
                     else finite_number(row["total_gbit"], f"{where} total_gbit", positive=True)
                     if "total_gbit" in row else 0.0)
            gpu = row.get("gpu")
            if gpu is not None and gpu not in gpus():
                raise InputError(f"{where}: gpu '{gpu}' is not a key of gpus.toml")
            count = int(finite_number(row["gpus"], f"{where} gpus", positive=True)) if "gpus" in row else None
            link = row.get("gpu_link")
            if link is not None and link not in _GPU_LINKS:
                raise InputError(f"{where}: gpu_link must be one of {', '.join(_GPU_LINKS)}")
            if not total and not count:
                raise InputError(f"{where}: needs name, source, aliases, and gpus or NICs")
            confirmed = row.get("confirmed", True)
            if not isinstance(confirmed, bool):
                raise InputError(f"{where}: confirmed must be true or false")
            spec = SystemSpec(key, str(row.get("name", key)), str(row["source"]), nics, total, tuple(aliases),
                              gpu, count, link, confirmed)
            parts = "|".join(r"[\s_-]?".join(map(re.escape, re.split(r"[\s_-]+", a.strip())))
                             for a in sorted(aliases, key=len, reverse=True))
            # (Azure writes a VM size with its "Standard_" prefix: "Standard_ND96asr_v4", SageMaker an EC2 type with
            # "ml.": "ml.g5.12xlarge", https://aws.amazon.com/sagemaker/pricing/; a family alias followed
            # by a size it does not list, "p4d.xlarge", names no row)
            _SYSTEMS.append((re.compile(rf"(?<![\w.])(?:Standard_|ml\.)?(?:{parts})(?![\w-]|\.\w)", re.I), spec))
    return _SYSTEMS


def most_per_machine(gpu: GpuSpec) -> tuple[int, str] | None:
    """(GPUs, source) of the most GPUs of this board one machine, or one NVLink domain, holds: the board's
    gpus_per_machine (gpus.toml: fixed by an SXM baseboard or a superchip), or a larger systems.toml row of the board.
    None where the board does not fix it (a PCIe card: a server holds as many as its slots)."""
    if gpu.gpus_per_machine <= 0:
        return None
    rows = [s for _, s in _systems() if s.gpu == gpu.key and (s.gpus or 0) > gpu.gpus_per_machine]
    if rows:
        top = max(rows, key=lambda s: s.gpus or 0)
        return int(top.gpus or 0), f"{top.name} (rules/catalog/systems.toml: {top.cited})"
    return gpu.gpus_per_machine, f"rules/catalog/gpus.toml [gpu.{gpu.key}] gpus_per_machine"


def named_systems(text: str | None) -> list[tuple[SystemSpec, re.Match]]:
    """Every system of systems.toml that `text` names, each once, with its first mention (the caller weighs
    negations: "not on a p4d")."""
    found = []
    for pattern, spec in _systems():
        m = pattern.search(text or "")
        if m:
            found.append((spec, m))
    return found


# --------------------------------------------------------------------------- gap costs


GAP_COSTS = CATALOG_DIR / "gap_costs.toml"


@functools.lru_cache(maxsize=None)
def _gap_cost_rows() -> dict:
    """rules/catalog/gap_costs.toml, read once for gap_costs and gap_costs_between_gpus."""
    from diagnose.inputs import load_toml

    return load_toml(GAP_COSTS, "catalog")


@functools.lru_cache(maxsize=None)
def gap_costs() -> dict[str, float]:
    """The largest shortfall each mechanism accounts for, by finding category (rules/catalog/gap_costs.toml)."""
    from diagnose.inputs import finite_number

    return {category: finite_number(row.get("max_slowdown") if isinstance(row, dict) else None,
                                    f"{GAP_COSTS}: [{category}] max_slowdown", low=1.0)
            for category, row in _gap_cost_rows().items()}


@functools.lru_cache(maxsize=None)
def verdict_levels() -> tuple[float, dict[str, float]]:
    """The ticket verdict's confidence map (rules/catalog/verdict_confidence.toml): the line no fitted level passes,
    and per evidence class fitted on at least min_n development verdicts, its level min(share right, line)."""
    from diagnose.inputs import finite_number, load_toml

    path = CATALOG_DIR / "verdict_confidence.toml"
    data = load_toml(path, "catalog")
    line = finite_number(data.get("line"), f"{path}: line", low=0.0)
    min_n = finite_number(data.get("min_n"), f"{path}: min_n", low=1.0)
    return line, {cls: min(finite_number(row.get("right"), f"{path}: [{cls}] right", low=0.0), line)
                  for cls, row in data.items() if isinstance(row, dict) and row.get("n", 0) >= min_n}


@functools.lru_cache(maxsize=None)
def gap_costs_between_gpus() -> frozenset[str]:
    """The mechanisms whose cost is paid on traffic between GPUs (gap_costs.toml between_gpus = true): a run on one
    GPU cannot pay it."""
    return frozenset(category for category, row in _gap_cost_rows().items()
                     if isinstance(row, dict) and row.get("between_gpus") is True)


# --------------------------------------------------------------------------- GGUF weight types


@dataclass(frozen=True)
class GgufType:
    """A GGUF weight type (rules/catalog/gguf_types.toml): the bits one weight streams, its block's scales
    included, and the dtype the predictor times its kernels with."""

    name: str
    block: str
    bits: float
    dtype: str
    embd_bits: float = 0.0  # token_embd's type in this mix (llama.cpp keeps it in host memory)
    output_bits: float = 0.0  # output.weight's (the LM head, or a tied table), on the GPU
    dequant: str = ""  # its block family's unpacking work (calibration.toml [dequant] gguf_<family>); "" = by dtype


# Ollama's bare size tag ('llama3.1:8b') is the -q4_K_M build (https://ollama.com/library/llama3.1/tags).
OLLAMA_DEFAULT_GGUF = "Q4_K_M"
_GGUF_CACHE: dict[str, GgufType] = {}


def gguf_types() -> dict[str, GgufType]:
    """Every GGUF type by its upper-case name, read once from rules/catalog/gguf_types.toml."""
    if not _GGUF_CACHE:
        from diagnose.inputs import finite_number, load_toml

        path = CATALOG_DIR / "gguf_types.toml"
        rows = {str(name).upper(): row for name, row in load_toml(path, "catalog").items()}
        bits = {}
        for name, row in rows.items():
            where = f"{path}: [{name}]"
            if not isinstance(row, dict) or row.get("dtype") not in WEIGHT_DTYPES:
                raise InputError(f"{where}: needs block, bytes, weights and a dtype of {', '.join(WEIGHT_DTYPES)}")
            size = finite_number(row.get("bytes"), f"{where} bytes", positive=True)
            bits[name] = 8 * size / finite_number(row.get("weights"), f"{where} weights", positive=True)
        for name, row in rows.items():
            edges = [str(row.get(role, name)).upper() for role in ("token_embd", "output")]  # names of other rows
            if not set(edges) <= set(bits):
                raise InputError(f"{path}: [{name}] token_embd/output {edges} name no row of the file")
            _GGUF_CACHE[name] = GgufType(name, str(row.get("block", "")), bits[name], row["dtype"],
                                         bits[edges[0]], bits[edges[1]], str(row.get("dequant", "")))
    return _GGUF_CACHE


def gguf_type(name: str) -> GgufType:
    """The GGUF type `name` names ('Q5_K_M', 'q8_0'; a bare 'Q4_K' is its usual _M mix), or an InputError with
    the closest names."""
    types = gguf_types()
    key = str(name).strip().upper()
    found = types.get(key) or types.get(f"{key}_M")
    if found is None:
        hint = closest_names(key, list(types))
        raise InputError(f"unknown GGUF type '{name}'; {'closest' if hint else 'known'}: "
                         f"{', '.join(hint or sorted(types))}")
    return found


def gguf_weights(text: str | None) -> tuple[str, str] | None:
    """(dtype, GGUF type) where `text` is a GGUF type's name as a dtype field states it ('Q4_0', 'q4_k_m': a published
    table's dtype cell, a ticket's [workload] dtype), else None: the one reading of such a field every command uses."""
    if not text or str(text).strip().upper() not in gguf_types():
        return None
    found = gguf_type(str(text).strip())
    return found.dtype, found.name


@functools.lru_cache(maxsize=1)
def _gguf_pattern() -> re.Pattern:
    """Any GGUF type name (the longest first, so Q4_K_M wins over Q4_K), or a bare K-quant."""
    names = sorted(gguf_types(), key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(" + "|".join(map(re.escape, names)) + r"|Q[2-5]_K)(?![a-z0-9])", re.I)


def named_gguf(text: str | None) -> str | None:
    """The GGUF type a model name, file or Ollama tag names ('llama-2-7b.Q5_K_M.gguf', 'qwen2.5:7b-q8_0'), else
    Ollama's default for a bare library tag; None for a name that names none (or a 16-bit Ollama tag)."""
    if not text:
        return None
    m = _gguf_pattern().search(str(text))
    if m:
        return gguf_type(m.group(1)).name
    if re.search(r"\.gguf$", str(text), re.I):  # a float GGUF file named by its precision ('Phi-3-mini-fp16.gguf')
        precision = next((d for d, p in _PRECISIONS if p.search(str(text))), None)
        return next((t.name for t in (gguf_type(n) for n in ("F16", "BF16", "F32")) if t.dtype == precision), None)
    own = ollama_default_gguf(text)
    if own and tag_weights(text) == gguf_type(own).dtype:  # (a tag naming other weights, '-fp16', is not)
        return gguf_type(own).name
    return OLLAMA_DEFAULT_GGUF if tag_weights(text) == OLLAMA_DEFAULT_WEIGHTS else None


def model(name_or_path: str) -> ModelSpec:
    """A catalog model, or a Hugging Face config.json (file or directory holding one).
    Commands call it once at their boundary and pass the ModelSpec on."""
    if str(name_or_path).startswith("config:"):  # the key model_from_config gives: the same file again
        return model_from_config(str(name_or_path).removeprefix("config:"))
    path = Path(str(name_or_path))
    if path.is_dir() and (path / "config.json").is_file():
        path = path / "config.json"
    if path.is_file():
        return model_from_config(path)
    found = find_model(name_or_path)
    if found is None:
        if path.is_dir():
            raise InputError(f"{path}: a folder without config.json (give a catalog name or a Hugging Face "
                             "config.json)")
        if path.suffix == ".json":
            raise InputError(f"{path}: no such file (a Hugging Face config.json or a catalog model name)")
        raise _unknown("model", name_or_path, _catalog().model)
    weights = tag_weights(str(name_or_path))
    if weights and weights != found.checkpoint_dtype:  # an Ollama tag is that quantisation of the checkpoint
        found = dataclasses.replace(found, checkpoint_dtype=weights)
    return found


# --------------------------------------------------------------------------- config.json

# HF field names (first one present wins) for each ModelSpec field.
_HF_FIELDS = {
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "heads": ("num_attention_heads", "n_head"),
    "kv_heads": ("num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"),
    "head_dim": ("head_dim",),
    "ffn": ("intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim"),
    "vocab": ("vocab_size", "padded_vocab_size"),
    "experts": ("num_local_experts", "num_experts", "n_routed_experts"),
    "experts_active": ("num_experts_per_tok", "moe_topk", "top_k"),
    "expert_ffn": ("moe_intermediate_size",),
    "shared_experts": ("n_shared_experts", "num_shared_experts"),
    "shared_expert_ffn": ("shared_expert_intermediate_size",),
    "first_dense_layers": ("first_k_dense_replace",),
    "q_lora_rank": ("q_lora_rank",),
    "kv_lora_rank": ("kv_lora_rank",),
    "qk_nope_head_dim": ("qk_nope_head_dim",),
    "qk_rope_head_dim": ("qk_rope_head_dim",),
    "v_head_dim": ("v_head_dim",),
    "max_context": ("max_position_embeddings", "n_positions", "seq_length"),
    "full_attention_every": ("full_attention_interval",),
    "linear_key_heads": ("linear_num_key_heads",),
    "linear_value_heads": ("linear_num_value_heads",),
    "linear_key_head_dim": ("linear_key_head_dim",),
    "linear_value_head_dim": ("linear_value_head_dim",),
    "linear_conv_kernel": ("linear_conv_kernel_dim",),
}
_REQUIRED = ("layers", "hidden", "heads", "vocab")
_TIED_BY_DEFAULT = ("gemma", "gemma2", "gemma3_text", "falcon", "gpt2", "phi", "bloom", "opt")
_UNGATED = ("falcon", "gpt2", "gpt_neox", "phi", "bloom", "opt", "gpt_bigcode", "starcoder2")


def model_from_config(path) -> ModelSpec:
    """Describe any model from its Hugging Face config.json, without network access."""
    from diagnose.inputs import load_json

    path = Path(path)
    data = load_json(path, "config")
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object with fields like 'hidden_size'")
    cfg = data.get("text_config") if isinstance(data.get("text_config"), dict) else data
    mtype = str(cfg.get("model_type") or data.get("model_type") or "")
    values: dict = {}
    for field_name, hf_names in _HF_FIELDS.items():
        hit = next((n for n in hf_names if cfg.get(n) is not None), None)
        if hit is None:
            if field_name in _REQUIRED:
                raise InputError(f"{path}: field '{hf_names[0]}' is missing")
            continue
        value = cfg[hit]
        if (isinstance(value, bool) or not isinstance(value, int) or value < 0
                or (field_name in _REQUIRED and value == 0)):
            raise InputError(f"{path}: field '{hit}' must be a positive integer, got {value!r}")
        if value > MAX_DIMENSION:
            raise InputError(f"{path}: field '{hit}' = {value} is beyond any real model (at most {MAX_DIMENSION})")
        values[field_name] = value
    if values["hidden"] % values["heads"] and "head_dim" not in values:
        raise InputError(f"{path}: field 'head_dim' is missing and hidden_size is not a multiple of "
                         "num_attention_heads")
    for optional in ("kv_heads", "head_dim"):
        if values.get(optional) == 0:
            raise InputError(f"{path}: field '{_HF_FIELDS[optional][0]}' must be a positive integer, got 0")
    values.setdefault("kv_heads", 1 if cfg.get("multi_query") else values["heads"])
    values.setdefault("head_dim", values["hidden"] // values["heads"])
    values.setdefault("ffn", 4 * values["hidden"] if mtype in _UNGATED else 0)
    if values.get("experts"):
        values.setdefault("expert_ffn", values["ffn"])
        if not values.get("experts_active"):
            raise InputError(f"{path}: field 'num_experts_per_tok' is missing for a model with experts")
        if values["ffn"] == 0:
            values["ffn"] = values["expert_ffn"]
    if values["ffn"] == 0:
        raise InputError(f"{path}: field 'intermediate_size' is missing")
    if values.get("kv_lora_rank"):
        values["head_dim"] = values.get("qk_nope_head_dim", 0) + values.get("qk_rope_head_dim", 0) or values["head_dim"]
        values["kv_heads"] = values["heads"]
    if values.get("shared_expert_ffn") and not values.get("shared_experts"):  # Qwen MoE: one shared expert
        values["shared_experts"] = 1
    _hybrid_layers(cfg, values)
    _windowed_layers(cfg, mtype, values)
    name = str(data.get("_name_or_path") or path.parent.name or path.stem)
    spec = ModelSpec(
        key=f"config:{path}",
        name=name,
        tied_embeddings=bool(cfg.get("tie_word_embeddings",
                                     data.get("tie_word_embeddings", mtype in _TIED_BY_DEFAULT))),
        gated_mlp=mtype not in _UNGATED,
        qkv_bias=bool(cfg.get("attention_bias", mtype in ("qwen2", "qwen2_moe"))),
        attn_out_bias=bool(cfg.get("attention_bias", False)) and mtype == "gpt_oss",
        mlp_bias=bool(cfg.get("mlp_bias", mtype == "gpt_oss")),
        norms_per_layer=4 if mtype.startswith("gemma") else 2,
        parallel_attn=bool(cfg.get("parallel_attn", False)),
        attn_output_gate=bool(cfg.get("attn_output_gate", mtype.startswith(("qwen3_next", "qwen3_5")))),
        checkpoint_dtype=_checkpoint_dtype(cfg, data),
        sources=(str(path),),
        **values,
    )
    if spec.params() > MAX_PARAMS:
        raise InputError(f"{path}: its sizes make {spec.params():.3g} parameters, beyond any real model "
                         f"(at most {MAX_PARAMS:.0e})")
    return spec


def _windowed_layers(cfg: dict, mtype: str, values: dict) -> None:
    """Sliding-window layers: `layer_types` names each ("sliding_attention" / "full_attention"), and its count is
    kept as listed (a period rounded from it miscounts: Gemma 3 4B has 34 layers, 29 local); older configs
    leave it to the model type: Gemma 2 and GPT-OSS alternate, Gemma 3 has one global layer in every
    sliding_window_pattern (6: five local to one global, https://arxiv.org/abs/2503.19786 section 2)."""
    window = cfg.get("sliding_window")
    if not (isinstance(window, int) and window > 0):
        return
    types = cfg.get("layer_types")
    pattern = cfg.get("sliding_window_pattern", cfg.get("_sliding_window_pattern"))
    if isinstance(types, list) and types.count("sliding_attention") and types.count("full_attention"):
        values.update(sliding_window=window, local_layer_count=types.count("sliding_attention"))
    elif mtype in ("gemma2", "gpt_oss"):
        values.update(sliding_window=window, sliding_window_every=2)
    elif mtype.startswith("gemma3"):
        values.update(sliding_window=window, global_every=pattern if isinstance(pattern, int) and pattern > 1 else 6)


def _hybrid_layers(cfg: dict, values: dict) -> None:
    """Linear-attention hybrids name their layers in `layer_types`; a config without the list (Qwen3-Next's
    first release) gives the period as full_attention_interval. Without linear heads a model is not hybrid."""
    types = cfg.get("layer_types")
    if isinstance(types, list) and "linear_attention" in types and types.count("full_attention"):
        values["linear_layer_count"] = types.count("linear_attention")  # as listed, not rounded to a period
        values["full_attention_every"] = max(1, round(len(types) / types.count("full_attention")))
    if not (values.get("linear_key_heads") and values.get("linear_value_heads")):
        values.pop("full_attention_every", None)
        values.pop("linear_layer_count", None)
        return
    values.setdefault("full_attention_every", 4)  # transformers' Qwen3NextConfig default
    values.setdefault("linear_key_head_dim", values["head_dim"])
    values.setdefault("linear_value_head_dim", values["linear_key_head_dim"])


def _checkpoint_dtype(cfg: dict, data: dict) -> str:
    quant = data.get("quantization_config") or cfg.get("quantization_config") or {}
    method = str(quant.get("quant_method", "")).lower() if isinstance(quant, dict) else ""
    if method == "fp8":
        return "fp8"
    if method == "mxfp4":
        return "mxfp4"
    if method in ("awq", "gptq", "marlin"):
        return "int4" if quant.get("bits", 4) == 4 else "int8"
    return "fp16" if str(cfg.get("torch_dtype", "")) == "float16" else "bf16"


@dataclass(frozen=True)
class EngineError:
    """One error message of the CUDA stack or an engine (rules/catalog/engine_errors.toml): what it says failed."""

    id: str
    pattern: re.Pattern
    category: str
    meaning: str
    fix: str
    sources: tuple[str, ...]
    before_traffic: bool = False  # a refusal before any GPU talks to another: the links cannot change it
    # a message several stacks print with different causes is the row's only where the ticket also names the stack
    # the row is about (an EFA word for an EFA cause): a pattern over the ticket's whole text, or None
    context: re.Pattern | None = None
    # (review34b) what the ticket says that makes the message not the row's ("the build finished" beside a lock that
    # only waits on a stopped start): a pattern over the ticket's whole text, or None
    unless: re.Pattern | None = None


# The categories an error row may name: those rules.ticket_rules.known_error declares.
ERROR_CATEGORIES = ("other", "hardware_fault", "p2p_disabled", "shm_too_small", "nccl_regression",
                    "tp_not_dividing_heads", "expected_physics")
# (errors31) A row of a message whose documented causes lie in several categories decides none: its category is
# insufficient_data and its fix asks for what tells the causes apart (rules.ticket_rules.ambiguous_error).
ASKED = "insufficient_data"


# (review34b) Named regex fragments the catalog rows' patterns share, written `{name}` in a row (a letter in braces is
# no regex quantifier); a name not listed here is a bad catalog file. One wording each, so that the rows that ask
# whether a start stopped (engine_errors.toml's JIT lock and JIT wait rows, by_design.toml's lock notice) read it alike.
FRAGMENTS = {
    # The reporter says the job stopped and stays stopped, not ruled out ("no hang", "not stuck", "doesn't freeze").
    "stopped": r"(?<!\bno\s)(?<!\bnot\s)(?<!n't\s)(?<!never\s)(?:\bstuck\w*|\bstruck\b|\bhangs?\b|\bhung\b|\bhanging\b|"
               r"\bfreez\w*|\bfroze\b|\bblock(?:s|ed|ing)\b|\bstall\w*|\bstop(?:s|ped)?\s+at\b|"
               r"\bnever\s+(?:finish|return|complet|continu|end)\w*|\b(?:forever|indefinitely)\b|\bno longer run)",
    # The start went past the build: the build said finished, or steps counted after it ("built fine, then after 5000
    # steps the all-reduce hangs"): a later stop is not one at the build's lock.
    "went_on": r"\b(?:built|compiled)\s+(?:fine|ok(?:ay)?|successfully)\b|\b(?:build|compil(?:e|ation))\s+"
               r"(?:(?:has|had|is|was)\s+)?(?:finished|succeeded|completed|done)\b|\b(?:after|at)\s+(?:step|iteration|epoch)\s*\d+|"
               r"\bafter\s+\d+\s*k?\s+(?:steps|iterations|epochs|requests)\b",
    # (frag34) A phase that took a time, as by_design.toml's start-up rows read it ("took 10 minutes", "takes ~8 min",
    # "needs 2-3 hours", "took a bit too long", "takes forever", "a while"): one wording for the four rows (weights,
    # engine build, compile, start-up), which had drifted apart copy by copy. A vague "few hours" is left out: it is
    # past every row's longest_minutes, which documented_behaviour._minutes reads only from a number or "an hour".
    "took_how_long": r"\b(?:takes?|took|taking|needs?|needed|lasts?|lasted)\s+(?:me\s+|us\s+)?"
                     r"(?:about\s+|around\s+|roughly\s+|approximately\s+|over\s+|more\s+than\s+|up\s+to\s+|nearly\s+|"
                     r"almost\s+|~\s?)?(?:\d+(?:\.\d+)?(?:\s*(?:-|to|and|or)\s*\d+(?:\.\d+)?)?\s*"
                     r"(?:s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?)\b|(?:a\s+)?(?:few|several|many|couple\s+of)\s+"
                     r"(?:minutes|mins)\b|(?:half\s+)?an\s+hour\b|(?:a\s+bit\s+|a\s+little\s+)?(?:a\s+|very\s+|too\s+|"
                     r"so\s+|really\s+|extremely\s+|incredibly\s+|quite\s+a\s+)?long(?:\s+time)?\b|forever\b|ages\b|"
                     r"(?:a\s+bit\s+of|a\s+lot\s+of|too\s+much|so\s+much|much)\s+time\b|a\s+while\b)",
    # (frag34) A start that did not just take long but never ended or went wrong, in a start-up row's `unless`: never
    # finished, stuck, hung, frozen, a deadlock or timeout, a Traceback, an error (not "no errors"), a failure, crash,
    # kill, out-of-memory or segfault. Not {stopped}: that one reads "forever", a slow start's word ("takes forever").
    "went_wrong": r"\bnever\s+(?:finish|complet|start|load|end|return|respond|come|get|become)\w*|\bstuck\b|"
                  r"\bhang(?:s|ing)?\b|\bhung\b|\bfreez\w*|\bfroze\b|\bindefinitely\b|\bdeadlock\w*|Traceback|"
                  r"(?<!\bno\s)(?<!\bwithout\s)\b(?:errors?|exceptions?)\b|\bfail(?:s|ed|ing|ure)?\b|\bcrash\w*|"
                  r"\bkill(?:s|ed|ing)?\b|\bOOM\b|out\s+of\s+memory|\btimed?\s?out\b|\btimeouts?\b|segfault|\bsegmentation\b",
    # (review35) A complaint about speed beside an observation a row explains ("the numbers differ from nvidia-smi
    # ... and both jobs are now much slower", "utilisation is 100 % ... only 40 % MFU"): the row answers the
    # observation, not the slowdown, so it stays silent and the figure checks or the asks answer. Rows of a behaviour
    # that is itself a wait (the start-up rows) do not use it.
    "slower": r"\bslow\w*|\bfaster\b|\bquicker\b|\bspeed\w*|\bthroughput\b|\blatency\b|\bMFU\b|\bTFLOPS\b|"
              r"\btok(?:en)?s?/s\b|\btokens?\s+(?:per|a)\s+second\b|\bit/s\b|\bsamples?/s\b",
}
_FRAGMENT = re.compile(r"\{([a-z][a-z_]*)\}")


def expand(regex: str, where: str) -> str:
    """A catalog regex with its `{name}` fragments (FRAGMENTS) written out; an unknown name is an InputError."""
    def one(m: re.Match) -> str:
        if m.group(1) not in FRAGMENTS:
            raise InputError(f"{where}: no regex fragment {{{m.group(1)}}} (known: {', '.join(FRAGMENTS)})")
        return "(?:" + FRAGMENTS[m.group(1)] + ")"
    return _FRAGMENT.sub(one, regex)


@functools.lru_cache(maxsize=1)
def engine_errors() -> tuple[EngineError, ...]:
    """Every row of rules/catalog/engine_errors.toml, its pattern compiled (case-insensitive); a row without a
    pattern, a known category, a meaning, a fix or a source is a bad catalog file (InputError naming it)."""
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "engine_errors.toml"
    rows = []
    for i, row in enumerate(load_toml(path, "catalog").get("error", [])):
        where = f"{path}: error #{i + 1}"
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) and row[k] for k in
                                                ("id", "pattern", "category", "meaning", "fix")):
            raise InputError(f"{where}: needs id, pattern, category, meaning and fix")
        if row["category"] not in ERROR_CATEGORIES + (ASKED,) or not row.get("sources"):
            raise InputError(f"{where}: category one of {', '.join(ERROR_CATEGORIES + (ASKED,))}, and its sources")
        try:
            pattern = re.compile(expand(row["pattern"], where), re.I)
        except re.error as e:
            raise InputError(f"{where}: pattern: {e}") from None
        if not isinstance(row.get("before_traffic", False), bool):
            raise InputError(f"{where}: before_traffic is true or false")
        try:
            context, unless = (re.compile(expand(row[k], where), re.I) if row.get(k) else None
                               for k in ("context", "unless"))
        except (re.error, TypeError) as e:
            raise InputError(f"{where}: context or unless: {e}") from None
        rows.append(EngineError(row["id"], pattern, row["category"], row["meaning"], row["fix"],
                                tuple(row["sources"]), row.get("before_traffic", False), context, unless))
    return tuple(rows)


# --------------------------------------------------------------------------- NCCL's own tables

# The categories a [[setting]] row of nccl_settings.toml may name: those rules.nccl.slow_settings_rule declares.
SETTING_CATEGORIES = ("comm_bound", "gdr_disabled", "other")
# Each NCCL row table: its file under rules/catalog/ and the fields every row needs (the file's header documents them,
# and says a user may add rows), so a row added without one is an InputError naming the file, the row and the field
# rather than a KeyError inside a rule.
_NCCL_TABLES = {
    "regression": ("nccl_regressions.toml", ("id", "bad", "good", "scope", "symptom", "fix", "url")),
    "setting": ("nccl_settings.toml", ("name", "category", "severity", "why", "fix")),
    "arch": ("nccl_support.toml", ("compute_capability", "min_nccl", "gpus", "source")),
}
_VERSION_BOUND = re.compile(r"(?:>=|<=|<|>|==)\s*\d+(?:\.\d+)*")


@functools.lru_cache(maxsize=None)
def nccl_rows(table: str) -> tuple[dict, ...]:
    """The [[regression]], [[setting]] or [[arch]] rows of NCCL's catalog files, read once and checked: every needed
    field there, a regression's `bad` a list of version bounds (">=2.19,<2.20"), a setting's trigger (`values` or
    `below`), category and severity known (a bad row is an InputError naming the file and the row)."""
    from diagnose.inputs import load_toml

    name, needed = _NCCL_TABLES[table]
    path = CATALOG_DIR / name
    rows = load_toml(path, "catalog").get(table, [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise InputError(f"{path}: [[{table}]] must be an array of tables")
    for i, row in enumerate(rows):
        where = f"{path}: [[{table}]] #{i + 1} ({row.get(needed[0], '?')!r})"
        missing = [f for f in needed if f not in row]
        if missing:
            raise InputError(f"{where}: missing field '{missing[0]}'")
        if table == "regression" and not all(_VERSION_BOUND.fullmatch(b.strip()) for b in str(row["bad"]).split(",")):
            raise InputError(f"{where}: bad is version bounds like \">=2.19,<2.20\"")
        if table == "setting":
            if not (isinstance(row.get("values"), list) or isinstance(row.get("below"), (int, float))):
                raise InputError(f"{where}: needs values (a list) or below (a number)")
            if row["category"] not in SETTING_CATEGORIES or row["severity"] not in ("warning", "info"):
                raise InputError(f"{where}: category one of {', '.join(SETTING_CATEGORIES)}, severity warning or info")
        if table == "arch" and not isinstance(row["compute_capability"], (int, float)):
            raise InputError(f"{where}: compute_capability is a number (8.0)")
    return tuple(rows)


@functools.lru_cache(maxsize=1)
def nccl_line() -> dict:
    """nccl_support.toml's [line] table: the oldest NCCL major still released, and its source."""
    from diagnose.inputs import load_toml

    return load_toml(CATALOG_DIR / "nccl_support.toml", "catalog").get("line", {})


# --------------------------------------------------------------------------- engines' notices about their speed

@dataclass(frozen=True)
class EngineNotice:
    """One WARNING/INFO line an engine prints about its own speed (rules/catalog/engine_notices.toml): a slower path it
    took (strength "cause"), what the box is ("context"), or nothing that costs speed ("harmless")."""

    id: str
    engine: str
    versions: str
    pattern: re.Pattern
    meaning: str
    category: str
    strength: str
    fix: str
    sources: tuple[str, ...]


NOTICE_STRENGTHS = ("cause", "context", "harmless")
# The categories a row may name, by its strength: those rules.engine_notices' rules declare (a cause row's
# engine_notice; a context row's engine_notice_context; a harmless one is answered healthy, or pasted, context).
NOTICE_CATEGORIES = ("eager_mode", "expected_physics", "host_bound", "p2p_disabled", "other")
NOTICE_CONTEXT_CATEGORIES = ("expected_physics", "p2p_disabled", "other", "healthy")
_NOTICE_CATEGORIES_BY_STRENGTH = {"cause": NOTICE_CATEGORIES, "context": NOTICE_CONTEXT_CATEGORIES,
                                  "harmless": ("healthy",)}


@functools.lru_cache(maxsize=1)
def engine_notices() -> tuple[EngineNotice, ...]:
    """Every row of rules/catalog/engine_notices.toml, its pattern compiled (case-insensitive); a row without an id,
    engine, versions, pattern, meaning, a strength, a category its strength allows, a fix (cause rows) or a source is a
    bad catalog file (InputError naming it)."""
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "engine_notices.toml"
    rows = []
    for i, row in enumerate(load_toml(path, "catalog").get("notice", [])):
        where = f"{path}: notice #{i + 1}"
        needed = ("id", "engine", "versions", "pattern", "meaning", "category", "strength")
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) and row[k] for k in needed):
            raise InputError(f"{where}: needs {', '.join(needed)}")
        cause = row["strength"] == "cause"
        if row["strength"] not in NOTICE_STRENGTHS or not row.get("sources") or (cause and not row.get("fix")):
            raise InputError(f"{where}: strength one of {', '.join(NOTICE_STRENGTHS)}, its sources, and a fix when "
                             "it is a cause")
        allowed = _NOTICE_CATEGORIES_BY_STRENGTH[row["strength"]]
        if row["category"] not in allowed:
            raise InputError(f"{where}: a {row['strength']} row's category is one of {', '.join(allowed)}")
        if not isinstance(row["sources"], list) or not all(isinstance(x, str) and x for x in row["sources"]):
            raise InputError(f"{where}: sources is a list of URLs")
        try:
            pattern = re.compile(row["pattern"], re.I)
        except re.error as e:
            raise InputError(f"{where}: pattern: {e}") from None
        rows.append(EngineNotice(row["id"], row["engine"], row["versions"], pattern, row["meaning"], row["category"],
                                 row["strength"], row.get("fix", ""), tuple(row["sources"])))
    return tuple(rows)


# --------------------------------------------------------------------------- documented serving trade-offs

@dataclass(frozen=True)
class ServingTradeoff:
    """One performance trade-off an engine documents (rules/catalog/serving_tradeoffs.toml): the feature, the cost it
    is known to bring, why, and the knob that trades it back."""

    id: str
    feature: re.Pattern
    cost: re.Pattern | None  # None: the generic words of a slowdown (rules.claims reads them)
    title: str
    meaning: str
    fix: str
    sources: tuple[str, ...]
    unless: re.Pattern | None = None  # what in the ticket shows the cost is not the trade's (optional)


@functools.lru_cache(maxsize=1)
def serving_tradeoffs() -> tuple[ServingTradeoff, ...]:
    """Every row of rules/catalog/serving_tradeoffs.toml, its patterns compiled (case-insensitive); a row without an
    id, a feature, a title, a meaning, a fix or a source is a bad catalog file (InputError naming it)."""
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "serving_tradeoffs.toml"
    rows = []
    for i, row in enumerate(load_toml(path, "catalog").get("tradeoff", [])):
        where = f"{path}: tradeoff #{i + 1}"
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) and row[k] for k in
                                                ("id", "feature", "title", "meaning", "fix")) or not row.get("sources"):
            raise InputError(f"{where}: needs id, feature, title, meaning, fix and sources")
        try:
            feature = re.compile(row["feature"], re.I)
            cost = re.compile(row["cost"], re.I) if row.get("cost") else None
            unless = re.compile(row["unless"], re.I) if row.get("unless") else None
        except (re.error, TypeError) as e:
            raise InputError(f"{where}: pattern: {e}") from None
        rows.append(ServingTradeoff(row["id"], feature, cost, row["title"], row["meaning"], row["fix"],
                                    tuple(row["sources"]), unless))
    return tuple(rows)


# --------------------------------------------------------------------------- Xid codes


@functools.lru_cache(maxsize=1)
def xid_rows() -> dict[int, tuple[str, bool]]:
    """rules/catalog/xids.toml by Xid code: (NVIDIA's title, whether the Xid alone proves a GPU fault). A row
    without a title, a boolean fault or its why is a bad catalog file (InputError naming it)."""
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "xids.toml"
    out = {}
    for code, row in load_toml(path, "catalog").items():
        if not (str(code).isdigit() and isinstance(row, dict) and isinstance(row.get("title"), str)
                and isinstance(row.get("fault"), bool) and row.get("why")):
            raise InputError(f"{path}: [{code}]: needs a numeric code, title, fault (true/false) and why")
        out[int(code)] = (row["title"], row["fault"])
    return out


def fatal_xids() -> dict[int, str]:
    """The Xid codes that alone prove a GPU fault (reset or reboot needed, hardware among the causes), by title."""
    return {code: title for code, (title, fault) in xid_rows().items() if fault}


# --------------------------------------------------------------------------- speculative decoding


@dataclass(frozen=True)
class Acceptance:
    """Tokens one verify step yields under a speculative-decoding method, as published
    (rules/catalog/speculative.toml)."""

    method: str
    low: float
    high: float
    why: str
    source: str


@functools.lru_cache(maxsize=None)
def acceptance() -> dict[str, Acceptance]:
    """Published acceptance lengths by method (rules/catalog/speculative.toml)."""
    from diagnose.inputs import finite_number, load_toml

    path = CATALOG_DIR / "speculative.toml"
    out = {}
    for method, row in load_toml(path, "catalog").items():
        row = row if isinstance(row, dict) else {}
        low = finite_number(row.get("low"), f"{path}: [{method}] low", low=1.0)
        out[method] = Acceptance(method, low, finite_number(row.get("high"), f"{path}: [{method}] high", low=low),
                                 str(row.get("why", "")), str(row.get("source", "")))
    return out


@functools.lru_cache(maxsize=1)
def _ngc_rows() -> dict[tuple[str, str], dict]:
    """rules/catalog/ngc_containers.toml by (image, release), read once."""
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "ngc_containers.toml"
    rows = load_toml(path, "catalog").get("container", [])
    for row in rows:
        if not all(isinstance(row.get(k), str) for k in ("image", "release", "url")):
            raise InputError(f"{path}: every [[container]] row needs image, release and url strings")
    return {(r["image"].lower(), r["release"]): r for r in rows}


def ngc_container(image: str, release: str, variant: str = "") -> dict | None:
    """What NVIDIA's release notes say an NGC image's YY.MM release ships (nccl, cuda, driver, url), or None for a
    release or variant the table lacks (Triton's -trtllm-/-vllm- images are built apart from the image the notes
    list, on other CUDA releases)."""
    row = _ngc_rows().get((image.lower(), release))
    if row is None or not (_OWN_IMAGE.match(variant) or variant in row.get("variants", ())):
        return None
    return row


def ngc_release_nccl(release: str) -> dict | None:
    """The NCCL of an NGC YY.MM release said without its image ("NGC 24.05", "the 24.01 container"): only where two
    or more images' rows of that release state an NCCL and all state the same one (a monthly release's images share
    its NCCL in every release the table holds twice: 19.05, 20.10, 21.04, 21.10, 23.08, 24.05), else None.
    Returns nccl, the images and the url of the first row."""
    rows = sorted((r for (_, rel), r in _ngc_rows().items() if rel == release and "nccl" in r),
                  key=lambda r: r["image"])
    if len({r["image"] for r in rows}) < 2 or len({r["nccl"] for r in rows}) != 1:
        return None
    return {"nccl": rows[0]["nccl"], "images": [r["image"] for r in rows], "url": rows[0]["url"]}


# The release's own image: what its release notes list ("23.11-py3", "24.12-py3-sdk", "24.05-py3-igpu", "23.11")
_OWN_IMAGE = re.compile(r"^(?:py3)?(?:-(?:sdk|min|igpu))?$")


@functools.lru_cache(maxsize=1)
def _wheel_rows() -> dict[str, list[dict]]:
    """rules/catalog/torch_nccl.toml ([[torch]] and [[engine]] rows) and rules/catalog/engine_nccl_settings.toml
    ([[setting]] rows), read and checked once."""
    from diagnose.inputs import load_toml

    out = {}
    for name, table, keys in (("torch_nccl", "torch", ("release", "variant", "nccl", "url")),
                              ("torch_nccl", "engine", ("engine", "torch", "url")),
                              ("engine_nccl_settings", "setting", ("engine", "setting", "first"))):
        path = CATALOG_DIR / f"{name}.toml"
        rows = load_toml(path, "catalog").get(table, [])
        for row in rows:
            if not all(isinstance(row.get(k), str) for k in keys):
                raise InputError(f"{path}: every [[{table}]] row needs " + ", ".join(keys) + " strings")
        out[table] = rows
    return out


def torch_nccl(release: str, variant: str = "") -> dict | None:
    """The [[torch]] row of a PyTorch release and CUDA variant ("cu121"; "" for the wheel PyPI serves); a two-part
    release ("2.2") where every listed patch of it brings the same NCCL; None where the table cannot say."""
    rows = [r for r in _wheel_rows()["torch"] if (r["variant"] == variant if variant else r.get("pypi"))]
    exact = [r for r in rows if r["release"] == release]
    if exact or release.count(".") != 1:
        return exact[0] if exact else None
    minor = [r for r in rows if r["release"].startswith(release + ".")]
    return minor[0] if minor and len({r["nccl"] for r in minor}) == 1 else None


# A framework as the parsers write it: "vLLM 0.6.3", "vllm 0.5.3.post1" (engine name, full release)
_FRAMEWORK_RELEASE = re.compile(r"^\s*([A-Za-z][\w.-]*?)\s+v?(\d+\.\d+\.\d+(?:\.\d+|\.?post\d+)?)\b")


def framework_release(framework: str | None) -> tuple[str, str] | None:
    """(engine name, release) of a framework string that writes a full release after the name; None otherwise."""
    m = _FRAMEWORK_RELEASE.match(framework or "")
    return (m.group(1), m.group(2)) if m else None


def engine_torch(engine: str, release: str) -> dict | None:
    """The [[engine]] row whose engine release pins one torch release, or None."""
    return next((r for r in _wheel_rows()["engine"]
                 if r["engine"].lower() == engine.lower() and release in r.get("releases", ())), None)


def engine_nccl_settings(engine: str, release: str) -> list[dict]:
    """The NCCL settings an engine release ("0.5.3", "0.6.3.post1") sets itself
    (rules/catalog/engine_nccl_settings.toml); none for a release not written in three parts."""
    key = nccl_release  # (major, minor, patch) of any X.Y.Z release
    said = key(release)
    return [r for r in _wheel_rows()["setting"] if said and r["engine"].lower() == engine.lower()
            and key(r["first"]) <= said
            and ("until" not in r or said < key(r["until"]))
            and ("checked_through" not in r or said <= key(r["checked_through"]))]


NCCL_TUNING_KEYS = ("base_us", "hw_nvlink_us", "hw_pci_us", "hw_net_us", "net_overhead_us", "nvls", "nvls_chunks",
                    "nvlstree", "nvlstree_chunks", "tree_ch_gbs", "ll128", "pat", "ll_share", "ring_plateau",
                    "net_rules", "ll_max_one_node")
_RELEASE = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def nccl_release(text: str) -> tuple[int, int, int] | None:
    """(major, minor, patch) of an NCCL version as printed ('2.21.5', '2.26.2+cuda12.8', 'v2.18.3-1'), None if none."""
    m = _RELEASE.match(str(text).strip().lstrip("v"))
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


@functools.lru_cache(maxsize=1)
def _nccl_tuning_rows() -> tuple[str, list[dict]]:
    """rules/catalog/nccl_tuning.toml: (pinned release, rows sorted by release), checked once."""
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "nccl_tuning.toml"
    data = load_toml(path, "catalog")
    rows = data.get("row", [])
    for row in rows:
        if row.get("key") not in NCCL_TUNING_KEYS or nccl_release(row.get("since", "")) is None \
                or not str(row.get("source", "")).startswith("https://"):
            raise InputError(f"{path}: every [[row]] needs key (one of {', '.join(NCCL_TUNING_KEYS)}), since "
                             f"(an NCCL release, e.g. 2.18.3) and a source URL; got {row.get('key')!r} "
                             f"{row.get('since')!r}")
    if nccl_release(data.get("pinned", "")) is None:
        raise InputError(f"{path}: pinned must be an NCCL release (e.g. 2.30.7)")
    missing = set(NCCL_TUNING_KEYS) - {r["key"] for r in rows}
    if missing:
        raise InputError(f"{path}: no row for {', '.join(sorted(missing))}")
    return data["pinned"], sorted(rows, key=lambda r: nccl_release(r["since"]))


@functools.lru_cache(maxsize=64)
def nccl_tuning(release: str | None = None) -> dict[str, dict]:
    """NCCL's tuner constants as of `release` (rules/catalog/nccl_tuning.toml: per key, the last row whose `since` is
    at or before it), the pinned release's where `release` is None or not a version. Each value carries its `since`
    and `source`; the result also names the release it stands for ('release') and whether that was stated. A release
    older than the earliest row (2.7.3) is priced with that row and flagged ('clamped_from': the release stated): the
    oldest constants the file knows are nearer to it than the pinned release's."""
    pinned, rows = _nccl_tuning_rows()
    stated = nccl_release(release or "")
    at = stated or nccl_release(pinned)
    earliest = nccl_release(rows[0]["since"])
    clamped = stated is not None and stated < earliest
    at = earliest if clamped else at
    out: dict = {}
    for row in rows:
        if nccl_release(row["since"]) <= at:
            out[row["key"]] = row
    missing = set(NCCL_TUNING_KEYS) - set(out)
    if missing:  # the file's earliest release lacks a key: the file itself is incomplete
        raise InputError(f"rules/catalog/nccl_tuning.toml: no row at {rows[0]['since']} for "
                         f"{', '.join(sorted(missing))}")
    out["release"] = {"version": ".".join(map(str, at)), "stated": stated is not None}
    if clamped:
        out["release"]["clamped_from"] = ".".join(map(str, stated))
    return out


def by_compute_capability(table: dict, cc: float, exact: bool = False):
    """The value of a table keyed by compute capability ('9.0' = [...]) for a GPU of `cc`: the highest key at or below
    it (NCCL's compCapIndex from 2.17.1), None where the table has none that low. `exact` (NCCL before 2.17.1:
    compCap80, compCapIndex by equality): the key equal to `cc`, else the lowest key at or below it (Volta's row)."""
    keys = [float(k) for k in table if float(k) <= cc]
    if exact and keys:
        keys = [cc] if cc in keys else [min(keys)]
    return table[next(k for k in table if float(k) == max(keys))] if keys else None


def by_design_unless(row: dict, words: str, gpus) -> bool:
    """Does a by_design.toml row's `unless` or `fault_in` match the reporter's words, or its `unless_gpu` field hold on
    one of the GPUs the ticket shows? Any of them rules the row out for this ticket."""
    return any(row.get(k) and re.search(row[k], words, re.I) for k in ("unless", "fault_in")) \
        or bool(row.get("unless_gpu") and any(getattr(g, row["unless_gpu"], None) for g in gpus))


@functools.lru_cache(maxsize=None)
def documented_behaviours() -> tuple[dict, ...]:
    """rules/catalog/by_design.toml's [[behaviour]] rows: what the tools and engines document as how they work, which
    reporters take for faults, each with the words that describe it and its documentation, read once."""
    from diagnose.evidence import GpuFact
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "by_design.toml"
    rows = load_toml(str(path), "catalog").get("behaviour", [])
    gpu_fields = {f.name for f in dataclasses.fields(GpuFact)}
    for i, row in enumerate(rows):
        where = f"{path}: behaviour #{i + 1} ({row.get('key', 'no key')})"
        for k in ("sees", "unless", "explains_failure", "fault_in"):
            if isinstance(row.get(k), str):
                row[k] = expand(row[k], where)
        if isinstance(row.get("context"), list):
            row["context"] = [expand(p, where) if isinstance(p, str) else p for p in row["context"]]
        within = row.get("amounts_within", 0.5)
        if isinstance(within, bool) or not isinstance(within, (int, float)) or not 0 < within <= 1:
            raise InputError(f"{where}: amounts_within is a share above 0 and at most 1")
        if row.get("unless_gpu") is not None and row["unless_gpu"] not in gpu_fields:
            raise InputError(f"{where}: unless_gpu names no GpuFact field: {row['unless_gpu']!r}")
        longest = row.get("longest_minutes", 1)
        if isinstance(longest, bool) or not isinstance(longest, (int, float)) or longest <= 0:
            raise InputError(f"{where}: longest_minutes is a positive number of minutes")
        explains = row.get("explains", [])
        if not isinstance(explains, list) or not all(isinstance(e, str) and e for e in explains):
            raise InputError(f"{where}: explains is a list of claim family names")
    return tuple(rows)


# --------------------------------------------------------------------------- the CUDA releases that build for each GPU

@functools.lru_cache(maxsize=1)
def gpu_archs() -> dict[float, dict]:
    """rules/catalog/gpu_archs.toml's [[arch]] rows by compute capability: the first (and last) CUDA toolkit that
    builds native code for each GPU architecture, read once and checked (a bad row is an InputError naming it)."""
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "gpu_archs.toml"
    out = {}
    for i, row in enumerate(load_toml(path, "catalog").get("arch", [])):
        missing = [f for f in ("compute_capability", "name", "min_cuda", "source") if f not in row]
        if missing or not isinstance(row["compute_capability"], (int, float)):
            raise InputError(f"{path}: [[arch]] #{i + 1}: needs compute_capability (a number), name, min_cuda, source")
        out[round(float(row["compute_capability"]), 1)] = row
    return out


@functools.lru_cache(maxsize=1)
def torch_wheel_archs() -> tuple[dict, ...]:
    """rules/catalog/torch_wheel_archs.toml's [[wheel]] rows: PyTorch CUDA wheels that hold fewer architectures than
    their CUDA compiles for, read once and checked (a bad row is an InputError naming it)."""
    from diagnose.inputs import load_toml

    path = CATALOG_DIR / "torch_wheel_archs.toml"
    rows = tuple(load_toml(path, "catalog").get("wheel", []))
    for i, row in enumerate(rows):
        if any(f not in row for f in ("variant", "first_release", "alone", "oldest", "instead", "source")):
            raise InputError(f"{path}: [[wheel]] #{i + 1}: needs variant, first_release, alone, oldest, instead and "
                             "source")
    return rows
