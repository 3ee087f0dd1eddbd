"""Issue 11 (session s35, pass bydesign35): behaviour of the driver, the container toolkit and Kubernetes that reporters
of multi-GPU machines take for faults, answered from rules/catalog/by_design.toml by ticket.documented_behaviour: GPU
numbers that differ between CUDA and nvidia-smi, nvidia-smi's utilisation read as a share of the GPU, a container that
sees every GPU when it asked for none, and a GPU two pods cannot share.

Each new row is tested on paraphrases written from its documentation, on near-misses that carry a fault (an error, a
hang, a setting that should have worked) and must neither fire the row nor be answered `healthy`, and on the real first
posts kept in tests/data/bydesign35 (threads, settled answers and the study/check split in its SOURCES.md).
"""

from pathlib import Path

import pytest
from test_bydesign31 import answer, documented, said  # the same readers of a paste and of a sentence

from diagnose.bundle import read_bundle
from rules.documented_behaviour import documented_behaviour_seen

DATA = Path(__file__).parent / "data" / "bydesign35"
NEW_ROWS = ("cuda_device_order", "gpu_utilization_is_time", "container_sees_all_gpus", "gpu_not_shared_between_pods")


# (every row's documentation, `unless` and pattern speed: tests/test_bydesign31.py)


PARAPHRASES = [
    ("cuda_device_order",
     "# cuda:0 is not GPU 0 in nvidia-smi\n\nOn our box with an RTX 4090 and an RTX 3060, PyTorch's device numbers "
     "don't match nvidia-smi: cuda:0 is the 4090, which nvidia-smi lists as GPU 1. Which numbering is right?"),
    ("cuda_device_order",
     "# GPU index mismatch between vLLM and nvidia-smi\n\nI started vLLM with CUDA_VISIBLE_DEVICES=0 on a server with "
     "an A6000 and an A4000, but nvidia-smi shows the memory being used on GPU 1. Is the device ordering swapped?"),
    ("gpu_utilization_is_time",
     "# How is utilization calculated\n\nI read utilization.gpu with nvidia-smi --query-gpu every second. How is this "
     "utilization calculated: is it the percentage of SMs in use?"),
    ("gpu_utilization_is_time",
     "# Meaning of GPU-Util\n\nWhat does GPU-Util in nvidia-smi actually measure on our 8x H100 node? Is it the "
     "percentage of the CUDA cores that are busy?"),
    ("container_sees_all_gpus",
     "# All GPUs visible in container\n\nI run a CUDA image with docker run and no --gpus option on the nvidia "
     "runtime, and nvidia-smi inside the container lists all 8 GPUs of the host. Why does a container without a GPU "
     "request see every GPU?"),
    ("container_sees_all_gpus",
     "# Pod without nvidia.com/gpu limit sees all GPUs\n\nIn our Kubernetes cluster a pod that does not request "
     "nvidia.com/gpu can still see all the GPUs of the node with nvidia-smi. Is the device plugin broken?"),
    ("gpu_not_shared_between_pods",
     "# Second pod pending\n\nWe have one A100 node with the NVIDIA device plugin. The first inference pod runs, but "
     "the second pod stays pending because no nvidia.com/gpu is left. Can two pods share a GPU?"),
]


@pytest.mark.parametrize("key,text", PARAPHRASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(PARAPHRASES)])
def test_paraphrases_are_answered_from_the_documentation(tmp_path, key, text):
    verdict, findings = said(tmp_path, text)
    assert verdict.category == "healthy", text
    assert documented(findings) == key, text


def test_sharing_between_pods_paraphrase(tmp_path):
    """(misfire35) 'Sharing one GPU between pods' is scheduling, not ranks isolated from each other's GPUs
    (claims._GPU_SHARED keeps ticket.isolated_ranks out)."""
    verdict, findings = said(tmp_path, "# Sharing one GPU between pods in Kubernetes\n\nIs it expected that pods "
                             "cannot share a GPU on our k8s cluster? Two small vLLM deployments each request "
                             "nvidia.com/gpu: 1 and only one gets scheduled.")
    assert verdict.category == "healthy" and documented(findings) == "gpu_not_shared_between_pods"


