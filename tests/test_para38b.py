"""The verdict survives a rewording, held out (pass para38b).

tests/data/para38b/<case>/ holds two WRITTEN rewordings of a development case's prose (a: terse, b: another voice, 10
of the 20 b's in Chinese), the artifacts byte-for-byte (README.md there), of 20 cases no earlier set (para37, para37b,
para37c, para37d, para38) rewrote. On main 63e49c47, after all five sets, 11 of 40 flipped: the held-out measure of
their fixes. Each flip was traced to a reading that knew one spelling of a fact, widened to the family and checked
below with near-misses and negations; no rewording had lost a fact, none is left.
"""


import pytest
from conftest import REPO

from diagnose.artifacts import issue_md
from rules import claims
from rules.ticket_questions import gpus_compared
from tests.rewordings import TICKETS, claim_state, fences_kept, issue_facts, original_verdict, symptom_of, verdict

PARA = REPO / "tests" / "data" / "para38b"

# the rewordings that flipped on main (63e49c47) and what they were missing
FIXED = {
    "e023-nccl-nvls-4node-busbw-drop/b": "'没有任何加速效果' (no speed-up at all)",
    "n008-nccl-partial-nvlink-pcie-data-incorrect/b": "'通信数据全都是错的' (wrong results, in Chinese)",
    "s018-ollama-4gpu-sched-spread-util-below-100/a": "'stays under 100%' read as a reading of 100 %",
    "s019-vllm-mistral7b-2x-a100-pcie-tp2-underutilized/b": "'GPU 利用率这么低' (so low)",
    "t032-nccl-2x-rtx5880-phb-allreduce-deadlock/a": "a paste of a title alone was not recognised as an issue",
    "t032-nccl-2x-rtx5880-phb-allreduce-deadlock/b": "'死锁' (deadlock)",
    "u11c14-litellm-proxy-latency-spike-above-15-rps-vllm-direct-fast/a": "'behind the LiteLLM proxy, latency rises'",
    "u11c14-litellm-proxy-latency-spike-above-15-rps-vllm-direct-fast/b": "'latency goes up ... through the proxy'",
    "u15a08-tinychat-awq-llama2-7b-a100-20p9-ms-vs-12p4-readme-a6000/b": "'A100 理应比 A6000 更强' (stronger)",
    "u7a09-tgi-why-shard-models-that-fit-a100/a": "'For latency gains from the extra parallelism?' (a motive asked)",
    "u7a09-tgi-why-shard-models-that-fit-a100/b": "'do you get lower latency' read as a loss",
}


def _marks(key: str):
    return () if key in FIXED else pytest.mark.slow


CASES = sorted(p for p in PARA.iterdir() if p.is_dir())
REWORDINGS = [pytest.param(c.name, n, id=f"{c.name}/{n}", marks=_marks(f"{c.name}/{n}"))
              for c in CASES for n in ("a", "b")]


