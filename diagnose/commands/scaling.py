"""`diagnose scaling`: measured TP scaling against the roofline model, term by term."""

from __future__ import annotations

import click

from diagnose.commands.options import (
    CHECKPOINT_WEIGHTS,
    InputPath,
    batch_size,
    build_option,
    gpu_count,
    output_options,
    quant_option,
    stated_builds,
    token_count,
    weights,
)
from diagnose.commands.predict import DTYPES  # one list of weight dtypes for predict, plan and scaling


@click.command("scaling")
@click.argument("inputs", nargs=-1, required=True, type=InputPath("measurements", folder=None))
@click.option("--model", "model_name",
              help="Catalog name or a Hugging Face config.json [default: what the inputs name].")
@click.option("--gpu", "gpu_name",
              help="GPU type (h100-sxm, a100-80gb-sxm, ...) or an NVML name [default: what the inputs name].")
@click.option("--engine",
              help="Serving engine that ran the inputs (vllm, sglang, trtllm, ...) [default: what the inputs name, "
                   "else generic].")
@click.option("--tp-of", "tp_of", multiple=True,
              help="FILE=TP or FILE=TP4xDP2 for an input whose layout is in neither its content "
                   "nor its name; repeatable.")
@click.option("--node", "node_files", multiple=True, type=InputPath("report"),
              help="`diagnose node --json` report (or nccl-tests output) of the same machine: calibrate with its "
                   "measured all-reduce curve, HBM bandwidth and GEMM rate; `nvidia-smi topo -m` output: each "
                   "layout's all-reduce takes the TP ring's route it shows (PCIe path, CPUs); repeatable.")
@click.option("--slo", help="Latency SLO for goodput, e.g. itl_p95=150ms,ttft_p95=2s.")
@click.option("--gpus", type=gpu_count(),
              help="GPU count to fill with replicas for goodput [default: the largest layout].")
@click.option("--batch", type=batch_size(), default=1, show_default=True,
              help="Sequences per decode step for inputs that do not state it.")
@click.option("--prompt", type=token_count(), default=1024, show_default=True, help="Prompt tokens (prefill, TTFT).")
@click.option("--context", type=token_count(), help="KV tokens per sequence during decode [default: prompt + 256].")
@click.option("--dtype", type=click.Choice(DTYPES), help="Weight dtype [default: the checkpoint's].")
@click.option("--kv-dtype", type=click.Choice(("bf16", "fp16", "fp8", "int8", "fp32")),
              help="KV-cache dtype [default: bf16].")
@click.option("--interconnect",
              help="Fabric of the TP all-reduce, overriding what the GPU implies (nvswitch3, pcie4, ...).")
@click.option("--gpus-per-node", type=gpu_count(), default=8, show_default=True,
              help="GPUs per node (TP beyond this crosses the network).")
