"""Issue 11 (session s44, pass scaling44): "is this normal?" for a multi-GPU layout outside the much-used engines.

Real first posts (tests/data/scaling44/SOURCES.md) and the readings they lacked:

- diagnose.artifacts.engine_signs: FastChat's own workers (`python -m fastchat.serve.model_worker`,
  `fastchat.serve.multi_model_worker`, `fastchat.serve.cli`) run Hugging Face transformers, whose multi-GPU load is
  accelerate's device_map, a layer split (fastchat/model/model_adapter.py load_model; README "Multiple GPUs: You can
  use model parallelism to aggregate GPU memory"); its vllm_worker and the other workers are no sign of it (fr44:
  the vllm_worker and sglang_worker are signs of vLLM and SGLang, tests/test_fr44_b.py).
- issue_md._job_gpus: a FastChat command's `--num-gpus N` is the job's GPU count.
- rules.ticket_rules.gpu_utilisation: transformers alone is not assumed to span GPUs when no count is said.
- rules.ticket_rules.symptom_prior: the layer split's turn-taking prior does not answer "only one GPU is used".

Probes are labelled; each reading has near-misses that must not fire.
"""

from pathlib import Path

import pytest
from conftest import issue_bundle as _facts
from conftest import judged_issue

from rules.common import engine_of, gpu_count

DATA = Path(__file__).parent / "data" / "scaling44"


def _real(name: str) -> str:
    return (DATA / f"{name}.md").read_text()


# ----------------------------------------------------------------------------- the real first posts

def test_fastchat_worker_on_eight_t4_is_a_layer_split():
    # QwenLM/Qwen3#798: Qwen1.5-32B under fastchat.serve.model_worker on 8x T4, one or two cards busy, ~1 min a
    # request; the maintainer: "use vllm" (transformers' multi-GPU load is naive model parallelism, QwenLM/Qwen#511)
    text = _real("qwen3_798")
    assert engine_of(_facts(text)) == "hf-eager"
    verdict, found = judged_issue(text)
    assert verdict.category == "expected_physics"
    assert "ticket.symptom_prior" in found
    assert "layer split" in found["ticket.symptom_prior"].title


@pytest.mark.parametrize("name,gpus", [("fastchat1760", 2), ("fastchat687", 4), ("fastchat2071", 2)])
def test_fastchat_cli_and_worker_run_transformers_on_num_gpus(name, gpus):
    # real posts the sign was not written from: `fastchat.serve.cli ... --num-gpus 2` (lm-sys/FastChat#1760),
    # `fastchat.serve.model_worker ... --num-gpus 4` (lm-sys/FastChat#687) and, written inline in a Chinese post,
    # `python -m fastchat.serve.model_worker ... --num-gpus 2` (lm-sys/FastChat#2071)
    facts = _facts(_real(name))
    assert engine_of(facts) == "hf-eager"
    assert gpu_count(facts) == gpus


def test_one_gpu_used_under_num_gpus_is_not_turn_taking():
    # lm-sys/FastChat#1760: "--num-gpus 2 ... only one GPU used": the sequential device_map fills the first GPU when
    # the model fits (the same question's answer in #1198 and #687: --max-gpu-memory); no GPUs take turns
    verdict, found = judged_issue(_real("fastchat1760"))
    assert "ticket.symptom_prior" not in found
    assert verdict.category == "healthy"
    assert "ticket.one_gpu_by_design" in found


def test_single_gpu_fastchat_cli_utilisation_is_no_layer_split():
    # lm-sys/FastChat#504 (tests/data/symptom34): "GPU usage is 1%" under fastchat.serve.cli --load-8bit, one GPU:
    # transformers runs on one GPU unless told to split, so 1 % is not "what a layer split gives"
    text = (Path(__file__).parent / "data" / "symptom34" / "fastchat_504.md").read_text()
    assert engine_of(_facts(text)) == "hf-eager"
    _, found = judged_issue(text)
    g = found.get("ticket.gpu_utilisation")
    assert g is None or "layer split" not in g.title


