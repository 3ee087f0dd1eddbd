"""False alarms on real outputs of healthy machines (session s24, fa24; tests/data/fa24/SOURCES.md gives each
source). Each output is run the way a support engineer would: `diagnose ticket` on a folder holding the output and
a one-line neutral issue. Every warning or critical it raised was checked against NVIDIA's documentation and fixed
in general:

- a PCIe link narrower than its maximum read while the GPU idles is not judged as degraded: nvidia-smi documents
  the current width, like the generation, as one that "may be reduced when the GPU is not in use"
  (`nvidia-smi --help-query-gpu`); an A10G and a T4 in pass-through VMs, a Quadro P2000 and two RTX 2080 all read
  x8 of x16 at idle. Read under load (fangq/mcx#18, 100 %), the same width stays critical;
- lspci links of devices that carry no GPU traffic (a RAID card's x1 function) are not judged;
- an lspci link and the nvidia-smi table of the same paste are one GPU: the table's P8 / 0 % says it was idle;
- an lspci GPU link at 2.5 GT/s with nothing saying the GPU was busy and nothing pointing at the slot is judged as
  nvidia-smi's reading of the same link is: not judged, a reading under load asked for; said beside a riser
  (janhq/jan#183) it stays a warning;
- `p2pBandwidthLatencyTest`'s "Device=1 CAN Access Peer Device=0" is no refusal (the 0 is the peer's index),
  while "CANNOT Access Peer" still is;
- DCGM's "NvLink link N is currently down" on a system the reporter says has no NVLink (NVIDIA/DCGM#49), or on a
  board whose catalog row has none, is no NVLink fault; on an "A100" that may have NVLink it stays a lead;
- nvidia-smi's table cuts long names ("NVIDIA RTX 6000 Ada Gene..."): with the full name beside it, one board;
- the node path (`diagnose node --replay` of three of the same outputs, tests/recordings) judges the link alike.
"""

import shutil
from pathlib import Path

import pytest
from conftest import report_json

DATA = Path(__file__).parent / "data" / "fa24"
REAL = Path(__file__).parent / "data" / "hardware" / "real"
UT14 = Path(__file__).parent / "data" / "ut14"


def ticket(tmp_path: Path, *files: Path) -> dict:
    """`diagnose ticket` on a folder with the files and a neutral issue, as a user files a node check."""
    d = tmp_path / "t"
    d.mkdir()
    (d / "issue.md").write_text("Checking this node before serving.\n")
    for f in files:
        shutil.copy(f, d / f.name)
    return report_json("ticket", str(d))


def alarms(report: dict) -> list[tuple[str, str, str]]:
    return [(f["rule"], f["severity"], f["title"]) for f in report["findings"]
            if f["severity"] in ("warning", "critical")]


# --------------------------------------------------------------------------- healthy machines: no alarm

HEALTHY = [
    "smi_qx_a10g_aws_passthrough.xml",      # x8 of x16 at idle, pass-through VM
    "smi_qx_tesla_t4_passthrough.xml",      # x8 of x16 at P0 0 %
    "smi_qx_quadro_p2000.xml",              # x8 of x16 at idle
    "smi_qx_2x_rtx2080.xml",                # both x8 at idle
    "smi_qx_2x_rtx_a5000.xml",              # Gen1 idle, SW power cap counter
    "smi_qx_rtx3090_sw_power_cap_idle.xml",  # SW power cap Active at P8
    "smi_qx_rtx_pro_6000_maxq.xml",
    "validated_asus_esc8000a_e12_4x_rtx6000ada.md",
    "validated_puget_wrx90_2x_rtx6000ada.md",
]


@pytest.mark.parametrize("name", HEALTHY)
def test_healthy_machine_raises_no_alarm(tmp_path, name):
    r = ticket(tmp_path, DATA / name)
    assert alarms(r) == [], alarms(r)
    assert r["verdict"]["category"] in ("healthy", "expected_physics"), r["verdict"]


