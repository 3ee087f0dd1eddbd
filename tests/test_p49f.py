"""Pass p49f: nccl-tests' own failed check is never a healthy answer (tests/data/p49f/SOURCES.md).

- The parser reads every form nccl-tests has printed its check in (NVIDIA/nccl-tests src/common.cu): the summary lines
  without "#" (2017-2019: " Out of bounds values : %d %s"), the old "error" column (the largest deviation, "%le",
  counted wrong past DeltaMaxValue(type) x (nranks - 1)) and the "#wrong" count (2022 on, "%g", N/A in place).
- ticket.check_failed turns a failed check into a finding where it singles out no cause (across nodes, over NVLink,
  paths unknown): b49b/nccltests37 (healthy before), b49b/nccltests7 (p2p_disabled before), p49f/nccltests8,
  p49f/nccl2001.
"""

import pytest
from conftest import issue_bundle, judged_issue, judged_kept_paste

from diagnose.artifacts import nccl_tests
from diagnose.evidence import CollectiveSummary, NcclEvent
from rules import claims


def _wrong(text: str) -> list[NcclEvent]:
    return [r for r in nccl_tests.parse(text, "x") if isinstance(r, NcclEvent) and r.kind == "nccl_tests_wrong"]


# --------------------------------------------------------------------------- every printed form of the check

# Real lines: NVIDIA/nccl-tests#37 (2020, 2.4/2.5 tests: no "#", error column), NVIDIA/nccl#606 (old error column, all
# 0e+00), aws/aws-ofi-nccl#65 (old error column, 5e-07 rounding), NVIDIA/nccl-tests#287 (#wrong 0 and N/A in place).
_OLD_HEADER = ("       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error\n"
               "        (B)    (elements)             (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n")
_OLD_REDOP_HEADER = ("#       size         count    type   redop     time   algbw   busbw  error     time   algbw"
                     "   busbw  error\n")


def test_the_summary_without_hash_is_read():
    text = (_OLD_HEADER + "  4294967296     134217728   float    29122  129.05  129.05  1e+00    29169  128.84  128.84"
            "  1e+00\n Out of bounds values : 2 FAILED\n Avg bus bandwidth    : 128.942\n")
    records = nccl_tests.parse(text, "x")
    assert any(e.data.get("out_of_bounds") == 2 for e in _wrong(text))
    assert [s.avg_busbw_gbs for s in records if isinstance(s, CollectiveSummary)] == [128.942]


def test_an_old_error_column_past_the_bound_is_a_failed_check():
    text = _OLD_HEADER + ("  4294967296     134217728   float    29122  129.05  129.05  1e+00    29169  128.84  128.84"
                          "  1e+00\n")
    assert [e.data["max_error"] for e in _wrong(text)] == [1.0, 1.0]


@pytest.mark.parametrize("text", [
    " Out of bounds values : 0 OK\n Avg bus bandwidth    : 128.942\n",
    "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 8.62002 \n",
    # the old error column's rounding (aws-ofi-nccl#65) and zeros (nccl#606): inside the bound
    _OLD_REDOP_HEADER + "    33554432       8388608   float     sum   1965.1   17.08   32.02  5e-07   1962.7   17.10"
    "   32.06  5e-07\n",
    _OLD_REDOP_HEADER + "           8             2     float     sum     7.76    0.00    0.00  0e+00     7.79    0.00"
    "    0.00  0e+00\n",
    # a #wrong count of 0 and N/A in place (nccl-tests#287)
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw"
    " #wrong\n    33554432       8388608     float    none      -1    19.56  1715.44    0.00      0     0.78  43046.10"
    "    0.00    N/A\n# Out of bounds values : 0 OK\n",
])
def test_a_passed_check_is_no_failed_check(text):
    assert _wrong(text) == []


def test_a_wrong_count_above_zero_is_a_failed_check():
    text = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw"
            "   busbw #wrong\n     1048576        262144     float     sum      -1    45.10   23.25   40.69      3"
            "    44.90   23.35   40.87      0\n# Out of bounds values : 1 FAILED\n")
    assert {e.data.get("errors") or e.data.get("out_of_bounds") for e in _wrong(text)} == {3, 1}


# --------------------------------------------------------------------------- the real threads