@quant_option
@build_option
@output_options
def scaling(inputs, model_name, gpu_name, engine, tp_of, node_files, slo, gpus, batch, prompt, context, dtype, kv_dtype,
            interconnect, gpus_per_node, quant, build):
    """Explain measured TP scaling: a table per layout beside the prediction, and the decode step split into terms.

    INPUTS are measurements at several layouts: ticket folders or ticket.toml files ([[measured]]
    entries with tp), serving-benchmark outputs (vLLM bench serve text/JSON, SGLang bench_serving),
    one per layout, nsys SQLite captures, one per layout, a CSV with columns
    layout,batch,metric,value (metrics: decode_tok_s, output_tok_s, itl_ms, tpot_ms, ttft_ms,
    step_ms, prefill_tok_s, allreduce_us; optional stat column: median, p95, ...), or a published
    table whose rows name their engine, GPU, model, dtype, layout, batch and lengths
    (tests/data/published format). Each layout is judged against the band of what a healthy
    system running that engine delivers.

    \b
    Examples:
      diagnose scaling samples/tickets/gptoss-tp2-slower/
      diagnose scaling samples/scaling/runs.csv --model llama-2-7b \\
                       --gpu a100-80gb-sxm --engine gpt-fast \\
                       --node samples/node/a100-report.json
      diagnose scaling samples/captures/tp4_nvlink_healthy.sqlite \\
                       samples/captures/tp8_pcie_fallback.sqlite \\
                       --model llama-3-70b --gpu h100-sxm --batch 8
      diagnose scaling samples/bench/llmd-llama-3.2-3b-l40s-tp1-dp4.json \\
                       --model samples/bench/llama-3.2-3b-config.json \\
                       --gpu l40s --prompt 1000
    """
    from diagnose import scaling_inputs
    from diagnose.commands.predict import check_lengths
    from rules import catalog
    from rules.subject import model_named

    if interconnect:
        catalog.interconnect(interconnect)
    if engine:
        catalog.engine(engine)
    slo_spec = _parse_slo(slo)
    data = scaling_inputs.collect(list(inputs), scaling_inputs.parse_tp_of(tp_of))
    _need_runs(data)  # before asking for --model / --gpu: without figures no flag helps
    given_model, given_gpu = bool(model_name), bool(gpu_name)  # flags win over what the inputs name
    model_name, gpu_name = _from_inputs(data, model_name, "model"), _from_inputs(data, gpu_name, "gpu")
    model = model_named(model_name)
    gpu = catalog.gpu(gpu_name)
    check_lengths(model, prompt, context)
    # the --model name states its weights ('-AWQ', an Ollama tag) as it would in a ticket; a name the inputs carry is
    # their own (each run's setup reads it: rules.workload.weight_dtype, a published row's dtype)
    said = weights(model_name if given_model else None, dtype, quant, engine)
    dtype, gguf = said.dtype, said.gguf
    node = _node_facts(node_files)
    ctx = click.get_current_context()
    flags = frozenset(n for n in ctx.params if ctx.get_parameter_source(n) != click.core.ParameterSource.DEFAULT)
    return build_report(data, model, gpu, node, slo_spec, gpus=gpus, batch=batch, prompt=prompt, context=context,
                        dtype=dtype, kv_dtype=kv_dtype, interconnect=interconnect, gpus_per_node=gpus_per_node,
                        engine=engine, quant=gguf, builds=stated_builds(build, engine, gguf), flags=flags, said=said,
                        override=frozenset(k for k, v in (("model", given_model), ("gpu", given_gpu),
                                                          ("engine", engine), ("dtype", dtype)) if v),
                        request={"inputs": list(inputs), "model": model.key, "gpu": gpu.key, "engine": engine,
                                 "tp_of": list(tp_of), "node": list(node_files), "slo": slo, "gpus": gpus,
                                 "batch": batch, "prompt": prompt, "context": context, "dtype": dtype,
                                 "kv_dtype": kv_dtype, "interconnect": interconnect, "quant": gguf})


def _resolve_named(runs, override: frozenset = frozenset()) -> dict:
    """The catalog rows of the model and GPU names the runs carry, by (kind, name): what the
    command resolves once for analyse (a kind given on the command line is not looked up). A model is read as
    --model reads it (rules.subject.model_named: 'Qwen2.5-72B-Instruct-AWQ' is Qwen2.5-72B)."""
    from rules import catalog
    from rules.subject import model_named

    out = {}
    for run in runs:
        for kind, find in (("model", model_named), ("gpu", catalog.gpu)):
            name = getattr(run.setup, kind)
            if name and kind not in override and (kind, name) not in out:
                out[(kind, name)] = find(name)
    return out


def _need_runs(data) -> None:
    """Bad input (exit 2) when the inputs hold no figure to judge."""
    from diagnose.errors import InputError

    if not data.runs:
        raise InputError(f"no measurements found in {', '.join(data.files)} (need decode/output tok/s, ITL/TPOT, "
                         "a step time, or a capture per layout)")


def _from_inputs(data, given: str | None, what: str) -> str:
    """The --model / --gpu given, else the one the inputs name (published rows, ticket.toml); a
    flag that names another than the inputs wins, with a warning on stderr."""
    from diagnose.errors import InputError

    named = sorted({getattr(r.setup, what) for r in data.runs if getattr(r.setup, what)})
    if given:
        if named and given not in named:
            click.echo(f"warning: --{what} {given} overrides the {what} the inputs name ({', '.join(named)})", err=True)
        return given
    if not named:
        raise InputError(f"--{what} is needed: the inputs do not name the {what}")
    return named[0]


def _parse_slo(text):
    from rules.scaling import parse_slo

    return parse_slo(text)


def _node_facts(files):
    from diagnose.bundle import read_bundle
    from diagnose.evidence import Facts

    return read_bundle(list(files)) if files else Facts()


