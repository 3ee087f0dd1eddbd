"""Transport and fabric evidence as reporters paste and say it (issue 11 k): peer access refused in the words of
the engines' warnings and in plain speech, an nccl-tests paste whose "#" lines GitHub turned into headings, a
GPU's model number that is no figure, release differences too small to be a regression, and peer access refused
over an NVLink that is up. Each claim is tried on phrasings not taken from any case, and on negations."""

import pytest
from test_ticket_failure_rules import fired, ticket
from test_ticket_questions import said
from test_ticket_reasoning import answer as case_answer

from diagnose.artifacts import issue_md, nccl_tests
from diagnose.evidence import GpuFact, Measurement, Workload
from rules import claims

# --------------------------------------------------------------------------- peer access refused, in words

@pytest.mark.parametrize("text", [
    "[TM][WARNING] Device 0 peer access Device 1 is not available.",
    "[TensorRT-LLM][WARNING] Device 2 peer access Device 5 is not available.",
    "Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed.",
    "The two cards can not do p2p, so tensor parallel stops at start-up.",
    "We are unable to establish peer access between GPU0 and GPU1.",
    "Peer-to-peer doesn't work between the 4090s on this board.",
    "P2P did not work after the driver update.",
])
def test_peer_access_refused_is_read_in_its_many_forms(text):
    found = claims.find(said(text), "no_p2p")
    assert found and not found[0].guess


@pytest.mark.parametrize("text", [
    "There is no 'P2P test failed' warning in the log.",  # ruled out
    "P2P works fine between all pairs; the slowdown is elsewhere.",  # nothing refused
    "We never saw a P2P test failed message on this host.",
])
def test_peer_access_ruled_out_or_working_is_no_refusal(text):
    assert not claims.find(said(text), "no_p2p")


def test_peer_access_refused_as_a_question_or_a_guess_stays_a_guess():
    for text in ("Could it be that P2P doesn't work on these cards?",
                 "Maybe the GPUs can not do p2p on this motherboard."):
        found = claims.find(said(text), "no_p2p")
        assert found and found[0].guess


def test_cannot_do_p2p_on_geforce_is_p2p_disabled():
    answer, findings = ticket("Two RTX 4090 on one board: vLLM with --tensor-parallel-size 2 fails at start, "
                              "the GPUs can not do p2p.")
    assert [f.category for f in fired(findings, "ticket.p2p_refused")] == ["p2p_disabled"]
    assert answer.category == "p2p_disabled" and answer.confidence <= 0.65  # words only


# --------------------------------------------------------------------------- the symptom: "can not"

@pytest.mark.parametrize("text, kind", [
    ("The server can not start after the upgrade.", "error"),
    ("vLLM can not allocate the KV cache on the second GPU.", "error"),
    ("I can not improve throughput with tensor parallelism on 4 GPUs.", None),  # a performance question
])
def test_can_not_is_an_error_only_before_an_operation(text, kind):
    got = claims.symptom(said(text))
    assert (got == "error") == (kind == "error")


# --------------------------------------------------------------------------- nccl-tests pasted without "#"

HEADLESS = """all_reduce_perf -b 8 -e 128M -f 2 -g 2
nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1

Using devices
Rank  0 Pid   3454 on gpu-box device  0 [0x81] NVIDIA GeForce RTX 4090
Rank  1 Pid   3454 on gpu-box device  1 [0xa1] NVIDIA GeForce RTX 4090

                                                       out-of-place                       in-place
       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error
        (B)    (elements)                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   134217728      33554432     float     sum    10485    12.80    12.80  0e+00    10471    12.82    12.82  0e+00
"""


def test_an_nccl_tests_paste_that_lost_its_hash_marks_is_still_read():
    records = nccl_tests.parse(HEADLESS, "log.txt")
    gpus = [r for r in records if isinstance(r, GpuFact)]
    assert [g.name for g in gpus] == ["NVIDIA GeForce RTX 4090"] * 2
    assert [w.gpu_count for w in records if isinstance(w, Workload)] == [2]
    assert nccl_tests.detect(HEADLESS) >= 0.5


