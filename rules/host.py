"""Rules about the host around the GPUs: NUMA/CPU placement, /dev/shm, IOMMU and ACS.

The physics: a GPU hangs off one CPU socket. Traffic that crosses the socket interconnect
(UPI/xGMI) — a rank running on the far socket, or PCIe P2P between GPUs on different
sockets — is slower than the same traffic within a socket. NCCL's SHM transport and its
proxy threads live in /dev/shm, so a container's default 64 MB is too small for 8 GPUs.
"""

from __future__ import annotations

import re
from collections import defaultdict

from diagnose.artifacts.nccl_log import cpu_list, errno_of
from diagnose.evidence import Facts, GpuFact, NcclEvent, NumaMemory, PairBandwidth, PcieLinkFact, TopologyPath
from rules import claims
from rules.common import claim_ev, ev, is_virtualized, make, nvlink_evidence, one_gpu_job, passed, visible_devices
from rules.engine import rule
from rules.topology import nvswitch_by_catalog

# Below this /dev/shm cannot hold NCCL's SHM buffers for a multi-GPU node (Docker's default is 64 MB).
SHM_MIN_BYTES = 512 << 20


# Why a shared-memory call fails, by the errno NCCL prints with it (shm_open(3), posix_fallocate(3), NCCL's
# misc/shmutils.cc): only a full /dev/shm (ENOSPC; ENOMEM, the kernel refusing the pages) is a size problem. /dev/shm is
# a tmpfs every user may write (mode 1777, shm_overview(7)): EACCES / EPERM / EROFS is its permissions or mount; ENOENT
# a segment one rank made and another cannot see. Each reason: what it means, and what to do.
SIZE_ERRNOS = ("ENOSPC", "ENOMEM")
_NOT_SIZE = {
    "EACCES": ("the process may not create or open files in /dev/shm (its mode should be drwxrwxrwt, 1777), or a "
               "segment of the same name belongs to another user",
               "Check `ls -ld /dev/shm` (drwxrwxrwt); `chmod 1777 /dev/shm`, or remove leftover /dev/shm/nccl-* files "
               "of another user's job; in a container, mount /dev/shm writable for the user the job runs as."),
    "ENOENT": ("a rank cannot find the segment another rank created: the ranks do not share one /dev/shm (separate "
               "containers or IPC namespaces), the segment was removed under them (systemd-logind's RemoveIPC=yes "
               "deletes a user's POSIX shared memory at logout), or the NCCL release's shared-memory path fails on "
               "this host",
               "Run all local ranks in one container (or with --ipc=host), set RemoveIPC=no in "
               "/etc/systemd/logind.conf for a service account, and retry with NCCL_SHM_DISABLE=1 and with another "
               "NCCL release to tell a host setting from a library problem."),
    "EMFILE": ("the process ran out of file descriptors",
               "Raise the open-files limit (`ulimit -n`, LimitNOFILE= for a service)."),
    "EEXIST": ("a segment of the same name is left over from an earlier job",
               "Remove stale /dev/shm/nccl-* files (with no NCCL job running) and retry."),
}
_NOT_SIZE["EPERM"] = _NOT_SIZE["EROFS"] = _NOT_SIZE["EACCES"]


def _shm_size(facts: Facts):
    """(bytes of /dev/shm, its record), either None when no `df /dev/shm` was read."""
    size_rec = facts.host("shm_bytes")
    try:
        return (float(size_rec.value) if size_rec is not None else None), size_rec
    except (TypeError, ValueError):
        return None, size_rec


def shm_reason(messages: list[str], size: float | None) -> str | None:
    """The errno that explains shared-memory failures other than by size: every failure that names an errno names
    one of _NOT_SIZE, none a full /dev/shm, and /dev/shm is not known to be small. None otherwise."""
    codes = [c for c in map(errno_of, messages) if c]
    if not codes or any(re.search(r"failed to extend|posix_fallocate", m, re.I) for m in messages) \
            or any(c in SIZE_ERRNOS or c not in _NOT_SIZE for c in codes) \
            or (size is not None and size < SHM_MIN_BYTES):
        return None
    return codes[0]


