"""Blind batch b51b (session 51): multi-GPU threads from the model providers' own repositories
(tests/data/b51b/SOURCES.md). The one mechanism found in three separate threads: a checkpoint saved already split
for model parallelism (Meta's reference llama checkpoints, one consolidated.NN.pth per rank) met with another number
of GPUs. With the reference code's assertion in the paste the verdict was already `other` (a software error); asked as
a how-to question with no error ("sharded into 8 pths with MP=8, but I only have 4 GPUs"), ticket.nothing_broken
called it normal (healthy, expected_physics). workload.checkpoint_split now reads the split and the GPUs at hand.
"""

import pytest
from conftest import REPO, issue_bundle, judged_issue

from rules import claims

DATA = REPO / "tests" / "data"


@pytest.mark.parametrize("rel", [
    "b51b/llama594.md",       # meta-llama/llama#594: 70B sharded for MP=8, "I only have 4 GPUs" (was healthy)
    "b51b/llama556.md",       # meta-llama/llama#556: 70B "model-parallel (MP) = 4", "run on only 4x H100s" (was
                              # expected_physics)
    "dup39/worldsize_5.md",   # meta-llama/llama#415: "Loading a checkpoint for MP=2 but world size is 1" (other before)
])
def test_a_checkpoint_split_for_other_ranks_is_named(rel):
    verdict, found = judged_issue((DATA / rel).read_text())
    assert verdict.category == "other"
    assert found["workload.checkpoint_split"].confidence > 0


def _split(text: str):
    return claims.checkpoint_split(issue_bundle(text))


def test_the_assertion_gives_both_counts():
    c = _split("# AssertionError: Loading a checkpoint for MP=8 but world size is 2\n\nRunning llama-2-70b-chat.\n")
    assert (c.data["mp"], c.data["ranks"]) == (8, 2)


@pytest.mark.parametrize("text", [
    # the split matches the GPUs at hand
    "The checkpoint is MP=8 and I have 8 GPUs; it runs at 20 tok/s. Is that normal?",
    "Llama 2 70B with MP=4 and I only have 4 GPUs, how fast should it decode?",
    "Loading a checkpoint for MP=2 but world size is 2 is printed in debug mode.",
    # fewer GPUs, but no pre-split checkpoint named
    "I only have 4 GPUs. How do I run Llama-2-70B with vLLM?",
    # MP named, no shortage of GPUs
    "What does MP=8 mean for the 70B model?",
    # negation, someone else's machine, a past state
    "The 70B is sharded with MP=8; we have not only 4 GPUs but 8.",
    "The checkpoint has MP=8, and my colleague only has 4 GPUs at home.",
    "The checkpoint has MP=8. Last year I only had 4 GPUs, now there are 8.",
])
def test_near_misses_name_no_split(text):
    assert _split(text) is None
