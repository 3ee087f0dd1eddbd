"""One model name, the same weights in every command: `ticket` (rules.workload.weight_dtype), `predict`, `plan`,
`scaling` (diagnose.commands.options.weights), a published-style table with its dtype cell empty, and `capture` all
read a quantised checkpoint's name through rules.catalog.named_weights. The names are the checkpoints' documented
conventions (the sources are cited beside diagnose.artifacts.text.QUANT_DTYPES); none is a case the tool was fitted
on."""

import json

import pytest
from conftest import REPO, diagnose

from diagnose.commands.options import weights
from diagnose.evidence import Facts, Workload
from rules import catalog
from rules.workload import weight_dtype

# (name as its publisher spells it, the weights it stores)
NAMED = [
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", "int4"),  # Qwen's AWQ docs
    ("TheBloke/Llama-2-70B-Chat-AWQ", "int4"),
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "int4"),  # Qwen's GPTQ docs: the bits after the method
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "int8"),
    ("TheBloke/Llama-2-70B-GPTQ", "int4"),  # a bare GPTQ: the 4-bit main branch
    ("TheBloke/Llama-2-70B-GPTQ:gptq-8bit-128g-actorder_True", "int8"),  # the bits in the branch name
    ("TheBloke/Llama-2-70B-GPTQ:gptq-3bit-128g-actorder_True", "int4"),  # 3 bits: nearer 4 than 8
    ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", "fp8"),
    ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "fp8"),  # llm-compressor's FP8_DYNAMIC
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "int4"),  # llm-compressor schemes
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", "int8"),
    ("RedHatAI/Llama-3.3-70B-Instruct-W8A8-FP8", "fp8"),  # W8A8 in FP8, not INT8
    ("unsloth/Meta-Llama-3.1-8B-Instruct-bnb-4bit", "int4"),  # Unsloth's bitsandbytes uploads
    ("unsloth/Llama-3.3-70B-Instruct-unsloth-bnb-4bit", "int4"),
    ("turboderp/Llama-3-70B-Instruct-exl2", "int4"),  # EXL2 without its rate: the common ~4 bits
    ("LoneStriker/Mixtral-8x7B-Instruct-v0.1-3.5bpw-h6-exl2", "int4"),  # EXL2 with its bits per weight
    ("Llama-3-70B-Instruct-exl2-6.0bpw", "int8"),
    ("Llama-3-70B-Instruct-8.0bpw-h8-exl2", "int8"),
    ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "int4"),  # GGUF types (llama.cpp's quantize README)
    ("Meta-Llama-3.1-8B-Instruct-IQ4_XS.gguf", "int4"),
    ("llama-2-7b.Q6_K.gguf", "int8"),
    ("Meta-Llama-3.1-8B-Instruct-Q8_0.gguf", "int8"),
]

# a quantisation word, or a digit before a unit, inside something else: no weights stated
NOT_NAMED = [
    "microsoft/Phi-3-mini-4k-instruct",  # 4k context, not 4-bit
    "deepseek-ai/deepseek-coder-6.7b-instruct",  # 6.7B parameters
    "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "meta-llama/Meta-Llama-3-8B",
    "Squawq-7B",  # 'awq' inside a word
    "Mint8-7B",  # 'int8' inside a word
    "Llama-3-70B-16bit-merge",  # 16 bits is no 6-bit quantisation
]

# a name that states 16-bit weights says so, as a quantisation does
SIXTEEN = [("Meta-Llama-3.1-8B-Instruct-bf16", "bf16"), ("Qwen2.5-7B-Instruct-fp16", "fp16"),
           ("llama3.1:8b-instruct-fp16", "fp16")]


@pytest.mark.parametrize(("name", "dtype"), NAMED + SIXTEEN)
def test_every_command_reads_the_same_weights_from_a_name(name, dtype):
    assert catalog.named_weights(name) == dtype
    said = weights(name, None, None)
    ticket = weight_dtype(Facts(records=[Workload("ticket.toml:3", model=name)]))
    assert (said.dtype, said.how) == (dtype, "stated") and ticket == dtype


@pytest.mark.parametrize("name", NOT_NAMED)
def test_a_word_inside_another_states_no_weights(name):
    assert catalog.named_weights(name) is None
    assert weights(name, None, None).how == "assumed"
    assert weight_dtype(Facts(records=[Workload("ticket.toml:3", model=name)])) is None


