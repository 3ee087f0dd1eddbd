"""A GPU named shortly in a title and more fully in the text ("A100", then "A100 PCIe 80GB") is the board the text
names; a shorter later mention never undoes a fuller first one. The first text is a user-tester's ticket."""

import pytest

from diagnose.bundle import read_bundle
from rules.subject import Subject

CASES = [
    ("# Ollama slow on A100?\n\nRunning `ollama run llama3.1:8b` on an A100 PCIe 80GB. `ollama run --verbose` says:\n\n"
     "eval rate: 138.3 tokens/s\n\nIs this normal?\n", "a100-80gb-pcie"),
    ("# vLLM slow on H100\n\nLlama-3-8B with vLLM on one H100 PCIe gives 120 tokens/s at batch 1. Is this normal?\n",
     "h100-pcie"),
    ("# A100 decode speed\n\nOur A100-SXM4-40GB runs Llama-2-7B at 80 tokens/s with TGI. Expected?\n", "a100-40gb-sxm"),
    ("# Slow on A100 PCIe 80GB\n\nThe A100 runs Llama-3-8B at 90 tokens/s with vLLM. Is that right?\n",
     "a100-80gb-pcie"),
]


@pytest.mark.parametrize("text,gpu", CASES)
def test_the_fuller_gpu_name_wins(tmp_path, text, gpu):
    (tmp_path / "issue.md").write_text(text)
    found = Subject.of(read_bundle([tmp_path])).gpu
    assert found is not None and found.key == gpu
