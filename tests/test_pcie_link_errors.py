"""PCIe link errors as evidence (issue 11): the kernel's AER reports parsed from a pasted or attached kernel log
(diagnose.artifacts.dmesg), nvidia-smi -q's replay counters, and the reporter's words, judged by ticket.pcie_errors.

Every log here is a real paste, cut to the lines that matter, with its thread's address. A report logged by a GPU's
driver, or a GPU in the recovery that follows an uncorrected error, is the GPU's link; one logged by a NIC's, a drive's
or a WiFi card's driver is that device's, not a GPU's; one only a root port logged, with no GPU bus id to say what sits
below it, stays a lead. The words: vllm-project/vllm#14628 (dual RTX 5090 freezing under TP=2, fixed by forcing the
slots to Gen4) was answered p2p_disabled before this family existed.
"""

import json
from pathlib import Path

from conftest import report_json

from diagnose.artifacts import dmesg, smi_query
from diagnose.evidence import GpuFact, Note
from rules import claims

UT19 = Path(__file__).parent / "data" / "ut19"

# rwth-i6/returnn#1500 (https://github.com/rwth-i6/returnn/issues/1500): a training job hung; the root port above the
# GPU reports an uncorrected fatal error and the nvidia driver's device is in the recovery
RETURNN_1500 = """\
[  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)
[  +0.000001] snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)
[  +0.000008] pcieport 0000:00:03.0: AER: device recovery failed
[  +0.000001] pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0
[  +0.000004] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, \
(Requester ID)
[  +0.000898] pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000
[  +0.000889] pcieport 0000:00:03.0:    [ 5] SDES
[  +0.000894] pcieport 0000:00:03.0:    [14] CmpltTO                (First)
"""

# rwth-i6/returnn#1486 (https://github.com/rwth-i6/returnn/issues/1486): the process hangs; only the root port logs
# corrected replay timeouts
RETURNN_1486 = """\
[  +0.000316] pcieport 0000:00:03.0: AER: Corrected error received: 0000:00:03.0
[  +0.000005] pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)
[  +0.000003] pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00001000/00002000
[  +0.000004] pcieport 0000:00:03.0:    [12] Timeout
"""

# FrameworkComputer/SoftwareFirmwareIssueTracker#41
# (https://github.com/FrameworkComputer/SoftwareFirmwareIssueTracker/issues/41): an NVMe drive's link
FRAMEWORK_41 = """\
pcieport 0000:00:02.1: AER: Correctable error message received from 0000:bf:00.0
nvme 0000:bf:00.0: PCIe Bus Error: severity=Correctable, type=Physical Layer, (Receiver ID)
nvme 0000:bf:00.0:   device [15b7:5017] error status/mask=00000001/0000e000
pcieport 0000:00:02.1: AER: Correctable error message received from 0000:00:02.1
pcieport 0000:00:02.1: PCIe Bus Error: severity=Correctable, type=Data Link Layer, (Transmitter ID)
pcieport 0000:00:02.1:   device [1022:150b] error status/mask=00001000/00006000
"""

# Dasharo/dasharo-issues#639 (https://github.com/Dasharo/dasharo-issues/issues/639): a WiFi card's link
DASHARO_639 = """\
[   62.396809] pcieport 0000:00:1c.0: AER: Corrected error received: 0000:2d:00.0
[   62.396839] ath9k 0000:2d:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)
[   62.396846] ath9k 0000:2d:00.0:   device [168c:0034] error status/mask=00000001/00002000
[   62.396890] ath9k 0000:2d:00.0:    [ 0] RxErr                  (First)
"""

# Red Hat solution 56302 (https://access.redhat.com/solutions/56302), RHEL 6: the older kernels' names for the bits
REDHAT_56302 = """\
hpsa 0000:04:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=0400(Transmitter ID)
hpsa 0000:04:00.0:   device [103c:323a] error status/mask=000011c1/00000000
hpsa 0000:04:00.0:    [ 0] Receiver Error         (First)
hpsa 0000:04:00.0:    [ 6] Bad TLP
hpsa 0000:04:00.0:    [ 7] Bad DLLP
hpsa 0000:04:00.0:    [ 8] RELAY_NUM Rollover
hpsa 0000:04:00.0:    [12] Replay Timer Timeout
"""

