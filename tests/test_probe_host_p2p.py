"""What on the host really blocks GPU peer-to-peer: ACS redirection on switch ports (not
SrcValid, not root ports) and an IOMMU that translates (the GPU's IOMMU group type decides)."""

import json
from pathlib import Path

from probes import host
from probes.recording import ReplaySession

REAL = Path(__file__).parent / "data" / "hardware" / "real" / "lspci_vvv_s_rtx3090_gpu_and_bridge_acs.txt"
BRIDGE = "0000:00:03.2"


def _session(tmp_path, answers):
    path = tmp_path / "rec.json"
    path.write_text(json.dumps({"format": "diagnose.node-recording/1", "meta": {}, "answers": answers}))
    return ReplaySession(path)


def _bridge_text():
    lines = REAL.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"# lspci -vvv -s {BRIDGE}"))
    return "\n".join(lines[start + 1:]) + "\n"


def _acs(tmp_path, text):
    return host._acs(_session(tmp_path, [{"call": "run", "args": ["lspci", "-vvv", "-s", BRIDGE], "value": text}]),
                     BRIDGE)


def test_acs_redirect_on_a_bridge_counts(tmp_path):
    text = _bridge_text()  # ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ ... as the reporter pasted it
    assert "ReqRedir+" in text and _acs(tmp_path, text) is True


def test_source_validation_alone_does_not_block_p2p(tmp_path):
    text = _bridge_text().replace("ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+",
                                  "ACSCtl:\tSrcValid+ TransBlk- ReqRedir- CmpltRedir-")
    assert "ReqRedir-" in text and _acs(tmp_path, text) is False


def test_acs_on_a_root_port_is_not_the_p2p_blocker(tmp_path):
    text = "\tCapabilities: [58] Express (v2) Root Port (Slot+), MSI 00\n" + _bridge_text()
    assert _acs(tmp_path, text) is False


def test_the_gpus_iommu_group_type_decides_passthrough(tmp_path):
    gpu = "0000:01:00.0"
    answers = [{"call": "read", "args": ["/proc/cmdline"], "value": "BOOT_IMAGE=/vmlinuz ro quiet"},
               {"call": "listdir", "args": ["/sys/class/iommu"], "value": ["dmar0", "dmar1"]},
               {"call": "listdir", "args": ["/sys/kernel/iommu_groups"], "value": ["0", "1", "2"]}]
    facts = {f.name: f.value for f in host.iommu(_session(tmp_path, answers), [gpu])}
    assert facts["iommu"] == "on"  # units present, nothing on the command line: translation assumed
    typed = answers + [{"call": "read", "args": [f"/sys/bus/pci/devices/{gpu}/iommu_group/type"],
                        "value": "identity\n"}]
    facts = {f.name: f.value for f in host.iommu(_session(tmp_path, typed), [gpu])}
    assert facts["iommu"] == "pt" and "identity" in facts["iommu_detail"]  # passthrough by kernel default
    translated = answers + [{"call": "read", "args": [f"/sys/bus/pci/devices/{gpu}/iommu_group/type"],
                             "value": "DMA-FQ\n"}]
    assert {f.name: f.value for f in host.iommu(_session(tmp_path, translated), [gpu])}["iommu"] == "on"
