"""Rules about how the GPUs reach each other: P2P, NVLink, PCIe links, virtualisation.

The physics: inside a node NCCL moves data GPU-to-GPU over NVLink (or PCIe P2P). When P2P is
off — by an NCCL_* variable, ACS/IOMMU, the driver, or a VM that hides the topology — it stages
every byte through host shared memory (SHM), which is several times slower than NVLink.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import defaultdict

from diagnose.evidence import (
    Facts,
    GpuFact,
    NcclEvent,
    NcclTransport,
    Note,
    NvLinkFact,
    P2PStatus,
    PairBandwidth,
    PcieLinkFact,
    TopologyPath,
    XidEvent,
)
from diagnose.findings import Evidence
from rules import claims
from rules.common import (
    P2P_VM_FIX,
    claim_ev,
    distinct_gpus,
    driver_stall,
    ev,
    gpu_count,
    gpu_indices,
    gpu_name,
    has_nvlink,
    host_cpu,
    is_virtualized,
    label,
    large_results,
    links_per_gpu,
    make,
    max_links_per_gpu,
    measurements,
    need,
    nic_rate_gbs,
    node_count,
    nvlink_evidence,
    passed,
    settings,
    tp_sizes,
    visible_devices,
    wfield,
    wsl_signs,
)
from rules.engine import FAILURES, rule

# NCCL_P2P_LEVEL values, from "no P2P" to "P2P everywhere" (NCCL env docs).
P2P_LEVELS = {"LOC": 0, "NVL": 1, "PIX": 2, "PXB": 3, "PHB": 4, "NODE": 4, "SYS": 5}
PATH_RANK = {"X": 0, "NV": 1, "PIX": 2, "PXB": 3, "PHB": 4, "NODE": 4, "SOC": 5, "SYS": 5}
NVLINK_PATH = re.compile(r"NV(\d+)")  # topo -m's NV# cell: the pair bonded by # NVLinks


def path_cost(t: TopologyPath) -> int:
    """How far a pair's traffic travels (topo -m legend order): any NVLink path is the shortest."""
    return 1 if NVLINK_PATH.fullmatch(t.path) else PATH_RANK.get(t.path, 0)

# Xid codes of NVLink faults: 74 (up to Hopper), 144-150 (NVLink-5 era: NETIR, RLW, ... blocks).
NVLINK_XIDS = {74, 144, 145, 146, 147, 148, 149, 150}
# Replay and CRC errors are retried by the link layer and accumulate slowly on healthy links
# since boot; a link worth servicing shows hundreds. A recovery (retraining) or fatal error counts
# from the first one.
NVLINK_RETRIED_ERRORS = 100



def _caused_by_nvlink_xid(message: str) -> bool:
    """Xid 45 (channel cleanup) says which earlier Xid caused it: 'caused by previous Xid 149'."""
    m = re.search(r"previous Xid (\d+)", message or "")
    return bool(m) and int(m.group(1)) in NVLINK_XIDS


# PCIe data rate per lane (GB/s per direction) by generation, after line coding.
PCIE_LANE_GBS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def _p2p_level(value: str) -> int | None:
    v = value.strip().upper()
    if v in P2P_LEVELS:
        return P2P_LEVELS[v]
    if v.isdigit():
        return min(int(v), 5)
    return None


def _p2p_off(name: str, value: str) -> bool:
    """Does this NCCL setting switch GPU-to-GPU P2P off entirely?"""
    if name == "NCCL_P2P_DISABLE":
        return value.strip().lower() in ("1", "true", "yes", "on")
    return name == "NCCL_P2P_LEVEL" and _p2p_level(value) == 0


def p2p_off_settings(facts: Facts):
    """NCCL settings that switch GPU-to-GPU P2P off entirely, with their records."""
    return [s for name in ("NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL") for s in settings(facts, name)
            if _p2p_off(name, s.value)]


def _p2p_off_said(facts: Facts, effect: str) -> bool:
    """Does the reporter name a P2P-off setting with this effect ("fixes", "no_help")?"""
    return any(c.data.get("effect") == effect and _p2p_off(c.data["name"], c.data["value"])
               for c in claims.find(facts, "setting"))


def _workaround_for_failure(facts: Facts) -> bool:
    """Does the ticket fail (hang, crash, error) and name a P2P-off setting as what makes it run (the setting's
    effect "fixes": "works with", "unless", "only with", "solved by")?"""
    said = claims.symptom_quote(facts)
    if not said or said[2] not in FAILURES:
        return False
    return _p2p_off_said(facts, "fixes")


@rule("topology.p2p_forced_off", "shm_fallback", "p2p_disabled", "virtualization_no_p2p")
def p2p_forced_off(facts: Facts, predictions=None):
    """An NCCL_* variable switches P2P off, so NCCL copies through host memory (SHM)."""
    off = p2p_off_settings(facts)
    if not off:
        return
    s = off[0]
    from_log = not s.source.startswith("ticket.toml")
    nv = nvlink_evidence(facts) or nvswitch_by_catalog(facts)
    evidence = [ev(s, f"{s.name}={s.value} switches NCCL's peer-to-peer transport off", s.value, "unset")] + nv
    if nv:
        # A setting only named in the reporter's text may have been an experiment, not the job's.
        yield make(
            "topology.p2p_forced_off", "shm_fallback", "critical" if from_log else "warning", 0.9 if from_log else 0.6,
            f"{s.name}={s.value} makes NCCL use host shared memory although the GPUs have NVLink",
            f"{s.name}={s.value} tells NCCL not to use peer-to-peer between GPUs, so every intra-node "
            "transfer is staged through host shared memory (SHM) instead of going over NVLink. "
            "That costs most of the NVLink bandwidth and adds latency to every all-reduce.",
            evidence,
            fix=f"Unset {s.name} (check the job environment, container image and /etc/nccl.conf for "
            "inherited values), then confirm the NCCL_DEBUG=INFO log shows 'via P2P/IPC' or 'P2P/CUMEM'.",
            refs=["nccl_env", "nccl_trouble"],
        )
    elif _workaround_for_failure(facts):
        # the job hangs or fails with P2P and runs with it off: the setting is the workaround, the P2P path the fault,
        # judged as ticket.setting_works_around judges the same words (a failure: critical)
        virt = is_virtualized(facts)
        yield make(
            "topology.p2p_forced_off", "virtualization_no_p2p" if virt else "p2p_disabled", "critical",
            0.75 if from_log else 0.6,
            f"The GPUs fail over PCIe peer-to-peer and run with {s.name}={s.value}",
            "A job that hangs or errors with P2P and runs once NCCL is told not to use it has a P2P path that the "
            "driver advertises but the platform does not carry: ACS redirect or an IOMMU in translation mode on the "
            "PCIe path (NCCL troubleshooting, 'PCI Access Control Services'), a board without PCIe P2P, or a VM. "
            f"{s.name}={s.value} keeps it running at host-memory speed.",
            evidence + virt,
            fix=P2P_VM_FIX if virt else "On bare metal disable ACS on the PCIe bridges (or in the BIOS) and boot with "
            "iommu=pt; check with `nvidia-smi topo -p2p r` and p2pBandwidthLatencyTest, then drop the setting.",
            refs=["nccl_acs", "nccl_trouble"],
        )
    else:
        # the reporter says the failure stays with P2P off: the setting costs bandwidth but is not what fails
        no_help = _p2p_off_said(facts, "no_help")
        # (ut29g) nor when the ticket is a failure (hang, crash, error) and the words do not say what the setting did:
        # P2P off stages transfers through host memory, slower but never a hang or an error, so the setting cannot
        # explain the failure; named beside one it is most often the workaround ("Workaround: NCCL_P2P_DISABLE=1 ...
        # Actual fix: update the GPU driver", dmlc/xgboost#11242) or the remedy a doc offers (club-3090#922)
        said = claims.symptom_quote(facts)
        fails = bool(said) and said[2] in FAILURES
        quiet = no_help or fails
        yield make(
            "topology.p2p_forced_off", "p2p_disabled", "info" if quiet else "warning",
            0.3 if quiet else 0.75 if from_log else 0.6,
            f"{s.name}={s.value} switches GPU peer-to-peer off",
            f"{s.name}={s.value} tells NCCL not to use PCIe peer-to-peer between GPUs, so transfers are "
            "staged through host memory. On PCIe systems where P2P works this roughly halves bandwidth.",
            evidence,
            fix=f"Unset {s.name} unless P2P was disabled on purpose (a platform known to corrupt or hang "
            "with P2P); compare all_reduce_perf busbw with and without it.",
            refs=["nccl_env"],
        )


@rule("topology.nccl_transport", "shm_fallback", "p2p_disabled", "other")
def nccl_transport(facts: Facts, predictions=None):
    """Which intra-node transport NCCL chose, against what the hardware offers."""
    local = [t for t in facts.of(NcclTransport) if t.transport in ("P2P", "SHM")]
    refused = [e for e in facts.of(NcclEvent) if e.kind == "p2p_disabled"]
    if refused and not p2p_off_settings(facts) and not any(t.transport == "P2P" for t in local):
        e = refused[0]
        nv = nvlink_evidence(facts)
        yield make(
            "topology.nccl_transport", "shm_fallback" if nv else "p2p_disabled", "critical" if nv else "warning",
            0.8 if nv else 0.65,
            "NCCL could not enable peer-to-peer between the GPUs",
            "NCCL reports that P2P is unavailable between GPUs of a node, so it stages transfers through host "
            "memory. The driver refuses peer access when ACS/IOMMU sit on the path, in many VMs, and on boards "
            "that do not support P2P.",
            [ev(e, "NCCL's P2P check", e.message[:100])] + nv,
            fix="Run `nvidia-smi topo -p2p r` and the CUDA sample p2pBandwidthLatencyTest; disable ACS on the "
            "PCIe switches and boot with iommu=pt (bare metal).",
            refs=["nccl_acs", "nccl_trouble"],
        )
        return
    if not local:
        return
    shm = [t for t in local if t.transport == "SHM"]
    p2p = [t for t in local if t.transport == "P2P"]
    if not shm:
        yield passed("topology.nccl_transport", "NCCL uses peer-to-peer between the GPUs of a node",
                     f"All {len(p2p)} intra-node connections in the NCCL log go GPU-to-GPU ({p2p[0].detail}).",
                     [ev(p2p[0], f"channel via {p2p[0].detail}", p2p[0].detail)], 0.8)
        return
    if p2p_off_settings(facts):
        return  # topology.p2p_forced_off explains it
    evidence = [ev(shm[0], f"{len(shm)} of {len(local)} intra-node connections via {shm[0].detail or 'SHM'}",
                   shm[0].detail or "SHM", "P2P")]
    nv = nvlink_evidence(facts) or nvswitch_by_catalog(facts)
    links = gpu_links(facts)
    every_pair_nvlink = bool(links) and all(t.path.upper().startswith("NV") for t in links.values())
    if p2p and not every_pair_nvlink:
        yield _p2p_level_policy(p2p, shm, evidence)
    elif nv:
        yield make(
            "topology.nccl_transport", "shm_fallback", "critical", 0.85,
            "NCCL copies through host shared memory although the GPUs have NVLink",
            "The NCCL log shows connections between GPUs of one node going through SHM (host memory) "
            "while the topology shows NVLink between them. NCCL only does that when it cannot map the "
            "peer GPU: P2P disabled by the environment, a container without the peer's IPC namespace, "
            "or a driver/virtualisation problem.",
            evidence + nv,
            fix="Check NCCL_P2P_DISABLE / NCCL_P2P_LEVEL in the environment and /etc/nccl.conf; run all "
            "ranks in one container or with --ipc=host; run `nvidia-smi topo -p2p r` to see if the "
            "driver allows P2P.",
            refs=["nccl_env", "nccl_trouble"],
        )
    elif _p2p_off_by_design(facts):
        spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
        yield make(
            "topology.nccl_transport", "other", "info", 0.5,
            f"NCCL copies through host memory, as it must on {spec.name}",
            f"The driver does not allow PCIe peer-to-peer on {spec.name}, so SHM between its GPUs is expected; "
            "all-reduce bandwidth is bounded by host memory and the CPU's PCIe root complex.",
            evidence + [ev(spec_src or "catalog", f"catalog {spec.key}: {spec.notes}")],
        )
    else:
        yield make(
            "topology.nccl_transport", "p2p_disabled", "warning", 0.6,
            "NCCL copies through host shared memory: PCIe peer-to-peer is not available",
            "NCCL uses SHM between GPUs of one node, which means PCIe peer-to-peer is unavailable: "
            "ACS redirect or an IOMMU in translation mode on the PCIe path, a consumer board whose "
            "driver does not allow P2P, or a virtual machine.",
            evidence,
            fix="Run `nvidia-smi topo -p2p r`; check `lspci -vvv | grep ACSCtl` on the bridges and the "
            "kernel command line for iommu=pt; see the NCCL troubleshooting guide on ACS.",
            refs=["nccl_acs", "nccl_trouble"],
        )


