"""Issue 10k: vLLM 0.8-0.10 replay a decode step as piecewise CUDA graphs, each layer's attention eager between two
graph pieces (cudagraph_mode PIECEWISE); from 0.11 (PR 25444) a decode batch is one full graph (FULL_AND_PIECEWISE).
engines.toml maps the releases to vllm-0.8 and vllm-0.11, and vllm-0.8's decode pass pays piecewise_layer_us per
layer (14 us, from published piecewise-vs-full pairs); every command takes the same profile for the same release."""

import pytest
from conftest import llama8b_itl_predict_and_scaling, measured_vs_expected

from rules import catalog, roofline
from rules.roofline import Layout


@pytest.mark.parametrize("text, key", [
    # each boundary from both sides, in the ways a release is written (a pin, an image tag, collect_env, prose)
    ("vLLM 0.7.3", "vllm"), ("vllm==0.8.0", "vllm-0.8"), ("vLLM v0.10.2", "vllm-0.8"),
    ("vllm/vllm-openai:v0.10.1.post1", "vllm-0.8"), ("vllm==0.11.0", "vllm-0.11"),
    ("vLLM version: 0.11.2", "vllm-0.11"),
    ("served by vLLM 0.13.0", "vllm-0.11"), ("vllm/vllm-openai:v0.14.0", "vllm-0.14"), ("vLLM 0.14.1", "vllm-0.14"),
])
def test_each_release_boundary_picks_its_profile(text, key):
    assert catalog.find_engine(text).key == key
    assert catalog.release_candidates(text) == ()


def _pair(model: str, tp: int, **kw):
    m, gpu = catalog.model(model), catalog.gpu("h100-sxm")
    return [roofline.predict(m, gpu, Layout(tp=tp), batch=1, prompt=512, output=256, engine=catalog.engine(key), **kw)
            for key in ("vllm-0.8", "vllm-0.11")]


@pytest.mark.parametrize("model, tp, layers", [("llama-3-8b", 1, 32), ("llama-3-70b", 4, 80)])
def test_piecewise_graphs_add_the_eager_attention_of_every_layer_to_a_decode_step(model, tp, layers):
    """Worked by hand: Llama-3-8B has 32 decoder layers, so a piecewise decode step (vLLM 0.8-0.10) pays
    32 x 14 us = 0.448 ms more than the same step replayed as one graph (0.11-0.13); Llama-3-70B at TP4, 80 layers on
    every rank, 80 x 14 us = 1.12 ms. Nothing else differs: the weights, the all-reduces, the kernels' own time, and the
    prefill, which both releases run piecewise (the step model prices a prefill's launches apart)."""
    piecewise, full = _pair(model, tp)
    assert catalog.engine("vllm-0.8").piecewise_layer_us == 14.0 and catalog.engine("vllm-0.11").piecewise_layer_us == 0
    extra = layers * 14.0 / 1e3
    assert piecewise.expected_terms["launch_ms"] == pytest.approx(extra, abs=1e-3)
    assert full.expected_terms["launch_ms"] == 0.0
    assert piecewise.decode_step_ms_expected - full.decode_step_ms_expected == pytest.approx(extra, abs=2e-3)
    for term in ("weights_ms", "kv_ms", "overhead_ms", "allreduce_ms", "host_ms"):
        assert piecewise.expected_terms[term] == pytest.approx(full.expected_terms[term])
    assert piecewise.ttft_ms_expected == pytest.approx(full.ttft_ms_expected)
    assert piecewise.itl_ms == pytest.approx(full.itl_ms)  # the roofline is the hardware's, whatever the graphs


@pytest.mark.parametrize("release", ["0.9.2", "0.12.0"])
def test_predict_scaling_and_a_ticket_take_the_stated_release_s_graphs(tmp_path, release):
    """Llama-3.1-8B on one H100, one request, 512-token prompts, 256 out, stated as vLLM 0.9.2 (piecewise) or 0.12.0
    (full decode graphs): predict, scaling of a measured ITL and a ticket's decode rate expect the same step, the
    release's own; a measured 7.5 ms (133 tok/s) beats the band of 0.9's slower step and sits inside 0.12's, and
    scaling and the ticket say so alike."""
    layout, row = llama8b_itl_predict_and_scaling(tmp_path, f"vllm {release}", 7.5)
    itl, key = layout["itl_ms_expected"], "vllm-0.8" if release == "0.9.2" else "vllm-0.11"
    assert layout["engine"] == row["engine"] == key and row["expected"] == pytest.approx(itl, abs=1e-4)
    assert row["status"] == ("faster_than_band" if key == "vllm-0.8" else "tracks")

    f = measured_vs_expected(tmp_path / "t", "issue.md", "# slow?\n\nLlama-3.1-8B-Instruct on one H100 SXM with "
                             f"vLLM {release}, one request at a time, prompt length 512 and output length 256: "
                             "133.3 tok/s. Is this normal?\n")
    (rate,) = [e for e in f.evidence if e.source.startswith("issue.md") and e.detail.startswith("decode rate")]
    assert rate.expected == pytest.approx(1e3 / itl, abs=0.06)
    assert any(f"({key} profile" in e.detail for e in f.evidence), f.evidence
    assert f.category == "expected_physics"
    assert ("beats the calibrated" in f.title) is (key == "vllm-0.8"), f.title
