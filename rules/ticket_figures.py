"""The figures a ticket quotes, set against what the hardware can deliver.

"Is this normal?" tickets mostly compare a measured figure with a number read elsewhere: a
datasheet's NVLink total, a published benchmark table, a friend's result. An engineer answers
them with arithmetic: which of the catalog's figures the quoted number is (NVLink's
bidirectional total, its per-direction line rate, one link's rate), what a healthy system
reaches on that path, and whether the measured figure sits there. The knowledge is the catalog's
(rules/catalog/gpus.toml, interconnects.toml) and the predictor's (rules/roofline.py); the claims
come from rules/claims.py.

Sources for the physics: NVIDIA's NVLink figures are bidirectional totals (H100: 900 GB/s = 18
links x 25 GB/s per direction x 2; https://www.nvidia.com/en-us/data-center/nvlink/); NCCL's
application-level bandwidth is about 80 % of the NVLink line rate because of packet overhead
(https://github.com/NVIDIA/nccl/issues/1054); NVLink SHARP busbw is not wire bandwidth
(https://github.com/NVIDIA/nccl-tests/issues/212).
"""

from __future__ import annotations

import dataclasses
import typing

from diagnose import lazy_re as re
from diagnose.evidence import Facts, Measurement, Note, PairBandwidth, Workload
from rules import beyond_band, beyond_roofline, claims, speculation
from rules.common import (
    claim_ev,
    ev,
    gpu_count,
    has_nvlink,
    large_results,
    make,
    measurements,
    node_count,
    one_gpu_job,
    settings,
    steady_logs,
    tp_engine,
    wfield,
)
from rules.engine import FAILURES, NCCL_LOG, TOPO_MATRIX, rule, ticket_gaps
from rules.expectations import REPORTED_RATE_SLACK, band_text, is_reported, lowest_normal, prose_words, slowest_normal
from rules.gpus_in_use import layer_split_over_gpus, one_gpu_in_use
from rules.stated_load import (
    FULL_LOAD_BATCHES,
    engine_batch_cap,
    load_for,
    offline_full_load,
    one_load,
    sent_at_once,
    stated_batch,
)
from rules.topology import p2p_seen_working
from rules.workload import assumed_weights, predict_layout, quantised_stream, seated, weight_dtype

# A quoted figure is one of the catalog's specification figures when it is within this of it.
SPEC_MATCH = 0.03
# Below this share of what a healthy path reaches, a figure is not explained by physics: another
# rule (or an artifact) must say why.
PHYSICS_FLOOR = 0.5
# A measured figure may pass the per-direction line rate by this much and still be one direction's: tools
# print GiB/s (2^30) or GB/s (10^9), 7.4 % apart, and round.
GIB_MARGIN = 1.1
# NVLink SHARP reduces in the switch, so all-reduce busbw can pass the line rate, but not by this much
# (H100: ~480 GB/s on 450 GB/s links, https://github.com/NVIDIA/nccl-tests/issues/212).
NVLS_CEILING = 1.5


def asks_about_figures(facts: Facts) -> bool:
    """A question or a performance complaint, not a hang, crash or error report."""
    said = claims.symptom(facts)
    return said is not None and said not in FAILURES


def _measured_by_a_tool(facts: Facts) -> bool:
    """A pasted nccl-tests sweep or P2P matrix: the checks that parse them (nccl.busbw,
    topology.pair_bandwidth) judge the figures, above the reporter's words."""
    return bool(facts.of(PairBandwidth) or large_results(facts))


def _served(facts: Facts):
    """(model, its source, GPU) of a question or complaint whose model and GPU the catalog knows,
    else (None, None, None)."""
    if not asks_about_figures(facts):
        return None, None, None
    model, model_src = facts.subject.model, facts.subject.model_source
    gpu = facts.subject.gpu
    return (model, model_src, gpu) if model is not None and gpu is not None else (None, None, None)


# Launch options that change what one decode step does in a way the predictor does not model: SGLang's
# --enable-dp-attention runs attention data-parallel (each rank holds the whole attention weights and
# its own requests' KV cache; https://lmsys.org/blog/2024-12-04-sglang-v0-4/), so one stream's step is
# not the TP layout's step and a rate from it is not judged against the TP band.
UNMODELLED_OPTIONS = ("enable_dp_attention",)


# What a served model's speed is measured in (a collective benchmark's busbw is not one).
SERVING_METRICS = ("decode_tok_s", "output_tok_s", "itl_ms", "tpot_ms", "ttft_ms")
_TRAINING = re.compile(r"\b(?:training|trains?|trained|fine-?tun\w*|pre-?train\w*|backward pass|gradients?|"
                       r"optimi[sz]er step)\b|"
                       # (ut26f) in Chinese: 训练 "training", 微调 "fine-tuning", 梯度 "gradient", 反向传播 "backward
                       # pass" ("lora微调，...单张A100比2张A100速度快", QwenLM/Qwen#669); not a model trained or tuned
                       # before it is served: "微调后的模型如何多卡推理" (hiyouga/LlamaFactory#3769), "训练好的模型",
                       # "预训练模型"
                       r"(?:预)?(?:训练|微调)(?!\s*(?:好|后|完|过|出来?|的?(?:模型|权重|checkpoint)))|梯度|反向传播",
                       re.I)


# (review29) What is timed, when the text names it: inference ("I'm running inference on 3x v100 GPUs ... it is about 10
# times slower" after "I was able to fine-tune a 20B FLAN-UL2 model", huggingface/peft#217;
# "lora微调了20条数据集，合并模型后，推理速度...慢了好多", zai-org/ChatGLM2-6B#583) or the training
# itself ("the slower the fine-tuning speed becomes", "the training time is 46 hours",
# thu-ml/RoboticsDiffusionTransformer#88; "训练很慢").
_INFERENCE_TIMED = re.compile(r"\b(?:running|run|doing|during)\s+inference\b|\binference\s+(?:speed|time|latency|"
                              r"throughput)\b|推理\s*(?:速度|时间|耗时|很慢|变慢|慢)", re.I)
_TRAINING_TIMED = re.compile(r"\b(?:training|fine-?tuning|pre-?training)\s+(?:speed|times?|throughput|steps?|"
                             r"epochs?|is|was|becomes|takes|took)\b|\bper\s+(?:epoch|step|iteration)\b|"
                             r"(?:训练|微调)\s*(?:速度|时间|耗时|很慢|变慢|慢)", re.I)


def training_job(facts: Facts) -> bool:
    """A training job (not a model served): its answer is not about decode steps. A text that times inference and
    not the training (a model fine-tuned before, then run) is no training job."""
    text = " ".join(t for _, t in claims.texts(facts))[:1500]
    if _INFERENCE_TIMED.search(text) and not _TRAINING_TIMED.search(text):
        return False
    return bool(_TRAINING.search(text)) and not any(m.metric in SERVING_METRICS for m in facts.of(Measurement))


def unmodelled_layout(facts: Facts) -> str | None:
    """The launch option (of UNMODELLED_OPTIONS) that takes the layout outside the predictor, if any."""
    return next((k for w in facts.of(Workload) for k in UNMODELLED_OPTIONS if w.extra.get(k)), None)


def ttft_inputs(facts: Facts) -> tuple[typing.Any, typing.Any, int, str, list[Measurement]] | None:
    """(model, GPU, prompt length, its source, the TTFTs measured) for the rules that weigh a time to first token
    against the prefill the predictor gives (ticket_numbers.ttft_vs_expected, ticket_queueing.ttft_under_load); None
    where the ticket asks nothing of its figures, runs a layout the predictor does not model, or names no model, GPU
    or prompt length."""
    if not asks_about_figures(facts) or unmodelled_layout(facts):
        return None
    model, gpu = facts.subject.model, facts.subject.gpu
    prompt, prompt_src = wfield(facts, "prompt_len")
    if model is None or gpu is None or not prompt:
        return None
    return model, gpu, prompt, prompt_src, measurements(facts, "ttft_ms")


# The reporter's speed figures that an unmodelled layout leaves without a band.
JUDGED_FIGURES = ("decode_tok_s", "output_tok_s", "itl_ms", "tpot_ms")


@rule("ticket.unmodelled_figures", "other")
def unmodelled_figures(facts: Facts, predictions=None):
    """Figures the band rules skip because a launch option takes the layout outside the predictor: the
    report says so instead of dropping them silently (as scaling marks a figure it cannot judge)."""
    option = unmodelled_layout(facts)
    figures = {(m.value, m.batch): m for m in facts.of(Measurement) if m.metric in JUDGED_FIGURES}  # once each
    if not option or not figures:
        return
    flag = "--" + option.replace("_", "-")
    evidence = [ev(m, f"{m.metric}" + (f" at batch {m.batch}" if m.batch else ""), f"{m.value:g} {m.unit}",
                   "not judged (not modelled)") for m in figures.values()]
    yield make("ticket.unmodelled_figures", "other", "info", 0.0,
               f"Not judged: {flag} is not modelled, so the reported figures have no expected band",
               f"With {flag} the step is not the tensor-parallel layout's step the predictor models, so these figures "
               "are neither confirmed nor contradicted by it.",
               evidence, fix=f"Compare with the engine's published figures for the same {flag} launch, or measure the "
               "same model without it to compare with `diagnose predict`.")


