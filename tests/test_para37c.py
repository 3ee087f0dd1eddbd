"""The verdict survives a rewording, on rewordings written after para37 and para37b were merged (pass para37c).

tests/data/para37c/<case>/ holds two WRITTEN rewordings of a development case's prose (a: terse, b: another voice),
the artifacts byte-for-byte (README.md there), written before any change and without reading para37's or para37b's.
On main 3611bc04 17 of 64 flipped: the held-out measure of those passes' fixes. Each flip was traced to a reading
that knew one spelling of a fact (mostly its Chinese counterpart); the widened readings are checked below with
near-misses and negations. The flips left are strict xfails with the reason.
"""

from pathlib import Path

import pytest
from conftest import REPO

from diagnose.artifacts.issue_md import HTML_TAG
from diagnose.bundle import read_bundle
from rules import claims
from rules.gpus_in_use import one_gpu_in_use
from tests.rewordings import TICKETS, fences_missing, original, original_verdict, verdict

PARA = REPO / "tests" / "data" / "para37c"

# the rewordings that flipped on main (3611bc04) and now keep the verdict: what they were missing
FIXED = {
    "e024-nccl-first-sendrecv-slow/b": "'最开始几次 ncclSendRecv 很慢', '前几次每次要10到100 ms'",
    "s012-vllm-2080ti-dual-no-nvlink-decode-ceiling/a": "'p2p没开' (the state after its subject, the verb 开)",
    "t005-vllm-h100-pp-small-batch-low-throughput/b": "'流水线并行', 'batch size ... 小的时候', '吞吐极低'",
    "u11a04-nccl-227-symmetric-preview-h800-alltoall-slow-221-normal/b": "'带宽很慢，2.21版本是正常的' (，splits)",
    "u12a02-ollama-0133-multi-gpu-box-model-now-loads-on-one-card/a": "'loads onto one card by itself' (and the "
    "rewording's title had added 'got worse', not in the original: reworded back)",
    "u12a02-ollama-0133-multi-gpu-box-model-now-loads-on-one-card/b": "'加载模型时自动只用一张卡'",
    "u18d05-club3090-vllm-dual-3090-tp2-w4a8-rig-powers-off/b": "'整台机器立刻关机（断电，风扇全停）'",
    "u412-opennmt-tf-multigpu-online-tokenization-gpu-0pct/b": "'吞吐比预期低' (below expectations)",
    "u6b14-1cat-vllm-c4140-4x-v100-tp4-remote-numa-memory/b": "'错误的NUMA节点' (wrong, not an error)",
    "u7a11-qwen-two-gpus-slower-how-parallel/b": "a template's '<one machine, 2 GPUs: ...>' title is no HTML tag; "
    "'one machine, 2 GPUs' is the layout, not one slow machine",
    "u7b03-kaldi-batched-cuda-decoder-one-audio-vs-cpu/b": "'只解码一条音频', 'X-cuda 比 Y 还慢'",
}
# the flips left, and why
UNFIXED = {
    "u14a08-nccl-2-node-16-h20-nvls-allreduce-343-not-460/a": "'2 nodes x 8 H20' is read as two nodes, so the busbw "
    "is no longer judged against one node's PCIe; the original's 'other' came from reading '2node16' as one node. "
    "The rewording's insufficient_data is an acceptable answer (expected.toml).",
    "u19c03-hami-vllm-tp2-crashes-with-libvgpu-270-works-261/b": "the lib releases' A/B said in Chinese "
    "('用2.6.0和2.7.0的lib会崩，2.6.1没问题') is not read by the engine-release reading",
    "u304-nccltests-6node-h100-alltoall-busbw-question/a": "'performance drops as nodes are added' is read as a "
    "slowdown (the original's 'will down' was not), and nothing knows alltoall cannot aggregate the NICs",
    "u304-nccltests-6node-h100-alltoall-busbw-question/b": "the same: '节点加多了性能会下降' read as a slowdown",
    "u6a03-reddit-2x-a100-nvlink-layer-split-7b-no-speedup/a": "'one token every ~4.5 ms' under a heading 'Two GPUs, "
    "expected:' is read as a measured TP1 latency: the expectation is in the heading, not the sentence",
    "u7b03-kaldi-batched-cuda-decoder-one-audio-vs-cpu/a": "'Single audio:' as a title's label is not read as one "
    "input at a time",
}








CASES = sorted(p for p in PARA.iterdir() if p.is_dir())


def _param(case: str, which: str):
    key = f"{case}/{which}"
    if key in UNFIXED:
        return pytest.param(case, which, id=key, marks=pytest.mark.xfail(strict=True, reason=UNFIXED[key]))
    return pytest.param(case, which, id=key, marks=() if key in FIXED else pytest.mark.slow)


REWORDINGS = [_param(c.name, n) for c in CASES for n in ("a", "b")]


def test_set_is_as_described():
    assert len(CASES) == 32
    assert all((TICKETS / c.name / "issue.md").is_file() for c in CASES)
    assert not set(FIXED) & set(UNFIXED)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_artifacts_unchanged(case):
    """Only the prose is reworded: every fenced block of the original is in both rewordings, byte for byte."""
    text = original(case.name)[0].read_text()
    for name in ("a", "b"):
        assert not fences_missing(text, (case / f"{name}.md").read_text()), name


@pytest.mark.parametrize("name,which", REWORDINGS)
def test_rewording_keeps_verdict(name, which):
    assert verdict([PARA / name / f"{which}.md"]) == original_verdict(name)


# --------------------------------------------------------------------------- the widened readings, one by one

def _said(tmp_path: Path, text: str):
    path = tmp_path / "issue.md"
    path.write_text(text)
    facts = read_bundle([path])
    return facts, claims.claims(facts)


