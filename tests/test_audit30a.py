"""Issue 11 (audit30a): the largest gap among 50 real pastes the tool answered insufficient_data was a slowdown between
two builds of the software said without two releases it could read (tests/data/audit30a/AUDIT.md). Two readings close
part of it: two commits set against each other in their own sentences, one said to work (claims.commits_compared ->
ticket.engine_versions, other), and an earlier build named only as "the previous version / builds" or a regression told
by its size (claims "update_slower" -> the two releases asked first, rules.engine.UPDATE_ASK). Real sentences from other
threads in tests/data/audit30a/<reading>.toml (URLs in SOURCES.md)."""

from pathlib import Path

import pytest
import tomllib
from conftest import case_facts, finding, reading_gaps, report_json, threads_reused, toml_cases

from rules import claims
from rules.engine import UPDATE_ASK

DATA = Path(__file__).parent / "data" / "audit30a"
PASTES = Path(__file__).parent / "data"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "earlier_build"))
def test_a_slowdown_against_the_previous_build_is_read(case):
    read = [c for c in claims.find(case_facts(case), "update_slower") if not c.guess and not c.negated]
    assert bool(read) is case["slowdown"]


@pytest.mark.parametrize("case", toml_cases(DATA, "commits_compared"))
def test_two_commits_one_that_works_are_a_code_change_pair(case):
    pairs = [c for c in claims.find(case_facts(case), "engine_versions_compared")
             if c.data["kind"] == "commit" and c.data.get("good")]
    assert bool(pairs) is case["pair"]


def test_public_textgen_1220_two_commits_are_the_apps_regression():
    """https://github.com/oobabooga/textgen/issues/1220: "Commit 5744b31... is fine (~10 tok/s). Commit f2bf1a2... and
    later is 10x slower". Before: insufficient_data (asking for the launch line); now other, the code between them."""
    report = report_json("ticket", str(PASTES / "ut12x" / "textgen1220.md"))
    assert report["verdict"]["category"] == "other"
    lead = finding(report, "ticket.engine_versions")
    assert lead is not None and lead["severity"] == "warning"
    assert "f2bf1a2" in lead["title"] and "works at Commit 5744b31" in lead["title"]
    assert "5744b31" in lead["fix"]  # run the build that works


@pytest.mark.parametrize("paste", ["ut14/sglang7212.md", "ut14/sglang14665.md"])
def test_public_sglang_regressions_without_releases_ask_for_the_two_releases(paste):
    """https://github.com/sgl-project/sglang/issues/7212 ("In the previous version ... 75.15 ... was approximately
    160") and #14665 ("has regressed by 14.23%"): no release is named, so no verdict; the first thing asked is now the
    two releases with the same benchmark on each (was `nvidia-smi -L`, and the model's config.json)."""
    verdict = report_json("ticket", str(PASTES / paste))["verdict"]
    assert verdict["category"] == "insufficient_data"
    assert verdict["summary"].startswith("Not enough evidence to decide. Next: attach " + UPDATE_ASK)


NEAR = {"earlier_build": lambda c: not c["slowdown"], "commits_compared": lambda c: not c["pair"]}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    assert reading_gaps(DATA, FAMILIES, NEAR) == []


def test_no_thread_is_one_of_the_audited_pastes():
    """The readings were written from the audited pastes; their tests use other threads."""
    assert threads_reused(FAMILIES, ("ut12x", "ut14")) == []
