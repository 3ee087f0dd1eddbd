"""ticket.rate_ratio: two boards' decode rates against the ratio the predictor gives for the same model, batch and
layout (issue 11 m). Real public figures (each URL checked new with scripts/case_url_used.py, paraphrased here),
sentences written here in other word orders and languages, negations, and which board is which."""

import pytest
from test_ticket_figures import _issue


def _ratio(text):
    facts, findings, verdict = _issue(text)
    return [f for f in findings if f.rule == "ticket.rate_ratio"], findings, verdict


def _ratio_ev(f):
    (e,) = [e for e in f.evidence if e.unit == "x"]
    low, high = (float(x) for x in e.expected.split("-"))
    return e.measured, low, high


# --------------------------------------------------------------------------- real figures: inside the ratio's band
@pytest.mark.parametrize("text", [
    # https://github.com/mlc-ai/llm-perf-bench/pull/1 (4-bit Llama-2, MLC LLM 7B: RTX 4090 191.0, RTX 3090 Ti 166.7
    # tok/s; ExLlama 7B: 152.56 and 112.72; ExLlama 13B: 93.88 and 69.31)
    "# 4090 vs 3090 Ti\n\nLlama-2-7B 4-bit (q4f16_1) with MLC LLM: the RTX 4090 reaches 191.0 tok/s while the RTX "
    "3090 Ti reaches 166.7 tok/s.\n",
    "# 4090 vs 3090 Ti\n\nExLlama, Llama-2-7B GPTQ 4-bit: RTX 4090 152.56 tok/s, RTX 3090 Ti 112.72 tok/s.\n",
    "# 4090 vs 3090 Ti\n\nExLlama, Llama-2-13B GPTQ 4-bit: RTX 4090 93.88 tok/s, RTX 3090 Ti 69.31 tok/s.\n",
    # written here: the reporter's complaint of issue 11, in two word orders and in Chinese
    "# slow\n\nMy 3090 does 40 tok/s with Llama-3.1-8B on vLLM, the 4090 only 45 tok/s.\n",
    "# slow\n\nvLLM with Llama-3.1-8B. On the 4090 I get only 45 tok/s. On my old 3090 I got 40 tok/s.\n",
    "# slow\n\nvLLM, Llama-3.1-8B: 3090 跑 40 tok/s，4090 只有 45 tok/s。\n",
])
def test_two_boards_rates_in_the_predicted_ratio_are_physics(text):
    (f,), findings, verdict = _ratio(text)
    assert f.category == "expected_physics" and verdict.category == "expected_physics"
    measured, low, high = _ratio_ev(f)
    assert low <= measured <= high
    # both expected figures with where they came from, and the limiting term with its datasheet figures
    rates = [e for e in f.evidence if e.unit == "tok/s"]
    assert len(rates) == 2 and all(e.expected > 0 for e in rates)
    assert any("limiting term: memory" in e.detail for e in f.evidence)
    assert any(e.source == "catalog:gpus.toml" and e.unit == "GB/s" for e in f.evidence)
    # the datasheet answer stays silent where the ratio is judged: one answer for one comparison
    assert not [g for g in findings if g.rule == "ticket.gpus_compared"]


def test_a_full_load_total_on_each_board_is_not_one_streams_ratio():
    # https://compute.hivenet.com/fr/post/rtx-4090-and-5090s---up-to-2-3x-faster-than-an-a100 : ~3802 tok/s on the
    # 5090 against ~3748 on the A100 under heavy load, Llama 3.1 8B, vLLM: totals at a load the sentence leaves out
    found, _, _ = _ratio("# 5090 vs A100\n\nLlama-3.1-8B on vLLM under heavy load: the 5090 delivered ~3802 tokens/s "
                         "vs ~3748 tokens/s on the A100.\n")
    assert not found


