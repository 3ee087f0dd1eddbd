"""The failure-category claim families (socket fallback, PCIe link, NUMA placement, NCCL release
change, host CPU load, clock state, shared memory) on paraphrases they were not written from, on
negations, and on tool output that states the opposite.

Each sentence is written the way these situations are described in tickets and in the tools'
own output formats (NCCL's INFO/WARN lines, lspci, nvidia-smi -q); none is copied from a corpus case.
"""

import pytest

from diagnose.evidence import Facts, Note
from rules import claims


def said(text: str, kind: str = "description") -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", kind, text))
    return facts


def found(text: str, kind: str, negated: bool = False, note: str = "description"):
    return claims.find(said(text, note), kind, negated=negated)


PARAPHRASES = {
    "net_socket": [
        "node2:1234:1234 [0] NCCL INFO NET/IB : No device found.",
        "NCCL INFO Using network Socket",
        "misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed",
        "The job across both servers falls back to plain TCP.",
        "It looks like NCCL is using sockets instead of InfiniBand between the hosts.",
        "Inside the pod the RDMA devices are not visible at all.",
        "We start the containers without --device=/dev/infiniband on each node.",
        "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0",
    ],
    "pcie_degraded": [
        "LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)",
        "GPU3 negotiates x4 instead of x16 after the reboot.",
        "The card is running at Gen1 under load.",
        "nvidia-smi says the PCIe link dropped to Gen2 on the second board.",
        "The slot only trained at 8 GT/s instead of 16 GT/s.",
    ],
    "pcie_slot": [
        "The second 3090 is connected through a PCIe riser cable.",
        "One card sits in an x4 slot wired to the chipset.",
        "Both GPUs share the lanes: PCIe 3.0 x8 each with bifurcation.",
        "The 4090 is an eGPU over Thunderbolt.",
    ],
    "numa_words": [
        "Half of the workers end up on the remote NUMA node.",
        "Binding each rank with numactl --cpunodebind made decoding much faster.",
        "Setting the CPU affinity per GPU helped a lot.",
        "The NUMA placement of the processes does not match the GPUs.",
    ],
    "nccl_upgrade": [
        "After we upgraded NCCL the all-reduce got 30% slower.",
        "Since updating to the newer NCCL the job hangs at the first collective.",
        "Downgrading NCCL brings the old bandwidth back.",
        "This looks like an NCCL regression on our H100 nodes.",
    ],
    "cpu_ab": [
        "htop shows one CPU core pegged at 100% while the GPU idles.",
        "The engine process sits at >100% CPU the whole time.",
        "The server looks CPU-bound: the scheduler overhead dominates each step.",
        "Is the GIL limiting how fast the workers feed the GPUs?",
        "The GPUs are idle most of the time, waiting on the CPU.",
        "Tokenization is the bottleneck for our short prompts.",
        "The dataloader is the bottleneck: the GPUs sit idle between batches.",
    ],
    "launch_overhead": [
        "Turning CUDA graphs back on made decoding 3x faster.",
        "With torch.compile mode=reduce-overhead it sped up a lot at batch 1.",
        "The profile shows thousands of tiny kernels per token.",
    ],
    "clock_power": [
        "SW Power Cap                      : Active",
        "The board's power draw never exceeds 180 W under full load.",
        "Under load the SM clock is stuck at 1005 MHz.",
    ],
    "shm_error": [
        "misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-WU88OE to 9637892 bytes",
        "RuntimeError: ncclShmOpen failed",
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
    ],
}

NEGATIONS = {
    "net_socket": ["NCCL is not falling back to TCP, the log shows NET/IB on both nodes."],
    "numa_words": ["There is no cross-NUMA traffic: every rank is bound to its own socket."],
    "cpu_ab": ["The CPU is not the bottleneck here."],
    "pcie_slot": ["No riser is involved, every GPU is in a full slot."],
    "pcie_degraded": ["No PCIe link is downgraded on this box."],
    "nccl_upgrade": ["The slowdown is not an NCCL regression: 2.18 and 2.21 give the same numbers."],
    "launch_overhead": ["It is not launch-bound on this GPU."],
}


