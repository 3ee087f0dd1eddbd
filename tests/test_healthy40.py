"""Issue 11 (session s40, pass healthy40): "nothing is wrong here" - a message beside a run that works.

Real first posts whose settled answer is healthy (tests/data/healthy40/SOURCES.md) and the two readings they lacked:

- claims.run_unaffected: the reporter's own sentence that the job works and only a message is in question ("training
  proceeds correctly, but emits these misleading messages", pytorch/pytorch#128998; "tests do not fail, just a ton of
  warnings", helmholtz-analytics/heat#1003; "does not affect actual execution correctness", vllm-project/vllm#31005).
- claims.ignore_asked: the reporter's question whether a warning matters or can be ignored, where the quoted warning
  made the ticket read as an error report ("do I need to deal with such warnings? Or just ignore it?",
  zengxianyu/crfill#8; "Will this warning affect the accuracy of training?", gaopengcuhk/SMCA-DETR#6).

rules.ticket_questions.message_only weighs them (healthy, a passed check); rules.engine._weighed sets aside a cause that
only explains speed (read off the launch settings) beside it. Probes are labelled; each reading has negations,
hearsay, guesses, questions and near-misses that must not fire.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims

DATA = Path(__file__).parent / "data" / "healthy40"


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def _ticket(body: str, title: str = "warnings") -> str:
    return f"# {title}\n\n{body}\n"


# ----------------------------------------------------------------------------- the real first posts

@pytest.mark.parametrize("name", ["torch128998", "heat1003", "vllm31005", "crfill8", "smcadetr6", "neox990",
                                  "dsexamples615"])
def test_real_first_posts_are_healthy(name):
    verdict, _ = judged_issue((DATA / f"{name}.md").read_text())
    assert verdict.category == "healthy"


@pytest.mark.parametrize("name,rule_expected", [
    ("torch128998", True), ("heat1003", True), ("vllm31005", True), ("crfill8", True),
    # answered already by ticket.nothing_broken ("is this normal?", "Will this warning affect ...?" read as normal?)
    ("neox990", False), ("smcadetr6", False), ("dsexamples615", False),
])
def test_which_rule_answers(name, rule_expected):
    _, found = judged_issue((DATA / f"{name}.md").read_text())
    assert ("ticket.message_only" in found) is rule_expected


def test_multi_node_warning_does_not_become_a_pipeline_bubble():
    # vllm-project/vllm#31005: TP 8 x PP 2 over two nodes, the reporter says the warning is wrong and the run correct;
    # the launch line alone used to make it pp_bubble
    verdict, found = judged_issue((DATA / "vllm31005.md").read_text())
    assert verdict.category == "healthy"
    assert "ticket.pp_bubble" in found  # still reported, no longer the verdict


# ----------------------------------------------------------------------------- run_unaffected

@pytest.mark.parametrize("sentence", [
    # real sentences (the three threads)
    "When using nodes connected by IPv6, training proceeds correctly, but emits these misleading messages at log "
    "level error:",
    "#### CC EDIT 9.10.2023 tests do not fail, just a ton of warnings (see below)",
    "The issue is limited to the **log message logic** and does not affect actual execution correctness.",
    # probes
    "Everything runs fine but the log is full of these warnings, can I ignore them?",
    "The job completes successfully; it just prints this warning on every rank.",
    "The warning does not affect the results, the job finishes fine.",
])
def test_run_unaffected_read(sentence):
    assert claims.run_unaffected(_facts(_ticket(sentence))) is not None


@pytest.mark.parametrize("sentence", [
    # probes: negated, asked, guessed, hearsay, a time gone, a part of the runs, still wrong, no message named
    "Training does not proceed correctly and prints these warnings.",
    "Does this warning affect correctness?",
    "I think the warning doesn't affect the results.",
    "Someone said the warning does not affect the results.",
    "I read that the warning does not affect correctness.",
    "It worked fine before the upgrade, now it prints this warning and hangs.",
    "Training proceeds correctly until step 500, then this warning appears.",
    "It works fine on a single GPU, but with two it prints this warning.",
    "The training still fails with this warning.",
    "Training proceeds correctly. The throughput is 20 tok/s.",
    "If the warning does not affect the results, I will ignore it.",
])
def test_run_unaffected_not_read(sentence):
    assert claims.run_unaffected(_facts(_ticket(sentence))) is None


# ----------------------------------------------------------------------------- ignore_asked

@pytest.mark.parametrize("sentence", [
    # real sentences
    "Then, do I need to deal with such warnings? Or just ignore it?",
    "Will this warning affect the accuracy of training？",
    # probes
    "Is this warning harmless?",
    "Can I safely ignore these NCCL warnings?",
    "Is it safe to ignore this message?",
])
def test_ignore_asked_read(sentence):
    assert claims.ignore_asked(_facts(_ticket(sentence))) is not None


@pytest.mark.parametrize("sentence", [
    # probes: a statement, advice, another's word, a question about no message
    "I ignored the warning.",
    "You can ignore this warning.",
    "Someone said we can ignore this warning, is that right?",
    "Can I ignore the last GPU?",
    "The warning is harmless.",
])
def test_ignore_asked_not_read(sentence):
    assert claims.ignore_asked(_facts(_ticket(sentence))) is None


# ----------------------------------------------------------------------------- verdicts that must not be healthy

@pytest.mark.parametrize("text", [
    # probes: the run said to work, then a failure, a slowness or a figure beside it
    _ticket("Training proceeds correctly, but it prints this NCCL warning and then hangs at the end of the epoch.\n\n"
            "[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:22010"),
    _ticket("Inference runs fine but these warnings are printed and it is very slow with two GPUs."),
    _ticket("UserWarning: Was asked to gather along dimension 0\n\nDo I need to deal with such warnings? The training "
            "crashed after the second epoch."),
])
def test_failure_beside_the_message_is_not_healthy(text):
    verdict, found = judged_issue(text)
    assert "ticket.message_only" not in found
    assert verdict.category != "healthy"
