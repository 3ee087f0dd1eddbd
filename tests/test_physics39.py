"""Issue 11 (session s39, pass physics39): new real "is this normal?" threads about multi-GPU speed, memory and
scaling, run blind (tests/data/physics39/SOURCES.md has each thread, its settled answer and the verdicts).

The right answers are kept as they are; the misses stay strict xfails with the reason, because neither of their
mechanisms recurs in three threads (a reservation said as "with 22g of video memory usage"; a speed-up figure read as a
loss), so no rule was bent to them. The near-misses guard the readings a later fix would touch: a real loss in the same
shape is still read, a denied one is not, and an out-of-memory error beside the "whole GPU taken" words is no
reservation.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims

DATA = Path(__file__).parent / "data" / "physics39"


def _judged(name: str):
    return judged_issue((DATA / name).read_text(encoding="utf-8"))


def _losses(text: str) -> list[float]:
    facts = Facts()
    facts.add(*issue_md.parse("# question\n\n" + text + "\n", "issue.md"))
    return [c.data["factor"] for c in claims.stated_losses(facts)]


# ----------------------------------------------------------------------------- settled threads answered right


@pytest.mark.parametrize("name, category", [
    ("qwen835.md", "healthy"),                        # QwenLM/Qwen#835: vLLM takes the whole GPU by design
    ("fastertransformer171.md", "expected_physics"),  # NVIDIA/FasterTransformer#171: INT8 no gain at small batch
    ("uniad41.md", "expected_physics"),               # zhiyuanyou/UniAD#41: 4 cards, communication
    ("mxnet2363.md", "expected_physics"),             # apache/mxnet#2363: small network, communication cost
])
def test_settled_threads_keep_their_answer(name, category):
    verdict, _ = _judged(name)
    assert verdict.category == category


def test_a_fault_thread_is_not_called_normal():
    """QwenLM/Qwen#756: 72B-Int4 slow from mismatched GPTQ/transformers versions (a fault the paste does not show)."""
    verdict, _ = _judged("qwen756.md")
    assert verdict.category not in ("healthy", "expected_physics")


# ----------------------------------------------------------------------------- misses kept as they are


def test_a_reservation_said_with_with():
    """lm-sys/FastChat#2475 (settled healthy: vLLM pre-allocates ~90 % of the GPU for its KV cache). Since audit48a
    the title's "very strange?RTX3090 load vicuna-7b" asks (a question mark run on into the next word), so the
    question is answered as normal (ticket.nothing_broken). The reservation itself is still unread: 'load
    vicuna-7b,with 22g of video memory usage' joins the figure to the model with 'with' and writes it '22g', and no
    other kept paste says a reservation so."""
    verdict, found = _judged("fastchat2475.md")
    assert verdict.category == "healthy"
    assert found["ticket.nothing_broken"].category == "healthy"


def test_a_speedup_is_not_a_loss():
    """Wan-Video/Wan2.1#433: 'accelerates 3.54x less than 3.8' states a speed-up, not a 3.54x slowdown (variant39:
    figures.SPEEDUP_VERB; tests/test_variant39.py reads it as x3.54 on 4 GPUs)."""
    _, findings = _judged("wan433.md")
    assert "ticket.loss_beyond_physics" not in findings


@pytest.mark.xfail(strict=True, reason="Wan-Video/Wan2.1#433 (settled healthy: 3.54x on 4 A100s against 3.8x "
                   "published is within host differences): the speed-up is read (x3.54 on 4 GPUs, variant39) but "
                   "ticket.speedup_vs_expected prices a speed-up only for a model the catalog knows, and I2V-14B (a "
                   "video diffusion model) is none, so the verdict is insufficient_data")
def test_a_speedup_near_the_published_one_is_healthy():
    verdict, _ = _judged("wan433.md")
    assert verdict.category in ("healthy", "expected_physics")


# ----------------------------------------------------------------------------- near-misses and negations


def test_a_real_loss_in_the_same_shape_is_read():
    assert _losses("On 4 A100 GPUs the I2V-14B generation is 3.54x slower than on a single A100.") == [3.54]


def test_a_denied_loss_is_not_read():
    assert _losses("On 4 A100 GPUs it is not 3.54x slower than on a single A100, it is 3.54x faster.") == []


def test_out_of_memory_beside_the_whole_gpu_taken_is_no_reservation():
    verdict, _ = judged_issue("# question\n\nvLLM 部署时会占用整个显存，然后报 CUDA out of memory 错误\n")
    assert verdict.category not in ("healthy", "expected_physics")
