"""Issue 11 s: "is this normal?" questions that ended insufficient_data because a fact an expert reads was lost.

Real inputs: tests/data/normal_questions/ (public threads, SOURCES.md; not scored cases). The steps fixed, each
in general form and tested on paraphrases and negations written here, not copied from those threads:

- a code repository's path ("github.com/ggerganov/llama.cpp") or a path's inner folders ("./build/bin/llama-cli")
  are not a Hugging Face model id (the model file named later is the model);
- "4x3090ti": a count glued to a GeForce name with its "Ti"/"SUPER" suffix names the GPUs;
- a fenced block holding only a short note ("A100 llama2-13B" in an issue template's Environment box) is the
  reporter's words;
- an aside in parentheses before a rate ("(even for a prompt like Hi) at 0.2 tok/s") is not the rate's label.
"""

from pathlib import Path

import pytest

from diagnose.artifacts import issue_md
from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Measurement, Workload
from rules.engine import evaluate, ticket_verdict
from rules.subject import Subject

DATA = Path(__file__).parent / "data" / "normal_questions"


def _facts(path):
    facts = read_bundle([path])
    facts.subject = Subject.of(facts)  # the model and GPU the catalog resolves, as the engine does
    return facts


def _verdict(facts):
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))


def _workload(facts, field):
    return next((getattr(w, field) for w in facts.of(Workload) if getattr(w, field)), None)


def test_llamacpp_clone_url_is_not_the_model_and_the_rate_is_judged():
    facts = _facts(DATA / "llamacpp9881.md")
    named = _workload(facts, "model").lower()
    assert "llama-3-8b" in named and "llama.cpp" not in named  # the model file, not 'ggerganov/llama.cpp'
    assert facts.subject.model is not None
    findings = evaluate(facts, ticket_predictions(facts))
    v = ticket_verdict(facts, findings)
    # 0.07 tok/s on an A100 is far below what the GPU streams: not physics; llama-cli of build 3902 run without -ngl
    # keeps every layer on the CPU (the thread's answer: --n-gpu-layers), a host limit (healthy32)
    assert v.category == "host_bound"
    top = next(f for f in findings if f.rule == "ticket.measured_vs_expected")
    measured = next(e for e in top.evidence if e.measured == 0.07)
    assert measured.source == "llamacpp9881.md:16" and "assumed" in measured.detail  # where it came from, what assumed
    assert any(e.source == "prediction:expected" and e.expected for e in top.evidence)  # what it was compared with
    assert any("bf16 weights assumed" in e.detail for e in top.evidence)  # the unread GGUF type is said assumed


def test_glued_count_and_ti_suffix_name_the_gpus():
    facts = _facts(DATA / "vllm6955.md")
    assert facts.subject.gpu is not None and facts.subject.gpu.key == "rtx-3090-ti"
    assert _workload(facts, "gpu_count") == 4
    assert _verdict(facts).category != "insufficient_data"


def test_fenced_environment_note_names_gpu_and_model():
    facts = _facts(DATA / "sgl938.md")
    assert _workload(facts, "gpu") == "A100"
    assert _workload(facts, "model") == "llama2-13B"


def test_rate_after_an_aside_is_read():
    facts = _facts(DATA / "fastchat2746.md")
    assert 0.2 in [m.value for m in facts.of(Measurement) if m.metric == "decode_tok_s"]


@pytest.mark.parametrize("text", [
    "git clone https://github.com/ggml-org/llama.cpp && cd llama.cpp",
    "I built https://github.com/meta-llama/llama3 from source",
    "cloned gitlab.com/someone/llama-tools.git",
    "./build/bin/llama-server -m model.gguf",
    "/usr/local/bin/llama-bench -p 512",
    "see ggml-org/llama.cpp for the engine",
    "the script is at tools/llama_eval.py",
])
def test_code_paths_are_not_model_ids(text):
    assert [m.group(1) for m in issue_md.HF_ID.finditer(text)] == []


@pytest.mark.parametrize("text, expected", [
    ("vllm serve meta-llama/Llama-3.1-8B-Instruct --tp 2", "meta-llama/Llama-3.1-8B-Instruct"),
    ("--model /data/models/Qwen/Qwen2.5-72B-Instruct", "Qwen/Qwen2.5-72B-Instruct"),
    ("https://huggingface.co/mistralai/Mistral-7B-v0.1", "mistralai/Mistral-7B-v0.1"),
    ("model = unsloth/Meta-Llama-3.1-8B-Instruct", "unsloth/Meta-Llama-3.1-8B-Instruct"),
])
def test_model_ids_still_read(text, expected):
    assert [m.group(1) for m in issue_md.HF_ID.finditer(text)][-1] == expected


