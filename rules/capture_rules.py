"""Rules over what an Nsight Systems capture shows (records from diagnose/capture/facts.py).

Each rule states the physics it relies on in its docstring, quotes `capture:<file>` and the
table or kernel names behind every number, and passes (severity ok) when its check is clean,
so a clean capture reads as healthy rather than as "no data".

Predictions arrive as the rules.predictions.CapturePrediction `diagnose.capture_report.predict`
builds (from --model/--tp/--gpu/--batch, or the launch line the capture recorded): the layout, and
when the model and GPU are known the roofline Prediction and its CaptureExpectation (the figures
compared with); without them, or without a figure, the rules that need it stay silent.
"""

from __future__ import annotations

import math

from diagnose.capture.facts import GIVEN, ns_to_ms
from diagnose.evidence import (
    CaptureInfo,
    CopyStats,
    Facts,
    GpuTimeline,
    GridUse,
    IdleGapCause,
    LaunchStats,
    StepComm,
    StepStats,
    Straggler,
    Workload,
)
from rules import beyond_roofline
from rules.common import ev, make, need, passed, wfield
from rules.engine import rule
from rules.predictions import CaptureExpectation, CapturePrediction

# Thresholds (fractions of a GPU's active span unless stated).
EXPOSED_COMM_WARN = 0.25  # exposed communication / busy time
LAUNCH_GAP_SHARE = 0.10  # time lost in short (< 50 us) kernel-to-kernel gaps
LAUNCH_MIN_GAPS = 100  # ... over at least this many gaps: fewer are a few pauses, not a launch rate
IDLE_SHARE_BUBBLE = 0.20  # idle time of a pipeline stage
HOST_STALL_SHARE = 0.15  # idle time that began at a host sync / synchronous copy
HOST_IDLE_SHARE = 0.5  # idle in long gaps with nothing queued at all
COPY_SHARE = 0.05  # pageable/synchronous copy time worth a warning
STRAGGLER_WAIT_SHARE = 0.05  # others' waiting for one rank / span
STRAGGLER_LAST_SHARE = 0.5  # that rank arrived last in at least half the collectives
PCIE_RATIO = 2.5  # all-reduce this many times slower than the NVLink prediction
GRID_IDLE_SHARE = 0.25  # kernel time in which small grids leave SMs empty (SM-weighted)
BUSY_MATTERS = 0.10  # kernels must fill this much of the GPU's span for their shape to matter
SHORT_KERNEL_SHARE = 0.5  # kernels shorter than their own launch call
UVM_SHARE = 0.05  # unified-memory migration time / span
UVM_STORM_COUNT = 1000  # migrations: each is a GPU page fault serviced by the driver
TURN_TAKING = 0.8  # share of a stage's idle time another stage was busy: in a pipeline all of it but host gaps
COPY_BW_FLOOR = 0.5  # large copies below half the link's line rate

REFS = {
    "nsys": "https://docs.nvidia.com/nsight-systems/UserGuide/index.html",
    "graphs": "https://docs.vllm.ai/en/latest/configuration/optimization.html",
    "nccl": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
}


def _pct(part, whole) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def _gpus(facts: Facts) -> list[GpuTimeline]:
    return [g for g in facts.of(GpuTimeline) if g.kernels and g.span_ns]


def _gpu_name(facts: Facts, pid: int, device: int) -> str:
    """'GPU' when the capture has one, else which one ('GPU cuda:1', 'GPU pid 42 cuda:0'): per-GPU
    findings of a multi-GPU capture must be told apart by their titles."""
    gpus = {(g.pid, g.device) for g in _gpus(facts)}
    if len(gpus) <= 1:
        return "GPU"
    return f"GPU cuda:{device}" if len({p for p, _ in gpus}) == 1 else f"GPU pid {pid} cuda:{device}"


def _tag(facts: Facts, pid: int, device: int, form: str = " ({})") -> str:
    """' (GPU cuda:1)' (or `form` around the name) on a per-GPU finding's title when the capture
    has several GPUs, else ''."""
    name = _gpu_name(facts, pid, device)
    return "" if name == "GPU" else form.format(name)


def _where(g: GpuTimeline) -> str:
    return f"{g.source} ({g.gpu})"


def _api_calls(x) -> str:
    """Where a process's CUDA API calls were read (a GpuTimeline or LaunchStats: their export and pid)."""
    return f"{x.source} (pid {x.pid}, CUPTI_ACTIVITY_KIND_RUNTIME)"


def _pp(facts: Facts, predictions) -> int | None:
    """The pipeline depth when the run is pipeline-parallel, else None: as given (--pp) or recorded
    (the launch line); else the GPUs that exchange only send/recv, when each spent most of its
    idle time while another of them was busy (stages taking turns). Send/recv kernels alone do not
    say PP: sequence- and context-parallel attention (Ulysses, ring attention) use them too, and
    their ranks idle together."""
    w = facts.workload()
    if w.pp:
        return w.pp if w.pp > 1 else None
    peers = [g for g in _gpus(facts) if g.idle_while_peer_busy_ns is not None]
    if len(peers) >= 2 and all(g.idle_while_peer_busy_ns >= TURN_TAKING * g.large_gap_ns for g in peers):
        return len(peers)
    return None


@rule("capture.given_vs_recorded", "other")
def given_vs_recorded(facts: Facts, predictions=None):
    """What the user states on the command line is used for the prediction; when the capture
    recorded something else (the launch line nsys saved, the GPUs in TARGET_INFO_GPU, the number
    of GPUs that ran NCCL kernels), one of the two is wrong and every figure compared with the
    prediction rests on that choice: say so, naming both values and where each comes from."""
    given = [w for w in facts.of(Workload) if w.source == GIVEN]
    if not given:
        return
    w = given[0]
    recorded = [r for r in facts.of(Workload) if r.source != GIVEN]
    for name, flag in (("tp", "--tp"), ("pp", "--pp")):
        mine = getattr(w, name)
        theirs = next(((getattr(r, name), r.source) for r in recorded if getattr(r, name) is not None), None)
        if mine is not None and theirs and theirs[0] != mine:
            yield _contradiction(f"{flag} {mine}", f"{name}={theirs[0]}", theirs[1], name.upper(), mine, theirs[0])
    gpus = _gpus(facts)
    ranks = [g for g in gpus if g.class_count.get("communication")]
    if w.tp is not None and w.tp > 1 and gpus and not ranks:
        # a TP group all-reduces every layer: a capture with kernels and no collective is not of that group
        where = ", ".join(dict.fromkeys(g.source for g in gpus)) + " (CUPTI_ACTIVITY_KIND_KERNEL)"
        yield _contradiction(f"--tp {w.tp}", f"no GPU ran communication kernels ({len(gpus)} ran kernels)",
                             where, "GPUs that all-reduce", w.tp, 0)
    if w.tp is not None and len(ranks) > w.tp * (w.pp or 1):
        mine = f"--tp {w.tp}" + (f" --pp {w.pp}" if w.pp else "")
        where = ", ".join(dict.fromkeys(g.source for g in ranks)) + " (CUPTI_ACTIVITY_KIND_KERNEL)"
        yield _contradiction(mine, f"{len(ranks)} GPUs ran communication kernels", where, "GPUs in the group",
                             w.tp * (w.pp or 1), len(ranks))
    if w.gpu:
        yield from _gpu_contradiction(facts, w.gpu)
    if w.model:
        yield from _model_contradiction(w.model, recorded)


@rule("capture.prediction_needs_gpu", "insufficient_data")
def prediction_needs_gpu(facts: Facts, predictions=None):
    """--model asks for a predicted step, and the roofline needs the GPU model too: from --gpu, or
    from a name in the export's GPU inventory (TARGET_INFO_GPU) that the catalog knows. With
    neither, say so and ask for --gpu, instead of a report that silently predicts nothing."""
    from diagnose.evidence import GpuFact
    from rules import catalog

    given = next((w for w in facts.of(Workload) if w.source == GIVEN), None)
    if given is None or not given.model or given.gpu:
        return
    if isinstance(predictions, CapturePrediction) and predictions.expected is not None:
        return
    named = [g for g in facts.of(GpuFact) if g.name]
    if any(catalog.find_gpu(name=g.name) for g in named):
        return  # the GPU is known; what stopped the prediction is the model (its own error or check)
    if named:
        why = f"the export names {', '.join(dict.fromkeys(g.name for g in named))}, which the catalog lacks"
        evidence = [ev(named[0], "GPU named in the export", named[0].name)]
    else:
        infos = facts.of(CaptureInfo)
        bare = [i for i in infos if "TARGET_INFO_GPU" in i.missing_names()]
        why = (f"{', '.join(i.file for i in bare)} has no GPU inventory (no TARGET_INFO_GPU table, nsys "
               f"{bare[0].product_version or 'unknown version'})" if bare else "the export lists no GPU by name")
        evidence = [ev(bare[0] if bare else infos[0] if infos else GIVEN, "GPUs named in TARGET_INFO_GPU", 0)]
    ask = (f"the GPU model: run the same command with `--gpu NAME` (the catalog's name for the GPU the capture "
           f"ran on, as for `diagnose predict`) to compare the steps with {given.model}'s prediction")
    yield make("capture.prediction_needs_gpu", "insufficient_data", "info", 0.0,
               f"No prediction for --model {given.model}: the GPU model is not known",
               f"The roofline needs the GPU's bandwidth and FLOP/s, and {why}; the step, all-reduce and efficiency "
               "checks against the prediction could not run.", evidence,
               fix="Give the GPU with --gpu NAME.", ask=ask)


