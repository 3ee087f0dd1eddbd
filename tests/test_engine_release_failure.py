"""One release of a serving engine fails (hangs, crashes, raises) where another of its releases works: the engine's
release is what changed, `other` with both releases as evidence (ticket.engine_versions), never a TP or NCCL verdict
from the failure alone. The same A/B reading as NCCL's releases (rules.claims.release_sides), over the engine's own
numbering; a release that "works if I set X" works with another change, not as it is, and "rolling back to X resolves
the issue" cures the failure on the release named beside it. Checked on the development case it was studied from
(u10a14, HAMi + vLLM 0.25.0), two threads not in the corpus (tests/data/ut14e/SOURCES.md) and sentences written
here for other engines, negations and conditions."""

from pathlib import Path

import pytest
from conftest import judged_file, judged_issue
from test_ticket_questions import development_case

from rules import claims
from rules.engine import evaluate, ticket_verdict

DATA = Path(__file__).parent / "data" / "ut14e"




@pytest.mark.parametrize("name, releases", [("vllm8397", "0.6.1 vs 0.6.0"), ("vllm5637", "0.5.0 vs 0.4.3")])
def test_public_release_rollbacks_are_the_engines(tmp_path, name, releases):
    verdict, rules = judged_file(tmp_path, DATA, name)
    assert verdict.category == "other" and verdict.confidence < 0.7
    assert releases in rules["ticket.engine_versions"].title


def test_development_hami_vllm_025_hang(tmp_path):
    """u10a14: v0.25.0 hangs at TP > 1; it starts after a downgrade to v0.24.0 (and, on v0.25.0, with
    CUDA_DISABLE_CONTROL=true: a condition, not the release working)."""
    findings = evaluate(facts := development_case(tmp_path, "u10a14"))
    assert ticket_verdict(facts, findings).category == "other"
    assert "0.25.0 vs 0.24.0" in next(f for f in findings if f.rule == "ticket.engine_versions").title


@pytest.mark.parametrize("text", [
    "# SGLang crash\n\nSGLang 0.4.1 crashes at startup with --tp 2 on two A100s, while SGLang 0.3.6 works fine.",
    "# TRT-LLM\n\nAfter moving to TensorRT-LLM 0.12.0 the engine build fails for tp_size 4; TensorRT-LLM 0.11.0 "
    "has no such problem.",
    "# Ollama stuck\n\nOllama 0.5.7 hangs on the first request with two GPUs. Downgrading to Ollama 0.5.4 fixes the "
    "hang.",
    "# LMDeploy\n\nlmdeploy 0.6.2 errors out with tp=2; lmdeploy 0.6.0 runs ok on the same box.",
])
def test_a_failure_on_one_release_and_not_another_in_other_engines(text):
    verdict, rules = judged_issue(text)
    assert "ticket.engine_versions" in rules and verdict.category == "other"


@pytest.mark.parametrize("text", [
    # both releases fail alike
    "# vLLM hang\n\nvLLM 0.6.1 hangs with TP=2 on 2x 4090, and vLLM 0.6.0 hangs the same way.",
    # both work
    "# Question\n\nvLLM 0.6.0 works and vLLM 0.6.1 works too with TP=2; which should I use?",
    # the newer release works only with another change: no release A/B
    "# vLLM\n\nvLLM 0.6.1 starts if I set --disable-custom-all-reduce; vLLM 0.6.1 hangs without it.",
])
def test_no_release_ab_when_releases_behave_alike_or_work_on_a_condition(text):
    _, rules = judged_issue(text)
    assert "ticket.engine_versions" not in rules


def test_a_condition_naming_the_release_still_counts():
    good, bad = claims.release_sides("It hangs on vLLM 0.6.1. It works if I downgrade vLLM to v0.6.0.",
                                     ["0.6.1", "0.6.0"], claims._ENGINE_RELEASE)
    assert good == {"0.6.0"} and bad == {"0.6.1"}


def test_nccl_release_ab_keeps_its_reading():
    """The condition check is shared: NCCL's A/B that works on a condition naming no release is no A/B either."""
    assert claims.failure_ab("NCCL 2.19.3 hangs; NCCL 2.18.6 works.")
    assert not claims.failure_ab("NCCL 2.19.3 hangs, NCCL 2.19.3 works only if I set NCCL_P2P_DISABLE=1.")
