"""Record this machine's NVML answers and host readings, replay them through the same code."""

import dataclasses
import json
import os

import pytest

from diagnose.errors import InputError
from diagnose.evidence import HostFact, NcclSetting
from probes import host, nvml, runner
from probes.recording import LiveSession, ReplaySession, Unanswered, format_cpu_list, parse_cpu_list


def _facts(session):
    return [dataclasses.asdict(r) | {"type": type(r).__name__} for r in runner.run(session).records]


def test_live_run_recorded_and_replayed_gives_the_same_facts(tmp_path, monkeypatch):
    monkeypatch.setenv("NCCL_SOCKET_IFNAME", "eth0")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-record-me")
    live = LiveSession()
    live_facts = _facts(live)
    path = tmp_path / "node.json"
    live.save(path)
    text = path.read_text()
    assert "do-not-record-me" not in text  # a recording keeps only the variables the checks read
    data = json.loads(text)
    assert data["format"] == "diagnose.node-recording/1"
    assert any(a["call"] == "nvmlInit" for a in data["answers"])
    replayed = _facts(ReplaySession(path))
    strip = lambda rows: [r for r in rows if r.get("name") != "nvml_seconds"]  # noqa: E731
    assert strip(replayed) == strip(live_facts)
    assert NcclSetting("probe:host:env", "NCCL_SOCKET_IFNAME", "eth0") in runner.run(ReplaySession(path)).records


def test_not_supported_is_an_answer_and_unrecorded_stays_unknown(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "diagnose.node-recording/1", "meta": {}, "answers": [
        {"call": "nvmlInit", "args": [], "value": True},
        {"call": "nvmlDeviceGetCount", "args": [], "value": 1},
        {"call": "nvmlDeviceGetName", "args": [0], "value": "NVIDIA A100-SXM4-80GB"},
        {"call": "nvmlDeviceGetEccMode", "args": [0], "error": "NotSupported"},
    ]}))
    s = ReplaySession(path)
    with pytest.raises(Unanswered) as exc:
        s.nvml("nvmlDeviceGetEccMode", 0)
    assert exc.value.reason == "NotSupported"
    records, missing = nvml.collect(ReplaySession(path))
    gpu = [r for r in records if type(r).__name__ == "GpuFact"][0]
    assert gpu.name == "NVIDIA A100-SXM4-80GB" and gpu.ecc_mode is None and gpu.temperature_c is None
    notes = {r.kind: r.text for r in records if type(r).__name__ == "Note"}
    assert "nvmlDeviceGetEccMode" in notes["not_supported"] and "nvmlDeviceGetTemperature" in notes["not_recorded"]
    # host readings a recording lacks are unknown, not "off" / "none"
    facts = {f.name: f.value for f in host.collect(ReplaySession(path)) if isinstance(f, HostFact)}
    assert facts["iommu"] is None and facts["virtualization"] is None and facts["container"] is None
    assert facts["shm_bytes"] is None


def test_no_driver_recorded_replays_as_no_driver(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "diagnose.node-recording/1",
                                "answers": [{"call": "nvmlInit", "args": [], "error": "DriverNotLoaded"}]}))
    records, missing = nvml.collect(ReplaySession(path))
    assert HostFact("probe:nvml", "nvml", "DriverNotLoaded") in records and missing


def test_bad_recordings_are_input_errors(tmp_path):
    for content in ("not json", "[]", json.dumps({"format": "diagnose.node-recording/1", "answers": [{"args": []}]})):
        p = tmp_path / "bad.json"
        p.write_text(content)
        with pytest.raises(InputError):
            ReplaySession(p)
    with pytest.raises(InputError):
        ReplaySession(tmp_path / "absent.json")


def test_host_checks_read_this_machine():
    facts = {f.name: f.value for f in host.collect(LiveSession()) if isinstance(f, HostFact)}
    st = os.statvfs("/dev/shm")
    assert facts["shm_bytes"] == st.f_blocks * st.f_frsize
    assert facts["container"] == (os.path.exists("/.dockerenv") or os.path.exists("/run/.containerenv")
                                  or facts["container_markers"] != [])
    nodes = [n for n in os.listdir("/sys/devices/system/node") if n.startswith("node") and n[4:].isdigit()]
    assert facts["numa_nodes"] == len(nodes)
    assert facts["iommu"] in ("off", "pt", "on")


