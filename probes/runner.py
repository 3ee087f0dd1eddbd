"""Runs the node probes of a profile in order, each under a timeout, with progress on a terminal.

quick    inventory, host checks, one all_reduce sweep over all GPUs (8 B..64 MiB + decode sizes)
standard + all_gather/reduce_scatter, all_reduce on halves and pairs, PCIe read under load,
           HBM copy, bf16 GEMM, decode GEMV, pinned host copies, P2P matrix
full     + sweep to 1 GiB with finer steps, every op on every group, fp16/fp8 GEMM

A probe that overruns its timeout or fails becomes a `ProbeFailure` and the run goes on;
Ctrl-C stops the run and returns what was measured so far (a Note says it was interrupted).
On a replay the NVML and host readings come from the recording and the measurements recorded
with it are read back instead of being run.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import multiprocessing
import os
import queue as queues
import threading
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable

from diagnose.evidence import CollectiveResult, Facts, GpuFact, Note, PairBandwidth, PcieLinkFact
from probes import collectives, host, nvml
from probes.recording import Session
from probes.results import MEASURED, ProbeFailure

PROFILES = ("quick", "standard", "full")
# (min bytes, max bytes, factor) of the sweep, per profile
SWEEPS = {"quick": (8, 64 << 20, 8), "standard": (8, 256 << 20, 4), "full": (8, 1 << 30, 2)}
DEFAULT_TIMEOUT = {"quick": 60.0, "standard": 180.0, "full": 600.0}
GRACE = 15.0  # a sweep kills its own ranks at its timeout; the step waits this much longer
# NVML answers a whole 8-GPU inventory in a few seconds; one that needs minutes is a stuck driver.
INVENTORY_TIMEOUT = 120.0


@dataclass
class Step:
    name: str
    func: Callable[[], list[Any]]
    timeout: float
    on_gpu: bool = True  # uses the GPUs: after one GPU step hangs, the remaining GPU steps are skipped
    isolated: bool = False  # `func` (picklable) runs in a spawned process, killed at the timeout


def run(
    session: Session,
    profile: str = "standard",
    gpus: list[int] | None = None,
    timeout: float | None = None,
    cpu_ranks: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
) -> Facts:
    """Collect the facts of this node (or of a recording) for `profile`.

    Every step has a deadline, the NVML inventory and the host readings included: a step that
    hangs becomes a ProbeFailure (a critical finding) and the report still comes back."""
    facts = Facts()
    # where a Ctrl-C lands: the step running and the steps not yet run (a live run only)
    at = {"step": "NVML inventory", "left": ["host readings", "torch and CUDA check", "measurements"]}
    try:
        steps = _collect(facts, at, session, profile, gpus, timeout, cpu_ranks, progress)
    except KeyboardInterrupt:
        facts.add(Note("probe:runner", "interrupted", f"stopped by Ctrl-C during '{at['step']}'; not run: "
                       + (", ".join(at["left"]) or "nothing")))
        steps = None
    if steps is None and not session.live:
        return facts
    if progress and steps is not None:
        progress("done", len(steps), len(steps))
    sync_pcie_links(facts)
    session.results = dump_results(facts.records)
    return facts


def _collect(facts: Facts, at: dict, session: Session, profile, gpus, timeout, cpu_ranks, progress) -> list | None:
    """The steps of `run`, adding to `facts` as they go; `at` follows the step running. Returns the
    steps run (None on a replay, whose readings and measurements come from the recording)."""
    limit = timeout or INVENTORY_TIMEOUT
    missing: list[str] = []

    def inventory():
        records, lacking = nvml.collect(session, gpus)
        missing.extend(lacking)
        return records

    session.get("clock", "inventory")  # the time base of counters read twice (PCIe replays)
    facts.add(_run_step(Step("NVML inventory", inventory, limit)))
    facts.missing += missing
    gpu_facts = facts.of(GpuFact)
    indices = [g.index for g in gpu_facts]
    switch_links = facts.host("nvswitch_links")
    nvswitch = True if switch_links and switch_links.value else None  # else sysfs decides
    at.update(step="host readings", left=at["left"][1:])
    facts.add(_run_step(Step("host readings", lambda: host.collect(session, nvswitch=nvswitch), limit, on_gpu=False)))
    if not session.live:
        for fact in gpu_facts:
            _reread(session, fact)
        _replays_after(session, gpu_facts)
        sync_pcie_links(facts)
        results = load_results(session.results)
        if gpus is not None:  # --gpus on a replay: what the recording measured on the GPUs chosen
            results = [r for r in results if _within(r, set(indices))]
        facts.add(results)
        return None
    if _hung(facts.records):
        indices = []  # the driver does not answer: no GPU work can be trusted to finish
    # importing torch and asking CUDA for its devices can hang on a broken driver too
    at.update(step="torch and CUDA check", left=at["left"][1:])
    check = _run_step(Step("torch and CUDA check", lambda: [_measurements_blocked(indices, facts)], limit,
                           on_gpu=False))
    skip = check[0] if check and isinstance(check[0], str) else None
    if check and isinstance(check[0], ProbeFailure):
        facts.add(check)
        indices = []
    if skip:
        facts.add(ProbeFailure("probe:runner", "measurements", "skipped", skip))
        indices = []
    # CUDA numbers GPUs fastest-first by default; NVML (and our --gpus) by PCI bus order.
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    devices, notes = cuda_devices([g for g in gpu_facts if g.index in indices], os.environ.get("CUDA_VISIBLE_DEVICES"),
                                  os.environ.get("CUDA_DEVICE_ORDER"))
    facts.add([Note("probe:runner", "not_measured", text) for text in notes])
    indices = [i for i in indices if i in devices]
    steps = plan(session, profile, indices, gpu_facts, timeout, cpu_ranks, devices)
    at.update(step="planning the measurements", left=[s.name for s in steps])
    hung = None
    for n, step in enumerate(steps):
        at.update(step=step.name, left=[s.name for s in steps[n + 1:]])
        if progress:
            progress(step.name, n, len(steps))
        if hung and step.on_gpu:
            facts.add(ProbeFailure("probe:runner", step.name, "skipped",
                                   f"not run because '{hung}' hung: a GPU that stopped answering would hang it too"))
            continue
        records = _run_step(step)
        if step.on_gpu and _hung(records):
            hung = step.name
        facts.add(records)
    at.update(step="the end of the run", left=[])
    if steps and not hung:
        facts.add(_run_step(Step("PCIe replay counters after the measurements",
                                 lambda: _replays_after(session, gpu_facts), limit)))
    return steps


def _replays_after(session: Session, gpu_facts: list[GpuFact]) -> list:
    """Each GPU's PCIe replay counter read again after the measurements, whose host copies and collectives are the
    load: its climb over the run's own seconds is a rate, where a count kept since the GPU's reset is not. The
    GpuFacts are updated in place (on a replay, from the recorded readings, if the recording has them)."""
    start, end = session.get("clock", "inventory"), session.get("clock", "after the measurements")
    if start is None or end is None or end <= start:
        return []
    for fact in gpu_facts:
        if fact.pcie_replay_counter is None:
            continue
        after = session.get("nvml", "nvmlDeviceGetPcieReplayCounter", fact.index, tag="after the measurements")
        if after is not None:
            fact.pcie_replay_counter_after, fact.pcie_replay_window_s = after, round(end - start, 1)
    return []


def _measurements_blocked(indices: list[int], facts: Facts | None = None) -> str | None:
    """Why the torch measurements cannot run here, or None (said once, not once per step)."""
    if not indices:
        return None
    if importlib.util.find_spec("torch") is None:
        return ("torch is not installed, so the collective sweep and kernel timings did not run "
                "(pip install 'diagnose[probes]' or torch with CUDA)")
    if os.environ.get("CUDA_DEVICE_ORDER", "PCI_BUS_ID") != "PCI_BUS_ID":
        return "CUDA_DEVICE_ORDER is not PCI_BUS_ID, so CUDA and NVML would number the GPUs differently"
    import torch  # only here, where GPUs are present and measurements are about to run

    driver = facts.host("cuda_driver_version") if facts is not None else None
    return torch_mismatch(torch.__version__, torch.version.cuda, driver.value if driver else None,
                          torch.cuda.is_available() if torch.version.cuda else False)


def torch_mismatch(version: str, torch_cuda: str | None, driver_cuda: str | None, available: bool) -> str | None:
    """Why this torch cannot use the GPUs NVML sees, in one sentence, or None.

    A CUDA 12.8 or 13.0 wheel on a driver that supports an older CUDA (e.g. 550 -> 12.4)
    reports is_available() False: every GPU step would fail on its own; this says it once."""
    if torch_cuda is None:
        return (f"torch {version} is a CPU-only build, so the collective sweep and kernel timings did not "
                "run (install a CUDA build of torch)")
    if driver_cuda and _version(torch_cuda) > _version(driver_cuda):
        return (f"torch {version} is built for CUDA {torch_cuda} but the driver supports CUDA {driver_cuda} at most, "
                f"so CUDA cannot start and nothing was measured (install a torch built for CUDA {driver_cuda} or "
                "older, or update the driver)")
    if not available:
        return (f"torch {version} (CUDA {torch_cuda}) sees no usable GPU although NVML lists them "
                f"(driver CUDA {driver_cuda or 'unknown'}); nothing was measured")
    return None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in str(text).split(".")[:2] if x.isdigit())


def cuda_devices(gpu_facts: list[GpuFact], visible: str | None,
                 order: str | None = "PCI_BUS_ID") -> tuple[dict[int, int], list[str]]:
    """NVML index -> the CUDA ordinal CUDA gives that GPU in this process, and why others are left out.

    CUDA numbers only the GPUs CUDA_VISIBLE_DEVICES lists (Slurm --gres and containers set it),
    in its order; entries are indices (PCI bus order under CUDA_DEVICE_ORDER=PCI_BUS_ID, NVML's
    order), GPU UUIDs or unique UUID prefixes, or MIG UUIDs. A GPU in MIG mode is reachable
    only through its instances, which are not TP peers, so it is not measured."""
    notes = [f"GPU{g.index} is in MIG mode: CUDA reaches it only through MIG instances, which have no "
             "peer-to-peer, so it was not measured" for g in gpu_facts if g.mig_mode]
    usable = [g for g in gpu_facts if not g.mig_mode]
    if visible is None:
        return {g.index: n for n, g in enumerate(sorted(gpu_facts, key=lambda g: g.index)) if not g.mig_mode}, notes
    chosen: list[GpuFact | None] = []
    for entry in [e.strip() for e in visible.split(",")]:
        if not entry:
            continue
        if entry.isdigit():
            if order != "PCI_BUS_ID":
                notes.append(f"CUDA_VISIBLE_DEVICES={visible} numbers GPUs in CUDA_DEVICE_ORDER={order}, not NVML's "
                             "PCI order: nothing was measured")
                return {}, notes
            chosen.append(next((g for g in gpu_facts if g.index == int(entry)), None))
        elif entry.startswith("MIG-"):
            chosen.append(None)
            notes.append(f"CUDA_VISIBLE_DEVICES entry {entry[:16]}... is a MIG instance: not measured")
        else:
            match = [g for g in gpu_facts if g.uuid and g.uuid.lower().startswith(entry.lower())]
            chosen.append(match[0] if len(match) == 1 else None)
        if chosen[-1] is None:
            break  # CUDA stops enumerating at the first entry it cannot resolve
    out = {}
    for ordinal, g in enumerate(chosen):
        if g is not None and g in usable:
            out[g.index] = ordinal
    hidden = sorted(g.index for g in usable if g.index not in out)
    if hidden:
        notes.append(f"CUDA_VISIBLE_DEVICES={visible} hides GPU{', GPU'.join(map(str, hidden))} from CUDA: "
                     "measured only " + (", ".join(f"GPU{i}" for i in out) or "none"))
    return out, notes


def plan(session, profile: str, gpus: list[int], gpu_facts: list[GpuFact], timeout, cpu_ranks: int,
         devices: dict[int, int] | None = None) -> list[Step]:
    """The steps of `profile`; `devices` maps NVML indices (reported) to CUDA ordinals (used)."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}")
    limit = timeout or DEFAULT_TIMEOUT[profile]
    lo, hi, factor = SWEEPS[profile]
    sizes = sorted(set(collectives.sweep_sizes(lo, hi, factor)) | set(collectives.decode_sizes()))
    steps: list[Step] = []
    if not gpus:
        if cpu_ranks >= 2:
            cpu_sizes = [s for s in sizes if s <= 4 << 20]
            cpu_ops = ("all_reduce",) if profile == "quick" else collectives.OPS
            steps.append(Step(f"collectives: gloo on {cpu_ranks} CPU processes", lambda: collectives.run_sweep(
                None, cpu_ranks, cpu_sizes, cpu_ops, timeout=limit, iters=5, warmup=2, repeats=3),
                limit + GRACE, False))
        return steps
    devices = devices if devices is not None else {g: g for g in gpus}
    on = lambda group: [devices[g] for g in group]  # noqa: E731 - CUDA ordinals of NVML indices
    if profile != "quick":
        for fact in gpu_facts:
            if fact.index in devices and fact.pcie_gen_current is not None and fact.pcie_gen_max \
                    and fact.pcie_gen_current < fact.pcie_gen_max:
                steps.append(Step(f"PCIe link of GPU{fact.index} under load",
                                  lambda f=fact: _under_load(session, f, devices[f.index]), 90))
    if len(gpus) == 1 and profile != "quick":  # one GPU: still proves NCCL initialises and runs
        steps.append(Step(f"NCCL on GPU{gpus[0]} alone", lambda: collectives.run_sweep(
            gpus, 1, [8, 1 << 20], ("all_reduce",), timeout=limit, devices=on(gpus)), limit + GRACE))
    if len(gpus) >= 2:
        ops = ("all_reduce",) if profile == "quick" else collectives.OPS
        for group in collectives.tp_groups(gpus) if profile != "quick" else [gpus]:
            group_ops = ops if (group == gpus or profile == "full") else ("all_reduce",)
            steps.append(Step(f"collectives on GPUs {','.join(map(str, group))}",
                              lambda g=group, o=group_ops: collectives.run_sweep(g, len(g), sizes, o, timeout=limit,
                                                                                 devices=on(g)),
                              limit + GRACE))
    if profile == "quick":
        return steps
    from probes import kernels

    dtypes = ("bf16",) if profile == "standard" else ("bf16", "fp16", "fp8")
    for g in gpus:  # in spawned processes: a kernel or copy that never returns is killed at the deadline
        steps.append(Step(f"HBM, GEMM, GEMV on GPU{g}", partial(kernels.single_gpu, g, devices[g], dtypes), limit,
                          isolated=True))
        steps.append(Step(f"pinned host copies on GPU{g}", partial(kernels.host_copies, g, device=devices[g]), limit,
                          isolated=True))
    if len(gpus) >= 2:
        steps.append(Step("P2P copy matrix", partial(kernels.p2p_matrix, gpus, on(gpus)), limit, isolated=True))
    return steps