def not_size_finding(rule_id: str, code: str, shown: list, confidence: float):
    """The `other` finding for a shared-memory failure whose errno rules out a full /dev/shm."""
    cause, fix = _NOT_SIZE[code]
    return make(rule_id, "other", "warning", confidence,
                f"NCCL's shared-memory segment fails with {code}: not a /dev/shm size problem",
                f"The failure names its reason ({code}), and it is not a full /dev/shm (that is ENOSPC): {cause}. "
                "A larger --shm-size does not help here.",
                shown, fix=fix, refs=["nccl_trouble"])


@rule("host.shm_access", "other")
def shm_access(facts: Facts, predictions=None):
    """NCCL's shared-memory segment fails for a reason its errno names other than space (permissions, a segment
    another rank cannot see, no file descriptors): a host setting or a library problem, never 'too small'."""
    failed = [e for e in facts.of(NcclEvent) if e.kind == "shm_alloc_failed"]
    code = shm_reason([e.message for e in failed], _shm_size(facts)[0])
    if code is None:
        return
    shown = next(e for e in failed if errno_of(e.message))
    yield not_size_finding("host.shm_access", code, [ev(shown, f'NCCL: "{shown.message[:160]}"')], 0.6)


@rule("host.shm_too_small", "shm_too_small")
def shm_too_small(facts: Facts, predictions=None):
    """NCCL could not create its shared-memory segment (for lack of space, or no reason given), or /dev/shm is tiny."""
    failed = [e for e in facts.of(NcclEvent) if e.kind == "shm_alloc_failed"]
    size, size_rec = _shm_size(facts)
    if failed and shm_reason([e.message for e in failed], size):
        return  # another reason than space (host.shm_access)
    if not failed and (size is None or size >= SHM_MIN_BYTES):
        if size is not None:
            yield passed("host.shm_too_small", "/dev/shm is large enough for NCCL",
                         f"/dev/shm holds {size / 2**30:.1f} GiB.",
                         [ev(size_rec, "/dev/shm size", size, SHM_MIN_BYTES, "bytes")], 0.6)
        return
    evidence = []
    for e in failed[:1]:
        evidence.append(ev(e, "NCCL failed to create a shared-memory segment", e.data.get("size_bytes"), unit="bytes"))
    if size is not None and size < SHM_MIN_BYTES:
        evidence.append(ev(size_rec, "/dev/shm size", size, SHM_MIN_BYTES, "bytes"))
    container = facts.host("container") or next(iter(claims.find(facts, "container")), None)
    if container is not None:
        evidence.append(ev(container.source, "the job runs in a container (Docker gives /dev/shm 64 MB by default)",
                           True))
    yield make(
        "host.shm_too_small", "shm_too_small", "critical", 0.9 if failed else 0.7,
        "/dev/shm is too small for NCCL's shared-memory buffers",
        "NCCL allocates its intra-node SHM transport buffers and proxy state in /dev/shm. When the "
        "segment cannot be created the communicator fails (or NCCL falls back to slower paths); "
        "containers get a 64 MB /dev/shm unless told otherwise.",
        evidence,
        fix="Give the container a larger /dev/shm: `docker run --shm-size=16g` or `--ipc=host` (Kubernetes: "
        "an emptyDir with medium: Memory mounted at /dev/shm); check with `df -h /dev/shm`.",
        refs=["nccl_docker", "nccl_trouble"],
    )


def _numa_groups(facts: Facts) -> dict[str, list[GpuFact]]:
    """GPUs grouped by the CPU socket/NUMA node they hang off (NUMA id, else CPU affinity)."""
    groups: dict[str, list[GpuFact]] = defaultdict(list)
    seen = set()
    for g in facts.of(GpuFact):
        key = g.index if g.index is not None else g.source
        if key in seen:
            continue
        if g.numa_node is not None and g.numa_node >= 0:
            groups[f"NUMA {g.numa_node}"].append(g)
        elif g.cpu_affinity:
            groups[f"CPUs {g.cpu_affinity}"].append(g)
        else:
            continue
        seen.add(key)
    return groups


