"""Each claim family on paraphrases it was not written from, on negations, and on guesses.

The sentences here are written the way people describe these situations in tickets, in
several wordings each; none is copied from the corpus cases the rules were developed on.
"""

import pytest

from diagnose.evidence import Facts, Note
from rules import claims


def said(text: str, kind: str = "description") -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", kind, text))
    return facts


def affirmed(text: str, kind: str) -> bool:
    return bool(claims.find(said(text), kind))


def ruled_out(text: str, kind: str) -> bool:
    facts = said(text)
    return not claims.find(facts, kind) and bool(claims.find(facts, kind, negated=True))


PARAPHRASES = {
    "no_p2p": [
        "cudaDeviceCanAccessPeer returns 0 for every pair of cards",
        "nvidia-smi topo -p2p r shows CNS (chipset not supported) between GPU0 and GPU1",
        "We get 'peer access is not supported between these two devices' when loading the model.",
        "Peer-to-peer is unavailable on this board according to simpleP2P.",
        "Could not enable peer access between device 0 and 2.",
    ],
    "link_down": [
        "nvidia-smi nvlink -s prints <inactive> for every link of GPU3",
        "Two of the NVLinks on GPU5 are down since the last reboot.",
        "The NVLink bridge is not detected after moving the cards.",
    ],
    "nvidia_smi_slow_words": [
        "Running nvidia-smi takes forever on this box.",
        "nvidia-smi is extremely slow to print anything after boot.",
        "Every time I call nvidia-smi it hangs for a while.",
    ],
    "module_missing": [
        "lsmod shows that nvidia_peermem is not loaded.",
        "The nv_peer_mem module is missing on the compute nodes.",
        "We run without nvidia-peermem on these hosts.",
    ],
    "shm_error": [
        "NCCL WARN Error while creating shared memory segment /dev/shm/nccl-abc (size 9637888)",
        "posix_fallocate failed: No space left on device",
        "The pod's /dev/shm is only 64M",
        "shm_open failed with permission denied inside the job",
    ],
    "clock_power": [
        "nvidia-smi -q lists SW Power Cap as Active while drawing 180 W",
        "Under load the clocks drop to 900 MHz after a minute.",
        "HW Slowdown shows up during the benchmark.",
        "The card is power capped at 250 W by the vendor tool.",
        "It stays at P8 even while the model is generating.",
    ],
    "hardware_error": [
        "dmesg: NVRM: Xid (PCI:0000:41:00): 79, pid=1234, GPU has fallen off the bus.",
        "nvidia-smi reports uncorrectable ECC errors on GPU 6",
        "The driver says the GPU requires reset before it can be used again.",
        "NVRM: Xid 48 on the third card",
    ],
    "fabric_setup": [
        "cudaGetDeviceCount returned 802: system not yet initialized",
        "The nvidia-fabricmanager service failed to start after the driver update.",
        "transport/nvls.cc:150 NCCL WARN Cuda failure 'invalid argument'",
        "NVLS multicast set-up fails on the H100 node",
    ],
    "one_slow": [
        "One GPU is always slower than the others in the profile.",
        "Rank 5 lags behind every iteration and the rest of the ranks wait for it.",
        "GPU 3 is consistently slower in every step.",
        "Looks like a straggler node holds the whole job back.",
    ],
    "first_calls_slow": [
        "The first few all_reduce calls take 300 ms, later ones 2 ms.",
        "Only the initial iterations are slow; afterwards it is fine.",
        "First request takes much longer than the rest.",
    ],
    "memory_per_gpu": [
        "With TP=4 the engine takes 70 GB on each GPU even for a 7B model.",
        "It uses about 20GB per GPU no matter what.",
    ],
    "comm_share": [
        "The profile shows NCCL kernels take about 60% of the step.",
        "all-reduce accounts for 45 % of the decode time.",
        "40% of the time is spent in communication.",
    ],
    "overlap_slowdown": [
        "GEMM kernels take twice as long when they overlap with the NCCL all-gather.",
        "When compute overlaps with communication the attention kernel gets slower.",
    ],
    "tp_size_error": [
        "ValueError: Total number of attention heads (40) must be divisible by tensor parallel size (3).",
        "AssertionError: hidden_size % tp_size == 0 failed",
        "The input size is not aligned with the quantized weight shape.",
        "num_key_value_heads is not divisible by the tensor parallel world size",
    ],
    "cpu_ab": [
        "After we upgraded the CPU the throughput doubled.",
        "Same GPUs, different CPU: the Xeon box is far slower.",
        "The CPU is pegged at 100% on one core during decode.",
    ],
    "layer_split": [
        "llama.cpp with --split-mode layer across the three cards",
        "I load it with device_map='auto' in transformers",
        "gpu-split 20,20 in the loader settings",
    ],
    "isolated_ranks": [
        "Each task only sees its own GPU because Slurm binds one GPU per task.",
        "We run the two ranks in two containers on the same host.",
        "NCCL traffic between pods on one node is slow.",
        "srun --gpus-per-task=1 ./train",
    ],
    "wrong_results": [
        "The all-reduce results are all wrong between GPU 2 and GPU 5.",
        "Values come back corrupted when cards talk over PCIe.",
        "nccl-tests prints #wrong 1024 for every size",
        "Training runs but the accuracy doesn't go up with two GPUs.",
    ],
    "iommu_fault": [
        "kernel: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0014 address=0x1000 flags=0x0020]",
        "DMAR: [DMA Write NO_PASID] Request device [41:00.0] fault addr 0x0",
    ],
    "blocked_in_collective": [
        "The other ranks sit waiting for the broadcast from rank 0.",
        "Process 2 is blocked in allReduce while process 0 never calls it.",
    ],
    "vm_vs_bare_metal": [
        "It reaches full bandwidth on bare metal but only half inside the KVM guest.",
        "Inside the VM the all-reduce is 3x slower than on the physical host.",
        "We run the job in a Proxmox VM now. On bare metal the same nccl-tests run reached 180 GB/s.",
    ],
    "hang": ["all_reduce_perf hangs at the first size", "The job gets stuck after NCCL init.", "It freezes at 8 GPUs"],
    "eager_flag": [
        "We start the server with `vllm serve my-model --enforce-eager --tp 2`.",
        "llm = LLM(model=path, enforce_eager=True, tensor_parallel_size=4)",
        "python -m sglang.launch_server --model-path m --tp 8 --disable-cuda-graph",
        "compilation_config: {cudagraph_mode: NONE}",
        "The model runs in eager mode because graph capture fails on this GPU.",
    ],
    "pipeline_parallel": [
        "We split the 70B model with --pipeline-parallel-size 4 across the box.",
        "Using pipeline parallelism over 2 GPUs the throughput barely moves.",
        "TP2PP2 gives lower throughput than TP4 on the same node",
        "the engine was built with pp=2 and tp=1",
    ],
    "few_requests": [
        "Requests are sent one at a time from a single client.",
        "I benchmark with batch size 1.",
        "With only a single user the latency is what matters.",
        "Our concurrency is low, two or three users at most.",
    ],
    "small_collective_slow": [
        "An all_reduce of 4 KB takes 3 ms in our training loop.",
        "The broadcast of 512 bytes costs about 12 ms per step.",
    ],
}
PARAPHRASES["gdr_off"] = [
    "GPUDirect RDMA is not enabled on our ConnectX-6 nodes.",
    "How do I enable GDRDMA between the GPUs and the IB card?",
    "We cannot get GPU Direct RDMA working inside the container.",
]
PARAPHRASES["no_p2p"] += ["两张卡之间无法开启P2P，只能走PCIe", "显卡没有开启p2p"]

