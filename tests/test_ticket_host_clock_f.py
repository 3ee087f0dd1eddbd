"""Issue 11 f: the host starving the GPU, a GPU's clock state under heat or idle gaps, NCCL's IB transport
switched off, and an NCCL A/B given as one block of output per release.

Each sentence is written the way these situations are worded across many threads and in the tools' own
messages (NVML's utilisation, PyTorch Lightning's DataLoader warning, nvidia-smi's temperatures, NCCL's
NCCL_IB_DISABLE documentation); none is copied from a corpus case. Paraphrases must be read, negations and
the opposite state must not.
"""

import pytest

from diagnose.evidence import Facts, Note, Workload
from rules import claims, ticket_rules
from rules.engine import evaluate, ticket_verdict


def said(text: str, kind: str = "description") -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", kind, text))
    return facts


def found(text: str, kind: str, negated: bool = False):
    return claims.find(said(text), kind, negated=negated)


PARAPHRASES = {
    "input_starved": [
        "The data loader is the bottleneck, the four V100s wait between batches.",
        "Image decoding on the CPU cannot keep up with the GPUs.",
        "The GPUs sit idle waiting for the next batch.",
        "UserWarning: The dataloader, train dataloader 0, does not have many workers which may be a bottleneck.",
        "Most of each step is spent in the data loader according to the profiler.",
        "Training pauses every 8 batches for several seconds, then continues.",
        "At the start of each epoch the run is stuck for half a minute.",
        "数据加载太慢了，GPU一直在等",
    ],
    "util_swings": [
        "GPU utilization fluctuates between 0% and 100% all the time.",
        "nvidia-smi shows the GPU usage jumping up and down during inference.",
        "Spiky GPU utilization on every card during training.",
        "GPU load drops to 0 for a second and then climbs back to 95%.",
        "训练时GPU利用率忽高忽低",
    ],
    "idle_gap_slow": [
        "When I add a sleep between inference calls each call gets much slower.",
        "The latency grows with the idle time between requests.",
        "Calls that come every few seconds take 60 ms, back-to-back calls take 8 ms.",
        "After the GPU has been idle for a minute the next request shows a latency spike.",
    ],
    "rdma_off": [
        "With RDMA disabled the cross-node step takes twice as long.",
        "We had to turn off InfiniBand because the job hung at start-up.",
        "RoCE is switched off in our launch script.",
    ],
    "slowdown_over_time": [
        "After 20 minutes the throughput drops to 70% of the start.",
        "The training gets slower and slower.",
        "跑一段时间之后就变慢了",
    ],
    "launch_overhead": [
        "Wrapping the decoder in a CUDA graph gave a 4.5x speed-up.",
        "The profile shows 2400 kernel launches per token.",
    ],
    "eager_flag": ["Batches larger than the captured sizes fall back to eager execution."],
}

NEGATIONS = {
    "input_starved": ["The data loader is not the bottleneck, it is ten times faster than the model."],
    "util_swings": ["GPU utilization does not fluctuate, it stays at 97 %."],
    "idle_gap_slow": ["Latency does not increase when there is a delay between calls."],
}

OPPOSITE = {
    "util_swings": ["GPU utilization is steady at 98% during training."],
    "rdma_off": ["IB is not disabled, NCCL_IB_DISABLE is unset.", "We enabled RoCE on all nodes."],
    "input_starved": ["The dataloader with 16 workers prepares a batch in 5 ms."],
    "idle_gap_slow": ["Every request takes 12 ms whether they come back to back or not."],
}


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in PARAPHRASES.items() for t in ts])
def test_each_family_reads_its_paraphrases(kind, text):
    assert found(text, kind), (kind, text)


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in NEGATIONS.items() for t in ts])
def test_a_ruled_out_situation_is_negated(kind, text):
    assert not found(text, kind) and found(text, kind, negated=True), (kind, text)


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in OPPOSITE.items() for t in ts])
def test_the_opposite_state_claims_nothing(kind, text):
    assert not found(text, kind), (kind, text)


@pytest.mark.parametrize("text,celsius,hot", [
    ("The GPU sits at 87C under load.", 87, True),
    ("GPU temperature climbs to 91 °C after a few minutes.", 91, True),
    ("显卡温度到了 88 度", 88, True),
    ("The card stays at 65C the whole time.", 65, False),
])
def test_gpu_temperatures_and_their_thermal_limit(text, celsius, hot):
    (c,) = claims.find(said(text), "gpu_temp")
    assert (c.data["celsius"], c.data["hot"]) == (celsius, hot)