@rule("capture.layout_does_not_fit", "other")
def layout_does_not_fit(facts: Facts, predictions=None):
    """The capture ran, so its model fit the GPUs it ran on. When the layout and GPU the prediction
    uses (given on the command line, else recorded) cannot hold the weights, the engine's reserve
    and the batch's KV cache (the memory-fit check `predict` runs, predict.does_not_fit), the model,
    layout or GPU named is not the one that ran, and every figure compared with the prediction is
    of another run: say so, with predict's figures."""
    from rules import catalog, roofline
    from rules.predict_rules import shortfall_evidence, shortfall_words

    p = predictions.roofline if isinstance(predictions, CapturePrediction) else None
    if p is None or p.fits:
        return
    usable = roofline.usable_gb(catalog.gpu(p.gpu), catalog.engine(p.engine))
    given = next((w for w in facts.of(Workload) if w.source == GIVEN), None)
    named = [f"--{k} {v}" for k, v in (("model", given.model), ("tp", given.tp), ("pp", given.pp),
                                        ("gpu", given.gpu), ("batch", given.batch)) if v is not None] if given else []
    label = f"{p.model} on {p.gpu}, TP{p.tp}" + (f" PP{p.pp}" if p.pp > 1 else "") + f", batch {p.batch}"
    src = f"prediction:roofline ({label})"
    yield make("capture.layout_does_not_fit", "other", "warning", 0.8,
               f"{label} does not fit in GPU memory, yet the capture ran",
               f"{label} is {shortfall_words(p, usable)}: it cannot have run as stated. "
               + (f"What the command line gave ({' '.join(named)}) " if named else "What the capture recorded ")
               + "does not describe this run, so figures compared with the prediction are of another run.",
               [shortfall_evidence(p, usable, src, label)],
               fix="Check the model, --tp/--pp and --gpu against the run's launch line and nvidia-smi; drop an "
                   "option to use what the capture recorded.")


def _contradiction(mine: str, theirs: str, where: str, what: str, given, recorded):
    evidence = [ev(GIVEN, f"{what} given", given), ev(where, f"{what} recorded in the capture", recorded)]
    return make(
        "capture.given_vs_recorded", "other", "warning", 0.6,
        f"{mine} (command line) contradicts the capture: {theirs}",
        f"The prediction and the rules use {mine} as given on the command line, but {where} says {theirs}. "
        "Figures compared with the prediction are only right if the command line is.",
        evidence, fix="Check the run's launch line; drop the option to use what the capture recorded.")


def _model_contradiction(given: str, recorded: list[Workload]):
    """--model against the model the recorded launch line serves, both resolved by the catalog (a
    renamed or versioned checkpoint is the same architecture; a name the catalog lacks is not judged)."""
    from rules import catalog

    theirs = next((r for r in recorded if r.model), None)
    mine, spec = catalog.find_model(given), catalog.find_model(theirs.model) if theirs else None
    if mine and spec and mine.key != spec.key:
        yield _contradiction(f"--model {given}", f"the run served {theirs.model} (catalog {spec.key})", theirs.source,
                             "model", mine.key, spec.key)


def _gpu_contradiction(facts: Facts, name: str):
    from diagnose.evidence import GpuFact
    from rules import catalog

    try:
        spec = catalog.gpu(name)
    except catalog.UnknownName:  # fails in the prediction, with the closest names
        return
    seen = [(g, catalog.find_gpu(name=g.name)) for g in facts.of(GpuFact) if g.name]
    seen = [(g, s) for g, s in seen if s]
    if seen and all(s.key != spec.key for _, s in seen):  # a mixed host: any GPU of that kind will do
        g, s = seen[0]
        yield _contradiction(f"--gpu {name}", f"GPU {g.index} is {g.name} (catalog {s.key})",
                             f"{g.source} TARGET_INFO_GPU", "GPU", spec.key, s.key)


# What to capture again when an export lacks what the checks read: CUDA kernels and API calls,
# NVTX step markers, OS runtime calls (host waits), and CUDA-graph replays kernel by kernel (the
# default graph-level trace shows one row per replay). nsys CLI options:
# https://docs.nvidia.com/nsight-systems/UserGuide/index.html#cli-profile-command-switch-options
RECAPTURE = ("a new capture: `nsys profile --trace=cuda,nvtx,osrt --cuda-graph-trace=node -o run <command>`, "
             "then `nsys export --type sqlite run.nsys-rep` and `diagnose capture run.sqlite`")


# Tables nsys writes only when the program produced such data (exports are lazy: no NVTX_EVENTS when
# nothing emitted NVTX; docs/nsys-sqlite-schema.md section 2, `nsys export --lazy`): their absence is
# no gap, and a new capture of the same program with --trace=nvtx would lack them as well.
LAZY_ABSENT = ("NVTX_EVENTS",)


@rule("capture.trace_present", "insufficient_data")
def trace_present(facts: Facts, predictions=None):
    """A capture without CUDA kernel rows cannot show where GPU time went: say which tables are
    missing and how to capture them (`nsys profile --trace=cuda,nvtx,osrt --cuda-graph-trace=node`),
    instead of failing. One with kernels but without a table or column other checks read (the
    CUDA API, the GPU inventory, grid sizes) asks for the same, as a gap of its own, so the verdict
    and the Next list say it alike; no NVTX table is no gap (LAZY_ABSENT)."""
    for info in facts.of(CaptureInfo):
        missing = dict(zip(info.missing_names(), info.missing_tables))  # table (or columns) -> what it means
        if "CUPTI_ACTIVITY_KIND_KERNEL" in missing or not info.kernel_rows:
            yield need(
                "capture.trace_present",
                f"{info.file}: no GPU kernel trace in this export",
                "The export has no CUPTI_ACTIVITY_KIND_KERNEL rows, so GPU busy time, communication and "
                f"launch overhead cannot be measured. Missing: {'; '.join(info.missing_tables) or 'kernel rows'}.",
                RECAPTURE,
                [ev(info, f"tables missing in {info.file} (nsys {info.product_version or 'unknown version'})",
                    measured=len(info.missing_tables))],
            )
        elif gaps := {n: m for n, m in missing.items() if n not in LAZY_ABSENT}:
            # kernels there, but a table or column some checks read is not
            yield need(
                "capture.trace_present",
                f"{info.file}: the export lacks {', '.join(gaps)}",
                f"The checks that read them could not run ({'; '.join(gaps.values())}); a capture with the "
                "trace options below and a full `nsys export` has them.",
                RECAPTURE,
                [ev(info, f"tables or columns missing in {info.file} "
                          f"(nsys {info.product_version or 'unknown version'})", measured=len(gaps))],
            )


def _min_exposed(gpus: list[GpuTimeline]) -> GpuTimeline:
    """Across ranks, the GPU that waited least shows the real cost of communication; the others'
    communication kernels also contain time spent waiting for the slowest rank."""
    return min(gpus, key=lambda g: g.exposed_comm_ns / max(1, g.busy_ns))


