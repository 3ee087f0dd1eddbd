"""Precision review of session 25's last readings (issue 11, review3_25): rel25's time line and the engine a bare
release belongs to, review25's KeyboardInterrupt and --enable-dp-attention mends, and mend25's comparison asked with
one side unsaid. Each is tried on real sentences and pastes of threads none of them was written from
(tests/data/review3_25/<reading>.toml, URLs in SOURCES.md): positives it must read and near-misses that look alike
but must not be read that way. `xfail`: the reason a case still fails (strict); `mended`: what it read before."""

from pathlib import Path

import pytest
import tomllib
from conftest import threads_reused, toml_cases
from test_paraphrases_21 import assert_case_read, family_cases
from test_review25 import _read as review25_read
from test_ticket_figures import _issue

from rules import claims

DATA = Path(__file__).parent / "data" / "review3_25"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _cases(name: str) -> list:
    return toml_cases(DATA, name)


@pytest.mark.parametrize("case", _cases("timeline_figures"))
def test_a_rate_told_as_a_time_line(case):
    told = claims.timeline_figures(case["text"])
    if case["before"]:
        assert (list(told["before"]), list(told["after"])) == (case["before"], case["after"])
    else:
        assert told == {}


def _release_change(text: str) -> set[str]:
    """The release change the ticket path reads: its engine, its releases, the good one and each credited figure."""
    facts, _, _ = _issue(text)
    out = set()
    for c in claims.find(facts, "engine_versions_compared"):
        out |= {"change", f"engine={(c.data['engine'] or '').lower()}", f"good={c.data['good']}"}
        out |= {f"release={v}" for v in c.data["versions"]}
        out |= {f"figure={v}:{f[0]}" for v, f in (c.data.get("figures") or {}).items()}
    return out


@pytest.mark.parametrize("case", _cases("release_timeline"))
def test_a_release_change_and_whose_release_it_is(case):
    read = _release_change(case["text"])
    for fact in case.get("fact", []):
        assert fact in read, (fact, sorted(read))
    for fact in case.get("not", []):
        assert fact not in read, (fact, sorted(read))


@pytest.mark.parametrize("case", _cases("asked_contrast"))
def test_a_comparison_asked(case):
    facts, _, verdict = _issue(case["text"])
    assert (claims.asked_contrast(facts) is not None) is case["asked"]
    if case["asked"]:
        assert verdict.category != "healthy"  # a complaint, never "no problem found"


@pytest.mark.parametrize("case", family_cases({k: FAMILIES[k] for k in ("keyboard_interrupt", "dp_attention")}))
def test_a_ctrl_c_paste_is_no_error_raised_and_dp_attention_counts_no_replicas(case):
    assert_case_read(case, review25_read)


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    sources = (DATA / "SOURCES.md").read_text()
    held = {"timeline_figures": lambda c: not c["before"], "release_timeline": lambda c: "not" in c,
            "asked_contrast": lambda c: not c["asked"], "keyboard_interrupt": lambda c: "not" in c,
            "dp_attention": lambda c: "not" in c}
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        near = [c for c in family["case"] if held[name](c)]
        assert sum(not c.get("xfail") for c in near) >= 3, name
        # (dp_attention: one real launch with a plain data-parallel size was found that no test used)
        assert sum(not held[name](c) for c in family["case"]) >= (1 if name == "dp_attention" else 2), name


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of tests/data/rel25, review25, mend25 (the readings' own sources)."""
    assert threads_reused(FAMILIES, ("rel25", "review25", "mend25")) == []