NEGATIONS = {
    "clock_power": ["HW Slowdown does not appear in nvidia-smi -q.", "There is no throttling on any GPU."],
    "hardware_error": ["There are no uncorrectable ECC errors.", "No Xid 79 in dmesg."],
    "hang": ["The run does not hang, it is just slow.", "It never hangs."],
    "one_slow": ["No single GPU is slower than the others."],
    "shm_error": ["There is no shm_open failure in the log."],
    "iommu_fault": ["There is no IO_PAGE_FAULT in dmesg."],
    "eager_flag": ["We never run with --enforce-eager."],
    "pipeline_parallel": ["We are not using pipeline parallelism at all."],
}
NEGATIONS["gdr_off"] = ["It is not that GPUDirect RDMA is unavailable: lsmod shows nvidia_peermem loaded."]



@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in PARAPHRASES.items() for t in ts])
def test_each_claim_family_reads_its_paraphrases(kind, text):
    assert affirmed(text, kind), (kind, text)


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in NEGATIONS.items() for t in ts])
def test_a_negated_claim_is_ruled_out_not_affirmed(kind, text):
    assert ruled_out(text, kind), (kind, text)


def test_a_negation_in_another_clause_does_not_reach_the_claim():
    # "not working" belongs to the first clause; each rank seeing one GPU is affirmed
    assert affirmed("NCCL is not working when each rank only sees its own GPU.", "isolated_ranks")