def weights_ev(p) -> list:
    """The weights the prediction assumed, when an engine's default quantisation stood in for a ticket
    that names none, the bits a weight of the GGUF type it priced, and a GPU memory size the ticket states."""
    return [ev(f"prediction:{k}" if k in ("build", "release", "memory") else "prediction:weights", p.assumptions[k])
            for k in ("weights", "gguf", "build", "release", "memory") if p.assumptions.get(k)]


def band_evidence(m, detail: str, unit: str, expected: float, band: str, roofline: float, p, gpu, model_src, model):
    """The evidence every measured-against-expected finding gives: the figure, the calibrated band of
    the engine profile, the roofline, and the model (one shape for rates and latencies)."""
    return [ev(m, detail, m.value, round(expected, 1), unit),
            ev("prediction:expected", f"expected band ({p.engine} profile, {gpu.key})", expected=band, unit=unit),
            ev("prediction:roofline", "roofline (nothing real is faster)", expected=round(roofline, 1), unit=unit),
            ev(model_src, "model", model.key)] + weights_ev(p) + stages_ev(p) + (
        # a table of weight formats gives each figure its own (issue_md._dtype_table_rates)
        [ev(m, "weights (the figure's table column)" if not m.said else "weights (named beside the figure)", m.dtype)]
        if getattr(m, "dtype", None) else [])


def layout_words(p) -> str:
    """The layout a prediction ran, as a finding's evidence names it ('TP=4', 'TP=4 PP=2')."""
    return f"TP={p.tp}" + (f" PP={p.pp}" if p.pp > 1 else "")


def stages_ev(p) -> list:
    """The pipeline stages the prediction runs, where the ticket states more than one."""
    src = p.assumptions.get("pp_source")
    return [ev(src, "pipeline-parallel stages in the prediction (as the ticket states)", p.pp)] if src else []


def _launch_read(facts: Facts) -> bool:
    return any("launch" in f.kinds for f in getattr(facts, "files", []))


def beyond_band_attach(facts: Facts) -> str:
    """What to attach after a figure slower than its band: the basic artifacts the ticket lacks, and the
    engine's launch command unless one was read; never what is already there ('' when nothing is missing)."""
    gaps = ticket_gaps(facts)
    if one_gpu_job(facts):
        # a figure of one GPU: its expected figure holds no link, so the links and NCCL cannot explain it
        gaps = [g for g in gaps if g not in (TOPO_MATRIX, NCCL_LOG)]
    wanted = gaps + ([] if _launch_read(facts) else ["the engine's launch command"])
    return "attach " + ", ".join(wanted) if wanted else ""


def beyond_band_fix(facts: Facts) -> str:
    """beyond_band_attach, or a profile of one step when the ticket holds every basic artifact."""
    return beyond_band_attach(facts) or ("Profile one decode step (nsys) and compare its kernels and all-reduces "
                                         "with `diagnose predict` for this layout.")


def _spec_figures(gpu) -> dict[str, tuple[float, str, bool]]:
    """The GPU's NVLink figures as datasheets and tools print them: value -> (figure, what it is,
    per link?)."""
    if not gpu.nvlink_gbs:
        return {}
    line = gpu.nvlink_gbs
    out = {"bidirectional": (2 * line, f"{gpu.name}'s NVLink total of both directions", False),
           "line": (line, f"{gpu.name}'s NVLink line rate per direction", False)}
    if gpu.nvlink_links:
        link = line / gpu.nvlink_links
        out["link"] = (link, f"one NVLink's line rate per direction on {gpu.name}", True)
        out["link_bidirectional"] = (2 * link, f"one NVLink's rate counting both directions on {gpu.name}", True)
    return out


def scope_known(f: claims.Claim) -> bool:
    """Is it known how the figure counts the traffic? A bare nvbandwidth bidirectional test name leaves open whether
    its figure is one direction or both summed (claims.nvbandwidth_direction): such a figure is not judged."""
    return f.data.get("direction") != "unknown"


def per_direction(f: claims.Claim) -> float:
    """A measured figure per direction: a bidirectional copy rate counts both ways at once."""
    return f.data["value"] / (2 if f.data.get("direction") == "bi" else 1)


# Packet overhead (NVLink's, and PCIe's headers and flow control) leaves about 80 % of the line rate to
# payload, for a copy as for NCCL (https://github.com/NVIDIA/nccl/issues/1054).
COPY_SHARE = 0.8


def _is_copy(c: claims.Claim) -> bool:
    return bool(c.data.get("copy"))


def _matches(value: float, target: float) -> bool:
    return abs(value - target) <= SPEC_MATCH * target


def _nvls_off(facts: Facts) -> bool:
    """NVLink SHARP kept out by the job's own settings: NCCL_NVLS_ENABLE=0, or NCCL_ALGO naming algorithms without
    NVLS ("Ring", "Tree", "^NVLS"; https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html)."""
    if any(s.value.strip() == "0" for s in settings(facts, "NCCL_NVLS_ENABLE")):
        return True
    for s in settings(facts, "NCCL_ALGO"):
        algos = s.value.strip().lower()
        if algos.startswith("^"):
            return "nvls" in algos
        return "nvls" not in algos
    return False


