"""Session s45, fixer B: misfires the 39th session's final read (reviewer B, /tmp/fr45b/<n>.md) proved against main,
each probe (labelled probe) with the near-misses that must keep the old reading."""

import re

import pytest
from conftest import issue_bundle as _facts
from conftest import judged_issue

from diagnose.artifacts import text as tx
from rules import claims

LEAD = "Our inference server on two GPUs has a problem and we need help.\n"


def _settings(text: str) -> dict:
    return {c.data["name"]: c.data for c in claims.claims(_facts(text)) if c.kind == "setting"}


def _utils(text: str) -> list[float]:
    return [c.data["percent"] for c in claims.claims(_facts(text)) if c.kind == "gpu_util"]


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


# ------------------------------------ 2. a cause word the sentence goes on to in a clause of its own is not P2P's

@pytest.mark.parametrize("text", [
    # probe (25.md)
    "P2P is disabled because the GPUs are on different NUMA nodes (SYS path) with NCCL 2.18.1, so the bandwidth test "
    "cannot go above 6 GB/s.",
    # probe (22.md)
    "P2P is disabled because the GPUs are on different NUMA nodes (SYS path) with NCCL 2.18.1 and the job fails after "
    "30 min.",
])
def test_p2p_across_cpus_keeps_its_reading_past_a_later_clause(text):
    verdict, found = judged_issue(text + "\n")
    assert "ticket.p2p_refused" not in found


@pytest.mark.parametrize("sentence, switched", [
    # probe
    ("P2P is disabled because the GPUs are on different NUMA nodes, so the test cannot go above 6 GB/s.", False),
    ("P2P is disabled because the GPUs are on different sockets and the job fails after 30 min.", False),  # probe
    ("P2P is disabled by the BIOS although the GPUs are on different sockets.", True),  # near-miss: P2P's cause
    ("P2P cannot be enabled since the GPUs are on different sockets, so it is slow.", True),  # near-miss
    ("The GPUs are on different sockets and P2P fails with an error.", True),  # near-miss: after, same clause
])
def test_p2p_reason_clause(sentence, switched):
    across = claims._ACROSS_CPUS.search(sentence)
    assert bool(claims._CAUSE_SWITCHED.search(claims._p2p_reason_clause(sentence, across))) == switched


# ------------------------------- 6. not-tried / for-comparison words about another thing do not reach the setting

@pytest.mark.parametrize("text, name, tried", [
    ("We run with NCCL_P2P_DISABLE=1 on NCCL 2.18.1 and have not tried NCCL_IB_DISABLE yet.",
     "NCCL_P2P_DISABLE", False),  # probe (1.md)
    ("We run with NCCL_P2P_DISABLE=1 on NCCL 2.18.1 and also ran NCCL 2.21.5 for comparison.",
     "NCCL_P2P_DISABLE", False),  # probe (10.md)
    ("We haven't tried NCCL_P2P_DISABLE=1 yet.", "NCCL_P2P_DISABLE", True),  # near-miss: its own object
    ("We haven't tried NCCL_IB_DISABLE=1 or NCCL_P2P_DISABLE=1 yet.", "NCCL_P2P_DISABLE", True),  # near-miss: a list
    ("We were told to set NCCL_P2P_DISABLE=1 but haven't tried it yet.", "NCCL_P2P_DISABLE", True),  # near-miss
    ("We also tried NCCL_IB_DISABLE=1 for comparison.", "NCCL_IB_DISABLE", True),  # near-miss
    ("As an experiment I set NCCL_IB_DISABLE=1.", "NCCL_IB_DISABLE", True),  # near-miss
])
def test_not_tried_words_govern_their_own_object(text, name, tried):
    assert _settings(LEAD + text + "\n")[name]["tried"] is tried


# --------------------------------------------------------- 3. "etc." ends its sentence unless the sentence goes on

@pytest.mark.parametrize("text", [
    "We use NCCL_P2P_DISABLE=1, NCCL_IB_DISABLE=1 etc. upgrading to NCCL 2.21.5 fixed it.",  # probe (52.md)
    "We tried NCCL_P2P_DISABLE=1, NCCL_IB_DISABLE=1 etc. `--enforce-eager` is what fixed it.",  # probe (11.md)
])
def test_settings_before_etc_take_no_later_fix(text):
    found = _settings(LEAD + text + "\n")
    assert found["NCCL_P2P_DISABLE"]["effect"] is None and found["NCCL_IB_DISABLE"]["effect"] is None


