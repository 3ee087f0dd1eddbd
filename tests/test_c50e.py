"""Pass c50e: the NCCL release a fix is in, or that a cure moved to, is neither the release the failure ran on nor
a non-answer (tests/data/c50e/SOURCES.md).

Three real threads name a later NCCL release as the fix in the post itself: NVIDIA-NeMo/Speech#13996 ("upgrading of
NCCL ... solved the problem. Specifically, I upgraded the container to NCCL 2.27.3"), pytorch/pytorch#76206 ("This bug
has been fixed since v2.12.7-1", of v2.10.3), microsoft/superbenchmark#599 ("fix nccl ... version to 2.18.3 to
resolve hang issue"). The tool read the fixing release as the running one (nccl.known_regression: "2.27.3 is in the
range of a known regression") and gave no NCCL answer; each thread settled an NCCL defect fixed in a later release
(nccl_regression).
"""

import pytest
from conftest import judged_issue, judged_kept_paste

from rules import claims
from rules.known_regressions import _named_running


@pytest.mark.parametrize("rel, fixed", [
    ("b50d/nemospeech13996.md", "2.27.3"),
    ("c50e/pytorch76206.md", "2.12.7"),
    ("c50e/superbench599.md", "2.18.3"),
])
def test_a_release_named_as_the_fix_points_at_nccl(tmp_path, rel, fixed):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "nccl_regression"
    assert fixed in found["nccl.fixed_in_release"].title
    regression = found.get("nccl.known_regression")
    assert regression is None or fixed not in regression.title  # the fix is not read as the release in use


@pytest.mark.parametrize("text, running", [
    # the real sentences
    ("The current PyTorch links NCCL v2.10.3-1 by default, which includes a critical bug that breaks the `CollNet` "
     "algorithm. This bug has been fixed since v2.12.7-1.", ["2.10.3"]),
    ("I tested the upgrading of NCCL to the newest version, and it solved the problem. Specifically, I upgraded the "
     "container to NCCL 2.27.3 for CUDA 12.9.", []),
    ("All-reduce hangs with NCCL 2.18.1. Upgrading NCCL to 2.21.5 fixed it.", ["2.18.1"]),
    # near-misses: the release moved to is the one that runs
    ("We upgraded NCCL to 2.21.5 and now all_reduce hangs.", ["2.21.5"]),  # the move brought the failure
    ("Did upgrading NCCL to 2.21.5 fix it for anyone?", ["2.21.5"]),  # a question
    ("Upgrading NCCL fixed it. Now we run NCCL 2.21.5 and all_reduce is slow.", ["2.21.5"]),  # named as in use
    ("Upgrading NCCL fixed the hang on the other cluster. I upgraded to NCCL 2.21.5 and it still hangs.",
     ["2.21.5"]),  # a cure elsewhere, this system's failure stays
])
def test_the_release_a_fix_is_in_is_not_the_running_one(text, running):
    assert _named_running(text) == running


@pytest.mark.parametrize("text", [
    "All-reduce hangs on our two nodes. We upgraded NCCL to 2.21.5 and it did not fix the hang.",  # negation
    "All-reduce hangs on our two nodes. Did upgrading NCCL to 2.21.5 fix it for anyone?",  # a question
    "All-reduce hangs on our two nodes. My colleague says upgrading NCCL to 2.21.5 fixed it for him.",  # another's
    "All-reduce hangs on our two nodes. We upgraded NCCL to 2.21.5 to fix the hang, but it still hangs.",  # stayed
    "All-reduce hangs on our two nodes. Upgrading PyTorch to 2.3.1 solved the problem.",  # another component
    "All-reduce hangs on our two nodes. Upgrading the driver fixed it. We now run NCCL 2.21.5.",  # another cure
])
def test_no_nccl_fix_read_from_near_misses(text):
    verdict, found = judged_issue("# all_reduce hangs\n\n" + text + "\n")
    assert "nccl.fixed_in_release" not in found
    assert verdict.category != "nccl_regression"


@pytest.mark.parametrize("text", [
    "We upgraded NCCL to 2.21.5 to fix the hang, but it still hangs.",  # the cure did not hold
    "We upgraded NCCL to 2.21.5 and it did not fix the hang.",  # denied
    "Did upgrading NCCL to 2.21.5 fix it for anyone?",  # asked
    "Maybe upgrading NCCL to 2.21.5 would fix it.",  # guessed
    "It worked on 2.18.3, we moved to 2.19.3 and it hangs.",  # a move that brought the failure
    "NCCL hangs. The notes say it was fixed in NCCL 2.19.3 but we still see the hang on NCCL 2.19.3.",  # not held
    "NCCL 2.10.3 has a bug. It was not fixed in NCCL 2.12.7.",  # denied
])
def test_no_cure_release_in_near_misses(text):
    assert claims.cure_releases(text) == {}


def test_the_fix_sentence_is_the_evidence():
    text = "Training hangs. Upgrading NCCL solved the problem. Specifically, I upgraded the container to NCCL 2.21.5."
    assert claims.cure_releases(text) == {"2.21.5": "Specifically, I upgraded the container to NCCL 2.21.5."}
