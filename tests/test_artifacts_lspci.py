"""lspci -vvv parser: LnkCap vs LnkSta and ACS control, full blocks and grep'd lines.

STAND-IN: tests/data/hardware/lspci_vvv.txt was written by hand after real lspci output (a full
GPU block with its header plus a bridge); ticket attachments are real. Real public lspci output is
tested in test_artifacts_real_public.py (tests/data/hardware/real/, sources in SOURCES.md there).
"""

from pathlib import Path

from conftest import shared_path

from diagnose.artifacts import lspci

DATA = Path(__file__).parent / "data" / "hardware"


def test_riser_gen1_downgraded_lines_without_device():
    text = shared_path("tickets", "019-janhq-183-4090-riser-pcie-gen1-downgraded", "attachment1.txt").read_text()
    assert lspci.detect(text) > 0.9
    (link,) = lspci.parse(text, "a1.txt")
    assert (link.cap_speed_gts, link.cap_width, link.sta_speed_gts, link.sta_width) == (16.0, 16, 2.5, 16)
    assert link.bus_id == "unknown" and link.source == "a1.txt:2"


def test_grepped_acsctl_line():
    text = shared_path("tickets", "032-nccl-tests-152-a100-nv-peer-mem-not-loaded", "attachment3.txt").read_text()
    assert lspci.detect(text) > 0.9
    link, host = lspci.parse(text, "a3.txt")
    assert link.acs_redirect_enabled is False and link.source == "a3.txt:6"
    assert (host.name, host.value, host.source) == ("acs_enabled_bridges", [], "a3.txt:6")
    assert link.cap_speed_gts is None  # no LnkCap in the paste


def test_full_blocks_gpu_width_downgraded_and_bridge_acs():
    gpu, bridge, host = lspci.parse((DATA / "lspci_vvv.txt").read_text(), "l")
    assert (host.name, host.value) == ("acs_enabled_bridges", ["0000:15:00.0"])
    assert gpu.bus_id == "0000:17:00.0" and gpu.device.startswith("3D controller: NVIDIA")
    assert (gpu.cap_speed_gts, gpu.cap_width, gpu.sta_speed_gts, gpu.sta_width) == (16.0, 16, 16.0, 8)
    assert not gpu.is_bridge and gpu.acs_redirect_enabled is None and gpu.source == "l:19"
    assert bridge.bus_id == "0000:15:00.0" and bridge.is_bridge
    assert bridge.acs_redirect_enabled is True and (bridge.cap_speed_gts, bridge.sta_width) == (8.0, 16)


def test_several_grepped_devices_split_when_a_field_repeats():
    text = ("# lspci -vvv | grep -E 'LnkCap:|LnkSta:'\n"
            "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\t\tLnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)\n"
            "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)\n")
    links = lspci.parse(text.replace("\n", "\r\n"), "g")
    assert [(l.sta_speed_gts, l.source) for l in links] == [(32.0, "g:3"), (2.5, "g:5")]


def test_grepped_lines_after_a_full_block_are_not_merged_into_it():
    full = (DATA / "lspci_vvv.txt").read_text()
    grepped = shared_path("tickets", "019-janhq-183-4090-riser-pcie-gen1-downgraded", "attachment1.txt").read_text()
    for text in (full.rstrip("\n") + "\n" + grepped, full + grepped):
        links = [r for r in lspci.parse(text, "x") if hasattr(r, "sta_speed_gts")]
        assert [(l.bus_id, l.sta_speed_gts, l.sta_width) for l in links] == [
            ("0000:17:00.0", 16.0, 8), ("0000:15:00.0", 8.0, 16), ("unknown", 2.5, 16)]
