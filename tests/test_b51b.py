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
    "The Llama 2 checkpoint is MP=8 and I have 8 GPUs; it runs at 20 tok/s. Is that normal?",
    "Llama 2 70B with MP=4 and I only have 4 GPUs, how fast should it decode?",
    "Loading a checkpoint for MP=2 but world size is 2 is printed in debug mode.",
    # fewer GPUs, but no pre-split checkpoint named
    "I only have 4 GPUs. How do I run Llama-2-70B with vLLM?",
    # MP named, no shortage of GPUs
    "What does MP=8 mean for the Llama 70B model?",
    # an MP that is no reference checkpoint's (DeepSpeed's mp_size)
    "DeepSpeed inference with MP=4 for GPT-J, and I only have 2 GPUs on this box.",
    # negation, someone else's machine, a past state
    "The Llama 70B is sharded with MP=8; we have not only 4 GPUs but 8.",
    "The Llama checkpoint has MP=8, and my colleague only has 4 GPUs at home.",
    "The Llama checkpoint has MP=8. Last year I only had 4 GPUs, now there are 8.",
    # the review's probes (/tmp/r51b/<probe>/issue.md, session 51), their exact text
    # cs_megatron_dp: Megatron's MP x DP = world size: a parallel layout, no split checkpoint (proven misfire)
    ('# Megatron GPT training throughput low\n\nWe train GPT-3 1.3B with Megatron-LM, MP=2 and data'
     ' parallel 4, on only 8 A100s in one node. Throughput is 90 TFLOPS per GPU, lower than the paper.'
     ' Is this expected?\n'),
    # cs_megatron2: Megatron MP=8 across 16 GPUs (proven misfire; socket_fallback as on main)
    ('# Megatron-LM slow scaling across nodes\n\nGPT 20B with Megatron, MP=8 inside the node and data'
     ' parallel across nodes. With only 16 GPUs (2 nodes) we get 60% scaling efficiency over 100 Gb'
     ' Ethernet.\n'),
    # cs_only1b: a count of busy GPUs, with --nproc_per_node 8 = MP launched (proven misfire)
    ('# nvidia-smi during llama 70B\n\nThe 70B is MP=8, launched with torchrun --nproc_per_node 8 on 8x'
     ' A100 80GB. During generation only 1 GPU shows 100% util at any moment. Is this normal?\n'),
    # cs_past3: a past setup, now launched with --nproc_per_node 8 = MP (proven misfire)
    ('# Llama 2 70B on 8x A100 with the reference code\n\nThe 70B checkpoint is MP=8. At first I was'
     ' only using 4 GPUs, which failed; now I launch torchrun --nproc_per_node 8 on 8x A100 80GB and it'
     ' runs. Is this the expected way to run it?\n'),
    # cs_other_assert: a friend's assertion, not the reporter's (proven misfire)
    ("# vLLM TP=2 slow on 2x 3090\n\nA friend hit 'Loading a checkpoint for MP=2 but world size is 1'"
     " with Meta's code; I use vLLM instead with --tensor-parallel-size 2 on 2x RTX 3090 over PCIe and"
     ' get 25 tok/s for Llama-2-13B, TP=1 gives 30 tok/s.\n'),
    # cs_mpnone_equal: no MP number: the README's 70B MP=8 met by 8 GPUs
    ('# Llama 2 70B weights with model-parallel (MP) = 8\n\nI converted the checkpoint to model-parallel'
     ' (MP) = 8 and only use 8 GPUs, all busy. Decode is 15 tok/s on 8x A100 SXM; is this normal?\n'),
    # cs_only1used: busy GPUs counted, 8 ranks launched
    ('# Llama 70B only 1 GPU used\n\nThe 70B is MP=8 and I launched torchrun --nproc_per_node 8, yet'
     ' nvidia-smi shows only 1 GPU busy at a time while the others idle. Is this pipeline-like behaviour'
     ' normal?\n'),
    # cs_past2: "Earlier I was only using 4 GPUs", now 8 launched
    ('# Llama 70B MP=8 on 8x A100: 12 tok/s\n\nThe 70B checkpoint is MP=8. Earlier I was only using 4'
     ' GPUs with the HF conversion; now torchrun --nproc_per_node 8 on 8x A100 runs it fine. Is 12 tok/s'
     ' normal?\n'),
    # cs_fixed_assert: the assertion fixed by --nproc_per_node 2 = MP
    ('# Llama-2-13b slow after fixing nproc\n\nI first got AssertionError: Loading a checkpoint for MP=2'
     ' but world size is 1, fixed it by setting --nproc_per_node 2. Now it runs on 2 GPUs but generation'
     ' takes 40 s per answer on 2x T4. Why so slow?\n'),
    # cs_friend2: a friend's assertion, the reporter on vLLM
    ("# 13B on 2x A100 NVLink: 50 tok/s normal?\n\nA friend hit 'Loading a checkpoint for MP=2 but world"
     " size is 1' with Meta's code, so I use vLLM instead: --tensor-parallel-size 2 on 2x A100 SXM with"
     ' NVLink, Llama-2-13B decodes at 50 tok/s. Is that normal?\n'),
])
def test_near_misses_name_no_split(text):
    assert _split(text) is None
