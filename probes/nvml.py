"""GPU inventory, NVLinks, the GPU-pair path matrix and P2P status, through NVML.

Everything goes through a `probes.recording.Session`, so the same code reads a live machine or
a recording. NVML's NotSupported (and a recording's NotRecorded) is a normal answer: the field
stays None and the probe carries on (nvitop does the same).
"""

from __future__ import annotations

import itertools
from typing import Any

from diagnose.evidence import GpuFact, HostFact, Note, NvLinkFact, P2PStatus, TopologyPath
from probes.recording import Session, Unanswered

SOURCE = "probe:nvml"
MAX_NVLINKS = 18  # NVML_NVLINK_MAX_LINKS

# nvmlClocksEventReasons bits -> GpuFact.clock_event_reasons names.
CLOCK_EVENT_BITS = {
    0x1: "idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clocks_setting",
}
COMPUTE_MODES = {0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}
VIRTUALIZATION_MODES = {0: "None", 1: "Pass-Through", 2: "VGPU", 3: "Host VGPU", 4: "Host VSGA"}
FABRIC_STATES = {0: "Not Supported", 1: "Not Started", 2: "In Progress", 3: "Completed"}
FABRIC_COMPLETED = 3  # nvml.h: the status field is valid only once registration is completed
# nvmlGpuTopologyLevel -> nvidia-smi topo -m legend.
TOPOLOGY_LEVELS = {0: "X", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}
# nvmlGpuP2PCapsIndex -> P2PStatus.capability, and nvmlGpuP2PStatus -> topo -p2p's letters.
# Only read and write say whether peers can reach each other: the NVLINK index answers NS for
# every pair that has no NVLink, which on a PCIe box is every pair, and says nothing about P2P.
P2P_CAPS = {0: "read", 1: "write"}
P2P_STATUS = {0: "OK", 1: "CNS", 2: "GNS", 3: "TNS", 4: "DR", 5: "NS", 6: "U"}
NVLINK_DEVICE_TYPES = {0: "gpu", 1: "ibmnpu", 2: "switch", 255: "unknown"}
NVLINK_ERROR_COUNTERS = {0: "replay", 1: "recovery", 2: "crc_flit", 3: "crc_data"}
FI_NVLINK_GET_SPEED = 164  # NVML_FI_DEV_NVLINK_GET_SPEED, MB/s per link (scope = link)
NO_DRIVER = ("LibraryNotFound", "DriverNotLoaded", "LibRmVersionMismatch", "NoPermission", "Unknown")


def collect(session: Session, gpus: list[int] | None = None) -> tuple[list[Any], list[str]]:
    """All NVML facts of this node (or of `gpus`), and the artifacts that were missing."""
    try:
        session.nvml("nvmlInit")
    except Unanswered as exc:
        return _no_driver(exc.reason)
    records: list[Any] = []
    driver = session.get("nvml", "nvmlSystemGetDriverVersion")
    cuda = session.get("nvml", "nvmlSystemGetCudaDriverVersion")
    records.append(HostFact(SOURCE, "driver_version", driver))
    if cuda:
        records.append(HostFact(SOURCE, "cuda_driver_version", f"{cuda // 1000}.{cuda % 1000 // 10}"))
    count = session.get("nvml", "nvmlDeviceGetCount") or 0
    records.append(HostFact(SOURCE, "gpu_count", count))
    if count == 0:
        return records + [_no_gpu_note("the NVIDIA driver answers but sees no GPU")], ["an NVIDIA GPU"]
    indices = [i for i in range(count) if gpus is None or i in gpus]
    facts = [gpu_fact(session, i) for i in indices]
    for i in indices:
        lost = [a for a in session.answers if a.get("error") == "GpuIsLost" and a["args"][:1] == [i]]
        if lost:
            records.append(Note(f"{SOURCE}:gpu{i}", "gpu_lost",
                                f"NVML answers GpuIsLost for GPU{i} ({lost[0]['call']})", data={"gpu": i}))
    links = {i: nvlinks(session, i) for i in indices}
    records += facts
    records += [link for i in indices for link, _ in links[i]]
    records += topology(session, facts, links)
    switch_links = sum(kind == "switch" for i in indices for link, kind in links[i] if link.active)
    records.append(HostFact(SOURCE, "nvswitch_links", switch_links))
    records += p2p_status(session, indices)
    seconds = sum(a.get("seconds", 0) for a in session.answers if a["call"].startswith("nvml"))
    records.append(HostFact(SOURCE, "nvml_seconds", round(seconds, 3)))
    by_reason: dict[str, set] = {}
    for a in session.unanswered():
        if a["call"].startswith("nvml"):
            by_reason.setdefault(a["error"], set()).add(a["call"])
    for reason, calls in sorted(by_reason.items()):
        records.append(Note(SOURCE, "not_supported" if reason != "NotRecorded" else "not_recorded",
                            f"NVML answered {reason} to: " + ", ".join(sorted(calls))))
    return records, []


