"""Rules about NCCL itself: which network it uses, GPUDirect RDMA, settings that force slow
paths, known version regressions, and measured bus bandwidth against what the links allow.

Bus bandwidth (busbw) is nccl-tests' link-comparable figure; algbw is not (for all-reduce
busbw = algbw x 2(n-1)/n). Only busbw is compared with link rates, and only at message sizes
large enough to measure bandwidth rather than latency.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

from diagnose.artifacts.nccl_tests import nccl_version_from_code
from diagnose.evidence import (
    CollectiveResult,
    Facts,
    GpuFact,
    Measurement,
    NcclEvent,
    NcclSetting,
    NcclTransport,
    NcclVersion,
    Note,
    P2PStatus,
    TopologyPath,
    Workload,
)
from rules import catalog, claims
from rules.claims import version_key
from rules.common import (
    claim_ev,
    ev,
    gpu_count,
    gpus_per_node,
    has_nvlink,
    host_copy_gbs,
    host_cpu,
    large_results,
    make,
    measurements,
    need,
    nic_ports,
    nic_rate_gbs,
    node_count,
    passed,
    settings,
)
from rules.engine import FAILURES, rule


def regressions() -> tuple[dict, ...]:
    return catalog.nccl_rows("regression")


def slow_settings() -> tuple[dict, ...]:
    return catalog.nccl_rows("setting")


def _multi_node(facts: Facts) -> tuple[bool | None, list]:
    nodes, evidence = node_count(facts)
    return (None if nodes is None else nodes > 1), evidence


# --------------------------------------------------------------------------- network transport


# NCCL's InfiniBand/RoCE network by the name on its 'via NET/<name>/...' lines: its own "IB", or the external IB plugin
# (nccl-rdma-sharp-plugins, shipped in HPC-X and NGC images) as "IBext", named with its API version in later releases
# ("P2P plugin IBext_v8", "via NET/IBext_v8/1": NVIDIA/nccl-tests#373, NVIDIA/nccl#1814). The line is NCCL's own
# (transport/net.cc), so "/GDRDMA" means the same on both.
_IB_NET = re.compile(r"IB(?:ext(?:_v\d+)?)?", re.I)


@rule("nccl.socket_fallback", "socket_fallback")
def socket_fallback(facts: Facts, predictions=None):
    """NCCL carries inter-node traffic over TCP sockets instead of InfiniBand/RoCE."""
    socket_events = [e for e in facts.of(NcclEvent) if e.kind == "using_socket"]
    socket_tx = [t for t in facts.of(NcclTransport) if t.transport == "NET" and (t.net or "").lower() == "socket"]
    ib_tx = [t for t in facts.of(NcclTransport) if t.transport == "NET" and _IB_NET.fullmatch(t.net or "")]
    ib_fail = [e for e in facts.of(NcclEvent) if e.kind in ("ib_unavailable", "net_init_failed")]
    forced = [s for s in settings(facts, "NCCL_IB_DISABLE") if s.value.strip() == "1"]
    forced += [s for s in settings(facts, "NCCL_NET") if s.value.strip().lower() == "socket"]
    if not (socket_events or socket_tx):
        if ib_tx:
            yield passed("nccl.socket_fallback", "NCCL uses InfiniBand/RoCE between nodes",
                         f"Inter-node connections go {ib_tx[0].detail}.",
                         [ev(ib_tx[0], "network transport", ib_tx[0].detail, "NET/IB")], 0.8)
        # (NCCL's own NET/IB lines, quoted, contradict the setting; on one node it moves nothing: the GPUs of one
        # node talk over P2P or shared memory, never the NIC)
        elif forced and not _ib_quoted_in_use(facts) and (multi := _multi_node(facts)[0]) is not False and not (
                _ethernet_only(facts) and not _rdma_hardware(facts)):
            # (s27: on nodes the reporter says are joined by Ethernet alone the setting turns off nothing: NCCL's
            # sockets are its only transport there, which ticket.tcp_only judges)
            # (nothing shows the job spans nodes: a setting pasted with a one-node launch, as vLLM's docker examples
            # for consumer boards carry it, is a lead at most)
            yield _socket_finding(facts, [ev(forced[0], f"{forced[0].name}={forced[0].value} keeps NCCL off InfiniBand",
                                             forced[0].value)], forced, set_off=True, nodes_known=bool(multi))
        return
    multi, _ = _multi_node(facts)
    if not socket_tx and not multi and (not forced or multi is False):
        return  # NCCL names its socket interface at every init; on one node it carries no GPU data
    first = (socket_tx or socket_events)[0]
    evidence = [ev(first, "NCCL network transport", "Socket", "IB (RDMA)")]
    evidence += [ev(e, e.message[:100]) for e in ib_fail[:2]]
    evidence += [ev(s, f"{s.name}={s.value}", s.value) for s in forced[:1]]
    # (ut28c) NCCL's own "Failed to open libibverbs.so[.1]" (src/misc/ibvwrap.cc dlopens the verbs library): the image
    # lacks the library, not the device (sgl-project/sglang#1427: adding it to the image fixed multi-node runs)
    no_verbs = any(re.search(r"Failed to open libibverbs", e.message or "") for e in ib_fail)
    yield _socket_finding(facts, evidence, forced, rdma_expected=bool(ib_fail) or _rdma_hardware(facts),
                          set_off=bool(forced) and not ib_fail, nodes_known=bool(multi or socket_tx or not forced),
                          no_verbs=no_verbs)


def _ethernet_only(facts: Facts) -> bool:
    """Does the reporter say the nodes are joined by Ethernet / TCP alone, no RDMA fabric (claims tcp_only)?"""
    return any(not c.guess for c in claims.find(facts, "tcp_only"))


def _ib_quoted_in_use(facts: Facts) -> bool:
    """Does the reporter quote NCCL's log using InfiniBand ("NET/IB : Using [0]mlx5_0:1/IB", "via NET/IB/0/GDRDMA")?"""
    return any(not c.guess for c in claims.find(facts, "gdr_on")) or claims.nccl_ib_quoted(
        facts, opened=True)


def _rdma_hardware(facts: Facts) -> bool:
    if facts.host("ib_devices") or facts.host("ib_active_ports"):
        return True
    return any(t.b.startswith(("mlx", "NIC")) for t in facts.of(TopologyPath)) or any(
        re.search(r"infiniband|\bIB\b|RoCE|mlx5|HDR|NDR|EDR", text, re.I) for _, text in claims.texts(facts))


def _socket_finding(facts, evidence, forced, rdma_expected=True, set_off=False, nodes_known=True, no_verbs=False):
    """The finding; `set_off`: the setting alone keeps NCCL off the RDMA network (no failed IB init is shown), so
    that is the reason given, not a device NCCL could not open; `nodes_known` False: nothing shows the job spans
    nodes, and on one node the setting moves nothing."""
    if not nodes_known:
        return make(
            "nccl.socket_fallback", "socket_fallback", "info", 0.3,
            f"{forced[0].name}={forced[0].value} would keep NCCL off InfiniBand/RoCE between nodes",
            "The setting matters only across nodes: the GPUs of one node talk over P2P or shared memory. Nothing in "
            "the ticket shows this job spans nodes.",
            evidence, fix=f"If the job spans nodes, unset {forced[0].name} and check that the NCCL_DEBUG=INFO log "
            "shows 'NET/IB'; on one node it can stay.", refs=["nccl_env"])
    container = facts.host("container") or next(iter(claims.find(facts, "container")), None)
    fix = ("Unset " + forced[0].name + ". " if forced else "") + (
        "Install the verbs library where NCCL runs (in the image: libibverbs1 and ibverbs-providers, or rdma-core; "
        "the -dev package adds the unversioned libibverbs.so). " if no_verbs else "") + (
        "Make the RDMA devices usable where NCCL runs: load the IB/RoCE drivers, and in containers pass "
        "--device=/dev/infiniband (or --privileged), --cap-add=IPC_LOCK, --ulimit memlock=-1 and --network=host. "
        "`ibv_devinfo` inside the container must list the HCA; then the NCCL_DEBUG=INFO log shows 'NET/IB'."
    )
    if container:
        evidence = evidence + [ev(container.source, "the job runs in a container", True)]
    return make(
        "nccl.socket_fallback", "socket_fallback", "critical" if rdma_expected else "warning",
        0.9 if rdma_expected else 0.65,
        "NCCL falls back to TCP sockets instead of InfiniBand/RoCE",
        "NCCL could not use the RDMA network and moves inter-node data over TCP sockets, which gives a "
        "small fraction of the NIC's bandwidth and much higher latency. "
        + (f"{forced[0].name}={forced[0].value} tells NCCL not to use it; whatever made it necessary (an RDMA "
           "init error) is what to fix." if set_off else
           "NCCL could not load the verbs library (libibverbs) where it runs, so it never reached the RDMA device: "
           "the image or host lacks it." if no_verbs else
           "The RDMA device exists but NCCL could not open it (missing device files, permissions or "
           "drivers where NCCL runs)." if rdma_expected else "No RDMA device was found where NCCL runs."),
        evidence, fix=fix, refs=["nccl_env", "nccl_trouble"],
    )


