"""The host count a post states (issue 11): "on a single node", "8 GPUs in one server", "single-node", "--nnodes 1"
place the job on one host, so the multi-node rules (network transport, GDR, cross-node TP) judge it as one node;
"across 4 nodes", "two DGX servers" give their count. NUMA nodes ("available: 1 nodes (0)", "a single NUMA node") and
one host among several ("one of the nodes", "from one node to another") are neither."""

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.evidence import Facts, Note
from rules import claims
from rules.common import node_count

ONE_HOST = [
    # https://github.com/NVIDIA/nccl/issues/2190 (tests/data/ut14s/nccl2190.md)
    "launching vLLM (V1 Engine Core) with Tensor Parallelism = 8 on a single node equipped with 8x RTX 6000 Ada GPUs.",
    # https://github.com/NVIDIA/nccl/issues/721 (development case u6c13)
    "In single node with 8*3090, why the performance of nccl 2.8.3 is around 10% slower than 2.7.8.",
    # https://github.com/NVIDIA/nccl/issues/1807 (development case t015)
    "should the all_reduce_perf performance of 8 B200s in a single machine reach 900+? Ours is 830+.",
    # https://github.com/triton-inference-server/server/issues/8515 (development case u11c16)
    "why does the same performance scaling not work on a single server with dual GPUs?",
    # paraphrases (other wordings, other engines and boards)
    "We run TP=8 with 8 GPUs in one node.",
    "Both H100s sit on the same host, NVLink between them.",
    "1 node with 8 A100 SXM, SGLang 0.4.",
    "torchrun --nnodes 1 --nproc_per_node 4 bench.py",
    "everything runs inside one machine, two L40S cards",
    "单机八卡 vLLM 推理很慢",
]

NOT_ONE_HOST = [
    # a host's thread or bridge, not the host (development case u11b14's wording; a topo matrix's PHB)
    "The single host thread that drives the GPUs is the limit.",
    "GPU0 and GPU1 are under the same host bridge (PHB).",
    # one among several, or the host the job outgrew
    "one of the nodes is always slower",
    "traffic from one node to another goes over IB",
    "with more than one node the rate drops",
    "the model does not fit on a single node",
    "it is much slower than on a single node",
    # NUMA nodes: numactl(8), https://man7.org/linux/man-pages/man8/numactl.8.html
    "available: 1 nodes (0)",
    "all memory is allocated on a single NUMA node",
]


@pytest.mark.parametrize("text", ONE_HOST)
def test_one_host_is_read(text):
    assert claims.states("one_node", text)


@pytest.mark.parametrize("text", NOT_ONE_HOST)
def test_no_single_host_where_none_is_said(text):
    assert not claims.states("one_node", text)


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md", "description", text))
    return facts


@pytest.mark.parametrize("text, nodes", [
    ("TP=8 on a single node with 8x H100.", 1),
    # https://github.com/NVIDIA/nccl/issues/1244 (a comment)
    ("Test in 2 nodes, 16 H20 GPUs ,16 cx7 NICs(IB NDR) with NCCL-2.21.5 + cuda-12.3", 2),
    ("We train across 4 nodes over RoCE.", 4),
    ("four HGX H100 servers, TP=8 inside each", 4),
    # a post naming both sizes compares them: the job it asks about spans hosts
    ("It runs fine on a single node but hangs across 2 nodes.", 2),
    ("Is 830 GB/s normal for 8 B200 GPUs?", None),
])
def test_node_count_reads_the_stated_hosts(text, nodes):
    assert node_count(_facts(text))[0] == nodes


# A vLLM launch on consumer boards, as vLLM's docker examples for them carry NCCL_IB_DISABLE=1 (paraphrase of
# https://github.com/TrelisResearch/one-click-llms/pull/18, which sets it "for cloud setups without IB").
ISSUE = """# [Performance]: Qwen2.5-32B with TP=2 slower than expected

I serve Qwen/Qwen2.5-32B-Instruct with tensor parallel 2{where} with 2x RTX 4090.
Decode is about 20 tokens/s for one request.

```
docker run --gpus all --ipc=host -e NCCL_IB_DISABLE=1 -e NCCL_P2P_DISABLE=1 vllm/vllm-openai \\
  --model Qwen/Qwen2.5-32B-Instruct --tensor-parallel-size 2
```
"""


def _rules(tmp_path, where: str) -> set[str]:
    import json

    path = tmp_path / "issue.md"
    path.write_text(ISSUE.format(where=where))
    out = CliRunner().invoke(cli, ["ticket", str(path), "--json", "--fail-on", "never"])
    assert out.exit_code == 0, out.output
    return {f["rule"] for f in json.loads(out.output)["findings"] if f["severity"] != "ok"}


@pytest.mark.parametrize("where", [" on a single server", " in one machine", ", single-node,"])
def test_one_host_said_keeps_the_socket_lead_silent(tmp_path, where):
    # On one host NCCL moves nothing over the NIC: NCCL_IB_DISABLE=1 there slows nothing
    assert "nccl.socket_fallback" not in _rules(tmp_path, where)


def test_unknown_hosts_keep_the_socket_lead(tmp_path):
    assert "nccl.socket_fallback" in _rules(tmp_path, "")


def test_a_place_is_ruled_out_only_by_its_own_not():
    assert not claims.states("one_node", "It is not on a single node: the job spans two servers.")
    assert claims.states("one_node", "Scaling does not work on a single server with two GPUs.")
