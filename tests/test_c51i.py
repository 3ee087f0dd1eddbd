"""Pass c51i: the NCCL release a fix is in, or that a move to cure the failure goes to, is not the release in use
(tests/data/c50e/SOURCES.md; the first try, c50e, was taken out after review r50c proved 11 misfires on probes).

Three real threads name a release only as the fix, and nccl.known_regression read it as the running one:
pytorch/pytorch#76206 ("This bug has been fixed since v2.12.7-1", its title "Update NCCL to 2.12", of v2.10.3),
microsoft/superbenchmark#599 ("fix nccl and nccl test version to 2.18.3 to resolve hang issue"),
NVIDIA-NeMo/Speech#13996 ("it solved the problem. Specifically, I upgraded the container to NCCL 2.27.3").
This reading only takes that release out of the running ones; it decides no verdict. Every r50c probe where the
release moved to is in use, or still fails, keeps it.
"""

import pytest
from conftest import judged_issue, judged_kept_paste

from rules import claims
from rules.known_regressions import _named_running


@pytest.mark.parametrize("rel, fixes", [
    ("c50e/pytorch76206.md", ["2.12.7", "2.12"]),
    ("c50e/superbench599.md", ["2.18.3"]),
    ("b50d/nemospeech13996.md", ["2.27.3"]),
])
def test_a_release_named_only_as_the_fix_is_not_read_as_running(tmp_path, rel, fixes):
    _, found = judged_kept_paste(tmp_path, rel)
    regression = found.get("nccl.known_regression")
    assert regression is None or not any(f"NCCL {v} " in regression.title for v in fixes)


def test_the_release_with_the_bug_stays_the_running_one(tmp_path):
    _, found = judged_kept_paste(tmp_path, "c50e/pytorch76206.md")
    text = "The current PyTorch links NCCL v2.10.3-1 by default, which includes a critical bug that breaks the " \
           "CollNet algorithm. This bug has been fixed since v2.12.7-1."
    assert _named_running("# Update NCCL to 2.12\n\n" + text) == ["2.10.3"]


@pytest.mark.parametrize("text, fix", [
    # the real sentences
    ("This bug has been fixed since v2.12.7-1 in NCCL.", "2.12.7"),
    ("# Update NCCL to 2.12\n\nThe current NCCL v2.10.3-1 hangs.", "2.12"),
    ("# Benchmarks: Build Pipeline - fix nccl and nccl test version to 2.18.3 to resolve hang issue in cuda12.2 "
     "docker", "2.18.3"),
    ("I tested the upgrading of NCCL to the newest version, and it solved the problem. Specifically, I upgraded the "
     "container to NCCL 2.27.3 for CUDA 12.9.", "2.27.3"),
    # the reporter's own cure, held; a move asked for, planned, hedged or conditional (not made)
    ("All-reduce hangs with NCCL 2.18.1. Upgrading NCCL to 2.21.5 fixed it.", "2.21.5"),
    ("All-reduce hangs with NCCL 2.18.1. I upgraded NCCL to 2.21.5 and it solved the problem.", "2.21.5"),
    ("TP=4 hangs with NCCL 2.18.1. Upgrading NCCL fixed it. I upgraded to NCCL 2.19.3, and CUDA to 12.4.", "2.19.3"),
    ("All-reduce hangs on two nodes. Upgrading NCCL to 2.21.5 should fix it.", "2.21.5"),
    ("All-reduce hangs on two nodes. If upgrading NCCL to 2.21.5 fixes it, I will close this.", "2.21.5"),
    ("All-reduce hangs on two nodes. I will upgrade NCCL to 2.21.5 to fix the hang.", "2.21.5"),
    ("All-reduce hangs on two nodes. The plan is to upgrade NCCL to 2.21.5 to fix the hang.", "2.21.5"),
    ("All-reduce hangs on two nodes. Do I need to upgrade NCCL to 2.21.5 to fix the hang", "2.21.5"),
])
def test_the_fix_release_is_read(text, fix):
    assert fix in claims.fix_releases(text)
    assert fix not in _named_running(text)


