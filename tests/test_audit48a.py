"""Audit of the `insufficient_data` answers (pass audit48a, issue 11): the kept pastes main answers insufficient_data
in the folders of tests/data before "r", each read beside its thread's settled answer (tests/data/audit48a/AUDIT.md).

What the audit found, kept here as behaviour on the real pastes:

- No gap hides an answer: where the tool abstains on an audited paste, no reading favours a category; it is never
  a gap (workload.evidence_coverage, ticket.figure_unjudged, nccl.gdr, ...) that outranks one. With every
  insufficient_data finding taken away the verdict is the same.
- The answerable pastes each miss a different reading; the groupings that reach three threads ("only one GPU is
  used", a GPU idle beside a busy CPU, "X not working" of a speed feature) were settled three different ways, and
  there abstaining is right.
- One reading recurs in four threads: a question mark with the next sentence run on without a space ("very
  strange?RTX3090 load vicuna-7b", lm-sys/FastChat#2475; "Is this normal?The nvswitch", NVIDIA/nccl#258; "Is it a
  issue?How can it", apache/mxnet#2363; "different parameters?I got", NVIDIA/nccl#967) asks (rules.claims._ASKS).
  It changes one verdict: FastChat#2475 (vLLM's reservation asked about) from insufficient_data to healthy.
  (fx48a) Only where its clause reads as a question (an interrogative or auxiliary first, or a bare "very
  strange"), and not in inline code, a URL, after a regex group's ')', nor in a statement a lost character marks.
"""

import shutil
from pathlib import Path

import pytest
from conftest import REPO, issue_bundle

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules import claims
from rules.engine import evaluate, ticket_verdict

DATA = REPO / "tests" / "data"
AUDIT = DATA / "audit48a" / "AUDIT.md"


def _audited() -> list[str]:
    """The pastes of AUDIT.md's table (its first column), as paths under tests/data."""
    rows = [line.split("|")[1].strip() for line in AUDIT.read_text().splitlines()
            if line.startswith("| ") and line.count("|") >= 6 and not line.startswith("| paste")]
    return [f"{row}.md" for row in rows if not set(row) <= {"-"}]


def _judged(tmp_path: Path, rel: str):
    """(facts, findings, verdict) of `diagnose ticket` on the kept paste tests/data/<rel>, copied alone as issue.md."""
    folder = tmp_path / Path(rel).stem
    folder.mkdir()
    shutil.copy(DATA / rel, folder / "issue.md")
    facts = read_bundle([folder])
    findings = evaluate(facts, ticket_predictions(facts))
    return facts, findings, ticket_verdict(facts, findings)


def test_the_table_lists_real_pastes():
    rels = _audited()
    assert len(rels) >= 50
    assert all((DATA / rel).is_file() for rel in rels)
    assert not any(rel.startswith(("tickets/", "paraphrases/", "para3")) for rel in rels)


@pytest.mark.parametrize("rel", _audited())
def test_no_gap_hides_an_answer(tmp_path, rel):
    """Where the tool abstains on an audited paste, taking every gap away leaves it abstaining: the abstention is a
    reading that is missing (the audit's last column), never a gap standing over a cause the paste gives."""
    facts, findings, verdict = _judged(tmp_path, rel)
    if verdict.category != "insufficient_data":
        return  # answered since the audit: nothing is hidden
    without_gaps = ticket_verdict(facts, [f for f in findings if f.category != "insufficient_data"])
    assert without_gaps.category == "insufficient_data", without_gaps.summary


@pytest.mark.parametrize("rel,why", [
    ("extract35b/dspy1052.md", "no fault: the time tracked one long completion in a small set, seen only with more "
                               "samples"),
    ("extract35b/ollama9772.md", "'Parallel Requests not working': no outcome kept"),
    ("extract35b/tabbyapi210.md", "'Batch not working, all requests sequential?': no outcome kept"),
    ("normal_questions/lightllm20.md", "866.94 s against a claimed 188.85 s: the thread settled nothing"),
    ("normal_questions/mii323.md", "a fault fixed in MII main; the post names no model"),
    ("normal_questions/tp117.md", "12 s on TP2 against 5 s on one A6000: the thread settled nothing"),
    ("normal_questions/wc73.md", "Qwen3.6-27B FP8 does not fit 2x 11 GB: the run's quantisation is not said"),
])
def test_right_abstentions_stay_abstentions(tmp_path, rel, why):
    """Pastes that do not decide a cause (AUDIT.md: right): an answer here would be a guess."""
    assert _judged(tmp_path, rel)[2].category == "insufficient_data", why


# ------------------------------------------------------------------- a question mark run on into the next word


def _asks(text: str):
    return claims.asks(issue_bundle(text))