def _no_driver(reason: str):
    text = {
        "LibraryNotFound": "no NVIDIA driver found (libnvidia-ml.so is not installed)",
        "DriverNotLoaded": "the NVIDIA kernel driver is not loaded",
        "LibRmVersionMismatch": "the NVIDIA driver library and kernel module versions differ "
                                "(reboot or reload the driver)",
        "NoPermission": "no permission to talk to the NVIDIA driver",
    }.get(reason, f"NVML could not start ({reason})")
    return [HostFact(SOURCE, "nvml", reason), HostFact(SOURCE, "gpu_count", 0), _no_gpu_note(text)], [
        "`nvidia-smi` output listing the GPUs (from the GPU server, driver loaded)"
    ]


def _no_gpu_note(text: str) -> Note:
    return Note(SOURCE, "no_gpu", text)


def gpu_fact(s: Session, i: int) -> GpuFact:
    """One GPU's NVML answers as a GpuFact; unanswered fields stay None."""

    def q(call, *args):
        return s.get("nvml", call, i, *args)

    pci = q("nvmlDeviceGetPciInfo") or {}
    memory = q("nvmlDeviceGetMemoryInfo") or {}
    util = q("nvmlDeviceGetUtilizationRates") or {}
    reasons = q("nvmlDeviceGetCurrentClocksEventReasons")
    if reasons is None:
        reasons = q("nvmlDeviceGetCurrentClocksThrottleReasons")
    ecc = q("nvmlDeviceGetEccMode")
    mig = q("nvmlDeviceGetMigMode")
    remapped = q("nvmlDeviceGetRemappedRows")
    pending_pages = q("nvmlDeviceGetRetiredPagesPendingStatus")
    fabric = q("nvmlDeviceGetGpuFabricInfo")
    name = q("nvmlDeviceGetName")
    device_id = f"0x{pci['pciDeviceId'] >> 16:04x}" if pci.get("pciDeviceId") else None
    return GpuFact(
        source=f"{SOURCE}:gpu{i}",
        index=i,
        name=name,
        uuid=q("nvmlDeviceGetUUID"),
        bus_id=normalise_bus_id(pci.get("busId")),
        pci_device_id=device_id,
        memory_total_mib=memory["total"] / 2**20 if memory.get("total") else None,
        pcie_gen_current=q("nvmlDeviceGetCurrPcieLinkGeneration"),
        pcie_gen_max=q("nvmlDeviceGetMaxPcieLinkGeneration"),
        pcie_width_current=q("nvmlDeviceGetCurrPcieLinkWidth"),
        pcie_width_max=q("nvmlDeviceGetMaxPcieLinkWidth"),
        pcie_read_under_load=(util["gpu"] >= 50) if "gpu" in util else None,
        pcie_replay_counter=q("nvmlDeviceGetPcieReplayCounter"),
        utilization_pct=util.get("gpu"),
        temperature_c=q("nvmlDeviceGetTemperature", 0),  # NVML_TEMPERATURE_GPU
        temperature_slowdown_c=q("nvmlDeviceGetTemperatureThreshold", 1),  # ..._THRESHOLD_SLOWDOWN
        power_draw_w=_milli(q("nvmlDeviceGetPowerUsage")),
        power_limit_w=_milli(q("nvmlDeviceGetEnforcedPowerLimit")),
        sm_clock_mhz=q("nvmlDeviceGetClockInfo", 1),  # NVML_CLOCK_SM
        sm_clock_max_mhz=q("nvmlDeviceGetMaxClockInfo", 1),
        clock_event_reasons=[n for bit, n in CLOCK_EVENT_BITS.items() if reasons and reasons & bit],
        ecc_mode=bool(ecc[0]) if ecc else None,
        ecc_uncorrected_volatile=q("nvmlDeviceGetTotalEccErrors", 1, 0),  # uncorrected, volatile
        ecc_corrected_volatile=q("nvmlDeviceGetTotalEccErrors", 0, 0),
        retired_pages_pending=bool(pending_pages) if pending_pages is not None else None,
        remapped_rows_pending=bool(remapped[2]) if remapped else None,
        remapped_rows_failure=bool(remapped[3]) if remapped else None,
        persistence_mode=_flag(q("nvmlDeviceGetPersistenceMode")),
        compute_mode=COMPUTE_MODES.get(q("nvmlDeviceGetComputeMode")),
        mig_mode=bool(mig[0]) if mig else None,
        virtualization_mode=VIRTUALIZATION_MODES.get(q("nvmlDeviceGetVirtualizationMode")),
        fabric_state=FABRIC_STATES.get(fabric["state"]) if fabric else None,
        fabric_status=_fabric_status(fabric),
        numa_node=_numa_node(s, i, normalise_bus_id(pci.get("busId"))),
        cpu_affinity=q("nvmlDeviceGetCpuAffinity"),
    )


