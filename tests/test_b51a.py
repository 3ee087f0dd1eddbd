"""Pass b51a (issue 11): a blind batch of real threads from the older tensor-parallel inference stacks
(tests/data/b51a/SOURCES.md), and the one mechanism in it that recurs in three separate threads.

Wrong output across several GPUs where the reporter says the same GPUs, several at work, give right output with another
model, precision or build: the peer path delivers there, so the fault follows the software (claims.right_on_same_gpus,
ticket.wrong_output_software), and ticket.p2p_corrupts no longer answers it as corrupted peer transfers. The threads:
deepspeedai/DeepSpeed#3932 (nccl43, gpt2 right at mp_size=2, LLaMA wrong), #2233 (b51a, GPT-Neo right after a fix,
GPT-J garbage on the same 2x 3090), bitsandbytes#491 (b50a, 8-bit gibberish, 16-bit and 4-bit right).
"""

import pytest
from conftest import issue_bundle, judged_issue, judged_kept_paste

from rules import claims
from rules.engine import evaluate


@pytest.mark.parametrize("rel", [
    "nccl43/deepspeed3932.md",  # "I also tried gpt2, when mp_size=2, produces correct output" (upgrade DeepSpeed)
    "b51a/ds2233.md",           # "I can confirm solved multi-gpu inference for GPT Neo 2.7B" (DeepSpeed PR #2270)
    "b50a/bnb491.md",           # "It does not happen when the model is loaded in default 16 bit" (the int8 path)
])
def test_wrong_output_right_on_the_same_gpus_is_the_softwares(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "other"
    assert "ticket.wrong_output_software" in found
    assert "ticket.p2p_corrupts" not in found


@pytest.mark.parametrize("rel", [
    # wrong output settled as the peer path: no right run on the same GPUs is said, only the one-GPU baseline or a
    # change of the peer path (the P2P driver), so p2p_corrupts keeps its answer
    "ut20b/exl3_333.md", "ut29g/exllamav2_85.md", "p2p43/iklamma1489.md",
])
def test_peer_path_corruption_keeps_its_answer(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "p2p_disabled"
    assert "ticket.wrong_output_software" not in found


def _right(text: str):
    return claims.right_on_same_gpus(issue_bundle(text))


@pytest.mark.parametrize("text", [
    "With mp_size=2 the output is garbage. I also tried opt-1.3b, when mp_size=2, it produces correct output.",
    "Multi-GPU output is gibberish in 8-bit. It does not happen with load_in_4bit=True.",
    "GPT-J gives garbage on two GPUs. The fix in master solved multi-gpu inference for GPT Neo 2.7B.",
])
def test_right_output_on_the_same_gpus_is_read(text):
    assert _right(text) is not None


@pytest.mark.parametrize("text", [
    # the one-GPU baseline every such ticket has
    "With mp_size=2 the output is garbage, with mp_size=1 it produces correct output.",
    "Multi-GPU output is gibberish. It does not happen on a single GPU.",
    # a change of the peer path itself points at the peer path
    "Multi-GPU output is gibberish. With NCCL_P2P_DISABLE=1 multi-gpu inference produces correct output.",
    "Output is garbage on two GPUs. It does not happen with the stock driver in fp16.",
    # two parallel sizes compared: the GPUs that pair up differ, the peer path may be what changed
    "With mp_size=4 the output is garbage. With mp_size=2 it produces correct output.",
    "Output is gibberish on 8 GPUs in fp16. It does not happen on 2 GPUs.",
    # asked, or someone else's
    "Output is garbage with mp_size=2. Does gpt2 produce correct output with mp_size=2?",
    "Output is garbage with mp_size=2. Someone said gpt2 produces correct output with mp_size=2.",
])
def test_near_misses_are_not_read(text):
    assert _right(text) is None


# (review r51c) tickets the first reading misfired on (ticket.wrong_output_software answered `other` on each), kept
# word for word: no right run on these same GPUs now is said in any of them
_PROBES = {
    "never": ("# Garbage output with tensor parallel\n\nOn 2x RTX 3090 with DeepSpeed init_inference and "
              "mp_size=2, the output is garbage. I can't get multi-gpu inference to produce correct output with "
              "any model, fp16 or fp32."),
    "never2": ("# Gibberish output on two GPUs\n\nvLLM with tensor_parallel_size=2 on 2x RTX 4090 returns "
               "gibberish. It never produces correct output in fp16 or bf16."),
    "notsolved": ("# Garbage output with mp_size=2\n\nOn 2x RTX 3090 the output with mp_size=2 is garbage. "
                  "Building DeepSpeed from master has not solved it for multi-gpu inference, in fp16 or fp32."),
    "dontknow": ("# Gibberish with tensor parallel\n\nOn 2x RTX 3090 with tp=2 the output is gibberish in fp16. I "
                 "don't know what gives correct output with tp=2."),
    "othermachine": ("# Garbage output with tensor parallel\n\nOn my server with 2x RTX 3090 and mp_size=2 the "
                     "output is garbage. On my other machine with 2x A100 and mp_size=2 it produces correct output."),
    "othergpus": ("# Gibberish with two GPUs\n\nLlama-2-7b with vLLM on GPUs 2 and 3 gives gibberish output in "
                  "fp16. It does not happen on GPUs 0 and 1 in fp16."),
    "colleague": ("# Garbage output with mp_size=2\n\nOn our 2x RTX 3090 box the output with mp_size=2 is garbage. "
                  "My colleague's 2x A6000 workstation gives correct output with mp_size=2 in fp16."),
    "crash": ("# Garbage output with tp=2\n\nThe crash at startup does not happen with tp=2 anymore after "
              "upgrading, but now the output is garbage on 2x RTX 4090."),
    "vllmcli": ("# Gibberish with tensor parallel 4\n\n`vllm serve meta-llama/Llama-2-7b --tensor-parallel-size 4` "
                "on 4x RTX 4090 gives gibberish output. With --tensor-parallel-size 2 in bf16 it produces correct "
                "output."),
    "past": ("# Garbage output with tensor parallel\n\nMulti-GPU inference produced correct output in fp16 last "
             "week on this 2x RTX 3090 box. Since the kernel update, the output with mp_size=2 is garbage."),
    # vLLM's custom all-reduce writes GPU to GPU over CUDA IPC: turning it off changes the peer path
    "custom_all_reduce": ("# Gibberish output with tp=2 on 4090s\n\nvLLM with tensor_parallel_size=2 on 2x RTX "
                          "4090 returns gibberish. With --disable-custom-all-reduce and tp=2 it produces correct "
                          "output."),
}


@pytest.mark.parametrize("name", sorted(_PROBES))
def test_probed_misfires_stay_off_the_software_answer(tmp_path, name):
    """Denied ("can't get it to produce correct output"), other hardware (another machine, other GPU indices, a
    colleague's workstation), another failure's "does not happen", two sizes in vLLM's flag spelling, an earlier
    state, a change of the peer path: none is a right run on these GPUs now."""
    assert _right(_PROBES[name]) is None
    verdict, found = judged_issue(_PROBES[name])
    assert "ticket.wrong_output_software" not in found
    assert verdict.category != "other"


def test_a_near_miss_ticket_stays_off_the_software_answer():
    """The one-GPU baseline alone says nothing of the peer path: no software answer from it."""
    facts = issue_bundle("# Garbage output with tensor parallel\n\nOn 2x RTX 3090 with mp_size=2 the output is "
                         "garbage. With mp_size=1 it produces correct output.")
    assert "ticket.wrong_output_software" not in {f.rule for f in evaluate(facts)}