# --------------------------------------------------------------------------- outside the band: which side is short
@pytest.mark.parametrize("text, short", [
    ("# slow\n\nLlama-2-7B with vLLM: the A100 80GB SXM gives 75 tok/s but the H100 SXM only 60 tok/s.\n", "H100"),
    ("# slow\n\nWith vLLM and Llama-2-7B the H100 SXM only gives 60 tok/s, while the A100 80GB SXM gives 75 tok/s.\n",
     "H100"),
    ("# slow\n\nLlama-2-7B with vLLM: the H100 SXM gives 110 tok/s but the A100 80GB SXM only 40 tok/s.\n", "A100"),
    ("# slow\n\nLlama-2-7B with vLLM: the A100 80GB SXM only gives 40 tok/s, the H100 SXM 110 tok/s.\n", "A100"),
    # a cause ruled out does not clear the figures
    ("# slow\n\nLlama-2-7B on vLLM. A100 80GB SXM: 75 tokens/s. H100 SXM: 60 tokens/s. It is not the driver, we "
     "ruled that out.\n", "H100"),
])
def test_a_ratio_outside_the_band_names_the_board_that_falls_short(text, short):
    (f,), _, verdict = _ratio(text)
    assert f.category == "other" and verdict.category == "other"
    assert f"the {short}" in f.title and "delivers less" in f.title
    assert short in f.fix
    measured, low, high = _ratio_ev(f)
    assert not low <= measured <= high


def test_the_order_the_boards_are_named_in_does_not_change_the_answer():
    a, _, _ = _ratio("# q\n\nvLLM, Llama-2-7B: A100 80GB SXM 75 tok/s, H100 SXM 60 tok/s.\n")
    b, _, _ = _ratio("# q\n\nvLLM, Llama-2-7B: H100 SXM 60 tok/s, A100 80GB SXM 75 tok/s.\n")
    assert [(f.category, f.title) for f in a] == [(f.category, f.title) for f in b]


# --------------------------------------------------------------------------- negations: one board measured
@pytest.mark.parametrize("text", [
    "# slow\n\nWith vLLM and Llama-2-7B the A100 80GB SXM gives 75 tok/s. We have not tried the H100 yet.\n",
    "# slow\n\nWith vLLM and Llama-2-7B we measured 75 tok/s on the A100 80GB SXM. The published figure for the H100 "
    "is 110 tok/s.\n",
    "# slow\n\nThe A100 80GB SXM gives 75 tok/s and the H100 SXM 60 tok/s.\n",  # no model: no prediction to set against
    # issue 11 n: the line names two models and no clause says which figure is whose: no guess
    "# slow\n\nExLlama, GPTQ 4-bit, Llama-2-7B and Llama-2-13B. RTX 4090: 152.56 tok/s. RTX 3090 Ti: 69.31 tok/s.\n",
    "# slow\n\nRTX 4090: 152.56 tok/s. RTX 3090 Ti: 69.31 tok/s. ExLlama, GPTQ 4-bit; tried the 7B and the 13B.\n",
])
def test_no_ratio_without_two_measured_boards_and_a_model(text):
    found, _, _ = _ratio(text)
    assert not found