@rule("ticket.link_figure", "expected_physics")
def link_figure(facts: Facts, predictions=None):
    """A measured GPU-to-GPU bandwidth set against an NVLink datasheet figure: the datasheet's
    number is the total of both directions (or the raw line rate), and NCCL reaches about 80 % of
    the per-direction line rate."""
    if not asks_about_figures(facts) or _measured_by_a_tool(facts):
        return
    gpu, gpu_src = facts.subject.gpu, facts.subject.gpu_source
    if gpu is None or not gpu.nvlink_gbs:
        return
    nodes, _ = node_count(facts)
    if nodes and nodes > 1:
        return  # across nodes the NICs set the figure, not NVLink
    figures = claims.bandwidth_figures(facts)
    specs = _spec_figures(gpu)
    quoted = [(f, key) for f in figures for key, (value, _, _) in specs.items() if _matches(f.data["value"], value)]
    if not quoted:
        return
    spec_claim, key = max(quoted, key=lambda q: q[0].data["value"])
    spec_value, spec_what, per_link = specs[key]
    line = specs["link"][0] if per_link else gpu.nvlink_gbs
    from rules import collectives, roofline

    n = gpu_count(facts) or gpu.nvlink_domain or 2
    fabric, _ = roofline.tp_fabric(gpu, max(2, min(n, gpu.nvlink_domain or n)), max(2, gpu.nvlink_domain or n))
    achieved = fabric.achieved_gbs / (gpu.nvlink_links if per_link and gpu.nvlink_links else 1)
    # (healthy36) an all-reduce algbw counts the data once, so it is set against the link as the busbw it makes
    # (x 2(n-1)/n, nccl-tests doc/PERFORMANCE.md), not as itself; the reporter's words for it are that figure too
    from rules.nccl import busbw_from_algbw

    converted = busbw_from_algbw(facts)
    algbws = {m.value for m in measurements(facts, "algbw_gbs")}
    measured = [f for f in figures if not f.data["spec"] and not f.data["question"]
                and not any(_matches(f.data["value"], v) for v, _, _ in specs.values())
                and not (converted and f.data["value"] in algbws)]
    measured_values = [(per_direction(f), f) for f in measured] + [
        (m.value, m) for metric in ("busbw_gbs",) + (() if converted else ("algbw_gbs",))
        for m in measurements(facts, metric) if not any(_matches(m.value, v) for v, _, _ in specs.values())] + (
        [(converted[0], converted[1])] if converted else [])
    usable = [(v, r) for v, r in measured_values if PHYSICS_FLOOR * achieved <= v <= GIB_MARGIN * line
              or (GIB_MARGIN * line < v <= NVLS_CEILING * line and fabric.in_network_reduction and not per_link)]
    evidence = [claim_ev(spec_claim, "the figure quoted"),
                ev(gpu_src, f"catalog {gpu.key}: {spec_what} ({gpu.nvlink_gbs:g} GB/s per direction"
                   + (f", {gpu.nvlink_links} links" if gpu.nvlink_links else "") + ")",
                   expected=spec_value, unit="GB/s"),
                ev("catalog:interconnects", f"catalog {fabric.name}: NCCL all-reduce busbw typically",
                   expected=round(achieved, 1), unit="GB/s")]
    explain = (f"{spec_value:g} GB/s is {spec_what}. A transfer moves data one way at a time, and NVLink's packet "
               f"overhead leaves about 80 % of the {line:g} GB/s line rate to NCCL: healthy systems measure about "
               f"{achieved:.0f} GB/s {'per link' if per_link else 'bus bandwidth'} here.")
    if measured_values and not usable:
        return  # the measured figure is far below the path's rate: not explained by the datasheet's arithmetic
    if usable:
        title = None
        value, rec = max(usable, key=lambda x: x[0])
        src = rec.source if isinstance(rec, (claims.Claim, Measurement)) else str(rec)
        if isinstance(rec, claims.Claim) and _is_copy(rec):  # a copy engine's rate, not a collective's busbw
            evidence.insert(1, ev(src, "the copy rate measured, one direction", value, round(COPY_SHARE * line, 1),
                                  "GB/s"))
            evidence[-1:] = [ev("catalog:gpus", "a copy after NVLink's packet overhead (line rate x 0.8)",
                                expected=round(COPY_SHARE * line, 1), unit="GB/s")]
            explain = (f"{spec_value:g} GB/s is {spec_what}. A copy moves data one way, and NVLink's packet overhead "
                       f"leaves about 80 % of the {line:g} GB/s line rate to payload: "
                       f"about {COPY_SHARE * line:.0f} GB/s per direction.")
        elif value > line and fabric.in_network_reduction and not per_link and not _nvls_off(facts):
            # (issue 11, ut21a: NVIDIA/nccl-tests#312, 480 GB/s "with NVLink SHARP enabled" on 450 GB/s links) no ring
            # passes the per-direction line rate, so a busbw above it on a switch that reduces is NVLS's, and its
            # own figure is the one to meet, not the ring's
            nvls_n = n if n >= 3 else collectives.NVLS_NODE_GPUS
            nvls_bus, nvls_alg = collectives.nvls_busbw_gbs(fabric, nvls_n)
            evidence.insert(1, ev(src, "the figure measured", value, round(nvls_bus, 1), "GB/s"))
            evidence.append(ev("catalog:calibration", f"NVLink SHARP all-reduce on {fabric.name}: algbw "
                               f"{nvls_alg:.0f} GB/s (nvls_alg_gbs_per_link_gbs x the {line:g} GB/s line rate) x "
                               f"2(n-1)/n at {nvls_n} GPUs", expected=round(nvls_bus, 1), unit="GB/s"))
            explain = (f"{value:g} GB/s is above the {line:g} GB/s per-direction line rate, which no ring passes: "
                       "NVLink SHARP (NVLS) reduces inside the NVSwitch, each GPU sends its data and reads the sum "
                       "once, and busbw still counts the data a ring would have moved (algbw x 2(n-1)/n), not what "
                       f"crossed the wire. A healthy NVLS all-reduce on {nvls_n} GPUs shows about {nvls_bus:.0f} GB/s "
                       f"busbw; the ring's {achieved:.0f} GB/s is the figure for other collectives or NCCL_ALGO=Ring.")
            title = (f"{value:g} GB/s busbw above {gpu.name}'s {line:g} GB/s line rate is NVLink SHARP's: "
                     f"{value / nvls_bus:.0%} of the ~{nvls_bus:.0f} GB/s an NVLS all-reduce reaches")
        elif converted and rec is converted[1]:
            evidence[1:1] = [ev(src, "the all-reduce algbw measured", rec.value, unit="GB/s"), converted[3]]
            explain += (f" The {rec.value:g} GB/s is algbw, the data size over the time; each GPU sends and receives "
                        f"2(n-1)/n of it, so the busbw that compares with the link is {value:.0f} GB/s at "
                        f"{converted[2]} GPUs.")
            title = (f"{rec.value:g} GB/s algbw is {value:.0f} GB/s busbw at {converted[2]} GPUs, what {gpu.name}'s "
                     f"NVLink delivers: {value / line:.0%} of the per-direction line rate")
        else:
            evidence.insert(1, ev(src, "the figure measured", value, round(achieved, 1), "GB/s"))
        title = title or (f"{value:g} GB/s against {spec_value:g} GB/s is what {gpu.name}'s NVLink delivers: "
                          f"{value / line:.0%} of the per-direction line rate")
        confidence = 0.6
    else:
        title = f"{spec_value:g} GB/s is not a figure any transfer reaches on {gpu.name}"
        confidence = 0.5
    yield make("ticket.link_figure", "expected_physics", "info", confidence, title, explain, evidence,
               fix="Nothing to fix: compare nccl-tests busbw at large sizes (-b 1G -e 8G) with the achieved figure, "
               "not with the datasheet's total; nvbandwidth measures the raw copy rate per direction.",
               refs=["https://github.com/NVIDIA/nccl/issues/1054"])


@rule("ticket.bridge_figure", "expected_physics", "pcie_fallback")
def bridge_figure(facts: Facts, predictions=None):
    """A copy rate measured between two bridged NVLink boards, no datasheet figure quoted (link_figure
    judges those): against what the bridge carries (COPY_SHARE of its line rate per direction) and what
    the board's PCIe link carries, so a bridge the copy does not use shows as PCIe's rate."""
    if not asks_about_figures(facts) or _measured_by_a_tool(facts):
        return
    gpu, gpu_src = facts.subject.gpu, facts.subject.gpu_source
    if gpu is None or not gpu.nvlink_bridged or not gpu.nvlink_gbs:
        return
    if not has_nvlink(facts):
        return  # without a bridge in the ticket (or one said absent, "no NVLink bridge"), pcie_figure judges the copy
    figures = [f for f in claims.bandwidth_figures(facts) if _is_copy(f) and not f.data["question"] and scope_known(f)]
    if not figures or any(f.data["spec"] for f in figures):
        return
    from rules import catalog

    c = max(figures, key=per_direction)
    value = per_direction(c)
    bridge = COPY_SHARE * gpu.nvlink_gbs
    pcie = catalog.interconnect(gpu.pcie_interconnect)
    evidence = [claim_ev(c, "the copy rate"),
                ev(c, "per direction" + (" (half the bidirectional figure)" if c.data.get("direction") == "bi" else ""),
                   round(value, 1), round(bridge, 1), "GB/s"),
                ev(gpu_src,
                   f"catalog {gpu.key}: NVLink bridge line rate per direction x {COPY_SHARE} (packet overhead)",
                   expected=round(bridge, 1), unit="GB/s"),
                ev(gpu_src, f"catalog {gpu.key}: PCIe Gen{gpu.pcie_gen} x{gpu.pcie_lanes} ({pcie.name}) "
                   f"per direction x {COPY_SHARE}", expected=round(COPY_SHARE * pcie.bandwidth_gbs, 1), unit="GB/s")]
    if value >= PHYSICS_FLOOR * bridge and value > 1.05 * pcie.bandwidth_gbs:
        yield make("ticket.bridge_figure", "expected_physics", "info", 0.5,
                   f"{value:g} GB/s per direction is what {gpu.name}'s NVLink bridge carries "
                   f"({value / gpu.nvlink_gbs:.0%} of its {gpu.nvlink_gbs:g} GB/s line rate)",
                   "A copy over the bridge moves data one way at a time, and NVLink's packet overhead leaves "
                   "about 80 % of the line rate to payload; the figure is above anything PCIe could carry, "
                   "so the bridge is in use.",
                   evidence, fix="Nothing to fix for the link.", refs=["https://github.com/NVIDIA/nccl/issues/1054"])
    elif value <= 1.05 * pcie.bandwidth_gbs:
        yield make("ticket.bridge_figure", "pcie_fallback", "warning", 0.45,
                   f"{value:g} GB/s per direction is a PCIe rate, not the NVLink bridge's (about {bridge:.0f} GB/s)",
                   f"The copy runs at or below what {gpu.name}'s PCIe link carries ({pcie.bandwidth_gbs:g} GB/s per "
                   "direction), so it does not cross the bridge: the bridge is not seated or not detected, its links "
                   "are down, or peer-to-peer over it is off.", evidence,
                   fix="attach `nvidia-smi nvlink -s` and `nvidia-smi topo -m` (a working bridge shows NV4 between the "
                   "pair) and p2pBandwidthLatencyTest's P2P=Enabled matrix",
                   refs=["https://github.com/NVIDIA/nccl/issues/1054"])


# Above this share of one stream's roofline a tokens/s figure cannot be one stream's: the roofline is
# an upper bound and 10 % covers the catalog's nominal memory bandwidth (the margin
# ticket.measured_vs_expected uses for the same question).
ONE_STREAM_MARGIN = 1.1


