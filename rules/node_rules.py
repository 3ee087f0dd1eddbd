"""Rules only a live node (or its recording) can feed: no GPU found, probes that hung or failed,
measured collective and kernel rates against what the catalog and the topology imply, a slow
driver, NUMA placement, and which TP group sizes this box serves well.

The generic rules (P2P, NVLink, PCIe, throttling, ECC, /dev/shm, IOMMU, fabric manager) live in
rules/topology.py, nccl.py, host.py, health.py and fire on the same facts.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from diagnose.evidence import CollectiveResult, Facts, GpuFact, Measurement, Note, NvLinkFact, TopologyPath
from probes.results import ProbeFailure
from rules import claims
from rules.common import COLD_INIT_PER_GPU_S, driver_stall, ev, make, passed
from rules.engine import rule
from rules.topology import NVLINK_PATH, gpu_links, path_cost

# Fractions of the catalog figure below which a measured rate is a problem. A device copy
# reaches ~85-92% of HBM peak and a large bf16 GEMM ~65-80% of dense peak on a healthy GPU.
HBM_FLOOR = 0.70
GEMM_FLOOR = 0.50


def _probe_results(facts: Facts) -> list[CollectiveResult]:
    return [r for r in facts.of(CollectiveResult) if r.source.startswith("probe:collectives")]


@rule("node.no_gpu", "insufficient_data")
def no_gpu(facts: Facts, predictions=None):
    """No NVIDIA driver or GPU answered: the host checks ran, nothing GPU-side could be checked.

    Critical, so `diagnose node` exits 1 on a box that cannot serve GPU inference as it stands;
    the verdict is insufficient_data and names what is missing."""
    notes = [n for n in facts.of(Note) if n.kind == "no_gpu"]
    if not notes:
        return []
    on_bus = facts.host("pci_nvidia_gpus")
    evidence = [ev(notes[0], notes[0].text)]
    if on_bus is not None:
        evidence.append(ev(on_bus, "NVIDIA GPUs on the PCIe bus (sysfs)", len(on_bus.value or [])))
    if on_bus is not None and on_bus.value:
        summary = (f"{len(on_bus.value)} NVIDIA GPU(s) sit on the PCIe bus but the driver does not answer "
                   f"({notes[0].text}). Host checks ran; no GPU check could.")
        fix = "Install or load the NVIDIA driver (nvidia-smi must list the GPUs), then run diagnose node again."
    else:
        summary = (f"{notes[0].text[0].upper()}{notes[0].text[1:]}, and no NVIDIA GPU is visible on the PCIe bus. "
                   "Only the host checks ran.")
        fix = ("Run diagnose node on the GPU server itself (inside a container: start it with --gpus all "
               "and the NVIDIA container toolkit), with the driver loaded.")
    ran = facts.of(CollectiveResult)
    if ran:  # the collectives went through CUDA without NVML (a container without libnvidia-ml): say what did run
        summary = summary.replace("Only the host checks ran.", "").replace("Host checks ran; no GPU check could.", "")
        summary += (f"The host checks and {len(ran)} collective measurement(s) ran (see the collectives table); "
                    "no NVML check (clocks, links, ECC, topology) could.")
        evidence.append(ev(ran[0], "collective measurements that ran without NVML", len(ran)))
    return [make("node.no_gpu", "insufficient_data", "critical", 0.95, "No NVIDIA driver or GPU found",
                 summary, evidence, fix=fix, refs=["nvidia_smi"])]


# A probe's import of the optional torch extra failing ("ModuleNotFoundError: No module named 'torch'").
MISSING_TORCH = re.compile(r"No module named '?torch\b")


@rule("node.probe_failed", "other")
def probe_failed(facts: Facts, predictions=None):
    """A probe that hung (killed by its timeout) or failed: a hung collective is itself a finding."""
    out = []
    suspects = _p2p_suspects(facts)
    for f in facts.of(ProbeFailure):
        missing = MISSING_TORCH.search(f.detail or "") if f.reason == "error" else None
        if f.reason == "skipped" or missing:
            # torch is an optional extra: a probe that cannot import it did not run; the node is not at fault
            detail = f"{f.detail}: the probes' optional extra is not installed (pip install -e '.[probes]')" \
                if missing else f.detail
            out.append(make("node.probe_failed", "insufficient_data", "info", 0.0, f"{f.probe} not run",
                            f"{detail}.", [ev(f, f.detail)], fix=f"run the {f.probe} on the node: {detail}",
                            ask=f"`diagnose node --standard` once the {f.probe} can run ({detail})"))
            continue
        what = "collective sweep" if f.probe == "collectives" else f.probe
        group = f" over GPUs {','.join(map(str, f.group))}" if f.group else ""
        if f.reason == "timeout" and not f.probe.startswith(("collectives", "P2P")):
            title = f"The {what}{group} hung and was stopped after {f.seconds:g} s"
            summary = (f"{f.detail}. A step that never returns here means the driver or a GPU stopped answering "
                       "(a GPU in recovery, a wedged persistence daemon, a link that dropped): nothing after it on "
                       "the GPUs can be trusted to finish.")
            fix = ("Check `dmesg` for Xid errors and whether `nvidia-smi` itself answers; reset the GPU or reboot, "
                   "then run diagnose node again.")
            out.append(make("node.probe_failed", "other", "critical", 0.7, title, summary,
                            [ev(f, f.detail, f.seconds, None, "s")], fix=fix, refs=["xid", "nvidia_smi"]))
        elif f.reason == "timeout":
            title = f"The {what}{group} hung and was killed after {f.seconds:g} s"
            summary = (f"{f.detail}. A collective or peer copy that never completes on one node usually means peer "
                       "traffic is blocked (ACS or IOMMU on PCIe switches, a half-trained NVLink, fabric "
                       "manager down) or a GPU stopped answering."
                       + (f" Seen here: {'; '.join(suspects)}." if suspects else ""))
            fix = ("Re-run with NCCL_DEBUG=INFO and NCCL_P2P_DISABLE=1: if it then completes, peer traffic is "
                   "the cause; check ACS/IOMMU and `nvidia-smi topo -p2p r`.")
            out.append(make("node.probe_failed", "other", "critical", 0.7, title, summary,
                            [ev(f, f.detail, f.seconds, None, "s")], fix=fix, refs=["nccl_trouble", "nccl_acs"]))
        else:
            out.append(make("node.probe_failed", "other", "warning", 0.5, f"The {what}{group} failed",
                            f"{f.detail}. The other probes' results are unaffected.",
                            [ev(f, f.detail)], fix="Re-run with DIAGNOSE_DEBUG=1 and NCCL_DEBUG=INFO to see why."))
    return out


@rule("node.gpu_lost", "hardware_fault")
def gpu_lost(facts: Facts, predictions=None):
    """NVML says a GPU is lost: it fell off the bus (Xid 79) and needs a reset or a reboot."""
    return [make("node.gpu_lost", "hardware_fault", "critical", 0.95, f"GPU{n.data.get('gpu')} has fallen off the bus",
                 f"{n.text}: the driver can no longer reach it. Jobs on it fail; NCCL communicators that include it "
                 "hang.",
                 [ev(n, n.text)],
                 fix="Check `dmesg` for Xid 79; drain the node, reset the GPU (nvidia-smi -r) or reboot; if it recurs, "
                     "check power, cooling and the riser/slot, and RMA the board.", refs=["xid"])
            for n in facts.of(Note) if n.kind == "gpu_lost"]


@rule("node.interrupted", "insufficient_data")
def interrupted(facts: Facts, predictions=None):
    """The run was stopped (Ctrl-C): the report holds what was measured until then."""
    return [make("node.interrupted", "insufficient_data", "info", 0.0,
                 "The run was interrupted; this report is partial", f"{n.text}.", [ev(n, n.text)],
                 fix="run diagnose node again and let it finish",
                 ask="`diagnose node` run to the end (add `--record node.json` to keep every answer)")
            for n in facts.of(Note) if n.kind == "interrupted"]


def _p2p_suspects(facts: Facts) -> list[str]:
    out = []
    iommu = facts.host("iommu")
    if iommu and iommu.value == "on":
        out.append("IOMMU in translation mode")
    acs = facts.host("acs_enabled_bridges")
    if acs and acs.value:
        out.append(f"ACS redirection on {len(acs.value)} PCIe bridge(s)")
    fm = facts.host("fabric_manager")
    if fm and fm.value == "not_running":
        out.append("fabric manager not running")
    return out


@rule("node.small_message_latency", "latency_bound_small_batch", "launch_bound")
def small_message_latency(facts: Facts, predictions=None):
    """Small all_reduce latency: what a decode step pays per layer, eager and under CUDA graphs."""
    out = []
    by_group: dict[tuple, dict[bool, CollectiveResult]] = {}
    for r in _probe_results(facts):
        if r.op == "all_reduce" and r.group and len(r.group) > 1 and r.size_bytes <= 64 << 10:
            best = by_group.setdefault(tuple(r.group), {})
            if r.graph not in best or r.size_bytes < best[r.graph].size_bytes:
                best[r.graph] = r
    links = gpu_links(facts)
    for group, rows in by_group.items():
        eager, graph = rows.get(False), rows.get(True)
        paths = [links.get(tuple(sorted(p))) for p in itertools.combinations(group, 2)]
        nvlink = all(p is not None and NVLINK_PATH.fullmatch(p.path) for p in paths)
        limit = 30.0 if nvlink else 60.0  # a single-node NCCL all_reduce of a few bytes: ~8-25 us
        worst = graph or eager
        if worst and worst.time_us > limit:
            out.append(make(
                "node.small_message_latency", "latency_bound_small_batch", "warning", 0.6,
                f"A {worst.size_bytes} B all_reduce on GPUs {','.join(map(str, group))} takes {worst.time_us:.1f} us",
                f"A decode step sends two all_reduces per layer; at {worst.time_us:.0f} us each, an 80-layer model "
                f"spends {worst.time_us * 160 / 1000:.1f} ms per token in them. Expected under {limit:g} us "
                f"on {'NVLink' if nvlink else 'PCIe'} within one node.",
                [ev(worst, f"all_reduce {worst.size_bytes} B{' (CUDA graph)' if worst.graph else ''}",
                    round(worst.time_us, 1), limit, "us")],
                fix="Check NCCL_PROTO/NCCL_ALGO overrides and NCCL_DEBUG=INFO transports; make sure the GPUs are "
                    "not in a low clock state.",
                refs=["nccl_env"]))
        if eager and graph and graph.time_us > 0 and eager.time_us > 2 * graph.time_us:
            out.append(make(
                "node.small_message_latency", "launch_bound", "info", 0.6,
                f"CUDA graphs cut small all_reduce time on GPUs {','.join(map(str, group))} "
                f"from {eager.time_us:.1f} to {graph.time_us:.1f} us",
                "Launch overhead dominates small collectives here: serve decode with CUDA graphs (no --enforce-eager).",
                [ev(eager, "eager", round(eager.time_us, 1), None, "us"),
                 ev(graph, "CUDA graph", round(graph.time_us, 1), None, "us")],
                fix="Keep CUDA graphs enabled in the serving engine.", refs=["vllm_graphs"]))
    return out


def _catalog_floor(facts: Facts, metric: str, attr: str, floor: float, label: str, rule_id: str, dtype=None):
    spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
    expected = getattr(spec, attr, None) if spec else None
    if not expected:
        return []
    out = []
    rows = [m for m in facts.of(Measurement) if m.metric == metric and (dtype is None or m.dtype == dtype)]
    bad = [m for m in rows if m.value < floor * expected]
    for m in bad:
        throttled = [g for g in facts.of(GpuFact) if g.index == m.gpu and
                     set(g.clock_event_reasons) - {"idle", "applications_clocks_setting"}]
        why = f" The GPU reports clock events: {', '.join(throttled[0].clock_event_reasons)}." if throttled else ""
        out.append(make(
            rule_id, "throttling" if throttled else "hardware_fault", "warning", 0.6,
            f"GPU{m.gpu} {label} is {m.value:.0f} {m.unit}, {m.value / expected:.0%} of the {spec.name} catalog figure",
            f"Measured {m.value:.0f} {m.unit} against {expected:g} in the catalog; a healthy GPU reaches more than "
            f"{floor:.0%}.{why}",
            [ev(m, label, round(m.value, 1), expected, m.unit), ev(spec_src, "catalog row", spec.key)],
            fix="Check clocks and power (nvidia-smi -q -d PERFORMANCE,POWER,CLOCK), and compare with the other GPUs.",
            refs=["throttle"]))
    if rows and not bad:
        best = max(rows, key=lambda m: m.value)
        out.append(passed(rule_id, f"{label} matches the catalog",
                          f"Every GPU reaches at least {floor:.0%} of {expected:g} {best.unit}.",
                          [ev(best, label, round(best.value, 1), expected, best.unit)]))
    return out


@rule("node.hbm_below_catalog", "hardware_fault", "throttling")
def hbm_below_catalog(facts: Facts, predictions=None):
    """HBM device-copy bandwidth against the catalog's memory bandwidth."""
    return _catalog_floor(facts, "hbm_gbs", "hbm_gbs", HBM_FLOOR, "HBM copy bandwidth", "node.hbm_below_catalog")


