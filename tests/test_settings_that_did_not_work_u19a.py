"""Settings the reporter tried that did not work are not the settings the failing run used (issue 11, batch u19a).

A post that says "Tried `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`, both didnt work"
(ray-project/ray#30333, development case u19a07) names two settings it turned back off: the run described has
neither, and neither is a workaround that worked. Two readings missed it: the verdict after a list of settings
("both ...", "neither ...", "all of them ..." in the next sentence), and the apostrophe left out ("didnt"), which
read "work" as the setting working. Each reading is tried on the real sentences it was written for, on sentences
from other threads of the corpus, and on the affirmatives that must still read as in use."""

import pytest
from test_ticket_failure_rules import fired
from test_ticket_questions import said
from test_transport_words import issue_verdict

from diagnose import lazy_re as re
from diagnose.artifacts.launch import setting_off
from diagnose.artifacts.text import NOT_ENDING
from rules import claims
from rules.common import settings

RAY = ("1. Created a cluster using yaml file from on-prem cluster using docker, ran pytorch test script from the "
       "website.\n    Everything works fine without GPU, but with GPU, NCCL Error occurs.\n    GPU only works if I set "
       "`--num_workers=1`\n    Tried `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`, both didnt work\n")


def _off(line: str, name: str) -> bool:
    m = re.search(re.escape(name) + r"=\S*?(?=[`'\"\s,.]|$)", line)
    return setting_off(line, m.start(), m.end())


# ------------------------------------------------------------------ tried and said not to work: not in use

@pytest.mark.parametrize("line, name", [
    # ray-project/ray#30333 (u19a07): a list of two, the verdict after the list, no apostrophe
    ("    Tried `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`, both didnt work", "NCCL_IB_DISABLE"),
    ("    Tried `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`, both didnt work", "NCCL_P2P_DISABLE"),
    # u14a06's post (a 2x RTX 3090 training timeout): the list's verdict opens the next sentence
    ("increasing NCCL_BUFFSIZE, set NCCL_P2P_LEVEL=NVL. But all of them didn't work.", "NCCL_P2P_LEVEL"),
    # u13a05's post (2x RTX 5090): the bare verdict right after the setting, read before this change too
    ("Forcing NCCL_P2P_DISABLE=1 did not help to resolve the issue.", "NCCL_P2P_DISABLE"),
    # paraphrases: "but it", "neither", the typographic apostrophe, the present tense
    ("I tried NCCL_P2P_DISABLE=1, but it didn't help.", "NCCL_P2P_DISABLE"),
    ("Tried NCCL_IB_DISABLE=1 or NCCL_SOCKET_IFNAME=eth0, neither helped.", "NCCL_IB_DISABLE"),
    ("Setting NCCL_IB_DISABLE=1 didn’t help.", "NCCL_IB_DISABLE"),
    ("NCCL_P2P_DISABLE=1 doesnt work either.", "NCCL_P2P_DISABLE"),
])
def test_a_setting_tried_without_effect_is_off(line, name):
    assert _off(line, name)


@pytest.mark.parametrize("line, name", [
    # the same lists said to work, or run with: in use
    ("    Tried `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`, both work", "NCCL_IB_DISABLE"),
    ("We run with NCCL_IB_DISABLE=1 and NCCL_SOCKET_IFNAME=eth0, and it works.", "NCCL_IB_DISABLE"),
    ("I tried NCCL_P2P_DISABLE=1, and it went fine.", "NCCL_P2P_DISABLE"),
    # a verdict on something else in the next sentence is not the list's
    ("export NCCL_P2P_DISABLE=1. It didn't take long to load.", "NCCL_P2P_DISABLE"),
    # a command run with the setting (NVIDIA/nccl#606, lifengli137's working run)
    ("CUDA_VISIBLE_DEVICES=2,3 NCCL_P2P_DISABLE=1 ./build/all_reduce_perf -b 8 -e 16M -f 2 -g 2", "NCCL_P2P_DISABLE"),
])
def test_a_setting_said_to_work_or_run_stays_on(line, name):
    assert not _off(line, name)


def test_the_ray_post_leaves_no_socket_transport_nor_p2p_workaround(tmp_path):
    answer, findings = issue_verdict(tmp_path, RAY)
    assert not fired(findings, "nccl.socket_fallback")
    assert not fired(findings, "ticket.setting_works_around")
    assert not fired(findings, "topology.p2p_forced_off")
    assert answer.category not in ("socket_fallback", "p2p_disabled")


def test_the_same_post_run_with_the_settings_still_reads_them(tmp_path):
    run = RAY.replace("Tried `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`, both didnt work",
                      "We run with `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1` on every node")
    _, findings = issue_verdict(tmp_path, run)
    assert fired(findings, "nccl.socket_fallback")


@pytest.mark.parametrize("text, in_use", [
    ("Tried `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`, both didnt work", False),
    ("Setting NCCL_P2P_DISABLE=1 didnt help, it still hangs.", False),
    ("Setting NCCL_P2P_DISABLE=1 works, the hang is gone.", True),
    ("With NCCL_P2P_DISABLE=1 the patch I sent works.", True),  # "sent" ends in "nt" and negates nothing
])
def test_text_settings_follow_what_the_sentence_says_they_did(text, in_use):
    assert bool(settings(said(text), "NCCL_P2P_DISABLE")) == in_use


# ------------------------------------------------------------------ the ending, with and without its apostrophe

@pytest.mark.parametrize("words, negated", [
    ("didnt ", True), ("didn't ", True), ("didn’t ", True), ("doesnt ", True), ("isnt ", True), ("wont ", True),
    ("cant ", True),
    ("sent ", False), ("went ", False), ("different ", False), ("want ", False), ("present ", False),
])
def test_the_negated_ending_is_an_auxiliary_not_any_word_in_nt(words, negated):
    assert bool(re.search(r"(?:" + NOT_ENDING + r")\s+$", words)) == negated
    assert (claims._effect(words + "work") == "no_help") == negated
