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
from typing import Any, ClassVar, Iterable, TypeVar

T = TypeVar("T")


def where(path: str, line: int | None = None) -> str:
    """The source string for a file position: 'attachment2.log:14'."""
    return f"{path}:{line}" if line else str(path)


# --------------------------------------------------------------------------- GPUs and links


# The record types of a report's `facts`, by their declared report key (every Fact subclass registers here).
FACT_TYPES: dict[str, type] = {}


class Fact:
    """Base of every fact record. `report_key` is the record's key in a report's `facts`, declared
    by each type so that renaming a class never changes the JSON schema; all keys are registered
    in FACT_TYPES, which the report reader checks stored records against."""

    report_key: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        key = cls.__dict__.get("report_key")
        if not key:
            raise TypeError(f"fact type {cls.__name__} must declare its report key: report_key = '...'")
        if FACT_TYPES.get(key, cls) is not cls:
            raise TypeError(f"report key {key!r} declared by {FACT_TYPES[key].__name__} and {cls.__name__}")
        FACT_TYPES[key] = cls


# The `nvidia-smi -q` sections the ticket checks read, as -q prints them: PCIe link, power, clock event reasons
# ("Clocks Throttle Reasons" in older drivers).
PCIE_LINK, POWER, REASONS = SMI_SECTIONS = ("GPU Link Info", "Power Readings", "Clocks Event Reasons")
# The GpuFact fields each section's figures fill, whichever source gave them (a -q paste, NVML, a --query-gpu CSV).
SECTION_FIELDS = {PCIE_LINK: ("pcie_gen_current", "pcie_width_current"), POWER: ("power_draw_w", "power_limit_w"),
                  REASONS: ("clock_event_reasons",)}


@dataclass
class GpuFact(Fact):
    """One GPU as nvidia-smi / NVML describes it."""

    report_key: ClassVar[str] = "gpu_fact"

    source: str
    index: int | None = None
    name: str | None = None
    catalog_key: str | None = None  # row in rules/catalog/gpus.toml, when known
    uuid: str | None = None
    bus_id: str | None = None  # normalised "0000:17:00.0"
    pci_device_id: str | None = None  # "0x2330"
    memory_total_mib: float | None = None
    # memory in use when the table was printed (nvidia-smi "Memory-Usage" used/total), for whatever holds it
    memory_used_mib: float | None = None
    # the table's Processes rows on this GPU: {"pid": int, "type": "C"/"G"/"C+G", "name": str, "memory_mib": float
    # or None ("N/A" under WSL 2 or without the rights to see another user's process)}
    processes: list[dict] = field(default_factory=list)
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None  # what GPU and slot can both do
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    pcie_read_under_load: bool | None = None  # True if current gen/width were read while busy
    pcie_replay_counter: int | None = None  # nvidia-smi -q "Replays Since Reset": packets the link retransmitted
    pcie_replay_rollovers: int | None = None  # "Replay Number Rollovers": a packet replayed until REPLAY_NUM wrapped
    pcie_replay_counter_after: int | None = None  # the counter re-read after `diagnose node`'s measurements
    pcie_replay_window_s: float | None = None  # seconds between the two readings (the measurements' PCIe traffic)
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
    # The `nvidia-smi -q` sections a paste held (of SMI_SECTIONS): a cut paste shows which are missing, and
    # "every reason Not Active" (no reasons above) still shows the reasons were read.
    smi_sections: list[str] = field(default_factory=list)
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
    # Windows' driver model for the GPU (nvidia-smi -q "Driver Model: Current", the table's TCC/WDDM column): WDDM on
    # a Windows host, which is also what a WSL 2 guest sees; None on Linux, which has no such setting
    driver_model: str | None = None
    fabric_state: str | None = None  # "Completed", "In Progress", "Not Started", "Not Supported"
    fabric_status: str | None = None  # "Success" or an error
    # Fabric > Health (nvidia-smi -q, driver 550+): Summary "Healthy", "Unhealthy", "Limited Capacity";
    # Bandwidth "Full" or "Degraded" (NVML fabric health mask,
    # https://docs.nvidia.com/deploy/nvml-api/group__nvmlFabricDefs.html)
    fabric_health: str | None = None
    fabric_bandwidth: str | None = None
    numa_node: int | None = None
    cpu_affinity: str | None = None  # "0-55,112-167"

    def held_sections(self) -> list[str]:
        """The SMI_SECTIONS this record holds: printed by a `-q` paste (smi_sections; "every reason Not Active" leaves
        no figure but was read), or filled by another source (NVML, a `--query-gpu` CSV, the table's power column)."""
        return [s for s in SMI_SECTIONS
                if s in self.smi_sections or any(getattr(self, name) for name in SECTION_FIELDS[s])]


