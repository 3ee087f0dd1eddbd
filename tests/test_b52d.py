"""Pass b52d: the shared-memory failure said in the serving layer's words, not NCCL's (tests/data/b52d/SOURCES.md).

Triton's Python backend says it cannot size its /dev/shm region as "Unable to initialize shared memory key '<region>'
to requested size (N bytes). ... use '--shm-size' ... Error: <reason>" (python_backend src/shm_manager.cc), in three
threads settled as /dev/shm too small (triton-inference-server/server#6195, model_analyzer#749,
amazon-sagemaker-examples#3506). The message's reason is read to the end of its line, so a denied permission is not a
full /dev/shm. "Shared memory allocation issues" (advice in production-stack's docs, a GPU kernel's on-chip memory)
is not read (the read-only review r52b's probes, kept here as near misses with their exact text). A purpose guard
("to avoid ... shared memory issues") was tried and taken out after review r52d: it dropped failures seen ("To avoid
the Bus error I set --shm-size=2g and it still happens") and stood on no real thread.
"""

import pytest
from conftest import judged_issue, judged_kept_paste

from rules import claims

NEAR_MISSES = {
    # purpose clause in prose, production-stack's docs advice
    'p01_advice_prose': (
        '# vLLM TP=2 throughput lower than expected\n\nWe run vLLM with tensor-parallel-size 2 on t'
        'wo A100 80GB. Following the production-stack docs we mount an emptyDir at /dev/shm to av'
        'oid NCCL shared memory allocation issues. Throughput is only 1.3x of a single GPU. Is th'
        'is expected?\n'
    ),
    # purpose clause in a values.yaml comment
    'p02_helm_comment_code': (
        '# TP=2 slower than TP=1 on two L40S\n\nDecode tokens/s with TP=2 is lower than with TP=1 o'
        'n two L40S (PCIe, no NVLink). Our values.yaml:\n\n```yaml\nservingEngineSpec:\n  modelSpec:\n'
        '  - name: llama3\n    tensorParallelSize: 2\n    # mount /dev/shm to avoid NCCL shared mem'
        'ory allocation issues\n    shmSize: "20Gi"\n```\n\nTP=1: 45 tok/s, TP=2: 38 tok/s.\n'
    ),
    # purpose clause in a docker-compose comment
    'p03_dockerfile_comment': (
        '# Two GPUs give no speedup\n\n```\n# docker-compose.yml\nservices:\n  vllm:\n    image: vllm/v'
        'llm-openai:latest\n    # use --shm-size to avoid NCCL shared memory allocation issues\n   '
        ' shm_size: 16gb\n    command: --model meta-llama/Llama-3-8B --tensor-parallel-size 2\n```\n'
        '\nWith tensor-parallel-size 2 the throughput is the same as with 1.\n'
    ),
    # the advice beside another failure (CUDA out of memory)
    'p05_other_failure_advice': (
        '# CUDA out of memory with tensor parallel 2\n\nWe run with `docker run --gpus all --shm-si'
        'ze 16g` (the docs recommend this to avoid shared memory allocation issues). Loading Llam'
        'a-70B with --tensor-parallel-size 2 on two 40GB A100s fails:\n\n```\ntorch.OutOfMemoryError'
        ': CUDA out of memory. Tried to allocate 896.00 MiB. GPU 0 has a total capacity of 39.39 '
        'GiB of which 512.00 MiB is free.\n```\n'
    ),
    # a past state, cured
    'p07_fixed_past': (
        '# TP=2 slow on 4090\n\nWe had shared memory allocation issues at first, which --ipc=host f'
        'ixed. Now tensor-parallel-size 2 runs but is 20% slower than 1 GPU on our two RTX 4090s.'
        '\n'
    ),
    # another person's system
    'p09_other_person': (
        '# TP=4 slow on H100 PCIe\n\nA colleague hit shared memory allocation errors on his cluster'
        ' last month. On our node (4x H100 PCIe, bare metal, no container) tensor-parallel-size 4'
        ' gives only 1.5x over a single GPU.\n'
    ),
    # a feature request whose values.yaml holds the advice
    'p12_helm_values_only': (
        '# Feature: add tolerations to helm chart\n\nPlease add tolerations to the chart. Our value'
        's.yaml for the two-GPU deployment:\n\n```yaml\n# shared memory for NCCL, to avoid shared me'
        'mory allocation issues with TP > 1\nshmSize: 20Gi\ntolerations: []\n```\n'
    ),
    # GPU on-chip shared memory (Triton kernel OutOfResources), not /dev/shm
    'p14_smem_kernel': (
        '# fused_moe Triton kernel fails on RTX 3090 with TP=2\n\nRunning Mixtral with --tensor-par'
        'allel-size 2 on two RTX 3090 the fused MoE kernel crashes with a shared memory allocatio'
        'n error:\n\n```\ntriton.runtime.errors.OutOfResources: out of resource: shared memory, Requ'
        'ired: 131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n```'
        '\n'
    ),
    # GPU on-chip shared memory in prose
    'p14b_smem_prose': (
        '# FlashAttention kernel fails on sm_86 with TP=2\n\nWith head_dim 256 the backward kernel '
        'hits a shared memory allocation issue on the RTX 3090 (sm_86 has only 99 KB of shared me'
        'mory per block), so we run tensor-parallel-size 2 without flash attention and it is slow'
        '.\n'
    ),
    # a quoted note's advice, then 'We do (--ipc=host)'
    'p19_blockquote_advice': (
        '# TP=2 decode slower than TP=1 on two RTX 4090\n\n> Note: when using tensor parallelism in'
        'side docker, pass --ipc=host or a large --shm-size to avoid NCCL shared memory allocatio'
        'n issues.\n\nWe do (--ipc=host). Decode: TP=1 52 tok/s, TP=2 47 tok/s on two RTX 4090 (PCI'
        'e, no NVLink, P2P not supported).\n'
    ),
}
# Triton's message whose reason is a denied permission, under a read-only root filesystem (p18_triton_perm)
TRITON_DENIED = (
    '# Triton fails to load on two GPUs\n\n```\nUNAVAILABLE: Internal: Unable to initialize shar'
    "ed memory key 'triton_python_backend_shm_region_1' to requested size (67108864 bytes). I"
    "f you are running Triton inside docker, use '--shm-size' flag to control the shared memo"
    'ry region size. Each Python backend model instance requires at least 64MBs of shared mem'
    'ory. Error: Permission denied\n```\nWe run with --shm-size=8g under a read-only rootfs.\n'
)


