"""llama.cpp's engine profile (issue 10, for issue 11's consumer-GPU tickets), against its own published runs.

- The names people run llama.cpp under (llama-server, Ollama, LM Studio, ...) pick the profile, and a GPU
  without BF16 tensor cores (compute capability < 8.0, where llama.cpp keeps CUDA graphs off) its eager twin;
  the ticket's finding names the profile.
- Each part of the profile is needed by a real published row: CUDA graphs (PR 6766's before/after pair),
  fp16 GEMMs over GGUF weights (a V100 prompt that would beat a bf16 roofline), INT8 dot products (a P40
  prompt that beats its FP32 rate).
- The mechanisms behind its expected figures, each against the rows it explains: FP16-accumulate GEMMs on
  GeForce, the INT8 (MMQ) path on a P40, the 2-3 bit K-quants' unpacking work, a quantised prompt's F16 copy.
"""

import dataclasses
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose import published
from diagnose.cli import cli
from rules import catalog

DATA = Path(__file__).parent / "data"
PUBLISHED = DATA / "published"
TICKETS = DATA / "tickets"


def _rows(table: str):
    return published.read(PUBLISHED / table)


@pytest.mark.parametrize("framework", ["llama.cpp", "Ollama 0.5.7", "ollama/ollama:latest", "llama-server",
                                       "llama-bench b3000", "llama-cpp-python 0.2.90", "LM Studio 0.3.5",
                                       "lmstudio", "koboldcpp 1.70"])
def test_llamacpp_names_pick_the_profile(framework):
    assert catalog.find_engine(framework).key == "llamacpp"


@pytest.mark.parametrize("framework,key", [("vLLM 0.6.3", "vllm"), ("SGLang v0.4.1", "sglang"),
                                           ("TensorRT-LLM 0.9", "trtllm-xqa8")])
def test_other_engines_keep_theirs(framework, key):
    """The two-word lookup (LM Studio) does not swallow a name followed by its version."""
    assert catalog.find_engine(framework).key == key


def _ticket(folder) -> str:
    result = CliRunner().invoke(cli, ["ticket", str(folder)])
    assert result.exit_code in (0, 1), result.output
    return result.output


@pytest.mark.parametrize("gpu,profile", [("Tesla P40", "llamacpp-eager profile, tesla-p40"),
                                         ("RTX 3090", "llamacpp profile, rtx-3090")])
def test_ticket_names_the_llamacpp_profile_by_gpu_generation(tmp_path, gpu, profile):
    (tmp_path / "issue.md").write_text(
        f"# llama.cpp slow on {gpu}?\n\nI run llama-2-7b Q4_0 with llama.cpp (llama-server, all layers offloaded) "
        f"on one {gpu} and get 40 tok/s when generating. Is this normal?\n")
    assert f"expected band ({profile})" in _ticket(tmp_path)


def test_llamacpp_named_inside_chinese_text():
    """'在llama.cpp上推理' (no space around the name): a real ticket, judged with the llama.cpp profile."""
    out = _ticket(TICKETS / "u8a02-minicpm-agx-orin-llamacpp-q4km-25-tps-zh")
    assert "expected band (llamacpp profile, agx-orin-64gb)" in out
    assert "expected_physics" in out


def test_cuda_graphs_pair_from_pr_6766():
    """The same GPU and model before (master, host launches) and after CUDA graphs: the graph profile expects the
    faster decode, and each measurement sits inside its own profile's band."""
    rows = _rows("llamacpp-pr6766-cuda-graphs-rtx3090-rtx4090.csv")
    for gpu in ("rtx-3090", "rtx-4090"):
        eager, graphs = (next(r for r in rows if r.gpu == gpu and r.engine == e)
                         for e in ("llamacpp-eager", "llamacpp"))
        e_eager, e_graphs = published.expect(eager), published.expect(graphs)
        assert e_graphs.expected > e_eager.expected
        assert e_eager.verdict(eager.value) == "inside" and e_graphs.verdict(graphs.value) == "inside"


