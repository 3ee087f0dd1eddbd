"""`scripts/fit_predictor.py` fits an engine's own constants (host times, its kernel shares) only where the fit rows
those constants move come from two tables or more: on one table they would absorb whatever that table's setup adds
beyond the model. SGLang's only fit table is the case that showed it: DeepSeek-R1-0528 FP8 at TP16 on 2 x 8 H100 over
InfiniBand, 7 TPOT rows 21 % slower than expected (tests/data/published/sglang-tt356-*, source
https://github.com/tenstorrent/tt-inference-server/issues/356). Real inputs: every fit table of tests/data/published,
each citing its own source."""

from pathlib import Path

import pytest

from rules import catalog

PUBLISHED = Path(__file__).parent / "data" / "published"


@pytest.fixture(autouse=True)
def _published_models():
    catalog.configure([str(PUBLISHED / "models.toml")])  # as the script's main(); conftest restores the bundled one


def _keys(fitter, rows, **kw):
    engines = {r.engine for r in rows} | {fitter.TIED[e] for e in {r.engine for r in rows} if e in fitter.TIED}
    trial = fitter.Trial(catalog.calibration(), {k: catalog.engine(k) for k in engines})
    keys, thin = fitter.engine_keys(rows, trial, **kw)
    return {(e, name) for (_, e, name), _, _ in keys}, thin


def test_an_engine_with_one_fit_table_is_left_out_and_named(fitter):
    rows = fitter.fit_rows()
    fitted, thin = _keys(fitter, rows)
    assert thin["sglang"] == {"sglang-tt356-deepseek-r1-0528-h100-2x8-ib-c1.csv"}
    assert not {name for e, name in fitted if e == "sglang"}  # host_ms_per_step / _per_request stay as written
    for e, tables in thin.items():  # every engine left out has fewer than two tables, whatever its row count
        assert len(tables) < fitter.MIN_TABLES and sum(r.engine == e for r in rows) >= 1
    # engines with many tables keep their host times in the fit
    assert {("vllm", "host_ms_per_step"), ("llamacpp", "host_ms_per_request")} <= fitted


def test_tables_are_counted_over_the_rows_a_constant_moves_not_the_engines_own(fitter):
    rows = fitter.fit_rows()
    fitted, thin = _keys(fitter, rows)
    # no fit row names trtllm or lmdeploy itself: their tied releases' tables (TensorRT-LLM v0.5-v0.10, TurboMind
    # 0.1.0a1) run on the constants they take from them
    assert not any(r.engine in ("trtllm", "lmdeploy") for r in rows)
    assert {("trtllm", "host_ms_per_step"), ("lmdeploy", "host_ms_per_request")} <= fitted
    assert "trtllm" not in thin and "lmdeploy" not in thin


def test_one_of_two_tables_alone_is_too_thin(fitter):
    # lmdeploy's two TurboMind tables (Llama-2 7B and 70B) fit it together; either one alone does not
    rows = [r for r in fitter.fit_rows() if r.engine == "lmdeploy-0.1a1"]
    tables = sorted({r.table for r in rows})
    assert len(tables) == 2
    fitted, thin = _keys(fitter, rows)
    assert ("lmdeploy", "host_ms_per_step") in fitted and not thin
    fitted, thin = _keys(fitter, [r for r in rows if r.table == tables[0]])
    assert not any(e == "lmdeploy" for e, _ in fitted) and thin["lmdeploy"] == {tables[0]}
