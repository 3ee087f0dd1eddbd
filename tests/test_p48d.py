"""Pass p48d: a collective timeout said to come while rank 0 works alone (ticket.rank_zero_work).

Four separate real threads state it, each settled by the merged change that answers it: a barrier after rank 0's
work or a longer timeout (tests/data/p48d/SOURCES.md): mosaicml/llm-foundry#733 and instructlab/training#566 (kept in
review50), goodfire-ai/spd#536 and mosaicml/composer#2071 (p48d). Two real threads with a watchdog timeout but another
cause stay unread by it: alan-turing-institute/autocast#386 (a barrier only rank 0 enters: a desync, no slow work) and
EleutherAI/lm-evaluation-harness#1404 (one process, unnamed, slow).
"""

import shutil
from pathlib import Path

import pytest
from conftest import REPO, judged_issue

DATA = REPO / "tests" / "data"
RULE = "ticket.rank_zero_work"


def _judged(tmp_path: Path, rel: str):
    """(verdict, {rule id: finding}) of `diagnose ticket` on the kept paste tests/data/<rel>, as a bundle's issue.md."""
    folder = tmp_path / Path(rel).stem
    folder.mkdir()
    shutil.copy(DATA / rel, folder / "issue.md")
    return judged_issue(folder=folder)


@pytest.mark.parametrize("rel", ["review50/foundry733.md", "review50/instructlab566.md", "p48d/spd536.md",
                                 "p48d/composer2071.md"])
def test_rank_zero_work_answers_the_real_threads(tmp_path, rel):
    verdict, found = _judged(tmp_path, rel)
    assert verdict.category == "other"
    assert found[RULE].category == "other" and found[RULE].confidence == pytest.approx(0.6)
    assert "barrier" in found[RULE].fix and "timeout" in found[RULE].fix


def test_the_p2p_lead_steps_aside_for_rank_zero_work(tmp_path):
    """spd536 is read as a hang across GPUs whose link is unknown: the P2P lead names rank 0's work as against it."""
    _, found = _judged(tmp_path, "p48d/spd536.md")
    assert found["ticket.hang_on_pcie"].confidence == pytest.approx(0.25)
    assert "rank 0" in found["ticket.hang_on_pcie"].title


@pytest.mark.parametrize("rel", ["p48d/autocast386.md", "p48d/lmeval1404.md"])
def test_a_timeout_with_another_cause_is_not_rank_zero_work(tmp_path, rel):
    verdict, found = _judged(tmp_path, rel)
    assert RULE not in found
    assert verdict.category == "insufficient_data"


@pytest.mark.parametrize("text", [
    "On 8 A100s the job dies with the NCCL watchdog timeout at the first checkpoint, while rank 0 writes the 100 GB "
    "optimizer state.",
    "With 4 GPUs we get the NCCL watchdog timeout after 30 minutes because the main process evaluates the whole "
    "validation set alone.",
])
def test_rank_zero_work_reworded(text):
    verdict, found = judged_issue("# Timeout during training\n\n" + text + "\n")
    assert found[RULE].category == "other"
    assert verdict.category == "other"


@pytest.mark.parametrize("text", [
    # negated
    "The allreduce times out after 30 minutes at step 3. It is not because rank 0 is saving a checkpoint: no save "
    "happens before step 1000.",
    # asked
    "The allreduce times out after 30 minutes at step 3000. Could it be because rank 0 is saving the checkpoint?",
    # another person's run
    "In #1234 someone said their timeout came while rank 0 was saving, but ours hangs at the first allreduce on 2 "
    "GPUs.",
    # a past state, cured
    "Last month we had timeouts while rank 0 was saving, fixed with a barrier. Now the first allreduce hangs on 2 GPUs "
    "and times out.",
    "Previously we saw watchdog timeouts while rank 0 was saving. Now the first allreduce hangs on 2 GPUs.",
    # the others, not rank 0
    "The NCCL watchdog timeout fires while non-rank-0 processes are saving their shards.",
])
def test_rank_zero_work_near_misses(text):
    _, found = judged_issue("# NCCL timeout on 8 GPUs\n\n" + text + "\n")
    assert RULE not in found


