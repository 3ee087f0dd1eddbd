"""Defects found by answering real public threads as a support engineer (session s20, tests/data/ut20a; SOURCES.md
gives each thread's address and the verdict before and after), each fixed in general and tested here on the paste that
showed it and on another real sentence or text written here (paraphrases, negations):

- the reporter's own puzzlement read as a failure of the system: "I cannot understand the results I got"
  (NVIDIA/nccl#569) and "I already have checked nsight system but can't find something" (NVIDIA/TensorRT-LLM#1102)
  classed the ticket an error, which silenced the answers to a question about speed (both left insufficient_data);
- how well something works read as a failure: "the tensor parallel is not working well with more than 4 gpus"
  (vllm-project/vllm#804, 4 A10G faster than 8) classed the ticket an error and left it insufficient_data;
"""

from pathlib import Path

from conftest import judged_file

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims

DATA = Path(__file__).parent / "data" / "ut20a"


def facts_of(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def symptom(text: str) -> str:
    return claims.symptom_quote(facts_of(text))[2]


# --------------------------------------------------------------------------- puzzlement and how well, not failures

def test_own_puzzlement_is_not_a_failure(tmp_path):
    for name in ("nccl569", "trtllm1102"):
        assert symptom((DATA / f"{name}.md").read_text()) != "error", name
    verdict, found = judged_file(tmp_path, DATA, "nccl569")  # 363 / 173 / 132 ms as more GPUs per node (more NICs)
    assert verdict.category == "expected_physics" and "ticket.symptom_prior" in found
    verdict, _ = judged_file(tmp_path, DATA, "trtllm1102")  # PP=2 at batch 1: 11.30 s against 11.51 s on one GPU
    assert verdict.category == "pp_bubble"  # stages take turns at batch 1: no gain by design
    # another thread's words (NVIDIA/nccl-tests#267): "I can not understand deeply about the busbw for all2all"
    assert symptom("I can not understand deeply about the busbw for all2all, and what params are the best to test "
                   "alltoall? the performence will down with the same config when add more node") != "error"
    assert symptom("The speed is low and I can't figure out why; TP=2 gives 30 tok/s on two L40S.") != "error"


def test_puzzlement_negations_stay_failures():
    # what the software cannot find or do is still a failure
    assert symptom("NCCL cannot find libnccl.so.2 and the server exits.") == "error"
    assert symptom("vLLM can not find the GPU after the driver update.") == "error"
    assert symptom("The engine cannot allocate the KV cache on two GPUs.") == "error"


def test_how_well_it_works_is_a_speed():
    text = (DATA / "vllm804.md").read_text()
    assert symptom(text) == "scaling"
    assert symptom("Tensor parallel does not work efficiently on our 4 x L4 box: TP=4 is slower than TP=2.") != "error"


def test_how_well_negations_stay_failures():
    assert symptom("Tensor parallelism is not working at all: the server never starts with TP=2.") in ("error", "hang")
    assert symptom("TP=2 does not work, it exits with CUDA error: invalid argument.") == "error"


def test_not_working_well_answered_as_physics(tmp_path):
    verdict, found = judged_file(tmp_path, DATA, "vllm804")
    assert verdict.category == "expected_physics" and "ticket.symptom_prior" in found