@rule("nccl.gdr", "gdr_disabled")
def gdr(facts: Facts, predictions=None):
    """GPUDirect RDMA: the NIC reads/writes GPU memory directly, or data bounces through the host."""
    nets = [t for t in facts.of(NcclTransport) if t.transport == "NET" and _IB_NET.fullmatch(t.net or "")]
    forced = [s for s in settings(facts, "NCCL_NET_GDR_LEVEL") if s.value.strip().upper() in ("LOC", "0")]
    refused = [e for e in facts.of(NcclEvent) if e.kind == "gdr" and e.data.get("enabled") is False]
    if refused and not any(t.gdr for t in nets):
        e = refused[0]
        yield make("nccl.gdr", "gdr_disabled", "critical", 0.85, "NCCL reports GPUDirect RDMA disabled",
                   "NCCL found the HCA but could not enable GPUDirect RDMA on it"
                   + (f" ({e.data['reason']})" if e.data.get("reason") else "")
                   + ", so every inter-node message is staged through host memory.",
                   [ev(e, "NCCL's GPUDirect RDMA check", "Disabled", "Enabled")]
                   + [ev(s, f"{s.name}={s.value}", s.value) for s in forced[:1]],
                   fix="Load the peer-memory module (`modprobe nvidia_peermem`; nv_peer_mem on old drivers) on every "
                   "node, or use a DMA-BUF capable driver and kernel; "
                   "then look for 'GDRDMA' on the 'via NET/IB' lines.",
                   refs=["gdr", "nccl_env"])
        return
    if not nets:
        multi, node_ev = _multi_node(facts)
        quoted = next((c for c in claims.find(facts, "gdr_on") if not c.guess), None)
        if multi and quoted:
            yield passed("nccl.gdr", "The reporter quotes GPUDirect RDMA on NCCL's network path",
                         "NCCL's 'via NET/IB/.../GDRDMA' lines, as the reporter quotes them, show the NIC reading GPU "
                         "memory directly.", [claim_ev(quoted, "GDRDMA on the network path")], 0.5)
        elif multi and not [t for t in facts.of(NcclTransport) if t.transport == "NET"] and not [
                e for e in facts.of(NcclEvent) if e.kind == "using_socket"] and not [
                c for c in claims.find(facts, "tcp_only") if not c.guess] and not any(
                c.data["error"].before_traffic for c in claims.known_errors(facts)) and not claims.other_vendor(facts):
            # (ut28c: "two Mac computers", exo-explore/exo#141: no NCCL runs between them, so its log is no ask)
            # (the reporter's "no RDMA, plain Ethernet" says the path: TCP sockets; ticket.tcp_only judges it; an
            # error the catalog marks as a refusal before any GPU talks to another, such as a topology file NCCL
            # rejects at init, leaves the path moot: workload.evidence_coverage asks for no topology beside it either)
            yield need("nccl.gdr", "Which network path NCCL uses between nodes is not known",
                       "The job spans nodes, but nothing shows whether NCCL uses InfiniBand with GPUDirect RDMA, "
                       "InfiniBand through host memory, or TCP sockets; each is a different fix.",
                       "the NCCL_DEBUG=INFO output (NCCL_DEBUG_SUBSYS=INIT,NET) of one multi-node all_reduce_perf run, "
                       "whose 'via NET/IB/.../GDRDMA' lines show the path, and "
                       "`lsmod | grep -E 'nvidia_peermem|nv_peer_mem'` from every node", node_ev)
        return
    with_gdr = [t for t in nets if t.gdr]
    without = [t for t in nets if not t.gdr]
    if not without:
        yield passed("nccl.gdr", "GPUDirect RDMA is in use on every network connection",
                     f"All {len(nets)} NET/IB connections in the log carry GDRDMA.",
                     [ev(with_gdr[0], "network transport", with_gdr[0].detail, "GDRDMA")], 0.8)
        return
    near = [t for t in facts.of(TopologyPath) if t.b.startswith(("mlx", "NIC")) and t.path in ("PIX", "PXB")]
    evidence = [ev(without[0], "connection without GDRDMA", without[0].detail, "NET/IB/<dev>/GDRDMA")]
    if with_gdr:
        evidence.append(ev(with_gdr[0], "other connections do use GDRDMA", with_gdr[0].detail))
        title = "GPUDirect RDMA is off on some ranks/nodes"
        summary = (f"{len(without)} of {len(nets)} InfiniBand connections run without GDRDMA while the others use it: "
                   "on those nodes the NIC cannot access GPU memory, so every message is copied through host "
                   "memory. The usual cause is the peer-memory kernel module (nvidia_peermem / nv_peer_mem) not "
                   "loaded on those nodes.")
        confidence, severity = 0.85, "critical"
    else:
        title = "GPUDirect RDMA is not used"
        summary = ("No InfiniBand connection in the log uses GDRDMA, so inter-node data is staged through host "
                   "memory. "
                   + ("The NICs sit on the same PCIe switch as GPUs, where GDR matters most." if near else ""))
        confidence, severity = (0.75 if near else 0.6), ("critical" if near else "warning")
        if near:
            evidence.append(ev(near[0], f"{near[0].a}<->{near[0].b} path", near[0].path, "PIX/PXB: GDR expected"))
        failed = next((e for e in facts.of(NcclEvent) if e.kind == "ib_transfer_error"), None)
        if failed and not near:
            # (ut26b) the transfers themselves fail (pytorch/pytorch#81628: status 12 on RoCE, cured by the GID index):
            # a job that never ran has no GDR question yet, and with the NIC not shown near the GPU NCCL staging
            # through the host is its own choice ("The one case where GPU Direct RDMA is needed is when the NIC and
            # GPU are on the same PCI switch", https://github.com/NVIDIA/nccl/issues/465)
            summary += ("The RDMA transfers themselves fail in this log, and no topology shows the NIC on a PCIe "
                        "switch with the GPU, where NCCL would use GDR: judge this once the transfers run.")
            confidence, severity = 0.3, "info"
            evidence.append(ev(failed, "NCCL's RDMA transfers fail", failed.message[:80]))
    evidence += [ev(s, f"{s.name}={s.value}", s.value) for s in forced[:1]]
    yield make("nccl.gdr", "gdr_disabled", severity, confidence, title, summary, evidence,
               fix="Load the peer-memory module on every node (`modprobe nvidia_peermem`, or nv_peer_mem on old "
               "drivers) and check with `lsmod` on each node, not just one; unset NCCL_NET_GDR_LEVEL if set; "
               "re-run and look for 'GDRDMA' on every 'via NET/IB' line.",
               refs=["gdr", "nccl_env"])


# --------------------------------------------------------------------------- settings and versions


@rule("nccl.slow_settings", *catalog.SETTING_CATEGORIES)
def slow_settings_rule(facts: Facts, predictions=None):
    """NCCL_* variables that force a slow path (catalog/nccl_settings.toml)."""
    for row in slow_settings():
        for s in settings(facts, row["name"]):
            value = s.value.strip()
            if "values" in row:
                hit = value.lower() in {v.lower() for v in row["values"]}
            else:
                try:
                    hit = float(value) < row["below"]
                except ValueError:
                    hit = False
            if not hit:
                continue
            if "symptoms" in row:  # (a bundle without the reporter's words, or a title alone, says no symptom)
                said = claims.symptom_quote(facts)
                if said and said[2] not in row["symptoms"]:
                    continue
            if _asked_beside_speed(facts):
                # the reporter asks how NCCL behaves with the setting (they chose it to see), not about a speed
                yield make("nccl.slow_settings", "other", "info", 0.5,
                           row.get("title", f"{s.name}={value} forces a slower NCCL path"),
                           row["why"] + " The ticket asks about no speed and shows no figure, so this is context, "
                           "not the answer.",
                           [ev(s, f"{s.name} set", value, "unset" if "values" in row else f">= {row['below']:g}")],
                           fix=row["fix"], refs=["nccl_env"])
                break
            yield make("nccl.slow_settings", row["category"], row["severity"],
                       0.7 if row["severity"] == "warning" else 0.5,
                       row.get("title", f"{s.name}={value} forces a slower NCCL path"), row["why"],
                       [ev(s, f"{s.name} set", value, "unset" if "values" in row else f">= {row['below']:g}")],
                       fix=row["fix"], refs=["nccl_env"])
            break


def _asked_beside_speed(facts: Facts) -> bool:
    """(issue 11, ut16h) Does the reporter describe a behaviour that is neither a failure nor a speed (claims' symptom
    "other": "NCCL uses all NVLinks despite NCCL_MAX_NCHANNELS=1"), with no figure measured or complained of? A setting
    that only costs bandwidth then answers nothing asked. Without the reporter's words (a node run, a bundle of logs)
    the settings keep their weight."""
    said = claims.symptom_quote(facts)
    if not said or said[2] != "other" or claims.complaint(facts):
        return False
    return not (facts.of(CollectiveResult) or facts.of(Measurement) or claims.bandwidth_figures(facts))


def _in_range(version: str, spec: str) -> bool:
    v = version_key(version)
    for part in spec.split(","):
        m = re.match(r"\s*(>=|<=|<|>|==)\s*([\d.]+)", part)
        if not m:
            continue
        bound = version_key(m.group(2))
        n = max(len(v), len(bound))
        a, b = v + (0,) * (n - len(v)), bound + (0,) * (n - len(bound))
        ok = {">=": a >= b, "<=": a <= b, "<": a < b, ">": a > b, "==": a == b}[m.group(1)]
        if not ok:
            return False
    return True


