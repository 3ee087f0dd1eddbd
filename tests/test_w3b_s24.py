"""A PCIe link narrower than its maximum read with the load not known (session s24, w3b; tests/data/w3b_s24/SOURCES.md
gives each source). nvidia-smi documents the current width and generation as values that "may be reduced when the GPU
is not in use" (`nvidia-smi --help-query-gpu`), but the public readings of idle NVIDIA GPUs in full-width slots keep
their width at the lowest speed (an RTX A4000, a GT 730, a 4x RTX 3090 host's GPU0; an RTX 4070 Laptop GPU at
P8), so a narrow width with nothing saying whether the GPU was busy stays critical, at 0.7 rather than 0.8, with a
request for a reading under load. It is raised to 0.8 where something else points at the link: a reading under load,
the reporter's words that it was busy, a riser or slot named, PCIe errors; words that only suppose a reading under
load do not. `diagnose compare` no longer counts a width read while idle, as `diagnose node` does not judge it.
"""

import shutil
from pathlib import Path

from conftest import report_json

DATA = Path(__file__).parent / "data" / "w3b_s24"
UT14 = Path(__file__).parent / "data" / "ut14"
RECORDINGS = Path(__file__).parent / "recordings"

NEUTRAL = "Checking this node before serving.\n"
# Cyclenerd/ethereum_nvidia_miner#40: a riser named
RISER = ("I received today 5 other GPUs and the risers and tried to detach the GPU from the MoBo and use the riser, to "
         "see if all was well with this setup.\n")
# tinygrad/open-gpu-kernel-modules#6: a reading under load, and beside it the same words only supposed
BUSY = "here is my card under load\n"
SUPPOSED = ("ifg i run the test again with the gpu in use it will be different and if it still says downgraded in your "
            "case then your motherboard is doing something weird\n")
# DualCoder/vgpu_unlock#114: PCIe errors
AER = ("Hello, I can successfully install the driver in the virtual machine, but when I use a stressful graphics "
       "program (such as Furmark) in the virtual machine, the host freezes and keeps showing\n\n"
       "PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)\n")


def ticket(tmp_path: Path, issue: str, *files: Path) -> dict:
    d = tmp_path / "t"
    d.mkdir()
    # the neutral line is the issue's title; the quoted words are its body, where the reporter's sentences are read
    (d / "issue.md").write_text(issue if issue == NEUTRAL else NEUTRAL + "\n" + issue)
    for f in files:
        shutil.copy(f, d / f.name)
    return report_json("ticket", str(d))


def link_findings(report: dict) -> list[dict]:
    return [f for f in report["findings"] if f["rule"] == "topology.pcie_link"]


def severities(report: dict) -> set[str]:
    return {f["severity"] for f in link_findings(report)}


# ---------------------------------------------------------------- narrow, load not known: critical, less sure


def test_narrow_link_with_load_unknown_stays_critical_and_asks_for_a_reading_under_load(tmp_path):
    r = ticket(tmp_path, NEUTRAL, DATA / "lspci_x2_of_x4_cloudnetops.txt")
    found = link_findings(r)
    lead = [f for f in found if f["category"] == "pcie_link_degraded"]
    assert [(f["severity"], f["confidence"]) for f in lead] == [("critical", 0.7)]
    assert "x2 instead of x4" in lead[0]["title"] and "load when read not known" in lead[0]["title"]
    ev = lead[0]["evidence"][0]
    assert (ev["measured"], ev["expected"], ev["unit"]) == (2, 4, "lanes")
    ask = [f for f in found if f["title"] == "PCIe link width under load not known"]
    assert ask and "pcie.link.width.current" in ask[0]["ask"] and "nvidia-smi -q -d PCIE" in ask[0]["ask"]
    assert r["verdict"]["category"] == "pcie_link_degraded"


def confidence(report: dict) -> float:
    return max(f["confidence"] for f in link_findings(report) if f["category"] == "pcie_link_degraded")


def test_a_supposed_reading_under_load_does_not_raise_it(tmp_path):
    """"if i run the test again with the gpu in use it will be different" says what would happen, not what was read."""
    r = ticket(tmp_path, SUPPOSED, DATA / "lspci_x2_of_x4_cloudnetops.txt")
    assert confidence(r) == 0.7


# --------------------------------------------------------------------------- what makes it surer: 0.8


def test_narrow_link_with_a_riser_named_is_surer(tmp_path):
    r = ticket(tmp_path, RISER, DATA / "lspci_x2_of_x4_cloudnetops.txt")
    crit = [f for f in link_findings(r) if f["severity"] == "critical"]
    assert crit and "x2 instead of x4" in crit[0]["title"] and crit[0]["confidence"] == 0.8
    assert any("riser" in e["detail"] for e in crit[0]["evidence"])


