"""Model names tickets use that the catalog did not read (issue 11, s25 models25).

tests/data/models25/names.toml: real names copied from ticket texts and repository pages, each with the catalog row it
must read as (its shape from the model's own config.json), and real near-misses that must stay unknown: another size
of a line, an unrelated model sharing a size word, a LoRA adapter, a tokenizer repository, a container image.
"""

import json
from pathlib import Path

import pytest
import tomllib
from conftest import diagnose

from rules import catalog
from rules.subject import model_named

DATA = tomllib.loads((Path(__file__).parent / "data" / "models25" / "names.toml").read_text())


@pytest.mark.parametrize("row", DATA["name"], ids=[r["text"] for r in DATA["name"]])
def test_real_names_read_as_their_rows(row):
    assert model_named(row["text"]).key == row["expect"], row["where"]


@pytest.mark.parametrize("row", DATA["near_miss"], ids=[r["text"] for r in DATA["near_miss"]])
def test_near_misses_stay_unknown(row):
    with pytest.raises(catalog.UnknownName):
        model_named(row["text"])


def test_a_sizes_decimal_point_is_part_of_the_name():
    """'OPT-1.3B' and 'OPT-13B' are two models: the catalog's name comparison keeps a size's decimal point while it
    still takes a release's ('Llama 3.1' is 'llama-31')."""
    assert catalog.find_model("opt-1.3b").key == "opt-1.3b"
    assert catalog.find_model("facebook/opt-13b") is None
    assert catalog.find_model("llama-31-8b").key == "llama-3-8b"
    assert catalog.find_model("qwen2.5:1.5b").key == "qwen2.5-1.5b"


def test_the_hybrid_giant_is_its_own_shape():
    """Qwen3.5-397B-A17B: 512 experts with 10 routed, 15 of 60 layers full attention; not the 35B-A3B's shape."""
    m = model_named("Qwen/Qwen3.5-397B-A17B")
    assert (m.experts, m.experts_active, m.layers, m.full_attention_every) == (512, 10, 60, 4)
    assert m.params() / 1e9 == pytest.approx(397, rel=0.01)


def test_a_ticket_naming_a_new_model_gets_an_expected_figure(tmp_path):
    """A ticket naming one of the added models is judged against that model's expected decode rate, not left
    without one (before this change: 'unknown model' and no expected figure)."""
    (tmp_path / "issue.md").write_text("# slow\n\nMiniMaxAI/MiniMax-M2 on 8x H100 SXM, vLLM, TP8, one user: "
                                       "2 tok/s decode. Is that normal?\n")
    report = json.loads(diagnose("ticket", str(tmp_path / "issue.md"), "--json", "--fail-on", "never").stdout)
    (found,) = [f for f in report["findings"] if f["rule"] == "ticket.measured_vs_expected"]
    assert "2 tok/s" in found["title"] and "expected" in found["title"]
    assert report["verdict"]["category"] != "insufficient_data"