@pytest.mark.xfail(strict=True, reason="exo on a MacBook Pro and a Mac mini: the thread settles it as exo's "
                   "pipeline running the devices in turn (expected_physics), but Apple hardware is outside what the "
                   "tool judges (ticket.other_vendor answers insufficient_data by design)")
def test_exo_mac_cluster_pipeline():
    verdict, _ = judged_issue(_real("exo489"))
    assert verdict.category == "expected_physics"


# ----------------------------------------------------------------------------- probes: the FastChat sign

def _cmd(line: str, prose: str = "") -> str:
    return f"# Inference speed\n\nI run the model on the GPUs like this:\n\n```\n{line}\n```\n\n{prose}\n"


@pytest.mark.parametrize("line", [
    # probes: FastChat's transformers workers, as its README and docs write them
    "python3 -m fastchat.serve.cli --model-path lmsys/vicuna-7b-v1.5 --num-gpus 2",
    "python3 -m fastchat.serve.model_worker --model-path lmsys/vicuna-7b-v1.5 --num-gpus 2",
    "python3 -m fastchat.serve.multi_model_worker --model-path a --model-names a --model-path b --model-names b",
])
def test_fastchat_transformers_workers_probe(line):
    assert engine_of(_facts(_cmd(line))) == "hf-eager"


@pytest.mark.parametrize("text", [
    # near-misses (probes): FastChat's vLLM worker runs vLLM; the controller and API server run no model; FastChat
    # named in prose is no command that ran
    _cmd("python3 -m fastchat.serve.vllm_worker --model-path lmsys/vicuna-7b-v1.5 --num-gpus 2"),
    _cmd("python3 -m fastchat.serve.controller\npython3 -m fastchat.serve.openai_api_server --host 0.0.0.0"),
    "# Inference speed\n\nI used the fastchat model_worker with two GPUs and it is slow.\n",
    "# Inference speed\n\nShould I try fastchat.serve.model_worker instead of vllm on my two GPUs? It is slow.\n",
])
def test_fastchat_near_misses_are_no_transformers_sign(text):
    assert engine_of(_facts(text)) != "hf-eager"


@pytest.mark.parametrize("line,gpus", [
    # probes: the count is FastChat's --num-gpus, its --gpus a list of GPU numbers
    ("python3 -m fastchat.serve.model_worker --model-path m --num-gpus 2 --gpus 0,1", 2),
    ("python3 -m fastchat.serve.model_worker --model-path m --num-gpus=4", 4),
])
def test_fastchat_num_gpus_is_the_job_count(line, gpus):
    assert gpu_count(_facts(_cmd(line))) == gpus


def test_num_gpus_of_other_launchers_is_not_fastchat_probe():
    # near-miss (probe): Ray's `--num-gpus` is what a node offers Ray, not a job's count, and no FastChat line
    facts = _facts(_cmd("ray start --head --num-gpus=8"))
    assert gpu_count(facts) != 8


# ----------------------------------------------------------------------------- probes: utilisation under the split

def test_split_over_num_gpus_utilisation_is_the_layer_split_share_probe():
    # probe: two GPUs under FastChat's --num-gpus 2, each at 45 %: the turn-taking share, not a starved host
    _, found = judged_issue(_cmd("python -m fastchat.serve.cli --model-path lmsys/vicuna-7b-v1.5 --num-gpus 2",
                                 "GPU utilization is 45% on each GPU, is this normal?"))
    assert "layer split" in found["ticket.gpu_utilisation"].title


def test_one_gpu_fastchat_utilisation_probe():
    # probe: --num-gpus 1 is one GPU; its 45 % is no layer split's share
    _, found = judged_issue(_cmd("python -m fastchat.serve.cli --model-path lmsys/vicuna-7b-v1.5 --num-gpus 1",
                                 "GPU utilization is 45%, is this normal?"))
    g = found.get("ticket.gpu_utilisation")
    assert g is None or "layer split" not in g.title


def test_llama_cpp_utilisation_keeps_its_split_probe():
    # probe: llama.cpp spreads over the GPUs it sees; with no count said its share is still read as the split's
    _, found = judged_issue(_cmd("llama-server -m model.gguf -ngl 99", "GPU utilization is 40%, is this normal?"))
    assert "layer split" in found["ticket.gpu_utilisation"].title
