"""The verdict survives a rewording, held out (pass para38).

tests/data/para38/<case>/ holds two WRITTEN rewordings of a development case's prose (a: terse, b: another voice, 17 of
the 40 b's in Chinese), the artifacts byte-for-byte (README.md there), of 40 cases no earlier set (para37, para37b,
para37c, para37d) rewrote. On main 55ddded3, after all four sets, 20 of 80 flipped: the held-out measure of their
fixes. Each flip was traced to a reading that knew one spelling of a fact, widened to the family and checked below
with near-misses and negations; two rewordings had lost a fact and were mended (README.md); three flips are left as
strict xfails with their reason.
"""

import re

import pytest
from conftest import REPO

from benchmarks.regex_worst_case import runaway_repeats
from rules import claims
from rules.ticket_questions import _REQUESTS_RATE, concurrency_rates
from tests.rewordings import TICKETS, claim_state, fences_kept, issue_facts, original_verdict, symptom_of, verdict

PARA = REPO / "tests" / "data" / "para38"

# the rewordings that flipped on main (55ddded3) and what they were missing
FIXED = {
    "c001-llamacpp-8xp6000-7b-no-speedup/b": "'这是正常现象，还是我哪里用错了？' (normal, or did I do it wrong?)",
    "n028-nccl-tests-two-dockers-one-host-half-bw/a": "'two dockers on one host' (the plural 'dockers')",
    "n028-nccl-tests-two-dockers-one-host-half-bw/b": "'两个 docker 之间跑 NCCL', '性能掉得很厉害'",
    "s022-ollama-2x4090-gpu-load-50pct/b": "'GPU 负载最高只能到 50%' (GPU load, a ceiling)",
    "t011-nccl-20node-a100-small-allreduce-4ms/a": "'a 228-byte tensor takes ~4ms' (the size as a compound adjective)",
    "t027-sdscripts-2xh100-ddp-same-speed/b": "'2 张 H100 训练，速度和 1 张 H100 一样'",
    "u13a04-lmdeploy-2x4090-driver-545-cuda123-requests-never-answered/b":
        "'comes up with zero errors' read as an error; 'never answers them'; 'a bunch of different GPUs'",
    "u16b04-cudnn-first-convolution-iteration-1p6x-to-27x-slower-than-next/b":
        "'warming up GPU until SM frequency is 100%' read as 100 % utilisation",
    "u5a02-fastchat-vllm-worker-13b-4090-v100-no-boost/b": "'the boost I get is very small or nothing'",
    "u6a06-ollama-r1-70b-4x4090-only-one-gpu-busy/b": "'速度也不太理想', '...帮助不大？...' (a question run on)",
    "u6b02-ollama-4x4090-gpus-10-25pct-one-cpu-thread/b": "'速度被单个 CPU 核心的性能卡住了' read as a hang",
    "u7b01-ollama-windows-exceeds-dedicated-vram-gpu-0pct/b": "'memory usage goes beyond the dedicated memory'",
    "u7b09-groot-thor-torch-inference-slow-after-10s-sleep/b": "'time cost of next frame ... becomes much bigger'",
    "u7d02-sglang-single-request-70-tokps-two-requests-140/a": "'Why can't one request use the maximum bandwidth?'",
    "u7d02-sglang-single-request-70-tokps-two-requests-140/b": "'只有一个请求的时候 ... 70 tokens/s' (count after 有)",
}
# flips whose rewording had lost a fact, mended in the rewording (README.md), not in a reading
MENDED = {
    "u13a04-lmdeploy-2x4090-driver-545-cuda123-requests-never-answered/a": "'across several GPUs' had lost 'several'",
    "u7c11-trtllm-t5-tp4-cannot-enable-access-between-nodes-1-and-0/a": "the title had lost 'RuntimeError:'",
}
# flips left: the right answer is known, a general reading is not
UNFIXED = {
    "s007-llamacpp-8xh100-nvlink-slower-than-4xa100/a":
        "the original's '21 tokens per socond' (a typo) hides the 8xH100 rate; spelled right, the rate is read, the "
        "model is unknown, and ticket.figure_unjudged quiets the layer-split prior (engine.quiet_priors), although "
        "a layer split's turn-taking explains any rate: an engine question, not a reading",
    "s007-llamacpp-8xh100-nvlink-slower-than-4xa100/b":
        "as a (the rate is read, the prior quieted), and ticket.newer_arch_behind reads 'my 8x H100 ... is SLOWER "
        "than a 4x A100 pcie box' as the newer GPU behind, where the original's 'performance of 8xH100 is worse' "
        "was not",
    "u6a06-ollama-r1-70b-4x4090-only-one-gpu-busy/a":
        "'only one GPU of four is used' meets the by-design row ollama_one_gpu (rules/catalog/by_design.toml), which "
        "the original escapes only because 'I also found a similar post' trips the row's 'found' guard; a 70B model "
        "does not fit one 4090, which that row does not check",
}