GT_PER_GEN = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}


def sync_pcie_links(facts: Facts) -> None:
    """A GPU's sysfs link reading (taken idle) replaced by its NVML reading under load."""
    loaded = {g.bus_id: g for g in facts.of(GpuFact) if g.pcie_read_under_load and g.bus_id}
    for link in facts.of(PcieLinkFact):
        g = loaded.get(link.bus_id)
        if g is None or link.is_bridge:
            continue
        link.sta_speed_gts = GT_PER_GEN.get(g.pcie_gen_current, link.sta_speed_gts)
        link.sta_width = g.pcie_width_current or link.sta_width
        link.source = g.source


def _hung(records: list[Any]) -> bool:
    return any(isinstance(r, ProbeFailure) and r.reason == "timeout" for r in records)


def _run_step(step: Step) -> list[Any]:
    """Run one probe under its deadline: in a spawned process that is killed when it overruns
    (isolated steps), else in a thread, so a hang returns control either way."""
    if step.isolated:
        return _run_isolated(step)
    box: dict[str, Any] = {}

    def target():
        try:
            box["records"] = step.func()
        except Exception as exc:  # noqa: BLE001 - a failed probe is a finding, not a crash
            box["error"] = f"{type(exc).__name__}: {exc}"

    start = time.monotonic()
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    while worker.is_alive() and time.monotonic() - start < step.timeout:
        worker.join(0.2)  # short waits keep Ctrl-C responsive
    seconds = round(time.monotonic() - start, 1)
    if worker.is_alive():
        return [_timeout(step, seconds)]
    if "error" in box:
        return [ProbeFailure("probe:runner", step.name, "error", box["error"], seconds)]
    return [r for r in box.get("records") or [] if r is not None]


