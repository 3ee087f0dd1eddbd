"""Review of issue 11 n: each sentence the reviewer found misread, two paraphrases of it, and the reading that must
stay (the negation of the fix). Every sentence is written for this test, none copied from a corpus case.
"""

import pytest
from test_claims_host_n import TOP, observed, said, verdict

from rules import claims

# --------------------------------------------------------------------------- 1. one core busy with the GPU busy too


@pytest.mark.parametrize("text", [
    TOP.format(cpu="100.0", cmd="python3", gpu="at 99% utilization"),   # the reviewer's case
    TOP.format(cpu="99.6", cmd="python", gpu="busy at 97% utilization"),
    TOP.format(cpu="100.0", cmd="vllm", gpu="at 100% GPU-Util the whole time"),
])
def test_a_core_at_its_limit_beside_a_busy_gpu_is_no_host_limit(tmp_path, text):
    assert verdict(tmp_path, text).category != "host_bound"


@pytest.mark.parametrize("text", [
    "The python process is at 100% during model loading, which is expected. Decode is slow.",
    "Training is slow. The main process sits at 100% in top; nvidia-smi shows the GPU at 98% utilization.",
    "Generation is slow and the server process is pegged at 100% while the model loads.",
])
def test_a_process_at_one_core_alone_is_no_host_limit(tmp_path, text):
    assert verdict(tmp_path, text).category != "host_bound"


@pytest.mark.parametrize("text", [
    TOP.format(cpu="100.0", cmd="python3", gpu="at only 30% utilization"),
    "Decode is slow. The EngineCore process sits at 100% in top while the GPU is mostly idle.",
])
def test_a_core_at_its_limit_beside_an_idle_gpu_stays_a_host_limit(tmp_path, text):
    assert verdict(tmp_path, text).category == "host_bound"


# --------------------------------------------------------------------------- 2. GPU set-up against GPU set-up


@pytest.mark.parametrize("text", [
    "With a single request, multi-gpu is slower than single-gpu (vLLM, 2x A100). Why?",
    "For one prompt at a time the multi-gpu setup is much slower than 1 GPU.",
    "Our dual-gpu box runs slower than the single-gpu box at batch 1.",
])
def test_one_gpu_layout_slower_than_another_is_no_gpu_build(text):
    assert not observed(text, "gpu_build_slower"), text


@pytest.mark.parametrize("text", [
    "whisper-gpu is slower than whisper on the CPU for one short clip.",
    "onnxruntime-gpu runs slower than the plain onnxruntime package for one image.",
])
def test_a_tools_gpu_build_slower_than_its_cpu_build_stays_read(text):
    assert observed(text, "gpu_build_slower"), text


# --------------------------------------------------------------------------- 3. gaps, pauses and idle GPUs


@pytest.mark.parametrize("text", [
    "In nsys there is a gap between the kernels, and the next iteration is slower.",
    "After a 30 s pause the next request has higher throughput.",
    "After a 5 minute break I restarted the server and it was slow from then on.",
    "Nsight shows a gap between two kernels, and then the next iteration is slower.",
    "Following a short pause the next request gets higher tokens per second.",
    "After a long break we rebooted the node and decode was slow ever since.",
])
def test_what_is_no_idle_gap_slowdown(text):
    assert not observed(text, "idle_gap_slow"), text


@pytest.mark.parametrize("text", [
    "If the GPU sits idle for a minute, is the following query slower?",
    "If the card stays idle for 30 s, is the next request slower than the rest?",
    "When the server is idle for a while, does the next call take longer?",
])
def test_a_conditional_question_about_idle_time_is_a_guess(text):
    assert not observed(text, "idle_gap_slow"), text


@pytest.mark.parametrize("text", [
    "After a 30 s pause the next request has higher latency.",
    "If the GPU sits idle for a minute, the following query is slow.",
    "When the GPU sits idle for a minute, the following query is 3x slower, why?",  # a report asking why
    "Every request after a quiet period takes 3x longer.",
    "With a 10 s sleep between calls the next call is 2x slower.",
])
def test_a_slower_call_after_a_pause_stays_read(text):
    assert observed(text, "idle_gap_slow"), text


# --------------------------------------------------------------------------- 4. a reason given for the layer count


@pytest.mark.parametrize("text", [
    "I run llama-server with -ngl 40 since more would not fit in 24 GB.",
    "We use -ngl 30 because a higher count could run out of memory.",
    "I set -ngl 35, as 40 layers might not fit on the card.",
])
def test_a_layer_count_with_its_reason_is_the_setting_in_use(text):
    found = [c for c in claims.partial_offload(said(text)) if c.data["form"] == "ngl"]
    assert found and not found[0].guess, text


def test_a_layer_count_in_the_conditional_stays_a_guess():
    found = [c for c in claims.partial_offload(said("-ngl 40 would be slower, so I use -ngl 99."))
             if c.data["form"] == "ngl" and c.data["on_gpu"] == 40]
    assert found and found[0].guess


def test_the_reviewers_partial_offload_case_is_a_host_limit(tmp_path):
    text = ("# Llama 3 70B Q4_K_M slow on one RTX 3090\n\nI run llama-server with -ngl 40 since more would not fit "
            "in 24 GB. I get 2 tok/s, why so slow?")
    assert verdict(tmp_path, text).category == "host_bound"


# --------------------------------------------------------------------------- 5. the board's stated default