@rule("capture.comm_bound", "comm_bound")
def comm_bound(facts: Facts, predictions=None):
    """Tensor-parallel layers all-reduce between GEMMs; communication that no compute kernel
    overlaps (|U(comm) - U(compute)| on the GPU timeline) adds straight to the step. Above a
    quarter of busy time the interconnect, not the math, sets the speed."""
    gpus = [g for g in _gpus(facts) if g.class_count.get("communication")]
    if not gpus:
        return
    g = _min_exposed(gpus)
    share = g.exposed_comm_ns / max(1, g.busy_ns)
    evidence = [
        ev(_where(g), "exposed communication (comm kernels not overlapped by compute), CUPTI_ACTIVITY_KIND_KERNEL",
           ns_to_ms(g.exposed_comm_ns), None, "ms"),
        ev(_where(g), "compute kernel time (union)", ns_to_ms(g.compute_union_ns), None, "ms"),
        ev(_where(g), "exposed communication share of GPU busy time", _pct(g.exposed_comm_ns, g.busy_ns),
           f"< {int(EXPOSED_COMM_WARN * 100)}", "%"),
    ]
    if len(gpus) > 1:
        evidence.append(ev(g.source, f"highest share among the {len(gpus)} ranks (theirs includes waiting for "
                                     "peers; the lowest, above, is the transfer itself)",
                           _pct(max(x.exposed_comm_ns for x in gpus), max(x.busy_ns for x in gpus)), None, "%"))
    ops = ", ".join(f"{op} x{n}" for op, n in sorted(g.comm_ops.items(), key=lambda kv: -kv[1]))
    if share >= EXPOSED_COMM_WARN:
        severe = g.exposed_comm_ns >= g.compute_union_ns
        yield make(
            "capture.comm_bound", "comm_bound", "critical" if severe else "warning", 0.7 if severe else 0.6,
            f"Exposed communication is {_pct(g.exposed_comm_ns, g.busy_ns)}% of GPU busy time "
            f"({ns_to_ms(g.exposed_comm_ns)} ms)",
            f"On {g.gpu} communication kernels ({ops}) ran {ns_to_ms(g.exposed_comm_ns)} ms with no compute "
            f"kernel beside them, against {ns_to_ms(g.compute_union_ns)} ms of compute. The step waits on the "
            "interconnect.",
            evidence,
            fix="Check the fabric the all-reduce uses (NCCL_DEBUG=INFO: P2P/CUMEM or NVLS, not SHM or NET); use "
                "the engine's custom all-reduce for small messages; a lower TP degree or a larger batch per GPU "
                "shifts the balance back to compute.",
            refs=[REFS["nccl"]],
        )
    else:
        yield passed("capture.comm_bound", "Exposed communication is a small part of GPU time",
                     f"{_pct(g.exposed_comm_ns, g.busy_ns)}% of busy time on {g.gpu}.", evidence, 0.6)


def _allreduce_per_op(gpus: list[GpuTimeline]) -> tuple[float | None, GpuTimeline | None]:
    """Mean all-reduce kernel time (us) on the rank that waited least (its kernels are the transfer)."""
    best = None
    for g in gpus:
        n = g.comm_ops.get("all_reduce")
        if n:
            mean = g.comm_ops_ns["all_reduce"] / n / 1e3
            if best is None or mean < best[0]:
                best = (mean, g)
    return best if best else (None, None)


def _expected(predictions) -> CaptureExpectation | None:
    return predictions.expected if isinstance(predictions, CapturePrediction) else None


@rule("capture.allreduce_fabric", "pcie_fallback", "comm_bound")
def allreduce_fabric(facts: Facts, predictions=None):
    """An all-reduce's time is set by the fabric: alpha + 2(n-1) hops + 2(n-1)/n x bytes / bus
    bandwidth. The expected call is the engine's (its custom kernel where it has one at that size):
    the same figure step_vs_prediction counts per step. NCCL on the same fabric is a slower healthy
    path, not a fault. Only a time near the PCIe prediction and far from NVLink's says the traffic
    left NVLink; a time above every fabric's prediction names no fabric (small messages cost about
    the same on both): the transport the NCCL log names and the kernel names tell the fabric."""
    exp = _expected(predictions)
    expected, nccl, pcie = (exp.allreduce_us, exp.allreduce_us_nccl, exp.allreduce_us_pcie) if exp else (None,) * 3
    measured, g = _allreduce_per_op(_gpus(facts))
    if measured is None or not expected:
        return
    if _launch_limited(g):
        # Eager ranks reach each all-reduce at different times; the kernel time then holds the
        # wait for the peer, not the transfer. The launch_bound finding covers it.
        return
    src, fabric, pcie_fabric = exp.source, exp.fabric, exp.pcie_fabric
    healthy = max(expected, nccl or 0.0)
    libs = ", ".join(f"{lib} x{n}" for lib, n in sorted(g.comm_libraries.items(), key=lambda kv: -kv[1]))
    evidence = [
        ev(_where(g), "mean all-reduce kernel time (rank that waited least), CUPTI_ACTIVITY_KIND_KERNEL",
           round(measured, 2), round(expected, 2), "us"),
        ev(src, f"one all-reduce of {exp.allreduce_bytes} B on {fabric}, the engine's kernel (the step's "
                "expected all-reduce time counts this call too)", None, round(expected, 2), "us"),
    ]
    if nccl and round(nccl, 2) != round(expected, 2):
        evidence.append(ev(src, f"the same all-reduce through NCCL on {fabric} (slower, still healthy)", None,
                           round(nccl, 2), "us"))
    if pcie:
        evidence.append(ev(src, f"the same all-reduce through NCCL over {pcie_fabric}", None, round(pcie, 2), "us"))
    if libs:
        evidence.append(ev(_where(g), "communication kernels by library (kernel names)", libs))
    if measured < PCIE_RATIO * healthy:
        yield passed("capture.allreduce_fabric", "All-reduce time matches the GPU's fabric",
                     f"{measured:.1f} us per all-reduce against {healthy:.1f} us for the slowest healthy path on "
                     f"{fabric}.", evidence, 0.6)
        return
    ratio = measured / healthy
    if pcie and pcie >= 1.5 * healthy and measured < PCIE_RATIO * pcie:
        yield make(
            "capture.allreduce_fabric", "pcie_fallback", "critical", 0.75,
            f"All-reduce takes {measured:.1f} us per call, {ratio:.1f}x the {fabric} prediction and near "
            f"{pcie_fabric}'s: traffic is not on NVLink",
            f"Each all-reduce on {g.gpu} lasts {measured:.1f} us; on {fabric} it should take {healthy:.1f} us at most "
            f"and over {pcie_fabric} {pcie:.1f} us. The collective goes through PCIe or host memory instead of NVLink.",
            evidence,
            fix="Run with NCCL_DEBUG=INFO and look for 'via P2P' vs 'via SHM'/'NET'; check `nvidia-smi topo -m` "
                "(NV# between the GPUs), NCCL_P2P_DISABLE, and that the fabric manager runs on NVSwitch systems.",
            refs=[REFS["nccl"]],
        )
        return
    fabrics = f"{fabric} {healthy:.1f} us" + (f", {pcie_fabric} {pcie:.1f} us" if pcie else "")
    no_custom = expected < (nccl or 0.0) and "custom_allreduce" not in g.comm_libraries
    yield make(
        "capture.allreduce_fabric", "comm_bound", "critical", 0.7,
        f"All-reduce takes {measured:.1f} us per call against an expected {expected:.1f} us, slower than "
        f"{'either fabric' if pcie else 'its fabric'} explains ({fabrics})",
        f"Each all-reduce on {g.gpu} lasts {measured:.1f} us, {ratio:.1f}x the slowest healthy path on {fabric}"
        + (f" and above the {pcie_fabric} prediction too" if pcie else "")
        + ": the time names no fabric. The transport NCCL reports (NCCL_DEBUG=INFO), the launch line's NCCL_* "
        "settings and the kernel names do"
        + (f" (here {libs}: the engine's own all-reduce did not run; it needs P2P between the GPUs)." if no_custom
           else f" (here {libs})." if libs else "."),
        evidence,
        fix="Run with NCCL_DEBUG=INFO and read the transport of each channel ('via P2P/IPC' or 'via SHM'/'NET'); "
            "check NCCL_P2P_DISABLE and NCCL_SHM_DISABLE in the launch environment, `nvidia-smi topo -m` (NV# "
            "between the GPUs), and that the fabric manager runs on NVSwitch systems.",
        refs=[REFS["nccl"]],
    )


def _launch_limited(g: GpuTimeline) -> bool:
    """The GPU loses a tenth of its span in short gaps between kernels, over enough gaps to be a
    launch pattern rather than a few pauses (see launch_bound)."""
    return g.small_gap_ns >= LAUNCH_GAP_SHARE * g.span_ns and g.small_gaps >= LAUNCH_MIN_GAPS


