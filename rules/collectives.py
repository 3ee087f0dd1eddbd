"""How long one all-reduce takes: the physical floor (roofline) and what each implementation
takes on a healthy system (expected).

roofline: the fabric's one-hop latency (`floor_us` in interconnects.toml, a physical minimum,
  below every measured all-reduce) plus the bytes at line rate, with the switch reducing where
  it can (NVLS / SHARP: the bytes cross each link once, not 2(n-1)/n times).
expected: the implementation the engine runs at this size and rank count:
  - NCCL: the ring (fixed cost + 2(n-1) steps x hop latency + 2(n-1)/n x bytes at the fabric's
    achieved bus bandwidth); across nodes the ring, tree or (NVSwitch, Hopper on) NVLSTree and the
    LL, LL128 or Simple protocol NCCL's own tuner model picks (network: its latencies, a ring at the
    node's NICs' rate and, under Simple, the tuner's plateau factor on its latency, a tree past it on two
    nodes only and slower at medium sizes as the tuner's own correction says, NVLSTree at its per-channel cap and
    its pipeline's fill (nvlstree_fill_us),
    LL128 at its per-channel caps; a node whose GPUs PCIe joins: NCCL's PCI latency row, no LL128, no faster
    than that link); NVLS on NVSwitch gen3+ where NCCL's own tuner model prefers it (NVIDIA/nccl
    src/graph/tuning.cc [R8]: large messages); a call launched from the host, not a CUDA graph, waits longer
    for its peers (x log2 of the ranks).
  - an engine's custom one-shot/two-shot kernel over NVLink P2P (vLLM, SGLang, TensorRT-LLM)
    up to its size limit, where the GPUs are all-to-all NVLink (or a PCIe pair, where the
    engine allows it);
  - over PCIe, one of NCCL's two protocols there (LL128 needs NVLink: tuning.cc enables it only
    up to PATH_NVB): LL (low latency, half the bus bandwidth: tuning.cc "busBw * .5") or Simple
    (a longer step, the full bandwidth), picked as NCCL's tuner picks (pcie_protocol); each then
    takes its own fitted step time;
  - between GPUs without PCIe peer-to-peer, NCCL's SHM transport: every step goes through host
    memory, so its bandwidth is a share of what the host moves from one GPU to another through its memory
    (shm_busbw_gbs: the host's stated copy rate, else one estimated from the PCIe generation of its links).
A benchmark whose one host thread launches every GPU's part of each call (nccl-tests -g N) runs at
that thread's pace where it is slower than the kernel (thread_bound); engines run a process per GPU.
All constants are in rules/catalog/calibration.toml ([nccl], [launch], [custom.*]), fitted to
tests/data/collectives and collectives-reference.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from diagnose.errors import InputError
from rules import catalog
from rules.catalog import EngineSpec, GpuSpec, InterconnectSpec

# NCCL's own tuner constants (src/graph/tuning.cc [R8]), which decide the algorithm and protocol NCCL picks, differ by
# release: they live in rules/catalog/nccl_tuning.toml, one row per release that changed one, and every function below
# that takes `release` (an NCCL version as printed, None for the pinned commit) reads that release's (tuning).
# The share of a PCIe link's bytes that are data under LL (each 8-byte line: 4 bytes of data, 4 of flag); what NCCL's
# tuner gives a ring's LL is the release's own (nccl_tuning.toml ll_share: 1/4 to 2.20, 1/2 from 2.21)
NCCL_LL_SHARE = 0.5
PROTO_INDEX = {"LL": 0, "LL128": 1, "Simple": 2}
# NCCL's bandwidth of a PCIe x16 link (src/graph/topo.cc: width x GT/s / 80 GB/s, PCI_BW = 12 for Gen3 x16), scaled
# from the link's rate; and of the link between two CPU sockets (topo.h: AMD_BW 16; Intel QPI/UPI by model:
# BDW 6, SKL 10, SRP 22, ERP 40), which a ring spanning the sockets (topology path SYS) crosses
NCCL_PCI_GEN3_X16_GBS = 12.0
PCIE_GEN3_X16_GBS = 15.75
NCCL_CPU_LINK_GBS = {"amd": 16.0, "intel-bdw": 6.0, "intel-skl": 10.0, "intel-srp": 22.0, "intel-erp": 40.0}
# src/graph/search.cc: the slowest ring speed NCCL's search tries per GPU generation (speedArrayIntra ends at 3.0;
# sm100SpeedArrayIntra, compute capability 10.0 and up, at 18.0); a ring no speed fits falls back to "simple order"
# with bwIntra = 0.1 GB/s (PATH_SYS), so the tuner then takes Simple for all but the smallest messages
NCCL_SEARCH_FLOOR_GBS = {0.0: 3.0, 10.0: 18.0}
NCCL_FALLBACK_GBS = 0.1
# src/enqueue.cc (addP2pToPlan): a send/recv takes LL only while its bytes are <= nChannels x NCCL_P2P_LL_THRESHOLD
# (NCCL_PARAM P2pLLThreshold, default 16384), Simple above; its tuner's all-reduce model plays no part. Counted for
# one channel (how many channels NCCL gives one peer is not modelled).
NCCL_P2P_LL_BYTES = 16384
# which of those links a host CPU family (rules/catalog/host_memory.toml [[cpu]] family names) gets: NCCL reads the
# CPU's vendor and, on Intel, its CPUID model (src/graph/topo.cc: model 0x8F Sapphire Rapids SRP, 0xCF Emerald
# Rapids ERP, >= 0x55 Skylake-SP and later SKL); a family not listed (Granite Rapids, Broadwell) is left unknown
NCCL_CPU_CLASS_BY_FAMILY = (("EPYC|Threadripper|Ryzen", "amd"), ("Sapphire Rapids", "intel-srp"),
                            ("Emerald Rapids", "intel-erp"), ("Skylake|Cascade Lake|Ice Lake", "intel-skl"))
# NCCL's tuner across nodes (tuning.cc ncclTopoTuneModel; the release's constants, nccl_tuning.toml): base latency per
# call and hardware latency per step (us) by (algorithm, protocol), over NVLink or PCIe inside a node (intraHw is
# NCCL_HW_PCI wherever the graph's typeIntra is not LINK_NVL; LL128 is then off: typeIntra <= PATH_NVB) and over the
# network between nodes; getNetOverhead (from 2.18.1): a ring step inside a node still posts to the network proxy
# (1 us on Intel hosts, 2 on AMD, x3 for Simple); llMaxBws for several nodes, looked up by the CPU vendor (Intel row:
# 2 nodes 39.0, more 20.4; AMD row: 22.5, 19.0 GB/s; the same from v2.8.3-1 to now). LL128 runs on the GPUs the
# release lists (Volta and Ampere from 2.7, Hopper from 2.15, Blackwell from 2.25, every one from 7.0 from 2.27).
# NVLSTree (from 2.18.1; NVLink SHARP inside each node, a tree between nodes; Hopper and later on NVSwitch): Simple
# only, its NVLink latency plus 2 log2(nodes) network steps (2 (nodes - 1) in 2.18: nvlstree_steps), one channel per
# NIC (the NVLS heads); its per-channel bandwidth the NIC's, times the release's two-node / many-node scale, capped at
# perChMaxNVLSTreeBws from 2.28.3; its busBw to algbw by the release's ratio (nvlstree_model).
NCCL_NET_PROTOS = ("LL", "LL128", "Simple")
# the fastest intra-node speed NCCL's search tries (search.cc speedArrayIntra, sm90 and sm100 arrays)
NCCL_INTRA_MAX_GBS = {0.0: 40.0, 8.0: 40.0, 9.0: 60.0, 10.0: 90.0}
NCCL_LL_MAX_GBS = {"intel": (39.0, 20.4), "amd": (22.5, 19.0)}
# NVLSTree moves its bytes chunk by chunk through a pipeline (src/enqueue.cc calcCollChunking, NVLS_TREE): channels
# x nvls.nHeads (nvls_heads) operations run at once, each in chunks of the release's first size (64 KiB at 4 nodes and
# more from 2.19.3; nccl_tuning.toml nvlstree_chunks), cut where the message is small for them: below
# 32 / 16 / 4 / 1 x ops x chunk bytes to 256 / 128 / 64 / 32 KiB (NVLSTREE_CHUNK_CUTS, checked in order; the same from
# v2.18.1-1 to v2.30.7-1). All of that is read from NCCL's source. Each chunk passes the kernel's stages one after
# another (src/device/all_reduce.h v2.26.2 L521-626: scatter into the NVLS buffer, reduce and send up the tree, the
# root's reduce and send down, receive and broadcast, gather), so the pipeline's last chunk leaves after the bytes'
# time. How long is not read from the source: the model charges the tuner's network step count (nvlstree_steps, from
# tuning.cc's NVLSTree latency) of extra chunk-times of every operation at the bottleneck rate (nvlstree_fill_us), an
# approximation; its multiplier (1) was chosen from 0-3x on the ten multi-node fit tables (README), not refitted by
# scripts/fit_predictor.py.
NVLSTREE_CHUNK_CUTS = ((32, 262144), (16, 131072), (4, 65536), (1, 32768))
# NVLS needs NVLink SHARP: an NVSwitch that reduces and a Hopper or later GPU (tuning.cc nvlsEfficiency is 0 for Volta
# and Ampere; the NVLSTree caps start at Hopper)
NVLS_MIN_CC = 9.0
# the most NVLS heads a node has (src/include/device.h NCCL_MAX_NVLS_ARITY: 8 to v2.20.5-1, 32 from v2.21.5-1; the
# search caps the heads with it from v2.25.1-1, search.cc L992 there): nvls_heads
NCCL_MAX_NVLS_ARITY = 32
NVLS_MODEL_MIN_GPUS = 3
# NVLS inside one node moves every byte across each GPU's links once each way, whatever the rank count (the switch
# reduces and multicasts), so its algbw, not its busbw, is the link's share (calibration.toml
# nvls_alg_gbs_per_link_gbs); NCCL's tuner and nccl-tests quote busbw, that algbw x 2(n-1)/n: ~480 GB/s on the 8 GPUs
# of an HGX H100 [R2]
NVLS_NODE_GPUS = 8
# Its kernel on one node (src/device/all_reduce.h, RunWorkColl NVLS Simple, oneNode: the same from v2.18.1-1 to master
# @5067397) runs three groups of warps on every channel, one after another on each chunk: scatter (into the switch's
# buffer), reduce (multimem load-reduce and multicast store), gather (out of it); each pass moves nvls.nHeads chunks
# (loopCount), so the last pass leaves NVLS_STAGES - 1 passes after the bytes' time (nvls_fill_us). The chunk is
# enqueue.cc's (nccl_tuning.toml nvls_chunks): cut to 64 / 32 / 16 KiB below 64 / 8 / 2 x channels x heads x chunk.
NVLS_STAGES = 3
# From Hopper on, NCCL's own ring model (tuning.cc: per protocol, its base latency, NVLink step latency and bandwidth
# share; nvlink_ring) times the ring inside an NVLink node: on the 8 GPUs of a DGX H100 it gives 15.0 / 21.5 / 28 / 41
# us at 8 B / 512 KiB / 1 MiB / 2 MiB where nccl-tests measures 13.7 / 20.7 / 27.4 / 42.2
# (tests/data/collectives/nccltests-h100-dgx-8gpu-dgxc-sample.csv) and 7.8 us on a pair (vidur's 2-of-8 DGX H100
# kernels: 7-11 us to 18 KiB). Before Hopper the fitted step (calibration.toml hop_us_nvlink) stays: 8x A100 of a
# DGX A100 take 10 us on 2 GPUs and 33.7 on 8 at 8 B (NCCL_ALGO=Ring, one channel; collectives-reference.md [R11],
# https://github.com/NVIDIA/nccl-tests/issues/123), ~2 us a step where tuning.cc's is 0.47-0.6.
NCCL_TUNER_TIMED_CC = 9.0
NVLS_CHUNK_CUTS = ((64, 65536), (8, 32768), (2, 16384))
# LL128's per-channel caps by GPU generation (tuning.cc @ 5067397 perChMaxRingLL128Bws, perChMaxTreeLL128Bws; 2 nodes,
# more): times the channel count, they bound LL128's busBw (a B200 pair of nodes: 16 x 31.67 = 507 GB/s of tree)
NCCL_RING_LL128_CH_GBS = {0.0: (20.0, 20.0), 8.0: (20.0, 20.0), 9.0: (36.7, 36.7), 10.0: (40.0, 40.0)}
NCCL_TREE_LL128_CH_GBS = {0.0: (20.0, 20.0), 8.0: (20.0, 20.0), 9.0: (36.7, 29.0), 10.0: (31.67, 20.0)}
# "Trees are not perfectly sticking to the model for medium sizes" (tuning.cc treeCorrectionFactor, the same from
# v2.12 to v2.29): the tree's bandwidth x this factor, by protocol, at 64 B x 2^i (i = log2(bytes / 64), 0..22)
NCCL_TREE_CORRECTION = {
    "LL": (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0),
    "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0),
    "Simple": (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9)}
# nvidia-smi topo -m names of the worst link a ring crosses: through PCIe switches only, through a CPU's host
# bridge(s), or between CPU sockets
PATHS = ("pix", "pxb", "phb", "node", "sys")


def tuning(release: str | None = None) -> dict:
    """NCCL's tuner constants as of `release` (an NCCL version as printed; None: the pinned commit's): catalog rows."""
    return catalog.nccl_tuning(release)


def tuner_us(t: dict, key: str, algo: str, proto: str) -> float:
    """One latency of a release's tuner table (key: base_us, hw_nvlink_us, hw_pci_us, hw_net_us) for (algo, proto)."""
    return float(t[key][algo][PROTO_INDEX[proto]])