def _limit(text: str):
    found = claims.find(said(text), "power_limit") + claims.find(said(text), "power_limit_ok")
    return found[0] if found else None


@pytest.mark.parametrize("text", [
    "The power limit is 250 W and it draws max 300 W during prefill; decode is slow.",
    "The power limit is 250 W; it normally pulls 300 W in prefill.",
    "Power limit set to 250 W, maximum draw 300 W while it runs.",
])
def test_the_draw_is_no_stated_default(text):
    c = _limit(text)
    assert c is None or c.data.get("tdp_w") != 300, text


@pytest.mark.parametrize("text, watts", [
    ("The power limit is 250 W (Default Power Limit : 350.00 W).", 350),
    ("The power limit is 250 W, default 350.00 W.", 350),
    ("The power limit is 250 W of its 350 W TDP.", 350),
])
def test_the_stated_default_is_read_as_nvidia_smi_writes_it(text, watts):
    c = _limit(text)
    if c and c.data.get("reference") == "catalog":
        pytest.skip("a catalogued GPU's own rating is used first")
    assert c and c.data.get("tdp_w") == watts, text


# --------------------------------------------------------------------------- 6. binding on the GPUs' own node


@pytest.mark.parametrize("text", [
    "GPU0 is attached to NUMA node 0, and we bind the server with numactl to node 0; the NIC sits on node 1.",
    "The GPUs hang off socket 0 and the worker is pinned to socket 0 too, while the disks are on socket 1.",
    "We bind with numactl to node 1, since GPUs 4-7 are attached to node 1 and the NIC to node 0.",
])
def test_a_binding_on_the_gpus_node_is_no_mismatch(text):
    assert not observed(text, "numa_words"), text


@pytest.mark.parametrize("text", [
    "GPUs 0-3 hang off NUMA node 0, but the worker is pinned with numactl to node 1.",
    "GPU2 and GPU3 are on socket 1, the container runs with --cpuset-cpus pinned to socket 0.",
])
def test_a_binding_on_the_other_node_stays_a_mismatch(text):
    assert observed(text, "numa_words"), text


# --------------------------------------------------------------------------- 7. battery named without a speed


@pytest.mark.parametrize("text", [
    "I only use it on battery when travelling.",
    "On battery I only run small models, so that is fine.",
    "I use the laptop on battery only at lower brightness.",
])
def test_battery_without_a_speed_is_no_power_throttle(text):
    assert not observed(text, "clock_power"), text


@pytest.mark.parametrize("text", [
    "On battery it only gets 4 tok/s instead of 9.",
    "Generation is much slower on battery.",
    "On battery the GPU runs at lower clocks and tokens drop.",
])
def test_a_speed_on_battery_stays_a_power_throttle(text):
    assert observed(text, "clock_power"), text


def test_the_reviewers_battery_case_is_no_throttle(tmp_path):
    text = ("I only use it on battery when travelling. Generation is slow, 9 tok/s on an RTX 4060 laptop with "
            "a 7B model.")
    assert verdict(tmp_path, text).category != "throttling"


# --------------------------------------------------------------------------- 8. one evidence, one reading


@pytest.mark.parametrize("text", [
    "Since the upgrade generation went from 38 to 24 tok/s.",
    "After the driver update decode fell from 50 tok/s to 31 tok/s.",
    "Throughput dropped from 5100 to 2950 samples/s on the new image.",
])
def test_a_fallen_rate_is_a_complaint_and_a_slow_symptom(text):
    assert claims.symptom(said(text)) == "slow"
    assert claims.complaint(said(text)) is not None


@pytest.mark.parametrize("text", [
    "Since the upgrade generation went from 24 to 38 tok/s.",
    "After the driver update decode went from 31 tok/s to 50 tok/s.",
])
def test_a_risen_rate_is_neither(text):
    assert claims.symptom(said(text)) != "slow"
    assert claims.complaint(said(text)) is None


# --------------------------------------------------------------------------- smaller: a plural read as a unit


@pytest.mark.parametrize("head", [
    "Correctable ECC error counts for the GPU(s):",
    "Retired pages per device(s):",
    "Temperature of node(s):",
])
def test_a_plural_in_brackets_is_no_unit(head):
    text = f"{head}\nGPU 0: 0\nGPU 1: 0\nGPU 2: 3\nGPU 3: 0\n"
    assert claims._listed_rank_figures(text) == {}


def test_a_unit_in_brackets_stays_read():
    text = "step time (ms):\nrank 0: 41\nrank 1: 40\nrank 2: 95\nrank 3: 42\n"
    assert set(claims._listed_rank_figures(text)) == {"ms"}


# --------------------------------------------------------------------------- smaller: asking for help in Chinese


@pytest.mark.parametrize("text, kind", [
    ("跑了一晚上之后掉卡了，有没有办法恢复？", "hardware_error"),
    ("其中一张卡明显比其他卡慢，能不能帮忙看看？", "one_slow"),
    ("训练几个小时后掉卡了，有没有人遇到过？", "hardware_error"),
    ("有一张卡总是比其他卡慢，能不能帮我分析一下？", "one_slow"),
])
def test_asking_for_help_in_chinese_leaves_the_observation(text, kind):
    assert observed(text, kind), text


@pytest.mark.parametrize("text, kind", [
    ("是不是掉卡了？", "hardware_error"),
    ("会不会是其中一张卡比其他卡慢？", "one_slow"),
])
def test_a_chinese_yes_no_question_stays_a_guess(text, kind):
    assert not observed(text, kind), text
