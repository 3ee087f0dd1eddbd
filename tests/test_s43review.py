"""The s43 review's fixes to this session's first-round readings. Every sentence here is a probe (a short sentence
testing one reading, with the near-misses that must keep their reading); none is from a ticket."""

import pytest
from conftest import judged_issue, said

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims, ticket_questions
from rules.subject import Subject


# ------------------------------------------------ claims.check_column_asked: the check's figures by their own names
# "wrong values", "wrong numbers" and a bare "out of bounds" report a failure; "error number 2" is an error's code.
# None of them asks what nccl-tests' error column / #wrong column / out-of-bounds line means.
def _ticket(body: str, title: str = "nccl-tests all_reduce_perf") -> str:
    return f"# {title}\n\n{body}\n"


@pytest.mark.parametrize("body", [
    "I ran all_reduce_perf on 8 A100. Why do I get wrong values?",  # probe: a failure reported
    "I ran all_reduce_perf on 8 A100. Why are the wrong numbers so large on 2 nodes?",  # probe
    "Why do I get index out of bounds in alltoall_perf on 8 A100?",  # probe: an error, no check line
    "I ran all_reduce_perf on 8 A100. What does error number 2 mean?",  # probe: an error's code
])
def test_a_failure_asked_about_is_no_check_column_question(body):
    assert claims.check_column_asked(said(_ticket(body))) is None
    _, found = judged_issue(_ticket(body))
    assert "ticket.check_column" not in found


@pytest.mark.parametrize("body", [
    "How should I interpret the #wrong column of all_reduce_perf?",  # probe: still read
    "I don't understand what the out of bounds values line of nccl-tests means.",  # probe: still read
    "Why is the out of bounds count 0 in all_reduce_perf?",  # probe: still read
    "I ran all_reduce_perf on 8 GPUs. What does the error column mean?",  # probe: still read
])
def test_the_check_figures_asked_still_read(body):
    assert claims.check_column_asked(said(_ticket(body))) is not None


# ------------------------------------------------------ claims.SYMPTOMS: Japanese and Korean "not slow" forms
def _slow(text: str) -> bool:
    return claims.symptom(said("# 멀티 GPU 추론\n\n" + text)) == "slow"


@pytest.mark.parametrize("text", [
    "8枚のH100でvLLMを使っています。推論は遅くなりません。",  # probe: did not become slow
    "8枚のH100でvLLMを使っています。推論は遅くならない。",  # probe
    "8枚のH100でvLLMを使っています。推論は遅くなっていない。",  # probe
    "8枚のH100でvLLMを使っています。推論は遅くなってないです。",  # probe
    "H100 8장으로 vLLM을 씁니다. 추론이 느리지는 않습니다.",  # probe: denied, with a particle
    "H100 8장으로 vLLM을 씁니다. 추론이 느리지도 않습니다.",  # probe
    "H100 8장으로 vLLM을 씁니다. 추론이 느리진 않아요.",  # probe: contracted
    "H100 8장으로 vLLM을 씁니다. 추론이 느려지지는 않았습니다.",  # probe
    "H100 8장으로 vLLM을 씁니다. 추론이 안 느려요.",  # probe: the short denial
])
def test_denied_slow_in_japanese_and_korean(text):
    assert not _slow(text)


@pytest.mark.parametrize("text", [
    "8枚のH100でvLLMを使っています。推論が遅くなっています。",  # probe: has become slow
    "8枚のH100でvLLMを使っています。推論が遅くなりました。",  # probe
    "H100 8장으로 vLLM을 씁니다. 추론이 느려졌습니다.",  # probe
    "H100 8장으로 vLLM을 씁니다. 추론이 느리지만 정확합니다.",  # probe: slow, but accurate
    "H100 8장으로 vLLM을 씁니다. 추론이 느려진 것 같습니다.",  # probe
])
def test_slow_in_japanese_and_korean_still_read(text):
    assert _slow(text)


