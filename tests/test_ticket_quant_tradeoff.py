"""A weight-only quantised model (AWQ, GPTQ, 4-bit) no faster or slower than its 16-bit original
(rules/quant_tradeoff.py): the format's trade at a large batch, its kernel at a small one. The sentences are
paraphrases written for these tests, not the corpus tickets' wording."""

import pytest
from test_ticket_figures import _issue  # the issue's facts, findings and verdict, as `diagnose ticket` reads it
from test_ticket_numbers import _rule, _said

from rules.quant_tradeoff import quantised_loses


@pytest.mark.parametrize("sentence", [
    "The GPTQ model is slower than the FP16 one with 64 concurrent requests.",
    "FP16 beats the AWQ version once we send 32 parallel requests.",
    "With GPTQ the throughput drops below the bf16 model at 128 concurrent requests.",
    "Our 4-bit AWQ checkpoint gives no speedup over bf16 in the throughput benchmark.",
    "The speed with the 4-bit model is much worse than the original model when batch size is 64.",
    "量化后的模型在高并发下反而更慢",
    "The GPTQ checkpoint gives no speedup at 64 concurrent requests.",  # no gain: over the original
    # (review st 10) weights quantised beside a KV cache named elsewhere: still the trade
    "The quantized weights are slower than the FP16 model at 64 concurrent requests, with the KV cache in fp16.",
    "Weight-only quantization gives no speedup over bf16 at batch 64, KV cache left as is.",
])
def test_a_quantised_model_losing_at_a_large_batch_is_read(sentence):
    (c,) = quantised_loses(_said(sentence))
    assert c.data["scale"] == "large"


@pytest.mark.parametrize("sentence", [
    "At batch 1 the int4 model is slower than the fp16 model.",
    "For a single request the AWQ checkpoint decodes slower than FP16.",
])
def test_a_quantised_model_losing_at_one_request_is_read_as_small(sentence):
    (c,) = quantised_loses(_said(sentence))
    assert c.data["scale"] == "small"


@pytest.mark.parametrize("sentence", [
    "AWQ is not slower than FP16 for us.",  # ruled out
    "Our AWQ model isn't slower than BF16.",
    "The GPTQ model is no longer slower than fp16 since the upgrade.",
    "AWQ runs without any slowdown compared to FP16 at batch 64.",
    "They told me AWQ would be slower than FP16 at high batch.",  # a suggestion someone made
    "If GPTQ were slower than FP16 at batch 64 we would switch.",  # a condition
    "FP8 is slower than BF16 at batch 256.",  # 8-bit compute, not weight-only
    "The AWQ model is 3x faster than FP16 at batch 1.",  # it wins
    "We serve the AWQ model on two GPUs.",  # no comparison
    "The AWQ model is slower than expected on our A100.",  # slower than a hope, not than the original
    "量化模型很慢",  # slow, against nothing
    # (review st 10) the KV cache quantised, not the weights; a base model is the checkpoint before fine-tuning
    "With int8 KV cache quantization the throughput is lower than with the FP16 cache.",
    "A quantized KV cache makes decode slower than the bf16 cache at 64 concurrent requests.",
    "Turning on KV cache quantization gives no speedup over the 16-bit cache.",
    "Our AWQ model is slower than the base model it was fine-tuned from at 64 concurrent requests.",
])
def test_no_quantised_loss_where_none_is_measured(sentence):
    assert quantised_loses(_said(sentence)) == []


@pytest.mark.parametrize("text", [
    "# GPTQ slower\n\nThe GPTQ model is slower than the FP16 one with 64 concurrent requests on 2x A100. Why?\n",
    "# AWQ question\n\nIs AWQ expected to be slower than FP16 at large batch sizes?\n",
    "# throughput\n\nOur 4-bit AWQ checkpoint gives no speedup over bf16 in the throughput benchmark.\n",
])
def test_the_trade_at_a_large_batch_is_answered_as_physics(text):
    _, findings, v = _issue(text)
    (f,) = _rule(findings, "ticket.quantised_vs_full")
    assert f.category == "expected_physics" and v.category == "expected_physics"
    assert f.evidence and f.evidence[0].source.startswith("issue.md")


def test_a_loss_at_one_request_points_at_the_kernel_not_physics():
    _, findings, _ = _issue("# int4 slow\n\nAt batch 1 the int4 model is slower than the fp16 model on an L40S.\n")
    (f,) = _rule(findings, "ticket.quantised_vs_full")
    assert f.category == "other" and "kernel" in f.title


def test_a_crash_is_no_quantisation_trade():
    _, findings, _ = _issue("# crash\n\nThe GPTQ model crashes with 64 concurrent requests, and it was slower than "
                            "FP16 before it died.\n")
    assert not _rule(findings, "ticket.quantised_vs_full")
