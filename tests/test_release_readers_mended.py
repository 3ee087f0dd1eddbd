"""(issue 11, s15 review) The engine-release, commit, "same on both" and error-line readers mended: the review's own
sentences, and paraphrases and negations written here (other engines, other wordings), each checked for what it says
and what it does not."""

import pytest
from conftest import judged_issue

from diagnose.evidence import Facts, Note
from rules import claims


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def compared(text: str, kind: str = "nccl_versions_compared"):
    return [c.data for c in claims.claims(said(text)) if c.kind == kind]


# ------------------------------------------------------------------- "same" said of something else than the releases

@pytest.mark.parametrize("text", [
    # the review's sentences
    "NCCL 2.19.3 is slower than 2.18.3 on all_reduce_perf: 120 vs 180 GB/s, same for both nodes.",
    "NCCL 2.19.3 regressed against 2.18.3: busbw 120 GB/s instead of 180 GB/s, the same with and without NVLS.",
    "Busbw dropped from 180 to 120 GB/s with NCCL 2.19.3 vs 2.18.3; no difference between IB and RoCE.",
    "With NCCL 2.18.3 it works, with NCCL 2.19.3 it hangs; the same with NCCL_P2P_DISABLE=1.",
    # paraphrases
    "NCCL 2.19.3 is 30% slower than 2.18.3 on both nodes.",
    "With NCCL 2.18.3 it works on both nodes, with NCCL 2.19.3 it hangs.",
    "NCCL 2.19.3 hangs, 2.18.3 works, same error with and without IB.",
])
def test_same_said_of_something_else_keeps_the_nccl_comparison(text):
    assert compared(text)


@pytest.mark.parametrize("text", [
    "We see 350 GB/s busbw on 8x A100. It is the same on NCCL 2.18.3 and 2.19.3, so this is not a regression.",
    "No difference between NCCL 2.18.3 and 2.19.3 on our 8x A100: 350 GB/s either way.",
    "We tried NCCL 2.18.3 and 2.19.3: no difference.",
    "NCCL 2.18.3 and 2.19.3 give identical results, 350 GB/s.",
    "NCCL 2.19.3 is 30% slower than 2.18.3; there is no difference between them on a single node though.",
    "Same hang on NCCL 2.18.3 and 2.19.3 with NCCL_P2P_DISABLE=1.",
])
def test_same_said_of_the_releases_is_no_comparison(text):
    assert not compared(text)


# ------------------------------------------------------------------------------------ one engine release moved to

@pytest.mark.parametrize("text", [
    # the review's sentences: a setting, another package, a sampling knob, a bare number, an upgrade that helped
    "With vLLM, after switching gpu-memory-utilization to 0.95 the throughput dropped",
    "I upgraded flashinfer to 0.1.6 and decode got slower with vLLM",
    "I moved top_p to 0.9 and it became slower with vLLM",
    "Using vLLM. After upgrading to 12.4 tokens/s is much lower",
    "After upgrading to vLLM 0.6.4 it got faster but TP=8 is still slow compared with TP=4",
    # paraphrases
    "On SGLang we bumped mem-fraction-static to 0.85 and decode is slower now.",
    "After changing max-num-seqs and switching temperature to 0.7 vLLM hangs.",
    "Since we moved to SGLang 0.4.3 throughput improved, but TP=8 is still slow.",
    "Using ollama. After updating to 0.5 GB of extra VRAM it is slow.",
])
def test_a_move_to_something_else_or_a_better_release_is_no_engine_change(text):
    assert claims.engine_moved_to(text) is None
    assert not compared(text, "engine_versions_compared")


@pytest.mark.parametrize("text, release", [
    ("We upgraded our vLLM to 0.6.4 and throughput dropped by 30%.", "0.6.4"),  # the engine as the verb's object
    ("We run vLLM 0.6.4 now. After upgrading to 0.6.4 decode is much slower.", "0.6.4"),  # given with it elsewhere
    ("After upgrading to vLLM 0.6.4 it did not get faster, TP=8 is slower than before.", "0.6.4"),  # not better
])
def test_an_engine_release_moved_to_is_still_read(text, release):
    moved = claims.engine_moved_to(text)
    assert moved and moved[1] == [release]
    (c,) = compared(text, "engine_versions_compared")
    assert c["kind"] == "moved" and c["good"] is None


