"""Write synthetic Nsight Systems SQLite exports of tensor/pipeline-parallel LLM inference.

No public capture holds a TP all-reduce decode, so the project makes its own: this module
simulates the host and GPU timelines of every rank (launch APIs, CUDA-graph replays, kernels,
collectives that end when the last rank arrives, copies, stream syncs, NVTX ranges) and writes
them with the exact table DDL of a real export (samples/schema/*.sql, copied from real files).
Scenarios (samples/scenarios.toml) each carry one known cause: healthy, comm_bound,
launch_bound, straggler, pp_bubble. Everything is seeded, so output is deterministic.

    python -m samples.generate_capture --scenario straggler -o out.sqlite [--kernels N] [--schema old]

Rows are streamed to SQLite in chunks, so a capture of millions of kernels needs little memory.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import random
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from rules import catalog

HERE = Path(__file__).parent
SCENARIOS_FILE = HERE / "scenarios.toml"
CAPTURES_DIR = HERE / "captures"

# What each export version looks like: DDL file, metadata table and its keys, extra tables.
VERSIONS = {
    "recent": {"product": "2025.1.1.110", "schema": "3.17.1", "ddl": "nsys-2025.1.1.sql",
               "meta_table": "META_DATA_EXPORT", "out_key": "EXPORT_PARAM_OUTPUT_FILE",
               "in_key": "EXPORT_PARAM_INPUT_FILE"},
    "old": {"product": "2022.1.3.3", "schema": "2.9.1", "ddl": "nsys-2022.1.3.sql",
            "meta_table": "EXPORT_META_DATA", "out_key": "EXPORT_OUTUPT_FILE",
            "in_key": "EXPORT_INPUT_FILE"},
}

# Activity tables are "lazy" in real exports: present only when they hold rows.
LAZY_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
               "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS",
               "CUDA_GRAPH_NODE_EVENTS", "CUDA_GRAPH_EVENTS")

# Columns we write per table (a subset of the DDL; the rest stay NULL as in real exports).
KERNEL_COLS = ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
               "demangledName", "shortName", "mangledName", "launchType", "cacheConfig",
               "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
               "staticSharedMemory", "dynamicSharedMemory", "localMemoryPerThread", "localMemoryTotal",
               "gridId", "sharedMemoryExecuted", "graphNodeId", "sharedMemoryLimitConfig")
RUNTIME_COLS = ("start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue")
MEMCPY_COLS = ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes",
               "copyKind", "srcKind", "dstKind")
SYNC_COLS = ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "syncType",
             "eventId")
NVTX_COLS = ("start", "end", "eventType", "text", "globalTid", "domainId")
GRAPH_NODE_COLS = ("start", "end", "eventClass", "globalTid", "nameId", "graphNodeId", "originalGraphNodeId")
GRAPH_COLS = ("start", "end", "eventClass", "globalTid", "nameId", "graphId", "originalGraphId", "graphExecId")

VM = 1 << 48                  # VM id 1, as on every sampled single-host capture
COMPUTE_STREAM = 7            # the default (null) stream; vLLM runs model and NCCL on it
U0 = 1_767_000_000_000_000_000  # UTC ns of the simulated run (2025-12-29)
CHUNK = 100_000
NVTX_PUSHPOP, NVTX_DOMAIN_CREATE = 59, 75
EVT_RUNTIME, EVT_DRIVER = 0, 1
EVT_GRAPH_NODE, EVT_GRAPH_EXEC, EVT_GRAPH = 77, 94, 95
COMM_ROLES = ("allreduce", "allgather", "send", "recv")


# --- scenario data -------------------------------------------------------------------------------

def load_config() -> dict:
    with open(SCENARIOS_FILE, "rb") as f:
        return tomllib.load(f)


def scenario_names() -> list[str]:
    return list(load_config()["scenarios"])


def hardware(cfg: dict, key: str) -> dict:
    """Catalog figures of GPU `key` plus the identity fields nsys records (chip, CC, clock)."""
    g = catalog.gpu(key)
    return dict(cfg["gpus"][key], key=g.key, name=g.nvml_names[0] if g.nvml_names else g.name,
                memory_gb=g.memory_gb, hbm_gbs=g.hbm_gbs, tflops=g.bf16_tflops, sms=g.sms,
                l2_bytes=int(g.l2_mb * 1024 * 1024))


def model_spec(key: str) -> dict:
    m = catalog.model(key)
    return {f: getattr(m, f) for f in ("key", "name", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn",
                                       "vocab")}


# --- timings: a plain roofline with fixed efficiencies ---------------------------------------------
# The scenarios are timed with their own simple physics (fixed MBU and MFU, NCCL's ring formula on
# the catalog's fabric figures), not the predictor's calibrated model: the samples test the capture
# analysis, and must not change each time the predictor is recalibrated.

FLOOR_US = 2.0      # no kernel, however small, takes less on these GPUs
MBU = 0.75          # share of HBM bandwidth a kernel's bytes move at
MFU = 0.60          # share of the tensor rate a kernel's FLOPs run at


def kernel_time_us(gpu: dict, nbytes: float, flops: float = 0.0, floor_us: float = FLOOR_US) -> float:
    """Time of one kernel: the slower of memory and compute at MBU/MFU."""
    mem = nbytes / (gpu["hbm_gbs"] * 1e9 * MBU)
    comp = flops / (gpu["tflops"] * 1e12 * MFU)
    return max(max(mem, comp) * 1e6, floor_us)


def _ring_us(key: str, nranks: int, nbytes: float) -> float:
    """NCCL's ring model on a catalog fabric: latency + 2(n-1) hops + 2(n-1)/n x bytes at the achieved bus bandwidth."""
    ic = catalog.interconnect(key)
    if nranks <= 1:
        return 0.0
    return ic.latency_us + 2 * (nranks - 1) * ic.hop_us + 2.0 * (nranks - 1) / nranks * nbytes / (ic.achieved_gbs * 1e3)


