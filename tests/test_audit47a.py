"""Audit of the `healthy` verdict (pass audit47a, issue 11 item 3: "unrelated passed checks turn a complaint into
healthy"). The table of every measurement-check pass and of 29 `ticket.nothing_broken` priors is in
tests/data/audit47a/AUDIT.md.

The one mechanism found in three separate threads: `ticket.nothing_broken` called "normal" a result the reporter
holds short of what they expected or of a reported result, in words no complaint reading knew and with no figure
("improved performance, but not as much as I expected", whisper.net#79; "differs significantly with the result
reported by you", qlora#77; "推理速度基本上没有提升", lmdeploy#2310). As with "called slow with no figure", the rule now
abstains there (insufficient_data, asking for the figure and the expectation). No measurement check (nccl.busbw,
ticket.gpu_utilisation, health.*, ticket.one_gpu_by_design) was found passing on something other than the complaint in
three threads: those stay as they were.
"""


import pytest
from conftest import REPO, issue_bundle, judged_issue, judged_kept_paste

from rules import claims

DATA = REPO / "tests" / "data"


_verdict = judged_kept_paste


@pytest.mark.parametrize("rel", [
    "hostbound37/whispernet79.md",   # "improved performance, but not as much as I expected" (settled: host_bound)
    "issues/qlora-77-1xa100-30b-vs-reported-65b-24h.md",  # 80-90 h "differs significantly with the result reported"
    "ut27a/lmdeploy2310.md",         # "推理速度基本上没有提升" after AWQ (settled: the vision part's time dominates)
])
def test_a_result_held_short_of_expectation_is_not_called_normal(tmp_path, rel):
    verdict, found = _verdict(tmp_path, rel)
    assert verdict.category == "insufficient_data"
    assert found["ticket.nothing_broken"].category == "insufficient_data"
    assert "fall short" in found["ticket.nothing_broken"].title


@pytest.mark.parametrize("rel", [
    # nothing_broken's healthy prior, right by the thread's answer (AUDIT.md)
    "healthy40/neox990.md", "healthy42/megatron1276.md", "physics41/kt451.md", "ut21b/club3090_32.md",
    "precision33/ollama2490.md", "bydesign33/nccl864.md", "ut29a/powerinfer152.md",
    # the shortfall words are there ("better than my MacBook ... but not as much as I would have expected"), but the
    # question is the RAM the mmap'd model leaves unused: the documented behaviour answers it
    "bydesign31/ollama5111.md",
    # measurement checks that passed on what the reporter asks about
    "busy_low_power/glm130b32.md", "bydesign33/nvforum_t4_15g.md", "insuff32/nvidiadocker476.md",
    "review50/qwenomni241.md", "ut22c/ollama8365.md", "smi30/tgi926.md",
])
def test_right_healthy_verdicts_keep_theirs(tmp_path, rel):
    assert _verdict(tmp_path, rel)[0].category == "healthy"


def _missed(text: str):
    return claims.expectation_missed(issue_bundle(text))


@pytest.mark.parametrize("text", [
    # real sentences the reading was not written from
    # (public repositories' text found by find_string, ids 7763350440, 2664338551, 25122657034: not tickets)
    "Speed increase was significant, but not as much as I expected.",  # an RL repo's notes on vectorised envs
    # ollama/ollama#5111 (tests/data/bydesign31/ollama5111.md)
    "Inference time is better than my MacBook Air M1 with 8GB of RAM, but not as much as I would have expected.",
    "### Q4: 训练速度没有提升",  # a training guide's troubleshooting heading
    "剪枝后准确率会有所下降，推断速度没有提升。",  # a pruning write-up
    # probes
    "Throughput went up with TP=2, but not nearly as much as we expected.",
    "Our fine-tuning takes 40 hours, which differs greatly from the results reported in the paper.",
])
def test_the_shortfall_is_read(text):
    assert _missed(text) is not None


@pytest.mark.parametrize("text", [
    # real near-misses: no rate in the sentence, or a reference that is no result
    "It's quite hard but not as much as I expected",
    "It improves but not as much as I expected",
    "The TalonFX will report if its internal position differs significantly from the reported CANcoder position.",
    "If the computed total differs significantly from the reported total, prefer the reported total.",
    # probes: praise, a guess, a condition, a question, advice, hearsay-free denials, accuracy not speed
    "The throughput is not as slow as I expected.",
    "The speed is as fast as we expected.",
    "I think the speed-up is not as much as I expected.",
    "Maybe the speed-up is not as much as I expected?",
    "If the speed is not as fast as I expected, what should I check?",
    "如果速度没有提升，请检查 GPU 利用率",
    "速度不是没有提升，而是提升不大。",
    "速度有明显提升。",
    "量化后精度没有提升。",
])
def test_near_misses_are_not_read(text):
    assert _missed(text) is None


def test_a_shortfall_with_no_question_is_left_to_the_other_readings():
    """nothing_broken answers questions only; the reading changes nothing where the post asks nothing (probe)."""
    verdict, found = judged_issue("# TP=2 results\n\nTwo RTX 3090s with vLLM. Throughput went up, but not as much as "
                                  "I expected.")
    assert "ticket.nothing_broken" not in found or found["ticket.nothing_broken"].category != "healthy"