def test_rank_zero_work_without_a_timeout_is_no_timeout_answer():
    """A pause while rank 0 saves, nothing aborted: no timeout to explain."""
    _, found = judged_issue("# Slow checkpointing\n\nTraining on 8 GPUs pauses for 5 minutes while rank 0 is saving "
                            "the checkpoint. Is that expected?\n")
    assert RULE not in found


# (fx48q) Misfires a review found (/tmp/read48b probes): rank 0's save said harmless, "reads" of a meter after rank 0
# stuck, another person's run, a cure in the next sentence, rank 0 waiting while another rank writes, work denied.
@pytest.mark.parametrize("text", [
    "The allreduce hits the NCCL watchdog timeout at step 500, long before any checkpoint. When rank 0 saves the "
    "checkpoint at step 1000 everything is fine, the save takes 20 seconds.",
    "After 30 minutes the job dies with the NCCL watchdog timeout at the first allreduce. While rank 0 is stuck there, "
    "nvidia-smi reads 100% utilization on every GPU.",
    "A colleague's job timed out while rank 0 was saving. Ours hangs at the first allreduce on 2 GPUs with a watchdog "
    "timeout.",
    "The NCCL watchdog timeout came while rank 0 was saving the checkpoint. Adding dist.barrier() after the save fixed "
    "it. Now the step time doubled from 1.1 s to 2.3 s on 8 A100s with NVLink, and GPU utilization drops.",
    "The NCCL watchdog timeout fires while rank 0 waits at the barrier and rank 3 is still writing its shard.",
    "All-reduce hangs on two RTX 4090s and the NCCL watchdog timeout fires after 30 minutes. It hangs although rank 0 "
    "writes nothing and saves nothing at that point.",
])
def test_rank_zero_work_review_misfires(text):
    verdict, found = judged_issue("# NCCL timeout on 8 GPUs\n\n" + text + "\n")
    assert RULE not in found
    assert verdict.category != "other"


def test_rank_zero_work_not_cured_by_a_barrier_still_fires():
    """"still not fixed by adding a barrier" is no cure: rank 0's save still outlasts the timeout."""
    _, found = judged_issue("# NCCL timeout\n\nThe NCCL watchdog timeout fires while rank 0 is saving the checkpoint, "
                            "and it is still not fixed by adding a barrier.\n")
    assert found[RULE].category == "other"


@pytest.mark.parametrize("text", [
    # rank 0 named, but not as the one working ("as well as rank 0 while reading")
    "The NCCL watchdog timeout fires on rank 1 as well as rank 0 while reading the first batch, at the first "
    "all-reduce, on our 2x RTX 4090.",
    # rank 0's work denied, and the P2P switch said to cure it
    "All-reduce hangs on two RTX 4090s and the NCCL watchdog timeout fires after 30 minutes; NCCL_P2P_DISABLE=1 fixes "
    "it. The hang happens since rank 0 writes nothing to the log after init.",
    # rank 0's work stands, but turning P2P off is what made it work
    "Setting NCCL_P2P_DISABLE=1 makes it work. Without it, on two RTX 4090s the allreduce hits the NCCL watchdog "
    "timeout while rank 0 saves the checkpoint.",
])
def test_the_p2p_lead_stays_without_rank_zero_work_standing(text):
    """ticket.hang_on_pcie steps aside only for the reading ticket.rank_zero_work fires on, never against the P2P
    switch's own cure."""
    _, found = judged_issue("# NCCL all-reduce hangs on 2x RTX 4090\n\n" + text + "\n")
    assert found["ticket.hang_on_pcie"].confidence == pytest.approx(0.5)
    assert "rank 0" not in found["ticket.hang_on_pcie"].title


def test_the_p2p_lead_steps_aside_when_rank_zero_work_stands():
    _, found = judged_issue("# NCCL hangs on 2x 4090\n\nOn two RTX 4090s the allreduce hits the NCCL watchdog timeout "
                            "while rank 0 saves the checkpoint.\n")
    assert found[RULE].category == "other"
    assert found["ticket.hang_on_pcie"].confidence == pytest.approx(0.25)