@pytest.mark.parametrize("text", ["The CPU package reaches 95C while tokenizing.", "Room temperature is 30 C.",
                                  "Batch 64 at 90 ms per step."])
def test_other_temperatures_or_figures_are_no_gpu_temperature(text):
    assert not claims.find(said(text), "gpu_temp")


def facts_of_issue(tmp_path, text: str) -> Facts:
    from diagnose.bundle import read_bundle
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "issue.md").write_text(text)
    return read_bundle([folder])


def verdict(facts: Facts):
    from diagnose.commands.ticket import ticket_predictions
    findings = evaluate(facts, ticket_predictions(facts))
    return ticket_verdict(facts, findings), findings


BLOCKS = """# all_gather slower with the newer library

Same 8 GPUs, same test program.

results with NCCL 2.19.3:

```
rank 0 elapsed time: {a} s
rank 1 elapsed time: {a} s
```

results with NCCL 2.17.1:

```
rank 0 elapsed time: {b} s
rank 1 elapsed time: {b} s
```
"""


def test_one_block_of_output_per_release_is_an_nccl_ab_when_the_figures_differ(tmp_path):
    facts = facts_of_issue(tmp_path, BLOCKS.format(a="31.5", b="12.2"))
    (c,) = claims.find(facts, "nccl_versions_compared")
    assert set(c.data["versions"]) == {"2.19.3", "2.17.1"} and c.data["origin"] == "output"
    answer, _ = verdict(facts)
    assert answer.category == "nccl_regression"


def test_blocks_per_release_with_the_same_figures_are_no_ab(tmp_path):
    facts = facts_of_issue(tmp_path, BLOCKS.format(a="12.4", b="12.2"))
    assert not claims.find(facts, "nccl_versions_compared")


def test_swinging_utilisation_on_several_gpus_is_the_host_not_ranks_waiting(tmp_path):
    facts = facts_of_issue(tmp_path, "# Training slow on 4x RTX 3090\n\nGPU utilization keeps fluctuating "
                                     "between 0% and 100% on all four cards and each epoch takes far longer than "
                                     "expected.\n")
    answer, findings = verdict(facts)
    assert answer.category == "host_bound"
    assert not [f for f in findings if f.rule == "ticket.gpu_utilisation" and f.category == "expected_physics"]


def test_a_pause_every_few_batches_is_no_pcie_hang(tmp_path):
    facts = facts_of_issue(tmp_path, "# Training freezes periodically on 8x V100\n\nThe run freezes every 4 "
                                     "iterations for a few seconds and then continues; it never stops for good.\n")
    answer, findings = verdict(facts)
    assert answer.category == "host_bound"
    assert not [f for f in findings if f.rule == "ticket.hang_on_pcie"]


def test_a_hot_gpu_beside_a_slowdown_is_thermal_throttling_and_a_cool_one_is_not():
    hot = said("Training on the RTX 3090 gets slower after an hour; the GPU is at 89C by then.")
    assert [f.category for f in ticket_rules.gpu_heat(hot)] == ["throttling"]
    cool = said("Training on the RTX 3090 gets slower after an hour; the GPU is at 70C by then.")
    assert not list(ticket_rules.gpu_heat(cool))
    quiet = said("The GPU is at 89C during training on the RTX 3090, that is all I wanted to report.")
    assert not list(ticket_rules.gpu_heat(quiet))  # a temperature alone, with nothing slow, is no finding


def test_idle_gaps_point_at_clock_state_but_only_the_first_calls_do_not():
    gaps = said("Requests that arrive every few seconds take 80 ms while back-to-back requests take 9 ms.")
    assert [f.category for f in ticket_rules.idle_clocks(gaps)] == ["throttling"]
    first = said("The first few requests take 900 ms, then every request takes 9 ms; with a delay between "
                 "requests it gets slower again.")
    assert not list(ticket_rules.idle_clocks(first))  # warm-up said: ticket.explained answers the first calls


def test_rdma_switched_off_across_nodes_is_the_socket_fallback():
    facts = said("Our two-node DDP job is twice as slow since RoCE was disabled in the launch script.")
    facts.add(Workload("ticket.toml:1", nodes=2))
    assert [f.category for f in ticket_rules.net_socket(facts)] == ["socket_fallback"]
    one_node = said("Since RoCE was disabled in the launch script nothing changed on our single server.")
    assert not list(ticket_rules.net_socket(one_node))