# MrChromebox/firmware#358 (https://github.com/MrChromebox/firmware/issues/358): newer kernels put "AER:" on every line
CHROMEBOX_358 = """\
Jun  8 12:15:39 bandicoot kernel: [  754.201078] pcieport 0000:00:1c.0: AER: Corrected error received: 0000:00:1c.0
Jun  8 12:15:39 bandicoot kernel: [  754.201089] pcieport 0000:00:1c.0: AER: PCIe Bus Error: severity=Corrected, \
type=Data Link Layer, (Transmitter ID)
Jun  8 12:15:39 bandicoot kernel: [  754.201097] pcieport 0000:00:1c.0: AER:   device [8086:9c14] error \
status/mask=00001000/00002000
Jun  8 12:15:39 bandicoot kernel: [  754.201102] pcieport 0000:00:1c.0: AER:    [12] Timeout
"""


def aer(text: str) -> list[Note]:
    return [r for r in dmesg.parse(text, "dmesg.txt") if isinstance(r, Note) and r.kind.startswith("pcie_aer")]


def ticket(tmp_path, body: str, logs: str = "") -> dict:
    issue = tmp_path / "issue.md"
    issue.write_text(body + (f"\n\n```\n{logs}```\n" if logs else ""))
    return report_json("ticket", str(issue))


def pcie(r: dict) -> dict | None:
    return next((f for f in r["findings"] if f["rule"] == "ticket.pcie_errors"), None)


# --------------------------------------------------------------------------- the parser

def test_aer_reports_parse_with_their_device_severity_and_bits():
    assert dmesg.detect(RETURNN_1486) >= 0.5 and dmesg.detect(FRAMEWORK_41) >= 0.5
    notes = aer(DASHARO_639)
    assert [(n.data["driver"], n.data["bus_id"], n.data["source_bus_id"]) for n in notes] == [
        ("pcieport", "0000:00:1c.0", "0000:2d:00.0"), ("ath9k", "0000:2d:00.0", None)]
    assert notes[1].data["severity"] == "Corrected" and notes[1].data["layer"] == "Physical Layer"
    assert notes[1].data["errors"] == ["RxErr"]
    assert aer(REDHAT_56302)[0].data["errors"] == ["Receiver Error", "Bad TLP", "Bad DLLP", "RELAY_NUM Rollover",
                                                  "Replay Timer Timeout"]
    (received, bus_error) = aer(CHROMEBOX_358)
    assert bus_error.data["driver"] == "pcieport" and bus_error.data["errors"] == ["Timeout"]
    assert aer(FRAMEWORK_41)[0].data["source_bus_id"] == "0000:bf:00.0"  # "message received from", kernel 6.x
    recovery = [n for n in aer(RETURNN_1500) if n.kind == "pcie_aer_recovery"]
    assert [(n.data["driver"], n.data["bus_id"]) for n in recovery] == [("nvidia", "0000:03:00.0"),
                                                                        ("snd_hda_intel", "0000:03:00.1")]
    # negation: an Xid log without AER lines gives no AER Note; an lspci capability list naming AER is no report
    assert not aer("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n")
    assert not aer("\tCapabilities: [100 v2] Advanced Error Reporting\n\t\tUESta:\tDLP- SDES- TLP- FCP-\n")


SMI_Q = Path(__file__).parent / "data" / "hardware" / "real" / "smi_q_rtx4090_x8_535.txt"