def test_guesses_are_marked_and_observations_are_not():
    guess = claims.find(said("Maybe the GPUs are being throttled by the power cap?"), "clock_power")
    seen = claims.find(said("nvidia-smi shows SW Power Cap active under load."), "clock_power")
    assert guess and guess[0].guess and seen and not seen[0].guess


def test_an_application_xid_is_not_a_hardware_fault():
    from rules.engine import evaluate

    for text, fires in (("dmesg shows NVRM: Xid 79, GPU has fallen off the bus", True),
                        ("dmesg shows NVRM: Xid 13 (Graphics Engine Exception) from our kernel", False)):
        findings = evaluate(said(text), only=["ticket.hardware_error"])
        assert bool(findings) == fires, text


def test_unrelated_sentences_claim_nothing():
    text = ("We serve Llama 3 70B on eight H100s with vLLM. Throughput is fine at night, we just want to know "
            "which batch size to use for the morning peak.")
    kinds = {c.kind for c in claims.claims(said(text)) if not c.negated}
    assert not kinds & {"no_p2p", "link_down", "clock_power", "hardware_error", "fabric_setup", "one_slow",
                        "shm_error", "tp_size_error", "wrong_results", "iommu_fault", "hang"}


def test_tool_output_is_read_only_for_what_tools_print():
    facts = Facts()
    facts.add(Note("issue.md:9", claims.OUTPUT_KIND,
                   "NCCL WARN Cuda failure 'system not yet initialized'\nthe job is stuck"))
    found = {c.kind: c for c in claims.claims(facts)}
    assert found["fabric_setup"].data["origin"] == "output"
    assert "hang" not in found  # words in a log are not the reporter's description of the symptom


def test_a_setting_carries_what_it_did():
    (c,) = claims.find(said("Setting NCCL_P2P_DISABLE=1 makes the hang go away."), "setting")
    assert (c.data["name"], c.data["value"], c.data["effect"]) == ("NCCL_P2P_DISABLE", "1", "fixes")
    (c,) = claims.find(said("With NCCL_P2P_DISABLE=1 it runs but is much slower."), "setting")
    assert c.data["effect"] == "fixes"  # it runs: the hang is gone, at a cost
    (c,) = claims.find(said("We export NCCL_DEBUG=INFO for the log below."), "setting")
    assert c.data["effect"] is None


@pytest.mark.parametrize("text,versions", [
    ("After upgrading vLLM from v0.5.4 to v0.6.1 throughput dropped by half.", ["0.5.4", "0.6.1"]),
    ("SGLang 0.3.2 gives 40 tok/s; 0.2.15 gave 55 tok/s on the same box (version 0.3.2 is slower).",
     ["0.3.2", "0.2.15"]),
])
def test_engine_releases_compared(text, versions):
    (c,) = claims.find(said(text), "engine_versions_compared")
    assert c.data["versions"][:2] == versions


