"""Replays of recordings transcribed from real nvidia-smi / nvtop / NCCL outputs (see each file's
meta and tests/recordings/transcribe.py) give the findings a human reading that output gives."""

import json
from pathlib import Path

import pytest
from conftest import shared_path

from diagnose.evidence import GpuFact, NvLinkFact, P2PStatus, PairBandwidth, TopologyPath
from diagnose.pipeline import run_pipeline
from probes import runner
from probes.recording import ReplaySession
from rules.engine import node_verdict

RECORDINGS = Path(__file__).parent / "recordings"


def replay(name):
    facts = runner.run(ReplaySession(RECORDINGS / name))
    report = run_pipeline("node", {}, facts, decide=node_verdict)  # as `diagnose node --replay` runs it
    return facts, report.findings, report.verdict


def by_rule(findings, rule):
    return [f for f in findings if f.rule == rule]


@pytest.mark.parametrize("path", sorted(RECORDINGS.glob("*.json")), ids=lambda p: p.name)
def test_every_recording_says_where_it_came_from_and_what_it_lacks(path):
    meta = json.loads(path.read_text())["meta"]
    if "recorded_by" in meta:  # recorded live by diagnose node --record
        assert meta["hostname"] and meta["recorded_at"]
    elif "../shared/tickets/" in meta["transcribed_from"]:
        assert meta["absent"]
    else:  # a public source: its URL, and the excerpt quoted in the recording or kept in tests/data
        assert meta["transcribed_from"].startswith("https://github.com/") and meta["absent"] and meta["source_text"]


# The criticals a person reading each recording's source output would raise, written from that
# output (see each file's meta), not from what the tool says. Anything else critical is a false alarm.
HUMAN_CRITICALS = {
    "2x-a100-sxm-one-gpu-in-mig-mode.json": set(),  # one GPU partitioned with MIG, the other busy: normal
    "2x-gtx1080ti-pcie-gen1-reading.json": set(),  # Gen1 on an idle GeForce is power saving
    "2x-l4-pcie-two-sockets-p2p-ok.json": set(),  # simpleP2P: peer access Yes both ways
    "2x-rtx5090-pcie-p2p-gns.json": set(),  # GNS on GeForce is how the stock driver ships
    "2x-rtx2080-smi-qx-idle-x8.json": set(),  # two idle desktop cards at Gen1 x8: no load on the link
    "a10g-vm-smi-qx-idle-x8.json": set(),  # an idle A10G in a VM at x8: no load on the link
    "t4-vm-smi-qx-x8-no-load.json": set(),  # a T4 in a VM at 0 %: x8 read without load
    "4x-l40s-pcie-two-sockets.json": set(),  # a plain two-socket PCIe server
    "8x-a40-nvlink-pairs-two-sockets.json": set(),  # socket crossing is slower, nothing broken
    "8x-rtx4090-smi-q-idle-and-loaded.json": set(),  # idle GPU at Gen1, busy GPU at Gen4 on its power cap
    "dgx-h100-topo-numa.json": set(),  # every pair NV18
    "hgx-a100-nvlink-p2p-level-loc.json": {"topology.p2p_forced_off"},  # NCCL_P2P_LEVEL=LOC forces SHM
    "hgx-h100-nvlink-status-mig-disabled.json": set(),  # 18 links up on each GPU
    "hgx-h100-smi-p2p-bidirectional.json": set(),  # ~83% of NVLink bidirectional is healthy
    "hgx-h800-fabric-in-progress.json": set(),  # fabric still registering: wait, not yet a fault
    "h100-vm-rhel-ai-topo-nvlink.json": set(),  # eight H100 SXM in a VM, every pair NV18
    "h200-vm-one-gpu-smi-q.json": set(),  # one healthy H200 passed through to a VM
    "h200-vm-one-gpu-live-record.json": set(),  # recorded live on a lent H200 alone in a VM: healthy
    "h200-vm-one-gpu-5-replays-record.json": set(),  # another lent H200: 5 PCIe replays since reset, healthy
    "h200-vm-one-gpu-2-replays-uptime-record.json": set(),  # 2 replays 44 s after boot: within DCGM's rate
    "h200-vm-one-gpu-reread-record.json": set(),  # no replay before or after the measurements: healthy
    "recorded-vm-without-driver.json": {"node.no_gpu"},  # no driver, no GPU: cannot serve
    "workstation-2gpu-nvlink-bridge-slow-driver.json": set(),  # 112 s nvidia-smi: suspicious, not proof
}


