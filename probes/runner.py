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
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from diagnose.evidence import Facts, GpuFact, Note, PcieLinkFact
from probes import collectives, host, nvml
from probes.recording import Session
from probes.results import MEASURED, ProbeFailure

PROFILES = ("quick", "standard", "full")
# (min bytes, max bytes, factor) of the sweep, per profile
SWEEPS = {"quick": (8, 64 << 20, 8), "standard": (8, 256 << 20, 4), "full": (8, 1 << 30, 2)}
DEFAULT_TIMEOUT = {"quick": 60.0, "standard": 180.0, "full": 600.0}
GRACE = 15.0  # a sweep kills its own ranks at its timeout; the step waits this much longer


@dataclass
class Step:
    name: str
    func: Callable[[], list[Any]]
    timeout: float
    on_gpu: bool = True  # runs CUDA work in this process: after one hangs, the GPU is not trusted


def run(
    session: Session,
    profile: str = "standard",
    gpus: list[int] | None = None,
    timeout: float | None = None,
    cpu_ranks: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
) -> Facts:
    """Collect the facts of this node (or of a recording) for `profile`."""
    facts = Facts()
    records, missing = nvml.collect(session, gpus)
    facts.add(records)
    facts.missing += missing
    gpu_facts = facts.of(GpuFact)
    indices = [g.index for g in gpu_facts]
    switch_links = facts.host("nvswitch_links")
    nvswitch = True if switch_links and switch_links.value else None  # else sysfs decides
    facts.add(host.collect(session, nvswitch=nvswitch))
    if not session.live:
        for fact in gpu_facts:
            _reread(session, fact)
        sync_pcie_links(facts)
        facts.add(load_results(session.results))
        return facts
    skip = _measurements_blocked(indices)
    if skip:
        facts.add(ProbeFailure("probe:runner", "measurements", "skipped", skip))
        indices = []
    # CUDA numbers GPUs fastest-first by default; NVML (and our --gpus) by PCI bus order.
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    steps = plan(session, profile, indices, gpu_facts, timeout, cpu_ranks)
    hung = None
    try:
        for n, step in enumerate(steps):
            if progress:
                progress(step.name, n, len(steps))
            if hung and step.on_gpu:
                facts.add(ProbeFailure("probe:runner", step.name, "skipped", f"not run because '{hung}' hung in this process"))
                continue
            records = _run_step(step)
            if step.on_gpu and any(isinstance(r, ProbeFailure) and r.reason == "timeout" for r in records):
                hung = step.name
            facts.add(records)
    except KeyboardInterrupt:
        done = n if steps else 0
        facts.add(Note("probe:runner", "interrupted",
                       f"stopped by Ctrl-C during '{steps[done].name}'; not run: "
                       + ", ".join(s.name for s in steps[done:])))
    if progress:
        progress("done", len(steps), len(steps))
    sync_pcie_links(facts)
    session.results = dump_results(facts.records)
    return facts


def _measurements_blocked(indices: list[int]) -> str | None:
    """Why the torch measurements cannot run here, or None."""
    if not indices:
        return None
    if importlib.util.find_spec("torch") is None:
        return ("torch is not installed, so the collective sweep and kernel timings did not run "
                "(pip install 'diagnose[probes]' or torch with CUDA)")
    if os.environ.get("CUDA_VISIBLE_DEVICES") is not None:
        return ("CUDA_VISIBLE_DEVICES is set, so CUDA and NVML would number the GPUs differently; "
                "the measurements did not run (unset it and choose GPUs with --gpus)")
    if os.environ.get("CUDA_DEVICE_ORDER", "PCI_BUS_ID") != "PCI_BUS_ID":
        return "CUDA_DEVICE_ORDER is not PCI_BUS_ID, so CUDA and NVML would number the GPUs differently"
    import torch  # only here, where GPUs are present and measurements are about to run

    if torch.version.cuda is None:
        return (f"torch {torch.__version__} is a CPU-only build, so the collective sweep and kernel timings did not "
                "run (install a CUDA build of torch)")
    return None


def plan(session, profile: str, gpus: list[int], gpu_facts: list[GpuFact], timeout, cpu_ranks: int) -> list[Step]:
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
                None, cpu_ranks, cpu_sizes, cpu_ops, timeout=limit, iters=5, warmup=2, repeats=3), limit + GRACE, False))
        return steps
    if profile != "quick":
        from probes import kernels

        for fact in gpu_facts:
            if fact.pcie_gen_current is not None and fact.pcie_gen_max and fact.pcie_gen_current < fact.pcie_gen_max:
                steps.append(Step(f"PCIe link of GPU{fact.index} under load",
                                  lambda f=fact: _under_load(session, f), 30))
    if len(gpus) == 1 and profile != "quick":  # one GPU: still proves NCCL initialises and runs
        steps.append(Step(f"NCCL on GPU{gpus[0]} alone", lambda: collectives.run_sweep(
            gpus, 1, [8, 1 << 20], ("all_reduce",), timeout=limit), limit + GRACE, False))
    if len(gpus) >= 2:
        ops = ("all_reduce",) if profile == "quick" else collectives.OPS
        for group in collectives.tp_groups(gpus) if profile != "quick" else [gpus]:
            group_ops = ops if (group == gpus or profile == "full") else ("all_reduce",)
            steps.append(Step(f"collectives on GPUs {','.join(map(str, group))}",
                              lambda g=group, o=group_ops: collectives.run_sweep(g, len(g), sizes, o, timeout=limit),
                              limit + GRACE, False))
    if profile == "quick":
        return steps
    from probes import kernels

    dtypes = ("bf16",) if profile == "standard" else ("bf16", "fp16", "fp8")
    for g in gpus:
        steps.append(Step(f"HBM, GEMM, GEMV on GPU{g}", lambda g=g: [kernels.hbm_bandwidth(g)]
                          + [kernels.gemm_tflops(g, d) for d in dtypes] + kernels.gemv(g), limit))
        steps.append(Step(f"pinned host copies on GPU{g}", lambda g=g: kernels.host_copies(g), limit))
    if len(gpus) >= 2:
        steps.append(Step("P2P copy matrix", lambda: kernels.p2p_matrix(gpus), limit))
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


def _run_step(step: Step) -> list[Any]:
    """Run one in-process probe in a thread, so its timeout returns control even if it hangs."""
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
        return [ProbeFailure("probe:runner", step.name, "timeout", f"'{step.name}' did not finish within {step.timeout:g} s", seconds)]
    if "error" in box:
        return [ProbeFailure("probe:runner", step.name, "error", box["error"], seconds)]
    return [r for r in box.get("records") or [] if r is not None]


def _under_load(session: Session, fact: GpuFact) -> list:
    """Re-read the link while the GPU copies; the GpuFact is updated in place, no new record."""
    from probes.kernels import pcie_under_load

    pcie_under_load(session, fact)
    return []


def _reread(session: Session, fact: GpuFact) -> None:
    from probes.kernels import reread_under_load

    reread_under_load(session, fact)


def dump_results(records: list[Any]) -> list[dict]:
    """Measured records as JSON for a recording (NVML and host readings are recorded raw)."""
    return [{"type": type(r).__name__, **dataclasses.asdict(r)} for r in records if isinstance(r, MEASURED)]


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

