"""dmesg / kernel log Xid parser, and the nvtop device line.

STAND-IN: tests/data/hardware/dmesg_xid.txt was written by hand after real kernel-log lines (it
mixes three log formats and an NVSwitch SXid in one file). Real public Xid lines (79, 48, 64, 63,
43, 31, 94, 45, 149, 145, the three-line "fallen off the bus") are tested in
test_artifacts_real_public.py (tests/data/hardware/real/, sources in SOURCES.md there).
"""

from pathlib import Path

from conftest import shared_path

from diagnose.artifacts import dmesg, nvtop
from diagnose.evidence import Note, XidEvent

DATA = Path(__file__).parent / "data" / "hardware"


def test_xid_lines_in_three_log_formats():
    text = (DATA / "dmesg_xid.txt").read_text()
    assert dmesg.detect(text) > 0.9
    events = [r for r in dmesg.parse(text, "k") if isinstance(r, XidEvent)]
    assert [(e.xid, e.bus_id, e.source) for e in events] == [
        (79, "0000:3b:00.0", "k:3"), (48, "0000:86:00.0", "k:5"), (74, "0000:af:00.0", "k:6")]
    assert "fallen off the bus" in events[0].message


def test_sxid_and_bare_fallen_off_bus_are_notes():
    records = dmesg.parse((DATA / "dmesg_xid.txt").read_text(), "k")
    notes = {r.kind: r for r in records if isinstance(r, Note)}
    assert (notes["gpu_fallen_off_bus"].data == {"bus_id": "0000:3b:00.0"}
            and notes["gpu_fallen_off_bus"].source == "k:4")
    assert notes["nvswitch_sxid"].data == {"switch": "nvidia-nvswitch3", "bus_id": "0000:07:00.0", "sxid": 12028}


def test_no_xid_in_real_ticket_logs():
    for folder, name in (("027-torchtitan-853-ci-container-shm-16mb-h100", "attachment1.log"),
                         ("018-azurehpc-health-checks-162-h100-pcie-inactive-links-by-design", "attachment1.log")):
        text = shared_path("tickets", folder, name).read_text()
        assert dmesg.detect(text) == 0 and dmesg.parse(text, name) == []


def test_nvtop_gen1_without_load_context():
    text = shared_path("tickets", "021-nvtop-6-gen1-at-idle-false-alarm", "attachment1.txt").read_text()
    assert nvtop.detect(text) > 0.8
    gpu0, gpu1 = nvtop.parse(text, "a1.txt")
    assert (gpu0.index, gpu0.pcie_gen_current, gpu0.pcie_width_current) == (0, 3, 16)
    assert (gpu1.index, gpu1.name, gpu1.pcie_gen_current, gpu1.source) == (1, "GeForce GTX 1080 Ti", 1, "a1.txt:2")
    assert gpu1.pcie_read_under_load is None  # nothing in the paste says busy or idle


def test_nvtop_utilisation_bar_decides_load():
    text = ("Device 0 [NVIDIA GeForce RTX 3090] PCIe GEN 1@16x RX: 0.000 KiB/s TX: 0.000 KiB/s\n"
            " GPU 210MHz  MEM 405MHz  TEMP  31°C FAN  0% POW  21 / 350 W\n"
            " GPU[                                 0%] MEM[                  0.3Gi/24.0Gi]\n"
            "Device 1 [NVIDIA GeForce RTX 3090] PCIe GEN 4@16x RX: 1.2 GiB/s TX: 0.9 GiB/s\n"
            " GPU[||||||||||||||||||||||||||||||  97%] MEM[|||||||||||||| 20.1Gi/24.0Gi]\n")
    idle, busy = nvtop.parse(text, "n")
    assert (idle.pcie_gen_current, idle.pcie_read_under_load) == (1, False)
    assert (busy.pcie_gen_current, busy.pcie_read_under_load, busy.utilization_pct) == (4, True, 97)
