"""One NCCL release behaving well and another badly, said in words (issue 11: A/B statements of versions).

The sentences are written the way people report a release change, not copied from a corpus case; the real
threads quoted below are public issues that are not scored cases. The two development cases the reading was
built for (u11a02, u11a04) are checked through the verdict.
"""

import shutil

import pytest
from test_ticket_questions import development_case

from diagnose.evidence import Facts, NcclSetting, Note
from rules import claims, nccl
from rules.engine import evaluate, ticket_verdict


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


@pytest.mark.parametrize("text,good,bad", [
    # a failure on one side, "works"/"no problems" on the other, in one sentence or in two
    ("NCCL 2.20.5 runs the job without any issue; on 2.21.5 every rank gets stuck at init.", {"2.20.5"}, {"2.21.5"}),
    ("On NCCL 2.19.3 the server deadlocks at start-up.\nSwitching to NCCL 2.18.6: no errors at all.",
     {"2.18.6"}, {"2.19.3"}),
    # a slowdown on one side, "normal" on the other
    ("all_reduce bandwidth is poor with nccl 2.23.4, whereas 2.22.3 was normal on the same nodes.",
     {"2.22.3"}, {"2.23.4"}),
    ("Under NCCL 2.17.1 throughput is fine. Under NCCL 2.18.3 it became very slow.", {"2.17.1"}, {"2.18.3"}),
    # a word after the failure that says it went away
    ("With NCCL 2.26.2 the hang is gone, while NCCL 2.25.1 still freezes.", {"2.26.2"}, {"2.25.1"}),
])
def test_one_release_good_and_another_bad_is_a_release_ab(text, good, bad):
    assert claims.release_sides(text) == (good, bad)
    (c,) = claims.find(said(text), "nccl_versions_compared")
    assert set(c.data["versions"]) == good | bad


@pytest.mark.parametrize("text", [
    # every release alike, or both sides negated into the same state
    "Both NCCL 2.18.6 and 2.19.3 hang at communicator init.",
    "NCCL 2.19.3 does not hang, and NCCL 2.18.6 doesn't hang either.",
    # the contrast is the node count, the releases are only installed
    "NCCL 2.18.6 and 2.19.3 are installed. Training is slow on two nodes and fine on one.",
    # "low latency" is no complaint
    "NCCL 2.21.5 gives low latency and NCCL 2.20.5 works too.",
    # a question is no observation
    "Is NCCL 2.21 normal for this? NCCL 2.27 hangs here.",
])
def test_releases_said_alike_or_not_contrasted_are_no_release_ab(text):
    assert not claims.failure_ab(text)


def test_a_release_named_as_a_bound_is_not_the_failing_one():
    # NVIDIA/nccl#788, the reporter's opening lines: the failing releases are the ones listed, 2.11.4 is the bound
    text = ("I face an issue with NCCL releases newer than v2.11.4. I could reproduce the problem with v2.12.7, "
            "v2.15.5, and v2.16.5. NCCL is built with CUDA toolkit 11.2 in each case.")
    assert claims.release_sides(text) == (set(), {"2.12.7", "2.15.5", "2.16.5"})
    assert not claims.failure_ab(text)


def test_a_failure_that_persists_across_releases_is_no_release_ab():
    # NVIDIA/nccl#1608: the title and a later comment of the reporter; both releases fail
    text = ("2.21.5 hangs, after using P2P disable, SHM disable, memory allocations.\n"
            "It seems to be a problem with NCCL not respecting the environmental variable assignments.\n"
            "The bug persists under 2.25.1.")
    assert claims.release_sides(text) == (set(), {"2.21.5", "2.25.1"})
    assert not claims.find(said(text), "nccl_versions_compared")


def test_two_builds_of_one_release_are_no_release_ab():
    # vllm-project/vllm#42354 (a comment): the fix swapped two builds of the same NCCL release
    text = ("The single change that fixed it: replacing the pip-bundled NCCL with the DGX-OS system NCCL. On our "
            "nodes both report version 2.28.9, but they are different binaries.")
    assert not claims.find(said(text), "nccl_versions_compared")


@pytest.mark.parametrize("prefix", ["u11a02", "u11a04"])
def test_release_ab_in_words_decides_the_development_cases(tmp_path, prefix):
    facts = development_case(tmp_path, prefix)
    answer = ticket_verdict(facts, evaluate(facts))
    assert answer.category == "nccl_regression"


def test_a_known_regression_whose_workaround_is_already_set_is_not_named():
    row = {"id": "x", "fix": "as a workaround try NCCL_PXN_DISABLE=1 or NCCL_ALGO=Tree"}
    facts = said("NCCL 2.27 is slow, 2.21 was normal.")
    assert not nccl._workaround_on(facts, row)
    facts.add(NcclSetting("launch:1", "NCCL_PXN_DISABLE", "1"))
    assert nccl._workaround_on(facts, row)
    other = said("x")
    other.add(NcclSetting("launch:1", "NCCL_PXN_DISABLE", "0"))  # set the other way: the regression can still apply
    assert not nccl._workaround_on(other, row)


def test_the_development_case_keeps_its_verdict_without_the_known_regression_that_its_settings_rule_out(tmp_path):
    facts = development_case(tmp_path, "u11a04")
    found = [f for f in evaluate(facts) if f.rule == "nccl.regression"]
    assert found and not any("nccl_regressions.toml" in e.source for f in found for e in f.evidence)
    shutil.rmtree(tmp_path / "t")
