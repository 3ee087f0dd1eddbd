"""The verdict survives a rewording, held out (pass para37d).

tests/data/para37d/<case>/ holds two WRITTEN rewordings of a development case's prose (a: terse, b: another voice),
the artifacts byte-for-byte (README.md there), of 31 cases para37 and para37b never saw. On main after both passes 13
of 62 flipped: the held-out measure of their fixes. Each flip was traced to a reading that knew one spelling of a
fact, widened from documentation and the other spellings in kept pastes, and is checked below with near-misses and
negations; the three left are strict xfails with their reason.
"""

from pathlib import Path

import pytest
from conftest import REPO

from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement
from rules import claims
from tests.rewordings import TICKETS, fences_missing, original, original_verdict, verdict

PARA = REPO / "tests" / "data" / "para37d"

# the rewordings that flipped on main (3611bc04) and what they were missing
FIXED = {
    "s005-club3090-x99-2x3090-tp2-below-baseline/a": "'far under baseline' (a shortfall against a baseline)",
    "t005-vllm-h100-pp-small-batch-low-throughput/b": "'流水线并行', 'batch 小', '请求少', '吞吐低得离谱'",
    "u18d05-club3090-vllm-dual-3090-tp2-w4a8-rig-powers-off/a": "'powers the whole rig off' (particle after object)",
    "u18d05-club3090-vllm-dual-3090-tp2-w4a8-rig-powers-off/b": "'整台机器立刻关机（断电，风扇全停）'",
    "u5c13-ollama-low-gpu-high-cpu-1-token-per-second/b": "'the computing happen mostly on cpu'",
    "u6c07-pytorch-ddp-4xa10g-torch21-vs-23-slower/a": "'slower on torch > 2.1', 'slowdown on torch releases after'",
    "u6c07-pytorch-ddp-4xa10g-torch21-vs-23-slower/b": "'with torch newer than 2.1 ... slower'",
    "u7a02-ollama-docker-multi-gpu-only-one-process/b": "'请问 ... 有没有办法 ...？' run on without a space",
    "u7b03-kaldi-batched-cuda-decoder-one-audio-vs-cpu/b": "'只解码一条音频', '...-cuda 比 ... 还慢'",
    "u9a12-nccl-tests-8xp100-nccl1-unhandled-cuda-error/b": "'all_reduce.cu:95' read as a busbw of 95 GB/s",
}
# flips left: the right answer is known, a general reading is not
UNFIXED = {
    "u20a01-tgi-falcon-40b-3x-a100-pcie-num-shard-3-assert-in-features-tp-world-size/b":
        "'crash when i shard falcon-40b to three A100 gpu (assert ... AssertionError)': the 'when' clause runs on into "
        "the parenthesised error it caused, so the error is read as a condition (claims._CONDITIONAL); ending a "
        "condition at '(' would also free claims inside real conditions' parentheses",
    "u304-nccltests-6node-h100-alltoall-busbw-question/b":
        "'同样的配置，节点加多了性能会下降' is read as a slow complaint, as it is; the English original's 'the "
        "performence will down' was not, so its busbw-definition question stayed 'healthy'. The question about "
        "what all2all busbw counts should outrank the drop; not a reading to widen",
    "u7b03-kaldi-batched-cuda-decoder-one-audio-vs-cpu/a":
        "'One audio: ...' names one input with no 'only', verb or 'at a time'; a bare 'one audio' would also read "
        "'one audio file of two hours'",
}








def _marks(key: str):
    if key in UNFIXED:
        return pytest.mark.xfail(strict=True, reason=UNFIXED[key])
    return () if key in FIXED else pytest.mark.slow


CASES = sorted(p for p in PARA.iterdir() if p.is_dir())
REWORDINGS = [pytest.param(c.name, n, id=f"{c.name}/{n}", marks=_marks(f"{c.name}/{n}"))
              for c in CASES for n in ("a", "b")]


def test_set_is_as_described():
    assert len(CASES) == 31
    assert all((TICKETS / c.name).is_dir() for c in CASES)
    assert all((c / f"{n}.md").is_file() for c in CASES for n in ("a", "b"))


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

def _facts(tmp_path: Path, text: str):
    path = tmp_path / "issue.md"
    path.write_text(f"# report\n\nTwo GPUs in one server, the details follow below.\n\n{text}\n")
    return read_bundle([path])


def _state(tmp_path: Path, text: str, kind: str) -> str:
    found = [c for c in claims.claims(_facts(tmp_path, text)) if c.kind == kind]
    return "none" if not found else "negated" if all(c.negated for c in found) else "said"


@pytest.mark.parametrize("text,state", [
    ("Any request from open webui powers the whole rig off at once.", "said"),
    ("Running the benchmark shuts the machine down every time.", "said"),
    ("只要发请求，整台机器立刻关机，风扇全停。", "said"),
    ("跑到一半整机直接断电了。", "said"),
    ("I powered the machine off and on again, same result.", "none"),       # the reporter's own act
    ("The script shuts the server down cleanly after the run.", "none"),    # a process, not the machine
    ("跑脚本时系统不会挂，机器也不会关机。", "none"),                        # said not to
    ("机器重启后就好了，之后再没出现。", "none"),                            # a restart as the remedy
    ("我重启了机器，问题还在。", "none"),                                    # the reporter restarting it
])
def test_power_loss_split_particle_and_chinese(tmp_path, text, state):
    assert _state(tmp_path, text, "power_loss") == state