@rule("node.gemm_below_catalog", "hardware_fault", "throttling")
def gemm_below_catalog(facts: Facts, predictions=None):
    """Dense bf16 GEMM rate against the catalog's dense bf16 TFLOP/s."""
    return _catalog_floor(facts, "gemm_tflops", "bf16_tflops", GEMM_FLOOR, "bf16 GEMM rate",
                          "node.gemm_below_catalog", dtype="bf16")


@rule("node.slow_driver", "nvlink_down", "other")
def slow_driver(facts: Facts, predictions=None):
    """NVML took longer than cold-starting every GPU should: the driver is (re)initialising
    something. Without persistence mode each client re-initialises the GPUs (ECC scrubbing, order
    of 1-3 s per GPU, NVIDIA's driver-persistence overview); with persistence known on, a stall
    over NVLinks points at links that keep failing to train."""
    stall = driver_stall(facts)
    if stall is None:
        return []
    seconds, budget, n = stall
    gpus = [g for g in facts.of(GpuFact) if g.index is not None]
    expected = ev(seconds, f"NVML inventory time (cold start of {n} GPU(s) at {COLD_INIT_PER_GPU_S:g} s each)",
                  seconds.value, budget, "s")
    pm_off = [g for g in gpus if g.persistence_mode is False]
    pm_on = gpus and all(g.persistence_mode for g in gpus)
    off_ev = ev(pm_off[0], f"GPU{pm_off[0].index} persistence mode", "off", "on") if pm_off else None
    took = f"The driver took {seconds.value:g} s to answer"
    longer = f"Longer than cold-starting {n} GPU(s) should take ({budget:g} s)"
    nvlinked = [t for t in facts.of(TopologyPath) if NVLINK_PATH.fullmatch(t.path)]
    links = facts.of(NvLinkFact)
    down = [link for link in links if not link.active]
    persistence_fix = ("Enable persistence (`sudo nvidia-smi -pm 1`, or run nvidia-persistenced) and time "
                       "`nvidia-smi` again; if it still takes longer, check `nvidia-smi nvlink -s` / `-e`.")
    if pm_off and not down:
        return [make("node.slow_driver", "other", "warning", 0.5, f"{took}, with persistence mode off",
                     f"{longer}. Persistence mode is off on {len(pm_off)} GPU(s), so every client (nvidia-smi, each "
                     "CUDA job) re-initialises them"
                     + (f", and all {len(links)} reported NVLinks are active." if links else "."),
                     [expected, off_ev], fix=persistence_fix, refs=["persistence"])]
    if nvlinked or down:
        link_ev = (ev(down[0], f"GPU{down[0].gpu} NVLink {down[0].link}", "inactive", "active") if down else
                   ev(nvlinked[0], f"{nvlinked[0].a}-{nvlinked[0].b} path", nvlinked[0].path))
        why = ("Persistence mode is on, so the GPUs were already initialised; " if pm_on else
               f"Persistence mode is off on {len(pm_off)} GPU(s) too (each client re-initialises them), but "
               f"{len(down)} NVLink(s) are inactive; " if pm_off else
               "Persistence mode was not reported (a GPU without it is re-initialised by every client, the other "
               "documented cause); ")
        # reported off: the evidence says so, as the branch above does
        link_ev = [link_ev, off_ev] if pm_off else [link_ev]
        return [make("node.slow_driver", "nvlink_down", "warning", 0.5 if pm_on or down else 0.4,
                     f"{took} on an NVLink-connected box",
                     f"{longer}. {why}a driver that stalls while NVLinks are present is the signature of a link "
                     "(or bridge) that keeps failing to train; "
                     "collectives over it hang or crawl even though topo -m still lists NV#.",
                     [expected, *link_ev],
                     fix="Check `nvidia-smi nvlink -s` and `nvidia-smi nvlink -e` for inactive links or errors and "
                         "reseat the bridge; `dmesg | grep -i nvlink` shows training failures."
                         + ("" if pm_on else " Enable persistence too (`sudo nvidia-smi -pm 1`)." if pm_off else
                            " Check `nvidia-smi -q | grep -i persistence` too."),
                     refs=["nvidia_smi", "persistence"])]
    if pm_on:  # already kept initialised: not a cold start, and enabling persistence again fixes nothing
        return [make("node.slow_driver", "other", "warning", 0.4, took,
                     f"{longer}, with persistence mode on, so the GPUs were not being initialised: the driver "
                     "itself stalled.",
                     [expected, ev(gpus[0], f"GPU{gpus[0].index} persistence mode", "on", "on")],
                     fix="Look for driver errors while it stalls (`dmesg | grep -iE 'NVRM|Xid'`) and time `nvidia-smi` "
                         "again.", refs=["persistence", "xid"])]
    return [make("node.slow_driver", "other", "warning", 0.4, took,
                 f"{longer}; a driver kept initialised (persistence mode) answers without re-initialising the GPUs.",
                 [expected], fix=persistence_fix, refs=["persistence"])]


