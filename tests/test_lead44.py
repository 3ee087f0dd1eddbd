"""The lead's reading of the thirty-eighth session: an English hang guarded against or said fixed is no hang seen now
(claims._en_hang_averted), as the Chinese one is (claims.zh_hang_averted). Real sentences are cited by their
find_string id; probes are labelled."""

import pytest
from conftest import judged_issue

from rules import claims

_HANG = dict(claims.SYMPTOMS)["hang"]


def _hang_said(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", _HANG, text)]


@pytest.mark.parametrize("text", [
    # real sentences
    "The SLURM boilerplate this repo prescribes sets `NCCL_P2P_DISABLE=1` (to avoid NCCL hangs), which routes that "
    "all-reduce through host memory instead of P2P.",  # id 65769737760
    "Some multi-GPU Docker environments may need `NCCL_P2P_DISABLE=1` to avoid NCCL hangs.",  # id 53858619987
    "Release CUDA graph to avoid NCCL hang on exit",  # id 22445923900
    "Once the hang was fixed, this test failed.",  # id 67317528695
    "The hang was fixed by Linux 6.2 (commit `3f882f2`).",  # id 63245293249
    "The training hang issue was resolved in recent updates by ensuring gradients are evaluated.",  # id 8040994286
    "ChatGPT told me to remove `kernfs_remove`, which fixed the hang.",  # id 25589380657
    # probes
    "We had NCCL hangs before, which we fixed by upgrading the driver.",
    "Upgrading the driver fixed the hang.",
    "The hang is gone after setting NCCL_P2P_LEVEL=NVL.",
    "To prevent the process from hanging, we set NCCL_P2P_DISABLE=1.",
])
def test_a_hang_guarded_against_or_fixed_is_not_seen_now(text):
    assert _hang_said(text) == []


@pytest.mark.parametrize("text", [  # probes: a hang seen now, a fix denied, undone, temporary, tried or asked about
    "It hangs at init with TP=4.",
    "The hang was not fixed by upgrading.",
    "The hang was fixed temporarily by restarting, but it comes back.",
    "Was the hang fixed in 0.6.3?",
    "The NCCL hang that was fixed in 2.18 is back in 2.19.",
    "We cannot avoid the hang, even with NCCL_P2P_DISABLE=1.",
    "How do I prevent the hang?",
    "I fixed the driver but it still hangs at init.",
    "After upgrading the driver the process hangs at all_reduce.",
    "We set NCCL_P2P_DISABLE=1 to fix the hang, but it still hangs.",
    "I tried setting NCCL_P2P_DISABLE=1 to fix the hang.",
    "The process hangs and nothing is fixed yet.",
    "Training hangs, fixed seed 42, 8 GPUs.",
])
def test_a_hang_seen_now_is_still_a_hang(text):
    assert _hang_said(text)


def test_a_fixed_hang_does_not_turn_a_scaling_question_into_a_hang():
    """Probe: the same 'is this normal?' ticket with and without a hang fixed before gets the same answer (before this
    reading, the fixed hang gave ticket.hang_on_pcie and p2p_disabled 0.69)."""
    base = ("# TP=4 slow\n\nvLLM 0.6.3, Llama-3-8B, 4x RTX 4090. {}Throughput with TP=4 is only 2x one GPU. "
            "Is this normal?\n")
    plain, _ = judged_issue(base.format(""))
    fixed, fixed_findings = judged_issue(
        base.format("We had NCCL hangs before, which we fixed by upgrading the driver. "))
    assert "ticket.hang_on_pcie" not in fixed_findings
    assert fixed.category == plain.category == "expected_physics"
