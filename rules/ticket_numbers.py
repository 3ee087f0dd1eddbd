"""The reporter's ratios and latencies, against the predictor: speed-ups between layouts, scaling
efficiencies, times to first token, and GPU-to-GPU copy rates over NVLink.

"TP4 is only 1.3x faster than TP1", "scaling efficiency is 60 %", "TTFT is 800 ms for a 2k prompt",
"nvbandwidth shows 380 GB/s": an engineer answers each with the same arithmetic as an absolute rate,
made for two layouts at once. Decode reads every weight per token, so the larger layout's GPUs each
read a smaller share; the two all-reduces per layer and the per-step fixed costs do not shrink, and
they set how far short of the ideal (the GPU ratio) the speed-up falls. A layer split gives no speed-up
at all: the GPUs take turns. The predictor (rules/roofline.py) prices both layouts with the ticket's
engine profile; its band, carried over to the ratio, says what a healthy system reaches. Defaults the
ticket leaves open (the smaller layout, the batch) are assumed and said so.
"""

from __future__ import annotations

from diagnose import lazy_re as re
from diagnose.evidence import Facts, Note, Workload
from rules import beyond_band, beyond_roofline, claims
from rules.common import claim_ev, ev, gpu_count, make, measurements, need, wfield
from rules.engine import rule
from rules.expectations import band_text, prose_words, slowest_normal
from rules.gpus_in_use import layer_split_engine
from rules.ticket_figures import (
    COPY_SHARE,
    GIB_MARGIN,
    PHYSICS_FLOOR,
    asks_about_figures,
    assumed_layout,
    band_evidence,
    beyond_band_fix,
    defaults_assumed,
    faster_than_band,
    layout_words,
    one_gpu_pace,
    per_direction,
    scope_known,
    split_pace,
    training_job,
    ttft_inputs,
    unmodelled_layout,
)
from rules.workload import predict_layout, quantised_stream, weights_span, weights_span_holding

# A layer split's speed-up is 1: each token passes through the GPUs one after another. Beyond this the
# measured figure is not a layer split's (tensor parallelism, or a batch spread over the GPUs).
LAYER_SPLIT_CEILING = 1.15


def _stated_speedup(facts: Facts):
    """(claim, speed-up, smaller GPU count, larger GPU count, how the counts are known) of the first speed-up
    or scaling efficiency the reporter states; None when there is none or no larger layout is known."""
    n = gpu_count(facts)
    tp, _ = wfield(facts, "tp")
    for c in claims.speedups(facts) + claims.scaling_efficiencies(facts):
        large = c.data["large"] or tp or n
        small = c.data["small"] or 1
        if not large or large <= small:
            continue
        how = ("stated" if c.data["small"] and c.data["large"] else
               f"assumed: {'one GPU' if not c.data['small'] else f'{small} GPUs'} against "
               f"{large} GPUs ({'stated' if c.data['large'] else 'the ticket layout'})")
        ratio = c.data["ratio"] if c.kind == "speedup" else c.data["percent"] / 100 * large / small
        return c, ratio, small, large, how
    return None