def _workaround_on(facts: Facts, row: dict) -> bool:
    """A known regression's own workaround (a NAME=VALUE its fix names) already set: it cannot be what the
    reporter sees."""
    on = {(s.name, s.value.strip().lower()) for s in facts.of(NcclSetting)}
    named = re.findall(r"\b(NCCL_[A-Z0-9_]+)=(\w+)", row.get("fix", ""))
    return any((name, value.lower()) in on for name, value in named)


def _scope_holds(facts: Facts, row: dict) -> bool:
    if _workaround_on(facts, row):
        return False
    multi, _ = _multi_node(facts)
    scope = row.get("scope", "any")
    if scope == "inter-node" and multi is False:
        return False
    if scope == "intra-node" and multi:
        return False
    needs = row.get("needs", [])
    if "pcie_only" in needs and has_nvlink(facts):
        return False
    if "nic_near_gpu" in needs and not any(
            t.b.startswith(("mlx", "NIC")) and t.path in ("PIX", "PXB") for t in facts.of(TopologyPath)):
        return False
    return True


@rule("nccl.regression", "nccl_regression", "other", "expected_physics")
def regression(facts: Facts, predictions=None):
    """Performance that changed with nothing but the NCCL version, and known regressions."""
    compared = claims.find(facts, "nccl_versions_compared")
    versions = facts.printed_nccl_versions()
    running = _newest_printed(facts) or (None if compared else _from_tag(facts))
    named = sorted({v for c in compared for v in c.data["versions"]}, key=version_key)
    newest = running.version if running else (named[-1] if named else None)
    known = [r for r in regressions() if not r.get("shows") and newest and _in_range(newest, r["bad"])
             and _scope_holds(facts, r)]  # (rows known by their symptom: rules/known_regressions.py)
    if compared and _heard_not_seen(compared[0]):
        return
    if compared:
        c = compared[0]
        ratio = claims.stated_release_ratio(c.quote)
        if ratio is not None and ratio < claims.RELEASES_DIFFER and not claims.failure_ab(c.quote):
            yield _within_noise(c, ratio, named)
            return
        evidence = [claim_ev(c, "the reporter compares NCCL versions on the same setup")]
        evidence += [ev(v, "NCCL version in use", v.version) for v in versions[:1]]
        for r in known[:1]:
            evidence.append(ev(f"rules/catalog/nccl_regressions.toml:{r['id']}", r["symptom"], newest, r["bad"]))
        older = named[0] if named else "the older version"
        yield make(
            "nccl.regression", "nccl_regression", "warning", 0.75 if known else 0.6,
            f"Performance changed with the NCCL version alone ({older} -> {newest})",
            "The same hardware and test give different bandwidth under different NCCL versions, which points "
            "at a change in NCCL's defaults (algorithm, protocol, PXN, GDR read) rather than at the hardware. "
            + (f"This matches a known regression: {known[0]['symptom']}." if known else ""),
            evidence,
            fix=(known[0]["fix"] if known else f"Pin NCCL {older} as a workaround; run all_reduce_perf with "
                 "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING on both versions and diff the chosen algorithm, "
                 "protocol and channels; report it upstream with both logs."),
            refs=[known[0]["url"] if known else "nccl_releases", "nccl_env"],
        )
    elif known:
        r = known[0]
        yield make("nccl.regression", "other", "info", 0.3,
                   f"NCCL {newest} is in a range with a known regression",
                   f"If the symptom matches — {r['symptom']} — this version may be the cause.",
                   [ev(running, in_use_detail(running), newest, r["bad"])], fix=r["fix"], refs=[r["url"]])


def _newest_printed(facts: Facts) -> NcclVersion | None:
    """The newest NCCL release a log or tool printed (the first of equal ones), or None."""
    return max(facts.printed_nccl_versions(), key=lambda v: version_key(v.version),
               default=None)


def _from_tag(facts: Facts) -> NcclVersion | None:
    """The NCCL release a named NGC container ships (diagnose/pipeline.py derive_container_versions), or None."""
    return next((v for v in facts.of(NcclVersion) if v.derived_from), None)


def in_use_detail(v: NcclVersion) -> str:
    """What an NCCL version's evidence line says: printed by a tool, or looked up from a container tag."""
    # a wheel's label ("torch 2.4.0", "vLLM 0.6.3 -> torch 2.4.0"), not words that name NGC's ("pytorch NGC 24.05")
    if v.derived_from and (v.derived_from.startswith("torch ") or " -> torch " in v.derived_from):
        return f"NCCL release the PyTorch wheel of {v.derived_from} depends on (rules/catalog/torch_nccl.toml)"
    if v.derived_from:
        return f"NCCL version NVIDIA's release notes list for {v.derived_from} (rules/catalog/ngc_containers.toml)"
    return "NCCL version in use"


# A release comparison asked about on someone else's word ("someone on a forum said so", "I read that ...") or
# beside the reporter's own "our throughput seems fine": another system's regression, not one seen here.
_HEARSAY = re.compile(r"\b(?:someone|somebody|a (?:forum|post|blog|thread|colleague|friend)|"
                      r"I (?:read|heard|saw (?:a|on))|reportedly|rumou?r)\b", re.I)
_OURS_FINE = re.compile(r"\b(?:our|my|mine|ours)\b[^.\n?]{0,40}?\b(?:seems?|looks?|is|are)\s+(?:\w+\s+)?"
                        r"(?:fine|ok|okay|normal|good)\b", re.I)


# A change the reporter measured, in a statement: "our busbw dropped from 190 GB/s to 95 GB/s".
_UNIT = r"(?:GB/s|Gb/s|tok(?:ens)?/s|ms|us|µs)"
_FIGURES_FROM_TO = re.compile(r"\bfrom\s+~?\d+(?:\.\d+)?\s*" + _UNIT + r"?\s+to\s+~?\d+(?:\.\d+)?\s*" + _UNIT + r"\b",
                              re.I)


def _heard_not_seen(c) -> bool:
    """Is a release comparison only asked about, on hearsay or with the reporter's own system said fine? Never
    where the reporter gives figures of their own: a question beside them ("for others too?") asks for company."""
    said = claims.sentences(c.quote)
    if claims.version_figures(c.quote) or any(_FIGURES_FROM_TO.search(s) and not claims.asked(s)
                                              and not _HEARSAY.search(s) for s in said):
        return False
    asked = any(claims.asked(s) and any(v in s for v in c.data.get("versions", [])) for s in said)
    return asked and bool(_HEARSAY.search(c.quote) or _OURS_FINE.search(c.quote))


def _within_noise(c, ratio: float, named: list[str]):
    """Two NCCL releases said to differ by less than claims.RELEASES_DIFFER: within what one system measured twice
    and a release's retuning (algorithm, protocol, channel count per size) move, so a lead, not a regression."""
    pair = " and ".join(named[:2]) or "the two versions"
    return make("nccl.regression", "expected_physics", "info", 0.4,
                f"NCCL {pair} differ by about {round((ratio - 1) * 100)} %: within run-to-run and tuning variation, "
                "no regression",
                "A difference this size between releases is what the same system shows across runs and what a "
                "release's retuning of algorithms and protocols per message size moves; it is no sign of a "
                "regression by itself. What matters is the large-message bus bandwidth against the fabric's "
                "ceiling, and whether the application's step time moves at all.",
                [claim_ev(c, "the reporter compares NCCL versions"),
                 ev("rules/claims.py", "releases count as different past this ratio", round(ratio, 2),
                    claims.RELEASES_DIFFER)],
                fix="Run all_reduce_perf -b 8 -e 8G -f 2 a few times on each version and compare the large-message "
                "busbw rows; pin the older version only if the gap stays above 20 % or the application slows down.",
                refs=["nccl_releases"])


# --------------------------------------------------------------------------- measured bandwidth


def busbw_from_algbw(facts: Facts):
    """(busbw, record, ranks, evidence) from an all-reduce algbw the reporter gives: algbw counts the
    data once, busbw the traffic each link carries (x 2(n-1)/n for all-reduce), so only busbw compares
    with a link. The rank count comes from the ticket, else the GPU's NVLink domain (8 on an HGX board)."""
    algbw = [m for m in measurements(facts, "algbw_gbs") if (not m.size_bytes or m.size_bytes >= 64 << 20)
             and m.op is None]  # another collective's algbw has its own factor (nccl-tests doc/PERFORMANCE.md)
    if not algbw:
        return None
    m = max(algbw, key=lambda x: x.value)
    n = m.gpus or gpu_count(facts)
    if not n:
        spec = facts.subject.gpu
        n = spec.nvlink_domain if spec is not None and spec.nvlink_domain > 1 else None
    if not n or n < 2:
        return None
    busbw = m.value * 2 * (n - 1) / n
    return busbw, m, n, ev(m, f"all-reduce algbw {m.value:g} GB/s is busbw {busbw:.0f} GB/s at {n} GPUs "
                             f"(busbw = algbw x 2(n-1)/n: the figure to compare with a link)",
                             round(busbw, 1), unit="GB/s")


