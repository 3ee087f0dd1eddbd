"""`diagnose scaling`: measured TP scaling against the roofline model, term by term."""

from __future__ import annotations

import click

from diagnose.cli import output_options

DTYPES = ("bf16", "fp16", "fp8", "int8", "int4", "mxfp4", "fp32")


@click.command("scaling")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--model", "model_name", required=True, help="Catalog name or a Hugging Face config.json.")
@click.option("--gpu", "gpu_name", required=True, help="GPU type (h100-sxm, a100-80gb-sxm, ...) or an NVML name.")
@click.option("--tp-of", "tp_of", multiple=True, help="FILE=TP or FILE=TP4xDP2 for an input whose layout is in neither its content nor its name; repeatable.")
@click.option("--node", "node_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="`diagnose node --json` report (or nccl-tests output) of the same machine: calibrate with its measured "
              "all-reduce curve, HBM bandwidth and GEMM rate; repeatable.")
@click.option("--slo", help="Latency SLO for goodput, e.g. itl_p95=150ms,ttft_p95=2s.")
@click.option("--gpus", type=click.IntRange(min=1), help="GPU count to fill with replicas for goodput [default: the largest layout].")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True, help="Sequences per decode step for inputs that do not state it.")
@click.option("--prompt", type=click.IntRange(min=1), default=1024, show_default=True, help="Prompt tokens (prefill, TTFT).")
@click.option("--context", type=click.IntRange(min=1), help="KV tokens per sequence during decode [default: prompt + 256].")
@click.option("--dtype", type=click.Choice(DTYPES), help="Weight dtype [default: the checkpoint's].")
@click.option("--kv-dtype", type=click.Choice(("bf16", "fp16", "fp8", "int8", "fp32")), help="KV-cache dtype [default: bf16].")
@click.option("--interconnect", help="Fabric of the TP all-reduce, overriding what the GPU implies (nvswitch3, pcie4, ...).")
@click.option("--gpus-per-node", type=click.IntRange(min=1), default=8, show_default=True,
              help="GPUs per node (TP beyond this crosses the network).")
@output_options
def scaling(inputs, model_name, gpu_name, tp_of, node_files, slo, gpus, batch, prompt, context, dtype, kv_dtype,
            interconnect, gpus_per_node):
    """Explain measured TP scaling: a table per layout beside the prediction, and the decode step split into terms.

    INPUTS are measurements at several layouts: ticket folders or ticket.toml files ([[measured]]
    entries with tp), serving-benchmark outputs (vLLM bench serve text/JSON, SGLang bench_serving),
    one per layout, nsys SQLite captures, one per layout, or a CSV with columns
    layout,batch,metric,value (metrics: decode_tok_s, output_tok_s, itl_ms, tpot_ms, ttft_ms,
    step_ms, prefill_tok_s, allreduce_us; optional stat column: median, p95, ...).

    \b
    Examples:
      diagnose scaling bench_tp1.json bench_tp2.json bench_tp4.json \\
                       --model llama-3-70b --gpu h100-sxm
      diagnose scaling ./ticket-4711/ --model gpt-oss-120b --gpu a100-80gb-sxm
      diagnose scaling runs.csv --model llama-2-7b --gpu a100-80gb-sxm \\
                       --node node.json
      diagnose scaling a.sqlite b.sqlite --tp-of a.sqlite=4 --tp-of b.sqlite=8 \\
                       --model llama-3-70b --gpu h100-sxm --batch 8
    """
    from diagnose import scaling_inputs
    from rules import catalog

    from diagnose.commands.predict import check_lengths

    model = catalog.model(model_name)
    gpu = catalog.gpu(gpu_name)
    check_lengths(model, prompt, context)
    if interconnect:
        catalog.interconnect(interconnect)
    slo_spec = _parse_slo(slo)
    data = scaling_inputs.collect(list(inputs), scaling_inputs.parse_tp_of(tp_of))
    node = _node_facts(node_files)
    return build_report(data, model, gpu, node, slo_spec, gpus=gpus, batch=batch, prompt=prompt, context=context,
                        dtype=dtype, kv_dtype=kv_dtype, interconnect=interconnect, gpus_per_node=gpus_per_node,
                        request={"inputs": list(inputs), "model": model.key, "gpu": gpu.key, "tp_of": list(tp_of),
                                 "node": list(node_files), "slo": slo, "gpus": gpus, "batch": batch, "prompt": prompt,
                                 "context": context, "dtype": dtype, "kv_dtype": kv_dtype, "interconnect": interconnect})


