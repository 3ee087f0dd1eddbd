"""`diagnose plan`: the serving layout for a model on N GPUs, with the napkin math."""

from __future__ import annotations

import click

from diagnose.commands.options import (
    InputPath,
    batch_size,
    build_option,
    engine_run,
    gpu_count,
    output_options,
    quant_option,
    token_count,
    weights,
)
from diagnose.commands.predict import DTYPES, KV_DTYPE_HELP, KV_DTYPES


@click.command("plan")
@click.option("--model", "model_name", required=True, help="Catalog name or a Hugging Face config.json.")
@click.option("--gpu", "gpu_name", required=True, help="GPU type (h100-sxm, a100-80gb-sxm, l40s, ...).")
@click.option("--gpus", type=gpu_count(), required=True, help="GPUs available in total.")
@click.option("--context", type=token_count(), required=True,
              help="Tokens per sequence (prompt + output) to hold in the KV cache.")
@click.option("--concurrency", "--seats", "concurrency", type=batch_size(), default=1, show_default=True,
              help="Concurrent sequences (users) to serve.")
@click.option("--slo",
              help="Latency SLO, e.g. itl_p95=50ms,ttft_p95=2s (an ITL pN is checked at the step N % into the reply: "
                   "prompt + N % of the output).")
@click.option("--prompt", type=token_count(), help="Prompt tokens for the TTFT estimate [default: min(1024, context)].")
@click.option("--dtype", type=click.Choice(DTYPES), help="Weight dtype [default: the checkpoint's].")
@click.option("--kv-dtype", type=click.Choice(KV_DTYPES), help=KV_DTYPE_HELP)
@click.option("--gpus-per-node", type=gpu_count(), default=8, show_default=True,
              help="GPUs in one node: TP stays within a node, PP spans nodes beyond it.")
@click.option("--engine",
              help="Serving engine whose speed and memory use to expect (vllm, sglang, trtllm, llamacpp, ...) "
                   "[default: llamacpp for GGUF weights (--quant, an Ollama tag), else generic].")
@click.option("--node", "node_files", multiple=True, type=InputPath("report"),
              help="`nvidia-smi topo -m` output or a `diagnose node --json` report of the machine: each TP size's "
                   "all-reduce takes the ring route it shows (PCIe path, CPUs across sockets); repeatable.")
@quant_option
@build_option
@output_options
def plan(model_name, gpu_name, gpus, context, concurrency, slo, prompt, dtype, kv_dtype, gpus_per_node, engine, quant,
         build, node_files):
    """Pick a TP/PP/DP layout for serving and show the napkin math.

    Works out every layout that fits (TP within a node, the other GPUs as replicas; PP across
    nodes when one node is not enough; experts spread over the GPUs for MoE): weights per GPU,
    what the engine keeps for activations, graphs and buffers, KV budget and KV tokens per
    replica, sequences held, users served, expected per-user and total tok/s. Then picks from
    that table: with --slo the most goodput within it, else the most output tok/s at
    --concurrency users. Also names the fallback layout for a stricter latency SLO.

    Exit 2 (one line on stderr) when the request is impossible: the model does not fit on all the
    GPUs given, or no TP size divides the GPUs and the model's heads. A plan that serves fewer
    users than asked or misses the SLO is a warning finding (exit 1 with --fail-on warning).

    \b
    Examples:
      diagnose plan --model llama-3-70b --gpu h100-sxm --gpus 8 --context 8192 \\
                    --concurrency 64 --dtype fp8
      diagnose plan --model llama-3-8b --gpu l40s --gpus 4 --context 4096 \\
                    --seats 100 --slo itl_p95=40ms
    """
    from diagnose import tables
    from diagnose.bundle import read_bundle
    from diagnose.evidence import Facts, with_machine
    from diagnose.pipeline import run_pipeline
    from rules import catalog, planner
    from rules.roofline import slo_share
    from rules.scaling import parse_slo
    from rules.subject import model_named

    said = weights(model_name, dtype, quant, engine)
    dtype, gguf = said.dtype, said.gguf
    limits = parse_slo(slo)
    itl_limit = next((v for v in limits.values() if v[0] in ("itl_ms", "tpot_ms")), None)
    itl = itl_limit[2] if itl_limit else None
    ttft = next((v[2] for v in limits.values() if v[0] == "ttft_ms"), None)
    from diagnose.commands.predict import check_lengths

    gpu, model = catalog.gpu(gpu_name), model_named(model_name)
    if prompt:  # a prompt stated longer than the context is refused, as predict and scaling refuse it
        check_lengths(model, prompt, context)
    result = planner.plan(model, gpu, gpus, context, concurrency,
                          engine=engine_run(engine, gpu, gguf, build)[0],
                          prompt=prompt, dtype=dtype, kv_dtype=kv_dtype,
                          gpus_per_node=gpus_per_node, itl_slo_ms=itl, ttft_slo_ms=ttft, quant=gguf,
                          itl_slo_share=slo_share(itl_limit[1]) if itl_limit else 0.5,
                          topology=with_machine(None, read_bundle(list(node_files)) if node_files else None))
    inputs = {"model": result.model, "gpu": result.gpu, "gpus": gpus, "context": context,
              "concurrency": concurrency, "slo": slo, "prompt": result.prompt, "dtype": result.dtype,
              "kv_dtype": result.kv_dtype, "gpus_per_node": gpus_per_node, "engine": result.engine, "quant": gguf,
              **({"node": list(node_files)} if node_files else {})}
    return run_pipeline("plan", inputs, Facts(), result, only=["plan."], tables=tables.plan.tables(result))
