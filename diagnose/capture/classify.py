"""Kernel names -> what the GPU was doing: communication, GEMM, attention, norm/elementwise, other.

Communication covers every NCCL naming generation (<= 2.7 `ncclAllReduceRingLLKernel_sum_f16`,
2.8-2.18 `ncclKernel_AllReduce_RING_LL_Sum_half`, >= 2.19 `ncclDevKernel_AllReduce_Sum_bf16_RING_LL`,
2.27 `ncclSymDevKernel_*`, >= 2.28 `ncclSymkDevKernel_*`) and the all-reduce kernels inference
engines ship instead of NCCL: vLLM/SGLang custom all-reduce (`cross_device_reduce_1stage`),
vLLM quick all-reduce, TensorRT-LLM / FlashInfer fused and Lamport all-reduce, PyTorch
symmetric-memory (`one_shot_all_reduce`, `multimem_*`), MSCCL++, NVSHMEM and DeepEP
dispatch/combine. The order of the checks matters: a communication kernel may carry "gemm" or
"reduce" in its template arguments.
"""

from __future__ import annotations

import re
from functools import lru_cache

COMM, GEMM, ATTENTION, NORM, OTHER = "communication", "gemm", "attention", "norm_elementwise", "other"
CLASSES = (COMM, GEMM, ATTENTION, NORM, OTHER)


def _lowered(pattern: str) -> re.Pattern:
    """The case-blind pattern compiled for lower-cased text: searching `name.lower()` without
    IGNORECASE is about 4x faster (re keeps its literal fast paths), which counts on exports
    naming hundreds of thousands of distinct kernels. The patterns use no escapes that lower-casing
    changes (\\B, \\W, \\S, \\D)."""
    return re.compile(pattern.lower())


_COMM = _lowered(
    r"^nccl|\bnccl[A-Z_]|cross_device_reduce|custom_?all_?reduce|quickreduce|allreduce_prototype"
    r"|one_?shot_?all_?reduce|two_?shot_?all_?reduce|oneShotAllReduce|twoShotAllReduce|lamport"
    r"|allreduce_fusion|all_?reduce_kernel|allreduce|all_?gather_kernel|reduce_?scatter_kernel"
    r"|multimem_|symmetric_memory|mscclpp|nvshmem|deep_ep|\bintranode::|\binternode(_ll)?::"
    r"|all_?to_?all_kernel|moe_?all_?to_?all|trtllm_?allreduce|userbuffers",
)
_ATTENTION = _lowered(
    r"flash|fmha|attention|attn|paged_?attention|\bmha|xqa|mmha|BatchDecode|BatchPrefill|BatchMLA"
    r"|single_?decode|single_?prefill|decode_?kernel.*(attn|kv)|reshape_and_cache|merge_attn|cudnn_?sdpa"
    r"|sdpa|softmax_?lse|lean_?attn|split_?kv",
)
_GEMM = _lowered(
    r"gemm|gemv|nvjet|xmma|cublas|cutlass|matmul|\bmm_|_mm\b|wgmma|hgmma|s16816|s1688|tensorop|Marlin"
    r"|fp8_?gemm|deep_?gemm|grouped_?gemm|moe_?gemm|fused_moe|splitKreduce|cutlass_?80|sm90_|sm100_|triton_?mm"
    r"|convolve|conv2d|implicit_",
)
# Kernels of GEMM libraries that are not GEMMs: TensorRT's xmma pooling (a memory-bound window
# reduction, counted with the norms and reductions), checked before _GEMM matches "xmma".
_NOT_GEMM = _lowered(r"xmma_pooling|_pooling_")
_NORM = _lowered(
    r"norm|rms|elementwise|vectorized|unrolled|activation|silu|gelu|swiglu|act_and_mul|rotary|rope"
    r"|softmax|reduce_kernel|fill|copy|cat_|CatArray|index|scatter|gather|embedding|triton_(poi|red|per)"
    r"|topk|sampling|argmax|add_|_add|mul_|_mul|bias|dropout|transpose|permute|quant|cast|clamp",
)

