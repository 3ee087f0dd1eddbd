"""Blind batch b52e (tests/data/b52e/SOURCES.md): the smaller engines' multi-GPU threads.

The one mechanism found in at least three separate threads: `ticket.nothing_broken` called "the behaviour asked about is
normal" a ticket whose title asks the project to support something, or when it will, with nothing run and nothing seen
failing ("When will comm-gemm-overlap support multi nodes?", TransformerEngine#1071; "[Feature Request]: RTX 50 series
Support", Comfy-Org/desktop#1077; "Is it possible to support the RTX 5090 ...?", nano-vllm#7; "[feature request]
Executor TP without MPI", TensorRT-LLM#2178). Each thread was answered by the project's plans (not yet, not planned, not
possible in the design): the rule now answers `other`, the project's plans, as a weak lead. A request for support
after a behaviour the reporter saw ("vllm ONLY allocate KVCache on the first device ... Is there any plan to support",
vllm#5248: each GPU holds its own shard) keeps its healthy answer: the title reports the observation.

(mb52e, after review r52f) Nor where the body asks whether what was seen is normal or expected (that question is
nothing_broken's own), where the request is denied, quoted from another or taken back, nor beside quoted tool output,
whose checks answer: the lead comes from the title's words alone and sits at warning, so it would outrank them.
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


# (mb52e) The review r52f's probes, each verbatim: a title that holds request words but a ticket that asks about what
# was seen ("Is this normal?"), denies, quotes or takes back the request, or quotes tool output whose checks answer.
# Each had been answered `other` at warning (0.69) over the healthy reading; each settles as the thread it copies did.
R52F_PROBES = {
    "observed_title": "# vllm only allocates the KV cache on the first device, any plan to support all devices?\n\n"
                      "I run with tensor_parallel_size=2 on two A100 and nvidia-smi shows the KV cache blocks only on "
                      "GPU 0. Is this normal?\n",
    "will_you_observed": "# Will you support P2P on RTX 4090? NCCL falls back to SHM\n\n"
                         "NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct on two RTX 4090. Is that "
                         "expected?\n",
    "custom_allreduce": "# Custom allreduce disabled on PCIe, will you support it?\n\n"
                        "vLLM prints \"Custom allreduce is disabled because your platform lacks GPU P2P capability\" "
                        "on my two RTX 4090. Is this normal?\n",
    "fr_memory_nofig": "# [Feature Request] vLLM reserves almost all memory on every GPU at startup\n\n"
                       "With tensor parallel on two GPUs, nvidia-smi shows both GPUs nearly full before any request is "
                       "sent. Is this normal? It would be nice to allocate lazily.\n",
    "fr_memory": "# [Feature Request] vLLM reserves 90% of memory on every GPU at startup\n\n"
                 "With tensor_parallel_size=2, nvidia-smi shows both GPUs at 72 GB used before any request. Is this "
                 "normal? It would be nice to allocate lazily.\n",
    "artifact": "# [Feature Request] NVLink for two RTX 4090\n\n"
                "NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC. Is that normal for these cards?\n",
    "negated": "# Not asking to add support for NVLink, just: is NCCL over PCIe normal on two RTX 4090?\n\n"
               "NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC. Is that normal for these cards?\n",
    "withdrawn": "# When will vLLM support tensor parallel on 2 GPUs?\n\n"
                 "Never mind, it already works with --tensor-parallel-size 2, thanks. Is it normal that both GPUs "
                 "show the same memory?\n",
    "quoted_other": "# Someone asked 'when will vLLM support Blackwell' in another issue, is it supported now?\n\n"
                    "I have two RTX 5090. Is that normal that nvidia-smi shows CUDA 12.8?\n",
    "second_gpu": "# When will the second GPU be supported?\n\n"
                  "I start vLLM with default settings on a machine with two RTX 4090 and nvidia-smi shows only GPU 0 "
                  "in use. Is this normal?\n",
}


def _judged(tmp_path, text):
    folder = tmp_path / "ticket"
    folder.mkdir()
    (folder / "issue.md").write_text(text)
    return judged_issue(folder=folder)


@pytest.mark.parametrize("name", sorted(R52F_PROBES))
def test_a_ticket_about_what_was_seen_is_not_answered_by_plans(tmp_path, name):
    verdict, found = _judged(tmp_path, R52F_PROBES[name])
    nb = found.get("ticket.nothing_broken")
    assert nb is None or nb.category != "other"
    assert verdict.category == "healthy"


@pytest.mark.parametrize("text", [
    # denied, quoted from another, taken back: no request made, with no "is this normal?" beside it
    "# Not asking to add support for NVLink, just: is NCCL over PCIe fast on two RTX 4090?\n\nThanks.\n",
    "# Someone asked 'when will vLLM support Blackwell' in another issue, is it supported now?\n\n"
    "I have two RTX 5090.\n",
    "# When will vLLM support tensor parallel on 2 GPUs?\n\nNever mind, it already works with --tensor-parallel-size "
    "2, thanks.\n",
    # a request beside the question whether what was seen is normal
    "# Any plan to support lower idle power?\n\nEach of my two H100 draws 70 W at idle while vLLM is loaded. Is this "
    "normal?\n",
])
def test_no_request_is_read_where_it_is_denied_quoted_withdrawn_or_beside_a_normal_question(text):
    assert claims.support_requested(issue_bundle(text)) is None


def test_a_request_beside_quoted_tool_output_leaves_its_checks_to_answer(tmp_path):
    """A title's request words are no lead over an NCCL line read healthy (topology.nccl_transport)."""
    verdict, found = _judged(tmp_path, "# [Feature Request] NVLink for two RTX 4090\n\n"
                                       "NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC. Any plan for this?\n")
    assert claims.support_requested(issue_bundle("# [Feature Request] NVLink for two RTX 4090\n\n"
                                                 "NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC. Any plan for "
                                                 "this?\n")) is not None
    assert verdict.category == "healthy"
    assert found.get("ticket.nothing_broken") is None or found["ticket.nothing_broken"].category != "other"