# A large all-reduce's busbw against the typical nccl-tests figure of the fabric its ring runs on
# (catalog achieved_gbs): from 80 % it matches; below, it is under the typical figure but nothing
# shows broken; under half something forces a slower path (warning); under a quarter the data
# cannot be on that fabric at all (critical). The same figures give the same finding whether they
# come from a pasted nccl-tests table, the node probe, a replayed report or the reporter's words.
BUSBW_MATCH = 0.8
BUSBW_FLOOR = 0.5
BUSBW_BROKEN = 0.25
LINE_SLACK = 1.05  # within 5 % of a rate is that rate (rounding, the figure read off a chart)


def busbw_ceiling(line: float, n: int, nvls: bool, part_nvlink: bool = False) -> tuple[float, str]:
    """(highest busbw any all-reduce over n GPUs can show on a fabric of `line` GB/s per direction, why).
    A ring sends and receives 2(n-1)/n of the data per GPU over its links, so its busbw tops out at the
    line rate; with NVLS the switch reduces, each GPU sends its data once and reads the result once,
    so algbw tops out at the line rate and busbw at line x 2(n-1)/n (nccl-tests PERFORMANCE.md). A ring
    whose PCIe hops join NVLink-bridged pairs uses each GPU's PCIe link one way only, so rings in
    opposite directions may fill both: twice the line rate, the bound that never calls a real figure
    impossible."""
    if nvls and n > 1:
        top = line * 2 * (n - 1) / n
        return top, (f"busbw ceiling with NVLS: line rate {line:g} GB/s x 2(n-1)/n at {n} GPUs "
                     "(the switch reduces: each GPU sends its data and reads the sum once)")
    if part_nvlink:
        return 2 * line, (f"busbw ceiling of rings over NVLink pairs joined by PCIe: 2 x the line rate {line:g} "
                          "GB/s (each GPU's PCIe link carries one ring direction each way)")
    return line, f"busbw ceiling of a ring: the line rate {line:g} GB/s per direction (no in-network reduction)"


def without_p2p(facts: Facts, rule_id: str, value: float, gpu, gpu_src, what, pcie, origin: list | None = None):
    """The finding for an all-reduce busbw on a board whose stock driver refuses PCIe peer-to-peer (catalog
    `pcie_p2p = false`, GeForce): NCCL stages every chunk through host memory (SHM,
    https://github.com/NVIDIA/nccl/issues/1639), so the figure to judge by is the SHM path's (rules.collectives
    .shm_busbw_gbs, the predictor's own): physics from BUSBW_FLOOR of it (as on any path) up to the P2P figure. The
    host's own figures price it where the ticket gives them: its copy between GPUs without peer access as measured
    (host_copy_gbs), else its CPU's PCIe generation (host_cpu). None outside (faster than PCIe, or slower than staging
    explains)."""
    from rules.collectives import shm_basis, shm_busbw_gbs

    cpu, copy = host_cpu(facts), host_copy_gbs(facts)
    host = dict(host_cpu=cpu[0] if cpu else "", copy_gbs=copy[0] if copy else 0.0)
    shm = shm_busbw_gbs(pcie, **host)
    stated = [e for e in (copy, cpu) if e]
    if not BUSBW_FLOOR * shm <= value <= 1.2 * pcie.achieved_gbs:
        return None
    return make(rule_id, "expected_physics", "info", 0.55,
                f"{value:g} GB/s busbw is what {gpu.name} boards reach without peer-to-peer",
                f"The stock driver does not give {gpu.name} PCIe peer-to-peer, so NCCL copies every chunk through host "
                f"memory (SHM): each transfer crosses PCIe twice and the CPU's memory bandwidth is shared by all GPUs. "
                f"A healthy SHM path moves about {shm:.3g} GB/s busbw on "
                f"{'this host' if stated else 'a host nothing is said of'} ({shm_basis(pcie, **host)}; "
                f"fitted to nccl-tests tables without P2P); {value:g} GB/s is {value / shm:.0%} of it, not under half "
                f"({BUSBW_FLOOR * shm:.1f} GB/s), and at most the {pcie.achieved_gbs:g} GB/s a {pcie.name} path gives "
                "with peer-to-peer; more GPUs share the same host memory, so the figure falls as GPUs are added.",
                [what] + (origin or []) + [ev(gpu_src or "catalog", "GPU without PCIe P2P (catalog pcie_p2p = false): "
                                              "NCCL stages through host memory (SHM)", gpu.key)]
                + [e for _, e in stated],
                fix="Expected on these boards; NVLink-capable or datacenter GPUs (PCIe P2P) or fewer GPUs per "
                    "all-reduce raise it. Check the CPU memory channels are all populated.",
                refs=["https://github.com/NVIDIA/nccl/issues/1639"])


def _part_nvlink(spec, members, links: dict) -> bool:
    """Whether some pair of the group may talk over NVLink: the topology says so where it covers the
    group, else any GPU with NVLink links may be bridged."""
    pairs = list(itertools.combinations(list(members), 2))
    if pairs and all(p in links for p in pairs):
        return any(links[p].path.upper().startswith("NV") for p in pairs)
    return bool(spec.nvlink_gbs)


def _system_of(facts: Facts, source: str) -> tuple[str, object] | None:
    """(label, catalog spec or None when unknown) of the GPU named over the pasted block a record came
    from ("A100 SXM4" above a second results table), when the ticket compares systems (issue_md's
    system_label notes); None for the ticket's own system."""
    file, _, line = source.rpartition(":")
    if not line.isdigit():
        return None
    for n in facts.of(Note):
        if n.kind == "system_label" and n.source.rpartition(":")[0] == file:
            if n.data["first"] <= int(line) <= n.data["last"]:
                from rules.catalog import resolve_gpu

                own, named = facts.subject.gpu, resolve_gpu(n.data["gpu"])
                same = own is not None and named is not None and named.key == own.key
                return None if same else (n.data["gpu"], named)
    return None


# nccl-tests doc/PERFORMANCE.md ("Bus bandwidth"): busbw is normalised so that it compares with the hardware's peak
# for all_reduce (algbw x 2(n-1)/n), reduce_scatter and all_gather (x (n-1)/n), broadcast and reduce (x 1) alike, so
# each is judged by the typical figure of the fabric its ring runs on. alltoall (x (n-1)/n) and sendrecv (x 1, one
# peer one way) are not ring collectives: no typical figure is documented for them (collectives-reference.md has one
# sendrecv row, 8x A100 195 GB/s of 300; "individual send/recv might not achieve peak bandwidth", NVIDIA/nccl#464, and
# 2x H100 plateau at 180 of 450 GB/s, nccl-tests#268; "Alltoall cannot aggregate the bandwidth of multiple NICs",
# nccl-tests#267, ~25 against ~200 GB/s for the other collectives across two DGX A100, nccl-tests#59), so only a
# figure above their links' line rate is judged.
RING_OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce")
LINK_OPS = ("alltoall", "sendrecv")
_FACTOR_WORDS = {"all_gather": "(n-1)/n", "reduce_scatter": "(n-1)/n", "broadcast": "1", "reduce": "1",
                 "alltoall": "(n-1)/n", "sendrecv": "1"}
OP_WORDS = {"all_reduce": "all-reduce", "all_gather": "all-gather", "reduce_scatter": "reduce-scatter",
            "broadcast": "broadcast", "reduce": "reduce", "alltoall": "all-to-all", "sendrecv": "send/receive"}


def _op_of(rec) -> str:
    """The collective a figure measured: a table row's own op, the one a typed figure's line names; else
    all-reduce's."""
    return getattr(rec, "op", None) or "all_reduce"


def _busbw_groups(facts: Facts) -> list[tuple[float, object, int | None, list[int] | None, tuple | None]]:
    """(best busbw, its record, ranks, GPU indices, compared system from _system_of) of each group and collective
    (RING_OPS, LINK_OPS) a large message was measured on; figures pasted under another system's name stay that
    system's, and one collective's figures are never another's."""
    best: dict = {}
    for r in large_results(facts):
        if r.op in RING_OPS + LINK_OPS and "gloo" not in r.tool:  # gloo runs CPU processes: no GPU link carries it
            system = _system_of(facts, r.source)
            key = (tuple(r.group) if r.group else r.nranks, system and system[0], r.op)
            if key not in best or r.busbw_gbs > best[key][0]:
                best[key] = (r.busbw_gbs, r, r.nranks or (len(r.group) if r.group else None), r.group, system)
    for m in measurements(facts, "busbw_gbs"):
        key = (m.gpus, None, _op_of(m))
        if (not m.size_bytes or m.size_bytes >= 64 << 20) and (key not in best or m.value > best[key][0]):
            best[key] = (m.value, m, m.gpus, None, None)
    return list(best.values())