# The same observations with a fault beside them, or with the documented remedy already applied: the row stays silent
# and nothing calls the ticket normal; then faults no row may call normal.
NEAR_MISSES = [
    ("cuda_device_order",
     "# CUDA error invalid device ordinal\n\nThe device numbers in PyTorch do not match nvidia-smi and now training "
     "with cuda:3 fails with CUDA error: invalid device ordinal on our 4-GPU server."),
    ("cuda_device_order",
     "# Order still wrong\n\nI exported CUDA_DEVICE_ORDER=PCI_BUS_ID and the device numbers still do not match "
     "nvidia-smi: cuda:0 is the card nvidia-smi calls GPU 2."),
    ("cuda_device_order",
     "# nvidia-smi shows 4 GPUs, torch only 2\n\nnvidia-smi lists four A100s but torch.cuda.device_count() returns 2 "
     "and the other GPUs are not detected."),
    ("gpu_utilization_is_time",
     "# 100% utilization while the job hangs\n\nnvidia-smi shows GPU-Util at 100% on all GPUs even though the "
     "all_reduce is stuck and the job hangs forever. How is this utilization calculated?"),
    ("gpu_utilization_is_time",
     "# GPU util 0% while job hangs\n\nDuring our tensor-parallel run nvidia-smi shows 0% utilization on GPU 3 while "
     "the other GPUs sit at 100% and the job hangs at the first all_reduce."),
    ("gpu_utilization_is_time",
     "# Utilization 100% but slow\n\nnvidia-smi reports 100% GPU utilization even though generation is slow, about 5 "
     "tok/s with Llama-70B on 2x A100. What does GPU-Util mean?"),
    ("container_sees_all_gpus",
     "# --gpus device=1 ignored\n\nI start the container with docker run --gpus '\"device=1\"' but nvidia-smi inside "
     "it still shows all the GPUs of the host."),
    ("container_sees_all_gpus",
     "# Container sees no GPU\n\nOur pod requests no GPU and nvidia-smi in the container says No devices were found, "
     "although all the GPUs are visible on the node."),
    ("gpu_not_shared_between_pods",
     "# time-slicing not working\n\nWe configured time-slicing with replicas: 4 in the device plugin, but the second "
     "pod still cannot share the GPU and stays pending for nvidia.com/gpu."),
    ("gpu_not_shared_between_pods",
     "# GPU not advertised\n\nThe second pod stays pending for nvidia.com/gpu because the node shows nvidia.com/gpu "
     "capacity 0 and the device plugin logs say no devices found."),
    # Faults of the families this pass collected, which no documented behaviour may call normal (key ""): a PCIe link at
    # Gen1 while the GPUs work (the idle downshift is power saving; under load it is a degraded link), memory that grows
    # request after request, an out-of-memory crash after the engine's reservation.
    ("", "# PCIe Gen1 under load\n\nnvidia-smi -q shows PCIe Generation Max 4, Current 1 on GPU 2 while our vLLM "
     "tensor-parallel server is under full load, and the link stays at Gen1 during inference."),
    ("", "# vLLM memory keeps growing\n\nWith vllm serve --tensor-parallel-size 2 on two A100, nvidia-smi shows the "
     "memory used on each GPU keeps growing with every request until CUDA out of memory."),
    ("", "# vLLM OOM\n\nvLLM with --tensor-parallel-size 2 takes 72GB on each A100 at start and then crashes with CUDA "
     "out of memory on the first long prompt."),
]


@pytest.mark.parametrize("key,text", NEAR_MISSES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(NEAR_MISSES)])
def test_near_misses_do_not_fire(tmp_path, key, text):
    verdict, findings = said(tmp_path, text)
    assert documented(findings) != key if key else documented(findings) is None
    assert verdict.category != "healthy"


