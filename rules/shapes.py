"""What one TP rank holds and moves: parameters, bytes per parameter, KV bytes per token,
the matrices of one decoder layer, attention FLOPs, all-reduces per pass.

Pure arithmetic on a ModelSpec (model-configs.md sections 3-4); the roofline (rules.roofline)
and the expected step (rules.step_model) both time these same sizes.

Conventions: embeddings and the LM head stay 16-bit (FP8/INT4 checkpoints ship them so); only
decoder-layer weights take the weight dtype. Activations are 16-bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rules.catalog import ModelSpec

DTYPE_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "mxfp4": 4.25 / 8}
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8")
# Group-quantised integer weights (AWQ, GPTQ) carry a 16-bit scale and a 16-bit zero point per
# group of `group` weights along K: 4 bytes per group, +25 % at int4 group 32, +6 % at group 128.
# MXFP4 already counts its 8-bit block scale in its 4.25 bits. FP8 and int8 are per channel.
QUANT_META_BYTES = 4.0
DEFAULT_QUANT_GROUP = {"int4": 128}


def bytes_per_param(dtype: str, group: int | str | None = None) -> float:
    """Bytes a decoder weight occupies and streams, scales and zero points included. `group`: the size of
    an int4/int8 quantisation group, or a GGUF type's name ('Q5_K_M'), whose blocks fix the bytes."""
    if isinstance(group, str):
        from rules.catalog import gguf_type

        return gguf_type(group).bits / 8
    g = group if group else DEFAULT_QUANT_GROUP.get(dtype)
    meta = QUANT_META_BYTES / g if g and dtype in ("int4", "int8") else 0.0
    return DTYPE_BYTES[dtype] + meta


def edge_bytes(dtype: str, group: int | str | None = None) -> float:
    """LM-head (and embedding) bytes per parameter: 16-bit unless everything is fp32; a GGUF mix's output
    tensor type (rules/catalog/gguf_types.toml, as llama.cpp's quantize picks it) for a GGUF type."""
    if isinstance(group, str):
        from rules.catalog import gguf_type

        return gguf_type(group).output_bits / 8
    return 4.0 if dtype == "fp32" else 2.0