@rule("ticket.speedup_vs_expected", "expected_physics", "other")
def speedup_vs_expected(facts: Facts, predictions=None):
    """A speed-up (or scaling efficiency) the reporter measured between two layouts, against what the
    predictor gives for the same model, GPU and engine at both: inside the band carried over to the ratio
    is physics (the fixed costs named), below it something else costs time."""
    if not asks_about_figures(facts) or unmodelled_layout(facts) or training_job(facts):
        return  # (a training step is no decode step: the predictor's ratio is not its ratio)
    found = _stated_speedup(facts)
    if not found:
        return
    c, ratio, small, large, how = found
    ideal = large / small
    stated = claim_ev(c, "speed-up stated" if c.kind == "speedup" else "scaling efficiency stated")
    if claims.find(facts, "layer_split") or layer_split_engine(facts):
        if ratio <= LAYER_SPLIT_CEILING:
            yield make("ticket.speedup_vs_expected", "expected_physics", "info", 0.55,
                       f"x{ratio:.2f} from {small} to {large} GPUs is what a layer split gives: about x1",
                       "With the layers split over the GPUs each token passes through them one after another, so one "
                       "stream decodes as fast as one GPU streaming every weight; more GPUs hold a bigger model, they "
                       "do not make one stream faster.",
                       [stated, ev(c, f"speed-up ({how})", round(ratio, 2), 1.0, "x")],
                       fix="Use tensor parallelism (vLLM, SGLang, TensorRT-LLM, ExLlamaV2 TP) for speed "
                       "on several GPUs, or replicas for throughput.")
        return
    model, gpu = facts.subject.model, facts.subject.gpu
    if model is None or gpu is None:
        return
    batch_stated, _ = wfield(facts, "batch")
    batch = batch_stated or 1
    p_small, p_large = predict_layout(facts, small, batch), predict_layout(facts, large, batch)
    if not all(p is not None and p.valid and p.fits and p.decode_tok_s_expected for p in (p_small, p_large)):
        return  # one of the layouts does not hold the model: no speed-up to compare with
    expected = p_large.decode_tok_s_expected / p_small.decode_tok_s_expected
    # both figures come from one engine profile on one GPU, so their calibration errors largely cancel in the
    # ratio: its band is one figure's spread (the geometric half-width of the band), not two stacked
    spread = (p_large.band_high / p_large.band_low) ** 0.5
    low, high = expected / spread, expected * spread
    if ratio > ideal * 1.1 and ratio > high:
        if batch_stated:  # one stream at a stated batch on both layouts: more than the GPU ratio is no decode's
            yield beyond_roofline.finding(
                "ticket.speedup_vs_expected", f"speed-up from {small} to {large} GPUs at batch {batch}", ratio, ideal,
                "x", [stated, ev(c, f"speed-up ({how})", round(ratio, 2), ideal, "x"),
                      ev(facts.subject.model_source, "model", model.key)])
        return  # without a stated batch: a larger batch on the larger layout, or a different measure
    share = p_large.allreduce_share_expected
    band = band_text(low, high, round(ratio, 2), digits=2)  # the ratio as printed
    at = f"batch {batch}" + ("" if batch_stated else " (assumed: one request)")
    evidence = [stated,
                ev(c, f"speed-up from {small} to {large} GPUs ({how}), {at}", round(ratio, 2), round(expected, 2), "x"),
                ev("prediction:expected", f"expected speed-up band ({p_large.engine} profile, {gpu.key})",
                   expected=band, unit="x"),
                ev("prediction:expected", f"all-reduce share of the TP={large} decode step", expected=f"{share:.0%}"),
                ev(facts.subject.model_source, "model", model.key)]
    rounding = c.data.get("rounding", 0.0)  # the figure as written: "~1.0x" reaches a band from 1.02
    if ratio - rounding > high:
        yield faster_than_band("ticket.speedup_vs_expected", f"x{ratio:.2f} from {small} to {large} GPUs",
                               f"x{band}", f"ideal x{ideal:g}", evidence)
        return
    if ratio + rounding >= low:
        yield make("ticket.speedup_vs_expected", "expected_physics", "info", 0.55,
                   f"x{ratio:.2f} from {small} to {large} GPUs is what this model and GPU give "
                   f"(expected about x{expected:.2f}, ideal x{ideal:g})",
                   f"Each GPU of the larger layout reads a {ideal:g}x smaller share of the weights per token, but the "
                   f"two all-reduces per layer (about {share:.0%} of its step) and the per-step launch and host costs "
                   "do not shrink with the GPU count; they set how far short of the ideal the speed-up falls.",
                   evidence, fix="Nothing is broken; for throughput run replicas on fewer GPUs each and raise the "
                   "batch, since a larger batch amortises the fixed costs of every step.")
        return
    # A warning, not rules.beyond_band's lead: a ratio of two measured layouts is no single figure. A cost that scales
    # each step alike (clocks, an engine's slower kernels) cancels in it; what it shows is a cost that does not shrink
    # with the GPU count (all-reduces, host, launches), the second layout the lead asks for having been measured, as
    # scaling.broken_layout warns of a layout beyond its band.
    yield make("ticket.speedup_vs_expected", "other", "warning", 0.45,
               f"x{ratio:.2f} from {small} to {large} GPUs is below the expected x{band}",
               "The larger layout gains less than a healthy system with this engine does; something beyond the "
               "all-reduces and fixed step costs takes time there (transport, host, clocks, configuration).",
               evidence, fix=beyond_band_fix(facts))


# A layout physics already decides: the predictor's speed-up from the fewest GPUs that hold the model to the ticket's
# layout, one stream, is at most this: the all-reduces and fixed step costs eat what the smaller weight share per GPU
# gains (a small model, PCIe, boards that stage collectives through host memory), so "more GPUs are not faster" is
# the answer before any figure is measured. Not fitted to a case: the predictor's own band over every published row
# (calibration.toml [band], x0.860 .. x1.347 of the expected time since session 22, x0.858 .. x1.354 from session 16,
# x0.857 .. x1.26 before) lets two healthy runs of one layout differ by up to x1.57 (x1.58 in session 16, x1.47
# before), so a predicted gain of x1.3 sits well inside what a healthy pair of runs can hide. A per-layout band
# ratio (the larger layout's slow edge meeting the smaller's fast edge) was tried: at TP8 its band is wide enough to
# hide x2.5 (Llama 3 8B on 8x H100), which would call a layout that pays "decided", so one global spread is used.
SMALL_GAIN = 1.3


def layout_gain(facts: Facts):
    """(smaller TP, larger TP, the predicted speed-up, [evidence]) for a ticket that names its model, GPU and a layout
    of several GPUs but no figure to compare: one stream (or the stated batch) at the fewest GPUs of 1, 2, 4 ... that
    hold the model, against its TP (else every GPU named), on the fabric the catalog gives the board. None where either
    layout cannot be priced, the engine splits layers rather than tensors, or the layout is not one the predictor
    models."""
    model, gpu = facts.subject.model, facts.subject.gpu
    large = wfield(facts, "tp")[0] or gpu_count(facts) or 0  # the stated TP, not every GPU of the machine
    if model is None or gpu is None or not large or large < 2 or unmodelled_layout(facts) or training_job(facts):
        return None
    if claims.find(facts, "layer_split") or layer_split_engine(facts):
        return None  # a layer split gains nothing by design: ticket.symptom_prior says so without a prediction
    batch = wfield(facts, "batch")[0] or 1
    p_large = predict_layout(facts, large, batch)
    if p_large is None or not (p_large.valid and p_large.fits and p_large.decode_tok_s_expected):
        return None
    small, p_small = 1, None
    while small < large:
        p_small = predict_layout(facts, small, batch, dtype=p_large.dtype)  # one set of weights on both layouts
        if p_small is not None and p_small.valid and p_small.fits and p_small.decode_tok_s_expected:
            break
        small *= 2
    if small >= large or p_small is None:
        return None  # only the ticket's own layout holds the model: nothing to compare it with
    gain = p_large.decode_tok_s_expected / p_small.decode_tok_s_expected
    at = f"batch {batch}" + ("" if wfield(facts, "batch")[0] else " (assumed: one request)")
    evidence = [ev("prediction:expected", f"expected decode rate at TP={n}, {at} ({p.engine} profile, {gpu.key})",
                   expected=round(p.decode_tok_s_expected, 1), unit="tok/s") for n, p in ((small, p_small),
                                                                                       (large, p_large))]
    evidence += [ev("prediction:expected", f"expected speed-up TP={small} -> TP={large} (ideal x{large // small})",
                    expected=round(gain, 2), unit="x"),
                 ev("prediction:expected", f"all-reduce share of the TP={large} decode step",
                    expected=f"{p_large.allreduce_share_expected:.0%}"),
                 ev(facts.subject.model_source, "model", model.key)]
    return small, large, gain, evidence


