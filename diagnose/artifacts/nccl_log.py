"""NCCL_DEBUG=INFO logs (and the NCCL errors frameworks print): what NCCL saw and chose.

Yields the NCCL version, every `NCCL_* set by environment to ...` echo (NcclSetting), the
transport of each channel connection (NcclTransport: P2P/IPC, P2P/CUMEM, P2P/direct pointer,
SHM, NET/IB with or without GDRDMA, NET/Socket, CollNet, NVLS), and notable lines as NcclEvent:
network selection and its failures, /dev/shm errors, init errors, warnings, channel counts,
rings, trees, NVLS and communicator sizes. Lines that are not NCCL's are ignored, so a log
interleaved with a framework's own output or an nccl-tests table reads fine.

NcclEvent kinds (data): ib_unavailable, ib_transfer_error, net_init_failed, using_socket ({interfaces} or
{network}), network ({network, devices?, link_layers?}), gdr ({enabled, reason}),
shm_alloc_failed ({path, size_bytes, errno?}), p2p_disabled, nvls, collnet, topology, timeout, error,
warn, comm ({rank, nranks, nNodes?, localRanks?, ...}), channels ({coll, p2p, nvls?, collnet?}),
ring ({channel, of, ranks}), trees, p2p_chunksize ({bytes}), affinity ({gpu, mask, cpus}), devices ({devices}: how
many (host, CUDA device) pairs the lines' heads name, where two or more).
HostFact: shm_bytes (from `df /dev/shm`), cuda_driver_version.
"""

from __future__ import annotations

import re

from diagnose.artifacts.text import lines
from diagnose.evidence import (
    HostFact,
    NcclEvent,
    NcclSetting,
    NcclTransport,
    NcclVersion,
    TopologyPath,
    Workload,
    where,
)

KIND = "nccl_log"

# "host:pid:tid [dev] NCCL INFO ..." / "file.cc:12 NCCL WARN ..." / "NCCL INFO ..."
LEVEL = re.compile(r"\bNCCL (?P<level>INFO|WARN|ERROR|TRACE)\b\s*(?P<msg>.*)$")
PREFIX = re.compile(r"(?P<host>[\w.\-]+):(?P<pid>\d+):(?P<tid>\d+)\s+\[(?P<dev>\d+)\]\s+NCCL")
# (as NCCL prints it at init, "NCCL version 2.18.1+cuda12.1", and PyTorch at the end of its errors, "..., NCCL version
# 2.14.3", the line ending there or an NCCL error name following; not a sentence that names a release and goes on,
# "this method uses the NCCL version 2.18.5+cuda11.8 as opposed to version 2.14.3 used by the container",
# "build the container using NCCL version 2.18.5+cuda11.8 please?", mila-iqia/milabench#183: the reporter's comparison,
# which the claims read)
VERSION = re.compile(r"(?<!\bthe )(?<!\bour )(?<!\bmy )(?<!\bthis )(?<!\bthat )"
                     r"\bNCCL version:?\s*(?P<v>\d+\.\d+\.\d+)(?:[+-]cuda(?P<cuda>\d+\.\d+))?"
                     r"(?!\.?\d|[+-]cuda)(?!\s+(?!nccl)[a-z]{2,}\b)", re.I)
