"""Collective sweep (all_reduce, all_gather, reduce_scatter) reported as nccl-tests reports it.

Each GPU group (the whole node, pairs, halves: the groups a TP layout would use) runs in its
own worker processes (spawn), one per rank, under a timeout: a rank that hangs is killed and
the sweep comes back as a `ProbeFailure` instead of hanging the tool. With GPUs the backend is
NCCL, small sizes are also timed under CUDA graphs and timing uses CUDA events; without GPUs
the same machinery runs on `gloo` across local CPU processes.

Bandwidths follow nccl-tests (doc/PERFORMANCE.md): S is the size column (for all_gather the
gathered output, for reduce_scatter the input), algbw = S / t, busbw = algbw x factor with
factor 2(n-1)/n for all_reduce, (n-1)/n for all_gather and reduce_scatter, 1 for broadcast
and reduce. torch is imported only inside the functions that need it.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import warnings
from typing import Any

from diagnose.evidence import CollectiveResult, bus_factor
from probes.results import ProbeFailure

OPS = ("all_reduce", "all_gather", "reduce_scatter")
ELEMENT_BYTES = 4  # float32, nccl-tests' default type
# Sizes up to this are also timed under a CUDA graph: the largest decode all-reduce of
# decode_sizes() (hidden 8192 x batch 128 x 2 bytes = 2 MiB) is what a served decode step sends.
GRAPH_MAX_BYTES = 2 << 20
# What torch warns when a capture recorded no work (aten/src/ATen/cuda/CUDAGraph.cpp, capture_end).
EMPTY_GRAPH = "CUDA Graph is empty"


def bandwidths(op: str, size_bytes: int, time_us: float, nranks: int) -> tuple[float, float]:
    """(algbw, busbw) in GB/s (1e9 bytes/s) for one collective of `size_bytes` taking `time_us`."""
    algbw = size_bytes / (time_us * 1e-6) / 1e9 if time_us > 0 else 0.0
    return algbw, algbw * bus_factor(op, nranks)


def sweep_sizes(min_bytes: int = 8, max_bytes: int = 1 << 30, factor: int = 2) -> list[int]:
    """nccl-tests' -b/-e/-f geometric sweep."""
    sizes, size = [], min_bytes
    while size <= max_bytes:
        sizes.append(size)
        size *= factor
    return sizes


def decode_sizes(hidden=(4096, 5120, 8192), batches=(1, 8, 32, 128), dtype_bytes: int = 2) -> list[int]:
    """The all-reduce messages a TP decode step sends: hidden x batch x bytes per element."""
    return sorted({h * b * dtype_bytes for h in hidden for b in batches})