def nvlinks(s: Session, i: int) -> list[tuple[NvLinkFact, str | None]]:
    """Every NVLink NVML knows on GPU i, with what is at its other end ("gpu", "switch", ...);
    links NVML answers NotSupported for do not exist."""
    out = []
    for link in range(MAX_NVLINKS):
        state = s.get("nvml", "nvmlDeviceGetNvLinkState", i, link)
        if state is None:
            continue
        remote = s.get("nvml", "nvmlDeviceGetNvLinkRemotePciInfo", i, link) or {}
        kind = s.get("nvml", "nvmlDeviceGetNvLinkRemoteDeviceType", i, link)
        speed = s.get("nvml", "nvmlDeviceGetFieldValues", i, FI_NVLINK_GET_SPEED, link)
        errors = {}
        for counter, label in NVLINK_ERROR_COUNTERS.items():
            value = s.get("nvml", "nvmlDeviceGetNvLinkErrorCounter", i, link, counter)
            if value is not None:
                errors[label] = value
        out.append((NvLinkFact(
            source=f"{SOURCE}:gpu{i}:link{link}",
            gpu=i,
            link=link,
            active=bool(state),
            speed_gbs=speed / 1000 if speed else None,
            version=s.get("nvml", "nvmlDeviceGetNvLinkVersion", i, link),
            remote_bus_id=normalise_bus_id(remote.get("busId")),
            errors=errors,
        ), NVLINK_DEVICE_TYPES.get(kind)))
    return out


