"""`diagnose predict` with part of the model in host memory (--cpu-layers, --experts-on-cpu, --cpu-offload-gb): the
decode rate that placement allows (rules/offload.py) beside the all-in-VRAM figure, for one stream on one GPU."""

from __future__ import annotations

from diagnose.findings import Evidence, Finding
from rules import catalog, offload
from rules.common import LLAMACPP_ENGINES
from rules.engine import rule
from rules.expectations import band_text
from rules.predictions import PredictResult


def placement(p, asked: dict, model) -> offload.Placement | None:
    """Where the bytes a token reads are for the request (its resident_gb: what the offload takes out of GPU memory),
    None for none."""
    if asked.get("cpu_layers"):
        return offload.layers_on_cpu(p, model.layers - asked["cpu_layers"], model.layers)
    if asked.get("experts_on_cpu") or asked.get("n_cpu_moe"):
        return offload.experts_on_cpu(p, asked.get("n_cpu_moe"))
    if asked.get("cpu_offload_gb"):
        return offload.streamed_over_pcie(asked["cpu_offload_gb"] * offload.GIB)
    return None


def _prompt_lines(p, placed: offload.Placement, pcie: float, engine: str, pinned: bool) -> list[Evidence]:
    """The prompt's rate under llama.cpp's op offload (rules.offload.prompt_pace), none where it does not apply: the
    micro-batch copies are llama.cpp's (Ollama runs it); vLLM's --cpu-offload-gb copies once per forward pass and
    KTransformers computes the prompt's experts on the CPU, which this model does not price."""
    x = offload.prompt_pace(p, placed, pcie, p.prompt, pinned=pinned) if engine in LLAMACPP_ENGINES else None
    if x is None:
        return []
    memory = ("pinned memory (--no-mmap)" if pinned else
              f"pageable memory (mmap, the default: {offload.PAGEABLE_SHARE:.0%} of the link's pinned {pcie:g} GB/s, "
              "measured mmap on vs off; --no-mmap pins them)")
    return [Evidence("prediction:offload", f"a {p.prompt}-token prompt: each of its {x.batches} micro-batches of up "
                     f"to {offload.UBATCH} tokens copies the {placed.resident_gb:.1f} GB kept in host memory to the "
                     f"GPU over PCIe at {offload.copy_gbs(pcie, pinned):.1f} GB/s from {memory} "
                     f"({x.copy_ms:.0f} ms in all; llama.cpp computes a batch of "
                     f"{offload.OP_OFFLOAD_MIN_BATCH}+ tokens on the GPU, --no-op-offload keeps it on the CPU), the "
                     f"GPU's own prefill {x.gpu_ms:.0f} ms", None, round(x.tok_s, 1), "tok/s")]


@rule("predict.offload", "expected_physics", needs=PredictResult)
def offload_pace(facts, predictions):
    """One stream's decode rate with the weights `predict` was told to keep off the GPU: host-memory reads for the
    CPU's share at the host's bandwidth (rules/catalog/host_memory.toml), PCIe copies for weights streamed in, the
    GPU's pace for the rest; the layout's all-in-VRAM figure beside it."""
    asked = getattr(predictions, "offload", None)
    if not asked:
        return
    model, gpu = predictions.model, predictions.gpu
    for p in predictions.layouts:
        if not (p.valid and p.tp == 1 and p.pp == 1 and p.batch == 1):
            continue  # the offload engines run one stream on one GPU; other layouts keep their own rows
        placed = placement(p, asked, model)
        if placed is None:
            return
        off_gb = placed.resident_gb
        left = p.weights_gb_per_gpu - off_gb
        usable = gpu.memory_bytes / 1e9 * predictions.engine.memory_utilization
        memory = offload.host_memory(asked.get("host"), asked.get("host_mts"), asked.get("host_channels"),
                                     asked.get("sockets"), held_gb=off_gb)
        pcie = catalog.interconnect(gpu.pcie_interconnect).achieved_gbs
        pace = offload.decode_pace(p, placed, memory, pcie)
        band = band_text(pace.low, pace.high, digits=1)
        still = f"; the {left:.0f} GB left on the GPU still exceed its {usable:.0f} GB usable" if left > usable else ""
        yield Finding(
            rule="predict.offload", category="expected_physics", severity="warning" if still else "info",
            confidence=0.6,
            title=f"With {placed.words}: {pace.expected:.1f} tok/s expected (band {band}), "
                  f"{pace.vram_tok_s:.0f} tok/s were it all in VRAM{still}",
            summary="Each token reads every active weight once. The share in host memory is read at the host's "
                    "bandwidth (or copied over PCIe), an order of magnitude below the GPU's, and the GPU waits for it.",
            evidence=[
                Evidence("prediction:offload", f"decode rate, {placed.words}, batch 1", None, round(pace.expected, 2),
                         "tok/s"),
                *offload.evidence([pace], p, gpu.key),
                *_prompt_lines(p, placed, pcie, predictions.engine.key, bool(asked.get("pinned"))),
                Evidence("prediction:roofline", "weights left on the GPU", round(left, 1), round(usable, 1), "GB"),
            ],
            fix="For more speed keep fewer bytes off the GPU (a smaller quantisation, more or larger GPUs) or give "
                "the host more bandwidth (every memory channel populated, faster DIMMs, more channels).",
        )
        return