@pytest.mark.parametrize("text, parts", [
    ("We use A=1, B=1 etc. upgrading fixed it.", 2),  # probe
    ("We use A=1 etc. `--enforce-eager` fixed it.", 2),  # probe
    ("IB etc. Then it hung.", 2),  # near-miss: the old capital case
    ("We tried A, B etc. and it hangs.", 1),  # near-miss: the sentence goes on
    ("P2P, IB etc., all off.", 1),  # near-miss
    ("Also (IB etc.) fine.", 1),  # near-miss
    ("IB etc. are off.", 1),  # near-miss
])
def test_etc_ends_a_sentence_unless_it_goes_on(text, parts):
    assert len(tx.sentences(text)) == parts


# ------------------------------------------------------ 4. a mark with no space before a sentence opener ends it

def test_probe_43h_no_space_after_the_mark():
    text = LEAD + "NCCL_P2P_DISABLE=1 fixes it.But with NCCL_IB_DISABLE=1 alone it still hangs.\n"
    found = _settings(text)
    assert found["NCCL_IB_DISABLE"]["effect"] != "fixes"  # probe (43h.md)


@pytest.mark.parametrize("text, parts", [
    ("NCCL_P2P_DISABLE=1 fixes it.But with IB alone it hangs.", 2),  # probe
    ("torch.Tensor is slow and nn.Module too.", 1),  # near-miss: module paths
    ("e.g.But that is all.", 1),  # near-miss: an abbreviation
    ("vLLM.Engine and config.json and v0.6.3 all load.", 1),  # near-miss
])
def test_no_space_end_only_before_an_opener(text, parts):
    assert len(tx.sentences(text)) == parts


# ------------------------------------------------- 5. a mark inside closing quotes or brackets ends the sentence

@pytest.mark.parametrize("text, effect", [
    ('The README says "if it hangs, set NCCL_P2P_DISABLE=1." We run with NCCL_P2P_DISABLE=1 and it still hangs.',
     "no_help"),  # probe (12.md)
])
def test_quoted_advice_ends_its_sentence(text, effect):
    assert _settings(text + "\n")["NCCL_P2P_DISABLE"]["effect"] == effect


def test_quoted_end_bounds():
    text = 'He said "set X=1." We run with it. (See above.) Then it hangs.'
    assert tx.sentences(text) == ['He said "set X=1."', "We run with it.", "(See above.)", "Then it hangs."]
    assert tx.sentence_end(text, 3) == text.index('"', 9) + 1  # the closing quote stays in its sentence


# -------------------------------------------------- 7. a low GPU share keeps its reading past a later "are idle"

@pytest.mark.parametrize("text, kept", [
    ("GPU utilization is only 5% on vLLM 0.6.3 during the benchmark, so the GPUs are idle most of the time.",
     True),  # probe (9.md)
    ("GPU utilization is 5% on vLLM 0.6.3 while the server is running and idle GPUs are fine.", True),  # probe (5.md)
    ("GPU utilization drops to 0% between requests.", False),  # near-miss: idle in the figure's own clause
    ("GPU utilization is 5% when idle, and 90% under load.", False),  # near-miss (5 % dropped; 90 % kept)
])
def test_low_share_with_idle_words_in_another_clause(text, kept):
    utils = _utils(LEAD + text + "\n")
    assert (min(utils, default=100) < 50) is kept


# ------------------------------------------- 1. Chinese hearsay before a contrast is not the reporter's hang

@pytest.mark.parametrize("text, seen", [
    ("据说 NCCL 2.18.1 解决了这个问题, 但我们的训练在第 100 步还是卡住了", True),  # probe
    ("听说 vLLM 0.6.3 已经修复了，但我们这边推理还是卡住了。", True),  # probe
    ("听说已经修复了, 但我们这边推理还是会卡住", True),  # probe (no version)
    ("听说多卡会卡住", False),  # near-miss: heard, no contrast
    ("网上有人说多卡会卡住，是真的吗？", False),  # near-miss
])
def test_zh_hang_after_contrast_is_seen(text, seen):
    assert bool(_hangs(text)) is seen


# --------------------------------------------- 8. one cache entry per text: sentences() and the bounds share it

def test_ends_cache_shared():
    text = "One. Two? Three."
    tx._ends.cache_clear()
    tx.sentences(text)
    tx.sentence_start(text, 6)
    tx.sentence_end(text, 6)
    assert tx._ends.cache_info().misses == 1
    assert re.search("Two", tx.sentences(text)[1])