def test_smi_query_reads_both_replay_counters(tmp_path):
    text = SMI_Q.read_text()
    gpus = [g for g in smi_query.parse(text, "smi.txt") if hasattr(g, "pcie_replay_rollovers")]
    assert gpus and all(g.pcie_replay_counter == 0 and g.pcie_replay_rollovers == 0 for g in gpus)
    # the same section with the counters a failing link shows: read as numbers, and the rule names them
    failing = text.replace("Replays Since Reset               : 0", "Replays Since Reset               : 4127", 1)
    failing = failing.replace("Replay Number Rollovers           : 0", "Replay Number Rollovers           : 3", 1)
    assert [(g.pcie_replay_counter, g.pcie_replay_rollovers) for g in smi_query.parse(failing, "smi.txt")
            if hasattr(g, "pcie_replay_rollovers")][0] == (4127, 3)
    (tmp_path / "smi_q.txt").write_text(failing)
    (tmp_path / "issue.md").write_text("Two RTX 4090 with vLLM TP=2 are slow.\n")
    f = pcie(report_json("ticket", str(tmp_path)))
    assert f and f["category"] == "pcie_link_degraded" and f["confidence"] == 0.6
    assert any(e["measured"] == 4127 and "3 replay number rollovers" in e["detail"] for e in f["evidence"])
    # zero counters under an unrelated complaint: nothing (a healthy link neither explains nor clears the ticket)
    (tmp_path / "smi_q.txt").write_text(text)
    assert pcie(report_json("ticket", str(tmp_path))) is None


# --------------------------------------------------------------------------- the rule on pasted logs

def test_gpu_in_an_uncorrected_errors_recovery_is_the_gpus_link(tmp_path):
    r = ticket(tmp_path, "Training with 2 GPUs hangs after a few hours; dmesg shows:", RETURNN_1500)
    f = pcie(r)
    assert f and f["category"] == "pcie_link_degraded" and f["confidence"] == 0.7
    assert any("0000:03:00.0" in e["detail"] for e in f["evidence"])
    assert "lspci" in f["fix"] and "nvidia-smi -q -d PCIE" in f["fix"]


def test_root_port_alone_stays_a_lead(tmp_path):
    r = ticket(tmp_path, "PyTorch distributed training on 4 GPUs hangs in all_reduce; dmesg shows:", RETURNN_1486)
    f = pcie(r)
    assert f and f["category"] == "pcie_link_degraded" and f["confidence"] == 0.5
    assert "not shown" in f["title"]


def test_errors_on_a_drive_or_wifi_card_are_not_a_gpus(tmp_path):
    for log, driver in ((FRAMEWORK_41, "nvme"), (DASHARO_639, "ath9k"), (REDHAT_56302, "hpsa")):
        f = pcie(ticket(tmp_path, "vLLM with TP=2 on two RTX 4090 is slow. dmesg shows:", log))
        assert f and f["category"] == "healthy" and driver in f["title"], (driver, f)
        assert f"logged by {driver} " in f["evidence"][0]["detail"]  # the device's own report, not its root port's


def test_pcie_bus_error_is_not_a_shared_memory_bus_error(tmp_path):
    r = ticket(tmp_path, "vLLM with TP=2 hangs on two RTX 5090. dmesg shows:", DASHARO_639.replace("ath9k", "nvidia"))
    assert not any(f["rule"] == "ticket.shm_error" for f in r["findings"])
    assert r["verdict"]["category"] == "pcie_link_degraded"
    # the signal itself is still a shared-memory failure
    assert claims.states("shm_error", "The worker died with Bus error (core dumped) inside docker.")


# --------------------------------------------------------------------------- the reporter's words

def test_vllm_14628_forced_gen4_fix_is_the_cause():
    r = report_json("ticket", str(UT19 / "vllm14628.md"))
    assert r["verdict"]["category"] == "pcie_link_degraded"
    f = pcie(r)
    assert "forcing both GPU slots from Auto to Gen4" in f["evidence"][0]["detail"]