def test_narrow_link_read_under_load_in_words_is_surer(tmp_path):
    r = ticket(tmp_path, BUSY, DATA / "lspci_x2_of_x4_cloudnetops.txt")
    crit = [f for f in link_findings(r) if f["severity"] == "critical"]
    assert crit and crit[0]["confidence"] == 0.8
    assert any("under load" in e["detail"] for e in crit[0]["evidence"])


def test_narrow_link_beside_pcie_errors_is_surer(tmp_path):
    r = ticket(tmp_path, AER, DATA / "lspci_x2_of_x4_cloudnetops.txt")
    crit = [f for f in link_findings(r) if f["severity"] == "critical"]
    assert crit and "x2 instead of x4" in crit[0]["title"] and crit[0]["confidence"] == 0.8


def test_narrow_link_at_full_utilisation_is_surer(tmp_path):
    """fangq/mcx#18: nvidia-smi -q with the GPU at 100 %: x8 of x16 under load."""
    r = ticket(tmp_path, NEUTRAL, UT14 / "mcx18_smi_q_link_x8.txt")
    crit = [f for f in link_findings(r) if f["severity"] == "critical"]
    assert crit and "x8 instead of x16" in crit[0]["title"] and crit[0]["confidence"] == 0.8


# --------------------------------------------------------------------------- idle GPUs that keep their width: no alarm


def test_idle_laptop_gpu_at_full_gen_and_width_raises_nothing(tmp_path):
    """An RTX 4070 Laptop GPU at P8, Idle Active, 0 %: Gen4 x8 of Gen4 x8, so idle does not always lower the link."""
    r = ticket(tmp_path, NEUTRAL, DATA / "smi_q_rtx4070_laptop_idle_jesse3692.txt")
    assert link_findings(r) == []
    assert not [f for f in r["findings"] if f["severity"] in ("warning", "critical")]


def test_speed_only_drops_with_full_width_stay_ok_notes(tmp_path):
    """An RTX A4000 (2.5 of 16 GT/s, x16), a 4x RTX 3090 host's GPU0 (2.5 of 16 GT/s, x16) and a GT 730 (2.5 of
    5 GT/s, x8 of x8): the width is whole and the speed is what an idle GPU lowers."""
    for name in ("lspci_rtx_a4000_thelio_geerling692.txt", "lspci_4x3090_tp4_gpu0_club3090_1028.txt",
                 "lspci_gt730_billauer.txt"):
        sub = tmp_path / name
        sub.mkdir()
        r = ticket(sub, NEUTRAL, DATA / name)
        assert severities(r) <= {"ok", "info"}, name
        assert any(f["severity"] == "ok" and "GT/s" in f["title"] for f in link_findings(r)), name


# --------------------------------------------------------------------------- node and compare judge it alike


def test_compare_does_not_count_a_width_read_while_idle():
    """The A10G node replay (telegraf's -q -x: x8 of x16 at P8, 0 %) is an ok note in `diagnose node`; compare must
    not set its width against another run's either."""
    from diagnose.compare import link_metrics

    r = report_json("node", "--replay", str(RECORDINGS / "a10g-vm-smi-qx-idle-x8.json"))
    gpus = r["facts"]["gpu_fact"]
    assert [(g["pcie_width_current"], g["pcie_read_under_load"]) for g in gpus] == [(8, False)]
    assert not [m for m in link_metrics(r["facts"]) if m.name == "width"]
    busy = {**r["facts"], "gpu_fact": [{**gpus[0], "pcie_read_under_load": True}]}
    assert [m.value for m in link_metrics(busy) if m.name == "width"] == [8.0]
    assert {f["severity"] for f in link_findings(r)} == {"ok", "info"}


def test_fleet_does_not_set_a_width_read_while_idle_against_other_nodes():
    """The same A10G replay in `diagnose fleet`: its idle x8 is no node value; read busy, it is."""
    from diagnose.findings import Report
    from diagnose.fleet import node_metrics

    facts = report_json("node", "--replay", str(RECORDINGS / "a10g-vm-smi-qx-idle-x8.json"))["facts"]
    idle = node_metrics(Report(kind="node", facts=facts), "a10g.json")
    assert "PCIe width (narrowest GPU)" not in idle.values
    busy = {**facts, "gpu_fact": [{**facts["gpu_fact"][0], "pcie_read_under_load": True}]}
    node = node_metrics(Report(kind="node", facts=busy), "a10g.json")
    assert node.values["PCIe width (narrowest GPU)"].value == 8