@pytest.mark.parametrize("text, good", [
    ("# slow\n\nTP=4 on 4x A100 decodes slowly with vLLM. Downgrading to vLLM 0.4.1 fixed the slowdown.", "0.4.1"),
    ("# hang\n\nSGLang hangs at startup with TP=2. Rolling back SGLang to 0.3.6 resolved it.", "0.3.6"),
])
def test_the_release_gone_back_to_is_the_good_one(text, good):
    (c,) = compared(text, "engine_versions_compared")
    assert c["kind"] == "moved" and c["good"] == good
    _, rules = judged_issue(text)
    title = rules["ticket.engine_versions"].title
    assert f"works again on {good}" in title and "newer release is the regression" in title


@pytest.mark.parametrize("text, kind, wording", [
    ("# slow\n\nvLLM 0.6.3 is 30% slower than vLLM 0.5.4 on 4x A100 with TP=4.", "releases", "between releases"),
    ("# slow\n\nvLLM TP=4 decode regressed after PR #12345: 41.0 tok/s before and 35.5 tok/s after.", "commit",
     "slower after PR #12345"),
])
def test_each_kind_is_worded_as_itself(text, kind, wording):
    (c,) = compared(text, "engine_versions_compared")
    assert c["kind"] == kind
    _, rules = judged_issue(text)
    assert wording in rules["ticket.engine_versions"].title


# ----------------------------------------------------------------------------------------- a PR or commit blamed

@pytest.mark.parametrize("text", [
    "PR #12345 fixed the regression in vLLM but throughput is still slow",  # the change cured it
    "Is the vLLM slowdown caused by PR #12345?",  # asked
    "The vLLM slowdown was not caused by PR #12345.",  # ruled out
    "Maybe the SGLang regression was introduced by commit 1a2b3c4d, decode is slower.",  # guessed
    "If PR #4567 gets merged, vLLM throughput could regress.",  # supposed
    # regression words in another sentence than the change
    "vLLM throughput regressed on 4x A100. PR #12345 adds FP8 support.",
])
def test_a_change_not_blamed_is_no_regression(text):
    assert claims.code_change_regression(text) is None


@pytest.mark.parametrize("text, figures", [
    ("vLLM regressed after PR #12345: TTFT 30 ms and TPOT 8 ms.", {}),  # two metrics of one build
    ("SGLang decode regressed after commit 1a2b3c4d; we measure 41.0 tok/s and 35.5 tok/s on two nodes.", {}),
    ("SGLang decode regressed after commit 1a2b3c4d: from 41.0 tok/s to 35.5 tok/s.",
     {"before": (41.0, "tok/s"), "after": (35.5, "tok/s")}),
    ("TPOT regressed with PR #777: 20.1 ms before it, 23.4 ms after.", {"before": (20.1, "ms"), "after": (23.4, "ms")}),
])
def test_figures_of_a_change_only_as_before_and_after(text, figures):
    assert claims.code_change_regression(text)
    assert claims.code_change_figures(text) == figures


# ------------------------------------------------------------------------------- an error message wrapped in prose

@pytest.mark.parametrize("text, found", [
    ("Maybe it's\nCUDA out of memory, TP=4 is slow", False),  # the review's: the guess on the line before
    ("We never get\nCUDA out of memory", False),
    ("I am not sure whether the cause is\nCUDA out of memory on rank 3.", False),
    ("Is the crash\nCUDA out of memory?", False),
    ("The server crashes at startup with\nCUDA out of memory on rank 3.", True),  # said, wrapped
    ("We get\nCUDA out of memory\nA call failed possibly due to a network error", True),  # the next line's guess
])
def test_an_error_message_wrapped_over_lines_is_read_with_its_sentence(text, found):
    ids = [c.data["error"].id for c in claims.known_errors(said(text))]
    assert ("out_of_memory" in ids) is found
