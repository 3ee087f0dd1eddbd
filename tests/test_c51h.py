"""A request to ship a newer NCCL that the reporter says fixes the failure (pass c51h, tests/data/c51h/NOTES.md).

Pooled from four batches' candidates (b49b "an NCCL bug fixed in a later release or build", b50d "the post's own cure
by a newer NCCL not read", c50e's four threads, ut22c/milabench183): tickets that ask an engine, framework or image
to ship another NCCL, saying it fixes their failure, were answered healthy or insufficient_data where each thread
settled an NCCL defect fixed in a later release (nccl_regression): b50d/nemospeech13996
(https://github.com/NVIDIA-NeMo/Speech/issues/13996), c50e/pytorch76206 (https://github.com/pytorch/pytorch/issues/76206),
c50e/pytorch23016 (https://github.com/pytorch/pytorch/issues/23016), b49b/nccl82
(https://github.com/NVIDIA/nccl/issues/82). nccl.update_asked (claims.nccl_update_asked) reads the request with the
fix said in the reporter's own held words; the near misses below are the shapes review r50c proved c50e's reading
misfired on (a purpose, a hedge, a condition, a question, another's word, a fix that did not last, another component).
"""

import pytest
from conftest import REPO, judged_issue, judged_kept_paste


@pytest.mark.parametrize("rel", [
    "b50d/nemospeech13996.md",  # "it solved the problem" ... "I ask you to update the NCCL version"
    "c50e/pytorch76206.md",     # "Update NCCL to 2.12": "This bug has been fixed since v2.12.7-1"
    "c50e/pytorch23016.md",     # "Would it be possible to bump NCCL version to 2.4.8.1 as it fixes a regression"
    "b49b/nccl82.md",           # "rebuilt NCCL, and it all works now" ... "Is there a container ... with this fixed?"
])
def test_a_newer_nccl_asked_for_as_the_fix_is_an_nccl_regression(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert found["nccl.update_asked"].category == "nccl_regression"
    assert verdict.category == "nccl_regression"


@pytest.mark.parametrize("rel", [
    "c50e/superbench599.md",  # "... version to 2.18.3 to resolve hang issue": a purpose, no fix seen
    "c50e/axolotl965.md",     # "it's been reported that updating NCCL fixes the issue": others' word
    "ut22c/milabench183.md",  # "All tests passed" with another NCCL: a contrast, read by the release readings
])
def test_a_purpose_hearsay_or_contrast_is_not_read_as_the_fix(tmp_path, rel):
    assert "nccl.update_asked" not in judged_kept_paste(tmp_path, rel)[1]


_HANG = ("# all_reduce hangs on 8 GPUs\n\nOur training hangs in all_reduce on 8x A100 with NCCL 2.18.1 inside the "
         "container.\n\n")


@pytest.mark.parametrize("words", [
    "We upgraded NCCL to 2.21.5 to fix the hang. It still hangs. Please update NCCL in the image.",
    "Upgrading NCCL to 2.21.5 should fix the problem. Could you update NCCL in the image?",
    "If upgrading NCCL to 2.21.5 fixes the hang, please update the image's NCCL.",
    "Upgrading NCCL fixed the hang for several users. Please update NCCL in the container.",
    "Someone said upgrading NCCL solved the problem. Please update NCCL in the container.",
    "Did upgrading NCCL solve the problem? Please update NCCL in the container.",
    "Upgrading NCCL to 2.21.5 solved the problem, but it still hangs after an hour. Please upgrade NCCL.",
    "Upgrading NCCL did not solve the problem. Please update NCCL in the container.",
    "NCCL 2.21.5 is out. Upgrading the driver to 550 solved the problem. Please update NCCL in the container.",
    "Upgrading NCCL to 2.21.5 solved the problem for me.",  # no request: nothing asked of the image
    "Would upgrading NCCL fix this? We have not tried a newer NCCL yet.",
    "NVIDIA told us that NCCL 2.21.5 fixes the hang. Please update NCCL in the container.",
    "Last week upgrading NCCL solved the problem, but today it hangs again. Please update NCCL in the container.",
    "We hope NCCL 2.21.5 fixes the hang. Please update NCCL in the container.",
    "Nothing we tried fixed the issue, not even a newer NCCL. Please update NCCL in the container.",
    "The NCCL test hung too. I rebooted the node and it works now. Could you please update NCCL in the image?",
    "Upgrading the driver solved the problem, NCCL unchanged. Please update NCCL in the container anyway.",
])
def test_near_misses_are_not_read_as_a_fixed_release(words):
    assert "nccl.update_asked" not in judged_issue(_HANG + words)[1]


def test_the_same_request_with_the_fix_seen_is_read():
    verdict, found = judged_issue(_HANG.replace(" with NCCL 2.18.1", "") + "Upgrading NCCL to the newest version "
                                  "solved the problem. Please update NCCL in the container.")
    assert found["nccl.update_asked"].category == "nccl_regression"
    assert verdict.category == "nccl_regression"


def test_both_releases_named_are_left_to_nccl_regression():
    """With the failing and the fixing release both named, nccl.regression compares them; update_asked steps aside."""
    verdict, found = judged_issue(_HANG + "Upgrading NCCL to 2.21.5 solved the problem. Please update NCCL in the "
                                  "container to 2.21.5.")
    assert "nccl.update_asked" not in found
    assert verdict.category == "nccl_regression"


@pytest.mark.parametrize("rel", [
    "issues/nccl-1161-h100-pcie-vs-a100-sxm4.md",          # an nccl-tests table judged by nccl.busbw
    "para37b/t013-nccl-8x5090-allreduce-28gbs/a.md",
])
def test_a_cure_said_beside_a_measured_figure_leaves_the_figure_its_answer(rel):
    """Review r50c: an earlier failure's cure said beside a measured bandwidth took that ticket's verdict."""
    text = (REPO / "tests" / "data" / rel).read_text()
    verdict, found = judged_issue(text + "\n\nLast month upgrading NCCL to the newest version solved the hang we had "
                                  "at startup. Please update NCCL in the container.\n")
    assert "nccl.update_asked" not in found
    assert verdict.category == judged_issue(text)[0].category