def nvls_runs(t: dict, nranks: int) -> bool:
    """Whether the release runs NVLS inside one node of `nranks` GPUs (nvls.cc: from 2.17.1; 3 GPUs or more from
    2.18.1 to 2.28.7, 2 or more before and after), and the model can price it: its NVLS figures
    (nvls_alg_gbs_per_link_gbs, nvls_fill_us) were checked on 4 and 8 GPUs only, no table shows which a pair takes
    unforced, so a pair keeps the ring (NVLS_MODEL_MIN_GPUS) whatever the release."""
    return bool(t["nvls"]["enabled"]) and nranks >= max(int(t["nvls"]["min_gpus"]), NVLS_MODEL_MIN_GPUS)


def ll128_runs(t: dict, cc: float) -> bool:
    """Whether the release enables LL128 by default on GPUs of compute capability `cc` (0: unknown, taken as yes)."""
    rule = t["ll128"]
    return cc == 0.0 or any(abs(cc - c) < 1e-6 for c in rule["cc"]) or (rule["cc_min"] > 0 and cc >= rule["cc_min"])


def pat_runs(t: dict, collective: str, nranks: int, nodes: int) -> bool:
    """Whether NCCL's PAT algorithm is an option (from 2.23.4: all-gather and reduce-scatter only, one GPU per node;
    tuning.cc skips it for all-reduce in every release)."""
    rule = t["pat"]
    return collective in rule["collectives"] and (not rule["one_gpu_per_node"] or nranks == nodes)


@dataclass(frozen=True)
class AllReduceTime:
    us: float
    # what ran: "NCCL ring", "NCCL SHM" (a ring staged through host memory), "NCCL tree", "NCCL NVLS",
    # "vllm custom"
    impl: str
    protocol: str = ""  # NCCL's protocol over PCIe: "LL" or "Simple" (pcie_protocol); "" elsewhere


def peer_to_peer(gpu: GpuSpec, ic: InterconnectSpec) -> bool:
    """Whether NCCL moves bytes GPU to GPU: always off PCIe; on PCIe only where the driver allows P2P."""
    return gpu.pcie_p2p or ic.kind != "pcie"


def ring_bus_factor(nranks: int) -> float:
    """Bytes each GPU sends per byte reduced in a ring all-reduce: 2(n-1)/n."""
    return 2.0 * (nranks - 1) / nranks