FRAMEWORK_VERSION = re.compile(r"using nccl\s*==\s*(?P<v>\d+\.\d+\.\d+)", re.I)
SETTING = re.compile(r"\b(?P<name>(?:NCCL|CUDA|UCX|FI|OMPI)_\w+) set by environment to\s*(?P<value>.*?)\.?\s*$")
# NCCL's path dump (NCCL_DEBUG=INFO, GRAPH): "GPU/CE000 :GPU/0-4e000 (5/10.0/SYS) GPU/0-cf000 (4/24.0/PHB) ...",
# one line per GPU, each entry (hops/bandwidth GB/s/path type) to another device (src/graph/paths.cc, printNodePaths).
_HOPS_BW_TYPE = r"\(\d+/[\d.]+/(?P<type>[A-Z0-9]+)\)"  # an entry's "(hops/bandwidth/path type)"
GPU_PATHS = re.compile(r"\bGPU/(?P<bus>[0-9A-Fa-f]+)\s*:\s*(?P<rest>(?:\w+/[\w-]+\s*" + _HOPS_BW_TYPE + r"\s*)+)$")
PATH_ENTRY = re.compile(r"\bGPU/(?:[0-9A-Fa-f]+-)?(?P<bus>[0-9A-Fa-f]+)\s*" + _HOPS_BW_TYPE)
# Path types are kept as NCCL names them: PIX, PXB, PHB and SYS mean what `nvidia-smi topo -m` means by
# them; NCCL's own (NVL, NVB, C2C, PXN, P2C) are left to the rules that know them.
CONNECTION = re.compile(
    r"\b(?:Channel|Ring)\s+(?P<ch>\d+)(?:/\d+)?\s*:\s*(?P<rank>\d+)\[[^\]]*\]\s*->\s*(?P<peer>\d+)\[[^\]]*\]"
    # (issue 11 s) the transport ends at a closing quote or a comma: a line quoted in prose ("... via NET/IB/0'
    # without GDRDMA, and ...") keeps only NCCL's words (a plugin's name may hold a space: "NET/AWS Libfabric/0")
    r"(?:\s*\[(?P<dir>send|receive)\])?\s+via\s+(?P<via>[^'\"`,;]+?)\s*(?:['\"`,;].*)?$"
)
RING = re.compile(r"\b(?:Channel\s+(?P<ch>\d+)/(?P<of>\d+)|Ring\s+(?P<ring>\d+))\s*:\s*"
                  r"(?P<ranks>-?\d+(?:\s+-?\d+)*)\s*$")
COMM = re.compile(r"\bcomm\s+0x[0-9a-f]+\s+rank\s+(?P<rank>\d+)\s+n[Rr]anks\s+(?P<nranks>\d+)(?P<rest>.*)$")
CHANNELS = re.compile(r"(?P<n>\d+)\s+(?P<what>coll|collnet|nvls|p2p) channels(?! per)")
CHUNK = re.compile(r"P2P Chunksize set to (?P<n>\d+)")
USING_NETWORK = re.compile(r"Using network (?P<net>.+?)\s*$")
NET_SOCKET = re.compile(r"NET/Socket\s*:\s*Using\s+(?P<ifs>.+?)\s*$")
NET_IB_USING = re.compile(r"NET/IB\s*:\s*Using\s+(?P<devs>.+?)(?:;|$)")
# NCCL's lines that show InfiniBand/RoCE in use, as a reporter quotes them in their own words (a ticket's description,
# an issue's prose): the init line naming the HCAs it opened ("NET/IB : Using [0]mlx5_0:1/IB"), and any of its
# network lines ("Using network IB", "via NET/IB/0/GDRDMA", "NET/IB : GPU Direct RDMA Enabled for HCA 0").
IB_HCAS_OPENED = re.compile(r"\bNET/IB\s*:\s*Using\s*\[\d")
IB_IN_USE = re.compile(r"\bUsing network IB\b|\bNET/IB\s*:\s*Using\b|\bvia NET/IB\b|\bNET/IB\s*:\s*GPU Direct RDMA\b",
                       re.I)
GDR_HCA = re.compile(r"GPU Direct RDMA (?P<state>Enabled|Disabled) for (?:HCA|GPU) .*?(?:\((?P<why>[^)]*)\))?\s*$")
SHM_SEGMENT = re.compile(r"(?:creating shared memory segment|extend|open)\s+(?P<path>/dev/shm/[^\s()'\"]+)"
                         r"(?:\s+\(size (?P<size>\d+)\)|\s+to\s+(?P<to>\d+) bytes)?")
# Why a shared-memory call failed, as NCCL prints it: strerror(errno) after the call ("Call to shm_open failed :
# Permission denied", include/shm.h; "error: No such file or directory (2)", misc/shmutils.cc). glibc's strerror texts
# (errno(3)) to their names; which of them means a full /dev/shm is for the rules to say.
STRERROR = {"No space left on device": "ENOSPC", "Cannot allocate memory": "ENOMEM", "Permission denied": "EACCES",
            "Operation not permitted": "EPERM", "No such file or directory": "ENOENT", "File exists": "EEXIST",
            "Too many open files": "EMFILE", "Read-only file system": "EROFS"}
_STRERROR = re.compile("|".join(map(re.escape, STRERROR)), re.I)


