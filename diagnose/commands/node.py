"""`diagnose node`: validate this GPU server (or replay a recording of one)."""

from __future__ import annotations

import sys

import click

from diagnose.commands.options import FiniteFloat, InputPath, OutputPath, check_writable, output_options


def gpu_list(text: str | None) -> list[int] | None:
    """'0,1,2,3' -> [0, 1, 2, 3] (GPU indices start at 0, unlike int_list's sizes)."""
    if text is None:
        return None
    try:
        given = [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise click.BadParameter(f"expected GPU indices separated by commas, got {text!r}",
                                 param_hint="--gpus") from None
    values = sorted(set(given))
    if not values or values[0] < 0:
        raise click.BadParameter(f"expected GPU indices 0, 1, 2, ..., got {text!r}", param_hint="--gpus")
    if len(values) < len(given):  # '0,0' is not two GPUs: a typo the run must not quietly shrink to one
        twice = sorted({v for v in given if given.count(v) > 1})
        raise click.BadParameter(f"GPU {', '.join(map(str, twice))} given more than once in {text!r}",
                                 param_hint="--gpus")
    return values


@click.command("node")
@click.option("--quick", is_flag=True,
              help="Inventory, host checks, one short all_reduce sweep (under a minute).")
@click.option("--standard", is_flag=True,
              help="Adds all collectives on TP groups, PCIe under load, HBM/GEMM/GEMV, host and P2P copies (default).")
@click.option("--full", is_flag=True,
              help="Sweep to 1 GiB, every collective on every group, fp16/fp8 GEMM.")
@click.option("--gpus", metavar="LIST", help="Only these GPU indices, e.g. 0,1,2,3.")
@click.option("--record", "record", type=OutputPath(),
              help="Save every raw NVML answer, host reading and measurement to FILE (JSON).")
@click.option("--replay", "replay", type=InputPath("recording"),
              help="Analyse a recording made with --record (or transcribed) instead of this machine.")
@click.option("--timeout", type=FiniteFloat(1, 86400),
              help="Seconds each probe may run before it is killed (default per profile: 60/180/600).")
@click.option("--cpu-ranks", type=click.IntRange(min=0, max=64), default=0, show_default=True,
              help="Without GPUs: run the collective sweep on gloo across this many local CPU processes "
                   "(tests the machinery).")
@output_options
def node(quick, standard, full, gpus, record, replay, timeout, cpu_ranks):
    """Check this GPU server: inventory, topology, host settings, collectives and kernel rates.

    Without an NVIDIA driver or GPU the host checks still run; the report says so with the
    critical finding node.no_gpu (verdict insufficient_data) and the exit code is 1: the box
    cannot serve GPU inference as it stands. Exit 3 only means the tool itself failed.

    \b
    Examples:
      diagnose node --quick
      diagnose node --gpus 0,1,2,3 --record node.json --json -o report.json
      diagnose node --replay samples/node/recording.json
    """
    from diagnose.errors import InputError
    from diagnose.evidence import Facts
    from diagnose.pipeline import run_pipeline
    from probes.recording import LiveSession, ReplaySession
    from rules.engine import node_verdict

    given = [name for name, on in (("quick", quick), ("standard", standard), ("full", full)) if on]
    if len(given) > 1:  # one flag would silently win over the other
        raise InputError(f"{' and '.join('--' + g for g in given)} exclude each other: give one profile")
    profile = given[0] if given else "standard"
    if record and replay:
        raise InputError("--record and --replay exclude each other (a replay records nothing new)")
    if cpu_ranks == 1:
        raise InputError("--cpu-ranks needs at least 2 processes (a collective of one rank measures nothing)")
    selected = gpu_list(gpus)
    if record:
        check_writable(record, "--record")
    session = ReplaySession(replay) if replay else LiveSession()
    facts: Facts = _collect(session, profile, selected, timeout, cpu_ranks)
    if record:
        try:
            session.save(record)
        except OSError as exc:
            raise InputError(f"--record {record}: cannot write ({exc.strerror or exc})") from None
    _check_gpu_selection(facts, selected)
    inputs = {"profile": profile, "gpus": selected, "replay": replay, "record": record,
              "recording_source": _recording_source(session.meta) if replay else None}
    return run_pipeline("node", inputs, facts, decide=node_verdict, tables=tables(facts))


def _recording_source(meta: dict) -> str | None:
    """One line on where a replayed recording came from (its full meta stays in the file)."""
    if meta.get("transcribed_from"):
        return "transcribed from " + meta["transcribed_from"]
    if meta.get("recorded_by"):
        return f"{meta['recorded_by']} on {meta.get('hostname', '?')} at {meta.get('recorded_at', '?')}"
    return None


def _collect(session, profile, gpus, timeout, cpu_ranks):
    from probes import runner

    progress = _progress_bar() if sys.stderr.isatty() and session.live else None
    try:
        return runner.run(session, profile, gpus, timeout, cpu_ranks, progress=progress)
    finally:
        if progress:
            progress.close()


def _check_gpu_selection(facts, selected):
    from diagnose.errors import InputError
    from diagnose.evidence import GpuFact

    count = facts.host("gpu_count")
    if selected and count is not None and count.value:
        unknown = sorted(set(selected) - {g.index for g in facts.of(GpuFact)})
        if unknown:
            raise InputError(f"--gpus {','.join(map(str, unknown))}: this node has GPUs 0..{count.value - 1}")


class _progress_bar:
    """A rich progress bar on stderr; the runner calls it with (step name, done, total)."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                            TimeElapsedColumn(), transient=True, console=Console(stderr=True))
        self.bar.start()
        self.task = self.bar.add_task("probes", total=None)

    def __call__(self, name, done, total):
        self.bar.update(self.task, description=name, completed=done, total=total)

    def close(self):
        self.bar.stop()


def tables(facts) -> dict:
    """What an engineer reads first: the GPUs, the path matrix, the sweep and kernel figures."""
    from diagnose.evidence import CollectiveResult, GpuFact, Measurement, TopologyPath

    out = {}
    gpus = facts.of(GpuFact)
    if gpus:
        out["GPUs"] = {
            "columns": ["gpu", "name", "bus id", "memory GiB", "PCIe now/max", "temp C", "power W", "SM MHz",
                        "clock events", "ECC unc."],
            "rows": [[g.index, g.name, g.bus_id, round(g.memory_total_mib / 1024, 1) if g.memory_total_mib else None,
                      _pcie(g), g.temperature_c, _pair(_watts(g.power_draw_w), _watts(g.power_limit_w)),
                      _pair(g.sm_clock_mhz, g.sm_clock_max_mhz), ", ".join(g.clock_event_reasons) or None,
                      g.ecc_uncorrected_volatile] for g in gpus],
        }
    host = [(name, facts.host(name)) for name in HOST_ROWS]
    out["Host"] = {"columns": ["check", "value", "source"],
                   "rows": [[name, _host_value(f.value), f.source] for name, f in host if f is not None]}
    paths = facts.of(TopologyPath)
    if paths and gpus:
        names = [f"GPU{g.index}" for g in gpus]
        cell = {(p.a, p.b): p.path for p in paths} | {(p.b, p.a): p.path for p in paths}
        out["GPU topology (nvidia-smi topo -m)"] = {
            "columns": [""] + names,
            "rows": [[a] + ["X" if a == b else cell.get((a, b), "?") for b in names] for a in names],
        }
    rows = _collective_rows(facts.of(CollectiveResult))
    if rows:
        out["Collectives (nccl-tests semantics)"] = {
            "columns": ["op", "ranks", "group", "size B", "graph", "time us", "algbw GB/s", "busbw GB/s", "#wrong"],
            "rows": [[r.op, r.nranks, ",".join(map(str, r.group)) if r.group else "cpu", r.size_bytes,
                      "yes" if r.graph else "", round(r.time_us, 2), round(r.algbw_gbs, 3), round(r.busbw_gbs, 3),
                      r.errors] for r in rows],
            "note": "algbw = size / time; busbw = algbw x 2(n-1)/n (all_reduce) or (n-1)/n (all_gather, "
                    "reduce_scatter). Shown: the smallest size, decode-sized messages (16 KiB, 512 KiB), 1 and 16 MiB, "
                    "and the largest; "
                    "every row is in the JSON report (facts.collective_result)."
                    + (" A one-rank row moves no data between GPUs: it checks that NCCL starts and validates, and "
                       "its time is the per-call cost of the stack, not a link's." if any(r.nranks == 1 for r in rows)
                       else ""),
        }
    measured = facts.of(Measurement)
    if measured:
        out["Kernels and copies"] = {
            # batch after the unit: the terminal prints a unit with the numeric columns just before it
            "columns": ["gpu", "metric", "dtype", "value", "unit", "batch"],
            "rows": [[m.gpu, m.metric, m.dtype, round(m.value, 1), m.unit, m.batch] for m in measured],
        }
    return out


SHOWN_SIZES = (16 << 10, 512 << 10, 1 << 20, 16 << 20)  # plus the smallest and the largest


def _collective_rows(results):
    """A readable subset of the sweep: per group, op and graph mode, the sizes in SHOWN_SIZES."""
    series: dict[tuple, list] = {}
    for r in results:
        if r.source.startswith("probe:collectives"):
            series.setdefault((tuple(r.group or ()), r.nranks, r.op, r.graph), []).append(r)
    out = []
    for rows in series.values():
        rows.sort(key=lambda r: r.size_bytes)
        keep = {id(rows[0]), id(rows[-1])}
        for target in SHOWN_SIZES:
            near = min(rows, key=lambda r: abs(r.size_bytes - target))
            if abs(near.size_bytes - target) <= target // 8:
                keep.add(id(near))
        out += [r for r in rows if id(r) in keep]
    return out


HOST_ROWS = ("hostname", "driver_version", "cuda_driver_version", "gpu_count", "shm_bytes", "iommu",
             "acs_enabled_bridges", "numa_nodes", "virtualization", "container", "ib_active_ports", "gdr_module",
             "nvswitch", "fabric_manager")


def _host_value(value):
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    if isinstance(value, int) and not isinstance(value, bool) and value > 2**30:
        return f"{value / 2**30:.1f} GiB"
    return value


def _pcie(g):
    if g.pcie_gen_current is None and g.pcie_width_current is None:
        return None
    now = f"Gen{g.pcie_gen_current} x{g.pcie_width_current}"
    top = f"Gen{g.pcie_gen_max} x{g.pcie_width_max}" if g.pcie_gen_max else "?"
    return f"{now} / {top}" + (" (load)" if g.pcie_read_under_load else "")


def _watts(w):
    """NVML reports milliwatts: a tenth of a watt is all a reader needs."""
    return None if w is None else round(w, 1)


def _pair(a, b):
    if a is None and b is None:
        return None
    return f"{a if a is not None else '?'} / {b if b is not None else '?'}"
