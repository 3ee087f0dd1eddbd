"""Review of batch u17a (issue 11): a CUDA-graphs switch is the whole flag or option name, not the start or end of a
longer one (SGLang's --disable-cuda-graph-padding keeps graphs on; "disable-cuda-graph: false" in a YAML file of launch
flags too). Tested on real text from public threads, each quoted with its address, and on negations.
"""

from __future__ import annotations

import pytest
from test_ticket_questions import said

from rules import claims


@pytest.mark.parametrize("text", [
    # https://github.com/Ascend/sglang/pull/420
    "The server warmup encounters an error in forward_decode when --disable-cuda-graph is enabled.",
    "python -m vllm.entrypoints.openai.api_server --model x --enforce-eager",
    "disable-cuda-graph: true",  # a YAML file of SGLang launch flags
    "We launched it without cuda graphs.",
])
def test_a_cuda_graphs_switch_is_read(text):
    assert claims.find(said(text), "eager_flag")


@pytest.mark.parametrize("text", [
    # SGLang's --disable-cuda-graph-padding keeps graphs on: https://github.com/sgl-project/sglang/pull/31273 and
    # https://github.com/lightseekorg/tokenspeed/pull/936
    "CUDA_VISIBLE_DEVICES=7 sglang serve Qwen/Qwen3-4B --max-running-requests 16 --disable-cuda-graph-padding",
    "`--disable-cuda-graph-padding` should only take effect on decode graph.",
    # YAML files of SGLang launch flags with graphs on (public tuning reports in the code index)
    "moe-runner-backend: flashinfer_cutlass\ndisable-cuda-graph: false\nmax-running-requests: 32",
    "disable-radix-cache: false\ndisable-cuda-graph: false\ncuda-graph-max-bs: 16",
    "python -m vllm.entrypoints.openai.api_server --model x --enforce-eager-foo",  # a longer flag
    "piecewise-cudagraphs: none",  # a longer option name
    "We launched it without cuda-graph-padding.",
])
def test_a_longer_name_that_starts_or_ends_like_a_switch_is_not_it(text):
    assert not claims.find(said(text), "eager_flag")