def errno_of(text: str) -> str | None:
    """The errno name of the first strerror text in `text` (None when it names none)."""
    m = _STRERROR.search(text)
    return next((name for said, name in STRERROR.items() if said.lower() == m.group(0).lower()), None) if m else None


AFFINITY = re.compile(r"Setting affinity for GPU (?P<gpu>\d+) to (?P<mask>[0-9a-fA-F,-]+)")
# NCCL prints the CPU set it binds a GPU's threads to (the process's affinity within the GPU's local CPUs) in one of
# two forms: hex bytes in 32-bit groups, leading zero bytes dropped ("ffffff,00000000,00ffffff", ncclCpusetToStr),
# or, since NCCL 2.23, CPU ranges ("0-31,64-95", ncclCpusetToRangeStr): https://github.com/NVIDIA/nccl src/misc/utils.cc
CPU_SET_SIZE = 1024  # glibc's cpu_set_t: the most CPUs a mask can name
HEX_MASK = re.compile(r"(?:[0-9a-fA-F]{2}){1,4}(?:,[0-9a-fA-F]{8})*")
# NCCL 2.25 prints this at init when its kernels need more shared memory per block than the device allows: the
# build's size table does not fit this GPU (2.25.1 on sm_120; NCCL 2.26.2's notes: "Fix shared memory usage on recent
# Blackwell GPUs", issues NVIDIA/nccl-tests#287, #291, NVIDIA/nccl#1637). Source: NVIDIA/nccl src/enqueue.cc.
SHARED_MEM = re.compile(r"\bncclMaxSharedMem\s+(?P<need>\d+)\s+exceeds\s+device/fn\s+maxSharedMem\s+(?P<have>\d+)")
# PyTorch's NCCL watchdog on a timeout: "Timeout at NCCL work: 50, last enqueued NCCL work: 50, last completed NCCL
# work: 49." (ProcessGroupNCCL.cpp): collectives of this process group that finished before the one that hung. The
# enqueued count says nothing (the CPU runs ahead of the GPU); the completed one says the transport delivered.
COMPLETED = re.compile(r"\blast completed NCCL work:\s*(?P<n>-?\d+)")
CUDA_DRIVER = re.compile(r"\bcudaDriverVersion\s+(?P<v>\d+)")
SHM_DF = re.compile(r"^(?P<fs>shm|tmpfs|none)\s+(?P<size>\d+(?:\.\d+)?[KMGT]?)\s+\S+\s+\S+\s+\S+\s+/dev/shm\s*$")

# The RDMA transport reporting a transfer that failed or a NIC event, after the connection was up (NCCL's
# src/transport/net_ib: "NET/IB: Got completion from peer <addr> with status=<s>(<n>) ..." from 2.19, "NET/IB : Got
# completion from peer <addr> with error <n>, opcode ..." before it, "Got completion with error <n>" before 2.12,
# "Got CQE with error", "<dev>:<port> async fatal event: ...", "Got async event : ..."). The rank printing it is not
# necessarily the one at fault: a peer that died or a link that dropped reads the same.
IB_TRANSFER_ERROR = re.compile(r"NET/IB\s*:\s*Got completion (?:from peer \S+ )?with (?:error|status)|"
                               r"NET/IB\s*:\s*Got CQE with error|NET/IB\s*:\s*\S+ (?:async fatal event|"
                               r"Got (?:non-fatal )?async event)", re.I)