def _p2p_level_policy(p2p: list, shm: list, evidence: list):
    """P2P between some GPU pairs and SHM between others: peer access works, and NCCL's P2P level (the
    farthest PCIe path it uses P2P over, chosen from the topology and platform unless NCCL_P2P_LEVEL sets
    it; NCCL env docs) leaves the farther pairs, across host bridges or CPU sockets, to host memory."""
    def pair(t) -> str:
        return f"{t.rank}->{t.peer}" if t.rank is not None and t.peer is not None else t.detail

    return make(
        # a policy, not a fault (info): it must not read as proof that peer access is blocked
        "topology.nccl_transport", "shm_fallback", "info", 0.6,
        f"NCCL uses peer-to-peer between some GPU pairs ({pair(p2p[0])}) and host memory between others "
        f"({pair(shm[0])}): its P2P level",
        "Peer access works (some pairs go GPU-to-GPU), so nothing refuses P2P outright. NCCL uses P2P only up to a "
        "PCIe distance (its P2P level, chosen from the topology and platform unless NCCL_P2P_LEVEL sets it); "
        "pairs farther apart, typically across PCIe host bridges or CPU sockets (NODE/SYS in `nvidia-smi topo "
        "-m`), are staged through host shared memory, which bounds every ring that crosses them.",
        evidence + [ev(p2p[0], f"{len(p2p)} connections via {p2p[0].detail or 'P2P'}", p2p[0].detail or "P2P")],
        fix="Attach `nvidia-smi topo -m` to see which pairs are far apart. If the platform carries P2P across "
            "them (check with p2pBandwidthLatencyTest), NCCL_P2P_LEVEL=SYS (or PHB within a socket) lets NCCL use "
            "it; otherwise keep each TP group on GPUs behind one PCIe switch or socket.",
        refs=["nccl_env", "nccl_trouble"],
    )


def _mig_gpus(facts: Facts) -> set[int]:
    """GPUs in MIG mode: their instances have no peer-to-peer and do not use NVLink, so P2P and
    NVLink readings of such a GPU say nothing about a fault (MIG user guide; `nvidia-smi mig
    -lgip` lists P2P "No" for every profile)."""
    return {g.index for g in facts.of(GpuFact) if g.mig_mode}


MIG_GUIDE = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html"


@rule("topology.mig_gpus", "p2p_disabled", "other")
def mig_gpus(facts: Facts, predictions=None):
    """A GPU in MIG mode cannot be a tensor-parallel peer: its instances have no peer-to-peer over
    PCIe or NVLink, and CUDA enumerates the instances, not the GPU (MIG user guide). Where the layout
    needs a peer (TP >= 2 stated, or a node of several GPUs with no TP stated), say which GPUs a TP
    group cannot use; a lone MIG GPU, or a stated TP of 1, is only noted."""
    gpus = distinct_gpus(facts.of(GpuFact))
    mig = sorted((g for g in gpus if g.mig_mode), key=lambda g: (g.index is None, g.index or 0))
    if not mig:
        return
    devices, _ = visible_devices(facts)
    if devices and all(d.isdigit() for d in devices) and all(g.index is not None for g in mig) \
            and not {g.index for g in mig} & {int(d) for d in devices}:
        # CUDA_VISIBLE_DEVICES leaves every MIG GPU out: the job's GPUs are whole GPUs
        yield make("topology.mig_gpus", "other", "info", 0.4, "MIG mode is on only on GPUs the job does not use",
                   "CUDA_VISIBLE_DEVICES names none of the GPUs in MIG mode, so their partitions take no part in the "
                   "job's peer-to-peer or NVLink traffic.",
                   [ev(g, f"{label(g)}'s MIG mode", "Enabled") for g in mig[:2]], refs=[MIG_GUIDE])
        return
    tp, tp_src = wfield(facts, "tp")
    peers = len(gpu_indices(facts) - {g.index for g in mig})
    names = ", ".join(label(g) for g in mig[:4]) + (", ..." if len(mig) > 4 else "")
    evidence = [ev(g, f"{label(g)}'s MIG mode", "Enabled", "Disabled for a TP peer") for g in mig[:2]]
    if (tp and tp >= 2) or (not tp and len(gpus) >= 2):
        evidence += [ev(tp_src, "tensor-parallel size", tp)] if tp else []
        yield make(
            "topology.mig_gpus", "p2p_disabled", "warning", 0.7,
            f"{names} {'is' if len(mig) == 1 else 'are'} in MIG mode and cannot join a tensor-parallel group",
            f"{len(mig)} of {len(gpus)} GPU(s) are partitioned with MIG. MIG instances have no peer-to-peer over "
            "PCIe or NVLink, and CUDA sees their instances instead of the GPU, so NCCL cannot put them in a TP "
            f"group with other GPUs; {peers} GPU(s) here can be TP peers. Link and P2P checks skip them.",
            evidence,
            fix="For tensor parallelism, disable MIG on these GPUs (`sudo nvidia-smi -i N -mig 0`, with no "
                "process on the GPU; a reset may be needed), or size the TP group to the GPUs without MIG.",
            refs=[MIG_GUIDE],
        )
        return
    one = len(mig) == 1
    yield make("topology.mig_gpus", "other", "info", 0.5,
               f"{names[0].upper()}{names[1:]} {'is' if one else 'are'} in MIG mode",
               f"MIG instances have no peer-to-peer, so {'this GPU' if one else 'these GPUs'} cannot be a "
               "tensor-parallel peer; each instance serves one model replica.", evidence, refs=[MIG_GUIDE])


def _p2p_off_by_design(facts: Facts) -> bool:
    """Boards whose stock driver refuses PCIe P2P (the catalog row's `pcie_p2p = false`)."""
    spec = facts.subject.gpu
    return spec is not None and not getattr(spec, "pcie_p2p", True)


@rule("topology.tp_group_paths", "pcie_fallback")
def tp_group_paths(facts: Facts, predictions=None):
    """CUDA_VISIBLE_DEVICES picks GPUs that are not NVLink-connected on a box that has NVLink."""
    listed, w = visible_devices(facts)
    if w is None:
        return
    visible, src = w.cuda_visible_devices, w.source
    try:
        chosen = [int(x) for x in listed]
    except ValueError:
        return  # UUIDs: the matrix is indexed by number, so this cannot be judged
    paths = {frozenset((t.a, t.b)): t for t in facts.of(TopologyPath)
             if t.a.startswith("GPU") and t.b.startswith("GPU")}
    nv_any = [t for t in paths.values() if t.path.upper().startswith("NV")]
    if len(chosen) < 2 or not nv_any:
        return
    group = [paths.get(frozenset((f"GPU{a}", f"GPU{b}"))) for i, a in enumerate(chosen) for b in chosen[i + 1:]]
    off = [t for t in group if t is not None and not t.path.upper().startswith("NV")]
    if not off:
        if None in group:
            return  # a GPU the matrix does not show (-1 hides GPUs; an index past the box): not every pair is known
        first = group[0]
        yield passed("topology.tp_group_paths", "The selected GPUs are NVLink-connected",
                     f"Every pair of CUDA_VISIBLE_DEVICES={visible} is joined by NVLink.",
                     [ev(src, "CUDA_VISIBLE_DEVICES", visible), ev(first, "path", first.path)], 0.6)
        return
    t = off[0]
    yield make(
        "topology.tp_group_paths", "pcie_fallback", "warning", 0.7,
        f"The selected GPUs {visible} talk over {t.path}, not NVLink",
        f"CUDA_VISIBLE_DEVICES={visible} puts {t.a} and {t.b} in one group although they are joined by {t.path}; "
        f"the box has NVLink (e.g. {nv_any[0].a}<->{nv_any[0].b} {nv_any[0].path}), but this group's all-reduces "
        "run over PCIe.",
        [ev(src, "CUDA_VISIBLE_DEVICES", visible), ev(t, f"{t.a}<->{t.b} path", t.path, "NV#"),
         ev(nv_any[0], f"{nv_any[0].a}<->{nv_any[0].b} path", nv_any[0].path)],
        fix="Choose GPUs that share NVLink for each TP group (read `nvidia-smi topo -m`), e.g. the bridged pairs.",
        refs=["nvidia_smi"],
    )


# Where the paths change, in the words of topo -m's legend (nvidia-smi topo -h).
_PATH_WORDS = {"PIX": "one PCIe switch", "PXB": "several PCIe switches", "PHB": "the CPU's PCIe host bridge",
               "NODE": "the host bridges of one NUMA node", "SYS": "the link between CPU sockets, QPI/UPI/xGMI",
               "SOC": "the link between CPU sockets, QPI/UPI/xGMI"}


