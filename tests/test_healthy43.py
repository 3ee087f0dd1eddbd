"""Issue 11 (session s43, pass healthy43): "nothing is wrong here" - the meaning of nccl-tests' result check asked.

Real first posts whose settled answer is healthy (tests/data/healthy43/SOURCES.md). Three ask what nccl-tests' check
figures mean: the old table's "error" column (the largest deviation of any value from the expected result, 1e-06 and
the like) and the "Out of bounds values" line ("How to interpret the error column?", NVIDIA/nccl-tests#176; "I don't
know what's mean error field and value 5e-07", #118; "why the Out of Bounds values is 0?", #52). The word "error" made
them read as error reports (insufficient_data, asking for the failing run's output). The maintainer's answer, in
nccl-tests#52 and NVIDIA/nccl#259: floating-point reductions round, the test counts only values beyond its bounds, and
"Out of bounds values : 0 OK" means the data came back right.

claims.check_column_asked reads the question; rules.ticket_questions.check_column answers it (healthy, a passed check),
not where the check failed (a #wrong count, out-of-bounds values above 0) nor where a hang, failure or shortfall is
said. Probes are labelled; each has negations, hearsay, statements and near-misses that must not fire.
"""

from pathlib import Path

import pytest
from conftest import judged_issue, said

from rules import claims

DATA = Path(__file__).parent / "data" / "healthy43"


def _ticket(body: str, title: str = "nccl-tests question") -> str:
    return f"# {title}\n\n{body}\n"


# ----------------------------------------------------------------------------- the real first posts

@pytest.mark.parametrize("name", ["ncclt52", "ncclt118", "ncclt176"])
def test_check_column_questions_are_healthy(name):
    verdict, found = judged_issue((DATA / f"{name}.md").read_text())
    assert verdict.category == "healthy"
    assert "ticket.check_column" in found


@pytest.mark.xfail(strict=True, reason=(
    "alibaba/Pai-Megatron-Patch#543: 'Training is normal, but there is lots of unexpected nccl warnings', the "
    "warnings only in screenshots. claims.run_unaffected reads a run that proceeds/runs/works correctly, not one that "
    "'is normal'; widening it to a state ('X is normal/fine, but <warning>') rests on this one thread here, short of "
    "the three the pass rules ask for"))
def test_training_is_normal_but_warnings():
    verdict, _ = judged_issue((DATA / "paimegatron543.md").read_text())
    assert verdict.category == "healthy"


# ----------------------------------------------------------------------------- the reading (probes)

@pytest.mark.parametrize("body", [
    # probes: the question put plainly, in the other forms the real posts use
    "I ran all_reduce_perf on 8 GPUs. What does the error column mean?",
    "Why are the error values not zero in the all_reduce_perf output?",
    "I don't understand what the out of bounds values line of nccl-tests means.",
    "How should I interpret the #wrong column of all_reduce_perf?",
])
def test_check_column_asked_reads_the_question(body):
    assert claims.check_column_asked(said(_ticket(body))) is not None


@pytest.mark.parametrize("body,title", [
    # probes that must not fire: another program's error column (no nccl-tests named), a statement, an error asked
    # about that is no check figure, hearsay, advice
    ("What does the error column mean in my script's output?", "my benchmark"),
    ("The error column in all_reduce_perf shows 1e-06.", "nccl-tests"),
    ("What does this error mean? all_reduce_perf fails with 'unhandled cuda error'.", "nccl-tests error"),
    ("A colleague asked what the error column means in nccl-tests; my all_reduce_perf hangs.", "nccl-tests"),
    ("Try to check the error column of all_reduce_perf.", "nccl-tests"),
])
def test_check_column_asked_near_misses(body, title):
    assert claims.check_column_asked(said(_ticket(body, title))) is None


@pytest.mark.parametrize("body", [
    # probes: the check failed, or something else is the ticket's question
    "all_reduce_perf prints # Out of bounds values : 12 FAILED. What does out of bounds values mean?",
    "all_reduce_perf busbw is only 3 GB/s, way too slow. Also what does the error column mean?",
    "all_reduce_perf hangs after 8 bytes. What does the error column mean?",
])
def test_a_failed_check_or_another_trouble_is_not_answered_healthy(body):
    verdict, found = judged_issue(_ticket(body))
    assert "ticket.check_column" not in found
    assert verdict.category != "healthy"


def test_a_wrong_count_in_the_table_blocks_it():
    # probe: a #wrong count above 0 in the pasted table is the check failing, whatever is asked
    head = "#  size  count  type  redop  root  time  algbw  busbw #wrong  time  algbw  busbw #wrong"
    units = "#  (B)  (elements)  (us)  (GB/s)  (GB/s)  (us)  (GB/s)  (GB/s)"
    row = "  1048576  262144  float  sum  -1  50.12  20.92  36.61  3  49.80  21.06  36.84  0"
    table = f"```\n{head}\n{units}\n{row}\n# Out of bounds values : 3 FAILED\n```"
    verdict, found = judged_issue(_ticket("How to interpret the #wrong column?\n\n" + table))
    assert "ticket.check_column" not in found
    assert verdict.category != "healthy"
