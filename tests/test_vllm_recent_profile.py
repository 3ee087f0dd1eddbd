"""vLLM 0.14 and later (engines.toml [engine."vllm-0.14"]): async scheduling on by default takes the per-step host
work off the critical path, and the torch.compile'd model replayed as a CUDA graph runs gpt-fast's per-kernel time.
A stated version picks the profile (0.8-0.10: vllm-0.8 and 0.11-0.13: vllm-0.11, V1 without async scheduling, with
piecewise then full decode graphs; before 0.8: vllm, V0); vLLM named without one is judged against the band of all
four, its expected figure the newest's."""

import dataclasses
import importlib.util
import re
import sys
from pathlib import Path

import pytest
from conftest import ONE_GPU_RATE_TOML, measured_vs_expected, published_tables

from diagnose import published
from rules import catalog, roofline
from rules.roofline import RELEASE_UNSTATED, Layout

PUBLISHED = Path(__file__).parent / "data" / "published"


@pytest.fixture(autouse=True)
def _bundled_catalog_only(monkeypatch):
    monkeypatch.delenv("DIAGNOSE_CATALOG", raising=False)
    catalog.configure([str(PUBLISHED / "models.toml")])


def _step(engine: str, tp: int):
    return roofline.predict(catalog.model("llama-3-70b"), catalog.gpu("h100-sxm"), Layout(tp=tp), batch=1, prompt=128,
                            output=128, dtype="bf16", engine=catalog.engine(engine), gpus_per_node=8)


def test_async_scheduling_hides_the_host_step_and_the_compiled_graph_runs_gpt_fast_kernel_time():
    """The same Llama-3-70B TP4 decode step on 4 H100s: vllm (V0 builds) pays its host step and the broadcast to the
    other workers; vllm-0.14 pays neither, and its kernels cost what gpt-fast's graph-replayed Inductor kernels do.
    Weights, all-reduces and the kernel count are the same."""
    old, new = _step("vllm", 4), _step("vllm-0.14", 4)
    vllm, recent = catalog.engine("vllm"), catalog.engine("vllm-0.14")
    assert old.expected_terms["host_ms"] == pytest.approx(vllm.host_ms_per_step + vllm.multiprocess_ms_per_step)
    assert new.expected_terms["host_ms"] == 0.0
    assert recent.kernel_overhead_us == catalog.engine("gpt-fast").kernel_overhead_us
    assert new.expected_terms["overhead_ms"] < old.expected_terms["overhead_ms"]
    for term in ("weights_ms", "allreduce_ms"):
        assert new.expected_terms[term] == pytest.approx(old.expected_terms[term])
    assert new.allreduce_count_per_step == old.allreduce_count_per_step
    assert new.itl_ms_expected < old.itl_ms_expected
    assert new.itl_ms == pytest.approx(old.itl_ms)  # the roofline does not depend on the engine's host side
    # V1's own per-request time (TWIN_OWN): the API server process's path, shorter than V0's, and so the TTFT
    assert recent.host_ms_per_request < vllm.host_ms_per_request
    assert new.ttft_ms_expected - recent.host_ms_per_request < old.ttft_ms_expected - vllm.host_ms_per_request


@pytest.mark.parametrize("text,key", [
    ("vLLM 0.21.0", "vllm-0.14"), ("vllm==0.15.1", "vllm-0.14"), ("vLLM v0.14.0", "vllm-0.14"),
    ("vllm0.20.2", "vllm-0.14"), ("vllm/vllm-openai:v0.16.0", "vllm-0.14"), ("vLLM 1.0", "vllm-0.14"),
    ("vllm-async", "vllm-0.14"),
    # older releases, no version, or a version that is not vLLM's
    # V1 before async scheduling (0.8-0.13: piecewise graphs to 0.10, full decode graphs from 0.11), V0 before it
    ("vLLM 0.13.0", "vllm-0.11"), ("vllm 0.11.0", "vllm-0.11"), ("vLLM v0.10.2", "vllm-0.8"),
    ("vllm==0.9.2", "vllm-0.8"), ("vLLM v0.8.0", "vllm-0.8"), ("vLLM 0.7.3", "vllm"),
    ("vLLM 0.6.3 + torch 2.4", "vllm"), ("vLLM", "vllm"),
    ("vllm (vllm/vllm-openai:gptoss)", "vllm"), ("vLLM with CUDA 12.8", "vllm"),
    # NVIDIA's container tags are year.month, not vLLM releases
    ("nvcr.io/nvidia/vllm:25.09-py3", "vllm"), ("vLLM 26.02-py3", "vllm"), ("vllm 25.09", "vllm"),
    # other engines keep their own profile whatever their version
    ("SGLang 0.5.2", "sglang"), ("TensorRT-LLM 0.9", "trtllm-xqa8")])