@rule("topology.count_scope", "expected_physics")
def count_scope(facts: Facts, predictions=None):
    """The GPU count where the reporter says the trouble starts, against the path matrix: when the GPU that count adds
    reaches the others over a farther path (leaves the NVLink island, the PCIe switch or the NUMA node) than the
    fewer GPUs share, a ring over them runs at the new link's pace. GPUs are taken in CUDA_VISIBLE_DEVICES order,
    else by index (CUDA's default order), and said so."""
    # a hang, crash or error from that count is a fault of the farther path, not its pace (claims._FAILING)
    said = [c for c in claims.count_scope(facts) if not c.guess and c.data["bad_from"] and not c.data["fails"]]
    links = gpu_links(facts)
    if not said or not links:
        return
    c = said[0]
    bad = c.data["bad_from"]
    listed, visible = visible_devices(facts)
    if not all(x.isdigit() for x in listed):
        return  # UUIDs: the matrix is indexed by number, so the order cannot be matched to it
    order = [int(x) for x in listed] if visible else sorted({i for pair in links for i in pair})
    if bad < 2 or len(order) < bad:
        return
    fewer, added = order[:bad - 1], order[bad - 1]
    inner = [links.get(tuple(sorted(p))) for p in itertools.combinations(fewer, 2)]
    joined = [links.get(tuple(sorted((g, added)))) for g in fewer]
    if None in inner or None in joined:
        return  # a pair the matrix does not give: nothing to compare
    far = max(joined, key=path_cost)
    near = max(inner, key=path_cost, default=None)
    if near is not None and path_cost(far) <= path_cost(near):
        return  # the added GPU reaches the others no farther than they reach each other: the count is no boundary
    how = f"CUDA_VISIBLE_DEVICES={visible.cuda_visible_devices}" if visible else "GPUs taken by index (assumed)"
    within = f"over {near.path} at worst" if near else "alone"
    yield make("topology.count_scope", "expected_physics", "info", 0.55,
               f"The trouble starts at {bad} GPUs, where GPU{added} joins over {far.path}",
               f"With {bad - 1} GPU{'s' if bad > 2 else ''} ({', '.join(f'GPU{g}' for g in fewer)}) the traffic "
               f"stays {within}; GPU{added} reaches {far.a if far.b == f'GPU{added}' else far.b} over {far.path} "
               f"({_PATH_WORDS.get(far.path, 'a farther path')}). A ring all-reduce moves at the pace of its slowest "
               "hop, so the count where the reporter sees the change is where the ring first takes that link: the "
               "topology's figure, not a fault.",
               [claim_ev(c, "where the reporter says it changes"),
                ev(far, f"GPU{added} (the {bad}th GPU, {how}) to the others: farthest path", far.path,
                   near.path if near else None),
                *([ev(near, f"farthest path among the first {bad - 1} GPUs", near.path)] if near else [])],
               fix=(f"Keep each TP group inside {_PATH_WORDS.get(near.path, 'one NVLink island')} (at most {bad - 1} "
                    "GPUs here) and scale past it with replicas or pipeline stages" if near else
                    "Pick GPUs joined by a nearer path (nvidia-smi topo -m), or serve replicas on one GPU each")
               + "; measure the ring with all_reduce_perf at both counts to confirm.",
               refs=["nvidia_smi"])


# What each code of `nvidia-smi topo -p2p` (and NVML's nvmlGpuP2PStatus_t) says refuses peer-to-peer, as its legend
# prints it ("CNS = Chipset not supported", "GNS = GPU not supported", "TNS = Topology not supported", "DR = Disabled by
# regkey", "NS = Not supported"; https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html
# nvmlGpuP2PStatus_t), and the fix that code calls for: only the chipset's and the topology's answers depend on
# the platform's PCIe settings; a GPU that does not support P2P or a registry key is no BIOS matter.
P2P_CODES = {
    "CNS": ("chipset not supported: the PCIe root complex or chipset refuses P2P between them",
            "Disable ACS on the PCIe switches and root ports between the GPUs (BIOS or setpci), boot with iommu=pt, "
            "and re-run `nvidia-smi topo -p2p r`."),
    "TNS": ("topology not supported: the PCIe path between them allows no P2P",
            "Keep each TP group under one PCIe root complex (one CPU socket, the GPUs `nvidia-smi topo -m` shows as "
            "PIX/PXB/PHB); where the BIOS offers it, disable ACS and boot with iommu=pt, then re-run "
            "`nvidia-smi topo -p2p r`."),
    "GNS": ("GPU not supported: the board or its driver refuses P2P",
            "No PCIe or BIOS setting turns it on: the board or its driver refuses peer-to-peer. Expect all-reduce "
            "through host memory at host-memory and root-complex bandwidth, prefer pipeline or data parallelism "
            "across these GPUs, or use boards that support P2P or NVLink."),
    "DR": ("disabled by a driver registry key",
           "Remove the registry key that disables peer-to-peer (the NVreg_RegistryDwords option of the nvidia "
           "kernel module), reload the driver, and re-run `nvidia-smi topo -p2p r`."),
}
_P2P_GENERIC_FIX = ("Disable ACS on the PCIe switches between the GPUs (BIOS or setpci), boot with iommu=pt, "
                    "and re-run `nvidia-smi topo -p2p r`.")


def _p2p_said(p: P2PStatus) -> str:
    """'P2P read', or where the paste cut the command that names the capability, 'P2P (capability not shown)'."""
    return f"P2P {p.capability}" if p.capability != "unknown" else "P2P (capability not shown)"


@rule("topology.p2p_status", "p2p_disabled", "other")
def p2p_status(facts: Facts, predictions=None):
    """The driver's own answer to 'can GPU a read/write GPU b' (topo -p2p, NVML)."""
    # Only read/write answer "can these GPUs reach each other"; the NVLINK capability is NS for
    # every pair without NVLink (all pairs of a PCIe box) and atomics are optional. A pasted matrix
    # whose command line was cut counts unless it reads NS, which the NVLINK matrix also prints.
    mig = _mig_gpus(facts)
    rows = [p for p in facts.of(P2PStatus) if p.a != p.b and p.a not in mig and p.b not in mig
            and (p.capability in ("read", "write") or (p.capability == "unknown" and p.status != "NS"))]
    if not rows:
        return
    bad = [p for p in rows if not p.ok]
    if not bad:
        yield passed("topology.p2p_status", "The driver allows peer-to-peer between every GPU pair",
                     f"All {len(rows)} GPU pairs report P2P {rows[0].capability} as {rows[0].status}.",
                     [ev(rows[0], f"GPU{rows[0].a}->GPU{rows[0].b} P2P {rows[0].capability}", rows[0].status, "OK")],
                     0.8)
        return
    if is_virtualized(facts):
        return  # virtualization_no_p2p tells the fuller story
    b = bad[0]
    if _p2p_off_by_design(facts):
        spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
        yield make(
            "topology.p2p_status", "other", "info", 0.6,
            f"Peer-to-peer is off between the {spec.name} GPUs, as its driver ships",
            f"The driver reports {_p2p_said(b)} as '{b.status}' between GPU{b.a} and GPU{b.b}. The stock driver "
            f"does not allow PCIe peer-to-peer on {spec.name}, so NCCL stages GPU-to-GPU traffic through host "
            "memory by design: all-reduce bandwidth is bounded by host memory and the CPU's PCIe root complex.",
            [ev(b, f"GPU{b.a}->GPU{b.b} {_p2p_said(b)}", b.status, "OK"),
             ev(spec_src or "catalog",
                f"catalog {spec.key}: pcie_p2p = false ({spec.notes or 'P2P off in the stock driver'})")],
        )
        return
    codes = list(dict.fromkeys(p.status.upper() for p in bad))
    known = P2P_CODES.get(codes[0]) if len(codes) == 1 else None  # one stated reason: its own words and fix
    summary = (f"The driver reports {_p2p_said(b)} as '{b.status}' between GPU{b.a} and GPU{b.b}"
               + (f" ({P2P_CODES[codes[0]][0]})" if codes[0] in P2P_CODES else "")
               + ", so NCCL falls back to host memory for those pairs.")
    if not known:
        summary += (" On bare metal this is usually ACS redirect on a PCIe switch, the IOMMU in translation mode, or "
                    "a board/driver that does not support P2P.")
    yield make(
        "topology.p2p_status", "p2p_disabled", "critical", 0.85,
        f"Peer-to-peer is not supported between {len(bad)} of {len(rows)} GPU pairs", summary,
        [ev(p, f"GPU{p.a}->GPU{p.b} {_p2p_said(p)}", p.status, "OK") for p in bad[:4]],
        fix=known[1] if known else _P2P_GENERIC_FIX,
        refs=["nccl_acs"] if not known or codes[0] in ("CNS", "TNS") else ["nvml_p2p"],
    )


# WSL 2 (and Docker Desktop on Windows, which runs in it): CUDA on WSL's support constraints
# (https://docs.nvidia.com/cuda/wsl-user-guide/index.html) and NCCL's maintainers ("we don't support NCCL in WSL2
# environments", https://github.com/NVIDIA/nccl-tests/issues/69; nccl-tests failing at topology detection under WSL,
# https://github.com/NVIDIA/nccl/issues/442): several GPUs there get no peer-to-peer path. (review39) NVIDIA's NCCL
# 2.10.3 release notes say "Added WSL2 support (single GPU only)"
# (https://docs.nvidia.com/deeplearning/nccl/release-notes/rel_2-10-3.html): NCCL runs there, but not across GPUs.
WSL_FIX = ("NCCL supports WSL 2 for a single GPU only, and its GPUs have no peer-to-peer or NVLink path: run a "
           "multi-GPU (TP/PP) job on a native Linux install of the same machine (dual boot, or a Linux host). Under "
           "WSL 2 keep to one GPU per model (data-parallel replicas, or a layer split that copies activations through "
           "the host, as llama.cpp's default does); NCCL_P2P_DISABLE=1 avoids the P2P setup that hangs, at host-memory "
           "speed.")


def _multi_gpu(facts: Facts) -> bool:
    """Does the job span GPUs: a TP or PP size over 1, NCCL's own lines at work on two devices or more (a ring of
    two ranks or more, a communicator of several ranks, two devices in the lines' heads), or the reporter's words?"""
    pp, _ = wfield(facts, "pp")
    return (pp or 1) > 1 or any(t > 1 for t, _ in tp_sizes(facts)) or _nccl_several(facts) or \
        claims.several_gpus(facts)


def _nccl_several(facts: Facts) -> bool:
    """Do NCCL's own log lines show a job on two GPUs or more?"""
    for e in facts.of(NcclEvent):
        if (e.kind == "devices" and e.data.get("devices", 0) > 1) or \
                (e.kind == "comm" and e.data.get("nranks", 0) > 1) or \
                (e.kind == "ring" and len({r for r in e.data.get("ranks") or [] if r >= 0}) > 1):
            return True
    return False


def _virtual_symptoms(facts: Facts) -> list:
    """Signs that P2P (GPU<->GPU or GPU<->NIC) is broken in the way a VM breaks it."""
    out = []
    for p in facts.of(P2PStatus):
        if not p.ok and p.a != p.b:
            out.append(ev(p, f"GPU{p.a}->GPU{p.b} P2P {p.capability}", p.status, "OK"))
            break
    shm = [t for t in facts.of(NcclTransport) if t.transport == "SHM"]
    if shm:
        out.append(ev(shm[0], "NCCL uses host shared memory between GPUs", shm[0].detail or "SHM", "P2P"))
    for g in facts.of(GpuFact):
        if g.pcie_width_current == 0 or g.numa_node == -1:
            out.append(ev(g, "the guest hides the GPU's PCIe link and NUMA placement (flat topology)",
                          f"width {g.pcie_width_current}, NUMA {g.numa_node}"))
            break
    for e in facts.of(NcclEvent):
        if e.kind == "topology" and (e.data.get("flat") or e.data.get("numaid") in (-1, "-1")):
            out.append(ev(e, "NCCL sees a flat topology (no PCIe hierarchy, unknown NUMA)", e.message[:80]))
            break
    for c in claims.find(facts, "no_p2p"):
        out.append(claim_ev(c, "the reporter sees no P2P"))
        break
    for c in claims.find(facts, "vm_vs_bare_metal"):
        out.append(claim_ev(c, "the same job is fine on bare metal and not in the VM"))
        break
    nodes, _ = node_count(facts)
    busbw = [(m.value, m) for m in measurements(facts, "busbw_gbs")] + [(r.busbw_gbs, r) for r in large_results(facts)]
    if busbw and not (nodes and nodes > 1):
        # one guest: without P2P its GPUs stage through host memory, well under half of a PCIe x16 link
        value, rec = max(busbw, key=lambda x: x[0])
        half = 0.5 * pcie_gbs(facts.subject.gpu)
        if value < half:
            out.append(ev(rec, "busbw between the guest's GPUs against half a PCIe x16 link (P2P reaches 70-90 %)",
                          value, round(half, 1), "GB/s"))
    said = claims.symptom_quote(facts)
    # (mend42) a failure whose message names its own cause elsewhere (a 404, an import, a tokenizer, out of memory) is
    # not what a VM without peer-to-peer does: WSL 2 beside it is a fact of the machine, no symptom of the path
    elsewhere = said and said[2] in ("crash", "error") and claims.error_elsewhere(facts)
    if wsl_signs(facts) and said and said[2] in ("hang", "crash", "error", "slow", "scaling") and _multi_gpu(facts) \
            and not elsewhere:
        out.append(ev(said[0], f"a multi-GPU job under WSL 2, which gives its GPUs no peer-to-peer and NCCL does not "
                      f"support: \"{said[1]}\""))
    if nodes and nodes > 1:
        rate, rate_ev = nic_rate_gbs(facts)
        if rate and busbw:
            value, rec = max(busbw, key=lambda x: x[0])
            if value < 0.7 * rate:
                out.append(ev(rec, "inter-node busbw against the NICs' line rate", value, rate, "GB/s"))
                out += rate_ev
    return out