# Issue 11 d: the same families in other words, other tools' field names, and other languages. Written from the
# tools' vocabulary (nvidia-smi --query-gpu field names, the engines' switches, lspci/nvidia-smi link fields) and
# from how Chinese-speaking reporters write these situations, not from a corpus case.
MORE_PARAPHRASES = {
    "numa_words": [
        "When the two GPUs come from different NUMA nodes the throughput is much lower than with a pair on one node.",
        "Pairs of cards with different CPU affinity are slower than a single card.",
        "两张卡跨NUMA的时候推理速度明显下降",
        "bandwidthTest gives 12 GB/s on GPU4-7 unless I run it with numactl --cpunodebind=1.",
    ],
    "clock_power": [
        "clocks_event_reasons.sw_power_cap : Active",
        "clocks_throttle_reasons.hw_slowdown, Active",
        "nvidia-smi --query-gpu=clocks_event_reasons.active --format=csv prints 0x0000000000000004 under load.",
        "Under full load the graphics clock stays at 210 MHz.",
        "跑一会儿就降频了，温度到了 88 度",
    ],
    "eager_flag": [
        "llm = LLM(model=path, tensor_parallel_size=2, enable_cuda_graph=False)",
        "backend_config = PytorchEngineConfig(tp=2, eager_mode=True)",
        "GGML_CUDA_DISABLE_GRAPHS=1 ./llama-server -m model.gguf -ngl 99",
        "pytorch_backend_config: use_cuda_graph: false",
    ],
    "pcie_degraded": [
        "After the chassis swap GPU2 shows gen 3 and width x8 while the others are gen4 x16.",
        "nvidia-smi --query-gpu says pcie.link.width.current = 4 on GPU2 during the run.",
        "Link Width\n    Max : 16x\n    Current : 4x",
    ],
    "cpu_ab": [
        "推理的时候 CPU占用一直100%，GPU利用率只有 30%",
        "单核100%，其他核都是空闲的",
        "Tokenization 这一步只在CPU上运行，要等半小时",
        "进程CPU使用无法超过100%",
        "On the cloud VM with 4 slow vCPUs it is half as fast; the cloud CPU is much slower.",
    ],
    "no_cpu_binding": ["双路服务器上没有绑定CPU"],
    "multi_socket": ["双路服务器，8张L40"],
    "net_socket": ["多机训练用的是socket网络，没有走IB"],
    "launch_overhead": [
        "The profiler shows most of the step is spent in CPU-side kernel launches.",
        "The GPU runs tiny kernels with big gaps in between.",
    ],
    "multi_node": ["双机训练速度很慢", "两台服务器一起跑的时候很慢"],
    "gpu_idle_words": [
        "GPU utilization is very low during generation.",
        "Low GPU usage when serving with the HF pipeline.",
        "While the tokenizer runs the GPU usage stays near zero.",
        "推理时GPU利用率很低",
    ],
}
MORE_NEGATIONS = {
    "cpu_ab": ["Every rank gets a different CPU affinity mask, which is what we want.",
               "The CPU is not slower on the new box, both are the same EPYC."],
    "eager_flag": ["We set enable_cuda_graph=True and the graphs are captured."],
    "clock_power": ["clocks_event_reasons.sw_power_cap : Not Active",
                    "clocks_event_reasons.active is 0x0000000000000001 while the GPU waits for work.",
                    "The SM clock stays at 210 MHz while the GPU is idle and goes to 1980 MHz under load."],
    "pcie_degraded": ["Link Width\n    Max : 16x\n    Current : 16x"],
    "gpu_idle_words": ["GPU utilization is not low, it stays at 99 % the whole time."],
}



def _every(*families: dict) -> list[tuple[str, str]]:
    return [(k, t) for family in families for k, ts in family.items() for t in ts]


@pytest.mark.parametrize("kind,text", _every(PARAPHRASES, MORE_PARAPHRASES))
def test_each_failure_family_reads_its_paraphrases(kind, text):
    assert found(text, kind), (kind, text)


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in NEGATIONS.items() for t in ts])
def test_a_ruled_out_failure_is_negated_not_affirmed(kind, text):
    assert not found(text, kind) and found(text, kind, negated=True), (kind, text)


@pytest.mark.parametrize("line", [
    "SW Power Cap                      : Not Active",
    "HW Slowdown                       : Not Active",
    "    HW Power Brake Slowdown       : Not Active",
    "SW Thermal Slowdown               : Not Active",
])
def test_an_inactive_clocks_event_reason_is_no_claim(line):
    # nvidia-smi -q prints every reason; pasted output with all of them "Not Active" shows no throttling
    assert not found(line, "clock_power") and not found(line, "clock_power", note="pasted_output")


def test_quoted_tool_output_is_read_for_the_socket_and_link_families():
    out = said("NCCL INFO NET/IB : No device found.\nNCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>", "pasted_output")
    assert [c.data.get("origin") for c in claims.find(out, "net_socket")] == ["output"]
    link = said("\t\tLnkSta:\tSpeed 5GT/s (downgraded), Width x8 (downgraded)", "pasted_output")
    assert claims.find(link, "pcie_degraded")


def test_a_working_link_or_a_busy_gpu_claims_nothing():
    assert not found("LnkSta: Speed 16GT/s (ok), Width x16 (ok)", "pcie_degraded")
    assert not found("GPU utilisation is 100% and the CPU is mostly idle.", "cpu_ab")
    assert not found("We run NCCL 2.21.5 on all nodes.", "nccl_upgrade")


