"""Facts: the typed, JSON-able records every source produces and every rule reads.

A parser (ticket artifact, nsys capture, live probe, recording replay) turns its input into
these records; a rule reads only these records. That is what lets a rule written for
`diagnose node` fire unchanged on a ticket that carries the same facts.

Every record carries `source`: where it came from, as "file:line", "probe:<name>",
"ticket.toml", or "capture:<file>". Findings quote it.

Fields a source cannot know stay None. A record type that only one source produces may live
beside that source (e.g. capture summaries), as long as it is a dataclass with a `source`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterable, TypeVar

T = TypeVar("T")


def where(path: str, line: int | None = None) -> str:
    """The source string for a file position: 'attachment2.log:14'."""
    return f"{path}:{line}" if line else str(path)


# --------------------------------------------------------------------------- GPUs and links


@dataclass
class GpuFact:
    """One GPU as nvidia-smi / NVML describes it."""

    source: str
    index: int | None = None
    name: str | None = None
    catalog_key: str | None = None  # row in rules/catalog/gpus.toml, when known
    uuid: str | None = None
    bus_id: str | None = None  # normalised "0000:17:00.0"
    pci_device_id: str | None = None  # "0x2330"
    memory_total_mib: float | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None  # what GPU and slot can both do
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    pcie_read_under_load: bool | None = None  # True if current gen/width were read while busy
    pcie_replay_counter: int | None = None
    utilization_pct: float | None = None
    temperature_c: float | None = None
    temperature_slowdown_c: float | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    sm_clock_mhz: float | None = None
    sm_clock_max_mhz: float | None = None
    # Active clock-event (throttle) reasons, normalised: idle, applications_clocks_setting,
    # sw_power_cap, hw_slowdown, sync_boost, sw_thermal_slowdown, hw_thermal_slowdown,
    # hw_power_brake_slowdown, display_clocks_setting
    clock_event_reasons: list[str] = field(default_factory=list)
    ecc_mode: bool | None = None
    ecc_uncorrected_volatile: int | None = None
    ecc_corrected_volatile: int | None = None
    retired_pages_pending: bool | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    persistence_mode: bool | None = None
    compute_mode: str | None = None
    mig_mode: bool | None = None
    virtualization_mode: str | None = None  # "None", "Pass-Through", "VGPU", ...
    fabric_state: str | None = None  # "Completed", "In Progress", "Not Started", "Not Supported"
    fabric_status: str | None = None  # "Success" or an error
    numa_node: int | None = None
    cpu_affinity: str | None = None  # "0-55,112-167"


@dataclass
class NvLinkFact:
    """One NVLink of one GPU (nvidia-smi nvlink -s / NVML)."""

    source: str
    gpu: int | None
    link: int
    active: bool
    speed_gbs: float | None = None  # per direction, as nvidia-smi prints it
    version: int | None = None
    remote_bus_id: str | None = None
    errors: dict[str, int] = field(default_factory=dict)


@dataclass
class TopologyPath:
    """How two devices connect (nvidia-smi topo -m): NV#, PIX, PXB, PHB, NODE, SYS, SOC."""

    source: str
    a: str  # "GPU0", "NIC1", "mlx5_0"
    b: str
    path: str
    nvlinks: int = 0  # the # in NV#


@dataclass
class P2PStatus:
    """Whether two GPUs can reach each other peer-to-peer (topo -p2p, NVML, CUDA)."""

    source: str
    a: int
    b: int
    capability: str  # "read", "write", "nvlink", "atomics", "prop", "access"
    status: str  # as printed: OK, NS, CNS, GNS, TNS, "Not Supported", ...
    ok: bool


@dataclass
class PairBandwidth:
    """A measured GPU-to-GPU copy bandwidth or latency (p2pBandwidthLatencyTest, probes)."""

    source: str
    a: int
    b: int
    value: float
    unit: str  # "GB/s" or "us"
    direction: str = "uni"  # "uni" or "bi"
    p2p_enabled: bool | None = None


