"""Issue 11 (session s39, pass review39; named review39s beside the older review39 of ut28g's readings): precision
probes of the readings session 32 widened. Each test is a probe written as reporters write
(tests/data/review39s/NOTES.md lists every probe with its verdict on main and on this branch), beside the near-miss
that must keep its answer:

1. a deadlock in the reporter's own code (threading, asyncio, queues) is no blocked P2P path (claims own_code_hang,
   ticket_rules.hang_on_pcie);
2. a share of one card's speed in Chinese ("速度只有单卡的一半") is a worded speed-up of 0.5, stated before a closing
   question too (claims.worded_speedup);
3. a quoted catalog error the reporter says a remedy fixed, or another's error they never saw, is no current failure
   (claims._RESOLVED_AFTER, claims._TAKEN_UP);
4. 没反应 in a post whose rate fell to zero stays a hang (claims._zh_not_observed);
5. Chinese hearsay or worry about no speed-up is not the reporter's observation, and "我还没试"/"还没买" is nothing
   run yet (claims._zh_not_own, claims._UNTRIED).
"""

import pytest
from conftest import judged_issue, said

from rules import claims


def _judged(body: str, title: str = "report"):
    return judged_issue(f"# {title}\n\n{body}\n")


# =========================================================================== 1. the reporter's own deadlock

@pytest.mark.parametrize("body", [
    "2x RTX 4090, vLLM tp=2. My own Python code sends requests from a ThreadPoolExecutor; my worker threads deadlock "
    "on a threading.Lock I hold while calling llm.generate().",
    "2x A100 PCIe, vLLM tp=2: my asyncio event loop deadlocks in my FastAPI handler when I call llm.generate "
    "synchronously inside an async def.",
    "两张 4090 vLLM tp=2，我自己的多线程代码在 queue.get() 上死锁了，用 threading 调用 generate",
])
def test_a_deadlock_in_the_reporters_own_code_is_no_p2p_answer(body):
    verdict, found = _judged(body)
    assert verdict.category != "p2p_disabled"
    assert found["ticket.hang_on_pcie"].confidence <= 0.25


@pytest.mark.parametrize("body", [
    # py-spy's frames name threading.py for every waiting process, a stuck collective included
    "2x RTX 4090, vLLM tp=2: it hangs at the first all_reduce. py-spy dump shows the main thread in wait "
    "(threading.py:320) and nothing else moves.",
    # the engine's own multiprocessing backend is no code of the reporter's
    "vLLM tp=2 hangs at startup with the multiprocessing backend on 2x RTX 4090; with ray it hangs too.",
    # ruled out, and only asked
    "2x RTX 4090, vLLM tp=2 hangs at the first all_reduce. It is not my own threads: the same hang happens in a plain "
    "script with no threading at all.",
    "2x RTX 4090, vLLM tp=2 hangs after loading. Could my worker threads deadlock somehow? I only call llm.generate "
    "from one thread.",
    "两张 4090 没有 NVLink，vLLM tp=2 多卡推理死锁，卡在 all_reduce，GPU 利用率 100%",
])
def test_a_collective_hang_keeps_the_p2p_lead(body):
    verdict, found = _judged(body)
    assert found["ticket.hang_on_pcie"].confidence == 0.5
    assert verdict.category == "p2p_disabled"


# =========================================================================== 2. a share of one card's speed

@pytest.mark.parametrize("body", [
    "用 vLLM 跑 Llama-2-13B，两张 A100 tp=2 速度只有单卡的一半？这正常吗",
    "用 vLLM 跑 Llama-2-13B，两张 A100 tp=2 速度只有单卡的一半，这正常吗？",
    "用了两张 3090 做张量并行，速度还不到单卡的一半，Llama-2-7B，vLLM",
])
def test_half_of_one_cards_speed_is_a_loss_not_normal(body):
    verdict, _ = _judged(body)
    assert verdict.category not in ("expected_physics", "healthy")


@pytest.mark.parametrize("sentence, ratio, large", [
    ("两张 3090 跑 tp=2 只有单卡的一半速度。", 0.5, 2),
    ("四张 L20 tp=4 的吞吐不到单卡的三分之一，用的 vLLM 0.6。", 1 / 3, 4),
    ("用 vLLM 跑 Llama-2-13B，两张 A100 tp=2 速度只有单卡的一半，这正常吗？", 0.5, 2),
])
def test_a_share_of_one_card_is_a_worded_speedup(sentence, ratio, large):
    c = claims.worded_speedup(sentence)
    assert c is not None and c.data["ratio"] == pytest.approx(ratio)
    assert (c.data["small"], c.data["large"]) == (1, large)


@pytest.mark.parametrize("sentence", [
    "单卡的速度是双卡的一半，两张 A100 tp=2 跑 Llama-2-13B，vLLM",  # two cards twice as fast: the gain
    "双卡 tp=2 每张卡显存占用只有单卡的一半，两张 A100",  # memory, not speed
    "是不是 tp=2 速度只有单卡的一半，这正常吗？",  # 是不是 asks the whole sentence
    "两张 3090 跑 tp=2 会不会只有单卡的一半速度？",  # a possibility asked
])
def test_no_speedup_read_from_a_gain_memory_or_a_question(sentence):
    assert claims.worded_speedup(sentence) is None


