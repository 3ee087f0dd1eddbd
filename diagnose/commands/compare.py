"""`diagnose compare A B`: what got worse between two runs of the same kind."""

from __future__ import annotations

import click

from diagnose.commands.options import FiniteFloat, InputPath, gpu_count, output_options


@click.command("compare")
@click.argument("a")
@click.argument("b")
@click.option("--threshold", type=FiniteFloat(0, 1000), default=10.0, show_default=True,
              help="Regression threshold in percent: a metric worse than this fails the comparison.")
@click.option("--db", "db_path", type=InputPath("database", missing_ok=True),
              help="Results database for run ids (default $DIAGNOSE_DB, else ~/.local/share/diagnose/runs.db).")
@click.option("--model", help="For two nsys captures: the model, as `diagnose capture --model`.")
@click.option("--tp", type=gpu_count(), help="For two nsys captures: the tensor-parallel size.")
@output_options
def compare(a, b, threshold, db_path, model, tp):
    """Diff run B against run A and exit 1 on a regression beyond --threshold.

    A and B are run ids from `diagnose history`, report JSON files (`--json -o FILE` of any
    command), or two nsys SQLite exports analysed on the fly (one export per rank: join the
    files of one run with commas). What is compared: for two node reports, each collective
    and message size (bus bandwidth for messages of 1 MiB and up, time for smaller ones), each
    GPU pair, NVLink and PCIe link; for two captures, GPU time per kernel class and the step
    time's median and p95; for any kind, problems B reports that A did not.

    \b
    Examples:
      diagnose compare 41 42
      diagnose compare samples/fleet/hgx-h100-nvlink-status-mig-disabled.json \\
          samples/fleet/dgx-h100-topo-numa.json --threshold 5
      diagnose compare samples/captures/tp4_nvlink_healthy.sqlite \\
          samples/captures/tp8_pcie_fallback.sqlite --format html -o diff.html
    """
    from diagnose.compare import compare as diff
    from diagnose.compare import load_run

    options = {k: v for k, v in (("model", model), ("tp", tp)) if v is not None}
    report_a, label_a = load_run(a, db_path, options)
    report_b, label_b = load_run(b, db_path, options)
    if label_a == label_b:
        label_a, label_b = f"A ({label_a})", f"B ({label_b})"
    return diff(report_a, report_b, threshold / 100.0, labels=(label_a, label_b))