def test_gguf_type_in_a_published_row():
    rows = _rows("llamacpp-pr4766-p40-llama-7b-quants.csv")
    q4ks = next(r for r in rows if r.dtype == "Q4_K_S")
    assert published.weights(q4ks) == ("int4", "Q4_K_S")
    rtx = _rows("llamacpp-pr4766-rtx4090-codellama-7b.csv")
    f16, q8 = (next(r for r in rtx if r.dtype == d and r.metric == "decode_tok_s") for d in ("F16", "Q8_0"))
    # F16 streams 2 bytes a weight, Q8_0 34 per 32: the expected rates keep the measured order
    assert published.expect(q8).expected > published.expect(f16).expected and q8.value > f16.value


def test_fp16_gemms_keep_the_v100_prompt_above_the_roofline():
    """llama.cpp multiplies GGUF weights in fp16: with bf16 (the FP32 rate on a V100) the published prompt
    would be faster than physics allows."""
    row = next(r for r in _rows("llamacpp-pr12183-v100-qwen2.5-3b.csv") if r.metric == "ttft_ms")
    bf16 = dataclasses.replace(catalog.engine("llamacpp-eager"), gemm_dtype="")
    assert published.expect(row, engine=bf16).verdict(row.value) == "faster_than_roofline"
    assert published.expect(row).verdict(row.value) != "faster_than_roofline"


def test_int8_dot_products_keep_the_p40_prompt_above_the_roofline():
    """A P40 ran LLaMA-7B Q4_0's 512-token prompt above its FP32 rate: MMQ's INT8 dot products (47 TOPS)."""
    row = next(r for r in _rows("llamacpp-pr4766-p40-llama-7b-quants.csv")
               if r.metric == "ttft_ms" and r.dtype == "Q4_0")
    no_int8 = dataclasses.replace(catalog.engine("llamacpp-eager"), int8_gemm=False)
    assert published.expect(row, engine=no_int8).verdict(row.value) == "faster_than_roofline"
    assert published.expect(row).verdict(row.value) != "faster_than_roofline"


def test_layer_split_over_four_gpus_is_slower_than_one_gpu_roofline_allows():
    """-sm layer on 4x RTX 4090: one stream visits the GPUs in turn, so its bound is one GPU streaming every
    weight, not four: the published 4-GPU decode sits below one 4090's roofline."""
    row = next(r for r in _rows("llamacpp-pr19378-4x-rtx4090-layer-split.csv") if r.metric == "decode_tok_s")
    e = published.expect(row)
    one = published.expect(dataclasses.replace(row, pp=1))
    assert e.roofline <= one.roofline * 1.001 and row.value < e.roofline


def test_gguf_weights_default_to_the_llamacpp_profile():
    """A GGUF file is llama.cpp's format: with no engine named it runs there (eager below compute capability 8.0
    before b10042, below 7.0 always); a named engine is kept."""
    rtx, v100 = catalog.gpu("rtx-4090"), catalog.gpu("v100-pcie-16gb")
    assert catalog.run_engine(None, rtx, "Q4_K_M").key == "llamacpp"
    assert catalog.run_engine(None, v100, "Q4_0", ["b4000"]).key == "llamacpp-eager"
    assert catalog.run_engine(None, rtx).key == "generic"
    assert catalog.run_engine("vllm", v100, "Q4_0").key == "vllm"


@pytest.mark.parametrize("key, profile", [
    # (review st 9) Turing is compute capability 7.5 whatever its bf16 row says: ggml-cuda kept graphs off below 8.0
    # until b10042 (PR 25749, Volta and Turing; engines.toml graphs_since_build); Pascal stays below the gate
    ("rtx-2080-ti", "llamacpp-eager"), ("t4", "llamacpp-eager"), ("titan-rtx", "llamacpp-eager"),
    ("quadro-rtx-6000", "llamacpp-eager"), ("gtx-1080-ti", "llamacpp-eager"), ("tesla-p40", "llamacpp-eager"),
    ("rtx-3060", "llamacpp"), ("a10", "llamacpp"), ("l4", "llamacpp"), ("rtx-5090", "llamacpp"),
    ("agx-orin-64gb", "llamacpp"),
])
def test_llamacpp_graphs_follow_the_compute_capability(key, profile):
    assert catalog.run_engine(None, catalog.gpu(key), "Q4_K_M", ["b10041"]).key == profile


