"""Precision review of four readings session 28 merged from mend42 and left28b (issue 11, review41), each tried on
real lines of threads neither was written from (tests/data/review41/<reading>.toml, URLs in SOURCES.md): near-misses
that look alike but must not be read that way beside positives. `xfail`: why a case still fails (strict); `mended`:
what it read before this review.

- error_elsewhere: mend42's claims.error_elsewhere, an error that names its own cause away from the link between GPUs
  (it sets aside the WSL 2 reading in topology._virtual_symptoms);
- sentences: left28b's 。 ending a sentence with no space after it (claims.sentences);
- counts: left28b's 双/两 glued to a board after a Chinese word (issue_md.GPU_COUNT);
- oom: left28b's "OOMs" as out of memory (claims.out_of_memory)."""

from pathlib import Path

import pytest
import tomllib
from conftest import said, toml_cases

from diagnose.artifacts import issue_md
from rules import claims

DATA = Path(__file__).parent / "data" / "review41"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "error_elsewhere"))
def test_an_error_with_its_own_cause_is_not_one_of_the_path_between_gpus(case):
    assert (claims.error_elsewhere(said(case["text"])) is not None) is case["elsewhere"]


@pytest.mark.parametrize("case", toml_cases(DATA, "sentences"))
def test_a_full_width_stop_ends_a_sentence(case):
    assert claims.sentences(case["text"]) == case["sentences"]


@pytest.mark.parametrize("case", toml_cases(DATA, "counts"))
def test_chinese_counts_glued_to_a_board(case):
    got = [[w.gpu or "", w.gpu_count or 0] for w in issue_md.parse("# 多卡推理\n\n" + case["text"] + "\n", "t.md")
           if type(w).__name__ == "Workload" and (w.gpu or w.gpu_count)]
    assert got == case["counts"]


@pytest.mark.parametrize("case", toml_cases(DATA, "oom"))
def test_ooms_is_out_of_memory_only_where_it_happened(case):
    assert claims.out_of_memory(said(case["text"])) is case["oom"]


# Readings for which this review found no real near-miss in an untaken thread (SOURCES.md says so).
LEFT = {"sentences"}


def test_every_case_names_its_thread_and_each_reading_has_both_sides():
    sources = (DATA / "SOURCES.md").read_text()
    near = {"error_elsewhere": lambda c: not c["elsewhere"], "sentences": lambda c: len(c["sentences"]) < 2,
            "counts": lambda c: not any(n > 1 for _, n in c["counts"]) or "CPU" in c["text"],
            "oom": lambda c: not c["oom"]}
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        assert any(near[name](c) for c in family["case"]) or name in LEFT, name
        assert any(not near[name](c) for c in family["case"]), name
