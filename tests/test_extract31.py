"""extract31 (issue 11): a validation set for fact extraction. 24 real "is this speed normal / why is multi-GPU not
faster" first posts the reader was never fitted to, annotated by hand before the tool read them
(tests/data/extract31/facts.toml, SOURCES.md), scored by scripts/extract30_score.py --folder tests/data/extract31.

As for extract30: the annotation parses, every paste is annotated and every annotation has its paste, and the scorer
runs on the folder. No per-fact result is asserted here: a reading change is judged by the score table, not fitted to
these pastes (SOURCES.md holds the table on main)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import tomllib

DATA = Path(__file__).parent / "data" / "extract31"
_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "extract30_score.py"
_spec = importlib.util.spec_from_file_location("extract30_score", _SCRIPT)
score = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("extract30_score", score)  # (its dataclass looks its module up while it is built)
_spec.loader.exec_module(score)

TRUTH = tomllib.loads((DATA / "facts.toml").read_text())["paste"]
KEYS = ("url", "model", "gpu", "gpus", "tp", "engine", "dtype", "batch", "figures", "reference")


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_annotation_parses(name):
    """Each paste has every fact the scorer reads, in its type, and each figure a value or range and a meaning."""
    t = TRUTH[name]
    assert all(k in t for k in KEYS), set(KEYS) - set(t)
    assert t["url"].startswith("https://github.com/")
    for kind in ("model", "gpu", "engine", "dtype"):
        assert isinstance(t[kind], list)
    for kind in ("gpus", "tp", "batch"):
        assert isinstance(t[kind], int) and t[kind] >= 0
    for fig in t["figures"]:
        assert ("value" in fig) != ("range" in fig), fig
        assert fig["metrics"] and fig["unit"] and fig["meaning"], fig


def test_every_paste_is_annotated():
    """The folder's pastes and the annotation's entries are the same set."""
    assert {p.stem for p in DATA.glob("*.md")} - {"SOURCES"} == set(TRUTH)


def test_annotation_keys_name_catalog_rows():
    """Model and GPU keys are rows of the catalog the rules read (a typo would score every reading wrong)."""
    catalog = Path(__file__).resolve().parent.parent / "rules" / "catalog"
    models = tomllib.loads((catalog / "models.toml").read_text())["model"]
    gpus = tomllib.loads((catalog / "gpus.toml").read_text())["gpu"]
    engines = tomllib.loads((catalog / "engines.toml").read_text())["engine"]
    for name, t in TRUTH.items():
        assert set(t["model"]) <= set(models), name
        assert set(t["gpu"]) <= set(gpus), name
        assert set(t["engine"]) <= set(engines), name


def test_scorer_runs_on_the_folder(capsys):
    """The scorer reads every paste of the folder and prints one row per fact type."""
    assert score.main(["--folder", "tests/data/extract31"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line]
    assert [r.split("|")[1].strip() for r in rows[1:]] == list(score.KINDS)


@pytest.mark.parametrize("fig,got,held", [
    ({"value": 267.98, "unit": "s"}, 267980.0, True),        # "costs 267.98s" held in ms
    ({"value": 267.98, "unit": "s"}, 267.98, True),          # or as written
    ({"value": 2, "unit": "hr"}, 7.2e6, True),               # "> 2 hr"
    ({"range": [10, 15], "unit": "seconds"}, 12500.0, True),  # "10-15 seconds" held as its middle in ms
    ({"value": 30, "unit": "ms"}, 30000.0, False),           # a figure in ms is not scaled
    ({"value": 7, "unit": "s"}, 7.2, False),
])
def test_time_units(fig, got, held):
    """A latency annotated in seconds, minutes or hours is found where the reader holds it in ms."""
    assert score._holds(fig, got) == held
