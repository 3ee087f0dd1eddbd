"""ticket.hang_on_pcie on a board that comes one to a machine (rules/catalog/gpus.toml gpus_per_machine = 1: DGX
Spark's GB10): several such GPUs are several machines joined by the network, so no PCIe peer path exists between them
and ACS/IOMMU blocking peer-to-peer is no suspect. vllm-project/vllm#42354 (tests/data/b49b): two DGX Sparks at TP=2
wedging in an all-reduce, answered p2p_disabled 0.72 before; the thread's users ended it by swapping the NCCL build."""

import pytest
from conftest import judged_issue, judged_kept_paste


def test_a_hang_across_two_dgx_sparks_is_no_pcie_peer_path(tmp_path):
    verdict, found = judged_kept_paste(tmp_path, "b49b/vllm42354.md")
    assert "ticket.hang_on_pcie" not in found
    assert verdict.category != "p2p_disabled"


def test_the_same_hang_on_a_pcie_board_keeps_its_peer_path_lead():
    text = ("# vLLM TP=2 hangs in all_reduce on two RTX 4090\n\n"
            "Serving Llama-3-8B with `vllm serve meta-llama/Meta-Llama-3-8B --tensor-parallel-size 2` on one machine "
            "with two RTX 4090 cards. The server hangs at the first all_reduce and never answers.\n")
    _, found = judged_issue(text)
    assert found["ticket.hang_on_pcie"].category == "p2p_disabled"
    spark = text.replace("two RTX 4090 cards", "two DGX Spark boxes").replace("on two RTX 4090", "on two DGX Spark")
    _, found = judged_issue(spark)
    assert "ticket.hang_on_pcie" not in found


@pytest.mark.parametrize("text", [
    # (r49a) a GB10 named as another machine that worked, the hang on PCIe boards: the peer path stays the lead
    "# vLLM TP=2 hangs\n\nNVIDIA GB10 works fine with the model alone. Now on two RTX 3090 GPUs over PCIe, vLLM 0.11 "
    "with --tensor-parallel-size 2, it hangs forever after the NCCL init lines, no error.\n",
    "# vLLM TP=2 hangs\n\nMy DGX Spark (GB10) runs the model fine alone. I moved to a box with 2x RTX 3090 on PCIe and "
    "vLLM with --tensor-parallel-size 2 hangs forever after the NCCL init lines, no error.\n",
])
def test_a_gb10_named_beside_pcie_boards_leaves_the_peer_path_lead(text):
    _, found = judged_issue(text)
    assert found["ticket.hang_on_pcie"].category == "p2p_disabled"


def test_a_machine_named_only_where_it_runs_fine_leaves_the_one_per_machine_guard():
    # (r49d) the two DGX Sparks hang; the H100 server, named only as the one where TP=2 runs fine, is no PCIe pair
    text = ("# TP=2 across two DGX Spark hangs in all-reduce\n\nI run vLLM with --tensor-parallel-size 2 across two "
            "DGX Spark (GB10) boxes. It hangs at the first all-reduce and never returns. The same model at TP=2 "
            "runs fine on my server with two H100 GPUs.\n")
    _, found = judged_issue(text)
    assert "ticket.hang_on_pcie" not in found