@pytest.mark.parametrize("path", sorted(RECORDINGS.glob("*.json")), ids=lambda p: p.name)
def test_no_replay_raises_a_critical_a_human_would_not(path):
    assert path.name in HUMAN_CRITICALS, f"write down what a human reading {path.name}'s source would call critical"
    _, findings, _ = replay(path.name)
    assert {f.rule for f in findings if f.severity == "critical"} == HUMAN_CRITICALS[path.name]


def test_a_healthy_pcie_pair_is_not_called_p2p_disabled():
    # simpleP2P: peer access Yes both ways between two L4s on different sockets; NVML's NVLINK
    # capability answers NS for the pair (it has no NVLink), which says nothing about P2P.
    facts, findings, v = replay("2x-l4-pcie-two-sockets-p2p-ok.json")
    assert {p.capability for p in facts.of(P2PStatus)} == {"read", "write"}
    (p2p,) = by_rule(findings, "topology.p2p_status")
    assert p2p.severity == "ok"
    assert not [f for f in findings if f.category == "p2p_disabled"]
    assert {g.index: g.numa_node for g in facts.of(GpuFact)} == {0: 0, 1: 2}


def test_p2p_off_by_design_on_geforce_is_info():
    facts, findings, _ = replay("2x-rtx5090-pcie-p2p-gns.json")
    (p2p,) = by_rule(findings, "topology.p2p_status")
    assert p2p.severity == "info" and "GNS" in p2p.summary
    assert any("pcie_p2p = false" in e.detail for e in p2p.evidence)


def test_a_mig_gpu_is_seen_and_not_judged_for_nvlink_or_p2p():
    facts, findings, _ = replay("2x-a100-sxm-one-gpu-in-mig-mode.json")
    assert {g.index: g.mig_mode for g in facts.of(GpuFact)} == {0: False, 1: True}
    assert not [f for f in findings if f.severity == "critical"]


def test_a_mig_gpu_is_named_as_no_tp_peer():
    """ut10b #5: the replay said healthy and asked for topo -m for '2 GPUs working together', while its
    source's own reading is that GPU1 (MIG) is not a TP peer. Now a warning names GPU1, and with one
    TP-capable GPU left nothing asks how the GPUs connect. A node whose GPUs report MIG Disabled, and a
    lone MIG GPU (a -q -x paste of one A100), get no such warning."""
    _, findings, verdict = replay("2x-a100-sxm-one-gpu-in-mig-mode.json")
    (mig,) = by_rule(findings, "topology.mig_gpus")
    assert (mig.severity, mig.category) == ("warning", "p2p_disabled") and mig.title.startswith("GPU1 is in MIG")
    assert verdict.category == "p2p_disabled"
    assert not by_rule(findings, "workload.evidence_coverage")
    facts, findings, _ = replay("hgx-h100-nvlink-status-mig-disabled.json")
    assert {g.mig_mode for g in facts.of(GpuFact)} == {False} and not by_rule(findings, "topology.mig_gpus")
    from conftest import report_json

    alone = report_json("ticket", RECORDINGS.parent / "data" / "hardware" / "real" / "smi_qx_a100_sxm4_mig_535.xml")
    (note,) = [f for f in alone["findings"] if f["rule"] == "topology.mig_gpus"]
    assert note["severity"] == "info" and alone["verdict"]["category"] == "healthy"