@pytest.mark.parametrize("text", [
    "I benchmarked vllm=0.6.2 vs sglang=0.3.2 on 2 H100s and vllm is slightly faster.",
    "We compared vLLM 0.5.4 with SGLang 0.2.9 and the throughput of vLLM was lower.",
    "lmdeploy v0.4.2 gives 20% more throughput than vllm v0.4.3 on our A100.",
])
def test_two_engines_each_at_its_release_are_no_release_comparison(text):
    assert not claims.find(said(text), "engine_versions_compared")


def test_one_engine_named_twice_is_still_a_release_comparison():
    (c,) = claims.find(said("Since the upgrade vLLM 0.6.2 is slower than vLLM 0.5.4 on the same node."),
                       "engine_versions_compared")
    assert c.data["versions"][:2] == ["0.6.2", "0.5.4"]


def test_a_speed_up_factor_is_not_a_release():
    assert not claims.find(said("vLLM got a 3.8x speedup and TGI 1.23x after the CPU change."),
                           "engine_versions_compared")


def test_gpu_utilisation_figures():
    found = sorted(c.data["percent"] for c in claims.find(said(
        "GPU utilization sits at 35% on both cards, and nvidia-smi shows 100% volatile util on the first one."),
        "gpu_util"))
    assert found == [35.0, 100.0]


@pytest.mark.parametrize("text,percent", [
    # (cr10 follow-up) a change in utilisation is no utilisation figure: sp2's 利用率下降了 30% read as 30 %
    ("从 4 卡到 8 卡，GPU 利用率下降了 30%，速度基本一样。", None),
    ("After adding the second card, GPU utilization fell by about 25%.", None),
    ("GPU-Util went up by 20 % once we enabled CUDA graphs.", None),
    ("换成 tp=2 后 GPU 使用率提高了 15%。", None),
    # ... and the level it reached is one
    ("With TP=8 the GPU utilization dropped to 30%.", 30.0),
    ("GPU 利用率只有 30%。", 30.0),
])
def test_a_change_in_utilisation_is_not_its_level(text, percent):
    found = [c.data["percent"] for c in claims.find(said(text), "gpu_util")]
    assert found == ([percent] if percent is not None else [])


@pytest.mark.parametrize("text,kind", [
    ("Inference hangs forever once I use 4 GPUs", "hang"),
    ("Segmentation fault (core dumped) when loading with TP=2", "crash"),
    ("RuntimeError: NCCL error in ProcessGroupNCCL.cpp", "error"),
    ("Adding a second GPU does not make generation any faster", "scaling"),
    ("Why is TP=4 slower than TP=2 for a 7B model?", "scaling"),
    ("Throughput is the same with 8 GPUs as with 4", "scaling"),
    ("Is 300 GB/s busbw normal for 8x A100?", "normal?"),
    ("Decode is slow on our new box", "slow"),
    ("多卡推理速度没有提升", "scaling"),
    ("How do I choose a batch size?", "other"),
    ("Extremely low generation throughput since the upgrade", "slow"),
    ("all_reduce_perf stalls after the first line on our 4 cards", "hang"),
    ("The first all-reduce never returns on the new box", "hang"),
    ("Our GPUs are underutilized while serving the 13B model", "slow"),
    ("We see a performance regression on the new nodes", "slow"),
])
def test_symptom_classes(text, kind):
    assert claims.symptom(said(text)) == kind


def test_a_ruled_out_failure_is_not_the_symptom():
    assert claims.symptom(said("No errors and no hang, but two GPUs are not faster than one.")) == "scaling"


@pytest.mark.parametrize("text,kind", [
    ("Is NVLink down on this node?", "link_down"),
    ("Could the power cap be throttling the cards?", "clock_power"),
    ("Does the fabric manager fail to start here?", "fabric_setup"),
])
def test_a_yes_no_question_offers_a_cause_as_a_guess(text, kind):
    (c,) = claims.find(said(text), kind)
    assert c.guess