def test_set_is_as_described():
    assert len(CASES) == 20
    assert all((TICKETS / c.name).is_dir() for c in CASES)
    assert all((c / f"{n}.md").is_file() for c in CASES for n in ("a", "b"))
    earlier = {p.name for d in ("para37", "para37b", "para37c", "para37d", "para38")
               for p in (REPO / "tests" / "data" / d).iterdir()}
    assert not earlier & {c.name for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_artifacts_unchanged(case):
    """Only the prose is reworded: every fenced block of the original is in both rewordings, byte for byte."""
    assert not fences_kept(case)


@pytest.mark.parametrize("name,which", REWORDINGS)
def test_rewording_keeps_verdict(name, which):
    assert verdict([PARA / name / f"{which}.md"]) == original_verdict(name)


# --------------------------------------------------------------------------- the widened readings, one by one



@pytest.mark.parametrize("text,symptom", [
    ("两张 RTX 5880 上跑 ncclAllReduce 死锁。", "hang"),
    ("all_reduce_perf 跑到一半就死锁了，没有任何输出。", "hang"),
    ("跑 all_reduce 没有死锁，只是速度很慢。", "slow"),                        # denied, as 没有卡住
])
def test_deadlock_in_chinese(tmp_path, text, symptom):
    assert symptom_of(tmp_path, text) == symptom


@pytest.mark.parametrize("text,score", [
    ("# [Bug]: ncclAllReduce deadlock, 2x RTX 5880 Ada, PCIe PHB, no NVLink\n", 0.95),
    ("# vLLM TP2 decode slower than TP1\n", 0.95),
    ("# nvidia-smi topo -m\n", 0.0),              # a command line as a heading
    ("# nThread 1 nGpus 8 minBytes 8\n", 0.0),     # nccl-tests' own header
    ("# GPU0 GPU1\n", 0.0),                        # two names, no words
])
def test_a_title_alone_is_an_issue(text, score):
    assert issue_md.detect(text) == score


@pytest.mark.parametrize("text,state", [
    ("Behind the LiteLLM proxy, latency rises sharply above 15 RPS.", "said"),
    ("Latency goes up a lot once we pass 15 RPS through the LiteLLM proxy.", "said"),
    ("Through the nginx gateway the TTFT climbs to 4 s.", "said"),
    ("Latency rises sharply above 15 RPS.", "none"),                        # no layer named
    ("Behind the LiteLLM proxy, latency stays at 1.5 s up to 60 RPS.", "none"),
])
def test_latency_rising_behind_a_layer(tmp_path, text, state):
    assert claim_state(tmp_path, text, "layer_slower") == state


@pytest.mark.parametrize("text,symptom", [
    ("4 台 H100 服务器开启了 NVLS，每台 8 张 GPU，但是没有任何加速效果。", "scaling"),
    ("3 张 3090 一起跑，显然没有任何提升。", "scaling"),
    ("8 张卡一起跑，毫无提升。", "scaling"),
    ("8 张卡一起跑，没有任何报错。", "not scaling"),                        # no error, not no gain
])
def test_no_speed_up_at_all_in_chinese(tmp_path, text, symptom):
    found = symptom_of(tmp_path, text)
    assert found == symptom if symptom == "scaling" else found != "scaling"


@pytest.mark.parametrize("text,state", [
    ("为什么 GPU 利用率这么低？", "said"),
    ("训练时 GPU 使用率太低。", "said"),
    ("训练时 GPU 利用率偏低。", "said"),
    ("为什么 GPU 显存利用率这么低？", "none"),                               # memory, not busy time
    ("为什么 GPU 利用率这么高？", "none"),
])
def test_gpu_utilisation_so_low_in_chinese(tmp_path, text, state):
    assert claim_state(tmp_path, text, "gpu_idle_words") == state


@pytest.mark.parametrize("text,util,idle", [
    ("The combined utilization of the four GPU cards stays under 100%.", "negated", "said"),
    ("The GPU utilization stays below 95% the whole run.", "negated", "said"),
    ("The combined utilization of the four GPU cards will not reach 100%.", "negated", "said"),
    ("The GPU utilization stays below 20% the whole run.", "said", "none"),   # a low ceiling, affirmed
    ("The GPU utilization reaches 100% the whole run.", "said", "none"),
])
def test_a_ceiling_at_full_is_not_full(tmp_path, text, util, idle):
    assert (claim_state(tmp_path, text, "gpu_util"), claim_state(tmp_path, text, "gpu_idle_words")) == (util, idle)


@pytest.mark.parametrize("text,state", [
    ("只有 6 和 7 能正常通信，其他卡之间的通信数据全都是错的。", "said"),
    ("跨卡之后训练结果都是错误的。", "said"),
    ("跨卡之后输出乱码。", "said"),
    ("检查过了，通信数据没有错误。", "none"),                                  # denied
    ("想问一下通信结果是不是错的？", "none"),                                   # asked
    ("结果不对劲，速度很慢。", "none"),                                         # "something feels off"
    ("测试结果正确。", "none"),
])
def test_wrong_results_in_chinese(tmp_path, text, state):
    assert claim_state(tmp_path, text, "wrong_results") == state


@pytest.mark.parametrize("text,slower", [
    ("我最好的结果是 20.89ms/token，达不到 12.44ms/token，而且 A100 理应比 A6000 更强才对。", "a100"),
    ("同样的模型，A6000 在我这里比 A100 更好。", "a100"),                        # said of the run
    ("A100 比 A6000 更强，跑得也更快。", "rtx"),                                  # the A100 ahead: A6000 behind
    ("同样的模型，A100 和 A6000 都能跑。", None),                                  # no comparison
])
def test_stronger_in_chinese(tmp_path, text, slower):
    found = gpus_compared(issue_facts(tmp_path, text))
    assert (found[0].key.split("-")[0] if found else None) == slower


@pytest.mark.parametrize("text,symptom", [
    ("Sharding over 2 GPUs: do you get lower latency out of the extra parallelism?", "other"),
    ("Sharding over 2 GPUs gives lower throughput than one GPU.", "scaling"),
])
def test_lower_latency_is_no_loss(tmp_path, text, symptom):
    assert symptom_of(tmp_path, text) == symptom


@pytest.mark.parametrize("text,asked", [
    ("Why shard GPT-NeoX over several GPUs when it fits one? For latency gains from the extra parallelism?", False),
    ("Why shard it over several GPUs? Is it because of the performance gain?", False),
    ("Would sharding over 2 GPUs give latency gains?", True),
])
def test_a_gain_named_as_a_motive(tmp_path, text, asked):
    assert bool(claims.layout_speed_asked(issue_facts(tmp_path, text))) is asked