@rule("capture.launch_bound", "launch_bound", "eager_mode")
def launch_bound(facts: Facts, predictions=None):
    """When kernels are shorter than the CPU needs to launch them, the GPU idles in short gaps
    between back-to-back kernels. CUDA graphs replay a whole step with one launch; a process that
    issued thousands of kernel launches and no graph launch runs eagerly."""
    launches = {l.pid: l for l in facts.of(LaunchStats)}
    for g in _gpus(facts):
        l = launches.get(g.pid)
        graphs = (l.graph_launches if l else 0) or g.graph_kernels
        share = _pct(g.small_gap_ns, g.span_ns)
        evidence = [
            ev(_where(g), "GPU idle in gaps < 50 us between kernels", ns_to_ms(g.small_gap_ns), None, "ms"),
            ev(_where(g), "share of the GPU's active span lost in those gaps", share,
               f"< {int(LAUNCH_GAP_SHARE * 100)}", "%"),
            ev(_where(g), f"gaps < 50 us (launch-bound takes at least {LAUNCH_MIN_GAPS} as well as the share)",
               g.small_gaps, f"< {LAUNCH_MIN_GAPS}", None),
            ev(_where(g), "kernels / of them shorter than 10 us", g.kernels, None, None),
            ev(_where(g), "short kernels", g.short_kernels, None, None),
        ]
        if l:
            api = _api_calls(g)
            evidence += [ev(api, "kernel launch API calls", l.kernel_launches),
                         ev(api, "CUDA graph launches", l.graph_launches, None)]
            if l.launch_avg_ns:
                evidence.append(ev(f"{g.source} (pid {g.pid})", "mean CPU time per launch call",
                                   round(l.launch_avg_ns / 1e3, 2), round(g.kernel_ns / max(1, g.kernels) / 1e3, 2),
                                   "us"))
        if _launch_limited(g):
            eager = not graphs and (l is None or l.kernel_launches >= 100)
            yield make(
                "capture.launch_bound", "eager_mode" if eager else "launch_bound", "warning",
                0.7 if eager else 0.6,
                f"{_gpu_name(facts, g.pid, g.device)} idles {share}% of the time "
                "between short kernels"
                + (" and no CUDA graph was launched" if eager else ""),
                f"On {g.gpu}, {g.small_gaps} gaps shorter than 50 us add up to {ns_to_ms(g.small_gap_ns)} ms: the CPU "
                "cannot issue kernels as fast as the GPU runs them."
                + (" Every kernel was launched one by one (cudaLaunchKernel), no cudaGraphLaunch." if eager else ""),
                evidence,
                fix=("Enable CUDA graphs (vLLM: drop --enforce-eager; SGLang: drop --disable-cuda-graph; raise the "
                     "graph capture sizes to cover the batch)." if eager else
                     "Fuse small kernels, capture more of the step in CUDA graphs, or raise the batch per step."),
                refs=[REFS["graphs"]],
            )
        else:
            few = g.small_gap_ns >= LAUNCH_GAP_SHARE * g.span_ns  # the share alone would have called it
            yield passed("capture.launch_bound", "Kernel launches keep up with the GPU" + _tag(facts, g.pid, g.device),
                         f"{_pct(g.small_gap_ns, g.span_ns)}% of {g.gpu}'s span lost in short gaps"
                         + (f", but over only {g.small_gaps} gaps (fewer than {LAUNCH_MIN_GAPS}): a few pauses, not "
                            "a launch rate the CPU cannot keep." if few else "."), evidence, 0.6)


@rule("capture.straggler", "straggler")
def straggler(facts: Facts, predictions=None):
    """A collective finishes only when its last rank arrives, so every other rank's comm kernel
    spins until then. One rank that arrives last in most collectives slows all of them; what it
    was running meanwhile (compute, or nothing: host) says why."""
    for s in facts.of(Straggler):
        spans = [g.span_ns for g in _gpus(facts)]
        span = max(spans) if spans else 0
        share = s.total_wait_ns / span if span else 0
        doing = ", ".join(f"{k} {ns_to_ms(v)} ms" for k, v in sorted(s.doing_ns.items(), key=lambda kv: -kv[1]))
        evidence = [
            ev(s.source, f"collectives {s.rank} arrived last at, of {s.collectives} matched across ranks (a "
                         f"straggler: at least {int(STRAGGLER_LAST_SHARE * 100)} % of them)", s.late_count,
               f"< {math.ceil(STRAGGLER_LAST_SHARE * s.collectives)}", None),
            ev(s.source, "time the other ranks waited for it (arrival skew, summed)", ns_to_ms(s.total_wait_ns),
               None, "ms"),
            ev(s.source, "mean wait per late collective", round(s.mean_wait_ns / 1e3, 1), None, "us"),
            ev(s.source, "the other ranks' waiting for it, share of the span", _pct(s.total_wait_ns, span),
               f"< {int(STRAGGLER_WAIT_SHARE * 100)}", "%"),
            ev(s.source, "next worst rank's total (a lone straggler: at most half of its own)",
               ns_to_ms(s.runner_up_wait_ns), f"> {ns_to_ms(s.total_wait_ns / 2)}", "ms"),
            ev(s.source, "what it ran while the others waited (CUPTI_ACTIVITY_KIND_KERNEL)", doing or "nothing",
               None, None),
            ev(s.source, "of that, GPU idle", ns_to_ms(s.idle_ns), None, "ms"),
        ]
        lone = s.late_count >= STRAGGLER_LAST_SHARE * s.collectives and s.total_wait_ns >= 2 * s.runner_up_wait_ns
        if lone and share >= STRAGGLER_WAIT_SHARE:
            top = max(s.doing_ns.items(), key=lambda kv: kv[1])[0] if s.doing_ns else None
            cause = ("its GPU was idle (the host was late)" if s.idle_ns >= sum(s.doing_ns.values())
                     else f"it was still running {top} kernels")
            yield make(
                "capture.straggler", "straggler", "critical", 0.8,
                f"{s.rank} is the straggler: last at {s.late_count} of {s.collectives} collectives; the other ranks "
                f"waited {ns_to_ms(s.total_wait_ns)} ms for it",
                f"The other ranks waited {round(s.mean_wait_ns / 1e3, 1)} us on average at each late collective "
                f"while {cause}. The whole TP group runs at that rank's speed.",
                evidence,
                fix="Compare that GPU's clocks, temperature and power (nvidia-smi -q -d PERFORMANCE,CLOCK); check "
                    "its PCIe/NVLink links and NUMA binding; look for extra work on that rank (logging, sampling).",
            )
        else:
            why = ("no rank arrives last in most collectives alone" if not lone else
                   f"{s.rank} arrives last most often, but the others' waiting for it is under "
                   f"{int(STRAGGLER_WAIT_SHARE * 100)}% of the span")
            yield passed("capture.straggler", "No rank holds the others back",
                         f"Arrival skew totals {ns_to_ms(s.total_wait_ns)} ms "
                         f"({_pct(s.total_wait_ns, span)}% of the span): {why}.",
                         evidence, 0.6)


@rule("capture.host_bound", "host_bound")
def host_bound(facts: Facts, predictions=None):
    """If the GPU drains, the host synchronises (or copies synchronously) and only then prepares
    the next work, the GPU idles for the host's whole turn. Idle gaps >= 50 us that begin at a
    blocking call measure exactly that. An export without the CUDA API table cannot tell a gap
    after a blocking call from any other: no verdict either way (the Captures table names the table)."""
    no_api = {i.source for i in facts.of(CaptureInfo) if not i.runtime_rows}
    for g in _gpus(facts):
        if g.source in no_api:
            continue
        share = g.host_stall_ns / g.span_ns
        idle = g.large_gap_ns - g.host_stall_ns
        evidence = [
            ev(_where(g), "idle gaps >= 50 us on the GPU", g.large_gaps, None, None),
            ev(_where(g), "their total", ns_to_ms(g.large_gap_ns), None, "ms"),
            ev(f"{g.source} (CUPTI_ACTIVITY_KIND_RUNTIME)",
               "of them, gaps that began at a host sync or synchronous copy", ns_to_ms(g.host_stall_ns), None, "ms"),
            ev(_where(g), "gaps after a host sync or synchronous copy, share of the GPU's span",
               _pct(g.host_stall_ns, g.span_ns), f"< {int(HOST_STALL_SHARE * 100)}", "%"),
            ev(_where(g), "the other gaps >= 50 us (nothing queued, no blocking call), share of the GPU's span",
               _pct(idle, g.span_ns), f"< {int(HOST_IDLE_SHARE * 100)}", "%"),
        ]
        evidence += [_gap_cause(c) for c in facts.of(IdleGapCause)
                     if (c.source, c.pid, c.device) == (g.source, g.pid, g.device)][:1]
        if share >= HOST_STALL_SHARE:
            yield make(
                "capture.host_bound", "host_bound", "warning", 0.65,
                f"{_gpu_name(facts, g.pid, g.device)} idle {_pct(g.host_stall_ns, g.span_ns)}% of the time "
                "waiting for the host after synchronisation",
                f"On {g.gpu}, {g.host_stall_gaps} idle gaps ({ns_to_ms(g.host_stall_ns)} ms) began while the host "
                "sat in a synchronize or a synchronous copy: the host, not the GPU, paces the loop.",
                evidence,
                fix="Remove per-step synchronisation (.item(), .cpu(), cudaStreamSynchronize) from the hot loop, "
                    "overlap host work with GPU work (async scheduling), and use pinned memory with async copies.",
            )
        elif idle >= HOST_IDLE_SHARE * g.span_ns and not _pp(facts, predictions):
            yield make(
                "capture.host_bound", "host_bound", "warning", 0.4,
                f"{_gpu_name(facts, g.pid, g.device)} idle {_pct(idle, g.span_ns)}% of the time with no work queued",
                f"On {g.gpu}, {g.large_gaps} idle gaps of 50 us or more add up to {ns_to_ms(g.large_gap_ns)} ms; "
                f"{ns_to_ms(idle)} ms of them followed no blocking call and had no kernel or copy queued, so the host "
                "(Python, scheduling, compilation, data loading) or the arrival of requests set the pace, not the GPU.",
                evidence,
                fix="Profile the host side (nsys --sample=cpu, py-spy) over the same window; for a server, check "
                    "that the capture covers a loaded period.",
            )
        elif g.large_gaps:
            yield passed("capture.host_bound", "The host does not stall the GPU" + _tag(facts, g.pid, g.device),
                         f"{_pct(g.host_stall_ns, g.span_ns)}% of {g.gpu}'s span idle after host syncs, "
                         f"{_pct(idle, g.span_ns)}% idle with nothing queued.", evidence, 0.5)


