"""NCCL's catalog files (nccl_regressions, nccl_settings, nccl_support) load through rules/catalog.py like the
others: a row a user adds is read, and a row missing a field or with a malformed one is one InputError naming the file
and the row, not a KeyError inside a rule."""

import shutil

import pytest

from diagnose.errors import InputError
from rules import catalog, nccl

SETTING = '''
[[setting]]
name = "NCCL_USER_ADDED"
values = ["1"]
category = "{category}"
severity = "info"
why = "w"
fix = "f"
'''

REGRESSION = '''
[[regression]]
id = "user-added"
bad = "{bad}"
good = "2.18"
scope = "any"
symptom = "s"
fix = "f"
url = "https://example.org"
'''


@pytest.fixture
def own_catalog(tmp_path, monkeypatch):
    """A copy of the bundled catalog folder the loader reads instead, its cache cleared before and after."""
    shutil.copytree(catalog.CATALOG_DIR, tmp_path / "catalog")
    monkeypatch.setattr(catalog, "CATALOG_DIR", tmp_path / "catalog")
    catalog.nccl_rows.cache_clear()
    yield tmp_path / "catalog"
    catalog.nccl_rows.cache_clear()


def test_the_bundled_rows_load_for_the_rules():
    assert {r["id"] for r in nccl.regressions()} >= {"ring-pxn-internode", "cumem-alltoall-connect-hang"}
    assert "NCCL_NET_GDR_LEVEL" in {r["name"] for r in nccl.slow_settings()}
    assert nccl.arch_floor(9.0)["min_nccl"] == "2.15.1"
    assert catalog.nccl_line()["oldest_major"] == 2


def test_a_row_a_user_adds_is_read(own_catalog):
    with open(own_catalog / "nccl_settings.toml", "a") as fh:
        fh.write(SETTING.format(category="other"))
    assert nccl.slow_settings()[-1]["name"] == "NCCL_USER_ADDED"


@pytest.mark.parametrize("file, text, message", [
    ("nccl_settings.toml", SETTING.format(category="slow"), "category one of comm_bound"),
    ("nccl_settings.toml", SETTING.format(category="other").replace('values = ["1"]\n', ""), "needs values"),
    ("nccl_settings.toml", SETTING.format(category="other").replace('why = "w"\n', ""), "missing field 'why'"),
    ("nccl_regressions.toml", REGRESSION.format(bad="2.19 to 2.20"), "version bounds"),
    ("nccl_regressions.toml", REGRESSION.format(bad=">=2.19,<2.20").replace('url = "https://example.org"\n', ""),
     "missing field 'url'"),
    ("nccl_support.toml", '[[arch]]\ncompute_capability = "9.0"\nmin_nccl = "2.15.1"\ngpus = "g"\nsource = "s"\n',
     "compute_capability is a number"),
])
def test_a_malformed_row_is_one_error_naming_file_and_row(own_catalog, file, text, message):
    with open(own_catalog / file, "a") as fh:
        fh.write(text)
    table = {"nccl_settings.toml": "setting", "nccl_regressions.toml": "regression", "nccl_support.toml": "arch"}[file]
    with pytest.raises(InputError, match=message) as caught:
        catalog.nccl_rows(table)
    assert file in str(caught.value) and f"[[{table}]] #" in str(caught.value)
