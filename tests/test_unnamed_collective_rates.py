"""An all-reduce rate the reporter gives in prose without naming busbw or algbw (issue_md._unnamed_rates), and the
nccl.busbw finding that states both readings of it. The sentences are the reporters' own, from the threads cited."""

import pytest

from diagnose.artifacts import parse_text
from diagnose.evidence import Facts, Measurement
from rules.engine import evaluate

_TITLE = "# All-reduce bandwidth question\n\n"


def _rates(text: str) -> list[tuple[float, str | None]]:
    records, _ = parse_text(_TITLE + text + "\n", "issue.md")
    return [(m.value, m.scope) for m in records if isinstance(m, Measurement) and m.metric == "busbw_gbs"]


def test_a_rate_in_bits_under_the_nccl_tests_line_is_read_in_bytes_and_the_nic_line_rate_is_not():
    # https://github.com/NVIDIA/nccl/issues/495
    text = ("I use nccl-tests on two A100  machines, each machine has 8 *100 Gbps network nic. \n"
            "Bandwidth can reach 600Gbps. Does this bandwidth value meet the expectation?\nmy network is ROCE")
    assert _rates(text) == [(75.0, "algbw_or_busbw")]  # 600 Gb/s / 8 bits


def test_measured_all_reduce_rates_are_read_and_the_theoretical_value_and_the_nics_are_not():
    # https://github.com/NVIDIA/nccl/issues/1048
    text = ("A100 * 8, IB 200Gb * 4 (dual port),\n\n"
            "singleNode, ./build/all_reduce_perf -b 8 -e 4G -f 2 -g 8, result: 232.54GB/s\n"
            "nccl all-reduce between two nodes only 86GB/s。There is a big gap compared to the theoretical "
            "value(96 GB/s), why is this?")
    assert _rates(text) == [(232.54, "algbw_or_busbw"), (86.0, "algbw_or_busbw")]


def test_each_reported_rate_counts_and_the_nics_capability_does_not():
    # https://github.com/NVIDIA/nccl/issues/1168
    text = ("NCCL Allreduce results reports ~45GB/s with 4 GPUs per node  and ~90GB/s on 8 GPUs per node configured "
            "cluster when run on 4 nodes. THe message size used is 256MB. thought the NIC has capability of ~200GB/s "
            "of theoretical bandwidth.")
    assert _rates(text) == [(45.0, "algbw_or_busbw"), (90.0, "algbw_or_busbw")]


@pytest.mark.parametrize("text", [
    # a target in a question: https://github.com/Azure/AI-benchmarking-guide/issues/7
    "for the nccl bandwidth above, is it the all reduce between 72 cards? Do we know why it is significant lower "
    "than expect (900GB/s)?",
    # a link's rate per GPU and a target: same thread
    "Each GPU has 900GB/s unidirectional bw to nvswitch. the all reduce bus bandwidth should close to 900GB.",
    # the NICs' total: https://github.com/NVIDIA/nccl/issues/652
    "I am trying to run all_reduce on a 32 node 8xA100-SXM4 cluster each node of which has 4 IB HDR cards for a "
    "total of 100 GB/s bandwidth.",
    # the NIC's line rate beside an NCCL test: https://github.com/NVIDIA/nccl-tests/issues/389
    "I was running the NCCL test using two 8xB200 compute nodes, but I could not validate that it completed "
    "successfully.  Nodes are equipped with ConnectX-7 NDR 400 Gb/s InfiniBand.",
    # written for this test: a target, a question, a spec sheet, another system, a NIC, no collective at all
    "all_reduce_perf should reach 400Gb/s on this cluster.",
    "Is 240Gb/s normal for all_reduce_perf across two nodes?",
    "The datasheet gives 450 GB/s for all-reduce over NVLink.",
    "On our other cluster all_reduce_perf reaches 180 GB/s.",
    "We run all_reduce_perf over a 400Gb/s NIC per GPU.",
    "We only get 240Gb/s between the two nodes.",
])
def test_targets_questions_line_rates_and_other_systems_are_no_measurement(text):
    assert _rates(text) == []


def test_a_named_busbw_stays_busbw():
    assert _rates("In all_reduce_perf the busbw of ~70GB/s is all we see.") == [(70.0, None)]


def _busbw_findings(text: str):
    records, _ = parse_text(text, "issue.md")
    facts = Facts()
    facts.add(*records)
    return [f for f in evaluate(facts) if f.rule == "nccl.busbw"]


def test_the_finding_states_both_readings_at_the_gpu_count_of_the_sentence():
    text = (_TITLE + "Single node with 8x H100 SXM. With 8 GPUs all_reduce_perf only reaches 120 GB/s for large "
            "messages.\n")
    (f,) = _busbw_findings(text)
    both = [e for e in f.evidence if "algbw or busbw" in e.detail]
    assert [(e.measured, e.unit) for e in both] == [(210.0, "GB/s")]  # 120 x 2(8-1)/8
    assert "at 8 GPUs" in both[0].detail


def test_a_named_busbw_finding_has_no_second_reading():
    text = _TITLE + "Single node with 8x H100 SXM. With 8 GPUs all_reduce_perf busbw only reaches 120 GB/s.\n"
    (f,) = _busbw_findings(text)
    assert not [e for e in f.evidence if "algbw or busbw" in e.detail]


def test_a_figure_said_again_without_its_name_keeps_the_name_it_was_given():
    text = "all_reduce_perf on the 8 GPUs: the algbw is about 180GB/s.\nall_reduce_perf on this node, about 180GB/s:"
    records, _ = parse_text(_TITLE + text + "\n", "issue.md")
    got = [(m.metric, m.value, m.scope) for m in records if isinstance(m, Measurement) and m.metric.endswith("bw_gbs")]
    assert got == [("algbw_gbs", 180.0, None)]