def _ring_fabric(facts: Facts, spec, n: int, group: list[int] | None, links: dict):
    """(interconnect, evidence) of the fabric the group's all-reduce ring runs on, read from the
    topology matrix (`links`, topology.gpu_links) when it covers the group (GPUs 0..n-1 when the group
    is not named, as nccl-tests picks them); None when the topology does not say."""
    from rules import roofline
    from rules.catalog import interconnect, interconnects
    from rules.topology import nvlink_ring

    members = list(group or range(n))
    pairs = list(itertools.combinations(members, 2))
    if not pairs or any(p not in links for p in pairs):
        return None
    nv = nvlink_ring(members, links)
    if nv:
        ic, _ = roofline.tp_fabric(spec, n, n)
        if ic.kind not in ("nvlink", "nvswitch"):
            return None
        # a ring over fewer links than an SXM GPU has (a bridged card's catalog figure is its bridge's already)
        if spec.nvlink_links and nv < spec.nvlink_links and not spec.nvlink_bridged:
            share = nv / spec.nvlink_links
            ic = replace(ic, bandwidth_gbs=ic.bandwidth_gbs * share, achieved_gbs=ic.achieved_gbs * share,
                         name=f"{ic.name} over NV{nv}")
        first = links[pairs[0]]
        return ic, [ev(first, f"GPU{pairs[0][0]}<->GPU{pairs[0][1]} path (every ring hop NV{nv} or more)", first.path)]
    hop = next(links[p] for p in pairs if not links[p].path.upper().startswith("NV"))
    evidence = [ev(hop, f"{hop.a}<->{hop.b} path: every ring over GPUs {','.join(map(str, members))} crosses "
                        "a PCIe or host hop", hop.path)]
    ic = interconnect(spec.pcie_interconnect)
    # the slots' own link, as NVML reads it: a Gen4 x8 slot carries half of what the card's x16 would
    gpus = [g for g in facts.of(GpuFact) if g.index in members]
    gens = [g.pcie_gen_max for g in gpus if g.pcie_gen_max]
    lanes = min([g.pcie_width_max for g in gpus if g.pcie_width_max] or [16])
    if gens and f"pcie{min(gens)}" in interconnects():
        ic = interconnect(f"pcie{min(gens)}")
        if lanes < 16:
            ic = replace(ic, bandwidth_gbs=ic.bandwidth_gbs * lanes / 16, achieved_gbs=ic.achieved_gbs * lanes / 16,
                         name=f"{ic.name} x{lanes}")
        evidence.append(ev(gpus[0], "PCIe link of the slowest GPU (max gen, width)", f"Gen{min(gens)} x{lanes}"))
    return ic, evidence


def _busbw_cause(facts: Facts, value: float, ic, group: list[int] | None) -> tuple[str, str]:
    """The likely reason an all-reduce runs under half of its fabric's figure, from what else is known."""
    from rules.topology import p2p_off_settings

    for s in p2p_off_settings(facts):
        return "shm_fallback", f"{s.name}={s.value} in the environment switches P2P off, so NCCL goes through SHM"
    bad = [p for p in facts.of(P2PStatus) if p.capability == "read" and not p.ok
           and (group is None or (p.a in group and p.b in group))]
    if bad:
        return "p2p_disabled", f"NVML reports no P2P read between GPU{bad[0].a} and GPU{bad[0].b} ({bad[0].status})"
    spec = facts.subject.gpu
    if ic.kind in ("nvlink", "nvswitch"):
        from rules.topology import pcie_gbs

        if spec is None or value <= pcie_gbs(spec):
            return "pcie_fallback", "no more than PCIe carries: the traffic is not on NVLink (SHM or host-routed PCIe)"
        return "other", ("more than PCIe could carry, so NVLink is in use, but at under half its rate: links down, "
                         "too few channels, or a setting (NCCL_ALGO, NCCL_PROTO, NCCL_MAX_NCHANNELS)")
    numa = {g.numa_node for g in facts.of(GpuFact)
            if (group is None or g.index in group) and g.numa_node is not None}
    if len(numa) > 1:
        return "numa_affinity", "the group spans CPU sockets, so PCIe traffic crosses the inter-socket link"
    return "pcie_fallback", "traffic is not taking the direct GPU-to-GPU path (SHM or host-routed PCIe)"


# NCCL's words for an inter-node transport on RDMA (net_ib.cc: "NET/IB : Using [0]mlx5_0:1/IB", "Using network IB",
# channel lines "via NET/IB/0"), with or without GPUDirect RDMA.
def _network_cause(facts: Facts) -> tuple[str, str]:
    """Why an inter-node all-reduce runs under half the NICs' figure, where no parsed log tells: with NCCL seen on
    IB, GPUDirect RDMA off (the NIC stages GPU data through host memory); else NCCL on TCP sockets, the usual
    reason for a fraction of an RDMA NIC's rate."""
    if claims.nccl_ib_quoted(facts):
        return "gdr_disabled", ("NCCL is on InfiniBand/RoCE, so the NIC-to-GPU path is the suspect: GPUDirect RDMA "
                                "off (nvidia-peermem or DMA-BUF missing, ACS on) stages every transfer through host "
                                "memory")
    return "socket_fallback", ("NCCL on TCP sockets (no RDMA device usable where the job runs), or GPUDirect RDMA "
                               "off; the NCCL_DEBUG=INFO log tells which")


@rule("nccl.busbw", "other", "pcie_fallback", "shm_fallback", "numa_affinity", "p2p_disabled", "socket_fallback",
      "gdr_disabled", "expected_physics")
def busbw(facts: Facts, predictions=None):
    """Measured busbw of a large all-reduce, per GPU group and from any source, against the typical figure of the
    fabric its ring runs on (the topology where it covers the group, else the catalog interconnect); a pasted
    all-gather, reduce-scatter, broadcast or reduce by the same figure, an all-to-all or send/receive only by its
    links' line rate (RING_OPS, LINK_OPS)."""
    from rules.topology import gpu_links

    multi, links = _multi_node(facts), gpu_links(facts)
    judged, own = [], []
    for *row, system in _busbw_groups(facts):
        # (busbw33) a table run inside one node of a multi-node ticket measured NVLink/PCIe, not the network
        node = ((False, []) if multi[0] and _one_node(facts, row[1], row[2]) else multi, links)
        got = _judge_busbw(facts, node, *row, system=system)
        if got is not None:
            judged.append((*got, row[:3]))
            own += [judged[-1]] if system is None else []
    if not judged:
        converted = busbw_from_algbw(facts)
        got = converted and _judge_busbw(facts, (multi, links), converted[0], converted[1], converted[2], None,
                                         converted[3])
        judged = [(*got, converted[:3])] if got else []
    if not judged:
        return
    judged, leads = _beside_passed_all_reduce(judged)
    problems = [f for _, f, _ in judged if f.severity in ("warning", "critical")]
    if problems:
        yield from problems
        return
    # the all-reduce's pass where one was judged (the collective tensor parallelism runs); another collective's pass
    # speaks for its own figures only where nothing else was measured
    pool = own or judged
    pool = [j for j in pool if _op_of(j[2][1]) == "all_reduce"] or pool
    _, best, (_, rec, nranks) = min(pool, key=lambda x: x[0])
    yield _as_context(best, _outside_table(facts, multi[0], rec, nranks)) if best.severity == "ok" else best
    yield from leads


def _beside_passed_all_reduce(judged: list) -> tuple[list, list]:
    """(judged, leads): a low figure of another collective on the ranks where an all-reduce passed, taken out of
    `judged` as an info lead with no fabric cause. The passing all-reduce crossed the same links (NVLink, PCIe, the
    NICs) at their typical rate, so no socket or PCIe fallback, nor a link down, is what slows the other; its own
    path (its algorithm, its size, the framework's call) is."""
    passed_ranks = [row[2] for _, f, row in judged if f.severity == "ok" and _op_of(row[1]) == "all_reduce"]
    keep, leads = [], []
    for ratio, f, row in judged:
        op, ranks = _op_of(row[1]), row[2]
        beside = any(r is None or ranks is None or r == ranks for r in passed_ranks)
        if op == "all_reduce" or f.severity not in ("warning", "critical") or ratio >= 1 or not beside:
            keep.append((ratio, f, row))
            continue
        word = OP_WORDS[op]
        leads.append(make("nccl.busbw", "other", "info", 0.4, f"{word} busbw is {row[0]:g} GB/s beside an all-reduce "
                          "that passed on the same GPUs",
                          f"The {word} reaches {row[0]:g} GB/s busbw, {ratio:.0%} of the fabric's typical figure, "
                          "while the all-reduce on the same GPUs reaches its typical figure: the links carry a ring at "
                          f"full rate, so no fallback or link fault explains the {word}; its own path (algorithm, "
                          "message size, the framework's call) is the lead.", f.evidence))
    return keep, leads


def _one_node(facts: Facts, rec, nranks: int | None) -> bool:
    """Whether a pasted table's run stayed inside one node: its rows say one node, or the ranks the table itself
    counts fit in one node's GPUs. A figure the reporter typed is not counted so: its GPU count may be a node's
    ("each server has 8 GPUs ... busbw is 180GB/s" across 4 servers)."""
    if not isinstance(rec, CollectiveResult):
        return False
    if rec.nodes:  # the hosts its '# Using devices' lines name
        return rec.nodes == 1
    per_node = gpus_per_node(facts)
    return bool(nranks and per_node and 1 < nranks <= per_node)


def _outside_table(facts: Facts, multi_node: bool | None, rec, nranks: int | None) -> str | None:
    """Why a table that fits does not answer the ticket, where the complaint lies beyond what it measured (nccl-tests
    doc/PERFORMANCE.md: busbw rates the links of the ranks that ran, at the sizes run): a job across nodes judged by a
    run inside one (the network, GPUDirect RDMA untested), or a comparison of NCCL releases (one release's table
    fitting its fabric does not say the other is as fast, where one is called slower). None where the table measured
    what is complained of."""
    if multi_node and _one_node(facts, rec, nranks):
        return (f"the table ran inside one node ({nranks or 'its'} GPUs) while the job spans nodes: it measured "
                "NVLink/PCIe, not the network or GPUDirect RDMA between the nodes")
    printed = {v.version for v in facts.printed_nccl_versions()}
    # two releases printed and something called slower ("15% slower with the new NCCL"), or the releases compared in
    # words; two tables put side by side with "is this fine?" are a question the tables answer
    if (len(printed) >= 2 and claims.complaint(facts)) or claims.find(facts, "nccl_versions_compared"):
        named = ", ".join(sorted(printed, key=version_key)) or "two NCCL releases"
        return (f"the ticket compares NCCL releases ({named}): a table that fits its fabric does not say the "
                "releases run alike")
    return None


