"""Which messages TensorRT-LLM's custom all-reduce takes: its buffer holds 16,000,000 bytes for a pair of ranks and
8,000,000 beyond, larger messages go to NCCL. Every release profile (v0.5 to the current one) uses the same limits,
as every version of the source read states them: customAllReduceUtils.h getMaxRequiredWorkspaceSize
(https://github.com/NVIDIA/TensorRT-LLM/blob/005b299bd30992a58607c7628bb2009264970f37/cpp/tensorrt_llm/common/customAllReduceUtils.h)
and the 2024 plugin.py max_workspace_size_auto it is kept in sync with."""

import pytest

from rules import catalog, collectives


@pytest.mark.parametrize("key", ["trtllm", "trtllm-0.10", "trtllm-xqa8", "trtllm-mmha"])
@pytest.mark.parametrize("ranks,under,over", [(8, 7.9e6, 8.1e6), (4, 7.9e6, 8.1e6), (2, 15.9e6, 16.1e6)])
def test_custom_kernel_up_to_the_buffer_then_nccl(key, ranks, under, over):
    ic = catalog.interconnect("nvswitch3")  # H100 HGX: all-to-all NVLink, where the custom kernel runs
    eng = catalog.engine(key)
    assert collectives.expected(ic, ranks, under, engine=eng).impl == "trtllm custom"
    assert collectives.expected(ic, ranks, over, engine=eng).impl.startswith("NCCL")
