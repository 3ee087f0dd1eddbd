"""Issue 11 (session s35, pass review35b): the second round's rules where they fired wrongly. The probes are reporters'
sentences written for this review (tests/data/s35reviewb/NOTES.md lists every probe and its verdict); each misfire
fixed has its sentence here, beside the sentences that must still fire.

- build.arch_missing on a PyTorch capability warning the reporter says they no longer get (build_arch._said_gone);
- ticket.newer_arch_behind and ticket.stronger_gpu_slower on a yes/no question about two boards with no run said
  (ticket_questions._only_asked);
- a laptop part named with the word before it ("my laptop RTX 4090") read as the desktop card
  (issue_md._LAPTOP_BEFORE, shared with the ticket's own GPU since gpuname35).
"""

import pytest
from conftest import judged_issue

from diagnose.artifacts import issue_md


def _said(text: str):
    return judged_issue("# question\n\n" + text + "\n")


_WARNING = ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
            "installation")


# ----------------------------------------------------------------------------- a build message said gone


@pytest.mark.parametrize("text", [
    f'I used to get "{_WARNING}" but after installing the cu128 nightly that is gone. Now inference is still slow, '
    "30 tok/s on Llama 8B.",
    f'I used to see "{_WARNING}" on my RTX 5090; I reinstalled with cu128 and now it runs, but it is slow, 20 tok/s.',
    f"My RTX 5090 printed {_WARNING} until I reinstalled, and the warning disappeared. Still 20 tok/s, slow.",
])
def test_a_capability_warning_said_gone_is_no_build_lead(text):
    _, found = _said(text)
    assert "build.arch_missing" not in found


@pytest.mark.parametrize("text", [
    f"UserWarning: {_WARNING}. The run is very slow, 2 tok/s.",
    f"On my RTX 5090 I get {_WARNING}, and it has not disappeared after reinstalling; the speed is 2 tok/s.",
    "nvcc fatal : Unsupported gpu architecture 'compute_120' when building flash-attn for my RTX 5090, so I fell back "
    "to the SDPA path and it is slow.",
])
def test_a_capability_warning_still_printed_leads_to_the_build(text):
    verdict, found = _said(text)
    assert "build.arch_missing" in found and verdict.category == "other"


# ----------------------------------------------------------------------------- a comparison only asked


@pytest.mark.parametrize("text", [
    "Is the RTX 5090 slower than the RTX 4090? I'm deciding which to buy for Llama 70B inference.",
    "Is the H100 slower than the A100 for batch 1? We are choosing a cloud instance.",
    "Would the RTX 5090 be slower than a 4090 for serving Qwen 7B? Trying to pick one.",
])
def test_a_yes_no_question_about_two_boards_names_no_build_and_no_host(text):
    _, found = _said(text)
    assert "ticket.newer_arch_behind" not in found and "ticket.stronger_gpu_slower" not in found


@pytest.mark.parametrize("text", [
    "Why is the RTX 5090 slower than the RTX 4090? 20 vs 30 tok/s on Qwen 7B in vLLM.",
    "Is it normal that my RTX 5090 is slower than my RTX 4090 in vLLM?",
    "Is the RTX 5090 slower than the RTX 4090? Mine gets 20 tok/s on Llama 8B, which seems slow.",
    "Shouldn't the H100 be faster than the A100? Our vLLM run is 1200 vs 1500 tok/s.",
    "The H100 is slower than the A100 in our vLLM runs, 1200 vs 1500 tok/s.",
])
def test_a_run_that_came_out_behind_still_leads_to_the_build(text):
    _, found = _said(text)
    assert "ticket.newer_arch_behind" in found and "ticket.stronger_gpu_slower" in found


# ----------------------------------------------------------------------------- a laptop part


def test_a_laptop_rtx_4090_is_not_the_desktop_card():
    _, found = _said("My laptop RTX 4090 is slower than my desktop RTX 3090 for Llama 8B inference, 40 vs 90 tok/s.")
    assert "ticket.newer_arch_behind" not in found and "ticket.stronger_gpu_slower" not in found
    _, found = _said("My laptop RTX 4090 is slower than my desktop RTX 4090, 40 vs 90 tok/s.")
    assert "ticket.gpus_compared" in found  # the laptop part reads 576 GB/s against the desktop's 1008
    assert "RTX 4090 Laptop" in found["ticket.gpus_compared"].title


def test_the_laptop_word_must_stand_right_before_the_name():
    assert issue_md._LAPTOP_BEFORE.search("my laptop ")
    assert issue_md._LAPTOP_BEFORE.search("a mobile GeForce ")
    assert not issue_md._LAPTOP_BEFORE.search("on my laptop I also run a ")
    assert not issue_md._LAPTOP_BEFORE.search("the laptop is fine but the ")
