"""A decode rate from a model run partly outside GPU memory, against where its bytes are read per token.

"I get 3 tok/s with 40 of 81 layers on the GPU, is that normal?" is answered with rules/offload.py: the layers or
experts on the CPU read their weights from host memory (the CPU the ticket names, rules/catalog/host_memory.toml), the
weights copied in each step cross PCIe, the rest reads from the GPU at the predictor's pace. Inside that band the
offload is the whole story; far below it something else costs time too.
"""

from __future__ import annotations

from diagnose.evidence import Facts, Workload
from rules import claims, offload
from rules.common import claim_ev, engine_of, ev, gpu_count, make, measurements, wfield
from rules.engine import rule
from rules.expectations import band_text, lowest_normal
from rules.failure_words import failure_said
from rules.ticket_figures import JUDGED_STATS, _served, beyond_band_fix, unfit_layout, weights_ev
from rules.workload import predict_layout


def _affirmed(found: list[claims.Claim], form: str) -> claims.Claim | None:
    return next((c for c in found if c.data["form"] == form and not c.negated and not c.guess), None)


def engine_keeps_weights(facts: Facts) -> bool | None:
    """offload.keeps_weights_on_gpu of the ticket's engine: the catalog profile it runs, else the first framework a
    file names that the catalog has no profile for (KTransformers, device_map="auto")."""
    names = [engine_of(facts), *(w.framework for w in facts.of(Workload) if w.framework)]
    return next((r for n in names if (r := offload.keeps_weights_on_gpu(n)) is not None), None)


def placements(facts: Facts, p, model) -> list[tuple[offload.Placement, list]]:
    """Where the ticket puts the weights that are not in VRAM, each with its evidence: the reporter's output or words
    (layers, an `ollama ps` share, experts, a PCIe offload), else, for a model larger than all the ticket's GPU memory
    under an engine that runs what does not fit from host memory, both ways an engine could have placed it (the
    layers that do not fit, and for an MoE the routed experts). Empty when nothing says or implies an offload."""
    found = claims.partial_offload(facts)
    if any(c.negated and not c.guess and c.data.get("origin") == "output" for c in found):
        return []  # "100% GPU" / "offloaded 33/33 layers": every layer is in VRAM
    if (c := _affirmed(found, "pcie")) is not None:
        return [(offload.streamed_over_pcie(c.data["gb"]), [claim_ev(c, "weights kept in host memory")])]
    if (c := _affirmed(found, "zero")) is not None:
        # ZeRO-Inference keeps every weight on the host and streams it in each forward pass; ZeRO-3 partitions them,
        # so each of n GPUs copies its 1/n share from host memory (the rest arrives from its peers, not counted here)
        n = gpu_count(facts) or 1
        share = p.weights_gb_per_gpu * p.tp * p.pp / n
        return [(offload.streamed_over_pcie(share),
                 [claim_ev(c, f"ZeRO-Inference parameter offload to {c.data['to']}"),
                  ev("prediction:roofline", f"the model's weights over {n} GPU(s): each copies its share from the "
                     f"host every step", round(share, 1), None, "GB")])]
    for form in ("offloaded", "ngl", "no_ngl"):
        c = _affirmed(found, form)
        if c is not None and c.data["on_gpu"] < model.layers:
            layers = c.data.get("layers") or model.layers
            on_gpu = c.data["on_gpu"] if form != "offloaded" else round(c.data["on_gpu"] * model.layers / layers)
            return [(offload.layers_on_cpu(p, on_gpu, model.layers), [claim_ev(c, "layers on the GPU")])]
    c = _affirmed(found, "ollama_ps")
    if c is not None and c.data["cpu_pct"] > 0:
        return [(offload.share_on_cpu(p, c.data["cpu_pct"]), [claim_ev(c, "share of the model on the CPU")])]
    c = _affirmed(found, "experts")
    if c is not None and model.is_moe:
        return [(offload.experts_on_cpu(p, c.data.get("first_layers")), [claim_ev(c, "experts on the CPU")])]
    resident = engine_keeps_weights(facts)
    said = [claim_ev(c, "part of the model off the GPU") for c in found
            if c.data["form"] in ("words", "over_vram", "accelerate") and not c.negated and not c.guess][:1]
    # too large for the GPUs only counts where the GPUs are counted, the engine runs what does not fit on the host,
    # or the ticket names the host's CPU or says the model spills (an unstated count of data-centre GPUs is no offload)
    host_named = any(c.data.get("cpu") and not c.guess for c in claims.host_platform(facts))
    # under an engine that keeps every weight in VRAM, a model too large for the GPUs is an out-of-memory error, not
    # an offload, unless --cpu-offload-gb is set (read above)
    if resident or not (gpu_count(facts) or resident is False or host_named or said):
        return []
    n = gpu_count(facts) or 1
    unfit = unfit_layout(facts, n, predict_layout(facts, 1, 1, pp=n) if n > 1 else p)
    if unfit is None:
        return []
    _, usable, label = unfit
    shortfall = [ev("prediction:roofline", f"{label}: weights {p.weights_gb_per_gpu:.0f} GB against "
                    f"{usable * n:.0f} GB usable GPU memory", round(p.weights_gb_per_gpu, 1), round(usable * n, 1),
                    "GB")] + said
    fits = max(0, min(model.layers - 1, int(usable * n / offload.resident_layer_gb(p, model))))
    out = [(offload.layers_on_cpu(p, fits, model.layers), shortfall)]
    experts = offload.experts_on_cpu(p)
    if experts is not None:
        out.append((experts, shortfall))
    return out