def test_dgx_h100_topo_numa():
    # topo -m: every pair NV18, GPU0-3 on NUMA 0 (CPUs 0-55,112-167), GPU4-7 on NUMA 1.
    # A reader says: NVLink is fine for any TP size; pin each rank to its GPU's socket.
    facts, findings, v = replay("dgx-h100-topo-numa.json")
    paths = facts.of(TopologyPath)
    assert len(paths) == 28 and {p.path for p in paths} == {"NV18"}
    # where the GPUs sit is inventory: context for the other findings, not a root cause by itself
    assert v.category == "healthy"
    numa = by_rule(findings, "node.numa_placement")[0]
    assert "GPU0,1,2,3 on NUMA node 0" in numa.title and "GPU4,5,6,7 on NUMA node 1" in numa.title
    tp = by_rule(findings, "node.tp_groups")[0]
    assert tp.severity == "ok" and "TP 2, 4, 8" in tp.title
    assert not [f for f in findings if f.severity in ("critical", "warning")]
    assert facts.host("fabric_manager").value == "unknown"  # NVSwitch seen, service state not in the source


def test_a100_nvlinks_up_but_p2p_level_loc():
    # nvlink -s: all 12 links of GPU0 up at 25 GB/s; NCCL: "NCCL_P2P_LEVEL set by environment to LOC".
    # A reader says: the links are fine, the environment variable forces SHM.
    facts, findings, v = replay("hgx-a100-nvlink-p2p-level-loc.json")
    gpu0 = [link for link in facts.of(NvLinkFact) if link.gpu == 0]
    assert len(gpu0) == 12 and all(link.active and link.speed_gbs == 25.0 for link in gpu0)
    assert v.category in ("shm_fallback", "p2p_disabled")
    top = findings[0]
    assert top.severity == "critical" and "LOC" in top.title
    assert any(e.source == "probe:host:env" for e in top.evidence)


def test_nvlink_bridge_workstation_with_a_stalling_driver():
    # topo -m: GPU0-GPU1 NV3, and the reporter says the command took 112 s.
    # A reader says: the bridge is detected but something is wrong with it (links retraining).
    facts, findings, v = replay("workstation-2gpu-nvlink-bridge-slow-driver.json")
    assert [p.path for p in facts.of(TopologyPath)] == ["NV3"]
    assert v.category == "nvlink_down"
    slow = by_rule(findings, "node.slow_driver")[0]
    assert slow.severity == "warning" and slow.evidence[0].measured == 112.0
    # ut10b #6: one story. The links' states are a snapshot (here, what topo -m's NV3 implies); a link
    # that retrains reads active between failures, so they are no passed check beside the stall, and
    # the finding asks for the link counters and persistence that would tell.
    assert not by_rule(findings, "topology.nvlink_links")
    assert "nvlink -e" in slow.fix and "persistence" in slow.fix


@pytest.mark.parametrize("persistence, passes", [(0, True), (1, False)])
def test_active_links_pass_beside_a_stall_only_where_persistence_explains_it(tmp_path, persistence, passes):
    """Persistence reported off explains a slow NVML (each client re-initialises the GPUs): the active
    links then pass. With persistence on, the stall points at the links, and their snapshot does not pass."""
    _, findings, _ = replay(_h100_with_slow_init(tmp_path, 45.0, persistence))
    assert [f.severity for f in by_rule(findings, "topology.nvlink_links")] == (["ok"] if passes else [])


def _h100_with_slow_init(tmp_path, seconds, persistence):
    """The HGX H100 recording (persistence Off on GPU0, all 18 links of each GPU active) with a slow nvmlInit."""
    data = json.loads((RECORDINGS / "hgx-h100-smi-p2p-bidirectional.json").read_text())
    for answer in data["answers"]:
        if answer["call"] == "nvmlInit":
            answer["seconds"] = seconds
        if answer["call"] == "nvmlDeviceGetPersistenceMode":
            answer["value"] = persistence
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(data))
    return path  # absolute: replay()'s RECORDINGS / path is this path


