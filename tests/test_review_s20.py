"""Review of session 20's ticket readings (commits 5560a913..e4e9154d): where a widened reading overreached.

- claims.solved took "everything works fine ..." as the reporter's word that the problem is gone, also where the same
  sentence turns to what still fails: ray-project/ray#30333 (development case u19a07) opens "Everything works fine
  without GPU, but with GPU, NCCL Error occurs." What is fine there is a part of the setup, not the problem gone
  (claims._TURNS, claims._FIX_DENIED).
- The "not ... due to X leaves X standing" reading (claims._CAUSE_AFTER) also kept a cause that the "not" itself rules
  out ("not caused by #4606"): claims._CAUSE_DENIED.
"""

from pathlib import Path

import pytest
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


# (session 20 review, fixed by the lead) Three readings reached past their words:
# - a joined "don't" never matched the "no-something" kinds' negation window (\bn't\b needs a boundary inside "don't"),
#   so "we don't use TCP" read as the TCP transport in use;
# - `.to(device)`, the call every model makes, read as a copy between GPUs (the device must be another or numbered);
# - a bare "#N" after "in" or "from" ("the discussion in #4606") read as the change a regression is pinned on.
def _kinds(text: str, kinds: set[str]) -> list[tuple[str, bool]]:
    return [(c.kind, c.negated) for c in claims.claims(issue(f"# Report\n\n{text}")) if c.kind in kinds]


def test_a_joined_dont_rules_the_transport_out():
    assert _kinds("We don't use TCP for communication between the nodes, it is all InfiniBand.",
                  {"net_socket"}) == [("net_socket", True)]
    assert _kinds("We do not use TCP for communication between the nodes.", {"net_socket"}) == [("net_socket", True)]


def test_a_model_moved_to_its_device_is_no_copy_between_gpus():
    assert _kinds("After `model.to(device)` the model gives wrong results on both GPUs.", {"wrong_results"}) == []
    # the forms of the threads that showed the reading stay (turboderp-org/exllamav3#333, pytorch/pytorch#13803)
    assert _kinds("`tensor.to('cuda:1')` returns an all-zero tensor.", {"wrong_results"}) == [("wrong_results", False)]
    assert _kinds("`x.to(different_cuda_device)` results in a tensor where all of the values are set to zero.",
                  {"wrong_results"}) == [("wrong_results", False)]


@pytest.mark.parametrize("text", ["See the discussion in #4606, the speed regressed and is slower.",
                                  "Reported from #4606: a regression, 10 tok/s slower."])
def test_a_thread_referred_to_is_no_change_pinned(text):
    assert claims.code_change_regression(text) is None


def test_a_change_said_to_introduce_the_regression_stays():
    assert claims.code_change_regression("The regression was introduced in #4606, 10 tok/s slower.")[1] == ["#4606"]


@pytest.mark.parametrize("text", ["I tested with IOMMU on and off, no difference, it still hangs.",
                                  "We tried with ACS enabled or disabled and the all-reduce hangs either way."])
def test_both_states_tried_is_no_state(text):
    """(session 20 review) An A/B over both states says neither is the one in use."""
    assert _kinds(text, {"pcie_redirect"}) == []


def test_one_state_said_stays():
    assert _kinds("The all-reduce hangs with IOMMU on.", {"pcie_redirect"}) == [("pcie_redirect", False)]


@pytest.mark.parametrize("text, hang", [("The generation is stuck at 0 tokens/s for 10 minutes.", True),
                                        ("It is stuck at 0.0 tok/s after the first request.", True),
                                        ("Throughput stuck at 40 tok/s whatever the batch.", False),
                                        ("The clock is stuck at 33MHz.", False)])
def test_a_rate_stuck_at_zero_is_a_hang_a_level_is_not(text, hang):
    """(session 20 review) 'stuck at' a level is no hang, but a zero rate is no level: nothing moves."""
    assert bool(_kinds(text, {"hang"})) is hang


@pytest.mark.parametrize("text, in_use", [("I was getting 4GBps over IPoIB before enabling RDMA.", False),
                                          ("It uses NET/Socket before I set NCCL_IB_HCA, then NET/IB.", False),
                                          ("The traffic goes over IPoIB, 1 GB/s, and it hangs before the first step.",
                                           True),
                                          ("NCCL falls back to sockets before we even start the job.", True)])
def test_a_transport_before_a_change_to_the_fabric_is_not_in_use(text, in_use):
    """(session 20 review) What ran before the reporter enabled or set something is not the path in use now."""
    assert [negated for _, negated in _kinds(text, {"net_socket", "tcp_only", "rdma_off"})] == [not in_use]
