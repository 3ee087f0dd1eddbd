"""Issue 11 (audit30b): 61 real pastes the tool answered insufficient_data, audited by the fact the answer lacked
(tests/data/audit30b/AUDIT.md). The one general gap fixed here: an FP16-math engine (ExLlama, ExLlamaV2) on a GPU of
compute capability 6.1 (Tesla P40/P4, GTX 10xx), whose FP16 rate is 1/64 of FP32, was known (HALF_MATH_ENGINES) but
only kept the figure unjudged; ticket.half_math_gpu now says it, and where the model and a decode rate are given, checks
the rate is not above what 2 FLOPs per parameter at that FP16 rate allow. Real first posts in
tests/data/audit30b/half_math/ (URLs in tests/data/audit30b/SOURCES.md)."""

from pathlib import Path

import pytest
from conftest import finding, report_json

DATA = Path(__file__).parent / "data"
HALF = DATA / "audit30b" / "half_math"


def _report(path: Path) -> dict:
    return report_json("ticket", str(path))


def test_audited_exllamav2_p40_is_fp16_physics():
    """turboderp-org/exllamav2#40 (kept by ut27e): CodeLlama-34B 4.0bpw EXL2 on a Tesla P40 at 1.19 t/s. The
    maintainers: exllama computes in half floats and Pascal other than GP100 runs FP16 at 1/64. Before:
    insufficient_data (topology, nvidia-smi -q, all_reduce_perf asked); now expected_physics, the rate under the FP16
    ceiling of a 34B model at 11.8 / 64 TFLOPS (2.7 tok/s)."""
    report = _report(DATA / "ut27e" / "exllamav2_40.md")
    f = finding(report, "ticket.half_math_gpu")
    assert f is not None and f["category"] == "expected_physics"
    rate = next(e for e in f["evidence"] if e.get("unit") == "tok/s")
    assert rate["measured"] == pytest.approx(1.19, abs=0.01) and 2.0 < rate["expected"] < 3.5
    assert report["verdict"]["category"] == "expected_physics"


def test_audited_p40_paste_naming_no_engine_stays_undecided():
    """turboderp/exllama#75 (kept by ut27e): "my P40 is only using about 70W while generating responses". The paste
    names no engine (the repository does): nothing says the FP16 path ran, so no verdict."""
    report = _report(DATA / "ut27e" / "exllama75.md")
    assert finding(report, "ticket.half_math_gpu") is None
    assert report["verdict"]["category"] == "insufficient_data"


def test_exllama_on_two_pascal_cards_names_the_fp16_rate():
    """oobabooga/textgen#2949: "Exllama is slow on pascal cards", 0.57 tokens/s on a 1080 Ti + 1080. The finding
    fires; the verdict stays the mixed pair's straggler lead (a warning the info finding does not outweigh: left)."""
    report = _report(HALF / "textgen2949.md")
    f = finding(report, "ticket.half_math_gpu")
    assert f is not None and f["confidence"] < 0.69  # no model named: no ceiling to check the rate against
    assert "1/64" in f["title"]


@pytest.mark.parametrize("name, why", [
    # P40 with AutoGPTQ (use_cuda_fp16 False), Exllama_HF and Exllama, "same speed": the FP32 loader is as slow, so
    # the FP16 rate is not shown to be the cause
    ("textgen3825.md", "another loader with an FP32 path ran too"),
    # exllama on an RTX 4090 (compute capability 8.9): full-rate FP16
    ("exllama231.md", "not a compute capability 6.1 GPU"),
    # ChatGLM2-6B on a P40 through its own transformers code: no FP16-math engine named
    ("chatglm2_311.md", "no FP16-math engine"),
    # exllamav2 against llama-cpp-python in a CUDA container, no GPU named: nothing says the GPU is a 6.1 one
    ("exllamav2_401.md", "no GPU named"),
])
def test_near_misses_do_not_claim_the_fp16_rate(name, why):
    assert finding(_report(HALF / name), "ticket.half_math_gpu") is None, why
