"""GGUF weights (llama.cpp, Ollama) are predicted with the bytes their blocks hold (rules/catalog/gguf_types.toml,
from ggml-common.h), and predict, plan, scaling and ticket give the same expected figure for the same model, GPU
and GGUF type. The issue texts are written for these tests."""

import json

import pytest
from conftest import diagnose, report_json

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Workload
from rules import catalog, shapes
from rules.subject import Subject
from rules.workload import predict_layout, quant_group


def facts_of(**fields) -> Facts:
    facts = Facts()
    facts.add(Workload("issue.md:3", **fields))
    facts.subject = Subject.of(facts)  # as the engine resolves it before the rules run
    return facts


@pytest.mark.parametrize("name, block_bytes, weights", [
    ("Q4_0", 18, 32), ("Q4_1", 20, 32), ("Q5_0", 22, 32), ("Q5_1", 24, 32), ("Q8_0", 34, 32),
    ("Q2_K", 84, 256), ("Q3_K_M", 110, 256), ("Q4_K_M", 144, 256), ("Q4_K_S", 144, 256), ("Q5_K_M", 176, 256),
    ("Q5_K_S", 176, 256), ("Q6_K", 210, 256), ("IQ4_XS", 136, 256), ("IQ2_XXS", 66, 256), ("F16", 2, 1),
])
def test_each_gguf_type_streams_its_blocks_bytes(name, block_bytes, weights):
    """ggml's static_asserts: block_q5_K is 176 bytes per 256 weights (5.5 bits), block_q6_K 210 (6.5625)."""
    t = catalog.gguf_type(name)
    assert t.bits == pytest.approx(8 * block_bytes / weights)
    assert shapes.bytes_per_param(t.dtype, t.name) * weights == pytest.approx(block_bytes)


def test_gguf_names_as_files_tags_and_options_spell_them():
    assert catalog.named_gguf("llama-2-7b.Q5_K_M.gguf") == "Q5_K_M"
    assert catalog.named_gguf("mistral-7b-instruct-v0.2.q6_k.gguf") == "Q6_K"
    assert catalog.named_gguf("qwen2.5:7b-instruct-q8_0") == "Q8_0"
    assert catalog.named_gguf("llama3.1:8b") == "Q4_K_M"  # Ollama's bare tag is its q4_K_M build
    assert catalog.named_gguf("llama3.1:8b-instruct-fp16") is None
    assert catalog.named_gguf("Llama-3-8B") is None
    assert catalog.gguf_type("q4_k").name == "Q4_K_M" and catalog.gguf_type("iq4_xs").name == "IQ4_XS"
    with pytest.raises(catalog.InputError, match="unknown GGUF type 'Q7_K'"):
        catalog.gguf_type("Q7_K")


def test_a_gguf_model_or_engine_gets_its_type_and_others_keep_the_default():
    assert quant_group(facts_of(model="llama-2-70b.Q4_K_M.gguf", gpu="RTX 3090")) == "Q4_K_M"
    assert quant_group(facts_of(model="llama-2-7b.Q5_K_M.gguf", gpu="RTX 4090")) == "Q5_K_M"
    assert quant_group(facts_of(model="llama-2-7b.Q6_K.gguf", gpu="RTX 4090")) == "Q6_K"
    assert quant_group(facts_of(model="Llama 2 70B Q4", gpu="RTX 3090", framework="llama.cpp")) == "Q4_K_M"
    assert quant_group(facts_of(model="mistral-7b.Q8_0.gguf", gpu="RTX 4090")) == "Q8_0"
    assert quant_group(facts_of(model="llama3.1:8b", gpu="RTX 4090", framework="Ollama")) == "Q4_K_M"
    assert quant_group(facts_of(model="Llama-2-70B-AWQ", gpu="A100", framework="vLLM")) is None
    assert quant_group(facts_of(model="Llama 2 70B", gpu="RTX 3090", framework="llama.cpp")) is None  # 16-bit
    assert quant_group(facts_of(model="llama-2-7b.F16.gguf", gpu="RTX 4090")) is None


