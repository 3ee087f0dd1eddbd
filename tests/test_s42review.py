"""The s42 review's fixes to this session's merged readings (probes: short sentences testing one reading, with the
near-misses that must keep their reading)."""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts, Workload
from rules import ticket_questions


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def _nodes(text: str):
    return next((w.nodes for w in _facts(f"# 问题\n\n{text}\n").of(Workload) if w.nodes), None)


# issue_md.CJK_NODES_EACH: the machines counted before 各 are a whole number. A GPU model's digits before 服务器 are
# no machine count (it read "两台 H800 服务器各 8 卡" as 800 machines), nor is the ones digit of a Chinese numeral
# ("十二台" read as 2).
@pytest.mark.parametrize("text, nodes", [
    ("环境：两台 H800 服务器各 8 卡，用 vLLM 跑 TP=16。", None),  # probe: no 800 machines
    ("环境：A100 机器各 8 卡，TP=8。", None),  # probe
    ("环境：十二台服务器各 8 卡，TP=16。", 12),  # probe: twelve, not two (read whole since s43)
    ("环境：双机各 8 卡，TP=16。", 2),  # probe: still read
    ("2台服务器各8张卡，测试 nccl。", 2),  # probe: still read
    ("用两台机器各4卡，tp=4。", 2),  # probe: still read after another Chinese character
])
def test_machines_counted_before_each_are_whole(text, nodes):
    assert _nodes(text) == nodes


def _sparse(text: str):
    from rules.subject import Subject

    facts = _facts(f"# MFU\n\n{text}\n")
    facts.subject = Subject.of(facts)
    return ticket_questions.sparse_peak_quoted(facts)


# ticket_questions._RATE_OVER: the sparse figure may end its sentence; a period after it is no decimal point (it read
# "400/1979," but not "400/1979.").
@pytest.mark.parametrize("text, found", [
    ("Training on 8x H100 SXM. The MFU is only 400/1979. Is this expected?", True),  # probe
    ("Training on 8x H100 SXM. The util is 420 of 1,979. Is this expected?", True),  # probe
    ("Training on 8x H100 SXM. The MFU is only 400/19790. Is this expected?", False),  # probe: a longer number
])
def test_sparse_figure_ending_a_sentence(text, found):
    assert (_sparse(text) is not None) is found


def _remedies(tmp_path, text: str):
    from diagnose.bundle import read_bundle
    from rules import claims

    path = tmp_path / "issue.md"
    path.write_text("Slow TP=2 on 2x RTX 4090 with vLLM. " + text)
    return [(c.data["effect"], c.guess) for c in claims.find(read_bundle([path]), "remedy")]


# claims._tried_effect: a remedy asked about and answered in the same sentence was tried only where the answer is the
# reporter's run; a guess for an answer ("I think it fixes it") keeps it a guess, as hearsay does.
@pytest.mark.parametrize("text, guess", [
    ("Does --enforce-eager help? I think it fixes it.", True),  # probe: a guess
    ("Does --enforce-eager help? Maybe, it seems to work now.", True),  # probe: a guess
    ("Does --enforce-eager help? Yes, it works now.", False),  # probe: the reporter's run
    ("Does --enforce-eager help? No, it still hangs.", False),  # probe: the reporter's run
])
def test_remedy_answered_by_a_guess_stays_a_guess(tmp_path, text, guess):
    [(_, was_guess)] = _remedies(tmp_path, text)
    assert was_guess is guess


# claims._one_gpu_waivers_out: nvbandwidth waives its peer tests on a run that sees one GPU (no pair to test,
# Testcase::filterHasAccessiblePeerPairs), so there the "Waiving device_to_device_..." lines are no P2P refusal; with a
# second device listed (NVIDIA/nvbandwidth#13's two RTX 2080 Ti) they still are.
_NVBW = """# host_to_device bandwidth on {title}

Host to device copies look slow to me, is that normal?

```
nvbandwidth Version: v0.2

Device 0: NVIDIA GeForce RTX 4090
{second}
Running host_to_device_memcpy_ce.
memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
          0
0     12.10

Waiving device_to_device_memcpy_read_ce.
Waiving all_to_one_write_ce.
```
"""


@pytest.mark.parametrize("title, second, refused", [
    ("a single RTX 4090", "", False),  # probe: one device, no pair
    ("two RTX 4090", "Device 1: NVIDIA GeForce RTX 4090\n", True),  # probe: a pair, waived
])
def test_nvbandwidth_waivers_on_one_gpu_are_no_p2p_refusal(title, second, refused):
    from conftest import judged_issue

    verdict, _ = judged_issue(_NVBW.format(title=title, second=second))
    assert (verdict.category == "p2p_disabled") is refused


# claims._effect: "still slow" after a remedy is no help only where the sentence does not say it got faster; "much
# faster, though still slower than TP=1" helped in part (it was no_help, which rules the remedy's cause out).
@pytest.mark.parametrize("text, effect", [
    ("I added --enforce-eager and it got much faster, though still slower than TP=1.", None),  # probe
    ("I added --enforce-eager and it improved, but the first request is still slow.", None),  # probe
    ("I added --enforce-eager and it did not improve, still very slow.", "no_help"),  # probe: negated
    ("I added --enforce-eager and it is still very slow.", "no_help"),  # probe
    ("I added --enforce-eager and it got slower.", "worse"),  # probe
])
def test_faster_but_still_slow_is_no_no_help(tmp_path, text, effect):
    [(found, _)] = _remedies(tmp_path, text)
    assert found == effect


# ticket_rules._tp_error: a width worked through against the quantisation group whose groups every TP size the ticket
# runs divides is no refusal of that TP ("232 groups ... 不能被 3 整除" beside TP=8 made tp_not_dividing_heads at 0.8).
@pytest.mark.parametrize("text, refused", [
    # probe: TP 8 in use, 232 groups split 8 ways
    ("# TP=8 推理速度慢\n\n用 vLLM 在 8 张 A100 上跑 GPTQ-Int4 模型，tensor_parallel_size=8，吞吐只有 10 tokens/s，"
     "比预期慢很多。\n\nintermediate_size 为 29696，除以 128 后为 232，不能被 3 整除，但 TP=8 没问题。\n", False),
    # probe: TP 3 in use, refused
    ("# TP=3 启动报错\n\n用 vLLM 在 3 张 A100 上跑 GPTQ-Int4 模型，tensor_parallel_size=3，启动就报错。\n\n"
     "intermediate_size 为 29696，除以 128 后为 232，不能被 3 整除。\n", True),
    # probe: no TP size named, the refusal stands
    ("# 启动报错\n\n用 vLLM 跑 GPTQ-Int4 模型，启动就报错。\n\nintermediate_size 为 29696，除以 128 后为 232，"
     "不能被 3 整除。\n", True),
    # (final read, fixer_b) probe: TP 8 worked, then 3 cards refused: the GPU count the ticket ran on is a TP it
    # cannot split into, so the refusal stands though TP 8 fits
    ("# vLLM 启动报错\n\n用 vLLM 跑 GPTQ-Int4 模型，tensor_parallel_size=8 没问题，换成 3 张 A100 启动就报错。\n\n"
     "intermediate_size 为 29696，除以 128 后为 232，不能被 3 整除。\n", True),
])
def test_group_split_that_fits_the_tp_in_use_refuses_nothing(text, refused):
    from conftest import judged_issue

    verdict, _ = judged_issue(text)
    assert (verdict.category == "tp_not_dividing_heads") is refused