@pytest.mark.parametrize("text, running", [
    # r50c's probes: a move made to fix it that did not hold, or a present complaint after it (the release runs)
    ("All-reduce hangs on two nodes. We upgraded NCCL to 2.21.5 to fix the hang. It still hangs.", "2.21.5"),
    ("All-reduce hangs on two nodes. We upgraded NCCL to 2.21.5 to try to fix the hang, no luck.", "2.21.5"),
    ("We upgraded NCCL to 2.21.5 to fix the hang. Now all_reduce busbw is 20 GB/s on 8xH100.", "2.21.5"),
    ("Upgrading NCCL to 2.21.5 fixed the hang. Decode is still slow: 20 tok/s on 8xH100 with TP=8.", "2.21.5"),
    ("Last month all_reduce hung; upgrading NCCL to 2.21.5 fixed it. Now busbw is 40 GB/s on 8xH100 with NVLink.",
     "2.21.5"),
    ("Upgrading NCCL fixed it for a while. I upgraded to NCCL 2.21.5. Now all_reduce hangs again on two nodes.",
     "2.21.5"),
    ("Upgrading NCCL solved the problem on our A100 nodes. On the H100 nodes I upgraded to NCCL 2.21.5 and all_reduce "
     "hangs.", "2.21.5"),
    ("All-reduce hangs with NCCL 2.18.1 on two nodes. I upgraded NCCL to 2.21.5, which I thought fixed the problem, "
     "until it hung again.", "2.21.5"),
    # denied
    ("All-reduce hangs on two nodes. Nothing fixed it, not even upgrading NCCL to 2.21.5.", "2.21.5"),
    ("All-reduce hangs on two nodes. Neither upgrading NCCL to 2.21.5 nor disabling P2P fixed the issue.", "2.21.5"),
    ("All-reduce hangs on two nodes. Upgrading NCCL to 2.21.5 didn't fix the issue.", "2.21.5"),
    ("All-reduce hangs on two nodes. Upgrading NCCL to 2.21.5 failed to fix the issue.", "2.21.5"),
    ("TP=4 hangs. This is not yet fixed in NCCL 2.19.3 either.", "2.19.3"),
    ("TP=4 hangs. Never fixed in NCCL 2.19.3.", "2.19.3"),
    # the fixing release named again as the one that fails
    ("All-reduce hangs on two nodes with NCCL 2.19.3. Issue #123 says this was fixed in NCCL 2.19.3. We are on 2.19.3 "
     "and it still hangs.", "2.19.3"),
    ("All-reduce hangs on two nodes with NCCL 2.19.3. The docs say it is fixed in NCCL 2.19.3. It is not.", "2.19.3"),
    # a release line that fails beside the release of the line a fix is in
    ("All-reduce hangs with NCCL 2.19 on two nodes. The NCCL notes list a hang fixed in 2.19.3.", "2.19"),
    # another change cured it; the release moved to afterwards runs
    ("TP=4 hangs. Setting NCCL_P2P_DISABLE=1 fixed it. We then upgraded NCCL to 2.19.3.", "2.19.3"),
    ("Switching NCCL to the ring algorithm fixed the hang. We upgraded to NCCL 2.19.3 last week and all_reduce is 30% "
     "slower since.", "2.19.3"),
    # the cure belongs to another move than the one to the release
    ("Since upgrading to NCCL 2.19.3 our alltoall hangs at init on 24 nodes; downgrading to 2.18.6 fixes it.",
     "2.19.3"),
    ("We upgraded NCCL to 2.19.3 and it hangs, downgrading to 2.18.6 fixed it.", "2.19.3"),
    # a question keeps what it asks about as it was
    ("All-reduce hangs. Has this been fixed in NCCL 2.19.3?", "2.19.3"),
    ("All-reduce hangs. Did upgrading NCCL to 2.19.3 fix it for anyone?", "2.19.3"),
    # a title that names a release moving to it as what broke
    ("# Upgrade to NCCL 2.19.3 breaks all_reduce\n\nIt hangs on two nodes.", "2.19.3"),
    ("# Upgraded NCCL to 2.19.3\n\nNow all_reduce hangs on two nodes.", "2.19.3"),
])
def test_no_fix_release_read_from_near_misses(text, running):
    assert running not in claims.fix_releases(text)


