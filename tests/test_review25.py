"""Precision review of session 25's readings of the reporter's words (issue 11): each reading tried on real sentences
of threads none of them was written from, kept in tests/data/review25/<reading>.toml with their URLs (SOURCES.md).

A case gives `fact`s the text (under its title) must give, or `not`s a near-miss must not give; `xfail` the reason a
case still fails (strict). Facts: error=<catalog id> (claims.known_errors), exception (claims "exception": software
raising), symptom=<kind> (claims.symptom_quote), settings_as_reference, cpu_ceiling, finding=<rule> and
verdict=<category> (the ticket path), tp=<n> and dp=<n> (the Workload read)."""

from pathlib import Path

import pytest
import tomllib
from test_paraphrases_21 import assert_case_read, family_cases
from test_paraphrases_24 import _said
from test_u11o_peer_copy_and_fit import issue

from rules import claims
from rules.common import wfield

DATA = Path(__file__).parent / "data" / "review25"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _read(text: str) -> set[str]:
    """What the ticket path and the readers under review give the text."""
    facts = issue(text)
    out = _said(text)
    out |= {f"error={c.data['error'].id}" for c in claims.known_errors(facts)}
    if claims.find(facts, "exception"):
        out.add("exception")
    if symptom := claims.symptom_quote(facts):
        out.add(f"symptom={symptom[2]}")
    if claims.settings_as_reference(facts):
        out.add("settings_as_reference")
    if claims.cpu_ceiling(facts):
        out.add("cpu_ceiling")
    out |= {f"{name}={wfield(facts, name)[0]}" for name in ("tp", "dp") if wfield(facts, name)[0]}
    return out


@pytest.mark.parametrize("case", family_cases(FAMILIES))
def test_a_real_sentence_of_another_thread_gives_its_facts(case):
    assert_case_read(case, _read)


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    sources = (DATA / "SOURCES.md").read_text()
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        assert all(("fact" in c) != ("not" in c) for c in family["case"]), name
        assert sum("not" in c and not c.get("xfail") for c in family["case"]) >= 2, name
    for name in ("world_smaller_than_layout", "traceback_header", "cuda_check_line", "exception_class_symptom"):
        assert sum("fact" in c for c in FAMILIES[name]["case"]) >= 2, name


def test_no_thread_is_one_of_todays_sources():
    """The review's threads are none the readings were written from (tests/data/other25, phys25, prec25, mend25)."""
    root = Path(__file__).parent / "data"
    used = "".join(p.read_text() for d in ("other25", "phys25", "prec25", "mend25") for p in (root / d).rglob("*")
                   if p.is_file() and p.suffix in (".md", ".toml"))
    for name, family in FAMILIES.items():
        for case in family["case"]:
            url = case["url"]
            assert not any(url + end in used for end in (" ", "\n", ")", ",", '"', ";", "'", "#")), (name, url)
