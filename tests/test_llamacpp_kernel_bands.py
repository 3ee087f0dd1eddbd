"""llama.cpp's decode layer runs fewer kernels in later builds (engines.toml kernel_bands, read from the CUDA
backend's history as https://github.com/ggml-org/ggml keeps llama.cpp's commits): the stated build picks the band,
as a published table, a ticket and predict read it, and the published rows of each era agree with their band."""

import pytest

from diagnose import published
from rules import catalog
from tests.test_llamacpp_profile import PUBLISHED


def _kernels(builds):
    return catalog.build_profile(catalog.engine("llamacpp"), builds).kernels_per_layer


@pytest.mark.parametrize("builds,kernels", [
    (("b2824",), 22), (("b4006",), 22), (("2024-05-15",), 22),  # the 2024 graph: no fusion yet
    (("2025-06-28",), 22), (("2025-06-29",), 21),  # ggml_swiglu_split (#14158): silu and mul as one GLU
    (("2025-07-21",), 21), (("2025-07-23",), 19),  # fused RMS norm + mul (#14800), twice a layer
    (("b6413",), 19), (("2025-10-17",), 19),  # before the GEMV fusion (#16715, 2025-10-26)
    (("2025-11-01",), 17), (("2025-11-13",), 16), (("b7474",), 16), (("b10970",), 16),
])
def test_a_stated_build_picks_its_band(builds, kernels):
    assert _kernels(builds) == kernels


def test_a_build_the_history_does_not_place_takes_the_newer_band():
    """The release that first carried #14800 lies between b5922 and b5986: a build inside that range, or a month
    spanning the merge day, is on neither side, and is priced as the newer builds run (as mmq_build does); a build
    stated with neither number nor date, the newest builds'."""
    assert _kernels(("b5950",)) == _kernels(("2025-07",)) == 19
    assert _kernels(("b5921",)) == 21 and _kernels(("b5986",)) == 19
    assert _kernels(()) == _kernels(("2026",)) == 16


def test_the_eager_twin_keeps_its_count():
    """The bands are the graph profile's: the eager twin stands for builds before b2822 and GPUs below the graphs
    gate, whose published rows (PR 4766's P40, PR 12183's V100) are priced with the 2024 count."""
    eager = catalog.engine("llamacpp-eager")
    assert catalog.build_profile(eager, ("b7474",)).kernels_per_layer == eager.kernels_per_layer == 22


def _decode(table):
    return [r for r in published.read(PUBLISHED / table) if r.metric == "decode_tok_s"]


def test_rows_of_the_fused_builds_sit_closer_with_their_band():
    """PR 16630's master (2025-10-17, RTX 4090, Qwen3 0.6B F16: three tg rows) runs 19 kernels a layer, where the
    2024 graph ran 22: priced with the 2024 count every row is 14-17 % faster than expected, with its band 5-8 %.
    A 0.6B model is the sharpest test: its per-token kernel time is as large as its weight stream."""
    rows = _decode("llamacpp-pr16630-rtx4090-qwen3-0.6b-f16-2025-10.csv")
    old = catalog.engine("llamacpp")
    for r in rows:
        banded = published.expect(r)
        unbanded = published.expect(r, engine=catalog.mmq_build(catalog.split_build(old, r.builds), r.builds))
        assert banded.ratio(r.value) > unbanded.ratio(r.value)  # closer: the band's step is shorter
        assert abs(1 / banded.ratio(r.value) - 1) < 0.10 < abs(1 / unbanded.ratio(r.value) - 1)


def test_rows_before_the_first_fusion_keep_the_2024_graph():
    """PR 14800's own base (master of 2025-07-21, RTX 3090, Q5_K_M) is the last build before the fused RMS norm: it
    runs the 21 kernels of the GLU band and its tg128 sits within 5 % of the expected rate."""
    (row,) = _decode("llamacpp-pr14800-rtx3090-llama-2-7b-q5km-2025-07.csv")
    assert catalog.build_profile(catalog.engine("llamacpp"), row.builds).kernels_per_layer == 21
    assert abs(1 / published.expect(row).ratio(row.value) - 1) < 0.05
