"""Paraphrase audit, fifth pass (issue 11, session 23): release changes and cures, the evidence of nccl_regression.

tests/data/paraphrases_23/<family>.toml holds real sentences from public threads that are no corpus case, each with its
URL, in the form of ../paraphrases_22: `fact`, what the reading should give, or `not`, what a near-miss (a release
listed, advised, tried with the same result, someone else's) must not give. A fact is a claim the reporter affirms
(`claim=nccl_upgrade`; torch_releases_compared as claims.torch_releases_compared reads it), `release_change` (any of
the four claims of a release change affirmed), `good=<v>` (the engine_versions_compared claim's good release) or
`finding=<rule>` (a rule that fires on the sentence)."""

from pathlib import Path

import pytest
import tomllib
from test_paraphrases_21 import assert_case_read, assert_families_kept, family_cases
from test_paraphrases_22 import test_no_sentence_is_a_corpus_case as _corpus_check
from test_u11o_peer_copy_and_fit import issue, judged

from rules import claims

DATA = Path(__file__).parent / "data" / "paraphrases_23"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}
RELEASE_CLAIMS = {"driver_change", "nccl_upgrade", "nccl_versions_compared", "engine_versions_compared",
                  "torch_releases_compared"}


def _said(text: str) -> set[str]:
    facts = issue(text)
    found = [c for c in claims.claims(facts) + claims.torch_releases_compared(facts) if not (c.guess or c.negated)]
    out = {f"claim={c.kind}" for c in found}
    out |= {"release_change" for c in found if c.kind in RELEASE_CLAIMS}
    out |= {f"good={c.data['good']}" for c in found if c.kind == "engine_versions_compared" and c.data.get("good")}
    return out | {f"finding={rule}" for rule in judged(facts)[1]}


@pytest.mark.parametrize("case", family_cases(FAMILIES))
def test_a_real_sentence_gives_its_facts(case):
    assert_case_read(case, _said)


def test_every_sentence_has_its_source_and_each_family_its_near_misses():
    assert set(FAMILIES) == {"upgrade", "ab_pairs", "cures"}
    assert_families_kept(FAMILIES)


def test_no_sentence_is_a_corpus_case(monkeypatch):
    import test_paraphrases_22

    monkeypatch.setattr(test_paraphrases_22, "FAMILIES", FAMILIES)
    _corpus_check()


# The NCCL release threshold (claims "nccl_upgrade"): a failure said of every release from one on is the release that
# brought it; a release required or recommended is not. Sentences written for this test, in the form of the threads
# above (NVIDIA/nccl#423, #788).
@pytest.mark.parametrize("sentence, read", [
    ("All-to-all deadlocks with NCCL 2.19 and newer on our H100 nodes.", True),
    ("The job crashes only with NCCL versions after 2.18.", True),
    ("This feature requires NCCL version >= 2.18.", False),
    ("Please use NCCL 2.19 and newer for Blackwell support.", False),
])
def test_a_failure_from_one_nccl_release_on(sentence, read):
    assert ("claim=nccl_upgrade" in _said(f"# Report\n\n{sentence}")) is read


# The GPU driver's release change (claims "driver_change", rule ticket.driver_change): the failure after the move, or
# the cure on moving back; not a driver asked about, moved forward as the cure, tried with the same result, or only
# intended.
# Sentences written for this test, in the form of the threads above (vllm-project/vllm#2057, bmaltais/kohya_ss#884).
@pytest.mark.parametrize("sentence, fires", [
    ("Since the driver update, TP2 all-reduce is 30% slower.", True),
    ("Downgrading the NVIDIA driver to 535 fixed the NCCL hang.", True),
    ("After updating the driver to 570 the hang is gone.", False),
    ("Should I upgrade the driver to 550 to fix the hang?", False),
    ("I also updated the driver, same result.", False),
])
def test_a_driver_release_change(sentence, fires):
    said = _said(f"# Report\n\n{sentence}")
    assert ("finding=ticket.driver_change" in said) is fires, sorted(said)
    assert "finding=ticket.nccl_upgrade" not in said  # the driver moved, not NCCL