def _marks(key: str):
    if key in UNFIXED:
        return pytest.mark.xfail(strict=True, reason=UNFIXED[key])
    return () if key in FIXED or key in MENDED else pytest.mark.slow


CASES = sorted(p for p in PARA.iterdir() if p.is_dir())
REWORDINGS = [pytest.param(c.name, n, id=f"{c.name}/{n}", marks=_marks(f"{c.name}/{n}"))
              for c in CASES for n in ("a", "b")]


def test_set_is_as_described():
    assert len(CASES) == 40
    assert all((TICKETS / c.name).is_dir() for c in CASES)
    assert all((c / f"{n}.md").is_file() for c in CASES for n in ("a", "b"))
    earlier = {p.name for d in ("para37", "para37b", "para37c", "para37d")
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
    ("8 张卡只有 40 tokens/s，这是正常现象，还是我哪里用错了？", "normal?"),
    ("8 张卡只有 40 tokens/s，不知道正不正常。", "normal?"),
    ("8 张卡只有 40 tokens/s，请问这种情况正常吗？", "normal?"),
    ("8 张卡跑 40 tokens/s，是我哪里没有设置对吗？", "normal?"),
    ("8 张卡跑 40 tokens/s，一切正常，谢谢。", "other"),                     # said normal, not asked
    ("8 张卡跑 40 tokens/s，我知道是哪里用错了，已经改好了。", "other"),     # the mistake found, no question
])
def test_chinese_is_this_normal(tmp_path, text, symptom):
    assert symptom_of(tmp_path, text) == symptom


@pytest.mark.parametrize("text,symptom", [
    ("用 Ollama 部署了模型，生成回答的速度也不太理想。", "slow"),
    ("两个 docker 之间跑 all_reduce，性能掉得很厉害。", "slow"),
    ("两张 4090，GPU 负载最高只能到 50%。", "slow"),
    ("用 Ollama 部署了模型，生成速度很理想。", "other"),                     # praise
    ("两个 docker 之间跑 all_reduce，性能没有掉。", "other"),                # said not to fall
])
def test_chinese_shortfall_words(tmp_path, text, symptom):
    assert symptom_of(tmp_path, text) == symptom


@pytest.mark.parametrize("text,percent", [
    ("两张 4090，每张卡 GPU 负载率只有 50%。", 50.0),
    ("显卡负载 30%，CPU 跑满了。", 30.0),
    ("CPU 负载 100%，其他正常。", None),                                    # the CPU's load
    ("After the GPU is warmed up until SM frequency is 100%, I call cuDNN.", None),   # a clock, not busy time
    ("The GPU is at 100% while the conv runs.", 100.0),
])
def test_gpu_load_and_not_its_clock(tmp_path, text, percent):
    found = [c.data["percent"] for c in claims.claims(issue_facts(tmp_path, text)) if c.kind == "gpu_util"]
    assert (found[0] if found else None) == percent


