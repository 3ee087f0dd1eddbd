"""The second read of the 41st session's fixes (fr47c): three readings a fix had narrowed too far, each mended with
the reviewer's probe (labelled probe) and the near-misses the fixes were written for. The readings: a release that
cured the hang stays a cure when a later clause says "still" of another matter or "back" of anything but the hang
(claims._release_cured_failure), the sentence after "works fine for me" cancels the denial only by saying the
writer's system does the same or naming a failure (hearsay._SAME_NEXT), and an unknown flag's lowercase value keeps
a prose command's own flag group readable (launch._word_value)."""
import re

import pytest

from diagnose.artifacts import launch
from rules import claims
from rules.hearsay import denied_for_writer

HANG = "Our vLLM TP=4 on 4x A100 PCIe hangs at the first allreduce. "


def _cured(sentence: str) -> bool:
    text = HANG + sentence
    at = text.index("Upgrading")
    release = re.search(r"(?:NCCL|PyTorch)(?: to [\d.]+)?", text[at:])
    return claims._release_cured_failure(text, at + release.end())


@pytest.mark.parametrize("sentence", [
    # probes (fr47c 3, 10, 11, 12): the cure holds, the later clause is of something else
    "Upgrading PyTorch fixed the hang, though throughput is still below what we expected.",
    "Upgrading PyTorch fixed the hang. We are back in business.",
    "Upgrading PyTorch fixed this behavior.",
    "Upgrading NCCL fixed the hang; the startup warning still shows, but it is harmless.",
    "Upgrading NCCL fixed the hang. Throughput is back at 40 tok/s.",
    "Upgrading NCCL to 2.21.5 fixed the hang.",
])
def test_a_release_cure_holds_against_another_matter_still_wrong(sentence):
    assert _cured(sentence)


@pytest.mark.parametrize("sentence", [
    # probes (fr47a 29, 30, 33) the first fix was written for, and the hang said back
    "Upgrading NCCL to 2.21.5 fixed a different issue (the IB warning spam), but the hang remains.",
    "Upgrading PyTorch to 2.3 fixed the import error. It still hangs at the first allreduce.",
    "Upgrading NCCL fixed the hang for a day, now it hangs again.",
    "Upgrading NCCL fixed the hang. Two days later the hang came back.",
    "Upgrading NCCL fixed the hang. A week later it came back.",
])
def test_a_release_cure_undone_or_of_something_else_is_none(sentence):
    assert not _cured(sentence)


def _denied(text: str) -> bool:
    hang = re.search(r"hang\w*", text)
    return denied_for_writer(text, hang.start(), hang.end())


@pytest.mark.parametrize("text", [
    # probe (fr47c 13) and its function-level variants: the next sentence is of another matter
    "Someone reported in another issue that vLLM hangs with TP=2 on this kind of box, but it works fine for me. "
    "I also tried TP=1 for comparison.",
    "Someone reported that vLLM hangs with TP=2, but it works fine for me. I tested TP=8 as well.",
    "Someone reported that vLLM hangs with TP=2, but it works fine for me. Now the throughput is my only problem.",
])
def test_a_denial_stands_when_the_next_sentence_is_of_another_matter(text):
    assert _denied(text)


@pytest.mark.parametrize("text", [
    # probes (fr47a 7; fr47a2's): the writer's system does the same after all
    "People on GitHub say vLLM TP=4 hangs at the first allreduce on 4x A100 PCIe, but ours ran fine for a week. "
    "Since yesterday's reboot it does the same.",
    "Someone said vLLM hangs, but ours works fine. Our new PCIe box does exactly that.",
    "Someone said vLLM hangs, but ours works fine. Now it does too.",
    "Someone said vLLM hangs, but ours works fine. Now it hangs again.",
])
def test_a_denial_is_cancelled_when_the_next_sentence_says_ours_does_the_same(text):
    assert not _denied(text)


@pytest.mark.parametrize("command", [
    # probes (fr47c, item 5): an unknown flag's word value before the command's own flag group
    "vllm serve Qwen/Qwen2-72B-Instruct --load-format safetensors (--tensor-parallel-size 4)",
    "vllm serve Qwen/Qwen2-72B-Instruct --tokenizer-mode auto (--tensor-parallel-size 4)",
    "vllm serve Qwen/Qwen2-72B-Instruct --enable-prefix-caching true (--tensor-parallel-size 4)",
])
def test_an_unknown_flags_word_value_keeps_the_flag_group(command):
    assert "(" not in launch._in_prose(command)
    assert launch._in_prose(command).endswith("--tensor-parallel-size 4")


@pytest.mark.parametrize("command", [
    # near-misses (fr47b 10, 31): another run's group, a switch followed by prose
    "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 8 but the old launch "
    "(--tensor-parallel-size 4 --enforce-eager) was faster",
    "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 (--enforce-eager removed)",
])
def test_a_group_not_the_commands_stays_as_written(command):
    assert "(" in launch._in_prose(command)


@pytest.mark.parametrize("text, setting", [
    # probe (fr47c 15): the timeout that "is hit" is one the writer means to set to a value
    ("Everything works and throughput is as expected. Which timeout is hit first when the engine is healthy but a "
     "prompt is very long, the HTTP one or the engine one? We want to set it to 600 s.", True),
    # near-misses (fr47a 9, 11): a timeout met, asked which
    ("vLLM TP=4 on 4x A100 PCIe. Which timeout kills our job at the first allreduce after 30 minutes, NCCL's or "
     "torch's?", False),
    ("Our vLLM TP=4 on 4x A100 PCIe is killed after 30 minutes at the first allreduce. What timeout is firing here?",
     False),
    ("Which timeout kills our job at the first allreduce? It hangs for 30 minutes.", False),
])
def test_a_timeout_that_is_hit_is_a_setting_when_a_value_to_set_follows(text, setting):
    timeout = re.search(r"timeout", text)
    assert claims._timeout_setting_asked(text, timeout) is setting