def topology(s: Session, facts: list[GpuFact],
             links: dict[int, list[tuple[NvLinkFact, str | None]]]) -> list[TopologyPath]:
    """The `nvidia-smi topo -m` matrix for GPU pairs: NV# where NVLinks join them, else PCIe level.

    NV# counts the active links from a to b; on NVSwitch systems every active link goes to a
    switch, and two GPUs that both reach the switches are joined by min(links a, links b).
    """
    by_bus = {f.bus_id: f.index for f in facts if f.bus_id}
    out = []
    for fa, fb in itertools.combinations(facts, 2):
        a, b = fa.index, fb.index
        n = _links_between(a, b, links, by_bus, [f.index for f in facts])
        if n:
            path = f"NV{n}"
        else:
            level = s.get("nvml", "nvmlDeviceGetTopologyCommonAncestor", a, b)
            path = TOPOLOGY_LEVELS.get(level)
            if path is None:
                continue
        out.append(TopologyPath(f"{SOURCE}:topology", f"GPU{a}", f"GPU{b}", path, nvlinks=n))
    return out


def _links_between(a: int, b: int, links, by_bus, indices: list[int]) -> int:
    def peers(x):
        direct, switch = {}, 0
        for link, kind in links.get(x, []):
            if not link.active:
                continue
            if kind == "switch":
                switch += 1
            elif link.remote_bus_id in by_bus:
                peer = by_bus[link.remote_bus_id]
                direct[peer] = direct.get(peer, 0) + 1
            elif kind == "gpu" and len(indices) == 2:  # with two GPUs, a GPU link reaches the other
                peer = indices[1] if x == indices[0] else indices[0]
                direct[peer] = direct.get(peer, 0) + 1
        return direct, switch

    direct_a, switch_a = peers(a)
    direct_b, switch_b = peers(b)
    if switch_a and switch_b:
        return min(switch_a, switch_b)
    return max(direct_a.get(b, 0), direct_b.get(a, 0))


def p2p_status(s: Session, indices: list[int]) -> list[P2PStatus]:
    """NVML's view of peer access per ordered pair and capability (topo -p2p r/w/n/a)."""
    out = []
    for a, b in itertools.permutations(indices, 2):
        for cap, label in P2P_CAPS.items():
            status = s.get("nvml", "nvmlDeviceGetP2PStatus", a, b, cap)
            if status is None:
                continue
            text = P2P_STATUS.get(status, str(status))
            out.append(P2PStatus(f"{SOURCE}:p2p", a, b, label, text, text == "OK"))
    return out


def normalise_bus_id(bus_id: str | None) -> str | None:
    """'00000000:18:00.0' -> '0000:18:00.0' (lower case), as sysfs and NCCL print it."""
    if not bus_id:
        return None
    bus_id = str(bus_id).strip().lower()
    domain, _, rest = bus_id.partition(":")
    if rest and len(domain) > 4:
        domain = domain[-4:]
    return f"{domain}:{rest}" if rest else bus_id


def _milli(value):
    return value / 1000 if value is not None else None


def _flag(value):
    return bool(value) if value is not None else None


def _fabric_status(fabric: dict | None) -> str | None:
    """The registration result, read only when NVML says it is valid (state Completed)."""
    if not fabric or fabric.get("state") != FABRIC_COMPLETED or fabric.get("status") is None:
        return None
    return "Success" if fabric["status"] == 0 else f"error {fabric['status']}"


def _numa_node(s: Session, i: int, bus_id: str | None) -> int | None:
    """The CPU NUMA node the GPU's PCI device hangs off (topo -m's "NUMA Affinity").

    sysfs's numa_node of the PCI device is definitive; NVML's memory affinity (node scope) is
    the same answer through the driver. nvmlDeviceGetNumaNodeId is not: it is the GPU's own
    memory node ("GPU NUMA ID", e.g. 4..11 on Grace Hopper) and is not used here."""
    if bus_id:
        text = s.get("read", f"/sys/bus/pci/devices/{bus_id}/numa_node")
        if text is not None and text.strip().lstrip("-").isdigit():
            return _numa(int(text.strip()))
    nodes = s.get("nvml", "nvmlDeviceGetMemoryAffinity", i)
    if nodes is not None:
        from probes.recording import parse_cpu_list

        found = parse_cpu_list(nodes)
        return found[0] if len(found) == 1 else None
    return None


def _numa(value):
    return value if isinstance(value, int) and value >= 0 else None
