"""The collective sweep across nodes, one process per GPU, started by torchrun:

    torchrun --nnodes N --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint HOST:29500 \\
        -m probes.multinode --json -o sweep.json

Every rank runs the same sizes and timing as `diagnose node`'s single-node sweep (probes.collectives
.sweep); rank 0 writes a `diagnose.report/1` JSON (kind "node") whose facts hold the nccl-tests
style rows with nodes = N. `--backend gloo` runs it on CPUs (no GPU needed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

from probes import collectives
from probes.results import ProbeFailure

DESTROY_S = 30.0  # destroy_process_group() normally takes well under a second


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m probes.multinode", description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("nccl", "gloo"), default=None,
                        help="default: nccl where CUDA is available")
    parser.add_argument("--sizes", default=None,
                        help="bytes, comma-separated (default: 8 B..1 GiB x4 plus decode sizes)")
    parser.add_argument("--ops", default=",".join(collectives.OPS))
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds the whole sweep may take; a rank that never joins or a collective that "
                             "hangs becomes a timeout record in rank 0's report (default 600)")
    parser.add_argument("--json", action="store_true", help="write the report as JSON (the only format)")
    parser.add_argument("-o", "--output", default="-", help="file for rank 0's report (default stdout)")
    args = parser.parse_args(argv)
    for var in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        if var not in os.environ:
            print(f"probes.multinode: {var} is not set; start this under torchrun", file=sys.stderr)
            return 2
    try:
        sizes = [int(x) for x in args.sizes.split(",")] if args.sizes else sorted(
            set(collectives.sweep_sizes(8, 1 << 30, 4)) | set(collectives.decode_sizes()))
    except ValueError:
        print(f"probes.multinode: --sizes must be integers, got {args.sizes!r}", file=sys.stderr)
        return 2
    ops = [o for o in args.ops.split(",") if o]
    unknown = set(ops) - set(collectives.OPS)
    if unknown:
        print(f"probes.multinode: unknown op(s) {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    if not 1 <= args.timeout <= 86400:
        print(f"probes.multinode: --timeout must be 1..86400 seconds, got {args.timeout:g}", file=sys.stderr)
        return 2
    return run(sizes, ops, args.backend, args.iters, args.output, args.timeout)


def run(sizes, ops, backend, iters, output, timeout: float = 600.0) -> int:
    """Every rank arms a watchdog: at the deadline rank 0 writes a report holding a timeout
    record (a critical finding) and every rank exits, instead of hanging in init or a collective."""
    from datetime import timedelta

    import torch
    import torch.distributed as dist

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ["LOCAL_RANK"])
    per_node = int(os.environ.get("LOCAL_WORLD_SIZE", world))
    nodes = max(1, world // per_node)
    backend = backend or ("nccl" if torch.cuda.is_available() else "gloo")
    source = f"probe:multinode:{backend}:{nodes}x{per_node}"
    inputs = {"nodes": nodes, "ranks": world, "backend": backend}
    start = time.monotonic()
    done, finished = threading.Event(), threading.Event()

    def watchdog():
        if done.wait(timeout):
            if not finished.wait(DESTROY_S):  # the results are out; a blocked teardown must not hang the job
                os._exit(0)
            return
        if rank == 0:
            failure = ProbeFailure(source, "collectives", "timeout",
                                   f"the {world}-rank sweep across {nodes} node(s) did not finish within {timeout:g} s "
                                   "(a rank that never joined, or a collective that hung); every rank was stopped",
                                   seconds=round(time.monotonic() - start, 1),
                                   data={"nranks": world, "backend": backend})
            _write(output, [failure], inputs)
        os._exit(1)  # the hung call cannot be interrupted; the process is ended instead

    threading.Thread(target=watchdog, daemon=True).start()
    device = torch.device("cuda", local) if backend == "nccl" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group(backend, timeout=timedelta(seconds=timeout + 60))  # the watchdog comes first
    config = dict(sizes=sizes, ops=ops, iters=iters, warmup=5, repeats=5, graphs=True)
    notes: list[str] = []
    rows = collectives.sweep(rank, world, config, device, notes)
    gathered = [None] * world if rank == 0 else None
    dist.gather_object(rows, gathered, dst=0)
    if rank == 0:  # written before destroy_process_group(), which can block on a broken peer
        results = collectives.results_from_rows(dict(enumerate(gathered)), world, source, None, backend, nodes=nodes)
        _write(output, results + [ProbeFailure(source, "collectives.graph", "error", n) for n in sorted(set(notes))],
               inputs)
    done.set()
    dist.destroy_process_group()
    finished.set()
    return 0


def _write(output, records, inputs) -> None:
    from diagnose.evidence import Facts
    from diagnose.findings import Report

    facts = Facts()
    facts.add(records)
    report = Report(kind="node", inputs=inputs, facts=facts.to_dict())
    text = json.dumps(report.to_dict(), indent=1)
    if output == "-":
        print(text, flush=True)
    else:
        with open(output, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