def _parse_slo(text):
    from rules.scaling import parse_slo

    return parse_slo(text)


def _node_facts(files):
    from diagnose.artifacts import read_bundle
    from diagnose.evidence import Facts

    return read_bundle(list(files)) if files else Facts()


def build_report(data, model, gpu, node, slo_spec, *, gpus=None, batch=1, prompt=1024, context=None, dtype=None,
                 kv_dtype=None, interconnect=None, gpus_per_node=8, request=None):
    """The scaling Report: table, per-layout decomposition, findings and verdict."""
    from diagnose.errors import InputError
    from diagnose.findings import Report
    from rules import scaling as S
    from rules.engine import evaluate, verdict

    if not data.runs:
        raise InputError(f"no measurements found in {', '.join(data.files)} (need decode/output tok/s, ITL/TPOT, a step time, "
                         "or a capture per layout)")
    cal = S.calibration(node)
    if node is not None and node.records and cal.empty:
        raise InputError(f"--node {', '.join(sorted({f.name for f in getattr(node, 'files', [])}))}: no all-reduce, HBM or "
                         "GEMM measurements in it (expected a `diagnose node --json` report or nccl-tests output)")
    analysis = S.analyse(data.runs, model, gpu, dtype=dtype, kv_dtype=kv_dtype, prompt=prompt, context=context,
                         interconnect=interconnect, gpus_per_node=gpus_per_node, cal=cal, default_batch=batch)
    total_gpus = gpus or max(r.layout.gpus for r in data.runs)
    if slo_spec:
        analysis["goodput"] = S.goodput(data.runs, slo_spec, total_gpus)
    predictions = {"scaling": analysis}
    findings = evaluate(data.facts, predictions, only=["scaling."])
    layouts = {r["label"] for r in analysis["rows"] if r["step_ms"]}
    missing = [] if layouts else ["a decode figure per layout: ITL/TPOT, decode tok/s at a known batch, or an nsys capture"]
    if len(layouts) == 1:
        missing.append("the same benchmark at a second layout (TP/2 or 2x TP) to judge the scaling")
    report = Report(kind="scaling", inputs=request or {}, facts=_facts_summary(data, node), predictions=predictions,
                    findings=findings, verdict=verdict(findings, missing))
    report.tables[f"Scaling: {model.name} on {gpu.name}"] = scaling_table(analysis)
    report.tables["Decode step decomposition (ms per step)"] = decomposition_table(analysis)
    if analysis.get("goodput"):
        report.tables["Goodput within the SLO"] = goodput_table(analysis["goodput"])
    return report


def _facts_summary(data, node) -> dict:
    """The facts read from the inputs and the calibration files, plus which runs they made."""
    out = data.facts.to_dict()
    if node is not None and node.records:
        out["calibration"] = node.to_dict()
    out["runs"] = [{"layout": r.layout.label(), "batch": r.batch, "sources": r.sources} for r in data.runs]
    return out


SCALING_COLUMNS = ["layout", "GPUs", "batch", "step ms", "measured as", "tok/s/user", "decode tok/s", "prefill tok/s",
                   "ITL p95", "TTFT p95", "speed-up / ideal", "roofline ms", "expected ms", "calibrated ms",
                   "+ base ovh ms", "measured / model", "model explains", "status"]