def build_report(data, model, gpu, node, slo_spec, *, gpus=None, batch=1, prompt=1024, context=None, dtype=None,
                 kv_dtype=None, interconnect=None, gpus_per_node=8, request=None, engine=None, override=frozenset(),
                 quant=None, builds=(), flags: frozenset | None = None, said=None):
    """The scaling Report: table, per-layout decomposition, findings and verdict. flags: the options given on the
    command line (None: not known, no layout table); said: the command's weights and their origin
    (diagnose.commands.options.Weights)."""
    from diagnose import tables
    from diagnose.errors import InputError
    from diagnose.pipeline import run_pipeline
    from rules import scaling as S

    _need_runs(data)
    from diagnose.evidence import TopologyPath

    cal = S.calibration(node)
    if node is not None and node.records and cal.empty and not node.of(TopologyPath):
        files = ", ".join(sorted({f.name for f in getattr(node, "files", [])}))
        raise InputError(f"--node {files}: no all-reduce, HBM or GEMM measurements nor a topology in it (expected a "
                         "`diagnose node --json` report, nccl-tests output or `nvidia-smi topo -m`)")
    analysis = S.analyse(data.runs, model, gpu, dtype=dtype, kv_dtype=kv_dtype, prompt=prompt, context=context,
                         interconnect=interconnect, gpus_per_node=gpus_per_node, cal=cal, default_batch=batch,
                         engine=engine, override=override, named=_resolve_named(data.runs, override), quant=quant,
                         builds=builds, topology=_with_node(data.facts, node))
    total_gpus = gpus or max(r.layout.gpus for r in data.runs)
    if slo_spec:
        analysis.goodput = S.goodput(data.runs, slo_spec, total_gpus)
    layouts = {r.label for r in analysis.judged}
    missing = [] if layouts else [_what_to_attach(analysis)]
    if len(layouts) == 1:
        missing.append("the same benchmark at a second layout (TP/2 or 2x TP) to judge the scaling")
    report = run_pipeline("scaling", request or {}, _with_node(data.facts, node), analysis,
                          only=["scaling.", *SETTING_RULES],
                          keep=lambda f: f.rule.startswith("scaling.") or f.is_problem, missing=missing,
                          facts_json=_facts_summary(data, node),
                          tables=tables.scaling.tables(analysis, None if flags is None else tables.scaling.layout_table(
                              layout_facts(data.runs, analysis, flags, gpus_per_node=gpus_per_node, batch=batch,
                                           prompt=prompt, said=said, kv_dtype=kv_dtype))))
    return report