def test_words_for_link_errors_and_their_negations():
    said = ["There are lots of AER errors in dmesg when both GPUs are busy.",
            "We see PCIe bus errors under load.",
            "The replay counter keeps climbing during the benchmark.",
            "Replays Since Reset : 4127",
            "It crashes only at Gen5, Gen4 is stable.",
            "I had to force the slots to Gen3 in the BIOS."]
    for text in said:
        assert claims.states("pcie_errors", text), text
    ruled_out = ["No AER errors in dmesg.", "dmesg is clean.", "zero PCIe replay errors after the change",
                 "Replays Since Reset : 0", "there is no PCIe error in the log"]
    for text in ruled_out:
        c = claims._first("pcie_errors", claims.PATTERNS["pcie_errors"], text)
        assert c and c.negated, text
    unrelated = ["I set TP to 4 on the PCIe GPUs.", "The PCIe link is Gen4 x16.", "Bus error (core dumped)",
                 "Gen5 NVMe drives in RAID 0"]
    for text in unrelated:
        assert not claims.states("pcie_errors", text), text


def test_words_ruled_out_pass_and_words_said_warn(tmp_path):
    r = ticket(tmp_path, "Two RTX 4090 with vLLM TP=2 are slow, 20 tok/s. dmesg is clean, no Xid errors.")
    f = pcie(r)
    assert f is None or f["category"] == "healthy"
    r = ticket(tmp_path, "Two RTX 4090 with vLLM TP=2 freeze the host; there are lots of AER errors in dmesg.")
    f = pcie(r)
    assert f and f["category"] == "pcie_link_degraded" and f["confidence"] <= 0.65


# --------------------------------------------------------------------------- a counter is judged as a rate

H200_RUNS = Path(__file__).parent / "recordings"


def _replay_pcie(name):
    from test_node_replays import replay

    facts, findings, verdict = replay(name)
    return facts, [f for f in findings if f.rule == "ticket.pcie_errors"], verdict


def test_a_few_replays_on_a_healthy_h200_are_within_dcgms_limit():
    """Two lent H200s (2026-12-04, scripts/gpu_check.sh): nvidia-smi -q said 5 and 2 "Replays Since Reset". The
    first live run called that node pcie_link_degraded; DCGM allows 8 a minute, and 5 is not a failing link."""
    for name, count in (("h200-vm-one-gpu-5-replays-record.json", 5),
                        ("h200-vm-one-gpu-2-replays-uptime-record.json", 2)):
        smi = (H200_RUNS / "sources" / name.removesuffix("-record.json") / "nvidia-smi-q.txt").read_text()
        assert f"Replays Since Reset                            : {count}" in smi
        facts, (f,), verdict = _replay_pcie(name)
        assert verdict.category == "healthy" and f.severity == "ok" and "within DCGM's limit" in f.title
        (e,) = f.evidence
        assert e.expected == 8
    # the first run's own report, kept as it was, is the false warning this replaced
    live = json.loads((H200_RUNS / "sources" / "h200-vm-one-gpu-5-replays" / "node-standard.json").read_text())
    assert live["verdict"]["category"] == "pcie_link_degraded"
    # with no time base the count is compared with one minute's allowance; with the host's uptime (44 s here) it is
    # a rate of at least count / uptime
    _, (f5,), _ = _replay_pcie("h200-vm-one-gpu-5-replays-record.json")
    assert f5.evidence[0].measured == 5 and f5.evidence[0].unit == "replays" and "no time base" in f5.evidence[0].detail
    facts, (f2,), _ = _replay_pcie("h200-vm-one-gpu-2-replays-uptime-record.json")
    uptime = facts.host("uptime_s").value
    assert 40 < uptime < 50 and f2.evidence[0].unit == "replays/min"
    assert f2.evidence[0].measured == round(2 / (uptime / 60), 3)


