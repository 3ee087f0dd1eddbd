"""Issue 11, batch u19b: a GPU utilisation read while no work runs.

NVML's utilization.gpu is "Percent of time over the past sample period during which one or more kernels was executing
on the GPU" (nvidia-smi --help-query-gpu): a kernel left waiting (NCCL's spinning collectives, a polling loop) reads
100 % at idle power, so such a reading is no slowdown. Real sentences from other threads, each with its source; the
development case is the thread the gap was met in (alibaba/rtp-llm#111).
"""

import pytest
from test_ticket_questions import development_case, said

from diagnose.bundle import read_bundle
from rules import claims
from rules.engine import evaluate, ticket_verdict


def _bundle(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    return read_bundle([tmp_path])


def _rules(findings, rule):
    return [f for f in findings if f.rule == rule]


# --------------------------------------------------------------------------- 2. utilisation read with no work

@pytest.mark.parametrize("sentence", [
    # sgl-project/sglang#6085 (ashissharma97, 2025-05-07), the title
    "GPU Utilization is 100% even when we are not inferencing.",
    # zai-org/GLM-130B#32 (Ant0082, 2022-10-21), the title
    "No input text for generation, why is the GPU occupancy 100%?",
    # written: the forms the NVML counter is met in
    "GPU-Util stays at 100% while idle, with no requests coming in.",
    "After the benchmark has finished, nvidia-smi still shows 100% utilization on GPU 1.",
    "服务启动后没有请求时，两张卡的GPU利用率一直是100%。",
    "推理完成以后，GPU 利用率仍然是 100%",
    "两张卡的GPU利用率都是100%，即使没有请求也一样。",
])
def test_a_busy_reading_with_no_work_is_read_as_such(sentence):
    assert [c for c in claims.find(said(sentence), "util_when_idle") if not c.negated]


@pytest.mark.parametrize("sentence", [
    # vllm-project/vllm#6105 (jerin-scalers-ai, 2024-07-03): utilisation under load
    "As the number of concurrent requests increases, GPU utilization is expected to rise. However, GPU utilization is "
    "decreasing as the number of concurrent requests grows.",
    # written negations: busy under load, idle at zero
    "GPU utilization reaches 100% when there are 64 concurrent requests.",
    "When idle the GPU utilization drops to 0%, during generation it is 100%.",
    "During inference one card shows 100% utilisation and the other 3%.",
    "推理时GPU利用率是100%，空闲时是0%。",
])
def test_a_reading_under_load_is_not(sentence):
    assert not claims.find(said(sentence), "util_when_idle")


def test_a_busy_reading_with_no_work_is_no_slowdown(tmp_path):
    # zai-org/GLM-130B#32: the question and the GPU it names
    facts = _bundle(tmp_path, "# No input text for generation, why is the GPU occupancy 100%?\n\nGLM-130B loaded on "
                              "8 Tesla V100-SXM2 GPUs with tensor parallelism.\n")
    findings = evaluate(facts)
    (f,) = _rules(findings, "ticket.gpu_utilisation")
    assert f.category == "healthy" and f.severity == "ok"
    assert ticket_verdict(facts, findings).category in ("healthy", "insufficient_data")


def test_a_split_reading_during_the_run_is_still_the_ranks_waiting(tmp_path):
    facts = _bundle(tmp_path, "# Two A6000 with TP=2\n\nDuring inference one card shows 100% GPU utilisation and the "
                              "other 0%. Qwen2-72B-Instruct-AWQ, TP_SIZE=2 WORLD_SIZE=2.\n")
    (f,) = _rules(evaluate(facts), "ticket.gpu_utilisation")
    assert "no work running" not in f.title  # (read as the run's: a split, or ranks waiting)


def test_the_development_case_idle_reading(tmp_path):
    facts = development_case(tmp_path, "u19b05")
    assert ticket_verdict(facts, evaluate(facts)).category == "healthy"
