"""Host checks over sysfs/procfs/lspci readings (through a replayed session)."""

import json

from diagnose.evidence import HostFact, NcclSetting, PcieLinkFact
from probes import host
from probes.recording import ReplaySession

PCI = "/sys/bus/pci/devices"
GPU, SWITCH_PORT, ROOT_PORT = "0000:18:00.0", "0000:17:00.0", "0000:16:00.0"


def session(tmp_path, acsctl, extra=()):
    answers = [
        {"call": "listdir", "args": [PCI], "value": [ROOT_PORT, SWITCH_PORT, GPU]},
        {"call": "read", "args": [f"{PCI}/{GPU}/vendor"], "value": "0x10de\n"},
        {"call": "read", "args": [f"{PCI}/{GPU}/class"], "value": "0x030200\n"},
        {"call": "realpath", "args": [f"{PCI}/{GPU}"],
         "value": f"/sys/devices/pci0000:15/{ROOT_PORT}/{SWITCH_PORT}/{GPU}"},
        {"call": "read", "args": [f"{PCI}/{GPU}/max_link_speed"], "value": "32.0 GT/s PCIe\n"},
        {"call": "read", "args": [f"{PCI}/{GPU}/current_link_speed"], "value": "2.5 GT/s PCIe\n"},
        {"call": "read", "args": [f"{PCI}/{GPU}/max_link_width"], "value": "16\n"},
        {"call": "read", "args": [f"{PCI}/{GPU}/current_link_width"], "value": "16\n"},
        {"call": "run", "args": ["lspci", "-vvv", "-s", SWITCH_PORT],
         "value": f"17:00.0 PCI bridge: PLX\n\t\t{acsctl}\n"},
        {"call": "run", "args": ["lspci", "-vvv", "-s", ROOT_PORT], "error": "ExitCode1"},
        {"call": "read", "args": ["/proc/cmdline"], "value": "BOOT_IMAGE=/vmlinuz intel_iommu=on iommu=pt"},
        {"call": "disk", "args": ["/dev/shm"], "value": {"total": 64 << 20, "free": 64 << 20}},
        {"call": "env", "args": [], "value": {"NCCL_P2P_LEVEL": "NVL", "CUDA_VISIBLE_DEVICES": "0,1"}},
        {"call": "read", "args": ["/proc/modules"],
         "value": "nvidia_peermem 16384 0 - Live 0x0\nnvidia 1 2 - Live 0x0\n"},
        {"call": "listdir", "args": ["/sys/class/infiniband"], "value": ["mlx5_0"]},
        {"call": "listdir", "args": ["/sys/class/infiniband/mlx5_0/ports"], "value": ["1"]},
        {"call": "read", "args": ["/sys/class/infiniband/mlx5_0/ports/1/state"], "value": "4: ACTIVE\n"},
        {"call": "read", "args": ["/sys/class/infiniband/mlx5_0/ports/1/rate"], "value": "400 Gb/sec (4X NDR)\n"},
        *extra,
    ]
    path = tmp_path / "host.json"
    path.write_text(json.dumps({"format": "diagnose.node-recording/1", "answers": answers}))
    return ReplaySession(path)


def facts_of(records):
    return {r.name: r.value for r in records if isinstance(r, HostFact)}


def test_acs_redirect_on_the_switch_above_the_gpu(tmp_path):
    # lspci's ACSCtl format; ReqRedir+/CmpltRedir+ send peer traffic up to the root complex
    records = host.collect(session(tmp_path, "ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ "
                                             "EgressCtrl- DirectTrans-"))
    f = facts_of(records)
    assert f["acs_enabled_bridges"] == [SWITCH_PORT]
    links = {l.bus_id: l for l in records if isinstance(l, PcieLinkFact)}
    assert set(links) == {GPU, SWITCH_PORT, ROOT_PORT}
    assert (links[GPU].cap_speed_gts, links[GPU].sta_speed_gts, links[GPU].sta_width) == (32.0, 2.5, 16)
    assert links[SWITCH_PORT].is_bridge and links[SWITCH_PORT].acs_redirect_enabled
    assert links[ROOT_PORT].acs_redirect_enabled is None  # lspci failed there: unknown, not "off"
    assert f["iommu"] == "pt" and f["shm_bytes"] == 64 << 20
    assert f["gdr_module"] == "loaded" and f["ib_active_ports"] == 1
    assert NcclSetting("probe:host:env", "NCCL_P2P_LEVEL", "NVL") in records


def test_acs_disabled_as_lspci_prints_it_in_ticket_032(tmp_path):
    # ../shared/tickets/032-.../attachment3.txt: "ACSCtl: SrcValid- ..."
    f = facts_of(host.collect(session(tmp_path, "ACSCtl: SrcValid- ...")))
    assert f["acs_enabled_bridges"] == []


def test_acs_unknown_without_root(tmp_path):
    f = facts_of(host.collect(session(tmp_path, "Capabilities: <access denied>")))
    assert f["acs_enabled_bridges"] is None


def test_fabric_manager_checked_only_with_nvswitch(tmp_path):
    s = session(tmp_path, "", extra=[{"call": "run", "args": ["systemctl", "is-active", "nvidia-fabricmanager"],
                                      "value": "inactive\n"}])
    assert "fabric_manager" not in facts_of(host.collect(s))
    assert facts_of(host.collect(s, nvswitch=True))["fabric_manager"] == "not_running"


def test_kernel_log_xid_from_a_real_dmesg(tmp_path):
    # tests/data/hardware/real/dmesg_xid79_fallen_off_bus_akash209.txt is `dmesg -T | grep NVRM` from a
    # real node: the same lines our kernel-log reading keeps
    from pathlib import Path

    from diagnose.evidence import Facts, XidEvent
    from rules.engine import evaluate

    real = Path(__file__).parent / "data" / "hardware" / "real" / "dmesg_xid79_fallen_off_bus_akash209.txt"
    lines = real.read_text().splitlines(keepends=True)[1:]  # without the shell prompt line
    s = session(tmp_path, "", extra=[{"call": "run_grep", "args": [host.KERNEL_LOG_LINES, "dmesg"],
                                      "value": "".join(lines)}])
    records = host.collect(s)
    (xid,) = [r for r in records if isinstance(r, XidEvent)]
    assert xid.xid == 79 and xid.bus_id.startswith("0000:a1:00") and xid.source.startswith("probe:host:dmesg:")
    facts = Facts()
    facts.add(records)
    assert any(f.category == "hardware_fault" and f.severity == "critical" for f in evaluate(facts))


def test_kernel_log_unreadable_without_root_falls_back_then_says_so(tmp_path):
    s = session(tmp_path, "", extra=[
        {"call": "run_grep", "args": [host.KERNEL_LOG_LINES, "dmesg"], "error": "ExitCode1"},
        {"call": "run_grep", "args": [host.KERNEL_LOG_LINES, "journalctl", "-k", "-b", "--no-pager", "-q"],
         "error": "CommandNotFound"}])
    assert facts_of(host.collect(s))["kernel_log"] == "unreadable"