@dataclass
class NvLinkFact(Fact):
    """One NVLink of one GPU (nvidia-smi nvlink -s / NVML)."""

    report_key: ClassVar[str] = "nv_link_fact"

    source: str
    gpu: int | None
    link: int
    active: bool
    speed_gbs: float | None = None  # per direction, as nvidia-smi prints it
    version: int | None = None
    remote_bus_id: str | None = None
    errors: dict[str, int] = field(default_factory=dict)


@dataclass
class TopologyPath(Fact):
    """How two devices connect (nvidia-smi topo -m): NV#, PIX, PXB, PHB, NODE, SYS, SOC."""

    report_key: ClassVar[str] = "topology_path"

    source: str
    a: str  # "GPU0", "NIC1", "mlx5_0"
    b: str
    path: str
    nvlinks: int = 0  # the # in NV#


@dataclass
class P2PStatus(Fact):
    """Whether two GPUs can reach each other peer-to-peer (topo -p2p, NVML, CUDA)."""

    report_key: ClassVar[str] = "p2_p_status"

    source: str
    a: int
    b: int
    capability: str  # "read", "write", "nvlink", "atomics", "prop", "access", "transfer" (a copy verified)
    status: str  # as printed: OK, NS, CNS, GNS, TNS, "Not Supported", ...
    ok: bool


@dataclass
class PairBandwidth(Fact):
    """A measured GPU-to-GPU copy bandwidth or latency (p2pBandwidthLatencyTest, probes)."""

    report_key: ClassVar[str] = "pair_bandwidth"

    source: str
    a: int
    b: int
    value: float
    unit: str  # "GB/s" or "us"
    direction: str = "uni"  # "uni" or "bi"
    p2p_enabled: bool | None = None


@dataclass
class PcieLinkFact(Fact):
    """A PCIe device's link as lspci -vvv shows it (LnkCap vs LnkSta), and its ACS control."""

    report_key: ClassVar[str] = "pcie_link_fact"

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
class XidEvent(Fact):
    """An NVIDIA Xid error from the kernel log."""

    report_key: ClassVar[str] = "xid_event"

    source: str
    xid: int
    bus_id: str | None = None
    message: str = ""


# --------------------------------------------------------------------------- host


@dataclass
class HostFact(Fact):
    """One fact about the host, keyed by name so sources can report what they know.

    Known names: shm_bytes, iommu ("off", "pt", "on"), virtualization ("none", "kvm", ...),
    container (bool), numa_nodes, numa_nodes_per_socket, cpu_model, hostname, os, kernel,
    driver_version, cuda_driver_version, fabric_manager ("running", "not_running", "absent"),
    gdr_module ("loaded", "not_loaded"), ib_devices, ib_active_ports, acs_enabled_bridges, uptime_s
    (seconds since boot).
    """

    report_key: ClassVar[str] = "host_fact"

    source: str
    name: str
    value: Any


@dataclass
class NumaMemory(Fact):
    """Memory on one NUMA node, as numastat or numactl prints it. With `process` set: that process's resident
    memory on the node (numastat -p / -c); without: the node itself (numastat -m, numactl -H). Which GPU a
    process drives, and whether its memory is far from it, is for the rules."""

    report_key: ClassVar[str] = "numa_memory"

    source: str
    node: int
    used_mb: float | None = None  # a process: its pages on this node; a node: MemUsed (size - free)
    total_mb: float | None = None  # a node's MemTotal / size
    free_mb: float | None = None
    pid: int | None = None
    process: str | None = None  # the command name numastat prints ("python3", "llama-server"); "" when not shown
    cpus: str | None = None  # numactl -H "node 0 cpus: 0-63"


# --------------------------------------------------------------------------- NCCL


