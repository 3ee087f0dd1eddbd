"""Review of session 20's ticket readings (commits 5560a913..e4e9154d): where a widened reading overreached.

- claims.solved took "everything works fine ..." as the reporter's word that the problem is gone, also where the same
  sentence turns to what still fails: ray-project/ray#30333 (development case u19a07) opens "Everything works fine
  without GPU, but with GPU, NCCL Error occurs." What is fine there is a part of the setup, not the problem gone
  (claims._TURNS, claims._FIX_DENIED).
- The "not ... due to X leaves X standing" reading (claims._CAUSE_AFTER) also kept a cause that the "not" itself rules
  out ("not caused by #4606"): claims._CAUSE_DENIED.
"""

from pathlib import Path

from test_u11o_peer_copy_and_fit import issue

from rules import claims

TICKETS = Path(__file__).parent / "data" / "tickets"


def test_a_part_that_works_is_not_the_problem_solved():
    # https://github.com/ray-project/ray/issues/30333, the reporter's paste as the corpus holds it
    text = next(TICKETS.glob("u19a07-*")).joinpath("issue.md").read_text()
    assert "Everything works fine without GPU, but with GPU, NCCL Error occurs." in text
    assert claims.solved(issue(text)) is None


def test_a_solved_problem_stays_solved_when_a_later_sentence_worries():
    # https://github.com/NVIDIA/nccl/issues/1439 (THEWEAKEST, 2024-09-12): the turn is the next sentence's, a concern
    text = ("# ALLREDUCE timeout\n\nThe problem was solved by NCCL_P2P_DISABLE=1. But I hear that it may cause degrade "
            "of model's performance. Could you make some explainations? Thanks very much!")
    said = claims.solved(issue(text))
    assert said and "solved by NCCL_P2P_DISABLE=1" in said.quote


def test_a_cause_the_not_rules_out_is_negated():
    # tests/test_ut20b_user.py's negation of a regression pinned on a pull request
    text = "The regression is not caused by #4606, it was there before; the speed is slower on both."
    m = claims._CODE_CHANGE.search(text)
    assert claims.negated_words(text, m)
    # while the effect's "not" leaves the cause after it standing (tests/data/paraphrases_20/xid_ecc.toml)
    ecc = "GPU is not usable due to Uncorrectable ECC Error but k8s-device-plugin seems to think its healthy."
    assert not claims._said_not(ecc, ecc.index("Uncorrectable"))