def _load(m) -> int:
    """The requests a figure was measured with: its batch or concurrency, one where neither is said."""
    return max(m.batch or 1, m.concurrency or 1)


@rule("ticket.ttft_vs_expected", "expected_physics", "other")
def ttft_vs_expected(facts: Facts, predictions=None):
    """A time to first token the reporter measured at a stated prompt length, against the prefill the
    predictor gives (compute-bound: about 2 x parameters x prompt tokens of FLOPs, plus the engine's
    per-request host time)."""
    if not (got := ttft_inputs(facts)):
        return
    model, gpu, prompt, prompt_src, ttfts = got
    from rules.expectations import expectation

    for m in ttfts:
        if m.stat != "reported" or (m.batch or 1) > 1:
            continue  # a percentile, or a batch's prefill: queueing the predictor does not model
        if m.tp is None and any(o.source == m.source and o.value != m.value and o.tp is None
                                and _load(o) == _load(m) for o in ttfts):
            continue  # "from 80 ms to 900 ms as the prompt grows to 16k": which figure the length belongs to is unsaid
            # (figures told apart by their load, "60 ms with one request, 1800 ms with 64", share the length)
        tp, pp, how = assumed_layout(facts, m, 1, prompt)
        p = predict_layout(facts, tp, 1, prompt, pp=pp)
        if p is None or not (p.valid and p.fits):
            continue
        e = expectation("ttft_ms", p)
        verdict = e.verdict(m.value)
        over = ""
        if verdict == "slower" and m.value <= slowest_normal(e.high, True, True):
            # within the slack of a time written in prose (rules.expectations), as scaling reads it
            verdict, over = "inside", prose_words(m.value, e.high)
        band = band_text(e.low, e.high, m.value)
        evidence = band_evidence(m, f"TTFT at {layout_words(p)} ({how}), one request", "ms", e.expected,
                                 band, e.roofline, p, gpu, facts.subject.model_source, model)
        evidence.insert(1, ev(prompt_src, "prompt length stated", prompt, unit="tokens"))
        if verdict == "faster_than_roofline":  # the prompt cannot pass through the model faster than the FLOPs allow
            yield beyond_roofline.finding("ticket.ttft_vs_expected", f"TP{tp} TTFT of a {prompt}-token prompt",
                                          m.value, e.roofline, "ms", evidence,
                                          fix=beyond_roofline.FIX + " A prefix-cache hit skips the prefill: measure "
                                          "with caching off or with prompts not seen before.",
                                          assumed=defaults_assumed(facts, m, how, p))
        elif verdict == "faster":
            yield faster_than_band("ticket.ttft_vs_expected", f"{m.value:g} ms to the first token",
                                   f"{band} ms", f"roofline {e.roofline:.0f} ms", evidence)
        elif verdict == "inside":
            yield make("ticket.ttft_vs_expected", "expected_physics", "info", 0.5,
                       f"{m.value:g} ms to the first token of a {prompt}-token prompt is this model's prefill "
                       f"(expected {band} ms{over})",
                       "The first token waits for the whole prompt to pass through the model: about two FLOPs per "
                       "parameter per prompt token, shared by the TP GPUs, plus the engine's per-request work.",
                       evidence, fix="Nothing is broken; shorter prompts, prefix caching or more GPUs per replica "
                       "shorten it.")
        else:  # one figure beyond the band: the one lead `scaling` gives it (rules.beyond_band)
            what = f"{m.value:g} ms to the first token of a {prompt}-token prompt (x{e.ratio(m.value):.1f} expected)"
            yield beyond_band.finding("ticket.ttft_vs_expected", what, m.value, e.high, "ms", True, f"{band} ms",
                                      evidence, beyond_band_fix(facts), reported=True)
        return


# A copy between host memory and a GPU crosses PCIe, not NVLink (ticket.host_copy_figure judges it).
_HOST_WORDS = re.compile(r"\b(?:host|H2D|D2H|HtoD|DtoH|CPU|pinned|pageable|bandwidthTest)\b", re.I)
# Words of a GPU-to-GPU copy benchmark (nvbandwidth's test names, CUDA's p2p sample, cudaMemcpyPeer).
_COPY_BENCH = re.compile(r"\b(?:nvbandwidth|p2pBandwidthLatencyTest|memcpy\w*|cudaMemcpyPeer\w*|"
                         r"device_to_device\w*)\b", re.I)


def _other_gpu(named: str | None, gpu) -> bool:
    """Does a figure's clause name a GPU other than the ticket's ("on our old DGX A100 it gave 230 GB/s")?"""
    from rules import catalog

    other = catalog.resolve_gpu(named)
    return bool(other and other.key.split("-")[0] != gpu.key.split("-")[0])  # another family ("h100" / "a100")


def _per_direction_words(c) -> str:
    """How the figure became a per-direction one: a bidirectional figure counts both directions of a full-duplex link,
    so one direction carries half (nvbandwidth's '_total' rows sum the two streams: https://github.com/NVIDIA/nvbandwidth
    README, "Bidirectional Device <-> Device Bandwidth Tests")."""
    if c.data.get("direction") == "bi":
        return "per direction (half the bidirectional figure, which sums both directions)"
    return "per direction"


