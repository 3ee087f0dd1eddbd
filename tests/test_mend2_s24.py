"""Mends of the ticket's table reader (issue 11, session 24, mend2): a results table that names its runs' GPUs by
count and product, in its header ("| | 1× 3090 | your 2× 3090, TP=2 |") or in a column of cells ("2x RTX 3090 NVLink
(TP=2)", "4x RTX 4090 (data parallel)"), is read as GPU counts side by side, with the layout a cell writes; tables
that only look alike (one product per column, products summed, spec arithmetic, sizing by model) stay unread.

Real pastes in tests/data/mend2_s24/*.md, each with its URL in SOURCES.md there."""

import sys
from pathlib import Path

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Note

sys.path.insert(0, str(Path(__file__).parent))
from test_u11o_peer_copy_and_fit import issue, judged  # noqa: E402

DATA = Path(__file__).parent / "data" / "mend2_s24"


def _rows(name: str) -> list[dict]:
    facts = issue((DATA / name).read_text())
    tables = [n for n in facts.of(Note) if n.kind == "results_table"]
    return [r for n in tables for r in n.data["rows"]]


def test_every_paste_names_its_source():
    sources = (DATA / "SOURCES.md").read_text()
    for path in sorted(DATA.glob("*.md")):
        if path.name != "SOURCES.md":
            assert f"`{path.name}`" in sources, path.name


# --------------------------------------------------------------------------- cells, one at a time

@pytest.mark.parametrize("cell, read", [
    # syv-ai/qwen38-27b-rtx3090#135's columns, #164's cards column
    ("1× 3090", (1, "3090", {})),
    ("your 2× 3090, TP=2", (2, "3090", {"tp": 2})),
    ("1x RTX 3090 (reference)", (1, "3090", {})),
    ("2x RTX 3090 NVLink (TP=2)", (2, "3090", {"tp": 2})),
    # avivorly/vllm-passk-server: one copy per GPU against one model over four
    ("4x RTX 4090 (data parallel)", (4, "4090", {"tp": 1, "replicas": 4})),
    ("4x RTX 4090 (tensor parallel)", (4, "4090", {"tp": 4, "replicas": 1})),
    # dahlianadkarni/ai_inference_img_similarity: a note after the product
    ("4x RTX 4080 (Step 6B)", (4, "4080", {})),
    # near-misses: a product without a count (syv-ai#32), spec arithmetic and a product summed (thinksmart.life)
    ("your 3090 @ 250 W", None),
    ("our 4090 @ 450 W", None),
    ("4× 936 = 3,744 GB/s", None),
    ("2× 82.6 = 165", None),
    ("C1 decode, greedy", None),
])
def test_a_cell_gives_its_count_product_and_layout(cell, read):
    assert issue_md.count_cell(cell) == read


# --------------------------------------------------------------------------- whole tables

def test_columns_headed_by_count_and_product_are_a_gpu_series():
    """#135: one 3090 against two at TP=2, 46 against 60.1 tok/s for one stream; the batch row writes two figures
    per cell ("~1,035 decode / 948 e2e") and is left unread."""
    rows = _rows("syv135.md")
    assert [(r["gpus"], r["value"], r["kind"], r.get("tp")) for r in rows] == [(1, 46.0, "rate", None),
                                                                              (2, 60.1, "rate", 2)]


def test_a_cards_column_of_counts_is_a_gpu_series_labelled_by_its_product():
    """#164: the unit is in the cell ("~1,035 tok/s", "**1,439 tok/s**"), the header only says "C64 decode"; the
    power column ("250 W") is no figure."""
    rows = _rows("syv164.md")
    assert [(r["label"], r["gpus"], r["value"], r["column"], r.get("tp")) for r in rows] == [
        ("3090", 1, 1035.0, "C64 decode", None), ("3090", 2, 1439.0, "C64 decode", 2)]


def test_replicas_and_one_sharded_model_on_the_same_gpus_are_read_as_such():
    from rules.ticket_questions import _replicas_win_in_table

    rows = _rows("passk_dp_tp.md")
    assert [(r["gpus"], r["value"], r.get("tp"), r.get("replicas")) for r in rows] == [
        (1, 5100.0, None, None), (4, 19300.0, 1, 4), (4, 2000.0, 4, 1)]
    found = _replicas_win_in_table(issue((DATA / "passk_dp_tp.md").read_text()))
    assert [c.kind for c in found] == ["replicas_beat_sharding"]
    assert "on the same 4 GPUs" in found[0].quote


def test_a_scaling_table_in_latencies_reaches_the_comparison_rule():
    """Four RTX 4080 against one: per-request latency up from 274.4 to 416 ms, read in ms from the cells; nothing in
    the table points at a fault, so the set is judged as physics (before: insufficient_data, no figure read)."""
    rows = _rows("img_4080.md")
    assert {(r["gpus"], r["value"], r["kind"]) for r in rows} >= {(1, 274.4, "ms"), (4, 416.0, "ms")}
    verdict, rules = judged(issue((DATA / "img_4080.md").read_text()))
    assert "ticket.comparison_set" in rules and verdict.category == "expected_physics"


@pytest.mark.parametrize("name", ["near_syv32.md", "near_thinksmart.md"])
def test_tables_that_only_look_alike_are_not_gpu_series(name):
    assert _rows(name) == []


# --------------------------------------------------------------------------- 2. a release against a bare one

def _release_cases():
    import tomllib

    return tomllib.loads((DATA / "release_than.toml").read_text())["case"]


@pytest.mark.parametrize("case", _release_cases(), ids=lambda c: c["url"].rsplit("/", 3)[-3] + "-" + c["url"][-5:])
def test_a_release_set_against_a_bare_one_is_a_release_change(case):
    from rules import claims

    found = [c for c in claims.claims(issue(case["text"])) if c.kind == "engine_versions_compared"
             and not (c.guess or c.negated)]
    assert bool(found) == case["fact"], (case["text"], found)
