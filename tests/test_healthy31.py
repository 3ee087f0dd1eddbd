"""Issue 11 (session s31, pass healthy31): when is a ticket `healthy`?

27 real first posts (tests/data/healthy31/*.md, each thread and its settled answer in SOURCES.md) were run blind; the
verdicts the threads' answers support are asserted, the ones still answered wrong are strict xfails with the reason.

Two changes. A GPU's utilisation told as a busy share and an idle one in one sentence is read as a swing
(rules.claims.util_swing) whatever the words between them, so ticket.input_starved names the host. nvidia-smi's
utilization.gpu is the share of the sample period with a kernel running, and NCCL's kernels spin while they wait, so
a GPU at (near) zero between busy samples has nothing queued. Near-misses that must not read as a swing: two cards'
shares, a GPU idle between requests, one that rises as a job starts, a CPU's or memory's share beside the GPU's, a
GPU's number, a batch size, an idle share ruled out.

Two tools' "CUDA version" compared ("nvcc -V shows 11.3 but nvidia-smi still shows 12.2") is answered from
rules/catalog/cuda_versions.toml: nvidia-smi prints the newest CUDA the driver supports, nvcc and torch.version.cuda a
toolkit's (ticket.cuda_version_sources, a pass: healthy when nothing else is found). Near-misses: the driver's release
below the toolkit's (a driver too old), a failure or a speed complaint beside the versions, an environment dump.
"""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from rules import claims
from rules.engine import evaluate, ticket_verdict
from tests.conftest import issue_bundle
from tests.test_ticket_questions import development_case

DATA = Path(__file__).parent / "data" / "healthy31"

# file -> (verdicts the thread's settled answer supports, the reason it is still missed or None)
EXPECTED = {
    "bertpytorch10": ({"healthy"}, None),
    "convnetbench71": ({"throttling"}, None),
    "deepspeech1468": ({"host_bound"}, None),
    "fastchat536": ({"expected_physics", "healthy"},
                    "load-8bit's dequantisation to fp16 before each matmul (slower by design) is known to no rule; "
                    "'runs out of vram' reads as a failure"),
    "gpustat117": ({"healthy"}, None),  # (insuff32) by_design.toml container_pids reads "doesn't show GPU processes"
    "lanedet15": ({"host_bound"}, None),
    "lmdeploy1563": ({"other"}, "the vision encoder loaded on the first GPU only (lmdeploy's load balance) is known to "
                     "no rule"),
    "mooncake64": ({"eager_mode"}, None),
    "mxnet3823": ({"p2p_disabled", "healthy"}, None),
    "nccl332": ({"p2p_disabled", "shm_fallback"}, None),
    "nccl406": ({"other", "socket_fallback", "expected_physics", "healthy"},
                "nccl.slow_settings names NCCL_SHM_DISABLE=1 as the cause, but an info finding of category other is "
                "no verdict beside the gaps"),
    "nccl68": ({"healthy"}, None),
    "nvidiadocker179": ({"healthy"}, None),
    "ollama11769": ({"host_bound"}, None),
    "ollama7801": ({"host_bound"}, None),  # (audit36) claims._CPU_BUSY_GPU_LOW reads the two states
    "ort10676": ({"expected_physics", "healthy"}, None),
    "ort13492": ({"healthy"}, None),
    "paddleocr4373": ({"healthy"}, None),
    "swapcuda1": ({"healthy"}, None),
    "switchcuda4": ({"healthy"}, None),
    "tensorrtx1407": ({"expected_physics", "healthy"}, None),  # (insuff32) "the first and second picture" read
    "tomiinek15": ({"host_bound"}, None),
    "torchserve3253": ({"healthy"}, None),
    "trtllm43": ({"healthy"}, None),
    "videoanalyst215": ({"host_bound"}, None),
    "vllm15042": ({"healthy"}, None),
    "vllm7028": ({"healthy", "other"}, None),
}


def judged(tmp_path, name: str):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "issue.md").write_text((DATA / f"{name}.md").read_text())
    facts = read_bundle([folder])
    return ticket_verdict(facts, evaluate(facts))


def test_every_paste_is_listed_with_its_thread():
    sources = (DATA / "SOURCES.md").read_text()
    kept = {p.stem for p in DATA.glob("*.md") if p.name != "SOURCES.md"}
    assert kept == set(EXPECTED)
    assert all(f"{name}.md" in sources for name in kept)


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(reason=why, strict=True)] if why else [])
                                  for n, (_, why) in EXPECTED.items()])
def test_the_verdict_is_one_the_thread_supports(tmp_path, name):
    assert judged(tmp_path, name).category in EXPECTED[name][0]


def _swing(text: str):
    return [c.data for c in claims.claims(issue_bundle("# q\n\n" + text)) if c.kind == "util_swings"]


