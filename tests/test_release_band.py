"""Issue 10h: which vLLM (and TGI) profile each release runs, in one place (engines.toml releases); an engine named
without its release is judged against the band of every release's profile, its expected figure the newest's; and
every command prices the decode step at the same context (the reply's middle), so predict, scaling and a ticket give
the same expected ITL for the same facts."""

import json

import pytest
from conftest import diagnose, llama8b_itl_predict_and_scaling, measured_vs_expected

from rules import catalog, roofline
from rules.roofline import RELEASE_UNSTATED, Layout


@pytest.mark.parametrize("text, key", [
    # V0 before 0.8; V1 without async scheduling 0.8-0.13 (V1 default from v0.8.0, PR 13726), piecewise graphs until
    # 0.10, full decode graphs from 0.11 (PR 25444); async from 0.14
    ("vLLM 0.7.3", "vllm"), ("vllm==0.8.0", "vllm-0.8"), ("vLLM v0.10.1.post1", "vllm-0.8"),
    ("vllm/vllm-openai:v0.13.0", "vllm-0.11"), ("vLLM 0.14.0", "vllm-0.14"),
    ("TGI 1.4.5", "tgi-1.0"), ("text-generation-inference 2.0.1", "tgi"),
    # TensorRT-LLM: v0.5's defaults, v0.6-v0.9's precompiled XQA, the XQA JIT from v0.10 without multi-block mode
    # until v0.12 moved it to the runtime, on by default (1.x too)
    ("TensorRT-LLM 0.5.0", "trtllm-0.5"), ("tensorrt_llm==0.9.0", "trtllm-xqa8"),
    ("TensorRT-LLM v0.10.0", "trtllm-0.10"), ("tensorrt_llm==0.11.0", "trtllm-0.10"),
    ("TensorRT-LLM 0.12.0", "trtllm"), ("TensorRT-LLM 1.2", "trtllm"),
])
def test_a_stated_release_picks_one_profile_and_no_band(text, key):
    assert catalog.find_engine(text).key == key
    if "/" not in text:  # `--engine` takes a name and its release, not an image tag
        assert catalog.engine(text).key == key
    assert catalog.release_candidates(text) == ()


@pytest.mark.parametrize("text, keys", [
    ("vLLM", ("vllm", "vllm-0.8", "vllm-0.11", "vllm-0.14")),
    ("vllm", ("vllm", "vllm-0.8", "vllm-0.11", "vllm-0.14")),
    ("served with vllm-openai in docker", ("vllm", "vllm-0.8", "vllm-0.11", "vllm-0.14")),
    ("text-generation-inference", ("tgi-1.0", "tgi")), ("TGI", ("tgi-1.0", "tgi")),
    ("TensorRT-LLM", ("trtllm-0.5", "trtllm-xqa8", "trtllm-0.10", "trtllm")),
    ("trtllm-bench", ("trtllm-0.5", "trtllm-xqa8", "trtllm-0.10", "trtllm")),
    # a profile named by a release alias, and engines with one profile: nothing to widen
    ("vllm-v0", ()), ("vllm-0.8", ()), ("vllm-0.11", ()), ("vllm-0.14", ()), ("trtllm-0.9", ()), ("trtllm-mmha", ()),
    ("SGLang", ()), ("llama.cpp", ()),
])
def test_an_engine_named_without_its_release_could_have_run_every_profile(text, keys):
    assert tuple(e.key for e in catalog.release_candidates(text)) == keys