@pytest.mark.parametrize("key, profile", [
    ("rtx-2080-ti", "llamacpp"), ("t4", "llamacpp"), ("v100-pcie-16gb", "llamacpp"), ("tesla-p40", "llamacpp-eager"),
    ("gtx-1080-ti", "llamacpp-eager"), ("rtx-3060", "llamacpp"),
])
def test_volta_and_turing_run_graphs_from_b10042(key, profile):
    for builds in (["b10042"], ["2026-08"], []):  # unstated: the engine as named, judged against both bands
        assert catalog.run_engine(None, catalog.gpu(key), "Q4_K_M", builds).key == profile


def test_a_row_without_its_compute_capability_keeps_the_graphs():
    turing = catalog.gpu("rtx-2080-ti")
    assert catalog.run_engine(None, dataclasses.replace(turing, compute_capability=0.0), "Q4_K_M").key == "llamacpp"


def test_every_catalog_gpu_states_a_compute_capability_its_datasheet_rates_agree_with():
    """NVIDIA's table for every row; FP8 tensor cores arrive with Ada (8.9) and Hopper (9.0), so a row with an FP8
    rate below 8.9 would be a wrong capability or a wrong rate."""
    for g in catalog.gpus().values():
        assert 3.0 <= g.compute_capability <= 12.1, g.key
        assert not (g.fp8_tflops and g.compute_capability < 8.9), g.key


def test_predict_names_the_profile_it_took_for_a_quant():
    import json

    result = CliRunner().invoke(cli, ["predict", "--model", "llama-2-7b", "--gpu", "tesla-p40", "--tp", "1",
                                      "--quant", "Q4_0", "--json"])
    assert result.exit_code in (0, 1), result.output
    assert json.loads(result.stdout)["inputs"]["engine"] == "llamacpp-eager"


def _row(table: str, metric: str, dtype: str):
    return next(r for r in _rows(table) if r.metric == metric and r.dtype == dtype)


def test_fp16_accumulate_explains_the_rtx4090_f16_prompt():
    """ggml-cuda's cuBLAS GEMMs accumulate in FP16, which a GeForce board runs at twice its FP32-accumulate rate:
    at the FP32-accumulate rate the published 512-token F16 prompt on an RTX 4090 is far faster than expected."""
    row = _row("llamacpp-pr4766-rtx4090-codellama-7b.csv", "ttft_ms", "F16")
    acc32 = dataclasses.replace(catalog.engine("llamacpp-eager"), gemm_accumulate="")
    assert published.expect(row, engine=acc32).verdict(row.value) == "faster"
    e = published.expect(row)
    assert e.verdict(row.value) == "inside"
    assert e.roofline < published.expect(row, engine=acc32).roofline  # the bound takes the faster path too


def test_fp16_accumulate_rate_is_twice_on_geforce_only():
    """The whitepapers' two figures per GeForce RTX board; data-centre boards accumulate in FP32 at full rate."""
    gpus = catalog.gpus()
    assert gpus["rtx-4090"].tflops("fp16acc16") == pytest.approx(330.3)
    assert gpus["rtx-3090"].tflops("fp16acc16") == pytest.approx(142)
    for key in ("a100-80gb-sxm", "v100-pcie-16gb", "tesla-p40", "rtx-a6000"):
        assert gpus[key].tflops("fp16acc16") == gpus[key].tflops("fp16")
    for gpu in gpus.values():
        if gpu.fp16_acc16_tflops:
            assert gpu.name.startswith("GeForce RTX")
            assert gpu.fp16_acc16_tflops == pytest.approx(2 * gpu.fp16_tflops, rel=1e-3)


