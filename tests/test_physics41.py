"""Issue 11 (session s41, pass physics41): new real threads whose settled answer is that the observed speed is what
the hardware and layout give, from repositories earlier passes searched little (PaddlePaddle, PaddleX, PaddleOCR,
kvcache-ai/ktransformers, yuekaizhang/Fun-ASR-vllm), run blind (tests/data/physics41/SOURCES.md has each thread, its
settled answer and the verdicts before and after).

One reading is widened: each request slower as more run at once, said in Chinese. A time said to rise ("耗时...增加",
"延迟...上升", "响应时间变长") is a slowness as "latency increases" is in English (claims' "slow" symptom), and such a
rise tied to more concurrent requests, instances or processes ("耗时随着并发数增加而显著增加", "设置多个triton
instance，并发的耗时也在上升") is claims.batch_tradeoff, which ticket.serving_tradeoff answers as the serving trade.
The other misses stay strict xfails with their reasons.
"""

from pathlib import Path

import pytest
from conftest import judged_issue
from test_ticket_numbers import _said  # a description's facts

from rules import claims

DATA = Path(__file__).parent / "data" / "physics41"


def _judged(name: str):
    return judged_issue((DATA / name).read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- settled threads answered right


@pytest.mark.parametrize("name", [
    "paddle74043.md",  # PaddlePaddle/Paddle#74043: OCR instances on one 4090, slower each; "合理" (maintainer)
    "paddlex4668.md",  # PaddlePaddle/PaddleX#4668: triton instances on one card contend, "导致耗时上升" (maintainer)
])
def test_more_in_flight_on_one_gpu_is_the_serving_trade(name):
    verdict, findings = _judged(name)
    assert verdict.category == "expected_physics"
    assert "ticket.serving_tradeoff" in findings


def test_memory_shown_low_under_ktransformers_stays_healthy():
    """kvcache-ai/ktransformers#451: the weights sit in buff/cache, "this is not a problem" (answered right blind)."""
    verdict, _ = _judged("kt451.md")
    assert verdict.category == "healthy"


# ----------------------------------------------------------------------------- misses kept as they are


def _missed(name: str, reason: str):
    return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=reason), id=name)


@pytest.mark.parametrize("name", [
    _missed("funasr15.md", "yuekaizhang/Fun-ASR-vllm#15: one GPU named, no model, rate or figure; the reporter's "
            "guess (the 4090's bandwidth below an H20's) is no measurement, and the maintainer's answer (nothing to "
            "gain if the speed-up over torch is sound) needs figures the post lacks"),
    _missed("kt641.md", "kvcache-ai/ktransformers#641: high CPU and little RAM 'used' is ktransformers' design (MoE "
            "experts on the CPU, weights in the page cache); the post gives only the command line, and reading the "
            "engine's design from its name rests on no catalog of engines' offload"),
    _missed("kt733.md", "kvcache-ai/ktransformers#733: a second 4090 for a model mostly in system RAM does not raise "
            "the rate (maintainer: 不能); answered healthy (nothing broken), the neighbouring category: no model of a "
            "CPU-offloaded MoE's rate prices the second card"),
    _missed("paddle45092.md", "PaddlePaddle/Paddle#45092: two nodes over gigabit Ethernet with a 300 MB model, said "
            "only in the replies; the first post names neither the link nor the model's size"),
    _missed("paddle60778.md", "PaddlePaddle/Paddle#60778: np.ones makes float64 and the A40's FP64 rate is a small "
            "fraction of the V100's (maintainer); the post says no dtype, and numpy's default dtype read out of a "
            "script rests on this one thread"),
    _missed("paddleocr12116.md", "PaddlePaddle/PaddleOCR#12116: one image timed with the model's construction and "
            "the copy to the GPU (the maintainers: time a batch and average); the timed code is in a later comment"),
])
def test_misses_kept_as_they_are(name):
    verdict, _ = _judged(name)
    assert verdict.category == "expected_physics"


# ----------------------------------------------------------------------------- the reading, on other sentences

# Real sentences the patterns were not written from (public repositories the index returned by find_string; the
# first two from LLM serving benchmarks), then probes.
@pytest.mark.parametrize("sentence", [
    "趋势分析：随着并发数增加，首 Token 延迟（TTFT）急剧上升。",  # an aiperf report (index id 59424787963)
    "随并发数增加，TPS 先上升后趋于稳定，P99 延迟持续上升",  # a vLLM tuning script's summary (index id 52078847642)
    "如果是单张卡部署多个实例，这些实例之间可能会存在资源挤占，导致耗时上升。",  # PaddleX#4668, the maintainer
    "时延随并发数增加呈上升趋势，主要由消息队列处理开销和网络带宽竞争导致。",  # an IoT report (index id 59487157997)
    "probe: 开了 8 个并发以后，每个请求的延迟都变长了",
    "probe: 随着请求数增加，速度越来越慢，正常吗？",
])
def test_each_request_slower_as_more_run_is_read_in_chinese(sentence):
    assert [c.kind for c in claims.batch_tradeoff(_said(sentence))] == ["batch_tradeoff"]


@pytest.mark.parametrize("sentence", [
    "随着并发数增加， `GPU Docker` 的任务平均耗时更低",  # real (index id 1289851663): the time fell
    "大请求的内存占用随请求大小和并发数增加。",  # real (index id 70900879787): memory, not time
    "最终结果体现就是使用9个并发时就会严重增加合成的总时长",  # real (qi-hua/async_cosyvoice#63): verb before the noun
    "probe: 并发数增加以后，耗时并没有增加",  # ruled out
    "probe: 并发增加，延迟不会变长",  # ruled out
    "probe: 多卡推理的耗时反而增加了",  # more cards: scaling, not requests in flight
    "probe: 随着输入长度增加，首字延迟变长",  # a longer prompt, not more requests
    "probe: 听说并发多了会更快",  # nothing slower
])
def test_no_batch_trade_where_none_is_stated_in_chinese(sentence):
    assert claims.batch_tradeoff(_said(sentence)) == []


@pytest.mark.parametrize("text", [
    "# server 起来以后前几个请求响应时间长\n\n没有请求访问后突然有新请求也会响应时间变长。",  # clip-as-service#539
    "# probe\n\n单卡部署后，推理耗时比上周显著增加。",
])
def test_a_time_that_rises_is_a_slowness(text):
    assert claims.symptom(_said(text)) == "slow"


@pytest.mark.parametrize("text", [
    "# probe\n\n升级驱动后推理耗时没有增加，一切正常。",  # ruled out
    "# probe\n\n训练时间增加到了 3 天。",  # a bare 时间 is not read
])
def test_no_slowness_where_no_time_rose(text):
    assert claims.symptom(_said(text)) != "slow"