@pytest.mark.parametrize("text, running", [
    ("All-reduce hangs with NCCL 2.18.1 on two nodes. Upgrading NCCL to 2.21.5 should fix it.", ["2.18.1"]),
    ("All-reduce hangs with NCCL 2.18.1 on two nodes. If upgrading NCCL to 2.21.5 fixes it, I will close this.",
     ["2.18.1"]),
    ("TP=4 hangs with NCCL 2.18.1. Upgrading NCCL fixed it. I upgraded to NCCL 2.19.3, and CUDA to 12.4.", ["2.18.1"]),
    ("All-reduce hangs with NCCL 2.19 on two nodes. The NCCL notes list a hang fixed in 2.19.3.", ["2.19"]),
    ("Upgrading NCCL solved the problem on our A100 nodes. On the H100 nodes I upgraded to NCCL 2.21.5 and all_reduce "
     "hangs.", ["2.21.5"]),
])
def test_the_running_release_is_what_is_left(text, running):
    assert _named_running(text) == running


@pytest.mark.parametrize("text, running", [
    # r50c's other probes: the reporter's failing release stays the running one whatever else is named as a fix
    ("TP=4 hangs with NCCL 2.18.1. In issue #1234 they upgraded NCCL to 2.19.3 and it solved the problem.", "2.18.1"),
    ("TP=4 hangs with NCCL 2.18.1. Someone in #1234 said upgrading NCCL to 2.19.3 fixed it for them.", "2.18.1"),
    ("TP=4 hangs on startup with NCCL 2.18.1. This was fixed in vLLM 0.5.1.", "2.18.1"),
    ("TP=4 hangs on startup with NCCL 2.18.1. Upgrading vLLM to 0.5.1 solved the problem.", "2.18.1"),
    ("All-reduce hangs with NCCL 2.18.1. Upgrading torch to 2.3.1 fixed it.", "2.18.1"),
    ("All-reduce hangs with NCCL 2.18.1. Upgrading NCCL fixed it. I also upgraded PyTorch to 2.3.1.", "2.18.1"),
    ("All-reduce hangs. It was fixed by updating the driver to 550.54.15. NCCL is 2.18.1.", "2.18.1"),
    ("# Fixed in NCCL 2.21.5?\n\nAll-reduce hangs with NCCL 2.18.1 on two nodes.", "2.18.1"),
    ("TP=4 hangs with NCCL 2.18.1. This bug is fixed in #4567 which lands in 2.4.0.", "2.18.1"),
    ("TP=4 hangs with NCCL 2.19.3. Downgrading NCCL to 2.18.1 fixed it.", "2.19.3"),
    ("TP=4 hangs with NCCL 2.19.3. I pinned nvidia-nccl-cu12 to 2.18.1 and that fixed it.", "2.19.3"),
    ("All-reduce hangs on two nodes with NCCL 2.19.3, which should have fixed it per the notes.", "2.19.3"),
    ("All-reduce hangs on two nodes with NCCL 2.18.1. The release notes say a similar hang was fixed in NCCL 2.18.3.",
     "2.18.1"),
    ("All-reduce hangs on two nodes with NCCL 2.18.1. I hope this gets fixed in NCCL 2.19.3.", "2.18.1"),
    ("All-reduce hangs with NCCL 2.18.1 on two nodes. I wonder if upgrading NCCL to 2.21.5 solves the problem.",
     "2.18.1"),
    ("All-reduce hangs on two nodes with NCCL 2.18.1. I will upgrade NCCL to 2.21.5 to fix the hang.", "2.18.1"),
])
def test_the_failing_release_stays_running(text, running):
    assert running in _named_running(text)
    assert running not in claims.fix_releases(text)


@pytest.mark.parametrize("text", [
    "# all_reduce slow\n\nLast month all_reduce hung; upgrading NCCL to 2.21.5 fixed it. Now busbw is 40 GB/s on "
    "8xH100 with NVLink.\n",
    "# all_reduce slow\n\nThe old hang was fixed in NCCL 2.19.3. Now on NCCL 2.21.5 all_reduce busbw is only 50 GB/s "
    "on 8xH100 SXM.\n",
])
def test_a_present_measured_complaint_keeps_its_verdict(text):
    verdict, found = judged_issue(text)
    assert verdict.category == "pcie_fallback"
    assert found["nccl.busbw"].category == "pcie_fallback"
