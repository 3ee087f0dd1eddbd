"""quality33: small correctness checks of this session's helpers and catalog loaders, on real-shaped inputs."""

from __future__ import annotations

from diagnose.artifacts import figures


def at(text: str, figure: str) -> bool:
    return figures.computed(text, text.index(figure))


def test_arithmetic_that_holds_is_computed_and_a_model_number_is_not():
    assert at("4 streams * 12 tok/s = 48 tok/s in total", "48 tok/s")
    assert at("1/96 sec/tok = 0.0104 sec/tok", "0.0104")
    assert not at("vLLM on 2 x 4090 = 30 tok/s", "30 tok/s")


def test_a_zero_operand_holds_only_for_a_zero_result():
    # a quotient by zero equals nothing, and a product of zero is zero: neither makes a measured 30 tok/s arithmetic
    assert not at("run 5 / 0 = 30 tok/s", "30 tok/s")
    assert not at("run 0 x 4 = 30 tok/s", "30 tok/s")
    assert at("0 x 4 = 0 tok/s", "0 tok/s")