@pytest.mark.parametrize("rel", [
    "b52d/tritonserver6195.md",   # "Error: No space left on device"; the reporter fixed it with --shm-size=128m
    "b52d/modelanalyzer749.md",   # "Error: No space left on device"; NVIDIA: the container's --shm-size is too small
    "b52d/sagemaker3506.md",      # the message cut before its reason; SageMaker cannot raise the container's shm_size
])
def test_tritons_shared_memory_failure_is_read(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "shm_too_small"
    assert found["ticket.shm_error"].category == "shm_too_small"


def _judged(tmp_path, text):
    folder = tmp_path / "ticket"
    folder.mkdir()
    (folder / "issue.md").write_text(text)
    return judged_issue(folder=folder)


def test_tritons_denied_permission_is_not_a_full_dev_shm(tmp_path):
    from conftest import issue_bundle
    assert "Permission denied" in claims.find(issue_bundle(TRITON_DENIED), "shm_error")[0].quote
    verdict, found = _judged(tmp_path, TRITON_DENIED)
    assert found["ticket.shm_error"].category == "other"
    assert verdict.category != "shm_too_small"


# r52d's probes: the message's own reason, not another step's said later in prose (t03); a message wrapped by the
# paste keeps its reason (t05)
TRITON_THEN_OTHER_DENIAL = (
    "# Triton python model fails to load\n\nThe model fails with Unable to initialize shared memory key "
    "'triton_python_backend_shm_region_1' to requested size (67108864 bytes). We run with the default docker settings. "
    "Earlier the model repository mount gave Permission denied, but we fixed the mount and that is gone.\n"
)
TRITON_WRAPPED_DENIED = (
    "# Triton fails to load on two GPUs\n\n```\nUNAVAILABLE: Internal: Unable to initialize shared memory key\n"
    "'triton_python_backend_shm_region_1' to requested size (67108864 bytes). If you are running Triton inside\n"
    "docker, use '--shm-size' flag to control the shared memory region size. Error: Permission denied\n```\n"
)


def test_another_steps_denial_is_not_the_messages_reason(tmp_path):
    verdict, found = _judged(tmp_path, TRITON_THEN_OTHER_DENIAL)
    assert found["ticket.shm_error"].category == "shm_too_small"


def test_a_wrapped_message_keeps_its_reason(tmp_path):
    verdict, found = _judged(tmp_path, TRITON_WRAPPED_DENIED)
    assert found["ticket.shm_error"].category == "other"


@pytest.mark.parametrize("rel", ["b51c/prodstack97.md", "misfire35/prodstack44.md"])
def test_the_production_stack_advice_is_no_failure(tmp_path, rel):
    """Both threads hold "to avoid NCCL shared memory allocation issues" only as what the /dev/shm volume is for."""
    _, found = judged_kept_paste(tmp_path, rel)
    assert "ticket.shm_error" not in found


@pytest.mark.parametrize("name", sorted(NEAR_MISSES))
def test_near_misses_are_not_a_shared_memory_failure(tmp_path, name):
    verdict, found = _judged(tmp_path, NEAR_MISSES[name])
    assert verdict.category != "shm_too_small"
    assert "ticket.shm_error" not in found


@pytest.mark.parametrize("text", [
    "We set --shm-size=1g, but we still cannot avoid the shared memory errors on two GPUs.",
    "vllm serve with --tensor-parallel-size 2 inside docker. To avoid the Bus error I set --shm-size=2g and it still "
    "happens on every start.",  # r52d a01: the taken-out purpose guard dropped it
    "Running TP=2 in a container. We set --shm-size=8g to prevent OOM and then got shared memory errors at NCCL init.",
    "The server dies with a shared memory error when tensor-parallel-size is 2.",
    "To work around the shared memory errors we now run with --ipc=host, and TP=2 is slower than TP=1.",
])
def test_a_failure_seen_is_still_read(text):
    from conftest import issue_bundle
    found = claims.find(issue_bundle("# Two GPUs\n\n" + text + "\n"), "shm_error")
    assert found and not found[0].negated and not found[0].guess