# outputs that say too little to call the node healthy, and nothing against it
QUIET = ["nccl_tests_a3mega_2x8_h100.txt", "dmesg_nvidia_boot_k8s_device_plugin480.txt",
         "nccl_info_2gpu_direct_pointer_nccl1358.txt"]


@pytest.mark.parametrize("name", QUIET)
def test_healthy_output_that_decides_little_raises_no_alarm(tmp_path, name):
    r = ticket(tmp_path, DATA / name)
    assert alarms(r) == [], alarms(r)
    assert r["verdict"]["category"] in ("healthy", "expected_physics", "insufficient_data"), r["verdict"]


@pytest.mark.parametrize("name, gpus", [
    ("smi_qx_a10g_aws_passthrough.xml", 1), ("smi_qx_tesla_t4_passthrough.xml", 1),
    ("smi_qx_quadro_p2000.xml", 1), ("smi_qx_2x_rtx2080.xml", 2)])
def test_narrow_link_at_idle_asks_for_a_reading_under_load(tmp_path, name, gpus):
    r = ticket(tmp_path, DATA / name)
    notes = [f for f in r["findings"] if f["rule"] == "topology.pcie_link" and f["severity"] == "ok"]
    assert notes and "x8 of x16 while idle" in notes[0]["title"]
    assert len(notes[0]["evidence"]) == gpus and all(e["measured"] == 8 and e["expected"] == 16
                                                      for e in notes[0]["evidence"])
    asks = [f["ask"] for f in r["findings"] if f["rule"] == "topology.pcie_link" and f["ask"]]
    assert any("while the GPU runs a bandwidth test" in a for a in asks), asks


def test_validated_server_judges_gpus_only_and_reads_their_idle_state(tmp_path):
    """The ASUS page: four RTX 6000 Ada at 2.5 GT/s (downgraded) x16 while nvidia-smi shows P8 / 0 %, HighPoint
    NVMe cards whose x1 functions read "(downgraded)", and a P2P test where every pair CAN access its peer."""
    r = ticket(tmp_path, DATA / "validated_asus_esc8000a_e12_4x_rtx6000ada.md")
    rules = {f["rule"] for f in r["findings"]}
    assert "ticket.p2p_refused" not in rules and "ticket.mixed_gpus" not in rules
    titles = " ".join(f["title"] for f in r["findings"])
    assert "HighPoint" not in titles and "RAID" not in titles
    idle = [f for f in r["findings"] if f["rule"] == "topology.pcie_link" and "because it is idle" in f["title"]]
    assert len(idle) == 4


def _lspci_gpus() -> str:
    """The ASUS page's four `lspci -vvv -s` GPU blocks, alone (2.5 GT/s (downgraded), x16)."""
    text = (DATA / "validated_asus_esc8000a_e12_4x_rtx6000ada.md").read_text()
    return text[text.index("GPU #0"):text.index("$ sonata@coyote2:~$ sudo lspci -vvv -s 21:00.0")].replace("```", "")


def test_lspci_gen1_without_load_or_slot_words_is_not_judged(tmp_path):
    r = pasted(tmp_path, _lspci_gpus())
    assert alarms(r) == [], alarms(r)
    assert any("while the GPU runs a bandwidth test" in (f["ask"] or "") for f in r["findings"])


def test_lspci_gen1_beside_a_riser_stays_a_warning(tmp_path):
    """The same blocks under janhq/jan#183's sentence about its riser."""
    d = tmp_path / "r"
    d.mkdir()
    (d / "issue.md").write_text("Checking this node before serving.\n\n"
                                "Repro: LinkUp Riser connected to one 4090 only, slot 0\n"
                                f"```\n{_lspci_gpus()}```\n")
    r = report_json("ticket", str(d))
    warn = [a for a in alarms(r) if a[0] == "topology.pcie_link"]
    assert warn and all(a[1] == "warning" and "trained at 2.5 GT/s of 16 GT/s" in a[2] for a in warn), warn