def test_a_count_is_a_fault_only_past_dcgms_rate(tmp_path):
    """The same real nvidia-smi -q with the counter set to what a failing link and a long-running healthy one show."""
    from diagnose.evidence import Facts, HostFact
    from rules.ticket_rules import pcie_errors

    text = SMI_Q.read_text()
    for count, expected in ((8, "healthy"), (9, "pcie_link_degraded"), (4127, "pcie_link_degraded")):
        (tmp_path / "smi_q.txt").write_text(text.replace("Replays Since Reset               : 0",
                                                         f"Replays Since Reset               : {count}", 1))
        (tmp_path / "issue.md").write_text("Two RTX 4090 with vLLM TP=2 are slow.\n")
        assert pcie(report_json("ticket", str(tmp_path)))["category"] == expected, count
    # over a known uptime: 4127 in 10 minutes is 413 a minute (a fault); in 30 days, 0.1 a minute (not)
    gpus = [g for g in smi_query.parse(text, "smi.txt") if hasattr(g, "pcie_replay_rollovers")]
    gpus[0].pcie_replay_counter = 4127
    for uptime_s, severity in ((600, "warning"), (30 * 86400, "ok")):
        facts = Facts()
        facts.add(gpus + [HostFact("probe:host:/proc/uptime", "uptime_s", uptime_s)])
        (f,) = list(pcie_errors(facts))
        assert f.severity == severity and f.evidence[-1].unit == "replays/min", uptime_s


def test_a_climb_while_the_node_was_measured_is_a_rate(tmp_path):
    """diagnose node reads each counter again after its measurements (their host copies and collectives the load),
    with the clock at both readings: the real H200 recording, given those two readings, judges the climb."""
    from test_node_replays import replay

    data = json.loads((H200_RUNS / "h200-vm-one-gpu-2-replays-uptime-record.json").read_text())
    for climb, severity in ((0, "ok"), (3, "ok"), (30, "warning")):
        answers = data["answers"] + [
            {"call": "clock", "args": ["inventory"], "value": 1000.0},
            {"call": "clock", "args": ["after the measurements"], "value": 1030.0},
            {"call": "nvmlDeviceGetPcieReplayCounter", "args": [0], "tag": "after the measurements",
             "value": 2 + climb}]
        path = tmp_path / f"climb{climb}.json"
        path.write_text(json.dumps(dict(data, answers=answers)))
        facts, findings, _ = replay(str(path))
        (f,) = [f for f in findings if f.rule == "ticket.pcie_errors"]
        assert f.severity == severity, climb
        (e,) = [e for e in f.evidence if "while diagnose node measured" in e.detail]
        assert e.measured == climb * 2 and e.expected == 8 and e.unit == "replays/min"  # per 30 s -> per minute
        assert f"2 -> {2 + climb} in 30 s" in e.detail
    # a recording without the second reading (every one made before it existed) keeps the since-reset judgement
    _, findings, _ = replay("h200-vm-one-gpu-2-replays-uptime-record.json")
    (f,) = [f for f in findings if f.rule == "ticket.pcie_errors"]
    assert not any("while diagnose node measured" in e.detail for e in f.evidence)


def test_the_live_run_reads_the_counter_again_after_its_measurements():
    """The third lent H200 (2026-12-04 15:10, scripts/gpu_check.sh PASS): the counter read at the inventory and after
    the measurements 18 s later, both 0; the replay gives the live run's findings."""
    from test_node_replays import replay

    live = json.loads((H200_RUNS / "sources" / "h200-vm-one-gpu-reread" / "node-standard.json").read_text())
    facts, findings, verdict = replay("h200-vm-one-gpu-reread-record.json")
    (gpu,) = [g for g in facts.of(GpuFact)]
    assert (gpu.pcie_replay_counter, gpu.pcie_replay_counter_after) == (0, 0) and 15 < gpu.pcie_replay_window_s < 25
    assert verdict.category == live["verdict"]["category"] == "healthy"
    assert sorted(f.rule for f in findings) == sorted(f["rule"] for f in live["findings"])
    assert not any(f.rule == "ticket.pcie_errors" for f in findings)  # nothing counted: no finding either way