@rule("node.numa_placement", "numa_affinity")
def numa_placement(facts: Facts, predictions=None):
    """GPUs attached to different CPU sockets: a serving process must be pinned next to its GPUs."""
    gpus = [g for g in facts.of(GpuFact) if g.index is not None]
    nodes: dict[Any, list[GpuFact]] = {}
    placed: dict[int, set] = {}
    for g in gpus:
        key = g.numa_node if g.numa_node is not None else g.cpu_affinity
        if key is not None:
            nodes.setdefault(key, []).append(g)
            placed.setdefault(g.index, set()).add(key)
    # (ut27f) one GPU index placed twice is two machines' outputs pasted together ("Faster Machine:" / "Slower one:"
    # topo -m, horovod/horovod#969), not one box whose GPUs hang off that many NUMA nodes
    if len(nodes) < 2 or any(len(keys) > 1 for keys in placed.values()):
        return []
    if claims.said_working(facts, "numa"):
        return []  # (ruledout34) an inventory line against the reporter's own binding or ruling-out of NUMA
    parts = [f"GPU{','.join(str(g.index) for g in members)} on "
             + (f"NUMA node {k}" if isinstance(k, int) else f"CPUs {k}") for k, members in nodes.items()]
    evidence = [ev(members[0], f"GPU{members[0].index} CPU affinity", members[0].cpu_affinity or f"NUMA {k}")
                for k, members in nodes.items()]
    return [make("node.numa_placement", "numa_affinity", "info", 0.6,
                 # NUMA nodes, not sockets: an EPYC in NPS4 mode has four per socket
                 f"The GPUs hang off {len(nodes)} NUMA nodes: {'; '.join(parts)}",
                 "Host-side work of each rank (scheduler, sampling, pinned copies, NCCL proxy threads) runs best "
                 "on the CPUs next to its GPU. Unpinned workers may run on a far NUMA node (or socket) and cross "
                 "the link between them.",
                 evidence,
                 fix="Pin each rank to its GPU's CPUs (numactl --cpunodebind=N --membind=N, or the CPU Affinity "
                     "column of nvidia-smi topo -m); keep TP groups within one socket where NVLink is absent.",
                 refs=["numa"])]


