"""Questions about a layout that grows without the speed following (rules/claims.py more_gpus_no_gain,
replicas_beat_sharding; rules/ticket_questions.py ticket.scaling_question), and memory spread over more cards
read as no speed at all. The sentences are paraphrases written for these tests, not the corpus tickets'
wording; the corpus is scored by benchmarks/ticket_accuracy.py."""

import pytest
from conftest import report_json
from test_ticket_figures import _issue  # the issue's facts, findings and verdict, as `diagnose ticket` reads it
from test_ticket_numbers import _rule, _said  # a description's facts; one rule's findings

from rules import claims


@pytest.mark.parametrize("sentence", [
    "Why does putting a second GPU in not change the generation speed at all?",
    "Splitting the model across four cards did not speed up decoding.",
    "With tensor parallel 2 the tokens per second will not increase.",
    "Adding GPUs makes no difference to the time per token.",
    "We moved to multi-GPU and the throughput is the same.",
    "pipeline parallel on two cards gives no increase in generation speed",
    "多卡推理速度没有提升",
    "开启 tp 之后反而慢了",
    "同一个模型用 8 张 A100 推理比 4 张还慢",
    "双卡和单卡的吞吐一样",
])
def test_a_layout_that_grows_without_the_speed_following_is_read(sentence):
    assert [c.kind for c in claims.more_gpus_no_gain(_said(sentence))] == ["more_gpus_no_gain"]


@pytest.mark.parametrize("sentence", [
    "With two GPUs it is not slower than with one.",  # ruled out
    "Adding a second GPU doubled the generation speed.",  # it did follow
    "With more GPUs the KV cache usage percentage is lower.",  # memory, not speed
    "The more cards we add, the lower this metric gets.",  # no speed named
    "The model does not fit on one GPU, so we use two.",  # no gain claimed
    "两张卡比一张卡快很多",  # two cards much faster than one
])
def test_no_scaling_question_without_a_speed_that_failed_to_follow(sentence):
    assert claims.more_gpus_no_gain(_said(sentence)) == []


@pytest.mark.parametrize("sentence", [
    "Running two replicas gives higher throughput than one TP=2 instance.",
    "Tensor parallel over 4 GPUs is slower than 4 separate instances of the model.",
    "Data parallelism beats tensor parallelism on our box.",
    "We see better numbers with fewer shards per model.",
])
def test_replicas_beating_a_sharded_model_is_read(sentence):
    assert [c.kind for c in claims.replicas_beat_sharding(_said(sentence))] == ["replicas_beat_sharding"]


@pytest.mark.parametrize("sentence", [
    "It is not better with less sharding.",  # ruled out
    "Tensor parallelism is faster than data parallelism here.",  # the sharded model wins
    "We run two replicas behind a load balancer.",  # no comparison
])
def test_no_replica_comparison_where_none_is_made(sentence):
    assert claims.replicas_beat_sharding(_said(sentence)) == []


@pytest.mark.parametrize("text", [
    "Would running the model on two GPUs be faster than on a single GPU?",
    "We plan to shard a 34B model over four cards. How fast will generation be?",
    "If I add a second RTX 4090, how much faster will token generation get?",
    "# Tensor parallel on 2 A6000s\n\nHas anybody measured the speed penalty?",  # the layout in the title
    "Is there a performance impact when the layers are split across 2 GPUs?",
    "Is generation faster with 4 cards than with one?",
])
def test_a_question_about_what_a_larger_layout_does_to_the_speed_is_read(text):
    assert [c.kind for c in claims.layout_speed_asked(_said(text))] == ["layout_speed_asked"]


@pytest.mark.parametrize("text", [
    "Splitting across two GPUs should be faster, a colleague suggested.",  # a suggestion, no question
    "How do I split the model across 2 GPUs?",  # a how-to, not about speed
    "Would two GPUs let me fit a 70B model?",  # memory, not speed
    "With 2 GPUs I don't care if it gets slower; how do I load the model?",  # the speed ruled out
    "Would the new driver be faster?",  # no layout that grows
    "# Two GPUs\n\nThe server runs fine.\n\nIs a newer driver faster?",  # the layout in another paragraph
    "Is it normal that the tree algorithm is faster than ring on two nodes?",  # algorithms compared, not layouts
    "Will the fix make it faster?",  # no layout at all
])
def test_no_prospective_scaling_question_where_none_is_asked(text):
    assert claims.layout_speed_asked(_said(text)) == []