@rule("topology.virtualization_no_p2p", "virtualization_no_p2p")
def virtualization_no_p2p(facts: Facts, predictions=None):
    """A VM hides the PCIe/NVLink topology or keeps ACS on, so P2P and GPUDirect RDMA break."""
    virt = is_virtualized(facts)
    if not virt:
        return
    symptoms = _virtual_symptoms(facts)
    if not symptoms:
        return
    hard = [e for e in symptoms if not e.source.startswith("ticket.toml")]
    wsl = wsl_signs(facts)
    if wsl:
        evidence = wsl + [e for e in virt + symptoms if e not in wsl]
        yield make(
            "topology.virtualization_no_p2p", "virtualization_no_p2p", "critical", 0.75 if hard else 0.6,
            "WSL 2 gives the GPUs no peer-to-peer path, and NCCL supports it for one GPU only",
            "The job runs under WSL 2, a Hyper-V VM in which the Windows host's driver lends the GPUs to Linux "
            "through a paravirtual device: the guest sees no PCIe topology, GPUs cannot reach each other directly, "
            "and NCCL, supported there for a single GPU only, hangs or fails at setup across GPUs or falls back to "
            "staging through host memory.",
            evidence,
            fix=WSL_FIX,
            refs=["https://docs.nvidia.com/cuda/wsl-user-guide/index.html",
                  "https://docs.nvidia.com/deeplearning/nccl/release-notes/rel_2-10-3.html",
                  "https://github.com/NVIDIA/nccl-tests/issues/69"],
        )
        return
    yield make(
        "topology.virtualization_no_p2p", "virtualization_no_p2p", "critical", 0.75 if hard else 0.6,
        "Virtualisation blocks peer-to-peer between GPUs (and between GPUs and NICs)",
        "The GPUs run inside a virtual machine, and the evidence shows P2P traffic not taking the direct "
        "path. A guest sees a flat PCIe topology and the host keeps ACS redirect on for isolation, so GPU "
        "peer traffic (NVLink/PCIe P2P, and GPUDirect RDMA to the NIC) is refused or routed up through "
        "the root complex, halving bandwidth or worse.",
        virt + symptoms,
        fix="On the host: pass GPUs and NICs through with ATS enabled and ACS redirect disabled on the "
        "switches between them, and give the guest the real topology (NCCL_TOPO_FILE with the host's "
        "PCIe/NVLink layout, as cloud VM images do). Then check the NCCL_DEBUG=INFO log for 'P2P/IPC' "
        "and 'GDRDMA'.",
        refs=["nccl_acs", "nccl_env", "gdr"],
    )


def _bridged_by_design(spec, name: str | None) -> bool:
    """PCIe-card SKUs (H100 PCIe/NVL, A100 PCIe, A40, ...) get NVLink only through bridges
    between pairs, so some of the links the chip reports are never wired. The catalog row's
    `nvlink_bridged` decides; for a GPU the catalog does not know, the product name's family
    (PCIe, NVL, workstation and GeForce cards) is the best guess."""
    if spec is not None:
        return bool(getattr(spec, "nvlink_bridged", False))
    return bool(re.search(r"pcie|bridge|\bnvl\b|-nvl|a40|a30|a6000|rtx|titan|quadro", (name or "").lower()))


@rule("topology.nvlink_links", "nvlink_down")
def nvlink_links(facts: Facts, predictions=None):
    """NVLinks reported inactive: a fault on SXM boards, by design on bridged PCIe cards."""
    mig = _mig_gpus(facts)
    links = [n for n in facts.of(NvLinkFact) if n.gpu not in mig]
    spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
    name = gpu_name(facts)
    none_up = [n for n in facts.of(Note) if n.kind == "nvlink_all_inactive" and n.data.get("gpu") not in mig]
    if none_up and not links and getattr(spec, "nvlink_gbs", 0) and not _bridged_by_design(spec, name):
        n = none_up[0]
        yield make(
            "topology.nvlink_links", "nvlink_down", "critical", 0.85,
            f"All NVLinks of GPU{n.data.get('gpu', '?')} are inactive",
            f"NVML reports every NVLink of this {spec.name} inactive. On its board every link is wired, so the "
            "GPU has lost its NVLink fabric: peer traffic falls back to PCIe or fails.",
            [ev(n, "NVLink state", "all inactive", f"{spec.nvlink_links} active"),
             ev(spec_src or "catalog", f"catalog {spec.key}: {spec.nvlink_links} NVLinks", expected=spec.nvlink_links)],
            fix="Check the fabric manager / NVLink subnet manager and `dmesg` for NVLink Xids; reset the GPU or "
            "service the tray.",
            refs=["fabric_manager", "xid"],
        )
        return
    if not links:
        return
    inactive = [n for n in links if not n.active]
    active = [n for n in links if n.active]
    if not inactive:
        if driver_stall(facts) and not any(g.persistence_mode is False for g in facts.of(GpuFact)):
            return  # a stall persistence does not explain: links that retrain read active between failures
        speeds = sorted({n.speed_gbs for n in active if n.speed_gbs})
        yield passed("topology.nvlink_links", f"All reported NVLinks are active ({links_per_gpu(active)})",
                     "Every NVLink listed is up" + (f" at {speeds[0]:g} GB/s." if len(speeds) == 1 else "."),
                     [ev(active[0], f"links active, most on one GPU ({links_per_gpu(active)})",
                         max_links_per_gpu(active))], 0.75)
        return
    per_gpu = defaultdict(list)
    for n in inactive:
        per_gpu[n.gpu].append(n.link)
    gpu, lost = next(iter(per_gpu.items()))
    detail = f"GPU{gpu if gpu is not None else '?'} links {', '.join(map(str, lost))} inactive"
    evidence = [ev(inactive[0], detail, len(lost), "0 on an SXM board")]
    if _bridged_by_design(spec, name):
        if spec is not None:
            evidence.append(ev(spec_src or "catalog", f"catalog row {spec.key}: NVLink through bridges between pairs",
                               expected=getattr(spec, "nvlink_links", None)))
        yield make(
            "topology.nvlink_links", "healthy", "ok", 0.7,
            "Inactive NVLinks on a bridged PCIe card are by design",
            f"{name or 'This GPU'} is a PCIe card whose NVLinks are wired only through bridges to its "
            "pair partner, so the links without a bridge connection always read Inactive. That is not "
            "a fault; judge the bridge by the pair's P2P bandwidth instead.",
            evidence,
        )
        return
    all_down = not active
    known = spec is not None
    yield make(
        "topology.nvlink_links", "nvlink_down", "critical" if known else "warning", 0.85 if known else 0.5,
        "NVLinks are down" if all_down
        else f"{len(inactive)} NVLinks are down" if len(inactive) > 1 else "An NVLink is down",
        f"{detail}. On an SXM/NVSwitch board every link is wired, so an inactive link means a "
        "training failure, a bad baseboard connection or a fabric problem; NCCL then loses that "
        "bandwidth or falls back to PCIe."
        + ("" if known else " The GPU model is not known here: on a PCIe card with NVLink bridges, "
           "links without a bridge are inactive by design."),
        evidence,
        fix="Check `nvidia-smi nvlink -e` error counters and `dmesg` for Xid 74; reset the GPU (or "
        "reboot) and, if links stay down, have the baseboard/NVSwitch tray serviced.",
        refs=["nvidia_smi", "xid"],
    )


def _nvswitch_board(spec) -> bool:
    return str(getattr(spec, "interconnect", "") or "").startswith("nvswitch")


def no_nvswitch_board(facts: Facts):
    """The ticket's GPU when the catalog knows it and it is no NVSwitch board (GeForce, PCIe cards, bridged pairs
    such as the A40): the fabric manager has no NVSwitch to manage there, so its failure to start
    (NV_WARN_NOTHING_TO_DO, "request to query NVSwitch device information ... failed") is expected and no fabric
    state can be the cause (fabric manager user guide: NVSwitch systems only). None otherwise, and None where the row
    was picked from a family word ("16x V100") as an SXM row: the form is then the catalog's guess, and SXM parts also
    come on NVSwitch baseboards the catalog has no row for (V100 SXM3 on the DGX-2 / HGX-2, 12 NVSwitches:
    https://github.com/cloudrift-ai/emmy/pull/558). A PCIe row ("H100 PCIe") or a product never on SXM (GeForce,
    A40) still answers."""
    spec = facts.subject.gpu
    if spec is None:
        return _geforce(facts)
    if _nvswitch_board(spec):
        return None
    if facts.subject.gpu_by_family and "-sxm" in spec.key:
        return None
    return spec


@dataclasses.dataclass(frozen=True)
class NoSwitchProduct:
    """A GPU no catalog row names whose product line never sits on an NVSwitch (no_nvswitch_board)."""

    name: str
    key: str
    source: str
    detail: str
    interconnect: str = "pcie"


def _geforce(facts: Facts):
    """A GeForce card named by nvidia-smi / NVML that no catalog row matches (the table cuts names at about 20
    characters: "NVIDIA GeForce ...", https://github.com/NVIDIA/gpu-operator/issues/356): GeForce cards are PCIe
    boards, never on an NVSwitch baseboard (the fabric manager user guide lists DGX/HGX systems only). None
    otherwise, and None where another GPU named beside it is no GeForce (a display card next to an SXM GPU the
    catalog lacks)."""
    named = [g for g in facts.of(GpuFact) if g.name]
    if not named or not all(re.search(r"\bGeForce\b", g.name) for g in named):
        return None
    g = named[0]
    return NoSwitchProduct(g.name, "geforce", str(g.source),
                           f"GPU named '{g.name}': a GeForce card, a PCIe board on no NVSwitch")


def fabric_failure(facts: Facts):
    """The first claim of the NVSwitch fabric failing (rules.claims fabric_setup, not a question), unless the GPU
    is known to sit on no NVSwitch (no_nvswitch_board)."""
    if no_nvswitch_board(facts):
        return None
    return next((c for c in claims.find(facts, "fabric_setup") if not c.guess), None)


def nvswitch_by_catalog(facts: Facts) -> list:
    """Evidence that the GPUs sit on NVLink when no topology was given: a GPU named exactly (NVML, a
    capture's device name, not a bare family word) whose catalog row is an NVSwitch board (SXM), with no
    more GPUs in the job than its NVLink domain holds."""
    spec, src = facts.subject.gpu, facts.subject.gpu_source
    if spec is None or not _nvswitch_board(spec) or facts.subject.gpu_by_family:
        return []
    n = gpu_count(facts)
    if n and n > spec.nvlink_domain:
        return []
    return [ev(src or "catalog", f"catalog {spec.key}: an NVSwitch board, every GPU pair on NVLink", spec.interconnect)]


