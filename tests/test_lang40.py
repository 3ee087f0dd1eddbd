"""Issue 11 (session s40, pass lang40): real tickets not written in English.

The first posts kept in tests/data/lang40 (threads, settled answers and blind verdicts in its SOURCES.md) showed two
Chinese wordings the tool did not read:
- the program's default said as one card: "默认是单卡运行", "默认用一张" (rules.gpus_in_use.ONE_GPU_USED), which with
  out of memory is ticket.memory_unsplit's lead and alone ticket.one_gpu_by_design's; Chinese advice before such words
  ("建议默认单卡运行", "可以试试只用一张卡") is no observation (gpus_in_use._ADVICE_ZH_BEFORE);
- the process killed, said in Chinese: 被kill / 被系统杀掉 / "Killed了" / bash's zh_CN 已杀死 (claims.SYMPTOMS "crash").
Each reading is tested on real sentences it was not written from (their threads cited) and on negations, hearsay,
questions, advice and near-misses that must not fire. Verdicts the readings do not reach stay strict xfails.
"""

from pathlib import Path

import pytest
from conftest import said
from test_bydesign31 import answer

from diagnose.bundle import read_bundle
from rules import claims
from rules.gpus_in_use import one_gpu_in_use

DATA = Path(__file__).parent / "data" / "lang40"
TITLE = "# 多卡推理的问题请教一下大家\n\n"


def rules_of(findings) -> set[str]:
    return {f.rule for f in findings}


def crash(text: str) -> bool:
    return claims.symptom(said(TITLE + text)) == "crash"


# ----------------------------------------------------------------------------------------------- real first posts
def test_shm_bus_error_in_docker_is_shm_too_small():
    """hiyouga/LlamaFactory#7315 ("提示bus error，insufficient shared memery (shm)"); the maintainer: "increase shm of
    the docker". Right blind; kept as a regression check."""
    verdict, findings = answer(DATA / "llamafactory7315.md")
    assert verdict.category == "shm_too_small"
    assert "ticket.shm_error" in rules_of(findings)


def test_default_one_card_and_out_of_memory_is_the_unsplit_lead():
    """opendatalab/MinerU#2718: eight 2080 Ti, "默认是单卡运行", out of memory in the sglang engine mode. The
    maintainer: that mode takes no --tp; serve with sglang-server --tp N. Blind: insufficient_data with nothing read;
    now the one-card default beside the out-of-memory error is ticket.memory_unsplit's lead, whose fix is the settled
    one."""
    verdict, findings = answer(DATA / "mineru2718.md")
    assert verdict.category == "insufficient_data"
    assert "ticket.memory_unsplit" in rules_of(findings)
    assert one_gpu_in_use(read_bundle([DATA / "mineru2718.md"])) is not None


@pytest.mark.xfail(strict=True, reason="the settled answer is the engine mode's missing TP option (other); the tool "
                   "leads with the unsplit-memory fix under insufficient_data, as no rule names an engine mode that "
                   "cannot shard")
def test_default_one_card_thread_settles_as_other():
    verdict, _ = answer(DATA / "mineru2718.md")
    assert verdict.category == "other"


def test_process_killed_in_chinese_is_no_healthy_run():
    """PaddlePaddle/PaddleOCR#1846: `CUDA_VISIBLE_DEVICES=0,1 python3 tools/train.py ...`, "跑起来后 莫名的被kill了".
    The maintainer: start it with paddle.distributed.launch. Blind: healthy 0.69 (ticket.nothing_broken); the kill is
    now read as a crash, so nothing_broken steps back and the error output is asked."""
    verdict, findings = answer(DATA / "paddleocr1846.md")
    assert claims.symptom(read_bundle([DATA / "paddleocr1846.md"])) == "crash"
    assert verdict.category != "healthy"
    assert "ticket.nothing_broken" not in rules_of(findings)


@pytest.mark.xfail(strict=True, reason="the settled cause is the launcher (two visible GPUs, one process, no "
                   "paddle.distributed.launch): no rule reads a training script started without its launcher")
def test_process_killed_thread_settles_as_other():
    verdict, _ = answer(DATA / "paddleocr1846.md")
    assert verdict.category == "other"


@pytest.mark.xfail(strict=True, reason="the post is a TP-4 command and the title 'vllm运行卡住' on a server whose GPUs "
                   "and topology it never names; the P2P hang lead (ticket.hang_on_pcie) rightly stays info")
def test_tp4_startup_hang_settles_as_p2p_disabled():
    """vllm-project/vllm#7576; the maintainer: "`export NCCL_P2P_DISABLE=1` is the key"."""
    verdict, _ = answer(DATA / "vllm7576.md")
    assert verdict.category == "p2p_disabled"


