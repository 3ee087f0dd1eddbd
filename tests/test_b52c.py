"""Blind batch b52c (session s52, issue 11: newest hardware and engine releases; tests/data/b52c, SOURCES.md gives
each thread, its label and the blind verdict).

The one wrong answer whose mechanism recurs in three separate threads: TP wider than a machine was the critical
verdict of a job that does not serve. The stated-nodes branch of workload.cross_node_tp already made the layout an info
lead there (sgl-project/sglang#2658, tests/data/ut29d/sglang2658.md; sgl-project/sglang#4978, review44 hang_lead), but
the branch that counts the machines from the GPU's NVLink domain (TP=32 of H20s, at most 8 to a machine) did not:
sgl-project/sglang#28915 (tests/data/b52c/sglang28915.md) hangs with DP attention over four H20 machines, and the
reporter found the attention all-reduce on the wrong group. Both branches now share the lead.
"""

import pytest
from conftest import judged_issue, judged_kept_paste

_HANG_LEAD = "a speed lead once it runs, not the hang"


@pytest.mark.parametrize("rel", [
    "b52c/sglang28915.md",   # TP=32 of H20s, no node count stated: machines counted from the NVLink domain
    "ut29d/sglang2658.md",   # TP=16 over two stated 8 x A800 nodes (the branch that already held)
])
def test_tp_across_machines_is_no_cause_of_a_job_that_hangs(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    lead = found["workload.cross_node_tp"]
    assert lead.severity == "info" and _HANG_LEAD in lead.title
    assert verdict.category != "cross_node_tp"


_LAUNCH = ("When running DeepSeek-V4-Pro-FP8 on a multi-node H20 cluster with --tp 32 --ep 32 --dp 4 "
           "--enable-dp-attention")


@pytest.mark.parametrize("text", [
    # the same layout and words with a slowness complaint instead of the hang
    f"# DeepSeek-v4-pro on a multi-node H20 cluster with tp 32 is slow\n\n{_LAUNCH}, decode is only 3 tok/s.",
    # the hang denied
    f"# DeepSeek-v4-pro on H20 with tp 32\n\n{_LAUNCH}, it does not hang, but decode is only 3 tok/s.",
    # the hang in the past, a slow run now
    f"# DeepSeek-v4-pro on H20 with tp 32\n\n{_LAUNCH}, it used to hang on 0.5.9; now it runs, but decode is "
    "only 3 tok/s.",
])
def test_tp_across_machines_still_leads_a_slow_run(text):
    verdict, found = judged_issue(text)
    lead = found["workload.cross_node_tp"]
    assert lead.severity == "critical" and "spans at least 4 machines" in lead.title
    assert verdict.category == "cross_node_tp"