def _gap_cause(c: IdleGapCause):
    """The largest idle gap and what the launching thread did meanwhile, as one evidence row."""
    what = (f"{c.cpu_call} for {ns_to_ms(c.cpu_call_ns)} ms of it, the rest host code" if c.cpu_call else
            "no CUDA call: host code")
    where = f" inside NVTX '{c.nvtx}'" if c.nvtx else ""
    then = f", then {c.launch_call} {ns_to_ms(c.launch_lead_ns)} ms after the gap began" if c.launch_call else ""
    return ev(f"{c.source} (CUPTI_ACTIVITY_KIND_RUNTIME, NVTX_EVENTS)",
              f"largest idle gap, at {ns_to_ms(c.start_ns)} ms: the launching thread ran {what}{where}{then}",
              ns_to_ms(c.gap_ns), None, "ms")


@rule("capture.copies", "host_bound", "other")
def copies(facts: Facts, predictions=None):
    """Host<->device copies from pageable memory are staged by the driver and block the host; a
    synchronous cudaMemcpy blocks it too. In a serving loop both stall the launch stream. Only the
    pageable copies' own time counts: pinned copies of the same direction are not their cost."""
    spans = {(g.source, g.pid, g.device): g.span_ns for g in facts.of(GpuTimeline)}
    launches = {(l.source, l.pid): l for l in facts.of(LaunchStats)}
    for c in facts.of(CopyStats):
        if not c.pageable or c.uvm:
            continue
        span = spans.get((c.source, c.pid, c.device)) or 0
        l = launches.get((c.source, c.pid))
        share = c.pageable_ns / span if span else 0
        table = f"{c.source} (CUPTI_ACTIVITY_KIND_MEMCPY, pid {c.pid} cuda:{c.device})"
        evidence = [
            ev(table, f"{c.kind} copies from pageable host memory", c.pageable, 0, None),
            ev(table, f"time of those pageable {c.kind} copies", ns_to_ms(c.pageable_ns), None, "ms"),
            ev(table, f"all {c.kind} copies, pinned included (not counted above)", c.count, None, None),
            ev(c.source, "pageable copy time, share of the GPU's active span", _pct(c.pageable_ns, span),
               f"< {int(COPY_SHARE * 100)}", "%"),
        ]
        if l and l.sync_copy_calls:
            evidence.append(ev(f"{c.source} (CUPTI_ACTIVITY_KIND_RUNTIME)", "synchronous copy calls (cudaMemcpy...)",
                               l.sync_copy_calls, 0, None))
        big = share >= COPY_SHARE
        yield make(
            "capture.copies", "host_bound" if big else "other", "warning" if big else "info", 0.5 if big else 0.3,
            f"{c.pageable} {c.kind} copies use pageable host memory ({ns_to_ms(c.pageable_ns)} ms)"
            + _tag(facts, c.pid, c.device, " on {}"),
            "Pageable copies are staged through a driver buffer and make the call synchronous, so the host "
            "cannot queue more work meanwhile.",
            evidence,
            fix="Allocate host buffers pinned (torch: pin_memory=True / cudaHostAlloc) and copy with "
                "cudaMemcpyAsync (non_blocking=True).",
        )


@rule("capture.sync_copies", "host_bound", "other")
def sync_copies(facts: Facts, predictions=None):
    """cudaMemcpy/cudaMemset without Async return only when the copy is done: the host stops
    queueing work for the whole transfer, and the GPU drains behind it."""
    spans: dict[tuple, int] = {}
    idle: dict[tuple, tuple[int, GpuTimeline]] = {}
    for g in facts.of(GpuTimeline):
        spans[(g.source, g.pid)] = max(spans.get((g.source, g.pid), 0), g.span_ns)
        if (g.source, g.pid) not in idle or g.idle_ns > idle[(g.source, g.pid)][0]:
            idle[(g.source, g.pid)] = (g.idle_ns, g)
    for l in facts.of(LaunchStats):
        span = spans.get((l.source, l.pid))
        if not l.sync_copy_calls or not span or l.sync_copy_ns < COPY_SHARE * span:
            continue
        idle_ns, g = idle[(l.source, l.pid)]
        src = _api_calls(l)
        evidence = [ev(src, "synchronous copy/memset API calls", l.sync_copy_calls, 0, None),
                    ev(src, "time inside them", ns_to_ms(l.sync_copy_ns), None, "ms"),
                    ev(src, "share of the GPU's active span", _pct(l.sync_copy_ns, span), f"< {int(COPY_SHARE * 100)}",
                       "%"),
                    ev(_where(g), "GPU idle, share of its span (the most a blocked host can cost it)",
                       _pct(idle_ns, g.span_ns), f"< {int(COPY_SHARE * 100)}", "%")]
        if idle_ns < COPY_SHARE * g.span_ns:
            # a blocking call also waits for the work queued before it: on a busy GPU the host waits on the GPU
            yield make("capture.sync_copies", "other", "info", 0.3,
                       f"Synchronous copy calls wait {ns_to_ms(l.sync_copy_ns)} ms on a GPU busy "
                       f"{_pct(g.span_ns - idle_ns, g.span_ns)}% of its span: the host waits on the GPU",
                       f"Process {l.pid} spent {_pct(l.sync_copy_ns, span)}% of the span in {l.sync_copy_calls} "
                       "synchronous cudaMemcpy/cudaMemset calls, but a blocking call returns only after the work "
                       "queued before it, and the GPU idled too little for the host to be what it waits on.",
                       evidence, fix="Nothing to fix for speed while the GPU stays busy; cudaMemcpyAsync frees the "
                       "host for other work.")
            continue
        yield make(
            "capture.sync_copies", "host_bound", "warning", 0.5,
            f"Synchronous copy calls block the host for {ns_to_ms(l.sync_copy_ns)} ms "
            f"({_pct(l.sync_copy_ns, span)}% of the span)",
            f"Process {l.pid} made {l.sync_copy_calls} synchronous cudaMemcpy/cudaMemset calls; while each runs the "
            "host queues nothing else.",
            evidence,
            fix="Use cudaMemcpyAsync on a stream with pinned host buffers (torch: non_blocking=True) and "
                "synchronise once where the result is needed.",
        )