@rule("host.numa_affinity", "numa_affinity")
def numa_affinity(facts: Facts, predictions=None):
    """GPUs on several NUMA nodes: each rank must run on its GPU's own socket."""
    groups = _numa_groups(facts)
    if not groups:
        return
    if len(groups) == 1:
        (name, gpus), = groups.items()
        yield passed("host.numa_affinity", "All GPUs hang off one NUMA node",
                     f"Every GPU reports the same CPU affinity ({name}), so no rank can land on a remote socket.",
                     [ev(gpus[0], "GPU CPU/NUMA affinity", name)], 0.5)
        return
    evidence = [ev(gs[0], f"GPU{','.join(str(g.index) for g in gs if g.index is not None)} local to {name}", name)
                for name, gs in list(groups.items())[:4]]
    unpinned = claims.find(facts, "no_cpu_binding")
    binding = facts.host("cpu_binding")
    if binding is not None and str(binding.value).lower() not in ("none", "", "unbound"):
        yield passed("host.numa_affinity", "Ranks are bound to CPUs", f"CPU binding: {binding.value}.",
                     [ev(binding, "process CPU binding", binding.value)], 0.5)
        return
    if unpinned or (binding is not None):
        src = (claim_ev(unpinned[0], "the processes are not bound to CPUs") if unpinned
               else ev(binding, "process CPU binding", binding.value, "per-GPU NUMA node"))
        yield make(
            "host.numa_affinity", "numa_affinity", "warning", 0.55,
            f"GPUs span {len(groups)} NUMA nodes and the workers are not pinned to them",
            "Each GPU is attached to one CPU socket. An unpinned worker can run (and allocate its pinned "
            "host buffers) on the other socket, so every kernel launch, host copy and NCCL proxy step "
            "crosses the socket interconnect. The cost is largest for latency-bound decode.",
            evidence + [src],
            fix="Bind each rank to its GPU's NUMA node: `numactl --cpunodebind=N --membind=N` per rank, "
            "torchrun --local-ranks-filter with taskset, or the engine's own affinity option; check with "
            "`nvidia-smi topo -m` (CPU/NUMA Affinity columns).",
            refs=["numa", "nccl_env"],
        )
        return
    # Binding unknown: the placement itself is reported by node.numa_placement; a live node or a
    # topology dump cannot know how a future job's ranks will be bound, so this is no open question.


# Below this a process's pages on another node are a runtime's libraries and scratch, not the weights, KV cache or
# pinned staging buffers the CPU streams every step (numastat prints MB).
NUMA_MEMORY_MIN_MB = 1024
# The share of a process's memory on the far node from which a quarter or more of its host reads cross the socket
# link: local DRAM reads run at roughly twice the remote rate (node distance 10 vs 20-21 in `numactl -H`).
FAR_SHARE = 0.25


def _processes(facts: Facts) -> dict[tuple, list[NumaMemory]]:
    """numastat's per-process rows, by (pid, command)."""
    out: dict[tuple, list[NumaMemory]] = defaultdict(list)
    for m in facts.of(NumaMemory):
        if m.process is not None and m.used_mb is not None:
            out[(m.pid, m.process)].append(m)
    return out


def _gpu_nodes(facts: Facts) -> tuple[set[int], list[GpuFact]]:
    """The NUMA nodes of the GPUs in use (CUDA_VISIBLE_DEVICES, else every GPU listed), and their records."""
    chosen = {int(x) for x in visible_devices(facts)[0] if x.isdigit()}
    gpus = [g for g in facts.of(GpuFact) if g.numa_node is not None and g.numa_node >= 0
            and (not chosen or g.index in chosen)]
    return {g.numa_node for g in gpus}, gpus


