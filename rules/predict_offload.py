"""`diagnose predict` with part of the model in host memory (--cpu-layers, --experts-on-cpu, --cpu-offload-gb): the
decode rate that placement allows (rules/offload.py) beside the all-in-VRAM figure, for one stream on one GPU."""

from __future__ import annotations

from diagnose.findings import Evidence, Finding
from rules import catalog, offload, shapes
from rules.engine import rule
from rules.expectations import band_text
from rules.predictions import PredictResult


def placement(p, asked: dict, model) -> tuple[offload.Placement, float] | None:
    """(where the bytes a token reads are, GB the offload takes out of GPU memory) for the request, None for none."""
    dtype, group = p.dtype, p.assumptions.get("quant_group")
    if asked.get("cpu_layers"):
        n = asked["cpu_layers"]
        resident = shapes.decoder_bytes_per_rank(model, 1, dtype, group=group) / model.layers * n / 1e9
        return offload.layers_on_cpu(p, model.layers - n, model.layers), resident
    if asked.get("experts_on_cpu"):
        per_param = shapes.DTYPE_BYTES[dtype] if dtype == "mxfp4" else shapes.bytes_per_param(dtype, group)
        resident = model.moe_layers * model.experts * model.mlp_params(model.expert_ffn) * per_param / 1e9
        return offload.experts_on_cpu(p), resident
    if asked.get("cpu_offload_gb"):
        gb = asked["cpu_offload_gb"] * offload.GIB
        return offload.streamed_over_pcie(gb), gb
    return None


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
        found = placement(p, asked, model)
        if found is None:
            return
        placed, off_gb = found
        left = p.weights_gb_per_gpu - off_gb
        usable = gpu.memory_bytes / 1e9 * predictions.engine.memory_utilization
        memory = offload.host_memory(asked.get("host"), asked.get("host_mts"), asked.get("host_channels"),
                                     asked.get("sockets"), held_gb=off_gb)
        pace = offload.decode_pace(p, placed, memory, catalog.interconnect(gpu.pcie_interconnect).achieved_gbs)
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
                Evidence("prediction:offload", f"per token: {placed.cpu_gb:.2f} GB read by the CPU "
                         f"({pace.cpu_ms:.0f} ms), {placed.pcie_gb:.2f} GB over PCIe ({pace.pcie_ms:.0f} ms), "
                         f"the GPU's share {pace.gpu_ms:.0f} ms"),
                *offload.host_memory_ev(memory),
                Evidence("prediction:expected", f"all in VRAM ({p.engine} profile, {gpu.key})", None,
                         round(pace.vram_tok_s, 1), "tok/s"),
                Evidence("prediction:roofline", "weights left on the GPU", round(left, 1), round(usable, 1), "GB"),
            ],
            fix="For more speed keep fewer bytes off the GPU (a smaller quantisation, more or larger GPUs) or give "
                "the host more bandwidth (every memory channel populated, faster DIMMs, more channels).",
        )
        return