@rule("capture.pp_bubble", "pp_bubble")
def pp_bubble(facts: Facts, predictions=None):
    """With pipeline parallelism each stage waits for the previous stage's activations: with p
    stages and m micro-batches the bubble is (p-1)/(m+p-1) of the step. Stages that exchange
    send/recv only and idle in long gaps show it."""
    pp = _pp(facts, predictions)
    gpus = _gpus(facts)
    if not gpus or not pp:
        return  # no GPU timeline, or no stated pipeline (send/recv alone may be sequence parallelism)
    stages = [g for g in gpus if g.comm_ops.get("send_recv")] or gpus
    idle = sum(g.large_gap_ns for g in stages)
    span = sum(g.span_ns for g in stages)
    share = idle / span if span else 0
    evidence = [ev(_where(g), "idle in gaps >= 50 us", ns_to_ms(g.large_gap_ns), None, "ms") for g in stages[:8]]
    evidence.append(ev(stages[0].source, f"mean idle share of the {len(stages)} GPUs that ran send/recv",
                       _pct(idle, span), f"< {int(IDLE_SHARE_BUBBLE * 100)}", "%"))
    evidence.append(_bubble_formula(facts, pp, stages, _pct(idle, span)))
    stated = wfield(facts, "pp")[1]
    evidence.append(ev(stated or f"{stages[0].source} (per-GPU idle gaps)",
                       "pipeline stages" if stated else "pipeline stages (GPUs that exchange send/recv and take turns "
                       "idling)", pp))
    evidence += [ev(_where(g), "of its idle gaps, time another stage was busy", ns_to_ms(g.idle_while_peer_busy_ns),
                    None, "ms") for g in stages[:8] if g.idle_while_peer_busy_ns is not None]
    if share >= IDLE_SHARE_BUBBLE:
        yield make(
            "capture.pp_bubble", "pp_bubble", "warning", 0.65,
            f"Pipeline stages idle {_pct(idle, span)}% of the time (pipeline bubble)",
            f"{pp} pipeline stages exchange activations with send/recv; the {len(stages)} GPUs that ran them sit "
            "idle in long gaps waiting for the other stages.",
            evidence,
            fix="Raise the number of micro-batches in flight (bubble = (p-1)/(m+p-1)), or trade PP for TP within "
                "a node where NVLink allows.",
        )
    else:
        yield passed("capture.pp_bubble", "Pipeline stages stay busy",
                     f"{_pct(idle, span)}% idle across {len(stages)} GPUs of {pp} stages.", evidence, 0.5)


def _bubble_formula(facts: Facts, p: int, stages: list[GpuTimeline], idle_pct: float):
    """The bubble (p-1)/(m+p-1) for p stages and the micro-batches per step the capture shows:
    the send/recv kernels per step of the stage with fewest (the first stage sends once per
    micro-batch, the last receives once; a middle stage does both)."""
    steps = facts.of(StepStats)
    inside = [c for c in facts.of(StepComm) if c.ops.get("send_recv") and c.steps]
    if inside:
        c = min(inside, key=lambda c: c.ops["send_recv"] / c.steps)
        m, n, k, where = (c.ops["send_recv"] / c.steps, c.ops["send_recv"], c.steps,
                          f"{c.source} ({c.gpu}, {c.window_from})")
    elif steps and steps[0].count:
        g = min(stages, key=lambda g: g.comm_ops.get("send_recv", 0))
        n, k = g.comm_ops.get("send_recv", 0), steps[0].count
        m, where = n / k, f"{_where(g)}, whole capture / {k} steps ({steps[0].method})"
    else:
        return ev(stages[0].source, f"bubble (p-1)/(m+p-1) for p={p} stages: micro-batches per step unknown (no steps "
                                    "found: name the step's NVTX range with --step)", idle_pct, None, "%")
    m = max(1, round(m))
    bubble = (p - 1) / (m + p - 1)
    return ev(where, f"mean idle share vs the bubble (p-1)/(m+p-1), p={p} stages, m={m} micro-batch(es) per step "
                     f"({n} send/recv kernels over {k} steps)", idle_pct, round(100 * bubble, 1), "%")


@rule("capture.step_vs_prediction", "expected_physics", "other")
def step_vs_prediction(facts: Facts, predictions=None):
    """Compare the measured step (NVTX or pattern) with the roofline's expected decode step, and
    split the difference: exposed communication beyond the predicted all-reduce time, idle time,
    and the unexplained rest."""
    exp = _expected(predictions)
    steps = facts.of(StepStats)
    expected_ms = exp.step_ms if exp else None
    if not steps or not expected_ms or not steps[0].p50_ns:
        return
    st = steps[0]
    measured_ms = st.p50_ns / 1e6
    gpus = _gpus(facts)
    n = max(1, st.count)
    src = exp.source
    evidence = [
        ev(st.source, f"median step ({st.method}), p95 {ns_to_ms(st.p95_ns)} ms, p99 {ns_to_ms(st.p99_ns)} ms",
           round(measured_ms, 3), round(float(expected_ms), 3), "ms"),
        ev(src, "expected decode step", None, round(float(expected_ms), 3), "ms"),
    ]
    ar_pred, ar_ms_pred = exp.allreduce_per_step, exp.allreduce_ms_per_step
    rest = measured_ms - float(expected_ms)
    ar_excess_ms = 0.0  # measured all-reduce time per step beyond the predicted one
    if gpus:
        g = _min_exposed(gpus) if any(x.comm_ops for x in gpus) else gpus[0]
        # Capture-wide totals hold every step the GPU's span covers (plus partial ones at the
        # edges): per step they divide by span / mean step, not by the number of step intervals.
        covered = max(1.0, g.span_ns / st.mean_ns) if st.mean_ns else float(n)
        inside = next((c for c in facts.of(StepComm)
                       if (c.source, c.pid, c.device) == (g.source, g.pid, g.device) and c.steps), None)
        if inside:
            ar, ar_ns, per = inside.ops.get("all_reduce", 0), inside.ops_ns.get("all_reduce", 0), inside.steps
            where = f"{_where(g)}, {inside.window_from}, {inside.steps} steps"
        else:
            ar, ar_ns, per = g.comm_ops.get("all_reduce", 0), g.comm_ops_ns.get("all_reduce", 0), covered
            where = f"{_where(g)}, whole capture per step (span / mean step = {covered:.2f})"
        evidence.append(ev(where, "all-reduce kernels per step", round(ar / per, 1), ar_pred, None))
        if ar_pred:
            evidence.append(ev(src, "the roofline counts 2 all-reduces per layer (attention and MLP outputs); an "
                                    "engine that splits the embedding by vocabulary adds 1 per step", None, ar_pred))
        evidence.append(ev(where, "all-reduce time per step", ns_to_ms(ar_ns / per),
                           round(ar_ms_pred, 3) if ar_ms_pred is not None else None, "ms"))
        if ar_ms_pred is not None:
            ar_excess_ms = ar_ns / per / 1e6 - float(ar_ms_pred)
        span_src = f"{_where(g)}, whole capture per step (span / mean step = {covered:.2f})"
        evidence.append(ev(span_src, "exposed communication per step", ns_to_ms(g.exposed_comm_ns / covered),
                           None, "ms"))
        evidence.append(ev(span_src, "GPU idle per step", ns_to_ms(g.idle_ns / covered), None, "ms"))
        explained = max(0.0, (g.exposed_comm_ns + g.idle_ns) / covered / 1e6 - float(ar_ms_pred or 0))
        if rest > 0 and explained >= rest:
            detail = "slowdown left unexplained (extra communication and idle time cover all of it)"
        else:
            detail = "slowdown left unexplained by extra communication and idle time"
        evidence.append(ev(src, detail, round(max(0.0, rest - explained), 3), None, "ms"))
    if exp.bytes_per_gpu_step and exp.hbm_gbs:
        gbs = exp.bytes_per_gpu_step / st.p50_ns
        evidence.append(ev(st.source, "achieved HBM bandwidth per GPU in the median step "
                                      f"({exp.bytes_per_gpu_step / 1e9:.2f} GB a step per the roofline / step time)",
                           round(gbs, 1), exp.hbm_gbs, "GB/s"))
    if exp.flops_per_gpu_step and exp.peak_tflops:
        tflops = exp.flops_per_gpu_step / st.p50_ns / 1e3
        evidence.append(ev(st.source, "achieved FLOP/s per GPU in the median step (roofline FLOPs / step time)",
                           round(tflops, 2), exp.peak_tflops, "TFLOP/s"))
    ratio = measured_ms / float(expected_ms)
    lo, hi = exp.band or (0.0, 1.3)
    roof = exp.step_ms_roofline
    if roof:
        evidence.append(ev(src, "roofline decode step (datasheet bandwidth and FLOPs: nothing real is faster)", None,
                           round(float(roof), 3), "ms"))
    if roof and beyond_roofline.beats(measured_ms, float(roof), is_time=True):
        # more than 100 % of a physical peak: a measurement or input error, not a fast system (as scaling and ticket)
        yield beyond_roofline.finding("capture.step_vs_prediction", f"Median step ({st.method})", measured_ms,
                                      float(roof), "ms", evidence,
                                      fix="Check --model, --tp, --batch and --gpu against the captured run; rerun.")
        return
    allowance = float(expected_ms) * (hi - 1)  # how far above the expected step the band reaches
    if ratio <= hi and ar_excess_ms > allowance:
        # the extra all-reduce time alone would carry an otherwise expected step out of the band:
        # the step lands inside it only because the rest ran faster than modelled, not because it is healthy
        evidence.append(ev(src, f"all-reduce time per step beyond the expected, against the band's allowance above "
                                f"the expected step ({float(expected_ms):.2f} ms x {hi - 1:.2f})",
                           round(ar_excess_ms, 3), round(allowance, 3), "ms"))
        yield make("capture.step_vs_prediction", "other", "info", 0.5,
                   f"Measured step {measured_ms:.2f} ms sits inside the expected band, but its all-reduces take "
                   f"{float(ar_ms_pred) + ar_excess_ms:.2f} ms a step against {float(ar_ms_pred):.2f} ms expected",
                   f"The extra {ar_excess_ms:.2f} ms of all-reduce per step is more than the band allows above the "
                   f"expected step ({allowance:.2f} ms): the rest of the step ran faster than modelled and hid it. "
                   "The other capture findings say why the communication is slow.", evidence)
    elif ratio <= hi:
        place = "is inside" if ratio >= lo else "is faster than"
        yield passed("capture.step_vs_prediction",
                     f"Measured step {measured_ms:.2f} ms {place} the expected band ({float(expected_ms) * lo:.2f}-"
                     f"{float(expected_ms) * hi:.2f} ms around {float(expected_ms):.2f} ms)",
                     f"A healthy {exp.engine} system delivers this step for this layout; speed-ups must "
                     "come from a different layout, batch or precision.", evidence, 0.6)
    else:  # beyond the band a healthy system gives: broken, as scaling.broken_layout and ticket call it
        yield make("capture.step_vs_prediction", "other", "warning", 0.6,
                   f"Measured step {measured_ms:.2f} ms is x{ratio:.2f} the expected step "
                   f"({float(expected_ms):.2f} ms), beyond the band's x{hi:.2f}",
                   "The other capture findings say where the extra time goes; the evidence splits it into "
                   "communication, idle time and the rest.", evidence)


