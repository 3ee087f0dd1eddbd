"""Mends of the ticket's readings of the reporter's words (issue 11, session 23, second pass), each tested on real
sentences kept with their threads in tests/data/mend2_s23/*.toml (`adapted` says where the words were put in another
form):

1. A decode rate written in Chinese or Japanese word order ("70tokens左右每秒", "tokens/s仅为40.24") is read as the
   rate the English orders are, by the same reader (issue_md.CJK_RATE); a change in the rate, a count of tokens and a
   rate of requests are not.
3. A release glued to its component's name ("nccl2.7.8", "NCCL2.21.5", "torch2.3.0", "采用pytorch1.13.1的") is read as
   the spaced spelling is (claims.nccl_versions, claims._TORCH_RELEASE); a library named after torch (torch2trt), a
   GPU count and another component's glued release ("cuda12.9") are not. (Item 2, the GLM-4.5/4.6/Air rows, was
   already in rules/catalog/models.toml with their config.json addresses: the names tickets write are tested to reach
   them, and GLM models of other shapes to reach none.)
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


# --------------------------------------------------------------------------- 2. GLM-4.5 / 4.6 / 4.5-Air named

@pytest.mark.parametrize("case", _cases("glm_names"))
def test_the_glm_names_tickets_write_reach_their_catalog_rows(case):
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Workload
    from rules import catalog

    records = issue_md.parse(f"# Slow\n\n{case['sentence']}\n", "issue.md")
    rows = {spec.key for w in records if isinstance(w, Workload) and w.model
            for spec in [catalog.find_model(w.model)] if spec and spec.key.startswith("glm")}
    assert rows == ({case["key"]} if "key" in case else set()), case["sentence"]


# --------------------------------------------------------------------------- 3. a component's release, name glued

@pytest.mark.parametrize("case", _cases("component_releases"))
def test_a_release_glued_to_its_components_name_is_read(case):
    from conftest import said

    from rules import claims

    if "nccl" in case:
        assert claims.nccl_versions(case["sentence"]) == case["nccl"], case["sentence"]
    else:
        found = [c.data["versions"] for c in claims.torch_releases_compared(said(case["sentence"]))]
        assert found == ([case["torch"]] if "torch" in case else []), case["sentence"]