def test_a_stated_vllm_version_picks_the_profile(text, key):
    assert catalog.find_engine(text).key == key


def test_every_published_table_stating_vllm_0_14_or_later_takes_its_profile():
    """A table whose Conditions line states a vLLM release from 0.14 on runs vllm-0.14, and no other table does but a
    build of main run with the async-scheduling flag 0.14 made the default (PR 25444's row); the perf-CI table states
    no release and stays on vllm."""
    seen = 0
    for name, conditions, engines in published_tables():
        versions = [(int(a), int(b)) for a, b in re.findall(r"\bvLLM v?(\d+)\.(\d+)", conditions)]
        if versions and min(versions) >= (0, 14):
            seen += 1
            assert engines == {"vllm-0.14"}, name
        else:  # (or a build of main run with the flag that 0.14 made the default, its Conditions saying so)
            assert "vllm-0.14" not in engines or "'--async-scheduling'" in conditions and not versions, name
    assert seen >= 2


def test_the_recent_rows_decode_within_the_band_and_above_the_roofline():
    """Measured batch-1 inter-token latencies of vLLM 0.21 (Llama-3.1-8B, one H100) and 0.22 (Qwen2.5-72B, TP4):
    the V0-fitted profile put both outside the band, 46-47 % slow; the 0.14 profile holds them, and neither is faster
    than the roofline."""
    rows = [r for r in published.read_dir(PUBLISHED) if r.engine == "vllm-0.14" and r.metric == "itl_ms"]
    assert len(rows) == 2
    for r in rows:
        assert published.expect(r).verdict(r.value) == "inside", r.source
        assert published.expect(r, engine=catalog.engine("vllm")).verdict(r.value) == "faster", r.source


def test_v1_time_to_first_token_holds_on_models_the_fit_never_saw():
    """A client's median TTFT at one request in flight on vLLM 0.21/0.22 for the validation tables' models
    (Llama-3.1-8B, Qwen2.5-7B on one H100; Llama-3.1-70B and Qwen2.5-72B at TP4): V1's per-request time, fitted
    on other models' rows, holds every one inside the band, while V0's 17.9 ms expects every one slower than it ran."""
    rows = [r for r in published.read_dir(PUBLISHED)
            if r.engine == "vllm-0.14" and r.metric == "ttft_ms" and r.split == "validation"]
    assert {(r.model, r.tp) for r in rows} == {("llama-3-8b", 1), ("qwen2.5-7b", 1), ("llama-3-70b", 4),
                                                ("qwen2.5-72b", 4)}
    v0_time = catalog.engine("vllm").host_ms_per_request
    v0 = dataclasses.replace(catalog.engine("vllm-0.14"), host_ms_per_request=v0_time)
    for r in rows:
        assert published.expect(r).verdict(r.value) == "inside", r.source
        assert published.expect(r, engine=v0).verdict(r.value) == "faster", r.source


def test_the_fit_never_moves_the_documented_constants(monkeypatch):
    """vllm-0.14 is tied to vllm (scripts/fit_predictor.py TIED) but its host step and kernel time are held, and its
    per-request time is its own (TWIN_OWN: V1's API server process is another request path than V0's): a fit that
    moves vllm's host step and per-request time moves neither in the 0.14 profile."""
    spec = importlib.util.spec_from_file_location("fit_predictor", Path(__file__).parent.parent / "scripts"
                                                  / "fit_predictor.py")
    fitter = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "fit_predictor", fitter)
    spec.loader.exec_module(fitter)
    trial = fitter.Trial(catalog.calibration(), {k: catalog.engine(k) for k in ("vllm", "vllm-0.14")})
    trial.set(("engine", "vllm", "host_ms_per_step"), 2.5)
    trial.set(("engine", "vllm", "host_ms_per_request"), 12.0)
    assert trial.engines["vllm"].host_ms_per_step == 2.5
    assert trial.engines["vllm-0.14"].host_ms_per_step == 0.0
    assert trial.engines["vllm-0.14"].host_ms_per_request == catalog.engine("vllm-0.14").host_ms_per_request != 12.0
    trial.set(("engine", "vllm-0.14", "host_ms_per_request"), 6.0)
    assert trial.engines["vllm"].host_ms_per_request == 12.0


