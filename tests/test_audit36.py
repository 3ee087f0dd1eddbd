"""audit36 (session s36, issue 11): kept real pastes answered insufficient_data although their thread settled a cause
(tests/data/audit36/AUDIT.md lists them, groups them by the missing reading, and splits them study/check).

Two fixes of this pass, from the study rows of group C (the model runs, partly or wholly, on the CPU):

- a model the reporter runs on the CPU alone, with no GPU in the ticket, asked about its speed, is answered by
  host-memory bandwidth (rules.cpu_only, expected_physics). Tested on the real paste it moves (vllm-project/vllm#7379),
  on real pastes beside it that must keep their answer (a CPU-only box asking about RAM, a CPU figure beside a GPU, a
  busy core beside a GPU, a CPU-usage question), on paraphrases written for this test, and on near-misses: a GPU named,
  a fallback, a guess, a denial, a crash, a hang, a load figure, no speed asked;
- the CPU said busy and the GPU said low as two states ("the CPU usage is often full, but the GPU usage is not high")
  is the CPU doing more of the work than the GPU (rules.claims.cpu_over_gpu), read where the engine places layers by
  what fits (Ollama, llama.cpp): a partial offload (ollama/ollama#7801 now host_bound). Not a denied CPU state, a GPU
  at 0 (not used at all), a condition, nor under an engine that keeps every weight in VRAM.
"""

from pathlib import Path

import pytest
from conftest import judged_issue, report_json

DATA = Path(__file__).parent / "data"


def category(rel: str) -> str:
    return report_json("ticket", str(DATA / rel))["verdict"]["category"]


# ------------------------------------------------------------------ real pastes

def test_cpu_full_but_gpu_not_high_under_ollama_is_layers_on_the_cpu():
    """ollama/ollama#7801: "the CPU usage is often full, but the GPU usage is not high ... the GPU memory is fully
    occupied" (Ollama 0.4.2); the thread: the model does not fit, part runs on the CPU and the GPU waits for it."""
    assert category("healthy31/ollama7801.md") == "host_bound"


@pytest.mark.parametrize("sentence,read", [
    ("When running the model, the CPU usage is often full, but the GPU usage is not high.", True),
    ("GPU utilization stays low while CPU usage is maxed out.", True),
    ("CPU usage is at 100% while the GPU usage is low.", True),
    ("The CPU load is pegged, yet the GPU load is very low.", True),
    ("The CPU usage is not high, but the GPU usage is low.", False),   # the CPU's state denied
    ("CPU usage is high but GPU usage is 0.", False),                  # a GPU at 0: not used at all
    ("If the CPU usage is full while the GPU usage is low, it is offloading.", False),  # a condition
    ("The GPU usage is high while the CPU usage is low.", False),      # the other way round
])
def test_the_cpu_busy_and_the_gpu_low_as_two_states(sentence, read):
    from rules import claims

    assert bool(claims.cpu_over_gpu(sentence)) is read


def test_two_states_under_an_engine_that_keeps_weights_in_vram_are_no_offload():
    """vLLM keeps every weight on the GPU: its CPU busy beside a low GPU is host work, not layers on the CPU."""
    text = ("# Slow serving\n\nvLLM serving Llama-3-8B on one RTX 4090: the CPU usage is often full, but the GPU usage "
            "is not high. Throughput is low.")
    _, findings = judged_issue(text)
    assert "ticket.partial_offload" not in findings
    _, findings = judged_issue(text.replace("vLLM serving", "Ollama serving"))
    assert "ticket.partial_offload" in findings

def test_a_cpu_instance_asked_about_its_rate_is_the_hosts_memory():
    """vllm-project/vllm#7379: llama3-8b on an Azure CPU instance (4 cores) under 10 tok/s; mgoin (maintainer):
    "This seems reasonable for fp32 performance on CPU", MEM_BW / MODEL_WEIGHTS = tokens/s."""
    report = report_json("ticket", str(DATA / "review49/vllm7379.md"))
    assert report["verdict"]["category"] == "expected_physics"
    lead = next(f for f in report["findings"] if f["rule"] == "ticket.cpu_only_run")
    assert any("CPU instance" in e["detail"] for e in lead["evidence"])


@pytest.mark.parametrize("rel,settled", [
    ("bydesign31/ollama5111.md", "healthy"),   # CPU only, asks why RAM stays unused: the mmap'd model (no speed asked)
    ("ut29e/ollama7902.md", "healthy"),        # one core busy beside a GPU: the CPU waits on the GPU
    ("audit36/llamacpp7812.md", "healthy"),    # a CPU usage of 50 % asked about: no setup said, no rate
    ("extract35b/llamacpp14228.md", "insufficient_data"),  # "CPU only is fine" beside P40s: a correctness bug
])
def test_pastes_beside_a_cpu_run_keep_their_answer(rel, settled):
    assert category(rel) == settled