def test_cpu_lists():
    assert format_cpu_list(parse_cpu_list("0-55,112-167")) == "0-55,112-167"
    assert parse_cpu_list("0-2,8") == [0, 1, 2, 8]


def test_nvml_structs_become_plain_json():
    # the ctypes types pynvml returns on a real driver, filled as the driver would
    import pynvml

    from probes.recording import _to_json

    pci = pynvml.nvmlPciInfo_t()
    pci.busId, pci.pciDeviceId = b"00000000:18:00.0", 0x233010DE
    assert _to_json("nvmlDeviceGetPciInfo", pci) == {"busId": "00000000:18:00.0", "pciDeviceId": 0x233010DE}
    mem = pynvml.c_nvmlMemory_t()
    mem.total, mem.used, mem.free = 85520809984, 0, 85520809984
    assert _to_json("nvmlDeviceGetMemoryInfo", mem)["total"] == 85520809984
    util = pynvml.c_nvmlUtilization_t()
    util.gpu, util.memory = 97, 40
    assert _to_json("nvmlDeviceGetUtilizationRates", util) == {"gpu": 97, "memory": 40}
    mask = (pynvml.c_ulonglong * 16)()
    mask[0], mask[1] = (1 << 56) - 1, ((1 << 64) - 1) ^ ((1 << 48) - 1)  # CPUs 0-55 and 112-127
    mask[2] = (1 << 40) - 1  # CPUs 128-167
    assert _to_json("nvmlDeviceGetCpuAffinity", mask) == "0-55,112-167"
    assert json.dumps(_to_json("nvmlDeviceGetName", b"NVIDIA H100 80GB HBM3")) == '"NVIDIA H100 80GB HBM3"'


def test_a_gpu_that_fell_off_the_bus_is_a_critical_finding(tmp_path):
    from rules.engine import evaluate

    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "diagnose.node-recording/1", "answers": [
        {"call": "nvmlInit", "args": [], "value": True},
        {"call": "nvmlDeviceGetCount", "args": [], "value": 2},
        {"call": "nvmlDeviceGetName", "args": [0], "value": "NVIDIA H100 80GB HBM3"},
        {"call": "nvmlDeviceGetName", "args": [1], "error": "GpuIsLost"},
    ]}))
    facts = runner.run(ReplaySession(path))
    (f,) = [f for f in evaluate(facts) if f.rule == "node.gpu_lost"]
    assert f.severity == "critical" and f.category == "hardware_fault" and "GPU1" in f.title


def test_a_probe_that_hangs_in_process_is_cut_off_and_later_gpu_probes_skipped(monkeypatch):
    import time

    from probes.results import ProbeFailure
    from probes.runner import Step

    steps = [Step("hbm on GPU0", lambda: time.sleep(30), 1.0),
             Step("gemm on GPU0", lambda: [], 5.0),
             Step("sweep in worker processes", lambda: [], 5.0, on_gpu=False)]
    monkeypatch.setattr(runner, "plan", lambda *a, **k: steps)
    monkeypatch.setattr(runner, "_measurements_blocked", lambda indices, facts=None: None)
    monkeypatch.setattr(runner.nvml, "collect", lambda s, g: ([], []))
    start = time.monotonic()
    facts = runner.run(LiveSession())
    assert time.monotonic() - start < 5
    failures = {f.probe: f.reason for f in facts.of(ProbeFailure)}
    assert failures == {"hbm on GPU0": "timeout", "gemm on GPU0": "skipped"}


def test_measurements_say_why_they_cannot_run(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert runner._measurements_blocked([]) is None  # no GPU: nothing to measure, nothing to explain
    import torch

    if torch.version.cuda is None:  # this machine's CPU-only torch
        assert "CPU-only build" in runner._measurements_blocked([0])
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")  # Slurm --gres, containers: mapped, not refused
    assert "CUDA_VISIBLE_DEVICES" not in (runner._measurements_blocked([0]) or "")
