"""Figures read with the meaning the reporter gave them (figprec32): a rate labelled "throughput" is every stream's
output together (output_tok_s), as the engines' throughput benchmarks print it (vLLM benchmark_throughput, lmdeploy
profile_generation), unless the words say it is one stream's. Real pastes from tests/data/extract30 and near-misses
that must still be read as one stream's rate."""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement

EXTRACT30 = Path(__file__).parent / "data" / "extract30"


def _rates(path: Path) -> list[tuple[str, float]]:
    return [(m.metric, m.value) for m in read_bundle(path).of(Measurement)]


def _read_line(tmp_path: Path, line: str) -> list[tuple[str, float]]:
    paste = tmp_path / "issue.md"
    paste.write_text(f"# slow generation\n\n{line}\n")
    return _rates(paste)


@pytest.mark.parametrize("name,value", [
    ("lmdeploy137", 70.98455828512093),  # "The result I get is `throughput: 70.98455828512093 token/s`"
    ("qwen244", 1000.0),  # "Finally, I get a throughput about 1000 tokens/s" (100 prompts sent at once)
])
def test_throughput_in_real_pastes_is_the_total(name, value):
    assert ("output_tok_s", value) in _rates(EXTRACT30 / f"{name}.md")


@pytest.mark.parametrize("line,value", [
    ("With 16 concurrent requests on 2x A100 the throughput is only 900 tokens/s with vLLM.", 900.0),
    ("Running Llama-2-13B on two L40S, I measured a throughput of 420 tok/s.", 420.0),
])
def test_throughput_paraphrases_are_the_total(tmp_path, line, value):
    assert ("output_tok_s", value) in _read_line(tmp_path, line)


@pytest.mark.parametrize("line,value", [
    ("The per-user throughput is 25 tok/s with vLLM on 2x A100.", 25.0),  # one stream's, said so
    ("On 2x A100 with vLLM, throughput at batch size 1 is 38 tokens/s.", 38.0),  # one stream at batch 1
    ("With vLLM on 2x A100 I get 38 tokens/s.", 38.0),  # no "throughput": the reporter's rate, as before
])
def test_one_stream_rates_stay_decode(tmp_path, line, value):
    assert ("decode_tok_s", value) in _read_line(tmp_path, line)


# ------------------------------------------------------------------ the reporter's arithmetic is not a measurement
def test_arithmetic_on_a_published_figure_is_not_measured():
    """gptfast225 (pytorch-labs/gpt-fast): "decoded in 1/96 sec/tok = 0.0104 sec/tok = **10.4 msec/tok**" turns the
    README's 96 tok/s into ms, and "i.e., 23 msec/tok > 10.4 msec/tok" restates it; neither 10.4 was measured."""
    assert all(value != 10.4 for _, value in _rates(EXTRACT30 / "gptfast225.md"))


@pytest.mark.parametrize("line", [
    "So one token takes 1000/45 = 22.2 ms per token on 2x A100 with vLLM.",
    "With vLLM on 2x A100, 4 streams * 35 tok/s = 140 tok/s in theory.",
])
def test_arithmetic_paraphrases_are_not_measured(tmp_path, line):
    assert all(value not in (22.2, 140.0) for _, value in _read_line(tmp_path, line))


@pytest.mark.parametrize("line,metric,value", [
    ("With vLLM on 2x A100 the decode latency = 52 ms per token.", "itl_ms", 52.0),  # a label's "=", no arithmetic
    ("With vLLM, 2x A100 = 30 tok/s and 1x A100 = 25 tok/s.", "decode_tok_s", 30.0),  # a count, not a product
    ("With vLLM on 2x A100 and TP=2 I get 14 ms per token.", "itl_ms", 14.0),
])
def test_labelled_figures_are_still_read(tmp_path, line, metric, value):
    assert (metric, value) in _read_line(tmp_path, line)
