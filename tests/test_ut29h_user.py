"""A component release said to be the cause (session s29, pass ut29h, issue 11; tests/data/ut29h, SOURCES.md gives each
thread's address, the answer it settled and the verdict before and after):

- "Fix nccl regression on PyTorch 2.3 upgrade" (a fix whose object is the component's regression) was read as a move
  forward that cured the problem, so ticket.nccl_upgrade dropped the reporter's own claim of an NCCL regression and a
  PCIe peer-to-peer lead took the H100 hang (rules.ticket_rules._FIX_OF_REGRESSION);
- near-misses stay dropped: an upgrade or a newer release that fixes it, a patch release that fixes a regression, a
  fix of a hang by a setting (no release named as the fault);
- "Pin NCCL to 2.29.7" beside "a NCCL 2.30.4 ... regression" was read as NCCL unchanged, and the runs' tok/s in a
  table as NCCL releases (rules.claims._PIN_TO, _in_figure_list, _figure_column, _RANGE_UNIT_AFTER); NCCL held at one
  release stays unchanged, and a release followed by its own figure stays a release.
"""

from pathlib import Path

import pytest
from conftest import finding, report_json

from rules import claims
from rules.ticket_rules import _FIX_OF_REGRESSION

DATA = Path(__file__).parent / "data" / "ut29h"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def test_tgi2099_regression_fixed_is_the_release():
    """huggingface/text-generation-inference#2099: the PyTorch 2.3 upgrade brought NCCL 2.20.5, whose hang under CUDA
    graphs (NVIDIA/nccl#1251) the PR works around; before: p2p_disabled 0.69 (an H100 hang read as PCIe P2P)."""
    report = verdict("tgi2099.md")
    assert report["verdict"]["category"] == "nccl_regression"
    f = finding(report, "ticket.nccl_upgrade")
    assert f and f["category"] == "nccl_regression"
    assert "Fix nccl regression on PyTorch 2.3 upgrade" in f["evidence"][0]["detail"]


# A fix acting on the component's regression: the release is named as the fault.
FIX_OF_REGRESSION = [
    ("https://github.com/huggingface/text-generation-inference/pull/2099",
     "Fix nccl regression on PyTorch 2.3 upgrade"),
]

# Real sentences where a fix or a release cures it: the move forward is the cure, or nothing names a release's fault.
NOT_FIX_OF_REGRESSION = [
    ("https://github.com/pytorch/pytorch/pull/174338",
     "2.29.3 is a patch release that fixes the regression (hang) in 2.29.2."),
    ("https://github.com/NVIDIA/nccl/issues/933", "NCCL 2.18.3 fixes issue, close."),
    ("https://github.com/marin-community/marin/pull/8038",
     "Bump NCCL to 2.30.7 to fix the silent GB200 collective wedge"),
    ("https://github.com/pytorch/pytorch/pull/97843",
     "This PR updates NCCL to 2.17.1 that includes a patch for socket shutdown."),
    ("https://github.com/vllm-project/vllm/issues/1726",
     "A newer workaround has since been found so `vllm-nccl-cu12` is no longer necessary."),
]


@pytest.mark.parametrize("url,sentence", FIX_OF_REGRESSION)
def test_fix_of_regression_read(url, sentence):
    assert _FIX_OF_REGRESSION.search(sentence), url


@pytest.mark.parametrize("url,sentence", NOT_FIX_OF_REGRESSION)
def test_cure_not_read_as_fix_of_regression(url, sentence):
    assert not _FIX_OF_REGRESSION.search(sentence), url


@pytest.mark.parametrize("sentence", [
    # an upgrade word before the fix in its clause: the move forward is the cure (the shape of NVIDIA/nccl#933's
    # "NCCL 2.18.3 fixes issue" with the regression named)
    "Upgrading NCCL to 2.18.3 fixed the NCCL regression.",
    "The latest NCCL fixes the NCCL regression for us.",
])
def test_upgrade_that_fixes_stays_a_cure(sentence, tmp_path):
    """ticket.nccl_upgrade stays silent where the newer NCCL is the cure."""
    paste = tmp_path / "ticket.md"
    paste.write_text("With TP=4 on 4x A100 the all-reduce hangs. " + sentence + "\n")
    report = report_json("ticket", str(paste))
    assert finding(report, "ticket.nccl_upgrade") is None


def test_trtllm17160_pin_to_the_good_release_is_a_move():
    """NVIDIA/TensorRT-LLM#17160: "Pin NCCL to 2.29.7 ... to work around a NCCL 2.30.4 ... regression", with a table
    of runs per NCCL release. Before: throttling 0.69 (the pin read as NCCL unchanged, so the release A/B was dropped,
    and the per-run tok/s in the table read as NCCL releases); now the A/B is 2.29.7 -> 2.30.4, no figure as a
    release."""
    report = verdict("trtllm17160.md")
    assert report["verdict"]["category"] == "nccl_regression"
    f = finding(report, "nccl.regression")
    assert f and "2.29.7" in f["title"] and "2.30.4" in f["title"] and "2.58" not in f["title"]


def test_pin_at_one_release_stays_unchanged():
    """The near-miss: NCCL held at one release while the engine moves (the shape of vllm's "NCCL is 2.20.5 in both
    images", issue 11 s) is still NCCL unchanged; only a pin *to* a release beside two contrasted releases moves."""
    assert claims.nccl_unchanged("We pin NCCL at 2.18.6 in both images; vLLM 0.4.3 is slower than 0.4.2.")
    assert claims.nccl_unchanged("Same NCCL on both sides, vLLM 0.5.0 is slower than 0.4.3.")


def test_measurements_are_no_releases():
    """Figures in a list, a range or a table column of measurements are not NCCL releases; releases in a table column
    headed NCCL still are (NVIDIA/nccl#1222's per-release busbw, as a table)."""
    pr = (DATA / "trtllm17160.md").read_text()
    assert claims.nccl_versions(pr) == ["2.29.7", "2.30.4"]
    table = "| NCCL | busbw |\n|---|---|\n| 2.19.3 | 385.41 |\n| 2.20.3 | 201.12 |\n"
    assert claims.nccl_versions(table) == ["2.19.3", "2.20.3"]
    assert claims.nccl_versions("NCCL 2.18 and 2.19, took 1.25, 1.31, 4.02 s") == ["2.18", "2.19"]