@dataclass
class NcclVersion(Fact):
    report_key: ClassVar[str] = "nccl_version"

    source: str
    version: str  # "2.18.3"
    cuda: str | None = None  # the CUDA NCCL was built for ("+cuda12.1" in its own log line), never the system CUDA
    # the container tag the version was looked up from (rules/catalog/ngc_containers.toml), not printed by NCCL
    derived_from: str | None = None


@dataclass
class NcclSetting(Fact):
    """An NCCL_* (or related) variable: from 'set by environment', a launch line, or the env."""

    report_key: ClassVar[str] = "nccl_setting"

    source: str
    name: str
    value: str


@dataclass
class NcclTransport(Fact):
    """Which transport NCCL chose for a connection (NCCL_DEBUG=INFO 'via ...' lines)."""

    report_key: ClassVar[str] = "nccl_transport"

    source: str
    transport: str  # "P2P", "SHM", "NET", "NVLS", "COLLNET"
    # detail: "P2P/IPC", "P2P/CUMEM", "P2P/direct pointer", "SHM/direct/direct", "NET/IB/0/GDRDMA", "NET/Socket/0"
    detail: str = ""
    net: str | None = None  # "IB", "Socket", plugin name
    gdr: bool | None = None
    channel: int | None = None
    rank: int | None = None
    peer: int | None = None


@dataclass
class NcclEvent(Fact):
    """A notable NCCL log line: warnings, init failures, fallbacks, topology notes.

    kind: "warn", "error", "net_init_failed", "ib_unavailable", "using_socket", "nvls",
    "shm_alloc_failed", "p2p_disabled", "topology", ...
    """

    report_key: ClassVar[str] = "nccl_event"

    source: str
    kind: str
    message: str
    data: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- measurements


# Fields that carry a step's duration in step facts (capture steps, stored runs): readers look for them in order.
STEP_KEYS = ("duration_ms", "step_ms", "ms", "duration_us", "time_ms")


def step_records(facts: dict):
    """(name, records, the duration field) of each list of step records in a report's facts (its JSON form)."""
    for name, records in facts.items():
        if "step" not in name or not isinstance(records, list) or not records or not isinstance(records[0], dict):
            continue
        key = next((k for k in STEP_KEYS if k in records[0]), None)
        if key is not None:
            yield name, records, key


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
class CollectiveResult(Fact):
    """One row of a collective benchmark (nccl-tests or our probe), nccl-tests semantics."""

    report_key: ClassVar[str] = "collective_result"

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
    thread_gpus: int = 0  # GPUs one host thread launched each call on (nccl-tests header nGpus > 1); 0: one per GPU


@dataclass
class CollectiveSummary(Fact):
    """nccl-tests' '# Avg bus bandwidth' footer."""

    report_key: ClassVar[str] = "collective_summary"

    source: str
    op: str | None
    avg_busbw_gbs: float
    nranks: int | None = None


@dataclass
class Measurement(Fact):
    """A measured figure: serving benchmark, reporter claim, probe, capture.

    metric: decode_tok_s, output_tok_s, itl_ms, tpot_ms, ttft_ms, busbw_gbs, algbw_gbs,
    step_ms, latency_us, request_tok_s, request_throughput, prefill_tok_s, hbm_gbs,
    gemm_tflops, h2d_gbs, d2h_gbs; a percentile goes in `stat` ("mean", "median", "p95", "p99").
    """

    report_key: ClassVar[str] = "measurement"

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
    # the GPU product a reporter's figure is said of in its own clause ("on the A100 I get 95 tok/s"), several joined
    # by " / " where the clause or its line names more than one: a figure of another GPU is not the ticket GPU's
    gpu_name: str | None = None
    # the model a figure's own clause names ("13B on the 4090 does 30 tok/s"), several joined by " / " where its line
    # names more than one and its clause none: a figure of another model is not judged against the ticket's model
    model: str | None = None
    # the reporter's words where the figure was converted from them ("5,400 tokens per minute", "3x slower than ...
    # 90 tok/s", "20-25 tok/s"): a finding quotes them beside the value in the rules' unit
    said: str | None = None
    # what the figure counts, where its source says: "aggregate" (every sequence in flight together: SGLang's "gen
    # throughput", vLLM's "Avg generation throughput", a benchmark's "Output token throughput") or "per_stream" (one
    # request's: TPOT, ITL, llama.cpp's "eval time", Ollama's "eval rate"); None where the source does not say. The
    # parser records it beside the concurrency the line states; the rules decide what it is compared with. For an
    # all-reduce rate: "algbw_or_busbw" where the reporter's words do not say which of nccl-tests' two figures it is.
    scope: str | None = None
    # the nccl-tests collective a bandwidth figure's own line names other than all-reduce ("all_gather_perf only
    # achieves 200GBps", "the alltoall benchmark ... 220GB/s"), as CollectiveResult.op spells it; None: all-reduce's
    # or unnamed
    op: str | None = None
    # the figure this one is set against in the same words, where they state a change ("TTFT went from 0.3 s to
    # 12 s": 12 s measured now, 0.3 s the reference), in the same unit; None where no change is stated
    reference: float | None = None
    # how many requests or prompts a throughput or time was measured over, where the words say ("100 samples take
    # 15 hours": 100)
    count: int | None = None

    @property
    def cited(self) -> str:
        return f'{self.source} "{self.said}"' if self.said else self.source