@pytest.mark.parametrize("dtype", ["Q4_0", "Q4_1", "Q5_0", "Q4_K_S"])
def test_int8_dot_products_explain_the_p40_prompts(dtype):
    """A P40 (FP16 at 1/64 of FP32) runs a quantised prompt on MMQ's INT8 dot products: the expected figure takes
    that path, where the 16-bit one would put every published prompt far slower than measured."""
    row = _row("llamacpp-pr4766-p40-llama-7b-quants.csv", "ttft_ms", dtype)
    sixteen = dataclasses.replace(catalog.engine("llamacpp-eager"), int8_gemm=False)
    assert published.expect(row, engine=sixteen).expected > 1.4 * row.value
    assert published.expect(row).verdict(row.value) == "inside"


def test_low_bit_k_quant_unpacking_explains_the_p40_decode():
    """Q2_K / Q3_K_S decode on a P40 runs at less than half its weight stream: the unpacking work of the 2-3 bit
    K-quant family (calibration.toml [dequant] gguf_k_low) outlasts the stream; the legacy types' does not."""
    cal = catalog.calibration()
    without = dataclasses.replace(cal, dequant_ops={k: v for k, v in cal.dequant_ops.items() if k != "gguf_k_low"})
    table = "llamacpp-pr4766-p40-llama-7b-quants.csv"
    for dtype in ("Q2_K", "Q3_K_S"):
        row = _row(table, "decode_tok_s", dtype)
        with catalog.trial_calibration(without):
            assert published.expect(row).verdict(row.value) == "slower"
        assert published.expect(row).verdict(row.value) == "inside"
    q4 = _row(table, "decode_tok_s", "Q4_0")
    with catalog.trial_calibration(without):
        before = published.expect(q4).expected
    assert published.expect(q4).expected == before


@pytest.mark.parametrize("dtype", ["Q8_0", "Q4_0"])
def test_the_f16_copy_explains_the_rtx4090_quantised_prompts(dtype):
    """A quantised prompt on a GPU with tensor cores goes to cuBLAS through an F16 copy of each matrix: without
    its traffic the published RTX 4090 prompts would be far slower than expected."""
    row = _row("llamacpp-pr4766-rtx4090-codellama-7b.csv", "ttft_ms", dtype)
    no_copy = dataclasses.replace(catalog.engine("llamacpp-eager"), f16_copy_tokens=0)
    assert published.expect(row, engine=no_copy).verdict(row.value) == "slower"
    assert published.expect(row).verdict(row.value) == "inside"


# the fit prompt rows of builds from b3216 (MMQ by default), one GPU each
MMQ_FIT = [("llamacpp-pr24127-rtx4090-llama-3-8b-q4ks-mmq.csv", "rtx-4090"),
           ("llamacpp-lhl-rtx3090-rtx4090-mistral-7b-b4006.csv", "rtx-3090"),
           ("llamacpp-lhl-rtx3090-rtx4090-mistral-7b-b4006.csv", "rtx-4090")]


def _cublas(row):
    """The row's profile with MMQ's INT8 tensor-core path off: the F16 copy and cuBLAS of builds before b3216."""
    return dataclasses.replace(catalog.build_profile(catalog.engine(row.engine), row.builds), int8_mma_cc=0.0)


@pytest.mark.parametrize("table,gpu", MMQ_FIT)
def test_mmq_on_int8_tensor_cores_explains_the_prompts_of_builds_from_b3216(table, gpu):
    """From b3216 a quantised prompt on Turing and newer runs on MMQ's INT8 tensor cores: priced on the cuBLAS path
    of earlier builds these published prompts ran far faster than the band allows; on MMQ they sit inside it."""
    row = next(r for r in _rows(table) if r.metric == "ttft_ms" and r.gpu == gpu)
    assert published.expect(row, engine=_cublas(row)).verdict(row.value) == "faster"
    assert published.expect(row).verdict(row.value) == "inside"