def host(facts: Facts, held_gb: float) -> tuple[offload.HostMemory, list]:
    """The host's memory bandwidth from the CPU, memory and sockets the ticket states, with the claims it rests on."""
    said = [c for c in claims.host_platform(facts) if not c.guess and not c.negated]

    def first(key):
        return next((c for c in said if c.data.get(key)), None)

    cpu, ddr, speed, channels, sockets = first("cpu"), first("ddr"), first("mts"), first("channels"), first("sockets")
    n_sockets = sockets.data["sockets"] if sockets else None
    n_channels = channels.data["channels"] if channels else None
    family = offload.cpu_family(cpu.data["cpu"]) if cpu else None
    if n_channels and n_sockets and n_sockets > 1 and family and n_channels > family[0]["channels"]:
        n_channels //= n_sockets  # "24 channels" on two 12-channel sockets: the total
    found = offload.host_memory(cpu.data["cpu"] if cpu else None, speed.data["mts"] if speed else None, n_channels,
                                n_sockets, ddr.data["ddr"] if ddr else None, held_gb)
    memory = [c for c in (ddr, speed) if c]
    if len(memory) == 2 and memory[0] is memory[1]:
        memory = memory[:1]  # "DDR5-4800" names both
    evidence = [claim_ev(c, what) for c, what in ((cpu, "CPU"), *((c, "memory") for c in memory),
                                                  (channels, "memory channels"), (sockets, "sockets")) if c]
    return found, evidence


# A rate up to 10 % above the fastest placement still reads as this offload (a rounded or differently timed figure):
# the margin ticket_figures, ticket_numbers and ticket_rules give a rate above the predictor's bound before calling it
# counted another way. It is a convention, not this model's residual: on the published offload rows
# (tests/data/offload_rows.toml, benchmarks/offload_accuracy.py) the validation rows' median error is 15 %, and two of
# five sit above their band's fast edge (a llama-server rate 1.6x above it, an EPYC 9654 rate 6 % above it); such a
# figure gets no finding here (unjudged), never a wrong one.
ABOVE_FASTEST = 1.1


