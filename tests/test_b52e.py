"""Blind batch b52e (tests/data/b52e/SOURCES.md): the smaller engines' multi-GPU threads.

The one mechanism found in at least three separate threads: `ticket.nothing_broken` called "the behaviour asked about is
normal" a ticket whose title asks the project to support something, or when it will, with nothing run and nothing seen
failing ("When will comm-gemm-overlap support multi nodes?", TransformerEngine#1071; "[Feature Request]: RTX 50 series
Support", Comfy-Org/desktop#1077; "Is it possible to support the RTX 5090 ...?", nano-vllm#7; "[feature request]
Executor TP without MPI", TensorRT-LLM#2178). Each thread was answered by the project's plans (not yet, not planned, not
possible in the design): the rule now answers `other`, the project's plans, as a weak lead. A request for support
after a behaviour the reporter saw ("vllm ONLY allocate KVCache on the first device ... Is there any plan to support",
vllm#5248: each GPU holds its own shard) keeps its healthy answer: the title reports the observation.
"""

import pytest
from conftest import issue_bundle, judged_issue, judged_kept_paste

from rules import claims


@pytest.mark.parametrize("rel", [
    "b52e/te1071.md",                 # TE comm+GEMM overlap is single-node TP only (Userbuffers, CUDA multicast)
    "insuff38/comfydesktop1077.md",   # RTX 50 support: a CUDA 12.8 build, not there yet
    "insuff38/nanovllm7.md",          # "no immediate plans to support the RTX 50 series"
    "ut29c/trtllm2178.md",            # "No, we always use one device per MPI process at the moment"
])
def test_a_request_for_support_is_answered_by_the_projects_plans(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "other"
    assert found["ticket.nothing_broken"].category == "other"
    assert "plans" in found["ticket.nothing_broken"].title


@pytest.mark.parametrize("rel", [
    "ut21a/vllm5248.md",          # the title reports what was seen; the plan asked about is already how it works
    "insuff38/gptqmodel1793.md",  # "nvidia blackwell supported?": asked, not requested ("Yes ... forward compatible")
    "b52e/petals203.md",          # "Multi-GPU support?": the recommended way answers it
    "b49d/lmdeploy2423.md",       # "[Feature] when --tp 2": the template's bare tag heads a question about memory seen
])
def test_a_support_question_that_requests_nothing_keeps_its_answer(tmp_path, rel):
    assert judged_kept_paste(tmp_path, rel)[0].category == "healthy"


@pytest.mark.parametrize("title", [
    "# When will comm-gemm-overlap support multi nodes?",
    "# [Feature Request]: RTX 50 series Support",
    "# [feature request] Executor TP without MPI",
    "# Is it possible to support the RTX 5090 graphics card?",
    "# Any plan to support pipeline parallelism?",
    "# Please add support for the L40S",
])
def test_the_request_is_read_from_the_title(title):
    assert claims.support_requested(issue_bundle(title + "\n\nThanks for the project.\n")) is not None


@pytest.mark.parametrize("text", [
    # in the body, not the title: the ticket is about what the body reports
    "# vllm only allocates the KV cache on the first device\n\nIs there any plan to support it on all devices?\n",
    # a support question, not a request
    "# Does vLLM support the RTX 5090?\n\nI want to buy one.\n",
    # the template heading reporters fill with speed complaints
    "# Slow inference on two GPUs\n\n### Feature request\n\nTwo A100 give 10 tok/s.\n",
    # support said, not asked for
    "# Support for tensor parallelism works on two 4090s\n\nThanks.\n",
    # a feature that works, asked about
    "# When I use tensor parallel, the speed drops\n\nWhy?\n",
])
def test_no_request_is_read_where_none_is_made(text):
    assert claims.support_requested(issue_bundle(text)) is None


def test_a_request_beside_a_failure_is_not_answered_by_plans():
    """A request whose body reports a crash: the failure, not the plans, is what the ticket needs answered."""
    verdict, found = judged_issue("# [Feature Request]: multi-node support\n\nWith two nodes the server crashes "
                                  "with a segmentation fault when the first request arrives.\n")
    nb = found.get("ticket.nothing_broken")
    assert nb is None or nb.category != "other"
