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
    # the second review's probes (/tmp/r51e/<probe>/issue.md, session 51), their exact text
    # b_7b1gpu: the 13B's MP=2 met by two GPUs; the 1 GPU is the 7B's (proven misfire)
    ('# How to run Llama 2 13B and 7B side by side\n\nThe 13B checkpoint (MP=2) runs with the reference'
     ' code on two of our GPUs. The 7B runs on only 1 GPU. How do I serve both from one script?\n'),
    # b_long2: the 13B (MP=2) runs on 2x A100; 'only 1 GPU' is the 7B's (proven misfire)
    ('# Llama-2-13B reference code on 2x A100\n\nI downloaded llama-2-13b-chat (consolidated.00.pth,'
     ' consolidated.01.pth, params.json; MP=2) and run example_chat_completion.py with torchrun on our'
     ' 2x A100 80GB SXM node. It works and gives sensible answers. For comparison, llama-2-7b-chat on'
     ' only 1 GPU is about as fast. Is there a way to make the 13B faster?\n'),
    # b_using1: converted to HF, 'only using 1 GPU at a time' of device_map='auto' (layer_split_rate decides)
    ('# Llama-2-70B generation slow\n\nI converted the Llama-2-70B checkpoint (MP=8) to HF and load it'
     ' with device_map="auto" on 8x A100 80GB. Generation is only using 1 GPU at a time and runs at 4'
     ' tok/s. Is this expected?\n'),
    # b_converted: MP=8 and only 4 GPUs, already converted to HF: the fix is done
    ('# Llama-2-70B on 4x A100 with vLLM: 20 tok/s normal?\n\nThe Llama-2-70B checkpoint is MP=8 and I'
     ' only have 4 GPUs, so I converted it to the HF format with convert_llama_weights_to_hf.py. Now'
     ' vLLM --tensor-parallel-size 4 on 4x A100 80GB SXM decodes at 20 tok/s at batch 1. Is that'
     ' normal?\n'),
    # b_nodata: MP=2 converted to HF, only 1 GPU at home
    ("# Llama 2 13B slow on my machine\n\nI use Meta's Llama-2-13B (MP=2) converted to HF and only have"
     ' 1 GPU at home, an RTX 4090; 8-bit loading gives 10 tok/s. How can I speed it up?\n'),
    # b_conv13: MP=2 and only 1 GPU, already converted to HF
    ('# Llama-2-13B on one A100: 45 tok/s normal?\n\nThe Llama-2-13B checkpoint is MP=2 and I only have'
     ' 1 GPU, so I converted it to HF with convert_llama_weights_to_hf.py. On one A100 80GB SXM, vLLM'
     ' decodes at 45 tok/s at batch 1. Is that normal?\n'),
    # b_pp: converted from MP=8 to HF; 'each node only has 4 GPUs' (pp_bubble decides)
    ('# Pipeline parallel Llama 2 70B on 2 nodes\n\nLlama-2-70B converted from MP=8 to HF. We serve it'
     ' with vLLM pipeline parallel 2 x tensor parallel 4, each node only has 4 GPUs (A100 80GB SXM,'
     ' NVLink inside the node), nodes joined by 200 Gb InfiniBand. Decode 14 tok/s at batch 1; is that'
     ' normal?\n'),
    # b_mp0: MP=0: the --ckpt_dir is empty, no shard found, not a split
    ('# AssertionError when running example_chat_completion.py\n\n```\ntorchrun --nproc_per_node 1'
     ' example_chat_completion.py --ckpt_dir llama-2-7b-chat/ --tokenizer_path'
     ' tokenizer.model\nAssertionError: Loading a checkpoint for MP=0 but world size is 1\n```\n\nThe'
     ' download script finished without errors; the folder llama-2-7b-chat is empty.\n'),
])
def test_near_misses_name_no_split(text):
    assert _split(text) is None


@pytest.mark.parametrize("text", [
    # the count tied to the split model in one sentence (its size giving the README's MP, after or before)
    "The Llama 2 70B checkpoint is sharded into 8 pths (MP=8). I only have 4 GPUs for the 70B.",
    "Running llama 70B (MP=8) with the reference code: is there a way to run on only 2 GPUs?",
])
def test_the_count_beside_the_split_model_is_named(text):
    c = _split(text)
    assert c is not None and c.data["ranks"] < c.data["mp"]
