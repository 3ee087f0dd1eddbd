"""Precision review of two broad readings session 27 merged from ut27b and ut27d (issue 11, review33), each tried on
real lines of threads none of them was written from (tests/data/review33/<reading>.toml, URLs in SOURCES.md):
near-misses that look alike but must not be read that way. `xfail`: why a case still fails (strict); `mended`: what
it read before this review.

- sentence: ut27d's issue_md._sentence, a line without its final full stop read as the reporter's sentence;
- quoted_prose: ut27b's issue_md._quoted_prose, a "> " line read as another's words;
- sharded_layout: ut27b's "cannot be sharded across", a layout and not a failure (claims.symptom);
- total_throughput: ut27b's "total token throughput", prompt and output tokens together (issue_md.parse)."""

from pathlib import Path

import pytest
import tomllib
from conftest import said, threads_reused, toml_cases

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement
from rules import claims

DATA = Path(__file__).parent / "data" / "review33"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "sentence"))
def test_a_printed_line_is_not_the_reporters_sentence(case):
    assert issue_md._sentence(case["text"]) is case["sentence"]


@pytest.mark.parametrize("case", toml_cases(DATA, "quoted_prose"))
def test_a_blockquote_is_anothers_prose_only_when_it_is_prose(case):
    assert issue_md._quoted_prose(case["text"]) is case["quoted"]


@pytest.mark.parametrize("case", toml_cases(DATA, "sharded_layout"))
def test_words_on_how_a_model_is_sharded_are_no_failure(case):
    assert (claims.symptom(said(case["text"])) == "error") is case["failure"]


@pytest.mark.parametrize("case", toml_cases(DATA, "total_throughput"))
def test_total_token_throughput_is_prompt_and_output_together(case):
    got = [(m.metric, m.value) for m in issue_md.parse(case["text"], "issue.md") if isinstance(m, Measurement)]
    assert [v for k, v in got if k == "total_tok_s"] == case["total"]
    assert [v for k, v in got if k == "output_tok_s"] == case["output"]
    assert not any(k == "decode_tok_s" for k, _ in got)


# Readings for which this review found no untaken real positive (SOURCES.md says so).
LEFT = {"sentence", "quoted_prose", "sharded_layout", "total_throughput"}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    sources = (DATA / "SOURCES.md").read_text()
    near = {"sentence": lambda c: not c["sentence"], "quoted_prose": lambda c: not c["quoted"],
            "sharded_layout": lambda c: c["failure"], "total_throughput": lambda c: not c["total"]}
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        assert any(near[name](c) for c in family["case"]) or name in LEFT, name
        assert any(not near[name](c) for c in family["case"]) or name in LEFT, name


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (ut27b, ut27d) nor of the review before (review31b)."""
    assert threads_reused(FAMILIES, ("ut27b", "ut27d", "review31b")) == []
