"""Every fact record type lives in diagnose.evidence and declares the key it has in a report."""

import dataclasses

import pytest
from conftest import REPO, report_json

from diagnose import evidence


def test_a_fact_type_must_declare_its_report_key():
    with pytest.raises(TypeError, match="report key"):
        @dataclasses.dataclass
        class Unkeyed(evidence.Fact):
            source: str
    with pytest.raises(TypeError, match="declared by GpuFact"):
        @dataclasses.dataclass
        class Twin(evidence.Fact):
            report_key = "gpu_fact"
            source: str


def test_the_report_key_is_declared_not_derived_from_the_class_name():
    assert evidence.FACT_TYPES["p2_p_status"] is evidence.P2PStatus  # the key reports have always used
    assert all(cls.__dict__["report_key"] == key for key, cls in evidence.FACT_TYPES.items())
    with pytest.raises(TypeError, match="report key"):  # a subclass does not inherit its parent's key
        type("RenamedGpu", (evidence.GpuFact,), {})


def test_every_record_a_report_carries_is_a_registered_fact_type():
    keys = set()
    for args in (["capture", REPO / "samples" / "captures" / "tp8_pcie_fallback.sqlite"],
                 ["node", "--replay", REPO / "tests" / "recordings" / "dgx-h100-topo-numa.json"],
                 ["ticket", REPO / "samples" / "tickets" / "p2p-level-loc"]):
        facts = report_json(*args)["facts"]
        keys |= {k for k, v in facts.items() if isinstance(v, list) and v and isinstance(v[0], dict)}
    keys -= {"step_durations"}  # the capture report's own per-step series, not a record type
    assert keys and keys <= set(evidence.FACT_TYPES), keys - set(evidence.FACT_TYPES)