# ------------------------------------------------------------- claims._IMPROVED: a figure below or at 1 is no gain
@pytest.mark.parametrize("sentence, effect", [
    ("It is 0.5x as fast now and still slow.", "no_help"),  # probe: half the speed
    ("It became 0.5 times as fast, still slow.", "no_help"),  # probe
    ("It is 1x as fast, still slow.", "no_help"),  # probe: the same speed
    ("It is 1.5x as fast but still slow.", None),  # probe: a gain, still read
    ("It got 10 times as fast, though TP=4 is still slow.", None),  # probe
])
def test_a_fraction_as_fast_is_no_gain(sentence, effect):
    assert claims._effect(sentence) == effect


# -------------------------------------- ticket_questions._sparse_run: sparsity asked about, or another subject's
def _sparse_peak(text: str):
    facts = Facts()
    facts.add(*issue_md.parse(f"# MFU\n\n{text}\n", "issue.md"))
    facts.subject = Subject.of(facts)
    return ticket_questions.sparse_peak_quoted(facts)


BASE = "Training Llama 70B on one H100 SXM node, our MFU is 400/1979 TFLOPS, only 20%."


@pytest.mark.parametrize("extra", [
    " Does the 1979 TFLOPS assume 2:4 sparsity?",  # probe: the question the reading answers
    " Is 1979 the figure for sparse weights?",  # probe
    " Should we try 2:4 sparsity?",  # probe: advice / a plan
    " The model is Mixtral, a sparse model (MoE).",  # probe: a mixture of experts, dense GEMMs
    " DeepSeek-V3.2 uses sparse kernels for attention.",  # probe: sparse attention
])
def test_sparsity_asked_or_of_another_subject_keeps_the_sparse_peak(extra):
    assert _sparse_peak(BASE + extra) is not None


def test_a_sparse_run_still_drops_it():
    # probe: the run's weights are 2:4-sparse
    assert _sparse_peak(BASE + " We pruned the weights to 2:4 sparsity with SparseGPT.") is None


# ----------------------------------------- claims.works_vs_failing: a release with another product named after it
def _compared(text: str):
    facts = said(f"# crash\n\n{text}\n")
    return [c.data["versions"] for c in claims.claims(facts) if c.kind == "engine_versions_compared"]


@pytest.mark.parametrize("text", [
    "vLLM 0.6.1 works fine on 8 H100. It crashes when using version 12.4 of CUDA.",  # probe: CUDA's release
    "vLLM 0.6.1 works fine on 8 H100, but crashes when using v2.5.1 torch.",  # probe: torch's
    "vLLM 0.6.1 works fine on 8 H100. It crashes with version 2.5.1 of torch.",  # probe
])
def test_another_products_release_is_not_the_engines(text):
    assert _compared(text) == []


@pytest.mark.parametrize("text", [
    "vLLM 0.6.1 works fine on 8 H100. It crashes with version 0.6.3 of vLLM.",  # probe: the engine's own
    "Works fine with vllm 0.6.6. Error in vllm 0.7.0 with torch 2.5.",  # probe: still read
])
def test_the_engines_own_release_still_read(text):
    assert _compared(text) != []


# ------------------------------------------------ issue_md._picture_size: a memory size after the card is no side
@pytest.mark.parametrize("text, names", [
    ("We have 4 x 4090 x 128GB RAM hosts", ["4090"]),  # probe: a host's memory
    ("2 x 3090 x 256 GB RAM", ["3090"]),  # probe
    ("cannot generate 1920 x 1080 or 1280 X 720 videos", []),  # probe: still a picture's size
    ("8 x 1080 Ti", ["1080 Ti"]),  # probe: unchanged
])
def test_a_memory_size_after_the_card_is_no_picture(text, names):
    assert [m.group(0) for m in issue_md.GPU_NAME.finditer(text)] == names
