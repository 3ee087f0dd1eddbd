"""Measured matmul ceilings (gpus.toml matmul_max): each is the median of the public measurements its row cites,
and the expected GEMM rate and prompt time follow it, by hand, on a board with one and on a board without."""

import dataclasses
import re
import statistics

import pytest

from rules import catalog, step_model
from rules.roofline import tp_fabric

CITED = re.compile(r"^matmul ([0-9.]+) TFLOPS: (https://\S+)")


def _cited(spec) -> list[float]:
    return [float(m.group(1)) for s in spec.sources if (m := CITED.match(s))]


def test_every_measured_ceiling_is_the_median_of_its_cited_measurements():
    """A matmul_max either comes from gpu-specs.md's MAMF table ([S2]) or is the median of the figures its row cites
    with their URLs, over the datasheet rate; and a row citing a measurement carries the ceiling."""
    measured = {k: g for k, g in catalog.gpus().items() if g.matmul_max}
    assert {"a40", "rtx-a6000", "rtx-6000-ada", "l40s", "l4", "a10g", "h100-pcie", "rtx-4090"} <= set(measured)
    for key, g in catalog.gpus().items():
        figures = _cited(g)
        if not figures:
            assert not g.matmul_max or "S2" in g.sources, key
            continue
        assert g.matmul_max == pytest.approx(statistics.median(figures) / g.bf16_tflops, abs=0.0015), key
    # power-limited boards run well below their datasheet rate; GeForce boards' boost clocks run past the rated one
    assert catalog.gpu("a10").matmul_max < 0.5 and catalog.gpu("h100-pcie").matmul_max < 0.7
    assert catalog.gpu("rtx-3090").matmul_max > 1.0
    # a board nobody measured keeps the calibration's typical ceiling
    assert not catalog.gpu("a30").matmul_max


def _setting(gpu, engine="vllm", dtype="bf16"):
    model = catalog.model("llama-3-8b")
    return step_model.Setting(model, gpu, catalog.engine(engine), catalog.calibration(), 1, dtype, dtype,
                              tp_fabric(gpu, 1, 8)[0])


def test_gemm_rate_by_hand_with_and_without_a_measured_ceiling():
    """Llama-3-8B's gate/up GEMM of a 2048-token prompt (2048 x 28672 x 4096, every SM busy): datasheet rate x
    ceiling x the fitted share x K / (K + tile overhead)."""
    cal = catalog.calibration()
    share, depth = cal.gemm_efficiency["bf16"], 4096 / (4096 + cal.tile_overhead_k)
    a40, a30, rtx = catalog.gpu("a40"), catalog.gpu("a30"), catalog.gpu("rtx-4090")
    assert (a40.matmul_max, rtx.matmul_max, a30.matmul_max) == (0.817, 1.017, 0.0)
    shape = (2048, 28672, 4096)
    for gpu, peak, ceiling in ((a40, 149.7, 0.817), (a30, 165, cal.gemm_ceiling["bf16"]), (rtx, 165.2, 1.017)):
        waves = step_model.wave_efficiency(*shape, gpu.sms)
        assert _setting(gpu).tensor_rate("bf16", *shape) == pytest.approx(peak * 1e6 * ceiling * share * waves * depth)
    # llama.cpp's cuBLAS GEMMs accumulate in FP16: on a GeForce board that rate (330.3) is twice the measured one,
    # and no measurement of it is cited, so it keeps the typical ceiling
    llama = catalog.engine("llamacpp")
    waves = step_model.wave_efficiency(*shape, rtx.sms)
    hand = 330.3 * 1e6 * cal.gemm_ceiling["bf16"] * llama.fp16_gemm_efficiency * waves * depth
    assert _setting(rtx, "llamacpp", "fp16").tensor_rate("fp16acc16", *shape) == pytest.approx(hand)
    # a data-centre board runs both accumulations alike, so its measured ceiling prices llama.cpp's GEMMs too
    hand = 149.7 * 1e6 * 0.817 * llama.fp16_gemm_efficiency * step_model.wave_efficiency(*shape, a40.sms) * depth
    assert _setting(a40, "llamacpp", "fp16").tensor_rate("fp16acc16", *shape) == pytest.approx(hand)


def test_prompt_time_follows_the_measured_ceiling():
    """A 2048-token Llama-3-8B prompt on one H100 PCIe is compute-bound: its expected pass takes no less than the GEMMs'
    FLOPs at 756 TFLOPS x 0.656 (measured) x the fitted share x K / (K + tile overhead), and no more than that plus
    the weight and activation streams it overlaps imperfectly, the kernels' gaps and a little attention. The same
    board without its measurement is priced at the typical 0.807: faster by most of 0.807 / 0.656 = 1.23x."""
    cal = catalog.calibration()
    h100 = catalog.gpu("h100-pcie")
    assert h100.matmul_max == 0.656
    model = catalog.model("llama-3-8b")
    tokens = 2048
    gemm_flops = 2.0 * tokens * model.decoder_params()
    depth = 14336 / (14336 + cal.tile_overhead_k)  # the deepest K (down projection): a lower bound on the time
    times = {}
    for ceiling, gpu in ((0.656, h100), (cal.gemm_ceiling["bf16"], dataclasses.replace(h100, matmul_max=0.0))):
        t = step_model.pass_terms(_setting(gpu), sequences=1, tokens_per_seq=tokens, context=tokens, prefill=True)
        hand_ms = gemm_flops / (756e12 * ceiling * cal.gemm_efficiency["bf16"] * depth) * 1e3
        streams_ms = t.weights_ms + t.activation_ms + t.overhead_ms
        assert hand_ms < t.total_ms < 1.1 * (hand_ms + streams_ms), (ceiling, t, hand_ms)
        times[ceiling] = t.total_ms
    ratio = times[0.656] / times[cal.gemm_ceiling["bf16"]]
    assert 1.15 < ratio < cal.gemm_ceiling["bf16"] / 0.656
