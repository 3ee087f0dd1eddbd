"""A PCIe board whose NVLink exists only through an optional bridge (RTX 3090, A6000, A100 PCIe) is expected
to run its TP all-reduce over PCIe unless the bridge is named, as rules.nccl judges such a pair; the bound
keeps the bridge, so a bridged pair never beats it."""

import pytest

from rules import catalog
from rules.roofline import Layout, predict


def _p(gpu, **kw):
    return predict(catalog.model("llama-2-7b"), catalog.gpu(gpu), Layout(2), batch=1, prompt=512, output=128,
                   dtype="fp16", engine=catalog.engine("vllm"), gpus_per_node=2, **kw)


@pytest.mark.parametrize("gpu", ["rtx-3090", "rtx-a6000", "a100-80gb-pcie", "a30"])
def test_unstated_bridge_is_expected_over_pcie_and_bounded_by_the_bridge(gpu):
    spec = catalog.gpu(gpu)
    plain, bridged = _p(gpu), _p(gpu, interconnect=spec.interconnect)
    assert plain.interconnect == spec.pcie_interconnect and bridged.interconnect == spec.interconnect
    assert "not stated" in plain.assumptions["nvlink_bridge"] and bridged.assumptions["nvlink_bridge"] is None
    # the expected step over PCIe is no faster than over the bridge; the roofline is the bridge's in both
    assert plain.itl_ms_expected >= bridged.itl_ms_expected
    assert plain.itl_ms == bridged.itl_ms


def test_geforce_pair_without_bridge_stages_through_host_memory():
    # stock driver: no PCIe P2P on a GeForce board (catalog pcie_p2p false), so neither vLLM's custom all-reduce
    # (it needs P2P) nor NCCL's P2P transport runs: NCCL goes through shared host memory
    assert "SHM" in _p("rtx-3090").allreduce_impl
    assert _p("rtx-3090", interconnect="nvlink3").allreduce_impl == "vllm custom"


def test_boards_with_fixed_nvlink_are_unchanged():
    p = predict(catalog.model("llama-2-7b"), catalog.gpu("a100-80gb-sxm"), Layout(2), batch=1, prompt=512,
                output=128, dtype="fp16", engine=catalog.engine("vllm"), gpus_per_node=8)
    assert p.interconnect == catalog.gpu("a100-80gb-sxm").interconnect and p.assumptions["nvlink_bridge"] is None