@rule("topology.nvlink_missing", "nvlink_down")
def nvlink_missing(facts: Facts, predictions=None):
    """On an NVSwitch board every GPU pair connects over NVLink; a PCIe path between two GPUs
    means the fabric is not up or the GPU's links are down."""
    spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
    if spec is None or not _nvswitch_board(spec):
        return
    pairs = [t for t in facts.of(TopologyPath) if t.a.startswith("GPU") and t.b.startswith("GPU") and t.a != t.b]
    if not pairs:
        return
    off = [t for t in pairs if not t.path.upper().startswith("NV")]
    catalog_ev = ev(spec_src or "catalog", f"catalog {spec.key}: NVSwitch board, every pair on NVLink",
                    expected=spec.interconnect)
    if not off:
        yield passed("topology.nvlink_missing", "Every GPU pair connects over NVLink",
                     f"All {len(pairs)} GPU pairs in the topology matrix are NV#.",
                     [ev(pairs[0], "path", pairs[0].path), catalog_ev], 0.7)
        return
    t = off[0]
    yield make(
        "topology.nvlink_missing", "nvlink_down", "critical", 0.8,
        f"{len(off)} of {len(pairs)} GPU pairs connect over PCIe on an NVSwitch board",
        f"{t.a} and {t.b} are joined by {t.path} instead of NVLink. On HGX/DGX boards all GPUs reach each other "
        "through the NVSwitches, so a PCIe path means the fabric manager has not set the fabric up or the GPU's "
        "NVLinks are down; NCCL then runs those pairs over PCIe at a tenth of the bandwidth.",
        [ev(t, f"{t.a}<->{t.b} path", t.path, "NV#"), catalog_ev],
        fix="Check `systemctl status nvidia-fabricmanager`, `nvidia-smi -q | grep -A2 Fabric` and "
        "`nvidia-smi nvlink -s` for the GPUs involved; restart the fabric manager or service the board.",
        refs=["fabric_manager", "nvidia_smi"],
    )


@rule("topology.fabric_manager", "nvlink_down")
def fabric_manager(facts: Facts, predictions=None):
    """On NVSwitch systems the fabric manager must have configured the fabric before CUDA runs."""
    # The registration status means something only once the state is Completed (nvml.h); before
    # that the fabric is still coming up (or the GPU has none, e.g. a single GPU in a VM).
    bad = [g for g in facts.of(GpuFact) if g.fabric_state == "Completed"
           and g.fabric_status and g.fabric_status.lower() not in ("success", "n/a", "not supported", "")]
    pending = [g for g in facts.of(GpuFact) if g.fabric_state in ("Not Started", "In Progress")]
    fm = facts.host("fabric_manager")
    events = [e for e in facts.of(NcclEvent)
              if re.search(r"system not yet initiali[sz]ed|cuda error 802", e.message, re.I)]
    evidence = [ev(g, f"{label(g)} fabric state {g.fabric_state}, status {g.fabric_status}",
                   g.fabric_state, "Completed / Success") for g in bad[:2]]
    if fm and str(fm.value) in ("not_running", "absent"):
        evidence.append(ev(fm, "nvidia-fabricmanager service", fm.value, "running"))
    evidence += [ev(e, "CUDA reports the system is not initialised (error 802)", e.message[:80]) for e in events[:1]]
    if evidence:
        yield make(
            "topology.fabric_manager", "nvlink_down", "critical", 0.85,
            "The NVSwitch fabric is not initialised (fabric manager)",
            "On HGX/DGX boards the NVSwitch fabric is set up by the nvidia-fabricmanager service. "
            "Until it has run, NVLink peer traffic is unavailable: CUDA fails with error 802 or NCCL "
            "falls back to slower paths.",
            evidence,
            fix="Start nvidia-fabricmanager with the same version as the driver "
            "(`systemctl enable --now nvidia-fabricmanager`) and check `nvidia-smi -q | grep -A2 Fabric`.",
            refs=["fabric_manager"],
        )
    elif pending:
        g = pending[0]
        yield make(
            "topology.fabric_manager", "nvlink_down", "warning", 0.5,
            f"The NVSwitch fabric is still registering ({g.fabric_state})",
            f"NVML reports the GPU fabric state '{g.fabric_state}' on {len(pending)} GPU(s): the fabric manager has "
            "not finished setting up NVLink. Its result is not known until the state reads Completed; a state that "
            "stays here for minutes means the fabric manager is not running or failed.",
            [ev(x, f"{label(x)} fabric state", x.fabric_state, "Completed") for x in pending[:2]],
            fix="Re-check `nvidia-smi -q | grep -A3 Fabric` in a minute; if it does not reach Completed, check "
            "`systemctl status nvidia-fabricmanager` and its log.",
            refs=["fabric_manager"],
        )
    elif any(g.fabric_state == "Completed" for g in facts.of(GpuFact)):
        g = next(g for g in facts.of(GpuFact) if g.fabric_state == "Completed")
        yield passed("topology.fabric_manager", "The NVSwitch fabric is initialised",
                     "nvidia-smi reports the fabric state Completed.",
                     [ev(g, "fabric state", g.fabric_state, "Completed")], 0.7)


# Fabric > Health values that say nothing is wrong (NVML fabric health summary and mask:
# https://docs.nvidia.com/deploy/nvml-api/group__nvmlFabricDefs.html). N/A: no fabric, or a driver
# without the health report.
FABRIC_FINE = {"healthy", "full", "n/a", "not supported", ""}


@rule("topology.fabric_health", "nvlink_down")
def fabric_health(facts: Facts, predictions=None):
    """A fabric that registered (state Completed, status Success) can still be unhealthy: the fabric
    manager lost routes or NVLinks, so peer traffic fails or runs at part of its bandwidth."""
    gpus = [g for g in facts.of(GpuFact) if g.fabric_health or g.fabric_bandwidth]
    if not gpus:
        return
    bad = [g for g in gpus if (g.fabric_health or "").lower() not in FABRIC_FINE
           or (g.fabric_bandwidth or "").lower() not in FABRIC_FINE]
    if not bad:
        yield passed("topology.fabric_health", "The NVSwitch fabric reports itself healthy",
                     f"nvidia-smi reports fabric health {gpus[0].fabric_health or 'n/a'}, bandwidth "
                     f"{gpus[0].fabric_bandwidth or 'n/a'} on {len(gpus)} GPU(s).",
                     [ev(g, f"{label(g)} fabric health", g.fabric_health, "Healthy") for g in gpus[:2]], 0.7)
        return
    unhealthy = [g for g in bad if (g.fabric_health or "").lower() == "unhealthy"]
    severity, confidence = ("critical", 0.85) if unhealthy else ("warning", 0.7)
    g = (unhealthy or bad)[0]
    yield make(
        "topology.fabric_health", "nvlink_down", severity, confidence,
        f"The NVSwitch fabric reports itself {g.fabric_health or 'degraded'} on {len(bad)} of {len(gpus)} GPU(s)",
        f"nvidia-smi's Fabric > Health section is the fabric manager's own verdict on the GPU's NVLink fabric: "
        f"summary {g.fabric_health or 'n/a'}, bandwidth {g.fabric_bandwidth or 'n/a'}. Unhealthy means routes "
        "or NVLinks the fabric needs are lost (peer traffic may fail or hang); Limited Capacity or Degraded "
        "bandwidth means it works on fewer links, so all-reduce runs at part of the NVLink figure.",
        [ev(x, f"{label(x)} fabric health summary, bandwidth",
            f"{x.fabric_health or 'n/a'}, {x.fabric_bandwidth or 'n/a'}", "Healthy, Full") for x in bad[:2]],
        fix="Check the fabric manager log (/var/log/fabricmanager.log) and `nvidia-smi nvlink -s` for down links; "
        "drain the node and service the NVLinks/NVSwitch tray the log names (a GPU reset or reboot clears a "
        "transient route loss).",
        refs=["fabric_manager", "https://docs.nvidia.com/deploy/nvml-api/group__nvmlFabricDefs.html"],
    )


@rule("topology.nvlink_errors", "nvlink_down")
def nvlink_errors(facts: Facts, predictions=None):
    """Unstable NVLinks: error counters, Xid 74, or a driver that takes minutes to enumerate them."""
    evidence = []
    counters = [(n, n.gpu, n.link, n.errors) for n in facts.of(NvLinkFact) if n.errors]
    counters += [(n, n.data.get("gpu"), n.data.get("link"), n.data.get("errors") or {})
                 for n in facts.of(Note) if n.kind == "nvlink_errors"]
    for rec, gpu, link, errors in counters:
        bad = {k: v for k, v in errors.items() if v and re.search(r"replay|recovery|crc|fatal", k, re.I)}
        fatal = any(re.search(r"recovery|fatal", k, re.I) and v for k, v in bad.items())
        if sum(bad.values()) >= NVLINK_RETRIED_ERRORS or fatal:
            evidence.append(ev(rec, f"GPU{gpu} link {link} error counters {bad}", sum(bad.values()), 0))
    xids = [x for x in facts.of(XidEvent) if x.xid in NVLINK_XIDS or _caused_by_nvlink_xid(x.message)]
    evidence += [ev(x, f"Xid {x.xid}: NVLink error ({x.message[:60]})", x.xid) for x in xids[:2]]
    confidence = 0.8 if evidence else 0.0
    slow = [c for c in claims.find(facts, "nvidia_smi_slow") if c.data["seconds"] >= 20]
    slow += [c for c in claims.find(facts, "nvidia_smi_slow_words") if not c.guess]  # "nvidia-smi takes forever"
    if slow and has_nvlink(facts):
        took = f"{slow[0].data['seconds']:g} s" if "seconds" in slow[0].data else "a long time"
        evidence.append(claim_ev(slow[0], f"nvidia-smi needs {took} (normally under 2 s)"))
        evidence += nvlink_evidence(facts)[:1]
        hang = claims.find(facts, "hang")
        if hang:
            evidence.append(claim_ev(hang[0], "collectives hang"))
        confidence = max(confidence, 0.6 if hang else 0.5)
    if not evidence:
        if counters:
            rec = counters[0][0]
            yield passed("topology.nvlink_errors", "NVLink error counters are clean",
                         f"{len(counters)} link(s) report no replay, recovery or CRC errors worth noting.",
                         [ev(rec, "NVLink error counters", 0, 0)], 0.6)
        return
    yield make(
        "topology.nvlink_errors", "nvlink_down", "critical" if confidence >= 0.8 else "warning", confidence,
        "NVLink is unstable: links retrain or report errors",
        "A link listed in `topo -m` is not proof of a healthy link. Error counters, Xid 74, or an "
        "nvidia-smi that takes tens of seconds (the driver repeatedly initialising a partly connected "
        "bridge) mean the link drops and retrains, which stalls or hangs NCCL collectives.",
        evidence,
        fix="Run `nvidia-smi nvlink -s` and `nvidia-smi nvlink -e` and check `dmesg` for Xid 74; reseat "
        "or replace the NVLink bridge (or service the baseboard), and enable persistence mode. To "
        "confirm, run all_reduce_perf with NCCL_P2P_DISABLE=1: if it no longer hangs, the link is at fault.",
        refs=["nvidia_smi", "xid", "nccl_trouble"],
    )


