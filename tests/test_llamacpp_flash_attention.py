"""llama.cpp with flash attention on (-fa 1): a decode layer runs flash_attn_ext's vector kernel and its combine in
place of the unfused KQ, soft_max, KQV and cont (engines.toml fa_kernels, read in ggml-cuda's fattn-common.cuh), and
the published llama-bench rows say per row whether it was on (their fa column)."""

from pathlib import Path

import pytest

from diagnose import published
from diagnose.errors import InputError
from rules import catalog, step_model
from rules.roofline import predict
from rules.subject import model_named
from tests.test_llamacpp_profile import PUBLISHED

LHL_B6413 = "llamacpp-lhl-rtxpro6000-b6413.csv"  # `llama-bench -fa 1`, validation
LHL_B4006 = "llamacpp-lhl-rtx3090-rtx4090-mistral-7b-b4006.csv"  # `llama-bench ... -fa 1`, fit
XIONGJIEDAI_A40 = "llamacpp-xiongjiedai-a40-layer-split-2024-05.csv"  # 'no flash attention'


def _rows(table, metric=None):
    return [r for r in published.read(PUBLISHED / table) if metric is None or r.metric == metric]


def test_the_fa_column_says_what_each_source_states():
    assert {r.fa for r in _rows(LHL_B6413)} == {True}
    assert {r.fa for r in _rows(LHL_B4006)} == {True}
    assert {r.fa for r in _rows(XIONGJIEDAI_A40)} == {False}
    # PR 16630's master (2025-10) states no -fa, and llama-bench's default became auto at some build: not stated
    assert {r.fa for r in _rows("llamacpp-pr16630-rtx4090-qwen3-0.6b-f16-2025-10.csv")} == {None}


def test_a_bad_fa_value_is_one_clear_error(tmp_path):
    text = (PUBLISHED / LHL_B6413).read_text()
    bad = tmp_path / "bad.csv"
    bad.write_text(text.replace("decode_tok_s,278.95,1", "decode_tok_s,278.95,yes"))
    with pytest.raises(InputError, match=r"bad.csv:\d+: fa must be 1, 0 or empty, got 'yes'"):
        published.read(bad)


def _layer_kernels(engine, gpu="rtx-pro-6000-blackwell"):
    model = model_named("llama-2-7b")
    s = step_model.Setting(model, catalog.gpu(gpu), engine, catalog.calibration(), 1, "int4", "fp16",
                           catalog.interconnect("pcie4"), group="Q4_0")
    return step_model.pass_terms(s, sequences=1, tokens_per_seq=1, context=64, prefill=False).kernels


def test_flash_attention_runs_two_kernels_where_the_unfused_path_runs_four():
    """b6413 counts 19 kernels a decode layer: flash attention takes KQ, soft_max, KQV and cont (4) and runs its
    vector kernel and the combine of its parallel blocks (2), so 32 layers run 64 kernels fewer."""
    llamacpp = catalog.engine("llamacpp")
    off = catalog.build_profile(llamacpp, ("b6413",))
    on = catalog.build_profile(llamacpp, ("b6413",), fa=True)
    assert (off.flash_attention, on.flash_attention) == (False, True)
    assert catalog.build_profile(llamacpp, ("b6413",), fa=False) == off  # stated off: as not stated
    assert _layer_kernels(off) - _layer_kernels(on) == 32 * (4 - 2)


def test_a_split_and_the_eager_twin_keep_the_switch():
    """A split by layers before b5505 runs the eager twin (pp_eager); it launches the same attention kernels."""
    on = catalog.build_profile(catalog.engine("llamacpp"), ("b2824",), fa=True)
    twin = catalog.split_twin(on, 4)
    assert twin.key == "llamacpp-eager" and twin.flash_attention
    assert _layer_kernels(twin, "rtx-3090") < _layer_kernels(catalog.engine("llamacpp-eager"), "rtx-3090")


@pytest.mark.parametrize("table", [LHL_B4006, LHL_B6413])
def test_fa_rows_sit_closer_to_their_measured_rate_with_flash_attention(table):
    """Every -fa 1 tg128 row of lhl's notes (RTX 3090 and 4090 at b4006, fit; RTX PRO 6000 at b6413, validation) ran
    faster than the unfused count prices it; with flash attention's kernels each expected rate is higher, and so
    closer, yet still at or below the measured one (the rest of the gap is not flash attention's)."""
    for r in _rows(table, "decode_tok_s"):
        on = published.expect(r)
        off = published.expect(r, engine=catalog.build_profile(catalog.engine(r.engine), r.builds))
        assert off.expected < on.expected <= r.value


def test_flash_attention_changes_decode_not_the_prompt():
    """The prompt's attention is priced as one fused kernel either way (not modelled: its score traffic at pp512)."""
    model, gpu = model_named("llama-3-70b"), catalog.gpu("rtx-pro-6000-blackwell")
    llamacpp = catalog.engine("llamacpp")
    kw = dict(batch=1, prompt=512, output=128, dtype="int4", quant_group="Q4_K_M")
    off = predict(model, gpu, engine=catalog.build_profile(llamacpp, ("b6413",)), **kw)
    on = predict(model, gpu, engine=catalog.build_profile(llamacpp, ("b6413",), fa=True), **kw)
    assert on.decode_step_ms_expected < off.decode_step_ms_expected
    assert on.ttft_ms_expected == pytest.approx(off.ttft_ms_expected, rel=0.02)


def test_every_llamacpp_table_says_where_its_fa_comes_from():
    """The rule for the data: each llama.cpp table carries a '# Flash attention' line saying whether fa was stated,
    taken from the build's default, or left empty."""
    for path in sorted(Path(PUBLISHED).glob("llamacpp-*.csv")):
        assert "# Flash attention (fa column):" in path.read_text(), path.name