@pytest.mark.parametrize("text,slower", [
    ("DDP much slower on torch > 2.1 for our job.", True),
    ("With torch newer than 2.1 my DDP training runs a lot slower.", True),
    ("We need torch > 2.0 for this feature to work.", None),  # a floor, no speed compared
    ("DDP is not slower on torch > 2.1 for our job.", False),
    ("torch >= 2.1 is faster for us than before.", None),      # a floor including itself: no release after it
])
def test_torch_releases_after_without_the_noun(tmp_path, text, slower):
    found = claims.torch_releases_compared(_facts(tmp_path, text))
    assert (found[0].data["slower"] if found else None) is slower


@pytest.mark.parametrize("text,state", [
    ("batched-wav-nnet3-cuda slower than nnet3-latgen-faster on my box.", "said"),
    ("只解码一条音频时 batched-wav-nnet3-cuda 比 nnet3-latgen-faster 还慢。", "said"),
    ("用GPU版本比CPU版本还慢很多。", "said"),
    ("多卡比单卡还慢，不知道为什么。", "none"),                   # two GPU set-ups, no CPU side
    ("whisper-gpu 比 whisper-gpu-v2 慢一点。", "none"),           # two GPU builds
    ("multi-gpu slower than single-gpu for this model.", "none"),
])
def test_gpu_build_slower_terse_and_chinese(tmp_path, text, state):
    assert _state(tmp_path, text, "gpu_build_slower") == state


@pytest.mark.parametrize("text,said", [
    ("只解码一条音频时速度很慢。", True),
    ("When I decode one audio, it is slower than the CPU.", True),
    ("用流水线并行时，batch 小（running 请求少）吞吐低得离谱。", True),
    ("We decode one audio per GPU in parallel, many at once.", False),   # one per GPU: many in flight
    ("我们不只处理一张图片，而是一批一批地处理。", False),                # not only one
    ("我们的请求不少，batch 也很大。", False),                            # 不少: many
])
def test_few_requests_chinese_and_verbs(tmp_path, text, said):
    assert (_state(tmp_path, text, "few_requests") == "said") is said


@pytest.mark.parametrize("text,symptom", [
    ("X99 box, 2x 3090, vllm/dual: 50/60 TPS, far under baseline.", "slow"),
    ("我们用8张H100跑模型，吞吐很低，怎么办。", "slow"),
    ("我们用8张H100跑模型，吞吐低得离谱。", "slow"),
    ("The TTFT is well below the expected 53 ms, which is great.", "normal?"),  # a time below: no shortfall
    ("我们用8张H100跑模型，延迟很低，很好。", "other"),                         # a low latency is praise
    ("我们用8张H100跑模型，吞吐不低，挺好的。", "other"),                       # said not low
])
def test_shortfall_words(tmp_path, text, symptom):
    assert claims.symptom_quote(_facts(tmp_path, text))[2] == symptom


@pytest.mark.parametrize("text,state", [
    ("Ollama loads the model, but the processing seems to be mostly on CPU.", "said"),
    ("Looks like the computing happen mostly on cpu, it is slow.", "said"),
    ("The inference is not mostly on CPU, it uses the GPU fully.", "none"),
    ("The weights for inference are mostly on CPU RAM now.", "none"),   # memory: an offload, not CPU work
])
def test_work_mostly_on_the_cpu(tmp_path, text, state):
    assert _state(tmp_path, text, "cpu_ab") == state


@pytest.mark.parametrize("text,pp", [
    ("用流水线并行时吞吐很低，怎么办。", True),
    ("用张量并行时吞吐很低，怎么办。", False),
])
def test_pipeline_parallel_in_chinese(tmp_path, text, pp):
    assert (_state(tmp_path, text, "pipeline_parallel") == "said") is pp


def test_source_line_is_no_bandwidth(tmp_path):
    """"all_reduce.cu:95" is a file and line of the error, not 95 GB/s; a figure beside it still counts."""
    facts = _facts(tmp_path, "all_reduce_perf 8卡报错 NCCL failure all_reduce.cu:95 'unhandled cuda error'")
    assert not [m for m in facts.of(Measurement) if m.metric == "busbw_gbs"]
    facts = _facts(tmp_path, "all_reduce_perf on 8 GPUs gives busbw 95 GB/s, enqueue.cc:1051 warns once.")
    assert [m.value for m in facts.of(Measurement) if m.metric == "busbw_gbs"] == [95.0]


@pytest.mark.parametrize("text,asks", [
    ("请问在 Docker 起的容器里，有没有办法让模型用上多张 GPU ？现在只有一个进程", True),
    ("现在启动 ollama 之后只有一个进程在跑，多张卡没有用上。", False),
])
def test_chinese_question_words(tmp_path, text, asks):
    assert (claims.asks(_facts(tmp_path, text)) is not None) is asks