@pytest.mark.parametrize("seconds, persistence, category", [
    (45.0, 0, "other"),          # persistence off, every link active: a cold start each time, not a link fault
    (45.0, 1, "nvlink_down"),    # persistence on rules out re-initialisation; the NVLinks remain
    (20.0, 0, None),             # within 8 GPUs x 3 s of documented cold start: no finding
])
def test_slow_driver_weighs_persistence_against_links(tmp_path, seconds, persistence, category):
    _, findings, _ = replay(_h100_with_slow_init(tmp_path, seconds, persistence))
    slow = by_rule(findings, "node.slow_driver")
    if category is None:
        assert not slow
        return
    (f,) = slow
    assert f.category == category
    assert (f.evidence[0].measured, f.evidence[0].expected) == (seconds, 24.0)  # the threshold it was held to
    assert all(e.expected is not None for e in f.evidence if e.measured in ("off", "inactive"))


def test_slow_driver_with_persistence_off_and_a_link_down_says_both(tmp_path):
    """Persistence reported off and an NVLink inactive: the finding names both as measured, never
    'persistence mode was not reported' (r12 review: the text said so while GPU0 read 'off')."""
    path = _h100_with_slow_init(tmp_path, 45.0, 0)
    data = json.loads(path.read_text())
    for answer in data["answers"]:
        if answer["call"] == "nvmlDeviceGetNvLinkState" and answer["args"] == [0, 0]:
            answer["value"] = 0
    path.write_text(json.dumps(data))
    _, findings, _ = replay(path)
    (f,) = by_rule(findings, "node.slow_driver")
    assert f.category == "nvlink_down"
    assert "not reported" not in f.summary and "Persistence mode is off" in f.summary
    shown = {(e.detail, e.measured, e.expected) for e in f.evidence}
    assert {("GPU0 NVLink 0", "inactive", "active"), ("GPU0 persistence mode", "off", "on")} <= shown
    assert "nvidia-smi -pm 1" in f.fix


def test_slow_driver_with_persistence_on_and_no_nvlink_does_not_ask_to_enable_it(tmp_path):
    """One H200 (VM), persistence on as recorded, no NVLink, nvmlInit 10 s: not a cold start, so the
    fix is not 'enable persistence' (r12 review: it was, beside an NVLink check on a box without one)."""
    data = json.loads((RECORDINGS / "h200-vm-one-gpu-smi-q.json").read_text())
    for answer in data["answers"]:
        if answer["call"] == "nvmlInit":
            answer["seconds"] = 10.0
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(data))
    _, findings, _ = replay(path)
    (f,) = by_rule(findings, "node.slow_driver")
    assert f.category == "other"
    assert "-pm 1" not in f.fix and "nvlink" not in f.fix.lower() and "not being initialised" in f.summary
    assert ("GPU0 persistence mode", "on") in {(e.detail, e.measured) for e in f.evidence}
    assert (f.evidence[0].measured, f.evidence[0].expected) == (10.0, 3.0)


def test_gtx1080ti_gen1_reading_is_not_called_degraded():
    # nvtop: GPU0 GEN 3@16x, GPU1 GEN 1@16x, nothing about load. A reader says: an idle GPU drops to
    # Gen1 to save power; re-check under load before calling the link degraded.
    facts, findings, v = replay("2x-gtx1080ti-pcie-gen1-reading.json")
    gens = {g.index: g.pcie_gen_current for g in facts.of(GpuFact)}
    assert gens == {0: 3, 1: 1}
    assert not [f for f in findings if f.category == "pcie_link_degraded" and f.severity in ("critical", "warning")]
    assert v.category in ("healthy", "insufficient_data")


def test_unknown_gpu_links_name_the_probe_that_saw_the_gpus():
    """Two GPUs, no topology: the insufficient-data finding cites where the GPUs were seen, not 'ticket'."""
    facts, findings, _ = replay("2x-gtx1080ti-pcie-gen1-reading.json")
    (f,) = by_rule(findings, "workload.evidence_coverage")
    # (s14: a board without NVLink adds the catalog's word for it, and the ask names no `nvlink -s`)
    e, board = f.evidence
    assert e.measured == 2
    assert e.source in {g.source for g in facts.of(GpuFact)} and e.source.startswith("probe:")
    assert board.detail.startswith("catalog ") and board.detail.endswith("no NVLink links")
    assert "nvlink -s" not in f.fix