@dataclass
class Workload(Fact):
    """What was being run, as far as one source tells: a launch line, ticket.toml, a capture."""

    report_key: ClassVar[str] = "workload"

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
class EngineLoad(Fact):
    """What a serving engine's own log lines say about its KV cache and queue over a pasted run (vLLM's stats line
    and preemption warning, SGLang's batch lines and retraction notice): the fullest KV cache a line states, the
    longest queue, and how often the engine evicted running requests for want of KV room. One record per engine and
    file; the parser counts, the rules decide (rules/engine_pressure.py)."""

    report_key: ClassVar[str] = "engine_load"

    source: str  # the line quoted: the first preemption or retraction, else the fullest KV cache line
    engine: str  # "vllm" | "sglang"
    quote: str = ""
    lines: int = 0  # stats lines read (vLLM "GPU KV cache usage", SGLang "Decode batch" / "Prefill batch")
    kv_usage_max_pct: float | None = None  # the fullest KV cache any line states, percent
    queued_max: int | None = None  # the most requests waiting (vLLM Pending / Waiting, SGLang #queue-req)
    running_max: int | None = None
    # vLLM: the highest cumulative count a V0 warning states, else the warnings counted, or the V1 stats lines'
    # "Preemptions: N" (each its interval's) summed
    preemptions: int = 0
    # SGLang: retraction events, the TP ranks' copies of one (same message within a second) counted once, and the
    # seconds their stamps span (None where the lines carry no stamps)
    retractions: int = 0
    retraction_span_s: float | None = None


@dataclass
class Note(Fact):
    """Free text that matters: the reporter's description, a versions line, unknown keys."""

    report_key: ClassVar[str] = "note"

    source: str
    kind: str  # "description", "software", "unknown_key", "unrecognised_file", ...
    text: str
    data: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- container


@dataclass
class ProbeFailure(Fact):
    """A probe that did not deliver: `reason` is "timeout" (killed), "error" or "skipped".

    A hung collective is the typical timeout: its ranks are killed, the rest of the report
    still arrives, and rules turn this record into a finding.
    """

    report_key: ClassVar[str] = "probe_failure"

    source: str
    probe: str  # "collectives", "kernels.hbm", ...
    reason: str
    detail: str = ""
    seconds: float | None = None
    group: list[int] | None = None
    data: dict = field(default_factory=dict)


# ------------------------------------------------------------------ capture facts (diagnose/capture)


# Kernel-duration histogram edges (ns): fine where CPU launch costs lie (2-20 us per call), so a
# rule can count the kernels shorter than their process's launch call.
DURATION_EDGES_NS = tuple(range(1000, 20_001, 1000)) + (30_000, 50_000, 100_000)


