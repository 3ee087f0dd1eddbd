"""Issue 11 (session 19, h9): TP wider than any machine of the ticket's GPU holds (rules.catalog.most_per_machine: the
SXM baseboard's NVLink fabric, a GB200 NVL72's 72, a DGX-2's 16) spans machines whether or not the ticket counts its
nodes; a named system that holds the group fits it.
"""

from __future__ import annotations

import pytest
from test_ticket_isnormal_names import issue, verdict_of

from diagnose.evidence import Workload
from rules import catalog
from rules.common import named_system

# --------------------------------------------------------------------------- B: TP wider than any machine


@pytest.mark.parametrize("key, most", [
    ("h100-sxm", 8), ("h200-sxm", 8), ("b200", 8), ("a100-40gb-sxm", 16), ("a100-80gb-sxm", 16),
    ("v100-sxm2-32gb", 16), ("gb200", 72), ("gb10", 1), ("h100-pcie", None), ("l40s", None),
])
def test_the_most_gpus_a_machine_holds_comes_from_the_catalog(key, most):
    found = catalog.most_per_machine(catalog.gpus()[key])
    assert (found and found[0]) == most


def test_no_system_row_holds_more_gpus_than_its_board_allows():
    """systems.toml and gpus.toml agree: a machine that holds more of a board than its gpus_per_machine would make
    most_per_machine take the row's count, so the board's own figure must not understate it."""
    for _, system in catalog._systems():
        board = catalog.gpus().get(system.gpu) if system.gpu else None
        if board is not None and board.gpus_per_machine:
            assert (system.gpus or 0) <= catalog.most_per_machine(board)[0], system.key


def test_tp_wider_than_any_machine_spans_machines_without_a_node_count():
    """https://github.com/vllm-project/vllm/issues/8908: TP=16 on Leonardo's A100-SXM-64GB, four to a node; the
    ticket counts no nodes."""
    facts = issue(
        "# [Usage]: LLM with tensor_parallel_size larger than n. gpus in one node\n\n"
        "In version 0.5.4 I used to be able to initialize and run Llama 3.1 405b instruct hf when running on "
        "4x4A100 - 64Gb by first initializing ray on all nodes and then calling:\n\n"
        "`llm = LLM(tensor_parallel_size=16, ...)`\n\n"
        "GPU models and configuration:\nGPU 0: NVIDIA A100-SXM-64GB\nGPU 1: NVIDIA A100-SXM-64GB\n"
        "GPU 2: NVIDIA A100-SXM-64GB\nGPU 3: NVIDIA A100-SXM-64GB\n")
    verdict, findings = verdict_of(facts)
    spans = [f for f in findings if f.rule == "workload.cross_node_tp" and f.category == "cross_node_tp"]
    assert spans and spans[0].severity == "critical" and "4 machines" in spans[0].title
    assert verdict.category == "cross_node_tp"


def test_tp_within_one_machine_is_not_spread():
    """https://github.com/vllm-project/vllm/issues/11705: 16 H100s as TP=8 x PP=2: each TP group fits a machine."""
    facts = issue(
        "# [Bug]: Extremely slow inference speed when deploying with vLLM on 16 H100 GPUs according to instructions "
        "on DeepSeekV3\n\nI'm deploying the model using the following command:\n```\nvllm serve local_deepseekv3_path "
        "--trust-remote-code --tensor-parallel-size 8 --pipeline-parallel-size 2 --model-max-len 16384 "
        "--served-model-name deepseek-v3 deepseek\n```\n")
    _, findings = verdict_of(facts)
    assert not [f for f in findings if f.rule == "workload.cross_node_tp" and f.severity == "critical"]


def test_a_named_system_that_holds_the_tp_group_fits_it():
    """https://github.com/facebookresearch/metaseq/issues/131: "a DGX 2 with 16 V100 32GB", OPT-175B to be resharded
    into 16 model-parallel shards: the DGX-2 row (16 V100s over NVSwitch) holds the group."""
    facts = issue("We have a DGX 2 with 16 V100 32GB and would like to run the 175B model from OPT. How can is reshard "
                  "a consolidated .pt to 16 shard to overcome the memory limit?")
    assert named_system(facts)[0].key == "dgx_2"
    facts.add(Workload("issue.md:1", tp=16))  # the 16 shards: 16-way model parallelism
    _, findings = verdict_of(facts)
    assert facts.subject.gpu.key == "v100-sxm2-32gb"
    assert not [f for f in findings if f.rule == "workload.cross_node_tp" and f.category == "cross_node_tp"]