@rule("ticket.copy_figure", "expected_physics", "nvlink_down", "pcie_fallback")
def copy_figure(facts: Facts, predictions=None):
    """A GPU-to-GPU copy rate measured over NVLink (SXM boards, no datasheet figure quoted: link_figure
    judges those), against what a copy reaches after NVLink's packet overhead: about 80 % of the
    per-direction line rate (https://github.com/NVIDIA/nccl/issues/1054). The slowest figure named is judged,
    by the same test as a pasted matrix (topology.nvlink_copy_verdict)."""
    from diagnose.evidence import PairBandwidth
    from rules.topology import nvlink_copy_verdict, pcie_gbs

    if not asks_about_figures(facts) or facts.of(PairBandwidth):
        return  # a parsed matrix: topology.pair_bandwidth judges its figures
    gpu, gpu_src = facts.subject.gpu, facts.subject.gpu_source
    if gpu is None or not gpu.nvlink_gbs or gpu.nvlink_bridged:
        return  # PCIe boards: ticket.pcie_figure; bridged pairs: ticket.bridge_figure
    text = " ".join(t for _, t in claims.texts(facts))
    bench = bool(_COPY_BENCH.search(text))
    figures = [f for f in claims.bandwidth_figures(facts) if not f.data["question"]]
    if any(f.data["spec"] for f in figures):
        return
    # a copy tool named somewhere makes a figure whose words name no tool a copy's, unless the text names a collective
    # too: then only figures said of the copy are ("nvbandwidth ... 260GB/s whereas sendrecv_perf ... 80GB/s", and
    # "from 80 to 180 GB/s" of the sendrecv sweep, NVIDIA/nccl-tests#268)
    copies = [f for f in figures if f.data["copy"] or (bench and not claims.collective_named(text))]
    line = gpu.nvlink_gbs
    usable = [(per_direction(f), f) for f in copies if scope_known(f) and not (
        _HOST_WORDS.search(f.quote) or f.data["off_path"] or _other_gpu(f.data["gpu"], gpu))]
    usable = [(v, f) for v, f in usable if v <= GIB_MARGIN * line]
    if not usable:
        return
    value, c = min(usable, key=lambda x: x[0])
    verdict = nvlink_copy_verdict(value, line, pcie_gbs(gpu))
    if verdict:
        yield make("ticket.copy_figure", verdict, "warning", 0.6,
                   f"{value:g} GB/s per direction is {value / line:.0%} of {gpu.name}'s {line:g} GB/s NVLink line rate"
                   + (": what PCIe carries, not NVLink" if verdict == "pcie_fallback" else ": links down or degraded"),
                   "A copy over healthy NVLink reaches about 80 % of the per-direction line rate; this one is far "
                   "below, so " + ("the copy does not go over NVLink." if verdict == "pcie_fallback"
                                   else "part of the links between the GPUs are down or running degraded."),
                   [claim_ev(c, "the copy rate"),
                    ev(c, _per_direction_words(c), round(value, 1), round(COPY_SHARE * line, 1), "GB/s"),
                    ev(gpu_src, f"catalog {gpu.key}: NVLink line rate per direction", expected=line, unit="GB/s")],
                   fix="Check `nvidia-smi nvlink -s` for inactive links and `nvidia-smi nvlink -e` for errors, and "
                   "`nvidia-smi topo -m` for NV# between the GPUs.", refs=["nvidia_smi"])
        return
    yield make("ticket.copy_figure", "expected_physics", "info", 0.5,
               f"{value:g} GB/s per direction is what {gpu.name}'s NVLink carries for a copy "
               f"({value / line:.0%} of its {line:g} GB/s line rate)",
               "A copy moves data one way at a time, and NVLink's packet overhead leaves about 80 % of the "
               "per-direction line rate to payload; datasheet totals count both directions.",
               [claim_ev(c, "the copy rate"),
                ev(c, _per_direction_words(c), round(value, 1), round(COPY_SHARE * line, 1), "GB/s"),
                ev(gpu_src, f"catalog {gpu.key}: NVLink line rate per direction x {COPY_SHARE} (packet overhead)",
                   expected=round(COPY_SHARE * line, 1), unit="GB/s")],
               fix="Nothing to fix: nvbandwidth and p2pBandwidthLatencyTest measure one direction's payload; compare "
               "with 80 % of the per-direction line rate, not with the datasheet's total.",
               refs=["https://github.com/NVIDIA/nccl/issues/1054"])



# Copies between host memory and a GPU cross the GPU's PCIe link (bandwidthTest, nvbandwidth's host_to_device and
# device_to_host, cudaMemcpy from pinned memory): its x16 line rate per direction (PCI-SIG: Gen3 15.75, Gen4 31.5,
# Gen5 63 GB/s) less packet overhead, the same share a GPU-to-GPU copy over PCIe reaches.
_HOST_COPY = re.compile(r"(?<![A-Za-z])(?:host[-_ ]?to[-_ ]?device|device[-_ ]?to[-_ ]?host|H2D|D2H|HtoD|DtoH|"
                        r"bandwidthTest|(?:CPU|host) (?:to|->) GPU|GPU (?:to|->) (?:CPU|host)|pinned (?:host )?memory)"
                        r"(?![A-Za-z])", re.I)


# CUDA's bandwidthTest copies from pinned memory unless --memory=pageable is given
# (https://github.com/NVIDIA/cuda-samples/tree/master/Samples/1_Utilities/bandwidthTest); a pageable copy goes
# through a staging buffer in host memory, so the host's memcpy, not the link, sets its rate.
_PAGEABLE = re.compile(r"\b(?:pageable|--memory[= ]pageable|malloc(?:ed)?|non[- ]pinned|unpinned)\b", re.I)
_PINNED = re.compile(r"\b(?:pinned|page[- ]locked|cudaMallocHost|cudaHostAlloc|bandwidthTest)\b", re.I)