def test_a_prospective_scaling_question_is_answered_from_physics_at_low_confidence():
    _, findings, v = _issue("# Speed of one model split over two cards\n\nI want to run a 30B 4-bit model on two "
                            "12 GB cards. Can anyone confirm the performance impact? I hope for about 6 t/s.\n")
    assert _rule(findings, "ticket.scaling_question") and v.category == "expected_physics"
    assert v.confidence < 0.7 and not _rule(findings, "ticket.nothing_broken")


def test_a_numberless_scaling_question_is_answered_from_physics():
    _, findings, v = _issue("# More GPUs, same decode speed?\n\nWhy does spreading the model over more graphics cards "
                            "not make token generation any faster? Is there a bottleneck I am missing?\n")
    assert _rule(findings, "ticket.scaling_question") and v.category == "expected_physics"
    assert _rule(findings, "ticket.scaling_question")[0].confidence < 0.5  # a weak lead: the absence of a fault
    assert v.confidence < 0.7  # the verdict: the prior class's development level, never confident (issue 11)
    assert not _rule(findings, "ticket.nothing_broken")  # one answer, the one that says why


def test_replicas_beating_a_sharded_model_is_expected():
    _, findings, v = _issue("# TP vs replicas\n\nOn 4x L40S, two replicas with TP=2 each give more throughput than "
                            "one TP=4 instance. Why is data parallel faster than tensor parallel?\n")
    assert _rule(findings, "ticket.scaling_question") and v.category == "expected_physics"


@pytest.mark.parametrize("text", [
    # a fault in sight: the question is about what broke
    "# Slower with 2 GPUs\n\nWhy does adding a second GPU not speed up generation? NCCL WARN Cuda failure "
    "'peer access is not supported between these two devices'\n",
    # a failure, not a question about speed
    "# Crash with TP=2\n\nWith tensor parallel 2 the server crashes; why does it not get faster with more GPUs?\n",
    # a statement, not a question
    "# Feature request\n\nAdding more GPUs does not speed up generation. Please add speculative decoding.\n",
])
def test_no_physics_answer_with_a_fault_a_failure_or_no_question(text):
    _, findings, _ = _issue(text)
    assert not _rule(findings, "ticket.scaling_question")


def test_memory_spread_over_more_cards_is_no_scaling_complaint():
    facts = _said("# Why is the KV cache usage lower with more GPUs?\n\nServing a 7B model on 4090s, the more GPUs "
                  "I use the lower the KV cache usage percentage gets. What does this metric measure?")
    assert claims.symptom(facts) != "scaling"
    facts = _said("# Why is throughput lower with more GPUs?\n\nServing a 7B model on 4090s, the more GPUs I use the "
                  "lower the tokens per second gets.")
    assert claims.symptom(facts) == "scaling"


# --------------------------------------------------------------------------- the serving phases and the batch's trade


@pytest.mark.parametrize("sentence", [
    "Prompt processing runs at 4000 tok/s while generation is 35 tok/s, why such a gap?",
    "llama-bench: pp512 1800 t/s, tg128 70 t/s. Why is tg so much lower?",
    "Prefill is fast but decode is slow on this card.",
    "Input throughput is far higher than output throughput in the benchmark.",
])
def test_prompt_processing_set_against_generation_is_read(sentence):
    assert [c.kind for c in claims.phases_compared(_said(sentence))] == ["phases_compared"]


@pytest.mark.parametrize("sentence", [
    "Decoding runs on the GPU; the prompt is tokenized on the CPU.",  # no contrast of rates
    "Generation speed is 20 tok/s for a 500-token answer.",  # one phase only
])
def test_no_phase_contrast_where_none_is_made(sentence):
    assert claims.phases_compared(_said(sentence)) == []


@pytest.mark.parametrize("sentence", [
    "With 64 concurrent requests each request gets much slower.",
    "Raising the batch size makes the time per output token go up.",
    "More users at once and the per-user speed drops.",
])
def test_each_request_slower_as_more_run_is_read(sentence):
    assert [c.kind for c in claims.batch_tradeoff(_said(sentence))] == ["batch_tradeoff"]


@pytest.mark.parametrize("sentence", [
    "With 16 concurrent requests the latency does not increase.",  # ruled out
    "Increasing the batch size raises the throughput.",  # the total, not each request
    "Each request gets slower after an hour.",  # nothing more in flight
])
def test_no_batch_trade_where_none_is_stated(sentence):
    assert claims.batch_tradeoff(_said(sentence)) == []


