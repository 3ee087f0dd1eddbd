"""quality33: small correctness checks of this session's helpers and catalog loaders, on real-shaped inputs."""

from __future__ import annotations

import shutil

import pytest

from diagnose.artifacts import figures
from diagnose.errors import InputError
from rules import catalog, claims


def at(text: str, figure: str) -> bool:
    return figures.computed(text, text.index(figure))


def test_arithmetic_that_holds_is_computed_and_a_model_number_is_not():
    assert at("4 streams * 12 tok/s = 48 tok/s in total", "48 tok/s")
    assert at("1/96 sec/tok = 0.0104 sec/tok", "0.0104")
    assert not at("vLLM on 2 x 4090 = 30 tok/s", "30 tok/s")


def test_a_zero_operand_holds_only_for_a_zero_result():
    # a quotient by zero equals nothing, and a product of zero is zero: neither makes a measured 30 tok/s arithmetic
    assert not at("run 5 / 0 = 30 tok/s", "30 tok/s")
    assert not at("run 0 x 4 = 30 tok/s", "30 tok/s")
    assert at("0 x 4 = 0 tok/s", "0 tok/s")


# --- catalog loaders: a bad row of a field added this session is one InputError naming the row

BAD_BEHAVIOUR = '''
[[behaviour]]
key = "bad_row"
sees = "x"
title = "t"
why = "w"
fix = "f"
url = "https://example.org"
{field}
'''

BAD_NOTICE = '''
[[notice]]
id = "bad_notice"
engine = "vLLM"
versions = "all"
pattern = "x"
meaning = "m"
category = "{category}"
strength = "{strength}"
sources = ["https://example.org"]
'''


@pytest.fixture
def own_catalog(tmp_path, monkeypatch):
    """A copy of the bundled catalog folder the loaders read instead, their caches cleared before and after."""
    shutil.copytree(catalog.CATALOG_DIR, tmp_path / "catalog")
    monkeypatch.setattr(catalog, "CATALOG_DIR", tmp_path / "catalog")
    catalog.documented_behaviours.cache_clear()
    catalog.engine_notices.cache_clear()
    yield tmp_path / "catalog"
    catalog.documented_behaviours.cache_clear()
    catalog.engine_notices.cache_clear()


@pytest.mark.parametrize("field", ["amounts_within = 1.5", "amounts_within = 0", 'amounts_within = "0.85"',
                                   'unless_gpu = "persistence"', 'explains = "net_socket"'])
def test_a_bad_behaviour_row_is_one_clear_error(own_catalog, field):
    with open(own_catalog / "by_design.toml", "a") as fh:
        fh.write(BAD_BEHAVIOUR.format(field=field))
    with pytest.raises(InputError, match="bad_row"):
        catalog.documented_behaviours()


@pytest.mark.parametrize("strength, category", [("context", "eager_mode"), ("harmless", "other")])
def test_a_notice_row_names_a_category_its_strength_allows(own_catalog, strength, category):
    with open(own_catalog / "engine_notices.toml", "a") as fh:
        fh.write(BAD_NOTICE.format(strength=strength, category=category))
    with pytest.raises(InputError, match=f"a {strength} row's category"):
        catalog.engine_notices()


def test_the_bundled_rows_load_and_explain_fault_families():
    # a family a row explains that is no fault family would excuse nothing (rules.ticket_questions.fault_context)
    for row in catalog.documented_behaviours():
        assert set(row.get("explains", [])) <= set(claims.FAULT_FAMILIES), row["key"]
    assert catalog.engine_notices()
