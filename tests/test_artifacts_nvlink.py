"""nvidia-smi nvlink -s / -e parser on the real ticket attachments and pasted variants.

STAND-IN: tests/data/hardware/topo_p2p_and_nvlink_e.txt (the -e counters with non-zero values)
was written by hand; no public -e paste with non-zero counters was found. Real public nvlink -s
/ -e output is tested in test_artifacts_real_public.py (tests/data/hardware/real/).
"""

from pathlib import Path

from conftest import shared_path

from diagnose.artifacts import nvlink
from diagnose.evidence import Facts, GpuFact, Note, NvLinkFact
from diagnose.pipeline import name_catalog_rows

DATA = Path(__file__).parent / "data" / "hardware"


def _links(records):
    return {(r.gpu, r.link): r for r in records if isinstance(r, NvLinkFact)}


def test_a100_status_cut_after_second_gpu():
    text = shared_path("tickets", "010-nccl-tests-228-a100-p2p-level-loc-forces-shm", "attachment1.txt").read_text()
    assert nvlink.detect(text) > 0.9
    records = nvlink.parse(text, "a1.txt")
    links = _links(records)
    # GPU1's list ends in '...' after link 0: its links are not reported, never "1 link" (review item 11)
    assert sorted(links) == [(0, n) for n in range(12)]
    (cut,) = [r for r in records if isinstance(r, Note) and r.kind == "nvlink_paste_cut"]
    assert cut.data == {"gpu": 1} and cut.source == "a1.txt:16"
    assert all(link.active and link.speed_gbs == 25.0 for link in links.values())
    assert links[(0, 11)].source == "a1.txt:13"
    facts = Facts()
    facts.add(records)
    name_catalog_rows(facts)  # the pipeline names each GPU's catalog row; the parser only reads
    gpus = facts.of(GpuFact)
    assert [(g.index, g.name, g.catalog_key) for g in gpus] == [
        (0, "NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"), (1, "NVIDIA A100-SXM4-80GB", "a100-80gb-sxm")]
    assert gpus[1].uuid == "GPU-0c512562-871f-8257-6187-b5ae1b986d5e"


def test_health_check_log_inactive_links():
    text = shared_path("tickets", "018-azurehpc-health-checks-162-h100-pcie-inactive-links-by-design",
                       "attachment1.log").read_text()
    assert nvlink.detect(text) > 0.9
    links = _links(nvlink.parse(text, "a1.log"))
    assert sorted(links) == [(0, 4), (0, 5), (0, 10), (0, 11), (0, 16)]
    assert not any(link.active for link in links.values())
    assert links[(0, 4)].source == "a1.log:3" and links[(0, 16)].source == "a1.log:7"


def test_errors_attach_to_status_and_rank_prefixes():
    records = nvlink.parse((DATA / "topo_p2p_and_nvlink_e.txt").read_text(), "t")
    links = _links(records)
    assert links[(0, 0)].active and links[(0, 0)].errors == {"replay": 0, "recovery": 0, "crc": 0}
    assert not links[(0, 1)].active and links[(0, 1)].errors["crc"] == 118
    assert len([r for r in records if isinstance(r, GpuFact)]) == 1


def test_errors_without_status_are_a_note_and_inactive_variants():
    text = "GPU 2: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n\t Link 3: Replay Errors: 0\n\t Link 3: CRC Errors: 9\n"
    records = nvlink.parse(text, "e")
    assert not _links(records)
    note = [r for r in records if isinstance(r, Note)][0]
    assert note.data == {"gpu": 2, "link": 3, "errors": {"replay": 0, "crc": 9}}
    text = "GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-2)\n\t Link 0: 25.781 GB/s\n\t Link 1: <inactive>\n"
    links = _links(nvlink.parse(text.replace("\t", "    ").replace("\n", "\r\n"), "s"))
    assert links[(0, 0)].speed_gbs == 25.781 and not links[(0, 1)].active
    all_down = ("GPU 1: NVIDIA H100 PCIe (UUID: GPU-3)\n\t NVML: Unable to retrieve NVLink information "
                "as all links are inActive\n")
    notes = [r for r in nvlink.parse(all_down, "x") if isinstance(r, Note)]
    assert notes[0].kind == "nvlink_all_inactive" and notes[0].data == {"gpu": 1}


def test_same_index_on_two_nodes_stays_two_gpus():
    text = shared_path("tickets", "010-nccl-tests-228-a100-p2p-level-loc-forces-shm", "attachment1.txt").read_text()
    first_gpu = "\n".join(text.splitlines()[:13])
    other_node = first_gpu.replace("GPU-ff8a40d4", "GPU-aa8a40d4").replace("Link 4: 25 GB/s", "Link 4: <inactive>")
    links = [r for r in nvlink.parse(first_gpu + "\n" + other_node, "t") if isinstance(r, NvLinkFact)]
    assert len(links) == 24
    assert [(l.active, l.source) for l in links if l.link == 4] == [(True, "t:6"), (False, "t:19")]