def _has(tmp_path: Path, text: str, kind: str) -> bool:
    _, found = _said(tmp_path, f"# t\n\n{text}\n")
    return any(c.kind == kind and not c.negated and not c.guess for c in found)


@pytest.mark.parametrize("text,kind,expected", [
    ("两张卡都是PCIe 3.0 x16，p2p没开。", "no_p2p", True),
    ("驱动装好以后P2P没有打开。", "no_p2p", True),
    ("p2p已经开了，带宽正常。", "no_p2p", False),
    ("用流水线并行跑，8卡H100。", "pipeline_parallel", True),
    ("用张量并行跑，8卡H100。", "pipeline_parallel", False),
    ("batch size(running请求数)小的时候吞吐极低。", "few_requests", True),
    ("batch size不小，吞吐正常。", "few_requests", False),
    ("batch size小于8的时候正常。", "few_requests", False),
    ("高并发下吞吐少了一半。", "few_requests", False),
    ("只解码一条音频时 GPU 版更慢。", "few_requests", True),
    ("一共解码了一千条音频。", "few_requests", False),
    ("TP worker的主机内存分配在错误的NUMA节点上。", "numa_words", True),
    ("vLLM 跑 TP4 时进程跨NUMA访问内存，速度很慢。", "numa_words", True),
    ("四张卡都在同一个NUMA节点上。", "numa_words", False),
    ("为什么最开始几次 ncclSendRecv 很慢", "first_calls_slow", True),
    ("前几次每次要10到100 ms，后面只要700 us。", "first_calls_slow", True),
    ("前几次并不慢，后面才变慢。", "first_calls_slow", False),
    ("一发请求整台机器立刻关机，风扇全停。", "power_loss", True),
    ("跑到一半电脑直接断电。", "power_loss", True),
    ("机器重启后就好了。", "power_loss", False),
    ("压测了一晚上机器不会关机。", "power_loss", False),
    ("Single audio: batched-wav-nnet3-cuda slower than nnet3-latgen-faster.", "gpu_build_slower", True),
    ("只解码一条音频时，batched-wav-nnet3-cuda 比 nnet3-latgen-faster 还慢。", "gpu_build_slower", True),
    ("同一个模型在 RTX 3090 上，GPU版比CPU版还慢。", "gpu_build_slower", True),
    ("同一个模型在 RTX 3090 上，GPU版比CPU版快十倍。", "gpu_build_slower", False),
    ("multi-gpu slower than single-gpu here.", "gpu_build_slower", False),
])
def test_widened_claims(tmp_path, text, kind, expected):
    assert _has(tmp_path, text, kind) is expected


@pytest.mark.parametrize("text,symptom", [
    ("用流水线并行时吞吐极低。", "slow"),
    ("这个配置下延迟很低，吞吐正常吗？", "normal?"),
    ("吞吐不低，只想问一下配置。", None),
])
def test_rate_called_low_in_chinese(tmp_path, text, symptom):
    facts, _ = _said(tmp_path, f"# t\n\n{text}\n")
    said = claims.symptom_quote(facts)
    if symptom is None:
        assert said is None or said[2] != "slow"
    else:
        assert said and said[2] == symptom


def test_wrong_place_is_no_error(tmp_path):
    facts, _ = _said(tmp_path, "# t\n\n主机内存分配在错误的NUMA节点上。\n")
    assert claims.symptom_quote(facts)[2] != "error"
    facts, _ = _said(tmp_path, "# t\n\n启动时出现错误，日志如下。\n")
    assert claims.symptom_quote(facts)[2] == "error"


@pytest.mark.parametrize("text,expected", [
    ("多卡训练时吞吐比预期低。", True),
    ("单卡时吞吐低于预期。", True),
    ("多卡训练时吞吐比预期高。", False),
    ("吞吐没有低于预期。", False),
])
def test_below_expectations_in_chinese(tmp_path, text, expected):
    facts, _ = _said(tmp_path, f"# t\n\n{text}\n")
    assert (claims.complaint(facts) is not None) is expected


@pytest.mark.parametrize("text,expected", [
    ("In v0.1.33 the model loads onto one card by itself.", True),
    ("加载模型时自动只用一张卡。", True),
    ("加载模型时自动分配到所有卡上。", False),
    ("It loads onto all cards by itself.", False),
])
def test_one_gpu_chosen_by_the_engine(tmp_path, text, expected):
    facts, _ = _said(tmp_path, f"# t\n\nI have 4 GPUs. {text}\n")
    assert (one_gpu_in_use(facts) is not None) is expected


@pytest.mark.parametrize("text,tag", [
    ("<br>", True), ("</details>", True), ('<img width="766" src="x.png">', True), ("<details open>", True),
    ("<!-- a comment -->", True),
    ("<one machine, 2 GPUs: inference got slower>", False), ("<see below>", False), ("<Kimi K2.6-NVFP4>", False),
    ("<inactive>", False), ("<3B and >7B", False),
])
def test_html_tags_and_bracketed_prose(text, tag):
    assert bool(HTML_TAG.search(text)) is tag


@pytest.mark.parametrize("text,expected", [
    ("one machine, 2 GPUs: inference got slower instead", False),
    ("a single node with 8 GPUs is slower than two nodes", False),
    ("one GPU is always slower than the other seven", True),
])
def test_one_host_with_its_gpus_is_no_straggler(tmp_path, text, expected):
    assert _has(tmp_path, text + ".", "one_slow") is expected


@pytest.mark.parametrize("text,expected", [
    ("2.27的带宽很慢，2.21版本是正常的。", True),
    ("2.27和2.21都很慢。", False),
    ("2.27不慢，2.21也正常。", False),
])
def test_release_sides_in_chinese(text, expected):
    assert claims.failure_ab(text, ["2.27", "2.21"]) is expected
