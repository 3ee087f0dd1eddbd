"""Defects review cr9 found, each tested on wordings the fix was not written from.

1. A cause someone could not rule out is still open: "has not been ruled out", "could not rule out", "haven't yet
   ruled out" leave the claim standing; "was ruled out", "we ruled out", "were able to rule out" negate it."""

import pytest
from test_claims_said_otherwise_11b import said, verdict
from test_review_11e import _predicted_weights

from rules import claims

DROP = ("# Throughput drops over time\n\nvLLM, Llama-3-70B, TP=8 on 8x A100-SXM4-80GB. Throughput falls over time "
        "under a constant load: 900 tok/s at start, 500 tok/s after 20 minutes. ")


@pytest.mark.parametrize("sentence", [
    "Thermal throttling has not been ruled out yet.",
    "Throttling was not ruled out.",
    "We could not rule out thermal throttling.",
    "We can't rule out thermal throttling.",
    "We haven't yet ruled out thermal throttling.",
    "Throttling cannot be ruled out.",
    "We were not able to rule out thermal throttling.",
])
def test_a_throttle_not_ruled_out_stays_a_lead(tmp_path, sentence):
    assert claims.find(said(sentence), "clock_power") and not claims.find(said(sentence), "clock_power", negated=True)
    assert verdict(tmp_path, DROP + sentence + "\n").category == "throttling"


@pytest.mark.parametrize("sentence", [
    "Thermal throttling was ruled out.",
    "We ruled out thermal throttling.",
    "Thermal throttling has been ruled out.",
    "We were able to rule out thermal throttling.",
])
def test_a_throttle_ruled_out_is_negated(sentence):
    assert claims.find(said(sentence), "clock_power", negated=True)
    assert not claims.find(said(sentence), "clock_power")


# 2. A flag that sets the layout is the comparison between GPU counts; any other flag or variable in the clause makes
#    the ratio that setting's A/B on one layout.
@pytest.mark.parametrize("sentence, ratio", [
    ("Launching with --tensor-parallel-size 4 it is only 1.1x faster than with one GPU at batch 1.", 1.1),
    ("Using --tp 4 gives a 1.8x speedup over 1 GPU.", 1.8),
    ("With --num-shard 2 TGI is only 1.2x faster than on a single GPU.", 1.2),
    ("Running torchrun --nproc_per_node 8 it is 3x faster than one GPU.", 3.0),
    ("With CUDA_VISIBLE_DEVICES=0,1,2,3 it is 1.5x faster than with CUDA_VISIBLE_DEVICES=0.", 1.5),
])
def test_a_layout_flag_keeps_the_speedup(sentence, ratio):
    assert [c.data["ratio"] for c in claims.speedups(said(sentence))] == [ratio]


@pytest.mark.parametrize("sentence", [
    "With NCCL_P2P_DISABLE=1 it is 30% slower on 4 GPUs.",
    "Adding --enforce-eager made it 2x slower on 2 GPUs.",
    "Passing --disable-custom-all-reduce it is 1.3x faster on 8 GPUs.",
])
def test_another_setting_is_an_ab_on_one_layout(sentence):
    assert not claims.speedups(said(sentence))


# 4. A GGUF file named by its float precision (Microsoft ships Phi-3-mini-4k-instruct-fp16.gguf,
#    https://huggingface.co/microsoft/Phi-3-mini-4k-instruct-gguf) states its type: F16, BF16 or F32.
@pytest.mark.parametrize("model, weights", [
    ("Phi-3-mini-4k-instruct-fp16.gguf", ("F16", "fp16")),
    ("Meta-Llama-3-8B-Instruct-bf16.gguf", ("BF16", "bf16")),
    ("llama-2-7b-fp32.gguf", ("F32", "fp32")),
])
def test_a_gguf_file_named_by_its_precision_is_priced_at_it(model, weights):
    assert _predicted_weights(model, "llamacpp") == weights


def test_a_gguf_file_without_a_type_still_exits_2():
    from click.testing import CliRunner

    from diagnose.cli import cli

    out = CliRunner().invoke(cli, ["predict", "--model", "Phi-3-mini-4k-instruct.gguf", "--gpu", "rtx-4090"])
    assert out.exit_code == 2 and "--quant" in out.output