def nvls_busbw_gbs(ic: InterconnectSpec, nranks: int = NVLS_NODE_GPUS) -> tuple[float, float]:
    """(busbw, algbw) in GB/s a large NVLink SHARP all-reduce shows on an NVSwitch that reduces in the switch
    (catalog in_network_reduction): the calibrated algbw share of the per-direction line rate
    (nvls_alg_gbs_per_link_gbs), which does not change with the rank count, and nccl-tests' busbw, that algbw x
    2(n-1)/n: about 480 GB/s on the 8 GPUs of an HGX H100 (nccl-tests#212)."""
    alg = catalog.calibration().nccl["nvls_alg_gbs_per_link_gbs"] * ic.bandwidth_gbs
    return alg * ring_bus_factor(max(nranks, 2)), alg


def roofline_us(ic: InterconnectSpec, nranks: int, size_bytes: float, nodes: int = 1) -> float:
    """The physical bound: one hop of latency and the bytes at line rate. Nothing is faster."""
    if nranks <= 1:
        return 0.0
    bw = ic.bandwidth_gbs * 1e3  # bytes per microsecond
    if ic.kind == "network":
        nodes = nodes if nodes > 1 else nranks
        data = ring_bus_factor(nodes) * size_bytes / (nranks / nodes)
    elif ic.in_network_reduction:
        data = size_bytes
    else:
        data = ring_bus_factor(nranks) * size_bytes
    return ic.floor_us + data / bw


def expected(ic: InterconnectSpec, nranks: int, size_bytes: float, *, nodes: int = 1,
             engine: EngineSpec | None = None, graphs: bool = True, p2p: bool = True,
             link_gbs: float | None = None, path: str = "", cpu: str = "", cc: float = 0.0,
             nvls: bool = False, gpu: GpuSpec | None = None, release: str | None = None) -> AllReduceTime:
    """What one all-reduce takes on a healthy system running `engine` (see the module doc).

    ic: the TP group's fabric; nodes: how many nodes the group spans; p2p: False where the GPUs
    cannot reach each other by PCIe peer-to-peer (NCCL uses SHM); link_gbs: the GPU's own NVLink
    rate per direction (sets a custom kernel's bandwidth); path, cpu, cc: what NCCL's tuner sees over PCIe
    (nccl), where the caller knows them; nvls: across nodes, the GPUs' NVSwitch reduces (nvls_capable).
    gpu: the board, where known: NCCL is then priced by nccl_for (its own p2p, cc, NVLS and node link), as every
    command prices it. release: the NCCL version that ran, where known (tuning).
    """
    if nranks <= 1:
        return AllReduceTime(0.0, "none")
    if gpu is not None:
        p2p = peer_to_peer(gpu, ic)
        options = [nccl_for(gpu, ic, nranks, size_bytes, nodes=nodes, graphs=graphs, path=path, cpu=cpu,
                            release=release)]
    else:
        options = [nccl(ic, nranks, size_bytes, nodes=nodes, graphs=graphs, p2p=p2p, path=path, cpu=cpu, cc=cc,
                        nvls=nvls, release=release)]
    if engine is not None and _custom_applies(engine, ic, nranks, size_bytes, nodes, p2p):
        options.append(custom(engine.custom_allreduce, nranks, size_bytes, graphs=graphs,
                              link_gbs=link_gbs or ic.bandwidth_gbs))
        return options[-1]  # the engine routes every message under its limit to its own kernel
    return min(options, key=lambda t: t.us)