def _spans(facts: Facts) -> dict[str, int]:
    """source -> summed span of its GPUs."""
    out: dict[str, int] = {}
    for g in facts.of(GpuTimeline):
        out[g.source] = out.get(g.source, 0) + g.span_ns
    return out


@rule("capture.small_grids", "other")
def small_grids(facts: Facts, predictions=None):
    """A thread block runs on one SM, so a grid of b blocks on a GPU with S SMs uses at most b/S of
    it; the rest sits empty however long the kernel runs (unless other streams fill it, which the
    timeline's overlap would show). SM-weighted empty time = sum of duration x (1 - b/S) over the
    kernels whose grids are smaller than the GPU (CUDA C Programming Guide, hardware
    implementation: blocks are scheduled onto SMs)."""
    spans = _spans(facts)
    for u in facts.of(GridUse):
        if not u.kernel_ns:
            continue
        share = u.idle_sm_ns / u.kernel_ns
        span = spans.get(u.source) or 0
        kernels = f"{u.source} (CUPTI_ACTIVITY_KIND_KERNEL gridX*gridY*gridZ)"
        evidence = [
            ev(u.sm_from, "SMs per GPU", u.sm_count),
            ev(kernels, f"kernel time in grids of fewer than {u.sm_count} blocks", ns_to_ms(u.small_grid_ns),
               None, "ms"),
            ev(kernels, "of it in single-block grids (1 SM busy)", ns_to_ms(u.single_block_ns), None, "ms"),
            ev(kernels, "SM time those grids leave empty, share of all kernel time", _pct(u.idle_sm_ns, u.kernel_ns),
               f"< {int(GRID_IDLE_SHARE * 100)}", "%"),
            ev(f"{u.source} (per-GPU timeline)", "kernel time, share of the GPUs' summed span (below this, grid "
                                                 "shapes cannot matter)", _pct(u.kernel_ns, span),
               f">= {int(BUSY_MATTERS * 100)}", "%"),
        ]
        evidence += [ev(kernels, f"{_short(name)}: {blocks} block(s)", ns_to_ms(ns), None, "ms")
                     for name, blocks, ns in u.worst[:3]]
        idle = span and u.kernel_ns < BUSY_MATTERS * span  # the GPUs mostly wait: grid shapes cannot cost time
        if idle:
            yield passed("capture.small_grids", "Grid shapes cannot cost time here: the GPUs run kernels "
                         f"{_pct(u.kernel_ns, span)}% of their span",
                         f"{_pct(u.idle_sm_ns, u.kernel_ns)}% of kernel SM time is left empty by small grids, but "
                         f"kernels fill less than {int(BUSY_MATTERS * 100)}% of the timeline.", evidence, 0.5)
        elif share >= GRID_IDLE_SHARE and u.small_grid_kernels:
            matters = bool(span)
            name, blocks, _ = u.worst[0]
            yield make(
                "capture.small_grids", "other", "warning" if matters else "info", 0.6 if matters else 0.3,
                f"Kernels leave {_pct(u.idle_sm_ns, u.kernel_ns)}% of the GPU's SM time empty: grids smaller than its "
                f"{u.sm_count} SMs",
                f"{u.small_grid_kernels} kernel launches ran grids of fewer blocks than the GPU has SMs "
                f"({ns_to_ms(u.small_grid_ns)} ms); the largest, {_short(name)}, ran {blocks} block(s). Each block "
                "occupies one SM, so the others idled while these kernels ran.",
                evidence,
                fix="Launch enough blocks to cover every SM (more, smaller tiles; split-K/stream-K for GEMMs; batch "
                    "independent small kernels into one launch or run them on several streams).",
                refs=["https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#hardware-implementation"],
            )
        else:
            yield passed("capture.small_grids", "Kernel grids cover the GPU's SMs",
                         f"{_pct(u.idle_sm_ns, u.kernel_ns)}% of kernel SM time left empty by small grids.",
                         evidence, 0.5)


def _short(name: str, width: int = 60) -> str:
    base = (name or "").split("(", 1)[0]
    return base if len(base) <= width else base[: width - 3] + "..."


@rule("capture.short_kernels", "launch_bound")
def short_kernels(facts: Facts, predictions=None):
    """A kernel launched one by one costs the CPU one launch call (cudaLaunchKernel, a few us); a
    kernel that runs for less than that call cannot keep the GPU fed however the host is written.
    CUDA graphs launch a whole sequence with one call. Counted against the process's own mean
    launch call from CUPTI_ACTIVITY_KIND_RUNTIME."""
    launches = {(l.source, l.pid): l for l in facts.of(LaunchStats)}
    for g in _gpus(facts):
        l = launches.get((g.source, g.pid))
        if not l or not l.launch_avg_ns or not l.kernel_launches:
            continue
        n, edge = g.kernels_shorter_than(l.launch_avg_ns)
        if not edge:
            continue
        graphs = l.graph_launches or g.graph_kernels
        src = _api_calls(g)
        evidence = [
            ev(src, "mean CPU time of a kernel launch call", round(l.launch_avg_ns / 1e3, 2), None, "us"),
            ev(f"{_where(g)} CUPTI_ACTIVITY_KIND_KERNEL", f"kernels shorter than {edge / 1e3:g} us (the histogram "
               "edge at or below that launch time)", n, None, None),
            ev(_where(g), "share of the GPU's kernels", _pct(n, g.kernels), f"< {int(SHORT_KERNEL_SHARE * 100)}", "%"),
            ev(src, "CUDA graph launches", l.graph_launches, None, None),
        ]
        if n >= SHORT_KERNEL_SHARE * g.kernels and not graphs and g.kernels >= 100:
            yield make(
                "capture.short_kernels", "launch_bound", "warning" if _launch_limited(g) else "info", 0.5,
                f"{_pct(n, g.kernels)}% of kernels run shorter than the {l.launch_avg_ns / 1e3:.1f} us the CPU needs "
                "to launch each" + _tag(facts, g.pid, g.device),
                f"On {g.gpu}, {n} of {g.kernels} kernels finish in under {edge / 1e3:g} us, while each launch call "
                f"of process {g.pid} takes {l.launch_avg_ns / 1e3:.1f} us on average and no CUDA graph was launched: "
                "the GPU waits for the CPU between them.",
                evidence,
                fix="Capture the step in a CUDA graph (torch.cuda.graphs / torch.compile mode='reduce-overhead'; "
                    "vLLM/SGLang: keep CUDA graphs on), or fuse the small kernels.",
                refs=[REFS["graphs"]],
            )
        else:
            yield passed("capture.short_kernels", "Kernels outlast their launch calls" + _tag(facts, g.pid, g.device),
                         f"{_pct(n, g.kernels)}% of {g.gpu}'s kernels are shorter than a launch call"
                         + (" (CUDA graphs in use)" if graphs else "") + ".", evidence, 0.5)