# =========================================================================== 3. a catalog error cured or another's

@pytest.mark.parametrize("body", [
    "One H100 SXM, vLLM, Llama-3-8B, batch 1: 150 tok/s decode. Last week I had 'Driver/library version mismatch' but "
    "a reboot fixed that. Is 150 tok/s normal?",
    "4x A100 SXM tp=4, Llama-2-70B in vLLM at 35 tok/s for one request. In another thread someone got "
    "ncclInvalidUsage but I never saw it. Is 35 tok/s expected?",
])
def test_an_error_cured_or_never_seen_leaves_the_figure(body):
    verdict, found = _judged(body)
    assert "ticket.known_error" not in found
    assert verdict.category == "expected_physics"


@pytest.mark.parametrize("body", [
    "nvidia-smi: Failed to initialize NVML: Driver/library version mismatch. A reboot has not fixed it. Before that "
    "Llama-2-7B ran at 90 tok/s on my A100.",
    "One A100 80GB, vLLM, Llama-2-7B at batch 1: 90 tok/s. I got 'Driver/library version mismatch' after the driver "
    "update and nothing fixed it except that it now runs. Is 90 tok/s normal?",
    "Someone in #1234 got ncclInvalidUsage with tp=2, and I get it too on 2x A100 with vLLM, Llama-2-13B at 70 tok/s "
    "before it fails.",
])
def test_an_error_still_there_or_taken_up_answers(body):
    verdict, found = _judged(body)
    assert found["ticket.known_error"].category == "other"
    assert verdict.category == "other"


# =========================================================================== 4. 没反应 with a rate gone to zero

def test_no_response_with_the_rate_at_zero_is_a_hang():
    text = "# 没反应\n\n8 卡 A800 tp=8 推理到一半没反应了，GPU 利用率一直 100%，速度从 20 tokens/s 掉到 0\n"
    verdict, _ = judged_issue(text)
    assert claims.symptom_quote(said(text))[2] == "hang"
    assert verdict.category != "host_bound"


@pytest.mark.xfail(strict=True, reason="没反应 yields to any speed word in the post (cn38); yielding only to a "
                   "complaint read this right but turned one fresh-split case wrong (73% -> 72%)")
def test_no_response_beside_a_fine_single_card_speed_is_a_hang():
    text = "# 请求没反应\n\n两张 A100 tp=2 vLLM 加载模型后，发请求没反应，之前单卡速度还可以\n"
    assert claims.symptom_quote(said(text))[2] == "hang"


# =========================================================================== 5. hearsay, worry, nothing run yet

@pytest.mark.parametrize("text", [
    "听说 tp=2 在 4090 上没有加速，是真的吗？我还没试，打算买两张 RTX 4090 跑 Qwen-14B",
    "怕开 tp=4 没有提升。现在 4 张 A100 tp=4 跑 Llama-2-70B 是 30 tokens/s，单请求",
    "网上说多卡没有加速，但我测的两张 A100 tp=2 是 70 tokens/s，单卡 40 tokens/s",
])
def test_heard_or_feared_no_speedup_is_no_scaling_symptom(text):
    assert claims.symptom_quote(said(text))[2] != "scaling"


@pytest.mark.parametrize("text", [
    "网上说多卡没有加速，我试了两张 3090 tp=2，确实没有加速，都是 40 tokens/s，Llama-2-7B vLLM",
    "我怕是 P2P 的问题：两张 3090 tp=2 比单卡还慢，单卡 40 tokens/s，双卡 30 tokens/s",  # 怕是: a guess at the cause
    "我试了两张 3090 tp=2，确实没有加速，40 tokens/s 和单卡一样，Llama-2-7B vLLM",
])
def test_an_own_no_speedup_stays_a_scaling_symptom(text):
    assert claims.symptom_quote(said(text))[2] == "scaling"


def test_heard_half_speed_before_buying_is_nothing_run():
    verdict, found = _judged("听说两张 3090 跑 tp=2 只有单卡的一半速度，是真的吗？我还没买第二张")
    assert verdict.category == "insufficient_data"
    assert found["ticket.nothing_broken"].category == "insufficient_data"


@pytest.mark.parametrize("text, untried", [
    ("我还没试，打算买两张 RTX 4090", True),
    ("还没有买第二张 3090。", True),
    ("两张 3090 tp=2 只有 20 tokens/s，还没试过 NCCL_P2P_DISABLE=1", False),  # a remedy untried after a run
])
def test_chinese_untried(text, untried):
    assert (claims.untried(said(text)) is not None) is untried


@pytest.mark.parametrize("text, current", [
    ("nvidia-smi says 'Failed to initialize NVML: Driver/library version mismatch' and a reboot hasn't fixed it.",
     True),
    ("nvidia-smi says 'Failed to initialize NVML: Driver/library version mismatch'; nobody fixed it so far.", True),
    ("nvidia-smi said 'Failed to initialize NVML: Driver/library version mismatch'; updating the driver solved it.",
     False),
])
def test_a_cure_said_is_read_only_as_said(text, current):
    found = [c for c in claims.known_errors(said(text)) if c.data["error"].id == "driver_library_mismatch"]
    assert bool(found) is current