@rule("node.tp_groups", "pcie_fallback", "other")
def tp_groups(facts: Facts, predictions=None):
    """Which TP group sizes this box serves well, from the path matrix (and the sweep if run)."""
    gpus = sorted({g.index for g in facts.of(GpuFact) if g.index is not None})
    paths = gpu_links(facts)
    if len(gpus) < 2 or not paths:
        return []
    good, host_routed, unknown = [], [], []
    evidence = []
    for size in [s for s in (2, 4, 8, 16) if s <= len(gpus) and len(gpus) % s == 0]:
        groups = [gpus[i:i + size] for i in range(0, len(gpus), size)]
        kinds = set()
        for group in groups:
            for pair in itertools.combinations(group, 2):
                p = paths.get(pair)
                kinds.add("unknown" if p is None else "nvlink" if NVLINK_PATH.fullmatch(p.path) else p.path)
        if kinds == {"nvlink"}:
            good.append(size)
        elif "unknown" in kinds:
            unknown.append(size)
        else:
            host_routed.append(f"TP{size} ({'/'.join(sorted(kinds - {'nvlink'}))})")
        worst = max((paths[p] for g in groups for p in itertools.combinations(g, 2) if p in paths),
                    key=path_cost, default=None)  # the pair that bounds the group (SYS before NV#)
        if worst is not None:
            evidence.append(ev(worst, f"TP{size}: {worst.a}-{worst.b} path", worst.path))
        measured = [r for r in _probe_results(facts) if r.op == "all_reduce" and r.group and len(r.group) == size
                    and not r.graph]
        if measured:
            top = max(measured, key=lambda r: (r.size_bytes, -r.busbw_gbs))
            slowest = min((r for r in measured if r.size_bytes == top.size_bytes), key=lambda r: r.busbw_gbs)
            evidence.append(ev(slowest, f"TP{size}: slowest group's all_reduce busbw at {slowest.size_bytes} B",
                               round(slowest.busbw_gbs, 1), None, "GB/s"))
    if not good and not host_routed:  # no size's pairs all known (a matrix with its rows cut): nothing to say
        return []
    if good and not host_routed:
        return [passed("node.tp_groups", f"TP {', '.join(map(str, good))} run entirely over NVLink",
                       "Every GPU pair inside each TP group of these sizes is NVLink-connected"
                       + (f"; the paths of TP {', '.join(map(str, unknown))} are not all known." if unknown else "."),
                       evidence, confidence=0.8)]
    summary = ("Over NVLink: TP " + ", ".join(map(str, good)) + ". " if good else "No TP size stays on NVLink. ")
    summary += ("Through PCIe or the host: " + ", ".join(host_routed) + "; their all_reduces are bounded by PCIe "
                "and cost decode time at every layer." if host_routed else "")
    return [make("node.tp_groups", "other", "info", 0.6,
                 f"TP group sizes this box serves well: {', '.join(map(str, good)) or 'none over NVLink'}",
                 summary.strip(), evidence,
                 fix="Prefer the TP sizes that stay on NVLink; use pipeline or data parallelism across the rest.")]

