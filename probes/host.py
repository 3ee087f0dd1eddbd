"""Host checks that decide how NCCL can move data: /dev/shm, IOMMU, ACS, NUMA, VM/container,
NCCL_* variables, InfiniBand, GPUDirect RDMA, fabric manager, and the PCIe links of the GPUs.

Readings go through a `probes.recording.Session` (sysfs and procfs files, `lspci`,
`systemctl`), so a recording replays through this same code. None of this needs the NVIDIA
driver: on a box where the driver is missing it still finds the GPUs on the PCIe bus.
"""

from __future__ import annotations

import re
from typing import Any

from diagnose.evidence import HostFact, NcclSetting, PcieLinkFact
from probes.recording import Session, Unanswered

SOURCE = "probe:host"
PCI = "/sys/bus/pci/devices"
NVIDIA_VENDOR = "0x10de"
NVSWITCH_CLASS = "0x0680"  # NVSwitch shows up as an NVIDIA "other bridge" device
ENV_PREFIXES = ("NCCL_", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_MAX_CONNECTIONS", "TORCH_NCCL_", "NVIDIA_VISIBLE_DEVICES")
GDR_MODULES = ("nvidia_peermem", "nv_peer_mem")
HYPERVISORS = {"kvm": "kvm", "qemu": "kvm", "vmware": "vmware", "microsoft": "hyper-v", "xen": "xen",
               "amazon ec2": "kvm", "google": "kvm", "virtualbox": "virtualbox", "innotek": "virtualbox"}


def collect(session: Session, nvswitch: bool | None = None) -> list[Any]:
    """Every host fact this machine answers; unreadable readings are left out, not guessed."""
    out: list[Any] = []
    out += _identity(session)
    out += shm(session)
    gpus, switches = nvidia_pci_devices(session)
    out += iommu(session, gpus)
    out += numa(session)
    out += virtualization(session)
    out += nccl_environment(session)
    if session.get("listdir", PCI) is not None:
        out.append(HostFact(SOURCE, "pci_nvidia_gpus", gpus))
    out += pcie_links(session, gpus)
    out += infiniband(session)
    if nvswitch is None and session.get("listdir", PCI) is not None:
        nvswitch = bool(switches)  # else nothing read says: a replay without sysfs does not know
    out += fabric_manager(session, nvswitch)
    out += kernel_log(session)
    return out


KERNEL_LOG_LINES = r"NVRM|SXid|nvidia-nvswitch|fallen off the bus"


def kernel_log(s: Session) -> list[Any]:
    """NVIDIA Xid / SXid / fallen-off-the-bus lines of the kernel log (dmesg needs root on many
    systems; journalctl -k is the fallback), parsed by the same parser tickets use."""
    from diagnose.artifacts import dmesg

    for argv in (("dmesg",), ("journalctl", "-k", "-b", "--no-pager", "-q")):
        text, known = _known(s, "run_grep", KERNEL_LOG_LINES, *argv)
        if text is not None:
            name = f"{SOURCE}:{' '.join(argv)}"
            return [HostFact(name, "kernel_log", "readable")] + dmesg.parse(text, name)
        if not known:  # a transcribed recording without the kernel log: say nothing
            return []
    return [HostFact(SOURCE, "kernel_log", "unreadable")]


def _known(s: Session, kind: str, *args) -> tuple[Any, bool]:
    """(answer or None, whether the machine answered at all): a file that does not exist is an
    answer; a reading a transcribed recording does not hold (NotRecorded) is not."""
    try:
        return getattr(s, kind)(*args), True
    except Unanswered as exc:
        return None, exc.reason != "NotRecorded"


def _identity(s: Session) -> list[HostFact]:
    out = []
    hostname = s.get("read", "/proc/sys/kernel/hostname")
    if hostname:
        out.append(HostFact(SOURCE, "hostname", hostname.strip()))
    kernel = s.get("read", "/proc/sys/kernel/osrelease")
    if kernel:
        out.append(HostFact(SOURCE, "kernel", kernel.strip()))
    cpuinfo = s.get("read", "/proc/cpuinfo") or ""
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    if model:
        out.append(HostFact(SOURCE, "cpu_model", model.group(1).strip()))
    if cpuinfo:
        out.append(HostFact(SOURCE, "cpus", len(re.findall(r"^processor\s*:", cpuinfo, re.M))))
    uptime = re.match(r"\s*(\d+(?:\.\d+)?)\s", s.get("read", "/proc/uptime") or "")
    if uptime:  # the time base of counters kept since boot (a GPU's PCIe replays)
        out.append(HostFact(f"{SOURCE}:/proc/uptime", "uptime_s", float(uptime.group(1))))
    return out


def shm(s: Session) -> list[HostFact]:
    """Size of /dev/shm: NCCL's SHM transport and its proxy buffers live there."""
    disk, known = _known(s, "disk", "/dev/shm")
    if not disk:  # no /dev/shm at all is an answer (0 bytes); an unrecorded reading is not
        return [HostFact(f"{SOURCE}:/dev/shm", "shm_bytes", 0 if known else None)]
    return [HostFact(f"{SOURCE}:/dev/shm", "shm_bytes", disk["total"]),
            HostFact(f"{SOURCE}:/dev/shm", "shm_free_bytes", disk["free"])]


# /sys/kernel/iommu_groups/N/type: how the kernel's IOMMU treats the devices of a group
# (Documentation/ABI/testing/sysfs-kernel-iommu_groups). identity = passthrough, DMA/DMA-FQ =
# translated; this is what actually applies, whatever the command line says.
IOMMU_GROUP_TYPES = {"identity": "pt", "DMA": "on", "DMA-FQ": "on", "blocked": "on", "unmanaged": "on"}


def iommu(s: Session, gpus: list[str] | None = None) -> list[HostFact]:
    """'off', 'pt' (passthrough: P2P unaffected) or 'on' (DMA remapping: P2P may break or slow).

    The type of the GPUs' IOMMU groups is definitive (iommu.passthrough=1, a kernel built with
    passthrough as default, and iommu=pt all show as 'identity'); the command line and the list
    of IOMMU units decide only where no GPU group type can be read."""
    cmdline, known_cmdline = _known(s, "read", "/proc/cmdline")
    groups, known_groups = _known(s, "listdir", "/sys/kernel/iommu_groups")
    units, known_units = _known(s, "listdir", "/sys/class/iommu")
    types = {}
    for gpu in gpus or []:
        text = s.get("read", f"{PCI}/{gpu}/iommu_group/type")
        if text and text.strip() in IOMMU_GROUP_TYPES:
            types[gpu] = text.strip()
    if not (known_cmdline or known_groups or known_units or types):
        return [HostFact(f"{SOURCE}:/proc/cmdline", "iommu", None)]
    cmdline, groups, units = cmdline or "", groups or [], units or []
    if types:
        modes = {IOMMU_GROUP_TYPES[t] for t in types.values()}
        mode = "on" if "on" in modes else "pt"
        gpu = next(iter(types))
        return [HostFact(f"{SOURCE}:{PCI}/{gpu}/iommu_group/type", "iommu", mode),
                HostFact(SOURCE, "iommu_detail", "IOMMU group type of the GPUs: "
                         + ", ".join(f"{g} {t}" for g, t in types.items()))]
    if re.search(r"\biommu=pt\b|\b(intel|amd)_iommu=pt\b|\biommu\.passthrough=1\b", cmdline):
        mode = "pt"
    elif re.search(r"\b(intel|amd)_iommu=off\b|\biommu=off\b", cmdline):
        mode = "off"
    elif units or re.search(r"\b(intel|amd)_iommu=on\b", cmdline):
        mode = "on"
    else:
        mode = "off"
    detail = f"{len(units)} IOMMU units, {len(groups)} groups; cmdline: " + " ".join(
        w for w in cmdline.split() if "iommu" in w) if (units or groups or "iommu" in cmdline) else "no IOMMU units"
    return [HostFact(f"{SOURCE}:/proc/cmdline", "iommu", mode), HostFact(SOURCE, "iommu_detail", detail)]


def numa(s: Session) -> list[HostFact]:
    listing, known = _known(s, "listdir", "/sys/devices/system/node")
    if not known:
        return []
    nodes = [n for n in listing or [] if re.fullmatch(r"node\d+", n)]
    cpus = {}
    for node in nodes:
        text = s.get("read", f"/sys/devices/system/node/{node}/cpulist")
        if text is not None:
            cpus[int(node[4:])] = text.strip()
    out = [HostFact(f"{SOURCE}:/sys/devices/system/node", "numa_nodes", len(nodes) or None)]
    if cpus:
        out.append(HostFact(f"{SOURCE}:/sys/devices/system/node", "numa_cpus", cpus))
    return out


def virtualization(s: Session) -> list[HostFact]:
    """VM (hypervisor) and container: both change what P2P, IB and /dev/shm can do."""
    dmi = [_known(s, "read", f"/sys/class/dmi/id/{f}") for f in ("sys_vendor", "product_name")]
    vendor = " ".join((text or "").strip().lower() for text, _ in dmi)
    cpuinfo, known_cpuinfo = _known(s, "read", "/proc/cpuinfo")
    vm = next((name for key, name in HYPERVISORS.items() if key in vendor), None)
    if vm is None and re.search(r"^flags\s*:.*\bhypervisor\b", cpuinfo or "", re.M):
        vm = "unknown-hypervisor"
    if vm is None and not (known_cpuinfo or any(known for _, known in dmi)):
        vm = None  # nothing was read: unknown, not "none"
    elif vm is None:
        vm = "none"
    cgroup, known_cgroup = _known(s, "read", "/proc/1/cgroup")
    env, _ = _known(s, "env")
    probes = [(p, *_known(s, "realpath", p)) for p in ("/.dockerenv", "/run/.containerenv")]
    markers = [p for p, value, _ in probes if value]
    if re.search(r"docker|kubepods|containerd|libpod|lxc", cgroup or ""):
        markers.append("/proc/1/cgroup")
    if "KUBERNETES_SERVICE_HOST" in (env or {}):
        markers.append("KUBERNETES_SERVICE_HOST")
    known = known_cgroup or any(k for *_, k in probes)  # the env alone cannot say "no container"
    return [
        HostFact(f"{SOURCE}:/sys/class/dmi/id", "virtualization", vm),
        HostFact(SOURCE, "container", bool(markers) if (markers or known) else None),
        HostFact(SOURCE, "container_markers", markers),
    ]


def nccl_environment(s: Session) -> list[NcclSetting]:
    env = s.get("env") or {}
    return [NcclSetting(f"{SOURCE}:env", k, v) for k, v in sorted(env.items()) if k.startswith(ENV_PREFIXES)]


def nvidia_pci_devices(s: Session) -> tuple[list[str], list[str]]:
    """(GPU bus IDs, NVSwitch bus IDs) from sysfs: present whether or not the driver loaded."""
    gpus, switches = [], []
    for dev in s.get("listdir", PCI) or []:
        if (s.get("read", f"{PCI}/{dev}/vendor") or "").strip() != NVIDIA_VENDOR:
            continue
        cls = (s.get("read", f"{PCI}/{dev}/class") or "").strip()
        if cls.startswith(("0x0300", "0x0302")):
            gpus.append(dev)
        elif cls.startswith(NVSWITCH_CLASS):
            switches.append(dev)
    return gpus, switches


def pcie_links(s: Session, gpus: list[str]) -> list[Any]:
    """Link speed/width of each GPU and of every bridge above it, plus ACS on those bridges."""
    out: list[Any] = []
    bridges: list[str] = []
    for gpu in gpus:
        out.append(_link(s, gpu, is_bridge=False))
        path = s.get("realpath", f"{PCI}/{gpu}") or ""
        for part in path.split("/")[:-1]:
            if re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", part) and part not in bridges:
                bridges.append(part)
    acs_on = []
    for bridge in bridges:
        fact = _link(s, bridge, is_bridge=True)
        fact.acs_redirect_enabled = _acs(s, bridge)
        if fact.acs_redirect_enabled:
            acs_on.append(bridge)
        out.append(fact)
    if bridges:
        known = any(f.acs_redirect_enabled is not None for f in out if isinstance(f, PcieLinkFact))
        out.append(HostFact(f"{SOURCE}:lspci", "acs_enabled_bridges", acs_on if known else None))
    return out


def _link(s: Session, bdf: str, is_bridge: bool) -> PcieLinkFact:
    def speed(name):
        text = s.get("read", f"{PCI}/{bdf}/{name}") or ""
        m = re.match(r"\s*([\d.]+)\s*GT/s", text)
        return float(m.group(1)) if m else None

    def width(name):
        text = (s.get("read", f"{PCI}/{bdf}/{name}") or "").strip()
        return int(text) if text.isdigit() and int(text) > 0 else None

    return PcieLinkFact(
        source=f"{SOURCE}:{PCI}/{bdf}",
        bus_id=bdf,
        cap_speed_gts=speed("max_link_speed"),
        cap_width=width("max_link_width"),
        sta_speed_gts=speed("current_link_speed"),
        sta_width=width("current_link_width"),
        is_bridge=is_bridge,
    )


def _acs(s: Session, bdf: str) -> bool | None:
    """True when the bridge's ACS redirects peer requests to the root complex (kills PCIe P2P).

    sysfs does not show ACS control, `lspci -vvv` does (needs root to read extended config).
    """
    text = s.get("run", "lspci", "-vvv", "-s", bdf)
    if not text or "<access denied>" in text:  # not root: extended capabilities are hidden
        return None
    if re.search(r"Express \(v\d\) Root Port", text):
        return False  # traffic between root ports goes through the root complex whatever ACS says
    m = re.search(r"ACSCtl:\s*(.*)", text)
    if not m:
        return False if "Access Control Services" not in text else None
    # Only redirection sends peer traffic up to the root complex (NCCL troubleshooting, "PCI
    # Access Control Services"); SrcValid+ merely validates requester IDs and is harmless.
    return bool(re.search(r"\b(ReqRedir|CmpltRedir)\+", m.group(1)))


def infiniband(s: Session) -> list[Any]:
    """IB/RoCE devices, their ports' state and rate, and whether GPUDirect RDMA can work."""
    devices = []
    base = "/sys/class/infiniband"
    names, known_ib = _known(s, "listdir", base)
    for dev in names or []:
        for port in s.get("listdir", f"{base}/{dev}/ports") or []:
            state = (s.get("read", f"{base}/{dev}/ports/{port}/state") or "").strip()
            devices.append({
                "device": dev,
                "port": int(port) if port.isdigit() else port,
                "state": state.split(":")[-1].strip() or None,
                "rate": (s.get("read", f"{base}/{dev}/ports/{port}/rate") or "").strip() or None,
                "link_layer": (s.get("read", f"{base}/{dev}/ports/{port}/link_layer") or "").strip() or None,
            })
    modules_text = s.get("read", "/proc/modules")
    loaded = {line.split()[0] for line in (modules_text or "").splitlines() if line.strip()}
    gdr = [m for m in GDR_MODULES if m in loaded]
    out = [
        HostFact(f"{SOURCE}:{base}", "ib_devices", devices if known_ib else None),
        HostFact(f"{SOURCE}:{base}", "ib_active_ports",
                 sum(d["state"] == "ACTIVE" for d in devices) if known_ib else None),
    ]
    if modules_text is not None:
        out.append(HostFact(f"{SOURCE}:/proc/modules", "gdr_module", "loaded" if gdr else "not_loaded"))
        out.append(HostFact(f"{SOURCE}:/proc/modules", "gdr_module_name", gdr[0] if gdr else None))
    return out


def fabric_manager(s: Session, nvswitch: bool | None) -> list[HostFact]:
    """On NVSwitch systems the fabric manager must run, or the GPUs cannot talk over NVLink.
    nvswitch None: neither NVML's link ends nor the PCI listing were read, so it is not known."""
    if not nvswitch:
        return [HostFact(SOURCE, "nvswitch", nvswitch)]
    state = s.get("run", "systemctl", "is-active", "nvidia-fabricmanager")
    if state is None:
        value = "unknown"  # no systemd here (a container); the GPU fabric state still tells
    else:
        value = "running" if state.strip() == "active" else "not_running"
    return [HostFact(SOURCE, "nvswitch", True),
            HostFact(f"{SOURCE}:systemctl is-active nvidia-fabricmanager", "fabric_manager", value)]