def batch_total(facts: Facts, m: Measurement, tp: int) -> bool:
    """Is a rate stated at a batch of two or more that batch's total? Said so (output throughput), or above what
    one stream can reach at that batch: "batch size 64: 1900 tok/s" is 64 streams' output, as the engines'
    throughput benchmarks print it (vLLM benchmark_throughput, TensorRT-LLM trtllm-bench), not one stream's."""
    return _total_of(facts, m, tp, stated_batch(facts, m)) is not None


def _total_of(facts: Facts, m: Measurement, tp: int, batch: int | None):
    """batch_total's answer for the batch stated: (that batch, the prediction read at it or None) when the rate is
    the batch's total, else None; the prediction is handed on so that a caller judging the rate does not redo it."""
    if (batch or 1) < 2 or m.scope == "per_stream":
        return None
    if m.metric == "output_tok_s" or m.scope == "aggregate":  # the source defines it as every stream's together
        return batch, None
    if m.stat != "reported":
        return None
    p = predict_layout(facts, tp, batch)
    return (batch, p) if p is not None and p.valid and m.value > ONE_STREAM_MARGIN * p.decode_tok_s else None


def _layout(m: Measurement) -> tuple:
    return m.tp, m.batch, m.concurrency, m.gpus, m.dtype, m.stat


def same_layout(a: Measurement, b: Measurement) -> bool:
    """Two figures stated for one layout (TP, batch, load, GPUs, weights) and timed alike."""
    return _layout(a) == _layout(b)


def slowest_first(ms: list[Measurement]) -> list[Measurement]:
    """The figures in the order given, except that of several stated for one layout the slowest comes first:
    "server A does 110 tok/s, server B 75 tok/s" on twin machines asks about the 75, and a verdict drawn from the
    110 alone would call the shortfall physics."""
    slowest: dict[tuple, Measurement] = {}
    for m in ms:
        if _layout(m) not in slowest or m.value < slowest[_layout(m)].value:
            slowest[_layout(m)] = m
    first = [m for m in ms if slowest[_layout(m)] is m]
    return first + [m for m in ms if slowest[_layout(m)] is not m]


@rule("ticket.batched_rate", "latency_bound_small_batch", "expected_physics", "other")
def batched_rate(facts: Facts, predictions=None):
    """A tokens/s figure above what one stream can reach is a batch's total; set against the
    throughput the predictor expects at the concurrency the reporter states (else at full load), it
    says whether the batch was the limit."""
    model, model_src, gpu = _served(facts)
    if model is None:
        return
    # (a rate the reporter calls the total is read as every stream's output: output_tok_s; an engine's stats lines
    # are every running request's together, one figure per log at its steady load)
    series = stated_series(facts, model, model_src, gpu, ("output_tok_s",), "ticket.batched_rate")
    if series is not None:  # a batch's output rates by TP: judged as a set, as scaling judges them
        yield series
        return
    rates = [m for m in [*measurements(facts, "decode_tok_s"), *measurements(facts, "output_tok_s")]
             if m.stat == "reported"] + steady_logs(facts)
    if len(rates) > 2 or any(n.kind == "results_table" for n in facts.of(Note)):
        return  # a sweep or a results table: the comparison-set rules read it as a set
    for m in slowest_first(rates):  # (of two stated for one load, the slow one is the question)
        tp, _ = assumed_tp(facts, m)
        # the one load every rule prices this figure at (the engine's cap included); a total of fewer prompts sent at
        # once than fill the engine's batch (a script's one call with 100 prompts) is priced at them, not at one
        # stream's nor at a full load's (more than that: full load, below)
        priced = load_for(facts, m, sent=sent_at_once(facts) is None)
        stated = priced.n if priced is not None and priced.kind == "batch" else None
        total_at, predicted = _total_of(facts, m, tp, stated) or (None, None)
        if stated and not total_at:
            continue  # one stream's rate at a stated batch: ticket.measured_vs_expected judges the figure at it
        load = priced.n if priced is not None else None  # the requests in flight the ticket states, if any
        one = predict_layout(facts, tp, 1)
        # "8 requests, total 96 tok/s", "batch size 64: 1900 tok/s"
        called_total = (m.metric == "output_tok_s" or total_at) and (load or 0) >= 2
        if one is None or not one.valid or (m.value <= ONE_STREAM_MARGIN * one.decode_tok_s and not called_total):
            continue  # one stream could give it: the per-stream rules judge it (not a total said of a stated load)
        spec = None if called_total or load or m.scope == "aggregate" else speculation.stated(facts)
        if spec is not None and m.value <= ONE_STREAM_MARGIN * one.decode_tok_s * spec.tokens_per_step()[1]:
            continue  # one stream under the speculation stated could give it: ticket.measured_vs_expected judges it
        gpus = max(tp, gpu_count(facts) or 1)
        ceiling = beyond_roofline.compute_ceiling(model, gpu, gpus)
        if m.value > ONE_STREAM_MARGIN * ceiling:
            yield beyond_roofline.finding(
                "ticket.batched_rate", f"decode throughput on {gpus} GPU(s)", m.value, ceiling, "tok/s",
                [ev(m, "tokens/s reported", m.value, round(ceiling), "tok/s"),
                 ev("prediction:roofline", f"{gpus} x {gpu.key} at their fastest tensor-core rate over 2 FLOPs per "
                    "active weight per token, at any batch", expected=round(ceiling), unit="tok/s"),
                 ev(model_src, "model", model.key)])
            return
        if m.scope != "aggregate" and quantised_stream(facts, tp, m.value, ONE_STREAM_MARGIN):
            continue  # weights unstated: one stream of a 4-bit checkpoint could give it (ticket.figure_unjudged asks)
        cap = engine_batch_cap(facts)
        loads = (load,) if load else FULL_LOAD_BATCHES  # (load_for capped a stated load; full load is capped here)
        best, seats = None, None
        if load:  # at most the sequences the KV cache holds decode together (rules.workload.seated)
            batch, p, seats = (load, predicted, None) if predicted is not None and load == total_at else \
                seated(facts, tp, load)
            best = (batch, p) if p is not None and p.valid and p.fits else None
        for batch in () if load else dict.fromkeys(min(b, cap[0]) if cap else b for b in loads):
            p = predict_layout(facts, tp, batch)
            if p is not None and p.valid and p.fits:
                best = (batch, p)
                break
        if best is None:
            continue
        batch, p = best
        total = batch * p.decode_tok_s_expected
        low = total / p.band_high  # the calibrated band's slow edge (rules/expectations.py)
        band = band_text(low, total / p.band_low, m.value)
        at = (f"{batch} running requests (the engine's stats line)" if m.concurrency and m.stat is None else
              f"{batch} concurrent requests (stated)" if m.concurrency else
              f"{batch} concurrent requests ({priced.how})" if load and priced.kind == "concurrency" else
              f"batch {batch} (stated)" if load else f"batch {batch} (full load)")
        if seats is not None:
            at = f"batch {batch} (at most: the KV cache holds {batch} of the {load} requests stated)"
        elif load and priced.cap:
            at = f"batch {batch} (the engine's {cap[2]} {cap[0]} caps the stated concurrency)"
        elif cap and batch == cap[0] and batch < max(loads):
            at = f"batch {batch} (the engine's {cap[2]} {cap[0]} caps full load)"
        said = ("tokens/s over every running request (the engine's stats line)" if m.scope == "aggregate" else
                "tokens/s reported (a batch's total: one stream cannot exceed the roofline)")
        if load:
            said += f": {m.value / load:.3g} tok/s per request over {load}"
        evidence = [ev(m, said, m.value, round(total), "tok/s"),
                    ev("prediction:roofline", f"one stream's roofline at TP={tp}", expected=round(one.decode_tok_s, 1),
                       unit="tok/s"),
                    ev("prediction:expected", f"expected decode throughput at {at} ({gpu.key})",
                       expected=band, unit="tok/s"),
                    ev(model_src, "model", model.key)] + weights_ev(p)
        if cap and batch == cap[0]:
            evidence.append(ev(cap[1], f"the engine's {cap[2]}: sequences decoded together at most", cap[0]))
        if seats is not None:
            evidence.append(seats)
        sent = None if load else sent_at_once(facts)
        offline = None if load or sent else offline_full_load(facts)
        if sent:
            at = f"full load ({sent[0]} prompts sent at once, the engine's batch kept full; batch {batch} shown)"
            evidence.append(ev(sent[1], "prompts the benchmark sends at once (no request rate)", sent[0]))
        elif offline:  # (issue 11) an offline throughput benchmark's total: a full load's, not a small batch's
            at = f"full load ({offline[0]} queues every prompt at once; batch {batch} shown)"
            evidence.append(ev(offline[1], "offline throughput benchmark run (every prompt queued at once, no "
                               "request rate or concurrency cap)", offline[0]))
        if m.value < low and not load and not sent and not offline:
            yield make("ticket.batched_rate", "latency_bound_small_batch", "info", 0.5,
                       f"{m.value:g} tok/s is a small batch's throughput; batch {batch} gives about {total:.0f}",
                       "Decode reads every weight once per step whatever the batch, so throughput grows almost in step "
                       "with the number of sequences decoded together until compute or the KV cache limits it. "
                       "Published throughput tables use hundreds of concurrent requests.",
                       evidence, fix="Send more concurrent requests (raise max batch size / max_num_seqs) and measure "
                       "throughput at that concurrency; per-request speed falls slowly while throughput rises.")
        elif m.value < lowest_normal(low, m):  # at the concurrency stated: one figure beyond the band, as one stream's
            yield beyond_band.finding("ticket.batched_rate", f"{m.value:g} tok/s at {at}", m.value, low, "tok/s", False,
                                      f"{band} tok/s", evidence, beyond_band_fix(facts), reported=is_reported(m))
        elif m.value > total / p.band_low:
            yield faster_than_band("ticket.batched_rate", f"{m.value:g} tok/s at {at}", f"{band} tok/s",
                                   f"under the compute ceiling of {ceiling:,.0f} tok/s", evidence)
        else:
            yield make("ticket.batched_rate", "expected_physics", "info", 0.5,
                       f"{m.value:g} tok/s is what batched decode of this model gives at {at} (about {total:.0f})",
                       "The figure is a batch's total throughput and sits inside the predictor's band for that many "
                       "sequences decoded together.",
                       evidence, fix="Nothing is broken; throughput grows with the number of requests in flight until "
                       "the KV cache or compute limits it, so raise the concurrency (max_num_seqs) for more.")
        return