@rule("ticket.offload_rate", "expected_physics", "host_bound")
def offload_rate(facts: Facts, predictions=None):
    """One stream's decode rate with part of the model in host memory, against the rate its placement allows:
    host-memory reads for the CPU's share, PCIe copies for weights streamed in, the GPU's pace for the rest."""
    model, model_src, gpu = _served(facts)
    if model is None:
        return
    rates = [m for m in measurements(facts, "decode_tok_s") if m.stat in JUDGED_STATS and (m.batch or 1) == 1]
    p = predict_layout(facts, wfield(facts, "tp")[0] or 1, 1) if rates else None  # the layout the ticket states
    if p is None or not p.valid:
        return
    placed = placements(facts, p, model)
    if not placed:
        return
    from rules import catalog

    # what host memory must hold
    held = max(0.0, p.weights_gb_per_gpu * p.tp * p.pp - gpu.memory_gb * (gpu_count(facts) or 1))
    memory, host_ev = host(facts, held)
    pcie = catalog.interconnect(gpu.pcie_interconnect).achieved_gbs
    paces = [offload.decode_pace(p, pl, memory, pcie) for pl, _ in placed]
    low, high = min(x.low for x in paces), max(x.high for x in paces)
    expected = (min(x.expected for x in paces) * max(x.expected for x in paces)) ** 0.5
    m = min(rates, key=lambda r: r.value)  # (of several rates the slowest, the one a complaint is about)
    if m.value > high * ABOVE_FASTEST:
        return  # faster than any placement allows: the figure counts something else, or the placement differs
    band = band_text(low, high, m.value, digits=1)
    where = " or ".join(x.placement.words for x in paces)
    evidence = [ev(m, f"decode rate with {where} (band {band} tok/s)", m.value, round(expected, 2), "tok/s")]
    evidence += placed[0][1] + host_ev + offload.evidence(paces, p, gpu.key)
    evidence += [ev(model_src, "model", model.key)] + weights_ev(p)
    if m.value >= lowest_normal(low, m):
        yield make("ticket.offload_rate", "expected_physics", "info", 0.6,
                   f"{m.value:g} tok/s is what this placement allows: {where} (expected {band} tok/s; "
                   f"{p.decode_tok_s_expected:.0f} tok/s if it all sat in VRAM)",
                   "Each token reads every active weight once. The part in host memory is read at the host's memory "
                   "bandwidth, an order of magnitude below the GPU's, and the GPU waits for it; that, not a fault, "
                   "sets the rate.",
                   evidence,
                   fix="Nothing is broken. More speed needs fewer bytes off the GPU (a smaller quantisation or model, "
                   "more or larger GPUs) or more host bandwidth (every memory channel populated, faster DIMMs, a "
                   "platform with more channels, NUMA-local placement).",
                   refs=["https://github.com/kvcache-ai/ktransformers/blob/main/doc/en/DeepseekR1_V3_tutorial.md",
                         "https://github.com/ggml-org/llama.cpp/blob/master/tools/main/README.md"])
        return
    # the host computes most of each token here, so a rate below what its memory allows is lost on the host side
    yield make("ticket.offload_rate", "host_bound", "warning", 0.5,
               f"{m.value:g} tok/s is below even the offloaded placement's {band} tok/s ({where})",
               "Host-memory reads explain a slow rate, but not this slow. The CPU side sets the pace of an offloaded "
               "model, and here it runs below what its memory allows: memory channels left empty or slow, NUMA "
               "placement, too many CPU threads (hyper-threads) or too few, swapping, or another load on the host.",
               evidence, fix=beyond_band_fix(facts) + " Check that every memory channel is populated (dmidecode -t "
               "memory), the thread count matches physical cores, and the weights are not paged from disk.")


# (c50g) A GPU that idles or holds little memory while the MoE experts run on the CPU, by the engine's design:
# KTransformers' "Expert Offload" (the routed experts' GEMMs on the CPU, attention and shared parts on the GPU,
# doc/en/DeepseekR1_V3_tutorial.md) and llama.cpp's --cpu-moe / -ot exps=CPU. Each token waits for the CPU's experts,
# so more GPUs or VRAM add room, not speed: "The ktransformers' multi-gpu strategy is pipline, which is not able to
# speed up the model's inference. It's only for the model's weight distribution" (doc/en/FAQ.md); experts moved to a
# GPU run there without CUDA graphs and no faster (kvcache-ai/ktransformers#561, #881). Threads answered so:
# b50c/ktransformers312 (15 % compute on an H100), ut27a/ktr881 (experts to cuda:0?), c50g/ktransformers537 (how to
# use more of four A100s' memory?).
CPU_EXPERTS_WEIGHT = 0.55