def _host_copies(facts: Facts, text: str) -> list[tuple[float, str | None, claims.Claim]]:
    """(GB/s per direction, 'pinned'/'pageable'/None, claim) of every host copy rate the ticket gives: the
    reporter's figures said of a host copy, and a pasted bandwidthTest's host sections."""
    out = []
    if _HOST_COPY.search(text):
        memory = "pageable" if _PAGEABLE.search(text) else "pinned" if _PINNED.search(text) else None
        for f in claims.bandwidth_figures(facts):
            if not f.data["question"] and not f.data["spec"] and _HOST_COPY.search(f.quote):
                out.append((per_direction(f), memory, f))
    for c in claims.bandwidth_test_rates(facts):
        if c.data["direction"] in ("h2d", "d2h"):
            out.append((c.data["value"], c.data["memory"] or "pinned", c))
    return out


@rule("ticket.host_copy_figure", "expected_physics", "pcie_link_degraded", "host_bound", "other")
def host_copy_figure(facts: Facts, predictions=None):
    """A copy rate between host memory and the GPU (H2D/D2H, bandwidthTest, nvbandwidth host_to_device), against the
    GPU's PCIe link: about 80 % of a x16 link's line rate per direction is what such a copy reaches. Far below
    it the link trained narrower or slower (a pinned copy) or the host staged the copy (a pageable one); above
    the line rate the figure is no copy's."""
    if not asks_about_figures(facts):
        return
    gpu, gpu_src = facts.subject.gpu, facts.subject.gpu_source
    if gpu is None:
        return
    copies = _host_copies(facts, " ".join(t for _, t in claims.texts(facts)))
    if not copies:
        return
    from rules import catalog

    pcie = catalog.interconnect(gpu.pcie_interconnect)
    line = pcie.bandwidth_gbs
    link = ev(gpu_src, f"catalog {gpu.key}: PCIe Gen{gpu.pcie_gen} x{gpu.pcie_lanes} line rate per direction",
              expected=line, unit="GB/s")
    value, memory, c = max(copies, key=lambda x: x[0])  # the best copy shows what the link can do
    said = ev(c, "per direction", round(value, 1), round(COPY_SHARE * line, 1), "GB/s")
    if value > 1.05 * line:
        yield make("ticket.host_copy_figure", "other", "warning", 0.6,
                   f"{value:g} GB/s between host and GPU is more than the {pcie.name} link's {line:g} GB/s "
                   "per direction",
                   f"Every copy between host memory and {gpu.name} crosses its PCIe link, and no copy passes the "
                   "link's line rate: the figure is a measurement or input error (both directions added, bits or GiB "
                   "read as GB, a copy within GPU memory, another board than the one named).",
                   [claim_ev(c, "the host copy rate"), said, link],
                   fix="Check the units and the direction, and which GPU and link the copy ran on (nvidia-smi -q: GPU "
                   "Link Info); rerun bandwidthTest with --memory=pinned.")
        return
    if value >= PHYSICS_FLOOR * COPY_SHARE * line:
        yield make("ticket.host_copy_figure", "expected_physics", "info", 0.5,
                   f"{value:g} GB/s between host and GPU is what a {pcie.name} link carries "
                   f"({value / line:.0%} of its {line:g} GB/s line rate per direction)",
                   f"A copy between host memory and {gpu.name} crosses the GPU's PCIe link, whose x16 line rate is "
                   f"{line:g} GB/s per direction; packet and protocol overhead leave about 80 % of it to the copy, so "
                   "the figure is the link working at its full width and speed.",
                   [claim_ev(c, "the host copy rate"), said, link],
                   fix="Nothing to fix for the link; copies from pageable (not pinned) memory run slower, and only a "
                   "faster PCIe generation (or NVLink-C2C on Grace boards) moves more.")
        return
    share = value / (COPY_SHARE * line)
    evidence = [claim_ev(c, "the host copy rate"), said, link,
                ev(c, "memory the copy came from", memory or "not said (pinned or pageable decides)")]
    if memory == "pageable":
        yield make("ticket.host_copy_figure", "host_bound", "warning", 0.5,
                   f"{value:g} GB/s from pageable memory is {share:.0%} of what a pinned copy reaches over "
                   f"{pcie.name}: the host stages the copy",
                   "A copy from pageable memory is first copied by the CPU into a pinned staging buffer, so the "
                   "host's memory copy and page handling set its rate, not the PCIe link.",
                   evidence, fix="Copy from pinned memory (cudaMallocHost, pin_memory=True) and rerun bandwidthTest "
                   "with --memory=pinned: a pinned rate near 80 % of the line rate clears the link.")
        return
    yield make("ticket.host_copy_figure", "pcie_link_degraded", "warning", 0.55 if memory else 0.4,
               f"{value:g} GB/s between host and GPU is {share:.0%} of what {pcie.name} carries: the link runs "
               "narrower or slower than x16",
               f"A pinned copy reaches about 80 % of the link's {line:g} GB/s per direction. A link that trained "
               "at x8 or one generation lower gives half of it, x4 a quarter (PCI-SIG line rates); a riser, a "
               "bifurcated slot or a power-saving state does this."
               + ("" if memory else " The ticket does not say the copy was from pinned memory: a pageable copy "
                  "would be slow on a healthy link, so the memory kind decides between the two."),
               evidence, fix="Compare the link's current and maximum width and generation under load (nvidia-smi -q: "
               "GPU Link Info, or lspci -vv LnkSta vs LnkCap); reseat or move the card if it trained down.")