def test_tp4_startup_hang_keeps_the_p2p_lead():
    _, findings = answer(DATA / "vllm7576.md")
    assert "ticket.hang_on_pcie" in rules_of(findings)


# ----------------------------------------------------------------------------------------- one card by default
# Real wordings other than the one the reading was written from (MinerU#2718's "默认是单卡运行").
REAL_DEFAULT_ONE = [
    "如何指定多张GPU卡跑，默认用一张，显示GPU内存不够",  # zai-org/CogVLM2#208 (title)
    # a README (find_string id 55820007021)
    "训练脚本默认单卡运行，多卡训练请调整 CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES 及分布式配置。",
    "单个进程默认只用一张卡（`model.tensor_parallel_size: 1`）",  # a README (find_string id 2775017535)
    "当前代码默认是单卡训练（尚未实现 DDP），即使有 2 张 A6000 也不会自动加速",  # notes (find_string id 13246456261)
]

PROBE_DEFAULT_ONE_NOT = [
    "我有4张卡，并不是默认单卡运行的。",  # negation
    "我有4张卡，没有默认只用一张卡。",  # negation
    "我有4张卡，听说vllm默认只用一张卡。",  # hearsay
    "我有4张卡，据说默认是单卡运行。",  # hearsay
    "我有4张卡，是不是默认只用一张卡？",  # question
    "我有4张卡，会不会默认单卡运行？",  # question
    "我有4张卡，建议默认单卡运行。",  # advice
    "可以试试默认单卡运行，再看速度。",  # advice
    "建议只使用一张卡。",  # advice, an older form
    "4张卡，默认单卡运行正常，加了 --tp 2 就卡住。",  # a default that works
    "默认单卡配置在 configs/a100_1gpu.yaml 里。",  # a config's name
    "我有4张卡，默认多卡运行。",  # several cards
]


@pytest.mark.parametrize("text", REAL_DEFAULT_ONE)
def test_real_default_one_card_is_read(text):
    assert one_gpu_in_use(said(text)) is not None


@pytest.mark.parametrize("text", PROBE_DEFAULT_ONE_NOT)
def test_default_one_card_near_misses_are_not_read(text):
    assert one_gpu_in_use(said(text)) is None


# ---------------------------------------------------------------------------------------------- killed, in Chinese
REAL_KILLED = [
    "推理时模型加载Killed了，有人遇到过吗，训练是没问题的",  # ssbuild/chatglm_finetuning#75 (title)
    "程序运行到这里的时候，就会被Killed掉",  # EOA-AILab/NER-Chinese#5
    "内存不够，被系统杀掉了（kill -9）。加大内存就行",  # hiyouga/LlamaFactory#6964 (a reply)
    "[>>>>>>>>>> ] 1022/5000, 1.5 task/s, elapsed: 673s, ETA: 2621s已杀死",  # open-mmlab/mmdetection#5263 (title)
]

PROBE_KILLED_NOT = [
    "进程没有被kill，但是速度很慢。",  # negation
    "进程并没有被杀掉，只是很慢。",  # negation
    "听说多卡会被系统杀掉进程。",  # hearsay
    "进程会不会被kill？",  # question
    "建议手动kill掉进程再重启。",  # advice
    "卡住以后只能手动执行 kill -9 结束进程。",  # the reporter killing it: a hang, no crash
]


@pytest.mark.parametrize("text", REAL_KILLED)
def test_real_killed_in_chinese_is_a_crash(text):
    assert crash(text)


@pytest.mark.parametrize("text", PROBE_KILLED_NOT)
def test_killed_near_misses_are_no_crash(text):
    assert not crash(text)


# ------------------------------------------------------------------------------- kept after the readings (blind)
def test_unhandled_cuda_error_under_tp_asks_the_nccl_log_and_versions():
    """InternLM/lmdeploy#1267: `lmdeploy serve api_server ... --tp 2` on two V100 fails with NCCL's "unhandled cuda
    error". The maintainer asked for NCCL_DEBUG=INFO and the versions; that log named the driver too old for the CUDA
    runtime. The first post holds nothing more, so the tool asks the same (ticket.ambiguous_error)."""
    verdict, findings = answer(DATA / "lmdeploy1267.md")
    assert verdict.category == "insufficient_data"
    assert "ticket.ambiguous_error" in rules_of(findings)


@pytest.mark.xfail(strict=True, reason="the cause (driver older than the pip CUDA runtime) is in the NCCL_DEBUG "
                   "output asked for, not in the first post")
def test_unhandled_cuda_error_thread_settles_as_other():
    verdict, _ = answer(DATA / "lmdeploy1267.md")
    assert verdict.category == "other"