# --------------------------------------------------------------------------- PCIe links


def _idle(g: GpuFact) -> bool | None:
    """Was the GPU idle when its link was read? None when nothing says."""
    if g.pcie_read_under_load is not None:
        return not g.pcie_read_under_load
    if "idle" in (g.clock_event_reasons or []):
        return True
    if g.utilization_pct is not None:
        return g.utilization_pct < 10
    return None


def _said_busy(facts: Facts) -> Evidence | None:
    """The reporter's words that the link state was read under load (claims.said_busy), as evidence: a busy GPU keeps
    its link at full speed, so a low reading then is no power saving."""
    for source, text in claims.texts(facts):
        said = claims.said_busy(text)
        if said:
            return ev(source, f'the reporter reads it under load: "{said}"')
    return None


@rule("topology.pcie_link", "pcie_link_degraded")
def pcie_link(facts: Facts, predictions=None):
    """PCIe link trained below its capability; a Gen1 reading on an idle GPU is power saving."""
    gpus = facts.of(GpuFact)
    by_bus = {g.bus_id: g for g in gpus if g.bus_id}
    found = False
    for link in facts.of(PcieLinkFact):
        if link.is_bridge or not (link.cap_speed_gts or link.cap_width) or not _judged_device(link):
            continue
        found = True
        g = by_bus.get(link.bus_id)
        # every record of the GPU on that bus may say whether it was idle: lspci does not, the nvidia-smi table beside
        # it does (P8, 0 %), and a CUDA sample's record of the same GPU does not
        said = [x for x in gpus if x.bus_id and x.bus_id == link.bus_id and _idle(x) is not None]
        idle = None if not said else all(_idle(x) for x in said)
        if said:
            g = next(x for x in said if _idle(x) == idle)
        who = _link_owner(link, g, facts)
        if link.sta_width and link.cap_width and link.sta_width < link.cap_width and idle:
            yield _idle_width_note(who, link.sta_width, link.cap_width,
                                   [ev(link, "LnkSta width vs LnkCap width", link.sta_width, link.cap_width, "lanes"),
                                    ev(g, "GPU idle when read", g.utilization_pct, unit="%")])
            yield _width_under_load_need()
        elif link.sta_width and link.cap_width and link.sta_width < link.cap_width:
            evidence = [ev(link, "LnkSta width vs LnkCap width", link.sta_width, link.cap_width, "lanes")]
            signs = [] if idle is False else _narrow_fault_signs(facts, link.sta_width, link.cap_width)
            if idle is None and not signs:
                yield _unknown_load_width(f"PCIe link of {who}", link.sta_width, link.cap_width, evidence)
                yield _width_under_load_need()
                continue
            yield make(
                "topology.pcie_link", "pcie_link_degraded", "critical", 0.8,
                f"PCIe link of {who} runs at x{link.sta_width} instead of x{link.cap_width}",
                f"The link trained with fewer lanes than both ends support, and {_narrow_cause(idle)}: a seating, "
                "riser or slot problem that cuts host and P2P bandwidth.",
                evidence + signs,
                fix="Reseat the card, avoid risers/bifurcated slots, check the slot's wiring in the board "
                "manual, and re-read `lspci -vvv` LnkSta.",
                refs=["nvidia_smi"],
            )
        elif link.sta_speed_gts and link.cap_speed_gts and link.sta_speed_gts < link.cap_speed_gts:
            evidence = [ev(link, "LnkSta speed vs LnkCap speed", link.sta_speed_gts, link.cap_speed_gts, "GT/s")]
            if idle:
                yield make("topology.pcie_link", "healthy", "ok", 0.6,
                           f"{who[:1].upper()}{who[1:]} links at {link.sta_speed_gts:g} GT/s because it is idle",
                           "NVIDIA GPUs drop the PCIe link to its lowest speed when idle to save power; "
                           "that reading is not a fault.",
                           evidence + [ev(g, "GPU idle when read", g.utilization_pct, unit="%")])
                continue
            slot = [c for c in claims.find(facts, "pcie_slot") if not c.guess]
            if idle is None and not slot and not _said_busy(facts):
                # nothing says the GPU was busy and nothing points at the slot (a riser, an adapter, a narrow slot):
                # judged as nvidia-smi's reading of the same link is (_gpu_pcie), a generation that may be reduced
                # when the GPU is not in use (`nvidia-smi --help-query-gpu`) and says nothing without load
                yield make("topology.pcie_link", "healthy", "ok", 0.5,
                           f"{who[:1].upper()}{who[1:]} links at {link.sta_speed_gts:g} GT/s of "
                           f"{link.cap_speed_gts:g} GT/s, read without load: not judged",
                           "NVIDIA GPUs drop the PCIe link to its lowest speed when idle and return to full speed "
                           "under load, and nothing here says the GPU was busy or points at the slot.", evidence)
                yield need("topology.pcie_link", "PCIe generation under load not known",
                           "The link speed was read while the GPU may have been idle.",
                           READ_UNDER_LOAD)
                continue
            evidence += [claim_ev(c, "how the GPU is attached") for c in slot[:1]]
            yield make(
                "topology.pcie_link", "pcie_link_degraded", "warning", 0.55,
                f"PCIe link of {who} trained at {link.sta_speed_gts:g} GT/s of {link.cap_speed_gts:g} GT/s",
                f"lspci reports the link running at {link.sta_speed_gts:g} GT/s although both ends can do "
                f"{link.cap_speed_gts:g} GT/s. A riser, extender or marginal slot often forces this; but an "
                "idle GPU also drops to 2.5 GT/s to save power, and the reading says nothing about load.",
                evidence,
                fix="Re-read `lspci -vvv | grep LnkSta` (or `nvidia-smi -q -d PCIE`) while the GPU is "
                "busy; if it stays low, remove the riser or use another slot, and force the slot's PCIe "
                "generation in the BIOS.",
                refs=["nvidia_smi"],
            )
    yield from _gpu_pcie(facts, gpus, found)


# The reading that settles a link read while the GPU may have been idle.
READ_UNDER_LOAD = ("`nvidia-smi -q -d PCIE` (or `lspci -vvv | grep LnkSta`) captured while the GPU runs a "
                   "bandwidth test such as `bandwidthTest` or `nvbandwidth`")


def _narrow_cause(idle: bool | None) -> str:
    """Why a narrow link is judged a fault though an idle GPU's link may be reduced (shared by lspci's and
    nvidia-smi's readings)."""
    return (("the GPU was busy when read" if idle is False else "more than the reading points at the slot")
            + " (nvidia-smi documents only an idle GPU's link as one that may be reduced)")


# lspci's class names of the devices a tensor-parallel job's traffic crosses: the GPUs, and the NICs of a job over
# several nodes. A storage controller's or a USB card's link (a RAID card's x1 function, tests/data/fa24) is no
# part of it.
JUDGED_CLASSES = ("vga compatible controller", "3d controller", "display controller", "ethernet controller",
                  "infiniband controller", "network controller")


def _judged_device(link: PcieLinkFact) -> bool:
    """Is this lspci link one whose width or speed bears on GPU traffic? A link without its device line (LnkSta
    pasted alone) is judged; one whose device line names another class is not."""
    # "RAID bus controller: ...", with a bus id before it or `lspci -nn`'s class code after it ("3D controller [0302]:")
    cls = re.match(r"\s*(?:[0-9a-fA-F]{2,4}:[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})?\.\d\s+)?([A-Za-z0-9 /-]+?)"
                   r"(?:\s*\[[0-9a-fA-F]{4}\])?\s*:\s", link.device or "")
    return not cls or cls.group(1).strip().lower() in JUDGED_CLASSES or "nvidia" in (link.device or "").lower()


def _idle_width_note(who: str, width: int, max_width: int, evidence: list):
    """A link narrower than its maximum read while the GPU idles is no evidence of a fault: nvidia-smi documents the
    current width, like the generation, as one that "may be reduced when the GPU is not in use"
    (`nvidia-smi --help-query-gpu`, pcie.link.width.current), and real idle readings of healthy hosts show x8 of x16
    (tests/data/fa24). Under load it is judged as before."""
    return make(
        "topology.pcie_link", "healthy", "ok", 0.5,
        f"{who[:1].upper()}{who[1:]} read at x{width} of x{max_width} while idle: not judged until read under load",
        "nvidia-smi documents the current PCIe link width and generation as values that may be reduced when the GPU "
        "is not in use, so a narrow link on an idle GPU says nothing about the slot. Read under load, a width "
        "still below the maximum is a seating, riser or slot problem.",
        evidence, refs=["nvidia_smi"])


def _width_under_load_need():
    return need("topology.pcie_link", "PCIe link width under load not known",
                "The link width was read while the GPU was idle, or with nothing saying whether it was busy.",
                f"{READ_UNDER_LOAD}, or `nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current "
                "--format=csv -l 1` while the job runs")


def _narrow_fault_signs(facts: Facts, width: int, max_width: int) -> list:
    """What makes a narrow link a fault even when nothing says whether the GPU was busy: an x1 link (one lane; no
    idle GPU in the public readings lowers its width at all, tests/data/w3b_s24), the reporter's words that it was
    read under load, a riser, adapter or narrow slot named, or PCIe errors (AER reports, the reporter's words)."""
    out = []
    if width <= 1:
        out.append(ev("rule:topology.pcie_link", "one lane of the link's maximum", width, max_width, "lanes"))
    busy = _said_busy(facts)
    if busy:
        out.append(busy)
    out += [claim_ev(c, "how the GPU is attached") for c in claims.find(facts, "pcie_slot") if not c.guess][:1]
    out += [claim_ev(c, "PCIe errors reported") for c in claims.find(facts, "pcie_errors") if not c.guess][:1]
    out += [ev(n, "kernel AER report") for n in facts.of(Note) if n.kind in ("pcie_aer", "pcie_aer_recovery")][:1]
    return out


def _unknown_load_width(who: str, width: int, max_width: int, evidence: list):
    """A link narrower than its maximum read with nothing saying whether the GPU was busy, and nothing else pointing at
    the slot. nvidia-smi documents the current width as one that "may be reduced when the GPU is not in use"
    (`nvidia-smi --help-query-gpu`), yet public readings of NVIDIA GPUs at the idle speed floor keep their full width
    (an RTX A4000, a GT 730, an RTX 3090; an RTX 4070 Laptop at P8 lowers neither: tests/data/w3b_s24), so a narrow
    width is most often the slot's wiring: still critical, less sure than one read busy, with the ask."""
    return make(
        "topology.pcie_link", "pcie_link_degraded", "critical", 0.7,
        f"{who} runs at x{width} instead of x{max_width} (load when read not known)",
        "The link trained with fewer lanes than it supports, which cuts host and P2P bandwidth in proportion. "
        "nvidia-smi documents the current width as one that may be reduced when the GPU is not in use, but GPUs "
        "read at their idle speed in full-width slots are seen to keep their width, so a narrow width is most "
        "often a slot wired with fewer lanes, a riser or a badly seated card; a reading under load settles it.",
        evidence,
        fix="Re-read the width while the GPU is busy (`nvidia-smi -q -d PCIE` during a `bandwidthTest` copy); if it "
        "stays below the maximum, reseat the card, avoid risers and bifurcated slots, and check the slot's wiring "
        "in the board manual.",
        refs=["nvidia_smi"])


