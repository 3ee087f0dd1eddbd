"""Precision review of session 24's readings of the reporter's words (issue 11): each reading tried on real sentences of
threads none of them was written from, kept in tests/data/review_s24/<reading>.toml with their URLs (SOURCES.md).

A case gives `fact`s the sentence alone must give, or `not`s a near-miss must not give; `xfail` the reason a case
still fails (strict). Facts: those of tests/test_paraphrases_24 (claim=<kind>, release_change, finding=<rule>,
verdict=<category>), plus offload (claims.partial_offload, affirmed), error=<catalog id> (claims.known_errors) and
driver_good=<release> (claims.driver_change: the release the text says works) and the ticket's figures and counts
(gpus=<n>, tp=<n>, ..., as tests/test_paraphrases_21 writes them)."""

from pathlib import Path

import pytest
import tomllib
from conftest import said
from test_paraphrases_21 import _facts_said, assert_case_read, family_cases
from test_paraphrases_24 import _said

from rules import claims

DATA = Path(__file__).parent / "data" / "review_s24"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _read(text: str) -> set[str]:
    """What the ticket path and the readers under review give the text."""
    body = text.split("\n\n", 1)[-1]  # the sentence, less the title assert_case_read puts above it
    facts = said(body)
    out = _said(text) | _facts_said(text)
    out |= {"offload" for c in claims.partial_offload(facts) if not (c.negated or c.guess)}
    out |= {f"error={c.data['error'].id}" for c in claims.known_errors(facts)}
    change = claims.driver_change(body)
    if change and change["good"]:
        out.add(f"driver_good={change['good']}")
    return out


@pytest.mark.parametrize("case", family_cases(FAMILIES))
def test_a_real_sentence_of_another_thread_gives_its_facts(case):
    assert_case_read(case, _read)


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") for c in family["case"]), name
        assert all(("fact" in c) != ("not" in c) for c in family["case"]), name
        assert sum("not" in c and not c.get("xfail") for c in family["case"]) >= 3, name
    # a reading with real positives found in unused threads keeps at least two of them
    for name in ("driver_release_prose", "accelerate_offload", "cuda_ipc_failed", "release_compare_words"):
        assert sum("fact" in c for c in FAMILIES[name]["case"]) >= 2, name


def test_no_thread_is_one_of_todays_sources():
    """The review's threads are none the readings were written from (tests/data/mend_s24, ut24, paraphrases_24)."""
    root = Path(__file__).parent / "data"
    used = "".join((root / d / "SOURCES.md").read_text() + "".join(p.read_text() for p in (root / d).glob("*.toml"))
                   for d in ("mend_s24", "ut24", "paraphrases_24"))
    for name, family in FAMILIES.items():
        for case in family["case"]:
            url = case["url"]
            assert not any(url + end in used for end in (" ", "\n", ")", ",", '"', ";", "'")), (name, url)