@pytest.mark.parametrize("text,state", [
    ("nccl-tests: two dockers on one host much slower than one docker.", "said"),
    ("同一台机器上两个 docker 之间跑 NCCL，很慢。", "said"),
    ("同一台服务器上的两个容器跑 all_reduce，很慢。", "said"),
    ("一个 docker 里挂四张卡跑 all_reduce，很快。", "none"),                 # one container
    ("one docker holding four cards reaches 31 GB/s.", "none"),
])
def test_ranks_in_separate_containers(tmp_path, text, state):
    assert claim_state(tmp_path, text, "isolated_ranks") == state


@pytest.mark.parametrize("text,symptom", [
    ("Ubuntu 上用 2 张 H100 训练，速度和 1 张 H100 一样，哪里做错了？", "scaling"),
    ("4 张卡推理，速度跟单卡差不多。", "scaling"),
    ("2 张 H100 训练，速度和预期一样，很满意。", "other"),                  # as expected: no count of cards beside
])
def test_chinese_same_speed_as_one_card(tmp_path, text, symptom):
    assert symptom_of(tmp_path, text) == symptom


@pytest.mark.parametrize("text,symptom", [
    ("多卡推理速度被单个 CPU 核心的性能卡住了。", "other"),                   # held back by, a bottleneck
    ("多卡推理的时候程序卡住了，没有输出。", "hang"),
    ("进程被 kill 之后程序卡住了。", "hang"),                                # 被 ... 之后: a time, then the hang
])
def test_held_back_by_is_no_hang(tmp_path, text, symptom):
    assert symptom_of(tmp_path, text) == symptom


@pytest.mark.parametrize("text,symptom", [
    ("On 4090s the server comes up with zero errors, takes the requests and never answers them.", "hang"),
    ("The server comes up with zero errors and runs fine at 40 tok/s, is that normal?", "normal?"),
    ("The server comes up and then throws errors on the first request.", "error"),
])
def test_zero_errors_and_requests_never_answered(tmp_path, text, symptom):
    assert symptom_of(tmp_path, text) == symptom


@pytest.mark.parametrize("text,several", [
    ("I tried the image on a bunch of different GPUs and it hangs.", True),
    ("I tried the image on a couple of A100 cards.", True),
    ("I tried the image on one GPU.", False),
])
def test_several_gpus_said_as_a_bunch(tmp_path, text, several):
    assert claims.several_gpus(issue_facts(tmp_path, text)) is several


@pytest.mark.parametrize("text,state", [
    ("I ran llama.cpp on two machines, one's got 4xA100, the other 8xH100.", "none"),
    ("I tested on two servers, one with 4 A100 and the other with 8 H100.", "none"),
    ("We run TP across two machines connected over IB.", "said"),
    ("Inference on two nodes with 8 GPUs each is slow.", "said"),
])
def test_two_machines_told_apart(tmp_path, text, state):
    assert claim_state(tmp_path, text, "multi_node") == state


@pytest.mark.parametrize("text,state", [
    ("Training on 20 nodes, allreduce of a 228-byte tensor takes ~4ms.", "said"),
    ("Training on 20 nodes, allreduce of a 228 bytes tensor takes 4 ms.", "said"),
    ("Training on 20 nodes, allreduce of a 16-MB tensor takes 4 ms.", "none"),   # a large message
])
def test_small_collective_size_as_adjective(tmp_path, text, state):
    assert claim_state(tmp_path, text, "small_collective_slow") == state


@pytest.mark.parametrize("text,state", [
    ("When we put 10s sleep in the middle, time cost of next frame often becomes much bigger.", "said"),
    ("With a 10s sleep in the middle, the next frame is bigger than the last.", "none"),   # a size, not a time
])
def test_idle_gap_time_grows(tmp_path, text, state):
    assert claim_state(tmp_path, text, "idle_gap_slow") == state