@pytest.mark.parametrize("rel", [
    "b49b/nccltests37.md",  # one NVLink host, old table without "#": an NCCL bug (nccl-tests#37), was healthy
    "b49b/nccltests7.md",   # two IB nodes with GPUDirect RDMA: the 390 driver (nccl-tests#7), was p2p_disabled
    "p49f/nccltests8.md",   # two IB nodes, GDR on, driver 390.30 (nccl-tests#8)
    "p49f/nccl2001.md",     # GH200 nodes over Slingshot, "#wrong transfers": the GPUDirect path (nccl#2001)
])
def test_a_failed_check_is_the_fault_named(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "other"
    assert found["ticket.check_failed"].severity == "critical"
    assert "ticket.p2p_corrupts" not in found


# --------------------------------------------------------------------------- near misses

_TWO_NODES = ("# nccl-tests on two nodes\n\nWe run all_reduce_perf across two nodes (node1 and node2) over InfiniBand "
              "with 8 GPUs each.\n\n")


@pytest.mark.parametrize("text", [
    _TWO_NODES + "The result says Out of bounds values : 0 OK, but the bandwidth is lower than expected.",
    _TWO_NODES + "The #wrong column is 0 everywhere, only the busbw is low.",
    _TWO_NODES + "There are no #wrong values, the data check passes.",
    _TWO_NODES + "Someone in #131 got Out of bounds values : 50 FAILED; on our cluster the bandwidth is low.",
    _TWO_NODES + "With driver 390 we got Out of bounds values : 24 FAILED. After moving to driver 387 the problem "
    "is solved.",
    _TWO_NODES + "What does the #wrong column count?",
    _TWO_NODES + "Could an ACS setting give Out of bounds values : 24 FAILED in all_reduce_perf?",
])
def test_no_failed_check_is_read_where_none_failed_now(text):
    _, found = judged_issue(text)
    assert "ticket.check_failed" not in found


def test_a_failed_check_said_across_nodes_is_no_peer_path():
    verdict, found = judged_issue(_TWO_NODES + "all_reduce_perf ends with Out of bounds values : 24 FAILED.")
    assert "ticket.check_failed" in found and "ticket.p2p_corrupts" not in found
    assert verdict.category == "other"


def test_on_one_host_over_pcie_the_peer_path_reading_stands():
    # one host, two PCIe GPUs, no NVLink: ticket.p2p_corrupts' reading (ACS / IOMMU), not the general finding
    _, found = judged_issue("# Wrong results\n\nOn one server with 2 RTX 4090 GPUs (PCIe, no NVLink) all_reduce_perf "
                            "reports Out of bounds values : 12 FAILED.")
    assert "ticket.p2p_corrupts" in found and "ticket.check_failed" not in found


@pytest.mark.parametrize("rel", [
    "ut19/ncclt249.md",    # nccl-tests#249: a table pasted as prose, "#wrong" only in its header (one rank, busbw 0)
    "ut26d/nccl1368.md",   # nccl#1368: the header "# size count type ... #wrong" beside figures, all counts 0
])
def test_the_column_header_is_no_failed_check(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert "ticket.check_failed" not in found
    assert verdict.category == "expected_physics"


# (r49b) probes of the read-only review: a count of 0 said in words, a message size after "of", a past state, and an
# old-era MPI table whose header counts one process's GPUs
_TWO_NODES = ("# nccl-tests all_reduce on two nodes\n\nWe run all_reduce_perf across two nodes (node1 and node2) over "
              "InfiniBand with 8 GPUs each. ")


@pytest.mark.parametrize("said", [
    "The #wrong values are all 0 in every row, but busbw only reaches 20 GB/s. Is that expected?",
    "#wrong results are zero for every size. Why is busbw only 20 GB/s?",
    "#wrong values: none. The busbw only reaches 20 GB/s, which seems low.",
    "The #wrong of 1GB and 2GB rows is 0, only busbw is low at 20 GB/s. Is that expected for HDR?",
    "node3 used to show Out of bounds values : 4 FAILED before we replaced its GPU; now every node passes the "
    "check. The busbw only reaches 20 GB/s, is that expected for HDR?",
])
def test_a_check_of_zero_or_a_past_failure_is_no_failed_check(said):
    _, found = judged_issue(_TWO_NODES + said)
    assert "ticket.check_failed" not in found


def test_an_mpi_table_whose_header_counts_one_gpu_keeps_its_rounding_error():
    # healthy43/ncclt176's 128-GPU float table (error 1e-06) under nccl-tests' own header "nThread 1 nGpus 1": the
    # process count is printed nowhere, so the bound is a large job's, not one rank's (which is 0)
    table = "\n".join([
        "# nThread 1 nGpus 1 minBytes 4096 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 validation: 1",
        "#",
        "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
        "#        (B)    (elements)                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
        "        4096          1024     float     sum    93.73    0.04    0.09  1e-06    93.15    0.04    0.09  1e-06",
        "        8192          2048     float     sum    96.51    0.08    0.17  1e-06    95.46    0.09    0.17  1e-06",
    ])
    records = nccl_tests.parse(table, "t")
    assert not [r for r in records if getattr(r, "kind", "") == "nccl_tests_wrong"]


@pytest.mark.parametrize("said", [
    # (r49d) wrong values said non-zero, or present with no count: a failed check as before
    "Running nccl-tests all_reduce_perf on 8 GPUs, the #wrong values are non-zero for every size above 1MB.",
    "Running nccl-tests all_reduce_perf on 8 GPUs, I get #wrong values on every row with no obvious pattern.",
])
def test_wrong_values_said_without_a_zero_are_a_failed_check(said):
    assert claims.nccl_check_said(issue_bundle("# nccl-tests wrong values\n\n" + said)) is not None
