"""NCCL's topology dump: the real VM dump from a ticket, a cut-off paste, a bare-metal variant, fuzz."""

from artifact_fuzz import assert_survives_fuzz
from conftest import shared_path

from diagnose.artifacts import nccl_topo
from diagnose.evidence import GpuFact, NcclEvent, TopologyPath

VM_DUMP = ("036-nccl-1329-a800-vm-4gpu-no-p2p-flat-topology", "attachment1.txt")


def test_real_vm_dump_036():
    text = shared_path("tickets", *VM_DUMP).read_text()
    assert nccl_topo.detect(text) >= 0.9
    records = nccl_topo.parse(text, "a1")
    gpus = [r for r in records if isinstance(r, GpuFact)]
    assert [(g.index, g.bus_id, g.pci_device_id, g.source) for g in gpus] == [
        (0, "0000:00:09.0", "0x20f5", "a1:4"), (1, "0000:00:0a.0", "0x20f5", "a1:7"),
        (2, "0000:00:0b.0", "0x20f5", "a1:10"), (3, "0000:00:0c.0", "0x20f5", "a1:13")]
    assert all(g.numa_node is None for g in gpus)  # numaid -1: NCCL does not know
    (summary,) = [r for r in records if isinstance(r, NcclEvent)]
    assert summary.kind == "topology" and summary.source == "a1:1"
    assert summary.data["flat"] is True and summary.data["numaid"] == -1 and summary.data["nvlinks"] == 0
    assert summary.data["gpu_link_widths"] == [0, 0, 0, 0]
    assert summary.data["nets"] == [{"name": "ens4", "speed_mbps": 10000, "gdr": False}]


def test_cut_off_dump_still_reads_what_is_there():
    text = shared_path("tickets", *VM_DUMP).read_text()
    cut = text[: text.index('<pci busid="0000:00:0b.0"')]
    records = nccl_topo.parse(cut, "cut")
    assert [g.index for g in records if isinstance(g, GpuFact)] == [0, 1]


def test_bare_metal_variant_with_switch_and_nvlinks():
    """The real dump with each GPU moved behind a PCIe switch and given NVLinks to its neighbour."""
    text = shared_path("tickets", *VM_DUMP).read_text()
    text = text.replace('<cpu numaid="-1"', '<cpu numaid="1"')
    for dev, (bus, peer) in enumerate([("09", "0a"), ("0a", "09"), ("0b", "0c"), ("0c", "0b")]):
        text = text.replace(f'<pci busid="0000:00:{bus}.0"', f'<pci busid="0000:00:1{dev}.0" class="0x060400">'
                            f'<pci busid="0000:00:{bus}.0"', 1)
        text = text.replace(f'<gpu dev="{dev}" sm="80" rank="{dev}" gdr="1"/>',
                            f'<gpu dev="{dev}" sm="80" rank="{dev}" gdr="1">'
                            f'<nvlink target="0000:00:{peer}.0" count="4" tclass="0x030200"/></gpu></pci>')
    records = nccl_topo.parse(text, "bm")
    paths = {(p.a, p.b, p.path) for p in records if isinstance(p, TopologyPath)}
    assert paths == {("GPU0", "GPU1", "NV4"), ("GPU1", "GPU0", "NV4"), ("GPU2", "GPU3", "NV4"), ("GPU3", "GPU2", "NV4")}
    (summary,) = [r for r in records if isinstance(r, NcclEvent)]
    assert summary.data["flat"] is False and summary.data["nvlinks"] == 16 and summary.data["numaid"] == 1
    assert {g.numa_node for g in records if isinstance(g, GpuFact)} == {1}


def test_fuzz_never_raises():
    seeds = [shared_path("tickets", *VM_DUMP).read_text()]
    assert_survives_fuzz(nccl_topo, seeds, n=150)