def test_a_flag_wins_over_the_name_and_a_config_path_is_not_read_for_words(tmp_path):
    assert (weights("Qwen/Qwen2.5-7B-Instruct-AWQ", "fp8", None).dtype,
            weights("Qwen/Qwen2.5-7B-Instruct-AWQ", "fp8", None).how) == ("fp8", "given")
    # a config.json states its weights in its quantization_config (rules.catalog), not in its folder's name
    folder = tmp_path / "Llama-3.2-3B-Instruct-AWQ"
    folder.mkdir()
    (folder / "config.json").write_text((REPO / "samples" / "bench" / "llama-3.2-3b-config.json").read_text())
    assert weights(str(folder / "config.json"), None, None).dtype is None


RUNS = "layout,batch,metric,value,engine\nTP1,1,decode_tok_s,60,vllm\nTP2,1,decode_tok_s,90,vllm\n"


def _json(*args):
    result = diagnose(*args, "--json")
    assert result.exit_code in (0, 1), result.output + result.stderr
    return json.loads(result.stdout)


def _layout(report) -> dict:
    (table,) = [t for name, t in report["tables"].items() if name.startswith("Layout")]
    return {row[0]: row[1:] for row in table["rows"]}


def _expected(report) -> list:
    return [r["expected_ms"] for r in report["predictions"]["scaling"]["rows"]]


def test_scaling_predicts_a_quantised_name_at_its_weights_and_says_where_they_came_from(tmp_path):
    runs = tmp_path / "runs.csv"
    runs.write_text(RUNS)
    named = _json("scaling", runs, "--model", "Qwen/Qwen2.5-7B-Instruct-AWQ", "--gpu", "h100-sxm")
    flagged = _json("scaling", runs, "--model", "qwen2.5-7b", "--gpu", "h100-sxm", "--dtype", "int4")
    plain = _json("scaling", runs, "--model", "qwen2.5-7b", "--gpu", "h100-sxm")
    assert _layout(named)["weights"][:2] == ["int4", "stated"]
    assert "Qwen/Qwen2.5-7B-Instruct-AWQ" in _layout(named)["weights"][2]
    assert _layout(plain)["weights"][:2] == ["bf16", "assumed"]
    assert _expected(named) == _expected(flagged) != _expected(plain)


def test_a_published_table_with_no_dtype_takes_the_names_weights_and_a_dtype_cell_wins(tmp_path):
    head = "engine,gpu,gpus_per_node,model,dtype,tp,pp,batch,input_len,output_len,metric,value\n"
    rows = "".join(f"vllm,h100-sxm,8,Qwen/Qwen2.5-7B-Instruct-AWQ,{{dtype}},{tp},1,1,1024,256,output_tok_s_total,{v}\n"
                   for tp, v in ((1, 150), (2, 200)))
    empty, stated = tmp_path / "empty.csv", tmp_path / "stated.csv"
    empty.write_text(head + rows.format(dtype=""))
    stated.write_text(head + rows.format(dtype="bf16"))
    assert _layout(_json("scaling", empty))["weights"][:2] == ["int4", "stated"]
    assert _layout(_json("scaling", stated))["weights"][:2] == ["bf16", "stated"]


def test_predict_and_plan_read_the_name_as_scaling_does():
    named = _json("predict", "--model", "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "--gpu", "l40s", "--tp", "1,2")
    flagged = _json("predict", "--model", "qwen2.5-7b", "--gpu", "l40s", "--tp", "1,2", "--dtype", "int8")
    assert [r["dtype"] for r in named["predictions"]["layouts"]] == ["int8", "int8"]
    assert [r["decode_step_ms_expected"] for r in named["predictions"]["layouts"]] == \
        [r["decode_step_ms_expected"] for r in flagged["predictions"]["layouts"]]
    assert named["predictions"]["assumptions"]["weights"].startswith("int8, stated: the model name")
    assert flagged["predictions"]["assumptions"]["weights"] == "int8, given: --dtype"
    plan = _json("plan", "--model", "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "--gpu", "l40s", "--gpus", "2",
                 "--context", "4096", "--concurrency", "8")
    assert plan["inputs"]["dtype"] == "int8"


def test_capture_prices_the_named_weights():
    capture = REPO / "samples" / "captures" / "tp4_nvlink_healthy.sqlite"
    args = ("--gpu", "h100-sxm", "--tp", "4", "--batch", "8")
    quantised = _json("capture", capture, "--model", "Meta-Llama-3-70B-Instruct-AWQ", *args)
    plain = _json("capture", capture, "--model", "llama-3-70b", *args)
    assert quantised["predictions"]["roofline"]["dtype"] == "int4"
    assert plain["predictions"]["roofline"]["dtype"] == "bf16"
    assert quantised["predictions"]["roofline"]["weights_gb_per_gpu"] < \
        plain["predictions"]["roofline"]["weights_gb_per_gpu"] / 3