def nccl_for(gpu: GpuSpec, ic: InterconnectSpec, nranks: int, size_bytes: float, *, nodes: int = 1,
             graphs: bool = True, path: str = "", cpu: str = "", only: str | None = None, p2p: bool | None = None,
             thread_gpus: int = 0, release: str | None = None, shm_gbs: float = 0.0) -> AllReduceTime:
    """NCCL on `gpu`'s machine, as every command prices it (capture, scaling, the step model, the all-reduce tables):
    what the board says of peer-to-peer, of an NVSwitch that reduces across nodes (nvls_capable) and of the link
    joining a node's GPUs (node_pcie), read here once. p2p: a source's own word on PCIe peer-to-peer, if any.
    release: the NCCL version that ran, where known (tuning). shm_gbs: the SHM busbw of this host (shm_busbw_gbs), 0
    where nothing is known of it."""
    per_node = max(1, nranks // max(nodes, 1))
    own = gpu.pcie_p2p if p2p is None else p2p
    return nccl(ic, nranks, size_bytes, nodes=nodes, graphs=graphs,
                p2p=own if ic.kind in ("pcie", "network") else True,
                only=only, path=path, cpu=cpu, cc=gpu.compute_capability, nvls=nodes > 1 and nvls_capable(gpu),
                thread_gpus=thread_gpus, intra=node_pcie(gpu, per_node) if nodes > 1 else None, release=release,
                shm_gbs=shm_gbs)


def prediction_nccl(p, gpu: GpuSpec) -> AllReduceTime:
    """NCCL for a prediction's all-reduce (rules.roofline.Prediction: its fabric, TP size, message, nodes, CUDA graphs
    ring route and NCCL release), as nccl_for prices it: the slowest healthy path beside an engine's own kernel."""
    route = p.assumptions.get("ring_route") or {}
    nodes = max(1, math.ceil(p.tp / (p.assumptions.get("gpus_per_node") or 8)))
    return nccl_for(gpu, catalog.interconnect(p.interconnect), p.tp, p.allreduce_bytes, nodes=nodes,
                    graphs=bool(p.assumptions.get("cuda_graphs")), path=route.get("path", ""),
                    cpu=route.get("cpu", ""), release=p.assumptions.get("nccl_release") or None)


def node_pcie(gpu: GpuSpec, per_node: int) -> InterconnectSpec | None:
    """The PCIe fabric joining `per_node` of this GPU's boards inside one node where no NVLink joins them all (no
    NVLink, or more GPUs than its NVLink domain); None where NVLink does (NCCL's typeIntra LINK_NVL)."""
    if per_node <= 1 or (gpu.nvlink_gbs and per_node <= gpu.nvlink_domain):
        return None
    return catalog.interconnects().get(gpu.pcie_interconnect)


def _custom_applies(engine: EngineSpec, ic: InterconnectSpec, nranks: int, size_bytes: float, nodes: int,
                    p2p: bool) -> bool:
    if not engine.custom_allreduce or nodes > 1 or nranks > engine.custom_allreduce_max_ranks:
        return False
    limit = engine.custom_allreduce_pair_max_bytes if nranks == 2 else 0
    if size_bytes >= (limit or engine.custom_allreduce_max_bytes):
        return False
    if ic.kind in ("nvlink", "nvswitch"):
        return ic.kind == "nvswitch" or nranks == 2  # NVLink bridges join pairs only
    return ic.kind == "pcie" and nranks == 2 and p2p and engine.custom_allreduce_pcie_pairs


def nccl(ic: InterconnectSpec, nranks: int, size_bytes: float, *, nodes: int = 1, graphs: bool = True,
         p2p: bool = True, only: str | None = None, path: str = "", cpu: str = "", cc: float = 0.0,
         nvls: bool = False, thread_gpus: int = 0, intra: InterconnectSpec | None = None,
         release: str | None = None, shm_gbs: float = 0.0) -> AllReduceTime:
    """NCCL's fastest algorithm for this size: ring, tree or NVLSTree (across nodes) or NVLS (NVSwitch);
    `only` ('ring', 'tree', 'nvls', 'nvlstree') times the one algorithm forced with NCCL_ALGO. On PCIe, `path`,
    `cpu` and `cc` (the GPUs' compute capability) say what NCCL's tuner sees (pcie_protocol); across nodes,
    `nvls` says the GPUs sit on an NVSwitch that reduces (nvls_capable).
    `thread_gpus`: the GPUs one host thread launches each call on (a benchmark's one-thread mode,
    thread_bound); 0 where every GPU has its own process, as in every serving engine. `intra`: across nodes, the PCIe
    fabric joining a node's GPUs where no NVLink does (network); None where NVLink does or nothing is known.
    `release`: the NCCL version that ran (tuning: its constants pick the algorithm and protocol); None: the pinned one.
    `shm_gbs`: without peer-to-peer over PCIe, the SHM busbw of this host (shm_busbw_gbs); 0: a host not known.
    A forced algorithm NCCL cannot run here is an InputError, never another algorithm's time."""
    if thread_gpus > 1 and not graphs:
        return thread_bound(nccl(ic, nranks, size_bytes, nodes=nodes, p2p=p2p, only=only, path=path, cpu=cpu, cc=cc,
                                 nvls=nvls, intra=intra, release=release, shm_gbs=shm_gbs), thread_gpus)
    t = tuning(release)
    _check_forced(only, ic, nodes, nvls, cc, t, nranks)
    cal = catalog.calibration()
    c = cal.nccl
    fixed = c["base_us"] + (0.0 if graphs else eager_extra_us(nranks))
    shm = not p2p and ic.kind == "pcie"
    if ic.kind == "pcie":
        proto = pcie_protocol(ic, nranks, size_bytes, path=path, cpu=cpu, cc=cc, release=release)
        hop, bus = _pcie_step(ic, c, p2p, proto, shm_gbs)
        data = ring_bus_factor(nranks) * size_bytes
        return AllReduceTime(fixed + 2 * (nranks - 1) * hop + data / bus, "NCCL SHM" if shm else "NCCL ring", proto)
    hop = _hop_us(ic, c, p2p)
    bus = _bus(ic, c, p2p)
    if ic.kind != "network" or nodes <= 1:
        data = ring_bus_factor(nranks) * size_bytes
        ring = AllReduceTime(fixed + 2 * (nranks - 1) * hop + data / bus, "NCCL ring")
        tuner_ring = None
        if ic.kind in ("nvlink", "nvswitch") and cc >= NCCL_TUNER_TIMED_CC:
            ring, tuner_ring = nvlink_ring(t, nranks, size_bytes, cc, bus, fixed - c["base_us"])
        if not (ic.kind == "nvswitch" and ic.in_network_reduction):
            return ring
        nvls_alg = nvls_busbw_gbs(ic)[1] * 1e3  # B/us, whatever the rank count
        nvls = AllReduceTime(fixed + size_bytes / nvls_alg + nvls_fill_us(t, size_bytes, nranks, cc, nvls_alg),
                             "NCCL NVLS")
        if only:
            return nvls if only == "nvls" else ring
        # NCCL's tuner picks by its own model: NVLS costs it the release's NVLS latency (25 us now [R8]) and a busBw
        # that does not change with the rank count (tuning.cc: nChannels x bwIntra x nvlsEfficiency, to algbw by
        # n / 2(n-1) as a ring's), taken here as the busbw NVLS reaches on the 8 GPUs of an HGX node [R2]; the ring its
        # LL base and hops; the time is then what the picked algorithm is measured to take
        if tuner_ring is None:
            hop = tuner_us(t, "hw_nvlink_us", "ring", "LL")
            tuner_ring = tuner_us(t, "base_us", "ring", "LL") + 2 * (nranks - 1) * hop + data / bus
        tuner_nvls = t["nvls"]["tuner_us"] + data / (nvls_alg * ring_bus_factor(NVLS_NODE_GPUS))
        return nvls if nvls_runs(t, nranks) and tuner_nvls < tuner_ring else ring
    return network(ic, nranks, size_bytes, nodes, fixed, only=only, cpu=cpu, cc=cc, nvls=nvls, intra=intra, path=path,
                   p2p=p2p, release=release)


def nvlink_ring(t: dict, nranks: int, size_bytes: float, cc: float, bus: float,
                extra_us: float) -> tuple[AllReduceTime, float]:
    """(the time, NCCL's own estimate) of NCCL's ring inside one NVLink node of Hopper or later GPUs
    (NCCL_TUNER_TIMED_CC), as the release's tuner models it (t: tuning; tuning.cc ncclTopoTuneModel): the protocol
    its model says is fastest, each at its base latency + 2(n-1) NVLink steps (LL 6.6 + 0.6 a step, LL128 14 + 1.9,
    Simple 8.4 + 3.4 now [R8]) and its share of the bus `bus` (B/us, the fabric's achieved busbw): LL half of it, no
    more than the release's one-node LL cap (ll_max_one_node: 141 GB/s on Hopper from 2.21.5), LL128 0.92 of it (where
    the release runs LL128 on these GPUs), Simple all of it. The time adds `extra_us` (an eager launch's wait for its
    peers, eager_extra_us) to that estimate."""
    data = ring_bus_factor(nranks) * size_bytes
    cap = t["ll_max_one_node"]
    ll_cap = catalog.by_compute_capability(cap["caps"], cc, cap.get("exact", False)) * 1e3
    bws = {"LL": min(NCCL_LL_SHARE * bus, ll_cap), "LL128": 0.92 * bus, "Simple": bus}

    def estimate(proto: str) -> float:
        steps = 2 * (nranks - 1) * tuner_us(t, "hw_nvlink_us", "ring", proto)
        return tuner_us(t, "base_us", "ring", proto) + steps + data / bws[proto]
    proto = min((p for p in NCCL_NET_PROTOS if p != "LL128" or ll128_runs(t, cc)), key=estimate)
    return AllReduceTime(extra_us + estimate(proto), "NCCL ring", proto), estimate(proto)


def _check_forced(only: str | None, ic: InterconnectSpec, nodes: int, nvls: bool, cc: float, t: dict,
                  nranks: int) -> None:
    """Refuse an NCCL_ALGO this machine or this NCCL release cannot run (NCCL itself fails the call): tree and NVLSTree
    only across nodes, NVLSTree only where the GPUs' NVSwitch reduces (Hopper or later: nvls_capable), NVLS only inside
    one NVSwitch node that reduces; NVLS and NVLSTree only from the releases that have them (t: tuning); PAT never for
    an all-reduce. A forced NVLS on fewer GPUs than the release sets NVLS up for (nvls_runs) is not refused: NCCL ran
    it without an error on 2 H100 at 2.20.5 (tests/data/collectives issue 1259), so it is priced as forced."""
    across = ic.kind == "network" and nodes > 1
    runs = {None: True, "ring": True, "tree": across,
            "nvlstree": across and nvls and cc >= NVLS_MIN_CC and t["nvlstree"]["enabled"],
            "nvls": not across and ic.kind == "nvswitch" and ic.in_network_reduction and t["nvls"]["enabled"],
            "pat": pat_runs(t, "allreduce", nranks, nodes)}
    if only not in runs:
        raise InputError(f"unknown NCCL algorithm {only!r}: one of ring, tree, nvls, nvlstree")
    if only == "pat":
        raise InputError(f"NCCL runs PAT only for all-gather and reduce-scatter with one GPU per node (from 2.23.4, "
                         f"{t['pat']['source']}), never for an all-reduce")
    if only == "nvls" and across:
        raise InputError("the NCCL nvls all-reduce across nodes (NVLS with CollNet / SHARP) is not modelled: "
                         "NCCL_ALGO nvlstree, tree or ring")
    if only == "tree" and not across:
        raise InputError("the NCCL tree all-reduce is modelled only across nodes, not inside one node")
    if not runs[only]:
        where = f"{nodes} node(s) over {ic.name}" + ("" if not across or nvls else " without an NVSwitch that reduces")
        said = t["release"]
        version = "" if not said["stated"] else f" (NCCL {said['version']})" if "clamped_from" not in said else \
            f" (NCCL {said['clamped_from']}, priced as {said['version']}, the oldest release nccl_tuning.toml knows)"
        raise InputError(f"NCCL cannot run the {only} all-reduce on {where}{version}")


def network(ic: InterconnectSpec, nranks: int, size_bytes: float, nodes: int, fixed: float, *,
            only: str | None = None, cpu: str = "", cc: float = 0.0, nvls: bool = False,
            intra: InterconnectSpec | None = None, path: str = "", p2p: bool = True,
            release: str | None = None) -> AllReduceTime:
    """An all-reduce across nodes, as NCCL runs it: the (algorithm, protocol) its tuner's own model
    says is fastest (net_tuner_us, NCCL's constants), timed with that model's latency at the fitted
    scale (calibration.toml [nccl] net_lat_scale) and its bandwidth at the NICs' achieved rate.
    `only` ('ring', 'tree', 'nvlstree') forces the algorithm, as NCCL_ALGO does; the protocol is still the tuner's.
    NVLSTree is an option only where `nvls` (an NVSwitch that reduces, Hopper or later: nvls_capable).
    `intra`: the PCIe fabric joining a node's GPUs where no NVLink does: NCCL then prices each intra-node step with
    its PCI latency row, runs no LL128 (tuning.cc enables it only up to typeIntra PATH_NVB), and the ring or tree
    moves no more than that link carries (intra_gbs, with `path` and `p2p` as over PCIe inside one node).
    `release`: the NCCL version whose tuner constants pick (tuning)."""
    c = catalog.calibration().nccl
    t = tuning(release)
    lanes = None  # (NCCL's figure, the achieved) busbw of the PCIe link inside the node
    if intra is not None and nranks // nodes > 1:
        lanes = (intra_gbs(intra, c, path=path, cpu=cpu, cc=cc, tuner=True),
                 intra_gbs(intra, c, path=path, cpu=cpu, cc=cc, p2p=p2p))
    options = [(a, p) for a in ("ring", "tree") for p in NCCL_NET_PROTOS
               if (not only or a == only) and (p != "LL128" or (ll128_runs(t, cc) and intra is None))]
    if nvls and cc >= NVLS_MIN_CC and t["nvlstree"]["enabled"] and only in (None, "nvlstree"):
        options.append(("nvlstree", "Simple"))
    tuner_pcie = lanes[0] if lanes else 0.0
    algo, proto = min(options, key=lambda o: net_tuner_us(ic, nranks, size_bytes, nodes, *o, cpu=cpu, cc=cc,
                                                          pcie_gbs=tuner_pcie, release=release))
    lat = _net_model(ic, nranks, nodes, algo, proto, cpu, cc, pcie_gbs=tuner_pcie, release=release)[0]
    lat *= ring_plateau(ic, nranks, size_bytes, nodes, algo, proto, cc, release=release)
    # the NICs' side (the PCIe link's bound below), as the newest tuner models the picked algorithm's bandwidth: a
    # release's constants decide what NCCL picks and its latency, the hardware how fast the bytes then move
    algbw = _net_model(ic, nranks, nodes, algo, proto, cpu, cc)[1]
    algbw *= tree_correction(algo, proto, size_bytes)
    achieved = algbw * 1e3 if algo == "nvlstree" else algbw * ic.achieved_gbs / ic.bandwidth_gbs * 1e3  # B/us
    if lanes:  # no faster than the PCIe link carries the bytes (LL: half of them are flags)
        share = NCCL_LL_SHARE if proto == "LL" else 1.0
        achieved = min(achieved, lanes[1] * share * _bus_to_alg(algo, nranks) * 1e3)
    data = size_bytes / achieved
    if algo == "nvlstree":
        # as inside a node (nccl: NVLS), the NVLink latency (25 us now) steers the tuner, not the measured time
        lat -= t["nvlstree"]["intra_us"]
        data += nvlstree_fill_us(t, size_bytes, nvls_heads(max(1, nranks // nodes)), nodes, cc, achieved)
    name = "NCCL NVLSTree" if algo == "nvlstree" else f"NCCL {algo}"
    return AllReduceTime(fixed + c["net_lat_scale"] * lat + data, name, proto)


def nvls_heads(gpus: int, nics: int | None = None) -> int:
    """NVLSTree's heads in a node of `gpus` GPUs with `nics` NICs (channel.nvls.nHeads: the NVLS graph's channels,
    src/graph/connect.cc connectNvls): one per NIC that the search pairs with a GPU no other head has ('NVLS search only
    tries to find NIC:GPU combinations to compute the heads', src/graph/search.cc v2.26.2 L625-641), at most the node's
    GPUs (maxChannels, search.cc L975: the GPU count from v2.19.3-1) and NCCL_MAX_NVLS_ARITY (from v2.25.1-1). The
    interconnect rows are one NIC's rate per GPU and name no NIC count, so `nics` None is one NIC per GPU, as every
    table of tests/data/collectives that runs NVLSTree states or assumes (8 per node)."""
    return max(1, min(gpus if nics is None else nics, gpus, NCCL_MAX_NVLS_ARITY))


def nvls_fill_us(t: dict, size_bytes: float, nranks: int, cc: float, alg: float) -> float:
    """What NVLS's pipeline inside one node adds to its bytes' time at the algbw `alg` (B/us): NVLS_STAGES - 1 passes,
    each the release's NVLS channels (nvlstree_chunks channels) x heads (one per GPU on one node: nvls_heads) x the
    chunk enqueue.cc picks at this size (nvls_chunks, NVLS_CHUNK_CUTS), no more than the message. A GPU of unknown
    compute capability on an NVSwitch that reduces is taken as Hopper, the first NVLS runs on."""
    ops = catalog.by_compute_capability(t["nvlstree_chunks"]["channels"], max(cc, NVLS_MIN_CC)) * nvls_heads(nranks)
    rule = t["nvls_chunks"]
    chunk = cut_chunk(rule["first_bytes"], size_bytes, ops, NVLS_CHUNK_CUTS if rule["cuts"] else ())
    return (NVLS_STAGES - 1) * min(ops * chunk, size_bytes) / alg


def cut_chunk(chunk: int, size_bytes: float, ops: int, cuts) -> int:
    """The chunk enqueue.cc's calcCollChunking leaves: each (multiple, cut) in turn, the chunk drops to `cut` where the
    message is under multiple x ops x the chunk so far and the chunk is larger than `cut`."""
    for multiple, cut in cuts:
        if size_bytes < multiple * ops * chunk and chunk > cut:
            chunk = cut
    return chunk


def nvlstree_chunk(t: dict, size_bytes: float, ops: int, nodes: int) -> int:
    """The chunk NVLSTree moves at this size under the release's rules (t: tuning; enqueue.cc calcCollChunking): its
    first size (another from 4 nodes), cut as NVLSTREE_CHUNK_CUTS says for `ops` (channels x heads) at once."""
    rule = t["nvlstree_chunks"]
    chunk = rule["many_nodes_bytes"] if nodes >= 4 and rule["many_nodes_bytes"] else rule["first_bytes"]
    return cut_chunk(chunk, size_bytes, ops, NVLSTREE_CHUNK_CUTS)


def nvlstree_fill_us(t: dict, size_bytes: float, heads: int, nodes: int, cc: float, achieved: float) -> float:
    """The time NVLSTree's pipeline takes to fill beyond its bytes at the achieved rate (B/us), an approximation: the
    tuner's network step count (nvlstree_steps) more chunk-times of every operation (the release's NVLS channels x
    `heads`, nvls_heads) at once, a chunk no larger than an operation's share of the message. The chunk and the
    operations are NCCL's; the step count as the fill's length is borrowed from the tuner's latency, not derived from
    the kernel's stages (all_reduce.h), and its multiplier (1) was chosen on the multi-node fit tables. Why two nodes
    of H100 reach NVLSTree's large-message rate only from ~64 MB (tests/data/collectives, nccl-tests issue 309:
    270 GB/s busbw at 64 MB, 469 at 16 GB)."""
    ops = catalog.by_compute_capability(t["nvlstree_chunks"]["channels"], cc) * heads
    chunk = min(nvlstree_chunk(t, size_bytes, ops, nodes), size_bytes / ops)
    return nvlstree_steps(t, nodes) * chunk * ops / achieved


def nvlstree_steps(t: dict, nodes: int) -> int:
    """The network steps NCCL's tuner counts in NVLSTree's latency (tuning.cc): 2 log2(nodes) from 2.19.3, 2 (nodes - 1)
    in 2.18 (the release's log_steps)."""
    return 2 * int(math.log2(nodes)) if t["nvlstree"]["log_steps"] else 2 * (nodes - 1)


def intra_gbs(intra: InterconnectSpec, c: dict, *, path: str = "", cpu: str = "", cc: float = 0.0, p2p: bool = True,
              tuner: bool = False) -> float:
    """The busbw a node's PCIe-joined GPUs carry inside a ring across nodes (GB/s): NCCL's own figure for the link
    (tuner: nccl_ring_gbs), or what it achieves (the PCIe Simple step's bus, SHM's without peer-to-peer), no more than
    NCCL's CPU-to-CPU link where the ring crosses sockets (path 'sys'). All channels share that one link."""
    if tuner:
        return nccl_ring_gbs(intra, path=path, cpu=cpu, cc=cc)
    bw = _pcie_step(intra, c, p2p, "Simple")[1] / 1e3
    return min(bw, NCCL_CPU_LINK_GBS[cpu]) if path == "sys" and cpu in NCCL_CPU_LINK_GBS else bw


def _bus_to_alg(algo: str, nranks: int) -> float:
    """algbw / busBw as tuning.cc converts: n / 2(n-1) for a ring (and NVLSTree), 1/2 for a tree."""
    return 0.5 if algo == "tree" else nranks / (2.0 * (nranks - 1))


def _tree_bus_gbs(ic: InterconnectSpec, nics: int, nodes: int, cc: float, t: dict | None = None) -> float:
    """The bus bandwidth NCCL's tuner gives its tree across nodes (GB/s), one channel per NIC: each channel's
    bwIntra is the NIC's speed, twice it on two nodes (search.cc), but no more than the fastest speed its intra-node
    search tries (speedArrayIntra: 40, sm90 60, sm100 90 GB/s); at 25 GB/s and up the channels are duplicated
    (net_channels); tuning.cc then takes 0.92 of nChannels x bwIntra, capped at nChannels x perChMaxTreeBws (the
    release's, t: tuning; none before 2.8.3)."""
    t = t or tuning()
    gen = max(k for k in NCCL_INTRA_MAX_GBS if cc >= k)
    per_channel = min(ic.bandwidth_gbs * (2.0 if nodes <= 2 else 1.0), NCCL_INTRA_MAX_GBS[gen])
    channels = net_channels(per_channel, nics, cc)
    cap = catalog.by_compute_capability(t["tree_ch_gbs"]["caps"], cc, t["tree_ch_gbs"].get("exact", False))
    return min(0.92 * nics * per_channel, channels * cap[0 if nodes <= 2 else 1] if cap else math.inf)


def net_channels(per_channel: float, nics: int, cc: float) -> int:
    """How many channels NCCL runs across nodes: one per NIC, doubled at 25 GB/s a channel and up
    (ncclTopoDupChannels; not on Hopper and later below 50 GB/s with more than 4 channels)."""
    dup = per_channel >= 25.0 and not (cc > 8.0 and per_channel < 50.0 and nics > 4)
    return nics * (2 if dup else 1)


def nvls_capable(gpu: GpuSpec) -> bool:
    """Whether NCCL can run NVLS / NVLSTree on this GPU's own board: an NVSwitch that reduces (interconnects.toml
    in_network_reduction) and Hopper or later (tuning.cc nvlsEfficiency is 0 for Volta and Ampere)."""
    ic = catalog.interconnects().get(gpu.interconnect)
    return bool(gpu.nvlink_gbs and ic is not None and ic.in_network_reduction
                and gpu.compute_capability >= NVLS_MIN_CC)


def net_tuner_us(ic: InterconnectSpec, nranks: int, size_bytes: float, nodes: int, algo: str, proto: str, *,
                 cpu: str = "", cc: float = 0.0, pcie_gbs: float = 0.0, release: str | None = None) -> float:
    """NCCL's own estimate of one all-reduce across nodes (tuning.cc: base + latency + bytes / algbw), with the
    constants of `release` (tuning)."""
    lat, algbw = _net_model(ic, nranks, nodes, algo, proto, cpu, cc, pcie_gbs=pcie_gbs, release=release)
    base = 0.0 if algo == "nvlstree" else tuner_us(tuning(release), "base_us", algo, proto)
    lat = (base + lat) * ring_plateau(ic, nranks, size_bytes, nodes, algo, proto, cc, release=release)
    return lat + size_bytes / (algbw * tree_correction(algo, proto, size_bytes) * 1e3)


def ring_plateau(ic: InterconnectSpec, nranks: int, size_bytes: float, nodes: int, algo: str, proto: str,
                 cc: float = 0.0, release: str | None = None) -> float:
    """The factor NCCL's tuner puts on a Simple ring all-reduce's latency across nodes ("Plateau effect of ring", the
    release's ring_plateau row): past nRanks/16 x 64 KiB to 2.17, past 64 B per rank and channel from 2.18 (its
    channels: one per NIC, duplicated as net_channels says); the factor by the GPUs' compute capability; 1 elsewhere."""
    if algo != "ring" or proto != "Simple" or nodes <= 1:
        return 1.0
    rule = tuning(release)["ring_plateau"]
    if rule["threshold"] == "ranks":
        reached = size_bytes >= nranks / 16.0 * 65536
    else:
        reached = size_bytes / (net_channels(ic.bandwidth_gbs, max(1, nranks // nodes), cc) * nranks) >= 64
    return catalog.by_compute_capability(rule["factors"], cc) if reached else 1.0


def tree_correction(algo: str, proto: str, size_bytes: float) -> float:
    """The share of its modelled bandwidth NCCL's tuner gives a tree at this size (NCCL_TREE_CORRECTION); 1 else."""
    i = int(math.log2(size_bytes / 64)) if size_bytes >= 64 else -1
    return NCCL_TREE_CORRECTION[proto][i] if algo == "tree" and 0 <= i < len(NCCL_TREE_CORRECTION[proto]) else 1.0


def _net_model(ic: InterconnectSpec, nranks: int, nodes: int, algo: str, proto: str, cpu: str,
               cc: float = 0.0, pcie_gbs: float = 0.0, release: str | None = None) -> tuple[float, float]:
    """(latency beyond the base in us, algorithm bandwidth in GB/s) of NCCL's tuner model across nodes
    (tuning.cc ncclTopoTuneModel). Each GPU has its own NIC (interconnects.toml: per GPU NIC), so a ring's
    channels together move the node's NICs' line rate (search.cc: one ring per NIC, bwInter the NIC's speed);
    a tree moves 0.92 of it, and twice that between two nodes (search.cc raises a 2-node tree's bwIntra to
    2 x bwInter; tuning.cc takes bwIntra when nNodes <= 2), its algbw half its busBw. LL: ring at the release's
    share of the bus bandwidth (ll_share), tree at 1/3.8 of it, both capped at llMaxBw (by the CPU vendor and the node
    count); LL128: 0.92 (ring; the release's net_rules share with one GPU per node) and 120/128 (tree). The release's
    net_rules also say whether LL's intra-node step costs 1.8 x and whether one GPU per node takes the tree's network
    latency. pcie_gbs: where a node's GPUs are joined by PCIe, not NVLink, NCCL's
    figure for that link: the intra-node steps take the PCI latency row and the bus is no faster than the link.
    `release`: whose constants (tuning)."""
    t = tuning(release)
    per_node = max(1, nranks // nodes)
    hw_intra = "hw_pci_us" if pcie_gbs else "hw_nvlink_us"
    node_gbs = per_node * ic.bandwidth_gbs
    if algo == "nvlstree":
        return nvlstree_model(t, ic, nranks, nodes, cc)
    rules = t["net_rules"]
    ll_scale = rules["ll_intra_scale"] if proto == "LL" else 1.0  # nodes > 1 here
    vendor = "amd" if cpu == "amd" else "intel"
    ll_max = NCCL_LL_MAX_GBS[vendor][0 if nodes <= 2 else 1]
    gen, many = max(k for k in NCCL_RING_LL128_CH_GBS if cc >= k), 0 if nodes <= 2 else 1
    ll128_caps = (NCCL_RING_LL128_CH_GBS[gen][many], NCCL_TREE_LL128_CH_GBS[gen][many])
    if algo == "ring":
        ring_gbs = min(node_gbs, pcie_gbs) if pcie_gbs and per_node > 1 else node_gbs
        ll128_share = rules["ring_ll128_one_ppn"] if per_node == 1 else 0.92
        ll128 = min(ring_gbs * ll128_share, net_channels(ic.bandwidth_gbs, per_node, cc) * ll128_caps[0])
        bus = {"LL": min(ll_max, ring_gbs * t["ll_share"]["share"]), "LL128": ll128, "Simple": ring_gbs}[proto]
        overhead = t["net_overhead_us"][vendor] * (3.0 if proto == "Simple" else 1.0)
        inter_steps = 2 * (nodes - 1)
        inter = tuner_us(t, "hw_net_us", "tree" if per_node == 1 and rules["tree_net_one_ppn"] else "ring", proto)
        intra_step = max(tuner_us(t, hw_intra, "ring", proto) * ll_scale, overhead)
        lat = (2 * (nranks - 1) - inter_steps) * intra_step + inter_steps * inter
        return lat, bus * nranks / (2 * (nranks - 1))
    tree = _tree_bus_gbs(ic, per_node, nodes, cc, t)
    if pcie_gbs and per_node > 1:
        tree = min(tree, pcie_gbs)
    tree_channels = net_channels(min(ic.bandwidth_gbs * (2.0 if nodes <= 2 else 1.0),
                                     NCCL_INTRA_MAX_GBS[max(k for k in NCCL_INTRA_MAX_GBS if cc >= k)]), per_node, cc)
    bus = {"LL": min(tree / 3.8, ll_max), "LL128": min(tree * 120 / 128, tree_channels * ll128_caps[1]),
           "Simple": tree}[proto]
    lat = 2 * ((per_node - 1) * tuner_us(t, hw_intra, "tree", proto) * ll_scale
               + int(math.log2(nodes)) * tuner_us(t, "hw_net_us", "tree", proto))
    return lat, bus * 0.5


def nvlstree_model(t: dict, ic: InterconnectSpec, nranks: int, nodes: int, cc: float) -> tuple[float, float]:
    """(latency in us, algbw in GB/s) of NVLSTree as the release's tuner models it (t: tuning): its NVLink latency and
    network steps; one channel per NVLS head (nvls_heads) at the NICs' achieved rate times the release's scale (0: the
    fastest intra-node speed, NCCL 2.18's bwIntra), capped per channel from 2.28.3; busBw to algbw by the release's
    ratio."""
    rule = t["nvlstree"]
    heads = nvls_heads(max(1, nranks // nodes))  # tuning.cc: busBw = graphs[NVLS_TREE]->nChannels (the heads) x bw
    many = 0 if nodes <= 2 else 1
    scale = rule["inter_scale"][many]
    gen = max(k for k in NCCL_INTRA_MAX_GBS if cc >= k)
    inter = ic.achieved_gbs * scale if scale > 0 else NCCL_INTRA_MAX_GBS[gen]
    cap = catalog.by_compute_capability(rule["caps"], cc)
    bus = heads * min(cap[many] if cap else math.inf, inter)
    steps = nvlstree_steps(t, nodes)
    ratio = {"ring": nranks / (2 * (nranks - 1)), "five-sixths": 5.0 / 6.0,
             "nodes-0.7": 0.7 * nodes / (2 * (nodes - 1))}[rule["ratio"]]
    return rule["intra_us"] + steps * rule["net_us"], bus * ratio


def thread_bound(kernel: AllReduceTime, thread_gpus: int) -> AllReduceTime:
    """Back-to-back calls that one host thread launches on `thread_gpus` GPUs (nccl-tests -g N: startColl puts one
    ncclAllReduce per GPU inside ncclGroupStart/End, and ncclGroupEnd's doLaunches prepares and launches each GPU's
    kernel in turn on that thread; the reported time is the loop's wall time over its iterations). The thread issues
    a call every thread_call_us + thread_gpus x thread_launch_us; the GPUs, queued, take the call's kernel time (as
    replayed: every rank's kernel is already waiting, so no peer is late). The slower of the two sets the pace."""
    launches = thread_pace_us(thread_gpus)
    return kernel if kernel.us >= launches else replace(kernel, us=launches)


def thread_pace_us(thread_gpus: int) -> float:
    """How often one host thread can issue a call on `thread_gpus` GPUs (thread_bound): no faster than this."""
    cal = catalog.calibration()
    return cal.thread_call_us + thread_gpus * cal.thread_launch_us


# A one-thread row this close to the thread's pace says nothing of the kernel (it may be anywhere below): the 68
# one-thread fit points (tests/data/collectives, launch one-thread, no graph) whose replayed kernel the model puts
# under the pace were measured at 0.76-1.14 x that pace (the thread's own scatter), so rows up to 1.2 x are its.
THREAD_PACE_SPREAD = 1.2


def thread_paced(time_us: float, thread_gpus: int, graph: bool) -> bool:
    """A measured call that shows the launching thread's pace, not the kernel's time (nccl-tests -g N without
    graphs at small sizes): an engine, one process per GPU, never pays it, so it is no engine's all-reduce."""
    return thread_gpus > 1 and not graph and time_us <= THREAD_PACE_SPREAD * thread_pace_us(thread_gpus)


def cpu_class(family: str) -> str:
    """The CPU link class NCCL gives a host CPU family (NCCL_CPU_CLASS_BY_FAMILY), "" where unknown."""
    return next((c for pattern, c in NCCL_CPU_CLASS_BY_FAMILY if re.search(pattern, family)), "")


def pcie_protocol(ic: InterconnectSpec, nranks: int, size_bytes: float, *, path: str = "", cpu: str = "",
                  cc: float = 0.0, release: str | None = None) -> str:
    """The protocol NCCL's tuner picks for a ring all-reduce over PCIe: the one its own model
    (tuning.cc: base + steps x hardware latency + bytes / bandwidth, LL at the release's ll_share of it; the
    constants of `release`, tuning) says is faster, with the ring bandwidth its topology search finds
    (nccl_ring_gbs)."""
    t = tuning(release)
    steps = 2 * (nranks - 1)
    algbw = nccl_ring_gbs(ic, path=path, cpu=cpu, cc=cc) * 1e3 / ring_bus_factor(max(nranks, 2))  # bytes per us

    def tuner(proto: str) -> float:
        share = t["ll_share"]["share"] if proto == "LL" else 1.0
        return (tuner_us(t, "base_us", "ring", proto) + steps * tuner_us(t, "hw_pci_us", "ring", proto)
                + size_bytes / (algbw * share))
    return min(("LL", "Simple"), key=tuner)


def nccl_ring_gbs(ic: InterconnectSpec, *, path: str = "", cpu: str = "", cc: float = 0.0) -> float:
    """The per-channel ring bandwidth NCCL's search settles on over PCIe: the link's rate as topo.cc
    counts it, or the CPU-to-CPU link's where the ring spans sockets (path 'sys'); a ring slower
    than the slowest speed the search tries for this GPU generation falls back to 0.1 GB/s."""
    bw = NCCL_PCI_GEN3_X16_GBS * ic.bandwidth_gbs / PCIE_GEN3_X16_GBS
    if path == "sys" and cpu in NCCL_CPU_LINK_GBS:
        bw = min(bw, NCCL_CPU_LINK_GBS[cpu])
    floor = max(v for k, v in NCCL_SEARCH_FLOOR_GBS.items() if cc >= k)
    return bw if bw >= floor else NCCL_FALLBACK_GBS


def _pcie_step(ic: InterconnectSpec, c: dict, p2p: bool, proto: str, shm_gbs: float = 0.0) -> tuple[float, float]:
    """(hop in us, bus bandwidth in bytes per us) of one ring step over PCIe under `proto`: LL's
    shorter step at its share of the bandwidth, or Simple's longer one at all of it; without
    peer-to-peer (SHM) the step goes through host memory, at the host's SHM busbw (`shm_gbs`, shm_busbw_gbs; 0: a host
    nothing is known of)."""
    hop = c["hop_us_pcie"] if proto == "LL" else c["hop_us_pcie_simple"]
    share = c["ll_bus_share"] if proto == "LL" else 1.0
    bus = ((shm_gbs or shm_busbw_gbs(ic)) if not p2p else ic.achieved_gbs) * 1e3 * share
    return hop * (1.0 if p2p else c["shm_hop_factor"]), bus


def _pick(options: list[AllReduceTime], only: str | None) -> AllReduceTime:
    """The fastest, as NCCL's tuner picks; or the one algorithm forced."""
    forced = [t for t in options if only and t.impl.lower().endswith(only)]
    return min(forced or options, key=lambda t: t.us)


def eager_extra_us(nranks: int) -> float:
    """What a collective launched from the host costs beyond one replayed in a CUDA graph: the
    launch, and the wait for the last of the peers' launches, whose lateness grows with the
    log of the rank count (the largest of n random delays)."""
    return catalog.calibration().eager_extra_us * math.log2(max(nranks, 2))


def _hop_us(ic: InterconnectSpec, c: dict, p2p: bool) -> float:
    if ic.kind in ("nvlink", "nvswitch"):
        return c["hop_us_nvlink"]
    if ic.kind == "pcie":
        return _pcie_step(ic, c, p2p, "LL")[0]
    return c["hop_us_network"]


def custom(key: str, nranks: int, size_bytes: float, *, graphs: bool = True, link_gbs: float = 450.0) -> AllReduceTime:
    """An engine's own one-shot/two-shot all-reduce: a fixed cost that grows slowly with the rank
    count, and the bytes at the kernel's achieved share of the NVLink rate."""
    spec = catalog.calibration().custom[key]
    fixed = (spec.base_us + (0.0 if graphs else eager_extra_us(nranks))
             + spec.per_doubling_us * math.log2(max(nranks, 2) / 2))
    bus = spec.bus_gbs_per_link_gbs * link_gbs * 1e3
    return AllReduceTime(fixed + ring_bus_factor(nranks) * size_bytes / bus, f"{key} custom")


def p2p_us(ic: InterconnectSpec, size_bytes: float, *, roofline: bool = False, graphs: bool = True,
           p2p: bool = True, copy: bool = False) -> float:
    """One PP send/recv between neighbouring stages: an NCCL send/recv is one step of the all-reduce's path model
    (nccl), under the protocol enqueue.cc gives a send (LL up to NCCL_P2P_LL_BYTES, Simple above), so without PCIe
    peer-to-peer (p2p False) the bytes take NCCL's SHM transport, with its hop and its share of the bus bandwidth, as
    the ring's steps do. `copy`: the engine copies with cudaMemcpyPeerAsync (llama.cpp, engines.toml pp_handover),
    which the driver stages through host memory without P2P: the bytes cross PCIe twice."""
    if roofline:
        return ic.floor_us + size_bytes / (ic.bandwidth_gbs * 1e3)
    c = catalog.calibration().nccl
    fixed = c["base_us"] + (0.0 if graphs else eager_extra_us(2))
    if copy:
        crossings = 1 if p2p or ic.kind != "pcie" else 2
        return fixed + _hop_us(ic, c, True) + crossings * size_bytes / _bus(ic, c, True)
    if ic.kind == "pcie":
        hop, bus = _pcie_step(ic, c, p2p, "LL" if size_bytes <= NCCL_P2P_LL_BYTES else "Simple")
        return fixed + hop + size_bytes / bus
    return fixed + _hop_us(ic, c, p2p) + size_bytes / _bus(ic, c, p2p)


def shm_busbw_gbs(ic: InterconnectSpec, *, host_cpu: str = "", copy_gbs: float = 0.0) -> float:
    """The busbw a large all-reduce reaches over NCCL's SHM transport on this PCIe fabric (GB/s), never more than the
    link: a share (calibration.toml [nccl] shm_copy_share) of what the host moves from one GPU to another through its
    memory. NCCL's SHM step is that path: the sender's kernel stores into a FIFO in pinned host memory, the receiver's
    loads it (src/transport/shm.cc), as the driver's copy between GPUs without peer access stages each chunk through
    host memory (CUDA's p2pBandwidthLatencyTest, 'P2P=Disabled'). `copy_gbs`: that copy's rate where the host's own
    measurement is stated; else estimated (host_copy_link_share) from the per-direction rate of each GPU's link to host
    memory (link_to_host_gbs: `host_cpu`, the CPU as a source names it; PCIe Gen3 where unknown). The one figure
    rules.nccl judges a board without peer-to-peer by."""
    copy = copy_gbs or estimated_host_copy_gbs(ic, host_cpu)
    return min(ic.achieved_gbs, catalog.calibration().nccl["shm_copy_share"] * copy)


def estimated_host_copy_gbs(ic: InterconnectSpec, host_cpu: str = "") -> float:
    """The host's copy from one GPU to another through its memory where no measurement states it (GB/s): a share
    (calibration.toml [nccl] host_copy_link_share) of the GPU's link to host memory (link_to_host_gbs)."""
    return catalog.calibration().nccl["host_copy_link_share"] * link_to_host_gbs(ic, host_cpu)


def link_to_host_gbs(ic: InterconnectSpec, host_cpu: str = "") -> float:
    """The per-direction rate (GB/s) of a GPU's PCIe link to host memory: its own lanes, at the lower of its own
    generation and that of the host CPU's root ports (host_link_gbs), as a link trains at the highest generation both
    ends support and keeps its width (a Gen4 x8 card on a Gen3 host: Gen3 x8, 7.9 GB/s; on a Gen5 host: Gen4 x8)."""
    own = re.match(r"pcie\d", ic.key)
    own_x16 = catalog.interconnect(own.group(0)).bandwidth_gbs if own else ic.bandwidth_gbs
    return ic.bandwidth_gbs * min(1.0, host_link_gbs(host_cpu) / own_x16)


def shm_basis(ic: InterconnectSpec, host_cpu: str = "", copy_gbs: float = 0.0) -> str:
    """Where shm_busbw_gbs's figure comes from, in words a report can print: the share it takes of the host's copy
    between GPUs, that copy as measured (`copy_gbs`) or estimated from the GPU's link to host memory
    (link_to_host_gbs), saying when the host's generation is assumed (no host CPU given, or one the host table does
    not know)."""
    c = catalog.calibration().nccl
    if copy_gbs:
        return (f"SHM busbw {shm_busbw_gbs(ic, copy_gbs=copy_gbs):.1f} GB/s = {c['shm_copy_share']:g} x the host's "
                f"copy between GPUs without peer access, {copy_gbs:.1f} GB/s as measured, no more than {ic.name}'s "
                f"typical {ic.achieved_gbs:g} GB/s (rules/catalog/calibration.toml [nccl])")
    host = host_link_gbs(host_cpu)
    assumed = host_pcie_gen(host_cpu) is None
    link = link_to_host_gbs(ic, host_cpu)
    copy = estimated_host_copy_gbs(ic, host_cpu)
    host_said = (f"PCIe Gen3 x16 {host:g} GB/s to host memory, assumed: no host CPU " +
                 ("given" if not host_cpu else f"generation known for '{host_cpu}'") if assumed
                 else f"the root ports of '{host_cpu}' {host:g} GB/s (rules/catalog/host_memory.toml)")
    return (f"SHM busbw {shm_busbw_gbs(ic, host_cpu=host_cpu):.1f} GB/s = {c['shm_copy_share']:g} x the host's copy "
            f"between GPUs {copy:.1f} GB/s, itself {c['host_copy_link_share']:g} x the GPU's link to host memory "
            f"{link:.1f} GB/s: its {ic.name} lanes ({ic.bandwidth_gbs:g} GB/s) at no more than {host_said} "
            "(rules/catalog/calibration.toml [nccl])")


def host_link_gbs(host_cpu: str = "") -> float:
    """The per-direction rate (GB/s) of an x16 link at the PCIe generation of the host CPU's root ports
    (rules/catalog/host_memory.toml [[cpu]] pcie_gen, the family the name matches); where the CPU or its generation is
    not known, PCIe Gen3's: the slowest still in service, so an unknown host is never expected faster than that, and
    what the fit tables that name no host are priced at (an assumption: the kalavai RTX 4090 tables' bus numbers
    0x1a/0x1b/0x3d/0x3e fit an Intel Xeon Scalable host's root ports but do not say which generation)."""
    gen = host_pcie_gen(host_cpu)
    return catalog.interconnect(f"pcie{gen}").bandwidth_gbs if gen else PCIE_GEN3_X16_GBS


def host_pcie_gen(host_cpu: str = "") -> int | None:
    """The PCIe generation of the host CPU's root ports (rules/catalog/host_memory.toml [[cpu]] pcie_gen, the family
    the name matches), None where the CPU is not named or its family states none."""
    from rules.offload import cpu_family

    family = cpu_family(host_cpu) if host_cpu else None
    return family[0].get("pcie_gen") if family else None


def _bus(ic: InterconnectSpec, c: dict, p2p: bool) -> float:
    """Bytes per microsecond NCCL moves on this fabric at full bandwidth (Simple): without PCIe
    peer-to-peer, what the host's memory path moves (SHM)."""
    return _pcie_step(ic, c, p2p, "Simple")[1] if ic.kind == "pcie" else ic.achieved_gbs * 1e3