@rule("ticket.faster_than_physics", "other")
def faster_than_physics(facts: Facts, predictions=None):
    """A collective timed faster than any GPU link can move its bytes: the measurement, not the
    system, is wrong (units, an unsynchronised timer, a no-op)."""
    if not asks_about_figures(facts):
        return  # a hang or an error report: its timings are not the question
    from rules import catalog

    fastest = max((g.nvlink_gbs for g in catalog.gpus().values()), default=0.0) * 2
    for c in claims.collective_timings(facts):
        rate = c.data["bytes"] / c.data["seconds"] / 1e9
        if fastest and rate > fastest:
            yield make("ticket.faster_than_physics", "other", "warning", 0.6,
                       f"The timing implies {rate:,.0f} GB/s: faster than any GPU interconnect",
                       f"{c.data['bytes']:,.0f} bytes in {c.data['seconds'] * 1e6:g} us is {rate:,.0f} GB/s, above the "
                       f"fastest NVLink in the catalog ({fastest:g} GB/s counting both directions). "
                       "The figure comes from the measurement: a unit slip (us for ms), timing the launch instead of "
                       "the completion "
                       "(no cudaStreamSynchronize), or a collective that did not run.",
                       [claim_ev(c, "the timing"), ev(c, "implied bandwidth", round(rate), unit="GB/s"),
                        ev("catalog:gpus", "catalog: fastest NVLink, both directions", expected=fastest, unit="GB/s")],
                       fix="Time with nccl-tests or synchronise the stream before stopping the timer; check the units.")
            return




ONE_GPU = "assumed: one GPU (no layout stated)"


def one_stream(facts: Facts, m: Measurement) -> bool:
    """Is `m` one stream's pace (a decode rate or per-token latency at no load above 1)? Only such a figure follows an
    engine's one-GPU default: a deployment's total over N GPUs may be N one-GPU replicas (vLLM production-stack) or
    one TP=N server, and either way all N GPUs made it."""
    loads = {x for x in (m.batch, m.concurrency, one_load(facts), wfield(facts, "batch")[0]) if x}
    return m.metric in ("decode_tok_s", "itl_ms", "tpot_ms") and loads <= {1}


def _one_gpu_could(m: Measurement, roofline_tok_s: float) -> bool:
    """Could one stream on one GPU have given `m` (within ONE_STREAM_MARGIN of its roofline)? A faster figure rules
    the one-GPU default out: more GPUs made it, as TP or as replicas."""
    tok_s = m.value if m.metric == "decode_tok_s" else 1000.0 / m.value if m.value > 0 else 0.0
    return tok_s <= ONE_STREAM_MARGIN * roofline_tok_s


def assumed_tp(facts: Facts, m: Measurement) -> tuple[int, str]:
    """(TP of the layout a figure ran on, how it is known). The figure's own clause first, then the
    ticket's layout, then the GPUs the ticket says the job runs on; with none, an engine that does tensor
    parallelism is taken to use every GPU the ticket names (one stream's figure under an engine that runs one GPU
    unless told, engines.toml default_tp, one GPU where the model fits it), and anything else one GPU: the answer
    says it assumed so."""
    from rules import catalog
    from rules.common import engine_of, figure_tp, job_gpus, wfield

    own = figure_tp(facts, m)
    if own and (m.tp or own[0] > 1):  # (one GPU named beside a figure leaves the ticket's layout to say)
        return own
    tp, _ = wfield(facts, "tp")
    if tp:
        return tp, "the ticket's layout"
    job = job_gpus(facts)
    if job and job[0] == 1:
        return 1, f"one GPU: the job runs on one of the machine's GPUs ({job[1].source})"
    n = gpu_count(facts)
    engine = engine_of(facts)
    if n and n > 1 and tp_engine(engine):
        if catalog.engines()[engine].default_tp == 1 and one_stream(facts, m):
            one = predict_layout(facts, 1, 1)
            # (at the ticket's weights: a fit only with weights assumed quantised is no fit of the model as named)
            if one is not None and one.valid and one.fits and not assumed_weights(one) \
                    and _one_gpu_could(m, one.decode_tok_s):
                return 1, (f"assumed: {engine}'s default layout, one GPU (tensor parallel size 1 unless told; no "
                           f"layout stated, and the model fits one of the {n} GPUs named)")
        return n, f"assumed: the {engine} engine splits the model over the {n} GPUs named"
    return 1, ONE_GPU


def defaults_assumed(facts: Facts, m: Measurement, how: str, p) -> list[str]:
    """The defaults a figure's bound rests on where the ticket does not state them: weights in no format the
    ticket names (the checkpoint's own 16 bits, or an engine's default quantisation) and a layout `how` says was
    assumed (a GPU named without a count, "on an L4", is one GPU's layout, as stated). None for a figure a
    ticket.toml states: its fields are the structured input `scaling` and `predict` read too, whose documented
    defaults are the input's own."""
    from diagnose.artifacts.text import SIXTEEN_BIT

    structured = {read.name for read in getattr(facts, "files", None) or [] if "ticket_toml" in read.kinds}
    if m.source.rpartition(":")[0] in structured:
        return []
    out = []
    if p.assumptions.get("weights"):
        out.append(p.assumptions["weights"])
    elif not (getattr(m, "dtype", None) or weight_dtype(facts) or any(w.dtype for w in facts.of(Workload))
              or any(SIXTEEN_BIT.search(text) for _, text in claims.texts(facts))):
        out.append("the checkpoint's own 16-bit weights (the ticket names no weights format)")
    if how.startswith("assumed") and not (how == ONE_GPU and (gpu_count(facts) or 1) == 1):
        out.append(f"the layout ({how})")
    return out


def assumed_layout(facts: Facts, m: Measurement, batch: int = 1, prompt: int = 1024) -> tuple[int, int, str]:
    """(TP, PP, how it is known): assumed_tp's layout, except where it assumed one GPU, the ticket names several
    and the weights do not fit one. The model then sat on them layer by layer, as llama.cpp, Ollama and
    accelerate's device_map="auto" spread it over every visible GPU: one stream reads at one GPU's pace, the
    memory is all of theirs. The answer says it assumed so."""
    tp, how = assumed_tp(facts, m)
    if (m.pp or 1) > 1:  # the figure states its own stages, as a published row's pp column does for scaling
        return tp, m.pp, how
    n = gpu_count(facts)
    if how != ONE_GPU or not n or n < 2 or wfield(facts, "pp")[0]:
        return tp, 1, how
    one = predict_layout(facts, 1, batch, prompt)
    if one is None or not one.valid or one.fits:
        return tp, 1, how
    return 1, n, f"assumed: the layers split over the {n} GPUs named (no layout stated; the weights do not fit one)"


def faster_than_band(rule_id: str, what: str, band: str, bound: str, evidence):
    """A figure better than the calibrated band yet inside the roofline: it beats what healthy runs of this
    engine were measured to give (rules/expectations.py), so it says so, never that it matches the band."""
    return make(rule_id, "expected_physics", "info", 0.45,
                f"{what} beats the calibrated {band} for this model, GPU and layout ({bound})",
                "The figure is better than healthy runs of this engine were measured to give, yet within what the "
                "hardware allows: nothing is slow. A newer engine version, CUDA graphs, a shorter context or "
                "quantised weights than the ticket says can explain the margin.",
                evidence, fix="Nothing is broken; check the model, dtype and lengths given match the run if the "
                "figure is to be compared with others.")


