"""One report never says both "this rate is one GPU's pace" and "this rate cannot be judged": a layer split's
one stream is judged against one GPU streaming every weight, which needs no fit (rules.ticket_figures
at_one_gpus_pace), so ticket.figure_unjudged does not add its "does not fit as assumed" beside it. The texts are
written for this test."""

import pytest
from conftest import report_json

SPLIT = ["# Is this normal?\n\nRunning a 70B model (Q4_K_M) with llama.cpp on 2x RTX 3090, I get {rate} tokens/s. "
         "Is that expected?\n",
         "# llama.cpp speed\n\nLlama 3 70B Q4_K_M split over two RTX 3090 cards decodes at {rate} tok/s.\n",
         "# Two 3090s no faster\n\nWith a 70b Q4_K_M model on 2 x RTX 3090 (llama.cpp) generation runs {rate} t/s, "
         "is this normal?\n"]


def _rules(tmp_path, text: str) -> list[str]:
    (tmp_path / "issue.md").write_text(text)
    return [f["rule"] for f in report_json("ticket", tmp_path)["findings"]]


@pytest.mark.parametrize("text", SPLIT)
def test_a_layer_split_rate_at_one_gpus_pace_is_judged_not_unjudged(tmp_path, text):
    rules = _rules(tmp_path, text.format(rate=14))
    assert "ticket.layer_split_rate" in rules and "ticket.figure_unjudged" not in rules


@pytest.mark.parametrize("text", SPLIT)
def test_a_rate_no_gpu_pace_explains_is_still_asked_about(tmp_path, text):
    rules = _rules(tmp_path, text.format(rate=2))  # far below one GPU's pace: the layer split does not judge it
    assert "ticket.layer_split_rate" not in rules