# Real first posts (tests/data/bydesign35/SOURCES.md), every thread settled as the behaviour being by design.
REAL_DOCUMENTED = {
    "bonito120.md": "cuda_device_order",
    "darknet6982.md": "cuda_device_order",
    "digits1358.md": "cuda_device_order",
    "ipyexperiments2.md": "cuda_device_order",
    "gpumon12.md": "gpu_utilization_is_time",
    "nvdocker807.md": "gpu_utilization_is_time",
    "k8sdp61.md": "container_sees_all_gpus",
    "k8sdp87.md": "container_sees_all_gpus",
    "alnair5.md": "container_sees_all_gpus",
    "nvdocker1506.md": "container_sees_all_gpus",
    "gpuoperator284.md": "container_sees_all_gpus",
    "k8sdp51.md": "gpu_not_shared_between_pods",
}
# (bydesign36) dcgmexp395.md, DCGM's profiling metrics on an M60, is answered by dcgm_profiling_by_architecture and
# tested in tests/test_bydesign36.py.
# (settled normal, answered `healthy` by rules older than this pass: the key is None)
# (vllm10516.md: "it is loading 27GB on each gpu" read as memory per GPU since misfire35)
REAL_HEALTHY = dict.fromkeys(("lmdeploy3043.md", "vllm43400.md", "nvdocker583.md", "nvforum_pcie_gen.md", "k8sdp76.md",
                              "nvtop114.md", "vllm10516.md"))


@pytest.mark.parametrize("name,key", {**REAL_DOCUMENTED, **REAL_HEALTHY}.items())
def test_real_posts_answered_healthy(name, key):
    verdict, findings = answer(DATA / name)
    assert verdict.category == "healthy"
    assert key is None or documented(findings) == key


# Real posts settled as by design that are still answered otherwise; the reason is what keeps them from `healthy`.
STILL_WRONG = {
    "ethminer283.md": "cuda_device_order sees 'does the CUDA GPU id always correspond with nvidia-smi?', but the "
                      "reporter's 'tweaking memory clocks lower ... improving stability after crashes' is a crash and "
                      "a clock claim (ticket.clock_power, throttling 0.69), which the fault gate rightly honours",
    "nicehash164.md": "a GeForce board runs CUDA work in P2 by the driver's design (the thread: Pascal cards cannot be "
                      "set to P0 for compute); the pasted 'Performance State : P2' is read as lowered clocks "
                      "(ticket.clock_power, throttling 0.75) and no row documents the P2 compute state",
    "ethminer_nv35.md": "the same P2 compute state, said in words ('reports that my GPU performance state is P2'); "
                        "no row documents it (check split)",
    "exllamav3_54.md": "ExLlamaV3 allocates its working memory per forward pass rather than statically (turboderp); "
                       "the per-GPU percentages read as utilisation (ticket.busy_not_saturated, expected_physics)",
}


@pytest.mark.parametrize("name", STILL_WRONG)
def test_real_posts_still_answered_otherwise(name, request):
    request.node.add_marker(pytest.mark.xfail(strict=True, reason=STILL_WRONG[name]))
    verdict, _ = answer(DATA / name)
    assert verdict.category == "healthy"


def test_rows_are_read_only_in_their_setting(tmp_path):
    """The same words without the setting the row belongs to do not fire it: all GPUs visible on a bare host, a
    numbering question with no nvidia-smi in sight."""
    for text in ("# GPUs\n\nAll the GPUs are visible and listed on the host; we did not request any reservation.",
                 "# ids\n\nThe device ids differ between our two nodes after the reinstall."):
        (tmp_path / "issue.md").write_text(text)
        seen = documented_behaviour_seen(read_bundle([tmp_path / "issue.md"]))
        assert seen is None or seen[0]["key"] not in NEW_ROWS, text