def test_hgx_h100_p2p_matrix_is_healthy_nvlink_efficiency():
    # p2pBandwidthLatencyTest: ~740-773 GB/s bidirectional on every pair of an 8x H100 NVSwitch box, and
    # nvidia-smi shows P0, 88 W of 700 W, no ECC errors. A reader says: healthy, ~83% of 900 GB/s is normal.
    facts, findings, v = replay("hgx-h100-smi-p2p-bidirectional.json")
    pairs = facts.of(PairBandwidth)
    assert len(pairs) == 56 and min(p.value for p in pairs) == pytest.approx(739.42)
    gpu0 = facts.of(GpuFact)[0]
    assert (gpu0.name, gpu0.bus_id, gpu0.power_limit_w, gpu0.persistence_mode) == (
        "NVIDIA H100 80GB HBM3", "0000:18:00.0", 700.0, False)
    assert gpu0.catalog_key is not None  # the NVML name maps onto the catalog
    assert v.category in ("healthy", "expected_physics")
    assert not [f for f in findings if f.severity in ("critical", "warning")]


def test_a40_nvlink_pairs_on_two_sockets():
    # p2pBandwidthLatencyTest with P2P: NVLink pairs 0-1, 2-3 at ~101 GB/s, same-socket PCIe ~50, pairs
    # crossing to GPU4-7 ~40. A reader says: the socket boundary is the slow hop an 8-GPU ring must take.
    facts, findings, v = replay("8x-a40-nvlink-pairs-two-sockets.json")
    enabled = [p for p in facts.of(PairBandwidth) if p.p2p_enabled]
    assert {(p.a, p.b) for p in enabled if p.value > 100} == {(0, 1), (1, 0), (2, 3), (3, 2)}
    assert v.category == "numa_affinity"
    assert not [f for f in findings if f.severity == "critical"]


def test_recorded_vm_without_a_driver():
    # recorded on the development VM (no NVIDIA driver, no GPU) with diagnose node --record
    facts, findings, v = replay("recorded-vm-without-driver.json")
    assert facts.host("nvml").value == "LibraryNotFound"
    assert facts.host("shm_bytes").value > 0 and facts.host("pci_nvidia_gpus").value == []
    assert by_rule(findings, "node.no_gpu")[0].severity == "critical"
    assert v.category == "insufficient_data" and "No NVIDIA driver" in v.summary


def test_fabric_still_registering_is_a_warning_not_a_critical():
    # nvidia-smi -q of an HGX H800: Fabric State In Progress, Status N/A (fabric manager not done).
    facts, findings, _ = replay("hgx-h800-fabric-in-progress.json")
    g = facts.of(GpuFact)[0]
    assert (g.fabric_state, g.fabric_status) == ("In Progress", None)
    (f,) = by_rule(findings, "topology.fabric_manager")
    assert f.severity == "warning" and "In Progress" in f.title


def test_rtx4090_idle_gen1_and_busy_gen4_on_its_power_cap():
    facts, findings, v = replay("8x-rtx4090-smi-q-idle-and-loaded.json")
    gpus = {g.bus_id: g for g in facts.of(GpuFact)}
    idle, busy = gpus["0000:01:00.0"], gpus["0000:23:00.0"]
    assert (idle.pcie_gen_current, idle.clock_event_reasons) == (1, ["idle"])
    assert (busy.pcie_gen_current, busy.utilization_pct, busy.clock_event_reasons) == (4, 97, ["sw_power_cap"])
    assert idle.catalog_key == "rtx-4090" and idle.pci_device_id == "0x2684"
    assert not [f for f in findings if f.severity == "critical"]
    assert not [f for f in findings if f.category == "pcie_link_degraded" and f.is_problem]