def scaling_table(analysis: dict) -> dict:
    rows = []
    for r in analysis["rows"]:
        step = r["step_ms"]
        rows.append([
            r["label"], r["gpus"], r["batch"] if r["batch_stated"] or step else "-", _n(step, 3), r["step_how"] or "-",
            _n(1e3 / step if step else None, 1), _n(r["batch"] * r["dp"] * 1e3 / step if step else r["output_tok_s"], 0),
            _n(r["prefill_tok_s"], 0), _n(r["itl_p95_ms"], 1), _n(r["ttft_p95_ms"], 0),
            f"{r['speedup']:.2f}x / {r['ideal_speedup']:g}x" if r.get("speedup") else "-",
            _n(r["roofline_ms"], 3), _n(r["expected_ms"], 3), _n(r["calibrated_ms"], 3), _n(r.get("anchored_ms"), 3),
            f"{r['ratio']:.2f}" if r.get("ratio") else "-",
            f"{r['explained_share']:.0%}" if r.get("explained_share") is not None else "-", r.get("status", "no decode figure"),
        ])
    cal = analysis["calibration"]
    note = ("roofline: datasheet bandwidth and FLOPs (nothing real is faster); expected: the predictor's efficiencies "
            "(MBU 0.75, NCCL ring latency); calibrated: " + ("; ".join(cal) if cal else "no node measurements given, so the "
            "expected figures") + ". '+ base ovh': calibrated + the smallest layout's overhead beyond the model, the "
            f"figure each layout is judged against (tracks when measured / model <= {analysis['tolerance']}). 'model explains': the share "
            "of the gap between the roofline and the measured step that calibrated model + base overhead account for.")
    keep = [i for i, c in enumerate(SCALING_COLUMNS) if any(row[i] != "-" for row in rows) or c == "step ms"]
    return {"columns": [SCALING_COLUMNS[i] for i in keep], "rows": [[row[i] for i in keep] for row in rows], "note": note}


def decomposition_table(analysis: dict) -> dict:
    from rules.scaling import TERMS

    columns = ["layout", "batch", "measured", "weights", "KV+act", "GEMM extra", "all-reduce", "AR calls x us", "launch",
               "PP bubble", "unexplained", "AR source"]
    rows = []
    for r in analysis["rows"]:
        t = r["terms"]
        ar_us = r["allreduce_measured_us"] if r["allreduce_measured_us"] is not None else r["allreduce_ref_us"]
        rows.append([r["label"], r["batch"], _n(r["step_ms"], 3)] + [_n(t.get(k), 3) for k in TERMS[:4]]
                    + [f"{r['allreduce_count']} x {ar_us:.1f}"] + [_n(t.get(k), 3) for k in TERMS[4:]]
                    + ["measured" if r["allreduce_measured_us"] is not None else r["allreduce_ref_source"].split(" (")[0]])
    return {"columns": columns, "rows": rows,
            "note": "Terms per GPU per decode step; streaming and GEMM overlap, so 'GEMM extra' is the compute beyond "
                    "streaming. unexplained = measured - the sum of the modelled terms."}


def goodput_table(g: dict) -> dict:
    rows = [[e["label"], e["gpus"], ", ".join(f"{run['batch']}:{'ok' if run['met'] else 'miss'}" for run in e["runs"]),
             _n(e["goodput"], 0), e["replicas"], _n(e["fleet_goodput"], 0), "best" if e["label"] == g["best"] else ""]
            for e in g["layouts"]]
    return {"columns": ["layout", "GPUs", "concurrency: SLO", "goodput tok/s", f"replicas on {g['gpus']}", "total tok/s", ""],
            "rows": rows, "note": "A run counts when every SLO percentile is met (a missing percentile is replaced by the "
                                  "next higher one reported)."}


def _n(value, digits: int):
    if value is None:
        return "-"
    return round(value) if digits == 0 else round(value, digits)