# --------------------------------------------------------------------------- issue 11 n: each figure of its own model
# https://github.com/mlc-ai/llm-perf-bench/pull/1 (4-bit Llama-2; MLC LLM: RTX 4090 7B 191.0, 13B 108.8 tok/s, RTX 3090
# Ti 7B 166.7, 13B 99.2; ExLlama: RTX 4090 7B 152.56, 13B 93.88, RTX 3090 Ti 7B 112.72, 13B 69.31): one board's 7B
# set beside the other board's 13B, written here in several word orders and in Chinese. Judged against one model the
# pair reads "the 3090 Ti delivers less" (x1.93-x2.20 against an expected x1.01); against each figure's own model the
# ratio is the boards' and the sizes' physics.
@pytest.mark.parametrize("text", [
    "# 4090 vs 3090 Ti\n\nMLC LLM, Llama-2 4-bit (q4f16_1): the 7B on the RTX 4090 reaches 191.0 tok/s, the 13B on the "
    "RTX 3090 Ti 99.2 tok/s.\n",
    "# 4090 vs 3090 Ti\n\nMLC LLM with 4-bit Llama-2 (q4f16_1). Llama-2-13B on my RTX 3090 Ti: 99.2 tok/s; Llama-2-7B "
    "on the RTX 4090: 191.0 tok/s.\n",
    "# slow\n\nExLlama, GPTQ 4-bit: RTX 4090 running Llama-2-7B gets 152.56 tok/s while RTX 3090 Ti running "
    "Llama-2-13B gets 69.31 tok/s.\n",
    "# 慢\n\nExLlama GPTQ 4-bit：RTX 4090 上 Llama-2-7B 152.56 tok/s，RTX 3090 Ti 上 Llama-2-13B 69.31 tok/s。\n",
])
def test_two_boards_running_two_models_are_each_judged_against_their_own_model(text):
    (f,), _, verdict = _ratio(text)
    assert f.category == "expected_physics" and verdict.category == "expected_physics"
    measured, low, high = _ratio_ev(f)
    assert low <= measured <= high and low > 1.0  # the 7B's board is expected faster: its model is half the bytes
    rates = {e.detail: e.expected for e in f.evidence if e.unit == "tok/s"}
    assert any("7b" in d and "4090" in d for d in rates) and any("13b" in d and "3090 Ti" in d for d in rates)



@pytest.mark.parametrize("text", [
    # a model named only to say it was not run leaves one model: both figures are the 7B's
    "# slow\n\nExLlama GPTQ 4-bit with Llama-2-7B (not the 13B) on the RTX 4090: 152.56 tok/s; RTX 3090 Ti 69.31 "
    "tok/s.\n",
    "# slow\n\nExLlama GPTQ 4-bit, Llama-2-7B, not Llama-2-13B. RTX 4090: 152.56 tok/s, RTX 3090 Ti: 69.31 tok/s.\n",
    "# slow\n\nExLlama GPTQ 4-bit: Llama-2-7B rather than the 13B. RTX 4090: 152.56 tok/s, RTX 3090 Ti: 69.31 "
    "tok/s.\n",
])
def test_a_model_said_not_to_be_run_leaves_the_one_that_was(text):
    (f,), _, _ = _ratio(text)
    assert f.category == "other" and "the GeForce RTX 3090 Ti delivers less" in f.title
    assert all("llama-2-7b" in e.detail for e in f.evidence if e.unit == "tok/s")


def test_another_models_figure_is_not_judged_against_the_tickets_model():
    # the 13B's 30 tok/s is no shortfall of the 7B's band; the 7B's own figure is still judged
    _, findings, _ = _ratio("# slow\n\nExLlama GPTQ 4-bit on my RTX 4090: Llama-2-7B does 150 tok/s, Llama-2-13B "
                            "does 30 tok/s.\n")
    judged = [f for f in findings if f.rule == "ticket.measured_vs_expected"]
    assert [f.evidence[0].measured for f in judged] == [150.0]
    # one model said again by its size alone ("the 7B", "the 70B") is the ticket's model: still judged
    for text, value in (("# slow\n\nExLlama GPTQ 4-bit on my RTX 4090 with Llama-2-7B: the 7B does 30 tok/s.\n", 30),
                        ("# slow\n\nExLlama GPTQ 4-bit on my RTX 4090 with Llama-2-7B: 30 tok/s.\n", 30),
                        # another release of one shape is the same model to the predictor
                        ("# slow\n\nvLLM with meta-llama/Meta-Llama-3-8B-Instruct on my RTX 4090: Llama 3.1 8B does "
                         "20 tok/s.\n", 20)):
        _, findings, _ = _ratio(text)
        (f,) = [f for f in findings if f.rule == "ticket.measured_vs_expected"]
        assert f.category == "other" and f.evidence[0].measured == value