def derived_load(facts: Facts, m: Measurement):
    """(batch per replica, how, (step ms, how, source) or None) of the serving-benchmark result that holds `m` and
    states no concurrency: the sequences decoding by Little's law, derived by the one derivation `diagnose scaling`
    uses (rules.littles_law.derived_batch), so both commands judge the block at one batch. None when `m` is in
    no such result, a figure the law needs is missing, or one is out of range (the block is then not judged)."""
    from diagnose.errors import InputError
    from rules.littles_law import benchmark_results, derived_batch

    found = benchmark_results(facts.of(Workload), facts.of(Measurement)).get(m.source)
    try:
        return derived_batch(found[1], wfield(facts, "dp")[0] or 1) if found else None
    except InputError:
        return None


def derived_step(m: Measurement, derived, p, reply_stated: bool):
    """(the figure judged, its expectation, its name) for a result whose batch was derived: the step derived with the
    batch (each step once), else the mean TPOT, as rules.scaling.measured_step measures the run; a step against the
    predicted step at the prompt's context, a mean over a stated reply against the mean over its contexts (_row)."""
    from rules.expectations import expectation

    step = derived[2]
    if step is None:
        return m, expectation("tpot_ms" if reply_stated else "step_ms", p), "TPOT mean"
    judged = dataclasses.replace(m, source=step[2], metric="step_ms", value=round(step[0], 4))
    return judged, expectation("step_ms", p), f"decode step ({step[1]})"


# A figure as given: stated in prose ("reported") or a serving benchmark's mean ("Mean ITL (ms)" in vLLM's
# benchmark_serving block), run at the concurrency the benchmark states.
JUDGED_STATS = ("reported", "mean")
# ... and a per-token latency or a batch's output rate stated with no statistic (None: a ticket.toml [[measured]]
# entry), read as its typical figure as `scaling` reads a row with none (diagnose.scaling_inputs.Run.get): the same
# figure is judged in both commands. (A layer split's decode rate with none is priced by ticket.measured_vs_expected
# at its stated stages, as scaling prices the row.)
STATED_STATS = (*JUDGED_STATS, None)


@rule("ticket.latency_vs_expected", "expected_physics", "other")
def latency_vs_expected(facts: Facts, predictions=None):
    """A per-token latency the reporter states (ITL / TPOT), against the calibrated band and the
    roofline for the model, GPU, layout and engine the ticket names (rules/expectations.py)."""
    model, model_src, gpu = _served(facts)
    if model is None or unmodelled_layout(facts):
        return
    from rules.expectations import expectation

    series = stated_series(facts, model, model_src, gpu)
    if series is not None:
        yield series
        return
    for metric in ("itl_ms", "tpot_ms"):
        for m in measurements(facts, metric):
            if m.stat not in STATED_STATS:
                continue  # a median or percentile: the bands are for a mean
            load = load_for(facts, m)
            derived = None if load or m.stat != "mean" else derived_load(facts, m)
            if m.stat == "mean" and not load and derived is None:
                continue  # a benchmark's mean at a load it does not state: not one stream's figure to judge at batch 1
            batch = derived[0] if derived else load.n if load else 1
            tp, pp, how = assumed_layout(facts, m, batch)
            # (a stated load above the KV cache's seats decodes at most those: rules.workload.seated)
            batch, p, seats = (batch, predict_layout(facts, tp, batch, pp=pp), None) if derived else \
                seated(facts, tp, batch, pp)
            if p is None or not (p.valid and p.fits):
                continue
            judged, e, said = m, expectation(metric, p), f"{metric.split('_')[0].upper()}"
            if derived:  # the block's own step at its derived batch, against the figure scaling sets it against
                judged, e, said = derived_step(m, derived, p, bool(wfield(facts, "output_len")[0]))
            verdict = e.verdict(judged.value)
            prose = verdict == "slower" and judged.value <= slowest_normal(e.high, True, is_reported(judged))
            band = band_text(e.low, e.high, judged.value, digits=1)
            what = f"{said} at {layout_words(p)} ({how}), batch {batch}" + (f" per replica ({derived[1]})"
                                                                            if derived else "")
            evidence = band_evidence(judged, what, "ms", e.expected, band, e.roofline, p, gpu, model_src, model) + (
                [seats] if seats is not None else [])
            m = judged
            if verdict == "faster_than_roofline":  # a batch only lengthens a step: no batch makes this possible
                yield beyond_roofline.finding("ticket.latency_vs_expected", f"TP{tp} batch {batch} per-token latency",
                                              m.value, e.roofline, "ms", evidence,
                                              assumed=defaults_assumed(facts, m, how, p))
            elif verdict == "faster":
                yield faster_than_band("ticket.latency_vs_expected", f"{m.value:g} ms per token",
                                       f"{band} ms", f"roofline {e.roofline:.3g} ms", evidence)
            elif verdict == "inside" or prose:
                over = prose_words(m.value, e.high) if prose else ""
                yield make("ticket.latency_vs_expected", "expected_physics", "info", 0.55,
                           f"{m.value:g} ms per token is what this model, GPU and layout deliver "
                           f"(expected {band} ms{over})",
                           "Each decode step reads every weight (and the KV cache) from memory and, with tensor "
                           "parallelism, waits for two all-reduces per layer; "
                           "that sets the per-token time, not a fault."
                           + (f" A figure written in prose reads up to {1 / REPORTED_RATE_SLACK - 1:.0%} slow (what "
                              "was timed and rounding: rules.expectations)." if prose else ""),
                           evidence, fix="Nothing is broken; a faster step needs more memory bandwidth per GPU, "
                           "quantised weights, or (for throughput) a larger batch.")
            else:  # beyond the band: the one lead `scaling` gives a single figure there (rules.beyond_band)
                per_token = f"{m.value:g} ms per token (x{e.ratio(m.value):.1f} the expected)"
                yield beyond_band.finding("ticket.latency_vs_expected", per_token, m.value, e.high, "ms", True,
                                          f"{band} ms", evidence, beyond_band_attach(facts), reported=is_reported(m))
            return


def stated_series(facts: Facts, model, model_src, gpu, metrics=("itl_ms", "tpot_ms"),
                  rule_id: str = "ticket.latency_vs_expected"):
    """Figures of one metric stated at two or more TP sizes, at one load: a TP series, each layout judged with the one
    judgement `diagnose scaling` gives a series (rules.scaling.series_status: measured / expected time against the
    band and against the smallest TP measured), so a table of ITLs or of a batch's output rates by TP gets the same
    verdict in both commands. An output rate (a batch's total over its whole requests, prefill included) is set
    against the figure scaling sets it against (rules.expectations: output_tok_s), so it needs the reply's length. A
    layout beyond the band: scaling.broken_layout's finding; every layout tracking (or as far from the band as the
    smallest, which scaling does not change): scaling.tracks_prediction's; else None (judged per figure)."""
    from rules.expectations import expectation
    from rules.scaling import beyond_title, series_status

    for metric in metrics:
        by_tp: dict[int, Measurement] = {}
        for m in measurements(facts, metric):
            if m.tp and (m.pp or 1) == 1 and m.stat in STATED_STATS:
                by_tp.setdefault(m.tp, m)
        loads = {(load_for(facts, m) or (1,))[0] for m in by_tp.values()}
        rate = metric.endswith("tok_s")
        if len(by_tp) < 2 or len(loads) != 1 or (rate and not wfield(facts, "output_len")[0]):
            continue
        batch = loads.pop()
        rows = []
        for tp, m in sorted(by_tp.items()):
            p = predict_layout(facts, tp, batch)
            if p is None or not (p.valid and p.fits):
                return None  # a layout that cannot run: judged per figure
            e = expectation("output_tok_s_total" if rate else metric, p)  # (a batch's total: scaling's name)
            if e.verdict(m.value) == "faster_than_roofline":
                return None  # beyond the bound: judged per figure (beyond_roofline's finding)
            rows.append((m, p, e, e.expected / m.value if rate else m.value / e.expected))
        base = rows[0][3]
        judged = [(m, p, e, r, series_status(r, p.band_low, p.band_high, base, i == 0))
                  for i, (m, p, e, r) in enumerate(rows)]
        name, unit = ("output rate", "tok/s") if rate else (metric.split("_")[0].upper(), "ms")
        evidence = [ev(m, f"{name} at TP{m.tp}, batch {batch}: x{r:.2f} the expected time ({status})", m.value,
                       round(e.expected, 3), unit) for m, p, e, r, status in judged]
        evidence += [ev("prediction:expected", f"expected band ({judged[0][1].engine} profile, {gpu.key})",
                        expected=f"x{judged[0][1].band_low:.2f}-x{judged[0][1].band_high:.2f}"),
                     ev(model_src, "model", model.key)]
        beyond = [x for x in judged if x[4] == "beyond_band"]
        if beyond:
            m, p, e, r, _ = max(beyond, key=lambda x: x[3])
            return make(rule_id, "other", "warning", 0.6,  # scaling.broken_layout's confidence
                        beyond_title(f"TP{m.tp}", r, p.band_high),
                        f"Over the TP series the ticket states, TP{m.tp} is x{r:.2f} slower than a healthy {p.engine} "
                        f"system, while TP{judged[0][0].tp} is x{base:.2f}: something grows at this layout that the "
                        "physics does not (a slow path, a throttled or straggling GPU, or host work per rank).",
                        evidence, fix=beyond_band_fix(facts))
        worst = max(judged, key=lambda x: x[3])
        return make(rule_id, "expected_physics", "info", 0.55,
                    f"All {len(judged)} layouts scale as expected (worst TP{worst[0].tp}: x{worst[3]:.2f} the expected "
                    f"time, band up to x{worst[1].band_high:.2f}" + (f", the smallest layout's x{base:.2f} carried)"
                                                                      if base > worst[1].band_high else ")"),
                    f"Each layout's {name} is what a healthy system with this engine gives for this model "
                    "and GPU, or as far from it as the smallest layout measured, which more TP does not change.",
                    evidence, fix="Nothing is broken in the scaling; pick the TP that meets the latency target.")
    return None