def test_mmq_follows_the_stated_build():
    """A stated build before b3216 keeps the cuBLAS path (the A40's b2833, whose notebooks print
    'GGML_CUDA_FORCE_MMQ: no'); one at or after it, or none stated, runs MMQ; a month spanning 2024-06-24 decides
    nothing, so the newest builds' path is taken."""
    eng = catalog.engine("llamacpp")
    assert catalog.mmq_build(eng, ("b2833",)).int8_mma_cc == 0
    assert catalog.mmq_build(eng, ("2024-05",)).int8_mma_cc == 0
    for builds in (("b3216",), ("b6413",), (), ("2024-06",), ("b3000", "b4000")):
        assert catalog.mmq_build(eng, builds).int8_mma_cc == eng.int8_mma_cc == 7.5
    row = _row("llamacpp-xiongjiedai-a40-layer-split-2024-05.csv", "ttft_ms", "Q4_K_M")
    assert row.builds == ("b2833",)
    assert published.expect(row).expected == published.expect(row, engine=_cublas(row)).expected


def test_the_a40_70b_prompt_is_no_mmq_effect():
    """The A40's 70B Q4_K_M prompt (b2833) ran 1.85x the expected time. Had it run MMQ (a later build), the expected
    time would be shorter still: the mechanism points the other way, so it cannot explain the miss."""
    row = next(r for r in _rows("llamacpp-xiongjiedai-a40-layer-split-2024-05.csv")
               if r.metric == "ttft_ms" and r.dtype == "Q4_K_M" and r.model == "llama-3-70b" and r.pp == 1)
    a40 = dataclasses.replace(catalog.gpu("a40"), int8_tops=299.3)  # GA102 whitepaper: A40 INT8 tensor, dense
    from rules.expectations import expectation
    from rules.roofline import Layout, predict

    def ttft(engine):
        p = predict(catalog.model(row.model), a40, Layout(), engine=engine, batch=1, prompt=512, output=1,
                    dtype="int4", quant_group="Q4_K_M")
        return expectation("ttft_ms", p).expected

    mmq, cublas = ttft(catalog.engine("llamacpp")), ttft(_cublas(row))
    assert mmq < cublas < row.value


@pytest.mark.parametrize("gpu,mma", [("rtx-2080-ti", True), ("rtx-4090", True), ("rtx-pro-6000-blackwell", True),
                                     ("v100-pcie-16gb", False), ("tesla-p40", False)])
def test_mmq_tensor_cores_need_turing(gpu, mma):
    """ggml_cuda_should_use_mmq: INT8 mma from compute capability 7.5; a V100 (FP16 tensor cores, no INT8 mma) hands
    a prompt to cuBLAS, a P40 runs MMQ on __dp4a (its own path, int8_gemm_efficiency)."""
    from rules import step_model

    g = catalog.gpu(gpu)
    # a board the catalog gives no INT8 rate gets one here: the gate under test is the compute capability
    g = g if g.int8_tops else dataclasses.replace(g, int8_tops=2 * g.tflops("fp16acc16"))
    s = step_model.Setting(catalog.model("llama-3-8b"), g, catalog.engine("llamacpp"), catalog.calibration(), 1,
                           "int4", "fp16", catalog.interconnects()[g.interconnect])
    assert s.int8_mma is mma


@pytest.mark.parametrize("gpu,builds,dtype,says", [
    ("rtx-4090", (), "Q4_K_M", "MMQ on INT8 tensor cores (llama.cpp from b3216): 37% of 660.6 INT8 TOPS"),
    ("rtx-4090", ("b2824",), "Q4_K_M", "an F16 copy of the weights, then cuBLAS"),
    ("tesla-p40", (), "Q4_0", "MMQ on INT8 dot products"),
    ("rtx-2000-ada-test", (), "Q4_K_M", "gpus.toml lists no INT8 rate"),
    ("t4", (), "Q4_K_M", "of 130 INT8 TOPS"),  # Turing: NVIDIA's T4 page gives the INT8 rate
    ("rtx-4080", (), "Q4_K_M", "gpus.toml lists no INT8 rate"),  # no NVIDIA source found for its INT8 rate
    ("rtx-4090", (), "F16", None)])