# Specific meanings, checked in order; the first match names the event.
EVENTS = (
    # (the NIC unusable at start, so NCCL leaves IB for sockets; a verbs call failing after it chose the NIC, ibv_reg_mr
    # or ibv_modify_qp, is an error of that connection: rules/catalog/engine_errors.toml rdma_*)
    ("ib_unavailable", re.compile(r"NET/IB\s*:\s*No device found|Failed to open libibverbs|ibv_open_device failed|"
                                  r"NET/IB\s*:\s*Unable to (?:open|query) (?:device|port)|No IB devices found|"
                                  r"Call to ibv_(?:open_device|get_device_list|query_device|query_port)\b[^\n]{0,20}?"
                                  r"failed", re.I)),
    ("ib_transfer_error", IB_TRANSFER_ERROR),
    ("net_init_failed", re.compile(r"Failed to initialize (?:any )?NET plugin|NET/Plugin\s*:\s*.*failed|"
                                   r"no (?:socket )?interface found", re.I)),
    ("timeout", re.compile(r"Watchdog caught collective operation timeout|ran for \d+ milliseconds before timing out|"
                           r"NCCL timeout|ncclCommWatchdog", re.I)),
    ("shm_alloc_failed", re.compile(r"/dev/shm|No space left on device|posix_fallocate failed|shm_open", re.I)),
    ("p2p_disabled", re.compile(r"Could not enable P2P|P2P is disabled|peer access is not supported|P2P disabled",
                                re.I)),
    ("nvls", re.compile(r"\bNVLS\b|NVLink SHARP", re.I)),
    ("collnet", re.compile(r"\bCollNet\b|\bSHARP\b", re.I)),
    ("topology", re.compile(r"Topology detection|not a PCI device|Attaching to first CPU|NCCL_TOPO_FILE|"
                            r"topo(?:logy)? file", re.I)),
    ("error", re.compile(r"unhandled system error|ncclSystemError|ncclInternalError|ncclUnhandledCudaError|"
                         r"ncclInvalidUsage|ncclRemoteError|NCCL error|NCCL failure", re.I)),
    ("cuda_error", re.compile(r"Test CUDA failure", re.I)),  # nccl-tests: a CUDA call failed
)
DETECTORS = (
    (re.compile(r"\bNCCL (?:INFO|WARN)\b"), 0.9),
    (re.compile(r"\bNCCL_\w+ set by environment to"), 0.8),
    (re.compile(r"unhandled system error|ncclSystemError|ncclInternalError|ncclUnhandledCudaError|NCCL error in"), 0.8),
    (re.compile(r"/dev/shm/nccl"), 0.8),
    (re.compile(r"using nccl\s*==", re.I), 0.7),
    (re.compile(r"\bvia (?:P2P|SHM|NET|NVLS|COLLNET)/?", re.I), 0.7),
    (re.compile(r"\bNCCL version \d"), 0.5),
    (re.compile(r"Watchdog caught collective operation timeout|\blast completed NCCL work:"), 0.8),  # PyTorch's
    # nccl-tests' own error lines ("Test NCCL failure common.cu:891 ..."; before 2019 "NCCL failure all_reduce.cu:95")
    (re.compile(r"\b(?:Test )?(?:NCCL|CUDA) failure \S+\.cu:\d+"), 0.8),
)


def detect(text: str) -> float:
    head = text[:500_000]
    return min(1.0, sum(weight for pattern, weight in DETECTORS if pattern.search(head)))


def parse(text: str, name: str) -> list:
    out: list = []
    seen_versions: set[str] = set()
    seen_transports: set[tuple] = set()
    seen_paths: set[tuple] = set()
    devices: dict[tuple, str] = {}  # (host, device) -> the first line that names it
    for n, line in lines(text):
        if not _may_matter(line):
            continue
        src = where(name, n)
        if (p := PREFIX.search(line)) is not None:
            devices.setdefault((p.group("host"), p.group("dev")), src)
        m = LEVEL.search(line)
        msg = m.group("msg") if m else line.strip()
        level = m.group("level") if m else None
        for v in (VERSION.search(line), FRAMEWORK_VERSION.search(line)):
            if v and v.group("v") not in seen_versions:
                seen_versions.add(v.group("v"))
                cuda = v.groupdict().get("cuda")
                out.append(NcclVersion(src, v.group("v"), cuda))
        if (s := SETTING.search(line)) is not None:
            out.append(NcclSetting(src, s.group("name"), s.group("value").strip().strip("'\"")))
            continue
        if (c := CONNECTION.search(line)) is not None:
            transport = _transport(src, c, PREFIX.search(line))
            key = (transport.detail, transport.channel, transport.rank, transport.peer, c.group("dir"))
            if key not in seen_transports:
                seen_transports.add(key)
                out.append(transport)
            continue
        if "GPU/" in line and (g := GPU_PATHS.search(line.rstrip())) is not None:
            for e in PATH_ENTRY.finditer(g.group("rest")):
                pair = tuple(sorted((g.group("bus").lower(), e.group("bus").lower())))
                if e.group("type") != "LOC" and pair[0] != pair[1] and pair not in seen_paths:
                    seen_paths.add(pair)
                    out.append(TopologyPath(src, f"GPU/{pair[0]}", f"GPU/{pair[1]}", e.group("type")))
            continue
        if (d := SHM_DF.search(line.strip())) is not None:
            out.append(HostFact(src, "shm_bytes", size_bytes(d.group("size"))))
            continue
        if level is None and not _nccl_related(line):
            continue
        out.extend(_events(src, msg, level))
    if len(devices) > 1:
        # NCCL heads each line with the CUDA device its process drives ("host:pid:tid [dev] NCCL INFO", src/debug.cc):
        # two devices named, on one host or more, are two GPUs at work in the job (pytorch/pytorch#111187's DDP:
        # "[0]" and "[1]"); one process's lines alone name one.
        out.append(NcclEvent(next(iter(devices.values())), "devices",
                             f"NCCL's lines name {len(devices)} devices", {"devices": len(devices)}))
    return _first_workload_only(out)