def one_gpu_pace(facts: Facts):
    """One GPU streaming every weight: the pace of one stream through a layer split over several GPUs, or None when
    the model is not split by layers over two or more GPUs (one GPU: ticket.measured_vs_expected judges its rate)."""
    if facts.subject.model is None or not layer_split_over_gpus(facts):
        return None
    if one_gpu_in_use(facts):
        return None  # the reporter sees one GPU do the work ('only one card is used'): nothing is split, one GPU's rate
    p = predict_layout(facts, 1, 1)
    return p if p is not None and p.valid else None


class SplitPace(typing.NamedTuple):
    """One stream's pace through a layer split over `gpus` GPUs, and the predictor's layout for it (`layout`: PP
    `gpus` at batch 1, None where it refuses it), so the memory-fit check reads the same prediction."""

    expected: float
    low: float
    high: float
    roofline: float
    gpus: int
    layout: object


def split_pace(facts: Facts, p, m: Measurement) -> SplitPace | None:
    """The pace of one stream through a layer split: the predictor's PP n figure at batch 1 (what `predict --pp n`
    prints: one GPU's pace plus the engine's hand-overs and split costs), else, where the predictor refuses that
    layout, one GPU streaming every weight (`p`, one_gpu_pace) plus a PCIe send/recv of the hidden state per GPU
    boundary (rules.collectives.p2p_us); the GPUs of the figure's own clause, else of the ticket. None for a figure
    that is not one stream's rate (a prose figure or a tool's measured mean at batch 1) or is above one GPU's bound
    by more than 10 % (counted another way: not judged here)."""
    from rules import catalog, collectives

    if m.stat not in JUDGED_STATS or (m.batch or 1) != 1 or m.value > 1.1 * p.decode_tok_s:
        return None
    n = m.gpus or max(wfield(facts, "tp")[0] or 0, gpu_count(facts) or 0, 2)
    q = p if n == 1 else predict_layout(facts, 1, 1, pp=n)  # (one GPU: one_gpu_pace's own prediction)
    if n > 1 and q is not None and q.valid:
        # the predictor's own layer split (PP n at batch 1: its hand-overs, the engine's split costs such as
        # llama.cpp's F32 hand-over and graphs dropped in pipeline mode), the figure `predict --pp n` prints
        return SplitPace(q.decode_tok_s_expected, q.decode_tok_s_expected / q.band_high,
                         q.decode_tok_s_expected / q.band_low, q.decode_tok_s, n, q)
    fabric = catalog.interconnect(facts.subject.gpu.pcie_interconnect)
    handover_ms = (n - 1) * collectives.p2p_us(fabric, facts.subject.model.hidden * 2) / 1e3
    step = 1e3 / p.decode_tok_s_expected + handover_ms
    expected = 1e3 / step
    return SplitPace(expected, expected / p.band_high, expected / p.band_low,
                     1e3 / (1e3 / p.decode_tok_s + handover_ms), n, q)


def unfit_layout(facts: Facts, n: int, p=None):
    """(prediction, usable GB per GPU, "<model> split over n x <gpu>") when the memory-fit check `predict` runs
    (predict.does_not_fit) finds the weights, the engine's reserve and the KV cache larger than `n` of the ticket's
    GPUs, also at 4 bits where the weights' type is unstated; else None. `p`: the PP n prediction already made."""
    p = p if p is not None else predict_layout(facts, 1, 1, pp=n)
    if p is None or not p.valid or p.fits:
        return None
    if not weight_dtype(facts):  # weights unstated: a 4-bit checkpoint (the usual local one) that fits leaves it open
        q = predict_layout(facts, 1, 1, pp=n, dtype="int4")
        if q is None or not q.valid or q.fits:
            return None
    gpu = facts.subject.gpu
    usable = p.weights_gb_per_gpu + p.reserved_gb + p.kv_budget_gb  # the predictor's usable memory (a stated share)
    where = f"split over {n} x {gpu.name}" if n > 1 else f"on one {gpu.name}"
    return p, usable, f"{facts.subject.model.name} {where}"


def split_does_not_fit(facts: Facts, pace: SplitPace, rule_id: str, m: Measurement):
    """The memory-fit check for the layer split of `pace` (unfit_layout on its own PP n prediction), for a decode
    rate: a finding when the model does not fit them, else None. A layer-split engine (llama.cpp, Ollama,
    accelerate's device_map) then keeps the layers that do not fit on the CPU, and they set the pace."""
    from rules.predict_rules import shortfall_evidence, shortfall_words

    n = pace.gpus
    unfit = unfit_layout(facts, n, pace.layout) if pace.layout is not None else None
    if unfit is None:
        return None
    p, usable, label = unfit
    return make(rule_id, "host_bound", "warning", 0.6,
                f"{label} does not fit in GPU memory: the rest runs on the CPU ({m.value:g} tok/s)",
                f"{label} is {shortfall_words(p, usable)}. A layer-split engine keeps the layers that do not fit in "
                "system memory and runs them on the CPU, so every token waits on host memory bandwidth; the rate is "
                "not judged against the GPUs' pace.",
                [ev(m, "decode rate reported", m.value, unit="tok/s"),
                 shortfall_evidence(p, usable, f"prediction:roofline (TP1 PP{n})", label)],
                fix="Fit every layer in VRAM: a smaller quantisation or context, or more or larger GPUs (`diagnose "
                "predict` shows which layouts fit); `ollama ps` should read '100% GPU'.")



def _sized(facts: Facts) -> bool:
    """Does the name the ticket's model was read from pin its size: a size in it ("70b", "8x7B", "Llama-2-13b"), a
    catalog id, or a sizeless Ollama tag whose library default the tag table knows ("mixtral" -> "mixtral:8x7b")?"""
    from rules import catalog

    names = [w.model or w.extra.get("ollama_named") for w in facts.of(Workload)
             if w.source == facts.subject.model_source]
    return any(re.search(r"\d(?:\.\d+)?\s*[bB]\b|\d+x\d+[bB]\b", n) or "/" in n or catalog.ollama_sized_tag(n)
               for n in names if n)


