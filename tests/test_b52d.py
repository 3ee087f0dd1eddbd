"""Pass b52d: the shared-memory failure said in the serving layer's words, not NCCL's (tests/data/b52d/SOURCES.md).

Three threads where a multi-GPU server could not size its /dev/shm and the tool answered insufficient_data: Triton's
Python backend printed "Unable to initialize shared memory key '...' to requested size" and the reporter fixed it
with --shm-size=128m (triton-inference-server/server#6195); the vLLM production-stack threads named the need as
"NCCL shared memory allocation issues" cured by a memory-backed /dev/shm volume (production-stack#44 and #97).
shm_error now reads Triton's two python_backend messages (src/shm_manager.cc: "Unable to initialize shared memory
key", "Failed to increase the shared memory pool size") and "shared memory allocation issue(s)"; a denial, a
question or the success of the same allocation is not the failure.
"""

import pytest
from conftest import judged_issue, judged_kept_paste

from rules import claims


@pytest.mark.parametrize("rel", [
    "b52d/tritonserver6195.md",   # Triton python backend: "Unable to initialize shared memory key" (--shm-size=128m)
    "b51c/prodstack97.md",        # "to avoid NCCL shared memory allocation issues" (mount a volume to /dev/shm)
    "misfire35/prodstack44.md",   # "had to manually increase the Docker /dev/shm ... shared memory allocation issues"
])
def test_the_serving_layers_shared_memory_failure_is_read(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "shm_too_small"
    assert found["ticket.shm_error"].category == "shm_too_small"


@pytest.mark.parametrize("text", [
    "Triton fails to load: Failed to increase the shared memory pool size for key 'triton_python_backend_shm_region_6'"
    " to 67108864 bytes. If you are running Triton inside docker, use '--shm-size' flag.",
    "UNAVAILABLE: Internal: Unable to initialize shared memory key 'triton_python_backend_shm_region_2' to requested "
    "size (67108864 bytes).",
    "With tensor-parallel-size 2 the pod crashes with shared memory allocation errors.",
])
def test_each_wording_is_a_shared_memory_claim(text):
    from conftest import issue_bundle
    found = claims.find(issue_bundle("# Triton on two GPUs\n\n" + text + "\n"), "shm_error")
    assert found and not found[0].negated


@pytest.mark.parametrize("text", [
    "We see no shared memory allocation issues; the two GPUs just run slower with tensor parallelism than one.",
    "The shared memory allocation succeeded and the server started; it is 30% slower with tensor parallelism.",
    "The shared memory pool size is 64 MB and the server runs; it is 30% slower with tensor parallelism on two GPUs.",
])
def test_near_misses_are_not_a_shared_memory_failure(text):
    verdict, found = judged_issue("# Triton on two GPUs slower with tensor parallelism\n\n" + text + "\n")
    assert verdict.category != "shm_too_small"
    assert "ticket.shm_error" not in found or found["ticket.shm_error"].category != "shm_too_small"


def test_a_question_is_a_guess_not_a_stated_failure():
    """Asked, the wording is the reporter's guess (weighed as one by ticket.shm_error, as "Is this a shared memory
    issue?" already was), not the failure said as seen."""
    from conftest import issue_bundle
    found = claims.find(issue_bundle("# Triton on two GPUs\n\nIs this a shared memory allocation issue? The server "
                                     "is 30% slower with tensor parallelism on two GPUs.\n"), "shm_error")
    assert found and all(c.guess for c in found)