def _link_owner(link: PcieLinkFact, g: GpuFact | None, facts: Facts) -> str:
    """The device an lspci link belongs to, as the facts name it: the GPU on that bus, lspci's own
    device line, the bus id; for lines pasted without any of them, "a GPU" (with its model when the
    ticket's GPUs are all one model)."""
    if g is not None:
        return label(g) + (f" ({g.name})" if g.name else "")
    if link.device:
        return link.device
    if link.bus_id and link.bus_id != "unknown":
        return link.bus_id
    names = {x.name for x in facts.of(GpuFact) if x.name} or {facts.workload().gpu} - {None}
    return f"a GPU ({names.pop()})" if len(names) == 1 else "a GPU"


def _link_share(g: GpuFact) -> float:
    """The share of its own link's bandwidth a GPU's PCIe link trained at: lanes x the per-lane rate, which doubles
    with each generation from Gen3 (8, 16, 32 GT/s; Gen2's 5 GT/s with 8b/10b coding carries half of Gen3's)."""
    width = g.pcie_width_current / g.pcie_width_max if g.pcie_width_current and g.pcie_width_max else 1.0
    gen = 2.0 ** (g.pcie_gen_current - g.pcie_gen_max) if g.pcie_gen_current and g.pcie_gen_max else 1.0
    return width * min(gen, 1.0)


def _gpu_pcie(facts: Facts, gpus: list[GpuFact], lspci_seen: bool):
    lows, narrow_idle, unknown_load = [], [], []
    # the narrowest link first: of several degraded GPUs the one with the least bandwidth left leads the report
    for g in sorted(gpus, key=_link_share):
        # a width short of the link's own needs no generation beside it: a paste cut above "Link Width" still shows it
        narrow = bool(g.pcie_width_current and g.pcie_width_max and g.pcie_width_current < g.pcie_width_max)
        if g.pcie_gen_current is None and not narrow:
            continue
        idle = _idle(g)
        if narrow and idle:
            narrow_idle.append(g)
        elif narrow:
            slower = (f" at Gen{g.pcie_gen_current} (capable of Gen{g.pcie_gen_max})"
                      if g.pcie_gen_current and g.pcie_gen_max and g.pcie_gen_current < g.pcie_gen_max else "")
            evidence = [ev(g, "current vs max PCIe width", g.pcie_width_current, g.pcie_width_max, "lanes")]
            signs = [] if idle is False else _narrow_fault_signs(facts, g.pcie_width_current, g.pcie_width_max)
            if idle is None and not signs:
                unknown_load.append(g)
                continue
            yield make(
                "topology.pcie_link", "pcie_link_degraded", "critical", 0.8,
                f"{label(g)} PCIe link runs at x{g.pcie_width_current} instead of x{g.pcie_width_max}{slower}",
                f"The link trained with fewer lanes than it supports, and {_narrow_cause(idle)}.",
                evidence + signs,
                fix="Reseat the card or move it to a full x16 slot without a riser.", refs=["nvidia_smi"])
        elif g.pcie_gen_max and g.pcie_gen_current < g.pcie_gen_max:
            busy = _said_busy(facts) if idle is None else None
            if idle is False or busy:
                yield make(
                    "topology.pcie_link", "pcie_link_degraded", "critical", 0.85 if idle is False else 0.75,
                    f"{label(g)} PCIe link at Gen{g.pcie_gen_current} under load (capable of Gen{g.pcie_gen_max})",
                    "The GPU was busy when read, so the low generation is not power saving: the link "
                    "trained below its capability and host/P2P bandwidth is cut accordingly.",
                    [ev(g, "current vs max PCIe generation under load", g.pcie_gen_current, g.pcie_gen_max)]
                    + ([busy] if busy else []),
                    fix="Reseat the card, remove risers, set the slot's generation in the BIOS.", refs=["nvidia_smi"])
            else:
                lows.append(g)
        elif not g.pcie_gen_max:
            peers = [p.pcie_gen_current for p in gpus if p is not g and p.pcie_gen_current and p.name == g.name]
            if peers and g.pcie_gen_current < max(peers):
                if idle is False:
                    yield make(
                        "topology.pcie_link", "pcie_link_degraded", "critical", 0.75,
                        f"{label(g)} PCIe link at Gen{g.pcie_gen_current} under load; an identical GPU runs "
                        f"Gen{max(peers)}",
                        "The GPU was busy when read, so the low generation is not power saving, and an identical "
                        "GPU in the same host links faster: this slot, riser or card trained below its capability.",
                        [ev(g, "current PCIe generation under load", g.pcie_gen_current, max(peers)),
                         ev(g, "utilisation when read", g.utilization_pct, unit="%")],
                        fix="Reseat the card, remove risers, set the slot's generation in the BIOS.",
                        refs=["nvidia_smi"])
                else:
                    lows.append(g)
    if unknown_load:
        g = unknown_load[0]
        yield _unknown_load_width(f"{label(g)} PCIe link", g.pcie_width_current, g.pcie_width_max,
                                  [ev(x, f"{label(x)} current vs max PCIe width, load not known",
                                      x.pcie_width_current, x.pcie_width_max, "lanes") for x in unknown_load[:4]])
        yield _width_under_load_need()
    if narrow_idle:
        g = narrow_idle[0]
        yield _idle_width_note(label(g), g.pcie_width_current, g.pcie_width_max,
                               [ev(x, f"{label(x)} current vs max PCIe width while idle", x.pcie_width_current,
                                   x.pcie_width_max, "lanes") for x in narrow_idle[:4]])
        yield _width_under_load_need()
    if lows:
        g = lows[0]
        yield make(
            "topology.pcie_link", "healthy", "ok", 0.6,
            f"{label(g)} at PCIe Gen{g.pcie_gen_current} without load is normal power saving",
            "NVIDIA GPUs drop their PCIe link to Gen1 when idle and return to full speed under load. "
            "A low current generation read without load context is therefore not evidence of a "
            "degraded link.",
            [ev(x, f"{label(x)} current PCIe generation (load not known or idle)", x.pcie_gen_current,
                x.pcie_gen_max or "higher under load") for x in lows[:4]],
        )
        yield need("topology.pcie_link", "PCIe generation under load not known",
                   "The current PCIe generation was read while the GPU may have been idle.",
                   READ_UNDER_LOAD)


# --------------------------------------------------------------------------- measured P2P


def pcie_gbs(spec) -> float:
    """A GPU's PCIe x16 line rate per direction (its catalog gen and lanes; Gen4 x16 when unknown)."""
    gen = getattr(spec, "pcie_gen", None) or 4
    lanes = getattr(spec, "pcie_lanes", None) or 16
    return PCIE_LANE_GBS.get(gen, 2.0) * lanes


def gpu_links(facts: Facts) -> dict[tuple[int, int], TopologyPath]:
    """The topology matrix's path of each GPU pair, keyed by the pair's indices in order."""
    out = {}
    for t in facts.of(TopologyPath):
        a, b = re.fullmatch(r"GPU(\d+)", t.a), re.fullmatch(r"GPU(\d+)", t.b)
        if a and b and a.group(1) != b.group(1):
            out[tuple(sorted((int(a.group(1)), int(b.group(1)))))] = t
    return out


def ring_route(facts: Facts | None, tp: int) -> dict[str, str]:
    """What NCCL's tuner sees of a TP ring over GPUs 0..tp-1 (roofline.predict's ring_path / ring_cpu), the one route
    ticket, scaling, plan and capture price the all-reduce with: the worst PCIe path the topology matrix gives those
    pairs ("" where it does not cover them all, or a pair is NVLink), and the CPU link class (collectives.cpu_class)
    of the host's CPU as read from the machine (a node report, the live probe, a capture's CpuDescription), else as
    the reporter names it; and, where the evidence states one, the NCCL release that ran ("nccl_release":
    nccl_release_in_use), whose tuner constants pick the algorithm. No facts: nothing known ({"ring_path": "",
    "ring_cpu": ""})."""
    from rules import collectives, offload

    if facts is None or tp < 2:
        return {"ring_path": "", "ring_cpu": ""}
    release = nccl_release_in_use(facts)
    links = gpu_links(facts)
    paths = [links[p].path.lower().replace("soc", "sys") if p in links else "" for p in
             itertools.combinations(range(tp), 2)]
    path = max(paths, key=collectives.PATHS.index) if paths and all(p in collectives.PATHS for p in paths) else ""
    cpu = host_cpu(facts)
    family = offload.cpu_family(cpu[0]) if cpu else None
    return {"ring_path": path, "ring_cpu": collectives.cpu_class(family[0]["family"]) if family else "",
            **({"nccl_release": release} if release else {})}


def nccl_release_in_use(facts: Facts) -> str:
    """The NCCL release the evidence says ran: the one version printed (NCCL's own log line, a tool's), else the one a
    named container ships (NcclVersion derived_from its tag); "" where none is stated or where the printed ones differ
    (an A/B between releases: which one a figure is of is not known here). A release older than
    rules/catalog/nccl_tuning.toml's first row is priced with that row (catalog.nccl_tuning clamps it)."""
    from diagnose.evidence import NcclVersion
    from rules import catalog

    versions = list(facts.of(NcclVersion))
    printed = {catalog.nccl_release(v.version) for v in facts.printed_nccl_versions()} - {None}
    derived = {catalog.nccl_release(v.version) for v in versions if v.derived_from} - {None}
    chosen = printed or derived
    if len(chosen) != 1:
        return ""
    return ".".join(map(str, next(iter(chosen))))


def route_said(route: dict) -> str:
    """A prediction's ring_route assumption in words: "sys across amd CPUs", "node"."""
    across = f" across {route['cpu']} CPUs" if route.get("cpu") and route["path"] == "sys" else ""
    return route["path"] + across


def nvlink_ring(members: list[int], links: dict[tuple[int, int], TopologyPath]) -> int | None:
    """The most NVLinks every hop of one ring over `members` keeps, or None when every ring must
    cross a PCIe or host hop. NCCL builds its rings over NVLink where such a ring exists (NCCL
    user guide, topology detection), so that hop, not the best pair, bounds an all-reduce's busbw."""
    def nv(a: int, b: int) -> int:
        return links[tuple(sorted((a, b)))].nvlinks  # the # of NV#, filled by every TopologyPath producer

    if len(members) > 8:  # too many rings to try: only an all-NVLink group has a sure answer
        counts = [nv(a, b) for a, b in itertools.combinations(members, 2)]
        return min(counts) or None
    best = 0
    for rest in itertools.permutations(members[1:]):
        ring = [members[0], *rest]
        best = max(best, min(nv(a, b) for a, b in zip(ring, ring[1:] + ring[:1])))
    return best or None


def _topo_path(facts: Facts, a: int, b: int) -> TopologyPath | None:
    for t in facts.of(TopologyPath):
        if {t.a, t.b} == {f"GPU{a}", f"GPU{b}"}:
            return t
    return None


# A GPU-to-GPU copy over healthy NVLink reaches about 80 % of the per-direction line rate (A100 SXM: 240 of
# 300 GB/s, https://github.com/NVIDIA/nccl/issues/1054; HGX H100 p2pBandwidthLatencyTest 749-783 of 900 GB/s
# bidirectional, https://github.com/NVIDIA/nccl/issues/1264). Below 60 % of the line rate, three quarters of what
# a copy reaches, part of the links are down; at what PCIe carries, the copy does not use NVLink at all. One
# judgement for a pasted matrix (topology.pair_bandwidth) and a figure said in words (ticket.copy_figure).
NVLINK_COPY_FLOOR = 0.6


