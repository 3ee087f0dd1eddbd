"""Precision review of the readings merged in session 38 (pass review38b).

Each probe (tests/data/review38b/NOTES.md lists them all, with the verdict before and after) sets one of the new or
widened readings (para38's, review38's, insuff38's) beside something that must decide instead: boards tried each by
itself, another thread's error, a hang only feared, the driver said not to support a GPU, a prompt budget set low.
"""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules import claims
from rules.engine import evaluate, is_cause, ticket_verdict


def _facts(tmp_path: Path, text: str):
    path = tmp_path / "ticket.md"
    path.write_text(text + "\n")
    return read_bundle([path])


def _judge(facts) -> tuple[str, set[str]]:
    """(verdict, the rules of the cause findings)."""
    findings = evaluate(facts, ticket_predictions(facts))
    return ticket_verdict(facts, findings).category, {f.rule for f in findings if is_cause(f)}


# --- several GPUs (para38 widened it to "a bunch of / a few / various GPUs"): boards tried each by itself are no job
# across GPUs, and the layer-split prior must not answer them

BUNCH_ALONE = ("I tried a bunch of different GPUs (a 3090, a 4090, an A6000), each one alone, and the 7B model always "
               "gives about 40 tok/s with llama.cpp. Is this expected?")


@pytest.mark.parametrize("text,several", [
    (BUNCH_ALONE, False),
    ("We benchmarked llama.cpp on various GPUs separately.", False),
    ("逐个测试了几张不同的显卡：3090、4090。", False),
    # still several: para38's own sentence, and a layer split whose GPUs work one at a time in one job
    ("I tried the image on a bunch of different GPUs and it hangs.", True),
    ("I split the 70B over a few GPUs with llama.cpp and they work one at a time.", True),
    ("Running one vLLM job on both GPUs, each GPU uses 20 GB and decode runs at 30 tok/s.", True),
])
def test_boards_each_by_itself_are_not_several(tmp_path, text, several):
    assert claims.several_gpus(_facts(tmp_path, text)) is several


def test_boards_each_by_itself_get_no_layer_split_prior(tmp_path):
    verdict, rules = _judge(_facts(tmp_path, BUNCH_ALONE))
    assert verdict != "expected_physics" and "ticket.symptom_prior" not in rules


# --- a quoted catalog error (review38 made it outrank a fitting figure): not when it is another thread's

OLD_OOM = ('In #4512 people got "CUDA error: out of memory" with this model; I don\'t. My problem is that tp=4 on '
           "4xL40S only does 25 tok/s decode for Llama-3-70B fp16.")


@pytest.mark.parametrize("text,quoted", [
    (OLD_OOM, False),
    ('The docs mention "CUDA error: out of memory" for long prompts. Mine runs fine.', False),
    ('People got "CUDA error: out of memory" in #4512, and I get it too on tp=4.', True),
    ('I get "CUDA error: out of memory" with tp=4 on 4xL40S.', True),
])
def test_another_threads_error_is_not_the_tickets(tmp_path, text, quoted):
    assert bool(claims.known_errors(_facts(tmp_path, text))) is quoted


def test_another_threads_error_leaves_the_fitting_figure(tmp_path):
    verdict, rules = _judge(_facts(tmp_path, OLD_OOM))
    assert verdict == "expected_physics" and "ticket.known_error" not in rules


# --- health._hang_seen (review38): a hang feared is not seen; a question of how to fix or find it presupposes one

@pytest.mark.parametrize("text,throttling", [
    ("Throughput drops over time from 2000 tok/s to 1400 tok/s after 30 minutes on 8x H100 under constant load. "
     "How can I avoid a hang if it keeps getting slower?", True),
    ("Throughput drops over time from 2000 tok/s to 1400 tok/s after 30 minutes on 8x H100 under constant load. "
     "How do I debug the hang that follows?", False),
    ("Throughput drops over time from 2000 tok/s to 1400 tok/s after 30 minutes on 8x H100 under constant load, "
     "and then all ranks hang.", False),
])
def test_a_hang_feared_leaves_the_throttling_lead(tmp_path, text, throttling):
    _, rules = _judge(_facts(tmp_path, text))
    assert ("health.throttling" in rules) is throttling


# --- build.support_asked (insuff38): the driver said not to support a GPU is no build question

@pytest.mark.parametrize("text,fires", [
    ('My RTX 5090 is not supported by the driver, nvidia-smi says "No devices were found" with driver 550.', False),
    ("驱动不支持 5090 吗？装了 550 驱动，nvidia-smi 看不到卡。", False),
    ("Would be great if the 50 series was supported, I have an RTX 5080.", True),
])
def test_driver_said_unsupported_is_no_build_question(tmp_path, text, fires):
    _, rules = _judge(_facts(tmp_path, text))
    assert ("build.support_asked" in rules) is fires


# --- "is this normal?" (para38 widened it to "请问这个是正常情况吗"): a first token asked about beside a step token
# budget set below the engine's own is a setting, not physics

LAUNCH = ("python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-72B-Instruct --tensor-parallel-size 4 "
          "--max-num-batched-tokens {budget}")


