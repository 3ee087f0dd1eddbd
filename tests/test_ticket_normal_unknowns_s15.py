"""'Is this normal?' tickets whose comparison stopped before the expected figure (s15, issue 11), by the step that
stopped it:

- the model named only in what was pasted (a compose file's command or service name, a Dockerfile's CMD, a script's
  weights folder), never in the prose: the one model the code names is the ticket's; two different ones name none;
- a figure the prose gives right after the words "tensor parallel" is a rate, not a TP size ("via vLLM tensor
  parallel: 18 tokens per second" read TP=18 and answered tp_not_dividing_heads at 0.95);
- Phi names with their size word or minor release ("Phi-3-medium-4k-instruct", "Phi-3.5-MoE") cut to a bare "Phi-3";
  GPT-J, published in one size, named without it;
- one stream faster than the band over the quantised widths spanned (weights not stated) yet within the fastest
  width's roofline: it beats the band (expected_physics), never a question back.

Pasted lines are from the public file cited beside them or written for the test in the documented shape; the prose
around them is written for the test, and no sentence comes from a corpus case.
"""

import pytest
from test_ticket_isnormal_names import issue, verdict_of

from diagnose.evidence import Workload
from rules.subject import Subject


def _model(text: str):
    facts = issue(text)
    return Subject.of(facts).model


# --------------------------------------------------------------------------- the model named only in pasted code

# A Dockerfile's CMD as published (https://github.com/bq1024/Llama-3.1-8B-4Cards/blob/main/Dockerfile, its token line
# left out), and compose files written for the test in the two shapes `command:` takes for the vllm/vllm-openai image
# (https://docs.vllm.ai/en/latest/deployment/docker.html: the engine's flags after the image): an array of flags with a
# weights folder, and a service named after its model with no flags at all.
COMPOSE_ARRAY = """services:
  vllm:
    container_name: vllm
    image: vllm/vllm-openai:v0.6.3.post1
    command: [
      "--model", "/app/model/Meta-Llama-3-8B-Instruct",
      "--max-num-seqs","2",
      "--tensor-parallel-size", "2",
    ]"""
DOCKERFILE_CMD = """FROM  vllm/vllm-openai:latest
EXPOSE 8000
CMD ["--host", "0.0.0.0", "--gpu-memory-utilization", "0.95", "--model", "meta-llama/Llama-3.1-8B-Instruct", \
"--dtype", "bfloat16", "--tensor_parallel_size", "4", "--enforce-eager", "--max-model-len", "8128"]"""
SERVICE_NAME = """services:
  mistral-7b-instruct:
    image: vllm/vllm-openai:latest
    ipc: host
    ports:
      - 8000:8000"""


@pytest.mark.parametrize("code, key", [
    (COMPOSE_ARRAY, "llama-3-8b"),
    (DOCKERFILE_CMD, "llama-3-8b"),
    (SERVICE_NAME, "mistral-7b"),
])
def test_a_model_named_only_in_pasted_code_is_the_tickets(code, key):
    model = _model(f"# speed\n\nTwo RTX 3090, single user, 40 tok/s. Is this normal?\n\n```\n{code}\n```\n")
    assert model is not None and model.key == key


def test_the_pasted_code_gives_the_figure_its_comparison():
    """The compose file names the model, the layout (an exec-form flag list) and the engine (its image, with the
    release its tag states): the figure is set against the band for all three, not left unjudged."""
    facts = issue(f"# speed\n\nTwo RTX 3090, single user, 40 tok/s. Normal?\n\n```\n{COMPOSE_ARRAY}\n```\n")
    assert {w.framework for w in facts.of(Workload) if w.framework} == {"vllm v0.6.3.post1"}
    _, findings = verdict_of(facts)
    f = next(f for f in findings if f.rule == "ticket.measured_vs_expected")
    assert "llama-3-8b" in str(f.evidence) and "TP=2" in str(f.evidence) and "vllm" in str(f.evidence)


@pytest.mark.parametrize("code, engine", [
    ("docker pull lmsysorg/sglang:v0.4.6.post1-cu124", "sglang v0.4.6.post1"),  # (its CUDA build suffix is no release)
    ("FROM ghcr.io/huggingface/text-generation-inference:2.0.4", "tgi 2.0.4"),
    ("    image: ollama/ollama", "ollama"),
    # not an engine's image: a fork's or a user's own, and a package path
    ("    image: myorg/vllm-openai-custom:1.0", None),
    ("pip install vllm-openai-client==0.3", None),
])
def test_an_engine_named_only_by_its_image(code, engine):
    facts = issue(f"# speed\n\nOne A100, 45 tok/s. Normal?\n\n```\n{code}\n```\n")
    found = {w.framework for w in facts.of(Workload) if w.framework}
    assert found == ({engine} if engine else set())


