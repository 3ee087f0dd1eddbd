"""Issue 11 point 4 (session s39, pass variant39): a GPU's variant said apart from its name, and speed-ups read the
right way round.

"Our H100s are PCIe cards, not SXM" names the board in another clause than "H100": rules.board_variant reads it, and
rules.subject resolves the family word to the H100 PCIe (2,000 GB/s) instead of the SXM5 default (3,350 GB/s), so a
healthy PCIe system is not judged against the SXM5's band. "Accelerates 3.54x less than 3.8" (Wan-Video/Wan2.1#433)
states a speed-up of 3.54 on 4 GPUs set against another, not a 3.54x loss. The probes are this pass's own wordings
(tests/data/variant39/NOTES.md), the near-misses those that must not change, the real pastes those in
tests/data/variant39/SOURCES.md.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims
from rules.subject import Subject

DATA = Path(__file__).parent / "data"


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse("# question\n\n" + text + "\n", "issue.md"))
    return facts


def _board(text: str) -> str | None:
    subject = Subject.of(_facts(text))
    return subject.gpu.key if subject.gpu else None


# ----------------------------------------------------------------------------- the variant said apart from the name


@pytest.mark.parametrize("text, key", [
    # a form factor said of the board in its own clause or sentence
    ("Our H100s are PCIe cards, not SXM. vLLM TP4 Llama-3-70B gives 20 tok/s. Is this normal?", "h100-pcie"),
    ("We run vLLM on 4x H100 (the PCIe version) with TP4 and get 20 tok/s.", "h100-pcie"),
    ("vLLM TP4 on 4 H100. The GPUs are PCIe, no NVLink bridge. 20 tok/s.", "h100-pcie"),
    ("A100 (PCIe, 80GB) TP2 20 tok/s", "a100-80gb-pcie"),
    ("| GPU | 4x H100 |\n|---|---|\n| Form factor | PCIe |\n| Engine | vLLM TP4 |", "h100-pcie"),
    # a memory size said apart ("the 40GB version")
    ("8x A100 (the 40GB version), Llama-2-70B TP8, 30 tok/s.", "a100-40gb-sxm"),
    # an NVLink bridge, there or not: only the PCIe cards take one
    ("4x A100 with NVLink bridges, TP4 Llama-2-70B 20 tok/s.", "a100-80gb-pcie"),
    ("2x A100 80GB, no NVLink bridge, TP2 20 tok/s", "a100-80gb-pcie"),
])
def test_a_variant_said_apart_picks_the_board(text, key):
    assert _board(text) == key


@pytest.mark.parametrize("text, key", [
    # the link, not the board
    ("4x H100 in PCIe 4.0 x16 slots, TP4 20 tok/s", "h100-sxm"),
    ("4x H100 behind a PCIe switch, TP4, 20 tok/s", "h100-sxm"),
    ("4x H100, the GPUs talk over PCIe Gen4, TP4, 20 tok/s", "h100-sxm"),
    ("The interconnect between the H100s is PCIe. TP4 20 tok/s.", "h100-sxm"),
    # someone else's system, a denial, a question, two variants or two products: not decided
    ("4x H100 TP4 20 tok/s, compared with the SXM numbers in the blog it is slow", "h100-sxm"),
    ("4x H100, they are not PCIe cards. TP4 20 tok/s.", "h100-sxm"),
    ("Is it the SXM or the PCIe version that NVIDIA benchmarked? Our 4x H100 give 20 tok/s", "h100-sxm"),
    ("Our A100s are the 40GB version and the 80GB version is in the other box. TP4 20 tok/s", "a100-80gb-sxm"),
    ("We have A100 and H100 machines; the H100 is SXM and the A100 is PCIe. 20 tok/s", "a100-80gb-sxm"),
    ("4x A100 40GB, the H100 is PCIe. TP4 20 tok/s", "a100-40gb-sxm"),
    # the name written whole keeps its own reading
    ("H100 SXM5 runs at 40 tok/s", "h100-sxm"),
])
def test_near_misses_keep_the_board(text, key):
    assert _board(text) == key


def test_a_healthy_pcie_system_is_not_judged_against_the_sxm_band():
    """The brief's probe: on main the H100 was priced as SXM5 and 20 tok/s read 36 % below the slowest healthy run."""
    verdict, findings = judged_issue("# slow\n\nOur H100s are PCIe cards, not SXM. vLLM TP4 Llama-3-70B gives 20 "
                                     "tok/s. Is this normal?\n")
    assert verdict.category == "expected_physics"
    rows = [e.detail for e in findings["ticket.measured_vs_expected"].evidence]
    assert any("h100-pcie" in r for r in rows)