def test_one_h200_passed_through_to_a_vm_is_healthy():
    facts, findings, v = replay("h200-vm-one-gpu-smi-q.json")
    (g,) = facts.of(GpuFact)
    assert (g.catalog_key, g.virtualization_mode, g.fabric_state, g.fabric_status) == (
        "h200-sxm", "Pass-Through", "Completed", "Success")
    assert v.category == "healthy" and not [f for f in findings if f.is_problem]


def test_an_undecided_node_run_names_the_checks_that_did_not_run_not_a_ticket_attachment(tmp_path):
    """4x L40S transcribed from topo -m: the report prints that matrix and builds node.tp_groups from it,
    so the verdict must not ask to attach `nvidia-smi topo -m`; it names the checks without a measurement
    and the command that runs them."""
    from click.testing import CliRunner

    from diagnose.cli import cli

    result = CliRunner().invoke(cli, ["node", "--replay", str(RECORDINGS / "4x-l40s-pcie-two-sockets.json"), "--json"])
    report = json.loads(result.stdout)
    summary = report["verdict"]["summary"]
    assert (report["verdict"]["category"] == "insufficient_data"
            and "node.tp_groups" in {f["rule"] for f in report["findings"]})
    assert "topo -m" not in summary and "attach" not in summary
    assert ("collective sweep" in summary and "topology.pair_bandwidth" in summary
            and "diagnose node --standard" in summary)


def test_a_cut_nvlink_paste_leaves_the_cut_gpu_not_reported_and_nvswitch_unknown():
    """Review item 11: ticket 010's `nvidia-smi nvlink -s` stops with '...' after GPU 1's link 0. That
    GPU's links are not reported (never "1 link"), and a recording with neither NVML link ends nor
    a PCI listing does not know whether the box has NVSwitches (it said "nvswitch no" for an HGX)."""
    source = shared_path("tickets", "010-nccl-tests-228-a100-p2p-level-loc-forces-shm",
                         "attachment1.txt").read_text().splitlines()
    assert source[-1].strip() == "..." and source[-2].strip() == "Link 0: 25 GB/s"
    facts, findings, _ = replay("hgx-a100-nvlink-p2p-level-loc.json")
    assert {link.gpu for link in facts.of(NvLinkFact)} == {0}
    assert len(facts.of(NvLinkFact)) == sum(1 for line in source[:13] if "GB/s" in line) == 12
    assert facts.host("nvswitch").value is None
    (links,) = by_rule(findings, "topology.nvlink_links")
    assert "GPU 1" not in links.title and "GPU 1" not in links.evidence[0].detail


def test_gpus_on_a_replay_keep_only_what_was_measured_on_them():
    """ut10b #12: `--gpus 0,0` quietly became GPU 0, and on one GPU topology.pair_bandwidth passed on
    the recording's 56 pairs of other GPUs. A repeated index is bad usage; a replay keeps the pairs
    (and collective groups) measured within the GPUs chosen."""
    from conftest import diagnose

    rec = RECORDINGS / "hgx-h100-smi-p2p-bidirectional.json"
    twice = diagnose("node", "--replay", rec, "--gpus", "0,0")
    assert twice.exit_code == 2 and "GPU 0 given more than once" in twice.stderr and twice.stdout == ""
    for chosen, pairs in (("0", 0), ("0,1", 2), (None, 56)):
        args = ("node", "--replay", rec, "--json", "--fail-on", "never") + (("--gpus", chosen) if chosen else ())
        report = json.loads(diagnose(*args).stdout)
        kept = report["facts"].get("pair_bandwidth", [])
        assert len(kept) == pairs, (chosen, len(kept))
        assert bool(by_rule_json(report, "topology.pair_bandwidth")) == bool(pairs), chosen


def by_rule_json(report: dict, rule: str) -> list[dict]:
    return [f for f in report["findings"] if f["rule"] == rule]