@pytest.mark.parametrize("text,over", [
    ("As soon as total graphics memory usage goes beyond the card's dedicated graphics memory, it stops using the "
     "GPU.", True),
    ("The model surpasses the GPU's VRAM, so Ollama keeps layers on the CPU.", True),
    ("The model does not go beyond the GPU's VRAM, everything is on the GPU.", False),
])
def test_over_vram_said_as_going_beyond(tmp_path, text, over):
    found = claims.over_vram(text, lambda: False)
    assert bool(found and not found[0][1]) is over


@pytest.mark.parametrize("text,failure", [
    ("One request: 70 tok/s. Two requests: 140 tok/s. Why can't one request use the maximum bandwidth?", False),
    ("Why can't it reach the full bandwidth?", False),
    ("I can't use the second GPU at all.", True),    # a device out of reach: a failure
])
def test_a_speed_out_of_reach_is_no_failure(tmp_path, text, failure):
    assert (symptom_of(tmp_path, text) == "error") is failure


@pytest.mark.parametrize("text,pair", [
    ("只有一个请求的时候 TPS 是 70 tokens/s；两个请求的时候变成了 140 tokens/s。", (70.0, 140.0)),
    ("One request gives 70 tokens/s; with two requests it is 140 tokens/s.", (70.0, 140.0)),
    ("Qwen2 requests at 70 tokens/s, then 140 tokens/s.", None),   # a count inside a Latin word is none
])
def test_requests_counted_after_a_chinese_word(tmp_path, text, pair):
    c = concurrency_rates(issue_facts(tmp_path, text))
    assert ((c.data["one"], c.data["many"]) if c else None) == pair


@pytest.mark.parametrize("text,complaint", [
    ("On 4090 and V100 the boost I get is very small or nothing, why?", True),
    ("The speed-up was negligible on V100.", True),
    ("The boost is not small at all, it doubled.", False),
])
def test_gain_called_small(tmp_path, text, complaint):
    assert (claims.complaint(issue_facts(tmp_path, text)) is not None) is complaint


@pytest.mark.parametrize("text,asks", [
    ("这是不是说明用多张 GPU 帮助不大？...", True),
    ("速度是正常的吗？我用的是 4 张 4090", True),
    ("速度 40 tokens/s，用的是 4 张 4090。", False),
])
def test_full_width_question_mark_run_on(tmp_path, text, asks):
    assert (claims.asks(issue_facts(tmp_path, text)) is not None) is asks


@pytest.mark.parametrize("text,guess", [
    ("对于并行方式，推理是选择张量并行还是流水线并行？", True),          # DeepSeek-V2#35: which to choose
    ("For inference, should I choose tensor parallel or pipeline parallel?", True),
    ("我用的是流水线并行，吞吐很低，是 batch 太小还是配置问题？", False),   # in use, said before the question
    ("We use pipeline parallelism or tensor parallelism depending on the model, and both are slow.", False),
])
def test_layouts_offered_to_choose_are_not_in_use(tmp_path, text, guess):
    """(sweep) reading "最多只能达到1500tokens/s" as a shortfall let ticket.pp_bubble answer DeepSeek-V2#35 from the
    question "张量并行还是流水线并行？", which names no layout in use."""
    found = [c for c in claims.claims(issue_facts(tmp_path, f"vllm on 8 H800 gives 1500 tok/s. {text}"))
             if c.kind == "pipeline_parallel"]
    assert found and found[0].guess is guess


def test_new_patterns_bounded():
    """What this pass added has no nested unbounded repeat (benchmarks/regex_worst_case.py)."""
    for pattern in (claims._HELD_BACK_BY.pattern, claims._ONE_THE_OTHER.pattern, claims._UTIL.pattern,
                    claims._ALTERNATIVES.pattern,
                    claims._ASKS.pattern, claims._GAP_SLOWER, claims._NO_GAIN, claims._CJK_SCALING,
                    _REQUESTS_RATE.pattern, *claims.PATTERNS["isolated_ranks"],
                    *claims.PATTERNS["small_collective_slow"],
                    *(p for kind, p in claims.SYMPTOMS if kind in ("hang", "error", "scaling"))):
        assert runaway_repeats(pattern, re.I) == [], pattern[:40]
