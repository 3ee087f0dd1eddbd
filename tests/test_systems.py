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
    assert not _busbw("# busbw across nodes\n\nWe have DGX A100 and DGX H100 nodes; on 2 nodes all_reduce busbw is "
                      "90 GB/s.\n")
    # ... but one the reporter moved away from is not the one that ran (claims.negated_words reads "moving from")
    (f,) = _busbw("# busbw across nodes\n\nMoving from DGX A100 to DGX H100: on 2 nodes all_reduce busbw is 90 GB/s.\n")
    assert any("DGX H100" in e.detail and "8 x 400 Gb/s" in e.detail for e in f.evidence)


@pytest.mark.parametrize("text,key,gbit", [
    ("two DGX-A100 nodes", "dgx_a100", 1600), ("DGX H200 x2", "dgx_h100", 3200), ("16x p4d.24xlarge", "p4d", 400),
    ("on ND96asr_v4 VMs", "nd_a100_v4", 1600), ("two p5 instances", "p5", 3200), ("ND H100 v5", "nd_h100_v5", 3200),
])
def test_aliases_as_people_write_them(text, key, gbit):
    ((spec, _),) = catalog.named_systems(text)
    assert (spec.key, spec.nic_gbit) == (key, gbit) and spec.source.startswith("https://")


@pytest.mark.parametrize("text", ["GPU stuck in P5 state", "p4dn.24xlarge", "DGX A1000", "MyDGX A100x", "g5.64xlarge",
                                  "p7.48xlarge", "a2-highgpu-3g", "NC12ads_A100_v4", "eg5.xlarge"])
def test_no_system_in_lookalikes(text):
    assert catalog.named_systems(text) == []


# Cloud instances as users write them; each row's GPU and count are its vendor page's (rules/catalog/systems.toml).
INSTANCES = [
    ("We run vLLM on a p4de.24xlarge.", "a100-80gb-sxm", 8),  # AWS
    ("Serving from one g5.12xlarge (SageMaker endpoint).", "a10g", 4),
    ("a g5.xlarge for the small model", "a10g", 1),
    ("Benchmarks on g6e.48xlarge, EKS.", "l40s", 8),
    ("p3.8xlarge with the old AMI", "v100-sxm2-16gb", 4),
    ("Our GKE node pool is a2-ultragpu-8g.", "a100-80gb-sxm", 8),  # Google Cloud
    ("one A3 Mega (a3-megagpu-8g) VM", "h100-sxm", 8),
    ("a g2-standard-24 VM on GKE", "l4", 2),
    ("Azure VM size Standard_NC24ads_A100_v4", "a100-80gb-pcie", 1),  # Azure
    ("on ND96isr_H200_v5", "h200-sxm", 8),
    ("NC64as_T4_v3 in West Europe", "t4", 4),
]


def _facts(text: str) -> Facts:
    records, _ = parse_text(f"# slow decode\n\n{text} Llama-3-8B decodes at 30 tok/s at batch 1.\n", "issue.md")
    facts = Facts()
    facts.add(*records)
    return facts


@pytest.mark.parametrize("text, gpu, count", INSTANCES)
def test_an_instance_names_its_gpu_and_count(text, gpu, count):
    from rules.common import gpu_count, gpus_per_node
    from rules.subject import Subject

    facts = _facts(text)
    subject = Subject.of(facts)
    assert subject.gpu.key == gpu and not subject.gpu_by_family and "systems" not in subject.gpu_source
    assert subject.gpu_source.split("holds ")[1].startswith(gpu) and "https://" in subject.gpu_source
    assert gpu_count(facts) == count and gpus_per_node(facts) == count


def test_every_row_gives_its_gpu_from_the_gpu_catalog():
    for _, spec in catalog._systems():
        assert spec.gpu is None or spec.gpu in catalog.gpus(), spec.key
        assert spec.gpus or spec.nic_gbit, spec.key
    keys = {spec.key for _, spec in catalog._systems()}
    assert len(keys) >= 55  # AWS, Google Cloud and Azure GPU instance types by GPU count, and the DGX systems


@pytest.mark.parametrize("text", [
    "We are not on a p4d anymore, this is our own box.",
    "The p4de.24xlarge was ruled out; we use our own nodes.",
    "It is NOT a g5.12xlarge.",
    "No g6e.48xlarge here.",
])
def test_an_instance_ruled_out_names_nothing(text):
    from rules.common import gpu_count
    from rules.subject import Subject

    facts = _facts(text)
    assert Subject.of(facts).gpu is None and gpu_count(facts) is None


def test_a_stated_count_and_board_win_over_the_instance():
    from rules.common import gpu_count
    from rules.subject import Subject

    facts = _facts("On a p4de.24xlarge we use only 2 GPUs for this test.")
    assert gpu_count(facts) == 2 and Subject.of(facts).gpu.key == "a100-80gb-sxm"
    facts = _facts("An A100 80GB PCIe box, not the p4d.")
    assert Subject.of(facts).gpu.key == "a100-80gb-pcie"