def kv_replication(model: ModelSpec, tp: int) -> int:
    """How many TP ranks hold a copy of each KV head (MLA: the latent is on every rank)."""
    if model.is_mla:
        return tp
    return max(1, tp // model.kv_heads) if tp >= model.kv_heads else 1


def experts_touched(model: ModelSpec, tokens: float) -> float:
    """Expected distinct experts a layer reads for `tokens` tokens under uniform routing.

    One token reads experts_active; a batch approaches all experts (model-configs.md section 4).
    """
    if not model.is_moe:
        return 0.0
    e, k = model.experts, model.experts_active
    return e * (1.0 - (1.0 - k / e) ** tokens)


# --------------------------------------------------------------------------- parameters per rank


def _attention_params_per_rank(model: ModelSpec, tp: int) -> float:
    h = model.hidden
    if model.is_mla:
        replicated = h * model.q_lora_rank + h * (model.kv_lora_rank + model.qk_rope_head_dim)
        return replicated + (model.attn_params() - replicated) / tp
    kv_weights = 2 * h * model.kv_heads * model.head_dim * model.full_attention_share
    return (model.attn_params() - kv_weights) / tp + kv_weights * kv_replication(model, tp) / tp


def decoder_params_per_rank(model: ModelSpec, tp: int, experts_touched: float | None = None) -> float:
    """Decoder-layer parameters held (or, with experts_touched, read) by one TP rank, all layers."""
    attn = _attention_params_per_rank(model, tp)
    norms = model.norms_per_layer * model.hidden
    per_dense_layer = attn + norms + model.mlp_params(model.ffn) / tp
    if not model.is_moe:
        return model.layers * per_dense_layer
    n = model.experts if experts_touched is None else experts_touched
    per_moe_layer = (attn + norms + model.router_params()
                     + (n * model.mlp_params(model.expert_ffn) + model.shared_params()) / tp)
    return (model.layers - model.moe_layers) * per_dense_layer + model.moe_layers * per_moe_layer


def decoder_bytes_per_rank(model: ModelSpec, tp: int, dtype: str, experts_touched: float | None = None,
                           group: int | str | None = None) -> float:
    """Decoder weight bytes on one TP rank. MXFP4 checkpoints (GPT-OSS) quantise only the
    routed experts; attention, router and shared experts stay 16-bit."""
    params = decoder_params_per_rank(model, tp, experts_touched)
    if dtype != "mxfp4" or not model.is_moe:
        return params * bytes_per_param(dtype, group)
    n = model.experts if experts_touched is None else experts_touched
    experts = model.moe_layers * n * model.mlp_params(model.expert_ffn) / tp
    return experts * DTYPE_BYTES[dtype] + (params - experts) * 2.0


def weights_bytes_per_gpu(model: ModelSpec, tp: int, pp: int, dtype: str, group: int | str | None = None) -> float:
    """Weights resident on the fullest GPU (first or last PP stage)."""
    if isinstance(group, str):  # llama.cpp: token_embd in host memory, the output tensor (a tied copy too) on GPU,
        # where its layer split counts it as one more layer: layer i goes to GPU floor(i x pp / (layers + 1)) and the
        # output to the last (llm_load_tensors, act_gpu_layers = n_layer + 1), so the last GPU holds fewer layers
        per_layer = decoder_bytes_per_rank(model, tp, dtype, group=group) / model.layers
        held = [0] * pp
        for i in range(model.layers):
            held[i * pp // (model.layers + 1)] += 1
        head = model.lm_head_params() * edge_bytes(dtype, group) / tp
        return max(n * per_layer + (head if g == pp - 1 else 0.0) for g, n in enumerate(held))
    stage_share = math.ceil(model.layers / pp) / model.layers
    decoder = decoder_bytes_per_rank(model, tp, dtype, group=group) * stage_share
    emb = model.embedding_params() * edge_bytes(dtype) / tp
    head = 0.0 if model.tied_embeddings else model.lm_head_params() * edge_bytes(dtype) / tp
    edges = emb + head if pp == 1 else max(emb, head if head else emb)
    return decoder + edges


# A hybrid's recurrent state is kept in vLLM's mamba_cache_dtype / mamba_ssm_cache_dtype, "auto" by default: the
# model's dtype (16-bit here, whatever the weights' quantisation), not the KV cache's (--kv-cache-dtype fp8 leaves it):
# MambaStateDtypeCalculator, https://docs.vllm.ai/en/v0.11.2/api/vllm/model_executor/layers/mamba/mamba_utils/
STATE_BYTES = 2.0


def linear_state_replication(model: ModelSpec, tp: int) -> int:
    """How many TP ranks hold a copy of each linear-attention key head's state: the state is split over the heads
    (vLLM's Qwen3NextGatedDeltaNet keeps num_k_heads / tp and num_v_heads / tp per rank), copied only past them."""
    heads = model.linear_key_heads
    return max(1, tp // heads) if heads and tp > heads else 1


def linear_state_bytes_per_gpu(model: ModelSpec, tp: int, pp: int = 1) -> float:
    """One sequence's fixed recurrent state on the fullest GPU (0 unless hybrid)."""
    if not model.is_hybrid:
        return 0.0
    whole = model.linear_state_bytes(STATE_BYTES) * linear_state_replication(model, tp) / tp
    return whole * math.ceil(model.layers / pp) / model.layers


def kv_bytes_per_token_per_gpu(model: ModelSpec, tp: int, pp: int, kv_dtype: str, context: int | None = None) -> float:
    """Cache bytes per token of context on one GPU: attention KV (replicated past the KV heads) in the KV dtype,
    plus, with `context`, a hybrid's state shared out over the context (split over the linear heads, model dtype)."""
    whole = model.kv_bytes_per_token(DTYPE_BYTES[kv_dtype], context, state_bytes_per_elem=0.0)
    per_rank = whole * kv_replication(model, tp) / tp if not model.is_mla else whole
    state = linear_state_bytes_per_gpu(model, tp, pp) / context if context else 0.0
    return per_rank * math.ceil(model.layers / pp) / model.layers + state


# --------------------------------------------------------------------------- one layer's work


@dataclass(frozen=True)
class Matrix:
    """One weight matrix (or a grouped set of expert matrices) a layer multiplies by, per rank.

    n, k: output and input width of the GEMM; params: weights read; tokens_share: the share of
    the layer's tokens that pass through it (experts: experts_active / touched each).
    """

    name: str
    n: float
    k: float
    params: float
    tokens_share: float = 1.0
    quantised: bool = True  # False: stays 16-bit whatever the checkpoint (the MoE router)
    groups: float = 1.0  # GEMMs of this shape the layer runs (experts: one per expert on the rank)
    grouped: bool = False  # one grouped (fused-MoE) kernel over the experts, not plain dense GEMMs

    @property
    def expert(self) -> bool:
        return self.name.startswith("experts")


def layer_matrices(model: ModelSpec, tp: int, moe_layer: bool, touched: float = 0.0,
                   dense_experts: bool = False) -> list[Matrix]:
    """The GEMMs of one decoder layer on one rank, in execution order.

    dense_experts: the rank holds experts / tp whole experts and runs each on every token, weighting
    its output by the token's routing weight (zero where the token did not pick it): vLLM's Mixtral
    before its fused-MoE kernel (engines.toml moe_dense_experts)."""
    h = model.hidden
    attn = _attention_params_per_rank(model, tp)
    if model.is_mla:
        o_out = model.heads / tp * model.v_head_dim
    else:
        o_out = model.heads / tp * model.head_dim
    o_params = o_out * h
    out = [Matrix("qkv", (attn - o_params) / h, h, attn - o_params), Matrix("o_proj", h, o_out, o_params)]
    if not moe_layer:
        ffn = model.ffn / tp
        up = (2 if model.gated_mlp else 1) * ffn
        return out + [Matrix("gate_up", up, h, up * h), Matrix("down", h, ffn, ffn * h)]
    out.append(Matrix("router", model.experts, h, model.router_params(), quantised=False))
    if dense_experts:
        local = model.experts / tp
        ffn = model.expert_ffn
        up = (2 if model.gated_mlp else 1) * ffn
        out += [Matrix("experts_up", up, h, local * up * h, 1.0, groups=local),
                Matrix("experts_down", h, ffn, local * ffn * h, 1.0, groups=local)]
    else:
        ffn = model.expert_ffn / tp
        up = (2 if model.gated_mlp else 1) * ffn
        share = model.experts_active / touched if touched else 1.0
        out += [Matrix("experts_up", up, h, touched * up * h, share, groups=touched or 1.0, grouped=True),
                Matrix("experts_down", h, ffn, touched * ffn * h, share, groups=touched or 1.0, grouped=True)]
    if model.shared_experts:
        sffn = model.shared_experts * (model.shared_expert_ffn or model.expert_ffn) / tp
        sup = (2 if model.gated_mlp else 1) * sffn
        out += [Matrix("shared_up", sup, h, sup * h), Matrix("shared_down", h, sffn, sffn * h)]
    return out


def attention_flops_per_token(model: ModelSpec, tp: int, attended: float, layers: int | None = None) -> float:
    """QK^T and PV for one query token attending to `attended` keys, per rank (all layers by default)."""
    heads = model.heads / tp
    if model.is_mla:  # absorbed MLA: scores over the latent + rope, values in the latent
        dims = (model.kv_lora_rank + model.qk_rope_head_dim) + model.kv_lora_rank
    else:
        dims = 2 * model.head_dim
    return 2.0 * heads * dims * attended * (model.layers if layers is None else layers)


def attended(model: ModelSpec, context: float) -> float:
    """Average keys attended per layer at this context (windowed layers see at most the window; a hybrid's linear
    layers read their fixed state, counted with the KV bytes, not keys)."""
    if model.is_hybrid:
        return context * model.full_attention_share
    if not model.local_layers or context <= model.sliding_window:
        return float(context)
    local = model.local_layers
    return ((model.layers - local) * context + local * model.sliding_window) / model.layers


def allreduces_per_pass(model: ModelSpec, tp: int, parallel_block: int = 1) -> int:
    """Two per layer (after o_proj and down_proj); with a parallel attention+MLP block, one where the
    engine sums both outputs before reducing (`parallel_block`, engines.toml parallel_block_allreduces:
    2 where it reduces each apart)."""
    if tp == 1:
        return 0
    return model.layers * (parallel_block if model.parallel_attn else 2)


def act_bytes_per_token(model: ModelSpec, tp: int) -> float:
    """Activation reads+writes per token per rank, all layers (fused kernels, 16-bit)."""
    ffn = model.experts_active * model.expert_ffn if model.is_moe else model.ffn
    return (6 * model.hidden + 5 * ffn / tp) * 2.0 * model.layers
