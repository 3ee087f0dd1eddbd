"""workload.evidence_coverage asks how GPUs that work together are connected, and shows the count it judged with its
source. The label names NCCL's connected ranks only where the count is theirs: a stated TP size shown from its launch
line is not "ranks NCCL connects" (it was, whenever a NCCL log sat beside it). Records written for this test."""

import pytest

from diagnose.evidence import Facts, NcclTransport, Workload
from rules.engine import evaluate


def _count(tp, transport="P2P"):
    facts = Facts()
    if tp:
        facts.add(Workload("launch.sh:1", tp=tp))
    facts.add(NcclTransport("nccl.log:7", transport, rank=0, peer=1),
              NcclTransport("nccl.log:8", transport, rank=1, peer=2))
    (f,) = evaluate(facts, only=["workload.evidence_coverage"])
    return f.evidence[0]


@pytest.mark.parametrize("transport", ["P2P", "SHM"])
def test_a_stated_tp_size_is_shown_as_itself(transport):
    e = _count(4, transport)
    assert (e.source, e.measured) == ("launch.sh:1", 4) and "NCCL" not in e.detail


@pytest.mark.parametrize("transport", ["P2P", "SHM"])
def test_ranks_nccl_connects_are_labelled_as_such(transport):
    e = _count(None, transport)
    assert (e.source, e.measured) == ("nccl.log:7", 3) and "ranks NCCL connects" in e.detail