def _timeout(step: Step, seconds: float) -> ProbeFailure:
    how = "its process was killed" if step.isolated else "it was abandoned"
    return ProbeFailure("probe:runner", step.name, "timeout",
                        f"'{step.name}' did not finish within {step.timeout:g} s; {how}", seconds)


def _run_isolated(step: Step) -> list[Any]:
    ctx = multiprocessing.get_context("spawn")  # a fresh CUDA context; fork would copy this one
    box = ctx.Queue()
    proc = ctx.Process(target=_isolated, args=(step.func, box), daemon=True)
    start = time.monotonic()
    proc.start()
    try:
        while True:
            try:
                kind, payload = box.get(timeout=0.2)
                break
            except queues.Empty:
                seconds = round(time.monotonic() - start, 1)
                if seconds >= step.timeout:
                    return [_timeout(step, seconds)]
                if not proc.is_alive() and box.empty():
                    return [ProbeFailure("probe:runner", step.name, "error",
                                         f"its process died (exit code {proc.exitcode})", seconds)]
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        box.close()
    seconds = round(time.monotonic() - start, 1)
    if kind == "error":
        return [ProbeFailure("probe:runner", step.name, "error", payload, seconds)]
    return [r for r in payload or [] if r is not None]


def _isolated(func, box) -> None:
    try:
        box.put(("records", list(func())))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        box.put(("error", f"{type(exc).__name__}: {exc}"))