# A copy or read inside one GPU's own memory: CUDA's bandwidthTest device-to-device section (--dtod; its figure counts
# every byte read and every byte written, "2.0f * memSize" in the sample's testDeviceToDeviceTransfer,
# https://github.com/NVIDIA/cuda-samples/tree/master/Samples/1_Utilities/bandwidthTest), or a measured memory bandwidth
# said in words (a STREAM-style copy kernel). nvbandwidth's device_to_device tests copy between two GPUs and are not
# this: they are judged as links (ticket.copy_figure, ticket.pcie_figure).
_DEVICE_MEMORY = re.compile(r"\b(?:(?:(?:GPU|device|global|HBM\w*|GDDR\w*|DRAM|VRAM|video)\s+)?memory\s+"
                            r"(?:bandwidth|b/?w|throughput|copy|copies|read|write)|(?:HBM\w*|DRAM|VRAM|GDDR\w*)\s+"
                            r"(?:bandwidth|b/?w|throughput)|(?-i:BabelStream|STREAM)\b|--dtod)", re.I)
# A figure said of a link or a collective is no memory figure, whatever the ticket is about.
_LINK_WORDS = re.compile(r"\b(?:NVLink|PCIe|P2P|peer|busbw|algbw|all[-_ ]?reduce|NCCL|network|IB|RDMA|NIC)\b", re.I)
# bandwidthTest's own name for its in-GPU copy; other tools use the same words for a copy between two GPUs.
_DEVICE_TO_DEVICE = re.compile(r"\b(?:device[-_ ]?to[-_ ]?device|D2D|DtoD)\b", re.I)
# A streaming copy or read reaches about 80 % of the DRAM's datasheet rate (refresh, page switches and the
# read/write turnaround of the bus): BabelStream's copy and triad kernels (Deakin et al., "GPU-STREAM v2.0", PMBS 2016,
# https://github.com/UoB-HPC/BabelStream), a cudaMemcpy device-to-device at 813 of the RTX 3090's 936 GB/s and a read
# kernel at 854 (https://github.com/ashalliants/ninfer-3090/pull/50), a read kernel at 231-234 of GB10's 273 GB/s
# (https://github.com/antirez/ds4/issues/773).
MEMORY_COPY_SHARE = 0.8
# (review36) The lowest a healthy memory gives a streaming copy counted as bandwidthTest counts it (every byte read and
# written): three quarters of that share, 60 % of the datasheet rate, below the lowest healthy figures cited above
# (85-87 %) by the spread of copy kernels and buffer sizes. Half the share (40 %) let an H100 at 1500 of 3350 GB/s, a
# memory held back, read as physics.
MEMORY_FLOOR = 0.75 * MEMORY_COPY_SHARE
# A figure in the reporter's words may count a copy's bytes once (read, not read and written), which halves it: below
# MEMORY_FLOOR but above half of it, a held-back memory and a copy counted once give the same figure, so it is not
# judged (ticket_figures.PHYSICS_FLOOR, the slack a prose figure is read with).
ONCE_COUNTED_FLOOR = PHYSICS_FLOOR * MEMORY_FLOOR
# The words that make the figure after them the rate compared with: "peak bandwidth of 484GB/s", "the spec says".
_RATE_NAMED = re.compile(r"\b(?:theor\w*|spec\w*|datasheet|official\w*|advertis\w*|nominal|peak|rated|maximum|"
                         r"should|expect\w*)\b", re.I)


def _words_before(quote: str, value: float, words, span: int = 30) -> bool:
    """Do `words` stand in the `span` characters before the figure in its quote ("peak bandwidth of 484GB/s", "the spec
    says 3.35 TB/s", "4x 936 = 3,744 GB/s")? The figure's own words, not a neighbour's in the same sentence."""
    forms = (f"{value:g}", f"{value:,.0f}" if value == int(value) else "", f"{value / 1000:g}")
    at = next((quote.find(f) for f in forms if f and quote.find(f) >= 0), -1)
    return at >= 0 and bool(words.search(quote[max(0, at - span):at]))


# A figure that is the result of the reporter's arithmetic ("4x 936 = 3,744 GB/s" in a spec table): no measurement.
_COMPUTED = re.compile(r"=\s*~?\s*$")


def _device_memory_figures(facts: Facts, text: str, gpu) -> list[tuple[float, claims.Claim]]:
    """(GB/s, claim) of every rate measured in a GPU's own memory: a pasted bandwidthTest's device-to-device section,
    and the reporter's figures said of device memory. A figure the datasheet rate matches, or one said as the
    specification, is the rate compared with, not a measurement; one of another GPU ("on a Fury card") is left out
    where a figure of the ticket's own GPU is given."""
    from rules import catalog

    out = [(c.data["value"], c) for c in claims.bandwidth_test_rates(facts) if c.data["direction"] == "d2d"]
    if any(measurements(facts, metric) for metric in ("decode_tok_s", "output_tok_s")):
        return out  # a GB/s beside a decode rate is the engine's own arithmetic (gpt-fast's "Bandwidth achieved": model
        # bytes x tok/s), judged as the rate by ticket.measured_vs_expected
    bandwidth_test = "bandwidthtest" in text.lower()
    about_memory = bool(_DEVICE_MEMORY.search(text))  # the ticket's subject ("How to achieve peak memory bandwidth?")
    said = []
    for f in claims.bandwidth_figures(facts):
        v = f.data["value"]
        if f.data["question"] or _HOST_WORDS.search(f.quote) or abs(v - gpu.hbm_gbs) <= 0.03 * gpu.hbm_gbs:
            continue
        if not (_DEVICE_MEMORY.search(f.quote) or bandwidth_test and _DEVICE_TO_DEVICE.search(f.quote)
                or about_memory and not f.data["copy"] and not _LINK_WORDS.search(f.quote)):
            continue
        if _words_before(f.quote, v, _RATE_NAMED) or _words_before(f.quote, v, _COMPUTED, 4):
            continue
        named = catalog.resolve_gpu(f.data["gpu"]) if f.data["gpu"] else None
        if named is not None and (named.key != gpu.key or abs(v - named.hbm_gbs) <= 0.03 * named.hbm_gbs):
            continue  # another board's figure, or the datasheet rate of the board its clause names (a spec table row)
        said.append((v, f))
    own = [(v, f) for v, f in said if f.data["gpu"]]
    return out + (own or said)