def collective_time_us(link: str | dict, nranks: int, nbytes: float, kind: str) -> float:
    """Expected NCCL time once every rank has arrived. `link` is a catalog interconnect key
    (the predictor's alpha-beta model), or a [links.*] entry of scenarios.toml for a path the
    catalog does not describe (same ring formula: alpha + hops + bus bytes / bus bandwidth)."""
    if isinstance(link, str):
        if kind in ("send", "recv"):
            ic = catalog.interconnect(link)
            return ic.latency_us + ic.hop_us + nbytes / (ic.achieved_gbs * 1e3)
        # Ring all-gather moves (n-1)/n of the gathered bytes: half an all-reduce's data term.
        return _ring_us(link, nranks, nbytes if kind == "allreduce" else nbytes / 2)
    if kind in ("send", "recv"):
        return link["alpha_us"] + link["hop_us"] + nbytes / (link["busbw_gbs"] * 1e9) * 1e6
    steps = 2 * (nranks - 1) if kind == "allreduce" else nranks - 1
    return link["alpha_us"] + steps * link["hop_us"] + nbytes * steps / nranks / (link["busbw_gbs"] * 1e9) * 1e6


# --- kernel names ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class KernelType:
    short: str
    demangled: str
    mangled: str | None
    grid: tuple
    block: tuple
    regs: int
    smem: int = 0
    dsmem: int = 0
    api: str = "cudaLaunchKernel_v7000"


def _kernel_type(entry: dict) -> KernelType:
    short = entry["short"]
    api = entry.get("api", "cudaLaunchKernel_v7000")
    return KernelType(short, entry.get("demangled", short),
                      entry.get("mangled", short if "demangled" not in entry else None),
                      tuple(entry["grid"]), tuple(entry["block"]), entry["regs"],
                      entry.get("smem", 0), entry.get("dsmem", 0), api)


