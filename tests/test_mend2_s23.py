"""Mends of the ticket's readings of the reporter's words (issue 11, session 23, second pass), each tested on real
sentences kept with their threads in tests/data/mend2_s23/*.toml (`adapted` says where the words were put in another
form):

1. A decode rate written in Chinese or Japanese word order ("70tokens左右每秒", "tokens/s仅为40.24") is read as the
   rate the English orders are, by the same reader (issue_md.CJK_RATE); a change in the rate, a count of tokens and a
   rate of requests are not.
"""

from pathlib import Path

import pytest
from conftest import toml_cases, unsourced_cases

DATA = Path(__file__).parent / "data" / "mend2_s23"


def _cases(name: str):
    return toml_cases(DATA, name)


def test_every_sentence_names_its_source():
    assert unsourced_cases(DATA) == []


# --------------------------------------------------------------------------- 1. rates in CJK word order

@pytest.mark.parametrize("case", _cases("cjk_rates"))
def test_a_rate_in_cjk_word_order_is_read_as_a_decode_rate(case):
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Measurement

    records = issue_md.parse(f"# 速度\n\n{case['sentence']}\n", "issue.md")
    rates = [m.value for m in records if isinstance(m, Measurement) and m.metric == "decode_tok_s"]
    if "rate" in case:
        assert rates == [pytest.approx(case["rate"])], case["sentence"]
    else:
        assert rates == [], case["sentence"]
