"""Qwen's own 4-bit checkpoints of the 72B are padded (FFN 29696, not the 16-bit model's 29568) so that TP 2, 4 and 8
load: QwenLM/Qwen3-VL#230 (maintainer), vLLM#21695. Once a quantised name is priced at int4 in every command, the
padded checkpoints must not be called undividable, while a third-party 4-bit build of the 16-bit weights still is."""

import json

import pytest
from conftest import diagnose

from rules import catalog


def _invalid(model: str, tp: int) -> list[str]:
    result = diagnose("predict", "--model", model, "--gpu", "a100-80gb-sxm", "--tp", str(tp), "--json")
    assert result.exit_code in (0, 1), result.output + result.stderr
    return [f["rule"] for f in json.loads(result.stdout)["findings"] if f["rule"] == "predict.invalid_layout"]


@pytest.mark.parametrize("tp", [2, 4, 8])
def test_qwens_padded_awq_checkpoint_divides(tp):
    assert catalog.model("Qwen/Qwen2.5-72B-Instruct-AWQ").ffn == 29696
    assert _invalid("Qwen/Qwen2.5-72B-Instruct-AWQ", tp) == []


def test_a_third_party_awq_of_the_16_bit_model_keeps_29568_and_fails_at_tp2():
    assert catalog.model("Qwen/Qwen2.5-72B-Instruct").ffn == 29568
    assert _invalid("casperhansen/Qwen2.5-72B-Instruct-abliterated-AWQ", 2) == ["predict.invalid_layout"]