def nvlink_copy_verdict(per_direction: float, line: float, pcie: float) -> str | None:
    """None for a copy rate (GB/s per direction) healthy NVLink of `line` GB/s gives; 'pcie_fallback' at or below
    what the GPU's PCIe link (`pcie` GB/s) carries; 'nvlink_down' in between."""
    if per_direction >= NVLINK_COPY_FLOOR * line:
        return None
    return "pcie_fallback" if per_direction <= 1.1 * pcie else "nvlink_down"


@rule("topology.pair_bandwidth", "nvlink_down", "pcie_fallback")
def pair_bandwidth(facts: Facts, predictions=None):
    """Measured GPU-to-GPU copy bandwidth against the NVLink line rate from the catalog."""
    pairs = [p for p in facts.of(PairBandwidth)
             if p.a != p.b and p.unit.lower() in ("gb/s", "gbps") and p.p2p_enabled is not False and p.value > 0]
    spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
    nv_gbs = getattr(spec, "nvlink_gbs", None) if spec else None
    if not pairs or not nv_gbs:
        return
    pcie = pcie_gbs(spec)
    nv_pairs, slow = [], []
    for p in pairs:
        factor = 2 if p.direction == "bi" else 1
        t = _topo_path(facts, p.a, p.b)
        # Without a topology matrix: on an NVSwitch board every pair is on NVLink; elsewhere
        # (bridges, DGX-1 cube mesh) only a rate well above PCIe shows an NVLink path.
        switched = _nvswitch_board(spec)
        on_nvlink = t.path.upper().startswith("NV") if t else (switched or p.value > 1.3 * pcie * factor)
        if not on_nvlink:
            continue
        expected = nv_gbs * factor
        nv_pairs.append((p, expected))
        if nvlink_copy_verdict(p.value / factor, nv_gbs, pcie):
            slow.append((p, expected, t))
    if not nv_pairs:
        return
    line = f"catalog {spec.key}: NVLink {nv_gbs:g} GB/s per direction"
    if not slow:
        ratios = [p.value / e for p, e in nv_pairs]
        p, e = min(nv_pairs, key=lambda x: x[0].value / x[1])
        yield passed(
            "topology.pair_bandwidth",
            f"GPU-to-GPU bandwidth is {_share_range(min(ratios), max(ratios))} of the NVLink line rate, as expected",
            "Copy engines reach about 80–90% of the NVLink line rate because of packet headers and flow "
            "control, so the measured pairs are where healthy NVLink lands; a threshold set at the "
            "marketed figure (or an SXM figure on a PCIe card) cannot be met.",
            [ev(p, f"slowest pair GPU{p.a}<->GPU{p.b} ({p.direction}directional)", p.value, e, "GB/s"),
             ev(spec_src or "catalog", line, expected=nv_gbs, unit="GB/s")],
            0.8,
        )
        return
    p, e, t = min(slow, key=lambda x: x[0].value / x[1])  # the slowest pair
    below_pcie = nvlink_copy_verdict(p.value * nv_gbs / e, nv_gbs, pcie) == "pcie_fallback"
    yield make(
        "topology.pair_bandwidth", "pcie_fallback" if below_pcie else "nvlink_down", "warning", 0.6,
        f"{len(slow)} NVLink-connected GPU pairs copy at PCIe-like or reduced bandwidth",
        f"GPU{p.a}<->GPU{p.b} moves {p.value:g} GB/s where NVLink should give about {0.8 * e:.0f}–{e:.0f} GB/s. "
        + ("That is what PCIe delivers, so the copy is not using NVLink." if below_pcie
           else "Part of the links between them are down or running degraded."),
        [ev(p, f"GPU{p.a}<->GPU{p.b} {p.direction}directional P2P bandwidth", p.value, e, "GB/s"),
         ev(spec_src or "catalog", line, expected=nv_gbs, unit="GB/s")]
        + ([ev(t, "topology path", t.path)] if t else []),
        fix="Check `nvidia-smi nvlink -s` for inactive links and `nvidia-smi nvlink -e` for errors on those GPUs.",
        refs=["nvidia_smi"],
    )


def _share_range(low: float, high: float) -> str:
    """'82%–86%', or '90%' when both ends round alike."""
    return f"{low:.0%}" if f"{low:.0%}" == f"{high:.0%}" else f"{low:.0%}–{high:.0%}"


# A direct PCIe peer copy crosses the PCIe fabric once; a copy staged through host memory (P2P=Disabled in the CUDA
# sample p2pBandwidthLatencyTest) crosses it twice and adds a host-memory copy, so a healthy peer path is at least as
# fast. Below it (the better of P2P reads and writes, a tenth of margin for noise), peer requests are being forwarded
# by the CPU: ACS redirect or a translating IOMMU sends them up to the root complex (NCCL troubleshooting, "PCI Access
# Control Services"), or the pair crosses CPU sockets, where NCCL's maintainers find P2P worse than SHM
# (https://github.com/NVIDIA/nccl/issues/428: "recent Intel CPUs have horrible P2P performance" through the CPU).
# NCCL's P2P transport then runs slower than its SHM one would.
P2P_BELOW_STAGED = 0.9


def _p2p_rates(facts: Facts) -> list[tuple[PairBandwidth, PairBandwidth]]:
    """(P2P=Enabled, P2P=Disabled) copy of each GPU pair and direction p2pBandwidthLatencyTest measured both ways, the
    better of P2P reads and writes (the better path NCCL can take)."""
    rates: dict[tuple, dict[bool, PairBandwidth]] = defaultdict(dict)
    for p in facts.of(PairBandwidth):
        if p.a != p.b and p.p2p_enabled is not None and p.unit.lower() in ("gb/s", "gbps") and p.value > 0:
            best = rates[(p.a, p.b, p.direction)].get(p.p2p_enabled)
            if best is None or p.value > best.value:
                rates[(p.a, p.b, p.direction)][p.p2p_enabled] = p
    return [(r[True], r[False]) for r in rates.values() if True in r and False in r]


def p2p_seen_working(facts: Facts, delivered: bool = False, words: bool = True) -> list[Evidence]:
    """This host's own check that GPU peer-to-peer works, as evidence; [] when none shows it or one shows it failing.

    Granted (the driver allows it): CUDA's peer-access answer (p2pBandwidthLatencyTest 'CAN Access Peer', simpleP2P
    'Peer access ... : Yes'), `nvidia-smi topo -p2p r|w` OK, NCCL connecting 'via P2P/...', or the reporter's words
    (torch.cuda.can_device_access_peer True, "peer access is enabled"). Delivered (data crossed peer-to-peer and
    arrived): simpleP2P's verified copy ('Test passed'), a P2P=Enabled copy faster than the same copy staged
    through host memory (P2P=Disabled) by more than the P2P_BELOW_STAGED margin, or the reporter's words ("the p2p
    test passes", "P2P works"). A grant is no delivery: ACS redirect or a translating IOMMU leaves the driver's answer
    yes and drops the peer writes (NCCL troubleshooting, "PCI Access Control Services"; vLLM's gpu_p2p_access_check
    writes and reads back for that reason), so a hang needs `delivered`. Any pair seen failing the same check (a
    CANNOT, an NS cell, P2P copies below the staged ones) leaves the host not shown working. words=False: the
    artifacts alone (to weigh against a refusal said in words)."""
    access = [p for p in facts.of(P2PStatus) if p.a != p.b and p.capability in ("read", "write", "access")]
    transfer = [p for p in facts.of(P2PStatus) if p.a != p.b and p.capability == "transfer"]
    rates = _p2p_rates(facts)
    if any(not p.ok for p in access + transfer) or any(on.value < P2P_BELOW_STAGED * off.value for on, off in rates):
        return []
    said = claims.p2p_check_said(facts, "p2p_ok") if words else []
    done = claims.p2p_check_said(facts, "p2p_passed") if words else []
    # where P2P is not granted the sample's P2P=Enabled matrix falls back to the staged copy and matches it: a
    # delivery shows as a copy above the staged one by more than the noise margin
    above = [(on, off) for on, off in rates if on.value * P2P_BELOW_STAGED >= off.value]
    found = [ev(on, f"GPU{on.a}->GPU{on.b} P2P=Enabled copy above the copy through host memory "
                    "(p2pBandwidthLatencyTest P2P=Disabled)", on.value, off.value, "GB/s")
             for on, off in sorted(above, key=lambda x: -x[0].value / x[1].value)[:1]]
    found += [ev(p, f"simpleP2P copied GPU{p.a}<->GPU{p.b} peer-to-peer and verified it", p.status)
              for p in transfer[:1]]
    found += [claim_ev(c, "the reporter: the P2P check passed") for c in done[:1]]
    if delivered:
        return found
    found += [ev(p, f"GPU{p.a}->GPU{p.b} peer {p.capability}", p.status) for p in access if p.ok][:1]
    found += [ev(t, "NCCL connects the GPUs peer-to-peer", t.detail)
              for t in facts.of(NcclTransport) if t.transport == "P2P"][:1]
    found += [claim_ev(c, "the reporter: peer access granted") for c in said[:1]]
    return found


@rule("topology.p2p_slower_than_host", "p2p_disabled", "numa_affinity")
def p2p_slower_than_host(facts: Facts, predictions=None):
    """GPU pairs whose P2P copy is slower than the same copy staged through host memory (p2pBandwidthLatencyTest's
    P2P=Enabled against its P2P=Disabled matrix)."""
    if is_virtualized(facts):
        return  # topology.virtualization_no_p2p tells a guest's story
    both = _p2p_rates(facts)
    slow = [(on, off) for on, off in both if on.value < P2P_BELOW_STAGED * off.value]
    if not slow:
        return
    on, off = min(slow, key=lambda x: x[0].value / x[1].value)
    paths = [_topo_path(facts, p.a, p.b) for p, _ in slow]
    across = bool(paths) and all(t is not None and t.path.upper() in ("SYS", "SOC") for t in paths)
    way = "bidirectional" if on.direction == "bi" else "one direction"
    yield make(
        "topology.p2p_slower_than_host", "numa_affinity" if across else "p2p_disabled", "warning", 0.5,
        f"P2P is slower than staging through host memory on {len(slow)} of {len(both)} GPU pairs "
        f"(GPU{on.a}->GPU{on.b}: {on.value:g} vs {off.value:g} GB/s)",
        "A direct peer copy crosses PCIe once and a copy through host memory twice, so a healthy peer path is at "
        "least as fast. Here the peer path is slower: "
        + ("these pairs cross CPU sockets (topo: SYS), whose interconnect forwards PCIe peer writes poorly. "
           if across else "the CPU forwards the peer requests (ACS redirect on a PCIe switch, a translating IOMMU, "
           "or pairs across CPU sockets). ")
        + "NCCL's P2P transport between them runs slower than its shared-memory one would.",
        [ev(on, f"GPU{on.a}->GPU{on.b} P2P=Enabled copy ({way}, the better of reads and writes)", on.value,
            off.value, "GB/s"),
         ev(off, f"GPU{off.a}->GPU{off.b} P2P=Disabled copy through host memory ({way}): the rate compared with",
            off.value, unit="GB/s")]
        + [ev(t, f"{t.a}<->{t.b} path", t.path) for t in paths[:1] if t is not None],
        fix="Check ACS on the PCIe switches (`lspci -vvv`: ACSCtl ReqRedir+) and boot with iommu=pt; keep TP groups "
        "within one socket (`nvidia-smi topo -m`); compare all_reduce_perf with NCCL_P2P_LEVEL=NODE (or "
        "NCCL_P2P_DISABLE=1) against the default and keep the faster.",
        refs=["nccl_acs", "nccl_env"],
    )
