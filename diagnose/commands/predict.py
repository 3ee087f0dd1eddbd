"""`diagnose predict`: what a model should deliver on a GPU type for each TP/PP/DP layout."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import click

from diagnose.commands.options import (
    MAX_BATCH,
    FiniteFloat,
    build_option,
    engine_run,
    gpu_count,
    int_list,
    output_options,
    quant_option,
    token_count,
    weights,
)

if TYPE_CHECKING:
    from rules.predictions import PredictRow

DTYPES = ("bf16", "fp16", "fp8", "int8", "int4", "mxfp4", "fp32")
KV_DTYPES = ("bf16", "fp16", "fp8", "int8", "fp32")
# what rules.roofline.default_kv_dtype does: the engine profile's fp8_kv_cache decides
KV_DTYPE_HELP = ("KV-cache dtype [default: fp8 with --dtype fp8 where the engine's profile quantises the KV cache "
                 "(fp8_kv_cache in rules/catalog/engines.toml), else the activations' bf16/fp16].")


@click.command("predict")
@click.option("--model", "model_name", required=True,
              help="Catalog name (llama-3-70b, meta-llama/Llama-3.3-70B-Instruct) "
                   "or a path to a Hugging Face config.json.")
@click.option("--gpu", "gpu_name", required=True,
              help="GPU type: h100-sxm, a100-80gb-sxm, l40s, rtx-4090, ... or an NVML name.")
@click.option("--gpus", type=gpu_count(),
              help="Fixed GPU count: compare every TP (x PP) that fits it, the rest as DP replicas.")
@click.option("--tp", "tp_text", metavar="LIST",
              help="Tensor-parallel sizes, e.g. 1,2,4,8 (default: 1,2,4,8, or the powers of 2 up to --gpus; "
                   "an engine that splits by layers only, llama.cpp or Ollama, sweeps --pp instead).")
@click.option("--pp", "pp_text", metavar="LIST", default="1", show_default=True,
              help="Pipeline-parallel sizes, e.g. 1,2.")
@click.option("--dp", "dp_text", metavar="LIST", default="1", show_default=True,
              help="Data-parallel replicas (ignored with --gpus).")
@click.option("--batch", "batch_text", metavar="LIST", default="1", show_default=True,
              help="Concurrent sequences in total (split over DP replicas), e.g. 1,32.")
@click.option("--prompt", type=token_count(), default=1024, show_default=True,
              help="Prompt tokens per request (prefill, TTFT).")
@click.option("--context", type=token_count(), help="KV tokens per sequence during decode [default: prompt + 256].")
@click.option("--dtype", type=click.Choice(DTYPES), help="Weight dtype [default: the checkpoint's, usually bf16].")
@click.option("--kv-dtype", type=click.Choice(KV_DTYPES), help=KV_DTYPE_HELP)
@click.option("--interconnect",
              help="Intra-node fabric for the TP all-reduce, overriding what the GPU implies "
                   "(nvswitch3, nvlink4, pcie4, ...).")
@click.option("--network", help="Scale-out fabric when a layout spans nodes [default: ib-ndr].")
@click.option("--gpus-per-node", type=gpu_count(), default=8, show_default=True,
              help="GPUs per node (TP beyond this crosses the network).")
@click.option("--engine",
              help="Serving engine that runs it: vllm, sglang, trtllm, gpt-fast, hf-eager, fastertransformer, "
                   "llamacpp, ... [default: llamacpp for GGUF weights (--quant, an Ollama tag), else generic]. Sets "
                   "the all-reduce, CUDA graphs, host time and memory it keeps.")
@click.option("--output-len", "output_len", type=token_count(),
              help="Output tokens per request, for the end-to-end latency [default: context - prompt, else 256].")
@click.option("--quant-group", type=token_count(), help="Group size of int4/int8 weights (scales + zero points per "
              "group) [default: 128 for int4, per channel for int8].")
@quant_option
@build_option
@click.option("--mbu", type=FiniteFloat(0, 1, low_open=True),
              help="Override the calibrated stream efficiency: the share of HBM bandwidth a long weight stream "
                   "reaches (0-1].")
@click.option("--mfu", type=FiniteFloat(0, 1, low_open=True),
              help="Override the calibrated GEMM efficiency: the share of the tensor FLOPs a large GEMM reaches "
                   "(0-1].")
@click.option("--cpu-layers", type=click.IntRange(1), help="Decoder layers computed on the CPU from host memory "
              "(llama.cpp / Ollama: the layers -ngl leaves out); judged at TP1 batch 1.")
@click.option("--experts-on-cpu", is_flag=True, help="MoE routed experts computed on the CPU (KTransformers, "
              "llama.cpp --cpu-moe); attention and shared experts on the GPU.")
@click.option("--n-cpu-moe", type=click.IntRange(1), help="The MoE weights of the first N layers computed on the CPU "
              "(llama.cpp --n-cpu-moe N); the other layers' experts on the GPU.")
@click.option("--cpu-offload-gb", type=FiniteFloat(0, 10**5, low_open=True),
              help="GiB of weights kept in host memory and copied to the GPU every step (vLLM --cpu-offload-gb).")
@click.option("--host", "host_cpu", help="The host's CPU for an offload (EPYC 9654, Xeon Gold 6454S, Ryzen 9 7950X) "
              "[default: a desktop-to-server band].")
@click.option("--host-mts", type=click.IntRange(800, 12800), help="Host memory speed in MT/s (DDR5-4800: 4800).")
@click.option("--host-channels", type=click.IntRange(1, 24), help="Populated memory channels per socket.")
@click.option("--sockets", type=click.IntRange(1, 8), help="CPU sockets the offloaded weights are spread over.")
@click.option("--no-mmap", "no_mmap", is_flag=True, help="llama.cpp --no-mmap / -mmp 0: the weights kept in host "
              "memory sit in pinned memory, so a prompt's copies of them run at the link's full rate [default: mmap "
              "on, pageable, slower].")
@click.option("--flash-attn", "flash_attn", type=click.Choice(["on", "off", "auto"]),
              help="llama.cpp -fa: its decode attention as flash attention (on; auto is on for CUDA) or the unfused "
              "kernels (off) [default: llama-bench's for --build: on from b9437, else off].")
@click.option("--spec-method", help="Speculative decoding to model for one stream: eagle, eagle3, mtp, medusa, "
              "draft_model, ngram (as engines spell them: EAGLE-3, nextn, ...); its published acceptance range "
              "(rules/catalog/speculative.toml) multiplies the batch-1 decode.")
@click.option("--spec-tokens", type=click.IntRange(1, 64), help="Draft tokens proposed per verify step (vLLM "
              "num_speculative_tokens, SGLang --speculative-num-steps): a step keeps at most 1 + this many; alone, "
              "the range over every method.")
@output_options
def predict(model_name, gpu_name, gpus, tp_text, pp_text, dp_text, batch_text, prompt, context, dtype, kv_dtype,
            interconnect, network, gpus_per_node, engine, output_len, quant_group, quant, build, mbu, mfu,
            cpu_layers, experts_on_cpu, n_cpu_moe, cpu_offload_gb, host_cpu, host_mts, host_channels, sockets,
            no_mmap, flash_attn, spec_method, spec_tokens):
    """Predict prefill and decode throughput, ITL, TTFT and memory fit for TP/PP/DP layouts.

    Prints the scaling table (one row per layout and batch) with the roofline (datasheet
    bandwidth and FLOPs: nothing real is faster) and the expected figures of a healthy system
    running --engine, with their band (calibrated on published measurements), then findings:
    invalid or non-fitting layouts, where the all-reduce flattens TP scaling, and the best
    layout for latency versus throughput.

    \b
    Examples:
      diagnose predict --model llama-3-70b --gpu h100-sxm --tp 1,2,4,8
      diagnose predict --model llama-3-70b --gpu h100-sxm --gpus 8 --batch 1,64
      diagnose predict --model samples/config.json --gpu l40s --tp 2,4 --dtype fp8
      diagnose predict --model llama-3.1-8b --gpu h100-sxm --tp 1 \\
        --spec-method eagle3 --spec-tokens 4
    """
    from diagnose.errors import InputError
    from rules import catalog, roofline
    from rules import offload as host_offload
    from rules.predictions import PredictRow
    from rules.speculation import requested
    from rules.subject import model_named

    model = model_named(model_name)
    gpu = catalog.gpu(gpu_name)
    if quant and quant_group:
        raise InputError("--quant and --quant-group both set the weights' bytes: give one")
    said = weights(model_name, dtype, quant, engine)
    dtype, gguf = said.dtype, said.gguf
    eng, releases = engine_run(engine, gpu, gguf, build, flash_attn)  # 'vllm' alone: the newest's, every one's band
    if flash_attn and not eng.fa_kernels:
        raise InputError(f"--flash-attn is llama.cpp's -fa; the {eng.key} profile does not model it")
    check_lengths(model, prompt, context)
    for key in (interconnect, network):
        if key:
            catalog.interconnect(key)  # fail early, with closest names
    offload = offload_request(model, cpu_layers, experts_on_cpu, cpu_offload_gb, host_cpu, host_mts, host_channels,
                              sockets, n_cpu_moe, no_mmap)
    layouts = _layouts(gpus, int_list(tp_text, "--tp"), int_list(pp_text, "--pp"), int_list(dp_text, "--dp"), eng)
    if not layouts:
        raise click.BadParameter(f"no TP x PP in {tp_text or 'the defaults'} x {pp_text} divides --gpus {gpus}",
                                 param_hint="--tp")
    batches = int_list(batch_text, "--batch", MAX_BATCH)
    spec = requested(spec_method, spec_tokens)
    if spec and 1 not in batches:
        raise InputError("--spec-method / --spec-tokens model one stream's decode: include --batch 1")
    if offload and not (1 in batches and any(lay.tp == 1 and lay.pp == 1 for lay in layouts)):
        raise InputError("an offload (--cpu-layers, --experts-on-cpu, --n-cpu-moe, --cpu-offload-gb) is judged for one "
                         "stream on one GPU: include --tp 1, --pp 1 and --batch 1")
    rows = []
    for batch in batches:
        for layout in layouts:
            p = roofline.predict_any_build(
                model, gpu, layout, batch=math.ceil(batch / layout.dp), prompt=prompt, context=context,
                dtype=dtype or model.checkpoint_dtype, kv_dtype=kv_dtype, interconnect=interconnect, mbu=mbu, mfu=mfu,
                gpus_per_node=gpus_per_node, network=network, engine=eng, output=output_len,
                quant_group=quant_group or gguf, build_stated=True, releases=releases)
            # where the weights came from, as scaling's layout table says it: given, stated by the name, or assumed
            p.assumptions["weights"] = f"{p.dtype}{f' (GGUF {gguf})' if gguf else ''}, {said.how}: {said.source}"
            rows.append(PredictRow.of(p, batch))
    single = next((r for r in rows if r.tp == 1 and r.pp == 1), None)
    if offload and cpu_offload_gb and single and cpu_offload_gb * host_offload.GIB > single.weights_gb_per_gpu:
        raise InputError(f"--cpu-offload-gb {cpu_offload_gb:g}: more than the {single.weights_gb_per_gpu:.1f} GB of "
                         f"weights one GPU holds at TP1")
    return build_report(model, gpu, eng, rows, offload=offload, speculation=spec, request={
        "model": model.key, "gpu": gpu.key, "gpus": gpus, "tp": tp_text, "pp": pp_text, "dp": dp_text,
        "batch": batch_text, "prompt": prompt, "context": context, "dtype": dtype or model.checkpoint_dtype,
        "kv_dtype": kv_dtype, "interconnect": interconnect, "network": network, "gpus_per_node": gpus_per_node,
        "engine": eng.key, "flash_attn": flash_attn, "output": output_len, "quant_group": quant_group, "quant": gguf,
        "mbu": mbu, "mfu": mfu, "spec_method": spec.method if spec else None, "spec_tokens": spec_tokens,
    })


def check_lengths(model, prompt: int, context: int | None) -> None:
    """The KV held in decode includes the prompt, and no model attends beyond its window (as `plan`)."""
    from diagnose.errors import InputError

    if context is not None and context < prompt:
        raise InputError(f"--context {context} is shorter than --prompt {prompt} (the KV context includes the prompt)")
    longest = context or prompt
    if model.max_context and longest > model.max_context:
        raise InputError(f"--{'context' if context else 'prompt'} {longest} is longer than {model.name}'s "
                         f"{model.max_context}-token window")


def _layouts(gpus, tps, pps, dps, eng):
    """Every TP x PP x DP asked for; with --gpus, DP fills the GPU count. The sweep (no --tp) offers what the engine
    runs: an engine that splits by layers only (llama.cpp, Ollama: engines.toml parallel) sweeps PP, not TP."""
    from rules.roofline import Layout

    if "tp" not in eng.parallel:
        if tps is not None:  # a TP size asked of such an engine is its layer split over that many GPUs, as `scaling`
            pps = sorted({t * p for t in tps for p in pps})  # reads one (rules.scaling._predict)
        elif pps == [1]:
            pps = ([p for p in range(1, gpus + 1) if gpus % p == 0] if gpus
                   else [p for p in (1, 2, 4, 8)])
        tps = [1]
    if gpus:
        tps = tps or [t for t in (1, 2, 4, 8, 16, 32, 64) if t <= gpus]
        return [Layout(tp, pp, gpus // (tp * pp)) for pp in pps for tp in tps if gpus % (tp * pp) == 0]
    return [Layout(tp, pp, dp) for dp in dps for pp in pps for tp in (tps or [1, 2, 4, 8])]


def offload_request(model, cpu_layers, experts_on_cpu, cpu_offload_gb, host, mts, channels, sockets,
                    n_cpu_moe=None, no_mmap=False) -> dict | None:
    """The weights asked to stay off the GPU and the host they run from, checked against the model and the CPU
    families rules/catalog/host_memory.toml knows; None when no offload was asked."""
    from diagnose.errors import InputError
    from rules import offload

    placements = [name for name, v in (("--cpu-layers", cpu_layers), ("--experts-on-cpu", experts_on_cpu),
                                       ("--n-cpu-moe", n_cpu_moe), ("--cpu-offload-gb", cpu_offload_gb)) if v]
    if len(placements) > 1:
        raise InputError(f"{' and '.join(placements)} both place weights off the GPU: give one")
    if not placements:
        if no_mmap:
            raise InputError("--no-mmap says where weights kept in host memory sit: add --cpu-layers, "
                             "--experts-on-cpu or --n-cpu-moe")
        if host or mts or channels or sockets:
            raise InputError("--host, --host-mts, --host-channels and --sockets describe an offload: add --cpu-layers, "
                             "--experts-on-cpu, --n-cpu-moe or --cpu-offload-gb")
        return None
    if cpu_offload_gb and no_mmap:
        raise InputError("--no-mmap is llama.cpp's; --cpu-offload-gb (vLLM) copies weights it already keeps in "
                         "pinned memory: drop one")
    if cpu_offload_gb and (host or mts or channels or sockets):
        raise InputError("--host, --host-mts, --host-channels and --sockets describe the CPU's memory, which "
                         "--cpu-offload-gb does not read from (its weights are copied over PCIe): drop them")
    if channels and channels > offload.max_channels():
        raise InputError(f"--host-channels {channels}: no platform in rules/catalog/host_memory.toml has more than "
                         f"{offload.max_channels()} memory channels a socket")
    if cpu_layers and cpu_layers > model.layers:
        raise InputError(f"--cpu-layers {cpu_layers}: {model.name} has {model.layers} layers")
    if (experts_on_cpu or n_cpu_moe) and not model.is_moe:
        flag = "--experts-on-cpu" if experts_on_cpu else "--n-cpu-moe"
        raise InputError(f"{flag}: {model.name} is a dense model, it has no experts")
    if n_cpu_moe and n_cpu_moe > model.layers:
        raise InputError(f"--n-cpu-moe {n_cpu_moe}: {model.name} has {model.layers} layers")
    if n_cpu_moe and n_cpu_moe <= model.first_dense_layers:
        raise InputError(f"--n-cpu-moe {n_cpu_moe}: {model.name}'s first {model.first_dense_layers} layers are dense "
                         "and hold no experts, so nothing would leave the GPU; give a larger N")
    if host and not channels and offload.cpu_family(host) is None:
        raise InputError(f"--host {host!r}: no CPU family in rules/catalog/host_memory.toml matches it; "
                         "give --host-channels (and --host-mts)")
    return {"cpu_layers": cpu_layers, "experts_on_cpu": experts_on_cpu, "n_cpu_moe": n_cpu_moe,
            "cpu_offload_gb": cpu_offload_gb,
            "host": host, "host_mts": mts, "host_channels": channels, "sockets": sockets, "pinned": no_mmap}


def build_report(model, gpu, eng, rows: list[PredictRow], request, offload: dict | None = None, speculation=None):
    """The predict Report: scaling table, per-layout predictions, findings and verdict."""
    from diagnose import tables
    from diagnose.evidence import Facts
    from diagnose.pipeline import run_pipeline
    from rules.predictions import PredictResult

    result = PredictResult(rows, model, gpu, eng, tp_asked=request.get("tp") is not None, offload=offload,
                           speculation=speculation)
    return run_pipeline("predict", request, Facts(), result, only=["predict."],
                        decide=lambda _facts, findings: _verdict(findings), tables=tables.predict.tables(result))


def _verdict(findings):
    """A valid request's answer is the recommendation (expected_physics); problems with some
    of the asked-for layouts stay findings. With no usable layout, the usual verdict."""
    from diagnose.findings import Verdict
    from rules.engine import verdict

    best = [f for f in findings if f.rule == "predict.best_layout"]
    if not best:
        return verdict(findings)
    others = [f.title for f in findings if f.severity == "warning"]
    also = f" Also: {'; '.join(others)}." if others else ""
    return Verdict("expected_physics", best[0].confidence, f"{best[0].title}.{also}")
