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