@rule("ticket.device_memory_figure", "healthy", "expected_physics", "other")
def device_memory_figure(facts: Facts, predictions=None):
    """A copy or read rate inside one GPU's memory (bandwidthTest --dtod, a copy kernel), against the GPU's datasheet
    memory bandwidth (gpus.toml hbm_gbs): a streaming copy reaches about 80 % of it. Within the band the memory works
    as built (expected_physics where the reporter calls the figure short, healthy where they only ask); above the
    datasheet rate the buffer was served from the L2 cache; far below it, something held the memory back."""
    if not asks_about_figures(facts):
        return
    gpu, gpu_src = facts.subject.gpu, facts.subject.gpu_source
    if gpu is None or not gpu.hbm_gbs:
        return
    figures = _device_memory_figures(facts, " ".join(t for _, t in claims.texts(facts)), gpu)
    if not figures:
        return
    value, c = max(figures, key=lambda x: x[0])  # the best run shows what the memory can do
    spec = gpu.hbm_gbs
    evidence = [claim_ev(c, "the memory rate measured"),
                ev(c, "the rate measured", round(value, 1), round(MEMORY_COPY_SHARE * spec), "GB/s"),
                ev(gpu_src, f"catalog {gpu.key}: memory bandwidth (datasheet) x {MEMORY_COPY_SHARE}, what a streaming "
                   "copy reaches", expected=round(MEMORY_COPY_SHARE * spec), unit="GB/s")]
    refs = ["https://github.com/UoB-HPC/BabelStream"]
    if value > 1.05 * spec:
        yield make("ticket.device_memory_figure", "healthy", "ok", 0.6,
                   f"{value:g} GB/s is above {gpu.name}'s {spec:g} GB/s memory bandwidth: the copy ran in the L2 "
                   "cache, not in DRAM",
                   "No copy moves data through DRAM faster than its datasheet rate, so a buffer small enough to stay "
                   "in the GPU's L2 cache (the small sizes of a sweep), or a figure counting bytes twice, gives it; "
                   "it says nothing against the memory.", evidence,
                   fix="Nothing to fix: measure with buffers far larger than the L2 cache (bandwidthTest --dtod with "
                   "the default 32 MB or more, a copy of 1 GB) to see the DRAM rate.", refs=refs)
        return
    if value >= MEMORY_FLOOR * spec:
        short = claims.complaint(facts)
        yield make("ticket.device_memory_figure", *(("expected_physics", "info") if short else ("healthy", "ok")), 0.6,
                   f"{value:g} GB/s is what {gpu.name}'s memory delivers to a copy ({value / spec:.0%} of its "
                   f"{spec:g} GB/s datasheet rate)",
                   f"The datasheet's {spec:g} GB/s is the memory bus's raw rate; refresh, page switches and the turn "
                   "between reads and writes leave a streaming copy about 80 % of it, so the figure is the memory "
                   "working as built.", evidence + ([claim_ev(short, "the shortfall")] if short else []),
                   fix="Nothing to fix: compare copy kernels with about 80 % of the datasheet rate, not with the "
                   "rate itself.", refs=refs)
        return
    if c.kind != "bandwidth_test" and value >= ONCE_COUNTED_FLOOR * spec:
        return  # a held-back memory or a copy's bytes counted once: the figure cannot tell them apart
    yield make("ticket.device_memory_figure", "other", "warning", 0.4,
               f"{value:g} GB/s is {value / (MEMORY_COPY_SHARE * spec):.0%} of what {gpu.name}'s memory gives a "
               "streaming copy",
               f"A healthy {gpu.name} copies at about {MEMORY_COPY_SHARE * spec:.0f} GB/s; a rate this far below is "
               "not the memory's physics: the memory clock held low (power cap, an idle P-state, clocks locked), "
               "buffers too small to stream, a MIG slice or a share of the GPU, or a kernel that does not coalesce.",
               evidence, fix="Rerun with a large buffer while watching `nvidia-smi -q -d CLOCK,PERFORMANCE` (memory "
               "clock at its maximum, no throttle reason) and compare with bandwidthTest --dtod.", refs=refs)


# --------------------------------------------------------------------------- a figure nothing can judge


# A serving benchmark's own figures (rules.ticket_figures judges them once the model and the GPU are known).
SERVING_FIGURES = ("output_tok_s", "tpot_ms", "itl_ms", "ttft_ms")


