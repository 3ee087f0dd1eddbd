"""topology.mig_gpus warns that a MIG GPU cannot join a tensor-parallel group only where the layout needs a peer:
TP >= 2 stated, or a node of several distinct GPUs with no TP stated. One GPU read from two sources (the same
`nvidia-smi -q -x` pasted twice, or a paste and a table) is one GPU, and a stated TP of 1 needs no peer: both are
only noted (they were p2p_disabled warnings, counted per record)."""

import shutil
from pathlib import Path

import pytest
from conftest import report_json

from diagnose.evidence import Facts, GpuFact, Workload
from rules.engine import evaluate

REAL = Path(__file__).parent / "data" / "hardware" / "real" / "smi_qx_a100_sxm4_mig_535.xml"


def _mig(gpus, tp=None):
    facts = Facts()
    if tp:
        facts.add(Workload("launch.sh:1", tp=tp))
    facts.add(*gpus)
    return [(f.severity, f.category) for f in evaluate(facts, only=["topology.mig_gpus"])]


def _gpu(source, index, mig, **ids):
    return GpuFact(source, index=index, name="NVIDIA A100-SXM4-80GB", mig_mode=mig, **ids)


def test_one_mig_gpu_pasted_twice_is_noted(tmp_path):
    for name in ("issue-paste.xml", "attachment.xml"):
        shutil.copy(REAL, tmp_path / name)
    report = report_json("ticket", tmp_path)
    (note,) = [f for f in report["findings"] if f["rule"] == "topology.mig_gpus"]
    assert (note["severity"], note["category"]) == ("info", "other")


@pytest.mark.parametrize("records", [
    [_gpu("smi.xml:8", None, True, uuid="GPU-5135"), _gpu("smi.txt:9", 0, True, uuid="GPU-5135")],
    [_gpu("smi.xml:8", None, True, bus_id="0000:01:00.0"), _gpu("smi.txt:9", 0, True, bus_id="00000000:01:00.0")],
    [_gpu("smi.xml:8", None, True), _gpu("smi.txt:9", 0, True)],
])
def test_one_gpu_from_two_sources_needs_no_peer(records):
    assert _mig(records) == [("info", "other")]


@pytest.mark.parametrize("tp, expected", [(None, "warning"), (1, "info"), (2, "warning")])
def test_a_node_of_two_gpus_needs_a_peer_unless_tp_1_is_stated(tp, expected):
    assert _mig([_gpu("a", 0, False), _gpu("b", 1, True)], tp)[0][0] == expected


def test_two_gpus_with_the_same_index_on_two_hosts_stay_two():
    """GPU0 of two machines: their UUIDs tell them apart, so a peer exists."""
    assert _mig([_gpu("host-a", 0, True, uuid="GPU-1"), _gpu("host-b", 0, False, uuid="GPU-2")]) == [
        ("warning", "p2p_disabled")]


def test_tp_2_on_one_mig_gpu_is_warned():
    assert _mig([_gpu("a", 0, True)], tp=2) == [("warning", "p2p_disabled")]