@dataclass
class CaptureInfo(Fact):
    """What one export is: version, what it traced, what it lacks, which GPUs it saw."""

    report_key: ClassVar[str] = "capture_info"

    source: str
    file: str
    product_version: str | None = None
    schema_version: str | None = None
    session_start_utc_ns: int | None = None
    missing_tables: list[str] = field(default_factory=list)
    gpus_listed: list[str] = field(default_factory=list)  # TARGET_INFO_GPU: every GPU on the host
    gpus_used: list[str] = field(default_factory=list)  # those with activity
    processes_with_gpu_work: int = 0
    kernel_rows: int = 0
    runtime_rows: int = 0
    partial_export: str | None = None  # EXPORT_PARAM_TABLES_TO_EXPORT / TIMES_TO_EXPORT when set
    host: str | None = None

    def missing_names(self) -> list[str]:
        """The table (or table.columns) each missing_tables entry names, without the reason it gives."""
        return [m.split(":")[0] for m in self.missing_tables]


@dataclass
class GpuTimeline(Fact):
    """One GPU of one process: where its time went (all times in ns)."""

    report_key: ClassVar[str] = "gpu_timeline"

    source: str
    gpu: str  # "pid 144 cuda:0 = GPU 0 (NVIDIA H100 ...)"
    pid: int
    device: int
    gpu_name: str | None = None
    span_ns: int = 0
    busy_ns: int = 0
    idle_ns: int = 0
    kernels: int = 0
    kernel_ns: int = 0
    class_ns: dict[str, int] = field(default_factory=dict)
    class_count: dict[str, int] = field(default_factory=dict)
    comm_union_ns: int = 0
    compute_union_ns: int = 0
    exposed_comm_ns: int = 0
    overlapped_comm_ns: int = 0
    comm_ops: dict[str, int] = field(default_factory=dict)  # collective kind -> kernels
    comm_ops_ns: dict[str, int] = field(default_factory=dict)
    comm_libraries: dict[str, int] = field(default_factory=dict)  # nccl, custom_allreduce, ...
    gap_histogram: dict[str, list[int]] = field(default_factory=dict)  # bucket -> [count, ns]
    small_gaps: int = 0  # kernel-to-kernel gaps under 50 us
    small_gap_ns: int = 0
    short_kernels: int = 0  # kernels under 10 us
    graph_kernels: int = 0
    copy_ns: int = 0
    large_gaps: int = 0  # idle gaps >= 50 us
    large_gap_ns: int = 0
    host_stall_gaps: int = 0  # large gaps during/after a host sync or synchronous copy
    host_stall_ns: int = 0
    # of the idle gaps >= 50 us, the time another GPU of the same file that also exchanges
    # send/recv was busy (stages taking turns: a pipeline); None when not measured
    idle_while_peer_busy_ns: int | None = None
    # kernels per duration bucket: [0] shorter than DURATION_EDGES_NS[0], [i] from edge i-1 to edge i
    duration_hist: list[int] = field(default_factory=list)

    def kernels_shorter_than(self, ns: float) -> tuple[int, int]:
        """(count, edge): kernels shorter than the largest histogram edge at or below `ns`."""
        edges = [e for e in DURATION_EDGES_NS if e <= ns]
        if not edges or not self.duration_hist:
            return 0, 0
        return sum(self.duration_hist[:len(edges)]), edges[-1]

    @property
    def busy_pct(self) -> float:
        return 100.0 * self.busy_ns / self.span_ns if self.span_ns else 0.0


@dataclass
class LaunchStats(Fact):
    """CPU-side launch and synchronisation accounting of one process."""

    report_key: ClassVar[str] = "launch_stats"

    source: str
    pid: int
    kernel_launches: int = 0
    graph_launches: int = 0
    launch_ns: int = 0
    sync_calls: int = 0
    sync_ns: int = 0
    sync_copy_calls: int = 0
    sync_copy_ns: int = 0
    queue_mean_ns: float | None = None
    queue_p50_ns: float | None = None
    api_calls: int = 0
    api_ns: int = 0

    @property
    def launch_avg_ns(self) -> float | None:
        return self.launch_ns / self.kernel_launches if self.kernel_launches else None


@dataclass
class StepStats(Fact):
    report_key: ClassVar[str] = "step_stats"

    source: str
    method: str
    count: int
    p50_ns: float | None
    p95_ns: float | None
    p99_ns: float | None
    mean_ns: float | None
    pid: int | None = None
    device: int | None = None
    kernels_per_step: int | None = None  # pattern steps: the period of the kernel sequence


