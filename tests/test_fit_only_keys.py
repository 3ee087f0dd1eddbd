"""`scripts/fit_predictor.py --only-keys` fits a few calibration.toml constants with everything else held, and must
minimise the project's objective, not one of its own: every row keeps the weight the full fit gives it (1/sqrt(rows
in its table), counted over all rows), and only the rows the keys move are recomputed.

Real inputs: two fit tables, TGI 1.0.3 on 8 x A10G (no CUDA graphs: engine tgi-1.0; source
https://github.com/philschmid/text-generation-inference-tests/blob/4373a85992198f116af57c7dd18d2f07f6d03bae/results/sagemaker.csv)
and gpt-fast's Llama-3.1 tensor-parallel table (source
https://github.com/pytorch-labs/gpt-fast/blob/c9f683edd4f89d3e81ed8f52387e866a245e3226/README.md),
of which only the host-bound TP > 1 rows move with [sync] host_speed_cv."""

import math
from pathlib import Path

import pytest

from diagnose import published
from rules import catalog

PUBLISHED = Path(__file__).parent / "data" / "published"
TABLES = ["tgi-1.0-sagemaker-a10g-llama-2-bs1-tp1-4-8-4373a85.csv", "gptfast-tp-llama-3.1-a100-c9f683e.csv"]
KEY = ("sync", "host_speed_cv")


def _rows():
    return [r for t in TABLES for r in published.read(PUBLISHED / t) if r.healthy]


def test_a_subset_fit_weighs_and_scores_rows_as_the_full_objective(fitter):
    rows = _rows()
    moved, points = fitter.touched(rows, [], (KEY,))
    assert not points and 0 < len(moved) < len(rows)  # some rows move, not all
    assert {rows[i].tp for i in moved} <= {4, 8}  # TP1 has no peer to wait for
    trial = fitter.Trial(catalog.calibration(), {e: catalog.engine(e) for e in {r.engine for r in rows}})
    obj = fitter.Objective(rows, [], trial)
    per_table = {t: sum(r.table == t for r in rows) for t in {r.table for r in rows}}
    assert obj.w == [1 / math.sqrt(per_table[r.table]) for r in rows]  # the full tables' counts, not the subset's
    obj.active = (moved, points)
    trial.set(KEY, trial.get(KEY) * 2)
    partial = obj.refresh(None)
    obj.active = None
    assert obj.refresh(None) == pytest.approx(partial, rel=1e-12)  # recomputing every row changes nothing


def test_a_key_the_fit_would_not_fit_is_refused(fitter):
    # --only-engine llamacpp fits only that engine's calibration keys (ONLY_ENGINE_CAL): naming another must not
    # silently write back the old value
    with pytest.raises(SystemExit, match="sync.host_speed_cv not fitted with --only-engine llamacpp"):
        fitter.fit(sweeps=0, verbose=False, only="llamacpp", only_keys=(KEY,))
