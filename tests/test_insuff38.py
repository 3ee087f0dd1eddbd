"""Issue 11 (session s38, pass insuff38): kept real pastes answered insufficient_data although their thread settled an
answer (tests/data/insuff38/AUDIT.md). The group fixed here: software said not to support a GPU, or asked to add it,
with no message, build or figure, for a GPU whose architecture PyTorch's CUDA wheel lines differ on
(rules.build_arch.support_question, from gpu_archs.toml and torch_wheel_archs.toml).

The real pastes are tests/data/newarch35's (threads and settled answers: newarch35/SOURCES.md) and two held-out threads
kept in tests/data/insuff38 (SOURCES.md). The near-misses must stay without the build lead: a bare "is it supported?"
(its threads settle it every way), no GPU named, a GPU every wheel line holds, a feature of the GPU, support thanked
for, an error, a figure or a hang beside it.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from benchmarks.regex_worst_case import runaway_repeats
from diagnose.bundle import read_bundle
from rules import build_arch
from rules.engine import evaluate, ticket_verdict

NEWARCH = Path(__file__).parent / "data" / "newarch35"
LEAD = "build.support_asked"


def _said(text: str):
    return judged_issue("# question\n\n" + text + "\n")


def _ticket(path: Path):
    """(verdict, {rule: finding}) as `diagnose ticket` reads the file."""
    facts = read_bundle([path])
    findings = {f.rule: f for f in evaluate(facts)}
    return ticket_verdict(facts, list(findings.values())), findings


# ----------------------------------------------------------------------------- the real pastes, settled `other`


@pytest.mark.parametrize("name", [
    "comfyui7816.md",      # Comfy-Org/ComfyUI#7816: "ComfyUI does not support the 50XX series?"
    "textgen6828.md",      # oobabooga/textgen#6828: "Would be great if blackwell was supported"
    "whisperwebui614.md",  # jhj0517/Whisper-WebUI#614: "Could you please add support for blackwell GPUs ?"
])
def test_support_said_lacking_is_a_lead_to_the_build(name):
    verdict, findings = _ticket(NEWARCH / name)
    assert verdict.category == "other" and verdict.confidence < 0.7
    f = findings[LEAD]
    assert "sm_120" in f.title and "12.8" in f.summary and "cu128" in f.fix
    assert any(e.source == "catalog:gpu_archs.toml" and e.measured == 12.8 for e in f.evidence)


@pytest.mark.xfail(strict=True, reason="Comfy-Org/ComfyUI#7159 (settled: a cu128 build) asks only 'Does it support "
                   "5070ti graphics card?' (read as an issue since b49c; before, its one-word title and empty form "
                   "sections left it unread). A bare support question gets no build lead on purpose: its threads "
                   "settle it every way ('Yes', ModelCloud/GPTQModel#1793; 'no plans', GeeeekExplorer/nano-vllm#7); "
                   "like those two it now gets ticket.nothing_broken's healthy")
def test_a_bare_support_question():
    verdict, _ = _ticket(NEWARCH / "comfyui7159.md")
    assert verdict.category == "other"


# ----------------------------------------------------------------------------- the same, reworded


@pytest.mark.parametrize("text", [
    "The RTX 5080 is not supported yet, I could not find it in the docs.",
    "Please add support for the RTX 5090.",
    "Would be nice if Blackwell GPUs were supported.",
    "RTX 5070 Ti not supported?",
    "It is not compatible with my GeForce RTX 5060 Ti.",
    "This project does not support the GTX 1080?",  # Pascal: the cu128 wheels leave it out (torch_wheel_archs.toml)
])
def test_reworded_support_said_lacking(text):
    verdict, findings = _said(text)
    assert LEAD in findings and verdict.category == "other"


def test_an_old_board_is_pointed_to_the_wheels_that_still_hold_it():
    _, findings = _said("This project does not support the GTX 1080?")
    assert "sm_61" in findings[LEAD].title and "take the cu126 wheels" in findings[LEAD].fix


# ----------------------------------------------------------------------------- near-misses: no build lead


@pytest.mark.parametrize("text", [
    "Does this project support Blackwell GPUs?",                              # a bare question: settled every way
    "Is the RTX 5080 supported yet?",                                         # likewise
    "Does it support my graphics card? It does not start.",                  # no GPU named
    "vLLM does not support the RTX 4090? I want to buy one.",                 # every wheel line holds sm_89
    "The H100 is not supported by this model's kernels?",                     # sm_90, likewise
    "P2P is not supported on the RTX 5090? I want to run TP=2.",              # a feature of the GPU
    "FP8 is not supported on Blackwell?",                                     # a feature
    "Blackwell support is great, thanks for the release!",                    # support thanked for, nothing lacking
    "The RTX 5090 is not supported? I get a CUDA out of memory error.",       # an error: its message decides
    "The 5090 is not supported? TP=2 hangs at NCCL init.",                    # a hang
    "RTX 5090 not supported? I get 20 tok/s with Llama-3-8B, is that normal?",  # a figure to judge
    "No support for 2024 models?",                                            # a year, not a GPU
])
def test_no_build_lead_beside_other_evidence_or_for_other_boards(text):
    _, findings = _said(text)
    assert LEAD not in findings


def test_the_message_itself_stays_the_stronger_answer():
    # newarch35/kokoro365: "Blackwell not supported yet?" over PyTorch's own capability warning
    verdict, findings = judged_issue((NEWARCH / "kokoro365.md").read_text())
    assert "build.arch_missing" in findings and LEAD not in findings and verdict.category == "other"


def test_patterns_stay_bounded_on_long_blank_input():
    for name in ("_SERIES", "_BOARD", "_SUPPORT_BEFORE", "_SUPPORT_AFTER", "_WANTED", "_FEATURE", "_FAILED"):
        pattern = getattr(build_arch, name)
        assert runaway_repeats(pattern.pattern, pattern.flags) == [], name


def test_wheel_lines_differ_only_at_the_edges():
    assert build_arch.build_lines_differ(12.0) and build_arch.build_lines_differ(10.0)  # first built by CUDA 12.8
    assert build_arch.build_lines_differ(6.1)  # below the cu128 wheels' oldest (7.0)
    assert not any(build_arch.build_lines_differ(cc) for cc in (7.0, 7.5, 8.0, 8.6, 8.9, 9.0))


# ----------------------------------------------------------------------------- threads kept in tests/data/insuff38

INSUFF = Path(__file__).parent / "data" / "insuff38"


def test_tensorrt_on_a_5090_said_not_supported():
    # NVIDIA/TensorRT#4317 (settled other: TensorRT 10.7 predates Blackwell, per its support matrix). Read after the
    # rule was written; its "currently not supported" added the adverb slot, so it is a source now, not a held-out check
    verdict, findings = _ticket(INSUFF / "tensorrt4317.md")
    assert verdict.category == "other" and LEAD in findings


@pytest.mark.parametrize("name", ["gptqmodel1793.md", "nanovllm7.md"])
def test_bare_support_questions_get_no_build_lead(name):
    # ModelCloud/GPTQModel#1793 (settled: "Yes", it runs) and GeeeekExplorer/nano-vllm#7 (settled: no plans to support)
    _, findings = _ticket(INSUFF / name)
    assert LEAD not in findings


@pytest.mark.xfail(strict=True, reason="Comfy-Org/desktop#1077 (held out; settled other: a CUDA 12.8 build, the "
                   "discussion 6643 workaround) asks for 'a plan and timeline to support rtx-50 series' and proposes "
                   "'Add Cuda 12.8 support': a feature request with no lack said of the GPU, left alone like a bare "
                   "question (ticket.nothing_broken answers it healthy)")
def test_a_feature_request_for_a_series():
    verdict, _ = _ticket(INSUFF / "comfydesktop1077.md")
    assert verdict.category == "other"