@rule("host.numa_memory", "numa_affinity")
def numa_memory(facts: Facts, predictions=None):
    """A process's host memory (numastat -p) sits on a NUMA node none of its GPUs hang off (nvidia-smi topo -m, a
    GPU -> NUMA listing), or, where the GPUs' nodes are unknown, is split over nodes: every CPU read of those pages,
    and every pinned copy staged through them, crosses the socket interconnect. A listing of GPUs on two nodes alone
    is inventory (node.numa_placement), not this."""
    gpu_nodes, gpus = _gpu_nodes(facts)
    worst = None
    for (pid, command), rows in _processes(facts).items():
        total = sum(r.used_mb for r in rows)
        if total < NUMA_MEMORY_MIN_MB:
            continue
        home = max(rows, key=lambda r: r.used_mb)
        far = [r for r in rows if (r.node not in gpu_nodes if gpu_nodes else r is not home) and r.used_mb > 0]
        share = sum(r.used_mb for r in far) / total
        if share >= FAR_SHARE and (worst is None or share > worst[0]):
            worst = (share, pid, command, rows, far, total)
    if worst is None:
        return
    share, pid, command, rows, far, total = worst
    label = f"{command or 'the process'}" + (f" (PID {pid})" if pid else "")
    big = max(far, key=lambda r: r.used_mb)
    evidence = [ev(big, f"{label}'s memory on NUMA node {big.node}, of its {total:,.0f} MB (numastat)",
                   round(big.used_mb), f"< {FAR_SHARE:.0%} of it", "MB")]
    if gpu_nodes:
        by_node = ", ".join(f"GPU{g.index if g.index is not None else ' ' + str(g.bus_id)}: node {g.numa_node}"
                            for g in gpus[:4])
        evidence.append(ev(gpus[0], f"the GPUs' NUMA nodes ({by_node})", ", ".join(map(str, sorted(gpu_nodes)))))
        title = f"{share:.0%} of {label}'s host memory is on NUMA node {big.node}, away from its GPUs"
        why = (f"{label} keeps {big.used_mb:,.0f} MB on NUMA node {big.node}, while its GPUs hang off node "
               f"{', '.join(map(str, sorted(gpu_nodes)))}. Host-side work on those pages (CPU-side weights or experts, "
               "the scheduler, pinned staging buffers for copies to the GPU) reads them across the socket "
               "interconnect, at about half the local rate and with higher latency.")
    else:
        title = f"{share:.0%} of {label}'s host memory is on a second NUMA node"
        why = (f"{label}'s {total:,.0f} MB are split over NUMA nodes ({big.used_mb:,.0f} MB on node {big.node}). "
               "Threads on either socket read the other node's share across the socket interconnect, at about half the "
               "local rate: for an engine that keeps weights or experts in host memory that halves their bandwidth.")
    yield make("host.numa_memory", "numa_affinity", "warning", 0.6 if gpu_nodes else 0.5, title, why, evidence,
               fix="Start the engine bound to its GPUs' node (`numactl --cpunodebind=N --membind=N`, N from the NUMA "
               "Affinity column of `nvidia-smi topo -m`), or, for an engine that keeps weights in host memory, its "
               "own NUMA option (one copy per node, built with NUMA support); check with `numastat -p <pid>`.",
               refs=["numa"])


def _pcie_pairs(facts: Facts) -> list[PairBandwidth]:
    return [p for p in facts.of(PairBandwidth)
            if p.a != p.b and p.p2p_enabled and p.unit.lower() in ("gb/s", "gbps") and p.value > 0]


