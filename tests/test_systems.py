"""A ticket that names its system (rules/catalog/systems.toml) but not its NICs: the system's NIC aggregate is
the inter-node ceiling of nccl.busbw. The texts are paraphrases written for these tests."""

import pytest

from diagnose.artifacts import parse_text
from diagnose.evidence import Facts
from rules import catalog
from rules.engine import evaluate

TWO_DGX_A100 = [
    "# Inter-node all-reduce slow\n\nTwo DGX A100 nodes, 16 GPUs. NCCL log shows NET/IB with GDRDMA on all 8 HCAs. "
    "all_reduce_perf inter-node busbw is {v} GB/s at 8 GB messages, is that expected?\n",
    "# busbw across nodes\n\nnccl-tests on 2 nodes of DGX-A100 (8 GPUs each, 16 ranks): all_reduce busbw {v} GB/s "
    "for the largest sizes. Normal?\n",
    "# NCCL perf across nodes\n\nCluster of DGXA100 machines; running all_reduce_perf -b 1G -e 8G on 2 nodes x 8 GPUs "
    "gives busbw {v} GB/s.\n",
]


def _busbw(text: str):
    records, _ = parse_text(text, "issue.md")
    facts = Facts()
    facts.add(*records)
    return [f for f in evaluate(facts) if f.rule == "nccl.busbw"]


@pytest.mark.parametrize("text", TWO_DGX_A100)
def test_two_dgx_a100_judged_against_eight_hdr_nics(text):
    (slow,) = _busbw(text.format(v=90))
    assert "56%" in slow.title and "NICs' line rate" in slow.title and "matches" not in slow.title
    (measured,) = [e for e in slow.evidence if e.measured == 90.0]
    assert measured.expected == 160.0  # 80 % of 8 x 200 Gb/s = 200 GB/s, the typical share of a line rate
    assert any("systems.toml" in e.detail and "8 x 200 Gb/s" in e.detail and e.measured == 200.0
               for e in slow.evidence)
    (healthy,) = _busbw(text.format(v=185))
    assert healthy.severity == "ok" and "matches the NICs' line rate" in healthy.title


def test_single_dgx_a100_is_not_judged_against_nics():
    (f,) = _busbw("# all_reduce slow\n\nOne DGX A100 with 8 GPUs on a single node: all_reduce busbw 90 GB/s.\n")
    assert "NICs" not in f.title and not any("systems.toml" in e.detail for e in f.evidence)


def test_stated_nic_rate_wins_over_the_table():
    (f,) = _busbw("# busbw across nodes\n\nDGX A100 on 2 nodes, but only 4x HDR 200Gb/s cabled per node. "
                  "Inter-node all_reduce busbw 90 GB/s on 16 GPUs.\n")
    assert f.severity == "ok"  # 90 GB/s against 80 % of 4 x 25 GB/s
    assert not any("systems.toml" in e.detail for e in f.evidence)
    assert any("as the reporter states it" in e.detail for e in f.evidence)


def test_two_systems_named_give_no_ceiling():
    """Which of two named systems ran is unclear, so neither one's NICs are the ceiling."""
    assert _busbw("# busbw across nodes\n\nDGX A100 on 2 nodes: all_reduce busbw is 90 GB/s.\n")
    assert not _busbw("# busbw across nodes\n\nMoving from DGX A100 to DGX H100: on 2 nodes all_reduce busbw is "
                      "90 GB/s.\n")


@pytest.mark.parametrize("text,key,gbit", [
    ("two DGX-A100 nodes", "dgx_a100", 1600), ("DGX H200 x2", "dgx_h100", 3200), ("16x p4d.24xlarge", "p4d", 400),
    ("on ND96asr_v4 VMs", "nd_a100_v4", 1600), ("two p5 instances", "p5", 3200), ("ND H100 v5", "nd_h100_v5", 3200),
])
def test_aliases_as_people_write_them(text, key, gbit):
    ((spec, _),) = catalog.named_systems(text)
    assert (spec.key, spec.nic_gbit) == (key, gbit) and spec.source.startswith("https://")


@pytest.mark.parametrize("text", ["GPU stuck in P5 state", "p4de.24xlarge", "DGX A1000", "MyDGX A100x"])
def test_no_system_in_lookalikes(text):
    assert catalog.named_systems(text) == []
