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

from probes import collectives


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m probes.multinode", description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("nccl", "gloo"), default=None, help="default: nccl where CUDA is available")
    parser.add_argument("--sizes", default=None, help="bytes, comma-separated (default: 8 B..1 GiB x4 plus decode sizes)")
    parser.add_argument("--ops", default=",".join(collectives.OPS))
    parser.add_argument("--iters", type=int, default=20)
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
    return run(sizes, ops, args.backend, args.iters, args.output)


def run(sizes, ops, backend, iters, output) -> int:
    import torch
    import torch.distributed as dist

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ["LOCAL_RANK"])
    per_node = int(os.environ.get("LOCAL_WORLD_SIZE", world))
    backend = backend or ("nccl" if torch.cuda.is_available() else "gloo")
    device = torch.device("cuda", local) if backend == "nccl" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group(backend)
    try:
        config = dict(sizes=sizes, ops=ops, iters=iters, warmup=5, repeats=5, graphs=True)
        rows = collectives.sweep(rank, world, config, device)
        gathered = [None] * world if rank == 0 else None
        dist.gather_object(rows, gathered, dst=0)
    finally:
        dist.destroy_process_group()
    if rank != 0:
        return 0
    nodes = max(1, world // per_node)
    results = collectives.results_from_rows(dict(enumerate(gathered)), world, f"probe:multinode:{backend}:{nodes}x{per_node}",
                                   None, backend, nodes=nodes)
    from diagnose.evidence import Facts
    from diagnose.findings import Report

    facts = Facts()
    facts.add(results)
    report = Report(kind="node", inputs={"nodes": nodes, "ranks": world, "backend": backend}, facts=facts.to_dict())
    text = json.dumps(report.to_dict(), indent=1)
    if output == "-":
        print(text)
    else:
        with open(output, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