# A pass that answers a question the table did not measure stays in the report as context, below what decides a
# verdict (rules.engine.WEAK = 0.5): the verdict then comes from the causes or the gaps, not "healthy".
CONTEXT_CONFIDENCE = 0.45


def _as_context(finding, why: str | None):
    """The table's pass as context where `why` (_outside_table) says the complaint lies elsewhere."""
    if why is None:
        return finding
    return replace(finding, confidence=min(finding.confidence, CONTEXT_CONFIDENCE),
                   summary=f"{finding.summary} Context only: {why}.")


@rule("nccl.one_rank", "expected_physics")
def one_rank(facts: Facts, predictions=None):
    """An nccl-tests run on one rank moves nothing between GPUs: its bus bandwidth is 0 by definition (busbw =
    algbw x 2(n-1)/n for all-reduce, 0 at n = 1; nccl-tests doc/PERFORMANCE.md), whatever the GPU or network. Read
    from the run's own rank count on one node (its 'Using devices' lines, or `-g` times the processes of a launch
    naming its host); never where any run of the ticket counts more ranks, spans nodes or measures a bus bandwidth."""
    runs = [w for w in facts.of(Workload) if w.framework == "nccl-tests" and w.gpu_count]
    if not runs or any(w.gpu_count > 1 for w in runs) or any(r.busbw_gbs > 0 for r in facts.of(CollectiveResult)):
        return
    # counted on one node: a launch line naming its -g but not its processes ("mpiexec -f hosts ... -g 1") counts
    # one process's GPUs, not the run's ranks, where the ticket spreads it over machines
    if _multi_node(facts)[0] or not any(w.nodes == 1 for w in runs):
        return
    yield make("nccl.one_rank", "expected_physics", "info", 0.6,
               "nccl-tests ran on one GPU: its bus bandwidth is 0 by definition",
               "With one rank there is no peer to send to: nccl-tests reports busbw = algbw x 2(n-1)/n for "
               "all-reduce, which is 0 at n = 1, so 'Avg bus bandwidth: 0' measures nothing wrong.",
               [ev(w, "ranks in the nccl-tests run (a bus bandwidth needs two at least)", w.gpu_count, 2)
                for w in runs[:2]],
               fix="Run the test over the GPUs to measure: `-g N` for N GPUs in one process, or N ranks "
                   "(`mpirun -np N`, one GPU each); on a one-GPU machine there is no inter-GPU bandwidth to "
                   "measure.",
               refs=["https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md"])


def _ports_in_use(facts: Facts) -> float:
    """The share of the NIC ports a run uses: fewer GPUs per node than ports leave some idle."""
    ports, per_node = nic_ports(facts), gpus_per_node(facts)
    return per_node / ports if ports and per_node and per_node < ports else 1.0


def _both_readings(rec: Measurement, value: float, n: int | None):
    """Evidence for an all-reduce rate the reporter gave without saying algbw or busbw (scope "algbw_or_busbw"): it is
    judged as busbw; as algbw, busbw = algbw x 2(n-1)/n (nccl-tests doc/PERFORMANCE.md), at n GPUs where known."""
    said = f"not said whether {value:g} GB/s is algbw or busbw: judged as busbw; as algbw, busbw = algbw x 2(n-1)/n"
    if n and n >= 2:
        busbw = value * 2 * (n - 1) / n
        return ev(rec, f"{said} = {busbw:.1f} GB/s at {n} GPUs", round(busbw, 1), unit="GB/s")
    return ev(rec, f"{said}, between 1x (2 GPUs) and 2x (many GPUs): up to {2 * value:g} GB/s", round(2 * value, 1),
              unit="GB/s")


def _covered(rec, nranks: int | None, group: list[int] | None) -> str:
    """What a table's figure measured, in words: its message size and GPUs (a pass answers only for these)."""
    gpus = f"GPUs {','.join(map(str, group))}" if group else f"{nranks} GPUs" if nranks else "the GPUs it ran on"
    size = getattr(rec, "size_bytes", None) or 0
    at = f"a {size / 2**20:g} MiB message" if 0 < size < 2**30 else f"a {size / 2**30:g} GiB message" if size else \
        "large messages"
    return f"measured at {at} on {gpus}, the links among those GPUs only"