STILL_MISSED = [
    ("physics31/llamacpp865.md", "expected_physics",
     "a Ryzen laptop and its RAM named as the only hardware, but no CPU-only setup said and no engine named in the "
     "paste (the thread is llama.cpp's): inferring a CPU run from the hardware listed alone is not attempted"),
    ("audit36/ollama2993.md", "expected_physics",
     "'CPU and RAM (no GPU)' with the CPU at 100 %: the maintainer answers that the CPU is the bottleneck, but the "
     "complaint is the CPU's load, not a speed, and ticket.cpu_only_run answers speed questions only"),
    ("review49/llamacpppy1123.md", "host_bound",
     "llama-cpp-python's Llama(...) called without n_gpu_layers (default 0: nothing offloaded) is not read"),
    ("review49/vllm22692.md", "host_bound",
     "--cpu-offload-gb 16 is read, but ticket.offload_rate needs the GPU for its band and the paste names none"),
    ("review50/fastchat1198.md", "healthy",
     "one GPU busy under --num-gpus 2: one_gpu_by_design stands aside when a split was asked for"),
    ("ut12x/tensorparallel117.md", "other",
     "12 s on 2 GPUs against 5 s on one: loss_beyond_physics (other, 0.54) stays a lead below the verdict line"),
    ("extract30/gptfast225.md", "expected_physics",
     "the reporter's own bound (all of Mixtral's 47B read per token) not read; an MoE reads its active experts only"),
    ("p2p32/nccl1603.md", "expected_physics",
     "busbw pairs said in prose ('18->22', '18 -> 2') not read; no all-to-all-through-the-CPU-root physics"),
    ("ut21a/ncclt268.md", "expected_physics",
     "nvbandwidth 260 GB/s against sendrecv_perf 80-180 GB/s in prose: one send/recv pair does not fill NVLink"),
]


@pytest.mark.parametrize("rel,settled,why", [pytest.param(*c, marks=pytest.mark.xfail(reason=c[2], strict=True))
                                              for c in STILL_MISSED])
def test_settled_pastes_still_missed(rel, settled, why):
    assert category(rel) == settled


# ------------------------------------------------------------------ paraphrases and near-misses

FIRES = [
    "# Slow generation\n\nI run Mistral 7B on a CPU-only server (two Xeon sockets, 256 GB DDR4) and get about "
    "4 tokens/s. Is that expected?",
    "# Very slow\n\nI don't have a GPU, so llama.cpp runs on my laptop. Generation is very slow, 2 tokens per "
    "second with Llama 2 13B.",
    "# vLLM CPU build is slow\n\nBuilt with VLLM_TARGET_DEVICE=cpu, Llama-3-8B gives 3 tok/s. Why so slow?",
    "# 推理速度很慢\n\n纯CPU推理 Qwen-7B，速度很慢，每秒大约2个token，正常吗？",
    "# Throughput question\n\nOur inference runs on CPU instances only (c6i.8xlarge). Decode is about 5 tok/s for "
    "a 7B model; is this the speed we should expect?",
]
SILENT = [
    # a GPU in the ticket: a CPU run beside it is a fallback or a comparison, never the setup
    "# Slow\n\nIt is a CPU-only build of the app, but I have an RTX 3060; generation is 2 tok/s.",
    "# Ollama slow\n\nI have an RTX 4090 but Ollama runs on the CPU only. Generation is slow, 2 tokens/s.",
    # a fallback, a guess, a denial, a load figure
    "# Slow\n\nThe server falls back to CPU only mode and generation is slow, about 2 tokens/s.",
    "# Slow\n\nShould I try CPU only? Generation is slow, about 2 tokens/s.",
    "# Slow\n\nThis is not a CPU-only setup. Generation is slow, 2 tokens/s.",
    "# Slow\n\nCPU usage is at 100 % and generation is slow, 3 tok/s.",
    # a failure on a CPU-only box is that failure's
    "# Crash\n\nOn a CPU-only server the model crashes with a segmentation fault while loading.",
    "# Hang\n\nOn a CPU-only box the server hangs at startup and never answers.",
    "# Error\n\nCPU only: RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",
    # no speed asked
    "# RAM\n\nI run Ollama CPU only. RAM stays unused during inference, why?",
]


@pytest.mark.parametrize("text", FIRES)
def test_a_cpu_only_run_asked_about_its_speed(text):
    verdict, findings = judged_issue(text)
    assert "ticket.cpu_only_run" in findings
    assert verdict.category == "expected_physics"


@pytest.mark.parametrize("text", SILENT)
def test_what_is_no_cpu_only_speed_question(text):
    _, findings = judged_issue(text)
    assert "ticket.cpu_only_run" not in findings