@rule("ticket.cpu_experts", "expected_physics")
def cpu_experts(facts: Facts, predictions=None):
    """The experts computed on the CPU by the engine's design, and the reporter asks about the GPU side (a low
    utilisation figure, how to use more GPUs or their memory, experts moved to a GPU): the CPU side sets the pace, so
    the GPU waits and more of it does not help. A decode rate the offload's band can judge is ticket.offload_rate's."""
    placed = claims.partial_offload(facts)
    c = _affirmed(placed, "experts")
    if c is None or failure_said(facts) or engine_keeps_weights(facts):
        return  # (an engine that holds every weight in VRAM named too: "we moved from ktransformers to vLLM")
    if any(p.negated and p.data["form"] in ("ollama_ps", "offloaded") for p in placed) \
            or any(claims.all_on_gpu(text) for _, text in claims.own_texts(facts)):
        return  # (r50d) the output or the reporter puts the whole model on the GPU ("100% GPU", "all in VRAM")
    if claims.symptom(facts) in claims.FAILURE_SYMPTOMS:
        return
    model = _served(facts)[0]
    if model is not None and measurements(facts, "decode_tok_s"):
        return  # the rate against the placement's band says more (ticket.offload_rate)
    low = [u for u in claims.find(facts, "gpu_util") if u.data["percent"] < 50 and not u.guess]
    asked = claims.gpu_side_asked(facts)
    if not (low or asked):
        return  # a question about the host's RAM or CPU ("only 10 GB of RAM used") asks about the side that works
    seen = claim_ev(low[0], "GPU utilisation") if low else claim_ev(asked, "the reporter asks about the GPU side")
    yield make("ticket.cpu_experts", "expected_physics", "info", CPU_EXPERTS_WEIGHT,
               "The MoE experts run on the CPU by design: the GPU waits for them, and more GPU does not speed a token",
               "KTransformers (and llama.cpp with --cpu-moe or -ot exps=CPU) computes the routed experts on the CPU "
               "from host memory and only attention and the shared parts on the GPU. Each token waits for the CPU's "
               "expert work, so the GPU idles most of the step and holds little memory. More GPUs or VRAM add room, "
               "not speed: KTransformers' multi-GPU rules are a pipeline that distributes the weights (its FAQ), and "
               "experts moved onto a GPU run there without CUDA graphs and no faster. The CPU and its memory "
               "bandwidth set the rate.",
               [claim_ev(c, "experts on the CPU"), seen],
               fix="Nothing is broken. Speed comes from the CPU side: every memory channel populated, NUMA-local "
               "placement (USE_NUMA), cpu_infer near the physical core count, AMX-capable CPUs; a model that fits "
               "the GPUs' memory runs faster on a GPU-only engine (vLLM, SGLang).",
               refs=["https://github.com/kvcache-ai/ktransformers/blob/main/doc/en/FAQ.md",
                     "https://github.com/kvcache-ai/ktransformers/blob/main/doc/en/DeepseekR1_V3_tutorial.md"])


# A slowdown beside submodule-by-submodule offload is that offload's copies: a lead above the bare complaint, below
# an observed fault (rules.ticket_rules.OBSERVED).
HOOKS_WEIGHT = 0.6


@rule("ticket.offload_hooks", "host_bound")
def offload_hooks(facts: Facts, predictions=None):
    """diffusers' sequential CPU offload (accelerate's cpu_offload hooks): every submodule's weights wait in host memory
    and cross PCIe when its forward runs, every step, so the GPU waits on copies; a slowdown beside it is that cost."""
    c = _affirmed(claims.partial_offload(facts), "hooks")
    if c is None or not (claims.complaint(facts) or claims.stated_losses(facts)
                         or claims.stated_losses(facts, host_stage=True)):
        return  # the offload named with nothing called slow: a memory setting, not a question of speed
    yield make("ticket.offload_hooks", "host_bound", "warning", HOOKS_WEIGHT,
               "Sequential CPU offload: each submodule's weights are copied to the GPU when it runs, every step",
               "With enable_sequential_cpu_offload (accelerate's cpu_offload hooks) the weights stay in host memory "
               "and each submodule is moved to the GPU as its forward starts and dropped after it, on every step; the "
               "GPU waits on those PCIe copies. The diffusers documentation says it preserves memory but makes "
               "inference slower.",
               [claim_ev(c, "offload in use")],
               fix="If the model fits in VRAM, move the pipeline to the GPU (.to('cuda')) without offload; otherwise "
               "use enable_model_cpu_offload (whole models moved, a negligible cost in time per the same page), or "
               "a smaller dtype or quantisation so that it fits.",
               refs=["https://huggingface.co/docs/diffusers/optimization/memory"])