# Tool messages and words for a narrowed link, a missing RDMA device, memory on the far NUMA node, and no binding.
TOOL_WORDS = {
    "pcie_degraded": [
        "pci 0000:3b:00.0: 31.504 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x4 link at 0000:3a:00.0 "
        "(capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)",
        "GPU-Z reports Bus Interface: PCIe x16 4.0 @ x8 4.0 for the second card.",
    ],
    "net_socket": [
        "ibv_devinfo inside the pod prints: No IB devices found",
        "NCCL INFO NET/OFI Couldn't find any optimal provider",
    ],
    "numa_words": [
        "numastat -p shows nearly all of rank 3's pages on the remote node.",
        "The worker's memory sits on node 1 while its GPU is attached to node 0.",
        "all_reduce_perf gets 9 GB/s, far lower than with --bind-to numa.",
    ],
    "no_cpu_binding": ["mpirun -np 8 --bind-to none ./all_reduce_perf -g 1"],
    "multi_node": ["The two-node run is slower than one node."],
}
TOOL_OPPOSITES = {
    "pcie_degraded": ["GPU-Z reports Bus Interface: PCIe x16 4.0 @ x16 4.0."],
    "numa_words": ["The worker's memory sits on node 0 and its GPU is attached to node 0 as well."],
    "no_cpu_binding": ["mpirun -np 8 --bind-to numa ./all_reduce_perf -g 1"],
}


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in TOOL_WORDS.items() for t in ts])
def test_tool_messages_for_links_rdma_and_numa_are_read(kind, text):
    assert found(text, kind), (kind, text)


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in TOOL_OPPOSITES.items() for t in ts])
def test_a_full_link_local_memory_or_bound_ranks_claim_nothing(kind, text):
    assert not found(text, kind), (kind, text)


def test_a_bounded_utilisation_after_a_verb_is_read_as_a_low_share():
    (u,) = claims.find(said("The GPUs mostly run at less than 20% while one core is busy."), "gpu_util")
    assert (u.data["percent"], u.data["below"]) == (20.0, True)


def test_gpus_waiting_for_the_cpus_and_a_utilisation_rate_swinging_from_zero():
    assert found("The GPUs are waiting for the CPUs most of the time.", "cpu_ab")
    assert found("On the A800 the utilization rate fluctuates between 0 and 100 during decoding.", "util_swings")
    assert not found("The CPU utilization fluctuates between 0 and 100 while idle.", "util_swings")


def test_a_cpu_that_only_uses_one_core_is_no_cpu_only_engine():
    facts = said("The CPU only uses one core at 100% while the GPU runs at less than 20%.")
    assert [f.category for f in ticket_rules.cpu_bound(facts)] == ["host_bound"]
    cpu_mode = said("Running in CPU-only mode, the CPU sits at 100% on one core and it is slow.")
    assert not list(ticket_rules.cpu_bound(cpu_mode))


def test_release_figures_in_a_markdown_table_are_an_ab_only_when_they_differ():
    table = "| NCCL version | busbw (GB/s) |\n|---|---|\n| 2.18.5 | 182 |\n| 2.21.5 | {b} |\n"
    assert claims.version_figures(table.format(b="121")) == ["2.18.5", "2.21.5"]
    assert claims.version_figures(table.format(b="180")) == []


def test_eager_mode_beside_a_failure_is_a_lead_when_the_ticket_complains_of_speed():
    slow = said("We run SGLang with --disable-cuda-graph because graph capture fails, and decode is only 20 tok/s.")
    (f,) = ticket_rules.eager_flag(slow)
    assert f.category == "eager_mode" and f.confidence == 0.5
    crash = said("With --enforce-eager the server still crashes at start-up with an illegal memory access.")
    assert not list(ticket_rules.eager_flag(crash))  # the flag as a workaround for a crash is no cause


def test_a_cluster_without_infiniband_is_no_switched_off_transport():
    assert not found("Our two nodes are connected without InfiniBand, just 10GbE.", "rdma_off")
    assert found("Disabling InfiniBand in the job script made the two-node run twice as slow.", "rdma_off")