@pytest.mark.parametrize("text,versions", [
    ("busbw by NCCL release:\n- v2.10.3-1: 57.06\n- v2.11.4-1: 7.05\n- v2.12.12-1: 7.07",
     ["2.10.3", "2.11.4", "2.12.12"]),
    ("NCCL 2.16.2 -> 92 GB/s, NCCL 2.17.1 -> 41 GB/s on the same two L40S", ["2.16.2", "2.17.1"]),
])
def test_figures_per_nccl_release_are_an_ab_comparison(text, versions):
    (c,) = claims.find(said(text), "nccl_versions_compared")
    assert c.data["versions"] == versions


@pytest.mark.parametrize("text", [
    # another package's releases, in a text that names NCCL elsewhere
    "We use NCCL for the all-reduce. torch 2.1.0: 30 tok/s, torch 2.3.1: 50 tok/s.",
    "NCCL is loaded from the wheel; cuda 1.2 -> 4 and python 2.7 -> 9 are irrelevant numbers here.",
])
def test_figures_per_release_of_another_package_are_no_nccl_comparison(text):
    assert claims.version_figures(text) == []
    assert not claims.find(said(text), "nccl_versions_compared")


@pytest.mark.parametrize("text", [
    # the contrast is the node count (or the host), not the release
    "NCCL 2.18.1 on the host, the container has NCCL 2.19.3. Training works on one node but fails on two nodes.",
    "The image ships NCCL 2.17.1 and the base OS NCCL 2.20.3; inference is fine on a single GPU and hangs with four.",
])
def test_works_and_fails_about_something_else_is_no_release_ab(text):
    assert not claims.failure_ab(text)
    assert not claims.find(said(text), "nccl_versions_compared")


def test_release_figures_that_agree_or_versions_without_figures_are_no_comparison():
    assert not claims.find(said("NCCL v2.19.3: 385 GB/s, v2.20.3: 383 GB/s"), "nccl_versions_compared")
    assert not claims.find(said("The source of NCCL v2.27.7 sets this constant; we run NCCL 2.27.1."),
                           "nccl_versions_compared")


@pytest.mark.parametrize("line", [
    # vLLM V0's start-up log, printed while it captures CUDA graphs (so graphs are on)
    "INFO 05-14 10:02:11 model_runner.py:1402] Capturing the model for CUDA graphs. This may lead to unexpected "
    "consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use "
    "'--enforce-eager' in the CLI.",
    # SGLang's out-of-memory advice
    "Possible solutions: 1. set --mem-fraction-static to a smaller value 2. disable CUDA graph by "
    "--disable-cuda-graph.",
])
def test_an_engine_recommending_eager_mode_is_not_running_in_it(line):
    assert not found(line, "eager_flag", note="pasted_output") and not found(line, "eager_flag")


def test_the_eager_switch_when_it_is_set():
    assert found("python -m vllm.entrypoints.openai.api_server --model m --enforce-eager -tp 2", "eager_flag")
    assert found('engine_args = {"enforce_eager": true, "tensor_parallel_size": 4}', "eager_flag")


@pytest.mark.parametrize("text,percent", [
    ("The GPU only uses 10% while one logical core is pegged.", 10.0),
    ("Each GPU is at 40% during decoding.", 40.0),
])
def test_utilisation_said_as_what_the_gpu_uses(text, percent):
    assert [c.data["percent"] for c in claims.find(said(text), "gpu_util")] == [percent]


@pytest.mark.parametrize("text", ["GPU memory at 90% on every card.", "The GPU fan runs at 80%.",
                                  "GPU temperature is at 85% of the limit."])
def test_a_gpus_memory_fan_or_temperature_is_not_its_utilisation(text):
    assert not claims.find(said(text), "gpu_util")


@pytest.mark.parametrize("text,compared", [
    ("With NCCL 2.18.6 the job runs fine; with NCCL 2.19.3 it hangs at the first all-reduce.", True),
    ("NCCL 2.21.5 crashes during init while 2.20.5 works.", True),
    ("We tried NCCL 2.18.6 and 2.19.3, both hang at the first all-reduce.", False),
    ("NCCL 2.21.5 and 2.20.5 give the same error.", False),
])
def test_one_release_failing_where_another_works_is_an_nccl_ab(text, compared):
    assert bool(claims.find(said(text), "nccl_versions_compared")) is compared