def test_gguf_weights_stream_their_block_scales():
    """70B at 4.5 bits a weight streams 6 % more than at AWQ's 4.25 (group 128): on an RTX 3090, whose FP32 rate
    converts the weights faster than they stream, the expected decode is slower by that."""
    gguf = predict_layout(facts_of(model="Llama-2-70B Q4_K_M", gpu="RTX 3090"), 1, 1)
    awq = predict_layout(facts_of(model="Llama-2-70B-AWQ", gpu="RTX 3090"), 1, 1)
    assert gguf.assumptions["quant_group"] == "Q4_K_M" and awq.assumptions["quant_group"] == 128
    ratio = shapes.bytes_per_param("int4", "Q4_K_M") / shapes.bytes_per_param("int4", 128)
    edge = catalog.model("llama-2-70b").lm_head_params() / 1e9  # GGUF: a Q6_K head; AWQ: 16-bit embedding and head
    decoder = (gguf.weights_gb_per_gpu - edge * 6.5625 / 8) / (awq.weights_gb_per_gpu - 2 * edge * 2)
    assert decoder == pytest.approx(ratio, rel=0.002)
    assert gguf.expected_terms["weights_ms"] / awq.expected_terms["weights_ms"] == pytest.approx(ratio, rel=0.02)
    assert gguf.decode_tok_s_expected < awq.decode_tok_s_expected


def test_q5_and_q6_stream_more_than_q4_and_less_than_q8():
    """The defect: Q5_K_M was priced as 4.5 bits and Q6_K as 8.5. The weights' bytes follow the blocks now."""
    gb = {t: predict_layout(facts_of(model=f"Llama-2-7B {t}", gpu="RTX 4090", framework="llama.cpp"), 1, 1)
          .weights_gb_per_gpu for t in ("Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0")}
    assert gb["Q4_K_M"] < gb["Q5_K_M"] < gb["Q6_K"] < gb["Q8_0"]
    decoder = {t: gb[t] - gb["Q4_K_M"] for t in gb}  # the 16-bit embeddings cancel
    assert decoder["Q6_K"] / decoder["Q5_K_M"] == pytest.approx((6.5625 - 4.5) / (5.5 - 4.5), rel=0.01)
    assert decoder["Q8_0"] / decoder["Q5_K_M"] == pytest.approx((8.5 - 4.5) / (5.5 - 4.5), rel=0.01)


def _ticket_expected(tmp_path, text: str) -> tuple[float, float]:
    """The ticket's expected and roofline decode tok/s for `text` (its issue.md)."""
    (tmp_path / "issue.md").write_text(text)
    report = report_json("ticket", tmp_path)
    for f in report["findings"]:
        rows = {e["source"]: e for e in f["evidence"]}
        if "prediction:roofline" in rows and "prediction:expected" in rows:
            measured = next(e for e in f["evidence"] if e["unit"] == "tok/s" and e["measured"] is not None)
            return measured["expected"], rows["prediction:roofline"]["expected"]
    raise AssertionError(f"no expected figure in {[f['title'] for f in report['findings']]}")


def _predict_row(*args) -> list:
    table = next(iter(report_json("predict", "--gpu", "rtx-4090", "--tp", "1", *args)["tables"].values()))
    return dict(zip(table["columns"], table["rows"][0]))


OLLAMA = ["# Ollama slow\n\nollama run llama3.1:8b on one RTX 4090 gives 50 tokens/s. Is this normal?\n",
          "# slow\n\nWith Ollama, llama3.1:8b on a single RTX 4090 generates 50 tok/s at batch 1.\n",
          "# speed\n\nOne RTX 4090, model llama3.1:8b served by ollama: 50 tokens/s decode. Expected?\n"]


@pytest.mark.parametrize("text", OLLAMA)
def test_predict_and_ticket_give_an_ollama_tag_the_same_expected_figure(tmp_path, text):
    expected, roofline = _ticket_expected(tmp_path, text)
    row = _predict_row("--model", "llama3.1:8b")
    (layout,) = report_json("predict", "--gpu", "rtx-4090", "--tp", "1", "--model", "llama3.1:8b")["predictions"][
        "layouts"]
    # the ticket judges a measured rate at the full context, as scaling does (predict's tok/s/seq: at the ITL's)
    assert layout["decode_tok_s_expected"] == pytest.approx(expected, abs=0.05)
    assert 1000 / row["ITL roofline"] == pytest.approx(roofline, rel=0.01)


LLAMA_CPP = ["# llama.cpp slow on RTX 4090\n\nllama.cpp with llama-2-7b.{q}.gguf fully offloaded (-ngl 99) on one RTX "
             "4090. Generation speed is 60 tokens/s at batch 1. Is this normal?\n",
             "# slow gguf\n\nRunning llama-2-7b.{q}.gguf in llama.cpp on a single RTX 4090, all layers on the GPU: "
             "60 tok/s when generating.\n",
             "# question\n\nOne RTX 4090, llama.cpp server, model llama-2-7b.{q}.gguf: 60 tokens/s generation.\n"]