def _measured_vs_expected(folder, framework, rate):
    text = ONE_GPU_RATE_TOML.format(description=f"Llama-3.1-8B-Instruct on one H100 SXM, batch 1: {rate} tok/s per "
                                    "stream. Is this normal?", gpu="NVIDIA H100 80GB HBM3", framework=framework,
                                    model="meta-llama/Llama-3.1-8B-Instruct", rate=rate)
    return measured_vs_expected(folder, "ticket.toml", text)


def test_a_ticket_stating_a_recent_release_is_judged_on_its_profile(tmp_path):
    """154 tok/s (6.48 ms a token, InferenceBench's vLLM 0.21.0 figure) is what a 0.14+ build does; the V0 band of an
    older stated release puts it above the band. The finding names the profile it used."""
    recent = _measured_vs_expected(tmp_path / "a", "vLLM 0.21.0", 154.3)
    assert recent.category == "expected_physics"
    assert any("vllm-0.14" in e.detail for e in recent.evidence)
    assert "beats" not in recent.title
    old = _measured_vs_expected(tmp_path / "b", "vLLM 0.9.2", 154.3)
    assert not any("vllm-0.14" in e.detail for e in old.evidence)
    assert "beats the calibrated" in old.title  # faster than the V0 band: not broken, but not what it expects


@pytest.mark.parametrize("said, profile", [
    ("with vLLM 0.21.0, one request", "vllm-0.14"),
    ("(vllm==0.21.0 from pip), one request", "vllm-0.14"),
    ("with vLLM, one request. vLLM version: 0.15.1", "vllm-0.14"),
    ("with vLLM v0.9.2, one request", "vllm-0.8"),
    ("with vLLM v0.6.3, one request", "vllm"),
    ("with vLLM, one request", None),  # no release stated: the newest's figure, every release's band
    ("with vLLM 12.5 tok/s slower than SGLang, one request", None),  # a figure with its unit is no release
    # (r11a) ... nor a span of time after the name
    ("after serving with vLLM 2.5 hours under load, one request", None),
    ("with vLLM (1.5 days uptime), one request", None),
    ("with vLLM 3.2 min into the load test, one request", None),
])
def test_the_release_the_prose_states_picks_the_profile_as_ticket_toml_does(tmp_path, said, profile):
    """cr10 #4: the same facts in an issue's prose and in ticket.toml's framework get the same band; a release not
    stated is said, with the profiles the band covers."""
    f = measured_vs_expected(tmp_path, "issue.md", f"# slow?\n\nLlama-3.1-8B-Instruct on one H100 SXM {said}: "
                             "154.3 tok/s. Is this normal?\n")
    unstated = [e.detail for e in f.evidence if RELEASE_UNSTATED in e.detail]
    assert any(f"({profile or 'vllm-0.14'} profile" in e.detail for e in f.evidence), f.evidence
    assert bool(unstated) is (profile is None)
    if unstated:
        assert "band covers vllm, vllm-0.8, vllm-0.11, vllm-0.14" in unstated[0]


def test_predict_takes_an_engine_with_its_release(tmp_path):
    from conftest import diagnose
    assert catalog.engine("vLLM 0.21.0").key == catalog.engine("vllm==0.21.0").key == "vllm-0.14"
    assert catalog.engine("vllm 0.8.5").key == "vllm-0.8"
    assert catalog.engine("vllm 0.7.3").key == "vllm"
    with pytest.raises(catalog.UnknownName):
        catalog.engine("no-such-engine 1.2")
    result = diagnose("predict", "--engine", "vLLM 0.21.0", "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert result.exit_code == 0, result.output
