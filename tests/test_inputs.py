"""The input door: kinds, sizes and nesting are refused before any parser sees them."""

import os

import pytest

from diagnose.errors import InputError
from diagnose.inputs import check_path, finite_number, load_json, parse_json, parse_toml, read_text


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "capture.sqlite"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):
        check_path(fifo, "capture")


def test_proc_and_folders_and_missing_files_are_named(tmp_path):
    with pytest.raises(InputError, match="pseudo-file"):
        read_text("/proc/self/status", "text")
    with pytest.raises(InputError, match="is a folder"):
        check_path(tmp_path, "json")
    with pytest.raises(InputError, match="no such file"):
        check_path(tmp_path / "absent.json", "json")
    assert check_path(tmp_path, "ticket", folder=True) == tmp_path


def test_symlink_loop_is_bad_input(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(InputError, match="cannot be opened"):
        check_path(tmp_path / "a", "text")


def test_deep_nesting_is_refused_before_the_parser_recurses():
    with pytest.raises(InputError, match="nested more than"):
        parse_json("[" * 100000 + "]" * 100000, "deep.json")
    with pytest.raises(InputError, match="nested more than"):
        parse_toml("a = " + "[" * 5000 + "]" * 5000, "deep.toml")
    # brackets inside strings are text, not nesting
    assert parse_json('{"name": "' + "[" * 500 + '"}', "ok.json") == {"name": "[" * 500}


def test_nan_literals_only_where_allowed(tmp_path):
    with pytest.raises(InputError, match="NaN"):
        parse_json('{"itl_ms": NaN}', "t.json")
    assert parse_json('{"x": NaN}', "r.json", allow_nan=True)["x"] != 0


def test_not_utf8_is_bad_input(tmp_path):
    path = tmp_path / "catalog.toml"
    path.write_bytes("name = 'caf\xe9'".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        load_json(path, "catalog")


def test_finite_number_names_the_field():
    assert finite_number(2.5, "itl_ms", positive=True) == 2.5
    for bad, words in [(float("nan"), "finite"), (10**400, "too large"), (-10, "positive"),
                       (True, "number"), ("8", "number")]:
        with pytest.raises(InputError, match="itl_ms") as err:
            finite_number(bad, "itl_ms", positive=True)
        assert words in str(err.value)
