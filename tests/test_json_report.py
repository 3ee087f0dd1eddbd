"""The --json layout: the same document json.dumps(indent=2) gives, with each row on one line."""

import json
import math

import pytest
from conftest import shared_path

from diagnose.capture.summaries import SUMMARIES
from diagnose.capture_report import build
from diagnose.evidence import jsonable
from diagnose.report.json_report import render_json


@pytest.fixture(scope="module")
def stats_report():
    return build([str(shared_path("captures", "nsysai_h100x2_fastvideo_train_before.sqlite"))], full_stats=True)


def test_the_layout_holds_the_same_document_as_indent_2(stats_report):
    text = render_json(stats_report)
    assert json.loads(text) == json.loads(json.dumps(stats_report.to_dict(), indent=2))
    assert text.startswith('{\n  "schema": "diagnose.report/1",\n')


def test_each_summary_row_and_table_row_sits_on_one_line(stats_report):
    lines = render_json(stats_report).splitlines()
    doc = stats_report.to_dict()
    (file, per_file), = doc["facts"]["summaries"].items()
    kernels = per_file["kernels"]
    assert len(kernels) > 20
    first = json.dumps(kernels[0], ensure_ascii=False, separators=(", ", ": "))
    assert sum(line.strip().rstrip(",") == first for line in lines) == 1
    table = doc["tables"][f"{SUMMARIES['kernels'][0]} [{file}]"]
    row = json.dumps(table["rows"][-1], ensure_ascii=False, separators=(", ", ": "))
    assert any(line.strip().rstrip(",") == row for line in lines)


def test_floats_json_cannot_hold_become_null_and_tuples_lists():
    assert jsonable({"a": math.nan, 1: (math.inf, -math.inf, 2.5), "b": [True, None, "x"]}) == {
        "a": None, "1": [None, None, 2.5], "b": [True, None, "x"]}


def test_plain_items_of_containers_pass_and_the_rest_is_made_plain_at_any_depth():
    """Items taken without a call of their own (str, int, bool, None) stay as they are; a numpy
    scalar, a set, a tuple and a non-finite float inside rows are still made plain."""
    import numpy as np

    rows = [{"name": "k", "count": 3, "ok": True, "med": None, "avg": math.nan, "n": np.int64(7),
             "ids": {2}, "dims": (1, np.float64(math.inf))}]
    out = jsonable({"summaries": {"f": {"kernels": rows}}})
    (row,) = out["summaries"]["f"]["kernels"]
    assert row == {"name": "k", "count": 3, "ok": True, "med": None, "avg": None, "n": 7, "ids": [2], "dims": [1, None]}
    assert type(row["n"]) is int and json.loads(json.dumps(out)) == out
