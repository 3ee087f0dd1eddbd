"""The engine's refusal of a TP size as engines write the check on an attribute (batch u20a): TGI's layers assert
`in_features % self.tp_world_size == 0`, LightLLM's models `... % self.world_size_ == 0`. The check names the model
dimension it divides; Megatron-LM's GPU-count and batch checks, which divide no model dimension, are no such error.
Texts are taken from the threads and sources named beside them."""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict

CORPUS = Path(__file__).parent / "data" / "tickets"


def kinds(text: str) -> set[str]:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return {c.kind for c in claims.claims(facts) if not c.guess and not c.negated}


def verdict(folder: Path):
    facts = read_bundle([folder])
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


@pytest.mark.parametrize("text", [
    # https://github.com/ModelTC/LightLLM/issues/233 (title, the reporter's words)
    '[BUG] Assertation error self.config["num_attention_heads"] % self.world_size_ == 0 when not perfectly '
    'divisible',
    # ModelTC/LightLLM, the llama and mistral models' _verify_params, as a traceback prints the failing line
    'assert self.config["num_key_value_heads"] % self.world_size_ == 0',
    # ModelTC/LightLLM, the bloom layer weights (alibi heads)
    "assert head_num % self.world_size_ == 0",
])
def test_the_check_on_an_attribute_is_the_tp_error(text):
    assert "tp_size_error" in kinds(text)


@pytest.mark.parametrize("text", [
    # NVIDIA/Megatron-LM validate_args: the GPU count against the TP size, a layout's check, not the model's (its
    # message, "world size (..) is not divisible by tensor model parallel size (..)", is read by the older wording)
    "assert args.world_size % args.tensor_model_parallel_size == 0",
    # fastmoe's Megatron layer: a batch x sequence check ("Batch size x sequence length should be multiple of mp size")
    "assert (args.seq_length * args.micro_batch_size % args.tensor_model_parallel_size == 0",
    # a dimension the check names, but not against a parallel size
    "assert hhs % args.top_k == 0",
])
def test_checks_that_divide_no_model_dimension_are_no_tp_error(text):
    assert "tp_size_error" not in kinds(text)


def test_the_falcon_40b_three_shard_assertion_is_the_tp_error():
    # https://github.com/huggingface/text-generation-inference/issues/518: the title quotes TGI's assertion, the launch
    # line sets --num-shard through a shell variable
    folder = next(CORPUS.glob("u20a01-*"))
    answer, findings = verdict(folder)
    assert [f.category for f in findings if f.rule == "ticket.tp_size_error" and f.severity != "ok"] == \
        ["tp_not_dividing_heads"]
    assert answer.category == "tp_not_dividing_heads"