@rule("capture.uvm_migrations", "other")
def uvm_migrations(facts: Facts, predictions=None):
    """Unified (managed) memory moves pages on demand: each GPU page fault stalls the faulting
    warps while the driver migrates the page over PCIe/NVLink, at a small fraction of copy
    bandwidth. Thousands of migrations, or migration time that is a visible part of the span, is
    a migration storm: prefetch or place the data instead (CUDA C Programming Guide, unified
    memory performance hints)."""
    spans = {(g.source, g.pid, g.device): g.span_ns for g in facts.of(GpuTimeline)}
    per_gpu: dict[tuple, list[CopyStats]] = {}
    for c in facts.of(CopyStats):
        if c.uvm:
            per_gpu.setdefault((c.source, c.pid, c.device), []).append(c)
    for (source, pid, dev), rows in per_gpu.items():
        n, ns, b = sum(c.count for c in rows), sum(c.total_ns for c in rows), sum(c.bytes for c in rows)
        span = spans.get((source, pid, dev)) or 0
        table = f"{source} (CUPTI_ACTIVITY_KIND_MEMCPY copyKind 11-13, pid {pid} cuda:{dev})"
        evidence = [ev(table, f"{c.kind} migrations", c.count, None, None) for c in rows]
        evidence += [
            ev(table, "unified-memory migrations", n, f"< {UVM_STORM_COUNT}", None),
            ev(table, "their time", ns_to_ms(ns), None, "ms"),
            ev(table, "mean size", round(b / n / 1024, 1) if n else None, None, "KiB"),
            ev(table, "share of the GPU's span", _pct(ns, span), f"< {int(UVM_SHARE * 100)}", "%"),
        ]
        if n >= UVM_STORM_COUNT or (span and ns >= UVM_SHARE * span):
            yield make(
                "capture.uvm_migrations", "other", "warning", 0.6,
                f"{n} unified-memory page migrations ({ns_to_ms(ns)} ms, {_pct(ns, span)}% of the span)",
                f"Process {pid} on cuda:{dev} faulted {n} times on managed memory (mean {round(b / n / 1024, 1)} KiB "
                "per migration); every fault stalls the kernel that touched the page until the driver moves it.",
                evidence,
                fix="Prefetch managed data before the kernels use it (cudaMemPrefetchAsync), set "
                    "cudaMemAdviseSetPreferredLocation/SetReadMostly, or allocate device memory and copy explicitly.",
                refs=["https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#unified-memory-programming"],
            )
        else:
            yield passed("capture.uvm_migrations", "Few unified-memory migrations",
                         f"{n} migrations, {_pct(ns, span)}% of the span.", evidence, 0.5)


@rule("capture.copy_bandwidth", "pcie_link_degraded", "host_bound", "other")
def copy_bandwidth(facts: Facts, predictions=None):
    """A host<->device copy of 1 MiB or more is bandwidth-bound: bytes / time should approach the
    PCIe link's per-direction line rate (catalog `pcie_gen` -> pcieN bandwidth; 80-90 % is normal,
    protocol overhead). Pinned copies far below it point at the link (trained down in width or
    generation, a shared switch); pageable copies are capped by the driver's staging copy in host
    memory, which pinned memory removes."""
    gpus = _catalog_gpus(facts)
    spans = {(g.source, g.pid, g.device): g.span_ns for g in facts.of(GpuTimeline)}
    for c in facts.of(CopyStats):
        if c.kind not in ("HtoD", "DtoH") or c.uvm:
            continue
        span = spans.get((c.source, c.pid, c.device)) or 0
        spec = gpus.get(c.source)
        if spec is None:
            continue
        link, ceiling = spec
        for pinned, (n, b, ns) in ((True, c.large_pinned), (False, c.large_pageable)):
            if not n or not ns:
                continue
            gbs = b / ns  # bytes per ns = GB/s
            memory = "pinned" if pinned else "pageable"
            moved = _si_bytes(b)
            table = (f"{c.source} (CUPTI_ACTIVITY_KIND_MEMCPY, {c.kind} copies >= 1 MiB from {memory} memory, "
                     f"pid {c.pid})")
            evidence = [
                ev(table, "copies", n, None, None),
                ev(table, "bytes moved", moved[0], None, moved[1]),
                ev(table, "their time", ns_to_ms(ns), None, "ms"),
                ev(table, "achieved bandwidth (bytes / time)", round(gbs, 2), round(ceiling, 2), "GB/s"),
                ev(link, "link line rate per direction", None, round(ceiling, 2), "GB/s"),
                ev(table, "share of the line rate", _pct(gbs, ceiling), f">= {int(COPY_BW_FLOOR * 100)}", "%"),
                ev(table, "their time, share of the GPU's active span", _pct(ns, span), f">= {int(COPY_SHARE * 100)}",
                   "%"),
            ]
            if gbs < COPY_BW_FLOOR * ceiling and ns < COPY_SHARE * span:
                # slow, but too little of the span to cost time: a note, never the verdict (as capture.copies)
                yield make("capture.copy_bandwidth", "other", "info", 0.3,
                           f"{c.kind} copies from {memory} memory reach {gbs:.1f} GB/s, {_pct(gbs, ceiling)}% of the "
                           f"{ceiling:g} GB/s link, in {_pct(ns, span)}% of the span",
                           f"{n} {c.kind} copies of 1 MiB or more took {ns_to_ms(ns)} ms, under the "
                           f"{int(COPY_SHARE * 100)} % of the span that could slow the run.", evidence)
            elif gbs < COPY_BW_FLOOR * ceiling:
                yield make(
                    "capture.copy_bandwidth", "pcie_link_degraded" if pinned else "host_bound", "warning",
                    0.5 if pinned else 0.45,
                    f"{c.kind} copies from {memory} memory reach {gbs:.1f} GB/s, {_pct(gbs, ceiling)}% of the "
                    f"{ceiling:g} GB/s link",
                    f"{n} {c.kind} copies of 1 MiB or more moved {moved[0]} {moved[1]} in "
                    f"{ns_to_ms(ns)} ms. "
                    + ("Pinned copies this slow point at the PCIe link itself (fewer lanes or a lower generation than "
                       "the card supports, or a shared switch)." if pinned else
                       "Pageable copies go through a driver staging buffer, so host memcpy speed, not the link, "
                       "sets their pace."),
                    evidence,
                    fix=("Check `nvidia-smi -q -d PCIE` (current vs max link gen/width) under load and `lspci -vv` "
                         "LnkSta; reseat or move the card." if pinned else
                         "Allocate the host buffers pinned (cudaHostAlloc / torch pin_memory=True) and copy with "
                         "cudaMemcpyAsync."),
                )
            else:
                yield passed("capture.copy_bandwidth", f"{c.kind} copies run near the link's line rate",
                             f"{gbs:.1f} GB/s against {ceiling:g} GB/s ({memory} memory).", evidence, 0.5)


def _si_bytes(b: int) -> tuple[float, str]:
    """(value, unit) of a byte count in decimal units, as its GB/s (bytes / ns) is:
    one convention in a finding's title and table, never "51.20 GB" beside "47.7 GiB"."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= size:
            return round(b / size, 2), unit
    return b, "B"


def _catalog_gpus(facts: Facts) -> dict[str, tuple[str, float]]:
    """source -> (where the ceiling comes from, PCIe GB/s per direction) for GPUs the catalog knows."""
    from diagnose.evidence import GpuFact

    out: dict[str, tuple[str, float]] = {}
    try:
        from rules import catalog

        links = catalog.interconnects()
        for g in facts.of(GpuFact):
            spec = catalog.find_gpu(name=g.name) if g.name else None
            link = links.get(spec.pcie_interconnect) if spec else None
            if link and g.source not in out:
                lanes = min(16, spec.pcie_lanes or 16)
                out[g.source] = (f"catalog:gpu.{spec.key} (pcie_gen {spec.pcie_gen} x{lanes}) -> interconnect."
                                 f"{spec.pcie_interconnect}", link.bandwidth_gbs * lanes / 16)
    except Exception:  # noqa: BLE001 - a broken user catalog is reported by the commands that read it
        return {}
    return out