@pytest.mark.parametrize("code", [
    # a list of downloads, or a comparison: two models, so no one of them is the run's
    "$ ls /models\nLlama-3.1-8B-Instruct  Qwen2.5-7B-Instruct",
    "for m in Llama-2-7b-hf Mistral-7B-v0.1; do python bench.py --model-dir /models/$m; done",
])
def test_pasted_code_naming_two_models_names_none(code):
    assert _model(f"# speed\n\nOne A100, 45 tok/s. Is this normal?\n\n```\n{code}\n```\n") is None


def test_the_prose_name_wins_over_the_pasted_one():
    model = _model("# speed\n\nQwen2.5-14B-Instruct on two RTX 3090 gives 40 tok/s. Normal?\n\n"
                   f"```\n{SERVICE_NAME}\n```\n")
    assert model.key == "qwen2.5-14b"


def test_a_release_dot_dropped_in_a_service_name_is_the_same_model():
    model = _model("# speed\n\nOne L40S, 30 tok/s. Normal?\n\n```\nservices:\n  vllm-qwen25-7b:\n"
                   "    image: vllm/vllm-openai:latest\n```\n")
    assert model.key == "qwen2.5-7b"


# --------------------------------------------------------------------------- a rate after "tensor parallel"


@pytest.mark.parametrize("text, tp", [
    ("Llama-3.3-70B-Instruct-AWQ on 2x RTX 3090 via vLLM tensor parallel: 18 tokens per second. Normal?", 2),
    ("Qwen2.5-32B on two RTX 4090 with tensor parallelism 22 tok/s, is that ok?", 2),
    ("Llama-2-13B, tp: 24.5 ms per token on 2x A10G. Expected?", 2),
    # negations of the fix: a size the words do give stays read
    ("Llama-2-13B with tensor parallel 2 on 2x A10G gives 24 tok/s. Expected?", 2),
    ("Llama-2-13B with TP=2, 24 tok/s on two A10G. Expected?", 2),
])
def test_a_figure_after_the_words_tensor_parallel_is_no_tp_size(text, tp):
    answer, findings = verdict_of(issue("# speed\n\n" + text))
    assert answer.category != "tp_not_dividing_heads"
    sizes = {w.tp for w in issue("# speed\n\n" + text).of(Workload) if w.tp}
    assert sizes <= {tp}


# --------------------------------------------------------------------------- model names as written


@pytest.mark.parametrize("name, key", [
    ("Phi-3-medium-4k-instruct", "phi-3-medium"),
    ("microsoft Phi-3.5-MoE-instruct", "phi-3.5-moe"),
    ("Phi-4-mini-instruct", "phi-4-mini"),
    ("GPT-J", "gpt-j-6b"),
    ("gpt-j-6B", "gpt-j-6b"),
])
def test_names_as_written_resolve(name, key):
    model = _model(f"# speed\n\n{name} on one A100 gives 30 tok/s. Normal?")
    assert model is not None and model.key == key


@pytest.mark.parametrize("name", ["GPT-JT-6B", "Phi-3-small-8k"])  # a fine-tune, and a size the catalog lacks
def test_names_the_catalog_lacks_do_not_resolve_to_a_neighbour(name):
    model = _model(f"# speed\n\n{name} on one A100 gives 30 tok/s. Normal?")
    assert model is None or model.key not in ("gpt-j-6b", "phi-3-mini", "phi-3-medium")


# --------------------------------------------------------------------------- faster than the spanned band


@pytest.mark.parametrize("text", [
    "Llama-3.1-8B-Instruct on one RTX 4090 with llama.cpp: 190 tok/s. Is this normal?",
    "Qwen2.5-14B-Instruct on one RTX 3090, about 75 tokens/s. Is this normal?",
])
def test_a_rate_beyond_the_spanned_band_within_the_fastest_roofline_beats_it(text):
    answer, findings = verdict_of(issue("# speed\n\n" + text))
    f = next(f for f in findings if f.rule == "ticket.measured_vs_expected")
    assert answer.category == "expected_physics" and f.category == "expected_physics"
    assert "beats the calibrated" in f.title and "spanned" in f.title
    assert any("fastest width spanned" in e.detail for e in f.evidence)
    assert not any(x.rule == "ticket.figure_unjudged" for x in findings)


def test_a_rate_beyond_even_the_fastest_width_is_no_one_streams():
    """Above the 4-bit roofline no width gives one stream the rate: it is read as several requests' total
    (ticket.batched_rate), never as a one-stream figure that beats the spanned band."""
    _, findings = verdict_of(issue("# speed\n\nLlama-3.1-8B-Instruct on one RTX 4090 with llama.cpp: 320 tok/s. "
                                   "Is this normal?"))
    assert not any("spanned" in f.title for f in findings)
    assert any(f.rule == "ticket.batched_rate" for f in findings)
