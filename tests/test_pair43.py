"""Issue 11 (session s43, pass pair43): four mechanisms that two kept threads share (one for the last), each looked
for in a third real thread before any reading is written (tests/data/pair43/SOURCES.md has the searches, what was
found and why none reaches three):

(a) low utilisation at a small batch / one request settled as what decode gives: no third thread. The one untaken
    thread of that shape, xberg-io/xberg#1711, was settled the other way (host-side copies, not the batch), and the
    current host reading answers it right; a reading "batch-1 decode, so expected_physics" would turn it wrong.
(b) a fitting figure settled healthy, (c) NVLink words about another machine, (d) "training is normal, but lots of
    NCCL warnings": no untaken thread with a settled answer.

No reading is changed; the kept paste is held to its settled answer so a later (a) reading cannot flip it unseen.
"""

from pathlib import Path

from conftest import judged_issue

DATA = Path(__file__).parent / "data" / "pair43"


def test_low_utilisation_at_one_request_settled_host_side_stays_host_bound():
    """xberg-io/xberg#1711: 27 % utilisation on one A100 for candle-deepseek-ocr, the title blaming one page decoded
    at a time; the fix (xberg#1713) found the cause "not the decode loop and not batch size" but the MoE gate's
    scores copied back from the device one scalar at a time, per token (6x faster once read in one transfer)."""
    verdict, findings = judged_issue((DATA / "xberg1711.md").read_text(encoding="utf-8"))
    assert verdict.category == "host_bound"
    assert "ticket.gpu_utilisation" in findings


def test_probe_batch_one_utilisation_is_not_called_physics():
    """Probe (my sentence, not a thread): the bare (a) shape. With two threads for the layout answer and one real
    thread settled host-side, the tool keeps the host reading; it must not call this expected_physics."""
    verdict, _ = judged_issue("# GPU utilisation low\n\nOn one RTX 4090 the GPU utilisation is only 25% when I "
                              "generate at batch size 1.\n")
    assert verdict.category != "expected_physics"


def test_probe_negated_batch_is_no_figure_to_read():
    """Probe: the reporter denies the batch is the cause (answered insufficient_data at 2b1c2140); it must not be
    read as the batch's physics either."""
    verdict, _ = judged_issue("# GPU utilisation low\n\nI don't think it is the batch size: GPU utilisation is 25% "
                              "at batch size 1.\n")
    assert verdict.category != "expected_physics"
