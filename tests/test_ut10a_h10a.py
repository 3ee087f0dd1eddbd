"""The user tester's report ut10a: each test runs the tester's own ticket (tests/data/ut10a, pasted from public
threads; SOURCES.md), or an edit of it written here, through the command the tester ran."""

import shutil
from pathlib import Path

from conftest import report_json

DATA = Path(__file__).parent / "data" / "ut10a"


def _folder(tmp_path, *names, text=None):
    """A ticket folder holding the named files of tests/data/ut10a (an .md as issue.md), or `text` as issue.md."""
    folder = tmp_path / "ticket"
    folder.mkdir()
    for name in names:
        shutil.copy(DATA / name, folder / ("issue.md" if name.endswith(".md") else name))
    if text is not None:
        (folder / "issue.md").write_text(text)
    return folder


def _scaling_rows(folder, *args):
    report = report_json("scaling", folder, *args)
    return report, report["predictions"]["scaling"]["rows"]


# --------------------------------------------------------------------------- defect 2: a result with no rate line
def test_a_result_block_that_prints_no_request_rate_has_its_batch_derived_not_one(tmp_path):
    """vLLM#7567's benchmark_serving.py block (1000 requests, 8.50 req/s, mean TPOT 131.61 ms) prints no
    'Traffic request rate' line, as the script did before mid-2024: its batch is derived by Little's law as
    it is with the line (199, the tester's vllm7567-rate), never read as batch 1 (x7.84 slower)."""
    _, rows = _scaling_rows(_folder(tmp_path, "vllm7567.md"))
    (row,) = [r for r in rows if r["step_source"] and r["step_source"].endswith(":14")]
    assert row["batch"] == 199 and row["batch_how"].startswith("derived")
    assert 4 < row["ratio"] < 4.6


def test_a_result_block_with_neither_rate_nor_request_throughput_is_not_judged(tmp_path):
    """The same block less its request throughput: the batch cannot be derived, so the run is '?', not batch 1."""
    text = "\n".join(ln for ln in (DATA / "vllm7567.md").read_text().splitlines()
                     if not ln.startswith(("Request throughput", "Update:")))
    report, rows = _scaling_rows(_folder(tmp_path, text=text))
    table = next(t for k, t in report["tables"].items() if k.startswith("Scaling"))
    assert [row[table["columns"].index("batch")] for row in table["rows"]] == ["?"]
    assert [(r["status"], r["ratio"]) for r in rows] == [("batch unknown", None)]
    assert report["verdict"]["category"] == "insufficient_data"