def test_low_utilisation_in_data_parallel_training_is_the_host_but_in_tensor_parallel_serving_the_ranks():
    ddp = said("DDP training on 4 GPUs is slow: each GPU shows only 40% utilization.")
    ddp.add(Workload("ticket.toml:1", gpu_count=4))
    assert [f.category for f in ticket_rules.gpu_utilisation(ddp)] == ["host_bound"]
    tp = said("Serving with vLLM at TP=4 is slow: each GPU shows only 40% utilization.")
    tp.add(Workload("ticket.toml:1", gpu_count=4, tp=4))
    assert [f.category for f in ticket_rules.gpu_utilisation(tp)] == ["expected_physics"]


@pytest.mark.parametrize("kind,text", [
    ("idle_gap_slow", "There are gaps between the kernels and the decode step is slower than expected."),
    ("idle_gap_slow", "The gap between TP=1 and TP=2 is higher than we expected."),
    ("idle_gap_slow", "When the GPU is idle the latency is 5 ms, that is fine."),
    ("input_starved", "GPU 1 waits for data from the other GPU in every all-reduce."),
    ("input_starved", "Augmentation takes 10% of the step."),
    ("util_swings", "GPU load spikes to 100% during prefill, as expected."),
])
def test_gaps_between_kernels_waits_on_peers_and_brief_peaks_are_not_host_or_idle_claims(kind, text):
    assert not found(text, kind), (kind, text)


@pytest.mark.parametrize("kind,text", [
    ("net_socket", "It seems the traffic is going through ethernet rather than infiniband."),
    ("net_socket", "ib_write_bw works but NCCL does not use the IB card."),
    ("pcie_degraded", "The GPU is running at PCIe 3.0 x4 even though the slot is x16."),
    ("pcie_degraded", "nvidia-smi reports the link width as x1 for GPU 3."),
    ("nccl_upgrade", "Rolling back NCCL to 2.18 fixes the slowdown."),
    ("slowdown_over_time", "Throughput degrades over a few hours."),
    ("slowdown_over_time", "The speed decreases after running for a while."),
])
def test_more_word_orders_of_the_failure_families(kind, text):
    assert found(text, kind), (kind, text)


@pytest.mark.parametrize("kind,text", [
    ("net_socket", "NCCL does use the IB card: the log shows NET/IB on both nodes."),
    ("pcie_degraded", "nvidia-smi reports the link width as x16 for every GPU."),
    ("slowdown_over_time", "The speed stays flat over a few hours."),
])
def test_their_opposites_claim_nothing(kind, text):
    assert not found(text, kind), (kind, text)


def test_rolling_nccl_back_as_the_fix_still_names_the_release_change():
    facts = said("Rolling back NCCL to 2.18 fixes the slowdown on our 8x H100 nodes.")
    assert [f.category for f in ticket_rules.nccl_upgrade(facts)] == ["nccl_regression"]


CHINESE_AND_API_WORDS = {
    "no_p2p": ["P2P between GPU0 and GPU1 is not available on this board.",
               "torch.cuda.can_device_access_peer(0, 1) returns False.",
               "Device=0 CANNOT Access Peer Device=1"],
    "net_socket": ["多机通信走的是以太网，没有用上IB", "NCCL没有使用RDMA"],
    "cpu_ab": ["CPU单核跑满，GPU利用率只有20%", "推理时CPU成为瓶颈"],
    "eager_flag": ["关闭了CUDA graph之后速度很慢"],
    "clock_power": ["GPU频率被锁在1200MHz"],
    "pcie_degraded": ["显卡跑在PCIe x4上", "PCIe 链路降到了 Gen1"],
    "numa_words": ["进程和GPU不在同一个NUMA节点上"],
    "util_swings": ["GPU利用率一直在0和100之间跳"],
}


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in CHINESE_AND_API_WORDS.items() for t in ts])
def test_the_families_in_chinese_and_in_the_apis_own_words(kind, text):
    assert found(text, kind), (kind, text)


@pytest.mark.parametrize("kind,text", [
    ("no_p2p", "torch.cuda.can_device_access_peer(0, 1) returns True."),
    ("no_p2p", "P2P between the GPUs is available and works."),
    ("pcie_degraded", "显卡跑在PCIe x16上"),
    ("numa_words", "进程和GPU在同一个NUMA节点上"),
])
def test_the_same_words_for_a_working_state_claim_nothing(kind, text):
    assert not found(text, kind), (kind, text)