def op_size(op: str, size_bytes: int, nranks: int) -> int:
    """The size actually run: whole float32 elements, divisible by nranks where the op splits."""
    count = max(1, size_bytes // ELEMENT_BYTES)
    if op in ("all_gather", "reduce_scatter"):
        count = max(nranks, count - count % nranks)
    return count * ELEMENT_BYTES


def run_sweep(
    group: list[int] | None,
    nranks: int,
    sizes: list[int],
    ops=OPS,
    backend: str | None = None,
    timeout: float = 120.0,
    iters: int = 20,
    warmup: int = 5,
    repeats: int = 5,
    graphs: bool = True,
    missing_ranks: tuple[int, ...] = (),
    devices: list[int] | None = None,
) -> list[Any]:
    """One sweep over one group: CollectiveResult rows, or a ProbeFailure when it failed or hung.

    `group` lists the GPU indices (None on gloo) the results are labelled with, `devices` the CUDA
    ordinals the ranks use (the same unless CUDA_VISIBLE_DEVICES renumbers them); `missing_ranks`
    are ranks never started, which is what a rank that never joins looks like to the others
    (used to prove the timeout works).
    """
    import torch.multiprocessing as mp

    backend = backend or ("nccl" if group else "gloo")
    label = f"gpus {','.join(map(str, group))}" if group else f"{nranks} cpu processes"
    source = f"probe:collectives:{backend}:" + (",".join(map(str, group)) if group else f"cpu{nranks}")
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    fd, store = tempfile.mkstemp(prefix="diagnose-store-")
    os.close(fd)
    os.unlink(store)  # the file store wants to create it
    config = dict(backend=backend, sizes=sizes, ops=list(ops), iters=iters, warmup=warmup,
                  repeats=repeats, graphs=graphs, group=group, store=store, timeout=timeout,
                  devices=devices or group)
    procs = []
    start = time.monotonic()
    for rank in range(nranks):
        if rank in missing_ranks:
            continue
        p = ctx.Process(target=_worker, args=(rank, nranks, config, queue), daemon=True)
        p.start()
        procs.append(p)
    rows: dict[int, list] = {}
    notes: set[str] = set()
    failure = None
    try:
        while len(rows) < len(procs):
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                failure = ProbeFailure(source, "collectives", "timeout",
                                       f"sweep on {label} did not finish within {timeout:g} s "
                                       f"({len(rows)} of {len(procs)} started ranks reported, {nranks} expected); "
                                       "its processes were killed",
                                       seconds=round(time.monotonic() - start, 1), group=group,
                                       data={"nranks": nranks, "backend": backend})
                break
            try:
                kind, rank, payload = queue.get(timeout=min(left, 1.0))
            except Exception:  # queue.Empty: keep waiting, and notice ranks that died
                dead = [p for p in procs if p.exitcode not in (None, 0)]
                if dead:
                    failure = ProbeFailure(source, "collectives", "error",
                                           f"a rank of the sweep on {label} died (exit code {dead[0].exitcode})",
                                           seconds=round(time.monotonic() - start, 1), group=group)
                    break
                continue
            if kind == "error":
                failure = ProbeFailure(source, "collectives", "error", f"rank {rank} on {label}: {payload}",
                                       seconds=round(time.monotonic() - start, 1), group=group)
                break
            rows[rank] = payload["rows"]
            notes.update(payload["notes"])
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
        for p in procs:
            p.join(5)
        queue.close()
        if os.path.exists(store):
            os.unlink(store)
    if failure:
        return [failure]
    kept = [ProbeFailure(source, "collectives.graph", "error", note, group=group) for note in sorted(notes)]
    return results_from_rows(rows, nranks, source, group, backend) + kept


def results_from_rows(rows: dict[int, list], nranks: int, source: str, group, backend: str,
                      nodes: int = 1) -> list[CollectiveResult]:
    """Per (op, size, graph): the slowest rank's median time decides, as a collective does."""
    merged: dict[tuple, list] = {}
    for rank_rows in rows.values():
        for op, size, graph, time_us, wrong in rank_rows:
            merged.setdefault((op, size, graph), []).append((time_us, wrong))
    out = []
    for (op, size, graph), values in sorted(
            merged.items(), key=lambda kv: (OPS.index(kv[0][0]) if kv[0][0] in OPS else 9, kv[0][2], kv[0][1])):
        time_us = max(t for t, _ in values)
        algbw, busbw = bandwidths(op, size, time_us, nranks)
        out.append(CollectiveResult(
            source=source, op=op, size_bytes=size, time_us=time_us, algbw_gbs=algbw, busbw_gbs=busbw, nranks=nranks,
            nodes=nodes, count=size // ELEMENT_BYTES, dtype="float",
            in_place=op == "all_reduce",  # all_reduce runs on its buffer; the others write a separate output
            errors=sum(w for _, w in values), graph=graph, group=group,
            tool=f"diagnose ({backend})",
        ))
    return out


# --------------------------------------------------------------------------- worker process


def _worker(rank: int, nranks: int, config: dict, queue) -> None:
    """One rank: its rows go to the parent before the process group is destroyed, because
    destroy_process_group() can itself block on a broken peer; the parent kills what lingers."""
    try:
        queue.put(("result", rank, _measure(rank, nranks, config)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        queue.put(("error", rank, f"{type(exc).__name__}: {exc}"))
        return
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()


def _measure(rank: int, nranks: int, config: dict) -> dict:
    from datetime import timedelta

    import torch
    import torch.distributed as dist

    cuda = config["backend"] == "nccl"
    device = torch.device("cuda", config["devices"][rank]) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    dist.init_process_group(
        config["backend"], init_method=f"file://{config['store']}", rank=rank, world_size=nranks,
        timeout=timedelta(seconds=config["timeout"] + 60),  # our kill comes first
    )
    notes: list[str] = []
    return {"rows": sweep(rank, nranks, config, device, notes), "notes": notes}


def sweep(rank: int, nranks: int, config: dict, device, notes: list[str] | None = None) -> list[tuple]:
    """This rank's rows (op, size, graph, median us, wrong elements) in an initialised process
    group; the single-node workers and the torchrun entry point (probes.multinode) share it.

    A CUDA-graph capture that fails loses only its graph row: the eager rows stay, and the
    failure is said once in `notes`."""
    import torch
    import torch.distributed as dist

    cuda = device.type == "cuda"
    rows = []
    graph_failed = False
    for op in config["ops"]:
        for size in config["sizes"]:
            size = op_size(op, size, nranks)
            bufs = _buffers(torch, op, size, nranks, rank, device)
            wrong = _validate(torch, dist, op, bufs, nranks, rank)
            call = _op_call(dist, op, bufs)
            rows.append((op, size, False, _time(torch, dist, call, config, cuda), wrong))
            if cuda and config["graphs"] and size <= GRAPH_MAX_BYTES and not graph_failed:
                try:
                    graph_us = _time_graph(torch, call, config)
                    if graph_us is not None:
                        rows.append((op, size, True, graph_us, wrong))
                except Exception as exc:  # noqa: BLE001 - the eager timings stand without it
                    graph_failed = True
                    if notes is not None:
                        notes.append(f"CUDA-graph capture of {op} failed ({type(exc).__name__}: {str(exc)[:120]}); "
                                     "eager timings kept, graph timings missing")
    dist.barrier()
    return rows


def _buffers(torch, op: str, size: int, nranks: int, rank: int, device):
    count = size // ELEMENT_BYTES
    if op == "all_reduce":
        return {"x": torch.full((count,), float(rank + 1), device=device)}
    if op == "all_gather":
        return {"x": torch.full((count // nranks,), float(rank + 1), device=device),
                "out": torch.empty(count, device=device)}
    return {"x": torch.full((count,), float(rank + 1), device=device),
            "out": torch.empty(count // nranks, device=device)}


def _op_call(dist, op: str, bufs):
    if op == "all_reduce":
        return lambda: dist.all_reduce(bufs["x"])
    gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
    scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
    if op == "all_gather":
        return lambda: gather(bufs["out"], bufs["x"])
    return lambda: scatter(bufs["out"], bufs["x"])


def _validate(torch, dist, op: str, bufs, nranks: int, rank: int) -> int:
    """One checked call, as nccl-tests' #wrong column: elements that differ from the expected."""
    total = nranks * (nranks + 1) / 2
    if op == "all_reduce":
        dist.all_reduce(bufs["x"])
        wrong = int((bufs["x"] != total).sum())
        bufs["x"].fill_(float(rank + 1))
        return wrong
    _op_call(dist, op, bufs)()
    if op == "all_gather":
        per = bufs["x"].numel()
        expected = torch.arange(1, nranks + 1, dtype=bufs["out"].dtype,
                                device=bufs["out"].device).repeat_interleave(per)
        return int((bufs["out"] != expected).sum())
    return int((bufs["out"] != total).sum())


def _time(torch, dist, call, config: dict, cuda: bool) -> float:
    """Median over repeats of (time for `iters` back-to-back calls) / iters, in microseconds."""
    for _ in range(config["warmup"]):
        call()
    samples = []
    for _ in range(config["repeats"]):
        if cuda:
            torch.cuda.synchronize()
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            for _ in range(config["iters"]):
                call()
            end.record()
            end.synchronize()
            samples.append(begin.elapsed_time(end) * 1e3 / config["iters"])
        else:
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(config["iters"]):
                call()
            samples.append((time.perf_counter() - t0) * 1e6 / config["iters"])
    return statistics.median(samples)


def _time_graph(torch, call, config: dict) -> float | None:
    """The same calls captured once in a CUDA graph and replayed: no launch overhead per call.

    None where the capture holds no GPU work, so a replay would time nothing: NCCL's one-rank, in-place
    all-reduce enqueues none (on the lent H200, torch warned "The CUDA Graph is empty" and the replay
    took 0.69 us for 8 B and 1 MiB alike, tests/recordings/h200-vm-one-gpu-live-record.json)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        call()  # NCCL needs one eager call on the capture stream before capture
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.cuda.graph(graph):
            for _ in range(config["iters"]):
                call()
    if any(EMPTY_GRAPH in str(w.message) for w in caught):
        return None
    for _ in range(2):
        graph.replay()
    samples = []
    for _ in range(config["repeats"]):
        torch.cuda.synchronize()
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        graph.replay()
        end.record()
        end.synchronize()
        samples.append(begin.elapsed_time(end) * 1e3 / config["iters"])
    return statistics.median(samples)


def tp_groups(gpus: list[int]) -> list[list[int]]:
    """The groups a TP layout would use: the whole node, then halves, then pairs."""
    groups = [list(gpus)]
    n = len(gpus)
    if n >= 4 and n % 2 == 0:
        groups += [gpus[: n // 2], gpus[n // 2:]]
    if n >= 4:
        groups += [gpus[i:i + 2] for i in range(0, n - 1, 2)]
    return groups