def test_a_why_question_presupposes_its_observation():
    (c,) = claims.find(said("Why are the first few all_reduce calls so slow?"), "first_calls_slow")
    assert not c.guess


def test_graph_flags_turned_on_or_attention_named_eager_are_not_eager_mode():
    for text in ("vllm serve m --enforce-eager=False --tp 2",
                 "model = AutoModel.from_pretrained(p, attn_implementation='eager')",
                 "enforce_eager=False keeps the CUDA graphs"):
        assert not affirmed(text, "eager_flag"), text


def test_a_large_or_fast_collective_is_not_a_small_slow_one():
    assert not affirmed("The all_reduce of 512 MB takes 20 ms.", "small_collective_slow")
    assert not affirmed("Our pipeline-parallel-size 1 run is the baseline.", "pipeline_parallel")


# A question asks about its last clause: a state reported in a clause before it is observed (the u13a02 thread's
# wording, https://github.com/weicj/vLLM-2080Ti-Definitive/issues/138, is not among these: paraphrases in both
# languages and other boards).
@pytest.mark.parametrize("text", [
    "两张3090 没有nvlink 没有开启p2p 但都在x16插槽 会有这么大的速度损失吗？",
    "我们的4张4090未开启P2P，推理速度只有一半，这正常吗？",
    "Two 4090s on PCIe, P2P is not enabled, could this explain half the speed?",
    "Dual A4000 workstation - peer access is not supported - would that cost this much?",
])
def test_a_state_reported_before_the_question_is_observed(text):
    (c,) = claims.find(said(text), "no_p2p")
    assert not c.guess


@pytest.mark.parametrize("text", [
    "是不是没有开启p2p？",
    "没有开启P2P吗？",
    "没开启 P2P 的话会慢吗？",
    "Is P2P not enabled on these cards?",
    "Is P2P not enabled, or is it the driver?",
    "If P2P is not enabled, would decode be slower?",
    "Maybe P2P is not enabled, could that be it?",
])
def test_a_state_inside_the_question_stays_a_guess(text):
    (c,) = claims.find(said(text), "no_p2p")
    assert c.guess


# The issue forms' checklists (SGLang/LMDeploy "I have searched related issues but cannot get the expected help.",
# vLLM's "Make sure you already searched ...", TabbyAPI's "I understand that the developers have lives ...") are the
# form's words: no complaint, no question; the reporter's own lines around them still count.
@pytest.mark.parametrize("checklist", [
    "- [x] 1. I have searched related issues but cannot get the expected help.",
    "- [X] I have searched related issues but cannot get the expected help.",
    "- [x] Make sure you already searched for relevant issues, and asked the chatbot living at the bottom right "
    "corner of the documentation page, which can answer lots of frequently asked questions.",
    "- [X] I understand that the developers have lives and my issue will be answered when possible.",
])
def test_an_issue_form_checklist_is_not_the_reporters_complaint(checklist):
    assert claims.complaint(said(f"### Checklist\n\n{checklist}\n\n### Describe the bug\n\nThe model loads.")) is None
    assert claims.complaint(said(f"{checklist}\n\nDecode is much slower than expected on two L40S.")) is not None


@pytest.mark.parametrize("text,kind", [
    ("The server receives requests but never responds to them; both GPUs sit at 100%.", "hang"),
    ("Requests are accepted and no response ever comes back.", "hang"),
    ("The endpoint never replies once TP=2 is set.", "hang"),
    ("请求发出去之后一直没有响应，显卡占用100%", "hang"),
    ("It never responds faster than 2 s per request.", "other"),
    ("The model never answered more than 20 tok/s on this box.", "other"),
])
def test_a_server_that_never_answers_hangs(text, kind):
    assert claims.symptom(said(text)) == kind