def test_the_variant_is_said_of_its_own_product_in_a_comparison():
    """vllm-project/vllm#16265's wording ("testing this on A100 and H100 ... H100 used is of type PCI-e", kept as a
    probe: the thread has no settled answer): the PCIe form is the H100's, not the A100's."""
    subject = Subject.of(_facts("I am testing this on A100 and H100 on LLAMA3.2-3B. I only see a marginal upgrade "
                                "on H100 (only 1.3x faster than A100) .H100 used is of type PCI-e"))
    assert subject.board("H100").key == "h100-pcie"
    assert subject.board("A100").key == "a100-80gb-sxm"


def test_a_real_question_between_two_variants_decides_nothing():
    """Tiiny-AI/PowerInfer#16 asks "the 40GB version of A100 or the 80GB version?": two sizes, asked."""
    facts = Facts()
    facts.add(*issue_md.parse((DATA / "variant39" / "powerinfer16.md").read_text(encoding="utf-8"), "issue.md"))
    assert Subject.of(facts).variants == {}


# ----------------------------------------------------------------------------- speed-ups read the right way round


def _speedups(text: str) -> list[tuple[float, int | None, int | None]]:
    return [(round(c.data["ratio"], 3), c.data["small"], c.data["large"]) for c in claims.speedups(_facts(text))]


def _losses(text: str) -> list[float]:
    return [c.data["factor"] for c in claims.stated_losses(_facts(text))]


@pytest.mark.parametrize("text, speedup", [
    ("Why Multi-GPU Image-to-Video Generation on 4 A100 GPUs accelerates 3.54x less than 3.8?", (3.54, None, 4)),
    ("It is 3.5x faster with 4 GPUs than with one.", (3.5, None, 4)),
    ("Going from 1 to 4 GPUs gives a 3.2x speedup.", (3.2, 1, 4)),
    ("On 4 GPUs the generation is only 1.7x faster than on one.", (1.7, None, 4)),
    ("4卡的加速比 3.5", (3.5, None, 4)),
])
def test_a_speedup_is_a_scaling_figure_not_a_loss(text, speedup):
    assert _speedups(text) == [speedup]
    assert _losses(text) == []


@pytest.mark.parametrize("text, factor", [
    ("On 4 GPUs it is 2x slower than on a single GPU.", 2.0),
    ("On 4 A100 GPUs the I2V-14B generation is 3.54x slower than on a single A100.", 3.54),
    ("On 4 GPUs the throughput is 3x lower than on one GPU.", 3.0),
])
def test_a_loss_stays_a_loss(text, factor):
    assert _losses(text) == [factor]
    assert all(ratio < 1 for ratio, _, _ in _speedups(text))  # (main read "3x lower" as a 3x speed-up)


def test_wan433_reads_the_speedup_on_four_gpus():
    """Wan-Video/Wan2.1#433 (tests/data/physics39): no loss beyond physics, and the speed-up is 3.54 on 4 GPUs."""
    verdict, findings = judged_issue((DATA / "physics39" / "wan433.md").read_text(encoding="utf-8"))
    assert "ticket.loss_beyond_physics" not in findings
    facts = Facts()
    facts.add(*issue_md.parse((DATA / "physics39" / "wan433.md").read_text(encoding="utf-8"), "issue.md"))
    assert [(round(c.data["ratio"], 2), c.data["large"]) for c in claims.speedups(facts)] == [(3.54, 4)]