def _judge_busbw(facts: Facts, node: tuple, value: float, rec, nranks: int | None, group: list[int] | None,
                 what=None, system: tuple | None = None):
    """(measured / expected, finding) for one group's best large busbw of one collective (_op_of: RING_OPS by their
    fabric's typical figure, LINK_OPS only by its line rate); None when nothing says what its fabric should give.
    `node`: (_multi_node, gpu_links), the same for every group;
    `system`: (label, spec) of the GPU a compared system's figures were measured on (_system_of)."""
    (multi, node_ev), links = node
    label = system[0] if system else None
    op = _op_of(rec)
    word = OP_WORDS[op]
    ic = None
    if multi:
        if op in LINK_OPS:
            return None  # part of an all-to-all or send/receive stays inside each node: the NICs alone bound nothing
        rate, origin = nic_rate_gbs(facts)
        if not rate:
            return None
        expected, line, link = 0.8 * rate, rate, "the NICs' line rate"
        ceiling = None  # NVLS and tree reduce part of the data inside each node: no bound from the NICs alone
        beyond = "Tree/NVLS algorithms keep part of the reduction inside the node, so busbw can exceed the NIC rate."
    else:
        spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
        if system is not None:  # another system's figures: its own GPU, and not this ticket's topology
            other = system[1]
            if other is None:
                return None
            spec, spec_src = other, f"{rec.source} (compared system '{label}' read as {other.key})"
        if spec is None:
            return None
        from rules import roofline
        from rules.catalog import interconnects

        known = nranks or (len(group) if group else None) or gpu_count(facts)
        n = known or 2
        ring = _ring_fabric(facts, spec, n, group, links) if system is None else None
        ic, topo_ev = ring if ring else (roofline.tp_fabric(spec, n, max(n, gpus_per_node(facts) or n))[0], [])
        if not ring and known and system is None:  # (s22) fewer GPUs than a direct-connect board holds: their links
            shared = roofline.direct_share(spec, ic, known)
            if shared is not ic:
                topo_ev = [ev(spec_src or "catalog",
                              f"{spec.name}: {spec.nvlink_links} NVLinks per GPU wired evenly to the "
                              f"{spec.nvlink_domain - 1} others of its board; {known} GPUs use their pairs' links",
                              shared.name)]
                ic = shared
        if not ring and ic.kind == "nvlink" and spec.nvlink_bridged and not has_nvlink(facts) and system is None:
            # a PCIe card's NVLink bridge is an option most machines lack: with none shown, a figure PCIe can carry
            # is judged against PCIe; one above PCIe's line rate needs the bridge, and is judged against it
            from rules.catalog import interconnect

            pcie = interconnect(spec.pcie_interconnect)
            if value <= pcie.bandwidth_gbs * LINE_SLACK:
                ic, topo_ev = pcie, [ev(spec_src or "catalog", f"{spec.name}: NVLink only through an optional "
                                        "bridge, and nothing in the ticket shows one (assumed: PCIe)")]
        bridge = f"nvlink{spec.nvlink_gen}"
        if (not ring and ic.kind == "pcie" and spec.nvlink_bridged and known == 2 and system is None
                and value > ic.bandwidth_gbs * LINE_SLACK and bridge in interconnects()):
            # two GPUs have one ring, GPU0<->GPU1, and no PCIe hop in it to share: a busbw their PCIe cannot
            # carry is on the NVLink bridge, judged against the bridge's links
            pcie = ic
            ic = roofline.tp_fabric(spec, 2, 2, interconnect=bridge)[0]
            topo_ev = [ev(spec_src or "catalog", f"{spec.name}: busbw above PCIe's {pcie.bandwidth_gbs:g} GB/s line "
                                                 "rate on one GPU pair: its NVLink bridge carries the ring")]
        expected, line, link = ic.achieved_gbs, ic.bandwidth_gbs, f"{ic.name}"
        origin = topo_ev + [ev(spec_src or "catalog", f"catalog {spec.key} over {ic.key}: nccl-tests all-reduce "
                               f"busbw typically {ic.achieved_gbs:g} GB/s, line rate {ic.bandwidth_gbs:g} GB/s per "
                               "direction", expected=round(expected, 1), unit="GB/s")]
        if op != "all_reduce":
            origin.append(ev("nccl-tests doc/PERFORMANCE.md", f"{word} busbw (algbw x {_FACTOR_WORDS[op]}) is "
                             "normalised to compare with the same hardware peak as all-reduce's"))
        # only an NVSwitch that reduces in the switch (catalog in_network_reduction: NVLS) lets busbw pass
        # the line rate; a ring over NVLink or PCIe cannot beat the per-direction rate of its links
        # NVLS lifts all-reduce's busbw only: in an all-gather or reduce-scatter each GPU still receives or sends
        # (n-1)/n of the data over its own link, in a broadcast or reduce the root moves all of it, whatever the switch
        nvls = ic.kind == "nvswitch" and ic.in_network_reduction and op == "all_reduce"
        # GPU count unknown (n above is a guess of 2): the ceiling takes the largest group the switch holds
        both_ways = ic.kind == "pcie" and _part_nvlink(spec, group or range(n), links)
        # a ring over some of a GPU's NVLinks (NV4 per pair on a 4-GPU board) is not the bound: rings in
        # other orders use the other links, so the GPU's whole NVLink rate is
        top = max(line, spec.nvlink_gbs) if ic.kind in ("nvlink", "nvswitch") else line
        ceiling, why = busbw_ceiling(top, known or max(spec.nvlink_domain, gpus_per_node(facts) or 2), nvls,
                                     both_ways)
        origin.append(ev(f"catalog interconnect {ic.key}", why, expected=round(ceiling, 1), unit="GB/s"))
        beyond = ("NVLink SHARP (NVLS) reduces inside the NVSwitch, so busbw can exceed the line rate." if nvls else
                  "Rings in opposite directions over NVLink pairs use each GPU's PCIe link both ways, so busbw "
                  "can pass the PCIe line rate.")
    where_ = f" on GPUs {','.join(map(str, group))}" if group else (f" on {nranks} GPUs" if nranks else "")
    where_ += f" of the {label} system" if label else ""
    what = what or ev(rec, f"largest {word} busbw{where_} (large messages)", value, round(expected, 1), "GB/s")
    if isinstance(rec, Measurement) and rec.scope == "algbw_or_busbw":
        origin = origin + [_both_readings(rec, value, nranks or gpu_count(facts))]
    # a figure the reporter typed is an observation, weighed below a measured sweep
    sure = 0.6 if isinstance(rec, Measurement) and rec.stat == "reported" else 0.7
    ratio = value / expected
    if ceiling is not None and value > ceiling * LINE_SLACK:
        return ratio, make("nccl.busbw", "other", "warning", sure,
                           f"busbw {value:g} GB/s{where_} is more than {link} can physically carry",
                           f"The largest {word} reports {value:g} GB/s busbw, above the ~{ceiling:.0f} GB/s "
                           f"ceiling of {link} ({line:g} GB/s per direction). No {word} on this fabric can "
                           "reach it: the figure is misread (unit, algbw vs busbw, GPU count), comes from "
                           "another GPU or fabric than the one named, or the measurement is broken.",
                           [what] + origin,
                           fix=f"Re-run {op}_perf on this node and paste its whole table with the "
                               "'# Using devices' lines and `nvidia-smi topo -m`.",
                           refs=["nccl_tests_perf"])
    if op in LINK_OPS:
        return None  # under its links' rate an all-to-all or send/receive has no documented typical figure to miss
    if value > line * LINE_SLACK:
        return ratio, passed("nccl.busbw", "Bus bandwidth above the line rate: not an error",
                             f"busbw {value:g} GB/s is above {link}'s {line:g} GB/s. {beyond} It was "
                             f"{_covered(rec, nranks, group)}.", [what] + origin, sure)
    if ratio >= BUSBW_MATCH:
        return ratio, passed("nccl.busbw", f"Bus bandwidth matches {link}",
                             f"The largest {word} reaches {value:g} GB/s busbw, {ratio:.0%} of what {link} "
                             f"typically gives; {_covered(rec, nranks, group)}.", [what] + origin, sure)
    from rules.topology import _p2p_off_by_design

    if ic is None and not any(t.transport == "NET" for t in facts.of(NcclTransport)) and \
            value < BUSBW_FLOOR * expected * _ports_in_use(facts):
        # between nodes, under half of what the NIC ports in use give (a run on fewer GPUs per node than NICs uses
        # fewer ports), and no log says which transport: not physics
        category, cause = _network_cause(facts)
        return ratio, make(
            "nccl.busbw", category, "warning", 0.45,
            f"{op} busbw{where_} is {value:g} GB/s, {ratio:.0%} of the ~{expected:.0f} GB/s {link} give",
            f"Between nodes a ring {word} over RDMA reaches about 80 % of the NICs' line rate in nccl-tests; "
            f"{value:g} GB/s is under half of that, so the traffic is not on the RDMA path at full rate. "
            f"Likely cause: {cause}.",
            [what] + origin + node_ev,
            fix=f"Run {op}_perf across the nodes with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: 'NET/Socket' "
                "or 'Using network Socket' means TCP; 'NET/IB' without '/GDRDMA' in the channel lines means GPUDirect "
                "RDMA is off; check that every NIC (NCCL_IB_HCA) is used.",
            refs=["nccl_trouble", "nccl_env"])
    if ic is not None and ic.kind == "pcie" and not spec.pcie_p2p:
        # boards whose driver refuses P2P copy through host memory, under the PCIe figure (without_p2p)
        shm = without_p2p(facts, "nccl.busbw", value, spec, spec_src, what, ic, origin)
        if shm is not None:
            return ratio, shm
    if ratio >= BUSBW_FLOOR or ic is None or (ic.kind == "pcie" and _p2p_off_by_design(facts)):
        return ratio, make("nccl.busbw", "other", "info", 0.4, f"Bus bandwidth is {ratio:.0%} of what {link} gives",
                           f"The largest {word} reaches {value:g} GB/s busbw against about {expected:.0f} GB/s "
                           f"typical of {link}. The other findings say why, if the evidence shows it.",
                           [what] + origin + node_ev)
    category, cause = _busbw_cause(facts, value, ic, group)
    return ratio, make(
        "nccl.busbw", category, "critical" if ratio < BUSBW_BROKEN else "warning", sure + 0.05,
        f"{op} busbw{where_} is {value:g} GB/s, {ratio:.0%} of the ~{expected:.0f} GB/s {link} gives",
        f"The largest {word} reaches {value:g} GB/s bus bandwidth; {link} typically gives about {expected:.0f} "
        f"GB/s in nccl-tests, and under half of that something forces a slower path. Likely cause: {cause}.",
        [what] + origin,
        fix=f"Run {op}_perf with NCCL_DEBUG=INFO and look at the 'via' lines: P2P (over NVLink where the "
            "topology has it) is expected, SHM or NET means a fallback; check `nvidia-smi nvlink -s` and "
            "`nvidia-smi topo -m`.",
        refs=["nccl_tests_perf", "nccl_trouble"])


# --------------------------------------------------------------------------- a release too old for the GPU


def arch_floor(compute_capability: float) -> dict | None:
    """The nccl_support.toml row for a GPU's compute capability: the same major, the highest minor not above it."""
    if not compute_capability:
        return None
    major = int(compute_capability)
    rows = [r for r in catalog.nccl_rows("arch") if int(r["compute_capability"]) == major
            and r["compute_capability"] <= compute_capability + 1e-9]
    return max(rows, key=lambda r: r["compute_capability"], default=None)


def _nccl_in_use(facts: Facts) -> tuple[str, object] | None:
    """(version, where it was read) of the NCCL the failing run used: the newest a log or tool printed, else the one
    release the reporter names (two named are a comparison, nccl.regression's)."""
    if v := _newest_printed(facts):
        return v.version, v
    for source, text in claims.texts(facts):
        named = [v for v in claims.nccl_versions(text) if _affirmed(text, v)]
        called = _nccl_call_values(text)
        named += [v for v in called if v not in named]
        if len(named) == 1 and (_named_as_nccls(text, named[0]) or named[0] in called):
            return named[0], source
    v = _from_tag(facts)
    return (v.version, v) if v else None


# (dup39) A release the text gives as NCCL's own: right after NCCL's name, its package's or its word for a version
# ("NCCL 2.18.1", "NCCL version 2.7.8", "NCCL v2.21", "nccl==2.20.5", glued "nccl2.21", "libnccl2=2.20.5-1+cuda12.4",
# "nvidia-nccl-cu12 2.21.5", an NGC image's NCCL_VERSION=2.8.4). A number elsewhere in a text that mentions NCCL is
# another product's: "torch 1.8.1 ... (note that this works with 1.6 and 0.7.0 - ... the CUDA and NCCL version bundled
# with torch)" gives torch releases (ray-project/ray#15495), not an NCCL that predates NCCL 2.
_NCCL_NAME_BEFORE = re.compile(r"(?:nvidia-nccl(?:-cu\d+)?|libnccl\d?(?:-dev)?|\bNCCL_VERSION|"
                               r"(?<![A-Za-z_])NCCL(?![A-Za-z_]))\s{0,3}"
                               r"(?:(?:version|ver\.?|release)\s{0,3})?(?:[:=]{1,2}\s{0,3})?v?$|"
                               # (review39b) or a few words after NCCL's name in the same clause, none a number (a
                               # number between is the one named): "NCCL is 2.18.1", "the NCCL version we use is
                               # 2.18.1", "NCCL (2.18.1)", "upgraded NCCL to 2.18.1", "NCCL版本 2.18.1"; not
                               # "NCCL-tests 2.13.9"
                               r"(?<![A-Za-z_])NCCL(?![A-Za-z_-])(?:[\s:=(（]{0,3}[^\W\d_]{1,12}){0,5}"
                               r"[\s:=(（]{0,3}v?$", re.I)