@pytest.mark.parametrize("name, gpus", [("a10g-vm-smi-qx-idle-x8.json", 1), ("t4-vm-smi-qx-x8-no-load.json", 1),
                                        ("2x-rtx2080-smi-qx-idle-x8.json", 2)])
def test_node_replay_of_an_idle_narrow_link_is_healthy_and_asks_for_load(name, gpus):
    """`diagnose node --replay` of the same -q -x outputs (tests/recordings/transcribe.py): the node path judges the
    link as the ticket path does."""
    from test_node_replays import replay
    _, findings, verdict = replay(name)
    assert verdict.category == "healthy" and not [f for f in findings if f.severity in ("warning", "critical")]
    (note,) = [f for f in findings if f.rule == "topology.pcie_link" and f.severity == "ok"]
    assert len(note.evidence) == gpus and "x8 of x16 while idle" in note.title
    assert any(f.ask and "bandwidth test" in f.ask for f in findings if f.rule == "topology.pcie_link")


# --------------------------------------------------------------------------- faults still raised

def test_narrow_link_under_load_is_still_critical(tmp_path):
    """fangq/mcx#18: Link Width Max 16x / Current 8x read at 100 % utilisation."""
    r = ticket(tmp_path, UT14 / "mcx18_smi_q_link_x8.txt")
    crit = [a for a in alarms(r) if a[0] == "topology.pcie_link" and a[1] == "critical"]
    assert crit and "x8 instead of x16" in crit[0][2]


def test_lspci_gpu_link_without_load_context_is_still_raised(tmp_path):
    """club-3090#1095: a GPU function at 2.5 GT/s x8 (downgraded), nothing saying it idled."""
    r = ticket(tmp_path, REAL / "lspci_vvv_s_rtx3090_gpu_and_bridge_acs.txt")
    assert any(a[0] == "topology.pcie_link" and a[1] == "critical" for a in alarms(r)), alarms(r)


def pasted(tmp_path: Path, output: str) -> dict:
    """`diagnose ticket` on an issue that pastes the output under its one line, in a code block."""
    d = tmp_path / "p"
    d.mkdir()
    (d / "issue.md").write_text(f"Checking this node before serving.\n```\n{output}```\n")
    return report_json("ticket", str(d))


def test_cannot_access_peer_pasted_is_still_a_refusal(tmp_path):
    """nccl-tests#287: 2x RTX 5090, "Device=0 CANNOT Access Peer Device=1", pasted into the issue."""
    r = pasted(tmp_path, (REAL / "p2p_bandwidth_2x_rtx5090_no_peer_access.txt").read_text())
    assert r["verdict"]["category"] == "p2p_disabled", r["verdict"]


def test_can_access_peer_pasted_is_no_refusal(tmp_path):
    """The ASUS page's p2pBandwidthLatencyTest (every pair CAN access its peer, 26 GB/s) pasted into the issue."""
    text = (DATA / "validated_asus_esc8000a_e12_4x_rtx6000ada.md").read_text()
    block = text[text.index("$ sonata@coyote2:~/cuda-samples/Samples/5_Domain_Specific"):text.index("## RDMA P2P")]
    r = pasted(tmp_path, block.replace("```", ""))
    assert "ticket.p2p_refused" not in {f["rule"] for f in r["findings"]}
    assert r["verdict"]["category"] == "expected_physics", r["verdict"]


# --------------------------------------------------------------------------- the readings, unit by unit

@pytest.mark.parametrize("line, refused", [
    ("Device=1 CAN Access Peer Device=0", False),          # the peer's index (p2pBandwidthLatencyTest, P2P works)
    ("Device=0 CAN Access Peer Device=2", False),
    ("Device=0 CANNOT Access Peer Device=1", True),         # nccl-tests#287
    ("canAccessPeer: 0", True),                             # the query's result
    ("torch.cuda.can_device_access_peer(0, 1) = False", True),
])
@pytest.mark.parametrize("kind", ["description", "pasted_output"])
def test_can_access_peer_reads_the_result_not_the_index(line, refused, kind):
    from diagnose.evidence import Facts, Note
    from rules import claims
    facts = Facts()
    facts.add(Note("issue.md:1", kind, line))
    assert bool(claims.find(facts, "no_p2p")) == refused