@pytest.mark.parametrize("text, low, high", [
    # the two real sentences the reading was written from
    ("the GPU-Util always jumps from 89% seconds later to 0%, then 89% again.", 0, 89),
    ("请问训练的时候将batchsize修改为64后，gpu利用率时为0时为80%，这是什么原因呢？", 0, 80),
    # paraphrases it was not written from
    ("During inference the GPU utilization goes 95% for a second and then sits at 0% for two seconds, over and over.",
     0, 95),
    ("nvidia-smi shows GPU-Util alternating: 0%, 97%, 0%, 98% while my data loader runs.", 0, 97),
    ("GPU利用率一会儿0%一会儿90%。", 0, 90),
])
def test_a_busy_and_an_idle_share_of_one_gpu_read_as_a_swing(text, low, high):
    found = _swing(text)
    assert found and found[0]["low"] == low and found[0]["high"] == high


@pytest.mark.parametrize("text", [
    "GPU usage is 100% on GPU0 and 0% on GPU1.",  # two cards
    "GPU utilization is 0% on one card and 100% on the other.",
    "GPU utilization is 0% when idle and 100% while generating.",  # idle between requests
    "When I start training, GPU utilization goes from 0% to 99%.",  # a job starting
    "GPU utilization is 85% with batch size 4.",  # a count
    # a setting (vllm-project/vllm#14022, tests/data/ut20a): "I also tried tp=4 and tp=2, and the gpu utilization goes
    # up to around 40%"
    "I also tried `tp=4` and `tp=2`, and the gpu utilization goes up to around 40%.",
    "GPU usage is 90% but power is only 3 W.",  # another unit
    "GPU util stays at 100%, it never drops below 1%.",  # ruled out
    "GPU utilization is 95% on all 4 GPUs.",
    "GPU utilization is 0%, CPU is at 100%.",  # the CPU's share
    "GPU utilization is 0% and memory usage is 95%.",  # memory's share
    "GPU利用率为0%，显存占用95%。",
    "两张卡推理时，一张卡利用率0%，另外一张100%。",  # two cards, said in Chinese
    "GPU utilization is 60%, is this normal?",  # one share
])
def test_other_numbers_beside_a_share_are_no_swing(text):
    assert not _swing(text)


def test_a_swing_names_the_host(tmp_path):
    # aliyun/conditional-lane-detection#15: before, ticket.nothing_broken's "the behaviour asked about is normal"
    # (healthy 0.69); the maintainer: data loading is too slow (more num_workers, data on an SSD)
    assert judged(tmp_path, "lanedet15").category == "host_bound"


@pytest.mark.parametrize("prefix", ["u19b05", "u7a05"])
def test_two_cards_shares_said_in_chinese_are_no_swing(tmp_path, prefix):
    # development near-misses: alibaba/rtp-llm#111 ("一张卡 GPU 利用率为 0 ，一张卡 GPU 利用率 100%") and a Baichuan
    # thread ("一张卡的利用率很低，3%，4% 左右，另外一张利用率比较高 100%"): one card idle beside a busy one, no swing
    facts = development_case(tmp_path, prefix)
    assert not [c for c in claims.claims(facts) if c.kind == "util_swings"]
    assert ticket_verdict(facts, evaluate(facts)).category != "host_bound"


def _version_pass(text: str):
    facts = issue_bundle(text)
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), [f for f in findings if f.rule == "ticket.cuda_version_sources"]


@pytest.mark.parametrize("text", [
    # paraphrases of the two threads (bycloudai/SwapCudaVersionWindows#1, phohenecker/switch-cuda#4), not their words
    "# CUDA versions\n\nnvidia-smi shows CUDA Version 12.2 and torch.version.cuda is 12.1, why are they different?",
    "# 版本问题\n\nnvcc -V 显示 11.8，nvidia-smi 显示的 CUDA 版本是 12.2，这正常吗？",
])
def test_the_drivers_cuda_beside_a_toolkits_is_by_design(text):
    verdict, found = _version_pass(text)
    assert found and verdict.category == "healthy"
    assert "driver" in found[0].summary and "cuda_versions.toml" in found[0].summary


@pytest.mark.parametrize("text", [
    # the driver older than the toolkit: something to fix
    "# versions\n\nnvidia-smi shows CUDA Version 11.8 but nvcc --version shows 12.1. Is that OK?",
    # a failure beside the versions
    "# error\n\nnvcc -V shows 12.4 but nvidia-smi shows CUDA Version 12.2, and I get RuntimeError: CUDA driver version "
    "is insufficient for CUDA runtime version",
    # a speed complaint beside the versions
    "# slow TP\n\nvLLM TP2 on two A100 gives only 20 tok/s, much slower than expected. nvidia-smi CUDA Version 12.2, "
    "nvcc version 12.1.",
    # an environment dump names both tools without comparing them
    "# question\n\nIs TP=2 supported on my machine?\n\n```\n$ nvcc --version\nCuda compilation tools, release 12.1, "
    "V12.1.105\n$ nvidia-smi\n| NVIDIA-SMI 535.54.03  Driver Version: 535.54.03  CUDA Version: 12.2 |\n```",
])
def test_versions_beside_a_fault_or_unequal_the_wrong_way_are_not_by_design(text):
    assert not _version_pass(text)[1]