def quotes_ib(text: str, opened: bool = False) -> bool:
    """Does this text quote NCCL's lines showing InfiniBand in use (IB_IN_USE; `opened`: the init line naming the HCAs
    it opened, IB_HCAS_OPENED)? For prose that quotes a log without being one, which parse() never sees."""
    return bool((IB_HCAS_OPENED if opened else IB_IN_USE).search(text))


def _first_workload_only(records: list) -> list:
    """Every rank prints its comm line; the scale is said once."""
    seen = False
    kept = []
    for r in records:
        if isinstance(r, Workload):
            if seen:
                continue
            seen = True
        kept.append(r)
    return kept


def size_bytes(text: str) -> int:
    """'64M' (df -h, docker --shm-size) or '67108864' -> bytes (binary units, as df and docker use)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if not m:
        raise ValueError(f"not a size: {text!r}")
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2).upper() or " "))


def _transport(src: str, c, prefix) -> NcclTransport:
    via = c.group("via")
    parts = via.split("/")
    head = parts[0].upper()
    if head == "DIRECT SHARED MEMORY":  # SHM's line up to 2.12 (src/transport/shm.cc); 'SHM/direct/direct' from 2.14
        head = "SHM"
    transport = {"COLLNET": "COLLNET", "NVLS": "NVLS", "NET": "NET", "SHM": "SHM", "P2P": "P2P"}.get(head, head)
    net = parts[1] if transport == "NET" and len(parts) > 1 else None
    gdr = ("GDRDMA" in via.upper()) if transport == "NET" else None
    return NcclTransport(src, transport, via, net=net, gdr=gdr, channel=int(c.group("ch")),
                         rank=int(c.group("rank")), peer=int(c.group("peer")))


def _may_matter(line: str) -> bool:
    """A cheap test that skips the lines no pattern here can match."""
    lowered = line.lower()
    return ("nccl" in lowered or " via " in line or "/dev/shm" in line or "ibv" in lowered
            or "test cuda failure" in lowered)


def _nccl_related(line: str) -> bool:
    """A line without 'NCCL INFO/WARN' that still carries an NCCL fact (framework errors, df)."""
    return bool(re.search(r"nccl|/dev/shm|ibv_|libibverbs|Test CUDA failure", line, re.I))


def _events(src: str, msg: str, level: str | None) -> list:
    """NcclEvents (and sizes) for one message."""
    out: list = []
    if (m := SHM_SEGMENT.search(msg)) is not None:
        size = m.group("size") or m.group("to")
        data = {"path": m.group("path"), "size_bytes": int(size) if size else None}
        out.append(NcclEvent(src, "shm_alloc_failed", msg, data | ({"errno": code} if (code := errno_of(msg)) else {})))
        return out
    if (m := COMM.search(msg)) is not None:
        data = {"rank": int(m.group("rank")), "nranks": int(m.group("nranks"))}
        for key, value in re.findall(r"\b(nNodes|localRanks|localRank|cudaDev|nvmlDev|busId|MNNVL)\s+(\S+)",
                                     m.group("rest")):
            data[key] = int(value) if value.isdigit() else value
        out.append(NcclEvent(src, "comm", msg, data))
        if isinstance(data.get("nNodes"), int):
            out.append(Workload(src, gpu_count=data["nranks"], nodes=data["nNodes"]))
        return out
    if (counts := CHANNELS.findall(msg)):
        out.append(NcclEvent(src, "channels", msg, {what: int(k) for k, what in counts}))
        return out
    if (m := RING.search(msg)) is not None:
        ranks = [int(r) for r in m.group("ranks").split()]
        channel = int(m.group("ch") or m.group("ring"))
        of = int(m.group("of")) if m.group("of") else None
        out.append(NcclEvent(src, "ring", msg, {"channel": channel, "of": of, "ranks": ranks}))
        return out
    if msg.startswith("Trees"):
        out.append(NcclEvent(src, "trees", msg))
        return out
    if (m := CHUNK.search(msg)) is not None:
        out.append(NcclEvent(src, "p2p_chunksize", msg, {"bytes": int(m.group("n"))}))
        return out
    if (m := USING_NETWORK.search(msg)) is not None:
        net = m.group("net")
        out.append(NcclEvent(src, "using_socket" if net.lower() == "socket" else "network", msg, {"network": net}))
        return out
    if (m := NET_SOCKET.search(msg)) is not None:
        interfaces = re.findall(r"\[\d+\]([\w.\-]+)", m.group("ifs"))
        out.append(NcclEvent(src, "using_socket", msg, {"interfaces": interfaces}))
        return out
    if (m := NET_IB_USING.search(msg)) is not None:
        devices = re.findall(r"\[\d+\]([\w.\-]+:\d+)(?:/(\w+))?", m.group("devs"))
        out.append(NcclEvent(src, "network", msg, {"network": "IB", "devices": [d for d, _ in devices],
                                                    "link_layers": [ll for _, ll in devices if ll]}))
        return out
    if (m := AFFINITY.search(msg)) is not None:
        mask = m.group("mask")
        ids = _cpu_ids(mask)
        out.append(NcclEvent(src, "affinity", msg, {"gpu": int(m.group("gpu")), "mask": mask, "cpus": len(ids),
                                                     "cpu_ids": ids}))
        return out
    if (m := CUDA_DRIVER.search(msg)) is not None:
        code = int(m.group("v"))
        out.append(HostFact(src, "cuda_driver_version", f"{code // 1000}.{code % 1000 // 10}"))
        return out
    if (m := COMPLETED.search(msg)) is not None:
        out.append(NcclEvent(src, "collectives_completed", msg, {"completed": int(m.group("n"))}))
        return out
    if (m := SHARED_MEM.search(msg)) is not None:
        out.append(NcclEvent(src, "shared_mem_exceeds", msg, {"needed_bytes": int(m.group("need")),
                                                              "device_bytes": int(m.group("have"))}))
        return out
    if (m := GDR_HCA.search(msg)) is not None:
        out.append(NcclEvent(src, "gdr", msg, {"enabled": m.group("state") == "Enabled", "reason": m.group("why")}))
        return out
    for kind, pattern in EVENTS:
        if pattern.search(msg):
            data = {"level": level} if level else {}
            if kind == "shm_alloc_failed" and (code := errno_of(msg)):
                data["errno"] = code
            out.append(NcclEvent(src, kind, msg, data))
            return out
    if level in ("WARN", "ERROR"):
        out.append(NcclEvent(src, "warn" if level == "WARN" else "error", msg, {"level": level}))
    return out


def _cpu_ids(mask: str) -> list[int]:
    """The CPUs an NCCL affinity mask names, in either of NCCL's forms (HEX_MASK, else a range list)."""
    if HEX_MASK.fullmatch(mask):
        bits = int(mask.replace(",", ""), 16)
        return [i for i in range(min(bits.bit_length(), CPU_SET_SIZE)) if bits >> i & 1]
    return cpu_list(mask)


def cpu_list(text: str) -> list[int]:
    """The CPUs a Linux CPU list names ("0-31,64-95", as NCCL and `nvidia-smi topo -m` print them)."""
    ids: list[int] = []
    for part in filter(None, text.replace(" ", "").split(",")):
        first, _, last = part.partition("-")
        if first.isdigit() and (not last or last.isdigit()) and int(last or first) < CPU_SET_SIZE:
            ids.extend(range(int(first), int(last or first) + 1))
    return sorted(set(ids))