@pytest.mark.parametrize("text", [
    "# pp vs tg\n\nWhy does my GPU process the prompt at 3500 tokens/s but generate at only 45 tokens/s?\n",
    "# latency under load\n\nWhen I raise the concurrency to 32 the time per output token goes up. Is this expected?\n",
])
def test_the_serving_tradeoffs_are_answered_as_physics(text):
    _, findings, v = _issue(text)
    assert _rule(findings, "ticket.serving_tradeoff") and v.category == "expected_physics"


def test_a_failure_is_no_serving_tradeoff():
    _, findings, _ = _issue("# crash under load\n\nWith 32 concurrent requests the server crashes and each request "
                            "gets slower before it dies. Why?\n")
    assert not _rule(findings, "ticket.serving_tradeoff")


# --------------------------------------------------------------------------- tensor against pipeline parallelism


@pytest.mark.parametrize("sentence,pp_wins", [
    ("PP=2 gives more throughput than TP=2 on our PCIe boxes.", True),
    ("Pipeline parallel is faster than tensor parallel on 4x L40S.", True),
    ("Why is TP faster than pipeline parallel for a single request?", False),
    ("TP=4 is slower than PP=4.", True),
])
def test_tensor_set_against_pipeline_parallelism_is_read_with_its_winner(sentence, pp_wins):
    (c,) = claims.tp_pp_compared(_said(sentence))
    assert c.data["pp_wins"] is pp_wins


@pytest.mark.parametrize("sentence", ["We use TP=2 and PP=2.", "It is not faster with PP than with TP."])
def test_no_tp_pp_comparison_where_none_is_made(sentence):
    assert claims.tp_pp_compared(_said(sentence)) == []


def test_a_tp_pp_question_is_answered_from_how_each_split_works():
    _, findings, v = _issue("# TP or PP?\n\nOn our PCIe servers pipeline parallel beats tensor parallel. Why is "
                            "that?\n")
    (f,) = _rule(findings, "ticket.scaling_question")
    assert "pipeline split gives more throughput" in f.title and v.category == "expected_physics"


# Llama-2-7B fp16 on A100 SXM at batch 1, TP1/TP2/TP4 (a user-tester's figures): the same series as a ticket's list
# and as a `diagnose scaling` CSV.
SERIES = {1: 80, 2: 95, 4: 100}


def test_a_tp_series_gets_the_same_judgement_in_ticket_and_scaling(tmp_path):
    """One judgement of a TP series (rules.scaling.series_status): measured / expected time per layout against the
    band and the smallest TP. Both commands judge every layout, name the same layout beyond the band with the same
    title, category and severity, and say the engine profile was assumed (none named)."""
    (tmp_path / "issue.md").write_text(
        "# TP barely helps Llama-2-7B on A100, is this normal?\n\nLlama-2-7B fp16, 8x A100 80GB SXM (NVSwitch), "
        "batch 1 decode:\n" + "".join(f"- TP={tp}: {v} tok/s\n" for tp, v in SERIES.items()) + "Is this normal?\n")
    csv = tmp_path / "series.csv"
    csv.write_text("tp,metric,value,batch\n" + "".join(f"{tp},decode_tok_s,{v},1\n" for tp, v in SERIES.items()))
    ticket = report_json("ticket", tmp_path / "issue.md")
    scaling = report_json("scaling", csv, "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm")
    (t,) = [f for f in ticket["findings"] if f["rule"] == "ticket.measured_vs_expected"]
    (s,) = [f for f in scaling["findings"] if f["rule"] == "scaling.broken_layout"]
    assert (t["title"], t["category"], t["severity"]) == (s["title"], s["category"], s["severity"])
    assert ticket["verdict"]["category"] == scaling["verdict"]["category"] == "other"
    assert "assumed: no engine named" in t["summary"] and "assumed: no engine named" in s["summary"]
    # every layout of the ticket is judged, each measured against its own expected rate
    judged = [e for e in t["evidence"] if e["detail"].startswith("decode rate at TP") and "expected time" in
              e["detail"]]
    assert [e["measured"] for e in judged] == list(SERIES.values())
    beyond = [e for e in judged if "beyond_band" in e["detail"]]
    assert len(beyond) == 1 and beyond[0]["measured"] < beyond[0]["expected"]