@dataclass
class StepComm(Fact):
    """Communication kernels of one GPU inside the measured steps only (warm-up, prefill and
    partial steps at the capture's edges left out), so per-step counts divide by the right number."""

    report_key: ClassVar[str] = "step_comm"

    source: str
    gpu: str
    pid: int
    device: int
    steps: int
    window_start_ns: int  # GPU time
    window_end_ns: int
    window_from: str  # how the window was placed on the GPU timeline
    ops: dict[str, int] = field(default_factory=dict)  # collective kind -> kernels in the window
    ops_ns: dict[str, int] = field(default_factory=dict)


@dataclass
class CollectiveSkew(Fact):
    report_key: ClassVar[str] = "collective_skew"

    source: str
    op: str
    instances: int
    ranks: int
    mean_ns: float
    p50_ns: float | None
    p95_ns: float | None
    max_ns: int
    mismatched: bool = False


@dataclass
class Straggler(Fact):
    """The rank the others waited for most, and what it was doing meanwhile."""

    report_key: ClassVar[str] = "straggler"

    source: str
    rank: str
    ranks: int
    collectives: int
    late_count: int
    total_wait_ns: int
    mean_wait_ns: float
    doing_ns: dict[str, int] = field(default_factory=dict)
    idle_ns: int = 0
    runner_up_wait_ns: int = 0


@dataclass
class GridUse(Fact):
    """How much of the GPU the kernels' grids could occupy at all. A thread block runs on one SM,
    so a grid of b blocks keeps at most min(b, SMs) of the GPU's SMs busy: kernel time in grids
    smaller than the SM count is GPU left idle by the launch itself."""

    report_key: ClassVar[str] = "grid_use"

    source: str
    sm_count: int
    sm_from: str  # where the SM count was read
    kernel_ns: int = 0  # all kernel time of the capture
    small_grid_ns: int = 0  # in grids of fewer blocks than SMs
    small_grid_kernels: int = 0
    single_block_ns: int = 0  # in 1-block grids
    idle_sm_ns: float = 0.0  # sum of duration x (1 - blocks / SMs) over small grids
    worst: list[tuple[str, int, int]] = field(default_factory=list)  # (kernel, blocks, ns), most time first


@dataclass
class NcclCalls(Fact):
    """NCCL's own NVTX ranges (NCCL_NVTX, domain "NCCL"): the host-side calls the process made
    (ncclAllReduce, ncclSend, ncclGroupEnd, ...), with their count and CPU time, and the payload
    fields NCCL declares for them (NVTX_PAYLOAD_SCHEMA_ENTRIES: communicator, message size, ...)."""

    report_key: ClassVar[str] = "nccl_calls"

    source: str
    calls: dict[str, list[int]] = field(default_factory=dict)  # call -> [count, CPU ns]
    payload_fields: list[str] = field(default_factory=list)


@dataclass
class CopyStats(Fact):
    """Copies of one kind on one GPU of one process (a facts record: rules read it)."""

    report_key: ClassVar[str] = "copy_stats"

    source: str
    pid: int
    device: int
    kind: str
    count: int
    total_ns: int
    bytes: int
    pageable: int = 0  # host side pageable: staged by the driver, the call becomes synchronous
    uvm: bool = False  # unified-memory page migrations, not explicit copies
    pageable_ns: int = 0  # time of the pageable copies alone
    pageable_bytes: int = 0
    # copies of at least BANDWIDTH_MIN_BYTES (small ones are latency-bound, their bandwidth says
    # nothing about the link): pinned and pageable apart, as [count, bytes, ns]
    large_pinned: list[int] = field(default_factory=lambda: [0, 0, 0])
    large_pageable: list[int] = field(default_factory=lambda: [0, 0, 0])


@dataclass
class IdleGapCause(Fact):
    """One of a GPU's largest idle gaps and what the launching CPU thread did meanwhile (a facts
    record). The gap ends with a kernel or copy; its launch call (same correlationId in
    CUPTI_ACTIVITY_KIND_RUNTIME) names the thread; on that thread, between the gap's start and
    that launch, the CUDA call that overlapped most and the innermost NVTX range around it."""

    report_key: ClassVar[str] = "idle_gap_cause"

    source: str
    pid: int
    device: int
    start_ns: int  # session time
    gap_ns: int
    launch_call: str | None = None  # the call that issued the work ending the gap
    launch_tid: int | None = None
    launch_lead_ns: int | None = None  # gap start -> that call's start: the CPU's turn
    cpu_call: str | None = None  # CUDA call on that thread overlapping the gap most
    cpu_call_ns: int = 0  # of the gap, time inside it
    nvtx: str | None = None  # innermost NVTX range on that thread holding the gap


