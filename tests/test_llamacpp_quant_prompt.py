"""A quantised prompt in the llama.cpp builds of 2024 (before MMQ ran on INT8 tensor cores): for more than 32 tokens on
a GPU with FP16 tensor cores, ggml_cuda_op_mul_mat_cublas converts the GGUF weights to an F16 buffer (to_fp16_cuda) and
then calls cuBLAS on the same stream, so the conversion is a kernel of its own that no GEMM hides. Checked against the
F16 / Q4_K_M pairs of XiongjieDai/GPU-Benchmarks-on-LLM-Inference (llama-bench pp512, builds b2824-b2837, five GPUs).
"""

import statistics
from pathlib import Path

import pytest

from diagnose import published
from rules import catalog
from rules.roofline import Layout, predict

PUBLISHED = Path(__file__).parent / "data" / "published"


def _pairs():
    rows = {}
    for path in sorted(PUBLISHED.glob("llamacpp-xiongjiedai-*.csv")):
        for r in published.read(path):
            if r.metric == "ttft_ms" and r.healthy:
                rows[(r.gpu, r.model, r.pp, r.dtype)] = r
    return [(f, rows[(g, m, pp, "Q4_K_M")]) for (g, m, pp, dt), f in sorted(rows.items())
            if dt == "F16" and (g, m, pp, "Q4_K_M") in rows]


def test_q4_k_m_prompt_costs_what_its_conversion_adds_to_f16():
    """Measured Q4_K_M / F16 prompt time is 1.03-1.46 (median ~1.25) over the GPUs and GPU counts; the expected ratio
    tracks it (median within 5 %). With the conversion hidden under the GEMM, as before, the median was 8 % short."""
    pairs = _pairs()
    assert len({f.gpu for f, _ in pairs}) >= 5
    measured = [q.value / f.value for f, q in pairs]
    expected = [published.expect(q).expected / published.expect(f).expected for f, q in pairs]
    assert all(e > 1.1 for e in expected)
    assert statistics.median(e / m for e, m in zip(expected, measured)) == pytest.approx(1.0, abs=0.05)


def test_the_conversion_costs_a_prompt_on_a_tensor_core_gpu_not_a_decode_step():
    """On an RTX 4090 the F16 copy adds to a Q4_K_M prompt at least the datasheet time of its own traffic (the ~0.56
    bytes a weight read, 2 written: 2.5 bytes a weight of the layers' matrices, 17 ms; it added 14.6 ms while it was
    hidden under the GEMM; measured F16 -> Q4_K_M: 54.6 -> 71.7 ms); a decode step (1 token: MMVQ on the quantised
    blocks, no copy) stays faster than F16's. The profile as a 2024 build runs it (b2824: before b3216's MMQ)."""
    model, gpu = catalog.model("llama-3-8b"), catalog.gpu("rtx-4090")
    eng = catalog.mmq_build(catalog.engine("llamacpp"), ("b2824",))

    def run(dtype, group, prompt):
        return predict(model, gpu, Layout(), prompt=prompt, output=1, dtype=dtype, quant_group=group, engine=eng)

    q, f = run("int4", "Q4_K_M", 512), run("fp16", "F16", 512)
    write_ms = model.decoder_params() * 2.5 / (gpu.hbm_gbs * 1e9) * 1e3
    assert q.ttft_ms_expected - f.ttft_ms_expected > write_ms
    assert run("int4", "Q4_K_M", 1).decode_step_ms_expected < run("fp16", "F16", 1).decode_step_ms_expected