def nccl_kernel(kind: str, version: str, dtype: str) -> KernelType:
    """The NCCL kernel a collective runs in, spelled as that NCCL version compiles it.

    >= 2.19 ncclDevKernel_<Coll>[_Sum_<ty>]_RING_LL; 2.8-2.18 ncclKernel_<Coll>_RING_LL_Sum_<ctype>
    (send/recv: ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t). Parameter lists by version as in
    shared/docs/nsys-sqlite-schema.md section 9.1.
    """
    major, minor = (int(x) for x in version.split(".")[:2])
    v = (major, minor)
    if v >= (2, 19):
        name = {"allreduce": f"ncclDevKernel_AllReduce_Sum_{dtype}_RING_LL",
                "allgather": "ncclDevKernel_AllGather_RING_LL"}.get(kind, "ncclDevKernel_SendRecv")
        if v >= (2, 22):
            params, mparams = "ncclDevKernelArgsStorage<(unsigned long)4096>", "24ncclDevKernelArgsStorageILm4096EE"
        else:
            params, mparams = "ncclDevComm *, unsigned long, ncclWork *", "P11ncclDevCommmP8ncclWork"
        api = "cuLaunchKernelEx"
    else:
        ctype = {"bf16": "__nv_bfloat16", "f16": "half", "f32": "float"}[dtype]
        name = {"allreduce": f"ncclKernel_AllReduce_RING_LL_Sum_{ctype}",
                "allgather": "ncclKernel_AllGather_RING_LL_Sum_int8_t"}.get(
                    kind, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t")
        if v >= (2, 13):
            params, mparams = "ncclDevComm *, unsigned long, ncclWork *", "P11ncclDevCommmP8ncclWork"
        elif v >= (2, 12):
            params, mparams = "ncclDevComm *, ncclWorkElem", "P11ncclDevComm12ncclWorkElem"
        else:
            params, mparams = "ncclWorkElem", "12ncclWorkElem"
        api = "cudaLaunchKernel_v7000"
    grid = (2, 1, 1) if kind in ("send", "recv") else (8, 1, 1)
    return KernelType(name, f"{name}({params})", f"_Z{len(name)}{name}{mparams}", grid, (640, 1, 1),
                      96, 21568, 82240, api)


# --- what one step runs -----------------------------------------------------------------------------

@dataclass
class Op:
    role: str          # kernel role in the stack, or one of COMM_ROLES
    us: float          # duration on a healthy GPU (collectives: transfer time once all arrived)
    graph: bool        # replayed inside the CUDA graph (else launched eagerly)
    nbytes: int = 0


@dataclass
class Scenario:
    name: str
    cfg: dict
    gpu: dict
    model: dict
    link: dict
    tp: int
    pp: int
    dtype_bytes: int = 2

    @property
    def world(self) -> int:
        return self.tp * self.pp


def scenario(name: str, schema: str | None = None) -> Scenario:
    cfg = load_config()
    if name not in cfg["scenarios"]:
        raise SystemExit(f"unknown scenario {name!r}; known: {', '.join(cfg['scenarios'])}")
    sc = dict(cfg["scenarios"][name])
    if schema:
        sc["schema"] = schema
    sc["kernels"] = {role: _kernel_type(e) for role, e in cfg["stacks"][sc["stack"]]["kernels"].items()}
    link = cfg["links"].get(sc["interconnect"], sc["interconnect"])
    return Scenario(name, sc, hardware(cfg, sc["gpu"]), model_spec(sc["model"]), link, sc["tp"], sc["pp"])


def step_ops(s: Scenario, phase: str, stage: int) -> list[Op]:
    """Kernels one rank of `stage` runs in one prefill or decode step (vLLM's Llama forward)."""
    m, g, tp, b = s.model, s.gpu, s.tp, s.dtype_bytes
    # A prefill step runs one new request's prompt; a decode step one token per running request.
    tokens = s.cfg["prompt"] if phase == "prefill" else s.cfg["batch"]
    ctx = s.cfg["context"] if phase == "decode" else s.cfg["prompt"]
    in_graph = phase == "decode" and s.cfg["graphs"]
    h, kvh, hd = m["hidden"], m["kv_heads"], m["head_dim"]
    heads, kv_local = m["heads"] // tp, max(1, kvh // tp)
    act = tokens * h * b

    def gemm(k: int, n: int) -> Op:
        role = "gemm" if tokens >= 64 else "gemm_skinny"
        return Op(role, kernel_time_us(g, (k * n + tokens * (k + n)) * b, 2.0 * tokens * k * n), in_graph)

    def small(role: str, nbytes: float) -> Op:
        return Op(role, kernel_time_us(g, nbytes), in_graph)

    def allreduce() -> Op:
        return Op("allreduce", collective_time_us(s.link, tp, act, "allreduce"), in_graph, act)

    per_stage = m["layers"] // s.pp
    first, last = stage == 0, stage == s.pp - 1
    ops: list[Op] = []
    if not first:
        ops.append(Op("recv", collective_time_us(s.link, 2, 2 * act, "recv"), False, 2 * act))
    if first:
        ops.append(small("embed", act + tokens * 8))
        if tp > 1:
            ops.append(allreduce())
    for layer in range(per_stage):
        ops.append(small("rmsnorm" if first and layer == 0 else "add_rmsnorm", 3 * act))
        ops.append(gemm(h, (heads + 2 * kv_local) * hd))
        ops.append(small("rotary", 2 * tokens * (heads + kv_local) * hd * b))
        ops.append(small("kv_cache", 4 * tokens * kv_local * hd * b))
        if phase == "decode":
            kv_bytes = s.cfg["batch"] * ctx * 2 * kv_local * hd * b
            ops.append(Op("attn_decode", kernel_time_us(g, kv_bytes, 0, 3.0), in_graph))
            ops.append(small("attn_combine", tokens * heads * hd * 4 * 4))
        else:
            flops = 2.0 * ctx * ctx * heads * hd  # causal: half of 4*n^2*d
            ops.append(Op("attn_prefill", kernel_time_us(g, 3 * act, flops, 4.0), in_graph))
        ops.append(gemm(heads * hd, h))
        if tp > 1:
            ops.append(allreduce())
        ops.append(small("add_rmsnorm", 3 * act))
        ops.append(gemm(h, 2 * m["ffn"] // tp))
        ops.append(small("act", 3 * tokens * m["ffn"] // tp * b))
        ops.append(gemm(m["ffn"] // tp, h))
        if tp > 1:
            ops.append(allreduce())
    if not last:
        ops.append(Op("send", collective_time_us(s.link, 2, 2 * act, "send"), False, 2 * act))
        return ops
    ops.append(small("add_rmsnorm", 3 * act))
    # Logits and sampling run eagerly after the graph (vLLM keeps the sampler out of it).
    rows = s.cfg["batch"] if phase == "decode" else 1     # logits of each sequence's last token
    vocab_local = m["vocab"] // tp
    ops.append(Op("lm_head", kernel_time_us(g, (h * vocab_local + rows * h) * b, 2.0 * rows * h * vocab_local), False))
    if tp > 1:
        logits = rows * vocab_local * b
        ops.append(Op("allgather", collective_time_us(s.link, tp, logits * tp, "allgather"), False, logits * tp))
    ops.append(Op("copy", kernel_time_us(g, rows * m["vocab"] * 6), False))
    ops.append(Op("argmax", kernel_time_us(g, rows * m["vocab"] * 4), False))
    return ops


# --- the SQLite writer -----------------------------------------------------------------------------

class ExportWriter:
    """One .sqlite export: real DDL, interned strings, rows streamed in chunks."""

    def __init__(self, path: Path, version: str):
        self.path, self.version = Path(path), version
        self.v = VERSIONS[version]
        if self.path.exists():
            self.path.unlink()
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=OFF")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.executescript((HERE / "schema" / self.v["ddl"]).read_text())
        self.tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        self.strings: dict[str, int] = {}
        self.buffers: dict[str, list] = {}
        self.cols: dict[str, tuple] = {}
        self.counts: dict[str, int] = {}

    def sid(self, text: str) -> int:
        got = self.strings.get(text)
        if got is None:
            got = self.strings[text] = len(self.strings)
            self.add("StringIds", ("id", "value"), (got, text))
        return got

    def add(self, table: str, cols: tuple, row: tuple) -> None:
        if table not in self.tables:
            return
        buf = self.buffers.get(table)
        if buf is None:
            buf = self.buffers[table] = []
            self.cols[table] = cols
        buf.append(row)
        if len(buf) >= CHUNK:
            self.flush(table)

    def flush(self, table: str) -> None:
        buf = self.buffers.get(table)
        if buf:
            cols = self.cols[table]
            self.db.executemany(f"INSERT INTO {table} ({','.join(cols)}) VALUES ({','.join('?' * len(cols))})", buf)
            self.counts[table] = self.counts.get(table, 0) + len(buf)
            buf.clear()

    def close(self) -> None:
        for table in list(self.buffers):
            self.flush(table)
        for table in LAZY_TABLES:
            if table in self.tables and not self.counts.get(table):
                self.db.execute(f"DROP TABLE {table}")
        self.db.commit()
        self.db.execute("VACUUM")
        self.db.close()


# --- simulation --------------------------------------------------------------------------------------

@dataclass
class Rank:
    """Host and GPU clocks (ns, global simulated time) and ids of one rank's process."""
    rank: int
    pid: int
    device: int
    context: int
    slow: float
    writer: ExportWriter | None          # None: simulated but not captured
    offset: int                          # global -> local timestamp shift of its export
    host: float = 0.0
    gpu: float = 0.0
    corr: int = 0
    grid_id: int = 0
    graph_nodes: dict = field(default_factory=dict)   # op index -> exec graph node id

    @property
    def gpid(self) -> int:
        return VM | (self.pid << 24)

    @property
    def gtid(self) -> int:
        return self.gpid | self.pid       # main thread: tid == pid


class Simulator:
    # Host-side costs (us): launch API durations, launch-to-start latency, graph node gaps.
    LAUNCH_API_US = {"cudaLaunchKernel_v7000": 4.5, "cuLaunchKernelEx": 5.5}
    LAUNCH_LATENCY_US = 4.0
    GRAPH_NODE_GAP_US = 1.2
    EAGER_GAP_US = 1.8

    def __init__(self, s: Scenario, ranks: list[Rank], seed: int = 7):
        self.s, self.ranks, self.rng = s, ranks, random.Random(seed)
        self.nccl = s.cfg["nccl"]
        self.dtype = {"fp16": "f16", "bf16": "bf16"}[s.cfg.get("dtype", "bf16")]
        self.host_per_op = s.cfg.get("host_per_op_us", 20.0)   # eager launches only
        self.ktypes = dict(s.cfg["kernels"])
        for kind in COMM_ROLES:
            self.ktypes[kind] = nccl_kernel(kind, self.nccl, self.dtype)

    def jitter(self, us: float, spread: float = 0.03) -> float:
        return us * (1.0 + self.rng.uniform(-spread, spread))

    # rows ------------------------------------------------------------------------------------------
    def api(self, r: Rank, name: str, start: float, end: float) -> int:
        r.corr += 1
        if r.writer:
            w = r.writer
            cls = EVT_DRIVER if name.startswith("cu") and not name.startswith("cuda") else EVT_RUNTIME
            w.add("CUPTI_ACTIVITY_KIND_RUNTIME", RUNTIME_COLS,
                  (int(start) + r.offset, int(end) + r.offset, cls, r.gtid, r.corr, w.sid(name), 0))
        return r.corr

    def kernel(self, r: Rank, kt: KernelType, start: float, end: float, corr: int, node: int | None) -> None:
        r.grid_id += 1
        if not r.writer:
            return
        w = r.writer
        w.add("CUPTI_ACTIVITY_KIND_KERNEL", KERNEL_COLS,
              (int(start) + r.offset, int(end) + r.offset, r.device, r.context, COMPUTE_STREAM, corr, r.gpid,
               w.sid(kt.demangled), w.sid(kt.short), w.sid(kt.mangled) if kt.mangled else None, 1, 1,
               kt.regs, *kt.grid, *kt.block, kt.smem, kt.dsmem, 0, 155713536, r.grid_id,
               kt.smem + kt.dsmem + 1024, node, 0))

    def memcpy(self, r: Rank, kind: int, nbytes: int) -> None:
        """An async copy on the compute stream: HtoD (1) or DtoH (2), pinned host memory."""
        start = r.host
        corr = self.api(r, "cudaMemcpyAsync_v3020", start, start + 4000)
        r.host = start + 4000
        gstart = max(r.gpu + 1000, r.host)
        gend = gstart + 1500 + nbytes / 25.0      # ~25 GB/s for small pinned copies
        r.gpu = gend
        if r.writer:
            src, dst = (1, 2) if kind == 1 else (2, 1)
            r.writer.add("CUPTI_ACTIVITY_KIND_MEMCPY", MEMCPY_COLS,
                         (int(gstart) + r.offset, int(gend) + r.offset, r.device, r.context, COMPUTE_STREAM,
                          corr, r.gpid, nbytes, kind, src, dst))

    def stream_sync(self, r: Rank) -> None:
        start = r.host
        end = max(start + 2000, r.gpu + 3000)
        corr = self.api(r, "cudaStreamSynchronize_v3020", start, end)
        if r.writer:
            r.writer.add("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", SYNC_COLS,
                         (int(max(start, r.gpu)) + r.offset, int(end) + r.offset, r.device, r.context,
                          COMPUTE_STREAM, corr, r.gpid, 3, 4294967295))
        r.host = end

    def nvtx(self, r: Rank, text: str, start: float, end: float | None, domain: int = 0,
             event_type: int = NVTX_PUSHPOP) -> None:
        if r.writer:
            r.writer.add("NVTX_EVENTS", NVTX_COLS, (int(start) + r.offset, None if end is None else int(end) + r.offset,
                                                     event_type, text, r.gtid, domain))

    # graph capture (once, before the first replay) -------------------------------------------------
    def capture_graph(self, r: Rank, ops: list[Op]) -> None:
        """Stream capture + instantiate: CUDA_GRAPH_* creation rows; kernels get exec node ids.

        Without trace_graph_creation the graph was captured before the profiled window: the
        replayed kernels still carry node ids, but no capture-time rows exist.
        """
        if not self.s.cfg.get("trace_graph_creation"):
            for i, op in enumerate(ops):
                if op.graph:
                    r.graph_nodes[i] = 100_001 + len(r.graph_nodes)
            return
        w = r.writer
        t = r.host
        self.api(r, "cudaStreamBeginCapture_v10000", t, t + 3000)
        t += 3000
        for i, op in enumerate(ops):
            if not op.graph:
                continue
            api = self.ktypes[op.role].api
            self.api(r, api, t, t + 6000)
            node = len(r.graph_nodes) + 1
            r.graph_nodes[i] = 100_000 + node
            if w:
                w.add("CUDA_GRAPH_NODE_EVENTS", GRAPH_NODE_COLS,
                      (int(t) + 5000 + r.offset, int(t) + 5000 + r.offset, EVT_GRAPH_NODE, r.gtid, w.sid(api),
                       node, None))
            t += 6000 + 20_000          # Python between captured ops
        self.api(r, "cudaStreamEndCapture_v10000", t, t + 40_000)
        if w:
            w.add("CUDA_GRAPH_EVENTS", GRAPH_COLS, (int(t) + r.offset, int(t) + 40_000 + r.offset, EVT_GRAPH, r.gtid,
                                                    w.sid("cudaStreamEndCapture_v10000"), 1, None, None))
        t += 40_000
        self.api(r, "cudaGraphInstantiateWithFlags_v11040", t, t + 900_000)
        if w:
            w.add("CUDA_GRAPH_EVENTS", GRAPH_COLS, (int(t) + r.offset, int(t) + 900_000 + r.offset, EVT_GRAPH_EXEC,
                                                    r.gtid, w.sid("cudaGraphInstantiateWithFlags_v11040"), 1, None, 1))
            if "CUDA_GRAPH_NODE_EVENTS" in w.tables:     # instantiate clones every node
                for original, cloned in ((n - 100_000, n) for n in r.graph_nodes.values()):
                    w.add("CUDA_GRAPH_NODE_EVENTS", GRAPH_NODE_COLS,
                          (int(t) + 800_000 + r.offset, int(t) + 800_000 + r.offset, EVT_GRAPH_NODE, r.gtid,
                           w.sid("cudaGraphInstantiateWithFlags_v11040"), cloned, original))
        r.host = t + 900_000 + 2_000_000
        r.gpu = max(r.gpu, r.host)

    # one step ----------------------------------------------------------------------------------------
    def run_group(self, group: list[Rank], ops: list[Op], peers: dict | None = None) -> None:
        """Run `ops` on the TP ranks of one stage in lockstep; collectives end when all arrived.

        `peers` maps this stage's rank -> (start, end) of the matching send on the previous stage.
        """
        launched = {r.rank: None for r in group}      # graph launch correlation id per rank
        for i, op in enumerate(ops):
            kt = self.ktypes[op.role]
            ready, corrs = {}, {}
            for r in group:
                if op.graph:
                    if launched[r.rank] is None:
                        t = r.host
                        launched[r.rank] = self.api(r, "cudaGraphLaunch_v10000", t, t + 18_000)
                        r.host = t + 18_000
                        r.gpu = max(r.gpu, r.host + self.LAUNCH_LATENCY_US * 1000)
                    corrs[r.rank] = launched[r.rank]
                    ready[r.rank] = r.gpu + self.GRAPH_NODE_GAP_US * 1000
                    continue
                if op.role == "recv" and peers:        # host waits on the CPU-side metadata first
                    r.host = max(r.host, peers[r.rank][0] - 15_000)
                r.host += self.host_per_op * 1000 * self.rng.uniform(0.95, 1.1)
                api_us = self.LAUNCH_API_US.get(kt.api, 5.0)
                nccl_range = op.role in COMM_ROLES and self.s.cfg.get("nvtx_nccl")
                if nccl_range:
                    r.host += 2000
                corrs[r.rank] = self.api(r, kt.api, r.host, r.host + api_us * 1000)
                if nccl_range:
                    name = {"allreduce": "ncclAllReduce", "allgather": "ncclAllGather",
                            "send": "ncclSend", "recv": "ncclRecv"}[op.role]
                    self.nvtx(r, name, r.host - 2000, r.host + api_us * 1000 + 1500, domain=1)
                    r.host += 1500
                r.host += api_us * 1000
                ready[r.rank] = max(r.gpu + self.EAGER_GAP_US * 1000, r.host + self.LAUNCH_LATENCY_US * 1000)
            if op.role in ("allreduce", "allgather"):
                end = max(ready.values()) + self.jitter(op.us) * 1000
                for r in group:
                    self.kernel(r, kt, ready[r.rank], end + self.rng.uniform(0, 800), corrs[r.rank],
                                r.graph_nodes.get(i) if op.graph else None)
                    r.gpu = end
            elif op.role == "send":
                continue                               # written with its recv (next stage)
            elif op.role == "recv":
                for r in group:
                    s_start, s_end = peers[r.rank]
                    end = max(s_end, ready[r.rank] + self.jitter(op.us) * 1000)
                    self.kernel(r, kt, ready[r.rank], end, corrs[r.rank], None)
                    r.gpu = end
            else:
                for r in group:
                    dur = self.jitter(op.us) * r.slow * 1000
                    self.kernel(r, kt, ready[r.rank], ready[r.rank] + dur, corrs[r.rank],
                                r.graph_nodes.get(i) if op.graph else None)
                    r.gpu = ready[r.rank] + dur

    def send(self, group: list[Rank], nxt: list[Rank], op: Op) -> dict:
        """Launch the sends of `group` (last op of a stage); the matching recv decides their end."""
        kt = self.ktypes["send"]
        out = {}
        for r, peer in zip(group, nxt):
            r.host += self.host_per_op * 1000
            corr = self.api(r, kt.api, r.host, r.host + 5500)
            r.host += 5500
            start = max(r.gpu + self.EAGER_GAP_US * 1000, r.host + self.LAUNCH_LATENCY_US * 1000)
            # The receiver posts its recv ~15 us before the data is ready (see run_group).
            end = start + self.jitter(op.us) * 1000 + 15_000
            self.kernel(r, kt, start, end, corr, None)
            r.gpu = end
            out[peer.rank] = (start, end)
        return out

    def run(self, phases: list[str]) -> None:
        s = self.s
        stages = [self.ranks[st * s.tp:(st + 1) * s.tp] for st in range(s.pp)]
        step_ops_cache = {(ph, st): step_ops(s, ph, st) for ph in set(phases) for st in range(s.pp)}
        if s.cfg["graphs"] and "decode" in phases:
            for st, group in enumerate(stages):
                for r in group:
                    self.capture_graph(r, step_ops_cache[("decode", st)])
        start = max(r.host for r in self.ranks)
        for r in self.ranks:
            r.host = r.gpu = start
        nvtx_name = s.cfg.get("nvtx", "")
        for phase in phases:
            step_start, peers = {}, None
            for st, group in enumerate(stages):
                ops = step_ops_cache[(phase, st)]
                for r in group:
                    step_start[r.rank] = r.host
                    r.host += 1000
                    self.memcpy(r, 1, s.cfg["batch"] * 8 * 3)          # input ids, positions, slots
                body = ops[:-1] if ops[-1].role == "send" else ops
                self.run_group(group, body, peers)
                if ops[-1].role == "send":
                    peers = self.send(group, stages[st + 1], ops[-1])
            last = stages[-1]
            for r in last:
                self.memcpy(r, 2, s.cfg["batch"] * 8)                  # sampled token ids
                self.stream_sync(r)
            done = max(r.host for r in last)
            for st, group in enumerate(stages):
                for r in group:
                    end = max(r.host, done) if st == s.pp - 1 else r.host
                    if nvtx_name:
                        self.nvtx(r, nvtx_name, step_start[r.rank], end)
            next_host = done + self.jitter(s.cfg["host_gap_us"], 0.1) * 1000
            for r in self.ranks:
                r.host = max(r.host, next_host + (8_000 if r.rank else 0))   # scheduler broadcast


# --- export-level metadata ---------------------------------------------------------------------------

def _utc(ns: int) -> str:
    return _dt.datetime.fromtimestamp(ns / 1e9, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def write_metadata(w: ExportWriter, s: Scenario, ranks: list[Rank], session_utc: int, stop_local: int,
                   out_name: str) -> None:
    v = w.v
    meta = [("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"), ("EXPORT_PRODUCT_VERSION", v["product"]),
            ("EXPORT_PRODUCT_DATE", v["product"][:6]), ("EXPORT_SCHEMA_VERSION", v["schema"])]
    meta += list(zip(("EXPORT_SCHEMA_VERSION_MAJOR", "EXPORT_SCHEMA_VERSION_MINOR", "EXPORT_SCHEMA_VERSION_MICRO"),
                     v["schema"].split(".")))
    meta += [("EXPORT_PLATFORM", "linux-desktop"), ("EXPORT_ARCH", "x64"),
             ("EXPORT_TIME_UTC", _utc(session_utc + stop_local + 5_000_000_000)), ("EXPORT_HOST", "gpu-node-07"),
             (v["in_key"], out_name.replace(".sqlite", ".nsys-rep")), (v["out_key"], out_name)]
    if w.version == "recent":
        meta += [("EXPORT_PARAM_LAZY", "true"), ("EXPORT_PARAM_TIME_NORMALIZE", "false"),
                 ("EXPORT_PARAM_TABLES_TO_EXPORT", ""), ("EXPORT_PARAM_TIMES_TO_EXPORT", "")]
    else:
        meta += [("EXPORT_LAZY", "true")]
    for name, value in meta:
        w.add(v["meta_table"], ("name", "value"), (name, value))

    if w.version == "recent":
        args = ["-m", "vllm.entrypoints.openai.api_server", "--model", s.cfg["hf_model"],
                "--tensor-parallel-size", str(s.tp), "--pipeline-parallel-size", str(s.pp),
                "--max-num-seqs", str(s.cfg["batch"])]
        if not s.cfg["graphs"]:
            args.append("--enforce-eager")
        capture = [("CAPTURE_EVENT_TYPE", "Cuda"), ("CUDA_TRACE_SCOPE", "ProcessTree"),
                   ("PROCESS_0:COMMAND", "python3")]
        if s.cfg.get("nvtx"):
            capture.insert(0, ("CAPTURE_EVENT_TYPE", "NvtxEvents"))
        capture += [(f"PROCESS_0:ARGUMENT_{i}", a) for i, a in enumerate(args)]
        capture.append(("PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE", "Node"))
        env = [f"NCCL_VERSION={s.cfg['nccl']}", f"WORLD_SIZE={s.world}"] + list(s.cfg.get("env", []))
        if len(ranks) == 1:
            env += [f"RANK={ranks[0].rank}", f"LOCAL_RANK={ranks[0].rank}"]
        capture += [("PROCESS_0:ENVIRONMENT_VARIABLE", e) for e in env]
        for name, value in capture:
            w.add("META_DATA_CAPTURE", ("name", "value"), (name, value))

    w.add("TARGET_INFO_SESSION_START_TIME", ("utcEpochNs", "utcTime", "localTime"),
          (session_utc, _utc(session_utc), _utc(session_utc)))
    w.add("ANALYSIS_DETAILS", ("globalVid", "duration", "startTime", "stopTime"), (VM, stop_local, 0, stop_local))
    env_rows = [("Hostname", 619, "gpu-node-07"), ("NvDriverVersion", 205, "550.127.05"),
                ("CudaDriverVersion", 611, "12040"), ("CpuCores", 1, "112"),
                ("CpuDescription", 13, "Intel(R) Xeon(R) Platinum 8480+")]
    for name, enum, value in env_rows:
        w.add("TARGET_INFO_SYSTEM_ENV", ("globalVid", "devStateName", "name", "nameEnum", "value"),
              (VM, "Local (CLI)", name, enum, value))

    g = s.gpu
    for gpu_id in range(8):                       # TARGET_INFO_GPU lists every GPU of the host
        w.add("TARGET_INFO_GPU", ("vmId", "id", "name", "busLocation", "isDiscrete", "l2CacheSize", "totalMemory",
                                  "memoryBandwidth", "clockRate", "smCount", "pwGpuId", "uuid", "luid", "chipName",
                                  "cuDevice", "computeMajor", "computeMinor", "smMajor", "smMinor",
                                  "threadsPerWarp", "maxThreadsPerBlock"),
              (VM, gpu_id, g["name"], f"0000:{0x18 + 0x11 * gpu_id:02x}:00.0", 1, g["l2_bytes"],
               int(g["memory_gb"] * 1024**3 * 0.98), int(g["hbm_gbs"] * 1e9), g["clock_hz"], g["sms"], gpu_id,
               f"{0x5a1e0000 + gpu_id:08x}-7c1d-4e2b-9a60-{g['chip'].encode().hex()[:8]}{gpu_id:04x}", 0,
               g["chip"], gpu_id, g["cc"][0], g["cc"][1], g["cc"][0], g["cc"][1], 32, 1024))

    names = [("nsys", 11), ("nsys-launcher", 12), ("bash", 13)] + [("python3", r.pid) for r in ranks]
    for name, pid in names:
        w.add("PROCESSES", ("globalPid", "pid", "name"), (VM | (pid << 24), pid, name))
    for r in ranks:
        threads = [("python3", r.pid), ("cuda-EvtHandlr", r.pid + 3), ("pt_nccl_watchdg", r.pid + 9),
                   ("CUPTI worker thread", r.pid + 4)]
        for name, tid in threads:
            w.add("ThreadNames", ("nameId", "priority", "globalTid"), (w.sid(name), 20, r.gpid | tid))
        streams = [(COMPUTE_STREAM, 0, 3), (13, -5 & 0xFFFFFFFF, 2)]
        for stream, prio, flag in streams:
            w.add("TARGET_INFO_CUDA_STREAM", ("streamId", "hwId", "vmId", "processId", "contextId", "priority", "flag"),
                  (stream, 0, 1, r.pid, r.context, prio, flag))
        if w.version == "recent":
            for cuda_id in range(8):
                w.add("TARGET_INFO_CUDA_DEVICE", ("gpuId", "cudaId", "pid"), (cuda_id, cuda_id, r.pid))
            w.add("TARGET_INFO_CUDA_CONTEXT_INFO", ("nullStreamId", "hwId", "vmId", "processId", "deviceId",
                                                    "contextId", "isGreenContext"),
                  (COMPUTE_STREAM, 0, 1, r.pid, r.device, r.context, 0))
        else:
            w.add("TARGET_INFO_CUDA_NULL_STREAM", ("streamId", "hwId", "vmId", "processId", "deviceId", "contextId"),
                  (COMPUTE_STREAM, 0, 1, r.pid, r.device, r.context))
        if s.cfg.get("nvtx_nccl"):          # NCCL registers its NVTX domain at init
            w.add("NVTX_EVENTS", NVTX_COLS, (1_000_000, None, NVTX_DOMAIN_CREATE, "NCCL", r.gtid, 1))


# --- entry points ------------------------------------------------------------------------------------

def output_paths(name: str, out: Path, s: Scenario) -> dict[int, Path]:
    """Captured rank -> file. Per-rank scenarios write OUT_rank<R>.sqlite next to OUT."""
    ranks = s.cfg.get("captured_ranks", [0])
    if s.cfg.get("files") == "per_rank":
        return {r: out.with_name(f"{out.stem}_rank{r}{out.suffix}") for r in ranks}
    return {r: out for r in ranks}


def generate(name: str, out: str | Path, kernels: int | None = None, schema: str | None = None,
             seed: int = 7) -> list[Path]:
    """Write scenario `name`; returns the files written. `kernels` sets the approximate total
    kernel rows per file (the step count is scaled to it; for benchmarks)."""
    s = scenario(name, schema)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    version = s.cfg["schema"]
    paths = output_paths(name, out, s)
    writers = {p: ExportWriter(p, version) for p in set(paths.values())}
    rng = random.Random(seed)
    # Each per-rank export starts its session a little later (the launcher starts nsys per rank);
    # local timestamps are ns since the own session start, utcEpochNs = U0 + that start.
    session = {p: -1_500_000_000 - i * 7_300_000 - rng.randint(0, 900_000) for i, p in enumerate(sorted(writers))}
    ranks = []
    for rank in range(s.world):
        path = paths.get(rank)
        ranks.append(Rank(rank=rank, pid=23_000 + 97 * rank + rng.randint(0, 50), device=rank % 8,
                          context=1 if s.cfg.get("files") == "per_rank" else 1 + rank,
                          slow=float(s.cfg.get("slow_ranks", {}).get(str(rank), 1.0)),
                          writer=writers.get(path), offset=-session[path] if path else 0))
    phases = list(s.cfg["phases"])
    if kernels:
        first = min(writers)
        per_step = sum(len(step_ops(s, "decode", r // s.tp)) for r, p in paths.items() if p == first)
        phases = ["decode"] * max(1, -(-kernels // per_step))
    sim = Simulator(s, ranks, seed)
    sim.run(phases)
    stop = max(max(r.host, r.gpu) for r in ranks)
    for path, w in writers.items():
        captured = [r for r in ranks if paths.get(r.rank) == path]
        write_metadata(w, s, captured, U0 + session[path], int(stop) - session[path] + 1_000_000, path.name)
        w.close()
    return sorted(writers)


DUMPED_TABLES = ("StringIds", "TARGET_INFO_SYSTEM_ENV", "TARGET_INFO_SESSION_START_TIME", "ANALYSIS_DETAILS",
                 "PROCESSES", "ThreadNames", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_STREAM", "TARGET_INFO_CUDA_DEVICE",
                 "TARGET_INFO_CUDA_CONTEXT_INFO", "TARGET_INFO_CUDA_NULL_STREAM", "META_DATA_EXPORT",
                 "META_DATA_CAPTURE", "EXPORT_META_DATA") + LAZY_TABLES


def dump_schema(real_capture: str, out: str, tables=DUMPED_TABLES) -> None:
    """Copy the DDL of `tables` (and every ENUM table with its rows) from a real export.

    This is how samples/schema/*.sql were made (from shared/captures fuser_h200_crossentropy_2025_1
    and dlprof_rtx2070_pytorch_nvtx_2022_1); the CUDA_GRAPH_* DDL at the end of the 2025.1 file was
    added by hand because that export traced no graph creation.
    """
    src = sqlite3.connect(f"file:{real_capture}?mode=ro", uri=True)
    lines = [f"-- DDL copied verbatim from {Path(real_capture).name} by samples.generate_capture --dump-schema."]
    for (name, sql) in src.execute("SELECT name, sql FROM sqlite_master WHERE type='table' ORDER BY rowid"):
        if name in tables or name.startswith("ENUM_"):
            lines.append(sql + ";")
            if name.startswith("ENUM_"):
                for row in src.execute(f"SELECT * FROM {name} ORDER BY id"):
                    vals = ",".join("NULL" if v is None else str(v) if isinstance(v, int)
                                    else "'" + str(v).replace("'", "''") + "'" for v in row)
                    lines.append(f"INSERT INTO {name} VALUES({vals});")
    Path(out).write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m samples.generate_capture", description=__doc__.split("\n")[0])
    p.add_argument("--scenario", choices=scenario_names(), help="scenario from samples/scenarios.toml")
    p.add_argument("-o", "--output", help="output .sqlite (per-rank scenarios add _rank<R>)")
    p.add_argument("--kernels", type=int, help="approximate kernel rows per file (scales the step count)")
    p.add_argument("--schema", choices=sorted(VERSIONS), help="export version to imitate (default: the scenario's)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--all", action="store_true", help="regenerate every committed sample in samples/captures/")
    p.add_argument("--dump-schema", metavar="REAL.sqlite", help="write the DDL of a real export to -o")
    a = p.parse_args(argv)
    if a.dump_schema:
        dump_schema(a.dump_schema, a.output)
        return 0
    if a.all:
        for name in scenario_names():
            for path in generate(name, CAPTURES_DIR / f"{name}.sqlite", seed=a.seed):
                print(f"{path}  {path.stat().st_size / 1e3:.0f} kB")
        return 0
    if not a.scenario or not a.output:
        p.error("--scenario and -o are required (or --all)")
    for path in generate(a.scenario, a.output, a.kernels, a.schema, a.seed):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