def test_predict_says_which_path_a_quantised_prompt_takes(gpu, builds, dtype, says):
    """The summary's "GEMMs at N % of the tensor rate" is the 16-bit path's: a quantised prompt's own path and rate
    are said beside it (assumptions prompt_gemm), and a board without an INT8 rate says it is priced without MMQ."""
    from diagnose import published as pub
    from rules.roofline import Layout, predict

    g = (dataclasses.replace(catalog.gpu("rtx-4090"), int8_tops=0.0, name="a board without an INT8 rate")
         if gpu == "rtx-2000-ada-test" else catalog.gpu(gpu))
    row = dataclasses.replace(_row("llamacpp-pr24127-rtx4090-llama-3-8b-q4ks-mmq.csv", "ttft_ms", "Q4_K_S"),
                              dtype=dtype, builds=builds)
    dt, group = pub.weights(row)
    eng = catalog.run_engine("llamacpp", g, builds=builds)
    p = predict(catalog.model("llama-3-8b"), g, Layout(), engine=eng, prompt=512, output=1, dtype=dt,
                quant_group=group)
    assert (p.assumptions["prompt_gemm"] or None) == says or says in p.assumptions["prompt_gemm"]


def test_int8_rates_are_dense():
    """INT8 tensor rate = twice the FP16-accumulate tensor rate on Turing to Blackwell (NVIDIA's whitepapers: the RTX
    Blackwell one gives the RTX 5090 838 INT8 TOPS beside 419 FP16-accumulate TFLOPS); a sparse figure entered by
    mistake would read 2x, a GeForce FP32-accumulate one 0.5x."""
    checked = set()
    for key, g in catalog.gpus().items():
        if g.int8_tops and 7.5 <= g.compute_capability:
            checked.add(key)
            assert 0.98 <= g.int8_tops / (2 * g.tflops("fp16acc16")) <= 1.02, key
    assert {"rtx-3090-ti", "rtx-5090", "b200"} <= checked


def test_mmq_activations_travel_as_q8_1():
    """quantize_mmq_q8_1 reads the F32 activations and writes 1.125 bytes a value (block_q8_1_mmq: 128 int8 values
    and 16 bytes of scales), the kernel reads those and writes F32 results."""
    from rules import shapes, step_model

    mat = shapes.layer_matrices(catalog.model("llama-3-8b"), 1, False, 0.0, False)[0]
    assert step_model.mmq_activation_bytes(512, mat) == 512 * (mat.k * (4 + 2 * 144 / 128) + mat.n * 4)


def test_the_committed_llamacpp_constants_are_the_fits(monkeypatch):
    """int8_gemm_efficiency and [dequant] gguf_k_low are what `scripts/fit_predictor.py --only-engine llamacpp
    --hold host_ms_per_step,kernel_overhead_us,host_ms_per_request` finds on the llamacpp fit rows, not figures set
    by hand (host_ms_per_request stays the 1 ms set a priori)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fit_predictor", Path(__file__).parent.parent / "scripts"
                                                  / "fit_predictor.py")
    fitter = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "fit_predictor", fitter)  # its dataclasses look their module up
    spec.loader.exec_module(fitter)
    trial, _ = fitter.fit(verbose=False, only="llamacpp",
                          hold=("host_ms_per_step", "kernel_overhead_us", "host_ms_per_request"))
    eng = catalog.engine("llamacpp")
    assert trial.engines["llamacpp"].int8_gemm_efficiency == pytest.approx(eng.int8_gemm_efficiency, rel=0.01)
    assert trial.engines["llamacpp-eager"].int8_gemm_efficiency == trial.engines["llamacpp"].int8_gemm_efficiency
    assert trial.engines["llamacpp"].int8_mma_efficiency == pytest.approx(eng.int8_mma_efficiency, rel=0.01)
    assert trial.get(("dequant", "gguf_k_low")) == pytest.approx(catalog.calibration().dequant_ops["gguf_k_low"],
                                                                 rel=0.01)
    assert trial.engines["llamacpp"].host_ms_per_step == eng.host_ms_per_step  # held