# (review39b) torch.cuda.nccl.version()'s own answer, a tuple "(2, 18, 1)" (torch >= 1.13) or the integer
# NCCL_VERSION_CODE "21801" (older torch; NCCL's nccl.h: major*10000 + minor*100 + patch from 2.9), and a log's
# "nccl_version=21801": NCCL's release with its name right before it, though not written "2.18.1".
_NCCL_CALL_VALUE = re.compile(r"\bnccl[._]version(?:_code)?\b(?:\(\))?[^\n\d]{0,24}?"
                              r"(?:\((\d),\s?(\d{1,2}),\s?(\d{1,2})\)|(?<![\d.])(\d{4,5})(?![\d.]))", re.I)


def _nccl_call_values(text: str) -> list[str]:
    """The NCCL releases `text` quotes as torch.cuda.nccl.version()'s or a log's nccl_version value, as "2.18.1"."""
    out = []
    for m in _NCCL_CALL_VALUE.finditer(text):
        v = ".".join(m.group(1, 2, 3)) if m.group(1) else nccl_version_from_code(int(m.group(4)))
        if v not in out:
            out.append(v)
    return out


def _named_as_nccls(text: str, version: str) -> bool:
    """Does the text name `version` as NCCL's release (_NCCL_NAME_BEFORE right before one of its mentions)?"""
    return any(_NCCL_NAME_BEFORE.search(text, max(0, m.start() - 40), m.start())
               for m in re.finditer(r"(?<![\d.])" + re.escape(version) + r"(?!\d)", text))


def _in_use_text(source) -> str:
    return in_use_detail(source) if isinstance(source, NcclVersion) else "NCCL version in use"


def _affirmed(text: str, version: str) -> bool:
    """Is a release named, somewhere in the text, without the reporter ruling it out ("we already ruled out NCCL
    2.14.3", "it is not 2.14.3", "we no longer use it")?"""
    mention = re.compile(r"(?<![\d.])" + re.escape(version) + r"(?![\d])")
    return any(not claims.negated_words(sentence, m)
               for sentence in claims.sentences(text) for m in mention.finditer(sentence))


_FAILED = ("error", "cuda_error", "timeout", "shared_mem_exceeds")


# Within one nccl-tests sweep, busbw rises with the message size toward its plateau: a larger message
# amortises the same latency over more bytes on the same links. Over 16 real sweeps in
# tests/data/collectives (A100/H100/H200/B200/L40S/RTX 4090; 1-4 nodes; IB, RoCE, TCPXO, sockets)
# the sizes after any point from 1 MiB up reach the best smaller size's busbw again (at worst 1.00x). A drop
# to under half of it that never recovers means the larger sizes ran another way: NCCL's tuner
# switched algorithm or protocol at that size, or the traffic took another path.
COLLAPSE_FROM_BYTES = 1 << 20
COLLAPSE_FACTOR = 2.0


def _sweeps(facts: Facts) -> list[list[CollectiveResult]]:
    """One benchmark run's rows: consecutive lines of one file, one collective and column (in/out of
    place), sizes rising; a size that does not rise starts the next run pasted after it."""
    def line(r):
        return (r.source.rpartition(":")[0], r.op, r.in_place, r.graph, r.tool), claims.line_number(r.source)

    out: list[list[CollectiveResult]] = []
    last = None
    for (key, _), r in sorted(((line(r), r) for r in facts.of(CollectiveResult)), key=lambda pair: pair[0]):
        if last is None or key != last[0] or r.size_bytes <= last[1].size_bytes:
            out.append([])
        out[-1].append(r)
        last = (key, r)
    return [[r for r in rows if r.size_bytes >= COLLAPSE_FROM_BYTES and r.busbw_gbs > 0] for rows in out]


@rule("nccl.busbw_collapse", "other")
def busbw_collapse(facts: Facts, predictions=None):
    """busbw that falls to under half of a smaller size's, and stays there for every larger size
    of the same sweep (at least two): the larger messages ran another algorithm, protocol or path,
    whatever the hardware."""
    worst = None
    for rows in _sweeps(facts):
        for i in range(1, len(rows) - 1):
            best = max(rows[:i], key=lambda r: r.busbw_gbs)
            rest = rows[i:]
            top = max(r.busbw_gbs for r in rest)
            if top * COLLAPSE_FACTOR < best.busbw_gbs and (worst is None or best.busbw_gbs / top > worst[0]):
                worst = (best.busbw_gbs / top, best, rows[i], top, len(rest))
    if worst is None:
        return
    ratio, best, first, top, n = worst
    mib = lambda r: f"{r.size_bytes / (1 << 20):g} MiB"  # noqa: E731
    yield make(
        "nccl.busbw_collapse", "other", "warning", 0.6,
        f"{best.op} busbw falls {ratio:.1f}x from {mib(best)} to {mib(first)} and stays down",
        f"In one sweep busbw reaches {best.busbw_gbs:g} GB/s at {mib(best)}, then no size from {mib(first)} up "
        f"({n} sizes) gets above {top:g} GB/s. Larger messages amortise the same latency over more bytes, so on "
        "the same links busbw only rises toward a plateau; a drop that never recovers means the larger sizes ran "
        "another way: NCCL's tuner switched algorithm or protocol there, or the traffic took another path.",
        [ev(best, f"busbw at {mib(best)}", best.busbw_gbs, unit="GB/s"),
         ev(first, f"busbw at {mib(first)} (the best of the {n} sizes from there up: {top:g})", first.busbw_gbs,
            f">= {best.busbw_gbs / COLLAPSE_FACTOR:g} (half the smaller size's)", "GB/s")],
        fix="Rerun the sizes around the drop with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING to see the "
            "algorithm, protocol and transport used per size, then with NCCL_ALGO / NCCL_PROTO pinned to the "
            "smaller size's choice; if the drop stays, compare the transport lines (P2P, SHM, NET) of both sizes.",
        refs=["nccl_env", "nccl_tests_perf"],
    )


@rule("nccl.version_floor", "nccl_regression")
def version_floor(facts: Facts, predictions=None):
    """A failing run on an NCCL release older than the first built for its GPU's architecture (or older than NCCL 2)
    (rules/catalog/nccl_support.toml, from NCCL's release notes). Below an architecture's floor the driver JIT-compiles
    the build's older PTX, so the release may run untuned: a lead, unless the notes record earlier builds failing on
    the GPU. NCCL's own "ncclMaxSharedMem ... exceeds device/fn maxSharedMem" line says so directly: its kernels do
    not fit this GPU's shared memory."""
    sized = [e for e in facts.of(NcclEvent) if e.kind == "shared_mem_exceeds"]
    said = claims.symptom_quote(facts)
    failed = any(e.kind in _FAILED for e in facts.of(NcclEvent)) or \
        bool(said and said[2] in FAILURES)
    in_use = _nccl_in_use(facts)
    if not failed or (in_use is None and not sized):
        return
    gpu = getattr(getattr(facts, "subject", None), "gpu", None)
    row = arch_floor(gpu.compute_capability) if gpu else None
    line = catalog.nccl_line()
    evidence, why, jit = [], None, False
    version = in_use[0] if in_use else None
    if version and version_key(version)[0] < line.get("oldest_major", 0):
        why = f"NCCL {version} predates NCCL {line['oldest_major']}, the oldest line NVIDIA still releases"
        evidence.append(ev(in_use[1], _in_use_text(in_use[1]), version, f">= {line['oldest_major']}.0"))
        evidence.append(ev(line["source"], "NCCL release line"))
    elif version and row and version_key(version) < version_key(row["min_nccl"]):
        why = f"NCCL {version} is older than {row['min_nccl']}, the first release for {row['gpus']}"
        evidence.append(ev(in_use[1], f"{_in_use_text(in_use[1])} on {gpu.name}", version, f">= {row['min_nccl']}"))
        evidence.append(ev(row["source"], f"first NCCL release for compute capability {row['compute_capability']}"))
        jit = not row.get("fails_before")  # earlier builds' PTX is JIT-compiled for it: they may run, untuned
    if sized:
        e = sized[0]
        evidence.insert(0, ev(e, "NCCL's kernels need more shared memory per block than the device has",
                              e.data["needed_bytes"], e.data["device_bytes"], "bytes"))
    if not evidence:
        return
    yield make(
        "nccl.version_floor", "nccl_regression", "warning", 0.75 if sized else 0.45 if jit else 0.6,
        f"The NCCL release is too old for this GPU: {why or 'its kernels do not fit the device'}",
        "NCCL ships kernels built for the GPU architectures it knows; an older release has no tuned code (or a "
        "wrong shared-memory size) for a newer architecture, and collectives can fail or hang however the GPUs are "
        "connected. "
        + ("Its default build carries PTX for an older architecture that the driver JIT-compiles, so it may also "
           "run: a suspect to remove first, not a proven cause. " if jit and not sized else "")
        + ("NCCL's own log line shows its kernels asking for more shared memory than the device allows. " if sized
           else "")
        + "Moving to a release that supports the GPU is the fix.",
        evidence,
        fix=f"Use NCCL {row['min_nccl'] if row else '2.x'} or newer (the nvidia-nccl-cu12 wheel, or rebuild "
            "nccl-tests against the newer NCCL_HOME) and rerun with NCCL_DEBUG=INFO.",
        refs=["nccl_releases"],
    )
