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
def test_a_rate_below_one_gpus_pace_is_judged_as_a_shortfall(tmp_path, text):
    """Far below one GPU's pace less the hand-overs: the same measured-vs-expected shortfall any figure below its
    band gets (an `other` warning with the band), not left unjudged."""
    (tmp_path / "issue.md").write_text(text.format(rate=2))
    rep = report_json("ticket", tmp_path)
    (f,) = [f for f in rep["findings"] if f["rule"] == "ticket.layer_split_rate"]
    assert (f["category"], f["severity"]) == ("other", "info")  # the beyond-band lead (rules.beyond_band)
    rate, band = f["evidence"][:2]
    assert rate["measured"] == 2 < float(band["expected"].split("-")[0])
    assert "ticket.figure_unjudged" not in [g["rule"] for g in rep["findings"]]


# One RTX 4090 against two and three in a llama.cpp layer split, as the figures of a llama-cpp-python thread were
# posted (a list, prose, and llama.cpp's print_timings lines under a heading per GPU count).
HEAD = "# Two RTX 4090 slower than one with llama.cpp\n\nLlama 2 13B Q4_K_M gguf, llama-server, all layers offloaded"
LIST = (HEAD + ".\nOne RTX 4090: 54.22 tokens per second.\n"
        "Two RTX 4090 (default layer split): 19.77 tokens per second.\nIs this normal?\n")
PROSE = (HEAD + ", 2x RTX 4090 with the default layer split: 19.77 tokens per second (one 4090 alone gives 54). "
         "Is this normal?\n")
TIMING = "print_timings:        eval time = {} ms / {} runs   ({} ms per token, {} tokens per second)\n"
TIMINGS = ("# Multiple GPU incredibly slow inference (llama-cpp-python, RTX 4090)\n\n"
           "Llama 2 13B Q4 gguf, all layers offloaded.\n"
           "With only one NVIDIA RTX 4090 (CUDA_VISIBLE_DEVICES=\"0\"):\n" + TIMING.format(4020.70, 218, 18.44, 54.22)
           + "With 2x RTX 4090 (CUDA_VISIBLE_DEVICES=\"0, 1\"):\n" + TIMING.format(16435.21, 325, 50.57, 19.77)
           + "With 3x RTX 4090:\n" + TIMING.format(4598.41, 16, 287.40, 3.48) + "Is this expected?\n")


def _split_findings(tmp_path, text):
    (tmp_path / "issue.md").write_text(text)
    rep = report_json("ticket", tmp_path)
    return rep, {f["evidence"][0]["measured"]: f for f in rep["findings"] if f["rule"] == "ticket.layer_split_rate"}


@pytest.mark.parametrize("text", [LIST, PROSE, TIMINGS])
def test_every_layer_split_figure_is_judged_whatever_the_layout(tmp_path, text):
    """Each one-stream figure of a layout is judged against one GPU's pace less the hand-over copies: 54.22 tok/s on
    one 4090 is inside it (physics), 19.77 on two and 3.48 on three are below it (the same `other` warning in every
    layout), and the expected figure falls (slightly, within the displayed three digits) with each hand-over added."""
    rep, judged = _split_findings(tmp_path, text)
    assert rep["verdict"]["category"] == "other"
    slow = judged[19.77]
    assert (slow["category"], slow["severity"]) == ("other", "info")
    assert 19.77 < float(slow["evidence"][1]["expected"].split("-")[0])
    if 54.22 in judged:
        assert judged[54.22]["category"] == "expected_physics"
        # the split takes the predictor's PP figure (llama.cpp drops its CUDA graphs in pipeline mode): 77 vs 72 tok/s
        assert judged[54.22]["evidence"][0]["expected"] > slow["evidence"][0]["expected"]
        assert "less 0 hand-over" in judged[54.22]["evidence"][0]["detail"]
        assert "less 1 hand-over" in slow["evidence"][0]["detail"]
    if text is TIMINGS:
        assert judged[3.48]["category"] == "other" and set(judged) == {54.22, 19.77, 3.48}
    assert not any(f["rule"] in ("ticket.measured_vs_expected", "ticket.figure_unjudged") for f in rep["findings"])


UNFIT = "# Slow 70B\n\nLlama 3 70B Q8_0 gguf with llama.cpp over 2x RTX 3060 runs {rate} tokens/s. Is that normal?\n"


@pytest.mark.parametrize("text", [LIST, TIMINGS, SPLIT[0].format(rate=2), UNFIT.format(rate=1.5)])
def test_each_split_figure_predicts_its_layer_split_once(tmp_path, monkeypatch, text):
    """The pace and the memory-fit check of one figure read one prediction of its PP n layout (rules.ticket_figures
    SplitPace.layout), not one for the pace and another for the fit. The predictor itself runs: the wrapper only
    counts its calls."""
    from diagnose.bundle import read_bundle
    from rules import ticket_figures, workload
    from rules.engine import evaluate

    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    calls = []

    def counted(facts, tp, batch, prompt=None, pp=1, dtype=None, **kw):
        calls.append((pp, dtype))
        return workload.predict_layout(facts, tp, batch, prompt, pp, dtype, **kw)

    monkeypatch.setattr(ticket_figures, "predict_layout", counted)
    findings = evaluate(facts, only=["ticket.layer_split_rate"])
    split = [f for f in findings if "less 0 hand-over" not in f.evidence[0].detail]  # (one GPU: no PP layout)
    assert split
    assert len([c for c in calls if c == (c[0], None) and c[0] > 1]) == len(split)
