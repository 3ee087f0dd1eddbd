"""Review of session s41's merged work (errors41, physics41, p2p41, tidy41): the defects found, each proven by a probe
(my own short sentences, labelled probes: negations, near misses, another subject) and fixed here.

- claims p2p_check_failed's second pattern ("fails with simpleP2P") had "\\s+(?:with|...)?\\s*": two unbounded blank
  runs side by side, quadratic on a long run of blanks after a failure word (1.5 s on 5,000).
- p2p_check_said filtered the failure kind with the words that keep a PASS of part of the GPUs from clearing the host
  ("only between", "but not"): a failure of some pairs was dropped, though it is this host's failure.
- p2p_check_failed's gap between the check and the verb let another subject own the verb ("Even with simpleP2P showing
  peer access the training hangs").
- physics41's Chinese time-rise reading: its gap took 不断/不停 ("keeps") for a negation and crossed a time that fell
  ("延迟降低而吞吐量增加"); batch_tradeoff's Chinese path had no negation before the time ("不会导致耗时增加") as the
  English one has (_slowdown_denied); "several in flight" read one ("1 个实例"), a card's name ("A100 实例") and an
  ordinal ("第二个实例"), and a time said to be unrelated to the count ("耗时增加跟并发无关").
"""

import re
import time
from pathlib import Path

import pytest
from conftest import report_json
from test_ticket_numbers import _said

from rules import claims