def _under_load(session: Session, fact: GpuFact, device: int) -> list:
    """Re-read the link while the GPU copies; the GpuFact is updated in place, no new record."""
    from probes.kernels import pcie_under_load

    pcie_under_load(session, fact, device)
    return []


def _reread(session: Session, fact: GpuFact) -> None:
    from probes.kernels import reread_under_load

    reread_under_load(session, fact)


def dump_results(records: list[Any]) -> list[dict]:
    """Measured records as JSON for a recording (NVML and host readings are recorded raw)."""
    return [{"type": type(r).__name__, **dataclasses.asdict(r)} for r in records if isinstance(r, MEASURED)]


def _within(record, chosen: set[int]) -> bool:
    """A recorded result measured only on the GPUs `chosen` (a pair's both ends, a collective's group)."""
    if isinstance(record, PairBandwidth):
        return record.a in chosen and record.b in chosen
    if isinstance(record, CollectiveResult) and record.group is not None:
        return set(record.group) <= chosen
    return True


def load_results(rows: list[dict]) -> list[Any]:
    types = {cls.__name__: cls for cls in MEASURED}
    out = []
    for row in rows:
        cls = types.get(row.get("type"))
        if cls is None:
            continue
        fields = {f.name for f in dataclasses.fields(cls)}
        out.append(cls(**{k: v for k, v in row.items() if k in fields}))
    return out