def test_an_instance_without_a_documented_fabric_gives_no_nic_ceiling():
    """A g5.12xlarge's network differs by size and is a VM's shared Ethernet: no inter-node ceiling is taken. (Since
    para37 reads "across nodes" as a multi-node run, the figure is not judged against one node's PCIe either: before,
    it was called pcie_fallback at 12 % of PCIe Gen4.)"""
    found = _busbw("# busbw across nodes\n\nTwo g5.12xlarge nodes: all_reduce busbw is 3 GB/s.\n")
    assert not any("systems.toml" in e.detail for f in found for e in f.evidence)
    assert not any(f.category == "pcie_fallback" for f in found)


# ---- the rows as checked against their vendors' text (2026-12-02): each cites the text it was read from, and a
# row no text confirmed says so wherever a finding uses it

def test_every_row_cites_the_url_of_the_text_it_was_read_from():
    import re

    for _, spec in catalog._systems():
        assert re.fullmatch(r"https://[\w.-]+\.[a-z]{2,}/\S+", spec.source), spec.key
    unconfirmed = {spec.key for _, spec in catalog._systems() if not spec.confirmed}
    # g6e_8's 400 Gbps confirmed in AWS's EFA page (2026-12-03); p5 and p5e still lack a vendor text for NVSwitch
    assert {"p5", "p5e", "dgx_a100"} <= unconfirmed
    assert not {"p4d", "nd_h100_v5", "a3_ultragpu_8", "g6e_8"} & unconfirmed


def test_a_row_without_a_url_is_refused(tmp_path, monkeypatch):
    from diagnose.errors import InputError

    (tmp_path / "systems.toml").write_text('[box]\nname = "a box"\nsource = "from memory"\ngpus = 8\n'
                                           'aliases = ["box"]\n')
    monkeypatch.setattr(catalog, "CATALOG_DIR", tmp_path)
    monkeypatch.setattr(catalog, "_SYSTEMS", [])
    with pytest.raises(InputError, match="source must be the URL"):
        catalog._systems()


@pytest.mark.parametrize("text, unconfirmed", [
    ("Serving Llama-3-8B on a p5.48xlarge with one GPU (TP=1): decode is 90 tok/s at batch 1, expected?", True),
    ("Llama-3-8B on Standard_NC80adis_H100_v5, TP=2, one request at a time: 120 tok/s decode.", True),
    ("Serving Llama-3-8B on one g5.xlarge: decode is 9 tok/s at batch 1, expected?", False),
    ("llama-3-8b via vLLM, instance type g6e.xlarge, single stream: 20 tok/s. Normal?", False),
    ("Llama-3-8B on Standard_NC24ads_A100_v4, one request at a time: 40 tok/s decode.", False),
])
def test_a_finding_that_uses_an_unconfirmed_row_says_so(text, unconfirmed):
    records, _ = parse_text(f"# decode speed\n\n{text}\n", "issue.md")
    facts = Facts()
    facts.add(*records)
    (judged,) = [f for f in evaluate(facts) if f.rule == "ticket.measured_vs_expected"]
    flagged = [e for e in judged.evidence if "unconfirmed catalog row" in e.detail]
    assert bool(flagged) == unconfirmed
    assert all("systems.toml" in e.detail and "https://" in e.detail for e in flagged)


def test_a_nic_ceiling_from_an_unconfirmed_row_says_so():
    (p5,) = _busbw("# busbw across nodes\n\nTwo p5 instances (16 GPUs): all_reduce busbw 150 GB/s at 8 GB.\n")
    (cited,) = [e for e in p5.evidence if "systems.toml" in e.detail]
    assert "unconfirmed catalog row" in cited.detail and "3200 Gb/s in all" in cited.detail
    (nd,) = _busbw("# busbw across nodes\n\nTwo ND H100 v5 VMs, 16 GPUs: all_reduce busbw 150 GB/s at 8 GB.\n")
    assert not any("unconfirmed" in e.detail for e in nd.evidence)


def test_corrected_rows():
    """What the vendors' text changed: p4d/p4de are 4 network cards of 100 Gb/s (EC2 User Guide: "4x 100 Gigabit");
    A2 VMs have only the VM's Ethernet (no GPU fabric: no NIC ceiling); A3 Edge, whose GPU-NIC figure did not fit
    the documented total and could not be read, is no longer a row."""
    ((p4d, _),) = catalog.named_systems("on p4d.24xlarge")
    assert (p4d.nics, p4d.nic_gbit) == (4, 400)
    (f,) = _busbw("# busbw across nodes\n\nTwo p4d.24xlarge nodes: all_reduce busbw is 40 GB/s.\n")
    assert any("4 x 100 Gb/s" in e.detail for e in f.evidence)
    ((a2, _),) = catalog.named_systems("a2-ultragpu-8g")
    assert (a2.gpu, a2.gpus, a2.nic_gbit) == ("a100-80gb-sxm", 8, 0)
    assert catalog.named_systems("an a3-edgegpu-8g VM") == []