@rule("ticket.model_over_vram", "host_bound")
def model_over_vram(facts: Facts, predictions=None):
    """A model the catalog sizes above all of the ticket's GPU memory, under an engine that runs what does not fit
    on the CPU, in a ticket with no decode rate to judge (ticket.layer_split_rate judges those): part of every
    token is computed from system memory, so the GPUs idle and the host sets the pace. Predicted from the catalog's
    sizes, not seen: a lead below the reporter's own 'offloaded n/m layers' (ticket.partial_offload)."""
    from rules.common import engine_of
    from rules.offload import keeps_weights_on_gpu

    if not facts.subject or not facts.subject.model or not facts.subject.gpu \
            or keeps_weights_on_gpu(engine_of(facts)) is not False or measurements(facts, "decode_tok_s") \
            or claims.symptom(facts) in FAILURES:
        return
    if any(c.negated and not c.guess and c.data.get("origin") == "output" for c in claims.partial_offload(facts)):
        return  # "100% GPU" / "offloaded 33/33": the reporter's output shows every layer in VRAM
    from rules.predict_rules import shortfall_evidence, shortfall_words

    if not _sized(facts):
        return  # "deepseek-r1" alone spans a 1.5B distill to the 671B model: the weights are not known
    n = gpu_count(facts) or 1
    unfit = unfit_layout(facts, n)
    if unfit is None:
        return
    p, usable, label = unfit
    yield make("ticket.model_over_vram", "host_bound", "warning", 0.55,
               f"{label} does not fit in GPU memory: the layers left over run on the CPU",
               f"{label} is {shortfall_words(p, usable)}. The engine keeps the layers that do not fit in system "
               "memory and computes them on the CPU; decoding reads every weight once per token, those from system "
               "RAM at a fraction of the GPU's memory bandwidth, so the GPU finishes its layers and waits (low GPU "
               "utilisation, a busy CPU).",
               [shortfall_evidence(p, usable, f"prediction:roofline (TP1 PP{n})", label)],
               fix="Fit every layer in VRAM: a smaller quantisation or model, a shorter context (the KV cache shares "
               "VRAM), or more or larger GPUs (`diagnose predict` shows which layouts fit); `ollama ps` should read "
               "'100% GPU', llama.cpp's log 'offloaded N/N layers'.",
               refs=["https://github.com/ollama/ollama/blob/main/docs/faq.md"])


@rule("ticket.layer_split_rate", "expected_physics", "other", "host_bound")
def layer_split_rate(facts: Facts, predictions=None):
    """A decode rate from a layer split (llama.cpp, Ollama, accelerate device_map): the GPUs take
    turns, so one stream decodes at the pace of one GPU streaming all the weights, less the hand-over
    of the hidden state from GPU to GPU, whatever the number of GPUs. Every one-stream figure is judged
    against that: inside its band is physics; below it is the lead measured_vs_expected gives any one figure
    beyond its band (rules.beyond_band)."""
    model, model_src, gpu = _served(facts)
    p = one_gpu_pace(facts)
    if model is None or p is None:
        return
    judged = set()
    for m in measurements(facts, "decode_tok_s"):
        pace = split_pace(facts, p, m)
        if pace is None or (m.value, pace.gpus) in judged:
            continue  # (one figure said twice, once with its GPU count and once without, is judged once)
        judged.add((m.value, pace.gpus))
        expected, low, high, roofline, n = pace[:5]
        unfit = split_does_not_fit(facts, pace, "ticket.layer_split_rate", m)
        if unfit is not None:
            yield unfit
            continue
        band = band_text(low, high, m.value)
        what = f"decode rate, one stream through {n} GPU(s) split by layers (one GPU's pace less {n - 1} hand-over(s))"
        evidence = band_evidence(m, what, "tok/s", round(expected, 2), band, roofline, p, gpu, model_src, model)
        if m.value >= lowest_normal(low, m):
            yield make("ticket.layer_split_rate", "expected_physics", "info", 0.55,
                       f"{m.value:g} tok/s is one GPU's pace for this model: a layer split does not add speed",
                       "With the layers split over the GPUs each token passes through them one after another, so one "
                       "stream decodes as fast as one GPU streaming every weight from its memory; more GPUs hold a "
                       "bigger model, they do not make one stream faster.",
                       evidence,
                       fix="Use the fewest GPUs that hold the model; for speed on several GPUs use tensor parallelism "
                       "(vLLM, SGLang, TensorRT-LLM, ExLlamaV2 TP) and a batch of "
                       "requests.")
            continue
        # one figure beyond a layer split's band: the one lead `scaling` gives it (rules.beyond_band)
        yield beyond_band.finding("ticket.layer_split_rate", f"{m.value:g} tok/s on {n} GPU(s) split by layers",
                                  m.value, low, "tok/s", False, f"{band} tok/s", evidence, beyond_band_fix(facts),
                                  reported=is_reported(m))


# (p2ptest34) p2pBandwidthLatencyTest's label for the copy it stages through host memory on every host, P2P granted
# or not ("P2P=Disabled", the sample's README): a figure under it is the comparison arm, not P2P found off.
_SAMPLE_LABEL = re.compile(r"P2P\s*=\s*(Enabled|Disabled)", re.I)


def _staged_by_the_sample(c) -> bool:
    """Is the figure claim `c` quoted under the sample's P2P=Disabled label (the nearest label before it)?"""
    at = c.quote.find(f"{c.data['value']:g}")
    labels = _SAMPLE_LABEL.findall(c.quote[:at]) if at >= 0 else []
    return bool(labels) and labels[-1].lower() == "disabled"


@rule("ticket.pcie_figure", "expected_physics", "p2p_disabled", "other")
def pcie_figure(facts: Facts, predictions=None):
    """A GPU-to-GPU copy rate on GPUs without NVLink, against their PCIe generation: a x16 link's
    line rate per direction (Gen3 15.75, Gen4 31.5, Gen5 63 GB/s; PCI-SIG) of which copies reach
    about 80 % after packet overhead."""
    if not asks_about_figures(facts) or _measured_by_a_tool(facts):
        return
    gpu, gpu_src = facts.subject.gpu, facts.subject.gpu_source
    if gpu is None or (gpu.nvlink_gbs and not gpu.nvlink_bridged) or has_nvlink(facts):
        return  # NVLink carries the copies (an SXM board, or a bridge the topology shows)
    text = " ".join(t for _, t in claims.texts(facts))
    if not re.search(claims.COPY_WORDS, text, re.I):
        return  # (NVLink the ticket affirms returned above; one said absent or only asked about leaves PCIe)
    from rules import catalog

    pcie = catalog.interconnect(gpu.pcie_interconnect)
    line = pcie.bandwidth_gbs
    # (healthy36) a link's negotiated rate as lstopo or lspci print it is no copy's (claims.bandwidth_figures)
    figures = [f for f in claims.bandwidth_figures(facts) if not f.data["question"] and not _staged_by_the_sample(f)
               and not f.data["link_report"]]
    usable = [(per_direction(f), f) for f in figures if not f.data["spec"] and scope_known(f)]
    low = [(v, f) for v, f in usable if v < PHYSICS_FLOOR * COPY_SHARE * line]
    usable = [(v, f) for v, f in usable if PHYSICS_FLOOR * COPY_SHARE * line <= v <= 1.05 * line]

    def copy_ev(value: float, c) -> list:
        """The copy rate stated, against what a copy reaches over the board's own PCIe link."""
        return [claim_ev(c, "the copy rate"), ev(c, "per direction", value, round(COPY_SHARE * line, 1), "GB/s"),
                ev(gpu_src, f"catalog {gpu.key}: PCIe Gen{gpu.pcie_gen} x{gpu.pcie_lanes}", expected=line,
                   unit="GB/s")]

    if low:  # the slowest figure named is the one to judge: "GPU 3 gets 3 GB/s, the other pairs 20 GB/s"
        value, c = min(low, key=lambda x: x[0])
        evidence = copy_ev(value, c)
        if not gpu.pcie_p2p and not p2p_seen_working(facts):  # (a patched driver grants it: the link or the path)
            yield make("ticket.pcie_figure", "p2p_disabled", "warning", 0.5,
                       f"{value:g} GB/s is a copy staged through host memory: {gpu.name} has no PCIe peer-to-peer",
                       "The stock driver does not give these boards PCIe P2P, so a GPU-to-GPU copy goes to host memory "
                       "and back, at a fraction of the link's rate.", evidence,
                       fix="Expected with the stock driver; NVLink or P2P-capable GPUs copy directly.")
        else:  # far below the link: not physics; the link's state or the P2P path says why
            yield make("ticket.pcie_figure", "other", "warning", 0.45,
                       f"{value:g} GB/s is {value / (COPY_SHARE * line):.0%} of what a {pcie.name} link carries",
                       "A copy this slow is not the link's physics: the link trained narrower or slower (x8/x4, Gen1-3 "
                       "under load), or the copy goes through host memory because peer-to-peer is off (ACS, IOMMU, "
                       "a VM).", evidence,
                       fix="attach `sudo lspci -vvv` (LnkCap/LnkSta of the GPUs) and p2pBandwidthLatencyTest's "
                       "P2P=Enabled and P2P=Disabled matrices")
        return
    if not usable:
        return
    value, c = max(usable, key=lambda x: x[0])
    yield make("ticket.pcie_figure", "expected_physics", "info", 0.5,
               f"{value:g} GB/s per direction is what a {pcie.name} link carries ({value / line:.0%} of its line rate)",
               f"{gpu.name} GPUs without NVLink copy over PCIe: a x16 link's line rate is {line:g} GB/s per direction "
               "and packet and protocol overhead leave about 80 % of it to a copy; the figure sits there, so the link "
               "runs at its full width and speed.",
               copy_ev(value, c),
               fix="Nothing to fix for the link; for more GPU-to-GPU bandwidth use NVLink-capable GPUs.")
