"""How much slower physics lets a larger layout run than a smaller one, and a reported loss weighed against it
(issue 11 x).

"TP=2 is slower than one GPU" can be physics: the two all-reduces per layer, the host's step and the smaller kernels
cost more than the halved weight traffic saves. But physics bounds the loss. Take the worst configuration a healthy
machine may have: the larger layout's all-reduce on the worst fabric the board allows (worst_fabric: an SXM board's
own NVLink or NVSwitch; a PCIe card's PCIe at x8 without peer-to-peer, NCCL's SHM transport, each step through host
memory, no engine kernel), at the batch stated (else one request), the larger layout at its band's slow end and the
smaller at its fast end (rules.expectations), for each engine profile the run may have been (_profiles).
The predictor (rules.roofline) prices both; their ratio is the most a layout can lose. A loss beyond it is no physics:
a path that is broken, not slow (P2P faulted, a socket fallback, a host-bound loop, weights offloaded to the CPU, a hang
retried). Where the ticket does not name the model or the GPU, the bound is the largest over the catalog's
models or boards: what physics allows for any of them.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math

from diagnose import lazy_re as re
from diagnose.evidence import Facts
from rules import catalog, claims
from rules.common import claim_ev, engine_releases, ev, gpu_count, make, wfield
from rules.engine import WEAK_LEAD, WORDS_ONLY, rule
from rules.gpus_in_use import layer_split_engine
from rules.ticket_figures import training_job
from rules.workload import predict_layout, spans_nodes

# The finding's confidence, from LEAD at the bound up to CEILING. At the bound it is a lead (rules.engine.WEAK_LEAD:
# below 0.5, never a confident answer); the ratio is the reporter's prose and the broken path is unnamed, so it never
# passes what a verdict on prose alone may claim (rules.engine.WORDS_ONLY). It climbs over two doublings: the two
# predictions the bound divides may each be off by the predictor's largest error (max |error| 46 % fit, 44 %
# validation: benchmarks/predictor_accuracy.py, README), 1.46 x 1.44 = 2.1 together, about one doubling: within one
# the gap may be the predictor's (an info lead), past two no such error explains it (the ceiling).
LEAD, CEILING = WEAK_LEAD, WORDS_ONLY
PER_DOUBLING = (CEILING - LEAD) / 2


# The narrowest slot a healthy desktop gives a second card: x8 (interconnects.toml pcieN-x8 says where from).
WORST_LANES = 8


def worst_fabric(gpu) -> tuple:
    """(the board as priced, the fabric key or None for the board's own, how it is said) of the worst fabric a healthy
    machine gives the board: an SXM or on-package board (its catalog fabric NVLink or NVSwitch, no bridge) runs on
    that fabric, as its row places it; a PCIe card (a bridge is optional) on PCIe at WORST_LANES lanes (or its own,
    where fewer) with its peer-to-peer refused, so NCCL stages every step through host memory."""
    if catalog.interconnect(gpu.interconnect).kind != "pcie" and not gpu.nvlink_bridged:
        return gpu, None, f"{gpu.name}'s own fabric ({gpu.interconnect}, the catalog's row)"
    lanes = min(gpu.pcie_lanes or WORST_LANES, WORST_LANES)
    key = gpu.pcie_interconnect if lanes >= 16 else f"{gpu.pcie_interconnect}-x{lanes}"
    return (dataclasses.replace(gpu, pcie_p2p=False), key,
            f"PCIe Gen{gpu.pcie_gen} x{lanes} without peer-to-peer (NCCL SHM through host memory)")


def _stepped(p) -> bool:
    """The predictor priced a decode step for the layout: valid, fitting, with a step."""
    return p is not None and p.valid and p.fits and bool(p.decode_step_ms_expected)


def _step_ratio(small_p, large_p) -> float | None:
    """The larger layout's slowest healthy step over the smaller's fastest, or None where one is not predicted."""
    if not (_stepped(small_p) and _stepped(large_p)):
        return None
    return (large_p.decode_step_ms_expected * large_p.band_high) / (small_p.decode_step_ms_expected * small_p.band_low)


def _layout(n: int, split: bool) -> dict:
    """A layout of n GPUs: tensor parallel, or n pipeline stages of whole layers (a layer split)."""
    return {"tp": 1, "pp": n} if split else {"tp": n}


def _weights_overflow(model, gpu, engine, layout) -> bool:
    """The weights alone exceed what the engine may fill on the board (rules.roofline.usable_gb), so no reserve or KV
    cache makes them fit and the predictor prices no step: a bound checked before its full pass, which most of the
    catalog's pairs never need (a 70B model on one 24 GB card)."""
    from rules import roofline

    eng = catalog.split_twin(engine, layout.pp)
    return roofline.weights_bytes_per_gpu(model, layout, model.checkpoint_dtype) / 1e9 > roofline.usable_gb(gpu, eng)


def _priced(models, gpus, engines, small: int, large: int, batch: int, split: bool) -> list[tuple]:
    """(ratio, model, board, engine) of every combination the predictor prices, each engine profile as predict_layout
    prices one it is given (its build twin in the band; no other release), so naming a fact never raises the bound.
    The larger layout is priced only where the smaller one is: a ratio needs both."""
    from diagnose.errors import InputError
    from rules import roofline

    def priced(m, gpu, e, n, **kw):
        return roofline.predict_any_build(m, gpu, roofline.Layout(**_layout(n, split)), batch=batch, engine=e,
                                          build_stated=False, decode_only=True, **kw)

    def worst(g):
        try:
            return worst_fabric(g)
        except InputError:
            return None

    fabrics = {g.key: worst(g) for g in gpus}
    one_layout = roofline.Layout(**_layout(small, split))
    out = []
    for m, g, e in itertools.product(models, gpus, engines):
        if fabrics[g.key] is None or _weights_overflow(m, g, e, one_layout):
            continue
        board, fabric, _ = fabrics[g.key]
        try:
            one = priced(m, g, e, small)
            many = priced(m, board, e, large, interconnect=fabric) if _stepped(one) else None
        except InputError:
            continue
        if (r := _step_ratio(one, many)):
            out.append((r, m, g, e))
    return out


# Where neither the model nor the board is named, every pair is priced with one engine profile (the named engine's
# first release, else the generic one) and these many worst pairs with every profile the run may have been (the grid of
# all three is too long to price per ticket: 32,564 predictions, half a minute, for "vllm" with no model or board; an
# engine moves the ratio by less than the pairs differ, so the worst pairs stay the worst).
WORST_PAIRS = 32


@functools.lru_cache(maxsize=64)
def _catalog_worst(model, gpu, engines: tuple, named: bool, small: int, large: int, batch: int,
                   split: bool) -> tuple[float, str, str, str] | None:
    """The worst ratio over the catalog's models (or boards) where the ticket names none, and over the engine profiles
    (_profiles; `named`: the ticket names the engine): (ratio, model, board, engine). The specs the ticket names are
    passed as they are (a stand-in model's key is no catalog name)."""
    models = [model] if model else list(catalog.models().values())
    gpus = [gpu] if gpu else list(catalog.gpus().values())
    if model or gpu or len(engines) == 1:
        priced = _priced(models, gpus, engines, small, large, batch, split)
    else:
        # the pairs ranked by one profile (the named engine's first, else the generic one), then the worst priced
        # with every profile
        first = engines[0] if named else catalog.engine(None)
        pairs = sorted(_priced(models, gpus, [first], small, large, batch, split), key=lambda x: -x[0])[:WORST_PAIRS]
        priced = [x for _, m, g, _ in pairs for x in _priced([m], [g], engines, small, large, batch, split)]
    if not priced:
        return None
    r, m, g, e = max(priced, key=lambda x: x[0])
    return r, m.key, g.key, e.key


def _profiles(facts: Facts, engine) -> list:
    """The engine profiles the run may have been, each priced as itself (both layouts a loss compares ran on one
    release): every release of the engine named without its release, as far as the material narrows them
    (engine_releases); the profile named; every profile in the catalog where none is named."""
    if engine is None:
        return list(catalog.engines().values())
    return list(engine_releases(facts)[0]) or [engine]


def worst_slowdown(facts: Facts, small: int, large: int) -> tuple[float, str] | None:
    """(the most times slower physics lets `large` GPUs run than `small`, what it assumed), or None where the
    predictor cannot price the layouts (the model does not fit the smaller one)."""
    batch = wfield(facts, "batch")[0] or 1
    split = bool(claims.find(facts, "layer_split") or layer_split_engine(facts))
    model, gpu = facts.subject.model, facts.subject.gpu
    how = (f"{'layer split' if split else 'TP'} over {large} GPUs against {small}, batch {batch}, each at its band's "
           "far end")
    engine = facts.subject.engine
    profiles = _profiles(facts, engine)
    if model is not None and gpu is not None:
        # an engine the ticket does not name may be any of the catalog's: the slowest of them bounds the loss
        one, many = _layout(small, split), _layout(large, split)
        board, fabric, said = worst_fabric(gpu)
        worst = None
        for e in profiles:
            ratio = _step_ratio(predict_layout(facts, one["tp"], batch, pp=one.get("pp", 1), engine=e),
                                predict_layout(facts, many["tp"], batch, pp=many.get("pp", 1), gpu=board,
                                               interconnect=fabric, engine=e))
            if ratio and (worst is None or ratio > worst[0]):
                worst = (ratio, e.key)
        if worst is None:
            return None
        return worst[0], f"{how}, {said}; {model.key} on {gpu.key}, {worst[1]}" + (
            "" if engine else " (the slowest engine; none named)")
    worst = _catalog_worst(model, gpu, tuple(profiles), engine is not None, small, large, batch, split)
    if worst is None:
        return None
    unnamed = " and ".join(w for w, known in (("models", model), ("GPUs", gpu)) if known is None)
    said = worst_fabric(catalog.gpu(worst[2]))[2]
    return worst[0], (f"{how}, {said}; the worst over the catalog's {unnamed} ({worst[1]} on {worst[2]}, {worst[3]}): "
                      "none named")


# Weights sharded over the GPUs and gathered whole for every forward pass (PyTorch FSDP "all-gathers the full
# parameters before the forward computation", https://pytorch.org/docs/stable/fsdp.html; DeepSpeed ZeRO stage 3
# partitions the parameters the same way, https://deepspeed.readthedocs.io/en/latest/zero3.html): each token moves the
# model over the links, a cost the TP and layer-split bound does not price, so it bounds no such loss.
_GATHERED_WEIGHTS = re.compile(r"\bFSDP\b|FullyShardedDataParallel|\bZeRO[-_ ]?(?:stage[-_ ]?)?3\b|"
                               r"\bzero_?stage\W{0,3}3\b|\bstage\W{0,3}3\b[^.\n]{0,30}\bZeRO\b", re.I)


def weighed_loss(facts: Facts):
    """(loss claim, factor, bound, how the bound was priced, smaller and larger GPU counts) of the largest slowdown
    the reporter measured between two layouts where the predictor can bound it; None otherwise (no multi-GPU layout,
    a training job, the model not fitting the smaller layout)."""
    losses = claims.stated_losses(facts)
    if not losses or training_job(facts) or claims.other_vendor_speed(facts) \
            or any(_GATHERED_WEIGHTS.search(text) for _, text in claims.texts(facts)):
        return None
    c = max(losses, key=lambda c: c.data["factor"])
    tp, _ = wfield(facts, "tp")
    large = c.data["large"] or tp or gpu_count(facts)
    small = c.data["small"] or 1
    if not large or large <= small or spans_nodes(facts, large):
        return None  # (a layout over several nodes all-reduces over the network, which worst_fabric does not price:
        # its loss is workload.cross_node_tp's)
    bound = worst_slowdown(facts, small, large)
    return (c, c.data["factor"], *bound, small, large) if bound else None


def _weighed_ev(c, factor: float, bound: float, how: str) -> list:
    return [claim_ev(c, "the loss stated"),
            ev(c, f"times slower, stated; physics allows at most x{bound:.2g} on this layout", round(factor, 2),
               round(bound, 2), "x"),
            ev("prediction:worst", f"the worst healthy configuration priced: {how}")]


def within_physics(facts: Facts) -> list:
    """The evidence that a stated loss is inside what physics allows (for a prior that calls it physics); [] where no
    loss is stated, none can be bounded, or it exceeds the bound."""
    found = weighed_loss(facts)
    if not found or found[1] > found[2]:
        return []
    return _weighed_ev(*found[:4])


@rule("ticket.loss_beyond_physics", "other")
def loss_beyond_physics(facts: Facts, predictions=None):
    """A loss between two layouts larger than the worst configuration physics allows: something is broken, not slow."""
    found = weighed_loss(facts)
    if not found:
        return
    c, factor, bound, how, small, large = found
    if factor <= bound:
        return
    excess = factor / bound
    confidence = min(CEILING, LEAD + PER_DOUBLING * math.log2(excess))
    # within one doubling of the bound the predictor's own error and a rounded ratio may close the gap: a lead
    yield make("ticket.loss_beyond_physics", "other", "warning" if excess >= 2 else "info", confidence,
               f"x{factor:.3g} slower on {large} GPUs than on {small}: physics allows at most x{bound:.2g}",
               f"Physics allows at most x{bound:.2g} slower on this layout; reported x{factor:.3g}. Even with every "
               "all-reduce staged through host memory and both runs at the far ends of their bands, the larger "
               "layout loses no more than that; a loss beyond it is a path that is broken, not one that is slow.",
               _weighed_ev(c, factor, bound, how),
               fix="Look for a broken path, not a slow one: P2P refused or faulted (`p2pBandwidthLatencyTest`, "
               "NCCL_DEBUG=INFO: 'via SHM' or 'NET/Socket' between GPUs of one node), a host-bound loop (one CPU "
               "core at 100 %, the GPUs idle between steps), weights offloaded to the CPU, or a hang and retry "
               "(NCCL timeouts in the log); attach the NCCL_DEBUG=INFO output and `nvidia-smi topo -m`.",
               refs=["nccl_trouble"])
