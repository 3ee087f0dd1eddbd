"""`diagnose capture FILE [FILE...]`: why an Nsight Systems capture of TP inference is slow."""

from __future__ import annotations

import click

from diagnose.commands.options import InputPath, OutputPath, batch_size, gpu_count, output_options


@click.command("capture")
@click.argument("files", nargs=-1, required=True, type=InputPath("capture"))
@click.option("--model", help="Model name or config.json, to compare the step with the roofline.")
@click.option("--tp", type=gpu_count(), help="Tensor-parallel size of the run.")
@click.option("--pp", type=gpu_count(), help="Pipeline-parallel size of the run.")
@click.option("--gpu", help="GPU catalog name (default: the GPU named in the capture).")
@click.option("--batch", type=batch_size(), help="Sequences per decode step.")
@click.option("--step", "step_name",
              help="NVTX range that marks one step (default: auto-detect, else the kernel pattern).")
@click.option("--stats", is_flag=True,
              help="Also print the full nsys-stats tables (kernels, CUDA API, memory ops, NVTX).")
@click.option("--stats-dir", type=OutputPath(folder=True),
              help="Also write every nsys-stats summary, all rows, as CSV here.")
@click.option("--nvtx-gpu", is_flag=True, help="Also attribute GPU kernel time to NVTX ranges (kernels launched inside "
                                               "each range, by correlationId).")
@click.option("--node", "node_files", multiple=True, type=InputPath("report"),
              help="`nvidia-smi topo -m` output or a `diagnose node --json` report of the machine the capture ran on: "
                   "the expected all-reduce takes the TP ring's route it shows (PCIe path, CPUs); repeatable.")
@output_options
def capture(files, model, tp, pp, gpu, batch, step_name, stats, stats_dir, nvtx_gpu, node_files):
    """Explain where GPU time went in nsys SQLite exports: one file, or one file per rank.

    Reads the file read-only (any Nsight Systems version), summarises it as `nsys stats` does,
    splits each GPU's time into compute, exposed communication, copies and idle, measures
    launch overhead, steps and cross-rank skew, and ranks what is wrong.

    \b
    Examples:
      diagnose capture samples/captures/tp8_pcie_fallback.sqlite \\
        --model llama-3-70b --tp 8 --gpu h100-sxm --batch 8
      diagnose capture samples/captures/straggler_rank*.sqlite
      diagnose capture samples/captures/tp4_nvlink_healthy.sqlite --stats --json
      diagnose capture samples/captures/tp4_nvlink_healthy.sqlite --nvtx-gpu
    """
    return analyse(list(files), model=model, tp=tp, pp=pp, gpu=gpu, batch=batch, step_name=step_name, stats=stats,
                   stats_dir=stats_dir, nvtx_gpu=nvtx_gpu, node=list(node_files))


def analyse(files, model=None, tp=None, pp=None, gpu=None, batch=None, step_name=None, stats=False, stats_dir=None,
            nvtx_gpu=False, node=()):
    """The capture report (also used by `diagnose compare` on two captures)."""
    from diagnose import capture_report

    if isinstance(files, str):
        files = [files]
    files = _exported(files)
    if gpu:  # an unknown name is bad input, named with the closest catalog names (as `predict` does)
        from rules import catalog

        catalog.gpu(gpu)
    return capture_report.build(files, model=model, tp=tp, pp=pp, gpu=gpu, batch=batch,
                                step_name=step_name, full_stats=stats, stats_dir=stats_dir, nvtx_gpu=nvtx_gpu,
                                node=node)


def _exported(files: list) -> list:
    """.nsys-rep reports exported to SQLite by the installed nsys (saying so on stderr)."""
    from diagnose.capture import nsysrep

    out = []
    for f in files:
        if nsysrep.is_report(f):
            sqlite = nsysrep.to_sqlite(f)
            click.echo(f"diagnose: {f}: exported with `nsys export --type sqlite` to {sqlite} (temporary)", err=True)
            f = sqlite
        out.append(f)
    return out