# The records the capture reader produces (diagnose/capture): a capture's own timeline, not the node's.
CAPTURE_FACTS = (CaptureInfo, GpuTimeline, LaunchStats, StepStats, StepComm, CollectiveSkew, Straggler, GridUse,
                 NcclCalls, CopyStats, IdleGapCause)


@dataclass
class Facts:
    """Everything a command collected, in order of arrival.

    `missing` names artifacts or tables that were absent or unreadable, so rules and the
    verdict can say what to ask for instead of guessing. `subject` is the GPU and model they name,
    as the rules engine resolved them once before the rules ran (rules.subject.Subject; not shown).
    """

    records: list[Any] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    subject: Any = field(default=None, repr=False, compare=False)
    # (name, text) of each text the facts were read from (a ticket's files, a capture's command line), for the rules
    # that weigh what the material shows as a whole (rules.common.engine_releases); not shown
    material: list[tuple[str, str]] = field(default_factory=list, repr=False, compare=False)

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

    def printed_nccl_versions(self) -> list[NcclVersion]:
        """The NCCL versions NCCL itself printed (a log line, a banner), not those looked up from a container
        tag: only these say which NCCL ran."""
        return [v for v in self.of(NcclVersion) if v.derived_from is None]

    def workload(self) -> Workload:
        """All Workload records merged, earliest source first for each field. A field a record only defaulted
        (its extra "defaults": a server launched without a TP flag runs TP 1) yields to any record that states it."""
        merged: dict[str, Any] = {}
        defaulted: dict[str, Any] = {}
        sources = []
        extra: dict[str, Any] = {}
        for w in self.of(Workload):
            sources.append(w.source)
            for f in dataclasses.fields(Workload):
                if f.name in ("source", "extra"):
                    continue
                value = getattr(w, f.name)
                held = defaulted if f.name in w.extra.get("defaults", ()) else merged
                if value is not None and held.get(f.name) is None:
                    held[f.name] = value
            for k, v in w.extra.items():
                if k != "defaults":
                    extra.setdefault(k, v)
        used = tuple(name for name in defaulted if merged.get(name) is None)
        for name in used:
            merged[name] = defaulted[name]
        if used:
            extra["defaults"] = used
        return Workload(source=", ".join(dict.fromkeys(sources)) or "none", extra=extra, **merged)

    def to_dict(self) -> dict[str, Any]:
        """Records grouped by type (snake-case names), for the report's `facts`."""

        grouped: dict[str, list] = {}
        for r in self.records:
            grouped.setdefault(type(r).report_key, []).append(jsonable(r))
        if self.missing:
            grouped["missing"] = list(self.missing)
        return grouped


_PLAIN = (str, int, bool, type(None))  # JSON as they are (exact types: not a subclass, not a float)


def with_machine(facts: Facts | None, machine: Facts | None) -> Facts | None:
    """The inputs' facts with the machine files' (--node: a topology matrix, a node report) put first: whatever reads
    the first record of a kind (the TP ring's route, rules.topology.ring_route: the first CPU model, the first
    topology) then reads the machine the user named, the same in capture, scaling and plan."""
    if machine is None or not machine.records:
        return facts
    if facts is None:
        return machine
    return Facts(records=[*machine.records, *facts.records], missing=list(facts.missing),
                 material=list(facts.material))


def jsonable(value):
    """Dataclasses, tuples, sets and floats that JSON cannot hold (nan, inf) made plain. The plain
    types are checked first by exact type, and a container's plain items are taken without a call
    of their own: a --stats report holds hundreds of thousands of values (0.08 -> 0.05 s of CPU
    for the 430 k of a 1 M-kernel export's)."""
    import math

    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:
        return {k if type(k) is str else str(k): v if type(v) in _PLAIN else jsonable(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [v if type(v) in _PLAIN else jsonable(v) for v in value]
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