@pytest.mark.parametrize("text, gpu, count", [
    ("Box: 2x3080ti on PCIe 3.0, decode 20 tok/s", "3080ti", 2),
    ("we run 4x 2080Ti without a bridge, 12 tok/s", "2080Ti", 4),
    ("8x4070super(each x8 lanes) give 35 tok/s", "4070super", 8),
    ("2x4090 in one box: 40 tok/s", "4090", 2),
])
def test_glued_counts(text, gpu, count):
    said = [r for r in issue_md.parse(text, "x.md") if isinstance(r, Workload) and r.gpu]
    assert [(r.gpu.replace(" ", "").lower(), r.gpu_count) for r in said] == [(gpu.lower(), count)]


def test_numbers_glued_by_x_are_not_gpus():
    assert [r for r in issue_md.parse("A 2x1024 prompt grid ran at 30 tok/s.", "x.md")
            if isinstance(r, Workload) and r.gpu] == []


@pytest.mark.parametrize("block", [
    "A100 llama2-13B",
    "RTX 4090, Qwen2.5-7B",
    "2 x H100 80GB\nLlama-3.1-70B fp8",
])
def test_short_fenced_notes_are_words(block):
    assert [ln for _, ln in issue_md._fenced_notes([(3, block)])] == block.splitlines()


@pytest.mark.parametrize("block", [
    "python -m vllm.entrypoints.openai.api_server --model x",  # a command
    "$ nvidia-smi -L",
    "[INFO] GPU: A100",  # a log line
    "GPU 0: NVIDIA A100-SXM4-80GB",  # a tool's key: value field
    "CUDA_VISIBLE_DEVICES=0,1",  # an assignment
    "line one\nline two\nline three",  # longer than a note
    "/opt/models/llama/7B/",  # a path
])
def test_tool_output_blocks_are_not_notes(block):
    assert issue_md._fenced_notes([(3, block)]) == []


@pytest.mark.parametrize("text, value", [
    ("Replies are slow (even short prompts take ages) and decode runs at 3 tok/s.", 3.0),
    ("Each answer (even for a one-line prompt) comes at about 4 tokens/s", 4.0),
])
def test_aside_before_a_rate_is_not_its_label(text, value):
    assert [r.value for r in issue_md.parse(text, "x.md") if isinstance(r, Measurement)] == [value]


@pytest.mark.parametrize("text", [
    "Throughput (prompt): 500 tok/s",  # the aside is the label itself
    "prompt processing (prefill) at 900 tok/s",
])
def test_prompt_rates_stay_prompt_rates(text):
    assert [r for r in issue_md.parse(text, "x.md") if isinstance(r, Measurement)] == []


def test_rate_of_a_finetune_is_judged_on_its_base():
    facts = _facts(DATA / "fastchat2746.md")
    v = _verdict(facts)
    assert v.category == "other" and "0.2 tok/s" in v.summary  # TP=4 on 4 A100s at 0.2 tok/s: a fault, not physics


@pytest.mark.parametrize("text, model", [
    ("Vicuna-13B, a fine-tune of Llama-2-13B, runs at 5 tok/s", "Llama-2-13B"),
    ("MyBot-7B (based on Qwen2.5-7B) gives 30 tok/s", "Qwen2.5-7B"),
    ("our Zephyr-7B which is a finetuned version of Mistral-7B does 12 tok/s", "Mistral-7B"),
    ("Llama-2-13B is not a variant of Mistral-7B: 48 tok/s", "Llama-2-13B / Mistral-7B"),  # negated: two models
    ("Llama-2-13B vs Qwen2.5-14B, same box, 48 tok/s in total", "Llama-2-13B / Qwen2.5-14B"),  # compared: two
])
def test_finetune_names_its_base(text, model):
    assert [r.model for r in issue_md.parse(text, "x.md") if isinstance(r, Measurement)] == [model]


@pytest.mark.parametrize("text, count", [
    ("using the tp module for 2-GPU inference is 2 times slower than single-GPU inference", 2),
    ("On our 4-GPU setup decode is 20 tok/s", 4),
    ("The 8-GPU run was slower.", 8),
])
def test_n_gpu_compound_counts(text, count):
    assert [r.gpu_count for r in issue_md.parse(text, "x.md") if isinstance(r, Workload) and r.gpu_count] == [count]


@pytest.mark.parametrize("text", ["a 2-GPU-hour budget was spent", "We compared against a 2-GPU baseline"])
def test_n_gpu_other_nouns_are_not_counts(text):
    assert [r for r in issue_md.parse(text, "x.md") if isinstance(r, Workload) and r.gpu_count] == []