# Collective kinds, for matching the same collective across ranks.
_OPS = (
    ("all_reduce", re.compile(r"all_?reduce|cross_device_reduce|quickreduce|lamport|multimem_all_reduce", re.I)),
    ("reduce_scatter", re.compile(r"reduce_?scatter", re.I)),
    ("all_gather", re.compile(r"all_?gather", re.I)),
    ("all_to_all", re.compile(r"all_?to_?all|deep_ep|dispatch|combine", re.I)),
    ("broadcast", re.compile(r"broadcast", re.I)),
    ("send_recv", re.compile(r"send_?recv|sendrecv|\bsend|\brecv|_Send|_Recv|PtoP|p2p", re.I)),
    ("reduce", re.compile(r"reduce", re.I)),
)


def _base(name: str) -> str:
    """Drop a leading return type ('void ') and the parameter list, keep namespaces and the name."""
    text = (name or "").strip()
    if text.startswith("void "):
        text = text[5:]
    paren = text.find("(")
    if paren < 0 or "<" not in text[:paren]:  # no template before the parameters: the common case
        return text if paren < 0 else text[:paren]
    depth = 0
    for i, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0:
            return text[:i]
    return text


@lru_cache(maxsize=65536)
def classify(name: str) -> str:
    """The class of one kernel name (shortName or demangled name)."""
    base = _base(name).lower()
    if _COMM.search(base):
        return COMM
    if _ATTENTION.search(base):
        return ATTENTION
    if _NOT_GEMM.search(base):
        return NORM
    if _GEMM.search(base):
        return GEMM
    if _NORM.search(base):
        return NORM
    return OTHER


# NCCL's own kernels as each release names them (shared/docs/nsys-sqlite-schema.md 9.1, from NVIDIA/nccl's sources):
# from 2.8 the collective follows the prefix (ncclKernel_, 2.19 ncclDevKernel_, 2.27 ncclSymDevKernel_, 2.28
# ncclSymkDevKernel_); up to 2.7 it leads the name (ncclAllReduceRingLLKernel_sum_f16).
_NCCL_KERNEL = re.compile(r"\bnccl(?:Sym[k]?)?(?:Dev)?Kernel_([A-Za-z]+)")
_NCCL_KERNEL_2_7 = re.compile(
    r"\bnccl(AllReduce|AllGather|ReduceScatter|Broadcast|Reduce)(?:Ring|Tree|CollNet)\w*Kernel_")


def nccl_collective(name: str) -> str | None:
    """The collective an NCCL kernel runs as NCCL names it ('AllReduce'), whatever release named the kernel (an
    upgrade renames every one; the collective stays); None for a kernel NCCL did not name."""
    m = _NCCL_KERNEL.search(name) or _NCCL_KERNEL_2_7.search(name)
    return m[1] if m else None


@lru_cache(maxsize=65536)
def collective_op(name: str) -> str | None:
    """all_reduce / all_gather / reduce_scatter / all_to_all / broadcast / send_recv / reduce, or None."""
    base = _base(name)
    if not _COMM.search(base.lower()):
        return None
    # NCCL's own names carry the collective right after the prefix.
    m = _NCCL_KERNEL.match(base)
    if m:
        base = m.group(1)
    elif base.startswith("nccl"):
        base = base[4:]
    for op, pattern in _OPS:
        if pattern.search(base):
            return op
    return "other"


@lru_cache(maxsize=65536)
def comm_library(name: str) -> str | None:
    """Which implementation a communication kernel belongs to (nccl, nccl_symmetric, custom_allreduce, ...)."""
    base = _base(name)
    if not _COMM.search(base.lower()):
        return None
    if re.match(r"ncclSymk?DevKernel", base):
        return "nccl_symmetric"
    if base.startswith("nccl") or "nccl" in base[:12].lower():
        return "nccl"
    if re.search(r"deep_ep|intranode::|internode", base):
        return "deepep"
    if re.search(r"symmetric_memory|multimem_|one_?shot_?all_?reduce|two_?shot_?all_?reduce", base, re.I):
        return "symmetric_memory"
    if re.search(r"lamport|allreduce_fusion|trtllm|oneShotAllReduce|twoShotAllReduce|tensorrt_llm", base, re.I):
        return "trtllm_allreduce"
    if re.search(r"cross_device_reduce|custom_?all_?reduce|quickreduce|allreduce_prototype", base, re.I):
        return "custom_allreduce"
    return "other"