@pytest.mark.parametrize("budget,ask,prior", [
    (128, "4 张 A100 部署，首token 大约 1.5s，请问这个是正常情况吗？", False),
    (256, "On 4x A100 the TTFT is about 1.5 s for a 3000-token prompt. Is this normal?", False),
    (16384, "On 4x A100 the TTFT is about 1.5 s for a 3000-token prompt. Is this normal?", True),
    (128, "On 4x A100 the decode speed is 30 tokens/s for one request. Is this normal?", True),
])
def test_prompt_budget_below_the_engines_own(tmp_path, budget, ask, prior):
    facts = _facts(tmp_path, f"{ask}\n\n```\n{LAUNCH.format(budget=budget)}\n```")
    _, rules = _judge(facts)
    assert ("ticket.symptom_prior" in rules) is prior


# --- isolated ranks (para38 read the Chinese "两个 docker 之间", "跨容器", "同一台机器上的两个容器"): not ruled out,
# and not containers that run jobs of their own

@pytest.mark.parametrize("text,isolated", [
    ("两个 docker 之间跑 NCCL，每个容器一张 A100，all_reduce busbw 只有 8 GB/s。", True),
    ("We run NCCL between two containers on the same host, one GPU each; all_reduce busbw is 8 GB/s.", True),
    ("不是跨容器的问题，我们两个 rank 在同一个容器里，8 卡 A100 all_reduce busbw 只有 20 GB/s。", False),
    ("同一台机器上的两个容器各用 4 张卡，分别跑推理服务，互不通信，每个服务 decode 30 tokens/s，正常吗？", False),
    ("Two containers on the same host each use 4 GPUs and run separate vLLM servers that do not talk to each other; "
     "each serves decode at 30 tokens/s. Is that normal?", False),
])
def test_isolated_ranks_not_ruled_out_nor_separate_jobs(tmp_path, text, isolated):
    _, rules = _judge(_facts(tmp_path, text))
    assert ("ticket.isolated_ranks" in rules) is isolated


# --- two machines told apart, "one with ..., the other with ..." (para38): not when one job runs over both

@pytest.mark.parametrize("text,across", [
    ("We run one job across two machines, one with 8xA100 and the other with 8xA100 too, over 100G RoCE; "
     "all_reduce busbw is 3 GB/s.", True),
    ("I ran llama.cpp on two machines, one with 4xA100 and the other with 8xH100, and the 8xH100 box is slower.",
     False),
])
def test_one_against_the_other_unless_one_job_spans(tmp_path, text, across):
    facts = _facts(tmp_path, text)
    assert any(not c.guess for c in claims.find(facts, "multi_node")) is across


# --- Chinese readings para38 widened: "速度和一张卡一样" (not "不一样"), "不理想" (a rate's, not the memory's)

@pytest.mark.parametrize("text,flat", [
    ("两张卡的速度和一张卡不一样，快了 1.8 倍，4090 tp=2。正常吗？", False),
    ("两张 4090 tp=2，速度和一张卡差不多，正常吗？", True),
])
def test_speed_unlike_one_card_is_no_flat_scaling(tmp_path, text, flat):
    said = claims.symptom_quote(_facts(tmp_path, text))
    assert (said is not None and said[2] == "scaling") is flat


@pytest.mark.parametrize("text,slow", [
    ("显存占用不理想，能不能降低一点？现在单卡 A100 跑 Qwen2.5-14B 占了 70GB。", False),
    ("两张 A100 跑 Qwen2.5-72B，速度不太理想，只有 10 tokens/s。", True),
])
def test_unsatisfactory_said_of_a_rate(tmp_path, text, slow):
    said = claims.symptom_quote(_facts(tmp_path, text))
    assert (said is not None and said[2] in ("slow", "scaling")) is slow


# --- a quoted catalog error the reporter says is over (review38's FAILURE_MESSAGES lets a current one outrank a fitting
# figure): what ran before, not the failure now

@pytest.mark.parametrize("text,failure", [
    ('The "CUDA error: out of memory" is gone after I set --max-model-len 8192. Remaining issue: vLLM tp=2 on two A100 '
     "80GB serves Llama-3-70B fp16 at 18 tokens/s single stream.", False),
    ("之前报 torch.OutOfMemoryError: CUDA out of memory，调小 max-model-len 后已经解决了。现在两张 A100 80G tp=2 跑 "
     "Llama-3-70B，单请求 18 tokens/s，正常吗？", False),
    ('With tp=2 on two A100 80GB, Llama-3-70B decodes at 18 tokens/s and then crashes with "torch.OutOfMemoryError: '
     'CUDA out of memory. Tried to allocate 2.00 GiB".', True),
    ("报 torch.OutOfMemoryError: CUDA out of memory，还没解决，两张 A100 80G tp=2 跑 Llama-3-70B。", True),
])
def test_an_error_said_over_is_not_the_failure_now(tmp_path, text, failure):
    verdict, rules = _judge(_facts(tmp_path, text))
    assert ("ticket.known_error" in rules) is failure
    if not failure:
        assert verdict == "expected_physics"  # the figure that fits answers