@rule("ticket.figure_unjudged", "insufficient_data")
def figure_unjudged(facts: Facts, predictions=None):
    """A decode rate the reporter measured that no expected figure can be set against: the catalog does not
    know the model or the GPU the ticket names, or the weights as assumed (the checkpoint's own dtype, the
    layout stated or assumed) do not fit the GPUs, so the run must have used a quantisation or layout the
    ticket does not say. What an engineer asks for is the missing half of the prediction, not topology or
    NCCL logs."""
    rates = measurements(facts, "decode_tok_s")
    model, gpu = facts.subject.model, facts.subject.gpu
    if not rates and not (model and gpu):  # a serving benchmark's figures need the same two to be judged
        rates = [m for metric in SERVING_FIGURES for m in measurements(facts, metric)]
    if not rates or unmodelled_layout(facts) or any(n.kind == "results_table" for n in facts.of(Note)):
        return
    if claims.meaning_asked(facts) and not claims.complaint(facts):
        return  # what the figure counts is asked, not how good it is: ticket.figure_meaning answers
    m = rates[0]
    what = "the measured decode rate" if m.metric == "decode_tok_s" else f"the benchmark's {m.metric}"
    evidence = [ev(m.source, what, m.value, unit=m.unit)]
    if model and gpu:
        tp, pp, how = assumed_layout(facts, m, m.batch or 1)
        p = predict_layout(facts, tp, m.batch or 1, pp=pp)
        above = p is not None and p.valid and p.fits and m.value > p.decode_tok_s * 1.1
        faster = p is not None and p.valid and m.value > p.decode_tok_s * 1.1  # than 16-bit weights, fitted or not
        if (faster or (p is not None and p.valid and not p.fits)) and weights_span_holding(facts, m, tp, pp):
            return  # inside the band over the widths the run may have streamed: ticket.measured_vs_expected says so
        if above and quantised_stream(facts, tp, m.value):
            yield need("ticket.figure_unjudged", f"{m.value:g} tok/s is above what {model.name}'s {p.dtype} weights "
                       "allow one stream", f"At {layout_words(p)} ({how}) one stream of the checkpoint's "
                       f"{p.dtype} weights reads at most {p.decode_tok_s:.0f} tok/s on {gpu.name}; {m.value:g} tok/s "
                       "means 4-bit or 8-bit weights, or several requests at once, and the ticket says neither.",
                       "the model file name or launch line (which quantisation) and how many requests ran at once",
                       evidence)
            return
        if p is None or not p.valid or p.fits:
            return
        pace = one_gpu_pace(facts)
        if pace is not None and split_pace(facts, pace, m):
            return  # a layer split's one stream needs no fit to judge: ticket.layer_split_rate set it against one GPU
        span = weights_span(facts, m, tp, pp)
        spanned = "" if span is None else (
            f" Over the widths that fit ({' and '.join(d for d, _ in span[2])}) a healthy run gives one stream "
            f"{span[0]:.3g}-{span[1]:.3g} tok/s, and {m.value:g} tok/s is "
            + ("below that: an offload to host memory, or a fault" if m.value < span[0] else "outside it")
            + ", so which weights ran decides.")
        yield need("ticket.figure_unjudged", f"{m.value:g} tok/s cannot be judged: {model.name} does not fit as "
                   f"assumed", f"At {layout_words(p)} ({how}) with the checkpoint's {p.dtype} weights, "
                   f"{model.name} needs more memory than {tp * pp} {gpu.name} hold ({gpu.memory_gb:g} GB each), so the "
                   "run used a quantisation or a layout the ticket does not state, and no expected figure can be "
                   "computed for it." + spanned,
                   "the launch line or the model file name (which quantisation: AWQ, GPTQ, GGUF Q4_K_M, FP8 ...) "
                   "and the number of GPUs the model is split over", evidence)
        return
    if gpu is None and claims.other_vendor(facts):
        return  # another vendor's accelerator: no nvidia-smi to ask for (ticket.other_vendor says why)
    named_model = next((w.model for w in facts.of(Workload) if w.model), None)
    named_gpu = next((w.gpu for w in facts.of(Workload) if w.gpu), None)
    asks = []
    if model is None:
        asks.append(f"the Hugging Face config.json of {named_model!r} (not in the catalog) and run `diagnose predict "
                    "--model config.json --gpu G`" if named_model
                    else "the model's Hugging Face config.json (no model the catalog knows is named)")
    if gpu is None:
        asks.append(f"`nvidia-smi -L` ({named_gpu!r} is not in the catalog)" if named_gpu
                    else "`nvidia-smi -L` (which GPU ran it)")
    given = f"{m.value:g} {m.unit}" if m.unit else f"{m.value:g}"
    kind = "a decode rate" if m.metric == "decode_tok_s" else "a serving benchmark's figures"
    yield need("ticket.figure_unjudged", f"{given} cannot be set against an expected figure",
               f"The reporter gives {kind}, but the "
               + ("model it ran is" if model is None and gpu else "GPU it ran on is" if model
                  else "model and the GPU it ran on are")
               + " not known to the catalog, so no roofline or calibrated band can be computed.",
               " and ".join(asks), evidence)


# Expert parallelism and DP attention against pure TP (ut27a): throughput layouts for high load. SGLang's DP attention
# "is aimed at improving throughput and should be used for scenarios with high QPS" (its DeepSeek reference); its
# maintainers on a loss at moderate load: "128 concurrency looks still at the sweet spot of low latency recipe"
# (sgl-project/sglang#23896), "Expert Parallel might face load balancing issues when concurrency is low"
# (sgl-project/sglang#2203).
EP_TRADE = (
    ("Expert parallelism and DP attention pay off at high load; below it tensor parallelism wins",
     "Expert parallelism serves more than tensor parallelism at high load: by design"),
    "With expert parallelism each GPU holds a share of the experts and the tokens travel to them and back in "
    "all-to-all exchanges; with DP attention each GPU attends for its own requests. Both are built for throughput "
    "under many concurrent requests: one KV-cache copy per request and many tokens per expert GEMM. At moderate load "
    "each expert gets few tokens, the busiest rank sets the step (routing imbalance) and the dispatch and combine "
    "exchanges cost more than tensor parallelism's all-reduce inside one node, so pure TP serves one request or a "
    "moderate load faster. Nothing in the ticket shows a broken link or setting.",
    "Compare the two layouts at the load you serve: sweep the concurrency upward and give the expert-parallel one room "
    "to batch (more running requests, larger CUDA-graph batch); keep tensor parallelism for low latency and moderate "
    "load, expert parallelism or DP attention for high-QPS throughput and across nodes.")
