"""Paraphrase audit, fourth pass (issue 11, session 22): comparison sets, unit-bearing abbreviations beside a TP word,
and A/B and scope statements in prose.

tests/data/paraphrases_22/<family>.toml holds real sentences from public threads that are no corpus case, each with its
URL, in the form of ../paraphrases_21 (test_paraphrases_21 reads those): `fact`, what the reading should give, or
`not`, what a near-miss (someone else's figure, a layout advised, a question, a latency's abbreviation) must not give.
Besides the facts test_paraphrases_21 reads, a fact may be a figure with its own layout, `decode_tok_s=54@gpus=1` (a
Measurement of that metric and value whose tp, pp or gpus is the one named: what a ticket compares with the expected
figure of that layout), a TP size any rule reads (`tp_named=N`: rules.common.tp_sizes, the launch's and the claims',
asked sizes included), or a
claim the reporter affirms (`claim=vm_vs_bare_metal`: rules.claims, neither a guess nor ruled out)."""

from pathlib import Path

import pytest
import tomllib
from test_paraphrases_21 import FIGURES, _facts_said, _listed
from test_u11o_peer_copy_and_fit import issue

from diagnose.evidence import Measurement
from rules import claims
from rules.common import tp_sizes

DATA = Path(__file__).parent / "data" / "paraphrases_22"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _said(text: str) -> set[str]:
    """Every fact the ticket gives, written as the data files write them."""
    facts = issue(text)
    out = _facts_said(text)
    for m in facts.of(Measurement):
        if m.metric in FIGURES:
            out |= {f"{m.metric}={m.value:g}@{name}={value}" for name in ("tp", "pp", "gpus")
                    if (value := getattr(m, name, None))}
    out |= {f"tp_named={size}" for size, _ in tp_sizes(facts)}
    out |= {f"claim={c.kind}" for c in claims.claims(facts) if not (c.guess or c.negated)}
    return out


def _cases():
    out = []
    for name, family in FAMILIES.items():
        for i, case in enumerate(family["case"]):
            marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
            kind = "fact" if "fact" in case else "not"
            out.append(pytest.param(case, id=f"{name}-{i}-{kind}", marks=marks))
    return out


@pytest.mark.parametrize("case", _cases())
def test_a_real_sentence_gives_its_facts(case):
    said = _said(f"# {case.get('title', 'Report')}\n\n{case['sentence']}")
    for fact in _listed(case.get("fact")):
        assert fact in said, (fact, sorted(said), case["url"])
    for fact in _listed(case.get("not")):
        assert fact not in said, (fact, case["url"])


def test_every_sentence_has_its_source_and_each_family_its_near_misses():
    assert set(FAMILIES) == {"sets", "units", "ab_scope"}
    for name, family in FAMILIES.items():
        assert all(c["url"].startswith("https://") for c in family["case"]), name
        assert all(("fact" in c) != ("not" in c) for c in family["case"]), name
        said = [c for c in family["case"] if "fact" in c]
        near = [c for c in family["case"] if "not" in c]
        assert len(said) >= 4 and len(near) >= 2, name


def test_no_sentence_is_a_corpus_case():
    """The sentences are from threads that no ticket of the corpus was written from (tests/data/tickets, the shared
    tickets): a reading tested on its own cases proves nothing."""
    root = Path(__file__).parent / "data" / "tickets"
    shared = Path(__file__).parents[1] / ".." / "shared" / "tickets"
    corpus = " ".join(p.read_text(errors="ignore") for folder in (root, shared) if folder.is_dir()
                      for p in folder.rglob("*") if p.is_file() and p.suffix in (".toml", ".md"))
    for family in FAMILIES.values():
        for case in family["case"]:
            assert case["url"] not in corpus, case["url"]