def test_the_unstated_band_covers_every_release_and_centres_on_the_newest():
    """Llama-3-70B TP4 on H100 at batch 1: V0's host step and hand-off make it the slowest release, 0.14's async
    scheduling the fastest; the band of 'vLLM' reaches from the fastest release's low edge to the slowest's high one."""
    model, gpu = catalog.model("llama-3-70b"), catalog.gpu("h100-sxm")
    releases = catalog.release_candidates("vLLM")
    each = {e.key: roofline.predict(model, gpu, Layout(tp=4), engine=e) for e in releases}
    p = roofline.predict_any_build(model, gpu, Layout(tp=4), engine=catalog.engine("vllm"), build_stated=True,
                                   releases=releases)
    newest = each["vllm-0.14"]
    assert p.engine == "vllm-0.14" and p.itl_ms_expected == newest.itl_ms_expected
    step = p.decode_step_ms_expected
    assert step * p.band_low == pytest.approx(min(q.decode_step_ms_expected * q.band_low for q in each.values()))
    assert step * p.band_high == pytest.approx(max(q.decode_step_ms_expected * q.band_high for q in each.values()))
    assert (each["vllm"].decode_step_ms_expected > each["vllm-0.8"].decode_step_ms_expected
            > each["vllm-0.11"].decode_step_ms_expected > step)
    assert RELEASE_UNSTATED in p.assumptions["release"]


def test_a_user_catalog_release_naming_no_profile_is_bad_input(tmp_path):
    extra = tmp_path / "engines.toml"
    extra.write_text('[engine.myvllm]\nname = "my vLLM"\ncuda_graphs = true\nkernels_per_layer = 9\n'
                     'launch_us = 12.0\nhost_ms_per_step = 1.0\nhost_ms_per_request = 5.0\n'
                     'releases = ["0.9=no-such-profile"]\n')
    result = diagnose("predict", "--catalog", extra, "--engine", "myvllm", "--model", "llama-3-8b", "--gpu",
                      "h100-sxm")
    assert result.exit_code == 2 and "releases" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("engine", ["vLLM", "vLLM 0.9.2", "vLLM 0.6.3"])
def test_predict_scaling_and_ticket_expect_the_same_itl_for_the_same_facts(tmp_path, engine):
    """Llama-3.1-8B on one H100, one request, 512-token prompts and 256 output tokens: `predict` gives its ITL at
    the reply's middle (640 tokens); `scaling` of a measured ITL and a ticket's decode rate are judged against the
    same step (they priced it at the full 768 before, 0.2-1 % apart), whatever release is stated or not."""
    layout, row = llama8b_itl_predict_and_scaling(tmp_path, engine.replace("vLLM ", "vllm ").lower(), 7.5)
    assert layout["itl_context"] == 640 and layout["decode_step_ms_expected"] == layout["itl_ms_expected"]
    itl = layout["itl_ms_expected"]
    assert row["expected"] == pytest.approx(itl, abs=1e-4)
    assert (row["band_low"], row["band_high"]) == pytest.approx((layout["band_low"], layout["band_high"]))

    f = measured_vs_expected(tmp_path / "t", "issue.md", f"# slow?\n\nLlama-3.1-8B-Instruct on one H100 SXM with "
                             f"{engine}, one request at a time, prompt length 512 and output length 256: 140 tok/s. "
                             "Is this normal?\n")
    (rate,) = [e for e in f.evidence if e.source.startswith("issue.md") and e.detail.startswith("decode rate")]
    assert rate.expected == pytest.approx(1e3 / itl, abs=0.06)
    assert any(RELEASE_UNSTATED in e.detail for e in f.evidence) is (engine == "vLLM")


@pytest.mark.parametrize("engine, key", [("vllm", "vllm-0.14"), ("vllm 0.9.2", "vllm-0.8"), ("tgi", "tgi"),
                                         ("TGI 1.0.3", "tgi-1.0"), ("sglang", "sglang")])
def test_plan_and_predict_run_the_profile_a_ticket_would(engine, key):
    """`--engine` without a release plans with the newest release's profile, as predict, scaling and a ticket
    expect; with one, that release's."""
    common = ("--model", "llama-3-70b", "--gpu", "h100-sxm", "--engine", engine, "--json")
    plan = diagnose("plan", *common, "--gpus", "8", "--context", "4096", "--concurrency", "8")
    pred = diagnose("predict", *common, "--tp", "4")
    assert plan.exit_code in (0, 1) and pred.exit_code in (0, 1), plan.output + pred.output
    assert json.loads(plan.stdout)["inputs"]["engine"] == json.loads(pred.stdout)["inputs"]["engine"] == key


