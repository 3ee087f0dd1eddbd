"""Adjustments made while merging the thirty-sixth session's passes (issue 11), each on the real paste that showed it.

A run across machines that does not scale: ticket.symptom_prior's last answer, the physics of a TP group inside one box
(PCIe, small kernels, a small model), is not the answer there; the network path between the machines is the first
unknown, and the asks name it."""

from pathlib import Path

import pytest

from tests.conftest import judged_issue

DATA = Path(__file__).parent / "data"
PHYSICS_TITLE = "Tensor parallelism not paying off is what physics predicts for many setups"


def test_multi_node_training_that_slows_with_more_nodes_is_not_tp_physics():
    # modelscope/ms-swift#1825: ZeRO-3 on 1-12 nodes of 8 A800, each added node multiplying the batch time; settled:
    # NCCL was kept off InfiniBand
    verdict, findings = judged_issue(folder=DATA / "ut26f" / "swift1825.md")
    assert verdict.category != "expected_physics"
    assert "ticket.symptom_prior" not in findings or findings["ticket.symptom_prior"].title != PHYSICS_TITLE


@pytest.mark.parametrize("text", [
    "# Multi-node training slow\n\nTraining with DeepSpeed on 4 nodes (8x A100 each) is slower per step than on a "
    "single node. Adding machines makes it worse and worse.",
    "# Scaling across nodes\n\nWe train across 2 machines with torchrun and the throughput does not scale: two nodes "
    "give the same samples/s as one node.",
])
def test_paraphrases_across_machines(text):
    verdict, findings = judged_issue(text)
    assert verdict.category != "expected_physics"


def test_the_same_complaint_inside_one_box_keeps_the_prior():
    text = ("# TP8 barely faster than TP4\n\nWe serve Mixtral 8x7B with vLLM on an 8x H100 SXM server. Going from "
            "tensor parallel 4 to tensor parallel 8 barely helps, the speed is almost the same.")
    verdict, findings = judged_issue(text)
    assert verdict.category == "expected_physics"
    assert findings["ticket.symptom_prior"].title == PHYSICS_TITLE