@pytest.mark.parametrize("quant", ["Q5_K_M", "Q6_K", "Q8_0", "Q4_K_M", "F16", "BF16"])  # 16-bit GGUF: llama.cpp too
@pytest.mark.parametrize("text", LLAMA_CPP)
def test_predict_quant_and_ticket_give_a_gguf_file_the_same_expected_figure(tmp_path, text, quant):
    expected, _ = _ticket_expected(tmp_path, text.format(q=quant))
    (layout,) = report_json("predict", "--gpu", "rtx-4090", "--tp", "1", "--model", "llama-2-7b", "--quant",
                            quant)["predictions"]["layouts"]
    assert layout["decode_tok_s_expected"] == pytest.approx(expected, abs=0.05)


def test_plan_takes_the_same_quant_and_the_same_figure():
    row = _predict_row("--model", "llama-2-7b", "--quant", "Q5_K_M")
    plan = report_json("plan", "--model", "llama-2-7b", "--gpu", "rtx-4090", "--gpus", "1", "--context", "1280",
                       "--prompt", "1024", "--quant", "Q5_K_M")
    assert plan["inputs"]["quant"] == "Q5_K_M" and plan["inputs"]["dtype"] == "int4"
    text = json.dumps(plan["tables"])
    assert f"{row['tok/s/seq']}" in text  # the per-user tok/s of its one-GPU layout
    q4 = report_json("plan", "--model", "llama-2-7b", "--gpu", "rtx-4090", "--gpus", "1", "--context", "1280",
                     "--prompt", "1024", "--quant", "Q4_K_M")
    assert json.dumps(q4["tables"]) != text


def test_a_quant_the_dtype_contradicts_or_that_does_not_exist_is_bad_input():
    for args in (["--quant", "Q5_K_M", "--dtype", "bf16"], ["--quant", "Q7_K"],
                 ["--quant", "Q4_K_M", "--quant-group", "64"]):
        result = diagnose("predict", "--model", "llama-2-7b", "--gpu", "rtx-4090", "--tp", "1", *args)
        assert result.exit_code == 2, result.output
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_scaling_takes_the_same_quant(tmp_path):
    csv = tmp_path / "runs.csv"
    csv.write_text("layout,batch,metric,value\nTP1,1,decode_tok_s,60\n")
    args = ["scaling", csv, "--model", "llama-2-7b", "--gpu", "rtx-4090"]
    for quant in ("Q5_K_M", "Q8_0"):
        table = next(iter(report_json(*args, "--quant", quant)["tables"].values()))
        row = dict(zip(table["columns"], table["rows"][0]))
        (predicted,) = report_json("predict", "--gpu", "rtx-4090", "--tp", "1", "--model", "llama-2-7b", "--quant",
                                   quant)["predictions"]["layouts"]
        # scaling's expected step for a decode rate is predict's step at the full context (its own --context)
        assert row["expected ms"] == pytest.approx(predicted["decode_step_ms_expected"], rel=0.002)


def test_read_bundle_keeps_the_type_of_a_tag(tmp_path):
    (tmp_path / "issue.md").write_text("# slow\n\nollama run qwen2.5:7b-instruct-q8_0 on one RTX 4090: 40 tok/s.\n")
    assert quant_group(read_bundle([tmp_path])) == "Q8_0"


def test_the_ticket_says_which_gguf_type_it_priced(tmp_path):
    (tmp_path / "issue.md").write_text(LLAMA_CPP[0].format(q="Q6_K"))
    details = [e["detail"] for f in report_json("ticket", tmp_path)["findings"] for e in f["evidence"]]
    assert "GGUF Q6_K weights: 6.5625 bits a weight (block_q6_K, rules/catalog/gguf_types.toml)" in details


@pytest.mark.parametrize("text", LLAMA_CPP[:2])
def test_scaling_on_a_ticket_prices_the_type_its_text_names(tmp_path, text):
    """The same ticket folder gives the same expected step in `ticket` and `scaling`."""
    expected, _ = _ticket_expected(tmp_path, text.format(q="Q6_K"))
    row = report_json("scaling", tmp_path, "--tp-of", f"{tmp_path}=1")["predictions"]["scaling"]["rows"][0]
    assert row["dtype"] == "int8" and 1000 / row["expected_ms"] == pytest.approx(expected, rel=0.002)


