"""Blind batch b50c (session s50): real threads from the less-mined serving tools (tests/data/b50c/SOURCES.md).

The one reading found wrong in three separate threads and mended: the question headings of two bilingual issue
forms were read as the reporter's question. Xinference's bug form prints "Running Xinference with Docker? / 是否使用
Docker 运行 Xinfernece？" above every report, and the form QwenLM/Qwen, Qwen-VL and MiniCPM-V share prints "是否已有关于
该错误的issue或讨论？ | Is there an existing issue / discussion for this?" and "该问题是否在FAQ中有解答？ | Is there an
existing answer for this in FAQ?". claims.asks returned those headings, so a bug report with no question of its own
("two replicas get non-contiguous GPU indices", xorbitsai/inference#4369, fixed by a PR) was answered by
ticket.nothing_broken as a behaviour asked about and called normal.
"""

import pytest
from conftest import issue_bundle, judged_kept_paste

from rules import claims

# Kept pastes (tests/data/<rel>) whose only asking lines are the form's headings: no question of the reporter's.
FORM_ONLY = [
    "b50c/xorbits4369.md",             # Xinference form; a bug report (fixed by xorbitsai/inference PR #4370)
    "extract32/xinference1976.md",     # Xinference form
    "symptom34/xinference_3205.md",    # Xinference form
    "ut22c/qwen970.md",                # QwenLM form (Chinese | English headings)
    "ut22c/qwenvl447.md",              # the same form in Qwen-VL
    "cn38/minicpmv476.md",             # the same form in MiniCPM-V
]


@pytest.mark.parametrize("rel", FORM_ONLY)
def test_a_forms_question_headings_are_not_the_reporters_question(tmp_path, rel):
    from conftest import REPO

    facts = issue_bundle((REPO / "tests" / "data" / rel).read_text())
    assert claims.asks(facts) is None


def test_the_reporters_own_question_under_the_form_is_still_read(tmp_path):
    """symptom34/xinference_2223: under the Xinference form the reporter asks which parallelism --n-gpu uses."""
    from conftest import REPO

    facts = issue_bundle((REPO / "tests" / "data" / "symptom34" / "xinference_2223.md").read_text())
    question = claims.asks(facts)
    assert question is not None and "n-gpu" in question.quote


def test_a_bug_report_under_the_form_is_not_called_normal(tmp_path):
    """xorbits4369 was healthy 0.69 from ticket.nothing_broken answering the form's Docker heading."""
    verdict, found = judged_kept_paste(tmp_path, "b50c/xorbits4369.md")
    assert verdict.category != "healthy"
    assert "ticket.nothing_broken" not in found or found["ticket.nothing_broken"].category != "healthy"


@pytest.mark.parametrize("text", [
    # the reporter's own questions in the headings' words, with more said than the heading: still questions
    "Is running Xinference with Docker slower than a pip install?",
    "Is there an existing issue for the NCCL hang on H100 that I missed?",
    "请问是否已有关于该错误的issue或讨论的解决办法？",
    "Running vLLM with Docker is slower than on the host, why?",
])
def test_near_misses_stay_questions(text):
    assert claims.asks(issue_bundle(text + "\n")) is not None
