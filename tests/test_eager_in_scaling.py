"""Eager mode read once for `ticket` and `scaling` (issue 11): rules.workload.runs_eager reads a parsed launch line
(--enforce-eager, --disable-cuda-graph) or the words and pasted calls (LLM(..., enforce_eager=True), TensorRT-LLM's
cuda_graph_config: null), and both commands name the same cause from it while `scaling` prices the expected figure with
every kernel launched from the host and shows 'CUDA graphs off' in its layout table.
Switches: vLLM's --enforce-eager / enforce_eager (https://docs.vllm.ai/en/latest/configuration/optimization.html),
SGLang's --disable-cuda-graph (https://docs.sglang.ai/advanced_features/server_arguments.html), TensorRT-LLM's
cuda_graph_config (https://nvidia.github.io/TensorRT-LLM/commands/trtllm-serve/trtllm-serve.html)."""

import json

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from rules import catalog, roofline
from rules.subject import model_named

ISSUE = """# TP=2 decode slower than expected

{model} on 2x A100 80GB SXM, one request at a time: decode is {rate} tokens/s.

```
{launch}
```
"""

EAGER = [
    ("meta-llama/Llama-3.1-8B-Instruct", "python", 'from vllm import LLM\nllm = LLM(model="meta-llama/Llama-3.1-8B-'
     'Instruct", tensor_parallel_size=2, enforce_eager=True)'),
    ("meta-llama/Llama-3.1-8B-Instruct", "vllm", "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 "
     "--enforce-eager"),
    ("meta-llama/Llama-3.1-8B-Instruct", "sglang", "python -m sglang.launch_server --model-path "
     "meta-llama/Llama-3.1-8B-Instruct --tp 2 --disable-cuda-graph"),
    ("meta-llama/Llama-3.1-8B-Instruct", "trtllm", "trtllm-serve meta-llama/Llama-3.1-8B-Instruct --tp_size 2 "
     "--extra_llm_api_options extra.yaml\n# extra.yaml\ncuda_graph_config: null"),
]


def _run(*args) -> dict:
    out = CliRunner().invoke(cli, [*args, "--json", "--fail-on", "never"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def _layout_rows(report: dict) -> dict:
    table = next(t for name, t in report["tables"].items() if name.startswith("Layout"))
    return {row[0]: row for row in table["rows"]}


@pytest.mark.parametrize("model, engine, launch", EAGER, ids=[e[1] for e in EAGER])
def test_ticket_and_scaling_read_the_same_eager_switch(tmp_path, model, engine, launch):
    (tmp_path / "issue.md").write_text(ISSUE.format(model=model, rate=60, launch=launch))
    ticket, scaling = _run("ticket", str(tmp_path)), _run("scaling", str(tmp_path))
    assert ticket["verdict"]["category"] == scaling["verdict"]["category"] == "eager_mode"
    graphs = _layout_rows(scaling)["CUDA graphs"]
    assert graphs[1:3] == ["off", "stated"] and graphs[3].startswith("issue.md:")


@pytest.mark.parametrize("launch", [
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2",  # the serving default keeps graphs
    # the switch taken off, and the switch asked about: neither runs eager
    "# we removed --enforce-eager last week\nvllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2",
])
def test_graphs_kept_prices_graphs(tmp_path, launch):
    (tmp_path / "issue.md").write_text(ISSUE.format(model="meta-llama/Llama-3.1-8B-Instruct", rate=60, launch=launch)
                                       + "\nShould I try --enforce-eager?\n")
    scaling = _run("scaling", str(tmp_path))
    assert "CUDA graphs" not in _layout_rows(scaling)
    assert scaling["verdict"]["category"] != "eager_mode"


def test_eager_pricing_launches_every_kernel_from_the_host():
    """A 1B model at TP=4 on H100: the GPU work per step is short, so vLLM's host launches set the eager step; the
    graphs step does not pay them."""
    model, gpu = model_named("llama-3.2-1b"), catalog.gpu("h100-sxm")
    kwargs = dict(engine=catalog.engine("vllm"), build_stated=True, batch=1)
    graphs = roofline.predict_any_build(model, gpu, roofline.Layout(tp=4), **kwargs)
    eager = roofline.predict_any_build(model, gpu, roofline.Layout(tp=4), eager=True, **kwargs)
    assert eager.assumptions["cuda_graphs"] is False and graphs.assumptions["cuda_graphs"] is True
    assert eager.decode_step_ms_expected > graphs.decode_step_ms_expected
    assert eager.expected_terms["launch_ms"] > graphs.expected_terms["launch_ms"]