# llama.cpp's quantize (src/llama-quant.cpp, llama_tensor_get_type_impl and llama_ftype_get_default_type,
# https://github.com/ggml-org/llama.cpp/blob/master/src/llama-quant.cpp): output.weight (and a tied token_embd) is
# Q6_K in every mix but Q8_0 (kept) and the 1-3 bit IQ mixes (Q5_K); an untied token_embd keeps the mix's default
# block (Q4_K in Q4_K_M), except IQ1/IQ2_XS/IQ2_XXS (Q2_K) and IQ2_S/IQ2_M/IQ3_XXS (IQ3_S). llama.cpp keeps the input
# layer on the CPU (src/llama-model.cpp: "there is very little benefit to offloading the input layer").
@pytest.mark.parametrize("mix, embd, output", [
    ("Q4_K_M", "Q4_K_M", "Q6_K"), ("Q5_K_S", "Q5_K_S", "Q6_K"), ("Q3_K_L", "Q3_K_L", "Q6_K"), ("Q4_0", "Q4_0", "Q6_K"),
    ("Q6_K", "Q6_K", "Q6_K"), ("Q8_0", "Q8_0", "Q8_0"), ("IQ2_XXS", "Q2_K", "Q5_K_M"), ("IQ3_XXS", "IQ3_S", "Q5_K_M"),
    ("IQ4_XS", "IQ4_XS", "Q6_K"), ("F16", "F16", "F16"),
])
def test_each_mix_stores_token_embd_and_output_as_llama_quant_picks(mix, embd, output):
    t = catalog.gguf_type(mix)
    assert t.embd_bits == catalog.gguf_type(embd).bits and t.output_bits == catalog.gguf_type(output).bits


def test_llama31_8b_q4_k_m_on_a_gpu_holds_the_q6_k_head_and_not_the_embeddings():
    """ut5 item 5: Llama 3.1 8B Q4_K_M (Ollama's llama3.1:8b, a 4.9 GB file) was priced at 6.03 GB per GPU with
    a 16-bit embedding and LM head (2 x 1.05 GB). On the GPU: the decoder at the Q4_K floor (4.5 bits), the output
    at Q6_K (6.5625 bits), no token_embd (host memory); the LM head streams at Q6_K each step."""
    m = catalog.model("llama3.1:8b")
    edge = m.vocab * m.hidden  # 128256 x 4096
    rep = report_json("predict", "--model", "llama3.1:8b", "--gpu", "rtx-4090", "--quant", "Q4_K_M")
    p = rep["predictions"]["layouts"][0]
    decoder = shapes.decoder_bytes_per_rank(m, 1, "int4", group="Q4_K_M")
    assert p["weights_gb_per_gpu"] == pytest.approx((decoder + edge * 6.5625 / 8) / 1e9, abs=0.01)
    assert 4.0 < p["weights_gb_per_gpu"] < 4.92  # below the file: token_embd stays in host memory
    # each step streams what the GPU holds (the Q6_K head included, no embedding) and the KV cache
    assert 0 <= p["streamed_gb_per_step"] - p["weights_gb_per_gpu"] < 0.2


def test_llama31_8b_q4_k_m_at_8k_fits_an_8_gb_card():
    """ut5 item 5: Ollama runs llama3.1:8b fully on an 8 GB GPU; it was called 'does not fit (-0.7 GB)'."""
    rep = report_json("predict", "--model", "llama3.1:8b", "--gpu", "rtx-3070", "--tp", 1, "--quant", "Q4_K_M",
                      "--context", 8192)
    assert rep["predictions"]["layouts"][0]["fits"]
    assert not [f for f in rep["findings"] if f["rule"] == "predict.does_not_fit"]


@pytest.mark.parametrize("args", [("--model", "llama-2-7b", "--quant", "F16"),
                                  ("--model", "llama-2-7b", "--quant", "BF16"),
                                  ("--model", "llama3.1:8b-instruct-fp16")])
def test_16_bit_gguf_weights_take_the_llama_cpp_profile(args):
    # README: predict and plan take the llama.cpp profile for GGUF weights; F16/BF16 files and 16-bit Ollama tags are
    # GGUF weights as much as Q4_K_M is (they got the generic engine)
    row = report_json("predict", "--gpu", "rtx-4090", "--tp", "1", *args)["predictions"]["layouts"][0]
    assert row["engine"] == "llamacpp" and row["dtype"] in ("fp16", "bf16")