@dataclass
class PcieLinkFact:
    """A PCIe device's link as lspci -vvv shows it (LnkCap vs LnkSta), and its ACS control."""

    source: str
    bus_id: str
    device: str | None = None
    cap_speed_gts: float | None = None
    cap_width: int | None = None
    sta_speed_gts: float | None = None
    sta_width: int | None = None
    is_bridge: bool = False
    acs_redirect_enabled: bool | None = None  # ACSCtl SrcValid/ReqRedir/CmpltRedir '+'


@dataclass
class XidEvent:
    """An NVIDIA Xid error from the kernel log."""

    source: str
    xid: int
    bus_id: str | None = None
    message: str = ""


# --------------------------------------------------------------------------- host


@dataclass
class HostFact:
    """One fact about the host, keyed by name so sources can report what they know.

    Known names: shm_bytes, iommu ("off", "pt", "on"), virtualization ("none", "kvm", ...),
    container (bool), numa_nodes, numa_nodes_per_socket, cpu_model, hostname, os, kernel,
    driver_version, cuda_driver_version, fabric_manager ("running", "not_running", "absent"),
    gdr_module ("loaded", "not_loaded"), ib_devices, ib_active_ports, acs_enabled_bridges.
    """

    source: str
    name: str
    value: Any


# --------------------------------------------------------------------------- NCCL


@dataclass
class NcclVersion:
    source: str
    version: str  # "2.18.3"
    cuda: str | None = None


@dataclass
class NcclSetting:
    """An NCCL_* (or related) variable: from 'set by environment', a launch line, or the env."""

    source: str
    name: str
    value: str


@dataclass
class NcclTransport:
    """Which transport NCCL chose for a connection (NCCL_DEBUG=INFO 'via ...' lines)."""

    source: str
    transport: str  # "P2P", "SHM", "NET", "NVLS", "COLLNET"
    detail: str = ""  # "P2P/IPC", "P2P/CUMEM", "P2P/direct pointer", "SHM/direct/direct", "NET/IB/0/GDRDMA", "NET/Socket/0"
    net: str | None = None  # "IB", "Socket", plugin name
    gdr: bool | None = None
    channel: int | None = None
    rank: int | None = None
    peer: int | None = None


@dataclass
class NcclEvent:
    """A notable NCCL log line: warnings, init failures, fallbacks, topology notes.

    kind: "warn", "error", "net_init_failed", "ib_unavailable", "using_socket", "nvls",
    "shm_alloc_failed", "p2p_disabled", "topology", ...
    """

    source: str
    kind: str
    message: str
    data: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- measurements


# Fields that carry a step's duration in step facts (capture steps, stored runs): readers look for them in order.
STEP_KEYS = ("duration_ms", "step_ms", "ms", "duration_us", "time_ms")


def bus_factor(op: str, nranks: int) -> float:
    """nccl-tests' bus bandwidth factor (busbw / algbw) for `op` on `nranks` ranks."""
    n = nranks
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "alltoall"):
        return (n - 1) / n
    if op in ("broadcast", "reduce", "sendrecv"):
        return 1.0
    raise ValueError(f"unknown collective {op!r}")


@dataclass
class CollectiveResult:
    """One row of a collective benchmark (nccl-tests or our probe), nccl-tests semantics."""

    source: str
    op: str  # "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"
    size_bytes: int
    time_us: float
    algbw_gbs: float
    busbw_gbs: float
    nranks: int | None = None
    nodes: int | None = None
    count: int | None = None
    dtype: str | None = None
    in_place: bool | None = None
    errors: int | None = None  # the #wrong column
    graph: bool = False
    group: list[int] | None = None  # GPU indices the collective ran over, when known
    tool: str = "nccl-tests"


@dataclass
class CollectiveSummary:
    """nccl-tests' '# Avg bus bandwidth' footer."""

    source: str
    op: str | None
    avg_busbw_gbs: float
    nranks: int | None = None


