"""Rules over what a ticket's reporter says and measured, as a support engineer reads them.

The reporter's words are evidence below a parsed artifact, and a guess ("maybe it's P2P?")
weighs less than an observation ("nvidia-smi shows SW Power Cap"). So every finding here takes
its confidence from how the claim was made (`weight`), never above what an artifact would give,
and quotes the words. A claim the reporter rules out ("no Xid errors") never fires a rule.

Knowledge here is physical or documented (NCCL's spin-waiting kernels, lazy connection set-up,
engines pre-allocating the KV cache, tensor parallelism running at the pace of its slowest GPU),
not one ticket's wording: the claim families live in rules/claims.py.
"""

from __future__ import annotations

import dataclasses
import statistics
from typing import NamedTuple

from diagnose import lazy_re as re
from diagnose.evidence import (
    Facts,
    GpuFact,
    Measurement,
    NcclEvent,
    NcclTransport,
    NcclVersion,
    Note,
    NvLinkFact,
    P2PStatus,
    PairBandwidth,
    PcieLinkFact,
    TopologyPath,
    Workload,
    XidEvent,
)
from diagnose.findings import Evidence
from rules import beyond_band, catalog, claims, fleet_rules, speculation
from rules.beyond_roofline import beats, finding
from rules.catalog import ERROR_CATEGORIES, UNLIKE, pace_gap, resolve_gpu
from rules.claims import Claim
from rules.common import (
    LLAMACPP_ENGINES,
    P2P_VM_FIX,
    claim_ev,
    engine_of,
    ev,
    gpu_count,
    has_nvlink,
    is_virtualized,
    large_results,
    links_per_gpu,
    llamacpp_split_tp,
    make,
    measurements,
    need,
    nic_rate_gbs,
    node_count,
    nvlink_evidence,
    one_off,
    passed,
    settings,
    steady_logs,
    tp_engine,
    tp_sizes,
    visible_devices,
    wfield,
)
from rules.common import (
    label as gpu_label,
)
from rules.engine import FAILURES, NCCL_LOG, RELEASE_BEFORE, rule, ticket_gaps
from rules.expectations import REPORTED_RATE_SLACK, band_text, is_reported, lowest_normal
from rules.failure_words import failure_said, wrong_output_said
from rules.gpus_in_use import layer_split_engine, layer_split_over_gpus, one_gpu_in_use, splits_only_if_told
from rules.health import FATAL_XIDS
from rules.host import ACS_SYMPTOMS, not_size_finding, shm_reason
from rules.loss_bound import within_physics
from rules.offload import keeps_weights_on_gpu
from rules.predict_rules import shortfall_evidence, shortfall_words
from rules.reference_scaling import reference_shortfall
from rules.stated_load import batch_words, stated_batch, stated_load
from rules.ticket_figures import (
    SERVING_METRICS,
    assumed_layout,
    assumed_tp,
    band_evidence,
    batch_total,
    beyond_band_attach,
    beyond_band_fix,
    defaults_assumed,
    faster_than_band,
    layout_words,
    one_gpu_pace,
    same_layout,
    slowest_first,
    split_pace,
    training_job,
    unmodelled_layout,
)
from rules.ticket_numbers import EP_TRADE, SMALL_GAIN, layout_gain
from rules.topology import PCIE_LANE_GBS, no_nvswitch_board, nvswitch_by_catalog, p2p_seen_working, pcie_gbs
from rules.workload import (
    QUANTISATION_ASK,
    assumed_cut,
    assumed_weights,
    memory_share,
    predict_layout,
    runs_eager,
    seated,
    weights_span_holding,
)

# Confidence of a finding that rests on one claim: tool output quoted in the ticket, the
# reporter's observation (at most), the reporter's guess. Measured on tickets the rules were not
# written from (benchmarks/ticket_accuracy.py, holdout), words alone are right far less often
# than an artifact, so an observation stays below the 0.7 that counts as confident.
OUTPUT, OBSERVED, GUESSED = 0.75, 0.65, 0.4


def weight(c: Claim, observed: float = OBSERVED) -> float:
    if c.data.get("origin") == "output":
        return max(observed, OUTPUT)
    return GUESSED if c.guess else min(observed, OBSERVED)


def _strongest(found: list[Claim]) -> Claim | None:
    return max(found, key=weight) if found else None


def _first(facts: Facts, kind: str) -> Claim | None:
    return _strongest(claims.find(facts, kind))


def _gpus(facts: Facts) -> int | None:
    tp, _ = wfield(facts, "tp")
    return max(tp or 0, gpu_count(facts) or 0) or None


def _on_claim(rule_id: str, category: str, severity: str, c: Claim, what: str, title: str, summary: str, fix: str,
              refs=(), observed: float = OBSERVED, extra=()):
    """The finding of a rule that rests on one claim: weighed by how it was said, quoting it (then any evidence the
    rule adds, as `extra`)."""
    return make(rule_id, category, severity, weight(c, observed), title, summary, [claim_ev(c, what), *extra],
                fix=fix, refs=refs)


# --------------------------------------------------------------------------- hardware state


@rule("ticket.clock_power", "throttling", "expected_physics")
def clock_power(facts: Facts, predictions=None):
    """The reporter sees a clocks-event reason (SW Power Cap, HW Slowdown, thermal) or clocks stuck low (an MHz
    figure only well below the GPU's own top clock: rules.claims.AT_MAX_CLOCK); asked whether it throttles, a figure
    at the top clock is the answer: the GPU runs as designed."""
    if _health_judges(facts):
        return  # nvidia-smi -q shows the reasons themselves: health.throttling judges them
    c = _first(facts, "clock_power")
    top = _first(facts, "clock_at_max")
    if not c and top and not top.negated and top.data.get("asked"):  # asked: "Is the GPU throttling?"
        gpu = facts.subject.gpu
        yield make("ticket.clock_power", "expected_physics", "info", weight(top, 0.5),
                   f"{top.data['mhz']:g} MHz is {gpu.name}'s top clock: the GPU is not held down",
                   f"The clock the reporter gives is within {1 - claims.AT_MAX_CLOCK:.0%} of the board's maximum "
                   f"({top.data['max_clock_mhz']:g} MHz); a throttled GPU (power cap, slowdown, thermal) runs well "
                   "below it, and GPU Boost eases off a bin or two with temperature by design.",
                   [claim_ev(top, "clock the reporter gives"), ev(top.source, f'the question: "{top.data["asked"]}"'),
                    ev(facts.subject.gpu_source, f"catalog {top.data['gpu']}: top SM clock", top.data["mhz"],
                       top.data["max_clock_mhz"], "MHz")],
                   fix="Nothing to fix in the clocks; look elsewhere for the slowness (a figure, nvidia-smi -q "
                   "under load).", refs=["throttle"])
        return
    if not c or c.guess:
        return  # a question or a hunch ("Is the GPU throttling?", "maybe the power cap") is no evidence of one
    rated = _first(facts, "power_limit_ok")
    # (para37) a cap seen at a draw far below the rated power is not the board at its limit (the fix below)
    draw = c.data.get("cap_draw_w")
    below = bool(draw and rated and draw < claims.LOWERED_LIMIT * (rated.data.get("tdp_w") or 0))
    if rated and rated.data.get("tdp_w") and c.data.get("power_cap_only") and not below:
        # the board at its rated power limit: under full load the power controller caps clocks by design
        yield make("ticket.clock_power", "expected_physics", "info", weight(c, 0.5),
                   f"SW Power Cap at the rated {rated.data['tdp_w']:g} W limit: the GPU runs as designed",
                   f"The limit the reporter gives ({rated.data['watts']:g} W) is the board's rated power "
                   f"({rated.data['tdp_w']:g} W, {rated.data['reference']}). A GPU working flat out reaches it and the "
                   "power controller lowers the clocks to stay there (nvidia-smi's 'SW Power Cap : Active'); no "
                   "slowdown or thermal reason is active, so nothing holds the GPU below its design.",
                   [claim_ev(c, "clock event reason the reporter reports"),
                    ev(rated.cited, f'power limit the reporter gives ("{rated.quote}") against the board\'s rated '
                       f'power ({rated.data["reference"]} {rated.data["gpu"] or ""})'.replace(" )", ")"),
                       rated.data["watts"], rated.data["tdp_w"], "W")],
                   fix="Nothing to fix in the clocks: more speed needs a GPU with a higher power budget.",
                   refs=["throttle", "nvidia_smi"])
        return
    unknown_top = f" ({c.data['mhz']:g} MHz could not be set against the GPU's top clock: the catalog has none " \
                  "for it; `nvidia-smi -q -d CLOCK` shows its Max Clocks)" if c.data.get("mhz") else ""
    yield make("ticket.clock_power", "throttling", "warning", weight(c),
               "The GPU clocks are being held down (power cap, slowdown or thermal state)",
               "The reporter sees a clocks-event reason or lowered clocks while the GPU works" + unknown_top + ". "
               "A GPU capped below its rated power or slowed by the board runs every kernel slower, and in a TP "
               "group every other GPU waits for it.",
               [claim_ev(c, "clock/power state the reporter reports")],
               fix="Check `nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE` under load: "
               "an active SW Power Cap at a draw far below the enforced limit means the board or chassis limits power "
               "(PSU, BMC/iDRAC power policy); HW Slowdown or thermal reasons mean cooling or power delivery. "
               "Fix those, then compare clocks under load.",
               refs=["throttle", "nvidia_smi"])


def _judged_by_health(g: GpuFact) -> bool:
    """Can health.throttling judge this GPU's clock reasons? A thermal or hardware reason, yes; a SW Power Cap
    only against the power limit, so a pasted reason block without the POWER section is left to the words."""
    reasons = set(g.clock_event_reasons or []) - {"idle"}
    return bool(reasons - {"sw_power_cap"}) or bool(reasons and g.power_limit_w)


def _health_judges(facts: Facts) -> bool:
    """nvidia-smi -q's reasons (and limit) for some GPU are parsed: health.throttling judges them, not the words."""
    return any(_judged_by_health(g) for g in facts.of(GpuFact))


# What a clock or power figure can explain: a ticket about speed (not a crash, an error, or no complaint at all).
_SPEED_SYMPTOMS = ("slow", "scaling", "normal?")


def _about_speed(facts: Facts) -> bool:
    said = claims.symptom_quote(facts)
    return bool(said and said[2] in _SPEED_SYMPTOMS)


@rule("ticket.hardware_error", "hardware_fault")
def hardware_error(facts: Facts, predictions=None):
    """Xid, uncorrectable ECC, reset-required or fallen-off-the-bus errors quoted or described."""
    c = _strongest([c for c in claims.find(facts, "hardware_error")
                    if not any(g.isdigit() and int(g) not in FATAL_XIDS for g in c.data.get("groups", []))])
    if not c or facts.of(XidEvent):
        return  # parsed Xid lines: health.hardware_fault judges them; Xid 13, 31, 43 ... are the application's
    yield make("ticket.hardware_error", "hardware_fault", "critical", weight(c),
               "A GPU reports a hardware error (Xid / ECC / reset required)",
               "The driver reports an error that needs a GPU reset or points at failing hardware; collectives that "
               "include this GPU fail or stall while the others work.",
               [claim_ev(c, "hardware error")],
               fix="Drain the node, reset the GPU (`nvidia-smi -r` or reboot), check "
               "`nvidia-smi -q -d ECC,ROW_REMAPPER` and the Xid meaning; replace the GPU if errors return.",
               refs=["xid", "mem_errors"])


@rule("ticket.power_loss", "hardware_fault")
def power_loss(facts: Facts, predictions=None):
    """The whole machine powers off or reboots by itself under GPU load (rules.claims power_loss): power delivery."""
    c = _first(facts, "power_loss")
    if not c:
        return
    yield _on_claim("ticket.power_loss", "hardware_fault", "critical", c, "the machine loses power under load",
                    "The machine powers off or reboots by itself while the GPUs work",
                    "A machine that cuts out under load with no error logged is losing power: the GPUs' transient "
                    "draw, far above their average for well under a millisecond and summed over cards that tensor "
                    "parallelism keeps in step, trips the power supply's over-current protection. A power limit "
                    "(`nvidia-smi -pl`) caps the average draw, not these spikes.",
                    fix="Give the GPUs more power supply headroom (a larger PSU, a second PSU, separate cables per "
                    "card, fewer GPUs per supply); locking lower clocks (`nvidia-smi -lgc`) damps the spikes where a "
                    "power limit may not. Check `journalctl -b -1` for a clean shutdown: none means the power was cut.")


# GPUs on one HGX/DGX baseboard, whose NVSwitches the node itself manages (fabric manager user guide)
HGX_BOARD_GPUS = 8


@rule("ticket.fabric_setup", "nvlink_down", "healthy")
def fabric_setup(facts: Facts, predictions=None):
    """NVSwitch / NVLS set-up failing: fabric manager not running or not matching the driver. On a GPU the catalog
    places on no NVSwitch the fabric manager has nothing to manage: its failing to start is expected."""
    c = _first(facts, "fabric_setup")
    if not c:
        return
    if board := no_nvswitch_board(facts):
        if not c.guess and re.search(r"fabric ?manager", c.quote or "", re.I):
            yield passed("ticket.fabric_setup", f"The fabric manager has no NVSwitch to manage on {board.name}",
                         "nvidia-fabricmanager configures NVSwitch systems (HGX/DGX boards) only; where the GPUs sit "
                         "on no NVSwitch it stops with NV_WARN_NOTHING_TO_DO ('request to query NVSwitch device "
                         "information ... failed') by design. Nothing needs it here: stop and disable the service "
                         "(`systemctl disable --now nvidia-fabricmanager`).",
                         [claim_ev(c, "the fabric manager failing"),
                          ev(getattr(board, "source", None) or facts.subject.gpu_source or "catalog",
                             getattr(board, "detail", None) or f"catalog {board.key}: no NVSwitch",
                             board.interconnect, "nvswitch")], confidence=0.6)
        return
    # NVLink 5 boards (NVSwitch gen4: HGX/DGX B200 and later, GB200) are programmed through NVLSM, the NVLink subnet
    # manager, over the InfiniBand stack: the fabric manager user guide ("the FabricManager package needs an additional
    # NVLSM dependency", quoted in siderolabs/extensions#717); without the IB modules FM starts on the wrong path
    # (NVIDIA/gpu-operator#2781). Only where the NVSwitches sit on the node's own baseboard (an NVLink domain of one
    # 8-GPU HGX/DGX board): GB200 NVL72 trays reach switch trays managed from the rack (NMX), with no fabric manager on
    # the compute node (NVIDIA/NVSentinel#1275; leptonai/gpud#1106 skips the fabric manager check on GB200)
    spec = facts.subject.gpu
    nvl5 = (" On NVLink 5 baseboards (HGX / DGX B200) the fabric manager also needs NVLSM and the InfiniBand modules "
            "that reach the NVSwitches (ib_umad, mlx5_ib): check that the nvlsm process runs beside it."
            if spec is not None and spec.interconnect == "nvswitch4" and spec.nvlink_domain <= HGX_BOARD_GPUS else "")
    yield _on_claim("ticket.fabric_setup", "nvlink_down", "critical", c, "fabric / NVLS failure",
               "The NVSwitch fabric is not ready (fabric manager / NVLS set-up fails)",
               "On NVSwitch systems the GPUs' NVLink fabric is only usable once nvidia-fabricmanager has trained it; "
               "until then CUDA reports 'system not yet initialized' and NCCL's NVLS (multicast) set-up fails.",
               fix="Start nvidia-fabricmanager with the same version as the driver "
               "(`systemctl status nvidia-fabricmanager`), check `nvidia-smi -q | grep -i fabric` shows 'Completed'; "
               "NCCL_NVLS_ENABLE=0 only works around NVLS." + nvl5,
               refs=["fabric_manager"])


@rule("ticket.link_down", "nvlink_down")
def link_down(facts: Facts, predictions=None):
    """The reporter says NVLink links are down, inactive, or a bridge is not seated."""
    c = _first(facts, "link_down")
    if not c or c.guess or facts.of(NvLinkFact):
        return  # (a question is no link seen down) the link states themselves: topology.nvlink_links judges them
    if _no_nvlink_here(facts):
        return
    yield _on_claim("ticket.link_down", "nvlink_down", "warning", c, "link state",
               "NVLink is reported down or inactive",
               "Traffic between GPUs whose NVLinks are down goes over PCIe instead, at a fraction of the bandwidth.",
               fix="Attach `nvidia-smi nvlink -s` and `nvidia-smi topo -m`; reseat bridges, "
               "check fabric manager on NVSwitch systems.",
               refs=["fabric_manager"])


# The reporter's words that the system has no NVLink at all ("This is on any GPU system without NvLink", NVIDIA/DCGM#49;
# "no NVLink bridge installed", NVIDIA/NVSentinel#1481): its links then read down by design.
_NO_NVLINK_SYSTEM = re.compile(r"\b(?:system|machine|server|node|box|GPUs?|cards?|boards?)\s+"
                               r"(?:without|with no|lacking)\s+(?:an?\s+|any\s+)?NVLinks?\b"
                               r"|\bno\s+NVLink\s+bridges?\s+(?:is\s+|are\s+)?installed\b", re.I)


def _no_nvlink_here(facts: Facts) -> bool:
    """A board without NVLink, by its catalog row (nvlink_gbs 0, no bridge) or the reporter's words: NVML and DCGM
    report such a GPU's NVLinks as down or inactive although there is nothing to link (DCGM's NVLink-down on PCIe
    GPUs without a bridge, NVIDIA/DCGM#49 and NVIDIA/NVSentinel#1481), so that report is no fault."""
    spec = facts.subject.gpu
    if spec is not None and not spec.nvlink_gbs and not spec.nvlink_bridged:
        return True
    return any(_NO_NVLINK_SYSTEM.search(text) for _, text in claims.own_texts(facts))


# A mixed pair whose speeds the catalog does not know: a lead below the physics answers (0.55) and OBSERVED faults.
UNKNOWN_PACE = 0.5
# The name a driver or CUDA runtime prints for a board it has no name for yet (a new or pre-release GPU: the RTX 5090
# in p2pBandwidthLatencyTest under NVIDIA/nccl-tests#287's early driver, an engineering-sample GH200 in nvidia-smi):
# no model, so no second model beside the board's real name. (A plain comparison, not a pattern: every command runs this
# rule, and a capture compiles none of the ticket patterns, tests/test_lazy_re.py.)
PLACEHOLDER_NAMES = ("graphics device", "nvidia graphics device")


def _untruncated(names: set[str]) -> set[str]:
    """The names less those nvidia-smi's table cut to fit its column ("NVIDIA RTX 6000 Ada Gene..."), where another
    source in the ticket (lspci, -q, a CUDA sample) spells the same board out in full."""
    def cut(n: str) -> str | None:
        return n[:-3].rstrip() if n.endswith("...") else n[:-1].rstrip() if n.endswith("…") else None
    return {n for n in names
            if not (cut(n) and any(o != n and o.lower().startswith(cut(n).lower()) for o in names))}


# (wrongcat33) What a slower card in the job explains: its pace. A ticket whose words ask about something else (how much
# memory each card holds, where the layers land, a report of a gain: claims.symptom "other"), state no measured figure
# and call nothing slow or faulty (claims.FAULT_FAMILIES) gets no straggler from its inventory alone; a ticket with no
# description (a capture, a log) keeps the check.
# (c50f) Nor does a failure alone: a slower card slows every step, it does not hang a collective, crash a runner or
# fill a GPU's memory. A hang, crash or error (claims.FAILURE_SYMPTOMS) with no measured figure, no slowness
# complaint and no pace claim (claims.PACE_FAMILIES) is no pace question: a hang on a 4090 and a 4080 traced to a
# motherboard (b50d/deepspeed5766), an out-of-memory on 3090s beside a 3080 (p49h/vllm4998), an out-of-memory on a
# GTX 1080 beside a P100 that a release brought and reverting cured (c50f/ollama3460).
def pace_in_question(facts: Facts) -> bool:
    """Is the ticket about a pace: a complaint, a measured figure, a pace asked or named, or no description?"""
    if facts.of(Measurement) or claims.complaint(facts) is not None:
        return True
    symptom, faults = claims.symptom(facts), claims.fault_claims(facts)
    if symptom in claims.FAILURE_SYMPTOMS:
        # (r50d) unless a pace is named or asked beside the failure ("How many tokens/s should I expect from the 3090
        # and the P40 together? Right now it crashes at load, so I cannot measure.")
        return any(c.kind in claims.PACE_FAMILIES for c in faults) or claims.speed_asked(facts) is not None
    return symptom != "other" or bool(faults)


def gpu_models(facts: Facts) -> tuple[set[str], str | None]:
    """The GPU models the ticket's machine holds and where they are named: the parsed GPUs, else an inventory (a list
    item, a system-info line, not a sentence comparing machines), else models named as used together in one
    sentence."""
    named = [g for g in facts.of(GpuFact) if g.name and " ".join(g.name.lower().split()) not in PLACEHOLDER_NAMES]
    names = {g.name for g in named}
    src = next((g.source for g in named), None)
    if len(names) < 2:
        for n in facts.of(Note):
            if n.kind == "gpus_named":
                listed = {g["name"] for g in n.data.get("gpus", []) if not g["compared"] and g.get("listed")}
                if len(listed) >= 2:
                    names, src = listed, n.source
    together = claims.gpus_together(facts) if len(names) < 2 else None
    if together:  # (issue 11 s) named as used together in one sentence, not compared
        names, src = set(together.data["names"]), together.cited
    return _untruncated(names), src


# (p49h) Boards whose memory differs by more than this share of the larger: a 24 GB 3090 beside an 8 GB 3070 or a
# 10-12 GB 3080, not two cuts of one board (an 80 GB and a 94 GB H100).
UNEQUAL_MEMORY = 0.25


def smaller_card_out_of_memory(facts: Facts) -> tuple[str, list] | None:
    """Out of memory seen on GPUs of unequal memory that share one tensor-parallel job of a stated size: (what says
    the memory differs, evidence), or None. The sizes come from the models named (rules/catalog) or from the
    reporter's words ("GPUs of different sizes"); the out-of-memory must have happened, not be asked about; one GPU
    doing all the work is the unsplit model's case (ticket.memory_unsplit)."""
    # (r49c) one tensor-parallel job, its size read: not replicas (--dp-size), separate servers, or a split whose
    # shares the reporter set (llama.cpp --tensor-split), where each GPU holds what it was given (read first: the
    # cheap test, as ticket.mixed_gpus asks this of every ticket)
    tp, _ = wfield(facts, "tp")
    if not tp or tp < 2 or (wfield(facts, "dp")[0] or 1) >= 2:
        return None
    oom = claims.out_of_memory_seen(facts)
    if oom is None or one_gpu_in_use(facts):
        return None
    if claims.symptom(facts) in ("slow", "scaling"):
        return None  # (r49d) a pace complained of, the out-of-memory a setting worked around: the pace's reading
    names, src = gpu_models(facts)
    sizes = {n: g.memory_gb for n in names if (g := resolve_gpu(n))}
    if len(sizes) >= 2 and min(sizes.values()) < (1 - UNEQUAL_MEMORY) * max(sizes.values()):
        said = ", ".join(f"{n} {gb:g} GB" for n, gb in sorted(sizes.items(), key=lambda x: -x[1]))
        return said, [ev(src, "GPU models and their memory (rules/catalog)", said), claim_ev(oom, "out of memory")]
    words = claims.unequal_memory_said(facts)
    if words:
        return words.cited, [claim_ev(words, "GPUs of unequal memory"), claim_ev(oom, "out of memory")]
    return None


@rule("ticket.unequal_memory_oom", "other")
def unequal_memory_oom(facts: Facts, predictions=None):
    """Out of memory on GPUs of different sizes in one tensor-parallel job: tensor parallelism gives every rank an
    equal shard of the weights and of the KV cache, so the group holds no more than its smallest GPU times the
    group's size and the smaller GPU runs out first. vLLM shards every dimension `dim // tp_size` and "generally
    assumes that all the devices available are the same" (vllm-project/vllm#9157, #10204: use pipeline parallelism);
    SGLang refuses ranks whose free memory differs by more than 10 % (its "memory capacity is unbalanced" check).
    An out-of-memory is a failure, `other` as the engines' memory errors are (ticket.known_error), with this cause
    and fix rather than the generic one."""
    found = smaller_card_out_of_memory(facts)
    if not found:
        return
    said, evidence = found
    yield make("ticket.unequal_memory_oom", "other", "warning", 0.65,
               "Out of memory on GPUs of different sizes: tensor parallelism splits evenly, so the smaller GPU fills "
               "first",
               "Tensor parallelism gives every GPU the same share of the weights and of the KV cache; it cannot give "
               "the larger card more. A group of unequal GPUs therefore holds no more than its smallest GPU times the "
               "number of GPUs, and the smaller card runs out of memory while the larger one keeps free memory. This "
               "is the engines' design (vLLM and SGLang assume GPUs of one size), not a fault.",
               evidence,
               fix="Split by layers instead, where the engine lets the shares differ: vLLM "
               "--pipeline-parallel-size N with VLLM_PP_LAYER_PARTITION giving the smaller GPU fewer layers, "
               "llama.cpp --tensor-split (e.g. 24,8), a device_map with max_memory per GPU; or keep the whole model "
               "within N times the smallest GPU (a smaller or more quantised model, a shorter --max-model-len), or "
               "run on GPUs of one size.",
               refs=["vllm_parallel"])


@rule("ticket.mixed_gpus", "straggler")
def mixed_gpus(facts: Facts, predictions=None):
    """Different GPU models in one job: tensor parallelism (and a layer split) runs at the pace of the slowest."""
    names, src = gpu_models(facts)
    if len({getattr(resolve_gpu(n), "key", n) for n in names}) < 2:
        return  # one product under two names ("DGX Spark" and its chip "GB10")
    if one_gpu_in_use(facts):
        return  # "only one card is used" (review49, ggml-org/llama.cpp#12838, -ts 1,0): the cards do not work together
    if smaller_card_out_of_memory(facts):
        return  # (p49h) the failure is the smaller card's memory (ticket.unequal_memory_oom), not its pace
    if not pace_in_question(facts):
        return  # inventory: a memory or placement question, or a report, is not paced by the slowest card
    specs = [resolve_gpu(n) for n in names]
    pace = pace_gap(specs) if all(specs) else None  # None: the catalog does not know every board named
    if pace is not None and pace < UNLIKE:
        return  # boards alike in memory bandwidth and compute: neither holds the other back
    yield make("ticket.mixed_gpus", "straggler", "warning",
               OBSERVED if pace else UNKNOWN_PACE,  # an inventory fact: a lead, not proof
               f"Different GPU models work together ({', '.join(sorted(names))})",
               "Every tensor-parallel step waits for all GPUs, and a layer split hands each token through every GPU in "
               "turn, so the job runs at the pace of the slowest GPU, "
               "with the extra copies between unlike cards on top."
               + (f" The fastest is {pace:.1f}x the slowest in memory bandwidth or compute (rules/catalog)." if pace
                  else " How far apart their speeds are is not in the catalog: a lead only."),
               [ev(src, "GPU models in the job", ", ".join(sorted(names)))],
               fix="Run on identical GPUs; otherwise give the slower card less work (uneven layer split) or leave it "
               "out and compare with the fastest GPU alone.")


@rule("ticket.one_slow", "straggler")
def one_slow(facts: Facts, predictions=None):
    """One GPU, rank or node is always behind and the others wait for it."""
    c = _first(facts, "one_slow")
    if not c or c.negated or c.guess or claims.solved(facts):
        return  # "GPU0 slower ... after I reseated it. Problem solved.": a slow GPU of the past; (review50) "Is this a
        # straggler problem?" asks, it does not see one
    yield make("ticket.one_slow", "straggler", "warning", weight(c),
               "One GPU (rank) is consistently slower and the others wait for it",
               "A collective finishes when its slowest rank arrives: one GPU held back by clocks, power, a PCIe link "
               "or a busier CPU core makes every other rank wait in the collective.",
               [claim_ev(c, "one rank behind")] + ([ev(c, "the job's figure with that member left out (expected: "
                                                       "with it)", c.data["without"], c.data["with"], c.data["unit"])]
                                                   if c.data.get("origin") == "figures" else []),
               fix="Find why that GPU is slower: compare `nvidia-smi -q -d CLOCK,PERFORMANCE` and the PCIe link of "
               "that GPU with its peers, and its CPU/NUMA binding.",
               refs=["throttle"])


@rule("ticket.launch_overhead", "launch_bound")
def launch_overhead(facts: Facts, predictions=None):
    """The reporter sees the host's kernel launches holding the GPU back (launch time in a profile, the
    GPU idle while the CPU launches): short kernels finish before the next one is launched."""
    c = _first(facts, "launch_overhead")
    if not c or c.negated or c.guess:
        return  # "I read that launch overhead matters" is hearsay, not what the reporter sees
    yield make("ticket.launch_overhead", "launch_bound", "warning", weight(c),
               "The GPU waits for the CPU to launch its kernels",
               "Each kernel launch costs the host a few microseconds; when kernels are shorter than that, as in decode "
               "or small batches, the GPU idles between them and more GPUs (shorter kernels each) make it worse.",
               [claim_ev(c, "launch time the reporter sees")],
               fix="Replay the step from CUDA graphs (the engines' default; torch.compile mode='reduce-overhead'), "
               "give each launch more work (larger batch, fused kernels), keep the launching thread on an unshared "
               "core, and confirm the gaps between kernels in an nsys timeline (`diagnose capture`).",
               refs=["cuda_graphs"])


@rule("ticket.one_gpu_every_peer", "pcie_link_degraded")
def one_gpu_every_peer(facts: Facts, predictions=None):
    """One GPU slow to every peer while the others are fast among themselves: a copy runs at the slowest
    link on its path, and the one link all of that GPU's paths share is its own PCIe link (a slot wired
    narrower, a link trained down, a riser)."""
    groups: dict[tuple, dict[frozenset, PairBandwidth]] = {}
    for p in facts.of(PairBandwidth):
        if p.a != p.b and p.unit.lower() in ("gb/s", "gbps") and p.value > 0:
            groups.setdefault((p.direction, p.p2p_enabled), {}).setdefault(frozenset((p.a, p.b)), p)
    for pairs in groups.values():
        gpus = sorted({g for pair in pairs for g in pair})
        if len(gpus) < 4:
            continue  # the rest must be at least three pairs to show what a healthy pair gets here
        for x in gpus:
            mine = [p for pair, p in pairs.items() if x in pair]
            rest = [p.value for pair, p in pairs.items() if x not in pair]
            if len(rest) < 3 or min(rest) < 0.6 * max(rest):
                continue  # the others are not alike (NUMA sides, NVLink pairs): no single reference
            typical = statistics.median(rest)
            if max(p.value for p in mine) < 0.5 * typical:
                worst = max(mine, key=lambda p: p.value)
                yield make("ticket.one_gpu_every_peer", "pcie_link_degraded", "warning", 0.6,
                           f"GPU{x} is slow to every peer ({worst.value:g} GB/s at best, others {typical:g} GB/s)",
                           "Every copy to or from this GPU is slow while the other GPUs reach each other at full "
                           "speed. A copy runs at the slowest link on its path, and the link all of this GPU's paths "
                           "share is its own PCIe link: a slot wired narrower than x16, "
                           "a link trained down to an older generation, or a riser.",
                           [ev(worst, f"GPU{x}'s fastest peer copy ({worst.direction}directional)", worst.value,
                               round(typical, 2), "GB/s"),
                            ev(worst.source, "median of the pairs without it", round(typical, 2), unit="GB/s")],
                           fix=f"Check GPU{x}'s link under load: `nvidia-smi --query-gpu=index,pcie.link.gen.current,"
                           "pcie.link.width.current,pcie.link.gen.max,pcie.link.width.max --format=csv` "
                           "and `lspci -vvv` (LnkSta vs LnkCap); move it to a CPU-attached x16 slot, reseat it, "
                           "or replace the riser.",
                           refs=["nvidia_smi"])
                return


@rule("ticket.pcie_pairs", "expected_physics")
def pcie_pairs(facts: Facts, predictions=None):
    """GPU-to-GPU copies between GPUs without NVLink, against the PCIe link they cross: copies reach
    about 70-90 % of the x16 line rate (packet headers and flow control); that is the link working."""
    spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
    if spec is None or has_nvlink(facts):
        return
    pairs = [p for p in facts.of(PairBandwidth)
             if p.a != p.b and p.unit.lower() in ("gb/s", "gbps") and p.p2p_enabled is not False and p.value > 0]
    pick = [p for p in pairs if p.direction == "uni"] or pairs
    if not pick:
        return
    factor = 1 if pick[0].direction == "uni" else 2
    gen, lanes = spec.pcie_gen or 4, spec.pcie_lanes or 16
    rate = pcie_gbs(spec) * factor
    best = max(pick, key=lambda p: p.value)
    share = best.value / rate
    if share > 1.05 or share < 0.7:
        return  # above the PCIe rate: another path (NVLink) or another link; well below: transport and link rules
    slowest = min(pick, key=lambda p: p.value)
    yield make("ticket.pcie_pairs", "expected_physics", "info", 0.6,
               f"{best.value:g} GB/s between GPUs is {share:.0%} of PCIe Gen{gen} x{lanes}: the link works",
               "Without NVLink, GPU-to-GPU copies cross PCIe, and copy engines reach about 70-90 % of the x16 line "
               "rate because of packet headers and flow control; pairs that cross the CPU sockets land lower. "
               "These figures are what the hardware delivers.",
               [ev(best, f"fastest GPU{best.a}->GPU{best.b} copy ({best.direction}directional)", best.value,
                   round(rate, 1), "GB/s"),
                ev(slowest, f"slowest GPU{slowest.a}->GPU{slowest.b} copy", slowest.value, round(rate, 1), "GB/s"),
                ev(spec_src or "catalog", f"PCIe Gen{gen} x{lanes} line rate ({spec.key})", expected=round(rate, 1),
                   unit="GB/s")],
               fix="Nothing to fix on the links; for faster GPU-to-GPU transfers the GPUs need NVLink (bridges or an "
               "NVLink/NVSwitch board).")


# --------------------------------------------------------------------------- software / configuration


def _tp_error(facts: Facts) -> Claim | None:
    """The engine's refusal of the TP size the reporter affirms; the bare "25 is not divisible by 4" (data.groups:
    the two numbers) only where its divisor is a TP size over 1 the ticket names (common.tp_sizes)."""
    errors = claims.find(facts, "tp_size_error")
    found = [c for c in errors if len(c.data.get("groups", [])) != 2]
    tiles = [c for c in errors if _TILE.search(c.quote)]
    bare = [c for c in errors if len(c.data.get("groups", [])) == 2 and c not in tiles]
    sizes = {t for t, _ in tp_sizes(facts) if t >= 2} if bare or tiles or found else set()
    # (s42review) a width worked through against "TP x group" whose groups every TP size the ticket runs divides
    # ("29696 除以 128 后为 232，不能被 3 整除" beside TP=8: 232 groups split 8 ways) refuses none of them, unless the
    # TP it cannot split into is one the ticket states, as a TP size or as the GPUs it ran on (fr42: "TP=8 没问题，换成
    # 3 张 A100 启动就报错": the 3 cards are the failing TP)
    cards = {w.gpu_count for w in facts.of(Workload) if w.gpu_count} if found else set()
    found = [c for c in found if not (sizes and (split := _group_split(c)) and sizes <= set(split.fit)
                                      and split.into not in sizes | cards)]
    return _strongest(found + [c for c in bare if int(c.data["groups"][1]) in sizes]
                      + [c for c in tiles if _whole_at_tp1(c, sizes)])


def _whole_at_tp1(c: Claim, sizes: set[int]) -> bool:
    """A kernel-tile refusal of one rank's shard is the layout's only where the whole width (the shard times a TP
    size the ticket names) is a whole number of tiles: a smaller TP then loads. Where it is not, no TP helps and
    the kernel's limit is the cause (a fix of another kind: another kernel or checkpoint)."""
    shard, tile = (int(g) for g in c.data.get("groups", [0, 0])[:2])
    return bool(tile) and any((shard * t) % tile == 0 for t in sizes)


# A quantised kernel's tile refusing one rank's shard (Marlin's min_thread_k/n, a kernel's tile_n_size): the layout's
# fault only at TP 2 or more, where the shard is the width over TP (claims.TEXT_PATTERNS tp_size_error)
_TILE = re.compile(r"_size_per_partition\s*=|\btile_[kn]_size\b", re.I)


@rule("ticket.tp_setting_dropped", "other")
def tp_setting_dropped(facts: Facts, predictions=None):
    """The tensor-parallel size the reporter configured did not reach the engine: the platform, chart or launcher that
    starts it dropped or misread the setting, so the engine runs with its default (vLLM's and SGLang's TP size is 1,
    one GPU) whatever the GPUs are. A configuration fault of the deploy layer, not the GPUs'."""
    c = claims.tp_setting_dropped(facts)
    if not c:
        return
    yield make("ticket.tp_setting_dropped", "other", "warning", weight(c, 0.6),
               "The tensor-parallel size given does not reach the engine",
               "The engine runs with the tensor-parallel size it is started with; a serving platform, Helm chart or "
               "launcher that drops, ignores or renames the setting (SGLang reads --tp-size, vLLM "
               "--tensor-parallel-size, TGI --num-shard) starts it with the default, one GPU, so the other GPUs stay "
               "idle and a model larger than one GPU runs out of memory. The GPUs and their links are not involved.",
               [claim_ev(c, "the setting that did not take")],
               fix="Check the command the platform actually runs (the engine's start-up line prints "
               "tensor_parallel_size / tp_size and world_size) and pass the size in the flag that engine reads; "
               "upgrade the platform if it drops the setting (gpustack/gpustack#5966, llmos-ai/llmos#40).")


@rule("ticket.tp_size_error", "tp_not_dividing_heads")
def tp_size_error(facts: Facts, predictions=None):
    """The engine refuses the TP size: a dimension (heads, KV heads, quantised weight groups) does not split."""
    c = _tp_error(facts)
    if not c or c.guess:  # "will I hit '... not divisible by ...'?" is no error
        return
    tp, tp_src = wfield(facts, "tp")
    evidence = [claim_ev(c, "the engine's error")] + ([ev(tp_src, "tensor-parallel size", tp)] if tp else [])
    fix = ("Use a TP size that divides the dimension the error names (often 2 or 4 instead of 3, 6 or 8 for "
           "quantised models with group size 128); use the other GPUs for pipeline parallelism or replicas.")
    if _TILE.search(c.quote) and tp and int(tp) >= 2:  # one rank's shard against a kernel's tile: the full width
        shard, tile = (int(g) for g in c.data["groups"][:2])
        split = (shard * int(tp), tile, shard * int(tp) // tile, [t for t in (1, 2, 4, 8)
                 if (shard * int(tp)) % (t * tile) == 0]) if (shard * int(tp)) % tile == 0 else None
        evidence.append(ev(evidence[0].source, f"one rank's width ({shard}) x TP {tp} against the kernel's tile "
                           f"({tile})", shard * int(tp), f"a multiple of TP x {tile}"))
        if split and split[3]:
            width, group, groups, fit = split
            fix = (f"{shard} x TP {tp} = {width} = {groups} tiles of {group}, which TP {' or '.join(map(str, fit))} "
                   f"split evenly: use TP {fit[-1]} (the other GPUs for replicas or pipeline stages), or a checkpoint "
                   "whose widths are padded for the TP size you need.")
        else:
            fix = (f"{shard} x TP {tp} = {shard * int(tp)} is not a whole number of {tile}-wide tiles at any TP: "
                   "use a checkpoint whose widths are padded for TP, or a kernel without this tile (the error's own "
                   "advice names one).")
    elif split := _group_split(c):  # a quantised width against TP x group: which TP sizes share its groups evenly
        width, group, groups, fit, _ = split
        evidence.append(ev(evidence[0].source, f"quantisation groups in the width ({width} / group size {group})",
                           groups, "a multiple of the TP size"))
        fix = (f"{width} / {group} = {groups} quantisation groups, which TP {' or '.join(map(str, fit))} split evenly: "
               f"use TP {fit[-1]} (the other GPUs for replicas or pipeline stages), or requantise with a group size "
               "that leaves a multiple of the TP size, if the engine runs that group size.")
    yield make("ticket.tp_size_error", "tp_not_dividing_heads", "critical", 0.8,  # the engine's own error text
               "The TP size does not divide the model's heads or (quantised) weight shapes",
               "Tensor parallelism splits every attention head group and weight matrix evenly; "
               "when a dimension (heads, KV heads, FFN width, or a quantised layer's group count) is not a multiple of "
               "the TP size the engine refuses to load.",
               evidence, fix=fix, refs=["vllm_parallel"])


class _GroupSplit(NamedTuple):
    """A quantised width stated against "TP x group" ('intermediate_size 27392 ... 4*128'), _group_split."""
    width: int
    group: int  # the group size: the factor of 32 or more
    groups: int  # width // group
    fit: list[int]  # the power-of-two TP sizes up to 8 that divide the groups
    into: int  # the TP size the error names: the other, smaller factor


def _group_split(c: Claim) -> _GroupSplit | None:
    """The split of an error that states a quantised width against "TP x group": the group is the factor of 32 or more
    (group sizes are 32-256, TP sizes 1-8), the TP size the other; None unless the width splits into whole groups."""
    nums = [int(g) for g in c.data.get("groups", []) if str(g).isdigit()]
    if len(nums) != 3:
        return None
    width, a, b = nums
    group = max(a, b)
    if group < 32 or min(a, b) > 16 or width % group:
        return None
    groups = width // group
    fit = [t for t in (1, 2, 4, 8) if groups % t == 0]
    return _GroupSplit(width, group, groups, fit, min(a, b))


@rule("ticket.eager_flag", "eager_mode")
def eager_flag(facts: Facts, predictions=None):
    """The engine the ticket shows runs without CUDA graphs (--enforce-eager, --disable-cuda-graph), as
    the reporter's words or pasted commands say it where no launch line was parsed."""
    _, c = runs_eager(facts)
    if not isinstance(c, Claim):
        return  # a parsed launch line says it: workload.eager_mode judges it (none: nothing says, or only a guess)
    if claims.graphs_tried_no_gain(facts):
        return  # the reporter turned CUDA graphs on and the figure did not move: graphs are ruled out
    if claims.settings_as_reference(facts):
        return  # the reference the figure falls short of ran the same flags: eager mode is not the gap to it
    said = claims.symptom_quote(facts)
    failed = bool(said and said[2] in FAILURES)
    if failed and not claims.complaint(facts):  # "should I use --enforce-eager?" runs without it
        return  # against a crash or hang the flag is a workaround people add, not the cause
    if claims.sharding_beats_replicas(facts):
        # (pairs36) the tensor-parallel side came out ahead of copies of the model: eager mode costs that side most
        # (its launches wrap every all-reduce), so it cannot be why it won; a lead that leans against itself (0.35)
        yield _on_claim("ticket.eager_flag", "eager_mode", "info", c, "CUDA graphs off",
                        "The engine runs without CUDA graphs (eager mode); it does not explain why the sharded "
                        "model won", "Eager mode slows the tensor-parallel side of the comparison most, which came "
                        "out ahead all the same.", fix="Drop --enforce-eager (vLLM) or --disable-cuda-graph "
                        "(SGLang) on both sides and compare again.", refs=["vllm_graphs"], observed=0.35)
        return
    # ("graph capture fails, so we run eager, and decode is only 20 tok/s": the speed is still the question, and the
    # failure beside it leaves the flag a lead, not the whole answer)
    yield _on_claim("ticket.eager_flag", "eager_mode", "warning", c, "CUDA graphs off",
               "The engine runs without CUDA graphs (eager mode)",
               "With CUDA graphs off the CPU launches every kernel of every layer for each decoded token, and with "
               "tensor parallelism every rank does so around each all-reduce; at small and medium batch the GPUs "
               "finish each kernel before the next is launched, so decode runs at the pace of the launches.",
               fix="Drop --enforce-eager (vLLM/Aphrodite) or --disable-cuda-graph (SGLang) and compare decode tok/s; "
               "if a feature forces eager mode (some quantisation kernels, unsupported GPUs), "
               "weigh it against the loss.",
               refs=["vllm_graphs"], observed=0.5 if failed else OBSERVED)


@rule("ticket.p2p_refused", "p2p_disabled", "expected_physics")
def p2p_refused(facts: Facts, predictions=None):
    """The reporter sees GPU peer-to-peer refused or off on bare metal (CUDA's 'peer access is not
    supported', `topo -p2p` NS/CNS, 'P2P disabled'): NCCL then stages GPU-to-GPU traffic through host memory. Said
    with the GPUs on different CPU sockets or NUMA nodes as the reason (SYS), it is NCCL's own policy on that path: an
    expected_physics lead where the reporter complains, nothing refused."""
    c = _first(facts, "no_p2p")
    if not c or is_virtualized(facts):
        return  # in a VM topology.virtualization_no_p2p judges it
    if c.guess or claims.own_system_fine(facts, c):
        return  # said of other systems ("..., but on mine every cell is OK"), or asked: no refusal seen here
    if claims.p2p_run_enabled(facts):
        return  # P2P ran enabled as one arm of the reporter's A/B: the driver did not refuse it
    if p2p_seen_working(facts, delivered=True, words=False):
        return  # (p2ptest34) the host's own check moved data peer-to-peer on every pair it tried: the words are about
        # another system or a comparison arm. (Not the grant alone: "P2P fails between 5090s" beside CAN Access Peer,
        # aikitoria/open-gpu-kernel-modules#11, is a grant that does not deliver.)
    if has_nvlink(facts):
        yield from _p2p_refused_over_nvlink(facts, c)
        return  # over NVLink, PCIe P2P is not the path
    nodes, _ = node_count(facts)
    if (nodes or 1) > 1 and (_gpus(facts) or 0) < 2:
        return
    if claims.p2p_off_by_setting(facts, c):
        yield _p2p_off_by_setting(facts, c)
        return
    if claims.p2p_off_across_cpus(facts, c):
        if claims.complaint(facts):
            yield _p2p_off_across_cpus(c)
        return  # (p2pline36) NCCL's own policy on a path across the CPUs: nothing refused, no fault to name
    gpu, gpu_src = facts.subject.gpu, facts.subject.gpu_source
    geforce = gpu is not None and not gpu.pcie_p2p
    evidence = [claim_ev(c, "peer-to-peer refused")] + (
        [ev(gpu_src, "GPU without PCIe P2P (catalog)", gpu.key)] if geforce else [])
    yield make("ticket.p2p_refused", "p2p_disabled", "warning", weight(c),
               "Peer-to-peer between the GPUs is refused, so GPU traffic goes through host memory",
               "Without P2P, NCCL copies every transfer between GPUs through host shared memory (SHM), and CUDA peer "
               "copies through the CPU: the all-reduce runs at a fraction of the PCIe rate and decode with tensor "
               "parallelism hits that ceiling. GeForce boards do not get PCIe P2P from the stock driver; on other "
               "boards ACS on the PCIe switches or the IOMMU blocks it.",
               evidence,
               fix="Check `nvidia-smi topo -p2p r` and `p2pBandwidthLatencyTest`; on data-centre boards disable ACS on "
               "the PCIe switches (or boot with iommu=pt) and compare all_reduce_perf; "
               "on GeForce boards expect the SHM ceiling and prefer fewer GPUs or a layer split.",
               refs=["nccl_acs", "nccl_trouble"])


def _p2p_off_by_setting(facts: Facts, c: Claim):
    """P2P switched off by the reporter for the run (claims.p2p_off_by_setting): NCCL then moves GPU-to-GPU traffic
    over SHM through host memory (NCCL_P2P_DISABLE, NCCL's env docs), so the figures are SHM's, not the links'. Where
    it was switched off to get past a hang, that hang's usual cause is ACS or the IOMMU on the PCIe path (the NCCL
    maintainer in NVIDIA/nccl#631; NCCL's troubleshooting guide)."""
    said = claims.symptom_quote(facts)
    hang = bool(said and said[2] in FAILURES)
    fix = ("Run the same test with P2P on (NCCL_P2P_DISABLE unset) and compare: the figures with P2P off are SHM's, "
           "through host memory, whatever the links can do.")
    if hang:
        fix += (" If P2P was switched off because the run hangs with it on, that hang usually comes from ACS on the "
                "PCIe switches or the IOMMU redirecting peer traffic: disable ACS (or boot with iommu=pt) and check "
                "`p2pBandwidthLatencyTest`.")
    return make("ticket.p2p_refused", "p2p_disabled", "warning", weight(c),
                "P2P is off by the reporter's setting, so GPU traffic goes through host memory (SHM)",
                "With P2P switched off (NCCL_P2P_DISABLE=1 or the like), NCCL copies every transfer between GPUs "
                "through host shared memory (SHM): the all-reduce figures measured that way are SHM's, bounded by "
                "the CPUs' memory and the PCIe path to the host, not by peer-to-peer between the GPUs.",
                [claim_ev(c, "P2P off by setting")],
                fix=fix, refs=["nccl_env", "nccl_acs"])


def _p2p_off_across_cpus(c: Claim):
    """P2P off where the reporter's own sentence puts the GPUs on different CPU sockets or NUMA nodes
    (claims.p2p_off_across_cpus): NCCL keeps P2P off across the CPUs' interconnect by its own policy and stages the
    traffic through host memory, so the complaint is the platform's path, not a refusal to undo."""
    return make("ticket.p2p_refused", "expected_physics", "info", 0.45,
                "P2P is off because the GPUs hang off different CPUs: NCCL's own choice on that path",
                "Between GPUs on different CPU sockets or NUMA nodes (SYS in `nvidia-smi topo -m`) NCCL does not use "
                "peer-to-peer by default: the CPUs' interconnect forwards peer traffic poorly, so NCCL stages it "
                "through host memory (SHM). Nothing the hardware offers is refused; the figures are what that path "
                "gives.",
                [claim_ev(c, "P2P off on a path across the CPUs")],
                fix="Put the TP group on GPUs under one CPU (`nvidia-smi topo -m`: PIX, PXB or PHB between them, "
                "CUDA_VISIBLE_DEVICES to choose them); compare all_reduce_perf with NCCL_P2P_LEVEL=SYS only as a "
                "test, since P2P through the CPUs is often slower than SHM.",
                refs=["nccl_env", "nccl_trouble"])


@rule("ticket.p2p_level_inert", "p2p_disabled")
def p2p_level_inert(facts: Facts, predictions=None):
    """The reporter varied NCCL_P2P_LEVEL (or NCCL_P2P_DISABLE) over many values on one node and the figure stayed the
    same (claims.p2p_levels_same): the levels run from LOC, P2P off, to SYS, so a figure no level moves is one NCCL
    reached without P2P under every level, as when CUDA refuses peer access between the GPUs (NVIDIA/nccl#967, the
    maintainer's answer; issue 11, ut21a). Not over NVLink (every level but LOC takes it), not where NCCL's log shows a
    P2P connection, not across nodes (the network then sets the figure)."""
    c = claims.p2p_levels_same(facts)
    if not c or has_nvlink(facts) or p2p_seen_working(facts, words=False):
        return
    nodes, _ = node_count(facts)
    if (nodes or 1) > 1 or _across_nodes(facts):
        return
    yield make("ticket.p2p_level_inert", "p2p_disabled", "warning", 0.5,
               "Every NCCL_P2P_LEVEL gives the same figure: NCCL is not using peer-to-peer at all",
               "NCCL_P2P_LEVEL only chooses how far apart two GPUs may be for NCCL to use P2P, from LOC (never) "
               "to SYS (across the CPUs). When all levels give the same result (LOC, which turns P2P off, among "
               "them), no level let NCCL use P2P: CUDA reports no peer access between these GPUs (ACS or the "
               "IOMMU on the PCIe path, a VM, or boards the driver gives no PCIe P2P), so NCCL stages every "
               "transfer through host memory whatever the setting.",
               [claim_ev(c, "the P2P setting varied, the figure unchanged")],
               fix="Check `nvidia-smi topo -p2p r` and `p2pBandwidthLatencyTest` (P2P=Enabled rows no faster than "
               "P2P=Disabled mean no peer access), and the NCCL_DEBUG=INFO lines: 'via SHM' where 'via P2P/IPC' "
               "was expected. On bare-metal data-centre boards disable ACS on the PCIe switches (or boot with "
               "iommu=pt); in a VM ask for an instance with GPU peer-to-peer.",
               refs=["nccl_env", "nccl_acs"])


def _p2p_refused_over_nvlink(facts: Facts, c: Claim):
    """NVLink links up, and the run fails because peer access is refused: CUDA enables peer access over a bridge
    only where the driver allows it (driver releases have changed that for GeForce boards), so the links carry
    nothing and the engine's P2P paths (custom all-reduce, NCCL's P2P transport) fail. Said as an observation of a
    failing run only: "P2P not supported" beside working NVLink pairs often names the PCIe path alone."""
    said = claims.symptom_quote(facts)
    active = [n for n in facts.of(NvLinkFact) if n.active]
    if not active or not said or said[2] not in FAILURES:
        return
    yield make("ticket.p2p_refused", "p2p_disabled", "warning", weight(c),
               "Peer access is refused although the NVLink links are up",
               "NVML reports the NVLink links active, yet CUDA refuses peer access between the GPUs. Whether peer "
               "access is enabled over a bridge is the driver's decision (GeForce drivers have changed it between "
               "releases), so the links carry no traffic and the engine's peer-to-peer paths fail or fall back to "
               "host memory.",
               [claim_ev(c, "peer-to-peer refused"), ev(active[0], "NVLinks reported active", links_per_gpu(active))],
               fix="Check `nvidia-smi topo -p2p n` (NVLink) and `-p2p r` (PCIe) and the driver version against the one "
               "that last worked; go back to that driver, or run without the P2P paths (vLLM "
               "--disable-custom-all-reduce) and measure what the bridge was worth.",
               refs=["nccl_trouble"])


@rule("ticket.pp_bubble", "pp_bubble")
def pp_bubble(facts: Facts, predictions=None):
    """Pipeline parallelism judged by what it can give: with fewer micro-batches in flight than stages,
    the stages wait for each other (the pipeline bubble), and one request never gets faster. A pipeline or layer
    split measured slower than a tensor (row) split of the same GPUs is that wait seen ("split_mode layer gives 60 %
    of the tokens/s of split_mode row"), whether or not the words say pipeline."""
    if not _about_speed(facts):
        return
    pp, pp_src = wfield(facts, "pp")
    c = _first(facts, "pipeline_parallel")
    c = None if c and c.guess else c  # "would pipeline parallelism be better?" asks about a layout not in use
    lost = next((t for t in claims.tp_pp_compared(facts) if t.data["directed"] and not t.data["pp_wins"]), None)
    if not ((pp or 0) >= 2 or c or lost) or claims.spread_wins(facts):
        return  # (mend41) the pipelined / multi-node side measured the faster: no bubble complained of
    few = _first(facts, "few_requests")
    evidence = (([ev(pp_src, "pipeline-parallel stages", pp)] if pp else [])
                + ([claim_ev(c, "pipeline parallelism")] if c else [])
                + ([claim_ev(lost, "the pipeline (layer) split measured slower than the tensor split")]
                   if lost else []))
    evidence += [claim_ev(few, "requests in flight")] if few else []
    yield make("ticket.pp_bubble", "pp_bubble", "warning", 0.6 if few else 0.5,
               "Pipeline stages wait for each other: too few requests in flight to fill the pipeline",
               "Pipeline parallelism hands each micro-batch through the stages in turn: a request is never faster than "
               "on one stage's GPUs plus the hand-overs, and with m micro-batches in flight over P stages each stage "
               "idles (P-1)/(m+P-1) of the time (GPipe's bubble). It adds throughput only when many concurrent "
               "requests keep every stage busy.",
               evidence,
               fix="For latency or few concurrent requests use tensor parallelism within a node (llama.cpp: "
               "--split-mode row or tensor instead of the default layer split; or one GPU for a model that fits); "
               "keep PP for models that do not fit, across nodes, with enough concurrent requests to fill every stage.",
               refs=["vllm_parallel"])


@rule("ticket.one_request_per_call", "latency_bound_small_batch")
def one_request_per_call(facts: Facts, predictions=None):
    """A pasted script sends its prompts one per generation call in a loop (issue_md._looped_requests): each call
    waits for its answer before the next is sent, so the engine decodes one sequence at a time and its throughput is
    batch 1's, whatever it could batch. A speed held against a batched figure (an engine's published speed-up, a
    benchmark's requests/s) is then short by the batch the client never sent: the benchmark's own artefact, not the
    engine's or the GPUs'."""
    w = next((w for w in facts.of(Workload) if w.extra.get("one_call_per_item")), None)
    said = claims.symptom_quote(facts)
    if w is None or not said or said[2] in FAILURES or (said[2] == "other" and not claims.asks(facts)):
        return  # a failure's script is its reproduction, not a benchmark; a report that asks nothing is not judged
    yield make("ticket.one_request_per_call", "latency_bound_small_batch", "warning", 0.6,
               "The script sends one prompt per call and waits: the engine never batches",
               "The timed loop passes one item to each generation call and waits for its answer before the next, so "
               "the engine decodes one sequence at a time (batch 1). Decode at batch 1 streams every weight once per "
               "token for one token; the same step could serve dozens of sequences at nearly the same cost, which is "
               "where a serving engine's throughput and its published speed-ups come from.",
               [ev(w.source, "requests sent one per generation call, in a loop (batch 1)",
                   w.extra["one_call_per_item"])],
               fix="Pass all prompts to one call (vLLM's LLM.generate and SGLang's Engine.generate take a list and "
               "batch it themselves; Hugging Face generate takes a padded batch), or against a server send the "
               "requests concurrently (vllm bench serve --max-concurrency N, asyncio.gather); compare throughput "
               "measured that way.",
               refs=["https://docs.vllm.ai/en/latest/getting_started/quickstart.html"],
               ask="the same benchmark with all prompts passed in one call (or sent concurrently), with its time")


@rule("ticket.small_collective_slow", "straggler")
def small_collective_slow(facts: Facts, predictions=None):
    """A collective of bytes to a megabyte that takes milliseconds in an application: such a collective
    is latency-bound at tens of microseconds, so the time is ranks waiting for a late one."""
    c = _first(facts, "small_collective_slow")
    if not c:
        return
    size, unit, took, tunit = c.data["groups"][:4]
    nbytes = float(size) * claims.BYTES_PER_UNIT[unit.lower()]
    ms = float(took) * (1000.0 if tunit.lower().startswith("s") else 1.0)
    if nbytes > 1e6 or ms < 10 * SMALL_COLLECTIVE_MS:
        return
    yield make("ticket.small_collective_slow", "straggler", "warning", weight(c, 0.6),
               f"A {size} {unit} collective takes {took} {tunit}: the ranks wait for a late one",
               "A collective this small moves almost no data: NCCL finishes it in tens of microseconds (the small-size "
               "rows of nccl-tests), within a node or across nodes. Milliseconds inside an application are the time "
               "the early ranks spend in the collective until the last rank arrives (uneven work, a slower GPU, "
               "host work or data loading on one rank).",
               [claim_ev(c, "collective size and time"),
                ev(c.source, "time of the collective in the application", ms, SMALL_COLLECTIVE_MS, "ms"),
                ev(c.source, "collective size", nbytes, unit="B")],
               fix="Time the collective after a barrier, or compare when each rank enters it in an nsys trace; "
               "find the rank that arrives late and why (its GPU clocks, its data loader, its CPU binding).",
               refs=["nccl_tests_perf"])


# What a collective of up to a megabyte costs when every rank arrives together: NCCL's small-message
# latency, tens of microseconds (nccl-tests small-size rows, intra- and inter-node), rounded up.
SMALL_COLLECTIVE_MS = 0.1


@rule("ticket.gdr_off", "gdr_disabled")
def gdr_off(facts: Facts, predictions=None):
    """The reporter cannot get GPUDirect RDMA: the NIC then reads and writes GPU memory through host
    memory. Judged here only when no NCCL log shows the network path (nccl.gdr reads those)."""
    c = _first(facts, "gdr_off")
    if not c or [t for t in facts.of(NcclTransport) if t.transport == "NET"]:
        return
    module = _first(facts, "module_missing")
    evidence = [claim_ev(c, "GPUDirect RDMA off")] + ([claim_ev(module, "kernel module")] if module else [])
    yield make("ticket.gdr_off", "gdr_disabled", "warning", weight(c, 0.6) + (0.05 if module else 0.0),
               "GPUDirect RDMA is not in use between the GPUs and the NIC",
               "Without GPUDirect RDMA the NIC cannot read or write GPU memory directly: NCCL stages every inter-node "
               "transfer through host memory, which costs bandwidth and CPU. GDR needs the nvidia_peermem kernel "
               "module (or DMA-BUF with the open driver on a recent kernel) and a GPU and NIC close enough in PCIe "
               "(NCCL_NET_GDR_LEVEL).",
               evidence,
               fix="`modprobe nvidia_peermem` on every node (check `lsmod | grep nvidia_peermem`), or use DMA-BUF; "
               "then the NCCL_DEBUG=INFO log's 'via NET/IB/<dev>/GDRDMA' lines confirm it.",
               refs=["gdr", "nccl_env"])


@rule("ticket.nccl_build", "nccl_regression")
def nccl_build(facts: Facts, predictions=None):
    """The loaded NCCL library cannot serve CUDA graphs: NCCL's own warning that it was built for a
    CUDA runtime older than 11.3 (or the driver is older than R465), which engines that capture
    their decode steps as graphs run into at TP >= 2."""
    warn = next((e for e in facts.of(NcclEvent) if "cannot be captured in a graph" in (e.message or "")), None)
    old = [v for v in facts.of(NcclVersion) if v.cuda and claims.version_key(v.cuda) < (11, 3)]
    if not (warn or old):
        return
    engine = facts.subject.engine
    if not warn and not (engine and engine.cuda_graphs):
        return  # an old build alone matters where decode steps are captured as graphs (nccl-tests does not)
    evidence = ([ev(warn, "NCCL's warning", warn.message[:120])] if warn else []) + \
               [ev(v, "CUDA runtime the loaded NCCL was built for", v.cuda, ">= 11.3") for v in old[:1]]
    yield make("ticket.nccl_build", "nccl_regression", "critical" if warn else "warning", 0.75 if warn else 0.5,
               "The NCCL library in use was built for too old a CUDA runtime to be captured in CUDA graphs",
               "NCCL supports CUDA-graph capture only when built with CUDA runtime 11.3 or newer on driver R465 or "
               "newer; engines that capture decode steps as graphs (vLLM, SGLang, TensorRT-LLM) fail at TP >= 2 when a "
               "package pulls in an older NCCL build, while TP=1 (no NCCL) works.",
               evidence,
               fix="Install the NCCL build that matches the CUDA runtime of PyTorch (`pip install nvidia-nccl-cu12` / "
               "the wheel torch pins) and check `NCCL version ... +cudaXX.Y` in the NCCL_DEBUG=INFO log.",
               refs=["nccl_env"])


# NCCL settings whose working-around a hang or failure points at one cause (NCCL env docs): the category, what the
# setting turns off, and the fix for that path (each path has its own: ACS/IOMMU are P2P's, not NVLS's or cuMem's).
_P2P_PATH_FIX = ("Fix the path instead of disabling it: disable ACS on the PCIe switches / IOMMU (or set iommu=pt), "
                 "then check with `p2pBandwidthLatencyTest`.")
WORKAROUNDS = {
    "NCCL_P2P_DISABLE": ("p2p_disabled", "GPU peer-to-peer transfers themselves fail on this host", _P2P_PATH_FIX),
    "NCCL_P2P_LEVEL": ("p2p_disabled", "P2P over some PCIe paths fails on this host", _P2P_PATH_FIX),
    "NCCL_NVLS_ENABLE": ("nvlink_down", "NVLink SHARP (NVLS) set-up fails: the NVSwitch fabric is not ready",
                         "Check the fabric instead of disabling NVLS: `nvidia-smi -q` (its Fabric section should read "
                         "State: Completed, Status: Success) and `systemctl status nvidia-fabricmanager` (the same "
                         "version as the driver); a fabric manager restarted under running jobs needs a GPU reset."),
    "NCCL_SHM_DISABLE": ("shm_too_small", "NCCL's shared-memory transport fails where the job runs",
                         "Give the container a larger /dev/shm (`--shm-size` or `--ipc=host`) instead of disabling "
                         "SHM."),
    "NCCL_CUMEM_ENABLE": ("nccl_regression", "the cuMem allocator path of this NCCL release fails here",
                          "Keep NCCL_CUMEM_ENABLE=0 for now and move to a newer NCCL (and driver); report the failure "
                          "with its NCCL_DEBUG=INFO log."),
    # cuMem-backed host memory for the SHM transport and the proxy (probed in each process since 2.26.3,
    # NVIDIA/nccl#2190); off, SHM falls back to /dev/shm segments (NVIDIA/nccl#2106, xiaofanl-nvidia: it changes the
    # allocation mechanism, not the transports)
    "NCCL_CUMEM_HOST_ENABLE": ("nccl_regression", "NCCL's cuMem host-memory allocations fail here",
                               "Keep NCCL_CUMEM_HOST_ENABLE=0 (SHM then uses /dev/shm segments: give the container "
                               "enough /dev/shm) and move to a newer NCCL and driver; report it with the "
                               "NCCL_DEBUG=INFO log."),
}


@rule("ticket.setting_works_around", "p2p_disabled", "virtualization_no_p2p", "nvlink_down", "shm_too_small",
      "nccl_regression")
def setting_works_around(facts: Facts, predictions=None):
    """A setting that turns one NCCL path off makes a hang or failure go away: that path is broken."""
    for c in claims.find(facts, "setting"):
        known = WORKAROUNDS.get(c.data["name"])
        if not known or c.data.get("effect") != "fixes" or c.data["value"] in ("", None):
            continue
        category, meaning, path_fix = known
        virt = category == "p2p_disabled" and is_virtualized(facts)
        if virt:
            category = "virtualization_no_p2p"
        yield make("ticket.setting_works_around", category, "critical", weight(c),
                   f"{c.data['name']}={c.data['value']} works around the problem: {meaning}",
                   "Turning one transport off and seeing the problem go away locates it: the path NCCL chose is what "
                   "fails." + (" On bare metal, P2P failures behind PCIe switches come from ACS/IOMMU (VT-d, AMD-Vi) "
                               "redirecting peer traffic." if path_fix is _P2P_PATH_FIX else "")
                   + " The workaround costs bandwidth or robustness.",
                   [claim_ev(c, "the workaround the reporter found")] + (virt or []),
                   fix=P2P_VM_FIX if virt else path_fix,
                   refs=["nccl_acs", "nccl_env"])
        return


@rule("ticket.isolated_ranks", "shm_fallback")
def isolated_ranks(facts: Facts, predictions=None):
    """Ranks on one node that cannot see each other's GPUs (separate containers, one GPU per task):
    NCCL cannot use CUDA IPC / P2P between them and moves intra-node data through shared memory."""
    c = _first(facts, "isolated_ranks")
    nodes, _ = node_count(facts)
    if not c or (nodes and nodes > 1
                 and not re.search(r"\b(?:same|one|single) (?:host|node|machine|server)\b", c.quote, re.I)):
        return  # containers on different nodes talk over the network anyway
    shm = [t for t in facts.of(NcclTransport) if t.transport == "SHM"]
    # (the log may say where the traffic went instead: "Using network IB", NET/IB through the node's own NIC)
    net = [e for e in facts.of(NcclEvent) if e.kind == "network" and e.data.get("network")] if not shm else []
    evidence = [claim_ev(c, "how the ranks are isolated")] + (
        [ev(shm[0], "NCCL transport", shm[0].detail)] if shm else
        [ev(net[0], "NCCL network between the isolated ranks", net[0].data["network"])] if net else [])
    path = f"the network ({net[0].data['network']})" if net else "shared memory"
    yield make("ticket.isolated_ranks", "shm_fallback", "warning", weight(c, 0.6) + (0.1 if shm else 0.0),
               f"The ranks cannot see each other's GPUs, so NCCL uses {path} instead of P2P/NVLink",
               "CUDA IPC and peer-to-peer need the peer GPU visible to the process, in the same IPC and PID "
               "namespaces. Separate containers, or a scheduler giving each task only its own GPU (cgroups, "
               "CUDA_VISIBLE_DEVICES), hide it; NCCL then copies through host shared memory (or the network) at a "
               "fraction of NVLink's bandwidth.",
               evidence,
               fix="Run the ranks of one node in one container (or with --ipc=host --pid=host), "
               "and let every task see all the node's GPUs (Slurm: --gpus-per-node instead of --gpus-per-task, "
               "or --gpu-bind=none); the NCCL log then shows 'via P2P/IPC' or 'P2P/CUMEM'.",
               refs=["nccl_docker", "nccl_trouble"])


@rule("ticket.p2p_corrupts", "p2p_disabled", "virtualization_no_p2p")
def p2p_corrupts(facts: Facts, predictions=None):
    """Wrong results or IOMMU page faults from GPU DMA: peer-to-peer transfers broken by the IOMMU/ACS. Also the host's
    own check failing, said (claims p2p_check_failed: simpleP2P or p2pBandwidthLatencyTest failing, hanging or
    crashing) or shown: CUDA's simpleP2P copies a buffer between two GPUs with peer access enabled, reads it back and
    prints `Verification error @ element ...` and `Test failed!` when the data is wrong (simpleP2P.cu), a peer path
    that the driver grants and that does not deliver."""
    fault = _first(facts, "iommu_fault")
    wrong = _first(facts, "wrong_results")
    failed = next((p for p in facts.of(P2PStatus) if p.capability == "transfer" and not p.ok and p.a != p.b), None)
    broke = next(iter(claims.p2p_check_said(facts, "p2p_check_failed")), None)  # the host's P2P check said failing
    check, check_said = _check_failed(facts)
    if not (fault or failed or broke) and (check or check_said) and not _check_on_pcie_peers(facts):
        return  # nccl-tests' check failing across nodes or over NVLink singles out no PCIe peer path: check_failed
    # the check shown failing in nccl-tests' output or said so, on one host whose GPUs peer over PCIe
    wrong = wrong or check or check_said
    if not (fault or wrong or failed or broke):
        return
    # Wrong results alone point to the peer path only in a job with peers: a copy from one GPU to another (it names
    # two GPUs itself: "between devices", "cuda:0 to cuda:1"), two or more GPUs, or a job across nodes.
    peer = bool(isinstance(wrong, Claim) and re.search(claims.GPU_TO_GPU, wrong.quote, re.I))
    if not (fault or failed or broke) and not peer and (_gpus(facts) or 0) < 2 and (node_count(facts)[0] or 1) < 2:
        return
    if not (fault or failed or broke or check or check_said) and claims.right_on_same_gpus(facts):
        return  # the same GPUs give right output with another model or precision: ticket.wrong_output_software
    virt = is_virtualized(facts)
    evidence = [claim_ev(c, what) for c, what in ((fault, "IOMMU fault on GPU DMA"), (wrong, "wrong results"),
                                                  (broke, "the host's P2P check fails")) if isinstance(c, Claim)]
    if isinstance(wrong, NcclEvent):
        evidence.append(ev(wrong, "nccl-tests' own result check failed", wrong.message))
    if failed:
        evidence.append(ev(failed, f"simpleP2P's GPU{failed.a}<->GPU{failed.b} peer copy read back wrong",
                           failed.status))
    confidence = 0.75 if fault or failed else 0.55
    yield make("ticket.p2p_corrupts", "virtualization_no_p2p" if virt else "p2p_disabled",
               "critical" if fault or failed else "warning", confidence,
               "Peer-to-peer transfers between GPUs are blocked or corrupted (IOMMU / ACS)",
               "When the IOMMU (AMD-Vi, Intel VT-d) or PCIe ACS sits between GPUs, their direct DMA is faulted or "
               "redirected: collectives hang, return wrong data, or training stops converging, while single-GPU runs "
               "are fine.",
               virt + evidence,
               fix="On bare metal boot with iommu=pt (or disable the IOMMU / VT-d for the GPUs) and disable ACS on the "
               "PCIe switches; verify with `p2pBandwidthLatencyTest` or nccl-tests with data checking. "
               "NCCL_P2P_DISABLE=1 is only a workaround.",
               refs=["nccl_acs"])


@rule("ticket.wrong_output_software", "other")
def wrong_output_software(facts: Facts, predictions=None):
    """Wrong output across several GPUs where the same GPUs give right output with another model, precision or build
    (claims.right_on_same_gpus): the peer path delivers there, so the fault follows the software, not the GPUs' DMA.
    Threads settled so: a kernel-injection bug for LLaMA at mp_size=2 while gpt2 was right (deepspeedai/DeepSpeed#3932,
    fixed by upgrading DeepSpeed), GPT-J garbage on 2x 3090 after the GPT-Neo fix (deepspeedai/DeepSpeed#2233, fixed by
    DeepSpeed PR #2270), 8-bit gibberish across V100S GPUs while 16-bit and 4-bit were right (bitsandbytes#491: the
    int8 path on compute capability 7.0)."""
    said = wrong_output_said(facts)
    right = claims.right_on_same_gpus(facts)
    if not (said and right) or claims.solved(facts):
        return
    if (_gpus(facts) or 0) < 2 and not claims.SEVERAL_AT_WORK.search(said.quote + " " + right.quote):
        return
    yield make("ticket.wrong_output_software", "other", "warning", weight(right, 0.55),
               "The wrong output follows the software: the same GPUs give right output with another model or precision",
               "Corrupted peer-to-peer transfers (IOMMU, ACS, a P2P-enabled driver) spoil every multi-GPU run on the "
               "host alike. Here the same GPUs, several at work, give right output when only the model, its precision "
               "or the engine's build changes, so the data crosses between the GPUs intact and the fault is in the "
               "code path that differs: the engine's kernels or its tensor-parallel split for this model or dtype.",
               [claim_ev(said, "wrong output"), claim_ev(right, "right output on the same GPUs")],
               fix="Report it to the engine with the model, dtype and parallel size that fail and the ones that work; "
               "try the engine's newest release (or its main branch), and meanwhile run the working precision or "
               "model, or this model without the engine's custom kernels (e.g. DeepSpeed's "
               "replace_with_kernel_inject=False).")


def _check_failed(facts: Facts) -> tuple[NcclEvent | None, Claim | None]:
    """nccl-tests' own result check failing: shown in its output (nccl_tests_wrong: out-of-bounds values above 0, a
    "#wrong" count above 0, an old "error" column past the check's bound) and said in the reporter's words (a
    wrong_results claim quoting the check, claims.NCCL_CHECK_FAILED). Neither where the reporter says the problem is
    solved: the failure quoted is then an earlier state."""
    if claims.solved(facts):
        return None, None
    shown = next((e for e in facts.of(NcclEvent) if e.kind == "nccl_tests_wrong"), None)
    return shown, claims.nccl_check_said(facts)


def _check_on_pcie_peers(facts: Facts) -> bool:
    """Is a failed nccl-tests check the PCIe peer path's to answer: one host with two or more GPUs and no NVLink
    between them? Across nodes the values also cross the NIC's DMA into GPU memory (GPUDirect RDMA), over NVLink no
    PCIe ACS or IOMMU sits between the GPUs, and with no GPU count known the path is unknown: there the check singles
    out no peer path (ticket.check_failed)."""
    return not _across_nodes(facts) and not has_nvlink(facts) and (_gpus(facts) or 0) >= 2


@rule("ticket.check_failed", "other")
def check_failed(facts: Facts, predictions=None):
    """nccl-tests' own result check failed (the values that came back are wrong), where that singles out no cause:
    across nodes, over NVLink, or on paths the ticket does not show. Its threads settled different causes there: a
    driver's GPUDirect RDMA bug across two InfiniBand nodes (NVIDIA/nccl-tests#7 and #8, driver 390: "use the 387
    version ... not affected by the issue"), the network plugin's GPUDirect path on Grace Hopper nodes
    (NVIDIA/nccl#2001: "We recommend disabling gdrcopy"), an NCCL bug fixed in a later release on one NVLink host
    (NVIDIA/nccl-tests#37: all_gather at 4 GB, "fixed it in master"). NCCL's troubleshooting guide adds PCIe ACS and the
    IOMMU redirecting DMA on bare metal. So the finding names the failed check as the fault, never healthy, and asks
    for what separates those causes; on one host whose GPUs peer over PCIe ticket.p2p_corrupts reads it, and a
    comparison of NCCL releases the reporter made is nccl.regression's."""
    shown, said = _check_failed(facts)
    if not (shown or said) or _check_on_pcie_peers(facts):
        return
    nodes, node_ev = node_count(facts)
    across = _across_nodes(facts)
    evidence = [ev(shown, "nccl-tests' own result check failed", shown.message)] if shown else []
    evidence += [claim_ev(said, "nccl-tests' result check said failing")] if said and not shown else []
    nvlink = [] if across else nvlink_evidence(facts)[:1]
    evidence += node_ev[:1] if across else nvlink
    if across:
        where = f"across {nodes} nodes" if nodes and nodes > 1 else "across nodes"
        path = ("values written into GPU memory by the network card (GPUDirect RDMA) or staged through host memory, "
                "besides the GPUs' own links inside each node")
    elif nvlink:
        where, path = "over NVLink", "NVLink between the GPUs, where no PCIe ACS or IOMMU sits in the peer path"
    else:
        where, path = "", "how many GPUs and nodes, and which paths between them, the ticket does not show"
    where_said = f" {where}" if where else ""
    # wrong data is the gravest outcome a run has, above any speed reading; a comparison of NCCL releases the reporter
    # made names the cause instead (nccl.regression, a warning above this one's confidence)
    severity = "warning" if claims.find(facts, "nccl_versions_compared") else "critical"
    yield make("ticket.check_failed", "other", severity, 0.5 if shown else min(weight(said), 0.45),
               f"nccl-tests' own result check failed{where_said}: the collective returned wrong values",
               "nccl-tests compares every result with the expected values and counts those out of bounds; a count "
               f"above 0 means the data came back wrong, whatever the bandwidth. Where the values travelled: {path}. "
               "Failed checks like this have come from a driver's GPUDirect RDMA bug, the network plugin's GPUDirect "
               "path, PCIe ACS or the IOMMU redirecting DMA on bare metal, and NCCL bugs fixed in later releases; the "
               "ticket does not yet single one out.",
               evidence,
               fix="Give the NCCL and driver versions, then rerun the failing size with the check on (-c 1) once each: "
               "with GPUDirect RDMA off (NCCL_NET_GDR_LEVEL=LOC; NCCL_IB_CUDA_SUPPORT=0 before NCCL 2.4), with "
               "NCCL_P2P_DISABLE=1, with NCCL_PROTO=Simple, and with the newest NCCL release; the setting under which "
               "the check passes names the path at fault. On bare metal also check ACS (lspci -vvv | grep ACSCtl: "
               "SrcValid+ on a PCIe switch) and boot with iommu=pt.",
               refs=["nccl_acs", "nccl_trouble"],
               ask="nccl-tests output with the check on (-c 1) under NCCL_NET_GDR_LEVEL=LOC, NCCL_P2P_DISABLE=1 and "
               "the newest NCCL release, and the NCCL and driver versions")


@rule("ticket.shm_error", "shm_too_small", "other")
def shm_error(facts: Facts, predictions=None):
    """NCCL's (or the engine's) shared-memory segment cannot be created: /dev/shm too small or not shared; a failure
    whose errno is not about space (Permission denied, No such file or directory) is `other` (rules.host.shm_reason)."""
    if any(f for f in facts.of(Note) if f.kind == "host_shm_checked"):
        return
    c = _first(facts, "shm_error")
    if not c:
        return
    confidence = weight(c)
    if (code := shm_reason([c.quote], None)) is not None:
        yield not_size_finding("ticket.shm_error", code, [claim_ev(c, "shared-memory failure")], min(confidence, 0.55))
        return
    if re.search(r"\bBus error\b|\bSIGBUS\b|\bsignal\s*7\b", c.quote, re.I) \
            and not re.search(r"shm|shared memory|fallocate", c.quote, re.I):
        # (r51a) a bare SIGBUS points at /dev/shm only where /dev/shm is not already sized, mounted or ruled out
        # (said_working: "`df -h /dev/shm` shows 20G"; tried: "--shm-size 16g and it still crashes"), unless the
        # sizing is the cure the reporter names ("Adding --shm-size=1g ... works", dup39/shmbus_2), and where the
        # reporter has not found mmap(2)'s other cause, the mapped weights rewritten under the loader
        if (claims.said_working(facts, "shm") and not claims.cured_by(facts, "dev_shm")) \
                or claims.tried_without_effect(facts, "shm", "dev_shm") or claims.mapped_file_changed(facts):
            return
        if not claims.find(facts, "container"):
            # SIGBUS has other causes (a truncated mmap'd file) outside a container's 64 MB /dev/shm
            confidence = min(confidence, 0.45)
    yield make("ticket.shm_error", "shm_too_small", "critical", confidence,
               "Shared memory (/dev/shm) is too small or not available where the job runs",
               "NCCL's SHM transport and the engines' worker queues live in /dev/shm; docker gives a container 64 MB "
               "by default, and creating the segments then fails (posix_fallocate / shm_open errors, bus errors).",
               [claim_ev(c, "shared-memory failure")],
               fix="Run the container with --ipc=host or --shm-size of several GB (Kubernetes: an emptyDir with "
               "medium: Memory mounted at /dev/shm).",
               refs=["nccl_docker"])


@rule("ticket.system_error_in_container", "shm_too_small")
def system_error_in_container(facts: Facts, predictions=None):
    """NCCL's 'unhandled system error' inside a container on one node, with no other failing call named: the
    NCCL troubleshooting guide's first container cause is /dev/shm too small for NCCL's shared-memory segments
    (docker gives 64 MB). A lead, below the segment error itself (ticket.shm_error)."""
    c = _first(facts, "nccl_system_error")
    container = _first(facts, "container") or facts.host("container")
    if not c or not container or _first(facts, "shm_error") or _across_nodes(facts) \
            or _first(facts, "net_socket") or _first(facts, "module_missing") or claims.known_errors(facts) \
            or claims.said_working(facts, "shm") or claims.tried_without_effect(facts, "shm", "dev_shm"):
        return  # between nodes the failing call is as often the network's; a known message names the call; a
        # /dev/shm the reporter sized in gigabytes, shared with the host or ruled out is no suspect (ruledout34), nor
        # NCCL's SHM transport where switching it off (NCCL_SHM_DISABLE=1) left the failure as it was (tried39), nor
        # /dev/shm once --shm-size / --ipc=host left it as it was (tried40)
    yield make("ticket.system_error_in_container", "shm_too_small", "warning", 0.45,
               "NCCL fails a system call inside a container: /dev/shm is the first suspect",
               "NCCL reports 'unhandled system error' when a system call fails; on one node inside a container the "
               "usual one is creating its shared-memory segments in a /dev/shm that docker limits to 64 MB.",
               [claim_ev(c, "NCCL system error")] + ([claim_ev(container, "runs in a container")]
                                                     if isinstance(container, Claim)
                                                     else [ev(container, "container", True)]),
               fix="Rerun with NCCL_DEBUG=WARN to see the failing call; start the container with --ipc=host or "
               "--shm-size of several GB (Kubernetes: an emptyDir with medium: Memory at /dev/shm).",
               refs=["nccl_docker"])


@rule("ticket.container_default_shm", "shm_too_small")
def container_default_shm(facts: Facts, predictions=None):
    """A multi-GPU container started with docker's 64 MB /dev/shm that hangs or fails: the engines' documentation asks
    for --ipc=host or --shm-size for tensor parallelism (vLLM, SGLang), NCCL's for its shared-memory segments. A
    lead for a hang or a failure, not for a slow run (NCCL picks another transport when SHM cannot start)."""
    c = claims.container_default_shm(facts)
    said = claims.symptom_quote(facts)
    if not c or not said or said[2] not in FAILURES or (said[2] != "hang" and not c.data["setup"]) \
            or claims.said_working(facts, "shm"):
        return  # a crash or error only when said of shared memory or of setting the workers up; none where the
        # reporter says /dev/shm is large or not the problem (ruledout34)
    yield make("ticket.container_default_shm", "shm_too_small", "warning", 0.55,
               "The multi-GPU container runs with docker's default 64 MB /dev/shm",
               "Tensor-parallel workers and NCCL's shared-memory transport put their buffers in /dev/shm; docker "
               "gives a container 64 MB unless --ipc=host or --shm-size says otherwise, and the launch line sets "
               "neither, so the workers can hang or fail while setting them up.",
               [claim_ev(c, "container launch line")],
               fix="Start the container with --ipc=host (or --shm-size of several GB; Kubernetes: an emptyDir with "
               "medium: Memory at /dev/shm) and retry.",
               refs=["nccl_docker", "https://docs.vllm.ai/en/latest/deployment/docker.html"])


def _splits(spec, tp: int) -> bool:
    """Does TP give each GPU whole query heads and whole (or evenly replicated) KV heads? MLA's latent KV is on
    every rank, so only its query heads count."""
    kv = spec.kv_heads
    return spec.heads % tp == 0 and (spec.is_mla or (kv % tp if tp <= kv else tp % kv) == 0)


@rule("ticket.tp_size_uneven", "tp_not_dividing_heads")
def tp_size_uneven(facts: Facts, predictions=None):
    """A tensor-parallel size that is a multiple of 3, for a model whose head count the ticket does not give.
    Engines split both the query heads (vLLM: "Total number of attention heads (...) must be divisible by tensor
    parallel size") and the KV heads (TP must divide them, or be a multiple of them when they are replicated).
    Current models use grouped-query attention with 8 (or 4) KV heads, which 3 does not divide; a few have 48
    query heads (Mixtral-8x22B, DBRX) but still 8 KV heads. The catalog's models are counted, not assumed, so
    TP=3/6/12 is refused at load time for almost every model. When the model loaded (a speed complaint), its
    heads did divide: no lead then."""
    said = claims.symptom_quote(facts)
    if said and said[2] in ("slow", "scaling", "hang"):
        return
    if facts.subject.model is not None or any(w.extra.get("attention_heads") for w in facts.of(Workload)):
        return  # the heads are known: workload.tp_not_dividing_heads judges the layout exactly
    named = [(t, e) for t, e in tp_sizes(facts) if t >= 3 and t % 3 == 0]
    if not named or _tp_error(facts) or llamacpp_split_tp(facts):  # (no heads rule there: common.llamacpp_split_tp)
        return  # the engine's own error says it: ticket.tp_size_error
    size, where = named[0]
    from rules.catalog import models

    specs = list(models().values())
    fits = [m.name for m in specs if _splits(m, size)]
    query = [m.name for m in specs if m.heads % size == 0]
    yield make("ticket.tp_size_uneven", "tp_not_dividing_heads", "warning", 0.45,
               f"TP={size} splits the heads of {len(fits)} of the catalog's {len(specs)} models",
               "Tensor parallelism gives each GPU a whole number of query heads and of KV heads: TP must divide the "
               "attention heads (vLLM: \"Total number of attention heads (...) must be divisible by tensor parallel "
               "size\"), and divide the KV heads or be a multiple of them. Current models use grouped-query attention "
               f"with 8 or 4 KV heads, which {size} does not split; of the catalog's {len(specs)} models, "
               f"{len(query)} have query heads {size} divides ({', '.join(query) or 'none'}) and {len(fits)} "
               f"both{' (' + ', '.join(fits) + ')' if fits else ''}, so engines refuse this TP size at load time "
               "for almost every model.",
               [where, ev("rules/catalog/models.toml", f"catalog models whose query and KV heads TP={size} splits",
                          len(fits), len(specs))],
               fix="Check the model's num_attention_heads and num_key_value_heads in its config.json "
               "and use a TP size that divides them (2, 4 or 8); use the remaining GPUs for pipeline parallelism "
               "or a replica.",
               refs=["vllm_parallel"])


@rule("ticket.module_missing", "gdr_disabled")
def module_missing(facts: Facts, predictions=None):
    """The GPUDirect RDMA kernel module (nvidia-peermem) is not loaded."""
    c = _first(facts, "module_missing")
    if not c or not any("peer" in g or "gdr" in g for g in (str(x).lower() for x in c.data.get("groups", []))):
        return
    if [d for kind in ("dmabuf_used", "gdr_on") for d in claims.find(facts, kind) if not d.guess]:
        return  # GPUDirect RDMA registered through DMA-BUF, or seen in use: the module is not needed
    yield make("ticket.module_missing", "gdr_disabled", "warning", weight(c),
               "The GPUDirect RDMA module (nvidia-peermem) is not loaded",
               "Without nvidia-peermem the NIC cannot read GPU memory directly; NCCL stages inter-node traffic through "
               "host memory and loses bandwidth.",
               [claim_ev(c, "module state")],
               fix="`modprobe nvidia-peermem` (in the host, matching the driver), then NCCL_DEBUG=INFO shows 'GDRDMA'.",
               refs=["gdr"])


@rule("ticket.engine_versions", "other")
def engine_versions(facts: Facts, predictions=None):
    """The same setup is slower on a newer release of the serving engine, or fails (hangs, crashes, raises) on one
    release where another works, or since it was moved to one named release (the other one unnamed), or since one pull
    request or commit of its code: a software regression, whatever the failure looks like."""
    c = _first(facts, "engine_versions_compared")
    if not c or (not c.data["engine"] and claims.torch_releases_compared(facts)):
        return  # PyTorch's own releases: ticket.torch_releases reads them (its NCCL changes with them)
    engine = c.data["engine"] or engine_of(facts) or "the engine"
    title, summary, evidence, fix = (_code_change if c.data["kind"] == "commit" else _releases)(c, engine)
    yield make("ticket.engine_versions", "other", "warning", weight(c, 0.6), title, summary, evidence, fix=fix)


def _releases(c: Claim, engine: str) -> tuple:
    """(title, summary, evidence, fix) of two releases of the engine compared."""
    versions = " vs ".join(c.data["versions"][:2])
    evidence = [claim_ev(c, "releases compared")]
    figures = c.data.get("figures") or {}
    # the release that works: as the words moving between them say ("downgrading to 0.5.4 fixed it", "rolled back
    # to v0.10.2"), else the older one (a regression report's usual direction)
    good = c.data.get("good") or min(c.data["versions"], key=claims.version_key)
    if len(figures) >= 2 and len({u.lower() for _, u in figures.values()}) == 1:  # (issue 11 s) each release's figure
        by_age = sorted(figures, key=claims.version_key)
        old = good if good in figures else by_age[0]
        new = next(v for v in reversed(by_age) if v != old)
        evidence.append(ev(c, f"{engine} {new} (expected: {old}'s figure, same setup)", figures[new][0],
                           figures[old][0], figures[new][1]))
    elif len(figures) == 1 and len(c.data["versions"]) >= 2 and next(iter(figures)) == good:
        # only the good release's figure is told ("on 0.12 I achieved 6200 tokens/s"): what the setup did before the
        # change, not the figure of the run that is slow, so no fit of it answers the ticket (engine.fits_first)
        (old, (value, unit)), = figures.items()
        evidence.append(ev(c, f"{engine} {old}'s figure: {RELEASE_BEFORE}", value, None, unit))
    if c.data.get("before") and len(figures) == 1 and figures[c.data["versions"][0]][1] == c.data["before"][1]:
        # (rel25) one release moved to, its rate told as a time line: the release's figure against the one the
        # reporter gives for before the change, and that one marked as the older build's, no run's now
        (new, (value, unit)), = figures.items()
        before = c.data["before"][0]
        evidence.append(ev(c, f"{engine} {new} (expected: the figure before the change, same setup)", value, before,
                           unit))
        evidence.append(ev(c, f"{engine}'s figure before {new}: {RELEASE_BEFORE}", before, None, unit))
    newest = max(c.data["versions"], key=claims.version_key)
    if c.data["kind"] == "releases" and c.data.get("good") == newest:
        # the failure stopped with the move to the newer release ("upgraded from 0.5.4 to 0.6.0 and it no longer
        # hangs"): the newer release is the cure, the older one had the fault
        older = " and ".join(v for v in c.data["versions"] if v != newest)
        return (f"{engine} {newest} works where {older} did not: the newer release is the cure, not a regression",
                f"Only the engine's release changed and the problem stopped on {newest}: the fault was {older}'s "
                "(a bug or default fixed since), not the GPUs'.",
                evidence,
                f"Stay on {newest} or newer; if the problem must be understood on {older}, compare the two "
                "releases' changelogs for the fix.")
    if c.data["kind"] == "releases":
        title = f"{engine} {versions}: the same setup behaves differently between releases"
    elif c.data["good"]:  # going back to it cured the problem: the release left behind is the regression
        title = (f"{engine} works again on {c.data['good']} (the release gone back to); the newer release is the "
                 "regression")
    else:
        title = f"{engine}: the same setup behaves differently since its release changed to {versions}"
    # the release the reporter's words say works (not the older one assumed), as written ("0.6.6.post1")
    said = c.data.get("good") and (c.data.get("pin") or c.data["good"])
    return (title,
            "When only the engine's release changed, the difference is the engine's: a default that changed "
            "(scheduler, CUDA graphs, KV-cache settings) or a regression, not the GPUs.",
            evidence,
            (f"Pin {engine} {said} (the release that worked, per the report) until the regression is fixed upstream"
             if said else "Stay on the release that works")
            + "; compare the two releases' launch logs for changed defaults (and "
            "the PyTorch and NCCL each pins); bisect releases and report it upstream with both results.")


def _code_change(c: Claim, engine: str) -> tuple:
    """(title, summary, evidence, fix) of a regression the reporter pinned on one pull request or commit."""
    change = " / ".join(c.data["versions"])
    evidence = [claim_ev(c, "the change the slowdown was pinned on")]
    figures = c.data.get("figures") or {}
    gap = ""
    if figures:
        (before, unit), (after, _) = figures["before"], figures["after"]
        evidence.append(ev(c, f"{engine} after {change} (expected: the figure before it, same setup)", after, before,
                           unit))
        # (ab33) how far apart the reporter's two runs are, from their own figures: the slower is the one after
        worse = after / before if unit == "ms" else before / after
        gap = f" ({after:g} against {before:g} {unit} before it, {100 * (1 - 1 / worse):.0f} % of the rate lost)"
    if c.data.get("good"):  # (audit30a) two commits set side by side, one said to work: not one change apart
        return (f"{engine} is slower or fails at {change} and works at {c.data['good']}: the same setup, two builds "
                "of its code",
                "The reporter ran two builds of the engine, named by their commits, and only the code differed: one "
                "works and the other is slower or fails, so the difference is the engine's code, not the hardware.",
                evidence,
                f"Run the build at {c.data['good']} until it is fixed; bisect the commits between the two (`git "
                "bisect`) and report the first bad one upstream with both builds' figures.")
    return (f"{engine} is slower after {change}{gap}: the same setup, one code change apart",
            "The reporter compared builds of the engine that differ by one change (a bisect ends on it); the GPUs, "
            "model and load were the same, so the difference is the engine's code, not the hardware.",
            evidence,
            "Report it upstream with both builds' figures and the bisect; run the build before the change until it "
            "is fixed.")


@rule("ticket.torch_releases", "nccl_regression")
def torch_releases(facts: Facts, predictions=None):
    """A distributed job slower on one PyTorch release than another, nothing else changed: each release's wheels pin
    their own NCCL (nvidia-nccl-cu*), so the collective library changed with it and is the first suspect."""
    found = [c for c in claims.torch_releases_compared(facts) if not c.guess and c.data["slower"]]
    said = claims.symptom_quote(facts)
    text = " ".join(t for _, t in claims.texts(facts))
    if not found or not said or said[2] not in ("slow", "scaling") or not claims.DISTRIBUTED.search(text) \
            or claims.fixed_by(text) or claims.find(facts, "nccl_versions_compared") or claims.nccl_unchanged(text):
        return  # NCCL's own versions named: nccl.regression reads them; NCCL said unchanged: not its doing
    c = found[0]
    yield make("ticket.torch_releases", "nccl_regression", "warning", weight(c, 0.45),
               f"The job changes speed with the PyTorch release ({', '.join(c.data['versions'][:3])}): "
               "its bundled NCCL changed too",
               "PyTorch's wheels each pin an NCCL release (the nvidia-nccl-cu* dependency), so moving between PyTorch "
               "releases swaps the collective library under a distributed job; a change in NCCL's defaults or a "
               "regression between its releases then shows as the framework slowing down.",
               [claim_ev(c, "PyTorch releases compared")],
               fix="Print `torch.cuda.nccl.version()` under both releases and run all_reduce_perf (nccl-tests) "
               "against each libnccl on the same GPUs; if NCCL explains it, pin the older NCCL wheel or report it "
               "upstream with both runs.", refs=["nccl_releases"])


# (prec25) A core held at 100 % because the host thread spins in a CUDA synchronisation while the GPU works: the CUDA
# runtime's default (cudaDeviceScheduleAuto) busy-waits when there are more cores than contexts
# (https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__DEVICE.html, cudaSetDeviceFlags), so that core waits
# on the GPU, not the GPU on it ("busy-waiting inside cudaStreamSynchronize ... even though the GPU is doing all the
# work", ggml-org/llama.cpp#26487; "spin-waits on CUDA synchronization ... while the GPU is busy", Neroued/ninfer#301).
_CPU_WAITS_ON_GPU = re.compile(
    r"\bbusy[- ]?(?:wait|poll|spin)\w*|\bspin[- ]?(?:wait\w*|lock\w*)|\bspin(?:s|ning)?\s+(?:on|in|while|waiting)\b|"
    r"\bcuda(?:Stream|Device|Event)Synchronize\b|\bScheduleSpin\b|"
    r"\b(?:while|although|though|even though)\s+the\s+GPUs?\s+(?:is\s+|are\s+)?(?:busy|doing\s+(?:all\s+)?the\s+work|"
    r"fully\s+(?:used|utili[sz]ed|loaded))", re.I)


# (ut29e) CPU load said of an engine with no work: "one thread consistently consumes 100% CPU even when the API is idle"
# (InternLM/lmdeploy#3783), "Even without inference, the CPU usage rate was at 100%" (vllm-project/vllm#16968),
# "sglang::schedul is running 100% on 2 cores without any incomming requests. Could you change busy waiting to sleep"
# (sgl-project/sglang#9863), "pins a CPU core at ~100% while idle (... busy-polls the request queue ...)"
# (ml-explore/mlx-lm#1500, whose root cause is a non-blocking queue poll in the server's loop). A core
# busy with nothing to serve is a polling loop (the TP workers' or the CUDA runtime's spin-wait), not a host that
# starves working GPUs; the idle words are said of the server, not of the GPUs ("the GPUs sit idle" is the
# host_bound lead).
_CPU_WITH_NO_WORK = re.compile(
    r"\b(?:when|whenever|while|with)\s+(?:the\s+)?(?:API|server|service|engine|model|endpoint|process)\s+"
    r"(?:is\s+|was\s+|are\s+)?idle\b|"
    r"\bwithout\s+(?:any\s+)?(?:incom\w*\s+|new\s+|user\s+)?(?:inference|requests?|access|traffic|load(?!ing))\b|"
    r"\b(?:no|zero)\s+(?:requests?|inference|traffic)\s+(?:is\s+|are\s+)?(?:being\s+)?(?:running|coming|sent|made|"
    r"in\s+flight|processed|served|handled)\b|"
    # (review46) idle said of the load itself: "100% CPU usage when idle" (vllm-project/vllm#19036); not "while the GPU
    # is idle", the starved GPU of host_bound, nor "CPU idle 90%", a share of idle time
    r"\b(?:CPU|core|usage|load)\s+(?:usage\s+)?(?:even\s+)?(?:when|while|at)\s+idle\b|"
    # ... or of the percentage itself, in a sentence about the CPU (_idle_cpu_sentence): "the CPU is at 100% when idle"
    r"\b\d{2,3}\s*%\s+(?:even\s+)?(?:when|while)\s+idle\b|"
    r"\bbefore\s+any\s+(?:request|inference)s?\b|"
    # (insuff32) "The CPU is also occupied at 100% when there are no requests" (sgl-project/sglang#1315); not "no
    # other requests", one request measured alone
    r"\b(?:when|while|if|even when)\s+there\s+(?:are|is|were|was)\s+no\s+"
    r"(?:incoming\s+|new\s+|active\s+|pending\s+|user\s+)?(?:requests?|inference|traffic|load|work|users?|queries)\b",
    re.I)


_CPU_WORD = re.compile(r"\b(?:CPU|core|cores)\b", re.I)
# ... and a load said high in that sentence: "without any requests the CPU sits at 2%" is a quiet host, no polling loop
_CPU_HIGH = re.compile(r"\b(?:100|9\d)(?:\.\d+)?\s*%|\bpegg\w*|\bbusy\b|\bspin\w*|\bmaxed\b|\bfully\b", re.I)


def _idle_cpu_sentence(facts: Facts) -> tuple[str, str] | None:
    """(review46) (source, sentence) of the reporter's that names the CPU busy and says the engine had no work: a title
    "thread consumes 100% CPU idle" over "even when no requests are processed, one CPU core is at 100% busy"
    (vllm-project/vllm#41964); None where none does."""
    return next(((source, s) for source, text in claims.texts(facts) for s in claims.sentences(claims.spaced(text))
                 if _CPU_WORD.search(s) and _CPU_HIGH.search(s) and _CPU_WITH_NO_WORK.search(s)), None)


def _cpu_load_with_no_work(facts: Facts) -> bool:
    """Where the pegged-CPU claim was read elsewhere, does a sentence say the CPU is busy while the engine has no
    work?"""
    return _idle_cpu_sentence(facts) is not None


# (insuff32) The engines document the idle loop and its switch: vLLM's VLLM_SLEEP_WHEN_IDLE, "Reduce CPU usage when
# vLLM is idle. Enabling this will incur small latency penalty when a request eventually comes" (vllm/envs.py, added
# by vllm-project/vllm#16226); SGLang's server argument --sleep-on-idle (sglang.srt.server_args); before it, an SGLang
# maintainer on the idle scheduler at 100 %: "This is expected, and it is also acceptable" (quoted in
# sgl-project/sglang#1730, on sgl-project/sglang#1315).
VLLM_ENVS = "https://docs.vllm.ai/en/latest/configuration/env_vars.html"
SGLANG_ARGS = "https://docs.sglang.ai/advanced_features/server_arguments.html"


@rule("ticket.idle_poll", "healthy")
def idle_poll(facts: Facts, predictions=None):
    """A core at 100 % while the engine serves nothing: the scheduler (and each TP worker) polls its queue in a loop
    so the next request starts at once. That costs a core, not GPU time, and says nothing about the GPUs' path."""
    found = _idle_cpu_sentence(facts)
    if found is None:
        c = _first(facts, "cpu_ab")
        found = (c.source, c.quote) if c and not c.guess and _CPU_WITH_NO_WORK.search(c.quote) else None
    if found is None:
        return
    said = claims.symptom_quote(facts)
    if said and said[2] in FAILURES or claims.complaint(facts) is not None:
        return  # a failure, or a speed the reporter finds short, is another question than the idle core
    yield make("ticket.idle_poll", "healthy", "ok", 0.6,
               "An idle serving engine keeps a CPU core busy by design: its loop polls for the next request",
               "vLLM's engine core and SGLang's scheduler (and each tensor-parallel worker) wait for work by polling "
               "their queues instead of sleeping, so a core per process reads 100 % while no request is served. "
               "The loop costs a core, not GPU time; it does not slow the requests when they come.",
               [ev(found[0], f'what the reporter reports: "{claims.one_line(found[1][:200])}"')],
               fix="Nothing to fix for speed. To free the core when idle, set VLLM_SLEEP_WHEN_IDLE=1 (vLLM) or "
               "--sleep-on-idle (SGLang), at a small latency cost for the first request after a pause.",
               refs=[VLLM_ENVS, SGLANG_ARGS])


# (review37) nvidia-smi's utilisation is the share of the sample period in which a kernel ran (nvidia-smi(1),
# "utilization.gpu"): at 90 % or more the GPU had work queued nearly all the time, so the host was not starving it.
BUSY_GPU_PCT = 90


@rule("ticket.cpu_bound", "host_bound")
def cpu_bound(facts: Facts, predictions=None):
    """A faster CPU speeds the engine up, or the CPU is pegged: the host side limits the GPUs."""
    c = _first(facts, "cpu_ab") or _first(facts, "cpu_pegged_row")  # (a pasted top/htop row at one core's worth)
    low = [u for u in claims.find(facts, "gpu_util") if u.data["percent"] < 80 and not u.guess]
    if not c and (low or _first(facts, "gpu_idle_words")):
        # (prec25) the process held at one core ("only one core is used", "CPU never above 100 %": claims.cpu_ceiling)
        # while the GPU idles: the one Python thread that feeds it is the limit; without the idle GPU it is the
        # engine's design (ticket.cpu_one_core)
        c = next(iter(claims.cpu_ceiling(facts)), None)
    if not c or _cpu_only(facts):
        return  # an engine running on the CPU itself has no GPU to starve
    if _CPU_WITH_NO_WORK.search(c.quote) or _cpu_load_with_no_work(facts):
        return  # (ut29e) the core is busy while the engine serves nothing: a polling loop, not a starved GPU
    if _first(facts, "launch_overhead"):
        return  # the host's wait named as kernel launches: ticket.launch_overhead says it more precisely
    if not low and not _first(facts, "gpu_idle_words") and any(_CPU_WAITS_ON_GPU.search(t)
                                                                for _, t in claims.texts(facts)):
        return  # the core spins waiting for a busy GPU: the GPU is the limit
    if c.guess and not low and not _first(facts, "gpu_idle_words"):
        return  # "is the CPU the bottleneck?" alone is a question; with the GPU seen idle it is a lead
    busy = [u for u in claims.find(facts, "gpu_util") if u.data["percent"] >= BUSY_GPU_PCT and not u.guess]
    if busy and not low and not _first(facts, "gpu_idle_words") and not _CPU_AB.search(c.quote):
        return  # (review37) "GPU utilization 100% and CPU 100%": a GPU kept busy is not waiting on the host; the CPU's
        # load alone (no change that moved the speed, no wait named) is no lead against it
    hang = claims.symptom_quote(facts)
    if hang and hang[2] == "hang":
        return  # (ut25) a core at 100 % in a job that stopped is a process spinning in its wait, not a host limit
        # ("2 ray::IDLE process: %CPU 100%" beside a TP=2 start-up hang, InternLM/lmdeploy#3993)
    if (c.kind in ("cpu_pegged_row", "cpu_ceiling") or re.search(claims.PROCESS_AT_CORE, c.quote, re.I)) and not low \
            and not _first(facts, "gpu_idle_words"):
        return  # one core at its limit is also how a GPU-bound PyTorch job looks (CUDA spins while it waits)
    if not (low or claims.complaint(facts) or _CPU_AB.search(c.quote)
            or any(_SPEED_UP.search(t) for _, t in claims.texts(facts))):
        return  # a busy CPU with the GPUs neither idle nor slow: nothing says the GPUs wait on it
    yield make("ticket.cpu_bound", "host_bound", "warning", weight(c) if not c.guess else 0.5,
               "The host CPU limits the engine",
               "Serving engines schedule, tokenize and launch kernels from one Python process per GPU, and Python's "
               "GIL keeps each process on one core; when that core is saturated, or a faster CPU changes the speed, "
               "the GPUs are waiting on the host.",
               [claim_ev(c, "CPU load or comparison")] + [claim_ev(u, "GPU utilisation meanwhile") for u in low[:1]],
               fix="Give the engine fast, uncontended cores (CPU governor 'performance', NUMA-local binding), use CUDA "
               "graphs and async output processing, and move tokenization off the serving process.")


def _busbw_at_line_rate(facts: Facts) -> tuple[float, float, list] | None:
    """(busbw, NIC line rate GB/s, evidence) where the best large all-reduce busbw between nodes matches what the NIC's
    line rate gives, as nccl.busbw judges it (BUSBW_MATCH of 80 % of the line rate); None otherwise or unknown."""
    from rules.nccl import BUSBW_MATCH

    rate, rate_ev = nic_rate_gbs(facts)
    figures = [(r.busbw_gbs, r) for r in large_results(facts) if r.op == "all_reduce"]
    figures += [(m.value, m) for m in measurements(facts, "busbw_gbs")
                if (not m.size_bytes or m.size_bytes >= 64 << 20) and m.op is None]
    if not rate or not figures:
        return None
    value, rec = max(figures, key=lambda f: f[0])
    if value < BUSBW_MATCH * 0.8 * rate:
        return None
    return value, rate, [ev(rec, "largest all-reduce busbw between the nodes", value, round(0.8 * rate, 2), "GB/s")
                         ] + rate_ev


# The reporter's A/B of hosts or their words for the host holding the GPUs back (not a CPU-load figure alone).
_CPU_AB = re.compile(r"\b(?:upgrad\w+|chang\w+|switch\w+|different|faster|newer|better|"
                     r"bottleneck\w*|bound|limited|overhead|GIL|global interpreter lock|wait\w*|idl\w+|starv\w+|"
                     # (s23) the GPU held by the host's work: "P node GPU blocked by detoken thread" (sglang#6909)
                     r"blocked|stalled|held up|"
                     # (issue 11 n) a host stage measured against the GPU's step or as most of the time: the wait itself
                     r"longer than|more time than|spent|most of|majority of|\d+(?:\.\d+)?\s*(?:x|×)|"
                     # (ut6) a host profile's share: "the tokenizer takes 40% of the time"
                     r"\d+(?:\.\d+)?\s*%\s+of)(?!\w)",
                     re.I)
# The reporter asks how to make the CPU-side stage faster: a request to speed it up is the complaint.
_SPEED_UP = re.compile(r"\b(?:speed (?:it |this |that )?up|accelerat\w*|make (?:it|this) faster)\b|提速|加速", re.I)
# The engine itself running on CPUs (vLLM's CPU backend, llama.cpp without offload): no GPU waits on it.
# ("the CPU only uses one core" says how the CPU is used, not that it runs alone; a utilisation figure after
# "no GPU", as in "no GPU goes above 40%", measures a GPU that runs; "no GPU at all and the CPU at 100%" does not)
_CPU_ONLY = re.compile(r"\bCPU[- ](?:mode|backend|only|inference|device)\b(?!\s+(?:uses?|used|using|runs?|one)\b)|"
                       r"\b(?:no|without (?:a|any)) GPUs?\b(?!(?:(?!\b(?:CPU|cores?|threads?)\b)[^.;,\n]){0,40}?"
                       r"\d+(?:\.\d+)?\s*%)", re.I)


def _cpu_only(facts: Facts) -> bool:
    """The reporter's words say the engine runs on the CPU alone (_CPU_ONLY): no GPU waits on the host."""
    return bool(_CPU_ONLY.search(" ".join(t for _, t in claims.texts(facts))))


@rule("ticket.comm_share", "comm_bound")
def comm_share(facts: Facts, predictions=None):
    """The reporter measured communication taking a large share of the step."""
    for c in claims.find(facts, "comm_share"):
        pct = next((float(g) for g in c.data.get("groups", []) if str(g).replace(".", "").isdigit()), None)
        if pct is None or not 30 <= pct <= 100:
            continue
        yield make("ticket.comm_share", "comm_bound", "warning", weight(c, 0.6),
                   f"Communication takes {pct:g} % of the time",
                   "When collectives take this share of each step, the GPUs spend most of it waiting for data; the "
                   "link and the amount exchanged per step decide the speed.",
                   [claim_ev(c, "share of time in communication")],
                   fix="Exchange less or less often (larger batches per step, gradient accumulation, fewer ranks per "
                   "collective), overlap it with compute, and check the measured bus bandwidth against the links.")
        return


# --------------------------------------------------------------------------- explanations (nothing broken)


# (s29, ut29a) Memory said to keep growing request after request ("yes it keeps increasing (slowly) after each
# request", vllm-project/vllm#8504): not the one reservation an engine makes at start-up.
_MEMORY_GROWS = re.compile(r"\b(?:keeps?|kept|continu\w+)\s+(?:on\s+)?(?:increas|grow|ris|climb)\w*|\bmemory leak|"
                           r"显存\s*(?:一直|持续|不断)\s*(?:增加|增长|上涨)", re.I)
# Bytes per parameter of 16-bit weights with some room for buffers: a memory figure above this times the parameter
# count (both from the reporter's sentence) is more than the weights, the reservation's share.
_WEIGHTS_GB_PER_B = 2.5
_PARAMS_B = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])")


def _above_weights(c, tp: int | None = None) -> bool:
    """A memory_per_gpu claim that gives (billions of parameters, GB) states memory above the 16-bit weights each GPU
    holds (tensor parallelism gives each of its `tp` GPUs 1/tp of them); one that gives no such pair is read as its
    pattern says (a figure against the model, or the reservation named)."""
    nums = [float(g) for g in c.data.get("groups", []) if re.fullmatch(r"\d+(?:\.\d+)?", g or "")]
    if len(nums) != 2:
        return True
    # the largest model the sentence names: in "3B and 7B model both take 16 GB of VRAM" (QwenLM/Qwen3-VL#897, a
    # Transformers load) the figure is the 7B's
    params = max([nums[0], *(float(x) for x in _PARAMS_B.findall(c.quote))])
    # (s49) a per-GPU figure against the whole model's weights called 43 GB on each of TP=2/4 GPUs below a 32B model's
    # 80 GB, though each GPU holds 40 GB or 20 GB of them (sgl-project/sglang#4118, tests/data/p49g). Only a figure
    # said of each GPU: "the 70B model requires 140 GB" is the whole model's at any TP (r49b)
    share = max(tp or 1, 1) if _EACH_GPU.search(c.quote) else 1
    return nums[1] > _WEIGHTS_GB_PER_B * params / share


_EACH_GPU = re.compile(r"\b(?:each|apiece|per[\s-]+(?:GPU|card|device|rank)|on\s+(?:every|both|all)\s+(?:the\s+)?"
                       r"(?:GPUs?|cards?|devices?)|"
                       r"every\s+(?:GPU|card|device)\s+(?:uses|takes|holds|has|shows))\b", re.I)


def _sized_by_params(c) -> bool:
    """A memory_per_gpu claim read as (billions of parameters, GB): a model's size and a figure, which say a reservation
    only where an engine that reserves is named. "This will run the 7B model and require ~26 GB of GPU memory"
    (Lightning-AI/lit-llama#67, review43) is 32-bit weights in a framework that reserves nothing."""
    return len([g for g in c.data.get("groups", []) if re.fullmatch(r"\d+(?:\.\d+)?", g or "")]) == 2


# The engine profiles (rules/catalog) whose engines reserve a fixed share of every GPU at start-up (see
# _filled_by_design); llama.cpp, Ollama and plain Transformers allocate as they go and reserve nothing.
_RESERVING_ENGINES = ("vllm", "vllm-0.14", "sglang", "trtllm", "lmdeploy", "tgi")
# (smi30) A GPU the reservation holds, read from a pasted nvidia-smi table: this share of its memory in use (the
# engines' defaults are 0.9 of the whole GPU: vLLM gpu_memory_utilization, TGI cuda_memory_fraction 1.0 less its
# headroom; TensorRT-LLM 0.9 and LMDeploy 0.8 of what the weights leave) at no more than this GPU-Util (no kernel
# running: the engine waits for requests).
_RESERVED_SHARE = 0.85
_IDLE_UTIL_PCT = 5.0
# "well above" the 16-bit weights: 2 bytes a parameter over the TP ranks, with a quarter more for buffers
_ABOVE_WEIGHTS = 1.25
# table rows and pasted tool output hold "Memory-Usage", "MiB": not the reporter's question
_TABLE_LINE = re.compile(r"[|+]\s*$|^\s*[|+]")


def _asks_about_memory(facts: Facts) -> bool:
    """A sentence of the reporter's own (not a pasted table row) about memory use, with no word of speed."""
    for _, text in claims.texts(facts):
        prose = "\n".join(line for line in text.splitlines() if not _TABLE_LINE.search(line))
        if any(claims.about_memory(s) for s in claims.sentences(prose)):
            return True
    return False


def _idle_reservation(facts: Facts) -> list[Evidence]:
    """Evidence that a pasted nvidia-smi table shows the engine's start-up reservation and nothing else: the model is
    known, and every GPU holding memory has at least _RESERVED_SHARE of it in use, well above the model's 16-bit
    weights share, at no more than _IDLE_UTIL_PCT GPU-Util. Empty otherwise."""
    model = facts.subject.model
    if model is None:
        return []
    tp = wfield(facts, "tp")[0] or 1
    weights_mib = 2 * model.params() / tp / 2**20
    gpus = [g for g in facts.of(GpuFact) if g.memory_used_mib and g.memory_total_mib
            and g.memory_used_mib > 0.1 * g.memory_total_mib]
    if not gpus or any(g.utilization_pct is None or g.utilization_pct > _IDLE_UTIL_PCT
                       or g.memory_used_mib < _RESERVED_SHARE * g.memory_total_mib
                       or g.memory_used_mib < _ABOVE_WEIGHTS * weights_mib for g in gpus):
        return []
    out = [ev(g.source, f"GPU {g.index}: memory in use at {g.utilization_pct:g} % GPU-Util (nvidia-smi table), "
                        f"of {g.memory_total_mib:g} MiB", g.memory_used_mib, round(weights_mib), "MiB")
           for g in gpus[:4]]
    out.append(ev(facts.subject.model_source or "catalog",
                  f"{model.key}: 16-bit weights per GPU at TP{tp} (catalog, {model.params() / 1e9:.1f} B parameters)",
                  round(weights_mib), None, "MiB"))
    return out


def _filled_by_design(confidence: float, evidence: list[Evidence]):
    """The finding: the engine's start-up reservation explains the memory in use."""
    return make("ticket.explained", "healthy", "ok", confidence, "Each GPU's memory is filled by design",
                "vLLM, SGLang, TensorRT-LLM, LMDeploy and TGI reserve a fixed fraction of every GPU's memory at "
                "start-up (gpu_memory_utilization 0.9, mem_fraction_static, free_gpu_memory_fraction 0.9, "
                "cache_max_entry_count 0.8 of what the weights leave, TGI's batch-token budget within "
                "cuda_memory_fraction) for weights plus a KV-cache pool, so a GPU "
                "shows far more memory in use than the model's weights, the same whatever the model or TP size; "
                "the pool is what later requests fill, and it is what lets the engine batch them.",
                evidence,
                fix="Nothing to fix; to share the GPU or leave room, lower the engine's fraction (vLLM "
                "--gpu-memory-utilization, SGLang --mem-fraction-static, TensorRT-LLM "
                "kv_cache_free_gpu_memory_fraction, LMDeploy --cache-max-entry-count, TGI "
                "--cuda-memory-fraction); the start-up log prints "
                "the weights' share and the KV cache's.")


@rule("ticket.explained", "healthy", "expected_physics")
def explained(facts: Facts, predictions=None):
    """Behaviour the reporter asks about that is how the software is designed to work."""
    c = _first(facts, "memory_per_gpu")
    engine = engine_of(facts)
    said = claims.symptom_quote(facts)
    failed = claims.out_of_memory(facts) or (said is not None and said[2] in FAILURES)
    # (a reservation explains high use, not a crash or an out-of-memory error: that is a failure to diagnose; nor
    # memory that keeps growing request after request, which a reservation made once at start-up does not do)
    if c and not failed and engine in (None, *_RESERVING_ENGINES) \
            and _above_weights(c, wfield(facts, "tp")[0]) and not (engine is None and _sized_by_params(c)) \
            and not _MEMORY_GROWS.search(" ".join(t for _, t in claims.texts(facts))):
        yield _filled_by_design(0.65, [claim_ev(c, "memory per GPU")])
    elif c is None and not failed and engine in _RESERVING_ENGINES and not claims.find(facts, "hang") \
            and not _MEMORY_GROWS.search(" ".join(t for _, t in claims.texts(facts))):
        # (smi30) the same reading from a pasted nvidia-smi table, where the reporter's words give no figure
        held = _idle_reservation(facts) if _asks_about_memory(facts) else []
        if held:
            yield _filled_by_design(0.6, held)
    c = _first(facts, "first_calls_slow")
    if c and not claims.find(facts, "hang"):
        yield passed("ticket.explained", "Only the first calls are slow: connection set-up and warm-up",
                     "NCCL connects peers lazily on the first collective between them, and the first kernels pay "
                     "for module loading and allocation; later calls run at the steady rate. Time after warm-up.",
                     [claim_ev(c, "first calls slow")], 0.65)
    c = _first(facts, "graph_capture_time")
    # (tried40) not where running without graphs (--enforce-eager) left the time as it was: capture is not what it is
    if c and not failed and not claims.find(facts, "hang") and not claims.tried_without_effect(facts, "cuda_graphs"):
        # (s29, ut29a) vLLM records a CUDA graph per batch size at start-up (67 shapes by default, "can take more
        # than 10s": vllm-project/vllm#20098), SGLang logs "Capture cuda graph begin. This can take up to several
        # minutes"; a one-off start-up cost, not a fault (vllm-project/vllm#16716, a maintainer: "Yes")
        yield make("ticket.explained", "healthy", "ok", 0.6,
                   "Capturing CUDA graphs at start-up takes this long by design",
                   "Serving engines record a CUDA graph for each batch size they may run before taking requests "
                   "(vLLM captures some 67 shapes by default, more with LoRA or long max-num-seqs; SGLang warns it can "
                   "take several minutes) and may compile the model first; the time is paid once per start, and the "
                   "graphs make every later decode step cheaper.",
                   [claim_ev(c, "the start-up time asked about")],
                   fix="Nothing to fix; to start faster at some decode speed, run eager (vLLM --enforce-eager, SGLang "
                   "--disable-cuda-graph) or capture fewer sizes (vLLM --max-num-seqs / cudagraph capture sizes, "
                   "SGLang --cuda-graph-max-bs), and keep the compile cache between starts.",
                   refs=["https://github.com/vllm-project/vllm/issues/20098"])
    busy = [u for u in claims.find(facts, "gpu_util") if u.data["percent"] >= 95]
    waiting = claims.find(facts, "blocked_in_collective")
    if busy and waiting and not claims.find(facts, "hang"):
        yield passed("ticket.explained", "100 % utilisation while waiting in a collective is NCCL spin-waiting",
                     "NCCL kernels poll for their peers on the GPU, so a GPU blocked in a collective shows 100 % "
                     "'utilisation' (nvidia-smi counts time a kernel runs, "
                     "not work done) at low power and temperature.",
                     [claim_ev(busy[0], "GPU utilisation while blocked")], 0.6)
    c = _first(facts, "overlap_slowdown")
    if c:
        yield make("ticket.explained", "expected_physics", "info", weight(c, 0.6),
                   "Compute kernels slow down while a collective runs beside them",
                   "NCCL's kernels occupy SMs and memory bandwidth while they run, so overlapped compute kernels get "
                   "fewer of both and take longer; the overlap still usually wins over running them in turn.",
                   [claim_ev(c, "overlap slowdown")],
                   fix="Expected; limit NCCL's share with NCCL_MAX_NCHANNELS / NCCL_NTHREADS if the "
                   "compute matters more.")


# (ut29e) The GPUs serve separate copies of the model (instances, replicas, data parallelism, requests balanced over
# them), with no tensor parallelism said: no rank waits on another, so an idle share on each is time with no request
# handed to it. "if you deploy the model to two gpus, The total throughput is similar ... GPU utilization drops to ~50%
# ... This can be circumvented by launching multiple trtserver instances" (triton-inference-server/server#269): one
# server process fed both GPUs no faster than one. Not "TP=2 vs two instances" (tensor parallelism said).
_BALANCED = re.compile(r"\b(?:balanc\w+|distribut\w+|spread|round[- ]robin\w*)\s+(?:\w+\s+){0,2}?"
                       r"(?:across|over|to|among)\s+(?:all\s+|the\s+|both\s+|\d+\s+)*"
                       r"(?:GPUs|cards|devices|instances|replicas)\b", re.I)


# Copies that still exchange data every step: DDP / FSDP / Horovod training all-reduces its gradients, so its replicas
# wait on each other over the links ("DDP on 2 machines ... connected with 1 Gbps ethernet" is the network's).
_COPIES_SYNC = re.compile(r"\bDDP\b|DistributedDataParallel|\bFSDP\b|\bHorovod\b|\bDeepSpeed\b|\bZeRO\b|"
                          r"\bgradients?\b|\ball[- _]?reduce\b|\bNCCL\b", re.I)


# (review46) one copy a GPU said GPU first: "Each GPU has a single model instance"
# (triton-inference-server/server#7385), which claims._COPIES reads only copy first ("one instance per GPU")
_COPY_EACH_GPU = re.compile(r"\b(?:each|every)\s+(?:GPU|card|device)\s+(?:has|hosts|runs|holds|serves|gets|loads)\s+"
                            r"(?:a|one|its\s+own|a\s+single|single)\s+(?:\w+\s+){0,2}?(?:instance|copy|replica)\b",
                            re.I)


def _copies_not_shards(facts: Facts) -> Claim | None:
    """The reporter's sentence naming copies of the model over the GPUs (claims._COPIES, or requests balanced over
    them) where nothing in the ticket names tensor parallelism, a sharded model, or copies that synchronise (DDP,
    gradients, all-reduce, NCCL); None otherwise."""
    texts = [t for _, t in claims.texts(facts)]
    if (wfield(facts, "tp")[0] or 0) >= 2 or any(claims._named(claims._ONE_SHARDED, t) or _COPIES_SYNC.search(t)
                                                  for t in texts):
        return None
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(claims.spaced(text)):
            m = _BALANCED.search(sentence) or _COPY_EACH_GPU.search(sentence)
            if not m and claims._named(claims._COPIES, sentence):
                m = re.search(claims._COPIES, sentence, re.I)
            if m:
                return Claim("copies_not_shards", source, claims._quote(sentence, m, 60))
    return None


@rule("ticket.gpu_utilisation", "host_bound", "expected_physics", "healthy")
def gpu_utilisation(facts: Facts, predictions=None):
    """A low GPU-utilisation figure, read by what the GPUs are doing: one GPU waiting on the host, a layer
    split where GPUs take turns, or TP ranks waiting on each other."""
    idle = _first(facts, "util_when_idle")
    if idle and not idle.guess:
        # a reading taken with no work running says nothing of the work (claims PATTERNS util_when_idle: NVML counts a
        # resident kernel as busy), so neither a high nor a low figure beside it is read as the run's utilisation
        yield passed("ticket.gpu_utilisation", "A GPU reads busy with no work running: the counter, not the work",
                     "nvidia-smi's GPU-Util is the share of the sample period in which any kernel was resident on "
                     "the GPU (NVML utilization.gpu), not how much of it computes. A kernel left waiting reads 100 % "
                     "at idle power: NCCL's collectives spin on the GPU until their peers arrive, and a serving engine "
                     "may keep a polling kernel resident between requests. Busy with nothing to do is no slowdown; the "
                     "board power beside it (`nvidia-smi --query-gpu=index,utilization.gpu,power.draw --format=csv "
                     "-l 1`) shows whether it works.",
                     [claim_ev(idle, "utilisation read with no work running")], 0.6)
        return
    readings = claims.find(facts, "gpu_util")
    low = [u for u in readings if u.data["percent"] < 80]
    words = _first(facts, "gpu_idle_words")
    if not low and not (words and not words.guess):
        return
    if not low and (readings or claims.find(facts, "hang") or claims.hang_seen_now(facts)):
        # (s23) "idle" said of GPUs the same text counts busy ("the GPUs remain idle ... GPU utilization stays at 100%",
        # modelscope/ms-swift#10183), or of a job that hangs: the GPUs of a stalled collective wait in NCCL's spinning
        # kernel, which NVML counts busy; the words name the stall, not a host that starves them
        # (cjk44) the hang also as the words that class the ticket, in any language the symptom reading knows: "其他GPU
        # 处于空闲状态" beside "初始化阶段出现卡顿或超时" and a 1800000 ms timeout (a vLLM TP=4 start-up,
        # blog.gitcode.com/9f4b4159...), as ticket.cpu_bound already reads it
        # (fr44) a hang seen now: not one guarded against or fixed before ("之前出现过卡住的问题，升级后已经解决了")
        return
    u = min(low, key=lambda c: c.data["percent"]) if low else words
    pct = u.data.get("percent")
    low_end = u.data.get("low")  # a range said ("stayed at 2-5%"): both ends
    share = (f"{low_end:g}-{pct:g} %" if low_end is not None else f"{pct:g} %") if pct is not None else "a low share"
    n = _gpus(facts)
    engine = engine_of(facts)
    # (scaling44) transformers alone splits only where told to (a device_map, FastChat's --num-gpus above 1): with no
    # GPU count said, one GPU is not assumed several ("GPU usage is 1%" under fastchat.serve.cli, lm-sys/FastChat#504)
    engine_split = layer_split_engine(facts) and not (splits_only_if_told(facts) and not (n and n >= 2)
                                                      and not claims.several_gpus(facts))
    layer_split = claims.find(facts, "layer_split") or engine_split or taking_turns(facts)
    evidence = [claim_ev(u, "GPU utilisation")]
    copies = None
    if layer_split and (n or 2) >= 2:
        if failure_said(facts):
            return  # (risks37) the utilisation is by design, the failure beside it (wrong output, an HTTP 5xx) is not
        yield passed("ticket.gpu_utilisation", f"{share} per GPU is what a layer split gives",
                     "With the layers split over the GPUs (llama.cpp / Ollama / text-generation-webui / accelerate "
                     "device_map), each token passes through the GPUs one after another, so each is busy about 1/n of "
                     "the time; more GPUs add memory, not speed.",
                     evidence, 0.65)
    elif pct is not None and pct <= claims.SWING_IDLE and any(claims.cards_split_busy_idle(r.quote) for r in readings):
        # (s39) cards idle beside busy ones ("a few of the GPUs show 0% while the others are at 100%"): a TP rank that
        # waits on its peers spins in NCCL's kernel and reads busy (spinning_gpus, below), and a host that starves the
        # job starves every card alike, so a card at zero next to busy ones takes no part in the step (fewer ranks than
        # cards, another job's card); neither a wait nor the host, and this figure alone does not say which
        return
    elif n and n >= 2 and not (_first(facts, "util_swings") or _first(facts, "input_starved")) \
            and not (training_job(facts) and (wfield(facts, "tp")[0] or 0) < 2) \
            and not (copies := _copies_not_shards(facts)):
        # (idle stretches between busy ones are the host's: ticket.input_starved; data-parallel training waits in
        # its gradient all-reduce inside NCCL's spinning kernels, which count as busy, so its idle time is the host's)
        yield make("ticket.gpu_utilisation", "expected_physics", "info", 0.55,
                   f"{share} utilisation with {n} GPUs: the ranks wait on each other",
                   "With tensor parallelism every layer ends in an all-reduce; while ranks exchange data and wait for "
                   "the slowest, their compute units idle, and small per-GPU kernels finish before the next launch.",
                   evidence, fix="Raise the batch (concurrency) per step; use fewer GPUs per replica for small models.")
    # a figure nobody calls low or slow is only an observation; copies that add no throughput are the complaint
    elif (words and not words.guess) or claims.complaint(facts) or (copies and claims.more_gpus_no_gain(facts)):
        yield make("ticket.gpu_utilisation", "host_bound", "warning", weight(u, 0.6),
                   f"The GPU is busy only {share} of the time: it waits on the host",
                   "A GPU that is not kept busy (alone, or as one of data-parallel replicas) is starved by the CPU "
                   "side: data loading, request handling, scheduling, tokenization or kernel launches between steps."
                   + (f" ({engine} serving path)" if engine else "")
                   + (" Here each GPU serves its own copy of the model, so no GPU waits on another: the GPUs "
                      "together get no more work than the one process, client or host feeding them hands out."
                      if copies else ""),
                   evidence + ([claim_ev(copies, "the GPUs serve copies of the model, no tensor parallelism said")]
                               + [claim_ev(c, "more GPUs, the same total") for c in claims.more_gpus_no_gain(facts)[:1]]
                               if copies else []),
                   fix="Profile the host (py-spy / nsys): use CUDA graphs, larger batches, a faster tokenizer path, "
                   "and fast uncontended CPU cores."
                   + (" With copies per GPU, check that the feeder keeps up: run several server processes or client "
                      "instances and compare the total." if copies else ""))


# (issue 11, s22) A GPU counted busy that draws little power does not compute. NVML's utilization.gpu is the "percent of
# time over the past sample period during which one or more kernels was executing on the GPU" (NVML API reference,
# nvmlUtilization_t), and NCCL's collective kernels poll on the GPU until their peers' data arrives, so a rank waiting
# on a peer reads 100 % near idle power. Real nvidia-smi tables of hung collectives (tests/data/busy_low_power/
# SOURCES.md): 44 W of 250 W on both busy V100-PCIe (17.6 %, NVIDIA/nccl#199), 65-76 W of 300 W on V100-SXM2 (22-25 %,
# pytorch/pytorch#22671); a board computing at 100 % sits at its cap (101 W of 100 W, GTX 1070 mining,
# xstead/ethereum-miner-monitor#5), and an idle one at its floor with 0-3 % (134 W of 700 W H100, 19 %,
# wilicc/gpu-burn#114). Below 35 % of the cap is the spinning side with room above the idle floors read.
SPIN_POWER_SHARE = 0.35
SPIN_UTIL = 90


def spinning_gpus(facts: Facts) -> list[tuple[GpuFact, float, str]]:
    """(GPU, power cap in W, where the cap comes from) for each busy GPU (GPU-Util >= SPIN_UTIL) of a pasted nvidia-smi
    table when every busy GPU draws below SPIN_POWER_SHARE of its cap (the table's Pwr:Usage/Cap, else the catalog's
    rated power of the GPU named); empty when any busy GPU draws more, or no cap is known."""
    spec = getattr(facts.subject, "gpu", None)  # (None before the engine sets the subject)
    busy = [g for g in facts.of(GpuFact) if (g.utilization_pct or 0) >= SPIN_UTIL and g.power_draw_w]
    rows = [(g, g.power_limit_w, "Pwr:Usage/Cap") if g.power_limit_w else
            (g, spec.tdp_w if spec else 0.0, f"catalog {spec.key} TDP" if spec else "") for g in busy]
    if not rows or any(not cap or g.power_draw_w >= SPIN_POWER_SHARE * cap for g, cap, _ in rows):
        return []
    return rows


@rule("ticket.busy_low_power", "other", "comm_bound")
def busy_low_power(facts: Facts, predictions=None):
    """GPUs counted 100 % busy at a small share of their power during a hang or a slow run: kernels resident but not
    computing, a collective waiting on a peer (a hang: a rank that never arrives; a slow run: every step waits in
    communication)."""
    said = claims.symptom_quote(facts)
    if not said or said[2] not in ("hang", "slow", "scaling"):
        # the opening classed by other words (an issue template's "该错误"): the hang or the slowness said later
        hang, slow = [c for c in claims.find(facts, "hang") if not c.guess], claims.complaint(facts)
        said = (hang[0].source, hang[0].quote, "hang") if hang else (slow.source, slow.quote, "slow") if slow else None
    if not said or _first(facts, "util_when_idle"):
        return
    spec = getattr(facts.subject, "gpu", None)
    evidence = [ev(g, f"{gpu_label(g)} at GPU-Util {g.utilization_pct:g} % draws (nvidia-smi)", g.power_draw_w,
                   f"< {SPIN_POWER_SHARE * cap:.0f} ({SPIN_POWER_SHARE:.0%} of {cap:g} W, {where})", "W")
                for g, cap, where in spinning_gpus(facts)][:4]
    for c in claims.find(facts, "busy_low_power"):
        watts = float(c.data["groups"][0]) if c.data.get("groups") else None
        if c.guess or (watts and spec and watts >= SPIN_POWER_SHARE * spec.tdp_w):
            continue  # "only 300 W" of a 350 W board computes
        evidence.append(claim_ev(c, "busy at low power, in the reporter's words"))
        break
    if not evidence:
        return
    evidence.append(ev(said[0], f'the symptom: "{said[1]}"'))
    fix = ("Find the rank the others wait for: run with NCCL_DEBUG=INFO, take `py-spy dump --pid` of every "
           "rank (or `cuda-gdb -p` of the waiting one) to see which collective each waits in, and check the NCCL_* "
           "environment settings (NCCL_SOCKET_IFNAME, NCCL_IB_*, NCCL_P2P_*) against the hardware, per NCCL's "
           "troubleshooting guide.")
    summary = ("nvidia-smi's GPU-Util is the share of time any kernel was resident (NVML utilization.gpu), not work "
               "done. NCCL's collective kernels poll on the GPU until their peers' data arrives, so a GPU waiting in a "
               "collective reads 100 % at near-idle power, while one that computes draws close to its cap.")
    if said[2] == "hang":
        yield make("ticket.busy_low_power", "other", "warning", 0.45,
                   "GPUs 100 % busy at low power while it hangs: a collective is waiting on a peer",
                   summary + " The busy GPUs are spinning in a collective that a peer never joins: a rank that stopped "
                   "or took another path, or a transport that never delivers.", evidence, fix=fix,
                   refs=["nccl_trouble"])
        return
    yield make("ticket.busy_low_power", "comm_bound", "warning", 0.5,
               "GPUs 100 % busy at low power while it runs slowly: the steps wait in communication",
               summary + " The steps spend their time waiting in collectives for data from peers (a slow or "
               "misconfigured transport, or a late rank), not computing.", evidence, fix=fix, refs=["nccl_trouble"])


def taking_turns(facts: Facts) -> bool:
    """One GPU busy (>= 90 %) while another all but idles (<= 20 %) under an engine that is not tensor-parallel: the
    GPUs take turns, as in a layer split (or the model sits on one GPU). Tensor-parallel ranks run every layer
    together and spin in NCCL while they wait, so their utilisation stays alike."""
    shares = [c.data["percent"] for c in claims.find(facts, "gpu_util") if not c.data.get("below")]
    return len(shares) >= 2 and max(shares) >= 90 and min(shares) <= 20 and not tp_engine(engine_of(facts)) \
        and not training_job(facts) and not _first(facts, "util_swings") \
        and any(_TWO_GPUS_TOLD_APART.search(t) for _, t in claims.texts(facts))


# Two GPUs told apart ("GPU0 ... GPU1", "one card ... the other", "另一张卡"): the busy and the idle figure are two
# GPUs, not one GPU at two moments ("100 % during prefill, then 10 % while decoding") or under two loads.
_TWO_GPUS_TOLD_APART = re.compile(r"\bGPU\s*#?\d\b[^\n]*?\bGPU\s*#?\d\b|\bthe other\b|\banother (?:one|GPU|card)\b|"
                                  r"另一|另外一|其他(?:卡|GPU)", re.I)


# (review35) "accelerate" and "scale" as a comparison of speed, said as verbs of the work ("does not accelerate
# inference", "will two GPUs accelerate it", "doesn't scale past TP=2", "scales poorly with more GPUs"), not the
# Hugging Face library ("accelerate launch", "accelerate config", "with accelerate's device_map") nor a deployment, a
# memory trend or a number's scale ("scale out to 4 nodes", "scale to zero replicas", "doesn't scale down", "rope
# scaling", "FP8 scales"): those made a memory or topology "is this normal?" the physics prior's.
_SPEED_VERB = re.compile(
    r"(?:\b(?:not|to|can|could|will|would|does|do|did|may|might|helps?|greatly|further)|n['’]t)\s+accelerate\b|"
    r"(?<![-\w])accelerat(?:es|ed|ing)\s+(?:the\s+|my\s+|our\s+|its\s+)?(?:inference|generation|decoding|prefill|"
    r"training|throughput|all-?reduce|it)\b|"
    r"\baccelerate\s+(?:the\s+|my\s+|our\s+)?(?:inference|generation|decoding|prefill|training|all-?reduce|it)\b|"
    r"(?:(?:\b(?:not|never|poorly|badly|well|linearly|sub-?linearly)|n['’]t)\s+scal(?:e|es|ed|ing)\b|"
    r"\bscal(?:e|es|ed|ing)\s+(?:well|poorly|badly|linearly|sub-?linearly|with\s+(?:more\s+|the\s+number\s+of\s+)?"
    r"(?:GPUs|cards|devices|nodes|TP))\b|\b(?:linear|poor|bad|weak|strong)\s+scaling\b|\bscaling\s+efficiency\b)"
    r"(?!\s+(?:down|up|out|back|to\s+zero)\b)", re.I)


def _about_performance(facts: Facts) -> bool:
    """Does the reporter ask about a performance figure (a measurement, or its words)? 'X is slow, is this normal?'
    alone is not one: with no figure and no comparison nothing tells physics from a setting (two RTX 3090s running a
    70B Q4 'slow' was layers left on the CPU, janhq/jan#3955), so the ask, not a physics prior, answers it."""
    text = " ".join(t for _, t in claims.texts(facts))[:2000]
    # (normal35) a comparison of speed said with another word ("no speedup with TP=4", "is it quicker on two cards")
    # or as a verb of the work (_SPEED_VERB: "it does not accelerate inference", "doesn't scale past two GPUs")
    return bool(facts.of(Measurement)
                or re.search(r"\b(?:tok(?:en)?s?/s|throughput|latency|bandwidth|busbw|algbw|speed|speed[- ]?ups?|"
                             r"utili[sz]ation|GB/s|slower|faster|quicker)\b", text, re.I)
                or _SPEED_VERB.search(text))


# --------------------------------------------------------------------------- the reporter's numbers vs the predictor


# (left28) Engines whose kernels do their arithmetic in FP16: ExLlama and ExLlamaV2 ("ExLlama relies heavily on FP16
# math", turboderp in turboderp/exllama#75). On compute capability 6.1 (GP102/GP104/GP106: Tesla P40, P4, GTX 10xx) FP16
# arithmetic runs at 2 results per clock per SM against 128 for FP32, 1/64 (CUDA C++ Programming Guide, "Arithmetic
# Instructions" throughput table). The catalog prices those GPUs' 16-bit math on the FP32 path, as llama.cpp runs it,
# so a band for these engines there would be one the run could never reach: not judged (insufficient_data), rather
# than a shortfall blamed on a fault.
HALF_MATH_ENGINES = ("exllama",)
SLOW_HALF_CC = (6.1,)
# A front end over loaders (text-generation-webui runs ExLlama, llama.cpp or transformers, its "Output generated in"
# line printed whichever ran): the loader named beside it is what computes.
FRONT_ENDS = ("textgenerationwebui",)


def half_math_unpriced(facts: Facts, gpu) -> bool:
    """Does the ticket run only FP16-math engines (HALF_MATH_ENGINES) on a GPU whose FP16 rate is 1/64 of FP32?"""
    named = claims.engines_named(facts) - set(FRONT_ENDS)
    return bool(named) and named <= set(HALF_MATH_ENGINES) and \
        getattr(gpu, "compute_capability", None) in SLOW_HALF_CC


# (audit30b) The same knowledge as an answer, not only a reason to stay silent: cc 6.1 retires 2 FP16 results per clock
# per SM against 128 FP32 (CUDA C++ Programming Guide, "Arithmetic Instructions"), so an FP16-math engine's decode
# cannot beat 2 FLOPs per parameter at fp32_tflops / 64. A figure well above that ceiling ran some other path: then the
# FP16 rate is not what paced it, and nothing is claimed.
FP16_RATE_SHARE = 1 / 64
ABOVE_HALF_CEILING = 1.5  # a rate this far over the FP16 ceiling is not FP16-bound (timing slack, a partial path)
# Quantised-model loaders beside ExLlama that have an FP32 path on Pascal (AutoGPTQ's use_cuda_fp16=False, the
# GPTQ-for-LLaMa CUDA kernel, AutoAWQ, bitsandbytes): a ticket that ran one of them too ("Test AutoGPTQ, Exllama_HF,
# Exllama ... same speed", oobabooga/textgen#3825) does not show the FP16 rate as the cause.
_FP32_LOADERS = re.compile(r"\bauto[-_ ]?gptq|\bgptq[-_ ]?for[-_ ]?llama|\bauto[-_ ]?awq|\bbitsandbytes\b", re.I)


@rule("ticket.half_math_gpu", "expected_physics")
def half_math_gpu(facts: Facts, predictions=None):
    """An FP16-math engine (ExLlama, ExLlamaV2) on a GPU that runs FP16 at 1/64 of its FP32 rate (compute capability
    6.1: Tesla P40/P4, GTX 10xx): slow by the hardware, whatever the setup."""
    gpu = facts.subject.gpu
    if gpu is None or not half_math_unpriced(facts, gpu):
        return
    if not (_about_performance(facts) or claims.complaint(facts)):
        return  # not about speed: the FP16 rate answers nothing asked
    if any(_FP32_LOADERS.search(t) for _, t in claims.texts(facts)):
        return
    half_tflops = gpu.fp32_tflops * FP16_RATE_SHARE
    evidence = [ev(facts.subject.gpu_source or "ticket", f"{gpu.name}: compute capability {gpu.compute_capability:g}, "
                   f"FP16 at 1/64 of FP32 (CUDA C++ Programming Guide, arithmetic instruction throughput): "
                   f"{gpu.fp32_tflops:g} TFLOPS FP32 (rules/catalog/gpus.toml)", round(half_tflops, 3),
                   unit="TFLOPS FP16")]
    model, rates = facts.subject.model, one_off(measurements(facts, "decode_tok_s"))
    confidence = 0.6
    if model is not None and rates:
        ceiling = half_tflops * 1e12 / (2 * model.active_params())
        fastest = max(rates, key=lambda m: m.value)
        if fastest.value > ceiling * ABOVE_HALF_CEILING:
            return  # faster than FP16 math allows: the engine did not run this GPU's FP16 path throughout
        evidence.append(ev(fastest, f"decode rate against the FP16 ceiling of {model.name} (2 FLOPs per "
                           f"parameter, {model.active_params() / 1e9:.1f}B active, at the FP16 rate above)",
                           fastest.value, round(ceiling, 2), "tok/s"))
        confidence = 0.69
    yield make("ticket.half_math_gpu", "expected_physics", "info", confidence,
               f"The engine computes in FP16, which the {gpu.name} runs at 1/64 of its FP32 rate",
               "ExLlama and ExLlamaV2 do their arithmetic in half precision; Pascal GPUs other than the P100 "
               "(compute capability 6.1) execute FP16 at 1/64 of their FP32 rate, so generation is slow and the GPU "
               "draws little power while it waits on those units. That is the hardware, not a fault in the setup.",
               evidence,
               fix="Use an engine that computes in FP32 on this GPU (llama.cpp, or a GPTQ kernel with FP16 off), or "
               "run the model on a GPU of compute capability 7.0 or newer.")


@rule("ticket.measured_vs_expected", "expected_physics", "other")
def measured_vs_expected(facts: Facts, predictions=None):
    """A decode rate the reporter gives, against the calibrated expected figure and the roofline for the
    model, GPU, layout and engine the ticket names."""
    model, model_src = facts.subject.model, facts.subject.model_source
    gpu = facts.subject.gpu
    if model is None or gpu is None or unmodelled_layout(facts):
        return  # (a layout the predictor does not model, such as data-parallel attention, is not judged)
    if any(n.kind == "results_table" for n in facts.of(Note)):
        return  # a table of layouts: ticket.comparison_set reads it as a set, a cell's TP is not the ticket's
    if half_math_unpriced(facts, gpu):
        return
    broken = tp_series_beyond_band(facts, model, model_src, gpu)
    if broken:
        yield broken
        return
    split = one_gpu_pace(facts)
    # an engine's stats lines stand as one figure per log, at its steady load (rules.common.steady_logs)
    rates = one_off(measurements(facts, "decode_tok_s")) + steady_logs(facts)
    for m in slowest_first(rates):
        if split is not None and split_pace(facts, split, m):
            continue  # one stream through a layer split: ticket.layer_split_rate judges it against one GPU's pace
        # the layout stated, else the engine's use of the GPUs named, else a layer split where one GPU is too small
        said, per_step, measured = f"{m.value:g} tok/s", tokens_per_step(facts, m), m
        if per_step:  # one verify step yields per_step tokens: the step rate is what the decode model predicts
            step = dataclasses.replace(m, value=round(m.value / per_step.value, 2))
            said = f"{m.value:g} tok/s ({step.value:g} steps/s x {per_step.value:g} tokens per step)"
            spec_ev = [ev(per_step, "speculative decoding: mean tokens per verify step (the bonus token included); "
                          "the rate is judged per step", per_step.value, unit="tok/step")]
            m = step
        at_batch = stated_batch(facts, m) or 1  # load_for's batch: the one every rule prices this figure at
        layout_tp, pp, how = assumed_layout(facts, m, at_batch)
        if batch_total(facts, m, layout_tp):
            continue  # a batch's total, not one stream's rate: ticket.batched_rate judges it at that batch
        p = predict_layout(facts, layout_tp, at_batch, pp=pp, dtype=m.dtype)  # a table's column names its weights
        if p is not None and p.valid and not p.fits:
            # faster than the 16-bit weights could stream even had they fitted (no offload explains it, fewer bytes
            # do), or 16-bit weights the GPUs cannot hold: either way the run streamed a width the ticket does not say
            spanned = _spanned_weights(facts, m, layout_tp, pp, said, how, p.decode_tok_s, p)
            if spanned:
                yield spanned
                return
        if p is None or not (p.valid and p.fits and p.decode_tok_s_expected):
            continue
        load = None if per_step or m.scope == "aggregate" else stated_load(facts, m)
        spec = None if per_step or load or m.scope == "aggregate" or stated_batch(facts, m) \
            else speculation.stated(facts)
        if spec is not None and m.value > p.decode_tok_s_expected / p.band_low:
            yield _speculated_rate(m, spec, p, how, said, model, model_src, gpu)
            return
        judged = _rate_at_load(facts, m, load, p, how, pp) if load else None
        if judged is not None:
            yield judged
            return
        expected, roofline = p.decode_tok_s_expected, p.decode_tok_s
        low, high = expected / p.band_high, expected / p.band_low
        band = band_text(low, high, m.value)
        at, _ = batch_words(facts, m)  # (an assumed batch does not lower confidence: see batch_words)
        what = f"decode rate at {layout_words(p)} ({how}), {at}"
        evidence = band_evidence(m, what, "tok/s", expected, band, roofline, p, gpu, model_src, model)
        if per_step:
            evidence[0] = ev(m, f"{what}: verify steps per second, the measured {said}", m.value,
                             round(expected, 1), "steps/s")
            evidence += spec_ev
        if beats(m.value, roofline, False) and (m.stat != "reported" or stated_batch(facts, m)):
            yield finding("ticket.measured_vs_expected", f"TP{layout_tp} batch {at_batch}", m.value, roofline,
                          "steps/s" if per_step else "tok/s", evidence,
                          assumed=defaults_assumed(facts, m, how, p))  # one stream beyond the bound, as scaling says
            return
        if m.value > roofline * 1.1:
            spanned = _spanned_weights(facts, m, layout_tp, pp, said, how, roofline, p)
            if spanned:
                yield spanned
                return
            continue  # above the bound: counted differently (total over a batch, prompt tokens); not judged
        if m.value > high:
            yield faster_than_band("ticket.measured_vs_expected", said, f"{band} tok/s",
                                   f"roofline {roofline:.0f} tok/s", evidence)
            return
        # a figure written in prose reads a little low (rules.expectations), unless the same reporter timed the same
        # layout faster inside the band: timed alike, the slower one is short of its twin, not of the band's edge
        twin = next((o for o in rates if o is not measured and same_layout(o, m) and low <= o.value <= high), None)
        if twin is not None and m.value < low:
            evidence.append(ev(twin, "the same layout timed faster by the reporter, inside the band: no prose slack "
                               "for the slower", twin.value, m.value, "tok/s"))
        if m.value >= (low if twin else lowest_normal(low, m)):
            # (with speculative decoding a stream's rate follows the drafts' acceptance, which the text decides)
            faster = None if layouts_compared(facts) or speculation.stated(facts) \
                else faster_twin(rates, measured, facts)
            if faster is not None:
                yield _twin_gap(said, measured, faster, band, evidence)
                return
            under = 1 - m.value / low
            edge = f"; {under:.0%} below its low edge, as a rate timed end to end reads" if m.value < low else ""
            where = ("sits inside the calibrated band for this model on these GPUs" if not edge else
                     f"is {under:.0%} below the calibrated band's low edge for this model on these GPUs, within the "
                     f"{1 - REPORTED_RATE_SLACK:.0%} a rate written in prose reads low (what was timed holds the "
                     "prompt, sampling and the reply's turn, and the figure is rounded)")
            yield make("ticket.measured_vs_expected", "expected_physics", "info",
                       (0.6 if not edge else 0.55) - assumed_cut(p),
                       f"{said} is what this model, GPU and layout deliver (expected {band}{edge})",
                       f"The rate the reporter measured {where}; "
                       "decode streams every weight from memory per token, "
                       "and that bound, not a fault, sets the speed.",
                       evidence, fix="Nothing is broken; for more speed raise the batch, quantise, or use GPUs with "
                       "more memory bandwidth.")
            return
        if per_step:  # drafting and verifying several tokens cost a step more than plain decode, by an unmodelled share
            yield make("ticket.measured_vs_expected", "other", "info", 0.3,
                       f"{said} is below the plain-decode band of {band} steps/s; the drafting cost is not modelled",
                       "Under speculative decoding each step drafts tokens and verifies them together, so a step takes "
                       "longer than a plain decode step by an amount the model does not predict: a step rate below "
                       "the plain band is no evidence of a fault by itself.",
                       evidence, fix="Compare with the same server without --speculative-config (tok/s at one "
                       "request), and attach the engine log of both runs.")
            return
        yield beyond_band.finding("ticket.measured_vs_expected", said, m.value, low, "tok/s", False, f"{band} tok/s",
                                  evidence, _shortfall_asks(facts, p), reported=not twin and is_reported(m))
        return


# Two decode rates of one layout count as different past this ratio. Not fitted to a case: one command timed twice
# moves by a few percent (a boost bin, the prompt, rounding: rules/fleet_rules.MIN_RELATIVE takes 3 % as run-to-run
# noise), so the margin sits at three times that.
RUNS_DIFFER = 1.1


def layouts_compared(facts: Facts) -> bool:
    """Is the complaint about scaling? Its figures then belong to the layouts it compares ("TP2 -> TP4: 30tps ->
    46tps", vllm-project/vllm#6955), even where no figure carries its own TP."""
    said = claims.symptom_quote(facts)
    return bool(said) and said[2] == "scaling"


# A figure's line that names the workload it ran (the context or prompt length, a batch, concurrent requests or users,
# a parallel layout): rates under different workloads differ by design (decode slows as the KV cache grows), so two
# such figures are no twins.
_WORKLOAD_WORDS = re.compile(r"\b(?:context|ctx|prompts?|input|long|short|batch\w*|concurren\w*|requests?|users?|"
                             r"parallel\w*|TP\s*=?\s*\d|\d+\s*[kK]\b)", re.I)


def _not_a_run(facts: Facts, m: Measurement) -> bool:
    """Is m a labelled row of a Markdown table (a table's rows are its workloads and metrics: "| Narrative decode TPS
    | 73.41 |", "| Code decode TPS | 95.23 |", noonghunna/club-3090#698) or on a line naming its workload
    (_WORKLOAD_WORDS), rather than one run timed?"""
    for n in facts.of(Note):
        lines, where = (n.text or "").splitlines() if n.kind == "description" else [], n.data.get("prose_sources")
        if where and m.source in where and len(lines) > where.index(m.source):
            line = lines[where.index(m.source)]
            return line.lstrip().startswith("|") or bool(_WORKLOAD_WORDS.search(line))
    return False


def faster_twin(rates: list[Measurement], m: Measurement, facts: Facts | None = None) -> Measurement | None:
    """The fastest other rate the ticket gives for m's layout (same_layout) that beats m by RUNS_DIFFER, on no GPU
    or model its clause names apart from m's, else None: the same GPUs ran faster, so the gap is the runs'."""
    def apart(a, b) -> bool:
        return bool(a and b and a != b)
    twins = [o for o in rates if o is not m and same_layout(o, m) and o.value >= m.value * RUNS_DIFFER
             and not apart(o.gpu_name, m.gpu_name) and not apart(o.model, m.model)
             and not (facts is not None and (_not_a_run(facts, o) or _not_a_run(facts, m)))]
    return max(twins, key=lambda o: o.value, default=None)


def _twin_gap(said: str, m: Measurement, faster: Measurement, band: str, evidence: list):
    """A rate inside the band with a faster twin in the ticket: the band fits both, so it cannot say which run lost
    the gap; physics does not explain a gap between two runs of one layout on the same GPUs (a lead, not a verdict)."""
    ratio = faster.value / m.value
    return make("ticket.measured_vs_expected", "other", "info", 0.35,
                f"{said} fits the band ({band}), but the same layout ran {faster.value:g} tok/s in this ticket "
                f"(x{ratio:.2f})",
                "The rate fits the calibrated band for this model on these GPUs, yet the reporter timed the same "
                f"layout {ratio - 1:.0%} faster, more than one run timed twice moves, so the band's fit does not "
                "make the slower run physics. What differs "
                "between the two runs (a flag or environment variable, which GPUs are visible, the engine build, the "
                "context length or the prompt) costs that share, not the memory-bandwidth bound.",
                evidence + [ev(faster, "the same layout timed faster by the reporter", faster.value, m.value, "tok/s"),
                            ev("rules/ticket_rules.py", "two runs of one layout differ past this ratio",
                               round(ratio, 2), RUNS_DIFFER)],
                fix="Diff the two runs: the full command line, environment variables (CUDA_VISIBLE_DEVICES, NCCL_*), "
                "the engine version and the context length; attach both outputs.")


def _speculated_rate(m: Measurement, spec, p, how: str, said: str, model, model_src, gpu):
    """One stream's rate above the plain-decode band where the ticket says speculative decoding ran but prints no
    acceptance length: each verify step streams the weights once and keeps the published tokens a step for the
    method (rules/catalog/speculative.toml), so the band is the plain one times that range. Inside it: physics;
    beyond even the roofline times the most a step keeps: not one stream's decode rate, as without speculation."""
    s = speculation.speculated(spec, p.decode_tok_s_expected, p.band_low, p.band_high, p.decode_tok_s)
    (lo, hi), label = s.per_step, spec.label
    band = band_text(s.low, s.high, m.value)
    evidence = [ev(m, f"decode rate at {layout_words(p)} ({how}), one stream, with {label}{spec.drafts}", m.value,
                   round(s.high, 1), "tok/s"),
                ev(spec.source, f"speculative decoding stated: {spec.said}", spec.method),
                *speculation.evidence(spec, s, p, gpu, band),
                ev(model_src, "model", model.key)]
    if m.value <= s.high:
        return make("ticket.measured_vs_expected", "expected_physics", "info", 0.5,
                    f"{said} is what {model.name} gives one stream on {gpu.name} with {label} (expected {band})",
                    f"The rate is above plain decode ({band_text(s.plain_low, s.plain_high)} tok/s), as speculative "
                    f"decoding makes it: each verify step streams the weights once and keeps {lo:g}-{hi:g} tokens "
                    f"by the figures published for {label}, a healthy run gives {band} tok/s and the figure is inside.",
                    evidence, fix="Nothing is broken; the engine's acceptance-length line (vLLM 'SpecDecoding "
                    "metrics', SGLang 'accept len') pins the tokens a step; a run without speculation gives the "
                    "plain rate.")
    if m.value <= s.roofline * 1.1:
        return faster_than_band("ticket.measured_vs_expected", said, f"{band} tok/s with {label}",
                                f"roofline {s.roofline:.0f} tok/s at {hi:g} tokens a step", evidence)
    return make("ticket.measured_vs_expected", "other", "warning", 0.5,
                f"{said} beats the roofline even with {label} ({s.roofline:.0f} tok/s at {hi:g} tokens a step)",
                "One stream cannot decode this fast even if every verify step kept the most tokens published for the "
                "method: the figure counts something else (a batch's total, prompt tokens) or the weights are "
                "smaller than the ticket says.",
                evidence, fix="Say what the figure counts (one request's output tok/s, or the total over requests) and "
                "which weights ran.")


def _rate_at_load(facts: Facts, m: Measurement, load: tuple[int, str], p, how: str, pp: int):
    """A decode rate stated beside N requests in flight but not said to be one stream's or their total: it is
    expected between one stream's pace at batch N (the slow edge) and all N streams' output together (the fast
    edge); a rate one stream's by its source (a llama-server slot) between one stream at N and one stream alone.
    Only a rate outside that range gives a verdict; the evidence says which reading the rate fits. None where the
    rate is above one stream's roofline (ticket.batched_rate judges totals) or batch N is not predicted."""
    stated, said_load = load
    model, gpu = facts.subject.model, facts.subject.gpu
    n, pn, seats = seated(facts, p.tp, stated, pp, m.dtype)  # (at most the sequences the KV cache holds)
    if m.value > 1.1 * p.decode_tok_s or pn is None or not (pn.valid and pn.fits and pn.decode_tok_s_expected):
        return None
    one = pn.decode_tok_s_expected
    stream_band = (one / pn.band_high, one / pn.band_low)
    per_stream = m.scope == "per_stream"
    if per_stream:  # a slot's rate: N slots decoding at most, one alone at the fastest
        low, high = stream_band[0], p.decode_tok_s_expected / p.band_low
        reading = "one stream's (its source says so), 1 to {n} decoding together"
    else:
        low, high = stream_band[0], n * one / pn.band_low
        reading = ("one stream's of {n}" if m.value <= stream_band[1] else f"all {n} streams' total"
                   if m.value >= n * stream_band[0] else "between one stream's and all {n} streams' total")
    reading = reading.format(n=n)
    band = band_text(low, high, m.value)
    at = f"{n} requests in flight ({said_load})" if seats is None else \
        f"{n} requests decoding together at most (of the {stated} in flight: {said_load}; the KV cache holds {n})"
    what = (f"decode rate at {layout_words(p)} ({how}), {at}; the figure's scope "
            + ("is one stream" if per_stream else "is not stated: one stream's or all of them together"))
    evidence = band_evidence(m, what, "tok/s", one, band, p.decode_tok_s, pn, gpu, facts.subject.model_source, model)
    evidence[1] = ev("prediction:expected", f"expected range ({pn.engine} profile, {gpu.key}): one stream at batch {n} "
                     + ("(slow edge) to one stream alone, batch 1" if per_stream else f"(slow edge) to {n} streams' "
                        f"total (fast edge); one stream's band at batch {n}: {band_text(*stream_band)}"),
                     expected=band, unit="tok/s")
    evidence.append(ev(m, "reading the figure fits", reading))
    if seats is not None:
        evidence.append(seats)
    if m.value > high:
        return faster_than_band("ticket.measured_vs_expected", f"{m.value:g} tok/s with {n} requests in flight",
                                f"{band} tok/s", f"roofline {p.decode_tok_s:.0f} tok/s for one stream", evidence)
    if m.value >= lowest_normal(low, m):
        return make("ticket.measured_vs_expected", "expected_physics", "info", 0.55 - assumed_cut(pn),
                    f"{m.value:g} tok/s is what this model, GPU and layout deliver with {n} requests in flight "
                    f"(expected {band} tok/s, read as {reading})",
                    f"With {n} requests decoding together each stream is a little slower than one alone and the "
                    "total is close to N times one stream's; the figure fits the range those two readings span, "
                    "so no reading makes it slow.",
                    evidence, fix="Nothing is broken; state whether the figure is per request or the total, and the "
                    "concurrency, to judge it within one band.")
    return beyond_band.finding("ticket.measured_vs_expected",
                               f"{m.value:g} tok/s, read as one stream's pace with {n} requests in flight (the slowest "
                               "reading),", m.value, low, "tok/s", False, f"{band} tok/s", evidence,
                               _shortfall_asks(facts, pn), reported=is_reported(m))


def _shortfall_asks(facts: Facts, p) -> str:
    """What would decide a rate below its band: which weights ran where the band assumed them, and what the ticket
    lacks (ticket_figures.beyond_band_fix)."""
    return (QUANTISATION_ASK + " ") * bool(assumed_weights(p)) + beyond_band_attach(facts)


def unfit_share(p) -> tuple[str, float]:
    """(what does not fit, usable GB a GPU) for a prediction that does not fit: the roofline's own shortfall, weights +
    the engine's reserve + KV against usable memory, so weights smaller than the GPU are never called the overflow."""
    usable = p.kv_budget_gb + p.weights_gb_per_gpu + p.reserved_gb  # its KV budget is usable - weights - reserve
    if p.weights_gb_per_gpu > usable:
        return "weights", usable
    if p.weights_gb_per_gpu + p.reserved_gb > usable:
        return "weights plus the engine's reserve", usable
    return "weights, the engine's reserve and the KV cache", usable


def _spanned_weights(facts: Facts, m: Measurement, tp: int, pp: int, said: str, how: str, roofline: float, p):
    """One stream faster than the checkpoint's 16-bit roofline allows, with no weights stated: judged against the
    band over the widths the run may have streamed (rules.workload.weights_span), saying which were spanned. Inside
    it is physics at one of them, and above its fast edge yet within the fastest width's roofline it beats the band;
    outside that, None (which width ran, or a load nobody stated, decides first: ticket.figure_unjudged asks)."""
    span = weights_span_holding(facts, m, tp, pp)
    if span is None:
        return None
    low, high, priced = span
    model, gpu = facts.subject.model, facts.subject.gpu
    band = band_text(low, high, m.value)
    if m.value > roofline * 1.1:
        why, bound = (f"{said} is above what the checkpoint's {p.dtype} weights allow one stream ({roofline:.0f} "
                      "tok/s)"), ev("prediction:roofline", f"roofline of the checkpoint's {p.dtype} weights (the "
                                    "figure is above it, so the run streamed fewer bytes a weight)", m.value,
                                    round(roofline, 1), "tok/s")
    else:
        what, usable = unfit_share(p)
        why = (f"the checkpoint's {p.dtype} {what} do not fit {gpu.name} at {layout_words(p)}: "
               f"{shortfall_words(p, usable)}")
        bound = shortfall_evidence(p, usable, "prediction:roofline", f"the checkpoint's {p.dtype} weights at "
                                   f"{layout_words(p)} (they do not fit, so the run held fewer bytes a weight)")
    widths = ", ".join(f"{d} {band_text(q.decode_tok_s_expected / q.band_high, q.decode_tok_s_expected / q.band_low)}"
                       for d, q in priced)
    bit_counts = sorted(int(d.removeprefix("int")) for d, _ in priced)
    bits = f"{bit_counts[0]}- to {bit_counts[-1]}-bit" if len(bit_counts) > 1 else f"{bit_counts[0]}-bit"
    names = " and ".join(d for d, _ in priced)
    at, _ = batch_words(facts, m)
    evidence = [ev(m, f"decode rate at {layout_words(p)} ({how}), {at}", m.value, unit="tok/s"),
                bound,
                ev("prediction:expected", f"expected band over the weights spanned (none stated): {widths} tok/s "
                   f"({priced[0][1].engine} profile, {gpu.key})", expected=band, unit="tok/s"),
                ev(facts.subject.model_source, "model", model.key)]
    if m.value > high:  # faster than healthy runs at the fastest width, yet within its roofline: nothing is slow
        fastest = max(priced, key=lambda x: x[1].decode_tok_s)
        evidence.insert(2, ev("prediction:roofline", f"roofline of one stream at {fastest[0]} weights, the fastest "
                              "width spanned", m.value, round(fastest[1].decode_tok_s, 1), "tok/s"))
        return faster_than_band("ticket.measured_vs_expected", f"{said} (weights not stated, {bits} spanned)",
                                f"{band} tok/s over the widths spanned",
                                f"roofline {fastest[1].decode_tok_s:.0f} tok/s at {fastest[0]}", evidence)
    return make("ticket.measured_vs_expected", "expected_physics", "info", 0.5,
                f"{said} is what {model.name} gives one stream on {gpu.name} at {bits} weights "
                f"(expected {band} over the widths spanned)",
                f"The ticket does not say which weights ran, and {why}, so the run streamed quantised weights. Over "
                f"the widths quantised checkpoints come in that fit these GPUs ({names}), a healthy run gives one "
                f"stream {band} tok/s, and the figure sits inside that: decode streams every weight from memory per "
                "token, and that bound sets the speed.",
                evidence, fix=f"Nothing is broken at {'either width' if len(priced) > 1 else names}; which weights ran "
                "(the model file name or launch line) narrows the band, and the fewer bits a weight, the faster.")


def tokens_per_step(facts: Facts, m: Measurement) -> Measurement | None:
    """Speculative decoding's mean tokens per verify step in the run `m` was read from (its median where the log
    prints it periodically), when above 1: each step then streams the weights once and yields that many tokens.
    A run is the file, or the pasted block holding `m`: an issue pasting a baseline log without speculative decoding
    beside the drafted one (the usual A/B) has the acceptance length in the other block only."""
    run = _run_of(facts, m.source)
    said = sorted((a for a in measurements(facts, "accept_len") if _run_of(facts, a.source) == run),
                  key=lambda a: a.value)
    mid = said[len(said) // 2] if said else None
    return mid if mid is not None and mid.value > 1 else None


def _run_of(facts: Facts, source: str) -> tuple:
    """The file of a source, and the pasted block (its first line) the source's line falls in, if any."""
    file, _, line = source.rpartition(":")
    if not line.isdigit():
        return source, None
    for n in facts.of(Note):
        path, _, start = n.source.rpartition(":")
        if n.kind == claims.OUTPUT_KIND and path == file and start.isdigit() and n.text:
            if int(start) <= int(line) < int(start) + n.text.count("\n") + 1:
                return file, int(start)
    return file, None


def tp_series(facts: Facts, by_tp: dict) -> list | None:
    """Decode rates at batch 1 by TP size ({tp: Measurement}), each judged with the one judgement `diagnose scaling`
    gives a series (rules.scaling.series_status): [(measurement, prediction, measured / expected time, status)], or
    None when fewer than two layouts, or one cannot run or beats its bound (judged per figure)."""
    from rules.scaling import series_status

    if len(by_tp) < 2:
        return None
    rows = []
    for tp, m in sorted(by_tp.items()):
        p = predict_layout(facts, tp, 1)
        if p is None or not (p.valid and p.fits and p.decode_tok_s_expected) or m.value > p.decode_tok_s:
            return None  # a layout that cannot run, or a figure beyond the bound: judged per figure below
        rows.append((m, p, p.decode_tok_s_expected / m.value))
    base_ratio = rows[0][2]
    return [(m, p, r, series_status(r, p.band_low, p.band_high, base_ratio, i == 0))
            for i, (m, p, r) in enumerate(rows)]


def _series_ev(judged) -> list:
    """Each layout of a judged TP series (tp_series): its rate against the expected one, and the judgement it got."""
    return [ev(x, f"decode rate at TP{x.tp}, batch 1: x{r:.2f} the expected time ({status})", x.value,
               round(q.decode_tok_s_expected, 1), "tok/s") for x, q, r, status in judged]


def tp_series_beyond_band(facts: Facts, model, model_src, gpu, by_tp: dict | None = None,
                          rule_id: str = "ticket.measured_vs_expected"):
    """Decode rates stated at two or more TP sizes are a TP series: each layout judged with the one judgement
    `diagnose scaling` gives a series (rules.scaling.series_status: measured / expected time against the band and
    against the smallest TP measured), so the same figures get the same verdict in both commands. The rates are
    taken as the pure decode rates the band is for (no prose slack: the reporter states them per layout, as a
    benchmark table would). A layout beyond the band: the finding scaling.broken_layout gives; else None."""
    from rules.scaling import beyond_title

    if by_tp is None:
        by_tp = {}
        for m in measurements(facts, "decode_tok_s"):
            if m.tp and (m.batch or 1) == 1:
                by_tp.setdefault(m.tp, m)
    judged = tp_series(facts, by_tp)
    beyond = [x for x in judged or () if x[3] == "beyond_band"]
    if not beyond:
        return None
    base_ratio = judged[0][2]
    m, p, ratio, _ = max(beyond, key=lambda x: x[2])
    evidence = _series_ev(judged)
    evidence += band_evidence(m, f"decode rate at TP{m.tp}, batch 1", "tok/s", p.decode_tok_s_expected,
                              band_text(p.decode_tok_s_expected / p.band_high, p.decode_tok_s_expected / p.band_low,
                                        m.value), p.decode_tok_s, p, gpu, model_src, model)[1:]
    return make(rule_id, "other", "warning", 0.6,  # scaling.broken_layout's confidence
                beyond_title(f"TP{m.tp}", ratio, p.band_high),
                f"Over the TP series the reporter states, TP{m.tp} is x{ratio:.2f} slower than a healthy system with "
                f"the {p.engine} profile{'' if engine_of(facts) else ' (assumed: no engine named)'} gives for this "
                f"model and GPU at batch 1, while TP{judged[0][0].tp} is x{base_ratio:.2f}: something grows at this "
                "layout that the physics does not (a slow path, a throttled or straggling GPU, or host work per "
                "rank). The same figures in `diagnose scaling` get the same judgement.",
                evidence, fix=beyond_band_fix(facts))


def _table_series(facts: Facts, n: Note, rows: list[dict]):
    """A results table's tok/s column by GPU count at batch 1, as a TP series judged as `diagnose scaling` judges
    one (tp_series): the broken layout's finding, or the 'inside the band' one, or None when it is not one."""
    model, gpu = facts.subject.model, facts.subject.gpu
    if model is None or gpu is None or unmodelled_layout(facts) or (wfield(facts, "batch")[0] or 0) != 1:
        return None
    if not all(r["kind"] == "rate" and re.search(r"tok|t/s", r["column"], re.I) for r in rows):
        return None
    if any(r.get("pp", 1) > 1 for r in rows) or len({r.get("ep") for r in rows}) > 1:
        return None  # pipeline stages or expert splits side by side: not a TP series
    file = n.source.rsplit(":", 1)[0]
    by_tp = {r["gpus"]: Measurement(f"{file}:{r['line']}", "decode_tok_s", r["value"], unit="tok/s", stat="reported",
                                    tp=r["gpus"], batch=1) for r in rows}
    judged = tp_series(facts, by_tp)
    if judged is None:
        return None
    broken = tp_series_beyond_band(facts, model, facts.subject.model_source, gpu, by_tp, "ticket.comparison_set")
    if broken is not None:
        return broken
    if not {x[3] for x in judged} <= {"tracks", "faster_than_band"}:
        return None
    worst = max(judged, key=lambda x: x[2])
    faster = " or faster" if any(x[3] == "faster_than_band" for x in judged) else ""
    return make("ticket.comparison_set", "expected_physics", "info", 0.7,  # scaling.tracks_prediction's confidence
                f"All {len(judged)} measured layouts are inside the expected band{faster} (worst TP{worst[0].tp}: "
                f"x{worst[2]:.2f} the expected time, band x{worst[1].band_low:.2f}-x{worst[1].band_high:.2f})",
                f"Each layout's rate sits inside the band of what a healthy {worst[1].engine} system delivers for this "
                "model and GPU at batch 1: the scaling in the table is the scaling this hardware and engine give. "
                "The same figures in `diagnose scaling` get the same judgement.",
                _series_ev(judged),
                fix="Nothing to fix; choose the layout by latency and throughput goals (`diagnose predict`).")


@rule("ticket.comparison_set", "latency_bound_small_batch", "expected_physics", "other")
def comparison_set(facts: Facts, predictions=None):
    """A results table that sets GPU counts side by side, read as a set: a tok/s column at batch 1 for a model and
    GPU the predictor knows is a TP series, judged as `diagnose scaling` judges it (same verdict and severity);
    otherwise the step where more GPUs stop paying (per-stream speed up by 10 % or less) is named, against ideal
    scaling of the smaller count."""
    for n in facts.of(Note):
        if n.kind != "results_table":
            continue
        flat = []
        series: dict[str, list[dict]] = {}
        for row in n.data.get("rows", []):
            series.setdefault(row["label"], []).append(row)
        if len(series) == 1:
            judged = _table_series(facts, n, next(iter(series.values())))
            if judged is not None:
                yield judged
                return
        for label, rows in series.items():
            rows = sorted(rows, key=lambda r: r["gpus"])
            for a, b in zip(rows, rows[1:]):
                speed_a, speed_b = (a["value"], b["value"]) if a["kind"] == "rate" else (1 / a["value"], 1 / b["value"])
                if b["gpus"] > a["gpus"] and speed_a > 0 and speed_b / speed_a <= 1.1:
                    flat.append((speed_b / speed_a, label, a, b))
        if not flat:
            continue
        gain, label, a, b = min(flat, key=lambda x: x[0])
        file = n.source.rsplit(":", 1)[0]
        unit = "ms" if a["kind"] == "ms" else "tok/s"
        ideal = a["value"] * a["gpus"] / b["gpus"] if a["kind"] == "ms" else a["value"] * b["gpus"] / a["gpus"]
        what = f"{label + ' ' if label else ''}{a['column']}".strip()
        evidence = [ev(f"{file}:{a['line']}", f"{what} on {a['gpus']} GPU(s)", a["value"], unit=unit),
                    ev(f"{file}:{b['line']}", f"{what} on {b['gpus']} GPUs (ideal: {a['gpus']} GPU(s) scaled)",
                       b["value"], round(ideal, 2), unit)]
        few = _first(facts, "few_requests")
        who = f"{label}: f" if label else "F"
        if few:
            yield make("ticket.comparison_set", "latency_bound_small_batch", "warning", 0.65,
                       f"{who}rom {a['gpus']} to {b['gpus']} GPUs one request gets no faster (x{gain:.2f})",
                       "With one request at a time each decode step moves little data per GPU, so fixed costs set its "
                       "time: kernel launches and two all-reduces per layer whose latency grows with the GPU count. "
                       "Past the step named here, splitting the weights further saves less than the extra "
                       "synchronisation costs.",
                       evidence + [claim_ev(few, "requests in flight")],
                       fix=f"Serve single streams on {a['gpus']} GPU(s) and use the others for replicas; raise the "
                       "concurrency to make more GPUs pay off.", refs=["vllm_parallel"])
        else:
            yield make("ticket.comparison_set", "expected_physics", "info", 0.55,
                       f"{who}rom {a['gpus']} to {b['gpus']} GPUs the figure stops improving (x{gain:.2f})",
                       "Each added GPU shrinks every GPU's share of the work and adds all-reduce time; past the step "
                       "named here the second outweighs the first. Nothing in the table points at a fault.",
                       evidence, fix="Compare with `diagnose predict` for this model and GPU counts; for throughput, "
                       "replicas on fewer GPUs each usually beat one wide group.")
        return


# --------------------------------------------------------------------------- the symptom's prior


# The gain beyond which two layouts of one system measured side by side show the split paying: more than a layer
# split's x1 (rules.ticket_numbers.LAYER_SPLIT_CEILING), so the GPUs work on each step together.
SPLIT_PAYS = 1.15


def measured_split_gain(facts: Facts):
    """(gain, smaller row, larger row, file) of a results table that measures one system at one GPU count and at a
    larger one under the same row label (the same load), one model copy each (data-parallel replicas gain by copies,
    not by the split), when the larger layout is faster by SPLIT_PAYS or more; the
    largest such gain, else None. A measured gain of the tensor split is what a prior about the layout (a board
    without PCIe P2P) cannot outrank: the reporter ran both."""
    best = None
    for n in facts.of(Note):
        if n.kind != "results_table":
            continue
        rows = [r for r in n.data.get("rows", []) if r.get("kind") in ("rate", "ms") and r.get("gpus")
                and (r.get("pp") or 1) == 1 and (r.get("replicas") or 1) == 1 and r["value"] > 0]
        for a in rows:
            for b in rows:
                if a["label"] != b["label"] or a["kind"] != b["kind"] or b["gpus"] <= a["gpus"]:
                    continue
                gain = b["value"] / a["value"] if a["kind"] == "rate" else a["value"] / b["value"]
                if gain >= SPLIT_PAYS and (best is None or gain > best[0]):
                    best = (gain, a, b, n.source.rsplit(":", 1)[0])
    return best


# (left27) How far under one stream's slow edge a whole benchmark's rate must sit before the host-staged all-reduce is
# ruled out: the predictor prices the SHM all-reduce per layer (rules.collectives), and a total over every request in
# flight is never below one stream's rate; half that edge leaves the staged cost room to be underpriced twice over.
NO_P2P_FLOOR = 0.5


def below_one_host_staged_stream(facts: Facts) -> Measurement | None:
    """A serving benchmark's total output rate (every request together, as the tool defines it) below half what one
    stream decodes on this layout with every all-reduce staged through host memory (the predictor models it for a
    board without P2P): no-P2P cannot make a whole server slower than a single stream, so it is not the cause
    (InternLM/lmdeploy#2214: 2.3 tok/s over 10 prompts at --concurrency 128 on four RTX 2080 Ti, fixed by an LMDeploy
    release)."""
    for m in measurements(facts, "output_tok_s"):
        if m.scope != "aggregate" or m.stat == "reported":
            continue  # a rate the reporter wrote may be one stream's; the tool's own total is every stream's
        tp, _ = assumed_tp(facts, m)
        one = predict_layout(facts, tp, 1)
        if one is not None and one.valid and one.decode_tok_s_expected and \
                m.value < NO_P2P_FLOOR * one.decode_tok_s_expected / one.band_high:
            return m
    return None


def _no_p2p_split_pays(gpu, paid, evidence):
    """The answer on boards without PCIe P2P when the reporter's own table shows the split paying (measured_split_gain):
    host-staged all-reduces cost a step little at one stream and more as the batch grows, so a gain like this is what
    such a pair gives, not a fault (syv-ai/qwen38-27b-rtx3090#135: x1.31 on two RTX 3090, 'the expected shape')."""
    gain, a, b, file = paid
    unit = "ms" if a["kind"] == "ms" else "tok/s"
    what = f"{a['label'] + ': ' if a['label'] else ''}"
    return make("ticket.symptom_prior", "expected_physics", "info", 0.45,
                f"{gpu.name} without P2P: the reporter's {b['gpus']} GPUs are x{gain:.2f} faster than "
                f"{a['gpus']} on the same load, the split pays as host-staged TP does",
                "Without PCIe peer-to-peer NCCL stages every all-reduce through host memory. At one stream each "
                "all-reduce is a few kilobytes, so the split still shortens the step (each GPU reads half the "
                "weights); as the batch grows the staged traffic grows with it and the gain shrinks or turns into a "
                "loss. The reporter's own figures show the split paying, which a broken transport would not give "
                "(the gain is their measurement, not a band of this model: none was priced here).",
                evidence + [ev(f"{file}:{a['line']}", f"{what}{a['column']}", a["value"], unit=unit),
                            ev(f"{file}:{b['line']}", f"{what}{b['column']} (x{gain:.2f}, a layer split's x1 below "
                               f"x{SPLIT_PAYS})", b["value"], unit=unit)],
                fix="Nothing is broken: for one stream keep the split; for throughput at many concurrent requests "
                "run one replica per GPU where the model fits, or add an NVLink bridge where the board has one "
                "(`diagnose predict --tp 1,2` prices both).", refs=["nccl_trouble"])


# (title, summary, what the quote shows, fix, what to attach next) of the P2P lead when the reporter's words lean
# against it: the ask is what would show the cause the words point at, so an undecided answer asks for it first.
P2P_TRIED = ("A hang between PCIe-connected GPUs that switching P2P off did not cure: P2P is unlikely",
             "A hang that NCCL's peer-to-peer path causes goes away once NCCL is told not to use it. The reporter "
             "switched it off and the job still hangs, so the cause is elsewhere (the launch, a rank that never joins, "
             "the network or shared-memory transport).",
             "P2P switched off, and it still hangs",
             "Attach the NCCL_DEBUG=INFO log of the hanging run and a `py-spy dump` of each stuck rank: they show "
             "which rank and which transport waits.",
             "the NCCL_DEBUG=INFO log of the hanging run and a `py-spy dump` of each stuck rank")
# (p2ptest34) a check that moved data peer-to-peer and read it back (simpleP2P 'Test passed', P2P=Enabled copies above
# the host-staged ones, "the p2p test passes"): the path delivers outside the job. Not the driver's grant alone
# (topo -p2p OK, CAN Access Peer): ACS or the IOMMU leave it yes and drop the writes (NCCL troubleshooting guide).
P2P_PASSED = ("A hang between PCIe-connected GPUs whose P2P check passes: a blocked P2P path is unlikely",
              "When ACS, the IOMMU or a hypervisor keeps peer writes from arriving, a peer-to-peer copy between the "
              "GPUs fails or stalls too. Here a check that copies between them peer-to-peer and reads the data back "
              "passed, so the path delivers; the hang more likely comes from the launch, a rank that stopped, or the "
              "software (a check that copies once can still miss a path that drops writes under NCCL's load, so "
              "all_reduce_perf on the same GPUs is the test that settles it).",
              "the P2P check passed",
              "Run all_reduce_perf on the same GPUs (with and without NCCL_P2P_DISABLE=1) and attach its output, the "
              "NCCL_DEBUG=INFO log of the hanging run and a `py-spy dump` of each stuck rank.",
              "all_reduce_perf on the same GPUs, the NCCL_DEBUG=INFO log of the hanging run and a `py-spy dump` of "
              "each stuck rank")
# (issue 11) collectives completed before the hang: a blocked peer-to-peer path stops the first one
P2P_LATE = ("A hang after the job had been running: a blocked P2P path is unlikely",
            "When ACS, the IOMMU or a hypervisor keeps peer writes from arriving, the first collective never "
            "completes: the job hangs at NCCL init or its first all-reduce, every time. This job ran collectives for "
            "a while before it hung, so the path worked; a hang that comes later points at a rank that stopped (a GPU "
            "error, an out-of-memory, a crashed worker) or at the software.",
            "when the hang came",
            "Attach `dmesg | grep -i xid` and `nvidia-smi -q -d ECC,ROW_REMAPPER` from the time of the hang, and a "
            "`py-spy dump` of each stuck rank: they show which GPU or rank stopped.",
            "`dmesg | grep -i xid` and `nvidia-smi -q -d ECC,ROW_REMAPPER` from the time of the hang, and a `py-spy "
            "dump` of each stuck rank")


# (hangpcie33) a rank raised an error the catalog names with another cause (an out-of-memory, a GPU fault, an engine
# error): the others wait for it in the next collective until the watchdog fires (PyTorch's NCCL process group:
# https://pytorch.org/docs/stable/distributed.html, TORCH_NCCL_ASYNC_ERROR_HANDLING), so the error is the cause
P2P_RANK_ERROR = ("A hang beside an error a rank raised: the rank that stopped, not the P2P path",
                  "When one rank stops on an error, the other ranks wait for it inside the next collective until a "
                  "timeout, which looks like a hang between the GPUs. The ticket quotes such an error, one the error "
                  "catalog gives another cause than blocked peer-to-peer, so that error is what to fix first.",
                  "the error a rank raised",
                  "Fix the error first (its own finding says how); if the job still hangs without it, attach the "
                  "NCCL_DEBUG=INFO output of every rank and a `py-spy dump` of each stuck rank.",
                  "the full output of every rank from the start of the run (the first error in time is the cause) and "
                  "a `py-spy dump` of each stuck rank")


# (p2pprec31) the failure came before any GPU talked to another (engine_errors.toml before_traffic: a rank waiting for
# NCCL's unique id from rank 0, a bootstrap or rendezvous refusal): the path between the GPUs never carried anything
P2P_BEFORE_TRAFFIC = ("A hang before any GPU talked to another: the P2P path is not what stopped it",
                      "A blocked peer-to-peer path stops the first transfer between GPUs. The message quoted comes "
                      "earlier, while the ranks were still setting up (exchanging NCCL's unique id or connecting to "
                      "each other over the network), so no GPU-to-GPU transfer had started; what one rank was doing "
                      "instead (still loading, crashed, stuck) or the set-up network is the suspect.",
                      "the set-up message",
                      "Attach rank 0's own output from the same run (its first error, or a `py-spy dump` of each "
                      "rank while it waits) and the NCCL_DEBUG=INFO output up to where it stops.",
                      "rank 0's own output from the same run and a `py-spy dump` of each waiting rank")


# (issue 11) the hang comes only when another process shares the GPU: a path that never delivers would not need it
P2P_SHARED = ("A hang that comes when another process shares the GPU: a blocked P2P path is unlikely",
              "When ACS, the IOMMU or a hypervisor keeps peer writes from arriving, the first collective hangs "
              "whoever else uses the GPU. Here the hang comes with another process on the same GPU. Collective kernels "
              "(NCCL's, or an engine's own custom all-reduce) spin-wait for their peers and need every rank's kernel "
              "running at once; kernels of another process on the same GPU can keep one rank's from being scheduled, "
              "and the other ranks then wait forever.",
              "the hang comes with another process on the GPU",
              "Run the job alone on its GPUs (or move the other process to GPUs outside the group): if the hang goes, "
              "keep collectives on dedicated GPUs, or switch off the engine's custom all-reduce (vLLM "
              "--disable-custom-all-reduce, TensorRT-LLM's use_custom_all_reduce) so NCCL carries the reduction.",
              "the same run with the job alone on its GPUs (`nvidia-smi` showing every process on them)")


# (issue 11) the hang goes away when a software component is left out of the same multi-GPU job
P2P_COMPONENT = ("A hang that goes away without a software component: a blocked P2P path is unlikely",
                 "When ACS, the IOMMU or a hypervisor keeps peer writes from arriving, NCCL's first collective hangs "
                 "whatever plugin, cache or connector the engine loads. Here the same GPUs and parallel layout run "
                 "without the component the reporter names, and hang with it, so the component (its start-up, its "
                 "threads or its own inter-process traffic) is the suspect, not the path between the GPUs.",
                 "the hang only with the component",
                 "Report it to the component's project with the logs of the hanging start, and run without it until "
                 "fixed; attach a `py-spy dump` of each stuck process to show where it waits.",
                 "a `py-spy dump` of each stuck process")


# (review39s) the hang is in the reporter's own process's synchronisation (a threading lock, an asyncio event loop, a
# queue or pipe between their own processes): such a wait never returns whatever path the GPUs share
P2P_OWN_CODE = ("A hang in the program's own locks, threads or event loop: a blocked P2P path is unlikely",
                "When ACS, the IOMMU or a hypervisor keeps peer writes from arriving, NCCL's first collective hangs. "
                "Here the reporter places the wait in their own code's synchronisation: a lock held across a call "
                "that needs it, a blocking call inside an asyncio coroutine (it stops the event loop), or a queue or "
                "pipe nobody reads. Those stop the process on any GPUs, one included, so the code is the suspect, "
                "not the path between the GPUs.",
                "the hang in the program's own synchronisation",
                "Take a `py-spy dump --pid <pid>` of the stuck process: a thread waiting on the lock, queue or event "
                "loop names the cycle. Do not hold a lock across the engine's call; in asyncio use the engine's async "
                "API (or run the blocking call in an executor) instead of calling it inside the coroutine.",
                "a `py-spy dump` of each stuck process")


# (ut25) the hang comes when one option of the job is turned on: a path that never delivers would not need it
# (NVIDIA/TensorRT-LLM#716: run.py hung with --streaming under mpirun -n 4, fixed in 0.7.1)
# How to see collectives' time without the hang ncu's serialization causes (NVIDIA Nsight Compute Profiling Guide,
# "Serialization" and "Replay"; Nsight Systems times kernels as they run)
PROFILER_FIX = ("Time the collectives with Nsight Systems (`nsys profile --trace=cuda,nvtx`), which records kernels as "
                "they run; keep ncu for the compute kernels, choosing them with `-k regex:<kernel name>` so the NCCL "
                "kernels are not profiled, or profile one GPU's run. Recent ncu versions can replay the launches of a "
                "range together (`--replay-mode range`), as its own warning suggests.")


# (p48d) What the others wait on when rank 0 works alone (PyTorch's init_process_group `timeout`: "the duration after
# which collectives will be aborted asynchronously"; 10 minutes for NCCL since PyTorch 2.2, 30 before; Hugging Face's
# `ddp_timeout`, Accelerate's InitProcessGroupKwargs and DeepSpeed's DEEPSPEED_TIMEOUT pass it on)
RANK_ZERO_FIX = ("Put a barrier right after rank 0's work (`torch.distributed.barrier()` on every rank, as "
                 "mosaicml/llm-foundry#733 and instructlab/training#566 did for the checkpoint save), or raise the "
                 "process group's timeout above that work's time: `init_process_group(timeout=timedelta(hours=2))`, "
                 "`--ddp_timeout` in transformers, `InitProcessGroupKwargs(timeout=...)` in Accelerate, "
                 "DEEPSPEED_TIMEOUT in DeepSpeed. A group made with `new_group` takes its own `timeout`.")
P2P_RANK_ZERO = ("A timeout while rank 0 works alone: the others' wait, not the path between the GPUs",
                 "The other ranks reached the next collective or barrier while rank 0 was still busy with work of "
                 "its own (a checkpoint saved, read back or downloaded, an evaluation). They wait there until the "
                 "process group's timeout aborts them; a blocked P2P path is not needed to explain it.",
                 "rank 0's own work", RANK_ZERO_FIX, "")


# (ut27f) the hang comes only under Nsight Compute, which runs the kernels one at a time
P2P_PROFILER = ("A hang under Nsight Compute: the profiler, not the path between the GPUs",
                "Nsight Compute serializes kernel launches, across every process it profiles, to measure one kernel "
                "at a time. An NCCL kernel waits inside the GPU for its peers' kernels, which ncu holds back, so the "
                "collective never completes. The same job runs without the profiler; a blocked P2P path would hang it "
                "either way.",
                "the hang under the profiler",
                PROFILER_FIX, "")  # (nothing to attach: reporters say the run completes without ncu)


# (startup34) the start stopped at a step that compiles, builds or loads (claims "startup_step_hang"): no collective yet
P2P_STARTUP = ("The start stopped at a step that compiles, builds or loads: not the path between the GPUs",
               "Before their first collective the engines compile the model (torch.compile), build JIT ops and kernels "
               "(PyTorch and DeepSpeed extensions, FlashInfer, Triton), build TensorRT engines and read the weights. "
               "These steps exchange nothing between GPUs and take minutes on a first start with cold caches, longer "
               "from a slow or network disk; a peer path that never delivers stops the first collective, after them.",
               "the start-up step it stopped at",
               "Let one start finish and keep the caches between starts (vLLM's torch.compile cache under "
               "~/.cache/vllm, ~/.cache/torch_extensions, ~/.cache/flashinfer, a built TensorRT engine); "
               "`py-spy dump --pid <pid>` shows whether the step still works (a compiler, ninja, file reads) or waits "
               "on a lock file that a killed build left (delete it).",
               "how long it waited, and a `py-spy dump` of the stopped process or the last log lines with their times")


# (mend44) the hang comes with one build of the software and not another, on the same GPUs: the build is the suspect
P2P_BUILD = ("A hang that one build has and another does not: a blocked P2P path is unlikely",
             "When ACS, the IOMMU or a hypervisor keeps peer writes from arriving, NCCL's first collective hangs "
             "whatever image or release runs it: the peer path belongs to the hardware and the driver. Here the "
             "reporter says the same job runs on another build (an image, an engine, PyTorch or NCCL release), so "
             "what changed between the builds is the suspect, not the path between the GPUs.",
             "the hang with one build, not the other",
             "Stay on the build that works; compare the two builds' NCCL, PyTorch, CUDA and engine versions (the "
             "engine's collect_env output of each, and `NCCL_DEBUG=INFO` from both) and search that component's "
             "release notes and issues for the hang.",
             "the NCCL, PyTorch, CUDA and engine versions of both builds and the NCCL_DEBUG=INFO log of each")
# (mend44) a working side on other GPUs or another machine: the path moved with the build
_OTHER_HOST = re.compile(r"\b(?:another|other|different|second|new|old)\s+(?:\w+\s+)?(?:machines?|servers?|"
                         r"nodes?|hosts?|boxes|box|clusters?|GPUs?|cards?|systems?|instances?)\b", re.I)
_BUILD_ELSEWHERE = re.compile(_OTHER_HOST.pattern + r"|\b(?:[AHLBV]\d{2,3}|RTX\s*\d{4}|\d{4}\s*Ti)\b", re.I)


P2P_OPTION = ("A hang that comes with one option of the job: a blocked P2P path is unlikely",
              "When ACS, the IOMMU or a hypervisor keeps peer writes from arriving, NCCL's first collective hangs "
              "whatever options the job runs with. Here the reporter ties the hang to one option, so the code path "
              "that option turns on (streaming, a cache, a scheduler mode) is the suspect, not the path between the "
              "GPUs; such hangs are usually engine bugs that a later release fixes.",
              "the hang with the option",
              "Run without the option to confirm, then upgrade the engine and check its release notes for that path; "
              "attach a `py-spy dump` of each stuck rank and the engine version if it still hangs.",
              "a `py-spy dump` of each stuck rank and the engine version")


@rule("ticket.ray_gpus_short", "other")
def ray_gpus_short(facts: Facts, predictions=None):
    """(ut28c) A Ray placement group that waits while `ray status` counts fewer GPUs than it asks for: the cluster's
    count, not the network or the engine, keeps it pending (gpustack/gpustack#5509: one node's GPU counted as a TPU;
    a node joined without its GPUs does the same)."""
    read = claims.ray_gpus(facts)
    if not read or read[0].data["gpus"] >= read[1].data["gpus"]:
        return
    total, demand = read
    yield make("ticket.ray_gpus_short", "other", "warning", 0.6,
               f"Ray counts {total.data['gpus']:g} GPU(s) in the cluster; the pending placement group asks for "
               f"{demand.data['gpus']:g}",
               "A Ray placement group is placed whole or not at all: while the GPUs `ray status` counts are fewer "
               "than its bundles ask for, it stays pending and the engine never starts. A node that joined without "
               "its GPUs (started with --num-gpus=0, a container that sees none, a GPU Ray counts as another "
               "resource) leaves the count short whatever the hardware.",
               [ev(total.cited, "GPUs `ray status` counts in the cluster (Resources)", total.data["gpus"],
                   f">= {demand.data['gpus']:g}"),
                ev(demand.cited, "GPUs the pending placement group asks for (Pending Demands)", demand.data["gpus"])],
               fix="Run `ray list nodes` (each node's resources) and `nvidia-smi` inside each Ray container; start "
               "every node's Ray with its GPUs (`ray start ... --num-gpus=<n>` where Ray does not detect them), or "
               "lower tensor x pipeline parallel to the GPUs Ray counts.",
               refs=["https://docs.ray.io/en/latest/cluster/cli.html#ray-status"])


@rule("ticket.trtllm_instance_group", "other")
def trtllm_instance_group(facts: Facts, predictions=None):
    """(s29, ut29c) Triton's instance_group set to place a TensorRT-LLM model on GPUs (claims.trtllm_instance_group):
    the tensorrtllm backend does not take its GPUs from it, so the model lands on the GPUs the server sees, whatever
    the group lists (tensorrtllm_backend#481: 'the trt-llm backend not respecting the instance_group parameters', the
    maintainer; #166: several instances per GPU are not run that way, KIND_GPU does not control it)."""
    said = claims.trtllm_instance_group(facts)
    if not said:
        return
    listed = f" (it lists GPU {', '.join(map(str, said.data['gpus']))})" if said.data["gpus"] else ""
    yield make("ticket.trtllm_instance_group", "other", "warning", 0.6,
               "Triton's instance_group does not choose the GPUs of a TensorRT-LLM model" + listed,
               "Triton places most backends' model instances on the GPUs instance_group lists, but the tensorrtllm "
               "backend starts its engine itself: on the GPUs the server process sees (CUDA_VISIBLE_DEVICES, docker "
               "--gpus) or those its own GPU-id parameter in the model's config.pbtxt names, one MPI rank per GPU of "
               "the engine's tp x pp (launch_triton_server.py --world_size). A `gpus: [...]` list, KIND_GPU or a "
               "count per GPU in instance_group moves nothing, so the model lands on the first GPUs visible.",
               [claim_ev(said, "the instance_group of the TensorRT-LLM model")],
               fix="Leave the tensorrt_llm model's instance_group as the backend's templates ship it; choose the "
               "GPUs with CUDA_VISIBLE_DEVICES for the server, or the GPU ids parameter in that model's "
               "config.pbtxt (\"0\" for one GPU, \"0,1,2,3\" for a TP=4 engine, started with "
               "launch_triton_server.py --world_size 4). For one copy per GPU, run a server (or a model folder with "
               "its own GPU ids) per GPU.",
               refs=["https://github.com/triton-inference-server/tensorrtllm_backend/issues/481",
                     "https://github.com/triton-inference-server/tensorrtllm_backend/issues/166",
                     "https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/tensorrtllm_backend/"
                     "docs/llama_multi_instance.html"])


@rule("ticket.init_hang_across_nodes", "insufficient_data")
def init_hang_across_nodes(facts: Facts, predictions=None):
    """(ut26f) A job across machines that hangs where NCCL starts, before any collective: NCCL connects the ranks of
    every node over TCP on one IP interface first, so one it picks the other nodes cannot reach (a docker bridge, a
    second NIC) or a firewall keeps every rank waiting at init with the GPUs idle (PaddlePaddle/Paddle#51096, fixed by
    NCCL_SOCKET_IFNAME). A lead with its ask, not a verdict: the NCCL log's bootstrap lines name the interface."""
    # (the words that place the stop at NCCL's start are the hang, whatever the ticket's class: "Multinode cannot be
    # started ... it just stopped at \"Init nccl begin\"", sgl-project/sglang#958, reads as a failure)
    nodes, node_ev = node_count(facts)
    said = [c for c in claims.find(facts, "nccl_init_stuck") if not c.guess and not c.negated]
    if not nodes or nodes < 2 or not said or claims.find(facts, "late_hang"):
        return
    if any(t.transport == "NET" for t in facts.of(NcclTransport)):
        return  # the log got past the bootstrap to the network's channels: the path is nccl.gdr's and the transports'
    ask = ("the NCCL_DEBUG=INFO output (NCCL_DEBUG_SUBSYS=INIT,NET) of every node up to where it stops, whose "
           "'Bootstrap : Using' and 'NET/Socket : Using' lines name the interface, and `ip -br addr` of every node")
    yield make("ticket.init_hang_across_nodes", "insufficient_data", "info", 0.0,
               "A hang where NCCL starts across machines: the interface it connects on is the first suspect",
               "Before its first collective NCCL connects the ranks of every node over TCP on one IP interface. When "
               "it picks one the other nodes cannot reach (a container bridge, a second or virtual NIC) or a firewall "
               "drops the ports, every rank waits at init with the GPUs idle and nothing is printed.",
               [claim_ev(said[0], "where it stops")] + node_ev,
               fix=f"attach {ask}; where they name an interface the other nodes cannot reach, set "
               "NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME where PyTorch's gloo store is used) to the one that carries "
               "the nodes' addresses, on every node, and check that the nodes reach each other's ports",
               refs=["https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-socket-ifname",
                     "nccl_trouble"], ask=ask)


# (review50) A hang whose GPUs are not known to reach each other over PCIe: a GPU the catalog lacks (an AMD MI355X,
# sgl-project/sglang#39128), none named (Stephen0808/DnLUT#6), or a family word whose usual board is an SXM one on
# NVLink ("4*A100", huggingface/transformers-bloom-inference#32). P2P over PCIe is then one suspect among several.
# (risks37) A layer split (llama.cpp, Ollama, accelerate) on boards whose stock driver refuses PCIe peer-to-peer
# (catalog pcie_p2p = false): the engine asks CUDA for peer access, is refused, and copies each hidden state between the
# GPUs through host memory (cudaMemcpyPeer stages it when peers cannot reach each other: CUDA Runtime API, "Peer Device
# Memory Access"); no NCCL collective runs. Nothing goes peer to peer, so no ACS or IOMMU block can stall it.
P2P_NOT_USED = ("A hang in a layer split on boards without PCIe P2P: nothing goes peer to peer to be blocked",
                "This engine splits the model by layers and hands each hidden state to the next GPU with a plain copy; "
                "on boards whose driver refuses PCIe peer-to-peer that copy goes through host memory, and no NCCL "
                "collective runs. ACS or an IOMMU blocking peer writes, the usual cause of a hang between PCIe GPUs, "
                "has no peer traffic to block here; the engine, the model's memory or the driver are the suspects.",
                "a layer split on boards without PCIe P2P",
                "Run the same model on one GPU (or with fewer layers offloaded) to see whether the hang follows the "
                "split, and attach the engine's log up to the hang with its version and the driver version.",
                "the engine's log up to the hang, its version, the driver version and `nvidia-smi` during the hang")


P2P_LINK_UNKNOWN = ("A hang across GPUs whose connection is not known: P2P is one suspect among several",
                    "A peer-to-peer path that ACS or the IOMMU blocks hangs NCCL's first collective between GPUs that "
                    "reach each other over PCIe. Nothing here says these GPUs do: no topology, no board the catalog "
                    "knows to lack NVLink. A rank that stopped (an error, an out-of-memory), the launch or the "
                    "software hang a job just as well.",
                    "the hang",
                    "Attach `nvidia-smi topo -m` and the NCCL_DEBUG=INFO output of the hanging run up to where it "
                    "stops, with a `py-spy dump` of each stuck rank: they show how the GPUs connect and which rank "
                    "waits.",
                    "`nvidia-smi topo -m`, the NCCL_DEBUG=INFO output of the hanging run and a `py-spy dump` of each "
                    "stuck rank")


def _pcie_link(facts: Facts) -> list[Evidence]:
    """What shows the job's GPUs reach each other over PCIe (hang_on_pcie runs only without NVLink seen): the path
    observed (_pcie_path_seen), a board without NVLink or wired only through bridges (catalog), or the reporter's
    words that the system has none. [] when nothing does."""
    seen = _pcie_path_seen(facts)
    if seen:
        return seen
    spec, src = facts.subject.gpu, facts.subject.gpu_source
    if spec is not None and (not spec.nvlink_links or spec.nvlink_bridged):
        return [ev(src or "catalog", f"catalog {spec.key}: a PCIe board"
                   + (" (NVLink only through a bridge)" if spec.nvlink_links else " without NVLink"),
                   spec.interconnect)]
    board = no_nvswitch_board(facts) if spec is None else None  # a GeForce card no catalog row names
    if board is not None:
        return [ev(board.source, board.detail, board.interconnect)]
    said = next(((source, m.group(0)) for source, text in claims.own_texts(facts)
                 for m in [_NO_NVLINK_SYSTEM.search(text) or _PCIE_SAID.search(text)] if m), None)
    return [ev(said[0], f'the reporter: "{said[1]}"')] if said else []


def _pcie_path_seen(facts: Facts) -> list[Evidence]:
    """The path between the job's GPUs as observed on the node: a topology, P2P status, pair bandwidth or NCCL P2P/SHM
    transport line. [] when none was given (a board's catalog row is no observation of this host)."""
    path = next((t for t in facts.of(TopologyPath) if t.a.startswith("GPU") and t.b.startswith("GPU")
                 and t.a != t.b), None)
    if path is not None:
        return [ev(path, f"nvidia-smi topo -m: {path.a} to {path.b}", path.path)]
    seen = next(iter(facts.of(P2PStatus) or facts.of(PairBandwidth)
                     or [t for t in facts.of(NcclTransport) if t.transport in ("P2P", "SHM")]), None)
    return [ev(seen, "a path between the GPUs measured or logged on the node (no NVLink seen)")] if seen else []


def _path_measured(facts: Facts) -> list[Evidence]:
    """An all-reduce measured across the job's GPUs (an nccl-tests table): the path at work on this host, though not
    which one it is. [] when none was given."""
    from diagnose.evidence import CollectiveResult

    run = next(iter(facts.of(CollectiveResult)), None)
    return [ev(run, "an all-reduce measured across the GPUs on this host")] if run else []


def _software_release_change(facts: Facts) -> list[Claim]:
    """(hangpcie33) The reporter's release change of NCCL, PyTorch or the serving engine on the same box: two releases
    compared, or the problem said to come with one (the claims nccl.regression, ticket.nccl_upgrade,
    ticket.torch_releases and ticket.engine_versions read). A blocked peer path hangs every release alike (NCCL
    troubleshooting guide: ACS and the IOMMU are the platform's), so the release is the suspect. Not the GPU driver's
    change: the driver itself grants or refuses peer access (a driver that reports P2P and breaks it, the RTX 4090's
    545 series, is P2P's own fault)."""
    compared = [c for kind in ("nccl_versions_compared", "engine_versions_compared") for c in claims.find(facts, kind)]
    upgrade = _release_change(facts, "nccl_upgrade")  # (never a guess: _release_change drops those)
    # (audit47b) an NCCL or PyTorch release moved to, either way, that ended the hang ("Upgrading NCCL to 2.21.5 fixed
    # the hang": claims.REMEDIES nccl_release / torch_release, effect "fixes"): the releases differ in the hang, the
    # platform's peer path does not. A move forward is the cure for ticket.nccl_upgrade, yet here it still says the
    # release, not ACS or the IOMMU, held the hang. Advice not answered and guesses are no move (remedies() marks them)
    # (fr47) A cure said of the release only where claims.remedies read it as one: the fix names the hang and it
    # lasted (not "fixed a different issue", "fixed the hang for a day, now it hangs again"). Nor where ACS or the
    # IOMMU turned off cured it as well ("fixed the hang only after we also disabled ACS"): the platform's peer path,
    # the NCCL troubleshooting guide's own test, ended it then, not the release alone.
    fixes = [c for c in claims.find(facts, "remedy") if c.data.get("effect") == "fixes" and not c.guess]
    cured = [c for c in fixes if c.data.get("path") in ("nccl_release", "torch_release")] \
        if not any(c.data.get("path") == "acs" for c in fixes) else []
    said = compared + ([upgrade] if upgrade else []) + claims.torch_releases_compared(facts) + cured
    return [c for c in said if not c.guess and not _OTHER_HOST.search(c.quote)]


# The reporter's words that the GPUs talk over PCIe: "two PCIe GPUs", "PCIe-only cards", "connected via PCIe".
_PCIE_SAID = re.compile(r"\bPCIe[- ](?:only\s+)?(?:GPUs?|cards?|boards?|version)\b|\bPCIe[- ]only\b"
                        r"|\b(?:connected\s+)?(?:over|via|through)\s+PCIe\b(?!\s+(?:switch|slot))", re.I)


def _one_per_machine_only(facts: Facts) -> bool:
    """Is every GPU the ticket names (those of the hang's own sentence, where it names any) a board that comes one to a
    machine (gpus.toml gpus_per_machine = 1: GB10)? Then several GPUs are several machines. Not where another board is
    named too ("GB10 runs it alone; on two RTX 3090 over PCIe it hangs"): the subject GPU is only the first named."""
    gpu = facts.subject.gpu
    if gpu is None or gpu.gpus_per_machine != 1:
        return False
    names = {g.name for g in facts.of(GpuFact) if g.name}
    names |= {g["name"] for n in facts.of(Note) if n.kind == "gpus_named" for g in n.data.get("gpus", [])
              if not g.get("compared")}
    # (r49d) not a machine named only where it works ("The same model at TP=2 runs fine on my server with two H100
    # GPUs", "My DGX Spark (GB10) runs the model fine alone")
    fine, other = [], []
    for _, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            works = _RUNS_FINE.search(sentence) and not _HANG_WORD.search(sentence)
            (fine if works else other).append(_letters(sentence))
    working = {n for n in names if any(_letters(n) in f for f in fine) and not any(_letters(n) in o for o in other)}
    return all(board is None or board.gpus_per_machine == 1 for board in map(resolve_gpu, names - working))


def _letters(text: str) -> str:
    """Lower-case letters and digits only: a board's name as found in a sentence however spaced ("DGX Spark")."""
    return re.sub(r"\W", "", text.lower())


_RUNS_FINE = re.compile(r"\b(?:runs?|ran|works?|worked)\s+(?:[\w-]+\s+){0,4}?(?:fine|well|ok|okay)\b|"
                        r"\b(?:fine|well)\s+(?:on|with)\b", re.I)
_HANG_WORD = re.compile(r"\b(?:hang\w*|hung|stuck|freez\w*|froze|stall\w*|deadlock\w*|time[sd]?\s*out|"
                        r"never\s+returns?)\b", re.I)


@rule("ticket.hang_on_pcie", "p2p_disabled", "virtualization_no_p2p")
def hang_on_pcie(facts: Facts, predictions=None):
    """A collective that hangs between PCIe-connected GPUs of one node: the NCCL troubleshooting
    guide's first suspect is peer-to-peer blocked by ACS / the IOMMU (or, in a VM, by the hypervisor)."""
    hang = claims.symptom_quote(facts)
    # (s21) nor on a GPU model whose catalog row is an NVSwitch board (B200, H100 SXM): its GPUs are on NVLink
    # ("worker hang on Qwen3.5-397B-A17B-NVFP4 EP=8 (B200 SM100)", vllm-project/vllm#42186)
    if not hang or hang[2] != "hang" or has_nvlink(facts) or nvswitch_by_catalog(facts) \
            or _first(facts, "input_starved") or claims.hang_on_one_gpu(facts):
        return  # a pause every few batches resumes: the input pipeline's wait (ticket.input_starved); a hang of a
        # run on one GPU exchanges nothing with a peer (vllm-project/vllm#1752)
    nodes, _ = node_count(facts)
    n = _gpus(facts)
    # (mend41) nor across Kubernetes pods: their GPUs never reach each other peer-to-peer (claims "across_pods";
    # vllm-project/vllm#11139, a PP hang under LeaderWorkerSet)
    if (nodes and nodes > 1) or not ((n and n >= 2) or claims.several_gpus(facts)) \
            or any(not c.guess for c in claims.find(facts, "across_pods")):
        return
    # (s49) nor on a board that comes one to a machine (gpus.toml gpus_per_machine: DGX Spark's GB10): several such GPUs
    # are several machines joined by the network, with no PCIe peer path between them (vllm-project/vllm#42354, two
    # DGX Sparks at TP=2 wedging in an all-reduce, ended by another NCCL build)
    if _one_per_machine_only(facts):
        return
    virt = is_virtualized(facts)
    evidence = virt + [ev(hang[0], f'the symptom: "{hang[1]}"')]
    # P2P switched off and the job still hangs: evidence against the P2P path, which lowers this lead
    tried = claims.tried_without_effect(facts, "p2p")
    late = [c for c in claims.find(facts, "late_hang") if not c.guess]
    shared = [c for c in claims.find(facts, "shared_gpu_hang") if not c.guess]
    component = [c for c in claims.find(facts, "component_hang") if not c.guess]
    own_code = [c for c in claims.find(facts, "own_code_hang") if not c.guess and not c.negated]
    option = [c for c in claims.find(facts, "option_hang") if not c.guess]
    # (mend44) not where turning peer-to-peer off is what made it work: that is the P2P path's own test
    p2p_fixed = [c for c in claims.find(facts, "setting") if c.data.get("effect") == "fixes"
                 and c.data["name"] in ("NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL")]
    build = [c for c in claims.find(facts, "build_hang") if not c.guess and not c.negated
             and not _BUILD_ELSEWHERE.search(c.quote)] if not p2p_fixed else []
    if not p2p_fixed and not build:
        build = _software_release_change(facts)
    profiler = [c for c in claims.find(facts, "profiler_hang") if not c.guess]
    # (fx48q) rank 0's work only as the rule reads it, and not where turning P2P off made it work
    rank_zero = _rank_zero_work_stands(facts) if not p2p_fixed else None
    gpu = facts.subject.gpu
    no_peer = [ev(facts.subject.gpu_source, "GPU without PCIe P2P (catalog), the model split by layers", gpu.key)] \
        if gpu is not None and not gpu.pcie_p2p and layer_split_engine(facts) and not virt and not p2p_fixed \
        and not p2p_seen_working(facts) else []
    startup = [c for c in claims.find(facts, "startup_step_hang") if not c.guess and not c.negated]
    # PyTorch's watchdog counting collectives that completed before the one that hung: the path delivered
    done = [e for e in facts.of(NcclEvent) if e.kind == "collectives_completed" and e.data["completed"] > 0]
    category = "virtualization_no_p2p" if virt else "p2p_disabled"
    link = _pcie_link(facts)
    setup = next((c for c in claims.known_errors(facts) + claims.ambiguous_errors(facts)
                  if c.data["error"].before_traffic and not c.negated), None) if not p2p_fixed else None
    # (hangpcie33) an error a rank raised whose catalog cause is not the peer path
    rank_error = next((c for c in claims.known_errors(facts) if not c.negated and not c.data["error"].before_traffic
                       and c.data["error"].category not in ("p2p_disabled", "virtualization_no_p2p")), None) \
        if not p2p_fixed else None
    passed_check = p2p_seen_working(facts, delivered=True) if not p2p_fixed else []
    against = (profiler[0], P2P_PROFILER) if profiler else (rank_zero, P2P_RANK_ZERO) if rank_zero else \
        (tried[0], P2P_TRIED) if tried else \
        (no_peer[0], P2P_NOT_USED) if no_peer else \
        (passed_check[0], P2P_PASSED) if passed_check else \
        (setup, P2P_BEFORE_TRAFFIC) if setup else \
        (startup[0], P2P_STARTUP) if startup and not p2p_fixed else \
        (rank_error, P2P_RANK_ERROR) if rank_error else \
        (late[0], P2P_LATE) if late else (shared[0], P2P_SHARED) if shared else \
        (own_code[0], P2P_OWN_CODE) if own_code else \
        (component[0], P2P_COMPONENT) if component else (option[0], P2P_OPTION) if option else \
        (build[0], P2P_BUILD) if build else \
        (done[0], P2P_LATE) if done else \
        (hang[0], P2P_LINK_UNKNOWN) if not link and not virt and not p2p_fixed else None
    if against:  # evidence against the P2P path: it stays a lead below insufficient_data
        said, (title, summary, quoted, fix, ask) = against
        shown = claim_ev(said, quoted) if isinstance(said, Claim) else said if isinstance(said, Evidence) else \
            ev(said, "collectives completed before the one that hung (PyTorch's NCCL watchdog)",
               said.data["completed"]) if isinstance(said, NcclEvent) else None
        yield make("ticket.hang_on_pcie", category, "info", 0.25, title, summary,
                   evidence + link + ([shown] if shown else []), fix=fix, refs=["nccl_trouble"], ask=ask)
        return
    yield make("ticket.hang_on_pcie", category, "warning", 0.5,
               "A hang between PCIe-connected GPUs: peer-to-peer is the first suspect",
               "NCCL moves data between GPUs of a node with PCIe peer-to-peer when there is no NVLink. With PCIe ACS "
               "redirect on the switches or an IOMMU translating DMA (bare metal), or a hypervisor in between, "
               "the peer writes never arrive and the collective waits forever, while single-GPU work is fine.",
               evidence + link,
               fix="Run all_reduce_perf with NCCL_P2P_DISABLE=1: if it no longer hangs, "
               + ("the hypervisor blocks peer-to-peer: " + P2P_VM_FIX if virt else
                  "disable ACS on the PCIe switches (or boot with iommu=pt / VT-d off) and check "
                  "`p2pBandwidthLatencyTest`; attach `nvidia-smi topo -m` and `lspci -vvv | grep -i acsctl`."),
               refs=["nccl_acs", "nccl_trouble"])


@rule("ticket.profiler_hang", "other")
def profiler_hang(facts: Facts, predictions=None):
    """(ut27f) A collective that hangs only while Nsight Compute profiles it: ncu serializes kernel launches across the
    processes it profiles, so an NCCL kernel waiting for its peers never completes (NVIDIA/nccl#536, answered "ncu
    doesn't support profiling NCCL kernels ... ncu will serializes kernel launches"; NVIDIA/FasterTransformer#114).
    The answer is how to profile, not a fault of the node; a fatal Xid in the ticket keeps the GPU fault first."""
    said = next((c for c in claims.find(facts, "profiler_hang") if not c.guess and not c.negated), None)
    if not said or _gpu_fault(facts):
        return
    yield make("ticket.profiler_hang", "other", "warning", weight(said, 0.6),
               "The hang comes from Nsight Compute: it runs one kernel at a time, and a collective waits for its peers",
               P2P_PROFILER[1], [claim_ev(said, "the hang under the profiler")], fix=PROFILER_FIX,
               refs=["https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#serialization",
                     "https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#replay"])


@rule("ticket.rank_zero_work", "other")
def rank_zero_work(facts: Facts, predictions=None):
    """(p48d) A collective or barrier timeout said to come while rank 0 does work of its own (a checkpoint saved, read
    back or downloaded): the other ranks wait at the next collective until the process group's timeout aborts them.
    By design, answered by a barrier after that work or a longer timeout (mosaicml/llm-foundry#733,
    instructlab/training#566, goodfire-ai/spd#536, mosaicml/composer#2071). A fatal Xid keeps the GPU fault first."""
    said = _rank_zero_work_stands(facts)
    if not said:
        return
    yield make("ticket.rank_zero_work", "other", "warning", weight(said, 0.6), P2P_RANK_ZERO[0], P2P_RANK_ZERO[1],
               [claim_ev(said, P2P_RANK_ZERO[2])], fix=RANK_ZERO_FIX,
               refs=["https://pytorch.org/docs/stable/distributed.html#torch.distributed.init_process_group"])


def _rank_zero_work_stands(facts: Facts):
    """Rank 0's own work said as what the timed-out collective waited on (claims.rank_zero_work), not denied, in a
    ticket with no GPU fault: the one reading ticket.rank_zero_work fires on and ticket.hang_on_pcie steps aside for."""
    said = claims.rank_zero_work(facts)
    return said if said and not said.negated and not _gpu_fault(facts) else None


def _gpu_fault(facts: Facts) -> bool:
    """Does the ticket show a GPU fault: a fatal Xid line, or the hardware errors ticket.hardware_error reads?"""
    return any(x.xid in FATAL_XIDS for x in facts.of(XidEvent)) or any(
        not any(g.isdigit() and int(g) not in FATAL_XIDS for g in c.data.get("groups", []))
        for c in claims.find(facts, "hardware_error"))


# (physdoc33) A capacity message (an engine_errors row of category expected_physics) that appeared with a change: "this
# started after upgrading from 0.4.2", "0.4.2 started fine", "it used to start": the same settings fitted before, so the
# change, not the card's memory, is what the ticket is about.
# (review33) "worked fine" counts only tied to a release ("0.4.2 started fine", "ran fine with v0.5"): "the weights
# loaded fine, then: No available memory for the cache blocks" is the order in which every such start fails.
_WORKED_BEFORE = re.compile(r"\b(?:after|since) (?:the )?(?:upgrad|updat)\w*|\bused to (?:work|start|run|fit)\b|"
                            r"\bv?\d+\.\d+(?:\.\d+)?\w* (?:worked|started|ran|loaded) (?:fine|ok|okay|well)\b|"
                            r"\b(?:worked|started|ran|loaded) (?:fine|ok|okay|well) (?:with|on|in|under) "
                            r"(?:v(?:ersion)?\s*)?\d+\.\d+", re.I)


def _share_set_low(facts: Facts) -> bool:
    """(review33) Does the ticket set the engine's memory share below its profile's default (engines.toml
    memory_utilization; vLLM's gpu_memory_utilization 0.9)? Then the KV cache is small by that setting, not by the
    card: vllm-project/vllm#7028, gpu_memory_utilization=0.1 on a T4."""
    share = memory_share(facts)
    if share is None or share[1] != "total":
        return False
    engine = catalog.engine_named(facts)
    return share[0] < (engine.memory_utilization if engine is not None else catalog.EngineSpec.memory_utilization)


@rule("ticket.known_error", *ERROR_CATEGORIES)
def known_error(facts: Facts, predictions=None):
    """An error message of NCCL, the CUDA stack or an engine quoted in the ticket (rules/catalog/engine_errors.toml:
    NCCL's unknown result code or a missing NCCL symbol, an NCCL release mismatch; two ranks on one GPU; invalid usage;
    a driver/library mismatch; a GPU index not visible; a dtype, kernel or quantisation the GPU is too old for; memory
    another process holds; the engine's custom all-reduce failing; out of memory, a KV cache too small for
    max_model_len, no kernel image for the GPU, a driver older than the runtime, the GPU busy in exclusive mode, no GPU
    visible, an illegal memory access, a device-side assert, the display watchdog, the RDMA verbs library refusing
    memory, queues or the queue pair to the peer; the serving engine refusing a request with an HTTP 4xx, a prompt
    past the context window, a route or model name it does not serve):
    the message names the failure, so its row's category with the message as evidence, not a transport or layout cause
    read from the failure."""
    found = claims.known_errors(facts)
    if not found or _gpu_fault(facts):
        return  # a GPU that reports a fault explains what CUDA then tells the software (ticket.hardware_error)
    c = next((c for c in found if c.data["origin"] == "output"), found[0])
    row = c.data["error"]
    others = [x.data["error"].id for x in found if x is not c]
    category = row.category
    if category == "expected_physics" and (any(_WORKED_BEFORE.search(t) for _, t in claims.texts(facts))
                                           or _share_set_low(facts)):
        category = "other"  # it fitted before an upgrade, or the ticket's own share left the cache small: not the card
    yield make("ticket.known_error", category, "warning", 0.6 if c.data["origin"] == "output" else 0.5,
               f"The ticket quotes a known error message: {row.id.replace('_', ' ')}",
               f"The message says {row.meaning}. It names the failure itself, whatever the GPUs' links or layout are."
               + (f" Also quoted: {', '.join(o.replace('_', ' ') for o in others)}." if others else ""),
               [claim_ev(c, f"error message ({row.id}, rules/catalog/engine_errors.toml)")],
               fix=row.fix, refs=[src.split(" (")[0] for src in row.sources])


@rule("ticket.ambiguous_error", "insufficient_data")
def ambiguous_error(facts: Facts, predictions=None):
    """(errors31) An error message whose documented causes lie in several categories (rules/catalog/engine_errors.toml
    rows of category insufficient_data), quoted without the line that names its cause: no category is guessed from
    it; the row's fix asks for what tells the causes apart. Silent beside a message the catalog decides."""
    found = claims.ambiguous_errors(facts)
    if not found or claims.known_errors(facts):
        return
    c = next((c for c in found if c.data["origin"] == "output"), found[0])
    row = c.data["error"]
    yield make("ticket.ambiguous_error", "insufficient_data", "info", 0.0,
               f"The error quoted has several documented causes: {row.id.replace('_', ' ')}",
               f"The message says {row.meaning}. It does not say which cause this is, so no category is taken from it.",
               [claim_ev(c, f"error message ({row.id}, rules/catalog/engine_errors.toml)")],
               fix=row.fix, refs=[src.split(" (")[0] for src in row.sources])


@rule("ticket.software_error", "other")
def software_error(facts: Facts, predictions=None):
    """An error or crash whose only evidence is the software raising: an engine or framework problem
    until a hardware or transport cause shows (a message the catalog knows: ticket.known_error)."""
    said = claims.symptom_quote(facts)
    if not said or said[2] not in ("error", "crash") or claims.known_errors(facts) or claims.ambiguous_errors(facts):
        return  # a message with several documented causes is asked about (ticket.ambiguous_error), not guessed
    c = _first(facts, "exception")
    if not c:
        return
    # (mend2_25) a release of the engine the reporter says works: the build to stay on, named in the fix
    works = next((w for w in claims.find(facts, "release_works") if not w.guess), None)
    engine = (works.data["engine"] or engine_of(facts) or "the engine") if works else None
    yield make("ticket.software_error", "other", "warning", 0.4,
               "The engine (or framework) raises an error: a software problem unless the "
               "hardware evidence says otherwise",
               "The ticket shows the software failing, and nothing in it points at a link, a transport, "
               "memory or a clock. Such failures are most often a version mismatch, an unsupported option or a bug "
               "fixed in a later release.",
               [claim_ev(c, "the error")] + ([claim_ev(works, "the release said to work")] if works else []),
               fix=(f"Pin {engine} {works.data['release']} (the release that worked, per the report) until the fix is "
                    "released; compare its versions (CUDA, driver, NCCL, PyTorch) with the failing setup's, and "
                    if works else "Match the versions the engine documents (CUDA, driver, NCCL, PyTorch), try the "
                    "latest release, and ") + "search the engine's issues for the exact error line.")




@rule("ticket.other_vendor", "insufficient_data")
def other_vendor_speed(facts: Facts, predictions=None):
    """A speed or scaling question about another vendor's accelerator (Gaudi, Instinct, Arc, Apple): its links,
    collectives and kernels are not in the catalog, so no figure or prior here can judge it; say so rather than
    answer with NVIDIA's physics or ask for nvidia-smi and NCCL logs."""
    vendor = claims.other_vendor_speed(facts)
    if vendor is None:
        return
    said, name = claims.symptom_quote(facts), vendor.data["name"]
    yield make("ticket.other_vendor", "insufficient_data", "info", 0.0,
               f"{name} is not an NVIDIA GPU: diagnose cannot judge its figures",
               f"The ticket is about {name}. The GPU catalog, the expected figures and the link and collective checks "
               "here are NVIDIA's (NVLink, PCIe P2P, NCCL); another vendor's interconnect, collective library and "
               "kernels set its speed in ways none of them model, so "
               + ("its figures cannot be judged here; the layer split's turn-taking (ticket.symptom_prior) is the "
                  "software's, whatever the GPU." if layer_split_over_gpus(facts) else
                  "neither a fault nor physics can be named."),
               [ev(said[0], f'the reporter\'s question: "{said[1]}"'), claim_ev(vendor, "the accelerator")],
               fix=f"Compare with {name}'s own published figures and profile with its vendor's tools",
               ask=f"figures from {name}'s own tools (diagnose judges NVIDIA GPUs only)")


# What shows the path between the GPUs on this host: the P2P status the driver reports and the transport NCCL chose.
P2P_PATH_ASK = ("`nvidia-smi topo -m`, `nvidia-smi topo -p2p r` and the NCCL_DEBUG=INFO lines of the run (the "
                "'via P2P' or 'via SHM' transport of each connection)")


def _layer_split_prior(evidence: list):
    """ticket.symptom_prior's answer for a model split by layers over several GPUs."""
    return make("ticket.symptom_prior", "expected_physics", "info", 0.55,
                "A layer split adds GPUs for memory, not for speed",
                "With the layers split over the GPUs (llama.cpp / Ollama / text-generation-webui / accelerate "
                "device_map), each token passes through the GPUs one after another: one GPU works at a time, and "
                "every hand-over adds a copy. More GPUs hold a bigger model; they do not decode one stream faster.",
                evidence, fix="Use the fewest GPUs that hold the model (one if it fits); "
                "for speed on several GPUs use an engine with tensor parallelism "
                "(vLLM, SGLang, TensorRT-LLM, ExLlamaV2 TP) and a batch of requests.")


def _fits_one_gpu(facts: Facts) -> bool | None:
    """Do the model's weights fit one of the GPUs (rules.workload.predict_layout at TP 1)? None where the ticket names
    no model or no GPU."""
    p = predict_layout(facts, 1, 1)
    return None if p is None else p.fits


def _one_gpu_by_design(facts: Facts) -> bool:
    """Would the engine put this model on one GPU of several by itself: transformers alone, no layer split said by the
    reporter (a device_map, a split flag) and the model not too big for one GPU?"""
    return splits_only_if_told(facts) and not any(not c.guess for c in claims.find(facts, "layer_split")) \
        and _fits_one_gpu(facts) is not False


@rule("ticket.symptom_prior", "expected_physics", "p2p_disabled", "cross_node_tp")
def symptom_prior(facts: Facts, predictions=None):
    """'More GPUs are not faster' with nothing broken in sight: what a layer split or tensor
    parallelism gives by physics, or, on boards whose driver refuses PCIe P2P, its ceiling; asked before measuring
    what a weaker card does to a group, the slower card's pace. Silent for another vendor's accelerator
    (ticket.other_vendor)."""
    said = claims.symptom_quote(facts)
    kind = said[2] if said else None
    if kind not in ("scaling", "slow", "normal?", "other"):
        return
    evidence = [ev(said[0], f'the reporter\'s question: "{said[1]}"')]
    if claims.other_vendor_speed(facts):
        # (s27, ut27d) a layer split's turn-taking is the software's, not the hardware's: accelerate runs the modules
        # one after another on any vendor's GPUs ("device_map=balanced ... much worse than only using 1 GPU ... 8 AMD
        # MI300x", huggingface/diffusers#9127: "The computation is still sequential")
        if layer_split_over_gpus(facts) and kind in ("scaling", "normal?"):
            yield _layer_split_prior(evidence)
        return
    if reference_shortfall(facts):
        return  # slower than a reference run scaled to these GPUs: no physics (ticket.reference_scaled)
    slower_card = _slower_card_pace(facts, evidence)  # (a question of any kind: "will the older card hold it back?")
    if slower_card:
        yield slower_card
        return
    if kind == "other":
        return  # (the other priors below answer a complaint about speed or scaling, or a question whether it is normal)
    if failure_said(facts):
        return  # (risks37) output wrong or empty, an HTTP 5xx, an exception said in words: a failure, no physics prior
    gpu, gpu_src = facts.subject.gpu, facts.subject.gpu_source
    n = _gpus(facts)
    # a time per step or reply: only a figure check can call it physics (a layer split's turn-taking, below, explains
    # any time: the GPUs work one after another whatever the figure)
    untimed = claims.work_duration(facts)
    # (a slowness asked about, "only one GPU is busy at a time: is this a bug?", is the same question). (scaling44)
    # Not where the reporter sees one GPU do all the work of a model the catalog does not show too big for one GPU
    # ("--num-gpus 2 ... Only one GPU used, why?" with a 7B model, lm-sys/FastChat#1760): no GPUs take turns there; a
    # sequential device_map fills the first GPU and leaves the rest empty when the model fits it
    # (ticket.one_gpu_by_design's answer). A model too big for one GPU is split, and one GPU seen busy is its turn.
    # (fr44) Only where one GPU is the placement by design: transformers alone with no split said (splits_only_if_told;
    # FastChat's --num-gpus). llama.cpp spreads the layers over every GPU it sees, and a device_map said
    # ("device_map='auto'" on two A100s) spreads them too: one GPU busy there is its turn.
    if layer_split_over_gpus(facts) and (kind in ("scaling", "normal?") or (kind == "slow" and claims.asks(facts))) \
            and not (one_gpu_in_use(facts) and _one_gpu_by_design(facts)):
        yield _layer_split_prior(evidence)
        return
    gathered = claims.weights_gathered(facts)
    if gathered and kind in ("slow", "scaling", "normal?"):
        # (s27, ut27d) CarperAI/trlx#347: "I can't use zero_stage:2 ... model generate will be extremely slow";
        # the maintainer: stage 3 is slower all round and more so in generation; raise the batch
        yield make("ticket.symptom_prior", "expected_physics", "info", 0.55,
                   "Generating with ZeRO-3 / FSDP gathers the whole model for every token",
                   "ZeRO stage 3 and FSDP keep 1/n of each layer's weights on each GPU and all-gather the rest before "
                   "every forward pass (DeepSpeed ZeRO-3 and PyTorch FSDP documentation). Generation runs one forward "
                   "pass per token, so each token moves nearly the whole model over the GPU links: far slower than a "
                   "full copy per GPU, and slower the smaller the batch.",
                   evidence + [claim_ev(gathered[0], "weights partitioned by ZeRO-3 / FSDP, named with generation")],
                   fix="For generation keep a full copy of the weights per GPU where it fits (ZeRO-2, or a merged "
                   "copy served by an inference engine with tensor parallelism: DeepSpeed-Inference, vLLM); under "
                   "ZeRO-3 generate for a larger batch of prompts per call.",
                   refs=["deepspeed_zero3"])
        return
    across = [c for c in claims.find(facts, "multi_node") if not c.guess]
    if across and kind in ("scaling", "slow") and not wfield(facts, "nodes")[0] and not wfield(facts, "tp")[0] \
            and not training_job(facts) \
            and (engine_of(facts) or any(m.metric in SERVING_METRICS for m in facts.of(Measurement))):
        yield make("ticket.symptom_prior", "cross_node_tp", "info", 0.45,
                   "A model served across machines: tensor parallelism over the network is the first suspect",
                   "When one tensor-parallel group spans machines, every layer's all-reduce crosses the network, whose "
                   "latency per call is ten to a hundred times NVLink's; single-stream decode then runs at the pace of "
                   "those round trips. The ticket does not say how the layout is split.",
                   evidence + [claim_ev(across[0], "served across machines")],
                   fix="Attach the launch command of every node (TP, PP and node counts); "
                   "keep TP inside a node and use pipeline parallelism across nodes"
                   + (", and attach the NCCL_DEBUG=INFO log to check the network path" if NCCL_LOG in ticket_gaps(facts)
                      else "") + ".",
                   refs=["vllm_parallel"])
        return
    known = gpu is not None or n or facts.subject.model is not None or facts.of(Measurement)
    # (a figure check that finds more than physics outweighs what follows: engine.quiet_priors, FIGURE_CHECKS)
    if kind == "normal?":
        if known and (n or 0) >= 2 and _about_performance(facts) and not untimed:
            # figures a launch option takes outside the predictor (ticket.unmodelled_figures; scaling's rows read 'not
            # modelled'): the answer says it rests on this prior, not on a check of those figures
            option = unmodelled_layout(facts)
            flag = f"--{option.replace('_', '-')}" if option else ""
            decided = _physics_decides(facts, said)
            if decided:
                yield decided
                return
            if _prompt_budget_lowered(facts):
                return  # a setting shows: the first token's time is the budget's, not physics (the ask answers)
            yield make("ticket.symptom_prior", "expected_physics", "info", 0.45,
                       "Nothing in the ticket points at a fault: multi-GPU figures like these are usually physics"
                       + (f" (its own figures not judged: {flag} is not modelled)" if option else ""),
                       "The reporter asks whether a multi-GPU figure is normal and no link, transport, "
                       "clock or setting problem shows in what was given; "
                       "communication and per-GPU work set these figures."
                       + (f" With {flag} no expected band exists for the figures themselves, so this is what such "
                          "systems usually show, not a measurement checked." if option else ""),
                       evidence, fix="Compare with `diagnose predict` for this model and GPUs"
                       + _still_to_attach(facts, "to confirm the links deliver their rate") + ".")
        return
    engine = engine_of(facts)
    tp_engine = engine not in (None, "generic", "hf-eager", *LLAMACPP_ENGINES) or (wfield(facts, "tp")[0] or 0) >= 2
    if gpu is not None and not gpu.pcie_p2p and (n is None or n >= 2) and not has_nvlink(facts) and tp_engine \
            and not p2p_seen_working(facts):
        paid = measured_split_gain(facts)
        if paid is not None:
            yield _no_p2p_split_pays(gpu, paid, evidence + [ev(gpu_src, "GPU without PCIe P2P (catalog)", gpu.key)])
            return
        if below_one_host_staged_stream(facts):
            return  # too slow for the host-staged all-reduce to be the cause: the ask, not this prior, answers
        # (p2pprec31) the board's class is configuration, not an observation of this host's path: with the path seen
        # (a topology, a P2P status, an NCCL transport line) the host-staged ceiling is a finding; without it, a lead
        # beside the ask for the path (on held-out tickets p2p_disabled was among the verdicts most often wrong, the
        # settled cause another: a regression, a bug, nothing at all; this prior, on the board alone, one source)
        # ... or the path measured: an all-reduce table run across them (its busbw is this host's path at work)
        seen = _pcie_path_seen(facts) or _path_measured(facts)
        yield make("ticket.symptom_prior", "p2p_disabled", "warning" if seen else "info", 0.55 if seen else 0.45,
                   f"{gpu.name}: the driver refuses PCIe peer-to-peer, so TP traffic goes through host memory",
                   "GeForce boards do not get PCIe P2P from the stock driver; NCCL falls back to staging every "
                   "all-reduce through host memory (SHM), which caps multi-GPU decode well below "
                   "what the GPUs could do."
                   + (f" The path seen on this host: {seen[0].detail}." if seen else
                      " Nothing in the ticket shows this host's path between the GPUs, so this is what the board "
                      "usually gives, not a finding about this system."),
                   # (the path is named in the summary, not as evidence: a figure that fits the band, which already
                   # stages the all-reduce through host memory, still outranks this prior, rules.engine.fits_first)
                   evidence + [ev(gpu_src, "GPU without PCIe P2P (catalog)", gpu.key)],
                   ask=None if seen else P2P_PATH_ASK,
                   fix="Run `diagnose predict --tp 1,2` for this model and batch: it models this host-memory "
                   "all-reduce, which costs little at batch 1 (TP still speeds a single stream) and more as the batch "
                   "grows; where TP does not pay, prefer one GPU per replica or a pipeline split for capacity, "
                   "an NVLink bridge where the board has one, and measure `all_reduce_perf` to see the ceiling.",
                   refs=["nccl_trouble"])
        return
    if kind == "scaling" and known and not untimed:
        # (with nothing but the complaint, asking for the artifacts is the answer; a time per step or per reply that
        # no check could set against an expected figure may be any distance from physics, so no prior speaks for it;
        # a loss stated beyond what physics allows is ticket.loss_beyond_physics's, which quiets this prior)
        decided = _physics_decides(facts, said) if not within_physics(facts) else None
        if decided:
            yield decided
            return
        if _collective_figures_only(facts):
            # (issue 11, ut21a: "busbw is 122 with 8 gpu in NVswitch But the busbw is 130 with 8 gpu in the NVlink",
            # NVIDIA/nccl#258) no model and no layout: the figures are the fabric's, and so is the answer
            yield make("ticket.symptom_prior", "expected_physics", "info", 0.5,
                       "Collective bandwidths like these are what the fabric delivers",
                       "The figures are collective bus bandwidths with no model or layout around them. Each fabric "
                       "(point-to-point NVLink, an NVSwitch, PCIe, a network) has its own per-direction rate and "
                       "per-hop overhead, so busbw differs between fabrics and between GPU counts by design; nothing "
                       "in the ticket shows a link down, a slower transport or a setting forcing a slower path.",
                       evidence, fix="Compare each figure with its own fabric's rate at large sizes (-b 1G -e 8G)"
                       + _still_to_attach(facts, "to confirm the links deliver their rate") + ".")
            return
        if across:
            # (s36 merge) a run across machines that does not scale: the network path between them (sockets instead of
            # InfiniBand, no GPUDirect RDMA) is the first unknown, which the asks name; the physics of a TP group in one
            # box (PCIe, small kernels) is not its answer (modelscope/ms-swift#1825: ZeRO-3 over 12 nodes slower than
            # over 1, NCCL kept off InfiniBand), nor (risks37) a data-parallel step's examples, which across machines
            # wait on the same network path
            return
        if training_job(facts) and not engine_of(facts) and not wfield(facts, "tp")[0]:
            # (ut26a) a training job's GPUs each run a batch of their own and all-reduce the gradients once per step
            # (PyTorch DistributedDataParallel, Horovod, tensor2tensor's --worker_gpu): a step on N GPUs is N batches,
            # so steps or iterations per second stay level or fall while the examples per second grow
            # (tensorflow/tensor2tensor#1110: "~2 steps for Multi-GPU, compared to ~9 steps for Single-GPU", expected)
            yield make("ticket.symptom_prior", "expected_physics", "info", 0.5,
                       "Data-parallel training: a step on more GPUs carries more examples",
                       "In synchronous data-parallel training every GPU runs its own batch and the gradients are "
                       "all-reduced once per step, so one step on N GPUs processes N batches: steps or iterations per "
                       "second stay level or fall a little while the examples per second grow. With the global batch "
                       "held fixed instead, each GPU gets a smaller share and the per-step all-reduce weighs more. "
                       "Nothing in the ticket shows a broken link or setting.",
                       evidence, fix="Compare examples (samples or tokens) per second, steps per second times the "
                       "global batch, at each GPU count; if those do not grow, check the input pipeline (data-loader "
                       "workers, disk) and the links"
                       + _still_to_attach(facts, "to rule out a transport problem") + ".",
                       refs=["https://pytorch.org/docs/stable/notes/ddp.html"])
            return
        if (layout := expert_layout(facts)) is not None:
            # (ut27a) the layout that did not pay is expert parallelism or DP attention, set against pure TP:
            # a throughput layout for high load (sgl-project/sglang#23896: "128 concurrency looks still at the sweet
            # spot of low latency recipe"), not tensor parallelism's fixed costs
            (title, _), why, fix = EP_TRADE
            yield make("ticket.symptom_prior", "expected_physics", "info", 0.5, title, why,
                       evidence + [layout] + within_physics(facts),
                       fix=fix.rstrip(".") + _still_to_attach(facts, "to rule out a transport problem") + ".",
                       refs=[SGLANG_DP_ATTENTION, VLLM_EP])
            return
        yield make("ticket.symptom_prior", "expected_physics", "info", 0.5,
                   "Tensor parallelism not paying off is what physics predicts for many setups",
                   "Splitting a model over more GPUs divides the weight traffic per GPU but adds two all-reduces per "
                   "layer and smaller kernels; for small models, single requests or PCIe-connected GPUs those fixed "
                   "costs eat the gain. Nothing in the ticket shows a broken link or setting.",
                   evidence + within_physics(facts),
                   fix="Compare with the expected figures (`diagnose predict --model M --gpu G --tp 1,2,4`)"
                   + _still_to_attach(facts, "to rule out a transport problem") + ".")


# Expert parallelism and DP attention as tickets state them: the engines' flags (vLLM --enable-expert-parallel,
# SGLang --enable-dp-attention / --moe-a2a-backend deepep / --ep-size, kept by diagnose.artifacts.launch) or the words
# ("expert parallel", "DeepEP", "EP8", "TEP8", "DP attention"; "EP=1" is none).
_EP_WORDS = re.compile(claims.EP_NAMED, re.I)
SGLANG_DP_ATTENTION = "https://lmsys.org/blog/2024-12-04-sglang-v0-4/#data-parallelism-attention-for-deepseek-models"
VLLM_EP = "https://docs.vllm.ai/en/latest/serving/expert_parallel_deployment.html"


def expert_layout(facts: Facts) -> Evidence | None:
    """Where the ticket runs or names an expert-parallel or DP-attention layout, as evidence; None where it does
    not."""
    for w in facts.of(Workload):
        said = [f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}") for k in
                ("enable_expert_parallel", "enable_dp_attention", "moe_a2a_backend") if (v := w.extra.get(k))]
        if (w.ep or 1) > 1:
            said.insert(0, f"EP={w.ep}")
        if said:
            return ev(w.source, f"the expert-parallel or DP-attention layout: {', '.join(said)}")
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            # asked about, not run: "is there a way to use expert_parallelism ...?" (deepspeedai/DeepSpeed-MII#389)
            if (m := _EP_WORDS.search(sentence)) and not claims.offered(sentence, m.start()):
                return ev(source, f'the expert-parallel or DP-attention layout named: "{m.group(0)}"')
    return None


def _collective_figures_only(facts: Facts) -> bool:
    """Are the ticket's figures collective bandwidths alone (busbw or algbw, measured or in words), with no model, no
    layout and no serving or step figure beside them?"""
    if facts.subject.model is not None or wfield(facts, "tp")[0] or wfield(facts, "pp")[0]:
        return False
    metrics = {m.metric for m in facts.of(Measurement)}
    return bool(metrics) and metrics <= {"busbw_gbs", "algbw_gbs"}


def _slower_card_pace(facts: Facts, evidence: list):
    """The answer to a question asked before measuring about what a lesser card does to a group of unlike GPUs
    (claims.mixed_gpus_asked): the pace of the slower card, by physics. A board's own limits (P2P refused, no
    NVLink) apply to any pair; the question is the slower card. None where a figure was measured (the figure checks
    judge it)."""
    mixed = claims.mixed_gpus_asked(facts)
    if not mixed or facts.of(Measurement):
        return None
    return make("ticket.symptom_prior", "expected_physics", "info", 0.55,
                "Unlike GPUs in one job: it runs at the pace of the slower card",
                "Tensor parallelism gives every GPU an equal shard and all-reduces at every layer, so each step "
                "waits for the slowest GPU; a layer split hands every token through the slower card as well. Paired "
                "with a weaker card, the faster one idles for the difference: expect roughly the speed of a group "
                "of the weaker cards, not a fault.",
                evidence + [claim_ev(mixed, "what they ask of the unlike GPUs")],
                fix="Compare `diagnose predict --gpu G --tp 2` for each board: the slower board's figure is the "
                "pair's ceiling; give the weaker card less work where the engine allows it (llama.cpp "
                "--tensor-split, a layer split) or keep it out of the tensor-parallel group.",
                refs=["vllm_parallel"])


# (review38b) The first token's time asked about: "TTFT", "time to first token", "首token", "首字延迟", prefill.
_FIRST_TOKEN = re.compile(r"\bTTFT\b|\btime\s+to\s+first\s+token\b|\bfirst[- ]token\b|\bprefill\w*|"
                          r"首\s*(?:token|字|词)", re.I)


def _prompt_budget_lowered(facts: Facts) -> bool:
    """Does a launch line set the step's token budget (vLLM --max-num-batched-tokens) below the engine profile's own
    tokens per step (engines.toml activation_tokens), with the first token's time asked about? With chunked prefill a
    prompt longer than the budget takes one step a chunk, so a lower budget raises the time to first token by design
    (https://docs.vllm.ai/en/latest/configuration/optimization.html#chunked-prefill: "smaller values achieve better
    ITL", higher ones better TTFT): a setting, not physics, sets the figure asked about."""
    budgets = [str(w.extra["max_num_batched_tokens"]) for w in facts.of(Workload)
               if w.extra.get("max_num_batched_tokens")]
    if not budgets or not any(_FIRST_TOKEN.search(t) for _, t in claims.texts(facts)):
        return False
    default = catalog.engine(engine_of(facts)).activation_tokens
    return any(b.isdigit() and int(b) < default for b in budgets)


def _physics_decides(facts: Facts, said):
    """The answer to a multi-GPU question with no figure where the predictor decides it (ticket_numbers.layout_gain):
    a layout whose predicted one-stream speed-up is at most SMALL_GAIN gains little by physics, said with the
    predicted rates. None otherwise, and the prior stands as it was: a prior lowered where the predictor expects the
    layout to pay cut the confidence of four development answers whose threads did end in physics (at a batch, not
    one stream) and changed no verdict, so it was dropped."""
    found = layout_gain(facts)
    if found is None or found[2] > SMALL_GAIN:
        return None
    small, large, gain, evidence = found
    evidence = [ev(said[0], f'the reporter\'s question: "{said[1]}"')] + evidence
    return make("ticket.symptom_prior", "expected_physics", "info", 0.55,
                f"Physics decides this layout: TP={large} is expected only x{gain:.2f} as fast as TP={small} "
                "for this model on these GPUs",
                f"No measured figure is needed: the model, GPUs and layout decide it. The predictor (its expected "
                f"rates below) gives TP={large} x{gain:.2f} the decode rate of TP={small}. Each GPU "
                "reads a smaller share of the weights per token, but the two all-reduces per layer and the fixed "
                "per-step costs do not shrink with the GPU count, and here they eat the gain.",
                evidence, fix=f"Nothing is broken by this alone; run one replica per {small} GPU"
                f"{'s' if small > 1 else ''} for throughput, and compare a measured rate with "
                "`diagnose predict` for this model and GPUs"
                + _still_to_attach(facts, "to confirm the links deliver their rate") + ".")


def _still_to_attach(facts, why: str) -> str:
    """'; attach X, Y <why>' for the basic artifacts the ticket lacks; '' when it holds them all
    (a fix never asks for what is already attached)."""
    wanted = ticket_gaps(facts)
    return f"; attach {', '.join(wanted)} {why}" if wanted else ""


# --------------------------------------------------------------------------- failure categories in words (issue 11 b)


def _across_nodes(facts: Facts) -> bool:
    nodes, _ = node_count(facts)
    return bool((nodes and nodes > 1) or [c for c in claims.find(facts, "multi_node") if not c.guess])


_RDMA_WORDS = re.compile(r"\b(?:InfiniBand|IB|RDMA|RoCE|EFA|mlx5\w*|HCA|ConnectX|HDR|NDR|EDR)\b")


@rule("ticket.net_socket", "socket_fallback")
def net_socket(facts: Facts, predictions=None):
    """NCCL moving inter-node traffic over TCP sockets, as NCCL's own lines quoted in prose ('NET/IB : No
    device found', 'Using network Socket') or the reporter's words say it, where no NCCL log was parsed.
    On one node NCCL names its socket interface at every init, so only traffic between nodes counts."""
    if [t for t in facts.of(NcclTransport) if t.transport == "NET"] or \
            [e for e in facts.of(NcclEvent) if e.kind == "using_socket"]:
        # the parsed log shows the transport itself: nccl.socket_fallback judges it (an HCA not found alone
        # it does not)
        return
    c = _first(facts, "net_socket")
    if not c or c.guess:
        c = _first(facts, "rdma_off")  # NCCL_IB_DISABLE's doing: "NCCL will fall back to using IP sockets"
        if c and not _across_nodes(facts):
            return  # on one server NCCL never needs the network
    if not c or c.guess:
        return
    rdma = any(_RDMA_WORDS.search(t) for _, t in claims.texts(facts))
    if not (_across_nodes(facts) or (rdma and re.search(r"\binstead of\b|\bfall|\bfell\b|\brevert|\bnot\b|\bwithout\b|"
                                                        r"\bmissing\b|\bunavailable\b|\bunused\b|\bdisabled?\b|"
                                                        r"\b(?:turned|switched) off\b",
                                                        c.quote, re.I))):
        return
    yield _on_claim("ticket.net_socket", "socket_fallback", "warning", c, "NCCL on TCP sockets",
                    "NCCL carries inter-node traffic over TCP sockets instead of InfiniBand/RoCE",
                    "NCCL uses RDMA only when it can open the HCA where the job runs; otherwise it falls back to TCP "
                    "sockets over the Ethernet interface, with a fraction of the NIC's bandwidth and many times its "
                    "latency, which every cross-node collective then pays.",
                    fix="Make the RDMA devices usable where NCCL runs: IB/RoCE drivers loaded, in containers "
                    "--device=/dev/infiniband (or the RDMA device plugin), --cap-add=IPC_LOCK and --ulimit memlock=-1; "
                    "`ibv_devinfo` must list the HCA, and the NCCL_DEBUG=INFO log must then show 'NET/IB' instead of "
                    "'NET/Socket'.",
                    refs=["nccl_trouble", "nccl_env"])


# The work-completion statuses NCCL prints with a failed RDMA transfer (enum ibv_wc_status, rdma-core's
# libibverbs/verbs.h; ibv_poll_cq(3)): what the number says happened, not why.
WC_STATUS = {4: "local protection error", 5: "work request flushed", 8: "local access error",
             9: "remote invalid request", 10: "remote access error", 11: "remote operation error",
             12: "transport retry counter exceeded: the peer's NIC stopped answering",
             13: "receiver-not-ready retry counter exceeded"}
_WC_NUMBER = re.compile(r"\bwith (?:error\s*|status=(?:\w+\()?)(\d{1,2})\b")


@rule("ticket.ib_transfer_error", "insufficient_data")
def ib_transfer_error(facts: Facts, predictions=None):
    """NCCL's RDMA transport reporting a failed transfer ('NET/IB : Got completion from peer ... with error 12') or a
    NIC event: every surviving rank prints it when a peer dies or the fabric drops it, so it names no cause
    (rules/catalog/engine_errors.toml keeps no row for it); what tells them apart is the fabric's own state between
    the two NICs and the other ranks' logs, which the ticket is asked for."""
    logged = next((e for e in facts.of(NcclEvent) if e.kind == "ib_transfer_error"), None)
    c = None if logged else _first(facts, "ib_transfer_error")
    if not logged and (not c or c.guess):
        return
    said = ev(logged, "NCCL's RDMA transport", logged.message[:120]) if logged else claim_ev(c, "NCCL's RDMA transport")
    status = _WC_NUMBER.search(logged.message if logged else c.quote)
    meaning = WC_STATUS.get(int(status.group(1))) if status else None
    # RoCE: NCCL's 'NET/IB : Using [0]mlx5_0:1/RoCE', or a port whose link layer is Ethernet (ibv_devinfo, ibstat)
    roce = [e for e in facts.of(NcclEvent) if e.kind == "network" and "RoCE" in (e.data.get("link_layers") or [])] + [
        n for n in facts.of(Note) if n.kind == "ib_port" and (n.data or {}).get("link_layer", "").lower() == "ethernet"]
    # (ut26b) on RoCE the NICs are addressed by a GID: one that is link-local (fe80::) or of another subnet is not
    # routed between switches, and status 12 follows at the first transfer ("solved by adding -x NCCL_IB_GID_INDEX=3
    # ... the gpu machines are under different switches", https://github.com/pytorch/pytorch/issues/81628; "When it
    # happens right away, it usually means the NICs can't talk to each other using RoCE", NVIDIA/nccl#426)
    yield need("ticket.ib_transfer_error", "An RDMA transfer between nodes failed; which end or link failed is unknown",
               "NCCL's InfiniBand/RoCE transport saw a transfer fail"
               + (f" (status {status.group(1)}, {meaning}; enum ibv_wc_status)" if meaning else "")
               + ". A rank that crashed, a link or switch port that went down and a routing or RoCE setting that "
               "keeps the two NICs apart all read the same from this side."
               + (" The NICs here run RoCE: when it fails at the first transfers, the usual cause is the GID index "
                  "NCCL uses (NCCL_IB_GID_INDEX) naming an address the switches do not route, such as a link-local "
                  "fe80:: GID; the RoCE v2 GID of the NIC's IPv4 address is the one to use." if roce else ""),
               "`ibstat` (or `ibv_devinfo`) from both nodes, an `ib_write_bw` run between the two NICs the error "
               "names, `dmesg` of every node around the failure, and the NCCL_DEBUG=INFO log of every rank"
               + (", with `show_gids` from both nodes and the NCCL_IB_GID_INDEX the job sets" if roce else ""),
               [said] + ([ev(roce[0], "the NIC's link layer", "RoCE" if isinstance(roce[0], NcclEvent)
                              else "Ethernet (RoCE)")] if roce else []))


@rule("ticket.roce_gid", "other")
def roce_gid(facts: Facts, predictions=None):
    """A RoCE connection that fails (a queue pair that will not connect, a transfer with status 12) beside a pasted GID
    table: NCCL must address the peer through a GID the network routes, the RoCE v2 entry of the NIC's IPv4 address;
    a link-local fe80:: entry is not forwarded between subnets or switches (NCCL's own GID selection in
    src/transport/net_ib skips link-local GIDs: https://github.com/NVIDIA/nccl/issues/1538; "The fe80:: IPv6 address is
    probably the link-local address so it isn't properly routed and fails", https://github.com/NVIDIA/nccl/issues/769).
    Names which index is which; a forced NCCL_IB_GID_INDEX that points at a link-local or RoCE v1 entry is the cause."""
    rows = claims.gid_table(facts)
    failing = [e for e in facts.of(NcclEvent) if e.kind == "ib_transfer_error"] or [
        c for c in claims.known_errors(facts) if c.data["error"].id == "rdma_qp_connect"]
    if not rows or not failing:
        return
    routable = [r for r in rows if r["version"] == "v2" and r["ipv4"] and not r["link_local"]]
    good = sorted({r["index"] for r in routable})
    local = sorted({r["index"] for r in rows if r["link_local"]})
    ips = ", ".join(sorted({r["ipv4"] for r in routable}))
    table = (f"index {', '.join(map(str, good))} {'is' if len(good) == 1 else 'are'} the RoCE v2 GID of {ips}"
             if good else "no RoCE v2 GID carries an IPv4 address")
    fix = (f"Set NCCL_IB_GID_INDEX={good[0]} on every node (the same index must name the same kind of GID on each), "
           "or unset it and let NCCL pick the RoCE v2 IPv4 entry; then run `ib_write_bw -x <index>` between the two "
           "NICs." if good else "Give the RoCE NIC an IPv4 address on the fabric's subnet so a routable RoCE v2 GID "
           "exists, then set NCCL_IB_GID_INDEX to it or leave NCCL to choose it.")

    def row_ev(r):
        kind = "routable" if r in routable else "link-local" if r["link_local"] else "not routed (RoCE v1)"
        where_ = f"GID[{r['index']}]" + (f" of {r['device']}" if r["device"] else "")
        return ev(r["source"], where_, f"{r['gid']} RoCE {r['version']}", kind)

    forced = next((s for s in settings(facts, "NCCL_IB_GID_INDEX") if s.value.strip().isdigit()), None)
    bad = [r for r in rows if forced and r["index"] == int(forced.value) and (r["link_local"] or r["version"] != "v2")]
    if bad:
        r = bad[0]
        why = ("a link-local address is not routed between switches" if r["link_local"] else
               "RoCE v1 is not routed over IP")
        yield make("ticket.roce_gid", "other", "warning", 0.6,
                   f"NCCL_IB_GID_INDEX={forced.value} names a {'link-local' if r['link_local'] else 'RoCE v1'} GID",
                   f"The job forces GID index {forced.value}, which the pasted table shows as {r['gid']} (RoCE "
                   f"{r['version']}): {why}, so the NICs cannot connect; {table}.",
                   [ev(forced, f"NCCL_IB_GID_INDEX={forced.value}", forced.value), row_ev(r)]
                   + [row_ev(x) for x in routable[:1]], fix=fix, refs=["nccl_env"])
        return
    yield make("ticket.roce_gid", "other", "info", 0.3,
               f"The pasted GID table: {table}" + (f"; {', '.join(map(str, local))} link-local" if local else ""),
               "A RoCE connection fails here. NCCL has to address the peer through a GID the network routes, the "
               "RoCE v2 entry of the NIC's IPv4 address; link-local (fe80::) and RoCE v1 entries are not forwarded "
               "between subnets or switches.",
               [row_ev(x) for x in routable[:1] + [x for x in rows if x["link_local"]][:1]], fix=fix,
               refs=["nccl_env"])


@rule("ticket.tcp_only", "socket_fallback", "expected_physics")
def tcp_only(facts: Facts, predictions=None):
    """Nodes joined by Ethernet alone (no InfiniBand, RoCE or EFA), a job across them slow: NCCL's only inter-node
    transport there is its TCP socket one, a fraction of an RDMA fabric's bandwidth at many times its latency."""
    c = _first(facts, "tcp_only")
    if not c or c.guess or not _across_nodes(facts):
        return  # (a question, "would plain ethernet be the reason?", is a guess: claims marks it)
    present = [m for _, t in claims.texts(facts) for m in _RDMA_WORDS.finditer(t) if not claims.ruled_out(t, m)]
    if not _about_speed(facts) or present:
        return  # an RDMA fabric named as present: its use is what to check (ticket.net_socket, nccl.socket_fallback)
    at_line = _busbw_at_line_rate(facts)
    if at_line:
        # sockets are the only transport on this Ethernet and they carry what it gives: as nccl.busbw, it matches
        yield make("ticket.tcp_only", "expected_physics", "info", 0.55,
                   "Over Ethernet alone NCCL's TCP sockets reach the link's line rate: this is what it carries",
                   "Without an RDMA fabric (InfiniBand, RoCE, EFA) NCCL moves inter-node traffic through TCP sockets; "
                   f"the all-reduce busbw of {at_line[0]:g} GB/s is {at_line[0] / at_line[1]:.0%} of the "
                   f"{at_line[1]:g} GB/s the NIC's line rate gives, so the network is used at its speed. Only a faster "
                   "link or RDMA NICs raise it.",
                   [claim_ev(c, "the network between the nodes")] + at_line[2],
                   fix="Nothing is broken; keep tensor parallelism inside a node and only pipeline stages or replicas "
                   "across nodes, or add RDMA NICs (RoCE/InfiniBand) or a faster link.", refs=["nccl_env"])
        return
    yield make("ticket.tcp_only", "socket_fallback", "warning", weight(c, 0.5),
               "The nodes talk over Ethernet alone: NCCL runs its TCP socket transport between them",
               "Without an RDMA fabric (InfiniBand, RoCE, EFA) NCCL moves inter-node traffic through TCP sockets: the "
               "CPU copies every byte, the link gives a fraction of its line rate, and each message pays tens of "
               "microseconds; data-parallel gradients and above all tensor-parallel activations across nodes then "
               "wait on the network.",
               [claim_ev(c, "the network between the nodes")],
               fix="Keep tensor parallelism inside a node and only pipeline stages or replicas across nodes; for "
               "training across nodes use RDMA NICs (RoCE/InfiniBand) or expect the socket ceiling "
               "(all_reduce_perf across the two nodes shows it).", refs=["nccl_env", "vllm_parallel"])


@rule("ticket.pcie_words", "pcie_link_degraded")
def pcie_words(facts: Facts, predictions=None):
    """A PCIe link running below its capability (lspci's '(downgraded)', 'Gen1 instead of Gen4', 'stuck at
    x4'), quoted or said where no link state was parsed; a riser or narrow slot alone only when the
    ticket complains of speed, and weaker: how a card is attached is a prior, not an observation."""
    if [g for g in facts.of(GpuFact) if g.pcie_gen_current or g.pcie_width_current] or facts.of(PcieLinkFact):
        return  # the link states themselves: topology.pcie_link judges them
    about_speed = _about_speed(facts)
    c = _first(facts, "pcie_degraded")
    confidence = weight(c) if c else 0.0
    # (misfire35) read in the claim's whole sentence: its quote stops 50 characters after the figure, before "while
    # the server is under full load" or "when idle" that says when the link was read
    sentence = claims.sentence_of(facts, c) if c else ""
    if c and not (_FEWER_LANES.search(c.quote) or claims.said_busy(sentence)):
        # a lower speed alone is what an idle GPU's link does to save power (ASPM): weak, only for a speed complaint,
        # and none where the reporter says the GPU was idle when read
        idle = claims.said_idle(sentence)  # idle: its link generation drops to save power (Current Gen1 at idle)
        confidence = 0.45 if about_speed and not idle else 0.0
        if idle:
            yield passed("ticket.pcie_words", "A low PCIe generation read on an idle GPU is power saving",
                         "NVIDIA GPUs drop their PCIe link to Gen1 when idle and return to full speed under load; "
                         "only a reading under load (or fewer lanes than the card has) shows a degraded link.",
                         [claim_ev(c, "PCIe link read at idle")], 0.6)
            return
    if not c or c.guess or not confidence:
        c = _first(facts, "pcie_slot")
        if not c or c.guess or not about_speed or claims.said_working(facts, "pcie"):
            return  # (ruledout34) a slot or riser is a prior: the reporter's full-width link or ruling-out outweighs it
        confidence = 0.45
    said = claims.symptom_quote(facts)
    if layer_split_over_gpus(facts) and not claims.link_heavy_phase(c.quote, said[1] if said else "") \
            and not claims.tensor_split_said(facts):
        yield _layer_split_link(facts, c)  # (ut28b) the link does not set a layer split's decode pace
        return
    yield make("ticket.pcie_words", "pcie_link_degraded", "warning", confidence,
               "A GPU's PCIe link runs narrower or slower than the card can",
               "Every host-to-GPU copy, and every GPU-to-GPU transfer without NVLink, crosses the GPU's PCIe link: a "
               "link trained at Gen1/Gen2 or x4 (a riser, an adapter, a narrow or shared slot) gives a quarter or less "
               "of x16 Gen4, and a tensor-parallel all-reduce runs at the pace of the slowest link in the ring.",
               [claim_ev(c, "PCIe link")],
               fix="Check each GPU's link under load: `nvidia-smi --query-gpu=index,pcie.link.gen.current,"
               "pcie.link.width.current,pcie.link.gen.max,pcie.link.width.max --format=csv` and `lspci -vvv` (LnkSta "
               "against LnkCap); move the card to a CPU-attached x16 slot, replace the riser, or set the slot's "
               "generation in the BIOS.",
               refs=["nvidia_smi"])


# (ut28b) The slowest link a GPU trains at: one lane of PCIe Gen1, 2.5 GT/s with 8b/10b coding (PCI-SIG base
# specification; rules.topology.PCIE_LANE_GBS), the floor under any riser, adapter, chipset slot or eGPU tunnel.
SLOWEST_LINK_GBS = PCIE_LANE_GBS[1]
# A layer split hands the residual stream from GPU to GPU once per token at each boundary; llama.cpp keeps it in
# 32-bit floats (ggml's activations), the widest any engine uses, so hidden x 4 bytes bounds it from above.
HANDOVER_BYTES_PER_ELEM = 4


def _layer_split_link(facts: Facts, c: Claim):
    """A narrow or slow PCIe link said of a layer split whose complaint is its decode speed: each token crosses each
    GPU boundary once as one hidden-state vector (hidden x 4 bytes at most), microseconds even over one lane of Gen1,
    so the link does not set the pace (llama.cpp docs/multi-gpu.md: the layer split 'needs little inter-GPU
    bandwidth'); prompt processing and model loading, which move far more, are what a narrow link slows."""
    model, model_src = facts.subject.model, facts.subject.model_source
    boundaries = max((gpu_count(facts) or 2) - 1, 1)
    evidence = [claim_ev(c, "how the GPUs are attached")]
    summary = ("With the layers split over the GPUs (llama.cpp, Ollama, accelerate's device_map) a token crosses "
               "each GPU boundary once, as one hidden-state vector of a few kilobytes, so even one lane of PCIe Gen1 "
               "passes it in microseconds; a riser, an x1/x4 slot or an eGPU link slows the model's loading and its "
               "prompt processing, not the decode of a layer split.")
    if model is not None and model.hidden:
        kb = model.hidden * HANDOVER_BYTES_PER_ELEM / 1e3
        us = boundaries * kb * 1e3 / (SLOWEST_LINK_GBS * 1e9) * 1e6
        evidence += [ev(model_src or "catalog", f"hidden state handed over per token and GPU boundary ({model.key}: "
                        f"hidden {model.hidden} x {HANDOVER_BYTES_PER_ELEM} bytes)", expected=round(kb, 1), unit="KB"),
                     ev("PCIe base specification", "one lane of PCIe Gen1 (2.5 GT/s, 8b/10b), the slowest link a "
                        "GPU trains at", expected=SLOWEST_LINK_GBS, unit="GB/s"),
                     ev("rule:ticket.pcie_words", f"hand-over time per token over {boundaries} boundary(ies) at that "
                        "rate", expected=round(us), unit="us")]
        rates = [m for m in measurements(facts, "decode_tok_s") if m.value]
        if rates:
            m = min(rates, key=lambda r: r.value)
            evidence.append(ev(m, f"time per token at the measured {m.value:g} tok/s (share of it the hand-over "
                               f"takes: {us / (1e6 / m.value):.2%})", measured=round(1e3 / m.value, 1), unit="ms"))
    return passed("ticket.pcie_words", "A layer split's decode does not wait on the PCIe link", summary, evidence,
                  0.45)


def _aer_owner(n: Note, gpu_buses: set[str]) -> str | None:
    """Whose link an AER report is about: "gpu" (logged by the nvidia driver, or a bus id of a GPU the ticket lists),
    the driver's name for another device (nvme, mlx5_core, hpsa, ...), or None where only a root port logged it and
    no GPU bus id says what sits behind it."""
    if n.data.get("driver") == "nvidia" or {n.data.get("bus_id"), n.data.get("source_bus_id")} & gpu_buses:
        return "gpu"
    driver = n.data.get("driver")
    return driver if driver and driver != "pcieport" else None


def _aer_detail(n: Note) -> str:
    """An AER Note in words: severity, layer, error bits and the device that logged it; a recovery line's GPU."""
    if n.kind == "pcie_aer_recovery":
        return f"GPU {n.data.get('bus_id')} is below the port in the error's recovery"
    layer = f" ({n.data['layer']})" if n.data.get("layer") else ""
    bits = f": {', '.join(n.data['errors'])}" if n.data.get("errors") else ""
    who = f"{n.data.get('driver') or 'a device'} {n.data.get('bus_id') or ''}".rstrip()
    return f"AER {n.data.get('severity')} error{layer}{bits} logged by {who}"


# DCGM's health watch flags a PCIe link above 8 replays a minute, "the maximum recommended by RM" (the driver team):
# NVIDIA/DCGM dcgmlib/src/dcgm_gpu_hardware_limits.h, DCGM_LIMIT_MAX_PCIREPLAY_RATE.
REPLAYS_PER_MINUTE = 8


def _measured_replay_rate(g: GpuFact) -> float | None:
    """Replays a minute while `diagnose node` measured (the counter read before and after its PCIe traffic)."""
    if g.pcie_replay_counter is None or g.pcie_replay_counter_after is None or not g.pcie_replay_window_s:
        return None
    return max(0, g.pcie_replay_counter_after - g.pcie_replay_counter) / (g.pcie_replay_window_s / 60)


def _replays_beyond_limit(g: GpuFact, minutes: float | None) -> bool:
    """A counter kept since reset is a rate only over a known time: with the host's uptime (the longest the GPU can
    have been counting) the rate is at least count / uptime; without one, a count within a minute's allowance cannot
    be a link that keeps failing. A rollover (one packet replayed until REPLAY_NUM wrapped) always counts, and so
    does a climb while the node was measured faster than DCGM's rate."""
    if g.pcie_replay_rollovers or (_measured_replay_rate(g) or 0) > REPLAYS_PER_MINUTE:
        return True
    count = g.pcie_replay_counter or 0
    return count / minutes > REPLAYS_PER_MINUTE if minutes else count > REPLAYS_PER_MINUTE


def _replay_evidence(g: GpuFact, uptime) -> list[Evidence]:
    """The count against DCGM's rate: as a rate over the host's uptime where it is known, else as a bare count; and
    the climb while the node was measured, where it was read twice."""
    detail = (f"{gpu_label(g)} PCIe replays since reset (nvidia-smi -q; {g.pcie_replay_rollovers or 0} replay number "
              "rollovers)")
    if uptime and uptime.value:
        out = [ev(g, f"{detail}: {g.pcie_replay_counter or 0} over at most the host's uptime of "
                     f"{uptime.value / 60:.0f} min ({uptime.source}), against DCGM's limit",
                  round((g.pcie_replay_counter or 0) / (uptime.value / 60), 3), REPLAYS_PER_MINUTE, "replays/min")]
    else:
        out = [ev(g, f"{detail}, with no time base: compared with DCGM's limit for one minute", g.pcie_replay_counter,
                  REPLAYS_PER_MINUTE, "replays")]
    rate = _measured_replay_rate(g)
    if rate is not None:
        out.append(ev(g, f"{gpu_label(g)} PCIe replays while diagnose node measured: {g.pcie_replay_counter} -> "
                         f"{g.pcie_replay_counter_after} in {g.pcie_replay_window_s:g} s (its host copies and "
                         "collectives the load), against DCGM's limit", round(rate, 3), REPLAYS_PER_MINUTE,
                      "replays/min"))
    return out


@rule("ticket.pcie_errors", "pcie_link_degraded")
def pcie_errors(facts: Facts, predictions=None):
    """Errors on a GPU's PCIe link: the kernel's AER reports (corrected receiver, bad-TLP/DLLP and replay errors are
    the link retransmitting what arrived damaged; uncorrected ones lose it), nvidia-smi's replay counter above zero,
    or the reporter's words (AER errors, a climbing replay counter, stable only when forced to a lower generation).
    A report a NIC's or drive's driver logged is not the GPU's (and a root port's beside it is most likely that
    device's link); a root port's alone, without a GPU bus id, stays a lead."""
    gpu_buses = {g.bus_id for g in facts.of(GpuFact) if g.bus_id}
    aer = [n for n in facts.of(Note) if n.kind == "pcie_aer"]
    owners = [(_aer_owner(n, gpu_buses), n) for n in aer]
    # an uncorrected error's recovery reaches every device below the reporting port: a GPU among them was on it
    recovered = [n for n in facts.of(Note) if n.kind == "pcie_aer_recovery"
                 and (n.data.get("driver") == "nvidia" or n.data.get("bus_id") in gpu_buses)]
    on_gpu = [n for who, n in owners if who == "gpu"] + recovered
    unknown = [n for who, n in owners if who is None]
    others = sorted({who for who, _ in owners if who not in ("gpu", None)})
    uptime = facts.host("uptime_s")
    minutes = uptime.value / 60 if uptime and uptime.value else None
    counted = [g for g in facts.of(GpuFact) if g.pcie_replay_counter or g.pcie_replay_rollovers
               or (_measured_replay_rate(g) or 0) > 0]
    replays = [g for g in counted if _replays_beyond_limit(g, minutes)]
    c = None if aer else _first(facts, "pcie_errors")  # parsed reports: they, not the words quoting them, decide
    fix = ("Watch the counters under load: `nvidia-smi -q -d PCIE` (Replays Since Reset, Replay Number Rollovers) and "
           "`sudo lspci -vvv -s <GPU bus id>` (LnkSta against LnkCap, and the AER status bits); reseat the card, "
           "replace the riser or extension cable, and force the slot to a lower generation in the BIOS (Gen4 or Gen3 "
           "instead of Auto): a link that is clean there had a signal-integrity problem at the higher rate.")
    summary = ("PCIe corrects a damaged packet by replaying it (receiver errors, bad TLPs/DLLPs, replay timeouts are "
               "each a retransmission); many of them cut the link's bandwidth, and a link that keeps failing retrains "
               "down to a lower generation or width or drops the GPU off the bus, which under tensor-parallel "
               "traffic shows as slow collectives, hangs or a frozen host.")
    if on_gpu or replays or (unknown and not others):
        evidence = [ev(n, _aer_detail(n)) for n in (on_gpu + unknown)[:4]]
        evidence += [e for g in replays[:4] for e in _replay_evidence(g, uptime)]
        if on_gpu or replays:
            title = "A GPU's PCIe link reports errors: the link retransmits damaged packets"
            # a counter read once says nothing of when it counted (since the last reset, possibly long ago): weaker
            confidence = 0.7 if on_gpu else 0.6
        else:
            title = "A PCIe root port reports link errors; which device sits behind it is not shown"
            summary += (" Only the root port logged these, and no GPU bus id in the ticket names the device below "
                        "it: match the port's bus id against `nvidia-smi --query-gpu=pci.bus_id --format=csv` and "
                        "`lspci -tv` before blaming the GPU.")
            confidence = 0.5
        yield make("ticket.pcie_errors", "pcie_link_degraded", "warning", confidence, title, summary, evidence,
                   fix=fix, refs=["nvidia_smi"])
        return
    if counted and not c:
        yield passed("ticket.pcie_errors", "The GPUs' PCIe replay counters are within DCGM's limit",
                     "A replay is one packet the link sent again; DCGM flags a link above "
                     f"{REPLAYS_PER_MINUTE} replays a minute, and these counts (kept since the GPU's last reset) stay "
                     "under that: too few to cost the link bandwidth. Read them again under load "
                     "(`nvidia-smi -q -d PCIE`) if they seem to climb.",
                     [e for g in counted[:4] for e in _replay_evidence(g, uptime)], 0.6)
        return
    if others:
        n = next(n for who, n in owners if who in others)
        yield passed("ticket.pcie_errors", f"The PCIe errors logged are on another device's link ({', '.join(others)})",
                     "The AER reports come from a device that is not a GPU (its driver names it); they say nothing "
                     "about the GPUs' links.", [ev(n, _aer_detail(n))], 0.6)
        return
    if c and c.negated:  # (a zero counter alone passes nothing: a healthy link under a ticket it does not explain)
        yield passed("ticket.pcie_errors", "The reporter rules PCIe link errors out",
                     "A kernel log without AER reports or a zero replay counter: the GPUs' links carry their packets "
                     "without retransmission.", [claim_ev(c, "PCIe errors ruled out")], 0.6)
        return
    if not c or c.guess:
        return
    yield make("ticket.pcie_errors", "pcie_link_degraded", "warning", weight(c),
               "The reporter describes PCIe link errors on the GPUs",
               summary + " The reporter says so, but no kernel log or nvidia-smi counter is attached to say which "
               "GPU's link.", [claim_ev(c, "PCIe link errors")], fix=fix, refs=["nvidia_smi"])


@rule("ticket.pcie_redirect", "p2p_disabled")
def pcie_redirect(facts: Facts, predictions=None):
    """PCIe ACS redirect or a translating IOMMU quoted or said on bare metal, with GPUs talking over PCIe: peer
    requests go up to the root complex (NCCL troubleshooting, "PCI Access Control Services", "IO virtualization"),
    so P2P hangs or crawls."""
    c = _first(facts, "pcie_redirect")
    parsed = facts.host("acs_enabled_bridges") or facts.host("iommu") or \
        [link for link in facts.of(PcieLinkFact) if link.acs_redirect_enabled is not None]
    if not c or c.guess or is_virtualized(facts) or has_nvlink(facts) or parsed:
        return  # a guest's belongs to the hypervisor; parsed lspci or IOMMU state: host.iommu_acs reads it
    said = claims.symptom_quote(facts)
    if not said or said[2] not in ACS_SYMPTOMS:
        return
    # (tried39) P2P switched off and the job failed the same way: ACS redirect, which only breaks peer traffic, is not
    # what fails; a lead below the line (as ticket.hang_on_pcie weighs the same words)
    # (tried40) and the same where ACS or the IOMMU was switched off (ACS disabled, iommu=pt, VT-d off) to no effect
    tried = claims.tried_without_effect(facts, "p2p", "acs")
    yield make("ticket.pcie_redirect", "p2p_disabled", "info" if tried else "warning",
               0.25 if tried else weight(c, 0.55),
               "ACS or the IOMMU redirects the GPUs' peer traffic through the root complex",
               "With Access Control Services redirect enabled on the PCIe bridges, or the IOMMU translating DMA, every "
               "peer-to-peer request between GPUs is sent up to the CPU's root complex instead of across the switch: "
               "NCCL's P2P transport then hangs or runs far below the link rate, while each GPU alone is fine.",
               [claim_ev(c, "ACS / IOMMU on the PCIe path")]
               + [claim_ev(t, "P2P switched off, and the failure stayed") for t in tried[:1]],
               fix="Disable ACS on bare metal (BIOS 'ACS' / 'PCIe ACS control', or `setpci` on the bridges as NCCL's "
               "troubleshooting guide shows) and boot with iommu=pt (or the IOMMU off); check that `sudo lspci -vvv | "
               "grep ACSCtl` shows SrcValid-, then rerun all_reduce_perf.", refs=["nccl_acs"])


@rule("ticket.one_gpu_link", "pcie_link_degraded", "nvlink_down")
def one_gpu_link(facts: Facts, predictions=None):
    """One GPU slow to every peer while the other pairs are fine: what all its transfers share is its own link,
    PCIe (a slot, riser or lane count) or, on an NVLink board, its NVLinks; the fabric itself is fine."""
    found = [c for c in claims.one_gpu_slow_to_all(facts) if not c.guess]
    if not found or [g for g in facts.of(GpuFact) if g.pcie_gen_current or g.pcie_width_current]:
        return  # parsed link states: topology.pcie_link judges them
    c = found[0]
    gpu = c.data["gpu"]
    if has_nvlink(facts):
        yield make("ticket.one_gpu_link", "nvlink_down", "warning", weight(c, 0.5),
                   f"GPU{gpu} is slow to every peer: its own NVLinks are the suspect",
                   "Every pair that includes this GPU is slow and the others are not, so the fault sits on what only "
                   "its transfers share: its NVLinks (a link down or degraded, a bridge not seated) rather than the "
                   "fabric or the software.",
                   [claim_ev(c, "one GPU slow to all its peers")],
                   fix=f"`nvidia-smi nvlink -s -i {gpu}` and `nvidia-smi nvlink -e -i {gpu}` (link state and error "
                   "counters), then reseat or service the board.", refs=["nvidia_smi"])
        return
    yield make("ticket.one_gpu_link", "pcie_link_degraded", "warning", weight(c, 0.5),
               f"GPU{gpu} is slow to every peer: its own PCIe link is the suspect",
               "Every pair that includes this GPU is slow and the others are not, so the fault sits on what only its "
               "transfers share: its PCIe link (trained at a lower generation or width, a riser, a chipset slot), not "
               "the CPU, the switch or NCCL.",
               [claim_ev(c, "one GPU slow to all its peers")],
               fix=f"Compare GPU{gpu}'s `nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current,"
               "pcie.link.gen.max,pcie.link.width.max --format=csv` under load with the others', and its `lspci -vvv` "
               "LnkSta against LnkCap; move it to a CPU-attached x16 slot or replace the riser.",
               refs=["nvidia_smi"])


# What a link's power saving cannot explain: fewer lanes than the card has, or a low speed seen under load
# (claims.said_busy).
_FEWER_LANES = re.compile(r"Width x\d+\s*\(downgraded\)|(?<![\w.])x(?:1|2|4|8)\b(?!\d)", re.I)


@rule("ticket.numa_words", "numa_affinity")
def numa_words(facts: Facts, predictions=None):
    """The reporter finds the ranks' CPU work on the wrong socket (cross-NUMA, remote memory) or sees CPU
    binding change the speed: each rank's launches, host copies and NCCL proxy thread belong on its GPU's
    NUMA node."""
    c = _first(facts, "numa_words")
    said = claims.symptom_quote(facts)
    if not said or said[2] in FAILURES:
        return
    unbound, sockets = _first(facts, "no_cpu_binding"), _first(facts, "multi_socket")
    if c and not sockets and claims.NO_NUMA_NODE.search(c.quote):
        c = None  # numa_node -1 on a single-socket host: the one node there is, nothing to bind across
    if (not c or c.guess) and not (unbound and sockets and said[2] in ("slow", "scaling")):
        return
    evidence = [claim_ev(c, "CPU / NUMA placement")] if c and not c.guess else \
        [claim_ev(sockets, "several CPU sockets"), claim_ev(unbound, "the processes are not bound to CPUs")]
    if c and c.data.get("origin") == "figures":  # (claims.binding_ab) the bound run's rate against the unbound one's
        evidence.append(ev(c, "the rate bound to one NUMA node (expected: the unbound run's)", c.data["bound"],
                           c.data["unbound"], c.data["unit"]))
    yield make("ticket.numa_words", "numa_affinity", "warning", weight(c) if c and not c.guess else 0.45,
               "The ranks' CPU work runs on the other socket from their GPUs",
               "A rank whose threads and pinned buffers sit on the far socket sends every launch, host copy and "
               "NCCL proxy step across the inter-socket link; binding each rank to its GPU's NUMA node removes it."
               + ("" if c and not c.guess else " Here the host has several sockets and nothing binds the workers."),
               evidence,
               fix="Bind each rank to its GPU's NUMA node (`numactl --cpunodebind=N --membind=N`, the launcher's or "
               "engine's NUMA-binding option) using the CPU/NUMA Affinity columns of `nvidia-smi topo -m`.",
               refs=["numa", "nccl_env"])


_RELEASE_PATHS = {"nccl_upgrade": "nccl_release", "driver_change": "driver_release"}  # claims.REMEDIES' paths
_MOVED_BACK = re.compile(r"\bdowngrad\w*|\broll\w*\s?back\b|\brevert\w*|\bwent\s+back\b|"
                         r"\b(?:old(?:er)?|previous)\s+(?:\w+\s+)?(?:driver|NCCL|release|version)s?\b", re.I)


def _release_change(facts: Facts, kind: str) -> Claim | None:
    """The reporter's claim of a release change of its kind, unless a move forward is what cured it ("upgrading NCCL
    fixed it", "updating the driver fixed it": the new release is the cure, not the cause); moving back that cured it
    ("downgrading ... fixed it") stays."""
    c = _first(facts, kind)
    if any(_MOVED_BACK.search(t.quote) for t in claims.tried_without_effect(facts, _RELEASE_PATHS[kind])):
        return None  # (tried40) "downgrading NCCL made no difference, it still hangs": back on the release before,
        # the failure stayed, so the change of release is not its cause (a later release that still fails may carry
        # the same regression: only a move back rules it out)
    if c and c.data.get("how") and not c.guess:  # (s24) the releases read say which one works: they decide
        return None if c.data["how"] == "forward" else c
    if not c or c.guess or (claims.fixed_by(c.quote)
                            and not re.search(r"downgrad|roll\w*\s*back|revert|go\w* back", c.quote, re.I)
                            and not _FIX_OF_REGRESSION.search(c.quote)):
        return None
    return c


# (ut29h) "Fix nccl regression on PyTorch 2.3 upgrade" (huggingface/text-generation-inference#2099): the fix acts on a
# regression of the component, which is then the cause; not a move forward that cured it ("upgrading NCCL fixed the
# hang", "the NCCL update fixes the regression": an upgrade word before the fix in the clause is the cure), nor a fix
# of a hang or error (a setting that "fixed the NCCL hang" names no release)
_FIX_OF_REGRESSION = re.compile(r"(?:^|[.;!?]\s)(?:(?!\b(?:upgrad|updat|bump|newer|latest)\w*)[^.;\n])*?"
                                r"\bfix(?:es|ed|ing)?\s+(?:the\s+|an?\s+|this\s+|that\s+)?(?:NCCL|driver|CUDA|torch|PyTorch)\s+"
                                r"regressions?\b", re.I | re.M)


@rule("ticket.nccl_upgrade", "nccl_regression")
def nccl_upgrade(facts: Facts, predictions=None):
    """The behaviour changed with an NCCL upgrade (or a downgrade restored it), said without two version
    numbers to compare (nccl.regression reads those)."""
    if claims.find(facts, "nccl_versions_compared"):
        return
    c = _release_change(facts, "nccl_upgrade")
    if not c:
        return
    yield _on_claim("ticket.nccl_upgrade", "nccl_regression", "warning", c, "NCCL release change",
               "The problem came with a change of NCCL release",
               "When only the NCCL release changed, its defaults (algorithms, protocols, transports, memory "
               "registration) or a defect in it changed the behaviour; the hardware did not.",
               fix="Pin the previous NCCL release as a workaround; run all_reduce_perf with NCCL_DEBUG=INFO "
               "NCCL_DEBUG_SUBSYS=INIT,TUNING on both releases, diff the chosen algorithm, protocol and transport, and "
               "report it upstream with both logs.",
               refs=["nccl_releases", "nccl_env"])


@rule("ticket.driver_change", "nccl_regression")
def driver_change(facts: Facts, predictions=None):
    """The behaviour changed with a GPU driver release (or moving back to the old one cured it), said in words: the
    driver carries the CUDA driver API, P2P and memory mapping that NCCL and the engine build on. Silent beside a
    known error message, which names the failure itself ('Driver / library version mismatch' after an update: the
    running kernel module is the old one, fixed by a reboot, not a regression)."""
    c = _release_change(facts, "driver_change")
    if not c or claims.known_errors(facts):
        return
    versions, good = c.data.get("versions") or [], c.data.get("good")
    newest = max(versions, key=claims.version_key) if versions else None
    if good and len(versions) >= 2 and good == newest and c.data.get("how") != "back":
        return  # (s24) the newer driver is the one that works: the older one had the fault, the move is the cure
    others = [v for v in versions if v != good]
    if good and others:
        title = f"The problem came with the GPU driver change from {good} (works) to {', '.join(others)}"
    elif good and c.data.get("how") == "bound":
        title = f"The problem came with the GPU driver releases after {good} ({good} works)"
    elif good:
        title = f"The problem came with a change of GPU driver release ({good} works)"
    elif versions:
        title = f"The problem came with a change of GPU driver release ({' / '.join(versions)})"
    else:
        title = "The problem came with a change of GPU driver release"
    previous = f"driver {good}" if good else "the previous driver release"
    # (s24) releases read from prose with none said to work ("I just upgraded my drivers to 545.29.02 and it has
    # broken TP", vllm-project/vllm#1801) date the failure but compare nothing: a lead below the symptom's own rules
    # (a P2P path the new driver breaks), where an A/B or a cure on going back is the reporter's own comparison
    observed = 0.45 if versions and not good and "worded" not in c.data else OBSERVED
    summary = ("When only the driver release changed, its CUDA driver, peer-to-peer and memory-mapping code "
               "changed under NCCL and the engine; the hardware did not.")
    fix = (f"Run {previous} as a workaround; run all_reduce_perf (nccl-tests) and the same benchmark "
           "under both drivers with NCCL_DEBUG=INFO, and report it to NVIDIA with both runs.")
    board = nvswitch_by_catalog(facts)
    if board:
        # (ut26b) an NVSwitch board (HGX/DGX, p4d/p5) needs nvidia-fabricmanager of exactly the driver's release (NVIDIA
        # Fabric Manager user guide); a driver moved without it leaves the service failed and the collectives hung:
        # "fabric-manager was not running ... driver interface version 550.90.07 don't match with driver version
        # 550.54.15", https://github.com/pytorch/pytorch/issues/129749
        summary += (" These GPUs sit on an NVSwitch board, where the driver only brings up NVLink once "
                    "nvidia-fabricmanager of the same release has trained the fabric: a driver changed without its "
                    "fabric manager leaves the service failed and NCCL hung or failing at init.")
        fix = ("First check `systemctl status nvidia-fabricmanager` and `nvidia-smi -q | grep -A2 -i fabric` "
               "(State: Completed) under the new driver, and install the fabric manager package of exactly the "
               "driver's release if it failed; otherwise " + fix[0].lower() + fix[1:])
    yield _on_claim("ticket.driver_change", "nccl_regression", "warning", c, "GPU driver release change", title,
                    summary, fix=fix, refs=["nccl_releases"] + (["fabric_manager"] if board else []),
                    observed=observed, extra=board[:1])


@rule("ticket.clock_scope", "throttling")
def clock_scope(facts: Facts, predictions=None):
    """Step times that jump between two levels, above all when it reproduces on one GPU without the
    engine: a GPU switching between clock or power states (P-state, power brake, thermal cycling), not a
    steady bottleneck and nothing between GPUs."""
    c = _first(facts, "bimodal")
    said = claims.symptom_quote(facts)
    if not c or c.guess or not said or said[2] in FAILURES or _first(facts, "clock_power"):
        return  # clocks named outright: ticket.clock_power says it
    alone = _first(facts, "single_gpu_repro")
    evidence = [claim_ev(c, "step times at two levels")] + ([claim_ev(alone, "reproduces on one GPU")] if alone else [])
    yield make("ticket.clock_scope", "throttling", "warning", 0.55 if alone else 0.45,
               "Step times jump between two levels: the GPU is switching clock or power states",
               "A steady bottleneck (memory bandwidth, a link, the host) gives steady step times; two distinct levels "
               "mean the GPU runs part of the time at lower clocks (power brake, power cap, thermal slowdown, a "
               "P-state change)" + (", and reproducing on one GPU without the engine rules out anything between GPUs."
                                   if alone else "."),
               evidence,
               fix="Log `nvidia-smi --query-gpu=index,clocks.sm,power.draw,power.limit,temperature.gpu,"
               "clocks_event_reasons.active --format=csv -l 1` during the run and match the slow steps to the clocks "
               "and the active reasons.",
               refs=["throttle", "nvidia_smi"])


@rule("ticket.vm_pcie_slow", "virtualization_no_p2p")
def vm_pcie_slow(facts: Facts, predictions=None):
    """Several GPUs without NVLink inside a virtual machine, and the job is slow: the hypervisor keeps ACS
    on and shows the guest a flat topology, so peer-to-peer is refused or routed through the host (NCCL
    troubleshooting guide, 'Virtual machines'). A lead until P2P status or the NCCL log shows it."""
    said = claims.symptom_quote(facts)
    if not said or said[2] not in ("slow", "scaling") or has_nvlink(facts) or _across_nodes(facts):
        return
    virt = [c for c in claims.find(facts, "virtualized") if not c.guess]
    if not virt or (_gpus(facts) or 0) < 2:
        return
    yield make("ticket.vm_pcie_slow", "virtualization_no_p2p", "warning", 0.45,
               "Several PCIe GPUs in a VM: peer-to-peer between them is likely refused or routed through the host",
               "Inside a virtual machine the hypervisor keeps PCIe ACS on for isolation and shows the guest a flat "
               "topology, so GPU peer traffic either is refused (NCCL then stages it through host memory) or crosses "
               "the root complex; multi-GPU work is then slower than the same GPUs on bare metal.",
               [claim_ev(virt[0], "runs in a virtual machine"), ev(said[0], f'the symptom: "{said[1]}"')],
               fix="Attach `nvidia-smi topo -p2p r` and the NCCL_DEBUG=INFO log from the guest (look for 'via SHM' "
               "instead of 'via P2P'); on the host pass the GPUs through with ACS redirect off and give the guest the "
               "real topology (NCCL_TOPO_FILE), or compare with the same GPUs on bare metal.",
               refs=["nccl_acs", "nccl_trouble"])


# --------------------------------------------------------------------------- host starvation, clock state (issue 11 f)


@rule("ticket.input_starved", "host_bound")
def input_starved(facts: Facts, predictions=None):
    """The GPU runs out of work between steps: the input pipeline cannot keep up (data loading, decoding,
    augmentation on the CPU), or the utilisation swings between busy and idle. NVML's utilisation is the share
    of time a kernel runs, and NCCL's kernels spin while they wait, so idle stretches are the host's, not a
    link's."""
    starved, swings = _first(facts, "input_starved"), _first(facts, "util_swings")
    said = [c for c in (starved, swings) if c and not c.guess]
    if not said or _first(facts, "launch_overhead") or _cpu_only(facts):
        return  # launch gaps are the host too, said more precisely by ticket.launch_overhead
    c = said[0]
    both = len(said) == 2
    yield make("ticket.input_starved", "host_bound", "warning", weight(c, 0.6 if starved in said else 0.5) +
               (0.05 if both else 0.0),
               "The GPUs wait for input: the host does not feed them fast enough",
               "A GPU whose utilisation drops to idle and back, or that pauses every few batches, has stretches with "
               "no kernel queued: the steps themselves are steady, so the gaps come from the host (data loading and "
               "decoding on too few CPU workers, slow storage, preprocessing or tokenization in the serving "
               "process). A collective that waits still shows the GPU busy, since NCCL's kernels spin.",
               [claim_ev(x, "what the reporter sees") for x in said],
               fix="Time the input alone (iterate the data loader without the model) and compare with the step time; "
               "raise DataLoader num_workers (up to the cores per GPU), use pin_memory and prefetch, move decoding "
               "and augmentation to the GPU (DALI) or to preprocessed shards on fast local storage, and profile "
               "with `py-spy` or the PyTorch profiler to find the host stage that stalls.",
               refs=["cuda_graphs"])


STRUCTURED_OUTPUTS_DOCS = ["https://docs.vllm.ai/en/latest/features/structured_outputs.html",
                           "https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md",
                           "https://docs.sglang.ai/advanced_features/structured_outputs.html"]


@rule("ticket.constrained_decoding", "host_bound")
def constrained_decoding(facts: Facts, predictions=None):
    """A slowdown the reporter ties to constrained decoding (a grammar, a JSON schema or JSON mode, guided or structured
    output): the engine builds each step's allowed-token mask on the CPU (llama.cpp's GBNF sampler, Outlines' and
    XGrammar's automata in vLLM and SGLang), and the GPU waits for it, so the rate stops following the GPU."""
    c = _first(facts, "constrained_slow")
    if not c or c.guess or _cpu_only(facts) or claims.symptom(facts) in FAILURES:
        return  # "could the grammar slow it?" is a question; an engine on the CPU has no GPU to wait; (review36) a
        # CUDA or NCCL error beside the slowdown is that failure's
    yield make("ticket.constrained_decoding", "host_bound", "warning", weight(c, 0.6),
               "Constrained decoding costs host time every token: the GPU waits for the grammar's mask",
               "With a grammar, JSON schema or guided output, every decode step also computes which tokens the "
               "constraint allows, on the CPU (llama.cpp's GBNF sampler; the Outlines and XGrammar automata behind "
               "vLLM's and SGLang's structured outputs), and applies that mask before sampling. While it runs the GPU "
               "has nothing queued, so the rate falls by the mask's cost per token, grows with the schema and the "
               "batch, and a faster GPU gains nothing.",
               [claim_ev(c, "what the reporter ties the slowdown to")],
               fix="Time the same requests with and without the constraint to size its cost. Prefer a compiled "
               "grammar backend (vLLM and SGLang: XGrammar), keep the schema small and reuse it so its compiled form "
               "is cached, and in llama.cpp, where the GBNF sampler runs on the CPU each token, a simpler grammar or "
               "validating the output afterwards.",
               refs=STRUCTURED_OUTPUTS_DOCS)


@rule("ticket.sampler_options", "host_bound")
def sampler_options(facts: Facts, predictions=None):
    """A slowdown the reporter ties to a sampling option that makes the sampler scan the whole vocabulary each token
    (repetition, presence or frequency penalties, top-k switched off, no-repeat n-grams, returned logprobs): that work
    runs outside the forward pass, on the CPU (llama.cpp's sampler chain) or in Python (transformers' logits
    processors), and the GPU waits for it."""
    c = _first(facts, "sampler_option_slow")
    if not c or c.guess or _cpu_only(facts) or claims.symptom(facts) in FAILURES:
        return  # a question, a run on the CPU alone, or a failure beside it
    if _first(facts, "constrained_slow"):
        return  # a grammar or schema named as well: ticket.constrained_decoding names the costlier host stage
    yield make("ticket.sampler_options", "host_bound", "warning", weight(c, 0.6),
               "A sampling option costs host time every token: the GPU waits for the sampler",
               "Penalties, top-k switched off, no-repeat n-grams and returned logprobs make the sampler work over the "
               "whole vocabulary after every forward pass: llama.cpp's sampler chain runs it on the CPU, transformers' "
               "logits processors in Python. Meanwhile the GPU has nothing queued, so the rate drops by that time per "
               "token and a faster GPU gains nothing.",
               [claim_ev(c, "what the reporter ties the slowdown to")],
               fix="Time the same prompt with and without the option; keep top-k on (e.g. 40) so later samplers see a "
               "short list, order the culling samplers first (llama.cpp --samplers), bound the penalty window "
               "(--repeat-last-n), and ask for logprobs only when needed.",
               refs=["https://github.com/ggml-org/llama.cpp/blob/master/tools/main/README.md",
                     "https://huggingface.co/docs/transformers/main/en/internal/generation_utils"])


def _decode_after(facts: Facts, sample) -> list:
    """The decode rate of the timing block a sampler line belongs to: the first decode_tok_s measured after it in the
    same file, within the block's few lines (llama.cpp prints load, sample, prompt eval, eval, total)."""
    line = claims.line_number(sample.source)
    if not line:
        return []
    file = sample.source.rpartition(":")[0]
    later = [(n, m) for m in measurements(facts, "decode_tok_s")
             if m.source.rpartition(":")[0] == file and 0 < (n := claims.line_number(m.source)) - line <= 4]
    return [m for _, m in sorted(later, key=lambda p: p[0])[:1]]


# (hostbound36) The sampler's time per token at or above the forward pass's: at least half of every token is the CPU's;
# a mean over fewer runs than SAMPLING_RUNS is one call's time, no per-token figure (llama.cpp's speculative example
# prints its draft's "sample time = 524.95 ms / 1 runs" beside 216 eval runs, ggml-org/llama.cpp#3649)
SAMPLING_SHARE = 1.0
SAMPLING_RUNS = 8


@rule("ticket.sampling_bound", "host_bound")
def sampling_bound(facts: Facts, predictions=None):
    """llama.cpp's timings put the sampler's time per token at or above the forward pass's (SAMPLING_SHARE): the sampler
    chain runs on the CPU after each step, so at least half of every token waits on the host; a grammar, top-k 0 (the
    whole vocabulary sorted) or long penalty windows are the usual causes."""
    pairs = [(s, d) for s in measurements(facts, "sample_ms") if (s.count or 0) >= SAMPLING_RUNS
             for d in _decode_after(facts, s)]
    found = [(s, d) for s, d in pairs if s.value >= SAMPLING_SHARE * 1000.0 / d.value]
    if not found or _cpu_only(facts):
        return
    c, rate = max(found, key=lambda p: p[0].value * p[1].value)
    sample, step = c.value, round(1000.0 / rate.value, 2)
    # (review38) beside a failure (a CUDA out-of-memory, a crash, a hang) the sampler's share of a token is a lead
    # below it: a slow sampler delays every token, it stops none
    failed = claims.symptom(facts) in FAILURES or bool(claims.known_errors(facts))
    yield make("ticket.sampling_bound", "host_bound", "info" if failed else "warning", 0.4 if failed else 0.65,
               f"Sampling takes {sample:g} ms a token against the forward pass's {step:g} ms: the CPU sets the pace",
               "llama.cpp samples each token on the CPU after the forward pass (its timing block reports the sampler "
               "apart from the eval time), so the sampler's time adds to every token's and the GPU waits meanwhile. "
               "At or above the forward pass's time it is at least half of the step.",
               [ev(c, "sampler time per token (llama.cpp timings), against the forward pass's (its eval line's "
                   f"{rate.value:g} tok/s)", sample, step, "ms/token")],
               fix="Find what makes sampling slow: a grammar or JSON schema (simplify it, or validate the output "
               "afterwards), top-k 0 or a very large top-k (the whole vocabulary sorted each token), long repetition-"
               "penalty windows; compare the same prompt without them and watch 'sample time' fall.",
               refs=STRUCTURED_OUTPUTS_DOCS[1:2])


@rule("ticket.gpu_heat", "throttling")
def gpu_heat(facts: Facts, predictions=None):
    """The reporter gives a GPU temperature at its thermal limit beside a slowdown: the clocks come down as
    the GPU reaches its boost target or slowdown temperature (nvidia-smi -q 'GPU Target Temperature',
    'GPU Slowdown Temp')."""
    hot = [c for c in claims.find(facts, "gpu_temp") if c.data["hot"] and not c.guess]
    if not hot or _first(facts, "clock_power") or _health_judges(facts):
        return  # clock state named, or read from nvidia-smi -q: ticket.clock_power / health.throttling say it
    why = _first(facts, "slowdown_over_time") or _first(facts, "one_slow") or claims.complaint(facts)
    if not why:
        return
    c = max(hot, key=lambda x: x.data["celsius"])
    yield make("ticket.gpu_heat", "throttling", "warning", 0.55,
               f"The GPU runs at {c.data['celsius']:g} C, at its thermal limit: its clocks come down",
               f"GeForce boards hold about {claims.HOT_C} C as their boost target and data-centre boards slow down "
               "near 85-92 C; at that point the driver lowers the clocks to hold the temperature, so the same work "
               "takes longer, and in a multi-GPU job the hottest GPU sets everyone's pace.",
               [claim_ev(c, "GPU temperature"), claim_ev(why, "the slowdown")],
               fix="Log `nvidia-smi --query-gpu=index,temperature.gpu,clocks.sm,clocks_event_reasons.active "
               "--format=csv -l 5` during the run; improve airflow (fan curve, case, slot spacing, dust) or cap "
               "power (`nvidia-smi -pl`) to a sustainable level.",
               refs=["throttle", "nvidia_smi"])


@rule("ticket.idle_clocks", "throttling")
def idle_clocks(facts: Facts, predictions=None):
    """Slower when the calls come with gaps between them: an idle GPU drops to a low-power P-state and the
    first kernels after the gap run at low clocks until the driver raises them again."""
    c = _first(facts, "idle_gap_slow")
    if not c or c.guess or _first(facts, "first_calls_slow"):
        return  # the first calls of a run only: connection set-up and warm-up (ticket.explained)
    yield make("ticket.idle_clocks", "throttling", "warning", weight(c, 0.5),
               "Requests after an idle gap run at low clocks",
               "With no work queued the driver lowers an idle GPU to a power-saving P-state (laptops and desktop "
               "boards most eagerly); the next kernels start at low clocks and the clock ramp takes longer than a "
               "short inference, so sparse calls are slower than back-to-back ones.",
               [claim_ev(c, "slower with gaps between calls")],
               fix="Enable persistence mode (`nvidia-smi -pm 1`), lock the clocks for the service "
               "(`nvidia-smi --lock-gpu-clocks=<min>,<max>`), on Windows set the power management mode to 'Prefer "
               "maximum performance', or keep the GPU warm with a small periodic request.",
               refs=["throttle", "nvidia_smi"])


@rule("ticket.power_limit", "throttling")
def power_limit(facts: Facts, predictions=None):
    """The reporter gives a power limit well below the board's rated power (nvidia-smi -pl, Power Limit): the clocks
    are held down whenever the work would draw more. A lowered limit alone does not prove it binds (memory-bound
    decode may draw less), so it stays a lead below an active SW Power Cap seen under load."""
    if _health_judges(facts):
        return  # nvidia-smi -q shows the limit and the reasons: health.throttling judges them
    c = _first(facts, "power_limit")
    if not c or c.guess or not _about_speed(facts):
        return
    stated = c.data.get("reference") == "stated"  # the reporter's own "default 350 W", no catalog GPU to read
    board = "the board's stated default" if stated else f"{facts.subject.gpu.name}'s rated"
    reference = (ev(c.cited, f'the board\'s power as the reporter states it: "{c.quote}"', c.data["tdp_w"], unit="W")
                 if stated
                 else ev(facts.subject.gpu_source, f"catalog {c.data['gpu']}: rated power", c.data["watts"],
                         c.data["tdp_w"], "W"))
    yield make("ticket.power_limit", "throttling", "warning", min(weight(c), 0.55),
               f"The power limit is {c.data['watts']:g} W, well below {board} {c.data['tdp_w']:g} W",
               f"A board capped below {claims.LOWERED_LIMIT:.0%} of its rated power lowers its clocks whenever the "
               "work would draw more (prefill, large batches, GEMM-heavy steps), and in a TP group every other GPU "
               "waits for the capped one.",
               [claim_ev(c, "configured power limit"), reference],
               fix="Check under load with `nvidia-smi -q -d POWER,PERFORMANCE` whether SW Power Cap is active; "
               "restore the default limit (`nvidia-smi -pl <default>`, persistence mode on) if the host's power and "
               "cooling allow it, and compare the speed.",
               refs=["throttle", "nvidia_smi"])


@rule("ticket.clock_peers", "throttling")
def clock_peers(facts: Facts, predictions=None):
    """Two GPUs' clocks under the same load, one well below the other: identical boards boost within a few bins of
    each other, so the slow one is held down by power, heat or a slowdown signal, and a TP group runs at its pace."""
    if _health_judges(facts):
        return  # nvidia-smi -q shows each GPU's reasons: health.throttling judges them
    c = _first(facts, "clock_peers")
    if not c or c.guess or _first(facts, "clock_power") or not _about_speed(facts):
        return  # a clocks-event reason or a low clock said outright: ticket.clock_power says it
    low, high = c.data["low_mhz"], c.data["high_mhz"]
    yield make("ticket.clock_peers", "throttling", "warning", weight(c),
               f"One GPU runs at {low:g} MHz against {high:g} MHz on its peer",
               f"Under the same load identical boards hold clocks within a few boost bins of each other; "
               f"{low / high:.0%} of the peer's clock means that GPU is held down (power limit, temperature, HW "
               "slowdown), and every collective waits for it.",
               [ev(c.source, f'clocks the reporter compares: "{c.quote}"', low, high, "MHz")],
               fix="Compare `nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE` of the two GPUs under load: the slow "
               "one's active clocks-event reason names the cause (power limit, cooling, PSU).",
               refs=["throttle", "nvidia_smi"])


# How far from the ranks' median one rank must be, beyond fleet_rules' robust outlier test: past run-to-run noise of a
# few percent and a boost bin or two.
STRAGGLER_RATIO = 1.3


def rank_outliers(facts: Facts) -> list[Claim]:
    """One rank's figure apart from its peers in the same unit (at least fleet_rules.MIN_NODES listed): fleet_rules'
    robust outlier test (a time above, a rate below the median) and STRAGGLER_RATIO from the median. Data {rank,
    value, median, unit, n}."""
    out = []
    for c in claims.rank_figures(facts):
        figures, time = c.data["figures"], c.data["time"]
        if len(figures) < fleet_rules.MIN_NODES:
            continue
        median, _, zs = fleet_rules.score([f[1] for f in figures], "lower" if time else "higher")
        worst = max(range(len(figures)), key=zs.__getitem__)
        rank, value, quote, guessed = figures[worst]
        apart = value > STRAGGLER_RATIO * median if time else value * STRAGGLER_RATIO < median
        if median > 0 and apart and fleet_rules.is_outlier(zs[worst]):
            out.append(Claim("rank_outlier", c.source, quote, {"rank": rank, "value": value, "median": median,
                                                               "unit": c.data["unit"], "n": len(figures)},
                             guess=guessed))
    return out


@rule("ticket.rank_outlier", "straggler")
def rank_outlier(facts: Facts, predictions=None):
    """The reporter lists per-rank (per-GPU) figures and one stands apart from its peers' median: the synchronous
    step waits for that rank."""
    found = [c for c in rank_outliers(facts) if not c.guess]
    if not found or not _about_speed(facts):
        return  # per-rank figures in a crash or error report are context, not the complaint
    c = found[0]
    d = c.data
    yield make("ticket.rank_outlier", "straggler", "warning", weight(c),
               f"Rank {d['rank']} is at {d['value']:g} {d['unit']} against the ranks' median {d['median']:g} "
               f"{d['unit']}",
               f"Of {d['n']} ranks the reporter lists, one is a robust outlier (the fleet test) and more than "
               f"{STRAGGLER_RATIO - 1:.0%} behind the ranks' median; a collective or tensor-parallel layer "
               "finishes when its slowest rank arrives, so the others wait for it every step.",
               [ev(c.source, f'per-rank figures: "{c.quote}"', d["value"], d["median"], d["unit"])],
               fix="Find what holds that rank back: its GPU's clocks and power state (`nvidia-smi -q -d "
               "PERFORMANCE`), its PCIe link, its CPU/NUMA binding, or a heavier share of the work (uneven "
               "sequence lengths or data).",
               refs=["throttle"])


def _layers_left(c: Claim, model) -> tuple[int, int] | None:
    """(layers on the GPU, layers in all) a partial_offload claim shows with some layers on the CPU, (0, 0) for
    output or words that say so without counts; None when all are on the GPU or the count cannot be judged."""
    d = c.data
    if c.negated or c.guess:
        return None
    if d["form"] == "offloaded":
        return (d["on_gpu"], d["layers"]) if d["on_gpu"] < d["layers"] else None
    if d["form"] == "ngl":  # llama.cpp offloads min(-ngl, layers) repeating layers; -ngl 99 is "all"
        return (d["on_gpu"], model.layers) if model and d["on_gpu"] < model.layers else None
    if d["form"] == "no_ngl":  # run without the layer option, whose default is none on the GPU
        return (0, model.layers if model else 0)
    return (0, 0) if d["form"] in ("words", "over_vram") or d.get("cpu_pct", 0) > 0 else None


@rule("ticket.partial_offload", "host_bound")
def partial_offload(facts: Facts, predictions=None):
    """Some of the model's layers run on the CPU (llama.cpp / Ollama partial offload): those layers are read from
    system memory at its bandwidth, so each token waits on the host. A host limit, not the GPUs' or their links'."""
    found = claims.partial_offload(facts)
    if any(c.negated and not c.guess and c.data.get("origin") == "output" for c in found) and \
            not any(c.data.get("origin") == "output" and _layers_left(c, None) for c in found):
        return  # "100% GPU" / "offloaded 81/81": every layer is in VRAM, whatever the words guess
    model = facts.subject.model if facts.subject else None
    # under an engine that keeps every weight in VRAM (offload.keeps_weights_on_gpu) a model said to exceed the GPU's
    # memory is an out-of-memory error or a reason for TP, no partial offload
    if keeps_weights_on_gpu(engine_of(facts)):
        found = [c for c in found if c.data["form"] != "over_vram"]
    left = [(c, n) for c in found if (n := _layers_left(c, model))]
    if not left:
        return
    c, (on_gpu, layers) = max(left, key=lambda cn: weight(cn[0]))
    unset = c.data["form"] == "no_ngl"
    split = (f"{c.data['cpu_pct']} % of the model on the CPU" if c.data.get("cpu_pct")
             else f"{on_gpu} of {layers} layers on the GPU" if layers else "Part of the model on the CPU")
    build = c.data.get("build")
    evidence = [claim_ev(c, "run without a layer option" + (f" (llama.cpp build {build}: builds before "
                                                            f"{claims.NGL_DEFAULT_ZERO_BEFORE} put no layer on the GPU "
                                                            "by default)" if build else "")
                         if unset else "where the layers are")]
    if c.data["form"] in ("ngl", "no_ngl") and model is not None:
        evidence.append(ev(facts.subject.model_source, f"catalog {model.key}: layers", layers, on_gpu, "layers"))
    # (s22) the placement came with a release of the engine the reporter moved to ("Moving from 0.3.6 to 0.3.7-rc5,
    # Ollama no longer uses both GPUs for a single model", ollama/ollama#6479): the release is the cause
    # (ticket.engine_versions) and the CPU share its symptom, so this stays a lead below it
    release = _first(facts, "engine_versions_compared")
    if release and release.data["kind"] != "commit":
        yield make("ticket.partial_offload", "host_bound", "info", min(weight(c), 0.4),
                   split[0].upper() + split[1:] + ", since the release the reporter moved to",
                   "The layers on the CPU are read from system memory each token, so they set the pace; the reporter "
                   "ties the placement to a change of the engine's release, which is then the cause to fix.",
                   evidence + [claim_ev(release, "the release change")],
                   fix="Go back to the release that placed every layer on the GPUs, or report the change upstream.")
        return
    yield make("ticket.partial_offload", "host_bound", "warning", weight(c),
               ("No layer on the GPU: llama.cpp ran without its layer option (-ngl / n_gpu_layers), whose default "
                "here is 0, so every layer runs from system memory") if unset
               else split[0].upper() + split[1:] + ": those layers run from system memory",
               ("Without -ngl (llama-cpp-python: n_gpu_layers) this llama.cpp keeps every layer on the CPU, even in a "
                "CUDA build with free VRAM. " if unset else
                "llama.cpp and Ollama place the layers that do not fit in VRAM on the CPU (and on Windows the driver "
                "pages what does not fit into shared system memory). ") +
               "Decoding reads every weight once per token, and "
               "those layers are read from system RAM, whose bandwidth is an order of magnitude below the GPU's "
               "memory; they set the token time and the GPUs wait for them.",
               evidence,
               fix="Pass the layer option: `-ngl 999` (llama.cpp) or `n_gpu_layers=-1` (llama-cpp-python, built with "
               "CUDA) puts every layer in VRAM; the load log should then read 'offloaded N/N layers to GPU'."
               if unset else
               "Fit every layer in VRAM: a smaller quantisation or context (the KV cache shares VRAM), more or "
               "larger GPUs, then offload all layers (`-ngl 999`, Ollama's num_gpu); `ollama ps` should read "
               "'100% GPU'.",
               refs=["https://github.com/ollama/ollama/blob/main/docs/faq.md",
                     "https://github.com/ggml-org/llama.cpp/blob/master/tools/main/README.md"])


@rule("ticket.gpu_latency_one_input", "latency_bound_small_batch")
def gpu_latency_one_input(facts: Facts, predictions=None):
    """The GPU build of a tool slower than its CPU counterpart on one input at a time: a GPU earns its speed from
    many inputs in parallel; one input leaves it mostly idle between short kernels, so launch, transfer and
    synchronisation costs set the time (FasterTransformer's README: at batch size 1 the time 'really depends on
    the CPU'). Latency, not a fault."""
    slower, few = _first(facts, "gpu_build_slower"), _first(facts, "few_requests")
    if not slower or slower.guess or not few or few.guess or _first(facts, "first_calls_slow"):
        return  # (the first calls only: warm-up, ticket.explained)
    yield make("ticket.gpu_latency_one_input", "latency_bound_small_batch", "warning", 0.6,
               "One input at a time: the GPU path pays its fixed costs without the parallel work that repays them",
               "A GPU is fast on many inputs at once. With a single input each step is a few short kernels: their "
               "launches, the copies to and from the GPU and the synchronisation take as long as the arithmetic, so "
               "the GPU path can lose to a CPU path that avoids them. That is the GPU's latency, not a fault.",
               [claim_ev(slower, "GPU path against the other"), claim_ev(few, "inputs at a time")],
               fix="Batch inputs (the batched decoders and servers exist for that), or keep the CPU path for single "
               "low-latency requests; CUDA graphs trim the launch share.",
               refs=["https://github.com/NVIDIA/DeepLearningExamples/tree/master/FasterTransformer#performance"])


@rule("ticket.one_stream_vs_reference", "latency_bound_small_batch")
def one_stream_vs_reference(facts: Facts, predictions=None):
    """One request at a time measured against a published or expected throughput (claims.reference_rate): engines
    publish throughput with many requests in flight (TensorRT-LLM's performance overview runs trtllm-bench at the
    largest batch that fits; vLLM's throughput benchmarks keep hundreds of prompts queued), where each decode step's
    weight reads serve the whole batch. One stream pays the same reads for one token, so its tok/s is a fraction of
    the batched figure: latency, not a fault."""
    few, ref = _first(facts, "few_requests"), _first(facts, "reference_rate")
    if not few or few.guess or few.negated or not ref or ref.guess or ref.negated:
        return
    if "scope" in ref.data:
        return  # the reference's own words say its scope: ticket.reference_other_scope converts it
    d = ref.data
    yield make("ticket.one_stream_vs_reference", "latency_bound_small_batch", "warning", 0.6,
               f"One request at a time ({d['measured']:g} {d['unit']}) set against a batched figure "
               f"({d['reference']:g} {d['unit']})",
               "Published throughput is measured with many requests in flight: every decode step reads the weights "
               "once for the whole batch. A single request reads them for one token per step, so it reaches a "
               "fraction of that figure on the same hardware; the gap is the batch, not a fault.",
               [claim_ev(few, "requests in flight"),
                ev(ref, "the measured rate (expected: the reference figure)", d["measured"], d["reference"],
                   d["unit"])],
               fix="Measure the way the reference was measured (its batch size or concurrency, e.g. trtllm-bench or "
               "vLLM's benchmark_serving with many prompts), or compare one stream with a one-stream figure.",
               refs=["https://nvidia.github.io/TensorRT-LLM/performance/perf-overview.html",
                     "https://docs.vllm.ai/en/latest/contributing/benchmarks.html"])


@rule("ticket.reference_other_scope", "expected_physics", "insufficient_data")
def reference_other_scope(facts: Facts, predictions=None):
    """A rate set against a figure said to be of many streams at once (claims.reference_rate's scope): a sum over
    every stream in flight (output tokens x batch size / runtime, NVIDIA/TensorRT-LLM#43), so its gap to one stream
    is no evidence of a fault. With the count said, the sum is divided by it: each decode step reads the weights once
    for the whole batch, so one stream alone runs at least at its share of the batch, and that share is a floor. A
    measured rate within REFERENCE_GAP of the floor or above shows no fault; below it, or without a count, only a
    like-for-like figure can tell. Never a fault verdict."""
    ref = _first(facts, "reference_rate")
    if not ref or ref.guess or ref.negated or "scope" not in ref.data:
        return
    d, scope, n = ref.data, ref.data["scope"], ref.data["scope"]["count"]
    measure = "Measure with as many requests in flight as the sum, or compare with a one-stream figure."
    if n:
        share = d["reference"] / n
        where = "at or above" if d["measured"] >= share else f"within {claims.REFERENCE_GAP:g}x of"
        evidence = [ev(ref, f'the measured rate (expected: the sum "{scope["said"]}" divided by {n}, per stream)',
                       d["measured"], round(share, 2), d["unit"]),
                    ev(ref, f"the figure it was set against, a sum over {n} streams", d["reference"], None,
                       d["unit"])]
        if d["measured"] * claims.REFERENCE_GAP >= share:
            yield make("ticket.reference_other_scope", "expected_physics", "info", 0.6,
                       f"The {d['reference']:g} {d['unit']} is a sum over {n} streams, {share:.3g} per stream; "
                       f"the measured {d['measured']:g} is one stream's, {where} that share",
                       f"The larger figure sums {n} streams ({scope['said']!r}); the measured one is one stream's. "
                       f"Divided by {n}, the sum is {share:.3g} {d['unit']} per stream. A decode step reads the "
                       "weights once for the whole batch, so one stream runs at least at its share of the batch; "
                       f"the measured {d['measured']:g} is within {claims.REFERENCE_GAP:g}x of that share or "
                       "above it: the figures are not comparable as quoted, and converted they show no fault.",
                       evidence, fix=measure)
            return
        yield make("ticket.reference_other_scope", "insufficient_data", "info", 0.0,
                   f"The {d['reference']:g} {d['unit']} is a sum over {n} streams; its per-stream share "
                   f"{share:.3g} is still {share / d['measured']:.2g}x the measured rate",
                   f"The larger figure sums {n} streams ({scope['said']!r}), so it is not one stream's. Divided by "
                   f"{n} it is {share:.3g} {d['unit']}, still past the measured {d['measured']:g}; a sum over "
                   "streams does not divide exactly, so a like-for-like figure is needed to call a fault.",
                   evidence, fix=measure, ask="a figure measured with as many requests in flight as the sum")
        return
    yield make("ticket.reference_other_scope", "insufficient_data", "info", 0.0,
               f"The {d['reference']:g} {d['unit']} is {scope['said']!r}, a sum over streams, not one stream's",
               f"The larger figure is said to be {scope['said']!r}: it sums every stream in flight, and the "
               f"measured {d['measured']:g} {d['unit']} is one stream's. With no count of streams it cannot be "
               "divided; the gap is no evidence of a fault until a like-for-like figure is compared.",
               [ev(ref, "the measured rate (against a sum over streams)", d["measured"], d["reference"], d["unit"])],
               fix=measure, ask="a figure measured with as many requests in flight as the sum")


@rule("ticket.binding_off_node", "numa_affinity")
def binding_off_node(facts: Facts, predictions=None):
    """The process bound (taskset, numactl, a container cpuset) to CPUs that share none with the GPUs it drives (the
    CPU Affinity column of `nvidia-smi topo -m`, or their NUMA node): every kernel launch, pinned host copy and NCCL
    proxy step crosses the socket interconnect."""
    from diagnose.artifacts.nccl_log import cpu_list

    binds = [c for c in claims.cpu_binding(facts) if not c.guess and not c.negated]
    if not binds:
        return
    gpus = {g.index: g for g in facts.of(GpuFact) if g.index is not None}
    chosen = [int(x) for x in visible_devices(facts)[0] if x.isdigit()]  # (UUIDs: every GPU, as unset)
    used = [gpus[i] for i in (chosen or sorted(gpus)) if i in gpus]
    if not used:
        return
    local = [set(cpu_list(g.cpu_affinity)) if g.cpu_affinity else None for g in used]
    nodes = [g.numa_node if g.numa_node is not None and g.numa_node >= 0 else None for g in used]
    for c in binds:
        if "cpus" in c.data and all(local):
            cpus = set(c.data["cpus"])
            if cpus & set().union(*local):
                continue
            theirs = ", ".join(f"GPU{g.index}: {g.cpu_affinity}" for g in used[:4])
        elif "node" in c.data and all(n is not None for n in nodes):
            if c.data["node"] in nodes:
                continue
            theirs = ", ".join(f"GPU{g.index}: NUMA {g.numa_node}" for g in used[:4])
        else:
            continue
        g = used[0]
        yield make("ticket.binding_off_node", "numa_affinity", "warning", 0.65,
                   "The process is bound to CPUs off its GPUs' NUMA node",
                   "Each GPU hangs off one CPU socket. Bound to the other socket's CPUs, the process launches its "
                   "kernels, stages its pinned host buffers and runs NCCL's proxy threads across the socket "
                   "interconnect, which adds latency to every step and halves host-to-device bandwidth.",
                   [claim_ev(c, "CPU binding"),
                    ev(g, f"CPUs local to the GPUs in use ({theirs})", g.cpu_affinity or g.numa_node)],
                   fix="Bind to the GPUs' own node (`numactl --cpunodebind=N --membind=N`, `taskset -c` with the CPU "
                   "Affinity list `nvidia-smi topo -m` prints for them), or leave binding to the engine.",
                   refs=["numa"])
        return