@pytest.mark.parametrize("text", [
    # the kept threads' own lines (physics39/fastchat2475, ut21a/nccl258, physics39/mxnet2363, ut21a/nccl967)
    "# very strange?RTX3090 load vicuna-7b,with 22g of video memory usage\n\nuse vllm\n",
    "# busbw\n\nThe fastest busbw is 122 with 8 gpu in NVswitch But the busbw is 130 with 8 gpu in the NVlink.  "
    "Is this normal?The nvswitch is slower than nvlink when running the program.\n",
    "# 4 gpus\n\nIs it a issue?How can it make possible to accelerate when using 4 gpus.\n",
    "# NCCL_P2P_LEVEL\n\nHow can I use NCCL_P2P_LEVEL to compare performance under different parameters?I got the "
    "same result with all the parameters.\n",
    # probes written here
    "# TP=2 slower\n\nWhy is TP=2 slower than one card?We run vLLM on two L40S cards.\n",
])
def test_a_question_mark_run_on_into_the_next_word_asks(text):
    assert _asks(text) is not None


@pytest.mark.parametrize("text", [
    # a URL's query (review50/tf57893's own line): its key is followed by "="
    "# moved servers\n\nI moved 8 RTX A5000 from an old server. Details here "
    "https://www.asrockrack.com/general/productdetail.asp?Model=3U8G-C612 and the new one is the same.\n",
    "# link\n\nThe log is at http://host/view.php?Id&page=2 and shows the run.\n",
    # a lowercase word after the mark is no new sentence ("x?y" in a path or an expression)
    "# log\n\nThe kernel picks cond?fast:slow paths from the size.\n",
    # a statement with no mark at all
    "# report\n\nThe run finished at 40 tok/s on two RTX 3090.\n",
])
def test_a_mark_inside_a_url_or_a_word_does_not_ask(text):
    assert _asks(text) is None


# (fx48a) the review's probes: each reads no question on main, and the run-on reading of audit48a made each a
# question that ticket.nothing_broken answered healthy. A mark in inline code, in a URL with no query "=", after a
# regex group's ")", or left by bad encoding in a statement is no question.
_SERVED = "We serve Llama-3-8B with vLLM on one A100. "
_NOT_ASKED = [
    "# vLLM TP=2\n\nWe start vLLM on 2 A100 with TP=2. The launcher picks `has_nvlink?NVLink:PCIe` from the "
    "topology, and the server starts.\n",
    "# dashboard\n\n" + _SERVED + "Our dashboard is at http://grafana.local/d/abc?Overview and shows the run.\n",
    "# log\n\n" + _SERVED + "We grep the log with (rank)?Worker to keep the worker lines.\n",
    "# memory\n\n" + _SERVED + "It was deployed on friday?Then the GPU memory usage is 90% on each card.\n",
]


@pytest.mark.parametrize("text", _NOT_ASKED + [
    # near misses: a question's words do not make a URL, a regex group or inline code a question
    "# dashboard\n\nIs the panel at http://grafana.local/d/abc?Overview the one you mean\n",
    "# log\n\nDoes it match (rank)?Worker lines as well\n",
    "# code\n\nCan the launcher read `is ready?Yes or` from the config\n",
    # ... nor a statement: a lost character after a past state, another person's system, a relative "which"
    "# memory\n\nThe driver was updated on monday?After that the GPU memory usage is 90% on each card.\n",
    "# memory\n\nMy colleague runs it on his own cards?Then his GPU memory usage is 90% on each card.\n",
    "# memory\n\nWe get 40 tok/s, which is not expected?Then the GPU memory usage is 90% on each card.\n",
    # ... nor an interrogative word that is not where its clause starts
    "# memory\n\nWe saw why it was slow on friday?Then the GPU memory usage is 90% on each card.\n",
])
def test_a_run_on_mark_outside_a_question_does_not_ask(text):
    assert _asks(text) is None


@pytest.mark.parametrize("text", [
    # the run-on question still asks where its clause reads as one: after a greeting's comma, a sentence, "but"
    "# memory\n\nHi, is this expected?We run vLLM on two L40S cards.\n",
    "# memory\n\n" + _SERVED + "Any idea?The GPU memory usage is 90% on each card.\n",
    "# memory\n\nThe usage is 90%, but why does TP=2 take more memory?The cards are A100.\n",
    "# memory\n\nSo weird?The GPU memory usage is 90% on each card.\n",
])
def test_a_run_on_mark_in_a_question_asks(text):
    assert _asks(text) is not None


def _judged_text(tmp_path: Path, text: str):
    folder = tmp_path / "probe"
    folder.mkdir()
    (folder / "issue.md").write_text(text)
    facts = read_bundle([folder])
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))


@pytest.mark.parametrize("text", _NOT_ASKED)
def test_the_review_probes_are_not_answered_as_normal(tmp_path, text):
    assert _judged_text(tmp_path, text).category == "insufficient_data"


@pytest.mark.parametrize("rel,category", [
    ("physics39/fastchat2475.md", "healthy"),        # the flip: vLLM's pre-allocation asked about, settled healthy
    ("physics39/mxnet2363.md", "expected_physics"),  # already answered: unchanged
    ("ut21a/nccl258.md", "expected_physics"),        # already answered: unchanged
])
def test_threads_with_a_run_on_question(tmp_path, rel, category):
    assert _judged(tmp_path, rel)[2].category == category