@dataclass
class Measurement:
    """A measured figure: serving benchmark, reporter claim, probe, capture.

    metric: decode_tok_s, output_tok_s, itl_ms, tpot_ms, ttft_ms, busbw_gbs, algbw_gbs,
    step_ms, latency_us, request_tok_s, request_throughput, prefill_tok_s, hbm_gbs,
    gemm_tflops, h2d_gbs, d2h_gbs; a percentile goes in `stat` ("mean", "median", "p95", "p99").
    """

    source: str
    metric: str
    value: float
    unit: str | None = None
    stat: str | None = None
    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    batch: int | None = None
    concurrency: int | None = None
    gpus: int | None = None
    gpu: int | None = None
    size_bytes: int | None = None
    dtype: str | None = None


@dataclass
class Workload:
    """What was being run, as far as one source tells: a launch line, ticket.toml, a capture."""

    source: str
    model: str | None = None
    framework: str | None = None
    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    ep: int | None = None
    batch: int | None = None
    concurrency: int | None = None
    dtype: str | None = None
    kv_dtype: str | None = None
    prompt_len: int | None = None
    output_len: int | None = None
    max_model_len: int | None = None
    eager: bool | None = None  # --enforce-eager, --disable-cuda-graph
    gpu: str | None = None
    gpu_count: int | None = None
    nodes: int | None = None
    interconnect: str | None = None
    cuda_visible_devices: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Note:
    """Free text that matters: the reporter's description, a versions line, unknown keys."""

    source: str
    kind: str  # "description", "software", "unknown_key", "unrecognised_file", ...
    text: str
    data: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- container


@dataclass
class Facts:
    """Everything a command collected, in order of arrival.

    `missing` names artifacts or tables that were absent or unreadable, so rules and the
    verdict can say what to ask for instead of guessing.
    """

    records: list[Any] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def add(self, *records: Any) -> None:
        for record in records:
            if record is None:
                continue
            if isinstance(record, (list, tuple)):
                self.add(*record)
            else:
                self.records.append(record)

    def extend(self, records: Iterable[Any]) -> None:
        self.add(*list(records))

    def of(self, cls: type[T]) -> list[T]:
        return [r for r in self.records if isinstance(r, cls)]

    def first(self, cls: type[T]) -> T | None:
        for r in self.records:
            if isinstance(r, cls):
                return r
        return None

    def host(self, name: str) -> HostFact | None:
        """The first HostFact called `name`."""
        for r in self.of(HostFact):
            if r.name == name:
                return r
        return None

    def settings(self, name: str) -> list[NcclSetting]:
        return [s for s in self.of(NcclSetting) if s.name == name]

    def workload(self) -> Workload:
        """All Workload records merged, earliest source first for each field."""
        merged: dict[str, Any] = {}
        sources = []
        extra: dict[str, Any] = {}
        for w in self.of(Workload):
            sources.append(w.source)
            for f in dataclasses.fields(Workload):
                if f.name in ("source", "extra"):
                    continue
                value = getattr(w, f.name)
                if value is not None and merged.get(f.name) is None:
                    merged[f.name] = value
            for k, v in w.extra.items():
                extra.setdefault(k, v)
        return Workload(source=", ".join(dict.fromkeys(sources)) or "none", extra=extra, **merged)

    def to_dict(self) -> dict[str, Any]:
        """Records grouped by type (snake-case names), for the report's `facts`."""

        grouped: dict[str, list] = {}
        for r in self.records:
            grouped.setdefault(_snake(type(r).__name__), []).append(jsonable(r))
        if self.missing:
            grouped["missing"] = list(self.missing)
        return grouped


def _snake(name: str) -> str:
    import re

    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def jsonable(value):
    """Dataclasses, tuples, sets and floats that JSON cannot hold (nan, inf) made plain."""
    import math

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if hasattr(value, "item") and callable(value.item):  # numpy / pandas scalars
        return jsonable(value.item())
    return value