def _components(nodes: set[int], edges: list[tuple[int, int]]) -> dict[int, int]:
    parent = {n: n for n in nodes}

    def root(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for a, b in edges:
        parent[root(a)] = root(b)
    return {n: root(n) for n in nodes}


@rule("host.cross_socket_p2p", "numa_affinity")
def cross_socket_p2p(facts: Facts, predictions=None):
    """PCIe P2P between GPUs on different sockets is slower than within a socket."""
    pairs = _pcie_pairs(facts)
    if len(pairs) < 4:
        return
    values = sorted(p.value for p in pairs)
    median = values[len(values) // 2]
    # NVLink-bridged pairs are far above PCIe; leave them out of the PCIe comparison.
    pcie = [p for p in pairs if p.value < 1.6 * median]
    best = max(p.value for p in pcie)
    slow = [p for p in pcie if p.value < 0.85 * best]
    fast = [p for p in pairs if p not in slow]
    if not slow or len(slow) == len(pcie):
        return
    gpus = {p.a for p in pairs} | {p.b for p in pairs}
    comp = _components(gpus, [(p.a, p.b) for p in fast])
    if any(comp[p.a] == comp[p.b] for p in slow):
        return  # the slow pairs do not split the GPUs into groups: not a socket boundary
    gpu_paths = {frozenset((t.a, t.b)): t for t in facts.of(TopologyPath)
                 if t.a.startswith("GPU") and t.b.startswith("GPU")}
    slow_paths = [gpu_paths.get(frozenset((f"GPU{p.a}", f"GPU{p.b}"))) for p in slow]
    if any(t is not None and t.path not in ("SYS", "SOC") for t in slow_paths):
        return  # the topology puts slow pairs within a socket: a PCIe switch boundary, not this rule
    sys_paths = [t for t in slow_paths if t is not None]
    socket_claim = claims.find(facts, "multi_socket")
    s = min(slow, key=lambda p: p.value)
    f = max((p for p in pcie if p not in slow), key=lambda p: p.value)
    group = sorted(n for n in gpus if comp[n] == comp[f.a])
    way = "bidirectional" if f.direction == "bi" else "one direction"  # PCIe Gen4 x16: ~25 GB/s each way, ~50 both
    evidence = [ev(s, f"GPU{s.a}<->GPU{s.b} P2P across the groups ({way})", s.value, round(f.value, 2), "GB/s"),
                ev(f, f"GPU{f.a}<->GPU{f.b} P2P within a group (PCIe, {way}): the rate compared with", f.value,
                   unit="GB/s")]
    evidence += [ev(t, f"{t.a}<->{t.b} path", t.path) for t in sys_paths[:1]]
    evidence += [claim_ev(c, "the host has several CPU sockets") for c in socket_claim[:1]]
    yield make(
        "host.cross_socket_p2p", "numa_affinity", "warning", 0.7 if (sys_paths or socket_claim) else 0.55,
        f"P2P between GPU groups is {1 - s.value / f.value:.0%} slower than within a group (socket boundary)",
        f"GPUs {','.join(map(str, group))} reach {f.value:g} GB/s ({way}) among themselves over PCIe "
        f"but only {s.value:g} GB/s to the "
        "other GPUs: that traffic crosses the CPU socket interconnect, which is slower for PCIe peer "
        "writes. A ring over all GPUs must cross it, so the whole collective runs at the cross-socket rate "
        "and P2P there can be no better than staging through host memory.",
        evidence,
        fix="Keep each TP group on GPUs of one socket (CUDA_VISIBLE_DEVICES), bind ranks to their GPU's NUMA "
        "node, and compare NCCL_P2P_LEVEL=NODE (SHM across sockets) with the default; check the BIOS "
        "NUMA-per-socket and inter-socket link settings.",
        refs=["nccl_env", "numa"],
    )


# What ACS redirect or IOMMU translation does to PCIe peer traffic (NCCL troubleshooting, "PCI Access Control Services
# (ACS)"): a hang at the first collective, P2P far below the link, corrupted data or P2P refused. The symptom classes
# of rules.claims.symptom_quote that can be one of these.
ACS_SYMPTOMS = ("hang", "slow", "scaling", "error")
# `nvidia-smi topo -m` paths that cross PCIe (not NV#): the only GPU pairs ACS and the IOMMU act on.
_PCIE_PATHS = ("PIX", "PXB", "PHB", "NODE", "SYS", "SOC")


def pcie_peers(facts: Facts) -> bool | None:
    """Do the GPUs in use talk over PCIe? True where the topology matrix puts a GPU pair on a PCIe path; False where
    they talk over NVLink (NV# in the matrix, links active, or an NVSwitch board in the catalog) or the job runs on one
    GPU; True where the board has no NVLink at all (rules/catalog/gpus.toml nvlink_gbs = 0); None when nothing says."""
    pairs = [t for t in facts.of(TopologyPath) if t.a.startswith("GPU") and t.b.startswith("GPU")]
    if any(t.path.upper() in _PCIE_PATHS for t in pairs):
        return True
    if one_gpu_job(facts) or nvlink_evidence(facts) or nvswitch_by_catalog(facts):
        return False
    spec = facts.subject.gpu
    if spec is not None and not spec.nvlink_gbs:
        return True  # a board without NVLink (the catalog's nvlink_gbs = 0): its peers can only be PCIe
    return None


def acs_symptom(facts: Facts) -> bool:
    """Is the ticket's complaint one ACS or the IOMMU causes (ACS_SYMPTOMS), or does the reporter speak of ACS, the
    IOMMU or its faults? An inventory alone is context (issue 11)."""
    said = claims.symptom_quote(facts)
    if said and said[2] in ACS_SYMPTOMS:
        return True
    return bool(claims.find(facts, "pcie_redirect") or claims.find(facts, "iommu_fault"))


@rule("host.iommu_acs", "p2p_disabled", "other")
def iommu_acs(facts: Facts, predictions=None):
    """ACS redirect or a translating IOMMU sends PCIe P2P through the root complex (or blocks it): a cause only where
    the GPUs in use are PCIe peers and the complaint is one it makes; NVLink and NVSwitch traffic never crosses a PCIe
    switch (NCCL troubleshooting, "PCI Access Control Services (ACS)")."""
    if is_virtualized(facts):
        return  # topology.virtualization_no_p2p covers a guest
    acs_on = [link for link in facts.of(PcieLinkFact) if link.acs_redirect_enabled]
    acs_known = [link for link in facts.of(PcieLinkFact) if link.acs_redirect_enabled is not None]
    iommu = facts.host("iommu")
    evidence = [ev(link, f"ACS redirect enabled on {link.device or link.bus_id}", "enabled", "disabled")
                for link in acs_on[:3]]
    if iommu is not None and str(iommu.value).lower() in ("on", "translated", "full"):
        evidence.append(ev(iommu, "IOMMU in translation mode", iommu.value, "off or pt"))
    fix = ("Disable ACS on the PCIe switches (BIOS option or `setpci ... ECAP_ACS+0x6.w=0000` at boot) and boot with "
           "iommu=pt (or off) on bare metal.")
    if evidence:
        pcie = pcie_peers(facts)
        if pcie is False:
            yield make(
                "host.iommu_acs", "other", "info", 0.4,
                "ACS/IOMMU redirect is on, but the GPUs in use do not talk over PCIe",
                "ACS redirect and IOMMU translation act on PCIe peer transactions; these GPUs reach each other over "
                "NVLink (or the job uses one GPU), which crosses no PCIe switch. It would matter only for PCIe peers, "
                "and for GPUDirect RDMA between a GPU and a NIC across nodes.",
                evidence, fix=fix, refs=["nccl_acs"])
        elif pcie and acs_symptom(facts):
            yield make(
                "host.iommu_acs", "p2p_disabled", "warning", 0.7,
                "ACS/IOMMU redirect peer-to-peer traffic through the CPU",
                "With ACS redirect on a PCIe switch (or the IOMMU translating DMA), GPU-to-GPU and GPU-to-NIC "
                "transfers are forced up to the root complex: P2P bandwidth collapses or P2P is refused, and "
                "GPUDirect RDMA slows down.",
                evidence, fix=fix, refs=["nccl_acs"])
        else:
            yield make(
                "host.iommu_acs", "other", "info", 0.4,
                "ACS/IOMMU redirect is on (context: the GPUs' path, or a complaint ACS causes, is not known)",
                "ACS redirect or IOMMU translation sends PCIe peer traffic through the root complex. Where GPUs talk "
                "over PCIe and NCCL hangs at its first collective, P2P runs far below the link or data comes back "
                "corrupted, this is the first suspect; the ticket does not show both. `nvidia-smi topo -m` says "
                "which path the GPUs use.",
                evidence, fix=fix, refs=["nccl_acs"])
    elif acs_known:
        yield passed("host.iommu_acs", "ACS redirect is off on the PCIe path",
                     "lspci shows ACS redirect disabled, so P2P can stay below the root complex.",
                     [ev(acs_known[0], "ACSCtl redirect", "disabled", "disabled")], 0.6)


# A rank bound to one core shares it between its own launching thread and NCCL's proxy threads.
SINGLE_CORE = 1


@rule("host.nccl_affinity", "numa_affinity")
def nccl_affinity(facts: Facts, predictions=None):
    """NCCL binds each GPU's threads to the process's CPUs within the GPU's local ones and logs the result
    ("Setting affinity for GPU N to <mask>", ncclTopoGetCpuAffinity in src/graph/topo.cc): one core means the
    launcher pinned the rank to a single CPU; CPUs off the GPU's NUMA node (the topology's CPU affinity) mean
    NCCL's view of locality differs from the node's (NCCL_IGNORE_CPU_AFFINITY, a VM's topology). NCCL's GPU N is
    the process's CUDA device, matched to the topology's GPU index."""
    local = {g.index: (g, cpu_list(g.cpu_affinity)) for g in facts.of(GpuFact)
             if g.index is not None and g.cpu_affinity}
    bound = [e for e in facts.of(NcclEvent) if e.kind == "affinity" and e.data.get("cpu_ids")]
    # One GPU number bound to different CPU sets: several processes (a per-rank CUDA_VISIBLE_DEVICES, several hosts)
    # each call their own GPU N, which is then not the topology's GPU N.
    masks = defaultdict(set)
    for e in bound:
        masks[e.data["gpu"]].add(tuple(e.data["cpu_ids"]))
    for e in bound:
        gpu, ids = e.data["gpu"], e.data["cpu_ids"]
        topo, node_cpus = local.get(gpu, (None, [])) if len(masks[gpu]) == 1 else (None, [])
        if len(ids) == SINGLE_CORE:
            title, why = f"NCCL binds GPU{gpu}'s threads to one CPU core ({ids[0]})", (
                "NCCL keeps the CPUs the process may use among the GPU's local ones; a single core means the "
                "launcher (taskset, numactl, a container's cpuset, a per-rank binding) left the rank one core, "
                "which its kernel launches and NCCL's proxy threads then share.")
            evidence = [ev(e, f"NCCL affinity mask {e.data['mask']}: CPUs", len(ids), "a GPU's local CPUs", "CPUs")]
        elif node_cpus and not set(ids) & set(node_cpus):
            title, why = f"NCCL binds GPU{gpu}'s threads to CPUs off its NUMA node", (
                "The CPUs NCCL binds to hold none of the GPU's local CPUs, so host buffers, kernel launches and "
                "NCCL's proxy threads reach the GPU across the socket interconnect.")
            evidence = [ev(e, f"NCCL affinity mask {e.data['mask']}", e.data["mask"]),
                        ev(topo, f"GPU{gpu} local CPUs {topo.cpu_affinity}", topo.cpu_affinity)]
        else:
            continue
        yield make("host.nccl_affinity", "numa_affinity", "warning", 0.6, title, why, evidence,
                   fix="Bind each rank to its GPU's NUMA node with several cores (`numactl --cpunodebind=N "
                   "--membind=N`, the launcher's per-rank binding, a wider container cpuset); check the CPU "
                   "Affinity column of `nvidia-smi topo -m` and NCCL's 'Setting affinity' lines again.",
                   refs=["numa", "https://github.com/NVIDIA/nccl/blob/master/src/graph/topo.cc"])