def _ticket(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "ticket.md"
    path.write_text(text, encoding="utf-8")
    return report_json("ticket", str(path))


# ----------------------------------------------------------------------------- p2p_check_failed: backtracking


def test_a_long_blank_run_after_a_failure_word_is_linear():
    text = "fails" + " " * 5000 + "x"
    start = time.perf_counter()
    for pattern in claims.MORE_WORDS_K["p2p_check_failed"]:
        re.search(pattern, text, re.I)
    assert time.perf_counter() - start < 0.2


@pytest.mark.parametrize("said", ["It fails with simpleP2P.", "hangs in the p2p test", "crashed when running  the CUDA "
                                  "p2pBandwidthLatencyTest", "I keep getting stuck at simpleP2P"])
def test_the_failure_before_the_check_still_reads(said):  # probes: the second pattern's forms, blanks as written
    assert claims.p2p_check_said(_said(said), "p2p_check_failed")


# ----------------------------------------------------------------------------- p2p_check_failed: part of the GPUs


@pytest.mark.parametrize("said, kept", [
    # probes: a failure of some pairs is still a failure here; another's word or an earlier time is not
    ("simpleP2P fails only between GPU 0 and GPU 2.", True),
    ("simpleP2P fails between GPU0 and GPU2 but not between GPU0 and GPU1.", True),
    ("Someone in #123 said simpleP2P fails on this board.", False),
    ("simpleP2P failed before I disabled ACS.", False),
])
def test_a_check_failing_on_some_pairs_is_this_hosts_failure(said, kept):
    assert bool(claims.p2p_check_said(_said(said), "p2p_check_failed")) is kept


@pytest.mark.parametrize("said", ["P2P works between GPU0 and GPU1 but not GPU2.", "The p2p test passed only on GPU0."])
def test_a_pass_of_some_pairs_still_clears_nothing(said):  # probes: the pass kinds keep the part filter
    assert not claims.p2p_check_said(_said(said), "p2p_passed")


def test_a_failing_pair_said_reaches_the_rule(tmp_path):
    # probe: before the fix no ticket.p2p_corrupts (only the failure of "only between" pairs is said)
    report = _ticket(tmp_path, "P2P question\n\nFour RTX 4090 on a Threadripper board, vLLM tensor parallel 4. "
                     "simpleP2P fails only between GPU 0 and GPU 2. Why is it so slow?\n")
    assert "ticket.p2p_corrupts" in [f["rule"] for f in report["findings"]]


# ----------------------------------------------------------------------------- p2p_check_failed: another subject


@pytest.mark.parametrize("said, fires", [
    # probes: another subject between the check and the verb owns the failure
    ("Even with simpleP2P showing peer access the training hangs.", False),
    ("simpleP2P shows 25 GB/s between all pairs so vLLM hangs for some other reason.", False),
    ("I ran the p2p test to confirm NCCL hangs.", False),
    # the check's own failure, words between as people write them
    ("p2pBandwithLatencyTest gives me the following output and then hangs.", True),
    ("simpleP2P on my server fails.", True),
    ("The p2pBandwidthLatencyTest sample hangs after the first matrix.", True),
])
def test_another_subjects_failure_is_not_the_checks(said, fires):
    assert bool(claims.p2p_check_said(_said(said), "p2p_check_failed")) is fires


# ----------------------------------------------------------------------------- Chinese: a time that rises


@pytest.mark.parametrize("said, slow", [
    ("耗时不断增加", True),             # probe: 不断, "keeps", is no negation
    ("延迟不停地上升", True),           # probe: 不停, likewise
    ("耗时不会增加", False),            # probe: a negation between
    ("耗时没有增加", False),
    ("延迟降低而吞吐量增加了", False),  # probe: the time fell; the rise is the throughput's
    ("延迟缩短，吞吐增加", False),
])
def test_a_time_said_to_rise(said, slow):
    assert (claims.symptom(_said(said)) == "slow") is slow


@pytest.mark.parametrize("said, tradeoff", [
    ("耗时随着并发数增加而显著增加", True),          # PaddlePaddle/Paddle#74043's sentence (physics41)
    ("随着并发数增加，耗时不断增加", True),          # probe
    ("4 个实例同时跑，耗时也在上升", True),          # probe
    ("并发数增加不会导致耗时增加", False),           # probe: a negation before the time
    ("并发数增加并没有让延迟上升", False),           # probe
    ("并发数增加后，延迟降低而吞吐量增加了", False),  # probe: the time fell
    ("耗时增加跟并发无关", False),                   # probe: unrelated to the count
    ("1个实例的时候耗时也增加", False),              # probe: one instance is not several
    ("在A100实例上耗时增加了", False),               # probe: a card's name, no count
    ("第二个实例的耗时增加了", False),               # probe: an ordinal
])
def test_each_slower_as_more_run_in_chinese(said, tradeoff):
    assert bool(claims.batch_tradeoff(_said(said))) is tradeoff


# ----------------------------------------------------------------------------- NVLink named as a requirement


@pytest.mark.parametrize("said, nvlink", [
    # probes: the participle as an adjective says the host has the bridge; the verb names a program's need
    ("Two RTX 3090 with the required NVLink bridge installed.", True),
    ("I installed the needed NVLink bridge between the two A6000.", True),
    ("DeepEP requires NVLink between the GPUs.", False),
    ("This mode required NVLink, which we lack.", False),
])
def test_nvlink_as_a_requirement_or_as_the_hosts_bridge(said, nvlink):
    from rules import common
    assert bool(common.nvlink_evidence(_said(said))) is nvlink


# ----------------------------------------------------------------------------- the session's final read (probes)


@pytest.mark.parametrize("said, nvlink", [
    # probes: a requirement said missing is a host without the bridge
    ("This box lacks the required NVLink bridge.", False),
    ("P2P fails because the 4090 has no support for the required NVLink bridge.", False),
    ("We have the required NVLink bridge installed.", True),
])
def test_a_required_bridge_said_missing(said, nvlink):
    from rules import common
    assert common.has_nvlink(_said(said)) is nvlink


@pytest.mark.parametrize("said, batch", [
    ("batch_size=16卡死", 16),              # probe: 卡死 is "stuck", not cards
    ("bs=32 卡在第一个step", 32),           # probe
    ("batch为4张1024x1024的图片", 4),       # probe: an image size, not a GeForce number
    ("batch为8个1024长度的序列", 8),        # probe: a length
    ("bs=32 显卡占用20G", 32),              # probe: the card's memory after a batch
    ("我的batch是8张卡", None),             # probe: eight cards
    ("batch为8张4090显卡", None),           # probe
    ("batch 8卡", None),                    # probe
])
def test_a_batch_before_chinese_card_words(said, batch):
    from diagnose.artifacts import issue_md
    m = issue_md.BATCH.search(said)
    assert (int(m.group(1)) if m else None) == batch


@pytest.mark.parametrize("said", [
    "NCCL_P2P_DISABLE=1? Tried it, still hangs.",                   # probe: a bare question, answered
    "What about NCCL_P2P_DISABLE=1? Tried it, still hangs.",        # probe
    "If I set NCCL_P2P_DISABLE=1, does it help? I did and it still hangs.",
])
def test_a_setting_asked_about_then_answered(said):
    assert claims.tried_without_effect(_said(said), "p2p")


def test_a_remedy_asked_about_then_answered():
    said = _said("If I add --ipc=host, does it help? I did and it still hangs.")  # probe (words41's form)
    assert [c.data["effect"] for c in claims.find(said, "remedy")] == ["no_help"]


@pytest.mark.parametrize("said, fires", [
    ("simpleP2P inside the pytorch container fails.", True),        # probes: the noun says where the check ran
    ("simpleP2P on the inference node hangs.", True),
    ("the p2p test on our training server fails", True),
    ("After running simpleP2P the training hangs.", False),          # probes: the noun owns the verb
    ("Even with simpleP2P showing peer access vLLM hangs.", False),
    ("vLLM still fails with the P2P check disabled.", False),        # probes: the check switched off
    ("It hangs with the P2P check skipped (VLLM_SKIP_P2P_CHECK=1).", False),
])
def test_the_check_where_it_ran_or_switched_off(said, fires):
    assert bool(claims.p2p_check_said(_said(said), "p2p_check_failed")) is fires


def test_a_doubt_with_a_typographic_apostrophe_is_a_guess():
    said = "I’m doubtful that P2P is the problem."  # probe
    assert claims.guessed(said, said.find("P2P"))


@pytest.mark.parametrize("said, effect", [
    ("Does NCCL_P2P_DISABLE=1 help? No, it still hangs.", "no_help"),   # probes: the answer, not the question's "help"
    ("Does NCCL_P2P_DISABLE=1 help? It still hangs.", "no_help"),
    ("Should I set NCCL_P2P_DISABLE=1? It works with it.", "fixes"),
    ("Maybe it is P2P? Setting NCCL_P2P_DISABLE=1 fixes it.", "fixes"),  # the question is before the setting
])
def test_a_setting_asked_about_answered_in_the_same_sentence(said, effect):
    assert [c.data["effect"] for c in claims.find(_said(said), "setting")] == [effect]