@pytest.mark.parametrize("gpu, narrowed", [("b200", True), ("rtx-5090", True), ("h100-sxm", False)])
def test_a_release_line_that_never_ran_the_gpu_is_no_candidate(tmp_path, gpu, narrowed):
    """TensorRT-LLM first runs Blackwell (B200, GeForce RTX 50) on v0.17.0 (release notes): TensorRT-LLM named without
    its release on such a GPU ran the newest profile only, so its band is that release's, not v0.5's eager one widened
    in; on Hopper every release line stays a candidate. predict, scaling and a ticket give the one band."""
    model, spec = catalog.model("llama-3-70b"), catalog.gpu(gpu)
    unstated = roofline.predict_any_build(model, spec, Layout(tp=8), engine=catalog.engine("trtllm"),
                                          build_stated=True, releases=catalog.release_candidates("TensorRT-LLM"))
    stated = roofline.predict(model, spec, Layout(tp=8), engine=catalog.engine("TensorRT-LLM 0.17"))
    assert unstated.decode_step_ms_expected == pytest.approx(stated.decode_step_ms_expected)
    same = (unstated.band_low, unstated.band_high) == pytest.approx((stated.band_low, stated.band_high))
    assert same is narrowed

    pred = diagnose("predict", "--model", "llama-3-70b", "--gpu", gpu, "--tp", "8", "--engine", "trtllm", "--json")
    assert pred.exit_code in (0, 1), pred.output
    layout = json.loads(pred.stdout)["predictions"]["layouts"][0]
    assert (layout["band_low"], layout["band_high"]) == pytest.approx((unstated.band_low, unstated.band_high))
    runs = tmp_path / "itl.csv"
    runs.write_text("layout,batch,metric,value,engine\nTP8,1,itl_ms,12,trtllm\n")
    scal = diagnose("scaling", runs, "--model", "llama-3-70b", "--gpu", gpu, "--json")
    assert scal.exit_code in (0, 1), scal.output
    (row,) = json.loads(scal.stdout)["predictions"]["scaling"]["rows"]
    assert (row["band_low"], row["band_high"]) == pytest.approx((layout["band_low"], layout["band_high"]))


@pytest.mark.parametrize("name, newest", [("vLLM", "vllm 0.14"), ("TGI", "tgi 2.0"), ("LMDeploy", "lmdeploy 0.2")])
@pytest.mark.parametrize("gpu", ["b200", "rtx-5090", "h100-sxm"])
def test_release_lines_before_blackwell_kernels_are_no_candidates_there(name, newest, gpu):
    """vLLM before 0.8 (default wheels on CUDA 12.4 until v0.9.0), TGI before 2.0 and TurboMind up to v0.1.0a1 all came
    before CUDA 12.8, the first toolkit that builds Blackwell kernels: on a B200 or RTX 5090 the unstated band drops
    them (vLLM keeps 0.8-0.10 and 0.11-0.13, from v0.9 on), on an H100 they stay."""
    model, spec = catalog.model("llama-3-8b"), catalog.gpu(gpu)
    releases = catalog.release_candidates(name)
    p = roofline.predict_any_build(model, spec, Layout(tp=2), engine=releases[-1], build_stated=True,
                                   releases=releases)
    each = [roofline.predict(model, spec, Layout(tp=2), engine=e) for e in releases]
    kept = [q for q, e in zip(each, releases) if e.key != releases[0].key] if gpu != "h100-sxm" else each
    assert p.engine == catalog.engine(newest).key
    step = p.decode_step_ms_expected
    assert step * p.band_low == pytest.approx(min(q.decode_step_ms_expected * q.band_low for q in kept))
    assert step * p.band_high == pytest.approx(max(q.decode_step_ms_expected * q.band_high for q in kept))