@pytest.mark.parametrize("kind,text", [
    ("bimodal", "The step time is bimodal: either 40 ms or 90 ms."),
    ("bimodal", "Decode speed keeps jumping between two levels, 35 tok/s and 18 tok/s."),
    ("bimodal", "Every few steps take twice longer than the rest."),
    ("single_gpu_repro", "It also happens on a single GPU with a plain matmul loop."),
    ("single_gpu_repro", "Without vLLM the same slowdown shows up in a bare PyTorch benchmark."),
])
def test_scope_and_two_level_step_times(kind, text):
    assert found(text, kind), (kind, text)


def test_steady_step_times_are_not_bimodal():
    assert not found("Each step takes 40 ms, very consistent across runs.", "bimodal")


@pytest.mark.parametrize("text,hang", [
    ("TP=4 throughput stuck\n\nWith TP=4 on 4x A100 the throughput does not improve.", False),
    ("Decode is stuck at 20 tok/s on this box\n\nWhy is it slow?", False),
    ("all_reduce_perf gets stuck at 128 MB and never finishes", True),
    ("The job is stuck after NCCL init on 8 GPUs", True),
])
def test_a_figure_that_is_stuck_is_not_a_hang(text, hang):
    assert (claims.symptom(said(text)) == "hang") is hang


def test_a_quote_reads_as_one_line_without_heading_marks():
    facts = said("# Gemma-2 27B crawls on 2x A6000\n\nvLLM with TP=2,\nboth GPUs at 30%.")
    quote = claims.symptom_quote(facts)[1]
    assert quote.startswith("Gemma-2 27B crawls on 2x A6000. vLLM with TP=2, both GPUs")
    assert all("\n" not in c.quote and not c.quote.lstrip("…").startswith("#") for c in claims.claims(facts))


def test_the_nccl_releases_of_a_text_are_read_once(monkeypatch):
    """The figures per release, the works/fails A/B and the engine-release check all start from the one list."""
    calls = []
    original = claims.nccl_versions
    monkeypatch.setattr(claims, "nccl_versions", lambda text: calls.append(text) or original(text))
    text = "With NCCL 2.18.3 the all-reduce works, with NCCL 2.19.3 it hangs; vLLM 0.4.2 was slower than 0.4.1."
    facts = said(text)
    (c,) = claims.find(facts, "nccl_versions_compared")
    assert c.data["versions"] == ["2.18.3", "2.19.3"]
    assert not claims.find(facts, "engine_versions_compared")  # NCCL's releases are not the engine's
    assert calls.count(text) == 1


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in MORE_NEGATIONS.items() for t in ts])
def test_the_opposite_state_is_no_claim_in_words_or_pasted_output(kind, text):
    assert not found(text, kind) and not found(text, kind, note="pasted_output"), (kind, text)


def test_cjk_runs_are_spaced_so_tool_words_match_inside_them():
    assert claims.spaced("进程CPU使用无法超过100%") == "进程 CPU 使用无法超过 100% "[:-1]
    assert claims.spaced("plain English text, 8 GPUs") == "plain English text, 8 GPUs"


@pytest.mark.parametrize("text,compared", [
    ("NCCL v2.16.2 is slower than v2.14.3 by a factor of 10 on the same A40 box.", True),  # NCCL's own "v" tags
    ("We observed a regression in NCCL 2.29.7.\n\nNCCL 2.29.2: see figure\n\nNCCL 2.29.7: see figure", True),
    # the release whose source is quoted and the release in use, with a complaint elsewhere: no A/B
    ("In v2.27.7-1, src/graph/topo.h sets the NVLink bandwidth to 40.\n\nOur busbw is lower than expected.\n\n"
     "We run NCCL 2.27.1.", False),
])
def test_two_nccl_releases_count_as_an_ab_only_when_the_text_contrasts_them(text, compared):
    assert bool(claims.find(said(text), "nccl_versions_compared")) is compared


@pytest.mark.parametrize("text,symptom", [
    ("# 多卡推理卡住了\n\n两张4090跑到一半就卡住，没有任何输出", "hang"),
    ("# vllm 启动报错\n\n张量并行2的时候启动失败", "error"),
    ("# 训练进程崩溃\n\n跑几个小时后进程崩溃", "crash"),
    ("# 没有报错但是很慢\n\n推理速度很慢", "slow"),  # "no error" rules the error out
])
def test_the_symptom_class_is_read_in_chinese_too(text, symptom):
    assert claims.symptom(said(text)) == symptom


def test_an_nccl_release_named_by_its_debian_package_is_read_and_an_unanchored_ab_does_not_crash():
    text = ("Our new container ships libnccl2=2.20.5-1+cuda12.4; the old one had libnccl2=2.18.3-1+cuda12.2 and was "
            "25% faster on the same 4 nodes.")
    (c,) = claims.find(said(text), "nccl_versions_compared")
    assert set(c.data["versions"]) == {"2.20.5", "2.18.3"}