@pytest.mark.parametrize("names, distinct", [
    ({"NVIDIA RTX 6000 Ada Gene...", "NVIDIA RTX 6000 Ada Generation"}, 1),
    ({"NVIDIA GeForce ...", "NVIDIA GeForce RTX 4090"}, 1),
    # a cut name without its full spelling stays as it is, and two boards stay two
    ({"NVIDIA RTX 6000 Ada Gene..."}, 1),
    ({"NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 4060 Ti"}, 2),
    ({"Tesla P100-PCIE...", "NVIDIA A100-SXM4-40GB"}, 2),
])
def test_table_cut_names_join_their_full_spelling(names, distinct):
    from rules.ticket_rules import _untruncated
    assert len(_untruncated(names)) == distinct


@pytest.mark.parametrize("device, judged", [
    ("VGA compatible controller: NVIDIA Corporation AD102GL [RTX 6000 Ada Generation] (rev a1)", True),
    ("da:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 40GB] [10de:20b0] (rev a1)", True),
    ("Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]", True),
    (None, True),  # LnkCap/LnkSta pasted without the device line
    ("RAID bus controller: HighPoint Technologies, Inc. SSD7540 PCIe Gen4 x16 8-Port M.2 NVMe RAID Controller", False),
    ("01:00.0 Non-Volatile memory controller [0108]: Samsung Electronics Co Ltd NVMe SSD Controller", False),
])
def test_only_gpu_and_nic_links_are_judged(device, judged):
    from diagnose.evidence import PcieLinkFact
    from rules.topology import _judged_device
    link = PcieLinkFact(source="lspci.txt", bus_id="0000:01:00.0", device=device, cap_speed_gts=16.0, cap_width=16,
                        sta_speed_gts=16.0, sta_width=8)
    assert _judged_device(link) is judged


DCGM49 = (DATA / "dcgmi_diag_r2_pcie_a100_nvlink_down_dcgm49.txt").read_text()


def test_dcgm_nvlink_down_on_a_system_without_nvlink_is_no_fault(tmp_path):
    """NVIDIA/DCGM#49: "This is on any GPU system without NvLink." above DCGM's per-link "is currently down" rows."""
    d = tmp_path / "n"
    d.mkdir()
    (d / "issue.md").write_text("Checking this node before serving.\n\nThis is on any GPU system without NvLink. "
                                f"I have tried several.\n```\n{DCGM49}```\n")
    r = report_json("ticket", str(d))
    assert "ticket.link_down" not in {f["rule"] for f in r["findings"]}
    assert alarms(r) == [], alarms(r)


def test_dcgm_nvlink_down_on_an_a100_that_may_have_nvlink_stays_a_lead(tmp_path):
    """The same rows under the thread's other sentence, "GPU is A100.": an A100 may be an NVLink board."""
    d = tmp_path / "a"
    d.mkdir()
    (d / "issue.md").write_text(f"Checking this node before serving.\n\nGPU is A100.\n```\n{DCGM49}```\n")
    r = report_json("ticket", str(d))
    assert [a[:2] for a in alarms(r)] == [("ticket.link_down", "warning")]


@pytest.mark.parametrize("sentence, none_here", [
    ("This is on any GPU system without NvLink.", True),  # NVIDIA/DCGM#49
    ("NVIDIA A100 80GB PCIe (single GPU, no NVLink bridge installed)", True),  # NVIDIA/NVSentinel#1481
    ("GPU is A100.", False),
    ("The NVLink bridge is installed but topo shows PHB.", False),
    ("P2P is slow without NVLink", False),  # a general statement, no system named
])
def test_words_that_a_system_has_no_nvlink(sentence, none_here):
    from rules.ticket_rules import _NO_NVLINK_SYSTEM
    assert bool(_NO_NVLINK_SYSTEM.search(sentence)) is none_here
