"""Cards idle beside busy ones are neither a host that starves the job nor TP ranks waiting on each other (s39).

review39s probe F3 ("on tp=8, a few of the GPUs show 0% utilization while the others are at 100%", NOTES.md) answered
host_bound 0.69: the two shares were read as one GPU swinging between idle and busy (claims.util_swing), since "the
others" was not among the words that tell cards apart. Read as cards, ticket.gpu_utilisation then called the idle
cards "ranks waiting on each other" (expected_physics). Neither holds: nvidia-smi's utilization.gpu counts a kernel
resident, and NCCL's collective kernels spin while a rank waits for its peers, so a waiting TP rank reads busy; a host
that starves the job starves every card alike. A card at zero beside busy ones takes no part in the step, which the
figure alone does not explain: the tool asks.
"""

import pytest
from conftest import REPO, judged_issue

from rules import claims

PART_OF_THE_SET = [
    "On our 8x A100 box running vLLM tp=8, a few of the GPUs show 0% utilization while the others are at 100%.",
    "With TP=4 on four 4090s, half the cards sit at 0% while the rest are at 100%. Why so slow?",
    "vLLM tensor_parallel_size=8: some of the GPUs are at 0% GPU-Util, the others at 98%.",
    "Running SGLang tp=4, 3 of the 4 GPUs show 100% utilization and one stays at 0%.",
]


def _text(sentence: str) -> str:
    return f"# GPU utilisation looks wrong\n\n{sentence}\n"


@pytest.mark.parametrize("sentence", PART_OF_THE_SET)
def test_cards_set_against_the_rest_are_no_swing(sentence):
    verdict, findings = judged_issue(_text(sentence))
    assert "ticket.input_starved" not in findings
    assert verdict.category not in ("host_bound", "expected_physics", "healthy")
    gpu = findings.get("ticket.gpu_utilisation")
    assert gpu is None or gpu.category != "expected_physics"


@pytest.mark.parametrize("sentence,category", [
    # one GPU's share swinging in time is still the host's (no card told apart)
    ("Running vLLM tp=8 on 8x A100: GPU utilization jumps from 100% to 0% and back every few seconds.", "host_bound"),
    # the busy share is the CPU's, not another card's: the host, as before
    ("vLLM tp=2: GPU utilization is 0% on both GPUs while the CPU is at 100%. Is this normal?", "host_bound"),
])
def test_a_swing_or_the_cpu_is_still_the_host(sentence, category):
    verdict, _ = judged_issue(_text(sentence))
    assert verdict.category == category


def test_a_low_share_on_every_card_is_still_ranks_waiting():
    _, findings = judged_issue(_text("vLLM tp=4 on 4x A100: GPU utilization is only 30% on every card, is this "
                                     "normal?"))
    assert findings["ticket.gpu_utilisation"].category == "expected_physics"


def test_cards_told_apart_reading():
    assert claims.cards_split_busy_idle("a few of the GPUs show 0% utilization while the others are at 100%.")
    assert claims.cards_split_busy_idle("half the cards sit at 0% while the rest are at 100%")
    assert not claims.cards_split_busy_idle("0% on both GPUs while the CPU is at 100%")
    assert not claims.cards_split_busy_idle("GPU utilization jumps from 100% to 0% and back")


def test_real_paste_one_gpu_idle_beside_a_busy_one_is_not_called_normal():
    """triton-inference-server/tensorrtllm_backend#110 (tests/data/ut22b): with TP one GPU drops to 0 % while the other
    sits at 100 % and requests get no response; settled by request fields, nothing normal about it."""
    text = (REPO / "tests" / "data" / "ut22b" / "trtllmbackend110.md").read_text()
    verdict, findings = judged_issue(text)
    assert verdict.category not in ("healthy", "expected_physics", "host_bound")
    assert "ticket.input_starved" not in findings
