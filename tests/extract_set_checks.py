"""The checks every hand-annotated fact-extraction set (tests/data/extract31, extract32, ...) passes, shared by their
test modules (not a test module): the annotation parses, pastes and annotations are the same set, the keys name
catalog rows, and scripts/extract30_score.py runs on the folder. No per-fact result is checked: a set is judged by
the scorer's table, not fitted to."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
_SCRIPT = REPO / "scripts" / "extract30_score.py"
_spec = importlib.util.spec_from_file_location("extract30_score", _SCRIPT)
score = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("extract30_score", score)  # (its dataclass looks its module up while it is built)
_spec.loader.exec_module(score)

KEYS = ("url", "model", "gpu", "gpus", "tp", "engine", "dtype", "batch", "figures", "reference")


def annotation_parses(name: str, t: dict) -> None:
    """A paste has every fact the scorer reads, in its type, and each figure a value or range and a meaning."""
    assert all(k in t for k in KEYS), (name, set(KEYS) - set(t))
    assert t["url"].startswith("https://github.com/"), name
    for kind in ("model", "gpu", "engine", "dtype"):
        assert isinstance(t[kind], list), (name, kind)
    for kind in ("gpus", "tp", "batch"):
        assert isinstance(t[kind], int) and t[kind] >= 0, (name, kind)
    for fig in t["figures"]:
        assert ("value" in fig) != ("range" in fig), (name, fig)
        assert fig["metrics"] and fig["unit"] and fig["meaning"], (name, fig)


def keys_name_catalog_rows(truth: dict) -> None:
    """Model, GPU and engine keys are rows of the catalog the rules read (a typo would score every reading wrong)."""
    catalog = REPO / "rules" / "catalog"
    models = tomllib.loads((catalog / "models.toml").read_text())["model"]
    gpus = tomllib.loads((catalog / "gpus.toml").read_text())["gpu"]
    engines = tomllib.loads((catalog / "engines.toml").read_text())["engine"]
    for name, t in truth.items():
        assert set(t["model"]) <= set(models), name
        assert set(t["gpu"]) <= set(gpus), name
        assert set(t["engine"]) <= set(engines), name


def check_set(folder: str, capsys) -> None:
    """All of a set's checks: each annotation parses, the folder's pastes and the annotation's entries are the same
    set, the keys name catalog rows, and the scorer reads every paste and prints one row per fact type."""
    data = REPO / folder
    truth = tomllib.loads((data / "facts.toml").read_text())["paste"]
    for name, t in truth.items():
        annotation_parses(name, t)
    assert {p.stem for p in data.glob("*.md")} - {"SOURCES"} == set(truth)
    keys_name_catalog_rows(truth)
    assert score.main(["--folder", folder]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line]
    assert [r.split("|")[1].strip() for r in rows[1:]] == list(score.KINDS)