def test_prose_about_ranks_is_no_device_line():
    records = nccl_tests.parse("Rank 0 is always slower than rank 1.\nRank 3 waits for the others.\n", "x")
    assert not [r for r in records if isinstance(r, (GpuFact, Workload))]


@pytest.mark.parametrize("prefix, rule_id", [
    ("u6c11", "ticket.hang_on_pcie"),  # the headless paste gives the hang its two GPUs
    ("u6c09", "ticket.p2p_refused"),  # peer access refused over NVLink links that are up, in a failing run
])
def test_real_development_cases_reach_p2p_disabled(tmp_path, prefix, rule_id):
    answer, findings = case_answer(tmp_path, prefix)
    assert [f.category for f in fired(findings, rule_id)] == ["p2p_disabled"]
    assert answer.category == "p2p_disabled"


# --------------------------------------------------------------------------- a GPU's model number is no figure

@pytest.mark.parametrize("line", [
    "I ran nccl-tests on 8*3090 of a single machine.",
    "I ran nccl-tests on 4×4090 in one box.",
    "nccl-tests on the RTX 3090 pair gives odd numbers.",
])
def test_a_gpu_model_number_beside_nccl_tests_is_not_a_busbw(line):
    records = issue_md.parse(f"# Question\n\n{line}\n", "issue.md")
    assert not [m for m in records if isinstance(m, Measurement) and m.metric == "busbw_gbs"]


def test_a_bare_busbw_figure_beside_nccl_tests_is_still_read():
    records = issue_md.parse("# Question\n\nWith nccl-tests all_reduce_perf I only get 18 busbw on 8 GPUs.\n",
                             "issue.md")
    assert [m.value for m in records if isinstance(m, Measurement) and m.metric == "busbw_gbs"] == [18.0]


# --------------------------------------------------------------------------- release differences in words

@pytest.mark.parametrize("text, ratio", [
    ("NCCL 2.8.3 is around 10% slower than 2.7.8", 1.1),
    ("2.19 is 3x slower than 2.18", 3.0),
    ("bandwidth is lower by about 25 % with the new release", 1.25),
    ("NCCL 2.18 vs 2.20 on the same nodes", None),
])
def test_a_stated_release_difference_is_read_as_a_ratio(text, ratio):
    assert claims.stated_release_ratio(text) == (pytest.approx(ratio) if ratio else None)


def test_a_small_release_difference_is_a_lead_not_a_regression():
    answer, findings = ticket("On 8 RTX 3090 in one server NCCL 2.8.3 is about 8% slower than NCCL 2.7.8 in "
                              "all_reduce_perf. Is that a regression?")
    lead = [f for f in findings if f.rule == "nccl.regression"]
    assert lead and lead[0].severity == "info" and lead[0].category == "expected_physics"
    assert answer.category == "expected_physics" and answer.confidence < 0.5


@pytest.mark.parametrize("text", [
    "On 8 A100 NCCL 2.19.3 is about 40% slower than NCCL 2.18.5 in all_reduce_perf.",
    "Training is 3x slower with NCCL 2.16.2 than with NCCL 2.14.3 on the same machine.",
])
def test_a_large_release_difference_stays_a_regression(text):
    answer, findings = ticket(text)
    assert [f.severity for f in findings if f.rule == "nccl.regression"] == ["warning"]
    assert answer.category == "nccl_regression"


# --------------------------------------------------------------------------- refused over an NVLink that is up

@pytest.mark.parametrize("sentence", [
    # a guess, not an observation
    "Since updating to v0.6.0, maybe my two Nvlinked 3090's can not do p2p?",
    # P2P said to work: nothing refused
    "Since updating to v0.6.0, p2p works on my two Nvlinked 3090's and tensor parallel runs.",
])
def test_over_active_nvlink_a_guess_or_working_p2p_is_no_refusal(tmp_path, sentence):
    old = "Since updating to v0.6.0, my two Nvlinked 3090's can not do p2p and work with tensor parallel."
    _, findings = case_answer(tmp_path, "u6c09", lambda text: text.replace(old, sentence))
    assert not fired(findings, "ticket.p2p_refused")
