"""Defects found by answering real TensorRT-LLM and Triton tickets about several GPUs as a support engineer (session
s29, pass ut29c, issue 11; tests/data/ut29c, SOURCES.md gives each thread's address, the answer it established and
the verdict before and after), fixed in general and tested on the pastes that showed them, on real sentences of other
threads, and on real near-misses:

- a model put on a GPU other than the one asked ("launched on the incorrect GPU") was no symptom, so two unrelated
  passed checks answered it `healthy` (rules.claims._MISPLACED, a failure);
- Triton's instance_group set to place a TensorRT-LLM model was unread: that backend chooses its GPUs itself
  (rules.claims.trtllm_instance_group, ticket.trtllm_instance_group).
"""

from pathlib import Path

import pytest
from conftest import finding, judged_issue, report_json, said

from rules import claims

DATA = Path(__file__).parent / "data" / "ut29c"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


# --------------------------------------------------------------------------- a model on the wrong GPU

def test_model_on_the_wrong_gpu_is_the_backends_placement():
    """triton-inference-server/tensorrtllm_backend#481: instance_group `gpus: [ 1 ]`, the model on GPU 0; the
    maintainer: the trt-llm backend does not respect instance_group. Blind it was healthy 0.70 from the ECC and
    throttling checks of the pasted nvidia-smi table."""
    r = verdict("tb481.md")
    assert r["verdict"]["category"] == "other"
    f = finding(r, "ticket.trtllm_instance_group")
    assert f is not None and f["severity"] == "warning"
    assert "GPU 1" in f["title"] and "CUDA_VISIBLE_DEVICES" in f["fix"]


@pytest.mark.parametrize("text", [
    # triton-inference-server/tensorrtllm_backend#481 (the paste above)
    "# Triton Launches Model on Incorrect GPU\n\nWhen I run the launch script, the process is launched on the "
    "incorrect GPU:",
    # triton-inference-server/server#7349's title
    "# Triton/vllm_backend launches model on incorrect GPU\n\nMy issue is similar.",
    # k2-fsa/sherpa#743
    "# Hosting Triton Whisper on multiple GPUs\n\nBut somehow still both models are loaded on the same GPU.",
    # triton-inference-server/server#7786
    "# Triton x vLLM backend GPU selection issue\n\nhowever using \"nvidia-smi\" I could see that my models were "
    "being loaded only into gpu 0",
])
def test_a_model_on_another_gpu_is_a_failure(text):
    assert claims.symptom(said(text)) == "error"


@pytest.mark.parametrize("text", [
    # triton-inference-server/server#7786: what was wanted, before the complaint
    "# Triton x vLLM backend GPU selection issue\n\nThe expectation was for Model A to be loaded into the GPU with "
    "index 0 and Model B to be loaded to GPU with index 1.",
    # triton-inference-server/tensorrtllm_backend#617: a wish
    "# make 2 instance.\n\nI have 2 3090. I want to launch tensorrt on every gpu separately.",
])
def test_where_a_model_should_go_is_no_failure(text):
    assert claims.symptom(said(text)) != "error"


# --------------------------------------------------------------------------- Triton instance_group and TensorRT-LLM

TB617 = """# make 2 instance.

I have 2 3090. I want to launch tensorrt on every gpu separately.
For this i have to change several things:

1- in tensorrt_llm/config.pbtxt:
```
instance_group {
  count: 0
  kind: KIND_GPU
}
```
2- in tensorrt_llm/1/model.py:
add:
```
kwargs["device_ids"] = [int(self.args["model_instance_device_id"])]
```
in ```get_parallel_config``` function.
"""


def test_instance_group_of_a_tensorrt_llm_model_is_read():
    """triton-inference-server/tensorrtllm_backend#617 (held out): KIND_GPU in tensorrt_llm/config.pbtxt, which the
    reporter had to patch model.py to make the device ids follow."""
    _, found = judged_issue(TB617)
    assert "ticket.trtllm_instance_group" in found


@pytest.mark.parametrize("text", [
    # triton-inference-server/server#7786: the vLLM backend
    "# Triton x vLLM backend GPU selection issue\n\nI am currently using triton vllm backend for my kubernetes "
    "cluster.\n\n```\ninstance_group [\n  {\n    count: 1\n    kind: KIND_GPU\n    gpus: [0]\n  }\n]\n```\n",
    # triton-inference-server/server#3443: a TensorFlow model, which Triton places itself
    "# Change Documentation of Instance Groups\n\nMy Workstation has 2 GPUs.\n\n```\nname: \"image_label\"\n"
    "platform: \"tensorflow_savedmodel\"\nmax_batch_size: 64\ninstance_group [\n    {\n      count: 2\n      kind: "
    "KIND_GPU\n    }\n  ]\n```\n",
    # triton-inference-server/server#8365: the vLLM container
    "# Triton with vLLM on multi GPU server\n\ntritonserver:24.05-vllm-python-py3\n\n```\ninstance_group [\n  {\n"
    "    count: 1\n    kind: KIND_GPU\n  }\n]\n```\n",
])
def test_instance_group_of_another_backend_is_not_read(text):
    _, found = judged_issue(text)
    assert "ticket.trtllm_instance_group" not in found


# --------------------------------------------------------------------------- unchanged answers, kept honest

def test_world_size_assertion_is_read_blind():
    """GoogleCloudPlatform/ai-on-gke#272: `mpiSize == tp * pp` without mpirun (right before this pass)."""
    r = verdict("gke272.md")
    f = finding(r, "ticket.known_error")
    assert r["verdict"]["category"] == "other" and f is not None and "mpirun -n" in f["fix"]


@pytest.mark.parametrize("name", ["tb398.md", "tb166.md", "trtllm1491.md", "trtllm420.md"])
def test_left_cases_stay_undecided_not_wrong(name):
    """LEFT (SOURCES.md): the answer needs a reading fitted to one paste or knowledge not held; never wrong."""
    assert verdict(name)["verdict"]["category"] == "insufficient_data"