def layout_facts(runs, analysis, flags: frozenset, *, gpus_per_node: int, batch: int, prompt: int, said,
                 kv_dtype: str | None) -> list[tuple[str, str, str, str]]:
    """(fact, value, how, source) of each fact of the layout the rows were predicted with: "stated" by the inputs
    (the file that states it), "given" on the command line (the option), else "assumed" (the default it takes and
    where that comes from), so a verdict never rests on a layout the reader cannot see."""
    rows = analysis.rows

    def values(attr):
        return ", ".join(dict.fromkeys(str(getattr(r, attr)) for r in rows))

    def origin(setup_attr, flag, assumed_source, given_source=None):
        stated = [r for r in runs if getattr(r.setup, setup_attr)]
        if flag in flags:
            return "given", given_source or f"--{flag.replace('_', '-')}"
        if stated and len(stated) == len(runs):
            return "stated", ", ".join(dict.fromkeys(r.sources[0] for r in stated if r.sources)) or "the inputs"
        return "assumed", assumed_source

    out = [("GPU", values("gpu"), *origin("gpu", "gpu_name", "none (--gpu is required when the inputs name none)",
                                          "--gpu"))]
    out.append(("GPUs per layout", ", ".join(dict.fromkeys(f"{r.label}: {r.gpus}" for r in rows)), "stated",
                "the layout each input names (its TP x PP x DP; --tp-of where given)"))
    how, src = origin("gpus_per_node", "gpus_per_node", "--gpus-per-node default: an 8-GPU node (HGX/DGX baseboard)")
    out.append(("GPUs per node", str(gpus_per_node) if how != "stated" else
                ", ".join(dict.fromkeys(str(r.setup.gpus_per_node) for r in runs)), how, src))
    how, src = origin("engine", "engine", "no engine in the inputs or --engine: the catalog's generic profile "
                      "(rules/catalog/engines.toml)")
    if how != "assumed" and ("engine" in flags or not all(r.setup.engine_stated for r in runs)):
        src += "; its release not stated: the newest release's profile, judged against every release's band"
    out.append(("engine", values("engine"), how, src))
    eager = [r for r in runs if r.setup.eager]
    if eager:  # the expected figure prices every kernel's launch (rules.workload.runs_eager, as ticket reads it)
        out.append(("CUDA graphs", "off" if len(eager) == len(runs) else
                    "off for " + ", ".join(dict.fromkeys(r.layout.label() for r in eager)), "stated",
                    ", ".join(dict.fromkeys(r.setup.eager_source for r in eager))))
    if said is not None and (said.dtype or said.gguf):  # the command line's: a flag, or what the --model name states
        out.append(("weights", values("dtype"), said.how, said.source))
    else:
        out.append(("weights", values("dtype"), *origin("dtype", "dtype", CHECKPOINT_WEIGHTS)))
    out.append(("KV cache", kv_dtype or "bf16", "given" if "kv_dtype" in flags else "assumed",
                "--kv-dtype" if "kv_dtype" in flags else "--kv-dtype default"))
    unstated = [r for r in rows if not r.batch_stated]
    if unstated:
        out.append(("batch", str(batch), "given" if "batch" in flags else "assumed",
                    ("--batch" if "batch" in flags else "--batch default") + " for "
                    + ", ".join(dict.fromkeys(r.label for r in unstated)) + " (rows that state no batch)"))
    how, src = origin("prompt", "prompt", "--prompt default")
    out.append(("prompt tokens", values("prompt") if how == "stated" else str(prompt), how, src))
    out.append(("interconnect", values("interconnect"), "given" if "interconnect" in flags else "assumed",
                "--interconnect" if "interconnect" in flags else "the GPU's fabric (rules/catalog/gpus.toml)"))
    return out


def _with_node(facts, node):
    """The --node files' facts (nccl-tests tables, node reports) first, then the inputs' (diagnose.evidence
    with_machine, as capture and plan): the setting rules read them as `ticket` does, so the same table gives the same
    cause, severity and exit code, and the ring's route reads the machine named."""
    from diagnose.evidence import with_machine

    return with_machine(facts, node)


def _what_to_attach(analysis) -> str:
    """What would let a layout be judged: for benchmark results that hold a mean TPOT but no batch,
    the figure that derives the batch (not the TPOT they already have)."""
    from rules.scaling import BATCH_UNKNOWN, NOT_MODELLED

    if any(r.status == BATCH_UNKNOWN and r.measured is not None for r in analysis.rows):
        return ("each benchmark result's request_throughput (or a fixed --max-concurrency run): the mean TPOT is "
                "there, but the batch it was measured at cannot be derived without it")
    unmodelled = [r.unmodelled for r in analysis.rows if r.status == NOT_MODELLED]
    if unmodelled:
        flag = "--" + unmodelled[0].replace("_", "-")
        return (f"the same benchmark without {flag} (the predictor does not model it), or compare with the engine's "
                f"published figures for the same {flag} launch")
    return ("a figure per layout the predictor can judge: ITL/TPOT, decode tok/s at a known batch, an nsys capture, or "
            "latency/throughput with the input and output lengths")


# Rules that read a setting the inputs record (a capture's launch line, a ticket's environment) and
# that can cause what scaling measures: the same evidence names the same cause as in `capture` and
# `ticket`. Only their problems are shown; their passes are not about scaling.
SETTING_RULES = ("nccl.busbw", "topology.p2p_forced_off", "topology.nccl_transport", "topology.virtualization_no_p2p",
                 "nccl.socket_fallback", "workload.eager_mode", "ticket.eager_flag",
                 # batch-1 rates at two TP sizes that physics explains: `ticket` leads with it on the same figures
                 "workload.latency_bound_small_batch")


def _facts_summary(data, node) -> dict:
    """The facts read from the inputs and the calibration files, plus which runs they made."""
    out = data.facts.to_dict()
    if node is not None and node.records:
        out["calibration"] = node.to_dict()
    out["runs"] = [{"layout": r.layout.label(), "batch": r.batch, "sources": r.sources} for r in data.runs]
    return out
